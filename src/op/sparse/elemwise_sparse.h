/*!
 * \file elemwise_sparse.h
 * \brief What the storage-aware kernels of the elementwise ops and reductions share: operands
 *  brought to the output's dtype and to one index dtype, a dense kernel run on a sparse array's
 *  values, dense outputs that may be strided, and the zeros_like op's parameter.
 *
 * Storage inference sees storage types only, never dtypes, so a kernel it picks takes every
 * dtype: operands whose dtype is not the output's are converted first (numpy's promotion, as the
 * dense ops have it), which costs one pass over the stored values.
 */
#ifndef MXFFI_SRC_OP_SPARSE_ELEMWISE_SPARSE_H_
#define MXFFI_SRC_OP_SPARSE_ELEMWISE_SPARSE_H_

#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <optional>

#include "../parallel.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {

/*! \return whether every input is dense. */
inline bool AllDense(Span<const StorageType> in) {
  for (StorageType s : in) {
    if (s != StorageType::kDefault) return false;
  }
  return true;
}

/*!
 * \return whether the op has a storage-aware kernel (FComputeEx<cpu> or FComputeEx<gpu>) for
 *  device; storage inference picks the fallback where it has none.
 */
inline bool HasSparseKernel(const OpAttrs& attrs, DLDevice device) {
  return attrs.op->call_attrs().compute_ex[device.device_type != kDLCPU] != nullptr;
}

/*!
 * \brief Storage inference of an op whose sparse kernel keeps the storage type of its one
 *  input (a zero-preserving unary op): dense -> the dense kernel, csr -> csr, row_sparse ->
 *  row_sparse with the storage-aware kernel (the fallback on a device it has no kernel for).
 */
DispatchMode SameStorageType(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                             Span<StorageType> out);

/*!
 * \return a C-contiguous array with a's values in dtype: a itself when it already is one, else a
 *  converted copy (the `_cast` op, numpy's astype).
 */
NDArray ContiguousAs(const NDArray& a, DLDataType dtype);

/*! \return an int64 copy of an index part (a itself when it is int64). */
NDArray IndexAs64(const NDArray& a);

/*!
 * \brief Run the op's dense kernel (FCompute<cpu>) from in (a dense array: a sparse array's
 *  values) into a new array of dtype and return it; for the zero-preserving ops, whose value on
 *  each stored element is their dense value.
 */
NDArray DenseKernelOn(const OpAttrs& attrs, const OpContext& ctx, const NDArray& in,
                      DLDataType dtype);

/*!
 * \brief out (sparse, of in's storage type) with values and in's structure: the indices (and
 *  indptr) are shared, not copied, since no kernel writes an index part once it is set.
 */
void SetSameStructure(const NDArray& out, const NDArray& in, NDArray values);

/*!
 * \brief A dense output a kernel writes C-contiguously: the output itself, or a temporary
 *  copied into it by Finish() when the caller's out= array is strided.
 */
class DenseOutput {
 public:
  explicit DenseOutput(const NDArray& out) : out_(out) {
    if (!out.IsContiguous()) {
      const DLTensor& t = out.tensor();
      temp_ = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
    }
  }
  /*! \return where the kernel writes. */
  void* data() const { return temp_.defined() ? temp_.data() : out_.data(); }
  /*! \brief Copy the temporary, if any, into the output. */
  void Finish() const {
    if (temp_.defined()) NDArray::CopyFromTo(temp_.tensor(), out_.tensor());
  }

 private:
  NDArray out_, temp_;
};

/*!
 * \brief Release the GIL (when held) around kernel work on more than kReleaseGILThreshold
 *  elements, as the dense kernels do.
 */
class MaybeReleaseGIL {
 public:
  explicit MaybeReleaseGIL(int64_t work) {
    if (work > kReleaseGILThreshold) gil_.emplace();
  }

 private:
  std::optional<ScopedGILRelease> gil_;
};

/*! \brief The zeros_like op's parameter. */
struct ZerosLikeParam : public dmlc::Parameter<ZerosLikeParam> {
  DTypeParam dtype;
  DMLC_DECLARE_PARAMETER(ZerosLikeParam) {
    DMLC_DECLARE_FIELD(dtype)
        .set_default(DTypeParam())
        .describe("dtype of the result; None keeps the input's.");
  }
};

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_ELEMWISE_SPARSE_H_
