/*!
 * \file error.cc
 * \brief Errors: construction with a cheap backtrace, lazy formatting, the thread-local slot,
 *  translation of C++ exceptions at the ABI boundary, and the signal-check hook.
 */
#include <cxxabi.h>
#include <execinfo.h>
#include <mxffi/c_api.h>
#include <mxffi/function.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

namespace mxffi {
namespace {

constexpr int kMaxFrames = 64;

/*! \brief "lib.so(_ZN5mxffi3FooEv+0x1c) [0x...]" -> "lib.so: mxffi::Foo()". */
std::string FormatFrame(const char* symbol) {
  std::string line(symbol);
  size_t open = line.find('(');
  size_t plus = line.find('+', open);
  if (open == std::string::npos || plus == std::string::npos || plus == open + 1) return line;
  std::string mangled = line.substr(open + 1, plus - open - 1);
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string name = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  return line.substr(0, open) + ": " + name;
}

/*! \brief This thread's last error. */
struct ErrorSlot {
  Error error{ObjectPtr<ErrorObj>()};
};

ErrorSlot& Slot() {
  static thread_local ErrorSlot slot;
  return slot;
}

void StoreError(const Error& e) {
  ErrorSlot& slot = Slot();
  slot.error = e;
}

}  // namespace

const std::string& ErrorObj::backtrace() const {
  if (!formatted_) {
    std::ostringstream os;
    if (!frames_.empty()) {
      char** symbols = backtrace_symbols(frames_.data(), static_cast<int>(frames_.size()));
      for (size_t i = 0; i < frames_.size(); ++i) {
        os << "  [" << i << "] " << (symbols ? FormatFrame(symbols[i]) : "?") << "\n";
      }
      std::free(symbols);
      backtrace_ += os.str();
    }
    formatted_ = true;
  }
  return backtrace_;
}

Error::Error(std::string kind, std::string message)
    : ObjectRef(ObjectPtr<Object>(make_object<ErrorObj>())) {
  auto* obj = static_cast<ErrorObj*>(get_mutable());
  obj->kind = std::move(kind);
  obj->message = std::move(message);
  void* frames[kMaxFrames];
  int n = ::backtrace(frames, kMaxFrames);
  int skip = n > 1 ? 1 : 0;  // this constructor
  obj->frames_.assign(frames + skip, frames + n);
}

Error::Error(std::string kind, std::string message, std::string backtrace)
    : ObjectRef(ObjectPtr<Object>(make_object<ErrorObj>())) {
  auto* obj = static_cast<ErrorObj*>(get_mutable());
  obj->kind = std::move(kind);
  obj->message = std::move(message);
  obj->backtrace_ = std::move(backtrace);
  obj->formatted_ = true;
}

std::string Error::FullMessage() const { return kind() + ": " + message(); }

namespace details {

int SetErrorFromCurrentException() noexcept {
  try {
    throw;
  } catch (const Error& e) {
    StoreError(e);
  } catch (const EnvErrorAlreadySet&) {
    // The raiser already filled the slot.
  } catch (const std::bad_alloc&) {
    StoreError(Error("MemoryError", "out of memory", ""));
  } catch (const std::length_error& e) {
    // A container asked for more elements than it can hold: an allocation too big, as numpy
    // reports it (np.empty((2**62, 0)) cast to csr needs an indptr of 2**62 + 1 entries).
    StoreError(Error("MemoryError", std::string("out of memory: ") + e.what(), ""));
  } catch (const std::exception& e) {
    StoreError(Error("RuntimeError", e.what()));
  } catch (...) {
    StoreError(Error("RuntimeError", "unknown C++ exception"));
  }
  return -1;
}

void ThrowLastError() {
  ErrorSlot& slot = Slot();
  if (!slot.error.defined()) throw Error("RuntimeError", "an mxffi call failed without an error");
  throw Error(slot.error);
}

}  // namespace details
}  // namespace mxffi

using mxffi::Error;

extern "C" {

int MXFFIGetVersion(int32_t* major, int32_t* minor, int32_t* patch) {
  if (major) *major = MXFFI_VERSION_MAJOR;
  if (minor) *minor = MXFFI_VERSION_MINOR;
  if (patch) *patch = MXFFI_VERSION_PATCH;
  return 0;
}

int MXFFIErrorGetLast(const char** kind, const char** message, const char** backtrace) {
  mxffi::ErrorSlot& slot = mxffi::Slot();
  static const char* empty = "";
  if (!slot.error.defined()) {
    if (kind) *kind = empty;
    if (message) *message = empty;
    if (backtrace) *backtrace = empty;
    return 0;
  }
  try {
    if (kind) *kind = slot.error.kind().c_str();
    if (message) *message = slot.error.message().c_str();
    if (backtrace) *backtrace = slot.error.backtrace().c_str();
  } catch (...) {
    if (backtrace) *backtrace = empty;
  }
  return 0;
}

int MXFFIErrorSet(const char* kind, const char* message, const char* backtrace) {
  try {
    mxffi::StoreError(
        Error(kind ? kind : "RuntimeError", message ? message : "", backtrace ? backtrace : ""));
    return 0;
  } catch (...) {
    return -1;
  }
}

}  // extern "C"
