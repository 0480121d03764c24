/*!
 * \file mxffi/error.h
 * \brief Errors: the Error exception/object, MXFFI_THROW and the MXFFI_CHECK macros.
 *
 * An error has a kind ("TypeError", "ValueError", ...: Python maps each to its builtin
 * class), a message and a backtrace. The backtrace is captured as raw return addresses
 * when the error is made (cheap) and symbolised only when somebody reads it.
 */
#ifndef MXFFI_ERROR_H_
#define MXFFI_ERROR_H_

#include <mxffi/object.h>

#include <exception>
#include <sstream>
#include <string>
#include <vector>

namespace mxffi {

/*! \brief Payload of an Error: kind, message, and a backtrace captured as addresses. */
class ErrorObj : public Object {
 public:
  std::string kind;
  std::string message;

  /*! \return the backtrace, symbolised on first call (or the one given by the raiser). */
  MXFFI_DLL const std::string& backtrace() const;

  static constexpr const char* _type_key = "mxffi.Error";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(ErrorObj, Object, kMXFFIError);

 private:
  std::vector<void*> frames_;
  mutable std::string backtrace_;
  mutable bool formatted_ = false;
  friend class Error;
};

/*!
 * \brief The exception every mxffi failure throws; also an object reference, so an error can
 *  be stored in the thread-local slot, returned as a value, or re-raised in another language.
 */
class Error : public std::exception, public ObjectRef {
 public:
  /*! \brief Make an error, capturing the current backtrace. */
  MXFFI_DLL Error(std::string kind, std::string message);
  /*! \brief Make an error with a backtrace already formatted elsewhere (e.g. Python's). */
  MXFFI_DLL Error(std::string kind, std::string message, std::string backtrace);
  explicit Error(ObjectPtr<ErrorObj> data) : ObjectRef(ObjectPtr<Object>(std::move(data))) {}

  const std::string& kind() const { return get()->kind; }
  const std::string& message() const { return get()->message; }
  const std::string& backtrace() const { return get()->backtrace(); }
  const ErrorObj* get() const { return static_cast<const ErrorObj*>(data_.get()); }
  const char* what() const noexcept override { return get()->message.c_str(); }
  /*! \return "Kind: message". */
  MXFFI_DLL std::string FullMessage() const;

  using ContainerType = ErrorObj;
};

/*!
 * \brief Thrown when an error is already waiting in the thread-local slot (set by a callback
 *  or a signal hook); the C ABI boundary returns -1 without overwriting it.
 */
struct EnvErrorAlreadySet : public std::exception {
  const char* what() const noexcept override { return "mxffi: error already set"; }
};

/*!
 * \brief Poll for pending signals (Ctrl-C) in a long C++ loop.
 * \note Without a hook installed (see MXFFIEnvSetCheckSignals) this is one load and a branch;
 *  when the hook reports a signal it throws EnvErrorAlreadySet, which unwinds to the caller.
 */
MXFFI_DLL void CheckSignals();

namespace details {

/*! \brief Collects a message with << and throws an Error of the given kind when destroyed. */
class ErrorBuilder {
 public:
  explicit ErrorBuilder(const char* kind) : kind_(kind) {}
  std::ostringstream& stream() { return stream_; }
  [[noreturn]] ~ErrorBuilder() noexcept(false) { throw Error(kind_, stream_.str()); }

 private:
  const char* kind_;
  std::ostringstream stream_;
};

/*! \brief Ends a void-typed ternary so the macros below are single expressions. */
struct Voidify {
  void operator&(std::ostream&) {}
};

}  // namespace details
}  // namespace mxffi

/*! \brief Throw an error of a kind: `MXFFI_THROW(ValueError) << "bad value " << x;` */
#define MXFFI_THROW(Kind) ::mxffi::details::ErrorBuilder(#Kind).stream()

/*! \brief Throw an error of Kind unless cond holds: `MXFFI_CHECK(x > 0, ValueError) << ...;` */
#define MXFFI_CHECK(cond, Kind) (cond) ? (void)0 : ::mxffi::details::Voidify() & MXFFI_THROW(Kind)

#define MXFFI_CHECK_BINARY_(a, b, op, Kind)                                                    \
  ((a)op(b)) ? (void)0                                                                         \
             : ::mxffi::details::Voidify() & MXFFI_THROW(Kind)                                 \
                                                 << "check failed: " #a " " #op " " #b << " (" \
                                                 << (a) << " vs. " << (b) << "): "

/*! \brief Comparison checks; the message shows both operands and their values. */
#define MXFFI_CHECK_EQ(a, b, Kind) MXFFI_CHECK_BINARY_(a, b, ==, Kind)
#define MXFFI_CHECK_NE(a, b, Kind) MXFFI_CHECK_BINARY_(a, b, !=, Kind)
#define MXFFI_CHECK_LT(a, b, Kind) MXFFI_CHECK_BINARY_(a, b, <, Kind)
#define MXFFI_CHECK_LE(a, b, Kind) MXFFI_CHECK_BINARY_(a, b, <=, Kind)
#define MXFFI_CHECK_GT(a, b, Kind) MXFFI_CHECK_BINARY_(a, b, >, Kind)
#define MXFFI_CHECK_GE(a, b, Kind) MXFFI_CHECK_BINARY_(a, b, >=, Kind)

#endif  // MXFFI_ERROR_H_
