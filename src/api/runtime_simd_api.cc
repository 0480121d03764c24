/*!
 * \file runtime_simd_api.cc
 * \brief runtime.simd_target: the instruction set the vectorized CPU kernels chose.
 */
#include <mxffi/registry.h>

#include <string>

#include "../op/simd/simd.h"

namespace mxffi {
namespace api {

MXFFI_REGISTER_API("runtime.simd_target")
    .describe(
        "The instruction set mxffi's vectorized CPU kernels run with, chosen once per process: "
        "the best the CPU supports (AVX3 is AVX-512; then AVX2, SSE4 and the portable "
        "SCALAR/EMU128), capped by MXFFI_SIMD_TARGET (avx512, avx2, sse4 or scalar).")
    .set_body_typed([]() { return std::string(op::simd::TargetName()); });

}  // namespace api
}  // namespace mxffi
