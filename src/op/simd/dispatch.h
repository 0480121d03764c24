/*!
 * \file dispatch.h
 * \brief How the plain functions of simd.h reach the per-target code: each resolves its
 *  Highway dispatch table once, to the entry of the target chosen for this CPU, and calls
 *  that pointer from then on (one indirect call, no per-call target check).
 */
#ifndef MXFFI_SRC_OP_SIMD_DISPATCH_H_
#define MXFFI_SRC_OP_SIMD_DISPATCH_H_

#include <hwy/highway.h>

namespace mxffi {
namespace op {
namespace simd {
namespace details {

/*!
 * \brief Choose the target once per process: the best one the CPU supports, capped by
 *  MXFFI_SIMD_TARGET when it is set.
 * \throws ValueError when MXFFI_SIMD_TARGET names no known instruction set.
 */
void ChooseTarget();

/*!
 * \return table's entry for the chosen target (HWY_DISPATCH_TABLE of an HWY_EXPORT).
 *  kTargets is the calling file's HWY_TARGETS: GetIndex counts among the targets compiled in
 *  the file it is expanded in, and files may compile different sets (src/op/fft/fft.cc
 *  compiles two), so the set is part of the instantiation, never shared between such files.
 */
template <int64_t kTargets, typename F>
F Resolve(F const* table) {
  ChooseTarget();
  return table[hwy::GetChosenTarget().GetIndex()];
}

}  // namespace details
}  // namespace simd
}  // namespace op
}  // namespace mxffi

/*! \brief The chosen target's FUNC, resolved on first use (a function-local static). */
#define MXFFI_SIMD_CALL(FUNC)                                                     \
  static const auto kResolved##FUNC =                                             \
      ::mxffi::op::simd::details::Resolve<HWY_TARGETS>(HWY_DISPATCH_TABLE(FUNC)); \
  return kResolved##FUNC

#endif  // MXFFI_SRC_OP_SIMD_DISPATCH_H_
