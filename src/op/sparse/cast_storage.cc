/*!
 * \file cast_storage.cc
 * \brief cast_storage: every pair of default, row_sparse, csr and coo, and the op around it.
 *  Conversions from or to coo go through csr (coo.h).
 *
 * Dense to csr takes two passes over the rows, both split across the pool: count the non-zeros
 * of each row, then (after a prefix sum gives every row its offset) write them. Both passes test
 * a block of values at a time by their bits, so the all-zero blocks that make up most of a sparse
 * matrix cost a few vector instructions and no branch per value. A value is a zero when it
 * compares equal to 0, so -0.0 is dropped and NaN kept, as scipy does.
 */
#include "cast_storage.h"

#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "../parallel.h"
#include "coo.h"
#include "sparse_util.h"
#include "zero_bits.h"

namespace mxffi {
namespace op {
namespace {

template <typename T>
inline bool NonZero(const T& v) {
  return ZeroBits<T>::Get(&v) != 0;
}

/*! \brief Values per block of the dense-to-csr scans: one bit each in a mask. */
constexpr int kBlock = 16;

/*! \brief Whether any of p[0, kBlock) is not zero: an OR of their bits, with no branch. */
template <typename T>
inline bool AnyNonZero(const T* p) {
  typename ZeroBits<T>::U any = 0;
  for (int i = 0; i < kBlock; ++i) any |= ZeroBits<T>::Get(p + i);
  return any != 0;
}

/*! \brief Bit i set for each p[i] of p[0, n) that is not zero (n <= 64). */
template <typename T>
inline uint64_t NonZeroMask(const T* p, int64_t n) {
  uint64_t m = 0;
  for (int64_t i = 0; i < n; ++i) m |= static_cast<uint64_t>(NonZero(p[i])) << i;
  return m;
}

/*!
 * \brief f(c, mask) for each block of row[0, cols) that holds a non-zero, in column order: the
 *  block starts at column c and bit i of mask marks column c + i.
 */
template <typename T, typename F>
inline void ForEachNonZeroBlock(const T* row, int64_t cols, F&& f) {
  int64_t c = 0;
  for (; c + kBlock <= cols; c += kBlock) {
    if (AnyNonZero(row + c)) f(c, NonZeroMask(row + c, kBlock));
  }
  if (c < cols) {
    uint64_t m = NonZeroMask(row + c, cols - c);
    if (m != 0) f(c, m);
  }
}

/*!
 * \brief Asks Linux to back a large new output with transparent huge pages, as numpy does for
 *  its arrays: the first write then maps and zeroes 2 MiB at a time instead of 4 KiB, and those
 *  page faults are most of the cost of filling a fresh array of hundreds of MB. Only a hint:
 *  nothing changes where huge pages are off or unsupported.
 */
void AdviseHugePages(void* p, int64_t nbytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr int64_t kMinBytes = int64_t{4} << 20;
  constexpr uintptr_t kPage = 4096;
  if (nbytes < kMinBytes) return;
  uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  uintptr_t e = (reinterpret_cast<uintptr_t>(p) + static_cast<uintptr_t>(nbytes)) & ~(kPage - 1);
  if (e > b) madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // a failure is harmless
#else
  (void)p;
  (void)nbytes;
#endif
}

/*!
 * \brief A C-contiguous dense array of t's shape and dtype with every element zero, from
 *  calloc. For a large array the C library maps fresh pages, which the kernel zeroes on first
 *  touch, so nothing writes the zeros a second time and pages never written cost nothing (what
 *  numpy.zeros does); a small one comes zeroed from the heap. Held as a DLPack tensor whose
 *  deleter frees the block.
 */
NDArray ZeroedArray(const DLTensor& t, const char* fname) {
  struct Holder {
    DLManagedTensor managed{};
    std::vector<int64_t> shape;
    void* block = nullptr;
    ~Holder() { std::free(block); }
  };
  int64_t nbytes = DataTypeBytes(t.dtype);
  for (int32_t i = 0; i < t.ndim; ++i) {
    MXFFI_CHECK(!__builtin_mul_overflow(nbytes, t.shape[i], &nbytes), ValueError)
        << fname << ": the dense result needs more bytes than int64 holds";
  }
  auto h = std::make_unique<Holder>();
  h->shape.assign(t.shape, t.shape + t.ndim);
  h->block = std::calloc(static_cast<size_t>(nbytes) + kNDArrayAlignment, 1);
  MXFFI_CHECK(h->block != nullptr, MemoryError)
      << fname << ": cannot allocate " << nbytes << " bytes for the dense result";
  uintptr_t data = (reinterpret_cast<uintptr_t>(h->block) + kNDArrayAlignment - 1) &
                   ~static_cast<uintptr_t>(kNDArrayAlignment - 1);
  AdviseHugePages(reinterpret_cast<void*>(data), nbytes);
  h->managed.dl_tensor = DLTensor{
      reinterpret_cast<void*>(data), t.device, t.ndim, t.dtype, h->shape.data(), nullptr, 0};
  h->managed.manager_ctx = h.get();
  h->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<Holder*>(self->manager_ctx);
  };
  NDArray out = NDArray::FromDLPack(&h->managed);  // owns the holder from here on
  h.release();
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
  NDArray dense = dense_in.Contiguous();
  const int64_t rows = t.shape[0], cols = t.shape[1];
  NDArray out = NDArray::EmptySparse(StorageType::kCSR, t.shape, 2, t.dtype, t.device);
  MXFFI_TYPE_SWITCH(t.dtype, fname, DType, {
    MXFFI_INDEX_SWITCH(itype, fname, IType, {
      const DType* src = static_cast<const DType*>(dense.data());
      std::vector<int64_t> counts(rows), offsets;
      ParallelFor(rows, cols, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          int64_t n = 0;
          ForEachNonZeroBlock(src + r * cols, cols,
                              [&](int64_t, uint64_t m) { n += __builtin_popcountll(m); });
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
      AdviseHugePages(data, nnz * static_cast<int64_t>(sizeof(DType)));
      AdviseHugePages(indices, nnz * static_cast<int64_t>(sizeof(IType)));
      for (int64_t r = 0; r <= rows; ++r) indptr[r] = static_cast<IType>(offsets[r]);
      ParallelFor(rows, cols, [&](int64_t b, int64_t e) {
        for (int64_t r = b; r < e; ++r) {
          const DType* row = src + r * cols;
          int64_t k = offsets[r];
          ForEachNonZeroBlock(row, cols, [&](int64_t c, uint64_t m) {
            for (; m != 0; m &= m - 1) {
              const int64_t j = c + __builtin_ctzll(m);
              data[k] = row[j];
              indices[k++] = static_cast<IType>(j);
            }
          });
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
  NDArray dense = dense_in.Contiguous();
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
  NDArray out = ZeroedArray(t, fname);
  MXFFI_TYPE_SWITCH(t.dtype, fname, DType, {
    MXFFI_INDEX_SWITCH(csr.sparse_indices().tensor().dtype, fname, IType, {
      const DType* data = Ptr<DType>(csr.sparse_data());
      const IType* indices = Ptr<IType>(csr.sparse_indices());
      const IType* indptr = Ptr<IType>(csr.sparse_indptr());
      DType* dst = Ptr<DType>(out);
      ParallelFor(rows, cols, [&](int64_t b, int64_t e) {
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

/*!
 * \brief CastStorage of an array on another device (CUDA): the cast_storage op, whose kernel
 *  for that device converts it there; a C-contiguous dense array asked to be dense as it is.
 */
NDArray CastOnDevice(const NDArray& src, StorageType stype, DLDataType idx_dtype) {
  if (stype == StorageType::kDefault && !src.is_sparse() && src.IsContiguous()) return src;
  static const Op* cast = Op::Get("cast_storage");
  CastStorageParam p;
  p.stype = static_cast<int>(stype);
  p.idx_dtype = idx_dtype;
  OpAttrs attrs;
  attrs.op = cast;
  attrs.param = &p;
  return Invoke(attrs, Span<const NDArray>(&src, 1));
}

/*! \brief A copy of a sparse array: new parts with the same contents. */
NDArray CopySparse(const NDArray& src) {
  auto copy = [](const NDArray& part) { return NDArray::Copy(part.tensor()); };
  const DLTensor& t = src.tensor();
  NDArray out = NDArray::EmptySparse(src.stype(), t.shape, t.ndim, t.dtype, t.device);
  const NDArray& third = src.sparse_part(2);  // csr indptr, coo col; none for row_sparse
  out.SetSparseStorage(copy(src.sparse_part(0)), copy(src.sparse_part(1)),
                       third.defined() ? copy(third) : NDArray());
  return out;
}

}  // namespace

NDArray CastStorage(const NDArray& src, StorageType stype, const char* fname,
                    DLDataType idx_dtype) {
  MXFFI_CHECK(src.defined(), TypeError) << fname << ": the array is None";
  src.CheckStorageKnown(fname, "the array");
  if (src.tensor().device.device_type != kDLCPU) return CastOnDevice(src, stype, idx_dtype);
  MXFFI_CHECK(src.storage_initialized(), ValueError)
      << fname << ": the sparse array's storage is not initialised";
  const StorageType from = src.stype();
  if (from == stype) return stype == StorageType::kDefault ? src.Contiguous() : CopySparse(src);
  if (from == StorageType::kCOO) {
    NDArray csr = COOToCSR(src, fname);
    return stype == StorageType::kCSR ? csr : CastStorage(csr, stype, fname, idx_dtype);
  }
  if (stype == StorageType::kCOO) {
    MXFFI_CHECK(src.tensor().ndim == 2, ValueError)
        << fname << ": a coo array is 2-D; the input has " << src.tensor().ndim << " dimensions";
    return CSRToCOO(
        from == StorageType::kCSR ? src : CastStorage(src, StorageType::kCSR, fname, idx_dtype),
        fname);
  }
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
  out[0].SetSparseStorage(result.sparse_part(0), result.sparse_part(1), result.sparse_part(2));
}

}  // namespace

MXFFI_REGISTER_OP(cast_storage)
    .describe(
        "The input stored as stype (default, row_sparse, csr or coo); the values are equal. A "
        "coo input's repeated (row, col) pairs add up; a coo result is canonical (row-major, "
        "no repeated pair) unless the input is coo, whose copy keeps its order.")
    .add_argument("data", "NDArray", "the input")
    .set_param<CastStorageParam>()
    .set_attr<FInferShape>(
        "FInferShape",
        [](const OpAttrs& attrs, Span<const TShape> in, Span<TShape> out) {
          StorageType s = static_cast<StorageType>(attrs.get<CastStorageParam>().stype);
          MXFFI_CHECK((s != StorageType::kCSR && s != StorageType::kCOO) || in[0].ndim() == 2,
                      ValueError)
              << "cast_storage: a " << StorageTypeName(s) << " array is 2-D; the input has shape "
              << in[0].ToString();
          MXFFI_CHECK(s != StorageType::kRowSparse || in[0].ndim() >= 1, ValueError)
              << "cast_storage: a row_sparse array has at least one "
              << "dimension; the input has shape ()";
          out[0] = in[0];
        })
    .set_attr<FInferType>("FInferType", [](const OpAttrs&, Span<const DLDataType> in,
                                           Span<DLDataType> out) { out[0] = in[0]; })
    .set_attr<FInferStorageType>("FInferStorageType", CastStorageStype)
    .set_attr<bool>("TCOOInputs", true)
    .set_attr<FComputeEx>("FComputeEx<cpu>", CastStorageCompute);

}  // namespace op
}  // namespace mxffi
