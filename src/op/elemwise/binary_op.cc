/*!
 * \file binary_op.cc
 * \brief The arithmetic binary ops (Group Arith of binary_ops.def: add, subtract, multiply,
 *  true_divide, power, maximum, minimum) with numpy broadcasting: `_npi_<op>` on two arrays
 *  and `_npi_<op>_scalar` / `_npi_r<op>_scalar` on an array and a Python number; the kernels
 *  are binary_op.h's. Also the helpers every group shares (ScalarTensor, AnyNegative).
 */
#include "binary_op.h"

#include <cstring>

namespace mxffi {
namespace op {
namespace elemwise {

/*! \return whether a signed integer tensor t of element type T holds a negative element. */
template <typename T>
bool AnyNegativeAs(const DLTensor& t) {
  if constexpr (kIsInt<T> && std::is_signed_v<T>) {
    // A loop over t's own elements: the "output" operand is a shape-only stand-in.
    DLTensor shape_only = t;
    shape_only.strides = nullptr;
    const DLTensor* ins[1] = {&t};
    const StridedLoop<2> loop(shape_only, ins);
    const T* p = DataPtr<const T>(t);
    const int64_t s = loop.stride[1][loop.ndim - 1];
    bool neg = false;
    loop.ForEachRun(0, NumElements(t), [&](const int64_t* off, int64_t len) {
      for (int64_t i = 0; i < len && !neg; ++i) neg = p[off[1] + i * s] < 0;
    });
    return neg;
  } else {
    return false;
  }
}

bool AnyNegative(const DLTensor& t) {
  if (t.dtype.code != kDLInt) return false;
  bool neg = false;
  MXFFI_TYPE_SWITCH(t.dtype, "np.power", T, { neg = AnyNegativeAs<T>(t); });
  return neg;
}

/*! \brief The number s as a 0-d tensor of dtype (stack storage the caller owns). */
DLTensor ScalarTensor(const ScalarValue& s, DLDataType dtype, uint64_t* storage,
                      const char* fname) {
  static_assert(sizeof(complex<double>) <= 2 * sizeof(uint64_t));
  MXFFI_TYPE_SWITCH_WITH_COMPLEX(dtype, fname, T, {
    T v = s.kind == ScalarKind::kFloat ? ConvertOne<T, double>(s.f) : ConvertOne<T, int64_t>(s.i);
    std::memcpy(storage, &v, sizeof(T));
  });
  DLTensor t{};
  t.data = storage;
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = 0;
  t.dtype = dtype;
  return t;
}

}  // namespace elemwise

#define MXFFI_BINARY_GROUP_Arith MXFFI_ELEMWISE_BINARY
#define MXFFI_BINARY_GROUP_Int(...)
#define MXFFI_BINARY_GROUP_Bool(...)
#include "binary_ops.def"

}  // namespace op
}  // namespace mxffi
