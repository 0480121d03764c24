/*!
 * \file sparse_api.cc
 * \brief The "sparse.*" globals behind mxffi.nd.sparse: constructors from parts (validated,
 *  copied, canonical), the parts, and cast_storage.
 */
#include <mxffi/registry.h>

#include <cstring>
#include <string>

#include "../op/sparse/cast_storage.h"
#include "../op/sparse/sparse_util.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

/*! \brief A part given to a constructor, as a C-contiguous array of its own (always a copy). */
NDArray PartArray(const NDArray& a, const char* fname, const char* part) {
  MXFFI_CHECK(!a.is_sparse(), TypeError)
      << fname << ": " << part << " must be a dense array, got a " << StorageTypeName(a.stype())
      << " one";
  return NDArray::Copy(a.tensor());
}

/*! \return an index dtype (None: int64); ValueError for anything but int32/int64. */
DLDataType IndexDType(const DTypeLike& dtype, const char* fname) {
  DLDataType t = dtype.value_or(op::kIndex64);
  MXFFI_CHECK(op::IsIndexDType(t), ValueError)
      << fname << ": idx_dtype must be int32 or int64, got " << DataTypeToString(t);
  return t;
}

const NDArray& SparseArray(const NDArray& a, const char* fname) {
  MXFFI_CHECK(a.is_sparse(), TypeError) << fname << ": expected a sparse array, got a dense one";
  return a;
}

}  // namespace

MXFFI_REGISTER_API("sparse._csr_matrix")
    .describe(
        "A csr matrix from (shape, data, indices, indptr), validated and made canonical (column "
        "indices sorted within rows, duplicates summed). The parts are copied.")
    .arg("shape")
    .arg("data")
    .arg("indices")
    .arg("indptr")
    .set_body_typed([](ShapeLike shape, NDArrayLike data, NDArrayLike indices, NDArrayLike indptr) {
      const char* fname = "csr_matrix";
      MXFFI_CHECK(shape.ndim() == 2, ValueError)
          << fname << ": shape must have 2 dimensions, got " << shape.ToString();
      return NDArray::CSR(shape.data(), PartArray(data, fname, "data"),
                          PartArray(indices, fname, "indices"), PartArray(indptr, fname, "indptr"),
                          fname);
    });

MXFFI_REGISTER_API("sparse._row_sparse_array")
    .describe(
        "A row_sparse array from (shape, data, indices): data holds the rows named by indices, "
        "which must be sorted and unique. The parts are copied.")
    .arg("shape")
    .arg("data")
    .arg("indices")
    .set_body_typed([](ShapeLike shape, NDArrayLike data, NDArrayLike indices) {
      const char* fname = "row_sparse_array";
      return NDArray::RowSparse(shape.data(), shape.ndim(), PartArray(data, fname, "data"),
                                PartArray(indices, fname, "indices"), fname);
    });

MXFFI_REGISTER_API("sparse._zeros")
    .describe("An all-zero sparse array (no stored values) of the given stype, shape and dtype.")
    .arg("stype")
    .arg("shape")
    .arg("dtype", nullptr)
    .arg("idx_dtype", nullptr)
    .set_body_typed([](StorageTypeLike stype, ShapeLike shape, DTypeLike dtype,
                       DTypeLike idx_dtype) {
      const char* fname = "sparse.zeros";
      const StorageType st = stype;
      MXFFI_CHECK(st != StorageType::kDefault, ValueError)
          << fname << ": stype must be 'csr', 'row_sparse' or 'coo'; use mxffi.np.zeros for dense";
      NDArray out =
          NDArray::EmptySparse(st, shape.data(), shape.ndim(), dtype.value_or(kFloat64), kCPU);
      DLDataType itype = IndexDType(idx_dtype, fname);
      out.CheckAndAlloc(0, itype);
      if (st == StorageType::kCSR) {
        NDArray indptr = out.sparse_indptr();
        std::memset(indptr.data(), 0, (shape[0] + 1) * DataTypeBytes(itype));
      }
      return out;
    });

MXFFI_REGISTER_API("sparse._cast_storage")
    .describe(
        "The array stored as stype ('default', 'csr', 'row_sparse', 'coo'); idx_dtype (int32 or "
        "int64, "
        "default int64) for a sparse result made from a dense array.")
    .arg("data")
    .arg("stype")
    .arg("idx_dtype", nullptr)
    .set_body_typed([](NDArrayLike data, StorageTypeLike stype, DTypeLike idx_dtype) {
      const char* fname = "cast_storage";
      const NDArray& x = data;
      const StorageType st = stype;
      DLDataType itype = IndexDType(idx_dtype, fname);
      // A borrowed input (a numpy array) must not be returned as it is: copy it.
      if (st == StorageType::kDefault && !x.is_sparse()) return NDArray::Copy(x.tensor());
      return op::CastStorage(x, st, fname, itype);
    });

MXFFI_REGISTER_API("sparse._data")
    .describe("The values of a sparse array, sharing its memory: csr (nnz,), row_sparse (k, ...).")
    .arg("a")
    .set_body_typed([](NDArrayLike a) { return SparseArray(a, "sparse.data").sparse_data(); });

MXFFI_REGISTER_API("sparse._indices")
    .describe("A copy of the indices of a sparse array: csr column ids, row_sparse row ids.")
    .arg("a")
    .set_body_typed([](NDArrayLike a) {
      // Copies: an index changed in place could send a kernel out of bounds.
      return PartArray(SparseArray(a, "sparse.indices").sparse_indices(), "sparse.indices",
                       "indices");
    });

MXFFI_REGISTER_API("sparse._indptr")
    .describe("A copy of the row starts of a csr array.")
    .arg("a")
    .set_body_typed([](NDArrayLike a) {
      return PartArray(SparseArray(a, "sparse.indptr").sparse_indptr(), "sparse.indptr", "indptr");
    });

}  // namespace api
}  // namespace mxffi
