"""Helpers shared by the Python tests: child interpreters and resident-memory readings."""

import os
import subprocess
import sys
import textwrap

import pytest

_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes():
    """Resident set size of this process, from /proc/self/statm."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE_SIZE


def run_python(code, *, env=None, timeout=60, args=()):
    """Run code in a fresh interpreter; return the CompletedProcess (text mode, not checked).

    Used for whatever could take the test process down with it (a crash, a signal) and for
    settings read once at import (MXFFI_FFI).
    """
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
    )


@pytest.fixture
def restore_signal():
    """Put back any signal handler a test replaces."""
    import signal

    saved = {}

    def save(signum):
        saved.setdefault(signum, signal.getsignal(signum))

    yield save
    for signum, handler in saved.items():
        signal.signal(signum, handler)
