/*!
 * \file test_sparse.cc
 * \brief Sparse NDArrays: construction from parts (validation, canonical form), cast_storage
 *  between every pair of storage types, and Invoke's dispatch and fallback.
 */
#include <gtest/gtest.h>
#include <mxffi/op/op.h>

#include <cstdint>
#include <cstdlib>
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

// [[1, 0, 2],
//  [0, 0, 0],
//  [0, 3, 0]]
NDArray SmallCSR() {
  int64_t shape[] = {3, 3};
  return NDArray::CSR(shape, Make<double>({3}, kF64, {1, 2, 3}),
                      Make<int32_t>({3}, kI32, {0, 2, 1}), Make<int32_t>({4}, kI32, {0, 2, 2, 3}),
                      "test");
}

TEST(Sparse, CSRFromPartsKeepsThemAndTheLogicalShape) {
  NDArray a = SmallCSR();
  EXPECT_EQ(a.stype(), StorageType::kCSR);
  EXPECT_TRUE(a.storage_initialized());
  ASSERT_EQ(a.tensor().ndim, 2);
  EXPECT_EQ(a.tensor().shape[0], 3);
  EXPECT_EQ(a.tensor().data, nullptr);
  EXPECT_EQ(Values<double>(a.sparse_data()), (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(Values<int32_t>(a.sparse_indptr()), (std::vector<int32_t>{0, 2, 2, 3}));
  const auto* raw = reinterpret_cast<const MXFFINDArrayObj*>(a.get());
  EXPECT_EQ(raw->stype, 2);
}

TEST(Sparse, CSRIsMadeCanonical) {
  int64_t shape[] = {2, 4};
  // Row 0 lists columns 3, 1, 3 (a duplicate); row 1 lists 2, 0.
  NDArray a = NDArray::CSR(shape, Make<double>({5}, kF64, {1, 2, 4, 8, 16}),
                           Make<int64_t>({5}, kI64, {3, 1, 3, 2, 0}),
                           Make<int64_t>({3}, kI64, {0, 3, 5}), "test");
  EXPECT_EQ(Values<int64_t>(a.sparse_indices()), (std::vector<int64_t>{1, 3, 0, 2}));
  EXPECT_EQ(Values<double>(a.sparse_data()), (std::vector<double>{2, 5, 16, 8}));
  EXPECT_EQ(Values<int64_t>(a.sparse_indptr()), (std::vector<int64_t>{0, 2, 4}));
}

TEST(Sparse, CSRWithInt64MaxRowsIsAValueError) {
  // Its indptr would need INT64_MAX + 1 entries: refused before rows + 1 overflows.
  int64_t shape[] = {INT64_MAX, 1};
  MXFFI_EXPECT_THROW_KIND(
      NDArray::CSR(shape, NDArray::Empty({0}, kF64, DLDevice{kDLCPU, 0}),
                   NDArray::Empty({0}, kI64, DLDevice{kDLCPU, 0}), Make<int64_t>({1}, kI64, {0}),
                   "csr_matrix"),
      "ValueError",
      "csr_matrix: 9223372036854775807 rows need an indptr of rows + 1 entries, more than int64 "
      "holds");
  MXFFI_EXPECT_THROW_KIND(
      NDArray::EmptySparse(StorageType::kCSR, shape, 2, kF64, DLDevice{kDLCPU, 0}), "ValueError",
      "ndarray.empty_sparse: a csr array of 9223372036854775807 rows needs an indptr");
  // sparse.zeros allocates that indptr: the same error reaches it.
  mxffi::Function zeros = mxffi::Function::GetGlobalRequired("sparse._zeros");
  MXFFI_EXPECT_THROW_KIND(zeros(std::string("csr"), mxffi::Shape({INT64_MAX, 1})), "ValueError",
                          "more than int64 holds");
}

TEST(Sparse, CastOfAnEmptyArrayWithBillionsOfRowsIsMemoryError) {
  // (2**62, 0) holds nothing, but its csr form needs an indptr of 2**62 + 1 entries: the
  // std::length_error of the vector that would hold them is a MemoryError, not a RuntimeError.
  // (int8: 2**62 elements of float64 would be past int64 bytes, which Empty refuses.)
  mxffi::Function cast = mxffi::Function::GetGlobalRequired("sparse._cast_storage");
  NDArray dense =
      NDArray::Empty({int64_t{1} << 62, 0}, DLDataType{kDLInt, 8, 1}, DLDevice{kDLCPU, 0});
  MXFFI_EXPECT_THROW_KIND(cast(dense, std::string("csr")), "MemoryError", "out of memory");
}

TEST(Sparse, MalformedCSRPartsAreValueErrors) {
  int64_t shape[] = {2, 3};
  auto csr = [&](std::vector<int32_t> ix, std::vector<int32_t> ip, size_t nd) {
    std::vector<double> d(nd, 1.0);
    return NDArray::CSR(shape, Make<double>({static_cast<int64_t>(nd)}, kF64, d),
                        Make<int32_t>({static_cast<int64_t>(ix.size())}, kI32, ix),
                        Make<int32_t>({static_cast<int64_t>(ip.size())}, kI32, ip), "csr_matrix");
  };
  MXFFI_EXPECT_THROW_KIND(csr({0, 1}, {0, 2}, 2), "ValueError",
                          "indptr must have rows + 1 = 3 entries, got 2");
  MXFFI_EXPECT_THROW_KIND(csr({0, 1}, {1, 1, 2}, 2), "ValueError", "indptr[0] must be 0, got 1");
  MXFFI_EXPECT_THROW_KIND(csr({0, 1}, {0, 2, 1}, 2), "ValueError",
                          "indptr must be non-decreasing; indptr[1]=2 > indptr[2]=1");
  MXFFI_EXPECT_THROW_KIND(csr({0, 3}, {0, 1, 2}, 2), "ValueError",
                          "indices[1]=3 is out of range for 3 columns (row 1)");
  MXFFI_EXPECT_THROW_KIND(csr({0, -1}, {0, 1, 2}, 2), "ValueError", "indices[1]=-1");
  MXFFI_EXPECT_THROW_KIND(csr({0, 1}, {0, 1, 2}, 3), "ValueError",
                          "data and indices must have the same length, got 3 and 2");
  MXFFI_EXPECT_THROW_KIND(csr({0, 1, 2}, {0, 1, 2}, 3), "ValueError",
                          "indptr[-1] must equal the number of values 3, got 2");
  MXFFI_EXPECT_THROW_KIND(
      NDArray::CSR(shape, Make<double>({1}, kF64, {1}), Make<double>({1}, kF64, {0}),
                   Make<int32_t>({3}, kI32, {0, 1, 1}), "csr_matrix"),
      "ValueError", "csr_matrix: indices must be int32 or int64, got float64");
}

TEST(Sparse, MalformedRowSparsePartsAreValueErrors) {
  int64_t shape[] = {4, 2};
  auto rsp = [&](std::vector<int64_t> ix) {
    std::vector<double> d(ix.size() * 2, 1.0);
    return NDArray::RowSparse(shape, 2, Make<double>({static_cast<int64_t>(ix.size()), 2}, kF64, d),
                              Make<int64_t>({static_cast<int64_t>(ix.size())}, kI64, ix),
                              "row_sparse_array");
  };
  EXPECT_EQ(rsp({0, 3}).stype(), StorageType::kRowSparse);
  MXFFI_EXPECT_THROW_KIND(rsp({2, 1}), "ValueError",
                          "must be sorted and unique; indices[1]=1 follows indices[0]=2");
  MXFFI_EXPECT_THROW_KIND(rsp({1, 1}), "ValueError", "indices[1]=1 follows indices[0]=1");
  MXFFI_EXPECT_THROW_KIND(rsp({0, 4}), "ValueError", "indices[1]=4 is out of range for 4 rows");
  MXFFI_EXPECT_THROW_KIND(NDArray::RowSparse(shape, 2, Make<double>({1, 3}, kF64, {1, 2, 3}),
                                             Make<int64_t>({1}, kI64, {0}), "row_sparse_array"),
                          "ValueError", "data.shape[1]=3 must equal shape[1]=2");
}

TEST(Sparse, CastStorageRoundTripsEveryPair) {
  NDArray dense = Make<double>({3, 3}, kF64, {1, 0, 2, 0, 0, 0, 0, 3, 0});
  const StorageType all[] = {StorageType::kDefault, StorageType::kCSR, StorageType::kRowSparse};
  const char* names[] = {"default", "csr", "row_sparse"};
  for (int a = 0; a < 3; ++a) {
    NDArray x = RunOp("cast_storage", {dense}, {{"stype", names[a]}});
    ASSERT_EQ(x.stype(), all[a]) << names[a];
    for (int b = 0; b < 3; ++b) {
      NDArray y = RunOp("cast_storage", {x}, {{"stype", names[b]}});
      ASSERT_EQ(y.stype(), all[b]) << names[a] << " -> " << names[b];
      NDArray back = RunOp("cast_storage", {y}, {{"stype", "default"}});
      EXPECT_EQ(Values<double>(back), Values<double>(dense)) << names[a] << " -> " << names[b];
    }
  }
  NDArray rsp = RunOp("cast_storage", {dense}, {{"stype", "row_sparse"}});
  EXPECT_EQ(Values<int64_t>(rsp.sparse_indices()), (std::vector<int64_t>{0, 2}));
  NDArray csr32 = RunOp("cast_storage", {dense}, {{"stype", "csr"}, {"idx_dtype", "int32"}});
  EXPECT_EQ(Values<int32_t>(csr32.sparse_indices()), (std::vector<int32_t>{0, 2, 1}));
}

TEST(Sparse, DispatchPicksTheSparseKernelOrTheFallback) {
  NDArray csr = SmallCSR();
  mxffi::OpAttrs attrs;
  attrs.op = mxffi::Op::Get("_copy");
  StorageType out[1];
  // _copy has only a dense kernel: a csr input takes the fallback, a dense one the kernel.
  EXPECT_EQ(mxffi::InferDispatch(attrs, mxffi::Span<const NDArray>(&csr, 1),
                                 mxffi::Span<StorageType>(out, 1)),
            mxffi::DispatchMode::kFComputeFallback);
  EXPECT_EQ(out[0], StorageType::kDefault);
  NDArray dense = Make<double>({2}, kF64, {1, 2});
  EXPECT_EQ(mxffi::InferDispatch(attrs, mxffi::Span<const NDArray>(&dense, 1),
                                 mxffi::Span<StorageType>(out, 1)),
            mxffi::DispatchMode::kFCompute);
}

TEST(Sparse, FallbackWarnsOnceAndGivesTheDenseResult) {
  NDArray csr = SmallCSR();
  unsetenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE");
  testing::internal::CaptureStderr();
  NDArray a = RunOp("_copy", {csr});
  NDArray b = RunOp("_copy", {csr});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(a.stype(), StorageType::kDefault);
  EXPECT_EQ(Values<double>(b), (std::vector<double>{1, 0, 2, 0, 0, 0, 0, 3, 0}));
  EXPECT_NE(err.find("storage fallback: _copy has no kernel for input storage types (csr,) and "
                     "output storage types (default,)"),
            std::string::npos)
      << err;
  EXPECT_EQ(err.find("storage fallback", err.find("storage fallback") + 1), std::string::npos)
      << "warned twice: " << err;
}

TEST(Sparse, DenseViewsAndDLPackRefuseSparseArrays) {
  NDArray a = SmallCSR();
  MXFFI_EXPECT_THROW_KIND(a.ToDLPack(), "TypeError", "DLPack has no sparse tensors");
  int64_t shape[] = {9};
  MXFFI_EXPECT_THROW_KIND(NDArray::View(a, shape, nullptr, 1, 0), "TypeError",
                          "views are of dense arrays");
  mxffi::AnyView v(a);
  EXPECT_FALSE(v.try_cast<DLTensor*>().has_value());
}

// What an array of a storage type added in a later minor version looks like here: a 3 x 4
// float64 array whose storage field holds 7, with no data.
NDArray UnknownStorageArray() {
  mxffi::ObjectPtr<mxffi::NDArrayObj> obj = mxffi::make_object<mxffi::NDArrayObj>();
  obj->tensor.data = nullptr;
  obj->tensor.device = DLDevice{kDLCPU, 0};
  obj->tensor.dtype = kF64;
  obj->tensor.byte_offset = 0;
  const int64_t shape[] = {3, 4};
  obj->SetShape(shape, nullptr, 2);
  obj->stype = 7;
  return NDArray(std::move(obj));
}

TEST(Sparse, AnUnknownStorageTypeIsAnOpaqueSparseArrayNeverADenseOne) {
  NDArray x = UnknownStorageArray();
  EXPECT_TRUE(x.is_sparse());
  EXPECT_FALSE(mxffi::IsKnownStorageType(x.stype()));
  EXPECT_STREQ(mxffi::StorageTypeName(x.stype()), "unknown");
  const char* unknown = "has storage type 7, which this version of mxffi does not know";
  // Invoke: a dense-only op (which would take the fallback for a sparse input), a sparse-aware
  // one, and storage inference on its own.
  MXFFI_EXPECT_THROW_KIND(RunOp("_copy", {x}), "TypeError",
                          std::string("_copy: input #0 ") + unknown);
  MXFFI_EXPECT_THROW_KIND(
      RunOp("_npi_add", {Make<double>({3, 4}, kF64, std::vector<double>(12)), x}), "TypeError",
      std::string("_npi_add: input #1 ") + unknown);
  mxffi::OpAttrs attrs;
  attrs.op = mxffi::Op::Get("_copy");
  StorageType out_stype[1];
  MXFFI_EXPECT_THROW_KIND(mxffi::InferDispatch(attrs, mxffi::Span<const NDArray>(&x, 1),
                                               mxffi::Span<StorageType>(out_stype, 1)),
                          "TypeError", unknown);
  // An out= array of an unknown storage type is not written into either.
  NDArray dense = Make<double>({3, 4}, kF64, std::vector<double>(12, 1.0));
  NDArray out[1] = {x};
  MXFFI_EXPECT_THROW_KIND(
      mxffi::Invoke(attrs, mxffi::Span<const NDArray>(&dense, 1), mxffi::Span<NDArray>(out, 1)),
      "TypeError", std::string("_copy: output #0 ") + unknown);
  // Conversion to dense (what asnumpy and repr of values do), the parts, DLPack and views.
  MXFFI_EXPECT_THROW_KIND(RunOp("cast_storage", {x}, {{"stype", "default"}}), "TypeError", unknown);
  MXFFI_EXPECT_THROW_KIND(x.sparse_data(), "TypeError",
                          std::string("ndarray.data: the array ") + unknown);
  MXFFI_EXPECT_THROW_KIND(x.sparse_indices(), "TypeError", unknown);
  MXFFI_EXPECT_THROW_KIND(x.sparse_indptr(), "TypeError", unknown);
  MXFFI_EXPECT_THROW_KIND(x.CheckAndAlloc(2, kI64), "TypeError", unknown);
  MXFFI_EXPECT_THROW_KIND(x.ToDLPack(), "TypeError", unknown);
  MXFFI_EXPECT_THROW_KIND(x.ToDLPackVersioned(), "TypeError", unknown);
  const int64_t shape[] = {12};
  MXFFI_EXPECT_THROW_KIND(NDArray::View(x, shape, nullptr, 1, 0), "TypeError", unknown);
  mxffi::AnyView v(x);
  EXPECT_FALSE(v.try_cast<DLTensor*>().has_value());
}

// ---- coo -----------------------------------------------------------------------------------

// Entries (2,1)=1, (0,2)=2, (2,1)=4, (0,0)=8: unsorted, (2,1) twice.
NDArray SmallCOO(DLDataType itype) {
  int64_t shape[] = {3, 3};
  const bool i32 = itype.bits == 32;
  auto ids = [&](std::vector<int64_t> v) {
    if (!i32) return Make<int64_t>({4}, kI64, v);
    return Make<int32_t>({4}, kI32, std::vector<int32_t>(v.begin(), v.end()));
  };
  return NDArray::COO(shape, Make<double>({4}, kF64, {1, 2, 4, 8}), ids({2, 0, 2, 0}),
                      ids({1, 2, 1, 0}), "coo_matrix");
}

TEST(SparseCOO, PartsAreKeptAsGivenAndConvertSortedAndSummed) {
  for (DLDataType itype : {kI32, kI64}) {
    NDArray a = SmallCOO(itype);
    EXPECT_EQ(a.stype(), StorageType::kCOO);
    EXPECT_EQ(reinterpret_cast<const MXFFINDArrayObj*>(a.get())->stype, kMXFFIStorageCOO);
    EXPECT_STREQ(mxffi::StorageTypeName(a.stype()), "coo");
    EXPECT_EQ(Values<double>(a.sparse_data()), (std::vector<double>{1, 2, 4, 8}));
    MXFFI_EXPECT_THROW_KIND(a.sparse_indices(), "TypeError",
                            "ndarray.indices: coo arrays have row and col, not indices");
    NDArray csr = RunOp("cast_storage", {a}, {{"stype", "csr"}});
    ASSERT_EQ(csr.stype(), StorageType::kCSR);
    EXPECT_EQ(csr.sparse_indices().tensor().dtype.bits, itype.bits);
    EXPECT_EQ(Values<double>(csr.sparse_data()), (std::vector<double>{8, 2, 5}));
    NDArray dense = RunOp("cast_storage", {a}, {{"stype", "default"}});
    EXPECT_EQ(Values<double>(dense), (std::vector<double>{8, 0, 2, 0, 0, 0, 0, 5, 0}));
    NDArray back = RunOp("cast_storage", {dense}, {{"stype", "coo"}});
    ASSERT_EQ(back.stype(), StorageType::kCOO);
    EXPECT_EQ(Values<int64_t>(back.coo_row()), (std::vector<int64_t>{0, 0, 2}));
    EXPECT_EQ(Values<int64_t>(back.coo_col()), (std::vector<int64_t>{0, 2, 1}));
    NDArray rsp = RunOp("cast_storage", {a}, {{"stype", "row_sparse"}});
    EXPECT_EQ(rsp.stype(), StorageType::kRowSparse);
  }
}

TEST(SparseCOO, MalformedPartsAreValueErrors) {
  int64_t shape[] = {2, 3};
  auto d = [] { return Make<double>({2}, kF64, {1, 2}); };
  MXFFI_EXPECT_THROW_KIND(NDArray::COO(shape, d(), Make<int64_t>({2}, kI64, {0, 2}),
                                       Make<int64_t>({2}, kI64, {0, 0}), "coo_matrix"),
                          "ValueError", "coo_matrix: row[1]=2 is out of range for 2 rows");
  MXFFI_EXPECT_THROW_KIND(NDArray::COO(shape, d(), Make<int64_t>({2}, kI64, {0, 1}),
                                       Make<int64_t>({2}, kI64, {-1, 0}), "coo_matrix"),
                          "ValueError", "coo_matrix: col[0]=-1 is out of range for 3 columns");
  MXFFI_EXPECT_THROW_KIND(NDArray::COO(shape, d(), Make<int64_t>({1}, kI64, {0}),
                                       Make<int64_t>({2}, kI64, {0, 0}), "coo_matrix"),
                          "ValueError",
                          "coo_matrix: data, row and col must have one length; got 2, 1 and 2");
  MXFFI_EXPECT_THROW_KIND(NDArray::COO(shape, d(), Make<int32_t>({2}, kI32, {0, 1}),
                                       Make<int64_t>({2}, kI64, {0, 0}), "coo_matrix"),
                          "ValueError",
                          "coo_matrix: row (int32) and col (int64) must have the same dtype");
}

TEST(SparseCOO, LargeInputsConvertOnThePoolAsTheSerialOrderSays) {
  // Many entries over few rows, so the counting sort runs split across threads; the reference
  // sums each (row, col) in stored order.
  const int64_t rows = 300, cols = 50, nnz = 200000;
  std::vector<int64_t> r(nnz), c(nnz);
  std::vector<double> v(nnz);
  uint64_t s = 12345;
  auto next = [&s] { return (s = s * 6364136223846793005ULL + 1442695040888963407ULL) >> 33; };
  std::vector<std::vector<double>> ref(rows, std::vector<double>(cols, 0.0));
  std::vector<std::vector<bool>> seen(rows, std::vector<bool>(cols, false));
  for (int64_t j = 0; j < nnz; ++j) {
    r[j] = static_cast<int64_t>(next() % rows);
    c[j] = static_cast<int64_t>(next() % cols);
    v[j] = static_cast<double>(next() % 1000) / 8.0;
    ref[r[j]][c[j]] += v[j];
    seen[r[j]][c[j]] = true;
  }
  int64_t shape[] = {rows, cols};
  NDArray a = NDArray::COO(shape, Make<double>({nnz}, kF64, v), Make<int64_t>({nnz}, kI64, r),
                           Make<int64_t>({nnz}, kI64, c), "coo_matrix");
  NDArray csr = RunOp("cast_storage", {a}, {{"stype", "csr"}});
  const std::vector<int64_t> ip = Values<int64_t>(csr.sparse_indptr());
  const std::vector<int64_t> ix = Values<int64_t>(csr.sparse_indices());
  const std::vector<double> dv = Values<double>(csr.sparse_data());
  ASSERT_EQ(static_cast<int64_t>(ip.size()), rows + 1);
  for (int64_t i = 0; i < rows; ++i) {
    int64_t k = ip[i];
    for (int64_t j = 0; j < cols; ++j) {
      if (!seen[i][j]) continue;
      ASSERT_LT(k, ip[i + 1]) << "row " << i;
      ASSERT_EQ(ix[k], j) << "row " << i;
      ASSERT_EQ(dv[k], ref[i][j]) << "row " << i << " col " << j;  // exact: one order
      ++k;
    }
    ASSERT_EQ(k, ip[i + 1]) << "row " << i;
  }
}

TEST(SparseCOO, OpsWithoutACOOKernelRunOnCSRAndWarnOnce) {
  NDArray a = SmallCOO(kI64);
  unsetenv("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE");
  testing::internal::CaptureStderr();
  NDArray x = RunOp("_copy", {a});
  NDArray y = RunOp("_copy", {a});
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(x.stype(), StorageType::kDefault);
  EXPECT_EQ(Values<double>(y), (std::vector<double>{8, 0, 2, 0, 0, 0, 0, 5, 0}));
  EXPECT_NE(err.find("storage fallback: _copy has no kernel for coo inputs; input storage types "
                     "(coo,)"),
            std::string::npos)
      << err;
  mxffi::OpAttrs attrs;
  attrs.op = mxffi::Op::Get("_copy");
  StorageType out[1];
  // Storage inference sees the coo input as the csr array the op gets.
  EXPECT_EQ(mxffi::InferDispatch(attrs, mxffi::Span<const NDArray>(&a, 1),
                                 mxffi::Span<StorageType>(out, 1)),
            mxffi::DispatchMode::kFComputeFallback);
}

}  // namespace

namespace {

TEST(SparseDot, CsrAtCsrStaysRightWhenRowsOfTheRightOperandAreNotSorted) {
  // Kernels may assume canonical rows (constructors sort them), but a row of b built around
  // the constructors must not lose products: csr @ csr reads the columns of a row from the bit
  // words between the first and last columns of the rows of b it names, and reads every word
  // when that span misses some (here column 150 of b's row 0, listed between 10 and 20).
  int64_t ashape[] = {1, 2};
  NDArray a =
      NDArray::CSR(ashape, Make<double>({2}, kF64, {1, 1}), Make<int32_t>({2}, kI32, {0, 1}),
                   Make<int32_t>({2}, kI32, {0, 2}), "test");
  int64_t bshape[] = {2, 200};
  NDArray b = NDArray::EmptySparse(StorageType::kCSR, bshape, 2, kF64, DLDevice{kDLCPU, 0});
  b.SetSparseStorage(Make<double>({5}, kF64, {1, 2, 3, 4, 5}),
                     Make<int32_t>({5}, kI32, {10, 150, 20, 20, 5}),
                     Make<int32_t>({3}, kI32, {0, 3, 5}));
  for (int round = 0; round < 2; ++round) {  // the bit words are left clear for the next call
    NDArray c = RunOp("dot", {a, b});
    ASSERT_EQ(c.stype(), StorageType::kCSR);
    EXPECT_EQ(Values<int32_t>(c.sparse_indices()), (std::vector<int32_t>{5, 10, 20, 150}));
    EXPECT_EQ(Values<double>(c.sparse_data()), (std::vector<double>{5, 1, 7, 2}));
    EXPECT_EQ(Values<int32_t>(c.sparse_indptr()), (std::vector<int32_t>{0, 4}));
  }
}

}  // namespace
