"""Sparse arrays exchanged with other libraries beyond scipy: torch's sparse CSR and COO
tensors both ways, and the ``__binsparse__`` protocol of the array API's sparse interchange
proposal (data-apis/array-api pull request 912, head 3cc8410 of 2025-04-03, open).

The rule in every direction: the values are shared, not copied, where the layout allows (a 1-D
C-contiguous CPU array of the result's dtype, reached through DLPack; a csr matrix's columns
already sorted and unique within each row); the index arrays are always copied, and checked
after the copy, so ids their owner changes later can never send an mxffi kernel out of bounds.
torch is imported only when an mxffi array is converted to a torch tensor; a torch tensor is
recognised by isinstance against torch.Tensor, once torch is in sys.modules (a tensor cannot
exist before that).
"""

import sys

from .._ffi import Device, get_global_func
from ..ndarray import NDArray, from_dlpack

_csr_sharing = get_global_func("sparse._csr_matrix_sharing")


def _sp():
    from . import sparse  # imported when called: sparse imports this module

    return sparse


def _coo_mod():
    from . import _sparse_coo

    return _sparse_coo


# ---- torch ---------------------------------------------------------------------------------


def torch_of(x):
    """The torch module when x is a torch tensor with a sparse layout, else None."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(x, torch.Tensor):
        return None
    return torch if x.layout is not torch.strided else None


def _torch_values(fname, torch, v):
    """The torch values tensor as an mxffi array sharing its memory (a CPU tensor, contiguous,
    without torch's lazy conjugate or negative bit), else an mxffi copy of it."""
    v = v.detach()
    if v.is_conj():
        v = v.resolve_conj()
    if v.is_neg():
        v = v.resolve_neg()
    if not v.is_contiguous():
        v = v.contiguous()
    try:
        return from_dlpack(v)
    except (TypeError, ValueError, BufferError) as e:
        raise TypeError(
            f"{fname}: the torch tensor's values ({v.dtype}) cannot be read: {e}"
        ) from e


def _torch_index(t):
    """A numpy array of a torch index tensor's ids (on the CPU; shared with a CPU tensor, the
    constructor copies it before checking it)."""
    return t.detach().cpu().contiguous().numpy()


def from_torch(fname, t, torch):
    """A CSRNDArray (a torch.sparse_csr tensor) or COONDArray (torch.sparse_coo, its entries
    in their stored order, coalesced or not) with t's values, on t's device; ValueError for a
    layout, a hybrid or batched tensor, or parts mxffi cannot hold."""
    import mxffi.cuda

    layout = t.layout
    if layout not in (torch.sparse_csr, torch.sparse_coo):
        raise ValueError(
            f"{fname}: torch layout {layout} is not supported; only torch.sparse_csr and "
            "torch.sparse_coo are (convert with t.to_sparse_csr() or t.to_sparse_coo())"
        )
    shape = tuple(int(d) for d in t.shape)
    if t.dense_dim() != 0:
        raise ValueError(
            f"{fname}: a hybrid torch sparse tensor (dense_dim() > 0) is not supported; got "
            f"dense_dim()={t.dense_dim()} for shape {shape}"
        )
    if t.sparse_dim() != 2 or len(shape) != 2:
        what = "batched " if layout is torch.sparse_csr else ""
        raise ValueError(
            f"{fname}: a {what}torch sparse tensor with sparse_dim()={t.sparse_dim()} is not "
            f"supported; mxffi's csr and coo arrays are 2-D, got shape {shape}"
        )
    dev = t.device
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"{fname}: the torch tensor is on {dev}; only cpu and cuda are supported")
    target = None
    if dev.type == "cuda":
        if not mxffi.cuda.is_available():
            raise RuntimeError(
                f"{fname}: the torch tensor is on {dev}, and this mxffi has no CUDA device "
                f"({mxffi.cuda.unavailable_reason()}); move it with t.cpu() first"
            )
        # Sparse arrays are built on the CPU from checked copies, then copied to the device.
        target = Device("cuda", dev.index or 0)
        t = t.cpu()
    sp = _sp()
    if layout is torch.sparse_csr:
        values = _torch_values(fname, torch, t.values())
        crow, col = _torch_index(t.crow_indices()), _torch_index(t.col_indices())
        out = _csr_sharing(shape, values, col, crow, fname)
    else:
        values = _torch_values(fname, torch, t._values())
        ids = _torch_index(t._indices())
        row, col = ids[0], ids[1]
        # checked here first so the message names fname; the constructor checks its copies
        import numpy

        from ._sparse_parts import _check_parts

        # the check reads only the values' length (numpy has no bfloat16 to view them with)
        stand_in = numpy.broadcast_to(numpy.False_, tuple(values.shape))
        _check_parts(fname, "coo", shape, stand_in, row, col, True)
        out = _coo_mod()._coo(shape, values, row, col)
    return out if target is None else sp._on(out, target)


def to_torch(x, layout=None):
    """x as a torch sparse tensor: see BaseSparseNDArray.astorch."""
    import torch

    sp = _sp()
    fname = f"{type(x).__name__}.astorch"
    names = {None: None, "csr": "csr", "coo": "coo", torch.sparse_csr: "csr"}
    names[torch.sparse_coo] = "coo"
    try:
        want = names[layout]
    except (KeyError, TypeError):
        raise ValueError(
            f"{fname}: layout must be None, 'csr', 'coo', torch.sparse_csr or torch.sparse_coo; "
            f"got {layout!r}"
        ) from None
    stype = x.stype
    if stype not in ("csr", "coo", "row_sparse"):
        raise TypeError(f"{fname}: a {stype} array has no torch layout")
    if len(x.shape) != 2:
        raise ValueError(f"{fname}: torch sparse tensors here are 2-D; the shape is {x.shape}")
    if want is None:
        want = "coo" if stype == "coo" else "csr"
    if stype != want:
        x = x.tostype(want)
    size = tuple(int(d) for d in x.shape)
    values = torch.from_dlpack(x.data)  # the array's own values: shared
    if want == "csr":
        crow = torch.from_dlpack(sp._indptr(x))  # copies made for this tensor
        col = torch.from_dlpack(sp._indices(x))
        return torch.sparse_csr_tensor(crow, col, values, size=size, check_invariants=False)
    coo = _coo_mod()
    host = x if x.device.device_type == 1 else x.to("cpu")
    canonical = bool(coo._is_canonical(host))
    # torch's coo indices are int64, one (2, nnz) tensor: always a copy.
    ids = torch.stack([torch.from_dlpack(coo._row(x)), torch.from_dlpack(coo._col(x))])
    return torch.sparse_coo_tensor(
        ids.to(torch.int64),
        values,
        size=size,
        is_coalesced=canonical,
        check_invariants=False,
    )


# ---- what the constructors call ------------------------------------------------------------


def foreign_kind(x):
    """Whether foreign() takes x: a torch sparse tensor, or an array of another library
    offering __binsparse__."""
    tp = type(x)
    return torch_of(x) is not None or (
        not isinstance(x, NDArray)
        and hasattr(tp, "__binsparse__")
        and hasattr(tp, "__binsparse_descriptor__")
    )


def foreign(fname, x):
    """x as an mxffi sparse array (CPU, or x's CUDA device) when it is a torch sparse tensor or
    any other library's array offering __binsparse__, else None (mxffi's own arrays, scipy's,
    dense ones and everything else go the constructors' other ways)."""
    torch = torch_of(x)
    if torch is not None:
        return from_torch(fname, x, torch)
    if foreign_kind(x):
        from ._sparse_binsparse import from_binsparse

        return from_binsparse(x)
    return None


def converted(fname, x, stype, shape, dtype, idx_dtype):
    """A foreign array made by foreign() as a constructor returns it: stype (a conversion when
    it has another; the values stay shared when it has this one), shape= checked, dtype and
    idx_dtype applied when given (each a copy of what it changes)."""
    sp = _sp()
    sp._check_shape(fname, shape, x.shape)
    if x.stype != stype:
        x = x.tostype(stype)
    if idx_dtype is not None:
        itype = sp._dtype(idx_dtype, fname)
        if itype not in ("int32", "int64"):
            raise ValueError(f"{fname}: idx_dtype must be int32 or int64, got {itype}")
        x = _with_index_dtype(fname, x, itype)
    return x if dtype is None or str(x.dtype) == dtype else x.astype(dtype)


def _with_index_dtype(fname, x, itype):
    """x with itype index parts (converted copies, a ValueError for an id past int32), its
    values still shared; x itself when it has them (x: a CPU csr, coo or row_sparse array)."""
    import numpy

    sp = _sp()
    from ._sparse_parts import _index_dtype
    from ._sparse_parts import _with_index_dtype as converted_copy

    if _index_dtype(x) == itype:
        return x
    if x.device.device_type != 1 or x.stype == "row_sparse":
        return converted_copy(x, itype, fname)
    if x.stype == "coo":
        coo = _coo_mod()
        r, c = coo._cast_ids(fname, numpy.asarray(coo._row(x)), numpy.asarray(coo._col(x)), itype)
        return coo._coo(tuple(x.shape), x.data, r, c)
    ix, ip = numpy.asarray(sp._indices(x)), numpy.asarray(sp._indptr(x))
    top = max(int(ip[-1]) if ip.size else 0, int(ix.max(initial=0)))
    if itype == "int32" and top > numpy.iinfo(numpy.int32).max:
        raise ValueError(f"{fname}: index {top} does not fit int32 indices")
    return _csr_sharing(tuple(x.shape), x.data, ix.astype(itype), ip.astype(itype), fname)
