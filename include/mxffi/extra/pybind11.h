/*!
 * \file mxffi/extra/pybind11.h
 * \brief pybind11 type casters for mxffi::NDArray and mxffi::Function: a pybind11 extension
 *  takes and returns them with no copy of the array data.
 *
 * \code
 * #include <mxffi/extra/pybind11.h>
 *
 * PYBIND11_MODULE(my_ext, m) {
 *   m.def("numel", [](const mxffi::NDArray& a) { return a.numel(); });
 *   m.def("call", [](const mxffi::Function& f, int64_t x) { return f(x).cast<int64_t>(); });
 * }
 * \endcode
 * tests/python/pybind11_ext/pybind11_ext.cc is a complete module that the tests build.
 *
 * Python -> C++ (load):
 *  - NDArray: an mxffi.NDArray gives a new reference to the same C++ object. With implicit
 *    conversion allowed (pybind11's second overload pass; not under py::arg().noconvert()),
 *    any object whose type has __dlpack__ (numpy arrays, torch tensors) is imported through
 *    mxffi.ndarray.from_dlpack: zero-copy, the producer's memory is kept alive by the array.
 *  - Function: an mxffi.Function gives a new reference to it. With implicit conversion, any
 *    other Python callable becomes a Function the way mxffi converts a callable argument.
 *  - Anything else, None included, fails the load, so pybind11 raises its usual TypeError
 *    (take std::optional<NDArray> to accept None). A DLPack import that raises fails the load
 *    too, like pybind11's own casters: overload resolution goes on to the next candidate.
 *
 * C++ -> Python (cast): the Python object for the C++ object, of the class registered for its
 *  type key (mxffi.NDArray, mxffi.Function), holding its own reference; a null reference
 *  becomes None. The return value policy is ignored: the object is refcounted and shared.
 *
 * How a C++ object becomes a Python one: the casters publish two globals, on first use, from
 * the first extension that needs them (later extensions find and reuse them):
 *  - "pybind11.object_from_address": the object at an address (a new reference). Python's
 *    mxffi then wraps the returned object as it wraps any returned object, in either core
 *    (Cython or ctypes), so the casters use only mxffi's public Python API.
 *  - "pybind11.as_function": its Function argument, as is; a Python callable passed to it is
 *    converted to a Function by mxffi's own argument conversion.
 *
 * \note pybind11 holds the GIL while casters run; the Python objects these casters use are
 *  looked up once per process (pybind11::gil_safe_call_once_and_store, pybind11 >= 2.12) and
 *  never destroyed, so nothing is released after the interpreter has finalized.
 * \note The extension links libmxffi.so from `python -m mxffi.config --libdir`, the same
 *  library the mxffi package loads, so both sides share one registry and one type table.
 */
#ifndef MXFFI_EXTRA_PYBIND11_H_
#define MXFFI_EXTRA_PYBIND11_H_

#include <mxffi/function.h>
#include <mxffi/ndarray/ndarray.h>
#include <mxffi/object.h>
#include <pybind11/gil_safe_call_once.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <exception>
#include <utility>

#if PYBIND11_VERSION_HEX < 0x020C0000
#error "mxffi/extra/pybind11.h needs pybind11 >= 2.12 (for gil_safe_call_once_and_store)"
#endif

// Hidden like pybind11's own namespace (PYBIND11_NAMESPACE), whose objects PyHelpers holds.
#if defined(__GNUG__) && !defined(_WIN32)
#define MXFFI_PYBIND11_HIDDEN __attribute__((visibility("hidden")))
#else
#define MXFFI_PYBIND11_HIDDEN
#endif

namespace mxffi {
namespace details {
namespace pybind11_casters {

/*! \brief Name of the global returning the object at an address; see the file comment. */
constexpr const char* kObjectFromAddress = "pybind11.object_from_address";
/*! \brief Name of the global returning its Function argument; see the file comment. */
constexpr const char* kAsFunction = "pybind11.as_function";

/*! \brief Publish f under name unless a global of that name exists. */
inline void PublishOnce(const char* name, Function f) {
  if (Function::GetGlobal(name).defined()) return;
  try {
    Function::SetGlobal(name, std::move(f), /*override=*/false);
  } catch (const std::exception&) {
    // Another extension published it between the look-up and now: the Python look-up that
    // follows finds that one. Any other failure surfaces there, as a ValueError naming it.
  }
}

/*!
 * \brief The body of kObjectFromAddress: a new reference to the object whose MXFFIObject
 *  header is at address.
 * \note The address is read from Python as mxffi.Object.handle, and the caster's caller holds
 *  a reference for the whole call, so the object is alive while this takes its own. Any other
 *  value is undefined behaviour, as it is for a handle forged through ctypes.
 */
inline ObjectRef ObjectFromAddress(int64_t address) {
  void* header = reinterpret_cast<void*>(static_cast<intptr_t>(address));
  return ObjectRef(ObjectPtr<Object>::CopyFromRaw(ObjectUnsafe::FromHeader(header)));
}

/*! \brief The body of kAsFunction: f itself (mxffi converted a callable on the way in). */
inline Function AsFunction(Function f) { return f; }

/*! \brief The Python objects the casters use, looked up once per process. */
struct MXFFI_PYBIND11_HIDDEN PyHelpers {
  /*! \brief mxffi.Object of the core in use (Cython or ctypes). */
  pybind11::object object_cls;
  /*! \brief mxffi.ndarray.from_dlpack. */
  pybind11::object from_dlpack;
  /*! \brief The Python mxffi.Function of kObjectFromAddress. */
  pybind11::object object_from_address;
  /*! \brief The Python mxffi.Function of kAsFunction. */
  pybind11::object as_function;
};

/*! \brief Publish the globals (unless there) and look up what the casters use from Python. */
inline PyHelpers MakePyHelpers() {
  PublishOnce(kObjectFromAddress, Function::FromTyped(&ObjectFromAddress));
  PublishOnce(kAsFunction, Function::FromTyped(&AsFunction));
  pybind11::module_ mxffi = pybind11::module_::import("mxffi");
  pybind11::object get_global_func = mxffi.attr("get_global_func");
  PyHelpers h;
  h.object_cls = mxffi.attr("Object");
  h.from_dlpack = pybind11::module_::import("mxffi.ndarray").attr("from_dlpack");
  h.object_from_address = get_global_func(kObjectFromAddress);
  h.as_function = get_global_func(kAsFunction);
  return h;
}

/*! \return the helpers, made on first use (by one thread, with the GIL held). */
inline const PyHelpers& GetPyHelpers() {
  PYBIND11_CONSTINIT static pybind11::gil_safe_call_once_and_store<PyHelpers> storage;
  return storage.call_once_and_store_result(&MakePyHelpers).get_stored();
}

/*!
 * \brief A new reference to the C++ object behind src when src is an mxffi object whose type
 *  is (a subtype of) Container; a null pointer otherwise.
 */
template <typename Container>
inline ObjectPtr<Object> TakeObject(pybind11::handle src) {
  const PyHelpers& h = GetPyHelpers();
  if (!pybind11::isinstance(src, h.object_cls)) return ObjectPtr<Object>();
  // Both cores expose the MXFFIObject* as an int property (0 once moved from).
  uintptr_t address = src.attr("handle").cast<uintptr_t>();
  if (address == 0) return ObjectPtr<Object>();
  Object* obj = ObjectUnsafe::FromHeader(reinterpret_cast<void*>(address));
  if (!obj->IsInstance<Container>()) return ObjectPtr<Object>();
  return ObjectPtr<Object>::CopyFromRaw(obj);
}

/*!
 * \brief Call a Python-side converter on src and take the C++ object it returns; a null
 *  pointer when the converter raises an Exception (cleared) or returns something else.
 */
template <typename Container>
inline ObjectPtr<Object> TakeConverted(const pybind11::object& converter, pybind11::handle src) {
  pybind11::object converted;
  try {
    converted = converter(src);
  } catch (pybind11::error_already_set& e) {
    // KeyboardInterrupt, SystemExit: not a reason to try the next overload.
    if (!e.matches(PyExc_Exception)) throw;
    return ObjectPtr<Object>();  // fetched into the exception, so Python's error is clear
  }
  return TakeObject<Container>(converted);
}

/*!
 * \brief The Python object for ref (None when null), holding its own reference.
 * \note ref stays alive across the call (the caller owns it), and the global takes a new
 *  reference, so no path leaks or frees twice, exceptions included.
 */
inline pybind11::handle ToPython(const ObjectRef& ref) {
  if (!ref.defined()) return pybind11::none().release();
  void* header = ObjectUnsafe::Header(const_cast<Object*>(ref.get()));
  int64_t address = static_cast<int64_t>(reinterpret_cast<intptr_t>(header));
  return GetPyHelpers().object_from_address(address).release();
}

}  // namespace pybind11_casters
}  // namespace details
}  // namespace mxffi

#undef MXFFI_PYBIND11_HIDDEN

namespace PYBIND11_NAMESPACE {
namespace detail {

/*! \brief mxffi::NDArray <-> mxffi.NDArray (and, loading, any DLPack producer); no copy. */
template <>
struct type_caster<mxffi::NDArray> {
 public:
  PYBIND11_TYPE_CASTER(mxffi::NDArray, const_name("mxffi.NDArray"));

  /*! \brief See the file comment; convert allows the DLPack import. */
  bool load(handle src, bool convert) {
    namespace c = ::mxffi::details::pybind11_casters;
    mxffi::ObjectPtr<mxffi::Object> obj = c::TakeObject<mxffi::NDArrayObj>(src);
    if (!obj && convert && hasattr(type::handle_of(src), "__dlpack__")) {
      obj = c::TakeConverted<mxffi::NDArrayObj>(c::GetPyHelpers().from_dlpack, src);
    }
    if (!obj) return false;
    value = mxffi::NDArray(std::move(obj));
    return true;
  }

  /*! \brief The mxffi.NDArray for src (None when null); the policy is ignored. */
  static handle cast(const mxffi::NDArray& src, return_value_policy /*policy*/, handle /*parent*/) {
    return ::mxffi::details::pybind11_casters::ToPython(src);
  }
};

/*! \brief mxffi::Function <-> mxffi.Function (and, loading, any Python callable). */
template <>
struct type_caster<mxffi::Function> {
 public:
  PYBIND11_TYPE_CASTER(mxffi::Function, const_name("mxffi.Function"));

  /*! \brief See the file comment; convert allows wrapping a Python callable. */
  bool load(handle src, bool convert) {
    namespace c = ::mxffi::details::pybind11_casters;
    mxffi::ObjectPtr<mxffi::Object> obj = c::TakeObject<mxffi::FunctionObj>(src);
    if (!obj && convert && PyCallable_Check(src.ptr())) {
      obj = c::TakeConverted<mxffi::FunctionObj>(c::GetPyHelpers().as_function, src);
    }
    if (!obj) return false;
    value = mxffi::Function(std::move(obj));
    return true;
  }

  /*! \brief The mxffi.Function for src (None when null); the policy is ignored. */
  static handle cast(const mxffi::Function& src, return_value_policy /*policy*/,
                     handle /*parent*/) {
    return ::mxffi::details::pybind11_casters::ToPython(src);
  }
};

}  // namespace detail
}  // namespace PYBIND11_NAMESPACE

#endif  // MXFFI_EXTRA_PYBIND11_H_
