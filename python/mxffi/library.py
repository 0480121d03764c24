"""Loading outside libraries: mxffi.library.load(path).

Two kinds load through the one entry point:

- A REGISTER_API library, built against mxffi's headers and libmxffi (``find_package(mxffi)``,
  ``mxffi_add_library``): its static initialisers register global functions and ops.
- A custom op library, built against ``mxffi/lib_api.h`` alone (``mxffi_add_op_library``), with
  no link to libmxffi: its ops are checked and registered as mxffi ops, callable as
  ``mxffi.ops.<name>(...)`` and through ``mxffi.ops.invoke``. See docs/custom_ops.md.

Libraries stay loaded for the life of the process. The states of stateful library ops are freed
by :func:`release_states`, which runs at interpreter exit.
"""

import atexit
import os

from ._ffi import Object, get_global_func, register_object

__all__ = ["Library", "load", "loaded", "release_states"]

_load = get_global_func("library.load")
_list = get_global_func("library.list")
_release_states = get_global_func("library.release_states")


@register_object("mxffi.Library")
class Library(Object):
    """A loaded library: ``path``, ``kind`` ("register_api" or "op_library") and ``names`` (the
    global functions or ops it registered). It stays loaded for the life of the process."""

    def __repr__(self):
        return f"<mxffi.Library {self.kind} {self.path}: {', '.join(map(str, self.names))}>"


_LOADED = {}


def load(path, override=False):
    """Load the shared library at path, and make what it registers callable.

    Loading the same file twice returns the first Library. ``override=True`` lets a custom op
    library replace ops already registered under its op names (built-in ones included): the
    name then finds the library's op, through ``mxffi.ops`` and ``ops.invoke``.

    Raises ValueError for a path that does not exist, cannot be loaded, or is neither kind of
    library, and for an op whose name is taken (without override) or whose description is
    malformed; RuntimeError for a library built for another op-library ABI major version, one
    that fails to initialise, or a REGISTER_API library whose registrations fail. Every message
    names the library; a refused library leaves the registry as it was.
    """
    fspath = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(fspath, str):
        raise TypeError(
            "mxffi.library.load: path must be a str or os.PathLike naming a file, got "
            f"{type(path).__name__}"
        )
    if not isinstance(override, bool):
        raise TypeError(f"mxffi.library.load: override must be True or False, got {override!r}")
    path = fspath
    real = os.path.realpath(path)
    if real in _LOADED:
        return _LOADED[real]
    if not os.path.exists(real):
        raise ValueError(f"mxffi.library.load: {path} does not exist")
    lib = _load(real, override)
    _LOADED[real] = lib
    return lib


def loaded():
    """The libraries loaded so far, in load order."""
    return list(_list())


def release_states():
    """Free the state of every stateful op from a custom op library; returns how many.

    Each library frees its own states. A later call of such an op makes a fresh state. This
    runs at interpreter exit, while the libraries are still loaded.
    """
    return int(_release_states())


atexit.register(_release_states)
