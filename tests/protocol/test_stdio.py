"""A cell's standard streams as front ends see them, through the real
jupyter_client: typed input on the stdin channel (allow_stdin), end of file
and one note without it, interrupts during waits that end the cell, and
stdout/stderr arriving in the order written."""
import time

import pytest

from gpuc_testing.kernel import TIMEOUT, collect, execute, execute_ok, scaled, value_of


def run_with_input(kc, code, answers, **kwargs):
    """Runs code with allow_stdin, answering each input_request in turn.
    Returns (run, the input_request contents)."""
    sent = time.monotonic()
    msg_id = kc.execute(code, allow_stdin=True, **kwargs)
    requests = []
    for answer in answers:
        msg = kc.stdin_channel.get_msg(timeout=TIMEOUT)
        assert msg["msg_type"] == "input_request"
        assert msg["parent_header"]["msg_id"] == msg_id
        requests.append(msg["content"])
        kc.input(answer)
    return collect(kc, msg_id, sent=sent), requests


def no_more_input_requests(kc):
    return (not kc.stdin_channel.msg_ready()
            and not kc.stdin_channel.socket.poll(int(scaled(0.1) * 1000)))


# --- typed input ----------------------------------------------------------

def test_scanf_two_numbers_two_requests(kc):
    code = ('#include <stdio.h>\nint a = 0, b = 0;\nprintf("two numbers: ");\n'
            'scanf("%d", &a);\nscanf("%d", &b);\nprintf("sum %d\\n", a + b);')
    run, requests = run_with_input(kc, code, ["3", "39"])
    assert run.status == "ok", run.describe()
    # the text on the current line is the prompt (as ipykernel's input(prompt)),
    # not output
    assert requests == [{"prompt": "two numbers: ", "password": False},
                        {"prompt": "", "password": False}]
    assert run.stream() == "sum 42\n"
    assert no_more_input_requests(kc)


def test_fgets_getline_and_read_line_by_line(kc):
    code = ('#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n'
            'char buf[64]; char *line = NULL; size_t cap = 0; char raw[64];\n'
            'printf("name? "); fgets(buf, sizeof buf, stdin);\n'
            'ssize_t n = getline(&line, &cap, stdin);\n'
            'ssize_t r = read(0, raw, sizeof raw);\n'
            'printf("[%s][%s][%.*s]%zd %zd\\n", buf, line, (int)r, raw, n, r); free(line);')
    run, requests = run_with_input(kc, code, ["Ada Lovelace", "second", "third"])
    assert run.status == "ok", run.describe()
    assert [r["prompt"] for r in requests] == ["name? ", "", ""]
    assert run.stream() == "[Ada Lovelace\n][second\n][third\n]7 6\n"


def test_getchar_loop_reads_the_line_then_asks_again(kc):
    code = ('#include <stdio.h>\nint count = 0, c;\n'
            'while ((c = getchar()) != EOF && c != \'.\') count += c != \'\\n\';\n'
            'printf("%d characters\\n", count);')
    run, requests = run_with_input(kc, code, ["abc", "de."])
    assert run.status == "ok", run.describe()
    assert len(requests) == 2
    assert run.stream() == "5 characters\n"


def test_input_left_unread_is_dropped_at_the_next_cell(kc):
    run, _ = run_with_input(kc, 'int first; scanf("%d", &first);', ["1 2 3"])
    assert run.status == "ok", run.describe()
    run, requests = run_with_input(kc, 'int second; scanf("%d", &second); second', ["7"])
    assert len(requests) == 1 and run.result == "7"


def test_no_stdin_gives_end_of_file_and_one_note(kc):
    code = ('#include <stdio.h>\n#include <unistd.h>\nchar buf[16]; int x = -5;\n'
            'int got = scanf("%d", &x);\nchar *s = fgets(buf, sizeof buf, stdin);\n'
            'int c = getchar();\nlong r = read(0, buf, sizeof buf);\n'
            'printf("%d %d %s %d %ld\\n", got, x, s ? "line" : "NULL", c, r);')
    run = execute(kc, code, allow_stdin=False)
    assert run.status == "ok", run.describe()
    assert run.stream("stdout") == "-1 -5 NULL -1 0\n"
    note = run.stream("stderr")
    assert note.count("sends no input") == 1, note
    assert no_more_input_requests(kc)


# --- interrupts end the cell ---------------------------------------------

WAITS = {
    "sleep": "#include <unistd.h>\nsleep(30);",
    "usleep": "#include <unistd.h>\nusleep(30 * 1000 * 1000);",
    "nanosleep": "#include <time.h>\nstruct timespec ts = {30, 0};\nnanosleep(&ts, NULL);",
    "clock_nanosleep": "#include <time.h>\nstruct timespec ts = {30, 0};\n"
                       "clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);",
}


@pytest.mark.parametrize("name", list(WAITS))
def test_interrupt_in_a_wait_stops_the_cell(fresh_kernel, name):
    km, kc = fresh_kernel
    execute_ok(kc, "int kept = 1;")
    code = WAITS[name] + '\nkept = 2;\nprintf("after\\n");'
    run = execute(kc, code, actions=[(scaled(1.0), km.interrupt_kernel)])
    assert run.status == "error", run.describe()
    assert run.ename == "Interrupted"
    line = WAITS[name].count("\n") + 1  # the wait is the code's last line
    assert f"in {name}(), called in the top-level code of cell {run.content['execution_count']}, " \
           f"line {line};" in run.content["evalue"], run.content["evalue"]
    assert run.reply["_t"] - run.action_times[0] < scaled(1.0)
    assert "after" not in run.stream()
    assert value_of(kc, "kept") == "1"  # the statement after the wait did not run
    assert execute_ok(kc, 'printf("next\\n");').stream() == "next\n"


@pytest.mark.parametrize("call", ['scanf("%d", &kept)', "getchar()",
                                  "read(0, buf, sizeof buf)"])
def test_interrupt_while_waiting_for_input(fresh_kernel, call):
    km, kc = fresh_kernel
    execute_ok(kc, "#include <stdio.h>\n#include <unistd.h>\nint kept = 1; char buf[8];")
    sent = time.monotonic()
    msg_id = kc.execute(f"{call};\nkept = 2;", allow_stdin=True)
    assert kc.stdin_channel.get_msg(timeout=TIMEOUT)["msg_type"] == "input_request"
    km.interrupt_kernel()
    run = collect(kc, msg_id, sent=sent)
    assert run.status == "error" and run.ename == "Interrupted", run.describe()
    kc.input("99")  # a late answer to the request of the interrupted cell: dropped
    assert value_of(kc, "kept") == "1"
    run, requests = run_with_input(kc, 'scanf("%d", &kept); kept', ["5"])
    assert len(requests) == 1 and run.result == "5", run.describe()


# --- output order -----------------------------------------------------------

def merged(run):
    """The stream messages as (name, text), consecutive ones of a name joined."""
    out = []
    for m in run.of_type("stream"):
        name, text = m["content"]["name"], m["content"]["text"]
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1] + text)
        else:
            out.append((name, text))
    return out


def test_stdout_and_stderr_in_the_order_written(kc):
    code = ('#include <stdio.h>\n#include <stdlib.h>\n#include <unistd.h>\n#include <errno.h>\n'
            'printf("1 out\\n");\nfprintf(stderr, "2 err\\n");\nprintf("3 out, ");\n'
            'write(2, "4 write(2)\\n", 11);\nputs("5 puts");\nerrno = ENOENT; perror("6 perror");\n'
            'fputs("7 fputs\\n", stdout);\nwrite(1, "8 write(1)\\n", 11);\n'
            'system("echo 9 child; echo 10 child err >&2");\nfputc(\'!\', stderr);\nputchar(\'\\n\');')
    run = execute_ok(kc, code)
    # the cell's own writes in the order written; a child's come after what
    # the cell wrote before starting it (its stdout and stderr are two pipes
    # of its own, so their order between themselves, and against what the
    # cell writes after the child ended, is the order they are read in)
    got = merged(run)
    child = [(name, text) for name, text in got if "child" in text]
    own = [(name, text.replace("9 child\n", "").replace("10 child err\n", ""))
           for name, text in got]
    own = [(name, text) for name, text in own if text]
    joined = []
    for name, text in own:
        if joined and joined[-1][0] == name:
            joined[-1] = (name, joined[-1][1] + text)
        else:
            joined.append((name, text))
    assert joined == [
        ("stdout", "1 out\n"), ("stderr", "2 err\n"), ("stdout", "3 out, "),
        ("stderr", "4 write(2)\n"), ("stdout", "5 puts\n"),
        ("stderr", "6 perror: No such file or directory\n"),
        ("stdout", "7 fputs\n8 write(1)\n"), ("stderr", "!"),
        ("stdout", "\n")], run.describe()
    assert "9 child\n" in run.stream("stdout") and "10 child err\n" in run.stream("stderr")
    texts = [text for _, text in got]
    first_child = min(i for i, t in enumerate(texts) if "child" in t)
    assert "8 write(1)" in "".join(texts[:first_child + 1]).split("child")[0], run.describe()
    assert child


def test_many_alternations_keep_their_order(kc):
    code = ('#include <stdio.h>\nfor (int i = 0; i < 2000; i++)\n'
            '    fprintf(i % 3 ? stdout : stderr, "%d\\n", i);')
    run = execute_ok(kc, code)
    lines = [(name, int(x)) for name, text in merged(run) for x in text.split()]
    assert [i for _, i in lines] == list(range(2000))
    assert all((name == "stderr") == (i % 3 == 0) for name, i in lines)


def test_interleaved_flood_is_capped(fresh_kernel):
    km, kc = fresh_kernel
    run = execute(kc, '#include <stdio.h>\n#include <string.h>\nchar xs[2049], ys[2049];\n'
                      'memset(xs, \'x\', 2048); memset(ys, \'y\', 2048);\n'
                      'for (;;) { fputs(xs, stdout); fputs(ys, stderr); }',
                  actions=[(scaled(8.0), km.interrupt_kernel)], timeout=scaled(60))
    assert run.status == "error"
    text = run.stream("stdout") + run.stream("stderr")
    assert text.count("x") >= 2**20 and text.count("y") >= 2**20, run.describe()
    assert len(text.encode()) <= 10 * 2**20 + 64 * 1024
    assert "passed 10 MB" in run.stream("stderr"), run.describe()
    assert execute_ok(kc, 'printf("after\\n");').stream() == "after\n"


def test_a_cells_thread_that_sleeps_and_prints_does_not_hold_the_interrupt(fresh_kernel):
    km, kc = fresh_kernel
    execute_ok(kc, "#include <pthread.h>\n#include <stdio.h>\n#include <unistd.h>\n"
                   "void *chatter(void *arg) { for (int i = 0; i < 3000; i++) "
                   "{ usleep(1000); fprintf(stderr, \"\"); } return arg; }")
    run = execute(kc, "pthread_t th; pthread_create(&th, NULL, chatter, NULL);\n"
                      "int kept = 1; for (;;) kept = 1;",
                  actions=[(scaled(1.0), km.interrupt_kernel)])
    assert run.ename == "Interrupted", run.describe()
    assert run.reply["_t"] - run.action_times[0] < scaled(1.0)
    assert execute_ok(kc, 'pthread_join(th, NULL); printf("joined\\n");').stream() == "joined\n"
