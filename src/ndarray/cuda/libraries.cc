/*!
 * \file libraries.cc
 * \brief cuda.library_unavailable_reason: whether the CUDA libraries mxffi loads at run time
 *  (cuBLAS, cuSOLVER, cuFFT: blas.h, solver.h, cufft.h) can be used, and why not; and
 *  cuda._library_calls, how many cuSOLVER and cuFFT calls ran (for tests).
 */
#include <mxffi/container/map.h>
#include <mxffi/registry.h>

#include <string>

#include "blas.h"
#include "cufft.h"
#include "solver.h"

namespace mxffi {

MXFFI_REGISTER_API("cuda.library_unavailable_reason")
    .describe(
        "Why the CUDA library name ('cublas', 'cusolver' or 'cufft'), loaded with dlopen the "
        "first time it is needed (or by this call), cannot be used: each file tried and the "
        "loader's message, or that this build has no CUDA; '' when it loads.")
    .arg("name")
    .set_body_typed([](String name) {
      const std::string n = name;
      std::string why;
      bool ok = false;
      if (n == "cublas") {
        ok = cuda::BlasAvailable(&why);
      } else if (n == "cusolver") {
        ok = cuda::SolverAvailable(&why);
      } else if (n == "cufft") {
        ok = cuda::FftAvailable(&why);
      } else {
        MXFFI_THROW(ValueError) << "cuda.library_unavailable_reason: name must be 'cublas', "
                                   "'cusolver' or 'cufft', got '"
                                << n << "'";
      }
      return ok ? std::string() : why;
    });

MXFFI_REGISTER_API("cuda._library_calls")
    .describe(
        "For tests: how many calls this process made to cuSOLVER's factorization routines "
        "('cusolver': one per matrix) and to cuFFT's transforms ('cufft'), as a dict; both stay 0 "
        "where the host path runs.")
    .set_body_typed([]() {
      Map<String, Any> out;
      out.Set("cusolver", cuda::SolverRoutineCalls());
      out.Set("cufft", cuda::FftExecCalls());
      return out;
    });

}  // namespace mxffi
