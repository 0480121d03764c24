/*!
 * \file elemwise_gpu.cc
 * \brief FCompute<gpu> of the elementwise ops (src/op/elemwise): `_npi_<op>`,
 *  `_npi_<op>_scalar` and `_npi_r<op>_scalar` of add, subtract, multiply, true_divide, power,
 *  maximum, minimum; the unary `_npi_<op>` ops and relu; quadratic.
 *
 * Each lays out the loop as the CPU kernel does (StridedLoop: broadcast strides, merged
 * dimensions), converts a Python number once on the host to the loop's dtype exactly as the
 * CPU's ScalarTensor does, and launches kernels/elemwise.cu on the op's stream. An integer power
 * with a signed integer exponent array checks the exponents on the device first and raises the
 * CPU's ValueError before anything is written.
 */
#include <mxffi/op/op.h>

#include <cstring>

#include "../../op/dtype.h"
#include "../../op/elemwise/broadcast.h"
#include "../../op/elemwise/elemwise.h"
#include "../../op/elemwise/quadratic_op.h"
#include "../kernels/elemwise.h"

namespace mxffi {
namespace op {
namespace {

static_assert(static_cast<int>(BinaryKind::kMinimum) ==
                  static_cast<int>(cuda::BinaryOpCode::kMinimum),
              "cuda::BinaryOpCode follows op::BinaryKind");
static_assert(static_cast<int>(UnaryKind::kRelu) == static_cast<int>(cuda::UnaryOpCode::kRelu),
              "cuda::UnaryOpCode follows op::UnaryKind");

/*! \return a device array as a kernel input. */
cuda::ElemInput ArrayInput(const DLTensor& t) {
  cuda::ElemInput x;
  x.data = DataPtr<const char>(t);
  x.dtype = t.dtype;
  return x;
}

/*! \return the number s converted to dtype as the CPU's ScalarTensor converts it. */
cuda::ElemInput ScalarInput(const ScalarValue& s, DLDataType dtype, const char* fname) {
  cuda::ElemInput x;
  x.dtype = dtype;
  x.is_scalar = true;
  MXFFI_TYPE_SWITCH(dtype, fname, T, {
    const T v = s.kind == ScalarKind::kFloat ? elemwise::ConvertOne<T, double>(s.f)
                                             : elemwise::ConvertOne<T, int64_t>(s.i);
    std::memcpy(&x.scalar_bits, &v, sizeof(T));
  });
  return x;
}

/*! \return a 0-d host tensor standing for a number in the loop layout (stride 0 everywhere). */
DLTensor ScalarShape(DLDataType dtype) {
  DLTensor t{};
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 0;
  t.dtype = dtype;
  return t;
}

/*!
 * \brief The CPU's check that an integer power has no negative exponent, on the device array
 *  exp (read through its own strides); ValueError naming fname when it has one.
 */
void CheckExponents(const OpContext& ctx, const DLTensor& exp, const char* fname) {
  if (exp.dtype.code != kDLInt) return;
  const int64_t n = NumElements(exp);
  if (n == 0) return;
  DLTensor shape_only = exp;
  shape_only.strides = nullptr;
  const DLTensor* ins[1] = {&exp};
  const elemwise::StridedLoop<2> loop(shape_only, ins);
  const int64_t one = 1;
  NDArray flag = NDArray::Empty(&one, 1, DLDataType{kDLInt, 32, 1}, ctx.device);
  const bool negative = cuda::AnyNegative(ArrayInput(exp), cuda::LayoutOf<1>(loop), n,
                                          DataPtr<int>(flag.tensor()), fname, ctx.stream);
  MXFFI_CHECK(!negative, ValueError)
      << fname << ": Integers to negative integer powers are not allowed.";
}

/*!
 * \brief out = op(a, b) broadcast; ta and tb are the inputs' tensors (a 0-d stand-in for a
 *  number), a and b what the kernel reads.
 */
void RunBinaryGpu(BinaryKind kind, const OpContext& ctx, const DLTensor& ta,
                  const cuda::ElemInput& a, const DLTensor& tb, const cuda::ElemInput& b,
                  const DLTensor& out) {
  const char* fname = BinaryName(kind);
  if (NumElements(out) == 0) return;
  if (kind == BinaryKind::kPower && IsIntegral(out.dtype)) {
    if (b.is_scalar) {
      // The number was converted to out's dtype; it fits (ScalarResultType checked), so its
      // sign is the Python int's.
      int64_t v = 0;
      if (out.dtype.code == kDLInt) {
        MXFFI_TYPE_SWITCH(out.dtype, fname, T, {
          T t;
          std::memcpy(&t, &b.scalar_bits, sizeof(T));
          if constexpr (std::is_integral_v<T>) v = static_cast<int64_t>(t);
        });
      }
      MXFFI_CHECK(v >= 0, ValueError)
          << fname << ": Integers to negative integer powers are not allowed.";
    } else {
      CheckExponents(ctx, tb, fname);
    }
  }
  const DLTensor* ins[2] = {&ta, &tb};
  const elemwise::StridedLoop<3> loop(out, ins);
  cuda::BinaryElemwise(static_cast<cuda::BinaryOpCode>(kind), a, b, cuda::LayoutOf<2>(loop), out,
                       fname, ctx.stream);
}

template <BinaryKind K>
struct BinaryGpu {
  static void Compute(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in,
                      Span<const OpReqType>, Span<const DLTensor> out) {
    RunBinaryGpu(K, ctx, in[0], ArrayInput(in[0]), in[1], ArrayInput(in[1]), out[0]);
  }
  /*! \brief array op number (kReverse: number op array). */
  template <bool kReverse>
  static void ScalarCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                            Span<const OpReqType>, Span<const DLTensor> out) {
    const cuda::ElemInput s =
        ScalarInput(attrs.get<BinaryScalarParam>().scalar, out[0].dtype, BinaryName(K));
    const DLTensor ts = ScalarShape(out[0].dtype);
    if constexpr (kReverse) {
      RunBinaryGpu(K, ctx, ts, s, in[0], ArrayInput(in[0]), out[0]);
    } else {
      RunBinaryGpu(K, ctx, in[0], ArrayInput(in[0]), ts, s, out[0]);
    }
  }
};

void RunUnaryGpu(cuda::UnaryOpCode code, const OpContext& ctx, const DLTensor& x,
                 const DLTensor& out, const double* coef, const char* fname) {
  if (NumElements(out) == 0) return;
  const DLTensor* ins[1] = {&x};
  const elemwise::StridedLoop<2> loop(out, ins);
  cuda::UnaryElemwise(code, ArrayInput(x), cuda::LayoutOf<1>(loop), out, coef, fname, ctx.stream);
}

template <UnaryKind K>
void UnaryGpu(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in, Span<const OpReqType>,
              Span<const DLTensor> out) {
  RunUnaryGpu(static_cast<cuda::UnaryOpCode>(K), ctx, in[0], out[0], nullptr, UnaryName(K));
}

void QuadraticGpu(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                  Span<const OpReqType>, Span<const DLTensor> out) {
  const QuadraticParam& p = attrs.get<QuadraticParam>();
  const double coef[3] = {p.a, p.b, p.c};
  RunUnaryGpu(cuda::UnaryOpCode::kQuadratic, ctx, in[0], out[0], coef, "quadratic");
}

}  // namespace

#define MXFFI_GPU_BINARY(Name, Kind)                                                          \
  MXFFI_EXTEND_OP(_npi_##Name).set_attr<FCompute>("FCompute<gpu>", BinaryGpu<Kind>::Compute); \
  MXFFI_EXTEND_OP(_npi_##Name##_scalar)                                                       \
      .set_attr<FCompute>("FCompute<gpu>", BinaryGpu<Kind>::ScalarCompute<false>)
#define MXFFI_GPU_RSCALAR(Name, Kind)    \
  MXFFI_EXTEND_OP(_npi_r##Name##_scalar) \
      .set_attr<FCompute>("FCompute<gpu>", BinaryGpu<Kind>::ScalarCompute<true>)

MXFFI_GPU_BINARY(add, BinaryKind::kAdd);
MXFFI_GPU_BINARY(subtract, BinaryKind::kSubtract);
MXFFI_GPU_RSCALAR(subtract, BinaryKind::kSubtract);
MXFFI_GPU_BINARY(multiply, BinaryKind::kMultiply);
MXFFI_GPU_BINARY(true_divide, BinaryKind::kDivide);
MXFFI_GPU_RSCALAR(true_divide, BinaryKind::kDivide);
MXFFI_GPU_BINARY(power, BinaryKind::kPower);
MXFFI_GPU_RSCALAR(power, BinaryKind::kPower);
MXFFI_GPU_BINARY(maximum, BinaryKind::kMaximum);
MXFFI_GPU_RSCALAR(maximum, BinaryKind::kMaximum);
MXFFI_GPU_BINARY(minimum, BinaryKind::kMinimum);
MXFFI_GPU_RSCALAR(minimum, BinaryKind::kMinimum);

MXFFI_EXTEND_OP(_npi_negative).set_attr<FCompute>("FCompute<gpu>", UnaryGpu<UnaryKind::kNegative>);
MXFFI_EXTEND_OP(_npi_absolute).set_attr<FCompute>("FCompute<gpu>", UnaryGpu<UnaryKind::kAbsolute>);
MXFFI_EXTEND_OP(_npi_square).set_attr<FCompute>("FCompute<gpu>", UnaryGpu<UnaryKind::kSquare>);
MXFFI_EXTEND_OP(_npi_sqrt).set_attr<FCompute>("FCompute<gpu>", UnaryGpu<UnaryKind::kSqrt>);
MXFFI_EXTEND_OP(_npi_exp).set_attr<FCompute>("FCompute<gpu>", UnaryGpu<UnaryKind::kExp>);
MXFFI_EXTEND_OP(_npi_log).set_attr<FCompute>("FCompute<gpu>", UnaryGpu<UnaryKind::kLog>);
MXFFI_EXTEND_OP(_npi_sign).set_attr<FCompute>("FCompute<gpu>", UnaryGpu<UnaryKind::kSign>);
MXFFI_EXTEND_OP(relu).set_attr<FCompute>("FCompute<gpu>", UnaryGpu<UnaryKind::kRelu>);
MXFFI_EXTEND_OP(quadratic).set_attr<FCompute>("FCompute<gpu>", QuadraticGpu);

}  // namespace op
}  // namespace mxffi
