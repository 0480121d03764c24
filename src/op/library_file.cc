/*!
 * \file library_file.cc
 * \brief library.load's check of a file before dlopen reads it.
 */
#include <elf.h>
#include <fcntl.h>
#include <mxffi/error.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace mxffi {
namespace details {

/*!
 * \brief Refuse what dlopen must not be given: anything but a regular file (a FIFO blocks it
 *  for ever), and a file whose ELF header, program headers or segments reach past its end
 *  (mapping a truncated file is a SIGBUS when the loader touches the missing pages).
 */
void CheckLibraryFile(const std::string& path) {
  const std::string where = "library.load: cannot load " + path + ": ";
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) MXFFI_THROW(ValueError) << where << std::strerror(errno);
  const char* kind = S_ISDIR(st.st_mode)                          ? "a directory"
                     : S_ISFIFO(st.st_mode)                       ? "a FIFO"
                     : S_ISSOCK(st.st_mode)                       ? "a socket"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                     : S_ISREG(st.st_mode)                        ? nullptr
                                                                  : "not a file";
  MXFFI_CHECK(kind == nullptr, ValueError) << where << "it is " << kind << ", not a regular file";
  const auto size = static_cast<uint64_t>(st.st_size);
  MXFFI_CHECK(size > 0, ValueError) << where << "it is empty";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) MXFFI_THROW(ValueError) << where << std::strerror(errno);
  auto read_at = [fd](void* out, size_t n, uint64_t offset) {
    return ::pread(fd, out, n, static_cast<off_t>(offset)) == static_cast<ssize_t>(n);
  };
  Elf64_Ehdr eh{};
  const ssize_t got = ::pread(fd, &eh, sizeof(eh), 0);
  std::string why;
  if (got < SELFMAG || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) {
    why = "it is not an ELF file";
  } else if (got < static_cast<ssize_t>(sizeof(eh))) {
    why = "its ELF header is cut short";
  } else if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
    why = "it is not a 64-bit ELF file";
  } else if (eh.e_type != ET_DYN) {
    why = "it is an ELF file but not a shared library (e_type " + std::to_string(eh.e_type) + ")";
  } else if (eh.e_phentsize != sizeof(Elf64_Phdr)) {
    why = "its program header size is " + std::to_string(eh.e_phentsize) + ", not " +
          std::to_string(sizeof(Elf64_Phdr));
  }
  const std::string cut = "the file is truncated: ";
  const std::string of = ", past the end of its " + std::to_string(size) + " bytes";
  const uint64_t ph_end = eh.e_phoff + uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  const uint64_t sh_end = eh.e_shoff + uint64_t{eh.e_shnum} * eh.e_shentsize;
  if (why.empty() && (eh.e_phoff > size || ph_end > size)) {
    why = cut + "its program headers end at byte " + std::to_string(ph_end) + of;
  }
  for (int i = 0; why.empty() && i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!read_at(&ph, sizeof(ph), eh.e_phoff + uint64_t(i) * sizeof(ph))) {
      why = cut + "program header #" + std::to_string(i) + " cannot be read";
    } else if (ph.p_offset > size || ph.p_filesz > size - ph.p_offset) {
      why = cut + "segment #" + std::to_string(i) + " ends at byte " +
            std::to_string(ph.p_offset + ph.p_filesz) + of;
    }
  }
  if (why.empty() && eh.e_shnum != 0 && (eh.e_shoff > size || sh_end > size)) {
    why = cut + "its section headers end at byte " + std::to_string(sh_end) + of;
  }
  ::close(fd);
  MXFFI_CHECK(why.empty(), ValueError) << where << why;
}

}  // namespace details
}  // namespace mxffi
