/* rt_prelude: the session's persistent declarations, in the order they
 * were made: #include/#define/#undef/#pragma lines, type definitions,
 * extern declarations of earlier cells' variables and prototypes of their
 * functions. Every cell is compiled after this text.
 *
 * Each entry declares one or more keys ("x", "struct point", "#define N",
 * "#include <math.h>"). A cell that declares a key again replaces the entry;
 * entries that use a replaced TYPE are dropped with it (their old type can
 * no longer be written). */
#ifndef RT_PRELUDE_H
#define RT_PRELUDE_H

#include <stddef.h>

#include "cm_buf.h"
#include "rt_lex.h"

typedef enum {
    RT_ENTRY_DIRECTIVE,  /* a preprocessor line */
    RT_ENTRY_TYPE,       /* typedef, struct/union/enum definition */
    RT_ENTRY_VAR,        /* a variable defined in a cell: extern declaration */
    RT_ENTRY_FUNC,       /* a function defined in a cell: prototype */
    RT_ENTRY_DECL,       /* a prototype or extern the user wrote */
} rt_entry_kind_t;

typedef struct rt_entry {
    rt_entry_kind_t kind;
    char *text;          /* compiled by later cells; ends in ";" or is a directive */
    char **keys;         /* what it declares */
    size_t nkeys;
    int cell;            /* execution count of the cell that made it */
    cm_names_t uses;     /* the names its text uses (rt_lex_names) */
} rt_entry_t;

typedef struct rt_prelude {
    rt_entry_t *v;
    size_t n, cap;
} rt_prelude_t;

/* Marks in excluded[0..p->n) the entries declaring one of keys, and those
 * that use a type declared by a marked entry (an #include of one of keys
 * is not marked: a header included again stays where it first was).
 * excluded is caller-owned. */
void rt_prelude_exclude(const rt_prelude_t *p, char *const *keys, size_t nkeys, char *excluded);

/* Appends the entries not excluded to out (excluded may be NULL). */
void rt_prelude_render(const rt_prelude_t *p, const char *excluded, cm_buf_t *out);

/* Appends the session's #define and #undef lines, in order, to out. */
void rt_prelude_macros(const rt_prelude_t *p, cm_buf_t *out);

/* Removes the excluded entries (after a cell that replaced them ran). */
void rt_prelude_remove(rt_prelude_t *p, const char *excluded);

/* Appends an entry made of copies of text and keys; an #include the
 * prelude has already is not added again. */
void rt_prelude_add(rt_prelude_t *p, rt_entry_kind_t kind, const char *text, char *const *keys,
                    size_t nkeys, int cell);

/* Marks in emit[0..p->n) the entries a cell made of text[0, len) needs:
 * every preprocessor line, and the entries declaring a name that text, a
 * preprocessor line or a marked entry uses (transitively). Entries marked
 * in skip (may be NULL) are never marked. fn (may be NULL) is called for
 * every name text and the marked entries use. emit is caller-owned. */
void rt_prelude_select(const rt_prelude_t *p, const char *skip, const char *text, size_t len,
                       char *emit, rt_name_fn fn, void *ctx);

/* The last entry declaring key, or NULL. Borrowed. */
const rt_entry_t *rt_prelude_find(const rt_prelude_t *p, const char *key);

void rt_prelude_free(rt_prelude_t *p);

#endif
