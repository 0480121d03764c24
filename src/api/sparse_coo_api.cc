/*!
 * \file sparse_coo_api.cc
 * \brief The "sparse.*" globals behind mxffi.nd.sparse's COONDArray: the constructor from
 *  parts, the row and column ids, and the canonical-form test.
 */
#include <mxffi/registry.h>

#include "../op/sparse/coo.h"
#include "../op/sparse/sparse_util.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

const NDArray& COOArray(const NDArray& a, const char* fname) {
  MXFFI_CHECK(a.stype() == StorageType::kCOO, TypeError)
      << fname << ": expected a coo array, got a " << StorageTypeName(a.stype()) << " one";
  MXFFI_CHECK(a.storage_initialized(), ValueError) << fname << ": storage not initialised";
  return a;
}

}  // namespace

NDArray SharedOrCopiedValues(const ShapeLike& shape, const NDArrayLike& data, const char* fname) {
  MXFFI_CHECK(shape.ndim() == 2, ValueError)
      << fname << ": shape must have 2 dimensions, got " << shape.ToString();
  const NDArray& d = data;
  MXFFI_CHECK(!d.is_sparse(), TypeError)
      << fname << ": data must be a dense array, got a " << StorageTypeName(d.stype()) << " one";
  // A borrowed array (numpy's, lent for this call) may be freed by its owner after the call;
  // only an array mxffi holds a reference to can be kept.
  const bool share = !data.borrowed() && d.tensor().ndim == 1 && d.IsContiguous() &&
                     d.tensor().device.device_type == kDLCPU;
  return share ? d : NDArray::Copy(d.tensor());
}

NDArray CopiedIndexPart(const NDArray& a, const char* fname, const char* part) {
  MXFFI_CHECK(!a.is_sparse(), TypeError)
      << fname << ": " << part << " must be a dense array, got a " << StorageTypeName(a.stype())
      << " one";
  return NDArray::Copy(a.tensor());
}

MXFFI_REGISTER_API("sparse._coo_matrix")
    .describe(
        "A coo matrix from (shape, data, row, col), validated (lengths, index dtypes, every id "
        "in range) and kept as given: unsorted and repeated (row, col) pairs are allowed and add "
        "up. row and col are copied. data is shared when it is an mxffi array (not one lent for "
        "the call, such as a numpy array), 1-D, C-contiguous and on the CPU; else copied.")
    .arg("shape")
    .arg("data")
    .arg("row")
    .arg("col")
    .set_body_typed([](ShapeLike shape, NDArrayLike data, NDArrayLike row, NDArrayLike col) {
      const char* fname = "coo_matrix";
      return NDArray::COO(shape.data(), SharedOrCopiedValues(shape, data, fname),
                          CopiedIndexPart(row, fname, "row"), CopiedIndexPart(col, fname, "col"),
                          fname);
    });

MXFFI_REGISTER_API("sparse._row")
    .describe("A copy of the row ids of a coo array.")
    .arg("a")
    .set_body_typed([](NDArrayLike a) {
      return NDArray::Copy(COOArray(a, "sparse.row").coo_row().tensor());
    });

MXFFI_REGISTER_API("sparse._col")
    .describe("A copy of the column ids of a coo array.")
    .arg("a")
    .set_body_typed([](NDArrayLike a) {
      return NDArray::Copy(COOArray(a, "sparse.col").coo_col().tensor());
    });

MXFFI_REGISTER_API("sparse._coo_is_canonical")
    .describe(
        "Whether a coo array is in canonical form: sorted by row, then by column, with no "
        "repeated (row, col) pair (scipy's has_canonical_format).")
    .arg("a")
    .set_body_typed([](NDArrayLike a) {
      constexpr const char* fname = "COONDArray.has_canonical_format";
      const NDArray& x = COOArray(a, fname);
      MXFFI_CHECK(x.tensor().device.device_type == kDLCPU, NotImplementedError)
          << fname << ": reads the ids on the CPU; the array is on "
          << DeviceToString(x.tensor().device) << " (copy it with .to('cpu'))";
      return op::COOIsCanonical(x, fname);
    });

}  // namespace api
}  // namespace mxffi
