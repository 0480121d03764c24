/*!
 * \file vq_sort.h
 * \brief The CPU sort of the values of long lines of the 16-, 32- and 64-bit integers, float
 *  and double: Highway's vectorized quicksort (hwy::Sorter, the prebuilt libhwy_contrib, which
 *  picks SSE4, AVX2 or AVX-512 at run time; floats sort as integer keys), with NaNs and signed
 *  zeros handled around it so that the result is the stable sort's, bit for bit (vq_sort.cc);
 *  long integer lines of a narrow range are counted or sorted as 32-bit offsets instead.
 */
#ifndef MXFFI_SRC_OP_SORT_VQ_SORT_H_
#define MXFFI_SRC_OP_SORT_VQ_SORT_H_

#include <cstdint>
#include <type_traits>

namespace mxffi {
namespace op {
namespace sort {

/*! \brief Whether VQSortLines takes T: the integers of 16 bits and more, float and double. */
template <typename T>
constexpr bool kVQSortable = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                             (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) >= 2);

/*!
 * \brief Lines at least this long sort their values with VQSortLines. Measured (AVX-512): from
 *  32 elements on the vectorized sort is as fast per element as std::sort of integers and
 *  faster than std::stable_sort of floats, from 48 on 2-4x faster than both; it beats the radix
 *  sort at every length.
 */
constexpr int64_t kVQSortMinLength = 32;

/*!
 * \brief 16-bit lines at least this long count their values instead (one pass over the line,
 *  one over a table of 65536 counts): from here on the table costs less than the sort.
 */
constexpr int64_t kCountSort16MinLength = int64_t{1} << 17;

/*!
 * \brief Sort the values of lines [b, e) of n elements, inner apart (line l starts at
 *  (l / inner) * n * inner + l % inner), of x into the same places of y (x and y do not
 *  overlap): ascending or descending, NaNs last in their order in x, -0.0 and 0.0 in their
 *  order in x: exactly what a stable sort writes. T: a kVQSortable type.
 */
template <bool kDesc, typename T>
void VQSortLines(const T* x, T* y, int64_t b, int64_t e, int64_t n, int64_t inner);

}  // namespace sort
}  // namespace op
}  // namespace mxffi

#endif  // MXFFI_SRC_OP_SORT_VQ_SORT_H_
