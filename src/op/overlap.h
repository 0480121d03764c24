/*!
 * \file overlap.h
 * \brief Whether two strided arrays share memory: numpy's may_share_memory (a bounds test) and
 *  shares_memory (an exact answer), and what Invoke asks before writing an out= array.
 *
 * The exact test solves numpy's bounded linear Diophantine problem (mem_overlap.c's
 * formulation): an element of a and one of b share a byte when
 *   lo_a + sum_i |sa_i| x_i + r = lo_b + sum_j |sb_j| y_j + t,
 * 0 <= x_i < shape_i, 0 <= r < itemsize_a, 0 <= t < itemsize_b (strides in bytes, lo the lowest
 * address each array touches). Substituting y_j -> (shape_j - 1) - y_j and t -> (itemsize_b - 1)
 * - t leaves one equation with positive coefficients and bounded non-negative unknowns, which a
 * depth-first search over the unknowns (largest coefficient first, each step restricted by the
 * gcd of the remaining coefficients and by their largest reachable sum) decides exactly.
 */
#ifndef MXFFI_SRC_OP_OVERLAP_H_
#define MXFFI_SRC_OP_OVERLAP_H_

#include <mxffi/ndarray/ndarray.h>

#include <cstdint>

namespace mxffi {
namespace op {

/*! \brief The answer of SharesMemory. */
enum class Overlap : int { kNo = 0, kYes = 1, kTooHard = 2 };

/*!
 * \return whether the byte ranges a and b span intersect (numpy's MAY_SHARE_BOUNDS): false for
 *  an empty array or arrays on different devices; true may still be a false alarm.
 */
bool BoundsOverlap(const DLTensor& a, const DLTensor& b);

/*!
 * \return whether a and b have a byte in common, exactly; kTooHard when deciding it took more
 *  than max_work steps of the search (max_work < 0: no limit).
 */
Overlap SharesMemory(const DLTensor& a, const DLTensor& b, int64_t max_work);

/*!
 * \return whether writing out may change what reading in gives: an exact overlap test with a
 *  small work limit, and true where that limit is reached (a needless temporary, never a
 *  wrong result).
 */
bool MayOverlapForWrite(const DLTensor& out, const DLTensor& in);

/*!
 * \return whether a and b are the same elements: the same first element, device, dtype, shape
 *  and strides (compared where an extent exceeds 1, as only those address memory).
 */
bool SameElements(const DLTensor& a, const DLTensor& b);

}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_OVERLAP_H_
