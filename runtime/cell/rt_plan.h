/* rt_plan: turns one host cell into the C source TCC compiles, and says
 * what the cell adds to the session.
 *
 * The cell's items keep their order: directives, declarations and
 * functions stay at file scope (static/inline dropped so that later cells
 * can link to them; non-constant initializers moved into the code);
 * statements between them become functions __gpuc_cellN_partK, and
 * __gpuc_cell_N calls the parts in order. #line directives keep every
 * message on the cell's own lines ("cell[N]"). */
#ifndef RT_PLAN_H
#define RT_PLAN_H

#include "cm_buf.h"
#include "rt_decl.h"
#include "rt_prelude.h"
#include "rt_tcc.h"

/* How the final expression is compiled; the session tries them in turn. */
typedef enum {
    RT_RESULT_GENERIC,  /* _Generic over the arithmetic, char and string types */
    RT_RESULT_POINTER,  /* any other pointer, shown as an address */
    RT_RESULT_STRUCT,   /* a struct or union value: its type and fields */
    RT_RESULT_NONE,     /* a plain statement (void, struct and array values) */
} rt_result_mode_t;

typedef struct rt_plan_entry {
    rt_entry_kind_t kind;
    char *text;
    cm_names_t keys;
    char *count;            /* an unsized array: the symbol holding its element
                             * count once compiled (rt_plan_complete), or NULL */
    size_t count_at;        /* where in text the count goes: "extern T a[" | "]" */
} rt_plan_entry_t;

typedef struct rt_plan {
    int cell;
    cm_names_t keys;        /* everything the cell declares (replaces older entries) */
    rt_plan_entry_t *entries; /* added to the prelude once the cell compiled */
    size_t nentries, capentries;
    cm_names_t vars;        /* variables defined here (symbols to record) */
    cm_names_t funcs;       /* functions defined here */
    cm_names_t func_texts;  /* their source, as written (for `name??`) */
    cm_names_t types;       /* typedef names declared here */
    cm_names_t parts;       /* generated part functions, in order */
    int has_main;
    int has_expr;           /* the cell ends in an expression */
    int expr_line, expr_end_line;
    char *expr;             /* the final expression's text, or NULL */
    char entry_name[64];    /* "__gpuc_cell_N" */
} rt_plan_t;

/* One step of showing a struct value, in member order. A RT_FIELD_STRUCT
 * member's own members follow it, up to its RT_FIELD_END. */
typedef enum rt_field_kind {
    RT_FIELD_SCALAR,  /* arithmetic, or not known: by _Generic on its type */
    RT_FIELD_POINTER, /* an address (function pointers too); char *: the string */
    RT_FIELD_BITS,    /* a bit-field: its value */
    RT_FIELD_STRUCT,  /* a struct or union: its members follow */
    RT_FIELD_END,     /* closes the RT_FIELD_STRUCT before */
    RT_FIELD_OPAQUE,  /* not shown: "{...}" (too deep, a flexible array) */
    RT_FIELD_MORE,    /* members left out: "..." */
} rt_field_kind_t;

typedef struct rt_field {
    rt_field_kind_t kind;
    int ndims;          /* > 0: an array of ndims dimensions of such (of char: a string) */
    char name[128];     /* the member's name; "" for END and MORE */
} rt_field_t;

/* What RT_RESULT_STRUCT shows: the value's type as written ("point_t",
 * "struct point") and its members, when the session knows them. With
 * members, the expression is an lvalue (a chain "a.b[2]->c"). */
typedef struct rt_struct_hint {
    const char *type;       /* NULL: "struct" */
    rt_field_t *fields;     /* none: type and size only */
    size_t nfields, capfields;
} rt_struct_hint_t;

/* Appends one step to hint. */
void rt_struct_hint_add(rt_struct_hint_t *hint, rt_field_kind_t kind, int ndims,
                        const char *name, size_t len);
/* Forgets hint's steps and type (fields freed). */
void rt_struct_hint_clear(rt_struct_hint_t *hint);

/* The hint for the next RT_RESULT_STRUCT plan (borrowed until then). */
void rt_plan_set_struct_hint(const rt_struct_hint_t *hint);

/* Analyses code and appends its source (compiled in `mode`) to src.
 * is_type tells the session's typedef names. plan MUST BE zeroed or made
 * before (it is reset first). */
void rt_plan_make(rt_plan_t *plan, const char *code, int cell, rt_result_mode_t mode,
                  rt_is_type_fn is_type, void *ctx, cm_buf_t *src);

/* rt_plan_make of a text read before: its tokens (code is t->src). */
void rt_plan_make_tokens(rt_plan_t *plan, const rt_tokens_t *t, int cell, rt_result_mode_t mode,
                         rt_is_type_fn is_type, void *ctx, cm_buf_t *src);

/* Writes into the entries of unsized arrays ("int a[] = {...}") the
 * element counts the compiled cell t holds, so that later cells see
 * "extern int a[3];" and sizeof works there. Call after compiling, before
 * committing the plan. */
void rt_plan_complete(rt_plan_t *plan, rt_tcc_t *t);

void rt_plan_free(rt_plan_t *plan);

#endif
