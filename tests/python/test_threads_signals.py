"""Long-running calls: the GIL released for them, and signals interrupting a C++ loop."""

import os
import signal
import threading
import time

import pytest

import mxffi.testing as t

SLEEP_MS = 200
N_THREADS = 8


def test_long_running_calls_run_concurrently_from_python_threads():
    results = {}
    errors = []
    barrier = threading.Barrier(N_THREADS)

    def worker(i):
        try:
            barrier.wait(timeout=10)
            results[i] = t.sleep_add(i, 1000 * i, SLEEP_MS)
        except BaseException as exc:  # reported below, in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(N_THREADS)]
    start = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=30)
    elapsed = time.perf_counter() - start
    assert errors == []
    assert results == {i: i + 1000 * i for i in range(N_THREADS)}
    # Serialised by the GIL this would take N_THREADS * 0.2 s = 1.6 s.
    serial = N_THREADS * SLEEP_MS / 1000
    assert elapsed < serial / 2, f"{N_THREADS} sleeps of {SLEEP_MS} ms took {elapsed:.2f} s"
    assert elapsed >= SLEEP_MS / 1000 * 0.9


def test_python_thread_runs_while_main_thread_is_in_long_running_call():
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.005)

    th = threading.Thread(target=ticker)
    th.start()
    try:
        time.sleep(0.02)
        before = len(ticks)
        assert t.sleep_add(20, 22, 300) == 42
        during = len(ticks) - before
    finally:
        stop.set()
        th.join()
    # 300 ms at one tick per ~5 ms: dozens of ticks if the GIL was free, about none if not.
    assert during >= 20, f"only {during} ticks while C++ slept"


def test_poll_signals_without_signal_runs_to_its_deadline():
    start = time.perf_counter()
    polls = t.poll_signals(max_ms=50)
    elapsed = time.perf_counter() - start
    assert isinstance(polls, int) and polls > 0
    assert 0.045 <= elapsed < 1.0


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
            t.poll_signals(max_ms=10000)
    finally:
        timer.cancel()
    elapsed = time.perf_counter() - start
    assert 0.15 < elapsed < 1.2, f"interrupted after {elapsed:.2f} s"


def test_setitimer_alarm_handler_interrupts_long_cpp_loop(restore_signal):
    restore_signal(signal.SIGALRM)

    def on_alarm(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGALRM, on_alarm)
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(KeyboardInterrupt):
            t.poll_signals(max_ms=10000)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    assert time.perf_counter() - start < 1.2


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
            t.poll_signals(max_ms=10000)
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 1.2
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
