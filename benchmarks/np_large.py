"""The large-array cells of bench_np_ops.py: what mxffi.np's vectorized CPU kernels cost next
to numpy on arrays far larger than the caches, one thread and two.

What is timed (mxffi arrays for mxffi, numpy arrays holding the same values for numpy):

    exp(x), sqrt(x)            10^7 float32 and float64 elements, a fresh result each call
                               (sqrt of |x|, so no NaN): the kernel, and the page faults that
                               map the result's fresh memory (the kernel's zeroing of it)
    exp(x, out=o)              the same into an existing array: the kernel alone (no gate)
    multiply, log (of |x|),    10^7 float32 and float64 elements, a fresh result each call
    sin, tanh, less, isnan,    (the elementwise functions the array API issue gates)
    floor
    add(x, y, out=o)           10^7 float32 and float64, into an existing array
    sum(x), max(x)             10^7 float32 and float64, to a scalar
    sort(x)                    10^6 float32 and int32 elements (normal * 10^6), a fresh
                               sorted copy each call (reported, no gate; both sort these with
                               a vectorized quicksort: numpy x86-simd-sort's, mxffi Highway's)
    copy(a.T)                  a 4096 x 4096 float64 array, transposed, to a C-contiguous copy
                               (mxffi.np.copy; numpy.ascontiguousarray)
    matmul(a, b)               1024 x 1024 float64 matrices
    linalg.solve, inv, svd,    64 x 64 and 512 x 512 float64 matrices (solve with one
    eigh, qr                   right-hand side vector; eigh of a symmetric matrix); both
                               libraries call LAPACK, numpy's bundled OpenBLAS and Debian's
                               OpenBLAS through LAPACKE for mxffi
    fft.fft, fft2, rfft        2^20 complex128 elements, 1024 x 1024 complex128, 2^20
                               float64 (KissFFT against numpy's pocketfft)
    sort (10^7), argmax,       10^7 float64 (sort: and int32); where picks between two
    where, concat              10^7 float64 arrays; concat joins two halves of 10^7

How. Each thread count runs in a child interpreter of its own, started with MXFFI_NUM_THREADS
and OPENBLAS_NUM_THREADS set to it (both libraries size their pools once, at load; numpy threads
only matmul, through its OpenBLAS), and with OPENBLAS_THREAD_TIMEOUT=4: OpenBLAS's threads
otherwise spin on their cores for a while after each of numpy's products, and the call after
it, mxffi's or numpy's, finds one core fewer (mxffi's 2-thread matmul then took 34 ms instead
of 18; numpy's own time does not change). The child checks every result once against numpy, calls
every cell once to warm up, calibrates each to at least 20 ms per sample (2 with --quick), then
runs `rounds` rounds, each every cell in a fresh random order with mxffi's and numpy's calls of
a cell back to back (in random order), so both see the same moment of a shared machine. A
figure is the median ms per call; a ratio is the median over the rounds of numpy's time over
mxffi's in the same round (above 1: mxffi is faster), which a load that changes between rounds
moves less than a ratio of the two medians.
"""

import json
import os
import random
import statistics
import subprocess
import sys
import time

N = 10**7
SORT_N = 10**6
TRANSPOSE_N = 4096
MATMUL_N = 1024

# (key, label); every cell runs on both libraries at every thread count.
CELLS = [
    ("exp_f32", "exp, 10^7 float32"),
    ("exp_f64", "exp, 10^7 float64"),
    ("exp_out_f32", "exp into out=, 10^7 float32"),
    ("exp_out_f64", "exp into out=, 10^7 float64"),
    ("sqrt_f32", "sqrt, 10^7 float32"),
    ("sqrt_f64", "sqrt, 10^7 float64"),
    ("add_out_f32", "add into out=, 10^7 float32"),
    ("add_out_f64", "add into out=, 10^7 float64"),
    ("sum_f32", "sum, 10^7 float32"),
    ("sum_f64", "sum, 10^7 float64"),
    ("max_f32", "max, 10^7 float32"),
    ("max_f64", "max, 10^7 float64"),
    ("multiply_f32", "multiply, 10^7 float32"),
    ("multiply_f64", "multiply, 10^7 float64"),
    ("log_f32", "log, 10^7 float32"),
    ("log_f64", "log, 10^7 float64"),
    ("sin_f32", "sin, 10^7 float32"),
    ("sin_f64", "sin, 10^7 float64"),
    ("tanh_f32", "tanh, 10^7 float32"),
    ("tanh_f64", "tanh, 10^7 float64"),
    ("less_f32", "less, 10^7 float32"),
    ("less_f64", "less, 10^7 float64"),
    ("isnan_f32", "isnan, 10^7 float32"),
    ("isnan_f64", "isnan, 10^7 float64"),
    ("floor_f32", "floor, 10^7 float32"),
    ("floor_f64", "floor, 10^7 float64"),
    ("sort_f32", "sort, 10^6 float32"),
    ("sort_i32", "sort, 10^6 int32"),
    ("sort_f64_big", "sort, 10^7 float64"),
    ("sort_i32_big", "sort, 10^7 int32"),
    ("argmax_f64", "argmax, 10^7 float64"),
    ("where_f64", "where(c, x, y), 10^7 float64"),
    ("concat_f64", "concat of two 5*10^6 float64"),
    ("transpose", "copy of a.T, 4096^2 float64"),
    ("matmul", "matmul, 1024^2 float64"),
    ("solve_64", "linalg.solve, 64^2 float64"),
    ("inv_64", "linalg.inv, 64^2 float64"),
    ("svd_64", "linalg.svd, 64^2 float64"),
    ("eigh_64", "linalg.eigh, 64^2 float64"),
    ("qr_64", "linalg.qr, 64^2 float64"),
    ("solve_512", "linalg.solve, 512^2 float64"),
    ("inv_512", "linalg.inv, 512^2 float64"),
    ("svd_512", "linalg.svd, 512^2 float64"),
    ("eigh_512", "linalg.eigh, 512^2 float64"),
    ("qr_512", "linalg.qr, 512^2 float64"),
    ("fft_1d", "fft.fft, 2^20 complex128"),
    ("fft_2d", "fft.fft2, 1024^2 complex128"),
    ("rfft_1d", "fft.rfft, 2^20 float64"),
]
CELL_KEYS = [c[0] for c in CELLS]
CELL_LABEL = dict(CELLS)
THREADS = (1, 2)

# Least numpy / mxffi time ratio per (cell, threads): the acceptance bounds of the vectorized
# kernels (with 1 thread at least numpy's speed; with 2, exp and sum ahead by the second core).
# The linalg and fft cells: at least 0.8x numpy, on either thread count.
GATES = {}
_UNGATED = ("matmul", "exp_out_f32", "exp_out_f64", "sort_f32", "sort_i32")
_LIBRARY = ("solve", "inv", "svd", "eigh", "qr", "fft", "rfft")  # LAPACK and FFT cells
for _key in CELL_KEYS:
    if _key not in _UNGATED and not _key.startswith(_LIBRARY):
        GATES[_key, 1] = 1.0
    elif _key.startswith(_LIBRARY):
        # LAPACK against numpy's own OpenBLAS, KissFFT against pocketfft: at least 0.8x
        GATES[_key, 1] = GATES[_key, 2] = 0.8
for _key in ("exp_f32", "exp_f64"):
    GATES[_key, 2] = 1.6
for _key in ("sum_f32", "sum_f64"):
    GATES[_key, 2] = 1.3
GATES["matmul", 1] = GATES["matmul", 2] = 0.95


def comparable(key, result):
    """What of a cell's result is compared with numpy's: the factors of svd, eigh and qr are
    unique only up to signs, so their singular values, eigenvalues and |R| are."""
    import numpy as np

    def arr(x):
        return np.asarray(x.asnumpy() if hasattr(x, "asnumpy") else x)

    if key.startswith("svd"):
        return arr(result[1])
    if key.startswith("eigh"):
        return arr(result[0])
    if key.startswith("qr"):
        return np.abs(arr(result[1]))
    return arr(result)


def make_cells(keys):
    """{(framework, key): callable}, every mxffi result checked once against numpy's."""
    import numpy as np

    import mxffi.np as mnp

    rng = np.random.default_rng(0)
    cells = {}
    for suffix, dt in (("f32", np.float32), ("f64", np.float64)):
        x = rng.standard_normal(N).astype(dt)
        y = rng.standard_normal(N).astype(dt)
        ax = np.abs(x)
        mx, my, max_ = mnp.array(x), mnp.array(y), mnp.array(ax)
        o, mo = np.empty_like(x), mnp.empty((N,), dtype=dt)
        cells["mxffi", f"exp_{suffix}"] = lambda mx=mx: mnp.exp(mx)
        cells["numpy", f"exp_{suffix}"] = lambda x=x: np.exp(x)
        cells["mxffi", f"exp_out_{suffix}"] = lambda mx=mx, mo=mo: mnp.exp(mx, out=mo)
        cells["numpy", f"exp_out_{suffix}"] = lambda x=x, o=o: np.exp(x, out=o)
        cells["mxffi", f"sqrt_{suffix}"] = lambda m=max_: mnp.sqrt(m)
        cells["numpy", f"sqrt_{suffix}"] = lambda a=ax: np.sqrt(a)
        cells["mxffi", f"add_out_{suffix}"] = lambda mx=mx, my=my, mo=mo: mnp.add(mx, my, out=mo)
        cells["numpy", f"add_out_{suffix}"] = lambda x=x, y=y, o=o: np.add(x, y, out=o)
        cells["mxffi", f"sum_{suffix}"] = lambda mx=mx: mnp.sum(mx)
        cells["numpy", f"sum_{suffix}"] = lambda x=x: np.sum(x)
        cells["mxffi", f"max_{suffix}"] = lambda mx=mx: mnp.max(mx)
        cells["numpy", f"max_{suffix}"] = lambda x=x: np.max(x)
        for name, args in (
            ("multiply", (x, y)),
            ("log", (ax,)),
            ("sin", (x,)),
            ("tanh", (x,)),
            ("less", (x, y)),
            ("isnan", (x,)),
            ("floor", (x,)),
        ):
            margs = tuple(mnp.array(a) for a in args)
            mf, nf = getattr(mnp, name), getattr(np, name)
            cells["mxffi", f"{name}_{suffix}"] = lambda f=mf, a=margs: f(*a)
            cells["numpy", f"{name}_{suffix}"] = lambda f=nf, a=args: f(*a)
    big = rng.standard_normal(N)
    mbig = mnp.array(big)
    for key, arr, marr in (
        ("sort_f64_big", big, mbig),
        ("sort_i32_big", (big * 1e6).astype(np.int32), mnp.array((big * 1e6).astype(np.int32))),
    ):
        cells["mxffi", key] = lambda m=marr: mnp.sort(m)
        cells["numpy", key] = lambda a=arr: np.sort(a)
    cells["mxffi", "argmax_f64"] = lambda: mnp.argmax(mbig)
    cells["numpy", "argmax_f64"] = lambda: np.argmax(big)
    cond = big > 0
    other = big[::-1].copy()
    mcond, mother = mnp.array(cond), mnp.array(other)
    cells["mxffi", "where_f64"] = lambda: mnp.where(mcond, mbig, mother)
    cells["numpy", "where_f64"] = lambda: np.where(cond, big, other)
    half1, half2 = big[: N // 2].copy(), big[N // 2 :].copy()
    mh1, mh2 = mnp.array(half1), mnp.array(half2)
    cells["mxffi", "concat_f64"] = lambda: mnp.concat([mh1, mh2])
    cells["numpy", "concat_f64"] = lambda: np.concatenate([half1, half2])
    for key, dt in (("sort_f32", np.float32), ("sort_i32", np.int32)):
        s = (rng.standard_normal(SORT_N) * 1e6).astype(dt)
        ms = mnp.array(s)
        cells["mxffi", key] = lambda ms=ms: mnp.sort(ms)
        cells["numpy", key] = lambda s=s: np.sort(s)
    a = rng.standard_normal((TRANSPOSE_N, TRANSPOSE_N))
    ma = mnp.array(a)
    cells["mxffi", "transpose"] = lambda: mnp.copy(ma.T)
    cells["numpy", "transpose"] = lambda: np.ascontiguousarray(a.T)
    b, c = rng.standard_normal((MATMUL_N, MATMUL_N)), rng.standard_normal((MATMUL_N, MATMUL_N))
    mb, mc = mnp.array(b), mnp.array(c)
    cells["mxffi", "matmul"] = lambda: mnp.matmul(mb, mc)
    cells["numpy", "matmul"] = lambda: np.matmul(b, c)
    for n in (64, 512):
        a = rng.standard_normal((n, n)) + n * np.eye(n)
        sym = (a + a.T) / 2
        v = rng.standard_normal(n)
        ma, msym, mv = mnp.array(a), mnp.array(sym), mnp.array(v)
        for name, mx_f, np_f in (
            (
                "solve",
                lambda ma=ma, mv=mv: mnp.linalg.solve(ma, mv),
                lambda a=a, v=v: np.linalg.solve(a, v),
            ),
            ("inv", lambda ma=ma: mnp.linalg.inv(ma), lambda a=a: np.linalg.inv(a)),
            ("svd", lambda ma=ma: mnp.linalg.svd(ma), lambda a=a: np.linalg.svd(a)),
            ("eigh", lambda m=msym: mnp.linalg.eigh(m), lambda s=sym: np.linalg.eigh(s)),
            ("qr", lambda ma=ma: mnp.linalg.qr(ma), lambda a=a: np.linalg.qr(a)),
        ):
            cells["mxffi", f"{name}_{n}"] = mx_f
            cells["numpy", f"{name}_{n}"] = np_f
    z = rng.standard_normal(1 << 20) + 1j * rng.standard_normal(1 << 20)
    z2 = rng.standard_normal((1024, 1024)) + 1j * rng.standard_normal((1024, 1024))
    r = rng.standard_normal(1 << 20)
    mz, mz2, mr = mnp.array(z), mnp.array(z2), mnp.array(r)
    cells["mxffi", "fft_1d"] = lambda: mnp.fft.fft(mz)
    cells["numpy", "fft_1d"] = lambda: np.fft.fft(z)
    cells["mxffi", "fft_2d"] = lambda: mnp.fft.fft2(mz2)
    cells["numpy", "fft_2d"] = lambda: np.fft.fft2(z2)
    cells["mxffi", "rfft_1d"] = lambda: mnp.fft.rfft(mr)
    cells["numpy", "rfft_1d"] = lambda: np.fft.rfft(r)
    cells = {k: f for k, f in cells.items() if k[1] in keys}
    for key in keys:
        got, want = comparable(key, cells["mxffi", key]()), comparable(key, cells["numpy", key]())
        rtol = 1e-5 if key.endswith("f32") else 1e-8
        if got.shape != want.shape or got.dtype != want.dtype:
            raise SystemExit(
                f"np_large: {key}: {got.shape} {got.dtype}, numpy {want.shape} {want.dtype}"
            )
        if not np.allclose(got, want, rtol=rtol, atol=rtol * float(np.max(np.abs(want)))):
            raise SystemExit(f"np_large: {key}: mxffi's result differs from numpy's")
    return cells


def worker(threads, rounds, quick, seed, keys):
    """Runs in the child: prints {"key|fw": median ms, ..., "simd_target": ...} as JSON."""
    import mxffi

    cells = make_cells(keys)
    target_s = 0.002 if quick else 0.02
    calls = {}
    for k, f in cells.items():  # warm up, then calibrate to target_s per sample
        f()
        t0 = time.perf_counter()
        f()
        calls[k] = max(1, round(target_s / max(time.perf_counter() - t0, 1e-9)))
    samples = {k: [] for k in cells}
    rng = random.Random(seed)
    order = list(keys)
    for _ in range(rounds):
        rng.shuffle(order)
        for key in order:
            pair = [("mxffi", key), ("numpy", key)]
            rng.shuffle(pair)
            for k in pair:
                f, n = cells[k], calls[k]
                t0 = time.perf_counter()
                for _ in range(n):
                    f()
                samples[k].append((time.perf_counter() - t0) / n * 1e3)
    out = {f"{k[1]}|{k[0]}": statistics.median(v) for k, v in samples.items()}
    for key in keys:
        pairs = zip(samples["numpy", key], samples["mxffi", key], strict=True)
        out[f"{key}|ratio"] = statistics.median([n / m for n, m in pairs])
    out["simd_target"] = mxffi.get_global_func("runtime.simd_target")()
    out["num_threads"] = mxffi.get_global_func("runtime.num_threads")()
    print(json.dumps(out))


def measure(script, threads_list, rounds, quick, seed, keys, log):
    """{threads: {(fw, key): ms}} and the SIMD target, each thread count in its own child."""
    times, target = {}, None
    for threads in threads_list:
        env = dict(os.environ, MXFFI_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
        env.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")  # see the docstring
        cmd = [sys.executable, script, f"--_large-worker={threads}", f"--rounds={rounds}"]
        cmd += [f"--seed={seed}", "--cells=" + ",".join(keys)] + (["--quick"] if quick else [])
        log(f"large arrays, {threads} thread(s): {rounds} rounds of {len(keys)} cells")
        res = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if res.returncode != 0:
            raise SystemExit(f"np_large: the {threads}-thread worker failed:\n{res.stderr}")
        data = json.loads(res.stdout.strip().splitlines()[-1])
        if data.pop("num_threads") != threads:
            raise SystemExit(f"np_large: the worker did not run {threads} thread(s)")
        target = data.pop("simd_target")
        times[threads] = {tuple(k.split("|")[::-1]): v for k, v in data.items()}
    return times, target


def ratio(times, threads, key):
    """numpy's time over mxffi's: the median of the rounds' ratios."""
    return times.get(threads, {}).get(("ratio", key))


def gate_results(times):
    """{(key, threads): (least ratio, ratio, verdict)} for the gates measured."""
    out = {}
    for (key, threads), limit in GATES.items():
        if threads not in times or ("mxffi", key) not in times[threads]:
            continue
        r = ratio(times, threads, key)
        out[key, threads] = (limit, r, "PASS" if r is not None and r >= limit else "FAIL")
    return out


def table(times, gates):
    rows = [
        "| cell | threads | mxffi ms | numpy ms | numpy / mxffi | gate | result |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for threads in sorted(times):
        for key in CELL_KEYS:
            if ("mxffi", key) not in times[threads]:
                continue
            t = times[threads]
            r = ratio(times, threads, key)
            g = gates.get((key, threads))
            gate = ("-", "-") if g is None else (f">= {g[0]:.2f}x", g[2])
            rows.append(
                f"| {CELL_LABEL[key]} | {threads} | {t['mxffi', key]:.2f} | "
                f"{t['numpy', key]:.2f} | {r:.2f}x | {gate[0]} | {gate[1]} |"
            )
    return "\n".join(rows)


def load_average():
    try:
        return " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "unknown"
