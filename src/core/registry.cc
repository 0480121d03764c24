/*!
 * \file registry.cc
 * \brief The global function table, the MXFFI_REGISTER_API builder, signature queries,
 *  the C ABI for globals, and loading of REGISTER_API libraries.
 */
#include <mxffi/container/map.h>
#include <mxffi/registry.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace mxffi {
namespace details {
namespace {

struct Entry {
  Function func;
  std::shared_ptr<const FuncInfo> info;
};

/*!
 * \brief Per-thread record of registrations, read by library.load around dlopen (a library's
 *  static initialisers run on the thread that opens it).
 */
struct RegistrationLog {
  std::vector<std::string> errors;
  int64_t published = 0;
  /*! \brief Inside library.load: every change to the table is journaled, to be undone. */
  bool loading = false;
  /*! \brief Whether the library being loaded may replace existing globals (override=True). */
  bool allow_replace = true;
  /*! \brief (name, what it held before) for each change, in order. */
  std::vector<std::pair<std::string, std::optional<Entry>>> journal;
};
RegistrationLog& Log() {
  static thread_local RegistrationLog log;
  return log;
}

/*! \brief Why GlobalTable::Set refused. */
enum class SetResult { kOk, kTaken, kReplaceRefused };

class GlobalTable {
 public:
  static GlobalTable* Global() {
    static auto* table = new GlobalTable();  // lives for the process
    return table;
  }
  /*!
   * \brief Insert; on a clash without override, or with override while a library loaded
   *  without override=True registers, refuses and leaves the table as is.
   */
  SetResult Set(const std::string& name, Function f, std::shared_ptr<const FuncInfo> info,
                bool override) {
    RegistrationLog& log = Log();
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = table_.find(name);
    if (it != table_.end() && !override) return SetResult::kTaken;
    if (it != table_.end() && log.loading && !log.allow_replace) {
      return SetResult::kReplaceRefused;
    }
    if (log.loading) {
      log.journal.emplace_back(
          name, it == table_.end() ? std::nullopt : std::optional<Entry>(it->second));
    }
    table_[name] = Entry{std::move(f), std::move(info)};
    return SetResult::kOk;
  }
  bool Get(std::string_view name, Entry* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = table_.find(name);
    if (it == table_.end()) return false;
    *out = it->second;
    return true;
  }
  std::vector<std::string> Names() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::string> names;
    names.reserve(table_.size());
    for (const auto& kv : table_) names.push_back(kv.first);
    return names;  // std::map: already sorted
  }
  /*! \brief Put back what each journaled change replaced, newest first. */
  void Undo(const std::vector<std::pair<std::string, std::optional<Entry>>>& journal) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = journal.rbegin(); it != journal.rend(); ++it) {
      if (it->second.has_value()) {
        table_[it->first] = *it->second;
      } else {
        table_.erase(it->first);
      }
    }
  }

 private:
  std::mutex mutex_;
  std::map<std::string, Entry, std::less<>> table_;
};

const char* kReplaceRefused =
    "is already registered (built in, or from another library); a library may replace it "
    "with .allow_override() only when loaded with override=True";

}  // namespace

std::vector<std::string> TakeRegistrationErrors() {
  std::vector<std::string> out;
  std::swap(out, Log().errors);
  return out;
}

int64_t RegistrationCount() { return Log().published; }

void RecordRegistrationError(const std::string& message) {
  Log().errors.push_back(message);
  std::cerr << "mxffi: " << message << std::endl;
}

void CountRegistration() { ++Log().published; }

void BeginLibraryLoad(bool allow_replace) {
  RegistrationLog& log = Log();
  log.loading = true;
  log.allow_replace = allow_replace;
  log.journal.clear();
}

std::vector<std::string> EndLibraryLoad(bool rollback) {
  RegistrationLog& log = Log();
  std::vector<std::pair<std::string, std::optional<Entry>>> journal;
  journal.swap(log.journal);
  log.loading = false;
  log.allow_replace = true;
  if (rollback) GlobalTable::Global()->Undo(journal);
  std::set<std::string> names;
  for (const auto& change : journal) names.insert(change.first);
  return std::vector<std::string>(names.begin(), names.end());
}

std::vector<std::string> ListGlobalNames() { return GlobalTable::Global()->Names(); }

std::shared_ptr<const FuncInfo> GetFuncInfo(std::string_view name) {
  Entry e;
  if (!GlobalTable::Global()->Get(name, &e)) return nullptr;
  return e.info;
}

}  // namespace details

Function Function::GetGlobal(std::string_view name) {
  details::Entry e;
  if (!details::GlobalTable::Global()->Get(name, &e)) return Function();
  return e.func;
}

Function Function::GetGlobalRequired(std::string_view name) {
  Function f = GetGlobal(name);
  if (!f.defined()) MXFFI_THROW(ValueError) << "no global function named '" << name << "'";
  return f;
}

void Function::SetGlobal(std::string_view name, Function f, bool override) {
  if (name.empty()) MXFFI_THROW(ValueError) << "SetGlobal: the name of a global is empty";
  if (!f.defined()) MXFFI_THROW(ValueError) << "SetGlobal: function for '" << name << "' is null";
  auto info = std::make_shared<FuncInfo>();
  info->name = std::string(name);
  switch (details::GlobalTable::Global()->Set(info->name, std::move(f), info, override)) {
    case details::SetResult::kOk:
      // Counted like MXFFI_REGISTER_API: a library registering through the C ABI alone from
      // its initialiser is a REGISTER_API library to library.load.
      details::CountRegistration();
      return;
    case details::SetResult::kTaken:
      MXFFI_THROW(ValueError) << "global function '" << name
                              << "' is already registered; pass override to replace it";
    case details::SetResult::kReplaceRefused:
      MXFFI_THROW(ValueError) << "global function '" << name << "' " << details::kReplaceRefused;
  }
}

Registry::Registry(std::string name, int32_t abi_major)
    : info_(std::make_shared<FuncInfo>()), abi_major_(abi_major) {
  info_->name = std::move(name);
}

Registry& Registry::Register(const char* name, int32_t abi_major) {
  // Builders live as long as the process (MXFFI_REGISTER_API binds a static reference, and a
  // refused one must outlive its library too), so they are kept in one list for good.
  static auto* builders = new std::vector<std::unique_ptr<Registry>>();
  static auto* builders_mutex = new std::mutex();
  Registry* reg;
  {
    std::lock_guard<std::mutex> lock(*builders_mutex);
    builders->emplace_back(new Registry(name ? name : "", abi_major));
    reg = builders->back().get();
  }
  if (abi_major != MXFFI_VERSION_MAJOR) {
    reg->Fail("was compiled against mxffi C ABI major version " + std::to_string(abi_major) +
              ", but this libmxffi has ABI major version " + std::to_string(MXFFI_VERSION_MAJOR) +
              "; rebuild it against these headers");
  }
  return *reg;
}

void Registry::Fail(const std::string& what) {
  if (failed_) return;
  failed_ = true;
  std::string msg = "MXFFI_REGISTER_API(\"" + info_->name + "\") " + what;
  details::Log().errors.push_back(msg);
  std::cerr << "mxffi: " << msg << std::endl;
}

Registry& Registry::describe(std::string doc) {
  info_->doc = std::move(doc);
  return *this;
}

Registry& Registry::arg(std::string name) { return AddArg(std::move(name), Any(), false); }

Registry& Registry::AddArg(std::string name, Any default_value, bool has_default) {
  if (published_) {
    Fail("declares argument '" + name + "' after set_body; declare arguments first");
    return *this;
  }
  if (!has_default && !info_->defaults.empty()) {
    Fail("argument '" + name + "' has no default but follows an argument with one");
    return *this;
  }
  info_->arg_names.push_back(std::move(name));
  if (has_default) info_->defaults.push_back(std::move(default_value));
  return *this;
}

Registry& Registry::positional_only() {
  if (info_->num_positional_only != 0 || info_->first_keyword_only >= 0) {
    Fail("calls positional_only() after positional_only(), keyword_only() or arg_variadic()");
    return *this;
  }
  info_->num_positional_only = static_cast<int32_t>(info_->arg_names.size());
  return *this;
}

Registry& Registry::keyword_only() {
  if (info_->first_keyword_only >= 0) {
    Fail("calls keyword_only() after keyword_only() or arg_variadic()");
    return *this;
  }
  info_->first_keyword_only = static_cast<int32_t>(info_->arg_names.size());
  return *this;
}

Registry& Registry::arg_variadic(std::string name) {
  if (info_->first_keyword_only >= 0) {
    Fail("declares variadic argument '" + name +
         "' after keyword_only() or another arg_variadic(); it must come before both");
    return *this;
  }
  if (!info_->defaults.empty()) {
    Fail("declares variadic argument '" + name + "' after an argument with a default");
    return *this;
  }
  const int32_t index = static_cast<int32_t>(info_->arg_names.size());
  AddArg(std::move(name), Any(), false);
  if (failed_) return *this;
  info_->variadic_index = index;
  info_->first_keyword_only = index + 1;
  return *this;
}

Registry& Registry::returns_list() {
  info_->returns_list = true;
  return *this;
}

Registry& Registry::set_long_running(bool value) {
  info_->long_running = value;
  return *this;
}

Registry& Registry::allow_override(bool value) {
  override_ = value;
  return *this;
}

Registry& Registry::Publish(Function f, int32_t num_args, std::vector<std::string> arg_types,
                            std::string return_type) {
  if (failed_) return *this;
  if (published_) {
    Fail("sets its body twice");
    return *this;
  }
  if (num_args >= 0 && !info_->arg_names.empty() &&
      static_cast<int32_t>(info_->arg_names.size()) != num_args) {
    Fail("names " + std::to_string(info_->arg_names.size()) + " arguments but its body takes " +
         std::to_string(num_args));
    return *this;
  }
  if (info_->first_keyword_only < 0) {
    info_->first_keyword_only = static_cast<int32_t>(info_->arg_names.size());
  }
  info_->num_args = num_args;
  info_->arg_types = std::move(arg_types);
  info_->arg_labels.clear();
  for (int32_t i = 0; i < num_args; ++i) {
    info_->arg_labels.push_back(details::ArgContext(info_.get(), i).Label());
  }
  info_->return_type = std::move(return_type);
  switch (details::GlobalTable::Global()->Set(info_->name, std::move(f), info_, override_)) {
    case details::SetResult::kOk:
      break;
    case details::SetResult::kTaken:
      Fail("is already registered; use .allow_override() to replace it");
      return *this;
    case details::SetResult::kReplaceRefused:
      Fail(details::kReplaceRefused);
      return *this;
  }
  published_ = true;
  ++details::Log().published;
  return *this;
}

namespace {

/*! \brief The signature of a global as a Map, for bindings and help(). */
Map<String, Any> FunctionInfoMap(const FuncInfo& info) {
  Array<String> names, types;
  for (const auto& n : info.arg_names) names.push_back(String(n));
  for (const auto& t : info.arg_types) types.push_back(String(t));
  Array<Any> defaults;
  for (const auto& d : info.defaults) defaults.push_back(d);
  Map<String, Any> out;
  out.Set("name", String(info.name));
  out.Set("doc", String(info.doc));
  out.Set("arg_names", names);
  out.Set("arg_types", types);
  out.Set("return_type", String(info.return_type));
  out.Set("defaults", defaults);
  out.Set("num_args", Any(static_cast<int64_t>(info.num_args)));
  out.Set("long_running", Any(info.long_running));
  out.Set("positional_only", Any(static_cast<int64_t>(info.num_positional_only)));
  // A global set without the builder (MXFFIFuncSetGlobal) never had its kinds settled.
  const int64_t keyword_only = info.first_keyword_only >= 0
                                   ? static_cast<int64_t>(info.first_keyword_only)
                                   : static_cast<int64_t>(info.arg_names.size());
  out.Set("keyword_only", Any(keyword_only));
  out.Set("variadic", Any(static_cast<int64_t>(info.variadic_index)));
  out.Set("returns_list", Any(info.returns_list));
  return out;
}

}  // namespace

MXFFI_REGISTER_API("registry.function_info")
    .describe(
        "The registered signature of a global: name, doc, arg_names, arg_types, return_type, "
        "defaults (of the trailing arguments), num_args (-1 for a packed body), long_running, "
        "and how Python passes the arguments: positional_only (how many of the first are), "
        "keyword_only (the index of the first keyword-only one, or the count when none is) and "
        "variadic (the index of the `*name` argument, or -1), and returns_list (Python gets "
        "the Array result as a list).")
    .arg("name")
    .set_body_typed([](std::string_view name) {
      std::shared_ptr<const FuncInfo> info = details::GetFuncInfo(name);
      if (info == nullptr) {
        MXFFI_THROW(KeyError) << "registry.function_info: no global function named '" << name
                              << "'";
      }
      return FunctionInfoMap(*info);
    });

}  // namespace mxffi

using mxffi::details::ObjectUnsafe;

extern "C" {

int MXFFIFuncGetGlobal(const char* name, MXFFIObjectHandle* out) {
  try {
    MXFFI_CHECK(name != nullptr, ValueError) << "MXFFIFuncGetGlobal: name is NULL";
    MXFFI_CHECK(out != nullptr, ValueError) << "MXFFIFuncGetGlobal: out is NULL";
    mxffi::Function f = mxffi::Function::GetGlobal(name);
    *out = nullptr;
    if (f.defined()) {
      auto* obj = const_cast<mxffi::FunctionObj*>(f.get());
      obj->IncRef();
      *out = ObjectUnsafe::Header(obj);
    }
    return 0;
  } catch (...) {
    return mxffi::details::SetErrorFromCurrentException();
  }
}

int MXFFIFuncSetGlobal(const char* name, MXFFIObjectHandle func, int override) {
  try {
    MXFFI_CHECK(name != nullptr, ValueError) << "MXFFIFuncSetGlobal: name is NULL";
    MXFFI_CHECK(name[0] != '\0', ValueError) << "MXFFIFuncSetGlobal: name is empty";
    MXFFI_CHECK(func != nullptr, ValueError)
        << "MXFFIFuncSetGlobal: func is NULL for '" << name << "'";
    mxffi::Object* obj = ObjectUnsafe::FromHeader(func);
    MXFFI_CHECK(obj->IsInstance<mxffi::FunctionObj>(), TypeError)
        << "MXFFIFuncSetGlobal: '" << name << "' expected a Function, got " << obj->GetTypeKey();
    mxffi::Function::SetGlobal(
        name, mxffi::Function(mxffi::ObjectPtr<mxffi::Object>::CopyFromRaw(obj)), override != 0);
    return 0;
  } catch (...) {
    return mxffi::details::SetErrorFromCurrentException();
  }
}

int MXFFIFuncListGlobalNames(MXFFIObjectHandle* out) {
  try {
    MXFFI_CHECK(out != nullptr, ValueError) << "MXFFIFuncListGlobalNames: out is NULL";
    mxffi::Array<mxffi::String> names;
    for (const auto& n : mxffi::details::GlobalTable::Global()->Names()) {
      names.push_back(mxffi::String(n));
    }
    auto* obj = const_cast<mxffi::ArrayObj*>(names.get());
    obj->IncRef();
    *out = ObjectUnsafe::Header(obj);
    return 0;
  } catch (...) {
    return mxffi::details::SetErrorFromCurrentException();
  }
}

}  // extern "C"
