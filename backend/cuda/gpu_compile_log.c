/* gpu_compile_log: NVRTC's log (and g++'s, for the simulator) mapped back
 * to the cells' lines (see gpu_internal.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "gpu_internal.h"

/* "cell[5](3): error: ..." -> cell 5, line 3, and where "error" starts. */
static int parse_location(const char *line, int *cell, int *lineno, const char **rest)
{
    int consumed = 0;
    if (sscanf(line, "cell[%d](%d): %n", cell, lineno, &consumed) != 2 || consumed == 0)
        return 0;
    *rest = line + consumed;
    return 1;
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static int add_diag(gpu_cell_t *c, int cell, int line, const char *rest, size_t len)
{
    gpu_diag_t *grown = realloc(c->diags, (size_t)(c->ndiags + 1) * sizeof *grown);
    if (!grown)
        return -1;
    c->diags = grown;
    gpu_diag_t *d = &grown[c->ndiags++];
    memset(d, 0, sizeof *d);
    d->cell = cell;
    d->line = line;
    const char *colon = memchr(rest, ':', len);
    size_t sev = colon ? (size_t)(colon - rest) : 0;
    const char *hash = memchr(rest, '#', sev);
    size_t sev_len = hash ? (size_t)(hash - rest) : sev;
    while (sev_len && rest[sev_len - 1] == ' ')
        sev_len--;
    snprintf(d->severity, sizeof d->severity, "%.*s", (int)sev_len, rest);
    const char *msg = colon ? colon + 1 : rest;
    while (msg < rest + len && *msg == ' ')
        msg++;
    d->message = dup_n(msg, (size_t)(rest + len - msg));
    return d->message ? 0 : -1;
}

void gpu_compile_map_log(const char *log, const int *cells, int ncells, gpu_cell_t *c,
                         char *first, size_t first_len)
{
    cm_buf_t out = {0};
    int context = 0; /* lines after a located message: source, then caret */
    first[0] = '\0';
    for (const char *p = log; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        int cell, line;
        const char *rest;
        char tmp[64];
        if (parse_location(p, &cell, &line, &rest) && (size_t)(rest - p) <= len) {
            if (cell >= 1 && cell <= ncells)
                cell = cells[cell - 1];
            snprintf(tmp, sizeof tmp, "cell %d, line %d: ", cell, line);
            cm_buf_adds(&out, tmp);
            cm_buf_add(&out, rest, len - (size_t)(rest - p));
            add_diag(c, cell, line, rest, len - (size_t)(rest - p));
            if (!first[0] && c->ndiags && strstr(c->diags[c->ndiags - 1].severity, "error"))
                snprintf(first, first_len, "%s%.*s", tmp, (int)(len - (size_t)(rest - p)), rest);
            context = 1;
        } else {
            cm_buf_add(&out, p, len);
            if (context && c->ndiags && len == 0) {
                context = 0;
            } else if (context == 1 && c->ndiags) {
                gpu_diag_t *d = &c->diags[c->ndiags - 1];
                d->source_line = dup_n(len >= 2 ? p + 2 : p, len >= 2 ? len - 2 : len);
                context = 2;
            } else if (context == 2 && c->ndiags) {
                const char *caret = memchr(p, '^', len);
                if (caret && caret - p >= 2)
                    c->diags[c->ndiags - 1].column = (int)(caret - p - 2) + 1;
                context = 0;
            } else if (!first[0] && strstr(p, "error") && (size_t)(strstr(p, "error") - p) < len) {
                snprintf(first, first_len, "%.*s", (int)len, p);
            }
        }
        cm_buf_add(&out, "\n", 1);
        p = nl ? nl + 1 : p + len;
    }
    while (out.len && out.s[out.len - 1] == '\n')
        out.s[--out.len] = '\0';
    c->log = out.len ? cm_buf_steal(&out) : (cm_buf_free(&out), NULL);
}
