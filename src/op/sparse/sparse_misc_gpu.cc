/*!
 * \file sparse_misc_gpu.cc
 * \brief GPU kernels of the smaller sparse ops, each giving its CPU kernel's result: csr _sum
 *  and _mean, the zero-preserving unary ops and scalar multiply/divide on sparse values,
 *  zeros_like, `quadratic` on csr, slice_rows and sparse_retain.
 *
 * Sparse results are made canonical on the device; the host reads back only the sizes it needs
 * to allocate them (a row range, a count), on the op's stream.
 */
#include <mxffi/op/op.h>

#include <cstdint>
#include <vector>

#include "../../ndarray/cuda/cuda_common.h"
#include "../elemwise/quadratic_op.h"
#include "../reduce/reduce_op.h"
#include "cast_storage.h"
#include "cast_storage_cuda.h"
#include "elemwise_sparse.h"
#include "sparse_misc_cuda.h"
#include "sparse_misc_op.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

/*! \return uninitialised device scratch of bytes bytes (one byte at least). */
NDArray Scratch(int64_t bytes, DLDevice device) {
  const int64_t n = bytes > 0 ? bytes : 1;
  return NDArray::Empty(&n, 1, DLDataType{kDLUInt, 8, 1}, device);
}

/*! \return a C-contiguous device copy of a dense array (the array itself when it is one). */
NDArray ContiguousOnDevice(const NDArray& a, void* stream) {
  if (a.IsContiguous()) return a;
  const DLTensor& t = a.tensor();
  NDArray out = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  cuda::CopyStrided(t, out.tensor(), stream);
  return out;
}

/*! \return a's elements in dtype on a's device: a itself when it has that dtype already. */
NDArray ValuesAs(const NDArray& a, DLDataType dtype, void* stream) {
  const DLTensor& t = a.tensor();
  if (SameDType(t.dtype, dtype)) return a;
  NDArray out = NDArray::Empty(t.shape, t.ndim, dtype, t.device);
  cuda::ConvertValues(t, out.tensor(), stream);
  return out;
}

// ---- _sum and _mean of csr -------------------------------------------------------------------

template <bool kMean>
void CSRReduceGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                  Span<const OpReqType>, Span<const NDArray> out) {
  const char* fname = kMean ? "np.mean" : "np.sum";
  const NDArray& x = in[0];
  const DLTensor& t = x.tensor();
  const uint64_t axes = ReduceAxesMask(attrs.get<ReduceParam>().axis, 2, fname);
  const DLTensor& o = out[0].tensor();
  const NDArray values = ValuesAs(x.sparse_data(), o.dtype, ctx.stream);
  NDArray target =
      out[0].IsContiguous() ? out[0] : NDArray::Empty(o.shape, o.ndim, o.dtype, o.device);
  NDArray scratch = Scratch(cuda::CSRReduceScratchBytes(t.shape[1]), t.device);
  cuda::CSRReduce(values.tensor(), x.sparse_indices().tensor(), x.sparse_indptr().tensor(),
                  t.shape[0], t.shape[1], axes, kMean, scratch.data(), target.tensor(), ctx.stream);
  if (!out[0].IsContiguous()) cuda::CopyStrided(target.tensor(), o, ctx.stream);
}

// ---- zero-preserving ops on the stored values ------------------------------------------------

/*!
 * \brief A zero-preserving op on a sparse array: the op's dense GPU kernel on the stored values
 *  (the CPU's ValuesCompute, with the dense op's dtype rules); the index parts are shared.
 */
void ValuesComputeGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                      Span<const OpReqType>, Span<const NDArray> out) {
  const FCompute* dense = attrs.op->call_attrs().compute[1];
  MXFFI_CHECK(dense != nullptr, NotImplementedError)
      << attrs.op->name << ": has no dense GPU kernel to run on the stored values";
  const DLTensor& v = in[0].sparse_data().tensor();
  NDArray values = NDArray::Empty(v.shape, v.ndim, out[0].tensor().dtype, v.device);
  DLTensor in_blob = v, out_blob = values.tensor();
  const OpReqType write = OpReqType::kWriteTo;
  (*dense)(attrs, ctx, Span<const DLTensor>(&in_blob, 1), Span<const OpReqType>(&write, 1),
           Span<const DLTensor>(&out_blob, 1));
  SetSameStructure(out[0], in[0], std::move(values));
}

// ---- ops computed through dense arrays on the device
// ---------------------------------------------

/*!
 * \brief An op whose sparse kernel has no GPU counterpart, on the GPU (maximum and minimum of two
 *  sparse arrays, x + s and x - s with a dense result): the sparse operands made dense there
 *  (the cast_storage GPU kernel), the op's dense GPU kernel, and a sparse output cast back to its
 *  storage type with the index dtype the CPU kernel gives (int64 when the operands' differ).
 *  The values are the CPU kernel's; a stored value that becomes 0 is not kept (the CPU keeps it).
 */
void DenseRoundTripGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                       Span<const OpReqType>, Span<const NDArray> out) {
  const char* fname = attrs.op->name.c_str();
  const FCompute* dense = attrs.op->call_attrs().compute[1];
  MXFFI_CHECK(dense != nullptr, NotImplementedError) << fname << ": has no dense GPU kernel";
  std::vector<NDArray> inputs;
  std::vector<DLTensor> blobs;
  DLDataType itype{};
  bool have_itype = false;
  for (const NDArray& x : in) {
    if (x.is_sparse()) {
      const DLDataType t = x.sparse_indices().tensor().dtype;
      itype = have_itype && itype.bits != t.bits ? kIndex64 : t;
      have_itype = true;
      inputs.push_back(CastStorage(x, StorageType::kDefault, fname));
    } else {
      inputs.push_back(x);
    }
  }
  for (const NDArray& x : inputs) blobs.push_back(x.tensor());
  const NDArray& result = out[0];
  const DLTensor& o = result.tensor();
  const bool direct = !result.is_sparse() && result.IsContiguous();
  NDArray target = direct ? result : NDArray::Empty(o.shape, o.ndim, o.dtype, o.device);
  DLTensor out_blob = target.tensor();
  const OpReqType write = OpReqType::kWriteTo;
  (*dense)(attrs, ctx, Span<const DLTensor>(blobs.data(), blobs.size()),
           Span<const OpReqType>(&write, 1), Span<const DLTensor>(&out_blob, 1));
  if (result.is_sparse()) {
    const NDArray s = CastStorage(target, result.stype(), fname, have_itype ? itype : kIndex64);
    result.SetSparseStorage(s.sparse_data(), s.sparse_indices(),
                            result.stype() == StorageType::kCSR ? s.sparse_indptr() : NDArray());
  } else if (!direct) {
    cuda::CopyStrided(target.tensor(), o, ctx.stream);
  }
}

/*! \brief x + s, x - s, s - x: the values kernel (s == 0: a sparse result), else dense. */
void AddSubComputeGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                      Span<const OpReqType> req, Span<const NDArray> out) {
  if (out[0].is_sparse()) {
    ValuesComputeGPU(attrs, ctx, in, req, out);
  } else {
    DenseRoundTripGPU(attrs, ctx, in, req, out);
  }
}

// ---- zeros_like --------------------------------------------------------------------------------

void ZerosLikeGPU(const OpAttrs&, const OpContext& ctx, Span<const DLTensor>, Span<const OpReqType>,
                  Span<const DLTensor> out) {
  int64_t n = DataTypeBytes(out[0].dtype);
  for (int32_t i = 0; i < out[0].ndim; ++i) n *= out[0].shape[i];
  if (n == 0) return;
  MXFFI_CUDA_CALL("zeros_like", cudaMemsetAsync(DataPtr<void>(out[0]), 0, static_cast<size_t>(n),
                                                static_cast<cudaStream_t>(ctx.stream)));
}

/*! \brief zeros_like of a sparse array: no stored values, the input's index dtype. */
void ZerosLikeSparseGPU(const OpAttrs&, const OpContext& ctx, Span<const NDArray> in,
                        Span<const OpReqType>, Span<const NDArray> out) {
  const DLDataType itype = in[0].sparse_indices().tensor().dtype;
  out[0].CheckAndAlloc(0, itype);
  if (out[0].stype() == StorageType::kCSR) {
    const NDArray& indptr = out[0].sparse_indptr();
    MXFFI_CUDA_CALL("zeros_like", cudaMemsetAsync(indptr.data(), 0,
                                                  static_cast<size_t>(indptr.tensor().shape[0] *
                                                                      DataTypeBytes(itype)),
                                                  static_cast<cudaStream_t>(ctx.stream)));
  }
}

// ---- quadratic ---------------------------------------------------------------------------------

/*! \brief quadratic of a csr matrix with c == 0: a*v*v + b*v on the values, x's structure. */
void QuadraticCSRGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                     Span<const OpReqType>, Span<const NDArray> out) {
  const QuadraticParam& p = attrs.get<QuadraticParam>();
  const DLTensor& v = in[0].sparse_data().tensor();
  NDArray values = NDArray::Empty(v.shape, v.ndim, out[0].tensor().dtype, v.device);
  cuda::QuadraticValues(v, p.a, p.b, p.c, values.tensor(), ctx.stream);
  SetSameStructure(out[0], in[0], std::move(values));
}

// ---- slice_rows --------------------------------------------------------------------------------

void SliceRowsDenseGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                       Span<const OpReqType>, Span<const DLTensor> out) {
  const SliceRowsParam& p = attrs.get<SliceRowsParam>();
  const int64_t row_bytes = RowWidth(in[0]) * DataTypeBytes(in[0].dtype);
  const int64_t n = (p.end - p.begin) * row_bytes;
  if (n == 0) return;
  MXFFI_CUDA_CALL("slice_rows",
                  cudaMemcpyAsync(DataPtr<char>(out[0]), DataPtr<char>(in[0]) + p.begin * row_bytes,
                                  static_cast<size_t>(n), cudaMemcpyDeviceToDevice,
                                  static_cast<cudaStream_t>(ctx.stream)));
}

/*! \brief count elements of src from position first into dst (1-D parts), on stream. */
void CopyRange(const NDArray& src, int64_t first, int64_t count, const NDArray& dst, void* stream) {
  if (count == 0) return;
  const int64_t elem = DataTypeBytes(src.tensor().dtype) * RowWidth(src.tensor());
  MXFFI_CUDA_CALL("slice_rows",
                  cudaMemcpyAsync(dst.data(), static_cast<const char*>(src.data()) + first * elem,
                                  static_cast<size_t>(count * elem), cudaMemcpyDeviceToDevice,
                                  static_cast<cudaStream_t>(stream)));
}

void SliceRowsExGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                    Span<const OpReqType>, Span<const NDArray> out) {
  const SliceRowsParam& p = attrs.get<SliceRowsParam>();
  const NDArray& x = in[0];
  MXFFI_CHECK(x.storage_initialized(), ValueError)
      << "slice_rows: the sparse array's storage is not initialised";
  const DLDataType itype = x.sparse_indices().tensor().dtype;
  if (x.stype() == StorageType::kCSR) {
    const DLTensor& indptr = x.sparse_indptr().tensor();
    const int64_t first = cuda::ReadIndex(indptr, p.begin, ctx.stream);
    const int64_t nnz = cuda::ReadIndex(indptr, p.end, ctx.stream) - first;
    out[0].CheckAndAlloc(nnz, itype);
    cuda::SliceIndptr(indptr, p.begin, out[0].sparse_indptr().tensor(), ctx.stream);
    CopyRange(x.sparse_data(), first, nnz, out[0].sparse_data(), ctx.stream);
    CopyRange(x.sparse_indices(), first, nnz, out[0].sparse_indices(), ctx.stream);
    return;
  }
  NDArray scratch = Scratch(2 * sizeof(int64_t), x.tensor().device);
  int64_t range[2];
  cuda::RowRange(x.sparse_indices().tensor(), p.begin, p.end, scratch.data(), range, ctx.stream);
  const int64_t lo = range[0], hi = range[1];
  out[0].CheckAndAlloc(hi - lo, itype);
  cuda::ShiftIndices(x.sparse_indices().tensor(), lo, p.begin, out[0].sparse_indices().tensor(),
                     ctx.stream);
  CopyRange(x.sparse_data(), lo, hi - lo, out[0].sparse_data(), ctx.stream);
}

// ---- sparse_retain -----------------------------------------------------------------------------

void RetainGPU(const OpAttrs&, const OpContext& ctx, Span<const NDArray> in, Span<const OpReqType>,
               Span<const NDArray> out) {
  const NDArray& data = in[0];
  MXFFI_CHECK(data.storage_initialized(), ValueError)
      << "sparse_retain: the row_sparse array's storage is not initialised";
  const DLTensor& t = data.tensor();
  const NDArray ids = ContiguousOnDevice(in[1], ctx.stream);
  const DLTensor& stored = data.sparse_indices().tensor();
  NDArray ws = Scratch(cuda::RetainWorkspaceBytes(stored.shape[0]), t.device);
  int64_t bad = -1;
  const int64_t m =
      cuda::RetainCount(stored, ids.tensor(), t.shape[0], ws.data(), &bad, ctx.stream);
  if (bad >= 0) {
    const int64_t v = cuda::ReadIndex(ids.tensor(), bad, ctx.stream);
    MXFFI_THROW(ValueError) << "sparse_retain: indices[" << bad << "]=" << v
                            << " is out of range for data with " << t.shape[0]
                            << " rows; expected 0 <= index < " << t.shape[0];
  }
  out[0].CheckAndAlloc(m, stored.dtype);
  cuda::RetainGather(stored, data.sparse_data().tensor(), RowWidth(t), ws.data(),
                     out[0].sparse_indices().tensor(), out[0].sparse_data().tensor(), ctx.stream);
}

}  // namespace

MXFFI_EXTEND_OP(_sum).set_attr<FComputeEx>("FComputeEx<gpu>", CSRReduceGPU<false>);
MXFFI_EXTEND_OP(_mean).set_attr<FComputeEx>("FComputeEx<gpu>", CSRReduceGPU<true>);

MXFFI_EXTEND_OP(_npi_negative).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_absolute).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_square).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_sqrt).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_sign).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(relu).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_sin).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_tan).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_arcsin).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_arctan).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_sinh).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_tanh).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_arcsinh).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_arctanh).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_degrees).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_radians).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_round).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_rint).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_fix).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_floor).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_ceil).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_trunc).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_cbrt).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_log1p).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_expm1).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_equal_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_not_equal_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_less_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_rless_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_less_equal_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_rless_equal_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_greater_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_rgreater_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_greater_equal_scalar)
    .set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_rgreater_equal_scalar)
    .set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_maximum_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_rmaximum_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_minimum_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_rminimum_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_power_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_add_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", AddSubComputeGPU);
MXFFI_EXTEND_OP(_npi_subtract_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", AddSubComputeGPU);
MXFFI_EXTEND_OP(_npi_rsubtract_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", AddSubComputeGPU);
MXFFI_EXTEND_OP(_npi_maximum).set_attr<FComputeEx>("FComputeEx<gpu>", DenseRoundTripGPU);
MXFFI_EXTEND_OP(_npi_minimum).set_attr<FComputeEx>("FComputeEx<gpu>", DenseRoundTripGPU);
MXFFI_EXTEND_OP(_npi_multiply_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);
MXFFI_EXTEND_OP(_npi_true_divide_scalar).set_attr<FComputeEx>("FComputeEx<gpu>", ValuesComputeGPU);

MXFFI_EXTEND_OP(zeros_like)
    .set_attr<FCompute>("FCompute<gpu>", ZerosLikeGPU)
    .set_attr<FComputeEx>("FComputeEx<gpu>", ZerosLikeSparseGPU);

MXFFI_EXTEND_OP(quadratic).set_attr<FComputeEx>("FComputeEx<gpu>", QuadraticCSRGPU);

MXFFI_EXTEND_OP(slice_rows)
    .set_attr<FCompute>("FCompute<gpu>", SliceRowsDenseGPU)
    .set_attr<FComputeEx>("FComputeEx<gpu>", SliceRowsExGPU);

MXFFI_EXTEND_OP(sparse_retain).set_attr<FComputeEx>("FComputeEx<gpu>", RetainGPU);

}  // namespace op
}  // namespace mxffi
