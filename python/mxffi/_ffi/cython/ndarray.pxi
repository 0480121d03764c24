# mxffi.NDArray: the array type. Its attributes read the frozen layout (c_api.h,
# MXFFINDArrayObj) in C; its operators and methods are direct calls of the np.* functions; basic
# indexing makes views here, advanced indexing goes to the indexing ops (index.pxi).
#
# Instances are made by the vectorcall return path with Object's tp_new, so this type has no
# cdef methods (Object's vtable would be used) and no object fields (they would be left NULL):
# only C fields, which tp_alloc zeroes.

from cpython.tuple cimport PyTuple_New, PyTuple_SET_ITEM
from cpython.long cimport PyLong_FromLongLong

cdef extern from "Python.h":
    int PySlice_Unpack(object slice, Py_ssize_t* start, Py_ssize_t* stop,
                       Py_ssize_t* step) except -1
    Py_ssize_t PySlice_AdjustIndices(Py_ssize_t length, Py_ssize_t* start, Py_ssize_t* stop,
                                     Py_ssize_t step)
    object PyCapsule_New(void* pointer, const char* name, void* destructor)
    int PyCapsule_SetName(object capsule, const char* name) except -1
    void* PyCapsule_GetPointer_raw "PyCapsule_GetPointer"(PyObject* capsule, const char* name)
    int PyCapsule_IsValid_raw "PyCapsule_IsValid"(PyObject* capsule, const char* name)
    unsigned long long PyLong_AsUnsignedLongLong(object v) except? <unsigned long long>-1

# The most dimensions an array may have here (ndarray.view's limit as well).
cdef enum:
    _MAX_DIMS = 64

# ndarray.view and ndarray.assign; set by _init_ndarray.
cdef Function _F_VIEW = None
cdef Function _F_ASSIGN = None
cdef Function _F_READ_ONLY = None
cdef Function _F_TO_DLPACK = None
cdef Function _F_TO_DEVICE = None
cdef Function _F_COPYTO = None
cdef Function _F_BASE = None

# DataType and Device objects by their fields, made once: a.dtype and a.device are a lookup.
# (The DataType table is ndarray_attrs.h's mxffi_nd_dtype_slots, which new arrays read too.)
cdef PyObject* _DEVICE_SLOTS[128]


cdef object _dtype_object(DLDataType t):
    cdef int s = MXFFIPyNDDtypeSlot(t)
    cdef PyObject* hit
    if s >= 0:
        hit = mxffi_nd_dtype_slots[s]
        if hit != NULL:
            return <object>hit
    d = _make_dtype(t)
    if s >= 0:
        Py_INCREF(d)
        mxffi_nd_dtype_slots[s] = <PyObject*>d
    return d


cdef object _device_object(DLDevice dev):
    cdef int s = -1
    cdef PyObject* hit
    if 0 <= dev.device_type < 16 and 0 <= dev.device_id < 8:
        s = dev.device_type * 8 + dev.device_id
        hit = _DEVICE_SLOTS[s]
        if hit != NULL:
            return <object>hit
    d = _make_device(dev)
    if s >= 0:
        Py_INCREF(d)
        _DEVICE_SLOTS[s] = <PyObject*>d
    return d


cdef int _bad_handle(obj) except -1:
    cdef MXFFIObject* h = <MXFFIObject*>(<Object>obj).chandle
    if h == NULL:
        raise ValueError(f"{type(obj).__name__}: the array handle is NULL (an array made "
                         "without mxffi, or moved from)")
    raise TypeError(f"{type(obj).__name__}: the handle is a {_type_index_to_key(h.type_index)}, "
                    "not an mxffi.NDArray")


cdef inline DLTensor* _tensor(obj) except NULL:
    """The DLTensor of an NDArray, after checking that it has a handle. A handle is always an
    mxffi.NDArray's: mxffi.register_object gives NDArrays only to this type and its subclasses,
    and them only NDArrays; the rest is C (Object.__new__ leaves the handle NULL)."""
    cdef MXFFIObject* h = <MXFFIObject*>(<Object>obj).chandle
    if h == NULL:
        _bad_handle(obj)
    return &(<MXFFINDArrayObj*>h).tensor


cdef inline int32_t _stype(obj) noexcept:
    return (<MXFFINDArrayObj*>(<Object>obj).chandle).stype


cdef inline int64_t _itemsize(DLTensor* t) noexcept:
    return (<int64_t>t.dtype.bits * t.dtype.lanes + 7) // 8


cdef inline void _elem_strides(DLTensor* t, int64_t* out) noexcept:
    """t's strides in elements (what NULL strides mean: C-contiguous)."""
    cdef int i
    cdef int64_t acc = 1
    if t.strides != NULL:
        for i in range(t.ndim):
            out[i] = t.strides[i]
        return
    for i in range(t.ndim - 1, -1, -1):
        out[i] = acc
        acc *= t.shape[i] if t.shape[i] > 1 else 1


cdef inline int64_t _size(DLTensor* t) noexcept:
    cdef int64_t n = 1
    cdef int i
    for i in range(t.ndim):
        n *= t.shape[i]
    return n


cdef tuple _int_tuple(const int64_t* values, int n, int64_t scale):
    cdef tuple out = PyTuple_New(n)
    cdef int i
    for i in range(n):
        v = PyLong_FromLongLong(values[i] * scale)
        Py_INCREF(v)
        PyTuple_SET_ITEM(out, i, v)
    return out


cdef int _check_dense(obj, str what) except -1:
    if _stype(obj) != kMXFFIStorageDefault:
        raise TypeError(f"mxffi.NDArray.{what}: the array is sparse ({obj.stype}); convert it "
                        "with tostype('default') first")
    return 0


cdef object _make_view(obj, int64_t offset, int ndim, const int64_t* shape,
                       const int64_t* strides):
    """ndarray.view(obj, offset, *shape, *strides): one call, no Python objects made for it."""
    cdef MXFFIAny args[2 + 2 * _MAX_DIMS]
    cdef MXFFIAny result
    cdef int i
    if ndim > _MAX_DIMS:
        raise IndexError(f"mxffi.NDArray: the result would have {ndim} dimensions; at most "
                         f"{_MAX_DIMS} are supported")
    args[0].type_index = kMXFFINDArray
    args[0].small_len = 0
    args[0].v_obj = <MXFFIObject*>(<Object>obj).chandle
    args[1].type_index = kMXFFIInt
    args[1].small_len = 0
    args[1].v_int64 = offset
    for i in range(ndim):
        args[2 + i].type_index = kMXFFIInt
        args[2 + i].small_len = 0
        args[2 + i].v_int64 = shape[i]
        args[2 + ndim + i].type_index = kMXFFIInt
        args[2 + ndim + i].small_len = 0
        args[2 + ndim + i].v_int64 = strides[i]
    result.type_index = kMXFFINone
    result.small_len = 0
    if MXFFIFuncCall(_F_VIEW.chandle, args, 2 + 2 * ndim, &result) != 0:
        _raise_last_error(_F_VIEW)
    return MXFFIPyReturn(<PyObject*>_F_VIEW, &result)


cdef object _permuted(obj, DLTensor* t, const int* perm):
    """A view of obj with its axes in the order perm."""
    cdef int64_t st[_MAX_DIMS]
    cdef int64_t shape[_MAX_DIMS]
    cdef int64_t strides[_MAX_DIMS]
    cdef int i
    _elem_strides(t, st)
    for i in range(t.ndim):
        shape[i] = t.shape[perm[i]]
        strides[i] = st[perm[i]]
    return _make_view(obj, 0, t.ndim, shape, strides)


# ---- basic indexing -------------------------------------------------------------------------

cdef int64_t _index_value(item, int axis, int64_t n) except? -1:
    """An integer index for an axis of size n, negative counted from the end; numpy's
    IndexError when outside."""
    cdef int overflow = 0
    cdef long long v
    if type(item) is not int:
        item = item.__index__()
    v = PyLong_AsLongLongAndOverflow(item, &overflow)
    if overflow != 0:
        raise IndexError(f"cannot fit '{type(item).__name__}' into an index-sized integer")
    if v < -n or v >= n:
        raise IndexError(f"index {v} is out of bounds for axis {axis} with size {n}")
    return v + n if v < 0 else v


cdef inline bint _is_basic_int(item):
    tp = type(item)
    if tp is int:
        return True
    if tp is bool or tp is NDArray or isinstance(item, NDArray):
        return False
    if _np_ndarray_type is not None and isinstance(item, _np_ndarray_type):
        return False
    if _np_bool_type is not None and tp is _np_bool_type:
        return False
    return hasattr(tp, "__index__")


cdef inline bint _is_advanced(item):
    """Whether item is an advanced index: an integer or boolean array (mxffi, numpy, a list or
    any sequence), or a Python or numpy bool."""
    tp = type(item)
    if tp is int or tp is slice or item is None or item is Ellipsis:
        return False
    if tp is bool:
        return True
    if isinstance(item, NDArray) or tp is list:
        return True
    _note_numpy()
    if _np_ndarray_type is not None and (isinstance(item, _np_ndarray_type) or
                                          tp is _np_bool_type):
        return True
    if hasattr(tp, "__index__"):
        return False
    if tp is tuple or hasattr(tp, "__dlpack__") or hasattr(tp, "__array__"):
        return True
    return False


cdef object _bad_index(item):
    raise IndexError(
        "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
        f"boolean arrays are valid indices; got {type(item).__name__}")


cdef int _basic_params(DLTensor* t, tuple items, int64_t* offset_out, int64_t* shape,
                       int64_t* strides) except -1:
    """The view of t for a key of ints, slices, None and at most one Ellipsis: its element
    offset, shape and strides; returns its number of dimensions."""
    cdef int64_t st[_MAX_DIMS]
    cdef int64_t offset = 0, n, idx
    cdef Py_ssize_t start, stop, step, length
    cdef int in_dim = 0, out_dim = 0, consumed = 0, i, k, fill
    cdef bint seen_ellipsis = False
    _elem_strides(t, st)
    for item in items:
        if item is None:
            continue
        if item is Ellipsis:
            if seen_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen_ellipsis = True
            continue
        consumed += 1
    if consumed > t.ndim:
        raise IndexError(f"too many indices for array: array is {t.ndim}-dimensional, but "
                         f"{consumed} were indexed")
    for item in items:
        if out_dim >= _MAX_DIMS:
            raise IndexError(f"mxffi.NDArray: the result would have more than {_MAX_DIMS} "
                             "dimensions")
        if type(item) is slice:
            n = t.shape[in_dim]
            PySlice_Unpack(item, &start, &stop, &step)
            length = PySlice_AdjustIndices(n, &start, &stop, step)
            if length > 0:
                offset += start * st[in_dim]
            shape[out_dim] = length
            strides[out_dim] = st[in_dim] * step
            in_dim += 1
            out_dim += 1
        elif item is None:
            shape[out_dim] = 1
            strides[out_dim] = 0
            out_dim += 1
        elif item is Ellipsis:
            fill = t.ndim - consumed
            if out_dim + fill > _MAX_DIMS:
                raise IndexError(f"mxffi.NDArray: the result would have more than {_MAX_DIMS} "
                                 "dimensions")
            for k in range(fill):
                shape[out_dim] = t.shape[in_dim]
                strides[out_dim] = st[in_dim]
                in_dim += 1
                out_dim += 1
        else:
            idx = _index_value(item, in_dim, t.shape[in_dim])
            offset += idx * st[in_dim]
            in_dim += 1
    if out_dim + t.ndim - in_dim > _MAX_DIMS:
        raise IndexError(f"mxffi.NDArray: the result would have more than {_MAX_DIMS} "
                         "dimensions")
    for i in range(in_dim, t.ndim):
        shape[out_dim] = t.shape[i]
        strides[out_dim] = st[i]
        out_dim += 1
    offset_out[0] = offset
    return out_dim


cdef object _basic_view(obj, DLTensor* t, tuple items):
    """The view of obj for a key of ints, slices, None and at most one Ellipsis."""
    cdef int64_t shape[_MAX_DIMS]
    cdef int64_t strides[_MAX_DIMS]
    cdef int64_t offset = 0
    cdef int ndim = _basic_params(t, items, &offset, shape, strides)
    return _make_view(obj, offset, ndim, shape, strides)


cdef object _slice_view(obj, DLTensor* t, key):
    """obj[start:stop:step]: the first axis sliced (a view)."""
    cdef int64_t st[_MAX_DIMS]
    cdef int64_t shape[_MAX_DIMS]
    cdef Py_ssize_t start, stop, step, length
    _elem_strides(t, st)
    PySlice_Unpack(key, &start, &stop, &step)
    length = PySlice_AdjustIndices(t.shape[0], &start, &stop, step)
    shape[0] = length
    memcpy(shape + 1, t.shape + 1, (t.ndim - 1) * sizeof(int64_t))
    cdef int64_t offset = start * st[0] if length > 0 else 0
    st[0] *= step
    return _make_view(obj, offset, t.ndim, shape, st)


cdef object _getitem(obj, key):
    cdef DLTensor* t = _tensor(obj)
    cdef int64_t st[_MAX_DIMS]
    cdef int64_t idx
    _check_dense(obj, "__getitem__")
    if type(key) is int:
        if t.ndim == 0:
            raise IndexError("too many indices for array: array is 0-dimensional, but 1 were "
                             "indexed")
        idx = _index_value(key, 0, t.shape[0])
        _elem_strides(t, st)
        return _make_view(obj, idx * st[0], t.ndim - 1, t.shape + 1, st + 1)
    if type(key) is slice and t.ndim > 0:
        return _slice_view(obj, t, key)
    items = key if type(key) is tuple else (key,)
    for item in items:
        if type(item) is slice or type(item) is int or item is None or item is Ellipsis:
            continue
        if _is_advanced(item):
            return _advanced_getitem(obj, items)
        if not _is_basic_int(item):
            _bad_index(item)
    return _basic_view(obj, t, items)


cdef int _setitem(obj, key, value) except -1:
    cdef DLTensor* t = _tensor(obj)
    cdef int64_t shape[_MAX_DIMS]
    cdef int64_t strides[_MAX_DIMS]
    cdef int64_t offset = 0
    cdef int ndim
    _check_dense(obj, "__setitem__")
    tp = type(value)
    if tp is float or tp is int:
        value = _stored_number(t, value)
    items = key if type(key) is tuple else (key,)
    for item in items:
        if type(item) is slice or type(item) is int or item is None or item is Ellipsis:
            continue
        if _is_advanced(item):
            _advanced_setitem(obj, items, value)
            return 0
        if not _is_basic_int(item):
            _bad_index(item)
    ndim = _basic_params(t, items, &offset, shape, strides)
    if not _writable(obj):
        raise ValueError("assignment destination is read-only")
    tp = type(value)
    if (tp is float or tp is int or tp is bool) and t.device.device_type == 1:
        if _fill_scalar(t, offset, ndim, shape, strides, value):
            return 0
    if ndim == t.ndim and offset == 0 and _same_layout(t, shape, strides):
        if value is obj:
            return 0
        dst = obj
    else:
        dst = _make_view(obj, offset, ndim, shape, strides)
    _F_ASSIGN(dst, value)
    return 0


cdef object _stored_number(DLTensor* t, value):
    """The Python int or float value as item assignment into t's dtype reads it, numpy's way: a
    float stored into an integer type goes through int() (NaN is a ValueError, infinity an
    OverflowError) and must then fit; an int beyond int64 stored into a floating type becomes a
    float, and one into uint64 a 0-d uint64 array, since calls carry integers as int64."""
    cdef uint8_t code = t.dtype.code
    cdef int overflow = 0
    cdef unsigned long long u
    if code == 0 or code == 1:
        if type(value) is float:
            value = int(value)
        PyLong_AsLongLongAndOverflow(value, &overflow)
        if overflow == 0:
            return value
        if code == 1 and t.dtype.bits == 64 and t.dtype.lanes == 1 and overflow > 0 and \
                value.bit_length() <= 64:
            u = PyLong_AsUnsignedLongLong(value)
            out = _F_EMPTY((), _dtype_object(t.dtype), _make_device_cpu())
            (<uint64_t*>(<char*>_tensor(out).data + _tensor(out).byte_offset))[0] = u
            return out if t.device.device_type == 1 else _F_TO_DEVICE(out, _device_object(t.device))
        raise OverflowError(f"Python integer {value} out of bounds for {_dtype_name(t.dtype)}")
    if (code == 2 or code == 4) and type(value) is int:
        PyLong_AsLongLongAndOverflow(value, &overflow)
        if overflow != 0:
            return float(value)  # OverflowError past the float range, as numpy
    return value


cdef bint _same_layout(DLTensor* t, const int64_t* shape, const int64_t* strides) noexcept:
    cdef int64_t st[_MAX_DIMS]
    cdef int i
    _elem_strides(t, st)
    for i in range(t.ndim):
        if shape[i] != t.shape[i] or strides[i] != st[i]:
            return False
    return True


# The most elements item assignment of a Python number writes here, without a call; more go to
# ndarray.assign's kernels.
cdef enum:
    _FILL_IN_PLACE_MAX = 256


cdef bint _fill_scalar(DLTensor* t, int64_t offset, int ndim, const int64_t* shape,
                       const int64_t* strides, value) except -1:
    """Write the Python number value into the CPU elements (offset, shape, strides) of t as
    numpy's assignment casts it; False where the call path must do it (many elements, a
    dtype or value this does not convert: float16, an int past int64, ...). A float stored
    into an integer dtype arrives as an int (_stored_number)."""
    cdef int64_t n = 1, i, k, pos
    cdef int64_t idx[_MAX_DIMS]
    cdef unsigned char buf[16]
    cdef int64_t item = _itemsize(t)
    cdef uint8_t code = t.dtype.code
    cdef uint8_t bits = t.dtype.bits
    cdef double d
    cdef long long v
    cdef unsigned long long u
    cdef int overflow = 0
    for i in range(ndim):
        n *= shape[i]
    if n > _FILL_IN_PLACE_MAX or t.dtype.lanes != 1:
        return False
    tp = type(value)
    if code == 2 and (bits == 32 or bits == 64):  # float32, float64
        d = <double>value if tp is float else (<double>(value is True) if tp is bool
                                                 else <double>value)
        if bits == 32:
            (<float*>buf)[0] = <float>d
        else:
            (<double*>buf)[0] = d
    elif code == 0 or code == 1:  # integers (a float was made an int by _stored_number)
        if tp is bool:
            v = value is True
        else:
            v = PyLong_AsLongLongAndOverflow(value, &overflow)
            if overflow != 0:
                return False
            if not _int_fits(v, code, bits):
                raise OverflowError(f"Python integer {v} out of bounds for {_dtype_name(t.dtype)}")
        u = <unsigned long long>v
        if bits == 8:
            (<uint8_t*>buf)[0] = <uint8_t>u
        elif bits == 16:
            (<uint16_t*>buf)[0] = <uint16_t>u
        elif bits == 32:
            (<uint32_t*>buf)[0] = <uint32_t>u
        elif bits == 64:
            (<uint64_t*>buf)[0] = <uint64_t>u
        else:
            return False
    elif code == 6 and bits == 8:  # bool
        (<uint8_t*>buf)[0] = 1 if value else 0
    else:
        return False
    cdef char* base = <char*>t.data + t.byte_offset + offset * item
    for i in range(ndim):
        idx[i] = 0
    for k in range(n):
        pos = 0
        for i in range(ndim):
            pos += idx[i] * strides[i]
        memcpy(base + pos * item, buf, <size_t>item)
        i = ndim - 1
        while i >= 0:
            idx[i] += 1
            if idx[i] < shape[i]:
                break
            idx[i] = 0
            i -= 1
    return True


cdef inline bint _int_fits(long long v, uint8_t code, uint8_t bits) noexcept:
    if code == 1:
        return v >= 0 and (bits >= 64 or v < (<long long>1 << bits))
    if bits >= 64:
        return True
    return -(<long long>1 << (bits - 1)) <= v < (<long long>1 << (bits - 1))


cdef bint _writable(obj) except -1:
    """Whether obj's memory may be written (asked once per array object: it never changes)."""
    cdef NDArray a = <NDArray>obj
    if a._rw == 0:
        a._rw = 2 if _F_READ_ONLY(obj) else 1
    return a._rw == 1


def _rows(a, int64_t n):
    """The subarrays along the first axis (iter(a))."""
    cdef int64_t i
    for i in range(n):
        yield _getitem(a, i)


cdef int _one_element(obj) except -1:
    """numpy's TypeError for float(), int() and complex() of an array of more elements."""
    if _size(_tensor(obj)) != 1:
        raise TypeError(f"mxffi.NDArray: only length-1 arrays can be converted to Python "
                        f"scalars; got shape {obj.shape}")
    return 0


# ---- element access ---------------------------------------------------------------------------

cdef object _host(obj):
    """obj itself on the CPU, or a CPU copy of it."""
    if _tensor(obj).device.device_type == 1:
        return obj
    return _F_TO_DEVICE(obj, _make_device_cpu())


cdef object _make_device_cpu():
    cdef DLDevice d
    d.device_type = 1
    d.device_id = 0
    return _device_object(d)


cdef object _only_element(obj, str what):
    """The one element of a one-element array as a Python scalar (numpy's item())."""
    cdef DLTensor* t = _tensor(obj)
    if _size(t) != 1:
        raise ValueError(f"mxffi.NDArray.{what}: can only convert an array of size 1 to a "
                         f"Python scalar; got shape {obj.shape} (size {_size(t)})")
    _check_dense(obj, what)
    host = _host(obj)
    t = _tensor(host)
    cdef char* p = <char*>t.data + t.byte_offset
    cdef uint8_t code = t.dtype.code
    cdef uint8_t bits = t.dtype.bits
    if t.dtype.lanes == 1:
        if code == 0:  # kDLInt
            if bits == 8:
                return (<signed char*>p)[0]
            if bits == 16:
                return (<short*>p)[0]
            if bits == 32:
                return (<int32_t*>p)[0]
            if bits == 64:
                return (<int64_t*>p)[0]
        elif code == 1:  # kDLUInt
            if bits == 8:
                return (<uint8_t*>p)[0]
            if bits == 16:
                return (<uint16_t*>p)[0]
            if bits == 32:
                return (<uint32_t*>p)[0]
            if bits == 64:
                return (<uint64_t*>p)[0]
        elif code == 2:  # kDLFloat
            if bits == 32:
                return (<float*>p)[0]
            if bits == 64:
                return (<double*>p)[0]
        elif code == 6 and bits == 8:  # kDLBool
            return (<uint8_t*>p)[0] != 0
        elif code == 5:  # kDLComplex
            if bits == 64:
                return complex((<float*>p)[0], (<float*>p)[1])
            if bits == 128:
                return complex((<double*>p)[0], (<double*>p)[1])
    # float16 and bfloat16: numpy reads them (bfloat16 through ml_dtypes).
    return _asnumpy(host).reshape(()).item()


cdef object _asnumpy(obj):
    """A numpy array sharing the memory of a CPU array; a copy of a CUDA one."""
    import numpy
    host = _host(obj)
    cdef DLTensor* t = _tensor(host)
    if t.dtype.code != 4:  # not bfloat16
        return numpy.from_dlpack(host)
    # numpy has no bfloat16 DLPack code: the bits as uint16, then ml_dtypes' bfloat16.
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError("mxffi.NDArray: converting a bfloat16 array to numpy needs ml_dtypes "
                        "(pip install ml_dtypes)") from None
    cdef int64_t st[_MAX_DIMS]
    _elem_strides(t, st)
    bits = _make_view(host, 0, t.ndim, t.shape, st)
    # Reinterpret the view's dtype through DLPack: a uint16 array over the same memory.
    return _as_uint16_numpy(bits).view(ml_dtypes.bfloat16)


cdef object _as_uint16_numpy(obj):
    import numpy
    cdef DLTensor* t = _tensor(obj)
    t.dtype.code = 1  # the view is ours alone: mark its 16-bit elements as uint16
    return numpy.from_dlpack(obj)


# ---- the np.* functions behind operators and methods (None: not in this build) -----------

cdef object _np_add = None
cdef object _np_subtract = None
cdef object _np_multiply = None
cdef object _np_divide = None
cdef object _np_floor_divide = None
cdef object _np_remainder = None
cdef object _np_power = None
cdef object _np_matmul = None
cdef object _np_bitwise_and = None
cdef object _np_bitwise_or = None
cdef object _np_bitwise_xor = None
cdef object _np_bitwise_left_shift = None
cdef object _np_bitwise_right_shift = None
cdef object _np_equal = None
cdef object _np_not_equal = None
cdef object _np_less = None
cdef object _np_less_equal = None
cdef object _np_greater = None
cdef object _np_greater_equal = None
cdef object _np_negative = None
cdef object _np_positive = None
cdef object _np_absolute = None
cdef object _np_bitwise_invert = None
cdef object _np_transpose = None
cdef object _np_reshape = None
cdef object _np_copy = None
cdef object _np_astype = None
cdef object _np_sum = None
cdef object _np_mean = None
cdef object _np_max = None
cdef object _np_min = None
cdef object _np_all = None
cdef object _np_any = None
cdef object _np_prod = None
cdef object _np_argmax = None
cdef object _np_argmin = None
cdef object _np_var = None
cdef object _np_std = None
cdef object _np_dot = None
cdef object _np_tensordot = None
cdef object _np_asarray = None
cdef object _np_maximum = None
cdef object _np_minimum = None
cdef object _np_sqrt = None
cdef object _np_exp = None
cdef object _np_log = None
cdef object _np_square = None
cdef object _np_sign = None
cdef object _np_repeat = None
cdef object _np_cumsum = None
cdef object _np_cumprod = None
cdef object _np_argsort = None
cdef object _nd_sort = None
cdef object _np_real = None
cdef object _np_imag = None
cdef object _np_conj = None


cdef int _load_np_functions() except -1:
    global _np_add, _np_subtract, _np_multiply, _np_divide, _np_floor_divide, _np_remainder, _np_power, _np_matmul, _np_bitwise_and, _np_bitwise_or, _np_bitwise_xor, _np_bitwise_left_shift
    global _np_bitwise_right_shift, _np_equal, _np_not_equal, _np_less, _np_less_equal, _np_greater, _np_greater_equal, _np_negative, _np_positive, _np_absolute
    global _np_bitwise_invert, _np_transpose, _np_reshape, _np_copy, _np_astype, _np_sum, _np_mean, _np_max, _np_min, _np_dot
    global _np_all, _np_any, _np_prod, _np_argmax, _np_argmin, _np_var, _np_std
    global _np_tensordot, _np_asarray, _np_maximum, _np_minimum, _np_sqrt, _np_exp, _np_log, _np_square, _np_sign
    global _np_repeat, _np_cumsum, _np_cumprod
    global _np_argsort, _nd_sort
    global _np_real, _np_imag, _np_conj
    _np_real = get_global_func("np.real", allow_missing=True)
    _np_imag = get_global_func("np.imag", allow_missing=True)
    _np_conj = get_global_func("np.conj", allow_missing=True)
    _np_add = get_global_func("np.add", allow_missing=True)
    _np_subtract = get_global_func("np.subtract", allow_missing=True)
    _np_multiply = get_global_func("np.multiply", allow_missing=True)
    _np_divide = get_global_func("np.divide", allow_missing=True)
    _np_floor_divide = get_global_func("np.floor_divide", allow_missing=True)
    _np_remainder = get_global_func("np.remainder", allow_missing=True)
    _np_power = get_global_func("np.power", allow_missing=True)
    _np_matmul = get_global_func("np.matmul", allow_missing=True)
    _np_bitwise_and = get_global_func("np.bitwise_and", allow_missing=True)
    _np_bitwise_or = get_global_func("np.bitwise_or", allow_missing=True)
    _np_bitwise_xor = get_global_func("np.bitwise_xor", allow_missing=True)
    _np_bitwise_left_shift = get_global_func("np.bitwise_left_shift", allow_missing=True)
    _np_bitwise_right_shift = get_global_func("np.bitwise_right_shift", allow_missing=True)
    _np_equal = get_global_func("np.equal", allow_missing=True)
    _np_not_equal = get_global_func("np.not_equal", allow_missing=True)
    _np_less = get_global_func("np.less", allow_missing=True)
    _np_less_equal = get_global_func("np.less_equal", allow_missing=True)
    _np_greater = get_global_func("np.greater", allow_missing=True)
    _np_greater_equal = get_global_func("np.greater_equal", allow_missing=True)
    _np_negative = get_global_func("np.negative", allow_missing=True)
    _np_positive = get_global_func("np.positive", allow_missing=True)
    _np_absolute = get_global_func("np.absolute", allow_missing=True)
    _np_bitwise_invert = get_global_func("np.bitwise_invert", allow_missing=True)
    _np_transpose = get_global_func("np.transpose", allow_missing=True)
    _np_reshape = get_global_func("np.reshape", allow_missing=True)
    _np_copy = get_global_func("np.copy", allow_missing=True)
    _np_astype = get_global_func("np.astype", allow_missing=True)
    _np_sum = get_global_func("np.sum", allow_missing=True)
    _np_mean = get_global_func("np.mean", allow_missing=True)
    _np_max = get_global_func("np.max", allow_missing=True)
    _np_min = get_global_func("np.min", allow_missing=True)
    _np_all = get_global_func("np.all", allow_missing=True)
    _np_any = get_global_func("np.any", allow_missing=True)
    _np_prod = get_global_func("np.prod", allow_missing=True)
    _np_argmax = get_global_func("np.argmax", allow_missing=True)
    _np_argmin = get_global_func("np.argmin", allow_missing=True)
    _np_var = get_global_func("np.var", allow_missing=True)
    _np_std = get_global_func("np.std", allow_missing=True)
    _np_dot = get_global_func("np.dot", allow_missing=True)
    _np_repeat = get_global_func("np.repeat", allow_missing=True)
    _np_cumsum = get_global_func("np.cumsum", allow_missing=True)
    _np_cumprod = get_global_func("np.cumprod", allow_missing=True)
    _np_argsort = get_global_func("np.argsort", allow_missing=True)
    _nd_sort = get_global_func("ndarray.sort", allow_missing=True)
    _np_tensordot = get_global_func("np.tensordot", allow_missing=True)
    _np_asarray = get_global_func("np.asarray", allow_missing=True)
    _np_maximum = get_global_func("np.maximum", allow_missing=True)
    _np_minimum = get_global_func("np.minimum", allow_missing=True)
    _np_sqrt = get_global_func("np.sqrt", allow_missing=True)
    _np_exp = get_global_func("np.exp", allow_missing=True)
    _np_log = get_global_func("np.log", allow_missing=True)
    _np_square = get_global_func("np.square", allow_missing=True)
    _np_sign = get_global_func("np.sign", allow_missing=True)
    return 0


cdef object _missing(str name, str op):
    raise TypeError(f"mxffi.NDArray: the operator {op} needs np.{name}, which this build of "
                    "mxffi does not have")


cdef inline bint _defer(other):
    """Whether a binary operator gives way to other's reflected one (numpy's rule: other's type
    sets __array_ufunc__ = None)."""
    tp = type(other)
    if tp is int or tp is float or tp is bool or isinstance(other, NDArray):
        return False
    return getattr(tp, "__array_ufunc__", 0) is None


cdef object _binary(fn, str name, a, b, str op):
    if fn is None:
        _missing(name, op)
    return fn(a, b)


cdef int _inplace(fn, str name, NDArray self, other, str op) except -1:
    if fn is None:
        _missing(name, op)
    fn(self, other, out=self)
    return 0


cdef class _Flags:
    """numpy-style flags of an array: c_contiguous, f_contiguous, writeable (also as
    flags["C_CONTIGUOUS"], ...)."""

    cdef readonly bint c_contiguous
    cdef readonly bint f_contiguous
    cdef readonly bint writeable

    def __getitem__(self, key):
        names = {"C_CONTIGUOUS": self.c_contiguous, "C": self.c_contiguous,
                 "F_CONTIGUOUS": self.f_contiguous, "F": self.f_contiguous,
                 "WRITEABLE": self.writeable, "W": self.writeable}
        try:
            return names[key]
        except KeyError:
            raise KeyError(f"mxffi.NDArray.flags: unknown flag {_dtype.safe_repr(key)}") from None

    def __repr__(self):
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  WRITEABLE : {self.writeable}")


cdef bint _contiguous(DLTensor* t, bint fortran) noexcept:
    cdef int64_t st[_MAX_DIMS]
    cdef int64_t expected = 1
    cdef int i, k
    if _size(t) == 0:
        return True
    _elem_strides(t, st)
    for k in range(t.ndim):
        i = k if fortran else t.ndim - 1 - k
        if t.shape[i] != 1 and st[i] != expected:
            return False
        expected *= t.shape[i]
    return True


cdef class NDArray(Object):
    """An n-dimensional array owned by mxffi (or borrowed, zero-copy, from a DLPack producer),
    with numpy's semantics: indexing (basic keys give views), every operator, numpy's methods.
    """

    cdef PyObject* _shape_cache  # the shape tuple, made on first use (shapes never change)
    cdef PyObject* _strides_cache  # the strides tuple, likewise
    cdef PyObject* _dtype_cache  # the DataType, likewise
    cdef object __weakref__  # NULL until a weak reference is made (tp_alloc zeroes it)
    cdef int _rw  # 0: not asked yet; 1: writable; 2: read-only (see _writable)
    cdef int _ndim  # copies the C getters read (ndarray_attrs.h), set when the array is made
    cdef Py_ssize_t _itemsize

    # numpy defers a + b to us when b is an mxffi array.
    __array_priority__ = 100
    _type_key = "mxffi.NDArray"
    _type_index = kMXFFINDArray

    def __cinit__(self, *args, **kwargs):
        # Only NDArray.__new__ from Python gets here (and Object.__new__(NDArray) is refused
        # by Python as unsafe): mxffi makes arrays through Object's tp_new, which skips this.
        # So an array object always has a handle.
        raise TypeError("mxffi.NDArray objects are made by mxffi functions, not directly")

    # Deallocation (weak references, the caches, the handle) is ndarray_attrs.h's
    # MXFFIPyNDDealloc, installed on the type at import with the attribute getters.

    # -- attributes, read from the frozen layout --

    @property
    def shape(self):
        """The extents, a tuple of ints."""
        cdef DLTensor* t
        if self._shape_cache != NULL:
            return <object>self._shape_cache
        t = _tensor(self)
        out = _int_tuple(t.shape, t.ndim, 1)
        Py_INCREF(out)
        self._shape_cache = <PyObject*>out
        return out

    @property
    def strides(self):
        """The strides in bytes (numpy's convention), a tuple of ints."""
        cdef int64_t st[_MAX_DIMS]
        cdef DLTensor* t
        if self._strides_cache != NULL:
            return <object>self._strides_cache
        t = _tensor(self)
        _elem_strides(t, st)
        # numpy 2 gives a new empty array strides of 0; views keep their own.
        out = _int_tuple(st, t.ndim, 0 if t.strides == NULL and _size(t) == 0 else _itemsize(t))
        Py_INCREF(out)
        self._strides_cache = <PyObject*>out
        return out

    @property
    def dtype(self):
        """The data type, a DataType (equal to numpy's dtype names)."""
        if self._dtype_cache != NULL:
            return <object>self._dtype_cache
        out = _dtype_object(_tensor(self).dtype)
        Py_INCREF(out)
        self._dtype_cache = <PyObject*>out
        return out

    @property
    def device(self):
        """The device the memory is on."""
        return _device_object(_tensor(self).device)

    @property
    def ndim(self):
        """The number of dimensions."""
        return _tensor(self).ndim

    @property
    def size(self):
        """The number of elements."""
        return _size(_tensor(self))

    @property
    def itemsize(self):
        """The bytes of one element."""
        return _itemsize(_tensor(self))

    @property
    def nbytes(self):
        """The bytes of all elements (size * itemsize)."""
        cdef DLTensor* t = _tensor(self)
        return _size(t) * _itemsize(t)

    @property
    def stype(self):
        """The storage type: "default" for a dense array."""
        return "default" if _stype(self) == kMXFFIStorageDefault else "unknown"

    @property
    def T(self):
        """The array with its axes reversed (a view)."""
        cdef int64_t st[_MAX_DIMS]
        cdef int64_t shape[_MAX_DIMS]
        cdef int64_t strides[_MAX_DIMS]
        cdef DLTensor* t = _tensor(self)
        cdef int i, n = t.ndim
        if _stype(self) != kMXFFIStorageDefault:
            _check_dense(self, "T")
        _elem_strides(t, st)
        for i in range(n):
            shape[i] = t.shape[n - 1 - i]
            strides[i] = st[n - 1 - i]
        return _make_view(self, 0, n, shape, strides)

    @property
    def real(self):
        """The real part: for a complex array a view of its real parts (writing it writes this
        array), for a real array the array itself (np.real)."""
        return _np_real(self)

    @property
    def imag(self):
        """The imaginary part: for a complex array a view of its imaginary parts, for a real
        array zeros of its dtype (np.imag)."""
        return _np_imag(self)

    def conj(self):
        """The complex conjugate, elementwise (np.conj): a new array."""
        return _np_conj(self)

    def conjugate(self):
        """The complex conjugate, elementwise (np.conjugate): a new array."""
        return _np_conj(self)

    @property
    def mT(self):
        """The array with its last two axes swapped (a view): a stack of transposed matrices."""
        cdef int perm[_MAX_DIMS]
        cdef DLTensor* t = _tensor(self)
        cdef int i
        _check_dense(self, "mT")
        if t.ndim < 2:
            raise ValueError(f"mxffi.NDArray.mT: the array must have at least 2 dimensions; "
                             f"it has {t.ndim}")
        for i in range(t.ndim):
            perm[i] = i
        perm[t.ndim - 2] = t.ndim - 1
        perm[t.ndim - 1] = t.ndim - 2
        return _permuted(self, t, perm)

    def data_ptr(self):
        """The address of the first element (data plus byte offset), as an int."""
        cdef DLTensor* t = _tensor(self)
        _check_dense(self, "data_ptr")
        return <size_t>t.data + t.byte_offset

    @property
    def read_only(self):
        """Whether the producer of the memory marked it read-only (DLPack 1.x)."""
        return bool(_F_READ_ONLY(self))

    @property
    def flags(self):
        """numpy-style flags: c_contiguous, f_contiguous, writeable."""
        cdef DLTensor* t = _tensor(self)
        cdef _Flags f = _Flags.__new__(_Flags)
        f.c_contiguous = _contiguous(t, False)
        f.f_contiguous = _contiguous(t, True)
        f.writeable = not _F_READ_ONLY(self)
        return f

    @property
    def base(self):
        """The array this one is a view of (None for an array owning its memory)."""
        return _F_BASE(self)

    # -- indexing --

    def __getitem__(self, key):
        return _getitem(self, key)

    def __setitem__(self, key, value):
        _setitem(self, key, value)

    def __len__(self):
        cdef DLTensor* t = _tensor(self)
        if t.ndim == 0:
            raise TypeError("mxffi.NDArray: len() of unsized object (a 0-d array)")
        return t.shape[0]

    def __iter__(self):
        cdef DLTensor* t = _tensor(self)
        if t.ndim == 0:
            raise TypeError("mxffi.NDArray: iteration over a 0-d array")
        return _rows(self, t.shape[0])

    def __contains__(self, value):
        eq = self == value
        if eq.size == 0:
            return False
        return bool(_np_max(eq))

    __hash__ = None

    # -- conversions to Python scalars --

    def __bool__(self):
        cdef DLTensor* t = _tensor(self)
        if _size(t) != 1:
            raise ValueError(f"mxffi.NDArray: the truth value of an array of shape {self.shape} "
                             f"(size {_size(t)}) is ambiguous; use a.any() or a.all()")
        return bool(_only_element(self, "__bool__"))

    def __float__(self):
        _one_element(self)
        v = _only_element(self, "__float__")
        if type(v) is complex:
            raise TypeError("mxffi.NDArray.__float__: a complex array cannot be converted to "
                            "float; take .real first")
        return float(v)

    def __int__(self):
        _one_element(self)
        v = _only_element(self, "__int__")
        if type(v) is complex:
            raise TypeError("mxffi.NDArray.__int__: a complex array cannot be converted to int")
        return int(v)

    def __complex__(self):
        _one_element(self)
        return complex(_only_element(self, "__complex__"))

    def __index__(self):
        cdef DLTensor* t = _tensor(self)
        if t.dtype.code not in (0, 1) or t.dtype.lanes != 1:
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(_only_element(self, "__index__"))

    def item(self):
        """The only element as a Python scalar; ValueError unless size is 1 (numpy's item)."""
        return _only_element(self, "item")

    def tolist(self):
        """The elements as nested Python lists of Python scalars (numpy's tolist)."""
        return _asnumpy(self).tolist()

    # -- numpy, DLPack and the array API --

    def numpy(self):
        """A numpy array: sharing this array's memory on the CPU; a copy of a CUDA array."""
        return _asnumpy(self)

    def asnumpy(self):
        """A numpy array: sharing this array's memory on the CPU; a copy of a CUDA array."""
        return _asnumpy(self)

    def __array__(self, dtype=None, copy=None):
        """numpy's conversion protocol with numpy 2's copy rules: copy=False raises where a
        copy is needed (another device, another dtype)."""
        cdef DLTensor* t = _tensor(self)
        if copy is False and t.device.device_type != 1:
            raise ValueError("Unable to avoid copy while creating an array as requested: the "
                             f"array is on {self.device}")
        out = _asnumpy(self)
        if dtype is not None and out.dtype != dtype:
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested: "
                                 f"the array's dtype is {self.dtype}, not {dtype}")
            return out.astype(dtype)
        if copy and t.device.device_type == 1:
            return out.copy()
        return out

    def __array_namespace__(self, api_version=None):
        if api_version is not None and api_version not in ("2023.12", "2024.12"):
            raise ValueError(f"mxffi.NDArray.__array_namespace__: unsupported API version "
                             f"{_dtype.safe_repr(api_version)}")
        import mxffi.np
        return mxffi.np

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _array_ufunc(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        return _array_function(func, types, args, kwargs)

    def __dlpack_device__(self):
        cdef DLTensor* t = _tensor(self)
        _check_dense(self, "__dlpack_device__")
        return (t.device.device_type, t.device.device_id)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule viewing this array (versioned when max_version >= (1, 0)).

        For a CUDA array, stream is the consumer's stream as the array API defines it: None or
        1 the legacy default stream, 2 the per-thread default stream, -1 no synchronisation,
        any other int a ``cudaStream_t``; 0 is refused. Unless it is -1, the consumer's stream
        waits (on the device) for the work queued so far on mxffi's current stream of the
        array's device, and the array's memory is not reused before the consumer's stream has
        done what it queued by the time the array is freed. dl_device other than the array's
        own (the CPU or a CUDA device) exports a copy there, unless copy is False; copy=True
        always exports a copy.
        """
        return _to_capsule(self, stream, max_version, dl_device, copy)

    def to_device(self, device, /, *, stream=None):
        """The array on device (the array API's to_device): itself when it is there already,
        else a copy."""
        dev = device if isinstance(device, Device) else Device(device)
        if dev == self.device:
            return self
        return _F_TO_DEVICE(self, dev)

    def to(self, device):
        """A copy of this array on device ("cpu", "cuda", "cuda:1", a Device): always a new,
        C-contiguous array (sparse arrays: each part copied), between the CPU and CUDA devices
        in any direction. A copy to the CPU has finished when this returns; one to a CUDA
        device is queued on that device's current stream."""
        return _F_TO_DEVICE(self, device if isinstance(device, Device) else Device(device))

    def copyto(self, other):
        """Copy into other: an NDArray of the same shape and dtype on any device (its elements
        are overwritten; returns it), or a device (the same as ``to``). Between storage types
        (dense into csr, csr into row_sparse, ...) self is converted to other's first (MXNet's
        copyto); a sparse other keeps its storage type and index dtype."""
        if isinstance(other, NDArray):
            if _stype(self) != _stype(other) or _stype(other) != kMXFFIStorageDefault:
                from mxffi.nd.sparse import _copy_across
                return _copy_across(self, other)
            return _F_COPYTO(self, other)
        return self.to(other)

    def __reduce_ex__(self, protocol):
        return _reduce(self, protocol)

    def __reduce__(self):
        return _reduce(self, 2)

    def __repr__(self):
        if self.chandle == NULL:
            return "mxffi.NDArray(NULL)"
        dev = _tensor(self).device.device_type
        if _stype(self) != kMXFFIStorageDefault or dev not in (1, 2):
            return (f"mxffi.NDArray(shape={self.shape}, dtype={self.dtype}, "
                    f"device={self.device})")
        text = repr(_asnumpy(self))
        if dev == 1:
            return text
        # numpy's repr of a host copy, naming the device: array([1., 2.], device=cuda:0)
        return f"{text[:len(text) - 1]}, device={self.device})"

    def __str__(self):
        cdef int dev = _tensor(self).device.device_type
        if _stype(self) != kMXFFIStorageDefault or dev not in (1, 2):
            return repr(self)
        return str(_asnumpy(self))

    def __format__(self, spec):
        if _size(_tensor(self)) == 1 and self.ndim == 0:
            return format(_only_element(self, "__format__"), spec)
        return format(str(self), spec)

    # -- methods: direct calls of the np.* functions --

    def astype(self, dtype, copy=True, device=None):
        """A copy converted to dtype (on device); self when copy is False and nothing needs
        converting."""
        if not copy and device is None and self.dtype == _as_dtype(dtype, "mxffi.NDArray.astype"):
            return self
        return _np_astype(self, dtype, copy, device)

    def reshape(self, *shape, copy=None):
        """reshape((3, 4)), reshape(3, 4) or reshape(-1): a view when the array is contiguous
        (copy=None), a copy (copy=True), a ValueError where a view cannot be (copy=False)."""
        if len(shape) == 1 and type(shape[0]) is not int:
            shape = shape[0]
        if copy is None:
            return _np_reshape(self, shape)
        return _np_reshape(self, shape, copy)

    def transpose(self, *axes):
        """transpose(), transpose((1, 0)) or transpose(1, 0): a view with the axes permuted."""
        if len(axes) == 0 or (len(axes) == 1 and axes[0] is None):
            return _np_transpose(self)
        if len(axes) == 1 and type(axes[0]) is not int:
            axes = axes[0]
        return _np_transpose(self, axes)

    def swapaxes(self, axis1, axis2):
        """A view with axes axis1 and axis2 exchanged."""
        cdef DLTensor* t = _tensor(self)
        cdef int perm[_MAX_DIMS]
        cdef int i, a, b
        _check_dense(self, "swapaxes")
        a = _norm_axis(axis1, t.ndim, "swapaxes")
        b = _norm_axis(axis2, t.ndim, "swapaxes")
        for i in range(t.ndim):
            perm[i] = i
        perm[a] = b
        perm[b] = a
        return _permuted(self, t, perm)

    def squeeze(self, axis=None):
        """A view without the axes of extent 1 (those of axis, which must be of extent 1)."""
        return _squeeze(self, axis)

    def repeat(self, repeats, axis=None):
        """np.repeat of this array: each element repeated repeats times along axis (None: of
        the flattened array)."""
        return _np_repeat(self, repeats, axis)

    def ravel(self):
        """The elements as a 1-d array (a view when the array is contiguous)."""
        return _np_reshape(self, (-1,))

    def flatten(self):
        """The elements as a new 1-d array (always a copy)."""
        return _np_copy(_np_reshape(self, (-1,)))

    def fill(self, value):
        """Set every element to value (cast as numpy casts on assignment)."""
        _setitem(self, Ellipsis, value)

    def copy(self):
        """A C-contiguous copy."""
        return _np_copy(self)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """np.sum of this array."""
        if out is not None:
            return _np_sum(self, axis=axis, dtype=dtype, keepdims=keepdims, out=out)
        return _np_sum(self, axis, dtype, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """np.mean of this array."""
        if out is not None:
            return _np_mean(self, axis=axis, dtype=dtype, keepdims=keepdims, out=out)
        return _np_mean(self, axis, dtype, keepdims)

    def max(self, axis=None, out=None, keepdims=False):
        """np.max of this array."""
        if out is not None:
            return _np_max(self, axis=axis, keepdims=keepdims, out=out)
        return _np_max(self, axis, keepdims)

    def min(self, axis=None, out=None, keepdims=False):
        """np.min of this array."""
        if out is not None:
            return _np_min(self, axis=axis, keepdims=keepdims, out=out)
        return _np_min(self, axis, keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        """np.all of this array."""
        if out is not None:
            return _np_all(self, axis=axis, keepdims=keepdims, out=out)
        return _np_all(self, axis, keepdims)

    def any(self, axis=None, out=None, keepdims=False):
        """np.any of this array."""
        if out is not None:
            return _np_any(self, axis=axis, keepdims=keepdims, out=out)
        return _np_any(self, axis, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """np.prod of this array."""
        if out is not None:
            return _np_prod(self, axis=axis, dtype=dtype, keepdims=keepdims, out=out)
        return _np_prod(self, axis, dtype, keepdims)

    def cumsum(self, axis=None, dtype=None, out=None):
        """np.cumsum of this array."""
        return _np_cumsum(self, axis, dtype, out)

    def cumprod(self, axis=None, dtype=None, out=None):
        """np.cumprod of this array."""
        return _np_cumprod(self, axis, dtype, out)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        """np.argmax of this array."""
        return _np_argmax(self, axis, out, keepdims)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        """np.argmin of this array."""
        return _np_argmin(self, axis, out, keepdims)

    def sort(self, axis=-1, kind=None, order=None, *, descending=False, stable=None):
        """Sort this array in place along axis (numpy's ndarray.sort): stable, NaNs last."""
        _nd_sort(self, axis, kind, order, descending=descending, stable=stable)

    def argsort(self, axis=-1, kind=None, order=None, *, descending=False, stable=None):
        """np.argsort of this array."""
        return _np_argsort(self, axis, kind, order, descending=descending, stable=stable)

    def var(self, axis=None, out=None, ddof=None, keepdims=False, *, correction=None):
        """np.var of this array."""
        return _np_var(self, axis, out, ddof, keepdims, correction)

    def std(self, axis=None, out=None, ddof=None, keepdims=False, *, correction=None):
        """np.std of this array."""
        return _np_std(self, axis, out, ddof, keepdims, correction)

    def dot(self, b, out=None):
        """The dot product with b (numpy's ndarray.dot)."""
        if out is not None:
            return _np_dot(self, b, out=out)
        return _np_dot(self, b)

    def tostype(self, stype, idx_dtype=None):
        """This array stored as stype ("default", "csr" or "row_sparse"); always a new array.
        idx_dtype (int32 or int64, default int64) is the index dtype of a sparse result."""
        return get_global_func("sparse._cast_storage")(self, stype, idx_dtype)

    # -- operators: each one np.* call --

    def __add__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_add, "add", self, other, "__add__")

    def __radd__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_add, "add", other, self, "__radd__")

    def __iadd__(self, other):
        _inplace(_np_add, "add", self, other, "__iadd__")
        return self

    def __sub__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_subtract, "subtract", self, other, "__sub__")

    def __rsub__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_subtract, "subtract", other, self, "__rsub__")

    def __isub__(self, other):
        _inplace(_np_subtract, "subtract", self, other, "__isub__")
        return self

    def __mul__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_multiply, "multiply", self, other, "__mul__")

    def __rmul__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_multiply, "multiply", other, self, "__rmul__")

    def __imul__(self, other):
        _inplace(_np_multiply, "multiply", self, other, "__imul__")
        return self

    def __truediv__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_divide, "divide", self, other, "__truediv__")

    def __rtruediv__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_divide, "divide", other, self, "__rtruediv__")

    def __itruediv__(self, other):
        _inplace(_np_divide, "divide", self, other, "__itruediv__")
        return self

    def __floordiv__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_floor_divide, "floor_divide", self, other, "__floordiv__")

    def __rfloordiv__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_floor_divide, "floor_divide", other, self, "__rfloordiv__")

    def __ifloordiv__(self, other):
        _inplace(_np_floor_divide, "floor_divide", self, other, "__ifloordiv__")
        return self

    def __mod__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_remainder, "remainder", self, other, "__mod__")

    def __rmod__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_remainder, "remainder", other, self, "__rmod__")

    def __imod__(self, other):
        _inplace(_np_remainder, "remainder", self, other, "__imod__")
        return self

    def __pow__(self, other, mod=None):
        if mod is not None:
            return NotImplemented
        if _defer(other):
            return NotImplemented
        return _binary(_np_power, "power", self, other, "__pow__")

    def __rpow__(self, other, mod=None):
        if mod is not None:
            return NotImplemented
        if _defer(other):
            return NotImplemented
        return _binary(_np_power, "power", other, self, "__rpow__")

    def __ipow__(self, other):
        _inplace(_np_power, "power", self, other, "__ipow__")
        return self

    def __matmul__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_matmul, "matmul", self, other, "__matmul__")

    def __rmatmul__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_matmul, "matmul", other, self, "__rmatmul__")

    def __imatmul__(self, other):
        _inplace(_np_matmul, "matmul", self, other, "__imatmul__")
        return self

    def __and__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_and, "bitwise_and", self, other, "__and__")

    def __rand__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_and, "bitwise_and", other, self, "__rand__")

    def __iand__(self, other):
        _inplace(_np_bitwise_and, "bitwise_and", self, other, "__iand__")
        return self

    def __or__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_or, "bitwise_or", self, other, "__or__")

    def __ror__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_or, "bitwise_or", other, self, "__ror__")

    def __ior__(self, other):
        _inplace(_np_bitwise_or, "bitwise_or", self, other, "__ior__")
        return self

    def __xor__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_xor, "bitwise_xor", self, other, "__xor__")

    def __rxor__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_xor, "bitwise_xor", other, self, "__rxor__")

    def __ixor__(self, other):
        _inplace(_np_bitwise_xor, "bitwise_xor", self, other, "__ixor__")
        return self

    def __lshift__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_left_shift, "bitwise_left_shift", self, other, "__lshift__")

    def __rlshift__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_left_shift, "bitwise_left_shift", other, self, "__rlshift__")

    def __ilshift__(self, other):
        _inplace(_np_bitwise_left_shift, "bitwise_left_shift", self, other, "__ilshift__")
        return self

    def __rshift__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_right_shift, "bitwise_right_shift", self, other, "__rshift__")

    def __rrshift__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_bitwise_right_shift, "bitwise_right_shift", other, self, "__rrshift__")

    def __irshift__(self, other):
        _inplace(_np_bitwise_right_shift, "bitwise_right_shift", self, other, "__irshift__")
        return self

    def __eq__(self, other):
        if _defer(other) or other is None or type(other) is str:
            return NotImplemented  # Python's identity answer: a None or a str is no operand
        return _binary(_np_equal, "equal", self, other, "__eq__")

    def __ne__(self, other):
        if _defer(other) or other is None or type(other) is str:
            return NotImplemented  # Python's identity answer: a None or a str is no operand
        return _binary(_np_not_equal, "not_equal", self, other, "__ne__")

    def __lt__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_less, "less", self, other, "__lt__")

    def __le__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_less_equal, "less_equal", self, other, "__le__")

    def __gt__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_greater, "greater", self, other, "__gt__")

    def __ge__(self, other):
        if _defer(other):
            return NotImplemented
        return _binary(_np_greater_equal, "greater_equal", self, other, "__ge__")

    def __neg__(self):
        if _np_negative is None:
            _missing("negative", "__neg__")
        return _np_negative(self)

    def __pos__(self):
        if _np_positive is None:
            _missing("positive", "__pos__")
        return _np_positive(self)

    def __abs__(self):
        if _np_absolute is None:
            _missing("absolute", "__abs__")
        return _np_absolute(self)

    def __invert__(self):
        if _np_bitwise_invert is None:
            _missing("bitwise_invert", "__invert__")
        return _np_bitwise_invert(self)

    def __divmod__(self, other):
        if _defer(other):
            return NotImplemented
        return (_binary(_np_floor_divide, "floor_divide", self, other, "__divmod__"),
                _binary(_np_remainder, "remainder", self, other, "__divmod__"))

    def __rdivmod__(self, other):
        if _defer(other):
            return NotImplemented
        return (_binary(_np_floor_divide, "floor_divide", other, self, "__rdivmod__"),
                _binary(_np_remainder, "remainder", other, self, "__rdivmod__"))
