"""The graph neural network kernels of docs/sparse.md, run by tests/python/test_sparse_gnn.py:
the page's code is cut from the marked regions of this file."""

import numpy as np

import mxffi.np as mnp
from mxffi.nd import sparse

# [graph.begin]
# Row i of adj lists the edges into node i (its destination), column j their source; the
# position of an edge among the stored entries is its id (0 to 3 here). Node 1 has no edges in.
adj = sparse.csr_matrix(([1.0, 2.0, 1.0, 3.0], [1, 2, 0, 1], [0, 2, 2, 4]), shape=(3, 3))
x = mnp.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0]])  # one row of features per node
# [graph.end]

# [spmm.begin]
assert sparse.spmm(adj, x).tolist() == [[8.0, 80.0], [0.0, 0.0], [7.0, 70.0]]  # adj @ x
assert sparse.spmm(adj, x, reduce="mean").tolist() == [[4.0, 40.0], [0.0, 0.0], [3.5, 35.0]]
values, arg = sparse.spmm(adj, x, reduce="max")
assert values.tolist() == [[6.0, 60.0], [0.0, 0.0], [6.0, 60.0]]
assert arg.tolist() == [[1, 1], [-1, -1], [3, 3]]  # edge ids; -1: no edge in
assert sparse.spmm(adj, np.array([1.0, 2.0, 3.0])).tolist() == [8.0, 0.0, 7.0]  # a vector
# [spmm.end]

# [sddmm.begin]
scores = sparse.sddmm(adj, x, x)  # adj[i, j] * dot(x[i], x[j]) at each edge, adj's structure
assert scores.stype == "csr" and scores.indices.tolist() == [1, 2, 0, 1]
assert scores.data.tolist() == [202.0, 606.0, 303.0, 1818.0]
# [sddmm.end]

# [softmax.begin]
att = sparse.edge_softmax(adj, np.array([0.0, np.log(3.0), 5.0, 5.0]))  # one score per edge
assert np.allclose(att.asnumpy(), [0.25, 0.75, 0.5, 0.5])  # sums to 1 over each node's edges
att = sparse.edge_softmax(adj, np.zeros((4, 8)))  # (nnz, heads): one softmax per head
assert att.shape == (4, 8)
# [softmax.end]

# [errors.begin]
try:
    sparse.spmm(adj, np.ones((4, 2)))
except ValueError as e:
    assert str(e).startswith(
        "sparse.spmm: x must have one row per column of adj (its source nodes); expected "
        "x.shape=(3,) or (3, F) for adj.shape=(3, 3), got x.shape=(4, 2)"
    )
else:
    raise AssertionError("a mismatched x was accepted")
try:
    sparse.spmm(adj, x, reduce="sum_")
except ValueError as e:
    assert str(e).startswith("sparse.spmm: reduce must be 'sum', 'mean', 'max' or 'min'")
else:
    raise AssertionError("an unknown reduce was accepted")
# [errors.end]

# [coo.begin]
# An edge list as a coo array: edge e goes from src[e] to dst[e]; the edge 0 -> 2 is there twice.
dst, src = np.array([2, 0, 2, 1]), np.array([0, 1, 0, 2])
edges = sparse.coo_matrix((np.array([1.0, 2.0, 3.0, 4.0]), (dst, src)), shape=(3, 3))
h = mnp.array([[1.0], [2.0], [3.0]])
assert sparse.spmm(edges, h, reduce="mean").tolist() == [[4.0], [12.0], [2.0]]  # 2 edges into 2
values, arg = sparse.spmm(edges, h, reduce="max")
assert values.tolist() == [[4.0], [12.0], [3.0]] and arg.tolist() == [[1], [3], [2]]  # coo ids
s = sparse.sddmm(edges, h, h)  # a coo array in the edge list's own order
assert s.stype == "coo" and np.asarray(s.row).tolist() == [2, 0, 2, 1]
assert np.asarray(s.data).tolist() == [3.0, 4.0, 9.0, 24.0]
att = sparse.edge_softmax(edges, np.array([0.0, 1.0, 0.0, 1.0]))  # scores in the coo order
assert att.tolist() == [0.5, 1.0, 0.5, 1.0]  # the two 0 -> 2 edges share node 2's softmax
# [coo.end]

print("sparse_gnn: ok")
