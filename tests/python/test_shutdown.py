"""The interpreter exits cleanly while daemon threads are inside mxffi calls that released the
GIL: a kernel, a long-running C++ function, a callback from a C++ thread. numpy's own large
kernels exit with status 0 in the same situation; so must mxffi's, run after run.

Each case runs in a child interpreter, five times: whether the thread is inside the kernel,
re-taking the GIL or running Python code when the main thread exits differs from run to run.
"""

import textwrap

import pytest
from conftest import run_python

RUNS = 5

_CASES = {
    "reduction": """
        a = mx.ones(4_000_000)
        def work():
            while True:
                mx.sum(a)
    """,
    "elementwise": """
        a = mx.ones(2_000_000)
        def work():
            while True:
                a * 2.0 + 1.0
    """,
    "long-running-function": """
        def work():
            while True:
                t.sleep_add(1, 2, 1)
    """,
    "callback-from-cpp-thread": """
        def work():
            while True:
                t.apply_in_thread(lambda x: sum(range(1000)) + x, 1)
    """,
    "sparse-dot": """
        import numpy as np
        x = sp.csr_matrix(np.eye(600))
        d = mx.ones((600, 600))
        def work():
            while True:
                sp.dot(x, d)
    """,
}


_PRELUDE = """
import threading, time
import mxffi.np as mx
import mxffi.nd.sparse as sp
import mxffi.testing as t
"""

_MAIN = """
threads = [threading.Thread(target=work, daemon=True) for _ in range(3)]
for th in threads:
    th.start()
time.sleep(0.2)
print("exiting")
"""


@pytest.mark.parametrize("case", sorted(_CASES))
def test_exit_with_daemon_threads_inside_mxffi_calls(case):
    code = _PRELUDE + textwrap.dedent(_CASES[case]) + _MAIN
    for run in range(RUNS):
        out = run_python(code, timeout=60)
        assert (out.returncode, out.stdout.strip()) == (0, "exiting"), (
            f"run {run}: exit status {out.returncode}\n{out.stderr[-2000:]}"
        )
        assert "terminate called" not in out.stderr


def test_kernels_in_atexit_handlers_still_run_while_daemon_threads_wait():
    # The handler is registered before mxffi is imported, so it runs after mxffi's own exit
    # hook: the exiting thread itself still releases and re-takes the GIL around its kernels.
    code = """
import atexit, threading, time

def last_words():
    print("sum", float(mx.sum(mx.ones(4_000_000))))

atexit.register(last_words)
import mxffi.np as mx

a = mx.ones(4_000_000)

def work():
    while True:
        mx.sum(a)

for _ in range(2):
    threading.Thread(target=work, daemon=True).start()
time.sleep(0.2)
print("exiting")
"""
    for run in range(RUNS):
        out = run_python(code, timeout=60)
        assert (out.returncode, out.stdout.split()) == (0, ["exiting", "sum", "4000000.0"]), (
            f"run {run}: exit status {out.returncode}\n{out.stderr[-2000:]}"
        )
