"""torch tensors as function arguments: through torch's DLPack C exchange table, no capsule.

Both cores take a CPU tensor through the table's dltensor_from_py_object_no_sync (the Cython
core's exact-type switch once it has seen the type), never calling torch.Tensor.__dlpack__.
What the table exports but DLPack cannot describe (a lazy negation or conjugation bit) is
refused by name; what the table refuses (a sparse tensor) goes the capsule route and gets
torch's own error. The array-level checks (mxffi.np on torch arguments) need the Cython core.
"""

import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import mxffi  # noqa: E402
import mxffi.testing as T  # noqa: E402
from mxffi import ndarray as nd  # noqa: E402

CYTHON = mxffi._ffi.backend == "cython"
first = T.tensor_first_f64


@pytest.fixture
def no_capsule(monkeypatch):
    """Fails the test if anything calls torch.Tensor.__dlpack__ (the capsule route)."""

    def refuse(self, *args, **kwargs):
        raise AssertionError("torch.Tensor.__dlpack__ was called")

    monkeypatch.setattr(torch.Tensor, "__dlpack__", refuse)


def _base():
    return torch.arange(24, dtype=torch.float64).reshape(4, 6) + 0.5


_VIEWS = {
    "contiguous": lambda b: b,
    "transposed": lambda b: b.t(),
    "sliced": lambda b: b[1:, 2::2],  # storage offset and a stride of 2
    "row": lambda b: b[2],
    "0d": lambda b: b[3, 4],
    "expanded": lambda b: b[1:2, 1:4].expand(5, 3),  # stride 0
}


@pytest.mark.parametrize("view", list(_VIEWS))
def test_cpu_tensor_arguments_take_the_table_and_read_the_right_element(no_capsule, view):
    t = _VIEWS[view](_base())
    want = t.reshape(-1)[0].item() if t.dim() else t.item()
    for _ in range(3):  # the first call enters the type, later ones take the fast path
        assert first(t) == want


def test_tensors_that_require_grad_are_arguments(no_capsule):
    # torch's __dlpack__ refuses these in Python; a call only reads or writes the memory for
    # its duration, as a torch extension does, so the table's export is taken.
    t = torch.full((2, 2), 1.25, dtype=torch.float64, requires_grad=True)
    assert first(t) == 1.25
    assert first(t * 2) == 2.5  # not a leaf
    assert first(torch.nn.Parameter(torch.full((3,), -4.0, dtype=torch.float64))) == -4.0


def _negative_view():
    return torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex128).conj().imag


def test_the_negative_bit_is_refused_not_dropped():
    n = _negative_view()
    assert n.is_neg() and n.tolist() == [-2.0, 4.0]  # torch's values; the memory holds 2, -4
    msg = (
        "testing.tensor_first_f64: argument #0 'x': cannot take a Tensor of dtype torch.float64 "
        "as a tensor: its negative bit is set, which DLPack cannot carry; call .resolve_neg() "
        "first"
    )
    for _ in range(3):  # the exact-type switch sends it back to be refused by name
        with pytest.raises(BufferError, match=re.escape(msg)):
            first(n)
    assert first(n.resolve_neg()) == -2.0


def test_the_negative_bit_is_refused_on_the_capsule_route_too(monkeypatch):
    # No table (an older torch): torch's __dlpack__ exports the memory without the negation.
    monkeypatch.delattr(torch._C.TensorBase, "__dlpack_c_exchange_api__", raising=False)
    monkeypatch.delattr(torch.Tensor, "__dlpack_c_exchange_api__", raising=False)

    class Plain(torch.Tensor):  # a type not yet entered in the exact-type switch
        pass

    n = _negative_view().as_subclass(Plain)
    assert n.is_neg()
    with pytest.raises(BufferError, match=r"its negative bit is set"):
        first(n)


def test_from_dlpack_refuses_the_negative_bit():
    n = _negative_view()
    with pytest.raises(BufferError) as info:
        nd.from_dlpack(n)
    assert str(info.value) == (
        "mxffi.from_dlpack: cannot take a Tensor of dtype torch.float64 as a tensor: its "
        "negative bit is set, which DLPack cannot carry; call .resolve_neg() first"
    )
    assert first(nd.from_dlpack(n.resolve_neg())) == -2.0


def test_a_subclass_cannot_hide_the_bit_by_overriding_is_neg():
    class Liar(torch.Tensor):
        def is_neg(self):
            return False

    n = _negative_view().as_subclass(Liar)
    with pytest.raises(BufferError, match=r"its negative bit is set"):
        first(n)


def test_what_the_table_refuses_gets_torchs_own_error():
    s = torch.ones(2, 2, dtype=torch.float64).to_sparse()
    with pytest.raises(BufferError) as info:
        first(s)
    assert str(info.value).startswith(
        "testing.tensor_first_f64: argument #0 'x': cannot take a Tensor of dtype torch.float64 "
        "as a tensor: "
    )
    assert "strided" in str(info.value)  # torch's words
    assert first(torch.ones(1, dtype=torch.float64)) == 1.0  # no error left set


def test_a_subclass_overriding_dlpack_is_asked(monkeypatch):
    calls = []

    class Custom(torch.Tensor):
        def __dlpack__(self, *args, **kwargs):
            calls.append(1)
            return torch.Tensor.__dlpack__(self.as_subclass(torch.Tensor), *args, **kwargs)

    t = _base().as_subclass(Custom)
    assert first(t) == 0.5 and first(t) == 0.5
    assert len(calls) == 2


def test_more_tensor_types_than_the_switch_holds():
    # The exact-type switch holds a few producer types; the rest keep the slow path, same values.
    classes = [type(f"Sub{i}", (torch.Tensor,), {}) for i in range(7)]
    for rounds in range(2):
        for i, cls in enumerate(classes):
            t = torch.full((2,), float(i + rounds), dtype=torch.float64).as_subclass(cls)
            assert first(t) == float(i + rounds)


def test_a_wrong_dtype_is_the_functions_error(no_capsule):
    with pytest.raises(TypeError, match=r"testing.tensor_first_f64: expected float64, got code 2"):
        first(torch.ones(3, dtype=torch.float32))


# --- the array layer (Cython core) -------------------------------------------------------------

needs_cython = pytest.mark.skipif(not CYTHON, reason="mxffi.np needs the Cython core")

DTYPES = [
    torch.bool,
    torch.int8,
    torch.uint8,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.float32,
    torch.float64,
    torch.complex64,
    torch.complex128,
]


@needs_cython
@pytest.mark.parametrize("dtype", DTYPES, ids=[str(d).split(".")[1] for d in DTYPES])
@pytest.mark.parametrize("view", list(_VIEWS))
def test_np_functions_read_torch_arguments_as_numpy_would(no_capsule, dtype, view):
    import mxffi.np as mnp

    t = _VIEWS[view]((torch.arange(24).reshape(4, 6) % 5).to(dtype))
    got = mnp.add(t, t)
    want = np.add(t.numpy(), t.numpy())
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.asnumpy(), want)


@needs_cython
def test_eight_tensors_in_one_call(no_capsule):
    import mxffi.np as mnp

    ts = [torch.full((2, 3), float(i), dtype=torch.float32) for i in range(8)]
    got = mnp.concat(ts, axis=0)
    np.testing.assert_array_equal(got.asnumpy(), np.concatenate([t.numpy() for t in ts]))


@needs_cython
def test_conjugate_bit_is_refused_by_np_functions():
    import mxffi.np as mnp

    c = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex128).conj()
    with pytest.raises(BufferError) as info:
        mnp.add(c, c)
    assert str(info.value) == (
        "np.add: argument #0 'x1': cannot take a Tensor of dtype torch.complex128 as a tensor: "
        "its conjugate bit is set, which DLPack cannot carry; call .resolve_conj() first"
    )
    got = mnp.add(c.resolve_conj(), 0)
    np.testing.assert_array_equal(got.asnumpy(), np.array([1 - 2j, 3 + 4j]))


@needs_cython
def test_a_real_tensor_with_a_conj_view_is_fine(no_capsule):
    import mxffi.np as mnp

    r = torch.arange(3.0).conj()  # conj of a real tensor sets no bit
    np.testing.assert_array_equal(mnp.add(r, 1).asnumpy(), [1.0, 2.0, 3.0])
