/*!
 * \file binary_sparse_maximum.cc
 * \brief The storage-aware kernel of maximum on csr and row_sparse operands (MXNet's sparse
 *  _maximum): maximum(0, 0) is 0, so two csr or two row_sparse operands give the union of their
 *  structures, and a dense operand with a sparse one gives a dense result (the kernels:
 *  binary_sparse_kernels.h). NaN propagates from either side, as numpy's.
 */
#include "binary_sparse_kernels.h"

namespace mxffi {
namespace op {

using binary_sparse::BinarySparseCompute;
using binary_sparse::BinaryStorageType;

MXFFI_EXTEND_OP(_npi_maximum)
    .set_attr<bool>("TSparseSameShape", true)
    .set_attr<FInferStorageType>("FInferStorageType", BinaryStorageType<false>)
    .set_attr<FComputeEx>("FComputeEx<cpu>",
                          BinarySparseCompute<BinaryKind::kMaximum, elemwise::MaximumOp>);

}  // namespace op
}  // namespace mxffi
