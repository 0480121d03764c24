/*!
 * \file spgemm_cuda.h
 * \brief The CUDA kernels of csr @ csr (spgemm.cu), launched by csr_transpose_gpu.cc.
 */
#ifndef MXFFI_SRC_OP_SPARSE_SPGEMM_CUDA_H_
#define MXFFI_SRC_OP_SPARSE_SPGEMM_CUDA_H_

#include <dlpack/dlpack.h>

#include <cstdint>

#include "dot_csr_cuda.h"

namespace mxffi {
namespace cuda {

/*!
 * \brief The first stage of a @ b (a: m x k, b: k x n, one value dtype, any index dtypes): each
 *  row's products, sorted by column (stable: one column's products in the order of a's stored
 *  values), and the number of distinct columns whose sum is not zero. Owns its device memory.
 */
class SpGemmPlan {
 public:
  SpGemmPlan(const CsrParts& a, const CsrParts& b, const ScratchAlloc& scratch, void* stream);
  /*! \return the number of stored values of the product (read back to the host). */
  int64_t nnz() const { return nnz_; }
  /*!
   * \brief Write the product: out_ptr (m + 1 row starts), out_idx (nnz column ids), both of
   *  otype, and out_val (nnz values): columns increasing, sums that are zero left out.
   */
  void Write(void* out_ptr, void* out_idx, void* out_val, DLDataType otype, void* stream) const;

 private:
  int64_t m_ = 0, nnz_ = 0;
  DLDataType dtype_{kDLFloat, 32, 1};
  const int64_t* offsets_ = nullptr;  // m + 1 starts of each row's products
  const int64_t* keys_ = nullptr;     // the products' columns, sorted within each row
  const void* vals_ = nullptr;        // the products, in the same order
  int64_t* starts_ = nullptr;         // m + 1 starts of each row's stored values in the result
};

/*! \brief out[i] = in[i] as otype (int32 or int64), for i < n. */
void WriteIndices(const int64_t* in, int64_t n, void* out, DLDataType otype, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_SPGEMM_CUDA_H_
