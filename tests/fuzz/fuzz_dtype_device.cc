// The dtype and device string parsers: DataTypeFromString, and the dtype and device arguments
// of np.empty given as every string cell kind (inline, raw, view, String object).
//
// A dtype name is accepted exactly when it is one of numpy's type names (no byte-order mark),
// one of numpy's character codes after at most one byte-order mark ('<', '=', '|', or '>' for a
// one-byte type only: arrays are little-endian), or a canonical name followed by "x<lanes>" with
// lanes in [1, 65535]; a refused name is a TypeError whose message starts "<caller>: data type
// '"; the accepted dtype prints back (DataTypeToString) to a name that parses to the same dtype.
// A device string is accepted exactly when it is "cpu", "cuda" or "gpu", optionally followed by
// ":" and decimal digits naming an id in [0, 2^31); anything else is a ValueError or TypeError.
#include <mxffi/mxffi.h>
#include <mxffi/ndarray/ndarray.h>

#include <algorithm>

#include "fuzz_util.h"

namespace {

using mxffi::Any;
using mxffi::AnyView;
using mxffi::NDArray;
using mxffi_fuzz::Call;
using mxffi_fuzz::Fail;

bool Same(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

std::string Show(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 32 && c < 127) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

/*! \brief The device a string names by the grammar above, or nullopt. */
std::optional<DLDevice> ReferenceDevice(std::string_view s) {
  size_t colon = s.find(':');
  std::string_view kind = s.substr(0, colon);
  int64_t id = 0;
  if (colon != std::string_view::npos) {
    std::string_view digits = s.substr(colon + 1);
    if (digits.empty() || digits.size() > 10) return std::nullopt;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      id = id * 10 + (c - '0');
    }
    if (id > INT32_MAX) return std::nullopt;
  }
  if (kind == "cpu") return DLDevice{kDLCPU, static_cast<int32_t>(id)};
  if (kind == "cuda" || kind == "gpu") return DLDevice{kDLCUDA, static_cast<int32_t>(id)};
  return std::nullopt;
}

template <size_t N>
bool In(const std::string_view (&names)[N], std::string_view s) {
  for (std::string_view n : names) {
    if (s == n) return true;
  }
  return false;
}

/*! \brief Whether the grammar above accepts s (written apart from the parser, as a check). */
bool ReferenceDType(std::string_view s) {
  static const std::string_view kCanonical[] = {
      "float64", "float32", "int64",  "int32",  "bool",   "float16",   "bfloat16",  "int8",
      "int16",   "uint8",   "uint16", "uint32", "uint64", "complex64", "complex128"};
  static const std::string_view kNames[] = {
      "float", "int",  "complex", "uint",     "double",    "single",  "half",   "bool_",
      "int_",  "intp", "uintp",   "byte",     "ubyte",     "short",   "ushort", "intc",
      "uintc", "long", "ulong",   "longlong", "ulonglong", "csingle", "cdouble"};
  static const std::string_view kCodes[] = {"f8", "f4", "i8", "i4", "?",  "b1",  "f2", "i1", "i2",
                                            "u1", "u2", "u4", "u8", "c8", "c16", "b",  "B",  "h",
                                            "H",  "i",  "I",  "l",  "L",  "q",   "Q",  "p",  "P",
                                            "n",  "N",  "e",  "f",  "d",  "F",   "D"};
  static const std::string_view kOneByte[] = {"?", "b1", "i1", "u1", "b", "B"};
  if (In(kCanonical, s) || In(kNames, s)) return true;
  std::string_view code = s;
  char mark = 0;
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '=' || code[0] == '|')) {
    mark = code[0];
    code.remove_prefix(1);
  }
  if (In(kCodes, code)) return mark != '>' || In(kOneByte, code);
  size_t x = s.rfind('x');
  if (x == std::string_view::npos || x + 1 >= s.size()) return false;
  int64_t lanes = 0;
  for (char c : s.substr(x + 1)) {
    if (c < '0' || c > '9') return false;
    lanes = std::min<int64_t>(lanes * 10 + (c - '0'), 1 << 20);
  }
  return lanes >= 1 && lanes <= 65535 && In(kCanonical, s.substr(0, x));
}

/*! \brief A cell holding text as one of the string kinds; storage keeps it alive. */
MXFFIAny TextCell(FuzzedDataProvider* in, const std::string& text, std::string* storage,
                  MXFFIByteArray* view, Any* owned) {
  MXFFIAny c = mxffi_fuzz::NoneCell();
  *storage = text;
  switch (in->ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      if (text.size() <= 7) {
        c.type_index = kMXFFISmallStr;
        c.small_len = static_cast<uint32_t>(text.size());
        std::memcpy(c.v_bytes, text.data(), text.size());
        return c;
      }
      [[fallthrough]];
    case 1:
      *view = MXFFIByteArray{storage->data(), storage->size()};
      c.type_index = kMXFFIStrView;
      c.v_ptr = view;
      return c;
    case 2:
      *owned = Any(mxffi::String(text));
      return *owned->raw();
    default:
      // A raw C string ends at the first NUL, as its reader sees it.
      storage->resize(std::strlen(storage->c_str()));
      c.type_index = kMXFFIRawStr;
      c.v_c_str = storage->c_str();
      return c;
  }
}

void FuzzDType(FuzzedDataProvider* in, const std::string& text) {
  std::optional<DLDataType> parsed;
  try {
    parsed = mxffi::DataTypeFromString(text, "fuzz");
  } catch (const mxffi::Error& e) {
    if (e.kind() != "TypeError" || e.message().find("fuzz: data type '") != 0) {
      Fail("DataTypeFromString(" + Show(text) + ") threw " + e.kind() + ": " + e.message());
    }
  }
  bool want = ReferenceDType(text);
  if (parsed.has_value() != want) {
    Fail("DataTypeFromString(" + Show(text) + ") " + (parsed ? "accepted" : "refused") +
         " a name the grammar " + (want ? "accepts" : "refuses"));
  }
  if (parsed) {
    std::string printed = mxffi::DataTypeToString(*parsed);
    DLDataType again = mxffi::DataTypeFromString(printed, "fuzz");
    MXFFI_FUZZ_CHECK(Same(again, *parsed), "'" + printed + "' does not parse back");
  }
  // The same text as a dtype argument, in some string cell kind.
  std::string storage;
  MXFFIByteArray view;
  Any owned;
  MXFFIAny cell = TextCell(in, text, &storage, &view, &owned);
  Any shape(mxffi::Shape(std::vector<int64_t>{0}));
  MXFFIAny args[2] = {*shape.raw(), cell};
  bool ok = false;
  Any r = Call("np.empty", args, 2, &ok);
  std::optional<DLDataType> expect;
  try {
    expect = mxffi::DataTypeFromString(storage, "fuzz");
  } catch (const mxffi::Error&) {
  }
  if (ok) {
    MXFFI_FUZZ_CHECK(expect.has_value(), "np.empty accepted dtype '" + Show(storage) + "'");
    MXFFI_FUZZ_CHECK(Same(r.cast<NDArray>().tensor().dtype, *expect),
                     "np.empty made another dtype than '" + Show(storage) + "' names");
  } else if (expect && expect->lanes == 1 && expect->bits >= 1) {
    Fail("np.empty refused dtype '" + Show(storage) + "'");
  }
}

void FuzzDevice(FuzzedDataProvider* in, const std::string& text) {
  std::string storage;
  MXFFIByteArray view;
  Any owned;
  MXFFIAny cell = TextCell(in, text, &storage, &view, &owned);
  Any shape(mxffi::Shape(std::vector<int64_t>{0}));
  MXFFIAny args[3] = {*shape.raw(), mxffi_fuzz::NoneCell(), cell};
  std::optional<DLDevice> want = ReferenceDevice(storage);
  MXFFIAny result = mxffi_fuzz::NoneCell();
  int rc = MXFFIFuncCall(mxffi_fuzz::Global("np.empty"), args, 3, &result);
  if (rc == 0) {
    Any r = Any::MoveFromRaw(&result);
    DLDevice got = r.cast<NDArray>().tensor().device;
    if (!want || want->device_type != got.device_type || want->device_id != got.device_id) {
      Fail("np.empty accepted device '" + Show(storage) + "' as (" +
           std::to_string(got.device_type) + ", " + std::to_string(got.device_id) + ")");
    }
    return;
  }
  const char *kind, *message;
  MXFFIErrorGetLast(&kind, &message, nullptr);
  std::string k = kind, m = message;
  mxffi_fuzz::CheckLastError("np.empty");
  if (want && want->device_type == kDLCPU) {
    Fail("np.empty refused device '" + Show(storage) + "': " + k + ": " + m);
  }
  // A well-formed CUDA device on a machine (or a build) without one: RuntimeError saying so.
  if (want && (k != "RuntimeError" || m.find("no CUDA device is available") == std::string::npos)) {
    Fail("np.empty refused cuda device '" + Show(storage) + "' with " + k + ": " + m);
  }
  if (!want && k != "ValueError") {
    Fail("np.empty refused device '" + Show(storage) + "' with " + k + " instead of ValueError");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  bool device = in.ConsumeBool();
  std::string text = in.ConsumeRandomLengthString(48);
  if (device) {
    FuzzDevice(&in, text);
  } else {
    FuzzDType(&in, text);
  }
  return 0;
}
