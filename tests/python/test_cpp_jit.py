"""mxffi.cpp: C++ (and CUDA) built from Python, cached, safe to build from several processes.

Compiler runs are counted through a wrapper script set as the compiler ($CXX): it appends one
line per run to a log, then runs g++. Each test has its own cache folder ($MXFFI_CACHE_DIR);
builds that must not see this process's state (the cache hit, the concurrent builds) run in
fresh interpreters.
"""

import inspect
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
import time

import pytest
from conftest import SANITIZED

import mxffi
import mxffi.cpp

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to build with")

SOURCE = textwrap.dedent(
    """\
    #include <string>
    #include <string_view>

    // add(int x) in a comment is not the definition
    int64_t add(int64_t a, int64_t b = 10) { return a + b; }
    std::string greet(std::string_view who) { return "hello " + std::string(who); }
    double scale(double x, double factor) noexcept { return x * factor; }
    """
)


def _wrapper(tmp_path, delay=0.0):
    """A $CXX that logs each run (its arguments) to tmp_path/runs.log, then runs g++."""
    log = tmp_path / "runs.log"
    script = tmp_path / "counting-g++"
    script.write_text(
        "#!/bin/sh\n"
        f'echo "$*" >> "{log}"\n'
        f'case "$*" in *--version*) ;; *) sleep {delay} ;; esac\n'
        f'exec "{shutil.which("g++")}" "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), log


def _runs(log, compiles_only=True):
    if not log.exists():
        return []
    lines = log.read_text().splitlines()
    return [ln for ln in lines if not (compiles_only and "--version" in ln)]


def _env(tmp_path, cxx):
    env = dict(os.environ, MXFFI_CACHE_DIR=str(tmp_path / "cache"), CXX=cxx)
    return env


_CHILD = textwrap.dedent(
    """\
    import sys
    import mxffi.cpp
    mod = mxffi.cpp.load_inline("jit_child", sys.argv[1], functions=["add"])
    print(mod.add(40, 2))
    """
)


def _child(env, source=SOURCE):
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, source],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MXFFI_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_load_inline_exports_typed_functions(cache):
    mod = mxffi.cpp.load_inline(
        "jit_basic", SOURCE, functions={"add": "Add two ints.", "greet": "", "scale": ""}
    )
    assert mod.add(1, 2) == 3
    assert mod.add(5) == 15  # the C++ default argument
    assert mod.add(a=1, b=-4) == -3
    assert mod.greet("bob") == "hello bob"
    assert mod.scale(2.0, 3) == 6.0
    assert mod.__all__ == ["add", "greet", "scale"]
    assert str(inspect.signature(mod.add)) == "(a: int, b: int = 10) -> int"
    assert str(inspect.signature(mod.greet)) == "(who: str) -> str"
    assert mod.add.__doc__.startswith("Add two ints.")
    with pytest.raises(TypeError, match=r"^jit_basic\.add: argument #0 'a' expected int, got str"):
        mod.add("x")
    path = mxffi.cpp.build(
        "jit_basic", SOURCE, functions={"add": "Add two ints.", "greet": "", "scale": ""}
    )
    assert path == mod.__file__ and path.startswith(str(cache))
    assert os.path.basename(path) == "libjit_basic.so"
    # The same build loaded again in this process is the same module.
    assert (
        mxffi.cpp.load_inline(
            "jit_basic", SOURCE, functions={"add": "Add two ints.", "greet": "", "scale": ""}
        )
        is mod
    )


def test_register_api_sources_work_too(cache):
    src = textwrap.dedent(
        """\
        MXFFI_REGISTER_API("jit_reg.twice")
            .describe("Twice x.")
            .arg("x")
            .set_body_typed([](int64_t x) { return 2 * x; });
        MXFFI_REGISTER_API("jit_other.area.thrice").set_body_typed([](int64_t x) { return 3 * x; });
        """
    )
    mod = mxffi.cpp.load_inline("jit_reg", src)
    assert mod.twice(21) == 42
    assert mod.thrice(2) == 6
    assert str(inspect.signature(mod.twice)) == "(x: int) -> int"
    assert mxffi.get_global_func("jit_reg.twice")(4) == 8


def test_edited_source_rebuilds_under_the_same_name(cache):
    a = mxffi.cpp.load_inline("jit_edit", "int64_t f() { return 1; }", functions=["f"])
    b = mxffi.cpp.load_inline("jit_edit", "int64_t f() { return 2; }", functions=["f"])
    assert (a.f(), b.f()) == (1, 2)
    assert a.__file__ != b.__file__


def test_second_build_is_a_cache_hit_without_running_the_compiler(tmp_path):
    cxx, log = _wrapper(tmp_path)
    env = _env(tmp_path, cxx)
    first = _child(env)
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert out.strip() == "42"
    assert len(_runs(log)) == 1  # one g++ run compiles and links
    assert len(_runs(log, compiles_only=False)) == 2  # and one asks its version
    second = _child(env)
    out, err = second.communicate(timeout=300)
    assert second.returncode == 0, err
    assert out.strip() == "42"
    assert len(_runs(log, compiles_only=False)) == 2  # nothing ran, not even --version
    # Another source is another build.
    third = _child(env, SOURCE + "\nint64_t unused() { return 0; }\n")
    out, err = third.communicate(timeout=300)
    assert third.returncode == 0, err
    assert len(_runs(log)) == 2


def test_four_processes_building_at_once_compile_once(tmp_path):
    cxx, log = _wrapper(tmp_path, delay=1.0)  # a slow compile widens the race
    env = _env(tmp_path, cxx)
    procs = [_child(env) for _ in range(4)]
    results = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0, err
        assert out.strip() == "42"
    assert len(_runs(log)) == 1, _runs(log)
    folder = [d for d in os.listdir(tmp_path / "cache") if d.startswith("jit_child-")]
    assert len(folder) == 2 and any(d.endswith(".lock") for d in folder)  # the build + its lock
    built = [d for d in folder if not d.endswith(".lock")][0]
    assert not [f for f in os.listdir(tmp_path / "cache" / built) if f.startswith(".")]


def test_lock_held_too_long_raises_timeout(tmp_path, monkeypatch):
    cxx, log = _wrapper(tmp_path, delay=5.0)
    env = _env(tmp_path, cxx)
    holder = _child(env)
    try:
        deadline = time.monotonic() + 120
        while not _runs(log) and time.monotonic() < deadline:  # the holder is compiling
            time.sleep(0.05)
        assert _runs(log), "the first build never started compiling"
        monkeypatch.setenv("MXFFI_CACHE_DIR", env["MXFFI_CACHE_DIR"])
        monkeypatch.setenv("CXX", cxx)
        with pytest.raises(TimeoutError) as info:
            mxffi.cpp.build("jit_child", SOURCE, functions=["add"], lock_timeout=0.3)
        msg = str(info.value)
        assert msg.startswith("mxffi.cpp.build: waited 0.3 s for another process building")
        assert "'jit_child'" in msg and ".lock" in msg and "lock_timeout" in msg
    finally:
        holder.communicate(timeout=300)
    assert holder.returncode == 0
    # Once the lock is free the build is a cache hit.
    path = mxffi.cpp.build("jit_child", SOURCE, functions=["add"], lock_timeout=0.3)
    assert os.path.exists(path)
    assert len(_runs(log)) == 1


def test_compile_error_carries_the_diagnostics(cache):
    src = "int64_t broken(int64_t x) { return x + not_declared_anywhere; }\n"
    with pytest.raises(mxffi.cpp.CompileError) as info:
        mxffi.cpp.load_inline("jit_broken", src, functions=["broken"])
    err = info.value
    assert isinstance(err, RuntimeError)
    msg = str(err)
    assert msg.startswith("mxffi.cpp.load_inline: building 'jit_broken' failed: g++ exited with 1")
    said = re.compile(r"main\.cpp:1:\d+: error: .not_declared_anywhere. was not declared")
    assert said.search(msg) and said.search(err.output)
    assert "1 | int64_t broken(int64_t x)" in msg  # the line shown is the source's own
    assert err.command[0].endswith("g++") and "main.cpp" in err.command
    # Nothing half-built is left to be taken for a library.
    assert not [p for p in cache.rglob("*.so")]


def test_literal_defaults_become_python_defaults(cache):
    src = textwrap.dedent(
        """\
        #include <string>
        std::string fmt(std::string s = "ab", bool flag = true, double x = -1.5e3,
                        int64_t n = 0x10) {
          return s + (flag ? "1" : "0") + std::to_string(static_cast<int64_t>(x) + n);
        }
        """
    )
    mod = mxffi.cpp.load_inline("jit_defaults", src, functions=["fmt"])
    assert str(inspect.signature(mod.fmt)) == (
        "(s: str = 'ab', flag: bool = True, x: float = -1500.0, n: int = 16) -> str"
    )
    assert mod.fmt() == "ab1-1484"
    assert mod.fmt("z", flag=False) == "z0-1484"


def test_a_default_that_is_no_literal_is_refused_before_compiling(tmp_path, monkeypatch):
    cxx, log = _wrapper(tmp_path)
    monkeypatch.setenv("MXFFI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CXX", cxx)
    src = "#include <vector>\nint64_t n(std::vector<int64_t> v = {1, 2}) { return v.size(); }\n"
    with pytest.raises(ValueError) as info:
        mxffi.cpp.load_inline("jit_nolit", src, functions=["n"])
    assert str(info.value) == (
        "mxffi.cpp.load_inline: the default of argument 'v' of n ({1, 2}) is not a literal (a "
        "number, true, false, nullptr or a string); give the function a literal default, or "
        "register it with MXFFI_REGISTER_API and .arg(name, default)"
    )
    assert _runs(log) == []  # refused before any compile


def test_a_function_listed_but_missing_is_a_compile_error(cache):
    with pytest.raises(mxffi.cpp.CompileError, match="main.cpp:.*.nope. was not declared"):
        mxffi.cpp.load_inline("jit_missing", "int64_t f() { return 1; }", functions=["nope"])


def test_bad_arguments(cache):
    with pytest.raises(ValueError, match=r"^mxffi.cpp.load_inline: name must be an identifier"):
        mxffi.cpp.load_inline("my-ext", "")
    with pytest.raises(TypeError, match=r"cpp_sources\[1\] must be a str, got int: 3"):
        mxffi.cpp.load_inline("ok", ["", 3])
    with pytest.raises(ValueError, match=r"functions must name C\+\+ functions.*got 'a b'"):
        mxffi.cpp.load_inline("ok", "", functions=["a b"])
    with pytest.raises(ValueError, match=r"cuda_architectures must be compute capabilities"):
        mxffi.cpp._cuda_architectures(["sm_9x"], "mxffi.cpp.load_inline")
    assert mxffi.cpp._cuda_architectures("sm_90;8.0", "x") == ["80", "90"]


def test_parameters_are_read_from_the_definition():
    read = mxffi.cpp.parameters_of
    src = textwrap.dedent(
        """\
        int64_t f(int64_t a, int64_t b);  // a declaration names them too
        void caller() { f(1, 2); }
        std::vector<int> g(const std::map<int, int>& m, double scale = 2.0) { return {}; }
        auto h(int) -> int { return 0; }
        void none(void) {}
        const char* s = "k(int q)";
        """
    )
    assert read(src, "f") == [("a", None), ("b", None)]
    assert read(src, "g") == [("m", None), ("scale", "2.0")]
    assert read(src, "h") is None  # unnamed: exported positionally
    assert read(src, "none") == []
    assert read(src, "k") is None  # only inside a string
    assert read(src, "ns::f") == [("a", None), ("b", None)]


def test_import_compiles_nothing(tmp_path):
    cxx, log = _wrapper(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", "import mxffi, mxffi.cpp, mxffi.testing"],
        env=_env(tmp_path, cxx),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert _runs(log, compiles_only=False) == []
    assert not (tmp_path / "cache").exists()


CUDA_CPP = "int64_t gpu_sum(int64_t n);  // defined in the CUDA source\n"
CUDA_SOURCE = textwrap.dedent(
    """\
    #include <cuda_runtime.h>
    #include <mxffi/error.h>

    __global__ void fill(int64_t* out, int64_t n) {
      int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
      if (i < n) atomicAdd(reinterpret_cast<unsigned long long*>(out),
                           static_cast<unsigned long long>(i));
    }

    int64_t gpu_sum(int64_t n) {
      int64_t* d = nullptr;
      cudaError_t err = cudaMalloc(&d, sizeof(int64_t));
      MXFFI_CHECK(err == cudaSuccess, RuntimeError) << "gpu_sum: " << cudaGetErrorString(err);
      cudaMemset(d, 0, sizeof(int64_t));
      fill<<<(n + 255) / 256, 256>>>(d, n);
      int64_t h = 0;
      err = cudaMemcpy(&h, d, sizeof(int64_t), cudaMemcpyDeviceToHost);
      cudaFree(d);
      MXFFI_CHECK(err == cudaSuccess, RuntimeError) << "gpu_sum: " << cudaGetErrorString(err);
      return h;
    }
    """
)


def _has_gpu():
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


@pytest.mark.skipif(
    shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda/bin/nvcc"),
    reason="no nvcc",
)
@pytest.mark.skipif(
    SANITIZED == "address", reason="nvcc itself crashes with AddressSanitizer's runtime preloaded"
)
def test_cuda_source_builds(cache):
    path = mxffi.cpp.build(
        "jit_cuda",
        CUDA_CPP,
        cuda_sources=CUDA_SOURCE,
        functions=["gpu_sum"],
        cuda_architectures=None if _has_gpu() else ["90"],
    )
    assert os.path.exists(path)
    log = open(os.path.join(os.path.dirname(path), "build.log")).read()
    assert "nvcc" in log and "-gencode=arch=compute_90,code=sm_90" in log or _has_gpu()
    if not _has_gpu():
        pytest.skip("built; no GPU to run it on")
    mod = mxffi.cpp.load_inline(
        "jit_cuda", CUDA_CPP, cuda_sources=CUDA_SOURCE, functions=["gpu_sum"]
    )
    assert mod.gpu_sum(1000) == 999 * 1000 // 2


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_jit_page_is_cut_from_its_tested_example(tmp_path):
    from test_docs import _cut_blocks, _regions

    example = os.path.join(ROOT, "docs", "examples", "jit_tour.py")
    out = subprocess.run(
        [sys.executable, example],
        env=dict(os.environ, MXFFI_CACHE_DIR=str(tmp_path / "cache")),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("jit_tour: ok")
    with open(os.path.join(ROOT, "docs", "jit.md")) as f:
        blocks, uncut = _cut_blocks(f.read())
    assert uncut == [], f"docs/jit.md: fenced blocks at lines {uncut} are not cut"
    with open(example) as f:
        regions = _regions(f.read())
    assert sorted(name for _, _, name, _ in blocks) == sorted(regions)
    for line, path, name, text in blocks:
        assert path == "docs/examples/jit_tour.py"
        assert text == regions[name], f"docs/jit.md:{line}: block '{name}' differs"


def test_a_module_may_not_replace_a_function_it_did_not_export(cache):
    # An edited build replaces its own module's functions; a name mxffi registered is refused
    # before the library is loaded, and testing.add stays the built-in one.
    import mxffi.testing  # registers the testing.* functions

    with pytest.raises(ValueError, match=r"testing\.add already registered by mxffi or another"):
        mxffi.cpp.load_inline(
            "testing", "int64_t add(int64_t a, int64_t b) { return 0; }", functions=["add"]
        )
    assert mxffi.testing.add(2, 3) == 5


def test_the_installed_headers_carry_dlpack():
    # mxffi's headers include <dlpack/dlpack.h>: the package ships the one it was built with, so
    # mxffi.cpp (and find_package(mxffi)) build on a machine without DLPack of its own.
    from mxffi._ffi import libinfo

    path = os.path.join(libinfo.include_dir(), "dlpack", "dlpack.h")
    assert os.path.isfile(path), path
    with open(path, encoding="utf-8") as f:
        assert re.search(r"^#define DLPACK_VERSION \d+", f.read(), re.M)
