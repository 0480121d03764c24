"""The kernel thread pool (design section 5): MXFFI_NUM_THREADS sizes it, a fork after a
parallel kernel leaves a child that can run parallel kernels, and long kernels release the GIL.

The pool and fork checks run in fresh interpreters: the pool size is read once per process,
and a hang must not take the test process with it.
"""

import threading
import time

import numpy as np
import pytest
from conftest import run_python

import mxffi
import mxffi.np as mnp


@pytest.mark.parametrize("threads", ["1", "3"])
def test_num_threads_is_honoured(threads):
    """runtime.num_threads reports MXFFI_NUM_THREADS, and the first parallel kernel starts
    exactly that many threads less one (the caller works too)."""
    proc = run_python(
        """
        import os
        import numpy as np
        import mxffi
        import mxffi.np as mnp

        def tasks():
            return len(os.listdir("/proc/self/task"))

        x = np.ones((2000, 2000))
        before = tasks()
        assert float(mnp.sum(x).numpy()) == 4e6
        started = tasks() - before
        assert float(mnp.sum(x, axis=0).numpy()[0]) == 2000.0
        again = tasks() - before
        print(mxffi.get_global_func("runtime.num_threads")(), started, again)
        """,
        env={"MXFFI_NUM_THREADS": threads},
    )
    assert proc.returncode == 0, proc.stderr
    n = int(threads)
    assert proc.stdout.split() == [str(n), str(n - 1), str(n - 1)], proc.stdout


def test_num_threads_default_is_core_count():
    proc = run_python(
        """
        import os
        import mxffi
        print(mxffi.get_global_func("runtime.num_threads")(), os.cpu_count())
        """,
        env={"MXFFI_NUM_THREADS": ""},
    )
    assert proc.returncode == 0, proc.stderr
    got, cores = proc.stdout.split()
    assert got == cores


_FORK_CHILD = """
    import os, sys, time
    import numpy as np
    import mxffi.np as mnp

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((512, 512)), rng.standard_normal((512, 512))
    x = np.ones((2000, 2000))

    def kernels():
        assert float(mnp.sum(x).numpy()) == 4e6
        assert np.allclose(mnp.tensordot(a, b, axes=1).numpy(), a @ b)
        assert np.array_equal(mnp.max(x, axis=1).numpy(), np.ones(2000))

    kernels()  # the pool is up and has run
    {fork}
"""

_OS_FORK = """
    pid = os.fork()
    if pid == 0:
        try:
            kernels()
            os._exit(0)
        except BaseException:
            os._exit(3)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            print("child exit", os.waitstatus_to_exitcode(status))
            kernels()  # the parent's pool still works
            sys.exit(0)
        time.sleep(0.01)
    os.kill(pid, 9)
    print("child hung")
    sys.exit(1)
"""

_MP_FORK = """
    import multiprocessing as mp

    def child():
        kernels()

    p = mp.get_context("fork").Process(target=child)
    p.start()
    p.join(20)
    if p.is_alive():
        p.kill()
        print("child hung")
        sys.exit(1)
    print("child exit", p.exitcode)
    kernels()
"""


@pytest.mark.parametrize("how", ["os.fork", "multiprocessing"])
def test_fork_after_parallel_kernel(how):
    code = _FORK_CHILD.replace("{fork}", _OS_FORK if how == "os.fork" else _MP_FORK)
    proc = run_python(code, env={"MXFFI_NUM_THREADS": "2"}, timeout=60)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "child exit 0" in proc.stdout, (proc.stdout, proc.stderr)


def test_large_kernel_releases_gil():
    """A Python thread keeps running while a large tensordot runs in another thread."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1500, 1500))
    b = rng.standard_normal((1500, 1500))
    mnp.tensordot(a, b, axes=1)  # warm up: pool and OpenBLAS buffers
    window = {}

    def work():
        window["start"] = time.perf_counter()
        window["result"] = mnp.tensordot(a, b, axes=1)
        window["end"] = time.perf_counter()

    stamps = []
    t = threading.Thread(target=work)
    t.start()
    while t.is_alive():
        stamps.append(time.perf_counter())
    t.join()
    start, end = window["start"], window["end"]
    assert end - start > 0.02, "the product was too quick to tell"
    # The middle half of the call only: around its ends the two threads take turns on the GIL
    # (every 5 ms) even when the kernel holds it throughout.
    lo, hi = start + 0.25 * (end - start), end - 0.25 * (end - start)
    inside = [s for s in stamps if lo < s < hi]
    assert len(inside) > 100, (len(inside), end - start)
    np.testing.assert_allclose(window["result"].numpy(), a @ b, rtol=1e-10, atol=1e-10)


def test_small_call_keeps_working_across_threads():
    """Kernels called from several Python threads at once (the pool serialises jobs)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((600, 600))
    errors = []

    def run():
        try:
            for _ in range(5):
                np.testing.assert_allclose(mnp.sum(x, axis=0).numpy(), x.sum(axis=0))
                np.testing.assert_allclose(mnp.dot(x, x).numpy(), x @ x, rtol=1e-10, atol=1e-9)
        except Exception as e:  # noqa: BLE001  (reported below)
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert mxffi.get_global_func("runtime.num_threads")() >= 1
