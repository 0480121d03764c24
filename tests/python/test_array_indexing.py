"""mxffi.NDArray indexing against numpy: generated keys of every kind on generated shapes
(0-size and 0-d included), getitem and setitem, views sharing memory, and numpy's errors."""

import re

import numpy as np
import pytest
from conftest import DTYPES, np_dtype
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mxffi.np as mnp

# Fixed and repeatable: the same cases on every run (CI included).
CASES = settings(
    max_examples=2000,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

shapes = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


def _slice(n):
    bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
    step = st.one_of(st.none(), st.integers(-3, 3).filter(lambda s: s != 0))
    return st.builds(slice, bound, bound, step)


@st.composite
def basic_keys(draw, shape):
    """A basic key for shape: ints in range, slices of any step, None and at most one Ellipsis,
    as a tuple or a single item."""
    ndim = len(shape)
    k = draw(st.integers(0, ndim))
    ellipsis = draw(st.booleans())
    split = draw(st.integers(0, k)) if ellipsis else k
    dims = list(range(split)) + list(range(ndim - (k - split), ndim))

    def item(d):
        if shape[d] > 0 and draw(st.booleans()):
            return draw(st.integers(-shape[d], shape[d] - 1))
        return draw(_slice(shape[d]))

    items = [item(d) for d in dims[:split]]
    if ellipsis:
        items.append(Ellipsis)
    items += [item(d) for d in dims[split:]]
    for _ in range(draw(st.integers(0, 2))):
        items.insert(draw(st.integers(0, len(items))), None)
    if len(items) == 1 and draw(st.booleans()):
        return items[0]
    return tuple(items)


def _pair(shape, dtype="float64"):
    x = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return x, mnp.array(x)


def _same(got, want):
    got = np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


@CASES
@given(st.data())
def test_basic_getitem_matches_numpy_and_shares_memory(data):
    shape = data.draw(shapes)
    key = data.draw(basic_keys(shape))
    x, a = _pair(shape)
    want = x[key]
    got = a[key]
    _same(got, want)
    if got.size:
        # A view: writing through it changes the array.
        got[...] = -1
        view = x.copy()
        view[key] = -1
        _same(a, view)


@CASES
@given(st.data())
def test_basic_setitem_matches_numpy(data):
    shape = data.draw(shapes)
    key = data.draw(basic_keys(shape))
    x, a = _pair(shape)
    target = x[key].shape
    value_kind = data.draw(st.sampled_from(["scalar", "array", "broadcast", "list"]))
    if value_kind == "scalar":
        value = data.draw(st.sampled_from([7, -2.5, True]))
    elif value_kind == "array":
        value = np.full(target, 3.25)
    elif value_kind == "broadcast" and target:
        value = np.arange(target[-1], dtype=np.float32) + 0.5
    elif value_kind == "list":
        value = (np.arange(int(np.prod(target))).reshape(target) * 2).tolist()
    else:
        value = 1.5
    try:
        x[key] = value
    except (ValueError, TypeError) as e:
        # numpy refuses some of these (a [] list into a (0, 1) target): so must mxffi.
        with pytest.raises(type(e)):
            a[key] = value
        return
    a[key] = mnp.array(value) if value_kind == "array" else value
    _same(a, x)


def test_views_are_views():
    x, a = _pair((3, 4))
    for key in (1, slice(1, 3), (Ellipsis, None), (slice(None, None, -1), slice(None, None, 2))):
        v = a[key]
        assert v.base is not None
        assert np.shares_memory(np.asarray(v), np.asarray(a))
    # The base is the array owning the memory (numpy's rule): a's, or a itself.
    owner = a.base if a.base is not None else a
    assert a[1].base.same_as(owner) and a[1][2:].base.same_as(owner)
    col = a[:, 1]
    assert col.strides == (32,) and col.shape == (3,)
    rev = a[::-1]
    assert rev.strides == (-32, 8)
    np.testing.assert_array_equal(np.asarray(rev), x[::-1])


@pytest.mark.parametrize(
    ("key", "cls", "text"),
    [
        (3, IndexError, "index 3 is out of bounds for axis 0 with size 3"),
        (-4, IndexError, "index -4 is out of bounds for axis 0 with size 3"),
        ((0, 4), IndexError, "index 4 is out of bounds for axis 1 with size 4"),
        ((0, 0, 0), IndexError, "too many indices for array: array is 2-dimensional, but 3"),
        ((Ellipsis, Ellipsis), IndexError, "an index can only have a single ellipsis"),
        (slice(None, None, 0), ValueError, "slice step cannot be zero"),
        ("a", IndexError, "only integers, slices"),
        (1.5, IndexError, "only integers, slices"),
        (2**70, IndexError, "cannot fit 'int' into an index-sized integer"),
    ],
)
def test_bad_keys_raise_numpy_errors(key, cls, text):
    x, a = _pair((3, 4))
    with pytest.raises(cls) as np_err:
        x[key]
    with pytest.raises(cls, match=text.replace("(", r"\(").replace(")", r"\)")):
        a[key]
    assert np_err.type is cls
    with pytest.raises(cls):
        a[key] = 1


def test_zero_d_and_zero_size():
    x, a = _pair(())
    _same(a[()], x[()])
    _same(a[...], x[...])
    _same(a[None], x[None])
    with pytest.raises(IndexError, match="too many indices"):
        a[0]
    x, a = _pair((0, 3))
    _same(a[:, 1], x[:, 1])
    _same(a[::-1], x[::-1])
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 0 with size 0"):
        a[0]


def test_setitem_casts_as_numpy_assignment():
    a = mnp.zeros((3,), dtype="int8")
    a[0] = 2.9
    a[1:] = np.array([1.5, -1.5])
    np.testing.assert_array_equal(np.asarray(a), np.array([2, 1, -1], dtype=np.int8))
    with pytest.raises(OverflowError, match="300"):
        a[0] = 300
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(2,\)"):
        a[:] = np.array([1, 2])


def test_setitem_with_overlapping_value():
    x = np.arange(8.0)
    a = mnp.array(x)
    a[1:] = a[:-1]
    x[1:] = x[:-1].copy()
    _same(a, x)
    a[::-1] = a
    x[::-1] = x.copy()
    _same(a, x)


def test_read_only_arrays_refuse_writes():
    x = np.arange(6.0).reshape(2, 3)
    x.flags.writeable = False
    a = mnp.from_dlpack(x)
    assert a.read_only and not a.flags.writeable
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        a[0] = 1
    with pytest.raises(ValueError, match="read-only"):
        a += 1
    with pytest.raises(ValueError, match="read-only"):
        mnp.add(a, 1, out=a)
    assert a[0].read_only  # views of a read-only array are read-only
    np.testing.assert_array_equal(x, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    "value", [0, 1, -1, 7, 127, 128, 255, 256, -129, 2**40, 1.75, -2.5, 1e300, True, False]
)
def test_scalar_assignment_casts_as_numpy(dtype, value):
    if isinstance(value, float) and value < 0 and dtype.startswith("uint"):
        pytest.skip("a negative float into an unsigned type is undefined in C, and in numpy")
    if value == 1e300 and dtype not in ("float64", "bool"):
        pytest.skip("an out-of-range float into a narrower type is undefined in C")
    x = np.zeros((2, 3), dtype=np_dtype(dtype))
    a = mnp.zeros((2, 3), dtype=dtype)
    for key in ((1, 2), (0,), (slice(None), 1), (Ellipsis,)):
        try:
            with np.errstate(all="ignore"):
                x[key] = value
        except OverflowError:
            with pytest.raises(OverflowError, match="out of bounds"):
                a[key] = value
            continue
        a[key] = value
        got = np.asarray(a) if dtype != "bfloat16" else np.asarray(a.astype("float32"))
        want = x if dtype != "bfloat16" else x.astype(np.float32)
        np.testing.assert_array_equal(got, want)


@st.composite
def advanced_keys(draw, shape):
    """A key with at least one advanced index: integer arrays (one broadcastable index shape
    per key; lists, numpy or mxffi arrays; negative entries too), boolean masks over one or
    more axes, bools, mixed with ints, slices, None and an Ellipsis."""
    ndim = len(shape)
    k = draw(st.integers(0, ndim))
    ellipsis = draw(st.booleans())
    split = draw(st.integers(0, k)) if ellipsis else k
    dims = list(range(split)) + list(range(ndim - (k - split), ndim))
    index_shape = draw(st.sampled_from([(), (1,), (2,), (3,), (2, 1), (1, 3), (2, 3)]))
    form = draw(st.sampled_from(["list", "numpy", "mxffi"]))

    def int_array(n):
        b = draw(st.sampled_from([index_shape, index_shape[1:], (1,) * len(index_shape)]))
        values = draw(
            st.lists(st.integers(-n, n - 1), min_size=int(np.prod(b)), max_size=int(np.prod(b)))
        )
        arr = np.array(
            values,
            dtype=draw(st.sampled_from([np.int64, np.int32, np.uint8]))
            if min(values, default=0) >= 0
            else np.int64,
        ).reshape(b)
        if form == "list" and arr.ndim > 0:
            return arr.tolist()
        return mnp.array(arr) if form == "mxffi" else arr

    items = []
    i = 0
    dims_split = dims[:split], dims[split:]
    for part, group in enumerate(dims_split):
        j = 0
        while j < len(group):
            d = group[j]
            kind = draw(st.sampled_from(["int", "slice", "array", "array", "mask"]))
            if kind == "mask":
                span = draw(st.integers(1, len(group) - j))
                mshape = tuple(shape[g] for g in group[j : j + span])
                mask = np.array(
                    draw(
                        st.lists(
                            st.booleans(),
                            min_size=int(np.prod(mshape)),
                            max_size=int(np.prod(mshape)),
                        )
                    ),
                    dtype=bool,
                ).reshape(mshape)
                items.append(mnp.array(mask) if form == "mxffi" else mask)
                j += span
                continue
            if kind == "array" and shape[d] > 0:
                items.append(int_array(shape[d]))
            elif kind == "int" and shape[d] > 0:
                items.append(draw(st.integers(-shape[d], shape[d] - 1)))
            else:
                items.append(draw(_slice(shape[d])))
            j += 1
        if part == 0 and ellipsis:
            items.append(Ellipsis)
        i += 1
    for _ in range(draw(st.integers(0, 1))):
        items.insert(draw(st.integers(0, len(items))), draw(st.sampled_from([None, True, False])))
    if not any(isinstance(x, (list, np.ndarray, mnp.ndarray, bool)) for x in items):
        items.append(np.array(True))
    return tuple(items)


def _np_key(key):
    return tuple(np.asarray(k) if isinstance(k, mnp.ndarray) else k for k in key)


@CASES
@given(st.data())
def test_advanced_getitem_and_setitem_match_numpy(data):
    shape = data.draw(shapes)
    key = data.draw(advanced_keys(shape))
    x, a = _pair(shape)
    nkey = _np_key(key)
    try:
        want = x[nkey]
    except IndexError as e:
        with pytest.raises(IndexError):
            a[key]
        assert "mismatch" in str(e) or "out of bounds" in str(e) or "did not match" in str(e)
        return
    got = a[key]
    _same(got, want)
    assert not np.shares_memory(np.asarray(got), x) or want.size == 0
    # The same key writes: a number, then an array broadcast to the selection.
    x[nkey] = -3
    a[key] = -3
    _same(a, x)
    value = np.arange(want.shape[-1] if want.ndim else 1, dtype=np.float64) + 100
    if want.ndim == 0:
        value = value[0]
    x[nkey] = value
    a[key] = value
    _same(a, x)


@pytest.mark.parametrize("shape", [(5,), (4, 3), (2, 3, 4), (0, 3), (3, 0)])
@pytest.mark.parametrize("lead", [1, 2, 3])
@pytest.mark.parametrize("fill", ["random", "none", "all"])
def test_boolean_mask_over_leading_axes(shape, lead, fill):
    if lead > len(shape):
        pytest.skip("a mask of more axes than the array")
    x, a = _pair(shape, "float32")
    rng = np.random.default_rng(len(shape) * 10 + lead)
    mshape = shape[:lead]
    mask = {
        "random": rng.integers(0, 2, mshape).astype(bool),
        "none": np.zeros(mshape, dtype=bool),
        "all": np.ones(mshape, dtype=bool),
    }[fill]
    for m in (mask, mnp.array(mask)):  # numpy's mask, then mxffi's (one pass, no index arrays)
        _same(a[m], x[mask])
    _same(
        a.T[mask.T] if lead == len(shape) else a[mask],
        x.T[mask.T] if lead == len(shape) else x[mask],
    )


@pytest.mark.parametrize(
    "xshape,mshape",
    [((1,), (0,)), ((5,), (0,)), ((2, 3), (0, 0)), ((2, 3, 4), (0, 3)), ((2, 3, 4), (2, 0)),
     ((2, 3), (0, 5)), ((0, 3), (2, 3)), ((2, 3), (3, 0))],
)  # fmt: skip
def test_an_empty_mask_extent_stands_against_any_extent_as_numpys(xshape, mshape):
    # numpy accepts a boolean mask whose extent is 0 where the array's is not (it selects
    # nothing); any other mismatch is its IndexError, naming the axis.
    x = np.arange(np.prod(xshape), dtype=np.float64).reshape(xshape)
    mask = np.zeros(mshape, bool)
    try:
        want = x[mask]
    except IndexError as e:
        with pytest.raises(IndexError, match=f"^{re.escape(str(e))}"):
            mnp.asarray(x)[mask]
        m = mnp.asarray(x)
        with pytest.raises(IndexError, match=f"^{re.escape(str(e))}"):
            m[mnp.asarray(mask)] = 1.0
        return
    got = mnp.asarray(x)[mnp.asarray(mask)]
    assert got.shape == want.shape
    m = mnp.asarray(x)
    m[mnp.asarray(mask)] = -1.0  # selects nothing: nothing written
    np.testing.assert_array_equal(m.asnumpy(), x)
