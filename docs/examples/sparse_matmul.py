"""The sparse guide's csr @ csr and transpose example (docs/sparse.md cuts its code from here);
tests/python/test_sparse_spgemm.py runs it and compares the page's copy."""

# [matmul.begin]
import numpy as np
import scipy.sparse

import mxffi.np as mnp
from mxffi.nd import sparse

a = sparse.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 2.0, 0.0]]))
b = sparse.csr_matrix(np.array([[1.0, 0.0], [-1.0, 4.0], [5.0, 6.0]]))
c = a @ b  # csr @ csr -> csr, canonical: sorted column ids, no duplicates
assert c.stype == "csr" and c.asnumpy().tolist() == [[0.0, 4.0], [-2.0, 8.0]]
assert c.nnz == 3  # 1*1 + 1*(-1) cancelled to zero and is not stored, as in scipy
ref = scipy.sparse.csr_array(a.asnumpy()) @ scipy.sparse.csr_array(b.asnumpy())
assert ref.nnz == c.nnz
assert sparse.dot(a, b).nnz == 3 and mnp.matmul(a, b).stype == "csr"  # the same product
assert sparse.dot(b, b, transpose_a=True).shape == (2, 2)  # b.T @ b, still csr
assert type(a @ mnp.ones((3, 2))) is mnp.ndarray  # csr @ dense -> dense
assert (a @ np.ones(3)).shape == (2,)  # a vector operand gives a vector, as numpy's matmul
t = a.T  # a new canonical csr array, not a view
assert t.stype == "csr" and t.shape == (3, 2) and mnp.transpose(a).stype == "csr"
assert (a * a).asnumpy().tolist() == [[1.0, 1.0, 0.0], [0.0, 4.0, 0.0]]  # * is elementwise
# [matmul.end]

print("sparse_matmul: ok")
