/*!
 * \file dtype.cc
 * \brief The one data type grammar. DataTypeFromString reads what numpy reads as a data type
 *  (type names, character codes with an optional byte-order mark) plus DLPack's lane form
 *  ("float32x4"); DataTypeToString prints the canonical name, which reads back to the same
 *  type. Every dtype= argument given as a string and mxffi.DataType(...) (through the global
 *  ndarray.parse_dtype, behind a Python-side cache) go through it, so one spelling means one
 *  type everywhere.
 */
#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>
#include <mxffi/registry.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "index_dtype.h"

namespace mxffi {
namespace {

struct Entry {
  std::string_view name;
  uint8_t code;
  uint8_t bits;
};

// numpy's platform-dependent names follow the C types they name, as numpy's do.
constexpr uint8_t kIntBits = sizeof(int) * 8;
constexpr uint8_t kLongBits = sizeof(long) * 8;  // NOLINT(runtime/int): numpy's 'l' is C long
constexpr uint8_t kIntpBits = sizeof(void*) * 8;

/*!
 * \brief Type names, which take no byte-order mark (numpy refuses "<float32" too). The first
 *  kNumCanonical are the names DataTypeToString prints, the only ones a lane count may follow;
 *  the names numpy users write most come first, since a dtype= string is read on every call.
 */
constexpr Entry kNames[] = {
    {"float64", kDLFloat, 64},
    {"float32", kDLFloat, 32},
    {"int64", kDLInt, 64},
    {"int32", kDLInt, 32},
    {"bool", kDLBool, 8},
    {"float16", kDLFloat, 16},
    {"bfloat16", kDLBfloat, 16},
    {"int8", kDLInt, 8},
    {"int16", kDLInt, 16},
    {"uint8", kDLUInt, 8},
    {"uint16", kDLUInt, 16},
    {"uint32", kDLUInt, 32},
    {"uint64", kDLUInt, 64},
    {"complex64", kDLComplex, 64},
    {"complex128", kDLComplex, 128},
    // numpy's other names (numpy 2: "int" and "int_" are intp, "long" is C long).
    {"float", kDLFloat, 64},
    {"int", kDLInt, kIntpBits},
    {"complex", kDLComplex, 128},
    {"uint", kDLUInt, kIntpBits},
    {"double", kDLFloat, 64},
    {"single", kDLFloat, 32},
    {"half", kDLFloat, 16},
    {"bool_", kDLBool, 8},
    {"int_", kDLInt, kIntpBits},
    {"intp", kDLInt, kIntpBits},
    {"uintp", kDLUInt, kIntpBits},
    {"byte", kDLInt, 8},
    {"ubyte", kDLUInt, 8},
    {"short", kDLInt, 16},
    {"ushort", kDLUInt, 16},
    {"intc", kDLInt, kIntBits},
    {"uintc", kDLUInt, kIntBits},
    {"long", kDLInt, kLongBits},
    {"ulong", kDLUInt, kLongBits},
    {"longlong", kDLInt, 64},
    {"ulonglong", kDLUInt, 64},
    {"csingle", kDLComplex, 64},
    {"cdouble", kDLComplex, 128},
};
constexpr size_t kNumCanonical = 15;

/*! \brief numpy's character codes, sized ("f4") and single ("f"); a byte-order mark may precede. */
constexpr Entry kCodes[] = {
    {"f8", kDLFloat, 64},     {"f4", kDLFloat, 32},      {"i8", kDLInt, 64},
    {"i4", kDLInt, 32},       {"?", kDLBool, 8},         {"b1", kDLBool, 8},
    {"f2", kDLFloat, 16},     {"i1", kDLInt, 8},         {"i2", kDLInt, 16},
    {"u1", kDLUInt, 8},       {"u2", kDLUInt, 16},       {"u4", kDLUInt, 32},
    {"u8", kDLUInt, 64},      {"c8", kDLComplex, 64},    {"c16", kDLComplex, 128},
    {"b", kDLInt, 8},         {"B", kDLUInt, 8},         {"h", kDLInt, 16},
    {"H", kDLUInt, 16},       {"i", kDLInt, kIntBits},   {"I", kDLUInt, kIntBits},
    {"l", kDLInt, kLongBits}, {"L", kDLUInt, kLongBits}, {"q", kDLInt, 64},
    {"Q", kDLUInt, 64},       {"p", kDLInt, kIntpBits},  {"P", kDLUInt, kIntpBits},
    {"n", kDLInt, kIntpBits}, {"N", kDLUInt, kIntpBits}, {"e", kDLFloat, 16},
    {"f", kDLFloat, 32},      {"d", kDLFloat, 64},       {"F", kDLComplex, 64},
    {"D", kDLComplex, 128},
};

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
constexpr char kForeignOrder = '<';
constexpr const char* kNativeOrderName = "big-endian";
#else
constexpr char kForeignOrder = '>';
constexpr const char* kNativeOrderName = "little-endian";
#endif

constexpr const char* kSupported =
    "bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, "
    "float64, complex64 and complex128";

const Entry* Find(const Entry* begin, const Entry* end, std::string_view name) {
  for (const Entry* e = begin; e != end; ++e) {
    if (e->name == name) return e;
  }
  return nullptr;
}

bool AllDigits(std::string_view s) {
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

/*!
 * \return what numpy would make of s (byte-order mark removed) when it names a type mxffi has
 *  no arrays of ("a numpy str dtype"), or nullptr.
 */
const char* UnsupportedKind(std::string_view s, bool marked) {
  static constexpr std::string_view kLongDouble[] = {"g", "G", "f16", "f12", "c32", "c24"};
  for (std::string_view c : kLongDouble) {
    if (s == c) return "numpy's long double (extended precision)";
  }
  if (!marked) {
    static constexpr std::pair<std::string_view, const char*> kNamed[] = {
        {"longdouble", "numpy's long double (extended precision)"},
        {"clongdouble", "numpy's complex long double (extended precision)"},
        {"float128", "numpy's long double (extended precision)"},
        {"float96", "numpy's long double (extended precision)"},
        {"complex256", "numpy's complex long double (extended precision)"},
        {"complex192", "numpy's complex long double (extended precision)"},
        {"str", "a numpy str dtype"},
        {"str_", "a numpy str dtype"},
        {"bytes", "a numpy bytes dtype"},
        {"bytes_", "a numpy bytes dtype"},
        {"object", "a numpy object dtype"},
        {"object_", "a numpy object dtype"},
        {"void", "a numpy void (raw or structured) dtype"},
    };
    for (const auto& [name, what] : kNamed) {
      if (s == name) return what;
    }
    for (std::string_view t : {std::string_view("datetime64"), std::string_view("timedelta64")}) {
      if (s.substr(0, t.size()) == t && (s.size() == t.size() || s[t.size()] == '[')) {
        return t[0] == 'd' ? "a numpy datetime64 dtype" : "a numpy timedelta64 dtype";
      }
    }
  }
  if (s.empty()) return nullptr;
  std::string_view rest = s.substr(1);
  switch (s[0]) {
    case 'U':
      return AllDigits(rest) ? "a numpy str dtype" : nullptr;
    case 'S':
    case 'a':
      return AllDigits(rest) ? "a numpy bytes dtype" : nullptr;
    case 'c':
      return rest.empty() ? "a numpy bytes dtype" : nullptr;
    case 'O':
      return AllDigits(rest) ? "a numpy object dtype" : nullptr;
    case 'V':
      return AllDigits(rest) ? "a numpy void (raw or structured) dtype" : nullptr;
    case 'M':
    case 'm':
      if (!rest.empty() && rest[0] == '8') rest.remove_prefix(1);
      if (rest.empty() || (rest.front() == '[' && rest.back() == ']')) {
        return s[0] == 'M' ? "a numpy datetime64 dtype" : "a numpy timedelta64 dtype";
      }
      return nullptr;
    default:
      return nullptr;
  }
}

/*! \return text for an error message: at most 64 bytes, never cut inside a UTF-8 sequence. */
std::string_view Shown(std::string_view text, bool* cut) {
  *cut = text.size() > 64;
  if (!*cut) return text;
  size_t n = 64;
  while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;
  return text.substr(0, n);
}

[[noreturn]] void Refuse(std::string_view text, const char* fname, const std::string& why) {
  bool cut;
  std::string_view shown = Shown(text, &cut);
  MXFFI_THROW(TypeError) << fname << ": data type '" << shown << (cut ? "...'" : "'") << why;
  __builtin_unreachable();
}

}  // namespace

std::string DeviceToString(DLDevice device) {
  const char* type = device.device_type == kDLCPU    ? "cpu"
                     : device.device_type == kDLCUDA ? "cuda"
                                                     : nullptr;
  return (type != nullptr ? std::string(type)
                          : "device type " + std::to_string(device.device_type)) +
         ":" + std::to_string(device.device_id);
}

std::string DataTypeToString(DLDataType dtype) {
  std::ostringstream os;
  switch (dtype.code) {
    case kDLInt:
      os << "int" << int(dtype.bits);
      break;
    case kDLUInt:
      os << "uint" << int(dtype.bits);
      break;
    case kDLFloat:
      os << "float" << int(dtype.bits);
      break;
    case kDLBfloat:
      os << "bfloat" << int(dtype.bits);
      break;
    case kDLComplex:
      os << "complex" << int(dtype.bits);
      break;
    case kDLOpaqueHandle:
      os << "handle" << int(dtype.bits);
      break;
    default:
      if (dtype.code == kDLBool && dtype.bits == 8) {
        os << "bool";
      } else {
        os << "code" << int(dtype.code) << "_" << int(dtype.bits);
      }
  }
  if (dtype.lanes != 1) os << "x" << dtype.lanes;
  return os.str();
}

DLDataType DataTypeFromString(std::string_view text, const char* fname) {
  constexpr const Entry* kNamesEnd = kNames + sizeof(kNames) / sizeof(kNames[0]);
  constexpr const Entry* kCodesEnd = kCodes + sizeof(kCodes) / sizeof(kCodes[0]);
  if (const Entry* e = Find(kNames, kNamesEnd, text)) return DLDataType{e->code, e->bits, 1};
  // A character code, after at most one byte-order mark.
  std::string_view code = text;
  char mark = 0;
  if (!code.empty() && (code[0] == '<' || code[0] == '>' || code[0] == '=' || code[0] == '|')) {
    mark = code[0];
    code.remove_prefix(1);
  }
  if (const Entry* e = Find(kCodes, kCodesEnd, code)) {
    // One byte has no byte order: numpy reads ">i1" as int8 too.
    if (mark == kForeignOrder && e->bits > 8) {
      Refuse(text, fname,
             std::string(" has ") + (mark == '>' ? "big" : "little") +
                 "-endian byte order; mxffi arrays hold native (" + kNativeOrderName +
                 ") data only");
    }
    return DLDataType{e->code, e->bits, 1};
  }
  // DLPack's lane form: a canonical name, 'x', the lane count.
  size_t x = text.rfind('x');
  if (x != std::string_view::npos && x + 1 < text.size() && AllDigits(text.substr(x + 1))) {
    if (const Entry* e = Find(kNames, kNames + kNumCanonical, text.substr(0, x))) {
      std::string_view digits = text.substr(x + 1);
      uint64_t lanes = 0;
      for (char c : digits.substr(0, 10)) lanes = lanes * 10 + static_cast<uint64_t>(c - '0');
      if (digits.size() > 10 || lanes < 1 || lanes > 65535) {
        Refuse(text, fname, " has a lane count out of range; expected 1 to 65535 lanes");
      }
      return DLDataType{e->code, e->bits, static_cast<uint16_t>(lanes)};
    }
  }
  if (const char* what = UnsupportedKind(code, mark != 0)) {
    Refuse(text, fname,
           std::string(" is ") + what + ", which mxffi does not support; its data types are " +
               kSupported);
  }
  Refuse(text, fname,
         " not understood; expected a numpy type name or character code ('float32', 'int', "
         "'f4', '<i8'), 'bfloat16', or a DLPack lane form ('float32x4')");
}

MXFFI_REGISTER_API("ndarray.parse_dtype")
    .describe(
        "The data type text names, read by the grammar every dtype= argument uses (numpy's "
        "names, character codes and byte-order marks, 'bfloat16', DLPack lane forms); a "
        "TypeError naming caller and the text when it names none mxffi supports.")
    .arg("text")
    .arg("caller", std::string("mxffi.DataType"))
    .set_body_typed([](std::string_view text, std::string_view caller) {
      return DataTypeFromString(text, std::string(caller).c_str());
    });

void ThrowBadIndexDType(const char* fname, DLDataType dtype) {
  MXFFI_THROW(TypeError) << fname << ": index arrays must be int32 or int64, got "
                         << DataTypeToString(dtype);
}

}  // namespace mxffi
