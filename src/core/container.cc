/*!
 * \file container.cc
 * \brief Out-of-line helpers of the value cell and the containers: type names, owned copies of
 *  borrowed strings and complex numbers, key hashing and equality, and the index/key errors.
 */
#include <mxffi/container/complex.h>
#include <mxffi/container/map.h>
#include <mxffi/container/string.h>

#include <cmath>
#include <functional>
#include <sstream>

namespace mxffi {
namespace details {

std::string CellTypeName(const MXFFIAny* cell) { return TypeIndex2Key(cell->type_index); }

void MaterializeOwned(MXFFIAny* cell) {
  std::string_view v;
  switch (cell->type_index) {
    case kMXFFIRawStr:
    case kMXFFIStrView:
      CellStrView(cell, &v);
      TypeTraits<String>::MoveToAny(String(v), cell);
      break;
    case kMXFFIBytesView:
      CellBytesView(cell, &v);
      TypeTraits<Bytes>::MoveToAny(Bytes(v), cell);
      break;
    case kMXFFIComplexView: {
      std::complex<double> c;
      CellComplex(cell, &c);
      CellSetComplex(c, cell);
      break;
    }
    default:
      break;
  }
}

void ThrowIndexError(const char* what, int64_t index, int64_t size) {
  MXFFI_THROW(IndexError) << what << ": index " << index << " out of range for size " << size;
}

std::string ReprForMessage(const Any& value) {
  std::ostringstream os;
  std::string_view s;
  const MXFFIAny* cell = value.raw();
  if (CellStrView(cell, &s)) {
    os << "'" << s.substr(0, 64) << (s.size() > 64 ? "...'" : "'");
  } else if (cell->type_index == kMXFFIInt) {
    os << cell->v_int64;
  } else if (cell->type_index == kMXFFIUInt64) {
    os << static_cast<uint64_t>(cell->v_int64);
  } else if (cell->type_index == kMXFFIBool) {
    os << (cell->v_int64 ? "True" : "False");
  } else if (cell->type_index == kMXFFIFloat) {
    os << cell->v_float64;
  } else if (cell->type_index == kMXFFINone) {
    os << "None";
  } else {
    os << "<" << CellTypeName(cell) << ">";
  }
  return os.str();
}

void ThrowKeyError(const char* what, const Any& key) {
  MXFFI_THROW(KeyError) << what << ": key " << ReprForMessage(key) << " not found";
}

namespace {
/*! \brief A float with an integral value hashes and compares as that integer (as in Python). */
bool AsInteger(const MXFFIAny* c, int64_t* out) {
  if (c->type_index == kMXFFIInt || c->type_index == kMXFFIBool) {
    *out = c->v_int64;
    return true;
  }
  if (c->type_index == kMXFFIFloat && std::isfinite(c->v_float64) &&
      std::trunc(c->v_float64) == c->v_float64 && std::fabs(c->v_float64) < 9.2e18) {
    *out = static_cast<int64_t>(c->v_float64);
    return true;
  }
  return false;
}
}  // namespace

size_t AnyHash::operator()(const Any& key) const {
  const MXFFIAny* c = key.raw();
  std::string_view s;
  int64_t i;
  if (CellStrView(c, &s)) return std::hash<std::string_view>()(s);
  if (CellBytesView(c, &s)) return std::hash<std::string_view>()(s) ^ 0x9e3779b97f4a7c15ULL;
  if (AsInteger(c, &i)) return std::hash<int64_t>()(i);
  if (c->type_index == kMXFFIFloat) return std::hash<double>()(c->v_float64);
  return std::hash<int64_t>()(c->v_int64) ^ static_cast<size_t>(c->type_index);
}

bool AnyEqual::operator()(const Any& a, const Any& b) const {
  const MXFFIAny* x = a.raw();
  const MXFFIAny* y = b.raw();
  std::string_view sx, sy;
  if (CellStrView(x, &sx)) return CellStrView(y, &sy) && sx == sy;
  if (CellBytesView(x, &sx)) return CellBytesView(y, &sy) && sx == sy;
  int64_t ix, iy;
  bool x_int = AsInteger(x, &ix), y_int = AsInteger(y, &iy);
  if (x_int || y_int) return x_int && y_int && ix == iy;
  if (x->type_index == kMXFFIFloat || y->type_index == kMXFFIFloat) {
    return x->type_index == y->type_index && x->v_float64 == y->v_float64;
  }
  return x->type_index == y->type_index && x->v_int64 == y->v_int64;
}

}  // namespace details
}  // namespace mxffi
