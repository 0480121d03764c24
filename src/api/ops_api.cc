/*!
 * \file ops_api.cc
 * \brief The ops.* globals: invoking a registered op by name, asking how it would dispatch, and
 *  listing and describing the registered ops.
 */
#include <mxffi/container/array.h>
#include <mxffi/container/string.h>
#include <mxffi/op/op.h>
#include <mxffi/op/storage.h>
#include <mxffi/registry.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mxffi {
namespace {

/*! \brief An op call spelled as ops.invoke takes it: (name, num_inputs, *inputs, *params). */
struct CallByName {
  OpAttrs attrs;
  std::vector<NDArray> inputs;
  std::shared_ptr<const void> param;
};

CallByName ParseByName(PackedArgs args, const char* fname) {
  MXFFI_CHECK(args.size() >= 2, TypeError)
      << fname << ": expected (name, num_inputs, *inputs, *params), got " << args.size()
      << " arguments";
  std::optional<std::string> op_name = args[0].try_cast<std::string>();
  MXFFI_CHECK(op_name.has_value(), TypeError)
      << fname << ": the op name expected a str, got " << args[0].GetTypeName();
  const std::string& name = *op_name;
  const Op* op = Op::Find(name);
  MXFFI_CHECK(op != nullptr, ValueError) << fname << ": no op named '" << name << "' is registered";
  std::optional<int64_t> count = args[1].try_cast<int64_t>();
  MXFFI_CHECK(count.has_value(), TypeError)
      << fname << ": num_inputs expected an int, got " << args[1].GetTypeName();
  int64_t num_inputs = *count;
  MXFFI_CHECK(num_inputs >= 0 && 2 + num_inputs <= static_cast<int64_t>(args.size()), TypeError)
      << fname << ": num_inputs=" << num_inputs << " but only " << args.size() - 2
      << " values follow";
  // An op of a fixed arity is checked before its parameters are read; one whose input count
  // comes from its parameters, by Invoke.
  MXFFI_CHECK(op->variable_inputs() || num_inputs == op->num_inputs, TypeError)
      << name << ": expected " << op->num_inputs << " input(s), got " << num_inputs;
  CallByName call;
  std::vector<NDArray>& inputs = call.inputs;
  for (int64_t i = 0; i < num_inputs; ++i) {
    AnyView v = args[2 + i];
    if (auto a = v.try_cast<NDArray>()) {
      inputs.push_back(*a);
    } else if (auto t = v.try_cast<DLTensor*>()) {
      inputs.push_back(NDArray::FromBorrowed(**t));
    } else {
      MXFFI_THROW(TypeError) << name << ": input #" << i << " expected an ndarray, got "
                             << v.GetTypeName();
    }
  }
  size_t rest = args.size() - 2 - num_inputs;
  MXFFI_CHECK(rest % 2 == 0, TypeError) << fname << ": parameters must come as key/value pairs";
  std::vector<std::pair<std::string, std::string>> kwargs;
  bool count_given = false;
  for (int64_t i = 2 + num_inputs; i < static_cast<int64_t>(args.size()); i += 2) {
    kwargs.emplace_back(args[i].cast<std::string>(), args[i + 1].cast<std::string>());
    count_given |= !op->key_var_num_args.empty() && kwargs.back().first == op->key_var_num_args;
  }
  // add_n(a, b, c) means num_args=3: the count parameter defaults to the inputs given.
  if (!op->key_var_num_args.empty() && !count_given) {
    kwargs.emplace_back(op->key_var_num_args, std::to_string(num_inputs));
  }
  OpAttrs& attrs = call.attrs;
  attrs.op = op;
  if (const FParamParse* parse = op->attr<FParamParse>("FParamParse")) {
    call.param = (*parse)(kwargs);
    attrs.param = call.param.get();
  } else if (!kwargs.empty()) {
    MXFFI_THROW(TypeError) << name << ": takes no parameters, got '" << kwargs[0].first << "'";
  }
  return call;
}

/*!
 * \brief ops.invoke(name, num_inputs, *inputs, *("key", "value") pairs): generic invocation by
 *  name; the only place op parameters travel as strings. Returns the output, or a list of them.
 */
void InvokeByName(PackedArgs args, Any* ret) {
  CallByName call = ParseByName(args, "ops.invoke");
  const Op* op = call.attrs.op;
  const OpAttrs& attrs = call.attrs;
  const std::vector<NDArray>& inputs = call.inputs;
  std::vector<NDArray> outputs(op->num_outputs);
  Invoke(attrs, inputs, outputs);
  if (outputs.size() == 1) {
    *ret = outputs[0];
  } else {
    Array<Any> out;
    for (auto& o : outputs) out.push_back(o);
    *ret = out;
  }
}

}  // namespace

MXFFI_REGISTER_API("ops.invoke")
    .describe(
        "Invoke a registered op by name: (name, num_inputs, *inputs, *key/value string pairs). "
        "mxffi.ops.invoke(name, *inputs, **params) wraps it.")
    .set_body(InvokeByName);

MXFFI_REGISTER_API("ops.dispatch")
    .describe(
        "How ops.invoke with the same arguments would run, without running it: (dispatch mode, "
        "output storage types); the mode is fcompute, fcompute_ex or fallback.")
    .set_body([](PackedArgs args, Any* ret) {
      CallByName call = ParseByName(args, "ops.dispatch");
      std::vector<StorageType> out(call.attrs.op->num_outputs);
      DispatchMode mode = InferDispatch(call.attrs, call.inputs, out);
      const char* name = mode == DispatchMode::kFCompute           ? "fcompute"
                         : mode == DispatchMode::kFComputeEx       ? "fcompute_ex"
                         : mode == DispatchMode::kFComputeFallback ? "fallback"
                                                                   : "undefined";
      Array<String> stypes;
      for (StorageType s : out) stypes.push_back(String(StorageTypeName(s)));
      Array<Any> result;
      result.push_back(String(name));
      result.push_back(stypes);
      *ret = result;
    });

MXFFI_REGISTER_API("ops.list")
    .describe("The names of every registered op, sorted.")
    .set_body_typed([]() {
      Array<String> out;
      for (const std::string& n : Op::ListNames()) out.push_back(String(n));
      return out;
    });

MXFFI_REGISTER_API("ops.info")
    .describe(
        "(description, num_inputs, num_outputs, argument names, parameter doc, kernels, "
        "num_inputs_param) of an op; kernels names the FCompute/FComputeEx kernels it has, by "
        "device. An op taking any number of inputs has num_inputs -1, and num_inputs_param "
        "names the parameter giving the number (\"\" for an op of a fixed arity).")
    .arg("name")
    .set_body_typed([](std::string name) {
      const Op* op = Op::Find(name);
      MXFFI_CHECK(op != nullptr, ValueError)
          << "ops.info: no op named '" << name << "' is registered";
      Array<String> args;
      for (const auto& a : op->arguments) args.push_back(String(a.name));
      Array<Any> out;
      out.push_back(String(op->description));
      out.push_back(op->variable_inputs() ? int64_t{-1} : static_cast<int64_t>(op->num_inputs));
      out.push_back(static_cast<int64_t>(op->num_outputs));
      out.push_back(args);
      out.push_back(String(op->param_doc));
      // The kernels the op has, by device: what it can run on, and on which storage types.
      const Op::CallAttrs& call = op->call_attrs();
      Array<String> kernels;
      if (call.compute[0] != nullptr) kernels.push_back(String("FCompute<cpu>"));
      if (call.compute_ex[0] != nullptr) kernels.push_back(String("FComputeEx<cpu>"));
      if (call.compute[1] != nullptr) kernels.push_back(String("FCompute<gpu>"));
      if (call.compute_ex[1] != nullptr) kernels.push_back(String("FComputeEx<gpu>"));
      out.push_back(kernels);
      out.push_back(String(op->key_var_num_args));
      return out;
    });

}  // namespace mxffi
