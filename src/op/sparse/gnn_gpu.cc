/*!
 * \file gnn_gpu.cc
 * \brief spmm, sddmm and edge_softmax on a CUDA device (gnn.cu's kernels), with the CPU ops'
 *  inference (gnn.cc) and results. adj's parts are checked canonical on the device; only when
 *  they are not are they copied to the host, for the CPU check's message.
 */
#include <mxffi/op/op.h>

#include <cstdint>

#include "gnn_cuda.h"
#include "gnn_op.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

cuda::GnnCsr PartsOf(const NDArray& adj) {
  cuda::GnnCsr a;
  const DLTensor& t = adj.tensor();
  a.rows = t.shape[0];
  a.cols = t.shape[1];
  a.nnz = adj.sparse_data().tensor().shape[0];
  a.data = adj.sparse_data().data();
  a.indices = adj.sparse_indices().data();
  a.indptr = adj.sparse_indptr().data();
  a.dtype = t.dtype;
  a.itype = adj.sparse_indices().tensor().dtype;
  return a;
}

/*! \return a CPU copy of a device part. */
NDArray OnHost(const NDArray& part) {
  const DLTensor& t = part.tensor();
  NDArray h = NDArray::Empty(t.shape, t.ndim, t.dtype, DLDevice{kDLCPU, 0});
  NDArray::CopyFromTo(t, h.tensor());
  return h;
}

/*! \brief CheckCanonicalCsr for device parts: a device scan, the host's check when it fails. */
void CheckAdjGPU(const NDArray& adj, const OpAttrs& attrs, const OpContext& ctx) {
  const char* fname = GnnPublicName(attrs);
  const bool sorted = GnnSortedColumns(attrs);
  MXFFI_CHECK(adj.storage_initialized(), ValueError)
      << fname << ": adj is a csr array whose storage is not initialised";
  const cuda::GnnCsr a = PartsOf(adj);
  const bool lengths_ok = adj.sparse_indptr().tensor().shape[0] == a.rows + 1 &&
                          adj.sparse_indices().tensor().shape[0] == a.nnz;
  if (lengths_ok) {
    const int64_t one = 8;
    NDArray scratch = NDArray::Empty(&one, 1, DLDataType{kDLUInt, 8, 1}, ctx.device);
    if (cuda::GnnFirstBadRow(a, scratch.data(), ctx.stream) < 0) return;
  }
  // The device scan checks the strict order; parts out of order pass with sorted_columns=false
  // when the host's check of the ranges alone finds nothing.
  CheckCanonicalCsr(a.rows, a.cols, OnHost(adj.sparse_data()), OnHost(adj.sparse_indices()),
                    OnHost(adj.sparse_indptr()), fname, sorted);
  if (!sorted) return;
  MXFFI_THROW(ValueError) << fname << ": adj's parts are not a canonical csr array";
}

NDArray DeviceTarget(const NDArray& out) {
  if (!out.defined() || out.IsContiguous()) return out;
  const DLTensor& t = out.tensor();
  return NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
}

void CopyBack(const NDArray& target, const NDArray& out) {
  if (target.defined() && !target.same_as(out)) {
    NDArray::CopyFromTo(target.tensor(), out.tensor());
  }
}

void SpmmGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
             Span<const OpReqType>, Span<const NDArray> out) {
  CheckAdjGPU(in[0], attrs, ctx);
  const int reduce = attrs.get<SpmmParam>().reduce;
  const NDArray x = in[1].Contiguous();
  const NDArray o = DeviceTarget(out[0]);
  const NDArray g = out.size() > 1 ? DeviceTarget(out[1]) : NDArray();
  cuda::GnnSpmm(PartsOf(in[0]), reduce, x.data(), x.tensor().shape[1], o.data(),
                g.defined() ? static_cast<int64_t*>(g.data()) : nullptr, ctx.stream);
  CopyBack(o, out[0]);
  if (out.size() > 1) CopyBack(g, out[1]);
}

void SddmmGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
              Span<const OpReqType>, Span<const NDArray> out) {
  const NDArray& adj = in[0];
  CheckAdjGPU(adj, attrs, ctx);
  const NDArray a = in[1].Contiguous(), b = in[2].Contiguous();
  const DLTensor& v = adj.sparse_data().tensor();
  NDArray values = NDArray::Empty(v.shape, 1, v.dtype, v.device);
  cuda::GnnSddmm(PartsOf(adj), a.data(), b.data(), a.tensor().shape[1], values.data(), ctx.stream);
  out[0].SetSparseStorage(std::move(values), adj.sparse_indices(), adj.sparse_indptr());
}

void EdgeSoftmaxGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                    Span<const OpReqType>, Span<const NDArray> out) {
  const char* fname = GnnPublicName(attrs);
  CheckAdjGPU(in[0], attrs, ctx);
  CheckEdgeScores(fname, in[0].sparse_data().tensor().shape[0], in[1].tensor());
  const NDArray s = in[1].Contiguous();
  const NDArray o = DeviceTarget(out[0]);
  const DLTensor& t = s.tensor();
  cuda::GnnEdgeSoftmax(PartsOf(in[0]), t.dtype, s.data(), t.ndim == 2 ? t.shape[1] : 1, o.data(),
                       ctx.stream);
  CopyBack(o, out[0]);
}

}  // namespace

MXFFI_EXTEND_OP(_sparse_spmm).set_attr<FComputeEx>("FComputeEx<gpu>", SpmmGPU);
MXFFI_EXTEND_OP(_sparse_spmm_arg).set_attr<FComputeEx>("FComputeEx<gpu>", SpmmGPU);
MXFFI_EXTEND_OP(_sparse_sddmm).set_attr<FComputeEx>("FComputeEx<gpu>", SddmmGPU);
MXFFI_EXTEND_OP(_sparse_edge_softmax).set_attr<FComputeEx>("FComputeEx<gpu>", EdgeSoftmaxGPU);

}  // namespace op
}  // namespace mxffi
