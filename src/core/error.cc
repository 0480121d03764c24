/*!
 * \file error.cc
 * \brief Errors: construction with a cheap backtrace, lazy formatting, the thread-local slot,
 *  translation of C++ exceptions at the ABI boundary, and the signal-check hook.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <mxffi/c_api.h>
#include <mxffi/container/string.h>
#include <mxffi/function.h>
#include <mxffi/registry.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "backtrace.h"

namespace mxffi {
namespace {

constexpr int kMaxFrames = 64;

/*!
 * \brief Held while an error's backtrace is made into text: two threads may read the same error
 *  (a Python exception object is shared), and the text is written once.
 */
std::mutex& FormatMutex() {
  static auto* mutex = new std::mutex();  // leaked: errors die in thread-exit destructors
  return *mutex;
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

/*!
 * \brief The deleter of errors made with raw frames (Error(kind, message)): the same as every
 *  other ErrorObj's, but its address tells that the backtrace is symbolised only when read, so
 *  error.last_backtrace can hand the error itself to a reader who may never look.
 */
void RawFramesErrorDeleter(void* self) { details::DefaultObjectDeleter<ErrorObj>(self); }

/*! \brief Called with a foreign error's token when C++ drops its last reference to it. */
using ForeignReleaseFn = void (*)(int64_t token);

/*! \brief The foreign errors alive: who to tell, and with which token, when each is freed. */
struct ForeignErrors {
  std::mutex mutex;
  std::unordered_map<const void*, std::pair<int64_t, ForeignReleaseFn>> live;
};

ForeignErrors& Foreign() {
  static auto* table = new ForeignErrors();  // leaked: errors die in thread-exit destructors
  return *table;
}

void ForeignErrorDeleter(void* self) {
  std::pair<int64_t, ForeignReleaseFn> entry{0, nullptr};
  {
    ForeignErrors& f = Foreign();
    std::lock_guard<std::mutex> lock(f.mutex);
    auto it = f.live.find(self);
    if (it != f.live.end()) {
      entry = it->second;
      f.live.erase(it);
    }
  }
  if (entry.second != nullptr) entry.second(entry.first);
  details::DefaultObjectDeleter<ErrorObj>(self);
}

}  // namespace

const std::string& ErrorObj::backtrace() const {
  std::lock_guard<std::mutex> lock(FormatMutex());
  if (!formatted_) {
    if (!frames_.empty()) backtrace_ += details::SymbolizeBacktrace(frames_);
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
  details::ObjectUnsafe::SetDeleter(obj, RawFramesErrorDeleter);
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

namespace mxffi {
namespace {

MXFFI_REGISTER_API("error.set_foreign")
    .describe(
        "Set this thread's last error to one raised in another runtime (a Python exception in a "
        "callback), whose object that runtime keeps under token: when the last reference to the "
        "error is dropped (C++ caught it and let it go, or the thread's slot moved on), "
        "release(token) runs, on whatever thread drops it, so the runtime can free its object. "
        "release is the address, as an integer, of a C function the runtime exports under the "
        "name MXFFIForeignErrorReleased (checked: no other address is called); it must not "
        "block. release 0 sets the error with no notice.")
    .arg("kind")
    .arg("message")
    .arg("backtrace")
    .arg("token")
    .arg("release")
    .set_body_typed([](std::string kind, std::string message, std::string backtrace, int64_t token,
                       int64_t release) {
      if (release != 0) {
        Dl_info info{};
        void* fn = reinterpret_cast<void*>(release);
        MXFFI_CHECK(dladdr(fn, &info) != 0 && info.dli_saddr == fn && info.dli_sname != nullptr &&
                        std::strcmp(info.dli_sname, "MXFFIForeignErrorReleased") == 0,
                    ValueError)
            << "error.set_foreign: release 0x" << std::hex << release
            << " is not the address of an exported MXFFIForeignErrorReleased function";
      }
      Error e(std::move(kind), std::move(message), std::move(backtrace));
      auto* obj = const_cast<ErrorObj*>(e.get());
      if (release != 0) {
        ForeignErrors& f = Foreign();
        std::lock_guard<std::mutex> lock(f.mutex);
        f.live[obj] = {token, reinterpret_cast<ForeignReleaseFn>(release)};
        details::ObjectUnsafe::SetDeleter(obj, ForeignErrorDeleter);
      }
      StoreError(e);
    });

MXFFI_REGISTER_API("error.last_backtrace")
    .describe(
        "The backtrace of this thread's last error when it is already text (given by the raiser, "
        "or read before); otherwise the error itself, whose backtrace error.backtrace formats "
        "from its raw frames when somebody reads it. None when no error was set.")
    .set_body([](PackedArgs, Any* rv) {
      const Error& e = Slot().error;
      if (!e.defined()) {
        *rv = Any();
      } else if (details::ObjectUnsafe::Header(const_cast<ErrorObj*>(e.get()))->deleter ==
                 RawFramesErrorDeleter) {
        *rv = e;
      } else {
        *rv = String(e.backtrace());
      }
    });

MXFFI_REGISTER_API("error.backtrace")
    .describe("The backtrace of an error, symbolised from its raw frames on first read.")
    .arg("error")
    .set_body_typed([](Error e) { return String(e.backtrace()); });

MXFFI_REGISTER_API("error.symbolizer")
    .describe(
        "What names the frames of C++ backtraces: \"libdw\" (elfutils, found at build time: "
        "function names from the symbol tables, source file and line where a library carries "
        "debug info) or \"dladdr\" (the names of exported functions only).")
    .set_body_typed([]() { return String(details::BacktraceSymbolizer()); });

}  // namespace
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
