# Conversions off the exact-type fast path in fastcall.h: Python values into value cells
# (subclasses, protocols, containers, callables), results into Python values, and callback
# arguments and results.

cdef inline void _keep(PyObject** keep, obj):
    if keep[0] == NULL:
        owners = [obj]
        Py_INCREF(owners)
        keep[0] = <PyObject*>owners
    else:
        (<list>keep[0]).append(obj)


cdef str _arg_label(func, Py_ssize_t index):
    cdef PyObject* outer
    cdef int depth = MXFFIPyNestingDepth()
    if depth > 0 and func is not None and (func is _ARRAY or func is _MAP):
        # An item of a list, tuple or dict argument: named by the argument the user passed.
        outer = MXFFIPyNestingFunc()
        return (f"{_plain_arg_label(<object>outer if outer != NULL else None, MXFFIPyNestingIndex())}"
                f" (an item {depth} level{'s' if depth > 1 else ''} down)")
    return _plain_arg_label(func, index)


cdef str _plain_arg_label(func, Py_ssize_t index):
    if func is None:
        return "mxffi: the value a Python callback returned"
    if not isinstance(func, Function):
        return f"mxffi: argument #{index}"
    name = _func_name(<Function>func)
    info = _func_info(<Function>func)
    if info is not None and info[0] is not None and index < len(info[0]):
        return f"{name}: argument #{index} '{info[0][index]}'"
    return f"{name}: argument #{index}"


cdef Function _SET_STREAM_FUNC = None


cdef class _TensorArg:
    """Owns what a borrowed DLTensor argument points into: a buffer view or a capsule; for a
    CUDA torch tensor, also restores mxffi's current stream after the call (_use_torch_stream).
    """

    cdef Py_buffer view
    cdef bint has_view
    cdef object capsule
    cdef int64_t shape[32]
    cdef int64_t strides[32]
    cdef bint has_stream
    cdef int stream_device
    cdef object previous_stream

    def __dealloc__(self):
        if self.has_view:
            PyBuffer_Release(&self.view)
        if self.has_stream:
            try:
                _SET_STREAM_FUNC(self.stream_device, self.previous_stream)
            except Exception:
                pass


cdef int _use_stream(_TensorArg holder, int device_id, handle) except -1:
    """Make a producer's stream handle mxffi's current stream of the device until the argument
    is released."""
    global _SET_STREAM_FUNC
    if _SET_STREAM_FUNC is None:
        _SET_STREAM_FUNC = get_global_func("cuda.set_current_stream")
    holder.previous_stream = _SET_STREAM_FUNC(device_id, handle)
    holder.stream_device = device_id
    holder.has_stream = True
    return 0


cdef int _use_torch_stream(_TensorArg holder, int device_id) except -1:
    """A CUDA torch tensor argument: the call runs on torch's current stream of its device (as
    torch's own ops would), made mxffi's current stream until the argument is released."""
    import torch

    return _use_stream(holder, device_id, torch.cuda.current_stream(device_id).cuda_stream)




cdef Function _CURRENT_STREAM_FUNC = None
cdef Function _WAIT_STREAM_FUNC = None


cdef int _wait_for_legacy_stream(int device_id) except -1:
    """A CUDA tensor of another producer (CuPy, ...), exported by __dlpack__() with no stream:
    the array API has the producer order its work before the legacy default stream then, so
    mxffi's current stream of the device, where the call runs, waits for that stream (on the
    device; nothing when it is the legacy default stream itself)."""
    global _CURRENT_STREAM_FUNC, _WAIT_STREAM_FUNC
    if _CURRENT_STREAM_FUNC is None:
        _CURRENT_STREAM_FUNC = get_global_func("cuda.current_stream")
        _WAIT_STREAM_FUNC = get_global_func("cuda.stream_wait_stream")
    current = _CURRENT_STREAM_FUNC(device_id)
    if current != 0:
        _WAIT_STREAM_FUNC(device_id, current, 0)
    return 0


cdef int _tensor_from_buffer(obj, str label, MXFFIAny* cell, MXFFIPyArgTemp* temp,
                             PyObject** keep) except -1:
    cdef _TensorArg holder = _TensorArg.__new__(_TensorArg)
    cdef DLTensor* t = &temp.tensor
    cdef Py_ssize_t i
    # PyBUF_RECORDS_RO: shape, strides and format, read-only allowed.
    PyObject_GetBuffer(obj, &holder.view, 0x001C)
    holder.has_view = True
    fmt = holder.view.format.decode("ascii") if holder.view.format != NULL else "B"
    fmt = fmt.lstrip("@=<")
    if fmt not in _dtype.BUFFER_FORMATS:
        raise TypeError(f"{label}: buffer format '{fmt}' has no DLPack data type")
    code, bits = _dtype.BUFFER_FORMATS[fmt]
    if bits // 8 != holder.view.itemsize:
        raise TypeError(f"{label}: buffer format '{fmt}' has item size {holder.view.itemsize}")
    if holder.view.ndim > 32:
        raise ValueError(f"{label}: {holder.view.ndim} dimensions is more than 32")
    for i in range(holder.view.ndim):
        holder.shape[i] = holder.view.shape[i]
        if holder.view.strides[i] % holder.view.itemsize != 0:
            raise ValueError(f"{label}: stride {holder.view.strides[i]} of dimension {i} is not a "
                             f"multiple of the item size {holder.view.itemsize}")
        holder.strides[i] = holder.view.strides[i] // holder.view.itemsize
    t.data = holder.view.buf
    t.device.device_type = 1
    t.device.device_id = 0
    t.ndim = holder.view.ndim
    t.dtype.code = code
    t.dtype.bits = bits
    t.dtype.lanes = 1
    t.shape = holder.shape
    t.strides = holder.strides
    t.byte_offset = 0
    _keep(keep, holder)
    cell.type_index = kMXFFIDLTensorPtr
    cell.v_ptr = t
    return 0


cdef int _refuse_torch_neg(obj, str label) except -1:
    """torch's __dlpack__ exports a tensor with its lazy negation bit set (torch's conj().imag)
    as its memory, without the negation: refused by name instead of taken with the wrong sign."""
    torch = _sys.modules.get("torch")
    if torch is not None and isinstance(obj, torch.Tensor) and torch.Tensor.is_neg(obj):
        raise _lazy_bit_refused(label, obj, "negative", "resolve_neg")
    return 0


cdef int _tensor_from_dlpack(obj, str label, MXFFIAny* cell, PyObject** keep) except -1:
    cdef _TensorArg holder = _TensorArg.__new__(_TensorArg)
    cdef DLTensor* t
    _refuse_torch_neg(obj, label)
    try:
        try:
            capsule = obj.__dlpack__(max_version=(1, 0))
        except TypeError:
            capsule = obj.__dlpack__()
    except BufferError as e:
        raise _export_refused(label, obj, e) from e
    holder.capsule = capsule  # not consumed: the producer's capsule destructor frees it
    if PyCapsule_IsValid(capsule, b"dltensor_versioned"):
        t = &(<DLManagedTensorVersioned*>PyCapsule_GetPointer(capsule, b"dltensor_versioned")).dl_tensor
    elif PyCapsule_IsValid(capsule, b"dltensor"):
        t = &(<DLManagedTensor*>PyCapsule_GetPointer(capsule, b"dltensor")).dl_tensor
    else:
        raise TypeError(f"{label}: __dlpack__() of {type(obj).__name__} returned "
                        f"{_dtype.safe_repr(capsule)}, "
                        "not a DLPack capsule")
    if t.device.device_type == 2:
        # Looked at only now, from the tensor itself: CPU tensors pay nothing for it.
        torch = _sys.modules.get("torch")
        if torch is not None and isinstance(obj, torch.Tensor):
            _use_torch_stream(holder, t.device.device_id)
        else:
            _wait_for_legacy_stream(t.device.device_id)
    _keep(keep, holder)
    cell.type_index = kMXFFIDLTensorPtr
    cell.v_ptr = t
    return 0


cdef int _hook_arg_slow(PyObject* func, Py_ssize_t index, PyObject* parg, MXFFIAny* cell,
                        MXFFIPyArgTemp* temp, PyObject** keep) except -1:
    arg = <object>parg
    fn = <object>func if func != NULL else None
    cdef Py_ssize_t n
    cdef const char* s
    cdef int overflow = 0
    cdef long long value
    cell.small_len = 0
    tp = type(arg)
    if tp is bool:
        cell.type_index = kMXFFIBool
        cell.v_int64 = arg is True
        return 0
    if tp is int or isinstance(arg, int):
        # The int's own digits, as PyLong_AsLongLongAndOverflow reads them: a subclass's
        # __int__ or __index__ is not asked.
        value = PyLong_AsLongLongAndOverflow(arg, &overflow)
        if overflow > 0 and int.__le__(arg, 0xFFFFFFFFFFFFFFFF):
            # 2**63 to 2**64 - 1: a uint64 (kMXFFIUInt64), for the functions taking one
            cell.type_index = kMXFFIUInt64
            cell.v_int64 = <int64_t>PyLong_AsUnsignedLongLong(arg)
            return 0
        if overflow != 0:
            raise OverflowError(f"{_arg_label(fn, index)} value {int.__repr__(arg)} does not "
                                "fit in int64")
        cell.type_index = kMXFFIInt
        cell.v_int64 = value
        return 0
    _note_numpy()
    if _np_ndarray_type is not None:
        if tp is _np_ndarray_type:
            MXFFIPySetNdarrayType(tp)  # from now on numpy arrays take the fast path
            if MXFFIPyNumpyTensor(parg, cell, temp):
                return 0
            if arg.dtype.name == "bfloat16" and arg.dtype.itemsize == 2:
                # ml_dtypes' bfloat16, which numpy's DLPack export refuses: its bits as uint16,
                # then the DLPack bfloat16 code.
                bits = arg.view("uint16")
                _keep(keep, bits)
                if MXFFIPyNumpyTensor(<PyObject*>bits, cell, temp):
                    temp.tensor.dtype.code = 4  # kDLBfloat
                    return 0
            # Declined (byte-swapped, an unsupported dtype, many dimensions): DLPack below.
        elif PyType_IsSubtype(<PyTypeObject*>tp, <PyTypeObject*>_np_generic_type):
            scalar = _numpy_scalar_value(arg, fn, index)
            _keep(keep, scalar)
            return _hook_arg_slow(func, index, <PyObject*>scalar, cell, temp, keep)
    if isinstance(arg, Object):
        raise ValueError(f"{_arg_label(fn, index)} is a {tp.__name__} whose handle is "
                         "NULL")
    if isinstance(arg, str):
        s = PyUnicode_AsUTF8AndSize(arg, &n)
        temp.view.data = s
        temp.view.size = n
        cell.type_index = kMXFFIStrView
        cell.v_ptr = &temp.view
        return 0
    if isinstance(arg, float):
        cell.type_index = kMXFFIFloat
        cell.v_float64 = arg
        return 0
    if isinstance(arg, complex):
        # Read from the complex object's own storage (a subclass's real/imag may say otherwise).
        temp.complex_parts[0] = PyComplex_RealAsDouble(arg)
        temp.complex_parts[1] = PyComplex_ImagAsDouble(arg)
        cell.type_index = kMXFFIComplexView
        cell.v_ptr = temp.complex_parts
        return 0
    if isinstance(arg, bytes):
        # The object's own storage: a subclass's __len__ or __bytes__ is not asked.
        temp.view.data = PyBytes_AS_STRING(arg)
        temp.view.size = PyBytes_GET_SIZE(arg)
        cell.type_index = kMXFFIBytesView
        cell.v_ptr = &temp.view
        return 0
    if isinstance(arg, bytearray):
        # A copy of the storage: a callback could resize the bytearray during the call.
        b = PyBytes_FromStringAndSize(PyByteArray_AS_STRING(arg), PyByteArray_GET_SIZE(arg))
        _keep(keep, b)
        temp.view.data = PyBytes_AS_STRING(b)
        temp.view.size = PyBytes_GET_SIZE(b)
        cell.type_index = kMXFFIBytesView
        cell.v_ptr = &temp.view
        return 0
    if isinstance(arg, DataType):
        cell.type_index = kMXFFIDataType
        cell.v_dtype = (<DataType>arg).cdtype
        return 0
    # Sequences before the data type tests, which ask Python code (a list or a tuple is never a
    # data type): a list of arrays (np.concat, np.stack) pays for none of it.
    if isinstance(arg, (list, tuple)):
        if isinstance(arg, _Shape):
            try:
                return _set_object(_new_shape(arg), cell, keep)
            except OverflowError:
                raise OverflowError(f"{_arg_label(fn, index)}: a Shape dimension does not fit "
                                    f"in int64; got {tuple(arg)}") from None
        # A snapshot of the list's or tuple's own items (a subclass's __iter__ or __len__ is
        # not asked): converting one may run Python code (__index__, __float__) that changes
        # the list.
        items = (list.__getitem__(arg, slice(None)) if isinstance(arg, list)
                 else tuple.__getitem__(arg, slice(None)))
        return _set_object(_nested_call(_ARRAY, tuple(items), func, index), cell, keep)
    if isinstance(arg, dict):
        flat = []
        for k, v in dict.items(arg):
            flat.append(k)
            flat.append(v)
        return _set_object(_nested_call(_MAP, tuple(flat), func, index), cell, keep)
    if tp is type or (_np_dtype_type is not None and isinstance(arg, _np_dtype_type)):
        # A class or a numpy dtype spelled before (float, numpy.float32): one dict lookup.
        dt = _DTYPE_CACHE.get(arg)
        if dt is not None:
            cell.type_index = kMXFFIDataType
            cell.v_dtype = (<DataType>dt).cdtype
            return 0
    if (tp is type and _dtype.is_builtin_dtype(arg)) or _dtype.is_numpy_dtype_like(arg):
        # float, numpy.float32, numpy.dtype("int8"), ml_dtypes.bfloat16: a DataType wherever it
        # is passed, as dtype= wants (a callable parameter then refuses it; wrap the type in a
        # lambda to pass it as a callable).
        dt = _DTYPE_CACHE.get(arg)
        if dt is None:
            dt = _as_dtype(arg, _arg_label(fn, index))
        cell.type_index = kMXFFIDataType
        cell.v_dtype = (<DataType>dt).cdtype
        return 0
    if isinstance(arg, Device):
        cell.type_index = kMXFFIDevice
        cell.v_device = (<Device>arg).cdevice
        return 0
    if _ctypes_void_p is not None and isinstance(arg, _ctypes_void_p):
        cell.type_index = kMXFFIOpaquePtr
        cell.v_ptr = <void*><size_t>(arg.value or 0)
        return 0
    if hasattr(tp, "__dlpack_c_exchange_api__"):
        if _tensor_from_exchange(arg, _arg_label(fn, index), cell, temp, keep):
            return 0
    if hasattr(tp, "__dlpack__"):
        return _tensor_from_dlpack(arg, _arg_label(fn, index), cell, keep)
    if _has_buffer(arg):
        return _tensor_from_buffer(arg, _arg_label(fn, index), cell, temp, keep)
    if hasattr(tp, "__index__"):
        # operator.index: the result must be an int (TypeError otherwise), so this recursion
        # ends at the int case above.
        try:
            as_int = PyNumber_Index(arg)
        except TypeError as e:
            raise TypeError(f"{_arg_label(fn, index)}: {e}") from None
        _keep(keep, as_int)
        return _hook_arg_slow(func, index, <PyObject*>as_int, cell, temp, keep)
    if hasattr(tp, "__float__"):
        cell.type_index = kMXFFIFloat
        cell.v_float64 = float(arg)
        return 0
    if callable(arg):
        return _set_object(_as_function(arg), cell, keep)
    raise TypeError(f"{_arg_label(fn, index)} has type {tp.__module__}.{tp.__qualname__}"
                    ", which mxffi cannot pass to C++")


# numpy's types, taken from the imported numpy module once it is imported (an object whose
# class is numpy's is compared by identity, never by the class's name: any class can call
# itself numpy.ndarray). None until then: without numpy imported no object is numpy's.
cdef object _np_ndarray_type = None
cdef object _np_bool_type = None
cdef object _np_generic_type = None
cdef object _np_floating_type = None
cdef object _np_complexfloating_type = None
cdef object _np_dtype_type = None


cdef int _note_numpy() except -1:
    global _np_ndarray_type, _np_bool_type, _np_generic_type, _np_floating_type, _np_dtype_type
    global _np_complexfloating_type
    if _np_ndarray_type is None:
        numpy = _sys.modules.get("numpy")
        if numpy is not None and isinstance(getattr(numpy, "ndarray", None), type):
            _np_bool_type = numpy.bool_
            _np_generic_type = numpy.generic
            _np_floating_type = numpy.floating
            _np_complexfloating_type = numpy.complexfloating
            _np_dtype_type = numpy.dtype
            _np_ndarray_type = numpy.ndarray
    return 0


cdef object _numpy_scalar_value(arg, fn, Py_ssize_t index):
    """The Python number a numpy scalar holds (its .item()). A long double's .item() is the
    long double itself: float() of it, as Python's float() reads it; a complex long double's,
    complex() of it."""
    scalar = arg.item()
    if isinstance(scalar, _np_generic_type):
        if isinstance(arg, _np_floating_type):
            return PyFloat_FromDouble(PyFloat_AsDouble(arg))
        if isinstance(arg, _np_complexfloating_type):
            return PyComplex_FromDoubles(PyFloat_AsDouble(arg.real), PyFloat_AsDouble(arg.imag))
        tp = type(arg)
        raise TypeError(f"{_arg_label(fn, index)} has type {tp.__module__}.{tp.__qualname__}"
                        ", which mxffi cannot pass to C++")
    return scalar


cdef object _nested_call(Function container, tuple items, PyObject* func, Py_ssize_t index):
    """container(*items) for a list, tuple or dict argument, one level deeper; RecursionError
    naming the outermost function past MXFFI_PY_MAX_NESTING levels."""
    if MXFFIPyNestingEnter(func, index) > MXFFI_PY_MAX_NESTING:
        MXFFIPyNestingLeave()
        outer = MXFFIPyNestingFunc()
        label = _plain_arg_label(<object>outer if outer != NULL else None, MXFFIPyNestingIndex())
        # The text after the ";" is what fastcall.h (MXFFI_PY_NESTING_BOUND) recognises.
        raise RecursionError(f"{label} is nested more than {MXFFI_PY_MAX_NESTING} levels deep; "
                             f"mxffi converts containers nested at most "
                             f"{MXFFI_PY_MAX_NESTING} levels")
    try:
        # Straight to the vectorcall path: no Python call frame, so the depth is this bound's
        # alone, whatever sys.getrecursionlimit() says.
        return MXFFIPyCallPositional(<PyObject*>container, PySequence_Fast_ITEMS(items),
                                     len(items))
    finally:
        MXFFIPyNestingLeave()


cdef bint _has_buffer(obj):
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True


cdef Object _new_shape(shape):
    """A Shape object in the frozen MXFFIShapeObj layout, wrapped (and so owned) by an Object.

    Read from the tuple's own items and each int's own digits: a subclass's __len__,
    __getitem__ or __index__ is not asked."""
    cdef tuple dims = tuple.__getitem__(shape, slice(None))
    cdef Py_ssize_t n = len(dims), i
    cdef int overflow = 0
    cdef MXFFIShapeObj* s = <MXFFIShapeObj*>malloc(sizeof(MXFFIShapeObj) + sizeof(int64_t) * n)
    if s == NULL:
        raise MemoryError()
    cdef int64_t* data = <int64_t*>(s + 1)
    s.header.ref_counter = 1
    s.header.type_index = kMXFFIShape
    s.header.reserved = 0
    s.header.deleter = _free_str_obj
    s.data = data
    s.size = n
    cdef Object owner = Object.__new__(Object)
    owner.chandle = s
    for i in range(n):
        if not isinstance(dims[i], int):
            raise TypeError(f"mxffi.Shape: dimension {i} must be an int, got "
                            f"{type(dims[i]).__name__}")
        data[i] = PyLong_AsLongLongAndOverflow(dims[i], &overflow)
        if overflow != 0:
            raise OverflowError(f"mxffi.Shape: dimension {i} does not fit in int64")
    return owner


cdef int _set_object(obj, MXFFIAny* cell, PyObject** keep) except -1:
    if not isinstance(obj, Object):
        raise TypeError(f"mxffi: expected an mxffi object, got {type(obj).__name__}")
    cdef void* h = (<Object>obj).chandle
    _keep(keep, obj)
    cell.type_index = (<MXFFIObject*>h).type_index
    cell.v_obj = <MXFFIObject*>h
    return 0


cdef object _hook_ret_slow(PyObject* func, MXFFIAny* r):
    """Results the fast switch does not handle; takes ownership of the cell."""
    cdef int32_t index = r.type_index
    cdef MXFFIStringObj* s
    cdef MXFFIShapeObj* shape
    cdef MXFFIComplexObj* c
    if index == kMXFFIBytes:
        s = <MXFFIStringObj*>r.v_obj
        try:
            return PyBytes_FromStringAndSize(s.data, s.size)
        finally:
            MXFFIObjectFree(r.v_obj)
    if index == kMXFFISmallBytes:
        return PyBytes_FromStringAndSize(r.v_bytes, r.small_len)
    if index == kMXFFIUInt64:
        return PyLong_FromUnsignedLongLong(<unsigned long long>r.v_int64)
    if index == kMXFFIComplex:
        c = <MXFFIComplexObj*>r.v_obj
        try:
            return PyComplex_FromDoubles(c.real, c.imag)
        finally:
            MXFFIObjectFree(r.v_obj)
    if index == kMXFFIShape:
        shape = <MXFFIShapeObj*>r.v_obj
        try:
            return _Shape([shape.data[i] for i in range(shape.size)])
        finally:
            MXFFIObjectFree(r.v_obj)
    if index >= kMXFFIStaticObjectBegin:
        return _make_object(r.v_obj)
    if index == kMXFFIDataType:
        return _make_dtype(r.v_dtype)
    if index == kMXFFIDevice:
        return _make_device(r.v_device)
    if index == kMXFFIOpaquePtr:
        return _ctypes_void_p(<size_t>r.v_ptr) if r.v_ptr != NULL else None
    if index == kMXFFIRawStr:
        return r.v_c_str.decode("utf-8")
    name = "mxffi"
    if func != NULL and isinstance(<object>func, Function):
        name = _func_name(<Function>func)
    if index == kMXFFIDLTensorPtr:
        raise TypeError(f"{name}: returned a borrowed DLTensor*, which cannot outlive the call")
    raise TypeError(f"{name}: returned a value of unknown type code {index}")


cdef object _view_to_py(const MXFFIAny* v):
    """A borrowed argument cell (a C++ call into a Python callback) as a Python value."""
    cdef int32_t index = v.type_index
    cdef MXFFIByteArray* view
    cdef MXFFIAny owned
    if index >= kMXFFIStaticObjectBegin:
        if index == kMXFFIString or index == kMXFFIShape or index == kMXFFIBytes or \
                index == kMXFFIComplex:
            MXFFIObjectIncRef(v.v_obj)
            owned = v[0]
            return _hook_ret_slow(NULL, &owned) if index != kMXFFIString else \
                MXFFIPyReturn(NULL, &owned)
        return _wrap_borrowed(v.v_obj)
    if index == kMXFFIStrView:
        view = <MXFFIByteArray*>v.v_ptr
        return PyUnicode_DecodeUTF8(view.data, view.size, NULL)
    if index == kMXFFIBytesView:
        view = <MXFFIByteArray*>v.v_ptr
        return PyBytes_FromStringAndSize(view.data, view.size)
    if index == kMXFFIComplexView:
        return PyComplex_FromDoubles((<double*>v.v_ptr)[0], (<double*>v.v_ptr)[1])
    if index == kMXFFIDLTensorPtr:
        raise TypeError("mxffi: a DLTensor* argument cannot be passed to a Python callback")
    owned = v[0]
    return MXFFIPyReturn(NULL, &owned)


cdef void _free_str_obj(void* obj) noexcept nogil:
    free(obj)


cdef MXFFIObject* _new_str_obj(const char* data, size_t size, int32_t type_index) except NULL:
    """A String/Bytes object in the frozen MXFFIStringObj layout, owned by the caller."""
    cdef MXFFIStringObj* s = <MXFFIStringObj*>malloc(sizeof(MXFFIStringObj) + size + 1)
    if s == NULL:
        raise MemoryError()
    cdef char* buf = <char*>(s + 1)
    memcpy(buf, data, size)
    buf[size] = 0
    s.header.ref_counter = 1
    s.header.type_index = type_index
    s.header.reserved = 0
    s.header.deleter = _free_str_obj
    s.data = buf
    s.size = size
    return &s.header


cdef void _free_complex_obj(void* obj) noexcept nogil:
    free(obj)


cdef MXFFIObject* _new_complex_obj(double real, double imag) except NULL:
    """A Complex object in the frozen MXFFIComplexObj layout, owned by the caller."""
    cdef MXFFIComplexObj* c = <MXFFIComplexObj*>malloc(sizeof(MXFFIComplexObj))
    if c == NULL:
        raise MemoryError()
    c.header.ref_counter = 1
    c.header.type_index = kMXFFIComplex
    c.header.reserved = 0
    c.header.deleter = _free_complex_obj
    c.real = real
    c.imag = imag
    return &c.header


cdef int _py_to_owned(obj, MXFFIAny* out) except -1:
    """A Python value as an owned result cell (a callback's return value)."""
    cdef MXFFIAny cell
    cdef MXFFIPyArgTemp temp
    cdef PyObject* keep = NULL
    cdef MXFFIByteArray* view
    temp.owned = NULL
    try:
        MXFFIPyConvertArg(NULL, 0, <PyObject*>obj, &cell, &temp, &keep)
        if cell.type_index == kMXFFIStrView or cell.type_index == kMXFFIBytesView:
            view = <MXFFIByteArray*>cell.v_ptr
            if view.size <= 7:
                out.type_index = kMXFFISmallStr if cell.type_index == kMXFFIStrView \
                    else kMXFFISmallBytes
                out.small_len = view.size
                out.v_int64 = 0
                memcpy(out.v_bytes, view.data, view.size)
            else:
                out.type_index = kMXFFIString if cell.type_index == kMXFFIStrView else kMXFFIBytes
                out.small_len = 0
                out.v_obj = _new_str_obj(view.data, view.size, out.type_index)
            return 0
        if cell.type_index == kMXFFIComplexView:
            out.type_index = kMXFFIComplex
            out.small_len = 0
            out.v_obj = _new_complex_obj(temp.complex_parts[0], temp.complex_parts[1])
            return 0
        if cell.type_index == kMXFFIDLTensorPtr:
            raise TypeError(f"mxffi: a callback cannot return an array ({type(obj).__name__}) "
                            "as a borrowed tensor")
        if cell.type_index >= kMXFFIStaticObjectBegin:
            MXFFIObjectIncRef(cell.v_obj)
        out[0] = cell
        return 0
    finally:
        if temp.owned != NULL:
            MXFFIObjectFree(temp.owned)
        if keep != NULL:
            Py_DECREF(<object>keep)
