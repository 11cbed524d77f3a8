"""jupyter_kernel_test's conformance suite for gpuc, every applicable
attribute filled in, plus checks of the installed kernelspec and the
`gpuc` command line.

jupyter_kernel_test 0.7.0 starts one kernel for the class (setUpClass) and
runs its tests in name order in it. Completion matches are compared as sets,
exactly, so each sample's prefix has exactly the matches listed: keywords,
a header name, a magic, and `inspect_me`, which setUpClass defines.
"""
import json
import os
import subprocess
import unittest

import jupyter_kernel_test

from gpuc_testing.kernel import TIMEOUT, scaled


class GpucKernelTests(jupyter_kernel_test.KernelTests):
    kernel_name = "gpuc"

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        reply = cls.kc.execute_interactive("int inspect_me = 42;", timeout=TIMEOUT,
                                           output_hook=lambda msg: None)
        assert reply["content"]["status"] == "ok", reply["content"]

    language_name = "c"
    file_extension = ".c"

    code_hello_world = 'printf("hello, world\\n");'
    code_stderr = 'fprintf(stderr, "oops\\n");'

    completion_samples = [
        {"text": "retu", "matches": {"return"}},
        {"text": "whi", "matches": {"while"}},
        {"text": "int x = 1; retu", "matches": {"return"}},
        {"text": "inspect_m", "matches": {"inspect_me"}},
        {"text": "memcp", "matches": {"memcpy"}},
        {"text": "%lsmag", "matches": {"%lsmagic"}},
    ]

    complete_code_samples = [
        "int x = 1;",
        "x + 1",
        "int f(void) { return 1; }",
        "#include <stdio.h>",
        'printf("}\\n");',
    ]
    incomplete_code_samples = [
        "int f() {",
        "/* unterminated",
        "for (int i = 0; i < 3; i++) {",
    ]
    invalid_code_samples = [
        "}",
        "int x = 1; }",
    ]

    # name? answers with the pager payload, as IPython does
    code_page_something = "printf?"

    code_generate_error = "int x = ;"

    code_execute_result = [
        {"code": "6 * 7", "result": "42"},
        {"code": "1 + 2 + 3", "result": "6"},
    ]

    code_display_data = [
        {"code": 'display_html("<b>hi</b>");', "mime": "text/html"},
        {"code": 'display_markdown("# hi");', "mime": "text/markdown"},
        {"code": 'display_svg("<svg xmlns=\\"http://www.w3.org/2000/svg\\"/>");',
         "mime": "image/svg+xml"},
        {"code": 'display_json("{\\"a\\": 1}");', "mime": "application/json"},
        {"code": 'display_text("plain");', "mime": "text/plain"},
        {"code": 'display_mime("text/latex", "$x^2$");', "mime": "text/latex"},
    ]

    # A glob, as IPython's history search takes; matches "6 * 7".
    code_history_pattern = "6*7"
    supported_history_operations = ("tail", "range", "search")

    # inspect answers for the session's names and the headers' (with a doc)
    code_inspect_sample = "printf"

    code_clear_output = "clear_output(0);"

    # --- beyond the base class: a fault is an error with one error message,
    # and a segfault does not need a different kernel.
    def test_error_segfault(self):
        self.flush_channels()
        reply, output_msgs = self.execute_helper("int *p = 0; *p = 1;")
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["ename"], "SegmentationFault")
        self.assertEqual([m["msg_type"] for m in output_msgs], ["error"])

    def test_error_compile(self):
        self.flush_channels()
        reply, output_msgs = self.execute_helper(self.code_generate_error)
        content = reply["content"]
        self.assertEqual(content["ename"], "CompileError")
        self.assertTrue(content["evalue"])
        tb = "\n".join(content["traceback"])
        self.assertIn("int x = ;", tb, "the traceback shows the source line")
        self.assertIn("^", tb, "the traceback points at the column")
        self.assertEqual(output_msgs[0]["content"]["ename"], "CompileError")


class KernelspecInstallTests(unittest.TestCase):
    """What `gpuc install --prefix` wrote (see tests/conftest.py)."""

    def setUp(self):
        from jupyter_client.kernelspec import KernelSpecManager
        self.spec = KernelSpecManager().get_kernel_spec("gpuc")

    def test_spec(self):
        exe = os.environ.get("GPUC_BIN")
        argv = self.spec.argv
        self.assertTrue(os.path.isabs(argv[0]), argv)
        if exe:
            self.assertEqual(os.path.realpath(argv[0]), os.path.realpath(exe))
        self.assertEqual(argv[1:], ["kernel", "-f", "{connection_file}"])
        self.assertEqual(self.spec.display_name, "C + CUDA (gpuc)")
        self.assertEqual(self.spec.language.lower(), "c")
        self.assertEqual(self.spec.interrupt_mode, "signal")

    def test_logos(self):
        files = set(os.listdir(self.spec.resource_dir))
        for name in ("kernel.json", "logo-32x32.png", "logo-64x64.png", "logo-svg.svg"):
            self.assertIn(name, files)
        with open(os.path.join(self.spec.resource_dir, "logo-32x32.png"), "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(self.spec.resource_dir, "kernel.json")) as f:
            json.load(f)

    def test_version_matches_kernel_info(self):
        out = subprocess.run([self.spec.argv[0], "--version"], capture_output=True,
                             text=True, timeout=scaled(10))
        self.assertEqual(out.returncode, 0)
        self.assertRegex(out.stdout.strip(), r"^gpuc \d+\.\d+\.\d+")
        from gpuc_testing.kernel import start_kernel, stop_kernel
        km, kc = start_kernel("gpuc")
        try:
            kc.kernel_info()
            reply = kc.get_shell_msg(timeout=TIMEOUT)
        finally:
            stop_kernel(km, kc)
        self.assertEqual(out.stdout.split()[1], reply["content"]["implementation_version"])

    def test_bad_connection_file(self):
        out = subprocess.run([self.spec.argv[0], "kernel", "-f", "/nonexistent/conn.json"],
                             capture_output=True, text=True, timeout=scaled(10))
        self.assertNotEqual(out.returncode, 0)
        self.assertTrue(out.stderr.strip(), "a clear startup error on stderr")
