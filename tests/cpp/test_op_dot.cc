/*!
 * \file test_op_dot.cc
 * \brief The reductions (_sum, _mean, _max, _min) and products (_tensordot, _matmul) through
 *  Invoke, as a C++ caller uses them: parameters parsed from strings, strided views (CblasTrans
 *  and packed operands), result dtypes, errors, and GEMMs from several threads at once (run
 *  under ThreadSanitizer with MXFFI_SANITIZE=thread).
 */
#include <gtest/gtest.h>
#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "op_test_util.h"
#include "test_util.h"

namespace {

using namespace mxffi_test;  // NOLINT(build/namespaces)
using mxffi::NDArray;
using mxffi::Op;
using mxffi::OpAttrs;
using mxffi::Span;

std::vector<double> Random(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> dist;
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

/*! \brief A transposed view of a 2-D array (strides swapped, no copy). */
NDArray Transposed(const NDArray& a) {
  const DLTensor& t = a.tensor();
  int64_t shape[2] = {t.shape[1], t.shape[0]};
  int64_t strides[2] = {1, t.shape[1]};
  return NDArray::View(a, shape, strides, 2, 0);
}

/*! \brief c = a @ b, the plain triple loop. */
std::vector<double> NaiveGemm(const std::vector<double>& a, const std::vector<double>& b, int64_t m,
                              int64_t k, int64_t n) {
  std::vector<double> c(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t q = 0; q < k; ++q) s += a[i * k + q] * b[q * n + j];
      c[i * n + j] = s;
    }
  }
  return c;
}

TEST(OpReduce, SumOverAxesWithParsedParams) {
  NDArray a = Make<int8_t>({2, 3}, kI8, {1, 2, 3, 4, 5, 100});
  NDArray rows = RunOp("_sum", {a}, {{"axis", "(1,)"}});
  EXPECT_EQ(rows.tensor().dtype.code, kDLInt);
  EXPECT_EQ(rows.tensor().dtype.bits, 64);  // int8 sums as int64: no wraparound at 109
  EXPECT_EQ(Values<int64_t>(rows), (std::vector<int64_t>{6, 109}));
  NDArray all = RunOp("_sum", {a}, {{"axis", "None"}, {"keepdims", "true"}});
  EXPECT_EQ(all.tensor().ndim, 2);
  EXPECT_EQ(Values<int64_t>(all), (std::vector<int64_t>{115}));
  NDArray wrapped = RunOp("_sum", {a}, {{"axis", "(0, 1)"}, {"dtype", "int8"}});
  EXPECT_EQ(Values<int8_t>(wrapped), (std::vector<int8_t>{115}));
  NDArray mean = RunOp("_mean", {a}, {{"axis", "0"}});
  EXPECT_EQ(mean.tensor().dtype.bits, 64);
  EXPECT_EQ(Values<double>(mean), (std::vector<double>{2.5, 3.5, 51.5}));
}

TEST(OpReduce, StridedInputAndNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  NDArray a = Make<double>({2, 3}, kF64, {1, 7, 3, nan, 5, 6});
  NDArray at = Transposed(a);  // (3, 2): {{1, nan}, {7, 5}, {3, 6}}
  std::vector<double> mx = Values<double>(RunOp("_max", {at}, {{"axis", "(1,)"}}));
  ASSERT_EQ(mx.size(), 3u);
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_EQ(mx[1], 7);
  EXPECT_EQ(mx[2], 6);
  EXPECT_EQ(Values<double>(RunOp("_min", {at}, {{"axis", "(0,)"}}))[0], 1);
  EXPECT_TRUE(std::isnan(Values<double>(RunOp("_sum", {at}))[0]));
}

TEST(OpReduce, Errors) {
  NDArray a = Make<double>({2, 3}, kF64, {1, 2, 3, 4, 5, 6});
  MXFFI_EXPECT_THROW_KIND(RunOp("_sum", {a}, {{"axis", "(2,)"}}), "AxisError",
                          "axis 2 is out of bounds for array of dimension 2");
  MXFFI_EXPECT_THROW_KIND(RunOp("_mean", {a}, {{"axis", "(0, -2)"}}), "ValueError",
                          "duplicate value in 'axis'");
  NDArray empty = NDArray::Empty({0, 3}, kF64, kCPU);
  MXFFI_EXPECT_THROW_KIND(RunOp("_max", {empty}, {{"axis", "(0,)"}}), "ValueError",
                          "zero-size array to reduction operation maximum which has no identity");
  EXPECT_EQ(RunOp("_max", {empty}, {{"axis", "(1,)"}}).numel(), 0);
  MXFFI_EXPECT_THROW_KIND(RunOp("_max", {a}, {{"dtype", "float32"}}), "TypeError",
                          "takes no dtype");
}

TEST(OpDot, TensordotThroughBlasAndTransposedViews) {
  const int64_t m = 37, k = 53, n = 29;
  std::vector<double> av = Random(m * k, 1), bv = Random(k * n, 2);
  std::vector<double> expected = NaiveGemm(av, bv, m, k, n);
  NDArray a = Make<double>({m, k}, kF64, av), b = Make<double>({k, n}, kF64, bv);
  // The same operands as transposed views of transposed copies: CblasTrans, no packing.
  std::vector<double> at(k * m), bt(n * k);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t q = 0; q < k; ++q) at[q * m + i] = av[i * k + q];
  }
  for (int64_t q = 0; q < k; ++q) {
    for (int64_t j = 0; j < n; ++j) bt[j * k + q] = bv[q * n + j];
  }
  NDArray a_view = Transposed(Make<double>({k, m}, kF64, at));
  NDArray b_view = Transposed(Make<double>({n, k}, kF64, bt));
  for (auto [x, y] :
       {std::pair{a, b}, std::pair{a_view, b}, std::pair{a, b_view}, std::pair{a_view, b_view}}) {
    NDArray c = RunOp("_tensordot", {x, y}, {{"a_axes", "(1,)"}, {"b_axes", "(0,)"}});
    ASSERT_EQ(c.tensor().ndim, 2);
    EXPECT_EQ(c.tensor().shape[0], m);
    EXPECT_EQ(c.tensor().shape[1], n);
    std::vector<double> got = Values<double>(c);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-12);
  }
  // a's axes summed in the other order: the transposed product.
  NDArray ct = RunOp("_tensordot", {b, a}, {{"a_axes", "(0,)"}, {"b_axes", "(1,)"}});
  std::vector<double> got = Values<double>(ct);
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < m; ++i) EXPECT_NEAR(got[j * m + i], expected[i * n + j], 1e-12);
  }
}

TEST(OpDot, DtypesFollowPromotion) {
  NDArray i8 = Make<int8_t>({2}, kI8, {127, 1});
  NDArray c = RunOp("_tensordot", {i8, i8}, {{"a_axes", "(0,)"}, {"b_axes", "(0,)"}});
  EXPECT_EQ(Values<int8_t>(c), (std::vector<int8_t>{2}));  // 127*127 + 1 = 16130 = 2 mod 256
  NDArray f = Make<float>({2}, kF32, {0.5f, 2.0f});
  NDArray mixed = RunOp("_tensordot", {i8, f}, {{"a_axes", "(0,)"}, {"b_axes", "(0,)"}});
  EXPECT_EQ(mixed.tensor().dtype.bits, 32);  // int8 with float32 is float32
  EXPECT_EQ(Values<float>(mixed), (std::vector<float>{65.5f}));
  NDArray t = Make<uint8_t>({2}, kBool, {1, 0}), u = Make<uint8_t>({2}, kBool, {0, 1});
  NDArray b = RunOp("_tensordot", {t, u}, {{"a_axes", "(0,)"}, {"b_axes", "(0,)"}});
  EXPECT_EQ(b.tensor().dtype.code, kDLBool);
  EXPECT_EQ(Values<uint8_t>(b), (std::vector<uint8_t>{0}));
  NDArray i64 = Make<int64_t>({2}, kI64, {3, 4});
  EXPECT_EQ(
      RunOp("_tensordot", {i64, i64}, {{"a_axes", "(0,)"}, {"b_axes", "(0,)"}}).tensor().dtype.bits,
      64);
}

TEST(OpDot, MatmulBroadcastsBatches) {
  // (2, 1, 2, 3) @ (4, 3, 2) -> (2, 4, 2, 2); every batch entry checked against the loop.
  std::vector<double> av = Random(2 * 2 * 3, 3), bv = Random(4 * 3 * 2, 4);
  NDArray a = Make<double>({2, 1, 2, 3}, kF64, av), b = Make<double>({4, 3, 2}, kF64, bv);
  NDArray c = RunOp("_matmul", {a, b});
  ASSERT_EQ(c.tensor().ndim, 4);
  std::vector<double> got = Values<double>(c);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) {
      std::vector<double> ai(av.begin() + i * 6, av.begin() + i * 6 + 6);
      std::vector<double> bj(bv.begin() + j * 6, bv.begin() + j * 6 + 6);
      std::vector<double> e = NaiveGemm(ai, bj, 2, 3, 2);
      for (int q = 0; q < 4; ++q) EXPECT_NEAR(got[(i * 4 + j) * 4 + q], e[q], 1e-12);
    }
  }
  MXFFI_EXPECT_THROW_KIND(RunOp("_matmul", {a, Make<double>({2, 2}, kF64, {1, 2, 3, 4})}),
                          "ValueError", "(size 2 is different from 3)");
}

TEST(OpDot, ShapeErrors) {
  NDArray a = NDArray::Empty({3, 4}, kF64, kCPU), b = NDArray::Empty({5, 3}, kF64, kCPU);
  MXFFI_EXPECT_THROW_KIND(RunOp("_tensordot", {a, b}, {{"a_axes", "(1,)"}, {"b_axes", "(0,)"}}),
                          "ValueError", "shape-mismatch for sum: a.shape[1]=4 but b.shape[0]=5");
  MXFFI_EXPECT_THROW_KIND(RunOp("_tensordot", {a, b}, {{"a_axes", "(0, 1)"}, {"b_axes", "(0,)"}}),
                          "ValueError", "shape-mismatch for sum");
  MXFFI_EXPECT_THROW_KIND(RunOp("_tensordot", {a, b}, {{"a_axes", "(2,)"}, {"b_axes", "(0,)"}}),
                          "AxisError", "axis 2 is out of bounds");
}

TEST(OpDot, ConcurrentCallersShareThePool) {
  const int64_t n = 96;
  std::vector<double> av = Random(n * n, 5), bv = Random(n * n, 6);
  std::vector<double> expected = NaiveGemm(av, bv, n, n, n);
  NDArray a = Make<double>({n, n}, kF64, av), b = Make<double>({n, n}, kF64, bv);
  std::vector<int> bad(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 8; ++r) {
        std::vector<double> got =
            Values<double>(RunOp("_tensordot", {a, b}, {{"a_axes", "(1,)"}, {"b_axes", "(0,)"}}));
        for (size_t i = 0; i < got.size(); ++i) bad[t] += std::abs(got[i] - expected[i]) > 1e-9;
        bad[t] += Values<double>(RunOp("_sum", {a}))[0] != Values<double>(RunOp("_sum", {a}))[0];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
}

}  // namespace
