/*!
 * \file ndarray.cc
 * \brief NDArray: allocation, DLPack import and export, and its registered globals.
 */
#include <mxffi/container/array.h>
#include <mxffi/container/shape.h>
#include <mxffi/error.h>
#include <mxffi/ndarray/ndarray.h>
#include <mxffi/registry.h>

#include <cstddef>
#include <cstdlib>
#include <sstream>

namespace mxffi {

static_assert(offsetof(MXFFINDArrayObj, tensor) == sizeof(MXFFIObject),
              "the frozen layout puts the DLTensor right after the header");

namespace {

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  os << (shape.size() == 1 ? ",)" : ")");
  return os.str();
}

/*! \brief Validate what a producer hands over before anything reads its memory. */
void CheckImported(const DLTensor& t, const char* fname) {
  MXFFI_CHECK(t.ndim >= 0, ValueError) << fname << ": ndim must be >= 0, got " << t.ndim;
  MXFFI_CHECK(t.ndim == 0 || t.shape != nullptr, ValueError)
      << fname << ": the tensor has ndim=" << t.ndim << " but no shape";
  for (int32_t i = 0; i < t.ndim; ++i) {
    MXFFI_CHECK(t.shape[i] >= 0, ValueError)
        << fname << ": shape[" << i << "]=" << t.shape[i] << " is negative";
  }
  MXFFI_CHECK(t.dtype.lanes >= 1, ValueError)
      << fname << ": dtype lanes must be >= 1, got " << t.dtype.lanes;
}

void FillFrom(NDArrayObj* obj, const DLTensor& t, std::vector<int64_t>* shape,
              std::vector<int64_t>* strides) {
  shape->assign(t.shape, t.shape + t.ndim);
  if (t.strides != nullptr) strides->assign(t.strides, t.strides + t.ndim);
  obj->tensor = t;
  obj->tensor.shape = shape->empty() ? nullptr : shape->data();
  obj->tensor.strides = strides->empty() ? nullptr : strides->data();
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
  if (owned_data_ != nullptr) std::free(owned_data_);
  if (managed_ != nullptr && managed_->deleter != nullptr) managed_->deleter(managed_);
  if (managed_v_ != nullptr && managed_v_->deleter != nullptr) managed_v_->deleter(managed_v_);
}

std::string DataTypeToString(DLDataType dtype) {
  std::ostringstream os;
  switch (dtype.code) {
    case kDLInt:
      os << "int" << int(dtype.bits);
      break;
    case kDLUInt:
      os << "uint" << int(dtype.bits);
      break;
    case kDLFloat:
      os << "float" << int(dtype.bits);
      break;
    case kDLBfloat:
      os << "bfloat" << int(dtype.bits);
      break;
    case kDLComplex:
      os << "complex" << int(dtype.bits);
      break;
    case kDLOpaqueHandle:
      os << "handle" << int(dtype.bits);
      break;
    default:
      if (dtype.code == kDLBool && dtype.bits == 8) {
        os << "bool";
      } else {
        os << "code" << int(dtype.code) << "_" << int(dtype.bits);
      }
  }
  if (dtype.lanes != 1) os << "x" << dtype.lanes;
  return os.str();
}

int64_t DataTypeBytes(DLDataType dtype) {
  return (static_cast<int64_t>(dtype.bits) * dtype.lanes + 7) / 8;
}

NDArray NDArray::Empty(const std::vector<int64_t>& shape, DLDataType dtype, DLDevice device) {
  if (device.device_type != kDLCPU) {
    MXFFI_THROW(NotImplementedError) << "ndarray.empty: device type " << device.device_type
                                     << " is not supported yet; only the CPU (1) is";
  }
  MXFFI_CHECK(dtype.lanes >= 1 && dtype.bits >= 1, ValueError)
      << "ndarray.empty: invalid dtype " << DataTypeToString(dtype);
  int64_t numel = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    MXFFI_CHECK(shape[i] >= 0, ValueError)
        << "ndarray.empty: negative dimensions are not allowed; got shape " << ShapeString(shape);
    MXFFI_CHECK(!__builtin_mul_overflow(numel, shape[i], &numel), ValueError)
        << "ndarray.empty: array is too big; shape " << ShapeString(shape)
        << " has more elements than int64 holds";
  }
  int64_t nbytes;
  MXFFI_CHECK(!__builtin_mul_overflow(numel, DataTypeBytes(dtype), &nbytes), ValueError)
      << "ndarray.empty: array is too big; shape " << ShapeString(shape) << " of "
      << DataTypeToString(dtype) << " needs more bytes than int64 holds";
  ObjectPtr<NDArrayObj> obj = make_object<NDArrayObj>();
  // aligned_alloc wants a multiple of the alignment, and a non-zero size for a usable pointer.
  size_t alloc =
      (static_cast<size_t>(nbytes) + kNDArrayAlignment - 1) / kNDArrayAlignment * kNDArrayAlignment;
  if (alloc == 0) alloc = kNDArrayAlignment;
  obj->owned_data_ = std::aligned_alloc(kNDArrayAlignment, alloc);
  if (obj->owned_data_ == nullptr) {
    MXFFI_THROW(MemoryError) << "ndarray.empty: cannot allocate " << nbytes << " bytes for shape "
                             << ShapeString(shape) << " of " << DataTypeToString(dtype);
  }
  obj->shape_ = shape;
  DLTensor& t = obj->tensor;
  t.data = obj->owned_data_;
  t.device = device;
  t.ndim = static_cast<int32_t>(shape.size());
  t.dtype = dtype;
  t.shape = obj->shape_.empty() ? nullptr : obj->shape_.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  return NDArray(std::move(obj));
}

NDArray NDArray::FromDLPack(DLManagedTensor* managed) {
  MXFFI_CHECK(managed != nullptr, ValueError) << "ndarray.from_dlpack: the tensor is NULL";
  CheckImported(managed->dl_tensor, "ndarray.from_dlpack");
  ObjectPtr<NDArrayObj> obj = make_object<NDArrayObj>();
  FillFrom(obj.get(), managed->dl_tensor, &obj->shape_, &obj->strides_);
  obj->managed_ = managed;  // taken: nothing below can throw
  return NDArray(std::move(obj));
}

NDArray NDArray::FromDLPackVersioned(DLManagedTensorVersioned* managed) {
  MXFFI_CHECK(managed != nullptr, ValueError) << "ndarray.from_dlpack: the tensor is NULL";
  MXFFI_CHECK(managed->version.major == 1, ValueError)
      << "ndarray.from_dlpack: DLPack " << managed->version.major << "." << managed->version.minor
      << " is not supported; expected 1.x";
  CheckImported(managed->dl_tensor, "ndarray.from_dlpack");
  ObjectPtr<NDArrayObj> obj = make_object<NDArrayObj>();
  FillFrom(obj.get(), managed->dl_tensor, &obj->shape_, &obj->strides_);
  obj->read_only_ = (managed->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  obj->managed_v_ = managed;
  return NDArray(std::move(obj));
}

DLManagedTensor* NDArray::ToDLPack() const {
  MXFFI_CHECK(defined(), ValueError) << "ndarray.to_dlpack: the array is null";
  auto* ctx = new ExportedTensor{*this, {}};
  ctx->managed.dl_tensor = get()->tensor;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = DeleteExported;
  return &ctx->managed;
}

DLManagedTensorVersioned* NDArray::ToDLPackVersioned() const {
  MXFFI_CHECK(defined(), ValueError) << "ndarray.to_dlpack: the array is null";
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
  int64_t n = 1;
  for (int32_t i = 0; i < tensor().ndim; ++i) n *= tensor().shape[i];
  return n;
}

bool NDArray::IsContiguous() const {
  const DLTensor& t = tensor();
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

MXFFI_REGISTER_API("ndarray.read_only")
    .describe("Whether the producer of the array's memory marked it read-only.")
    .arg("array")
    .set_body_typed([](NDArray array) { return array.read_only(); });

}  // namespace mxffi
