"""Arrays passed to C++ as borrowed DLTensors: numpy arrays and views, the DLPack protocol, the
buffer protocol; dtypes checked by C++; no copy on the way in."""

import array
import json

import numpy as np
import pytest
from conftest import run_python

import mxffi.testing as t

# ---------------------------------------------------------------------------------------------
# numpy arrays and views


def test_contiguous_array_first_element():
    assert t.tensor_first_f64(np.arange(12.0).reshape(3, 4)) == 0.0
    assert t.tensor_first_f64(np.full((2, 2), 7.25)) == 7.25


def test_zero_dim_array():
    assert t.tensor_first_f64(np.array(3.5)) == 3.5


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        (lambda a: a[1:], 4.0),
        (lambda a: a[1:, 2:], 6.0),
        (lambda a: a[::-1], 8.0),
        (lambda a: a[:, ::2][1:], 4.0),
        (lambda a: a[:, 3], 3.0),
        (lambda a: a.T, 0.0),
        (lambda a: a.T[2:], 2.0),
        (lambda a: a[::2, ::-1], 3.0),
        (lambda a: a.reshape(2, 2, 3)[1], 6.0),
    ],
    ids=["rows", "block", "reversed", "strided", "column", "T", "T-sliced", "neg-stride", "3d"],
)
def test_views_give_the_right_first_element(view, expected):
    a = np.arange(12.0).reshape(3, 4)
    v = view(a)
    assert v[(0,) * v.ndim] == expected  # the oracle
    assert t.tensor_first_f64(v) == expected


def test_in_place_change_is_seen_by_the_next_call():
    a = np.arange(4.0)
    assert t.tensor_first_f64(a) == 0.0
    a[0] = -3.5
    assert t.tensor_first_f64(a) == -3.5
    a[:] = 9.0
    assert t.tensor_first_f64(a[2:]) == 9.0


def test_change_made_by_a_callback_is_seen_by_cpp():
    a = np.zeros(4)

    def poke(value):
        a[0] = value
        return 0

    t.apply(poke, 42.0)
    assert t.tensor_first_f64(a) == 42.0


@pytest.mark.parametrize(
    ("dtype", "code", "bits"),
    [
        (np.float32, 2, 32),
        (np.float16, 2, 16),
        (np.int64, 0, 64),
        (np.int8, 0, 8),
        (np.uint16, 1, 16),
        (np.complex128, 5, 128),
        (np.bool_, 6, 8),
    ],
    ids=lambda v: getattr(v, "__name__", str(v)),
)
def test_wrong_dtype_gets_clear_type_error_from_cpp(dtype, code, bits):
    with pytest.raises(TypeError) as info:
        t.tensor_first_f64(np.zeros(3, dtype=dtype))
    assert str(info.value) == (
        f"testing.tensor_first_f64: expected float64, got code {code} bits {bits}"
    )


def test_wrong_dtype_view_gets_type_error():
    with pytest.raises(TypeError, match="expected float64, got code 2 bits 32"):
        t.tensor_first_f64(np.zeros((4, 4), dtype=np.float32)[:, 1])


def test_array_cannot_be_returned_from_cpp():
    with pytest.raises(TypeError) as info:
        t.echo(np.arange(3.0))
    assert str(info.value) == (
        "testing.echo: returned a borrowed DLTensor*, which cannot outlive the call"
    )


def test_array_cannot_be_passed_to_a_callback():
    with pytest.raises(TypeError) as info:
        t.apply(lambda x: x, np.arange(3.0))
    assert str(info.value) == "mxffi: a DLTensor* argument cannot be passed to a Python callback"


def test_array_cannot_be_returned_from_a_callback():
    with pytest.raises(TypeError) as info:
        t.apply(lambda: np.arange(3.0))
    assert str(info.value) == (
        "mxffi: a callback cannot return an array (ndarray) as a borrowed tensor"
    )


# ---------------------------------------------------------------------------------------------
# numpy arrays off the fast path (run in a child: a crash must not take the suite down)

_OFF_FAST_PATH = """
import json, sys
import numpy as np
import mxffi.testing as t
a = eval(sys.argv[1])
try:
    print(json.dumps(["ok", t.tensor_first_f64(a)]))
except Exception as exc:
    print(json.dumps(["error", [c.__name__ for c in type(exc).__mro__], str(exc)]))
"""


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("np.arange(1.0, 3.0).reshape((1,) * 6 + (2,))", 1.0),  # 7 dims: more than 6
        ("np.arange(2.0, 4.0).reshape((1,) * 9 + (2,))", 2.0),
    ],
    ids=["7-dims", "10-dims"],
)
def test_array_with_many_dims_is_passed(expr, expected):
    proc = run_python(_OFF_FAST_PATH, args=[expr])
    assert proc.returncode == 0, f"child died with {proc.returncode}: {proc.stderr[-2000:]}"
    assert json.loads(proc.stdout) == ["ok", expected]


@pytest.mark.parametrize(
    "expr",
    [
        "np.arange(3.0).astype('>f8')",
        "np.array(['a', 'b'], dtype=object)",
        "np.zeros(3, dtype='M8[s]')",
        "np.lib.stride_tricks.as_strided(np.zeros(10), shape=(3,), strides=(12,))",
    ],
    ids=["big-endian", "object", "datetime", "unaligned-strides"],
)
def test_array_the_fast_path_declines_gives_a_python_outcome(expr):
    proc = run_python(_OFF_FAST_PATH, args=[expr])
    assert proc.returncode == 0, f"child died with {proc.returncode}: {proc.stderr[-2000:]}"
    status, *rest = json.loads(proc.stdout)
    if status == "ok":
        assert rest == [0.0]
    else:
        mro, message = rest
        assert {"TypeError", "ValueError", "BufferError"} & set(mro), (mro, message)
        assert message


# ---------------------------------------------------------------------------------------------
# DLPack and the buffer protocol


class DLPackOnly:
    """Exposes nothing but the DLPack protocol, over a numpy array."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class LegacyDLPack:
    """An older producer: __dlpack__ takes only stream and returns an unversioned capsule."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, stream=None):
        return self._array.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


@pytest.mark.parametrize("wrapper", [DLPackOnly, LegacyDLPack])
def test_object_with_only_dlpack_is_passed(wrapper):
    a = np.arange(12.0).reshape(3, 4) + 5
    assert t.tensor_first_f64(wrapper(a)) == 5.0
    assert t.tensor_first_f64(wrapper(a[1:, 1:])) == 10.0


def test_dlpack_object_sees_in_place_change():
    a = np.zeros(3)
    wrapped = DLPackOnly(a)
    a[0] = 11.0
    assert t.tensor_first_f64(wrapped) == 11.0


def test_dlpack_object_with_wrong_dtype_gets_type_error():
    with pytest.raises(TypeError, match="expected float64, got code 2 bits 32"):
        t.tensor_first_f64(DLPackOnly(np.zeros(3, dtype=np.float32)))


def test_dlpack_returning_no_capsule_gets_type_error_naming_argument():
    class Liar:
        def __dlpack__(self, **kwargs):
            return "not a capsule"

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(TypeError) as info:
        t.tensor_first_f64(Liar())
    message = str(info.value)
    assert message.startswith("testing.tensor_first_f64: argument #0 'x': __dlpack__() of Liar")
    assert "not a DLPack capsule" in message


def test_array_module_array_via_buffer_protocol():
    assert t.tensor_first_f64(array.array("d", [4.5, 1.0])) == 4.5


def test_memoryview_via_buffer_protocol():
    buf = array.array("d", [6.5, 1.0, 2.0])
    assert t.tensor_first_f64(memoryview(buf)) == 6.5
    assert t.tensor_first_f64(memoryview(buf)[1:]) == 1.0
    assert t.tensor_first_f64(memoryview(np.arange(12.0))[3:]) == 3.0


def test_buffer_sees_in_place_change():
    buf = array.array("d", [0.0, 1.0])
    buf[0] = 8.5
    assert t.tensor_first_f64(buf) == 8.5


def test_buffer_of_wrong_dtype_gets_type_error_from_cpp():
    with pytest.raises(TypeError, match="expected float64, got code 2 bits 32"):
        t.tensor_first_f64(array.array("f", [1.0]))
    with pytest.raises(TypeError, match="expected float64, got code 0 bits 32"):
        t.tensor_first_f64(array.array("i", [1]))


def test_buffer_with_unsupported_format_gets_type_error_naming_argument():
    chars = array.array("u", "ab")
    fmt = memoryview(chars).format  # 'w' or 'u', by Python version
    with pytest.raises(TypeError) as info:
        t.tensor_first_f64(chars)
    assert str(info.value) == (
        f"testing.tensor_first_f64: argument #0 'x': buffer format '{fmt}' has no DLPack data type"
    )


# ---------------------------------------------------------------------------------------------
# No copy

_NO_COPY = """
import array, json, resource
import numpy as np
import mxffi.testing as t

class DLPackOnly:
    def __init__(self, a):
        self.a = a
    def __dlpack__(self, **kw):
        return self.a.__dlpack__(**kw)
    def __dlpack_device__(self):
        return self.a.__dlpack_device__()

n = 32 * 1024 * 1024  # 256 MB of float64, every page touched
a = np.ones(n)
a[0] = 2.0
views = {
    "contiguous": a,
    "strided": a[::2],
    "reversed": a[::-1],
    "dlpack": DLPackOnly(a),
    "buffer": memoryview(a),
}
out = {}
for name, v in views.items():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    first = [t.tensor_first_f64(v) for _ in range(3)]
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out[name] = [first[0], (after - before) // 1024]  # ru_maxrss is in KiB
print(json.dumps(out))
"""


def test_arrays_are_not_copied():
    # A copy of the 256 MB array would raise the peak resident size by about 256 MB (128 MB
    # for the strided view); passing a pointer raises it by nothing.
    proc = run_python(_NO_COPY, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    expected_first = {
        "contiguous": 2.0,
        "strided": 2.0,
        "reversed": 1.0,
        "dlpack": 2.0,
        "buffer": 2.0,
    }
    for name, (first, grew_mb) in out.items():
        assert first == expected_first[name], name
        assert grew_mb < 32, f"{name}: peak RSS grew by {grew_mb} MB"


def test_tensor_first_of_an_empty_tensor_is_refused():
    # It used to read the element past the end of an empty buffer.
    with pytest.raises(ValueError, match=r"the tensor is empty; got shape \(2, 0\)"):
        t.tensor_first_f64(np.zeros((2, 0)))
    with pytest.raises(ValueError, match=r"got shape \(0,\)"):
        t.tensor_first_f64(np.zeros(0))


def test_refused_dlpack_export_names_the_mxffi_function_and_dtype():
    import mxffi

    with pytest.raises(
        BufferError,
        match=r"^mxffi\.from_dlpack: cannot take a ndarray of dtype "
        r"object as a tensor: ",
    ):
        mxffi.ndarray.from_dlpack(np.array([object()]))
    with pytest.raises(
        BufferError,
        match=r"^testing\.tensor_first_f64: argument #0 'x': cannot "
        r"take a ndarray of dtype <U1",
    ):
        t.tensor_first_f64(np.array(["a"]))


def test_multi_lane_array_refuses_dlpack_export_without_system_error():
    # numpy.from_dlpack refused such a capsule after taking it and freed it with its error still
    # pending, which surfaced as a SystemError.
    import mxffi.np as mnp

    x = mnp.zeros((2,), dtype="int8x4")
    for convert in (lambda: x.asnumpy(), lambda: np.from_dlpack(x)):
        with pytest.raises(BufferError, match=r"dtype int8x4 has 4 lanes"):
            convert()


def test_item_len_and_bool_name_the_array_shape():
    import mxffi.np as mnp

    a = mnp.ones((2, 3))
    with pytest.raises(
        ValueError, match=r"^mxffi\.NDArray\.item: .* got shape \(2, 3\) \(size 6\)$"
    ):
        a.item()
    with pytest.raises(ValueError, match=r"array of shape \(2, 3\) \(size 6\) is ambiguous"):
        bool(a)
    with pytest.raises(TypeError, match=r"^mxffi\.NDArray: len\(\) of unsized object"):
        len(mnp.zeros(()))


def _thp_mode():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return f.read().split("[", 1)[1].split("]", 1)[0]
    except (OSError, IndexError):
        return "unavailable"


@pytest.mark.skipif(
    _thp_mode() not in ("always", "madvise"), reason="transparent huge pages are off here"
)
def test_large_arrays_ask_for_huge_pages():
    """A fresh array of 4 MiB or more is advised to transparent huge pages (as numpy's are), so
    filling it maps 2 MiB per page fault; small ones are left alone."""
    proc = run_python(
        """
        import mxffi.np as mnp

        def huge_kib():
            with open("/proc/self/smaps_rollup") as f:
                for line in f:
                    if line.startswith("AnonHugePages:"):
                        return int(line.split()[1])

        before = huge_kib()
        big = mnp.ones((8, 1024, 1024))  # 64 MiB, written by the fill
        print(huge_kib() - before)
        """
    )
    assert proc.returncode == 0, proc.stderr
    # Most of it: the unaligned ends, and pages the kernel could not find whole, stay small.
    assert int(proc.stdout) >= 32 * 1024, proc.stdout
