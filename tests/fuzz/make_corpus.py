#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into tests/fuzz/corpus/<target>/
(run once; the files are committed). Seeds are small valid inputs and a few
near misses; the fuzzer finds the rest.

    usage: tests/fuzz/make_corpus.py
"""
import hashlib
import hmac
import json
import pathlib
import re
import struct

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CORPUS = HERE / "corpus"


def put(target, name, data):
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data.encode() if isinstance(data, str) else data)


def cells():
    """The cells of tests/cells/*/session.txt, in order."""
    out = []
    for f in sorted(ROOT.glob("tests/cells/*/session.txt")):
        for block in re.split(r"^### ", f.read_text(), flags=re.M)[1:]:
            head, _, body = block.partition("\n")
            if head.strip() == "cell":
                out.append(body)
    return out


def connection():
    ok = {"transport": "tcp", "ip": "127.0.0.1", "shell_port": 5555, "iopub_port": 5556,
          "stdin_port": 5557, "control_port": 5558, "hb_port": 5559,
          "key": "a0436f6c-1916-498b-8eb9-e81ab9368e84", "signature_scheme": "hmac-sha256",
          "kernel_name": "gpuc"}
    put("connection", "tcp.json", json.dumps(ok, indent=1))
    put("connection", "ipc.json", json.dumps(dict(ok, transport="ipc", ip="/tmp/kernel-1")))
    put("connection", "nokey.json", json.dumps(dict(ok, key="", signature_scheme="")))
    bad = dict(ok, hb_port=70000)
    del bad["shell_port"]
    put("connection", "bad.json", json.dumps(bad))


def wire():
    key = b"fuzz-key"
    sep = b"\n~~\n"
    header = json.dumps({"msg_id": "1", "msg_type": "execute_request", "session": "s",
                         "username": "u", "date": "2024-01-01T00:00:00.000000Z",
                         "version": "5.3"}).encode()
    content = json.dumps({"code": "int x = 1;\nx", "silent": False,
                          "store_history": True, "user_expressions": {},
                          "allow_stdin": False}).encode()
    parts = [header, b"{}", b"{}", content]
    sig = hmac.new(key, b"".join(parts), hashlib.sha256).hexdigest().encode()
    # flags: bit 0 keyed, bit 1 the harness signs
    put("wire", "signed", b"\x01" + sep.join([b"id", b"<IDS|MSG>", sig] + parts))
    put("wire", "resign", b"\x03" + sep.join([b"id1", b"id2", b"<IDS|MSG>", b""] + parts +
                                             [b"buffer"]))
    put("wire", "unsigned", b"\x00" + sep.join([b"<IDS|MSG>", b""] + parts))
    nested = b'{"msg_id":"2","msg_type":"kernel_info_request","x":[[{"a":"\\u00e9"}]]}'
    put("wire", "nested", b"\x02" + sep.join([b"<IDS|MSG>", b"", nested, b"{}", b"{}", b"{}"]))


def cell():
    for i, text in enumerate(cells()):
        if len(text) < 2000:
            put("cell", f"cell{i:03d}.c", text)
    put("cell", "typedef.c", "typedef int T;\nT x = 3;\nstruct p { T a; } q = {1};\nq.a + x")
    put("cell", "launch.c", "add<<<1, 32>>>(a, b, n);\nint f(int (*g)(int)) { return g(1); }\n")


def magic():
    for i, text in enumerate(cells()):
        if "%" in text and len(text) < 2000:
            put("magic", f"cell{i:03d}", text)
    put("magic", "lines", "int x = 1;\n%who\n  %timeit -n 3 -r 2 f(x)\n// %notmagic\n"
                          "\"%str\";\n#define P %d\n%lib m\n%lib?\n")
    put("magic", "cellmagic", "%%time\nint y = 2;\ny * y\n")


def nbformat():
    def nb(cells, **extra):
        return json.dumps(dict({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                                "cells": cells}, **extra), indent=1)

    code = {"cell_type": "code", "metadata": {}, "execution_count": None,
            "source": ["int x = 2;\n", "x * 3"], "outputs": [
                {"output_type": "stream", "name": "stdout", "text": ["hi\n"]},
                {"output_type": "display_data", "data": {"text/plain": "a"},
                 "metadata": {}, "transient": {"display_id": "d1"}}]}
    md = {"cell_type": "markdown", "metadata": {}, "source": "# title"}
    put("nbformat", "small.ipynb", nb([md, code]))
    put("nbformat", "string-source.ipynb", nb([dict(code, source="puts(\"x\");", outputs={})]))
    put("nbformat", "frames.ipynb", nb([dict(code, outputs=[
        {"op": "display", "data": {"text/plain": "b"}, "metadata": {},
         "transient": {"display_id": "d1"}, "update": True},
        {"op": "clear_output", "wait": True},
        {"op": "reply", "status": "error", "error": {"kind": "CompileError", "message": "m",
                                                     "cell": 1, "line": 2, "column": 3,
                                                     "hint": "h", "traceback": ["t"]}},
        {"status": "ok", "result": {"data": {"text/plain": "6"}, "metadata": {}}}])]))
    put("nbformat", "v3.ipynb", json.dumps({"nbformat": 3, "worksheets": []}))
    small = (ROOT / "notebooks" / "arrays.ipynb")
    if small.exists():
        put("nbformat", "arrays.ipynb", small.read_bytes())


def cache():
    def entry(kind, payload, names, key=bytes(range(32)), fix=True):
        body = payload + names
        digest = hashlib.sha256(body).digest() if fix else bytes(32)
        return (b"GPUCNVC1" + struct.pack("<IIQQ", 1, kind, len(payload), len(names)) +
                key + digest + body)

    put("cache", "ptx", entry(2, b".version 8.0\n.target sm_80\n\0", b"k\0_Z1kv\0"))
    put("cache", "cubin", entry(1, b"\x7fELF" + bytes(60), b""))
    put("cache", "badsum", entry(2, b"x\0", b"n\0l\0", fix=False))
    put("cache", "short", b"GPUCNVC1\x01\0\0\0")


def npy():
    def npy(descr, shape, fortran=False, version=(1, 0)):
        d = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
            descr, "True" if fortran else "False",
            "(%s)" % ("".join(f"{s}, " for s in shape)[:-2] + ("," if len(shape) == 1 else "")))
        size_len = 2 if version[0] == 1 else 4
        total = 6 + 2 + size_len + len(d) + 1
        d += " " * ((64 - total % 64) % 64) + "\n"
        head = b"\x93NUMPY" + bytes(version)
        head += struct.pack("<H" if size_len == 2 else "<I", len(d))
        return head + d.encode("latin1")

    put("npy", "f4_2x3", npy("<f4", (2, 3)))
    put("npy", "f8_scalar", npy("<f8", ()))
    put("npy", "i8_big_fortran", npy(">i8", (4, 5, 6), fortran=True))
    put("npy", "u1_v2", npy("|u1", (7,), version=(2, 0)))
    put("npy", "b1_v3", npy("|b1", (1, 2, 3, 4, 5, 6, 7, 8), version=(3, 0)))
    put("npy", "c16_bad", npy("<c16", (3,)))
    put("npy", "i4_huge", npy("<i4", (2**62, 4)))


for make in (connection, wire, cell, magic, nbformat, cache, npy):
    make()
