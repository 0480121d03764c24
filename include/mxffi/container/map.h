/*!
 * \file mxffi/container/map.h
 * \brief Map<K, V>: a shared, copy-on-write hash map that keeps insertion order (as a Python
 *  dict does). Keys compare by value: strings by content in any form, numbers numerically.
 */
#ifndef MXFFI_CONTAINER_MAP_H_
#define MXFFI_CONTAINER_MAP_H_

#include <mxffi/any.h>
#include <mxffi/container/array.h>
#include <mxffi/container/string.h>

#include <unordered_map>
#include <utility>
#include <vector>

namespace mxffi {

namespace details {
/*! \brief Hash of a key cell, consistent with AnyEqual. */
struct AnyHash {
  MXFFI_DLL size_t operator()(const Any& key) const;
};
/*! \brief Key equality: strings by content, numbers by value, objects by identity. */
struct AnyEqual {
  MXFFI_DLL bool operator()(const Any& a, const Any& b) const;
};
/*! \brief Throws KeyError naming the container and the key. */
[[noreturn]] MXFFI_DLL void ThrowKeyError(const char* what, const Any& key);
/*! \return a short printable form of a value for messages ("'abc'", "3", "<mxffi.Array>"). */
MXFFI_DLL std::string ReprForMessage(const Any& value);
}  // namespace details

/*! \brief Payload of a Map: entries in insertion order plus a hash index into them. */
class MapObj : public Object {
 public:
  std::vector<std::pair<Any, Any>> entries;
  std::unordered_map<Any, size_t, details::AnyHash, details::AnyEqual> index;

  const Any* Find(const Any& key) const {
    auto it = index.find(key);
    return it == index.end() ? nullptr : &entries[it->second].second;
  }
  void Set(Any key, Any value) {
    auto it = index.find(key);
    if (it != index.end()) {
      entries[it->second].second = std::move(value);
      return;
    }
    index.emplace(key, entries.size());
    entries.emplace_back(std::move(key), std::move(value));
  }
  bool Erase(const Any& key) {
    auto it = index.find(key);
    if (it == index.end()) return false;
    size_t pos = it->second;
    index.erase(it);
    entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(pos));
    for (auto& kv : index) {
      if (kv.second > pos) --kv.second;
    }
    return true;
  }

  static constexpr const char* _type_key = "mxffi.Map";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_STATIC_OBJECT_INFO(MapObj, Object, kMXFFIMap);
};

/*! \brief A mapping from K to V; lookups of a missing key raise KeyError. */
template <typename K = Any, typename V = Any>
class Map : public ObjectRef {
 public:
  Map() : ObjectRef(make_object<MapObj>()) {}
  Map(std::initializer_list<std::pair<K, V>> init) : Map() {
    for (const auto& kv : init) Set(kv.first, kv.second);
  }
  explicit Map(ObjectPtr<Object> data) : ObjectRef(std::move(data)) {}

  int64_t size() const { return static_cast<int64_t>(get()->entries.size()); }
  bool empty() const { return size() == 0; }
  bool count(const K& key) const { return get()->Find(Any(key)) != nullptr; }
  /*! \brief The value for key; KeyError naming the key when absent. */
  V at(const K& key) const {
    Any k(key);
    const Any* v = get()->Find(k);
    if (v == nullptr) details::ThrowKeyError("Map", k);
    return Convert<V>(*v);
  }
  V operator[](const K& key) const { return at(key); }
  std::optional<V> Get(const K& key) const {
    const Any* v = get()->Find(Any(key));
    if (v == nullptr) return std::nullopt;
    return Convert<V>(*v);
  }
  void Set(const K& key, const V& value) { CopyOnWrite()->Set(Any(key), Any(value)); }
  bool erase(const K& key) {
    if (!count(key)) return false;
    return CopyOnWrite()->Erase(Any(key));
  }
  /*! \return the (key, value) pairs in insertion order. */
  std::vector<std::pair<K, V>> items() const {
    std::vector<std::pair<K, V>> out;
    for (const auto& kv : get()->entries) {
      out.emplace_back(Convert<K>(kv.first), Convert<V>(kv.second));
    }
    return out;
  }

  const MapObj* get() const { return static_cast<const MapObj*>(data_.get()); }
  const MapObj* operator->() const { return get(); }
  using ContainerType = MapObj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_custom_traits = true;

 private:
  template <typename T>
  static T Convert(const Any& v) {
    if constexpr (std::is_same_v<T, Any>) {
      return v;
    } else {
      return v.cast<T>();
    }
  }
  MapObj* CopyOnWrite() {
    if (!data_->unique()) data_ = make_object<MapObj>(*get());
    return static_cast<MapObj*>(data_.get());
  }
};

template <typename K, typename V>
struct TypeTraits<Map<K, V>> : details::ObjectRefCellBase<Map<K, V>> {
  static std::optional<Map<K, V>> TryCast(const MXFFIAny* src) {
    if (src->type_index != kMXFFIMap) return std::nullopt;
    auto* obj = static_cast<MapObj*>(details::ObjectUnsafe::FromHeader(src->v_obj));
    for (const auto& kv : obj->entries) {
      if constexpr (!std::is_same_v<K, Any>) {
        if (!TypeTraits<K>::TryCast(kv.first.raw()).has_value()) return std::nullopt;
      }
      if constexpr (!std::is_same_v<V, Any>) {
        if (!TypeTraits<V>::TryCast(kv.second.raw()).has_value()) return std::nullopt;
      }
    }
    return Map<K, V>(ObjectPtr<Object>::CopyFromRaw(obj));
  }
  static std::string TypeStr() {
    return "Map[" + TypeTraits<K>::TypeStr() + ", " + TypeTraits<V>::TypeStr() + "]";
  }
};

}  // namespace mxffi

#endif  // MXFFI_CONTAINER_MAP_H_
