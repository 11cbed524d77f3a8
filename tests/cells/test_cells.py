"""Golden cases of the C cell language (docs/cells.md, issue 3).

Every folder tests/cells/NN_name/ holds one session, session.txt: the cells
run in order in one fresh gpuc kernel, each with the outputs it must give.
The format is described in tests/cells/README.md. A folder whose name ends
in "_pending" is a case for a feature that is not there yet: it is skipped
(with the reason from its description) until the feature lands, and then
the suffix is removed.

Run just these:
    GPUC_BIN=build/gpuc build/venv/bin/python -m pytest -c tests/pytest.ini tests/cells -q
    ... -k 08_results         (one case)
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

from gpuc_testing.kernel import TIMEOUT, execute, start_kernel, stop_kernel

HEADER = re.compile(r"^### (\S+)(?:[ \t]+(.*?))?[ \t]*$")
NO_NEWLINE = "\\ no newline"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

# Sections that may follow a cell, and whether they take an argument.
SECTIONS = {
    "stdout": False, "stdout-re": False,
    "stderr": False, "stderr-re": False,
    "result": False, "result-re": False,
    "error": True, "error-re": True,
    "display": True,
    "note": False,
}


# --- the format ------------------------------------------------------------

@dataclass
class Expect:
    kind: str          # a key of SECTIONS
    arg: str | None    # ENAME for error, MIME for display
    text: str          # the body, made as the section's rules say
    line: int          # where the section starts in session.txt


@dataclass
class Cell:
    code: str
    line: int
    expects: list[Expect] = field(default_factory=list)


@dataclass
class Case:
    name: str
    description: str
    cells: list[Cell]
    pending: bool


def _body(lines: list[str], kind: str) -> str:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    if kind in ("stdout", "stderr"):
        if lines and lines[-1] == NO_NEWLINE:
            return "\n".join(lines[:-1])
        return "".join(ln + "\n" for ln in lines)
    return "\n".join(lines)


def parse_session(path: Path) -> tuple[str, list[Cell]]:
    """(description, cells) of a session.txt; ValueError on a malformed one."""
    description: list[str] = []
    cells: list[Cell] = []
    kind, arg, start, body = None, None, 0, []

    def close():
        if kind is None:
            return
        text = _body(body, kind)
        if kind == "cell":
            cells.append(Cell(code=text, line=start))
        elif kind != "note":
            cells[-1].expects.append(Expect(kind, arg, text, start))

    for n, raw in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        m = HEADER.match(raw)
        if m and (m.group(1) == "cell" or m.group(1) in SECTIONS):
            close()
            kind, arg, start, body = m.group(1), m.group(2), n, []
            if kind == "cell":
                if arg:
                    raise ValueError(f"{path}:{n}: '### cell' takes no argument")
            else:
                if not cells:
                    raise ValueError(f"{path}:{n}: '### {kind}' before the first '### cell'")
                if SECTIONS[kind] and not arg:
                    raise ValueError(f"{path}:{n}: '### {kind}' needs an argument")
                if not SECTIONS[kind] and arg:
                    raise ValueError(f"{path}:{n}: '### {kind}' takes no argument")
                if kind != "display" and kind != "note" and any(
                        e.kind.split("-")[0] == kind.split("-")[0] for e in cells[-1].expects):
                    raise ValueError(f"{path}:{n}: a second '### {kind}' for one cell")
        elif m and raw.startswith("### "):
            raise ValueError(f"{path}:{n}: unknown section {raw!r}")
        elif kind is None:
            description.append(raw)
        else:
            body.append(raw)
    close()
    if not cells:
        raise ValueError(f"{path}: no '### cell'")
    return "\n".join(description).strip(), cells


def load_cases() -> list[Case]:
    cases = []
    for d in sorted(p for p in HERE.iterdir() if p.is_dir() and re.match(r"\d\d_", p.name)):
        description, cells = parse_session(d / "session.txt")
        cases.append(Case(d.name, description, cells, d.name.endswith("_pending")))
    return cases


# --- comparing -------------------------------------------------------------

def _match_lines(want: list[str], have: list[str], regex: bool) -> str | None:
    """None when the blocks of `want` (runs of lines split by blank lines)
    are found in `have`, in order, each block on consecutive lines. A line
    is a regex searched for (regex) or a substring; a line that starts with
    a blank (a source line or a caret) must equal the traceback line."""
    def line_ok(w: str, h: str) -> bool:
        if regex:
            return re.search(w, h) is not None
        if w[:1] in (" ", "\t"):
            return w.rstrip() == h.rstrip()
        return w in h

    blocks, cur = [], []
    for w in want:
        if w.strip():
            cur.append(w)
        elif cur:
            blocks.append(cur)
            cur = []
    if cur:
        blocks.append(cur)
    pos = 0
    for block in blocks:
        for start in range(pos, len(have) - len(block) + 1):
            if all(line_ok(w, have[start + k]) for k, w in enumerate(block)):
                pos = start + len(block)
                break
        else:
            return f"not found in order: {block!r}"
    return None


def check_cell(cell: Cell, run) -> list[str]:
    """What is wrong with one cell's outputs, [] when it is as expected."""
    problems = []
    by_kind = {}
    for e in cell.expects:
        by_kind.setdefault(e.kind.split("-")[0], []).append(e)

    # streams, concatenated per name
    for name in ("stdout", "stderr"):
        got = run.stream(name)
        exp = by_kind.get(name)
        if not exp:
            if got:
                problems.append(f"unexpected {name}: {got!r}")
            continue
        e = exp[0]
        if e.kind.endswith("-re"):
            if re.fullmatch(e.text, got, re.S) is None:
                problems.append(f"{name} {got!r} does not match /{e.text}/")
        elif got != e.text:
            problems.append(f"{name}: expected {e.text!r}, got {got!r}")

    # the result (text/plain of execute_result)
    results = run.of_type("execute_result")
    got = results[0]["content"]["data"].get("text/plain") if results else None
    if len(results) > 1:
        problems.append(f"{len(results)} execute_results")
    exp = by_kind.get("result")
    if not exp:
        if got is not None:
            problems.append(f"unexpected result: {got!r}")
    else:
        e = exp[0]
        if got is None:
            problems.append(f"no result, expected {e.text!r}")
        elif e.kind.endswith("-re"):
            if re.fullmatch(e.text, got, re.S) is None:
                problems.append(f"result {got!r} does not match /{e.text}/")
        elif got != e.text:
            problems.append(f"result: expected {e.text!r}, got {got!r}")

    # displays, in order
    shown = run.of_type("display_data")
    exp = by_kind.get("display", [])
    if len(shown) != len(exp):
        problems.append(f"{len(shown)} display_data, expected {len(exp)}: "
                        f"{[m['content']['data'] for m in shown]}")
    for m, e in zip(shown, exp):
        data = m["content"]["data"]
        if data.get(e.arg) != e.text:
            problems.append(f"display {e.arg}: expected {e.text!r}, got {data}")

    # the error, or status ok
    exp = by_kind.get("error")
    status = run.status
    if not exp:
        if status != "ok":
            tb = "\n".join(run.content.get("traceback", []))
            problems.append(f"status {status} {run.ename}, expected ok:\n{ANSI.sub('', tb)}")
    else:
        e = exp[0]
        if status != "error":
            problems.append(f"status {status}, expected error {e.arg}")
        else:
            regex = e.kind.endswith("-re")
            if not (re.fullmatch(e.arg, run.ename or "") if regex else run.ename == e.arg):
                problems.append(f"ename {run.ename!r}, expected {e.arg!r}")
            tb = [ANSI.sub("", t) for t in run.content.get("traceback", [])]
            tb = [ln for t in tb for ln in t.split("\n")]
            why = _match_lines(e.text.split("\n"), tb, regex)
            if why:
                problems.append(f"traceback {why}; the traceback was:\n" + "\n".join(tb))
            errs = run.of_type("error")
            if len(errs) != 1:
                problems.append(f"{len(errs)} IOPub error messages, expected 1")
    return problems


# --- the test ------------------------------------------------------------

CASES = load_cases()


def test_cases_are_there():
    names = [c.name for c in CASES]
    assert len(names) == len(set(n[:2] for n in names)), f"two cases share a number: {names}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cell_case(case: Case):
    if case.pending:
        first = case.description.split("\n")[0] if case.description else ""
        pytest.skip(f"pending (feature not implemented yet): {first}")
    km, kc = start_kernel("gpuc")
    failures = []
    try:
        for i, cell in enumerate(case.cells, 1):
            run = execute(kc, cell.code, timeout=TIMEOUT, allow_stdin=False)
            for p in check_cell(cell, run):
                failures.append(f"cell {i} (session.txt line {cell.line}): {cell.code!r}\n  {p}")
    finally:
        stop_kernel(km, kc)
    assert not failures, f"{case.name}: {len(failures)} problem(s)\n" + "\n".join(failures)
