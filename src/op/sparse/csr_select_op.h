/*!
 * \file csr_select_op.h
 * \brief The csr take, concat and where ops (csr_select.h lists them): take's parameter and
 *  the host-side pieces the CPU (csr_select.cc) and GPU (csr_select_gpu.cc) ops share.
 */
#ifndef MXFFI_SRC_OP_SPARSE_CSR_SELECT_OP_H_
#define MXFFI_SRC_OP_SPARSE_CSR_SELECT_OP_H_

#include <mxffi/op/op.h>
#include <mxffi/op/param.h>

#include <cstdint>

#include "csr_select.h"

namespace mxffi {
namespace op {

/*! \brief _sparse_take_csr's parameter: what an index outside [0, rows) means. */
struct CsrTakeParam : public dmlc::Parameter<CsrTakeParam> {
  int mode;
  DMLC_DECLARE_PARAMETER(CsrTakeParam) {
    DMLC_DECLARE_FIELD(mode)
        .add_enum("raise", static_cast<int>(TakeMode::kRaise))
        .add_enum("wrap", static_cast<int>(TakeMode::kWrap))
        .add_enum("clip", static_cast<int>(TakeMode::kClip))
        .set_default(static_cast<int>(TakeMode::kRaise))
        .describe(
            "raise: a negative index counts from the end, one still out of range is an "
            "IndexError (numpy's take); wrap: modulo the rows; clip: into [0, rows - 1] "
            "(MXNet's default, a negative index picking row 0).");
  }
};

/*! \brief _sparse_concat_csr's parameter: its number of inputs. */
struct CsrConcatParam : public dmlc::Parameter<CsrConcatParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(CsrConcatParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe(
        "Number of csr arrays joined: the op's number of inputs.");
  }
};

/*! \return how a condition of dtype t is read by its bits (CondTrue). */
CondBits CondBitsOf(DLDataType t);

/*! \brief The IndexError of an index outside the rows in raise mode (numpy's message). */
[[noreturn]] void ThrowTakeIndex(int64_t v, int64_t rows);

/*!
 * \brief where's storage inference: csr cond with dense x and y runs the storage-aware kernel
 *  (dense out); dense inputs the dense kernel; anything else the fallback.
 */
DispatchMode WhereStorage(const OpAttrs& attrs, DLDevice device, Span<const StorageType> in,
                          Span<StorageType> out);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SPARSE_CSR_SELECT_OP_H_
