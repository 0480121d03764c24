"""Helpers shared by the Python tests: child interpreters, resident-memory readings, and the
dtypes mxffi.np supports (with numpy's spelling of each)."""

import os
import shutil
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest

_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")

# The ctypes core (MXFFI_FFI=ctypes) is the reference implementation of the call path only:
# Function calls, argument conversion, containers, objects, errors and callbacks. Under it the
# suite is these files; the array layer (mxffi.np, mxffi.nd, the array type) needs the Cython
# core and is tested there, once. (Interrupting a long C++ loop by a signal is the Cython core's
# too: a signal handler's exception can surface as a ctypes callback starts, where ctypes prints
# and drops it.)
CTYPES_SUITE = {
    "test_callbacks.py",
    "test_containers.py",
    "test_convert.py",
    "test_errors.py",
    "test_function.py",
    "test_misbehaving_objects.py",
    "test_objects.py",
    "test_tensor_view.py",
    "test_torch_args.py",
}


def pytest_ignore_collect(collection_path, config):
    if os.environ.get("MXFFI_FFI") != "ctypes":
        return None
    name = collection_path.name
    if collection_path.suffix == ".py" and name.startswith("test_") and name not in CTYPES_SUITE:
        return True
    return None


# The sanitizer the package under test was built with, as scripts/sanitize.sh sets it
# ("address" or "thread"; empty for a regular build). Instrumented code runs several times
# slower, so wall-clock bounds do not hold under it; results and memory bounds still do.
SANITIZED = os.environ.get("MXFFI_SANITIZED", "")


def seed_of(*parts):
    """A random seed made from a test's parameters, the same in every run (hash() of a str is
    salted per process, so a seed made with it changes from run to run)."""
    return zlib.crc32(repr(parts).encode())


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


def run_test_file(path, env, timeout=600):
    """Run the test file at path again in a child pytest (-q, stopping at the first failure)
    with env added to this process's; return the CompletedProcess (text mode, not checked).

    Used to run a file's tests under a setting read once per process (MXFFI_SIMD_TARGET).
    """
    path = Path(path)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", path.name],
        cwd=path.parent,
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
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


def mxffi_config(flag):
    """What ``python -m mxffi.config <flag>`` prints (--includedir, --libdir, --cmakedir)."""
    out = subprocess.run(
        [sys.executable, "-m", "mxffi.config", flag], capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def build_cmake_project(source, build, *defines, timeout=300):
    """Configure and build the CMake project at source into build against the installed mxffi
    package (-Dmxffi_DIR from ``python -m mxffi.config --cmakedir``), Release, with Ninja when
    it is on PATH; skips the test without cmake, fails with the build's output when it fails."""
    if shutil.which("cmake") is None:
        pytest.skip(f"cmake is not on PATH: cannot build {source}")
    configure = ["cmake", "-S", str(source), "-B", str(build)]
    configure += [f"-Dmxffi_DIR={mxffi_config('--cmakedir')}", "-DCMAKE_BUILD_TYPE=Release"]
    configure += list(defines)
    if shutil.which("ninja"):
        configure += ["-G", "Ninja"]
    for cmd in (configure, ["cmake", "--build", str(build), "--parallel"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stdout[-4000:]}{proc.stderr[-4000:]}"
    return build


# Every dtype mxffi.np supports, as the tests of its functions walk them.
DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]


def np_dtype(name):
    """numpy's dtype for one of DTYPES (bfloat16 from ml_dtypes)."""
    import ml_dtypes
    import numpy as np

    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)
