/*!
 * \file binary_int_op.cc
 * \brief floor_divide, remainder, bitwise_and/or/xor, left_shift and right_shift (Group Int of
 *  binary_ops.def) with numpy broadcasting: `_npi_<op>`, `_npi_<op>_scalar` and, for the
 *  asymmetric ones, `_npi_r<op>_scalar`; the kernels are binary_op.h's.
 */
#include "binary_op.h"

namespace mxffi {
namespace op {

#define MXFFI_BINARY_GROUP_Int MXFFI_ELEMWISE_BINARY
#define MXFFI_BINARY_GROUP_Arith(...)
#define MXFFI_BINARY_GROUP_Bool(...)
#include "binary_ops.def"

}  // namespace op
}  // namespace mxffi
