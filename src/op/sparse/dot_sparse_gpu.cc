/*!
 * \file dot_sparse_gpu.cc
 * \brief The dot op on a CUDA device: the dense kernel (the device GEMM, gemm_gpu.cc) and the
 *  storage-aware one, with dot_sparse.cc's storage inference (which does not depend on the
 *  device) and the same kernels by input storage types:
 *
 *   dot(csr, default)   -> default        the vector-CSR product of dot_csr.cu
 *   dot(csr.T, default) -> row_sparse     the csr array transposed on the device, then the same
 *                                         product over the columns that hold a value (default
 *                                         with forward_stype "default": over every column)
 *   dot(default, csr)   -> default        the csr array transposed, then one sum per output
 *   dot(default, default) -> default      the GEMM (cast to forward_stype when it asks)
 *   dot(csr, csr)       -> csr            spgemm.cu's products sorted and summed per row,
 *                                         after transposing an operand transpose_a/b names
 *   dot(row_sparse, csr) -> row_sparse    the dense @ csr kernel on lhs's stored rows
 *
 * and the csr_transpose op, the transpose above written as a csr array.
 */
// dmlc::optional<int>'s parser (dmlc/optional.h) swaps in a default-constructed optional whose
// value is never read; GCC's -Wmaybe-uninitialized flags that swap when it inlines the parser.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <mxffi/op/op.h>

#include <algorithm>
#include <vector>

#include "csr_transpose.h"
#include "dot_csr_cuda.h"
#include "dot_sparse.h"
#include "spgemm_cuda.h"

namespace mxffi {
namespace op {
namespace {

/*! \brief Device scratch buffers, freed (in stream order) when the op returns. */
class Scratch {
 public:
  explicit Scratch(DLDevice device) : device_(device) {}
  void* operator()(size_t bytes) {
    const int64_t n = static_cast<int64_t>(std::max<size_t>(bytes, 1));
    buffers_.push_back(NDArray::Empty(&n, 1, DLDataType{kDLUInt, 8, 1}, device_));
    return buffers_.back().data();
  }

 private:
  DLDevice device_;
  std::vector<NDArray> buffers_;
};

cuda::CsrParts PartsOf(const NDArray& csr) {
  cuda::CsrParts parts;
  const DLTensor& t = csr.tensor();
  parts.rows = t.shape[0];
  parts.cols = t.shape[1];
  parts.nnz = csr.sparse_data().tensor().shape[0];
  parts.data = csr.sparse_data().data();
  parts.indices = csr.sparse_indices().data();
  parts.indptr = csr.sparse_indptr().data();
  parts.dtype = t.dtype;
  parts.itype = csr.sparse_indices().tensor().dtype;
  return parts;
}

/*! \brief a's transpose on the device (dot_csr_cuda.h's CsrTranspose), owning its parts. */
struct Transposed {
  NDArray ptr, idx, val;
};

Transposed Transpose(const cuda::CsrParts& a, DLDevice device, Scratch& scratch, void* stream) {
  Transposed t;
  const int64_t ptr_len = a.cols + 1, nnz = std::max<int64_t>(a.nnz, 1);
  t.ptr = NDArray::Empty(&ptr_len, 1, DLDataType{kDLInt, 64, 1}, device);
  t.idx = NDArray::Empty(&nnz, 1, a.itype, device);
  t.val = NDArray::Empty(&nnz, 1, a.dtype, device);
  cuda::CsrTranspose(
      a, [&](size_t bytes) { return scratch(bytes); }, static_cast<int64_t*>(t.ptr.data()),
      t.idx.data(), t.val.data(), stream);
  return t;
}

/*! \brief csr.T @ dense into out: row_sparse (the columns of csr holding a value) or dense. */
void CsrTDenseGPU(const NDArray& csr, const NDArray& dense_array, const NDArray& out,
                  const OpContext& ctx) {
  const cuda::CsrParts a = PartsOf(csr);
  const void* dense = dense_array.data();
  const int64_t n = dense_array.tensor().shape[1];
  Scratch scratch(ctx.device);
  Transposed t = Transpose(a, ctx.device, scratch, ctx.stream);
  const int64_t* tptr = static_cast<const int64_t*>(t.ptr.data());
  if (!out.is_sparse()) {
    // Every row of the result, those of columns without a value summing nothing (zeros).
    cuda::TransposedDense(a.cols, tptr, t.idx.data(), t.val.data(), a.dtype, a.itype, nullptr,
                          dense, n, out.data(), ctx.stream);
    return;
  }
  const int64_t cols = std::max<int64_t>(a.cols, 1);
  NDArray kept = NDArray::Empty(&cols, 1, DLDataType{kDLInt, 64, 1}, ctx.device);
  int64_t* kept_ids = static_cast<int64_t*>(kept.data());
  const int64_t count = cuda::NonEmptyRows(
      tptr, a.cols, kept_ids, [&](size_t bytes) { return scratch(bytes); }, ctx.stream);
  out.CheckAndAlloc(count, a.itype);
  cuda::WriteRowIds(kept_ids, count, out.sparse_indices().data(), a.itype, ctx.stream);
  cuda::TransposedDense(count, tptr, t.idx.data(), t.val.data(), a.dtype, a.itype, kept_ids, dense,
                        n, out.sparse_data().data(), ctx.stream);
}

/*! \brief dense @ csr on the device, on csr transposed (dot_csr_cuda.h's DenseTransposed). */
void DenseCsrGPU(const NDArray& dense, const NDArray& csr, const NDArray& out,
                 const OpContext& ctx) {
  const cuda::CsrParts b = PartsOf(csr);
  Scratch scratch(ctx.device);
  Transposed t = Transpose(b, ctx.device, scratch, ctx.stream);
  cuda::DenseTransposed(dense.tensor().shape[0], b.rows, b.cols, dense.data(),
                        static_cast<const int64_t*>(t.ptr.data()), t.idx.data(), t.val.data(),
                        b.dtype, b.itype, out.data(), ctx.stream);
}

/*! \brief csr @ csr on the device into out, a csr array whose parts are not set yet. */
void CsrCsrGPU(const NDArray& a, const NDArray& b, const NDArray& out, const OpContext& ctx) {
  Scratch scratch(ctx.device);
  const cuda::SpGemmPlan plan(
      PartsOf(a), PartsOf(b), [&](size_t bytes) { return scratch(bytes); }, ctx.stream);
  out.CheckAndAlloc(plan.nnz(), SpGemmIndexDType(a, b, plan.nnz()));
  plan.Write(out.sparse_indptr().data(), out.sparse_indices().data(), out.sparse_data().data(),
             out.sparse_indices().tensor().dtype, ctx.stream);
}

/*! \brief csr's transpose into out (a csr array of the reversed shape, parts not set yet). */
void CsrTransposeInto(const NDArray& csr, const NDArray& out, const OpContext& ctx) {
  const cuda::CsrParts a = PartsOf(csr);
  MXFFI_CHECK(CsrTransposeIndexDType(csr).bits == a.itype.bits, ValueError)
      << "csr_transpose: on a CUDA device the row ids of the transpose keep the index dtype; "
      << csr.tensor().shape[0] << " rows do not fit int32";
  out.CheckAndAlloc(a.nnz, a.itype);
  Scratch scratch(ctx.device);
  const int64_t ptr_len = a.cols + 1;
  // The transpose writes int64 row starts: into the result's indptr when that is int64.
  int64_t* tptr = a.itype.bits == 64
                      ? static_cast<int64_t*>(out.sparse_indptr().data())
                      : static_cast<int64_t*>(scratch(ptr_len * sizeof(int64_t)));
  cuda::CsrTranspose(
      a, [&](size_t bytes) { return scratch(bytes); }, tptr, out.sparse_indices().data(),
      out.sparse_data().data(), ctx.stream);
  if (a.itype.bits != 64) {
    cuda::WriteIndices(tptr, ptr_len, out.sparse_indptr().data(), a.itype, ctx.stream);
  }
}

NDArray CsrTransposeGPU(const NDArray& csr, const OpContext& ctx) {
  const DLTensor& t = csr.tensor();
  const int64_t shape[2] = {t.shape[1], t.shape[0]};
  NDArray out = NDArray::EmptySparse(StorageType::kCSR, shape, 2, t.dtype, t.device);
  CsrTransposeInto(csr, out, ctx);
  return out;
}

const DotKernels kGpuDot = {
    DenseDot<gpu>,
    [](const NDArray& csr, const NDArray& dense, const NDArray& out, const OpContext& ctx) {
      cuda::CsrDense(PartsOf(csr), dense.data(), dense.tensor().shape[1], out.data(), ctx.stream);
    },
    CsrTDenseGPU,
    DenseCsrGPU,
    CsrCsrGPU,
    CsrTransposeGPU,
    nullptr,  // csr @ row_sparse: the fallback (DotStorageType)
};

void DotComputeExGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                     Span<const OpReqType> req, Span<const NDArray> out) {
  DotComputeExWith(kGpuDot, attrs, ctx, in, req, out);
}

}  // namespace

MXFFI_EXTEND_OP(dot)
    .set_attr<FCompute>("FCompute<gpu>", DotCompute<gpu>)
    .set_attr<FComputeEx>("FComputeEx<gpu>", DotComputeExGPU);

MXFFI_EXTEND_OP(csr_transpose)
    .set_attr<FComputeEx>("FComputeEx<gpu>",
                          [](const OpAttrs&, const OpContext& ctx, Span<const NDArray> in,
                             Span<const OpReqType>, Span<const NDArray> out) {
                            CsrTransposeInto(in[0], out[0], ctx);
                          });

}  // namespace op
}  // namespace mxffi
