"""Sparse arrays: CSRNDArray (compressed sparse rows), RowSparseNDArray (a few stored rows) and
COONDArray (coordinate triplets, as edge lists come).

All are mxffi NDArrays whose storage type is not "default": they go to every mxffi.np function
and op, which dispatch on storage type (a sparse kernel where one exists, else a dense fallback
that warns once per combination). CSR arrays are canonical: constructors sort column indices
within each row and sum duplicates, so kernels never see anything else; a coo array reaches
every op but cast_storage converted to csr. See docs/sparse.md.
"""

import sys

from .._ffi import (
    STORAGE_COO,
    STORAGE_CSR,
    STORAGE_DEFAULT,
    STORAGE_ROW_SPARSE,
    DataType,
    Device,
    get_global_func,
    list_global_func_names,
    register_sparse_class,
)
from ..ndarray import NDArray
from ..registry import _decorate
from . import _sparse_parts
from ._sparse_parts import (
    _axis_of,
    _check_parts,
    _copy_across,  # noqa: F401 (NDArray.copyto imports it from here)
    _host_parts,
    _index_dtype,
    _rebuild_sparse,
    _sum_sparse,
    _with_index_dtype,
)

__all__ = [
    "BaseSparseNDArray",
    "COONDArray",
    "CSRNDArray",
    "RowSparseNDArray",
    "array",
    "cast_storage",
    "coo_matrix",
    "csr_matrix",
    "empty",
    "from_binsparse",
    "norm",
    "row_sparse_array",
    "square_sum",
    "zeros",
]

_csr = get_global_func("sparse._csr_matrix")
_rsp = get_global_func("sparse._row_sparse_array")
_zeros = get_global_func("sparse._zeros")
_cast = get_global_func("sparse._cast_storage")
_data = get_global_func("sparse._data")
_indices = get_global_func("sparse._indices")
_indptr = get_global_func("sparse._indptr")

_STYPE_NAMES = {
    STORAGE_DEFAULT: "default",
    STORAGE_ROW_SPARSE: "row_sparse",
    STORAGE_CSR: "csr",
    STORAGE_COO: "coo",
}
_copyto = get_global_func("ndarray.copyto")


def _stype_code(x):
    import ctypes

    # MXFFINDArrayObj: the 24-byte header, the 48-byte DLTensor, then the storage type.
    return ctypes.c_int32.from_address(x.handle + 72).value


def _stype_of(x):
    code = _stype_code(x)
    # A storage type this build does not know (one added in a later version) is named by value.
    return _STYPE_NAMES.get(code, f"unknown({code})")


class BaseSparseNDArray(NDArray):
    """What CSRNDArray and RowSparseNDArray share: parts, conversion, repr."""

    __slots__ = ()

    @property
    def stype(self):
        """The storage type: "csr", "row_sparse" or "coo"; "unknown(<value>)" for a storage type
        this version of mxffi does not know, which nothing here can read (an opaque sparse
        array)."""
        return _stype_of(self)

    @property
    def data(self):
        """The stored values, sharing memory with this array (writes change its values)."""
        return _data(self)

    @property
    def indices(self):
        """A copy of the indices: csr column ids, row_sparse row ids."""
        return _indices(self)

    @property
    def nnz(self):
        """The number of stored values (csr) or stored rows (row_sparse)."""
        return self.data.shape[0]

    def tostype(self, stype, idx_dtype=None):
        """This array stored as stype ("default", "csr", "row_sparse" or "coo"); always a new
        array."""
        return _cast(self, stype, idx_dtype)

    def asnumpy(self):
        """A dense numpy array with the same values (a copy; made on the CPU)."""
        host = self if self.device.device_type == 1 else self.to("cpu")
        return host.tostype("default").asnumpy()

    def numpy(self):
        return self.asnumpy()

    def __array__(self, dtype=None, copy=None):  # noqa: N807 (numpy's protocol name)
        out = self.asnumpy()
        return out if dtype is None else out.astype(_dtype(dtype, "__array__"))

    def copy(self):
        """A copy with parts of its own."""
        return _cast(self, self.stype, None)

    def item(self):
        """The only element as a Python scalar; ValueError unless the array has one element."""
        return self.asnumpy().item()

    def astype(self, dtype, copy=True):
        """The array with its values converted to dtype, in the same storage type."""
        import numpy

        dtype = _dtype(dtype, f"{type(self).__name__}.astype")
        if not copy and str(self.dtype) == dtype:
            return self
        values = numpy.asarray(self.data).astype(dtype)
        if self.stype == "csr":
            out = _csr(self.shape, values, self.indices.to("cpu"), self.indptr.to("cpu"))
        else:
            out = _rsp(self.shape, values, self.indices.to("cpu"))
        return out if self.device.device_type == 1 else out.to(self.device)

    def todense(self):
        """The dense mxffi array with the same values."""
        return self.tostype("default")

    # ---- MXNet's and scipy's surface: format check, conversions, copies, pickling --------------

    def toarray(self):
        """A dense numpy array with the same values (scipy's name; the same as asnumpy())."""
        return self.asnumpy()

    def tocsr(self):
        """This array as a new CSRNDArray (scipy's name; 2-D arrays only)."""
        return self.tostype("csr")

    def tocoo(self, copy=False):
        """This array as a new COONDArray in canonical form (row-major, no repeated pair;
        scipy's name; 2-D arrays only). copy is scipy's; the result is always new."""
        return self.tostype("coo")

    def check_format(self, full_check=True):
        """Check that the parts form a valid array (MXNet's check_format); None when they do,
        else a ValueError naming what is wrong, with the position and the values.

        The basic check (O(1)) compares the parts' lengths with the shape and each other (csr:
        indptr has rows + 1 entries from 0 to nnz); full_check=True (O(nnz)) also checks that
        indptr never decreases and that every index is in range, sorted and unique (csr: within
        each row). Arrays mxffi makes always pass: their constructors check their parts."""
        fname = f"{type(self).__name__}.check_format"
        if not isinstance(full_check, bool):
            raise TypeError(
                f"{fname}: argument 'full_check' expected a bool, got {type(full_check).__name__}"
            )
        _check_parts(fname, self.stype, self.shape, *_host_parts(self), full_check)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce_ex__(self, protocol):
        """Pickled as its storage type, shape, dtype, device and parts (numpy copies made on
        the CPU); loading checks all of it as check_format(full_check=True) does."""
        stype = self.stype  # an unknown storage type is refused by the part access below
        data, indices, indptr = _host_parts(self)
        dev = self.device
        state = (stype, tuple(self.shape), str(self.dtype), (dev.device_type, dev.device_id))
        return (_rebuild_sparse, state + (data, indices, indptr))

    def __reduce__(self):
        return self.__reduce_ex__(2)

    # ---- assignment and in-place operators ------------------------------------------------------

    def __setitem__(self, key, value):
        """``x[:] = value`` (MXNet's only sparse assignment): value is a sparse array of any
        storage type, a dense mxffi or numpy array (or nested lists), or a scipy.sparse matrix
        of x's shape, converted to x's storage type and dtype; or the number 0, which removes
        every stored value. Any other key, and any other number (which would store every
        element), is a ValueError; x keeps its storage type."""
        import builtins  # this module's globals get a "slice" function from _expose_ops
        import numbers

        fname = f"{type(self).__name__}.__setitem__"
        if not (isinstance(key, builtins.slice) and key == builtins.slice(None)):
            raise ValueError(
                f"{fname}: only x[:] = value is supported for sparse arrays; got key {key!r}"
            )
        if isinstance(value, NDArray) and value.same_as(self):
            return
        if isinstance(value, numbers.Number) and not isinstance(value, bool):
            if value != 0:
                raise ValueError(
                    f"{fname}: assigning the number {value!r} would store every element of the "
                    f"{self.stype} array; make it dense first (x.tostype('default'))"
                )
            value = zeros(self.stype, self.shape, str(self.dtype), device=self.device)
        elif _is_scipy_sparse(value) or _exchange.foreign_kind(value):
            value = csr_matrix(value)
        elif not isinstance(value, NDArray):
            import numpy

            if isinstance(value, (str, bytes, bool)) or value is None:
                raise TypeError(f"{fname}: cannot assign a {type(value).__name__}")
            value = _cast(numpy.asarray(value), "default", None)
        if tuple(value.shape) != tuple(self.shape):
            raise ValueError(
                f"{fname}: the value's shape {tuple(value.shape)} differs from the array's "
                f"{tuple(self.shape)}"
            )
        if str(value.dtype) != str(self.dtype):
            value = value.astype(str(self.dtype))
        itype = _index_dtype(self)
        # x keeps its storage type and index dtype
        _copyto(_with_index_dtype(_cast(value, self.stype, itype), itype, fname), self)

    def _inplace(self, other, op, method):
        """self op= other: the result replaces self's parts when it has self's storage type
        (its dtype cast to self's by numpy's same_kind rule); else a TypeError, self unchanged.
        The refusal comes before any computing: the result's storage type is the one the op's
        storage inference gives for these operands (mxffi.ops.dispatch), its dtype numpy's."""
        fname = f"{type(self).__name__}.__i{method[2:]}"
        stype, dtype = _sparse_parts._inplace_outcome(self, other, method)
        if stype is not None and stype != self.stype:
            self._refuse_inplace(fname, op, other, stype)
        if dtype is not None:
            self._check_inplace_cast(fname, dtype)
        result = _sparse_parts._compute(self, other, method)
        if result is NotImplemented:
            return NotImplemented
        if not isinstance(result, BaseSparseNDArray) or result.stype != self.stype:
            kind = result.stype if isinstance(result, NDArray) else type(result).__name__
            self._refuse_inplace(fname, op, other, kind)
        if str(result.dtype) != str(self.dtype):
            self._check_inplace_cast(fname, str(result.dtype))
            result = result.astype(str(self.dtype))
        _copyto(result, self)
        return self

    def _refuse_inplace(self, fname, op, other, kind):
        kind = "dense" if kind == "default" else kind
        raise TypeError(
            f"{fname}: {self.stype} {op} {_describe(other)} gives a {kind} result; an "
            f"in-place operation keeps the {self.stype} storage type, so write x = x {op} y"
        )

    def _check_inplace_cast(self, fname, have):
        import numpy

        want = numpy.asarray(self.data).dtype
        try:
            have_np = numpy.dtype(have)
        except TypeError:
            return  # a dtype numpy does not know: the result's astype decides
        if not numpy.can_cast(have_np, want, "same_kind"):
            raise TypeError(
                f"{fname}: cannot cast the result from {have} to {self.dtype} "
                "(numpy's same_kind rule for in-place operations)"
            )

    def __iadd__(self, other):
        return self._inplace(other, "+", "__add__")

    def __isub__(self, other):
        return self._inplace(other, "-", "__sub__")

    def __imul__(self, other):
        return self._inplace(other, "*", "__mul__")

    def __itruediv__(self, other):
        return self._inplace(other, "/", "__truediv__")

    def __ifloordiv__(self, other):
        return self._inplace(other, "//", "__floordiv__")

    def __imod__(self, other):
        return self._inplace(other, "%", "__mod__")

    def __ipow__(self, other):
        return self._inplace(other, "**", "__pow__")

    def __imatmul__(self, other):
        raise TypeError(
            f"{type(self).__name__}.__imatmul__: in-place matrix multiplication is not supported; "
            "write x = x @ y"
        )

    # ---- exchange with torch and any library speaking __binsparse__ (docs/sparse.md) ---------

    def astorch(self, layout=None):
        """A torch sparse tensor sharing this array's values (asscipy's counterpart; index
        tensors copied): torch.sparse_csr for csr and 2-D row_sparse arrays, torch.sparse_coo
        for coo ones (coalesced only when canonical); layout ("csr", "coo", torch.sparse_csr,
        torch.sparse_coo) asks for the other, converted first."""
        return _exchange.to_torch(self, layout)

    def __binsparse_descriptor__(self):
        """The binsparse descriptor (array-api#912) of what __binsparse__() hands over: "CSR"
        for csr (and 2-D row_sparse, converted), "COOR" for coo (made canonical first)."""
        from ._sparse_binsparse import descriptor

        return descriptor(self)

    def __binsparse__(self, /, *, descriptor=None):
        """The binsparse parts as mxffi dense arrays: "values" this array's own (shared), the
        index parts copies; descriptor asks for its format and data types (converted)."""
        from ._sparse_binsparse import parts

        return parts(self, descriptor)

    def __dlpack__(self, **kwargs):
        raise TypeError(
            f"{type(self).__name__}.__dlpack__: DLPack has no sparse tensors; convert with "
            "tostype('default') first"
        )

    def __dlpack_device__(self):
        raise TypeError(f"{type(self).__name__}: DLPack has no sparse tensors")

    def tolist(self):
        return self.asnumpy().tolist()

    def __len__(self):
        return self.shape[0]

    def __bool__(self):
        raise ValueError(
            f"The truth value of a {type(self).__name__} with more than one element is ambiguous"
        )

    def __repr__(self):
        shape = "x".join(str(d) for d in self.shape)
        if _stype_code(self) not in _STYPE_NAMES:
            # Nothing to count or show: the parts of an unknown storage type are not read.
            return (
                f"<{type(self).__name__} {shape} dtype={self.dtype} stype={self.stype}, not "
                f"readable by this version of mxffi @{self.device}>"
            )
        return f"<{type(self).__name__} {shape} dtype={self.dtype} nnz={self.nnz} @{self.device}>"

    __str__ = __repr__


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row format: data, indices (column ids), indptr."""

    __slots__ = ()

    @property
    def indptr(self):
        """A copy of the row starts: rows + 1 entries from 0 to nnz."""
        return _indptr(self)

    def __getitem__(self, key):
        """Rows of the matrix, as a new CSRNDArray sharing nothing with this one.

        - ``x[i]`` (an int; negative counts from the end) is row i as a 1 x n CSRNDArray, as
          MXNet returns it; numpy and scipy would drop the row dimension, MXNet keeps the
          result 2-D (csr arrays are always 2-D). An i outside [-rows, rows) is an IndexError.
        - ``x[a:b]`` (step 1 or None) is rows a to b-1, the bounds read as Python reads them:
          negative ones count from the end, out-of-range ones are clamped, so the result may
          have no rows.

        Any other key (a step other than 1, a tuple, an array, a bool) is a TypeError.
        """
        import builtins  # this module's globals get a "slice" function from _expose_ops
        import numbers

        rows = self.shape[0]
        take = get_global_func("sparse.slice")

        def is_int(x):
            return isinstance(x, numbers.Integral) and not isinstance(x, bool)

        if isinstance(key, builtins.slice):
            if key.step not in (None, 1):
                raise TypeError(
                    f"CSRNDArray.__getitem__: only slices with step 1 are supported; got {key!r}"
                )
            for bound in (key.start, key.stop):
                if bound is not None and not is_int(bound):
                    raise TypeError(
                        f"CSRNDArray.__getitem__: slice bounds must be ints or None; got {key!r}"
                    )
            begin, end, _ = key.indices(rows)
            return take(self, begin, max(end, begin))
        if not is_int(key):
            raise TypeError(
                "CSRNDArray.__getitem__: the key must be an int or a slice with step 1; got "
                f"{key!r} of type {type(key).__name__}"
            )
        i = int(key)
        if not -rows <= i < rows:
            raise IndexError(
                f"CSRNDArray.__getitem__: index {i} is out of bounds for axis 0 with size {rows}"
            )
        if i < 0:
            i += rows
        return take(self, i, i + 1)

    # Transposition and the matrix product: ``x.T`` is a new canonical CSRNDArray (not a view);
    # ``x @ y`` is np.matmul's (csr @ csr -> csr, csr @ dense and dense @ csr -> dense).
    @property
    def T(self):  # noqa: N802 (numpy's name)
        """The transpose: a new canonical CSRNDArray of shape (cols, rows), sharing nothing
        with this one (numpy's ``.T`` is a view; a csr array has no view of its transpose)."""
        return get_global_func("sparse._transpose")(self)

    @property
    def mT(self):  # noqa: N802 (the array API's name)
        """The transpose (a csr array is one matrix): the same as ``.T``."""
        return self.T

    def transpose(self, *axes):
        """The array with its axes permuted as np.transpose permutes them: ``transpose()`` and
        ``transpose(1, 0)`` are ``.T``; ``transpose(0, 1)`` is this array (not a copy)."""
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return get_global_func("np.transpose")(self, tuple(axes) if axes else None)

    def asscipy(self):
        """A scipy.sparse.csr_matrix with the same values (copies of the parts)."""
        import numpy
        import scipy.sparse

        return scipy.sparse.csr_matrix(
            (numpy.array(self.data), numpy.asarray(self.indices), numpy.asarray(self.indptr)),
            shape=self.shape,
        )


class RowSparseNDArray(BaseSparseNDArray):
    """An array storing only some of its rows: data (k rows) and indices (k sorted row ids)."""

    __slots__ = ()

    def asscipy(self):
        """A scipy.sparse.csr_matrix with the same values (2-D arrays only)."""
        if len(self.shape) != 2:
            raise ValueError(
                f"RowSparseNDArray.asscipy: scipy.sparse matrices are 2-D; shape is {self.shape}"
            )
        return self.tostype("csr").asscipy()

    def retain(self, indices):
        """A new RowSparseNDArray with only the stored rows whose ids are in indices (MXNet's
        retain, the sparse_retain op); indices are row ids, an mxffi array or a sequence."""
        import numpy

        if not isinstance(indices, NDArray):
            indices = _cast(numpy.asarray(indices, dtype=numpy.int64), "default", None)
        return get_global_func("sparse.sparse_retain")(self, indices)


register_sparse_class(STORAGE_ROW_SPARSE, RowSparseNDArray)
register_sparse_class(STORAGE_CSR, CSRNDArray)
# An array of a storage type this version does not know: sparse, and opaque (never dense).
register_sparse_class(None, BaseSparseNDArray)


def _is_scipy_sparse(x):
    # scipy's own test, when scipy.sparse is imported (without it nothing is a scipy matrix);
    # a class's name proves nothing.
    scipy_sparse = sys.modules.get("scipy.sparse")
    return scipy_sparse is not None and scipy_sparse.issparse(x)


def _index_pair(indices, indptr):
    """numpy copies of indices and indptr with one integer dtype (int64 when they differ)."""
    import numpy

    ix, ip = numpy.asarray(indices), numpy.asarray(indptr)
    for name, a in (("indices", ix), ("indptr", ip)):
        if a.dtype.kind not in "iu":
            raise ValueError(f"csr_matrix: {name} must be integers, got dtype {a.dtype}")
    if ix.dtype != ip.dtype or ix.dtype not in (numpy.int32, numpy.int64):
        ix, ip = ix.astype(numpy.int64), ip.astype(numpy.int64)
    return ix, ip


def _dtype(dtype, fname):
    """dtype as its canonical name ('float32', 'int64', ...), or None: read by mxffi's own parser
    (numpy's would evaluate parts of a string such as '(2,)f8' with ast.literal_eval, and raise
    a SyntaxError for a malformed one); a TypeError naming fname for anything else."""
    if dtype is None:
        return None
    try:
        return str(DataType(dtype))
    except TypeError as e:
        why = str(e).removeprefix("mxffi.DataType: ")
        raise TypeError(f"{fname}: argument 'dtype': {why}") from None


def _values(data, dtype):
    import numpy

    if isinstance(data, NDArray) and dtype is None:
        return data
    out = numpy.asarray(data, dtype=dtype)
    if dtype is None and out.dtype.kind in "iub" and not isinstance(data, numpy.ndarray):
        out = out.astype(numpy.float64)
    return out


def _dense(arg, dtype):
    """arg as a dense array for cast_storage: mxffi arrays as they are, others through numpy."""
    import numpy

    if isinstance(arg, NDArray) and not isinstance(arg, BaseSparseNDArray):
        if dtype is not None and str(arg.dtype) != str(numpy.dtype(dtype)):
            return arg.astype(dtype)
        return arg
    # asarray with order="C", not ascontiguousarray, which makes a 0-d array 1-d.
    return numpy.asarray(arg, dtype=dtype, order="C")


def _on(out, device):
    """out (made on the CPU) on device: itself when that is where it is, else a copy there
    (another CPU id included, as dense arrays keep theirs)."""
    if device is None:
        return out
    if not isinstance(device, Device):
        device = Device(device)
    here = out.device
    if (here.device_type, here.device_id) == (device.device_type, device.device_id):
        return out
    return out.to(device)


def _is_int(d):
    # An int of any kind (Python's, numpy's: numbers.Integral), never a bool.
    import numbers

    return isinstance(d, numbers.Integral) and not isinstance(d, bool)


def _shape_tuple(arg):
    """arg as a shape tuple of Python ints when it is a tuple of ints (numpy's included)."""
    if isinstance(arg, tuple) and arg and all(_is_int(d) for d in arg):
        return tuple(int(d) for d in arg)
    return None


def _check_shape(fname, shape, got):
    """ValueError naming both shapes when shape= is given and differs from the data's."""
    if shape is not None and tuple(int(d) for d in shape) != tuple(got):
        raise ValueError(
            f"{fname}: shape {tuple(int(d) for d in shape)} does not match the data's {tuple(got)}"
        )


def csr_matrix(arg1, shape=None, dtype=None, idx_dtype=None, device=None):
    """A CSRNDArray, as scipy.sparse.csr_matrix takes its arguments, on device (default: the
    CPU; a CUDA device gets a copy of each part of the matrix built on the CPU).

    - ``csr_matrix((data, indices, indptr), shape=(M, N))``: from parts (shape defaults to
      (len(indptr) - 1, max(indices) + 1); with no stored values it must be given); validated,
      copied and made canonical.
    - ``csr_matrix((data, (row, col)), shape=(M, N))``: from COO triplets, duplicates summed
      (shape defaults to (max(row) + 1, max(col) + 1)); coo_matrix's checks, then its
      conversion (sorted and summed in C++).
    - ``csr_matrix(T)`` for a torch.sparse_csr tensor (its values shared when its columns are
      sorted and unique within each row, its index tensors copied and checked) or sparse_coo
      one, or any array offering ``__binsparse__`` (see from_binsparse).
    - ``csr_matrix(S)`` for a scipy.sparse matrix, ``csr_matrix(D)`` for a dense 2-D array
      (numpy, mxffi or nested lists), ``csr_matrix((M, N))`` for an empty one.
    - a CSRNDArray gives a copy; a RowSparseNDArray is converted.

    A shape= that differs from the data's is a ValueError naming both. idx_dtype (int32 or
    int64) sets the index dtype of a matrix made from dense values (default int64) or from COO
    triplets (default: the ids' own when row and col agree on int32 or int64); parts keep
    theirs.
    """
    return _on(_csr_matrix(arg1, shape, _dtype(dtype, "csr_matrix"), idx_dtype), device)


def _csr_matrix(arg1, shape, dtype, idx_dtype):
    fname = "csr_matrix"
    if isinstance(arg1, BaseSparseNDArray):
        _check_shape(fname, shape, arg1.shape)
        out = arg1.tostype("csr")
        return out if dtype is None else out.astype(dtype)
    if _is_scipy_sparse(arg1):
        _check_shape(fname, shape, arg1.shape)
        m = arg1.tocsr()
        data = m.data if dtype is None else m.data.astype(dtype)
        ix, ip = _index_pair(m.indices, m.indptr)
        return _csr(tuple(m.shape), data, ix, ip)
    got = _exchange.foreign(fname, arg1)
    if got is not None:
        return _exchange.converted(fname, got, "csr", shape, dtype, idx_dtype)
    dims = _shape_tuple(arg1)
    if dims is not None and len(dims) == 2:
        _check_shape(fname, shape, dims)
        return _zeros("csr", dims, dtype, idx_dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], tuple):
        # a coo array first: sorted and summed in C++ by the conversion
        return _from_triplets(fname, arg1, shape, dtype, idx_dtype).tostype("csr")
    if isinstance(arg1, tuple) and len(arg1) == 3:
        data, indices, indptr = arg1
        ix, ip = _index_pair(indices, indptr)
        if shape is None:
            if ix.size == 0:
                raise ValueError(
                    f"{fname}: cannot infer the number of columns from no stored values; "
                    "pass shape="
                )
            shape = (len(ip) - 1, int(ix.max()) + 1)
        return _csr(tuple(int(d) for d in shape), _values(data, dtype), ix, ip)
    if isinstance(arg1, tuple):
        raise ValueError(
            f"csr_matrix: a tuple argument is (data, indices, indptr), (data, (row, col)) or "
            f"(M, N); got {len(arg1)} items"
        )
    dense = _dense(arg1, dtype)
    if len(dense.shape) != 2:
        raise ValueError(f"csr_matrix: a dense argument must be 2-D, got shape {dense.shape}")
    out = _cast(dense, "csr", idx_dtype)
    if shape is not None and tuple(shape) != tuple(out.shape):
        raise ValueError(f"csr_matrix: shape {tuple(shape)} does not match the data's {out.shape}")
    return out


def row_sparse_array(arg1, shape=None, dtype=None, idx_dtype=None, device=None):
    """A RowSparseNDArray, on device (default: the CPU; a CUDA device gets a copy of each
    part of the array built on the CPU).

    - ``row_sparse_array((data, indices), shape=(D0, D1, ...))``: data holds the rows named by
      indices, which must be sorted and unique; validated and copied. shape defaults to
      (max(indices) + 1,) + data.shape[1:].
    - ``row_sparse_array(D)`` for a dense array (rows with a non-zero are kept),
      ``row_sparse_array((D0, D1, ...))`` of ints for an empty one.
    """
    dtype = _dtype(dtype, "row_sparse_array")
    return _on(_row_sparse_array(arg1, shape, dtype, idx_dtype), device)


def _row_sparse_array(arg1, shape, dtype, idx_dtype):
    import numpy

    fname = "row_sparse_array"
    if isinstance(arg1, BaseSparseNDArray):
        _check_shape(fname, shape, arg1.shape)
        out = arg1.tostype("row_sparse")
        return out if dtype is None else out.astype(dtype)
    if _is_scipy_sparse(arg1):
        _check_shape(fname, shape, arg1.shape)
        return _cast(_dense(arg1.toarray(), dtype), "row_sparse", idx_dtype)
    got = _exchange.foreign(fname, arg1)
    if got is not None:
        return _exchange.converted(fname, got, "row_sparse", shape, dtype, idx_dtype)
    dims = _shape_tuple(arg1)
    if dims is not None:
        _check_shape(fname, shape, dims)
        return _zeros("row_sparse", dims, dtype, idx_dtype)
    if isinstance(arg1, tuple) and len(arg1) == 2:
        data, indices = arg1
        data = _values(data, dtype)
        ix = numpy.asarray(indices)
        if ix.dtype.kind not in "iu":
            raise ValueError(f"row_sparse_array: indices must be integers, got dtype {ix.dtype}")
        if ix.dtype not in (numpy.int32, numpy.int64):
            ix = ix.astype(numpy.int64)
        if shape is None:
            if ix.size == 0:
                raise ValueError(
                    f"{fname}: cannot infer the number of rows from no stored rows; pass shape="
                )
            shape = (int(ix.max()) + 1,) + tuple(data.shape[1:])
        return _rsp(tuple(int(d) for d in shape), data, ix)
    if isinstance(arg1, tuple):
        raise ValueError(
            f"row_sparse_array: a tuple argument is (data, indices) or a shape; got {arg1!r}"
        )
    dense = _dense(arg1, dtype)
    out = _cast(dense, "row_sparse", idx_dtype)
    if shape is not None and tuple(shape) != tuple(out.shape):
        raise ValueError(
            f"row_sparse_array: shape {tuple(shape)} does not match the data's {out.shape}"
        )
    return out


def zeros(stype, shape, dtype=None, idx_dtype=None, device=None):
    """An all-zero sparse array ("csr", "row_sparse" or "coo") with no stored values, on device."""
    shape = (int(shape),) if _is_int(shape) else tuple(shape)
    return _on(_zeros(stype, shape, dtype, idx_dtype), device)


def empty(stype, shape, dtype=None, device=None):
    """An empty sparse array ("csr", "row_sparse" or "coo") of shape: no stored values, so all
    zeros (MXNet's sparse.empty; the same as zeros)."""
    if stype not in ("csr", "row_sparse", "coo"):
        raise ValueError(f"sparse.empty: stype must be 'csr', 'row_sparse' or 'coo', got {stype!r}")
    return zeros(stype, shape, dtype, device=device)


def array(source, device=None, dtype=None):
    """A sparse array from source (MXNet's sparse.array): a CSRNDArray or RowSparseNDArray (a
    copy, of its storage type) or a scipy.sparse matrix or array (a CSRNDArray, canonical), with
    source's dtype unless dtype is given, on device (default: the source's, or the CPU).
    A torch sparse_csr or sparse_coo tensor, or any array offering ``__binsparse__`` (the array
    API's asarray rule for the sparse interchange), gives a CSRNDArray or COONDArray by its own
    format, sharing its values as csr_matrix and coo_matrix do.

    A dense source (numpy, mxffi.np) is a ValueError, as in MXNet: make dense arrays with
    mxffi.np.array, and sparse ones from dense values with csr_matrix / row_sparse_array or
    tostype."""
    dtype = _dtype(dtype, "sparse.array")
    if isinstance(source, BaseSparseNDArray):
        out = source.copy() if dtype is None else source.astype(dtype)
        return _on(out, device)
    if _is_scipy_sparse(source):
        return csr_matrix(source, dtype=dtype, device=device)
    got = _exchange.foreign("sparse.array", source)
    if got is not None:
        # torch's and __binsparse__ arrays keep their own format (csr or coo)
        return _on(_exchange.converted("sparse.array", got, got.stype, None, dtype, None), device)
    if isinstance(source, NDArray) or type(source).__module__ == "numpy":
        raise ValueError(
            f"sparse.array: source is a dense {type(source).__name__}; use mxffi.np.array for a "
            "dense array, or csr_matrix / row_sparse_array / tostype for a sparse one"
        )
    raise TypeError(
        "sparse.array: source must be a sparse mxffi array or another library's (a scipy.sparse "
        "matrix, a torch sparse tensor, an array offering __binsparse__); got "
        f"{type(source).__name__}"
    )


def _describe(x):
    """A short name of an operand for messages: its storage type, or its Python type."""
    return x.stype if isinstance(x, NDArray) else type(x).__name__


def square_sum(data, axis=None, keepdims=False):
    """The sum of the squares of data's elements over axis (None: all; an int or a tuple), a
    dense array, computed from the stored values only (MXNet's _square_sum)."""
    fname = "sparse.square_sum"
    if not isinstance(data, BaseSparseNDArray):
        raise TypeError(f"{fname}: data must be a sparse array, got {type(data).__name__}")
    axes = _axis_of(fname, axis, len(data.shape))
    return _sum_sparse(fname, data, axes, bool(keepdims), True)


def norm(data, ord=2, axis=None, keepdims=False):  # noqa: A002 (numpy's and MXNet's name)
    """MXNet's norm of a sparse array: ord=2 is the square root of the sum of squares (the
    Frobenius norm over all elements), ord=1 the sum of absolute values, over axis (None: all
    elements; an int or a tuple); a dense array, computed from the stored values only."""
    import mxffi.np as mnp

    fname = "sparse.norm"
    if not isinstance(data, BaseSparseNDArray):
        raise TypeError(f"{fname}: data must be a sparse array, got {type(data).__name__}")
    if ord not in (1, 2) or isinstance(ord, bool):
        raise ValueError(f"{fname}: ord must be 1 or 2 (MXNet's), got {ord!r}")
    axes = _axis_of(fname, axis, len(data.shape))
    out = _sum_sparse(fname, data, axes, bool(keepdims), ord == 2)
    return mnp.sqrt(out) if ord == 2 else out


def cast_storage(data, stype, idx_dtype=None):
    """data stored as stype ("default", "csr", "row_sparse" or "coo"); always a new array."""
    return _cast(data, stype, idx_dtype)


# The optimizer steps: wrappers returning the weight (in place), ahead of _expose_ops.
from ._sparse_optim import (  # noqa: E402
    adagrad_update,
    adam_update,
    ftrl_update,
    sgd_mom_update,
    sgd_update,
)

__all__ += ["adagrad_update", "adam_update", "ftrl_update", "sgd_mom_update", "sgd_update"]


def _expose_ops():
    """Every public "sparse.<name>" global (dot, sparse_retain, ...) as a function here; the
    "sparse._<name>" ones are the parts the Python functions above are built on."""
    module = sys.modules[__name__]
    for full in list_global_func_names():
        if not full.startswith("sparse.") or "." in full[7:] or full[7:].startswith("_"):
            continue
        name = full[7:]
        if not hasattr(module, name):
            setattr(module, name, _decorate(get_global_func(full), full, __name__))
            __all__.append(name)


_expose_ops()


_spmm = get_global_func("sparse._spmm")


def spmm(adj, x, reduce="sum"):
    """out[i] = reduce over row i's stored entries j of adj[i, j] * x[j]: message passing with
    csr adj's rows as destination nodes and columns as sources. reduce: "sum", "mean", "max" or
    "min"; max and min return a tuple (values, arg), arg the int64 position in adj's stored
    entries (the edge id) of each chosen product, -1 for an empty row (whose values are 0).
    See ``help(mxffi.get_global_func("sparse._spmm"))`` and docs/sparse.md."""
    out = tuple(_spmm(adj, x, reduce))
    return out[0] if len(out) == 1 else out


__all__.append("spmm")

# COONDArray subclasses BaseSparseNDArray and builds on this module's helpers; the exchange
# beyond scipy: torch tensors (_sparse_exchange.py) and __binsparse__ (_sparse_binsparse.py).
from . import _sparse_exchange as _exchange  # noqa: E402
from ._sparse_binsparse import from_binsparse  # noqa: E402
from ._sparse_coo import COONDArray, _from_triplets, coo_matrix  # noqa: E402, F401
