/*!
 * \file binary_sparse_multiply.cc
 * \brief The storage-aware kernel of multiply on csr and row_sparse operands (the kernels:
 * binary_sparse_kernels.h).
 */
#include "binary_sparse_kernels.h"

namespace mxffi {
namespace op {

using binary_sparse::BinarySparseCompute;
using binary_sparse::BinaryStorageType;

MXFFI_EXTEND_OP(_npi_multiply)
    .set_attr<bool>("TSparseSameShape", true)
    .set_attr<FInferStorageType>("FInferStorageType", BinaryStorageType<true>)
    .set_attr<FComputeEx>("FComputeEx<cpu>",
                          BinarySparseCompute<BinaryKind::kMultiply, elemwise::MultiplyOp>);

}  // namespace op
}  // namespace mxffi
