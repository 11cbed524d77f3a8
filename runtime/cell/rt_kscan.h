/* rt_kscan: a light scanner over the CUDA C++ of kernel cells: the kernels
 * and their parameters, the device variables, the top-level names a cell
 * defines, the instances of template kernels. What it finds goes down to
 * the backend (gpu_compile_unit, in gpu.h), which never reads device
 * source itself. The kernel and variable records are gpu.h's types;
 * gpu_kernels_free frees kernel arrays. */
#ifndef RT_KSCAN_H
#define RT_KSCAN_H

#include <stddef.h>

#include "gpu.h"

/* Non-zero for a character of an identifier: a letter, a digit or '_'. */
int rt_kscan_ident_char(int c);

/* Finds the non-template __global__ functions of src (also inside extern
 * "C" blocks) and parses their parameters. Returns the count and *out
 * (caller frees with gpu_kernels_free; lowered names empty), -1 on OOM. */
int rt_kscan_kernels(const char *src, gpu_kernel_info_t **out);

/* The top-level names src defines (functions with bodies, __device__ /
 * __constant__ / __managed__ variables, struct/class/union/enum tags,
 * typedefs, using-aliases, #define macros). Returns the count and *out, an
 * array of strings (free with rt_kscan_names_free), -1 on OOM. */
int rt_kscan_names(const char *src, char ***out);
void rt_kscan_names_free(char **names, int n);

/* The variables src defines. Returns the count and *out (caller frees),
 * -1 on OOM. */
int rt_kscan_vars(const char *src, gpu_var_info_t **out);

/* The template __global__ function name of src instantiated with the
 * template arguments args[0..nargs) (as written: "float", "256"; defaults
 * fill the rest): its parameters with each template parameter replaced by
 * its argument, parsed as for a kernel, into *out (one entry; caller frees
 * with gpu_kernels_free(*out, 1); name empty). 1 when made; 0 when src
 * defines no template kernel name; -1 with why (a wrong number of
 * template arguments, out of memory). */
int rt_kscan_template(const char *src, const char *name, const char *const *args, int nargs,
                      gpu_kernel_info_t **out, char *why, size_t why_len);

/* Parses one parameter declaration ("const float *__restrict__ x") into p.
 * Exposed for the tests. */
void rt_kscan_param(const char *text, size_t len, gpu_param_t *p);

#endif
