/*!
 * \file reduce_sparse.cc
 * \brief _sum and _mean of a csr matrix into a dense result, over axis 0, axis 1 or both
 *  (keepdims honoured): only the stored values are read.
 *
 * Values whose dtype is not the result's are converted first (numpy casts before it
 * accumulates). Floats accumulate in double and round once; integers accumulate with
 * wrap-around, as numpy's do; mean divides the sum by the number of elements reduced, stored or
 * not (0 / 0 is NaN for an empty axis, as numpy's). A row_sparse input, an empty axis tuple and
 *  a device without a csr kernel take the fallback.
 */
#include <algorithm>
#include <type_traits>
#include <vector>

#include "../elemwise/broadcast.h"
#include "../reduce/reduce_op.h"
#include "../reduce/reducers.h"
#include "elemwise_sparse.h"

namespace mxffi {
namespace op {
namespace {

/*! \return the reduced axes of a 2-D input: bit 0 axis 0, bit 1 axis 1. */
uint64_t CSRMask(const OpAttrs& attrs, const char* fname) {
  return ReduceAxesMask(attrs.get<ReduceParam>().axis, 2, fname);
}

template <const char* kName>
DispatchMode ReduceStorageType(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                               Span<StorageType> out) {
  out[0] = StorageType::kDefault;
  if (in[0] == StorageType::kDefault) return DispatchMode::kFCompute;
  const bool csr_kernel =
      in[0] == StorageType::kCSR && HasSparseKernel(attrs, device) && CSRMask(attrs, kName) != 0;
  return csr_kernel ? DispatchMode::kFComputeEx : DispatchMode::kFComputeFallback;
}

using reduce::FinishSum;
using reduce::SumAcc;
using reduce::ToSum;

template <typename T, typename I, bool kMean>
void CSRReduce(const T* data, const I* indices, const I* indptr, int64_t rows, int64_t cols,
               uint64_t mask, T* o) {
  using Acc = SumAcc<T, kMean>;
  const int64_t nnz = indptr[rows];
  MaybeReleaseGIL gil(nnz);
  if (mask == 2) {  // axis 1: one sum per row
    ParallelFor(rows, nnz / std::max<int64_t>(rows, 1) + 1, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        Acc acc = 0;
        for (I p = indptr[r]; p < indptr[r + 1]; ++p) acc += ToSum<T, kMean>(data[p]);
        o[r] = FinishSum<T, kMean>(acc, cols);
      }
    });
    return;
  }
  if (mask == 3) {  // every axis: the sum of the stored values
    const int64_t chunks = std::max<int64_t>(1, std::min<int64_t>(NumThreads(), nnz >> 16));
    std::vector<Acc> partial(chunks, 0);
    ParallelFor(chunks, nnz / chunks, [&](int64_t cb, int64_t ce) {
      for (int64_t c = cb; c < ce; ++c) {
        Acc acc = 0;
        for (int64_t p = nnz * c / chunks; p < nnz * (c + 1) / chunks; ++p) {
          acc += ToSum<T, kMean>(data[p]);
        }
        partial[c] = acc;
      }
    });
    Acc total = 0;
    for (Acc v : partial) total += v;
    o[0] = FinishSum<T, kMean>(total, rows * cols);
    return;
  }
  // axis 0: column sums. Rows are cut into chunks, each with its own column accumulators when
  // the values outnumber the columns enough for that to pay, then added up column by column.
  const int64_t chunks =
      std::max<int64_t>(1, std::min<int64_t>(NumThreads(), nnz / (4 * cols + (1 << 16))));
  std::vector<Acc> acc(chunks * cols, 0);
  ParallelFor(chunks, nnz / chunks, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      Acc* a = acc.data() + c * cols;
      for (int64_t r = rows * c / chunks; r < rows * (c + 1) / chunks; ++r) {
        for (I p = indptr[r]; p < indptr[r + 1]; ++p) a[indices[p]] += ToSum<T, kMean>(data[p]);
      }
    }
  });
  for (int64_t j = 0; j < cols; ++j) {
    Acc s = 0;
    for (int64_t c = 0; c < chunks; ++c) s += acc[c * cols + j];
    o[j] = FinishSum<T, kMean>(s, rows);
  }
}

template <bool kMean>
void CSRReduceCompute(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                      Span<const OpReqType>, Span<const NDArray> out) {
  const char* fname = kMean ? "np.mean" : "np.sum";
  const NDArray& x = in[0];
  const DLTensor& t = x.tensor();
  const uint64_t mask = CSRMask(attrs, fname);
  const DLDataType dtype = out[0].tensor().dtype;
  const NDArray values = ContiguousAs(x.sparse_data(), dtype);
  DenseOutput target(out[0]);
  MXFFI_TYPE_SWITCH(dtype, fname, T, {
    MXFFI_INDEX_SWITCH(x.sparse_indices().tensor().dtype, fname, I, {
      CSRReduce<T, I, kMean>(Ptr<T>(values), Ptr<I>(x.sparse_indices()), Ptr<I>(x.sparse_indptr()),
                             t.shape[0], t.shape[1], mask, static_cast<T*>(target.data()));
    });
  });
  target.Finish();
}

constexpr char kSumName[] = "np.sum";
constexpr char kMeanName[] = "np.mean";

}  // namespace

MXFFI_EXTEND_OP(_sum)
    .set_attr<FInferStorageType>("FInferStorageType", ReduceStorageType<kSumName>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", CSRReduceCompute<false>);
MXFFI_EXTEND_OP(_mean)
    .set_attr<FInferStorageType>("FInferStorageType", ReduceStorageType<kMeanName>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", CSRReduceCompute<true>);

}  // namespace op
}  // namespace mxffi
