"""mxffi.nd.sparse: constructors (from parts, scipy, dense), validation of malformed parts, the
classes' properties and conversions, cast_storage between every pair, and the dense fallback
(its warning and its result)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import run_python

import mxffi
import mxffi.error
import mxffi.np as mnp
import mxffi.testing
from mxffi.nd import sparse

DENSITIES = [0.0, 0.01, 0.5, 1.0]
SHAPES = [(5, 7), (1, 1), (0, 4), (4, 0), (30, 20)]
VALUE_DTYPES = [np.float32, np.float64]
INDEX_DTYPES = [np.int32, np.int64]


def random_dense(shape, density, dtype, seed=0):
    """A dense matrix with about density of its entries non-zero (some rows and columns empty)."""
    rng = np.random.default_rng(seed)
    mask = rng.random(shape) < density
    if shape[0] > 2 and density < 1.0:
        mask[1] = False  # an empty row
    if len(shape) > 1 and shape[1] > 2 and density < 1.0:
        mask[:, 2] = False  # an empty column
    return np.where(mask, rng.standard_normal(shape) + 2.0, 0.0).astype(dtype)


# ---------------------------------------------------------------------------------------------
# Construction


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_csr_from_scipy_parts_and_dense_agree_with_scipy(shape, density, dtype, itype):
    d = random_dense(shape, density, dtype)
    ref = sp.csr_matrix(d)
    ref.indices = ref.indices.astype(itype)
    ref.indptr = ref.indptr.astype(itype)
    for x in (
        sparse.csr_matrix((ref.data, ref.indices, ref.indptr), shape=shape),
        sparse.csr_matrix(ref),
        sparse.csr_matrix(d, idx_dtype=np.dtype(itype).name),
        mnp.array(d).tostype("csr", idx_dtype=np.dtype(itype).name),
    ):
        assert type(x) is sparse.CSRNDArray
        assert x.stype == "csr"
        assert x.shape == shape
        assert x.dtype == np.dtype(dtype).name
        assert x.nnz == ref.nnz
        np.testing.assert_array_equal(x.asnumpy(), d)
        np.testing.assert_array_equal(np.asarray(x.indptr), ref.indptr)
        np.testing.assert_array_equal(np.asarray(x.indices), ref.indices)
        assert np.asarray(x.indices).dtype == itype
        back = x.asscipy()
        assert (back != ref).nnz == 0


@pytest.mark.parametrize("shape", [(6, 3), (1, 1), (0, 2), (5, 0), (4, 2, 3)])
@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", VALUE_DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
def test_row_sparse_from_parts_and_dense(shape, density, dtype, itype):
    d = random_dense(shape, density, dtype)
    width = int(np.prod(shape[1:]))
    rows = np.flatnonzero(d.reshape(shape[0], width).any(axis=1)).astype(itype)
    for x in (
        sparse.row_sparse_array((d[rows], rows), shape=shape),
        sparse.row_sparse_array(d, idx_dtype=np.dtype(itype).name),
        mnp.array(d).tostype("row_sparse", idx_dtype=np.dtype(itype).name),
    ):
        assert type(x) is sparse.RowSparseNDArray
        assert x.stype == "row_sparse"
        assert x.shape == shape
        np.testing.assert_array_equal(np.asarray(x.indices), rows)
        np.testing.assert_array_equal(np.asarray(x.data), d[rows])
        np.testing.assert_array_equal(x.asnumpy(), d)


def test_csr_construction_sorts_columns_and_sums_duplicates():
    data = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    indices = np.array([3, 1, 3, 2, 0])
    indptr = np.array([0, 3, 5])
    x = sparse.csr_matrix((data, indices, indptr), shape=(2, 4))
    ref = sp.csr_matrix((data, indices, indptr), shape=(2, 4))
    np.testing.assert_array_equal(x.asnumpy(), ref.toarray())
    np.testing.assert_array_equal(np.asarray(x.indices), [1, 3, 0, 2])
    np.testing.assert_array_equal(np.asarray(x.data), [2.0, 5.0, 16.0, 8.0])
    ref.sum_duplicates()  # scipy's canonical form is ours
    np.testing.assert_array_equal(np.asarray(x.indptr), ref.indptr)


def test_parts_are_copied_from_the_caller():
    data, indices, indptr = np.array([1.0, 2.0]), np.array([0, 1]), np.array([0, 1, 2])
    x = sparse.csr_matrix((data, indices, indptr), shape=(2, 2))
    indices[0] = 1000  # would be out of range if the array still read it
    data[0] = -1.0
    np.testing.assert_array_equal(x.asnumpy(), [[1.0, 0.0], [0.0, 2.0]])
    ix = np.asarray(x.indices)
    ix[0] = 7  # a copy: the array keeps its own indices
    np.testing.assert_array_equal(np.asarray(x.indices), [0, 1])


def test_empty_constructors():
    x = sparse.csr_matrix((3, 4))
    assert x.shape == (3, 4) and x.nnz == 0 and x.stype == "csr"
    np.testing.assert_array_equal(x.asnumpy(), np.zeros((3, 4)))
    np.testing.assert_array_equal(np.asarray(x.indptr), [0, 0, 0, 0])
    r = sparse.row_sparse_array((5, 2), dtype="float32")
    assert r.shape == (5, 2) and r.nnz == 0 and r.dtype == "float32"
    z = sparse.zeros("csr", (2, 2))
    assert z.nnz == 0


def test_shape_defaults_like_scipy():
    x = sparse.csr_matrix(([1.0, 2.0], [0, 4], [0, 1, 2]))
    assert x.shape == (2, 5)
    r = sparse.row_sparse_array((np.ones((2, 3)), [1, 6]))
    assert r.shape == (7, 3)


# ---------------------------------------------------------------------------------------------
# Malformed input: ValueError naming the array, the position and the values


@pytest.mark.parametrize(
    ("data", "indices", "indptr", "shape", "message"),
    [
        ([1.0, 2.0], [0, 1], [0, 2], (2, 3), "indptr must have rows + 1 = 3 entries, got 2"),
        ([1.0, 2.0], [0, 1], [1, 1, 2], (2, 3), "indptr[0] must be 0, got 1"),
        ([1.0, 2.0], [0, 1], [0, 2, 1], (2, 3), "indptr must be non-decreasing; indptr[1]=2 > "),
        ([1.0, 2.0], [0, 3], [0, 1, 2], (2, 3), "indices[1]=3 is out of range for 3 columns"),
        ([1.0, 2.0], [0, -2], [0, 1, 2], (2, 3), "indices[1]=-2 is out of range for 3 columns"),
        ([1.0, 2.0, 3.0], [0, 1], [0, 1, 2], (2, 3), "data and indices must have the same length"),
        ([1.0, 2.0], [0, 1], [0, 1, 3], (2, 3), "indptr[-1] must equal the number of values 2"),
        ([1.0], [0.5], [0, 1, 1], (2, 3), "indices must be integers, got dtype float64"),
        ([[1.0]], [0], [0, 1, 1], (2, 3), "data must be 1-D, got 2-D"),
        ([1.0], [0], [0, 1, 1], (-2, 3), "negative dimensions are not allowed"),
    ],
    ids=[
        "indptr-length",
        "indptr-start",
        "indptr-decreasing",
        "index-too-big",
        "index-negative",
        "length-mismatch",
        "indptr-end",
        "float-indices",
        "2d-data",
        "negative-shape",
    ],
)
def test_malformed_csr_raises_value_error(data, indices, indptr, shape, message):
    with pytest.raises(ValueError) as e:
        sparse.csr_matrix((np.array(data), np.array(indices), np.array(indptr)), shape=shape)
    assert "csr_matrix" in str(e.value)
    assert message in str(e.value)


@pytest.mark.parametrize(
    ("data", "indices", "shape", "message"),
    [
        (np.ones((2, 2)), [3, 1], (4, 2), "must be sorted and unique; indices[1]=1 follows "),
        (np.ones((2, 2)), [1, 1], (4, 2), "indices[1]=1 follows indices[0]=1"),
        (np.ones((2, 2)), [0, 4], (4, 2), "indices[1]=4 is out of range for 4 rows"),
        (np.ones((2, 3)), [0, 1], (4, 2), "data.shape[1]=3 must equal shape[1]=2"),
        (np.ones((3, 2)), [0, 1], (4, 2), "one row per index; got 3 rows and 2 indices"),
        (np.ones((2, 2)), [0.0, 1.0], (4, 2), "indices must be integers, got dtype float64"),
    ],
    ids=["unsorted", "duplicate", "out-of-range", "row-width", "row-count", "float-indices"],
)
def test_malformed_row_sparse_raises_value_error(data, indices, shape, message):
    with pytest.raises(ValueError) as e:
        sparse.row_sparse_array((data, np.array(indices)), shape=shape)
    assert "row_sparse_array" in str(e.value)
    assert message in str(e.value)


def test_bad_stype_and_index_dtype():
    x = mnp.array(np.eye(2))
    with pytest.raises(
        ValueError,
        match="^sparse._cast_storage: argument #1 'stype': unknown storage type 'csc'; expected "
        "'default', 'csr', 'row_sparse' or 'coo'",
    ):
        x.tostype("csc")
    with pytest.raises(ValueError, match="idx_dtype must be int32 or int64, got int16"):
        x.tostype("csr", idx_dtype="int16")
    with pytest.raises(ValueError, match="a csr array is 2-D"):
        mnp.array(np.ones(3)).tostype("csr")


# ---------------------------------------------------------------------------------------------
# The classes


def test_properties_repr_copy_and_no_dlpack():
    d = np.array([[0.0, 1.5], [0.0, 0.0], [2.5, 0.0]])
    x = sparse.csr_matrix(d)
    assert repr(x) == "<CSRNDArray 3x2 dtype=float64 nnz=2 @cpu:0>"
    assert len(x) == 3
    y = x.copy()
    assert type(y) is sparse.CSRNDArray and not y.same_as(x)
    np.testing.assert_array_equal(y.asnumpy(), d)
    np.testing.assert_array_equal(np.asarray(x), d)
    with pytest.raises(TypeError, match="DLPack has no sparse tensors"):
        np.from_dlpack(x)
    r = sparse.row_sparse_array(d)
    assert repr(r) == "<RowSparseNDArray 3x2 dtype=float64 nnz=2 @cpu:0>"
    assert (r.asscipy() != sp.csr_matrix(d)).nnz == 0
    assert mnp.array(d).stype == "default"


def test_data_shares_memory_with_the_array():
    x = sparse.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    np.asarray(x.data)[:] = [10.0, 20.0]
    np.testing.assert_array_equal(x.asnumpy(), [[0.0, 10.0], [20.0, 0.0]])


@pytest.mark.parametrize("src", ["default", "csr", "row_sparse"])
@pytest.mark.parametrize("dst", ["default", "csr", "row_sparse"])
@pytest.mark.parametrize("density", DENSITIES)
def test_cast_storage_every_pair(src, dst, density):
    d = random_dense((9, 6), density, np.float64, seed=3)
    x = sparse.cast_storage(mnp.array(d), src)
    y = sparse.cast_storage(x, dst)
    assert y.stype == dst
    np.testing.assert_array_equal(np.asarray(y), d)
    if dst == "csr":
        assert y.nnz == np.count_nonzero(d)


def test_sparse_arrays_come_back_from_functions_as_their_class():
    x = sparse.csr_matrix(np.eye(3))
    assert type(mxffi.testing.echo(x)) is sparse.CSRNDArray
    assert type(mxffi.Array([x])[0]) is sparse.CSRNDArray


def test_storage_type_values_are_the_c_abis():
    from mxffi import _ffi

    # c_api.h's MXFFIStorageType, frozen; both Python cores name them.
    assert (_ffi.STORAGE_DEFAULT, _ffi.STORAGE_ROW_SPARSE, _ffi.STORAGE_CSR) == (0, 1, 2)
    assert _ffi.STORAGE_COO == 3  # C ABI 1.7
    with pytest.raises(ValueError, match=r"register_sparse_class: stype must be .* got 7"):
        _ffi.register_sparse_class(7, sparse.BaseSparseNDArray)


def _register_sparse_classes_again():
    from mxffi import _ffi

    _ffi.register_sparse_class(_ffi.STORAGE_ROW_SPARSE, sparse.RowSparseNDArray)
    _ffi.register_sparse_class(_ffi.STORAGE_CSR, sparse.CSRNDArray)
    _ffi.register_sparse_class(_ffi.STORAGE_COO, sparse.COONDArray)
    _ffi.register_sparse_class(None, sparse.BaseSparseNDArray)


@pytest.mark.parametrize(
    "cls",
    [0, None, "CSRNDArray", mxffi.Object, type("Lookalike", (), {"stype": "csr"}), int],
    ids=["int", "None", "str", "Object", "lookalike", "int-type"],
)
@pytest.mark.parametrize("stype", ["csr", "row_sparse", None])
def test_register_sparse_class_refuses_a_class_that_is_no_ndarray(cls, stype, request):
    from mxffi import _ffi

    # The class is instantiated over the NDArray's C layout: anything but an NDArray subclass
    # would be read as one (a crash at the next sparse result).
    slot = {"csr": _ffi.STORAGE_CSR, "row_sparse": _ffi.STORAGE_ROW_SPARSE, None: None}[stype]
    request.addfinalizer(_register_sparse_classes_again)
    with pytest.raises(
        TypeError,
        match=r"register_sparse_class: cls must be a subclass of "
        r"mxffi.NDArray, got ",
    ):
        _ffi.register_sparse_class(slot, cls)
    # The registration in place is kept.
    assert type(sparse.zeros("csr", (2, 2))) is sparse.CSRNDArray
    assert type(sparse.zeros("row_sparse", (2, 2))) is sparse.RowSparseNDArray
    assert type(mxffi.testing.ndarray_of_storage(3, 4, 7)) is sparse.BaseSparseNDArray


def test_an_unknown_storage_type_is_an_opaque_sparse_array_never_a_dense_one():
    # What an array of a storage type added in a later version (7 here) looks like to this one.
    x = mxffi.testing.ndarray_of_storage(3, 4, 7)
    assert type(x) is sparse.BaseSparseNDArray
    assert x.stype == "unknown(7)" and x.shape == (3, 4) and str(x.dtype) == "float32"
    assert repr(x) == (
        "<BaseSparseNDArray 3x4 dtype=float32 stype=unknown(7), not readable by this version of "
        "mxffi @cpu:0>"
    )
    unknown = "has storage type 7, which this version of mxffi does not know"
    with pytest.raises(TypeError, match=f"^cast_storage: the array {unknown}"):
        x.asnumpy()
    with pytest.raises(TypeError, match=f"^cast_storage: the array {unknown}"):
        np.asarray(x)
    with pytest.raises(TypeError, match=f"^cast_storage: the array {unknown}"):
        x.tostype("csr")
    with pytest.raises(TypeError, match=f"^_npi_add: input #0 {unknown}"):
        mnp.add(x, mnp.ones((3, 4), dtype="float32"))
    with pytest.raises(TypeError, match=f"^_copy: input #0 {unknown}"):
        mxffi.ops.invoke("_copy", x)
    with pytest.raises(TypeError, match=f"^_copy: input #0 {unknown}"):
        mxffi.ops.dispatch("_copy", x)
    with pytest.raises(TypeError, match=f"^ndarray.data: the array {unknown}"):
        _ = x.data
    with pytest.raises(TypeError, match=f"^ndarray.to: the array {unknown}"):
        x.to("cpu")


# ---------------------------------------------------------------------------------------------
# Dispatch and the dense fallback


def test_dispatch_reports_the_fallback_before_the_call():
    x = sparse.csr_matrix(np.eye(3))
    assert mxffi.ops.dispatch("_copy", x) == ("fallback", ["default"])
    assert mxffi.ops.dispatch("_copy", mnp.array(np.eye(3))) == ("fcompute", ["default"])
    assert mxffi.ops.dispatch("cast_storage", x, stype="row_sparse") == (
        "fcompute_ex",
        ["row_sparse"],
    )


def test_fallback_warns_once_per_combination_and_matches_dense(monkeypatch):
    monkeypatch.delenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", raising=False)
    d = np.array([[0.0, 1.0], [2.0, 0.0]])
    r = sparse.row_sparse_array(d)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")  # every warning issued is recorded: C++ sends one
        out = mxffi.ops.invoke("_copy", r)
        out2 = mxffi.ops.invoke("_copy", r)
    assert len(seen) == 1, [str(w.message) for w in seen]
    w = seen[0]
    assert w.category is mxffi.error.StorageFallbackWarning
    assert issubclass(w.category, mxffi.error.MXFFIWarning) and issubclass(w.category, UserWarning)
    assert str(w.message).startswith(
        "storage fallback: _copy has no kernel for input storage types (row_sparse,) and output "
        "storage types (default,)"
    )
    assert "MXFFI_STORAGE_FALLBACK_LOG_VERBOSE=0 silences it" in str(w.message)
    assert w.filename == __file__  # attributed to the caller's line
    assert out.stype == "default"
    np.testing.assert_array_equal(np.asarray(out), d)
    np.testing.assert_array_equal(np.asarray(out2), d)


def test_fallback_warning_names_the_parameters(monkeypatch):
    monkeypatch.delenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", raising=False)
    x = sparse.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    with pytest.warns(mxffi.error.StorageFallbackWarning, match=r"dtype=float32") as seen:
        out = mxffi.ops.invoke("_cast", x, dtype="float32")
    assert "_cast has no kernel for input storage types (csr,)" in str(seen[0].message)
    np.testing.assert_array_equal(np.asarray(out), np.array([[0, 1], [2, 0]], np.float32))


def test_fallback_warning_is_silenced_by_the_variable(monkeypatch):
    monkeypatch.setenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", "0")
    x = sparse.csr_matrix(np.array([[0.0, 3.0]]))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = mxffi.ops.invoke("_copy", x)
    assert seen == []
    np.testing.assert_array_equal(np.asarray(out), [[0.0, 3.0]])


def test_fallback_warning_as_error_raises_before_any_work(monkeypatch):
    # Under an "error" filter the call raises the warning and writes nothing; the combination
    # stays unwarned, so each call raises until the filter goes.
    monkeypatch.delenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", raising=False)
    x = sparse.csr_matrix(np.array([[0.0, 2.0], [1.0, 0.0]]))
    out = mnp.full((2, 2), 7.0)
    for _ in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("error", mxffi.error.StorageFallbackWarning)
            with pytest.raises(mxffi.error.StorageFallbackWarning, match="_npi_exp"):
                mnp.exp(x, out=out)
        np.testing.assert_array_equal(out.numpy(), np.full((2, 2), 7.0))  # untouched
    with pytest.warns(mxffi.error.StorageFallbackWarning):
        mnp.exp(x, out=out)
    np.testing.assert_allclose(out.numpy(), np.exp([[0.0, 2.0], [1.0, 0.0]]))


def test_fallback_warning_on_the_ctypes_core():
    # The ctypes core installs the warning hook too (C++ alone writes the line on stderr:
    # tests/cpp, Env.WarnWithoutAHookWritesStderr).
    proc = run_python(
        """
        import warnings, numpy as np, mxffi
        f = mxffi.get_global_func("ops.invoke")
        import mxffi.testing
        x = mxffi.get_global_func("sparse._cast_storage")(np.eye(2), "csr", None)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            f("_copy", 1, x)
        print(seen[0].category.__name__, len(seen))
        """,
        env={"MXFFI_FFI": "ctypes"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["StorageFallbackWarning", "1"]


def test_astype_keeps_the_storage_type_and_item_reads_the_value():
    x = sparse.csr_matrix(np.array([[0.0, 1.5], [2.5, 0.0]]))
    y = x.astype("float32")
    assert type(y) is sparse.CSRNDArray and y.dtype == "float32"
    np.testing.assert_array_equal(np.asarray(y), np.array([[0, 1.5], [2.5, 0]], np.float32))
    r = sparse.row_sparse_array(np.array([[0.0], [4.0]])).astype("float32")
    assert type(r) is sparse.RowSparseNDArray
    np.testing.assert_array_equal(np.asarray(r.indices), [1])
    assert sparse.csr_matrix(np.array([[7.0]])).item() == 7.0
    with pytest.raises(ValueError, match="size 1"):
        x.item()


def test_dense_only_functions_refuse_sparse_arrays_with_a_clear_error():
    x = sparse.csr_matrix(np.eye(2))
    with pytest.raises(TypeError, match="views are of dense arrays"):
        mnp.reshape(x, (4,))
    # A csr array's transpose is a new csr array (test_sparse_spgemm.py); a row_sparse one has
    # none.
    with pytest.raises(TypeError, match="views are of dense arrays"):
        mnp.transpose(sparse.row_sparse_array(np.eye(2)))


def test_row_sparse_array_of_a_0d_dense_array_is_refused():
    # numpy.ascontiguousarray made the 0-d array 1-d, so it came back with shape (1,).
    with pytest.raises(ValueError, match=r"a row_sparse array has at least one dimension"):
        mxffi.nd.sparse.row_sparse_array(np.ones(()))


# ---------------------------------------------------------------------------------------------
# Constructors as scipy's users expect them


@pytest.mark.parametrize(
    "make",
    [
        lambda dev: sparse.zeros("csr", (2, 2), device=dev),
        lambda dev: sparse.zeros("row_sparse", (2, 2), device=dev),
        lambda dev: sparse.csr_matrix(np.eye(2), device=dev),
        lambda dev: sparse.csr_matrix((2, 2), device=dev),
        lambda dev: sparse.row_sparse_array(np.eye(2), device=dev),
        lambda dev: sparse.row_sparse_array((np.eye(2), [0, 1]), device=dev),
    ],
)
def test_constructors_keep_the_cpu_device_id(make):
    x = make(mnp.cpu(1))
    assert x.device == mnp.cpu(1)
    d = mnp.ones((2, 2), device=mnp.cpu(1))
    assert (x + d).device == mnp.cpu(1)  # mixes with dense arrays on the same device
    assert make("cpu:0").device == mnp.cpu(0) and make(None).device == mnp.cpu(0)


def test_dtype_is_honoured_for_sparse_inputs():
    c = sparse.csr_matrix(np.array([[0.0, 1.5], [2.0, 0.0]]))
    r = sparse.row_sparse_array(c, dtype="int32")
    assert r.stype == "row_sparse" and r.dtype == "int32"
    np.testing.assert_array_equal(r.asnumpy(), [[0, 1], [2, 0]])
    c32 = sparse.csr_matrix(r, dtype="float32")
    assert c32.stype == "csr" and c32.dtype == "float32"


@pytest.mark.parametrize(
    "make",
    [
        lambda: sparse.csr_matrix((2, 2), shape=(3, 2)),
        lambda: sparse.csr_matrix(sp.eye(2, format="csr"), shape=(3, 2)),
        lambda: sparse.csr_matrix(sparse.csr_matrix(np.eye(2)), shape=(3, 2)),
        lambda: sparse.csr_matrix(np.eye(2), shape=(3, 2)),
        lambda: sparse.row_sparse_array((2, 2), shape=(3, 2)),
        lambda: sparse.row_sparse_array(sparse.csr_matrix(np.eye(2)), shape=(3, 2)),
        lambda: sparse.row_sparse_array(sp.eye(2, format="csr"), shape=(3, 2)),
    ],
)
def test_a_conflicting_shape_is_a_value_error_naming_both(make):
    with pytest.raises(ValueError, match=r"shape \(3, 2\) does not match the data's \(2, 2\)"):
        make()


def test_shapes_of_numpy_integers_are_shapes():
    assert sparse.row_sparse_array((np.int64(3), np.int64(2))).shape == (3, 2)
    assert sparse.csr_matrix((np.int32(2), np.int64(5))).shape == (2, 5)
    assert sparse.zeros("csr", (np.int64(2), 3)).shape == (2, 3)
    assert sparse.zeros("row_sparse", np.int64(4)).shape == (4,)


def test_no_stored_values_and_no_shape_is_refused():
    with pytest.raises(ValueError, match=r"^csr_matrix: cannot infer the number of columns"):
        sparse.csr_matrix((np.zeros(0), np.zeros(0, np.int64), np.zeros(4, np.int64)))
    with pytest.raises(ValueError, match=r"^row_sparse_array: cannot infer the number of rows"):
        sparse.row_sparse_array((np.zeros((0, 2)), np.zeros(0, np.int64)))
    with pytest.raises(ValueError, match=r"^csr_matrix: cannot infer the shape from no stored"):
        sparse.csr_matrix((np.zeros(0), (np.zeros(0, np.int64), np.zeros(0, np.int64))))
    # with shape= they are fine
    e = sparse.csr_matrix((np.zeros(0), np.zeros(0, np.int64), np.zeros(4, np.int64)), shape=(3, 5))
    assert e.shape == (3, 5) and e.nnz == 0


@pytest.mark.parametrize("shape", [None, (4, 5)])
@pytest.mark.parametrize("idx", [np.int32, np.int64])
def test_coo_form_sums_duplicates_as_scipy(shape, idx):
    rng = np.random.default_rng(7)
    row = rng.integers(0, 4, 30).astype(idx)
    col = rng.integers(0, 5, 30).astype(idx)
    data = rng.random(30)
    got = sparse.csr_matrix((data, (row, col)), shape=shape)
    want = sp.csr_matrix((data, (row, col)), shape=shape)
    assert got.shape == want.shape
    np.testing.assert_allclose(got.asnumpy(), want.toarray())
    # canonical: sorted columns within rows, no duplicates
    want.sum_duplicates()
    np.testing.assert_array_equal(got.indptr.numpy(), want.indptr)
    np.testing.assert_array_equal(got.indices.numpy(), want.indices)


def test_coo_form_bad_input():
    with pytest.raises(ValueError, match=r"^csr_matrix: row\[0\]=4 is out of range for 4 rows"):
        sparse.csr_matrix(([1.0], ([4], [0])), shape=(4, 4))
    with pytest.raises(ValueError, match=r"^csr_matrix: col\[0\]=-1 is out of range for 4 columns"):
        sparse.csr_matrix(([1.0], ([0], [-1])), shape=(4, 4))
    with pytest.raises(ValueError, match=r"^csr_matrix: data, row and col must be 1-D with one"):
        sparse.csr_matrix(([1.0, 2.0], ([0], [0])), shape=(4, 4))
    with pytest.raises(ValueError, match=r"^csr_matrix: row ids must be integers"):
        sparse.csr_matrix(([1.0], ([0.5], [0])), shape=(4, 4))
    with pytest.raises(ValueError, match=r"^csr_matrix: the COO form is \(data, \(row, col\)\)"):
        sparse.csr_matrix(([1.0], ([0],)), shape=(4, 4))


@pytest.mark.parametrize("bad", ["(,f8", "i4,(", "(2f8", "floaty", 3, object()])
def test_a_bad_dtype_is_a_type_error_naming_the_constructor(bad):
    # numpy's own dtype parser evaluates parts of a string with ast.literal_eval and raised a
    # SyntaxError for a malformed one; mxffi's parser reads every dtype the constructors take.
    dense = np.ones((2, 2))
    cases = [
        ("csr_matrix", lambda: sparse.csr_matrix(dense, dtype=bad)),
        ("csr_matrix", lambda: sparse.csr_matrix((2, 2), dtype=bad)),
        ("row_sparse_array", lambda: sparse.row_sparse_array(dense, dtype=bad)),
        ("row_sparse_array", lambda: sparse.row_sparse_array((2, 2), dtype=bad)),
        ("CSRNDArray.astype", lambda: sparse.csr_matrix(dense).astype(bad)),
    ]
    for name, make in cases:
        with pytest.raises(TypeError, match=rf"^{name}: argument 'dtype': "):
            make()
    assert sparse.csr_matrix(dense, dtype="f4").dtype == "float32"  # numpy's codes still work
    assert sparse.row_sparse_array(dense, dtype=np.int16).dtype == "int16"
