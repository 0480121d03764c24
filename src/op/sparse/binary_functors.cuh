/*!
 * \file binary_functors.cuh
 * \brief add, subtract and multiply of two values on the device, with the semantics of the CPU
 *  ops' functions (src/op/elemwise/functors.h), so a GPU kernel gives the CPU kernel's bits:
 *  integers wrap (computed in the unsigned type of their promotion), bools add as logical or and
 *  multiply as logical and, the 16-bit floats compute in float32 (AccT) and round on store.
 *  nvcc only.
 */
#ifndef MXFFI_SRC_OP_SPARSE_BINARY_FUNCTORS_CUH_
#define MXFFI_SRC_OP_SPARSE_BINARY_FUNCTORS_CUH_

#include <type_traits>

#include "op/cuda_kernel.cuh"

namespace mxffi {
namespace cuda {

/*! \brief The three ops of the sparse binary kernels. */
enum class BinaryFn : int { kAdd = 0, kSubtract = 1, kMultiply = 2 };

/*! \brief The unsigned type integer arithmetic on A wraps in (at least unsigned int). */
template <typename A>
using WrapT = std::make_unsigned_t<decltype(A() + A())>;

/*! \brief Whether A is an integer type other than bool. */
template <typename A>
constexpr bool kIsIntegral = std::is_integral_v<A> && !std::is_same_v<A, bool>;

/*! \brief Whether F applies to values of type T (subtract refuses two bools, as numpy does). */
template <BinaryFn F, typename T>
constexpr bool kBinaryValid = !(F == BinaryFn::kSubtract && std::is_same_v<T, bool>);

/*! \return a F b, computed in the accumulation type A. */
template <BinaryFn F, typename A>
__device__ __forceinline__ A BinaryMap(A a, A b) {
  if constexpr (F == BinaryFn::kAdd) {
    if constexpr (std::is_same_v<A, bool>) {
      return a || b;
    } else if constexpr (kIsIntegral<A>) {
      return static_cast<A>(static_cast<WrapT<A>>(a) + static_cast<WrapT<A>>(b));
    } else {
      return a + b;
    }
  } else if constexpr (F == BinaryFn::kSubtract) {
    if constexpr (kIsIntegral<A>) {
      return static_cast<A>(static_cast<WrapT<A>>(a) - static_cast<WrapT<A>>(b));
    } else {
      return a - b;
    }
  } else {
    if constexpr (std::is_same_v<A, bool>) {
      return a && b;
    } else if constexpr (kIsIntegral<A>) {
      return static_cast<A>(static_cast<WrapT<A>>(a) * static_cast<WrapT<A>>(b));
    } else {
      return a * b;
    }
  }
}

/*! \return a F b for two stored T values: widened to AccT<T>, combined, rounded back to T. */
template <BinaryFn F, typename T>
__device__ __forceinline__ T BinaryApply(T a, T b) {
  return FromAcc<T>(BinaryMap<F, AccT<T>>(ToAcc(a), ToAcc(b)));
}

/*! \return a F b where a is absent (its implicit zero) or b is absent; T's zero is +0. */
template <BinaryFn F, typename T>
__device__ __forceinline__ T BinaryWithZero(T present, bool present_first) {
  const AccT<T> zero = AccT<T>(0), v = ToAcc(present);
  return FromAcc<T>(present_first ? BinaryMap<F, AccT<T>>(v, zero)
                                  : BinaryMap<F, AccT<T>>(zero, v));
}

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_BINARY_FUNCTORS_CUH_
