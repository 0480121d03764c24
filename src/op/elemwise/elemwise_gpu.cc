/*!
 * \file elemwise_gpu.cc
 * \brief FCompute<gpu> of the elementwise ops (src/op/elemwise): `_npi_<op>`,
 *  `_npi_<op>_scalar` and `_npi_r<op>_scalar` of the ops of binary_ops.def; the unary ops of
 *  unary_ops.def; quadratic.
 *
 * Each lays out the loop as the CPU kernel does (StridedLoop: broadcast strides, merged
 * dimensions), converts a Python number once on the host to the loop's dtype exactly as the
 * CPU's ScalarTensor does (a comparison: to its loop dtype, CompareLoopType and
 * CompareScalarLoopType as on the CPU), and launches the kernels of the op's functor (functors.h,
 * elemwise_binary.cu, elemwise_unary.cu) on the op's stream. An integer power with a signed
 * integer exponent array checks the exponents on the device first and raises the CPU's
 * ValueError before anything is written.
 */
#include <mxffi/op/op.h>

#include <cstring>

#include "../dtype.h"
#include "broadcast.h"
#include "elemwise.h"
#include "elemwise_cuda.h"
#include "functors.h"
#include "quadratic_op.h"

namespace mxffi {
namespace op {
namespace {

using elemwise::StridedLoop;

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
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(dtype, fname, T, {
    const T v =
        s.kind == ScalarKind::kFloat ? ConvertOne<T, double>(s.f) : ConvertOne<T, int64_t>(s.i);
    static_assert(sizeof(T) <= sizeof(x.scalar_bits));
    std::memcpy(x.scalar_bits, &v, sizeof(T));
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
  const StridedLoop<2> loop(shape_only, ins);
  const int64_t one = 1;
  NDArray flag = NDArray::Empty(&one, 1, DLDataType{kDLInt, 32, 1}, ctx.device);
  const bool negative =
      cuda::AnyNegative(ArrayInput(exp), loop, n, DataPtr<int>(flag.tensor()), fname, ctx.stream);
  MXFFI_CHECK(!negative, ValueError)
      << fname << ": Integers to negative integer powers are not allowed.";
}

/*!
 * \brief out = OP(a, b) broadcast; ta and tb are the inputs' tensors (a 0-d stand-in for a
 *  number), a and b what the kernel reads; cmp is a comparison's loop (ignored otherwise).
 */
template <typename OP>
void RunBinaryGpu(BinaryKind kind, const OpContext& ctx, const DLTensor& ta,
                  const cuda::ElemInput& a, const DLTensor& tb, const cuda::ElemInput& b,
                  const DLTensor& out, const CompareLoop& cmp) {
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
  const StridedLoop<3> loop(out, ins);
  const bool predicate = elemwise::kIsPredicate<OP>;
  cuda::BinaryElemwise<OP>(a, b, loop, out, predicate ? cmp.dtype : out.dtype,
                           predicate ? cmp.mixed : 0, fname, ctx.stream);
}

template <BinaryKind K, typename OP>
struct BinaryGpu {
  static void Compute(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in,
                      Span<const OpReqType>, Span<const DLTensor> out) {
    CompareLoop cmp;
    if constexpr (elemwise::kIsPredicate<OP>) cmp = CompareLoopType(K, in[0].dtype, in[1].dtype);
    RunBinaryGpu<OP>(K, ctx, in[0], ArrayInput(in[0]), in[1], ArrayInput(in[1]), out[0], cmp);
  }
  /*! \brief array op number (kReverse: number op array). */
  template <bool kReverse>
  static void ScalarCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                            Span<const OpReqType>, Span<const DLTensor> out) {
    const ScalarValue& v = attrs.get<BinaryScalarParam>().scalar;
    CompareLoop cmp;
    DLDataType sdtype = out[0].dtype;
    if constexpr (elemwise::kIsPredicate<OP>) {
      cmp = CompareScalarLoopType(K, in[0].dtype, v, kReverse);
      sdtype = cmp.dtype;  // int64 in a mixed loop: the number is the signed side
    }
    const cuda::ElemInput s = ScalarInput(v, sdtype, BinaryName(K));
    const DLTensor ts = ScalarShape(sdtype);
    if constexpr (kReverse) {
      RunBinaryGpu<OP>(K, ctx, ts, s, in[0], ArrayInput(in[0]), out[0], cmp);
    } else {
      RunBinaryGpu<OP>(K, ctx, in[0], ArrayInput(in[0]), ts, s, out[0], cmp);
    }
  }
};

template <typename F>
void RunUnaryGpu(const F& f, const OpContext& ctx, const DLTensor& x, const DLTensor& out,
                 const char* fname) {
  if (NumElements(out) == 0) return;
  const DLTensor* ins[1] = {&x};
  const StridedLoop<2> loop(out, ins);
  cuda::UnaryElemwise(f, ArrayInput(x), loop, out, fname, ctx.stream);
}

template <UnaryKind K, typename F>
void UnaryGpu(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in, Span<const OpReqType>,
              Span<const DLTensor> out) {
  RunUnaryGpu(F{}, ctx, in[0], out[0], UnaryName(K));
}

void QuadraticGpu(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                  Span<const OpReqType>, Span<const DLTensor> out) {
  const QuadraticParam& p = attrs.get<QuadraticParam>();
  RunUnaryGpu(elemwise::QuadraticOp{p.a, p.b, p.c}, ctx, in[0], out[0], "quadratic");
}

}  // namespace

#define MXFFI_GPU_RSCALAR_Sym(Stem, Kind, Functor)
#define MXFFI_GPU_RSCALAR_Asym(Stem, Kind, Functor) \
  MXFFI_EXTEND_OP(_npi_r##Stem##_scalar)            \
      .set_attr<FCompute>("FCompute<gpu>", BinaryGpu<Kind, Functor>::ScalarCompute<true>);
#define MXFFI_BINARY_OP(Kind, Stem, Name, Functor, Side, Group, Doc)                   \
  MXFFI_EXTEND_OP(_npi_##Stem)                                                         \
      .set_attr<FCompute>("FCompute<gpu>",                                             \
                          BinaryGpu<BinaryKind::k##Kind, elemwise::Functor>::Compute); \
  MXFFI_EXTEND_OP(_npi_##Stem##_scalar)                                                \
      .set_attr<FCompute>(                                                             \
          "FCompute<gpu>",                                                             \
          BinaryGpu<BinaryKind::k##Kind, elemwise::Functor>::ScalarCompute<false>);    \
  MXFFI_GPU_RSCALAR_##Side(Stem, BinaryKind::k##Kind, elemwise::Functor)
#include "binary_ops.def"

#define MXFFI_UNARY_OP(Kind, OpName, Name, Functor, Doc)      \
  MXFFI_EXTEND_OP(OpName).set_attr<FCompute>("FCompute<gpu>", \
                                             UnaryGpu<UnaryKind::k##Kind, elemwise::Functor>);
#include "unary_ops.def"

MXFFI_EXTEND_OP(quadratic).set_attr<FCompute>("FCompute<gpu>", QuadraticGpu);

}  // namespace op
}  // namespace mxffi
