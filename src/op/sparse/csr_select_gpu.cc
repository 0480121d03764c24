/*!
 * \file csr_select_gpu.cc
 * \brief csr take, concat and where on a CUDA device (csr_select.cu's kernels), with the CPU
 *  ops' inference (csr_select.cc) and results. A take's result size is read back to the host
 *  once, to allocate its parts on the device.
 */
#include <mxffi/op/op.h>

#include <cstdint>

#include "../../ndarray/cuda/cuda_common.h"
#include "csr_select_cuda.h"
#include "csr_select_op.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

/*! \return uninitialised device memory of bytes bytes (one at least). */
NDArray DeviceBytes(int64_t bytes, DLDevice device) {
  const int64_t n = bytes > 0 ? bytes : 1;
  return NDArray::Empty(&n, 1, DLDataType{kDLUInt, 8, 1}, device);
}

void TakeGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
             Span<const OpReqType>, Span<const NDArray> out) {
  const NDArray& a = in[0];
  MXFFI_CHECK(a.storage_initialized(), ValueError)
      << "np.take: the csr array's storage is not initialised";
  const NDArray idx = in[1].Contiguous();
  const int64_t m = a.tensor().shape[0];
  const int64_t k = idx.tensor().shape[0];
  const DLDevice dev = a.tensor().device;
  const DLDataType i64{kDLInt, 64, 1};
  NDArray rows = NDArray::Empty(&k, 1, i64, dev);
  const int64_t k1 = k + 1;
  NDArray offsets = NDArray::Empty(&k1, 1, i64, dev);
  NDArray scratch = DeviceBytes(static_cast<int64_t>(cuda::CsrTakeScratchBytes(k)), dev);
  int64_t nnz = 0;
  const int64_t bad =
      cuda::CsrTakeRows(a.sparse_indptr().tensor(), static_cast<const int64_t*>(idx.data()), k, m,
                        attrs.get<CsrTakeParam>().mode, static_cast<int64_t*>(rows.data()),
                        static_cast<int64_t*>(offsets.data()), scratch.data(), &nnz, ctx.stream);
  if (bad >= 0) {
    MXFFI_CHECK(m > 0, IndexError) << "np.take: cannot do a non-empty take from an empty axis";
    int64_t v = 0;
    MXFFI_CUDA_CALL("np.take", cudaMemcpy(&v, static_cast<const int64_t*>(idx.data()) + bad,
                                          sizeof(v), cudaMemcpyDeviceToHost));
    ThrowTakeIndex(v, m);
  }
  out[0].CheckAndAlloc(nnz, a.sparse_indices().tensor().dtype);
  cuda::CsrTakeGather(a.sparse_data().tensor(), a.sparse_indices().tensor(),
                      a.sparse_indptr().tensor(), static_cast<const int64_t*>(rows.data()),
                      static_cast<const int64_t*>(offsets.data()), k, out[0].sparse_data().tensor(),
                      out[0].sparse_indices().tensor(), out[0].sparse_indptr().tensor(),
                      ctx.stream);
}

/*! \brief count elements of src copied to dst from element at (1-D parts), on stream. */
void CopyPart(const NDArray& src, const NDArray& dst, int64_t at, void* stream) {
  const int64_t n = src.tensor().shape[0];
  if (n == 0) return;
  const int64_t item = DataTypeBytes(src.tensor().dtype);
  MXFFI_CUDA_CALL("np.concatenate",
                  cudaMemcpyAsync(static_cast<char*>(dst.data()) + at * item, src.data(),
                                  static_cast<size_t>(n * item), cudaMemcpyDeviceToDevice,
                                  static_cast<cudaStream_t>(stream)));
}

void ConcatGPU(const OpAttrs&, const OpContext& ctx, Span<const NDArray> in, Span<const OpReqType>,
               Span<const NDArray> out) {
  const DLDataType itype = in[0].sparse_indices().tensor().dtype;
  int64_t nnz = 0;
  for (const NDArray& a : in) {
    MXFFI_CHECK(a.storage_initialized(), ValueError)
        << "np.concatenate: a csr array's storage is not initialised";
    MXFFI_CHECK(SameDType(a.sparse_indices().tensor().dtype, itype), TypeError)
        << "_sparse_concat_csr: the arrays must share one index dtype (np.concatenate converts "
        << "them)";
    nnz += a.sparse_data().tensor().shape[0];
  }
  out[0].CheckAndAlloc(nnz, itype);
  const NDArray& indptr = out[0].sparse_indptr();
  const int64_t ibytes = DataTypeBytes(itype);
  MXFFI_CUDA_CALL("np.concatenate", cudaMemsetAsync(indptr.data(), 0, static_cast<size_t>(ibytes),
                                                    static_cast<cudaStream_t>(ctx.stream)));
  int64_t row_at = 0, nnz_at = 0;
  for (const NDArray& a : in) {
    const int64_t rows = a.tensor().shape[0];
    cuda::CsrShiftIndptr(a.sparse_indptr().tensor(), rows, nnz_at,
                         static_cast<char*>(indptr.data()) + (row_at + 1) * ibytes, ctx.stream);
    CopyPart(a.sparse_indices(), out[0].sparse_indices(), nnz_at, ctx.stream);
    CopyPart(a.sparse_data(), out[0].sparse_data(), nnz_at, ctx.stream);
    row_at += rows;
    nnz_at += a.sparse_data().tensor().shape[0];
  }
}

void WhereGPU(const OpAttrs&, const OpContext& ctx, Span<const NDArray> in, Span<const OpReqType>,
              Span<const NDArray> out) {
  const NDArray& cond = in[0];
  MXFFI_CHECK(cond.storage_initialized(), ValueError)
      << "np.where: the csr condition's storage is not initialised";
  const NDArray x = in[1].Contiguous(), y = in[2].Contiguous();
  const DLTensor& o = out[0].tensor();
  const bool direct = out[0].IsContiguous();
  NDArray target = direct ? out[0] : NDArray::Empty(o.shape, o.ndim, o.dtype, o.device);
  NDArray::CopyFromTo(y.tensor(), target.tensor());
  cuda::CsrWhere(cond.sparse_data().tensor(), cond.sparse_indices().tensor(),
                 cond.sparse_indptr().tensor(), o.shape[0], o.shape[1],
                 CondBitsOf(cond.tensor().dtype), x.data(), target.data(), DataTypeBytes(o.dtype),
                 ctx.stream);
  if (!direct) NDArray::CopyFromTo(target.tensor(), o);
}

}  // namespace

MXFFI_EXTEND_OP(_sparse_take_csr).set_attr<FComputeEx>("FComputeEx<gpu>", TakeGPU);
MXFFI_EXTEND_OP(_sparse_concat_csr).set_attr<FComputeEx>("FComputeEx<gpu>", ConcatGPU);
MXFFI_EXTEND_OP(_npi_where).set_attr<FComputeEx>("FComputeEx<gpu>", WhereGPU);

}  // namespace op
}  // namespace mxffi
