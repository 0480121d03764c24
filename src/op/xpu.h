/*!
 * \file xpu.h
 * \brief The device tags of kernels written once for both devices (MXNet's xpu): an op's
 *  FCompute<xpu> template is instantiated with cpu in the CPU op's file and with gpu in the
 *  family's GPU registration, and calls the device's own pieces by overloading on the tag.
 */
#ifndef MXFFI_SRC_OP_XPU_H_
#define MXFFI_SRC_OP_XPU_H_

namespace mxffi {
namespace op {

/*! \brief The CPU. */
struct cpu {};
/*! \brief A CUDA device (the op context's). */
struct gpu {};

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_XPU_H_
