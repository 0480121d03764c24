/*!
 * \file sparse_binary_gpu.cc
 * \brief The GPU kernels of add, subtract and multiply on csr and row_sparse operands
 *  (FComputeEx<gpu> beside binary_sparse.cc's FComputeEx<cpu>) and of add_n (FCompute<gpu> and
 *  FComputeEx<gpu> beside add_n.cc's), for every storage combination the CPU kernels take,
 *  with the CPU kernels' results: the same storage types, index dtypes, stored entries (explicit
 *  zeros from cancellation kept) and values.
 *
 * A sparse result is made on the device in two passes: counts per row, a scan into indptr (the
 * total read back on the op's stream), allocation of the parts, then the values. Operands whose
 * dtype is not the result's are converted first, and int32 indices to int64 when the other
 * operand has int64 ones, as on the CPU.
 */
#include <mxffi/op/op.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../../op/elemwise/elemwise.h"
#include "../../op/sparse/sparse_util.h"
#include "../kernels/sparse_binary.h"

namespace mxffi {
namespace op {
namespace {

constexpr DLDataType kBytes{kDLUInt, 8, 1};

bool SameDType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/*! \return a new C-contiguous array on the op's device. */
NDArray DeviceArray(std::initializer_list<int64_t> shape, DLDataType dtype, const OpContext& ctx) {
  return NewArray(shape, dtype, ctx.device);
}

/*! \return a itself when it is C-contiguous of dtype, else a converted contiguous copy of it. */
NDArray AsDType(const NDArray& a, DLDataType dtype, const OpContext& ctx) {
  const DLTensor& t = a.tensor();
  const bool same = SameDType(t.dtype, dtype);
  if (same && a.IsContiguous()) return a;
  NDArray compact = a;
  if (!a.IsContiguous()) {  // a conversion reads contiguous values: gather them first
    compact = NDArray::Empty(t.shape, t.ndim, t.dtype, ctx.device);
    cuda::CopyConvert(t, compact.tensor(), ctx.stream);
    if (same) return compact;
  }
  NDArray out = NDArray::Empty(t.shape, t.ndim, dtype, ctx.device);
  cuda::CopyConvert(compact.tensor(), out.tensor(), ctx.stream);
  return out;
}

/*! \return the pointer of an optional part (indptr of a csr array, null for row_sparse). */
const DLTensor* OrNull(const NDArray& a) { return a.defined() ? &a.tensor() : nullptr; }

/*!
 * \brief offsets[0] = 0 and offsets[1..] the running sums of the counts there, with a workspace
 *  from the device; returns the total, read back on the op's stream.
 */
int64_t ScanCounts(const NDArray& offsets, const OpContext& ctx) {
  const DLTensor& t = offsets.tensor();
  const size_t bytes = cuda::OffsetsWorkspaceBytes(t.shape[0] - 1, t.dtype);
  NDArray workspace = DeviceArray({static_cast<int64_t>(bytes)}, kBytes, ctx);
  return cuda::OffsetsFromCounts(t, workspace.data(), bytes, ctx.stream);
}

/*! \brief Every byte of a set to value (0, or 0xff for -1 in every element) on the op's stream. */
void Fill(const NDArray& a, int value, const OpContext& ctx) {
  const DLTensor& t = a.tensor();
  const size_t bytes = static_cast<size_t>(a.numel()) * (t.dtype.bits / 8);
  cuda::FillBytes(a.data(), value, bytes, ctx.stream);
}

/*! \brief A sparse operand's parts, values in the result dtype and indices in itype. */
struct Operand {
  NDArray data, indices, indptr;
  Operand(const NDArray& x, DLDataType dtype, DLDataType itype, const OpContext& ctx)
      : data(AsDType(x.sparse_data(), dtype, ctx)),
        indices(AsDType(x.sparse_indices(), itype, ctx)) {
    if (x.stype() == StorageType::kCSR) indptr = AsDType(x.sparse_indptr(), itype, ctx);
  }
};

cuda::SparseBinaryOp KernelOp(BinaryKind k) {
  return k == BinaryKind::kAdd        ? cuda::SparseBinaryOp::kAdd
         : k == BinaryKind::kSubtract ? cuda::SparseBinaryOp::kSubtract
                                      : cuda::SparseBinaryOp::kMultiply;
}

/*! \brief a op b, both csr: rows merged, union (add, subtract) or intersection (multiply). */
void CSRWithCSR(BinaryKind kind, const Operand& a, const Operand& b, int64_t rows, DLDataType dtype,
                DLDataType itype, const NDArray& out, const OpContext& ctx) {
  NDArray indptr = DeviceArray({rows + 1}, itype, ctx);
  cuda::CSRMergeCount(kind != BinaryKind::kMultiply, a.indptr.tensor(), a.indices.tensor(),
                      b.indptr.tensor(), b.indices.tensor(), indptr.tensor(), ctx.stream);
  const int64_t nnz = ScanCounts(indptr, ctx);
  NDArray data = DeviceArray({nnz}, dtype, ctx), indices = DeviceArray({nnz}, itype, ctx);
  cuda::CSRMergeWrite(KernelOp(kind), a.data.tensor(), a.indptr.tensor(), a.indices.tensor(),
                      b.data.tensor(), b.indptr.tensor(), b.indices.tensor(), data.tensor(),
                      indptr.tensor(), indices.tensor(), ctx.stream);
  out.SetSparseStorage(data, indices, indptr);
}

/*! \brief a op b, both row_sparse: the union of the rows (add, subtract) or the intersection. */
void RSPWithRSP(BinaryKind kind, const Operand& a, const Operand& b, const DLTensor& logical,
                DLDataType itype, const NDArray& out, const OpContext& ctx) {
  const int64_t rows = logical.shape[0], width = RowWidth(logical);
  NDArray marks = DeviceArray({rows + 1}, kIndex64, ctx);
  Fill(marks, 0, ctx);
  if (kind == BinaryKind::kMultiply) {
    cuda::RowMarkBoth(a.indices.tensor(), b.indices.tensor(), marks.tensor(), ctx.stream);
  } else {
    cuda::RowMarkAll(a.indices.tensor(), marks.tensor(), ctx.stream);
    cuda::RowMarkAll(b.indices.tensor(), marks.tensor(), ctx.stream);
  }
  const int64_t k = ScanCounts(marks, ctx);
  out.CheckAndAlloc(k, itype);
  NDArray from_a = DeviceArray({k}, kIndex64, ctx), from_b = DeviceArray({k}, kIndex64, ctx);
  Fill(from_a, 0xff, ctx);  // -1: the row is not stored in that operand
  Fill(from_b, 0xff, ctx);
  const DLTensor& out_indices = out.sparse_indices().tensor();
  const DLTensor& fa = from_a.tensor();
  const DLTensor& fb = from_b.tensor();
  cuda::RowPlace(a.indices.tensor(), marks.tensor(), &out_indices, &fa, ctx.stream);
  cuda::RowPlace(b.indices.tensor(), marks.tensor(), &out_indices, &fb, ctx.stream);
  cuda::RowCombine(KernelOp(kind), a.data.tensor(), fa, b.data.tensor(), fb,
                   out.sparse_data().tensor(), width, ctx.stream);
}

/*! \brief dense with sparse: a dense result (add, subtract) or the sparse one's (multiply). */
void DenseWithSparse(BinaryKind kind, bool sparse_first, const NDArray& dense_in,
                     const NDArray& sparse, DLDataType dtype, const NDArray& out,
                     const OpContext& ctx) {
  const NDArray data = AsDType(sparse.sparse_data(), dtype, ctx);
  const NDArray& indices = sparse.sparse_indices();
  const NDArray indptr = sparse.stype() == StorageType::kCSR ? sparse.sparse_indptr() : NDArray();
  const NDArray dense = AsDType(dense_in, dtype, ctx);
  if (out.is_sparse()) {
    const DLTensor& v = data.tensor();
    NDArray values = NDArray::Empty(v.shape, v.ndim, dtype, ctx.device);
    cuda::SparseValuesWithDense(KernelOp(kind), sparse_first, dense.tensor(), v, indices.tensor(),
                                OrNull(indptr), values.tensor(), ctx.stream);
    out.SetSparseStorage(values, indices, indptr);
    return;
  }
  const DLTensor& t = out.tensor();
  NDArray target = out.IsContiguous() ? out : NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  cuda::DenseWithSparse(KernelOp(kind), sparse_first, dense.tensor(), data.tensor(),
                        indices.tensor(), OrNull(indptr), target.tensor(), ctx.stream);
  if (!target.same_as(out)) cuda::CopyConvert(target.tensor(), t, ctx.stream);
}

template <BinaryKind K>
void BinarySparseGPU(const OpAttrs&, const OpContext& ctx, Span<const NDArray> in,
                     Span<const OpReqType>, Span<const NDArray> out) {
  const char* fname = BinaryName(K);
  const NDArray &a = in[0], &b = in[1];
  for (size_t i = 0; i < 2; ++i) {
    MXFFI_CHECK(in[i].storage_initialized(), ValueError)
        << fname << ": operand #" << i << " is a sparse array whose storage is not initialised";
  }
  const DLDataType dtype = out[0].tensor().dtype;
  MXFFI_CHECK(!(K == BinaryKind::kSubtract && dtype.code == kDLBool), TypeError)
      << fname << ": no kernel computes in bool";
  if (a.stype() == b.stype()) {
    const DLDataType ia = a.sparse_indices().tensor().dtype;
    const DLDataType ib = b.sparse_indices().tensor().dtype;
    const DLDataType itype = ia.bits != ib.bits ? kIndex64 : ia;  // as the CPU kernel chooses
    const Operand ca(a, dtype, itype, ctx), cb(b, dtype, itype, ctx);
    if (a.stype() == StorageType::kCSR) {
      CSRWithCSR(K, ca, cb, a.tensor().shape[0], dtype, itype, out[0], ctx);
    } else {
      RSPWithRSP(K, ca, cb, a.tensor(), itype, out[0], ctx);
    }
    return;
  }
  const bool sparse_first = a.is_sparse();
  DenseWithSparse(K, sparse_first, sparse_first ? b : a, sparse_first ? a : b, dtype, out[0], ctx);
}

// ---- add_n --------------------------------------------------------------------------------------

/*!
 * \brief out = in[0] + ... + in[n - 1] (n >= 1), dense, in launches of up to kMaxSummands
 *  summands: the first writes out, each next one adds the following summands to it, so the sum
 *  runs left to right as on the CPU, whatever the number of summands.
 */
void SumDense(const DLTensor* in, size_t n, const DLTensor& out, void* stream) {
  size_t b = std::min<size_t>(n, cuda::kMaxSummands);
  // In place (out is a summand, kWriteInplace) beyond the first launch, that launch would write
  // over a summand a later one reads: the sum goes through a temporary then.
  int64_t size = 1;
  for (int32_t d = 0; d < out.ndim; ++d) size *= out.shape[d];
  for (size_t j = b; j < n && size > 0; ++j) {
    if (static_cast<char*>(in[j].data) + in[j].byte_offset ==
        static_cast<char*>(out.data) + out.byte_offset) {
      NDArray tmp = NDArray::Empty(out.shape, out.ndim, out.dtype, out.device);
      SumDense(in, n, tmp.tensor(), stream);
      cuda::CopyConvert(tmp.tensor(), out, stream);
      return;
    }
  }
  cuda::AddNDense(in, static_cast<int>(b), out, stream);
  std::vector<DLTensor> group;
  while (b < n) {
    const size_t e = std::min<size_t>(n, b + cuda::kMaxSummands - 1);
    group.assign(1, out);
    group.insert(group.end(), in + b, in + e);
    cuda::AddNDense(group.data(), static_cast<int>(group.size()), out, stream);
    b = e;
  }
}

void AddNDenseGPU(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in,
                  Span<const OpReqType>, Span<const DLTensor> out) {
  SumDense(in.data(), in.size(), out[0], ctx.stream);
}

/*! \brief The index dtype of a sparse sum: int64 when any sparse summand has it, else int32. */
DLDataType SumIndexType(Span<const NDArray> in) {
  for (const NDArray& a : in) {
    if (a.is_sparse() && a.sparse_indices().tensor().dtype.bits == 64) return kIndex64;
  }
  return kIndex32;
}

void AddNRowSparseGPU(Span<const NDArray> in, const NDArray& out, const OpContext& ctx) {
  const DLTensor& t = out.tensor();
  const int64_t rows = t.shape[0], width = RowWidth(t);
  NDArray marks = DeviceArray({rows + 1}, kIndex64, ctx);
  Fill(marks, 0, ctx);
  for (const NDArray& a : in)
    cuda::RowMarkAll(a.sparse_indices().tensor(), marks.tensor(), ctx.stream);
  const int64_t m = ScanCounts(marks, ctx);
  out.CheckAndAlloc(m, SumIndexType(in));
  const DLTensor& out_indices = out.sparse_indices().tensor();
  for (const NDArray& a : in) {
    cuda::RowPlace(a.sparse_indices().tensor(), marks.tensor(), &out_indices, nullptr, ctx.stream);
  }
  Fill(out.sparse_data(), 0, ctx);
  for (const NDArray& a : in) {
    cuda::AddRowsAt(a.sparse_data().tensor(), a.sparse_indices().tensor(), marks.tensor(),
                    out.sparse_data().tensor(), width, ctx.stream);
  }
}

void AddNCSRGPU(Span<const NDArray> in, const NDArray& out, const OpContext& ctx) {
  const DLTensor& t = out.tensor();
  const int64_t rows = t.shape[0];
  if (in.size() > static_cast<size_t>(cuda::kMaxSummands)) {
    // More summands than one launch takes: summed in groups, left to right, each group's sum
    // the first summand of the next (an int64 index dtype carries forward, as on the CPU).
    std::vector<NDArray> group(in.begin(), in.begin() + cuda::kMaxSummands);
    size_t b = cuda::kMaxSummands;
    NDArray acc = NDArray::EmptySparse(StorageType::kCSR, t.shape, t.ndim, t.dtype, t.device);
    AddNCSRGPU(group, acc, ctx);
    while (b < in.size()) {
      const size_t e = std::min<size_t>(in.size(), b + cuda::kMaxSummands - 1);
      group.assign(1, acc);
      group.insert(group.end(), in.begin() + b, in.begin() + e);
      NDArray next = e == in.size() ? out
                                    : NDArray::EmptySparse(StorageType::kCSR, t.shape, t.ndim,
                                                           t.dtype, t.device);
      AddNCSRGPU(group, next, ctx);
      acc = next;
      b = e;
    }
    return;
  }
  std::vector<DLTensor> data, indptr, indices;
  int64_t total = 0;
  for (const NDArray& a : in) {
    data.push_back(a.sparse_data().tensor());
    indptr.push_back(a.sparse_indptr().tensor());
    indices.push_back(a.sparse_indices().tensor());
    total += a.sparse_indices().tensor().shape[0];
  }
  const DLDataType itype = total > INT32_MAX ? kIndex64 : SumIndexType(in);
  const int n = static_cast<int>(in.size());
  NDArray out_indptr = DeviceArray({rows + 1}, itype, ctx);
  cuda::CSRSumCount(indptr.data(), indices.data(), n, out_indptr.tensor(), ctx.stream);
  const int64_t nnz = ScanCounts(out_indptr, ctx);
  NDArray out_data = DeviceArray({nnz}, t.dtype, ctx), out_idx = DeviceArray({nnz}, itype, ctx);
  cuda::CSRSumWrite(data.data(), indptr.data(), indices.data(), n, out_data.tensor(),
                    out_indptr.tensor(), out_idx.tensor(), ctx.stream);
  out.SetSparseStorage(out_data, out_idx, out_indptr);
}

/*! \brief A dense sum: the dense summands added left to right (or zeros), then each sparse one. */
void AddNToDenseGPU(Span<const NDArray> in, const NDArray& out, const OpContext& ctx) {
  const DLTensor& t = out.tensor();
  NDArray target = out.IsContiguous() ? out : NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  std::vector<NDArray> dense;
  std::vector<DLTensor> blobs;
  for (const NDArray& a : in) {
    if (!a.is_sparse()) dense.push_back(AsDType(a, t.dtype, ctx));
  }
  for (const NDArray& a : dense) blobs.push_back(a.tensor());
  if (blobs.empty()) {
    Fill(target, 0, ctx);
  } else {
    SumDense(blobs.data(), blobs.size(), target.tensor(), ctx.stream);
  }
  for (const NDArray& a : in) {
    if (!a.is_sparse()) continue;
    const NDArray indptr = a.stype() == StorageType::kCSR ? a.sparse_indptr() : NDArray();
    cuda::AddSparseInto(a.sparse_data().tensor(), a.sparse_indices().tensor(), OrNull(indptr),
                        target.tensor(), ctx.stream);
  }
  if (!target.same_as(out)) cuda::CopyConvert(target.tensor(), t, ctx.stream);
}

void AddNExGPU(const OpAttrs&, const OpContext& ctx, Span<const NDArray> in, Span<const OpReqType>,
               Span<const NDArray> out) {
  for (size_t i = 0; i < in.size(); ++i) {
    MXFFI_CHECK(in[i].storage_initialized(), ValueError)
        << "add_n: arrays[" << i << "] is a sparse array whose storage is not initialised";
  }
  if (out[0].stype() == StorageType::kRowSparse) {
    AddNRowSparseGPU(in, out[0], ctx);
  } else if (out[0].stype() == StorageType::kCSR) {
    AddNCSRGPU(in, out[0], ctx);
  } else {
    AddNToDenseGPU(in, out[0], ctx);
  }
}

}  // namespace

MXFFI_EXTEND_OP(add_n)
    .set_attr<FCompute>("FCompute<gpu>", AddNDenseGPU)
    .set_attr<FComputeEx>("FComputeEx<gpu>", AddNExGPU);

MXFFI_EXTEND_OP(_npi_add).set_attr<FComputeEx>("FComputeEx<gpu>",
                                               BinarySparseGPU<BinaryKind::kAdd>);
MXFFI_EXTEND_OP(_npi_subtract)
    .set_attr<FComputeEx>("FComputeEx<gpu>", BinarySparseGPU<BinaryKind::kSubtract>);
MXFFI_EXTEND_OP(_npi_multiply)
    .set_attr<FComputeEx>("FComputeEx<gpu>", BinarySparseGPU<BinaryKind::kMultiply>);

}  // namespace op
}  // namespace mxffi
