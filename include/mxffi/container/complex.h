/*!
 * \file mxffi/container/complex.h
 * \brief Complex numbers in cells: borrowed as an argument (kMXFFIComplexView, two doubles the
 *  caller owns) or owned (a Complex object, layout MXFFIComplexObj), and std::complex<double>
 *  parameters and results.
 */
#ifndef MXFFI_CONTAINER_COMPLEX_H_
#define MXFFI_CONTAINER_COMPLEX_H_

#include <mxffi/any.h>

#include <complex>
#include <optional>
#include <string>

namespace mxffi {

/*! \brief Payload of a Complex object: one complex128 number. */
class ComplexObj : public Object {
 public:
  double real = 0.0;
  double imag = 0.0;

  static constexpr const char* _type_key = "mxffi.Complex";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(ComplexObj, Object, kMXFFIComplex);
};

namespace details {

/*!
 * \brief A complex cell (borrowed or owned) into out; false for any other cell (numbers that
 *  are not complex included).
 */
inline bool CellComplex(const MXFFIAny* src, std::complex<double>* out) {
  if (src->type_index == kMXFFIComplexView) {
    const double* parts = static_cast<const double*>(src->v_ptr);
    *out = {parts[0], parts[1]};
    return true;
  }
  if (src->type_index == kMXFFIComplex) {
    const auto* c = reinterpret_cast<const MXFFIComplexObj*>(src->v_obj);
    *out = {c->real, c->imag};
    return true;
  }
  return false;
}

/*! \brief An owned Complex object holding v, put into out. */
inline void CellSetComplex(std::complex<double> v, MXFFIAny* out) {
  ObjectPtr<ComplexObj> obj = make_object<ComplexObj>();
  obj->real = v.real();
  obj->imag = v.imag();
  out->type_index = kMXFFIComplex;
  out->small_len = 0;
  out->v_obj = ObjectUnsafe::Header(ObjectPtr<Object>(std::move(obj)).release());
}

}  // namespace details

/*!
 * \brief std::complex<double>: a complex cell, or a bool, int or float (as Python's complex(x));
 *  a result is an owned Complex object.
 */
template <>
struct TypeTraits<std::complex<double>> {
  static void MoveToAny(std::complex<double> v, MXFFIAny* out) { details::CellSetComplex(v, out); }
  static std::optional<std::complex<double>> TryCast(const MXFFIAny* src) {
    std::complex<double> v;
    if (details::CellComplex(src, &v)) return v;
    if (src->type_index == kMXFFIFloat) return std::complex<double>(src->v_float64, 0.0);
    if (src->type_index == kMXFFIInt || src->type_index == kMXFFIBool) {
      return std::complex<double>(static_cast<double>(src->v_int64), 0.0);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "complex"; }
};

}  // namespace mxffi

#endif  // MXFFI_CONTAINER_COMPLEX_H_
