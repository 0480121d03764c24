/*!
 * \file optimizer_step.h
 * \brief One step of sgd_update and adam_update on one value, written once for both devices:
 *  g++ compiles it into the CPU kernels (optimizer_op.cc) and nvcc into the CUDA ones
 *  (optimizer.cu). The arithmetic is in the arrays' dtype (float32 or float64), each operation
 *  rounded on its own (the _rn forms of functors.h: no fused multiply-add on the device), so
 *  both devices give the same bits.
 */
#ifndef MXFFI_SRC_OP_SPARSE_OPTIMIZER_STEP_H_
#define MXFFI_SRC_OP_SPARSE_OPTIMIZER_STEP_H_

#include "../elemwise/functors.h"
#include "../xinline.h"

namespace mxffi {
namespace op {

/*! \return x limited to [-c, c] when on, as std::min(std::max(x, -c), c) computes it. */
template <typename T>
MXFFI_XINLINE T ClipGradient(T x, T c, bool on) {
  if (!on) return x;
  const T lo = x < -c ? -c : x;  // std::max(x, -c)
  return c < lo ? c : lo;        // std::min(lo, c)
}

/*!
 * \brief sgd_update's step with its hyper-parameters in the arrays' dtype T:
 *  w - lr * (clip(rescale_grad * g) + wd * w). P is SGDParam or cuda::SGDHyper.
 */
template <typename T>
struct SGDStep {
  T lr, wd, rescale, clip;
  bool clip_on;
  template <typename P>
  explicit SGDStep(const P& p)
      : lr(static_cast<T>(p.lr)),
        wd(static_cast<T>(p.wd)),
        rescale(static_cast<T>(p.rescale_grad)),
        clip(static_cast<T>(p.clip_gradient)),
        clip_on(p.clip_gradient >= 0) {}
  /*! \return the new weight; has_g false means a zero gradient. */
  MXFFI_XINLINE T operator()(T w, T g, bool has_g) const {
    using elemwise::AddRn;
    using elemwise::MulRn;
    using elemwise::SubRn;
    const T gr = has_g ? ClipGradient(MulRn(rescale, g), clip, clip_on) : T(0);
    return SubRn(w, MulRn(lr, AddRn(gr, MulRn(wd, w))));
  }
};

/*!
 * \brief adam_update's step with its hyper-parameters in the arrays' dtype T (P is AdamParam
 *  or cuda::AdamHyper): gr = clip(rescale_grad * g + wd * w); m = beta1 * m + (1 - beta1) * gr;
 *  v = beta2 * v + (1 - beta2) * gr * gr; w -= lr * m / (sqrt(v) + epsilon).
 */
template <typename T>
struct AdamStep {
  T lr, beta1, beta2, epsilon, wd, rescale, clip;
  bool clip_on;
  template <typename P>
  explicit AdamStep(const P& p)
      : lr(static_cast<T>(p.lr)),
        beta1(static_cast<T>(p.beta1)),
        beta2(static_cast<T>(p.beta2)),
        epsilon(static_cast<T>(p.epsilon)),
        wd(static_cast<T>(p.wd)),
        rescale(static_cast<T>(p.rescale_grad)),
        clip(static_cast<T>(p.clip_gradient)),
        clip_on(p.clip_gradient >= 0) {}
  /*! \brief w, m and v updated; has_g false means a zero gradient. */
  MXFFI_XINLINE void operator()(T& w, T g, bool has_g, T& m, T& v) const {
    using elemwise::AddRn;
    using elemwise::DivRn;
    using elemwise::MulRn;
    using elemwise::SqrtRn;
    using elemwise::SubRn;
    const T gr = ClipGradient(AddRn(has_g ? MulRn(rescale, g) : T(0), MulRn(wd, w)), clip, clip_on);
    const T mi = AddRn(MulRn(beta1, m), MulRn(SubRn(T(1), beta1), gr));
    const T vi = AddRn(MulRn(beta2, v), MulRn(MulRn(SubRn(T(1), beta2), gr), gr));
    m = mi;
    v = vi;
    w = SubRn(w, DivRn(MulRn(lr, mi), AddRn(SqrtRn(vi), epsilon)));
  }
};

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_OPTIMIZER_STEP_H_
