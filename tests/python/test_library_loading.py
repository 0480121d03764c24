"""mxffi.library.load against libraries that misbehave: ones that replace built-in ops the np
functions use, register globals through the C ABI alone, fail half-way through their
registrations, replace built-ins without being allowed to, or are no shared library at all.

The libraries are built here from tests/python/oplibs with the C and C++ compilers, against the
installed package; each load that could take the process down runs in a child interpreter.
"""

import os
import shutil
import subprocess

import pytest
from conftest import mxffi_config, run_python

OPLIBS = os.path.join(os.path.dirname(__file__), "oplibs")


def _compile(tmp_path_factory, compiler, std, source, name, *flags, link=False):
    cc = shutil.which(compiler)
    if cc is None:
        pytest.skip(f"no {compiler} on PATH")
    out = tmp_path_factory.mktemp("libs") / f"lib{name}.so"
    cmd = [cc, std, "-O1", "-Wall", "-Werror", "-shared", "-fPIC"]
    cmd += [f"-I{mxffi_config('--includedir')}", *flags, os.path.join(OPLIBS, source)]
    if link:
        libdir = mxffi_config("--libdir")
        cmd += [f"-L{libdir}", f"-Wl,-rpath,{libdir}", "-lmxffi"]
    cmd += ["-o", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return str(out)


def _op_lib(tmp_path_factory, op_name, prefix):
    return _compile(
        tmp_path_factory,
        "gcc",
        "-std=c99",
        "c_oplib.c",
        f"c_oplib_{prefix}",
        "-fvisibility=hidden",
        f'-DNEGATE_NAME="{op_name}"',
        f'-DOP_PREFIX="{prefix}_"',
    )


# ---------------------------------------------------------------------------------------------
# An op library replacing a built-in op never receives a built-in np function's parameters

# (op replaced, an np expression whose function binds that op, the expression numpy computes)
_BOUND_OPS = [
    ("quadratic", "mx.quadratic(x, a=1.0, b=2.0, c=3.0)", "x * x + 2 * x + 3"),
    ("_zeros", "mx.zeros((2, 3))", "np.zeros((2, 3))"),
    ("_cast", "x.astype('int32')", "x.astype('int32')"),
    ("_npi_add_scalar", "x + 1.5", "x + 1.5"),
]


@pytest.mark.parametrize("before", [False, True], ids=["np-after-load", "np-before-load"])
@pytest.mark.parametrize("op_name,expr,expected", _BOUND_OPS, ids=[b[0] for b in _BOUND_OPS])
def test_np_functions_keep_the_built_in_op_after_a_library_replaces_it(
    tmp_path_factory, op_name, expr, expected, before
):
    path = _op_lib(tmp_path_factory, op_name, "ovr" + op_name.strip("_").replace("_", ""))
    out = run_python(
        f"""
        import numpy as np
        import mxffi
        import mxffi.np as mx
        x = np.array([[1.0, -2.5, 3.25]])
        xm = mx.asarray(x)
        expected = {expected}
        def check(when):
            got = np.asarray((lambda x: {expr})(xm))
            assert got.dtype == expected.dtype and np.array_equal(got, expected), (when, got)
            print(when, "ok")
        if {before}:
            check("before")
        lib = mxffi.library.load({path!r}, override=True)
        assert {op_name!r} in list(lib.names)
        check("after")
        # the name itself now finds the library's op (-x), through mxffi.ops
        print("ops:", np.asarray(mxffi.ops.invoke({op_name!r}, xm)).tolist())
        """
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-2:] == ["after ok", "ops: [[-1.0, 2.5, -3.25]]"]
    assert ("before ok" in lines) == before


# ---------------------------------------------------------------------------------------------
# A library registering globals through the C ABI from its initializer


def test_library_registering_globals_through_the_c_abi_stays_loaded(tmp_path_factory):
    path = _compile(tmp_path_factory, "gcc", "-std=c99", "setglobal_lib.c", "setglobal", link=True)
    out = run_python(
        f"""
        import mxffi
        lib = mxffi.library.load({path!r})
        print(lib.kind, list(lib.names))
        print(mxffi.get_global_func("setglobal.answer")(1))
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["register_api ['setglobal.answer']", "43"]


# ---------------------------------------------------------------------------------------------
# A refused REGISTER_API library leaves the registry as it was


@pytest.fixture(scope="module")
def refused_lib(tmp_path_factory):
    return _compile(
        tmp_path_factory,
        "g++",
        "-std=c++17",
        "api_lib.cc",
        "apilib_refused",
        "-DREFUSED",
        link=True,
    )


@pytest.fixture(scope="module")
def override_lib(tmp_path_factory):
    return _compile(
        tmp_path_factory,
        "g++",
        "-std=c++17",
        "api_lib.cc",
        "apilib_override",
        "-DOVERRIDE",
        link=True,
    )


def test_refused_register_api_library_is_rolled_back(refused_lib):
    out = run_python(
        f"""
        import mxffi
        import mxffi.testing  # registers the built-in testing.add
        from mxffi import ops
        before = mxffi.list_global_func_names()
        ops_before = ops.list_ops()
        messages = []
        for attempt in range(2):
            try:
                mxffi.library.load({refused_lib!r})
                print("loaded")
            except RuntimeError as e:
                messages.append(str(e))
        after = mxffi.list_global_func_names()
        assert after == before, set(after) ^ set(before)
        assert ops.list_ops() == ops_before
        assert mxffi.get_global_func("testing.add")(1, 2) == 3
        assert all(lib.path != {refused_lib!r} for lib in mxffi.library.loaded())
        print(messages[0])
        print(messages[1])
        """
    )
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()[-2:]
    assert first.startswith(f"library.load: {refused_lib} failed to register:")
    assert "testing.add" in first and "already registered" in first
    assert "left the registry as it was" in first
    assert second == first  # loading it again says the same


def test_override_false_stops_allow_override_registrations(override_lib):
    out = run_python(
        f"""
        import mxffi
        import mxffi.testing  # registers the built-in testing.add
        before = mxffi.list_global_func_names()
        try:
            mxffi.library.load({override_lib!r})
            print("loaded")
        except RuntimeError as e:
            print(e)
        add = mxffi.get_global_func("testing.add")
        print(add(1, 1), mxffi.list_global_func_names() == before)
        """
    )
    assert out.returncode == 0, out.stderr
    message, result = out.stdout.splitlines()[-2:]
    assert message.startswith(f"library.load: {override_lib} failed to register:")
    assert '"testing.add") is already registered' in message and "override=True" in message
    assert result == "2 True"


def test_override_true_lets_allow_override_registrations_replace(override_lib):
    out = run_python(
        f"""
        import mxffi
        import mxffi.testing  # registers the built-in testing.add
        lib = mxffi.library.load({override_lib!r}, override=True)
        print(sorted(map(str, lib.names)), mxffi.get_global_func("testing.add")(1, 1))
        """
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['apilib.override_marker', 'testing.add'] 1002"


# ---------------------------------------------------------------------------------------------
# Files that are no shared library are refused before dlopen reads them


def _load_in_child(path, timeout=30):
    return run_python(
        f"""
        import mxffi
        try:
            mxffi.library.load({str(path)!r})
            print("loaded")
        except ValueError as e:
            print("ValueError:", e)
        """,
        timeout=timeout,
    )


def test_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "libfifo.so"
    os.mkfifo(fifo)
    try:
        out = _load_in_child(fifo, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("library.load blocked on a FIFO")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        f"ValueError: library.load: cannot load {fifo}: it is a FIFO, not a regular file"
    )


def test_directory_is_refused(tmp_path):
    d = tmp_path / "libdir.so"
    d.mkdir()
    out = _load_in_child(d)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == (
        f"ValueError: library.load: cannot load {d}: it is a directory, not a regular file"
    )


@pytest.fixture(scope="module")
def whole_lib(tmp_path_factory):
    return _op_lib(tmp_path_factory, "trunc_negate", "trunc")


@pytest.mark.parametrize("keep", [0.5, 0.9, 0.99])
def test_truncated_library_is_refused(tmp_path, whole_lib, keep):
    data = open(whole_lib, "rb").read()
    cut = tmp_path / "libcut.so"
    cut.write_bytes(data[: int(len(data) * keep)])
    out = _load_in_child(cut)
    assert out.returncode == 0, out.stderr
    msg = out.stdout.strip()
    assert msg.startswith(f"ValueError: library.load: cannot load {cut}: the file is truncated")
    assert f"{int(len(data) * keep)} bytes" in msg


@pytest.mark.parametrize(
    "content,why",
    [
        (b"", "it is empty"),
        (b"not an ELF file\n", "it is not an ELF file"),
        (b"\x7fELF\x02\x01\x01" + b"\0" * 9 + b"\x03\0>\0", "its ELF header is cut short"),
    ],
    ids=["empty", "text", "short-header"],
)
def test_non_elf_files_are_refused(tmp_path, content, why):
    path = tmp_path / "libbad.so"
    path.write_bytes(content)
    out = _load_in_child(path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"ValueError: library.load: cannot load {path}: {why}"
