/*!
 * \file callgrind_client.c
 * \brief Callgrind client requests for bench_call_latency.py, which calls them through ctypes.
 *
 * Each measured loop runs between mxb_cg_zero() and mxb_cg_dump(label): callgrind writes one
 * dump per loop, whose total is the loop plus a constant (the ctypes calls into here), so
 * (total(2N calls) - total(N calls)) / N is the cost of one call. Outside valgrind these are
 * a few no-op instructions.
 */
#include <valgrind/callgrind.h>

#if defined(_WIN32)
#define MXB_DLL __declspec(dllexport)
#else
#define MXB_DLL __attribute__((visibility("default")))
#endif

/*! \brief \return nonzero when running under valgrind. */
MXB_DLL int mxb_cg_running(void) { return RUNNING_ON_VALGRIND; }

/*! \brief Zero callgrind's event counters. */
MXB_DLL void mxb_cg_zero(void) { CALLGRIND_ZERO_STATS; }

/*! \brief Dump callgrind's counters into a new file, with label as its trigger. */
MXB_DLL void mxb_cg_dump(const char* label) { CALLGRIND_DUMP_STATS_AT(label); }
