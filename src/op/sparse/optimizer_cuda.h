/*!
 * \file optimizer_cuda.h
 * \brief Launchers of the GPU kernels of sgd_update, adam_update, sgd_mom_update, ftrl_update
 *  and adagrad_update (src/op/sparse/optimizer_op.cc): the dense step and the step on the rows of a
 * row_sparse gradient.
 *
 * The arithmetic is the CPU kernels', operation for operation in the arrays' dtype (float32 or
 * float64), each rounded on its own (no fused multiply-add), so the results match the CPU's.
 * Every array is C-contiguous on one CUDA device; the kernels are enqueued on `stream`.
 */
#ifndef MXFFI_SRC_OP_SPARSE_OPTIMIZER_CUDA_H_
#define MXFFI_SRC_OP_SPARSE_OPTIMIZER_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstdint>

namespace mxffi {
namespace cuda {

/*! \brief sgd_update's hyper-parameters (SGDParam's, clip_gradient < 0 meaning no clipping). */
struct SGDHyper {
  double lr, wd, rescale_grad, clip_gradient;
};

/*! \brief adam_update's hyper-parameters (AdamParam's). */
struct AdamHyper {
  double lr, beta1, beta2, epsilon, wd, rescale_grad, clip_gradient;
};

/*!
 * \brief w_out = w - lr * (clip(rescale_grad * g) + wd * w), elementwise; w_out may be w.
 */
void SGDDense(const SGDHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor& w_out,
              void* stream);

/*!
 * \brief The SGD step in place on w (dense, rows of width values) for a row_sparse gradient:
 *  the rows g_indices stores when lazy, else every row (the absent ones with a zero gradient).
 */
void SGDRows(const SGDHyper& p, bool lazy, const DLTensor& w, const DLTensor& g_data,
             const DLTensor& g_indices, void* stream);

/*!
 * \brief One Adam step, elementwise: g' = clip(rescale_grad * g + wd * w); m = beta1 * m +
 *  (1 - beta1) * g'; v = beta2 * v + (1 - beta2) * g' * g'; w -= lr * m / (sqrt(v) + epsilon).
 *  The outputs may be the inputs.
 */
void AdamDense(const AdamHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor& m,
               const DLTensor& v, const DLTensor& w_out, const DLTensor& m_out,
               const DLTensor& v_out, void* stream);

/*! \brief The Adam step in place on w, m and v for a row_sparse gradient (as SGDRows). */
void AdamRows(const AdamHyper& p, bool lazy, const DLTensor& w, const DLTensor& m,
              const DLTensor& v, const DLTensor& g_data, const DLTensor& g_indices, void* stream);

/*! \brief sgd_mom_update's hyper-parameters (SGDMomParam's). */
struct SGDMomHyper {
  double lr, momentum, wd, rescale_grad, clip_gradient;
};

/*! \brief ftrl_update's hyper-parameters (FtrlParam's). */
struct FtrlHyper {
  double lr, lamda1, beta, wd, rescale_grad, clip_gradient;
};

/*! \brief adagrad_update's hyper-parameters (AdagradParam's). */
struct AdagradHyper {
  double lr, epsilon, wd, rescale_grad, clip_gradient;
};

/*!
 * \brief One step of an optimizer with state arrays (optimizer_step.h's SGDMomStep, FtrlStep,
 *  AdagradStep), elementwise: s and s_out hold its 1 or 2 states (mom; z, n; history). The
 *  outputs may be the inputs.
 */
void SGDMomDense(const SGDMomHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor* s,
                 const DLTensor& w_out, const DLTensor* s_out, void* stream);
void FtrlDense(const FtrlHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor* s,
               const DLTensor& w_out, const DLTensor* s_out, void* stream);
void AdagradDense(const AdagradHyper& p, const DLTensor& w, const DLTensor& g, const DLTensor* s,
                  const DLTensor& w_out, const DLTensor* s_out, void* stream);

/*! \brief Those steps in place on w and the states s for a row_sparse gradient (as SGDRows). */
void SGDMomRows(const SGDMomHyper& p, bool lazy, const DLTensor& w, const DLTensor* s,
                const DLTensor& g_data, const DLTensor& g_indices, void* stream);
void FtrlRows(const FtrlHyper& p, bool lazy, const DLTensor& w, const DLTensor* s,
              const DLTensor& g_data, const DLTensor& g_indices, void* stream);
void AdagradRows(const AdagradHyper& p, bool lazy, const DLTensor& w, const DLTensor* s,
                 const DLTensor& g_data, const DLTensor& g_indices, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_OPTIMIZER_CUDA_H_
