# C declarations: the C ABI (c_api.h), DLPack, and the vectorcall slot (fastcall.h).
# The Cython core reaches libmxffi through these alone.
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF, Py_DECREF
from cpython.pythread cimport (PyThread_type_lock, PyThread_allocate_lock, PyThread_acquire_lock,
                               PyThread_release_lock)
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy


cdef extern from "dlpack/dlpack.h":
    ctypedef struct DLDataType:
        uint8_t code
        uint8_t bits
        uint16_t lanes

    ctypedef struct DLDevice:
        int device_type
        int32_t device_id

    ctypedef struct DLTensor:
        void* data
        DLDevice device
        int32_t ndim
        DLDataType dtype
        int64_t* shape
        int64_t* strides
        uint64_t byte_offset

    ctypedef struct DLManagedTensor:
        DLTensor dl_tensor


cdef extern from "mxffi/ndarray/dlpack_compat.h":
    ctypedef struct DLManagedTensorVersioned:
        DLTensor dl_tensor


cdef extern from "mxffi/c_api.h":
    enum:
        kMXFFINone
        kMXFFIInt
        kMXFFIBool
        kMXFFIFloat
        kMXFFIOpaquePtr
        kMXFFIDataType
        kMXFFIDevice
        kMXFFIDLTensorPtr
        kMXFFIRawStr
        kMXFFISmallStr
        kMXFFISmallBytes
        kMXFFIStrView
        kMXFFIBytesView
        kMXFFIComplexView
        kMXFFIUInt64
        kMXFFIStaticObjectBegin
        kMXFFIObject
        kMXFFIString
        kMXFFIBytes
        kMXFFIError
        kMXFFIFunction
        kMXFFIArray
        kMXFFIMap
        kMXFFIADT
        kMXFFIShape
        kMXFFINDArray
        kMXFFILibrary
        kMXFFIComplex
        kMXFFIDynObjectBegin
    ctypedef enum MXFFIStorageType:
        kMXFFIStorageDefault
        kMXFFIStorageRowSparse
        kMXFFIStorageCSR
        kMXFFIStorageCOO

    ctypedef struct MXFFIByteArray:
        const char* data
        size_t size

    ctypedef struct MXFFIObject:
        int64_t ref_counter
        int32_t type_index
        uint32_t reserved
        void (*deleter)(void*) noexcept nogil

    ctypedef struct MXFFIAny:
        int32_t type_index
        uint32_t small_len
        int64_t v_int64
        double v_float64
        void* v_ptr
        const char* v_c_str
        MXFFIObject* v_obj
        DLDataType v_dtype
        DLDevice v_device
        char v_bytes[8]

    ctypedef struct MXFFIStringObj:
        MXFFIObject header
        const char* data
        int64_t size

    ctypedef struct MXFFIShapeObj:
        MXFFIObject header
        const int64_t* data
        int64_t size

    ctypedef struct MXFFIComplexObj:
        MXFFIObject header
        double real
        double imag

    ctypedef struct MXFFINDArrayObj:
        MXFFIObject header
        DLTensor tensor
        int32_t stype

    ctypedef int (*MXFFISafeCallType)(void*, const MXFFIAny*, int32_t, MXFFIAny*) noexcept nogil
    ctypedef int (*MXFFICheckSignalsFunc)() noexcept nogil

    int MXFFIGetVersion(int32_t* major, int32_t* minor, int32_t* patch) nogil
    int MXFFIErrorGetLast(const char** kind, const char** message, const char** backtrace) nogil
    int MXFFIErrorSet(const char* kind, const char* message, const char* backtrace) nogil
    int MXFFIEnvSetCheckSignals(MXFFICheckSignalsFunc func) nogil
    ctypedef void* (*MXFFIReleaseGILFunc)() noexcept nogil
    ctypedef void (*MXFFIRestoreGILFunc)(void*) noexcept nogil
    int MXFFIEnvSetGILHooks(MXFFIReleaseGILFunc release, MXFFIRestoreGILFunc restore) nogil
    ctypedef int (*MXFFIWarnFunc)(const char* category, const char* message) noexcept nogil
    int MXFFIEnvSetWarnHook(MXFFIWarnFunc func) nogil
    int MXFFIObjectIncRef(void* obj) nogil
    int MXFFIObjectFree(void* obj) nogil
    int MXFFIObjectGetTypeIndex(void* obj, int32_t* out) nogil
    int MXFFITypeKey2Index(const char* type_key, int32_t* out) nogil
    int MXFFITypeIndex2Key(int32_t type_index, const char** out) nogil
    int MXFFIFuncCall(void* func, const MXFFIAny* args, int32_t num_args, MXFFIAny* result) nogil
    int MXFFIFuncCreate(void* resource, MXFFISafeCallType callback, void (*deleter)(void*) noexcept nogil,
                        void** out) nogil
    int MXFFIFuncGetGlobal(const char* name, void** out) nogil
    int MXFFIFuncSetGlobal(const char* name, void* func, int override) nogil
    int MXFFIFuncListGlobalNames(void** out) nogil


cdef extern from "fastcall.h":
    ctypedef struct MXFFIPyArgTemp:
        MXFFIByteArray view
        double complex_parts[2]
        DLTensor tensor
        int64_t strides[6]
        MXFFIObject* owned

    ctypedef int (*MXFFIPyArgSlowFn)(PyObject*, Py_ssize_t, PyObject*, MXFFIAny*,
                                     MXFFIPyArgTemp*, PyObject**) except -1
    ctypedef object (*MXFFIPyRetSlowFn)(PyObject*, MXFFIAny*)
    ctypedef object (*MXFFIPyRaiseFn)(PyObject*)
    ctypedef object (*MXFFIPyCallKwFn)(PyObject*, PyObject**, Py_ssize_t, PyObject*)

    ctypedef struct MXFFIPyHooks:
        MXFFIPyArgSlowFn arg_slow
        MXFFIPyRetSlowFn ret_slow
        MXFFIPyRaiseFn raise_error
        MXFFIPyCallKwFn call_kw
        PyTypeObject* object_type
        Py_ssize_t handle_offset
        Py_ssize_t flags_offset

    int MXFFI_PY_RELEASE_GIL
    int MXFFI_PY_VARIADIC
    int MXFFI_PY_MAX_POS_SHIFT
    int MXFFIPySetHooks(const MXFFIPyHooks* hooks, PyTypeObject* function_type,
                        Py_ssize_t vectorcall_offset) except -1
    void* MXFFIPyVectorcallPtr()
    void* MXFFIPyVectorcallBoundPtr()
    void* MXFFIPyVectorcallScalarsPtr()
    void* MXFFIPyVectorcallScalarsHeldPtr()
    void* MXFFIPyVectorcallScalarsHeldTextPtr()
    void* MXFFIPyVectorcallNoArgsHeldPtr()
    void MXFFIPySetNdarrayType(object tp)
    void MXFFIPySetDataType(PyTypeObject* tp, Py_ssize_t offset)
    int MXFFIPySetClass(int32_t type_index, object cls) except -1
    int MXFFIPySetSparseClass(int32_t slot, object cls) except -1
    int MXFFIPyAddExchangeType(object tp, void* to_dltensor, PyObject* is_neg,
                               PyObject* is_conj) except -1
    enum:
        kMXFFIPyOpaqueSparse
    object MXFFIPyCallPositional(PyObject* func, PyObject** args, Py_ssize_t nargs)
    object MXFFIPyReturn(PyObject* func, MXFFIAny* result)
    int MXFFIPyIsFinalizing() nogil
    void MXFFIPyRestoreThread(void* state) nogil
    void* MXFFIPySaveThread() nogil
    void MXFFIForeignErrorReleased(int64_t token) nogil
    int MXFFIPyTakeReleased(int64_t* out, int max_count) nogil
    PyGILState_STATE MXFFIPyEnsureGIL() nogil
    void MXFFIPyCloseGILGate()
    int MXFFIPyNDInit(PyObject* obj) except -1
    int MXFFIPyNDDtypeSlot(DLDataType t) noexcept
    PyObject* mxffi_nd_dtype_slots[256]
    int MXFFIPyNumpyTensor(PyObject* arg, MXFFIAny* cell, MXFFIPyArgTemp* temp)
    int MXFFIPyConvertArg(PyObject* func, Py_ssize_t i, PyObject* arg, MXFFIAny* cell,
                          MXFFIPyArgTemp* temp, PyObject** keep) except -1
    int MXFFI_PY_MAX_NESTING
    int MXFFIPyNestingEnter(PyObject* func, Py_ssize_t index) noexcept
    void MXFFIPyNestingLeave() noexcept
    int MXFFIPyNestingDepth() noexcept
    PyObject* MXFFIPyNestingFunc() noexcept
    Py_ssize_t MXFFIPyNestingIndex() noexcept


cdef extern from "Python.h":
    ctypedef struct PyThreadState
    ctypedef enum PyGILState_STATE:
        PyGILState_LOCKED
        PyGILState_UNLOCKED
    void PyGILState_Release(PyGILState_STATE) nogil
    int PyGILState_Check() nogil
    PyThreadState* PyEval_SaveThread() nogil
    void PyEval_RestoreThread(PyThreadState*) nogil
    int PyErr_CheckSignals() except -1
    PyObject** PySequence_Fast_ITEMS(object)
    const char* PyUnicode_AsUTF8AndSize(object, Py_ssize_t*) except NULL
    object PyUnicode_DecodeUTF8(const char*, Py_ssize_t, const char*)
    object PyBytes_FromStringAndSize(const char*, Py_ssize_t)
    char* PyBytes_AsString(object) except NULL
    object PyComplex_FromDoubles(double, double)
    double PyComplex_RealAsDouble(object) except? -1.0
    double PyComplex_ImagAsDouble(object) except? -1.0
    char* PyBytes_AS_STRING(object)
    Py_ssize_t PyBytes_GET_SIZE(object)
    char* PyByteArray_AS_STRING(object)
    Py_ssize_t PyByteArray_GET_SIZE(object)
    object PyNumber_Index(object)
    object PyFloat_FromDouble(double)
    double PyFloat_AsDouble(object) except? -1.0
    int PyType_IsSubtype(PyTypeObject*, PyTypeObject*)
    long long PyLong_AsLongLongAndOverflow(object, int*) except? -1
    unsigned long long PyLong_AsUnsignedLongLong(object) except? -1
    object PyLong_FromUnsignedLongLong(unsigned long long)
    void* PyCapsule_GetPointer(object, const char*) except? NULL
    int PyCapsule_IsValid(object, const char*)
    int PyObject_GetBuffer(object, Py_buffer*, int) except -1
    void PyBuffer_Release(Py_buffer*)
