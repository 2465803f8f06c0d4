"""The C rounding mode for a block, for the tests of the prepare memos (a handle memoized
under one floating-point environment must not serve another)."""
import contextlib
import ctypes
import ctypes.util
import platform
import sys

import pytest

# glibc x86's FE_* (the MXCSR / x87 rounding-control bits); other platforms skip
FE = {"down": 0x400, "up": 0x800, "zero": 0xC00}

# the FE_* values above are glibc x86's
GLIBC_X86 = sys.platform.startswith("linux") and platform.machine() in ("x86_64", "AMD64")


@contextlib.contextmanager
def rounding_mode(mode):
    """The C rounding mode set with libm's fesetround for the block (skips where there is
    no libm to call, or libm refuses the mode)."""
    name = ctypes.util.find_library("m") or ("libm.so.6" if sys.platform.startswith("linux")
                                             else None)
    if not name:
        pytest.skip("no libm to set the rounding mode")
    libm = ctypes.CDLL(name)
    old = libm.fegetround()
    if libm.fesetround(mode) != 0:
        pytest.skip("fesetround refused the mode")
    try:
        yield
    finally:
        libm.fesetround(old)
