"""Errors crossing the C ABI, shared by the Cython and ctypes cores.

A C++ error carries a kind ("ValueError", ...), a message and a backtrace. Python raises it as
a subclass of both :class:`MXFFIError` and the builtin class of the same name, with the C++
backtrace attached as ``cpp_backtrace`` and shown in the printed traceback.

A Python exception raised inside a callback that C++ called travels the other way as an mxffi
error whose backtrace starts with a marker line naming a token; when the error reaches the outer
Python caller, the original exception object is raised again, so its type, attributes and
traceback survive the trip through C++.
"""

import builtins
import itertools
import traceback

__all__ = [
    "MXFFIError",
    "error_class",
    "export_refused",
    "make_error",
    "named_error",
    "stash_py_error",
]


class MXFFIError(Exception):
    """Base class of the exceptions raised for errors from mxffi's C++ side."""

    cpp_backtrace = ""


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


def error_class(kind: str) -> type:
    """The exception class raised for a C++ error of the given kind."""
    cls = _CLASSES.get(kind)
    if cls is None and kind == "AxisError":
        cls = _CLASSES[kind] = type(
            kind, (MXFFIError, *_axis_error_bases()), {"__module__": "mxffi.error"}
        )
    if cls is None:
        base = getattr(builtins, kind) if kind in _BUILTIN_KINDS else RuntimeError
        name = kind if kind.isidentifier() else "RuntimeError"
        cls = type(name, (MXFFIError, base), {"__module__": "mxffi.error"})
        _CLASSES[kind] = cls
    return cls


for _kind in _BUILTIN_KINDS:
    error_class(_kind)

_MARKER = "mxffi: python exception #"
_PENDING: dict[int, BaseException] = {}
_MAX_PENDING = 256
_tokens = itertools.count(1)


def stash_py_error(exc: BaseException) -> tuple[str, str, str]:
    """Keep exc for the outer Python caller; return (kind, message, backtrace) to hand to C++."""
    token = next(_tokens)
    _PENDING[token] = exc
    while len(_PENDING) > _MAX_PENDING:  # errors that C++ swallowed never come back for theirs
        del _PENDING[next(iter(_PENDING))]
    kind = type(exc).__name__
    for k in _BUILTIN_KINDS:
        if isinstance(exc, getattr(builtins, k)):
            kind = k
            break
    try:
        message = str(exc)
    except Exception:  # a broken __str__ must not hide the error itself
        message = f"<{type(exc).__name__}: unprintable message>"
    tb = "".join(traceback.format_exception(exc))
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


def named_error(exc: BaseException, callee: str) -> BaseException:
    """exc's class and backtrace with the message prefixed by callee, for a Python function
    whose C ABI call reports an error in the C ABI's own words."""
    text = exc.args[0] if isinstance(exc, KeyError) and len(exc.args) == 1 else str(exc)
    out = type(exc)(f"{callee}: {text}")
    out.cpp_backtrace = getattr(exc, "cpp_backtrace", "")
    return out


def export_refused(label: str, obj, exc: BaseException) -> BufferError:
    """The BufferError for a producer whose __dlpack__ refused to export obj: the producer's
    own words, prefixed by what mxffi was doing and the object's type and dtype."""
    dtype = getattr(obj, "dtype", None)
    what = type(obj).__name__ + (f" of dtype {dtype}" if dtype is not None else "")
    return BufferError(f"{label}: cannot take a {what} as a tensor: {exc}")


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
