/*!
 * \file mxffi/ndarray/dlpack_compat.h
 * \brief What Debian's DLPack 0.6 header lacks of DLPack 1.x, declared following the DLPack ABI.
 *
 * DLPack 1.0 added a boolean dtype code, a version struct, a versioned managed tensor with
 * flags (read-only, copied) and the "dltensor_versioned" capsule. With a 1.x header these come
 * from dlpack.h itself; with 0.6 they are declared here with the same names, values and layout,
 * pinned by static_asserts in tests/cpp/test_abi_layout.cc.
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
#endif  // MXFFI_NDARRAY_DLPACK_COMPAT_H_
