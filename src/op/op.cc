/*!
 * \file op.cc
 * \brief The op registry, attribute tables, parameter parsing helpers and the ops.* globals.
 */
#include <mxffi/container/array.h>
#include <mxffi/container/string.h>
#include <mxffi/op/op.h>
#include <mxffi/op/param.h>
#include <mxffi/registry.h>

#include <algorithm>
#include <cctype>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

namespace mxffi {
namespace {

struct OpRegistryState {
  std::mutex mutex;
  std::deque<Op> ops;  // a deque never moves what it holds
  std::map<std::string, Op*, std::less<>> by_name;
  std::map<std::string, std::unique_ptr<details::OpAttrTable>, std::less<>> tables;
  // Ops Extend made before their Register ran: invisible to Find until it does.
  std::set<const Op*> pending;
};

OpRegistryState& State() {
  static auto* state = new OpRegistryState();  // leaked: ops outlive static destruction
  return *state;
}

}  // namespace

std::string TShape::ToString() const {
  std::ostringstream os;
  os << "(";
  for (int i = 0; i < ndim_; ++i) os << (i ? ", " : "") << dims_[i];
  os << (ndim_ == 1 ? ",)" : ")");
  return os.str();
}

namespace details {

void OpAttrTable::Set(int32_t i, std::any value) {
  MXFFI_CHECK(i >= 0 && i < kMaxOps, ValueError) << "op attribute: op index " << i;
  if (static_cast<size_t>(i) >= values_.size()) values_.resize(i + 1);
  values_[i] = std::move(value);
  size_ = std::max(size_, static_cast<size_t>(i) + 1);
}

OpAttrTable* GetOpAttrTable(const std::string& name, const std::type_info& type) {
  OpRegistryState& st = State();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto it = st.tables.find(name);
  if (it == st.tables.end()) {
    it = st.tables.emplace(name, std::make_unique<OpAttrTable>(type)).first;
  }
  return it->second->type() == type ? it->second.get() : nullptr;
}

[[noreturn]] void RethrowParamError(const std::string& op_name, const std::string& what) {
  // dmlc's messages may start with a "[time] file:line: " location and continue with a field
  // table; keep the sentence, and for an unknown argument the names it could have been.
  std::string msg = what;
  size_t hdr = msg.find("] ");
  if (msg.rfind('[', 0) == 0 && hdr != std::string::npos) msg = msg.substr(hdr + 2);
  size_t nl = msg.find('\n');
  std::string head = nl == std::string::npos ? msg : msg.substr(0, nl);
  if (head.find("Possible Arguments") != std::string::npos && nl != std::string::npos) {
    std::string names;
    std::istringstream rest(msg.substr(nl + 1));
    for (std::string line; std::getline(rest, line);) {
      // The table lists "name : type" lines, each followed by indented description lines.
      if (line.empty() || line[0] == ' ' || line.find(" : ") == std::string::npos) continue;
      names += (names.empty() ? " " : ", ") + line.substr(0, line.find(" : "));
    }
    head += names;
  }
  MXFFI_THROW(ValueError) << op_name << ": invalid parameter: " << head;
}

}  // namespace details

const Op* Op::Find(std::string_view name) {
  OpRegistryState& st = State();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto it = st.by_name.find(name);
  return it == st.by_name.end() || st.pending.count(it->second) ? nullptr : it->second;
}

const Op* Op::Get(std::string_view name) {
  const Op* op = Find(name);
  MXFFI_CHECK(op != nullptr, ValueError) << "ops: no op named '" << name << "' is registered";
  return op;
}

std::vector<std::string> Op::ListNames() {
  OpRegistryState& st = State();
  std::lock_guard<std::mutex> lock(st.mutex);
  std::vector<std::string> out;
  for (const auto& kv : st.by_name) {
    if (!st.pending.count(kv.second)) out.push_back(kv.first);
  }
  return out;
}

namespace {

/*! \brief A new op in the registry (the caller holds the lock); nullptr past kMaxOps. */
Op* NewOp(OpRegistryState& st, const char* name) {
  if (st.ops.size() >= static_cast<size_t>(kMaxOps)) {
    details::RecordRegistrationError(std::string("op '") + name + "': more than " +
                                     std::to_string(kMaxOps) + " ops");
    return nullptr;
  }
  st.ops.emplace_back();
  Op& op = st.ops.back();
  op.name = name;
  op.index = static_cast<int32_t>(st.ops.size() - 1);
  st.by_name.emplace(op.name, &op);
  return &op;
}

Op& OverflowOp() {
  static Op* overflow = new Op();
  return *overflow;
}

}  // namespace

Op& Op::Extend(const char* name) {
  OpRegistryState& st = State();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto it = st.by_name.find(name);
  if (it != st.by_name.end()) return *it->second;
  Op* op = NewOp(st, name);
  if (op == nullptr) return OverflowOp();
  st.pending.insert(op);
  return *op;
}

Op& Op::Register(const char* name) {
  OpRegistryState& st = State();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto it = st.by_name.find(name);
  if (it != st.by_name.end() && st.pending.erase(it->second)) {
    // Extended first (static initialisers run in no set order across files): register it now.
    details::CountRegistration();
    return *it->second;
  }
  if (it != st.by_name.end()) {
    // Static initialisers cannot throw: record it for library.load, and hand back a scratch
    // op that nothing can reach, so the chained setters leave the first registration alone.
    details::RecordRegistrationError(std::string("op '") + name +
                                     "' is already registered; a second registration is ignored");
    static std::deque<Op>* scratch = new std::deque<Op>();
    scratch->emplace_back();
    scratch->back().name = name;
    scratch->back().index = -1;
    return scratch->back();
  }
  Op* op = NewOp(st, name);
  if (op == nullptr) return OverflowOp();
  details::CountRegistration();
  return *op;
}

namespace details {

/*! \brief How many more ops fit in the registry (library.load checks before registering). */
int64_t OpSlotsLeft() {
  OpRegistryState& st = State();
  std::lock_guard<std::mutex> lock(st.mutex);
  return kMaxOps - static_cast<int64_t>(st.ops.size());
}

}  // namespace details

Op& Op::Replace(const char* name) {
  OpRegistryState& st = State();
  std::lock_guard<std::mutex> lock(st.mutex);
  auto it = st.by_name.find(name);
  if (it != st.by_name.end()) {
    st.pending.erase(it->second);
    st.by_name.erase(it);
  }
  Op* op = NewOp(st, name);
  if (op == nullptr) return OverflowOp();
  details::CountRegistration();
  return *op;
}

void Op::SetAttr(const std::string& attr_name, const std::type_info& type, std::any value) {
  if (index < 0) return;  // a refused registration
  details::OpAttrTable* table = details::GetOpAttrTable(attr_name, type);
  if (table == nullptr) {
    details::RecordRegistrationError("op '" + name + "': attribute '" + attr_name +
                                     "' was registered with another type before");
    return;
  }
  std::lock_guard<std::mutex> lock(State().mutex);
  table->Set(index, std::move(value));
  // Each any_cast is nullptr when the attribute was first registered with another type.
  const std::any* v = table->Get(index);
  CallAttrs& c = call_attrs_;
  if (attr_name == "FInferShape") {
    c.infer_shape = std::any_cast<FInferShape>(v);
  } else if (attr_name == "FInferType") {
    c.infer_type = std::any_cast<FInferType>(v);
  } else if (attr_name == "FInferStorageType") {
    c.infer_storage_type = std::any_cast<FInferStorageType>(v);
  } else if (attr_name == "FCompute<cpu>" || attr_name == "FCompute<gpu>") {
    c.compute[attr_name == "FCompute<gpu>"] = std::any_cast<FCompute>(v);
  } else if (attr_name == "FComputeEx<cpu>" || attr_name == "FComputeEx<gpu>") {
    c.compute_ex[attr_name == "FComputeEx<gpu>"] = std::any_cast<FComputeEx>(v);
  } else if (attr_name == "TStridedInputs" || attr_name == "TSparseSameShape" ||
             attr_name == "TWriteInplace") {
    const bool* b = std::any_cast<bool>(v);
    bool& flag = attr_name == "TStridedInputs"     ? c.strided_inputs
                 : attr_name == "TSparseSameShape" ? c.sparse_same_shape
                                                   : c.write_inplace;
    flag = b != nullptr && *b;
  }
}

std::istream& operator>>(std::istream& is, TShape& shape) {
  // Accept "(3, 4)", "[3,4]", "(3,)", "()", "3" and "None" (an empty shape).
  std::string text((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  TShape out;
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skip();
  char close = 0;
  if (i < text.size() && (text[i] == '(' || text[i] == '[')) close = text[i++] == '(' ? ')' : ']';
  for (;;) {
    skip();
    if (i >= text.size() || text[i] == close) break;
    size_t used = 0;
    long long v = 0;  // NOLINT(runtime/int)
    try {
      v = std::stoll(text.substr(i), &used);
    } catch (const std::exception&) {
      is.setstate(std::ios::failbit);
      return is;
    }
    out.push_back(v);
    i += used;
    skip();
    if (i < text.size() && text[i] == ',') ++i;
  }
  if (close != 0 && (i >= text.size() || text[i] != close)) {
    is.setstate(std::ios::failbit);
    return is;
  }
  if (close != 0) ++i;
  skip();
  if (i != text.size()) {
    is.setstate(std::ios::failbit);
    return is;
  }
  shape = out;
  is.clear(std::ios::eofbit);
  return is;
}

std::istream& operator>>(std::istream& is, DTypeParam& dtype) {
  std::string text;
  is >> text;
  if (text == "None") {
    dtype = DTypeParam();
    return is;
  }
  try {
    dtype = DTypeParam(DataTypeFromString(text, "dtype"));
  } catch (const Error&) {
    is.setstate(std::ios::failbit);
  }
  return is;
}

std::ostream& operator<<(std::ostream& os, const DTypeParam& dtype) {
  return os << (dtype.is_none ? std::string("None") : DataTypeToString(dtype.dtype));
}

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
