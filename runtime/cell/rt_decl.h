/* rt_decl: reads one top-level C declaration (or a function definition's
 * head) far enough to persist it: the specifiers, any struct/union/enum
 * body in them, and each declarator's name, initializer and whether it
 * declares a function.
 *
 * It is a recogniser for the common forms, not a C parser: it never fails,
 * it just finds fewer names in code it does not understand. */
#ifndef RT_DECL_H
#define RT_DECL_H

#include <stddef.h>

#include "cm_buf.h"
#include "rt_lex.h"

/* Asks whether an identifier names a type (a typedef) in the session. */
typedef int (*rt_is_type_fn)(void *ctx, const char *name, size_t len);

#define RT_DECL_MAX 32     /* declarators per declaration */
#define RT_DECL_DROPS 8    /* storage-class tokens dropped per declaration */
#define RT_DECL_ENUMS 64   /* enumerators remembered per enum body */

typedef struct rt_declarator {
    size_t start, end;          /* the declarator without its initializer */
    size_t name, name_len;      /* the declared identifier; name_len 0 = none */
    size_t init_start, init_end;/* from '=' to the end of the initializer; equal = none */
    int init_line;              /* line of the initializer's first token */
    int is_function;            /* declares a function: name followed by '(' */
    int init_constant;          /* the initializer has only literals */
    size_t unsized;             /* the ']' of "name[]" (first dimension left to the
                                 * initializer); 0 = none */
} rt_declarator_t;

typedef struct rt_decl {
    size_t spec_start, spec_end;   /* the declaration specifiers */
    size_t body_start, body_end;   /* { ... } of a struct/union/enum; equal = none */
    size_t tag, tag_len;           /* "struct TAG": the keyword and tag; tag_len 0 = none */
    size_t tagkw, tagkw_len;
    int is_typedef, is_extern;
    size_t drop[RT_DECL_DROPS][2]; /* static/inline/register/extern tokens */
    int ndrop;
    size_t enums[RT_DECL_ENUMS][2];/* enumerator names of an enum body */
    int nenums;
    rt_declarator_t d[RT_DECL_MAX];
    int n;
} rt_decl_t;

/* Analyses src[start, end): a declaration without its ';', or a function
 * definition's head (everything before the body's '{'). */
void rt_decl_parse(const char *src, size_t start, size_t end, int line, rt_is_type_fn is_type,
                   void *ctx, rt_decl_t *out);

/* rt_decl_parse of read->src[start, end), a range of a text read once
 * (read: its tokens, or a view that holds the range's). */
void rt_decl_parse_tokens(const rt_tokens_t *read, size_t start, size_t end,
                          rt_is_type_fn is_type, void *ctx, rt_decl_t *out);

/* Appends to out the element count of an unsized array declarator
 * ("name[]") as its initializer makes it: a number, or for designated
 * initializers ("[5] = x") a constant expression of the designators.
 * Returns -1 (out unchanged) when d is not an unsized array with a braced
 * or string initializer. */
int rt_decl_count(const char *src, const rt_declarator_t *d, cm_buf_t *out);

/* rt_decl_count of a declarator of a text read once (read: its tokens). */
int rt_decl_count_tokens(const rt_tokens_t *read, const rt_declarator_t *d, cm_buf_t *out);

/* Non-zero for C keywords that can begin a declaration (type specifiers,
 * qualifiers, storage classes, struct/union/enum, GNU attributes). */
int rt_decl_is_decl_keyword(const char *name, size_t len);

/* Non-zero for the standard library's common typedef names (size_t, FILE,
 * uint8_t, bool, ...), which the session treats as known types. */
int rt_decl_is_std_type(const char *name, size_t len);

/* Non-zero for any C keyword (for completion and name scanning). */
int rt_decl_is_keyword(const char *name, size_t len);

/* The NULL-terminated list of C keywords (for completion). */
extern const char *const rt_decl_keywords[];

#endif
