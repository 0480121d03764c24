"""docs/bad_input.md, row by row: every bad input the page lists raises what the page says.

The page is the test's data. Its tables come in four kinds, told apart by their header:

- ``| name | value |``: the namespace the expressions run in (a module path, or an expression
  evaluated in the namespace built so far); each row's expression gets a fresh namespace.
- ``| expression | raises | message contains |``: the expression raises an instance of that
  class whose message contains every `code span` of the last cell.
- ``| call | raises | message contains | test |``: a C ABI row, run by the GoogleTest named in
  the last column (tests/cpp/test_bad_input.cc reads the expected kind and fragments from the
  page); here we check that the test exists and checks that row, in both directions.
- ``| command | exit status | output contains |``: a command line run in a child interpreter;
  its stdout and stderr together contain the fragments, and no traceback.

Any other table on the page fails the test, so no row can sit there unchecked. The suite runs
on both cores (``MXFFI_FFI=ctypes`` for the ctypes one): every row holds on both.
"""

import builtins
import importlib
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(ROOT, "docs", "bad_input.md")
CPP_TEST = os.path.join(ROOT, "tests", "cpp", "test_bad_input.cc")

NAMESPACE_HEADER = ["name", "value"]
PY_HEADER = ["expression", "raises", "message contains"]
C_HEADER = ["call", "raises", "message contains", "test"]
CLI_HEADER = ["command", "exit status", "output contains"]
CLI_PREFIX = ["python", "-m", "mxffi.config"]


@dataclass
class Row:
    line: int  # 1-based line of the page, for messages
    section: str
    cells: list
    spans: list = field(default_factory=list)  # the code spans of each cell


def _cells(line):
    """The cells of a Markdown table line, split at unescaped '|', with `\\|` unescaped."""
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [p.strip().replace("\\|", "|") for p in parts]


def _spans(cell):
    return re.findall(r"`([^`]*)`", cell)


def parse_tables(text):
    """Every table of the page as (header, rows, line of the header)."""
    tables = []
    section = ""
    header = None
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            section = line.lstrip("#").strip()
        if not line.startswith("|"):
            header = None
            continue
        cells = _cells(line)
        if header is None:
            header = cells
            tables.append((header, [], n))
        elif all(set(c) <= set("-: ") for c in cells):
            continue  # the delimiter row
        else:
            tables[-1][1].append(Row(n, section, cells, [_spans(c) for c in cells]))
    return tables


def _load():
    with open(DOC, encoding="utf-8") as f:
        return parse_tables(f.read())


TABLES = _load()


def _rows(header):
    return [r for h, rows, _ in TABLES if h == header for r in rows]


NAMESPACE_ROWS = _rows(NAMESPACE_HEADER)
PY_ROWS = _rows(PY_HEADER)
C_ROWS = _rows(C_HEADER)
CLI_ROWS = _rows(CLI_HEADER)


def _row_id(row):
    return f"L{row.line}:{row.cells[0].strip('`')[:60]}"


def make_namespace():
    """The namespace of the page's `| name | value |` table, built afresh."""
    ns = {}
    for row in NAMESPACE_ROWS:
        (name,), (value,) = row.spans[0], row.spans[1]
        try:
            ns[name] = importlib.import_module(value)
        except (ImportError, TypeError, ValueError):
            ns[name] = eval(value, ns)  # noqa: S307 (the page's own expressions)
    return ns


def exception_class(name):
    """The class a row names: a builtin, numpy's AxisError or LinAlgError, or mxffi.MXFFIError."""
    if name == "AxisError":
        from numpy.exceptions import AxisError

        return AxisError
    if name == "LinAlgError":
        from numpy.linalg import LinAlgError

        return LinAlgError
    if name == "MXFFIError":
        import mxffi

        return mxffi.MXFFIError
    cls = getattr(builtins, name, None)
    assert isinstance(cls, type) and issubclass(cls, BaseException), f"unknown class {name}"
    return cls


def exception_message(exc):
    # KeyError's str() is the repr of its argument; the message is the argument itself.
    if isinstance(exc, KeyError) and len(exc.args) == 1:
        return str(exc.args[0])
    return str(exc)


def check_row(row, ns):
    """Run one expression row; AssertionError naming the page's line when it does not hold."""
    (expr,), (cls_name,), fragments = row.spans[0], row.spans[1], row.spans[2]
    cls = exception_class(cls_name)
    where = f"docs/bad_input.md:{row.line}: {expr}"
    try:
        value = eval(expr, ns)  # noqa: S307 (the page's own expressions)
    except BaseException as exc:  # noqa: BLE001 (SystemExit and the like are rows too)
        assert not isinstance(exc, SystemError), f"{where}: SystemError: {exc}"
        assert isinstance(exc, cls), (
            f"{where}: raised {type(exc).__name__}: {exc}; the page says {cls_name}"
        )
        message = exception_message(exc)
        for frag in fragments:
            assert frag in message, f"{where}: message {message!r} lacks {frag!r}"
        return
    raise AssertionError(f"{where}: returned {value!r}; the page says it raises {cls_name}")


def test_every_table_is_checked():
    known = (NAMESPACE_HEADER, PY_HEADER, C_HEADER, CLI_HEADER)
    for header, _, line in TABLES:
        assert header in known, f"docs/bad_input.md:{line}: table {header} is of no known kind"


def test_rows_are_well_formed():
    assert len(PY_ROWS) + len(C_ROWS) + len(CLI_ROWS) >= 80
    for row in PY_ROWS + C_ROWS + CLI_ROWS:
        where = f"docs/bad_input.md:{row.line}"
        if row not in C_ROWS:  # a C ABI row's call may be described in words
            assert len(row.spans[0]) == 1, f"{where}: the first cell must be one code span"
        assert len(row.spans[1]) == 1, f"{where}: the second cell must be one code span"
        assert row.spans[2] or row.spans[1] == ["none"], f"{where}: no message fragment"
    assert all(r.spans[1] != ["none"] for r in PY_ROWS + CLI_ROWS), "only C ABI rows may be none"
    exprs = [r.spans[0][0] for r in PY_ROWS]
    dupes = {e for e in exprs if exprs.count(e) > 1}
    assert not dupes, f"rows listed twice: {sorted(dupes)}"


@pytest.mark.parametrize("row", PY_ROWS, ids=_row_id)
def test_python_row(row):
    check_row(row, make_namespace())


def test_row_checker_can_fail():
    ns = make_namespace()
    good = next(r for r in PY_ROWS if r.spans[1] == ["ValueError"])
    check_row(good, ns)
    cases = [
        Row(0, "", [], [good.spans[0], good.spans[1], ["a fragment no message has"]]),
        Row(0, "", [], [good.spans[0], ["KeyError"], good.spans[2]]),
        Row(0, "", [], [["1 + 1"], ["ValueError"], ["x"]]),
    ]
    for bad in cases:
        with pytest.raises(AssertionError):
            check_row(bad, ns)


def _cpp_tests():
    """Each TEST(BadInputCApi, Name) of the C++ file and the rows its body checks."""
    with open(CPP_TEST, encoding="utf-8") as f:
        source = f.read()
    tests = {}
    heads = list(re.finditer(r"^TEST\(BadInputCApi, (\w+)\)", source, re.M))
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(source)
        tests[m.group(1)] = set(re.findall(r'ExpectDocRow\("(\w+)"', source[m.end() : end]))
    return tests


def test_c_abi_rows_and_tests_name_each_other():
    tests = _cpp_tests()
    names = []
    for row in C_ROWS:
        (test,) = row.spans[3]
        suite, _, name = test.partition(".")
        assert suite == "BadInputCApi", f"docs/bad_input.md:{row.line}: {test}"
        assert name in tests, f"docs/bad_input.md:{row.line}: no TEST(BadInputCApi, {name})"
        assert tests[name] == {name}, f"TEST(BadInputCApi, {name}) checks rows {tests[name]}"
        names.append(name)
    assert sorted(names) == sorted(tests), "C++ tests without a row (or rows listed twice)"
    assert len(names) >= 30


@pytest.mark.parametrize("row", CLI_ROWS, ids=_row_id)
def test_cli_row(row):
    (command,), (status,), fragments = row.spans
    argv = shlex.split(command)
    assert argv[:3] == CLI_PREFIX, f"docs/bad_input.md:{row.line}: {command}"
    out = subprocess.run(
        [sys.executable, *argv[1:]], capture_output=True, text=True, timeout=60, check=False
    )
    text = out.stdout + out.stderr
    assert out.returncode == int(status), text
    assert "Traceback" not in text, text
    for frag in fragments:
        assert frag in text, f"docs/bad_input.md:{row.line}: {text!r} lacks {frag!r}"
