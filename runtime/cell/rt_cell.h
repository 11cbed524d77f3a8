/* rt_cell: splits a host C cell into its top-level items, in order.
 *
 * An item is a preprocessor line, a function definition, a declaration
 * (types, variables, prototypes), a statement, or the cell's final
 * expression (the last item when it has no ';'). Comments, string and
 * character literals and directive continuations never confuse it.
 * Typedefs seen earlier in the same cell count as type names. */
#ifndef RT_CELL_H
#define RT_CELL_H

#include <stddef.h>

#include "rt_decl.h"
#include "rt_lex.h"

typedef enum {
    RT_ITEM_DIRECTIVE,
    RT_ITEM_FUNCTION,
    RT_ITEM_DECLARATION,
    RT_ITEM_STATEMENT,
    RT_ITEM_EXPRESSION,
} rt_item_kind_t;

typedef struct rt_item {
    rt_item_kind_t kind;
    size_t start, end;   /* bytes of the cell; a declaration/statement ends after ';' */
    size_t body;         /* RT_ITEM_FUNCTION: offset of the body's '{' */
    int line, end_line;  /* 1-based lines of the first and last byte */
    int has_semicolon;   /* a declaration or statement ended with ';' */
} rt_item_t;

typedef struct rt_cell {
    rt_item_t *items;
    size_t n;
} rt_cell_t;

/* Splits code into out->items (caller frees with rt_cell_free). is_type
 * may be NULL (then only standard type names are known). Returns 0. */
int rt_cell_split(const char *code, rt_is_type_fn is_type, void *ctx, rt_cell_t *out);
void rt_cell_free(rt_cell_t *cell);

/* rt_cell_split of a text read before: its tokens (a cell's, or a view of
 * them; items are bytes of tokens->src). Returns 0. */
int rt_cell_split_tokens(const rt_tokens_t *tokens, rt_is_type_fn is_type, void *ctx,
                         rt_cell_t *out);

/* Whether code is a whole cell, for is_complete (jupyter console sends
 * each line): "incomplete" for an open bracket, comment or literal, a
 * trailing backslash, a control header or a function's head without its
 * body (`for (...)`, `double half(double v)`), `else`/`do`, a trailing
 * operator or comma, a cell magic line alone; "invalid" for a closer
 * without its opener (or of another kind); "complete" otherwise. indent:
 * levels of indentation for the next line (open braces, at least 1). */
typedef struct rt_completeness {
    const char *status; /* static */
    int indent;
} rt_completeness_t;

rt_completeness_t rt_cell_check_complete(const char *code);

/* rt_cell_check_complete's status alone. Static string. */
const char *rt_cell_completeness(const char *code);

/* IPython's habits a whole cell may be instead of C (runtime/rt_shortcut
 * runs them): `exit`, `quit` (optionally with `()`), and `name?`,
 * `name??`, `?name`, `??name`. */
typedef enum {
    RT_SHORTCUT_NONE,
    RT_SHORTCUT_EXIT,  /* exit or quit: name is the word */
    RT_SHORTCUT_HELP,  /* name?: name is the name asked about */
} rt_shortcut_kind_t;

typedef struct rt_shortcut_form {
    rt_shortcut_kind_t kind;
    char name[256];
    int detail;        /* RT_SHORTCUT_HELP: 1 for ?? */
} rt_shortcut_form_t;

/* The shortcut code has the form of (out may be NULL), by its text alone:
 * whether the session declared a variable `exit` is the runner's to ask. */
rt_shortcut_kind_t rt_cell_shortcut(const char *code, rt_shortcut_form_t *out);

/* Name of an item kind ("directive", "function", ...), for tests and logs. */
const char *rt_item_kind_name(rt_item_kind_t kind);

#endif
