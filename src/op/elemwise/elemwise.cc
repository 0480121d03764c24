/*!
 * \file elemwise.cc
 * \brief numpy's broadcasting, ufunc type resolution and same_kind casting for the elementwise
 *  ops; the Python-scalar parameter type.
 */
#include "elemwise.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

#include "functors.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(BinaryScalarParam);

const char* BinaryName(BinaryKind kind) {
  switch (kind) {
#define MXFFI_BINARY_OP(Kind, Stem, Name, Functor, Side, Group, Doc) \
  case BinaryKind::k##Kind:                                          \
    return Name;
#include "binary_ops.def"
  }
  return "np.<binary>";
}

bool IsComparison(BinaryKind kind) {
  switch (kind) {
    case BinaryKind::kEqual:
    case BinaryKind::kNotEqual:
    case BinaryKind::kLess:
    case BinaryKind::kLessEqual:
    case BinaryKind::kGreater:
    case BinaryKind::kGreaterEqual:
      return true;
    default:
      return false;
  }
}

bool IsBoolResult(BinaryKind kind) {
  return IsComparison(kind) || kind == BinaryKind::kLogicalAnd || kind == BinaryKind::kLogicalOr ||
         kind == BinaryKind::kLogicalXor;
}

bool IsBoolResult(UnaryKind kind) {
  switch (kind) {
#define MXFFI_UNARY_OP(Kind, OpName, Name, Functor, Doc)             \
  case UnaryKind::k##Kind:                                           \
    return elemwise::Functor::kRule == elemwise::UnaryRule::kBool || \
           elemwise::Functor::kRule == elemwise::UnaryRule::kPredicate;
#include "unary_ops.def"
  }
  return false;
}

const char* UnaryName(UnaryKind kind) {
  switch (kind) {
#define MXFFI_UNARY_OP(Kind, OpName, Name, Functor, Doc) \
  case UnaryKind::k##Kind:                               \
    return Name;
#include "unary_ops.def"
  }
  return "np.<unary>";
}

namespace {

/*!
 * \return whether the binary op computes complex numbers: its functor's complex loop, or the
 *  logical ops, which read any input as x != 0.
 */
bool BinaryTakesComplex(BinaryKind kind) {
  switch (kind) {
#define MXFFI_BINARY_OP(Kind, Stem, Name, Functor, Side, Group, Doc) \
  case BinaryKind::k##Kind:                                          \
    return elemwise::Functor::template Valid<complex<float>>() ||    \
           std::is_base_of_v<elemwise::LogicalBinary, elemwise::Functor>;
#include "binary_ops.def"
  }
  return false;
}

/*! \brief TypeError "<fname>: unsupported dtype complex64" unless kind computes complex r. */
void CheckComplexLoop(BinaryKind kind, DLDataType r) {
  if (r.code == kDLComplex && !BinaryTakesComplex(kind)) ThrowUnsupportedDType(BinaryName(kind), r);
}

constexpr DLDataType kBoolT{kDLBool, 8, 1};
constexpr DLDataType kInt8T{kDLInt, 8, 1};
constexpr DLDataType kFloat16T{kDLFloat, 16, 1};
constexpr DLDataType kFloat32T{kDLFloat, 32, 1};
constexpr DLDataType kFloat64T{kDLFloat, 64, 1};

constexpr DLDataType kInt64T{kDLInt, 64, 1};
constexpr DLDataType kUInt64T{kDLUInt, 64, 1};

/*!
 * \brief Whether numpy has a loop of op kind for inputs promoting to r: the bitwise ops take
 *  integers and bools, the shifts integers (bools compute in int8), so a float r has none.
 */
bool HasLoop(BinaryKind kind, DLDataType r) {
  switch (kind) {
    case BinaryKind::kBitwiseAnd:
    case BinaryKind::kBitwiseOr:
    case BinaryKind::kBitwiseXor:
    case BinaryKind::kLeftShift:
    case BinaryKind::kRightShift:
      return !IsFloating(r);
    default:
      return true;
  }
}

/*! \brief TypeError: no loop of op kind for the inputs (described), which promote to r. */
[[noreturn]] void ThrowNoLoop(BinaryKind kind, DLDataType r, const std::string& inputs) {
  const bool shift = kind == BinaryKind::kLeftShift || kind == BinaryKind::kRightShift;
  MXFFI_THROW(TypeError) << BinaryName(kind) << ": not supported for the input types " << inputs
                         << ", which promote to " << DataTypeToString(r) << "; expected "
                         << (shift ? "integers" : "integers or bools");
}

/*!
 * \return the first float dtype numpy's float-only loops (e, f, d) take d in safely: d itself
 *  for a float, float16 for bool and 8-bit integers, float32 for 16-bit ones, else float64.
 */
DLDataType SmallestFloat(DLDataType d) {
  if (IsFloating(d)) return d;
  if (d.code == kDLBool || d.bits == 8) return kFloat16T;
  return d.bits == 16 ? kFloat32T : kFloat64T;
}

/*! \return whether numpy has float loops only for op kind (atan2, hypot, ...). */
bool IsFloatLoopOnly(BinaryKind kind) {
  return kind == BinaryKind::kAtan2 || kind == BinaryKind::kHypot ||
         kind == BinaryKind::kCopysign || kind == BinaryKind::kLogaddexp ||
         kind == BinaryKind::kNextafter;
}

/*! \brief The op rules numpy's ufuncs add on top of plain promotion (r = the promoted dtype). */
DLDataType ApplyOpRule(BinaryKind kind, DLDataType r) {
  if (IsBoolResult(kind)) return kBoolT;
  switch (kind) {
    case BinaryKind::kSubtract:
      MXFFI_CHECK(r.code != kDLBool, TypeError)
          << "np.subtract: boolean subtract, the `-` operator, is not supported; use "
             "np.logical_xor (or the `^` operator) instead";
      return r;
    case BinaryKind::kDivide:
      return IsFloating(r) || r.code == kDLComplex ? r : kFloat64T;
    case BinaryKind::kAtan2:
    case BinaryKind::kHypot:
    case BinaryKind::kCopysign:
    case BinaryKind::kLogaddexp:
      return SmallestFloat(r);
    case BinaryKind::kNextafter:
      r = SmallestFloat(r);
      MXFFI_CHECK(r.bits >= 32, TypeError)
          << "np.nextafter: no loop computes a " << DataTypeToString(r)
          << " result; the next float is computed in float32 and float64 only";
      return r;
    case BinaryKind::kPower:
    case BinaryKind::kFloorDivide:
    case BinaryKind::kRemainder:
    case BinaryKind::kLeftShift:
    case BinaryKind::kRightShift:
      return r.code == kDLBool ? kInt8T : r;
    default:
      return r;
  }
}

/*!
 * \return numpy's ufunc promotion of two array dtypes: numpy.result_type, and for bfloat16
 *  with a dtype it has no common type with, the float32/float64 loop numpy's ufuncs run.
 */
DLDataType PromoteForUfunc(DLDataType a, DLDataType b, const char* fname) {
  if (a.code == kDLComplex || b.code == kDLComplex) {
    // Complex with any dtype (bfloat16 included): numpy.result_type's table.
    const int ra = DTypeRuleIndex(a), rb = DTypeRuleIndex(b);
    MXFFI_CHECK(ra >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(a);
    MXFFI_CHECK(rb >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(b);
    return DTypeAt(PromoteIndex(ra, rb));
  }
  int ia = DTypeIndex(a), ib = DTypeIndex(b);
  MXFFI_CHECK(ia >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(a);
  MXFFI_CHECK(ib >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(b);
  const bool a_bf = a.code == kDLBfloat, b_bf = b.code == kDLBfloat;
  if (a_bf != b_bf) {
    // numpy.result_type finds no common dtype for bfloat16 with int16..uint64 or float16, yet
    // numpy's ufuncs run those in float32/float64: promote the other side with float32 instead
    // (bfloat16's own pairs, int8/uint8/bool, give bfloat16 either way).
    DLDataType other = a_bf ? b : a;
    int io = DTypeIndex(other);
    bool with_bf16 = io <= 1 || io == 5;  // bool, int8, uint8
    return with_bf16 ? DLDataType{kDLBfloat, 16, 1} : PromoteTypes(kFloat32T, other, fname);
  }
  return PromoteTypes(a, b, fname);
}

const char* ScalarKindName(ScalarKind kind) {
  return kind == ScalarKind::kBool  ? "a Python bool"
         : kind == ScalarKind::kInt ? "a Python int"
                                    : "a Python float";
}

}  // namespace

DLDataType BinaryResultType(BinaryKind kind, DLDataType a, DLDataType b) {
  if (a.code == kDLComplex || b.code == kDLComplex) {
    const DLDataType r = PromoteForUfunc(a, b, BinaryName(kind));
    CheckComplexLoop(kind, r);
    return ApplyOpRule(kind, r);
  }
  if (IsFloatLoopOnly(kind)) {
    // Each input goes to its own smallest float first: int16 with uint16 computes in float32
    // (numpy's ff->f loop), not in the float64 their int32 promotion would give.
    const char* fname = BinaryName(kind);
    MXFFI_CHECK(DTypeIndex(a) >= 0, TypeError)
        << fname << ": unsupported dtype " << DataTypeToString(a);
    MXFFI_CHECK(DTypeIndex(b) >= 0, TypeError)
        << fname << ": unsupported dtype " << DataTypeToString(b);
    return ApplyOpRule(kind, PromoteForUfunc(SmallestFloat(a), SmallestFloat(b), fname));
  }
  const DLDataType r = PromoteForUfunc(a, b, BinaryName(kind));
  if (!HasLoop(kind, r)) ThrowNoLoop(kind, r, DataTypeToString(a) + " and " + DataTypeToString(b));
  return ApplyOpRule(kind, r);
}

CompareLoop CompareLoopType(BinaryKind kind, DLDataType a, DLDataType b) {
  CompareLoop loop;
  loop.dtype = PromoteForUfunc(a, b, BinaryName(kind));
  CheckComplexLoop(kind, loop.dtype);
  if (a.code == kDLInt && b.code == kDLUInt && b.bits == 64) {
    loop = CompareLoop{kInt64T, 1};
  } else if (a.code == kDLUInt && a.bits == 64 && b.code == kDLInt) {
    loop = CompareLoop{kInt64T, 2};
  }
  return loop;
}

bool CanCastSameKind(DLDataType from, DLDataType to) {
  const int i = DTypeRuleIndex(from), j = DTypeRuleIndex(to);  // complex types included
  return i >= 0 && j >= 0 && CanCastIndex(i, j, Casting::kSameKind);
}

bool IntFits(int64_t v, DLDataType dtype) {
  const int bits = dtype.bits;
  if (dtype.code == kDLInt) {
    return bits >= 64 || (v >= -(int64_t{1} << (bits - 1)) && v < (int64_t{1} << (bits - 1)));
  }
  if (dtype.code == kDLUInt) return v >= 0 && (bits >= 64 || v < (int64_t{1} << bits));
  return true;
}

void CheckIntFits(int64_t v, DLDataType dtype, const char* fname) {
  MXFFI_CHECK(IntFits(v, dtype), OverflowError)
      << fname << ": Python integer " << v << " out of bounds for " << DataTypeToString(dtype);
}

DLDataType ScalarResultType(BinaryKind kind, DLDataType a, const ScalarValue& s) {
  const char* fname = BinaryName(kind);
  MXFFI_CHECK(DTypeRuleIndex(a) >= 0, TypeError)
      << fname << ": unsupported dtype " << DataTypeToString(a);
  DLDataType r = PromoteWithScalar(a, s.kind);
  if (r.code == kDLComplex) {
    CheckComplexLoop(kind, r);
    return ApplyOpRule(kind, r);
  }
  if (!HasLoop(kind, r))
    ThrowNoLoop(kind, r, DataTypeToString(a) + " and " + ScalarKindName(s.kind));
  DLDataType out = ApplyOpRule(kind, r);
  // The number is converted to the loop's dtype; an int that does not fit an integer loop is
  // numpy 2's OverflowError (divide of an integer array computes in float64: no check; the
  // comparisons and logical ops give bool and compare such an int exactly: no check).
  if (s.kind == ScalarKind::kInt && IsIntegral(out)) CheckIntFits(s.i, out, fname);
  return out;
}

CompareLoop CompareScalarLoopType(BinaryKind kind, DLDataType a, const ScalarValue& s,
                                  bool reverse) {
  MXFFI_CHECK(DTypeRuleIndex(a) >= 0, TypeError)
      << BinaryName(kind) << ": unsupported dtype " << DataTypeToString(a);
  if (a.code == kDLComplex) {
    CheckComplexLoop(kind, a);
    return CompareLoop{a, 0};
  }
  if (s.kind == ScalarKind::kInt && IsIntegral(a) && !IntFits(s.i, a)) {
    if (a.code == kDLInt) return CompareLoop{kInt64T, 0};  // every int64 compares exactly
    if (s.i >= 0) return CompareLoop{kUInt64T, 0};
    return CompareLoop{kInt64T, reverse ? 1 : 2};  // a negative int with unsigned elements
  }
  return CompareLoop{PromoteWithScalar(a, s.kind), 0};
}

DLDataType UnaryResultType(UnaryKind kind, DLDataType a) {
  const char* fname = UnaryName(kind);
  elemwise::UnaryRule rule = elemwise::UnaryRule::kSame;
  bool takes_complex = false;
  switch (kind) {
#define MXFFI_UNARY_OP(Kind, OpName, Name, Functor, Doc)                    \
  case UnaryKind::k##Kind:                                                  \
    rule = elemwise::Functor::kRule;                                        \
    takes_complex = elemwise::Functor::template Valid<complex<float>>() ||  \
                    elemwise::Functor::kRule == elemwise::UnaryRule::kBool; \
    break;
#include "unary_ops.def"
  }
  if (a.code == kDLComplex && DTypeRuleIndex(a) >= 0) {
    // The complex loops: a bool for the predicates and logical_not, |z| in the real dtype of
    // the parts for absolute, the input's complex dtype for the others.
    if (!takes_complex) ThrowUnsupportedDType(fname, a);
    if (rule == elemwise::UnaryRule::kBool || rule == elemwise::UnaryRule::kPredicate) {
      return kBoolT;
    }
    if (kind == UnaryKind::kAbsolute)
      return DLDataType{kDLFloat, static_cast<uint8_t>(a.bits / 2), 1};
    return a;
  }
  MXFFI_CHECK(DTypeIndex(a) >= 0, TypeError)
      << fname << ": unsupported dtype " << DataTypeToString(a);
  switch (rule) {
    case elemwise::UnaryRule::kSame:
      return a;
    case elemwise::UnaryRule::kNoBool:
      if (a.code == kDLBool) {
        if (kind == UnaryKind::kNegative) {
          MXFFI_THROW(TypeError)
              << "np.negative: boolean negative, the `-` operator, is not supported; use "
                 "np.logical_not (or the `~` operator) instead";
        }
        MXFFI_THROW(TypeError) << fname
                               << ": no loop for a bool input (numpy has none); cast it to an "
                                  "integer first";
      }
      return a;
    case elemwise::UnaryRule::kRound:
      return a.code == kDLBool ? kFloat16T : a;
    case elemwise::UnaryRule::kSquare:
      return a.code == kDLBool ? kInt8T : a;
    case elemwise::UnaryRule::kFloat:
      if (IsFloating(a)) return a;
      if (a.code == kDLBool || a.bits == 8) return kFloat16T;
      return a.bits == 16 ? kFloat32T : kFloat64T;
    case elemwise::UnaryRule::kInteger:
      MXFFI_CHECK(!IsFloating(a), TypeError)
          << fname << ": not supported for the input type " << DataTypeToString(a)
          << "; expected integers or bools";
      return a;
    case elemwise::UnaryRule::kBool:
    case elemwise::UnaryRule::kPredicate:
      return kBoolT;
  }
  return a;
}

std::string NumpyShapeString(const TShape& shape) {
  std::string s = "(";
  for (int i = 0; i < shape.ndim(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  if (shape.ndim() == 1) s += ',';
  return s + ')';
}

void BroadcastShapes(const TShape& a, const TShape& b, TShape* out, const char* fname) {
  const int nd = std::max(a.ndim(), b.ndim());
  out->resize(nd);
  for (int i = 0; i < nd; ++i) {
    const int ia = i - (nd - a.ndim()), ib = i - (nd - b.ndim());
    const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da == db || db == 1) {
      (*out)[i] = da;
    } else if (da == 1) {
      (*out)[i] = db;
    } else {
      MXFFI_THROW(ValueError) << fname << ": operands could not be broadcast together with shapes "
                              << NumpyShapeString(a) << " " << NumpyShapeString(b);
    }
  }
}

std::istream& operator>>(std::istream& is, ScalarValue& v) {
  std::string text;
  is >> text;
  if (text == "True" || text == "true") {
    v = ScalarValue::Bool(true);
    return is;
  }
  if (text == "False" || text == "false") {
    v = ScalarValue::Bool(false);
    return is;
  }
  if (text.empty()) {
    is.setstate(std::ios::failbit);
    return is;
  }
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  long long i = std::strtoll(begin, &end, 10);  // NOLINT(runtime/int)
  if (*end == '\0' && errno == 0) {
    v = ScalarValue::Int(static_cast<int64_t>(i));
    return is;
  }
  errno = 0;
  double f = std::strtod(begin, &end);
  if (*end == '\0' && end != begin) {
    v = ScalarValue::Float(f);
    return is;
  }
  is.setstate(std::ios::failbit);
  return is;
}

std::ostream& operator<<(std::ostream& os, const ScalarValue& v) {
  switch (v.kind) {
    case ScalarKind::kBool:
      return os << (v.i ? "True" : "False");
    case ScalarKind::kInt:
      return os << v.i;
    case ScalarKind::kFloat: {
      std::ostringstream s;
      s.precision(17);
      s << v.f;
      std::string t = s.str();
      // Keep it a float when read back: "2" would come back as an int.
      if (std::isfinite(v.f) && t.find_first_of(".eE") == std::string::npos) t += ".0";
      return os << t;
    }
  }
  return os;
}

}  // namespace op
}  // namespace mxffi
