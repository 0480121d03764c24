"""Typed stubs: `python -m mxffi.stubgen`, the stubs mxffi ships, mypy on them, and signatures of
functions looked up by name (outside libraries) for help() and inspect.signature."""

import filecmp
import inspect
import os
import pydoc
import shutil
import subprocess
import sys
import textwrap

import pytest

import mxffi
import mxffi.cpp
import mxffi.ops
import mxffi.testing  # noqa: F401  (registers testing.*)
from mxffi import _stub_heads, stubgen

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE = os.path.join(ROOT, "python", "mxffi")
EXAMPLES = os.path.join(ROOT, "tests", "python", "stub_examples")


def _stubgen(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "mxffi.stubgen", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def test_shipped_stubs_equal_a_regeneration(tmp_path):
    # A fresh interpreter: libraries this test process loaded would add ops and functions.
    out = _stubgen("--package", "-o", str(tmp_path))
    assert out.returncode == 0, out.stderr
    made = sorted(os.path.relpath(p, tmp_path) for p in out.stdout.split())
    assert made == sorted(
        [
            "__init__.pyi",
            "typing.pyi",
            os.path.join("np", "__init__.pyi"),
            os.path.join("np", "linalg.pyi"),
            os.path.join("np", "fft.pyi"),
            os.path.join("nd", "sparse.pyi"),
            "testing.pyi",
            "ops.pyi",
        ]
    )
    stale = [rel for rel in made if not filecmp.cmp(tmp_path / rel, os.path.join(PACKAGE, rel))]
    assert stale == [], (
        f"python/mxffi stubs {stale} differ from the registry's signatures; regenerate them with "
        "`python -m mxffi.stubgen --package -o python/mxffi`"
    )
    assert os.path.exists(os.path.join(PACKAGE, "py.typed"))


def test_testing_area_stub():
    text = stubgen.area_stub("testing")
    assert "def add(a: int, b: int = 1) -> int: ..." in text
    assert "def concat(a: str, b: str) -> str: ..." in text
    assert "def make_point(x: int, y: float, label: str = '') -> Object: ..." in text
    assert "def apply(*args: Any) -> Any: ..." in text  # a packed body has no types
    assert "def nop() -> None: ..." in text
    with pytest.raises(ValueError, match="no global function is registered under 'nowhere.'"):
        stubgen.area_stub("nowhere")


def test_np_stub_types():
    text = open(os.path.join(PACKAGE, "np", "__init__.pyi")).read()
    assert (
        "def zeros(shape: ShapeLike, dtype: DTypeLike = None, device: DeviceLike = None) -> "
        "NDArray: ..." in text
    )
    assert "    out: WritableArray | None = None,\n" in text  # Optional<T> is T | None
    assert "x: Any, /, *, device: Device | str | None = None, copy: bool | None = None" in text
    assert text.count("def zeros(") == 1


def test_type_text():
    t = stubgen.type_text
    assert t("int64") == "int" and t("float32") == "float" and t("DataType") == "DataType"
    assert t("Optional[ShapeLike]") == "ShapeLike | None"
    assert t("Array[int]") == "Array | Sequence[int]"
    assert t("Array[int]", result=True) == "Array"
    assert t("Map[str, Any]") == "Map | Mapping[str, Any]"
    assert t("mxffi.NDArray") == "NDArray"
    assert t("Union[mxffi.NDArray, mxffi.ADT]", result=True) == "NDArray | ADT"
    assert t("Union[mxffi.NDArray, MyLibraryKind]") == "Any"
    assert t("MyLibraryKind") == "Any"


def test_every_argument_kind_has_an_alias():
    kinds = {k for k, v in vars(mxffi.typing).items() if isinstance(v, mxffi.typing.ArgKind)}
    assert kinds == set(_stub_heads.KINDS)


def test_ops_get_keyword_parameters():
    sig = inspect.signature(mxffi.ops.quadratic)
    assert str(sig.replace(return_annotation=inspect.Signature.empty)) == (
        "(x: NDArrayLike, /, *, a: float = 0.0, b: float = 0.0, c: float = 0.0)"
    )
    assert sig.return_annotation is mxffi.NDArray
    sig = inspect.signature(mxffi.ops.add_n)
    assert str(sig.replace(return_annotation=inspect.Signature.empty)) == (
        "(*inputs: NDArrayLike, num_args: int)"
    )
    text = stubgen.ops_stub()
    assert (
        "def quadratic(x: NDArrayLike, /, *, a: float = 0.0, b: float = 0.0, c: float = 0.0) "
        "-> NDArray: ..." in text
    )
    assert "def add_n(*inputs: NDArrayLike, num_args: int) -> NDArray: ..." in text
    assert "stype: Literal['csr', 'default', 'row_sparse']" in text


OUTSIDE = textwrap.dedent(
    """\
    #include <string>
    std::string repeat(std::string_view s, int64_t n = 2) {
      std::string out;
      for (int64_t i = 0; i < n; ++i) out += s;
      return out;
    }
    """
)


@pytest.fixture(scope="module")
def outside_lib(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    folder = tmp_path_factory.mktemp("jit")
    return mxffi.cpp.build(
        "outside", OUTSIDE, functions={"repeat": "s, n times."}, build_directory=folder
    )


def test_outside_library_function_has_signature_and_help(outside_lib):
    mxffi.library.load(outside_lib)
    f = mxffi.get_global_func("outside.repeat")  # looked up by name: no init_api
    assert f("ab", 3) == "ababab"
    assert str(inspect.signature(f)) == "(s: str, n: int = 2) -> str"
    text = pydoc.render_doc(f, renderer=pydoc.plaintext)
    assert "repeat(s: str, n: int = 2) -> str" in text
    assert "s, n times." in text


def test_stubgen_for_an_outside_library(outside_lib, tmp_path):
    out = _stubgen("outside", "--load", outside_lib, "-o", str(tmp_path))
    assert out.returncode == 0, out.stderr
    text = (tmp_path / "outside.pyi").read_text()
    assert "def repeat(s: str, n: int = 2) -> str: ..." in text
    bad = _stubgen("nowhere", "-o", str(tmp_path))
    assert bad.returncode == 2
    assert "no global function is registered under 'nowhere.'" in bad.stderr


def _mypy(path, tmp_path):
    pytest.importorskip("mypy", reason="mypy is not installed (pip install mypy)")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy"), path],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=EXAMPLES,
    )


def test_mypy_strict_passes_on_correct_usage(tmp_path):
    out = _mypy("good_usage.py", tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    env = {k: v for k, v in os.environ.items() if k != "MXFFI_FFI"}  # mxffi.np: the Cython core
    run = subprocess.run(
        [sys.executable, "good_usage.py"], capture_output=True, text=True, cwd=EXAMPLES, env=env
    )
    assert run.returncode == 0, run.stderr


def test_mypy_strict_fails_on_wrong_calls(tmp_path):
    out = _mypy("bad_usage.py", tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    errors = [ln for ln in out.stdout.splitlines() if ": error:" in ln]
    assert [e.split(":")[1] for e in errors] == ["8", "9", "10", "11", "12"], out.stdout
    assert 'Unexpected keyword argument "dtyp" for "zeros"' in errors[1]
    assert 'Unexpected keyword argument "d" for "quadratic"' in errors[2]
    assert 'Argument 2 to "concat" has incompatible type "int"; expected "str"' in errors[3]


def _stub_names(rel):
    import ast

    tree = ast.parse(open(os.path.join(PACKAGE, rel)).read())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom | ast.Import):
            names.update(a.asname for a in node.names if a.asname)
    return names


@pytest.mark.parametrize(
    ("module", "rel"),
    [
        ("mxffi", "__init__.pyi"),
        ("mxffi.np", os.path.join("np", "__init__.pyi")),
        ("mxffi.nd.sparse", os.path.join("nd", "sparse.pyi")),
        ("mxffi.testing", "testing.pyi"),
        ("mxffi.ops", "ops.pyi"),
        ("mxffi.typing", "typing.pyi"),
    ],
)
def test_every_public_name_has_a_stub(module, rel):
    import importlib

    mod = importlib.import_module(module)
    public = set(getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")])
    # The ops stub's functions are checked by the regeneration (in a fresh interpreter: op
    # libraries loaded by other tests add ops here).
    missing = sorted(public - _stub_names(rel))
    assert missing == [], f"{module}: no stub for {missing}"
