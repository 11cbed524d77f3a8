"""`jupyter console` driven through a pseudo-terminal (pexpect), as a person
types: the console asks the kernel's is_complete after each line, so a
`for` header with its brace on the next line must wait for the body."""
import os
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from gpuc_testing.timing import scaled

pexpect = pytest.importorskip("pexpect")

JUPYTER = Path(sys.executable).parent / "jupyter"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def prompt(n):
    """In [n]: with the console's colour codes between its parts."""
    return re.compile(r"In \[(?:\x1b\[[0-9;]*m)*%d(?:\x1b\[[0-9;]*m)*\]" % n)


@pytest.mark.skipif(not (JUPYTER.exists() and shutil.which("true")), reason="no jupyter console")
def test_console_multiline_for_loop():
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(str(JUPYTER), ["console", "--kernel", "gpuc"], env=env,
                          encoding="utf-8", timeout=scaled(60), dimensions=(40, 200))
    try:
        child.expect(prompt(1))
        child.send("int total = 0;\r")
        child.expect(prompt(2))
        child.send("for (int i = 1; i <= 4; i++)\r")   # incomplete: the console waits
        child.expect(r"\.\.\.")
        child.send("{\r")
        child.expect(r"\.\.\.")
        child.send("total += i;\r")
        child.expect(r"\.\.\.")
        child.send("}\r")                               # complete: it runs
        child.expect(prompt(3))
        child.send("total\r")
        child.expect(r"Out\[(?:\x1b\[[0-9;]*m)*3(?:\x1b\[[0-9;]*m)*\]: (?:\x1b\[[0-9;]*m)*10")
        assert "error" not in ANSI.sub("", child.before).lower()
        time.sleep(scaled(0.5))
        child.sendcontrol("d")                          # end of input: the console asks, leaves
        child.expect(r"Do you really want to exit")
        child.send("y\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


@pytest.mark.skipif(not JUPYTER.exists(), reason="no jupyter console")
@pytest.mark.parametrize("log", [None, "info"])
def test_console_exit_leaves_and_log_lines_stay_off_the_terminal(log):
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    env.pop("GPUC_LOG", None)
    if log:
        env["GPUC_LOG"] = log
    child = pexpect.spawn(str(JUPYTER), ["console", "--kernel", "gpuc"], env=env,
                          encoding="utf-8", timeout=scaled(60), dimensions=(40, 200))
    try:
        child.expect(prompt(1))
        seen = child.before
        child.send("6 * 7\r")
        child.expect(prompt(2))
        seen += child.before
        child.send("exit\r")                            # ask_exit: the console leaves, no question
        child.expect(pexpect.EOF)
        seen += child.before
        assert "Do you really want to exit" not in seen
        if log:
            assert "[gpuc kernel" in seen, seen        # GPUC_LOG=info turns them on
        else:
            assert "[gpuc" not in seen, seen          # the default: warnings and errors only
    finally:
        child.close(force=True)
