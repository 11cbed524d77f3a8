/* rt_magic: the magics of host cells. A line magic (`%name args`) stands
 * on its own line of a host cell; a cell magic (`%%name args`) is the
 * first line of its cell. `%name?` prints a magic's usage and help. The
 * table of magics lives in rt_magic.c; docs/magics.md describes them. */
#ifndef RT_MAGIC_H
#define RT_MAGIC_H

#include <jansson.h>
#include <stddef.h>

#include "rt_session.h"

typedef struct rt_magic_info {
    const char *name;  /* without % */
    int cell;          /* 1 for a cell magic (%%name), 0 for a line magic */
    const char *usage; /* "%lib NAME" */
    const char *help;  /* one paragraph, shown by %name? */
    int implemented;   /* 0: planned; running it is a NotImplemented error */
} rt_magic_info_t;

/* The magics gpuc knows, in the order %lsmagic lists them; *n gets the
 * count. Borrowed, static. */
const rt_magic_info_t *rt_magic_table(size_t *n);

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
} rt_magic_line_t;

/* Finds the first magic line of code at or after offset `from`, which
 * starts line `line`: a line whose first non-blank characters are `%`
 * and a name (or `%%` and a name), outside comments, string literals and
 * preprocessor lines. Returns 1 and fills *m, or 0 when there is none. */
int rt_magic_find(const char *code, size_t from, int line, rt_magic_line_t *m);

/* Runs one magic line of code in session s, printing what it shows to
 * stdout. Returns NULL when it went well, else a new error reply
 * ({"status":"error", "ename", "evalue", "traceback"}). For a cell magic
 * the body is the rest of code. */
json_t *rt_magic_run(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no);

#endif
