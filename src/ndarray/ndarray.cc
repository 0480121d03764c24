/*!
 * \file ndarray.cc
 * \brief NDArray: allocation, DLPack import and export, and its registered globals.
 */
#include <mxffi/container/array.h>
#include <mxffi/container/shape.h>
#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>
#include <mxffi/registry.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <vector>

#include "../core/lent_tensor.h"
#include "cuda/device.h"
#include "shape_check.h"

namespace mxffi {

using details::CheckImported;
using details::ShapeString;

static_assert(offsetof(MXFFINDArrayObj, tensor) == sizeof(MXFFIObject),
              "the frozen layout puts the DLTensor right after the header");

namespace {

void FillFrom(NDArrayObj* obj, const DLTensor& t);

/*!
 * \brief The index (C order) of the first element of a CPU bool tensor holding a byte other than
 *  0 or 1, or -1 when there is none (or the tensor is not a CPU bool tensor).
 * \note numpy reads any nonzero byte of a bool array as True, and a view of bytes as bool holds
 *  such bytes; the kernels read bool elements as C++ bool, which must be 0 or 1.
 */
int64_t FirstNonBoolByte(const DLTensor& t) {
  if (t.dtype.code != kDLBool || t.dtype.bits != 8 || t.device.device_type != kDLCPU) return -1;
  int64_t lanes = t.dtype.lanes;
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (t.shape[i] == 0) return -1;
  }
  const uint8_t* base = static_cast<const uint8_t*>(t.data) + t.byte_offset;
  std::vector<int64_t> idx(static_cast<size_t>(t.ndim), 0), strides(static_cast<size_t>(t.ndim));
  if (t.strides) {
    std::copy(t.strides, t.strides + t.ndim, strides.begin());
  } else {
    NDArray::CompactStrides(t, strides.data());
  }
  for (int64_t n = 0;; ++n) {
    int64_t off = 0;
    for (int32_t i = 0; i < t.ndim; ++i) off += idx[i] * strides[i];
    for (int64_t l = 0; l < lanes; ++l) {
      if (base[off * lanes + l] > 1) return n;
    }
    int32_t d = t.ndim - 1;
    while (d >= 0 && ++idx[d] == t.shape[d]) idx[d--] = 0;
    if (d < 0) return -1;
  }
}

/*!
 * \brief Whether the first element of a non-empty CPU tensor sits where its element type may be
 *  read (numpy arrays made from a buffer at an odd offset need not); other tensors pass.
 */
bool Aligned(const DLTensor& t) {
  if (t.device.device_type != kDLCPU || t.data == nullptr) return true;
  uintptr_t align = std::min<uintptr_t>(std::max<uintptr_t>(t.dtype.bits / 8, 1), 8);
  return (reinterpret_cast<uintptr_t>(t.data) + t.byte_offset) % align == 0;
}

/*!
 * \brief Refuse a shared CPU tensor whose first element is misaligned, or a bool one holding
 *  bytes other than 0 and 1: the array shares the producer's memory, so it cannot be read
 *  through an aligned, normalised copy as a borrowed argument is.
 */
void CheckSharedReadable(const DLTensor& t, const char* fname) {
  MXFFI_CHECK(Aligned(t), ValueError)
      << fname << ": the first element (data + byte_offset) is not aligned for "
      << DataTypeToString(t.dtype) << "; a shared tensor must be";
  int64_t bad = FirstNonBoolByte(t);
  MXFFI_CHECK(bad < 0, ValueError)
      << fname << ": bool element " << bad
      << " (C order) is neither 0 nor 1; a shared bool tensor must hold 0 and 1 only "
      << "(convert it with astype(bool) first)";
}

/*! \brief The context of an exported legacy tensor: a reference and the tensor itself. */
struct ExportedTensor {
  NDArray array;
  DLManagedTensor managed;
};
struct ExportedTensorVersioned {
  NDArray array;
  DLManagedTensorVersioned managed;
};

void DeleteExported(DLManagedTensor* self) {
  delete static_cast<ExportedTensor*>(self->manager_ctx);
}
void DeleteExportedVersioned(DLManagedTensorVersioned* self) {
  delete static_cast<ExportedTensorVersioned*>(self->manager_ctx);
}

}  // namespace

NDArrayObj::~NDArrayObj() {
  if (managed_ != nullptr && managed_->deleter != nullptr) managed_->deleter(managed_);
  if (managed_v_ != nullptr && managed_v_->deleter != nullptr) managed_v_->deleter(managed_v_);
}

void ThrowUnknownStorage(StorageType stype, std::string_view fname, std::string_view what) {
  MXFFI_THROW(TypeError) << fname << ": " << what << " has storage type "
                         << static_cast<int32_t>(stype)
                         << ", which this version of mxffi does not know (an array from a newer "
                         << "version?); it is not read as dense, and nothing here can read it";
  __builtin_unreachable();
}

int64_t DataTypeBytes(DLDataType dtype) {
  return (static_cast<int64_t>(dtype.bits) * dtype.lanes + 7) / 8;
}

void NDArrayObj::SetShape(const int64_t* shape, const int64_t* strides, int32_t ndim) {
  int64_t* dims = inline_dims_;
  if (ndim > kInlineDims) {
    heap_dims_.reset(new int64_t[2 * static_cast<size_t>(ndim)]);
    dims = heap_dims_.get();
  }
  for (int32_t i = 0; i < ndim; ++i) dims[i] = shape[i];
  tensor.ndim = ndim;
  tensor.shape = ndim == 0 ? nullptr : dims;
  if (strides == nullptr) {
    tensor.strides = nullptr;
  } else {
    for (int32_t i = 0; i < ndim; ++i) dims[ndim + i] = strides[i];
    tensor.strides = ndim == 0 ? nullptr : dims + ndim;
  }
}

namespace {

void FillFrom(NDArrayObj* obj, const DLTensor& t) {
  DLTensor& dst = obj->tensor;
  dst.data = t.data;
  dst.device = t.device;
  dst.dtype = t.dtype;
  dst.byte_offset = t.byte_offset;
  obj->SetShape(t.shape, t.strides, t.ndim);
}

}  // namespace

namespace {

/*!
 * \brief Asks Linux to back a large new array with transparent huge pages, as numpy does for
 *  its own arrays of 4 MiB and more: the first write then maps 2 MiB per page fault instead of
 *  4 KiB, and those faults are most of the cost of filling a fresh array of tens of MB (np.exp
 *  of 10^7 floats, a transposed copy). Only a hint: nothing changes where huge pages are off.
 */
void AdviseHugePages(void* p, size_t nbytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr size_t kMinBytes = size_t{4} << 20;
  constexpr uintptr_t kPage = 4096;
  if (nbytes < kMinBytes) return;
  const uintptr_t b = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const uintptr_t e = (reinterpret_cast<uintptr_t>(p) + nbytes) & ~(kPage - 1);
  if (e > b) madvise(reinterpret_cast<void*>(b), e - b, MADV_HUGEPAGE);  // a failure is harmless
#else
  (void)p;
  (void)nbytes;
#endif
}

/*!
 * \brief Large CPU blocks kept after their array is freed, for the next array of about the same
 *  size: a fresh result of tens of MB then reuses pages the process has mapped already instead
 *  of paying a page fault per page, which costs more than the arithmetic that fills it (np.exp
 *  of 10^7 floats) and does not get faster with more threads. Bounded: blocks of at least
 *  kMinBytes, at most `limit` bytes in all (MXFFI_CPU_CACHE_BYTES, default an eighth of the
 *  machine's memory within [256 MiB, 4 GiB]; 0 turns it off); ndarray.release_cached_memory
 *  returns them to the system.
 *
 *  A block freed when the cache is full pushes out the blocks freed longest ago: the sizes a
 *  program allocated last are the ones it allocates next (a loop over one computation), while
 *  blocks left from earlier work would otherwise hold the cache full for good and every later
 *  result would pay its page faults again.
 */
class LargeBlockCache {
 public:
  static constexpr size_t kMinBytes = size_t{4} << 20;

  /*!
   * \brief The default bound: an eighth of the machine's memory, from 256 MiB to 4 GiB. Results
   *  of hundreds of MB (a graph's per-feature edge ids) then reuse their pages too.
   */
  static size_t DefaultLimit() {
    constexpr size_t kLow = size_t{256} << 20, kHigh = size_t{4} << 30;
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);  // NOLINT
    if (pages <= 0 || page <= 0) return kLow;
    const size_t eighth = static_cast<size_t>(pages) / 8 * static_cast<size_t>(page);
    return std::min(kHigh, std::max(kLow, eighth));
  }

  static LargeBlockCache& Global() {
    static auto* cache = new LargeBlockCache();  // leaked: arrays outlive static destruction
    return *cache;
  }

  /*! \return a cached block of at least bytes and at most a quarter more, or nullptr. */
  void* Take(size_t bytes, size_t* capacity) {
    if (bytes < kMinBytes || limit_ == 0) return nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    // At most limit / kMinBytes blocks (64 by default): a scan for the smallest fit is cheap.
    size_t best = blocks_.size();
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const size_t c = blocks_[i].capacity;
      if (c >= bytes && c <= bytes + bytes / 4 &&
          (best == blocks_.size() || c < blocks_[best].capacity)) {
        best = i;
      }
    }
    if (best == blocks_.size()) return nullptr;
    void* block = blocks_[best].block;
    *capacity = blocks_[best].capacity;
    held_ -= blocks_[best].capacity;
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(best));
    return block;
  }

  /*! \return whether the block was kept (the caller frees it otherwise). Blocks freed longest
   *  ago are given back to the system until this one fits. */
  bool Put(void* block, size_t capacity) {
    if (capacity < kMinBytes || capacity > limit_) return false;
    std::vector<void*> evicted;
    {
      std::lock_guard<std::mutex> lock(mu_);
      size_t drop = 0;  // blocks_ is in the order they were freed, oldest first
      while (held_ + capacity > limit_) {
        held_ -= blocks_[drop].capacity;
        evicted.push_back(blocks_[drop++].block);
      }
      blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(drop));
      blocks_.push_back({block, capacity});
      held_ += capacity;
    }
    for (void* b : evicted) std::free(b);  // outside the lock: munmap takes its time
    return true;
  }

  /*! \return the bytes returned to the system. */
  size_t Release() {
    std::vector<Block> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      blocks.swap(blocks_);
      held_ = 0;
    }
    size_t bytes = 0;
    for (const Block& b : blocks) {
      bytes += b.capacity;
      std::free(b.block);
    }
    return bytes;
  }

  size_t held() {
    std::lock_guard<std::mutex> lock(mu_);
    return held_;
  }

 private:
  struct Block {
    void* block;
    size_t capacity;
  };

  LargeBlockCache() : limit_(DefaultLimit()) {
    const char* env = std::getenv("MXFFI_CPU_CACHE_BYTES");
    if (env != nullptr && *env != '\0') {
      char* end = nullptr;
      unsigned long long v = std::strtoull(env, &end, 10);  // NOLINT(runtime/int)
      if (end != nullptr && *end == '\0') limit_ = static_cast<size_t>(v);
    }
  }

  std::mutex mu_;
  std::vector<Block> blocks_;  // in the order they were freed, oldest first
  size_t held_ = 0;
  size_t limit_;
};

/*! \brief Deleter of an array whose data shares the object's allocation. */
void DeleteInlineNDArray(void* self) {
  NDArrayObj* obj = static_cast<NDArrayObj*>(reinterpret_cast<Object*>(self));
  const size_t capacity = obj->block_bytes_;
  obj->~NDArrayObj();
  if (LargeBlockCache::Global().Put(static_cast<void*>(obj), capacity)) return;
  std::free(static_cast<void*>(obj));
}

}  // namespace

NDArray NDArray::Empty(const int64_t* shape, int32_t ndim, DLDataType dtype, DLDevice device) {
  const bool gpu = device.device_type == kDLCUDA;
  if (device.device_type != kDLCPU && !gpu) {
    MXFFI_THROW(NotImplementedError) << "ndarray.empty: device type " << device.device_type
                                     << " is not supported; only the CPU (1) and CUDA (2) are";
  }
  MXFFI_CHECK(dtype.lanes >= 1 && dtype.bits >= 1, ValueError)
      << "ndarray.empty: invalid dtype " << DataTypeToString(dtype);
  MXFFI_CHECK(ndim >= 0, ValueError) << "ndarray.empty: ndim must be >= 0, got " << ndim;
  const int64_t nbytes =
      details::CheckedShapeSize(shape, ndim, dtype, "ndarray.empty") * DataTypeBytes(dtype);
  if (gpu) return cuda::Empty(shape, ndim, dtype, device, nbytes);
  // One block: the object, then the data at the next 64-byte boundary. Plain malloc plus
  // alignment slack costs far less than an aligned allocation next to the object's own.
  constexpr size_t kHead =
      (sizeof(NDArrayObj) + kNDArrayAlignment - 1) / kNDArrayAlignment * kNDArrayAlignment;
  size_t total = kHead + kNDArrayAlignment - 1 + static_cast<size_t>(nbytes);
  size_t capacity = total;
  void* block = nbytes > static_cast<int64_t>(SIZE_MAX / 2)
                    ? nullptr
                    : LargeBlockCache::Global().Take(total, &capacity);
  if (block == nullptr && nbytes <= static_cast<int64_t>(SIZE_MAX / 2)) {
    capacity = total;
    block = std::malloc(total);
    if (block == nullptr && LargeBlockCache::Global().Release() > 0) block = std::malloc(total);
  }
  if (block == nullptr) {
    MXFFI_THROW(MemoryError) << "ndarray.empty: cannot allocate " << nbytes << " bytes for shape "
                             << ShapeString(shape, ndim) << " of " << DataTypeToString(dtype);
  }
  NDArrayObj* raw = new (block) NDArrayObj();
  uintptr_t data = (reinterpret_cast<uintptr_t>(block) + kHead + kNDArrayAlignment - 1) &
                   ~static_cast<uintptr_t>(kNDArrayAlignment - 1);
  if (capacity == total)
    AdviseHugePages(reinterpret_cast<void*>(data), static_cast<size_t>(nbytes));
  raw->block_bytes_ = capacity;
  ObjectPtr<NDArrayObj> obj = details::FinishObject(raw, DeleteInlineNDArray);
  DLTensor& t = obj->tensor;
  t.data = reinterpret_cast<void*>(data);
  t.device = device;
  t.dtype = dtype;
  t.byte_offset = 0;
  obj->SetShape(shape, nullptr, ndim);
  return NDArray(std::move(obj));
}

NDArray NDArray::FromBorrowed(const DLTensor& tensor) {
  CheckImported(tensor, "ndarray.from_borrowed");
  bool bad_bool = tensor.dtype.code == kDLBool && FirstNonBoolByte(tensor) >= 0;
  if (bad_bool || !Aligned(tensor)) {
    // A misaligned tensor, or a bool view whose True bytes are not all 1: the call reads an
    // aligned copy holding 0 and 1 only (a borrowed tensor is an input; nothing writes to it).
    NDArray copy = Copy(tensor);
    uint8_t* p = static_cast<uint8_t*>(copy.data());
    for (int64_t i = 0, n = bad_bool ? copy.numel() * tensor.dtype.lanes : 0; i < n; ++i) {
      p[i] = p[i] != 0;
    }
    return copy;
  }
  ObjectPtr<NDArrayObj> obj = make_object<NDArrayObj>();
  FillFrom(obj.get(), tensor);
  return NDArray(std::move(obj));
}

NDArray NDArray::View(const NDArray& base, const int64_t* shape, const int64_t* strides,
                      int32_t ndim, int64_t byte_offset) {
  MXFFI_CHECK(base.defined(), ValueError) << "ndarray.view: the base array is null";
  if (base.get()->stype != kMXFFIStorageDefault) {
    base.CheckStorageKnown("ndarray.view", "the base array");
    MXFFI_THROW(TypeError) << "ndarray.view: the base array is " << StorageTypeName(base.stype())
                           << "; views are of dense arrays";
  }
  details::CheckedShapeSize(shape, ndim, base.tensor().dtype, "ndarray.view");
  ObjectPtr<NDArrayObj> obj = make_object<NDArrayObj>();
  const DLTensor& b = base.tensor();
  DLTensor& t = obj->tensor;
  t.data = b.data;
  t.device = b.device;
  t.dtype = b.dtype;
  // DLPack's byte_offset is unsigned: a view starting before base's element 0 (base has
  // negative strides) moves the data pointer instead.
  const int64_t start = static_cast<int64_t>(b.byte_offset) + byte_offset;
  if (start >= 0) {
    t.byte_offset = static_cast<uint64_t>(start);
  } else {
    t.data = static_cast<char*>(b.data) + start;
    t.byte_offset = 0;
  }
  obj->SetShape(shape, strides, ndim);
  obj->read_only_ = base.read_only();
  // A view of a view shares the memory of the first array: keep that one (numpy's base).
  const ObjectRef& owner = base.base();
  obj->base_ = owner.defined() ? owner : static_cast<const ObjectRef&>(base);
  return NDArray(std::move(obj));
}

namespace {

/*! \brief Copy one element-sized block per index of a strided walk, innermost dim fastest. */
/*!
 * \brief n elements of sizeof(T) bytes from src to dst, ss and ds bytes apart: fixed-size
 *  copies the compiler turns into one load and one store each.
 */
template <typename T>
void StridedRun(const char* src, int64_t ss, char* dst, int64_t ds, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, src + i * ss, sizeof(T));
    std::memcpy(dst + i * ds, &v, sizeof(T));
  }
}

void StridedCopy(const char* src, const int64_t* sstr, char* dst, const int64_t* dstr,
                 const int64_t* shape, int32_t ndim, int64_t elem) {
  if (ndim == 0) {
    std::memcpy(dst, src, elem);
    return;
  }
  if (ndim == 1) {
    if (sstr[0] == 1 && dstr[0] == 1) {
      std::memcpy(dst, src, shape[0] * elem);
      return;
    }
    const int64_t ss = sstr[0] * elem, ds = dstr[0] * elem;
    switch (elem) {
      case 1:
        return StridedRun<uint8_t>(src, ss, dst, ds, shape[0]);
      case 2:
        return StridedRun<uint16_t>(src, ss, dst, ds, shape[0]);
      case 4:
        return StridedRun<uint32_t>(src, ss, dst, ds, shape[0]);
      case 8:
        return StridedRun<uint64_t>(src, ss, dst, ds, shape[0]);
      default:
        for (int64_t i = 0; i < shape[0]; ++i) std::memcpy(dst + i * ds, src + i * ss, elem);
        return;
    }
  }
  for (int64_t i = 0; i < shape[0]; ++i) {
    StridedCopy(src + i * sstr[0] * elem, sstr + 1, dst + i * dstr[0] * elem, dstr + 1, shape + 1,
                ndim - 1, elem);
  }
}

}  // namespace

void NDArray::CompactStrides(const DLTensor& t, int64_t* out) {
  int64_t s = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    out[i] = s;
    // Only an empty tensor (a 0 extent further left) can overflow here; its strides are moot.
    if (__builtin_mul_overflow(s, t.shape[i], &s)) s = 0;
  }
}

void NDArray::CopyFromTo(const DLTensor& src, const DLTensor& dst) {
  MXFFI_CHECK(src.ndim == dst.ndim && std::equal(src.shape, src.shape + src.ndim, dst.shape),
              ValueError)
      << "ndarray.copy: shape mismatch, " << ShapeString(src.shape, src.ndim) << " into "
      << ShapeString(dst.shape, dst.ndim);
  MXFFI_CHECK(src.dtype.code == dst.dtype.code && src.dtype.bits == dst.dtype.bits &&
                  src.dtype.lanes == dst.dtype.lanes,
              ValueError)
      << "ndarray.copy: dtype mismatch, " << DataTypeToString(src.dtype) << " into "
      << DataTypeToString(dst.dtype);
  for (const DLTensor* t : {&src, &dst}) {
    MXFFI_CHECK(t->device.device_type == kDLCPU || t->device.device_type == kDLCUDA,
                NotImplementedError)
        << "ndarray.copy: device type " << t->device.device_type
        << " is not supported; only the CPU (1) and CUDA (2) are";
  }
  if (src.device.device_type != kDLCPU || dst.device.device_type != kDLCPU) {
    cuda::CopyFromTo(src, dst);
    return;
  }
  const char* s = static_cast<const char*>(src.data) + src.byte_offset;
  char* d = static_cast<char*>(dst.data) + dst.byte_offset;
  int64_t elem = DataTypeBytes(src.dtype);
  for (int32_t i = 0; i < src.ndim; ++i) {
    if (src.shape[i] == 0) return;
  }
  if (IsContiguous(src) && IsContiguous(dst)) {
    int64_t n = 1;
    for (int32_t i = 0; i < src.ndim; ++i) n *= src.shape[i];
    std::memmove(d, s, n * elem);
    return;
  }
  std::vector<int64_t> strides(2 * static_cast<size_t>(src.ndim));
  if (src.strides) {
    std::copy(src.strides, src.strides + src.ndim, strides.begin());
  } else {
    NDArray::CompactStrides(src, strides.data());
  }
  if (dst.strides) {
    std::copy(dst.strides, dst.strides + dst.ndim, strides.begin() + src.ndim);
  } else {
    NDArray::CompactStrides(dst, strides.data() + src.ndim);
  }
  StridedCopy(s, strides.data(), d, strides.data() + src.ndim, src.shape, src.ndim, elem);
}

NDArray NDArray::Copy(const DLTensor& src) {
  NDArray out = Empty(src.shape, src.ndim, src.dtype, src.device);
  CopyFromTo(src, out.tensor());
  return out;
}

namespace details {
Any OwnedCopyOfLentTensor(const DLTensor& lent) { return Any(NDArray::Copy(lent)); }
}  // namespace details

NDArray NDArray::FromDLPack(DLManagedTensor* managed) {
  MXFFI_CHECK(managed != nullptr, ValueError) << "ndarray.from_dlpack: the tensor is NULL";
  CheckImported(managed->dl_tensor, "ndarray.from_dlpack");
  CheckSharedReadable(managed->dl_tensor, "ndarray.from_dlpack");
  ObjectPtr<NDArrayObj> obj = make_object<NDArrayObj>();
  FillFrom(obj.get(), managed->dl_tensor);
  obj->managed_ = managed;  // taken: nothing below can throw
  return NDArray(std::move(obj));
}

NDArray NDArray::FromDLPackVersioned(DLManagedTensorVersioned* managed) {
  MXFFI_CHECK(managed != nullptr, ValueError) << "ndarray.from_dlpack: the tensor is NULL";
  MXFFI_CHECK(managed->version.major == 1, ValueError)
      << "ndarray.from_dlpack: DLPack " << managed->version.major << "." << managed->version.minor
      << " is not supported; expected 1.x";
  CheckImported(managed->dl_tensor, "ndarray.from_dlpack");
  CheckSharedReadable(managed->dl_tensor, "ndarray.from_dlpack");
  ObjectPtr<NDArrayObj> obj = make_object<NDArrayObj>();
  FillFrom(obj.get(), managed->dl_tensor);
  obj->read_only_ = (managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  obj->managed_v_ = managed;
  return NDArray(std::move(obj));
}

DLManagedTensor* NDArray::ToDLPack() const {
  MXFFI_CHECK(defined(), ValueError) << "ndarray.to_dlpack: the array is null";
  CheckStorageKnown("ndarray.to_dlpack", "the array");
  MXFFI_CHECK(!is_sparse(), TypeError)
      << "ndarray.to_dlpack: DLPack has no sparse tensors; this array is "
      << StorageTypeName(stype()) << " (convert it with tostype('default') first)";
  auto* ctx = new ExportedTensor{*this, {}};
  ctx->managed.dl_tensor = get()->tensor;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = DeleteExported;
  return &ctx->managed;
}

DLManagedTensorVersioned* NDArray::ToDLPackVersioned() const {
  MXFFI_CHECK(defined(), ValueError) << "ndarray.to_dlpack: the array is null";
  CheckStorageKnown("ndarray.to_dlpack", "the array");
  MXFFI_CHECK(!is_sparse(), TypeError)
      << "ndarray.to_dlpack: DLPack has no sparse tensors; this array is "
      << StorageTypeName(stype()) << " (convert it with tostype('default') first)";
  auto* ctx = new ExportedTensorVersioned{*this, {}};
  ctx->managed.version.major = 1;
  ctx->managed.version.minor = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = DeleteExportedVersioned;
  ctx->managed.flags = get()->read_only_ ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
  ctx->managed.dl_tensor = get()->tensor;
  return &ctx->managed;
}

int64_t NDArray::numel() const {
  const DLTensor& t = tensor();
  // An empty array may have other extents whose product overflows: any 0 extent first.
  if (std::any_of(t.shape, t.shape + t.ndim, [](int64_t d) { return d == 0; })) return 0;
  int64_t n = 1;
  for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

bool NDArray::IsContiguous(const DLTensor& t) {
  if (t.strides == nullptr) return true;
  int64_t expected = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) return false;
    expected *= t.shape[i];
  }
  return true;
}

namespace {

/*! \brief A shape argument: a Shape, an Array of ints, or one int. */
std::vector<int64_t> ShapeArg(const AnyView& v, const char* fname) {
  if (auto s = v.try_cast<Shape>()) return std::vector<int64_t>(s->begin(), s->end());
  if (auto n = v.try_cast<int64_t>()) return {*n};
  if (auto a = v.try_cast<Array<Any>>()) {
    std::vector<int64_t> out;
    for (int64_t i = 0; i < a->size(); ++i) {
      std::optional<int64_t> d = (*a)[i].try_cast<int64_t>();
      if (!d.has_value()) {
        MXFFI_THROW(TypeError) << fname << ": shape[" << i << "] expected int, got "
                               << (*a)[i].GetTypeName();
      }
      out.push_back(*d);
    }
    return out;
  }
  MXFFI_THROW(TypeError) << fname << ": argument #0 'shape' expected a Shape, a sequence of ints "
                         << "or an int, got " << v.GetTypeName();
}

}  // namespace

MXFFI_REGISTER_API("ndarray.empty")
    .describe("An uninitialised C-contiguous array of the given shape, dtype and device.")
    .arg("shape")
    .arg("dtype")
    .arg("device")
    .set_body_typed([](AnyView shape, DLDataType dtype, DLDevice device) {
      return NDArray::Empty(ShapeArg(shape, "ndarray.empty"), dtype, device);
    });

MXFFI_REGISTER_API("ndarray.from_dlpack")
    .describe(
        "An NDArray taking ownership of a DLManagedTensor (versioned=False) or "
        "DLManagedTensorVersioned (versioned=True); nothing is taken when it raises.")
    .arg("managed")
    .arg("versioned")
    .set_body_typed([](void* managed, bool versioned) {
      if (versioned) {
        return NDArray::FromDLPackVersioned(static_cast<DLManagedTensorVersioned*>(managed));
      }
      return NDArray::FromDLPack(static_cast<DLManagedTensor*>(managed));
    });

MXFFI_REGISTER_API("ndarray.to_dlpack")
    .describe(
        "A new DLManagedTensor (versioned=False) or DLManagedTensorVersioned (versioned=True) "
        "viewing the array and holding a reference to it until its deleter runs.")
    .arg("array")
    .arg("versioned")
    .set_body_typed([](NDArray array, bool versioned) -> void* {
      if (versioned) return array.ToDLPackVersioned();
      return array.ToDLPack();
    });

namespace {

/*! \brief Copy src's elements into the existing array dst (same storage type, shape, dtype). */
void CopyInto(const NDArray& src, const NDArray& dst) {
  const DLTensor& s = src.tensor();
  const DLTensor& d = dst.tensor();
  src.CheckStorageKnown("ndarray.copyto", "the source");
  dst.CheckStorageKnown("ndarray.copyto", "the destination");
  MXFFI_CHECK(src.stype() == dst.stype(), TypeError)
      << "ndarray.copyto: storage type mismatch, " << StorageTypeName(src.stype()) << " into "
      << StorageTypeName(dst.stype());
  MXFFI_CHECK(s.ndim == d.ndim && std::equal(s.shape, s.shape + s.ndim, d.shape), ValueError)
      << "ndarray.copyto: shape mismatch, " << ShapeString(s.shape, s.ndim) << " into "
      << ShapeString(d.shape, d.ndim);
  MXFFI_CHECK(s.dtype.code == d.dtype.code && s.dtype.bits == d.dtype.bits &&
                  s.dtype.lanes == d.dtype.lanes,
              TypeError)
      << "ndarray.copyto: dtype mismatch, " << DataTypeToString(s.dtype) << " into "
      << DataTypeToString(d.dtype) << " (convert with astype first)";
  MXFFI_CHECK(!dst.read_only(), ValueError) << "ndarray.copyto: the destination is read-only";
  if (!src.is_sparse()) {
    NDArray::CopyFromTo(s, d);
    return;
  }
  NDArray parts = cuda::ToDevice(src, d.device, "ndarray.copyto");
  MXFFI_CHECK(parts.storage_initialized(), ValueError)
      << "ndarray.copyto: the source's sparse storage is not initialised";
  dst.SetSparseStorage(parts.sparse_part(0), parts.sparse_part(1), parts.sparse_part(2));
}

}  // namespace

MXFFI_REGISTER_API("ndarray.to_device")
    .describe(
        "A copy of the array (dense, csr or row_sparse; each part copied) on device, always a "
        "new array, C-contiguous; between the CPU and CUDA devices in any direction.")
    .arg("array")
    .arg("device")
    .set_body_typed([](NDArray array, DLDevice device) {
      return cuda::ToDevice(array, device, "ndarray.to");
    });

MXFFI_REGISTER_API("ndarray.copyto")
    .describe(
        "Copy the elements of src into the existing array dst of the same storage type, shape "
        "and dtype, on any device; returns dst.")
    .arg("src")
    .arg("dst")
    .set_body_typed([](NDArray src, NDArray dst) {
      CopyInto(src, dst);
      return dst;
    });

namespace {

/*! \brief The lowest and highest element offsets (from element 0) a strided array reaches. */
bool ElementExtent(const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t* lo,
                   int64_t* hi) {
  *lo = 0;
  *hi = 0;
  for (int32_t i = 0; i < ndim; ++i) {
    if (shape[i] == 0) return false;  // no elements at all
    int64_t reach;
    if (__builtin_mul_overflow(shape[i] - 1, strides[i], &reach)) {
      MXFFI_THROW(OverflowError) << "ndarray.view: dimension " << i << " of extent " << shape[i]
                                 << " and stride " << strides[i] << " overflows int64";
    }
    int64_t* side = reach < 0 ? lo : hi;
    if (__builtin_add_overflow(*side, reach, side)) {
      MXFFI_THROW(OverflowError) << "ndarray.view: the extent of the view overflows int64";
    }
  }
  return true;
}

/*!
 * \brief ndarray.view(base, offset, d_0, ..., d_{n-1}, s_0, ..., s_{n-1}): a view of the dense
 *  array base whose element 0 is base's element at offset elements from base's element 0, of
 *  shape d and element strides s. Every element the view reaches must lie within the elements
 *  base reaches, which is checked, not trusted: the caller (the Cython array type's indexing)
 *  has computed the view already.
 */
void ViewBody(PackedArgs args, Any* ret) {
  constexpr int32_t kMaxDims = 64;
  MXFFI_CHECK(args.size() >= 2 && args.size() % 2 == 0, TypeError)
      << "ndarray.view: expected (base, offset, *shape, *strides), got " << args.size()
      << " arguments";
  // The cells are read directly: this is the array type's indexing, a hot path.
  const MXFFIAny* base_cell = args.data()[0].raw();
  MXFFI_CHECK(base_cell->type_index == kMXFFINDArray && base_cell->v_obj != nullptr, TypeError)
      << "ndarray.view: argument #0 'base' expected an ndarray, got " << args[0].GetTypeName();
  const NDArrayObj* bobj = reinterpret_cast<const NDArrayObj*>(base_cell->v_obj);
  const int32_t ndim = (args.size() - 2) / 2;
  MXFFI_CHECK(ndim <= kMaxDims, ValueError)
      << "ndarray.view: " << ndim << " dimensions; at most " << kMaxDims << " are supported";
  int64_t vals[2 * kMaxDims + 1];
  for (int32_t i = 0; i < 2 * ndim + 1; ++i) {
    const MXFFIAny* c = args.data()[1 + i].raw();
    MXFFI_CHECK(c->type_index == kMXFFIInt, TypeError)
        << "ndarray.view: argument #" << 1 + i << " expected an int, got "
        << args[1 + i].GetTypeName();
    vals[i] = c->v_int64;
  }
  const int64_t offset = vals[0];
  const int64_t* shape = vals + 1;
  const int64_t* strides = vals + 1 + ndim;
  for (int32_t i = 0; i < ndim; ++i) {
    MXFFI_CHECK(shape[i] >= 0, ValueError)
        << "ndarray.view: dimension " << i << " is negative (" << shape[i] << ")";
  }
  MXFFI_CHECK(bobj->stype == kMXFFIStorageDefault, TypeError)
      << "ndarray.view: the base array is not dense (storage type " << bobj->stype
      << "); views are of dense arrays";
  const DLTensor& b = bobj->tensor;
  MXFFI_CHECK(b.dtype.lanes == 1 && b.dtype.bits % 8 == 0, TypeError)
      << "ndarray.view: views of " << DataTypeToString(b.dtype)
      << " arrays are not supported (whole-byte, single-lane dtypes only)";
  int64_t vlo = 0, vhi = 0;
  if (ElementExtent(shape, strides, ndim, &vlo, &vhi)) {
    int64_t blo = 0, bhi = 0;
    bool base_has_elements;
    if (b.strides == nullptr) {
      // C-contiguous: elements 0 .. numel-1 (a real array's element count fits int64).
      int64_t n = 1;
      for (int32_t i = 0; i < b.ndim; ++i) n *= b.shape[i];
      base_has_elements = n > 0;
      bhi = n - 1;
    } else {
      MXFFI_CHECK(b.ndim <= kMaxDims, ValueError)
          << "ndarray.view: the base has " << b.ndim << " dimensions; at most " << kMaxDims;
      base_has_elements = ElementExtent(b.shape, b.strides, b.ndim, &blo, &bhi);
    }
    const bool inside = base_has_elements && !__builtin_add_overflow(vlo, offset, &vlo) &&
                        !__builtin_add_overflow(vhi, offset, &vhi) && vlo >= blo && vhi <= bhi;
    MXFFI_CHECK(inside, IndexError)
        << "ndarray.view: a view at element offset " << offset << " of shape "
        << ShapeString(shape, ndim) << " reaches outside its base of shape "
        << ShapeString(b.shape, b.ndim);
  }
  const int64_t itemsize = b.dtype.bits / 8;
  NDArray base(ObjectPtr<Object>::CopyFromRaw(details::ObjectUnsafe::FromHeader(base_cell->v_obj)));
  *ret = NDArray::View(base, shape, strides, ndim, offset * itemsize);
}

}  // namespace

MXFFI_REGISTER_API("ndarray.view")
    .describe(
        "A view of a dense array: (base, offset, *shape, *strides), offset and strides in "
        "elements; every element of the view must lie within the base's. The array type's "
        "indexing makes its views with it.")
    .set_body(ViewBody);

MXFFI_REGISTER_API("ndarray.release_cached_memory")
    .describe(
        "Return the large CPU blocks kept for reuse to the system; returns their bytes. "
        "MXFFI_CPU_CACHE_BYTES bounds what is kept (default an eighth of the machine's memory, "
        "from 256 MiB to 4 GiB; 0 keeps nothing).")
    .set_body_typed([]() { return static_cast<int64_t>(LargeBlockCache::Global().Release()); });

MXFFI_REGISTER_API("ndarray.cached_memory")
    .describe("The bytes of large CPU blocks kept for reuse.")
    .set_body_typed([]() { return static_cast<int64_t>(LargeBlockCache::Global().held()); });

MXFFI_REGISTER_API("ndarray.base")
    .describe("The array whose memory a view shares, or None for an array owning its memory.")
    .arg("array")
    .set_body_typed([](NDArray array) -> Any {
      if (!array.base().defined()) return Any();
      return array.base();
    });

MXFFI_REGISTER_API("ndarray.read_only")
    .describe("Whether the producer of the array's memory marked it read-only.")
    .arg("array")
    .set_body_typed([](NDArray array) { return array.read_only(); });

}  // namespace mxffi
