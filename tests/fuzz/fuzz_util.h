// Helpers shared by the libFuzzer targets: calls through the C ABI that turn a malformed error
// (no kind, no message, an escaped C++ exception) into a reported crash, and the sanitizer
// settings every target runs with.
#ifndef MXFFI_TESTS_FUZZ_FUZZ_UTIL_H_
#define MXFFI_TESTS_FUZZ_FUZZ_UTIL_H_

#include <fuzzer/FuzzedDataProvider.h>
#include <mxffi/mxffi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

// Allocations above 256 MiB fail (malloc returns NULL, so mxffi raises MemoryError) instead of
// tripping libFuzzer's malloc limit: a huge requested shape is a user error, not a finding.
extern "C" const char* __asan_default_options() {  // NOLINT
  return "allocator_may_return_null=1:max_allocation_size_mb=256:detect_leaks=1";
}

namespace mxffi_fuzz {

/*! \brief Report a broken invariant the way a sanitizer reports a bug: message, then abort. */
[[noreturn]] inline void Fail(const std::string& what) {
  std::fprintf(stderr, "\n== mxffi fuzz invariant broken: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

#define MXFFI_FUZZ_CHECK(cond, what)                                     \
  do {                                                                   \
    if (!(cond)) ::mxffi_fuzz::Fail(std::string(#cond " -- ") + (what)); \
  } while (0)

/*!
 * \brief The error kinds an mxffi call may raise for bad input (LinAlgError: np.linalg's, as
 *  numpy's, for an array that is not a stack of matrices or a matrix it cannot factor).
 */
inline bool ExpectedKind(const std::string& kind, const std::string& message) {
  static const char* kKinds[] = {
      "TypeError",      "ValueError",          "IndexError",    "KeyError",
      "AttributeError", "MemoryError",         "OverflowError", "NotImplementedError",
      "AxisError",      "DTypePromotionError", "LinAlgError"};
  for (const char* k : kKinds) {
    if (kind == k) return true;
  }
  // mxffi raises RuntimeError itself only for a missing kernel and for a CUDA device asked of a
  // machine or build without one (as PyTorch does); any other RuntimeError is a C++ exception
  // (std::out_of_range, std::length_error, ...) that escaped the argument checks.
  return kind == "RuntimeError" &&
         (message.find("no kernel from") != std::string::npos ||
          message.find("no CUDA device is available") != std::string::npos);
}

/*! \brief Check the error a failed call left: a known kind and a message naming something. */
inline void CheckLastError(const char* callee) {
  const char *kind = nullptr, *message = nullptr;
  MXFFIErrorGetLast(&kind, &message, nullptr);
  std::string k = kind ? kind : "", m = message ? message : "";
  if (k.empty() || m.empty() || !ExpectedKind(k, m)) {
    Fail(std::string(callee) + " failed with kind '" + k + "' and message '" + m + "'");
  }
}

/*! \brief A global function handle, looked up once per name (the registry never drops them). */
inline MXFFIObjectHandle Global(const char* name) {
  static std::map<std::string, MXFFIObjectHandle>* cache =
      new std::map<std::string, MXFFIObjectHandle>();
  auto it = cache->find(name);
  if (it != cache->end()) return it->second;
  MXFFIObjectHandle h = nullptr;
  if (MXFFIFuncGetGlobal(name, &h) != 0 || h == nullptr) Fail(std::string("no global ") + name);
  (*cache)[name] = h;
  return h;
}

/*!
 * \brief Call global name with borrowed cells; on success the result is returned (owned), on
 *  failure the error is checked and None returned with ok = false.
 */
inline mxffi::Any Call(const char* name, const MXFFIAny* args, int32_t n, bool* ok = nullptr) {
  MXFFIAny result;
  std::memset(&result, 0, sizeof(result));
  result.type_index = kMXFFINone;
  int rc = MXFFIFuncCall(Global(name), args, n, &result);
  if (ok) *ok = rc == 0;
  if (rc != 0) {
    MXFFI_FUZZ_CHECK(result.type_index == kMXFFINone,
                     std::string(name) + " set a result and failed");
    CheckLastError(name);
    return mxffi::Any();
  }
  return mxffi::Any::MoveFromRaw(&result);
}

inline mxffi::Any Call(const char* name, const std::vector<mxffi::AnyView>& args,
                       bool* ok = nullptr) {
  return Call(name, reinterpret_cast<const MXFFIAny*>(args.data()),
              static_cast<int32_t>(args.size()), ok);
}

/*! \brief Integers that break arithmetic: the extremes and the edges of 32-bit ranges. */
inline int64_t EdgeInt(FuzzedDataProvider* in) {
  static const int64_t kEdges[] = {0,
                                   1,
                                   -1,
                                   2,
                                   7,
                                   8,
                                   64,
                                   255,
                                   256,
                                   INT32_MAX,
                                   INT32_MIN,
                                   int64_t{INT32_MAX} + 1,
                                   UINT32_MAX,
                                   INT64_MAX,
                                   INT64_MIN,
                                   INT64_MAX / 2 + 1,
                                   int64_t{1} << 32,
                                   (int64_t{1} << 62) + 1};
  return in->PickValueInArray(kEdges);
}

/*! \brief A small integer most of the time, an edge value sometimes. */
inline int64_t SomeInt(FuzzedDataProvider* in, int64_t lo = -3, int64_t hi = 8) {
  if (in->ConsumeIntegralInRange<int>(0, 7) == 0) return EdgeInt(in);
  return in->ConsumeIntegralInRange<int64_t>(lo, hi);
}

/*! \brief A dtype: usually one a kernel knows, sometimes any code, bits and lanes. */
inline DLDataType SomeDType(FuzzedDataProvider* in) {
  static const DLDataType kKnown[] = {
      {kDLFloat, 64, 1}, {kDLFloat, 32, 1}, {kDLFloat, 16, 1}, {kDLBfloat, 16, 1},
      {kDLInt, 64, 1},   {kDLInt, 32, 1},   {kDLInt, 16, 1},   {kDLInt, 8, 1},
      {kDLUInt, 8, 1},   {kDLUInt, 16, 1},  {kDLUInt, 32, 1},  {kDLUInt, 64, 1},
      {kDLBool, 8, 1},   {kDLFloat, 32, 4}, {kDLInt, 8, 4},    {kDLComplex, 64, 1},
      {kDLInt, 4, 1},    {kDLUInt, 1, 1},   {kDLFloat, 0, 1},  {kDLFloat, 64, 0}};
  if (in->ConsumeIntegralInRange<int>(0, 5) != 0) return in->PickValueInArray(kKnown);
  DLDataType t;
  t.code = in->ConsumeIntegral<uint8_t>();
  t.bits = in->ConsumeIntegral<uint8_t>();
  t.lanes = in->ConsumeIntegral<uint16_t>();
  return t;
}

/*!
 * \brief A device type. Debian's DLPack 0.6 header enumerates codes up to 13, so a DLDeviceType
 *  holds 0..15 by the C++ rules for enums; codes of newer DLPack versions (kDLHexagon = 16, ...)
 *  would make every read of the field undefined behaviour, and are not drawn here.
 */
inline DLDeviceType SomeDeviceType(FuzzedDataProvider* in) {
  return static_cast<DLDeviceType>(in->ConsumeIntegralInRange<int>(0, 15));
}

inline MXFFIAny NoneCell() {
  MXFFIAny c;
  std::memset(&c, 0, sizeof(c));
  c.type_index = kMXFFINone;
  return c;
}

}  // namespace mxffi_fuzz

#endif  // MXFFI_TESTS_FUZZ_FUZZ_UTIL_H_
