"""The installed package: where its files are, what Python builds it accepts, the ctypes
implementation, and an outside project built against it and loaded at run time."""

import json
import os
import pathlib
import re
import subprocess
import sys
import tomllib

import pytest
from conftest import build_cmake_project, run_python

import mxffi
from mxffi._ffi import libinfo

ROOT = pathlib.Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------------------
# python -m mxffi.config


def _config(*flags):
    return subprocess.run(
        [sys.executable, "-m", "mxffi.config", *flags],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_config_prints_existing_directories():
    proc = _config("--includedir", "--libdir", "--cmakedir")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 3, proc.stdout
    include_dir, lib_dir, cmake_dir = map(pathlib.Path, lines)
    assert (include_dir / "mxffi" / "c_api.h").is_file()
    assert (lib_dir / "libmxffi.so").is_file()
    assert (cmake_dir / "mxffiConfig.cmake").is_file()
    assert (cmake_dir / "mxffiConfigVersion.cmake").is_file()


def test_config_answers_match_libinfo():
    proc = _config("--cmakedir")
    assert proc.stdout.strip() == libinfo.cmake_dir()
    assert _config("--includedir").stdout.strip() == libinfo.include_dir()


def test_config_without_flags_prints_usage_and_fails():
    proc = _config()
    assert proc.returncode == 2
    assert "usage: python -m mxffi.config" in proc.stdout
    assert "--cmakedir" in proc.stdout


def test_find_lib_missing_library_names_the_path():
    with pytest.raises(OSError) as info:
        libinfo.find_lib("no_such_library")
    assert "libno_such_library.so is missing" in str(info.value)


# ---------------------------------------------------------------------------------------------
# Versions read from their one place


def test_package_version_is_the_one_in_pyproject():
    with open(ROOT / "pyproject.toml", "rb") as f:
        version = tomllib.load(f)["project"]["version"]
    assert mxffi.__version__ == version


def test_abi_version_is_the_one_in_c_api_header():
    from mxffi._ffi import core

    header = (ROOT / "include" / "mxffi" / "c_api.h").read_text()
    expected = tuple(
        int(re.search(rf"#define MXFFI_VERSION_{part} (\d+)", header).group(1))
        for part in ("MAJOR", "MINOR", "PATCH")
    )
    assert core.abi_version() == expected


# ---------------------------------------------------------------------------------------------
# Free-threaded Python is refused


def test_check_gil_build_refuses_free_threaded_python():
    asked = []

    def fake_get_config_var(name):
        asked.append(name)
        return 1 if name == "Py_GIL_DISABLED" else None

    with pytest.raises(ImportError) as info:
        libinfo.check_gil_build(fake_get_config_var)
    assert "Py_GIL_DISABLED" in asked
    message = str(info.value)
    assert "mxffi does not support free-threaded Python" in message
    assert "--disable-gil" in message


@pytest.mark.parametrize("value", [0, None], ids=["0", "None"])
def test_check_gil_build_passes_regular_python(value):
    assert libinfo.check_gil_build(lambda name: value) is None


# ---------------------------------------------------------------------------------------------
# OpenBLAS's kernels are named for the CPU's features while libmxffi loads

AVX512 = {"AVX512F", "AVX512CD", "AVX512BW", "AVX512DQ", "AVX512VL"}


@pytest.mark.parametrize(
    "features, core",
    [
        (AVX512 | {"AVX2", "FMA3", "SSE42"}, "SKYLAKEX"),
        ((AVX512 - {"AVX512DQ"}) | {"AVX2", "FMA3"}, "HASWELL"),
        ({"AVX2", "FMA3", "SSE42"}, "HASWELL"),
        ({"AVX2", "SSE42"}, None),
        ({"FMA3", "AVX"}, None),
        (set(), None),
    ],
    ids=["avx512", "avx512-without-dq", "avx2-fma", "avx2-without-fma", "avx-fma", "none"],
)
def test_openblas_core_type_follows_the_cpu_features(features, core):
    assert libinfo.openblas_core_type(frozenset(features)) == core


def test_openblas_core_type_is_set_while_loading_and_removed_after():
    environ = {"PATH": "/bin"}
    features = frozenset(AVX512 | {"AVX2", "FMA3"})
    with libinfo.openblas_core_type_set(environ, features, "x86_64") as c:
        assert c == "SKYLAKEX"
        assert environ["OPENBLAS_CORETYPE"] == "SKYLAKEX"
    assert environ == {"PATH": "/bin"}


@pytest.mark.parametrize(
    "environ, features, machine",
    [
        ({"OPENBLAS_CORETYPE": "Prescott"}, AVX512, "x86_64"),  # the user's choice stands
        ({}, {"AVX2", "FMA3"}, "aarch64"),
        ({}, {"SSE42"}, "x86_64"),
        ({}, set(), "x86_64"),  # numpy is not there to say
    ],
    ids=["set-by-user", "not-x86", "no-avx2", "unknown"],
)
def test_openblas_core_type_is_left_alone(environ, features, machine):
    before = dict(environ)
    with libinfo.openblas_core_type_set(environ, frozenset(features), machine) as core:
        assert core is None
        assert environ == before
    assert environ == before


def test_openblas_core_type_is_removed_when_loading_fails():
    environ = {}
    with pytest.raises(ImportError):
        with libinfo.openblas_core_type_set(environ, frozenset({"AVX2", "FMA3"}), "AMD64"):
            assert environ == {"OPENBLAS_CORETYPE": "HASWELL"}
            raise ImportError("the library did not load")
    assert environ == {}


def test_unknown_ffi_backend_is_refused_at_import():
    proc = run_python("import mxffi", env={"MXFFI_FFI": "nonsense"})
    assert proc.returncode != 0
    assert "ImportError: mxffi: MXFFI_FFI must be 'cython' or 'ctypes', got 'nonsense'" in (
        proc.stderr
    )


# ---------------------------------------------------------------------------------------------
# The ctypes implementation gives the same results

_BACKEND_SCRIPT = """
import json
import mxffi
import mxffi.testing as t

def plain(v):
    if isinstance(v, mxffi.ADT):
        return {"adt": [v.tag, [plain(x) for x in v]]}
    if isinstance(v, mxffi.Map):
        return {"map": [[plain(k), plain(x)] for k, x in v.items()]}
    if isinstance(v, (mxffi.Array, list)):
        return {"array": [plain(x) for x in v]}
    if isinstance(v, mxffi.Shape):
        return {"shape": list(v)}
    if isinstance(v, bytes):
        return {"bytes": v.hex()}
    if isinstance(v, (mxffi.DataType, mxffi.Device)):
        return {type(v).__name__: str(v)}
    return [type(v).__name__, v]

def outcome(call):
    try:
        return ["ok", plain(call())]
    except BaseException as exc:
        return ["raised", type(exc).__name__, isinstance(exc, mxffi.MXFFIError), str(exc)]

class Custom(Exception):
    pass

def fail(x):
    raise Custom(f"callback failed with {x}")

results = {
    "backend": mxffi._ffi.backend,
    "add": outcome(lambda: t.add(1, 2)),
    "add_default": outcome(lambda: t.add(41)),
    "add_kw": outcome(lambda: t.add(b=5, a=1)),
    "add_overflow": outcome(lambda: t.add(2**63 - 1, 1)),
    "add_bad_kw": outcome(lambda: t.add(1, c=2)),
    "echo_none": outcome(lambda: t.echo(None)),
    "echo_bool": outcome(lambda: t.echo(True)),
    "echo_float": outcome(lambda: t.echo(2.5)),
    "echo_str": outcome(lambda: t.echo("héllo wörld")),
    "echo_short": outcome(lambda: t.echo("abc")),
    "echo_bytes": outcome(lambda: t.echo(b"a\\0b" * 4)),
    "echo_list": outcome(lambda: t.echo([1, "two", 3.0, [4]])),
    "echo_dict": outcome(lambda: t.echo({"a": 1, "b": [2]})),
    "echo_shape": outcome(lambda: t.echo(mxffi.Shape([2, 3]))),
    "echo_dtype": outcome(lambda: t.echo(mxffi.DataType("float32"))),
    "echo_device": outcome(lambda: t.echo(mxffi.Device("cpu", 0))),
    "str_len": outcome(lambda: t.str_len("héllo")),
    "raise_value": outcome(lambda: t.raise_error("ValueError", "bad value")),
    "raise_key": outcome(lambda: t.raise_error("IndexError", "bad index")),
    "raise_custom": outcome(lambda: t.raise_error("MyKind", "custom")),
    "apply": outcome(lambda: t.apply(lambda a, b: a * b, 6, 7)),
    "apply_str": outcome(lambda: t.apply(lambda s: s + "!", "hi")),
    "apply_raises": outcome(lambda: t.apply(fail, 3)),
    "apply_in_thread": outcome(lambda: t.apply_in_thread(lambda a: a + 1, 41)),
    "containers": outcome(t.make_containers),
}
print(json.dumps(results))
"""


def _backend_results(name):
    proc = run_python(_BACKEND_SCRIPT, env={"MXFFI_FFI": name})
    assert proc.returncode == 0, f"MXFFI_FFI={name}: {proc.stderr[-3000:]}"
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def cython_results():
    return _backend_results("cython")


def test_cython_backend_results_are_right(cython_results):
    r = cython_results
    assert r["backend"] == "cython"
    assert r["add"] == ["ok", ["int", 3]]
    assert r["add_default"] == ["ok", ["int", 42]]
    assert r["add_kw"] == ["ok", ["int", 6]]
    assert r["add_overflow"][:3] == ["raised", "OverflowError", True]
    assert r["add_bad_kw"][:2] == ["raised", "TypeError"]
    assert r["echo_str"] == ["ok", ["str", "héllo wörld"]]
    assert r["echo_list"] == [
        "ok",
        {"array": [["int", 1], ["str", "two"], ["float", 3.0], {"array": [["int", 4]]}]},
    ]
    assert r["str_len"] == ["ok", ["int", 6]]
    assert r["raise_value"] == ["raised", "ValueError", True, "bad value"]
    assert r["raise_custom"] == ["raised", "MyKind", True, "custom"]
    assert r["apply"] == ["ok", ["int", 42]]
    assert r["apply_raises"] == ["raised", "Custom", False, "callback failed with 3"]
    assert r["apply_in_thread"] == ["ok", ["int", 42]]
    assert r["containers"] == [
        "ok",
        {
            "map": [
                [["str", "array"], {"array": [["int", 1], ["str", "two"], ["float", 3.0]]}],
                [["str", "shape"], {"shape": [2, 3]}],
                [["str", "adt"], {"adt": [7, [["int", 1], ["str", "x"]]]}],
            ]
        },
    ]


def test_ctypes_backend_gives_the_same_results(cython_results):
    ctypes_results = _backend_results("ctypes")
    assert ctypes_results["backend"] == "ctypes"
    mismatches = {
        key: {"cython": expected, "ctypes": ctypes_results.get(key)}
        for key, expected in cython_results.items()
        if key != "backend" and ctypes_results.get(key) != expected
    }
    assert mismatches == {}


# ---------------------------------------------------------------------------------------------
# An outside project built against the installed package, loaded at run time


@pytest.fixture(scope="module")
def consumer_build(tmp_path_factory):
    return build_cmake_project(
        ROOT / "tests" / "consumer", tmp_path_factory.mktemp("consumer") / "build"
    )


def test_consumer_library_loads_and_its_function_is_callable(consumer_build):
    path = consumer_build / "libconsumer_ops.so"
    assert path.is_file()
    lib = mxffi.library.load(path)
    assert isinstance(lib, mxffi.library.Library)
    assert "consumer.greet" in mxffi.list_global_func_names()
    greet = mxffi.get_global_func("consumer.greet")
    assert greet("bob", times=2) == "hello, bob! hello, bob! "
    assert greet("bob") == "hello, bob! "
    assert greet(name="ann", times=0) == ""


def test_consumer_library_loaded_twice_is_the_same_library(consumer_build):
    path = consumer_build / "libconsumer_ops.so"
    first = mxffi.library.load(path)
    assert mxffi.library.load(str(path)) is first


def test_consumer_program_runs_against_the_installed_library(consumer_build):
    proc = subprocess.run(
        [str(consumer_build / "consumer_main")], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert "consumer.greet('consumer', 2) = hello, consumer! hello, consumer!" in proc.stdout


def test_load_missing_path_names_it(tmp_path):
    missing = tmp_path / "libnothing.so"
    with pytest.raises(ValueError) as info:
        mxffi.library.load(missing)
    assert str(info.value) == f"mxffi.library.load: {missing} does not exist"


def test_load_non_library_file_names_it(tmp_path):
    not_a_library = tmp_path / "notes.so"
    not_a_library.write_text("this is not an ELF file\n")
    with pytest.raises(ValueError) as info:
        mxffi.library.load(not_a_library)
    message = str(info.value)
    assert str(not_a_library) in message
    assert message.startswith("library.load: cannot load")


def test_load_rejects_bytes_path():
    with pytest.raises(TypeError) as info:
        mxffi.library.load(b"/tmp/libx.so")
    assert str(info.value) == (
        "mxffi.library.load: path must be a str or os.PathLike naming a file, got bytes"
    )


def test_load_rejects_non_path():
    with pytest.raises(TypeError, match="int"):
        mxffi.library.load(42)


def test_load_directory_names_it(tmp_path):
    with pytest.raises(ValueError) as info:
        mxffi.library.load(tmp_path)
    assert os.fspath(tmp_path) in str(info.value)
