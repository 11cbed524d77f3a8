/* rt_segment: a piece of a cell that runs on its own — the code between
 * two magic lines, a %%timeit body, a %%speedup section, a kernel cell's
 * device code — with the cell line it starts on, so that every message
 * about it names the cell's own lines. */
#ifndef RT_SEGMENT_H
#define RT_SEGMENT_H

#include <stddef.h>

#include "rt_lex.h"

typedef struct rt_segment {
    const char *text; /* borrowed; text[0, len) */
    size_t len;
    int line;         /* the cell line text[0] is on (1-based) */
    int cell;         /* the cell's number, for messages ("cell 3, line 2") */
    rt_tokens_t toks; /* a piece of a cell read once: a view of the cell's tokens
                       * (offsets into toks.src, the cell); toks.src NULL: not read */
} rt_segment_t;

/* The segment code[from, to) of cell `cell`, whose first byte is on line
 * `line`. */
rt_segment_t rt_segment_of(const char *code, size_t from, size_t to, int line, int cell);

/* The segment cell[from, to) of the cell read once into cell (whose text
 * is cell->src): its tokens go with it. */
rt_segment_t rt_segment_of_tokens(const rt_tokens_t *cell, size_t from, size_t to, int line,
                                  int cell_no);

/* Non-zero when the segment holds only blanks. */
int rt_segment_is_blank(const rt_segment_t *seg);

/* The segment's text preceded by line - 1 newlines, so that line 1 of the
 * result's numbering is line 1 of the cell. A new string (caller frees). */
char *rt_segment_source(const rt_segment_t *seg);

/* The tokens of source, rt_segment_source(seg)'s text, into *out (free
 * with rt_tokens_free): the segment's own, moved onto source's offsets,
 * when it was read with its cell; else source is lexed (text a magic or
 * gpuc hands the session as text). */
void rt_segment_tokens(const rt_segment_t *seg, const char *source, rt_tokens_t *out);

/* The whole cell `code` with every byte outside [from, to) blanked
 * (newlines kept), so line and column numbers stay the cell's. A new
 * string (caller frees). */
char *rt_segment_blank_outside(const char *code, size_t from, size_t to);

#endif
