# Marks simdops/_ext as a package for cimport (the core extension's Cython:
# _core.pyx, its included fragments and _csimdops.pxd). No declarations here.
