"""MXNet's sparse surface on csr and row_sparse arrays: the unary ops, scalar comparisons,
maximum/minimum with a number and clip that keep the storage type (values against numpy, the
storage type, the dispatch mode, no fallback warning), and the ops that keep falling back."""

import warnings

import numpy as np
import pytest
from sparse_cases import sparse_mask

import mxffi
import mxffi.error
import mxffi.np as mnp
from mxffi.nd import sparse

STYPES = ["csr", "row_sparse"]
INDEX_DTYPES = [np.int32, np.int64]
DENSITIES = [0.0, 0.01, 0.5, 1.0]

# The unary ops MXNet keeps sparse: np name -> (numpy function, registered op).
KEEPS_SPARSE = {
    "negative": np.negative,
    "absolute": np.absolute,
    "square": np.square,
    "sqrt": np.sqrt,
    "sign": np.sign,
    "sin": np.sin,
    "tan": np.tan,
    "arcsin": np.arcsin,
    "arctan": np.arctan,
    "sinh": np.sinh,
    "tanh": np.tanh,
    "arcsinh": np.arcsinh,
    "arctanh": np.arctanh,
    "degrees": np.degrees,
    "radians": np.radians,
    "round": np.round,
    "rint": np.rint,
    "fix": np.fix,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "cbrt": np.cbrt,
    "log1p": np.log1p,
    "expm1": np.expm1,
}
# The aliases reach the same ops.
ALIASES = {"abs": "absolute", "rad2deg": "degrees", "deg2rad": "radians", "atan": "arctan"}
# Ops that do not map 0 to 0: a sparse input falls back to a dense result, with a warning.
FALLS_BACK = {"cos": np.cos, "exp": np.exp, "cosh": np.cosh, "arccos": np.arccos}


def random_dense(shape, density, dtype, seed):
    """Values in (-0.9, 0.9) (inside every op's domain) at about density of the places, with an
    empty row and an empty column where the shape has room."""
    rng = np.random.default_rng(seed)
    mask = sparse_mask(rng, shape, density)
    values = rng.uniform(0.05, 0.9, shape) * rng.choice([-1.0, 1.0], shape)
    return np.where(mask, values, 0.0).astype(dtype)


def make(stype, dense, itype=np.int64):
    idx = np.dtype(itype).name
    if stype == "csr":
        return sparse.csr_matrix(dense, idx_dtype=idx)
    return sparse.row_sparse_array(dense, idx_dtype=idx)


def op_name(name):
    return "relu" if name == "relu" else f"_npi_{name}"


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("name", sorted(KEEPS_SPARSE))
def test_unary_ops_keep_the_storage_type(name, stype):
    ref = KEEPS_SPARSE[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error", mxffi.error.StorageFallbackWarning)
        for k, density in enumerate(DENSITIES):
            for dtype in (np.float32, np.float64):
                for itype in INDEX_DTYPES:
                    d = random_dense((6, 5), density, dtype, seed=k)
                    if name == "sqrt":
                        d = np.abs(d)
                    x = make(stype, d, itype)
                    assert mxffi.ops.dispatch(op_name(name), x) == ("fcompute_ex", [stype])
                    got = getattr(mnp, name)(x)
                    assert got.stype == stype and str(got.dtype) == np.dtype(dtype).name
                    # the structure is x's: the same stored places, the same index dtype
                    assert np.asarray(got.indices).tolist() == np.asarray(x.indices).tolist()
                    assert np.asarray(got.indices).dtype == itype
                    rtol = 1e-6 if dtype == np.float32 else 1e-13
                    np.testing.assert_allclose(got.asnumpy(), ref(d), rtol=rtol, atol=0)


def test_aliases_and_integer_values_follow_numpy():
    d = np.array([[0, 3, 0], [-2, 0, 5]], np.int32)
    for stype in STYPES:
        x = make(stype, d)
        for alias, name in ALIASES.items():
            got = getattr(mnp, alias)(x)
            assert got.stype == stype
            np.testing.assert_allclose(got.asnumpy(), KEEPS_SPARSE[name](d), rtol=1e-15)
        # integers: sin gives float64, floor and fix keep int32, rint gives float64 (numpy's)
        for name, want in (("sinh", "float64"), ("floor", "int32"), ("fix", "int32")):
            got = getattr(mnp, name)(x)
            assert (got.stype, str(got.dtype)) == (stype, want), name
            np.testing.assert_allclose(got.asnumpy(), KEEPS_SPARSE[name](d), rtol=1e-15)
        got = mnp.rint(x)
        assert (got.stype, str(got.dtype)) == (stype, "float64")


def test_unary_ops_reach_through_mxffi_ops():
    x = sparse.csr_matrix(np.array([[0.0, 0.5], [-0.25, 0.0]]))
    got = mxffi.ops.invoke("_npi_arctanh", x)
    assert got.stype == "csr"
    np.testing.assert_allclose(got.asnumpy(), np.arctanh(x.asnumpy()), rtol=1e-15)


def test_unary_ops_on_row_sparse_of_more_dimensions():
    d = np.zeros((4, 2, 3), np.float32)
    d[1] = 0.5
    d[3, 1, 2] = -0.25
    x = sparse.row_sparse_array(d)
    for name in ("tanh", "cbrt", "degrees", "ceil"):
        got = getattr(mnp, name)(x)
        assert got.stype == "row_sparse" and got.shape == (4, 2, 3)
        np.testing.assert_allclose(got.asnumpy(), KEEPS_SPARSE[name](d), rtol=1e-6)


@pytest.mark.parametrize("stype", STYPES)
def test_ops_that_do_not_keep_zero_fall_back_with_a_warning(stype, monkeypatch):
    monkeypatch.delenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", raising=False)
    d = random_dense((4, 3), 0.5, np.float64, seed=1)
    x = make(stype, d)
    # the first fallback of a combination warns; under an error filter it raises, doing nothing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(mxffi.error.StorageFallbackWarning, match=r"_npi_cosh has no kernel"):
            mnp.cosh(x)
    for name, ref in FALLS_BACK.items():
        assert mxffi.ops.dispatch(op_name(name), x) == ("fallback", ["default"])
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("always")
            got = getattr(mnp, name)(x)
        assert got.stype == "default"
        np.testing.assert_allclose(got.asnumpy(), ref(d), rtol=1e-15)


# ---- comparisons with a number, maximum/minimum with a number, clip ---------------------------

# (python expression on x, whether the result keeps x's storage type) -- MXNet's rule: a
# comparison keeps it where 0 compares false, so stored zeros stay unstored and False.
COMPARISONS = [
    (lambda x: x > 0, True),
    (lambda x: x > -0.5, False),
    (lambda x: x >= 0.25, True),
    (lambda x: x >= 0, False),
    (lambda x: x < 0, True),
    (lambda x: x < 0.5, False),
    (lambda x: x <= -0.25, True),
    (lambda x: x <= 0, False),
    (lambda x: x == 0.5, True),
    (lambda x: x == 0, False),
    (lambda x: x != 0, True),
    (lambda x: x != 0.5, False),
    (lambda x: 0 < x, True),  # the reflected forms: x > 0
    (lambda x: 0.5 > x, False),
    (lambda x: -0.25 >= x, True),
    (lambda x: 0 <= x, False),
    (lambda x: x > np.nan, True),  # NaN compares false
    (lambda x: x != np.nan, False),
    (lambda x: x >= 1e-12, False),  # could round to 0 in float16: the fallback decides
    (lambda x: x > 1, True),
    (lambda x: x < -2, True),
]


@pytest.mark.parametrize("stype", STYPES)
@pytest.mark.parametrize("case", range(len(COMPARISONS)))
def test_scalar_comparisons_keep_sparse_where_zero_compares_false(case, stype, monkeypatch):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    fn, keeps = COMPARISONS[case]
    for dtype in (np.float32, np.float64, np.int64):
        d = random_dense((5, 4), 0.5, np.float64, seed=case)
        d[0, 0], d[0, 1] = 0.5, -0.25
        d = (d * 4).astype(dtype) if dtype == np.int64 else d.astype(dtype)
        x = make(stype, d)
        got = fn(x)
        assert str(got.dtype) == "bool"
        assert got.stype == (stype if keeps else "default"), (case, dtype)
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal(got.asnumpy(), fn(d))


def test_scalar_comparison_dispatch_and_op_names():
    x = sparse.csr_matrix(np.array([[0.0, 2.0], [-1.0, 0.0]]))
    assert mxffi.ops.dispatch("_npi_greater_scalar", x, scalar=0) == ("fcompute_ex", ["csr"])
    assert mxffi.ops.dispatch("_npi_rless_scalar", x, scalar=0) == ("fcompute_ex", ["csr"])
    assert mxffi.ops.dispatch("_npi_greater_equal_scalar", x, scalar=0) == (
        "fallback",
        ["default"],
    )
    assert mxffi.ops.dispatch("_npi_equal_scalar", x, scalar=True) == ("fcompute_ex", ["csr"])
    assert mxffi.ops.dispatch("_npi_equal_scalar", x, scalar=False) == ("fallback", ["default"])
    # the stored values that compare false stay stored (as False): the structure is x's
    got = x > 0
    assert got.nnz == 2 and got.asnumpy().tolist() == [[False, True], [False, False]]


def test_float16_and_a_number_that_rounds_to_zero():
    # NEP 50 casts 1e-10 to float16's 0: 0 >= 0 holds, so the result cannot keep the zeros.
    d = np.array([[0.0, 1.0]], np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mxffi.error.StorageFallbackWarning)
        for stype in STYPES:
            got = make(stype, d) >= 1e-10
            assert got.stype == "default"
            np.testing.assert_array_equal(got.asnumpy(), d >= 1e-10)


@pytest.mark.parametrize("stype", STYPES)
def test_maximum_minimum_and_clip_keep_sparse_when_zero_stays_zero(stype, monkeypatch):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    d = random_dense((6, 5), 0.5, np.float32, seed=7)
    x = make(stype, d)
    cases = [
        (lambda a: mnp.maximum(a, -0.5), True),
        (lambda a: mnp.maximum(a, 0.5), False),
        (lambda a: mnp.maximum(-0.25, a), True),
        (lambda a: mnp.minimum(a, 0.5), True),
        (lambda a: mnp.minimum(a, -0.5), False),
        (lambda a: mnp.minimum(0.5, a), True),
        (lambda a: mnp.maximum(a, 0), True),
        (lambda a: mnp.maximum(a, -0.0), False),  # maximum(0.0, -0.0) is -0.0: the fallback's
        (lambda a: mnp.maximum(a, np.nan), False),
        (lambda a: mnp.clip(a, -0.5, 0.5), True),
        (lambda a: mnp.clip(a, 0.0, 0.5), True),
        (lambda a: mnp.clip(a, None, 0.25), True),
        (lambda a: mnp.clip(a, 0.1, 0.5), False),
        (lambda a: mnp.clip(a, -0.5, -0.1), False),
    ]
    for i, (fn, keeps) in enumerate(cases):
        got = fn(x)
        assert got.stype == (stype if keeps else "default"), i
        assert str(got.dtype) == "float32", i
        np.testing.assert_array_equal(got.asnumpy(), fn(d), err_msg=str(i))


# ---- constructors, format check, conversions -------------------------------------------------


def test_empty_is_zeros_of_the_storage_type():
    for stype, shape in (("csr", (3, 4)), ("row_sparse", (5, 2, 3))):
        x = sparse.empty(stype, shape, dtype="float32")
        assert (x.stype, x.shape, str(x.dtype), x.nnz) == (stype, shape, "float32", 0)
        assert x.asnumpy().tolist() == np.zeros(shape).tolist()
    assert sparse.empty("csr", (2, 2), device=mxffi.Device("cpu", 1)).device.device_id == 1
    with pytest.raises(
        ValueError, match=r"^sparse\.empty: stype must be 'csr', 'row_sparse' or 'coo', "
    ):
        sparse.empty("default", (2, 2))


def test_array_copies_sparse_and_scipy_and_refuses_dense():
    import scipy.sparse as sp

    d = random_dense((4, 6), 0.5, np.float64, seed=3)
    for stype in STYPES:
        x = make(stype, d, np.int32)
        y = sparse.array(x)
        assert (type(y), y.stype, str(y.dtype)) == (type(x), stype, "float64")
        assert str(np.asarray(y.indices).dtype) == "int32"
        np.testing.assert_array_equal(y.asnumpy(), d)
        y.data[:] = 0  # a copy: x keeps its values
        np.testing.assert_array_equal(x.asnumpy(), d)
        z = sparse.array(x, dtype="float32")
        assert z.stype == stype and str(z.dtype) == "float32"
    for m in (sp.csr_matrix(d), sp.coo_matrix(d), sp.csr_array(d)):
        y = sparse.array(m, dtype="float32")
        assert y.stype == "csr" and str(y.dtype) == "float32"
        np.testing.assert_allclose(y.asnumpy(), d, rtol=1e-7)
    # duplicates of an unsorted scipy matrix are summed, as MXNet's sum_duplicates
    m = sp.csr_matrix((np.array([1.0, 2.0, 4.0]), np.array([3, 1, 3]), np.array([0, 3])), (1, 4))
    assert sparse.array(m).asnumpy().tolist() == [[0.0, 2.0, 0.0, 5.0]]
    for dense in (d, mnp.array(d), np.float64(1.0)):
        with pytest.raises(ValueError, match=r"^sparse\.array: source is a dense "):
            sparse.array(dense)
    with pytest.raises(TypeError, match=r"^sparse\.array: source must be a sparse mxffi array or "):
        sparse.array([[1.0]])


@pytest.mark.parametrize("stype", STYPES)
def test_check_format_passes_on_arrays_mxffi_makes(stype):
    for k, density in enumerate(DENSITIES):
        for itype in INDEX_DTYPES:
            x = make(stype, random_dense((7, 5), density, np.float32, seed=k), itype)
            assert x.check_format() is None
            assert x.check_format(full_check=False) is None
    with pytest.raises(TypeError, match=r"check_format: argument 'full_check' expected a bool"):
        make(stype, np.eye(2)).check_format(full_check="yes")


def test_conversions_with_scipys_names():
    d = random_dense((4, 3), 0.5, np.float32, seed=4)
    for stype in STYPES:
        x = make(stype, d)
        a = x.toarray()
        assert type(a) is np.ndarray and a.dtype == np.float32
        np.testing.assert_array_equal(a, d)
        c = x.tocsr()
        assert type(c) is sparse.CSRNDArray and not c.same_as(x)
        np.testing.assert_array_equal(c.asnumpy(), d)
        for target in ("default", "csr", "row_sparse"):
            assert x.tostype(target).stype == target
            np.testing.assert_array_equal(x.tostype(target).asnumpy(), d)


def test_row_sparse_retain():
    d = np.zeros((6, 2), np.float64)
    d[[0, 2, 5]] = [[1, 2], [3, 4], [5, 6]]
    x = sparse.row_sparse_array(d)
    for keep in ([0, 5], [1, 2, 3], [], mnp.array(np.array([5], np.int64))):
        y = x.retain(keep)
        want = np.zeros_like(d)
        rows = [r for r in np.asarray(keep).tolist() if r in (0, 2, 5)]
        want[rows] = d[rows]
        assert y.stype == "row_sparse"
        np.testing.assert_array_equal(y.asnumpy(), want)
    assert not hasattr(sparse.csr_matrix(d), "retain")


# ---- pickling and copies -----------------------------------------------------------------------


@pytest.mark.parametrize("stype", STYPES)
def test_pickle_round_trip_keeps_everything(stype):
    import copy
    import pickle

    for k, density in enumerate(DENSITIES):
        for itype in INDEX_DTYPES:
            for dtype in (np.float32, np.float64, np.int16):
                d = (random_dense((5, 4), density, np.float64, seed=k) * 8).astype(dtype)
                x = make(stype, d, itype)
                if k == 1:
                    x = x.to(mxffi.Device("cpu", 2))
                for protocol in (2, 4, 5):
                    y = pickle.loads(pickle.dumps(x, protocol=protocol))
                    assert type(y) is type(x) and not y.same_as(x)
                    assert (y.stype, y.shape, str(y.dtype)) == (stype, x.shape, str(x.dtype))
                    assert str(y.device) == str(x.device)
                    assert np.asarray(y.indices).dtype == itype
                    np.testing.assert_array_equal(y.asnumpy(), d)
                for y in (copy.copy(x), copy.deepcopy(x)):
                    assert type(y) is type(x) and str(y.device) == str(x.device)
                    np.testing.assert_array_equal(y.asnumpy(), d)
                    if y.nnz:
                        y.data[0] = 99  # parts of its own
                        np.testing.assert_array_equal(x.asnumpy(), d)


def test_pickle_of_a_row_sparse_array_of_three_dimensions():
    import pickle

    d = np.zeros((4, 2, 3), np.float32)
    d[2] = 1.5
    x = sparse.row_sparse_array(d, idx_dtype="int32")
    y = pickle.loads(pickle.dumps(x))
    assert y.shape == (4, 2, 3) and np.asarray(y.indices).tolist() == [2]
    np.testing.assert_array_equal(y.asnumpy(), d)


def _state(x):
    fn, args = x.__reduce_ex__(4)
    return fn, list(args)


MALFORMED = [
    # (stype, index of the field to replace, value, error, message)
    ("csr", 0, "csc", ValueError, r"storage type must be 'csr', 'row_sparse' or 'coo', got 'csc'"),
    ("csr", 1, (3, -1), ValueError, r"shape must be a tuple of non-negative ints"),
    ("csr", 1, [3, 4], ValueError, r"shape must be a tuple of non-negative ints"),
    ("csr", 2, 7, TypeError, r"dtype must be a str, got int"),
    ("csr", 2, "float32", ValueError, r"data has dtype float64, the array float32"),
    ("csr", 3, (1, 0, 0), ValueError, r"device must be a \(type, id\) tuple of ints"),
    ("csr", 3, (9, 0), ValueError, r"device must be a \(type, id\) tuple of ints"),
    ("csr", 4, [1.0, 2.0, 3.0, 4.0], TypeError, r"data must be a numpy array, got list"),
    (
        "csr",
        5,
        np.array([1, 0, 2, 3]),
        ValueError,
        r"the column indices of row 0 must be sorted an",
    ),
    (
        "csr",
        5,
        np.array([1, 1, 2, 3]),
        ValueError,
        r"the column indices of row 0 must be sorted and unique; indices\[1\]=1 f",
    ),
    ("csr", 5, np.array([0, 9, 1, 2]), ValueError, r"indices\[1\]=9 is out of range for 4 colu"),
    ("csr", 5, np.array([0, -1, 1, 2]), ValueError, r"indices\[1\]=-1 is out of range"),
    ("csr", 5, np.array([0, 1, 2]), ValueError, r"data must be 1-D and as long as indices"),
    ("csr", 5, np.array([0.0, 1, 2, 3]), ValueError, r"indices must be int32 or int64, got flo"),
    ("csr", 5, np.array([0, 1, 2, 3], np.int32), ValueError, r"indices \(int32\) and indptr \(i"),
    ("csr", 6, np.array([0, 3, 2, 4]), ValueError, r"indptr must be non-decreasing; indptr\[1\]"),
    ("csr", 6, np.array([1, 2, 3, 4]), ValueError, r"indptr\[0\] must be 0, got 1"),
    ("csr", 6, np.array([0, 2, 4]), ValueError, r"indptr must have rows \+ 1 = 4 entries, got 3"),
    ("csr", 6, np.array([0, 2, 3, 5]), ValueError, r"indptr\[-1\] must equal the number of val"),
    ("csr", 6, None, TypeError, r"indptr must be a numpy array, got NoneType"),
    (
        "row_sparse",
        5,
        np.array([2, 0]),
        ValueError,
        r"row_sparse indices must be sorted and unique; indices\[1\]=0 follows",
    ),
    (
        "row_sparse",
        5,
        np.array([0, 0]),
        ValueError,
        r"row_sparse indices must be sorted and unique; indices\[1\]=0 follows",
    ),
    ("row_sparse", 5, np.array([0, 3]), ValueError, r"indices\[1\]=3 is out of range for 3 rows"),
    ("row_sparse", 5, np.array([0]), ValueError, r"data must have one row of shape \(2,\) per "),
    ("row_sparse", 1, (3, 5), ValueError, r"data.shape\[1\]=2 must equal shape\[1\]=5"),
    ("row_sparse", 6, np.array([0, 1]), ValueError, r"a row_sparse array has no indptr"),
]


@pytest.mark.parametrize("case", range(len(MALFORMED)))
def test_unpickling_refuses_a_malformed_state(case):
    stype, field, value, error, message = MALFORMED[case]
    if stype == "csr":
        x = sparse.csr_matrix(([1.0, 2.0, 3.0, 4.0], [0, 1, 2, 3], [0, 2, 3, 4]), shape=(3, 4))
    else:
        x = sparse.row_sparse_array((np.ones((2, 2)), [0, 2]), shape=(3, 2))
    fn, args = _state(x)
    assert fn(*args).asnumpy().tolist() == x.asnumpy().tolist()  # the state as it is loads
    args[field] = value
    with pytest.raises(error, match=r"^sparse array unpickling: " + message):
        fn(*args)


def test_pickle_refuses_nothing_it_made_and_loads_across_processes():
    import pickle

    from conftest import run_python

    x = sparse.csr_matrix(np.array([[0.0, 1.0], [2.5, 0.0]], np.float32), idx_dtype="int32")
    blob = pickle.dumps(x)
    code = (
        "import pickle, sys\n"
        "x = pickle.loads(bytes.fromhex(sys.argv[1]))\n"
        "print(type(x).__name__, x.stype, x.dtype, x.indices.dtype, x.asnumpy().tolist())\n"
    )
    done = run_python(code, args=(blob.hex(),))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[0] == "CSRNDArray csr float32 int32 [[0.0, 1.0], [2.5, 0.0]]"


# ---- operators: comparisons with arrays, in-place, assignment, copyto --------------------------


@pytest.mark.parametrize("stype", STYPES)
def test_comparisons_with_arrays_give_dense_bool_arrays(stype, monkeypatch):
    # MXNet's _equal, _greater, ... have dense kernels only: a sparse operand falls back, and
    # the result is a dense bool array (scipy would return a sparse matrix)
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    a = random_dense((5, 4), 0.5, np.float64, seed=11)
    b = random_dense((5, 4), 0.5, np.float64, seed=12)
    b[0] = a[0]
    x, y = make(stype, a), make(stype, b)
    for op in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
        for other, ref in ((y, b), (mnp.array(b), b)):
            got = getattr(x, op)(other)
            assert got.stype == "default" and str(got.dtype) == "bool", op
            np.testing.assert_array_equal(got.asnumpy(), getattr(a, op)(ref), err_msg=op)


@pytest.mark.parametrize("stype", STYPES)
def test_in_place_operators_keep_the_storage_type(stype):
    a = random_dense((5, 4), 0.5, np.float64, seed=13)
    b = random_dense((5, 4), 0.5, np.float64, seed=14)
    cases = [
        (lambda x, y: x.__imul__(2.0), lambda p, q: p * 2.0),
        (lambda x, y: x.__itruediv__(4), lambda p, q: p / 4),
        (lambda x, y: x.__iadd__(y), lambda p, q: p + q),
        (lambda x, y: x.__isub__(y), lambda p, q: p - q),
        (lambda x, y: x.__imul__(y), lambda p, q: p * q),
        (lambda x, y: x.__imul__(mnp.array(q_dense)), lambda p, q: p * q_dense),
    ]
    q_dense = np.arange(20.0).reshape(5, 4)
    for i, (fn, ref) in enumerate(cases):
        x, y = make(stype, a), make(stype, b)
        same = x
        got = fn(x, y)
        assert got is same and got.stype == stype, i
        np.testing.assert_allclose(x.asnumpy(), ref(a, b), rtol=1e-15, err_msg=str(i))
    x = make(stype, a)
    x *= 3  # through the operator syntax too
    np.testing.assert_allclose(x.asnumpy(), a * 3, rtol=1e-15)


@pytest.mark.parametrize("stype", STYPES)
def test_in_place_operators_refuse_to_change_the_storage_type(stype, monkeypatch):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    a = random_dense((4, 3), 0.5, np.float64, seed=15)
    cls = "CSRNDArray" if stype == "csr" else "RowSparseNDArray"
    for fn, op, other in (
        (lambda x: x.__iadd__(1), r"\+", "int"),
        (lambda x: x.__isub__(mnp.array(a)), "-", "default"),
        (lambda x: x.__itruediv__(0.0), "/", "float"),
        (lambda x: x.__ipow__(0), r"\*\*", "int"),
    ):
        x = make(stype, a)
        with pytest.raises(
            TypeError,
            match=rf"^{cls}\.__i\w+__: {stype} {op} {other} gives a dense result; an in-place "
            rf"operation keeps the {stype} storage type, so write x = x {op} y",
        ):
            fn(x)
        np.testing.assert_array_equal(x.asnumpy(), a)  # unchanged
    x = make(stype, (a * 4).astype(np.int64))
    with pytest.raises(TypeError, match=rf"^{cls}\.__itruediv__: cannot cast the result from "):
        x /= 2
    x *= 2  # int64 * int stays int64
    assert str(x.dtype) == "int64"
    np.testing.assert_array_equal(x.asnumpy(), (a * 4).astype(np.int64) * 2)
    y = make(stype, a.astype(np.float32))
    y *= 2.0  # float64 Python number: the result stays float32 (NEP 50)
    assert str(y.dtype) == "float32"
    with pytest.raises(TypeError, match=r"__imatmul__: in-place matrix multiplication"):
        y @= y


@pytest.mark.parametrize("stype", STYPES)
def test_setitem_replaces_every_value(stype):
    import scipy.sparse as sp

    a = random_dense((4, 3), 0.5, np.float32, seed=16)
    b = random_dense((4, 3), 0.5, np.float64, seed=17)
    for value in (
        make("csr", b),
        make("row_sparse", b),
        mnp.array(b),
        b,
        b.tolist(),
        sp.csr_matrix(b),
    ):
        x = make(stype, a, np.int32)
        x[:] = value
        assert x.stype == stype and str(x.dtype) == "float32"
        assert str(np.asarray(x.indices).dtype) == "int32"
        np.testing.assert_allclose(x.asnumpy(), b.astype(np.float32), rtol=1e-7)
        assert x.check_format() is None
    x = make(stype, a)
    x[:] = x
    np.testing.assert_array_equal(x.asnumpy(), a)
    x[:] = 0
    assert x.nnz == 0 and not x.asnumpy().any()
    cls = type(x).__name__
    with pytest.raises(ValueError, match=rf"^{cls}\.__setitem__: assigning the number 2.5 would"):
        x[:] = 2.5
    for key in (0, slice(1, 2), slice(None, None, 2), (slice(None), 0), Ellipsis):
        with pytest.raises(ValueError, match=rf"^{cls}\.__setitem__: only x\[:\] = value is "):
            x[key] = 0
    with pytest.raises(ValueError, match=r"the value's shape \(3, 3\) differs from the array's"):
        x[:] = np.ones((3, 3))
    with pytest.raises(TypeError, match=rf"^{cls}\.__setitem__: cannot assign a str"):
        x[:] = "x"


def test_copyto_across_storage_types():
    a = random_dense((4, 3), 0.5, np.float64, seed=18)
    sources = {"default": mnp.array(a), "csr": make("csr", a), "row_sparse": make("row_sparse", a)}
    for src in sources.values():
        for dst_stype in ("default", "csr", "row_sparse"):
            if dst_stype == "default":
                dst = mnp.zeros((4, 3))
            else:
                dst = sparse.zeros(dst_stype, (4, 3), idx_dtype="int32")
            out = src.copyto(dst)
            assert out.same_as(dst) and dst.stype == dst_stype
            np.testing.assert_array_equal(dst.asnumpy(), a)
            if dst_stype != "default":
                assert str(np.asarray(dst.indices).dtype) == "int32"  # dst keeps its index dtype
    with pytest.raises(TypeError, match=r"^ndarray\.copyto: dtype mismatch, float64 into float32"):
        sources["csr"].copyto(mnp.zeros((4, 3), dtype="float32"))
    with pytest.raises(
        ValueError, match=r"^ndarray\.copyto: shape mismatch, \(4, 3\) into \(3, 3\)"
    ):
        sources["default"].copyto(sparse.zeros("csr", (3, 3)))
    # to a device, as before: a copy there
    y = sources["csr"].copyto(mxffi.Device("cpu", 1))
    assert y.stype == "csr" and y.device.device_id == 1


# ---- storage-aware maximum/minimum of two arrays, power and add/subtract with a number --------


@pytest.mark.parametrize("stype", STYPES)
def test_maximum_minimum_of_two_sparse_arrays_keep_the_storage_type(stype):
    with warnings.catch_warnings():
        warnings.simplefilter("error", mxffi.error.StorageFallbackWarning)
        for k, density in enumerate(DENSITIES):
            for ia, ib in ((np.int32, np.int32), (np.int32, np.int64)):
                a = random_dense((6, 5), density, np.float64, seed=20 + k)
                b = random_dense((6, 5), 1.0 - density, np.float32, seed=30 + k)
                if a.size and density:
                    a[0, 0] = np.nan  # NaN propagates from either side
                x, y = make(stype, a, ia), make(stype, b, ib)
                for name in ("maximum", "minimum"):
                    assert mxffi.ops.dispatch(f"_npi_{name}", x, y) == ("fcompute_ex", [stype])
                    got = getattr(mnp, name)(x, y)
                    want = getattr(np, name)(a, b)
                    assert got.stype == stype and str(got.dtype) == "float64"
                    assert got.check_format() is None
                    want_itype = np.int64 if ia != ib else ia
                    assert np.asarray(got.indices).dtype == want_itype
                    np.testing.assert_array_equal(got.asnumpy(), want)
                    # with a dense operand, either side: a dense result
                    got = getattr(mnp, name)(mnp.array(b), x)
                    assert got.stype == "default"
                    np.testing.assert_array_equal(got.asnumpy(), getattr(np, name)(b, a))


@pytest.mark.parametrize("stype", STYPES)
def test_power_and_add_subtract_with_a_number(stype, monkeypatch):
    a = random_dense((5, 4), 0.5, np.float32, seed=40)
    x = make(stype, a)
    with warnings.catch_warnings():
        warnings.simplefilter("error", mxffi.error.StorageFallbackWarning)
        for s in (2, 3.0, 0.5):
            got = x**s
            assert got.stype == stype and str(got.dtype) == "float32"
            with np.errstate(invalid="ignore"):
                np.testing.assert_allclose(got.asnumpy(), a**s, rtol=1e-6)
        # x + s and x - s: x's storage type for s = 0, else a dense result without a fallback
        for fn in (lambda v: v + 0, lambda v: v - 0.0, lambda v: v + -0.0, lambda v: 0 - v):
            got = fn(x)
            assert got.stype == stype
            np.testing.assert_array_equal(got.asnumpy(), fn(a))
        for fn in (lambda v: v + 1.5, lambda v: v - 2, lambda v: 3 - v, lambda v: -0.0 - v):
            assert mxffi.ops.dispatch("_npi_add_scalar", x, scalar=1.5) == (
                "fcompute_ex",
                ["default"],
            )
            got = fn(x)
            assert got.stype == "default" and str(got.dtype) == "float32"
            np.testing.assert_array_equal(got.asnumpy(), fn(a))
            assert np.array_equal(np.signbit(got.asnumpy()), np.signbit(fn(a)))
        xi = make(stype, (a * 4).astype(np.int32))
        got = xi + 0.5  # an int array and a float: float64, as numpy
        assert got.stype == "default" and str(got.dtype) == "float64"
        np.testing.assert_array_equal(got.asnumpy(), (a * 4).astype(np.int32) + 0.5)
    # 0 ** s is not 0 for s <= 0 (or NaN): the fallback's dense answer
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    for s in (0, -1.0, np.nan, 1e-12):
        assert mxffi.ops.dispatch("_npi_power_scalar", x, scalar=s) == ("fallback", ["default"])
        with np.errstate(all="ignore"):
            np.testing.assert_array_equal((x**s).asnumpy(), a**s)


# ---- square_sum and norm ---------------------------------------------------------------------


@pytest.mark.parametrize("stype", STYPES)
def test_square_sum_and_norm_match_numpy(stype):
    axes_2d = [None, 0, 1, -1, (0, 1)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", mxffi.error.StorageFallbackWarning)
        for k, density in enumerate(DENSITIES):
            for dtype in (np.float32, np.float64):
                d = random_dense((6, 5), density, dtype, seed=50 + k)
                x = make(stype, d, INDEX_DTYPES[k % 2])
                rtol = 1e-5 if dtype == np.float32 else 1e-12
                for axis in axes_2d:
                    for keepdims in (False, True):
                        want = np.sum(d.astype(np.float64) ** 2, axis=axis, keepdims=keepdims)
                        got = sparse.square_sum(x, axis=axis, keepdims=keepdims)
                        assert got.stype == "default" and got.shape == want.shape
                        assert str(got.dtype) == np.dtype(dtype).name
                        np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=0)
                        got = sparse.norm(x, axis=axis, keepdims=keepdims)
                        np.testing.assert_allclose(got.asnumpy(), np.sqrt(want), rtol=rtol)
                        want1 = np.sum(np.abs(d.astype(np.float64)), axis=axis, keepdims=keepdims)
                        got = sparse.norm(x, ord=1, axis=axis, keepdims=keepdims)
                        assert got.shape == want1.shape
                        np.testing.assert_allclose(got.asnumpy(), want1, rtol=rtol, atol=0)
    # row_sparse of three dimensions, any axes
    d = np.zeros((5, 2, 3))
    d[[1, 4]] = np.arange(12.0).reshape(2, 2, 3) - 5
    x = sparse.row_sparse_array(d)
    for axis in (None, 0, 1, 2, (1, 2), (0, 2), (-1, 0)):
        want = np.sum(d**2, axis=axis)
        np.testing.assert_allclose(sparse.square_sum(x, axis=axis).asnumpy(), want, rtol=1e-15)


def test_square_sum_and_norm_errors():
    x = sparse.csr_matrix(np.eye(2))
    with pytest.raises(ValueError, match=r"^sparse\.norm: ord must be 1 or 2 \(MXNet's\), got 3"):
        sparse.norm(x, ord=3)
    with pytest.raises(ValueError, match=r"^sparse\.square_sum: axis 2 is out of bounds for an "):
        sparse.square_sum(x, axis=2)
    with pytest.raises(ValueError, match=r"^sparse\.norm: repeated axis in \(0, -2\)"):
        sparse.norm(x, axis=(0, -2))
    with pytest.raises(TypeError, match=r"^sparse\.norm: axis must be None, an int or a tuple"):
        sparse.norm(x, axis=[0])
    with pytest.raises(TypeError, match=r"^sparse\.square_sum: data must be a sparse array, got"):
        sparse.square_sum(mnp.ones((2, 2)))
