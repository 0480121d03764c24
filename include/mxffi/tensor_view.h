/*!
 * \file mxffi/tensor_view.h
 * \brief TensorView<...>: a typed tensor parameter whose element type, number of dimensions,
 *  device and layout are declared in its type and checked as the argument is converted.
 *
 * \code
 * MXFFI_REGISTER_API("mylib.scale_rows")
 *     .arg("x")
 *     .arg("factor")
 *     .set_body_typed([](mxffi::TensorView<float, mxffi::ndim<2>, mxffi::device::cpu,
 *                                          mxffi::c_contig> x, double factor) {
 *       for (int64_t i = 0; i < x.size(); ++i) x.data()[i] *= static_cast<float>(factor);
 *     });
 * \endcode
 *
 * A parameter takes an mxffi array (dense) or any tensor lent for the call (a numpy array, a
 * torch tensor, a DLPack producer's), without a copy; the view is valid for the call only. The
 * constraints, in any order, each at most once:
 *  - an element type: a C++ arithmetic type (float, double, int8_t ... uint64_t, bool), const for
 *    a view that is only read (data() then returns a pointer to const);
 *  - mxffi::ndim<N>: exactly N dimensions;
 *  - mxffi::device::cpu or mxffi::device::cuda;
 *  - mxffi::c_contig: the elements dense in row-major order (any strides of extent-1 and empty
 *    dimensions).
 * A tensor that breaks one is a TypeError naming the function, the argument, what the type
 * declares and what the tensor is:
 * `mylib.scale_rows: argument #0 'x' expected a float32 tensor with 2 dimensions on the CPU,
 * C-contiguous; got a float64 tensor with 3 dimensions on cpu:0`. The declared constraints are
 * the parameter's type in signatures and stubs: `Tensor[float32, ndim=2, cpu, c_contig]`.
 *
 * stream() is the current stream of the tensor's device (MXFFIEnvGetCurrentStream): on a CUDA
 * device the stream mxffi's own kernels use for this call, torch's current stream when the call
 * received a torch CUDA tensor; NULL (the legacy default stream, or the CPU) otherwise.
 */
#ifndef MXFFI_TENSOR_VIEW_H_
#define MXFFI_TENSOR_VIEW_H_

#include <mxffi/any.h>
#include <mxffi/error.h>
#include <mxffi/function.h>
#include <mxffi/ndarray/ndarray.h>

#include <cstdint>
#include <string>
#include <type_traits>

namespace mxffi {

/*! \brief TensorView constraint: exactly N dimensions. */
template <int32_t N>
struct ndim {
  static_assert(N >= 0, "mxffi::ndim<N>: N is a number of dimensions, at least 0");
  static constexpr int32_t value = N;
};

namespace device {
/*! \brief TensorView constraint: a CPU tensor. */
struct cpu {
  static constexpr int32_t value = kDLCPU;
};
/*! \brief TensorView constraint: a CUDA tensor. */
struct cuda {
  static constexpr int32_t value = kDLCUDA;
};
}  // namespace device

/*! \brief TensorView constraint: elements dense in row-major order. */
struct c_contig {};

/*!
 * \brief The current stream of a device for the calling thread (MXFFIEnvGetCurrentStream):
 *  NULL for the CPU and for a CUDA device's legacy default stream.
 */
inline void* CurrentStream(DLDevice device) {
  void* stream = nullptr;
  if (MXFFIEnvGetCurrentStream(device.device_type, device.device_id, &stream) != 0) {
    details::ThrowLastError();
  }
  return stream;
}

namespace details {

/*! \brief The DLPack data type of a C++ element type; lanes 0 where there is none. */
template <typename T>
constexpr DLDataType ElementDType() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) {
    return DLDataType{kDLBool, 8, 1};
  } else if constexpr (std::is_floating_point_v<U>) {
    return DLDataType{kDLFloat, static_cast<uint8_t>(sizeof(U) * 8), 1};
  } else if constexpr (std::is_integral_v<U>) {
    return DLDataType{std::is_signed_v<U> ? kDLInt : kDLUInt, static_cast<uint8_t>(sizeof(U) * 8),
                      1};
  } else {
    return DLDataType{0, 0, 0};
  }
}

template <typename T>
struct IsNDim : std::false_type {};
template <int32_t N>
struct IsNDim<ndim<N>> : std::true_type {};

template <typename T>
constexpr bool kIsDeviceTag = std::is_same_v<T, device::cpu> || std::is_same_v<T, device::cuda>;

/*! \brief Whether T is an element type (anything that is not one of the other constraints). */
template <typename T>
constexpr bool kIsElement = !IsNDim<T>::value && !kIsDeviceTag<T> && !std::is_same_v<T, c_contig>;

template <typename Default, typename... Ts>
struct FirstElement {
  using type = Default;
};
template <typename Default, typename T, typename... Ts>
struct FirstElement<Default, T, Ts...> {
  using type = std::conditional_t<kIsElement<T>, T, typename FirstElement<Default, Ts...>::type>;
};

/*! \brief What a TensorView's constraints declare, read once from its parameter pack. */
struct TensorSpec {
  DLDataType dtype;  // lanes 0: any element type
  int32_t ndim;      // -1: any
  int32_t device;    // 0: any
  bool c_contig;
};

/*! \return "Tensor[float32, ndim=2, cpu, c_contig]" (the declared parts only). */
MXFFI_DLL std::string TensorSpecStr(const TensorSpec& spec);
/*! \return "a float32 tensor with 2 dimensions on the CPU, C-contiguous". */
MXFFI_DLL std::string TensorSpecDesc(const TensorSpec& spec);
/*!
 * \brief The tensor a cell holds, checked against spec: a borrowed DLTensor or a dense NDArray's.
 * \return nullptr for a cell holding neither, or (without ctx) a tensor breaking spec; with ctx,
 *  a tensor breaking spec (a sparse array included) is a TypeError naming ctx.
 */
MXFFI_DLL const DLTensor* CheckTensorSpec(const MXFFIAny* src, const ArgContext* ctx,
                                          const TensorSpec& spec);

}  // namespace details

/*!
 * \brief A tensor argument with declared constraints (the file comment has them); borrowed for
 *  the call, never owning.
 */
template <typename... Ts>
class TensorView {
  using Element = typename details::FirstElement<void, Ts...>::type;
  static_assert((0 + ... + (details::kIsElement<Ts> ? 1 : 0)) <= 1,
                "mxffi::TensorView: at most one element type");
  static_assert((0 + ... + (details::IsNDim<Ts>::value ? 1 : 0)) <= 1,
                "mxffi::TensorView: at most one mxffi::ndim<N>");
  static_assert((0 + ... + (details::kIsDeviceTag<Ts> ? 1 : 0)) <= 1,
                "mxffi::TensorView: at most one device");
  static_assert(std::is_void_v<Element> || details::ElementDType<Element>().lanes == 1,
                "mxffi::TensorView: the element type must be bool, an integer or a floating "
                "point type");

 public:
  /*! \brief The element pointer type: Element* (void* when no element type is declared). */
  using Pointer = std::conditional_t<std::is_void_v<Element>, void*, Element*>;

  static details::TensorSpec Spec() {
    details::TensorSpec spec{DLDataType{0, 0, 0}, -1, 0, false};
    if constexpr (!std::is_void_v<Element>) spec.dtype = details::ElementDType<Element>();
    (SetSpec<Ts>(&spec), ...);
    return spec;
  }

  TensorView() = default;
  explicit TensorView(const DLTensor* tensor) : tensor_(tensor) {}

  const DLTensor& dl_tensor() const { return *tensor_; }
  /*! \brief The first element (byte_offset applied). */
  Pointer data() const {
    return reinterpret_cast<Pointer>(static_cast<char*>(tensor_->data) + tensor_->byte_offset);
  }
  int32_t ndim() const { return tensor_->ndim; }
  int64_t shape(int32_t i) const { return tensor_->shape[i]; }
  /*! \brief The stride of dimension i in elements (row-major when the tensor gives none). */
  int64_t stride(int32_t i) const {
    if (tensor_->strides != nullptr) return tensor_->strides[i];
    int64_t s = 1;
    for (int32_t j = tensor_->ndim - 1; j > i; --j) s *= tensor_->shape[j];
    return s;
  }
  /*! \brief The number of elements. */
  int64_t size() const {
    int64_t n = 1;
    for (int32_t i = 0; i < tensor_->ndim; ++i) n *= tensor_->shape[i];
    return n;
  }
  DLDataType dtype() const { return tensor_->dtype; }
  DLDevice device() const { return tensor_->device; }
  /*! \brief The current stream of the tensor's device (mxffi::CurrentStream). */
  void* stream() const { return CurrentStream(tensor_->device); }

 private:
  template <typename T>
  static void SetSpec(details::TensorSpec* spec) {
    if constexpr (details::IsNDim<T>::value) spec->ndim = T::value;
    if constexpr (details::kIsDeviceTag<T>) spec->device = T::value;
    if constexpr (std::is_same_v<T, c_contig>) spec->c_contig = true;
  }

  const DLTensor* tensor_ = nullptr;
};

template <typename... Ts>
struct TypeTraits<TensorView<Ts...>>
    : details::ConvertArgTraits<TensorView<Ts...>, TypeTraits<TensorView<Ts...>>> {
  static bool ConvertArg(const MXFFIAny* src, const details::ArgContext* ctx,
                         TensorView<Ts...>* out) {
    static const details::TensorSpec spec = TensorView<Ts...>::Spec();
    const DLTensor* t = details::CheckTensorSpec(src, ctx, spec);
    if (t == nullptr) return false;
    *out = TensorView<Ts...>(t);
    return true;
  }
  static void CopyToAnyView(const TensorView<Ts...>& v, MXFFIAny* out) {
    out->type_index = kMXFFIDLTensorPtr;
    out->small_len = 0;
    out->v_ptr = const_cast<DLTensor*>(&v.dl_tensor());
  }
  static std::string TypeStr() { return details::TensorSpecStr(TensorView<Ts...>::Spec()); }
  static std::string TypeDesc() { return details::TensorSpecDesc(TensorView<Ts...>::Spec()); }
};

}  // namespace mxffi

#endif  // MXFFI_TENSOR_VIEW_H_
