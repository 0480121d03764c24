/*!
 * \file backtrace.cc
 * \brief Symbolising the return addresses of an error's backtrace: function names from the
 *  libraries' symbol tables, and source file and line from their DWARF where they carry it,
 *  read with elfutils' libdw (when the build found it: MXFFI_HAVE_LIBDW); without libdw, the
 *  names the dynamic linker knows (dladdr: exported functions only).
 */
#include "backtrace.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <unordered_map>

#ifndef MXFFI_HAVE_LIBDW
#define MXFFI_HAVE_LIBDW 0
#endif
#if MXFFI_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

namespace mxffi {
namespace details {
namespace {

/*! \brief One frame as shown: a function, where it is, and the library holding it. */
struct Frame {
  std::string name;  // demangled; "" when unknown
  std::string file;  // "" without debug info
  int line = 0;
  std::string library;   // "" when the address is in no library
  uintptr_t offset = 0;  // of the address in its library (or the address itself)
};

/*! \brief The standard library's strings under the names they are written with. */
void ShortenStdNames(std::string* name) {
  static const char* const kLong[][2] = {
      {"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >",
       "std::string"},
      {"std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string"},
      {"std::basic_string_view<char, std::char_traits<char> >", "std::string_view"},
  };
  for (const auto& pair : kLong) {
    size_t n = std::strlen(pair[0]);
    for (size_t at = name->find(pair[0]); at != std::string::npos; at = name->find(pair[0], at)) {
      name->replace(at, n, pair[1]);
    }
  }
}

std::string Demangle(const char* name) {
  if (name == nullptr) return "";
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && demangled != nullptr ? demangled : name;
  std::free(demangled);
  ShortenStdNames(&out);
  return out;
}

/*! \brief The frame of an address from what the dynamic linker knows. */
Frame FrameFromDladdr(uintptr_t pc, uintptr_t lookup) {
  Frame f;
  f.offset = pc;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(lookup), &info) != 0) {
    if (info.dli_fname != nullptr) f.library = info.dli_fname;
    f.offset = pc - reinterpret_cast<uintptr_t>(info.dli_fbase);
    if (info.dli_sname != nullptr) f.name = Demangle(info.dli_sname);
  }
  return f;
}

#if MXFFI_HAVE_LIBDW

/*!
 * \brief Separate debug info is looked for by build ID under the local debug folders only: the
 *  standard search would also ask debuginfod servers (DEBUGINFOD_URLS) over the network, which
 *  reading an error's backtrace must never do.
 */
int FindLocalDebuginfo(Dwfl_Module* mod, void** userdata, const char* modname, Dwarf_Addr base,
                       const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                       char** debuginfo_file_name) {
  return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
                                      debuglink_crc, debuginfo_file_name);
}

const Dwfl_Callbacks kCallbacks = {
    dwfl_linux_proc_find_elf,
    FindLocalDebuginfo,
    nullptr,
    nullptr,
};

/*!
 * \brief The process's libraries as libdw sees them. One instance, kept for the process's life
 *  so that a library's parsed symbols and DWARF serve every later backtrace; each read first
 *  re-reads /proc/self/maps (libraries come and go with dlopen), keeping what is unchanged.
 *  libdw's handles are not thread-safe: every use holds the mutex.
 */
struct DwflState {
  std::mutex mutex;
  Dwfl* dwfl = nullptr;
  bool failed = false;
  /*!
   * \brief The frames found at each address so far. libdw looks a symbol up by scanning the
   *  library's symbol table and an inlining chain by walking the unit's DIEs, milliseconds for a
   *  large library, while errors raised in a loop come back to the same addresses. Emptied when
   *  a library leaves the process (its addresses may be reused), and when it grows large.
   */
  std::unordered_map<uintptr_t, std::vector<Frame>> cache;
};

constexpr size_t kMaxCachedAddresses = 4096;

DwflState& State() {
  static auto* state = new DwflState();  // leaked: backtraces may be read in exit destructors
  return *state;
}

/*! \brief The name of a function's DIE: its demangled linkage name, else its plain name. */
std::string DieName(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* linkage = nullptr;
  if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) != nullptr ||
      dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr) != nullptr) {
    linkage = dwarf_formstring(&attr);
  }
  if (linkage != nullptr) return Demangle(linkage);
  const char* name = dwarf_diename(die);
  return name != nullptr ? name : "";
}

/*!
 * \brief A source file named in a unit's DWARF, absolute: names relative to the folder the unit
 *  was compiled in (ccache's base_dir makes them so) are joined to it.
 */
std::string SourcePath(const char* name, const char* comp_dir) {
  if (name == nullptr) return "";
  if (name[0] == '/' || comp_dir == nullptr || comp_dir[0] != '/') return name;
  return (std::filesystem::path(comp_dir) / name).lexically_normal().string();
}

/*!
 * \brief The frames at one address: the function holding it, preceded by the functions inlined
 *  into it there, innermost first. Empty when libdw knows no library at the address.
 */
std::vector<Frame> FramesFromDwarf(Dwfl* dwfl, uintptr_t pc, uintptr_t lookup) {
  std::vector<Frame> out;
  Dwfl_Module* mod = dwfl_addrmodule(dwfl, lookup);
  if (mod == nullptr) return out;
  Dwarf_Addr start = 0;
  const char* library =
      dwfl_module_info(mod, nullptr, &start, nullptr, nullptr, nullptr, nullptr, nullptr);
  Frame base;
  base.library = library != nullptr ? library : "";
  base.offset = pc - start;
  GElf_Off sym_offset = 0;
  GElf_Sym sym;
  base.name =
      Demangle(dwfl_module_addrinfo(mod, lookup, &sym_offset, &sym, nullptr, nullptr, nullptr));

  // Where the address is in the source: the line table names the innermost (inlined) function's
  // line; each inlined call's DW_AT_call_file / DW_AT_call_line names its caller's.
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(mod, lookup, &bias);
  Dwarf_Attribute comp_dir_attr;
  const char* comp_dir =
      cu != nullptr ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &comp_dir_attr)) : nullptr;
  std::string file;
  int line = 0;
  if (Dwfl_Line* src = dwfl_module_getsrc(mod, lookup)) {
    file = SourcePath(dwfl_lineinfo(src, nullptr, &line, nullptr, nullptr, nullptr), comp_dir);
  }
  Dwarf_Die* scopes = nullptr;
  int nscopes = cu != nullptr ? dwarf_getscopes(cu, lookup - bias, &scopes) : 0;
  Dwarf_Files* files = nullptr;
  size_t nfiles = 0;
  if (cu != nullptr && dwarf_getsrcfiles(cu, &files, &nfiles) != 0) files = nullptr;
  for (int i = 0; i < nscopes; ++i) {
    int tag = dwarf_tag(&scopes[i]);
    if (tag == DW_TAG_subprogram) break;
    if (tag != DW_TAG_inlined_subroutine) continue;
    Frame f = base;
    f.name = DieName(&scopes[i]);
    f.file = file;
    f.line = line;
    out.push_back(f);
    Dwarf_Attribute attr;
    Dwarf_Word value = 0;
    file.clear();
    line = 0;
    if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &value) == 0 &&
        files != nullptr && value < nfiles) {
      file = SourcePath(dwarf_filesrc(files, value, nullptr, nullptr), comp_dir);
    }
    if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr), &value) == 0) {
      line = static_cast<int>(value);
    }
  }
  std::free(scopes);
  base.file = file;
  base.line = line;
  out.push_back(base);
  return out;
}

/*! \brief dwfl_report_end's callback for each library no longer mapped. */
int OnLibraryRemoved(Dwfl_Module*, void*, const char*, Dwarf_Addr, void* arg) {
  static_cast<DwflState*>(arg)->cache.clear();
  return DWARF_CB_OK;
}

/*! \brief The process's libraries, re-read; nullptr when libdw cannot be used. */
Dwfl* CurrentDwfl(DwflState& state) {
  if (state.failed) return nullptr;
  if (state.dwfl == nullptr) {
    state.dwfl = dwfl_begin(&kCallbacks);
    if (state.dwfl == nullptr) {
      state.failed = true;
      return nullptr;
    }
  }
  dwfl_report_begin(state.dwfl);
  int rc = dwfl_linux_proc_report(state.dwfl, getpid());
  if (dwfl_report_end(state.dwfl, OnLibraryRemoved, &state) != 0 || rc != 0) {
    state.cache.clear();
    return nullptr;
  }
  if (state.cache.size() > kMaxCachedAddresses) state.cache.clear();
  return state.dwfl;
}

#endif  // MXFFI_HAVE_LIBDW

/*! \brief A frame of MXFFI_THROW's machinery, not of the code that raised. */
bool IsErrorMachinery(const Frame& f) {
  if (f.name.find("ErrorBuilder") != std::string::npos) return true;
  const char* header = "mxffi/error.h";
  size_t n = std::strlen(header);
  return f.file.size() >= n && f.file.compare(f.file.size() - n, n, header) == 0;
}

std::string FormatFrame(const Frame& f) {
  std::ostringstream os;
  os << (f.name.empty() ? "??" : f.name);
  if (!f.file.empty() && f.line > 0) {
    os << " at " << f.file << ":" << f.line << " (" << f.library << ")";
  } else {
    char offset[32];
    std::snprintf(offset, sizeof(offset), "0x%llx", static_cast<unsigned long long>(f.offset));
    os << " (" << f.library << (f.library.empty() ? "" : "+") << offset << ")";
  }
  return os.str();
}

}  // namespace

std::string SymbolizeBacktrace(const std::vector<void*>& frames) {
  std::vector<Frame> out;
  {
#if MXFFI_HAVE_LIBDW
    DwflState& state = State();
    std::lock_guard<std::mutex> lock(state.mutex);
    Dwfl* dwfl = CurrentDwfl(state);
#endif
    for (void* address : frames) {
      uintptr_t pc = reinterpret_cast<uintptr_t>(address);
      // A return address points past its call, which may be the first byte of the next
      // function (after a call that does not return): look up the call instruction's last byte.
      uintptr_t lookup = pc > 0 ? pc - 1 : pc;
#if MXFFI_HAVE_LIBDW
      if (dwfl != nullptr) {
        auto it = state.cache.find(pc);
        if (it == state.cache.end()) {
          std::vector<Frame> found = FramesFromDwarf(dwfl, pc, lookup);
          if (found.empty()) found.push_back(FrameFromDladdr(pc, lookup));
          it = state.cache.emplace(pc, std::move(found)).first;
        }
        out.insert(out.end(), it->second.begin(), it->second.end());
        continue;
      }
#endif
      out.push_back(FrameFromDladdr(pc, lookup));
    }
  }
  // The raising statement comes first: MXFFI_THROW's builder, whose destructor throws (called,
  // or inlined into the raising function), is the error machinery's own frame.
  size_t first = 0;
  while (first + 1 < out.size() && IsErrorMachinery(out[first])) ++first;
  std::ostringstream os;
  for (size_t i = first; i < out.size(); ++i) {
    os << "  [" << i - first << "] " << FormatFrame(out[i]) << "\n";
  }
  return os.str();
}

const char* BacktraceSymbolizer() { return MXFFI_HAVE_LIBDW ? "libdw" : "dladdr"; }

}  // namespace details
}  // namespace mxffi
