"""mxffi.ops: registered operators, invoked by name.

``invoke("quadratic", x, a=2, b=1)``, or ``mxffi.ops.quadratic(x, a=2, b=1)``, is generic
invocation: each parameter travels as a string
("2", "(3, 4)", "float32") and the op's dmlc::Parameter parses it, checking ranges and filling
defaults, so a bad value is a ValueError naming the op, the parameter and the value. The np
functions (``mxffi.np.quadratic``) fill the same parameters from typed arguments instead.
"""

from ._ffi import DataType, get_global_func
from ._ffi.dtype import is_builtin_dtype, is_numpy_dtype_like

__all__ = ["dispatch", "info", "invoke", "list_ops", "signature"]

_invoke = get_global_func("ops.invoke")
_list = get_global_func("ops.list")
_info = get_global_func("ops.info")
_dispatch = get_global_func("ops.dispatch")


def _param_str(value):
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(str(int(v)) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, DataType):
        return str(value)
    if value is None:
        return "None"
    if is_builtin_dtype(value) or is_numpy_dtype_like(value):
        # float, numpy.float32, numpy.dtype("f4"): their canonical name, so the op's dtype
        # parameter reads the type they name (a str goes as written, read by the same grammar).
        return str(DataType(value))
    return str(value)


def _flat(params):
    flat = []
    for key, value in params.items():
        flat.append(key)
        flat.append(_param_str(value))
    return flat


def invoke(op, *inputs, **params):
    """Run the op registered as ``op`` on ``inputs`` with ``params``; one output, or a list.

    An op taking any number of inputs (``add_n``) reads its input count from a parameter
    (``info(op)["num_inputs_param"]``, e.g. ``num_args``); left out, it is the number of inputs
    given."""
    return _invoke(op, len(inputs), *inputs, *_flat(params))


def dispatch(op, *inputs, **params):
    """How ``invoke(op, *inputs, **params)`` would run, without running it.

    Returns ``(mode, output_stypes)``: mode is "fcompute" (the dense kernel), "fcompute_ex" (a
    storage-aware kernel) or "fallback" (sparse inputs made dense for the dense kernel, which
    warns); output_stypes lists "default", "csr" or "row_sparse" per output.
    """
    mode, stypes = _dispatch(op, len(inputs), *inputs, *_flat(params))
    return str(mode), [str(s) for s in stypes]


def __getattr__(name):
    """``mxffi.ops.<name>``: the registered op of that name (ops from libraries loaded later
    included), as a function of its inputs and parameters."""
    if name.startswith("__") or name not in list_ops():
        raise AttributeError(f"module 'mxffi.ops' has no attribute or op named {name!r}")
    desc = info(name)

    def op(*inputs, **params):
        return invoke(name, *inputs, **params)

    op.__name__ = op.__qualname__ = name
    op.__module__ = __name__
    op.__doc__ = desc["description"] + (
        f"\n\nParameters:{desc['params']}" if desc["params"] else ""
    )
    op.__signature__ = signature(name)
    return op


def signature(op):
    """The inspect.Signature of ``mxffi.ops.<op>``: its inputs positional (``*inputs`` for an op
    taking any number), its parameters keyword-only, with their types and defaults as the op's
    parameter struct declares them (``info(op)["params"]``)."""
    import inspect
    from collections.abc import Sequence
    from typing import Any, Literal

    from .stubgen import op_parameters
    from .typing import DTypeLike, NDArrayLike

    kinds = {"float": float, "int": int, "bool": bool, "str": str, "DTypeLike": DTypeLike}
    kinds["Sequence[int]"] = Sequence[int]
    desc = info(op)
    P = inspect.Parameter
    if desc["num_inputs"] is None:
        params = [P("inputs", P.VAR_POSITIONAL, annotation=NDArrayLike)]
    else:
        params = [P(a, P.POSITIONAL_ONLY, annotation=NDArrayLike) for a in desc["arguments"]]
    for name, kind, default in op_parameters(op):
        if kind.startswith("Literal["):
            values = tuple(v.strip("'") for v in kind[8:].partition("]")[0].split(", "))
            ann = Literal[values] | None if kind.endswith("None") else Literal[values]
        else:
            ann = kinds.get(kind, Any)
        params.append(P(name, P.KEYWORD_ONLY, default=default, annotation=ann))
    from .ndarray import NDArray

    returns = NDArray if desc["num_outputs"] == 1 else list[NDArray]
    return inspect.Signature(params, return_annotation=returns)


def list_ops():
    """The names of every registered op, sorted."""
    return [str(n) for n in _list()]


def info(op):
    """A dict describing op: description, num_inputs (None for an op taking any number of
    inputs), num_inputs_param (the parameter giving that number, such as add_n's "num_args";
    None for an op of a fixed arity), num_outputs, arguments, params, and kernels (the
    FCompute/FComputeEx kernels it has: "FCompute<cpu>", "FComputeEx<gpu>", ...)."""
    desc, nin, nout, args, params, kernels, nin_param = _info(op)
    return {
        "description": str(desc),
        "num_inputs": None if int(nin) < 0 else int(nin),
        "num_inputs_param": str(nin_param) or None,
        "num_outputs": int(nout),
        "arguments": [str(a) for a in args],
        "params": str(params),
        "kernels": [str(k) for k in kernels],
    }
