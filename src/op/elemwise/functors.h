/*!
 * \file functors.h
 * \brief The value functions of add, subtract and multiply, shared by the dense kernels
 *  (binary_op.cc) and the sparse ones (sparse/binary_sparse.cc), so both give numpy's results
 *  bit for bit: integers wrap, bools add as logical or and multiply as logical and.
 */
#ifndef MXFFI_SRC_OP_ELEMWISE_FUNCTORS_H_
#define MXFFI_SRC_OP_ELEMWISE_FUNCTORS_H_

#include <cstdint>
#include <type_traits>

namespace mxffi {
namespace op {
namespace elemwise {

/*! \brief The unsigned type integer arithmetic on T wraps in (at least unsigned int). */
template <typename T>
using Wide = std::make_unsigned_t<decltype(T() + T())>;

/*! \brief Whether T is an integer type other than bool. */
template <typename T>
constexpr bool kIsInt = std::is_integral_v<T> && !std::is_same_v<T, bool>;

/*! \brief x1 + x2 (bools: logical or). Map(a, b) computes in the accumulation type A. */
struct AddOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  static A Map(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) {
      return a || b;  // numpy: add of bools is logical or
    } else if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(a) + static_cast<Wide<A>>(b));
    } else {
      return a + b;
    }
  }
};

/*! \brief x1 - x2 (not for two bools). */
struct SubtractOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return !std::is_same_v<T, bool>;  // a TypeError at type inference
  }
  template <typename A>
  static A Map(A a, A b) {
    if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(a) - static_cast<Wide<A>>(b));
    } else {
      return a - b;
    }
  }
};

/*! \brief x1 * x2 (bools: logical and). */
struct MultiplyOp {
  static constexpr int64_t kCost = 1;
  template <typename T>
  static constexpr bool Valid() {
    return true;
  }
  template <typename A>
  static A Map(A a, A b) {
    if constexpr (std::is_same_v<A, bool>) {
      return a && b;
    } else if constexpr (kIsInt<A>) {
      return static_cast<A>(static_cast<Wide<A>>(a) * static_cast<Wide<A>>(b));
    } else {
      return a * b;
    }
  }
};

}  // namespace elemwise
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_ELEMWISE_FUNCTORS_H_
