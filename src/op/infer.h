/*!
 * \file infer.h
 * \brief Inference functions many ops share.
 */
#ifndef MXFFI_SRC_OP_INFER_H_
#define MXFFI_SRC_OP_INFER_H_

#include <mxffi/op/op.h>

namespace mxffi {
namespace op {

/*! \brief One output shaped like input 0. */
inline void UnaryShape(const OpAttrs&, Span<const TShape> in, Span<TShape> out) { out[0] = in[0]; }
/*! \brief One output of input 0's dtype. */
inline void UnaryType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
  out[0] = in[0];
}

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_INFER_H_
