// Value cells built from fuzz bytes, converted to every C++ type a function body asks for and
// passed to every registered global through MXFFIFuncCall.
//
// The cells are well formed by the ABI's contract: plain values with any payload (ints, floats
// with any bit pattern, DataType and Device with any fields, inline strings of up to 7 bytes),
// borrowed strings and tensors pointing at memory this target owns, and objects made through
// the C ABI and the registered globals. Raw pointers to nowhere are not a valid input and are
// never made. Every conversion must either succeed or throw mxffi::Error (TypeError or
// OverflowError); every call must either succeed or fail with a known error kind and a message.
#include <mxffi/mxffi.h>
#include <mxffi/ndarray/ndarray.h>

#include <deque>
#include <set>

#include "fuzz_util.h"

namespace {

using mxffi::Any;
using mxffi::AnyView;
using mxffi_fuzz::Call;
using mxffi_fuzz::Fail;

/*! \brief Globals a cell built from bytes must not reach. */
bool Excluded(const std::string& name) {
  static const std::set<std::string> kExcluded = {
      "ndarray.from_dlpack",      // takes ownership of an opaque pointer: garbage by contract
      "library.load",             // opens files
      "testing.sleep_add",        // sleeps for a given time
      "testing.poll_signals",     // loops for a given time
      "testing.rendezvous",       // waits a given time for other callers
      "testing.apply_in_thread",  // a thread per call
      "testing.raise_error",      // raises whatever kind it is given, by design
  };
  return kExcluded.count(name) != 0;
}

/*! \brief The registered globals, read once. */
const std::vector<std::string>& Globals() {
  static std::vector<std::string>* names = [] {
    auto* out = new std::vector<std::string>();
    MXFFIObjectHandle arr = nullptr;
    if (MXFFIFuncListGlobalNames(&arr) != 0) Fail("MXFFIFuncListGlobalNames failed");
    auto* a = static_cast<MXFFIArrayObj*>(arr);
    for (int64_t i = 0; i < a->size; ++i) {
      std::string name = *AnyView::FromRaw(&a->data[i])->try_cast<std::string>();
      if (!Excluded(name)) out->push_back(name);
    }
    MXFFIObjectFree(arr);
    return out;
  }();
  return *names;
}

/*! \brief Cells and the memory the borrowed ones point into, alive for one input. */
struct Pool {
  std::deque<std::string> text;
  std::deque<MXFFIByteArray> views;
  std::vector<Any> owned;
  std::vector<MXFFIAny> cells;
  char opaque[16] = {};

  void AddOwned(Any v) {
    owned.push_back(std::move(v));
    cells.push_back(*owned.back().raw());
  }
  const MXFFIAny& Pick(FuzzedDataProvider* in) {
    return cells[in->ConsumeIntegralInRange<size_t>(0, cells.size() - 1)];
  }
};

double SomeDouble(FuzzedDataProvider* in) {
  static const double kEdges[] = {0.0,
                                  -0.0,
                                  1.5,
                                  std::numeric_limits<double>::quiet_NaN(),
                                  std::numeric_limits<double>::infinity(),
                                  -std::numeric_limits<double>::infinity(),
                                  1e300,
                                  9.3e18,
                                  -9.3e18,
                                  std::numeric_limits<double>::denorm_min()};
  if (in->ConsumeBool()) return in->PickValueInArray(kEdges);
  uint64_t bits = in->ConsumeIntegral<uint64_t>();
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d;
}

std::string SomeText(FuzzedDataProvider* in, size_t max_len) {
  static const char* kWords[] = {"float32", "int8x4",     "cuda:1",   "cpu",         "cpu:0",
                                 "csr",     "row_sparse", "default",  "x",           "label",
                                 "bool",    "gpu:-1",     "np.zeros", "testing.add", "mxffi.Point"};
  if (in->ConsumeIntegralInRange<int>(0, 2) == 0) return in->PickValueInArray(kWords);
  return in->ConsumeRandomLengthString(max_len);
}

void AddCell(Pool* p, FuzzedDataProvider* in, int depth);

/*! \brief n cells of the pool built at depth + 1, as arguments of a constructor global. */
std::vector<MXFFIAny> Children(Pool* p, FuzzedDataProvider* in, int depth, int max_n) {
  int n = in->ConsumeIntegralInRange<int>(0, max_n);
  std::vector<MXFFIAny> out;
  for (int i = 0; i < n; ++i) {
    if (depth < 3 && in->ConsumeBool()) {
      AddCell(p, in, depth + 1);
      out.push_back(p->cells.back());
    } else if (!p->cells.empty()) {
      out.push_back(p->Pick(in));
    } else {
      MXFFIAny c = mxffi_fuzz::NoneCell();
      c.type_index = kMXFFIInt;
      c.v_int64 = mxffi_fuzz::SomeInt(in);
      out.push_back(c);
    }
  }
  return out;
}

void AddCell(Pool* p, FuzzedDataProvider* in, int depth) {
  MXFFIAny c = mxffi_fuzz::NoneCell();
  switch (in->ConsumeIntegralInRange<int>(0, 22)) {
    case 0:
      break;
    case 1:
      c.type_index = kMXFFIInt;
      c.v_int64 = in->ConsumeBool() ? mxffi_fuzz::SomeInt(in) : in->ConsumeIntegral<int64_t>();
      break;
    case 2:
      c.type_index = kMXFFIBool;
      c.v_int64 = in->ConsumeBool();
      break;
    case 3:
      c.type_index = kMXFFIFloat;
      c.v_float64 = SomeDouble(in);
      break;
    case 4:
      c.type_index = kMXFFIDataType;
      c.v_dtype = mxffi_fuzz::SomeDType(in);
      break;
    case 5:
      c.type_index = kMXFFIDevice;
      c.v_device.device_type = mxffi_fuzz::SomeDeviceType(in);
      c.v_device.device_id = in->ConsumeBool() ? 0 : in->ConsumeIntegral<int32_t>();
      break;
    case 6:
    case 7: {
      std::string s = in->ConsumeRandomLengthString(7);
      c.type_index = in->ConsumeBool() ? kMXFFISmallStr : kMXFFISmallBytes;
      c.small_len = static_cast<uint32_t>(s.size());
      std::memcpy(c.v_bytes, s.data(), s.size());
      break;
    }
    case 8:
      p->text.push_back(SomeText(in, 64));
      c.type_index = kMXFFIRawStr;
      c.v_c_str = p->text.back().c_str();
      break;
    case 9:
    case 10:
      p->text.push_back(SomeText(in, 64));
      p->views.push_back(MXFFIByteArray{p->text.back().data(), p->text.back().size()});
      c.type_index = in->ConsumeBool() ? kMXFFIStrView : kMXFFIBytesView;
      c.v_ptr = &p->views.back();
      break;
    case 11: {
      std::string s = SomeText(in, 64);
      if (in->ConsumeBool()) {
        p->AddOwned(Any(mxffi::String(s)));
      } else {
        p->AddOwned(Any(mxffi::Bytes(s)));
      }
      return;
    }
    case 12: {
      std::vector<MXFFIAny> items = Children(p, in, depth, 5);
      MXFFIObjectHandle arr = nullptr;
      if (MXFFIArrayCreate(items.data(), static_cast<int64_t>(items.size()), &arr) != 0) {
        Fail("MXFFIArrayCreate failed on well-formed cells");
      }
      MXFFIAny a = mxffi_fuzz::NoneCell();
      a.type_index = kMXFFIArray;
      a.v_obj = static_cast<MXFFIObject*>(arr);
      p->AddOwned(Any::MoveFromRaw(&a));
      return;
    }
    case 13: {
      static const char* kMakers[] = {"container.map", "container.adt", "container.shape",
                                      "container.array"};
      const char* maker = in->PickValueInArray(kMakers);
      std::vector<MXFFIAny> args = Children(p, in, depth, 6);
      p->AddOwned(Call(maker, args.data(), static_cast<int32_t>(args.size())));
      return;
    }
    case 14:
    case 15: {
      // A small dense array of some dtype, or a sparse zero array.
      MXFFIAny args[4];
      int64_t dims[3] = {in->ConsumeIntegralInRange<int64_t>(0, 4),
                         in->ConsumeIntegralInRange<int64_t>(0, 4),
                         in->ConsumeIntegralInRange<int64_t>(0, 3)};
      int ndim = in->ConsumeIntegralInRange<int>(0, 3);
      Any shape(mxffi::Shape(std::vector<int64_t>(dims, dims + ndim)));
      args[0] = *shape.raw();
      args[1] = mxffi_fuzz::NoneCell();
      args[1].type_index = kMXFFIDataType;
      args[1].v_dtype = mxffi_fuzz::SomeDType(in);
      args[2] = mxffi_fuzz::NoneCell();
      if (in->ConsumeBool()) {
        p->AddOwned(Call(in->ConsumeBool() ? "np.zeros" : "np.ones", args, 3));
      } else {
        Any stype(mxffi::String(in->ConsumeBool() ? "csr" : "row_sparse"));
        MXFFIAny sargs[3] = {*stype.raw(), args[0], args[1]};
        p->AddOwned(Call("sparse._zeros", sargs, 3));
      }
      return;
    }
    case 16: {
      // A borrowed DLTensor* of a dense array in the pool.
      for (const Any& a : p->owned) {
        if (a.type_index() != kMXFFINDArray) continue;
        auto* obj = reinterpret_cast<MXFFINDArrayObj*>(a.raw()->v_obj);
        if (obj->stype != kMXFFIStorageDefault || in->ConsumeBool()) continue;
        c.type_index = kMXFFIDLTensorPtr;
        c.v_ptr = &obj->tensor;
        break;
      }
      break;
    }
    case 17: {
      const std::vector<std::string>& g = Globals();
      const std::string& name = g[in->ConsumeIntegralInRange<size_t>(0, g.size() - 1)];
      // Called through testing.apply, its result (a DLPack tensor to free) would be lost.
      if (name == "ndarray.to_dlpack") break;
      c.type_index = kMXFFIFunction;
      c.v_obj = static_cast<MXFFIObject*>(mxffi_fuzz::Global(name.c_str()));
      break;
    }
    case 18: {
      Any kind(mxffi::String(in->ConsumeBool() ? "ValueError" : SomeText(in, 16)));
      Any msg(mxffi::String(SomeText(in, 32)));
      MXFFIAny args[2] = {*kind.raw(), *msg.raw()};
      p->AddOwned(Call("testing.make_error", args, 2));
      return;
    }
    case 19:
      c.type_index = kMXFFIOpaquePtr;
      c.v_ptr = p->opaque;
      break;
    case 20: {
      std::vector<MXFFIAny> args = Children(p, in, depth, 3);
      p->AddOwned(Call("testing.make_point", args.data(), static_cast<int32_t>(args.size())));
      return;
    }
    case 21: {
      MXFFIAny n = mxffi_fuzz::NoneCell();
      n.type_index = kMXFFIInt;
      n.v_int64 = mxffi_fuzz::SomeInt(in);
      p->AddOwned(Call("testing.make_adder", &n, 1));
      return;
    }
    default: {
      std::vector<MXFFIAny> args = Children(p, in, depth, 4);
      Any dtype;
      if (in->ConsumeBool()) {
        MXFFIAny d = mxffi_fuzz::NoneCell();
        d.type_index = kMXFFIDataType;
        d.v_dtype = mxffi_fuzz::SomeDType(in);
        args.push_back(d);
      }
      p->AddOwned(Call("np.array", args.data(), static_cast<int32_t>(args.size())));
      return;
    }
  }
  p->cells.push_back(c);
}

/*! \brief try_cast<T> and cast<T> agree, and cast fails only with TypeError or OverflowError. */
template <typename T>
void CheckConvert(const AnyView& v, const char* type) {
  std::optional<T> tried = v.try_cast<T>();
  try {
    T value = v.cast<T>();
    (void)value;
    if (!tried.has_value()) {
      Fail(std::string("cast<") + type + "> succeeded where try_cast failed on a " +
           v.GetTypeName());
    }
  } catch (const mxffi::Error& e) {
    if (tried.has_value()) {
      Fail(std::string("cast<") + type + "> threw where try_cast succeeded: " + e.what());
    }
    if ((e.kind() != "TypeError" && e.kind() != "OverflowError") || e.message().empty()) {
      Fail(std::string("cast<") + type + "> threw " + e.kind() + ": " + e.message());
    }
  }
}

void ConvertAll(const MXFFIAny& cell) {
  const AnyView& v = *AnyView::FromRaw(&cell);
  MXFFI_FUZZ_CHECK(!v.GetTypeName().empty(), "a cell without a type name");
  CheckConvert<bool>(v, "bool");
  CheckConvert<int64_t>(v, "int64");
  CheckConvert<int32_t>(v, "int32");
  CheckConvert<uint8_t>(v, "uint8");
  CheckConvert<uint64_t>(v, "uint64");
  CheckConvert<double>(v, "double");
  CheckConvert<float>(v, "float");
  CheckConvert<void*>(v, "void*");
  CheckConvert<DLDataType>(v, "DLDataType");
  CheckConvert<DLDevice>(v, "DLDevice");
  CheckConvert<DLTensor*>(v, "DLTensor*");
  CheckConvert<std::string>(v, "std::string");
  CheckConvert<std::string_view>(v, "std::string_view");
  CheckConvert<mxffi::String>(v, "String");
  CheckConvert<mxffi::Bytes>(v, "Bytes");
  CheckConvert<mxffi::NDArray>(v, "NDArray");
  CheckConvert<mxffi::Array<Any>>(v, "Array<Any>");
  CheckConvert<mxffi::Array<int64_t>>(v, "Array<int64>");
  CheckConvert<mxffi::Array<mxffi::String>>(v, "Array<String>");
  CheckConvert<mxffi::Map<Any, Any>>(v, "Map<Any, Any>");
  CheckConvert<mxffi::Map<mxffi::String, int64_t>>(v, "Map<String, int64>");
  CheckConvert<mxffi::Shape>(v, "Shape");
  CheckConvert<mxffi::ADT>(v, "ADT");
  CheckConvert<mxffi::Function>(v, "Function");
  CheckConvert<mxffi::ObjectRef>(v, "ObjectRef");
  CheckConvert<mxffi::Optional<int64_t>>(v, "Optional<int64>");
  CheckConvert<mxffi::Optional<mxffi::String>>(v, "Optional<String>");
  CheckConvert<mxffi::Error>(v, "Error");
  // An owned copy materialises borrowed strings; the copy converts like the view.
  Any owned(v);
  std::optional<std::string> a = v.try_cast<std::string>();
  std::optional<std::string> b = owned.try_cast<std::string>();
  MXFFI_FUZZ_CHECK(a == b, "an owned copy of a string cell reads differently");
}

void CallSome(Pool* p, FuzzedDataProvider* in) {
  const std::vector<std::string>& g = Globals();
  const std::string& name = g[in->ConsumeIntegralInRange<size_t>(0, g.size() - 1)];
  int n = in->ConsumeIntegralInRange<int>(0, 5);
  std::vector<MXFFIAny> args;
  for (int i = 0; i < n && !p->cells.empty(); ++i) args.push_back(p->Pick(in));
  bool ok = false;
  Any r = Call(name.c_str(), args.data(), static_cast<int32_t>(args.size()), &ok);
  if (!ok) return;
  if (name == "ndarray.to_dlpack") {
    // The result is a DLPack tensor the caller owns.
    bool versioned = args.size() > 1 && AnyView::FromRaw(&args[1])->try_cast<bool>().value_or(0);
    void* m = r.cast<void*>();
    if (versioned) {
      auto* t = static_cast<DLManagedTensorVersioned*>(m);
      t->deleter(t);
    } else {
      auto* t = static_cast<DLManagedTensor*>(m);
      t->deleter(t);
    }
    return;
  }
  if (r.type_index() == kMXFFIOpaquePtr) Fail(name + " returned an opaque pointer");
  ConvertAll(*r.raw());
  if (p->owned.size() < 64) p->AddOwned(std::move(r));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  Pool pool;
  int n = in.ConsumeIntegralInRange<int>(1, 8);
  for (int i = 0; i < n; ++i) AddCell(&pool, &in, 0);
  while (in.remaining_bytes() > 0) {
    if (in.ConsumeBool()) {
      ConvertAll(pool.Pick(&in));
    } else {
      CallSome(&pool, &in);
    }
  }
  return 0;
}
