// Helpers for the op tests: small arrays from values and back, and ops run with string
// parameters as generic invocation runs them.
#ifndef MXFFI_TESTS_CPP_OP_TEST_UTIL_H_
#define MXFFI_TESTS_CPP_OP_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <mxffi/op/op.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mxffi_test {

constexpr DLDevice kCPU{kDLCPU, 0};
constexpr DLDataType kF64{kDLFloat, 64, 1};
constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI8{kDLInt, 8, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};
constexpr DLDataType kI64{kDLInt, 64, 1};
constexpr DLDataType kU8{kDLUInt, 8, 1};
constexpr DLDataType kBool{kDLBool, 8, 1};

/*! \brief A CPU array of the given shape and dtype holding values (T matches the dtype). */
template <typename T>
mxffi::NDArray Make(std::vector<int64_t> shape, DLDataType dtype, const std::vector<T>& values) {
  mxffi::NDArray a = mxffi::NDArray::Empty(shape, dtype, kCPU);
  EXPECT_EQ(static_cast<size_t>(a.numel()), values.size());
  std::memcpy(a.data(), values.data(), values.size() * sizeof(T));
  return a;
}

/*! \brief The elements of a contiguous array as T. */
template <typename T>
std::vector<T> Values(const mxffi::NDArray& a) {
  const T* p = static_cast<const T*>(a.data());
  return std::vector<T>(p, p + a.numel());
}

/*! \brief Invoke op with "name=value" parameters, as generic invocation does. */
inline mxffi::NDArray RunOp(const char* op, std::vector<mxffi::NDArray> in,
                            std::vector<std::pair<std::string, std::string>> kwargs = {}) {
  mxffi::OpAttrs attrs;
  attrs.op = mxffi::Op::Get(op);
  std::shared_ptr<const void> param;
  const auto* parse = attrs.op->attr<mxffi::FParamParse>("FParamParse");
  if (!kwargs.empty()) EXPECT_NE(parse, nullptr) << op << " takes no parameters";
  if (parse != nullptr) {
    param = (*parse)(kwargs);
    attrs.param = param.get();
  }
  return mxffi::Invoke(attrs, mxffi::Span<const mxffi::NDArray>(in.data(), in.size()));
}

}  // namespace mxffi_test

#endif  // MXFFI_TESTS_CPP_OP_TEST_UTIL_H_
