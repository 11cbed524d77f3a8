/* sim_cell: a kernel cell enters the simulator (sim_compile, see sim.h).
 *
 * The top of backend/sim's calls: the cell is compiled (sim_compile.c),
 * bound to the scheduler's hooks (sim_sched.c's sim_hooks) and kept for a
 * checked variant later (sim_module.c), so that neither of those calls up
 * into the other. */
#include "sim.h"

#include "sim_check.h"

int sim_compile(const char *source, const char *options, int nkernels, const char *const *names,
                sim_entry_fn *entries, sim_sizes_fn *sizes, int nvars, const char *const *vars,
                void **var_addrs, size_t *var_sizes, char **shared, size_t *shared_bytes,
                char **log, double *ms, const char **cache, cm_error_t *err)
{
    if (sim_compile_variant(source, options, 0, nkernels, names, entries, sizes, nvars, vars,
                            var_addrs, var_sizes, shared, shared_bytes, log, ms, cache,
                            sim_hooks(), err))
        return -1;
    sim_module_keep(source, options, nkernels, names, entries);
    return 0;
}
