/*!
 * \file fastcall.h
 * \brief The vectorcall slot of mxffi.Function: Python arguments into value cells, one
 *  MXFFIFuncCall, the result back into a Python object.
 *
 * Cython gives an extension type's __call__ only tp_call, which builds an argument tuple (and a
 * dict for keywords) on every call; this slot takes the interpreter's argument vector directly.
 * Arguments are converted by an exact-type switch on the common types with temporaries on the
 * stack; everything else (subclasses, protocols, containers, callables, keyword arguments,
 * errors) goes to slow paths written in Cython, installed through MXFFIPySetHooks.
 *
 * The core is reached only through c_api.h; the object header and the String/Bytes layouts are
 * read by offset, as c_api.h freezes them.
 */
#ifndef MXFFI_PYTHON_FASTCALL_H_
#define MXFFI_PYTHON_FASTCALL_H_

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <mxffi/c_api.h>
#include <mxffi/ndarray/dlpack_compat.h>
#include <numpy/ndarraytypes.h>
#include <pthread.h>
#include <unistd.h>

#include "ndarray_attrs.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
/* Every call goes through MXFFIFuncCall: called through its GOT entry, not a PLT stub, it costs
 * one jump less. */
int MXFFIFuncCall(MXFFIObjectHandle func, const MXFFIAny* args, int32_t num_args, MXFFIAny* result)
    __attribute__((noplt));
#endif

/*! \brief Arguments handled with stack temporaries; more go to the heap. */
#define MXFFI_PY_STACK_ARGS 8
/*! \brief Dimensions a numpy array may have on the fast path. */
#define MXFFI_PY_FAST_NDIM 6

/*!
 * \brief Per-argument temporaries: a byte view for str/bytes, a DLTensor for arrays, the two
 *  parts of a complex number (kMXFFIComplexView points at them).
 */
typedef struct {
  MXFFIByteArray view;
  double complex_parts[2];
  DLTensor tensor;
  int64_t strides[MXFFI_PY_FAST_NDIM];
  /*! \brief The Array made for a tuple argument, released after the call (MXFFIPyReleaseSeq). */
  MXFFIObject* owned;
} MXFFIPyArgTemp;

/*! \brief Items a tuple or list of ints may have to become an Array on the fast path. */
#define MXFFI_PY_FAST_SEQ 8

/*!
 * \brief Slow argument conversion (Cython): fills cell, may append owners to *keep (a list,
 *  created on demand). \return 0, or -1 with a Python exception set.
 */
typedef int (*MXFFIPyArgSlowFn)(PyObject* func, Py_ssize_t index, PyObject* arg, MXFFIAny* cell,
                                MXFFIPyArgTemp* temp, PyObject** keep);
/*! \brief Slow result conversion (Cython): takes ownership of *result. */
typedef PyObject* (*MXFFIPyRetSlowFn)(PyObject* func, MXFFIAny* result);
/*! \brief Raise the last mxffi error of this thread as a Python exception; returns NULL. */
typedef PyObject* (*MXFFIPyRaiseFn)(PyObject* func);
/*! \brief Keyword-argument call (Cython): maps keywords to positions, then calls back here. */
typedef PyObject* (*MXFFIPyCallKwFn)(PyObject* func, PyObject** args, Py_ssize_t nargs,
                                     PyObject* kwnames);

typedef struct {
  MXFFIPyArgSlowFn arg_slow;
  MXFFIPyRetSlowFn ret_slow;
  MXFFIPyRaiseFn raise_error;
  MXFFIPyCallKwFn call_kw;
  /*! \brief mxffi.Object; instances carry their handle at handle_offset. */
  PyTypeObject* object_type;
  Py_ssize_t handle_offset;
  /*! \brief Offset of Function's int flags (bit 0: release the GIL for the call). */
  Py_ssize_t flags_offset;
} MXFFIPyHooks;

static MXFFIPyHooks mxffi_py_hooks;
/*!
 * \brief The Python class registered for each static object type code (NULL: none, or one
 *  the fast path leaves to Cython, such as Function). Holds a reference to each class.
 */
static PyTypeObject* mxffi_py_class_by_index[kMXFFIDynObjectBegin];
/*! \brief The slot of mxffi_py_sparse_class for every storage type this build does not know. */
enum { kMXFFIPyOpaqueSparse = kMXFFIStorageCOO + 1 };
/*!
 * \brief The classes of sparse NDArrays: slots kMXFFIStorageRowSparse, kMXFFIStorageCSR and
 *  kMXFFIStorageCOO, and
 *  kMXFFIPyOpaqueSparse for a storage type this build does not know (an opaque sparse array,
 *  never a dense one); NULL: the NDArray class. An NDArray result becomes one of these when its
 *  stype field says it is not dense.
 */
static PyTypeObject* mxffi_py_sparse_class[kMXFFIPyOpaqueSparse + 1];

/*! \return the slot of mxffi_py_sparse_class for a storage type other than the default. */
static inline int MXFFIPySparseSlot(int32_t stype) {
  return stype == kMXFFIStorageRowSparse || stype == kMXFFIStorageCSR || stype == kMXFFIStorageCOO
             ? stype
             : kMXFFIPyOpaqueSparse;
}
/*! \brief An empty tuple for tp_new. */
static PyObject* mxffi_py_empty_tuple = NULL;
/*! \brief numpy.ndarray once an argument of that exact type has been seen, else NULL. */
static PyTypeObject* mxffi_py_ndarray_type = NULL;
/*!
 * \brief mxffi.DataType and where its DLDataType sits in the instance: dtype=mnp.float32 takes
 *  the exact-type switch like a str does.
 */
static PyTypeObject* mxffi_py_dtype_type = NULL;
static Py_ssize_t mxffi_py_dtype_offset = 0;

#define MXFFI_PY_RELEASE_GIL 1
/*!
 * Function flags of a global with parameter kinds (FuncInfo's): MXFFI_PY_VARIADIC when it has
 * a `*name` argument; the bits from MXFFI_PY_MAX_POS_SHIFT up hold how many arguments a call
 * may pass by position when some are keyword-only. Such a Function gets the vectorcall slot
 * MXFFIPyFunctionVectorcallBound; every other one keeps the plain slot, untouched by kinds.
 */
#define MXFFI_PY_VARIADIC 2
#define MXFFI_PY_MAX_POS_SHIFT 16

static inline void* MXFFIPyHandle(PyObject* obj) {
  return *(void**)((char*)obj + mxffi_py_hooks.handle_offset);
}

static inline int MXFFIPyFlags(PyObject* func) {
  return *(int*)((char*)func + mxffi_py_hooks.flags_offset);
}

/*! \brief Drop a reference the way MXFFIObjectFree does, inline: the header is frozen. */
static inline void MXFFIPyDecRef(MXFFIObject* obj) {
  if (__atomic_fetch_sub(&obj->ref_counter, 1, __ATOMIC_RELEASE) == 1) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (obj->deleter != NULL) obj->deleter(obj);
  }
}

/*! \brief numpy type number to DLDataType; returns 0 when there is no DLPack equivalent. */
static inline int MXFFIPyNumpyDType(int type_num, DLDataType* out) {
  uint8_t code;
  uint8_t bits;
  switch (type_num) {
    case NPY_BOOL:
      code = 6 /* kDLBool */, bits = 8;
      break;
    case NPY_INT8:
      code = kDLInt, bits = 8;
      break;
    case NPY_UINT8:
      code = kDLUInt, bits = 8;
      break;
    case NPY_INT16:
      code = kDLInt, bits = 16;
      break;
    case NPY_UINT16:
      code = kDLUInt, bits = 16;
      break;
    case NPY_INT32:
      code = kDLInt, bits = 32;
      break;
    case NPY_UINT32:
      code = kDLUInt, bits = 32;
      break;
    case NPY_LONG:
      code = kDLInt, bits = (uint8_t)(8 * sizeof(long));
      break;
    case NPY_ULONG:
      code = kDLUInt, bits = (uint8_t)(8 * sizeof(long));
      break;
    case NPY_LONGLONG:
      code = kDLInt, bits = 64;
      break;
    case NPY_ULONGLONG:
      code = kDLUInt, bits = 64;
      break;
    case NPY_FLOAT16:
      code = kDLFloat, bits = 16;
      break;
    case NPY_FLOAT32:
      code = kDLFloat, bits = 32;
      break;
    case NPY_FLOAT64:
      code = kDLFloat, bits = 64;
      break;
    case NPY_COMPLEX64:
      code = kDLComplex, bits = 64;
      break;
    case NPY_COMPLEX128:
      code = kDLComplex, bits = 128;
      break;
    default:
      return 0;
  }
  out->code = code;
  out->bits = bits;
  out->lanes = 1;
  return 1;
}

/*!
 * \brief A numpy array as a borrowed DLTensor, read from the ndarray struct directly.
 * \return 1 when done, 0 when the array needs the slow path (byte-swapped, an unsupported dtype,
 *  more dimensions than the fast path holds, strides not a multiple of the item size).
 */
static inline int MXFFIPyNumpyTensor(PyObject* arg, MXFFIAny* cell, MXFFIPyArgTemp* temp) {
  PyArrayObject_fields* a = (PyArrayObject_fields*)arg;
  PyArray_Descr* descr = a->descr;
  if (descr->byteorder == '>' || a->nd > MXFFI_PY_FAST_NDIM) return 0;
  DLTensor* t = &temp->tensor;
  if (!MXFFIPyNumpyDType(descr->type_num, &t->dtype)) return 0;
  t->data = a->data;
  t->device.device_type = kDLCPU;
  t->device.device_id = 0;
  t->ndim = a->nd;
  t->shape = (int64_t*)a->dimensions; /* npy_intp is int64_t on every 64-bit target */
  t->byte_offset = 0;
  if (a->flags & NPY_ARRAY_C_CONTIGUOUS) {
    t->strides = NULL;
  } else {
    int64_t itemsize = (int64_t)(t->dtype.bits / 8);
    for (int i = 0; i < a->nd; ++i) {
      int64_t s = (int64_t)a->strides[i];
      if (s % itemsize != 0) return 0;
      temp->strides[i] = s / itemsize;
    }
    t->strides = temp->strides;
  }
  cell->type_index = kMXFFIDLTensorPtr;
  cell->v_ptr = t;
  return 1;
}

#ifndef Py_GIL_DISABLED
/*!
 * \brief The Array the last int sequence travelled in, kept for the next one (as CPython keeps
 *  free lists of tuples). It has MXFFI_PY_FAST_SEQ inline cells; only the thread holding the
 *  GIL touches this pointer, and a call in flight has taken it out (a GIL-releasing call on
 *  another thread makes its own).
 */
static MXFFIObject* mxffi_py_seq_cache = NULL;
#endif

/*!
 * \brief A tuple or list of at most MXFFI_PY_FAST_SEQ exact ints as an Array: the cached one
 *  when there is one, else a new one from the core (MXFFIArrayCreate, one allocation). It is an
 *  ordinary C++ Array; after the call MXFFIPyReleaseSeq keeps it or drops it.
 * \return 1 when done, 0 for anything else (left to the slow path; an error only on failure).
 */
static inline int MXFFIPyIntSequence(PyObject* func, PyObject* arg, MXFFIAny* cell,
                                     MXFFIPyArgTemp* temp) {
  Py_ssize_t n = Py_SIZE(arg);
  PyObject** items =
      PyTuple_Check(arg) ? ((PyTupleObject*)arg)->ob_item : ((PyListObject*)arg)->ob_item;
  int64_t values[MXFFI_PY_FAST_SEQ];
  MXFFIArrayObj* array = NULL;
  if (n > MXFFI_PY_FAST_SEQ) return 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    int overflow;
    if (Py_TYPE(items[i]) != &PyLong_Type) return 0;
    values[i] = PyLong_AsLongLongAndOverflow(items[i], &overflow);
    if (overflow != 0) return 0;
  }
#ifndef Py_GIL_DISABLED
  array = (MXFFIArrayObj*)mxffi_py_seq_cache;
  mxffi_py_seq_cache = NULL;
#endif
  if (array == NULL) {
    MXFFIAny none[MXFFI_PY_FAST_SEQ];
    for (int i = 0; i < MXFFI_PY_FAST_SEQ; ++i) {
      none[i].type_index = kMXFFINone;
      none[i].small_len = 0;
      none[i].v_int64 = 0;
    }
    if (MXFFIArrayCreate(none, MXFFI_PY_FAST_SEQ, (MXFFIObjectHandle*)&array) != 0) {
      mxffi_py_hooks.raise_error(func);
      return 0;
    }
  }
  /* Every cell is a plain value (None or int), so overwriting one releases nothing. */
  for (Py_ssize_t i = 0; i < n; ++i) {
    array->data[i].type_index = kMXFFIInt;
    array->data[i].small_len = 0;
    array->data[i].v_int64 = values[i];
  }
  array->size = (int64_t)n;
  cell->type_index = kMXFFIArray;
  cell->small_len = 0;
  cell->v_obj = &array->header;
  temp->owned = &array->header;
  return 1;
}

/*!
 * \brief After the call: keep a sequence's Array for the next call when nothing else holds it
 *  and it is as MXFFIPyIntSequence left it (inline cells, plain values); else drop it.
 */
static inline void MXFFIPyReleaseSeq(MXFFIObject* obj) {
#ifndef Py_GIL_DISABLED
  MXFFIArrayObj* a = (MXFFIArrayObj*)obj;
  if (mxffi_py_seq_cache == NULL && __atomic_load_n(&obj->ref_counter, __ATOMIC_ACQUIRE) == 1 &&
      a->data == (MXFFIAny*)(a + 1) && a->capacity == MXFFI_PY_FAST_SEQ && a->size >= 0 &&
      a->size <= MXFFI_PY_FAST_SEQ) {
    int plain = 1;
    for (int64_t i = 0; i < a->size; ++i) plain &= a->data[i].type_index == kMXFFIInt;
    if (plain) {
      mxffi_py_seq_cache = obj;
      return;
    }
  }
#endif
  MXFFIPyDecRef(obj);
}

/*!
 * \brief How deep containers may nest in one argument. Each level converts its items on the C
 *  stack (this file's frames and the Cython slow path's), so the bound is fixed, not
 *  sys.getrecursionlimit(): a raised recursion limit must not let a deep list overflow the C stack.
 */
#define MXFFI_PY_MAX_NESTING 1000

/*!
 * \brief This thread's container nesting in the argument being converted, and the function and
 *  argument position it started from (borrowed: they outlive the conversion), so that the
 *  error names what the user called, not container.array.
 */
static __thread int mxffi_py_nesting = 0;
static __thread PyObject* mxffi_py_nesting_func = NULL;
static __thread Py_ssize_t mxffi_py_nesting_index = 0;

/*!
 * \brief Enter one level of container nesting. \return the new depth; more than
 *  MXFFI_PY_MAX_NESTING means the caller must leave again and raise.
 */
static inline int MXFFIPyNestingEnter(PyObject* func, Py_ssize_t index) {
  if (mxffi_py_nesting == 0) {
    mxffi_py_nesting_func = func;
    mxffi_py_nesting_index = index;
  }
  return ++mxffi_py_nesting;
}

static inline void MXFFIPyNestingLeave(void) { --mxffi_py_nesting; }

/*! \brief This thread's current container nesting depth (0: converting a top-level argument). */
static inline int MXFFIPyNestingDepth(void) { return mxffi_py_nesting; }

/*! \brief The function and argument position the outermost container belongs to. */
static inline PyObject* MXFFIPyNestingFunc(void) { return mxffi_py_nesting_func; }
static inline Py_ssize_t MXFFIPyNestingIndex(void) { return mxffi_py_nesting_index; }

/*! \brief Producer types (torch.Tensor, ...) whose CPU tensors the exact-type switch takes. */
#define MXFFI_PY_EXCHANGE_TYPES 4

/*!
 * \brief A producer type whose tensors arrive through its DLPack exchange table's
 *  dltensor_from_py_object_no_sync: no capsule, none of the producer's Python code. Entered
 *  by the Cython slow path (dlpack.pxi) once it has checked the table for that exact type.
 */
typedef struct {
  PyTypeObject* type; /* a strong reference */
  DLPackDLTensorFromPyObjectNoSync to_dltensor;
  /*!
   * \brief The table owner's is_neg / is_conj (torch's lazy negation and conjugation bits,
   *  which the table exports without applying), called unbound so a subclass cannot hide them;
   *  NULL where the owner has none.
   */
  PyObject* is_neg;
  PyObject* is_conj;
  /*!
   * \brief The C functions behind is_neg / is_conj where they are METH_NOARGS methods of a base
   *  of type (torch's are): called directly, without the descriptor's call machinery.
   */
  PyCFunction is_neg_fn;
  PyCFunction is_conj_fn;
} MXFFIPyExchangeType;

static MXFFIPyExchangeType mxffi_py_exchange[MXFFI_PY_EXCHANGE_TYPES];
static int mxffi_py_exchange_count = 0;

/*! \brief method's C function when it is a METH_NOARGS method descriptor of a base of tp. */
static inline PyCFunction MXFFIPyNoArgsMethod(PyObject* tp, PyObject* method) {
  PyMethodDescrObject* d;
  if (method == NULL || !Py_IS_TYPE(method, &PyMethodDescr_Type)) return NULL;
  d = (PyMethodDescrObject*)method;
  if (d->d_method->ml_flags != METH_NOARGS) return NULL;
  if (!PyType_IsSubtype((PyTypeObject*)tp, PyDescr_TYPE(d))) return NULL;
  return d->d_method->ml_meth;
}

/*! \brief Enter a producer type; 0 when the table is full (its tensors keep the slow path). */
static inline int MXFFIPyAddExchangeType(PyObject* tp, void* to_dltensor, PyObject* is_neg,
                                         PyObject* is_conj) {
  MXFFIPyExchangeType* e;
  if (mxffi_py_exchange_count == MXFFI_PY_EXCHANGE_TYPES) return 0;
  e = &mxffi_py_exchange[mxffi_py_exchange_count];
  Py_INCREF(tp);
  Py_XINCREF(is_neg);
  Py_XINCREF(is_conj);
  e->type = (PyTypeObject*)tp;
  e->to_dltensor = (DLPackDLTensorFromPyObjectNoSync)to_dltensor;
  e->is_neg = is_neg;
  e->is_conj = is_conj;
  e->is_neg_fn = MXFFIPyNoArgsMethod(tp, is_neg);
  e->is_conj_fn = MXFFIPyNoArgsMethod(tp, is_conj);
  ++mxffi_py_exchange_count;
  return 1;
}

/*! \brief The entry of a producer type, or NULL. */
static inline const MXFFIPyExchangeType* MXFFIPyFindExchange(PyTypeObject* tp) {
  int k;
  for (k = 0; k < mxffi_py_exchange_count; ++k) {
    if (mxffi_py_exchange[k].type == tp) return &mxffi_py_exchange[k];
  }
  return NULL;
}

/*! \brief 1 when bit(obj) is True, 0 when not, -1 with an exception set. */
static inline int MXFFIPyBitSet(PyObject* bit, PyCFunction bit_fn, PyObject* obj) {
  PyObject* r;
  if (bit == NULL) return 0;
  r = bit_fn != NULL ? bit_fn(obj, NULL) : PyObject_CallOneArg(bit, obj);
  if (r == NULL) return -1;
  Py_DECREF(r);
  return r == Py_True;
}

/*!
 * \brief A CPU tensor of a producer type through its exchange table, into temp->tensor (a view
 *  of the producer's own shape and strides, valid while the argument lives: the call holds it).
 * \return 1 when done; 0 for the slow path: a tensor off the CPU (its stream is to be ordered),
 *  one with a lazy bit set (to be refused by name), or one the table refuses (the capsule route
 *  then raises the producer's own error); -1 with an exception set.
 */
static inline int MXFFIPyExchangeTensor(const MXFFIPyExchangeType* e, PyObject* arg, MXFFIAny* cell,
                                        MXFFIPyArgTemp* temp) {
  DLTensor* t = &temp->tensor;
  int bit;
  if (e->to_dltensor(arg, t) != 0) {
    PyErr_Clear();
    return 0;
  }
  if (t->device.device_type != kDLCPU) return 0;
  bit = MXFFIPyBitSet(e->is_neg, e->is_neg_fn, arg);
  if (bit != 0) return bit < 0 ? -1 : 0;
  if (t->dtype.code == kDLComplex) {
    bit = MXFFIPyBitSet(e->is_conj, e->is_conj_fn, arg);
    if (bit != 0) return bit < 0 ? -1 : 0;
  }
  cell->type_index = kMXFFIDLTensorPtr;
  cell->v_ptr = t;
  return 1;
}

/*!
 * \brief An exact int's value when it fits one machine digit or less (most ints a call
 *  passes), read from the object as CPython's own compact-int test does; otherwise
 *  PyLong_AsLongLongAndOverflow. \return 1 with *out set, 0 when it does not fit int64 (no
 *  error set).
 */
static inline int MXFFIPyLongToInt64(PyObject* arg, int64_t* out) {
#if PY_VERSION_HEX >= 0x030C0000
  if (PyUnstable_Long_IsCompact((PyLongObject*)arg)) {
    *out = (int64_t)PyUnstable_Long_CompactValue((PyLongObject*)arg);
    return 1;
  }
#else
  const Py_ssize_t size = Py_SIZE(arg);
  if (size >= -1 && size <= 1) { /* size 0 is the int 0 */
    *out = (int64_t)size * (int64_t)((PyLongObject*)arg)->ob_digit[0];
    return 1;
  }
#endif
  int overflow;
  const long long v = PyLong_AsLongLongAndOverflow(arg, &overflow);
  *out = v;
  return overflow == 0;
}

/*!
 * \brief A cell's type_index, and its small_len as zero (the C ABI's rule for every type but
 *  the inline strings), in one 8-byte store.
 */
static inline void MXFFIPySetType(MXFFIAny* cell, int32_t type_index) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  /* type_index at offset 0, small_len at 4 (docs/c_abi.md): the low and high halves */
  _Static_assert(offsetof(MXFFIAny, small_len) == 4, "MXFFIAny's frozen layout");
  const uint64_t head = (uint32_t)type_index;
  memcpy(cell, &head, sizeof(head));
#else
  cell->type_index = type_index;
  cell->small_len = 0;
#endif
}

/*!
 * \brief An exact int (within int64), float, str, None or bool into a value cell, a str's bytes
 *  through view. \return 1 when converted, 0 when arg is none of these or an int past int64
 *  (nothing set), -1 with an error set (a str that is not valid UTF-8).
 */
static inline int MXFFIPyScalarCell(PyObject* arg, PyTypeObject* tp, MXFFIAny* cell,
                                    MXFFIByteArray* view) {
  if (tp == &PyLong_Type) {
    if (!MXFFIPyLongToInt64(arg, &cell->v_int64)) return 0;
    MXFFIPySetType(cell, kMXFFIInt);
  } else if (tp == &PyFloat_Type) {
    MXFFIPySetType(cell, kMXFFIFloat);
    cell->v_float64 = PyFloat_AS_DOUBLE(arg);
  } else if (tp == &PyUnicode_Type) {
    Py_ssize_t n;
    const char* s = PyUnicode_AsUTF8AndSize(arg, &n);
    if (s == NULL) return -1;
    view->data = s;
    view->size = (size_t)n;
    MXFFIPySetType(cell, kMXFFIStrView);
    cell->v_ptr = view;
  } else if (arg == Py_None) {
    MXFFIPySetType(cell, kMXFFINone);
    cell->v_int64 = 0;
  } else if (tp == &PyBool_Type) {
    MXFFIPySetType(cell, kMXFFIBool);
    cell->v_int64 = arg == Py_True;
  } else {
    return 0;
  }
  return 1;
}

/*! \brief An mxffi Object's handle into a value cell. \return 0 when it has none. */
static inline int MXFFIPyObjectCell(PyObject* arg, MXFFIAny* cell) {
  MXFFIObject* obj = (MXFFIObject*)MXFFIPyHandle(arg);
  if (obj == NULL) return 0;
  cell->type_index = obj->type_index;
  cell->v_obj = obj;
  return 1;
}

/*! \brief One argument into a value cell; the exact-type switch, then the Cython slow path. */
static inline int MXFFIPyConvertArg(PyObject* func, Py_ssize_t i, PyObject* arg, MXFFIAny* cell,
                                    MXFFIPyArgTemp* temp, PyObject** keep) {
  PyTypeObject* tp = Py_TYPE(arg);
  const MXFFIPyExchangeType* exchange;
  cell->small_len = 0;
  int scalar;
  if (tp == mxffi_py_class_by_index[kMXFFINDArray] && tp != NULL) {
    /* mxffi's own dense array first: the commonest argument of array calls, which would
     * otherwise fail every exact-type test below and walk the MRO in PyType_IsSubtype */
    if (MXFFIPyObjectCell(arg, cell)) return 0;
    return mxffi_py_hooks.arg_slow(func, i, arg, cell, temp, keep);
  }
  if ((scalar = MXFFIPyScalarCell(arg, tp, cell, &temp->view)) != 0) {
    return scalar < 0 ? -1 : 0;
  }
  if (tp == &PyLong_Type) {
    /* past int64: the slow path (uint64, or its OverflowError) */
  } else if (tp == &PyBytes_Type) {
    temp->view.data = PyBytes_AS_STRING(arg);
    temp->view.size = (size_t)PyBytes_GET_SIZE(arg);
    cell->type_index = kMXFFIBytesView;
    cell->v_ptr = &temp->view;
    return 0;
  } else if (tp == mxffi_py_ndarray_type) {
    if (MXFFIPyNumpyTensor(arg, cell, temp)) return 0;
  } else if (tp == &PyTuple_Type || tp == &PyList_Type) {
    if (MXFFIPyIntSequence(func, arg, cell, temp)) return 0;
    if (PyErr_Occurred()) return -1;
  } else if (mxffi_py_exchange_count != 0 && (exchange = MXFFIPyFindExchange(tp)) != NULL) {
    /* before the Object test: a torch tensor's class walks no MRO */
    int done = MXFFIPyExchangeTensor(exchange, arg, cell, temp);
    if (done != 0) return done < 0 ? -1 : 0;
  } else if (PyType_IsSubtype(tp, mxffi_py_hooks.object_type)) {
    if (MXFFIPyObjectCell(arg, cell)) return 0;
  } else if (tp == mxffi_py_dtype_type) { /* last: shapes and arrays pay nothing for it */
    cell->type_index = kMXFFIDataType;
    cell->v_int64 = 0;
    memcpy(&cell->v_dtype, (char*)arg + mxffi_py_dtype_offset, sizeof(DLDataType));
    return 0;
  }
  return mxffi_py_hooks.arg_slow(func, i, arg, cell, temp, keep);
}

/*! \brief Texts up to this many bytes are tested for ASCII by MXFFIPyDecodeText. */
#define MXFFI_PY_ASCII_TEST 64

/*!
 * \brief A str from n bytes of UTF-8. Short ASCII text (most results: names, keys, messages)
 *  is copied into a new compact str, skipping the decoder's set-up; the rest is decoded by
 *  PyUnicode_DecodeUTF8, which also raises for invalid UTF-8.
 */
static inline PyObject* MXFFIPyDecodeText(const char* s, Py_ssize_t n) {
  if (n <= MXFFI_PY_ASCII_TEST) {
    uint64_t bits = 0, w;
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
      memcpy(&w, s + i, 8);
      bits |= w;
    }
    if (i < n && n >= 8) { /* the last 8 bytes, overlapping those read */
      memcpy(&w, s + n - 8, 8);
      bits |= w;
    } else {
      for (; i < n; ++i) bits |= (unsigned char)s[i];
    }
    if ((bits & 0x8080808080808080ULL) == 0) {
      PyObject* out = PyUnicode_New(n, 127);
      if (out != NULL) memcpy(PyUnicode_1BYTE_DATA(out), s, (size_t)n);
      return out;
    }
  }
  return PyUnicode_DecodeUTF8(s, n, NULL);
}

/*! \brief MXFFIPyDecodeText out of line, for the general result switch: its callers' frames
 *  stay as small as a call of PyUnicode_DecodeUTF8 keeps them. */
static __attribute__((noinline)) PyObject* MXFFIPyDecodeTextOut(const char* s, Py_ssize_t n) {
  return MXFFIPyDecodeText(s, n);
}

/*! \brief A result cell into a Python object, taking ownership of the cell. */
static inline PyObject* MXFFIPyReturn(PyObject* func, MXFFIAny* r) {
  switch (r->type_index) {
    case kMXFFINone:
      Py_RETURN_NONE;
    case kMXFFIInt:
      return PyLong_FromLongLong(r->v_int64);
    case kMXFFIFloat:
      return PyFloat_FromDouble(r->v_float64);
    case kMXFFIBool:
      return PyBool_FromLong((long)r->v_int64);
    case kMXFFISmallStr:
      return MXFFIPyDecodeTextOut(r->v_bytes, (Py_ssize_t)r->small_len);
    case kMXFFIString: {
      MXFFIStringObj* s = (MXFFIStringObj*)r->v_obj;
      PyObject* out = MXFFIPyDecodeTextOut(s->data, (Py_ssize_t)s->size);
      MXFFIPyDecRef(r->v_obj);
      return out;
    }
    default:
      if (r->type_index >= kMXFFIStaticObjectBegin && r->type_index < kMXFFIDynObjectBegin &&
          mxffi_py_class_by_index[r->type_index] != NULL) {
        /* A registered class: Object's tp_new (Cython's, as Object.__new__(cls) runs it; not
         * the class's own __new__) and the handle. */
        PyTypeObject* cls = mxffi_py_class_by_index[r->type_index];
        if (r->type_index == kMXFFINDArray) {
          int32_t stype = ((MXFFINDArrayObj*)r->v_obj)->stype;
          if (stype != kMXFFIStorageDefault &&
              mxffi_py_sparse_class[MXFFIPySparseSlot(stype)] != NULL) {
            cls = mxffi_py_sparse_class[MXFFIPySparseSlot(stype)];
          }
        }
        PyObject* out = mxffi_py_hooks.object_type->tp_new(cls, mxffi_py_empty_tuple, NULL);
        if (out == NULL) {
          MXFFIPyDecRef(r->v_obj);
          return NULL;
        }
        *(void**)((char*)out + mxffi_py_hooks.handle_offset) = r->v_obj;
        if (r->type_index == kMXFFINDArray && MXFFIPyNDInit(out) != 0) {
          Py_DECREF(out);
          return NULL;
        }
        return out;
      }
      return mxffi_py_hooks.ret_slow(func, r);
  }
}

/*!
 * \brief MXFFIPyReturn for the scalar and no-argument paths, whose results are mostly None,
 *  int or float: those by compare and branch ahead of the general switch; other results out of
 *  line, so the paths keep a small frame. The general path keeps MXFFIPyReturn inline, where
 *  an array result would pay for these compares and a call.
 */
static __attribute__((noinline)) PyObject* MXFFIPyReturnOther(PyObject* func, MXFFIAny* r) {
  return MXFFIPyReturn(func, r);
}
static inline PyObject* MXFFIPyReturnScalar(PyObject* func, MXFFIAny* r) {
  if (r->type_index == kMXFFINone) Py_RETURN_NONE;
  if (r->type_index == kMXFFIInt) return PyLong_FromLongLong(r->v_int64);
  if (r->type_index == kMXFFIFloat) return PyFloat_FromDouble(r->v_float64);
  return MXFFIPyReturnOther(func, r);
}

/*!
 * \brief MXFFIPyReturnScalar after a call that lent a result buffer (MXFFIPyLendResult), where
 *  a function that wrote no result leaves the loan's code rather than None: int and float are
 *  tested first, None's two forms after them.
 */
static inline PyObject* MXFFIPyReturnScalarLent(PyObject* func, MXFFIAny* r) {
  if (r->type_index == kMXFFIInt) return PyLong_FromLongLong(r->v_int64);
  if (r->type_index == kMXFFIFloat) return PyFloat_FromDouble(r->v_float64);
  if (r->type_index == kMXFFIBufferStr) {
    return MXFFIPyDecodeText((const char*)r->v_ptr, (Py_ssize_t)r->small_len);
  }
  if (r->type_index == kMXFFIResultBuffer || r->type_index == kMXFFINone) Py_RETURN_NONE;
  return MXFFIPyReturnOther(func, r);
}

/*!
 * \brief Let sparse NDArray results of a slot (kMXFFIStorageRowSparse, kMXFFIStorageCSR,
 *  kMXFFIStorageCOO, or
 *  kMXFFIPyOpaqueSparse for storage types this build does not know) become instances of cls.
 */
static inline int MXFFIPySetSparseClass(int32_t slot, PyObject* cls) {
  if (slot != kMXFFIStorageRowSparse && slot != kMXFFIStorageCSR && slot != kMXFFIStorageCOO &&
      slot != kMXFFIPyOpaqueSparse) {
    return 0;
  }
  Py_XINCREF(cls);
  Py_XDECREF((PyObject*)mxffi_py_sparse_class[slot]);
  mxffi_py_sparse_class[slot] = (PyTypeObject*)cls;
  return 0;
}

/*! \brief Let results of a static type code become instances of cls without Cython. */
static inline int MXFFIPySetClass(int32_t type_index, PyObject* cls) {
  if (type_index < kMXFFIStaticObjectBegin || type_index >= kMXFFIDynObjectBegin) return 0;
  if (mxffi_py_empty_tuple == NULL) {
    mxffi_py_empty_tuple = PyTuple_New(0);
    if (mxffi_py_empty_tuple == NULL) return -1;
  }
  Py_XINCREF(cls);
  Py_XDECREF((PyObject*)mxffi_py_class_by_index[type_index]);
  mxffi_py_class_by_index[type_index] = (PyTypeObject*)cls;
  return 0;
}

/*!
 * \brief A container that contains itself (or one nested past the recursion limit) fails its
 *  conversion with CPython's bare RecursionError; raise one that names the function and the
 *  argument instead, the original as its cause. Any other error is left as it is.
 */
#define MXFFI_PY_RECURSION_WHAT \
  " contains itself, or is nested deeper than the recursion limit allows ("
/*! \brief Part of the RecursionError convert.pxi's _nested_call raises past its nesting bound. */
#define MXFFI_PY_NESTING_BOUND "; mxffi converts containers nested at most "

static void MXFFIPyNameRecursionError(PyObject* func, Py_ssize_t i) {
  if (!PyErr_ExceptionMatches(PyExc_RecursionError)) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb != NULL && value != NULL) PyException_SetTraceback(value, tb);
  PyObject* name = PyObject_GetAttrString(func, "name");
  const char* callee = name != NULL && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
  PyErr_Clear();
  if (callee == NULL) callee = "mxffi.Function";
  // The original error: past the one this made for a nested conversion (a list inside a list
  // is converted by a call of its own), whose cause it is; only the outermost call is named.
  PyObject* original = value;
  Py_XINCREF(original);
  PyObject* text = original != NULL ? PyObject_Str(original) : NULL;
  const char* what = text != NULL ? PyUnicode_AsUTF8(text) : NULL;
  PyErr_Clear();
  if (what != NULL && strstr(what, MXFFI_PY_NESTING_BOUND) != NULL) {
    callee = NULL;  // the nesting bound's error (convert.pxi) names the outermost call already
  } else if (what != NULL && strstr(what, MXFFI_PY_RECURSION_WHAT) != NULL) {
    PyObject* cause = PyException_GetCause(original);
    if (cause != NULL) {
      Py_DECREF(original);
      original = cause;
      Py_XDECREF(text);
      text = PyObject_Str(original);
      what = text != NULL ? PyUnicode_AsUTF8(text) : NULL;
      PyErr_Clear();
    }
  } else if (what != NULL && strncmp(what, callee, strlen(callee)) == 0) {
    callee = NULL;  // it names the function already: leave it as it is
  }
  if (callee == NULL) {
    PyErr_Restore(type, value, tb);
  } else {
    PyErr_Format(PyExc_RecursionError, "%s: argument #%zd" MXFFI_PY_RECURSION_WHAT "%s)", callee, i,
                 what != NULL ? what : "maximum recursion depth exceeded");
    PyObject *new_type, *new_value, *new_tb;
    PyErr_Fetch(&new_type, &new_value, &new_tb);
    PyErr_NormalizeException(&new_type, &new_value, &new_tb);
    if (original != NULL && new_value != NULL) {
      Py_INCREF(original);
      PyException_SetCause(new_value, original);  // steals the reference
      Py_INCREF(original);
      PyException_SetContext(new_value, original);  // steals the reference
    }
    PyErr_Restore(new_type, new_value, new_tb);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
  }
  Py_XDECREF(original);
  Py_XDECREF(text);
  Py_XDECREF(name);
}

/*! \brief MXFFIFuncCall with the GIL released; out of line, so that callers' frames stay small. */
static __attribute__((noinline)) int MXFFIPyCallWithoutGIL(void* handle, const MXFFIAny* cells,
                                                           int32_t nargs, MXFFIAny* result) {
  int rc;
  Py_BEGIN_ALLOW_THREADS;
  rc = MXFFIFuncCall(handle, cells, nargs, result);
  Py_END_ALLOW_THREADS;
  return rc;
}

/*!
 * \brief The bytes a call lends for a text result (kMXFFIResultBuffer, docs/c_abi.md): a text
 *  result shorter than this comes back in the caller's frame, with no String made and freed.
 */
#define MXFFI_PY_RESULT_BUFFER 256

/*! \brief Set *result to lend buf, MXFFI_PY_RESULT_BUFFER bytes, for a text result. */
static inline void MXFFIPyLendResult(MXFFIAny* result, char* buf) {
  result->type_index = kMXFFIResultBuffer;
  result->small_len = MXFFI_PY_RESULT_BUFFER;
  result->v_ptr = buf;
}

/*!
 * \brief MXFFIFuncCall of handle into *result (set to None first), with the GIL released for
 *  a Function flagged MXFFI_PY_RELEASE_GIL. \return MXFFIFuncCall's code.
 */
static inline int MXFFIPyInvoke(PyObject* func, void* handle, const MXFFIAny* cells, int32_t nargs,
                                MXFFIAny* result) {
  result->type_index = kMXFFINone;
  result->small_len = 0;
  result->v_int64 = 0;
  if (MXFFIPyFlags(func) & MXFFI_PY_RELEASE_GIL) {
    return MXFFIPyCallWithoutGIL(handle, cells, nargs, result);
  }
  return MXFFIFuncCall(handle, cells, nargs, result);
}

/*!
 * \brief Positional call with a ready argument vector: convert, call, convert back.
 * \note Arguments are borrowed by the callee, so nothing is reference-counted on the way in;
 *  owners made by the slow path (containers, callables, buffers) live in keep until the return.
 */
static PyObject* MXFFIPyCallPositional(PyObject* func, PyObject** args, Py_ssize_t nargs) {
  MXFFIAny stack_cells[MXFFI_PY_STACK_ARGS];
  MXFFIPyArgTemp stack_temps[MXFFI_PY_STACK_ARGS];
  MXFFIAny* cells = stack_cells;
  MXFFIPyArgTemp* temps = stack_temps;
  PyObject* keep = NULL;
  PyObject* out = NULL;
  MXFFIAny result;
  Py_ssize_t converted = 0;
  if (MXFFIPyHandle(func) == NULL) {
    PyErr_SetString(PyExc_TypeError,
                    "mxffi.Function: the function handle is NULL (a Function made without one); "
                    "functions come from get_global_func, register_func or a call");
    return NULL;
  }
  if (nargs > MXFFI_PY_STACK_ARGS) {
    if (nargs > INT32_MAX) {
      PyErr_Format(PyExc_TypeError, "mxffi.Function: %zd arguments is more than a call takes",
                   nargs);
      return NULL;
    }
    cells = (MXFFIAny*)PyMem_Malloc(sizeof(MXFFIAny) * (size_t)nargs);
    temps = (MXFFIPyArgTemp*)PyMem_Malloc(sizeof(MXFFIPyArgTemp) * (size_t)nargs);
    if (cells == NULL || temps == NULL) {
      PyErr_NoMemory();
      goto done;
    }
  }
  for (converted = 0; converted < nargs; ++converted) {
    temps[converted].owned = NULL;
    if (MXFFIPyConvertArg(func, converted, args[converted], &cells[converted], &temps[converted],
                          &keep) != 0) {
      MXFFIPyNameRecursionError(func, converted);
      ++converted;
      goto done;
    }
  }
  if (MXFFIPyInvoke(func, MXFFIPyHandle(func), cells, (int32_t)nargs, &result) != 0) {
    mxffi_py_hooks.raise_error(func);
  } else {
    out = MXFFIPyReturn(func, &result);
  }
done:
  for (Py_ssize_t i = 0; i < converted; ++i) {
    if (temps[i].owned != NULL) MXFFIPyReleaseSeq(temps[i].owned);
  }
  Py_XDECREF(keep);
  if (cells != stack_cells) PyMem_Free(cells);
  if (temps != stack_temps) PyMem_Free(temps);
  return out;
}

/*! \brief Whether the interpreter is shutting down (the public name arrived in 3.13). */
static inline int MXFFIPyIsFinalizing(void) {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
}

/*
 * Taking the GIL back at exit. CPython ends a thread that takes the GIL once finalization has
 * begun (pthread_exit before 3.14; 3.14 hangs it instead). pthread_exit unwinds the thread's
 * stack, and unwinding through C++ frames that cannot pass it (an implicitly noexcept
 * destructor such as ~ScopedGILRelease, a catch (...) that does not rethrow) aborts the
 * process: a daemon thread inside a kernel when the interpreter exits ended the process with
 * "terminate called". So a thread re-taking the GIL from C++ (after a kernel, for a signal
 * check, to drop a Python object) never does once exit has begun: it waits for good, as
 * CPython 3.14 makes such threads do, and the process exits around it. An atexit hook, run
 * before finalization starts, closes the gate; threads already past it get the GIL and run on
 * until they give it back, and the exiting thread itself always passes.
 */
static int mxffi_gil_gate_closed = 0;
static int mxffi_gil_passing = 0;
static pthread_t mxffi_gil_exiting_thread;

static void MXFFIPyWaitForever(void) {
  for (;;) pause();
}

/*! \brief Whether exit has begun: the gate is closed, or finalization started without it. */
static inline int MXFFIPyGILGateShut(void) {
  return __atomic_load_n(&mxffi_gil_gate_closed, __ATOMIC_SEQ_CST) || MXFFIPyIsFinalizing();
}

/*! \brief Whether this thread is the one that closed the gate (the exiting thread). */
static inline int MXFFIPyIsExitingThread(void) {
  return __atomic_load_n(&mxffi_gil_gate_closed, __ATOMIC_SEQ_CST) &&
         pthread_equal(pthread_self(), mxffi_gil_exiting_thread);
}

/*!
 * \brief Enter the gate before taking the GIL from C++; MXFFIPyGILGateLeave(its result) once
 *  the GIL is held. may_hold: the caller may hold the GIL already (dropping a Python object,
 *  a signal check); such a thread passes uncounted, as waiting would keep the exiting thread
 *  from the GIL for ever. Whether it holds it is asked only before finalization starts: once
 *  it has, PyGILState_Check answers yes for every thread (its thread-state key is gone), and
 *  no thread but the exiting one can hold the GIL anyway.
 */
static inline int MXFFIPyGILGateEnter(int may_hold) {
  if (MXFFIPyGILGateShut()) {
    if (MXFFIPyIsExitingThread()) return 0;
    if (may_hold && !MXFFIPyIsFinalizing() && PyGILState_Check()) return 0;
    MXFFIPyWaitForever();
  }
  if (may_hold && PyGILState_Check()) return 0;
  __atomic_add_fetch(&mxffi_gil_passing, 1, __ATOMIC_SEQ_CST);
  if (MXFFIPyGILGateShut() && !MXFFIPyIsExitingThread()) {
    __atomic_sub_fetch(&mxffi_gil_passing, 1, __ATOMIC_SEQ_CST);
    MXFFIPyWaitForever();
  }
  return 1;
}

static inline void MXFFIPyGILGateLeave(int counted) {
  if (counted) __atomic_sub_fetch(&mxffi_gil_passing, 1, __ATOMIC_SEQ_CST);
}

/*!
 * \brief PyEval_SaveThread when this thread holds the GIL; NULL (nothing released) otherwise,
 *  and once exit has begun for any thread but the exiting one: a thread inside a kernel then
 *  does not hold the GIL, though PyGILState_Check may say so late in finalization.
 */
static inline void* MXFFIPySaveThread(void) {
  if (MXFFIPyGILGateShut() && !MXFFIPyIsExitingThread()) return NULL;
  if (!PyGILState_Check()) return NULL;
  return (void*)PyEval_SaveThread();
}

/*! \brief PyEval_RestoreThread through the gate (the caller released the GIL itself). */
static inline void MXFFIPyRestoreThread(void* state) {
  int counted = MXFFIPyGILGateEnter(0);
  PyEval_RestoreThread((PyThreadState*)state);
  MXFFIPyGILGateLeave(counted);
}

/*! \brief PyGILState_Ensure through the gate. */
static inline PyGILState_STATE MXFFIPyEnsureGIL(void) {
  int counted = MXFFIPyGILGateEnter(1);
  PyGILState_STATE st = PyGILState_Ensure();
  MXFFIPyGILGateLeave(counted);
  return st;
}

/*!
 * \brief Close the gate (atexit, GIL held, before finalization begins), then wait with the GIL
 *  released until every thread that passed it has taken the GIL and given it back.
 */
static void MXFFIPyCloseGILGate(void) {
  mxffi_gil_exiting_thread = pthread_self();
  __atomic_store_n(&mxffi_gil_gate_closed, 1, __ATOMIC_SEQ_CST);
  Py_BEGIN_ALLOW_THREADS;
  while (__atomic_load_n(&mxffi_gil_passing, __ATOMIC_SEQ_CST) != 0) usleep(100);
  Py_END_ALLOW_THREADS;
}

/*
 * C++ dropping a Python callback's error. error.set_foreign takes the function C++ calls with
 * the exception's token when it frees the error unraised, and accepts only a function exported
 * under the name MXFFIForeignErrorReleased (it checks with dladdr): no Python caller can hand
 * it an address to jump to. It runs on any thread, perhaps under C++ locks, so it only queues
 * the token; the binding drops the exception at its next raise or stash, with the GIL.
 */
#define MXFFI_PY_RELEASED_MAX 1024
static PyThread_type_lock mxffi_released_lock = NULL;
static int64_t mxffi_released[MXFFI_PY_RELEASED_MAX];
static int mxffi_released_count = 0;

__attribute__((visibility("default"))) void MXFFIForeignErrorReleased(int64_t token) {
  if (mxffi_released_lock == NULL) return;
  PyThread_acquire_lock(mxffi_released_lock, WAIT_LOCK);
  // Past the queue's size a token is not queued: its exception stays until the table's bound
  // evicts it.
  int n = __atomic_load_n(&mxffi_released_count, __ATOMIC_RELAXED);
  if (n < MXFFI_PY_RELEASED_MAX) {
    mxffi_released[n] = token;
    __atomic_store_n(&mxffi_released_count, n + 1, __ATOMIC_RELAXED);
  }
  PyThread_release_lock(mxffi_released_lock);
}

/*! \brief Move up to max_count queued tokens into out; how many. */
static int MXFFIPyTakeReleased(int64_t* out, int max_count) {
  if (mxffi_released_lock == NULL) {
    mxffi_released_lock = PyThread_allocate_lock();  // with the GIL, before any error is set
    return 0;
  }
  if (__atomic_load_n(&mxffi_released_count, __ATOMIC_RELAXED) == 0) return 0;
  PyThread_acquire_lock(mxffi_released_lock, WAIT_LOCK);
  // The count is atomic because it is also read without the lock, above; under the lock,
  // relaxed loads and stores suffice.
  int count = __atomic_load_n(&mxffi_released_count, __ATOMIC_RELAXED);
  int n = count < max_count ? count : max_count;
  memcpy(out, mxffi_released, sizeof(int64_t) * (size_t)n);
  memmove(mxffi_released, mxffi_released + n, sizeof(int64_t) * (size_t)(count - n));
  __atomic_store_n(&mxffi_released_count, count - n, __ATOMIC_RELAXED);
  PyThread_release_lock(mxffi_released_lock);
  return n;
}

/*! \brief The most arguments the scalar path takes. */
#define MXFFI_PY_SCALAR_ARGS 3

/*!
 * \brief A positional call of at most MXFFI_PY_SCALAR_ARGS arguments that are all exact ints
 *  (within int64), floats, strs, bools or None: a frame of a few cells and nothing to release
 *  afterwards, where MXFFIPyCallPositional keeps room for arrays, sequences and temporaries.
 *  At the first argument of any other kind the call goes to MXFFIPyCallPositional, which
 *  converts every argument again (the conversions here change nothing).
 */
static __attribute__((noinline)) PyObject* MXFFIPyCallScalars(PyObject* func, PyObject* const* args,
                                                              Py_ssize_t nargs) {
  MXFFIAny cells[MXFFI_PY_SCALAR_ARGS];
  MXFFIByteArray views[MXFFI_PY_SCALAR_ARGS];
  MXFFIAny result;
  void* handle = MXFFIPyHandle(func);
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    cells[i].small_len = 0;
    const int scalar = MXFFIPyScalarCell(args[i], Py_TYPE(args[i]), &cells[i], &views[i]);
    if (scalar < 0) return NULL; /* a lone surrogate: the full path raises the same */
    if (scalar == 0) goto full;
  }
  if (handle == NULL) goto full; /* the full path raises its TypeError */
  if (MXFFIPyInvoke(func, handle, cells, (int32_t)nargs, &result) != 0) {
    mxffi_py_hooks.raise_error(func);
    return NULL;
  }
  return MXFFIPyReturnScalar(func, &result);
full:
  return MXFFIPyCallPositional(func, (PyObject**)args, nargs);
}

/*!
 * \brief A call with no arguments: the handle, the call and the result, with nothing else in
 *  the frame.
 */
static __attribute__((noinline)) PyObject* MXFFIPyCallNoArgs(PyObject* func) {
  MXFFIAny result;
  void* handle = MXFFIPyHandle(func);
  if (handle == NULL) return MXFFIPyCallPositional(func, NULL, 0); /* raises its TypeError */
  if (MXFFIPyInvoke(func, handle, NULL, 0, &result) != 0) {
    mxffi_py_hooks.raise_error(func);
    return NULL;
  }
  return MXFFIPyReturnScalar(func, &result);
}

/*!
 * \brief MXFFIFuncCall of handle into *result, set to None first (its type only, as the C ABI
 *  asks), for the slots installed only on Functions that keep the GIL through their calls.
 */
static inline int MXFFIPyInvokeHeld(void* handle, const MXFFIAny* cells, int32_t nargs,
                                    MXFFIAny* result) {
  result->type_index = kMXFFINone;
  result->small_len = 0;
  return MXFFIFuncCall(handle, cells, nargs, result);
}

static PyObject* MXFFIPyFunctionVectorcallScalars(PyObject* func, PyObject* const* args,
                                                  size_t nargsf, PyObject* kwnames);

/*! \brief A no-argument call's frame: the result cell, and the Function beside it. */
typedef struct {
  MXFFIAny result;
  PyObject* func;
} MXFFIPyNoArgsFrame;

/*! \brief The rest of a no-argument call whose result is not None, or that failed. */
static __attribute__((noinline)) PyObject* MXFFIPyNoArgsFinish(int rc, MXFFIPyNoArgsFrame* f) {
  if (rc != 0) {
    mxffi_py_hooks.raise_error(f->func);
    return NULL;
  }
  return MXFFIPyReturnScalar(f->func, &f->result);
}

/*!
 * \brief The vectorcall slot of a global without parameters that keeps the GIL through its
 *  calls: MXFFIPyCallNoArgs in the slot's own frame, without the test of MXFFI_PY_RELEASE_GIL.
 *  A call passing arguments takes MXFFIPyFunctionVectorcallScalars (and its TypeError). The
 *  Function waits beside the result cell, whose address the call takes, so that nothing is kept
 *  in a register across the call; a None result returns at once, the rest is out of line.
 */
static PyObject* MXFFIPyFunctionVectorcallNoArgsHeld(PyObject* func, PyObject* const* args,
                                                     size_t nargsf, PyObject* kwnames) {
  /* PyVectorcall_NARGS(nargsf) != 0 (nargsf less its top bit, PY_VECTORCALL_ARGUMENTS_OFFSET)
   * or keywords, in one test */
  if (((nargsf << 1) | (size_t)kwnames) != 0) {
    return MXFFIPyFunctionVectorcallScalars(func, args, nargsf, kwnames);
  }
  MXFFIPyNoArgsFrame frame;
  frame.func = func;
  /* get_global_func installs this slot on a Function with a handle, which it keeps for life */
  const int rc = MXFFIPyInvokeHeld(MXFFIPyHandle(func), NULL, 0, &frame.result);
  if (__builtin_expect(rc == 0 && frame.result.type_index == kMXFFINone, 1)) Py_RETURN_NONE;
  return MXFFIPyNoArgsFinish(rc, &frame);
}

/*! \brief The vectorcall slot installed on mxffi.Function. */
static PyObject* MXFFIPyFunctionVectorcall(PyObject* func, PyObject* const* args, size_t nargsf,
                                           PyObject* kwnames) {
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0) {
    return MXFFIPyCallPositional(func, (PyObject**)args, nargs);
  }
  return mxffi_py_hooks.call_kw(func, (PyObject**)args, nargs, kwnames);
}

/*!
 * \brief The vectorcall slot of a global whose signature takes at most MXFFI_PY_SCALAR_ARGS
 *  arguments, each an int, float, str or bool (FuncInfo's types): its calls try the scalar
 *  path first. Other functions keep the plain slot, so calls passing arrays never pay for the
 *  scalar path's type tests.
 */
static PyObject* MXFFIPyFunctionVectorcallScalars(PyObject* func, PyObject* const* args,
                                                  size_t nargsf, PyObject* kwnames) {
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0) {
    if (nargs == 0) return MXFFIPyCallNoArgs(func);
    if (nargs <= MXFFI_PY_SCALAR_ARGS) return MXFFIPyCallScalars(func, args, nargs);
    return MXFFIPyCallPositional(func, (PyObject**)args, nargs);
  }
  return mxffi_py_hooks.call_kw(func, (PyObject**)args, nargs, kwnames);
}

/*!
 * \brief MXFFIPyFunctionVectorcallScalars for a global that keeps the GIL through its calls
 *  (a Function flagged MXFFI_PY_RELEASE_GIL keeps that slot): the scalar conversions and the
 *  call in the slot's own frame, with no test of the flag. lend: whether the call lends a
 *  result buffer (MXFFIPyLendResult), for a function whose result is text; a constant, so each
 *  slot below is compiled with the one path it takes.
 */
static inline __attribute__((always_inline)) PyObject* MXFFIPyScalarsHeld(
    PyObject* func, PyObject* const* args, size_t nargsf, PyObject* kwnames, const int lend) {
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  if (kwnames != NULL || nargs > MXFFI_PY_SCALAR_ARGS || nargs == 0) {
    return MXFFIPyFunctionVectorcallScalars(func, args, nargsf, kwnames);
  }
  MXFFIAny cells[MXFFI_PY_SCALAR_ARGS];
  MXFFIByteArray views[MXFFI_PY_SCALAR_ARGS];
  MXFFIAny result;
  char text[MXFFI_PY_RESULT_BUFFER];
  void* handle;
  int rc;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    /* MXFFIPyScalarCell sets small_len with the type */
    const int scalar = MXFFIPyScalarCell(args[i], Py_TYPE(args[i]), &cells[i], &views[i]);
    if (scalar < 0) return NULL; /* a lone surrogate: the full path raises the same */
    if (scalar == 0) goto full;
  }
  handle = MXFFIPyHandle(func);
  if (handle == NULL) goto full; /* the full path raises its TypeError */
  if (lend) {
    MXFFIPyLendResult(&result, text);
    rc = MXFFIFuncCall(handle, cells, (int32_t)nargs, &result);
  } else {
    rc = MXFFIPyInvokeHeld(handle, cells, (int32_t)nargs, &result);
  }
  if (rc != 0) {
    mxffi_py_hooks.raise_error(func);
    return NULL;
  }
  return lend ? MXFFIPyReturnScalarLent(func, &result) : MXFFIPyReturnScalar(func, &result);
full:
  return MXFFIPyCallPositional(func, (PyObject**)args, nargs);
}

/*! \brief MXFFIPyScalarsHeld's slot for a global whose result is not text. */
static PyObject* MXFFIPyFunctionVectorcallScalarsHeld(PyObject* func, PyObject* const* args,
                                                      size_t nargsf, PyObject* kwnames) {
  return MXFFIPyScalarsHeld(func, args, nargsf, kwnames, 0);
}

/*! \brief MXFFIPyScalarsHeld's slot for a global whose result is text (its FuncInfo says str). */
static PyObject* MXFFIPyFunctionVectorcallScalarsHeldText(PyObject* func, PyObject* const* args,
                                                          size_t nargsf, PyObject* kwnames) {
  return MXFFIPyScalarsHeld(func, args, nargsf, kwnames, 1);
}

/*!
 * \brief The vectorcall slot of a Function with keyword-only or variadic arguments: a call
 *  passing no keywords and no more positional arguments than allowed goes straight to the
 *  positional path; the rest (keywords, a variadic argument to gather, too many positional
 *  arguments: the binder's TypeError) to the keyword hook, which binds by the signature.
 */
static PyObject* MXFFIPyFunctionVectorcallBound(PyObject* func, PyObject* const* args,
                                                size_t nargsf, PyObject* kwnames) {
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const int flags = MXFFIPyFlags(func);
  if ((kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0) && !(flags & MXFFI_PY_VARIADIC) &&
      nargs <= (flags >> MXFFI_PY_MAX_POS_SHIFT)) {
    return MXFFIPyCallPositional(func, (PyObject**)args, nargs);
  }
  return mxffi_py_hooks.call_kw(func, (PyObject**)args, nargs,
                                kwnames != NULL ? kwnames : mxffi_py_empty_tuple);
}

/*!
 * \brief Install the hooks and give the Function type its vectorcall slot.
 * \param function_type mxffi.Function, already readied.
 * \param vectorcall_offset offset of the instance field holding the vectorcall pointer.
 */
static int MXFFIPySetHooks(const MXFFIPyHooks* hooks, PyTypeObject* function_type,
                           Py_ssize_t vectorcall_offset) {
  mxffi_py_hooks = *hooks;
  function_type->tp_vectorcall_offset = vectorcall_offset;
  function_type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
  return 0;
}

/*! \brief The slot as a plain pointer, stored into each Function instance. */
static inline void* MXFFIPyVectorcallPtr(void) { return (void*)MXFFIPyFunctionVectorcall; }
/*! \brief The slot for a global of scalar parameters (MXFFIPyFunctionVectorcallScalars). */
static inline void* MXFFIPyVectorcallScalarsPtr(void) {
  return (void*)MXFFIPyFunctionVectorcallScalars;
}
/*! \brief The slot for such a global that keeps the GIL (MXFFIPyFunctionVectorcallScalarsHeld). */
static inline void* MXFFIPyVectorcallScalarsHeldPtr(void) {
  return (void*)MXFFIPyFunctionVectorcallScalarsHeld;
}
/*! \brief The slot for such a global whose result is text
 * (MXFFIPyFunctionVectorcallScalarsHeldText). */
static inline void* MXFFIPyVectorcallScalarsHeldTextPtr(void) {
  return (void*)MXFFIPyFunctionVectorcallScalarsHeldText;
}
/*! \brief The slot for a global without parameters that keeps the GIL. */
static inline void* MXFFIPyVectorcallNoArgsHeldPtr(void) {
  return (void*)MXFFIPyFunctionVectorcallNoArgsHeld;
}
/*! \brief The slot for a Function with parameter kinds (MXFFIPyFunctionVectorcallBound). */
static inline void* MXFFIPyVectorcallBoundPtr(void) {
  return (void*)MXFFIPyFunctionVectorcallBound;
}

/*! \brief Remember numpy.ndarray for the exact-type switch. */
static inline void MXFFIPySetNdarrayType(PyObject* tp) {
  mxffi_py_ndarray_type = (PyTypeObject*)tp;
}

/*! \brief Remember mxffi.DataType, whose DLDataType is at offset, for the exact-type switch. */
static inline void MXFFIPySetDataType(PyTypeObject* tp, Py_ssize_t offset) {
  mxffi_py_dtype_type = tp;
  mxffi_py_dtype_offset = offset;
}

#endif /* MXFFI_PYTHON_FASTCALL_H_ */
