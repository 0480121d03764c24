"""The ``__binsparse__`` protocol of the array API's sparse interchange proposal
(data-apis/array-api pull request 912, head 3cc8410 of 2025-04-03, open; issue 840): a sparse
array describes itself with ``__binsparse_descriptor__()``, a dict holding a parsed binsparse
JSON descriptor (format, shape, number_of_stored_values, data_types, under the "binsparse" key),
and hands over its parts with ``__binsparse__(descriptor=None)``, a dict of DLPack arrays named
as the binsparse specification names them (CSR: pointers_to_1, indices_1, values; COOR:
indices_0, indices_1, values). ``from_binsparse`` takes any object offering both.

mxffi produces CSR (csr arrays, and 2-D row_sparse ones converted) and COOR (coo arrays, made
canonical first when they are not: COOR is sorted by row, then column, with no repeated pair),
and consumes CSR, COOR and COO (the specification's alias of COOR). Every part a producer hands
over is checked against the descriptor and the specification before an array is made.
"""

import numbers

from .._ffi import Device, get_global_func
from ..ndarray import NDArray, from_dlpack

_csr_sharing = get_global_func("sparse._csr_matrix_sharing")

VERSION = "0.1"
# The parts of each format, in the specification's names and order.
_KEYS = {
    "CSR": ("pointers_to_1", "indices_1", "values"),
    "COOR": ("indices_0", "indices_1", "values"),
}
_INDEX_TYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_VALUE_TYPES = _INDEX_TYPES + ("float32", "float64")
# mxffi's dtype name -> the binsparse type of its values.
_TO_BSP = {t: t for t in _VALUE_TYPES}
_TO_BSP.update({"bool": "bint8", "complex64": "complex[float32]", "complex128": "complex[float64]"})


def _sp():
    from . import sparse  # imported when called: sparse imports this module

    return sparse


def _coo_mod():
    from . import _sparse_coo

    return _sparse_coo


# ---- the descriptor ------------------------------------------------------------------------


def _value_type(fname, s):
    """A binsparse value type as (numpy dtype name, iso); ValueError naming s when it is none."""
    iso = isinstance(s, str) and s.startswith("iso[") and s.endswith("]")
    base = s[4:-1] if iso else s
    names = {"bint8": "bool", "complex[float32]": "complex64", "complex[float64]": "complex128"}
    if isinstance(base, str) and base in _VALUE_TYPES:
        return base, iso
    if isinstance(base, str) and base in names:
        return names[base], iso
    raise ValueError(f"{fname}: data_types['values'] is not a binsparse value type: {s!r:.80}")


def check_descriptor(fname, desc):
    """The parsed descriptor as (format, shape, nnz, data_types), format "CSR" or "COOR";
    ValueError for a malformed one, TypeError for a valid one mxffi does not take (another
    format, a structure, a fill value)."""
    if not isinstance(desc, dict):
        raise TypeError(f"{fname}: the descriptor must be a dict, got {type(desc).__name__}")
    b = desc.get("binsparse")
    if not isinstance(b, dict):
        raise ValueError(f"{fname}: the descriptor has no 'binsparse' dict, got {b!r:.80}")
    if b.get("version") != VERSION:
        raise ValueError(
            f"{fname}: binsparse version must be {VERSION!r}, got {b.get('version')!r:.40}"
        )
    fmt = b.get("format")
    if fmt == "COO":
        fmt = "COOR"  # the specification's alias
    if fmt not in _KEYS:
        raise TypeError(
            f"{fname}: binsparse format {fmt!r:.80} is not supported; mxffi takes 'CSR', 'COOR' "
            "and 'COO'"
        )
    for key in ("structure", "fill"):
        if b.get(key) not in (None, False):
            raise TypeError(f"{fname}: binsparse {key!r} {b[key]!r:.40} is not supported")
    shape = b.get("shape")
    if (
        not isinstance(shape, (list, tuple))
        or len(shape) != 2
        or not all(isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in shape)
        or any(d < 0 for d in shape)
    ):
        raise ValueError(
            f"{fname}: binsparse shape must be a list of 2 non-negative ints for {fmt}, got "
            f"{shape!r:.80}"
        )
    nnz = b.get("number_of_stored_values")
    if not isinstance(nnz, numbers.Integral) or isinstance(nnz, bool) or nnz < 0:
        raise ValueError(
            f"{fname}: number_of_stored_values must be a non-negative int, got {nnz!r:.40}"
        )
    types = b.get("data_types")
    if not isinstance(types, dict) or set(types) != set(_KEYS[fmt]):
        got = sorted(types) if isinstance(types, dict) else types
        raise ValueError(
            f"{fname}: data_types of {fmt} must name {list(_KEYS[fmt])}, got {got!r:.120}"
        )
    for key in _KEYS[fmt][:2]:
        if types[key] not in _INDEX_TYPES:
            raise ValueError(
                f"{fname}: data_types[{key!r}] must be an integer type, got {types[key]!r:.40}"
            )
    _value_type(fname, types["values"])
    return fmt, (int(shape[0]), int(shape[1])), int(nnz), dict(types)


def _source():
    import mxffi

    return f"mxffi, version {mxffi.__version__}"


def _exportable(x, fname):
    """x as the array __binsparse__ hands over: csr as it is, coo canonical, row_sparse as csr."""
    stype = x.stype
    if stype == "coo":
        return x if x.has_canonical_format else x.tostype("csr").tostype("coo")
    if stype == "row_sparse":
        if len(x.shape) != 2:
            raise BufferError(
                f"{fname}: binsparse has no format for a {len(x.shape)}-D row_sparse array here; "
                f"the shape is {x.shape}"
            )
        return x.tostype("csr")
    if stype != "csr":
        raise BufferError(f"{fname}: a {stype} array has no binsparse format")
    return x


def _descriptor_of(x, fname):
    dtype = str(x.dtype)
    if dtype not in _TO_BSP:
        raise BufferError(f"{fname}: binsparse has no value type for {dtype} values")
    itype = _sp()._index_dtype(x)
    fmt = "COOR" if x.stype == "coo" else "CSR"
    a, b = _KEYS[fmt][:2]
    return {
        "binsparse": {
            "version": VERSION,
            "format": fmt,
            "shape": [int(d) for d in x.shape],
            "number_of_stored_values": int(x.nnz),
            "data_types": {a: itype, b: itype, "values": _TO_BSP[dtype]},
        },
        "original_source": _source(),
    }


def descriptor(x):
    """x.__binsparse_descriptor__(): see BaseSparseNDArray.__binsparse_descriptor__."""
    fname = f"{type(x).__name__}.__binsparse_descriptor__"
    return _descriptor_of(_exportable(x, fname), fname)


# ---- producing -----------------------------------------------------------------------------


def parts(x, desc=None):
    """x.__binsparse__(descriptor=desc): see BaseSparseNDArray.__binsparse__."""
    import numpy

    fname = f"{type(x).__name__}.__binsparse__"
    sp = _sp()
    y = _exportable(x, fname)
    own = _descriptor_of(y, fname)["binsparse"]
    if desc is None:
        fmt, want = own["format"], own["data_types"]
    else:
        fmt, shape, nnz, want = check_descriptor(fname, desc)
        if list(shape) != own["shape"]:
            raise ValueError(f"{fname}: the descriptor's shape {list(shape)} is not {own['shape']}")
        if nnz != own["number_of_stored_values"]:
            raise ValueError(
                f"{fname}: the descriptor's number_of_stored_values {nnz} is not "
                f"{own['number_of_stored_values']}"
            )
        vtype, iso = _value_type(fname, want["values"])
        if iso:
            raise TypeError(f"{fname}: mxffi does not produce iso values ({want['values']!r})")
        if fmt != own["format"]:
            y = y.tostype("coo" if fmt == "COOR" else "csr")
        if vtype != str(y.dtype):
            y = y.astype(vtype)
    if fmt == "CSR":
        ids = {"pointers_to_1": sp._indptr(y), "indices_1": sp._indices(y)}
    else:
        coo = _coo_mod()
        ids = {"indices_0": coo._row(y), "indices_1": coo._col(y)}
    out = {}
    for key, a in ids.items():  # copies made for the caller
        if str(a.dtype) != want[key]:
            host = numpy.asarray(a.to("cpu") if a.device.device_type != 1 else a)
            info = numpy.iinfo(want[key])
            if host.size and (int(host.max()) > info.max):
                raise ValueError(f"{fname}: {key} holds {int(host.max())}, past {want[key]}")
            a = sp._on(sp._cast(host.astype(want[key]), "default", None), y.device)
        out[key] = a
    values = y.data  # the array's own values, shared
    if str(values.dtype) == "bool":
        values = values.astype("uint8")  # bint8: bytes of 0 and 1
    out["values"] = values
    return out


# ---- consuming -----------------------------------------------------------------------------


def _as_mxffi(fname, key, a):
    """A producer's part as an mxffi dense array sharing its memory (DLPack)."""
    if isinstance(a, NDArray):
        if isinstance(a, _sp().BaseSparseNDArray):
            raise TypeError(f"{fname}: part {key!r} must be a dense array, got a {a.stype} one")
        return a
    if not hasattr(type(a), "__dlpack__"):
        raise TypeError(f"{fname}: part {key!r} must support DLPack, got {type(a).__name__}")
    return from_dlpack(a)


def _host_index(fname, key, a, declared, length):
    """A producer's index part as a 1-D int32 or int64 numpy array, checked against its
    declared type and length."""
    import numpy

    host = a if a.device.device_type == 1 else a.to("cpu")
    ids = numpy.from_dlpack(host)
    if str(ids.dtype) != declared:
        raise ValueError(f"{fname}: {key} is {ids.dtype}, the descriptor says {declared}")
    if ids.ndim != 1 or ids.shape[0] != length:
        raise ValueError(f"{fname}: {key} must be 1-D with {length} entries, got shape {ids.shape}")
    if declared in ("int32", "int64"):
        return ids
    if declared == "uint64" and ids.size and int(ids.max()) > numpy.iinfo(numpy.int64).max:
        j = int(numpy.argmax(ids))
        raise ValueError(f"{fname}: {key}[{j}]={int(ids[j])} does not fit int64")
    return ids.astype(numpy.int64)


def _values(fname, a, vtype, iso, nnz, copy):
    """The values part as an mxffi 1-D array of vtype: shared where it already is one (on the
    CPU, contiguous), else converted; ValueError where copy=False forbids the conversion."""
    import numpy

    if a.ndim != 1 or a.shape[0] != (1 if iso else nnz):
        want = "1 (iso)" if iso else nnz
        raise ValueError(
            f"{fname}: values must be 1-D with {want} entries, got shape {tuple(a.shape)}"
        )
    declared = "uint8" if vtype == "bool" else vtype
    have = str(a.dtype)
    if have != declared and not (vtype == "bool" and have == "bool"):
        raise ValueError(f"{fname}: values are {have}, the descriptor says {declared}")
    shared = not iso and vtype != "bool"
    if not shared or a.device.device_type != 1:
        if copy is False:
            why = "iso values are expanded" if iso else "bint8 values are converted to bool"
            if shared:
                why = f"the values are on {a.device}; sparse arrays are built on the CPU"
            raise ValueError(f"{fname}: copy=False, but {why}")
    if a.device.device_type != 1:
        a = a.to("cpu")
    if iso:
        host = numpy.from_dlpack(a)
        return numpy.full(nnz, host[0], dtype=host.dtype if vtype != "bool" else bool)
    if vtype == "bool":
        host = numpy.from_dlpack(a)
        bad = numpy.flatnonzero(host > 1)
        if bad.size:
            j = int(bad[0])
            raise ValueError(f"{fname}: bint8 values[{j}]={int(host[j])} is neither 0 nor 1")
        return host.astype(bool)
    return a


def _check_coor_order(fname, row, col):
    """COOR entries must be sorted by row, then column, with no repeated pair."""
    import numpy

    if row.size < 2:
        return
    r, c = row.astype(numpy.int64), col.astype(numpy.int64)
    bad = numpy.flatnonzero((r[1:] < r[:-1]) | ((r[1:] == r[:-1]) & (c[1:] <= c[:-1])))
    if bad.size:
        j = int(bad[0]) + 1
        raise ValueError(
            f"{fname}: COOR entries must be sorted by row, then column, with no repeated pair; "
            f"entry {j} ({r[j]}, {c[j]}) follows ({r[j - 1]}, {c[j - 1]})"
        )


def _binsparse_names(msg):
    """A part check's message with the parts named as binsparse names them."""
    import re

    for ours, theirs in (
        ("indptr", "pointers_to_1"),
        ("indices", "indices_1"),
        ("row", "indices_0"),
        ("col", "indices_1"),
    ):
        msg = re.sub(rf"\b{ours}(?=\[)", theirs, msg)
    return msg


def from_binsparse(x, /, *, descriptor=None, device=None, copy=None):
    """A sparse array from any object offering the ``__binsparse__`` protocol (the array API's
    sparse interchange proposal, data-apis/array-api#912 at 3cc8410, 2025-04-03): a CSRNDArray
    for the "CSR" format, a COONDArray for "COOR" (or its alias "COO").

    descriptor (None: the object's ``__binsparse_descriptor__()``) is passed to the object's
    ``__binsparse__`` to ask for that format and those data types. Every part is checked against
    the descriptor and the binsparse specification before the array is made: the data types and
    lengths, pointers_to_1 from 0 to the number of stored values and never decreasing, every
    index in range, CSR columns sorted and unique within each row, COOR entries sorted by row,
    then column, with no repeated pair; a ValueError names the part, the position and the
    values. A format other than CSR/COOR/COO, a "structure" or a "fill" is a TypeError; an
    object without the two methods an AttributeError.

    The values are shared (no copy, through DLPack) when they are 1-D, contiguous and on the
    CPU; copy=True always copies them, copy=False raises ValueError where they cannot be shared
    (iso or bint8 values, another device). The index arrays are always copied, so changing them
    later never reaches the array. device (default: where the values are) places the result."""
    import numpy

    from ._sparse_parts import _check_parts

    fname = "sparse.from_binsparse"
    sp = _sp()
    tp = type(x)
    if not (hasattr(tp, "__binsparse__") and hasattr(tp, "__binsparse_descriptor__")):
        raise AttributeError(
            f"{fname}: {tp.__name__} has no __binsparse__ and __binsparse_descriptor__ methods"
        )
    if copy not in (None, True, False):
        raise TypeError(f"{fname}: copy must be None, True or False, got {copy!r:.40}")
    if descriptor is not None:
        check_descriptor(fname, descriptor)  # ours first: the producer sees only a valid one
        desc = descriptor
        arrays = x.__binsparse__(descriptor=descriptor)
    else:
        desc = x.__binsparse_descriptor__()
        arrays = x.__binsparse__()
    fmt, shape, nnz, types = check_descriptor(fname, desc)
    if not isinstance(arrays, dict):
        raise TypeError(f"{fname}: __binsparse__ must return a dict, got {type(arrays).__name__}")
    if set(arrays) != set(types):
        raise ValueError(
            f"{fname}: __binsparse__ returned parts {sorted(map(str, arrays))!r:.120}; the "
            f"descriptor names {sorted(types)}"
        )
    vtype, iso = _value_type(fname, types["values"])
    parts = {k: _as_mxffi(fname, k, arrays[k]) for k in types}
    src_device = parts["values"].device
    values = _values(fname, parts["values"], vtype, iso, nnz, copy)
    host_values = numpy.from_dlpack(values) if isinstance(values, NDArray) else values
    a, b = _KEYS[fmt][:2]
    first = _host_index(fname, a, parts[a], types[a], shape[0] + 1 if fmt == "CSR" else nnz)
    second = _host_index(fname, b, parts[b], types[b], nnz)
    if first.dtype != second.dtype:  # one dtype for both: int64 where they differ
        first, second = first.astype(numpy.int64), second.astype(numpy.int64)
    try:
        if fmt == "CSR":
            # sorted and unique within each row, as the specification requires: full check
            _check_parts(fname, "csr", shape, host_values, second, first, True)
        else:
            _check_parts(fname, "coo", shape, host_values, first, second, True)
    except ValueError as e:
        raise ValueError(_binsparse_names(str(e))) from None
    if fmt == "CSR":
        out = _csr_sharing(shape, values, second, first, fname)
    else:
        _check_coor_order(fname, first, second)
        out = _coo_mod()._coo(shape, values, first, second)
    if copy and isinstance(values, NDArray) and out.nnz:
        out = out.copy()
    if copy is False and isinstance(values, NDArray) and values.shape[0]:
        if numpy.from_dlpack(out.data).ctypes.data != host_values.ctypes.data:
            raise ValueError(f"{fname}: copy=False, but the values could not be shared")
    if device is None:
        device = src_device
    return sp._on(out, device if isinstance(device, Device) else Device(device))
