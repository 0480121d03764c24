/*!
 * \file bench_call.cc
 * \brief What one call through the C ABI costs.
 *
 * What is timed. One MXFFIFuncCall(func, args, num_args, &result) on a global function of
 * libmxffi_testing, exactly as a binding (Python, C) makes it:
 *  - nop:     testing.nop()                      no arguments, returns None;
 *  - add_int: testing.add(3, 4)                  two kMXFFIInt arguments, typed int64 add -> 7;
 *  - sum3:    testing.sum3(1, 2.5, true)         (int, float, bool) -> 4.5 as a float.
 *
 * How. The Function handles are looked up once with MXFFIFuncGetGlobal and the MXFFIAny
 * argument cells are filled once, outside the timed loop (arguments are borrowed and never
 * written by the callee). Each timed iteration sets result.type_index = kMXFFINone (the
 * calling convention: the result cell is None on entry), makes the call, and checks the
 * return code and the result's type and value; benchmark::DoNotOptimize keeps the result
 * alive. So a measured iteration is the ABI call plus a handful of instructions of checking,
 * which is what every real caller does too. The results are plain values (no objects), so
 * nothing is released per call.
 *
 * Two modes, sharing the same per-case call function (CallNop, CallAddInt, CallSum3):
 *  - default: Google Benchmark, e.g.
 *      mxffi_bench_call --benchmark_min_time=0.5 --benchmark_repetitions=5 \
 *                       --benchmark_report_aggregates_only=true
 *    reports wall time per call (one iteration == one call).
 *  - callgrind: `mxffi_bench_call --callgrind <nop|add_int|sum3> <N>` skips Google Benchmark
 *    and makes N calls in a plain loop, verifying every result, then exits 0 (1 on a wrong
 *    result). Run under `valgrind --tool=callgrind` for N and 2N calls, the instructions per
 *    call are (I(2N) - I(N)) / N: start-up, look-up and exit cancel out.
 *    scripts/bench_callgrind.sh does exactly that and applies the project's gates.
 */
#include <benchmark/benchmark.h>
#include <mxffi/c_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

/*! \brief A looked-up Function handle and its prepared argument cells. */
struct CallSetup {
  MXFFIObjectHandle func;
  MXFFIAny args[3];
  int32_t num_args;
  MXFFIAny result;
};

/*! \brief Print the last mxffi error (if any) with a context line. */
void PrintLastError(const char* what) {
  const char* kind = "";
  const char* message = "";
  const char* backtrace = "";
  MXFFIErrorGetLast(&kind, &message, &backtrace);
  if (kind != nullptr && kind[0] != '\0') {
    std::fprintf(stderr, "%s: %s: %s\n", what, kind, message);
  } else {
    std::fprintf(stderr, "%s\n", what);
  }
}

/*! \brief Look up a global Function; nullptr (with a message) when absent. */
MXFFIObjectHandle GetGlobal(const char* name) {
  MXFFIObjectHandle func = nullptr;
  if (MXFFIFuncGetGlobal(name, &func) != 0) {
    PrintLastError(name);
    return nullptr;
  }
  if (func == nullptr) {
    std::fprintf(stderr, "global '%s' is not registered (is libmxffi_testing linked?)\n", name);
  }
  return func;
}

MXFFIAny IntCell(int64_t v) {
  MXFFIAny a;
  std::memset(&a, 0, sizeof(a));
  a.type_index = kMXFFIInt;
  a.v_int64 = v;
  return a;
}
MXFFIAny FloatCell(double v) {
  MXFFIAny a;
  std::memset(&a, 0, sizeof(a));
  a.type_index = kMXFFIFloat;
  a.v_float64 = v;
  return a;
}
MXFFIAny BoolCell(bool v) {
  MXFFIAny a;
  std::memset(&a, 0, sizeof(a));
  a.type_index = kMXFFIBool;
  a.v_int64 = v ? 1 : 0;
  return a;
}

// --- The cases: setup (once) and one verified call (the timed unit). -------------------
// Each CallXxx returns nullptr on success, or a message saying what went wrong.

bool SetupNop(CallSetup* s) {
  s->func = GetGlobal("testing.nop");
  s->num_args = 0;
  return s->func != nullptr;
}
inline const char* CallNop(CallSetup* s) {
  s->result.type_index = kMXFFINone;
  int rc = MXFFIFuncCall(s->func, s->args, s->num_args, &s->result);
  benchmark::DoNotOptimize(rc);
  benchmark::DoNotOptimize(s->result);
  if (__builtin_expect(rc != 0, 0)) return "testing.nop: MXFFIFuncCall returned non-zero";
  if (__builtin_expect(s->result.type_index != kMXFFINone, 0)) {
    return "testing.nop: result is not None";
  }
  return nullptr;
}

bool SetupAddInt(CallSetup* s) {
  s->func = GetGlobal("testing.add");
  s->args[0] = IntCell(3);
  s->args[1] = IntCell(4);
  s->num_args = 2;
  return s->func != nullptr;
}
inline const char* CallAddInt(CallSetup* s) {
  s->result.type_index = kMXFFINone;
  int rc = MXFFIFuncCall(s->func, s->args, s->num_args, &s->result);
  benchmark::DoNotOptimize(rc);
  benchmark::DoNotOptimize(s->result);
  if (__builtin_expect(rc != 0, 0)) return "testing.add: MXFFIFuncCall returned non-zero";
  if (__builtin_expect(s->result.type_index != kMXFFIInt || s->result.v_int64 != 7, 0)) {
    return "testing.add(3, 4): result is not int 7";
  }
  return nullptr;
}

bool SetupSum3(CallSetup* s) {
  s->func = GetGlobal("testing.sum3");
  s->args[0] = IntCell(1);
  s->args[1] = FloatCell(2.5);
  s->args[2] = BoolCell(true);
  s->num_args = 3;
  return s->func != nullptr;
}
inline const char* CallSum3(CallSetup* s) {
  s->result.type_index = kMXFFINone;
  int rc = MXFFIFuncCall(s->func, s->args, s->num_args, &s->result);
  benchmark::DoNotOptimize(rc);
  benchmark::DoNotOptimize(s->result);
  if (__builtin_expect(rc != 0, 0)) return "testing.sum3: MXFFIFuncCall returned non-zero";
  if (__builtin_expect(s->result.type_index != kMXFFIFloat || s->result.v_float64 != 4.5, 0)) {
    return "testing.sum3(1, 2.5, true): result is not float 4.5";
  }
  return nullptr;
}

using SetupFn = bool (*)(CallSetup*);
using CallFn = const char* (*)(CallSetup*);

/*! \brief All zero: no function, no arguments, None cells (kMXFFINone == 0). */
void InitSetup(CallSetup* s) { std::memset(s, 0, sizeof(*s)); }

// --- Google Benchmark mode. ---------------------------------------------------------------
// Templated on the call function so that it is inlined into the timed loop, as in callgrind
// mode.

template <SetupFn Setup, CallFn Call>
void BM_Call(benchmark::State& state) {
  CallSetup s;
  InitSetup(&s);
  if (!Setup(&s)) {
    state.SkipWithError("function lookup failed");
    return;
  }
  for (auto _ : state) {
    if (const char* err = Call(&s)) {
      state.SkipWithError(err);
      PrintLastError(err);
      break;
    }
  }
  MXFFIObjectFree(s.func);
}

BENCHMARK_TEMPLATE(BM_Call, SetupNop, CallNop)->Name("nop");
BENCHMARK_TEMPLATE(BM_Call, SetupAddInt, CallAddInt)->Name("add_int");
BENCHMARK_TEMPLATE(BM_Call, SetupSum3, CallSum3)->Name("sum3");

// --- Callgrind mode. ----------------------------------------------------------------------

template <SetupFn Setup, CallFn Call>
int RunLoop(long long n) {
  CallSetup s;
  InitSetup(&s);
  if (!Setup(&s)) return 1;
  for (long long i = 0; i < n; ++i) {
    if (const char* err = Call(&s)) {
      PrintLastError(err);
      MXFFIObjectFree(s.func);
      return 1;
    }
  }
  MXFFIObjectFree(s.func);
  return 0;
}

struct LoopCase {
  const char* name;
  int (*run)(long long n);
};
const LoopCase kLoopCases[] = {
    {"nop", RunLoop<SetupNop, CallNop>},
    {"add_int", RunLoop<SetupAddInt, CallAddInt>},
    {"sum3", RunLoop<SetupSum3, CallSum3>},
};

int RunCallgrindMode(const char* name, const char* count) {
  char* end = nullptr;
  long long n = std::strtoll(count, &end, 10);
  if (end == count || *end != '\0' || n < 0) {
    std::fprintf(stderr, "--callgrind: N must be a non-negative integer, got '%s'\n", count);
    return 2;
  }
  for (const LoopCase& c : kLoopCases) {
    if (std::strcmp(name, c.name) == 0) return c.run(n);
  }
  std::fprintf(stderr, "--callgrind: unknown case '%s' (expected one of:", name);
  for (const LoopCase& c : kLoopCases) std::fprintf(stderr, " %s", c.name);
  std::fprintf(stderr, ")\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "--callgrind") == 0) {
    if (argc != 4) {
      std::fprintf(stderr, "usage: %s --callgrind <nop|add_int|sum3> <N>\n", argv[0]);
      return 2;
    }
    return RunCallgrindMode(argv[2], argv[3]);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
