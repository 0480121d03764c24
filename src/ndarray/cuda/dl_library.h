/*!
 * \file dl_library.h
 * \brief What the CUDA libraries reached at run time (cuBLAS, cuSOLVER, cuFFT) share: opening
 *  one with dlopen, never linked, so that libmxffi.so loads on a machine without it, looking up
 *  its symbols with the first missing one recorded, and library handles kept per thread and
 *  device. Only in a CUDA build.
 */
#ifndef MXFFI_SRC_NDARRAY_CUDA_DL_LIBRARY_H_
#define MXFFI_SRC_NDARRAY_CUDA_DL_LIBRARY_H_

#include <dlfcn.h>

#include <initializer_list>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace mxffi {
namespace cuda {

/*!
 * \brief A library opened with dlopen: the first of its file names that loads, on the loader's
 *  path and then in the CUDA toolkit this library was built with (MXFFI_CUDA_TOOLKIT_LIBDIR, for
 *  a machine where the toolkit is not on that path). It stays loaded for the life of the
 *  process: handles and plans made from it are kept.
 */
class DlLibrary {
 public:
  /*!
   * \param label the library's name in messages ("cuBLAS").
   * \param sonames the file names to try, newest first.
   */
  DlLibrary(const char* label, std::initializer_list<const char*> sonames);

  /*! \return the symbol name as F, or nullptr; the first one missing (or the load's failure)
   *  is the reason why() gives. */
  template <typename F>
  F Sym(const std::string& name) {
    void* p = so_ != nullptr ? dlsym(so_, name.c_str()) : nullptr;
    if (p == nullptr && why_.empty()) why_ = label_ + " lacks " + name;
    return reinterpret_cast<F>(p);
  }
  /*! \return the symbol name as F, or nullptr, leaving why() as it is (an optional symbol). */
  template <typename F>
  F OptionalSym(const char* name) const {
    return so_ != nullptr ? reinterpret_cast<F>(dlsym(so_, name)) : nullptr;
  }

  /*! \return whether the library loaded and has every symbol Sym was asked for. */
  bool ok() const { return why_.empty(); }
  /*! \return why the library cannot be used: each file tried and dlopen's message, or the first
   *  symbol it lacks; empty when ok(). */
  const std::string& why() const { return why_; }

 private:
  std::string label_;
  std::string why_;
  void* so_ = nullptr;
};

/*!
 * \brief The calling thread's handle of a library for device_id, made by create() the first
 *  time a thread needs one on that device. A thread's handles go back to a pool when it exits,
 *  for the next thread, so there are never more of them than threads that used the library at
 *  once; they are never destroyed (so never torn down after the CUDA runtime at exit). Tag
 *  tells the libraries' pools apart (their handles are all void*).
 */
template <typename Tag, typename Handle, typename Create>
Handle ThreadHandle(int device_id, Create&& create) {
  struct Pool {
    std::mutex mu;
    std::unordered_map<int, std::vector<Handle>> free;
  };
  static Pool* pool = new Pool();
  struct Mine {
    std::unordered_map<int, Handle> by_device;
    ~Mine() {
      std::lock_guard<std::mutex> lock(pool->mu);
      for (auto& kv : by_device) pool->free[kv.first].push_back(kv.second);
    }
  };
  thread_local Mine mine;
  auto it = mine.by_device.find(device_id);
  if (it != mine.by_device.end()) return it->second;
  Handle h{};
  bool pooled = false;
  {
    std::lock_guard<std::mutex> lock(pool->mu);
    std::vector<Handle>& v = pool->free[device_id];
    if (!v.empty()) {
      h = v.back();
      v.pop_back();
      pooled = true;
    }
  }
  if (!pooled) h = create();
  mine.by_device.emplace(device_id, h);
  return h;
}

}  // namespace cuda
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_CUDA_DL_LIBRARY_H_
