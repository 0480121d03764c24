/*!
 * \file arg_types.cc
 * \brief The out-of-line halves of the argument kinds of mxffi/api/arg_types.h: the errors
 *  each check raises, and the conversions too long to inline (device names, nested sequences).
 */
#include <mxffi/api/arg_types.h>
#include <mxffi/function.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "../op/promote.h"

namespace mxffi {
namespace details {
namespace {

/*! \return the digits of text as an int32, or -1 when text is not 1 to 10 decimal digits. */
int64_t ParseDeviceId(std::string_view text) {
  if (text.empty() || text.size() > 10) return -1;
  int64_t id = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return -1;
    id = id * 10 + (c - '0');
  }
  return id <= INT32_MAX ? id : -1;
}

bool ParseDeviceName(std::string_view text, DLDevice* out) {
  const size_t colon = text.find(':');
  const std::string_view kind = text.substr(0, colon);
  int64_t id = 0;
  if (colon != std::string_view::npos) {
    id = ParseDeviceId(text.substr(colon + 1));
    if (id < 0) return false;
  }
  if (kind == "cpu") {
    *out = DLDevice{kDLCPU, static_cast<int32_t>(id)};
    return true;
  }
  if (kind == "cuda" || kind == "gpu") {
    *out = DLDevice{kDLCUDA, static_cast<int32_t>(id)};
    return true;
  }
  return false;
}

/*! \brief One level of a nested sequence; see WalkSequenceArg. */
struct SequenceWalk {
  const ArgContext* ctx;
  TShape shape;
  bool shape_set = false;
  ScalarLike::Kind widest = ScalarLike::Kind::kBool;
  bool has_elements = false;
  /*! \brief The promotion-table index of the arrays' dtypes so far; -1 before the first. */
  int arrays = -1;
  /*! \brief Whether an int past int64 (a kMXFFIUInt64 cell, 2**63 to 2**64 - 1) was seen. */
  bool big_uint = false;

  /*! \return false (without ctx) for a ragged sequence or an element that is no number. */
  bool Walk(const MXFFIAny* v, int depth, TShape* cur) {
    if (v->type_index == kMXFFIArray) {
      const auto* a = reinterpret_cast<const MXFFIArrayObj*>(v->v_obj);
      if (depth >= kMaxNDim) {
        if (ctx == nullptr) return false;
        MXFFI_THROW(ValueError) << *ctx << ": nesting deeper than " << kMaxNDim << " levels";
      }
      cur->resize(depth + 1);
      (*cur)[depth] = a->size;
      // An empty sequence ends its branch: its depth is part of the shape.
      if (a->size == 0) return Leaf(*cur);
      for (int64_t i = 0; i < a->size; ++i) {
        if (!Walk(&a->data[i], depth + 1, cur)) return false;
        cur->resize(depth + 1);
        (*cur)[depth] = a->size;
      }
      return true;
    }
    if (v->type_index == kMXFFINDArray) return WalkArray(v, depth, cur);
    if (v->type_index == kMXFFIUInt64) {
      big_uint = true;
      return Leaf(TShape(cur->data(), depth));
    }
    ScalarLike::Kind kind;
    switch (v->type_index) {
      case kMXFFIBool:
        kind = ScalarLike::Kind::kBool;
        break;
      case kMXFFIInt:
        kind = ScalarLike::Kind::kInt;
        break;
      case kMXFFIFloat:
        kind = ScalarLike::Kind::kFloat;
        break;
      case kMXFFIComplexView:
      case kMXFFIComplex:
        kind = ScalarLike::Kind::kComplex;
        break;
      default:
        if (ctx == nullptr) return false;
        MXFFI_THROW(TypeError) << *ctx << ": cannot make an array element from " << CellTypeName(v)
                               << "; expected numbers, arrays and nested lists of them";
    }
    if (!Leaf(TShape(cur->data(), depth))) return false;
    widest = has_elements ? std::max(widest, kind) : kind;
    has_elements = true;
    return true;
  }

  /*!
   * \brief An array among the elements: the nested sequences of its shape (numpy's reading),
   *  its dtype taking part in the result's as an array's does.
   */
  bool WalkArray(const MXFFIAny* v, int depth, TShape* cur) {
    const NDArray a(ObjectPtr<Object>::CopyFromRaw(ObjectUnsafe::FromHeader(v->v_obj)));
    const DLTensor& t = a.tensor();
    if (a.is_sparse() || depth + t.ndim > kMaxNDim) {
      if (ctx == nullptr) return false;
      MXFFI_CHECK(!a.is_sparse(), TypeError)
          << *ctx << ": cannot make array elements from a " << StorageTypeName(a.stype())
          << " array; convert it with .tostype('default') first";
      MXFFI_THROW(ValueError) << *ctx << ": nesting deeper than " << kMaxNDim << " levels";
    }
    const int j = op::DTypeRuleIndex(t.dtype);
    if (j < 0) {
      if (ctx == nullptr) return false;
      MXFFI_THROW(TypeError) << *ctx << ": cannot make array elements from an array of dtype "
                             << DataTypeToString(t.dtype);
    }
    arrays = arrays < 0 ? j : op::PromoteIndex(arrays, j);
    if (arrays < 0) {
      if (ctx == nullptr) return false;
      MXFFI_THROW(TypeError) << *ctx << ": the arrays among the elements have no common dtype ("
                             << DataTypeToString(t.dtype) << " is one of them)";
    }
    TShape here(cur->data(), depth);
    here.resize(depth + t.ndim);
    for (int k = 0; k < t.ndim; ++k) here[depth + k] = t.shape[k];
    return Leaf(here);
  }

  /*! \return the dtype numpy gives what was walked (ctx names a failure to promote). */
  bool ResultDType(DLDataType* out) const {
    const bool any_numbers = has_elements || big_uint;
    // numpy: ints past int64 alone (or with bools) make uint64; with other ints float64.
    const bool uint_only = big_uint && (!has_elements || widest == ScalarLike::Kind::kBool);
    DLDataType numbers = kFloat64DType;
    if (uint_only) {
      numbers = DLDataType{kDLUInt, 64, 1};
    } else if (has_elements && widest == ScalarLike::Kind::kBool) {
      numbers = DLDataType{kDLBool, 8, 1};
    } else if (has_elements && widest == ScalarLike::Kind::kInt && !big_uint) {
      numbers = DLDataType{kDLInt, 64, 1};
    } else if (has_elements && widest == ScalarLike::Kind::kComplex) {
      numbers = DLDataType{kDLComplex, 128, 1};
    }
    if (arrays < 0) {
      *out = numbers;
      return true;
    }
    if (!any_numbers) {
      *out = op::DTypeAt(arrays);
      return true;
    }
    // numpy reads the numbers next to arrays in a sequence as their default dtypes, not as
    // weak scalars: [float32 array, 1.0] is float64.
    const int r = op::PromoteIndex(arrays, op::DTypeRuleIndex(numbers));
    if (r < 0) {
      if (ctx == nullptr) return false;
      MXFFI_THROW(TypeError) << *ctx << ": the arrays (" << DataTypeToString(op::DTypeAt(arrays))
                             << ") and the numbers (" << DataTypeToString(numbers)
                             << ") among the elements have no common dtype";
    }
    *out = op::DTypeAt(r);
    return true;
  }

  bool Leaf(const TShape& here) {
    if (!shape_set) {
      shape = here;
      shape_set = true;
      return true;
    }
    if (shape == here) return true;
    if (ctx == nullptr) return false;
    MXFFI_THROW(ValueError) << *ctx
                            << ": setting an array element with a sequence. The requested array "
                               "has an inhomogeneous shape; the first element has shape "
                            << shape.ToString();
  }
};

}  // namespace

bool ReadIntTuple(const MXFFIAny* src, const ArgContext* ctx, TShape* out, bool* any_negative) {
  switch (src->type_index) {
    case kMXFFIInt:
      *out = TShape{src->v_int64};
      *any_negative = src->v_int64 < 0;
      return true;
    case kMXFFIArray: {
      const auto* a = reinterpret_cast<const MXFFIArrayObj*>(src->v_obj);
      if (a->size > kMaxNDim) {
        if (ctx == nullptr) return false;
        ThrowTooManyDims(*ctx, a->size);
      }
      out->resize(static_cast<size_t>(a->size));
      int64_t all = 0;
      for (int64_t i = 0; i < a->size; ++i) {
        const MXFFIAny& c = a->data[i];
        if (c.type_index != kMXFFIInt && c.type_index != kMXFFIBool) {
          if (ctx == nullptr) return false;
          ThrowIntTupleElement(*ctx, i, &c);
        }
        (*out)[static_cast<size_t>(i)] = c.v_int64;
        all |= c.v_int64;
      }
      *any_negative = all < 0;
      return true;
    }
    case kMXFFIShape: {
      const auto* s = reinterpret_cast<const MXFFIShapeObj*>(src->v_obj);
      if (s->size > kMaxNDim) {
        if (ctx == nullptr) return false;
        ThrowTooManyDims(*ctx, s->size);
      }
      out->assign(s->data, static_cast<size_t>(s->size));
      int64_t all = 0;
      for (int64_t i = 0; i < s->size; ++i) all |= s->data[i];
      *any_negative = all < 0;
      return true;
    }
    default:
      return false;
  }
}

void ThrowIntTupleElement(const ArgContext& ctx, int64_t i, const MXFFIAny* item) {
  if (item->type_index == kMXFFIUInt64) {
    MXFFI_THROW(OverflowError) << ctx << " element " << i << " value "
                               << static_cast<uint64_t>(item->v_int64) << " does not fit in int64";
  }
  MXFFI_THROW(TypeError) << ctx << " element " << i << " expected an int, got "
                         << CellTypeName(item);
}

void ThrowTooManyDims(const ArgContext& ctx, int64_t n) {
  MXFFI_THROW(ValueError) << ctx << ": maximum supported dimension for an ndarray is " << kMaxNDim
                          << ", found " << n;
}

void ThrowNegativeDim(const ArgContext& ctx, const TShape& shape) {
  MXFFI_THROW(ValueError) << ctx << ": negative dimensions are not allowed; got "
                          << shape.ToString();
}

bool TryParseDType(std::string_view text, DTypeLike* out) {
  try {
    *out = DTypeLike(DataTypeFromString(text, "DTypeLike"));
    return true;
  } catch (const Error&) {
    return false;
  }
}

void ThrowZeroLanes(const ArgContext& ctx) {
  MXFFI_THROW(ValueError) << ctx << ": a data type has at least one lane; got lanes=0";
}

bool ParseDeviceArg(const MXFFIAny* src, const ArgContext* ctx, DLDevice* out) {
  std::string_view text;
  if (CellStrView(src, &text)) {
    if (ParseDeviceName(text, out)) return true;
    if (ctx == nullptr) return false;
    MXFFI_THROW(ValueError) << *ctx << ": unknown device '" << text
                            << "'; expected 'cpu', 'cpu:0', 'cuda' or 'cuda:1'";
  }
  if (src->type_index != kMXFFIArray) return false;
  const auto* a = reinterpret_cast<const MXFFIArrayObj*>(src->v_obj);
  if (a->size == 2 && a->data[0].type_index == kMXFFIInt && a->data[1].type_index == kMXFFIInt) {
    const int64_t type = a->data[0].v_int64, id = a->data[1].v_int64;
    if (type > 0 && type < 64 && id >= 0 && id <= INT32_MAX) {
      *out = DLDevice{static_cast<DLDeviceType>(type), static_cast<int32_t>(id)};
      return true;
    }
  }
  if (ctx == nullptr) return false;
  MXFFI_THROW(ValueError) << *ctx
                          << ": a device pair must be (device_type, device_id) as DLPack gives "
                             "it, e.g. (1, 0); got a sequence of "
                          << a->size;
}

void ThrowUnsupportedDevice(const ArgContext& ctx, DLDevice device) {
  MXFFI_THROW(NotImplementedError) << ctx << ": device type " << device.device_type
                                   << " is not supported; only the CPU (1) and CUDA (2) are";
}

bool ParseStorageTypeArg(std::string_view text, const ArgContext* ctx, StorageType* out) {
  for (StorageType s :
       {StorageType::kDefault, StorageType::kCSR, StorageType::kRowSparse, StorageType::kCOO}) {
    if (text == StorageTypeName(s)) {
      *out = s;
      return true;
    }
  }
  if (ctx == nullptr) return false;
  MXFFI_THROW(ValueError) << *ctx << ": unknown storage type '" << text
                          << "'; expected 'default', 'csr', 'row_sparse' or 'coo'";
}

bool WalkSequenceArg(const MXFFIAny* src, const ArgContext* ctx, TShape* shape, DLDataType* dtype) {
  SequenceWalk walk{ctx};
  TShape cur;
  if (!walk.Walk(src, 0, &cur) || !walk.ResultDType(dtype)) return false;
  *shape = walk.shape;
  return true;
}

void ThrowNotWritable(const ArgContext& ctx, const MXFFIAny* src) {
  if (src->type_index == kMXFFIDLTensorPtr) {
    MXFFI_THROW(TypeError) << ctx << " expected a writable mxffi ndarray, got " << CellTypeName(src)
                           << " (a tensor lent for the call, such as a numpy array, is not "
                              "written through)";
  }
  MXFFI_THROW(ValueError) << ctx << ": the array is read-only; the function writes into it";
}

}  // namespace details
}  // namespace mxffi
