"""Parameter kinds of registered functions: positional-only (`/`), keyword-only (`*`) and
variadic (`*name`) arguments, as inspect.signature shows them and as calls bind them, on both
cores; and np.meshgrid, the first np function with a variadic argument."""

import inspect

import numpy
import pytest
from conftest import run_python

import mxffi
import mxffi.np as mnp
import mxffi.testing as t

P = inspect.Parameter


def test_signature_shows_the_kinds():
    sig = inspect.signature(t.kinds)
    assert [(p.name, p.kind) for p in sig.parameters.values()] == [
        ("a", P.POSITIONAL_ONLY),
        ("b", P.POSITIONAL_OR_KEYWORD),
        ("c", P.KEYWORD_ONLY),
        ("d", P.KEYWORD_ONLY),
    ]
    assert str(sig).startswith("(a: int, /, b: int = 2, *, c: int = 3, d: int = 4)")
    sig = inspect.signature(t.gather)
    assert [(p.name, p.kind) for p in sig.parameters.values()] == [
        ("first", P.POSITIONAL_OR_KEYWORD),
        ("rest", P.VAR_POSITIONAL),
        ("scale", P.KEYWORD_ONLY),
    ]
    assert inspect.signature(mnp.meshgrid).parameters["arrays"].kind == P.VAR_POSITIONAL
    assert inspect.signature(mnp.meshgrid).return_annotation == list[mxffi.NDArray]


def test_function_info_reports_the_kinds():
    info = mxffi.get_global_func("registry.function_info")
    k = info("testing.kinds")
    assert (k["positional_only"], k["keyword_only"], k["variadic"]) == (1, 2, -1)
    g = info("testing.gather")
    assert (g["positional_only"], g["keyword_only"], g["variadic"]) == (0, 2, 1)
    a = info("testing.add")  # no kinds: every argument positional-or-keyword
    assert (a["positional_only"], a["keyword_only"], a["variadic"]) == (0, 2, -1)
    assert not a["returns_list"] and info("np.meshgrid")["returns_list"]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((1,), {}),
        ((1, 5), {}),
        ((1,), {"b": 5}),
        ((1,), {"d": 7}),
        ((1, 5), {"c": 6, "d": 7}),
        ((1,), {"c": 6}),
    ],
)
def test_kinds_bind_as_a_def_would(args, kwargs):
    def model(a, /, b=2, *, c=3, d=4):
        return [a, b, c, d]

    assert list(t.kinds(*args, **kwargs)) == model(*args, **kwargs)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: t.kinds(a=1),
            "testing.kinds: argument 'a' is positional-only; pass it by position, not as a keyword",
        ),
        (
            lambda: t.kinds(1, 2, 3),
            "testing.kinds: takes 2 positional arguments (a, b) but 3 "
            "were given; c, d are keyword-only",
        ),
        (
            lambda: t.kinds(1, 2, 3, 4),
            "testing.kinds: takes 2 positional arguments (a, b) but 4 "
            "were given; c, d are keyword-only",
        ),
        (
            lambda: t.kinds(1, e=2),
            "testing.kinds: unexpected keyword argument 'e'; the arguments are (a, b, c, d)",
        ),
        (lambda: t.kinds(), "testing.kinds: expected 1 to 4 arguments, got 0"),
        (
            lambda: t.gather(rest=1),
            "testing.gather: unexpected keyword argument 'rest'; the "
            "arguments are (first, *rest, scale)",
        ),
        (lambda: t.gather(), "testing.gather: missing required argument 'first'"),
    ],
)
def test_kind_errors_name_the_function(call, message):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value).splitlines()[0] == message


def test_variadic_gathers_the_positional_arguments():
    first, rest, scale = t.gather(1)
    assert (first, list(rest), scale) == (1, [], 1)
    first, rest, scale = t.gather(1, "x", 2.5, None, scale=3)
    assert (first, list(rest), scale) == (1, ["x", 2.5, None], 3)
    first, rest, scale = t.gather(first=4, scale=2)
    assert (first, list(rest), scale) == (4, [], 2)
    # many arguments, more than a keyword call's slots, all gathered
    first, rest, scale = t.gather(*range(40))
    assert list(rest) == list(range(1, 40))
    # through tp_call (functools.partial calls it with PyObject_Call)
    import functools

    first, rest, scale = functools.partial(t.gather, 1, 2)(3, scale=5)
    assert (first, list(rest), scale) == (1, [2, 3], 5)


def test_plain_positional_calls_of_a_keyword_only_function_stay_fast_and_right():
    # within the positional limit the call takes the positional path: same values each time
    for _ in range(3):
        assert list(t.kinds(9, 8)) == [9, 8, 3, 4]


def test_kinds_on_the_ctypes_core():
    proc = run_python(
        """
        import mxffi, mxffi.testing as t
        assert list(t.kinds(1, 5, c=6)) == [1, 5, 6, 4]
        first, rest, scale = t.gather(1, 2, 3, scale=4)
        assert (first, list(rest), scale) == (1, [2, 3], 4)
        for call in (lambda: t.kinds(a=1), lambda: t.kinds(1, 2, 3)):
            try:
                call()
            except TypeError as e:
                print(str(e).splitlines()[0])
        """,
        env={"MXFFI_FFI": "ctypes"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "testing.kinds: argument 'a' is positional-only; pass it by position, not as a keyword",
        "testing.kinds: takes 2 positional arguments (a, b) but 3 were given; c, d are "
        "keyword-only",
    ]


# ---------------------------------------------------------------------------------------------
# np.meshgrid


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize(
    "shapes", [(), ((3,),), ((3,), (4,)), ((2,), (0,), (3,)), ((2, 3), (1,)), ((), (2,))]
)
def test_meshgrid_matches_numpy(shapes, indexing):
    dtypes = ["int64", "float32", "bool", "uint8"]
    inputs = [
        (numpy.arange(int(numpy.prod(s))).reshape(s) % 3).astype(dtypes[i % 4])
        for i, s in enumerate(shapes)
    ]
    got = mnp.meshgrid(*[mnp.asarray(x) for x in inputs], indexing=indexing)
    want = numpy.meshgrid(*inputs, indexing=indexing)
    assert type(got) is list and len(got) == len(want)  # the standard's (2024.12) list
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        numpy.testing.assert_array_equal(g.numpy(), w)


def test_meshgrid_takes_numpy_and_strided_arrays_and_copies():
    x = numpy.arange(6.0)[::2]
    y = mnp.arange(4)[::-1]
    gx, gy = mnp.meshgrid(x, y)
    wx, wy = numpy.meshgrid(x, numpy.arange(4)[::-1])
    numpy.testing.assert_array_equal(gx.numpy(), wx)
    numpy.testing.assert_array_equal(gy.numpy(), wy)
    x[0] = 100.0  # the results own their memory, as numpy's copy=True results do
    assert gx.numpy()[0, 0] == 0.0
    assert not mnp.shares_memory(gy, y)


def test_meshgrid_bad_input():
    with pytest.raises(TypeError) as e:
        mnp.meshgrid(mnp.arange(2), "ij")
    assert str(e.value).splitlines()[0] == (
        "np.meshgrid: argument #0 'arrays' expected Array[mxffi.NDArray], got mxffi.Array of "
        "mxffi.NDArray, str"
    )
    with pytest.raises(ValueError, match=r"^np.meshgrid: indexing must be 'xy' or 'ij', got 'k'"):
        mnp.meshgrid(mnp.arange(2), indexing="k")
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'arrays'"):
        mnp.meshgrid(arrays=[mnp.arange(2)])
    with pytest.raises(ValueError, match=r"^np.meshgrid: 33 arrays make 33-d results"):
        mnp.meshgrid(*[mnp.arange(1)] * 33)


def test_a_lent_array_in_a_list_becomes_a_copy_the_list_owns():
    # A numpy array inside a list argument is lent for the call only; an Array made of it
    # holds a copy, never a pointer to the lent tensor.
    n = numpy.arange(3.0)
    a = mxffi.Array([n, n[::-1]])
    n[0] = 7.0
    assert isinstance(a[0], mxffi.NDArray)
    numpy.testing.assert_array_equal(a[0].numpy(), [0.0, 1.0, 2.0])
    numpy.testing.assert_array_equal(a[1].numpy(), [2.0, 1.0, 0.0])
