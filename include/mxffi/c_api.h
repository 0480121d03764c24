/*!
 * \file mxffi/c_api.h
 * \brief The mxffi C ABI: the only C surface libmxffi exports.
 *
 * What is frozen. Everything in this header is part of ABI major version
 * MXFFI_VERSION_MAJOR: the value cell (MXFFIAny) and its type codes, the object
 * header (MXFFIObject), the layouts of the String/Bytes, Function, Array, ADT,
 * Shape and NDArray objects, and the signature of every function. A binding may
 * read those structs directly (pure offset arithmetic) instead of calling in.
 * tests/cpp/test_abi_layout.cc pins every size, offset and type code with
 * static_asserts; tests/c/test_c_api.c compiles this header as C99.
 *
 * What may be added. New type codes in the unused ranges, new functions, and new
 * registered globals (function signatures, reflection, NDArray creation, DLPack,
 * op invocation and library loading are all globals reached through
 * MXFFIFuncCall, so this header stays small) bump the minor version. Changing
 * anything frozen bumps the major version.
 *
 * Conventions. Every function returns 0 on success and -1 on error; on error the
 * kind, message and backtrace wait in a thread-local slot read with
 * MXFFIErrorGetLast. No C++ exception ever crosses this boundary.
 */
#ifndef MXFFI_C_API_H_
#define MXFFI_C_API_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

/* Section: versions ------------------------------------------------------ */

/*! \brief C ABI major version: bumped when anything frozen here changes. */
#define MXFFI_VERSION_MAJOR 1
/*! \brief C ABI minor version: bumped when something is added. */
#define MXFFI_VERSION_MINOR 8
/*! \brief C ABI patch version. */
#define MXFFI_VERSION_PATCH 0

/*!
 * \brief The ABI major a library records when it registers functions.
 * \note A library built against these headers passes this to the registry with
 *  every MXFFI_REGISTER_API; the registry refuses a library whose major differs
 *  from its own. It equals MXFFI_VERSION_MAJOR unless a build overrides it, which
 *  the tests do to produce a library "built against another major".
 */
#ifndef MXFFI_BUILD_ABI_MAJOR
#define MXFFI_BUILD_ABI_MAJOR MXFFI_VERSION_MAJOR
#endif

#ifdef _WIN32
#ifdef MXFFI_EXPORTS
#define MXFFI_DLL __declspec(dllexport)
#else
#define MXFFI_DLL __declspec(dllimport)
#endif
#else
#define MXFFI_DLL __attribute__((visibility("default")))
#endif

/* The value cell's payload is an anonymous union (C11, and C++); C99 compilers accept it as
 * an extension, marked so that -pedantic stays quiet. */
#if defined(__GNUC__) && !defined(__cplusplus) && \
    (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L)
#define MXFFI_ANON_UNION __extension__ union
#else
#define MXFFI_ANON_UNION union
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Section: type codes ---------------------------------------------------- */

/*!
 * \brief Type codes of the value cell. The numbers are fixed forever.
 *
 * Codes below kMXFFIStaticObjectBegin are plain values held in the payload.
 * Codes from kMXFFIStaticObjectBegin up mean the payload is a refcounted object
 * (v_obj); the static object types have fixed codes, and types registered at run
 * time get codes from kMXFFIDynObjectBegin up.
 */
typedef enum {
  /*! \brief None / null; payload is zero. */
  kMXFFINone = 0,
  /*! \brief 64-bit signed integer in v_int64. */
  kMXFFIInt = 1,
  /*! \brief Boolean in v_int64 (0 or 1). */
  kMXFFIBool = 2,
  /*! \brief IEEE double in v_float64. */
  kMXFFIFloat = 3,
  /*! \brief Opaque, unowned pointer in v_ptr. */
  kMXFFIOpaquePtr = 4,
  /*! \brief DLDataType in v_dtype. */
  kMXFFIDataType = 5,
  /*! \brief DLDevice in v_device. */
  kMXFFIDevice = 6,
  /*! \brief Borrowed DLTensor* in v_ptr. */
  kMXFFIDLTensorPtr = 7,
  /*! \brief Borrowed NUL-terminated UTF-8 string in v_c_str. Arguments only. */
  kMXFFIRawStr = 8,
  /*! \brief Up to 7 bytes of UTF-8 held inline in v_bytes (NUL-terminated), length in small_len. */
  kMXFFISmallStr = 9,
  /*! \brief Up to 7 bytes held inline in v_bytes, length in small_len. */
  kMXFFISmallBytes = 10,
  /*! \brief Borrowed UTF-8 text of any length, v_ptr -> MXFFIByteArray. Arguments only. */
  kMXFFIStrView = 11,
  /*! \brief Borrowed bytes of any length, v_ptr -> MXFFIByteArray. Arguments only. */
  kMXFFIBytesView = 12,
  /*!
   * \brief Borrowed complex number, v_ptr -> two doubles (real, then imaginary part).
   *  Arguments only; an owned one is a kMXFFIComplex object. (ABI 1.3)
   */
  kMXFFIComplexView = 13,
  /*!
   * \brief An integer past int64's range that fits 64 bits unsigned (2**63 to 2**64 - 1): its
   *  bits in v_int64, to be read as uint64_t. An integer that fits int64 is always kMXFFIInt.
   *  (ABI 1.4)
   */
  kMXFFIUInt64 = 14,
  /*!
   * \brief In a result cell on entry to MXFFIFuncCall only, in place of kMXFFINone: the caller
   *  lends small_len bytes at v_ptr for a text result. The callee may write a text of fewer than
   *  small_len bytes there and return it as kMXFFIBufferStr, or ignore the loan and write its
   *  result as usual (callees built for ABI 1.7 or older do). A cell still holding this code
   *  after the call is None. It owns nothing. (ABI 1.8)
   */
  kMXFFIResultBuffer = 15,
  /*!
   * \brief Results only, where the caller lent a buffer (kMXFFIResultBuffer): small_len bytes of
   *  UTF-8, NUL-terminated, in that buffer, which v_ptr points at. It owns nothing: the caller
   *  reads the text before it reuses the buffer. (ABI 1.8)
   */
  kMXFFIBufferStr = 16,
  /*! \brief First code whose payload is an object. */
  kMXFFIStaticObjectBegin = 64,
  /*! \brief Base object. */
  kMXFFIObject = 64,
  /*! \brief String object (text longer than 7 bytes), layout MXFFIStringObj. */
  kMXFFIString = 65,
  /*! \brief Bytes object (longer than 7 bytes), layout MXFFIStringObj. */
  kMXFFIBytes = 66,
  /*! \brief Error object: kind, message, backtrace. */
  kMXFFIError = 67,
  /*! \brief Function object, layout MXFFIFunctionObj. */
  kMXFFIFunction = 68,
  /*! \brief Array of values, layout MXFFIArrayObj. */
  kMXFFIArray = 69,
  /*! \brief Map from values to values. */
  kMXFFIMap = 70,
  /*! \brief Algebraic data type / tuple: a tag and fields, layout MXFFIADTObj. */
  kMXFFIADT = 71,
  /*! \brief Shape (tuple of int64), layout MXFFIShapeObj. */
  kMXFFIShape = 72,
  /*! \brief NDArray: header then a DLTensor at a fixed offset, layout MXFFINDArrayObj. */
  kMXFFINDArray = 73,
  /*! \brief A loaded outside library. */
  kMXFFILibrary = 74,
  /*! \brief Complex number (two doubles), layout MXFFIComplexObj. (ABI 1.3) */
  kMXFFIComplex = 75,
  /*! \brief First code handed to types registered at run time. */
  kMXFFIDynObjectBegin = 128
} MXFFITypeCode;

/* Section: the value cell ------------------------------------------------ */

/*! \brief A borrowed run of bytes: how strings and bytes of any length travel as arguments. */
typedef struct {
  /*! \brief First byte; need not be NUL-terminated. */
  const char* data;
  /*! \brief Number of bytes. */
  size_t size;
} MXFFIByteArray;

/*! \brief Opaque handle to an object (points at its MXFFIObject header). */
typedef void* MXFFIObjectHandle;

struct MXFFIObject;

/*!
 * \brief The 16-byte self-describing value cell used for every argument and return value.
 * \note Arguments are borrowed: the caller keeps them alive for the call, so the hot path
 *  has no refcount traffic. The return value is owned by the caller, who initialises it to
 *  kMXFFINone before the call and releases any object it receives.
 */
typedef struct {
  /*! \brief One of MXFFITypeCode, or a dynamic object type index. */
  int32_t type_index;
  /*!
   * \brief Length of an inline SmallStr/SmallBytes or of a BufferStr, the size of the buffer a
   *  ResultBuffer lends; zero for every other type.
   */
  uint32_t small_len;
  MXFFI_ANON_UNION {
    int64_t v_int64;
    double v_float64;
    void* v_ptr;
    const char* v_c_str;
    struct MXFFIObject* v_obj;
    DLDataType v_dtype;
    DLDevice v_device;
    char v_bytes[8];
  };
} MXFFIAny;

/* Section: frozen object layouts ----------------------------------------- */

/*!
 * \brief Header at the start of every object.
 * \note The deleter lives in the header so an object made in one shared library can be
 *  freed from another. ref_counter is updated with atomic operations only.
 */
typedef struct MXFFIObject {
  /*! \brief Strong reference count. */
  int64_t ref_counter;
  /*! \brief Type index (MXFFITypeCode or dynamic). */
  int32_t type_index;
  /*! \brief Reserved, zero. */
  uint32_t reserved;
  /*! \brief Called with the object when the count drops to zero. */
  void (*deleter)(void* self);
} MXFFIObject;

/*! \brief Layout of String and Bytes objects: data is NUL-terminated for convenience. */
typedef struct {
  MXFFIObject header;
  const char* data;
  int64_t size;
} MXFFIStringObj;

/*!
 * \brief Packed calling convention of every function.
 * \param self the function object (or, for MXFFIFuncCreate callbacks, the resource).
 * \param args borrowed arguments.
 * \param num_args number of arguments.
 * \param result owned result, kMXFFINone on entry.
 * \return 0 on success, -1 with the error set.
 */
typedef int (*MXFFISafeCallType)(void* self, const MXFFIAny* args, int32_t num_args,
                                 MXFFIAny* result);

/*! \brief Layout of Function objects. */
typedef struct {
  MXFFIObject header;
  /*! \brief Called as safe_call(function, args, num_args, result). */
  MXFFISafeCallType safe_call;
} MXFFIFunctionObj;

/*! \brief Layout of Array objects: size owned values at data. */
typedef struct {
  MXFFIObject header;
  MXFFIAny* data;
  int64_t size;
  int64_t capacity;
} MXFFIArrayObj;

/*! \brief Layout of ADT objects: a tag and size owned fields stored inline after it. */
typedef struct {
  MXFFIObject header;
  int32_t tag;
  int32_t size;
  MXFFIAny fields[];
} MXFFIADTObj;

/*! \brief Layout of Shape objects: size int64 extents at data. */
typedef struct {
  MXFFIObject header;
  const int64_t* data;
  int64_t size;
} MXFFIShapeObj;

/*! \brief Layout of a Complex object: a complex number of two IEEE doubles. (ABI 1.3) */
typedef struct {
  MXFFIObject header;
  double real;
  double imag;
} MXFFIComplexObj;

/*!
 * \brief How an NDArray stores its elements: the value of MXFFINDArrayObj::stype.
 *
 * The values are frozen (tests/cpp/test_abi_layout.cc pins them; the op-library ABI's
 * MXFFI_OPLIB_STYPE_* equal them). A storage type may be added in a minor version, with a new
 * value: code meeting a value it does not know must treat the array as an opaque sparse array
 * (its tensor's data is NULL, never elements to read) and refuse what it cannot do with it, with
 * an error naming the value.
 */
typedef enum {
  /*! \brief "default": dense; the tensor holds every element. */
  kMXFFIStorageDefault = 0,
  /*! \brief "row_sparse": data (k rows) and indices (k sorted row ids). */
  kMXFFIStorageRowSparse = 1,
  /*! \brief "csr": data, indices (column ids) and indptr. */
  kMXFFIStorageCSR = 2,
  /*!
   * \brief "coo" (ABI 1.7): data, row and col, one (row, col) pair per stored value, in any
   *  order and possibly repeated (repeated pairs add up). Code built against an older minor
   *  meets it as an unknown value: an opaque sparse array.
   */
  kMXFFIStorageCOO = 3,
} MXFFIStorageType;

/*!
 * \brief Layout of NDArray objects: the DLTensor sits right after the header, then the storage
 *  type (since 1.2). A dense array's tensor is its elements. A sparse one's tensor has its
 *  logical shape, dtype and device and a NULL data pointer: its values and indices are dense
 *  NDArrays of their own, reached through the "sparse.*" globals.
 */
typedef struct {
  MXFFIObject header;
  DLTensor tensor;
  /*!
   * \brief An MXFFIStorageType value, held as int32_t so that the layout does not depend on
   *  the compiler's choice of an enum's size. Any value but kMXFFIStorageDefault is sparse.
   */
  int32_t stype;
} MXFFINDArrayObj;

/* Section: versions and errors ------------------------------------------- */

/*!
 * \brief Report the C ABI version libmxffi was built with.
 * \param major, minor, patch outputs; any may be NULL.
 * \return 0.
 */
MXFFI_DLL int MXFFIGetVersion(int32_t* major, int32_t* minor, int32_t* patch);

/*!
 * \brief Read the error raised last on this thread.
 * \param kind out: error kind, e.g. "TypeError"; "" when none is set.
 * \param message out: the message.
 * \param backtrace out: the C++ backtrace, formatted on this first read ("" when none).
 * \return 0.
 * \note The strings stay valid until the next error is set on this thread.
 */
MXFFI_DLL int MXFFIErrorGetLast(const char** kind, const char** message, const char** backtrace);

/*!
 * \brief Set this thread's error, e.g. from a callback about to return -1.
 * \param kind error kind ("ValueError", ...); NULL means "RuntimeError".
 * \param message the message; NULL means "".
 * \param backtrace a backtrace already formatted by the caller (e.g. Python's); may be NULL.
 * \return 0.
 */
MXFFI_DLL int MXFFIErrorSet(const char* kind, const char* message, const char* backtrace);

/*!
 * \brief Signal-check hook: returns 0 to go on, or -1 with an error already set (for Python,
 *  the exception of its signal handler), which the running C++ function then propagates.
 */
typedef int (*MXFFICheckSignalsFunc)(void);

/*!
 * \brief Install the hook mxffi::CheckSignals() calls; NULL removes it.
 * \return 0.
 */
MXFFI_DLL int MXFFIEnvSetCheckSignals(MXFFICheckSignalsFunc func);

/*!
 * \brief GIL hooks: release returns an opaque state (NULL when the calling thread does not hold
 *  the lock, so there is nothing to release); restore takes it back.
 */
typedef void* (*MXFFIReleaseGILFunc)(void);
typedef void (*MXFFIRestoreGILFunc)(void* state);

/*!
 * \brief Install the hooks long-running kernels call around their work; NULLs remove them.
 * \return 0, or -1 when exactly one of the two is NULL.
 */
MXFFI_DLL int MXFFIEnvSetGILHooks(MXFFIReleaseGILFunc release, MXFFIRestoreGILFunc restore);

/*!
 * \brief Warning hook: category names the warning's class (e.g. "StorageFallbackWarning"),
 *  message is its UTF-8 text. Returns 0 when the warning was issued or filtered out, or -1 with
 *  an error already set (for Python, a warnings filter that makes it an exception), which the
 *  C++ code that warned then propagates before doing the work it warned about. It may be called
 *  from any thread, the GIL held or not. (ABI 1.5)
 */
typedef int (*MXFFIWarnFunc)(const char* category, const char* message);

/*!
 * \brief Install the hook mxffi::Warn calls; NULL restores the default, a line on stderr.
 * \return 0. (ABI 1.5)
 */
MXFFI_DLL int MXFFIEnvSetWarnHook(MXFFIWarnFunc func);

/*!
 * \brief The calling thread's current stream of a device, the one mxffi's kernels run on: on a
 *  CUDA device the stream made current (mxffi.cuda.Stream; torch's current stream for the length
 *  of a call that received a torch CUDA tensor), NULL for the legacy default stream; NULL for the
 *  CPU. For C++ code inside a call that launches work of its own on the caller's stream.
 * \param device_type A DLDeviceType: kDLCPU or kDLCUDA.
 * \param device_id The device's index, >= 0.
 * \param out_stream Receives the stream (a cudaStream_t for CUDA).
 *
eturn 0, or -1 with an error set (another device type, a negative index, out_stream NULL).
 *  (ABI 1.6)
 */
MXFFI_DLL int MXFFIEnvGetCurrentStream(int32_t device_type, int32_t device_id, void** out_stream);

/* Section: objects ------------------------------------------------------- */

/*! \brief Add a strong reference to obj. \return 0, or -1 if obj is NULL. */
MXFFI_DLL int MXFFIObjectIncRef(MXFFIObjectHandle obj);

/*! \brief Drop a strong reference; the object is deleted when none is left. NULL is a no-op. */
MXFFI_DLL int MXFFIObjectFree(MXFFIObjectHandle obj);

/*! \brief Write obj's type index to out. \return 0, or -1 if obj is NULL. */
MXFFI_DLL int MXFFIObjectGetTypeIndex(MXFFIObjectHandle obj, int32_t* out);

/*! \brief Look up the type index registered for type_key. \return -1 (KeyError) if unknown. */
MXFFI_DLL int MXFFITypeKey2Index(const char* type_key, int32_t* out);

/*!
 * \brief Look up the type key of a type index, or of a plain type code ("int", "str", ...).
 * \param out the key, valid for the life of the process.
 * \return -1 (KeyError) if the index was never registered.
 */
MXFFI_DLL int MXFFITypeIndex2Key(int32_t type_index, const char** out);

/* Section: functions ----------------------------------------------------- */

/*!
 * \brief Call a function: the one call path for everything.
 * \param func a Function object handle.
 * \param args borrowed arguments.
 * \param num_args number of arguments.
 * \param result owned result; kMXFFINone on entry, or kMXFFIResultBuffer to lend a buffer for
 *  a text result (since 1.8; a cell still holding that code after the call is None).
 * \return 0, or -1 with the error set.
 */
MXFFI_DLL int MXFFIFuncCall(MXFFIObjectHandle func, const MXFFIAny* args, int32_t num_args,
                            MXFFIAny* result);

/*!
 * \brief Make a Function from a C callback (how Python callables become Functions).
 * \param resource passed as the first argument of callback; owned by the Function.
 * \param callback called as callback(resource, args, num_args, result).
 * \param deleter called with resource when the Function is freed; may be NULL.
 * \param out new Function handle (one reference, owned by the caller).
 */
MXFFI_DLL int MXFFIFuncCreate(void* resource, MXFFISafeCallType callback,
                              void (*deleter)(void* resource), MXFFIObjectHandle* out);

/*!
 * \brief Look up a global function by name.
 * \param out a new reference to the Function, or NULL when no such global exists.
 */
MXFFI_DLL int MXFFIFuncGetGlobal(const char* name, MXFFIObjectHandle* out);

/*!
 * \brief Register func as a global.
 * \param override nonzero to replace an existing global; otherwise a clash is a ValueError.
 */
MXFFI_DLL int MXFFIFuncSetGlobal(const char* name, MXFFIObjectHandle func, int override);

/*! \brief Write a new Array of the names of all globals, sorted, to out (owned by the caller). */
MXFFI_DLL int MXFFIFuncListGlobalNames(MXFFIObjectHandle* out);

/* Section: containers ----------------------------------------------------- */

/*!
 * \brief Make an Array of n values in one allocation (how bindings pass a tuple of numbers).
 *  Its capacity is n and its cells follow the MXFFIArrayObj (data == (MXFFIAny*)(obj + 1)) until
 *  it grows, so a binding holding the only reference may overwrite plain-valued cells and size
 *  (at most n) to reuse it.
 * \param items the values, borrowed; objects among them get a reference of the Array's.
 * \param out a new Array (a reference owned by the caller).
 * \return 0, or -1 with the error set.
 */
MXFFI_DLL int MXFFIArrayCreate(const MXFFIAny* items, int64_t n, MXFFIObjectHandle* out);

#ifdef __cplusplus
}  // extern "C"
#endif
#endif  // MXFFI_C_API_H_
