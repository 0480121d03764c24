/*!
 * \file indexing_cuda.h
 * \brief Launchers of the CUDA kernels of the indexing ops (indexing.cu): plain functions of
 *  DLTensors, device pointers and plain values, for the host-compiled GPU registration
 *  (indexing_gpu.cc). Every launch runs on stream.
 */
#ifndef MXFFI_SRC_OP_INDEXING_INDEXING_CUDA_H_
#define MXFFI_SRC_OP_INDEXING_INDEXING_CUDA_H_

#include <mxffi/ndarray/dlpack_compat.h>

#include <cstdint>

#include "index_layout.h"

namespace mxffi {
namespace cuda {

/*!
 * \brief *first (a device int64, set here) = the smallest C-order position of an element of the
 *  int64 device array idx (any strides) outside [-size, size), or a value of at least its
 *  number of elements when none is.
 */
void FirstIndexOutOfRange(const DLTensor& idx, int64_t size, int64_t* first, const char* fname,
                          void* stream);

/*!
 * \brief out (C-contiguous) = x through the layout, which lives in device memory (layout);
 *  n is its number of positions.
 */
void Gather(const op::indexing::IndexLayout* layout, int64_t n, const DLTensor& x,
            const DLTensor& out, const char* fname, void* stream);

/*!
 * \brief out (any strides) at the layout's positions = values (out's dtype). keep (a device
 *  byte per position of the index arrays' shape B, C order) says which index tuples write:
 *  the last of each set of repeated ones; NULL when none repeats.
 */
void Scatter(const op::indexing::IndexLayout* layout, int64_t n, const DLTensor& values,
             const DLTensor& out, const uint8_t* keep, const char* fname, void* stream);

/*! \brief *count (a device int64, set here) = the number of nonzero elements of x. */
void CountNonzero(const DLTensor& x, int64_t* count, const char* fname, void* stream);

/*! \return the number of blocks NonzeroBlockCounts and NonzeroWrite split x into. */
int NonzeroBlocks(int64_t n);

/*! \brief counts[b] (device, NonzeroBlocks entries) = the nonzero elements of block b's part. */
void NonzeroBlockCounts(const DLTensor& x, int64_t* counts, const char* fname, void* stream);

/*!
 * \brief Write the coordinates of x's nonzero elements into out ((ndim, count) int64, device),
 *  block b's from column starts[b] on (device, the exclusive prefix sums of the counts).
 */
void NonzeroWrite(const DLTensor& x, const int64_t* starts, int64_t* out, int64_t count,
                  const char* fname, void* stream);

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_INDEXING_INDEXING_CUDA_H_
