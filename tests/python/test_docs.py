"""The Python guide's examples run and still do what docs/python.md shows."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_python_tour_example_runs():
    # A fresh interpreter: the example registers globals and must not depend on test state.
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "docs", "examples", "python_tour.py")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "python_tour: ok"


def _cut_blocks(markdown):
    """(line, path, name, text) for each `<!-- cut: path name -->` and the fenced block after it,
    plus the 1-based lines of fenced blocks that no cut comment announces."""
    lines = markdown.splitlines()
    blocks, uncut = [], []
    i = 0
    while i < len(lines):
        t = lines[i].strip()
        if t.startswith("<!-- cut:"):
            words = t[len("<!-- cut:") :].split()
            assert len(words) == 3 and words[2] == "-->", f"line {i + 1}: malformed `{t}`"
            assert i + 1 < len(lines) and lines[i + 1].strip().startswith("```"), (
                f"line {i + 1}: the cut comment is not followed at once by a fenced block"
            )
            end = i + 2
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            assert end < len(lines), f"line {i + 1}: the fenced block is never closed"
            blocks.append(
                (i + 1, words[0], words[1], "".join(s + "\n" for s in lines[i + 2 : end]))
            )
            i = end + 1
            continue
        if t.startswith("```"):
            uncut.append(i + 1)
            end = i + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            i = end + 1
            continue
        i += 1
    return blocks, uncut


def _regions(source):
    """{name: text} of the lines strictly between `// [name.begin]` and `// [name.end]`."""
    lines = source.splitlines()
    found = {}
    for k, line in enumerate(lines):
        t = line.strip()
        for prefix in ("// [", "# ["):
            if t.startswith(prefix) and t.endswith(".begin]"):
                name = t[len(prefix) : -len(".begin]")]
                assert name not in found, f"region {name} is marked twice"
                end = lines.index(line.replace(".begin]", ".end]"), k + 1)
                found[name] = "".join(s + "\n" for s in lines[k + 1 : end])
    return found


def test_writing_an_op_page_is_cut_from_its_example():
    # docs/writing_an_op.md shows no hand-typed code: every fenced block is cut from a marked
    # region, equal to it line for line, and every region of docs/examples/writing_an_op.cc is
    # shown (a region the page dropped would be code nobody reads).
    with open(os.path.join(ROOT, "docs", "writing_an_op.md")) as f:
        blocks, uncut = _cut_blocks(f.read())
    assert uncut == [], f"docs/writing_an_op.md: fenced blocks at lines {uncut} are not cut"
    assert len(blocks) >= 8
    shown = set()
    for line, path, name, text in blocks:
        with open(os.path.join(ROOT, path)) as f:
            regions = _regions(f.read())
        assert name in regions, f"docs/writing_an_op.md:{line}: {path} has no region {name}"
        assert text == regions[name], (
            f"docs/writing_an_op.md:{line}: block '{name}' differs from {path}; copy the lines "
            "between the markers into the page"
        )
        shown.add((path, name))
    with open(os.path.join(ROOT, "docs", "examples", "writing_an_op.cc")) as f:
        example_regions = _regions(f.read())
    missing = sorted(
        n for n in example_regions if ("docs/examples/writing_an_op.cc", n) not in shown
    )
    assert missing == [], f"regions of writing_an_op.cc the page does not show: {missing}"
    with open(os.path.join(ROOT, "docs", "README.md")) as f:
        assert "(writing_an_op.md)" in f.read()


def test_cut_block_checker_can_fail():
    page = "<!-- cut: a.cc call -->\n```cpp\n  int x = 1;\n```\n\n```bash\nls\n```\n"
    blocks, uncut = _cut_blocks(page)
    assert blocks == [(1, "a.cc", "call", "  int x = 1;\n")]
    assert uncut == [6]
    source = "int main() {\n  // [call.begin]\n  int x = 2;\n  // [call.end]\n}\n"
    assert _regions(source) == {"call": "  int x = 2;\n"}
    assert blocks[0][3] != _regions(source)["call"]


def test_np_tour_example_runs():
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "docs", "examples", "np_tour.py")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "np_tour: ok"


def test_sparse_tour_example_runs():
    out = subprocess.run(
        [sys.executable, os.path.join(ROOT, "docs", "examples", "sparse_tour.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("sparse_tour: ok")
