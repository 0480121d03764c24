/*!
 * \file testing.cc
 * \brief The mxffi_testing library: "testing.*" functions that exercise every path across the
 *  C ABI, for the C++, C and Python tests and the benchmarks.
 */
#include <mxffi/mxffi.h>
#include <mxffi/ndarray/ndarray.h>
#include <mxffi/tensor_view.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

extern "C" {
/*! \brief Plain C functions that testing.nop and testing.add_float wrap, so that a ctypes call
 *  of the same function is the baseline `python -m mxffi` compares against. */
MXFFI_DLL void MXFFITestingNop(void) {}
MXFFI_DLL double MXFFITestingAddFloat(double a, double b) { return a + b; }
}

namespace mxffi {
namespace testing {

MXFFI_REGISTER_API("testing.nop").describe("Do nothing.").set_body_typed([]() {
  MXFFITestingNop();
});

MXFFI_REGISTER_API("testing.raise_without_arguments")
    .describe("Raise ValueError: an error from a function without parameters.")
    .set_body_typed([]() -> int64_t {
      MXFFI_THROW(ValueError) << "testing.raise_without_arguments: raised as asked";
    });

MXFFI_REGISTER_API("testing.echo")
    .describe("Return the argument unchanged (borrowed strings come back as owned ones).")
    .arg("x")
    .set_body([](PackedArgs args, Any* rv) {
      if (args.size() != 1) {
        MXFFI_THROW(TypeError) << "testing.echo: expected 1 argument, got " << args.size();
      }
      *rv = Any(args[0]);
    });

MXFFI_REGISTER_API("testing.kinds")
    .describe(
        "(a, b, c, d) as given, for tests of parameter kinds: a is positional-only, b "
        "positional-or-keyword, c and d keyword-only.")
    .arg("a")
    .positional_only()
    .arg("b", 2)
    .keyword_only()
    .arg("c", 3)
    .arg("d", 4)
    .set_body_typed([](int64_t a, int64_t b, int64_t c, int64_t d) {
      Array<Any> out;
      for (int64_t v : {a, b, c, d}) out.push_back(Any(v));
      return out;
    });

MXFFI_REGISTER_API("testing.gather")
    .describe(
        "(first, rest, scale) as given, for tests of a variadic argument: rest gathers the "
        "positional arguments after first; scale is keyword-only.")
    .arg("first")
    .arg_variadic("rest")
    .arg("scale", 1)
    .set_body_typed([](Any first, Array<Any> rest, int64_t scale) {
      Array<Any> out;
      out.push_back(first);
      out.push_back(rest);
      out.push_back(Any(scale));
      return out;
    });

MXFFI_REGISTER_API("testing.add")
    .describe("a + b for integers.")
    .arg("a")
    .arg("b", 1)
    .set_body_typed([](int64_t a, int64_t b) {
      int64_t out;
      if (__builtin_add_overflow(a, b, &out)) {
        MXFFI_THROW(OverflowError) << "testing.add: " << a << " + " << b << " overflows int64";
      }
      return out;
    });

MXFFI_REGISTER_API("testing.add_float")
    .describe("a + b for floats.")
    .arg("a")
    .arg("b")
    .set_body_typed([](double a, double b) { return MXFFITestingAddFloat(a, b); });

MXFFI_REGISTER_API("testing.sum3")
    .describe("A three-argument mixed call: int + float + (1 if flag else 0).")
    .arg("a")
    .arg("b")
    .arg("flag")
    .set_body_typed([](int64_t a, double b, bool flag) {
      return static_cast<double>(a) + b + flag;
    });

MXFFI_REGISTER_API("testing.str_len")
    .describe("Length in bytes of a string, without copying it.")
    .arg("s")
    .set_body_typed([](std::string_view s) { return static_cast<int64_t>(s.size()); });

MXFFI_REGISTER_API("testing.echo_text")
    .describe(
        "s, returned as a std::string_view: text longer than 7 bytes goes into the result buffer "
        "the caller lends (docs/c_abi.md) where it fits, else into a new String.")
    .arg("s")
    .set_body_typed([](std::string_view s) { return s; });

MXFFI_REGISTER_API("testing.repeat_text")
    .describe("s repeated n times, returned as a std::string (written as testing.echo_text's).")
    .arg("s")
    .arg("n")
    .set_body_typed([](std::string_view s, int64_t n) {
      if (n < 0) MXFFI_THROW(ValueError) << "testing.repeat_text: n must be >= 0, got " << n;
      std::string out;
      for (int64_t i = 0; i < n; ++i) out += s;
      return out;
    });

MXFFI_REGISTER_API("testing.concat")
    .describe("a + b for strings.")
    .arg("a")
    .arg("b")
    .set_body_typed([](std::string_view a, std::string_view b) {
      std::string out(a);
      out += b;
      return String(out);
    });

MXFFI_REGISTER_API("testing.raise_error")
    .describe("Raise an error of the given kind with the given message.")
    .arg("kind")
    .arg("message")
    .set_body_typed([](std::string kind, std::string message) -> int64_t {
      throw Error(kind, message);
    });

MXFFI_REGISTER_API("testing.make_error")
    .describe("Return (not raise) an Error object.")
    .arg("kind")
    .arg("message")
    .set_body_typed([](std::string kind, std::string message) { return Error(kind, message); });

MXFFI_REGISTER_API("testing.apply")
    .describe("Call f with the remaining arguments and return its result.")
    .set_body([](PackedArgs args, Any* rv) {
      std::optional<Function> f0 = args.size() < 1 ? std::nullopt : args[0].try_cast<Function>();
      if (!f0.has_value()) {
        MXFFI_THROW(TypeError) << "testing.apply: argument #0 'f' expected Function, got "
                               << (args.size() < 1 ? std::string("nothing")
                                                   : args[0].GetTypeName());
      }
      Function f = *f0;
      f.CallPacked(PackedArgs(args.data() + 1, args.size() - 1), rv);
    });

MXFFI_REGISTER_API("testing.apply_in_thread")
    .describe("Call f(*args) from a new C++ thread and return its result (or re-raise its error).")
    .set_long_running()
    .set_body([](PackedArgs args, Any* rv) {
      if (args.size() < 1) MXFFI_THROW(TypeError) << "testing.apply_in_thread: expected a function";
      Function f = args[0].cast<Function>();
      std::vector<Any> owned;
      for (int32_t i = 1; i < args.size(); ++i) owned.emplace_back(args[i]);
      Any result;
      std::optional<Error> error;
      std::thread worker([&]() {
        try {
          f.CallPacked(PackedArgs(reinterpret_cast<const AnyView*>(owned.data()),
                                  static_cast<int32_t>(owned.size())),
                       &result);
        } catch (const Error& e) {
          error = e;
        }
      });
      worker.join();
      if (error.has_value()) throw *error;
      *rv = std::move(result);
    });

MXFFI_REGISTER_API("testing.apply_in_threads")
    .describe(
        "Start num_threads C++ threads that wait for each other, then each call f(i, x) for its "
        "index i at the same time; return the results in index order (or re-raise the error of "
        "the lowest index that failed).")
    .arg("f")
    .arg("num_threads")
    .arg("x")
    .set_long_running()
    .set_body_typed([](Function f, int64_t num_threads, Any x) {
      if (num_threads < 1 || num_threads > 64) {
        MXFFI_THROW(ValueError) << "testing.apply_in_threads: num_threads must be in 1..64, got "
                                << num_threads;
      }
      std::vector<Any> results(num_threads);
      std::vector<std::optional<Error>> errors(num_threads);
      // A start gate, so that the calls overlap instead of running one thread after another.
      std::mutex mutex;
      std::condition_variable all_started;
      int64_t waiting = 0;
      std::vector<std::thread> workers;
      for (int64_t i = 0; i < num_threads; ++i) {
        workers.emplace_back([&, i]() {
          {
            std::unique_lock<std::mutex> lock(mutex);
            if (++waiting == num_threads) all_started.notify_all();
            all_started.wait(lock, [&] { return waiting == num_threads; });
          }
          try {
            results[i] = f(i, x);
          } catch (const Error& e) {
            errors[i] = e;
          }
        });
      }
      for (std::thread& worker : workers) worker.join();
      for (const std::optional<Error>& error : errors) {
        if (error.has_value()) throw *error;
      }
      Array<Any> out;
      for (Any& result : results) out.push_back(std::move(result));
      return out;
    });

MXFFI_REGISTER_API("testing.sleep_add")
    .describe("Sleep ms milliseconds with the GIL released, then return a + b.")
    .arg("a")
    .arg("b")
    .arg("ms")
    .set_long_running()
    .set_body_typed([](int64_t a, int64_t b, int64_t ms) {
      if (ms < 0) MXFFI_THROW(ValueError) << "testing.sleep_add: ms must be >= 0, got " << ms;
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      return a + b;
    });

/*! \brief The state of testing.rendezvous: how many callers are waiting in the current round. */
struct Rendezvous {
  std::mutex mu;
  std::condition_variable cv;
  int64_t waiting = 0;
  int64_t round = 0;
};

MXFFI_REGISTER_API("testing.rendezvous")
    .describe(
        "Wait, with the GIL released, until n callers are inside this function at once, then "
        "return True; return False if timeout_ms passes first. Tells whether calls from several "
        "Python threads really run at the same time, without measuring time.")
    .arg("n")
    .arg("timeout_ms")
    .set_long_running()
    .set_body_typed([](int64_t n, int64_t timeout_ms) {
      if (n < 1) MXFFI_THROW(ValueError) << "testing.rendezvous: n must be >= 1, got " << n;
      static Rendezvous r;
      std::unique_lock<std::mutex> lock(r.mu);
      const int64_t round = r.round;
      if (++r.waiting == n) {
        r.waiting = 0;
        ++r.round;
        r.cv.notify_all();
        return true;
      }
      bool met = r.cv.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                               [&] { return r.round != round; });
      if (!met) --r.waiting;
      return met;
    });

/*! \brief A run-time registered object type with reflected fields, for the bindings' tests. */
class PointObj : public Object {
 public:
  int64_t x = 0;
  double y = 0;
  String label;
  static constexpr const char* _type_key = "testing.Point";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_OBJECT_INFO(PointObj, Object);
};

MXFFI_STATIC_INIT_BLOCK() {
  reflection::ObjectDef<PointObj>()
      .def_ro("x", &PointObj::x, "abscissa")
      .def_ro("y", &PointObj::y, "ordinate")
      .def_ro("label", &PointObj::label, "a name");
}

MXFFI_REGISTER_API("testing.make_point")
    .describe("A testing.Point object with reflected fields x, y and label.")
    .arg("x")
    .arg("y")
    .arg("label", String(""))
    .set_body_typed([](int64_t x, double y, String label) {
      ObjectPtr<PointObj> p = make_object<PointObj>();
      p->x = x;
      p->y = y;
      p->label = std::move(label);
      return ObjectRef(ObjectPtr<Object>(std::move(p)));
    });

MXFFI_REGISTER_API("testing.make_adder")
    .describe("Return a closure adding n to its argument.")
    .arg("n")
    .set_body_typed([](int64_t n) {
      return TypedFunction<int64_t(int64_t)>([n](int64_t x) { return x + n; }).packed();
    });

MXFFI_REGISTER_API("testing.poll_signals")
    .describe(
        "Loop for up to max_ms milliseconds polling mxffi::CheckSignals(); returns the number "
        "of polls made, or raises what the signal hook raised.")
    .arg("max_ms")
    .set_long_running()
    .set_body_typed([](int64_t max_ms) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(max_ms);
      int64_t polls = 0;
      while (std::chrono::steady_clock::now() < deadline) {
        CheckSignals();
        ++polls;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      return polls;
    });

MXFFI_REGISTER_API("testing.make_containers")
    .describe("A Map {'array': [1, 'two', 3.0], 'shape': Shape(2, 3), 'adt': ADT(7, [1, 'x'])}.")
    .set_body_typed([]() {
      Map<String, Any> m;
      m.Set("array", Array<Any>{Any(1), Any("two"), Any(3.0)});
      m.Set("shape", Shape{2, 3});
      m.Set("adt", ADT(7, {Any(1), Any("x")}));
      return m;
    });

MXFFI_REGISTER_API("testing.dtype_bits").arg("dtype").set_body_typed([](DLDataType t) {
  return static_cast<int64_t>(t.bits) * t.lanes;
});

MXFFI_REGISTER_API("testing.tensor_first_f64")
    .describe("The first element of a float64 CPU tensor.")
    .arg("x")
    .set_body_typed([](DLTensor* x) {
      MXFFI_CHECK(x->dtype.code == kDLFloat && x->dtype.bits == 64 && x->dtype.lanes == 1,
                  TypeError)
          << "testing.tensor_first_f64: expected float64, got code " << int(x->dtype.code)
          << " bits " << int(x->dtype.bits)
          << (x->dtype.lanes != 1 ? " lanes " + std::to_string(x->dtype.lanes) : "");
      MXFFI_CHECK(x->device.device_type == kDLCPU, ValueError)
          << "testing.tensor_first_f64: expected a CPU tensor, got device type "
          << x->device.device_type;
      for (int32_t i = 0; i < x->ndim; ++i) {
        if (x->shape[i] == 0) {  // no first element to read
          std::ostringstream shape;
          for (int32_t j = 0; j < x->ndim; ++j) shape << (j ? ", " : "") << x->shape[j];
          MXFFI_THROW(ValueError) << "testing.tensor_first_f64: the tensor is empty; got shape ("
                                  << shape.str() << (x->ndim == 1 ? ",)" : ")");
        }
      }
      // byte_offset need not be a multiple of 8: the first element starts exactly there.
      double first;
      std::memcpy(&first, static_cast<const char*>(x->data) + x->byte_offset, sizeof(first));
      return first;
    });

MXFFI_REGISTER_API("testing.tensor_view_sum")
    .describe("The sum of a C-contiguous 2-D float64 CPU tensor's elements (a TensorView).")
    .arg("x")
    .set_body_typed([](TensorView<const double, ndim<2>, device::cpu, c_contig> x) {
      double sum = 0;
      for (int64_t i = 0; i < x.size(); ++i) sum += x.data()[i];
      return sum;
    });

MXFFI_REGISTER_API("testing.tensor_view_scale")
    .describe("Multiply a float32 tensor's elements by factor in place, any layout (a TensorView).")
    .arg("x")
    .arg("factor")
    .set_body_typed([](TensorView<float> x, double factor) {
      // Walk the elements by strides: a view of any layout is written where it lies.
      const int64_t n = x.size();
      for (int64_t flat = 0; flat < n; ++flat) {
        int64_t rest = flat, offset = 0;
        for (int32_t d = x.ndim() - 1; d >= 0; --d) {
          offset += (rest % x.shape(d)) * x.stride(d);
          rest /= x.shape(d);
        }
        x.data()[offset] *= static_cast<float>(factor);
      }
    });

MXFFI_REGISTER_API("testing.tensor_view_stream")
    .describe("The current stream of the tensor's device, as an int (0: none, the CPU's).")
    .arg("x")
    .set_body_typed([](TensorView<> x) {
      return static_cast<int64_t>(reinterpret_cast<intptr_t>(x.stream()));
    });

MXFFI_REGISTER_API("testing.current_stream")
    .describe("MXFFIEnvGetCurrentStream(device_type, device_id) as an int, through the C ABI.")
    .arg("device_type")
    .arg("device_id")
    .set_body_typed([](int64_t device_type, int64_t device_id) {
      void* stream = nullptr;
      if (MXFFIEnvGetCurrentStream(static_cast<int32_t>(device_type),
                                   static_cast<int32_t>(device_id), &stream) != 0) {
        details::ThrowLastError();
      }
      return static_cast<int64_t>(reinterpret_cast<intptr_t>(stream));
    });

MXFFI_REGISTER_API("testing.ndarray_of_storage")
    .describe(
        "A float32 CPU array of the given 2-D shape whose storage type field holds stype and "
        "whose tensor has no data: what an array of a storage type added in a later version "
        "looks like to this one.")
    .arg("rows")
    .arg("cols")
    .arg("stype")
    .set_body_typed([](int64_t rows, int64_t cols, int32_t stype) {
      ObjectPtr<NDArrayObj> obj = make_object<NDArrayObj>();
      obj->tensor.data = nullptr;
      obj->tensor.device = DLDevice{kDLCPU, 0};
      obj->tensor.dtype = DLDataType{kDLFloat, 32, 1};
      obj->tensor.byte_offset = 0;
      const int64_t shape[2] = {rows, cols};
      obj->SetShape(shape, nullptr, 2);
      obj->stype = stype;
      return NDArray(std::move(obj));
    });

MXFFI_REGISTER_API("testing.csr_unchecked")
    .describe(
        "A csr array of shape (rows, cols) holding the given parts as they are, unchecked and "
        "not made canonical: how kernels are shown parts that break the csr rules (unsorted or "
        "repeated columns, a bad indptr) to test that they refuse them.")
    .arg("rows")
    .arg("cols")
    .arg("data")
    .arg("indices")
    .arg("indptr")
    .set_body_typed([](int64_t rows, int64_t cols, NDArray data, NDArray indices, NDArray indptr) {
      const int64_t shape[2] = {rows, cols};
      NDArray out = NDArray::EmptySparse(StorageType::kCSR, shape, 2, data.tensor().dtype,
                                         data.tensor().device);
      out.SetSparseStorage(std::move(data), std::move(indices), std::move(indptr));
      return out;
    });

}  // namespace testing
}  // namespace mxffi
