/*!
 * \file mxffi/registry.h
 * \brief The global function registry and MXFFI_REGISTER_API.
 *
 * \code
 * MXFFI_REGISTER_API("testing.add")
 *     .describe("Add two integers.")
 *     .arg("a")
 *     .arg("b", 1)
 *     .set_body_typed([](int64_t a, int64_t b) { return a + b; });
 * \endcode
 *
 * Registration runs in static initialisers, so it never throws: a misuse (a name registered
 * twice without override, a library built against another ABI major, defaults that do not
 * trail) is recorded, printed to stderr, and refused; loading a library through
 * `library.load` turns what its initialisers recorded into an error naming the library.
 */
#ifndef MXFFI_REGISTRY_H_
#define MXFFI_REGISTRY_H_

#include <mxffi/function.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace mxffi {

/*! \brief Builder returned by MXFFI_REGISTER_API; each setter returns *this for chaining. */
class Registry {
 public:
  /*!
   * \brief Start registering name. Called by MXFFI_REGISTER_API.
   * \param abi_major the ABI major the calling library was compiled against.
   */
  MXFFI_DLL static Registry& Register(const char* name, int32_t abi_major);

  /*! \brief Doc string shown by help() in Python. */
  MXFFI_DLL Registry& describe(std::string doc);
  /*! \brief Name the next argument (required). */
  MXFFI_DLL Registry& arg(std::string name);
  /*! \brief Name the next argument and give its default; later arguments need defaults too. */
  template <typename T>
  Registry& arg(std::string name, T default_value) {
    return AddArg(std::move(name), Any(std::move(default_value)), true);
  }
  /*!
   * \brief Make the arguments named so far positional-only in Python (`/` in a def): a
   *  keyword naming one is a TypeError, and inspect.signature shows them so.
   */
  MXFFI_DLL Registry& positional_only();
  /*!
   * \brief Make the arguments named after this keyword-only in Python (`*` in a def): a call
   *  passing more positional arguments than come before them is a TypeError.
   */
  MXFFI_DLL Registry& keyword_only();
  /*!
   * \brief Name a variadic argument (`*name` in a def): a Python call's positional arguments
   *  from here on are gathered into one list, which the body receives in this argument's slot
   *  (as an Array, e.g. `Array<NDArray>`); the arguments named after it are keyword-only.
   *  It takes no default, and no argument before it may have one.
   */
  MXFFI_DLL Registry& arg_variadic(std::string name);
  /*!
   * \brief Python receives the body's result, an Array, as a list (what numpy and the array
   *  API give for several arrays, e.g. meshgrid); C++ and C callers still get the Array.
   */
  MXFFI_DLL Registry& returns_list();
  /*! \brief Mark as long-running: Python calls it with the GIL released. */
  MXFFI_DLL Registry& set_long_running(bool value = true);
  /*! \brief Allow replacing an existing global of the same name. */
  MXFFI_DLL Registry& allow_override(bool value = true);

  /*! \brief Set a packed body f(PackedArgs, Any*) and publish the function. */
  template <typename F>
  Registry& set_body(F f) {
    return Publish(Function::FromPacked(std::move(f)), -1, {}, "Any");
  }
  /*! \brief Set a typed body (any callable with TypeTraits-convertible types) and publish. */
  template <typename F>
  Registry& set_body_typed(F f) {
    using Sig = details::FuncTraits<F>;
    return Publish(Function::FromTyped(std::move(f), info_), Sig::kNumArgs, Sig::ArgTypes(),
                   Sig::ReturnType());
  }

  /*! \return the info shared with the published function. */
  const std::shared_ptr<FuncInfo>& info() const { return info_; }

 private:
  Registry(std::string name, int32_t abi_major);
  MXFFI_DLL Registry& AddArg(std::string name, Any default_value, bool has_default);
  MXFFI_DLL Registry& Publish(Function f, int32_t num_args, std::vector<std::string> arg_types,
                              std::string return_type);
  void Fail(const std::string& what);

  std::shared_ptr<FuncInfo> info_;
  int32_t abi_major_;
  bool override_ = false;
  bool published_ = false;
  bool failed_ = false;
};

namespace details {

/*! \brief Errors recorded by registrations on this thread since the last call; cleared. */
MXFFI_DLL std::vector<std::string> TakeRegistrationErrors();
/*! \brief Number of successful publications on this thread (to tell if a library added any). */
MXFFI_DLL int64_t RegistrationCount();
/*! \brief Record (and print) a refused registration, for library.load to report. */
MXFFI_DLL void RecordRegistrationError(const std::string& message);
/*! \brief Count a successful registration (an op) on this thread. */
MXFFI_DLL void CountRegistration();
/*! \return the info of a registered global, or nullptr. */
MXFFI_DLL std::shared_ptr<const FuncInfo> GetFuncInfo(std::string_view name);
/*! \return the names of every registered global, sorted. */
MXFFI_DLL std::vector<std::string> ListGlobalNames();

}  // namespace details
}  // namespace mxffi

#define MXFFI_STR_CONCAT_(a, b) a##b
#define MXFFI_STR_CONCAT(a, b) MXFFI_STR_CONCAT_(a, b)

/*! \brief Register a global function: MXFFI_REGISTER_API("area.name").set_body_typed(f). */
#define MXFFI_REGISTER_API(Name)                                                           \
  [[maybe_unused]] static ::mxffi::Registry& MXFFI_STR_CONCAT(__mxffi_api_, __COUNTER__) = \
      ::mxffi::Registry::Register(Name, MXFFI_BUILD_ABI_MAJOR)

/*! \brief Run a block once at static-initialisation time (reflection, registrations). */
#define MXFFI_STATIC_INIT_BLOCK_(Fn, Var)            \
  static void Fn();                                  \
  [[maybe_unused]] static const int Var = (Fn(), 0); \
  static void Fn()
#define MXFFI_STATIC_INIT_BLOCK()                                           \
  MXFFI_STATIC_INIT_BLOCK_(MXFFI_STR_CONCAT(__mxffi_init_fn_, __COUNTER__), \
                           MXFFI_STR_CONCAT(__mxffi_init_var_, __COUNTER__))

#endif  // MXFFI_REGISTRY_H_
