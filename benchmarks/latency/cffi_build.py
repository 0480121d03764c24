"""Emit the C source of cffi_ext, the cffi bindings of the call-latency benchmark.

cffi's API mode, out of line, as cffi's documentation recommends for speed: cdef the kernels,
write the C module with ``emit_c_code`` (CMakeLists.txt compiles it and links the kernels).
Usage: python cffi_build.py <output.c>
"""

import sys

import cffi

CDEF = """
typedef struct { const char* data; size_t size; } mxb_str_t;
void mxb_nop(void);
int64_t mxb_add_int(int64_t a, int64_t b);
double mxb_add_float(double a, double b);
mxb_str_t mxb_echo_str(const char* data, size_t size);
int64_t mxb_str_len(const char* data, size_t size);
double mxb_sum3(int64_t a, double b, const char* data, size_t size);
double mxb_first_f64(const double* data, int64_t size);
"""


def main(argv):
    if len(argv) != 2:
        print("usage: python cffi_build.py <output.c>", file=sys.stderr)
        return 2
    ffibuilder = cffi.FFI()
    ffibuilder.cdef(CDEF)
    ffibuilder.set_source("cffi_ext", '#include "kernels.h"')
    ffibuilder.emit_c_code(argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
