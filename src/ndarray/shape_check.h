/*!
 * \file shape_check.h
 * \brief The one check every array shape passes, whichever way the array is made (allocated,
 *  viewed, imported, sparse): numpy's rule that its element count fits int64; and the check of
 *  an imported tensor's extents.
 */
#ifndef MXFFI_SRC_NDARRAY_SHAPE_CHECK_H_
#define MXFFI_SRC_NDARRAY_SHAPE_CHECK_H_

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>

namespace mxffi {
namespace details {

/*!
 * \brief Refuse a shape with a negative extent, or whose extents other than 0 multiply (times
 *  the element size) past int64, as numpy's "array is too big" refuses np.empty((0, 2**62,
 *  2**62)): a zero extent must not hide a count that a reshape, a view or a later op would
 *  compute and overflow. ValueError naming fname.
 * \return the element count (0 when an extent is 0).
 */
int64_t CheckedShapeSize(const int64_t* shape, int32_t ndim, DLDataType dtype, const char* fname);

/*!
 * \brief Refuse a tensor handed over by a producer (DLPack, a borrowed argument) that cannot
 *  describe memory, before anything reads it; ValueError naming fname. DLPack does not say how
 *  large the memory is, so what is checked is that every address the tensor describes is
 *  computed without overflow (see shape_check.cc).
 */
void CheckImported(const DLTensor& t, const char* fname);

/*! \return "(2, 3)", "(4,)", "()": a shape as numpy prints it. */
std::string ShapeString(const int64_t* shape, int32_t ndim);

}  // namespace details
}  // namespace mxffi

#endif  // MXFFI_SRC_NDARRAY_SHAPE_CHECK_H_
