/*!
 * \file ndarray_attrs.h
 * \brief The attribute getters of mxffi.NDArray (ndim, size, itemsize, nbytes, dtype, shape,
 *  strides, device), written in C.
 *
 * numpy's getters are a field read and a tail call; a getter Cython writes adds a stack frame
 * and an error check around the same work, about a tenth of a.ndim's cost. These read the frozen
 * layout (c_api.h's MXFFINDArrayObj) and the array type's caches at offsets the Cython core
 * gives them, and leave a cache not made yet to the Cython property of the same name. An array
 * object always has a handle: mxffi makes them with one, and Python cannot make one without
 * (NDArray.__new__ raises; Object.__new__(NDArray) is refused as unsafe).
 */
#ifndef MXFFI_PYTHON_NDARRAY_ATTRS_H_
#define MXFFI_PYTHON_NDARRAY_ATTRS_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <mxffi/c_api.h>
#include <stddef.h>

/*! \brief Where the array type keeps its handle and caches, and its slow getters. */
typedef struct {
  Py_ssize_t handle;        /*!< offset of the MXFFINDArrayObj* */
  Py_ssize_t shape_cache;   /*!< offset of the shape tuple (NULL until made) */
  Py_ssize_t strides_cache; /*!< offset of the strides tuple */
  Py_ssize_t dtype_cache;   /*!< offset of the DataType */
  /*! \brief The Cython property named `which` ("shape", ...), for every other case. */
  PyObject* (*slow)(PyObject* self, const char* which);
} MXFFIPyNDArrayLayout;

static MXFFIPyNDArrayLayout mxffi_nd_layout;

/*!
 * \brief The array type's instance layout as Cython lays it out (Object's handle, then the
 *  array's caches), so that the getters read fields at fixed offsets. MXFFIPyNDInstallGetters
 *  checks it against the offsets the Cython core measures, and refuses to install otherwise.
 */
typedef struct {
  PyObject_HEAD void* chandle;
  PyObject* shape_cache;
  PyObject* strides_cache;
  PyObject* dtype_cache;
} MXFFIPyNDArrayMirror;

static inline MXFFINDArrayObj* MXFFIPyNDHandle(PyObject* self) {
  return (MXFFINDArrayObj*)((MXFFIPyNDArrayMirror*)self)->chandle;
}

static inline PyObject* MXFFIPyNDCached(PyObject* self, PyObject* cached, const char* which) {
  if (cached != NULL) {
    Py_INCREF(cached);
    return cached;
  }
  return mxffi_nd_layout.slow(self, which);
}

static inline int64_t MXFFIPyNDSize(const MXFFINDArrayObj* o) {
  int64_t n = 1;
  for (int32_t i = 0; i < o->tensor.ndim; ++i) n *= o->tensor.shape[i];
  return n;
}

static PyObject* MXFFIPyNDGetNdim(PyObject* self, void* closure) {
  MXFFINDArrayObj* o = MXFFIPyNDHandle(self);
  (void)closure;
  return PyLong_FromLong(o->tensor.ndim);
}

static PyObject* MXFFIPyNDGetSize(PyObject* self, void* closure) {
  MXFFINDArrayObj* o = MXFFIPyNDHandle(self);
  (void)closure;
  return PyLong_FromLongLong(MXFFIPyNDSize(o));
}

static inline long MXFFIPyNDItemsize(const MXFFINDArrayObj* o) {
  const DLDataType t = o->tensor.dtype;
  return t.lanes == 1 ? (t.bits + 7) >> 3 : ((long)t.bits * t.lanes + 7) >> 3;
}

static PyObject* MXFFIPyNDGetItemsize(PyObject* self, void* closure) {
  MXFFINDArrayObj* o = MXFFIPyNDHandle(self);
  (void)closure;
  return PyLong_FromLong(MXFFIPyNDItemsize(o));
}

static PyObject* MXFFIPyNDGetNbytes(PyObject* self, void* closure) {
  MXFFINDArrayObj* o = MXFFIPyNDHandle(self);
  (void)closure;
  return PyLong_FromLongLong(MXFFIPyNDSize(o) * MXFFIPyNDItemsize(o));
}

static PyObject* MXFFIPyNDGetDtype(PyObject* self, void* closure) {
  (void)closure;
  return MXFFIPyNDCached(self, ((MXFFIPyNDArrayMirror*)self)->dtype_cache, "dtype");
}

static PyObject* MXFFIPyNDGetShape(PyObject* self, void* closure) {
  (void)closure;
  return MXFFIPyNDCached(self, ((MXFFIPyNDArrayMirror*)self)->shape_cache, "shape");
}

static PyObject* MXFFIPyNDGetStrides(PyObject* self, void* closure) {
  (void)closure;
  return MXFFIPyNDCached(self, ((MXFFIPyNDArrayMirror*)self)->strides_cache, "strides");
}

/*!
 * \brief Replace the type's descriptors of these attributes with getters of their own, keeping
 *  each property's doc string. Returns 0, or -1 with a Python error set.
 */
static int MXFFIPyNDInstallGetters(PyTypeObject* tp, const MXFFIPyNDArrayLayout* layout) {
  static PyGetSetDef defs[] = {
      {"ndim", MXFFIPyNDGetNdim, NULL, NULL, NULL},
      {"size", MXFFIPyNDGetSize, NULL, NULL, NULL},
      {"itemsize", MXFFIPyNDGetItemsize, NULL, NULL, NULL},
      {"nbytes", MXFFIPyNDGetNbytes, NULL, NULL, NULL},
      {"dtype", MXFFIPyNDGetDtype, NULL, NULL, NULL},
      {"shape", MXFFIPyNDGetShape, NULL, NULL, NULL},
      {"strides", MXFFIPyNDGetStrides, NULL, NULL, NULL},
  };
  if (layout->handle != offsetof(MXFFIPyNDArrayMirror, chandle) ||
      layout->shape_cache != offsetof(MXFFIPyNDArrayMirror, shape_cache) ||
      layout->strides_cache != offsetof(MXFFIPyNDArrayMirror, strides_cache) ||
      layout->dtype_cache != offsetof(MXFFIPyNDArrayMirror, dtype_cache)) {
    PyErr_SetString(PyExc_ImportError,
                    "mxffi: the array type's instance layout is not the one ndarray_attrs.h "
                    "reads; rebuild mxffi");
    return -1;
  }
  mxffi_nd_layout = *layout;
  for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); ++i) {
    PyObject* old = PyDict_GetItemString(tp->tp_dict, defs[i].name); /* borrowed */
    if (old != NULL && defs[i].doc == NULL) {
      /* The property's doc string, kept (never released) for as long as the type lives. */
      PyObject* doc = PyObject_GetAttrString(old, "__doc__");
      if (doc == NULL) return -1;
      if (PyUnicode_Check(doc)) defs[i].doc = PyUnicode_AsUTF8(doc);
      if (defs[i].doc == NULL) PyErr_Clear();
    }
    PyObject* descr = PyDescr_NewGetSet(tp, &defs[i]);
    if (descr == NULL) return -1;
    int rc = PyDict_SetItemString(tp->tp_dict, defs[i].name, descr);
    Py_DECREF(descr);
    if (rc != 0) return -1;
  }
  PyType_Modified(tp);
  return 0;
}

#endif /* MXFFI_PYTHON_NDARRAY_ATTRS_H_ */
