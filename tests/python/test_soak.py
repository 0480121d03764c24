"""A short run of the soak script (tests/soak/soak.py; scripts/soak.sh makes a million calls),
so that it keeps working: every case checked, and the resident-memory check in place."""

import importlib.util
import io
import pathlib

import pytest
from conftest import SANITIZED

_SOAK = pathlib.Path(__file__).resolve().parents[1] / "soak" / "soak.py"


@pytest.fixture(scope="module")
def soak():
    spec = importlib.util.spec_from_file_location("mxffi_soak", _SOAK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_soak_short_run_checks_every_case(soak):
    out = io.StringIO()
    # Under AddressSanitizer freed memory waits in its quarantine (up to 256 MB) before reuse,
    # so a short run's RSS growth measures the sanitizer; the results are still checked.
    figures = soak.run(4000, max_growth_mb=float("inf") if SANITIZED else 5.0, out=out)
    assert figures["calls"] >= 4000
    assert figures["kinds"] == len(soak.make_cases()) >= 40
    assert figures["measured_calls"] > 0 and figures["calls_per_s"] > 0
    assert "calls/s" in out.getvalue() and "RSS" in out.getvalue()


def test_soak_fails_on_a_wrong_result(soak, monkeypatch):
    cases = soak.make_cases()
    kind, _ = cases[0]
    cases[0] = (kind, lambda i: soak._check(i, -1))
    monkeypatch.setattr(soak, "make_cases", lambda: cases)
    with pytest.raises(AssertionError, match=f"case '{kind}' failed at round 0"):
        soak.run(len(cases) * 2, out=io.StringIO())


def test_soak_fails_on_memory_growth(soak, monkeypatch):
    readings = iter([100 << 20, 106 << 20])
    monkeypatch.setattr(soak, "rss_bytes", lambda: next(readings))
    with pytest.raises(AssertionError, match="resident memory grew by 6.00 MB"):
        soak.run(200, out=io.StringIO())
