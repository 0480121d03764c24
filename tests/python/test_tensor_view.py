"""TensorView parameters (mxffi/tensor_view.h): constraints declared in the C++ type, checked at
the boundary with the project's errors, shown in signatures and stubs; and the current stream
of a device through the C ABI (MXFFIEnvGetCurrentStream)."""

import inspect
import re

import numpy as np
import pytest

import mxffi
import mxffi.testing as T

CYTHON = mxffi._ffi.backend == "cython"
SPEC = "a float64 tensor with 2 dimensions on the CPU, C-contiguous"


def _err(cls, got, fn="testing.tensor_view_sum", arg="#0 'x'"):
    # The message's first line; a C++ backtrace follows it.
    text = f"{fn}: argument {arg} expected {SPEC}, got {got}"
    return pytest.raises(cls, match="^" + re.escape(text) + "(\n|$)")


def test_a_tensor_keeping_the_constraints_is_read_in_place():
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert T.tensor_view_sum(a) == 66.0
    assert T.tensor_view_sum(a[1:]) == 60.0  # rows are still C-contiguous
    assert T.tensor_view_sum(np.zeros((0, 5))) == 0.0


def test_each_broken_constraint_names_what_the_tensor_is():
    with _err(TypeError, "a float32 tensor with 2 dimensions on cpu:0"):
        T.tensor_view_sum(np.ones((2, 2), np.float32))
    with _err(TypeError, "a float64 tensor with 3 dimensions on cpu:0"):
        T.tensor_view_sum(np.ones((2, 2, 2)))
    with _err(TypeError, "a float64 tensor with 1 dimension on cpu:0"):
        T.tensor_view_sum(np.ones(4))
    with _err(TypeError, "a float64 tensor with 2 dimensions on cpu:0, not C-contiguous"):
        T.tensor_view_sum(np.ones((3, 4)).T)
    with _err(TypeError, "a float64 tensor with 2 dimensions on cpu:0, not C-contiguous"):
        T.tensor_view_sum(np.ones((3, 4))[:, ::2])


def test_a_value_that_is_no_tensor_is_the_usual_type_error():
    with _err(TypeError, "int"):
        T.tensor_view_sum(3)
    with _err(TypeError, "str"):
        T.tensor_view_sum("x")


def test_the_constraints_are_the_signature():
    sig = inspect.signature(T.tensor_view_sum)
    assert str(sig.parameters["x"].annotation) == "Tensor[float64, ndim=2, cpu, c_contig]"
    assert str(inspect.signature(T.tensor_view_scale).parameters["x"].annotation) == (
        "Tensor[float32]"
    )
    assert str(inspect.signature(T.tensor_view_stream).parameters["x"].annotation) == "Tensor"


def test_a_writable_view_of_any_layout_writes_where_the_elements_are():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    view = base[1:, ::2].T  # strided, transposed, offset
    want = base.copy()
    want[1:, ::2] *= 3
    T.tensor_view_scale(view, 3.0)
    np.testing.assert_array_equal(base, want)
    with pytest.raises(TypeError, match=r"expected a float32 tensor, got a float64 tensor"):
        T.tensor_view_scale(np.ones(3), 2.0)


def test_the_cpu_stream_is_none():
    assert T.tensor_view_stream(np.ones(3)) == 0
    assert T.current_stream(1, 0) == 0


def test_current_stream_refuses_what_has_no_stream():
    with pytest.raises(
        ValueError,
        match=r"^MXFFIEnvGetCurrentStream: device type 4 has no streams "
        r"in mxffi; expected 1 \(CPU\) or 2 \(CUDA\)(\n|$)",
    ):
        T.current_stream(4, 0)
    with pytest.raises(ValueError, match=r"device index must be >= 0, got -1(\n|$)"):
        T.current_stream(1, -1)


@pytest.mark.skipif(not CYTHON, reason="mxffi arrays need the Cython core")
def test_mxffi_arrays_and_sparse_arrays():
    import mxffi.np as mnp
    from mxffi.nd import sparse

    assert T.tensor_view_sum(mnp.ones((2, 3))) == 6.0
    with _err(TypeError, "a sparse array (storage type 2); convert it with .todense()"):
        T.tensor_view_sum(sparse.zeros("csr", (2, 3)))


@pytest.mark.skipif(not CYTHON, reason="torch tensors through the table need the Cython core")
def test_torch_tensors():
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    assert T.tensor_view_sum(t) == 15.0
    with _err(TypeError, "a float64 tensor with 2 dimensions on cpu:0, not C-contiguous"):
        T.tensor_view_sum(t.t())
    f = torch.ones(2, 2)
    T.tensor_view_scale(f, 0.5)
    assert f.tolist() == [[0.5, 0.5], [0.5, 0.5]]


def test_the_stub_shows_the_constraints():
    from mxffi import stubgen

    assert stubgen.type_text("Tensor[float64, ndim=2, cpu, c_contig]") == (
        'Annotated[NDArrayLike, "float64, ndim=2, cpu, c_contig"]'
    )
    assert stubgen.type_text("Tensor") == "NDArrayLike"
    stub = stubgen.function_stub("testing.tensor_view_sum")
    assert stub == (
        'def tensor_view_sum(x: Annotated[NDArrayLike, "float64, ndim=2, cpu, c_contig"]) '
        "-> float: ..."
    )
