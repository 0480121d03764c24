# DLPack's C exchange API (DLPack 1.2+, offered as a PyCapsule since 1.3): a producer type's
# function table turns one of its tensors into a DLManagedTensorVersioned with no capsule made
# and none of the producer's Python code run; ndarray.from_dlpack then takes the tensor over.
# Declarations: include/mxffi/ndarray/dlpack_compat.h (or a 1.2+ dlpack.h).

from cpython.exc cimport PyErr_Clear


cdef extern from "mxffi/ndarray/dlpack_compat.h":
    # Cython names of our own: base.pxi declares DLManagedTensorVersioned with dl_tensor alone.
    ctypedef struct _DLPackVersion "DLPackVersion":
        uint32_t major
        uint32_t minor

    ctypedef struct _DLManagedVersioned "DLManagedTensorVersioned":
        _DLPackVersion version
        void* manager_ctx
        void (*deleter)(_DLManagedVersioned* self) noexcept
        uint64_t flags
        DLTensor dl_tensor

    ctypedef enum _DLDeviceType "DLDeviceType":
        pass

    ctypedef struct _DLPackExchangeAPIHeader "DLPackExchangeAPIHeader":
        _DLPackVersion version
        void* prev_api  # a DLPackExchangeAPIHeader*

    ctypedef struct _DLPackExchangeAPI "DLPackExchangeAPI":
        _DLPackExchangeAPIHeader header
        # 0, or -1 with a Python exception set: checked by hand, hence noexcept.
        int (*managed_tensor_from_py_object_no_sync)(void* py_object,
                                                     _DLManagedVersioned** out) noexcept
        # May be NULL: a non-owning view, valid while the object lives unchanged.
        int (*dltensor_from_py_object_no_sync)(void* py_object, DLTensor* out) noexcept
        # The producer's current stream of a device (NULL for the CPU).
        int (*current_work_stream)(_DLDeviceType device_type, int32_t device_id,
                                   void** out_current_stream) noexcept

    const char* MXFFI_DLPACK_EXCHANGE_API_CAPSULE_NAME


# type -> (its __dlpack_c_exchange_api__ object, address of the usable table or 0). The capsule
# is compared on every use, so a type given a table later (or a new one) is looked at again.
# Types are held strongly; producers have a handful of them.
cdef dict _EXCHANGE_APIS = {}
cdef Function _FROM_DLPACK_FUNC = None


cdef object _mro_lookup(tp, str name):
    """The class in tp's MRO whose own __dict__ holds name, or None."""
    for cls in tp.__mro__:
        if name in cls.__dict__:
            return cls
    return None


cdef size_t _resolve_exchange_api(tp, cap) except? 0:
    """The table to use for tp's tensors, or 0 where it must not be used (capsule route)."""
    cdef _DLPackExchangeAPIHeader* header
    if not PyCapsule_IsValid(cap, MXFFI_DLPACK_EXCHANGE_API_CAPSULE_NAME):
        return 0  # DLPack 1.2's bare int, or not a table at all
    header = <_DLPackExchangeAPIHeader*>PyCapsule_GetPointer(
        cap, MXFFI_DLPACK_EXCHANGE_API_CAPSULE_NAME)
    # A newer major version may lay the table out differently: walk back to a 1.x one.
    while header != NULL and header.version.major != 1:
        header = <_DLPackExchangeAPIHeader*>header.prev_api
    if header == NULL or (<_DLPackExchangeAPI*>header).managed_tensor_from_py_object_no_sync == NULL:
        return 0
    # The table exports what the class that set it exports; a subclass overriding __dlpack__
    # changes that, so its tensors go through its own __dlpack__.
    owner = _mro_lookup(tp, "__dlpack_c_exchange_api__")
    dlpack_owner = _mro_lookup(tp, "__dlpack__")
    if owner is None or dlpack_owner is None or not issubclass(owner, dlpack_owner):
        return 0
    return <size_t>header


cdef _DLPackExchangeAPI* _exchange_api_of(obj) except? NULL:
    """The table to use for obj's tensor, or NULL."""
    tp = type(obj)
    cap = getattr(tp, "__dlpack_c_exchange_api__", None)
    if cap is None:
        return NULL
    entry = _EXCHANGE_APIS.get(tp)
    if entry is None or (<tuple>entry)[0] is not cap:
        entry = (cap, _resolve_exchange_api(tp, cap))
        _EXCHANGE_APIS[tp] = entry
    return <_DLPackExchangeAPI*><size_t>(<tuple>entry)[1]


# Producer type -> its table owner's (is_neg, is_conj), read once, when the type is first
# offered to the exact-type switch (fastcall.h's MXFFIPyExchangeType; entered while it has room).
cdef dict _EXCHANGE_BITS = {}


cdef object _lazy_bit_method(owner, str name):
    """The table owner's own is_neg / is_conj (torch), or None."""
    method = getattr(owner, name, None)
    return method if callable(method) else None


cdef int _tensor_from_exchange(obj, str label, MXFFIAny* cell, MXFFIPyArgTemp* temp,
                               PyObject** keep) except -1:
    """obj's tensor through its type's exchange table, borrowed for the call (no capsule, none of
    the producer's Python code): 1 when done, 0 for the capsule route (no usable table, or the
    table refuses the tensor: __dlpack__ then raises the producer's own error).

    Unlike torch's __dlpack__, the table exports tensors that require grad: passing one to a
    function reads or writes its memory for that call only, as a torch extension would. Tensors
    whose lazy negation or conjugation bit is set are refused: the table exports their memory
    without applying it, which would be a silently wrong value.
    """
    cdef _DLPackExchangeAPI* api = _exchange_api_of(obj)
    cdef DLTensor* t = &temp.tensor
    cdef _TensorArg holder
    cdef void* stream = NULL
    if api == NULL or api.dltensor_from_py_object_no_sync == NULL:
        return 0
    tp = type(obj)
    bits = _EXCHANGE_BITS.get(tp)
    if bits is None:
        owner = _mro_lookup(tp, "__dlpack_c_exchange_api__")
        bits = (_lazy_bit_method(owner, "is_neg"), _lazy_bit_method(owner, "is_conj"))
        _EXCHANGE_BITS[tp] = bits
        MXFFIPyAddExchangeType(tp, <void*>api.dltensor_from_py_object_no_sync,
                               <PyObject*>bits[0] if bits[0] is not None else NULL,
                               <PyObject*>bits[1] if bits[1] is not None else NULL)
    is_neg, is_conj = bits
    if api.dltensor_from_py_object_no_sync(<void*>obj, t) != 0:
        PyErr_Clear()
        return 0
    if is_neg is not None and is_neg(obj) is True:
        raise _lazy_bit_refused(label, obj, "negative", "resolve_neg")
    if t.dtype.code == 5 and is_conj is not None and is_conj(obj) is True:  # kDLComplex
        raise _lazy_bit_refused(label, obj, "conjugate", "resolve_conj")
    if t.device.device_type == 2 and api.current_work_stream != NULL:  # kDLCUDA
        # The call runs on the producer's current stream of the device, as its own ops would.
        holder = _TensorArg.__new__(_TensorArg)
        if api.current_work_stream(<_DLDeviceType>2, t.device.device_id, &stream) != 0:
            raise RuntimeError(f"{label}: {tp.__name__}'s DLPack table gave no current stream")
        _use_stream(holder, t.device.device_id, <size_t>stream)
        _keep(keep, holder)
    elif t.device.device_type == 2:
        _wait_for_legacy_stream(t.device.device_id)
    cell.type_index = kMXFFIDLTensorPtr
    cell.v_ptr = t
    return 1


def _from_dlpack_exchange(obj):
    """An NDArray taking obj's tensor through its type's DLPack C exchange API, no capsule made.

    Returns None where the type offers no usable table or the table's export fails (its Python
    error is dropped): the caller then goes the capsule route, which raises the producer's own
    error. Producer-side checks made only in Python (torch refuses tensors that require grad
    in __dlpack__, not in the table) are the caller's to make; see mxffi.ndarray.from_dlpack.
    """
    global _FROM_DLPACK_FUNC
    cdef _DLPackExchangeAPI* api = _exchange_api_of(obj)
    cdef _DLManagedVersioned* managed = NULL
    cdef MXFFIAny args[2]
    cdef MXFFIAny result
    if api == NULL:
        return None
    if api.managed_tensor_from_py_object_no_sync(<void*>obj, &managed) != 0 or managed == NULL:
        PyErr_Clear()
        return None
    if _FROM_DLPACK_FUNC is None:
        _FROM_DLPACK_FUNC = get_global_func("ndarray.from_dlpack")
    args[0].type_index = kMXFFIOpaquePtr
    args[0].small_len = 0
    args[0].v_ptr = managed
    args[1].type_index = kMXFFIBool
    args[1].small_len = 0
    args[1].v_int64 = 1
    result.type_index = kMXFFINone
    result.small_len = 0
    if MXFFIFuncCall(_FROM_DLPACK_FUNC.chandle, args, 2, &result) != 0:
        # ndarray.from_dlpack takes nothing when it raises: the tensor is still ours to free.
        if managed.deleter != NULL:
            managed.deleter(managed)
        _raise_last_error(_FROM_DLPACK_FUNC)
    return MXFFIPyReturn(<PyObject*>_FROM_DLPACK_FUNC, &result)
