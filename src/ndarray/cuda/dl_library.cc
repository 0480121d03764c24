/*!
 * \file dl_library.cc
 * \brief DlLibrary (dl_library.h): the CUDA libraries opened at run time.
 */
#if MXFFI_USE_CUDA
#include "dl_library.h"

namespace mxffi {
namespace cuda {

DlLibrary::DlLibrary(const char* label, std::initializer_list<const char*> sonames)
    : label_(label) {
  std::vector<std::string> names(sonames.begin(), sonames.end());
#ifdef MXFFI_CUDA_TOOLKIT_LIBDIR
  const std::string dir = MXFFI_CUDA_TOOLKIT_LIBDIR;
  if (!dir.empty()) {
    for (const char* n : sonames) names.push_back(dir + "/" + n);
  }
#endif
  std::string tried;
  for (const std::string& name : names) {
    so_ = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (so_ != nullptr) return;
    const char* err = dlerror();
    tried += (tried.empty() ? "" : "; ") + (err ? std::string(err) : name + ": not found");
  }
  why_ = label_ + " could not be loaded (" + tried + ")";
}

}  // namespace cuda
}  // namespace mxffi
#endif  // MXFFI_USE_CUDA
