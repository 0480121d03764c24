"""The sparse guide's coo example (docs/sparse.md cuts its code from here);
tests/python/test_sparse_coo.py runs it and compares the page's copy."""

# [coo.begin]
import warnings

import numpy as np
import scipy.sparse

import mxffi.np as mnp
from mxffi.nd import sparse

# An edge list, as it comes: unsorted, with the edge 2 -> 0 twice (repeated pairs add up).
src = np.array([2, 0, 1, 2])  # rows
dst = np.array([0, 1, 2, 0])  # columns
w = np.array([1.0, 2.0, 3.0, 4.0])
g = sparse.coo_matrix((w, (src, dst)), shape=(3, 3))
assert type(g) is sparse.COONDArray and g.stype == "coo" and g.nnz == 4
assert np.asarray(g.row).tolist() == [2, 0, 1, 2]  # kept as given
assert not g.has_canonical_format
assert g.toarray()[2, 0] == 5.0  # 1.0 + 4.0
c = g.tocsr()  # sorted and summed in C++ (a counting sort by row, then each row's columns)
assert c.nnz == 3 and np.asarray(c.indptr).tolist() == [0, 1, 2, 3]
g.sum_duplicates()  # in place, as scipy's: row-major, no repeated pair
assert g.has_canonical_format and np.asarray(g.col).tolist() == [1, 2, 0]
assert g.T.shape == (3, 3) and g.T.toarray()[0, 2] == 5.0  # row and col swapped

# scipy both ways: the values are shared (no copy), the ids copied and checked.
s = scipy.sparse.coo_matrix(([1.0, 2.0], ([0, 1], [1, 1])), shape=(2, 2))
x = sparse.coo_matrix(s)
s.data[0] = 7.0
assert x.toarray()[0, 1] == 7.0
assert (x.asscipy() != s).nnz == 0

# Every conversion goes both ways; ops without a coo kernel run on it as csr, with one warning.
d = mnp.array(np.eye(2)).tostype("coo")
assert d.tostype("row_sparse").stype == "row_sparse" and d.tocoo() is d
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    y = sparse.dot(x, mnp.ones((2, 1)))  # converted to csr first, then csr x dense
assert y.asnumpy().ravel().tolist() == [7.0, 2.0]
# [coo.end]

print("sparse_coo: ok")
