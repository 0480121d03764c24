"""DataType and Device: parsing, printing, and the value cell round trip, on both cores."""

import os
import subprocess
import sys

import pytest

import mxffi
import mxffi.testing as t

CASES = [
    ("float32", (2, 32, 1)),
    ("float16", (2, 16, 1)),
    ("bfloat16", (4, 16, 1)),
    ("int8x4", (0, 8, 4)),
    ("uint64", (1, 64, 1)),
    ("complex64", (5, 64, 1)),
    ("complex128x2", (5, 128, 2)),
    ("bool", (6, 8, 1)),
]


@pytest.mark.parametrize("text,fields", CASES)
def test_dtype_parses_prints_and_round_trips(text, fields):
    d = mxffi.DataType(text)
    assert (d.code, d.bits, d.lanes) == fields
    assert str(d) == text
    back = t.echo(d)
    assert back == d and str(back) == text
    assert t.dtype_bits(d) == fields[1] * fields[2]  # bits times lanes, read in C++


def test_dtype_from_numpy_dtypes():
    np = pytest.importorskip("numpy")
    assert mxffi.DataType(np.float64) == "float64"
    assert mxffi.DataType(np.dtype("int16")) == mxffi.DataType("int16")
    assert mxffi.DataType(np.bool_) == "bool"


@pytest.mark.parametrize(
    "text,message",
    [
        ("foo", "cannot parse 'foo'"),
        ("x4", "cannot parse 'x4'"),
        ("int8x0", "lane count 0 out of range"),
        ("float300", "bit width 300 out of range"),
        ("bool16", "bool is 8 bits"),
    ],
)
def test_dtype_bad_text_names_the_input(text, message):
    with pytest.raises(ValueError, match=message):
        mxffi.DataType(text)


def test_device_forms():
    assert mxffi.Device("cuda:1") == mxffi.Device("cuda", 1) == mxffi.Device(2, 1)
    d = t.echo(mxffi.Device("cpu"))
    assert (d.device_type, d.device_id, str(d)) == (1, 0, "cpu:0")
    with pytest.raises(ValueError, match="unknown device type 'tpu'"):
        mxffi.Device("tpu")
    with pytest.raises(ValueError, match="device_id must be >= 0, got -1"):
        mxffi.Device("cuda", -1)


def test_ctypes_core_parses_the_same_way():
    script = (
        "import mxffi, mxffi.testing as t\n"
        "assert mxffi._ffi.backend == 'ctypes'\n"
        "print([str(t.echo(mxffi.DataType(s))) for s in %r])\n"
        "print(str(t.echo(mxffi.Device('cuda:1'))))\n" % [c[0] for c in CASES]
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "MXFFI_FFI": "ctypes"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [str([c[0] for c in CASES]), "cuda:1"]


def test_device_refuses_unknown_codes_and_truncation():
    with pytest.raises(ValueError, match=r"unknown DLPack device code 99"):
        mxffi.Device(99)
    with pytest.raises(TypeError, match=r"device_type must be a str or a DLPack device code"):
        mxffi.Device(1.5)
    with pytest.raises(TypeError, match=r"got NoneType None"):
        mxffi.Device(None)
    with pytest.raises(TypeError, match=r"device_id must be an int, got float 1\.5"):
        mxffi.Device("cpu", 1.5)
    with pytest.raises(ValueError, match=r"device_id 1099511627776 does not fit in int32"):
        mxffi.Device("cpu", 2**40)
    assert mxffi.Device(2, 1) == mxffi.Device("cuda:1")
