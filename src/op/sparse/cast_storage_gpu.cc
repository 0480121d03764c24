/*!
 * \file cast_storage_gpu.cc
 * \brief The cast_storage op's GPU kernel: every pair of default, row_sparse, csr and coo (coo
 *  through csr: coo_cuda.h), with the
 *  CPU kernel's results (canonical csr, the same index dtypes, -0.0 dropped and NaN kept). It
 *  is also what op::CastStorage runs for CUDA arrays, so the dense fallback works on the GPU.
 *
 * A sparse result's size is known only after a pass over the input: that count is copied back
 * on the op's stream (the only wait), then the parts are allocated on the device and filled.
 */
#include <mxffi/op/op.h>

#include <cstdint>
#include <vector>

#include "cast_storage.h"
#include "cast_storage_cuda.h"
#include "coo_cuda.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

constexpr const char* kName = "cast_storage";

/*! \return uninitialised device scratch of bytes bytes (one byte at least). */
NDArray Workspace(int64_t bytes, DLDevice device) {
  const int64_t n = bytes > 0 ? bytes : 1;
  return NDArray::Empty(&n, 1, DLDataType{kDLUInt, 8, 1}, device);
}

/*! \return a C-contiguous device copy of a dense array (the array itself when it is one). */
NDArray ContiguousOnDevice(const NDArray& a, void* stream) {
  if (a.IsContiguous()) return a;
  const DLTensor& t = a.tensor();
  NDArray out = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  cuda::CopyStrided(t, out.tensor(), stream);
  return out;
}

/*! \brief A device copy of a C-contiguous part. */
NDArray CopyPart(const NDArray& part, void* stream) {
  const DLTensor& t = part.tensor();
  NDArray out = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  cuda::CopyStrided(t, out.tensor(), stream);
  return out;
}

/*! \brief A 2-D view (rows, cols) of a C-contiguous array's elements, for the launchers. */
DLTensor Matrix(const DLTensor& t, int64_t* shape, int64_t rows, int64_t cols) {
  shape[0] = rows;
  shape[1] = cols;
  DLTensor m = t;
  m.ndim = 2;
  m.shape = shape;
  m.strides = nullptr;
  return m;
}

void DenseToCSR(const NDArray& dense_in, DLDataType itype, const NDArray& out, void* stream) {
  const DLTensor& t = dense_in.tensor();
  MXFFI_CHECK(t.ndim == 2, ValueError)
      << kName << ": a csr array is 2-D; the input has " << t.ndim << " dimensions";
  const NDArray dense = ContiguousOnDevice(dense_in, stream);
  const int64_t rows = t.shape[0], cols = t.shape[1];
  const cuda::NonZeroPlan plan = cuda::PlanNonZeros(rows, cols, true);
  NDArray ws = Workspace(plan.bytes, t.device);
  const int64_t nnz = cuda::CountNonZeros(dense.tensor(), plan, ws.data(), stream);
  MXFFI_CHECK(itype.bits == 64 || (nnz <= INT32_MAX && cols <= INT32_MAX), ValueError)
      << kName << ": " << nnz << " values and " << cols << " columns do not fit int32 indices";
  out.CheckAndAlloc(nnz, itype);
  cuda::FillCSR(dense.tensor(), plan, ws.data(), out.sparse_data().tensor(),
                out.sparse_indices().tensor(), &out.sparse_indptr().tensor(), stream);
}

void DenseToRowSparse(const NDArray& dense_in, DLDataType itype, const NDArray& out, void* stream) {
  const DLTensor& t = dense_in.tensor();
  MXFFI_CHECK(t.ndim >= 1, ValueError) << kName << ": a row_sparse array has at least one "
                                       << "dimension; the input is 0-d";
  const NDArray dense = ContiguousOnDevice(dense_in, stream);
  const int64_t rows = t.shape[0], width = RowWidth(t);
  const cuda::NonZeroPlan plan = cuda::PlanNonZeros(rows, width, false);
  NDArray ws = Workspace(plan.bytes, t.device);
  int64_t shape[2];
  const DLTensor m = Matrix(dense.tensor(), shape, rows, width);
  const int64_t k = cuda::CountNonZeros(m, plan, ws.data(), stream);
  out.CheckAndAlloc(k, itype);
  cuda::GatherRows(m, plan, ws.data(), out.sparse_data().tensor(), out.sparse_indices().tensor(),
                   stream);
}

void RowSparseToCSR(const NDArray& rsp, const NDArray& out, void* stream) {
  const DLTensor& t = rsp.tensor();
  MXFFI_CHECK(t.ndim == 2, ValueError)
      << kName << ": a csr array is 2-D; the input has " << t.ndim << " dimensions";
  const NDArray& stored = rsp.sparse_indices();
  const DLDataType itype = stored.tensor().dtype;
  const int64_t k = stored.tensor().shape[0], cols = t.shape[1];
  // The stored rows as a k-row dense matrix to csr; the indptr then spreads over every row.
  const cuda::NonZeroPlan plan = cuda::PlanNonZeros(k, cols, true);
  NDArray ws = Workspace(plan.bytes, t.device);
  int64_t shape[2];
  const DLTensor m = Matrix(rsp.sparse_data().tensor(), shape, k, cols);
  const int64_t nnz = cuda::CountNonZeros(m, plan, ws.data(), stream);
  out.CheckAndAlloc(nnz, itype);
  cuda::FillCSR(m, plan, ws.data(), out.sparse_data().tensor(), out.sparse_indices().tensor(),
                nullptr, stream);
  cuda::ScatterIndptr(plan, ws.data(), stored.tensor(), out.sparse_indptr().tensor(), stream);
}

void CSRToRowSparse(const NDArray& csr, const NDArray& out, void* stream) {
  const DLTensor& t = csr.tensor();
  const DLDataType itype = csr.sparse_indices().tensor().dtype;
  const int64_t rows = t.shape[0], cols = t.shape[1];
  const cuda::NonZeroPlan plan = cuda::PlanNonZeros(rows, cols, false);
  NDArray ws = Workspace(plan.bytes, t.device);
  const int64_t k = cuda::CountNonEmptyRows(csr.sparse_indptr().tensor(), plan, ws.data(), stream);
  out.CheckAndAlloc(k, itype);
  cuda::CSRToRowSparse(csr.sparse_data().tensor(), csr.sparse_indices().tensor(),
                       csr.sparse_indptr().tensor(), plan, ws.data(), out.sparse_data().tensor(),
                       out.sparse_indices().tensor(), stream);
}

/*! \brief A canonical csr matrix on the device with the values of a coo one. */
NDArray COOToCSR(const NDArray& coo, void* stream) {
  const DLTensor& t = coo.tensor();
  const int64_t rows = t.shape[0];
  const NDArray& row = coo.coo_row();
  NDArray ws = Workspace(static_cast<int64_t>(cuda::COOWorkspaceBytes(row.tensor().shape[0], rows)),
                         t.device);
  const int64_t nnz =
      cuda::COOCountDistinct(row.tensor(), coo.coo_col().tensor(), rows, ws.data(), stream);
  NDArray csr = NDArray::EmptySparse(StorageType::kCSR, t.shape, 2, t.dtype, t.device);
  csr.CheckAndAlloc(nnz, row.tensor().dtype);
  cuda::COOWriteCSR(coo.sparse_data().tensor(), coo.coo_col().tensor(), rows, ws.data(),
                    csr.sparse_data().tensor(), csr.sparse_indices().tensor(),
                    csr.sparse_indptr().tensor(), stream);
  return csr;
}

/*! \brief A csr matrix's entries, row-major, as the coo output out. */
void CSRToCOO(const NDArray& csr, const NDArray& out, void* stream) {
  const NDArray& indices = csr.sparse_indices();
  out.CheckAndAlloc(indices.tensor().shape[0], indices.tensor().dtype);
  cuda::CSRRowIds(csr.sparse_indptr().tensor(), out.coo_row().tensor(), stream);
  cuda::CopyStrided(csr.sparse_data().tensor(), out.sparse_data().tensor(), stream);
  cuda::CopyStrided(indices.tensor(), out.coo_col().tensor(), stream);
}

/*! \brief src (sparse) made dense into dst, a C-contiguous device array of src's shape. */
void SparseToDense(const NDArray& src_in, const DLTensor& dst, void* stream) {
  const NDArray src = src_in.stype() == StorageType::kCOO ? COOToCSR(src_in, stream) : src_in;
  if (src.stype() == StorageType::kCSR) {
    cuda::CSRToDense(src.sparse_data().tensor(), src.sparse_indices().tensor(),
                     src.sparse_indptr().tensor(), dst, stream);
  } else {
    cuda::RowSparseToDense(src.sparse_data().tensor(), src.sparse_indices().tensor(),
                           RowWidth(src.tensor()), dst, stream);
  }
}

void CastStorageGPU(const OpAttrs& attrs, const OpContext& ctx, Span<const NDArray> in,
                    Span<const OpReqType>, Span<const NDArray> out) {
  const CastStorageParam& p = attrs.get<CastStorageParam>();
  const DLDataType itype = p.idx_dtype.is_none ? kIndex64 : p.idx_dtype.dtype;
  MXFFI_CHECK(IsIndexDType(itype), TypeError)
      << kName << ": idx_dtype must be int32 or int64, got " << DataTypeToString(itype);
  const NDArray& src = in[0];
  MXFFI_CHECK(src.storage_initialized(), ValueError)
      << kName << ": the sparse array's storage is not initialised";
  const StorageType from = src.stype(), to = static_cast<StorageType>(p.stype);
  void* stream = ctx.stream;
  if (to == StorageType::kDefault) {
    // Written in place when the output is C-contiguous, else through a temporary.
    const NDArray& dst = out[0];
    const DLTensor& d = dst.tensor();
    NDArray target = dst.IsContiguous() ? dst : NDArray::Empty(d.shape, d.ndim, d.dtype, d.device);
    if (from == StorageType::kDefault) {
      cuda::CopyStrided(src.tensor(), target.tensor(), stream);
    } else {
      SparseToDense(src, target.tensor(), stream);
    }
    if (!dst.IsContiguous()) cuda::CopyStrided(target.tensor(), dst.tensor(), stream);
    return;
  }
  if (from == to) {
    const NDArray& third = src.sparse_part(2);  // csr indptr, coo col; none for row_sparse
    out[0].SetSparseStorage(CopyPart(src.sparse_part(0), stream),
                            CopyPart(src.sparse_part(1), stream),
                            third.defined() ? CopyPart(third, stream) : NDArray());
    return;
  }
  if (from == StorageType::kCOO) {
    const NDArray csr = COOToCSR(src, stream);
    if (to == StorageType::kCSR) {
      out[0].SetSparseStorage(csr.sparse_data(), csr.sparse_indices(), csr.sparse_indptr());
    } else {
      CSRToRowSparse(csr, out[0], stream);
    }
    return;
  }
  if (to == StorageType::kCOO) {
    NDArray csr = src;
    if (from != StorageType::kCSR) {
      const DLTensor& t = src.tensor();
      csr = NDArray::EmptySparse(StorageType::kCSR, t.shape, t.ndim, t.dtype, t.device);
      if (from == StorageType::kDefault) {
        DenseToCSR(src, itype, csr, stream);
      } else {
        RowSparseToCSR(src, csr, stream);
      }
    }
    CSRToCOO(csr, out[0], stream);
    return;
  }
  if (to == StorageType::kCSR) {
    if (from == StorageType::kDefault) {
      DenseToCSR(src, itype, out[0], stream);
    } else {
      RowSparseToCSR(src, out[0], stream);
    }
    return;
  }
  if (from == StorageType::kDefault) {
    DenseToRowSparse(src, itype, out[0], stream);
  } else {
    CSRToRowSparse(src, out[0], stream);
  }
}

}  // namespace

MXFFI_EXTEND_OP(cast_storage).set_attr<FComputeEx>("FComputeEx<gpu>", CastStorageGPU);

}  // namespace op
}  // namespace mxffi
