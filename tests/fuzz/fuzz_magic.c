/* Fuzzes the magic-line parser (runtime/magics/rt_magic.h): finds every
 * magic line (and `!command` shell line) of the input as the cell runner
 * does and splits its arguments. Nothing is run. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rt_magic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *code = malloc(size + 1); /* a cell is NUL-terminated text */
    memcpy(code, data, size);
    code[size] = '\0';
    size_t len = strlen(code);
    size_t from = 0;
    int line = 1;
    rt_tokens_t cell; /* read once, as the cell runner reads it */
    rt_tokens_lex(&cell, code, 0, len, 1);
    rt_magic_walk_t w = rt_magic_walk(&cell);
    rt_magic_line_t m;
    while (rt_magic_next(&w, &m)) {
        if (m.start < from || m.end < m.start || m.next < m.end || m.next > len ||
            m.args + m.args_len > len || m.line < line ||
            (code[m.start] != '%' && code[m.start] != '!'))
            abort(); /* offsets must stay inside the cell, in order */
        cm_names_t args = {0};
        rt_magic_args(code, &m, &args);
        cm_names_free(&args);
        if (m.cell || m.next == from)
            break;
        from = m.next;
        line = m.line + 1;
    }
    rt_magic_walk_free(&w);
    rt_tokens_free(&cell);
    free(code);
    return 0;
}
