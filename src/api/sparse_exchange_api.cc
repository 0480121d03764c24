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
      return NDArray::CSR(shape.data(), SharedOrCopiedValues(shape, data, fname.c_str()),
                          CopiedIndexPart(indices, fname.c_str(), "indices"),
                          CopiedIndexPart(indptr, fname.c_str(), "indptr"), fname.c_str());
    });

}  // namespace api
}  // namespace mxffi
