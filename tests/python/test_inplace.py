"""Outputs that are inputs: ``out=`` an operand (the same elements: kWriteInplace for the
elementwise kernels) gives numpy's result, dense and sparse."""

import numpy as np
import pytest
import scipy.sparse as sp

import mxffi.np as mnp
from mxffi.nd import sparse


def rand(shape, seed, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype) + 3.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
@pytest.mark.parametrize("fn", ["add", "subtract", "multiply", "maximum"])
def test_binary_into_either_operand(fn, dtype):
    x, y = rand((4, 5), 0, dtype), rand((4, 5), 1, dtype)
    expected = getattr(np, fn)(x, y)
    a, b = mnp.array(x), mnp.array(y)
    getattr(mnp, fn)(a, b, out=a)
    np.testing.assert_array_equal(a.asnumpy(), expected)
    a, b = mnp.array(x), mnp.array(y)
    getattr(mnp, fn)(a, b, out=b)
    np.testing.assert_array_equal(b.asnumpy(), expected)
    np.testing.assert_array_equal(a.asnumpy(), x)
    # both operands and the output one array
    a = mnp.array(x)
    getattr(mnp, fn)(a, a, out=a)
    np.testing.assert_array_equal(a.asnumpy(), getattr(np, fn)(x, x))


def test_in_place_with_broadcasting_scalars_and_views():
    x, row = rand((6, 7), 2), rand((7,), 3)
    a = mnp.array(x)
    mnp.add(a, mnp.array(row), out=a)
    np.testing.assert_allclose(a.asnumpy(), x + row, rtol=0)
    mnp.multiply(a, 2.5, out=a)
    np.testing.assert_allclose(a.asnumpy(), (x + row) * 2.5, rtol=0)
    mnp.subtract(10, a, out=a)
    np.testing.assert_allclose(a.asnumpy(), 10 - (x + row) * 2.5, rtol=0)
    # a strided view (the transpose) written in place
    b = mnp.array(x)
    t = mnp.transpose(b)
    mnp.add(t, 1.0, out=t)
    np.testing.assert_array_equal(b.asnumpy(), x + 1.0)
    # another array object over the same elements (a reshaped view) is the same operand
    c = mnp.array(x)
    mnp.add(c, c, out=mnp.reshape(c, (6, 7)))
    np.testing.assert_array_equal(c.asnumpy(), x + x)


@pytest.mark.parametrize("fn", ["negative", "square", "sqrt", "exp", "abs"])
def test_unary_in_place(fn):
    x = rand((3, 8), 4)
    a = mnp.array(x)
    getattr(mnp, fn)(a, out=a)
    np.testing.assert_allclose(a.asnumpy(), getattr(np, fn)(x), rtol=1e-15)


def csr_of(seed, density=0.4, shape=(7, 6)):
    m = sp.random(*shape, density=density, format="csr", random_state=seed) * 4
    return m.astype(np.float64)


@pytest.mark.parametrize("fn", ["add", "subtract", "multiply"])
def test_csr_into_its_operand(fn):
    x, y = csr_of(1), csr_of(2)
    expected = {"add": x + y, "subtract": x - y, "multiply": x.multiply(y)}[fn].toarray()
    a, b = sparse.csr_matrix(x), sparse.csr_matrix(y)
    out = getattr(mnp, fn)(a, b, out=a)
    assert a.stype == "csr" and out.handle == a.handle
    np.testing.assert_array_equal(a.asnumpy(), expected)
    np.testing.assert_array_equal(b.asnumpy(), y.toarray())
    a = sparse.csr_matrix(x)
    getattr(mnp, fn)(a, a, out=a)
    np.testing.assert_array_equal(
        a.asnumpy(), {"add": 2 * x, "subtract": 0 * x, "multiply": x.multiply(x)}[fn].toarray()
    )


def test_row_sparse_and_mixed_storage_into_an_operand():
    x, y = csr_of(3).toarray(), csr_of(4).toarray()
    a, b = sparse.row_sparse_array(x), sparse.row_sparse_array(y)
    mnp.add(a, b, out=b)
    assert b.stype == "row_sparse"
    np.testing.assert_array_equal(b.asnumpy(), x + y)
    # dense with csr into the dense operand (a dense result)
    d, c = mnp.array(x), sparse.csr_matrix(y)
    mnp.subtract(d, c, out=d)
    np.testing.assert_array_equal(d.asnumpy(), x - y)
    # dense times csr into the csr operand (a csr result)
    d, c = mnp.array(x), sparse.csr_matrix(y)
    mnp.multiply(d, c, out=c)
    assert c.stype == "csr"
    np.testing.assert_array_equal(c.asnumpy(), x * y)


def test_unary_on_sparse_into_itself():
    x = csr_of(5).toarray()
    c = sparse.csr_matrix(x)
    mnp.negative(c, out=c)
    np.testing.assert_array_equal(c.asnumpy(), -x)
    r = sparse.row_sparse_array(x)
    mnp.sqrt(r, out=r)
    np.testing.assert_array_equal(r.asnumpy(), np.sqrt(x))
