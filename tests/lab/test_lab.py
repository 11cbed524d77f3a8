"""JupyterLab in a real browser: Debian's chromium driven by Playwright
against a JupyterLab server (both pinned in tests/requirements.txt) that
finds gpuc's kernelspec on JUPYTER_PATH (tests/conftest.py). What a user
sees on the page: run all, printed lines, a result, an array's HTML table,
an error with its traceback; the stop button during a sleep; an answer
typed into the input box of a scanf.

Skipped only when there is no chromium (scripts/setup-deps.sh installs it).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    pytest.skip("no chromium on PATH (scripts/setup-deps.sh installs Debian's chromium)",
                allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from gpuc_testing.timing import scaled  # noqa: E402

TOKEN = "gpuc-lab-test"
START_S = scaled(60)             # JupyterLab's server up, a page loaded, a kernel started
CELL_MS = scaled(20) * 1000      # one cell's output on the page
expect.set_options(timeout=CELL_MS)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory, kernelspecs):
    """A JupyterLab server on a free port; yields (url, root folder)."""
    root = tmp_path_factory.mktemp("lab-root")
    home = tmp_path_factory.mktemp("lab-home")
    port = free_port()
    env = dict(os.environ,
               JUPYTER_CONFIG_DIR=str(home / "config"),
               JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"))
    log = open(home / "lab.log", "w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
         "--ip=127.0.0.1", "--allow-root", f"--IdentityProvider.token={TOKEN}",
         f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_S
    while True:
        try:
            with urllib.request.urlopen(f"{url}/api/kernelspecs?token={TOKEN}", timeout=2) as r:
                assert b'"gpuc"' in r.read(), "gpuc's kernelspec is not on JupyterLab's JUPYTER_PATH"
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"JupyterLab did not start:\n{(home / 'lab.log').read_text()}")
            time.sleep(0.2)
    yield url, root
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield b
        b.close()


@pytest.fixture
def open_notebook(lab, browser):
    """open_notebook(name, *cells) writes a gpuc notebook and opens it in
    Lab; returns the page once its kernel is idle."""
    url, root = lab
    pages = []

    def opener(name: str, *cells: str):
        nb = new_notebook()
        nb.metadata.kernelspec = {"name": "gpuc", "display_name": "C + CUDA (gpuc)",
                                  "language": "c"}
        nb.cells = [new_code_cell(c) for c in cells]
        nbformat.write(nb, Path(root) / name)
        page = browser.new_page()
        pages.append(page)
        page.set_default_timeout(CELL_MS)
        # a workspace of its own: this notebook is the only one open
        page.goto(f"{url}/lab/workspaces/{Path(name).stem}/tree/{name}?token={TOKEN}")
        expect(cells_of(page)).to_have_count(len(cells), timeout=START_S * 1000)
        expect(page.locator(".jp-NotebookPanel-toolbar .jp-KernelName")
               ).to_contain_text("gpuc", timeout=START_S * 1000)
        expect(page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
               ).to_have_count(1, timeout=START_S * 1000)
        return page

    yield opener
    for page in pages:
        page.close()


def cells_of(page):
    """The code cells of the notebook on show."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-CodeCell")


def prompt(page, cell: int):
    return cells_of(page).nth(cell).locator(".jp-InputPrompt")


def run_all(page):
    cells_of(page).first.locator(".jp-InputPrompt").click()   # the notebook has the focus
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()


def outputs(page, cell: int):
    return cells_of(page).nth(cell).locator(".jp-OutputArea-output")


def test_lab_runs_all_and_shows_outputs(open_notebook):
    page = open_notebook(
        "show.ipynb",
        'printf("hello from gpuc\\n");',
        "int n = 21;\nn * 2",
        "ga_t a = ga_arange(F32, 0, 6, 1);\na",
        "undeclared_name + 1;",
    )
    run_all(page)
    expect(outputs(page, 0)).to_have_text("hello from gpuc")
    expect(outputs(page, 1)).to_have_text("42")
    table = outputs(page, 2).locator("table")
    expect(table).to_be_visible()
    expect(table).to_contain_text("5")
    error = outputs(page, 3)
    expect(error).to_contain_text("cell 4, line 1")
    expect(error).to_contain_text("undeclared_name")
    # the prompts say each cell ran once, in order
    expect(prompt(page, 1)).to_contain_text("[2]")


def test_lab_stop_button_interrupts_a_sleep(open_notebook):
    page = open_notebook(
        "stop.ipynb",
        "int kept = 7;",
        f'#include <unistd.h>\nsleep({round(scaled(30))});\nprintf("after the sleep\\n");',
        'printf("next cell ran, kept=%d\\n", kept);',
    )
    cells_of(page).nth(0).click()
    page.keyboard.press("Shift+Enter")   # runs cell 1, selects the sleep
    expect(prompt(page, 0)).to_contain_text("[1]")
    page.keyboard.press("Shift+Enter")   # starts the sleep, selects the next cell
    expect(prompt(page, 1)).to_contain_text("[*]")
    started = time.monotonic()
    page.locator("jp-button[data-command='notebook:interrupt-kernel']").click()
    expect(outputs(page, 1)).to_contain_text("Interrupted", timeout=scaled(10) * 1000)
    assert time.monotonic() - started < scaled(10), "the interrupt took as long as the sleep"
    # the interrupt stopped the cell, not just the sleep: the printf after it did not run
    expect(outputs(page, 1)).to_contain_text("interrupted in sleep()")
    expect(outputs(page, 1)).not_to_contain_text("after the sleep")
    page.keyboard.press("Shift+Enter")   # the next cell runs, the session kept
    expect(outputs(page, 2)).to_have_text("next cell ran, kept=7")


# Typed input (input_request on the stdin channel): Lab shows an input box
# for the scanf and the answer is what scanf reads.
def test_lab_answers_scanf_in_the_input_box(open_notebook):
    page = open_notebook(
        "input.ipynb",
        'int v = 0;\nprintf("a number? ");\nscanf("%d", &v);\nprintf("twice: %d\\n", 2 * v);',
    )
    run_all(page)
    box = page.locator(".jp-Stdin-input")
    expect(box).to_be_visible()
    expect(page.locator(".jp-Stdin-prompt")).to_contain_text("a number?")
    box.fill("21")
    box.press("Enter")
    expect(outputs(page, 0).last).to_contain_text("twice: 42")
