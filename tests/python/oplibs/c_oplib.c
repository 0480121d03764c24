/*
 * An op library written in C against the C half of mxffi/lib_api.h, exporting the MXFFIOpLib*
 * surface itself: what the loader sees of any library, whatever it was written in. The tests
 * build it with -D options for the cases the loader must refuse or accept:
 *   -DABI_MAJOR=2                  a library of another major version (refused)
 *   -DABI_MINOR=3                  a newer minor whose op descriptions carry fields added at
 *                                  their end (accepted; the loader reads the fields it knows)
 *   -DNEGATE_NAME='"_npi_negative"' the name of a built-in op (refused without override)
 *   -DOP_PREFIX='"v3_"'             other op names, so that several builds load into one process
 *   -DBROKEN=<n>                   a malformed library, one way per n (see Init below)
 * Its ops: <prefix>negate(x) = -x (float32/float64 only; or NEGATE_NAME); <prefix>fail(x), whose
 * forward always fails; <prefix>bad_csr(x), a csr op whose forward writes a column id out of
 * range, which mxffi must refuse rather than hand on; and <prefix>garbage(x, mode=...), whose
 * callbacks answer with what mxffi must not trust (mode names which one).
 */
#include <mxffi/lib_api.h>
#include <string.h>

#ifndef ABI_MAJOR
#define ABI_MAJOR MXFFI_OPLIB_ABI_MAJOR
#endif
#ifndef ABI_MINOR
#define ABI_MINOR MXFFI_OPLIB_ABI_MINOR
#endif
#ifndef OP_PREFIX
#define OP_PREFIX "c_"
#endif
#ifndef NEGATE_NAME
#define NEGATE_NAME OP_PREFIX "negate"
#endif
#ifndef BROKEN
#define BROKEN 0
#endif
#define FAIL_NAME OP_PREFIX "fail"
#define BAD_CSR_NAME OP_PREFIX "bad_csr"
#define GARBAGE_NAME OP_PREFIX "garbage"
#define NUM_OPS 4

#define EXPORT __attribute__((visibility("default")))

/* A description as a later minor version might lay it out: the 1.0 fields, then more. */
typedef struct {
  MXFFIOpLibOp base;
  void* added_later[4];
} GrownOp;

static GrownOp ops[NUM_OPS];
static char last_error[256];

static int32_t Fail(const char* message) {
  strncpy(last_error, message, sizeof(last_error) - 1);
  return MXFFI_OPLIB_FAIL;
}

/* The value of attribute key, or "". */
static const char* Attr(const MXFFIOpLibAttrs* attrs, const char* key) {
  for (int32_t i = 0; i < attrs->num; ++i) {
    if (strcmp(attrs->keys[i], key) == 0) return attrs->values[i];
  }
  return "";
}

static int32_t SameShape(void* self, const MXFFIOpLibAttrs* attrs, const int64_t* const* in,
                         const int32_t* in_ndims, int32_t num_in, int64_t* out, int32_t* out_ndims,
                         int32_t num_out) {
  (void)self, (void)num_in, (void)num_out;
  const char* mode = Attr(attrs, "mode");
  if (strcmp(mode, "code") == 0) return 5;
  if (strcmp(mode, "fallback") == 0) return MXFFI_OPLIB_FALLBACK;
  out_ndims[0] = strcmp(mode, "ndim") == 0 ? MXFFI_OPLIB_MAX_NDIM + 1 : in_ndims[0];
  for (int32_t i = 0; i < in_ndims[0]; ++i) out[i] = in[0][i];
  if (strcmp(mode, "extent") == 0 && in_ndims[0] > 0) out[0] = -5;
  return MXFFI_OPLIB_OK;
}

static int32_t SameType(void* self, const MXFFIOpLibAttrs* attrs, const MXFFIOpLibDType* in,
                        int32_t num_in, MXFFIOpLibDType* out, int32_t num_out) {
  (void)self, (void)num_in, (void)num_out;
  if (in[0].code != 2 || (in[0].bits != 32 && in[0].bits != 64)) {
    return Fail("expected float32 or float64");
  }
  if (strcmp(Attr(attrs, "mode"), "dtype") != 0) out[0] = in[0];
  return MXFFI_OPLIB_OK;
}

static int32_t Negate(void* self, const MXFFIOpLibAttrs* attrs, MXFFIOpLibTensor* const* in,
                      int32_t num_in, MXFFIOpLibTensor* const* out, int32_t num_out,
                      const MXFFIOpLibResource* res) {
  (void)self, (void)attrs, (void)num_in, (void)num_out, (void)res;
  int64_t n = 1;
  for (int32_t i = 0; i < in[0]->ndim; ++i) n *= in[0]->shape[i];
  if (in[0]->dtype.bits == 32) {
    const float* x = (const float*)in[0]->data;
    float* y = (float*)out[0]->data;
    for (int64_t i = 0; i < n; ++i) y[i] = -x[i];
  } else {
    const double* x = (const double*)in[0]->data;
    double* y = (double*)out[0]->data;
    for (int64_t i = 0; i < n; ++i) y[i] = -x[i];
  }
  return MXFFI_OPLIB_OK;
}

static int32_t FailForward(void* self, const MXFFIOpLibAttrs* attrs, MXFFIOpLibTensor* const* in,
                           int32_t num_in, MXFFIOpLibTensor* const* out, int32_t num_out,
                           const MXFFIOpLibResource* res) {
  (void)self, (void)attrs, (void)in, (void)num_in, (void)out, (void)num_out, (void)res;
  return Fail(FAIL_NAME ": the device reported error 42 (this op's forward always fails)");
}

static int32_t CSROut(void* self, const MXFFIOpLibAttrs* attrs, const int32_t* in, int32_t num_in,
                      int32_t* out, int32_t num_out) {
  (void)self, (void)in, (void)num_in, (void)num_out;
  out[0] = strcmp(Attr(attrs, "mode"), "stype") == 0 ? 7 : MXFFI_OPLIB_STYPE_CSR;
  return MXFFI_OPLIB_OK;
}

/* One stored value per row, in column shape[1]: one past the last column. */
static int32_t BadCSR(void* self, const MXFFIOpLibAttrs* attrs, MXFFIOpLibTensor* const* in,
                      int32_t num_in, MXFFIOpLibTensor* const* out, int32_t num_out,
                      const MXFFIOpLibResource* res) {
  (void)self, (void)attrs, (void)in, (void)num_in, (void)num_out;
  const int64_t rows = out[0]->shape[0], cols = out[0]->shape[1];
  if (res->alloc_sparse(res->host, 0, rows, out[0]) != MXFFI_OPLIB_OK) {
    return Fail(BAD_CSR_NAME ": alloc_sparse refused");
  }
  int64_t* indices = (int64_t*)out[0]->indices;
  int64_t* indptr = (int64_t*)out[0]->indptr;
  indptr[0] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (out[0]->dtype.bits == 32) {
      ((float*)out[0]->data)[r] = 1.0f;
    } else {
      ((double*)out[0]->data)[r] = 1.0;
    }
    indices[r] = cols;
    indptr[r + 1] = r + 1;
  }
  return MXFFI_OPLIB_OK;
}

/* The garbage op: mode=fallback returns Fallback from its forward, mode=alloc asks for a sparse
 * output the op does not have, mode=workspace asks for scratch memory and returns it full. */
static int32_t GarbageForward(void* self, const MXFFIOpLibAttrs* attrs, MXFFIOpLibTensor* const* in,
                              int32_t num_in, MXFFIOpLibTensor* const* out, int32_t num_out,
                              const MXFFIOpLibResource* res) {
  (void)self, (void)num_in;
  const char* mode = Attr(attrs, "mode");
  if (strcmp(mode, "forward_fallback") == 0) return MXFFI_OPLIB_FALLBACK;
  if (strcmp(mode, "alloc") == 0) {
    MXFFIOpLibTensor scratch;
    if (res->alloc_sparse(res->host, num_out, 1, &scratch) != MXFFI_OPLIB_OK) {
      return Fail(GARBAGE_NAME ": alloc_sparse refused, as it should");
    }
    return MXFFI_OPLIB_OK;
  }
  int64_t n = 1;
  for (int32_t i = 0; i < in[0]->ndim; ++i) n *= in[0]->shape[i];
  const size_t bytes = (size_t)n * (in[0]->dtype.bits / 8);
  char* scratch = (char*)res->alloc_workspace(res->host, bytes);
  if (scratch == NULL) return Fail(GARBAGE_NAME ": no workspace");
  memcpy(scratch, in[0]->data, bytes); /* through the workspace, to check it is usable */
  memcpy(out[0]->data, scratch, bytes);
  return MXFFI_OPLIB_OK;
}

static int32_t GarbageParse(void* self, const MXFFIOpLibAttrs* attrs) {
  (void)self;
  for (int32_t i = 0; i < attrs->num; ++i) {
    if (strcmp(attrs->keys[i], "mode") != 0) return Fail(GARBAGE_NAME ": it takes mode only");
  }
  return MXFFI_OPLIB_OK;
}

static int32_t CreateState(void* self, const MXFFIOpLibAttrs* attrs, int32_t device_type,
                           int32_t device_id, void** state) {
  (void)self, (void)attrs, (void)device_type, (void)device_id;
  *state = NULL;
  return MXFFI_OPLIB_OK;
}

EXPORT void MXFFIOpLibVersion(int32_t* major, int32_t* minor) {
  *major = ABI_MAJOR;
  *minor = ABI_MINOR;
}

EXPORT int32_t MXFFIOpLibInit(int32_t host_major, int32_t host_minor) {
  (void)host_minor;
  if (host_major != ABI_MAJOR) return Fail("c_oplib: another major version");
  if (BROKEN == 7) return Fail("c_oplib: the license file is missing");
  for (int i = 0; i < NUM_OPS; ++i) {
    MXFFIOpLibOp* d = &ops[i].base;
    d->struct_size = ABI_MINOR > MXFFI_OPLIB_ABI_MINOR ? sizeof(GrownOp) : sizeof(MXFFIOpLibOp);
    d->num_inputs = 1;
    d->num_outputs = 1;
    d->infer_shape = SameShape;
    d->infer_type = SameType;
    memset(ops[i].added_later, 0xff, sizeof(ops[i].added_later)); /* garbage to an older reader */
  }
  ops[0].base.name = NEGATE_NAME;
  ops[0].base.doc = "-x, from a library written in C.";
  ops[0].base.forward[0] = Negate;
  ops[1].base.name = FAIL_NAME;
  ops[1].base.doc = "Fails in its forward.";
  ops[1].base.forward[0] = FailForward;
  ops[2].base.name = BAD_CSR_NAME;
  ops[2].base.doc = "Writes a csr output with a column id out of range.";
  ops[2].base.infer_stype = CSROut;
  ops[2].base.forward[0] = BadCSR;
  ops[2].base.parse_attrs = GarbageParse;
  ops[3].base.name = GARBAGE_NAME;
  ops[3].base.doc = "Callbacks that answer with garbage, chosen by mode.";
  ops[3].base.parse_attrs = GarbageParse;
  ops[3].base.forward[0] = GarbageForward;
  /* The malformed libraries: the second op is described wrongly. */
  switch (BROKEN) {
    case 1:
      ops[1].base.struct_size = 8;
      break;
    case 2:
      ops[1].base.name = "bad name!";
      break;
    case 3:
      ops[1].base.name = NEGATE_NAME;
      break;
    case 4:
      ops[1].base.num_inputs = MXFFI_OPLIB_MAX_ARGS + 1;
      break;
    case 5:
      ops[1].base.infer_shape = NULL;
      break;
    case 6:
      ops[1].base.forward[0] = NULL;
      ops[1].base.create_state = CreateState;
      break;
    default:
      break;
  }
  return MXFFI_OPLIB_OK;
}

EXPORT int32_t MXFFIOpLibOpCount(void) { return BROKEN == 9 ? -1 : NUM_OPS; }

EXPORT const MXFFIOpLibOp* MXFFIOpLibGetOp(int32_t index) {
  if (BROKEN == 8 && index == 1) return NULL;
  return index >= 0 && index < NUM_OPS ? &ops[index].base : NULL;
}

EXPORT const char* MXFFIOpLibLastError(const char** kind) {
  if (kind != NULL) *kind = "ValueError";
  return last_error;
}
