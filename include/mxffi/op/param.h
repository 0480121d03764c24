/*!
 * \file mxffi/op/param.h
 * \brief Op parameters as dmlc::Parameter structs, and the field types ops share.
 *
 * API functions fill a parameter struct straight from typed arguments; parsing from strings
 * (Op::set_param, ParseParam) is for generic invocation by name and custom op libraries only.
 * dmlc's parameter errors become ValueError naming the op, the parameter and the value.
 */
#ifndef MXFFI_OP_PARAM_H_
#define MXFFI_OP_PARAM_H_

#include <dmlc/parameter.h>
#include <mxffi/op/op.h>

#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace mxffi {

/*! \brief Read a shape or axis tuple: "(3, 4)", "[3,4]", "(3,)", "()" or a single "3". */
MXFFI_DLL std::istream& operator>>(std::istream& is, TShape& shape);
/*! \brief Write a tuple as numpy prints it: "(3, 4)". */
inline std::ostream& operator<<(std::ostream& os, const TShape& shape) {
  return os << shape.ToString();
}

/*! \brief A dtype parameter: any name DataTypeFromString reads; "None" means unset. */
struct DTypeParam {
  DLDataType dtype{kDLFloat, 64, 1};
  bool is_none = true;

  DTypeParam() = default;
  DTypeParam(DLDataType t) : dtype(t), is_none(false) {}  // NOLINT(runtime/explicit)
  bool operator==(const DTypeParam& o) const {
    return is_none == o.is_none &&
           (is_none || (dtype.code == o.dtype.code && dtype.bits == o.dtype.bits &&
                        dtype.lanes == o.dtype.lanes));
  }
};
MXFFI_DLL std::istream& operator>>(std::istream& is, DTypeParam& dtype);
MXFFI_DLL std::ostream& operator<<(std::ostream& os, const DTypeParam& dtype);

}  // namespace mxffi

namespace dmlc {
DMLC_DECLARE_TYPE_NAME(mxffi::TShape, "tuple of ints");
DMLC_DECLARE_TYPE_NAME(mxffi::DTypeParam, "dtype");
}  // namespace dmlc

namespace mxffi {
namespace details {

/*! \brief Turn a dmlc::ParamError raised while parsing op's parameters into a ValueError. */
[[noreturn]] MXFFI_DLL void RethrowParamError(const std::string& op_name, const std::string& what);

}  // namespace details

/*!
 * \brief Parse "name=value" strings into P, checking ranges and filling defaults.
 * \throws ValueError naming op_name, the parameter and the value.
 */
template <typename P>
P ParseParam(const std::string& op_name,
             const std::vector<std::pair<std::string, std::string>>& kwargs) {
  P param;
  try {
    param.Init(kwargs);
  } catch (const dmlc::ParamError& e) {
    details::RethrowParamError(op_name, e.what());
  } catch (const dmlc::Error& e) {
    details::RethrowParamError(op_name, e.what());
  }
  return param;
}

template <typename P>
inline Op& Op::set_param() {
  std::string op_name = name;
  set_attr<FParamParse>("FParamParse",
                        [op_name](const std::vector<std::pair<std::string, std::string>>& kwargs)
                            -> std::shared_ptr<const void> {
                          return std::make_shared<P>(ParseParam<P>(op_name, kwargs));
                        });
  set_attr<FParamDict>("FParamDict", [](const void* param) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& kv : static_cast<const P*>(param)->__DICT__()) out.emplace_back(kv);
    return out;
  });
  for (const dmlc::ParamFieldInfo& f : P::__FIELDS__()) {
    param_doc += "\n  " + f.name + " : " + f.type_info_str;
    if (!f.description.empty()) param_doc += "\n      " + f.description;
  }
  return *this;
}

}  // namespace mxffi

#endif  // MXFFI_OP_PARAM_H_
