/*!
 * \file object.cc
 * \brief The type table: type keys to indices, and O(1) subtype checks.
 *
 * Each type's info records its ancestors by depth, so "is A derived from B" is one read:
 * ancestors[depth(B)] == B. Infos are published once and never change or move, so readers
 * take no lock; registration takes a mutex.
 */
#include <mxffi/c_api.h>
#include <mxffi/error.h>

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace mxffi {
namespace details {
namespace {

struct TypeInfo {
  std::string key;
  int32_t index;
  int32_t depth;
  bool final;
  std::vector<int32_t> ancestors;  // ancestors[d] is the ancestor at depth d; [depth] is self
};

constexpr int32_t kMaxTypes = 1 << 14;

class TypeTable {
 public:
  static TypeTable* Global() {
    static TypeTable* table = new TypeTable();  // lives for the process: objects outlive main
    return table;
  }

  int32_t Register(const char* key, int32_t static_index, int32_t parent, int32_t depth,
                   bool final) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_key_.find(key);
    if (it != by_key_.end()) return it->second;
    int32_t index = static_index >= 0 ? static_index : next_dynamic_++;
    if (index >= kMaxTypes) {
      MXFFI_THROW(RuntimeError) << "RegisterType: too many types (" << kMaxTypes << ") registering "
                                << key;
    }
    auto* info = new TypeInfo{key, index, depth, final, {}};
    const TypeInfo* parent_info = table_[parent].load(std::memory_order_acquire);
    if (parent_info != nullptr) info->ancestors = parent_info->ancestors;
    info->ancestors.resize(static_cast<size_t>(depth));
    info->ancestors.push_back(index);
    table_[index].store(info, std::memory_order_release);
    by_key_.emplace(key, index);
    return index;
  }

  const TypeInfo* Get(int32_t index) const {
    if (index < 0 || index >= kMaxTypes) return nullptr;
    return table_[index].load(std::memory_order_acquire);
  }

  bool Lookup(const char* key, int32_t* out) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return false;
    *out = it->second;
    return true;
  }

 private:
  TypeTable() {
    for (auto& slot : table_) slot.store(nullptr, std::memory_order_relaxed);
    // Plain value codes get names too, so messages and bindings can name any cell.
    const std::pair<int32_t, const char*> pods[] = {
        {kMXFFINone, "None"},        {kMXFFIInt, "int"},
        {kMXFFIBool, "bool"},        {kMXFFIFloat, "float"},
        {kMXFFIOpaquePtr, "void*"},  {kMXFFIDataType, "DataType"},
        {kMXFFIDevice, "Device"},    {kMXFFIDLTensorPtr, "DLTensor*"},
        {kMXFFIRawStr, "str"},       {kMXFFISmallStr, "str"},
        {kMXFFISmallBytes, "bytes"}, {kMXFFIStrView, "str"},
        {kMXFFIBytesView, "bytes"},  {kMXFFIComplexView, "complex"},
        {kMXFFIUInt64, "int"},       {kMXFFIResultBuffer, "None"},
        {kMXFFIBufferStr, "str"}};
    for (const auto& [code, name] : pods) {
      table_[code].store(new TypeInfo{name, code, 0, true, {code}}, std::memory_order_relaxed);
    }
    Register("mxffi.Object", kMXFFIObject, kMXFFIObject, 0, false);
    const std::pair<int32_t, const char*> objects[] = {
        {kMXFFIString, "mxffi.String"},   {kMXFFIBytes, "mxffi.Bytes"},
        {kMXFFIError, "mxffi.Error"},     {kMXFFIFunction, "mxffi.Function"},
        {kMXFFIArray, "mxffi.Array"},     {kMXFFIMap, "mxffi.Map"},
        {kMXFFIADT, "mxffi.ADT"},         {kMXFFIShape, "mxffi.Shape"},
        {kMXFFINDArray, "mxffi.NDArray"}, {kMXFFILibrary, "mxffi.Library"},
        {kMXFFIComplex, "mxffi.Complex"}};
    for (const auto& [code, key] : objects) {
      Register(key, code, kMXFFIObject, 1, code != kMXFFIFunction && code != kMXFFINDArray);
    }
  }

  std::mutex mutex_;
  std::atomic<const TypeInfo*> table_[kMaxTypes];
  std::unordered_map<std::string, int32_t> by_key_;
  int32_t next_dynamic_ = kMXFFIDynObjectBegin;
};

}  // namespace

int32_t RegisterType(const char* type_key, int32_t static_index, int32_t parent_index,
                     int32_t depth, bool final) {
  return TypeTable::Global()->Register(type_key, static_index, parent_index, depth, final);
}

bool IsDerivedFrom(int32_t child, int32_t parent, int32_t parent_depth) {
  const TypeInfo* info = TypeTable::Global()->Get(child);
  if (info == nullptr || info->depth <= parent_depth) return false;
  return info->ancestors[static_cast<size_t>(parent_depth)] == parent;
}

const std::string& TypeIndex2Key(int32_t type_index) {
  const TypeInfo* info = TypeTable::Global()->Get(type_index);
  if (info != nullptr) return info->key;
  static thread_local std::string unknown;
  unknown = "<unknown type " + std::to_string(type_index) + ">";
  return unknown;
}

bool LookupTypeKey(const char* key, int32_t* out) { return TypeTable::Global()->Lookup(key, out); }

std::vector<int32_t> TypeAncestors(int32_t type_index) {
  const TypeInfo* info = TypeTable::Global()->Get(type_index);
  return info ? info->ancestors : std::vector<int32_t>();
}

bool TypeIndexKnown(int32_t type_index) { return TypeTable::Global()->Get(type_index) != nullptr; }

}  // namespace details
}  // namespace mxffi
