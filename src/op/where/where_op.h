/*!
 * \file where_op.h
 * \brief _npi_where (np.where of three arguments): out = x where condition is nonzero, else y,
 *  the three broadcast together. x and y have one dtype (the caller promotes them); the
 *  condition may have any dtype and is read as condition != 0 (NaN is true). Every input is
 *  read through its strides (0 along broadcast dimensions).
 */
#ifndef MXFFI_SRC_OP_WHERE_WHERE_OP_H_
#define MXFFI_SRC_OP_WHERE_WHERE_OP_H_

#include <mxffi/op/op.h>

#include "../xpu.h"

namespace mxffi {
namespace op {

/*!
 * \brief out (C-contiguous, the broadcast shape, x's dtype) = x where c != 0, else y; c, x and
 *  y broadcast to out's shape, any strides. The CPU reads a condition of any dtype; the GPU
 *  kernel reads a bool one (WhereCompute<gpu> casts another first).
 */
void Where(cpu, const OpContext& ctx, const DLTensor& c, const DLTensor& x, const DLTensor& y,
           const DLTensor& out);
void Where(gpu, const OpContext& ctx, const DLTensor& c, const DLTensor& x, const DLTensor& y,
           const DLTensor& out);

/*! \brief FCompute<xpu> of _npi_where. */
template <typename xpu>
void WhereCompute(const OpAttrs&, const OpContext& ctx, Span<const DLTensor> in,
                  Span<const OpReqType>, Span<const DLTensor> out) {
  Where(xpu{}, ctx, in[0], in[1], in[2], out[0]);
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_WHERE_WHERE_OP_H_
