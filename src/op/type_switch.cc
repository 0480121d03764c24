/*!
 * \file type_switch.cc
 * \brief The errors of the dtype switches (type_switch.h), out of line so that each of the many
 *  switch instantiations carries a call, not a message builder.
 */
#include "type_switch.h"

#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>

namespace mxffi {
namespace op {

void ThrowUnsupportedDType(const char* fname, DLDataType dtype) {
  MXFFI_THROW(TypeError) << fname << ": unsupported dtype " << DataTypeToString(dtype);
}

void ThrowNoKernel(const char* fname, DLDataType dtype) {
  MXFFI_THROW(TypeError) << fname << ": no kernel computes in " << DataTypeToString(dtype);
}

void ThrowNotRealDType(const char* fname, DLDataType dtype) {
  MXFFI_THROW(TypeError) << fname << ": sparse kernels take float32 or float64, got "
                         << DataTypeToString(dtype);
}

}  // namespace op
}  // namespace mxffi
