/*!
 * \file np_ufunc.h
 * \brief The bodies every np.* ufunc shares (np_elemwise.cc): operands that are arrays or
 *  Python numbers (NEP 50), numpy's dtype= and out= rules, one Invoke of the op. The np.*
 *  elementwise functions of np_elemwise.cc and np_math.cc are registered through them.
 */
#ifndef MXFFI_SRC_API_NP_UFUNC_H_
#define MXFFI_SRC_API_NP_UFUNC_H_

#include <mxffi/api/arg_types.h>
#include <mxffi/op/op.h>

#include "../op/elemwise/elemwise.h"

namespace mxffi {
namespace api {

/*! \brief The ops behind one binary np function. */
struct BinaryOps {
  const Op* array;    // _npi_<op>: two arrays
  const Op* scalar;   // _npi_<op>_scalar: array op number
  const Op* rscalar;  // _npi_r<op>_scalar: number op array
};

/*!
 * \return the binary op kind of x1 and x2 (arrays or numbers, broadcast together), computed
 *  in dtype= when given, written into out= when given (numpy's same_kind casting).
 */
NDArray BinaryAPI(op::BinaryKind kind, const BinaryOps& ops, ArrayOrScalar* x1, ArrayOrScalar* x2,
                  const Optional<WritableArray>& out_arg, const DTypeLike& dtype_arg);

/*!
 * \return the unary op kind (the registered op unary) of x (an array or a number), computed in
 *  dtype= when given (for the ops with a bool result: dtype=bool only), written into out= when
 *  given.
 */
NDArray UnaryAPI(op::UnaryKind kind, const Op* unary, ArrayOrScalar* x_arg,
                 const Optional<WritableArray>& out_arg, const DTypeLike& dtype_arg);

/*!
 * \brief BinaryAPI and UnaryAPI of operands that may be Python complex numbers: a complex
 *  number becomes a 0-d array of the complex dtype numpy gives it next to the other operand
 *  (NEP 50: complex64 next to float16, bfloat16, float32 or complex64 arrays, else complex128),
 *  on that operand's device.
 */
NDArray BinaryAPI(op::BinaryKind kind, const BinaryOps& ops, ArrayOrNumber* x1, ArrayOrNumber* x2,
                  const Optional<WritableArray>& out_arg, const DTypeLike& dtype_arg);
NDArray UnaryAPI(op::UnaryKind kind, const Op* unary, ArrayOrNumber* x_arg,
                 const Optional<WritableArray>& out_arg, const DTypeLike& dtype_arg);

}  // namespace api
}  // namespace mxffi

/*! \brief Registers np.<Name> as the unary op OpName of kind Kind, with out= and dtype=. */
#define MXFFI_NP_UNARY(Name, Kind, OpName, Doc)                                           \
  MXFFI_REGISTER_API("np." Name)                                                          \
      .describe(Doc                                                                       \
                " x is an array or a number; out= is an mxffi array to write into, "      \
                "dtype= the dtype to compute in (numpy's ufunc rules).")                  \
      .arg("x")                                                                           \
      .arg("out", nullptr)                                                                \
      .arg("dtype", nullptr)                                                              \
      .set_body_typed([](ArrayOrNumber x, Optional<WritableArray> out, DTypeLike dtype) { \
        static const Op* op = Op::Get(OpName);                                            \
        return UnaryAPI(Kind, op, &x, out, dtype);                                        \
      })

/*!
 * \brief Registers np.<Name> as the binary ops ArrayOp (two arrays), ScalarOp (array op number)
 *  and RScalarOp (number op array) of kind Kind, with out= and dtype=.
 */
#define MXFFI_NP_BINARY(Name, Kind, ArrayOp, ScalarOp, RScalarOp, Doc)                           \
  MXFFI_REGISTER_API("np." Name)                                                                 \
      .describe(Doc                                                                              \
                " x1 and x2 are arrays or numbers and broadcast together; out= is an mxffi "     \
                "array to write into, dtype= the dtype to compute in (numpy's ufunc rules).")    \
      .arg("x1")                                                                                 \
      .arg("x2")                                                                                 \
      .arg("out", nullptr)                                                                       \
      .arg("dtype", nullptr)                                                                     \
      .set_body_typed(                                                                           \
          [](ArrayOrNumber x1, ArrayOrNumber x2, Optional<WritableArray> out, DTypeLike dtype) { \
            static const BinaryOps ops{Op::Get(ArrayOp), Op::Get(ScalarOp), Op::Get(RScalarOp)}; \
            return BinaryAPI(Kind, ops, &x1, &x2, out, dtype);                                   \
          })

// Array-API and numpy names of the ops of binary_ops.def; a number first runs
// `_npi_<op>_scalar` for the symmetric ops and `_npi_r<op>_scalar` for the others.
#define MXFFI_NP_BINARY_SYM(Name, Kind, Stem, Doc) \
  MXFFI_NP_BINARY(Name, Kind, "_npi_" Stem, "_npi_" Stem "_scalar", "_npi_" Stem "_scalar", Doc)
#define MXFFI_NP_BINARY_ASYM(Name, Kind, Stem, Doc) \
  MXFFI_NP_BINARY(Name, Kind, "_npi_" Stem, "_npi_" Stem "_scalar", "_npi_r" Stem "_scalar", Doc)

#endif  // MXFFI_SRC_API_NP_UFUNC_H_
