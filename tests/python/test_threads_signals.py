"""Long-running calls: the GIL released for them, and signals interrupting a C++ loop."""

import os
import signal
import threading
import time

import pytest

import mxffi.testing as t

SLEEP_MS = 200
N_THREADS = 8
# How long the signal tests' C++ loop would run if no signal stopped it.
LOOP_MS = 120_000


def test_long_running_calls_run_concurrently_from_python_threads():
    results = {}
    errors = []
    barrier = threading.Barrier(N_THREADS)

    def worker(i):
        try:
            barrier.wait(timeout=30)
            results[i] = t.sleep_add(i, 1000 * i, SLEEP_MS)
        except BaseException as exc:  # reported below, in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(N_THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert errors == []
    assert results == {i: i + 1000 * i for i in range(N_THREADS)}


def test_long_running_calls_are_inside_cpp_at_the_same_time():
    # Every thread must be inside testing.rendezvous at once for any of them to return True:
    # impossible if the call held the GIL, whatever the machine's load (the timeout only ends a
    # failing run).
    met = {}
    threads = [
        threading.Thread(target=lambda i=i: met.__setitem__(i, t.rendezvous(N_THREADS, 60_000)))
        for i in range(N_THREADS)
    ]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert met == {i: True for i in range(N_THREADS)}


def test_python_thread_runs_while_main_thread_is_in_long_running_call():
    # The main thread waits in C++ for a second caller; a Python thread can make that second call
    # only if the first released the GIL.
    met = []
    th = threading.Thread(target=lambda: met.append(t.rendezvous(2, 60_000)))
    th.start()
    try:
        assert t.rendezvous(2, 60_000) is True
    finally:
        th.join(timeout=120)
    assert met == [True]


def test_rendezvous_times_out_alone_and_rejects_bad_n():
    assert t.rendezvous(2, 10) is False
    assert t.rendezvous(1, 0) is True
    with pytest.raises(ValueError, match="testing.rendezvous: n must be >= 1, got 0"):
        t.rendezvous(0, 10)


def test_poll_signals_without_signal_runs_to_its_deadline():
    start = time.perf_counter()
    polls = t.poll_signals(max_ms=50)
    elapsed = time.perf_counter() - start
    assert isinstance(polls, int) and polls > 0
    assert elapsed >= 0.045  # it ran to its deadline (no upper bound: the machine may be slow)


def _send_later(delay, signum):
    timer = threading.Timer(delay, os.kill, (os.getpid(), signum))
    timer.daemon = True
    timer.start()
    return timer


def test_sigint_interrupts_long_cpp_loop_with_keyboard_interrupt(restore_signal):
    restore_signal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = _send_later(0.2, signal.SIGINT)
    start = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            t.poll_signals(max_ms=LOOP_MS)
    finally:
        timer.cancel()
    elapsed = time.perf_counter() - start
    # Interrupted, not run to its end (the loop would last LOOP_MS) nor before the signal.
    assert 0.15 < elapsed < LOOP_MS / 1000, f"interrupted after {elapsed:.2f} s"


def test_setitimer_alarm_handler_interrupts_long_cpp_loop(restore_signal):
    restore_signal(signal.SIGALRM)

    def on_alarm(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGALRM, on_alarm)
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(KeyboardInterrupt):
            t.poll_signals(max_ms=LOOP_MS)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    assert time.perf_counter() - start < LOOP_MS / 1000


class SignalRaised(Exception):
    pass


def test_custom_signal_handler_exception_surfaces_with_its_class(restore_signal):
    restore_signal(signal.SIGUSR1)
    raised = []

    def handler(signum, frame):
        exc = SignalRaised(f"got signal {signum}")
        raised.append(exc)
        raise exc

    signal.signal(signal.SIGUSR1, handler)
    timer = _send_later(0.2, signal.SIGUSR1)
    start = time.perf_counter()
    try:
        with pytest.raises(SignalRaised) as info:
            t.poll_signals(max_ms=LOOP_MS)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < LOOP_MS / 1000
    assert str(info.value) == f"got signal {int(signal.SIGUSR1)}"
    assert raised == [info.value]


def test_signal_handler_that_returns_lets_the_loop_finish(restore_signal):
    restore_signal(signal.SIGUSR1)
    calls = []
    signal.signal(signal.SIGUSR1, lambda signum, frame: calls.append(signum))
    timer = _send_later(0.05, signal.SIGUSR1)
    try:
        start = time.perf_counter()
        polls = t.poll_signals(max_ms=300)
        elapsed = time.perf_counter() - start
    finally:
        timer.cancel()
    assert calls == [signal.SIGUSR1]
    assert polls > 0
    assert elapsed >= 0.29  # not cut short: the handler raised nothing


def test_calls_work_after_an_interrupt(restore_signal):
    restore_signal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = _send_later(0.1, signal.SIGINT)
    try:
        with pytest.raises(KeyboardInterrupt):
            t.poll_signals(max_ms=10000)
    finally:
        timer.cancel()
    assert t.poll_signals(max_ms=20) > 0
    assert t.add(1, 2) == 3
