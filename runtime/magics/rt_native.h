/* rt_native: host code compiled by a system compiler (cc for %%cc, g++
 * for C++ cells) into a shared object loaded into the session. What the
 * object does not define of the session comes from a stub library whose
 * dynamic symbols are the session's addresses; the compiler's messages
 * about the cell become a CompileError on the cell's lines. See
 * docs/magics.md (%%cc) and docs/cells.md (C++ host cells). */
#ifndef RT_NATIVE_H
#define RT_NATIVE_H

#include <stddef.h>

#include "cm_buf.h"
#include "rt_magic.h"
#include "rt_plan.h"
#include "rt_session_defs.h"

typedef struct rt_native {
    const char *what;     /* the cells' name in messages: "%%cc", "C++" */
    const char *language; /* "C", "C++": "the C compiler failed" */
    const char *ext;      /* the source file's extension: "c", "cc" */
    char compiler[4096];  /* the command */
    char flags[2048];
    /* A linker dynamic list of the symbols the object must share with the
     * rest of the process rather than bind to its own copy (a C++ runtime's
     * facet ids), or NULL: everything it defines binds to itself. */
    const char *shared;
    /* 1: rt_cc_fallback's try at a cell TCC could not compile. Its source
     * is the cell as planned for TCC, on the cell's lines but not its
     * columns: errors point at the name they quote (rt_source_column);
     * its warnings are shown only when it builds (else TCC's messages are
     * the cell's). */
    int fallback;
    /* 1: an object built before from the same source, flags and session
     * symbols is loaded again (a fresh copy) instead of compiled; the
     * build's time and whether it was a hit are set here. */
    /* 1: the compiler is nvcc (ext "cu"): options for
     * the host compiler and the linker go through -Xcompiler / -Xlinker,
     * and the stub library is built by cc */
    int nvcc;
    int cache;            /* (the cell's number is not part of the key) */
    int cache_hit;
    int built_in;         /* the cell whose build it is: its lines are "cell[N]" */
    double build_ms;
} rt_native_t;

/* The compiler command: $env, else fallback, in n->compiler. 0 when its
 * program is found. */
int rt_native_find_compiler(rt_native_t *n, const char *env, const char *fallback);

/* The flags of the cell magic m (after its name), else defaults, in
 * n->flags. 0, or -1 with err set (too long). */
int rt_native_set_flags(rt_native_t *n, const char *code, const rt_magic_line_t *m,
                        const char *defaults, int cell, rt_error_t *err);

/* Which prelude entries a cell that declares plan's keys replaces: a new
 * array of rt_session_prelude(s)->n + 1 flags (caller frees). */
char *rt_native_excluded(const rt_session_t *s, const rt_plan_t *plan);

/* The session's C declarations for a native cell: gpuc.h and the prelude
 * entries not excluded (excluded[i] non-zero), ready for a shared object.
 * For a C++ source (cxx non-zero) they are in extern "C" { }, but for the
 * headers included by <name>, which say their own linkage
 * (rt_cxx_library_include). */
void rt_native_add_session(const rt_session_t *s, const char *excluded, int cxx, cm_buf_t *src);

/* Compiles source into a shared object (linked against the stub of the
 * session's symbols, less those plan defines) and loads it. body is the
 * cell's text, for the lines of its errors (reported as file "cell[N]").
 * Returns the handle, or NULL with err set. */
void *rt_native_build(rt_session_t *s, rt_native_t *n, const char *source,
                      const char *body, int cell, const rt_plan_t *plan, rt_error_t *err);

/* Makes plan's declarations part of the session, and the variables and
 * functions the object exports session symbols; names gets their names,
 * comma-separated. */
void rt_native_commit(rt_session_t *s, void *h, const rt_plan_t *plan, cm_buf_t *names);

/* ---- C++ objects (rt_cpp.c), which whole programs share (rt_program.c) */

/* The linker dynamic list of the C++ runtime's names (rt_native_t.shared
 * for C++): those bind to the process's one libstdc++. */
extern const char rt_cpp_shared[];

/* Loads the libstdc++ of n's compiler, once, before the first C++ object. */
void rt_cpp_load_runtime(const rt_native_t *n);

/* The C++ entry points of an object whose source is code (a cell at file
 * "cell[CELL]"): __gpuc_cpp_run (nothing to run) and, main_kind as
 * rt_cxx_main_kind says, __gpuc_cpp_main calling its main; both catch
 * what is thrown. */
void rt_cpp_add_main(cm_buf_t *b, const char *code, int cell, int main_kind);

/* Later C++ cells see the host #include lines (and `using namespace
 * std;`) of code, a whole program, as they see a C++ cell's. */
void rt_cpp_keep_includes(rt_session_t *s, const char *code);

/* Runs a loaded C++ object's entry points (rt_cpp_add_main) inside the
 * protected boundary; an uncaught exception is an error. 0 / -1 with err. */
int rt_cpp_run_object(rt_session_t *s, void *h, int cell, rt_error_t *err);

#endif
