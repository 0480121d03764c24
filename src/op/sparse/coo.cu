/*!
 * \file coo.cu
 * \brief CUDA kernels of the coo <-> csr conversions (see coo_cuda.h).
 *
 * Simple rather than fast: every entry's position goes through two full stable radix sorts
 * (CUB's), by column and then by row, so that the order, and the order in which repeated pairs
 * are summed, is the CPU kernel's.
 */
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>

#include "coo_cuda.h"
#include "op/cuda_kernel.cuh"
#include "sparse_util.cuh"

namespace mxffi {
namespace cuda {
namespace {

constexpr const char* kName = "cast_storage";

/*! \brief Where the scratch parts lie in the workspace (byte offsets, 256-aligned). */
struct COOLayout {
  int64_t pos_a, pos_b, key_a, key_b, flags, uid, row_count, row_start, temp, temp_bytes, bytes;
};

COOLayout Layout(int64_t nnz, int64_t rows) {
  COOLayout l{};
  const int64_t n = std::max<int64_t>(nnz, 1);
  int64_t at = 0;
  auto take = [&](int64_t bytes) {
    const int64_t here = at;
    at += Align256(bytes);
    return here;
  };
  l.pos_a = take(n * 8);
  l.pos_b = take(n * 8);
  l.key_a = take(n * 8);
  l.key_b = take(n * 8);
  l.flags = take(n * 8);
  l.uid = take((n + 1) * 8);
  l.row_count = take(std::max<int64_t>(rows, 1) * 8);
  l.row_start = take((rows + 1) * 8);
  size_t sort_bytes = 0;
  if (nnz > 0) {
    MXFFI_CUDA_CALL(kName, cub::DeviceRadixSort::SortPairs(
                               nullptr, sort_bytes, static_cast<const int64_t*>(nullptr),
                               static_cast<int64_t*>(nullptr), static_cast<const int64_t*>(nullptr),
                               static_cast<int64_t*>(nullptr), static_cast<int>(nnz)));
  }
  const size_t scan_bytes = std::max(ScanTempBytes(nnz, kName), ScanTempBytes(rows, kName));
  l.temp_bytes = static_cast<int64_t>(std::max<size_t>(std::max(sort_bytes, scan_bytes), 1));
  l.temp = take(l.temp_bytes);
  l.bytes = at;
  return l;
}

template <typename T>
T* At(void* ws, int64_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(ws) + offset);
}

template <typename T>
const T* At(const void* ws, int64_t offset) {
  return reinterpret_cast<const T*>(static_cast<const char*>(ws) + offset);
}

/*! \brief pos[k] = k and key[k] = ids[k], as int64. */
template <typename IType>
__global__ void IotaKeysKernel(int64_t n, const IType* __restrict__ ids, int64_t* __restrict__ pos,
                               int64_t* __restrict__ key) {
  MXFFI_CUDA_LOOP(k, n) {
    pos[k] = k;
    key[k] = static_cast<int64_t>(ids[k]);
  }
}

/*! \brief key[k] = ids[pos[k]], as int64. */
template <typename IType>
__global__ void GatherKeysKernel(int64_t n, const IType* __restrict__ ids,
                                 const int64_t* __restrict__ pos, int64_t* __restrict__ key) {
  MXFFI_CUDA_LOOP(k, n) { key[k] = static_cast<int64_t>(ids[pos[k]]); }
}

/*!
 * \brief flags[k] = 1 where sorted entry k starts a run of one (row, col) pair, and one more
 *  for its row in row_count.
 */
template <typename IType>
__global__ void FlagRunsKernel(int64_t n, const int64_t* __restrict__ row_sorted,
                               const IType* __restrict__ col, const int64_t* __restrict__ pos,
                               int64_t* __restrict__ flags, int64_t* __restrict__ row_count) {
  MXFFI_CUDA_LOOP(k, n) {
    const bool head =
        k == 0 || row_sorted[k] != row_sorted[k - 1] || col[pos[k]] != col[pos[k - 1]];
    flags[k] = head ? 1 : 0;
    if (head) {
      atomicAdd(reinterpret_cast<unsigned long long*>(row_count + row_sorted[k]),  // NOLINT
                1ULL);
    }
  }
}

/*! \brief Each run's values summed in sorted (stored) order, and its column, at its number. */
template <typename DType, typename IType>
__global__ void SumRunsKernel(int64_t n, const int64_t* __restrict__ flags,
                              const int64_t* __restrict__ uid, const int64_t* __restrict__ pos,
                              const DType* __restrict__ val, const IType* __restrict__ col,
                              DType* __restrict__ out_val, IType* __restrict__ out_col) {
  MXFFI_CUDA_LOOP(k, n) {
    if (flags[k] == 0) continue;
    DType s = val[pos[k]];
    for (int64_t t = k + 1; t < n && flags[t] == 0; ++t) s = static_cast<DType>(s + val[pos[t]]);
    const int64_t u = uid[k];
    out_val[u] = s;
    out_col[u] = col[pos[k]];
  }
}

template <typename IType>
__global__ void ConvertStartsKernel(int64_t n, const int64_t* __restrict__ in,
                                    IType* __restrict__ out) {
  MXFFI_CUDA_LOOP(i, n) { out[i] = static_cast<IType>(in[i]); }
}

template <typename IType>
__global__ void RowIdsKernel(int64_t rows, const IType* __restrict__ indptr,
                             IType* __restrict__ row) {
  MXFFI_CUDA_LOOP(i, rows) {
    for (int64_t j = indptr[i]; j < static_cast<int64_t>(indptr[i + 1]); ++j) {
      row[j] = static_cast<IType>(i);
    }
  }
}

}  // namespace

size_t COOWorkspaceBytes(int64_t nnz, int64_t rows) {
  MXFFI_CHECK(nnz <= INT_MAX, ValueError) << kName << ": coo to csr on a CUDA device takes at most "
                                          << INT_MAX << " stored values; this array has " << nnz;
  return static_cast<size_t>(Layout(nnz, rows).bytes);
}

int64_t COOCountDistinct(const DLTensor& row, const DLTensor& col, int64_t rows, void* workspace,
                         void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t n = row.shape[0];
  const COOLayout l = Layout(n, rows);
  int64_t* pos_a = At<int64_t>(workspace, l.pos_a);
  int64_t* pos_b = At<int64_t>(workspace, l.pos_b);
  int64_t* key_a = At<int64_t>(workspace, l.key_a);
  int64_t* key_b = At<int64_t>(workspace, l.key_b);
  int64_t* flags = At<int64_t>(workspace, l.flags);
  int64_t* uid = At<int64_t>(workspace, l.uid);
  int64_t* row_count = At<int64_t>(workspace, l.row_count);
  int64_t* row_start = At<int64_t>(workspace, l.row_start);
  void* temp = At<char>(workspace, l.temp);
  size_t temp_bytes = static_cast<size_t>(l.temp_bytes);
  if (rows > 0) {
    MXFFI_CUDA_CALL(kName, cudaMemsetAsync(row_count, 0, rows * sizeof(int64_t), s));
  }
  MXFFI_INDEX_SWITCH(row.dtype, kName, IType, {
    const IType* r = DataPtr<const IType>(row);
    const IType* c = DataPtr<const IType>(col);
    if (n > 0) {
      // By column, then (stable) by row: row-major, repeated pairs in stored order.
      IotaKeysKernel<IType><<<Blocks(n), kThreads, 0, s>>>(n, c, pos_a, key_a);
      MXFFI_CUDA_CHECK_LAUNCH(kName);
      MXFFI_CUDA_CALL(kName, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key_a, key_b, pos_a,
                                                             pos_b, static_cast<int>(n), 0, 64, s));
      GatherKeysKernel<IType><<<Blocks(n), kThreads, 0, s>>>(n, r, pos_b, key_a);
      MXFFI_CUDA_CHECK_LAUNCH(kName);
      MXFFI_CUDA_CALL(kName, cub::DeviceRadixSort::SortPairs(temp, temp_bytes, key_a, key_b, pos_b,
                                                             pos_a, static_cast<int>(n), 0, 64, s));
      FlagRunsKernel<IType><<<Blocks(n), kThreads, 0, s>>>(n, key_b, c, pos_a, flags, row_count);
      MXFFI_CUDA_CHECK_LAUNCH(kName);
    }
  });
  ExclusiveOffsets(flags, uid, n, temp, temp_bytes, s, kName);
  ExclusiveOffsets(row_count, row_start, rows, temp, temp_bytes, s, kName);
  return ReadBack(uid + n, s, kName);
}

void COOWriteCSR(const DLTensor& data, const DLTensor& col, int64_t rows, const void* workspace,
                 const DLTensor& out_data, const DLTensor& out_indices, const DLTensor& out_indptr,
                 void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t n = col.shape[0];
  const COOLayout l = Layout(n, rows);
  const int64_t* pos = At<int64_t>(workspace, l.pos_a);
  const int64_t* flags = At<int64_t>(workspace, l.flags);
  const int64_t* uid = At<int64_t>(workspace, l.uid);
  const int64_t* row_start = At<int64_t>(workspace, l.row_start);
  MXFFI_INDEX_SWITCH(col.dtype, kName, IType, {
    ConvertStartsKernel<IType>
        <<<Blocks(rows + 1), kThreads, 0, s>>>(rows + 1, row_start, DataPtr<IType>(out_indptr));
    MXFFI_CUDA_CHECK_LAUNCH(kName);
    if (n > 0) {
      MXFFI_TYPE_SWITCH(data.dtype, kName, DType, {
        SumRunsKernel<DType, IType><<<Blocks(n), kThreads, 0, s>>>(
            n, flags, uid, pos, DataPtr<const DType>(data), DataPtr<const IType>(col),
            DataPtr<DType>(out_data), DataPtr<IType>(out_indices));
        MXFFI_CUDA_CHECK_LAUNCH(kName);
      });
    }
  });
}

void CSRRowIds(const DLTensor& indptr, const DLTensor& row_out, void* stream) {
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  const int64_t rows = indptr.shape[0] - 1;
  if (rows <= 0 || row_out.shape[0] == 0) return;
  MXFFI_INDEX_SWITCH(indptr.dtype, kName, IType, {
    RowIdsKernel<IType><<<Blocks(rows), kThreads, 0, s>>>(rows, DataPtr<const IType>(indptr),
                                                          DataPtr<IType>(row_out));
    MXFFI_CUDA_CHECK_LAUNCH(kName);
  });
}

}  // namespace cuda
}  // namespace mxffi
