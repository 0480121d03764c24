/*!
 * \file mxffi/ndarray/ndarray.h
 * \brief NDArray: a refcounted object owning a DLTensor and its memory, with DLPack in and out.
 *
 * The object's layout starts as c_api.h freezes it (MXFFINDArrayObj: the header, then the
 * DLTensor), so a binding reads shape, dtype and device without a call. The memory is either
 * allocated here (CPU, 64-byte aligned) or borrowed from a DLPack producer, whose deleter runs
 * exactly once, when the last reference goes.
 */
#ifndef MXFFI_NDARRAY_NDARRAY_H_
#define MXFFI_NDARRAY_NDARRAY_H_

#include <mxffi/c_api.h>
#include <mxffi/ndarray/dlpack_compat.h>
#include <mxffi/object.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mxffi {

/*! \brief Alignment of every CPU buffer NDArray allocates, in bytes. */
constexpr size_t kNDArrayAlignment = 64;

/*! \brief The data of an NDArray; see NDArray. */
class NDArrayObj : public Object {
 public:
  /*! \brief The tensor; at the offset c_api.h fixes (MXFFINDArrayObj::tensor). */
  DLTensor tensor;

  NDArrayObj() = default;
  NDArrayObj(const NDArrayObj&) = delete;
  NDArrayObj& operator=(const NDArrayObj&) = delete;
  MXFFI_DLL ~NDArrayObj();

  static constexpr const char* _type_key = "mxffi.NDArray";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(NDArrayObj, Object, kMXFFINDArray);

 private:
  friend class NDArray;
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;        // empty when the producer gave none (compact row-major)
  void* owned_data_ = nullptr;          // allocated here
  DLManagedTensor* managed_ = nullptr;  // imported legacy DLPack tensor
  DLManagedTensorVersioned* managed_v_ = nullptr;  // imported DLPack 1.x tensor
  bool read_only_ = false;
};

/*! \brief Reference to an NDArrayObj. */
class NDArray : public ObjectRef {
 public:
  MXFFI_DEFINE_OBJECT_REF_METHODS(NDArray, ObjectRef, NDArrayObj);

  /*!
   * \brief An uninitialised C-contiguous array.
   * \throws ValueError for a negative dimension or a size that overflows; NotImplementedError
   *  for a device other than the CPU (device memory comes with the CUDA allocator).
   */
  MXFFI_DLL static NDArray Empty(const std::vector<int64_t>& shape, DLDataType dtype,
                                 DLDevice device);
  /*!
   * \brief Take a legacy DLPack tensor; its deleter runs when the array is freed.
   * \note On an exception the caller still owns managed (nothing was taken).
   */
  MXFFI_DLL static NDArray FromDLPack(DLManagedTensor* managed);
  /*! \brief Take a DLPack 1.x tensor; honours its read-only flag. Same ownership rules. */
  MXFFI_DLL static NDArray FromDLPackVersioned(DLManagedTensorVersioned* managed);

  /*! \brief A legacy DLPack view holding a reference to this array until its deleter runs. */
  MXFFI_DLL DLManagedTensor* ToDLPack() const;
  /*! \brief A DLPack 1.x view holding a reference; flagged read-only when this array is. */
  MXFFI_DLL DLManagedTensorVersioned* ToDLPackVersioned() const;

  /*! \return the tensor. */
  const DLTensor& tensor() const { return get()->tensor; }
  /*! \return the number of elements. */
  MXFFI_DLL int64_t numel() const;
  /*! \return whether the producer marked the memory read-only. */
  bool read_only() const { return get()->read_only_; }
  /*! \return whether the elements are laid out C-contiguously. */
  MXFFI_DLL bool IsContiguous() const;
};

/*! \return "float32", "int8x4", "bool", ... for a data type. */
MXFFI_DLL std::string DataTypeToString(DLDataType dtype);
/*! \return the size in bytes of one element (lanes included), rounding sub-byte types up. */
MXFFI_DLL int64_t DataTypeBytes(DLDataType dtype);

}  // namespace mxffi

#endif  // MXFFI_NDARRAY_NDARRAY_H_
