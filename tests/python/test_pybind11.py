"""mxffi/extra/pybind11.h: a pybind11 module taking and returning mxffi.NDArray and
mxffi.Function, built here against the installed package (python -m mxffi.config) and checked
for zero copy, shared identity, reference counts and the TypeError on a bad argument.

The module (tests/python/pybind11_ext/pybind11_ext.cc) is compiled once per session with g++
directly, which takes a few seconds. The same tests run under either core: MXFFI_FFI=ctypes
selects the ctypes one, and test_ctypes_core_in_a_child_interpreter runs a round trip under the
ctypes core from a default (Cython) run.
"""

import gc
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest
from conftest import mxffi_config, rss_bytes, run_python

import mxffi
from mxffi.ndarray import empty

pybind11 = pytest.importorskip("pybind11", reason="pybind11 is not installed")

_SOURCE = os.path.join(os.path.dirname(__file__), "pybind11_ext", "pybind11_ext.cc")
_NAME = "mxffi_pybind11_test"


@pytest.fixture(scope="module")
def ext_path(tmp_path_factory):
    """The built module's path: g++ with the installed include and lib dirs, rpath to libdir."""
    cxx = os.environ.get("CXX") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler (g++ or $CXX) to build the pybind11 test module")
    include_dir, lib_dir = mxffi_config("--includedir"), mxffi_config("--libdir")
    out = tmp_path_factory.mktemp("pybind11_ext") / (_NAME + sysconfig.get_config_var("EXT_SUFFIX"))
    cmd = [
        cxx,
        "-O1",
        "-std=c++17",
        "-shared",
        "-fPIC",
        "-fvisibility=hidden",
        f"-I{include_dir}",
        f"-I{pybind11.get_include()}",
        f"-I{sysconfig.get_paths()['include']}",
        _SOURCE,
        "-o",
        str(out),
        f"-L{lib_dir}",
        "-lmxffi",
        f"-Wl,-rpath,{lib_dir}",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"building {_NAME} failed:\n{' '.join(cmd)}\n{proc.stderr}"
    return out


@pytest.fixture(scope="module")
def ext(ext_path):
    spec = importlib.util.spec_from_file_location(_NAME, ext_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------------------------
# NDArray


def test_ndarray_in_is_the_same_memory_and_writes_show_everywhere(ext):
    a = empty((3, 4), "float64")
    view = np.from_dlpack(a)
    assert ext.data_ptr(a) == view.ctypes.data
    ext.fill(a, 7.5)
    assert np.all(view == 7.5)  # a numpy view made before the write sees it
    assert np.all(a.numpy() == 7.5)
    view[1, 2] = -1.0
    b = ext.identity(a)
    assert np.from_dlpack(b)[1, 2] == -1.0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (0,), (2, 0, 3)])
def test_fill_through_cpp_matches_numpy(ext, dtype, shape):
    a = empty(shape, dtype)
    ext.fill(a, 2.25)
    np.testing.assert_array_equal(a.numpy(), np.full(shape, 2.25, dtype))


def test_identity_returns_an_object_wrapping_the_same_cpp_object(ext):
    a = empty((2,), "float32")
    b = ext.identity(a)
    assert type(b) is mxffi.NDArray
    assert b is not a and b.same_as(a) and b.handle == a.handle
    assert ext.use_count(a) == 3  # a, b and the call's own argument


def test_array_made_in_cpp_is_handed_over_with_one_reference(ext):
    r = ext.arange(6)
    assert type(r) is mxffi.NDArray and r.shape == (6,) and str(r.dtype) == "float64"
    np.testing.assert_array_equal(r.numpy(), np.arange(6.0))
    assert ext.use_count(r) == 2  # r and the call's own argument: cast took no extra one


def test_null_ndarray_returns_none(ext):
    assert ext.null_array() is None


def test_numpy_in_through_dlpack_is_zero_copy(ext):
    x = np.zeros((4, 3))
    assert ext.data_ptr(x) == x.ctypes.data
    ext.fill(x, 3.0)
    assert np.all(x == 3.0)
    y = ext.identity(x)
    assert type(y) is mxffi.NDArray and y.shape == (4, 3)
    assert np.shares_memory(np.from_dlpack(y), x)


def test_strided_numpy_view_keeps_its_offset(ext):
    x = np.arange(20.0).reshape(4, 5)
    v = x[1:, ::2]
    assert ext.data_ptr(v) == v.ctypes.data
    assert ext.identity(v).shape == (3, 3)
    with pytest.raises(
        ValueError, match="mxffi_pybind11_test.fill: the array must be C-contiguous"
    ):
        ext.fill(v, 1.0)


def test_read_only_numpy_array_stays_read_only(ext):
    x = np.zeros(3)
    x.setflags(write=False)
    assert ext.data_ptr(x) == x.ctypes.data
    assert ext.identity(x).read_only
    with pytest.raises(ValueError, match="mxffi_pybind11_test.fill: the array is read-only"):
        ext.fill(x, 1.0)
    assert np.all(x == 0.0)


def test_wrong_dtype_is_refused_by_the_cpp_side(ext):
    with pytest.raises(TypeError, match="expected float32 or float64, got int32"):
        ext.fill(np.zeros(3, np.int32), 1.0)


def test_torch_tensor_in_through_dlpack_is_zero_copy(ext):
    torch = pytest.importorskip("torch")
    t = torch.zeros(5, dtype=torch.float64)
    assert ext.data_ptr(t) == t.data_ptr()
    ext.fill(t, 4.0)
    assert bool((t == 4.0).all())


def test_noconvert_accepts_only_an_mxffi_ndarray(ext):
    a = empty((2,), "float64")
    assert ext.data_ptr_noconvert(a) == ext.data_ptr(a)
    with pytest.raises(TypeError, match="incompatible function arguments"):
        ext.data_ptr_noconvert(np.zeros(2))


@pytest.mark.parametrize(
    "bad", ["a string", [1.0, 2.0], None, 3.0, object(), lambda: None], ids=repr
)
def test_bad_ndarray_argument_raises_type_error(ext, bad):
    with pytest.raises(TypeError, match=r"data_ptr\(\): incompatible function arguments"):
        ext.data_ptr(bad)


def test_a_function_is_not_an_ndarray(ext):
    with pytest.raises(TypeError, match="incompatible function arguments"):
        ext.data_ptr(ext.make_adder(1))
    with pytest.raises(TypeError, match="incompatible function arguments"):
        ext.call(empty((1,), "float64"), 1)


# ---------------------------------------------------------------------------------------------
# Function


def test_cpp_function_out_and_back_in(ext):
    add5 = ext.make_adder(5)
    assert isinstance(add5, mxffi.Function)
    assert add5(10) == 15  # called from Python
    assert ext.call(add5, 10) == 15  # called from C++
    back = ext.identity_fn(add5)
    assert back.same_as(add5) and back is not add5
    assert ext.function_use_count(add5) == 3  # add5, back and the call's own argument


def test_python_callable_in_becomes_a_function(ext):
    assert ext.call(lambda v: v * 2, 21) == 42
    f = ext.identity_fn(lambda v: v + 100)
    assert isinstance(f, mxffi.Function) and f(1) == 101


def test_registered_mxffi_function_in(ext):
    mxffi.register_func("pybind11_test.triple", lambda v: 3 * v, override=True)
    assert ext.call(mxffi.get_global_func("pybind11_test.triple"), 7) == 21


def test_callback_error_reaches_python(ext):
    # mxffi::Error crosses pybind11 as RuntimeError (the header registers no translator).
    with pytest.raises(RuntimeError, match="division by zero"):
        ext.call(lambda v: v / 0, 1)


def test_noconvert_accepts_only_an_mxffi_function(ext):
    assert ext.call_noconvert(ext.make_adder(1), 1) == 2
    with pytest.raises(TypeError, match="incompatible function arguments"):
        ext.call_noconvert(lambda v: v, 1)


@pytest.mark.parametrize("bad", ["a string", 3, None, np.zeros(2)], ids=repr)
def test_bad_function_argument_raises_type_error(ext, bad):
    with pytest.raises(TypeError, match=r"call\(\): incompatible function arguments"):
        ext.call(bad, 1)


# ---------------------------------------------------------------------------------------------
# References: nothing leaks, nothing is freed twice.

N = 10000


def test_ndarray_round_trips_leak_no_reference(ext):
    a = empty((8,), "float64")
    base = ext.use_count(a)
    for _ in range(N):
        assert ext.identity(a).same_as(a)
        ext.data_ptr(a)
    gc.collect()
    assert ext.use_count(a) == base


def test_numpy_round_trips_leak_no_reference(ext):
    x = np.zeros(8)
    base = sys.getrefcount(x)
    for _ in range(N):
        ext.identity(x)
        ext.data_ptr(x)
    gc.collect()
    assert sys.getrefcount(x) == base  # each import's reference to x went with its array


def test_arrays_made_in_cpp_are_freed(ext):
    n = 1 << 17  # 1 MiB of float64, written by arange, so a leak is resident memory
    for _ in range(20):
        ext.arange(n)  # warm the allocator
    before = rss_bytes()
    for _ in range(1000):
        assert ext.use_count(ext.arange(n)) == 2
    grown = rss_bytes() - before
    assert grown < 100 * 2**20, f"RSS grew by {grown / 2**20:.0f} MiB over 1000 MiB of arrays"


def test_function_round_trips_leak_no_reference(ext):
    def f(v):
        return v + 1

    add = ext.make_adder(2)
    base_py, base_cpp = sys.getrefcount(f), ext.function_use_count(add)
    for _ in range(N):
        assert ext.call(f, 1) == 2
        assert ext.call(add, 1) == 3
        ext.identity_fn(add)
    gc.collect()
    assert sys.getrefcount(f) == base_py  # each Function made for f released it
    assert ext.function_use_count(add) == base_cpp


# ---------------------------------------------------------------------------------------------
# The other core


@pytest.mark.skipif(
    os.environ.get("MXFFI_FFI", "cython") == "ctypes", reason="this run already uses ctypes"
)
def test_ctypes_core_in_a_child_interpreter(ext_path):
    code = f"""
        import importlib.util, sys
        import numpy as np
        import mxffi
        assert mxffi._ffi.backend == "ctypes"
        spec = importlib.util.spec_from_file_location("{_NAME}", {str(ext_path)!r})
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        a = mxffi.ndarray.empty((3,), "float64")
        m.fill(a, 1.5)
        assert list(a.numpy()) == [1.5] * 3
        b = m.identity(a)
        assert type(b) is mxffi.NDArray and b.same_as(a) and m.use_count(a) == 3
        x = np.zeros(2)
        assert m.data_ptr(x) == x.ctypes.data
        assert m.call(m.make_adder(4), 1) == 5 and m.call(lambda v: -v, 3) == -3
        try:
            m.data_ptr("a string")
        except TypeError:
            print("ok")
    """
    proc = run_python(code, env={"MXFFI_FFI": "ctypes"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "ok"
