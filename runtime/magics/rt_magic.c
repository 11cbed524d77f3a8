/* rt_magic: the table of magics, finding magic lines in a cell, running
 * one, %lsmagic and %name? help (see rt_magic.h, docs/magics.md). */
#include "rt_magic.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_lex.h"

/* ---- the table ------------------------------------------------------ */

#define MAGIC(name, cell, fn, usage, help) {name, cell, usage, help, fn},
#define PLANNED(name, cell, usage, help) {name, cell, usage, help, NULL},
static const rt_magic_info_t magics[] = {RT_MAGIC_LIST(MAGIC, PLANNED)};

const rt_magic_info_t *rt_magic_table(size_t *n)
{
    *n = sizeof magics / sizeof magics[0];
    return magics;
}

/* The entry for name as a cell or line magic; the other kind if only it
 * exists (for help); NULL if neither. */
static const rt_magic_info_t *lookup(const char *name, int cell, int exact)
{
    const rt_magic_info_t *other = NULL;
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++) {
        if (strcmp(magics[i].name, name) != 0)
            continue;
        if (magics[i].cell == cell)
            return &magics[i];
        other = &magics[i];
    }
    return exact ? NULL : other;
}

/* ---- finding magic lines ------------------------------------------- */

static int name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Parses the magic at code[at] (a '%' that is the first non-blank of its
 * line) into *m. 0 when it is no magic (no name after the '%'). */
static int parse_line(const char *code, size_t at, size_t line_start, int line,
                      rt_magic_line_t *m)
{
    memset(m, 0, sizeof *m);
    size_t p = at + 1;
    if (code[p] == '%') {
        m->cell = 1;
        p++;
    }
    if (!(isalpha((unsigned char)code[p]) || code[p] == '_'))
        return 0;
    size_t n = 0;
    while (name_char(code[p + n]))
        n++;
    if (code[p + n] == '+' && code[p + n + 1] == '+') /* %%c++ */
        n += 2;
    if (n < sizeof m->name)
        memcpy(m->name, code + p, n);
    p += n;
    m->start = at;
    m->line = line;
    const char *nl = strchr(code + p, '\n');
    m->end = nl ? (size_t)(nl - code) : strlen(code);
    m->next = nl ? m->end + 1 : m->end;
    size_t a = p, b = m->end;
    while (a < b && isspace((unsigned char)code[a]))
        a++;
    while (b > a && isspace((unsigned char)code[b - 1]))
        b--;
    if (a == p && a < b && code[a] == '?') { /* %name? */
        m->help = 1;
        a++;
        while (a < b && isspace((unsigned char)code[a]))
            a++;
    }
    m->args = a;
    m->args_len = b - a;
    m->first = 1;
    for (size_t i = 0; i < line_start; i++)
        if (!isspace((unsigned char)code[i]))
            m->first = 0;
    return 1;
}

/* `!COMMAND` at code[at]: the line magic %sh with the rest of the line. */
static void parse_shell(const char *code, size_t at, size_t line_start, int line,
                        rt_magic_line_t *m)
{
    memset(m, 0, sizeof *m);
    strcpy(m->name, "sh");
    m->first = 1;
    for (size_t i = 0; i < line_start; i++)
        if (!isspace((unsigned char)code[i]))
            m->first = 0;
    const char *nl = strchr(code + at, '\n');
    m->end = nl ? (size_t)(nl - code) : strlen(code);
    m->next = nl ? m->end + 1 : m->end;
    size_t a = at + 1, b = m->end;
    while (a < b && isspace((unsigned char)code[a]))
        a++;
    while (b > a && isspace((unsigned char)code[b - 1]))
        b--;
    m->start = at;
    m->line = line;
    m->args = a;
    m->args_len = b - a;
}

/* A `!` that starts a statement: outside brackets, after nothing or the
 * end of a statement, block or directive (`!x` continuing a condition
 * on its own line stays C). */
static int starts_statement(int depth, rt_tok_kind_t prev_kind, char prev)
{
    return depth == 0 && (prev_kind == RT_TOK_EOF || prev_kind == RT_TOK_DIRECTIVE ||
                          (prev_kind == RT_TOK_PUNCT && (prev == ';' || prev == '{' ||
                                                         prev == '}')));
}

int rt_magic_find(const rt_tokens_t *cell, size_t from, rt_magic_line_t *m)
{
    const char *code = cell->src;
    int depth = 0; /* of ( and [ */
    rt_tok_kind_t prev_kind = RT_TOK_EOF;
    char prev = 0;
    for (size_t i = rt_tokens_at(cell, from); i < cell->n; i++) {
        rt_tok_t t = cell->v[i];
        char c = code[t.start];
        int punct = t.kind == RT_TOK_PUNCT;
        int bang = punct && c == '!' && code[t.start + 1] != '=';
        if (punct && (c == '%' || bang)) {
            size_t ls = t.start;
            while (ls > from && code[ls - 1] != '\n')
                ls--;
            int blank = 1;
            for (size_t i = ls; i < t.start; i++)
                if (code[i] != ' ' && code[i] != '\t')
                    blank = 0;
            if (blank && bang && starts_statement(depth, prev_kind, prev)) {
                parse_shell(code, t.start, ls, t.line, m);
                m->toks = cell;
                return 1;
            }
            if (blank && c == '%' && parse_line(code, t.start, ls, t.line, m)) {
                m->toks = cell;
                return 1;
            }
            /* a '%' operator: lex on from the next line would also be wrong;
             * the lexer simply goes on */
        }
        if (punct && (c == '(' || c == '['))
            depth++;
        else if (punct && (c == ')' || c == ']') && depth > 0)
            depth--;
        prev_kind = t.kind;
        prev = c;
    }
    return 0;
}

/* Non-zero when lexing magic line m of t as C may have run past its end:
 * it opens a block comment or ends in a backslash (string and character
 * literals end at the line's end), or its last token does. */
static int spills(const rt_tokens_t *t, const rt_magic_line_t *m)
{
    const char *line = t->src + m->start;
    size_t len = m->end - m->start, i = rt_tokens_at(t, m->next);
    return memmem(line, len, "/*", 2) || (len && line[len - 1] == '\\') ||
           (i > 0 && t->v[i - 1].start + t->v[i - 1].len > m->end);
}

rt_magic_walk_t rt_magic_walk(const rt_tokens_t *cell)
{
    return (rt_magic_walk_t){.cell = cell};
}

const rt_tokens_t *rt_magic_walk_tokens(const rt_magic_walk_t *w)
{
    return w->rest.v ? &w->rest : w->cell;
}

int rt_magic_next(rt_magic_walk_t *w, rt_magic_line_t *m)
{
    if (w->spilled) { /* now: the segment before that line was read from the old tokens */
        const char *src = w->cell->src;
        rt_tokens_free(&w->rest);
        rt_tokens_lex(&w->rest, src, w->from, strlen(src), w->spilled);
        w->spilled = 0;
    }
    const rt_tokens_t *t = rt_magic_walk_tokens(w);
    if (!rt_magic_find(t, w->from, m))
        return 0;
    w->from = m->next;
    if (!m->cell && spills(t, m))
        w->spilled = m->line + 1;
    return 1;
}

void rt_magic_walk_free(rt_magic_walk_t *w)
{
    rt_tokens_free(&w->rest);
}

/* ---- arguments ------------------------------------------------------ */

void rt_magic_args(const char *code, const rt_magic_line_t *m, cm_names_t *out)
{
    const char *p = code + m->args, *e = p + m->args_len;
    while (p < e) {
        while (p < e && isspace((unsigned char)*p))
            p++;
        const char *w = p;
        while (p < e && !isspace((unsigned char)*p))
            p++;
        if (p > w)
            cm_names_add(out, w, (size_t)(p - w));
    }
}

/* ---- %lsmagic and help ---------------------------------------------- */

static void print_names(int cell, int implemented, const char *none)
{
    int any = 0;
    for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++) {
        if (magics[i].cell != cell || (magics[i].fn != NULL) != implemented)
            continue;
        printf("%s%s%s", any ? "  " : "", cell ? "%%" : "%", magics[i].name);
        any = 1;
    }
    printf("%s\n", any ? "" : none);
}

int rt_magic_lsmagic(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                     rt_error_t *err)
{
    printf("Available line magics:\n");
    print_names(0, 1, "(none)");
    printf("\nAvailable cell magics:\n");
    print_names(1, 1, "(none yet)");
    for (int cell = 0; cell <= 1; cell++) {
        int planned = 0;
        for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
            planned |= magics[i].cell == cell && !magics[i].fn;
        if (planned) {
            printf(cell ? "\nplanned cell magics: " : "\nplanned line magics: ");
            print_names(cell, 0, "");
        }
    }
    printf("\n%%name? shows a magic's help.\n");
    return 0;
}

static void print_help(const rt_magic_info_t *info)
{
    printf("Usage: %s\n\n%s\n", info->usage, info->help);
    if (!info->fn)
        printf("\n%s%s is not available yet in gpuc 0.1; it is planned.\n",
               info->cell ? "%%" : "%", info->name);
}

/* ---- running -------------------------------------------------------- */

int rt_magic_run(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                 rt_error_t *err)
{
    const char *pct = m->cell ? "%%" : "%";
    if (m->cell && !m->first)
        return rt_error_set(err, "UsageError", cell_no, m->line,
                            "%%%%%s: a cell magic must be the first line of its cell", m->name);
    const rt_magic_info_t *info = lookup(m->name, m->cell, !m->help);
    if (!info) {
        const rt_magic_info_t *other = lookup(m->name, !m->cell, 1);
        if (other)
            return rt_error_set(err, "UnknownMagic", cell_no, m->line,
                                "%s%s is not a magic; %s%s is (a %s magic). %%lsmagic lists them",
                                pct, m->name, other->cell ? "%%" : "%", m->name,
                                other->cell ? "cell" : "line");
        return rt_error_set(err, "UnknownMagic", cell_no, m->line,
                            "%s%s is not a gpuc magic; %%lsmagic lists them", pct, m->name);
    }
    if (m->help) {
        print_help(info);
        return 0;
    }
    if (!info->fn)
        return rt_error_set(err, "NotImplemented", cell_no, m->line,
                            "%s%s is not available yet in gpuc 0.1; it is planned", pct, m->name);
    int rc = info->fn(s, code, m, cell_no, err);
    fflush(stdout);
    return rc;
}

/* %recover is the kernel's (kernel/jk_journal.h): it reaches the executor
 * only when written among other code. */
int rt_magic_recover(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                     rt_error_t *err)
{
    return rt_error_set(err, "UsageError", cell_no, m->line,
                        "%%recover must be alone in its cell (the kernel runs it)");
}

static int verbose_cell; /* one session per process: one flag */

void rt_magic_verbose_cell(int on)
{
    verbose_cell = on;
}

void rt_magic_note(const char *fmt, ...)
{
    const char *env = getenv("GPUC_VERBOSE");
    if (!verbose_cell && !(env && *env && strcmp(env, "0") != 0))
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}
