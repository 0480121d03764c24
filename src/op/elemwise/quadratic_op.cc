/*!
 * \file quadratic_op.cc
 * \brief The `quadratic` op: a*x**2 + b*x + c, elementwise.
 */
#include "quadratic_op.h"

#include "../infer.h"
#include "../promote.h"
#include "broadcast.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(QuadraticParam);

void QuadraticType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
  MXFFI_CHECK(DTypeIndex(in[0]) >= 0, TypeError)
      << "quadratic: unsupported dtype " << DataTypeToString(in[0]);
  out[0] = IsFloating(in[0]) ? in[0] : DLDataType{kDLFloat, 64, 1};
}

void QuadraticCompute(const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
                      Span<const OpReqType>, Span<const DLTensor> out) {
  const QuadraticParam& p = attrs.get<QuadraticParam>();
  const int64_t n = NumElements(out[0]);
  if (n == 0) return;
  const DLTensor* ins[1] = {&in[0]};
  const elemwise::StridedLoop<2> loop(out[0], ins);
  const int64_t sx = loop.stride[1][loop.ndim - 1];
  MXFFI_TYPE_SWITCH(out[0].dtype, "quadratic", T, {
    if constexpr (std::is_integral_v<T>) {
      MXFFI_THROW(TypeError) << "quadratic: no kernel computes in "
                             << DataTypeToString(out[0].dtype);
    } else {
      using A = typename AccType<T>::type;
      const A a = static_cast<A>(p.a), b = static_cast<A>(p.b), c = static_cast<A>(p.c);
      const elemwise::Operand<T> ox(in[0], "quadratic");
      T* o = DataPtr<T>(out[0]);
      elemwise::RunParallel(n, 3, [&](int64_t begin, int64_t end) {
        loop.ForEachRun(begin, end, [&](const int64_t* off, int64_t len) {
          elemwise::UnaryRunAs<T>(ox, off[1], sx, o + off[0], len,
                                  [&](const T* x, int64_t s, T* y, int64_t m) {
                                    for (int64_t i = 0; i < m; ++i) {
                                      const A v = A(x[i * s]);
                                      y[i] = T(a * v * v + b * v + c);
                                    }
                                  });
        });
      });
    }
  });
}

MXFFI_REGISTER_OP(quadratic)
    .describe(
        "a*x**2 + b*x + c, elementwise. A float input keeps its dtype (float16 and bfloat16 "
        "compute in float32 and round once); an integer or bool input gives float64.")
    .add_argument("x", "NDArray", "the input")
    .set_param<QuadraticParam>()
    .set_attr<FInferShape>("FInferShape", UnaryShape)
    .set_attr<FInferType>("FInferType", QuadraticType)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<bool>("TWriteInplace", true)
    .set_attr<FCompute>("FCompute<cpu>", QuadraticCompute);

}  // namespace op
}  // namespace mxffi
