/*!
 * \file binary_sparse_minimum.cc
 * \brief The storage-aware kernel of minimum on csr and row_sparse operands (MXNet's sparse
 *  _minimum): minimum(0, 0) is 0, so two csr or two row_sparse operands give the union of their
 *  structures, and a dense operand with a sparse one gives a dense result (the kernels:
 *  binary_sparse_kernels.h). NaN propagates from either side, as numpy's.
 */
#include "binary_sparse_kernels.h"

namespace mxffi {
namespace op {

using binary_sparse::BinarySparseCompute;
using binary_sparse::BinaryStorageType;

MXFFI_EXTEND_OP(_npi_minimum)
    .set_attr<bool>("TSparseSameShape", true)
    .set_attr<FInferStorageType>("FInferStorageType", BinaryStorageType<false>)
    .set_attr<FComputeEx>("FComputeEx<cpu>",
                          BinarySparseCompute<BinaryKind::kMinimum, elemwise::MinimumOp>);

}  // namespace op
}  // namespace mxffi
