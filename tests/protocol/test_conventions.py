"""IPython's conventions that notebook and console users type by habit:
`exit`/`quit` (the ask_exit payload), `name?`/`name??`, aborted replies
as ipykernel sends them, the shell (`!cmd`, `%%sh`, `%%bash`), files
(`%%writefile`, `%load`), `%cd`, `%pwd`, `%env`; all through the real
jupyter_client."""
import time

import pytest

from gpuc_testing.kernel import TIMEOUT, collect_many, execute, execute_ok, scaled, start_kernel, \
    stop_kernel, value_of

ASK_EXIT = {"source": "ask_exit", "keepkernel": False}


# --- exit and quit ----------------------------------------------------------

@pytest.mark.parametrize("code", ["exit", "quit", "exit()", "  quit()\n"])
def test_exit_and_quit_ask_the_front_end_to_leave(kc, code):
    run = execute_ok(kc, code)
    assert run.content["payload"] == [ASK_EXIT], run.describe()
    assert run.result is None and run.stream() == "" and run.stream("stderr") == ""


def test_exit_with_a_status_and_other_cells_carry_no_payload(kc):
    assert execute_ok(kc, "1 + 1").content["payload"] == []
    assert execute(kc, "exit(;").status == "error"  # C, not the shortcut: a compile error


def test_a_variable_named_quit_is_shown_not_taken_for_the_shortcut(fresh_kernel):
    km, kc = fresh_kernel
    execute_ok(kc, "int quit = 3;")
    run = execute_ok(kc, "quit")
    assert run.result == "3" and run.content["payload"] == []


# --- name? and name?? ---------------------------------------------------------

def paged(run) -> str:
    """The text/plain of the cell's one page payload (what a front end's
    pager shows); the cell wrote nothing on stdout."""
    pages = [p for p in run.content["payload"] if p["source"] == "page"]
    assert len(pages) == 1 and run.stream() == "", run.describe()
    assert pages[0]["start"] == 0
    return pages[0]["data"]["text/plain"]


def test_question_mark_shows_the_help_of_inspection_in_the_pager(kc):
    execute_ok(kc, "int twice(int v) { return 2 * v; }\ndouble level = 0.5;")
    for code, expected in [("printf?", "printf: function, declared in <stdio.h>"),
                           ("?printf", "int printf(const char *format, ...);"),
                           ("twice?", "twice: function, defined in cell"),
                           ("twice??", "int twice(int v);"),
                           ("level?", "level: variable, defined in cell")]:
        run = execute_ok(kc, code)
        assert expected in paged(run), (code, run.describe())
        assert run.ename is None and run.of_type("execute_result") == []
    inspected = kc.inspect("printf", 6, detail_level=0, reply=True, timeout=TIMEOUT)
    assert paged(execute_ok(kc, "printf?")) == inspected["content"]["data"]["text/plain"]
    assert "address 0x" in paged(execute_ok(kc, "twice??"))  # ?? is detail level 1


def test_double_question_mark_shows_a_functions_text(kc):
    """name?? shows a user function as its cell wrote it (comments and
    layout kept), name? does not; a redefinition shows the new text."""
    execute_ok(kc, "double halve(double v)\n{\n    return v / 2;  // halves\n}")
    text = paged(execute_ok(kc, "halve??"))
    assert "source:\ndouble halve(double v)\n{\n    return v / 2;  // halves\n}\n" in text, text
    assert "source:" not in paged(execute_ok(kc, "halve?"))
    execute_ok(kc, "double halve(double v) { return v * 0.5; }")
    text = paged(execute_ok(kc, "halve??"))
    assert "return v * 0.5;" in text and "// halves" not in text, text


def test_question_mark_on_an_unknown_name(kc):
    run = execute_ok(kc, "no_such_name?")
    assert run.stream() == "Object `no_such_name` not found.\n"
    assert run.content["payload"] == []


# --- aborted replies, compared with ipykernel -----------------------------------

def aborted_replies(kc, failing, then):
    sent = time.monotonic()
    ids = [kc.execute(failing)] + [kc.execute(code) for code in then]
    runs = collect_many(kc, ids, sent=sent)
    assert runs[0].status == "error", runs[0].describe()
    return runs[0], runs[1:]


def test_aborted_replies_carry_no_execution_count_as_ipykernel():
    # the failing cell takes a moment, so that the two after it are surely
    # queued behind it (a request that comes after the error's reply runs:
    # only what was queued is aborted, in both kernels)
    km, kc = start_kernel("python3")
    try:
        _, py = aborted_replies(kc, f"import time; time.sleep({scaled(0.5)}); "
                                    "raise ValueError('x')",
                                ["1", "2"])
    finally:
        stop_kernel(km, kc)
    km, kc = start_kernel("gpuc")
    try:
        failed, c = aborted_replies(kc, "#include <unistd.h>\n"
                                        f"usleep({round(scaled(0.5) * 1e6)});\nabort();",
                                    ['printf("two\\n");', "2"])
        next_run = execute_ok(kc, "40 + 2")
    finally:
        stop_kernel(km, kc)
    for theirs, ours in zip(py, c):
        assert theirs.content == {"status": "aborted"}, theirs.content  # ipykernel's form
        assert ours.content == theirs.content, ours.describe()
        assert ours.stream() == ""
    # the next cell is numbered after the failed one: the aborted ones took no number
    assert next_run.content["execution_count"] == failed.content["execution_count"] + 1


# --- the shell --------------------------------------------------------------------

def merged(run):
    """stdout and stderr in the order they arrived, stderr marked."""
    return "".join(("E:" if m["content"]["name"] == "stderr" else "") + m["content"]["text"]
                   for m in run.of_type("stream"))


def test_bang_runs_the_shell_in_order_with_what_the_cell_prints(kc):
    run = execute_ok(kc, 'printf("before\\n");\n'
                         "!echo from sh; echo on stderr >&2\n"
                         'printf("after\\n");\n'
                         "!exit 3\n"
                         'printf("end\\n");')
    assert run.stream() == "before\nfrom sh\nafter\nend\n", run.describe()
    assert run.stream("stderr") == "on stderr\n[exit status 3]\n"
    text = merged(run)
    assert text.index("before") < text.index("from sh") < text.index("after") < \
        text.index("[exit status 3]") < text.index("end"), text


def test_bang_output_streams_while_the_command_runs(kc):
    run = execute_ok(kc, f"!echo first; sleep {scaled(1.5)}; echo second")
    first = next(m for m in run.of_type("stream") if "first" in m["content"]["text"])
    assert run.reply["_t"] - first["_t"] > scaled(1.0), "the output came only at the end"


def test_bang_stays_c_where_it_continues_an_expression(kc):
    run = execute_ok(kc, 'int a = 1, b = 0;\nif (a &&\n    !b)\n    printf("c\\n");')
    assert run.stream() == "c\n"


def test_bang_alone_is_a_usage_error(kc):
    run = execute(kc, "!")
    assert run.ename == "UsageError" and "give a command" in run.content["evalue"]


@pytest.mark.parametrize("magic, version", [("%%sh", "$0"), ("%%bash", "$BASH_VERSION")])
def test_sh_and_bash_cells(kc, magic, version):
    run = execute_ok(kc, f"{magic}\necho shell={version}\necho oops >&2\n")
    assert run.stream().startswith("shell=") and len(run.stream()) > len("shell=\n")
    assert run.stream("stderr") == "oops\n"
    failed = execute(kc, f"{magic}\necho partial\nexit 4\n")
    assert failed.ename == "CalledProcessError", failed.describe()
    assert "exit status 4" in failed.content["evalue"]
    assert failed.stream() == "partial\n"
    assert execute_ok(kc, "6 * 7").result == "42"  # the session goes on


def test_interrupt_stops_a_shell_command(fresh_kernel):
    km, kc = fresh_kernel
    execute_ok(kc, "int kept = 1;")
    run = execute(kc, "!sleep 20\nkept = 2;", actions=[(scaled(1.0), km.interrupt_kernel)])
    assert run.ename == "Interrupted", run.describe()
    assert run.reply["_t"] - run.action_times[0] < scaled(2.5)
    assert value_of(kc, "kept") == "1"


# --- files and folders --------------------------------------------------------------

def test_writefile_cd_pwd_and_a_compiled_program(fresh_kernel, tmp_path):
    km, kc = fresh_kernel
    assert execute_ok(kc, f"%cd {tmp_path}").stream() == f"{tmp_path}\n"
    assert execute_ok(kc, "%pwd").stream() == f"{tmp_path}\n"
    body = '#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n'
    run = execute_ok(kc, "%%writefile app.c\n" + body)
    assert run.stream() == "Writing app.c\n"
    assert (tmp_path / "app.c").read_text() == body
    assert execute_ok(kc, "%%writefile app.c\n" + body).stream() == "Overwriting app.c\n"
    run = execute_ok(kc, "%%writefile -a app.c\n// more\n")
    assert run.stream() == "Appending to app.c\n"
    assert (tmp_path / "app.c").read_text() == body + "// more\n"
    run = execute_ok(kc, "!cc -o app app.c && ./app")
    assert run.stream() == "built\n", run.describe()
    assert execute_ok(kc, 'fopen("app.c", "r") != 0').result == "1"  # cells see %cd too
    run = execute(kc, "%cd /no/such/folder")
    assert run.ename == "OSError" and "No such file or directory" in run.content["evalue"]
    assert execute_ok(kc, "%pwd").stream() == f"{tmp_path}\n"  # unchanged
    assert execute(kc, "%%writefile\nx").ename == "UsageError"


def test_load_puts_the_file_into_the_cell(kc, tmp_path):
    path = tmp_path / "part.c"
    path.write_text("int loaded = 5;\n")
    run = execute_ok(kc, f"%load {path}")
    assert run.content["payload"] == [{"source": "set_next_input", "replace": True,
                                       "text": f"// %load {path}\nint loaded = 5;\n"}]
    assert execute(kc, "%load /no/such/file.c").ename == "OSError"


def test_env_lists_shows_and_sets_for_cells_and_children(kc):
    run = execute_ok(kc, "%env GPUC_TEST_VALUE=two words")
    assert run.stream() == "env: GPUC_TEST_VALUE=two words\n"
    assert execute_ok(kc, "%env GPUC_TEST_VALUE").stream() == "two words\n"
    assert "GPUC_TEST_VALUE=two words\n" in execute_ok(kc, "%env").stream()
    assert execute_ok(kc, "!echo $GPUC_TEST_VALUE").stream() == "two words\n"
    assert execute_ok(kc, '#include <stdlib.h>\ngetenv("GPUC_TEST_VALUE")').result == \
        '"two words"'
    run = execute(kc, "%env GPUC_TEST_UNSET")
    assert run.ename == "KeyError" and "is not set" in run.content["evalue"]


def test_lsmagic_lists_the_conveniences(kc):
    out = execute_ok(kc, "%lsmagic").stream()
    for name in ["%sh", "%load", "%cd", "%pwd", "%env", "%%sh", "%%bash", "%%writefile"]:
        assert f"{name}  " in out or f"{name}\n" in out, (name, out)
    assert "Usage: !COMMAND" in execute_ok(kc, "%sh?").stream()


# --- errors in magics name the user's cell and line ----------------------------------

@pytest.mark.parametrize("code, line, text", [
    ("%timeit n_err +", 1, "error: identifier expected"),
    ("%%timeit int k = 0;\nk +=\n", 2, "error: identifier expected"),
    ("%%timeit\nundefined_fn_err();", 2, "undefined symbol 'undefined_fn_err'"),
    ("%timeit -n 1 -r 1 int *p = 0; *p = 1;", 1, "SIGSEGV"),
    ("%%time\nint *p = 0;\n*p = 2;", 3, "SIGSEGV"),
    ("%%speedup\n//%% cpu\nn_err +\n//%% gpu\nn_err++;", 3, "identifier expected"),
    ("%%speedup -n 1 -r 1\n//%% cpu\nint *p = 0; *p = 1;\n//%% gpu\nn_err++;", 3, "SIGSEGV"),
])
def test_errors_in_magics_name_the_cell_and_line(kc, code, line, text):
    execute_ok(kc, "int n_err = 3;")
    run = execute(kc, code)
    assert run.status == "error", run.describe()
    n = run.content["execution_count"]
    shown = run.content["evalue"] + "\n" + "\n".join(run.content["traceback"])
    assert text in shown, shown
    assert f"cell {n}, line {line}" in shown or f"cell {n}, line {line};" in shown, shown
    assert "gpuc-timeit" not in shown and ":0:" not in shown, shown


@pytest.mark.parametrize("code, status", [
    ("printf?", "complete"), ("exit", "complete"), ("quit()", "complete"),
    ("!echo it's", "complete"),                      # shell text: the quote opens nothing
    ("int a = 1, b = 0;\nif (a &&\n  !b", "incomplete"),  # C: the bracket is open
    # a shell or file cell magic: its body is not C (a quote opens nothing);
    # typed line by line it ends at a blank line, as in IPython's console
    ("%%bash", "incomplete"), ("%%bash\necho it's {", "incomplete"),
    ("%%bash\necho it's {\n\n", "complete"),
    ("%%writefile k.cu\n__global__ void k() {\n", "incomplete"),
    ("%%writefile k.cu\n__global__ void k() {\n\n", "complete"),
    ("%%kernel\n__global__ void k() {\n\n", "incomplete"),  # CUDA C: the brace is open
])
def test_is_complete_for_the_shortcuts_and_the_shell(kc, code, status):
    kc.is_complete(code)
    assert kc.get_shell_msg(timeout=TIMEOUT)["content"]["status"] == status
