#!/usr/bin/env python3
"""check_layers: the project's C sources include only from the layers below.

Reads every `#include "..."` of the C sources and headers under the folders
of LAYERS and fails (exit 1) when a file includes a header from a folder its
layer may not use, printing one line per include:

    kernel/jk_shell.c:12: includes rt_session.h from layer runtime above layer kernel

when a file outside a folder includes that folder's internal header (a
name ending in _internal.h: the state its own files share; tests may), and
when the includes between folders form a cycle. Headers are found by
name: every header of the scanned folders is mapped from its basename to its
folder (a basename held by two folders is an error). System headers (<...>)
and headers not in the tree (jansson.h, libtcc.h, zmq.h, sodium.h) are
ignored; the headers CMake generates belong to the folders in GENERATED.

Usage: check_layers.py [ROOT]    (ROOT: the source tree; default: ..)
       check_layers.py --self-test
"""
import os
import re
import sys
import tempfile

# The layering, top to bottom. Each folder may include from itself and from
# the folders listed with it ("*": anything). A file belongs to the deepest
# folder of this table that holds it. Adjust here when folders move.
LAYERS = [
    ("src", "*"),
    ("bench", "*"),
    ("tests", "*"),
    ("kernel", ["common"]),
    ("runtime", ["runtime/magics", "runtime/session", "runtime/cell", "runtime/array",
                 "backend", "backend/cuda", "backend/sim", "common"]),
    ("runtime/magics", ["runtime/session", "runtime/cell", "runtime/array",
                        "backend", "backend/cuda", "backend/sim", "common"]),
    ("runtime/session", ["runtime/cell", "runtime/array", "backend", "backend/cuda", "backend/sim",
                         "common"]),
    ("runtime/cell", ["runtime/array", "backend", "backend/cuda", "backend/sim", "common"]),
    ("runtime/array", ["backend", "common"]),  # the floor only: never a backend itself
    ("backend", ["backend/cuda", "backend/sim", "backend/cpu", "common"]),
    ("backend/cuda", ["backend/sim", "common"]),
    ("backend/sim", ["backend/cpu", "common"]),
    ("backend/cpu", ["common"]),
    ("common", []),
]

# Headers CMake writes into the build folder, and the folder they belong to.
GENERATED = {"gpuc_config.h": "common", "jk_logos.h": "kernel"}

SOURCE_EXTENSIONS = (".c", ".h")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def layer_of(path, layers):
    """The deepest folder of layers that holds path (relative, '/'), or None."""
    best = None
    for folder, _ in layers:
        if path.startswith(folder + "/") and (best is None or len(folder) > len(best)):
            best = folder
    return best


def source_files(root, layers):
    """Relative paths of the C files under the layers' folders, sorted."""
    found = set()
    for folder, _ in layers:
        top = os.path.join(root, folder)
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                if name.endswith(SOURCE_EXTENSIONS):
                    rel = os.path.relpath(os.path.join(dirpath, name), root)
                    found.add(rel.replace(os.sep, "/"))
    return sorted(found)


def header_map(files, layers):
    """basename -> folder of the tree's headers; problems as a list of lines."""
    where, problems = {}, []
    for path in files:
        if not path.endswith(".h"):
            continue
        name = os.path.basename(path)
        if name in where:
            problems.append("%s: header name %s is ambiguous: also %s"
                            % (path, name, where[name][1]))
            continue
        where[name] = (layer_of(path, layers), path)
    folders = {name: folder for name, (folder, _) in where.items()}
    for name, folder in GENERATED.items():
        folders.setdefault(name, folder)
    return folders, problems


def find_cycles(edges):
    """The strongly connected components of more than one folder (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def cycle_path(component, edges):
    """One cycle through component's first folder: [a, b, ..., a]."""
    start = component[0]
    members = set(component)
    paths = [[start]]
    seen = {start}
    while paths:
        path = paths.pop(0)
        for w in sorted(edges.get(path[-1], ())):
            if w == start:
                return path + [start]
            if w in members and w not in seen:
                seen.add(w)
                paths.append(path + [w])
    return component + [start]


def check(root, layers=LAYERS):
    """The violations of the tree at root, as printable lines."""
    allowed = {folder: uses for folder, uses in layers}
    rank = {folder: i for i, (folder, _) in enumerate(layers)}
    files = source_files(root, layers)
    folders, problems = header_map(files, layers)
    edges = {}     # folder -> {folder it includes from: first "file:line"}
    for path in files:
        own = layer_of(path, layers)
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                header = os.path.basename(m.group(1))
                theirs = folders.get(header)
                if theirs is None or theirs == own:
                    continue
                edges.setdefault(own, {}).setdefault(theirs, "%s:%d" % (path, number))
                uses = allowed[own]
                if header.endswith("_internal.h") and uses != "*":
                    problems.append("%s:%d: includes %s, internal to %s"
                                    % (path, number, header, theirs))
                    continue
                if uses == "*" or theirs in uses:
                    continue
                side = "above" if rank[theirs] < rank[own] else "beside"
                problems.append("%s:%d: includes %s from layer %s %s layer %s"
                                % (path, number, header, theirs, side, own))
    for component in find_cycles(edges):
        path = cycle_path(component, edges)
        steps = ["%s includes from %s" % (edges[a][b], b) for a, b in zip(path, path[1:])]
        problems.append("cycle between folders %s: %s" % (" -> ".join(path), "; ".join(steps)))
    return problems


# ---- the self-test --------------------------------------------------------

def write_tree(root, files):
    for path, text in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)


CLEAN = {
    "common/cm_error.h": "#include <stdio.h>\n",
    "common/cm_error.c": '#include "cm_error.h"\n#include "gpuc_config.h"\n',
    "backend/cuda/gpu.h": '#include "cm_error.h"\n',
    "backend/sim/sim.h": '#include "cm_error.h"\n',
    "backend/cuda/gpu.c": '#include "gpu.h"\n#include "sim.h"\n#include "jansson.h"\n',
    "runtime/cell/rt_lex.h": '#include "gpu.h"\n',
    "runtime/array/rt_array.h": '#include "cm_error.h"\n',
    "runtime/rt_executor.c": '#include "rt_lex.h"\n#include "libtcc.h"\n',
    "kernel/jk_wire.c": '#include "cm_error.h"\n#include "jk_logos.h"\n#include "zmq.h"\n',
    "src/main.c": '#include "jk_wire.h"\n#include "rt_lex.h"\n',
    "tests/unit/test_lex.c": '#include "rt_lex.h"\n',
}


def self_test():
    cases = [
        ("a clean tree passes", CLEAN, LAYERS, []),
        ("an upward include fails",
         dict(CLEAN, **{"backend/cuda/gpu_module.c": '#include "gpu.h"\n#include "rt_array.h"\n'}),
         LAYERS, ["backend/cuda/gpu_module.c:2: includes rt_array.h from layer runtime/array above layer backend/cuda"]),
        ("kernel may not use the runtime",
         dict(CLEAN, **{"kernel/jk_shell.c": '\n#include "rt_lex.h"\n'}),
         LAYERS, ["kernel/jk_shell.c:2: includes rt_lex.h from layer runtime/cell beside layer kernel"]),
        ("an ambiguous header name fails",
         dict(CLEAN, **{"runtime/cell/gpu.h": ""}),
         LAYERS, ["runtime/cell/gpu.h: header name gpu.h is ambiguous: also backend/cuda/gpu.h"]),
        ("another folder's internal header fails, also from a layer above",
         dict(CLEAN, **{"runtime/cell/rt_lex_internal.h": "",
                        "runtime/cell/rt_lex.c": '#include "rt_lex_internal.h"\n',
                        "runtime/rt_complete.c": '#include "rt_lex_internal.h"\n',
                        "tests/unit/test_lex_internal.c": '#include "rt_lex_internal.h"\n'}),
         LAYERS, ["runtime/rt_complete.c:1: includes rt_lex_internal.h, internal to runtime/cell"]),
        ("a cycle fails",
         dict(CLEAN, **{"common/cm_log.h": '#include "gpu.h"\n'}),
         LAYERS, ["common/cm_log.h:1: includes gpu.h from layer backend/cuda above layer common",
                  "cycle between folders backend/cuda -> common -> backend/cuda: backend/cuda/gpu.h:1 "
                  "includes from common; common/cm_log.h:1 includes from backend/cuda"]),
        ("a cycle fails even where the table allows both directions",
         dict(CLEAN, **{"common/cm_log.h": '#include "gpu.h"\n'}),
         [(f, "*" if f in ("common", "backend/cuda") else uses) for f, uses in LAYERS],
         ["cycle between folders backend/cuda -> common -> backend/cuda: backend/cuda/gpu.h:1 "
          "includes from common; common/cm_log.h:1 includes from backend/cuda"]),
    ]
    failed = 0
    for name, files, layers, expected in cases:
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, files)
            got = check(root, layers)
        if got != expected:
            failed += 1
            print("FAIL %s\n  expected %r\n  got      %r" % (name, expected, got))
        else:
            print("ok   %s" % name)
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    problems = check(root)
    for line in problems:
        print(line)
    if problems:
        print("check_layers: %d problem%s" % (len(problems), "" if len(problems) == 1 else "s"))
        return 1
    print("check_layers: the includes follow the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
