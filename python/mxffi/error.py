"""The exceptions raised for errors from C++.

An error raised in C++ with kind ``ValueError`` arrives in Python as ``mxffi.error.ValueError``,
a subclass of both the builtin ``ValueError`` and :class:`MXFFIError`, so ``except ValueError``
catches it; likewise for every kind the core knows (``__all__``), AxisError and LinAlgError
being numpy's where numpy is installed. This module makes the classes importable under the name
their ``repr`` shows, so they can be named in ``except`` clauses and pickled.
"""

from ._ffi.error import (
    _BUILTIN_KINDS,
    ComplexWarning,
    MXFFIError,
    MXFFIWarning,
    StorageFallbackWarning,
    error_class,
)

__all__ = [
    "MXFFIError",
    "MXFFIWarning",
    "StorageFallbackWarning",
    "ComplexWarning",
    *_BUILTIN_KINDS,
    "AxisError",
    "LinAlgError",
]

# One class per kind: the very classes the core raises (error_class returns the same object).
TypeError = error_class("TypeError")  # noqa: A001
ValueError = error_class("ValueError")  # noqa: A001
IndexError = error_class("IndexError")  # noqa: A001
KeyError = error_class("KeyError")  # noqa: A001
AttributeError = error_class("AttributeError")  # noqa: A001
MemoryError = error_class("MemoryError")  # noqa: A001
NotImplementedError = error_class("NotImplementedError")  # noqa: A001
OverflowError = error_class("OverflowError")  # noqa: A001
RuntimeError = error_class("RuntimeError")  # noqa: A001
ZeroDivisionError = error_class("ZeroDivisionError")  # noqa: A001
OSError = error_class("OSError")  # noqa: A001
FileNotFoundError = error_class("FileNotFoundError")  # noqa: A001
PermissionError = error_class("PermissionError")  # noqa: A001
TimeoutError = error_class("TimeoutError")  # noqa: A001
UnicodeError = error_class("UnicodeError")  # noqa: A001
LookupError = error_class("LookupError")  # noqa: A001
ArithmeticError = error_class("ArithmeticError")  # noqa: A001
AssertionError = error_class("AssertionError")  # noqa: A001
AxisError = error_class("AxisError")  # noqa: A001
LinAlgError = error_class("LinAlgError")  # numpy.linalg.LinAlgError's subclass with numpy
