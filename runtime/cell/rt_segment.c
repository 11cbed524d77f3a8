/* rt_segment: pieces of a cell on the cell's own lines (see rt_segment.h). */
#include "rt_segment.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"

rt_segment_t rt_segment_of(const char *code, size_t from, size_t to, int line, int cell)
{
    return (rt_segment_t){.text = code + from, .len = to - from, .line = line, .cell = cell};
}

rt_segment_t rt_segment_of_tokens(const rt_tokens_t *cell, size_t from, size_t to, int line,
                                  int cell_no)
{
    rt_segment_t seg = rt_segment_of(cell->src, from, to, line, cell_no);
    seg.toks = rt_tokens_view(cell, from, to, NULL);
    return seg;
}

void rt_segment_tokens(const rt_segment_t *seg, const char *source, rt_tokens_t *out)
{
    if (!seg->toks.src) {
        rt_tokens_lex(out, source, 0, strlen(source), 1);
        return;
    }
    /* source is line - 1 newlines, then the segment: offsets move by that */
    size_t from = (size_t)(seg->text - seg->toks.src), pad = (size_t)(seg->line - 1);
    out->src = source;
    out->n = seg->toks.n;
    out->unterminated = 0;
    out->v = malloc((out->n + 1) * sizeof *out->v);
    if (!out->v)
        abort();
    for (size_t i = 0; i < out->n; i++) {
        out->v[i] = seg->toks.v[i];
        out->v[i].start = out->v[i].start - from + pad;
    }
}

int rt_segment_is_blank(const rt_segment_t *seg)
{
    for (size_t i = 0; i < seg->len; i++)
        if (!isspace((unsigned char)seg->text[i]))
            return 0;
    return 1;
}

char *rt_segment_source(const rt_segment_t *seg)
{
    cm_buf_t b = {0};
    for (int l = 1; l < seg->line; l++)
        cm_buf_addc(&b, '\n');
    cm_buf_add(&b, seg->text, seg->len);
    return cm_buf_steal(&b);
}

char *rt_segment_blank_outside(const char *code, size_t from, size_t to)
{
    size_t n = strlen(code);
    char *out = malloc(n + 1);
    if (!out)
        abort();
    for (size_t i = 0; i < n; i++)
        out[i] = (i >= from && i < to) || code[i] == '\n' ? code[i] : ' ';
    out[n] = '\0';
    return out;
}
