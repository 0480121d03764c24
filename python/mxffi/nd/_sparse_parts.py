"""Sparse arrays' parts seen from Python: the format check shared by check_format and
unpickling (numpy only, vectorised, messages naming the position and the values as the C++
constructors' do), unpickling itself, index dtype conversion, copyto across storage types, the
sums over the stored values behind square_sum and norm, and what an in-place operator's result
would be, told before computing it."""

from .._ffi import Device


def _sparse():
    from . import sparse  # imported when called: sparse imports this module

    return sparse


def _coo_mod():
    from . import _sparse_coo  # imported when called: it imports sparse, which imports this

    return _sparse_coo


def _check_parts(fname, stype, shape, data, indices, indptr, full):
    """ValueError naming what is wrong when (data, indices, indptr) do not form a valid stype
    array of shape: lengths and ends always, order and bounds with full (O(nnz)). For coo,
    indices and indptr are the row and column ids."""
    import numpy

    def fail(msg):
        raise ValueError(f"{fname}: {msg}")

    if stype == "coo":
        return _check_coo(fail, shape, data, indices, indptr, full)

    for name, a in (("indices", indices), ("indptr", indptr)):
        if a is None:
            continue
        if a.ndim != 1:
            fail(f"{name} must be 1-D, got shape {a.shape}")
        if a.dtype not in (numpy.int32, numpy.int64):
            fail(f"{name} must be int32 or int64, got {a.dtype}")
    if stype == "row_sparse":
        if len(shape) < 1:
            fail("a row_sparse array has at least one dimension")
        if data.ndim != len(shape) or data.shape[0] != indices.shape[0]:
            fail(
                f"data must have one row of shape {tuple(shape[1:])} per index; got data of shape "
                f"{data.shape} and {indices.shape[0]} indices"
            )
        for i in range(1, len(shape)):
            if data.shape[i] != shape[i]:
                fail(f"data.shape[{i}]={data.shape[i]} must equal shape[{i}]={shape[i]}")
        if not full or indices.size == 0:
            return
        ix = indices.astype(numpy.int64)
        bad = numpy.flatnonzero((ix < 0) | (ix >= shape[0]))
        if bad.size:
            fail(f"indices[{bad[0]}]={ix[bad[0]]} is out of range for {shape[0]} rows")
        bad = numpy.flatnonzero(ix[1:] <= ix[:-1])
        if bad.size:
            j = bad[0] + 1
            fail(
                f"row_sparse indices must be sorted and unique; indices[{j}]={ix[j]} follows "
                f"indices[{j - 1}]={ix[j - 1]}"
            )
        return
    if len(shape) != 2:
        fail(f"a csr array is 2-D, got shape {tuple(shape)}")
    rows, cols = shape
    if indptr is None:
        fail("a csr array needs indptr")
    if indices.dtype != indptr.dtype:
        fail(f"indices ({indices.dtype}) and indptr ({indptr.dtype}) must have the same dtype")
    if data.ndim != 1 or data.shape[0] != indices.shape[0]:
        fail(
            f"data must be 1-D and as long as indices, got shape {data.shape} and "
            f"{indices.shape[0]} indices"
        )
    nnz = indices.shape[0]
    if indptr.shape[0] != rows + 1:
        fail(f"indptr must have rows + 1 = {rows + 1} entries, got {indptr.shape[0]}")
    ip = indptr.astype(numpy.int64)
    if ip[0] != 0:
        fail(f"indptr[0] must be 0, got {ip[0]}")
    if ip[-1] != nnz:
        fail(f"indptr[-1] must equal the number of values {nnz}, got {ip[-1]}")
    if not full:
        return
    bad = numpy.flatnonzero(ip[1:] < ip[:-1])
    if bad.size:
        r = bad[0]
        fail(f"indptr must be non-decreasing; indptr[{r}]={ip[r]} > indptr[{r + 1}]={ip[r + 1]}")
    if nnz == 0:
        return
    ix = indices.astype(numpy.int64)
    row_of = numpy.repeat(numpy.arange(rows), numpy.diff(ip))
    bad = numpy.flatnonzero((ix < 0) | (ix >= cols))
    if bad.size:
        j = bad[0]
        fail(f"indices[{j}]={ix[j]} is out of range for {cols} columns (row {row_of[j]})")
    bad = numpy.flatnonzero((ix[1:] <= ix[:-1]) & (row_of[1:] == row_of[:-1]))
    if bad.size:
        j = bad[0] + 1
        fail(
            f"the column indices of row {row_of[j]} must be sorted and unique; indices[{j}]="
            f"{ix[j]} follows indices[{j - 1}]={ix[j - 1]}"
        )


def _check_coo(fail, shape, data, row, col, full):
    """_check_parts for coo parts: data, row and col of one length, the ids of one integer
    dtype and (with full) in range; any order and repeated pairs are valid."""
    import numpy

    if len(shape) != 2:
        fail(f"a coo array is 2-D, got shape {tuple(shape)}")
    for name, a in (("row", row), ("col", col)):
        if a is None:
            fail(f"a coo array needs {name}")
        if a.ndim != 1:
            fail(f"{name} must be 1-D, got shape {a.shape}")
        if a.dtype not in (numpy.int32, numpy.int64):
            fail(f"{name} must be int32 or int64, got {a.dtype}")
    if row.dtype != col.dtype:
        fail(f"row ({row.dtype}) and col ({col.dtype}) must have the same dtype")
    if data.ndim != 1 or not data.shape[0] == row.shape[0] == col.shape[0]:
        fail(
            f"data, row and col must be 1-D with one length; got shapes {data.shape}, "
            f"{row.shape} and {col.shape}"
        )
    if not full:
        return
    for name, a, bound, what in (("row", row, shape[0], "rows"), ("col", col, shape[1], "columns")):
        bad = numpy.flatnonzero((a < 0) | (a >= bound))
        if bad.size:
            fail(f"{name}[{bad[0]}]={a[bad[0]]} is out of range for {bound} {what}")


def _host_parts(x):
    """numpy copies of x's data, indices and indptr (None for row_sparse; row and col for coo),
    made on the CPU."""
    import numpy

    host = x if x.device.device_type == 1 else x.to("cpu")
    data = numpy.array(host.data)
    if host.stype == "coo":
        return data, numpy.asarray(_coo_mod()._row(host)), numpy.asarray(_coo_mod()._col(host))
    indices = numpy.asarray(host.indices)
    indptr = numpy.asarray(host.indptr) if host.stype == "csr" else None
    return data, indices, indptr


def _index_dtype(x):
    """The dtype name ("int32" or "int64") of a sparse array's index parts."""
    sp = _sparse()
    ids = _coo_mod()._row(x) if x.stype == "coo" else sp._indices(x)
    return str(ids.dtype)


def _rebuild_sparse(stype, shape, dtype, device, data, indices, indptr):
    """Unpickle a sparse array: every field is checked (the parts as check_format(full_check=
    True) checks them) before the array is made; a malformed state is a ValueError or
    TypeError naming the field, never an array a kernel could read out of bounds."""
    sp = _sparse()
    import numpy

    fname = "sparse array unpickling"
    if stype not in ("csr", "row_sparse", "coo"):
        raise ValueError(
            f"{fname}: storage type must be 'csr', 'row_sparse' or 'coo', got {stype!r:.100}"
        )
    if (
        type(shape) is not tuple
        or not 1 <= len(shape) <= 32
        or any(type(d) is not int or d < 0 or d > (1 << 62) for d in shape)
    ):
        raise ValueError(f"{fname}: shape must be a tuple of non-negative ints, got {shape!r:.200}")
    if type(dtype) is not str:
        raise TypeError(f"{fname}: dtype must be a str, got {type(dtype).__name__}")
    dtype = sp._dtype(dtype, fname)
    if (
        type(device) is not tuple
        or len(device) != 2
        or any(type(d) is not int for d in device)
        or device[0] not in (1, 2)
        or device[1] < 0
    ):
        raise ValueError(
            f"{fname}: device must be a (type, id) tuple of ints, the CPU (1) or CUDA (2); got "
            f"{device!r:.200}"
        )
    names = ("data", "row", "col") if stype == "coo" else ("data", "indices", "indptr")
    parts = tuple(zip(names, (data, indices, indptr), strict=True))
    for name, a in parts:
        if a is None and name == "indptr" and stype == "row_sparse":
            continue
        if type(a) is not numpy.ndarray:
            raise TypeError(f"{fname}: {name} must be a numpy array, got {type(a).__name__}")
    if str(data.dtype) != dtype:
        raise ValueError(f"{fname}: data has dtype {data.dtype}, the array {dtype}")
    if stype == "row_sparse" and indptr is not None:
        raise ValueError(f"{fname}: a row_sparse array has no indptr")
    _check_parts(fname, stype, shape, data, indices, indptr, True)
    data = numpy.ascontiguousarray(data)
    if stype == "csr":
        out = sp._csr(
            shape, data, numpy.ascontiguousarray(indices), numpy.ascontiguousarray(indptr)
        )
    elif stype == "coo":
        out = _coo_mod()._coo(
            shape, data, numpy.ascontiguousarray(indices), numpy.ascontiguousarray(indptr)
        )
    else:
        out = sp._rsp(shape, data, numpy.ascontiguousarray(indices))
    return sp._on(out, Device(device[0], device[1]))


def _copy_across(src, dst):
    """src.copyto(dst) where their storage types differ or dst is sparse (MXNet's copyto): src
    converted to dst's storage type (and index dtype), then copied in; dst keeps its storage
    type, dtype and index dtype."""
    sp = _sparse()
    if str(src.dtype) != str(dst.dtype):
        raise TypeError(
            f"ndarray.copyto: dtype mismatch, {src.dtype} into {dst.dtype} (convert with astype "
            "first)"
        )
    if tuple(src.shape) != tuple(dst.shape):
        raise ValueError(
            f"ndarray.copyto: shape mismatch, {tuple(src.shape)} into {tuple(dst.shape)}"
        )
    if not isinstance(dst, sp.BaseSparseNDArray):
        return sp._copyto(sp._cast(src, "default", None), dst)
    itype = _index_dtype(dst)
    converted = _with_index_dtype(sp._cast(src, sp._stype_of(dst), itype), itype, "ndarray.copyto")
    return sp._copyto(converted, dst)


def _with_index_dtype(x, itype, fname):
    """The sparse array x with index dtype itype: x itself when it has it, else a copy whose
    index parts are converted (a ValueError when an index does not fit int32)."""
    sp = _sparse()
    if _index_dtype(x) == itype:
        return x
    import numpy

    data, indices, indptr = _host_parts(x)
    if x.stype == "coo":
        from ._sparse_coo import _cast_ids

        r, c = _cast_ids(fname, indices, indptr, itype)
        return sp._on(_coo_mod()._coo(tuple(x.shape), data, r, c), x.device)
    top = max(int(indices.max(initial=0)), int(indptr[-1]) if indptr is not None else 0)
    if itype == "int32" and top > numpy.iinfo(numpy.int32).max:
        raise ValueError(f"{fname}: index {top} does not fit the destination's int32 indices")
    if x.stype == "csr":
        out = sp._csr(tuple(x.shape), data, indices.astype(itype), indptr.astype(itype))
    else:
        out = sp._rsp(tuple(x.shape), data, indices.astype(itype))
    return sp._on(out, x.device)


def _axis_of(fname, axis, ndim):
    """axis as a tuple of dimensions in range (None: all), or a ValueError naming it."""
    import numbers

    axes = tuple(range(ndim)) if axis is None else axis
    axes = (axes,) if isinstance(axes, numbers.Integral) and not isinstance(axes, bool) else axes
    if not isinstance(axes, tuple) or not all(
        isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in axes
    ):
        raise TypeError(f"{fname}: axis must be None, an int or a tuple of ints, got {axis!r}")
    out = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(
                f"{fname}: axis {a} is out of bounds for an array of {ndim} dimensions"
            )
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{fname}: repeated axis in {axis!r}")
    return tuple(sorted(out))


def _sum_sparse(fname, x, axes, keepdims, square):
    """sum(x ** 2) or sum(|x|) over axes of a sparse x, from its stored values: the values give
    every non-zero term, so an unstored element adds nothing (a dense result)."""
    import mxffi.np as mnp

    sp = _sparse()
    if x.stype == "coo":
        x = x.tostype("csr")  # repeated pairs summed first: they are one element
    values = x.data
    values = mnp.square(values) if square else mnp.absolute(values)
    ndim = len(x.shape)
    if axes == tuple(range(ndim)):
        out = mnp.sum(values)
        return mnp.reshape(out, (1,) * ndim) if keepdims else out
    if x.stype == "csr":
        # the csr kernel of sum (axis 0 or 1), on x's structure with the new values
        terms = sp._csr(
            x.shape, values.to("cpu"), sp._indices(x).to("cpu"), sp._indptr(x).to("cpu")
        )
        out = mnp.sum(sp._on(terms, x.device), axis=axes[0], keepdims=keepdims)
        return out
    if 0 in axes:
        # every stored row adds to the same places: the sum over the stored rows
        return mnp.sum(values, axis=axes, keepdims=keepdims)
    # the other axes of each stored row; unstored rows give 0
    rows = mnp.sum(values, axis=axes, keepdims=keepdims)
    shape = (x.shape[0],) + tuple(rows.shape[1:])
    return sp._rsp(shape, rows.to("cpu"), sp._indices(x).to("cpu")).tostype("default").to(x.device)


# The op an in-place operator computes with: (numpy ufunc, array op, op with a number on the right).
_INPLACE_OPS = {
    "__add__": ("add", "_npi_add", "_npi_add_scalar"),
    "__sub__": ("subtract", "_npi_subtract", "_npi_subtract_scalar"),
    "__mul__": ("multiply", "_npi_multiply", "_npi_multiply_scalar"),
    "__truediv__": ("true_divide", "_npi_true_divide", "_npi_true_divide_scalar"),
    "__floordiv__": ("floor_divide", "_npi_floor_divide", "_npi_floor_divide_scalar"),
    "__mod__": ("remainder", "_npi_remainder", "_npi_remainder_scalar"),
    "__pow__": ("power", "_npi_power", "_npi_power_scalar"),
}


def _compute(self, other, method):
    """self <op> other through NDArray's operator (the work an in-place operator does)."""
    from ..ndarray import NDArray

    return getattr(NDArray, method)(self, other)


def _inplace_outcome(self, other, method):
    """(storage type, dtype name) of self <op> other, found without computing it: the storage
    type from the op's storage inference (what Invoke would dispatch to), the dtype from numpy's
    promotion of empty stand-ins (a number stays weak, NEP 50, as mxffi keeps it). None for
    what cannot be told beforehand (operands of other types, operands that do not broadcast:
    the operation itself then raises its own error)."""
    import numpy

    from .. import ops
    from ..ndarray import NDArray

    ufunc, array_op, scalar_op = _INPLACE_OPS[method]
    if isinstance(other, numpy.generic) and not isinstance(other, numpy.complexfloating):
        other = other.item()  # a numpy scalar is a number to mxffi's operators
    try:
        if isinstance(other, (bool, int, float)):
            _, stypes = ops.dispatch(scalar_op, self, scalar=other)
            proxy = other
        elif isinstance(other, (NDArray, numpy.ndarray)):
            if other.shape != self.shape:
                numpy.broadcast_shapes(self.shape, other.shape)  # else: the op's own error
            _, stypes = ops.dispatch(array_op, self, other)
            proxy = numpy.empty(0, numpy.dtype(str(other.dtype)))
        else:
            return None, None
        have = getattr(numpy, ufunc)(numpy.empty(0, numpy.dtype(str(self.dtype))), proxy).dtype
    except Exception:  # noqa: BLE001 (what inference refuses, the operation reports itself)
        return None, None
    return stypes[0], str(have)
