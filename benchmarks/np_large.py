"""The large-array cells of bench_np_ops.py: what mxffi.np's vectorized CPU kernels cost next
to numpy on arrays far larger than the caches, one thread and two.

What is timed (mxffi arrays for mxffi, numpy arrays holding the same values for numpy):

    exp(x), sqrt(x)            10^7 float32 and float64 elements, a fresh result each call
                               (sqrt of |x|, so no NaN): the kernel, and the page faults that
                               map the result's fresh memory (the kernel's zeroing of it)
    exp(x, out=o)              the same into an existing array: the kernel alone (no gate)
    add(x, y, out=o)           10^7 float32 and float64, into an existing array
    sum(x), max(x)             10^7 float32 and float64, to a scalar
    sort(x)                    10^6 float32 and int32 elements (normal * 10^6), a fresh
                               sorted copy each call (reported, no gate: numpy sorts these
                               with a vectorized quicksort, mxffi with a radix sort)
    copy(a.T)                  a 4096 x 4096 float64 array, transposed, to a C-contiguous copy
                               (mxffi.np.copy; numpy.ascontiguousarray)
    matmul(a, b)               1024 x 1024 float64 matrices

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
    ("sort_f32", "sort, 10^6 float32"),
    ("sort_i32", "sort, 10^6 int32"),
    ("transpose", "copy of a.T, 4096^2 float64"),
    ("matmul", "matmul, 1024^2 float64"),
]
CELL_KEYS = [c[0] for c in CELLS]
CELL_LABEL = dict(CELLS)
THREADS = (1, 2)

# Least numpy / mxffi time ratio per (cell, threads): the acceptance bounds of the vectorized
# kernels (with 1 thread at least numpy's speed; with 2, exp and sum ahead by the second core).
GATES = {}
for _key in CELL_KEYS:
    if _key not in ("matmul", "exp_out_f32", "exp_out_f64", "sort_f32", "sort_i32"):
        GATES[_key, 1] = 1.0
for _key in ("exp_f32", "exp_f64"):
    GATES[_key, 2] = 1.6
for _key in ("sum_f32", "sum_f64"):
    GATES[_key, 2] = 1.3
GATES["matmul", 1] = GATES["matmul", 2] = 0.95


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
    cells = {k: f for k, f in cells.items() if k[1] in keys}
    for key in keys:
        got, want = np.asarray(cells["mxffi", key]().asnumpy()), np.asarray(cells["numpy", key]())
        rtol = 1e-5 if key.endswith("f32") else 1e-10
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
