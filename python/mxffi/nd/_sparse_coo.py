"""COONDArray: a 2-D sparse array stored as (data, row, col) triplets, in any order and with
repeated (row, col) pairs allowed (they add up), as edge lists come; and coo_matrix, which
makes one the way scipy.sparse.coo_matrix takes its arguments.

Every op but cast_storage sees a coo array as csr: Invoke converts it (a counting sort by row
and a sort of each row's columns, in C++ on the thread pool; duplicates summed) and warns once
per combination, as the storage fallback does. See docs/sparse.md."""

from .._ffi import get_global_func
from ..ndarray import NDArray
from . import sparse as _sp

_coo = get_global_func("sparse._coo_matrix")
_row = get_global_func("sparse._row")
_col = get_global_func("sparse._col")
_is_canonical = get_global_func("sparse._coo_is_canonical")

_INT64_MAX = (1 << 63) - 1


class COONDArray(_sp.BaseSparseNDArray):
    """A 2-D array in coordinate format: data, row and col (int32 or int64 ids, one dtype)."""

    __slots__ = ()

    @property
    def row(self):
        """A copy of the row ids (int32 or int64), one per stored value."""
        return _row(self)

    @property
    def col(self):
        """A copy of the column ids, one per stored value."""
        return _col(self)

    @property
    def coords(self):
        """(row, col): copies of the ids (scipy's coo_array.coords)."""
        return self.row, self.col

    @property
    def indices(self):
        raise AttributeError(
            "COONDArray.indices: a coo array has row and col ids (.row, .col, .coords), not indices"
        )

    @property
    def nnz(self):
        """The number of stored values, repeated (row, col) pairs counted each time (scipy's)."""
        return self.data.shape[0]

    @property
    def has_canonical_format(self):
        """Whether the entries are sorted by row, then by column, with no repeated (row, col)
        pair (scipy's attribute; computed, O(nnz), on the ids as they are now)."""
        host = self if self.device.device_type == 1 else self.to("cpu")
        return bool(_is_canonical(host))

    def sum_duplicates(self):
        """Sort the entries row-major and add up repeated (row, col) pairs, in place (scipy's
        sum_duplicates); the index dtype is kept. Returns None."""
        if self.has_canonical_format:
            return
        _sp._copyto(self.tostype("csr").tostype("coo"), self)

    def tocoo(self, copy=False):
        """This array (copy=False, scipy's default) or a copy."""
        return self.copy() if copy else self

    def astype(self, dtype, copy=True):
        """The array with its values converted to dtype; same ids, same order."""
        import numpy

        dtype = _sp._dtype(dtype, "COONDArray.astype")
        if not copy and str(self.dtype) == dtype:
            return self
        host = self if self.device.device_type == 1 else self.to("cpu")
        values = numpy.asarray(host.data).astype(dtype)
        out = _coo(self.shape, values, _row(host), _col(host))
        return _sp._on(out, self.device)

    @property
    def T(self):  # noqa: N802 (numpy's name)
        """The transpose: row and col swapped (scipy's), the values in the same order; a new
        COONDArray sharing the values with this one, as scipy's transpose does."""
        host = self if self.device.device_type == 1 else self.to("cpu")
        rows, cols = self.shape
        out = _coo((cols, rows), host.data, _col(host), _row(host))
        return _sp._on(out, self.device)

    @property
    def mT(self):  # noqa: N802 (the array API's name)
        """The transpose (a coo array is one matrix): the same as ``.T``."""
        return self.T

    def transpose(self, *axes):
        """``transpose()`` and ``transpose(1, 0)`` are ``.T``; ``transpose(0, 1)`` is this array."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        axes = tuple(axes) if axes else (1, 0)
        if axes in ((1, 0), (-1, -2), (1, -2), (-1, 0)):
            return self.T
        if axes in ((0, 1), (-2, -1), (0, -1), (-2, 1)):
            return self
        raise ValueError(f"COONDArray.transpose: axes {axes!r} do not match a 2-D array")

    def asscipy(self):
        """A scipy.sparse.coo_matrix with the same entries in the same order: the values are
        shared with this array (no copy; a CPU array), the row and column ids are copies."""
        import numpy
        import scipy.sparse

        host = self if self.device.device_type == 1 else self.to("cpu")
        data = numpy.from_dlpack(host.data)
        row, col = numpy.asarray(_row(host)), numpy.asarray(_col(host))
        return scipy.sparse.coo_matrix((data, (row, col)), shape=self.shape, copy=False)


_sp.register_sparse_class(_sp.STORAGE_COO, COONDArray)


def _index_array(fname, name, a):
    """a as a 1-D numpy array of int32 or int64 ids; ValueError for anything else (floats,
    Python ints past int64, uint64 ids past int64)."""
    import numpy

    if isinstance(a, NDArray):
        a = a.to("cpu") if a.device.device_type != 1 else a
    try:
        out = numpy.asarray(a)
    except OverflowError:
        raise ValueError(f"{fname}: {name} ids must fit int64") from None
    if out.dtype.kind not in "iu":
        raise ValueError(f"{fname}: {name} ids must be integers, got dtype {out.dtype}")
    if out.ndim != 1:
        raise ValueError(f"{fname}: {name} ids must be 1-D, got shape {out.shape}")
    if out.dtype.kind == "u" and out.dtype.itemsize == 8 and out.size:
        top = int(out.max())
        if top > _INT64_MAX:
            j = int(numpy.argmax(out))
            raise ValueError(f"{fname}: {name}[{j}]={top} does not fit int64")
    return out


def _cast_ids(fname, row, col, idx_dtype):
    """row and col with one dtype: idx_dtype when given (ValueError for an id it cannot hold),
    else theirs when they agree on int32 or int64, else int64."""
    import numpy

    if idx_dtype is None:
        if row.dtype == col.dtype and row.dtype in (numpy.int32, numpy.int64):
            return row, col
        idx_dtype = "int64"
    want = numpy.dtype(_sp._dtype(idx_dtype, fname))
    if want not in (numpy.int32, numpy.int64):
        raise ValueError(f"{fname}: idx_dtype must be int32 or int64, got {want}")
    info = numpy.iinfo(want)
    out = []
    for name, a in (("row", row), ("col", col)):
        if a.size and a.dtype != want:
            lo, hi = int(a.min()), int(a.max())
            if lo < info.min or hi > info.max:
                bad = lo if lo < info.min else hi
                j = int(numpy.argmin(a) if bad == lo else numpy.argmax(a))
                raise ValueError(f"{fname}: {name}[{j}]={bad} does not fit {want} ids")
        out.append(a.astype(want, copy=False))
    return out[0], out[1]


def _shared_values(data, dtype):
    """The values for _coo: an mxffi array, which the result shares, when data already is a 1-D
    C-contiguous CPU array of the wanted dtype (numpy's through DLPack); else numpy's copy."""
    import numpy

    import mxffi.np as mnp

    if isinstance(data, NDArray) and not isinstance(data, _sp.BaseSparseNDArray):
        return data if dtype is None or str(data.dtype) == dtype else data.astype(dtype)
    values = _sp._values(data, dtype)
    if isinstance(values, numpy.ndarray) and values.ndim == 1 and values.flags.c_contiguous:
        try:
            return mnp.from_dlpack(values)
        except (TypeError, ValueError, BufferError):
            pass  # a dtype DLPack does not carry: the constructor copies it
    return values


def coo_matrix(arg1, shape=None, dtype=None, idx_dtype=None, device=None):
    """A COONDArray, as scipy.sparse.coo_matrix takes its arguments, on device (default: the
    CPU; a CUDA device gets a copy of each part of the matrix built on the CPU).

    - ``coo_matrix((data, (row, col)), shape=(M, N))``: the entries as given, in any order,
      repeated (row, col) pairs allowed (they add up); shape defaults to (max(row) + 1,
      max(col) + 1) and must be given when there are no entries. Every id is checked.
    - ``coo_matrix(S)`` for a scipy.sparse matrix or array (a coo one keeps its order and
      duplicates), a torch.sparse_coo tensor (likewise; values shared, ids copied and checked)
      or sparse_csr one, or any array offering ``__binsparse__``; ``coo_matrix(D)`` for a dense
      2-D array (numpy, mxffi or nested lists), ``coo_matrix((M, N))`` for an empty one; a
      sparse mxffi array is converted (a COONDArray gives a copy).

    The values are shared, not copied, where they already are a 1-D C-contiguous CPU array of
    the result's dtype (a numpy array, a scipy coo matrix's data, an mxffi array): writes to
    one show in the other, as with scipy's own constructors. The row and column ids are always
    copied (and checked), so ids changed later can never send a kernel out of bounds. A shape=
    that differs from the data's is a ValueError naming both. idx_dtype (int32 or int64) sets
    the ids' dtype (default: theirs when row and col agree on int32 or int64, else int64).
    """
    fname = "coo_matrix"
    dtype = _sp._dtype(dtype, fname)
    return _sp._on(_coo_matrix(fname, arg1, shape, dtype, idx_dtype), device)


def _coo_matrix(fname, arg1, shape, dtype, idx_dtype):
    import numpy

    if isinstance(arg1, _sp.BaseSparseNDArray):
        _sp._check_shape(fname, shape, arg1.shape)
        out = arg1.copy() if isinstance(arg1, COONDArray) else arg1.tostype("coo", idx_dtype)
        if idx_dtype is not None and str(_row(out).dtype) != _sp._dtype(idx_dtype, fname):
            r, c = _cast_ids(fname, numpy.asarray(_row(out)), numpy.asarray(_col(out)), idx_dtype)
            out = _coo(out.shape, out.data, r, c)
        return out if dtype is None else out.astype(dtype)
    if _sp._is_scipy_sparse(arg1):
        _sp._check_shape(fname, shape, arg1.shape)
        m = arg1 if arg1.format == "coo" else arg1.tocoo()
        r, c = _cast_ids(
            fname, _index_array(fname, "row", m.row), _index_array(fname, "col", m.col), idx_dtype
        )
        return _coo(tuple(m.shape), _shared_values(m.data, dtype), r, c)
    got = _sp._exchange.foreign(fname, arg1)  # a torch sparse tensor, a __binsparse__ array
    if got is not None:
        return _sp._exchange.converted(fname, got, "coo", shape, dtype, idx_dtype)
    dims = _sp._shape_tuple(arg1)
    if dims is not None and len(dims) == 2:
        _sp._check_shape(fname, shape, dims)
        return _sp._zeros("coo", dims, dtype, idx_dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], tuple):
        return _from_triplets(fname, arg1, shape, dtype, idx_dtype)
    if isinstance(arg1, tuple):
        raise ValueError(
            f"{fname}: a tuple argument is (data, (row, col)) or (M, N); got {len(arg1)} items"
        )
    dense = _sp._dense(arg1, dtype)
    if len(dense.shape) != 2:
        raise ValueError(f"{fname}: a dense argument must be 2-D, got shape {tuple(dense.shape)}")
    out = _sp._cast(dense, "coo", idx_dtype)
    _sp._check_shape(fname, shape, out.shape)
    return out


def _from_triplets(fname, arg1, shape, dtype, idx_dtype):
    """A COONDArray from scipy's COO form (data, (row, col)): every id checked, shape inferred
    from the largest ids when None; what coo_matrix and csr_matrix's COO form build on."""
    import numpy

    if len(arg1[1]) != 2:
        raise ValueError(
            f"{fname}: the COO form is (data, (row, col)); got {len(arg1[1])} index arrays"
        )
    data, (row, col) = arg1
    r = _index_array(fname, "row", row)
    c = _index_array(fname, "col", col)
    values = _shared_values(data, dtype)
    n = values.shape[0] if values.ndim == 1 else -1
    if values.ndim != 1 or not (len(r) == len(c) == n):
        raise ValueError(
            f"{fname}: data, row and col must be 1-D with one length; got shapes "
            f"{tuple(values.shape)}, {r.shape} and {c.shape}"
        )
    if shape is None:
        if n == 0:
            raise ValueError(f"{fname}: cannot infer the shape from no stored values; pass shape=")
        for name, a in (("row", r), ("col", c)):
            if int(a.min()) < 0:
                j = int(numpy.argmin(a))
                raise ValueError(f"{fname}: {name}[{j}]={int(a[j])} is negative")
        shape = (int(r.max()) + 1, int(c.max()) + 1)
    else:
        shape = _sp._shape_tuple(tuple(shape)) if isinstance(shape, (tuple, list)) else None
        if shape is None or len(shape) != 2:
            raise ValueError(f"{fname}: shape must be a pair of ints, got {shape!r}")
    # The constructor checks again; checked here first, the messages name fname.
    for name, a, bound, what in (("row", r, shape[0], "rows"), ("col", c, shape[1], "columns")):
        if a.size and (int(a.min()) < 0 or int(a.max()) >= bound):
            j = int(numpy.argmin(a)) if int(a.min()) < 0 else int(numpy.argmax(a))
            raise ValueError(f"{fname}: {name}[{j}]={int(a[j])} is out of range for {bound} {what}")
    r, c = _cast_ids(fname, r, c, idx_dtype)
    return _coo(shape, values, r, c)
