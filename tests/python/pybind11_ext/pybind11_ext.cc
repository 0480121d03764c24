/*!
 * \file pybind11_ext.cc
 * \brief mxffi_pybind11_test: a pybind11 module taking and returning mxffi::NDArray and
 *  mxffi::Function through mxffi/extra/pybind11.h; tests/python/test_pybind11.py builds it.
 */
#include <mxffi/extra/pybind11.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>

namespace py = pybind11;

namespace {

/*! \brief Write value into every element of a C-contiguous float32/float64 CPU array. */
void Fill(const mxffi::NDArray& arr, double value) {
  const DLTensor& t = arr.tensor();
  if (arr.read_only()) {
    throw py::value_error("mxffi_pybind11_test.fill: the array is read-only");
  }
  if (!arr.IsContiguous()) {
    throw py::value_error("mxffi_pybind11_test.fill: the array must be C-contiguous");
  }
  if (t.dtype.code != kDLFloat || t.dtype.lanes != 1 ||
      (t.dtype.bits != 32 && t.dtype.bits != 64)) {
    throw py::type_error("mxffi_pybind11_test.fill: expected float32 or float64, got " +
                         mxffi::DataTypeToString(t.dtype));
  }
  int64_t n = arr.numel();
  if (t.dtype.bits == 64) {
    auto* data = static_cast<double*>(arr.data());
    for (int64_t i = 0; i < n; ++i) data[i] = value;
  } else {
    auto* data = static_cast<float*>(arr.data());
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<float>(value);
  }
}

/*! \brief A fresh float64 array [0, 1, ..., n-1] made on the C++ side. */
mxffi::NDArray Arange(int64_t n) {
  mxffi::NDArray arr = mxffi::NDArray::Empty({n}, DLDataType{kDLFloat, 64, 1}, DLDevice{kDLCPU, 0});
  auto* data = static_cast<double*>(arr.data());
  for (int64_t i = 0; i < n; ++i) data[i] = static_cast<double>(i);
  return arr;
}

}  // namespace

PYBIND11_MODULE(mxffi_pybind11_test, m) {
  m.doc() = "Test module for mxffi/extra/pybind11.h";
  m.def(
      "data_ptr", [](const mxffi::NDArray& arr) { return reinterpret_cast<uintptr_t>(arr.data()); },
      py::arg("arr"), "The address of the array's first element.");
  m.def(
      "data_ptr_noconvert",
      [](const mxffi::NDArray& arr) { return reinterpret_cast<uintptr_t>(arr.data()); },
      py::arg("arr").noconvert(), "data_ptr, accepting only an mxffi.NDArray.");
  m.def(
      "identity", [](mxffi::NDArray arr) { return arr; }, py::arg("arr"),
      "The same array, returned.");
  m.def("fill", &Fill, py::arg("arr"), py::arg("value"),
        "Write value into every element from C++.");
  m.def(
      "use_count", [](const mxffi::NDArray& arr) { return arr.use_count(); }, py::arg("arr"),
      "The C++ reference count, this call's own reference included.");
  m.def("arange", &Arange, py::arg("n"), "A float64 array made in C++.");
  m.def(
      "null_array", [] { return mxffi::NDArray(); }, "A null NDArray (None in Python).");
  m.def(
      "call", [](const mxffi::Function& fn, int64_t x) { return fn(x).cast<int64_t>(); },
      py::arg("fn"), py::arg("x"), "fn(x) called from C++, as an int.");
  m.def(
      "call_noconvert", [](const mxffi::Function& fn, int64_t x) { return fn(x).cast<int64_t>(); },
      py::arg("fn").noconvert(), py::arg("x"), "call, accepting only an mxffi.Function.");
  m.def(
      "make_adder",
      [](int64_t k) { return mxffi::Function::FromTyped([k](int64_t x) { return x + k; }); },
      py::arg("k"), "A C++ Function adding k to its argument.");
  m.def(
      "identity_fn", [](mxffi::Function fn) { return fn; }, py::arg("fn"),
      "The same Function, returned.");
  m.def(
      "function_use_count", [](const mxffi::Function& fn) { return fn.use_count(); }, py::arg("fn"),
      "The C++ reference count, this call's own reference included.");
}
