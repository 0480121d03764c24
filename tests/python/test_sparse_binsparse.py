"""The __binsparse__ protocol (data-apis/array-api#912 at 3cc8410): mxffi's sparse arrays as
producers, read by a consumer written here from the binsparse specification's text; a producer
written here from that text, read by sparse.from_binsparse; the mxffi round trip; descriptors
asked for; and every malformed descriptor or part refused by name."""

import numpy as np
import pytest
from sparse_cases import random_dense

import mxffi.np as mnp
from mxffi.nd import sparse

DENSITIES = [0.0, 0.01, 0.5, 1.0]
INDEX_DTYPES = ["int32", "int64"]
DTYPES = [np.float32, np.float64]
SHAPES = [(0, 4), (3, 0), (9, 7), (40, 33)]


def ptr(a):
    return np.from_dlpack(a).ctypes.data


# ---- a producer and a consumer written from the specification, not from mxffi's code --------


class Producer:
    """Any library's sparse array: a descriptor and numpy arrays, handed over as they are."""

    def __init__(self, fmt, shape, arrays, types=None, **extra):
        self.arrays = {k: np.asarray(v) for k, v in arrays.items()}
        if types is None:
            types = {k: v.dtype.name for k, v in self.arrays.items()}
        nnz = len(self.arrays["indices_1"])
        self.desc = {
            "binsparse": {
                "version": "0.1",
                "format": fmt,
                "shape": list(shape),
                "number_of_stored_values": nnz,
                "data_types": types,
                **extra,
            },
            "original_source": "a producer written from the binsparse specification",
        }
        self.asked = []

    def __binsparse_descriptor__(self):
        return self.desc

    def __binsparse__(self, descriptor=None):
        self.asked.append(descriptor)
        if descriptor is not None and descriptor != self.desc:
            raise TypeError("Producer: converting to another descriptor is not supported")
        return dict(self.arrays)


VALUE_TYPES = {
    "bint8": np.uint8,
    "complex[float32]": np.complex64,
    "complex[float64]": np.complex128,
}


def consume(x):
    """A dense numpy array from any __binsparse__ producer of CSR or COOR, read as the
    specification says, every rule it states asserted along the way."""
    desc = x.__binsparse_descriptor__()
    b = desc["binsparse"]
    parts = x.__binsparse__()
    assert set(parts) == set(b["data_types"])  # the proposal's rule
    arrays = {k: np.from_dlpack(v) for k, v in parts.items()}
    for k, a in arrays.items():
        want = b["data_types"][k]
        assert a.dtype == np.dtype(VALUE_TYPES.get(want, want)), (k, a.dtype, want)
    rows, cols = b["shape"]
    nnz = b["number_of_stored_values"]
    v = arrays["values"]
    vtype = b["data_types"]["values"]
    dense = np.zeros((rows, cols), bool if vtype == "bint8" else v.dtype)
    assert len(v) == len(arrays["indices_1"]) == nnz
    if b["format"] == "CSR":
        p, j = arrays["pointers_to_1"], arrays["indices_1"]
        assert len(p) == rows + 1 and (rows + 1 == 0 or p[0] == 0) and p[-1] == nnz
        for i in range(rows):
            row = j[p[i] : p[i + 1]]
            assert np.all(np.diff(row.astype(np.int64)) > 0)  # sorted, no duplicate
            for k in range(p[i], p[i + 1]):
                dense[i, j[k]] = v[k]
    else:
        assert b["format"] == "COOR"
        i0, i1 = arrays["indices_0"], arrays["indices_1"]
        pairs = list(zip(i0.tolist(), i1.tolist(), strict=True))
        assert pairs == sorted(set(pairs))  # row-major, no repeated pair
        for k, (i, j) in enumerate(pairs):
            dense[i, j] = v[k]
    return dense, desc, parts


# ---- mxffi as the producer -------------------------------------------------------------------


@pytest.mark.parametrize("density", DENSITIES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("itype", INDEX_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("stype", ["csr", "coo"])
def test_mxffi_arrays_read_by_a_spec_consumer_and_round_trip(stype, shape, itype, dtype, density):
    dense = random_dense(shape, density, dtype, seed=3)
    make = sparse.csr_matrix if stype == "csr" else sparse.coo_matrix
    x = make(dense, idx_dtype=itype)
    got, desc, parts = consume(x)
    np.testing.assert_array_equal(got, dense)
    fmt, a = ("CSR", "pointers_to_1") if stype == "csr" else ("COOR", "indices_0")
    assert desc["binsparse"] == {
        "version": "0.1",
        "format": fmt,
        "shape": list(shape),
        "number_of_stored_values": int(np.count_nonzero(dense)),
        "data_types": {a: itype, "indices_1": itype, "values": np.dtype(dtype).name},
    }
    assert desc["original_source"].startswith("mxffi, version ")
    y = sparse.from_binsparse(x)
    assert type(y) is type(x) and y.dtype == dtype and str(y.device) == "cpu:0"
    np.testing.assert_array_equal(y.asnumpy(), dense)
    if x.nnz:
        assert ptr(parts["values"]) == ptr(x.data)  # the producer's values: its own
        assert ptr(y.data) == ptr(x.data)  # and shared by the consumer
        parts[a][...] = 10**6  # the index parts handed over are copies
        x.check_format()


def test_non_canonical_coo_and_row_sparse_are_handed_over_in_the_specs_order():
    u = sparse.coo_matrix(([1.0, 2.0, 4.0], ([1, 0, 1], [0, 1, 0])), shape=(2, 3))
    got, desc, parts = consume(u)  # the consumer asserts the COOR order
    assert got.tolist() == [[0.0, 2.0, 0.0], [5.0, 0.0, 0.0]]
    assert desc["binsparse"]["number_of_stored_values"] == 2
    assert np.from_dlpack(parts["indices_0"]).tolist() == [0, 1]
    r = sparse.row_sparse_array((np.ones((2, 3)), [0, 2]), shape=(4, 3))
    got, desc, _ = consume(r)
    assert desc["binsparse"]["format"] == "CSR" and got.tolist() == r.asnumpy().tolist()
    with pytest.raises(BufferError, match=r"RowSparseNDArray.__binsparse__: .*3-D row_sparse"):
        sparse.row_sparse_array(np.ones((2, 2, 2))).__binsparse__()


def test_bool_int_and_complex_values_carry_their_binsparse_types():
    b = sparse.csr_matrix(np.array([[True, False], [False, True]]))
    got, desc, parts = consume(b)
    assert desc["binsparse"]["data_types"]["values"] == "bint8"
    assert (
        np.from_dlpack(parts["values"]).dtype == np.uint8 and got.tolist() == b.asnumpy().tolist()
    )
    back = sparse.from_binsparse(b)
    assert back.dtype == np.bool_ and back.asnumpy().tolist() == b.asnumpy().tolist()
    i = sparse.coo_matrix(np.array([[0, 3], [-2, 0]], dtype=np.int32))
    assert consume(i)[0].tolist() == [[0, 3], [-2, 0]]
    z = Producer(
        "CSR",
        (1, 2),
        {"pointers_to_1": [0, 1], "indices_1": [1], "values": np.array([1 + 2j])},
        types={"pointers_to_1": "int64", "indices_1": "int64", "values": "complex[float64]"},
    )
    c = sparse.from_binsparse(z)
    assert c.dtype == np.complex128 and np.asarray(c.data).tolist() == [1 + 2j]
    assert c.__binsparse_descriptor__()["binsparse"]["data_types"]["values"] == "complex[float64]"
    h = sparse.csr_matrix(np.eye(2, dtype=np.float16))
    with pytest.raises(
        BufferError, match=r"__binsparse_descriptor__: binsparse has no value type for float16"
    ):
        h.__binsparse_descriptor__()


def test_a_descriptor_asks_for_a_format_and_data_types():
    x = sparse.csr_matrix(np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]], dtype=np.float32))
    d = x.__binsparse_descriptor__()
    want = {
        "binsparse": dict(
            d["binsparse"],
            format="COO",
            data_types={"indices_0": "uint64", "indices_1": "uint8", "values": "float64"},
        )
    }
    parts = x.__binsparse__(descriptor=want)
    assert set(parts) == {"indices_0", "indices_1", "values"}
    assert np.from_dlpack(parts["indices_0"]).dtype == np.uint64
    assert np.from_dlpack(parts["indices_1"]).tolist() == [1, 2, 0]
    assert np.from_dlpack(parts["values"]).dtype == np.float64
    y = sparse.from_binsparse(x, descriptor=want)
    assert type(y) is sparse.COONDArray and y.dtype == np.float64
    np.testing.assert_array_equal(y.toarray(), x.asnumpy())
    back = sparse.from_binsparse(y, descriptor=d)  # and back to CSR
    assert type(back) is sparse.CSRNDArray and back.dtype == np.float32
    bad = {"binsparse": dict(d["binsparse"], shape=[3, 2])}
    with pytest.raises(
        ValueError,
        match=r"CSRNDArray.__binsparse__: the descriptor's shape \[3, 2\] is not \[2, 3\]",
    ):
        x.__binsparse__(descriptor=bad)
    bad = {"binsparse": dict(d["binsparse"], number_of_stored_values=4)}
    with pytest.raises(ValueError, match=r"number_of_stored_values 4 is not 3"):
        x.__binsparse__(descriptor=bad)
    bad = {"binsparse": dict(d["binsparse"], format="CSC")}
    with pytest.raises(TypeError, match=r"binsparse format 'CSC' is not supported"):
        x.__binsparse__(descriptor=bad)
    bad = {
        "binsparse": dict(
            d["binsparse"], data_types=dict(d["binsparse"]["data_types"], values="iso[float32]")
        )
    }
    with pytest.raises(TypeError, match=r"mxffi does not produce iso values"):
        x.__binsparse__(descriptor=bad)
    small = {
        "binsparse": dict(
            d["binsparse"], data_types=dict(d["binsparse"]["data_types"], indices_1="int8")
        )
    }
    big = sparse.csr_matrix(np.eye(300)[:1] + np.eye(300)[299:])
    small["binsparse"]["shape"], small["binsparse"]["number_of_stored_values"] = [1, 300], 2
    with pytest.raises(ValueError, match=r"indices_1 holds 299, past int8"):
        big.__binsparse__(descriptor=small)


# ---- a producer written from the specification, read by mxffi -------------------------------


def test_the_specs_iso_example_and_the_proposals_uint64_types():
    # the binsparse specification's example: a 5 x 5 CSR matrix whose values are all 7
    p = Producer(
        "CSR",
        (5, 5),
        {
            "pointers_to_1": np.array([0, 1, 3, 3, 5, 6], np.uint64),
            "indices_1": np.array([3, 1, 4, 1, 2, 3], np.uint64),
            "values": np.array([7], np.int8),
        },
        types={"pointers_to_1": "uint64", "indices_1": "uint64", "values": "iso[int8]"},
    )
    x = sparse.from_binsparse(p)
    want = np.zeros((5, 5), np.int8)
    for i, j in [(0, 3), (1, 1), (1, 4), (3, 1), (3, 2), (4, 3)]:
        want[i, j] = 7
    assert type(x) is sparse.CSRNDArray and x.dtype == np.int8
    np.testing.assert_array_equal(x.asnumpy(), want)
    assert str(x.indices.dtype) == "int64" and p.asked == [None]
    with pytest.raises(ValueError, match=r"sparse.from_binsparse: copy=False, but iso values"):
        sparse.from_binsparse(p, copy=False)
    # the proposal's COO example's types; "COO" is the specification's alias of COOR
    q = Producer(
        "COO",
        (10, 12),
        {
            "indices_0": np.array([0, 0, 9], np.uint64),
            "indices_1": np.array([1, 11, 0], np.uint64),
            "values": np.array([1.0, 2.0, 3.0], np.float32),
        },
    )
    y = sparse.coo_matrix(q)
    assert type(y) is sparse.COONDArray and y.shape == (10, 12) and y.toarray()[9, 0] == 3.0


def test_a_spec_producers_values_are_shared_and_its_indices_copied():
    values = np.array([1.0, 2.0, 3.0])
    ptrs, ids = np.array([0, 2, 3], np.int32), np.array([0, 2, 1], np.int32)
    p = Producer("CSR", (2, 3), {"pointers_to_1": ptrs, "indices_1": ids, "values": values})
    x = sparse.csr_matrix(p)
    c = sparse.from_binsparse(p, copy=True)
    assert ptr(c.data) != values.ctypes.data
    assert ptr(x.data) == values.ctypes.data
    values[0] = 9.0
    assert x.asnumpy()[0, 0] == 9.0
    ids[:] = 10**6  # the producer's indices changed later: mxffi's are its own
    ptrs[1] = 7
    x.check_format()
    assert np.asarray(x.indices).tolist() == [0, 2, 1] and str(x.indices.dtype) == "int32"
    assert c.asnumpy()[0, 0] == 1.0  # the copy kept the values of its time
    s = sparse.from_binsparse(
        Producer(
            "CSR", (2, 3), {"pointers_to_1": [0, 2, 3], "indices_1": [0, 2, 1], "values": values}
        ),
        copy=False,
        device=mnp.cpu(1),
    )
    assert str(s.device) == "cpu:1"
    a = sparse.array(
        Producer("COOR", (1, 2), {"indices_0": [0], "indices_1": [1], "values": [5.0]})
    )
    assert type(a) is sparse.COONDArray and a.toarray().tolist() == [[0.0, 5.0]]


def test_a_descriptor_passed_to_from_binsparse_reaches_the_producer():
    p = Producer("CSR", (1, 2), {"pointers_to_1": [0, 1], "indices_1": [1], "values": [1.0]})
    other = {
        "binsparse": dict(
            p.desc["binsparse"],
            format="COOR",
            data_types={"indices_0": "int64", "indices_1": "int64", "values": "float64"},
        )
    }
    with pytest.raises(TypeError, match=r"Producer: converting to another descriptor"):
        sparse.from_binsparse(p, descriptor=other)
    assert p.asked == [other]
    x = sparse.from_binsparse(p, descriptor=p.desc)
    assert x.asnumpy().tolist() == [[0.0, 1.0]]


def csr_producer(**change):
    arrays = {
        "pointers_to_1": np.array([0, 2, 3]),
        "indices_1": np.array([0, 2, 1]),
        "values": np.array([1.0, 2.0, 3.0]),
    }
    p = Producer("CSR", (2, 3), arrays)
    for k, v in change.items():
        if k in arrays:
            p.arrays[k] = np.asarray(v)
        else:
            p.desc["binsparse"][k] = v
    return p


@pytest.mark.parametrize(
    "change, kind, message",
    [
        ({"version": "0.2"}, ValueError, r"binsparse version must be '0.1', got '0.2'"),
        ({"format": "DCSR"}, TypeError, r"binsparse format 'DCSR' is not supported"),
        ({"structure": "symmetric_lower"}, TypeError, r"binsparse 'structure' 'symmetric_lower'"),
        ({"fill": True}, TypeError, r"binsparse 'fill' True is not supported"),
        (
            {"shape": [2, -3]},
            ValueError,
            r"binsparse shape must be a list of 2 non-negative ints for CSR",
        ),
        (
            {"shape": [2, 3, 1]},
            ValueError,
            r"binsparse shape must be a list of 2 non-negative ints",
        ),
        ({"number_of_stored_values": "3"}, ValueError, r"number_of_stored_values must be a non"),
        (
            {"number_of_stored_values": 2},
            ValueError,
            r"values must be 1-D with 2 entries, got shape \(3,\)",
        ),
        (
            {"data_types": {"pointers_to_1": "int64", "values": "float64"}},
            ValueError,
            r"data_types of CSR must name \['pointers_to_1', 'indices_1', 'values'\]",
        ),
        (
            {"data_types": {"pointers_to_1": "float64", "indices_1": "int64", "values": "float64"}},
            ValueError,
            r"data_types\['pointers_to_1'\] must be an integer type, got 'float64'",
        ),
        (
            {"data_types": {"pointers_to_1": "int64", "indices_1": "int64", "values": "float16"}},
            ValueError,
            r"data_types\['values'\] is not a binsparse value type: 'float16'",
        ),
        (
            {"values": np.array([1.0, 2.0, 3.0], np.float32)},
            ValueError,
            r"values are float32, the descriptor says float64",
        ),
        (
            {"indices_1": np.array([0, 2, 1], np.int32)},
            ValueError,
            r"indices_1 is int32, the descriptor says int64",
        ),
        (
            {"pointers_to_1": np.array([0, 3])},
            ValueError,
            r"pointers_to_1 must be 1-D with 3 entries, got shape \(2,\)",
        ),
        (
            {"pointers_to_1": np.array([0, 3, 3]), "indices_1": np.array([0, 2, 1])},
            ValueError,
            r"the column indices of row 0 must be sorted and unique; indices_1\[2\]=1 follows "
            r"indices_1\[1\]=2",
        ),
        (
            {"pointers_to_1": np.array([0, 2, 1])},
            ValueError,
            r"pointers_to_1\[-1\] must equal the number of values 3, got 1",
        ),
        (
            {"pointers_to_1": np.array([1, 2, 3])},
            ValueError,
            r"pointers_to_1\[0\] must be 0, got 1",
        ),
        (
            {"indices_1": np.array([0, 2, 3])},
            ValueError,
            r"indices_1\[2\]=3 is out of range for 3 columns \(row 1\)",
        ),
        (
            {"indices_1": np.array([0, 0, 1])},
            ValueError,
            r"the column indices of row 0 must be sorted and unique; indices_1\[1\]=0 follows",
        ),
    ],
)
def test_malformed_producers_are_refused_by_name(change, kind, message):
    with pytest.raises(kind, match="sparse.from_binsparse: " + message):
        sparse.from_binsparse(csr_producer(**change))


def test_malformed_coor_parts_and_objects_are_refused_by_name():
    def coor(i0, i1, values=(1.0, 2.0), shape=(3, 3), types=None):
        arrays = {"indices_0": np.array(i0), "indices_1": np.array(i1), "values": np.array(values)}
        return Producer("COOR", shape, arrays, types=types)

    fname = "sparse.from_binsparse: "
    with pytest.raises(
        ValueError,
        match=fname + r"COOR entries must be sorted by row, then column, "
        r"with no repeated pair; entry 1 \(0, 1\) follows \(1, 0\)",
    ):
        sparse.from_binsparse(coor([1, 0], [0, 1]))
    with pytest.raises(ValueError, match=r"entry 1 \(1, 1\) follows \(1, 1\)"):
        sparse.from_binsparse(coor([1, 1], [1, 1]))
    with pytest.raises(ValueError, match=fname + r"indices_0\[1\]=3 is out of range for 3 rows"):
        sparse.from_binsparse(coor([0, 3], [0, 1]))
    huge = np.array([0, 2**63 + 1], np.uint64)
    with pytest.raises(
        ValueError, match=fname + r"indices_1\[1\]=9223372036854775809 does not fit"
    ):
        sparse.from_binsparse(coor([0, 1], huge))
    bint8 = {"indices_0": "int64", "indices_1": "int64", "values": "bint8"}
    b = coor([0, 1], [0, 1], values=np.array([1, 2], np.uint8), types=bint8)
    with pytest.raises(ValueError, match=fname + r"bint8 values\[1\]=2 is neither 0 nor 1"):
        sparse.from_binsparse(b)
    with pytest.raises(AttributeError, match=fname + r"list has no __binsparse__"):
        sparse.from_binsparse([1, 2])
    p = coor([0], [0], values=[1.0])
    p.arrays["values"] = [1.0]  # not a DLPack producer
    with pytest.raises(TypeError, match=fname + r"part 'values' must support DLPack, got list"):
        sparse.from_binsparse(p)
    p = coor([0], [0], values=[1.0])
    p.arrays["extra"] = np.zeros(1)
    with pytest.raises(ValueError, match=fname + r"__binsparse__ returned parts"):
        sparse.from_binsparse(p)
    with pytest.raises(TypeError, match=fname + r"copy must be None, True or False, got 'no'"):
        sparse.from_binsparse(coor([0], [0], values=[1.0]), copy="no")
    with pytest.raises(TypeError, match=fname + r"the descriptor must be a dict, got list"):
        sparse.from_binsparse(coor([0], [0], values=[1.0]), descriptor=[])


def test_scipy_and_torch_as_producers_when_they_ship_the_protocol():
    # Neither scipy 1.17 nor torch 2.13 has __binsparse__ (scipy/scipy#22553 is open); the
    # exchange with them goes through csr_matrix / coo_matrix / asscipy / astorch instead.
    import scipy.sparse

    shipped = [
        m
        for m in (scipy.sparse.random(4, 5, density=0.4, format="csr", random_state=1),)
        if hasattr(type(m), "__binsparse__")
    ]
    torch = pytest.importorskip("torch")
    t = torch.eye(3).to_sparse_csr()
    if hasattr(type(t), "__binsparse__"):
        shipped.append(t)
    if not shipped:
        pytest.skip("neither scipy nor torch ships __binsparse__ yet")
    for m in shipped:
        x = sparse.from_binsparse(m)
        np.testing.assert_array_equal(
            x.asnumpy(), np.asarray(m.todense() if hasattr(m, "todense") else m.to_dense())
        )
