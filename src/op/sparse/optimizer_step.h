/*!
 * \file optimizer_step.h
 * \brief One step of sgd_update, adam_update, sgd_mom_update, ftrl_update and adagrad_update
 *  on one value, written once for both devices:
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
 * \brief What every step shares: lr, wd and the gradient's rescaling and clipping, in the
 *  arrays' dtype T, from any P with MXNet's field names (a dmlc::Parameter or a cuda::*Hyper).
 */
template <typename T>
struct GradientRule {
  T lr, wd, rescale, clip;
  bool clip_on;
  template <typename P>
  explicit GradientRule(const P& p)
      : lr(static_cast<T>(p.lr)),
        wd(static_cast<T>(p.wd)),
        rescale(static_cast<T>(p.rescale_grad)),
        clip(static_cast<T>(p.clip_gradient)),
        clip_on(p.clip_gradient >= 0) {}
  /*! \return clip(rescale_grad * g); 0 for a missing gradient (has_g false). */
  MXFFI_XINLINE T Rescaled(T g, bool has_g) const {
    return has_g ? ClipGradient(elemwise::MulRn(rescale, g), clip, clip_on) : T(0);
  }
};

/*!
 * \brief sgd_update's step with its hyper-parameters in the arrays' dtype T:
 *  w - lr * (clip(rescale_grad * g) + wd * w). P is SGDParam or cuda::SGDHyper.
 */
template <typename T>
struct SGDStep : GradientRule<T> {
  template <typename P>
  explicit SGDStep(const P& p) : GradientRule<T>(p) {}
  /*! \return the new weight; has_g false means a zero gradient. */
  MXFFI_XINLINE T operator()(T w, T g, bool has_g) const {
    using elemwise::AddRn;
    using elemwise::MulRn;
    using elemwise::SubRn;
    const T gr = this->Rescaled(g, has_g);
    return SubRn(w, MulRn(this->lr, AddRn(gr, MulRn(this->wd, w))));
  }
};

/*!
 * \brief adam_update's step with its hyper-parameters in the arrays' dtype T (P is AdamParam
 *  or cuda::AdamHyper): gr = clip(rescale_grad * g + wd * w); m = beta1 * m + (1 - beta1) * gr;
 *  v = beta2 * v + (1 - beta2) * gr * gr; w -= lr * m / (sqrt(v) + epsilon).
 */
template <typename T>
struct AdamStep : GradientRule<T> {
  T beta1, beta2, epsilon;
  template <typename P>
  explicit AdamStep(const P& p)
      : GradientRule<T>(p),
        beta1(static_cast<T>(p.beta1)),
        beta2(static_cast<T>(p.beta2)),
        epsilon(static_cast<T>(p.epsilon)) {}
  /*! \brief w, m and v updated; has_g false means a zero gradient. */
  MXFFI_XINLINE void operator()(T& w, T g, bool has_g, T& m, T& v) const {
    using elemwise::AddRn;
    using elemwise::DivRn;
    using elemwise::MulRn;
    using elemwise::SqrtRn;
    using elemwise::SubRn;
    // Adam clips after adding the weight decay, unlike the other steps.
    const T gr = ClipGradient(AddRn(has_g ? MulRn(this->rescale, g) : T(0), MulRn(this->wd, w)),
                              this->clip, this->clip_on);
    const T mi = AddRn(MulRn(beta1, m), MulRn(SubRn(T(1), beta1), gr));
    const T vi = AddRn(MulRn(beta2, v), MulRn(MulRn(SubRn(T(1), beta2), gr), gr));
    m = mi;
    v = vi;
    w = SubRn(w, DivRn(MulRn(this->lr, mi), AddRn(SqrtRn(vi), epsilon)));
  }
};

/*!
 * \brief sgd_mom_update's step (P is SGDMomParam or cuda::SGDMomHyper), one state s[0] = mom:
 *  mom = momentum * mom - lr * (clip(rescale_grad * g) + wd * w); w += mom.
 */
template <typename T>
struct SGDMomStep : GradientRule<T> {
  static constexpr int kStates = 1;
  T momentum;
  template <typename P>
  explicit SGDMomStep(const P& p) : GradientRule<T>(p), momentum(static_cast<T>(p.momentum)) {}
  /*! \brief w and s[0] updated; has_g false means a zero gradient. */
  MXFFI_XINLINE void operator()(T& w, T g, bool has_g, T* s) const {
    using elemwise::AddRn;
    using elemwise::MulRn;
    using elemwise::SubRn;
    const T gr = this->Rescaled(g, has_g);
    s[0] = SubRn(MulRn(momentum, s[0]), MulRn(this->lr, AddRn(gr, MulRn(this->wd, w))));
    w = AddRn(w, s[0]);
  }
};

/*!
 * \brief ftrl_update's step (P is FtrlParam or cuda::FtrlHyper), states s[0] = z, s[1] = n:
 *  g' = clip(rescale_grad * g); z += g' - (sqrt(n + g'^2) - sqrt(n)) * w / lr; n += g'^2;
 *  w = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) where |z| > lamda1, else 0.
 */
template <typename T>
struct FtrlStep : GradientRule<T> {
  static constexpr int kStates = 2;
  T lamda1, beta;
  template <typename P>
  explicit FtrlStep(const P& p)
      : GradientRule<T>(p), lamda1(static_cast<T>(p.lamda1)), beta(static_cast<T>(p.beta)) {}
  MXFFI_XINLINE void operator()(T& w, T g, bool has_g, T* s) const {
    using elemwise::AddRn;
    using elemwise::DivRn;
    using elemwise::MulRn;
    using elemwise::SqrtRn;
    using elemwise::SubRn;
    const T lr = this->lr;
    const T gr = this->Rescaled(g, has_g);
    const T g2 = MulRn(gr, gr);
    const T n = s[1], n2 = AddRn(n, g2);
    const T z = AddRn(s[0], SubRn(gr, DivRn(MulRn(SubRn(SqrtRn(n2), SqrtRn(n)), w), lr)));
    s[0] = z;
    s[1] = n2;
    const T az = z < T(0) ? -z : z;
    if (az > lamda1) {
      const T sz = z < T(0) ? -lamda1 : lamda1;  // sign(z) * lamda1
      w = DivRn(SubRn(sz, z), AddRn(DivRn(AddRn(beta, SqrtRn(n2)), lr), this->wd));
    } else {
      w = T(0);
    }
  }
};

/*!
 * \brief adagrad_update's step (P is AdagradParam or cuda::AdagradHyper), one state s[0] =
 *  history: g' = clip(rescale_grad * g); history += g'^2;
 *  w -= lr * (g' / sqrt(history + epsilon) + wd * w).
 */
template <typename T>
struct AdagradStep : GradientRule<T> {
  static constexpr int kStates = 1;
  T epsilon;
  template <typename P>
  explicit AdagradStep(const P& p) : GradientRule<T>(p), epsilon(static_cast<T>(p.epsilon)) {}
  MXFFI_XINLINE void operator()(T& w, T g, bool has_g, T* s) const {
    using elemwise::AddRn;
    using elemwise::DivRn;
    using elemwise::MulRn;
    using elemwise::SqrtRn;
    using elemwise::SubRn;
    const T gr = this->Rescaled(g, has_g);
    const T h = AddRn(s[0], MulRn(gr, gr));
    s[0] = h;
    w = SubRn(w, MulRn(this->lr, AddRn(DivRn(gr, SqrtRn(AddRn(h, epsilon))), MulRn(this->wd, w))));
  }
};

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_OPTIMIZER_STEP_H_
