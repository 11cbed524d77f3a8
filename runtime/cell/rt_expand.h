/* rt_expand: top-level items that start with a user's macro, and
 * declarations that use one anywhere, expanded before the cell is split
 * for real.
 *
 * Whether `DECLARE_PAIR`, `MAKE_GETTER(answer, 42)` or `REAL x = 1;` is a
 * declaration, a function or a statement is only known once the macro is
 * expanded. Such items are run through libtcc's preprocessor with the
 * user's #define lines (the session's and the cell's own, never the
 * headers'), and the expansion replaces the item in place, on the same
 * lines, so every line number of the cell stays what the user sees
 * (__LINE__ and __FILE__ in it too: cell_no is the cell's number). */
#ifndef RT_EXPAND_H
#define RT_EXPAND_H

#include "rt_decl.h"

/* Returns a new copy of the cell read into code (code->src its text) with
 * those items expanded (caller frees), or NULL when no item needs a user
 * macro expanded or the expansion failed (then the cell is compiled as
 * written, and TCC reports what is wrong). user_macros holds the
 * session's #define/#undef lines; libdir is TCC's. */
char *rt_expand_cell(const char *libdir, const char *user_macros, const rt_tokens_t *code,
                     int cell_no, rt_is_type_fn is_type, void *ctx);

#endif
