/*!
 * \file compare_op.cc
 * \brief The comparisons (equal, not_equal, less, less_equal, greater, greater_equal) and
 *  logical_and/or/xor (Group Bool of binary_ops.def): bool results, with numpy broadcasting,
 *  `_npi_<op>`, `_npi_<op>_scalar` and, for the asymmetric ones, `_npi_r<op>_scalar`; the
 *  kernels are binary_op.h's.
 */
#include "binary_op.h"

namespace mxffi {
namespace op {

#define MXFFI_BINARY_GROUP_Bool MXFFI_ELEMWISE_BINARY
#define MXFFI_BINARY_GROUP_Arith(...)
#define MXFFI_BINARY_GROUP_Int(...)
#include "binary_ops.def"

}  // namespace op
}  // namespace mxffi
