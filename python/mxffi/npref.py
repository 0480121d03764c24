"""The function reference of mxffi.np, mxffi.np.linalg and mxffi.np.fft: ``python -m mxffi.npref``.

Writes docs/np_reference.md: one Markdown table per namespace, a row per public function with
its signature (as the shipped stubs show it), the dtypes it computes in on the CPU, its devices
and the first sentence of its doc string. The dtypes are not declared anywhere: they are found
by probing, calling the function on small inputs of each dtype mxffi.np has. The inputs are
built from the signature's parameter annotations (an array kind gets a 2x2 matrix of the dtype,
``ShapeLike`` gets (2, 2), ``DTypeLike`` gets the dtype where the function has no array to take
it from); a function whose arguments that rule cannot build has an entry in ``_MAKERS``, which
builds its arguments for a dtype and never says what the result should be.

A probe that returns counts as "yes"; one that raises TypeError or NotImplementedError naming
the dtype counts as "no"; any other outcome is written out as a note.
"""

import argparse
import ast
import inspect
import os
import re
import sys
import warnings

__all__ = ["DTYPES", "NAMESPACES", "function_rows", "probe", "reference", "main"]

#: The dtypes mxffi.np has, in the order the reference lists them.
DTYPES = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
_SIGNED = DTYPES[1:5]
_UNSIGNED = DTYPES[5:9]
_REAL_FLOAT = DTYPES[9:13]
_COMPLEX = DTYPES[13:]

#: The namespaces documented, with the stub each one's signatures come from.
NAMESPACES = (
    ("mxffi.np", "np/__init__.pyi"),
    ("mxffi.np.linalg", "np/linalg.pyi"),
    ("mxffi.np.fft", "np/fft.pyi"),
)

_DEVICES = "CPU; CUDA: see [docs/cuda.md](cuda.md)"

# Values of the probe matrix: nonsingular, symmetric and positive definite, so the solvers,
# factorizations and inverses have a defined result in every dtype that holds the values. bool
# holds any nonzero value as True, so its matrix is the identity (all True would be singular).
_MATRIX = [[3, 1], [1, 2]]
_BOOL_MATRIX = [[True, False], [False, True]]


def _array(dtype, values=None):
    import mxffi.np as mnp

    if values is None:
        values = _BOOL_MATRIX if dtype == "bool" else _MATRIX
    return mnp.array(values, dtype=dtype)


def _square(d):
    return (_array(d),), {}


def _two_squares(d):
    return (_array(d), _array(d)), {}


def _with_int_indices(d):
    return (_array(d), _array("int64", [[0, 1], [1, 0]])), {}


# Functions whose arguments the annotation rule cannot build: name -> (dtype -> (args, kwargs)).
_MAKERS = {
    # Python-level functions of the modules (no annotations on their parameters)
    "mxffi.np.linalg.eigh": _square,
    "mxffi.np.linalg.qr": _square,
    "mxffi.np.linalg.slogdet": _square,
    "mxffi.np.linalg.svd": _square,
    "mxffi.np.from_dlpack": _square,
    "mxffi.np.finfo": lambda d: ((d,), {}),
    "mxffi.np.iinfo": lambda d: ((d,), {}),
    # a required scalar, int, axis or dtype parameter
    "mxffi.np.arange": lambda d: ((4,), {"dtype": d}),
    "mxffi.np.eye": lambda d: ((2,), {"dtype": d}),
    "mxffi.np.linspace": lambda d: ((0.0, 1.0, 4), {"dtype": d}),
    "mxffi.np.can_cast": lambda d: ((d, d), {}),
    "mxffi.np.isdtype": lambda d: ((_array(d).dtype, "numeric"), {}),
    "mxffi.np.result_type": _two_squares,
    "mxffi.np.broadcast_arrays": _two_squares,
    "mxffi.np.meshgrid": lambda d: ((_array(d, [3, 1]), _array(d, [1, 2])), {}),
    "mxffi.np.moveaxis": lambda d: ((_array(d), 0, 1), {}),
    "mxffi.np.permute_dims": lambda d: ((_array(d), (1, 0)), {}),
    "mxffi.np.reshape": lambda d: ((_array(d), (4,)), {}),
    "mxffi.np.roll": lambda d: ((_array(d), 1), {}),
    "mxffi.np.swapaxes": lambda d: ((_array(d), 0, 1), {}),
    "mxffi.np.linalg.matrix_power": lambda d: ((_array(d), 2), {}),
    "mxffi.np.fft.fftfreq": lambda d: ((4,), {"dtype": d}),
    "mxffi.np.fft.rfftfreq": lambda d: ((4,), {"dtype": d}),
    # the indices are integers whatever the data's dtype
    "mxffi.np.take": _with_int_indices,
    "mxffi.np.take_along_axis": _with_int_indices,
    "mxffi.np.repeat": lambda d: ((_array(d), 2), {}),
    # the array API's cumulative functions need an axis for a 2-d input
    "mxffi.np.cumulative_sum": lambda d: ((_array(d),), {"axis": 0}),
    "mxffi.np.cumulative_prod": lambda d: ((_array(d),), {"axis": 0}),
    # a list of arrays
    "mxffi.np.concat": lambda d: (([_array(d), _array(d)],), {}),
    "mxffi.np.concatenate": lambda d: (([_array(d), _array(d)],), {}),
    "mxffi.np.stack": lambda d: (([_array(d), _array(d)],), {}),
    # a sorted 1-d array and the values to place in it
    "mxffi.np.searchsorted": lambda d: ((_array(d, [1, 3]), _array(d, [2, 3])), {}),
    # vectors: of three elements for cross, 1-d for outer
    "mxffi.np.linalg.cross": lambda d: ((_array(d, [1, 2, 3]), _array(d, [3, 1, 2])), {}),
    "mxffi.np.linalg.outer": lambda d: ((_array(d, [3, 1]), _array(d, [1, 2])), {}),
}

_ARRAY_KINDS = {"NDArrayLike", "ArrayOrScalar", "ArrayOrNumber", "ArrayLike", "WritableArray"}


def _kind(annotation):
    return getattr(annotation, "__name__", None) or repr(annotation)


def _generic_args(sig, dtype):
    """(args, kwargs) for sig's required parameters, built from their annotations; None when a
    required parameter has a kind the rule does not build."""
    params = list(sig.parameters.values())
    has_array = any(_kind(p.annotation) in _ARRAY_KINDS for p in params)
    args, kwargs = [], {}
    for p in params:
        kind = _kind(p.annotation)
        if kind in _ARRAY_KINDS:
            value = _array(dtype)
        elif kind == "ShapeLike":
            value = (2, 2)
        elif kind == "DTypeLike" and (p.default is p.empty or not has_array):
            value = dtype
        elif p.default is not p.empty or p.kind is p.VAR_KEYWORD:
            continue
        else:
            return None
        if p.default is not p.empty or p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = value
        else:
            args.append(value)
    return args, kwargs


def _uses_dtype(sig):
    """Whether any parameter of sig can carry a dtype (an array or a data type)."""
    kinds = {_kind(p.annotation) for p in sig.parameters.values()}
    return bool(kinds & (_ARRAY_KINDS | {"DTypeLike", "DTypeOrArray"}))


def _names_dtype(text, dtype):
    """Whether an error message names dtype (bool also as "boolean")."""
    words = r"(bool|boolean)" if dtype == "bool" else re.escape(dtype)
    return re.search(rf"\b{words}\b", text) is not None


def _note(exc, dtype):
    """A short note on an unexpected outcome: the exception and the start of its message, the
    probed dtype written *dtype* so that one note serves every dtype it happened for."""
    text = str(exc).splitlines()[0] if str(exc) else ""
    text = re.sub(r"0x[0-9a-fA-F]+", "0x...", text)
    text = re.sub(rf"\b{re.escape(dtype)}\b", "*dtype*", text)
    if len(text) > 70:
        text = text[:67].rstrip() + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def probe(full_name, func, sig):
    """{dtype: "yes" | "no" | note} for func on the CPU, or None where no parameter of the
    function carries a dtype (the function does not depend on one). A ValueError where neither
    the annotation rule nor _MAKERS builds the function's arguments."""
    maker = _MAKERS.get(full_name)
    if maker is None:
        if sig is None or _generic_args(sig, "float64") is None:
            raise ValueError(
                f"mxffi.npref: cannot build the arguments of {full_name} from its signature "
                f"{sig}; give it an argument maker in mxffi.npref._MAKERS"
            )
        if not _uses_dtype(sig):
            return None
    out = {}
    for dtype in DTYPES:
        try:
            args, kwargs = maker(dtype) if maker else _generic_args(sig, dtype)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                func(*args, **kwargs)
        except (TypeError, NotImplementedError) as e:
            out[dtype] = "no" if _names_dtype(str(e), dtype) else _note(e, dtype)
        except Exception as e:  # noqa: BLE001  (every other outcome is reported as a note)
            out[dtype] = _note(e, dtype)
        else:
            out[dtype] = "yes"
    return out


def _names(group):
    """A compact name for a set of dtypes: "all" or "all real" (less at most three), else the
    kinds it covers whole, then the rest."""
    group = set(group)
    if group == set(DTYPES):
        return "all"
    for base, name in ((DTYPES[:13], "all real"), (DTYPES, "all")):
        missing = [d for d in base if d not in group]
        if group <= set(base) and len(missing) <= 3:
            return f"{name} but {', '.join(missing)}" if missing else name
    parts = []
    for whole, name in (
        (_SIGNED, "int8..int64"),
        (_UNSIGNED, "uint8..uint64"),
        (_REAL_FLOAT, "float16..float64"),
    ):
        if set(whole) <= group:
            parts.append(name)
            group -= set(whole)
    parts += [d for d in DTYPES if d in group]
    order = {d: i for i, d in enumerate(DTYPES)}
    order.update({"int8..int64": 1, "uint8..uint64": 5, "float16..float64": 9})
    return ", ".join(sorted(parts, key=order.__getitem__))


def dtype_text(result):
    """The dtypes cell of a probe result."""
    if result is None:
        return "—"
    yes = [d for d in DTYPES if result[d] == "yes"]
    text = _names(yes) if yes else "none"
    notes = {}
    for d in DTYPES:
        if result[d] not in ("yes", "no"):
            notes.setdefault(result[d], []).append(d)
    for note, dtypes in notes.items():
        text += f"; {_names(dtypes)}: {note}"
    return text


def _first_sentence(doc):
    """The first sentence of a doc string (its first paragraph where no sentence ends)."""
    text = " ".join((doc or "").strip().split("\n\n")[0].split())
    for m in re.finditer(r"\.(?=\s|$)", text):
        if not re.search(r"\b(e\.g|i\.e|etc|vs)$", text[: m.start()]):
            return text[: m.end()]
    return text


def _one_line(segment, name):
    """A stub's ``def`` (one line, or one parameter a line as ruff splits it) as
    "(params) -> result"."""
    text = re.sub(r"\s*\n\s*", " ", segment).replace("( ", "(")
    text = text.replace(", )", ")").replace(" )", ")")
    text = text[text.index(name) + len(name) :]
    return text.removesuffix(": ...").strip()


def _stub_signatures(stub_text):
    """{name: "(params) -> result"} of the functions a stub defines, as the stub writes them, on
    one line; a class stands for its __init__, without self."""
    out = {}
    for node in ast.parse(stub_text).body:
        if isinstance(node, ast.FunctionDef) and node.name not in out:
            out[node.name] = _one_line(ast.get_source_segment(stub_text, node), node.name)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    text = _one_line(ast.get_source_segment(stub_text, item), "__init__")
                    text = re.sub(r"^\(self(, )?", "(", text)
                    out[node.name] = text.removesuffix(" -> None")
    return out


def _public(module):
    """(name, object) of the functions a namespace exports, sorted by name: the registered
    functions and the Python-level ones (finfo and iinfo included, as the array API counts
    them), not its classes, dtypes or submodules."""
    from mxffi._ffi import DataType

    out = []
    for name in sorted(module.__all__):
        obj = getattr(module, name)
        if isinstance(obj, DataType) or inspect.ismodule(obj) or not callable(obj):
            continue
        if inspect.isclass(obj) and obj.__module__ != "mxffi.np._info":
            continue
        out.append((name, obj))
    return out


def function_rows(module_name, stubs):
    """[(name, signature, dtypes, devices, summary)] of a namespace; stubs maps a function's
    name to its signature as the stub shows it."""
    import importlib

    module = importlib.import_module(module_name)
    rows = []
    for name, obj in _public(module):
        try:
            sig = inspect.signature(obj)
        except (TypeError, ValueError):
            sig = None
        signature = stubs.get(name) or (str(sig) if sig is not None else "(...)")
        result = probe(f"{module_name}.{name}", obj, sig)
        rows.append((name, signature, dtype_text(result), _DEVICES, _first_sentence(obj.__doc__)))
    return rows


_INTRO = """\
<!-- Generated by `python -m mxffi.npref` from the registry; do not edit by hand. -->
# mxffi.np function reference

Every public function of `mxffi.np`, `mxffi.np.linalg` and `mxffi.np.fft`, generated from the
registry by `python -m mxffi.npref` (run it from the repository root after adding or changing a
function; `tests/python/test_np_reference.py` fails while this page is stale).

- **signature**: as the typed stubs (`python -m mxffi.stubgen`) show it.
- **dtypes**: the input dtypes the function computes in on the CPU, found by calling it on a
  small input (a 2x2 matrix, or what the function needs) of each of mxffi.np's 15 dtypes: `all`
  is every one of them, `all real` all but complex64 and complex128, `... but X` less X,
  `int8..int64` the four signed integer types, `uint8..uint64` the unsigned ones,
  `float16..float64` float16, bfloat16, float32 and float64. A dtype the function refuses with
  a TypeError or NotImplementedError naming it is left out; any other outcome is quoted after
  the dtypes it happened for, the dtype written *dtype*. `—`: the function takes no array or
  dtype.
- **devices**: the op layer does not report which ops a call ran, so the CUDA column cannot be
  derived per function here: [cuda.md](cuda.md) says which ops have GPU kernels.
- **summary**: the first sentence of the doc string (`help()` shows all of it).
"""


def _cell(text):
    return text.replace("|", "\\|")


def reference():
    """The text of docs/np_reference.md."""
    from mxffi import stubgen

    texts = stubgen.package_stubs()
    main_stub = _stub_signatures(texts[os.path.join(*NAMESPACES[0][1].split("/"))])
    parts = [_INTRO]
    for module_name, stub in NAMESPACES:
        # a function a namespace re-exports (np.linalg.matmul) has its def in mxffi.np's stub
        stubs = {**main_stub, **_stub_signatures(texts[os.path.join(*stub.split("/"))])}
        rows = function_rows(module_name, stubs)
        parts.append(f"\n## {module_name}\n\n")
        parts.append("| function | signature | dtypes | devices | summary |\n")
        parts.append("| --- | --- | --- | --- | --- |\n")
        for name, sig, dtypes, devices, summary in rows:
            cells = [f"`{name}`", f"`{sig}`", dtypes, devices, summary]
            parts.append("| " + " | ".join(_cell(c) for c in cells) + " |\n")
    return "".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m mxffi.npref",
        description="Write the function reference of mxffi.np (docs/np_reference.md).",
    )
    parser.add_argument(
        "-o",
        "--output",
        default="docs/np_reference.md",
        help="the file to write ('-' for stdout; default docs/np_reference.md)",
    )
    opts = parser.parse_args(argv)
    text = reference()
    if opts.output == "-":
        sys.stdout.write(text)
    else:
        with open(opts.output, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
