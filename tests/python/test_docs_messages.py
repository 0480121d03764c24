"""What the docs and the tour say about messages, names and files is what the code does: each
test reads the claim from its page (or runs the program) and checks it against the real thing,
so a change on either side fails here."""

import builtins
import contextlib
import io
import os
import pickle
import re
import shutil
import subprocess
import sys

import pytest

import mxffi
import mxffi.error
import mxffi.testing
from mxffi._ffi import libinfo
from mxffi._ffi.error import _BUILTIN_KINDS

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def test_readme_names_the_soname_of_the_installed_library():
    if shutil.which("readelf") is None:
        pytest.skip("no readelf")
    out = subprocess.run(
        ["readelf", "-d", libinfo.find_lib("mxffi")], capture_output=True, text=True, check=True
    )
    soname = re.search(r"Library soname: \[([^\]]+)\]", out.stdout).group(1)
    readme = " ".join(_read("README.md").split())
    assert f"ships one file with SONAME `{soname}`" in readme
    # A CMake install versions it by the C ABI major (CMakeLists.txt, outside scikit-build).
    assert "a CMake install names the library `libmxffi.so.<major>`, its SONAME" in readme
    assert "SOVERSION ${MXFFI_ABI_MAJOR}" in _read("CMakeLists.txt")


def _doc_message(page, prefix):
    """The message template in backticks that follows `prefix` on the page (joined lines)."""
    text = " ".join(_read("docs", page).split())
    start = text.index(prefix) + len(prefix)
    return text[start:].split("`")[1]


def test_register_api_page_quotes_the_library_load_messages(tmp_path):
    missing = str(tmp_path / "libnothing.so")
    with pytest.raises(ValueError) as info:
        mxffi.library.load(missing)
    template = _doc_message("register_api.md", "A path where there is no file raises `ValueError`")
    assert str(info.value) == template.replace("<path>", missing)

    not_elf = tmp_path / "libtext.so"
    not_elf.write_text("not a library")
    with pytest.raises(ValueError) as info:
        mxffi.library.load(str(not_elf))
    template = _doc_message("register_api.md", "A file that cannot be loaded raises `ValueError`:")
    assert template == "library.load: cannot load <path>: <reason>"
    head = template.replace("<path>", str(not_elf)).replace("<reason>", "")
    assert str(info.value).startswith(head) and len(str(info.value)) > len(head)


def test_error_classes_are_importable_where_their_names_say():
    warnings = {"MXFFIWarning", "StorageFallbackWarning", "ComplexWarning"}
    numpy_kinds = {"AxisError", "LinAlgError"}  # numpy's classes where numpy is installed
    assert set(_BUILTIN_KINDS) | numpy_kinds | {"MXFFIError"} | warnings == set(mxffi.error.__all__)
    for kind in numpy_kinds:  # raised from C++, importable by the name their repr shows
        with pytest.raises(mxffi.error.MXFFIError) as info:
            mxffi.testing.raise_error(kind, "from C++")
        cls = type(info.value)
        assert f"{cls.__module__}.{cls.__qualname__}" == f"mxffi.error.{kind}"
        assert getattr(mxffi.error, kind) is cls
        assert pickle.loads(pickle.dumps(cls)) is cls
    for name in warnings:  # the warning classes too, by the name their repr shows
        cls = getattr(mxffi.error, name)
        assert f"{cls.__module__}.{cls.__qualname__}" == f"mxffi.error.{name}"
        assert pickle.loads(pickle.dumps(cls)) is cls and issubclass(cls, UserWarning)
    for kind in _BUILTIN_KINDS:
        with pytest.raises(getattr(builtins, kind)) as info:
            mxffi.testing.raise_error(kind, "from C++")
        cls = type(info.value)
        assert f"{cls.__module__}.{cls.__qualname__}" == f"mxffi.error.{kind}"
        assert getattr(mxffi.error, kind) is cls
        assert pickle.loads(pickle.dumps(cls)) is cls
        assert issubclass(cls, mxffi.error.MXFFIError)


def _tour_blocks(text):
    """[(code, output lines)] of each `>>>` entry the tour printed, up to the timing table."""
    text = text.split("\n== call latency")[0]
    blocks, cur = [], None
    for line in text.splitlines():
        if line.startswith(">>> "):
            cur = [line[4:], []]
            blocks.append(cur)
        elif line.startswith("... ") or line == "... ":
            cur[0] += "\n" + line[4:]
        elif cur is not None and line and not line.startswith("== "):
            cur[1].append(line)
        else:
            cur = None
    return blocks


@pytest.mark.skipif(mxffi._ffi.backend != "cython", reason="the tour's replay needs mxffi.np")
def test_python_m_mxffi_runs_every_line_it_shows():
    # The tour prints each line it runs after ">>>"; run those lines again, in order, as the
    # interactive prompt would, and each prints what the tour printed.
    env = {k: v for k, v in os.environ.items() if k != "MXFFI_FFI"}
    out = subprocess.run(
        [sys.executable, "-m", "mxffi", "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert out.returncode == 0, out.stderr
    blocks = _tour_blocks(out.stdout)
    assert len(blocks) >= 20
    shown = [c for c, _ in blocks]
    assert "mxffi.np.quadratic(x, a=1, b=-2, c=0.5).tolist()[0]" in shown
    ns = {"__name__": "__main__", "mxffi": mxffi, "inspect": __import__("inspect")}
    for source, expected in blocks:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                exec(compile(source + "\n", "<replay>", "single"), ns)
            except Exception as e:
                cls = type(e)
                name = cls.__qualname__
                if cls.__module__ not in ("builtins", "__main__"):
                    name = f"{cls.__module__}.{name}"
                print(f"{name}: {e}")
        assert buf.getvalue().splitlines() == expected, source
    # The table says which way its ratio reads.
    assert "| its ns / mxffi (vectorcall)'s ns |" in out.stdout


@pytest.mark.skipif(mxffi._ffi.backend != "cython", reason="frames of the Cython core")
def test_cython_frames_name_files_that_exist_in_the_package():
    # A traceback through the Cython core names its sources by absolute path where the package
    # runs from the sources (an editable install), and by their path inside the package
    # (mxffi/_ffi/cython/function.pxi) in a wheel, whose files Python's linecache finds below
    # site-packages through sys.path. Either way the file is the imported package's own.
    import traceback

    with pytest.raises(TypeError) as info:
        mxffi.testing.add(1, "two")
    frames = [f.filename for f in traceback.extract_tb(info.value.__traceback__)]
    cython = [f for f in frames if f.endswith((".pyx", ".pxi"))]
    assert cython, frames
    root = os.path.dirname(os.path.dirname(os.path.abspath(mxffi.__file__)))
    for name in cython:
        if not os.path.isabs(name):
            assert name.startswith("mxffi/_ffi/cython/"), name
        path = os.path.join(root, name)
        assert os.path.exists(path), name
        assert os.path.samefile(
            path, os.path.join(root, "mxffi/_ffi/cython", os.path.basename(name))
        )
