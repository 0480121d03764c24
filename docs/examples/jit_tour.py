# ruff: noqa: E402
"""docs/jit.md cuts its code from here; tests/python/test_cpp_jit.py runs it (with its own
$MXFFI_CACHE_DIR) and checks that every block of the page equals a region of this file."""

import inspect
import os

# [inline.begin]
import mxffi
import mxffi.cpp

source = r"""
#include <cmath>
#include <string>

int64_t add(int64_t a, int64_t b = 1) { return a + b; }

double norm(mxffi::Array<double> xs) {
  double s = 0;
  for (int64_t i = 0; i < xs.size(); ++i) s += xs[i] * xs[i];
  return std::sqrt(s);
}

std::string shout(std::string_view text) { return std::string(text) + "!"; }
"""
mod = mxffi.cpp.load_inline(
    "mymath", source, functions={"add": "Add two ints.", "norm": "", "shout": ""}
)
assert mod.add(1, 2) == 3
assert mod.add(41) == 42  # the C++ default argument
assert mod.norm([3.0, 4.0]) == 5.0
assert mod.shout("hi") == "hi!"
print(inspect.signature(mod.add))  # (a: int, b: int = 1) -> int
# [inline.end]
assert str(inspect.signature(mod.add)) == "(a: int, b: int = 1) -> int"
assert mxffi.get_global_func("mymath.add") is not None

# [register.begin]
registered = mxffi.cpp.load_inline(
    "mykernels",
    r"""
    MXFFI_REGISTER_API("mykernels.scale")
        .describe("x times factor.")
        .arg("x")
        .arg("factor", 2.0)
        .set_body_typed([](double x, double factor) { return x * factor; });
    """,
)
assert registered.scale(21.0) == 42.0
# [register.end]

# [tensor.begin]
import numpy as np

kernels = mxffi.cpp.load_inline(
    "mytensors",
    r"""
    #include <mxffi/tensor_view.h>

    // A C-contiguous float32 matrix on the CPU, written in place.
    void scale(mxffi::TensorView<float, mxffi::ndim<2>, mxffi::device::cpu, mxffi::c_contig> x,
               double factor) {
      for (int64_t i = 0; i < x.size(); ++i) x.data()[i] *= static_cast<float>(factor);
    }

    // The stream a launch on x's device would go to (0: the CPU, or CUDA's legacy stream).
    int64_t stream_of(mxffi::TensorView<> x) { return reinterpret_cast<intptr_t>(x.stream()); }
    """,
    functions=["scale", "stream_of"],
)
m = np.ones((2, 3), dtype=np.float32)
kernels.scale(m, 2.5)
assert m.tolist() == [[2.5, 2.5, 2.5], [2.5, 2.5, 2.5]]
print(inspect.signature(kernels.scale))
# (x: Tensor[float32, ndim=2, cpu, c_contig], factor: float) -> None
try:
    kernels.scale(np.ones((2, 3)), 2.0)  # float64
except TypeError as e:
    print(e)
# mytensors.scale: argument #0 'x' expected a float32 tensor with 2 dimensions on the CPU,
# C-contiguous, got a float64 tensor with 2 dimensions on cpu:0
assert kernels.stream_of(m) == 0
# [tensor.end]
assert str(inspect.signature(kernels.scale)) == (
    "(x: Tensor[float32, ndim=2, cpu, c_contig], factor: float) -> None"
)

# [build.begin]
path = mxffi.cpp.build("mymath2", "int64_t twice(int64_t x) { return 2 * x; }", functions=["twice"])
lib = mxffi.library.load(path)  # what load_inline does after building
assert mxffi.get_global_func("mymath2.twice")(21) == 42
# [build.end]
assert path.startswith(mxffi.cpp.cache_dir()) and os.path.basename(path) == "libmymath2.so"
assert list(lib.names) == ["mymath2.twice"]

# [errors.begin]
try:
    mxffi.cpp.load_inline("broken", "int64_t f() { return missing; }", functions=["f"])
except mxffi.cpp.CompileError as e:
    diagnostics = e.output
    print(diagnostics)  # main.cpp:1:22: error: 'missing' was not declared in this scope ...
# [errors.end]
assert "main.cpp:1:22: error:" in diagnostics  # a NameError had it compiled

print("jit_tour: ok")
