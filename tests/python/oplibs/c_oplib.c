/*
 * An op library written in C against the C half of mxffi/lib_api.h, exporting the MXFFIOpLib*
 * surface itself: what the loader sees of any library, whatever it was written in. The tests
 * build it with -D options for the cases the loader must refuse or accept:
 *   -DABI_MAJOR=2             a library of another major version (refused)
 *   -DABI_MINOR=3             a newer minor whose op descriptions carry fields added at their
 *                             end (accepted; the loader reads the fields it knows)
 *   -DNEGATE_NAME='"_npi_negative"' the name of a built-in op (refused without override)
 *   -DOP_PREFIX='"v3_"'        other op names, so that several builds load into one process
 * Its ops: <prefix>negate(x) = -x (float32/float64; or NEGATE_NAME); <prefix>fail(x), whose
 * forward always fails; and <prefix>bad_csr(x), a csr op whose forward writes a column id out of
 * range, which mxffi must refuse rather than hand on.
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
#define FAIL_NAME OP_PREFIX "fail"
#define BAD_CSR_NAME OP_PREFIX "bad_csr"
#define NUM_OPS 3

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

static int32_t SameShape(void* self, const MXFFIOpLibAttrs* attrs, const int64_t* const* in,
                         const int32_t* in_ndims, int32_t num_in, int64_t* out, int32_t* out_ndims,
                         int32_t num_out) {
  (void)self, (void)attrs, (void)num_in, (void)num_out;
  out_ndims[0] = in_ndims[0];
  for (int32_t i = 0; i < in_ndims[0]; ++i) out[i] = in[0][i];
  return MXFFI_OPLIB_OK;
}

static int32_t SameType(void* self, const MXFFIOpLibAttrs* attrs, const MXFFIOpLibDType* in,
                        int32_t num_in, MXFFIOpLibDType* out, int32_t num_out) {
  (void)self, (void)attrs, (void)num_in, (void)num_out;
  if (in[0].code != 2 || (in[0].bits != 32 && in[0].bits != 64)) {
    return Fail(NEGATE_NAME ": expected float32 or float64");
  }
  out[0] = in[0];
  return MXFFI_OPLIB_OK;
}

static int32_t Negate(void* self, const MXFFIOpLibAttrs* attrs, const MXFFIOpLibTensor* in,
                      int32_t num_in, MXFFIOpLibTensor* out, int32_t num_out,
                      const MXFFIOpLibResource* res) {
  (void)self, (void)attrs, (void)num_in, (void)num_out, (void)res;
  int64_t n = 1;
  for (int32_t i = 0; i < in[0].ndim; ++i) n *= in[0].shape[i];
  if (in[0].dtype.bits == 32) {
    const float* x = (const float*)in[0].data;
    float* y = (float*)out[0].data;
    for (int64_t i = 0; i < n; ++i) y[i] = -x[i];
  } else {
    const double* x = (const double*)in[0].data;
    double* y = (double*)out[0].data;
    for (int64_t i = 0; i < n; ++i) y[i] = -x[i];
  }
  return MXFFI_OPLIB_OK;
}

static int32_t FailForward(void* self, const MXFFIOpLibAttrs* attrs, const MXFFIOpLibTensor* in,
                           int32_t num_in, MXFFIOpLibTensor* out, int32_t num_out,
                           const MXFFIOpLibResource* res) {
  (void)self, (void)attrs, (void)in, (void)num_in, (void)out, (void)num_out, (void)res;
  return Fail(FAIL_NAME ": the device reported error 42 (this op's forward always fails)");
}

static int32_t CSROut(void* self, const MXFFIOpLibAttrs* attrs, const int32_t* in, int32_t num_in,
                      int32_t* out, int32_t num_out) {
  (void)self, (void)attrs, (void)in, (void)num_in, (void)num_out;
  out[0] = MXFFI_OPLIB_STYPE_CSR;
  return MXFFI_OPLIB_OK;
}

/* One stored value per row, in column shape[1]: one past the last column. */
static int32_t BadCSR(void* self, const MXFFIOpLibAttrs* attrs, const MXFFIOpLibTensor* in,
                      int32_t num_in, MXFFIOpLibTensor* out, int32_t num_out,
                      const MXFFIOpLibResource* res) {
  (void)self, (void)attrs, (void)in, (void)num_in, (void)num_out;
  const int64_t rows = out[0].shape[0], cols = out[0].shape[1];
  if (res->alloc_sparse(res->host, 0, rows, &out[0]) != MXFFI_OPLIB_OK) {
    return Fail(BAD_CSR_NAME ": alloc_sparse refused");
  }
  int64_t* indices = (int64_t*)out[0].indices;
  int64_t* indptr = (int64_t*)out[0].indptr;
  indptr[0] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    if (out[0].dtype.bits == 32) {
      ((float*)out[0].data)[r] = 1.0f;
    } else {
      ((double*)out[0].data)[r] = 1.0;
    }
    indices[r] = cols;
    indptr[r + 1] = r + 1;
  }
  return MXFFI_OPLIB_OK;
}

EXPORT void MXFFIOpLibVersion(int32_t* major, int32_t* minor) {
  *major = ABI_MAJOR;
  *minor = ABI_MINOR;
}

EXPORT int32_t MXFFIOpLibInit(int32_t host_major, int32_t host_minor) {
  (void)host_minor;
  if (host_major != ABI_MAJOR) return Fail("c_oplib: another major version");
  for (int i = 0; i < NUM_OPS; ++i) {
    MXFFIOpLibOp* d = &ops[i].base;
    d->struct_size = ABI_MINOR > MXFFI_OPLIB_ABI_MINOR ? sizeof(GrownOp) : sizeof(MXFFIOpLibOp);
    d->num_inputs = 1;
    d->num_outputs = 1;
    d->infer_shape = SameShape;
    d->infer_type = SameType;
    memset(ops[i].added_later, 0xff, sizeof(ops[i].added_later));  // garbage to an older reader
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
  return MXFFI_OPLIB_OK;
}

EXPORT int32_t MXFFIOpLibOpCount(void) { return NUM_OPS; }

EXPORT const MXFFIOpLibOp* MXFFIOpLibGetOp(int32_t index) {
  return index >= 0 && index < NUM_OPS ? &ops[index].base : NULL;
}

EXPORT const char* MXFFIOpLibLastError(const char** kind) {
  if (kind != NULL) *kind = "ValueError";
  return last_error;
}
