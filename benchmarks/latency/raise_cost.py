"""The cost of a raised error, for bench_call_latency.py: the raise cells (an mxffi function
whose C++ body throws, and a Python function raising the same, each called in a try/except
loop), and their table and gate."""

import sys

from bindings import BINDING_LABEL, DASH

# The raise cells: (binding, RAISE_KEY) -> the function called in a try/except loop.
RAISE_KEY = "raise"
# docs/design.md: an error raised in C++, caught in Python, costs at most 20 us.
RAISE_GATE_US = 20.0


def log(msg):
    print(f"==> {msg}", file=sys.stderr, flush=True)


def fmt(v, digits=0):
    if v is None:
        return DASH
    return f"{v:,.{digits}f}"


def _python_raise(kind, message):
    raise ValueError(message)


def make_raise_cells(names):
    """The raise cells, (binding, RAISE_KEY) -> (function, args), each checked once."""
    cells = {}
    if "python" in names:
        cells[("python", RAISE_KEY)] = (_python_raise, ("ValueError", "boom"))
    if "mxffi" in names:
        try:
            import mxffi.testing
        except ImportError as e:
            log(f"mxffi.testing is not importable ({e}): no raise figures")
            return cells
        cells[("mxffi", RAISE_KEY)] = (mxffi.testing.raise_error, ("ValueError", "boom"))
    for key, (f, args) in cells.items():
        try:
            f(*args)
        except ValueError as e:
            if str(e) != "boom":
                raise SystemExit(f"bench_call_latency: {key} raised {e!r}") from None
        else:
            raise SystemExit(f"bench_call_latency: {key} did not raise")
    return cells


def make_raise_loop():
    """``for _ in it: try: f(x0, x1) except ValueError: pass``, compiled afresh."""
    src = (
        "def loop(_it, _f, x0, x1):\n"
        "    for _ in _it:\n"
        "        try:\n"
        "            _f(x0, x1)\n"
        "        except ValueError:\n"
        "            pass\n"
    )
    ns = {}
    exec(src, ns)  # noqa: S102 - fixed source, as timeit does
    return ns["loop"]


def prepare_raise_cells(cells):
    return {key: (make_raise_loop(), (f, *args)) for key, (f, args) in cells.items()}


def raise_results(times, instr):
    """(binding, us per raise, instructions per raise) rows, and the gate's verdict."""
    rows = []
    for name in ("mxffi", "python"):
        t, i = times.get((name, RAISE_KEY)), instr.get((name, RAISE_KEY))
        if t is not None or i is not None:
            rows.append((name, None if t is None else t / 1e3, i))
    mx = times.get(("mxffi", RAISE_KEY))
    if mx is None:
        verdict = "MISSING"
    else:
        verdict = "PASS" if mx / 1e3 <= RAISE_GATE_US else "FAIL"
    return rows, verdict


def raise_table(rows):
    out = [
        "| binding | median time per raise (us) | instructions per raise |",
        "| --- | ---: | ---: |",
    ]
    for name, us, instructions in rows:
        out.append(f"| {BINDING_LABEL[name]} | {fmt(us, 2)} | {fmt(instructions)} |")
    return "\n".join(out)
