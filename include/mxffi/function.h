/*!
 * \file mxffi/function.h
 * \brief Function (type-erased, packed calling convention) and TypedFunction<R(Args...)>.
 */
#ifndef MXFFI_FUNCTION_H_
#define MXFFI_FUNCTION_H_

#include <mxffi/any.h>
#include <mxffi/container/array.h>
#include <mxffi/container/string.h>

#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace mxffi {

/*! \brief The borrowed arguments of a packed call. */
class PackedArgs {
 public:
  PackedArgs(const AnyView* data, int32_t size) : data_(data), size_(size) {}
  int32_t size() const { return size_; }
  const AnyView* data() const { return data_; }
  /*! \brief Argument i, bounds-checked (IndexError). */
  const AnyView& operator[](int32_t i) const {
    if (i < 0 || i >= size_) details::ThrowIndexError("PackedArgs", i, size_);
    return data_[i];
  }

 private:
  const AnyView* data_;
  int32_t size_;
};

/*!
 * \brief What the registry knows of a function: name, doc, argument names, default values
 *  for the trailing arguments, types from a typed signature, and the GIL policy flag.
 */
struct FuncInfo {
  std::string name;
  std::string doc;
  std::vector<std::string> arg_names;
  std::vector<std::string> arg_types;
  std::string return_type;
  /*! \brief Defaults of the last defaults.size() arguments. */
  std::vector<Any> defaults;
  /*! \brief Called with the GIL released from Python (design.md §3). */
  bool long_running = false;
  /*! \brief Number of arguments of a typed body; -1 for a packed (variadic) body. */
  int32_t num_args = -1;
  /*!
   * \brief "np.zeros: argument #1 'dtype'" for each argument of a typed body, made when the
   *  function is published, so that a conversion names its argument at no cost per call.
   */
  std::vector<std::string> arg_labels;
  /*!
   * \brief How Python passes the arguments (the C ABI is positional; these shape only the
   *  Python signature and keyword binding): the first num_positional_only are positional-only
   *  (Python's `/`), those from first_keyword_only on are keyword-only (`*`; arg_names.size()
   *  when none are), and the argument at variadic_index (-1: none) is `*name`: a Python call's
   *  extra positional arguments reach the body in that one slot, as an Array.
   */
  int32_t num_positional_only = 0;
  int32_t first_keyword_only = -1;
  int32_t variadic_index = -1;
  /*! \brief Python gets the body's Array result as a list (registry: returns_list()). */
  bool returns_list = false;
};

namespace details {
inline const char* ArgContext::func_name() const {
  return info_ && !info_->name.empty() ? info_->name.c_str() : "<anonymous function>";
}
inline const char* ArgContext::label() const {
  if (info_ && index_ >= 0 && index_ < static_cast<int32_t>(info_->arg_labels.size())) {
    return info_->arg_labels[static_cast<size_t>(index_)].c_str();
  }
  return func_name();
}
}  // namespace details

/*! \brief Payload of a Function: the frozen MXFFIFunctionObj layout. */
class FunctionObj : public Object {
 public:
  MXFFISafeCallType safe_call = nullptr;

  static constexpr const char* _type_key = "mxffi.Function";
  static constexpr bool _type_final = false;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(FunctionObj, Object, kMXFFIFunction);
};

namespace details {

/*!
 * \brief Translate the exception being handled into the thread-local error slot.
 * \return -1, for `return SetErrorFromCurrentException();` in catch blocks.
 */
MXFFI_DLL int SetErrorFromCurrentException() noexcept;

/*! \brief Rethrow the error waiting in the thread-local slot as an Error. */
[[noreturn]] MXFFI_DLL void ThrowLastError();

/*! \brief A Function whose body is a C++ callable f(PackedArgs, Any*). */
template <typename F>
class PackedFunctionObj : public FunctionObj {
 public:
  explicit PackedFunctionObj(F f) : f_(std::move(f)) { safe_call = SafeCall; }

 private:
  static int SafeCall(void* self, const MXFFIAny* args, int32_t num_args, MXFFIAny* result) {
    try {
      auto* obj = static_cast<PackedFunctionObj*>(ObjectUnsafe::FromHeader(self));
      obj->f_(PackedArgs(AnyView::FromRaw(args), num_args), reinterpret_cast<Any*>(result));
      return 0;
    } catch (...) {
      return SetErrorFromCurrentException();
    }
  }
  F f_;
};

template <typename T>
using ArgStorage = std::remove_cv_t<std::remove_reference_t<T>>;

/*! \brief The TypeError (or OverflowError) for argument i that failed to convert. */
[[noreturn]] MXFFI_DLL void ThrowArgError(const FuncInfo* info, int32_t index,
                                          const std::string& expected, const AnyView& actual,
                                          bool integral_expected);

/*! \brief The TypeError for a call with the wrong number of arguments. */
[[noreturn]] MXFFI_DLL void ThrowArityError(const FuncInfo* info, int32_t expected_min,
                                            int32_t expected_max, int32_t actual);

/*! \brief ThrowArgError for a T that did not convert, out of the callers' way. */
template <typename T>
[[noreturn, gnu::cold, gnu::noinline]] void ThrowArgCastError(const AnyView* args, int32_t i,
                                                              const FuncInfo* info) {
  ThrowArgError(info, i, TypeDescOf<T>(), args[i],
                std::is_integral_v<T> && !std::is_same_v<T, bool>);
}

/*!
 * \brief Argument i of a kind with ConvertArg, converted in place into the value returned (one
 *  return of one named value, so the compiler constructs it where the caller wants it: no copy
 *  of a kind's inline storage).
 */
template <typename T>
inline T ArgConvert(const AnyView* args, int32_t i, const FuncInfo* info) {
  const ArgContext ctx(info, i);
  T out;
  if (__builtin_expect(!TypeTraits<T>::ConvertArg(args[i].raw(), &ctx, &out), 0)) {
    ThrowArgCastError<T>(args, i, info);
  }
  return out;
}

template <typename T>
inline T ArgCast(const AnyView* args, int32_t i, const FuncInfo* info) {
  if constexpr (HasConvertArg<T>::value) {
    return ArgConvert<T>(args, i, info);
  } else {
    std::optional<T> v = TypeTraits<T>::TryCast(args[i].raw());
    if (__builtin_expect(v.has_value(), 1)) return *std::move(v);
    ThrowArgCastError<T>(args, i, info);
  }
}

/*! \brief Whether TypeTraits<T> writes results its own way (MoveToResult: text into a buffer
 *  the caller lent); other types' results are written by MoveToAny. */
template <typename T, typename = void>
struct HasMoveToResult : std::false_type {};
template <typename T>
struct HasMoveToResult<T, std::void_t<decltype(&TypeTraits<T>::MoveToResult)>> : std::true_type {};

template <typename T, typename V>
inline void MoveToResult(V&& v, MXFFIAny* out) {
  if constexpr (HasMoveToResult<T>::value) {
    TypeTraits<T>::MoveToResult(std::forward<V>(v), out);
  } else {
    TypeTraits<T>::MoveToAny(std::forward<V>(v), out);
  }
}

template <typename R, typename... Args>
struct FuncSignature {
  using Return = R;
  static constexpr int32_t kNumArgs = sizeof...(Args);
  template <typename F, size_t... I>
  static void Unpack(const F& f, const FuncInfo* info, const AnyView* args, Any* rv,
                     std::index_sequence<I...>) {
    if constexpr (std::is_void_v<R>) {
      f(ArgCast<ArgStorage<Args>>(args, static_cast<int32_t>(I), info)...);
    } else {
      // The result cell holds no object on entry (None, or a buffer the caller lends for
      // text: the calling convention), so write it directly.
      MoveToResult<ArgStorage<R>>(
          f(ArgCast<ArgStorage<Args>>(args, static_cast<int32_t>(I), info)...),
          const_cast<MXFFIAny*>(rv->raw()));
    }
  }
  static std::vector<std::string> ArgTypes() {
    return {TypeTraits<ArgStorage<Args>>::TypeStr()...};
  }
  static std::string ReturnType() {
    if constexpr (std::is_void_v<R>) {
      return "None";
    } else {
      return TypeTraits<ArgStorage<R>>::TypeStr();
    }
  }
};

template <typename F>
struct FuncTraits : FuncTraits<decltype(&F::operator())> {};
template <typename R, typename... Args>
struct FuncTraits<R (*)(Args...)> : FuncSignature<R, Args...> {};
template <typename R, typename... Args>
struct FuncTraits<R(Args...)> : FuncSignature<R, Args...> {};
template <typename C, typename R, typename... Args>
struct FuncTraits<R (C::*)(Args...) const> : FuncSignature<R, Args...> {};
template <typename C, typename R, typename... Args>
struct FuncTraits<R (C::*)(Args...)> : FuncSignature<R, Args...> {};

/*!
 * \brief Call a typed f with packed args: exact arity is the fast path; fewer arguments are
 *  completed from the registered defaults.
 */
template <typename F>
inline void CallTyped(const F& f, const FuncInfo* info, PackedArgs args, Any* rv) {
  using Sig = FuncTraits<F>;
  constexpr int32_t N = Sig::kNumArgs;
  if (__builtin_expect(args.size() == N, 1)) {
    Sig::Unpack(f, info, args.data(), rv, std::make_index_sequence<N>());
    return;
  }
  int32_t num_defaults = info ? static_cast<int32_t>(info->defaults.size()) : 0;
  if (args.size() > N || args.size() < N - num_defaults) {
    ThrowArityError(info, N - num_defaults, N, args.size());
  }
  if constexpr (N > 0) {
    // Raw cells, left unset until written: every one is, by a given argument or a default
    // (borrowed from the registry's info, which outlives the call).
    MXFFIAny full[N];
    for (int32_t i = 0; i < args.size(); ++i) full[i] = *args.data()[i].raw();
    for (int32_t i = args.size(); i < N; ++i) {
      full[i] = *info->defaults[i - (N - num_defaults)].raw();
    }
    Sig::Unpack(f, info, AnyView::FromRaw(full), rv, std::make_index_sequence<N>());
  }
}

}  // namespace details

/*! \brief A reference to a callable object using the packed calling convention. */
class Function : public ObjectRef {
 public:
  /*! \brief None is no function: a Function argument refuses it (Optional<Function> takes it). */
  static constexpr bool _type_is_nullable = false;
  Function() = default;
  explicit Function(ObjectPtr<Object> data) : ObjectRef(std::move(data)) {}

  /*! \brief Wrap a callable f(PackedArgs args, Any* rv). */
  template <typename F>
  static Function FromPacked(F f) {
    return Function(ObjectPtr<Object>(make_object<details::PackedFunctionObj<F>>(std::move(f))));
  }
  /*!
   * \brief Wrap a typed callable, e.g. [](int64_t a, String b) { ... }.
   * \param info names and defaults used in error messages and to fill missing arguments; must
   *  outlive the Function (the registry keeps it alive).
   */
  template <typename F>
  static Function FromTyped(F f, std::shared_ptr<const FuncInfo> info = nullptr) {
    return FromPacked([f = std::move(f), info = std::move(info)](PackedArgs args, Any* rv) {
      details::CallTyped(f, info.get(), args, rv);
    });
  }

  /*! \brief Call with packed arguments; errors are rethrown as Error. */
  void CallPacked(PackedArgs args, Any* rv) const {
    MXFFIAny result{};
    if (get()->safe_call(details::ObjectUnsafe::Header(const_cast<FunctionObj*>(get())),
                         reinterpret_cast<const MXFFIAny*>(args.data()), args.size(),
                         &result) != 0) {
      details::ThrowLastError();
    }
    *rv = Any::MoveFromRaw(&result);
  }
  /*! \brief Call with C++ values, each converted to a value cell. */
  template <typename... Args>
  Any operator()(Args&&... args) const {
    const Any packed[sizeof...(Args) > 0 ? sizeof...(Args) : 1] = {
        Any(std::forward<Args>(args))...};
    Any rv;
    CallPacked(
        PackedArgs(reinterpret_cast<const AnyView*>(packed), static_cast<int32_t>(sizeof...(Args))),
        &rv);
    return rv;
  }

  /*! \return the global function registered under name, or a null Function. */
  MXFFI_DLL static Function GetGlobal(std::string_view name);
  /*! \return the global function registered under name; ValueError naming it when absent. */
  MXFFI_DLL static Function GetGlobalRequired(std::string_view name);
  /*! \brief Register f under name; ValueError on a clash unless override. */
  MXFFI_DLL static void SetGlobal(std::string_view name, Function f, bool override = false);

  const FunctionObj* get() const { return static_cast<const FunctionObj*>(data_.get()); }
  const FunctionObj* operator->() const { return get(); }
  using ContainerType = FunctionObj;
};

template <typename FType>
class TypedFunction;

/*!
 * \brief A Function with a C++ signature: arguments are converted on the way in, and the
 *  result is checked and converted on the way out.
 */
template <typename R, typename... Args>
class TypedFunction<R(Args...)> {
 public:
  TypedFunction() = default;
  /*! \brief View an existing Function through this signature. */
  TypedFunction(Function packed) : packed_(std::move(packed)) {}  // NOLINT(runtime/explicit)
  /*! \brief Wrap a C++ callable with this signature. */
  template <typename F, typename = std::enable_if_t<std::is_invocable_r_v<R, F, Args...> &&
                                                    !std::is_same_v<std::decay_t<F>, Function>>>
  TypedFunction(F f)  // NOLINT(runtime/explicit)
      : packed_(Function::FromTyped(std::function<R(Args...)>(std::move(f)))) {}

  R operator()(Args... args) const {
    Any rv = packed_(std::forward<Args>(args)...);
    if constexpr (!std::is_void_v<R>) return rv.cast<R>();
  }
  const Function& packed() const { return packed_; }
  bool defined() const { return packed_.defined(); }

 private:
  Function packed_;
};

template <typename R, typename... Args>
struct TypeTraits<TypedFunction<R(Args...)>> {
  static void CopyToAnyView(const TypedFunction<R(Args...)>& f, MXFFIAny* out) {
    TypeTraits<Function>::CopyToAnyView(f.packed(), out);
  }
  static void MoveToAny(const TypedFunction<R(Args...)>& f, MXFFIAny* out) {
    TypeTraits<Function>::MoveToAny(f.packed(), out);
  }
  static std::optional<TypedFunction<R(Args...)>> TryCast(const MXFFIAny* src) {
    std::optional<Function> f = TypeTraits<Function>::TryCast(src);
    if (!f.has_value() || !f->defined()) return std::nullopt;
    return TypedFunction<R(Args...)>(*f);
  }
  static std::string TypeStr() { return "Function"; }
};

}  // namespace mxffi

#endif  // MXFFI_FUNCTION_H_
