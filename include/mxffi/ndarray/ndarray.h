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
#include <mxffi/op/storage.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mxffi {

/*! \brief Alignment of every CPU buffer NDArray allocates, in bytes. */
constexpr size_t kNDArrayAlignment = 64;

/*! \brief The data of an NDArray; see NDArray. */
class NDArrayObj : public Object {
 public:
  /*!
   * \brief The tensor; at the offset c_api.h fixes (MXFFINDArrayObj::tensor). For a sparse
   *  array: the logical shape, dtype and device, and data NULL.
   */
  DLTensor tensor;
  /*! \brief StorageType (MXFFINDArrayObj::stype); set once, when the array is made. */
  int32_t stype = kMXFFIStorageDefault;

  NDArrayObj() = default;
  NDArrayObj(const NDArrayObj&) = delete;
  NDArrayObj& operator=(const NDArrayObj&) = delete;
  MXFFI_DLL ~NDArrayObj();

  static constexpr const char* _type_key = "mxffi.NDArray";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(NDArrayObj, Object, kMXFFINDArray);

  /*!
   * \brief Point tensor.shape (and tensor.strides when given) at copies owned here. For
   *  construction only: an array's shape never changes once others can see it.
   */
  MXFFI_DLL void SetShape(const int64_t* shape, const int64_t* strides, int32_t ndim);

 private:
  friend class NDArray;

  static constexpr int kInlineDims = 6;
  int64_t inline_dims_[2 * kInlineDims];  // shape then strides, for up to kInlineDims dims
  std::unique_ptr<int64_t[]> heap_dims_;  // for more dims
  ObjectRef base_;                        // the array a view shares memory with
  // A sparse array's dense parts: csr data, indices, indptr; row_sparse data, indices; coo
  // data, row, col. Unset until the array's storage is initialised (an op output is, by its
  // kernel).
  ObjectRef aux_[3];
  DLManagedTensor* managed_ = nullptr;             // imported legacy DLPack tensor
  DLManagedTensorVersioned* managed_v_ = nullptr;  // imported DLPack 1.x tensor
  bool read_only_ = false;

 public:
  /*! \brief The bytes of the block a CPU array made by Empty lives in (0 for other arrays). */
  size_t block_bytes_ = 0;
};

/*!
 * \brief Raise TypeError for an array of a storage type this build does not know:
 *  "<fname>: <what> has storage type <value>, which this version of mxffi does not know ...".
 *  Such an array is never read as dense; this is what every function meeting one raises.
 */
[[noreturn]] MXFFI_DLL void ThrowUnknownStorage(StorageType stype, std::string_view fname,
                                                std::string_view what);

/*! \brief Reference to an NDArrayObj. */
class NDArray : public ObjectRef {
 public:
  MXFFI_DEFINE_OBJECT_REF_METHODS(NDArray, ObjectRef, NDArrayObj);
  /*! \brief None is no array: a typed NDArray argument refuses it (Optional<NDArray> takes it). */
  static constexpr bool _type_is_nullable = false;

  /*!
   * \brief An uninitialised C-contiguous array.
   * \throws ValueError for a negative dimension or a size that overflows; NotImplementedError
   *  for a device other than the CPU and CUDA. CUDA memory comes from the caching allocator, for
   *  the device's current stream (docs/cuda.md); RuntimeError where no CUDA device is available.
   */
  MXFFI_DLL static NDArray Empty(const int64_t* shape, int32_t ndim, DLDataType dtype,
                                 DLDevice device);
  static NDArray Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device) {
    return Empty(shape.data(), static_cast<int32_t>(shape.size()), dtype, device);
  }
  /*!
   * \brief A view sharing base's memory: the given shape, element strides (NULL for
   *  C-contiguous) and byte offset from base's data. Keeps base alive; read-only if base is.
   * \note The caller checks that the view stays inside base's memory.
   */
  MXFFI_DLL static NDArray View(const NDArray& base, const int64_t* shape, const int64_t* strides,
                                int32_t ndim, int64_t byte_offset);
  /*!
   * \brief An array over memory someone else owns (a borrowed DLTensor argument). The caller
   *  keeps that memory alive, and the array must not outlive the call it was made for.
   */
  MXFFI_DLL static NDArray FromBorrowed(const DLTensor& tensor);
  /*!
   * \brief Copy src's elements into dst (same shape and dtype, any strides, CPU or CUDA on
   *  either side; CUDA copies run on the current stream, and a copy to the host waits for it).
   * \throws ValueError when shapes or dtypes differ.
   */
  MXFFI_DLL static void CopyFromTo(const DLTensor& src, const DLTensor& dst);
  /*! \brief A new C-contiguous array with src's shape, dtype and elements, on src's device. */
  MXFFI_DLL static NDArray Copy(const DLTensor& src);
  /*! \return this array when it is C-contiguous, else a C-contiguous copy of it (dense only). */
  NDArray Contiguous() const { return IsContiguous() ? *this : Copy(tensor()); }
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
  /*! \return the array whose memory this view shares (undefined for an array owning it). */
  const ObjectRef& base() const { return get()->base_; }
  /*! \return whether the elements are laid out C-contiguously. */
  bool IsContiguous() const { return IsContiguous(tensor()); }
  /*! \brief Write t's C-contiguous element strides (what NULL strides mean) to out[0, ndim). */
  MXFFI_DLL static void CompactStrides(const DLTensor& t, int64_t* out);
  /*! \return whether t's elements are laid out C-contiguously (strides NULL or compact). */
  MXFFI_DLL static bool IsContiguous(const DLTensor& t);
  /*! \return a pointer to the first element (data plus byte_offset). */
  void* data() const { return static_cast<char*>(tensor().data) + tensor().byte_offset; }

  // ---- Sparse storage (row_sparse, csr and coo; see docs/sparse.md). ----

  /*! \return how the elements are stored. */
  StorageType stype() const { return static_cast<StorageType>(get()->stype); }
  /*!
   * \return whether the array is not dense: row_sparse, csr, coo, or a storage type this build
   *  does not know (an opaque sparse array, whose tensor holds no elements either).
   */
  bool is_sparse() const { return get()->stype != kMXFFIStorageDefault; }
  /*!
   * \brief Raise TypeError (ThrowUnknownStorage) when the array's storage type is one this build
   *  does not know; what names the array in the message ("input #0", "the array").
   */
  void CheckStorageKnown(const char* fname, const char* what) const {
    if (!IsKnownStorageType(stype())) ThrowUnknownStorage(stype(), fname, what);
  }
  /*!
   * \brief A sparse array of the given logical shape and value dtype whose storage is not
   *  initialised yet: what Invoke hands a sparse kernel as an output, which the kernel fills
   *  with SetSparseStorage or CheckAndAlloc.
   */
  MXFFI_DLL static NDArray EmptySparse(StorageType stype, const int64_t* shape, int32_t ndim,
                                       DLDataType dtype, DLDevice device);
  /*!
   * \brief A CSR matrix from its parts, validated (ValueError naming fname, the part, the
   *  position and the values) and made canonical: column indices sorted within each row and
   *  duplicates summed (the parts are then copies).
   * \param shape (rows, cols).
   * \param data values, 1-D, nnz long.
   * \param indices column ids, int32 or int64, nnz long.
   * \param indptr row starts, the same integer dtype, rows + 1 long, from 0 to nnz.
   */
  MXFFI_DLL static NDArray CSR(const int64_t* shape, NDArray data, NDArray indices, NDArray indptr,
                               const char* fname);
  /*!
   * \brief A row_sparse array from its parts, validated (indices int32 or int64, strictly
   *  increasing, in [0, shape[0]); data of shape (len(indices),) + shape[1:]).
   */
  MXFFI_DLL static NDArray RowSparse(const int64_t* shape, int32_t ndim, NDArray data,
                                     NDArray indices, const char* fname);
  /*!
   * \brief A COO matrix from its parts, validated (ValueError naming fname, the part, the
   *  position and the values) but kept as given: unsorted and repeated (row, col) pairs are
   *  allowed (repeated ones add up). The parts are held, not copied.
   * \param shape (rows, cols).
   * \param data values, 1-D, nnz long.
   * \param row, col row and column ids, one integer dtype (int32 or int64), nnz long each.
   */
  MXFFI_DLL static NDArray COO(const int64_t* shape, NDArray data, NDArray row, NDArray col,
                               const char* fname);
  /*! \return whether a sparse array's parts are set (always true for a dense array). */
  bool storage_initialized() const { return !is_sparse() || get()->aux_[0].defined(); }
  /*! \brief The values: csr (nnz,), row_sparse (k,) + shape[1:]. */
  MXFFI_DLL const NDArray& sparse_data() const;
  /*! \brief csr column ids (nnz,) or row_sparse row ids (k,). */
  MXFFI_DLL const NDArray& sparse_indices() const;
  /*! \brief csr row starts (rows + 1,). */
  MXFFI_DLL const NDArray& sparse_indptr() const;
  /*!
   * \brief Part i in {0, 1, 2} as stored, unchecked: csr data, indices, indptr; row_sparse
   *  data, indices, (none); coo data, row, col. For code copying a sparse array part by part
   *  (to another device, into another array) whatever its storage type.
   */
  const NDArray& sparse_part(int i) const { return static_cast<const NDArray&>(get()->aux_[i]); }
  /*! \brief coo row ids (nnz,). */
  MXFFI_DLL const NDArray& coo_row() const;
  /*! \brief coo column ids (nnz,). */
  MXFFI_DLL const NDArray& coo_col() const;
  /*!
   * \brief Set the parts of a sparse output made by EmptySparse, trusting them (a kernel's
   *  own results: canonical, in range). indptr is ignored for row_sparse; for coo, indices
   *  and indptr are the row and column ids.
   */
  MXFFI_DLL void SetSparseStorage(NDArray data, NDArray indices, NDArray indptr) const;
  /*!
   * \brief Allocate uninitialised parts for a sparse output made by EmptySparse: csr with nnz
   *  values (and rows + 1 indptr), row_sparse with nnz rows, coo with nnz values, rows and
   *  columns; indices of idx_dtype.
   */
  MXFFI_DLL void CheckAndAlloc(int64_t nnz, DLDataType idx_dtype) const;
};

/*!
 * \brief Read a data type name as numpy spells it: "float32", "f4", "float", "int", "bool",
 *  "bfloat16", "uint8x4" ...
 * \throws TypeError naming fname and the text when it is not one.
 */
MXFFI_DLL DLDataType DataTypeFromString(std::string_view text, const char* fname);

/*! \return "float32", "int8x4", "bool", ... for a data type. */
MXFFI_DLL std::string DataTypeToString(DLDataType dtype);
/*! \return the size in bytes of one element (lanes included), rounding sub-byte types up. */
MXFFI_DLL int64_t DataTypeBytes(DLDataType dtype);
/*! \return a device as Python shows it: "cpu:0", "cuda:1", "device type 7:0". */
MXFFI_DLL std::string DeviceToString(DLDevice device);

}  // namespace mxffi

#endif  // MXFFI_NDARRAY_NDARRAY_H_
