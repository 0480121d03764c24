"""Eight Python threads at once, each for MXFFI_STRESS_ITERS iterations (default 500, about ten
seconds), every result checked: calls that keep the GIL and calls that release it (long-running
testing functions, mxffi.np kernels on inputs past the GIL-release threshold), objects,
containers, ndarrays and sparse arrays made and dropped, global functions registered (unique
names, and one name overridden by every thread) and looked up, errors raised both ways, and C++
threads calling back into Python (one at a time and several at once).

A barrier starts the threads together and lines them up again every CHECKPOINT iterations, so
they really overlap. `scripts/stress.sh` runs this with a large count on both cores, and
`scripts/sanitize.sh python-thread` under ThreadSanitizer.
"""

import os
import threading
import traceback
import uuid

import numpy as np
import pytest

import mxffi
import mxffi.np as mnp
import mxffi.testing as t
from mxffi.nd import sparse

N_THREADS = 8
ITERATIONS = int(os.environ.get("MXFFI_STRESS_ITERS", "500"))
CHECKPOINT = 25
# mxffi.np kernels release the GIL past 2**15 elements (src/op/parallel.h); these are above it.
BIG = (256, 256)
DOT = (64, 64)


class StressError(Exception):
    """Raised by callbacks, to check the type survives the trip through C++ on every thread."""


def _raise_in_callback(k, i):
    raise StressError(f"callback of thread {k} at {i}")


def _check_calls(k, i):
    # Calls that keep the GIL: positional and keyword arguments, strings short and long.
    assert t.add(i, k) == i + k
    assert t.add(i, b=k) == i + k
    assert t.add(a=i) == i + 1
    assert t.sum3(i, 0.5, True) == i + 1.5
    assert t.concat(f"t{k}", f"-{i}-past-eight-bytes") == f"t{k}-{i}-past-eight-bytes"
    assert t.str_len("héllo" * k) == 6 * k
    assert t.echo(b"bytes" * k) == b"bytes" * k
    assert t.echo(None) is None
    # A call that releases the GIL (long-running), with and without a sleep in it.
    assert t.sleep_add(i, k, 1 if i % 10 == 0 else 0) == i + k


def _check_kernels(k, i, big, a, b):
    # Large enough that the kernels run with the GIL released (and on the pool).
    assert float(mnp.sum(big).numpy()) == (k + 1) * big.size
    np.testing.assert_array_equal(mnp.max(big, axis=0).numpy(), np.full(BIG[1], k + 1.0))
    if i % 5 == 0:
        np.testing.assert_allclose(mnp.dot(a, b).numpy(), a @ b, rtol=1e-12, atol=1e-12)


def _check_objects(k, i):
    p = t.make_point(i, k / 2, f"p{k}")
    assert (p.x, p.y, p.label) == (i, k / 2, f"p{k}")
    arr = t.echo([i, "x", float(k), [k]])
    assert arr == [i, "x", float(k), [k]]
    m = t.echo({"i": i, "k": k, "s": "v" * 12})
    assert m == {"i": i, "k": k, "s": "v" * 12}
    c = t.make_containers()
    assert c["shape"] == (2, 3) and c["adt"].tag == 7 and c["array"] == [1, "two", 3.0]
    assert t.echo(mxffi.Shape((i, k))) == (i, k)
    assert t.dtype_bits(mxffi.DataType("float32x4")) == 128
    assert t.echo(mxffi.Device("cpu", k)) == mxffi.Device("cpu", k)
    adder = t.make_adder(k)
    assert adder(i) == i + k
    del p, arr, m, c, adder


def _check_arrays(k, i):
    x = np.arange(i % 7 + 1, dtype="float64") * (k + 1)
    nd = mnp.array(x)
    np.testing.assert_array_equal(nd.numpy(), x)
    np.testing.assert_array_equal(np.from_dlpack(nd), x)
    assert t.tensor_first_f64(x) == 0.0
    assert t.echo(nd).same_as(nd)
    z = mnp.zeros((k + 1, 3), dtype="int32")
    assert z.shape == (k + 1, 3) and not z.numpy().any()
    dense = np.zeros((6, 5))
    dense[k % 6, i % 5] = i + 1.0
    dense[(k + 3) % 6, (i + 2) % 5] = -1.0
    csr = sparse.csr_matrix(dense)
    assert csr.stype == "csr" and csr.nnz == 2
    np.testing.assert_array_equal(csr.asnumpy(), dense)
    rsp = sparse.row_sparse_array(dense)
    assert rsp.stype == "row_sparse" and rsp.shape == (6, 5)
    np.testing.assert_array_equal(rsp.tostype("csr").asnumpy(), dense)
    np.testing.assert_array_equal(sparse.cast_storage(csr, "default").numpy(), dense)
    del x, nd, z, csr, rsp


def _check_registry(k, i, run_id, shared):
    name = f"stress.{run_id}.t{k}_{i}"
    mxffi.register_func(name, lambda x, v=i: x + v)
    assert mxffi.get_global_func(name)(k) == k + i
    with pytest.raises(ValueError, match="already registered"):
        mxffi.register_func(name, lambda x: x)
    # Every thread replaces the same name; a lookup finds one of them, whole.
    mxffi.register_func(shared, lambda v=k: v, override=True)
    assert mxffi.get_global_func(shared)() in range(N_THREADS)
    assert t.apply(mxffi.get_global_func(shared)) in range(N_THREADS)


def _check_callbacks(k, i):
    assert t.apply(lambda a, b: a * b + k, i, 3) == 3 * i + k
    assert t.apply_in_thread(lambda a: a * 2 + k, i) == 2 * i + k
    if i % 4 == 0:
        got = t.apply_in_threads(lambda j, x: x * 10 + j, 4, i)
        assert list(got) == [i * 10 + j for j in range(4)]
    # Errors both ways: raised in C++ and caught in Python; raised in a Python callback, through
    # C++ (on this thread and on a C++ thread), and caught again in Python.
    with pytest.raises(ValueError, match=f"bad {k} {i}"):
        t.raise_error("ValueError", f"bad {k} {i}")
    with pytest.raises(StressError, match=f"callback of thread {k} at {i}"):
        t.apply(_raise_in_callback, k, i)
    if i % 8 == 0:
        with pytest.raises(StressError, match=f"callback of thread {k} at {i}"):
            t.apply_in_thread(_raise_in_callback, k, i)


def test_threads_stress_every_kind_of_call():
    run_id = uuid.uuid4().hex[:8]
    shared = f"stress.{run_id}.shared"
    barrier = threading.Barrier(N_THREADS)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(DOT), rng.standard_normal(DOT)
    done = [0] * N_THREADS
    errors = []

    def worker(k):
        big = np.full(BIG, k + 1.0)
        try:
            barrier.wait(timeout=60)
            for i in range(ITERATIONS):
                if i % CHECKPOINT == 0 and i:
                    barrier.wait(timeout=120)
                _check_calls(k, i)
                _check_kernels(k, i, big, a, b)
                _check_objects(k, i)
                _check_arrays(k, i)
                _check_registry(k, i, run_id, shared)
                _check_callbacks(k, i)
                done[k] += 1
        except BaseException:  # reported below, in the main thread
            errors.append(f"thread {k}:\n{traceback.format_exc()}")
            barrier.abort()  # release the others from the next checkpoint

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, "\n".join(errors)
    assert done == [ITERATIONS] * N_THREADS
    names = [n for n in mxffi.list_global_func_names() if n.startswith(f"stress.{run_id}.")]
    assert len(names) == N_THREADS * ITERATIONS + 1
