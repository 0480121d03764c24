"""Where the installed pieces of mxffi are, and what this Python build allows."""

import os
import sysconfig

__all__ = ["check_gil_build", "find_lib", "include_dir", "lib_dir", "cmake_dir"]


def check_gil_build(get_config_var=sysconfig.get_config_var):
    """Refuse free-threaded Python: mxffi's Python-side caches rely on the GIL."""
    if get_config_var("Py_GIL_DISABLED"):
        raise ImportError(
            "mxffi does not support free-threaded Python (this interpreter was built with "
            "--disable-gil): its Python-side caches rely on the GIL. Use a regular CPython build."
        )


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
