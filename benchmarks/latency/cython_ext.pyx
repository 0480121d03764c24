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
