/*!
 * \file np_math.cc
 * \brief np.* elementwise functions of the array API standard beyond np_elemwise.cc's: the
 *  predicates isnan, isinf, isfinite and signbit (bool arrays computed in the input's dtype).
 *
 * Each takes an array or a Python number, out= and dtype= as numpy's ufuncs do (np_ufunc.h);
 * a predicate's only loops give bool, so its dtype= is bool or None.
 */
#include <mxffi/registry.h>

#include "../op/elemwise/elemwise.h"
#include "api_util.h"
#include "np_ufunc.h"

namespace mxffi {
namespace api {

using op::UnaryKind;

MXFFI_NP_UNARY("isnan", UnaryKind::kIsNan, "_npi_isnan",
               "Whether x is NaN, elementwise, as bools (all False for integers and bools).");
MXFFI_NP_UNARY("isinf", UnaryKind::kIsInf, "_npi_isinf",
               "Whether x is +inf or -inf, elementwise, as bools (all False for integers and "
               "bools).");
MXFFI_NP_UNARY("isfinite", UnaryKind::kIsFinite, "_npi_isfinite",
               "Whether x is neither NaN nor infinite, elementwise, as bools (all True for "
               "integers and bools).");
MXFFI_NP_UNARY("signbit", UnaryKind::kSignbit, "_npi_signbit",
               "Whether the sign bit of x is set (-0.0 and -nan included), elementwise, as bools "
               "(x < 0 for integers).");

}  // namespace api
}  // namespace mxffi
