"""Where the installed pieces of mxffi are, and what this Python build allows."""

import contextlib
import os
import platform
import sysconfig

__all__ = [
    "check_gil_build",
    "find_lib",
    "include_dir",
    "lib_dir",
    "cmake_dir",
    "cpu_features",
    "openblas_core_type",
    "openblas_core_type_set",
]


def check_gil_build(get_config_var=sysconfig.get_config_var):
    """Refuse free-threaded Python: mxffi's Python-side caches rely on the GIL."""
    if get_config_var("Py_GIL_DISABLED"):
        raise ImportError(
            "mxffi does not support free-threaded Python (this interpreter was built with "
            "--disable-gil): its Python-side caches rely on the GIL. Use a regular CPython build."
        )


# OPENBLAS_CORETYPE's names for the kernel sets of a CPU that can run these instruction sets
# (named as numpy's CPU dispatch names them), best first.
_OPENBLAS_CORES = (
    ("SKYLAKEX", frozenset({"AVX512F", "AVX512CD", "AVX512BW", "AVX512DQ", "AVX512VL"})),
    ("HASWELL", frozenset({"AVX2", "FMA3"})),
)


def openblas_core_type(features):
    """The OPENBLAS_CORETYPE whose kernels a CPU that runs these instruction sets runs best:
    SKYLAKEX with AVX-512 (F, CD, BW, DQ, VL), HASWELL with AVX2 and FMA, else None."""
    for name, needs in _OPENBLAS_CORES:
        if needs <= features:
            return name
    return None


def cpu_features():
    """The instruction sets this process can run, as numpy's CPU dispatch found them: from
    CPUID and the register state the OS saves, as the process sees them (under valgrind, which
    runs no AVX-512, without it, where /proc/cpuinfo would still list it). Empty when numpy is
    not installed."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:
        try:  # numpy 1.x
            from numpy.core._multiarray_umath import __cpu_features__
        except ImportError:
            return frozenset()
    return frozenset(name for name, on in __cpu_features__.items() if on)


@contextlib.contextmanager
def openblas_core_type_set(environ=None, features=None, machine=None):
    """While libmxffi loads, OPENBLAS_CORETYPE names the kernels for this CPU's features.

    A DYNAMIC_ARCH OpenBLAS (Debian's, which libmxffi links) picks its kernels once, when it
    loads, from the CPU's family and model; a model newer than its tables (Debian 12's 0.3.21
    on a CPU that calls itself "Intel(R) Xeon(R) Processor", family 6 model 207, say) gets its
    oldest kernels, Prescott's, and LAPACK at 512^2 runs at half numpy's speed. The features
    (cpu_features) tell what the process can run, whatever the model. A value the user set is
    left as it is, and so is any CPU other than x86-64, and every CPU when numpy is not there
    to say what it runs; the variable is removed again afterwards, so that child processes and
    libraries loaded later choose for themselves. Yields the value set, or None.
    """
    environ = os.environ if environ is None else environ
    machine = platform.machine() if machine is None else machine
    core = None
    if "OPENBLAS_CORETYPE" not in environ and machine.lower() in ("x86_64", "amd64"):
        core = openblas_core_type(cpu_features() if features is None else features)
    if core is None:
        yield None
        return
    environ["OPENBLAS_CORETYPE"] = core
    try:
        yield core
    finally:
        environ.pop("OPENBLAS_CORETYPE", None)


def _package_root():
    # The compiled pieces sit beside the Cython core (site-packages/mxffi/_ffi/core*.so), also in
    # an editable install, where the Python sources stay in the checkout.
    from importlib.util import find_spec

    spec = find_spec("mxffi._ffi.core")
    if spec is None or spec.origin is None:
        raise ImportError("mxffi: the Cython core mxffi._ffi.core is not installed")
    return os.path.dirname(os.path.dirname(os.path.abspath(spec.origin)))


def lib_dir():
    """The directory holding libmxffi.so."""
    return os.path.join(_package_root(), "lib")


def include_dir():
    """The directory holding the mxffi/ headers."""
    return os.path.join(_package_root(), "include")


def cmake_dir():
    """The directory holding mxffiConfig.cmake, for find_package(mxffi)."""
    return os.path.join(lib_dir(), "cmake", "mxffi")


def find_lib(name):
    """The path of lib<name>.so in the installed package."""
    path = os.path.join(lib_dir(), f"lib{name}.so")
    if not os.path.exists(path):
        raise OSError(f"mxffi: {path} is missing; reinstall mxffi")
    return path
