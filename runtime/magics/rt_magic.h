/* rt_magic: the magics of host cells. A line magic (`%name args`) stands
 * on its own line of a host cell; a cell magic (`%%name args`) is the
 * first line of its cell. `%name?` prints a magic's usage and help. The
 * magics are listed once, in rt_magic_list.h; each lives in a file of its
 * own; docs/magics.md describes them. */
#ifndef RT_MAGIC_H
#define RT_MAGIC_H

#include <stddef.h>

#include "cm_buf.h"
#include "rt_error.h"
#include "rt_lex.h"
#include "rt_segment.h"
#include "rt_session.h"

/* One magic line of a cell. */
typedef struct rt_magic_line {
    size_t start;      /* offset of its '%' */
    size_t end;        /* offset of its end (the '\n' or the cell's end) */
    size_t next;       /* offset of the line after it */
    int line;          /* 1-based line in the cell */
    int cell;          /* 1 for %%name */
    int help;          /* 1 for %name? */
    int first;         /* 1 when no code comes before it in the cell */
    char name[64];     /* without % (truncated names never match) */
    size_t args, args_len; /* the arguments, trimmed: code[args, args + args_len) */
    const rt_tokens_t *toks; /* the cell read once (borrowed): a magic that runs a
                              * piece of its cell passes these on (rt_segment_of_tokens) */
} rt_magic_line_t;

/* What runs a magic: the magic line m of cell `code` (number cell_no) in
 * session s. It prints what it shows to stdout. Returns 0, or -1 with err
 * set. For a cell magic the body is code[m->next, end). */
typedef int (*rt_magic_fn)(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                           int cell_no, rt_error_t *err);

typedef struct rt_magic_info {
    const char *name;  /* without % */
    int cell;          /* 1 for a cell magic (%%name), 0 for a line magic */
    const char *usage; /* "%lib NAME" */
    const char *help;  /* one paragraph, shown by %name? */
    rt_magic_fn fn;    /* NULL: planned; running it is a NotImplemented error */
} rt_magic_info_t;

/* The magics gpuc knows, in the order %lsmagic lists them; *n gets the
 * count. Borrowed, static. */
const rt_magic_info_t *rt_magic_table(size_t *n);

/* Finds the first magic line of the cell read once into cell (offsets are
 * bytes of cell->src) at or after offset `from`, a line start: a line
 * whose first non-blank characters are `%` and a name (or `%%` and a
 * name), outside comments, string literals and preprocessor lines.
 * Returns 1 and fills *m, or 0 when there is none. */
int rt_magic_find(const rt_tokens_t *cell, size_t from, rt_magic_line_t *m);

/* The magic lines of a cell in order, and the tokens of what follows
 * each. A magic line is not C: when a token of one runs past its end
 * (a `%sh` line with a slash and a star together opens a comment), the cell's tokens after it are not what
 * the code there means, and the rest of the cell is lexed again from the
 * next line: the one lex of a cell's text besides the runner's. */
typedef struct rt_magic_walk {
    const rt_tokens_t *cell; /* borrowed */
    rt_tokens_t rest;        /* lexed again after a line that spilled (v NULL: none) */
    size_t from;             /* where the next search starts */
    int spilled;
} rt_magic_walk_t;

/* Starts a walk of the cell read once into cell. */
rt_magic_walk_t rt_magic_walk(const rt_tokens_t *cell);

/* The next magic line into *m (1), or 0 at the end. */
int rt_magic_next(rt_magic_walk_t *w, rt_magic_line_t *m);

/* The tokens of the text since the last magic line (borrowed until the
 * next rt_magic_next): the cell's, or those lexed again. */
const rt_tokens_t *rt_magic_walk_tokens(const rt_magic_walk_t *w);

void rt_magic_walk_free(rt_magic_walk_t *w);

/* Runs one magic line of code in session s (help for %name?, errors for
 * unknown and planned magics). Returns 0, or -1 with err set. */
int rt_magic_run(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                 rt_error_t *err);

/* The magic's arguments split at blanks, appended to out (caller frees). */
void rt_magic_args(const char *code, const rt_magic_line_t *m, cm_names_t *out);

/* Compiles the device part of a .cu-style cell (rt_device_split) with
 * NVRTC, as %%kernel compiles its body. Returns 0, or -1 with err set. */
int rt_magic_device_part(rt_session_t *s, const char *device, int cell_no, rt_error_t *err);

/* Gives device code what host code declares that it may use, as one .cu
 * file would: its #define lines, types and namespace-scope constants
 * (rt_device_declarations), for later kernel cells (and the device part
 * of host's own .cu-style cell). host: a host cell (with no cell magic, or
 * %%cpp), or a .cu-style cell's host part. */
void rt_magic_host_declarations(const rt_tokens_t *host, int cell_no);

/* Runs a host part that rt_cxx_detect finds to be C++ (a whole cell, or
 * the host part of a .cu-style cell) as a %%cpp cell. 0, or -1 with err
 * set; its result is the session's (rt_session_take_result). */
int rt_magic_cpp_part(rt_session_t *s, const char *host, int cell_no, rt_error_t *err);

/* After TCC failed to compile a code segment (err holds its
 * CompileError): the same code, planned the same way, compiled by the
 * system C compiler into the session (rt_cc.c) and run. 0 when that
 * compiler took it (err cleared; the run's result is the session's), -1
 * with err set otherwise: the run's error, or TCC's own when the system
 * compiler fails too, is missing, or err was no CompileError. */
int rt_cc_fallback(rt_session_t *s, const rt_segment_t *seg, rt_error_t *err);

/* Whether a host cell or part, read once into t, is C++: rt_cxx_detect
 * finds it so, or it names what only earlier C++ cells declared (a class,
 * a std:: variable, a C++ function; not a name C cells declare too). */
int rt_cpp_is_cpp(const rt_session_t *s, const rt_tokens_t *t);

/* Forgets what earlier C++ cells gave later ones (%reset). */
void rt_cpp_reset(void);

/* gpuc's compile notes ("compiled saxpy for sm_90 in 12.0 ms", "compiled
 * as C++"): a program's stdout is its own, so they are off by default and
 * go to stderr when shown - in every cell while the environment variable
 * GPUC_VERBOSE is set to something other than 0 (`%env GPUC_VERBOSE=1`),
 * in one cell with `%%cuda --verbose` / `%%kernel -v`
 * (rt_magic_verbose_cell). */
void rt_magic_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The options of %%kernel's (or %%cuda's) line m, blank-separated, in
 * options (at most cap bytes), without -v / --verbose, which turn the
 * running cell's notes on (rt_magic_verbose_cell). */
void rt_magic_options(const char *code, const rt_magic_line_t *m, char *options, size_t cap);

/* Shows the notes of the running cell (1) or not (0: the session's
 * setting); rt_execute_cell clears it for every cell. */
void rt_magic_verbose_cell(int on);

/* The handlers of rt_magic_list.h. */
#include "rt_magic_list.h"
#define RT_MAGIC_DECLARE(name, cell, fn, usage, help)                                        \
    int fn(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,          \
           rt_error_t *err);
#define RT_MAGIC_PLANNED(name, cell, usage, help)
RT_MAGIC_LIST(RT_MAGIC_DECLARE, RT_MAGIC_PLANNED)
#undef RT_MAGIC_DECLARE
#undef RT_MAGIC_PLANNED

#endif
