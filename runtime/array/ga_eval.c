/* ga_eval: array math's entry (see ga_eval.h). */
#include "ga_eval.h"

#include "ga_reduce.h"

ga_array_t *ga_eval(const char *text, ga_array_t *out, int nargs, const ga_arg_t *args,
                    cm_error_t *err)
{
    return ga_map_eval_reducing(text, out, nargs, args, ga_reduce_eval, err);
}
