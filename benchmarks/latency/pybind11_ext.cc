/*!
 * \file pybind11_ext.cc
 * \brief pybind11_ext: the pybind11 bindings of the call-latency benchmark.
 *
 * Written as the pybind11 documentation shows: plain C++ signatures, py::arg names for the
 * keyword call, std::string_view for strings (no copy in, one str out), and
 * py::array_t<double, c_style | forcecast> for the numpy array (no copy for a float64
 * C-contiguous array; a torch tensor arrives through numpy's conversion, torch's __array__, the
 * only way pybind11 takes one without torch's own headers).
 */
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string_view>

#include "kernels.h"

namespace py = pybind11;

PYBIND11_MODULE(pybind11_ext, m) {
  m.doc() = "The pybind11 bindings of the call-latency benchmark.";
  m.def("nop", []() { mxb_nop(); });
  m.def(
      "add_int", [](int64_t a, int64_t b) { return mxb_add_int(a, b); }, py::arg("a"),
      py::arg("b"));
  m.def("add_float", [](double a, double b) { return mxb_add_float(a, b); });
  m.def("echo_str", [](std::string_view s) {
    mxb_str_t r = mxb_echo_str(s.data(), s.size());
    return std::string_view(r.data, r.size);
  });
  m.def("str_len", [](std::string_view s) { return mxb_str_len(s.data(), s.size()); });
  m.def("sum3",
        [](int64_t a, double b, std::string_view s) { return mxb_sum3(a, b, s.data(), s.size()); });
  m.def("first_f64", [](py::array_t<double, py::array::c_style | py::array::forcecast> a) {
    return mxb_first_f64(a.data(), static_cast<int64_t>(a.size()));
  });
  using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;
  m.def("first8",
        [](Array a0, Array a1, Array a2, Array a3, Array a4, Array a5, Array a6, Array a7) {
          const double* data[8] = {a0.data(), a1.data(), a2.data(), a3.data(),
                                   a4.data(), a5.data(), a6.data(), a7.data()};
          int64_t size[8] = {a0.size(), a1.size(), a2.size(), a3.size(),
                             a4.size(), a5.size(), a6.size(), a7.size()};
          return mxb_first8(data, size);
        });
}
