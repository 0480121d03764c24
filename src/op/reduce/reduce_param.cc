/*!
 * \file reduce_param.cc
 * \brief ReduceParam's and VarParam's dmlc registrations, alone in their file: dmlc::optional swaps
 * its raw storage, empty or not, and GCC reports that as a read of an uninitialised value once it
 *  inlines the string parser; the bytes of an empty optional are never used.
 */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include "reduce_op.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(ReduceParam);
DMLC_REGISTER_PARAMETER(VarParam);

}  // namespace op
}  // namespace mxffi
