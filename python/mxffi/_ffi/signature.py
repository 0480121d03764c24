"""Keyword arguments mapped to positions, shared by the Cython and ctypes cores.

The C ABI is positional. A call with keywords is mapped once per call site (the Cython core
caches the result per kwnames tuple) from the signature registered with ``.arg(name[, default])``,
``.positional_only()``, ``.keyword_only()`` and ``.arg_variadic(name)``.
"""

__all__ = ["bind_keywords", "parameter_kinds"]


def bind_keywords(name, info, nargs, kwnames):
    """Where each positional slot of a call comes from.

    info is (arg_names, defaults, long_running, kinds, ...), kinds being (positional_only,
    first_keyword_only, variadic_index) as registry.function_info gives them. Returns a list:
    slot i takes argument-vector entry k (an int; positional arguments first, then the keyword
    values in kwnames order), or, for a skipped argument that has a default, ``(default,)``, or,
    for the variadic argument, a ``range`` of the positional arguments gathered into it.
    Trailing defaults are left for C++ to fill. Raises TypeError naming the function and the
    argument for unknown, duplicate, missing and positional-only arguments passed by keyword,
    and for more positional arguments than the function takes.
    """
    if info is None or info[0] is None:
        raise TypeError(
            f"{name}: keyword arguments {list(kwnames)} given, but the function has no "
            "registered argument names"
        )
    names, defaults = info[0], info[1]
    n = len(names)
    pos_only, kw_start, var = info[3][:3] if len(info) > 3 and info[3] else (0, n, -1)
    if var >= 0:
        slots = list(range(min(nargs, var))) + [None] * (n - min(nargs, var))
        slots[var] = range(var, max(nargs, var))
        last = var
    else:
        if nargs > kw_start:
            given = "was" if nargs == 1 else "were"
            if kw_start < n:
                raise TypeError(
                    f"{name}: takes {kw_start} positional argument{'s' if kw_start != 1 else ''}"
                    f" ({', '.join(names[:kw_start])}) but {nargs} {given} given; "
                    f"{', '.join(names[kw_start:])} {'is' if n - kw_start == 1 else 'are'} "
                    "keyword-only"
                )
            raise TypeError(
                f"{name}: takes {n} arguments ({', '.join(names)}) but {nargs} positional "
                f"arguments {given} given"
            )
        slots = list(range(nargs)) + [None] * (n - nargs)
        last = nargs - 1
    for j, kw in enumerate(kwnames):
        try:
            idx = names.index(kw)
        except ValueError:
            idx = -1
        if idx < 0 or idx == var:
            shown = ", ".join(("*" if i == var else "") + nm for i, nm in enumerate(names))
            raise TypeError(
                f"{name}: unexpected keyword argument '{kw}'; the arguments are ({shown})"
            )
        if idx < pos_only:
            raise TypeError(
                f"{name}: argument '{kw}' is positional-only; pass it by position, not as a keyword"
            )
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


def parameter_kinds(names, get):
    """(positional_only, first_keyword_only, variadic_index, returns_list) from a
    function_info Map read through get(key); None when every argument is positional-or-keyword
    and the result is as C++ gives it."""
    n = len(names)
    kw_start = int(get("keyword_only"))
    kinds = (
        int(get("positional_only")),
        kw_start if kw_start >= 0 else n,
        int(get("variadic")),
        bool(get("returns_list")),
    )
    return None if kinds == (0, n, -1, False) else kinds


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
