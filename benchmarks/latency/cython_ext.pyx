# cython: language_level=3, boundscheck=False, wraparound=False
"""cython_ext: the Cython ``def`` functions of the call-latency benchmark.

Written as a Cython user writes them: typed ``def`` arguments (Cython converts and checks
them), strings read as their cached UTF-8 with PyUnicode_AsUTF8AndSize (no copy), and the numpy
array taken as a typed memoryview ``const double[:, ::1]`` (the buffer protocol), the way
Cython's documentation recommends.
"""

from libc.stdint cimport int64_t


cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object s, Py_ssize_t* size) except NULL
    object PyUnicode_DecodeUTF8(const char* s, Py_ssize_t size, const char* errors)


cdef extern from "kernels.h":
    ctypedef struct mxb_str_t:
        const char* data
        size_t size

    void mxb_nop()
    int64_t mxb_add_int(int64_t a, int64_t b)
    double mxb_add_float(double a, double b)
    mxb_str_t mxb_echo_str(const char* data, size_t size)
    int64_t mxb_str_len(const char* data, size_t size)
    double mxb_sum3(int64_t a, double b, const char* data, size_t size)
    double mxb_first_f64(const double* data, int64_t size)
    double mxb_first8(const double* const* data, const int64_t* size)


def nop():
    mxb_nop()


def add_int(int64_t a, int64_t b):
    return mxb_add_int(a, b)


def add_float(double a, double b):
    return mxb_add_float(a, b)


def echo_str(str s not None):
    cdef Py_ssize_t n
    cdef const char* p = PyUnicode_AsUTF8AndSize(s, &n)
    cdef mxb_str_t r = mxb_echo_str(p, <size_t>n)
    return PyUnicode_DecodeUTF8(r.data, <Py_ssize_t>r.size, NULL)


def str_len(str s not None):
    cdef Py_ssize_t n
    cdef const char* p = PyUnicode_AsUTF8AndSize(s, &n)
    return mxb_str_len(p, <size_t>n)


def sum3(int64_t a, double b, str s not None):
    cdef Py_ssize_t n
    cdef const char* p = PyUnicode_AsUTF8AndSize(s, &n)
    return mxb_sum3(a, b, p, <size_t>n)


def first_f64(const double[:, ::1] a):
    cdef int64_t size = a.shape[0] * a.shape[1]
    return mxb_first_f64(&a[0, 0] if size > 0 else NULL, size)


def first8(const double[:, ::1] a0, const double[:, ::1] a1, const double[:, ::1] a2,
           const double[:, ::1] a3, const double[:, ::1] a4, const double[:, ::1] a5,
           const double[:, ::1] a6, const double[:, ::1] a7):
    cdef const double* data[8]
    cdef int64_t size[8]
    # Spelled out: a tuple of typed memoryviews would make a Python object of each.
    size[0] = a0.shape[0] * a0.shape[1]
    size[1] = a1.shape[0] * a1.shape[1]
    size[2] = a2.shape[0] * a2.shape[1]
    size[3] = a3.shape[0] * a3.shape[1]
    size[4] = a4.shape[0] * a4.shape[1]
    size[5] = a5.shape[0] * a5.shape[1]
    size[6] = a6.shape[0] * a6.shape[1]
    size[7] = a7.shape[0] * a7.shape[1]
    data[0] = &a0[0, 0] if size[0] > 0 else NULL
    data[1] = &a1[0, 0] if size[1] > 0 else NULL
    data[2] = &a2[0, 0] if size[2] > 0 else NULL
    data[3] = &a3[0, 0] if size[3] > 0 else NULL
    data[4] = &a4[0, 0] if size[4] > 0 else NULL
    data[5] = &a5[0, 0] if size[5] > 0 else NULL
    data[6] = &a6[0, 0] if size[6] > 0 else NULL
    data[7] = &a7[0, 0] if size[7] > 0 else NULL
    return mxb_first8(data, size)
