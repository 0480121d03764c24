/*!
 * \file capi_ext.c
 * \brief capi_ext: the plain C extension of the call-latency benchmark, the baseline.
 *
 * Written the way a careful C-extension author writes a hot function: METH_FASTCALL (the
 * arguments arrive as a C array, no tuple), METH_FASTCALL | METH_KEYWORDS with keyword names
 * matched by hand for add_int, exact-type checks with a conversion for subclasses, strings
 * read as their cached UTF-8 with PyUnicode_AsUTF8AndSize (no copy), and the numpy array read
 * through numpy's C API (headers from numpy.get_include(): PyArray_Check, PyArray_TYPE,
 * PyArray_ISCARRAY_RO, PyArray_DATA), which is cheaper than the buffer protocol; a torch tensor
 * through torch's DLPack C exchange table, the cheapest way there is to read one.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include "kernels.h"

/*! \brief Interned "a" and "b", the keyword names of add_int. */
static PyObject* kw_names[2];

static int check_nargs(const char* name, Py_ssize_t nargs, Py_ssize_t expected) {
  if (nargs == expected) return 0;
  PyErr_Format(PyExc_TypeError, "%s() takes %zd positional arguments but %zd were given", name,
               expected, nargs);
  return -1;
}

/*! \brief A Python int as int64, or -1 with an exception set (check PyErr_Occurred). */
static int64_t as_int64(PyObject* obj) { return (int64_t)PyLong_AsLongLong(obj); }

/*! \brief The UTF-8 bytes of a str, without a copy; NULL with an exception set. */
static const char* as_utf8(const char* name, PyObject* obj, Py_ssize_t* size) {
  if (!PyUnicode_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "%s(): expected str, got %.200s", name, Py_TYPE(obj)->tp_name);
    return NULL;
  }
  return PyUnicode_AsUTF8AndSize(obj, size);
}

static PyObject* capi_nop(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)self;
  (void)args;
  if (check_nargs("nop", nargs, 0)) return NULL;
  mxb_nop();
  Py_RETURN_NONE;
}

static PyObject* capi_add_int(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                              PyObject* kwnames) {
  (void)self;
  PyObject* slots[2] = {NULL, NULL};
  if (nargs > 2) return check_nargs("add_int", nargs, 2), NULL;
  for (Py_ssize_t i = 0; i < nargs; ++i) slots[i] = args[i];
  if (kwnames != NULL) {
    Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, k);
      int slot = -1;
      for (int j = 0; j < 2; ++j) {
        /* Keyword names at a call site are interned: compare pointers first. */
        if (key == kw_names[j] || PyUnicode_Compare(key, kw_names[j]) == 0) {
          slot = j;
          break;
        }
      }
      if (slot < 0) {
        PyErr_Format(PyExc_TypeError, "add_int() got an unexpected keyword argument '%U'", key);
        return NULL;
      }
      if (slots[slot] != NULL) {
        PyErr_Format(PyExc_TypeError, "add_int() got multiple values for argument '%U'", key);
        return NULL;
      }
      slots[slot] = args[nargs + k];
    }
  }
  if (slots[0] == NULL || slots[1] == NULL) {
    PyErr_Format(PyExc_TypeError, "add_int() missing required argument '%s'",
                 slots[0] == NULL ? "a" : "b");
    return NULL;
  }
  int64_t a = as_int64(slots[0]);
  if (a == -1 && PyErr_Occurred()) return NULL;
  int64_t b = as_int64(slots[1]);
  if (b == -1 && PyErr_Occurred()) return NULL;
  return PyLong_FromLongLong(mxb_add_int(a, b));
}

static PyObject* capi_add_float(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)self;
  if (check_nargs("add_float", nargs, 2)) return NULL;
  double a = PyFloat_AsDouble(args[0]);
  if (a == -1.0 && PyErr_Occurred()) return NULL;
  double b = PyFloat_AsDouble(args[1]);
  if (b == -1.0 && PyErr_Occurred()) return NULL;
  return PyFloat_FromDouble(mxb_add_float(a, b));
}

static PyObject* capi_echo_str(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)self;
  if (check_nargs("echo_str", nargs, 1)) return NULL;
  Py_ssize_t n;
  const char* s = as_utf8("echo_str", args[0], &n);
  if (s == NULL) return NULL;
  mxb_str_t r = mxb_echo_str(s, (size_t)n);
  return PyUnicode_DecodeUTF8(r.data, (Py_ssize_t)r.size, NULL);
}

static PyObject* capi_str_len(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)self;
  if (check_nargs("str_len", nargs, 1)) return NULL;
  Py_ssize_t n;
  const char* s = as_utf8("str_len", args[0], &n);
  if (s == NULL) return NULL;
  return PyLong_FromLongLong(mxb_str_len(s, (size_t)n));
}

static PyObject* capi_sum3(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)self;
  if (check_nargs("sum3", nargs, 3)) return NULL;
  int64_t a = as_int64(args[0]);
  if (a == -1 && PyErr_Occurred()) return NULL;
  double b = PyFloat_AsDouble(args[1]);
  if (b == -1.0 && PyErr_Occurred()) return NULL;
  Py_ssize_t n;
  const char* s = as_utf8("sum3", args[2], &n);
  if (s == NULL) return NULL;
  return PyFloat_FromDouble(mxb_sum3(a, b, s, (size_t)n));
}

/*
 * A torch tensor through torch's DLPack C exchange table (torch.Tensor.__dlpack_c_exchange_api__,
 * a PyCapsule named "dlpack_exchange_api"): its dltensor_from_py_object_no_sync fills a borrowed
 * DLTensor with no capsule and none of torch's Python code. The table is looked up once per
 * type. This is the least a C extension can pay to read a torch tensor: the benchmark reports
 * it beside the bindings' torch figures. The layouts are DLPack's (1.x), written out here so the
 * extension needs no DLPack header.
 */
typedef struct {
  void* data;
  int32_t device_type, device_id;
  int32_t ndim;
  uint8_t code, bits;
  uint16_t lanes;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} dl_tensor_t;

typedef struct {
  uint32_t major, minor;
  void* prev_api;
  void* managed_tensor_allocator;
  void* managed_tensor_from_py_object_no_sync;
  void* managed_tensor_to_py_object_no_sync;
  int (*dltensor_from_py_object_no_sync)(void* py_object, dl_tensor_t* out);
  void* current_work_stream;
} dl_exchange_api_t;

static PyTypeObject* exchange_type = NULL;
static const dl_exchange_api_t* exchange_api = NULL;

/*! \brief The exchange table of obj's type, looked up on the first tensor of a new type. */
static const dl_exchange_api_t* exchange_api_of(PyObject* obj) {
  if (Py_TYPE(obj) == exchange_type) return exchange_api;
  PyObject* cap = PyObject_GetAttrString((PyObject*)Py_TYPE(obj), "__dlpack_c_exchange_api__");
  if (cap == NULL) {
    PyErr_Clear();
    return NULL;
  }
  const dl_exchange_api_t* api = PyCapsule_GetPointer(cap, "dlpack_exchange_api");
  Py_DECREF(cap);
  if (api == NULL || api->major != 1 || api->dltensor_from_py_object_no_sync == NULL) {
    PyErr_Clear();
    return NULL;
  }
  Py_XSETREF(exchange_type, (PyTypeObject*)Py_NewRef(Py_TYPE(obj)));
  exchange_api = api;
  return api;
}

/*! \brief The elements and size of a C-contiguous float64 CPU array (numpy or torch); -1 with an
 *  exception set for anything else. */
static int float64_data(const char* name, PyObject* obj, const double** data, int64_t* size) {
  if (PyArray_Check(obj)) {
    PyArrayObject* arr = (PyArrayObject*)obj;
    if (PyArray_TYPE(arr) != NPY_DOUBLE || !PyArray_ISCARRAY_RO(arr)) {
      PyErr_Format(PyExc_TypeError, "%s(): expected a C-contiguous, aligned float64 array", name);
      return -1;
    }
    *data = (const double*)PyArray_DATA(arr);
    *size = (int64_t)PyArray_SIZE(arr);
    return 0;
  }
  const dl_exchange_api_t* api = exchange_api_of(obj);
  dl_tensor_t t;
  if (api == NULL) {
    PyErr_Format(PyExc_TypeError, "%s(): expected numpy.ndarray or torch.Tensor, got %.200s", name,
                 Py_TYPE(obj)->tp_name);
    return -1;
  }
  if (api->dltensor_from_py_object_no_sync(obj, &t) != 0) return -1;
  int64_t n = 1, expected = 1;
  int contiguous = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides != NULL && t.strides[i] != expected) contiguous = 0;
    expected *= t.shape[i];
    n *= t.shape[i];
  }
  if (t.code != 2 || t.bits != 64 || t.lanes != 1 || t.device_type != 1 || !contiguous) {
    PyErr_Format(PyExc_TypeError, "%s(): expected a contiguous float64 CPU tensor", name);
    return -1;
  }
  *data = (const double*)((const char*)t.data + t.byte_offset);
  *size = n;
  return 0;
}

static PyObject* capi_first_f64(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)self;
  const double* data;
  int64_t size;
  if (check_nargs("first_f64", nargs, 1)) return NULL;
  if (float64_data("first_f64", args[0], &data, &size) != 0) return NULL;
  return PyFloat_FromDouble(mxb_first_f64(data, size));
}

static PyObject* capi_first8(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  (void)self;
  const double* data[8];
  int64_t size[8];
  if (check_nargs("first8", nargs, 8)) return NULL;
  for (int i = 0; i < 8; ++i) {
    if (float64_data("first8", args[i], &data[i], &size[i]) != 0) return NULL;
  }
  return PyFloat_FromDouble(mxb_first8(data, size));
}

static PyMethodDef capi_methods[] = {
    {"nop", (PyCFunction)(void (*)(void))capi_nop, METH_FASTCALL, "Do nothing."},
    {"add_int", (PyCFunction)(void (*)(void))capi_add_int, METH_FASTCALL | METH_KEYWORDS,
     "add_int(a, b): a + b for integers."},
    {"add_float", (PyCFunction)(void (*)(void))capi_add_float, METH_FASTCALL,
     "add_float(a, b): a + b for floats."},
    {"echo_str", (PyCFunction)(void (*)(void))capi_echo_str, METH_FASTCALL,
     "echo_str(s): s, through the C kernel."},
    {"str_len", (PyCFunction)(void (*)(void))capi_str_len, METH_FASTCALL,
     "str_len(s): length of s in UTF-8 bytes."},
    {"sum3", (PyCFunction)(void (*)(void))capi_sum3, METH_FASTCALL,
     "sum3(a, b, s): a + b + len(s) as a float."},
    {"first_f64", (PyCFunction)(void (*)(void))capi_first_f64, METH_FASTCALL,
     "first_f64(a): the first element of a C-contiguous float64 array."},
    {"first8", (PyCFunction)(void (*)(void))capi_first8, METH_FASTCALL,
     "first8(a0, ..., a7): the sum of the first elements of eight float64 arrays."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef capi_module = {
    PyModuleDef_HEAD_INIT, "capi_ext", "The plain METH_FASTCALL C extension of the benchmark.", -1,
    capi_methods,
};

PyMODINIT_FUNC PyInit_capi_ext(void) {
  import_array();
  kw_names[0] = PyUnicode_InternFromString("a");
  kw_names[1] = PyUnicode_InternFromString("b");
  if (kw_names[0] == NULL || kw_names[1] == NULL) return NULL;
  return PyModule_Create(&capi_module);
}
