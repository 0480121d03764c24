"""Loading outside libraries: mxffi.library.load(path).

A REGISTER_API library is a shared library built against mxffi's headers and libmxffi
(``find_package(mxffi)``); its static initialisers register functions into the one registry,
which loading makes callable from Python with mxffi.get_global_func.
"""

import os

from ._ffi import Object, get_global_func, register_object

__all__ = ["Library", "load"]

_load = get_global_func("library.load")


@register_object("mxffi.Library")
class Library(Object):
    """A loaded library; it stays loaded for the life of the process."""

    def __repr__(self):
        return f"<mxffi.Library {getattr(self, '_path', '?')}>"


_LOADED = {}


def load(path):
    """Load the shared library at path; functions it registers become global functions.

    Loading the same file twice returns the first Library. Raises ValueError for a path that
    does not exist or cannot be loaded, RuntimeError for a library whose registrations fail
    (a name taken, a different C ABI major), naming the library.
    """
    fspath = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(fspath, str):
        raise TypeError(
            "mxffi.library.load: path must be a str or os.PathLike naming a file, got "
            f"{type(path).__name__}"
        )
    path = fspath
    real = os.path.realpath(path)
    if real in _LOADED:
        return _LOADED[real]
    if not os.path.exists(real):
        raise ValueError(f"mxffi.library.load: {path} does not exist")
    lib = _load(real)
    lib._path = real
    _LOADED[real] = lib
    return lib
