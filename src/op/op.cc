/*!
 * \file op.cc
 * \brief The op registry, attribute tables and parameter parsing helpers (the ops.* globals are
 *  in src/api/ops_api.cc).
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
  // The op first registered under each name: what Get returns even after Replace rebinds the
  // name, so that C++ code filling an op's parameter struct never reaches a replacement whose
  // parameters are another type.
  std::map<std::string, Op*, std::less<>> first;
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
  const Op* op = nullptr;
  {
    OpRegistryState& st = State();
    std::lock_guard<std::mutex> lock(st.mutex);
    auto it = st.first.find(name);
    if (it != st.first.end() && !st.pending.count(it->second)) op = it->second;
  }
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
  st.first.emplace(op.name, &op);  // kept if the name is taken already
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

/*!
 * \brief Unregister the ops a refused library registered (library.load rolls it back): their
 *  names find nothing again. The Op records stay, unreachable, as the library's code does.
 */
void RemoveOps(const std::vector<std::string>& names) {
  OpRegistryState& st = State();
  std::lock_guard<std::mutex> lock(st.mutex);
  for (const std::string& name : names) {
    auto it = st.by_name.find(name);
    if (it == st.by_name.end()) continue;
    st.pending.erase(it->second);
    auto f = st.first.find(name);
    if (f != st.first.end() && f->second == it->second) st.first.erase(f);
    st.by_name.erase(it);
  }
}

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
             attr_name == "TWriteInplace" || attr_name == "TCOOInputs") {
    const bool* b = std::any_cast<bool>(v);
    bool& flag = attr_name == "TStridedInputs"     ? c.strided_inputs
                 : attr_name == "TSparseSameShape" ? c.sparse_same_shape
                 : attr_name == "TCOOInputs"       ? c.coo_inputs
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

}  // namespace mxffi
