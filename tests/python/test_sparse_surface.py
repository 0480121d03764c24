"""MXNet's sparse surface on csr and row_sparse arrays: the unary ops, scalar comparisons,
maximum/minimum with a number and clip that keep the storage type (values against numpy, the
storage type, the dispatch mode, no fallback warning), and the ops that keep falling back."""

import warnings

import numpy as np
import pytest

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
    mask = rng.random(shape) < density
    if shape[0] > 2 and density < 1.0:
        mask[1] = False
    if shape[1] > 2 and density < 1.0:
        mask[:, 2] = False
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
