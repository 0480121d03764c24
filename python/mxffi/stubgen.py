"""Typed stubs (.pyi) for registered functions and ops, from the registry's signatures.

    python -m mxffi.stubgen testing -o stubs/             # stubs/testing.pyi
    python -m mxffi.stubgen mymath --load libmymath.so -o stubs/
    python -m mxffi.stubgen ops -o stubs/                 # every op, parameters as keywords
    python -m mxffi.stubgen --package -o python/mxffi     # the stubs mxffi ships

An area's stub declares each global ``<area>.<name>`` (a name starting with ``_`` is private
and left out) as a function with the argument names, types and defaults the function registered
(``registry.function_info``): C++ ``int64_t`` is ``int``, ``double`` ``float``, strings ``str``,
``DLDataType`` ``DataType``, ``mxffi::Array<T>`` a sequence of ``T``, ``Optional<T>``
``T | None``, an argument kind (``ShapeLike``) the alias of that name in ``mxffi.typing``, an
object its mxffi class. A packed body has no types: ``(*args: Any) -> Any``. The area ``ops``
declares every registered op, its inputs positional and its parameters (``ops.info``) keyword
arguments with their types and defaults.
"""

import argparse
import inspect
import keyword
import os
import re
import sys

from . import _stub_heads
from ._ffi import get_global_func, list_global_func_names

__all__ = ["area_stub", "main", "op_parameters", "ops_stub", "package_stubs", "type_text"]

_SCALARS = {
    "int": "int",
    "bool": "bool",
    "float": "float",
    "float32": "float",
    "str": "str",
    "bytes": "bytes",
    "None": "None",
    "Any": "Any",
    "void*": "int | None",
    "DLTensor*": "NDArray",
    "DataType": "DataType",
    "Device": "Device",
    "Shape": "Shape",
    "Function": "Function",
}
for _bits in (8, 16, 32, 64):
    _SCALARS[f"int{_bits}"] = "int"
    _SCALARS[f"uint{_bits}"] = "int"

_CLASSES = {
    "mxffi.NDArray": "NDArray",
    "mxffi.Array": "Array",
    "mxffi.Map": "Map",
    "mxffi.ADT": "ADT",
    "mxffi.Function": "Function",
    "mxffi.Shape": "Shape",
    "mxffi.String": "str",
    "mxffi.Object": "Object",
}


def _split(text):
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def type_text(type_name, result=False):
    """The stub's annotation for a C++ type name as ``registry.function_info`` reports it.

    An argument (``result=False``) accepts what converts: a Python sequence for ``Array[T]``, a
    mapping for ``Map[K, V]``; a result is what comes back (``Array``, ``Map``). A name nothing
    here knows is ``Any``.
    """
    name = str(type_name).strip()
    if name in _SCALARS:
        return _SCALARS[name]
    if name == "Tensor":  # a TensorView parameter declaring nothing
        return "NDArrayLike"
    if name.startswith("Tensor[") and name.endswith("]"):
        # A TensorView parameter: any array or lent tensor, with the declared constraints kept
        # for the reader (mypy cannot check dtypes or dimensions).
        return f'Annotated[NDArrayLike, "{name[7:-1]}"]'

    if name in _stub_heads.KINDS:
        return name
    if name.endswith("]") and "[" in name:
        head, _, inner = name[:-1].partition("[")
        args = [type_text(a, result) for a in _split(inner)]
        if head == "Optional" and len(args) == 1:
            return "Any" if args[0] == "Any" else f"{args[0]} | None"
        if head == "Array" and len(args) == 1:
            return "Array" if result else f"Array | Sequence[{args[0]}]"
        if head == "Map" and len(args) == 2:
            return "Map" if result else f"Map | Mapping[{args[0]}, {args[1]}]"
        if head == "Union" and args:
            return "Any" if "Any" in args else " | ".join(args)
    if name in _CLASSES:
        return _CLASSES[name]
    return "Any"


def _default_text(value):
    """A default as the stub writes it: a literal for None, bools, numbers and short strings."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int | float) and value == value and abs(value) != float("inf"):
        return repr(value)
    if isinstance(value, str) and len(value) < 40:
        return repr(str(value))
    return "..."


def _def(name, params, ret):
    """A ``def`` line, split one parameter a line (as ruff formats it) past 100 columns."""
    one = f"def {name}({', '.join(params)}) -> {ret}: ..."
    if len(one) <= 100:
        return one
    inner = "".join(f"    {p},\n" for p in params)
    return f"def {name}(\n{inner}) -> {ret}: ..."


def _defined(head):
    """The names a stub head defines (functions, classes, variables)."""
    found = re.findall(r"^(?:def|class) (\w+)", head, re.M)
    return set(found) | set(re.findall(r"^(\w+)(?:: | = )", head, re.M))


def _py_name(name):
    return name + "_" if keyword.iskeyword(name) else name


def function_stub(full_name, short=None):
    """``def <short>(...) -> ...: ...`` for a registered global, from registry.function_info."""
    info = get_global_func("registry.function_info")(full_name)
    short = short or full_name.rpartition(".")[2]
    names = [str(n) for n in info["arg_names"]]
    types = [str(t) for t in info["arg_types"]]
    defaults = list(info["defaults"])
    num_args = int(info["num_args"])
    first_default = len(names) - len(defaults)
    params = []
    if num_args < 0 and not names:
        params.append("*args: Any")
    else:
        if not names and num_args > 0:
            names = [f"arg{i}" for i in range(num_args)]
            first_default = num_args
            params_positional_only = True
        else:
            params_positional_only = False
        pos_only = int(info["positional_only"])
        kw_start = int(info["keyword_only"])
        variadic = int(info["variadic"])
        for i, arg in enumerate(names):
            if i == kw_start and variadic < 0:
                params.append("*")
            type_name = types[i] if i < len(types) else "Any"
            if i == variadic:
                # *name: the annotation is of one gathered argument, an Array's element
                element = re.fullmatch(r"Array\[(.*)\]", type_name)
                params.append(f"*{_py_name(arg)}: {type_text(element[1]) if element else 'Any'}")
                continue
            text = f"{_py_name(arg)}: {type_text(type_name)}"
            if i >= first_default:
                text += f" = {_default_text(defaults[i - first_default])}"
            params.append(text)
            if i + 1 == pos_only:
                params.append("/")
        if params_positional_only and params:
            params.append("/")
    ret = type_text(str(info["return_type"]) or "Any", result=True)
    if info["returns_list"]:  # Python gets the Array as a list
        element = re.fullmatch(r"Array\[(.*)\]", str(info["return_type"]))
        ret = f"list[{type_text(element[1], result=True) if element else 'Any'}]"
    return _def(short, params, ret)


def _area_names(area, skip=()):
    prefix = area + "."
    out = []
    for full in sorted(list_global_func_names()):
        if not full.startswith(prefix):
            continue
        short = full[len(prefix) :]
        if "." in short or short.startswith("_") or short in skip:
            continue
        out.append((full, short))
    return out


_IMPORTS = (
    "from collections.abc import Mapping, Sequence\n"
    "from typing import Annotated, Any\n\n"
    "from mxffi import ADT, Array, DataType, Device, Function, Map, NDArray, Object, Shape\n"
    "from mxffi.typing import (\n"
    + "".join(f"    {k},\n" for k in sorted(_stub_heads.KINDS))
    + ")\n"
)


def area_stub(area, skip=(), imports=True):
    """The stub of a registered area: one function per public global ``<area>.<name>``."""
    lines = [_IMPORTS] if imports else []
    names = _area_names(area, skip)
    if not names:
        raise ValueError(f"mxffi.stubgen: no global function is registered under '{area}.'")
    lines += [function_stub(full, short) for full, short in names]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# Ops: inputs positional, parameters keyword arguments (from the dmlc::Parameter description).

_PARAM_RE = re.compile(r"^  (\w+) : ([^\n]*)$", re.M)


def _op_param_type(text):
    text = text.strip()
    if text.startswith("{"):
        values = re.findall(r"'([^']*)'", text)
        lit = ", ".join(repr(v) for v in values)
        return f"Literal[{lit}] | None" if "None" in text else f"Literal[{lit}]"
    return {
        "number": "float",
        "double": "float",
        "float": "float",
        "int": "int",
        "long": "int",
        "boolean": "bool",
        "dtype": "DTypeLike",
        "tuple of ints": "Sequence[int]",
        "Shape(tuple)": "Sequence[int]",
        "string": "str",
    }.get(text, "Any")


def _op_default(kind, text):
    text = text.strip()
    if len(text) > 1 and text[0] == text[-1] == "'":
        text = text[1:-1]
    if text == "None":
        return None
    try:
        if kind == "bool":
            return bool(int(text))
        if kind == "int":
            return int(text)
        if kind == "float":
            return float(repr(float(text)) if "e" in text else round(float(text), 12))
    except ValueError:
        return inspect.Parameter.empty
    return text


def op_parameters(op):
    """The parameters of an op as [(name, stub type, default or inspect.Parameter.empty)],
    read from ``ops.info(op)["params"]`` (the op's dmlc::Parameter fields)."""
    from . import ops

    out = []
    for m in _PARAM_RE.finditer(ops.info(op)["params"]):
        name, rest = m.group(1), m.group(2)
        if rest.startswith("{"):
            close = rest.index("}") + 1
            kind_text, rest = rest[:close], rest[close:]
        else:
            kind_text, _, rest = rest.partition(",")
        kind = _op_param_type(kind_text)
        default = inspect.Parameter.empty
        d = re.search(r"default=(.*)$", rest)
        if d:
            default = _op_default(kind, d.group(1))
        out.append((name, kind, default))
    return out


def _op_stub(op):
    from . import ops

    desc = ops.info(op)
    if desc["num_inputs"] is None:
        inputs = ["*inputs: NDArrayLike"]
    else:
        inputs = [f"{_py_name(a)}: NDArrayLike" for a in desc["arguments"]]
        if inputs:
            inputs.append("/")
    params = []
    for name, kind, default in op_parameters(op):
        text = f"{_py_name(name)}: {kind}"
        if default is not inspect.Parameter.empty:
            text += f" = {_default_text(default)}"
        params.append(text)
    if params and desc["num_inputs"] is not None:
        params.insert(0, "*")
    ret = "NDArray" if desc["num_outputs"] == 1 else "list[NDArray]"
    return _def(op, inputs + params, ret)


def ops_stub(imports=True, skip=()):
    """The stub of ``mxffi.ops``: one function per public registered op (a name starting with
    ``_`` is an internal op, still callable as ``mxffi.ops.<name>``)."""
    from . import ops

    lines = []
    if imports:
        lines.append(
            "from collections.abc import Sequence\nfrom typing import Any, Literal\n\n"
            "from mxffi import NDArray\nfrom mxffi.typing import DTypeLike, NDArrayLike\n"
        )
    names = [op for op in ops.list_ops() if op.isidentifier() and not op.startswith("_")]
    lines += [_op_stub(op) for op in names if op not in skip]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------


def package_stubs():
    """{relative path: text} of the stubs mxffi ships (mxffi, mxffi.typing, mxffi.np,
    mxffi.np.linalg, mxffi.np.fft, mxffi.nd.sparse, mxffi.testing, mxffi.ops)."""
    import mxffi.testing  # noqa: F401  (registers the testing.* globals)

    out = {}
    for module, (head, area) in _stub_heads.PACKAGE.items():
        parts = [_stub_heads.HEADER, head]
        skip = _defined(head)
        if area == "ops":
            parts[1] = parts[1].replace(
                "from typing import Any\n",
                "from collections.abc import Sequence\nfrom typing import Any, Literal\n",
            )
            parts.append(ops_stub(imports=False, skip=skip))
        elif area is not None:
            parts[1] = "from collections.abc import Mapping, Sequence\n" + parts[1]
            parts.append(area_stub(area, skip=skip, imports=False))
        path = module.split(".")[1:]
        rel = os.path.join(*path, "__init__.pyi") if module in ("mxffi", "mxffi.np") else None
        if module == "mxffi":
            rel = "__init__.pyi"
        elif rel is None:
            rel = os.path.join(*path) + ".pyi"
        out[rel] = "\n".join(p.rstrip("\n") + "\n" for p in parts)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m mxffi.stubgen",
        description="Write .pyi stubs for registered areas from the registry's signatures.",
    )
    parser.add_argument("areas", nargs="*", help="areas such as np, testing, mylib; ops: the ops")
    parser.add_argument("-o", "--output", required=True, help="the folder to write the stubs in")
    parser.add_argument(
        "--load", action="append", default=[], metavar="LIB", help="load a library first"
    )
    parser.add_argument(
        "--package", action="store_true", help="write the stubs mxffi ships (-o python/mxffi)"
    )
    args = parser.parse_args(argv)
    from . import library

    for lib in args.load:
        library.load(lib)
    if not args.areas and not args.package:
        parser.error("name at least one area, or --package")
    files = {}
    if args.package:
        files.update(package_stubs())
    for area in args.areas:
        if area == "testing":
            import mxffi.testing  # noqa: F401
        try:
            text = ops_stub() if area == "ops" else area_stub(area)
        except ValueError as e:
            print(e, file=sys.stderr)
            return 2
        files[area.replace(".", os.sep) + ".pyi"] = _stub_heads.HEADER + text
    for rel, text in files.items():
        path = os.path.join(args.output, rel)
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
