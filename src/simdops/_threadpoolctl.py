"""simdops' thread pool as a threadpoolctl library (threadpoolctl >= 3.2).

threadpoolctl finds libraries among the shared objects loaded in the process:
this controller matches the extension module (simdops/_core*.so) by the
symbols it exports, simdops_get_num_threads / simdops_set_num_threads, so
`threadpool_info()` lists simdops and `threadpool_limits(1)` (or
`user_api="simdops"`) limits it like BLAS and OpenMP.
"""
import threadpoolctl

from simdops import _core


class SimdopsController(threadpoolctl.LibController):
    user_api = "simdops"
    internal_api = "simdops"
    # the extension module's file name: _core.cpython-311-x86_64-linux-gnu.so
    filename_prefixes = ("_core",)
    # other packages' _core modules lack these and are not taken for ours
    check_symbols = ("simdops_get_num_threads", "simdops_set_num_threads")

    def get_num_threads(self):
        get = getattr(self.dynlib, "simdops_get_num_threads", None)
        return get() if get is not None else None

    def set_num_threads(self, num_threads):
        # threadpoolctl passes any positive int; the pool takes 1..max
        n = min(max(int(num_threads), 1), _core.MAX_THREADS)
        return self.dynlib.simdops_set_num_threads(n)

    def get_version(self):
        if getattr(self.dynlib, "simdops_get_num_threads", None) is None:
            return None  # another package's _core module, about to be skipped
        from simdops._version import __version__  # not simdops: it imports this module
        return __version__


def register():
    if hasattr(threadpoolctl, "register"):
        threadpoolctl.register(SimdopsController)
