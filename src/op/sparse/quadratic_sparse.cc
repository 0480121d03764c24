/*!
 * \file quadratic_sparse.cc
 * \brief A csr kernel for the `quadratic` op: how a sparse kernel is added to an existing op.
 *
 * a*x**2 + b*x + c maps 0 to c. With c == 0 the zeros stay zeros, so a csr input gives a csr
 * output with the same structure, each stored value v becoming a*v*v + b*v. Two attributes,
 * added from this file to the op that elemwise/quadratic_op.cc registers, are all it takes:
 *   - FInferStorageType picks the output's storage type and the dispatch mode. Dense input:
 *     the dense kernel, exactly as before. csr with c == 0: this file's kernel. Anything else
 *     (c != 0, row_sparse): the fallback, which computes densely and warns once.
 *   - FComputeEx<cpu> computes on the arrays as they are. Invoke hands it an output whose
 *     storage is not set yet; the kernel sets it.
 */
#include "../elemwise/quadratic_op.h"
#include "elemwise_sparse.h"

namespace mxffi {
namespace op {
namespace {

// [stype.begin]
DispatchMode QuadraticStorageType(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                                  Span<StorageType> out) {
  if (in[0] == StorageType::kDefault) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFCompute;
  }
  if (in[0] == StorageType::kCSR && attrs.get<QuadraticParam>().c == 0.0 &&
      HasSparseKernel(attrs, device)) {
    out[0] = StorageType::kCSR;
    return DispatchMode::kFComputeEx;
  }
  out[0] = StorageType::kDefault;  // c != 0 fills every element: the result is dense
  return DispatchMode::kFComputeFallback;
}
// [stype.end]

// [kernel.begin]
void QuadraticCSRCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                         Span<const OpReqType> req, Span<const NDArray> out) {
  const NDArray& x = in[0];
  // The values: the dense kernel on the csr's data array (nnz long, split across the pool).
  const DLTensor& values = x.sparse_data().tensor();
  NDArray data = NDArray::Empty(values.shape, values.ndim, out[0].tensor().dtype, values.device);
  DLTensor in_blob = values, out_blob = data.tensor();
  QuadraticCompute(attrs, ctx, Span<const DLTensor>(&in_blob, 1), req,
                   Span<const DLTensor>(&out_blob, 1));
  // The structure: x's indices and indptr, shared (index parts are never written once set).
  out[0].SetSparseStorage(data, x.sparse_indices(), x.sparse_indptr());
}
// [kernel.end]

}  // namespace

// [register.begin]
MXFFI_EXTEND_OP(quadratic)
    .set_attr<FInferStorageType>("FInferStorageType", QuadraticStorageType)
    .set_attr<FComputeEx>("FComputeEx<cpu>", QuadraticCSRCompute);
// [register.end]

}  // namespace op
}  // namespace mxffi
