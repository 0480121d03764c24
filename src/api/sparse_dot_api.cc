/*!
 * \file sparse_dot_api.cc
 * \brief sparse.dot: the typed front door of the dot op (mxffi.nd.sparse.dot).
 */
#include <mxffi/registry.h>

#include <string>

#include "../op/sparse/dot_sparse.h"
#include "api_util.h"

namespace mxffi {
namespace api {
namespace {

/*! \return forward_stype (None, "default", "csr" or "row_sparse") as the parameter holds it. */
dmlc::optional<int> ForwardStypeArg(const AnyView& v, const char* fname) {
  if (v.type_index() == kMXFFINone) return dmlc::optional<int>();
  std::optional<std::string_view> s = StrArg(v);
  MXFFI_CHECK(s.has_value(), TypeError)
      << fname << ": forward_stype expected None or a str, got " << v.GetTypeName();
  if (*s == "default") return dmlc::optional<int>(static_cast<int>(StorageType::kDefault));
  if (*s == "csr") return dmlc::optional<int>(static_cast<int>(StorageType::kCSR));
  if (*s == "row_sparse") return dmlc::optional<int>(static_cast<int>(StorageType::kRowSparse));
  MXFFI_THROW(ValueError) << fname
                          << ": forward_stype must be None, 'default', 'csr' or 'row_sparse'; "
                             "got '"
                          << *s << "'";
  __builtin_unreachable();
}

}  // namespace

MXFFI_REGISTER_API("sparse.dot")
    .describe(
        "The matrix product op(lhs) @ op(rhs) of two 2-D arrays of one dtype (float32 or "
        "float64), op transposing when transpose_a / transpose_b is set, as MXNet's sparse dot. "
        "dot(csr, dense) and dot(dense, csr) are dense; dot(csr.T, dense) (transpose_a=True) is "
        "row_sparse, holding the rows of the columns of csr that have a value, or dense when "
        "forward_stype='default'. Other storage types, and forward_stype values the kernel does "
        "not produce, fall back to the dense product (with a warning) and return "
        "forward_stype's storage type, default when None.")
    .arg("lhs")
    .arg("rhs")
    .arg("transpose_a", false)
    .arg("transpose_b", false)
    .arg("forward_stype", nullptr)
    .set_body_typed([](AnyView lhs, AnyView rhs, bool transpose_a, bool transpose_b,
                       AnyView forward_stype) {
      const char* fname = "sparse.dot";
      static const Op* op = Op::Get("dot");
      op::DotParam p;
      p.transpose_a = transpose_a;
      p.transpose_b = transpose_b;
      p.forward_stype = ForwardStypeArg(forward_stype, fname);
      return InvokeOp(op, p, {ArrayArg(lhs, fname, "lhs"), ArrayArg(rhs, fname, "rhs")});
    });

}  // namespace api
}  // namespace mxffi
