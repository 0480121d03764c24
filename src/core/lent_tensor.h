/*!
 * \file lent_tensor.h
 * \brief A tensor lent for one call (a kMXFFIDLTensorPtr cell) as a value that may outlive it:
 *  what a container made from call arguments stores in its place. Defined with the tensors
 *  (src/ndarray/ndarray.cc), declared here so that the container code, which defines part of
 *  the C ABI, does not take the tensor headers in.
 */
#ifndef MXFFI_SRC_CORE_LENT_TENSOR_H_
#define MXFFI_SRC_CORE_LENT_TENSOR_H_

#include <mxffi/any.h>

namespace mxffi {
namespace details {

/*! \return a new C-contiguous NDArray holding a copy of the lent tensor's elements. */
Any OwnedCopyOfLentTensor(const DLTensor& lent);

}  // namespace details
}  // namespace mxffi

#endif  // MXFFI_SRC_CORE_LENT_TENSOR_H_
