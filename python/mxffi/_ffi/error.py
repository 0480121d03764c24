"""Errors crossing the C ABI, shared by the Cython and ctypes cores.

A C++ error carries a kind ("ValueError", ...), a message and a backtrace. Python raises it as
a subclass of both :class:`MXFFIError` and the builtin class of the same name, with the C++
backtrace attached as ``cpp_backtrace`` and shown in the printed traceback.

A Python exception raised inside a callback that C++ called travels the other way as an mxffi
error whose backtrace starts with a marker line naming a token; when the error reaches the outer
Python caller, the original exception object is raised again, so its type, attributes and
traceback survive the trip through C++. The table of such exceptions is bounded; the Cython core
also drops an entry (and clears its frames) as soon as C++ frees the error without re-raising it.

Reading a C++ backtrace means symbolising its raw frames, which costs far more than the raise
itself; the Cython core hands the error over unread, and ``cpp_backtrace`` and the note that
shows it in a printed traceback are made the first time either is read.
"""

import builtins
import itertools
import threading
import traceback

__all__ = [
    "MXFFIError",
    "ComplexWarning",
    "MXFFIWarning",
    "StorageFallbackWarning",
    "emit_warning",
    "error_class",
    "export_refused",
    "format_py_traceback",
    "with_callee",
    "make_error",
    "make_lazy_error",
    "named_error",
    "stash_py_error",
]


class MXFFIWarning(UserWarning):
    """Base class of the warnings mxffi's C++ side issues (through Python's warnings module, so
    filters, ``-W`` and ``pytest.warns`` see them)."""


class StorageFallbackWarning(MXFFIWarning):
    """An op ran on dense copies of sparse inputs: it has no kernel for their storage types.
    Issued once per (op, input and output storage types) combination;
    MXFFI_STORAGE_FALLBACK_LOG_VERBOSE=0 silences it."""


class ComplexWarning(MXFFIWarning, RuntimeWarning):
    """A complex array was converted to a real dtype (astype): the imaginary part is dropped,
    as numpy's ``ComplexWarning`` (also a RuntimeWarning) says."""


# Named where they are imported from (mxffi.error), as the error classes are.
MXFFIWarning.__module__ = StorageFallbackWarning.__module__ = "mxffi.error"
ComplexWarning.__module__ = "mxffi.error"
_WARNING_CLASSES = {
    "MXFFIWarning": MXFFIWarning,
    "StorageFallbackWarning": StorageFallbackWarning,
    "ComplexWarning": ComplexWarning,
}


def emit_warning(category, message):
    """Issue a C++ warning (MXFFIEnvSetWarnHook) as Python's warnings.warn of its class; a
    category this version does not know is an MXFFIWarning. It is attributed to the innermost
    frame outside the mxffi package (the user's call, past any mxffi wrapper and the ctypes
    core's callback). A filter that makes it an error raises here, and the core's hook hands
    that exception back to C++."""
    import os
    import sys
    import warnings

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(package):
        frame, level = frame.f_back, level + 1
    cls = _WARNING_CLASSES.get(category, MXFFIWarning)
    warnings.warn(message, cls, stacklevel=level)


_FORMAT_LOCK = threading.Lock()


class MXFFIError(Exception):
    """Base class of the exceptions raised for errors from mxffi's C++ side.

    ``cpp_backtrace`` is the C++ backtrace as text; a note holding its frames above the Python
    binding is shown in the printed traceback. Both are made on first read.
    """

    @property
    def cpp_backtrace(self) -> str:
        self._format_backtrace()
        return self.__dict__.get("_cpp_backtrace", "")

    @cpp_backtrace.setter
    def cpp_backtrace(self, value: str) -> None:
        self.__dict__.pop("_lazy_backtrace", None)
        self.__dict__["_cpp_backtrace"] = value

    @property
    def __notes__(self):
        self._format_backtrace()
        try:
            return self.__dict__["_notes"]
        except KeyError:
            raise AttributeError("__notes__") from None

    @__notes__.setter
    def __notes__(self, value):
        self.__dict__["_notes"] = value

    @__notes__.deleter
    def __notes__(self):
        self._format_backtrace()
        try:
            del self.__dict__["_notes"]
        except KeyError:
            raise AttributeError("__notes__") from None

    def _format_backtrace(self) -> None:
        if "_lazy_backtrace" not in self.__dict__:
            return
        # Threads reading one exception at once: the first formats, the others wait for its
        # text instead of finding neither the raw frames nor the text.
        with _FORMAT_LOCK:
            lazy = self.__dict__.get("_lazy_backtrace")
            if lazy is None:
                return
            try:
                backtrace = lazy()
            except Exception:  # noqa: BLE001 - a backtrace that cannot be read is left out
                backtrace = ""
            self.__dict__["_cpp_backtrace"] = backtrace
            frames = _native_frames(backtrace)
            if frames:
                note = "C++ backtrace (most recent call first):\n" + "\n".join(frames)
                self.__dict__.setdefault("_notes", []).insert(0, note)
            del self.__dict__["_lazy_backtrace"]

    def __reduce__(self):
        # The classes are made at run time, one per kind: rebuilt through error_class, with
        # the backtrace as text (never a handle).
        self._format_backtrace()
        kind = getattr(type(self), "_mxffi_kind", None)
        if kind is None:
            return super().__reduce__()
        return (_rebuild_error, (kind, self.args, dict(self.__dict__)))


def _rebuild_error(kind, args, state):
    exc = error_class(kind)(*args)
    exc.__dict__.update(state)
    return exc


_BUILTIN_KINDS = (
    "TypeError",
    "ValueError",
    "IndexError",
    "KeyError",
    "AttributeError",
    "MemoryError",
    "NotImplementedError",
    "OverflowError",
    "RuntimeError",
    "ZeroDivisionError",
    "OSError",
    "FileNotFoundError",
    "PermissionError",
    "TimeoutError",
    "UnicodeError",
    "LookupError",
    "ArithmeticError",
    "AssertionError",
)
_CLASSES: dict[str, type] = {}


def _axis_error_bases() -> tuple:
    """numpy's AxisError (a ValueError and an IndexError) when numpy is there."""
    try:
        from numpy.exceptions import AxisError
    except ImportError:
        return (ValueError, IndexError)
    return (AxisError,)


def _linalg_error_bases() -> tuple:
    """numpy's LinAlgError (a ValueError) when numpy is there."""
    try:
        from numpy.linalg import LinAlgError
    except ImportError:
        return (ValueError,)
    return (LinAlgError,)


# The kinds that are numpy's exception classes where numpy is installed.
_NUMPY_KINDS = {"AxisError": _axis_error_bases, "LinAlgError": _linalg_error_bases}


def error_class(kind: str) -> type:
    """The exception class raised for a C++ error of the given kind."""
    cls = _CLASSES.get(kind)
    if cls is None and kind in _NUMPY_KINDS:
        cls = _CLASSES[kind] = type(
            kind,
            (MXFFIError, *_NUMPY_KINDS[kind]()),
            {"__module__": "mxffi.error", "_mxffi_kind": kind},
        )
    if cls is None:
        base = getattr(builtins, kind) if kind in _BUILTIN_KINDS else RuntimeError
        name = kind if kind.isidentifier() else "RuntimeError"
        cls = type(name, (MXFFIError, base), {"__module__": "mxffi.error", "_mxffi_kind": kind})
        _CLASSES[kind] = cls
    return cls


for _kind in _BUILTIN_KINDS:
    error_class(_kind)

_MARKER = "mxffi: python exception #"
# token -> exception, for the outer Python caller. Shared by both cores (one token counter), and
# touched only by operations that are atomic under the GIL (a thread switch in between loses
# nothing).
_PENDING: dict[int, BaseException] = {}
_MAX_PENDING = 1024
_TOKENS = itertools.count(1)


def format_py_traceback(exc: BaseException) -> str:
    """exc with its traceback, as Python prints it: what C++ keeps as the error's backtrace."""
    return "".join(traceback.format_exception(exc))


def stash_py_error(exc: BaseException) -> tuple[str, str, str]:
    """Keep exc for the outer Python caller; return (kind, message, backtrace) to hand to C++.

    Errors that C++ swallows never come back for their entry: the oldest ones go past
    _MAX_PENDING. Never raises for a misbehaving exception (a __str__ that raises, even
    KeyboardInterrupt, or the recursion limit reached while formatting).
    """
    token = next(_TOKENS)
    _PENDING[token] = exc
    while len(_PENDING) > _MAX_PENDING:
        _PENDING.pop(next(iter(_PENDING)), None)
    kind = type(exc).__name__
    for k in _BUILTIN_KINDS:
        if isinstance(exc, getattr(builtins, k)):
            kind = k
            break
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - a broken __str__ must not hide the error itself
        message = f"<{type(exc).__name__}: unprintable message>"
    try:
        tb = format_py_traceback(exc)
    except BaseException:  # noqa: BLE001 - e.g. at the recursion limit: the marker suffices
        tb = ""
    return kind, message, f"{_MARKER}{token}\n{tb}"


def make_error(kind: str, message: str, backtrace: str) -> BaseException:
    """The exception to raise for an mxffi error read from the C ABI."""
    if backtrace.startswith(_MARKER):
        line, _, rest = backtrace.partition("\n")
        try:
            exc = _PENDING.pop(int(line[len(_MARKER) :]), None)
        except ValueError:
            exc = None
        if exc is not None:
            return exc
        backtrace = rest
    exc = error_class(kind)(message)
    exc.cpp_backtrace = backtrace
    frames = _native_frames(backtrace)
    if frames:
        exc.add_note("C++ backtrace (most recent call first):\n" + "\n".join(frames))
    return exc


# Messages the C++ core makes where it cannot know which function was called: an allocation
# that failed (std::bad_alloc, std::length_error), a shape with more dimensions than TShape holds,
# a foreign C++ exception. The Python binding names the function it called in front of them.
_CONTEXT_FREE = (
    "out of memory",
    "maximum supported dimension for an ndarray is ",
    "unknown C++ exception",
)


def with_callee(message: str, callee) -> str:
    """message, prefixed with "callee: " when it is one of the core's context-free messages."""
    if callee and message.startswith(_CONTEXT_FREE):
        # "sparse._cast_storage" is the global behind the public sparse.cast_storage
        area, dot, name = callee.rpartition(".")
        return f"{area}{dot}{name.lstrip('_')}: {message}"
    return message


def make_lazy_error(kind: str, message: str, backtrace) -> BaseException:
    """The exception for a C++ error whose backtrace is read by calling backtrace() (symbolising
    raw frames): it is called the first time cpp_backtrace or the note is read."""
    exc = error_class(kind)(message)
    exc.__dict__["_lazy_backtrace"] = backtrace
    return exc


def named_error(exc: BaseException, callee: str) -> BaseException:
    """exc's class and backtrace with the message prefixed by callee, for a Python function
    whose C ABI call reports an error in the C ABI's own words."""
    text = exc.args[0] if isinstance(exc, KeyError) and len(exc.args) == 1 else str(exc)
    out = type(exc)(f"{callee}: {text}")
    lazy = exc.__dict__.get("_lazy_backtrace") if isinstance(exc, MXFFIError) else None
    if lazy is not None:
        out.__dict__["_lazy_backtrace"] = lazy
    else:
        out.cpp_backtrace = getattr(exc, "cpp_backtrace", "")
    return out


def export_refused(label: str, obj, exc: BaseException) -> BufferError:
    """The BufferError for a producer whose __dlpack__ refused to export obj: the producer's
    own words, prefixed by what mxffi was doing and the object's type and dtype."""
    dtype = getattr(obj, "dtype", None)
    what = type(obj).__name__ + (f" of dtype {dtype}" if dtype is not None else "")
    return BufferError(f"{label}: cannot take a {what} as a tensor: {exc}")


def lazy_bit_refused(label: str, obj, bit: str, resolve: str) -> BufferError:
    """The BufferError for a tensor whose lazy negation or conjugation bit (torch's) is set: its
    DLPack export carries the memory without applying the bit, so taking it would give values
    of the wrong sign."""
    dtype = getattr(obj, "dtype", None)
    what = type(obj).__name__ + (f" of dtype {dtype}" if dtype is not None else "")
    return BufferError(
        f"{label}: cannot take a {what} as a tensor: its {bit} bit is set, which DLPack cannot "
        f"carry; call .{resolve}() first"
    )


def _native_frames(backtrace):
    """The frames of a C++ backtrace above the Python binding: from the raise down to (not
    into) the extension module that made the call, whose callers Python's traceback shows."""
    frames = []
    for line in backtrace.splitlines():
        if (
            "/mxffi/_ffi/core." in line
            or "libpython" in line
            or "_ctypes" in line
            or "libffi" in line
        ):
            break
        if line.strip():
            frames.append(line)
    return frames
