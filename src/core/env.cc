/*!
 * \file env.cc
 * \brief The embedding runtime's hooks: the signal check (CheckSignals), GIL release
 *  (ScopedGILRelease) and warnings (Warn), installed through MXFFIEnvSetCheckSignals,
 *  MXFFIEnvSetGILHooks and MXFFIEnvSetWarnHook; and the current stream of a device
 *  (MXFFIEnvGetCurrentStream), which C++ code inside a call reads.
 */
#include <mxffi/c_api.h>
#include <mxffi/env.h>
#include <mxffi/error.h>
#include <mxffi/function.h>

#include <atomic>
#include <iostream>
#include <string>

#include "../ndarray/cuda/device.h"

namespace mxffi {
namespace {

std::atomic<MXFFICheckSignalsFunc> g_check_signals{nullptr};
std::atomic<MXFFIReleaseGILFunc> g_release_gil{nullptr};
std::atomic<MXFFIRestoreGILFunc> g_restore_gil{nullptr};
std::atomic<MXFFIWarnFunc> g_warn{nullptr};

}  // namespace

bool Warn(const char* category, const std::string& message) {
  MXFFIWarnFunc hook = g_warn.load(std::memory_order_acquire);
  if (hook == nullptr) {
    std::cerr << "mxffi: " << category << ": " << message << std::endl;
    return true;
  }
  if (hook(category, message.c_str()) != 0) throw EnvErrorAlreadySet();
  return true;
}

void CheckSignals() {
  MXFFICheckSignalsFunc hook = g_check_signals.load(std::memory_order_relaxed);
  if (hook != nullptr && hook() != 0) throw EnvErrorAlreadySet();
}

ScopedGILRelease::ScopedGILRelease() {
  MXFFIReleaseGILFunc release = g_release_gil.load(std::memory_order_acquire);
  if (release != nullptr) state_ = release();
}

ScopedGILRelease::~ScopedGILRelease() {
  // noexcept, as destructors are: the hook must return or never return, not unwind. Python's
  // (fastcall.h, MXFFIPyRestoreThread) waits for good instead of re-taking the GIL once the
  // interpreter exits, where CPython would end the thread by unwinding it through this frame.
  if (state_ != nullptr) g_restore_gil.load(std::memory_order_acquire)(state_);
}

}  // namespace mxffi

extern "C" {

int MXFFIEnvSetCheckSignals(MXFFICheckSignalsFunc func) {
  mxffi::g_check_signals.store(func, std::memory_order_relaxed);
  return 0;
}

int MXFFIEnvSetGILHooks(MXFFIReleaseGILFunc release, MXFFIRestoreGILFunc restore) {
  if ((release == nullptr) != (restore == nullptr)) {
    MXFFIErrorSet("ValueError",
                  release == nullptr ? "MXFFIEnvSetGILHooks: release is NULL but restore is set; "
                                       "pass both or neither"
                                     : "MXFFIEnvSetGILHooks: restore is NULL but release is set; "
                                       "pass both or neither",
                  nullptr);
    return -1;
  }
  mxffi::g_restore_gil.store(restore, std::memory_order_release);
  mxffi::g_release_gil.store(release, std::memory_order_release);
  return 0;
}

int MXFFIEnvSetWarnHook(MXFFIWarnFunc func) {
  mxffi::g_warn.store(func, std::memory_order_release);
  return 0;
}

int MXFFIEnvGetCurrentStream(int32_t device_type, int32_t device_id, void** out_stream) {
  try {
    MXFFI_CHECK(out_stream != nullptr, ValueError)
        << "MXFFIEnvGetCurrentStream: out_stream is NULL";
    MXFFI_CHECK(device_id >= 0, ValueError)
        << "MXFFIEnvGetCurrentStream: device index must be >= 0, got " << device_id;
    if (device_type == kDLCPU) {
      *out_stream = nullptr;
    } else if (device_type == kDLCUDA) {
      *out_stream = mxffi::cuda::CurrentStream(device_id);
    } else {
      MXFFI_THROW(ValueError) << "MXFFIEnvGetCurrentStream: device type " << device_type
                              << " has no streams in mxffi; expected 1 (CPU) or 2 (CUDA)";
    }
    return 0;
  } catch (...) {
    return mxffi::details::SetErrorFromCurrentException();
  }
}

}  // extern "C"
