#!/usr/bin/env python3
"""Adds up the JUnit XML reports of the test runners (ctest, pytest) and
prints one closing line, `N passed, N failed, N skipped`. Exits 1 when
anything failed, a report is missing, or a runner exited non-zero with no
failure in its report (a crash, a collection error, a time-out).

    usage: summary.py NAME=REPORT.xml:EXIT_STATUS ...
"""
import sys
import xml.etree.ElementTree as ET


def count(path):
    """(passed, failed, skipped, names of failed tests) in one JUnit file."""
    passed = failed = skipped = 0
    names = []
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        skip = case.find("skipped")
        missing = skip is not None and "Unable to find" in (skip.get("message") or "")
        if tags & {"failure", "error"} or missing:  # ctest: a test binary not built
            failed += 1
            names.append(f"{case.get('classname', '')}::{case.get('name', '')}".lstrip(":"))
        elif "skipped" in tags or case.get("status") in ("disabled", "notrun"):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped, names


def main(argv):
    total = [0, 0, 0]
    failed_names = []
    for arg in argv:
        name, _, rest = arg.partition("=")
        path, _, rc_text = rest.rpartition(":")
        rc = int(rc_text or 0)
        try:
            p, f, s, names = count(path)
        except (OSError, ET.ParseError) as e:
            print(f"summary: {name}: no report ({e}); runner exit status {rc}")
            p, f, s, names = 0, 1, 0, [f"{name}: no report"]
        if rc != 0 and f == 0:
            f, names = 1, [f"{name}: exited with status {rc} and no failed test"]
        print(f"summary: {name}: {p} passed, {f} failed, {s} skipped")
        total[0] += p
        total[1] += f
        total[2] += s
        failed_names += names
    for n in failed_names:
        print(f"summary: FAILED {n}")
    print(f"{total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
