// CSR and row_sparse arrays built from fuzz bytes: any shape, value dtype, index dtypes and part
// contents, given to NDArray::CSR / NDArray::RowSparse and to the sparse._csr_matrix /
// sparse._row_sparse_array globals. Both must accept and refuse the same parts (ValueError or
// TypeError, never a crash). An accepted array must be canonical and in range, cast to dense
// must give the matrix the parts describe (duplicates summed), dense -> csr / row_sparse ->
// dense must round-trip, and sparse.dot must agree with np.dot on the dense matrix.
#include <mxffi/mxffi.h>
#include <mxffi/ndarray/ndarray.h>

#include <algorithm>
#include <cmath>

#include "fuzz_util.h"

namespace {

using mxffi::Any;
using mxffi::AnyView;
using mxffi::NDArray;
using mxffi_fuzz::Call;
using mxffi_fuzz::Fail;

constexpr DLDataType kI32{kDLInt, 32, 1}, kI64{kDLInt, 64, 1};

bool Same(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/*! \brief Whether values of t are written and read by this target (small integers, exact). */
bool Known(DLDataType t) {
  if (t.lanes != 1) return false;
  switch (t.code) {
    case kDLInt:
    case kDLUInt:
      return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLFloat:
      return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBfloat:
      return t.bits == 16;
    case kDLBool:
      return t.bits == 8;
    default:
      return false;
  }
}

uint16_t HalfFromInt(int64_t v) {
  // Exact for |v| < 2048, which is all this target writes.
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  uint64_t m = static_cast<uint64_t>(v < 0 ? -v : v);
  int e = 63 - __builtin_clzll(m);
  uint16_t mant = static_cast<uint16_t>((m << (10 - e)) & 0x3ff);
  return static_cast<uint16_t>(sign | ((e + 15) << 10) | mant);
}

double HalfToDouble(uint16_t h) {
  int sign = h >> 15, e = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (e == 0) {
    v = std::ldexp(mant, -24);
  } else if (e == 31) {
    v = mant ? std::nan("") : INFINITY;
  } else {
    v = std::ldexp(mant + 1024, e - 25);
  }
  return sign ? -v : v;
}

void WriteInt(void* base, DLDataType t, int64_t i, int64_t v) {
  char* p = static_cast<char*>(base);
  switch (t.code) {
    case kDLBool:
      reinterpret_cast<uint8_t*>(p)[i] = v != 0;
      return;
    case kDLInt:
    case kDLUInt:
      switch (t.bits) {
        case 8:
          reinterpret_cast<int8_t*>(p)[i] = static_cast<int8_t>(v);
          return;
        case 16:
          reinterpret_cast<int16_t*>(p)[i] = static_cast<int16_t>(v);
          return;
        case 32:
          reinterpret_cast<int32_t*>(p)[i] = static_cast<int32_t>(v);
          return;
        default:
          reinterpret_cast<int64_t*>(p)[i] = v;
          return;
      }
    case kDLFloat:
      if (t.bits == 16) {
        reinterpret_cast<uint16_t*>(p)[i] = HalfFromInt(v);
      } else if (t.bits == 32) {
        reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
      } else {
        reinterpret_cast<double*>(p)[i] = static_cast<double>(v);
      }
      return;
    case kDLBfloat: {
      float f = static_cast<float>(v);
      uint32_t u;
      std::memcpy(&u, &f, 4);
      reinterpret_cast<uint16_t*>(p)[i] = static_cast<uint16_t>(u >> 16);
      return;
    }
    default:
      Fail("WriteInt on an unknown dtype");
  }
}

double Read(const void* base, DLDataType t, int64_t i) {
  const char* p = static_cast<const char*>(base);
  switch (t.code) {
    case kDLBool:
      return reinterpret_cast<const uint8_t*>(p)[i];
    case kDLInt:
      switch (t.bits) {
        case 8:
          return reinterpret_cast<const int8_t*>(p)[i];
        case 16:
          return reinterpret_cast<const int16_t*>(p)[i];
        case 32:
          return reinterpret_cast<const int32_t*>(p)[i];
        default:
          return static_cast<double>(reinterpret_cast<const int64_t*>(p)[i]);
      }
    case kDLUInt:
      switch (t.bits) {
        case 8:
          return reinterpret_cast<const uint8_t*>(p)[i];
        case 16:
          return reinterpret_cast<const uint16_t*>(p)[i];
        case 32:
          return reinterpret_cast<const uint32_t*>(p)[i];
        default:
          return static_cast<double>(reinterpret_cast<const uint64_t*>(p)[i]);
      }
    case kDLFloat:
      if (t.bits == 16) return HalfToDouble(reinterpret_cast<const uint16_t*>(p)[i]);
      if (t.bits == 32) return reinterpret_cast<const float*>(p)[i];
      return reinterpret_cast<const double*>(p)[i];
    case kDLBfloat: {
      uint32_t u = static_cast<uint32_t>(reinterpret_cast<const uint16_t*>(p)[i]) << 16;
      float f;
      std::memcpy(&f, &u, 4);
      return f;
    }
    default:
      Fail("Read on an unknown dtype");
  }
}

/*! \brief The value v as stored in t (what summing into an element of t gives). */
double Stored(DLDataType t, double v) {
  if (t.code == kDLBool) return v != 0;
  return v;
}

/*! \brief An index dtype for a part: usually int32 or int64, sometimes one that is refused. */
DLDataType IndexDType(FuzzedDataProvider* in) {
  static const DLDataType kOdd[] = {
      {kDLUInt, 32, 1}, {kDLInt, 16, 1}, {kDLFloat, 32, 1}, {kDLInt, 64, 2}, {kDLUInt, 64, 1}};
  switch (in->ConsumeIntegralInRange<int>(0, 6)) {
    case 0:
      return in->PickValueInArray(kOdd);
    case 1:
    case 2:
    case 3:
      return kI32;
    default:
      return kI64;
  }
}

/*! \brief A dense array made by this target: may fail for dtypes NDArray::Empty refuses. */
std::optional<NDArray> MakeArray(const std::vector<int64_t>& shape, DLDataType t) {
  try {
    return NDArray::Empty(shape, t, DLDevice{kDLCPU, 0});
  } catch (const mxffi::Error& e) {
    if (e.kind() != "ValueError" && e.kind() != "MemoryError") {
      Fail("NDArray::Empty threw " + e.kind() + ": " + e.message());
    }
    return std::nullopt;
  }
}

/*! \brief A 1-D index part of n entries whose values are integers from the fuzz bytes. */
std::optional<NDArray> IndexPart(FuzzedDataProvider* in, DLDataType t, int64_t n,
                                 const std::vector<int64_t>& values) {
  std::vector<int64_t> shape = {n};
  if (in->ConsumeIntegralInRange<int>(0, 15) == 0) shape = {n, 1};
  std::optional<NDArray> a = MakeArray(shape, t);
  if (!a) return a;
  int64_t bytes = mxffi::DataTypeBytes(t);
  for (int64_t i = 0; i < n; ++i) {
    int64_t v = values[i];
    std::memcpy(static_cast<char*>(a->data()) + i * bytes, &v, std::min<int64_t>(bytes, 8));
    if (t.code == kDLFloat && t.bits == 32) {
      float f = static_cast<float>(v);
      std::memcpy(static_cast<char*>(a->data()) + i * bytes, &f, 4);
    }
  }
  return a;
}

/*! \brief The element count of a dense array's shape (small here). */
int64_t Numel(const DLTensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

/*! \brief Dense d (C-contiguous, value dtype t) equals the reference ref, element for element. */
void ExpectDense(const NDArray& d, DLDataType t, const std::vector<double>& ref, const char* what) {
  MXFFI_FUZZ_CHECK(!d.is_sparse() && d.IsContiguous(), what);
  MXFFI_FUZZ_CHECK(Same(d.tensor().dtype, t), std::string(what) + ": dtype changed");
  MXFFI_FUZZ_CHECK(Numel(d.tensor()) == static_cast<int64_t>(ref.size()),
                   std::string(what) + ": element count");
  for (size_t i = 0; i < ref.size(); ++i) {
    double got = Read(d.data(), t, static_cast<int64_t>(i));
    if (!(got == ref[i])) {
      Fail(std::string(what) + ": element " + std::to_string(i) + " is " + std::to_string(got) +
           ", expected " + std::to_string(ref[i]));
    }
  }
}

NDArray AsArray(const Any& v, const char* what) {
  std::optional<NDArray> a = v.try_cast<NDArray>();
  if (!a) Fail(std::string(what) + " did not return an ndarray");
  return *a;
}

/*! \brief Cast x to stype through sparse._cast_storage; nullopt (error checked) on failure. */
std::optional<NDArray> CastStorage(const NDArray& x, const char* stype, DLDataType idx) {
  Any s{mxffi::String(stype)};
  bool ok = false;
  Any r = Call("sparse._cast_storage", {AnyView(x), AnyView(s), AnyView(idx)}, &ok);
  if (!ok) return std::nullopt;
  return AsArray(r, "sparse._cast_storage");
}

/*! \brief A small dense right-hand side of shape (n, k) and dtype t with small integer values. */
std::optional<NDArray> Rhs(FuzzedDataProvider* in, int64_t n, int64_t k, DLDataType t) {
  if (!Known(t)) return std::nullopt;
  std::optional<NDArray> r = MakeArray({n, k}, t);
  if (!r) return r;
  for (int64_t i = 0; i < n * k; ++i) {
    WriteInt(r->data(), t, i,
             t.code == kDLBool ? in->ConsumeBool() : in->ConsumeIntegralInRange<int>(-3, 3));
  }
  return r;
}

/*! \brief sparse.dot(x, rhs, transpose_a) agrees with np.dot on x's dense form when both work. */
void CheckDot(FuzzedDataProvider* in, const NDArray& x, const NDArray& dense, DLDataType t) {
  if (x.tensor().ndim != 2) return;
  bool trans = in->ConsumeBool();
  int64_t rows = x.tensor().shape[0], cols = x.tensor().shape[1];
  int64_t k = in->ConsumeIntegralInRange<int64_t>(0, 3);
  std::optional<NDArray> rhs = Rhs(in, trans ? rows : cols, k, t);
  if (!rhs) return;
  bool ok = false;
  Any got = Call("sparse.dot", {AnyView(x), AnyView(*rhs), AnyView(trans)}, &ok);
  if (!ok) return;
  NDArray lhs = dense;
  if (trans) {
    bool tok = false;
    Any tr = Call("np.transpose", {AnyView(dense)}, &tok);
    MXFFI_FUZZ_CHECK(tok, "np.transpose of a 2-D array failed");
    lhs = AsArray(tr, "np.transpose");
  }
  bool dok = false;
  Any want = Call("np.dot", {AnyView(lhs), AnyView(*rhs)}, &dok);
  if (!dok) return;
  NDArray g = AsArray(got, "sparse.dot");
  NDArray w = AsArray(want, "np.dot");
  if (g.is_sparse()) {
    std::optional<NDArray> gd = CastStorage(g, "default", kI64);
    MXFFI_FUZZ_CHECK(gd.has_value(), "a sparse.dot result does not cast to dense");
    g = *gd;
  }
  MXFFI_FUZZ_CHECK(
      g.tensor().ndim == w.tensor().ndim &&
          std::equal(g.tensor().shape, g.tensor().shape + g.tensor().ndim, w.tensor().shape),
      "sparse.dot and np.dot shapes differ");
  if (!Known(w.tensor().dtype) || !Same(g.tensor().dtype, w.tensor().dtype)) {
    Fail("sparse.dot gives " + mxffi::DataTypeToString(g.tensor().dtype) + ", np.dot " +
         mxffi::DataTypeToString(w.tensor().dtype));
  }
  NDArray gc = g.Contiguous(), wc = w.Contiguous();
  for (int64_t i = 0; i < Numel(wc.tensor()); ++i) {
    double a = Read(gc.data(), gc.tensor().dtype, i), b = Read(wc.data(), wc.tensor().dtype, i);
    if (!(a == b) && !(std::isnan(a) && std::isnan(b))) {
      Fail("sparse.dot element " + std::to_string(i) + " is " + std::to_string(a) +
           ", np.dot gives " + std::to_string(b));
    }
  }
}

/*! \brief Accepted csr x: canonical parts, in range, and the dense matrix ref. */
void CheckCSR(FuzzedDataProvider* in, const NDArray& x, DLDataType t,
              const std::vector<double>& ref, bool dense_ok) {
  int64_t rows = x.tensor().shape[0], cols = x.tensor().shape[1];
  const NDArray& ip = x.sparse_indptr();
  const NDArray& ix = x.sparse_indices();
  const NDArray& dv = x.sparse_data();
  DLDataType it = ix.tensor().dtype;
  MXFFI_FUZZ_CHECK(Same(it, ip.tensor().dtype), "indices and indptr dtypes differ");
  MXFFI_FUZZ_CHECK(Same(it, kI32) || Same(it, kI64), "index dtype not int32/int64");
  MXFFI_FUZZ_CHECK(ip.tensor().shape[0] == rows + 1, "indptr length");
  int64_t nnz = ix.tensor().shape[0];
  MXFFI_FUZZ_CHECK(dv.tensor().shape[0] == nnz, "data length differs from indices");
  auto I = [&](const NDArray& a, int64_t i) {
    return static_cast<int64_t>(Read(a.data(), a.tensor().dtype, i));
  };
  MXFFI_FUZZ_CHECK(I(ip, 0) == 0, "indptr[0] != 0");
  MXFFI_FUZZ_CHECK(I(ip, rows) == nnz, "indptr[-1] != nnz");
  for (int64_t r = 0; r < rows; ++r) {
    MXFFI_FUZZ_CHECK(I(ip, r) <= I(ip, r + 1), "indptr decreases");
    for (int64_t j = I(ip, r); j < I(ip, r + 1); ++j) {
      MXFFI_FUZZ_CHECK(I(ix, j) >= 0 && I(ix, j) < cols, "column index out of range");
      MXFFI_FUZZ_CHECK(j == I(ip, r) || I(ix, j) > I(ix, j - 1), "columns not strictly increasing");
    }
  }
  if (!Known(t) || !dense_ok) return;
  std::optional<NDArray> dense = CastStorage(x, "default", kI64);
  MXFFI_FUZZ_CHECK(dense.has_value(), "an accepted csr array does not cast to dense");
  ExpectDense(*dense, t, ref, "csr -> dense");
  for (const char* stype : {"csr", "row_sparse"}) {
    DLDataType idx = in->ConsumeBool() ? kI32 : kI64;
    std::optional<NDArray> back = CastStorage(*dense, stype, idx);
    MXFFI_FUZZ_CHECK(back.has_value(), std::string("dense -> ") + stype + " failed");
    std::optional<NDArray> again = CastStorage(*back, "default", kI64);
    MXFFI_FUZZ_CHECK(again.has_value(), std::string(stype) + " -> dense failed");
    ExpectDense(*again, t, ref, "dense -> sparse -> dense");
  }
  CheckDot(in, x, *dense, t);
}

void FuzzCSR(FuzzedDataProvider* in) {
  int64_t shape[2] = {mxffi_fuzz::SomeInt(in, 0, 6), mxffi_fuzz::SomeInt(in, 0, 6)};
  DLDataType t = mxffi_fuzz::SomeDType(in);
  DLDataType it = IndexDType(in);
  DLDataType pt = in->ConsumeIntegralInRange<int>(0, 7) == 0 ? IndexDType(in) : it;
  int64_t nnz = in->ConsumeIntegralInRange<int64_t>(0, 12);
  bool small = shape[0] >= 0 && shape[0] <= 64;
  int64_t nptr = small && in->ConsumeIntegralInRange<int>(0, 7) != 0
                     ? shape[0] + 1
                     : in->ConsumeIntegralInRange<int64_t>(0, 8);
  // indptr: usually non-decreasing from 0 to nnz, sometimes anything.
  std::vector<int64_t> ptr(nptr);
  if (in->ConsumeIntegralInRange<int>(0, 4) != 0 && nptr > 0) {
    for (int64_t r = 1; r < nptr; ++r) {
      ptr[r] = r + 1 == nptr
                   ? nnz
                   : std::min(nnz, ptr[r - 1] + in->ConsumeIntegralInRange<int64_t>(0, 3));
      ptr[r] = std::max(ptr[r], ptr[r - 1]);
    }
  } else {
    for (int64_t& p : ptr) p = mxffi_fuzz::SomeInt(in, -1, nnz + 1);
  }
  int64_t cols = shape[1];
  int64_t nidx = in->ConsumeIntegralInRange<int>(0, 15) == 0
                     ? in->ConsumeIntegralInRange<int64_t>(0, 12)
                     : nnz;
  std::vector<int64_t> idx(nidx);
  for (int64_t& c : idx) {
    c = in->ConsumeIntegralInRange<int>(0, 9) == 0
            ? mxffi_fuzz::EdgeInt(in)
            : in->ConsumeIntegralInRange<int64_t>(0, std::clamp<int64_t>(cols, 1, 8) - 1);
  }
  int64_t ndata = in->ConsumeIntegralInRange<int>(0, 15) == 0
                      ? in->ConsumeIntegralInRange<int64_t>(0, 12)
                      : nnz;
  std::optional<NDArray> data = MakeArray({ndata}, t);
  std::optional<NDArray> indices = IndexPart(in, it, nidx, idx);
  std::optional<NDArray> indptr = IndexPart(in, pt, nptr, ptr);
  if (!data || !indices || !indptr) return;
  std::vector<int64_t> vals(ndata);
  for (int64_t i = 0; i < ndata; ++i) {
    vals[i] = t.code == kDLBool ? in->ConsumeBool() : in->ConsumeIntegralInRange<int>(-4, 4);
    if (t.code == kDLUInt) vals[i] = std::abs(vals[i]);
    if (Known(t)) {
      WriteInt(data->data(), t, i, vals[i]);
    } else {
      std::string raw = in->ConsumeBytesAsString(mxffi::DataTypeBytes(t));
      raw.resize(mxffi::DataTypeBytes(t));
      std::memcpy(static_cast<char*>(data->data()) + i * mxffi::DataTypeBytes(t), raw.data(),
                  raw.size());
    }
  }

  // The C++ constructor and the registered global must agree.
  std::optional<NDArray> direct;
  std::string direct_error;
  try {
    direct = NDArray::CSR(shape, *data, *indices, *indptr, "fuzz_csr");
  } catch (const mxffi::Error& e) {
    direct_error = e.kind() + ": " + e.message();
    if (!mxffi_fuzz::ExpectedKind(e.kind(), e.message()))
      Fail("NDArray::CSR threw " + direct_error);
  }
  Any shp(mxffi::Shape(std::vector<int64_t>(shape, shape + 2)));
  bool ok = false;
  Any via = Call("sparse._csr_matrix",
                 {AnyView(shp), AnyView(*data), AnyView(*indices), AnyView(*indptr)}, &ok);
  if (ok != direct.has_value()) {
    Fail(std::string("sparse._csr_matrix ") + (ok ? "accepted" : "refused") +
         " what NDArray::CSR " + (direct ? "accepted" : "refused: " + direct_error));
  }
  if (!direct) return;
  // What the parts hold (values beyond int32 were truncated when written).
  MXFFI_FUZZ_CHECK(Same(it, kI32) || Same(it, kI64), "an accepted csr has odd index dtype");
  for (int64_t i = 0; i < nidx; ++i) idx[i] = static_cast<int64_t>(Read(indices->data(), it, i));
  for (int64_t i = 0; i < nptr; ++i) ptr[i] = static_cast<int64_t>(Read(indptr->data(), pt, i));
  // Dense checks only for matrices small enough to hold (a huge dimension is fine when the
  // other is 0, or for the structure checks).
  int64_t cells = 0;
  // A dimension in the billions is valid when the other is 0, but the sparse kernels allocate
  // per row, which under ASan aborts instead of raising MemoryError.
  bool dense_ok = !__builtin_mul_overflow(shape[0], shape[1], &cells) && cells <= 4096 &&
                  shape[0] <= 4096 && shape[1] <= 4096;
  std::vector<double> ref(dense_ok ? static_cast<size_t>(cells) : 0, 0.0);
  if (Known(t) && dense_ok) {
    for (int64_t r = 0; r < shape[0]; ++r) {
      for (int64_t j = ptr[r]; j < ptr[r + 1]; ++j) {
        double& cell = ref[static_cast<size_t>(r * shape[1] + idx[j])];
        cell = Stored(t, cell + static_cast<double>(vals[j]));
      }
    }
  }
  CheckCSR(in, *direct, t, ref, dense_ok);
  CheckCSR(in, AsArray(via, "sparse._csr_matrix"), t, ref, dense_ok);
}

void FuzzRowSparse(FuzzedDataProvider* in) {
  int ndim = in->ConsumeIntegralInRange<int>(0, 3);
  std::vector<int64_t> shape(ndim);
  for (int64_t& d : shape) d = mxffi_fuzz::SomeInt(in, 0, 5);
  DLDataType t = mxffi_fuzz::SomeDType(in);
  DLDataType it = IndexDType(in);
  int64_t k = in->ConsumeIntegralInRange<int64_t>(0, 6);
  std::vector<int64_t> rows(k);
  int64_t next = 0;
  for (int64_t& r : rows) {
    if (in->ConsumeIntegralInRange<int>(0, 9) == 0) {
      r = mxffi_fuzz::EdgeInt(in);
    } else {
      next += in->ConsumeIntegralInRange<int64_t>(0, 2);
      r = next++;
    }
  }
  std::vector<int64_t> dshape = shape;
  if (dshape.empty() || in->ConsumeIntegralInRange<int>(0, 9) == 0) {
    dshape.resize(in->ConsumeIntegralInRange<size_t>(1, 3));
    for (int64_t& d : dshape) d = in->ConsumeIntegralInRange<int64_t>(0, 4);
  } else {
    dshape[0] = k;
  }
  bool dims_small = true;
  for (int64_t d : dshape) dims_small = dims_small && d >= 0 && d <= 64;
  if (!dims_small) return;
  std::optional<NDArray> data = MakeArray(dshape, t);
  std::optional<NDArray> indices = IndexPart(in, it, k, rows);
  if (!data || !indices) return;
  int64_t n = Numel(data->tensor());
  std::vector<int64_t> vals(n);
  for (int64_t i = 0; i < n; ++i) {
    vals[i] = t.code == kDLBool ? in->ConsumeBool() : in->ConsumeIntegralInRange<int>(-4, 4);
    if (t.code == kDLUInt) vals[i] = std::abs(vals[i]);
    if (Known(t)) WriteInt(data->data(), t, i, vals[i]);
  }
  if (!Known(t) && n > 0) std::memset(data->data(), 0, n * mxffi::DataTypeBytes(t));

  std::optional<NDArray> direct;
  std::string direct_error;
  try {
    direct = NDArray::RowSparse(shape.data(), ndim, *data, *indices, "fuzz_row_sparse");
  } catch (const mxffi::Error& e) {
    direct_error = e.kind() + ": " + e.message();
    if (!mxffi_fuzz::ExpectedKind(e.kind(), e.message())) {
      Fail("NDArray::RowSparse threw " + direct_error);
    }
  }
  Any shp{mxffi::Shape(shape)};
  bool ok = false;
  Any via =
      Call("sparse._row_sparse_array", {AnyView(shp), AnyView(*data), AnyView(*indices)}, &ok);
  if (ok != direct.has_value()) {
    Fail(std::string("sparse._row_sparse_array ") + (ok ? "accepted" : "refused") +
         " what NDArray::RowSparse " + (direct ? "accepted" : "refused: " + direct_error));
  }
  if (!direct || !Known(t)) return;
  MXFFI_FUZZ_CHECK(Same(it, kI32) || Same(it, kI64), "an accepted row_sparse has odd index dtype");
  for (int64_t i = 0; i < k; ++i) rows[i] = static_cast<int64_t>(Read(indices->data(), it, i));
  // The dense matrix: row rows[j] of the result is row j of data.
  int64_t row_len = 1;
  for (int i = 1; i < ndim; ++i) row_len *= shape[i];
  int64_t cells = 0;
  if (__builtin_mul_overflow(shape[0], row_len, &cells) || cells > 4096 || shape[0] > 4096) return;
  std::vector<double> ref(static_cast<size_t>(cells), 0.0);
  for (int64_t j = 0; j < k; ++j) {
    for (int64_t e = 0; e < row_len; ++e) {
      ref[static_cast<size_t>(rows[j] * row_len + e)] =
          Stored(t, static_cast<double>(vals[j * row_len + e]));
    }
  }
  std::optional<NDArray> dense = CastStorage(*direct, "default", kI64);
  MXFFI_FUZZ_CHECK(dense.has_value(), "an accepted row_sparse array does not cast to dense");
  ExpectDense(*dense, t, ref, "row_sparse -> dense");
  const char* stype = ndim == 2 && in->ConsumeBool() ? "csr" : "row_sparse";
  std::optional<NDArray> back = CastStorage(*dense, stype, in->ConsumeBool() ? kI32 : kI64);
  MXFFI_FUZZ_CHECK(back.has_value(), std::string("dense -> ") + stype + " failed");
  std::optional<NDArray> again = CastStorage(*back, "default", kI64);
  MXFFI_FUZZ_CHECK(again.has_value(), std::string(stype) + " -> dense failed");
  ExpectDense(*again, t, ref, "dense -> sparse -> dense");
  CheckDot(in, *direct, *dense, t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) {
    FuzzCSR(&in);
  } else {
    FuzzRowSparse(&in);
  }
  return 0;
}
