"""Op-library ABI 1.0 stays loadable: a library built against the frozen 1.0 header.

tests/abi/op_library_1_0/mxffi/lib_api.h is lib_api.h as op-library ABI 1.0 shipped it, kept
unchanged (its digest is pinned here); scale_op.cc is built against that copy alone, never the
installed header, then loaded and run by this mxffi, whatever its own lib_api.h has become.
"""

import hashlib
import os
import shutil
import subprocess

import numpy as np
import pytest

import mxffi
from mxffi import ops

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests", "abi", "op_library_1_0")
FROZEN_SHA256 = "0460a3389322e87ffce96887821d0c8134ece963e7f1dae0d29802b4a4e0f613"


def test_the_frozen_header_is_unchanged():
    with open(os.path.join(FIXTURE, "mxffi", "lib_api.h"), "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    assert digest == FROZEN_SHA256, (
        "tests/abi/op_library_1_0/mxffi/lib_api.h is the op-library ABI 1.0 header as shipped; "
        "it must not change (a new ABI version gets a fixture of its own)"
    )


@pytest.fixture(scope="module")
def abi10_lib(tmp_path_factory):
    cxx = os.environ.get("CXX") or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler (g++ or $CXX)")
    out = tmp_path_factory.mktemp("abi10") / "libabi10_scale.so"
    cmd = [cxx, "-std=c++17", "-O2", "-shared", "-fPIC", "-fvisibility=hidden"]
    cmd += ["-Wall", "-Wextra", "-Werror", f"-I{FIXTURE}", "-Wl,--no-undefined"]
    cmd += [os.path.join(FIXTURE, "scale_op.cc"), "-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return str(out)


def test_a_library_built_against_abi_1_0_loads_and_runs(abi10_lib):
    lib = mxffi.library.load(abi10_lib)
    assert lib.kind == "op_library"
    assert list(lib.names) == ["abi10_scale"]
    x = np.arange(6.0).reshape(2, 3)
    got = ops.abi10_scale(mxffi.np.asarray(x), factor=2.5)
    np.testing.assert_array_equal(np.asarray(got), 2.5 * x)
    with pytest.raises(ValueError, match="abi10_scale: parse_attrs failed in .*factor='x'"):
        ops.abi10_scale(mxffi.np.asarray(x), factor="x")
    with pytest.raises(TypeError, match="abi10_scale: .*expected float64, got float32"):
        ops.abi10_scale(mxffi.np.asarray(x.astype("float32")))
