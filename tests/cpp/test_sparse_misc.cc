/*!
 * \file test_sparse_misc.cc
 * \brief sparse_retain, slice_rows, add_n, sgd_update and adam_update through Invoke: the
 *  results' parts, in-place outputs, and the errors for bad inputs.
 */
#include <gtest/gtest.h>
#include <mxffi/op/op.h>

#include <cmath>
#include <string>
#include <vector>

#include "op_test_util.h"
#include "test_util.h"

namespace {

using mxffi::NDArray;
using mxffi::StorageType;
using mxffi_test::kF64;
using mxffi_test::kI32;
using mxffi_test::kI64;
using mxffi_test::Make;
using mxffi_test::RunOp;
using mxffi_test::Values;

// A 6 x 2 row_sparse array storing rows 0, 2 and 5: row r holds (10 r, 10 r + 1).
NDArray SmallRowSparse() {
  int64_t shape[] = {6, 2};
  return NDArray::RowSparse(shape, 2, Make<double>({3, 2}, kF64, {0, 1, 20, 21, 50, 51}),
                            Make<int64_t>({3}, kI64, {0, 2, 5}), "test");
}

// [[1, 0, 2],
//  [0, 0, 0],
//  [0, 3, 0],
//  [4, 0, 5]]
NDArray SmallCSR() {
  int64_t shape[] = {4, 3};
  return NDArray::CSR(shape, Make<double>({5}, kF64, {1, 2, 3, 4, 5}),
                      Make<int32_t>({5}, kI32, {0, 2, 1, 0, 2}),
                      Make<int32_t>({5}, kI32, {0, 2, 2, 3, 5}), "test");
}

TEST(SparseMisc, RetainKeepsTheStoredRowsAskedFor) {
  NDArray out = RunOp("sparse_retain", {SmallRowSparse(), Make<int32_t>({4}, kI32, {5, 1, 5, 0})});
  ASSERT_EQ(out.stype(), StorageType::kRowSparse);
  EXPECT_EQ(Values<int64_t>(out.sparse_indices()), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(Values<double>(out.sparse_data()), (std::vector<double>{0, 1, 50, 51}));
  MXFFI_EXPECT_THROW_KIND(
      RunOp("sparse_retain", {SmallRowSparse(), Make<int64_t>({2}, kI64, {1, 6})}), "ValueError",
      "sparse_retain: indices[1]=6 is out of range for data with 6 rows");
}

TEST(SparseMisc, SliceRowsOfCSRAndRowSparse) {
  NDArray c = RunOp("slice_rows", {SmallCSR()}, {{"begin", "1"}, {"end", "4"}});
  ASSERT_EQ(c.stype(), StorageType::kCSR);
  EXPECT_EQ(c.tensor().shape[0], 3);
  EXPECT_EQ(Values<int32_t>(c.sparse_indptr()), (std::vector<int32_t>{0, 0, 1, 3}));
  EXPECT_EQ(Values<int32_t>(c.sparse_indices()), (std::vector<int32_t>{1, 0, 2}));
  EXPECT_EQ(Values<double>(c.sparse_data()), (std::vector<double>{3, 4, 5}));
  NDArray r = RunOp("slice_rows", {SmallRowSparse()}, {{"begin", "2"}, {"end", "6"}});
  ASSERT_EQ(r.stype(), StorageType::kRowSparse);
  EXPECT_EQ(Values<int64_t>(r.sparse_indices()), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(Values<double>(r.sparse_data()), (std::vector<double>{20, 21, 50, 51}));
  MXFFI_EXPECT_THROW_KIND(RunOp("slice_rows", {SmallCSR()}, {{"begin", "3"}, {"end", "2"}}),
                          "ValueError", "begin=3, end=2");
}

TEST(SparseMisc, AddNMergesRowsAndColumns) {
  int64_t shape[] = {6, 2};
  NDArray b = NDArray::RowSparse(shape, 2, Make<double>({2, 2}, kF64, {1, 1, 2, 2}),
                                 Make<int32_t>({2}, kI32, {1, 2}), "test");
  NDArray out = RunOp("add_n", {SmallRowSparse(), b}, {{"num_args", "2"}});
  ASSERT_EQ(out.stype(), StorageType::kRowSparse);
  EXPECT_EQ(Values<int64_t>(out.sparse_indices()), (std::vector<int64_t>{0, 1, 2, 5}));
  EXPECT_EQ(Values<double>(out.sparse_data()), (std::vector<double>{0, 1, 1, 1, 22, 23, 50, 51}));
  NDArray c = RunOp("add_n", {SmallCSR(), SmallCSR(), SmallCSR()}, {{"num_args", "3"}});
  ASSERT_EQ(c.stype(), StorageType::kCSR);
  EXPECT_EQ(Values<int32_t>(c.sparse_indptr()), (std::vector<int32_t>{0, 2, 2, 3, 5}));
  EXPECT_EQ(Values<double>(c.sparse_data()), (std::vector<double>{3, 6, 9, 12, 15}));
}

TEST(SparseMisc, AddNTakesAsManyInputsAsNumArgsSays) {
  const mxffi::Op* op = mxffi::Op::Get("add_n");
  EXPECT_TRUE(op->variable_inputs());
  EXPECT_EQ(op->key_var_num_args, "num_args");
  // More inputs than Invoke holds inline (kMaxOpArgs): 1 + 2 + ... + 40 in every element.
  std::vector<NDArray> in;
  for (int i = 1; i <= 40; ++i) in.push_back(Make<double>({2, 3}, kF64, std::vector<double>(6, i)));
  NDArray sum = RunOp("add_n", in, {{"num_args", "40"}});
  EXPECT_EQ(Values<double>(sum), std::vector<double>(6, 820.0));
  // The same through the storage-aware kernel (a row_sparse summand makes the result dense).
  in.push_back(SmallRowSparse());
  for (int i = 0; i < 40; ++i) in[i] = Make<double>({6, 2}, kF64, std::vector<double>(12, 1.0));
  NDArray mixed = RunOp("add_n", in, {{"num_args", "41"}});
  ASSERT_EQ(mixed.stype(), StorageType::kDefault);
  EXPECT_EQ(Values<double>(mixed),
            (std::vector<double>{40, 41, 40, 40, 60, 61, 40, 40, 40, 40, 90, 91}));
  mxffi::OpAttrs attrs;
  attrs.op = op;
  StorageType out_stype[1];
  auto param = (*op->attr<mxffi::FParamParse>("FParamParse"))({{"num_args", "41"}});
  attrs.param = param.get();
  EXPECT_EQ(mxffi::InferDispatch(attrs, mxffi::Span<const NDArray>(in.data(), in.size()),
                                 mxffi::Span<StorageType>(out_stype, 1)),
            mxffi::DispatchMode::kFComputeEx);
  EXPECT_EQ(op->NumInputs(attrs), 41u);
  // A count other than num_args, and no parameters at all.
  MXFFI_EXPECT_THROW_KIND(RunOp("add_n", in, {{"num_args", "40"}}), "TypeError",
                          "add_n: expected 40 input(s) (num_args=40), got 41");
  attrs.param = nullptr;
  MXFFI_EXPECT_THROW_KIND(mxffi::Invoke(attrs, mxffi::Span<const NDArray>(in.data(), 2)),
                          "ValueError", "add_n: no parameters given; num_args");
  // An op of a fixed arity says what it takes.
  MXFFI_EXPECT_THROW_KIND(RunOp("_npi_add", {in[0]}), "TypeError",
                          "_npi_add: expected 2 input(s), got 1");
}

TEST(SparseMisc, AddNIntoOneOfItsSummandsReadsItFirst) {
  // out= the third summand (kWriteInplace), over more elements than one block of the kernel.
  const int64_t n = 5000;
  std::vector<NDArray> in;
  for (int i = 1; i <= 5; ++i) {
    in.push_back(Make<double>({n}, kF64, std::vector<double>(n, i * i)));
  }
  mxffi::OpAttrs attrs;
  attrs.op = mxffi::Op::Get("add_n");
  auto param = (*attrs.op->attr<mxffi::FParamParse>("FParamParse"))({{"num_args", "5"}});
  attrs.param = param.get();
  NDArray out[1] = {in[2]};
  mxffi::Invoke(attrs, mxffi::Span<const NDArray>(in.data(), in.size()),
                mxffi::Span<NDArray>(out, 1));
  EXPECT_EQ(Values<double>(in[2]), std::vector<double>(n, 1 + 4 + 9 + 16 + 25));
  // The storage-aware kernel (a row_sparse summand, a dense result) into a dense summand.
  std::vector<NDArray> mixed = {Make<double>({6, 2}, kF64, std::vector<double>(12, 1.0)),
                                SmallRowSparse(),
                                Make<double>({6, 2}, kF64, std::vector<double>(12, 2.0))};
  param = (*attrs.op->attr<mxffi::FParamParse>("FParamParse"))({{"num_args", "3"}});
  attrs.param = param.get();
  out[0] = mixed[2];
  mxffi::Invoke(attrs, mxffi::Span<const NDArray>(mixed.data(), mixed.size()),
                mxffi::Span<NDArray>(out, 1));
  EXPECT_EQ(Values<double>(mixed[2]),
            (std::vector<double>{3, 4, 3, 3, 23, 24, 3, 3, 3, 3, 53, 54}));
  // A row_sparse summand as the output: the kernel fills a fresh array, whose parts it takes.
  int64_t shape[] = {6, 2};
  NDArray b = NDArray::RowSparse(shape, 2, Make<double>({2, 2}, kF64, {1, 1, 2, 2}),
                                 Make<int32_t>({2}, kI32, {1, 2}), "test");
  std::vector<NDArray> rsp = {SmallRowSparse(), b};
  param = (*attrs.op->attr<mxffi::FParamParse>("FParamParse"))({{"num_args", "2"}});
  attrs.param = param.get();
  out[0] = rsp[0];
  mxffi::Invoke(attrs, mxffi::Span<const NDArray>(rsp.data(), rsp.size()),
                mxffi::Span<NDArray>(out, 1));
  EXPECT_TRUE(out[0].same_as(rsp[0]));
  EXPECT_EQ(Values<int64_t>(rsp[0].sparse_indices()), (std::vector<int64_t>{0, 1, 2, 5}));
  EXPECT_EQ(Values<double>(rsp[0].sparse_data()),
            (std::vector<double>{0, 1, 1, 1, 22, 23, 50, 51}));
}

TEST(SparseMisc, LazySGDWritesOnlyTheGradientsRows) {
  NDArray w = Make<double>({6, 2}, kF64, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1});
  mxffi::OpAttrs attrs;
  attrs.op = mxffi::Op::Get("sgd_update");
  auto param = (*attrs.op->attr<mxffi::FParamParse>("FParamParse"))({{"lr", "0.5"}});
  attrs.param = param.get();
  NDArray in[2] = {w, SmallRowSparse()};
  NDArray out[1] = {w};
  mxffi::Invoke(attrs, mxffi::Span<const NDArray>(in, 2), mxffi::Span<NDArray>(out, 1));
  EXPECT_TRUE(out[0].same_as(w));
  EXPECT_EQ(Values<double>(w),
            (std::vector<double>{1, 0.5, 1, 1, -9, -9.5, 1, 1, 1, 1, -24, -24.5}));
}

TEST(SparseMisc, AdamWritesWeightMeanAndVarInPlace) {
  NDArray w = Make<double>({1, 2}, kF64, {1, 1});
  NDArray m = Make<double>({1, 2}, kF64, {0, 0});
  NDArray v = Make<double>({1, 2}, kF64, {0, 0});
  NDArray g = Make<double>({1, 2}, kF64, {2, -2});
  mxffi::OpAttrs attrs;
  attrs.op = mxffi::Op::Get("adam_update");
  auto param = (*attrs.op->attr<mxffi::FParamParse>("FParamParse"))(
      {{"lr", "0.1"}, {"beta1", "0.5"}, {"beta2", "0.5"}, {"epsilon", "0"}});
  attrs.param = param.get();
  NDArray in[4] = {w, g, m, v};
  NDArray out[3] = {w, m, v};
  mxffi::Invoke(attrs, mxffi::Span<const NDArray>(in, 4), mxffi::Span<NDArray>(out, 3));
  // m = 0.5 g, v = 0.5 g^2, so m / sqrt(v) = sign(g) * sqrt(0.5)
  EXPECT_EQ(Values<double>(m), (std::vector<double>{1, -1}));
  EXPECT_EQ(Values<double>(v), (std::vector<double>{2, 2}));
  EXPECT_NEAR(Values<double>(w)[0], 1 - 0.1 / std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(Values<double>(w)[1], 1 + 0.1 / std::sqrt(2.0), 1e-15);
}

}  // namespace
