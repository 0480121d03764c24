/*!
 * \file elemwise_sparse.cc
 * \brief Storage-aware kernels of the zero-preserving unary ops (negative, absolute, square,
 *  sqrt, sign, relu, sin, tan, arcsin, arctan, sinh, tanh, arcsinh, arctanh, degrees, radians,
 *  round, rint, fix, floor, ceil, trunc, cbrt, log1p, expm1: MXNet's list), of comparing
 *  with a number, maximum and minimum with a number (so np.clip) where 0 stays 0, of multiplying
 * and dividing by a number, and the zeros_like op.
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
#include "cast_storage.h"

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

/*! \brief x op s of a comparison or of maximum/minimum, the array on the left. */
enum class ScalarMap {
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kMax,
  kMin,
  kPower,  // x ** s
  kAddSub  // x + s, x - s
};

/*!
 * \brief The smallest float magnitude sure to stay non-zero in every float dtype a Python
 *  number may be cast to (NEP 50 casts it to the array's: float16's smallest subnormal, 2**-24);
 *  a smaller one may become 0, after which 0 >= s, 0 <= s and 0 == s hold.
 */
constexpr double kSureNonZero = 5.9604644775390625e-08;

/*!
 * \return whether the op maps 0 to 0 (false for a comparison) whatever dtype s is cast to:
 *  then x op s keeps x's storage type (MXNet's rule for the comparisons; clip's for
 *  maximum and minimum, numpy's clip being minimum(maximum(x, lo), hi)). Doubtful cases (s
 *  near enough to 0 to round to it, -0.0 for maximum/minimum, NaN where it propagates) say
 *  no: the fallback then gives numpy's dense answer.
 */
bool ZeroStaysZero(ScalarMap m, const ScalarValue& s) {
  const bool is_float = s.kind == ScalarKind::kFloat;
  const double v = is_float ? s.f : static_cast<double>(s.i);
  if (is_float && v != v) {
    // NaN: every comparison but != is false; maximum, minimum, ** and +/- propagate it.
    return m == ScalarMap::kEqual || m == ScalarMap::kLess || m == ScalarMap::kLessEqual ||
           m == ScalarMap::kGreater || m == ScalarMap::kGreaterEqual;
  }
  const bool sure_positive = is_float ? v >= kSureNonZero : s.i > 0;
  const bool sure_negative = is_float ? v <= -kSureNonZero : s.i < 0;
  switch (m) {
    case ScalarMap::kEqual:
      return sure_positive || sure_negative;
    case ScalarMap::kNotEqual:
      return v == 0.0;
    case ScalarMap::kLess:  // 0 < s false: s <= 0 (a cast keeps the sign)
      return v <= 0.0;
    case ScalarMap::kLessEqual:
      return sure_negative;
    case ScalarMap::kGreater:
      return v >= 0.0;
    case ScalarMap::kGreaterEqual:
      return sure_positive;
    case ScalarMap::kMax:  // maximum(0, s) is 0 for s < 0, and for s == +0
      return v < 0.0 || (v == 0.0 && !std::signbit(v));
    case ScalarMap::kMin:
      return v > 0.0 || (v == 0.0 && !std::signbit(v));
    case ScalarMap::kPower:  // 0 ** s is 0 for s > 0 (0 ** 0 is 1, 0 ** -1 inf)
      return sure_positive;
    case ScalarMap::kAddSub:  // 0 + s and 0 - s are (+)0 for s = +-0
      return v == 0.0;
  }
  return false;
}

/*!
 * \brief Storage inference of x op s (M) and of s op x (Reversed): x's storage type with the
 *  values kernel where ZeroStaysZero says so, the fallback's dense result otherwise.
 */
template <ScalarMap M, bool Reversed>
DispatchMode ScalarMapStorageType(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                                  Span<StorageType> out) {
  if (in[0] == StorageType::kDefault) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFCompute;
  }
  // s op x is x op' s with the order flipped (s < x is x > s); ==, !=, max and min commute.
  constexpr ScalarMap kAsLeft = !Reversed                       ? M
                                : M == ScalarMap::kLess         ? ScalarMap::kGreater
                                : M == ScalarMap::kLessEqual    ? ScalarMap::kGreaterEqual
                                : M == ScalarMap::kGreater      ? ScalarMap::kLess
                                : M == ScalarMap::kGreaterEqual ? ScalarMap::kLessEqual
                                                                : M;
  if (!ZeroStaysZero(kAsLeft, attrs.get<BinaryScalarParam>().scalar) ||
      !HasSparseKernel(attrs, device)) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFComputeFallback;
  }
  out[0] = in[0];
  return DispatchMode::kFComputeEx;
}

/*!
 * \brief x + s and x - s: x's storage type (the values kernel) for s = 0; otherwise every
 *  element becomes s (or -s) plus x's, so the result is dense, computed by AddSubDense without
 *  the fallback's warning (MXNet's dense-result kernel of _plus_scalar and _minus_scalar).
 */
template <bool Reversed>
DispatchMode AddSubStorageType(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                               Span<StorageType> out) {
  if (in[0] == StorageType::kDefault) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFCompute;
  }
  // 0 + s and 0 - s are +0 for s = +-0; s - 0 is s, +0 only for s = +0 (-0.0 - 0 is -0.0)
  const ScalarValue& s = attrs.get<BinaryScalarParam>().scalar;
  const bool keeps = ZeroStaysZero(ScalarMap::kAddSub, s) &&
                     !(Reversed && s.kind == ScalarKind::kFloat && std::signbit(s.f));
  if (!HasSparseKernel(attrs, device)) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFComputeFallback;
  }
  out[0] = keeps ? in[0] : StorageType::kDefault;
  return DispatchMode::kFComputeEx;
}

/*!
 * \brief x + s, x - s and s - x of a sparse x: the values kernel into a sparse output (s = 0),
 *  else the op's dense kernel on x made dense, into the dense output (strided ones through a
 *  temporary), with the dense op's dtype rules.
 */
void AddSubCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                   Span<const OpReqType> req, Span<const NDArray> out) {
  if (out[0].is_sparse()) {
    ValuesCompute(attrs, ctx, in, req, out);
    return;
  }
  const FCompute* dense = attrs.op->call_attrs().compute[0];
  MXFFI_CHECK(dense != nullptr, NotImplementedError) << attrs.op->name << ": has no dense kernel";
  const NDArray x = CastStorage(in[0], StorageType::kDefault, attrs.op->name.c_str(), kIndex64);
  DenseOutput target(out[0]);
  DLTensor in_blob = x.tensor(), out_blob = out[0].tensor();
  out_blob.data = target.data();
  out_blob.strides = nullptr;
  out_blob.byte_offset = 0;
  const OpReqType write = OpReqType::kWriteTo;
  (*dense)(attrs, ctx, Span<const DLTensor>(&in_blob, 1), Span<const OpReqType>(&write, 1),
           Span<const DLTensor>(&out_blob, 1));
  target.Finish();
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

// The unary ops MXNet keeps sparse: each maps 0 (and -0.0) to 0 in every dtype.
MXFFI_SPARSE_KEEPS_STORAGE(_npi_negative);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_absolute);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_square);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_sqrt);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_sign);
MXFFI_SPARSE_KEEPS_STORAGE(relu);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_sin);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_tan);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_arcsin);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_arctan);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_sinh);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_tanh);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_arcsinh);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_arctanh);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_degrees);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_radians);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_round);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_rint);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_fix);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_floor);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_ceil);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_trunc);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_cbrt);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_log1p);
MXFFI_SPARSE_KEEPS_STORAGE(_npi_expm1);

MXFFI_EXTEND_OP(_npi_multiply_scalar)
    .set_attr<FInferStorageType>("FInferStorageType", ScalarStorageType<BinaryKind::kMultiply>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", ValuesCompute);
MXFFI_EXTEND_OP(_npi_true_divide_scalar)
    .set_attr<FInferStorageType>("FInferStorageType", ScalarStorageType<BinaryKind::kDivide>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", ValuesCompute);

#define MXFFI_SPARSE_SCALAR_MAP(OpName, Map, Reversed)                                       \
  MXFFI_EXTEND_OP(OpName)                                                                    \
      .set_attr<FInferStorageType>("FInferStorageType", ScalarMapStorageType<Map, Reversed>) \
      .set_attr<FComputeEx>("FComputeEx<cpu>", ValuesCompute)

MXFFI_SPARSE_SCALAR_MAP(_npi_equal_scalar, ScalarMap::kEqual, false);
MXFFI_SPARSE_SCALAR_MAP(_npi_not_equal_scalar, ScalarMap::kNotEqual, false);
MXFFI_SPARSE_SCALAR_MAP(_npi_less_scalar, ScalarMap::kLess, false);
MXFFI_SPARSE_SCALAR_MAP(_npi_rless_scalar, ScalarMap::kLess, true);
MXFFI_SPARSE_SCALAR_MAP(_npi_less_equal_scalar, ScalarMap::kLessEqual, false);
MXFFI_SPARSE_SCALAR_MAP(_npi_rless_equal_scalar, ScalarMap::kLessEqual, true);
MXFFI_SPARSE_SCALAR_MAP(_npi_greater_scalar, ScalarMap::kGreater, false);
MXFFI_SPARSE_SCALAR_MAP(_npi_rgreater_scalar, ScalarMap::kGreater, true);
MXFFI_SPARSE_SCALAR_MAP(_npi_greater_equal_scalar, ScalarMap::kGreaterEqual, false);
MXFFI_SPARSE_SCALAR_MAP(_npi_rgreater_equal_scalar, ScalarMap::kGreaterEqual, true);
MXFFI_SPARSE_SCALAR_MAP(_npi_maximum_scalar, ScalarMap::kMax, false);
MXFFI_SPARSE_SCALAR_MAP(_npi_rmaximum_scalar, ScalarMap::kMax, true);
MXFFI_SPARSE_SCALAR_MAP(_npi_minimum_scalar, ScalarMap::kMin, false);
MXFFI_SPARSE_SCALAR_MAP(_npi_rminimum_scalar, ScalarMap::kMin, true);
MXFFI_SPARSE_SCALAR_MAP(_npi_power_scalar, ScalarMap::kPower, false);

MXFFI_EXTEND_OP(_npi_add_scalar)
    .set_attr<FInferStorageType>("FInferStorageType", AddSubStorageType<false>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", AddSubCompute);
MXFFI_EXTEND_OP(_npi_subtract_scalar)
    .set_attr<FInferStorageType>("FInferStorageType", AddSubStorageType<false>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", AddSubCompute);
MXFFI_EXTEND_OP(_npi_rsubtract_scalar)
    .set_attr<FInferStorageType>("FInferStorageType", AddSubStorageType<true>)
    .set_attr<FComputeEx>("FComputeEx<cpu>", AddSubCompute);

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
