/*!
 * \file csr_select.cc
 * \brief take, concat and where on csr arrays with storage-keeping kernels, as MXNet has them
 *  (its take and Concat keep csr along axis 0, its where reads a csr condition with dense
 *  branches): registration, inference and the CPU kernels, split across the pool for large
 *  inputs. The values are moved by their bytes, so one kernel serves every dtype.
 */
#include <mxffi/op/op.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "../parallel.h"
#include "../type_switch.h"
#include "csr_select_op.h"
#include "elemwise_sparse.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {

DMLC_REGISTER_PARAMETER(CsrTakeParam);
DMLC_REGISTER_PARAMETER(CsrConcatParam);

CondBits CondBitsOf(DLDataType t) {
  const int bytes = (t.bits + 7) / 8;
  CondBits c{bytes, 1, 0};
  const bool is_float = t.code == kDLFloat || t.code == kDLBfloat || t.code == kDLComplex;
  if (t.code == kDLComplex) {
    c.width = bytes / 2;
    c.parts = 2;
  }
  const int bits = c.width * 8;
  c.mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  if (is_float) c.mask &= ~(uint64_t{1} << (bits - 1));  // -0.0 reads as false
  return c;
}

void ThrowTakeIndex(int64_t v, int64_t rows) {
  MXFFI_THROW(IndexError) << "index " << v << " is out of bounds for axis 0 with size " << rows;
}

DispatchMode WhereStorage(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                          Span<StorageType> out) {
  out[0] = StorageType::kDefault;
  bool dense = true;
  for (StorageType s : in) dense = dense && s == StorageType::kDefault;
  if (dense) return DispatchMode::kFCompute;
  if (in[0] == StorageType::kCSR && in[1] == StorageType::kDefault &&
      in[2] == StorageType::kDefault && HasSparseKernel(attrs, device)) {
    return DispatchMode::kFComputeEx;  // same shapes only (TSparseSameShape)
  }
  return DispatchMode::kFComputeFallback;
}

namespace {

constexpr const char* kTake = "np.take";
constexpr const char* kConcat = "np.concatenate";
constexpr const char* kWhere = "np.where";

/*! \brief Stored entries per thread below which a pass runs in the calling thread. */
constexpr int64_t kGrain = 1 << 14;

// ---- take
// ----------------------------------------------------------------------------------------

void TakeShape(const OpAttrs&, Span<const TShape> in, Span<TShape> out) {
  MXFFI_CHECK(in[0].ndim() == 2, ValueError)
      << kTake << ": a csr array is 2-D; got shape " << in[0].ToString();
  MXFFI_CHECK(in[1].ndim() == 1, ValueError)
      << kTake
      << ": csr rows are taken by a 1-D array of indices; got indices.shape=" << in[1].ToString();
  out[0] = TShape{in[1][0], in[0][1]};
}

void TakeType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
  MXFFI_CHECK(in[1].code == kDLInt && in[1].bits == 64 && in[1].lanes == 1, TypeError)
      << "_sparse_take_csr: indices must be int64 (np.take converts them); got "
      << DataTypeToString(in[1]);
  out[0] = in[0];
}

DispatchMode CsrOnlyStorage(const OpAttrs& attrs, DLDevice, Span<const StorageType> in,
                            Span<StorageType> out) {
  const bool take = attrs.op->name == "_sparse_take_csr";
  for (size_t i = 0; i < in.size(); ++i) {
    const StorageType want = take && i == 1 ? StorageType::kDefault : StorageType::kCSR;
    MXFFI_CHECK(in[i] == want, TypeError)
        << attrs.op->name << ": input #" << i << " must be a " << StorageTypeName(want)
        << " array; got storage type '" << StorageTypeName(in[i]) << "'";
  }
  out[0] = StorageType::kCSR;
  return DispatchMode::kFComputeEx;
}

template <typename I>
void TakeTyped(const NDArray& a, const std::vector<int64_t>& rows, const NDArray& out) {
  const I* ip = Ptr<const I>(a.sparse_indptr());
  const int64_t k = static_cast<int64_t>(rows.size());
  std::vector<int64_t> start(k + 1, 0);
  for (int64_t p = 0; p < k; ++p) start[p + 1] = start[p] + (ip[rows[p] + 1] - ip[rows[p]]);
  const DLDataType itype = a.sparse_indices().tensor().dtype;
  out.CheckAndAlloc(start[k], itype);
  I* op = Ptr<I>(out.sparse_indptr());
  for (int64_t p = 0; p <= k; ++p) op[p] = static_cast<I>(start[p]);
  const int64_t item = DataTypeBytes(a.tensor().dtype);
  const char* src_v = static_cast<const char*>(a.sparse_data().data());
  const I* src_i = Ptr<const I>(a.sparse_indices());
  char* dst_v = static_cast<char*>(out.sparse_data().data());
  I* dst_i = Ptr<I>(out.sparse_indices());
  const int64_t per_row = std::max<int64_t>(start[k] / std::max<int64_t>(k, 1), 1);
  ParallelFor(k, per_row, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const int64_t from = ip[rows[p]], n = start[p + 1] - start[p];
      if (n == 0) continue;
      std::memcpy(dst_i + start[p], src_i + from, n * sizeof(I));
      std::memcpy(dst_v + start[p] * item, src_v + from * item, n * item);
    }
  });
}

void TakeCPU(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in, Span<const OpReqType>,
             Span<const NDArray> out) {
  const NDArray& a = in[0];
  MXFFI_CHECK(a.storage_initialized(), ValueError)
      << kTake << ": the csr array's storage is not initialised";
  const NDArray idx = in[1].Contiguous();
  const int mode = attrs.get<CsrTakeParam>().mode;
  const int64_t m = a.tensor().shape[0];
  const int64_t k = idx.tensor().shape[0];
  const int64_t* v = Ptr<const int64_t>(idx);
  std::vector<int64_t> rows(k);
  for (int64_t p = 0; p < k; ++p) {
    rows[p] = TakeRow(v[p], m, mode);
    if (rows[p] < 0) {
      MXFFI_CHECK(m > 0, IndexError) << kTake << ": cannot do a non-empty take from an empty axis";
      ThrowTakeIndex(v[p], m);
    }
  }
  MXFFI_INDEX_SWITCH(a.sparse_indices().tensor().dtype, kTake, I,
                     { TakeTyped<I>(a, rows, out[0]); });
}

// ---- concat along axis 0
// -------------------------------------------------------------------------

uint32_t ConcatNumInputs(const OpAttrs& attrs) {
  MXFFI_CHECK(attrs.param != nullptr, ValueError)
      << "_sparse_concat_csr: no parameters given; num_args (the number of arrays) is required";
  return static_cast<uint32_t>(attrs.get<CsrConcatParam>().num_args);
}

void ConcatShape(const OpAttrs&, Span<const TShape> in, Span<TShape> out) {
  int64_t rows = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    MXFFI_CHECK(in[i].ndim() == 2 && in[i][1] == in[0][1], ValueError)
        << kConcat << ": all the input array dimensions except for the concatenation axis must "
        << "match exactly, but the array at index 0 has shape " << in[0].ToString()
        << " and the array at index " << i << " has shape " << in[i].ToString();
    rows += in[i][0];
  }
  out[0] = TShape{rows, in[0][1]};
}

void ConcatType(const OpAttrs&, Span<const DLDataType> in, Span<DLDataType> out) {
  for (size_t i = 1; i < in.size(); ++i) {
    MXFFI_CHECK(SameDType(in[i], in[0]), TypeError)
        << "_sparse_concat_csr: the arrays must share one dtype (np.concatenate converts them); "
        << "got " << DataTypeToString(in[0]) << " and " << DataTypeToString(in[i]);
  }
  out[0] = in[0];
}

void ConcatCPU(const OpAttrs&, const OpContext&, Span<const NDArray> in, Span<const OpReqType>,
               Span<const NDArray> out) {
  const DLDataType itype = in[0].sparse_indices().tensor().dtype;
  int64_t nnz = 0;
  for (const NDArray& a : in) {
    MXFFI_CHECK(a.storage_initialized(), ValueError)
        << kConcat << ": a csr array's storage is not initialised";
    MXFFI_CHECK(SameDType(a.sparse_indices().tensor().dtype, itype), TypeError)
        << "_sparse_concat_csr: the arrays must share one index dtype (np.concatenate converts "
        << "them); got " << DataTypeToString(itype) << " and "
        << DataTypeToString(a.sparse_indices().tensor().dtype);
    nnz += a.sparse_data().tensor().shape[0];
  }
  out[0].CheckAndAlloc(nnz, itype);
  const int64_t item = DataTypeBytes(out[0].tensor().dtype);
  MXFFI_INDEX_SWITCH(itype, kConcat, I, {
    I* op = Ptr<I>(out[0].sparse_indptr());
    I* oi = Ptr<I>(out[0].sparse_indices());
    char* ov = static_cast<char*>(out[0].sparse_data().data());
    op[0] = 0;
    int64_t row_at = 0, nnz_at = 0;
    for (const NDArray& a : in) {
      const int64_t rows = a.tensor().shape[0];
      const int64_t n = a.sparse_data().tensor().shape[0];
      const I* ip = Ptr<const I>(a.sparse_indptr());
      ParallelFor(rows, 1, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) op[row_at + r + 1] = static_cast<I>(ip[r + 1] + nnz_at);
      });
      if (n > 0) {
        std::memcpy(oi + nnz_at, a.sparse_indices().data(), n * sizeof(I));
        std::memcpy(ov + nnz_at * item, a.sparse_data().data(), n * item);
      }
      row_at += rows;
      nnz_at += n;
    }
  });
}

// ---- where with a csr condition
// ------------------------------------------------------------------

void WhereCsrCPU(const OpAttrs&, const OpContext&, Span<const NDArray> in, Span<const OpReqType>,
                 Span<const NDArray> out) {
  const NDArray& cond = in[0];
  MXFFI_CHECK(cond.storage_initialized(), ValueError)
      << kWhere << ": the csr condition's storage is not initialised";
  const NDArray x = in[1].Contiguous(), y = in[2].Contiguous();
  const DLTensor& o = out[0].tensor();
  const int64_t rows = o.shape[0], cols = o.shape[1];
  const int64_t item = DataTypeBytes(o.dtype);
  // y everywhere (out may be strided: a temporary then), then x where a stored value is true.
  const bool direct = out[0].IsContiguous();
  NDArray target = direct ? out[0] : NDArray::Empty(o.shape, o.ndim, o.dtype, o.device);
  NDArray::CopyFromTo(y.tensor(), target.tensor());
  const CondBits bits = CondBitsOf(cond.tensor().dtype);
  const int64_t cbytes = DataTypeBytes(cond.tensor().dtype);
  const auto* cv = static_cast<const unsigned char*>(cond.sparse_data().data());
  const char* xv = static_cast<const char*>(x.data());
  char* tv = static_cast<char*>(target.data());
  const int64_t nnz = cond.sparse_data().tensor().shape[0];
  MXFFI_INDEX_SWITCH(cond.sparse_indices().tensor().dtype, kWhere, I, {
    const I* ip = Ptr<const I>(cond.sparse_indptr());
    const I* ix = Ptr<const I>(cond.sparse_indices());
    ParallelFor(rows, std::max<int64_t>(nnz / std::max<int64_t>(rows, 1), 1) + 1,
                [&](int64_t b, int64_t e) {
                  for (int64_t r = b; r < e; ++r) {
                    for (int64_t p = ip[r]; p < static_cast<int64_t>(ip[r + 1]); ++p) {
                      if (!CondTrue(cv + p * cbytes, bits)) continue;
                      const int64_t at = (r * cols + ix[p]) * item;
                      std::memcpy(tv + at, xv + at, item);
                    }
                  }
                });
  });
  if (!direct) NDArray::CopyFromTo(target.tensor(), o);
}

}  // namespace

MXFFI_REGISTER_OP(_sparse_take_csr)
    .describe(
        "The rows of csr a at indices (int64, 1-D), as a csr array (np.take(a, indices, axis=0) "
        "and sparse.take): out[p] = a[indices[p]], each row's stored entries copied.")
    .set_num_inputs(2)
    .add_argument("a", "NDArray", "csr (m, n)")
    .add_argument("indices", "NDArray", "int64 (k,)")
    .set_param<CsrTakeParam>()
    .set_attr<FInferShape>("FInferShape", TakeShape)
    .set_attr<FInferType>("FInferType", TakeType)
    .set_attr<FInferStorageType>("FInferStorageType", CsrOnlyStorage)
    .set_attr<bool>("TStridedInputs", true)
    .set_attr<FComputeEx>("FComputeEx<cpu>", TakeCPU);

MXFFI_REGISTER_OP(_sparse_concat_csr)
    .describe(
        "num_args csr arrays of one dtype, index dtype and column count stacked along axis 0, as "
        "a csr array (np.concatenate of csr arrays with axis=0).")
    .set_num_inputs(ConcatNumInputs)
    .set_key_var_num_args("num_args")
    .add_argument("arrays", "NDArray[]", "csr (m_i, n), num_args of them")
    .set_param<CsrConcatParam>()
    .set_attr<FInferShape>("FInferShape", ConcatShape)
    .set_attr<FInferType>("FInferType", ConcatType)
    .set_attr<FInferStorageType>("FInferStorageType", CsrOnlyStorage)
    .set_attr<FComputeEx>("FComputeEx<cpu>", ConcatCPU);

MXFFI_EXTEND_OP(_npi_where)
    .set_attr<FInferStorageType>("FInferStorageType", WhereStorage)
    .set_attr<bool>("TSparseSameShape", true)
    .set_attr<FComputeEx>("FComputeEx<cpu>", WhereCsrCPU);

}  // namespace op
}  // namespace mxffi
