/* rt_struct_hint: what the code shown for a struct result needs to know
 * of it — its type's name and its members, nested ones too, each with
 * what it is (see rt_plan.h), read from the session's declarations. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rt_session_internal.h"
#include "rt_session_query.h"

#define MAX_NEST 4       /* nested structs shown; deeper ones show {...} */
#define MAX_MEMBERS 32   /* members shown per struct, then "..." */
#define MAX_FIELDS 256   /* steps in all */
#define MAX_DIMS 4       /* array dimensions shown */

typedef struct hint_build {
    rt_session_t *s;
    rt_struct_hint_t *hint;
    int depth;           /* nested structs open */
    int members;         /* members of the innermost struct so far */
    int more;            /* its members left out from here on */
} hint_build_t;

static void add_member(void *ctx, const char *name, size_t len, const char *decl, size_t dlen)
{
    hint_build_t *hb = ctx;
    rt_struct_hint_t *h = hb->hint;
    if (!len || hb->more)
        return;
    if (hb->members >= MAX_MEMBERS || len >= sizeof h->fields[0].name ||
        h->nfields >= MAX_FIELDS) {
        hb->more = 1; /* "..." once */
        rt_struct_hint_add(h, RT_FIELD_MORE, 0, NULL, 0);
        return;
    }
    hb->members++;
    char *d = cm_strndup(decl, dlen);
    char *nm = cm_strndup(name, len);
    rt_member_type_t mt;
    if (rt_session_member_type(hb->s, d, nm, &mt) != 0)
        mt.kind = RT_MEMBER_OPAQUE;
    static const rt_field_kind_t kinds[] = {
        [RT_MEMBER_SCALAR] = RT_FIELD_SCALAR, [RT_MEMBER_POINTER] = RT_FIELD_POINTER,
        [RT_MEMBER_BITS] = RT_FIELD_BITS,     [RT_MEMBER_STRUCT] = RT_FIELD_STRUCT,
        [RT_MEMBER_OPAQUE] = RT_FIELD_OPAQUE,
    };
    rt_field_kind_t kind = kinds[mt.kind];
    if (mt.ndims > MAX_DIMS || (kind == RT_FIELD_STRUCT && hb->depth >= MAX_NEST))
        kind = RT_FIELD_OPAQUE;
    rt_struct_hint_add(h, kind, kind == RT_FIELD_OPAQUE ? 0 : mt.ndims, name, len);
    if (kind == RT_FIELD_STRUCT) {
        hint_build_t inner = {hb->s, h, hb->depth + 1, 0, 0};
        rt_session_body_members(mt.body, add_member, &inner);
        rt_struct_hint_add(h, RT_FIELD_END, 0, NULL, 0);
    }
    free(mt.body);
    free(nm);
    free(d);
}

void rt_session_struct_hint(rt_session_t *s, const char *code, const char *expr,
                            rt_struct_hint_t *hint)
{
    static char type[256];
    rt_struct_hint_clear(hint);
    size_t len = strlen(expr);
    while (len && isspace((unsigned char)expr[len - 1]))
        len--;
    size_t start = 0;
    while (start < len && isspace((unsigned char)expr[start]))
        start++;
    /* the expression is the cell's last item: look it up in the cell, so
     * that variables the cell itself declared are known too */
    const char *at = NULL;
    for (const char *p = strstr(code, expr); p; p = strstr(p + 1, expr))
        at = p;
    int deref = start < len && expr[start] == '*'; /* "*p": the struct p points to */
    if (deref)
        for (start++; start < len && isspace((unsigned char)expr[start]);)
            start++;
    hint_build_t hb = {s, hint, 0, 0, 0};
    int rc = at ? rt_session_members(s, code, (size_t)(at - code) + start,
                                     (size_t)(at - code) + len, add_member, &hb)
                : rt_session_members(s, expr, start, len, add_member, &hb);
    if (rc != 0)
        rt_struct_hint_clear(hint);
    /* a plain name: its declaration says the type, "point_t p" */
    int ident = start < len;
    for (size_t i = start; i < len; i++)
        ident &= isalnum((unsigned char)expr[i]) || expr[i] == '_';
    rt_name_info_t info;
    char name[128];
    if (!ident || len - start >= sizeof name)
        return;
    memcpy(name, expr + start, len - start);
    name[len - start] = '\0';
    if (rt_session_name_info(s, name, &info) != 0 || info.kind != RT_NAME_VARIABLE || !info.text)
        return;
    const char *t = info.text;
    if (strncmp(t, "extern ", 7) == 0)
        t += 7;
    while (*t == ' ')
        t++;
    const char *end = strstr(t, " __attribute");
    size_t n = end ? (size_t)(end - t) : strcspn(t, ";");
    size_t nl = strlen(name);
    if (n > nl && memcmp(t + n - nl, name, nl) == 0) {
        n -= nl;
        while (n && t[n - 1] == ' ')
            n--;
        if (deref && n && t[n - 1] == '*') /* "struct tail *tp": "struct tail" */
            for (n--; n && t[n - 1] == ' ';)
                n--;
        else if (deref)
            n = 0;
        if (n && n < sizeof type && !memchr(t, '*', n) && !memchr(t, '[', n) && !memchr(t, '"', n)) {
            memcpy(type, t, n);
            type[n] = '\0';
            hint->type = type;
        }
    }
}

