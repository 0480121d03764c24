/*!
 * \file sparse_canonical.h
 * \brief The hook through which NDArray::CSR makes parts canonical (each row's columns sorted,
 *  duplicates summed).
 *
 * Summing duplicates is arithmetic on the values in every dtype (float16 and bfloat16
 * included), which is op-layer code: the element types and their switch. The tensor layer
 * includes no op code, so it declares the hook and the op layer installs the implementation
 * when the library loads (src/op/sparse/csr_canonical.cc).
 */
#ifndef MXFFI_SRC_NDARRAY_SPARSE_CANONICAL_H_
#define MXFFI_SRC_NDARRAY_SPARSE_CANONICAL_H_

#include <mxffi/ndarray/ndarray.h>

#include <cstdint>

namespace mxffi {
namespace details {

/*!
 * \brief Replace valid CSR parts (indptr of rows + 1 entries, in-range columns) by their
 *  canonical form: each row's columns sorted, the values of duplicate columns summed.
 *  Errors name fname.
 */
using CSRCanonicalizer = void (*)(int64_t rows, NDArray* data, NDArray* indices, NDArray* indptr,
                                  const char* fname);

/*! \brief Install the canonicalizer NDArray::CSR calls (the op layer does, at load). */
void SetCSRCanonicalizer(CSRCanonicalizer f);

}  // namespace details
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_SPARSE_CANONICAL_H_
