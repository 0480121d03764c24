# ruff: noqa: E402
"""The sparse guide's examples (docs/sparse.md cuts its code from here); tests/python runs it."""

import os
import subprocess
import sys

# [make.begin]
import numpy as np
import scipy.sparse

import mxffi
import mxffi.np as mnp
from mxffi.nd import sparse

data, indices, indptr = [1.0, 2.0, 3.0], [0, 2, 1], [0, 2, 2, 3]
a = sparse.csr_matrix((data, indices, indptr), shape=(3, 4))  # from parts
b = sparse.csr_matrix(scipy.sparse.random(3, 4, density=0.5, random_state=0))  # from scipy
c = sparse.csr_matrix(np.eye(3), idx_dtype="int32")  # from dense values
e = sparse.csr_matrix(([1.0, 2.0, 5.0], ([0, 2, 0], [1, 0, 1])), shape=(3, 4))  # COO: edges
r = sparse.row_sparse_array((np.ones((2, 16)), [0, 5]), shape=(8, 16))  # rows 0 and 5 stored
x = mnp.array(np.eye(3)).tostype("csr")  # a dense mxffi array converted
assert (a.stype, a.shape, str(a.dtype), a.nnz) == ("csr", (3, 4), "float64", 3)
assert type(a) is sparse.CSRNDArray and type(r) is sparse.RowSparseNDArray
assert np.asarray(a.indptr).tolist() == [0, 2, 2, 3]
assert a.asnumpy()[2, 1] == 3.0 and (a.asscipy() != a.asscipy()).nnz == 0
assert r.tostype("csr").nnz == 32 and str(c.indices.dtype) == "int32"
assert e.nnz == 2 and e.asnumpy()[0, 1] == 6.0  # duplicates summed, as scipy does
# [make.end]

# [canonical.begin]
y = sparse.csr_matrix(([1.0, 2.0, 4.0], [3, 1, 3], [0, 3]), shape=(1, 4))
assert np.asarray(y.indices).tolist() == [1, 3]  # sorted, duplicates summed
assert np.asarray(y.data).tolist() == [2.0, 5.0]
try:
    sparse.csr_matrix(([1.0, 2.0], [0, 9], [0, 1, 2]), shape=(2, 4))
except ValueError as e:
    assert "indices[1]=9 is out of range for 4 columns (row 1)" in str(e)
try:
    sparse.row_sparse_array((np.ones((2, 3)), [4, 2]), shape=(8, 3))
except ValueError as e:
    assert "sorted and unique; indices[1]=2 follows indices[0]=4" in str(e)
# [canonical.end]

# [compute.begin]
dense = mnp.array(np.arange(8.0).reshape(4, 2))
assert type(sparse.dot(a, dense)) is mnp.ndarray  # csr x dense -> dense
assert sparse.dot(a, mnp.array(np.ones((3, 2))), transpose_a=True).stype == "row_sparse"
assert (a + a).stype == "csr" and (a * 2.0).stype == "csr" and (-a).stype == "csr"
assert sparse.quadratic(a, a=1.0, b=2.0, c=0.0).stype == "csr"
assert mnp.sum(a, axis=0).stype == "default"
assert mnp.tanh(a).stype == "csr" and (a > 0).stype == "csr"  # 0 stays 0 / False
assert mnp.clip(a, -1.0, 1.0).stype == "csr" and (a >= 0).stype == "default"
# [compute.end]

# [surface.begin]
import copy
import pickle

m = sparse.array(scipy.sparse.random(4, 5, density=0.4, random_state=1))  # a csr copy
assert m.check_format() is None  # MXNet's check; a malformed part is a ValueError
w = pickle.loads(pickle.dumps(m))  # stype, dtype, index dtype, shape, device kept
assert w.stype == "csr" and (w.asscipy() != m.asscipy()).nnz == 0
assert copy.deepcopy(m).stype == "csr" and m.toarray().shape == (4, 5)
g = sparse.row_sparse_array((np.ones((2, 3)), [1, 4]), shape=(6, 3))
assert np.asarray(g.retain([4, 5]).indices).tolist() == [4]  # only stored row 4 is kept
m *= 2.0  # in place, still csr
m += m
try:
    m += 1.0  # every element would change: the result is dense, refused in place
except TypeError as e:
    assert "gives a dense result; an in-place operation keeps the csr storage type" in str(e)
m[:] = np.eye(4, 5)  # MXNet's only assignment: x[:] = value, converted to x's storage type
assert m.stype == "csr" and m.nnz == 4
dense = mnp.zeros((4, 5))
m.copyto(dense)  # across storage types, either way
mnp.ones((4, 5)).copyto(m)
assert dense.asnumpy()[0, 0] == 1.0 and m.nnz == 20
# [surface.end]

# [dispatch.begin]
assert mxffi.ops.dispatch("quadratic", a, a=1.0, b=2.0) == ("fcompute_ex", ["csr"])
assert mxffi.ops.dispatch("quadratic", a, a=1.0, b=2.0, c=1.0) == ("fallback", ["default"])
q = sparse.quadratic(a, a=1.0, b=2.0, c=1.0)  # right, dense, and one warning
assert q.stype == "default" and q.asnumpy()[1, 0] == 1.0
# [dispatch.end]

# [select.begin]
t = mnp.take(a, [2, 0, -1], axis=0)  # rows 2, 0 and 2 of a, still csr
assert t.stype == "csr" and t.asnumpy()[1].tolist() == [1.0, 0.0, 2.0, 0.0]
assert sparse.take(a, [5, -1], mode="clip").asnumpy()[1].tolist() == a.asnumpy()[0].tolist()
s = mnp.concatenate([a, b], axis=0)  # csr stacked along axis 0: csr
assert s.stype == "csr" and s.shape == (6, 4)
w = mnp.where(a, mnp.ones((3, 4)), mnp.zeros((3, 4)))  # dense: 1 where a stores a nonzero
assert w.stype == "default" and w.asnumpy().sum() == 3.0
# [select.end]

# The warning, in a child process so that its stderr can be read.
code = "from mxffi.nd import sparse; import numpy; " + (
    "x = sparse.csr_matrix(numpy.eye(2)); sparse.quadratic(x, a=1.0, b=0.0, c=1.0); "
    "sparse.quadratic(x, a=1.0, b=0.0, c=1.0)"
)
env = dict(os.environ)
env.pop("MXFFI_STORAGE_FALLBACK_LOG_VERBOSE", None)
err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stderr
assert err.count("storage fallback: quadratic has no kernel") == 1, err
env["MXFFI_STORAGE_FALLBACK_LOG_VERBOSE"] = "0"
err = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env).stderr
assert "storage fallback" not in err, err
print("sparse_tour: ok")
