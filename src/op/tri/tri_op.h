/*!
 * \file tri_op.h
 * \brief _npi_tril and _npi_triu: a stack of matrices (the last two axes) with the elements
 *  above (tril) or below (triu) the k-th diagonal set to zero, for every dtype (the elements
 *  move as bits). The input is read through its strides.
 */
#ifndef MXFFI_SRC_OP_TRI_TRI_OP_H_
#define MXFFI_SRC_OP_TRI_TRI_OP_H_

#include <mxffi/op/param.h>

#include "../xpu.h"
#include "tri_functors.h"

namespace mxffi {
namespace op {

/*! \brief _npi_tril, _npi_triu: the diagonal that bounds the kept triangle. */
struct TriParam : public dmlc::Parameter<TriParam> {
  int64_t k;
  DMLC_DECLARE_PARAMETER(TriParam) {
    DMLC_DECLARE_FIELD(k).set_default(0).describe(
        "The diagonal: 0 the main one, positive above it, negative below.");
  }
};

/*!
 * \brief out (C-contiguous, x's shape and dtype) = x where mask keeps the element, else zero;
 *  x any strides.
 */
void Tri(cpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, tri::TriMask mask,
         const char* fname);
void Tri(gpu, const OpContext& ctx, const DLTensor& x, const DLTensor& out, tri::TriMask mask,
         const char* fname);

/*! \return the mask of x's stack of matrices for k (lower: tril). */
inline tri::TriMask MaskOf(const DLTensor& x, int64_t k, bool lower) {
  tri::TriMask m;
  m.rows = x.shape[x.ndim - 2];
  m.cols = x.shape[x.ndim - 1];
  m.k = k;
  m.lower = lower;
  return m;
}

/*! \brief _npi_tril (kLower) and _npi_triu. */
template <typename xpu, bool kLower>
void TriCompute(const OpAttrs& attrs, const OpContext& ctx, Span<const DLTensor> in,
                Span<const OpReqType>, Span<const DLTensor> out) {
  Tri(xpu{}, ctx, in[0], out[0], MaskOf(in[0], attrs.get<TriParam>().k, kLower),
      kLower ? "np.tril" : "np.triu");
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_TRI_TRI_OP_H_
