// NDArray: allocation, the frozen layout, DLPack import and export, and the registered globals.
#include <gtest/gtest.h>
#include <mxffi/mxffi.h>
#include <mxffi/ndarray/ndarray.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using mxffi::Error;
using mxffi::Function;
using mxffi::NDArray;

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kF64{kDLFloat, 64, 1};
constexpr DLDevice kCPU{kDLCPU, 0};

std::string KindOf(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.message();
    return e.kind();
  }
  return "";
}

TEST(NDArray, EmptyIsAlignedContiguousAndWritable) {
  NDArray a = NDArray::Empty({3, 4}, kF32, kCPU);
  const DLTensor& t = a.tensor();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data) % mxffi::kNDArrayAlignment, 0u);
  EXPECT_EQ(t.ndim, 2);
  EXPECT_EQ(t.shape[0], 3);
  EXPECT_EQ(t.shape[1], 4);
  EXPECT_EQ(t.strides, nullptr);
  EXPECT_EQ(t.byte_offset, 0u);
  EXPECT_EQ(a.numel(), 12);
  EXPECT_TRUE(a.IsContiguous());
  EXPECT_FALSE(a.read_only());
  float* p = static_cast<float*>(t.data);
  for (int i = 0; i < 12; ++i) p[i] = static_cast<float>(i);
  EXPECT_EQ(p[11], 11.0f);
}

TEST(NDArray, ZeroDimAndZeroSize) {
  NDArray scalar = NDArray::Empty({}, kF64, kCPU);
  EXPECT_EQ(scalar.tensor().ndim, 0);
  EXPECT_EQ(scalar.numel(), 1);
  EXPECT_NE(scalar.tensor().data, nullptr);
  NDArray empty = NDArray::Empty({2, 0, 5}, kF64, kCPU);
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_NE(empty.tensor().data, nullptr);  // a valid pointer even with no elements
}

TEST(NDArray, LayoutMatchesTheFrozenStruct) {
  NDArray a = NDArray::Empty({2}, kF64, kCPU);
  const auto* raw = reinterpret_cast<const MXFFINDArrayObj*>(a.get());
  EXPECT_EQ(raw->header.type_index, kMXFFINDArray);
  EXPECT_EQ(&raw->tensor, &a.tensor());
  EXPECT_EQ(raw->tensor.shape[0], 2);
}

TEST(NDArray, BadShapesAndDevicesAreErrors) {
  std::string msg;
  EXPECT_EQ(KindOf([] { NDArray::Empty({3, -1}, kF32, kCPU); }, &msg), "ValueError");
  EXPECT_EQ(msg, "ndarray.empty: negative dimensions are not allowed; got shape (3, -1)");
  EXPECT_EQ(KindOf([] { NDArray::Empty({INT64_MAX, 4}, kF32, kCPU); }, &msg), "ValueError");
  EXPECT_NE(msg.find("too big"), std::string::npos) << msg;
  EXPECT_EQ(KindOf([] { NDArray::Empty({1LL << 62}, kF64, kCPU); }, &msg), "ValueError");
  EXPECT_EQ(KindOf([] { NDArray::Empty({2}, kF32, DLDevice{kDLROCM, 0}); }, &msg),
            "NotImplementedError");
  EXPECT_EQ(msg,
            "ndarray.empty: device type 10 is not supported; only the CPU (1) and CUDA (2) are");
}

TEST(NDArray, CUDAArraysNeedADevice) {
  const int64_t count = mxffi::Function::GetGlobalRequired("cuda.device_count")().cast<int64_t>();
  std::string msg;
  if (count == 0) {
    // Without a GPU, a driver or CUDA in the build: a RuntimeError with the driver's reason.
    const std::string why =
        mxffi::Function::GetGlobalRequired("cuda.unavailable_reason")().cast<std::string>();
    EXPECT_FALSE(why.empty());
    EXPECT_EQ(KindOf([] { NDArray::Empty({2}, kF32, DLDevice{kDLCUDA, 0}); }, &msg),
              "RuntimeError");
    EXPECT_EQ(msg, "ndarray.empty: cuda:0 was asked for, but no CUDA device is available: " + why);
    return;
  }
  NDArray a = NDArray::Empty({2, 3}, kF32, DLDevice{kDLCUDA, 0});
  EXPECT_EQ(a.tensor().device.device_type, kDLCUDA);
  EXPECT_EQ(a.tensor().shape[1], 3);
  EXPECT_NE(a.tensor().data, nullptr);
  EXPECT_EQ(
      KindOf([count] { NDArray::Empty({2}, kF32, DLDevice{kDLCUDA, static_cast<int32_t>(count)}); },
             &msg),
      "ValueError");
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
}

// A producer's tensor: records whether its deleter ran, and how often.
struct Producer {
  std::vector<int64_t> shape{2, 3};
  std::vector<int64_t> strides{1, 2};  // column-major: not C-contiguous
  std::vector<double> data{0, 1, 2, 3, 4, 5};
  int deleted = 0;
};

void ProducerDeleter(DLManagedTensor* self) {
  ++static_cast<Producer*>(self->manager_ctx)->deleted;
}
void ProducerDeleterV(DLManagedTensorVersioned* self) {
  ++static_cast<Producer*>(self->manager_ctx)->deleted;
}

DLTensor ProducerTensor(Producer* p) {
  DLTensor t{};
  t.data = p->data.data();
  t.device = kCPU;
  t.ndim = 2;
  t.dtype = kF64;
  t.shape = p->shape.data();
  t.strides = p->strides.data();
  return t;
}

TEST(NDArray, FromDLPackSharesMemoryAndDeletesOnce) {
  Producer p;
  DLManagedTensor m{ProducerTensor(&p), &p, ProducerDeleter};
  {
    NDArray a = NDArray::FromDLPack(&m);
    EXPECT_EQ(a.tensor().data, p.data.data());    // no copy
    EXPECT_NE(a.tensor().shape, p.shape.data());  // the shape is the array's own copy
    EXPECT_EQ(a.tensor().shape[1], 3);
    EXPECT_FALSE(a.IsContiguous());
    NDArray b = a;
    EXPECT_EQ(p.deleted, 0);
  }
  EXPECT_EQ(p.deleted, 1);
}

TEST(NDArray, FromDLPackVersionedHonoursReadOnly) {
  Producer p;
  DLManagedTensorVersioned m{};
  m.version = {1, 0};
  m.manager_ctx = &p;
  m.deleter = ProducerDeleterV;
  m.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  m.dl_tensor = ProducerTensor(&p);
  {
    NDArray a = NDArray::FromDLPackVersioned(&m);
    EXPECT_TRUE(a.read_only());
    DLManagedTensorVersioned* out = a.ToDLPackVersioned();
    EXPECT_EQ(out->flags & DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_FLAG_BITMASK_READ_ONLY);
    out->deleter(out);
  }
  EXPECT_EQ(p.deleted, 1);
}

TEST(NDArray, BadImportsTakeNothing) {
  Producer p;
  p.shape[1] = -3;
  DLManagedTensor m{ProducerTensor(&p), &p, ProducerDeleter};
  std::string msg;
  EXPECT_EQ(KindOf([&] { NDArray::FromDLPack(&m); }, &msg), "ValueError");
  EXPECT_EQ(msg, "ndarray.from_dlpack: shape[1]=-3 is negative");
  EXPECT_EQ(p.deleted, 0);  // still the caller's
  DLManagedTensorVersioned v{};
  v.version = {2, 0};
  v.dl_tensor = ProducerTensor(&p);
  EXPECT_EQ(KindOf([&] { NDArray::FromDLPackVersioned(&v); }, &msg), "ValueError");
  EXPECT_EQ(msg, "ndarray.from_dlpack: DLPack 2.0 is not supported; expected 1.x");
  EXPECT_EQ(KindOf([] { NDArray::FromDLPack(nullptr); }), "ValueError");
}

TEST(NDArray, ExportKeepsTheArrayAlive) {
  DLManagedTensor* out;
  void* data;
  {
    NDArray a = NDArray::Empty({4}, kF64, kCPU);
    data = a.tensor().data;
    out = a.ToDLPack();
    EXPECT_EQ(a.use_count(), 2);
  }
  EXPECT_EQ(out->dl_tensor.data, data);
  static_cast<double*>(out->dl_tensor.data)[3] = 7.5;  // still valid: the export holds it
  out->deleter(out);
}

TEST(NDArray, GlobalsRoundTripThroughTheRegistry) {
  Function empty = Function::GetGlobalRequired("ndarray.empty");
  NDArray a = empty(mxffi::Shape({2, 5}), kF32, kCPU).cast<NDArray>();
  EXPECT_EQ(a.numel(), 10);
  NDArray b = empty(mxffi::Array<int64_t>({3}), kF32, kCPU).cast<NDArray>();
  EXPECT_EQ(b.tensor().shape[0], 3);
  NDArray c = empty(int64_t{6}, kF32, kCPU).cast<NDArray>();
  EXPECT_EQ(c.tensor().ndim, 1);
  std::string msg;
  EXPECT_EQ(KindOf([&] { empty(std::string("x"), kF32, kCPU); }, &msg), "TypeError");
  EXPECT_NE(msg.find("ndarray.empty: argument #0 'shape'"), std::string::npos) << msg;

  // A DLTensor* parameter accepts an NDArray object.
  NDArray d = NDArray::Empty({2}, kF64, kCPU);
  static_cast<double*>(d.tensor().data)[0] = 2.5;
  EXPECT_EQ(Function::GetGlobalRequired("testing.tensor_first_f64")(d).cast<double>(), 2.5);

  Function to = Function::GetGlobalRequired("ndarray.to_dlpack");
  Function from = Function::GetGlobalRequired("ndarray.from_dlpack");
  void* managed = to(d, true).cast<void*>();
  NDArray e = from(managed, true).cast<NDArray>();
  EXPECT_EQ(e.tensor().data, d.tensor().data);
  EXPECT_FALSE(Function::GetGlobalRequired("ndarray.read_only")(e).cast<bool>());
}

TEST(NDArray, NoneIsNotAnArrayArgument) {
  // A typed NDArray parameter given None is a TypeError, not a null array dereferenced.
  mxffi::AnyView none;
  EXPECT_FALSE(none.try_cast<NDArray>().has_value());
  EXPECT_TRUE(none.try_cast<mxffi::Optional<NDArray>>().has_value());
  std::string msg;
  Function read_only = Function::GetGlobalRequired("ndarray.read_only");
  EXPECT_EQ(KindOf([&] { read_only(nullptr); }, &msg), "TypeError");
  EXPECT_NE(msg.find("ndarray.read_only: argument #0 'array'"), std::string::npos) << msg;
  Function to = Function::GetGlobalRequired("ndarray.to_dlpack");
  EXPECT_EQ(KindOf([&] { to(nullptr, false); }, &msg), "TypeError");
}

TEST(NDArray, TensorFirstF64ReadsOnlyARealFirstElement) {
  Function first = Function::GetGlobalRequired("testing.tensor_first_f64");
  // The first element sits byte_offset bytes in, even when that is not a multiple of 8.
  alignas(8) char buf[16] = {};
  const double value = 3.25;
  std::memcpy(buf + 4, &value, sizeof(value));
  int64_t one = 1;
  DLTensor t{buf, kCPU, 1, kF64, &one, nullptr, 4};
  EXPECT_EQ(first(&t).cast<double>(), 3.25);
  // An empty tensor has no first element; a device tensor is not readable here.
  NDArray empty = NDArray::Empty({2, 0}, kF64, kCPU);
  std::string msg;
  EXPECT_EQ(KindOf([&] { first(empty); }, &msg), "ValueError");
  EXPECT_EQ(msg, "testing.tensor_first_f64: the tensor is empty; got shape (2, 0)");
  DLTensor gpu{buf, DLDevice{kDLCUDA, 0}, 1, kF64, &one, nullptr, 0};
  EXPECT_EQ(KindOf([&] { first(&gpu); }), "ValueError");
}

TEST(NDArray, ImportsRefuseTensorsNoMemoryHolds) {
  Producer p;
  // More bytes than int64 counts: no producer has them.
  std::vector<int64_t> huge{int64_t{1} << 62, 4};
  DLTensor t = ProducerTensor(&p);
  t.shape = huge.data();
  t.strides = nullptr;
  DLManagedTensor m{t, &p, ProducerDeleter};
  std::string msg;
  EXPECT_EQ(KindOf([&] { NDArray::FromDLPack(&m); }, &msg), "ValueError");
  EXPECT_EQ(msg,
            "ndarray.from_dlpack: shape (4611686018427387904, 4) of float64 describes more bytes "
            "than int64 holds");
  // Elements but no data.
  t = ProducerTensor(&p);
  t.data = nullptr;
  m.dl_tensor = t;
  EXPECT_EQ(KindOf([&] { NDArray::FromDLPack(&m); }, &msg), "ValueError");
  EXPECT_EQ(msg,
            "ndarray.from_dlpack: the tensor of shape (2, 3) has elements but its data "
            "pointer is NULL");
  EXPECT_EQ(p.deleted, 0);
  // An empty tensor whose other extents multiply past int64 bytes is refused too (numpy's
  // "array is too big"): a reshape or view of it would compute that count.
  std::vector<int64_t> hidden{(int64_t{1} << 62) + 1, 4, 0};
  t = ProducerTensor(&p);
  t.ndim = 3;
  t.shape = hidden.data();
  t.strides = nullptr;
  t.data = nullptr;
  EXPECT_EQ(KindOf([&] { NDArray::FromBorrowed(t); }, &msg), "ValueError");
  EXPECT_EQ(msg,
            "ndarray.from_borrowed: shape (4611686018427387905, 4, 0) of float64 describes more "
            "bytes than int64 holds");
  // Huge extents beside a zero one, whose product fits: empty, with no data needed.
  std::vector<int64_t> empty{int64_t{1} << 40, int64_t{1} << 19, 0};
  t.shape = empty.data();
  NDArray a = NDArray::FromBorrowed(t);
  EXPECT_EQ(a.numel(), 0);
  int64_t strides[3];
  NDArray::CompactStrides(a.tensor(), strides);
  EXPECT_EQ(strides[2], 1);
}

TEST(NDArray, BorrowedTensorsAreReadAlignedAndBoolsAsZeroOrOne) {
  // A float64 tensor one byte into a buffer (numpy: np.frombuffer(buf, offset=1)).
  alignas(8) char buf[1 + 3 * 8] = {};
  const double values[3] = {1.5, -2.0, 4.25};
  std::memcpy(buf + 1, values, sizeof(values));
  int64_t three = 3;
  DLTensor t{buf, kCPU, 1, kF64, &three, nullptr, 1};
  NDArray a = NDArray::FromBorrowed(t);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a.data()) % 8, 0u);  // an aligned copy
  EXPECT_EQ(std::vector<double>(static_cast<const double*>(a.data()),
                                static_cast<const double*>(a.data()) + 3),
            std::vector<double>(values, values + 3));
  // Shared (DLPack) tensors cannot be copied: refused.
  DLManagedTensor m{t, nullptr, nullptr};
  std::string msg;
  EXPECT_EQ(KindOf([&] { NDArray::FromDLPack(&m); }, &msg), "ValueError");
  EXPECT_EQ(msg,
            "ndarray.from_dlpack: the first element (data + byte_offset) is not aligned for "
            "float64; a shared tensor must be");

  // numpy reads any nonzero byte of a bool array as True; the kernels read 0 and 1 only.
  uint8_t bytes[4] = {2, 0, 122, 1};
  int64_t four = 4;
  DLTensor b{bytes, kCPU, 1, DLDataType{kDLBool, 8, 1}, &four, nullptr, 0};
  NDArray c = NDArray::FromBorrowed(b);
  const uint8_t* cb = static_cast<const uint8_t*>(c.data());
  EXPECT_EQ(std::vector<int>(cb, cb + 4), (std::vector<int>{1, 0, 1, 1}));
  EXPECT_EQ(bytes[0], 2);  // the producer's memory is left alone
  Function sum = Function::GetGlobalRequired("np.sum");
  EXPECT_EQ(sum(&b).cast<NDArray>().tensor().dtype.code, kDLInt);
  EXPECT_EQ(*static_cast<const int64_t*>(sum(&b).cast<NDArray>().data()), 3);
  DLManagedTensor mb{b, nullptr, nullptr};
  EXPECT_EQ(KindOf([&] { NDArray::FromDLPack(&mb); }, &msg), "ValueError");
  EXPECT_EQ(msg,
            "ndarray.from_dlpack: bool element 0 (C order) is neither 0 nor 1; a shared bool "
            "tensor must hold 0 and 1 only (convert it with astype(bool) first)");
}

TEST(NDArray, ReductionsOfEmptyTensorsWithHugeExtents) {
  // shape (2**40, 2**19, 0): empty, its other extents 2**62 bytes of float64 (past that, numpy's
  // rule refuses the shape: NDArray.ImportsRefuseTensorsNoMemoryHolds).
  std::vector<int64_t> shape{int64_t{1} << 40, int64_t{1} << 19, 0};
  DLTensor t{nullptr, kCPU, 3, kF64, shape.data(), nullptr, 0};
  Function sum = Function::GetGlobalRequired("np.sum");
  NDArray s = sum(&t).cast<NDArray>();
  EXPECT_EQ(*static_cast<const double*>(s.data()), 0.0);
  std::vector<int64_t> shape2{0, int64_t{1} << 40, int64_t{1} << 19};
  t.shape = shape2.data();
  EXPECT_EQ(*static_cast<const double*>(sum(&t).cast<NDArray>().data()), 0.0);
}

TEST(NDArray, ArrayOfIntsWithAnIntegerDTypeOfNoWidth) {
  // np.array([1], dtype=int0): the range check of a Python int has no width to check against.
  Function array = Function::GetGlobalRequired("np.array");
  std::string msg;
  EXPECT_EQ(KindOf([&] { array(mxffi::Array<int64_t>({1}), DLDataType{kDLInt, 0, 1}); }, &msg),
            "ValueError");
  EXPECT_NE(msg.find("invalid dtype"), std::string::npos) << msg;
}

}  // namespace
