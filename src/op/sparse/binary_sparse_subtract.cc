/*!
 * \file binary_sparse_subtract.cc
 * \brief The storage-aware kernel of subtract on csr and row_sparse operands (the kernels:
 * binary_sparse_kernels.h).
 */
#include "binary_sparse_kernels.h"

namespace mxffi {
namespace op {

using binary_sparse::BinarySparseCompute;
using binary_sparse::BinaryStorageType;

MXFFI_EXTEND_OP(_npi_subtract)
    .set_attr<bool>("TSparseSameShape", true)
    .set_attr<FInferStorageType>("FInferStorageType", BinaryStorageType<false>)
    .set_attr<FComputeEx>("FComputeEx<cpu>",
                          BinarySparseCompute<BinaryKind::kSubtract, elemwise::SubtractOp>);

}  // namespace op
}  // namespace mxffi
