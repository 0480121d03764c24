/*!
 * \file gemm_gpu.cc
 * \brief The GEMM of the matrix products on a CUDA device (BatchedGemm(gpu), dot_op.h): cuBLAS
 *  (src/ndarray/cuda/blas.h) for float16, bfloat16, float32, float64, complex64 and complex128,
 *  the tiled kernel of gemm.cu for integers and bool and wherever cuBLAS cannot be loaded
 *  (complex products need cuBLAS: the tiled kernel refuses them with its TypeError).
 *
 * An operand reaches cuBLAS as it lies in memory when its dtype is the result's and one of its
 * two strides is 1 (a transposed view becomes a transposed operand, not a copy); anything else
 * is packed once into a contiguous matrix of the result's dtype. A batched product is one
 * strided-batched call over the longest run of trailing batch axes along which every operand
 * advances by one stride, repeated over the leading axes where broadcasting prevents that.
 *
 * float32 and float64 accumulate in their own precision with no TF32 or other reduced
 * precision; float16 and bfloat16 accumulate in float32 and are rounded once (the CPU GEMM's
 * results, up to the order of the sums). Integers wrap as numpy's do; bool is the logical or of
 * ands.
 */
#include <cuda_runtime.h>
#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

#include <algorithm>
#include <climits>

#include "../../ndarray/cuda/blas.h"
#include "../../ndarray/cuda/cuda_common.h"
#include "dot_op.h"
#include "gemm_cuda.h"
#include "gemm_layout.h"

namespace mxffi {
namespace op {
namespace {

static_assert(cuda::kGemmMaxDims == kGemmMaxDims, "gemm.cu packs as many axes as an operand has");

/*! \brief One operand as the kernels read it: a strided matrix of the result's dtype. */
struct Matrix {
  const void* p = nullptr;
  int64_t rs = 0, cs = 0;
  int64_t batch_stride[kGemmMaxDims] = {};
  NDArray storage;  // the packed copy, when there is one
};

/*!
 * \brief The operand as a Matrix of out_dtype: itself when its dtype is out_dtype, its rows and
 *  columns collapse and (for cuBLAS) one of its strides is 1; otherwise a packed copy,
 *  C-contiguous over its own batch axes (those it broadcasts along stay extent 1, stride 0).
 */
Matrix Prepare(const GemmOperand& op, int nb, const int64_t* batch_shape, DLDataType out_dtype,
               bool for_blas, DLDevice device, cudaStream_t stream) {
  Matrix m;
  const int64_t rows = op.rows(), cols = op.cols();
  if (SameDType(op.dtype, out_dtype) && OperandAs2D<GemmOperand, kGemmMaxDims>(op, &m.rs, &m.cs)) {
    bool col_major = false;
    int64_t ld = 0;
    if (!for_blas || BlasLayout(rows, cols, m.rs, m.cs, &col_major, &ld)) {
      m.p = op.data;
      std::copy(op.batch_stride, op.batch_stride + nb, m.batch_stride);
      return m;
    }
  }
  int64_t shape[3 * kGemmMaxDims], strides[3 * kGemmMaxDims];
  int n = 0;
  for (int d = 0; d < nb; ++d) {
    shape[n] = op.batch_stride[d] != 0 ? batch_shape[d] : 1;
    strides[n++] = op.batch_stride[d];
  }
  for (int d = 0; d < op.nrow; ++d) {
    shape[n] = op.row[d].size;
    strides[n++] = op.row[d].stride;
  }
  for (int d = 0; d < op.ncol; ++d) {
    shape[n] = op.col[d].size;
    strides[n++] = op.col[d].stride;
  }
  int64_t total = rows * cols;
  for (int d = nb - 1; d >= 0; --d) {
    m.batch_stride[d] = shape[d] == 1 ? 0 : total;
    total *= shape[d];
  }
  const int64_t one = std::max<int64_t>(total, 1);
  m.storage = NDArray::Empty(&one, 1, out_dtype, device);
  cuda::PackStrided(op.data, op.dtype, n, shape, strides, m.storage.data(), out_dtype, stream);
  m.p = m.storage.data();
  m.rs = cols;
  m.cs = 1;
  return m;
}

/*!
 * \brief c[t] = a[t] @ b[t] through cuBLAS. cuBLAS is column-major: the row-major product
 *  c = a @ b is the column-major c^T = b^T @ a^T, so b goes first, and a row-major operand is
 *  its transpose in column-major order.
 */
void BlasProducts(int64_t M, int64_t N, int64_t K, const Matrix& a, const Matrix& b, int nb,
                  const int64_t* batch_shape, DLDataType dtype, void* c, DLDevice device,
                  cudaStream_t stream, const char* fname) {
  bool a_cm = false, b_cm = false;
  int64_t lda = 0, ldb = 0;
  BlasLayout(M, K, a.rs, a.cs, &a_cm, &lda);
  BlasLayout(K, N, b.rs, b.cs, &b_cm, &ldb);
  // The trailing batch axes [p, nb) along which a and b each advance by one stride (c, being
  // contiguous, always does): the strided-batched call covers them.
  auto linear = [&](const int64_t* st, int p, int64_t* out) {
    int64_t inner = 1, s = 0;
    bool seen = false;
    for (int d = nb - 1; d >= p; --d) {
      if (batch_shape[d] == 1) continue;
      if (st[d] < 0 || st[d] % inner != 0) return false;
      const int64_t sd = st[d] / inner;
      if (seen && sd != s) return false;
      s = sd;
      seen = true;
      inner *= batch_shape[d];
    }
    *out = s;
    return true;
  };
  int p = 0;
  int64_t sa = 0, sb = 0;
  while (p < nb && !(linear(a.batch_stride, p, &sa) && linear(b.batch_stride, p, &sb))) ++p;
  if (p == nb) sa = sb = 0;
  int64_t inner = 1, outer = 1;
  for (int d = 0; d < nb; ++d) (d < p ? outer : inner) *= batch_shape[d];
  const int64_t elem = DataTypeBytes(dtype);
  const char* ap = static_cast<const char*>(a.p);
  const char* bp = static_cast<const char*>(b.p);
  char* cp = static_cast<char*>(c);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t oa = 0, ob = 0, rest = o;
    for (int d = p - 1; d >= 0; --d) {
      const int64_t i = rest % batch_shape[d];
      rest /= batch_shape[d];
      oa += i * a.batch_stride[d];
      ob += i * b.batch_stride[d];
    }
    for (int64_t t0 = 0; t0 < inner; t0 += INT_MAX) {
      const int64_t count = std::min<int64_t>(inner - t0, INT_MAX);
      cuda::BlasGemm(dtype, b_cm, a_cm, static_cast<int>(N), static_cast<int>(M),
                     static_cast<int>(K), bp + (ob + t0 * sb) * elem, static_cast<int>(ldb), sb,
                     ap + (oa + t0 * sa) * elem, static_cast<int>(lda), sa,
                     cp + ((o * inner + t0) * M * N) * elem, static_cast<int>(N), M * N,
                     static_cast<int>(count), device, stream, fname);
    }
  }
}

}  // namespace

void BatchedGemm(gpu, const OpContext& ctx, const GemmOperand& a, const GemmOperand& b,
                 int nbatch_dims, const int64_t* batch_shape, DLDataType out_dtype, void* c,
                 const char* fname) {
  const int64_t M = a.rows(), N = b.cols(), K = a.cols();
  MXFFI_CHECK(K == b.rows(), ValueError)
      << fname << ": inner extents differ: " << K << " and " << b.rows();
  MXFFI_CHECK(nbatch_dims >= 0 && nbatch_dims <= kGemmMaxDims, ValueError)
      << fname << ": " << nbatch_dims << " batch axes; at most " << kGemmMaxDims;
  int64_t nbatch = 1;
  for (int d = 0; d < nbatch_dims; ++d) nbatch *= batch_shape[d];
  if (M == 0 || N == 0 || nbatch == 0) return;
  cudaStream_t s = static_cast<cudaStream_t>(ctx.stream);
  if (K == 0) {  // an empty sum: zeros, whose bits are all 0 in every dtype
    MXFFI_CUDA_CALL(fname, cudaMemsetAsync(c, 0, nbatch * M * N * DataTypeBytes(out_dtype), s));
    return;
  }
  const bool use_blas = cuda::BlasSupports(out_dtype) && M <= INT_MAX && N <= INT_MAX &&
                        K <= INT_MAX && cuda::BlasAvailable();
  Matrix ma = Prepare(a, nbatch_dims, batch_shape, out_dtype, use_blas, ctx.device, s);
  Matrix mb = Prepare(b, nbatch_dims, batch_shape, out_dtype, use_blas, ctx.device, s);
  if (use_blas) {
    BlasProducts(M, N, K, ma, mb, nbatch_dims, batch_shape, out_dtype, c, ctx.device, s, fname);
    return;
  }
  cuda::GemmBatch batch;
  batch.ndim = nbatch_dims;
  for (int d = 0; d < nbatch_dims; ++d) {
    batch.shape[d] = batch_shape[d];
    batch.a_stride[d] = ma.batch_stride[d];
    batch.b_stride[d] = mb.batch_stride[d];
  }
  cuda::TiledGemm(out_dtype, M, N, K, ma.p, ma.rs, ma.cs, mb.p, mb.rs, mb.cs, batch, nbatch, c, s);
}

}  // namespace op
}  // namespace mxffi
