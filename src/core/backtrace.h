/*!
 * \file backtrace.h
 * \brief Turning the raw return addresses an error captured into readable frames.
 */
#ifndef MXFFI_SRC_CORE_BACKTRACE_H_
#define MXFFI_SRC_CORE_BACKTRACE_H_

#include <string>
#include <vector>

namespace mxffi {
namespace details {

/*!
 * \brief The frames of a backtrace, most recent first, one line each: "  [i] name at file:line
 *  (library)" where the library carries debug info and elfutils' libdw was found at build time,
 *  "  [i] name (library+0xoffset)" otherwise, "  [i] ?? (library+0xoffset)" where no name is
 *  known. Functions inlined into a frame are frames of their own. The error machinery's frames
 *  (MXFFI_THROW's builder) at the top are left out.
 * \param frames return addresses as ::backtrace gave them, innermost first.
 * \note Thread-safe (one lock around the reader of the process's libraries); never throws for a
 *  library without debug info, a stripped one, or an address in no library.
 */
std::string SymbolizeBacktrace(const std::vector<void*>& frames);

/*! \return "libdw" when backtraces name source lines (elfutils' libdw), else "dladdr". */
const char* BacktraceSymbolizer();

}  // namespace details
}  // namespace mxffi

#endif  // MXFFI_SRC_CORE_BACKTRACE_H_
