/* rt_kprelude: the device prelude of kernel cells. Device code of EARLIER
 * successful kernel cells is compiled in front of each new cell, so later
 * kernels call earlier __device__ functions; host code's declarations that
 * device code may use are entries too. THE RULE: a cell that defines a
 * top-level name (function, __device__/__constant__ variable, type, macro)
 * that an earlier prelude cell defines replaces that WHOLE earlier cell:
 * the new cell takes the earlier cell's place in the prelude and any other
 * earlier cell it overlaps is dropped. Overloads count as one name.
 *
 * This is the language side (text in, a compile unit out); the backend
 * compiles the unit (gpu_compile_unit in gpu.h) and keeps the kernels and
 * the variables' one storage. Call from the executor's main thread. */
#ifndef RT_KPRELUDE_H
#define RT_KPRELUDE_H

#include "cm_error.h"
#include "gpu.h"

/* Compiles one kernel cell. device_source: the cell's device code (lines
 * numbered from 1 as the user sees them); options: the magic line's
 * options, may be NULL; cell: the execution count, used in messages. Reads
 * the cell's kernels, variables and names, plans the earlier cells it
 * needs, and gives them to gpu_compile_unit (its returns, *out and err are
 * gpu_compile_unit's). On success the cell joins the prelude. */
int rt_kprelude_compile(const char *device_source, const char *options, int cell,
                        gpu_cell_t **out, cm_error_t *err);

/* Adds a declaration of host code that later kernel cells may use to the
 * device prelude, as one .cu file gives its host code's constants, types
 * and macros to device code: text (copied) is the declaration on its cell
 * line (`const int N = 1024;`, `typedef double ft;`, `#define B 256`), cell
 * its execution count. Compiled only in front of a later cell that uses a
 * name it declares. It replaces an earlier host declaration of the same
 * name, in its place; a name a kernel cell of the prelude defines stays
 * the kernel cell's (the declaration is not added). Returns 1 when added,
 * 0 when not, -1 on OOM. */
int rt_kprelude_declare(const char *text, int cell);

/* Compiles the instance name ("scale<float>") of the template kernel base
 * of the latest prelude cell that defines one, with the template
 * arguments args[0..nargs) and that cell's options, and registers it as a
 * kernel of that name (dropped when a cell defines base again). 1 when
 * made (*cell: the template's cell); 0 when no prelude cell defines a
 * template kernel base; -1 with err: GPU_E_COMPILE (err->text NVRTC's or
 * g++'s first error, on the template's cell lines), GPU_E_ARGS (a wrong
 * number of template arguments), or another failure. */
int rt_kprelude_instance(const char *name, const char *base, const char *const *args, int nargs,
                         int *cell, cm_error_t *err);

/* 1 when a kernel cell defines a template __global__ function name (so
 * that `name<...>` in a host cell names one of its instances), else 0. */
int rt_kprelude_is_template(const char *name);

/* Forgets every prelude entry, and the backend's kernels, modules and
 * device variables (gpu_reset_kernels): tests. */
void rt_kprelude_reset(void);

/* Forgets the declarations of host code (rt_kprelude_declare) and keeps
 * the kernel cells: %reset forgets the host cells' names, so device code
 * stops seeing them too. Returns how many went. */
int rt_kprelude_forget_host(void);

#endif
