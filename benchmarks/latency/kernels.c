/*!
 * \file kernels.c
 * \brief The C functions every binding of the call-latency benchmark calls (see kernels.h).
 */
#include "kernels.h"

#include <math.h>

void mxb_nop(void) {}

int64_t mxb_add_int(int64_t a, int64_t b) {
  /* Wrap instead of overflowing (undefined behaviour); the benchmark adds small numbers. */
  return (int64_t)((uint64_t)a + (uint64_t)b);
}

double mxb_add_float(double a, double b) { return a + b; }

mxb_str_t mxb_echo_str(const char* data, size_t size) {
  mxb_str_t out;
  out.data = data;
  out.size = size;
  return out;
}

int64_t mxb_str_len(const char* data, size_t size) {
  (void)data;
  return (int64_t)size;
}

double mxb_sum3(int64_t a, double b, const char* data, size_t size) {
  (void)data;
  return (double)a + b + (double)size;
}

double mxb_first_f64(const double* data, int64_t size) { return size > 0 ? data[0] : NAN; }

double mxb_first8(const double* const* data, const int64_t* size) {
  double sum = 0;
  for (int i = 0; i < 8; ++i) sum += mxb_first_f64(data[i], size[i]);
  return sum;
}
