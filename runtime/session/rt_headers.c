/* rt_headers: header tree-shaking for the session (rt_shake.h) — which
 * header text a cell's shaker is made from, the shaker kept for it, and
 * the shaken source of a cell. See rt_session_internal.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_log.h"
#include "rt_header.h"
#include "rt_lex.h"
#include "rt_session_internal.h"

/* Non-zero when the directive text is "#word ...". */
static int directive_is(const char *text, const char *word)
{
    return rt_directive_is(text, strlen(text), word);
}

/* The headers a shaker is made from: gpuc.h, then the prelude's #include,
 * #define and #undef lines up to its last #include (later ones cannot
 * change what the headers declare). Marks those lines in consumed[] (the
 * shaker's macros stand for them). NULL when the prelude cannot be shaken
 * (a #pragma among them). */
char *rt_session_header_key(const rt_session_t *s, const char *excluded, char *consumed)
{
    size_t last = 0;
    int any = 0;
    for (size_t i = 0; i < s->prelude.n; i++) {
        const rt_entry_t *e = &s->prelude.v[i];
        if (!(excluded && excluded[i]) && e->kind == RT_ENTRY_DIRECTIVE &&
            (s->cell_includes || directive_is(e->text, "include"))) {
            last = i; /* with a cell's own includes after them: all directives */
            any = 1;
        }
    }
    cm_buf_t key = {0};
    cm_buf_adds(&key, rt_session_header(s));
    for (size_t i = 0; any && i <= last; i++) {
        const rt_entry_t *e = &s->prelude.v[i];
        if ((excluded && excluded[i]) || e->kind != RT_ENTRY_DIRECTIVE)
            continue;
        if (!directive_is(e->text, "include") && !rt_directive_defines(e->text, strlen(e->text))) {
            cm_buf_free(&key);
            return NULL;
        }
        cm_buf_adds(&key, e->text);
        cm_buf_addc(&key, '\n');
        if (consumed)
            consumed[i] = 1;
    }
    if (s->cell_includes)
        cm_buf_adds(&key, s->cell_includes);
    return cm_buf_steal(&key);
}

char *rt_session_cell_includes(const rt_session_t *s, const char *code)
{
    if (!strstr(code, "include"))
        return NULL;
    cm_buf_t out = {0};
    for (const char *p = code; *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t'))
            p++, n--;
        while (n && isspace((unsigned char)p[n - 1]))
            n--;
        if (n && directive_is(p, "include")) {
            char *line = cm_strndup(p, n);
            if (!rt_prelude_find(&s->prelude, line)) {
                cm_buf_adds(&out, line);
                cm_buf_addc(&out, '\n');
            }
            free(line);
        }
        p = end ? end + 1 : p + n;
    }
    return out.len ? cm_buf_steal(&out) : (cm_buf_free(&out), NULL);
}

rt_shake_t *rt_session_shaker(rt_session_t *s, const char *key)
{
    if (s->shake && strcmp(rt_shake_key(s->shake), key) == 0 && !rt_shake_stale(s->shake))
        return s->shake;
    if (s->shake_failed && strcmp(s->shake_failed, key) == 0)
        return NULL;
    rt_shake_free(s->shake);
    s->stats.preprocess++;
    cm_error_t err = {0};
    s->shake = rt_shake_new(s->libdir, key, &err);
    if (!s->shake) {
        CM_DEBUG("header shaking off for these headers: %s", err.text);
        free(s->shake_failed);
        s->shake_failed = cm_strndup(key, strlen(key));
    }
    return s->shake;
}

/* The source of the cell with only the declarations it needs, from the
 * headers and from earlier cells (marked in emit[0..prelude.n)), or NULL
 * when it cannot be made (the cell then gets the full headers). */
char *rt_session_shaken_source(rt_session_t *s, const rt_plan_t *plan, const char *excluded,
                           const cm_buf_t *body, char *emit)
{
    if (s->headers == RT_HEADERS_FULL)
        return NULL;
    for (size_t i = 0; i < plan->keys.n; i++)
        if (directive_is(plan->keys.v[i], "include"))
            return NULL; /* its own #include would not be guarded against the shaken copy */
    char *skip = malloc(s->prelude.n + 1);
    if (!skip)
        abort();
    memcpy(skip, excluded, s->prelude.n);
    char *key = rt_session_header_key(s, excluded, skip);
    rt_shake_t *sh = key ? rt_session_shaker(s, key) : NULL;
    free(key);
    if (!sh) {
        free(skip);
        return NULL;
    }
    /* the earlier cells' declarations the cell needs, and what they use */
    rt_prelude_select(&s->prelude, skip, cm_buf_str(body), body->len, emit, rt_shake_use_name,
                      sh);
    for (size_t i = 0; i < s->prelude.n; i++)
        skip[i] = !emit[i];
    cm_buf_t prelude = {0};
    rt_prelude_render(&s->prelude, skip, &prelude);
    free(skip);
    cm_buf_t src = {0};
    cm_buf_adds(&src, "#line 1 \"gpuc.h\"\n");
    rt_shake_render(sh, &src);
    if (s->headers == RT_HEADERS_BROKEN)
        cm_buf_adds(&src, "#error broken on purpose (rt_session_set_headers)\n");
    cm_buf_adds(&src, "#line 1 \"session\"\n");
    cm_buf_add(&src, cm_buf_str(&prelude), prelude.len);
    cm_buf_add(&src, cm_buf_str(body), body->len);
    cm_buf_free(&prelude);
    return cm_buf_steal(&src);
}
