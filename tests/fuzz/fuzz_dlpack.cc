// DLPack tensors described by fuzz bytes (ndim, shape, strides, dtype code/bits/lanes, device,
// byte_offset), their data in a buffer this target owns and sizes from the description (or,
// deliberately, too small), imported into NDArray through NDArray::FromDLPack,
// NDArray::FromDLPackVersioned, the ndarray.from_dlpack global and the borrowed DLTensor*
// argument path (np.copy, np.sum, testing.tensor_first_f64).
//
// A refused tensor is a ValueError/TypeError/NotImplementedError and its deleter does not run;
// an accepted one keeps the description, its deleter runs exactly once when the array is freed,
// and, when its buffer is the right size, a copy of it holds exactly the elements the
// description addresses.
#include <mxffi/mxffi.h>
#include <mxffi/ndarray/dlpack_compat.h>
#include <mxffi/ndarray/ndarray.h>

#include "fuzz_util.h"

namespace {

using mxffi::Any;
using mxffi::AnyView;
using mxffi::NDArray;
using mxffi_fuzz::Call;
using mxffi_fuzz::Fail;

/*! \brief A tensor description and the memory behind it. */
struct Described {
  std::vector<int64_t> shape, strides;
  DLTensor t{};
  std::vector<char> buffer;
  // Whether buffer holds every element the description addresses.
  bool sized = false;
  // Element offsets (in elements, from data + byte_offset) of every element, C order.
  std::vector<int64_t> offsets;
  int64_t elem = 0;
};

/*! \brief Element offsets of every element in C order, or false when they cannot be listed. */
bool ListOffsets(const Described& d, std::vector<int64_t>* out) {
  int ndim = d.t.ndim;
  int64_t numel = 1;
  for (int i = 0; i < ndim; ++i) {
    if (d.shape[i] < 0) return false;
    if (d.shape[i] == 0) numel = 0;
  }
  if (numel != 0) {
    for (int i = 0; i < ndim; ++i) {
      if (__builtin_mul_overflow(numel, d.shape[i], &numel) || numel > 4096) return false;
    }
  }
  std::vector<int64_t> strides(ndim);
  int64_t s = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    strides[i] = d.t.strides ? d.strides[i] : s;
    if (numel && __builtin_mul_overflow(s, d.shape[i], &s)) return false;
    if (std::abs(strides[i]) > (int64_t{1} << 20)) return numel == 0;
  }
  out->clear();
  std::vector<int64_t> idx(ndim, 0);
  for (int64_t n = 0; n < numel; ++n) {
    int64_t off = 0;
    for (int i = 0; i < ndim; ++i) off += idx[i] * strides[i];
    out->push_back(off);
    for (int i = ndim - 1; i >= 0; --i) {
      if (++idx[i] < d.shape[i]) break;
      idx[i] = 0;
    }
  }
  return true;
}

void Describe(FuzzedDataProvider* in, Described* d) {
  int ndim = in->ConsumeIntegralInRange<int>(0, 15) == 0 ? in->ConsumeIntegralInRange<int>(-2, 40)
                                                         : in->ConsumeIntegralInRange<int>(0, 4);
  int n = std::max(ndim, 0);
  d->shape.resize(n);
  d->strides.resize(n);
  for (int64_t& s : d->shape) s = mxffi_fuzz::SomeInt(in, 0, 4);
  bool strided = in->ConsumeBool();
  for (int64_t& s : d->strides) s = mxffi_fuzz::SomeInt(in, -3, 6);
  d->t.ndim = ndim;
  d->t.shape = n == 0 && in->ConsumeBool() ? nullptr : d->shape.data();
  if (n > 0 && in->ConsumeIntegralInRange<int>(0, 31) == 0) d->t.shape = nullptr;
  d->t.strides = strided ? d->strides.data() : nullptr;
  d->t.dtype = mxffi_fuzz::SomeDType(in);
  d->t.device = DLDevice{kDLCPU, 0};
  if (in->ConsumeIntegralInRange<int>(0, 7) == 0) {
    d->t.device.device_type = mxffi_fuzz::SomeDeviceType(in);
    d->t.device.device_id = in->ConsumeIntegralInRange<int32_t>(-1, 3);
  }
  d->elem = mxffi::DataTypeBytes(d->t.dtype);
  bool listed = ndim >= 0 && (ndim == 0 || d->t.shape != nullptr) && ListOffsets(*d, &d->offsets);
  // The buffer spans the lowest to the highest addressed byte, plus a misaligning lead.
  int64_t lo = 0, hi = 0;
  for (int64_t off : d->offsets) {
    lo = std::min(lo, off);
    hi = std::max(hi, off + 1);
  }
  if (d->offsets.empty()) hi = 0;
  int64_t lead =
      in->ConsumeIntegralInRange<int>(0, 3) == 0 ? in->ConsumeIntegralInRange<int>(1, 7) : 0;
  int64_t need = listed ? (hi - lo) * d->elem : 0;
  d->sized = listed && need <= (int64_t{1} << 20);
  int64_t have = d->sized ? need : 0;
  // A CPU bool tensor is read on import (its bytes must be 0 or 1), so it is never short.
  bool read_on_import =
      d->t.dtype.code == kDLBool && d->t.dtype.bits == 8 && d->t.device.device_type == kDLCPU;
  if (d->sized && have > 0 && !read_on_import && in->ConsumeIntegralInRange<int>(0, 9) == 0) {
    have = in->ConsumeIntegralInRange<int64_t>(0, have - 1);  // deliberately too small
    d->sized = false;
  }
  d->buffer.resize(static_cast<size_t>(lead + have));
  for (char& c : d->buffer) c = static_cast<char>(in->ConsumeIntegral<uint8_t>());
  // data + byte_offset is the element at offset 0, -lo elements into the buffer.
  int64_t first = lead + (listed ? -lo * d->elem : 0);
  if (in->ConsumeBool()) {
    d->t.data = d->buffer.data();
    d->t.byte_offset = static_cast<uint64_t>(first);
  } else {
    d->t.data = d->buffer.data() + std::min<int64_t>(first, static_cast<int64_t>(d->buffer.size()));
    d->t.byte_offset = 0;
  }
  if (in->ConsumeIntegralInRange<int>(0, 31) == 0) d->t.data = nullptr, d->sized = false;
  // A CPU bool tensor too big to back here would be read where no memory is: not a CPU one.
  if (read_on_import && !d->sized && d->t.data != nullptr) d->t.device.device_type = kDLExtDev;
}

/*!
 * \brief Whether element copy equals element src of dtype t: the same bytes, or for bool the
 *  same truth values (a borrowed bool tensor holding bytes other than 0 and 1 is read through a
 *  copy holding 0 and 1).
 */
bool SameElement(const char* copy, const char* src, int64_t elem, DLDataType t) {
  if (t.code != kDLBool || t.bits != 8) return std::memcmp(copy, src, elem) == 0;
  for (int64_t i = 0; i < elem; ++i) {
    if ((copy[i] != 0) != (src[i] != 0) || static_cast<uint8_t>(copy[i]) > 1) return false;
  }
  return true;
}

/*! \brief An accepted array keeps the description it was given. */
void CheckSameDescription(const NDArray& a, const Described& d) {
  const DLTensor& t = a.tensor();
  MXFFI_FUZZ_CHECK(t.ndim == d.t.ndim, "ndim changed on import");
  for (int i = 0; i < t.ndim; ++i) {
    MXFFI_FUZZ_CHECK(t.shape[i] == d.t.shape[i], "shape changed on import");
    if (d.t.strides)
      MXFFI_FUZZ_CHECK(t.strides && t.strides[i] == d.t.strides[i], "strides changed");
  }
  MXFFI_FUZZ_CHECK(t.dtype.code == d.t.dtype.code && t.dtype.bits == d.t.dtype.bits &&
                       t.dtype.lanes == d.t.dtype.lanes,
                   "dtype changed on import");
  MXFFI_FUZZ_CHECK(reinterpret_cast<uintptr_t>(t.data) + t.byte_offset ==
                       reinterpret_cast<uintptr_t>(d.t.data) + d.t.byte_offset,
                   "first element moved on import");
  MXFFI_FUZZ_CHECK(!a.is_sparse(), "an imported array is sparse");
}

/*! \brief A copy of an accepted, fully backed CPU array holds exactly the addressed elements. */
void CheckReadable(const NDArray& a, const Described& d, const char* how) {
  if (!d.sized) return;
  std::optional<NDArray> copy;
  try {
    copy = NDArray::Copy(a.tensor());
  } catch (const mxffi::Error& e) {
    if (!mxffi_fuzz::ExpectedKind(e.kind(), e.message())) {
      Fail(std::string(how) + ": NDArray::Copy threw " + e.kind() + ": " + e.message());
    }
    return;
  }
  const char* base = static_cast<const char*>(d.t.data) + d.t.byte_offset;
  MXFFI_FUZZ_CHECK(copy->numel() == static_cast<int64_t>(d.offsets.size()), "copy size");
  for (size_t i = 0; i < d.offsets.size(); ++i) {
    if (!SameElement(static_cast<const char*>(copy->data()) + i * d.elem,
                     base + d.offsets[i] * d.elem, d.elem, d.t.dtype)) {
      Fail(std::string(how) + ": element " + std::to_string(i) + " differs in the copy");
    }
  }
}

int g_deleted = 0;
void CountDelete(DLManagedTensor*) { ++g_deleted; }
void CountDeleteVersioned(DLManagedTensorVersioned*) { ++g_deleted; }

/*! \brief Import through one of the owning paths; check the deleter runs iff it should. */
void ImportOwned(FuzzedDataProvider* in, const Described& d) {
  DLManagedTensor legacy{};
  legacy.dl_tensor = d.t;
  legacy.deleter = CountDelete;
  DLManagedTensorVersioned versioned{};
  versioned.version.major =
      in->ConsumeIntegralInRange<int>(0, 7) == 0 ? in->ConsumeIntegral<uint8_t>() : 1;
  versioned.version.minor = in->ConsumeIntegral<uint8_t>();
  versioned.flags = in->ConsumeBool() ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  versioned.dl_tensor = d.t;
  versioned.deleter = CountDeleteVersioned;
  bool use_versioned = in->ConsumeBool();
  bool through_global = in->ConsumeBool();
  g_deleted = 0;
  std::optional<NDArray> a;
  if (through_global) {
    MXFFIAny args[2] = {mxffi_fuzz::NoneCell(), mxffi_fuzz::NoneCell()};
    args[0].type_index = kMXFFIOpaquePtr;
    args[0].v_ptr = use_versioned ? static_cast<void*>(&versioned) : static_cast<void*>(&legacy);
    args[1].type_index = kMXFFIBool;
    args[1].v_int64 = use_versioned;
    bool ok = false;
    Any r = Call("ndarray.from_dlpack", args, 2, &ok);
    if (ok) a = r.cast<NDArray>();
  } else {
    try {
      a = use_versioned ? NDArray::FromDLPackVersioned(&versioned) : NDArray::FromDLPack(&legacy);
    } catch (const mxffi::Error& e) {
      if (!mxffi_fuzz::ExpectedKind(e.kind(), e.message())) {
        Fail("FromDLPack threw " + e.kind() + ": " + e.message());
      }
    }
  }
  MXFFI_FUZZ_CHECK(g_deleted == 0, "the deleter ran during the import");
  if (a) {
    CheckSameDescription(*a, d);
    if (use_versioned) {
      MXFFI_FUZZ_CHECK(a->read_only() == (versioned.flags != 0), "read-only flag lost");
    }
    CheckReadable(*a, d, "from_dlpack");
    a.reset();
    MXFFI_FUZZ_CHECK(g_deleted == 1, "the deleter did not run exactly once");
  }
}

/*! \brief Pass the tensor as a borrowed DLTensor* argument. */
void ImportBorrowed(FuzzedDataProvider* in, Described* d) {
  MXFFIAny arg = mxffi_fuzz::NoneCell();
  arg.type_index = kMXFFIDLTensorPtr;
  arg.v_ptr = &d->t;
  if (!d->sized) {
    // Only paths that must not read the elements: the description alone is checked. A CPU
    // tensor that is bool or misaligned is read (copied) on import, so it is left out.
    uintptr_t align = std::min<uintptr_t>(std::max<uintptr_t>(d->t.dtype.bits / 8, 1), 8);
    bool cpu = d->t.device.device_type == kDLCPU && d->t.data != nullptr;
    if (cpu && (d->t.dtype.code == kDLBool ||
                (reinterpret_cast<uintptr_t>(d->t.data) + d->t.byte_offset) % align != 0)) {
      return;
    }
    try {
      NDArray a = NDArray::FromBorrowed(d->t);
      CheckSameDescription(a, *d);
    } catch (const mxffi::Error& e) {
      if (!mxffi_fuzz::ExpectedKind(e.kind(), e.message())) {
        Fail("FromBorrowed threw " + e.kind() + ": " + e.message());
      }
    }
    return;
  }
  static const char* kReaders[] = {
      "np.copy", "np.sum", "np.asarray", "testing.tensor_first_f64", "np.max", "np.transpose"};
  const char* reader = in->PickValueInArray(kReaders);
  bool ok = false;
  Any r = Call(reader, &arg, 1, &ok);
  if (!ok) return;
  const char* base = static_cast<const char*>(d->t.data) + d->t.byte_offset;
  if (std::string(reader) == "np.copy") {
    NDArray c = r.cast<NDArray>();
    MXFFI_FUZZ_CHECK(c.numel() == static_cast<int64_t>(d->offsets.size()), "np.copy size");
    for (size_t i = 0; i < d->offsets.size(); ++i) {
      if (!SameElement(static_cast<const char*>(c.data()) + i * d->elem,
                       base + d->offsets[i] * d->elem, d->elem, d->t.dtype)) {
        Fail("np.copy element " + std::to_string(i) + " differs");
      }
    }
  } else if (std::string(reader) == "testing.tensor_first_f64") {
    MXFFI_FUZZ_CHECK(!d->offsets.empty(), "tensor_first_f64 read an empty tensor");
    double want;
    std::memcpy(&want, base, sizeof(want));
    double got = r.cast<double>();
    MXFFI_FUZZ_CHECK(std::memcmp(&got, &want, sizeof(got)) == 0 || (got != got && want != want),
                     "tensor_first_f64 read the wrong element");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  Described d;
  Describe(&in, &d);
  if (in.ConsumeBool()) {
    ImportOwned(&in, d);
  } else {
    ImportBorrowed(&in, &d);
  }
  return 0;
}
