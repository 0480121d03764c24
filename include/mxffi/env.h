/*!
 * \file mxffi/env.h
 * \brief The hooks an embedding runtime (Python) installs through the C ABI, as C++ sees them:
 *  GIL release around long kernels (MXFFIEnvSetGILHooks) and warnings (MXFFIEnvSetWarnHook). The
 * signal check, CheckSignals, is declared in error.h, since what it does on a signal is throw.
 *
 * Both live in the core (src/core/env.cc), below the op layer, so that any long-running C++
 * code (a kernel, a function in an outside library) can use them.
 */
#ifndef MXFFI_ENV_H_
#define MXFFI_ENV_H_

#include <mxffi/c_api.h>

#include <string>

namespace mxffi {

/*!
 * \brief Releases the GIL for its lifetime when the calling thread holds it and a Python binding
 *  installed the hooks (MXFFIEnvSetGILHooks); otherwise does nothing.
 * \note Code inside the scope must not touch Python objects; mxffi objects are fine (their
 *  reference counts are atomic).
 */
/*!
 * \brief Issue a warning of the named category ("StorageFallbackWarning", ...) through the hook
 *  a Python binding installed (MXFFIEnvSetWarnHook: Python's warnings, with their filters), or
 *  as a line on stderr without one.
 * \return true when it was issued (or filtered out).
 * \throws the hook's error (EnvErrorAlreadySet) when a filter turned the warning into one; warn
 *  before doing the work, so that nothing is left half-done.
 */
MXFFI_DLL bool Warn(const char* category, const std::string& message);

class ScopedGILRelease {
 public:
  MXFFI_DLL ScopedGILRelease();
  MXFFI_DLL ~ScopedGILRelease();
  ScopedGILRelease(const ScopedGILRelease&) = delete;
  ScopedGILRelease& operator=(const ScopedGILRelease&) = delete;

 private:
  void* state_ = nullptr;
};

}  // namespace mxffi

#endif  // MXFFI_ENV_H_
