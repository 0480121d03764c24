"""docs/np_reference.md: the committed page equals `python -m mxffi.npref`'s output, and the
dtype probe behind it reports what the functions really do."""

import inspect
import os
import subprocess
import sys

import pytest

import mxffi.np as mnp
from mxffi import npref
from mxffi.typing import NDArrayLike

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "docs", "np_reference.md")


def _rows(text):
    """{(namespace, function): [signature, dtypes, devices, summary]} of a reference page."""
    rows, namespace = {}, None
    for line in text.splitlines():
        if line.startswith("## "):
            namespace = line[3:]
        elif line.startswith("| `"):
            cells = [c.strip() for c in line.replace("\\|", "\x00").strip("|").split("|")]
            cells = [c.replace("\x00", "|") for c in cells]
            rows[(namespace, cells[0].strip("`"))] = cells[1:]
    return rows


@pytest.fixture(scope="module")
def fresh(tmp_path_factory):
    # A fresh interpreter: libraries this test process loaded would add functions.
    out_path = tmp_path_factory.mktemp("npref") / "np_reference.md"
    out = subprocess.run(
        [sys.executable, "-m", "mxffi.npref", "-o", str(out_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    return out_path.read_text(encoding="utf-8")


def test_committed_reference_equals_a_regeneration(fresh):
    with open(PAGE, encoding="utf-8") as f:
        committed = f.read()
    assert committed == fresh, (
        "docs/np_reference.md differs from the registry's functions; regenerate it with "
        "`python -m mxffi.npref` from the repository root"
    )


def test_every_public_function_has_one_row(fresh):
    rows = _rows(fresh)
    for module in (mnp, mnp.linalg, mnp.fft):
        names = {name for name, _ in npref._public(module)}
        assert names == {f for ns, f in rows if ns == module.__name__}, module.__name__
    assert ("mxffi.np.linalg", "eigh") in rows  # a Python-level wrapper
    assert ("mxffi.np", "float32") not in rows and ("mxffi.np", "ndarray") not in rows
    add = rows[("mxffi.np", "add")]
    assert add[0] == (
        "`(x1: ArrayOrNumber, x2: ArrayOrNumber, out: WritableArray | None = None, "
        "dtype: DTypeLike = None) -> NDArray`"
    )
    assert add[3] == "x1 + x2, elementwise."
    assert rows[("mxffi.np.linalg", "qr")][0] == (
        '`(x: NDArrayLike, /, *, mode: str = "reduced") -> QRResult | NDArray`'
    )


def test_no_function_fails_its_probe_for_every_dtype(fresh):
    # A function no dtype passes means its arguments were built wrong: it needs an entry in
    # npref._MAKERS.
    broken = [key for key, cells in _rows(fresh).items() if cells[1].startswith("none")]
    assert broken == []


def test_makers_name_existing_functions():
    import importlib

    for full in npref._MAKERS:
        module, _, name = full.rpartition(".")
        assert callable(getattr(importlib.import_module(module), name)), full


def _refusal(func, *args):
    """The string "yes" when func(*args) returns, else the exception it raised."""
    try:
        func(*args)
    except Exception as e:  # noqa: BLE001
        return e
    return "yes"


def test_probe_of_add_is_what_add_does():
    got = npref.probe("mxffi.np.add", mnp.add, inspect.signature(mnp.add))
    assert got["float64"] == "yes" and got["int8"] == "yes" and got["bool"] == "yes"
    z = mnp.array([[1 + 2j, 3], [4, 5]], dtype="complex128")
    direct = _refusal(mnp.add, z, z)
    if direct == "yes":
        assert got["complex128"] == "yes"
    else:  # until complex addition exists: refused, naming the dtype
        assert isinstance(direct, TypeError) and "complex128" in str(direct)
        assert got["complex128"] == "no"


def test_probe_of_inv_is_what_inv_does():
    got = npref.probe("mxffi.np.linalg.inv", mnp.linalg.inv, inspect.signature(mnp.linalg.inv))
    # integers are inverted in float64, as numpy's inv does
    r = mnp.linalg.inv(mnp.array([[3, 1], [1, 2]], dtype="int8"))
    assert str(r.dtype) == "float64"
    assert sum(r.tolist(), []) == pytest.approx([0.4, -0.2, -0.2, 0.6])
    assert got["int8"] == got["float64"] == got["complex128"] == "yes"
    # LAPACK has no half precision: refused, as numpy refuses it
    with pytest.raises(TypeError, match="np.linalg.inv: array type float16 is unsupported"):
        mnp.linalg.inv(mnp.array([[3, 1], [1, 2]], dtype="float16"))
    assert got["float16"] == got["bfloat16"] == "no"
    assert npref.dtype_text(got) == "all but float16, bfloat16"


def test_probe_of_a_bitwise_function_leaves_out_floats():
    got = npref.probe("mxffi.np.bitwise_and", mnp.bitwise_and, inspect.signature(mnp.bitwise_and))
    with pytest.raises(TypeError, match="float32"):
        mnp.bitwise_and(mnp.ones(2, dtype="float32"), mnp.ones(2, dtype="float32"))
    assert got["float32"] == "no" and got["uint16"] == "yes" and got["bool"] == "yes"
    assert npref.dtype_text(got) == "bool, int8..int64, uint8..uint64"


def test_probe_classifies_returns_refusals_and_other_errors():
    def f(x: NDArrayLike):
        d = str(x.dtype)
        if d == "int8":
            raise TypeError(f"f: unsupported dtype {d}")
        if d == "uint8":
            raise TypeError("f: something else")
        if d.startswith("complex"):
            raise ValueError(f"f: {d} at 0x7fff1234 is odd\nsecond line")
        return x

    got = npref.probe("f", f, inspect.signature(f))
    assert got["float64"] == "yes" and got["int8"] == "no"
    assert got["uint8"] == "TypeError: f: something else"
    assert got["complex64"] == got["complex128"] == "ValueError: f: *dtype* at 0x... is odd"
    assert npref.dtype_text(got) == (
        "all real but int8, uint8; "
        "uint8: TypeError: f: something else; "
        "complex64, complex128: ValueError: f: *dtype* at 0x... is odd"
    )
    # a function with no array or dtype parameter does not depend on a dtype
    assert npref.probe("mxffi.np.cpu", mnp.cpu, inspect.signature(mnp.cpu)) is None
    assert npref.dtype_text(None) == "—"

    def g(x, n: int):  # nothing builds an int without a default: the generator says so
        return x

    with pytest.raises(ValueError, match=r"cannot build the arguments of g from its signature"):
        npref.probe("g", g, inspect.signature(g))


@pytest.mark.parametrize(
    "group, text",
    [
        (npref.DTYPES, "all"),
        (npref.DTYPES[:13], "all real"),
        (npref.DTYPES[1:13], "all real but bool"),
        ([d for d in npref.DTYPES if "float16" not in d], "all but float16, bfloat16"),
        (["float32", "float64"], "float32, float64"),
        (["int8", "int16", "int32", "int64", "float64"], "int8..int64, float64"),
        ([], "none"),
    ],
)
def test_dtype_names(group, text):
    result = {d: "yes" if d in group else "no" for d in npref.DTYPES}
    assert npref.dtype_text(result) == text
