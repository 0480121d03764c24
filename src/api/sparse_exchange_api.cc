/*!
 * \file sparse_exchange_api.cc
 * \brief The "sparse.*" global behind mxffi.nd.sparse's exchange with other libraries (torch
 *  sparse tensors, the __binsparse__ protocol): a csr matrix from parts that shares its values
 *  with the caller's array where the layout allows, its index parts always copied.
 */
#include <mxffi/registry.h>

#include <string>
#include <string_view>

#include "../op/sparse/sparse_util.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

/*! \brief An index part, always a copy: ids a caller changes later must never reach a kernel. */
NDArray CopiedIndexPart(const NDArray& a, const char* fname, const char* part) {
  MXFFI_CHECK(!a.is_sparse(), TypeError)
      << fname << ": " << part << " must be a dense array, got a " << StorageTypeName(a.stype())
      << " one";
  return NDArray::Copy(a.tensor());
}

}  // namespace

MXFFI_REGISTER_API("sparse._csr_matrix_sharing")
    .describe(
        "A csr matrix from (shape, data, indices, indptr), validated as sparse._csr_matrix "
        "validates (errors name fname). indices and indptr are copied. data is shared, not "
        "copied, when it is an mxffi array (not one lent for the call, such as a numpy array), "
        "1-D, C-contiguous and on the CPU, and the parts are already canonical (each row's "
        "columns strictly increasing); else the matrix holds a canonical copy. The caller "
        "tells which by comparing the data pointers.")
    .arg("shape")
    .arg("data")
    .arg("indices")
    .arg("indptr")
    .arg("fname", "csr_matrix")
    .set_body_typed([](ShapeLike shape, NDArrayLike data, NDArrayLike indices, NDArrayLike indptr,
                       std::string_view fname_view) {
      const std::string fname(fname_view);
      MXFFI_CHECK(shape.ndim() == 2, ValueError)
          << fname << ": shape must have 2 dimensions, got " << shape.ToString();
      const NDArray& d = data;
      MXFFI_CHECK(!d.is_sparse(), TypeError) << fname << ": data must be a dense array, got a "
                                             << StorageTypeName(d.stype()) << " one";
      // A borrowed array (numpy's, lent for this call) may be freed by its owner after the
      // call; only an array mxffi holds a reference to can be kept.
      const bool share = !data.borrowed() && d.tensor().ndim == 1 && d.IsContiguous() &&
                         d.tensor().device.device_type == kDLCPU;
      return NDArray::CSR(shape.data(), share ? d : NDArray::Copy(d.tensor()),
                          CopiedIndexPart(indices, fname.c_str(), "indices"),
                          CopiedIndexPart(indptr, fname.c_str(), "indptr"), fname.c_str());
    });

}  // namespace api
}  // namespace mxffi
