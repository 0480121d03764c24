/*!
 * \file nanobind_ext.cc
 * \brief nanobind_ext: the nanobind bindings of the call-latency benchmark.
 *
 * Written as the nanobind documentation shows: plain C++ signatures, nb::arg names for the
 * keyword call, std::string_view for strings (no copy in, one str out), and
 * nb::ndarray<const double, nb::c_contig, nb::device::cpu> for the numpy array (a view, no
 * copy).
 */
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string_view.h>

#include <string_view>

#include "kernels.h"

namespace nb = nanobind;

NB_MODULE(nanobind_ext, m) {
  m.doc() = "The nanobind bindings of the call-latency benchmark.";
  m.def("nop", []() { mxb_nop(); });
  m.def(
      "add_int", [](int64_t a, int64_t b) { return mxb_add_int(a, b); }, nb::arg("a"),
      nb::arg("b"));
  m.def("add_float", [](double a, double b) { return mxb_add_float(a, b); });
  m.def("echo_str", [](std::string_view s) {
    mxb_str_t r = mxb_echo_str(s.data(), s.size());
    return std::string_view(r.data, r.size);
  });
  m.def("str_len", [](std::string_view s) { return mxb_str_len(s.data(), s.size()); });
  m.def("sum3",
        [](int64_t a, double b, std::string_view s) { return mxb_sum3(a, b, s.data(), s.size()); });
  m.def("first_f64", [](nb::ndarray<const double, nb::c_contig, nb::device::cpu> a) {
    return mxb_first_f64(a.data(), static_cast<int64_t>(a.size()));
  });
  using Array = nb::ndarray<const double, nb::c_contig, nb::device::cpu>;
  m.def("first8",
        [](Array a0, Array a1, Array a2, Array a3, Array a4, Array a5, Array a6, Array a7) {
          const double* data[8] = {a0.data(), a1.data(), a2.data(), a3.data(),
                                   a4.data(), a5.data(), a6.data(), a7.data()};
          int64_t size[8];
          const Array* in[8] = {&a0, &a1, &a2, &a3, &a4, &a5, &a6, &a7};
          for (int i = 0; i < 8; ++i) size[i] = static_cast<int64_t>(in[i]->size());
          return mxb_first8(data, size);
        });
}
