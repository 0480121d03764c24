"""The vectorized CPU kernels (src/op/simd) against numpy: the instruction set chosen at run
time, and every vectorized path (unary and binary elementwise ops on contiguous float32 and
float64, sum/mean/max/min, the tiled copy of a transposed array) on sizes around the vector
widths (tails of every length), special values, and the layouts that must keep the general
loops (strided, broadcast, unaligned, other dtypes).

The instruction set is read once per process, so the other targets the CPU has (AVX2, SSE4,
the portable fallback) run this file again in a child with MXFFI_SIMD_TARGET capping the
choice (test_every_target_matches_numpy).
"""

import math
import os
import platform

import numpy as np
import pytest
from conftest import run_python, run_test_file

import mxffi
import mxffi.np as mnp

# Lengths around every vector width (4, 8, 16 lanes; 4 vectors per step; sum leaves of 8 x 8
# vectors) and one large enough to be split across threads.
SIZES = [0, 1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 255, 257, 1000, 4097]
CAP = os.environ.get("MXFFI_SIMD_TARGET", "")
# Split across threads either way; the runs under a capped target (children of
# test_every_target_matches_numpy) take the smaller one to keep the suite short.
LARGE = 100003 if CAP else 1000003
FLOATS = ["float32", "float64"]


def simd_target():
    return mxffi.get_global_func("runtime.simd_target")()


def ordered_bits(a):
    """Float bits as integers ordered like the floats: the ulp distance is a difference."""
    v = a.view({4: np.int32, 8: np.int64}[a.dtype.itemsize]).astype(np.int64)
    return np.where(v < 0, -(v & ((1 << (8 * a.dtype.itemsize - 1)) - 1)), v)


def ulp_distance(got, want):
    """Per-element ulps between two float arrays of one dtype (NaN must match NaN)."""
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan), (
        got[np.isnan(got) != nan],
        want[np.isnan(got) != nan],
    )
    return np.abs(ordered_bits(got[~nan]) - ordered_bits(want[~nan]))


def assert_same(got, want):
    """Bit-for-bit equal floats, NaN in the same places and -0.0 where numpy has it."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    np.testing.assert_array_equal(got[~nan], want[~nan])
    np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(want[~nan]))


def special(dtype):
    """Values at the edges of every kernel: zeros of both signs, infinities, NaN, subnormals,
    the largest and smallest finite values, and the overflow and underflow bounds of exp."""
    f = np.finfo(dtype)
    v = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.0, 0.5, 2.0, 1e-3]
    v += [float(f.tiny), float(f.smallest_subnormal), -float(f.smallest_subnormal)]
    v += [float(f.max), float(f.min), float(np.sqrt(f.max))]
    if dtype == "float32":
        v += [88.72, 88.7228, 88.73, 88.75, 88.8, 89.0, 100.0, 104.0, 110.0, 1e30]
        v += [-87.3, -87.4, -100.0, -103.2, -103.97, -104.0, -104.1, -110.0, -1e30]
    else:
        v += [709.7, 709.78, 709.79, 709.8, 709.9, 710.0, 800.0, 1000.0, 1e300]
        v += [-708.3, -708.5, -740.0, -745.1, -745.2, -746.0, -1000.0, -1100.0, -1e300]
    return np.array(v, dtype=dtype)


def operand(rng, n, dtype, kind="normal"):
    if kind == "normal":
        return (rng.standard_normal(n) * 3).astype(dtype)
    if kind == "exp":  # all of exp's range, overflow and underflow included
        lo, hi = (-110, 95) if dtype == "float32" else (-760, 715)
        return rng.uniform(lo, hi, n).astype(dtype)
    raise ValueError(kind)


# ---- the instruction set ----------------------------------------------------------------


def cpu_flags():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    return set()


# What Highway 1.0 requires of each x86 target (its targets.cc; every target also needs those
# below it), best first, as /proc/cpuinfo spells the flags.
TARGET_FLAGS = [
    ("AVX3", "avx512", {"avx512f", "avx512vl", "avx512dq", "avx512bw"}),
    ("AVX2", "avx2", {"avx", "avx2", "bmi1", "bmi2", "fma", "f16c", "abm"}),
    ("SSE4", "sse4", {"sse4_1", "sse4_2", "ssse3", "pclmulqdq", "aes"}),
]
CAP_ORDER = ["avx512", "avx2", "sse4", "scalar"]


def expected_target(cap=""):
    """The best target the CPU supports at or below cap (SCALAR: none of them)."""
    flags = cpu_flags()
    allowed = CAP_ORDER[CAP_ORDER.index(cap) :] if cap else CAP_ORDER
    for i, (name, key, _) in enumerate(TARGET_FLAGS):
        need = set().union(*(req for _, _, req in TARGET_FLAGS[i:]))
        if key in allowed and need <= flags:
            return name
    return "SCALAR"


x86_linux = pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64") or not os.path.exists("/proc/cpuinfo"),
    reason="the target table is x86's; the CPU's flags are read from /proc/cpuinfo",
)


@x86_linux
def test_target_is_the_best_the_cpu_supports():
    assert simd_target() == expected_target(CAP)


@x86_linux
@pytest.mark.parametrize("cap", ["avx512", "avx2", "sse4", "scalar"])
def test_target_cap_from_the_environment(cap):
    proc = run_python(
        """
        import mxffi, mxffi.np as mnp, numpy as np
        print(mxffi.get_global_func("runtime.simd_target")())
        print(float(mnp.sum(np.arange(100.0)).asnumpy()))
        """,
        env={"MXFFI_SIMD_TARGET": cap},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [expected_target(cap), "4950.0"]


def test_unknown_target_is_a_value_error():
    proc = run_python(
        """
        import mxffi
        try:
            mxffi.get_global_func("runtime.simd_target")()
        except ValueError as e:
            print(e)
        """,
        env={"MXFFI_SIMD_TARGET": "avx9"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (
        "MXFFI_SIMD_TARGET: unknown instruction set 'avx9'; expected avx512, avx2, sse4 or scalar"
    )


@x86_linux
@pytest.mark.skipif(bool(CAP), reason="this is the parent run that starts the children")
@pytest.mark.parametrize("cap", ["avx2", "sse4", "scalar"])
def test_every_target_matches_numpy(cap):
    """This file's value tests again in a child whose kernels run with the capped target."""
    if expected_target(cap) == expected_target():
        pytest.skip(f"the CPU's best target is {expected_target()} already")
    proc = run_test_file(__file__, {"MXFFI_SIMD_TARGET": cap})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout


# ---- unary -------------------------------------------------------------------------------


EXACT_UNARY = ["negative", "absolute", "square", "sqrt", "sign", "relu", "floor", "ceil", "trunc"]


def unary(name, x, **kw):
    if name == "relu":
        return mxffi.ops.invoke("relu", mnp.array(x))
    return getattr(mnp, name)(x, **kw)


def np_unary(name, x):
    with np.errstate(all="ignore"):
        if name == "relu":
            return np.where((x > 0) | np.isnan(x), x, x.dtype.type(0))
        return getattr(np, name)(x)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", EXACT_UNARY)
def test_exact_unary_equals_numpy_bit_for_bit(name, dtype):
    rng = np.random.default_rng(len(name))
    for n in SIZES + [LARGE]:
        x = operand(rng, n, dtype)
        assert_same(unary(name, x).asnumpy(), np_unary(name, x))
    x = special(dtype)
    assert_same(unary(name, x).asnumpy(), np_unary(name, x))


def exp_reference(x):
    """exp correctly rounded (within half an ulp plus a hair): float32 through float64; float64
    from the C library's exp, which glibc computes to within 1 ulp, nearly always rounded
    correctly."""
    if x.dtype == np.float32:
        with np.errstate(all="ignore"):
            return np.exp(x.astype(np.float64)).astype(np.float32)

    def one(v):
        try:
            return math.exp(v)
        except OverflowError:
            return math.inf

    return np.array([one(v) for v in x.tolist()], dtype=np.float64)


@pytest.mark.parametrize("dtype", FLOATS)
def test_exp_within_one_ulp(dtype):
    """Highway's exp is documented at 1 ulp; numpy's own float32 exp allows up to 4 ulp."""
    rng = np.random.default_rng(7)
    for n in SIZES + [LARGE]:
        for kind in ("normal", "exp"):
            x = operand(rng, n, dtype, kind)
            got = mnp.exp(x).asnumpy()
            assert got.dtype == x.dtype
            d = ulp_distance(got, exp_reference(x))
            assert d.size == 0 or d.max() <= 1, (n, kind, x[np.argmax(d)], d.max())


@pytest.mark.parametrize("dtype", FLOATS)
def test_exp_special_values(dtype):
    x = special(dtype)
    got = mnp.exp(x).asnumpy()
    want = exp_reference(x)
    assert np.all(ulp_distance(got, want) <= 1)
    # Exactly: the infinities, NaN, zeros, overflow to +inf and underflow to +0.
    t = np.dtype(dtype).type
    edge = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e30 if dtype == "float32" else 1e300])
    edge = np.concatenate([edge, -edge[-1:]]).astype(dtype)
    assert_same(mnp.exp(edge).asnumpy(), np.array([np.inf, 0, np.nan, 1, 1, np.inf, 0], dtype))
    big = t(89.0) if dtype == "float32" else t(710.0)
    small = t(-104.0) if dtype == "float32" else t(-746.0)
    assert_same(mnp.exp(np.array([big, small])).asnumpy(), np.array([np.inf, 0.0], dtype))


# ---- binary ------------------------------------------------------------------------------


# SLEEF's kernels (sleef.cc): name -> (their ulps, the inputs' range). The references: float32
# computed in float64 and rounded (within half an ulp plus a hair); float64 from the C library,
# whose own error (glibc: up to 1-2 ulp for some functions) adds one ulp to the bound.
SLEEF = {
    "sin": (1, (-1e4, 1e4)),
    "cos": (1, (-1e4, 1e4)),
    "tan": (1, (-1e4, 1e4)),
    "arcsin": (1, (-1, 1)),
    "arccos": (1, (-1, 1)),
    "arctan": (1, (-1e3, 1e3)),
    "sinh": (1, (-80, 80)),
    "cosh": (1, (-80, 80)),
    "tanh": (4, (-20, 20)),  # the 3.5-ulp variant
    "arcsinh": (1, (-1e3, 1e3)),
    "arccosh": (1, (1, 1e3)),
    "arctanh": (1, (-1, 1)),
    "log": (1, (0, 1e6)),
    "log2": (1, (0, 1e6)),
    "log10": (1, (0, 1e6)),
    "log1p": (1, (-1, 1e6)),
    "expm1": (1, (-50, 80)),
}
LIBM = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh"}
LIBM.update({"arccosh": "acosh", "arctanh": "atanh"})


def sleef_reference(name, x):
    if x.dtype == np.float32:
        with np.errstate(all="ignore"):
            return getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    f = getattr(math, LIBM.get(name, name))

    def one(v):
        try:
            return f(v)
        except ValueError:  # outside the domain: NaN, or the pole's infinity
            with np.errstate(all="ignore"):
                return float(getattr(np, name)(np.float64(v)))
        except OverflowError:
            return math.copysign(math.inf, v) if name == "sinh" else math.inf

    return np.array([one(v) for v in x.tolist()], dtype=np.float64)


def wide(dtype):
    """Magnitudes spread over the dtype's whole range, both signs: the arguments where some of
    SLEEF's functions overflow inside and libm's answer is taken instead."""
    f = np.finfo(dtype)
    with np.errstate(over="ignore"):  # geomspace's own arithmetic near the top of the range
        m = np.geomspace(float(f.smallest_subnormal), float(f.max), 3000).astype(dtype)
    return np.concatenate([m, -m, special(dtype)])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(SLEEF))
def test_sleef_functions_within_their_bound(name, dtype):
    bound, (lo, hi) = SLEEF[name]
    bound += dtype == "float64"
    rng = np.random.default_rng(len(name) + 3)
    for n in [*SIZES, 20000]:
        x = rng.uniform(lo, hi, n).astype(dtype)
        got = unary(name, x).asnumpy()
        assert got.dtype == x.dtype
        d = ulp_distance(got, sleef_reference(name, x))
        assert d.size == 0 or d.max() <= bound, (name, n, x[np.argmax(d)], d.max())
    x = wide(dtype)
    got = unary(name, x).asnumpy()
    want = sleef_reference(name, x)
    d = ulp_distance(got, want)
    assert d.size == 0 or d.max() <= bound, (name, x[~np.isnan(want)][np.argmax(d)], d.max())
    # Infinities, zeros (with their signs) and NaN exactly as numpy has them.
    edge = np.isinf(want) | (want == 0)
    assert_same(got[edge], np_unary(name, x)[edge])
    # In place: the output is the input.
    y = mnp.array(x)
    unary(name, y, out=y)
    assert_same(y.asnumpy(), got)


COMPARE = ["less", "less_equal", "greater", "greater_equal", "equal", "not_equal"]
CLASSIFY = ["isnan", "isinf", "isfinite"]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", COMPARE + CLASSIFY)
def test_bool_results_equal_numpy(name, dtype):
    """The comparisons and classifiers with a bool result: every length (the vector loop and
    the padded tail), equal elements, and every special value against every other."""
    rng = np.random.default_rng(len(name) + 11)
    sp = special(dtype)
    pairs = [(np.repeat(sp, sp.size), np.tile(sp, sp.size))]
    for n in [*SIZES, LARGE]:
        a, b = operand(rng, n, dtype), operand(rng, n, dtype)
        b[: n // 3] = a[: n // 3]
        pairs.append((a, b))
    for a, b in pairs:
        if name in CLASSIFY:
            got, want = getattr(mnp, name)(a).asnumpy(), getattr(np, name)(a)
        else:
            got, want = getattr(mnp, name)(a, b).asnumpy(), getattr(np, name)(a, b)
        assert got.dtype == np.bool_
        np.testing.assert_array_equal(got, want)
        assert got.view(np.uint8).max(initial=0) <= 1  # bool storage holds 0 and 1 only


BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum"]


def np_binary(name, a, b, **kw):
    with np.errstate(all="ignore"):
        return getattr(np, name)(a, b, **kw)


def binary_operands(rng, n, dtype):
    a, b = operand(rng, n, dtype), operand(rng, n, dtype)
    if n >= 8:  # equal pairs, NaN on either side, zeros of both signs, division by zero
        sp = special(dtype)
        k = min(n, sp.size)
        a[:k] = sp[:k]
        b[: k // 2] = sp[k - k // 2 : k][::-1]
        b[n // 2] = a[n // 2]
        b[-1] = 0.0
    return a, b


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_equals_numpy_bit_for_bit(name, dtype):
    rng = np.random.default_rng(len(name) + 100)
    fn = getattr(mnp, name)
    for n in SIZES + [LARGE]:
        a, b = binary_operands(rng, n, dtype)
        want = np_binary(name, a, b)
        assert_same(fn(a, b).asnumpy(), want)
        out = mnp.empty((n,), dtype=dtype)
        r = fn(mnp.array(a), mnp.array(b), out=out)
        assert_same(out.asnumpy(), want)
        assert (
            r.asnumpy().__array_interface__["data"][0]
            == out.asnumpy().__array_interface__["data"][0]
        )


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_in_place(name, dtype):
    rng = np.random.default_rng(3)
    for n in (17, 1000, LARGE):
        a, b = binary_operands(rng, n, dtype)
        want = np_binary(name, a, b)
        ma, mb = mnp.array(a), mnp.array(b)
        getattr(mnp, name)(ma, mb, out=ma)  # out= the first input
        assert_same(ma.asnumpy(), want)
        ma = mnp.array(a)
        getattr(mnp, name)(ma, mb, out=mb)  # out= the second input
        assert_same(mb.asnumpy(), want)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", BINARY + ["exp", "sqrt"])
def test_layouts_off_the_vector_path_are_right(name, dtype):
    """Strided, broadcast, reversed, transposed and unaligned operands, and mixed dtypes."""
    rng = np.random.default_rng(11)
    base = operand(rng, 4 * 1032, dtype)
    other = operand(rng, 4 * 1032, dtype)
    views = {
        "strided": (base[::2], other[1::2]),
        "reversed": (base[::-1], other[::-1]),
        "unaligned": (base[1:], other[:-1]),  # contiguous, 4 or 8 bytes off the alignment
        "broadcast row": (base[:1031].reshape(1, 1031), other[: 4 * 1031].reshape(4, 1031)),
        "broadcast scalar": (base[:1], other[:1031]),
        "transposed": (base[: 31 * 33].reshape(31, 33).T, other[: 31 * 33].reshape(33, 31)),
        "mixed dtype": (base[:1000], other[:1000].astype(np.int32)),
    }
    for what, (a, b) in views.items():
        if name in BINARY:
            want = np_binary(name, a, b)
            got = getattr(mnp, name)(a, b).asnumpy()
        else:
            want = np_unary(name, a)
            got = getattr(mnp, name)(a).asnumpy()
        if name == "exp":
            d = ulp_distance(got, want.astype(got.dtype))
            assert d.size == 0 or d.max() <= 4, what  # numpy's own exp is within 4 ulp
        else:
            assert_same(got, want)


# Outputs of 8 MiB or more per thread are written with streaming stores, from the first
# vector-aligned element on: this size streams with one thread or two (16.8 MB of float32).
STREAM = 4_200_007


def misaligned_out(n, dtype):
    """An mxffi array over numpy memory one element past a 64-byte boundary, and that memory."""
    raw = np.empty(n + 16, dtype)
    skip = (-raw.ctypes.data % 64) // raw.itemsize + 1
    host = raw[skip : skip + n]
    return mnp.from_dlpack(host), host


@pytest.mark.parametrize("dtype", FLOATS)
def test_streaming_stores_give_the_same_values(dtype):
    """Large outputs (streamed) equal numpy's, or for exp the same kernel run on pieces too
    small to stream, bit for bit; into a fresh array, into a misaligned out= and in place."""
    rng = np.random.default_rng(23)
    a, b = operand(rng, STREAM, dtype), operand(rng, STREAM, dtype)
    b[::1000] = 0.0
    piece = 100_003
    for name in BINARY:
        want = np_binary(name, a, b)
        fn = getattr(mnp, name)
        assert_same(fn(a, b).asnumpy(), want)
        out, host = misaligned_out(STREAM, dtype)
        fn(a, b, out=out)
        assert_same(host, want)
        ma = mnp.array(a)
        fn(ma, b, out=ma)
        assert_same(ma.asnumpy(), want)
    for name in ("exp", "sqrt", "square"):
        fn = getattr(mnp, name)
        pieces = np.concatenate([fn(a[k : k + piece]).asnumpy() for k in range(0, STREAM, piece)])
        if name != "exp":
            assert_same(pieces, np_unary(name, a))
        assert_same(fn(a).asnumpy(), pieces)
        out, host = misaligned_out(STREAM, dtype)
        fn(a, out=out)
        assert_same(host, pieces)


# Bool outputs stream from 8 MiB per thread too: with one thread or two, this many elements.
STREAM_BOOL = 2**24 + 4099


@pytest.mark.parametrize("dtype", FLOATS)
def test_streamed_bool_results_equal_numpy(dtype):
    """The comparisons and classifiers on outputs large enough to stream, whose 16-byte
    vectors join the bytes of several result vectors: into a fresh array and into out= that
    starts 1 to 15 bytes past a 16-byte boundary (a head before the first streamed vector)."""
    rng = np.random.default_rng(29)
    a, b = operand(rng, STREAM_BOOL, dtype), operand(rng, STREAM_BOOL, dtype)
    b[::3] = a[::3]
    sp = special(dtype)
    a[: sp.size * sp.size] = np.repeat(sp, sp.size)
    b[: sp.size * sp.size] = np.tile(sp, sp.size)
    a[-7:] = np.nan
    raw = np.zeros(STREAM_BOOL + 64, np.bool_)
    base = (-raw.ctypes.data) % 16
    for k, name in enumerate(COMPARE + CLASSIFY):
        fn, args = getattr(mnp, name), (a,) if name in CLASSIFY else (a, b)
        want = getattr(np, name)(*args)
        got = fn(*args).asnumpy()
        np.testing.assert_array_equal(got, want, err_msg=name)
        assert got.view(np.uint8).max() <= 1
        skip = base + 1 + k % 15
        raw[:] = True
        fn(*args, out=mnp.from_dlpack(raw[skip : skip + STREAM_BOOL]))
        np.testing.assert_array_equal(raw[skip : skip + STREAM_BOOL], want, err_msg=name)
        assert raw[:skip].all() and raw[skip + STREAM_BOOL :].all(), name  # nothing else written


# ---- reductions --------------------------------------------------------------------------


def fsum_rel_error(got, x):
    """|got - the exact sum| / sum(|x|): the exact sum from math.fsum (float64 data) or from
    float64 pairwise summation (float32 data: its error is ~1e-9 of a float32 ulp)."""
    x64 = x.astype(np.float64)
    exact = math.fsum(x64.tolist()) if x.dtype == np.float64 else float(np.sum(x64))
    scale = float(np.sum(np.abs(x64))) or 1.0
    return abs(float(got) - exact) / scale


@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_is_pairwise_accurate(dtype):
    """|sum - fsum| / sum|x| within the pairwise bound (log2(n) + 16) eps, and on average no
    worse than numpy's own pairwise sum on the same data."""
    rng = np.random.default_rng(5)
    eps = float(np.finfo(dtype).eps)
    ours, theirs = [], []
    for n in SIZES + [LARGE, 2 * LARGE + 5]:
        for x in (operand(rng, n, dtype), rng.uniform(0, 1, n).astype(dtype)):
            got = mnp.sum(x).asnumpy()
            assert got.dtype == x.dtype
            err = fsum_rel_error(got, x)
            assert err <= (math.log2(max(n, 2)) + 16) * eps, (n, err / eps)
            if n >= 1000:
                ours.append(err)
                theirs.append(fsum_rel_error(np.sum(x), x))
    assert np.mean(ours) <= 1.5 * np.mean(theirs) + eps, (np.mean(ours), np.mean(theirs))


def test_sum_of_ones_is_exact():
    """A sequential float32 sum stalls at 2**24; a pairwise one does not."""
    for n in (2**24 + 1000, 10**7 + 7):
        assert float(mnp.sum(np.ones(n, np.float32)).asnumpy()) == float(n)
    x = np.full(10**6 + 3, 0.1, np.float32)
    assert fsum_rel_error(mnp.sum(x).asnumpy(), x) <= 4 * float(np.finfo(np.float32).eps)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sum_and_mean_special_values(dtype):
    for x, want in (
        ([1.0, np.inf, 2.0], np.inf),
        ([np.inf, -np.inf], np.nan),
        ([1.0, np.nan] + [0.0] * 100, np.nan),
        ([], 0.0),
        ([-0.0], 0.0),
    ):
        x = np.array(x, dtype)
        got = mnp.sum(x).asnumpy()
        assert_same(got, np.sum(x))
        assert_same(got, np.array(want, dtype)) if not np.isnan(want) else np.isnan(got)
    x = operand(np.random.default_rng(1), LARGE, dtype)
    assert np.isclose(mnp.mean(x).asnumpy(), np.mean(x), rtol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_equal_numpy_with_nan(name, dtype):
    rng = np.random.default_rng(9)
    fn, ref = getattr(mnp, name), getattr(np, name)
    for n in SIZES[1:] + [LARGE]:
        x = operand(rng, n, dtype)
        assert_same(fn(x).asnumpy(), ref(x))
        for pos in {0, n // 2, n - 1}:  # a NaN in the first vector, the middle, the tail
            y = x.copy()
            y[pos] = np.nan
            assert np.isnan(fn(y).asnumpy())
        y = np.full(n, -np.inf if name == "max" else np.inf, dtype)
        assert_same(fn(y).asnumpy(), ref(y))
    x = special(dtype)
    assert np.isnan(fn(x).asnumpy())
    x = x[~np.isnan(x)]
    assert_same(fn(x).asnumpy(), ref(x))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["sum", "max", "min"])
def test_reductions_of_misaligned_memory(name, dtype):
    """numpy's memory read in place at every offset from a 64-byte boundary: max and min start
    their vector loops at the first aligned element, the ones before it reduced apart; a sum
    does not depend on where its array lies."""
    rng = np.random.default_rng(29)
    fn, ref = getattr(mnp, name), getattr(np, name)
    eps = float(np.finfo(dtype).eps)
    for n in (17, 100, 4099, LARGE):
        raw = operand(rng, n + 32, dtype)
        base = (-raw.ctypes.data % 64) // raw.itemsize
        for k in range(16 if n < 5000 else 4):
            x = raw[base + k : base + k + n]
            got = fn(mnp.from_dlpack(x)).asnumpy()
            if name == "sum":
                assert fsum_rel_error(got, x) <= (math.log2(n) + 16) * eps, (n, k)
                assert_same(got, fn(mnp.array(x)).asnumpy())  # the same values, 64-byte aligned
            else:
                assert_same(got, ref(x))
                y = x.copy()
                y[min(k, n - 1)] = np.nan  # a NaN among the elements before the aligned one
                assert np.isnan(fn(mnp.from_dlpack(y[:])).asnumpy())


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["sum", "mean", "max", "min"])
def test_axis_reductions(name, dtype):
    """Rows (the vectorized row kernels) and columns (the vectorized accumulate) of
    contiguous, transposed and sliced matrices, NaN included."""
    rng = np.random.default_rng(13)
    fn, ref = getattr(mnp, name), getattr(np, name)
    tol = {"float32": 2e-5, "float64": 1e-12}[dtype]
    for shape in ((3, 5), (17, 33), (129, 1000), (1000, 129), (4, 5, 6)):
        x = operand(rng, int(np.prod(shape)), dtype).reshape(shape)
        x.flat[::97] = np.nan
        for v in (x, x.T, x[..., 1:]):
            for axis in range(v.ndim):
                got, want = fn(v, axis=axis).asnumpy(), ref(v, axis=axis)
                assert got.dtype == want.dtype and got.shape == want.shape
                assert np.array_equal(np.isnan(got), np.isnan(want))
                ok = ~np.isnan(want)
                np.testing.assert_allclose(got[ok], want[ok], rtol=tol, atol=tol)


# ---- the tiled copy ----------------------------------------------------------------------


COPY_DTYPES = ["bool", "int8", "int16", "float16", "float32", "int32", "float64", "int64"]


@pytest.mark.parametrize("dtype", COPY_DTYPES)
def test_transposed_copy(dtype):
    rng = np.random.default_rng(17)
    for shape in ((2, 3), (64, 64), (65, 63), (1000, 777), (33, 4097)):
        x = (rng.standard_normal(shape) * 50).astype(dtype)
        for v in (x.T, x[::-1].T, x[::2, 1:].T, x[:, ::-1].T):
            got = mnp.copy(v)
            assert got.asnumpy().flags["C_CONTIGUOUS"]
            np.testing.assert_array_equal(got.asnumpy(), np.ascontiguousarray(v))
            # np.array of a transposed mxffi view copies through the same op.
            np.testing.assert_array_equal(mnp.array(mnp.array(x).T).asnumpy(), x.T)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_permuted_copies(dtype):
    rng = np.random.default_rng(19)
    x = rng.standard_normal((5, 37, 41, 3)).astype(dtype)
    for axes in ((0, 2, 1, 3), (3, 2, 1, 0), (1, 0, 3, 2), (0, 1, 3, 2), (2, 0, 1, 3)):
        v = mnp.transpose(mnp.array(x), axes)
        np.testing.assert_array_equal(mnp.copy(v).asnumpy(), np.transpose(x, axes).copy())
    y = rng.standard_normal((300, 200)).astype(dtype)
    # A reshape of a transposed view copies it first.
    got = mnp.reshape(mnp.array(y).T, (-1,))
    np.testing.assert_array_equal(got.asnumpy(), y.T.reshape(-1))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin_of_long_lines_equal_numpy(name, dtype):
    """Contiguous lines of 256 elements and more find the extremum block by block with the
    vectorized max/min: the first extremum across blocks (ties in two blocks), the first NaN
    (one per block, several), -0.0 against 0.0, infinities, a strided copy (the scalar loop)."""
    rng = np.random.default_rng(11)
    fn, ref = getattr(mnp, name), getattr(np, name)
    big = np.inf if name == "argmax" else -np.inf
    for n in (255, 256, 1023, 1024, 1025, 2049, 70000, 200001):
        x = rng.standard_normal(n).astype(dtype)
        cases = [x, x[::-1].copy(), np.full(n, -big, dtype)]
        y = x.copy()
        y[[n // 3, n - 2]] = big  # the same extremum in two blocks: the first wins
        cases.append(y)
        for pos in sorted({0, n // 2, n - 1}):
            y = x.copy()
            y[pos] = np.nan
            y[min(pos + 1100, n - 1)] = np.nan
            cases.append(y)
        z = np.zeros(n, dtype)
        z[: n // 2] = -0.0
        cases.append(z)  # -0.0 == 0.0: the first of them
        for c in cases:
            assert int(fn(c).asnumpy()) == int(ref(c)), (n, c[:4])
        two = np.stack([cases[3], cases[-2]])
        np.testing.assert_array_equal(fn(two, axis=1).asnumpy(), ref(two, axis=1))
        np.testing.assert_array_equal(fn(x[::2]).asnumpy(), ref(x[::2]))
