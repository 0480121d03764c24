/*!
 * \file csr_canonical.cc
 * \brief The canonical form of CSR parts (columns sorted within each row, duplicate columns
 *  summed), which NDArray::CSR asks for through the hook of src/ndarray/sparse_canonical.h.
 */
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "../../ndarray/sparse_canonical.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

/*!
 * \brief The canonical form of valid CSR parts whose rows are not all strictly increasing:
 *  each row sorted by column, duplicates summed. Returns the new data, indices and indptr.
 */
template <typename IType, typename DType>
void Canonicalize(int64_t rows, NDArray* data, NDArray* indices, NDArray* indptr) {
  const IType* ip = Ptr<IType>(*indptr);
  const IType* ix = Ptr<IType>(*indices);
  const DType* dv = Ptr<DType>(*data);
  int64_t nnz = static_cast<int64_t>(ip[rows]);
  std::vector<IType> out_ix;
  std::vector<DType> out_dv;
  out_ix.reserve(nnz);
  out_dv.reserve(nnz);
  std::vector<IType> out_ip(rows + 1, 0);
  std::vector<int64_t> order;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t b = ip[r], e = ip[r + 1];
    order.resize(e - b);
    std::iota(order.begin(), order.end(), b);
    std::stable_sort(order.begin(), order.end(),
                     [&](int64_t x, int64_t y) { return ix[x] < ix[y]; });
    for (size_t k = 0; k < order.size(); ++k) {
      int64_t j = order[k];
      if (k > 0 && ix[j] == out_ix.back()) {
        out_dv.back() = static_cast<DType>(out_dv.back() + dv[j]);
      } else {
        out_ix.push_back(ix[j]);
        out_dv.push_back(dv[j]);
      }
    }
    out_ip[r + 1] = static_cast<IType>(out_ix.size());
  }
  int64_t n = static_cast<int64_t>(out_ix.size());
  DLDataType itype = indices->tensor().dtype;
  *data = NewArray({n}, data->tensor().dtype);
  *indices = NewArray({n}, itype);
  *indptr = NewArray({rows + 1}, itype);
  std::copy(out_dv.begin(), out_dv.end(), Ptr<DType>(*data));
  std::copy(out_ix.begin(), out_ix.end(), Ptr<IType>(*indices));
  std::copy(out_ip.begin(), out_ip.end(), Ptr<IType>(*indptr));
}

/*! \brief The canonicalizer NDArray::CSR calls: Canonicalize for the parts' dtypes. */
void CanonicalizeCSR(int64_t rows, NDArray* data, NDArray* indices, NDArray* indptr,
                     const char* fname) {
  MXFFI_INDEX_SWITCH(indices->tensor().dtype, fname, IType, {
    MXFFI_TYPE_SWITCH(data->tensor().dtype, fname, DType,
                      { Canonicalize<IType, DType>(rows, data, indices, indptr); });
  });
}

[[maybe_unused]] const bool kCanonicalizerInstalled =
    (details::SetCSRCanonicalizer(CanonicalizeCSR), true);

}  // namespace
}  // namespace op
}  // namespace mxffi
