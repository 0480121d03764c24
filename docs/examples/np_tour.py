# ruff: noqa: E402
"""The mxffi.np guide's examples (docs/np.md cuts its code from here); tests/python runs it."""

import numpy as np

# [arrays.begin]
import mxffi
import mxffi.np as mnp

x = mnp.zeros((3, 4))  # float64, like numpy
assert x.shape == (3, 4) and str(x.dtype) == "float64"
y = mnp.arange(12, dtype="float32").reshape(3, 4)  # a view: no copy
z = mnp.ones((3, 4), dtype=np.float32, device="cpu:0")  # numpy dtypes and DLPack devices work too
assert (y + z).tolist()[0] == [1.0, 2.0, 3.0, 4.0]
assert str((y * 2.5).dtype) == "float32"  # NEP 50: a Python float does not widen float32
assert str((y + np.ones(4)).dtype) == "float64"  # a numpy array is not weak
assert y.T.shape == (4, 3)  # transpose is a view too
# [arrays.end]

# [array.begin]
import pickle

a = mnp.arange(12.0).reshape(3, 4)
assert a.strides == (32, 8) and a.nbytes == 96  # read from the array's layout in C
row = a[1]  # ints, slices (any step), None and ... give views: no copy
row[:] = 0.0  # ... so writing through one changes a
assert a[1, ::-1].tolist() == [0.0, 0.0, 0.0, 0.0] and a[..., None].shape == (3, 4, 1)
a[0, 1:3] = [7, 8]  # assignment broadcasts and casts as numpy's does
b = a  # in-place operators write into the array itself
b += 1
assert b is a and a[0].tolist() == [1.0, 8.0, 9.0, 4.0]
assert float(a[2, 3]) == 12.0 and len(a) == 3
c = pickle.loads(pickle.dumps(a[::2], protocol=5))  # dtype, shape, device and data
assert c.shape == (2, 4) and c.tolist() == a[::2].tolist()
assert isinstance(np.exp(a), mxffi.NDArray)  # numpy's ufuncs run mxffi's function of that name
try:
    hash(a)  # an array compares elementwise, so it is unhashable (as numpy's)
except TypeError:
    pass
# [array.end]

# [dtypes.begin]
f32 = mxffi.DataType("f4")  # numpy's names and codes: one grammar for DataType(x) and dtype=x
assert f32 == mnp.float32 == "float32" and hash(f32) == hash("float32")
assert mnp.zeros(2, dtype=float).dtype == "float64"  # Python's float is numpy's float64
assert mnp.zeros(2, dtype=int).dtype == mnp.int64
assert mxffi.DataType(np.dtype("<c8")) == mnp.complex64  # complex types read
assert mxffi.DataType("float32x4").lanes == 4  # DLPack's lane form, which numpy has no reading for
for bad in (">f8", "U", "V8", "float128"):  # big-endian, str, void, long double: no such arrays
    try:
        mxffi.DataType(bad)
    except TypeError as e:
        assert f"mxffi.DataType: data type '{bad}'" in str(e)
    else:
        raise AssertionError(bad)
assert f32 == np.float32 and f32 == np.dtype("float32") and f32 == "f4"  # as numpy's dtypes
assert {f32: 1}["float32"] == 1  # hashed as its canonical name
# [dtypes.end]

# [numpy.begin]
a = np.arange(6.0).reshape(2, 3)
m = mnp.from_dlpack(a)  # zero copy, both ways
m_np = np.from_dlpack(m)
m_np[0, 0] = 42.0
assert a[0, 0] == 42.0
assert np.asarray(mnp.sum(m, axis=0)).tolist() == [45.0, 5.0, 7.0]
assert mnp.tensordot(m, m.T, axes=1).shape == (2, 2)  # GEMM through OpenBLAS
# [numpy.end]

# [ops.begin]
q = mnp.quadratic(m, a=1.0, b=-2.0, c=0.5)  # an op with dmlc parameters, typed arguments
same = mxffi.ops.invoke("quadratic", m, a=1.0, b=-2.0, c=0.5)  # by name, params as strings
assert q.tolist() == same.tolist()
assert "quadratic" in mxffi.ops.list_ops()
try:
    mxffi.ops.invoke("quadratic", m, a="two")
except ValueError as e:
    assert "quadratic: invalid parameter" in str(e) and "'two'" in str(e)
# [ops.end]

# [errors.begin]
try:
    mnp.add(mnp.zeros((2, 3)), mnp.zeros((4,)))
except ValueError as e:
    assert "(2,3)" in str(e).replace(" ", "") and "(4,)" in str(e)
try:
    mnp.sum(mnp.zeros((2, 3)), axis=2)
except np.exceptions.AxisError as e:  # numpy's own class (a ValueError and an IndexError)
    assert "axis 2 is out of bounds for array of dimension 2" in str(e)
try:
    mnp.zeros((2,), dtype="float33")
except TypeError as e:
    assert "data type 'float33' not understood" in str(e)
# [errors.end]

# [indexing.begin]
gather = mxffi.get_global_func("ndarray.advanced_gather")  # what x[rows, cols] will call
scatter = mxffi.get_global_func("ndarray.advanced_scatter")
x = np.arange(12.0).reshape(3, 4)
rows, cols = np.array([2, 0, -1]), np.array([1, 3, 0])
assert gather(x, 0, rows, cols).tolist() == x[rows, cols].tolist()
assert gather(x, 1, cols).shape == x[:, cols].shape  # (3, 3)
assert mnp.take(x, [5, -1]).tolist() == [5.0, 11.0]  # axis=None: x flattened
assert mnp.take_along_axis(x, np.argsort(-x, axis=1), axis=1).tolist()[0] == [3.0, 2.0, 1.0, 0.0]
r, c = mnp.nonzero(np.array([[0, 7], [3, 0]]))
assert r.tolist() == [0, 1] and c.tolist() == [1, 0]
t = mnp.zeros(4)
scatter(t, np.array([1.0, 2.0, 3.0]), 0, np.array([1, 3, 1]))  # last write wins
assert t.tolist() == [0.0, 3.0, 0.0, 2.0]
try:
    mnp.take(x, [7], axis=1)
except IndexError as e:
    assert str(e) == "index 7 is out of bounds for axis 1 with size 4"  # numpy's text
# [indexing.end]

# [overlap.begin]
a = mnp.arange(9.0).reshape(3, 3)
mnp.add(a, a.T, out=a)  # out overlaps a.T: computed as if into a temporary, as numpy does
assert a.tolist() == [[0.0, 4.0, 8.0], [4.0, 8.0, 12.0], [8.0, 12.0, 16.0]]
n = np.arange(5.0)
mnp.copyto(mnp.from_dlpack(n[1:]), mnp.from_dlpack(n[:-1]))  # a shifted view of itself
assert n.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0]
assert not mnp.shares_memory(n[::2], n[1::2])  # exact
assert mnp.may_share_memory(n[::2], n[1::2])  # the bounds test only
# [overlap.end]

# [linalg.begin]
a = np.array([[[4.0, 1.0], [1.0, 3.0]], [[2.0, 0.0], [0.0, 5.0]]])  # a stack of two matrices
x = mnp.linalg.solve(a, np.array([1.0, 2.0]))  # a 1-D x2 is a vector: x has shape (2, 2)
assert np.allclose(np.einsum("bij,bj->bi", a, x.numpy()), [1.0, 2.0])
w, v = mnp.linalg.eigh(a)  # a named tuple, as numpy's: w ascending, v's columns the vectors
assert np.allclose(w.numpy()[1], [2.0, 5.0])
assert np.allclose(mnp.linalg.det(a).numpy(), [11.0, 10.0])  # sign * exp(log|det|), as numpy
try:
    mnp.linalg.inv(np.ones((2, 2)))
except np.linalg.LinAlgError as e:  # mxffi's LinAlgError is numpy's subclass
    assert str(e) == "np.linalg.inv: Singular matrix"
# [linalg.end]

# [fft.begin]
t = np.arange(64) / 64.0
signal = np.sin(2 * np.pi * 5 * t) + 0.5 * np.cos(2 * np.pi * 12 * t)
spectrum = mnp.fft.rfft(signal)  # the 33 non-negative frequency terms, complex128
freqs = mnp.fft.rfftfreq(64, d=1 / 64.0)
peaks = np.argsort(-np.abs(spectrum.numpy()))[:2]
assert sorted(freqs.numpy()[peaks].tolist()) == [5.0, 12.0]
back = mnp.fft.irfft(spectrum, n=64)
assert np.allclose(back.numpy(), signal)
assert mnp.fft.fft(np.ones(8, np.float32)).dtype == mnp.complex64  # single stays single
# [fft.end]

print("np_tour: ok")
