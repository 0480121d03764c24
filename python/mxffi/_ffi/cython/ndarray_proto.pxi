# mxffi.NDArray's protocols: DLPack export, pickling, numpy's __array_ufunc__ and
# __array_function__, and the helpers of squeeze/swapaxes; _init_ndarray wires the type up.

cdef extern from "dlpack/dlpack.h":
    ctypedef struct _DLManagedLegacy "DLManagedTensor":
        DLTensor dl_tensor
        void* manager_ctx
        void (*deleter)(_DLManagedLegacy* self) noexcept

cdef extern from "Python.h":
    ctypedef PyObject* (*_getattrofunc)(PyObject*, PyObject*)
    ctypedef struct _TypeSlots "PyTypeObject":
        _getattrofunc tp_getattro
    PyObject* PyObject_GenericGetAttr(PyObject*, PyObject*)
    void PyErr_Fetch(PyObject** ptype, PyObject** pvalue, PyObject** ptraceback) noexcept
    void PyErr_Restore(PyObject* type, PyObject* value, PyObject* traceback) noexcept
    void PyType_Modified(PyTypeObject*)

cdef extern from "ndarray_attrs.h":
    ctypedef object (*_NDSlowGetter)(PyObject*, const char*)
    ctypedef object (*_NDMakeDtype)(PyObject*)
    ctypedef struct MXFFIPyNDArrayLayout:
        Py_ssize_t handle
        Py_ssize_t shape_cache
        Py_ssize_t strides_cache
        Py_ssize_t dtype_cache
        Py_ssize_t ndim
        Py_ssize_t itemsize
        _NDSlowGetter slow
        _NDMakeDtype make_dtype
    int MXFFIPyNDInstallGetters(PyTypeObject* tp, PyTypeObject* object_type,
                                const MXFFIPyNDArrayLayout* layout) except -1

# The Cython properties the C getters stand in front of (ndarray_attrs.h), for their slow cases.
cdef dict _ND_PROPERTIES = {}


cdef object _nd_slow_getter(PyObject* self, const char* which):
    return _ND_PROPERTIES[which.decode()].__get__(<object>self, NDArray)


cdef object _nd_make_dtype(PyObject* self):
    return _dtype_object((<MXFFINDArrayObj*>(<Object>self).chandle).tensor.dtype)


cdef int _install_getters() except -1:
    cdef DLDataType f64
    f64.code = 2
    f64.bits = 64
    f64.lanes = 1
    cdef NDArray probe = _F_EMPTY((), _dtype_object(f64), _make_device_cpu())
    cdef char* base = <char*><PyObject*>probe
    cdef MXFFIPyNDArrayLayout layout
    for name in ("ndim", "size", "itemsize", "nbytes", "dtype", "shape", "strides"):
        _ND_PROPERTIES[name] = NDArray.__dict__[name]
    layout.handle = <char*>&probe.chandle - base
    layout.shape_cache = <char*>&probe._shape_cache - base
    layout.strides_cache = <char*>&probe._strides_cache - base
    layout.dtype_cache = <char*>&probe._dtype_cache - base
    layout.ndim = <char*>&probe._ndim - base
    layout.itemsize = <char*>&probe._itemsize - base
    layout.slow = _nd_slow_getter
    layout.make_dtype = _nd_make_dtype
    return MXFFIPyNDInstallGetters(<PyTypeObject*>NDArray, <PyTypeObject*>Object, &layout)


cdef Function _F_CURRENT_STREAM = None
cdef Function _F_WAIT_STREAM = None
cdef Function _F_RECORD_STREAM = None
cdef Function _F_EMPTY = None


# ---- DLPack export ----------------------------------------------------------------------------

cdef void _capsule_destructor(PyObject* capsule) noexcept:
    # A capsule never consumed still owns its tensor; a consumer renames it "used_*". A consumer
    # that refuses the tensor (numpy, for bfloat16) drops the capsule with its error pending:
    # the error is set aside while the tensor is freed (its deleter may free a producer's
    # tensor, running Python code), then put back untouched.
    cdef PyObject* err_type
    cdef PyObject* err_value
    cdef PyObject* err_tb
    PyErr_Fetch(&err_type, &err_value, &err_tb)
    _free_capsule_tensor(capsule)
    PyErr_Restore(err_type, err_value, err_tb)


cdef void _free_capsule_tensor(PyObject* capsule) noexcept:
    cdef _DLManagedLegacy* legacy
    cdef _DLManagedVersioned* versioned
    if PyCapsule_IsValid_raw(capsule, b"dltensor"):
        legacy = <_DLManagedLegacy*>PyCapsule_GetPointer_raw(capsule, b"dltensor")
        if legacy != NULL and legacy.deleter != NULL:
            legacy.deleter(legacy)
    elif PyCapsule_IsValid_raw(capsule, b"dltensor_versioned"):
        versioned = <_DLManagedVersioned*>PyCapsule_GetPointer_raw(capsule, b"dltensor_versioned")
        if versioned != NULL and versioned.deleter != NULL:
            versioned.deleter(versioned)


cdef void* _to_dlpack_ptr(src, bint versioned) except NULL:
    cdef MXFFIAny args[2]
    cdef MXFFIAny result
    args[0].type_index = kMXFFINDArray
    args[0].small_len = 0
    args[0].v_obj = <MXFFIObject*>(<Object>src).chandle
    args[1].type_index = kMXFFIBool
    args[1].small_len = 0
    args[1].v_int64 = versioned
    result.type_index = kMXFFINone
    result.small_len = 0
    if MXFFIFuncCall(_F_TO_DLPACK.chandle, args, 2, &result) != 0:
        _raise_last_error(_F_TO_DLPACK)
    if result.type_index != kMXFFIOpaquePtr or result.v_ptr == NULL:
        raise RuntimeError("mxffi.NDArray.__dlpack__: ndarray.to_dlpack returned no tensor")
    return result.v_ptr


cdef object _to_capsule(self, stream, max_version, dl_device, copy):
    cdef DLTensor* t = _tensor(self)
    _check_dense(self, "__dlpack__")
    own = (t.device.device_type, t.device.device_id)
    src = self
    if dl_device is not None and tuple(dl_device) != own:
        target = tuple(dl_device)
        if copy is False:
            raise BufferError(
                f"mxffi.NDArray.__dlpack__: cannot export to device {target} without a copy "
                f"(copy=False); the array is on {own}")
        if target[0] not in (1, 2):
            raise BufferError(
                f"mxffi.NDArray.__dlpack__: cannot export to device {target}; the array is "
                f"on {own}, and copies go to the CPU (1) and CUDA devices (2) only")
        try:
            src = _F_TO_DEVICE(self, Device(target[0], target[1]))
        except (RuntimeError, ValueError) as e:
            raise BufferError(
                f"mxffi.NDArray.__dlpack__: cannot export to device {target}: {e}") from e
    elif copy:
        src = _F_TO_DEVICE(self, self.device)
    t = _tensor(src)
    dev_type = t.device.device_type
    dev_id = t.device.device_id
    if stream is not None and (type(stream) is bool or not isinstance(stream, int)):
        raise TypeError(f"mxffi.NDArray.__dlpack__: stream must be an int or None, got "
                        f"{type(stream).__name__}")
    if dev_type == 2:
        if stream == 0:
            raise ValueError(
                "mxffi.NDArray.__dlpack__: stream 0 is ambiguous for CUDA and not allowed; "
                "use 1 for the legacy default stream or 2 for the per-thread one")
        if stream is not None and stream < -1:
            # Not a cudaStream_t: the driver would dereference it as one.
            raise ValueError(f"mxffi.NDArray.__dlpack__: stream must be None, -1, 1, 2 or a "
                             f"cudaStream_t, got {stream}")
        if stream != -1:
            # None and 1 name the legacy default stream, which handle 0 is in mxffi.
            consumer = 0 if stream in (None, 1) else stream
            producer = int(_F_CURRENT_STREAM(dev_id))
            if consumer != producer:
                _F_WAIT_STREAM(dev_id, consumer, producer)
                _F_RECORD_STREAM(src, consumer)
    elif stream is not None and stream != -1:
        raise ValueError(f"mxffi.NDArray.__dlpack__: stream must be None for CPU, got {stream}")
    if t.dtype.lanes != 1:
        # numpy and PyTorch refuse such a tensor after taking the capsule, and numpy then
        # frees it with its error still pending; refusing here keeps that from happening.
        raise BufferError(f"mxffi.NDArray.__dlpack__: dtype {self.dtype} has {t.dtype.lanes} "
                          "lanes; DLPack consumers take single-lane data types only")
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    if not versioned and _F_READ_ONLY(src):
        # The unversioned DLManagedTensor has no read-only flag: its consumer would write to
        # memory that must not change (the bytes a read-only numpy array views). numpy refuses
        # such an export too.
        raise BufferError(
            "mxffi.NDArray.__dlpack__: the array is read-only, and the unversioned (pre-1.0) "
            "DLPack protocol cannot mark it so; ask for max_version=(1, 0) or export a copy "
            "(copy=True)")
    cdef void* managed = _to_dlpack_ptr(src, versioned)
    try:
        return PyCapsule_New(managed, b"dltensor_versioned" if versioned else b"dltensor",
                             <void*>_capsule_destructor)
    except BaseException:
        if versioned:
            (<_DLManagedVersioned*>managed).deleter(<_DLManagedVersioned*>managed)
        else:
            (<_DLManagedLegacy*>managed).deleter(<_DLManagedLegacy*>managed)
        raise


# ---- pickling ---------------------------------------------------------------------------------

cdef object _reduce(self, protocol):
    cdef DLTensor* t = _tensor(self)
    if _stype(self) != kMXFFIStorageDefault:
        raise TypeError(f"cannot pickle a sparse mxffi array ({self.stype}); convert it with "
                        "tostype('default') first")
    dev = (t.device.device_type, t.device.device_id)
    host = _host(self)
    if not _contiguous(_tensor(host), False):
        host = _np_copy(host)
    ht = _tensor(host)
    nbytes = _size(ht) * _itemsize(ht)
    # The bytes, viewed (protocol 5: out of band where the pickler allows) or copied.
    raw = _RawBytes.__new__(_RawBytes)
    (<_RawBytes>raw).owner = host
    (<_RawBytes>raw).ptr = <char*>ht.data + ht.byte_offset
    (<_RawBytes>raw).nbytes = nbytes
    if protocol >= 5:
        import pickle
        data = pickle.PickleBuffer(raw)
    else:
        data = bytes(memoryview(raw))
    return (_rebuild_ndarray, (str(self.dtype), self.shape, dev, data))


cdef class _RawBytes:
    """A read-only buffer over an array's contiguous bytes, keeping the array alive."""

    cdef object owner
    cdef char* ptr
    cdef Py_ssize_t nbytes

    def __getbuffer__(self, Py_buffer* view, int flags):
        if flags & 0x0001:  # PyBUF_WRITABLE
            raise BufferError("mxffi.NDArray's pickled bytes are read-only")
        view.buf = self.ptr
        view.obj = self
        view.len = self.nbytes
        view.readonly = 1
        view.itemsize = 1
        view.format = NULL
        view.ndim = 1
        view.shape = &self.nbytes
        view.strides = NULL
        view.suboffsets = NULL
        view.internal = NULL

    def __releasebuffer__(self, Py_buffer* view):
        pass


def _rebuild_ndarray(dtype, shape, device, data):
    """Unpickle an NDArray: every field is checked before anything is allocated."""
    cdef Py_buffer buf
    cdef int64_t n = 1, d
    cdef Py_ssize_t i
    if type(dtype) is not str:
        raise TypeError(f"mxffi.NDArray unpickling: dtype must be a str, got "
                        f"{type(dtype).__name__}")
    dt = DataType(dtype)
    if type(shape) is not tuple or len(shape) > _MAX_DIMS:
        raise TypeError(f"mxffi.NDArray unpickling: shape must be a tuple of at most "
                        f"{_MAX_DIMS} ints, got {shape!r:.200}")
    cdef int64_t nonzero = 1
    for x in shape:
        if type(x) is not int or x < 0:
            raise ValueError(f"mxffi.NDArray unpickling: shape must hold non-negative ints, "
                             f"got {shape!r:.200}")
        if x > (1 << 62):
            raise ValueError(f"mxffi.NDArray unpickling: shape {shape!r:.200} is too large")
        d = x
        # numpy's rule: the extents other than 0 multiply within bounds too (a zero extent
        # must not hide a count a later reshape would overflow).
        if d != 0 and nonzero > (1 << 62) // d:
            raise ValueError(f"mxffi.NDArray unpickling: shape {shape!r:.200} is too large")
        if d != 0:
            nonzero *= d
        n *= d
    if (type(device) is not tuple or len(device) != 2 or type(device[0]) is not int
            or type(device[1]) is not int):
        raise TypeError(f"mxffi.NDArray unpickling: device must be a (type, id) tuple of ints, "
                        f"got {device!r:.200}")
    itemsize = ((<DataType>dt).cdtype.bits * (<DataType>dt).cdtype.lanes + 7) // 8
    cdef DLDevice cpu
    cpu.device_type = 1
    cpu.device_id = 0
    out = _F_EMPTY(shape, dt, _device_object(cpu))
    cdef DLTensor* t = _tensor(out)
    PyObject_GetBuffer(data, &buf, 0)
    try:
        if buf.len != n * itemsize:
            raise ValueError(f"mxffi.NDArray unpickling: {buf.len} bytes of data for shape "
                             f"{shape} of {dt} ({n * itemsize} bytes expected)")
        if (<DataType>dt).cdtype.code == 6:  # kDLBool: the kernels read bytes as C++ bool
            for i in range(buf.len):
                if (<uint8_t*>buf.buf)[i] > 1:
                    raise ValueError(f"mxffi.NDArray unpickling: bool element "
                                     f"{i // max(itemsize, 1)} holds byte "
                                     f"{(<uint8_t*>buf.buf)[i]}; a bool is 0 or 1")
        if buf.len:
            memcpy(<char*>t.data + t.byte_offset, buf.buf, buf.len)
    finally:
        PyBuffer_Release(&buf)
    if device != (1, 0):
        out = _F_TO_DEVICE(out, Device(device[0], device[1]))
    return out


# ---- numpy's protocols ------------------------------------------------------------------------

# numpy ufunc names whose mxffi function has the array API's name.
_UFUNC_NAMES = {
    "true_divide": "divide",
    "invert": "bitwise_invert",
    "left_shift": "bitwise_left_shift",
    "right_shift": "bitwise_right_shift",
}


cdef bint _any_cuda(values) except -1:
    for v in values:
        if isinstance(v, NDArray) and _tensor(v).device.device_type != 1:
            return True
        if type(v) in (list, tuple) and _any_cuda(v):
            return True
    return False


cdef object _to_numpy_args(values):
    out = []
    for v in values:
        if isinstance(v, NDArray):
            out.append(_asnumpy(v))
        elif type(v) in (list, tuple):
            out.append(type(v)(_to_numpy_args(v)))
        else:
            out.append(v)
    return out


cdef object _mxffi_function(str name):
    import mxffi.np as mnp
    fn = getattr(mnp, name, None)
    return fn if isinstance(fn, Function) else None


cdef object _array_ufunc(ufunc, method, tuple inputs, dict kwargs):
    """mxffi's function of the ufunc's name where there is one (CuPy's rule); otherwise numpy's
    ufunc on CPU arrays seen as numpy arrays; TypeError for CUDA arrays rather than a copy."""
    out = kwargs.get("out")
    if method == "__call__":
        fn = _mxffi_function(_UFUNC_NAMES.get(ufunc.__name__, ufunc.__name__))
        others = set(kwargs) - {"out"}
        if fn is not None and not others and (out is None or len(out) == 1):
            if out is None:
                return fn(*inputs)
            return fn(*inputs, out=out[0])
    if _any_cuda(inputs) or (out is not None and _any_cuda(out)):
        raise TypeError(f"mxffi.NDArray.__array_ufunc__: numpy.{ufunc.__name__}.{method} with "
                        "CUDA arrays: mxffi has no such function, and numpy would need a copy "
                        "to the host; copy with .to('cpu') first")
    kw = dict(kwargs)
    if out is not None:
        kw["out"] = tuple(_to_numpy_args(out))
    result = getattr(ufunc, method)(*_to_numpy_args(inputs), **kw)
    if out is not None:
        return out[0] if len(out) == 1 else out
    return result


cdef object _array_function(func, types, tuple args, dict kwargs):
    fn = _mxffi_function(func.__name__)
    if fn is not None:
        return fn(*args, **kwargs)
    if _any_cuda(args) or _any_cuda(list(kwargs.values())):
        raise TypeError(f"mxffi.NDArray.__array_function__: numpy.{func.__name__} with CUDA "
                        "arrays: mxffi has no such function, and numpy would need a copy to "
                        "the host; copy with .to('cpu') first")
    kw = {k: _to_numpy_args((v,))[0] for k, v in kwargs.items()}
    return func(*_to_numpy_args(args), **kw)


# ---- axes -------------------------------------------------------------------------------------

cdef int _norm_axis(axis, int ndim, str what) except -1:
    cdef long long a
    if type(axis) is bool or not hasattr(type(axis), "__index__"):
        raise TypeError(f"mxffi.NDArray.{what}: an axis must be an int, got "
                        f"{type(axis).__name__}")
    a = axis.__index__()
    if a < -ndim or a >= ndim:
        from mxffi._ffi.error import error_class
        raise error_class("AxisError")(
            f"mxffi.NDArray.{what}: axis {a} is out of bounds for array of dimension {ndim}")
    return <int>(a + ndim if a < 0 else a)


cdef object _squeeze(self, axis):
    cdef DLTensor* t = _tensor(self)
    cdef int64_t st[_MAX_DIMS]
    cdef int64_t shape[_MAX_DIMS]
    cdef int64_t strides[_MAX_DIMS]
    cdef bint drop[_MAX_DIMS]
    cdef int i, k = 0
    _check_dense(self, "squeeze")
    for i in range(t.ndim):
        drop[i] = axis is None and t.shape[i] == 1
    if axis is not None:
        for a in (axis if type(axis) is tuple else (axis,)):
            i = _norm_axis(a, t.ndim, "squeeze")
            if t.shape[i] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not "
                                 f"equal to one (axis {i} of shape {self.shape})")
            drop[i] = True
    _elem_strides(t, st)
    for i in range(t.ndim):
        if not drop[i]:
            shape[k] = t.shape[i]
            strides[k] = st[i]
            k += 1
    return _make_view(self, 0, k, shape, strides)


# ---- set-up -----------------------------------------------------------------------------------

def _init_ndarray():
    global _F_VIEW, _F_ASSIGN, _F_READ_ONLY, _F_TO_DLPACK, _F_TO_DEVICE, _F_COPYTO, _F_BASE
    global _F_CURRENT_STREAM, _F_WAIT_STREAM, _F_RECORD_STREAM, _F_EMPTY
    _F_VIEW = get_global_func("ndarray.view")
    _F_ASSIGN = get_global_func("ndarray.assign")
    _F_READ_ONLY = get_global_func("ndarray.read_only")
    _F_TO_DLPACK = get_global_func("ndarray.to_dlpack")
    _F_TO_DEVICE = get_global_func("ndarray.to_device")
    _F_COPYTO = get_global_func("ndarray.copyto")
    _F_BASE = get_global_func("ndarray.base")
    _F_EMPTY = get_global_func("ndarray.empty")
    _F_CURRENT_STREAM = get_global_func("cuda.current_stream")
    _F_WAIT_STREAM = get_global_func("cuda.stream_wait_stream")
    _F_RECORD_STREAM = get_global_func("cuda.record_stream")
    # Named where users meet it (repr, signatures, errors): mxffi.NDArray, as numpy's type is
    # numpy.ndarray. A static type's __module__ and __name__ come from tp_name.
    (<PyTypeObject*>NDArray).tp_name = b"mxffi.NDArray"
    # Python's own attribute lookup: Object's __getattr__ (reflected fields, which arrays have
    # none of) would put a slot of Cython's in front of every a.shape and a.dtype.
    (<_TypeSlots*>NDArray).tp_getattro = PyObject_GenericGetAttr
    PyType_Modified(<PyTypeObject*>NDArray)
    _load_np_functions()
    _init_indexing()
    register_object("mxffi.NDArray")(NDArray)
    _install_getters()
