"""The sparse guide's exchange examples (docs/sparse.md cuts its code from here):
torch's sparse tensors both ways, and the __binsparse__ protocol.
tests/python/test_sparse_exchange.py runs it and compares the page's copies."""

# [torch.begin]
import numpy as np
import torch

from mxffi.nd import sparse

t = torch.tensor([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]]).to_sparse_csr()
x = sparse.csr_matrix(t)  # torch.sparse_csr -> CSRNDArray: the values shared, no copy
t.values()[0] = 10.0
assert x.asnumpy()[0, 1] == 10.0  # written through torch, seen by mxffi
t.col_indices()[0] = 99  # torch's indices changed later: mxffi holds checked copies
x.check_format()

back = x.astorch()  # CSRNDArray -> torch.sparse_csr, the values shared again
assert back.values().data_ptr() == t.values().data_ptr()
assert back.to_dense().tolist() == [[0.0, 10.0, 0.0], [2.0, 0.0, 3.0]]

# COO keeps the entries as given; torch marks it coalesced only when it is canonical.
edges = torch.sparse_coo_tensor([[1, 0, 1], [0, 2, 0]], [1.0, 2.0, 4.0], (2, 3))
g = sparse.coo_matrix(edges)  # unsorted, the pair (1, 0) twice
assert g.nnz == 3 and g.toarray()[1, 0] == 5.0
assert not g.astorch().is_coalesced()
assert sparse.csr_matrix(edges).nnz == 2  # as csr: sorted, repeated pairs summed

try:
    sparse.csr_matrix(torch.ones(3, 4, 2).to_sparse_csr(dense_dim=1))
except ValueError as e:
    assert "csr_matrix: a hybrid torch sparse tensor (dense_dim() > 0) is not supported" in str(e)
# [torch.end]


# [binsparse.begin]
# Any library's sparse array that speaks the protocol: a descriptor and DLPack arrays.
class Producer:
    def __binsparse_descriptor__(self):
        return {
            "binsparse": {
                "version": "0.1",
                "format": "CSR",
                "shape": [2, 3],
                "number_of_stored_values": 3,
                "data_types": {
                    "pointers_to_1": "uint64",
                    "indices_1": "uint64",
                    "values": "float64",
                },
            }
        }

    def __binsparse__(self, descriptor=None):
        return {
            "pointers_to_1": np.array([0, 1, 3], np.uint64),
            "indices_1": np.array([1, 0, 2], np.uint64),
            "values": self.values,
        }


p = Producer()
p.values = np.array([1.0, 2.0, 3.0])
y = sparse.from_binsparse(p)  # every part checked; the values shared, the indices copied
assert type(y) is sparse.CSRNDArray and y.asnumpy()[1, 2] == 3.0
p.values[2] = 30.0
assert y.asnumpy()[1, 2] == 30.0

# mxffi's arrays are producers too: CSR for csr arrays, COOR for coo ones.
d = y.__binsparse_descriptor__()["binsparse"]
assert d["format"] == "CSR" and d["data_types"]["indices_1"] == "int64"
parts = y.__binsparse__()  # mxffi dense arrays, each a DLPack producer
assert np.from_dlpack(parts["values"]).tolist() == [1.0, 2.0, 30.0]
coor = {
    "binsparse": dict(
        d,
        format="COOR",
        data_types={"indices_0": "int32", "indices_1": "int32", "values": "float32"},
    )
}
c = sparse.from_binsparse(y, descriptor=coor)  # ask the producer for another format
assert type(c) is sparse.COONDArray and str(c.dtype) == "float32"
# [binsparse.end]

print("sparse_exchange: ok")
