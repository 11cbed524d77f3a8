/* ga_eval: array math's entry — an expression text over arrays and
 * numbers (ga_expr), run as one elementwise kernel (ga_map) or, with a
 * reduction at its root ("sum((a - b) * (a - b))", "max(x, 1)"), as a
 * reduction (ga_reduce). It stands above both, so that ga_reduce runs its
 * own elementwise pieces through ga_map and ga_map calls no reduction. */
#ifndef GA_EVAL_H
#define GA_EVAL_H

#include "cm_error.h"
#include "ga_array.h"
#include "ga_map.h"

/* Evaluates text over args[0, nargs) as ga_map_eval does; a reduction at
 * the root returns its result array (0-d for a whole-array one; out, when
 * given, must have its shape). NULL with err (the codes of ga_map_eval). */
ga_array_t *ga_eval(const char *text, ga_array_t *out, int nargs, const ga_arg_t *args,
                    cm_error_t *err);

#endif
