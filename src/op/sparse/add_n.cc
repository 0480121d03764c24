/*!
 * \file add_n.cc
 * \brief add_n: the elementwise sum of num_args arrays of one shape and dtype (float32 or
 *  float64), one op taking any number of inputs (its input count is its num_args parameter).
 *
 * Storage:
 *  - all dense: the dense kernel (FCompute);
 *  - all row_sparse: row_sparse, the union of the stored rows, found by one merge of the k
 *    sorted index lists (FComputeEx);
 *  - any dense, or a mix of csr and row_sparse: dense, the dense inputs summed and the sparse
 *    ones added into the result where they store values (FComputeEx);
 *  - all csr: csr, each row the union of the rows' column lists (one k-way merge per row, the
 *    rows split across the pool); a column whose values cancel stays stored, as a zero.
 */
#include <mxffi/op/op.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "../parallel.h"
#include "sparse_misc_op.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

void AddNShape(const OpAttrs&, Span<const TShape> in, Span<TShape> out) {
  for (size_t i = 1; i < in.size(); ++i) {
    MXFFI_CHECK(in[i] == in[0], ValueError)
        << "add_n: all arrays must have the same shape; arrays[0].shape=" << in[0].ToString()
        << " but arrays[" << i << "].shape=" << in[i].ToString();
  }
  out[0] = in[0];
}

bool IsReal(DLDataType t) {
  return t.code == kDLFloat && t.lanes == 1 && (t.bits == 32 || t.bits == 64);
}

void AddNType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
  for (size_t i = 0; i < in.size(); ++i) {
    MXFFI_CHECK(IsReal(in[i]), TypeError) << "add_n: arrays must be float32 or float64; arrays["
                                          << i << "] is " << DataTypeToString(in[i]);
    MXFFI_CHECK(in[i].bits == in[0].bits, TypeError)
        << "add_n: all arrays must have the same dtype; arrays[0] is " << DataTypeToString(in[0])
        << " but arrays[" << i << "] is " << DataTypeToString(in[i]);
  }
  out[0] = in[0];
}

DispatchMode AddNStype(const OpAttrs&, DLDevice, Span<const StorageType> in,
                       Span<StorageType> out) {
  size_t dense = 0, rsp = 0, csr = 0;
  for (StorageType s : in) {
    dense += s == StorageType::kDefault;
    rsp += s == StorageType::kRowSparse;
    csr += s == StorageType::kCSR;
  }
  if (dense == in.size()) {
    out[0] = StorageType::kDefault;
    return DispatchMode::kFCompute;
  }
  if (rsp == in.size()) {
    out[0] = StorageType::kRowSparse;
    return DispatchMode::kFComputeEx;
  }
  if (csr == in.size()) {
    out[0] = StorageType::kCSR;
    return DispatchMode::kFComputeEx;
  }
  out[0] = StorageType::kDefault;
  return DispatchMode::kFComputeEx;
}

/*!
 * \brief dst = src[0] + src[1] + ... (left to right; zeros when src is empty) over n values, in
 *  cache-sized blocks so that each pass over a block vectorises; split across the pool.
 * \note dst may be one of the sources (an output in place, kWriteInplace): each block is then
 *  summed into a buffer and written afterwards, so no source is overwritten before it is read.
 */
template <typename DType>
void SumDense(const std::vector<const DType*>& src, DType* dst, int64_t n) {
  constexpr int64_t kBlock = 2048;
  const bool in_place = std::find(src.begin(), src.end(), dst) != src.end();
  ParallelFor(n, static_cast<int64_t>(src.size()) + 1, [&](int64_t b, int64_t e) {
    DType buffer[kBlock];  // used in place only
    for (int64_t x0 = b; x0 < e; x0 += kBlock) {
      const int64_t len = std::min(e, x0 + kBlock) - x0;
      DType* __restrict d = in_place ? buffer : dst + x0;
      if (src.empty()) {
        std::memset(static_cast<void*>(d), 0, sizeof(DType) * len);
        continue;
      }
      const DType* __restrict s0 = src[0] + x0;
      for (int64_t x = 0; x < len; ++x) d[x] = s0[x];
      for (size_t i = 1; i < src.size(); ++i) {
        const DType* __restrict si = src[i] + x0;
        for (int64_t x = 0; x < len; ++x) d[x] += si[x];
      }
      if (in_place) std::memcpy(static_cast<void*>(dst + x0), d, sizeof(DType) * len);
    }
  });
}

/*! \brief Dense kernel: out = in[0] + in[1] + ... */
void AddNDense(const OpAttrs&, const OpContext&, Span<const DLTensor> in, Span<const OpReqType>,
               Span<const DLTensor> out) {
  int64_t n = 1;
  for (int d = 0; d < out[0].ndim; ++d) n *= out[0].shape[d];
  MXFFI_REAL_SWITCH(out[0].dtype, "add_n", DType, {
    std::vector<const DType*> src(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      src[i] =
          reinterpret_cast<const DType*>(static_cast<const char*>(in[i].data) + in[i].byte_offset);
    }
    SumDense(src, reinterpret_cast<DType*>(static_cast<char*>(out[0].data) + out[0].byte_offset),
             n);
  });
}

/*! \brief The index dtype of a sparse result: int64 when any sparse input has it, else int32. */
DLDataType ResultIndexType(Span<const NDArray> in) {
  for (const NDArray& a : in) {
    if (a.is_sparse() && a.sparse_indices().tensor().dtype.bits == 64) return kIndex64;
  }
  return kIndex32;
}

/*! \brief Row ids of a row_sparse array as int64. */
std::vector<int64_t> RowIds(const NDArray& rsp) {
  const NDArray& idx = rsp.sparse_indices();
  const int64_t k = idx.tensor().shape[0];
  std::vector<int64_t> ids(k);
  MXFFI_INDEX_SWITCH(idx.tensor().dtype, "add_n", IType, {
    const IType* p = Ptr<IType>(idx);
    for (int64_t j = 0; j < k; ++j) ids[j] = p[j];
  });
  return ids;
}

/*!
 * \brief All row_sparse: a k-way merge of the sorted index lists gives the union and, for every
 *  stored row of every input, its position in the union; the values are then added there.
 */
void AddNRowSparse(Span<const NDArray> in, const NDArray& out) {
  const size_t k = in.size();
  const int64_t width = RowWidth(out.tensor());
  std::vector<std::vector<int64_t>> ids(k), pos(k);
  size_t total = 0;
  for (size_t i = 0; i < k; ++i) {
    ids[i] = RowIds(in[i]);
    pos[i].resize(ids[i].size());
    total += ids[i].size();
  }
  std::vector<int64_t> rows;
  rows.reserve(total);
  std::vector<size_t> head(k, 0);
  while (true) {
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < k; ++i) {
      if (head[i] < ids[i].size() && ids[i][head[i]] < next) next = ids[i][head[i]];
    }
    if (next == INT64_MAX) break;
    const int64_t p = static_cast<int64_t>(rows.size());
    rows.push_back(next);
    for (size_t i = 0; i < k; ++i) {
      if (head[i] < ids[i].size() && ids[i][head[i]] == next) pos[i][head[i]++] = p;
    }
  }
  const int64_t m = static_cast<int64_t>(rows.size());
  const DLDataType itype = ResultIndexType(in);
  out.CheckAndAlloc(m, itype);
  MXFFI_INDEX_SWITCH(itype, "add_n", IType, {
    IType* idx_out = Ptr<IType>(out.sparse_indices());
    for (int64_t j = 0; j < m; ++j) idx_out[j] = static_cast<IType>(rows[j]);
  });
  MXFFI_REAL_SWITCH(out.tensor().dtype, "add_n", DType, {
    DType* dst = Ptr<DType>(out.sparse_data());
    if (m * width > 0) std::memset(static_cast<void*>(dst), 0, sizeof(DType) * m * width);
    for (size_t i = 0; i < k; ++i) {
      const DType* src = Ptr<DType>(in[i].sparse_data());
      const std::vector<int64_t>& where = pos[i];
      // Within one input the target rows differ, so its rows can be added in parallel.
      ParallelFor(static_cast<int64_t>(where.size()), width, [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j) {
          DType* d = dst + where[j] * width;
          const DType* s = src + j * width;
          for (int64_t c = 0; c < width; ++c) d[c] += s[c];
        }
      });
    }
  });
}

/*! \brief One csr summand's parts, with its own index type. */
struct CSRPart {
  const void* data;
  const void* indices;
  const void* indptr;
  bool wide;  // int64 indices
  int64_t at(const void* a, int64_t j) const {
    return wide ? static_cast<const int64_t*>(a)[j] : static_cast<const int32_t*>(a)[j];
  }
};

/*!
 * \brief Merge row r of every summand: emit(column, value) once per column of the union, in
 *  increasing order, with the sum of the summands' values there (left to right). Each input's
 *  current column sits in cur, so finding the next one is a scan of k local values.
 */
template <typename DType, typename Emit>
inline void MergeRow(const std::vector<CSRPart>& parts, int64_t r, int64_t* head, int64_t* end,
                     int64_t* cur, Emit&& emit) {
  const size_t k = parts.size();
  for (size_t i = 0; i < k; ++i) {
    head[i] = parts[i].at(parts[i].indptr, r);
    end[i] = parts[i].at(parts[i].indptr, r + 1);
    cur[i] = head[i] < end[i] ? parts[i].at(parts[i].indices, head[i]) : INT64_MAX;
  }
  while (true) {
    int64_t next = INT64_MAX;
    for (size_t i = 0; i < k; ++i) next = std::min(next, cur[i]);
    if (next == INT64_MAX) return;
    DType s = 0;
    bool first = true;
    for (size_t i = 0; i < k; ++i) {
      if (cur[i] != next) continue;
      const DType v = static_cast<const DType*>(parts[i].data)[head[i]];
      s = first ? v : s + v;
      first = false;
      ++head[i];
      cur[i] = head[i] < end[i] ? parts[i].at(parts[i].indices, head[i]) : INT64_MAX;
    }
    emit(next, s);
  }
}

/*!
 * \brief All csr, in one merge: row r of the union is written at the row's upper bound
 *  (the sum of the summands' row starts) into temporaries as long as all summands together;
 *  when the rows overlapped, a parallel copy then packs them. The result has int32 indices
 *  when every summand has and the summed lengths fit, else int64.
 */
void AddNCSR(Span<const NDArray> in, const NDArray& out) {
  const size_t k = in.size();
  const DLTensor& t = out.tensor();
  const int64_t rows = t.shape[0];
  std::vector<CSRPart> parts(k);
  int64_t total = 0;
  for (size_t i = 0; i < k; ++i) {
    parts[i] = {in[i].sparse_data().data(), in[i].sparse_indices().data(),
                in[i].sparse_indptr().data(), in[i].sparse_indices().tensor().dtype.bits == 64};
    total += parts[i].at(parts[i].indptr, rows);
  }
  const DLDataType itype = total > INT32_MAX ? kIndex64 : ResultIndexType(in);
  const int64_t cost = total / std::max<int64_t>(rows, 1) * static_cast<int64_t>(k) + 1;
  MXFFI_REAL_SWITCH(t.dtype, "add_n", DType, {
    MXFFI_INDEX_SWITCH(itype, "add_n", IType, {
      NDArray tmp_data = NewArray({total}, t.dtype), tmp_idx = NewArray({total}, itype);
      NDArray indptr_arr = NewArray({rows + 1}, itype);
      DType* data = Ptr<DType>(tmp_data);
      IType* indices = Ptr<IType>(tmp_idx);
      IType* indptr = Ptr<IType>(indptr_arr);
      std::vector<int64_t> bound(rows + 1, 0);  // where row r starts in the temporaries
      ParallelFor(rows, cost, [&](int64_t b, int64_t e) {
        std::vector<int64_t> scratch(3 * k);
        for (int64_t r = b; r < e; ++r) {
          int64_t p = 0;
          for (const CSRPart& part : parts) p += part.at(part.indptr, r);
          bound[r] = p;
          const int64_t first = p;
          MergeRow<DType>(parts, r, scratch.data(), scratch.data() + k, scratch.data() + 2 * k,
                          [&](int64_t col, DType v) {
                            data[p] = v;
                            indices[p++] = static_cast<IType>(col);
                          });
          indptr[r + 1] = static_cast<IType>(p - first);  // the row's length, for now
        }
      });
      bound[rows] = total;
      indptr[0] = 0;
      for (int64_t r = 0; r < rows; ++r) indptr[r + 1] += indptr[r];
      const int64_t nnz = rows > 0 ? static_cast<int64_t>(indptr[rows]) : 0;
      if (nnz == total) {
        out.SetSparseStorage(tmp_data, tmp_idx, indptr_arr);
      } else {
        NDArray packed_data = NewArray({nnz}, t.dtype), packed_idx = NewArray({nnz}, itype);
        DType* pd = Ptr<DType>(packed_data);
        IType* pi = Ptr<IType>(packed_idx);
        ParallelFor(rows, cost, [&](int64_t b, int64_t e) {
          for (int64_t r = b; r < e; ++r) {
            const int64_t len = indptr[r + 1] - indptr[r];
            if (len == 0) continue;
            std::memcpy(pd + indptr[r], data + bound[r], sizeof(DType) * len);
            std::memcpy(pi + indptr[r], indices + bound[r], sizeof(IType) * len);
          }
        });
        out.SetSparseStorage(packed_data, packed_idx, indptr_arr);
      }
    });
  });
}

/*! \brief A dense result: the dense inputs summed (or zeros), then each sparse input added. */
void AddNToDense(Span<const NDArray> in, const NDArray& out_in) {
  const DLTensor& t = out_in.tensor();
  const int64_t n = out_in.numel(), width = RowWidth(t);
  NDArray out = out_in;
  if (!out.IsContiguous()) out = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  MXFFI_REAL_SWITCH(t.dtype, "add_n", DType, {
    std::vector<NDArray> dense;
    for (const NDArray& a : in) {
      if (a.is_sparse()) continue;
      dense.push_back(a.Contiguous());
    }
    DType* dst = Ptr<DType>(out);
    std::vector<const DType*> src;
    for (const NDArray& a : dense) src.push_back(Ptr<DType>(a));
    SumDense(src, dst, n);
    for (const NDArray& a : in) {
      if (!a.is_sparse()) continue;
      MXFFI_INDEX_SWITCH(a.sparse_indices().tensor().dtype, "add_n", IType, {
        const DType* data = Ptr<DType>(a.sparse_data());
        const IType* idx = Ptr<IType>(a.sparse_indices());
        if (a.stype() == StorageType::kRowSparse) {
          const int64_t k = a.sparse_indices().tensor().shape[0];
          ParallelFor(k, width, [&](int64_t b, int64_t e) {
            for (int64_t j = b; j < e; ++j) {
              DType* d = dst + static_cast<int64_t>(idx[j]) * width;
              for (int64_t c = 0; c < width; ++c) d[c] += data[j * width + c];
            }
          });
        } else {
          const IType* indptr = Ptr<IType>(a.sparse_indptr());
          ParallelFor(t.shape[0], width, [&](int64_t b, int64_t e) {
            for (int64_t r = b; r < e; ++r) {
              for (IType p = indptr[r]; p < indptr[r + 1]; ++p) {
                dst[r * width + idx[p]] += data[p];
              }
            }
          });
        }
      });
    }
  });
  if (!out.same_as(out_in)) NDArray::CopyFromTo(out.tensor(), out_in.tensor());
}

void AddNEx(const OpAttrs&, const OpContext&, Span<const NDArray> in, Span<const OpReqType>,
            Span<const NDArray> out) {
  for (size_t i = 0; i < in.size(); ++i) {
    MXFFI_CHECK(in[i].storage_initialized(), ValueError)
        << "add_n: arrays[" << i << "] is a sparse array whose storage is not initialised";
  }
  if (out[0].stype() == StorageType::kRowSparse) {
    AddNRowSparse(in, out[0]);
  } else if (out[0].stype() == StorageType::kCSR) {
    AddNCSR(in, out[0]);
  } else {
    AddNToDense(in, out[0]);
  }
}

/*! \brief As many inputs as num_args says. */
uint32_t AddNNumInputs(const OpAttrs& attrs) {
  MXFFI_CHECK(attrs.param != nullptr, ValueError)
      << "add_n: no parameters given; num_args (the number of arrays) is required";
  return static_cast<uint32_t>(attrs.get<AddNParam>().num_args);
}

}  // namespace

DMLC_REGISTER_PARAMETER(AddNParam);

MXFFI_REGISTER_OP(add_n)
    .describe(
        "The elementwise sum of num_args arrays of one shape and dtype (float32 or float64); "
        "row_sparse when all are, csr when all are, dense otherwise.")
    .set_num_inputs(AddNNumInputs)
    .set_key_var_num_args("num_args")
    .add_argument("arrays", "NDArray[]", "the summands, num_args of them")
    .set_param<AddNParam>()
    .set_attr<bool>("TWriteInplace", true)
    .set_attr<FInferShape>("FInferShape", AddNShape)
    .set_attr<FInferType>("FInferType", AddNType)
    .set_attr<FInferStorageType>("FInferStorageType", AddNStype)
    .set_attr<FCompute>("FCompute<cpu>", AddNDense)
    .set_attr<FComputeEx>("FComputeEx<cpu>", AddNEx);

}  // namespace op
}  // namespace mxffi
