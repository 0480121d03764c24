"""A correct use of mxffi's typed API: `mypy --strict` passes on it (tests/python/test_stubgen.py),
and it runs."""

import mxffi
import mxffi.cpp
import mxffi.np as mnp
import mxffi.testing as t
from mxffi import ops
from mxffi.nd import sparse

a: mxffi.NDArray = mnp.zeros((3, 4), dtype="float32")
b = mnp.ones(4) + a * 2.0
shape: tuple[int, ...] = b.shape
n: int = t.add(1, b=2)
joined: str = t.concat("a", "b")
q = ops.quadratic(a, a=1.0, b=-2, c=0.5)
m = sparse.csr_matrix(mnp.ones((3, 3)))
nnz: int = m.nnz
dt: mxffi.DataType = mnp.float32
total = mnp.sum(b, axis=0, keepdims=True)
f: mxffi.Function = mxffi.get_global_func("testing.add")
cache: str = mxffi.cpp.cache_dir()  # where mxffi.cpp.load_inline builds
print(total.tolist(), shape, n, joined, q.shape, nnz, dt, f(2, 3))
