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
  Py_ssize_t ndim;          /*!< offset of the copy of the number of dimensions */
  Py_ssize_t itemsize;      /*!< offset of the copy of the element size */
  /*! \brief The Cython property named `which` ("shape", ...), for every other case. */
  PyObject* (*slow)(PyObject* self, const char* which);
  /*! \brief The DataType of an array (a new reference), or NULL with an error set. */
  PyObject* (*make_dtype)(PyObject* self);
} MXFFIPyNDArrayLayout;

static MXFFIPyNDArrayLayout mxffi_nd_layout;
/*! \brief Whether the getters are installed: from then on every array is set up at creation. */
static int mxffi_nd_installed = 0;
/*!
 * \brief The DataType objects of single-lane dtypes by MXFFIPyNDDtypeSlot, made once and kept
 *  (the Cython core fills it; a.dtype and new arrays take theirs from it).
 */
static PyObject* mxffi_nd_dtype_slots[256];

/*! \return the slot of t in mxffi_nd_dtype_slots, or -1 for a dtype without one. */
static inline int MXFFIPyNDDtypeSlot(DLDataType t) {
  int b;
  if (t.lanes != 1 || t.code >= 32) return -1;
  switch (t.bits) {
    case 8:
      b = 0;
      break;
    case 16:
      b = 1;
      break;
    case 32:
      b = 2;
      break;
    case 64:
      b = 3;
      break;
    case 128:
      b = 4;
      break;
    default:
      return -1;
  }
  return t.code * 8 + b;
}

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
  PyObject* weakref;
  int rw;
  int ndim;
  Py_ssize_t itemsize;
} MXFFIPyNDArrayMirror;

/*!
 * \brief Set up a new array object: the copies of ndim and the element size and the DataType
 *  the getters read without a check. Returns 0, or -1 with a Python error set (no DataType
 *  could be made: the array must not be handed out).
 */
static inline int MXFFIPyNDInit(PyObject* self) {
  MXFFIPyNDArrayMirror* m = (MXFFIPyNDArrayMirror*)self;
  const MXFFINDArrayObj* o = (const MXFFINDArrayObj*)m->chandle;
  const DLDataType t = o->tensor.dtype;
  int slot;
  if (!mxffi_nd_installed) return 0;
  m->ndim = o->tensor.ndim;
  m->itemsize = ((Py_ssize_t)t.bits * t.lanes + 7) >> 3;
  slot = MXFFIPyNDDtypeSlot(t);
  if (slot >= 0 && mxffi_nd_dtype_slots[slot] != NULL) {
    m->dtype_cache = mxffi_nd_dtype_slots[slot];
    Py_INCREF(m->dtype_cache);
    return 0;
  }
  m->dtype_cache = mxffi_nd_layout.make_dtype(self);
  return m->dtype_cache == NULL ? -1 : 0;
}

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

/*!
 * \brief The ints 0 to 64, made at install and kept: ndim and most element sizes are read from
 *  here, a load and an incref where PyLong_FromLong tests its range first (sizes past 64 and
 *  negative values go to PyLong_FromSsize_t).
 */
static PyObject* mxffi_nd_small_ints[65];

static inline PyObject* MXFFIPyNDSmallInt(Py_ssize_t v) {
  if (v >= 0 && v <= 64) {
    PyObject* r = mxffi_nd_small_ints[v];
    Py_INCREF(r);
    return r;
  }
  return PyLong_FromSsize_t(v);
}

static PyObject* MXFFIPyNDGetNdim(PyObject* self, void* closure) {
  (void)closure;
  return MXFFIPyNDSmallInt(((MXFFIPyNDArrayMirror*)self)->ndim);
}

static PyObject* MXFFIPyNDGetSize(PyObject* self, void* closure) {
  MXFFINDArrayObj* o = MXFFIPyNDHandle(self);
  (void)closure;
  return MXFFIPyNDSmallInt((Py_ssize_t)MXFFIPyNDSize(o));
}

static PyObject* MXFFIPyNDGetItemsize(PyObject* self, void* closure) {
  (void)closure;
  return MXFFIPyNDSmallInt(((MXFFIPyNDArrayMirror*)self)->itemsize);
}

static PyObject* MXFFIPyNDGetNbytes(PyObject* self, void* closure) {
  MXFFINDArrayObj* o = MXFFIPyNDHandle(self);
  (void)closure;
  return MXFFIPyNDSmallInt(
      (Py_ssize_t)(MXFFIPyNDSize(o) * ((MXFFIPyNDArrayMirror*)self)->itemsize));
}

static PyObject* MXFFIPyNDGetDtype(PyObject* self, void* closure) {
  /* Set when the array was made (MXFFIPyNDInit), never NULL once the getters are in. */
  PyObject* d = ((MXFFIPyNDArrayMirror*)self)->dtype_cache;
  (void)closure;
  Py_INCREF(d);
  return d;
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
 * \brief tp_dealloc of mxffi.Object and of its subclasses that add no field of their own.
 *
 * Cython's deallocator wraps a __dealloc__ in a save and restore of the pending exception, since
 * a __dealloc__ may run Python code; these release the same references without Python code in
 * between. (Freeing the handle may release a producer's Python object through its DLPack
 * deleter; CPython's finalizers keep the pending exception themselves, as for any object.) For
 * an array that saving cost about 200 instructions, a seventh of `a.T`.
 */
static void MXFFIPyObjectDealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  void** handle = &((MXFFIPyNDArrayMirror*)self)->chandle;
  void* h = *handle;
  *handle = NULL;
  if (h != NULL) MXFFIObjectFree(h);
  tp->tp_free(self);
}

/*! \brief tp_dealloc of mxffi.NDArray: its weak references, caches, then its handle. */
static void MXFFIPyNDDealloc(PyObject* self) {
  MXFFIPyNDArrayMirror* m = (MXFFIPyNDArrayMirror*)self;
  if (m->weakref != NULL) PyObject_ClearWeakRefs(self);
  Py_CLEAR(m->shape_cache);
  Py_CLEAR(m->strides_cache);
  Py_CLEAR(m->dtype_cache);
  MXFFIPyObjectDealloc(self);
}

/*!
 * \brief Replace the type's descriptors of these attributes with getters of their own, keeping
 *  each property's doc string, and its deallocator (and object_type's) with the ones above.
 *  Returns 0, or -1 with a Python error set.
 */
static int MXFFIPyNDInstallGetters(PyTypeObject* tp, PyTypeObject* object_type,
                                   const MXFFIPyNDArrayLayout* layout) {
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
      layout->dtype_cache != offsetof(MXFFIPyNDArrayMirror, dtype_cache) ||
      layout->ndim != offsetof(MXFFIPyNDArrayMirror, ndim) ||
      layout->itemsize != offsetof(MXFFIPyNDArrayMirror, itemsize) ||
      tp->tp_weaklistoffset != offsetof(MXFFIPyNDArrayMirror, weakref) ||
      tp->tp_base != object_type || object_type->tp_weaklistoffset != 0 ||
      object_type->tp_basicsize != offsetof(MXFFIPyNDArrayMirror, shape_cache)) {
    PyErr_SetString(PyExc_ImportError,
                    "mxffi: the array type's instance layout is not the one ndarray_attrs.h "
                    "reads; rebuild mxffi");
    return -1;
  }
  mxffi_nd_layout = *layout;
  for (int i = 0; i <= 64; ++i) {
    if (mxffi_nd_small_ints[i] == NULL) mxffi_nd_small_ints[i] = PyLong_FromLong(i);
    if (mxffi_nd_small_ints[i] == NULL) return -1;
  }
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
  tp->tp_dealloc = MXFFIPyNDDealloc;
  object_type->tp_dealloc = MXFFIPyObjectDealloc;
  PyType_Modified(tp);
  PyType_Modified(object_type);
  mxffi_nd_installed = 1;
  return 0;
}

#endif /* MXFFI_PYTHON_NDARRAY_ATTRS_H_ */
