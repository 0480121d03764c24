/*!
 * \file np_dtype.cc
 * \brief The data type functions of the array API: np.result_type, np.can_cast and np.isdtype,
 *  on the type-rule tables the ops promote and cast with (src/op/promote.h).
 */
#include <mxffi/registry.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../op/dtype.h"
#include "../op/promote.h"
#include "api_util.h"

namespace mxffi {
namespace api {

/*! \brief A data type, or an array standing for its data type (can_cast's from_). */
class DTypeOrArray {
 public:
  DLDataType value() const { return dtype_; }

 private:
  DLDataType dtype_{kDLFloat, 64, 1};
  friend struct TypeTraits<DTypeOrArray>;
};

/*!
 * \brief isdtype's kind: a DataType, a kind name ("bool", "signed integer", "unsigned integer",
 *  "integral", "real floating", "complex floating", "numeric"), or a tuple of them.
 */
class DTypeKind {
 public:
  /*! \brief One entry: a data type, or a kind name (dtype unused). */
  struct Entry {
    DLDataType dtype;
    std::string name;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
  friend struct TypeTraits<DTypeKind>;
};

}  // namespace api

template <>
struct TypeTraits<api::DTypeOrArray>
    : details::ConvertArgTraits<api::DTypeOrArray, TypeTraits<api::DTypeOrArray>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx,
                         api::DTypeOrArray* out) {
    std::string_view text;
    NDArrayLike array;
    if (src->type_index == kMXFFIDataType && src->v_dtype.lanes != 0) {
      out->dtype_ = src->v_dtype;
    } else if (details::CellStrView(src, &text)) {
      if (ctx == nullptr) return false;
      out->dtype_ = DataTypeFromString(text, ctx->label());
    } else if (details::ReadArray(src, &array)) {
      out->dtype_ = array->tensor().dtype;
    } else {
      return false;
    }
    return true;
  }
  static void CopyToAnyView(const api::DTypeOrArray& v, MXFFIAny* out) {
    TypeTraits<DLDataType>::CopyToAnyView(v.value(), out);
  }
  static void MoveToAny(const api::DTypeOrArray& v, MXFFIAny* out) { CopyToAnyView(v, out); }
  static std::string TypeStr() { return "DTypeOrArray"; }
  static std::string TypeDesc() { return "a data type or an array"; }
};

template <>
struct TypeTraits<api::DTypeKind>
    : details::ConvertArgTraits<api::DTypeKind, TypeTraits<api::DTypeKind>> {
  static bool ReadEntry(const MXFFIAny* src, api::DTypeKind::Entry* out) {
    if (src->type_index == kMXFFIDataType) {
      *out = {src->v_dtype, {}};
      return true;
    }
    std::string_view text;
    if (!details::CellStrView(src, &text)) return false;
    *out = {DLDataType{0, 0, 0}, std::string(text)};
    return true;
  }
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext*, api::DTypeKind* out) {
    api::DTypeKind::Entry e;
    out->entries_.clear();
    if (ReadEntry(src, &e)) {
      out->entries_.push_back(std::move(e));
      return true;
    }
    if (src->type_index != kMXFFIArray) return false;
    const Array<Any> items = AnyView::FromRaw(src)->cast<Array<Any>>();
    for (int64_t i = 0; i < items.size(); ++i) {
      const Any item = items.at(i);
      if (!ReadEntry(item.raw(), &e)) return false;
      out->entries_.push_back(std::move(e));
    }
    return true;
  }
  static void CopyToAnyView(const api::DTypeKind&, MXFFIAny* out) { details::CellSetNone(out); }
  static void MoveToAny(const api::DTypeKind&, MXFFIAny* out) { details::CellSetNone(out); }
  static std::string TypeStr() { return "DTypeKind"; }
  static std::string TypeDesc() { return "a DataType, a kind name (str) or a tuple of them"; }
};

namespace api {
namespace {

/*! \return the type-rule index of t; TypeError naming fname for a dtype outside the tables. */
int RuleIndex(DLDataType t, const char* fname) {
  const int i = op::DTypeRuleIndex(t);
  MXFFI_CHECK(i >= 0, TypeError) << fname << ": unsupported dtype " << DataTypeToString(t);
  return i;
}

/*!
 * \return the dtype an argument stands for: a data type (a DataType, or a name, whose reading
 *  raises numpy's TypeError for an unknown one) or an array's; nullopt for anything else.
 *  Python numbers are read by the caller.
 */
std::optional<DLDataType> DTypeOfArg(const AnyView& arg, const char* fname) {
  if (arg.type_index() == kMXFFIDataType) return arg.raw()->v_dtype;
  std::string_view text;
  if (details::CellStrView(arg.raw(), &text)) return DataTypeFromString(text, fname);
  if (auto a = arg.try_cast<NDArrayLike>()) return a->array().tensor().dtype;
  return std::nullopt;
}

/*! \brief The kinds of weak (Python) scalars, ordered as NEP 50 lets them raise a dtype. */
enum class WeakKind { kNone, kBool, kInt, kFloat, kComplex };

DLDataType ResultType(PackedArgs args) {
  constexpr const char* fname = "np.result_type";
  MXFFI_CHECK(args.size() > 0, ValueError) << fname << ": at least one array or dtype is required";
  int strong = -1;
  WeakKind weak = WeakKind::kNone;
  for (int i = 0; i < args.size(); ++i) {
    const AnyView& arg = args[i];
    switch (arg.type_index()) {
      case kMXFFIBool:
        weak = std::max(weak, WeakKind::kBool);
        continue;
      case kMXFFIInt:
        weak = std::max(weak, WeakKind::kInt);
        continue;
      case kMXFFIFloat:
        weak = std::max(weak, WeakKind::kFloat);
        continue;
      case kMXFFIComplexView:
      case kMXFFIComplex:
        weak = std::max(weak, WeakKind::kComplex);
        continue;
      default:
        break;
    }
    std::optional<DLDataType> t = DTypeOfArg(arg, fname);
    MXFFI_CHECK(t.has_value(), TypeError)
        << fname << ": argument #" << i
        << " expected an array, a data type or a Python bool, int, float or complex, got "
        << arg.GetTypeName();
    const int j = RuleIndex(*t, fname);
    if (strong < 0) {
      strong = j;
      continue;
    }
    const int r = op::PromoteIndex(strong, j);
    MXFFI_CHECK(r >= 0, TypeError)
        << fname << ": the dtypes " << DataTypeToString(op::DTypeAt(strong)) << " and "
        << DataTypeToString(*t) << " have no common dtype";
    strong = r;
  }
  if (strong < 0) {  // numbers alone: the dtype numpy gives the widest of them
    return weak == WeakKind::kBool    ? DLDataType{kDLBool, 8, 1}
           : weak == WeakKind::kInt   ? DLDataType{kDLInt, 64, 1}
           : weak == WeakKind::kFloat ? DLDataType{kDLFloat, 64, 1}
                                      : DLDataType{kDLComplex, 128, 1};
  }
  const DLDataType t = op::DTypeAt(strong);
  switch (weak) {
    case WeakKind::kNone:
      return t;
    case WeakKind::kBool:
      return op::PromoteWithScalar(t, op::ScalarKind::kBool);
    case WeakKind::kInt:
      return op::PromoteWithScalar(t, op::ScalarKind::kInt);
    case WeakKind::kFloat:
      return op::PromoteWithScalar(t, op::ScalarKind::kFloat);
    case WeakKind::kComplex:
      return op::PromoteWithComplex(t);
  }
  return t;
}

/*! \return whether t is of the kind named ("bool", "signed integer", ...). */
bool IsKind(DLDataType t, std::string_view kind, const char* fname) {
  const bool single = t.lanes == 1;
  const bool sint = single && t.code == kDLInt;
  const bool uint = single && t.code == kDLUInt;
  const bool real = single && (t.code == kDLFloat || t.code == kDLBfloat);
  const bool cplx = single && t.code == kDLComplex;
  if (kind == "bool") return single && t.code == kDLBool;
  if (kind == "signed integer") return sint;
  if (kind == "unsigned integer") return uint;
  if (kind == "integral") return sint || uint;
  if (kind == "real floating") return real;
  if (kind == "complex floating") return cplx;
  if (kind == "numeric") return sint || uint || real || cplx;
  MXFFI_THROW(ValueError) << fname << ": kind '" << kind
                          << "' is not a known kind name; expected 'bool', 'signed integer', "
                             "'unsigned integer', 'integral', 'real floating', 'complex "
                             "floating' or 'numeric'";
}

}  // namespace

MXFFI_REGISTER_API("np.result_type")
    .describe(
        "The dtype numpy's promotion gives its arguments: arrays and data types (strong), and "
        "Python bool, int, float and complex numbers (weak, NEP 50), complex types included.")
    .set_body([](PackedArgs args, Any* ret) { *ret = ResultType(args); });

MXFFI_REGISTER_API("np.can_cast")
    .describe(
        "Whether a cast from from_ (a data type, or an array's) to the data type to may happen "
        "under the casting rule: 'no', 'equiv', 'safe' (the default), 'same_kind' or 'unsafe'. "
        "Python numbers are refused, as numpy 2 does: their dtype depends on the other side.")
    .arg("from_")
    .arg("to")
    .arg("casting", "safe")
    .set_body_typed([](DTypeOrArray from_arg, DTypeLike to_arg, String casting_arg) -> bool {
      constexpr const char* fname = "np.can_cast";
      MXFFI_CHECK(to_arg.has_value(), TypeError)
          << fname << ": argument #1 'to' expected a data type, got None";
      const std::string_view text(casting_arg.data(), casting_arg.size());
      op::Casting casting;
      MXFFI_CHECK(op::ParseCasting(text, &casting), ValueError)
          << fname << ": casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
          << "'unsafe'; got '" << text << "'";
      const DLDataType from = from_arg.value(), to = to_arg.value();
      return op::SameDType(from, to) || casting == op::Casting::kUnsafe ||
             op::CanCastIndex(RuleIndex(from, fname), RuleIndex(to, fname), casting);
    });

MXFFI_REGISTER_API("np.isdtype")
    .describe(
        "Whether the DataType dtype is of kind: a DataType, one of the kind names 'bool', "
        "'signed integer', 'unsigned integer', 'integral', 'real floating', 'complex floating' "
        "and 'numeric', or a tuple of these (any of them). bfloat16 is real floating.")
    .arg("dtype")
    .arg("kind")
    .set_body_typed([](DLDataType dtype, DTypeKind kind) -> bool {
      constexpr const char* fname = "np.isdtype";
      bool any = false;
      for (const DTypeKind::Entry& e : kind.entries()) {
        any = (e.dtype.lanes != 0 ? op::SameDType(dtype, e.dtype) : IsKind(dtype, e.name, fname)) ||
              any;
      }
      return any;
    });

}  // namespace api
}  // namespace mxffi
