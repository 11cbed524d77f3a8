/* rt_shake: header tree-shaking. Parsing <stdio.h>, <stdlib.h>, <math.h>
 * and friends costs a cell ~4 ms, while a cell uses a handful of their
 * names. A shaker preprocesses the session's header directives ONCE
 * (libtcc, with -dD) and splits the result into top-level declarations
 * (each with the names it declares and the names it references) and the
 * macros in force at the end (each with the names in its body). For a
 * cell it then emits only what the cell's text needs, closed over both
 * relations: needed declarations in their original order, then the needed
 * macros (declarations are already expanded, so macros come last).
 *
 * It is an optimisation only: the session compiles a cell with the full
 * headers whenever the shaken compile reports anything (rt_session.c). */
#ifndef RT_SHAKE_H
#define RT_SHAKE_H

#include <stddef.h>

#include "cm_error.h"
#include "cm_buf.h"

typedef struct rt_shake rt_shake_t;

/* Preprocesses headers (preprocessor lines only: #include, #define,
 * #undef) and indexes the result. Returns NULL with err set when libtcc
 * cannot preprocess them. Free with rt_shake_free. */
rt_shake_t *rt_shake_new(const char *libdir, const char *headers, cm_error_t *err);

/* The headers text it was made from; borrowed. */
const char *rt_shake_key(const rt_shake_t *sh);

/* Non-zero when a file the headers read has changed on disk since (the
 * system's headers, under /usr/include and /usr/lib, are not looked at
 * again: they do not change while a session runs). */
int rt_shake_stale(const rt_shake_t *sh);

/* Adds the names that text[0, len) uses (identifiers, "struct tag"
 * pairs, names inside preprocessor lines) to the set to emit. */
void rt_shake_use(rt_shake_t *sh, const char *text, size_t len);

/* Adds one name (an identifier or "struct tag") to the set to emit; an
 * rt_name_fn. */
void rt_shake_use_name(void *sh, const char *name, size_t len);

/* Appends the declarations and macros the used names need (closed over
 * what they reference) to out, and empties the set of used names.
 * Returns the number of declarations emitted. */
size_t rt_shake_render(rt_shake_t *sh, cm_buf_t *out);

/* ---- queries, for completion and inspection (they change nothing the
 * shaker emits) ---- */

typedef enum {
    RT_SHAKE_NONE,
    RT_SHAKE_VARIABLE,  /* also an enumerator */
    RT_SHAKE_FUNCTION,
    RT_SHAKE_TYPE,      /* a typedef name */
    RT_SHAKE_TAG,       /* "struct tag", "union tag", "enum tag" */
    RT_SHAKE_MACRO,     /* defined by the headers (libtcc's own predefined ones left out) */
} rt_shake_kind_t;

typedef struct rt_shake_entry {
    rt_shake_kind_t kind;
    const char *text;   /* the declaration as preprocessed (a tag's: one with its body), or
                         * "#define ..."; borrowed */
    const char *file;   /* the file its line marker named ("/usr/include/stdio.h",
                         * "gpuc.h"), or NULL; borrowed */
} rt_shake_entry_t;

/* What the headers declare or define as name (an identifier or "struct
 * tag"). Returns -1 when they do not; out is then left as is. */
int rt_shake_find(rt_shake_t *sh, const char *name, rt_shake_entry_t *out);

/* Receives one name the headers declare; borrowed for the call. */
typedef void (*rt_shake_name_fn)(void *ctx, const char *name, rt_shake_kind_t kind);

/* Calls fn, in byte order, for every name declared or defined by the
 * headers that begins with prefix ("struct " lists tags). */
void rt_shake_names(rt_shake_t *sh, const char *prefix, rt_shake_name_fn fn, void *ctx);

/* Counts of what was indexed, for logs and tests. */
void rt_shake_sizes(const rt_shake_t *sh, size_t *ndecls, size_t *nmacros);

void rt_shake_free(rt_shake_t *sh);

#endif
