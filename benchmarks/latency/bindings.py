"""The call shapes and the Python side of every binding of bench_call_latency.py.

Each binding is written the way a competent user of it writes it; the native halves are the
other files of this folder (kernels.c is the C every binding calls). ``bind(name, np,
build_dir)`` returns {shape key: the function that shape calls} for one binding.
"""

import os
import sys

TEXT = "hello, world"

# (key, label in the tables, positional args, keyword args, expected result)
SHAPES = [
    ("nop", "nop()", (), None, None),
    ("add_int", "add_int(1000, 2000)", (1000, 2000), None, 3000),
    ("add_float", "add_float(1.5, 2.25)", (1.5, 2.25), None, 3.75),
    ("echo_str", "echo_str('hello, world')", (TEXT,), None, TEXT),
    ("str_len", "str_len('hello, world')", (TEXT,), None, 12),
    ("sum3", "sum3(1000, 1.5, 'hello, world')", (1000, 1.5, TEXT), None, 1013.5),
    ("first_f64", "first_f64(float64 (3,4) array)", "array", None, 0.5),
    ("add_int_kw", "add_int(a=1000, b=2000)", (), {"a": 1000, "b": 2000}, 3000),
    ("first_f64_torch", "first_f64(float64 (3,4) torch.Tensor)", "tensor", None, 0.5),
    ("first8", "first8(8 float64 (3,4) arrays)", "arrays8", None, 32.0),
    ("first8_torch", "first8(8 float64 (3,4) torch.Tensors)", "tensors8", None, 32.0),
]
SHAPE_KEYS = [s[0] for s in SHAPES]
# The function each shape calls (the keyword shape calls add_int, the torch shapes the array
# functions).
FUNC_OF = {"add_int_kw": "add_int", "first_f64_torch": "first_f64", "first8_torch": "first8"}
# Shapes whose arguments are torch tensors (shown only when torch is installed), and the
# bindings that cannot take a torch tensor as it is: ctypes' ndpointer, cffi's from_buffer and
# Cython's typed memoryviews want the buffer protocol, which torch does not offer.
TORCH_SHAPES = {"first_f64_torch", "first8_torch"}
NO_TORCH = {"python", "ctypes", "cffi", "cython"}


def arguments(tag, np, torch):
    """The positional arguments of a shape whose SHAPES entry names them by a tag: float64
    (3, 4) arrays whose first elements are 0.5, 1.5, ... (eight of them sum to 32.0)."""
    arrays = [np.arange(12, dtype=np.float64).reshape(3, 4) + 0.5 + i for i in range(8)]
    if tag == "array":
        return (arrays[0],)
    if tag == "arrays8":
        return tuple(arrays)
    tensors = [torch.from_numpy(a.copy()) for a in arrays]
    return (tensors[0],) if tag == "tensor" else tuple(tensors)


BINDINGS = [
    ("python", "pure Python"),
    ("ctypes", "ctypes"),
    ("cffi", "cffi (API mode)"),
    ("capi", "C extension (METH_FASTCALL)"),
    ("cython", "Cython def"),
    ("pybind11", "pybind11"),
    ("nanobind", "nanobind"),
    ("tvm_ffi", "apache-tvm-ffi"),
    ("mxffi", "mxffi (vectorcall)"),
    ("mxffi_ctypes", "mxffi (ctypes path)"),
]
BINDING_LABEL = dict(BINDINGS)
DASH = "–"  # a call the binding cannot express


# --- The bindings: each _bind_* returns {shape key: function}. -----------------------------


def _lib(build_dir, name):
    return os.path.join(build_dir, f"lib{name}.so")


def _select(funcs):
    """{shape key: function} for the shapes whose function funcs holds (ctypes and cffi have no
    first8: eight arrays in one call would need Python to pack their pointers)."""
    return {k: funcs[FUNC_OF.get(k, k)] for k in SHAPE_KEYS if FUNC_OF.get(k, k) in funcs}


def _bind_python(np, build_dir):
    """The same operations in Python (no C call): what a Python-level call costs."""

    def nop():
        pass

    def add_int(a, b):
        return a + b

    def add_float(a, b):
        return a + b

    def echo_str(s):
        return s

    def str_len(s):
        return len(s.encode())

    def sum3(a, b, s):
        return a + b + len(s.encode())

    def first_f64(a):
        return a.item(0)

    def first8(a0, a1, a2, a3, a4, a5, a6, a7):
        return (
            a0.item(0)
            + a1.item(0)
            + a2.item(0)
            + a3.item(0)
            + a4.item(0)
            + a5.item(0)
            + a6.item(0)
            + a7.item(0)
        )

    funcs = locals()
    return _select(funcs)


def _bind_ctypes(np, build_dir):
    """ctypes.CDLL with argtypes/restype; str in and out through small Python wrappers."""
    import ctypes

    class Str(ctypes.Structure):
        _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]

    lib = ctypes.CDLL(_lib(build_dir, "mxffi_bench_kernels"))
    i64, f64, cp, sz = ctypes.c_int64, ctypes.c_double, ctypes.c_char_p, ctypes.c_size_t

    def fn(name, restype, *argtypes):
        f = getattr(lib, name)
        f.restype, f.argtypes = restype, list(argtypes)
        return f

    nop = fn("mxb_nop", None)
    add_int = fn("mxb_add_int", i64, i64, i64)
    add_float = fn("mxb_add_float", f64, f64, f64)
    c_echo = fn("mxb_echo_str", Str, cp, sz)
    c_len = fn("mxb_str_len", i64, cp, sz)
    c_sum3 = fn("mxb_sum3", f64, i64, f64, cp, sz)
    c_first = fn(
        "mxb_first_f64", f64, np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS"), i64
    )
    string_at = ctypes.string_at

    def echo_str(s):
        b = s.encode()
        r = c_echo(b, len(b))
        return string_at(r.data, r.size).decode()

    def str_len(s):
        b = s.encode()
        return c_len(b, len(b))

    def sum3(a, b, s):
        e = s.encode()
        return c_sum3(a, b, e, len(e))

    def first_f64(a):
        return c_first(a, a.size)

    funcs = locals()
    return _select(funcs)


def _bind_cffi(np, build_dir):
    """cffi's API mode, out of line (latency/cffi_build.py); the same wrappers as ctypes."""
    import cffi_ext

    ffi, lib = cffi_ext.ffi, cffi_ext.lib
    c_echo, c_len, c_sum3, c_first = (
        lib.mxb_echo_str,
        lib.mxb_str_len,
        lib.mxb_sum3,
        lib.mxb_first_f64,
    )
    unpack, from_buffer, float64 = ffi.unpack, ffi.from_buffer, np.dtype(np.float64)

    def echo_str(s):
        b = s.encode()
        r = c_echo(b, len(b))
        return unpack(r.data, r.size).decode()

    def str_len(s):
        b = s.encode()
        return c_len(b, len(b))

    def sum3(a, b, s):
        e = s.encode()
        return c_sum3(a, b, e, len(e))

    def first_f64(a):
        if a.dtype != float64 or not a.flags.c_contiguous:
            raise TypeError("first_f64: expected a C-contiguous float64 array")
        return c_first(from_buffer("double[]", a), a.size)

    nop, add_int, add_float = lib.mxb_nop, lib.mxb_add_int, lib.mxb_add_float
    funcs = locals()
    return _select(funcs)


def _bind_module(module_name):
    def bind(np, build_dir):
        mod = __import__(module_name)
        return _select(vars(mod))

    return bind


def _bind_tvm_ffi(np, build_dir):
    import tvm_ffi

    mod = tvm_ffi.load_module(_lib(build_dir, "mxb_tvm_ffi"))
    return {k: getattr(mod, FUNC_OF.get(k, k)) for k in SHAPE_KEYS}


def _bind_mxffi(np, build_dir):
    import mxffi

    mxffi.library.load(_lib(build_dir, "mxffi_bench"))
    return {k: mxffi.get_global_func("bench." + FUNC_OF.get(k, k)) for k in SHAPE_KEYS}


def _bind_mxffi_ctypes(np, build_dir):
    import mxffi
    from mxffi._ffi import ctypes_backend

    mxffi.library.load(_lib(build_dir, "mxffi_bench"))
    return {k: ctypes_backend.get_global_func("bench." + FUNC_OF.get(k, k)) for k in SHAPE_KEYS}


BINDERS = {
    "python": _bind_python,
    "ctypes": _bind_ctypes,
    "cffi": _bind_cffi,
    "capi": _bind_module("capi_ext"),
    "cython": _bind_module("cython_ext"),
    "pybind11": _bind_module("pybind11_ext"),
    "nanobind": _bind_module("nanobind_ext"),
    "tvm_ffi": _bind_tvm_ffi,
    "mxffi": _bind_mxffi,
    "mxffi_ctypes": _bind_mxffi_ctypes,
}
# Bindings whose functions may take no keyword arguments: their keyword call is tried, and a
# TypeError shows it as "–". Anywhere else a TypeError is a bug and stops the benchmark.
KW_MAYBE = {"ctypes", "cffi", "tvm_ffi", "mxffi_ctypes"}


def bind(name, np, build_dir):
    """{shape key: function} of one binding; raises when its package is missing or unbuilt."""
    build_dir = os.fspath(build_dir)
    if build_dir not in sys.path:
        sys.path.insert(0, build_dir)  # the extension modules
    funcs = BINDERS[name](np, build_dir)
    if name in NO_TORCH:
        funcs = {k: f for k, f in funcs.items() if k not in TORCH_SHAPES}
    return funcs


# How each binding is written, for docs/benchmarks.md.
HOW_WRITTEN = {
    "python": "Python functions doing the same work, no C call: the cost of a Python call",
    "ctypes": "`CDLL` functions with `argtypes`/`restype`; str encoded to bytes and decoded back "
    "by a small Python wrapper; the array through `numpy.ctypeslib.ndpointer`",
    "cffi": "out-of-line API mode (`latency/cffi_build.py`); the same str wrappers; the array "
    "through `ffi.from_buffer` after a dtype and contiguity check",
    "capi": "`METH_FASTCALL` functions (`add_int` also `METH_KEYWORDS`), str as cached UTF-8, "
    "the array through numpy's C API (`latency/capi_ext.c`): the baseline of the gates",
    "cython": "`def` functions with typed arguments, the array as a typed memoryview "
    "`const double[:, ::1]`",
    "pybind11": "`m.def` over lambdas, `py::arg` names, `std::string_view`, "
    "`py::array_t<double, c_style | forcecast>`",
    "nanobind": "`m.def` over lambdas, `nb::arg` names, `std::string_view`, "
    "`nb::ndarray<const double, nb::c_contig, nb::device::cpu>`",
    "tvm_ffi": "`TVM_FFI_DLL_EXPORT_TYPED_FUNC`, loaded with `tvm_ffi.load_module`; "
    "`ffi::String`, `ffi::TensorView`",
    "mxffi": "`MXFFI_REGISTER_API` functions (`latency/mxffi_bench.cc`) loaded with "
    "`mxffi.library.load`, called through `mxffi.get_global_func(...)`: one `MXFFIFuncCall` "
    "per call; `std::string_view`, `DLTensor*`",
    "mxffi_ctypes": "the same functions through `mxffi._ffi.ctypes_backend`, the pure-Python "
    "reference",
}
