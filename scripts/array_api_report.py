"""Per test file pass/fail counts of array API suite runs (their --junitxml reports), side by
side, with mxffi's difference from numpy's: python scripts/array_api_report.py NAME=FILE...
With --xfails FILE, the failed ids of one report in the suite's xfails-file format instead.

A run that did not get as far as writing its report (a collection error) shows as missing."""

import collections
import os
import sys
import xml.etree.ElementTree as ET

OUTCOMES = ("passed", "failed", "skipped", "xfailed")


def counts(path):
    """{test file: Counter(outcome)} from a junit XML report, or None where there is none."""
    if not os.path.exists(path):
        return None
    per_file = collections.defaultdict(collections.Counter)
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("classname", "").split(".")
        file = next((p for p in name if p.startswith("test_")), "(collection)") + ".py"
        kinds = {child.tag for child in case}
        skipped = case.find("skipped")
        if "failure" in kinds or "error" in kinds:
            outcome = "failed"
        elif skipped is not None:
            xfail = skipped.get("type") == "pytest.xfail"
            outcome = "xfailed" if xfail else "skipped"
        else:
            outcome = "passed"
        per_file[file][outcome] += 1
    return per_file


def xfails(path):
    """The failed (and expected-to-fail) test ids of a report, as the suite's --xfails-file
    reads them, grouped by file under a comment line naming the file."""
    by_file = collections.defaultdict(list)
    for case in ET.parse(path).getroot().iter("testcase"):
        skipped = case.find("skipped")
        xfailed = skipped is not None and skipped.get("type") == "pytest.xfail"
        if case.find("failure") is None and case.find("error") is None and not xfailed:
            continue
        parts = case.get("classname", "").split(".")
        # array_api_tests.test_x[.TestClass]: the file, then the classes the test sits in
        cut = next((i for i, p in enumerate(parts) if p.startswith("test_")), len(parts) - 1) + 1
        file = "/".join(parts[:cut]) + ".py"
        by_file[file].append("::".join([file, *parts[cut:], case.get("name")]))
    print(HEADER, end="")
    for file in sorted(by_file):
        print(f"\n# {file}: {len(by_file[file])} failing")
        for test_id in sorted(set(by_file[file])):
            print(test_id)


HEADER = """\
# The array API suite's tests that fail against mxffi.np (scripts/array_api.sh --check, 20
# derandomized examples a test), as the suite's --xfails-file reads them: one id a line, no
# inline comments. The check is strict: a listed test that passes, or an id that names no
# test, fails it; remove the ids a change makes pass. What is left: floor_divide of
# infinities (-0, +-infinity), where numpy's loop gives NaN and mxffi computes as numpy does.
"""


def main(argv):
    if argv[:1] == ["--xfails"]:
        xfails(argv[1])
        return
    runs = [a.split("=", 1) for a in argv]
    data = {name: counts(path) for name, path in runs}
    files = sorted({f for d in data.values() if d for f in d})
    head = ["file"] + [f"{n} passed / failed" for n, _ in runs]
    if len(runs) == 2:
        head.append(f"{runs[0][0]} fails - {runs[1][0]} fails")
    print("| " + " | ".join(head) + " |")
    print("| --- " + "| ---: " * (len(head) - 1) + "|")
    totals = {n: collections.Counter() for n, _ in runs}
    for f in files + ["total"]:
        row, fails = [f], []
        for n, _ in runs:
            d = data[n]
            if d is None:
                row.append("no report")
                fails.append(None)
                continue
            c = totals[n] if f == "total" else d.get(f, collections.Counter())
            if f != "total":
                totals[n].update(c)
            extra = f" ({c['xfailed']} xfailed)" if c["xfailed"] else ""
            row.append(f"{c['passed']} / {c['failed']}{extra}")
            fails.append(c["failed"])
        if len(runs) == 2:
            a, b = fails
            row.append("–" if a is None or b is None else f"{a - b:+d}")
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
