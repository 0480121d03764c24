// Helpers for tests that go through the raw C ABI, as a binding does.
#ifndef MXFFI_TESTS_CPP_TEST_UTIL_H_
#define MXFFI_TESTS_CPP_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <mxffi/mxffi.h>

#include <string>
#include <vector>

/*! \brief Expect stmt to throw mxffi::Error of the given kind whose message contains text. */
#define MXFFI_EXPECT_THROW_KIND(stmt, Kind, text)                          \
  do {                                                                     \
    try {                                                                  \
      stmt;                                                                \
      ADD_FAILURE() << "no exception from " #stmt;                         \
    } catch (const mxffi::Error& e) {                                      \
      EXPECT_EQ(e.kind(), Kind);                                           \
      EXPECT_NE(e.message().find(text), std::string::npos) << e.message(); \
    }                                                                      \
  } while (0)

namespace mxffi_test {

/*! \brief The outcome of one MXFFIFuncCall: return code, owned result, error kind and message. */
struct CallResult {
  int rc = 0;
  mxffi::Any result;
  std::string kind, message;
};

inline MXFFIObjectHandle GetGlobalHandle(const char* name) {
  MXFFIObjectHandle h = nullptr;
  EXPECT_EQ(MXFFIFuncGetGlobal(name, &h), 0);
  EXPECT_NE(h, nullptr) << "no global " << name;
  return h;
}

/*! \brief Call global `name` with raw cells through MXFFIFuncCall. */
inline CallResult CallRaw(const char* name, std::vector<MXFFIAny> args) {
  MXFFIObjectHandle f = GetGlobalHandle(name);
  CallResult out;
  MXFFIAny result;
  result.type_index = kMXFFINone;
  result.small_len = 0;
  result.v_int64 = 0;
  out.rc = MXFFIFuncCall(f, args.data(), static_cast<int32_t>(args.size()), &result);
  if (out.rc == 0) {
    out.result = mxffi::Any::MoveFromRaw(&result);
  } else {
    const char *kind, *message;
    MXFFIErrorGetLast(&kind, &message, nullptr);
    out.kind = kind;
    out.message = message;
  }
  MXFFIObjectFree(f);
  return out;
}

inline MXFFIAny Cell(int32_t type_index) {
  MXFFIAny c;
  c.type_index = type_index;
  c.small_len = 0;
  c.v_int64 = 0;
  return c;
}
inline MXFFIAny IntCell(int64_t v) {
  MXFFIAny c = Cell(kMXFFIInt);
  c.v_int64 = v;
  return c;
}
inline MXFFIAny FloatCell(double v) {
  MXFFIAny c = Cell(kMXFFIFloat);
  c.v_float64 = v;
  return c;
}
inline MXFFIAny StrCell(const char* s) {
  MXFFIAny c = Cell(kMXFFIRawStr);
  c.v_c_str = s;
  return c;
}
/*! \brief A borrowed view of any length; `arr` must outlive the call. */
inline MXFFIAny ViewCell(int32_t code, MXFFIByteArray* arr) {
  MXFFIAny c = Cell(code);
  c.v_ptr = arr;
  return c;
}
inline MXFFIAny ObjCell(const mxffi::Any& owner) { return *owner.raw(); }

}  // namespace mxffi_test

#endif  // MXFFI_TESTS_CPP_TEST_UTIL_H_
