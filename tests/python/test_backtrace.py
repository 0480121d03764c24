"""What a C++ error's backtrace shows, and where Python tracebacks through the Cython core point.

A C++ frame reads ``name at file:line (library)`` where the library carries debug info and
elfutils' libdw was found at build time (``error.symbolizer`` says which), ``name
(library+0xoffset)`` where only the symbol tables know it, and ``?? (library+0xoffset)`` where
nothing does; the error machinery's own frames (MXFFI_THROW's builder) are left out. The testing
library carries debug info in the build the test command makes (MXFFI_ABI_DEBUG_INFO=ON), and
mxffi.cpp builds a module with and without it. Python frames inside the Cython core name files
that exist: absolute paths in a build from the sources, paths below site-packages in a wheel.
"""

import linecache
import os
import re
import shutil
import sys
import textwrap
import threading
import traceback
from pathlib import Path

import pytest

import mxffi
import mxffi.np as mx
import mxffi.testing as t
from mxffi.error import MXFFIError

ROOT = Path(__file__).resolve().parents[2]
SYMBOLIZER = mxffi.get_global_func("error.symbolizer")()
FRAME = re.compile(
    r"^  \[(?P<index>\d+)\] (?P<name>.+?)"
    r"(?: at (?P<file>\S+):(?P<line>\d+) \((?P<lib>[^()]+)\)"
    r"| \((?P<lib2>[^()]*)\+0x[0-9a-f]+\))$"
)
NEEDS_LIBDW = pytest.mark.skipif(
    SYMBOLIZER != "libdw",
    reason="this build found no libdw (pkg-config libdw): backtraces name functions only",
)


def _frames(backtrace):
    lines = backtrace.splitlines()
    matches = [FRAME.match(line) for line in lines]
    bad = [line for line, m in zip(lines, matches, strict=True) if m is None]
    assert not bad, f"frames not in the documented format: {bad[:3]}"
    assert [int(m["index"]) for m in matches] == list(range(len(matches)))
    return matches


def _raised(call):
    try:
        call()
    except MXFFIError as e:
        return e
    raise AssertionError("no error raised")


def _line_of(path, marker, text):
    """The number of the first line holding text after the line holding marker."""
    lines = Path(path).read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if marker in ln)
    return next(i for i in range(start, len(lines)) if text in lines[i]) + 1


def _has_debug_info(library):
    # the section names are in the file's section header string table, kept by strip only for
    # the sections it keeps
    return b".debug_info" in Path(library).read_bytes()


def _testing_library():
    e = _raised(lambda: t.raise_error("ValueError", "where"))
    return _frames(e.cpp_backtrace)[0]


def test_every_frame_has_the_documented_format_and_a_name_where_one_is_known():
    e = _raised(lambda: mx.reshape(mx.ones((3,)), (5,)))
    frames = _frames(e.cpp_backtrace)
    ours = [m for m in frames if "/libmxffi" in (m["lib"] or m["lib2"])]
    assert ours, e.cpp_backtrace
    if SYMBOLIZER == "libdw":
        # libmxffi keeps its symbol tables: every frame in it is named, internal functions too
        assert all(m["name"] != "??" for m in ours), e.cpp_backtrace
        assert "Reshape" in frames[0]["name"], e.cpp_backtrace


@pytest.mark.parametrize(
    "call",
    [
        lambda: mx.reshape(mx.ones((3,)), (5,)),
        lambda: mxffi.np.zeros((2,), dtype="no-such-dtype"),
        lambda: mxffi.get_global_func("error.set_foreign")("ValueError", "m", "", 1, 12345),
    ],
    ids=["reshape", "dtype", "set-foreign"],
)
def test_the_first_frame_is_the_raising_code_not_the_error_machinery(call):
    e = _raised(call)
    first = _frames(e.cpp_backtrace)[0]
    assert "ErrorBuilder" not in first["name"] and "mxffi::Error::Error" not in first["name"]
    assert not (first["file"] or "").endswith("mxffi/error.h"), e.cpp_backtrace


@NEEDS_LIBDW
def test_a_frame_with_debug_info_names_the_source_line():
    first = _testing_library()
    if first["file"] is None and not _has_debug_info(first["lib2"]):
        pytest.skip("the testing library has no debug info (build with MXFFI_ABI_DEBUG_INFO=ON)")
    # the standard library's strings are named as written (the lambda takes two std::string)
    bt = _raised(lambda: t.raise_error("ValueError", "where")).cpp_backtrace
    assert "std::string, std::string" in bt and "basic_string<char" not in bt, bt
    source = ROOT / "src" / "testing" / "testing.cc"
    line = _line_of(source, '"testing.raise_error"', "throw Error(kind, message);")
    assert first["file"].endswith("/src/testing/testing.cc"), first.string
    assert int(first["line"]) == line, first.string
    if Path(first["file"]).exists():
        assert Path(first["file"]).samefile(source)


@NEEDS_LIBDW
def test_mxffi_throw_is_located_at_its_statement():
    # error.cc carries debug info under MXFFI_ABI_DEBUG_INFO=ON; MXFFI_CHECK's builder is
    # inlined there, and its frame (in mxffi/error.h) is left out
    e = _raised(lambda: mxffi.get_global_func("error.set_foreign")("ValueError", "m", "", 1, 7))
    first = _frames(e.cpp_backtrace)[0]
    if first["file"] is None:
        pytest.skip("libmxffi's error.cc has no debug info (build with MXFFI_ABI_DEBUG_INFO=ON)")
    line = _line_of(ROOT / "src" / "core" / "error.cc", "if (release != 0) {", "MXFFI_CHECK(")
    assert first["file"].endswith("/src/core/error.cc") and int(first["line"]) == line, first.string


def test_reading_backtraces_from_many_threads_gives_each_the_same_text():
    expected = _raised(lambda: t.raise_error("ValueError", "x")).cpp_backtrace
    head = [ln for ln in expected.splitlines() if "libmxffi" in ln]
    assert head
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch inside the formatting, not only around it
    try:
        _read_from_threads(head)
    finally:
        sys.setswitchinterval(interval)


def _read_from_threads(head):
    for _ in range(20):
        # one exception read by 8 threads at once, and 8 exceptions read one each
        shared = _raised(lambda: t.raise_error("ValueError", "x"))
        own = [_raised(lambda: t.raise_error("ValueError", "x")) for _ in range(8)]
        texts, barrier = [], threading.Barrier(8)

        def read(e, shared=shared, barrier=barrier, texts=texts):
            barrier.wait()
            texts.append((shared.cpp_backtrace, len(shared.__notes__), e.cpp_backtrace))

        threads = [threading.Thread(target=read, args=(e,)) for e in own]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert len(texts) == 8
        for common, notes, mine in texts:
            assert common == shared.cpp_backtrace and common.splitlines()[: len(head)] == head
            assert notes == 1
            # the same call site gives the same frames, up to the Python interpreter's own
            assert mine.splitlines()[: len(head)] == head


# ---------------------------------------------------------------------------------------------
# A library built by mxffi.cpp, with and without debug info, and stripped

RAISING = textwrap.dedent(
    """\
    #include <mxffi/error.h>

    int64_t fail(int64_t x) {
      if (x > 0) {
        MXFFI_THROW(ValueError) << "fail: x must not be positive, got " << x;
      }
      return x;
    }
    """
)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MXFFI_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _inline_first_frame(name, cflags, ldflags=()):
    import mxffi.cpp

    mod = mxffi.cpp.load_inline(
        name, RAISING, functions=["fail"], extra_cflags=list(cflags), extra_ldflags=list(ldflags)
    )
    e = _raised(lambda: mod.fail(3))
    assert str(e) == "fail: x must not be positive, got 3"
    return _frames(e.cpp_backtrace)[0], e.cpp_backtrace


needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ to build with")


@NEEDS_LIBDW
@needs_gxx
def test_an_inline_module_built_with_g_names_its_source_line(cache):
    first, bt = _inline_first_frame("bt_debug", ["-g"])
    assert first["name"].startswith("fail("), bt
    # the source is kept beside the module as main.cpp, from line 1
    assert first["file"] is not None and first["file"].endswith("/main.cpp"), bt
    assert Path(first["file"]).is_file(), bt
    assert int(first["line"]) == 5, bt  # the MXFFI_THROW line of RAISING
    assert "MXFFI_THROW" in Path(first["file"]).read_text().splitlines()[4]


@needs_gxx
@pytest.mark.parametrize("ldflags", [(), ("-s",)], ids=["symbols", "stripped"])
def test_an_inline_module_without_debug_info_shows_names_only(cache, ldflags):
    first, bt = _inline_first_frame(f"bt_plain{len(ldflags)}", [], ldflags)
    assert first["file"] is None, bt
    if ldflags:
        # a stripped library keeps only its exported symbols: fail() is one
        assert first["name"] in ("??",) or first["name"].startswith("fail("), bt
    elif SYMBOLIZER == "libdw":
        assert first["name"].startswith("fail("), bt


# ---------------------------------------------------------------------------------------------
# Python frames inside the Cython core


def _cython_frames(exc):
    return [
        f for f in traceback.extract_tb(exc.__traceback__) if f.filename.endswith((".pyx", ".pxi"))
    ]


def _on_disk(filename):
    if os.path.isabs(filename):
        return Path(filename)
    # a wheel's frames are relative to the folder the package was imported from
    for folder in sys.path:
        if folder and (Path(folder) / filename).is_file():
            return Path(folder) / filename
    return Path(filename)


@pytest.mark.skipif(os.environ.get("MXFFI_FFI") == "ctypes", reason="no Cython frames")
def test_tracebacks_through_the_cython_core_name_files_that_exist():
    def callback():
        raise KeyError("inner")

    errors = [_raised(lambda: t.raise_error("ValueError", "x"))]
    try:
        t.apply(callback)
    except KeyError as e:
        errors.append(e)
    package = Path(mxffi.__file__).parent / "_ffi" / "cython"
    for e in errors:
        frames = _cython_frames(e)
        assert frames, "".join(traceback.format_exception(e))
        for f in frames:
            path = _on_disk(f.filename)
            assert path.is_file(), f"{f.filename} does not exist"
            assert path.samefile(package / path.name), f"{f.filename} is not {package}"
            assert linecache.getline(f.filename, f.lineno).strip() == f.line
            assert f.line, f"no source line for {f.filename}:{f.lineno}"


@pytest.mark.skipif(os.environ.get("MXFFI_FFI") == "ctypes", reason="no Cython frames")
def test_a_wheels_package_relative_cython_names_show_their_source_lines():
    # A wheel's frames read "mxffi/_ffi/cython/<file>" (this build's are absolute): Python's
    # traceback asks the extension module's loader, which has no source, unless linecache was
    # told where the files are.
    folder = Path(mxffi.__file__).parent / "_ffi" / "cython"
    for name in ("core.pyx", "function.pxi", "convert.pxi"):
        lines = (folder / name).read_text().splitlines()
        rel = f"mxffi/_ffi/cython/{name}"
        globals_of_core = vars(sys.modules["mxffi._ffi.core"])
        assert linecache.getline(rel, len(lines), globals_of_core).rstrip("\n") == lines[-1]
