/*!
 * \file target.cc
 * \brief The instruction set the vectorized kernels run with: chosen once per process from what
 *  the CPU supports (Highway's detection), capped by MXFFI_SIMD_TARGET.
 */
#include <hwy/highway.h>
#include <hwy/targets.h>
#include <mxffi/error.h>

#include <cstdlib>
#include <cstring>

#include "dispatch.h"
#include "simd.h"

namespace mxffi {
namespace op {
namespace simd {
namespace {

/*! \return the Highway target bit MXFFI_SIMD_TARGET caps the choice at; 0 when unset. */
int64_t CapFromEnv() {
  const char* env = std::getenv("MXFFI_SIMD_TARGET");
  if (env == nullptr || *env == '\0') return 0;
  struct Name {
    const char* name;
    int64_t target;
  };
  static const Name kNames[] = {{"avx512", HWY_AVX3},
                                {"avx3", HWY_AVX3},
                                {"avx2", HWY_AVX2},
                                {"sse4", HWY_SSE4},
                                {"scalar", HWY_SCALAR}};
  for (const Name& n : kNames) {
    if (std::strcmp(env, n.name) == 0) return n.target;
  }
  MXFFI_THROW(ValueError) << "MXFFI_SIMD_TARGET: unknown instruction set '" << env
                          << "'; expected avx512, avx2, sse4 or scalar";
}

/*! \brief Apply the cap (targets better than it disabled), then let Highway choose. */
bool Choose() {
  const int64_t cap = CapFromEnv();
  if (cap == HWY_SCALAR) {
    hwy::DisableTargets(~int64_t{0});  // nothing but the portable fallback
  } else if (cap != 0) {
    hwy::DisableTargets(cap - 1);  // a lower bit is a better target
  }
  hwy::GetChosenTarget().Update(hwy::SupportedTargets());
  return true;
}

}  // namespace

namespace details {

void ChooseTarget() {
  static const bool chosen = Choose();
  (void)chosen;
}

}  // namespace details

const char* TargetName() {
  details::ChooseTarget();
  const int64_t compiled = hwy::SupportedTargets() & HWY_TARGETS;
  const int64_t best = compiled & -compiled;  // the lowest bit: the best target
  return hwy::TargetName(best != 0 ? best : HWY_STATIC_TARGET);
}

}  // namespace simd
}  // namespace op
}  // namespace mxffi
