/*!
 * \file api_util.cc
 * \brief Helpers shared by the API functions.
 */
#include "api_util.h"

namespace mxffi {
namespace api {

int NormalizeAxis(int64_t axis, int ndim, const char* fname) {
  if (axis < -ndim || axis >= ndim) {
    MXFFI_THROW(AxisError) << fname << ": axis " << axis
                           << " is out of bounds for array of dimension " << ndim;
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

}  // namespace api
}  // namespace mxffi
