/* rt_session_query: what the session knows about a name, for completion
 * and inspection (rt_complete.c): the declarations its cells made (the
 * prelude), those of its headers (an rt_shake index of gpuc.h and the
 * cells' #include lines) and the members of its struct and union types.
 *
 * Read-only for the cells: nothing here changes what a cell compiles. */
#ifndef RT_SESSION_QUERY_H
#define RT_SESSION_QUERY_H

#include <stddef.h>

#include "rt_session.h"
#include "rt_shake.h"

typedef enum {
    RT_NAME_NONE,
    RT_NAME_VARIABLE,   /* also an enumerator */
    RT_NAME_FUNCTION,
    RT_NAME_TYPE,       /* a typedef name or a struct/union/enum tag */
    RT_NAME_MACRO,
    RT_NAME_MEMBER,
} rt_name_kind_t;

typedef struct rt_name_info {
    rt_name_kind_t kind;
    const char *text;   /* the declaration; borrowed until the next cell runs */
    int cell;           /* the cell that defined it; 0 for a header name */
    const char *file;   /* a header name's file as its line marker names it, or NULL */
} rt_name_info_t;

/* The index of the session's headers, made (preprocessed, a few ms) when
 * they changed since. NULL when they cannot be preprocessed. Borrowed:
 * valid until the next cell runs. */
rt_shake_t *rt_session_header_index(rt_session_t *s);

/* What name (an identifier, or "struct tag") is: the session's latest
 * declaration of it, else the headers'. Returns -1 if neither declares it. */
int rt_session_name_info(rt_session_t *s, const char *name, rt_name_info_t *out);

/* Receives one name; borrowed for the call. */
typedef void (*rt_session_name_fn)(void *ctx, const char *name, rt_name_kind_t kind);

/* Calls fn for every name the session's cells declared (a tag as its bare
 * tag), in the order they were declared. Header names: rt_shake_names. */
void rt_session_names(rt_session_t *s, rt_session_name_fn fn, void *ctx);

/* Receives one member: its name and the member declaration that declares
 * it ("int x, y"); both borrowed for the call. */
typedef void (*rt_member_fn)(void *ctx, const char *name, size_t len, const char *decl,
                             size_t decl_len);

/* Calls fn for each member of the struct or union that the expression
 * code[start, end) has: a chain such as "p", "a.b", "v[2]->next" of a
 * session variable or one declared earlier in code (a local, a
 * parameter). Members of anonymous inner structs are listed as the
 * struct's own. Returns -1 when the type is not known or not a struct. */
int rt_session_members(rt_session_t *s, const char *code, size_t start, size_t end,
                       rt_member_fn fn, void *ctx);

/* Calls fn for each member of body, the "{ ... }" of a struct or union
 * (as rt_session_members does). */
void rt_session_body_members(const char *body, rt_member_fn fn, void *ctx);

/* What a member is, read from its declaration, typedefs followed. */
typedef enum rt_member_kind {
    RT_MEMBER_SCALAR,   /* arithmetic, an enum, or not known */
    RT_MEMBER_POINTER,  /* function pointers too */
    RT_MEMBER_BITS,     /* a bit-field */
    RT_MEMBER_STRUCT,   /* a struct or union whose body is known */
    RT_MEMBER_OPAQUE,   /* a flexible array member: nothing to show */
} rt_member_kind_t;

typedef struct rt_member_type {
    rt_member_kind_t kind;
    int ndims;          /* > 0: an array of ndims dimensions of such elements */
    char *body;         /* RT_MEMBER_STRUCT: the "{ ... }" of its type; owned, free() it */
} rt_member_type_t;

/* Reads what decl, a member declaration ("int x, *p, v[3]"), makes name.
 * Returns -1 when decl does not declare name. */
int rt_session_member_type(rt_session_t *s, const char *decl, const char *name,
                           rt_member_type_t *out);

/* The definition ("struct point { ... }") of the struct or union that
 * decl, a declaration of name, gives it, when decl itself does not
 * contain it: for "typedef struct point point_t;". A new string, or NULL. */
char *rt_session_definition(rt_session_t *s, const char *decl, const char *name);

#endif
