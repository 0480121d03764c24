/*!
 * \file kernels.h
 * \brief The C functions every binding of the call-latency benchmark calls.
 *
 * One shared library (libmxffi_bench_kernels.so) holds them; ctypes and cffi reach it directly,
 * every extension module and the mxffi and tvm-ffi libraries link it. The bodies are trivial on
 * purpose: what bench_call_latency.py measures is the cost of getting from Python to here and
 * back. Strings are (UTF-8 bytes, size) pairs, as every binding can hand them over without a
 * copy; none of them needs a NUL terminator.
 */
#ifndef MXFFI_BENCH_KERNELS_H_
#define MXFFI_BENCH_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define MXB_DLL __declspec(dllexport)
#else
#define MXB_DLL __attribute__((visibility("default")))
#endif

/*! \brief A borrowed string: size bytes of UTF-8 at data (not NUL-terminated). */
typedef struct {
  const char* data;
  size_t size;
} mxb_str_t;

/*! \brief Do nothing. */
MXB_DLL void mxb_nop(void);

/*! \brief \return a + b. */
MXB_DLL int64_t mxb_add_int(int64_t a, int64_t b);

/*! \brief \return a + b. */
MXB_DLL double mxb_add_float(double a, double b);

/*! \brief \return the string it was given (the same bytes; the caller makes its own copy). */
MXB_DLL mxb_str_t mxb_echo_str(const char* data, size_t size);

/*! \brief \return the length in bytes of the string. */
MXB_DLL int64_t mxb_str_len(const char* data, size_t size);

/*! \brief \return a + b + (length in bytes of the string): a mixed three-argument call. */
MXB_DLL double mxb_sum3(int64_t a, double b, const char* data, size_t size);

/*!
 * \brief The first element of a C-contiguous float64 array.
 * \param data the elements; \param size how many there are.
 * \return data[0], or NaN for an empty array.
 */
MXB_DLL double mxb_first_f64(const double* data, int64_t size);

/*!
 * \brief The sum of the first elements of eight C-contiguous float64 arrays.
 * \param data the arrays' elements; \param size how many each has.
 * \return the sum of mxb_first_f64 of each.
 */
MXB_DLL double mxb_first8(const double* const* data, const int64_t* size);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // MXFFI_BENCH_KERNELS_H_
