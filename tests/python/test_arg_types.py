"""Argument kinds as Python sees them: each kind's errors through mxffi.np and mxffi.nd.sparse
(exact text, both cores), and signatures with real annotations for every registered np.*
function."""

import inspect
import re
import typing

import numpy as np
import pytest

import mxffi
import mxffi.nd.sparse as sparse
import mxffi.np as mnp
from mxffi import typing as mt
from mxffi.ndarray import NDArray, from_dlpack


def raises(exc, text, fn, *args, **kwargs):
    """fn(*args, **kwargs) raises exc whose message's first line is exactly text."""
    with pytest.raises(exc) as e:
        fn(*args, **kwargs)
    assert str(e.value).splitlines()[0] == text


# Each kind: (a call that gives the kind a bad value, the exception, the exact message).
CASES = [
    # ShapeLike
    (
        lambda: mnp.zeros("abc"),
        TypeError,
        "np.zeros: argument #0 'shape' expected a shape (an int or a sequence of ints), got str",
    ),
    (
        lambda: mnp.zeros((2, 1.5)),
        TypeError,
        "np.zeros: argument #0 'shape' element 1 expected an int, got float",
    ),
    (
        lambda: mnp.ones((2, -1)),
        ValueError,
        "np.ones: argument #0 'shape': negative dimensions are not allowed; got (2, -1)",
    ),
    (
        lambda: mnp.empty(-4),
        ValueError,
        "np.empty: argument #0 'shape': negative dimensions are not allowed; got (-4,)",
    ),
    (
        lambda: mnp.full((1,) * 33, 0.0),
        ValueError,
        "np.full: argument #0 'shape': maximum supported dimension for an ndarray is 32, found 33",
    ),
    (
        lambda: sparse.zeros("csr", (2, -2)),
        ValueError,
        "sparse._zeros: argument #1 'shape': negative dimensions are not allowed; got (2, -2)",
    ),
    # IntTupleLike
    (
        lambda: mnp.reshape(mnp.zeros(4), "x"),
        TypeError,
        "np.reshape: argument #1 'shape' expected an int or a sequence of ints, got str",
    ),
    # AxisLike
    (
        lambda: mnp.sum(mnp.zeros(4), axis=1.5),
        TypeError,
        "np.sum: argument #1 'axis' expected None, an int or a sequence of ints, got float",
    ),
    (
        lambda: mnp.transpose(mnp.zeros((2, 2)), (0, "1")),
        TypeError,
        "np.transpose: argument #1 'axes' element 1 expected an int, got str",
    ),
    # DTypeLike
    (
        lambda: mnp.zeros(2, dtype=[1]),
        TypeError,
        "np.zeros: argument #1 'dtype' expected a data type (a str, a DataType or None), "
        "got mxffi.Array",
    ),
    (
        lambda: mnp.sum(mnp.zeros(2), dtype=3),
        TypeError,
        "np.sum: argument #2 'dtype' expected a data type (a str, a DataType or None), got int",
    ),
    # DeviceLike
    (
        lambda: mnp.zeros(2, device=1.5),
        TypeError,
        "np.zeros: argument #2 'device' expected a device (a str, a Device, a (device_type, "
        "device_id) pair or None), got float",
    ),
    (
        lambda: mnp.ones(2, device="tpu:0"),
        ValueError,
        "np.ones: argument #2 'device': unknown device 'tpu:0'; expected 'cpu', 'cpu:0', 'cuda' or "
        "'cuda:1'",
    ),
    (
        lambda: mnp.arange(3, device=(1, 0, 0)),
        ValueError,
        "np.arange: argument #4 'device': a device pair must be (device_type, device_id) as DLPack "
        "gives it, e.g. (1, 0); got a sequence of 3",
    ),
    (
        lambda: mnp.array([1.0], device=(10, 0)),
        NotImplementedError,
        "np.array: argument #3 'device': device type 10 is not supported; only the CPU (1) and "
        "CUDA (2) are",
    ),
    # ScalarLike
    (
        lambda: mnp.arange("x"),
        TypeError,
        "np.arange: argument #0 'start' expected a number, got str",
    ),
    (
        lambda: mnp.full(2, "x"),
        TypeError,
        "np.full: argument #1 'fill_value' expected an array, a number or a nested sequence of "
        "numbers and arrays, got str",
    ),
    (
        lambda: mnp.arange(0, None, "x"),
        TypeError,
        "np.arange: argument #2 'step' expected None or a number, got str",
    ),
    # NDArrayLike
    (
        lambda: mnp.copy([1, 2]),
        TypeError,
        "np.copy: argument #0 'a' expected an ndarray, got mxffi.Array",
    ),
    (
        lambda: sparse.relu(None),
        TypeError,
        "sparse.relu: argument #0 'x' expected an ndarray, got None",
    ),
    # ArrayOrScalar
    (
        lambda: mnp.multiply(b"x", 2),
        TypeError,
        "np.multiply: argument #0 'x1' expected an ndarray or a number, got bytes",
    ),
    (
        lambda: mnp.matmul(mnp.zeros(2), "x"),
        TypeError,
        "np.matmul: argument #1 'b' expected an ndarray or a number, got str",
    ),
    # ArrayLike
    (
        lambda: mnp.asarray("abc"),
        TypeError,
        "np.asarray: argument #0 'a' expected an array, a number or a nested sequence of numbers "
        "and arrays, got str",
    ),
    (
        lambda: mnp.array([[1], [2, 3]]),
        ValueError,
        "np.array: argument #0 'object': setting an array element with a sequence. The requested "
        "array has an inhomogeneous shape; the first element has shape (2, 1)",
    ),
    (
        lambda: mnp.array([[1], ["2"]]),
        TypeError,
        "np.array: argument #0 'object': cannot make an array element from str; expected numbers, "
        "arrays and nested lists of them",
    ),
    # WritableArray (out=)
    (
        lambda: mnp.negative(mnp.zeros(2), out=np.zeros(2)),
        TypeError,
        "np.negative: argument #1 'out' expected a writable mxffi ndarray, got DLTensor* (a tensor "
        "lent for the call, such as a numpy array, is not written through)",
    ),
    (
        lambda: mnp.negative(mnp.zeros(2), out=[0, 0]),
        TypeError,
        "np.negative: argument #1 'out' expected None or a writable mxffi ndarray, got mxffi.Array",
    ),
    # StorageTypeLike
    (
        lambda: sparse.cast_storage(mnp.zeros((2, 2)), "dense"),
        ValueError,
        "sparse._cast_storage: argument #1 'stype': unknown storage type 'dense'; expected "
        "'default', 'csr', 'row_sparse' or 'coo'",
    ),
    (
        lambda: sparse.dot(mnp.zeros((2, 2)), mnp.zeros((2, 2)), forward_stype=0),
        TypeError,
        "sparse.dot: argument #4 'forward_stype' expected None or a storage type ('default', "
        "'csr', 'row_sparse' or 'coo'), got int",
    ),
    # TensordotAxes
    (
        lambda: mnp.tensordot(mnp.zeros((2, 2)), mnp.zeros((2, 2)), axes=1.0),
        TypeError,
        "np.tensordot: argument #2 'axes' expected an int or a pair of int sequences, got float",
    ),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_each_kind_names_the_function_and_the_argument(case):
    call, exc, text = CASES[case]
    raises(exc, text, call)


def test_dtype_name_errors_name_the_argument():
    # The text after the label is the dtype parser's own (numpy's words); the label is the kind's.
    with pytest.raises(TypeError) as e:
        mnp.zeros(2, dtype="floaty")
    first = str(e.value).splitlines()[0]
    assert first.startswith("np.zeros: argument #1 'dtype': ")
    assert "'floaty'" in first


def test_read_only_out_is_refused_before_anything_runs():
    ro = np.arange(3.0)
    ro.flags.writeable = False
    out = from_dlpack(ro)
    raises(
        ValueError,
        "np.add: argument #2 'out': the array is read-only; the function writes into it",
        mnp.add,
        mnp.ones(3),
        1.0,
        out=out,
    )
    np.testing.assert_array_equal(ro, [0.0, 1.0, 2.0])


def test_kinds_accept_what_they_document():
    assert mnp.zeros(3).shape == (3,)
    assert mnp.zeros([2, 3]).shape == (2, 3)
    assert mnp.zeros(mxffi.Shape((4, 1))).shape == (4, 1)
    assert mnp.zeros((True, 2)).shape == (1, 2)
    assert mnp.zeros((), dtype="int32").dtype == "int32"
    assert mnp.zeros(2, dtype=mxffi.DataType("int8")).dtype == "int8"
    assert mnp.zeros(2, dtype=np.float32).dtype == "float32"
    for device in (None, "cpu", "cpu:0", (1, 0), mxffi.Device("cpu", 0)):
        assert mnp.ones(2, device=device).device.device_type == 1
    assert mnp.full(2, True).dtype == "bool"
    assert mnp.full(2, 3).dtype == "int64"
    assert mnp.full(2, 3.0).dtype == "float64"
    assert mnp.sum(mnp.ones((2, 3)), axis=(0, 1)).shape == ()
    assert mnp.sum(mnp.ones((2, 3)), axis=[1]).shape == (2,)
    assert mnp.transpose(mnp.ones((2, 3)), [1, 0]).shape == (3, 2)
    assert mnp.reshape(mnp.ones(6), (-1, 2)).shape == (3, 2)
    assert mnp.add(np.ones(2), 1).dtype == "float64"
    assert mnp.array([[1, 2], [3, 4]]).dtype == "int64"
    assert mnp.array([True, 2.5]).dtype == "float64"
    assert mnp.array([]).dtype == "float64"
    assert mnp.array(7).shape == ()
    # dtype None where numpy reads it as float64
    assert mnp.astype(mnp.arange(3), None).dtype == "float64"


def test_function_info_reports_the_kinds():
    info = mxffi.get_global_func("registry.function_info")("np.zeros")
    assert list(info["arg_types"]) == ["ShapeLike", "DTypeLike", "DeviceLike"]
    assert info["return_type"] == "mxffi.NDArray"


def test_signature_of_zeros():
    sig = inspect.signature(mnp.zeros)
    assert str(sig) == (
        "(shape: ShapeLike, dtype: DTypeLike = None, device: DeviceLike = None) -> mxffi.NDArray"
    )
    assert sig.parameters["shape"].annotation is mt.ShapeLike
    assert sig.parameters["dtype"].annotation is mt.DTypeLike
    assert sig.return_annotation is NDArray
    assert repr(mt.ShapeLike) == "ShapeLike"
    assert mxffi.Shape in typing.get_args(mt.ShapeLike.__value__)
    assert "none negative" in mt.ShapeLike.__doc__


def test_annotations_of_plain_and_optional_types():
    sig = inspect.signature(mnp.arange)
    assert sig.parameters["stop"].annotation.__name__ == "Optional[ScalarLike]"
    assert sig.parameters["stop"].annotation.__value__ == bool | int | float | None
    assert str(inspect.signature(sparse.slice)).startswith(
        "(data: NDArrayLike, begin: int | None = None, end: int | None = None)"
    )
    sig = inspect.signature(mnp.quadratic)
    assert sig.parameters["a"].annotation is float
    assert inspect.signature(mnp.astype).parameters["copy"].annotation is bool
    assert inspect.signature(mnp.array).parameters["copy"].annotation == bool | None
    assert mt.annotation("Array[int]") is mxffi.Array
    assert mt.annotation("Map[str, Any]") is mxffi.Map
    assert mt.annotation("Optional[int]") == int | None
    assert mt.annotation("Union[mxffi.NDArray, mxffi.ADT]") == mxffi.NDArray | mxffi.ADT
    assert inspect.signature(mnp.where).return_annotation == mxffi.NDArray | mxffi.ADT
    assert mt.annotation("uint8") is int
    # A name nothing knows (a library's own kind) stays the string C++ gave.
    assert mt.annotation("MyLibKind") == "MyLibKind"
    assert mt.annotation("Optional[MyLibKind]") == "Optional[MyLibKind]"
    assert mt.annotation("Union[int, MyLibKind]") == "Union[int, MyLibKind]"


def _annotation_problem(ann):
    """Why an annotation is not a real type: it is Any, a bare string, or missing."""
    if ann is inspect.Parameter.empty:
        return "no annotation"
    if ann is typing.Any:
        return "Any"
    if isinstance(ann, str):
        return f"the string {ann!r}"
    return None


# np.result_type is variadic (any number of arrays, data types and numbers): a packed body, so
# its signature is (*args) and its result untyped. Every other np.* function has real types.
UNTYPED_NP = {"np.result_type"}


def test_every_np_function_has_real_types():
    names = [n for n in mxffi.list_global_func_names() if n.startswith("np.")]
    assert len(names) >= 36
    problems = []
    for name in names:
        if name in UNTYPED_NP:
            assert mxffi.get_global_func("registry.function_info")(name)["num_args"] == -1
            continue
        *area, short = name[len("np.") :].split(".")  # np.linalg.inv: mnp.linalg's inv
        module = mnp
        for part in area:
            module = getattr(module, part)
        fn = getattr(module, short)
        sig = inspect.signature(fn)
        for p in sig.parameters.values():
            why = _annotation_problem(p.annotation)
            if why:
                problems.append(f"{name}({p.name}): {why}")
        why = _annotation_problem(sig.return_annotation)
        if why:
            problems.append(f"{name} -> {why}")
    assert problems == []


# sparse.add_n is variadic (any number of arrays): a packed body, so its signature is (*args)
# and its result untyped. Every other sparse.* function has real types.
UNTYPED_SPARSE = {"sparse.add_n"}


def test_every_sparse_function_has_real_types():
    names = [n for n in mxffi.list_global_func_names() if n.startswith("sparse.")]
    problems = []
    for name in names:
        info = mxffi.get_global_func("registry.function_info")(name)
        if name in UNTYPED_SPARSE:
            assert info["num_args"] == -1
            continue
        sig, _ = mxffi.registry.signature_of(name)
        for p in sig.parameters.values():
            why = _annotation_problem(p.annotation)
            if why:
                problems.append(f"{name}({p.name}): {why}")
        if _annotation_problem(sig.return_annotation):
            problems.append(f"{name} -> {sig.return_annotation}")
    assert problems == []


def test_help_shows_the_kinds():
    text = re.sub(r"\s+", " ", mnp.zeros.__doc__)
    assert "shape: ShapeLike dtype: DTypeLike device: DeviceLike" in text
