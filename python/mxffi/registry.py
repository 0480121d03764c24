"""Registered functions as Python modules: the area "testing" as mxffi.testing, and so on."""

import inspect
import re
import sys

from ._ffi import Function, get_global_func, list_global_func_names

__all__ = ["init_api", "signature_of"]

_info = get_global_func("registry.function_info")


def signature_of(name):
    """An inspect.Signature and doc string for a registered global, from registry.function_info.

    The parameters and the result are annotated from the C++ types the function registered
    (``mxffi.typing.annotation``: Python types, mxffi classes and argument kinds such as
    ``ShapeLike``); a packed body has no types, so its parameters have no annotation and its
    result is ``typing.Any``.
    """
    from .typing import annotation

    try:
        info = _info(name)
    except KeyError:
        return None, ""
    names = list(info["arg_names"])
    defaults = list(info["defaults"])
    arg_types = list(info["arg_types"])
    first_default = len(names) - len(defaults)
    pos_only, kw_start, variadic = (
        int(info["positional_only"]),
        int(info["keyword_only"]),
        int(info["variadic"]),
    )
    P = inspect.Parameter
    params = []
    for i, arg in enumerate(names):
        default = defaults[i - first_default] if i >= first_default else P.empty
        ann = annotation(arg_types[i]) if i < len(arg_types) else P.empty
        if i == variadic:
            # the body receives the gathered arguments as one Array: annotate an element
            element = re.fullmatch(r"Array\[(.*)\]", arg_types[i]) if i < len(arg_types) else None
            ann = annotation(element[1]) if element else P.empty
            kind = P.VAR_POSITIONAL
        elif i < pos_only:
            kind = P.POSITIONAL_ONLY
        elif i >= kw_start:
            kind = P.KEYWORD_ONLY
        else:
            kind = P.POSITIONAL_OR_KEYWORD
        params.append(P(arg, kind, default=default, annotation=ann))
    if info["num_args"] < 0 and not names:
        params.append(inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL))
    doc = str(info["doc"])
    if arg_types:
        lines = [f"    {n}: {t}" for n, t in zip(names, arg_types, strict=False)]
        doc += "\n\nArguments:\n" + "\n".join(lines)
    ret = str(info["return_type"])
    if ret:
        doc += f"\n\nReturns: {ret}"
    if info["long_running"]:
        doc += "\n\nLong-running: called with the GIL released."
    returns = annotation(ret) if ret else inspect.Signature.empty
    if info["returns_list"]:  # Python gets the Array as a list
        element = re.fullmatch(r"Array\[(.*)\]", ret)
        returns = list[annotation(element[1])] if element else list
    return inspect.Signature(params, return_annotation=returns), doc


def _decorate(func: Function, name: str, module: str):
    sig, doc = signature_of(name)
    short = name.rpartition(".")[2]
    func.__name__ = short
    func.__qualname__ = short
    func.__module__ = module
    func.__doc__ = doc or None
    if sig is not None:
        func.__signature__ = sig
    return func


def init_api(area, module_name=None):
    """Expose every global named "<area>.<name>" as attribute <name> of module_name.

    Nested areas ("a.b.c") become attributes of the module for "a.b". Returns the names added.
    """
    module_name = module_name or f"mxffi.{area}"
    module = sys.modules[module_name]
    prefix = area + "."
    added = []
    for name in list_global_func_names():
        if not name.startswith(prefix):
            continue
        short = name[len(prefix) :]
        if "." in short:
            continue
        setattr(module, short, _decorate(get_global_func(name), name, module_name))
        added.append(short)
    return added
