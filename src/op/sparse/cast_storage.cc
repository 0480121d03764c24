/*!
 * \file cast_storage.cc
 * \brief cast_storage: every pair of default, row_sparse and csr, and the op around it.
 *
 * Dense to sparse takes two passes over the rows, both split across the pool: count the
 * non-zeros of each row, then (after a prefix sum gives every row its offset) write them. A value
 * is a zero when it compares equal to 0, so -0.0 is dropped and NaN kept, as scipy does.
 */
#include "cast_storage.h"

#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <cstring>
#include <vector>

#include "../parallel.h"
#include "sparse_util.h"

namespace mxffi {
namespace op {
namespace {

template <typename T>
inline bool NonZero(T v) {
  return static_cast<typename AccType<T>::type>(v) != 0;
}

/*! \brief A C-contiguous dense array with src's elements (src itself when it already is). */
NDArray Contiguous(const NDArray& src) {
  if (src.IsContiguous()) return src;
  const DLTensor& t = src.tensor();
  NDArray out = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  NDArray::CopyFromTo(t, out.tensor());
  return out;
}

/*! \brief Prefix sums of counts[0, n) into offsets[0, n]; the total. */
int64_t PrefixSum(const std::vector<int64_t>& counts, std::vector<int64_t>* offsets) {
  offsets->assign(counts.size() + 1, 0);
  for (size_t i = 0; i < counts.size(); ++i) (*offsets)[i + 1] = (*offsets)[i] + counts[i];
  return offsets->back();
}

NDArray DenseToCSR(const NDArray& dense_in, DLDataType itype, const char* fname) {
  const DLTensor& t = dense_in.tensor();
  MXFFI_CHECK(t.ndim == 2, ValueError)
      << fname << ": a csr array is 2-D; the input has " << t.ndim << " dimensions";
  NDArray dense = Contiguous(dense_in);
  const int64_t rows = t.shape[0], cols = t.shape[1];
  NDArray out = NDArray::EmptySparse(StorageType::kCSR, t.shape, 2, t.dtype, t.device);
  MXFFI_TYPE_SWITCH(t.dtype, fname, DType, {
    MXFFI_INDEX_SWITCH(itype, fname, IType, {
      const DType* src = static_cast<const DType*>(dense.data());
      std::vector<int64_t> counts(rows), offsets;
      ParallelFor(rows, cols, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const DType* row = src + r * cols;
          int64_t n = 0;
          for (int64_t c = 0; c < cols; ++c) n += NonZero(row[c]);
          counts[r] = n;
        }
      });
      const int64_t nnz = PrefixSum(counts, &offsets);
      MXFFI_CHECK(itype.bits == 64 || (nnz <= INT32_MAX && cols <= INT32_MAX), ValueError)
          << fname << ": " << nnz << " values and " << cols << " columns do not fit int32 indices";
      out.CheckAndAlloc(nnz, itype);
      DType* data = Ptr<DType>(out.sparse_data());
      IType* indices = Ptr<IType>(out.sparse_indices());
      IType* indptr = Ptr<IType>(out.sparse_indptr());
      for (int64_t r = 0; r <= rows; ++r) indptr[r] = static_cast<IType>(offsets[r]);
      ParallelFor(rows, cols, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const DType* row = src + r * cols;
          int64_t k = offsets[r];
          for (int64_t c = 0; c < cols; ++c) {
            if (NonZero(row[c])) {
              data[k] = row[c];
              indices[k++] = static_cast<IType>(c);
            }
          }
        }
      });
    });
  });
  return out;
}

NDArray DenseToRowSparse(const NDArray& dense_in, DLDataType itype, const char* fname) {
  const DLTensor& t = dense_in.tensor();
  MXFFI_CHECK(t.ndim >= 1, ValueError) << fname << ": a row_sparse array has at least one "
                                       << "dimension; the input is 0-d";
  NDArray dense = Contiguous(dense_in);
  const int64_t rows = t.shape[0], width = RowWidth(t);
  NDArray out = NDArray::EmptySparse(StorageType::kRowSparse, t.shape, t.ndim, t.dtype, t.device);
  MXFFI_TYPE_SWITCH(t.dtype, fname, DType, {
    MXFFI_INDEX_SWITCH(itype, fname, IType, {
      const DType* src = static_cast<const DType*>(dense.data());
      std::vector<int64_t> keep(rows), offsets;
      ParallelFor(rows, width, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const DType* row = src + r * width;
          int64_t any = 0;
          for (int64_t c = 0; c < width && !any; ++c) any = NonZero(row[c]);
          keep[r] = any;
        }
      });
      const int64_t k = PrefixSum(keep, &offsets);
      out.CheckAndAlloc(k, itype);
      DType* data = Ptr<DType>(out.sparse_data());
      IType* indices = Ptr<IType>(out.sparse_indices());
      ParallelFor(rows, width, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          if (!keep[r]) continue;
          indices[offsets[r]] = static_cast<IType>(r);
          std::memcpy(data + offsets[r] * width, src + r * width, sizeof(DType) * width);
        }
      });
    });
  });
  return out;
}

NDArray CSRToDense(const NDArray& csr, const char* fname) {
  const DLTensor& t = csr.tensor();
  const int64_t rows = t.shape[0], cols = t.shape[1];
  NDArray out = NDArray::Empty(t.shape, 2, t.dtype, t.device);
  MXFFI_TYPE_SWITCH(t.dtype, fname, DType, {
    MXFFI_INDEX_SWITCH(csr.sparse_indices().tensor().dtype, fname, IType, {
      const DType* data = Ptr<DType>(csr.sparse_data());
      const IType* indices = Ptr<IType>(csr.sparse_indices());
      const IType* indptr = Ptr<IType>(csr.sparse_indptr());
      DType* dst = Ptr<DType>(out);
      ParallelFor(rows, cols, [&](int64_t b, int64_t e) {
        std::memset(static_cast<void*>(dst + b * cols), 0, sizeof(DType) * (e - b) * cols);
        for (int64_t r = b; r < e; ++r) {
          for (IType j = indptr[r]; j < indptr[r + 1]; ++j) dst[r * cols + indices[j]] = data[j];
        }
      });
    });
  });
  return out;
}

NDArray RowSparseToDense(const NDArray& rsp, const char* fname) {
  const DLTensor& t = rsp.tensor();
  const int64_t rows = t.shape[0], width = RowWidth(t);
  NDArray out = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
  const int64_t elem = DataTypeBytes(t.dtype);
  char* dst = static_cast<char*>(out.data());
  std::memset(dst, 0, static_cast<size_t>(rows * width * elem));
  const char* data = static_cast<const char*>(rsp.sparse_data().data());
  const int64_t k = rsp.sparse_indices().tensor().shape[0];
  MXFFI_INDEX_SWITCH(rsp.sparse_indices().tensor().dtype, fname, IType, {
    const IType* indices = Ptr<IType>(rsp.sparse_indices());
    ParallelFor(k, width, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        std::memcpy(dst + indices[j] * width * elem, data + j * width * elem, width * elem);
      }
    });
  });
  return out;
}

NDArray CSRToRowSparse(const NDArray& csr, const char* fname) {
  const DLTensor& t = csr.tensor();
  const int64_t rows = t.shape[0], cols = t.shape[1];
  DLDataType itype = csr.sparse_indices().tensor().dtype;
  NDArray out = NDArray::EmptySparse(StorageType::kRowSparse, t.shape, 2, t.dtype, t.device);
  MXFFI_TYPE_SWITCH(t.dtype, fname, DType, {
    MXFFI_INDEX_SWITCH(itype, fname, IType, {
      const DType* data = Ptr<DType>(csr.sparse_data());
      const IType* indices = Ptr<IType>(csr.sparse_indices());
      const IType* indptr = Ptr<IType>(csr.sparse_indptr());
      int64_t k = 0;
      for (int64_t r = 0; r < rows; ++r) k += indptr[r + 1] > indptr[r];
      out.CheckAndAlloc(k, itype);
      DType* dst = Ptr<DType>(out.sparse_data());
      IType* rows_out = Ptr<IType>(out.sparse_indices());
      std::memset(static_cast<void*>(dst), 0, sizeof(DType) * k * cols);
      int64_t j = 0;
      for (int64_t r = 0; r < rows; ++r) {
        if (indptr[r + 1] == indptr[r]) continue;
        rows_out[j] = static_cast<IType>(r);
        for (IType p = indptr[r]; p < indptr[r + 1]; ++p) dst[j * cols + indices[p]] = data[p];
        ++j;
      }
    });
  });
  return out;
}

NDArray RowSparseToCSR(const NDArray& rsp, const char* fname) {
  const DLTensor& t = rsp.tensor();
  MXFFI_CHECK(t.ndim == 2, ValueError)
      << fname << ": a csr array is 2-D; the input has " << t.ndim << " dimensions";
  const int64_t rows = t.shape[0], cols = t.shape[1];
  DLDataType itype = rsp.sparse_indices().tensor().dtype;
  const int64_t k = rsp.sparse_indices().tensor().shape[0];
  NDArray out = NDArray::EmptySparse(StorageType::kCSR, t.shape, 2, t.dtype, t.device);
  MXFFI_TYPE_SWITCH(t.dtype, fname, DType, {
    MXFFI_INDEX_SWITCH(itype, fname, IType, {
      const DType* src = Ptr<DType>(rsp.sparse_data());
      const IType* stored = Ptr<IType>(rsp.sparse_indices());
      std::vector<int64_t> counts(rows, 0), offsets;
      for (int64_t j = 0; j < k; ++j) {
        int64_t n = 0;
        for (int64_t c = 0; c < cols; ++c) n += NonZero(src[j * cols + c]);
        counts[stored[j]] = n;
      }
      const int64_t nnz = PrefixSum(counts, &offsets);
      out.CheckAndAlloc(nnz, itype);
      DType* data = Ptr<DType>(out.sparse_data());
      IType* indices = Ptr<IType>(out.sparse_indices());
      IType* indptr = Ptr<IType>(out.sparse_indptr());
      for (int64_t r = 0; r <= rows; ++r) indptr[r] = static_cast<IType>(offsets[r]);
      for (int64_t j = 0; j < k; ++j) {
        int64_t p = offsets[stored[j]];
        for (int64_t c = 0; c < cols; ++c) {
          if (NonZero(src[j * cols + c])) {
            data[p] = src[j * cols + c];
            indices[p++] = static_cast<IType>(c);
          }
        }
      }
    });
  });
  return out;
}

/*! \brief A copy of a sparse array: new parts with the same contents. */
NDArray CopySparse(const NDArray& src) {
  auto copy = [](const NDArray& part) {
    if (!part.defined()) return NDArray();
    const DLTensor& t = part.tensor();
    NDArray out = NDArray::Empty(t.shape, t.ndim, t.dtype, t.device);
    NDArray::CopyFromTo(t, out.tensor());
    return out;
  };
  const DLTensor& t = src.tensor();
  NDArray out = NDArray::EmptySparse(src.stype(), t.shape, t.ndim, t.dtype, t.device);
  out.SetSparseStorage(copy(src.sparse_data()), copy(src.sparse_indices()),
                       src.stype() == StorageType::kCSR ? copy(src.sparse_indptr()) : NDArray());
  return out;
}

}  // namespace

NDArray CastStorage(const NDArray& src, StorageType stype, const char* fname,
                    DLDataType idx_dtype) {
  MXFFI_CHECK(src.defined(), TypeError) << fname << ": the array is None";
  MXFFI_CHECK(src.tensor().device.device_type == kDLCPU, NotImplementedError)
      << fname << ": sparse storage is CPU only; the array is on device type "
      << src.tensor().device.device_type;
  MXFFI_CHECK(src.storage_initialized(), ValueError)
      << fname << ": the sparse array's storage is not initialised";
  const StorageType from = src.stype();
  if (from == stype) return stype == StorageType::kDefault ? Contiguous(src) : CopySparse(src);
  switch (stype) {
    case StorageType::kDefault:
      return from == StorageType::kCSR ? CSRToDense(src, fname) : RowSparseToDense(src, fname);
    case StorageType::kCSR:
      return from == StorageType::kDefault ? DenseToCSR(src, idx_dtype, fname)
                                           : RowSparseToCSR(src, fname);
    case StorageType::kRowSparse:
      return from == StorageType::kDefault ? DenseToRowSparse(src, idx_dtype, fname)
                                           : CSRToRowSparse(src, fname);
    default:
      MXFFI_THROW(ValueError) << fname << ": unknown storage type " << static_cast<int>(stype);
  }
  __builtin_unreachable();
}

/*! \brief cast_storage's parameters. */
struct CastStorageParam : public dmlc::Parameter<CastStorageParam> {
  int stype;
  DTypeParam idx_dtype;
  DMLC_DECLARE_PARAMETER(CastStorageParam) {
    DMLC_DECLARE_FIELD(stype)
        .add_enum("default", static_cast<int>(StorageType::kDefault))
        .add_enum("row_sparse", static_cast<int>(StorageType::kRowSparse))
        .add_enum("csr", static_cast<int>(StorageType::kCSR))
        .describe("Storage type of the output.");
    DMLC_DECLARE_FIELD(idx_dtype)
        .set_default(DTypeParam())
        .describe(
            "Index dtype (int32 or int64) of a sparse output made from a dense input; "
            "None means int64.");
  }
};
DMLC_REGISTER_PARAMETER(CastStorageParam);

namespace {

DispatchMode CastStorageStype(const OpAttrs& attrs, DLDevice, Span<const StorageType>,
                              Span<StorageType> out) {
  out[0] = static_cast<StorageType>(attrs.get<CastStorageParam>().stype);
  return DispatchMode::kFComputeEx;
}

void CastStorageCompute(const OpAttrs& attrs, const OpContext&, Span<const NDArray> in,
                        Span<const OpReqType>, Span<const NDArray> out) {
  const CastStorageParam& p = attrs.get<CastStorageParam>();
  DLDataType itype = p.idx_dtype.is_none ? kIndex64 : p.idx_dtype.dtype;
  MXFFI_CHECK(IsIndexDType(itype), TypeError)
      << "cast_storage: idx_dtype must be int32 or int64, got " << DataTypeToString(itype);
  NDArray result = CastStorage(in[0], static_cast<StorageType>(p.stype), "cast_storage", itype);
  if (!out[0].is_sparse()) {
    NDArray::CopyFromTo(result.tensor(), out[0].tensor());
    return;
  }
  out[0].SetSparseStorage(result.sparse_data(), result.sparse_indices(),
                          result.stype() == StorageType::kCSR ? result.sparse_indptr() : NDArray());
}

}  // namespace

MXFFI_REGISTER_OP(cast_storage)
    .describe("The input stored as stype (default, row_sparse or csr); the values are equal.")
    .add_argument("data", "NDArray", "the input")
    .set_param<CastStorageParam>()
    .set_attr<FInferShape>(
        "FInferShape",
        [](const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
          StorageType s = static_cast<StorageType>(attrs.get<CastStorageParam>().stype);
          MXFFI_CHECK(s != StorageType::kCSR || in[0].ndim() == 2, ValueError)
              << "cast_storage: a csr array is 2-D; the input has shape " << in[0].ToString();
          MXFFI_CHECK(s != StorageType::kRowSparse || in[0].ndim() >= 1, ValueError)
              << "cast_storage: a row_sparse array has at least one "
              << "dimension; the input has shape ()";
          out[0] = in[0];
        })
    .set_attr<FInferType>("FInferType", [](const OpAttrs&, Span<const DLDataType> in,
                                           Span<DLDataType> out) { out[0] = in[0]; })
    .set_attr<FInferStorageType>("FInferStorageType", CastStorageStype)
    .set_attr<FComputeEx>("FComputeEx<cpu>", CastStorageCompute);

}  // namespace op
}  // namespace mxffi
