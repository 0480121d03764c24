// A complete program: register functions with MXFFI_REGISTER_API, then call them the way every
// binding does, through the C ABI. docs/register_api.md cuts its code from the marked blocks;
// tests/cpp/test_docs.cc checks the page still matches this file, and ctest runs this program.
#include <mxffi/mxffi.h>

#include <cstdio>
#include <string>

// The docs page shows these lines as they are: keep clang-format from reflowing them.
// clang-format off
// [register.begin]
#include <mxffi/registry.h>

// A typed body: arguments are converted and checked from the C++ signature.
MXFFI_REGISTER_API("example.scale")
    .describe("Multiply x by factor.")
    .arg("x")
    .arg("factor", 2.0)  // a default: callers may omit it
    .set_body_typed([](double x, double factor) { return x * factor; });

// A packed body sees the raw arguments: any number, any type.
MXFFI_REGISTER_API("example.count_strings")
    .describe("How many of the arguments are strings.")
    .set_body([](mxffi::PackedArgs args, mxffi::Any* rv) {
      int64_t n = 0;
      for (int32_t i = 0; i < args.size(); ++i) {
        if (args[i].try_cast<std::string_view>().has_value()) ++n;
      }
      *rv = n;
    });

// Errors carry a kind that Python maps to its builtin exception class.
MXFFI_REGISTER_API("example.checked_sqrt")
    .arg("x")
    .set_body_typed([](double x) {
      MXFFI_CHECK(x >= 0, ValueError) << "example.checked_sqrt: x must be >= 0, got " << x;
      double r = x;
      for (int i = 0; i < 60; ++i) r = 0.5 * (r + x / r);
      return x == 0 ? 0.0 : r;
    });
// [register.end]

// [parameter_kinds.begin]
// Python's parameter kinds: `x` positional-only, `*values` variadic, `scale` keyword-only.
// In Python: example.weighted_sum(x, *values, scale=1.0); in C++ and C the arguments stay
// positional, the variadic one an Array: (x, [v0, v1, ...], scale).
MXFFI_REGISTER_API("example.weighted_sum")
    .describe("x plus the sum of values, times scale.")
    .arg("x")
    .positional_only()
    .arg_variadic("values")
    .arg("scale", 1.0)
    .set_body_typed([](double x, mxffi::Array<double> values, double scale) {
      for (int64_t i = 0; i < values.size(); ++i) x += values[i];
      return x * scale;
    });
// [parameter_kinds.end]

// [kinds.begin]
#include <mxffi/api/arg_types.h>

// Argument kinds check values as well as types, once, for every function that takes them:
// a shape is an int or a sequence of ints, none negative; a dtype None, a DataType or a name.
MXFFI_REGISTER_API("example.nbytes")
    .describe("The bytes an array of this shape and dtype (None: float64) holds.")
    .arg("shape")
    .arg("dtype", nullptr)
    .set_body_typed([](mxffi::ShapeLike shape, mxffi::DTypeLike dtype) {
      return shape.Size() * mxffi::DataTypeBytes(dtype.value_or(mxffi::kFloat64DType));
    });
// [kinds.end]

int main() {
  // [call.begin]
  MXFFIObjectHandle scale = nullptr;
  if (MXFFIFuncGetGlobal("example.scale", &scale) != 0 || scale == nullptr) return 1;
  MXFFIAny args[1];
  args[0].type_index = kMXFFIFloat;
  args[0].small_len = 0;
  args[0].v_float64 = 21.0;
  MXFFIAny result;
  result.type_index = kMXFFINone;  // the result cell is None on entry
  if (MXFFIFuncCall(scale, args, 1, &result) != 0) return 1;  // factor defaults to 2.0
  std::printf("example.scale(21.0) = %g\n", result.v_float64);
  MXFFIObjectFree(scale);
  // [call.end]
  const double scaled = result.v_float64;

  // [error.begin]
  MXFFIObjectHandle sqrt_fn = nullptr;
  MXFFIFuncGetGlobal("example.checked_sqrt", &sqrt_fn);
  args[0].v_float64 = -1.0;
  result.type_index = kMXFFINone;
  if (MXFFIFuncCall(sqrt_fn, args, 1, &result) != 0) {
    const char *kind, *message;
    MXFFIErrorGetLast(&kind, &message, nullptr);
    std::printf("%s: %s\n", kind, message);
  }
  MXFFIObjectFree(sqrt_fn);
  // [error.end]

  // [kinds_call.begin]
  mxffi::Function nbytes = mxffi::Function::GetGlobalRequired("example.nbytes");
  std::printf("example.nbytes((3, 4), 'int32') = %lld\n",
              static_cast<long long>(nbytes(mxffi::Shape{3, 4}, "int32").cast<int64_t>()));
  try {
    nbytes(mxffi::Shape{3, -4});
  } catch (const mxffi::Error& e) {
    std::printf("%s: %s\n", e.kind().c_str(), e.message().c_str());
  }
  // [kinds_call.end]
  const int64_t twelve_ints = nbytes(mxffi::Shape{3, 4}, "int32").cast<int64_t>();

  // The same calls from C++, through Function.
  mxffi::Function count = mxffi::Function::GetGlobalRequired("example.count_strings");
  std::printf("example.count_strings(1, 'a', 'bc') = %lld\n",
              static_cast<long long>(count(1, "a", "bc").cast<int64_t>()));
  // The variadic argument from C++: one Array in its slot.
  mxffi::Array<double> values;
  values.push_back(1.0);
  values.push_back(2.5);
  const double weighted = mxffi::Function::GetGlobalRequired("example.weighted_sum")(0.5, values,
                                                                                       2.0)
                              .cast<double>();
  std::printf("example.weighted_sum(0.5, [1.0, 2.5], 2.0) = %g\n", weighted);
  return scaled == 42.0 && twelve_ints == 48 && weighted == 8.0 ? 0 : 1;
}
// clang-format on
