"""docs/custom_ops.md cuts its Python code from here. tests/python/test_custom_op.py runs it in
the folder holding the example's CMake build (build/libmy_ops.so) and checks what it prints."""

import numpy as np

# [intro.begin]
import mxffi

lib = mxffi.library.load("build/libmy_ops.so")
a, b = np.ones((2, 3)), np.ones((3, 4))
y = mxffi.ops.my_gemm(a, b, alpha=2.0)
# [intro.end]
assert y.tolist() == [[6.0] * 4] * 2

# [load.begin]
lib = mxffi.library.load("build/libmy_ops.so")  # the same Library as before
print(lib.kind, list(lib.names))
# op_library ['my_gemm', 'my_relu', 'my_poly', 'my_row_sum', 'my_threshold']

a, b = np.ones((2, 3)), np.ones((3, 4))
by_attribute = mxffi.ops.my_gemm(a, b, alpha=2.0)
by_name = mxffi.ops.invoke("my_gemm", a, b, alpha=2.0)  # by name, as every op
loaded = mxffi.library.loaded()  # the libraries loaded so far
# [load.end]
assert by_attribute.tolist() == by_name.tolist() == [[6.0] * 4] * 2
assert lib in loaded
print("use_my_ops: ok")
