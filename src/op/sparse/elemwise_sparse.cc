/*!
 * \file elemwise_sparse.cc
 * \brief Storage-aware kernels of the zero-preserving unary ops (negative, absolute, square,
 *  sqrt, sign, relu), of multiplying and dividing by a number, and the zeros_like op.
 *
 * Each of these maps 0 to 0, so a sparse input gives a sparse output of the same storage type
 * and structure: the op's own dense kernel runs on the stored values (one pass, split across the
 * kernel pool, with the dense op's dtype rules) and the index parts are shared with the input.
 */
#include "elemwise_sparse.h"

#include <cmath>
#include <cstring>

#include "../elemwise/elemwise.h"
#include "../infer.h"
#include "../init/init_op.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(ZerosLikeParam);

DispatchMode SameStorageType(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                             Span<StorageType> out) {
  if (in[0] == StorageType::kDefault) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFCompute;
  }
  if (!HasSparseKernel(attrs, device)) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFComputeFallback;
  }
  out[0] = in[0];
  return DispatchMode::kFComputeEx;
}

NDArray ContiguousAs(const NDArray& a, DLDataType dtype) {
  const DLTensor& t = a.tensor();
  if (SameDType(t.dtype, dtype)) return a.Contiguous();
  static const Op* cast = Op::Get("_cast");
  CastParam p;
  p.dtype = dtype;
  OpAttrs attrs;
  attrs.op = cast;
  attrs.param = &p;
  return Invoke(attrs, Span<const NDArray>(&a, 1));
}

NDArray IndexAs64(const NDArray& a) {
  const DLTensor& t = a.tensor();
  if (t.dtype.bits == 64) return a;
  NDArray out = NDArray::Empty(t.shape, t.ndim, kIndex64, t.device);
  const int32_t* src = Ptr<int32_t>(a);
  int64_t* dst = Ptr<int64_t>(out);
  const int64_t n = t.ndim == 0 ? 1 : t.shape[0];
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
  return out;
}

NDArray DenseKernelOn(const OpAttrs& attrs, const OpContext& ctx, const NDArray& in,
                      DLDataType dtype) {
  const FCompute* dense = attrs.op->call_attrs().compute[0];
  MXFFI_CHECK(dense != nullptr, NotImplementedError)
      << attrs.op->name << ": has no dense kernel to run on the stored values";
  const DLTensor& t = in.tensor();
  NDArray out = NDArray::Empty(t.shape, t.ndim, dtype, t.device);
  DLTensor in_blob = t, out_blob = out.tensor();
  const OpReqType req = OpReqType::kWriteTo;
  (*dense)(attrs, ctx, Span<const DLTensor>(&in_blob, 1), Span<const OpReqType>(&req, 1),
           Span<const DLTensor>(&out_blob, 1));
  return out;
}

void SetSameStructure(const NDArray& out, const NDArray& in, NDArray values) {
  out.SetSparseStorage(std::move(values), in.sparse_indices(),
                       in.stype() == StorageType::kCSR ? in.sparse_indptr() : NDArray());
}

namespace {

/*! \brief A zero-preserving op on a sparse array: the dense kernel on its stored values. */
void ValuesCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                   Span<const OpReqType>, Span<const NDArray> out) {
  const NDArray& x = in[0];
  SetSameStructure(out[0], x, DenseKernelOn(attrs, ctx, x.sparse_data(), out[0].tensor().dtype));
}

/*!
 * \brief x * s and x / s keep x's storage type when they map 0 to 0: s finite for multiply,
 *  s neither 0 nor NaN for divide. Otherwise every element changes (0 * inf and 0 / 0 are NaN)
 *  and the op takes the fallback, whose dense result is numpy's.
 */
template <BinaryKind K>
DispatchMode ScalarStorageType(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                               Span<StorageType> out) {
  if (in[0] == StorageType::kDefault) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFCompute;
  }
  const ScalarValue& s = attrs.get<BinaryScalarParam>().scalar;
  const double v = s.kind == ScalarKind::kFloat ? s.f : static_cast<double>(s.i);
  const bool keeps_zero = K == BinaryKind::kMultiply ? std::isfinite(v) : v == v && v != 0.0;
  if (!keeps_zero || !HasSparseKernel(attrs, device)) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFComputeFallback;
  }
  out[0] = in[0];
  return DispatchMode::kFComputeEx;
}

void ZerosLikeType(const OpAttrs& attrs, Span<const DLDataType> in, Span<DLDataType> out) {
  const DTypeParam& d = attrs.get<ZerosLikeParam>().dtype;
  out[0] = d.is_none ? in[0] : d.dtype;
}

void ZerosLikeCompute(const OpAttrs&, const OpContext&, Span<const DLTensor>, Span<const OpReqType>,
                      Span<const DLTensor> out) {
  std::memset(DataPtr<void>(out[0]), 0,
              static_cast<size_t>(NumElements(out[0]) * DataTypeBytes(out[0].dtype)));
}

/*! \brief zeros_like of a sparse array: no stored values, the input's index dtype. */
void ZerosLikeSparse(const OpAttrs&, const OpContext&, Span<const NDArray> in,
                     Span<const OpReqType>, Span<const NDArray> out) {
  const DLDataType itype = in[0].sparse_indices().tensor().dtype;
  out[0].CheckAndAlloc(0, itype);
  if (out[0].stype() == StorageType::kCSR) {
    const NDArray& indptr = out[0].sparse_indptr();
    std::memset(indptr.data(), 0,
                static_cast<size_t>(indptr.tensor().shape[0] * DataTypeBytes(itype)));
  }
}

}  // namespace

#define MXFFI_SPARSE_KEEPS_STORAGE(OpName)                               \
  MXFFI_EXTEND_OP(OpName)                                                \
      .set_attr<FInferStorageType>("FInferStorageType", SameStorageType) \
      .set_attr<FComputeEx>("FComputeEx<cpu>", ValuesCompute)

MXFFI_SPARSE_KEEPS_STORAGE(_npi_negative);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_absolute);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_square);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_sqrt);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_sign);
MXFFI_SPARSE_KEEPS_STORAGE(relu);

MXFFI_EXTEND_OP(_npi_multiply_scalar)
    .set_attr<FInferStorageType>("FInferStorageType", ScalarStorageType<BinaryKind::kMultiply>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", ValuesCompute);
MXFFI_EXTEND_OP(_npi_true_divide_scalar)
    .set_attr<FInferStorageType>("FInferStorageType", ScalarStorageType<BinaryKind::kDivide>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", ValuesCompute);

MXFFI_REGISTER_OP(zeros_like)
    .describe(
        "An array of zeros with x's shape (and dtype, unless dtype is given) and x's storage "
        "type: a sparse x gives a sparse array with no stored values.")
    .add_argument("x", "NDArray", "the input")
    .set_param<ZerosLikeParam>()
    .set_attr<FInferShape>("FInferShape", UnaryShape)
    .set_attr<FInferType>("FInferType", ZerosLikeType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FInferStorageType>("FInferStorageType", SameStorageType)
    .set_attr<FCompute>("FCompute<cpu>", ZerosLikeCompute)
    .set_attr<FComputeEx>("FComputeEx<cpu>", ZerosLikeSparse);

}  // namespace op
}  // namespace mxffi
