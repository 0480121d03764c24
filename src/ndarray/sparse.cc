/*!
 * \file sparse.cc
 * \brief Sparse NDArrays: construction from parts (validated, canonical), the parts, and the
 *  allocation of sparse outputs.
 *
 * A sparse array's own tensor carries the logical shape, dtype and device with data NULL; its
 * values and indices are dense C-contiguous NDArrays held in aux_. CSR arrays are canonical:
 * column indices strictly increase within each row, so every kernel may rely on that. COO
 * arrays are not: their (row, col) pairs may come in any order and repeat, as edge lists do;
 * only cast_storage reads them.
 */
#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cuda/device.h"
#include "index_dtype.h"
#include "shape_check.h"
#include "sparse_canonical.h"

namespace mxffi {

static_assert(offsetof(MXFFINDArrayObj, stype) == sizeof(MXFFIObject) + sizeof(DLTensor),
              "the storage type follows the tensor");

namespace details {
namespace {

std::atomic<CSRCanonicalizer> g_csr_canonicalizer{nullptr};

}  // namespace

void SetCSRCanonicalizer(CSRCanonicalizer f) {
  g_csr_canonicalizer.store(f, std::memory_order_release);
}

}  // namespace details

namespace {

/*! \return a new C-contiguous 1-D array of n elements. */
NDArray NewArray(int64_t n, DLDataType dtype, DLDevice device) {
  return NDArray::Empty(&n, 1, dtype, device);
}

/*! \return the elements of a C-contiguous part as T*. */
template <typename T>
T* Ptr(const NDArray& a) {
  return static_cast<T*>(a.data());
}

void CheckPart(const NDArray& a, const char* fname, const char* part, int32_t ndim) {
  MXFFI_CHECK(a.defined(), ValueError) << fname << ": " << part << " is missing";
  MXFFI_CHECK(!a.is_sparse(), TypeError) << fname << ": " << part << " must be a dense array";
  MXFFI_CHECK(a.tensor().ndim == ndim, ValueError)
      << fname << ": " << part << " must be " << ndim << "-D, got " << a.tensor().ndim << "-D";
  MXFFI_CHECK(a.IsContiguous(), ValueError) << fname << ": " << part << " must be contiguous";
  MXFFI_CHECK(a.tensor().device.device_type == kDLCPU, NotImplementedError)
      << fname << ": sparse arrays live on the CPU; " << part << " is on device type "
      << a.tensor().device.device_type;
}

void CheckIndexDType(const NDArray& a, const char* fname, const char* part) {
  MXFFI_CHECK(IsIndexDType(a.tensor().dtype), ValueError)
      << fname << ": " << part << " must be int32 or int64, got "
      << DataTypeToString(a.tensor().dtype);
}

NDArray NewSparse(StorageType stype, const int64_t* shape, int32_t ndim, DLDataType dtype,
                  DLDevice device, const char* fname) {
  // The dense shape too: tostype("default"), dot and the dense fallback compute its count.
  details::CheckedShapeSize(shape, ndim, dtype, fname);
  ObjectPtr<NDArrayObj> obj = make_object<NDArrayObj>();
  DLTensor& t = obj->tensor;
  t.data = nullptr;
  t.device = device;
  t.dtype = dtype;
  t.byte_offset = 0;
  obj->SetShape(shape, nullptr, ndim);
  obj->stype = static_cast<int32_t>(stype);
  return NDArray(std::move(obj));
}

}  // namespace

NDArray NDArray::EmptySparse(StorageType stype, const int64_t* shape, int32_t ndim,
                             DLDataType dtype, DLDevice device) {
  MXFFI_CHECK(
      stype == StorageType::kCSR || stype == StorageType::kRowSparse || stype == StorageType::kCOO,
      ValueError)
      << "ndarray.empty_sparse: storage type must be csr, row_sparse or coo, got "
      << StorageTypeName(stype) << " (" << static_cast<int32_t>(stype) << ")";
  MXFFI_CHECK(stype == StorageType::kRowSparse || ndim == 2, ValueError)
      << "ndarray.empty_sparse: a " << StorageTypeName(stype) << " array is 2-D, got " << ndim
      << " dimensions";
  MXFFI_CHECK(ndim >= 1, ValueError) << "ndarray.empty_sparse: a row_sparse array has at least "
                                     << "one dimension";
  MXFFI_CHECK(device.device_type == kDLCPU || device.device_type == kDLCUDA, NotImplementedError)
      << "ndarray.empty_sparse: device type " << device.device_type
      << " is not supported; only the CPU (1) and CUDA (2) are";
  if (device.device_type == kDLCUDA) cuda::CheckDevice(device, "ndarray.empty_sparse");
  for (int32_t i = 0; i < ndim; ++i) {
    MXFFI_CHECK(shape[i] >= 0, ValueError)
        << "ndarray.empty_sparse: negative dimensions are not allowed; got " << shape[i];
  }
  MXFFI_CHECK(stype != StorageType::kCSR || shape[0] < INT64_MAX, ValueError)
      << "ndarray.empty_sparse: a csr array of " << shape[0]
      << " rows needs an indptr of rows + 1 entries, more than int64 holds";
  return NewSparse(stype, shape, ndim, dtype, device, "ndarray.empty_sparse");
}

NDArray NDArray::CSR(const int64_t* shape, NDArray data, NDArray indices, NDArray indptr,
                     const char* fname) {
  MXFFI_CHECK(shape[0] >= 0 && shape[1] >= 0, ValueError)
      << fname << ": negative dimensions are not allowed; got shape (" << shape[0] << ", "
      << shape[1] << ")";
  CheckPart(data, fname, "data", 1);
  CheckPart(indices, fname, "indices", 1);
  CheckPart(indptr, fname, "indptr", 1);
  CheckIndexDType(indices, fname, "indices");
  CheckIndexDType(indptr, fname, "indptr");
  DLDataType itype = indices.tensor().dtype;
  MXFFI_CHECK(itype.bits == indptr.tensor().dtype.bits, ValueError)
      << fname << ": indices (" << DataTypeToString(itype) << ") and indptr ("
      << DataTypeToString(indptr.tensor().dtype) << ") must have the same dtype";
  const int64_t rows = shape[0], cols = shape[1];
  const int64_t nnz = data.tensor().shape[0];
  MXFFI_CHECK(indices.tensor().shape[0] == nnz, ValueError)
      << fname << ": data and indices must have the same length, got " << nnz << " and "
      << indices.tensor().shape[0];
  // indptr holds rows + 1 entries, which int64 cannot count for INT64_MAX rows.
  MXFFI_CHECK(rows < INT64_MAX, ValueError)
      << fname << ": " << rows << " rows need an indptr of rows + 1 entries, more than int64 holds";
  MXFFI_CHECK(indptr.tensor().shape[0] == rows + 1, ValueError)
      << fname << ": indptr must have rows + 1 = " << rows + 1 << " entries, got "
      << indptr.tensor().shape[0];
  bool canonical = true;
  MXFFI_INDEX_SWITCH(itype, fname, IType, {
    const IType* ip = Ptr<IType>(indptr);
    const IType* ix = Ptr<IType>(indices);
    MXFFI_CHECK(ip[0] == 0, ValueError) << fname << ": indptr[0] must be 0, got " << ip[0];
    for (int64_t r = 0; r < rows; ++r) {
      MXFFI_CHECK(ip[r] <= ip[r + 1], ValueError)
          << fname << ": indptr must be non-decreasing; indptr[" << r << "]=" << ip[r]
          << " > indptr[" << r + 1 << "]=" << ip[r + 1];
    }
    MXFFI_CHECK(ip[rows] == nnz, ValueError)
        << fname << ": indptr[-1] must equal the number of values " << nnz << ", got " << ip[rows];
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t j = ip[r]; j < ip[r + 1]; ++j) {
        MXFFI_CHECK(ix[j] >= 0 && ix[j] < cols, ValueError)
            << fname << ": indices[" << j << "]=" << ix[j] << " is out of range for " << cols
            << " columns (row " << r << ")";
        if (j > ip[r] && ix[j] <= ix[j - 1]) canonical = false;
      }
    }
  });
  if (!canonical) {
    // Sorting and summing duplicates is arithmetic on the values, which the op layer installs.
    details::CSRCanonicalizer canonicalize =
        details::g_csr_canonicalizer.load(std::memory_order_acquire);
    MXFFI_CHECK(canonicalize != nullptr, RuntimeError)
        << fname << ": the column indices of a row are not sorted and unique, and no "
        << "canonicalizer is installed to sort them";
    canonicalize(rows, &data, &indices, &indptr, fname);
  }
  NDArray out =
      NewSparse(StorageType::kCSR, shape, 2, data.tensor().dtype, data.tensor().device, fname);
  out.SetSparseStorage(std::move(data), std::move(indices), std::move(indptr));
  return out;
}

NDArray NDArray::COO(const int64_t* shape, NDArray data, NDArray row, NDArray col,
                     const char* fname) {
  MXFFI_CHECK(shape[0] >= 0 && shape[1] >= 0, ValueError)
      << fname << ": negative dimensions are not allowed; got shape (" << shape[0] << ", "
      << shape[1] << ")";
  CheckPart(data, fname, "data", 1);
  CheckPart(row, fname, "row", 1);
  CheckPart(col, fname, "col", 1);
  CheckIndexDType(row, fname, "row");
  CheckIndexDType(col, fname, "col");
  DLDataType itype = row.tensor().dtype;
  MXFFI_CHECK(itype.bits == col.tensor().dtype.bits, ValueError)
      << fname << ": row (" << DataTypeToString(itype) << ") and col ("
      << DataTypeToString(col.tensor().dtype) << ") must have the same dtype";
  const int64_t nnz = data.tensor().shape[0];
  MXFFI_CHECK(row.tensor().shape[0] == nnz && col.tensor().shape[0] == nnz, ValueError)
      << fname << ": data, row and col must have one length; got " << nnz << ", "
      << row.tensor().shape[0] << " and " << col.tensor().shape[0];
  MXFFI_INDEX_SWITCH(itype, fname, IType, {
    const IType* r = Ptr<IType>(row);
    const IType* c = Ptr<IType>(col);
    // One pass with no branch per entry; the position is looked for only on failure.
    bool ok = true;
    for (int64_t j = 0; j < nnz; ++j) {
      ok &= r[j] >= 0 && r[j] < shape[0] && c[j] >= 0 && c[j] < shape[1];
    }
    for (int64_t j = 0; !ok && j < nnz; ++j) {
      MXFFI_CHECK(r[j] >= 0 && r[j] < shape[0], ValueError)
          << fname << ": row[" << j << "]=" << r[j] << " is out of range for " << shape[0]
          << " rows";
      MXFFI_CHECK(c[j] >= 0 && c[j] < shape[1], ValueError)
          << fname << ": col[" << j << "]=" << c[j] << " is out of range for " << shape[1]
          << " columns";
    }
  });
  NDArray out =
      NewSparse(StorageType::kCOO, shape, 2, data.tensor().dtype, data.tensor().device, fname);
  out.SetSparseStorage(std::move(data), std::move(row), std::move(col));
  return out;
}

NDArray NDArray::RowSparse(const int64_t* shape, int32_t ndim, NDArray data, NDArray indices,
                           const char* fname) {
  MXFFI_CHECK(ndim >= 1, ValueError) << fname << ": a row_sparse array has at least one dimension";
  for (int32_t i = 0; i < ndim; ++i) {
    MXFFI_CHECK(shape[i] >= 0, ValueError)
        << fname << ": negative dimensions are not allowed; got shape[" << i << "]=" << shape[i];
  }
  CheckPart(data, fname, "data", ndim);
  CheckPart(indices, fname, "indices", 1);
  CheckIndexDType(indices, fname, "indices");
  const DLTensor& d = data.tensor();
  const int64_t k = indices.tensor().shape[0];
  MXFFI_CHECK(d.shape[0] == k, ValueError) << fname << ": data must have one row per index; got "
                                           << d.shape[0] << " rows and " << k << " indices";
  for (int32_t i = 1; i < ndim; ++i) {
    MXFFI_CHECK(d.shape[i] == shape[i], ValueError)
        << fname << ": data.shape[" << i << "]=" << d.shape[i] << " must equal shape[" << i
        << "]=" << shape[i];
  }
  MXFFI_INDEX_SWITCH(indices.tensor().dtype, fname, IType, {
    const IType* ix = Ptr<IType>(indices);
    for (int64_t j = 0; j < k; ++j) {
      MXFFI_CHECK(ix[j] >= 0 && ix[j] < shape[0], ValueError)
          << fname << ": indices[" << j << "]=" << ix[j] << " is out of range for " << shape[0]
          << " rows";
      MXFFI_CHECK(j == 0 || ix[j] > ix[j - 1], ValueError)
          << fname << ": row_sparse indices must be sorted and unique; indices[" << j
          << "]=" << ix[j] << " follows indices[" << j - 1 << "]=" << ix[j - 1];
    }
  });
  NDArray out = NewSparse(StorageType::kRowSparse, shape, ndim, d.dtype, d.device, fname);
  out.SetSparseStorage(std::move(data), std::move(indices), NDArray());
  return out;
}

const NDArray& NDArray::sparse_data() const {
  MXFFI_CHECK(is_sparse(), TypeError) << "ndarray.data: the array is dense, not sparse";
  CheckStorageKnown("ndarray.data", "the array");
  MXFFI_CHECK(storage_initialized(), ValueError) << "ndarray.data: storage not initialised";
  return static_cast<const NDArray&>(get()->aux_[0]);
}

const NDArray& NDArray::sparse_indices() const {
  MXFFI_CHECK(is_sparse(), TypeError) << "ndarray.indices: the array is dense, not sparse";
  CheckStorageKnown("ndarray.indices", "the array");
  MXFFI_CHECK(stype() != StorageType::kCOO, TypeError)
      << "ndarray.indices: coo arrays have row and col, not indices";
  MXFFI_CHECK(storage_initialized(), ValueError) << "ndarray.indices: storage not initialised";
  return static_cast<const NDArray&>(get()->aux_[1]);
}

const NDArray& NDArray::coo_row() const {
  CheckStorageKnown("ndarray.row", "the array");
  MXFFI_CHECK(stype() == StorageType::kCOO, TypeError)
      << "ndarray.row: only coo arrays have row, not " << StorageTypeName(stype());
  MXFFI_CHECK(storage_initialized(), ValueError) << "ndarray.row: storage not initialised";
  return static_cast<const NDArray&>(get()->aux_[1]);
}

const NDArray& NDArray::coo_col() const {
  CheckStorageKnown("ndarray.col", "the array");
  MXFFI_CHECK(stype() == StorageType::kCOO, TypeError)
      << "ndarray.col: only coo arrays have col, not " << StorageTypeName(stype());
  MXFFI_CHECK(storage_initialized(), ValueError) << "ndarray.col: storage not initialised";
  return static_cast<const NDArray&>(get()->aux_[2]);
}

const NDArray& NDArray::sparse_indptr() const {
  CheckStorageKnown("ndarray.indptr", "the array");
  MXFFI_CHECK(stype() == StorageType::kCSR, TypeError)
      << "ndarray.indptr: only csr arrays have indptr, not " << StorageTypeName(stype());
  MXFFI_CHECK(storage_initialized(), ValueError) << "ndarray.indptr: storage not initialised";
  return static_cast<const NDArray&>(get()->aux_[2]);
}

void NDArray::SetSparseStorage(NDArray data, NDArray indices, NDArray indptr) const {
  MXFFI_CHECK(is_sparse(), TypeError) << "ndarray.set_sparse_storage: the array is dense";
  CheckStorageKnown("ndarray.set_sparse_storage", "the array");
  NDArrayObj* obj = const_cast<NDArrayObj*>(get());
  obj->aux_[0] = std::move(data);
  obj->aux_[1] = std::move(indices);
  const bool third = stype() == StorageType::kCSR || stype() == StorageType::kCOO;
  obj->aux_[2] = third ? std::move(indptr) : NDArray();
}

void NDArray::CheckAndAlloc(int64_t nnz, DLDataType idx_dtype) const {
  MXFFI_CHECK(is_sparse(), TypeError) << "ndarray.check_and_alloc: the array is dense";
  CheckStorageKnown("ndarray.check_and_alloc", "the array");
  MXFFI_CHECK(IsIndexDType(idx_dtype), TypeError)
      << "ndarray.check_and_alloc: index dtype must be int32 or int64, got "
      << DataTypeToString(idx_dtype);
  const DLTensor& t = tensor();
  if (stype() == StorageType::kCOO) {
    SetSparseStorage(NewArray(nnz, t.dtype, t.device), NewArray(nnz, idx_dtype, t.device),
                     NewArray(nnz, idx_dtype, t.device));
    return;
  }
  if (stype() == StorageType::kCSR) {
    SetSparseStorage(NewArray(nnz, t.dtype, t.device), NewArray(nnz, idx_dtype, t.device),
                     NewArray(t.shape[0] + 1, idx_dtype, t.device));
    return;
  }
  std::vector<int64_t> dshape(t.shape, t.shape + t.ndim);
  dshape[0] = nnz;
  SetSparseStorage(NDArray::Empty(dshape, t.dtype, t.device), NewArray(nnz, idx_dtype, t.device),
                   NDArray());
}

}  // namespace mxffi
