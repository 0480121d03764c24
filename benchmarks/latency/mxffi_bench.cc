/*!
 * \file mxffi_bench.cc
 * \brief libmxffi_bench: the mxffi functions of the call-latency benchmark ("bench.*").
 *
 * Written as docs/register_api.md shows: MXFFI_REGISTER_API over typed lambdas, built with
 * find_package(mxffi) and mxffi_add_library, loaded in Python with mxffi.library.load(path).
 * Strings come in as std::string_view (borrowed for the call, no copy), and echo_str returns
 * one, as the nanobind and pybind11 bindings do: a caller that lends a result buffer (the
 * Python binding does, docs/c_abi.md) gets the text there, with no String made; numpy arrays
 * and torch tensors come in as borrowed DLTensor*s.
 */
#include <mxffi/mxffi.h>

#include <string_view>

#include "kernels.h"

namespace {

/*! \brief Whether t's elements are laid out densely in row-major order. */
bool IsCompactRowMajor(const DLTensor* t) {
  if (t->strides == nullptr) return true;
  int64_t expected = 1;
  for (int32_t i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] != 1 && t->strides[i] != expected) return false;
    expected *= t->shape[i];
  }
  return true;
}

MXFFI_REGISTER_API("bench.nop").describe("Do nothing.").set_body_typed([]() { mxb_nop(); });

MXFFI_REGISTER_API("bench.add_int")
    .describe("a + b for integers.")
    .arg("a")
    .arg("b")
    .set_body_typed([](int64_t a, int64_t b) { return mxb_add_int(a, b); });

MXFFI_REGISTER_API("bench.add_float")
    .describe("a + b for floats.")
    .arg("a")
    .arg("b")
    .set_body_typed([](double a, double b) { return mxb_add_float(a, b); });

MXFFI_REGISTER_API("bench.echo_str")
    .describe("s, through the C kernel.")
    .arg("s")
    .set_body_typed([](std::string_view s) {
      mxb_str_t r = mxb_echo_str(s.data(), s.size());
      return std::string_view(r.data, r.size);
    });

MXFFI_REGISTER_API("bench.str_len")
    .describe("Length of s in UTF-8 bytes.")
    .arg("s")
    .set_body_typed([](std::string_view s) { return mxb_str_len(s.data(), s.size()); });

MXFFI_REGISTER_API("bench.sum3")
    .describe("a + b + len(s) as a float.")
    .arg("a")
    .arg("b")
    .arg("s")
    .set_body_typed([](int64_t a, double b, std::string_view s) {
      return mxb_sum3(a, b, s.data(), s.size());
    });

/*! \brief a's elements and their count, after checking a is a C-contiguous float64 CPU array. */
const double* Float64Data(const char* name, const DLTensor* a, int64_t* size) {
  if (a->dtype.code != kDLFloat || a->dtype.bits != 64 || a->dtype.lanes != 1 ||
      a->device.device_type != kDLCPU || !IsCompactRowMajor(a)) {
    MXFFI_THROW(TypeError) << name << ": expected a C-contiguous float64 CPU array; "
                           << "got dtype code " << int{a->dtype.code} << " with "
                           << int{a->dtype.bits} << " bits on device type "
                           << int{a->device.device_type};
  }
  *size = 1;
  for (int32_t i = 0; i < a->ndim; ++i) *size *= a->shape[i];
  return reinterpret_cast<const double*>(static_cast<const char*>(a->data) + a->byte_offset);
}

MXFFI_REGISTER_API("bench.first_f64")
    .describe("The first element of a C-contiguous float64 CPU array.")
    .arg("a")
    .set_body_typed([](DLTensor* a) {
      int64_t size;
      const double* data = Float64Data("bench.first_f64", a, &size);
      return mxb_first_f64(data, size);
    });

MXFFI_REGISTER_API("bench.first8")
    .describe("The sum of the first elements of eight C-contiguous float64 CPU arrays.")
    .arg("a0")
    .arg("a1")
    .arg("a2")
    .arg("a3")
    .arg("a4")
    .arg("a5")
    .arg("a6")
    .arg("a7")
    .set_body_typed([](DLTensor* a0, DLTensor* a1, DLTensor* a2, DLTensor* a3, DLTensor* a4,
                       DLTensor* a5, DLTensor* a6, DLTensor* a7) {
      const DLTensor* in[8] = {a0, a1, a2, a3, a4, a5, a6, a7};
      const double* data[8];
      int64_t size[8];
      for (int i = 0; i < 8; ++i) data[i] = Float64Data("bench.first8", in[i], &size[i]);
      return mxb_first8(data, size);
    });

}  // namespace
