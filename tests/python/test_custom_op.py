"""Custom op libraries (mxffi/lib_api.h), built and loaded the way a user does.

docs/examples/custom_op/ is configured with the installed CMake package (``python -m mxffi.config
--cmakedir``) and built once per session; its ops are loaded with mxffi.library.load and checked
against numpy and scipy. tests/python/oplibs/c_oplib.c, a library written in C against the C half
of the header, is built with gcc in the variants the loader must refuse or accept.
"""

import ctypes
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse
from conftest import build_cmake_project, mxffi_config

import mxffi
from mxffi import ops
from mxffi.nd import sparse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(ROOT, "docs", "examples", "custom_op")
OPLIBS = os.path.join(ROOT, "tests", "python", "oplibs")

FLOATS = ["float32", "float64"]


def _tolerance(dtype):
    return 1e-5 if np.dtype(dtype) == np.float32 else 1e-12


@pytest.fixture(scope="session")
def example_lib(tmp_path_factory):
    """docs/examples/custom_op built with the installed CMake package, warnings as errors."""
    build = build_cmake_project(
        EXAMPLE,
        tmp_path_factory.mktemp("custom_op") / "build",
        "-DCMAKE_CXX_FLAGS=-Wall -Wextra -Werror",
        timeout=600,
    )
    path = build / "libmy_ops.so"
    assert path.is_file()
    return str(path)


@pytest.fixture(scope="session")
def my_ops(example_lib):
    return mxffi.library.load(example_lib)


def _build_c(tmp_path_factory, source, name, *defines):
    cc = os.environ.get("CC") or shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler (gcc, cc or $CC)")
    out = tmp_path_factory.mktemp("oplibs") / f"lib{name}.so"
    cmd = [cc, "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC"]
    cmd += ["-fvisibility=hidden", f"-I{mxffi_config('--includedir')}", *defines]
    cmd += [os.path.join(OPLIBS, source), "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return str(out)


@pytest.fixture(scope="session")
def c_lib(tmp_path_factory):
    return _build_c(tmp_path_factory, "c_oplib.c", "c_oplib")


def _rng(seed):
    return np.random.default_rng(seed)


def _nd(x):
    """An mxffi NDArray sharing x's memory."""
    x = np.asarray(x)
    return mxffi.ndarray.from_dlpack(x if x.flags.c_contiguous else x.copy())


# ---------------------------------------------------------------------------------------------
# The example library's ops against numpy and scipy


def test_load_describes_the_library(my_ops, example_lib):
    assert my_ops.kind == "op_library"
    assert my_ops.path == os.path.realpath(example_lib)
    assert list(my_ops.names) == ["my_gemm", "my_relu", "my_poly", "my_row_sum", "my_threshold"]
    assert my_ops in mxffi.library.loaded()
    assert mxffi.library.load(example_lib) is my_ops
    for name in my_ops.names:
        assert name in ops.list_ops()
    assert "my_gemm" in repr(my_ops)
    info = ops.info("my_gemm")
    assert info["num_inputs"] == 2 and info["num_outputs"] == 1
    assert info["description"].startswith("alpha * a @ b")
    assert (
        example_lib in info["description"] or os.path.realpath(example_lib) in info["description"]
    )
    assert ops.my_gemm.__name__ == "my_gemm"
    assert "alpha * a @ b" in ops.my_gemm.__doc__


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,k,n", [(3, 4, 5), (1, 1, 1), (17, 33, 9), (0, 3, 2), (2, 0, 3)])
def test_my_gemm_matches_numpy(my_ops, dtype, m, k, n):
    rng = _rng(m * 100 + k * 10 + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    for alpha in (1.0, -2.5):
        got = ops.my_gemm(_nd(a), _nd(b), alpha=alpha)
        expected = alpha * (a @ b)
        assert got.dtype == dtype and got.shape == (m, n)
        tol = _tolerance(dtype)
        np.testing.assert_allclose(got, expected, rtol=tol * 10, atol=tol * 10)
    # The same op through generic invocation, default alpha.
    got = ops.invoke("my_gemm", _nd(a), _nd(b))
    np.testing.assert_allclose(got, a @ b, rtol=tol * 10, atol=tol * 10)


def test_my_gemm_takes_strided_inputs_as_their_values(my_ops):
    a = np.arange(48, dtype="float64").reshape(6, 8)[::2, ::2]  # (3, 4), strided
    b = np.arange(20, dtype="float64").reshape(5, 4).T  # (4, 5), column-major
    assert not a.flags.c_contiguous and not b.flags.c_contiguous
    got = ops.my_gemm(a, b)  # mxffi hands the library C-contiguous copies
    np.testing.assert_allclose(got, a @ b)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 3, 4)])
def test_my_relu_matches_numpy(my_ops, dtype, shape):
    x = _rng(len(shape)).standard_normal(shape).astype(dtype)
    got = ops.my_relu(_nd(x))
    assert got.dtype == dtype and got.shape == shape
    np.testing.assert_array_equal(got, np.maximum(x, 0))


def _states(example_lib):
    made, live = ctypes.c_int64(), ctypes.c_int64()
    ctypes.CDLL(example_lib).my_ops_states(ctypes.byref(made), ctypes.byref(live))
    return made.value, live.value


@pytest.mark.parametrize("dtype", FLOATS)
def test_my_poly_matches_numpy(my_ops, dtype):
    x = _rng(5).standard_normal((4, 5)).astype(dtype)
    got = ops.my_poly(_nd(x), coeffs="1,-2,0.5")
    expected = 1 - 2 * x + 0.5 * x**2
    tol = _tolerance(dtype)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
    np.testing.assert_allclose(ops.my_poly(_nd(x)), np.zeros_like(x))


def test_my_poly_state_is_made_once_per_attribute_set_and_freed(my_ops, example_lib):
    mxffi.library.release_states()
    made0, live0 = _states(example_lib)
    assert live0 == 0
    x = _nd(np.arange(6.0))
    for _ in range(3):
        np.testing.assert_allclose(ops.my_poly(x, coeffs="2,3"), 2 + 3 * np.arange(6.0))
    assert _states(example_lib) == (made0 + 1, 1)
    # The same attributes in another order or through ops.invoke find the same state.
    ops.invoke("my_poly", x, coeffs="2,3")
    assert _states(example_lib) == (made0 + 1, 1)
    ops.my_poly(x, coeffs="0,1")
    assert _states(example_lib) == (made0 + 2, 2)
    assert mxffi.library.release_states() == 2
    assert _states(example_lib) == (made0 + 2, 0)
    ops.my_poly(x, coeffs="2,3")  # a fresh state after the release
    assert _states(example_lib) == (made0 + 3, 1)
    assert mxffi.library.release_states() == 1


def test_stateful_op_keeps_a_bounded_number_of_states(my_ops, example_lib):
    # One state per distinct attribute set, made on first use: 2,000 distinct sets keep only
    # the most recently used ones alive, not all 2,000 until exit.
    mxffi.library.release_states()
    made0, _ = _states(example_lib)
    x = _nd(np.arange(4.0))
    for i in range(2000):
        np.testing.assert_allclose(ops.my_poly(x, coeffs=f"{i},1"), i + np.arange(4.0))
    made, live = _states(example_lib)
    assert made - made0 == 2000
    assert live == 64
    ops.my_poly(x, coeffs="1999,1")  # the most recent set still has its state
    ops.my_poly(x, coeffs="1950,1")
    assert _states(example_lib) == (made, live)
    ops.my_poly(x, coeffs="0,1")  # the oldest was let go: made afresh
    assert _states(example_lib) == (made + 1, live)
    assert mxffi.library.release_states() == live
    assert _states(example_lib) == (made + 1, 0)


def _random_csr(rows, cols, density, dtype, index_dtype, seed):
    m = scipy.sparse.random(rows, cols, density=density, format="csr", dtype=dtype, rng=seed)
    m.indices = m.indices.astype(index_dtype)
    m.indptr = m.indptr.astype(index_dtype)
    return m


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize(
    "shape,density", [((30, 20), 0.1), ((5, 7), 0.0), ((8, 6), 1.0), ((0, 4), 0.5), ((4, 0), 0.5)]
)
def test_my_row_sum_of_csr_matches_scipy(my_ops, dtype, index_dtype, shape, density):
    m = _random_csr(*shape, density, dtype, index_dtype, seed=shape[0] + shape[1])
    x = sparse.csr_matrix((m.data, m.indices, m.indptr), shape=shape)
    assert ops.dispatch("my_row_sum", x) == ("fcompute_ex", ["default"])
    got = ops.my_row_sum(x)
    expected = np.asarray(m.sum(axis=1)).ravel().astype(dtype)
    assert got.stype == "default" and got.dtype == dtype and got.shape == (shape[0],)
    tol = _tolerance(dtype)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_my_row_sum_of_dense_runs_the_dense_kernel(my_ops):
    x = _rng(3).standard_normal((6, 4))
    assert ops.dispatch("my_row_sum", _nd(x)) == ("fcompute", ["default"])
    np.testing.assert_allclose(ops.my_row_sum(_nd(x)), x.sum(axis=1))


def test_my_row_sum_of_row_sparse_takes_the_fallback(my_ops):
    dense = np.zeros((5, 3))
    dense[[1, 3]] = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    x = sparse.row_sparse_array((dense[[1, 3]], np.array([1, 3])), shape=(5, 3))
    assert ops.dispatch("my_row_sum", x) == ("fallback", ["default"])
    got = ops.my_row_sum(x)
    np.testing.assert_allclose(got, dense.sum(axis=1))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize(
    "shape,density", [((40, 30), 0.2), ((6, 5), 0.0), ((7, 4), 1.0), ((0, 3), 0.5)]
)
def test_my_threshold_csr_to_csr_matches_scipy(my_ops, dtype, index_dtype, shape, density):
    m = _random_csr(*shape, density, dtype, index_dtype, seed=11)
    m.data -= 0.5
    x = sparse.csr_matrix((m.data, m.indices, m.indptr), shape=shape)
    assert ops.dispatch("my_threshold", x, t=0.25) == ("fcompute_ex", ["csr"])
    got = ops.my_threshold(x, t=0.25)
    assert isinstance(got, sparse.CSRNDArray) and got.shape == shape and got.dtype == dtype
    dense = m.toarray()
    expected = np.where(np.abs(dense) > 0.25, dense, 0)
    np.testing.assert_array_equal(got.asnumpy(), expected)
    assert got.nnz == np.count_nonzero(expected)  # only the kept values are stored
    # Dense in, dense out, through the same forward.
    d = ops.my_threshold(_nd(dense), t=0.25)
    assert ops.dispatch("my_threshold", _nd(dense)) == ("fcompute", ["default"])
    np.testing.assert_array_equal(np.asarray(d), expected)


def test_my_threshold_rejects_a_negative_t(my_ops):
    with pytest.raises(ValueError, match="my_threshold: parse_attrs failed .*t=-1 is negative"):
        ops.my_threshold(_nd(np.ones(3)), t=-1)


def test_a_library_sparse_output_is_checked_before_it_is_handed_on(c_lib):
    mxffi.library.load(c_lib)
    x = sparse.csr_matrix(np.eye(3))
    assert ops.dispatch("c_bad_csr", x) == ("fcompute_ex", ["csr"])
    with pytest.raises(ValueError) as info:
        ops.c_bad_csr(x)
    msg = str(info.value)
    assert msg.startswith(f"c_bad_csr (output #0 of {c_lib}): ")
    assert "indices" in msg and "3" in msg


def test_dense_library_op_takes_the_fallback_for_csr(my_ops):
    m = _random_csr(6, 5, 0.4, "float64", "int64", seed=7)
    m.data -= 0.5
    x = sparse.csr_matrix((m.data, m.indices, m.indptr), shape=(6, 5))
    assert ops.dispatch("my_relu", x) == ("fallback", ["default"])
    got = ops.my_relu(x)
    np.testing.assert_array_equal(got, np.maximum(m.toarray(), 0))


# ---------------------------------------------------------------------------------------------
# Errors: each asserts the exception class and the message, which names the library


def test_load_of_a_missing_path_is_a_value_error(tmp_path):
    missing = tmp_path / "libnothing.so"
    with pytest.raises(ValueError, match=r"mxffi.library.load: .*libnothing.so does not exist"):
        mxffi.library.load(missing)


def test_load_of_a_library_of_neither_kind_is_a_value_error(tmp_path_factory):
    path = _build_c(tmp_path_factory, "not_an_oplib.c", "not_an_oplib")
    with pytest.raises(ValueError) as info:
        mxffi.library.load(path)
    msg = str(info.value)
    assert path in msg and "is neither an op library" in msg
    assert "nor a REGISTER_API library" in msg
    assert all(lib.path != path for lib in mxffi.library.loaded())


def test_load_of_a_file_that_is_no_shared_library_is_a_value_error(tmp_path):
    path = tmp_path / "libtext.so"
    path.write_text("not an ELF file\n")
    with pytest.raises(ValueError, match=r"library.load: cannot load .*libtext.so"):
        mxffi.library.load(path)


def test_load_of_another_major_abi_version_is_refused(tmp_path_factory):
    path = _build_c(
        tmp_path_factory, "c_oplib.c", "c_oplib_v2", "-DABI_MAJOR=2", '-DOP_PREFIX="v2_"'
    )
    with pytest.raises(RuntimeError) as info:
        mxffi.library.load(path)
    msg = str(info.value)
    assert path in msg
    assert "built for op-library ABI 2.0" in msg and "this mxffi loads ABI 1.x" in msg
    assert "v2_negate" not in ops.list_ops()


def test_load_of_a_newer_minor_abi_version_is_accepted(tmp_path_factory):
    path = _build_c(
        tmp_path_factory, "c_oplib.c", "c_oplib_v1_3", "-DABI_MINOR=3", '-DOP_PREFIX="v13_"'
    )
    lib = mxffi.library.load(path)
    assert list(lib.names) == ["v13_negate", "v13_fail", "v13_bad_csr", "v13_garbage"]
    x = np.array([1.5, -2.0, 0.0], dtype="float32")
    np.testing.assert_array_equal(ops.v13_negate(x), -x)


def test_c_library_ops_work_and_its_forward_error_reaches_python(c_lib):
    mxffi.library.load(c_lib)
    x = _rng(1).standard_normal((3, 2))
    np.testing.assert_array_equal(ops.c_negate(_nd(x)), -x)
    with pytest.raises(ValueError) as info:
        ops.c_fail(_nd(x))
    msg = str(info.value)
    assert msg.startswith("c_fail: forward failed in ")
    assert c_lib in msg and "the device reported error 42" in msg
    with pytest.raises(ValueError, match="c_negate: infer_type failed .*expected float32"):
        ops.c_negate(_nd(np.arange(3)))


def test_parse_attrs_rejecting_an_attribute(my_ops, example_lib):
    a = _nd(np.ones((2, 2)))
    with pytest.raises(ValueError) as info:
        ops.my_gemm(a, a, alpha="twice")
    msg = str(info.value)
    assert msg.startswith("my_gemm: parse_attrs failed in ")
    assert "attribute alpha='twice' is not a number" in msg
    assert os.path.realpath(example_lib) in msg
    with pytest.raises(TypeError, match="my_gemm: unknown attribute 'beta'; it takes alpha"):
        ops.my_gemm(a, a, beta=1)
    with pytest.raises(ValueError, match="my_poly: coeffs='1,x' is not a comma-separated list"):
        ops.my_poly(a, coeffs="1,x")
    with pytest.raises(TypeError, match="my_relu: takes no attributes, got 'alpha'"):
        ops.my_relu(a, alpha=1)


def test_infer_errors_name_the_op_the_values_and_the_library(my_ops):
    a = _nd(np.ones((3, 4)))
    b = _nd(np.ones((5, 6)))
    with pytest.raises(
        ValueError, match="my_gemm: infer_shape failed in .*a has 4 columns but b has 5 rows"
    ):
        ops.my_gemm(a, b)
    with pytest.raises(
        TypeError, match="infer_type failed .*input #1 is float32 and input #0 float64"
    ):
        ops.my_gemm(a, _nd(np.ones((4, 2), dtype="float32")))
    with pytest.raises(TypeError, match="my_gemm: expected 2 input"):
        ops.my_gemm(a)


def test_name_clash_with_a_built_in_op_needs_override(tmp_path_factory):
    """In a subprocess: overriding a built-in op changes it for the rest of the process."""
    path = _build_c(
        tmp_path_factory,
        "c_oplib.c",
        "c_oplib_clash",
        '-DNEGATE_NAME="_npi_negative"',
        '-DOP_PREFIX="clash_"',
    )
    script = textwrap.dedent(
        f"""
        import numpy as np
        import mxffi
        from mxffi import ops
        ints = np.array([1, -2])
        print("np before:", mxffi.np.negative(ints).tolist())  # binds the built-in op
        try:
            mxffi.library.load({path!r})
        except ValueError as e:
            print("refused:", e)
        assert "clash_fail" not in ops.list_ops(), "a refused library registered an op"
        assert "From the op library" not in ops.info("_npi_negative")["description"]
        lib = mxffi.library.load({path!r}, override=True)
        print("names:", list(lib.names))
        print("doc:", ops.info("_npi_negative")["description"].splitlines()[0])
        x = np.array([1.0, -2.0])
        print("result:", np.asarray(ops._npi_negative(x)).tolist())
        try:
            ops._npi_negative(ints)  # the library's op takes floats only
        except ValueError as e:
            print("library op:", e)
        print("np after:", mxffi.np.negative(ints).tolist())  # still the built-in it bound
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"refused: library.load: {path}: op '_npi_negative' is already registered" in out
    assert "pass override=True to replace it" in out
    assert "names: ['_npi_negative', 'clash_fail', 'clash_bad_csr', 'clash_garbage']" in out
    assert "doc: -x, from a library written in C." in out
    assert "np before: [-1, 2]" in out
    assert "result: [-1.0, 2.0]" in out
    assert "library op: _npi_negative: infer_type failed in" in out
    assert "expected float32 or float64" in out
    assert "np after: [-1, 2]" in out


def test_process_exits_cleanly_with_libraries_loaded_and_frees_states(example_lib, c_lib):
    """States are freed at interpreter exit, while the libraries are still loaded; the process
    exits with 0. The check runs from an atexit handler registered before mxffi's, so after."""
    script = textwrap.dedent(
        f"""
        import atexit, ctypes
        def report():
            made, live = ctypes.c_int64(), ctypes.c_int64()
            ctypes.CDLL({example_lib!r}).my_ops_states(ctypes.byref(made), ctypes.byref(live))
            print("at exit: made", made.value, "live", live.value, flush=True)
        atexit.register(report)
        import numpy as np
        import mxffi
        from mxffi import ops
        mxffi.library.load({example_lib!r})
        mxffi.library.load({c_lib!r})
        x = np.arange(4.0)
        ops.my_poly(x, coeffs="1,2"); ops.my_poly(x, coeffs="1,2"); ops.my_poly(x, coeffs="3")
        ops.c_negate(x)
        print("loaded:", [str(lib.kind) for lib in mxffi.library.loaded()])
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "loaded: ['op_library', 'op_library']" in proc.stdout
    assert "at exit: made 2 live 0" in proc.stdout
    assert proc.stderr == ""


def test_load_rejects_bad_arguments():
    with pytest.raises(TypeError, match="path must be a str or os.PathLike naming a file, got int"):
        mxffi.library.load(3)
    with pytest.raises(TypeError, match="override must be True or False, got 'yes'"):
        mxffi.library.load("x.so", override="yes")


def test_unknown_op_attribute_of_ops_module():
    with pytest.raises(AttributeError, match="no attribute or op named 'no_such_op'"):
        ops.no_such_op  # noqa: B018


def test_header_ships_with_the_package():
    include = mxffi_config("--includedir")
    assert os.path.isfile(os.path.join(include, "mxffi", "lib_api.h"))


# ---------------------------------------------------------------------------------------------
# Malformed libraries and callbacks that answer with garbage: refused, named, never a crash


@pytest.mark.parametrize(
    "broken,kind,fragment",
    [
        (1, ValueError, "op #1's description is 8 bytes, less than the"),
        (2, ValueError, "op #1 has the name 'bad name!'; an op name is a letter or _"),
        (3, ValueError, "op 'b3_negate' is registered twice"),
        (4, ValueError, "op 'b4_fail' has 17 inputs and 1 outputs; mxffi takes 0 to 16"),
        (5, ValueError, "op 'b5_fail' has no infer_shape or no infer_type"),
        (6, ValueError, "op 'b6_fail' is stateful but has no destroy_state or no state_forward"),
        (7, RuntimeError, "failed to initialise: c_oplib: the license file is missing"),
        (8, ValueError, "has no description of op #1 of 4"),
        (9, ValueError, "says it has -1 ops"),
    ],
)
def test_malformed_library_is_refused_and_registers_nothing(
    tmp_path_factory, broken, kind, fragment
):
    prefix = f"b{broken}_"
    path = _build_c(
        tmp_path_factory,
        "c_oplib.c",
        f"c_oplib_broken{broken}",
        f"-DBROKEN={broken}",
        f'-DOP_PREFIX="{prefix}"',
    )
    with pytest.raises(kind) as info:
        mxffi.library.load(path)
    msg = str(info.value)
    assert path in msg and fragment in msg
    assert not [name for name in ops.list_ops() if name.startswith(prefix)]
    assert all(lib.path != path for lib in mxffi.library.loaded())


@pytest.mark.parametrize(
    "op,mode,kind,fragment",
    [
        ("c_garbage", "ndim", ValueError, "infer_shape in {path} gave output #0 33 dimensions"),
        (
            "c_garbage",
            "extent",
            ValueError,
            "infer_shape in {path} gave output #0 the shape (-5, 3)",
        ),
        ("c_garbage", "code", RuntimeError, "the callback returned 5, which is neither"),
        ("c_garbage", "fallback", RuntimeError, "returned Fallback, which only an infer-storage"),
        ("c_garbage", "dtype", TypeError, "infer_type in {path} left output #0's dtype unset"),
        (
            "c_garbage",
            "forward_fallback",
            RuntimeError,
            "forward failed in {path}: the callback returned Fallback",
        ),
        ("c_garbage", "alloc", ValueError, "alloc_sparse: output #1 is not a sparse output"),
        (
            "c_bad_csr",
            "stype",
            ValueError,
            "infer_stype in {path} gave output #0 the storage type 7",
        ),
    ],
)
def test_garbage_from_a_callback_is_an_error_naming_it(c_lib, op, mode, kind, fragment):
    mxffi.library.load(c_lib)
    x = np.ones((2, 3))
    with pytest.raises(kind) as info:
        ops.invoke(op, x, mode=mode)
    msg = str(info.value)
    assert msg.startswith(f"{op}: ")
    assert fragment.format(path=c_lib) in msg
    # The op and the process go on working.
    np.testing.assert_array_equal(np.asarray(ops.c_garbage(x)), x)


def test_workspace_memory_is_usable_and_freed_after_the_call(c_lib):
    mxffi.library.load(c_lib)
    x = _rng(4).standard_normal((64, 64))
    for _ in range(200):  # 200 x 32 KB of workspace, each freed when its call returns
        np.testing.assert_array_equal(np.asarray(ops.c_garbage(x)), x)


_TWO_LIBS = """
#include <mxffi/lib_api.h>
using namespace mxffi::oplib;
Status Shape1(const Attrs&, const std::vector<Shape>& in, std::vector<Shape>* out) {
  (*out)[0] = in[0];
  return Status::Ok();
}
Status Type1(const Attrs&, const std::vector<DType>& in, std::vector<DType>* out) {
  (*out)[0] = in[0];
  return Status::Ok();
}
Status Fill(const Attrs&, const std::vector<Tensor>&, const std::vector<Tensor>& out,
            const Resource&) {
  for (int64_t i = 0; i < out[0].size(); ++i) out[0].data<double>()[i] = VALUE;
  return Status::Ok();
}
REGISTER_OP(NAME).setInferShape(Shape1).setInferType(Type1).setForward(Fill, "cpu");
"""


def test_two_cpp_libraries_built_without_hidden_visibility_keep_their_own_ops(tmp_path):
    """The header keeps each library's registry to itself, whatever the build's flags."""
    cxx = os.environ.get("CXX") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler (g++ or $CXX)")
    source = tmp_path / "two.cc"
    source.write_text(_TWO_LIBS)
    paths = []
    for name, value in (("twolib_a", 1), ("twolib_b", 2)):
        out = tmp_path / f"lib{name}.so"
        cmd = [
            cxx,
            "-std=c++17",
            "-shared",
            "-fPIC",
            f"-I{mxffi_config('--includedir')}",
            f"-DNAME={name}",
            f"-DVALUE={value}",
            str(source),
            "-o",
            str(out),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
        paths.append(str(out))
    a, b = (mxffi.library.load(p) for p in paths)
    assert list(a.names) == ["twolib_a"] and list(b.names) == ["twolib_b"]
    x = np.zeros(3)
    np.testing.assert_array_equal(np.asarray(ops.twolib_a(x)), [1, 1, 1])
    np.testing.assert_array_equal(np.asarray(ops.twolib_b(x)), [2, 2, 2])


needs_gpu = pytest.mark.skipif(
    not mxffi.cuda.is_available(), reason=f"no CUDA device: {mxffi.cuda.unavailable_reason()}"
)


@needs_gpu
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,k,n", [(3, 4, 5), (17, 33, 9), (0, 3, 2)])
def test_my_gemm_gpu_forward_matches_its_cpu_forward(my_ops, dtype, m, k, n):
    rng = _rng(m * 1000 + k * 10 + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    cpu = ops.my_gemm(_nd(a), _nd(b), alpha=-1.5)
    got = ops.my_gemm(_nd(a).to("cuda:0"), _nd(b).to("cuda:0"), alpha=-1.5)
    assert str(got.device) == "cuda:0" and got.shape == (m, n) and got.dtype == dtype
    tol = _tolerance(dtype)
    np.testing.assert_allclose(got.asnumpy(), cpu.asnumpy(), rtol=tol * 10, atol=tol * 10)


def test_an_op_library_exports_only_its_entry_points(example_lib):
    # mxffi_add_op_library's version script hides everything but the MXFFIOpLib* entry points
    # (and what MXFFI_OP_LIBRARY_EXPORTS adds: the example's my_ops_states), the weak std::
    # template instantiations included.
    if shutil.which("nm") is None:
        pytest.skip("no nm to read the export table")
    out = subprocess.run(
        ["nm", "-D", "--defined-only", example_lib], capture_output=True, text=True, check=True
    )
    names = sorted(line.split()[-1] for line in out.stdout.splitlines() if line.strip())
    entry = ["MXFFIOpLibGetOp", "MXFFIOpLibInit", "MXFFIOpLibLastError", "MXFFIOpLibOpCount"]
    assert names == sorted([*entry, "MXFFIOpLibVersion", "my_ops_states"]), names


def test_custom_ops_page_python_runs_as_shown(example_lib):
    # docs/examples/custom_op/use_my_ops.py, which the page cuts its Python from, run where the
    # page runs it: beside the CMake build folder.
    out = subprocess.run(
        [sys.executable, os.path.join(EXAMPLE, "use_my_ops.py")],
        cwd=os.path.dirname(os.path.dirname(example_lib)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "op_library ['my_gemm', 'my_relu', 'my_poly', 'my_row_sum', 'my_threshold']",
        "use_my_ops: ok",
    ]


def test_custom_ops_page_code_is_cut_and_its_messages_are_real(my_ops, example_lib):
    from test_docs import _cut_blocks

    with open(os.path.join(ROOT, "docs", "custom_ops.md")) as f:
        page = f.read()
    blocks, uncut = _cut_blocks(page)
    lines = page.splitlines()
    # Only the shell commands are not cut from a file the tests build or run.
    assert [lines[i - 1].strip() for i in uncut] == ["```sh"]
    paths = {path for _, path, _, _ in blocks}
    assert {
        "docs/examples/custom_op/my_ops.cc",
        "docs/examples/custom_op/my_ops.h",
        "docs/examples/custom_op/CMakeLists.txt",
        "docs/examples/custom_op/use_my_ops.py",
    } <= paths
    a = _nd(np.ones((2, 2)))
    with pytest.raises(ValueError) as info:
        ops.my_gemm(a, a, alpha="twice")
    row = next(ln for ln in lines if ln.startswith("| parse-attrs refuses |"))
    template = row.split("`")[1]
    expected = template.replace("<class the library chose>", "ValueError").replace(
        "<path>", os.path.realpath(example_lib)
    )
    assert f"ValueError: {info.value}" == expected
