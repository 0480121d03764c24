"""Keyword arguments mapped to positions, shared by the Cython and ctypes cores.

The C ABI is positional. A call with keywords is mapped once per call site (the Cython core
caches the result per kwnames tuple) from the signature registered with ``.arg(name[, default])``.
"""

__all__ = ["bind_keywords"]


def bind_keywords(name, info, nargs, kwnames):
    """Where each positional slot of a keyword call comes from.

    Returns a list: slot i takes argument-vector entry k (an int; positional arguments first,
    then the keyword values in kwnames order) or, for a skipped argument that has a default,
    ``(default,)``. Trailing defaults are left for C++ to fill. Raises TypeError naming the
    function and the argument for unknown, duplicate and missing arguments.
    """
    if info is None or info[0] is None:
        raise TypeError(
            f"{name}: keyword arguments {list(kwnames)} given, but the function has no "
            "registered argument names"
        )
    names, defaults = info[0], info[1]
    n = len(names)
    if nargs > n:
        raise TypeError(
            f"{name}: takes {n} arguments ({', '.join(names)}) but {nargs} positional "
            "arguments were given"
        )
    slots = list(range(nargs)) + [None] * (n - nargs)
    last = nargs - 1
    for j, kw in enumerate(kwnames):
        try:
            idx = names.index(kw)
        except ValueError:
            raise TypeError(
                f"{name}: unexpected keyword argument '{kw}'; the arguments are "
                f"({', '.join(names)})"
            ) from None
        if slots[idx] is not None:
            raise TypeError(f"{name}: got multiple values for argument '{kw}'")
        slots[idx] = nargs + j
        last = max(last, idx)
    first_default = n - len(defaults)
    missing = [names[i] for i in range(first_default) if slots[i] is None]
    if missing:
        raise TypeError(
            f"{name}: missing required argument{'s' if len(missing) > 1 else ''} "
            f"{', '.join(repr(m) for m in missing)}"
        )
    return [
        (defaults[i - first_default],) if slots[i] is None else slots[i] for i in range(last + 1)
    ]


def lazy_signature(func, name):
    """The inspect.Signature of the global ``name``, made the first time it is asked for.

    A Function looked up by name (``get_global_func``, an outside library's function) answers
    ``__signature__``, ``__name__`` and ``__qualname__`` from the registry, so
    ``inspect.signature`` and ``help()`` show its arguments with no extra step. They, and the
    registered doc string where the function has none of its own, are kept in the function's
    ``__dict__``; pydoc asks for the name before the doc, so ``help()`` shows both. Returns None
    for an unregistered name.
    """
    from ..registry import signature_of

    sig, doc = signature_of(name)
    if sig is None:
        return None
    d = func.__dict__
    d.setdefault("__name__", name.rpartition(".")[2])
    d.setdefault("__qualname__", d["__name__"])
    d.setdefault("__signature__", sig)
    if doc:
        d.setdefault("__doc__", doc)
    return d
