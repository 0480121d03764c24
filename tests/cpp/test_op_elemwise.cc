/*!
 * \file test_op_elemwise.cc
 * \brief The elementwise ops through Invoke, as a C++ caller (or the sparse layer) uses them:
 *  broadcasting, numpy's result dtypes, strided inputs, scalar ops, quadratic's parameters,
 *  where's select.
 */
#include <gtest/gtest.h>
#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "../../src/op/elemwise/quadratic_op.h"
#include "op_test_util.h"
#include "test_util.h"

namespace {

using namespace mxffi_test;  // NOLINT(build/namespaces)
using mxffi::NDArray;
using mxffi::Op;
using mxffi::OpAttrs;
using mxffi::Span;

constexpr DLDataType kU64{kDLUInt, 64, 1};

bool SameType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

NDArray InvokeOp(const char* op, std::vector<NDArray> in, const void* param = nullptr) {
  OpAttrs attrs;
  attrs.op = Op::Get(op);
  attrs.param = param;
  return mxffi::Invoke(attrs, Span<const NDArray>(in.data(), in.size()));
}

TEST(OpElemwise, BinaryOpsAreRegisteredWithTwoNamedInputs) {
  for (const char* name : {"_npi_add", "_npi_subtract", "_npi_multiply", "_npi_true_divide",
                           "_npi_power", "_npi_maximum", "_npi_minimum"}) {
    const Op* op = Op::Get(name);
    EXPECT_EQ(op->num_inputs, 2u) << name;
    ASSERT_EQ(op->arguments.size(), 2u) << name;
    EXPECT_EQ(op->arguments[0].name, "x1");
    EXPECT_FALSE(op->description.empty());
  }
  for (const char* name : {"_npi_add_scalar", "_npi_rsubtract_scalar", "_npi_rpower_scalar",
                           "_npi_rtrue_divide_scalar", "_npi_rmaximum_scalar"}) {
    EXPECT_NE(Op::Get(name)->param_doc.find("scalar : number"), std::string::npos) << name;
  }
}

TEST(OpElemwise, AddBroadcastsRowAgainstColumn) {
  NDArray col = Make<double>({3, 1}, kF64, {0, 10, 20});
  NDArray row = Make<double>({4}, kF64, {1, 2, 3, 4});
  NDArray y = InvokeOp("_npi_add", {col, row});
  ASSERT_EQ(y.tensor().ndim, 2);
  EXPECT_EQ(y.tensor().shape[0], 3);
  EXPECT_EQ(y.tensor().shape[1], 4);
  EXPECT_EQ(Values<double>(y), (std::vector<double>{1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24}));
}

TEST(OpElemwise, IncompatibleShapesNameFunctionAndShapes) {
  NDArray a = NDArray::Empty({2, 3}, kF64, kCPU);
  NDArray b = NDArray::Empty({4}, kF64, kCPU);
  MXFFI_EXPECT_THROW_KIND(InvokeOp("_npi_multiply", {a, b}), "ValueError",
                          "np.multiply: operands could not be broadcast together with shapes "
                          "(2,3) (4,)");
}

TEST(OpElemwise, ResultDTypesAreNumpys) {
  NDArray i8 = Make<int8_t>({2}, kI8, {100, -7});
  NDArray u8 = Make<uint8_t>({2}, kU8, {200, 3});
  NDArray y = InvokeOp("_npi_add", {i8, u8});  // int8 + uint8 -> int16, no wrap
  EXPECT_TRUE(SameType(y.tensor().dtype, DLDataType{kDLInt, 16, 1}));
  EXPECT_EQ(Values<int16_t>(y), (std::vector<int16_t>{300, -4}));
  NDArray d = InvokeOp("_npi_true_divide", {i8, i8});
  EXPECT_TRUE(SameType(d.tensor().dtype, kF64));
  NDArray t = Make<uint8_t>({2}, kBool, {1, 0});
  EXPECT_TRUE(SameType(InvokeOp("_npi_power", {t, t}).tensor().dtype, kI8));
  MXFFI_EXPECT_THROW_KIND(InvokeOp("_npi_subtract", {t, t}), "TypeError", "boolean subtract");
  MXFFI_EXPECT_THROW_KIND(InvokeOp("_npi_negative", {t}), "TypeError", "boolean negative");
  EXPECT_TRUE(SameType(InvokeOp("_npi_sqrt", {u8}).tensor().dtype, DLDataType{kDLFloat, 16, 1}));
}

TEST(OpElemwise, IntegersWrapAndNegativePowersAreRefused) {
  NDArray a = Make<int8_t>({3}, kI8, {127, -128, 2});
  NDArray one = Make<int8_t>({1}, kI8, {1});
  EXPECT_EQ(Values<int8_t>(InvokeOp("_npi_add", {a, one})), (std::vector<int8_t>{-128, -127, 3}));
  EXPECT_EQ(Values<int8_t>(InvokeOp("_npi_negative", {a})), (std::vector<int8_t>{-127, -128, -2}));
  NDArray e = Make<int8_t>({3}, kI8, {7, 2, 7});
  EXPECT_EQ(Values<int8_t>(InvokeOp("_npi_power", {a, e})), (std::vector<int8_t>{127, 0, -128}));
  NDArray neg = Make<int8_t>({3}, kI8, {1, -1, 0});
  MXFFI_EXPECT_THROW_KIND(InvokeOp("_npi_power", {a, neg}), "ValueError",
                          "np.power: Integers to negative integer powers are not allowed.");
}

TEST(OpElemwise, ComparisonsGiveBoolsAndCompareSignedWithUint64Exactly) {
  NDArray s = Make<int64_t>({3}, kI64, {-1, (int64_t{1} << 53) + 1, 7});
  NDArray u = Make<uint64_t>({3}, kU64, {~uint64_t{0}, uint64_t{1} << 53, 7});
  NDArray eq = InvokeOp("_npi_equal", {s, u});
  EXPECT_TRUE(SameType(eq.tensor().dtype, kBool));
  // float64 (numpy.result_type of the two) would call 2**53 + 1 and 2**53 equal
  EXPECT_EQ(Values<bool>(eq), (std::vector<bool>{false, false, true}));
  EXPECT_EQ(Values<bool>(InvokeOp("_npi_less", {u, s})), (std::vector<bool>{false, true, false}));
  // an int out of uint8's range: exact, numpy 2's all-False, not an OverflowError
  NDArray u8 = Make<uint8_t>({2}, kU8, {0, 255});
  EXPECT_EQ(Values<bool>(RunOp("_npi_greater_scalar", {u8}, {{"scalar", "-1"}})),
            (std::vector<bool>{true, true}));
  EXPECT_EQ(Values<bool>(RunOp("_npi_rless_scalar", {u8}, {{"scalar", "1000"}})),
            (std::vector<bool>{false, false}));
  MXFFI_EXPECT_THROW_KIND(RunOp("_npi_bitwise_and_scalar", {u8}, {{"scalar", "-1"}}),
                          "OverflowError", "np.bitwise_and: Python integer -1 out of bounds");
}

TEST(OpElemwise, FloorDivideRemainderAndShiftsAsNumpy) {
  const int64_t lo = std::numeric_limits<int64_t>::min();
  NDArray a = Make<int64_t>({5}, kI64, {7, -7, lo, lo, 5});
  NDArray b = Make<int64_t>({5}, kI64, {2, 2, -1, 0, -3});
  EXPECT_EQ(Values<int64_t>(InvokeOp("_npi_floor_divide", {a, b})),
            (std::vector<int64_t>{3, -4, lo, 0, -2}));
  EXPECT_EQ(Values<int64_t>(InvokeOp("_npi_remainder", {a, b})),
            (std::vector<int64_t>{1, 1, 0, 0, -1}));
  NDArray x = Make<int8_t>({4}, kI8, {1, 1, -1, -128});
  NDArray c = Make<int8_t>({4}, kI8, {7, 8, -1, 7});
  EXPECT_EQ(Values<int8_t>(InvokeOp("_npi_left_shift", {x, c})),
            (std::vector<int8_t>{-128, 0, 0, 0}));
  EXPECT_EQ(Values<int8_t>(InvokeOp("_npi_right_shift", {x, c})),
            (std::vector<int8_t>{0, 0, -1, -1}));
  NDArray f = Make<double>({2}, kF64, {1.0, 2.0});
  MXFFI_EXPECT_THROW_KIND(InvokeOp("_npi_bitwise_or", {f, f}), "TypeError",
                          "np.bitwise_or: not supported for the input types float64 and float64");
}

TEST(OpElemwise, MaximumAndMinimumPropagateNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  NDArray a = Make<double>({3}, kF64, {nan, 1.0, 5.0});
  NDArray b = Make<double>({3}, kF64, {1.0, nan, 2.0});
  for (const char* op : {"_npi_maximum", "_npi_minimum"}) {
    std::vector<double> y = Values<double>(InvokeOp(op, {a, b}));
    EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1])) << op;
  }
  EXPECT_EQ(Values<double>(InvokeOp("_npi_maximum", {a, b}))[2], 5.0);
  EXPECT_EQ(Values<double>(InvokeOp("_npi_minimum", {a, b}))[2], 2.0);
}

TEST(OpElemwise, StridedAndMixedDTypeInputsAreReadInPlace) {
  // A transposed view (strides {1, 3}) of a 2x3 int32 matrix plus a float32 row.
  NDArray base = Make<int32_t>({2, 3}, kI32, {0, 1, 2, 3, 4, 5});
  const int64_t shape[2] = {3, 2}, strides[2] = {1, 3};
  NDArray t = NDArray::View(base, shape, strides, 2, 0);
  NDArray row = Make<float>({2}, kF32, {0.5f, 0.25f});
  NDArray y = InvokeOp("_npi_multiply", {t, row});  // int32 * float32 -> float64
  EXPECT_TRUE(SameType(y.tensor().dtype, kF64));
  EXPECT_EQ(Values<double>(y), (std::vector<double>{0, 0.75, 0.5, 1.0, 1.0, 1.25}));
}

TEST(OpElemwise, ScalarOpsTakeTheNumberAsAParameter) {
  NDArray u8 = Make<uint8_t>({3}, kU8, {1, 2, 250});
  NDArray y = RunOp("_npi_add_scalar", {u8}, {{"scalar", "10"}});
  EXPECT_TRUE(SameType(y.tensor().dtype, kU8));  // NEP 50: the int takes uint8
  EXPECT_EQ(Values<uint8_t>(y), (std::vector<uint8_t>{11, 12, 4}));
  NDArray r = RunOp("_npi_rsubtract_scalar", {u8}, {{"scalar", "0.5"}});
  EXPECT_TRUE(SameType(r.tensor().dtype, kF64));
  EXPECT_EQ(Values<double>(r), (std::vector<double>{-0.5, -1.5, -249.5}));
  MXFFI_EXPECT_THROW_KIND(RunOp("_npi_add_scalar", {u8}, {{"scalar", "300"}}), "OverflowError",
                          "Python integer 300 out of bounds for uint8");
  MXFFI_EXPECT_THROW_KIND(RunOp("_npi_add_scalar", {u8}, {{"scalar", "abc"}}), "ValueError",
                          "value='abc'");
}

TEST(OpElemwise, QuadraticFromTypedAndStringParameters) {
  mxffi::op::QuadraticParam p;
  p.a = 2.0;
  p.b = -1.0;
  p.c = 0.5;
  NDArray x = Make<float>({4}, kF32, {0.f, 1.f, 2.f, -1.f});
  NDArray y = InvokeOp("quadratic", {x}, &p);
  EXPECT_TRUE(SameType(y.tensor().dtype, kF32));
  EXPECT_EQ(Values<float>(y), (std::vector<float>{0.5f, 1.5f, 6.5f, 3.5f}));
  NDArray xi = Make<int8_t>({2}, kI8, {3, -3});
  NDArray yi = RunOp("quadratic", {xi}, {{"a", "1"}, {"c", "1"}});
  EXPECT_TRUE(SameType(yi.tensor().dtype, kF64));
  EXPECT_EQ(Values<double>(yi), (std::vector<double>{10.0, 10.0}));
  MXFFI_EXPECT_THROW_KIND(RunOp("quadratic", {x}, {{"b", "abc"}}), "ValueError",
                          "quadratic: invalid parameter: Invalid Parameter format for b");
  const Op* op = Op::Get("quadratic");
  EXPECT_NE(op->description.find("a*x**2 + b*x + c"), std::string::npos);
  EXPECT_NE(op->param_doc.find("c : double, optional, default=0"), std::string::npos);
}

TEST(OpElemwise, ZeroSizeAndZeroDimInputs) {
  NDArray empty = NDArray::Empty({0, 3}, kF64, kCPU);
  NDArray row = Make<double>({3}, kF64, {1, 2, 3});
  NDArray y = InvokeOp("_npi_add", {empty, row});
  EXPECT_EQ(y.tensor().shape[0], 0);
  EXPECT_EQ(y.tensor().shape[1], 3);
  NDArray s = Make<double>({}, kF64, {4.0});
  NDArray z = InvokeOp("_npi_sqrt", {s});
  EXPECT_EQ(z.tensor().ndim, 0);
  EXPECT_EQ(Values<double>(z), (std::vector<double>{2.0}));
}

TEST(OpElemwise, WhereSelectsAcrossThreeBroadcastShapes) {
  // condition (2, 1) int8 (read as != 0), x a transposed (3, 2) -> viewed (2, 3), y (3,).
  NDArray c = Make<int8_t>({2, 1}, kI8, {0, -3});
  NDArray base = Make<int64_t>({3, 2}, kI64, {0, 1, 2, 3, 4, 5});
  const int64_t shape[2] = {2, 3}, strides[2] = {1, 2};
  NDArray x = NDArray::View(base, shape, strides, 2, 0);
  NDArray y = Make<int64_t>({3}, kI64, {-1, -2, -3});
  NDArray out = InvokeOp("_npi_where", {c, x, y});
  ASSERT_EQ(out.tensor().ndim, 2);
  EXPECT_EQ(out.tensor().shape[0], 2);
  EXPECT_EQ(out.tensor().shape[1], 3);
  EXPECT_TRUE(SameType(out.tensor().dtype, kI64));
  EXPECT_EQ(Values<int64_t>(out), (std::vector<int64_t>{-1, -2, -3, 1, 3, 5}));
  MXFFI_EXPECT_THROW_KIND(InvokeOp("_npi_where", {c, x, Make<int32_t>({3}, kI32, {1, 2, 3})}),
                          "TypeError",
                          "np.where: x1 and x2 must have one dtype (promoted by the caller); got "
                          "int64 and int32");
  MXFFI_EXPECT_THROW_KIND(InvokeOp("_npi_where", {Make<uint8_t>({4}, kBool, {1, 0, 1, 0}), x, y}),
                          "ValueError",
                          "np.where: operands could not be broadcast together with shapes (4,) "
                          "(2,3) (3,)");
}

}  // namespace
