/*!
 * \file mxffi/ndarray/dlpack_compat.h
 * \brief What Debian's DLPack 0.6 header lacks of DLPack 1.x, declared following the DLPack ABI.
 *
 * DLPack 1.0 added a boolean dtype code, a version struct, a versioned managed tensor with
 * flags (read-only, copied) and the "dltensor_versioned" capsule. With a 1.x header these come
 * from dlpack.h itself; with 0.6 they are declared here with the same names, values and layout,
 * pinned by static_asserts in tests/cpp/test_abi_layout.cc.
 *
 * DLPack 1.2 added the C exchange API: a producer's function table (DLPackExchangeAPI) through
 * which a consumer turns the producer's Python tensor into a DLManagedTensorVersioned without a
 * capsule or a call into Python code. Since DLPack 1.3 a producer type offers it as the class
 * attribute __dlpack_c_exchange_api__, a PyCapsule named "dlpack_exchange_api" (PyTorch
 * does). Its declarations (unchanged in 1.3) follow below for any dlpack.h older than 1.2.
 */
#ifndef MXFFI_NDARRAY_DLPACK_COMPAT_H_
#define MXFFI_NDARRAY_DLPACK_COMPAT_H_

#include <dlpack/dlpack.h>
#include <stdint.h>

#if !defined(DLPACK_MAJOR_VERSION)

#ifdef __cplusplus
extern "C" {
#endif

/*! \brief The DLPack version these declarations follow. */
#define MXFFI_DLPACK_COMPAT_MAJOR 1
#define MXFFI_DLPACK_COMPAT_MINOR 0

/*! \brief Boolean dtype code, value fixed by DLPack 1.0 (DLDataTypeCode lacks it in 0.6). */
#define kDLBool ((uint8_t)6)

/*! \brief DLPack version pair carried by a versioned managed tensor. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/*! \brief The tensor is read-only: a consumer must not write through it. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
/*! \brief The producer copied the data for this exchange. */
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
/*! \brief The tensor's sub-byte dtype is padded (DLPack 1.1). */
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/*!
 * \brief DLPack 1.x managed tensor: version first, so a consumer can check it before reading
 *  anything else; then the producer's context, its deleter, flags, and the tensor.
 */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // !DLPACK_MAJOR_VERSION

#if !defined(DLPACK_MAJOR_VERSION) || (DLPACK_MAJOR_VERSION == 1 && DLPACK_MINOR_VERSION < 2)

#ifdef __cplusplus
extern "C" {
#endif

/*!
 * \brief Ask the producer for a new tensor shaped like prototype (dtype, ndim, shape, device).
 * \param prototype The tensor to imitate; its data, strides and byte_offset are ignored.
 * \param out The new tensor, owned by the caller.
 * \param error_ctx Passed back to SetError.
 * \param SetError Called, exactly when -1 is returned, with an error kind and message.
 * \return 0 on success, -1 on failure.
 */
typedef int (*DLPackManagedTensorAllocator)(DLTensor* prototype, DLManagedTensorVersioned** out,
                                            void* error_ctx,
                                            void (*SetError)(void* error_ctx, const char* kind,
                                                             const char* message));

/*!
 * \brief Export a producer's Python tensor (a PyObject* of the type the table came from) as a
 *  new DLManagedTensorVersioned, with no stream synchronisation.
 * \param py_object The tensor; the caller holds the GIL.
 * \param out The tensor, owned by the caller, who runs its deleter.
 * \return 0 on success, -1 with a Python exception set.
 */
typedef int (*DLPackManagedTensorFromPyObjectNoSync)(void* py_object,
                                                     DLManagedTensorVersioned** out);

/*!
 * \brief Fill a caller-owned DLTensor viewing a producer's Python tensor, valid only until control
 *  returns to the producer; no ownership changes hands. May be NULL in the table.
 * \return 0 on success, -1 with a Python exception set.
 */
typedef int (*DLPackDLTensorFromPyObjectNoSync)(void* py_object, DLTensor* out);

/*!
 * \brief The producer's current work stream for a device (NULL for the CPU).
 * \return 0 on success, -1 with a Python exception set.
 */
typedef int (*DLPackCurrentWorkStream)(DLDeviceType device_type, int32_t device_id,
                                       void** out_current_stream);

/*!
 * \brief Make a producer's Python tensor from a DLManagedTensorVersioned, taking ownership of it.
 * \param tensor The tensor, stolen.
 * \param out_py_object A new reference to the Python tensor.
 * \return 0 on success, -1 with a Python exception set.
 */
typedef int (*DLPackManagedTensorToPyObjectNoSync)(DLManagedTensorVersioned* tensor,
                                                   void** out_py_object);

/*!
 * \brief The part of the table that stays fixed across DLPack versions: a consumer checks
 *  version.major before reading further, and may walk prev_api to an older table it knows.
 */
typedef struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  struct DLPackExchangeAPIHeader* prev_api;
} DLPackExchangeAPIHeader;

/*!
 * \brief A producer's function table, static for the life of the process.
 * \note Only dltensor_from_py_object_no_sync may be NULL by the DLPack text; consumers check
 *  whichever entry they call anyway (PyTorch 2.13 leaves managed_tensor_allocator NULL).
 */
typedef struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  DLPackManagedTensorAllocator managed_tensor_allocator;
  DLPackManagedTensorFromPyObjectNoSync managed_tensor_from_py_object_no_sync;
  DLPackManagedTensorToPyObjectNoSync managed_tensor_to_py_object_no_sync;
  DLPackDLTensorFromPyObjectNoSync dltensor_from_py_object_no_sync;
  DLPackCurrentWorkStream current_work_stream;
} DLPackExchangeAPI;

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // DLPack older than 1.2

/*! \brief The name of the PyCapsule a producer type holds in __dlpack_c_exchange_api__. */
#define MXFFI_DLPACK_EXCHANGE_API_CAPSULE_NAME "dlpack_exchange_api"

#endif  // MXFFI_NDARRAY_DLPACK_COMPAT_H_
