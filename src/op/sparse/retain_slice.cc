/*!
 * \file retain_slice.cc
 * \brief sparse_retain (the stored rows of a row_sparse array that a list of ids names) and
 *  slice_rows (rows [begin, end) of a dense, csr or row_sparse array).
 *
 * Both copy what they keep: a result never shares memory with its input, so writing into one
 * cannot change the other.
 */
#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "../parallel.h"
#include "sparse_misc_op.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(SliceRowsParam);

namespace {

// ---- sparse_retain ---------------------------------------------------------------------------

DispatchMode RetainStype(const OpAttrs&, DLDevice, Span<const StorageType> in,
                         Span<StorageType> out) {
  MXFFI_CHECK(in[0] == StorageType::kRowSparse && in[1] == StorageType::kDefault, TypeError)
      << "sparse_retain: data must be row_sparse and indices dense; got data "
      << StorageTypeName(in[0]) << " and indices " << StorageTypeName(in[1]);
  out[0] = StorageType::kRowSparse;
  return DispatchMode::kFComputeEx;
}

/*! \brief The requested row ids, checked against rows, sorted and without duplicates. */
std::vector<int64_t> RequestedRows(const NDArray& indices_in, int64_t rows) {
  NDArray indices = indices_in.Contiguous();
  const int64_t n = indices.numel();
  std::vector<int64_t> ids(n);
  MXFFI_INDEX_SWITCH(indices.tensor().dtype, "sparse_retain", IType, {
    const IType* p = Ptr<IType>(indices);
    for (int64_t i = 0; i < n; ++i) {
      MXFFI_CHECK(p[i] >= 0 && p[i] < rows, ValueError)
          << "sparse_retain: indices[" << i << "]=" << static_cast<int64_t>(p[i])
          << " is out of range for data with " << rows << " rows; expected 0 <= index < " << rows;
      ids[i] = static_cast<int64_t>(p[i]);
    }
  });
  if (!std::is_sorted(ids.begin(), ids.end())) std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

void RetainCompute(const OpAttrs&, const OpContext&, Span<const NDArray> in, Span<const OpReqType>,
                   Span<const NDArray> out) {
  const NDArray& data = in[0];
  MXFFI_CHECK(data.storage_initialized(), ValueError)
      << "sparse_retain: the row_sparse array's storage is not initialised";
  const DLTensor& t = data.tensor();
  const std::vector<int64_t> want = RequestedRows(in[1], t.shape[0]);
  const NDArray& stored_idx = data.sparse_indices();
  const DLDataType itype = stored_idx.tensor().dtype;
  const int64_t k = stored_idx.tensor().shape[0];
  const int64_t row_bytes = RowWidth(t) * DataTypeBytes(t.dtype);
  MXFFI_INDEX_SWITCH(itype, "sparse_retain", IType, {
    const IType* stored = Ptr<IType>(stored_idx);
    // Both lists are sorted: one merge finds the stored rows that were asked for.
    std::vector<int64_t> keep;
    keep.reserve(std::min<int64_t>(k, static_cast<int64_t>(want.size())));
    for (int64_t j = 0, w = 0; j < k && w < static_cast<int64_t>(want.size());) {
      const int64_t r = stored[j];
      if (r < want[w]) {
        ++j;
      } else if (r > want[w]) {
        ++w;
      } else {
        keep.push_back(j);
        ++j;
        ++w;
      }
    }
    const int64_t m = static_cast<int64_t>(keep.size());
    out[0].CheckAndAlloc(m, itype);
    IType* idx_out = Ptr<IType>(out[0].sparse_indices());
    const char* src = static_cast<const char*>(data.sparse_data().data());
    char* dst = static_cast<char*>(out[0].sparse_data().data());
    ParallelFor(m, row_bytes / 4 + 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        idx_out[i] = stored[keep[i]];
        if (row_bytes > 0) std::memcpy(dst + i * row_bytes, src + keep[i] * row_bytes, row_bytes);
      }
    });
  });
}

// ---- slice_rows ------------------------------------------------------------------------------

void SliceRowsShape(const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
  const SliceRowsParam& p = attrs.get<SliceRowsParam>();
  MXFFI_CHECK(in[0].ndim() >= 1, ValueError)
      << "slice_rows: the array must have at least one dimension; got shape " << in[0].ToString();
  const int64_t rows = in[0][0];
  MXFFI_CHECK(0 <= p.begin && p.begin <= p.end && p.end <= rows, ValueError)
      << "slice_rows: expected 0 <= begin <= end <= " << rows << " (the number of rows); got "
      << "begin=" << p.begin << ", end=" << p.end;
  out[0] = in[0];
  out[0][0] = p.end - p.begin;
}

DispatchMode SliceRowsStype(const OpAttrs&, DLDevice, Span<const StorageType> in,
                            Span<StorageType> out) {
  out[0] = in[0];
  return in[0] == StorageType::kDefault ? DispatchMode::kFCompute : DispatchMode::kFComputeEx;
}

void SliceRowsDense(const OpAttrs& attrs, const OpContext&, Span<const DLTensor> in,
                    Span<const OpReqType>, Span<const DLTensor> out) {
  const SliceRowsParam& p = attrs.get<SliceRowsParam>();
  const int64_t row_bytes = RowWidth(in[0]) * DataTypeBytes(in[0].dtype);
  const char* src = static_cast<const char*>(in[0].data) + in[0].byte_offset;
  char* dst = static_cast<char*>(out[0].data) + out[0].byte_offset;
  const int64_t n = (p.end - p.begin) * row_bytes;
  if (n > 0) std::memcpy(dst, src + p.begin * row_bytes, n);
}

void SliceCSR(const NDArray& csr, int64_t begin, int64_t end, const NDArray& out) {
  const DLDataType itype = csr.sparse_indices().tensor().dtype;
  const int64_t rows = end - begin;
  MXFFI_INDEX_SWITCH(itype, "slice_rows", IType, {
    const IType* indptr = Ptr<IType>(csr.sparse_indptr());
    const int64_t first = indptr[begin], nnz = indptr[end] - first;
    out.CheckAndAlloc(nnz, itype);
    IType* indptr_out = Ptr<IType>(out.sparse_indptr());
    for (int64_t r = 0; r <= rows; ++r) indptr_out[r] = indptr[begin + r] - first;
    const int64_t vbytes = DataTypeBytes(csr.tensor().dtype);
    if (nnz > 0) {
      std::memcpy(out.sparse_data().data(),
                  static_cast<const char*>(csr.sparse_data().data()) + first * vbytes,
                  nnz * vbytes);
      std::memcpy(out.sparse_indices().data(), Ptr<IType>(csr.sparse_indices()) + first,
                  nnz * sizeof(IType));
    }
  });
}

void SliceRowSparse(const NDArray& rsp, int64_t begin, int64_t end, const NDArray& out) {
  const DLDataType itype = rsp.sparse_indices().tensor().dtype;
  const int64_t k = rsp.sparse_indices().tensor().shape[0];
  const int64_t row_bytes = RowWidth(rsp.tensor()) * DataTypeBytes(rsp.tensor().dtype);
  MXFFI_INDEX_SWITCH(itype, "slice_rows", IType, {
    const IType* stored = Ptr<IType>(rsp.sparse_indices());
    const int64_t lo = std::lower_bound(stored, stored + k, begin) - stored;
    const int64_t hi = std::lower_bound(stored, stored + k, end) - stored;
    out.CheckAndAlloc(hi - lo, itype);
    IType* idx_out = Ptr<IType>(out.sparse_indices());
    for (int64_t j = lo; j < hi; ++j) idx_out[j - lo] = static_cast<IType>(stored[j] - begin);
    if (hi > lo && row_bytes > 0) {
      std::memcpy(out.sparse_data().data(),
                  static_cast<const char*>(rsp.sparse_data().data()) + lo * row_bytes,
                  (hi - lo) * row_bytes);
    }
  });
}

void SliceRowsEx(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                 Span<const OpReqType>, Span<const NDArray> out) {
  const SliceRowsParam& p = attrs.get<SliceRowsParam>();
  MXFFI_CHECK(in[0].storage_initialized(), ValueError)
      << "slice_rows: the sparse array's storage is not initialised";
  if (in[0].stype() == StorageType::kCSR) {
    SliceCSR(in[0], p.begin, p.end, out[0]);
  } else {
    SliceRowSparse(in[0], p.begin, p.end, out[0]);
  }
}

void SameType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) { out[0] = in[0]; }

}  // namespace

MXFFI_REGISTER_OP(sparse_retain)
    .describe(
        "The stored rows of a row_sparse array whose ids are listed in indices (any order, "
        "duplicates allowed); the other rows become zero. The result is row_sparse.")
    .set_num_inputs(2)
    .add_argument("data", "NDArray", "a row_sparse array")
    .add_argument("indices", "NDArray", "row ids, int32 or int64, 1-D")
    .set_attr<FInferShape>("FInferShape",
                           [](const OpAttrs&, Span<const TShape> in, Span<TShape> out) {
                             MXFFI_CHECK(in[1].ndim() == 1, ValueError)
                                 << "sparse_retain: indices must be 1-D; got shape "
                                 << in[1].ToString();
                             out[0] = in[0];
                           })
    .set_attr<FInferType>("FInferType",
                          [](const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
                            MXFFI_CHECK(IsIndexDType(in[1]), TypeError)
                                << "sparse_retain: indices must be int32 or int64; got "
                                << DataTypeToString(in[1]);
                            out[0] = in[0];
                          })
    .set_attr<FInferStorageType>("FInferStorageType", RetainStype)
    .set_attr<FComputeEx>("FComputeEx<cpu>", RetainCompute);

MXFFI_REGISTER_OP(slice_rows)
    .describe(
        "Rows [begin, end) of an array (dense, csr or row_sparse), in the same storage type; a "
        "copy.")
    .add_argument("data", "NDArray", "the array")
    .set_param<SliceRowsParam>()
    .set_attr<FInferShape>("FInferShape", SliceRowsShape)
    .set_attr<FInferType>("FInferType", SameType)
    .set_attr<FInferStorageType>("FInferStorageType", SliceRowsStype)
    .set_attr<FCompute>("FCompute<cpu>", SliceRowsDense)
    .set_attr<FComputeEx>("FComputeEx<cpu>", SliceRowsEx);

}  // namespace op
}  // namespace mxffi
