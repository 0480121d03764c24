"""An outside REGISTER_API library can register ops too.

docs/examples/writing_an_op.cc (the example docs/writing_an_op.md cuts its code from) is built
here the way a user's project is: g++ against the installed headers and libmxffi only
(``python -m mxffi.config --includedir --libdir``), once per session, in a few seconds. The
library is loaded with mxffi.library.load, and its op example_scaled_add is checked against numpy
through its API function example.scaled_add and through generic invocation by name (ops.invoke),
with every error the page describes asserted by type and text.
"""

import os
import shutil
import subprocess

import numpy as np
import pytest
from conftest import mxffi_config

import mxffi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SOURCE = os.path.join(ROOT, "docs", "examples", "writing_an_op.cc")

SHAPES = [(), (0,), (7,), (3, 4), (2, 0, 3), (2, 3, 4)]
DTYPES = ["float32", "float64"]


@pytest.fixture(scope="module")
def lib_path(tmp_path_factory):
    """The built library: the installed include and lib dirs, rpath to libdir, nothing else."""
    cxx = os.environ.get("CXX") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler (g++ or $CXX) to build docs/examples/writing_an_op.cc")
    include_dir, lib_dir = mxffi_config("--includedir"), mxffi_config("--libdir")
    out = tmp_path_factory.mktemp("op_library") / "libwriting_an_op.so"
    cmd = [
        cxx,
        "-O2",
        "-std=c++17",
        "-shared",
        "-fPIC",
        "-Wall",
        "-Wextra",
        "-Werror",
        f"-I{include_dir}",
        _SOURCE,
        "-o",
        str(out),
        f"-L{lib_dir}",
        "-lmxffi",
        f"-Wl,-rpath,{lib_dir}",
        "-Wl,--no-undefined",  # every symbol it uses comes from libmxffi or the C++ runtime
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"building {_SOURCE} failed:\n{' '.join(cmd)}\n{proc.stderr}"
    return str(out)


@pytest.fixture(scope="module")
def scaled_add(lib_path):
    lib = mxffi.library.load(lib_path)
    assert mxffi.library.load(lib_path) is lib  # a second load is the same library
    return mxffi.get_global_func("example.scaled_add")


@pytest.fixture(scope="module")
def invoke(scaled_add):
    return mxffi.get_global_func("ops.invoke")


def _random(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _check(out, expected):
    got = np.asarray(out)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    rtol = 1e-6 if expected.dtype == np.float32 else 1e-15
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


def test_calling_from_python(lib_path):
    # docs/writing_an_op.md shows this block; lib_path is the built library's path.
    # [python.begin]
    mxffi.library.load(lib_path)  # its static initialisers register the op and the function
    scaled_add = mxffi.get_global_func("example.scaled_add")
    x = np.arange(6.0).reshape(2, 3)
    y = np.ones((2, 3))
    out = scaled_add(x, y, alpha=2.5)  # an mxffi.NDArray; keywords map to the .arg names
    assert np.array_equal(np.asarray(out), 2.5 * x + y)
    assert np.array_equal(np.asarray(scaled_add(x, y)), x + y)  # alpha defaults to 1.0

    # Generic invocation by name: the op's name, the number of inputs, the inputs, then
    # key/value strings, which the op's ScaledAddParam parses and checks.
    invoke = mxffi.get_global_func("ops.invoke")
    out = invoke("example_scaled_add", 2, x, y, "alpha", "2.5")
    assert np.array_equal(np.asarray(out), 2.5 * x + y)
    # mxffi.ops.invoke wraps it: inputs by position, parameters as keywords (sent as strings).
    out = mxffi.ops.invoke("example_scaled_add", x, y, alpha=2.5)
    assert np.array_equal(np.asarray(out), 2.5 * x + y)
    assert mxffi.ops.info("example_scaled_add")["arguments"] == ["x", "y"]
    # [python.end]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_api_function_matches_numpy(scaled_add, shape, dtype):
    x, y = _random(shape, dtype, 1), _random(shape, dtype, 2)
    _check(scaled_add(x, y), x + y)
    _check(scaled_add(x, y, 0.75), 0.75 * x + y)  # alpha by position
    _check(scaled_add(x, y, alpha=3.0), 3 * x + y)
    _check(scaled_add(y=y, x=x, alpha=0.0), 0 * x + y)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_invoke_by_name_matches_numpy(invoke, shape, dtype):
    x, y = _random(shape, dtype, 3), _random(shape, dtype, 4)
    _check(invoke("example_scaled_add", 2, x, y, "alpha", "2.5"), 2.5 * x + y)
    _check(invoke("example_scaled_add", 2, x, y), x + y)  # the declared default, 1.0
    _check(invoke("example_scaled_add", 2, x, y, "alpha", "1e-3"), np.asarray(1e-3, dtype) * x + y)


def test_strided_and_mxffi_inputs(scaled_add, invoke):
    base = _random((4, 6), "float64", 5)
    x, y = base[:, ::2], base[::-1, 1::2]  # strided views: Invoke copies them for the kernel
    _check(scaled_add(x, y, alpha=2.0), 2.0 * x + y)
    # An mxffi.NDArray (a previous result) goes in as it is.
    first = scaled_add(x, y)
    _check(scaled_add(first, y, alpha=0.5), 0.5 * (x + y) + y)
    _check(invoke("example_scaled_add", 2, first, first, "alpha", "2"), 3 * (x + y))


def test_function_and_op_are_described(scaled_add):
    info = mxffi.get_global_func("registry.function_info")("example.scaled_add")
    assert list(info["arg_names"]) == ["x", "y", "alpha"]
    assert list(info["defaults"]) == [1.0]
    assert "example_scaled_add" in list(mxffi.get_global_func("ops.list")())
    desc, nin, nout, args, params, kernels, nin_param = mxffi.get_global_func("ops.info")(
        "example_scaled_add"
    )
    assert (nin, nout, list(args)) == (2, 1, ["x", "y"])
    assert desc == "alpha * x + y, elementwise, for x and y of one shape and dtype."
    assert "alpha : double, optional, default=1" in params
    assert "Scale of x; must be >= 0." in params
    assert list(kernels) == ["FCompute<cpu>"]
    assert nin_param == ""  # a fixed number of inputs


# -- errors: the messages docs/writing_an_op.md quotes, asserted in full ---------------------------


def _raises(exc, message, call):
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def test_shape_mismatch_is_value_error(scaled_add, invoke):
    x, y = np.ones((2, 3)), np.ones((3, 2))
    msg = (
        "example_scaled_add: x and y must have the same shape; got x.shape=(2, 3) and "
        "y.shape=(3, 2)"
    )
    _raises(ValueError, msg, lambda: scaled_add(x, y))
    _raises(ValueError, msg, lambda: invoke("example_scaled_add", 2, x, y, "alpha", "2"))
    _raises(
        ValueError,
        "example_scaled_add: x and y must have the same shape; got x.shape=() and y.shape=(1,)",
        lambda: scaled_add(np.array(1.0), np.ones(1)),
    )


def test_alpha_out_of_range_is_value_error(scaled_add, invoke):
    x = np.ones(3)
    _raises(
        ValueError,
        "example_scaled_add: invalid parameter: value -1 for Parameter alpha should be greater "
        "equal to 0",
        lambda: invoke("example_scaled_add", 2, x, x, "alpha", "-1"),
    )
    # The typed path runs the same declared check (CheckParam), naming the function instead.
    _raises(
        ValueError,
        "example.scaled_add: invalid parameter: value -1.5 for Parameter alpha should be greater "
        "equal to 0",
        lambda: scaled_add(x, x, alpha=-1.5),
    )
    with pytest.raises(ValueError, match=r"example_scaled_add: invalid parameter: .*alpha.*'abc'"):
        invoke("example_scaled_add", 2, x, x, "alpha", "abc")
    with pytest.raises(ValueError, match=r"example_scaled_add: invalid parameter: .*'beta'"):
        invoke("example_scaled_add", 2, x, x, "beta", "1")
    with pytest.raises(ValueError, match=r"value -2 for Parameter alpha"):
        mxffi.ops.invoke("example_scaled_add", x, x, alpha=-2)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float16", "bool", "uint8", "complex64"])
def test_unsupported_dtype_is_type_error(scaled_add, invoke, dtype):
    bad, good = np.ones(3, dtype=dtype), np.ones(3)
    msg = f"example_scaled_add: x has dtype {dtype}; expected float32 or float64"
    _raises(TypeError, msg, lambda: scaled_add(bad, good))
    _raises(TypeError, msg, lambda: invoke("example_scaled_add", 2, bad, good))
    _raises(
        TypeError,
        f"example_scaled_add: y has dtype {dtype}; expected float32 or float64",
        lambda: scaled_add(good, bad),
    )


def test_mixed_dtypes_and_non_arrays_are_type_errors(scaled_add, invoke):
    x32, x64 = np.ones(3, dtype="float32"), np.ones(3)
    _raises(
        TypeError,
        "example_scaled_add: x and y must have the same dtype; got float32 and float64",
        lambda: scaled_add(x32, x64),
    )
    _raises(
        TypeError,
        "example.scaled_add: argument #1 'y' expected DLTensor*, got str",
        lambda: scaled_add(x64, "y"),
    )
    with pytest.raises(TypeError, match="expected 2 input"):
        invoke("example_scaled_add", 1, x64)


def test_second_copy_is_refused(lib_path, scaled_add, tmp_path):
    # Another file with the same registrations: both are mistakes, reported together, and the
    # first registrations keep working.
    copy = tmp_path / "libwriting_an_op_copy.so"
    shutil.copyfile(lib_path, copy)
    with pytest.raises(RuntimeError) as info:
        mxffi.library.load(str(copy))
    msg = str(info.value)
    assert msg.startswith(f"library.load: {copy} failed to register:")
    assert "op 'example_scaled_add' is already registered; a second registration is ignored" in msg
    assert 'MXFFI_REGISTER_API("example.scaled_add") is already registered' in msg
    x = np.ones(2)
    _check(scaled_add(x, x, alpha=2.0), np.full(2, 3.0))
