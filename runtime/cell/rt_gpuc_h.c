/* rt_gpuc_h: the text of gpuc.h (see rt_header.h). It is made here, at
 * compile time, from the one list of the functions cells call (rt_api.h),
 * the named operations (ga_ops.h) and the CUDA vector types (gpu.h); the
 * build writes it to BUILD/include/gpuc.h (src/gpuc_h.c), `gpuc install`
 * beside kernel.json, and every host cell is compiled after it. This file
 * needs nothing at run time: the build's generator links it alone. */
#include "rt_header.h"

#include "ga_dtype.h"
#include "ga_ops.h"
#include "gpu.h"
#include "gpuc_config.h"
#include "rt_api.h"

/* gpuc.h's macros of the named operations (runtime/array/ga_ops.h) */
#define RT_UNARY_MACRO(name, expr)                                                          \
    "#define " #name "(a) ga_eval_n(\"" #name "\", \"" expr "\", 0, 1, __GA_ARGS(a))\n"      \
    "#define " #name "_out(out, a) ga_eval_n(\"" #name "_out\", \"" expr "\", (out), 1, "     \
    "__GA_ARGS(a))\n"
#define RT_BINARY_MACRO(name, expr)                                                         \
    "#define " #name "(a, b) ga_eval_n(\"" #name "\", \"" expr "\", 0, 2, __GA_ARGS(a, b))\n" \
    "#define " #name "_out(out, a, b) ga_eval_n(\"" #name "_out\", \"" expr "\", (out), 2, "  \
    "__GA_ARGS(a, b))\n"
#define RT_TERNARY_MACRO(name, expr, x, y, z)                                               \
    "#define " #name "(" #x ", " #y ", " #z ") ga_eval_n(\"" #name "\", \"" expr "\", 0, 3, " \
    "__GA_ARGS(" #x ", " #y ", " #z "))\n"                                                   \
    "#define " #name "_out(out, " #x ", " #y ", " #z ") ga_eval_n(\"" #name "_out\", \"" expr \
    "\", (out), 3, __GA_ARGS(" #x ", " #y ", " #z "))\n"
#define RT_REDUCTION_MACRO(name)                                                            \
    "#define ga_" #name "(a) ga_reduce_all(\"ga_" #name "\", \"" #name "\", (a))\n"           \
    "#define ga_" #name "_axis(a, axis, keepdims) ga_reduce_axis(\"ga_" #name "_axis\", \""     \
    #name "\", (a), (axis), (keepdims))\n"

/* The dtypes (runtime/array/ga_dtype.h): the code, the constant, the short
 * name. */
#define DTYPE_CODE(n) "GA_CODE_" #n ", "
#define DTYPE_CONSTANT(n) "#define GA_" #n " ((ga_dtype_t){GA_CODE_" #n "})\n"
#define DTYPE_SHORT(n) "#define " #n " GA_" #n "\n"

#define RT_AXES_MACRO(name)                                                                 \
    "#define ga_" #name "_axes(a, keepdims, ...) ga_reduce_axes(\"ga_" #name "_axes\", \""      \
    #name "\", (a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__), (keepdims), 0)\n"

#define RT_INT_REDUCTION_MACRO(name)                                                        \
    "#define ga_" #name "_i64(a) ga_reduce_all_i64(\"ga_" #name "_i64\", \"" #name "\", (a))\n"

#define VECTOR_KIND(t, b, n, a) #t ": 'v', "
#define VECTOR_NAME(t, b, n, a) #t ": \"" #t "\", "
#define HALF_KIND(t, a) #t ": 'v', "
#define HALF_NAME(t, a) #t ": \"" #t "\", "

/* The declarations of rt_api.h's list, one per line, and of the old names
 * with their new names' types. */
#define RT_API_DECLARATION(ret, name, params, impl) #ret " " #name #params ";\n"
#define RT_API_RENAMED_DECLARATION(old, name, impl) "__typeof__(" #name ") " #old ";\n"

const char rt_gpuc_h[] =
    "/* gpuc.h: what every host cell of a gpuc notebook is compiled after: the\n"
    " * standard headers a notebook expects, device arrays (ga_*), display from\n"
    " * C (gpuc_display_*) and the helpers of the code gpuc generates (__gpuc_*).\n"
    " * docs/arrays.md and docs/cells.md tell how to use them.\n"
    " *\n"
    " * Made by gpuc " GPUC_VERSION " from its one list of the functions cells call\n"
    " * (runtime/cell/rt_api.h): do not edit; `gpuc --include-dir` prints the\n"
    " * folder of this gpuc's copy. The CUDA runtime API (cudaMalloc, dim3...)\n"
    " * is not here: a notebook declares it after this file from the CUDA toolkit\n"
    " * found when the session starts (%gpu says which); a program outside a\n"
    " * notebook includes the toolkit's <cuda_runtime.h>. The functions are\n"
    " * defined inside a gpuc session only (cells and %%cc cells link them). */\n"
    "#ifndef GPUC_H\n"
    "#define GPUC_H\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <stdint.h>\n"
    "#include <stddef.h>\n"
    "#include <stdbool.h>\n"
    "#include <math.h>\n"
    "struct __gpuc_no_format { int never; };\n"
    "void __gpuc_show_fail(struct __gpuc_no_format);\n"
    "/* device arrays: docs/arrays.md */\n"
    "typedef struct ga_array *ga_t;\n"
    /* a dtype is its own type, so that an int is not taken for one:
     * ga_zeros(4, 4) is a compile error, not a 1-d uint16 array */
    "typedef struct ga_dtype { int code; } ga_dtype_t;\n"
    "enum ga_dtype_code { " GA_DTYPES(DTYPE_CODE) "};\n"
    /* ga_dtype(a) is the code, an int: `ga_dtype(a) == GA_CODE_F32`
     * (two structs cannot be compared in C); GA_DTYPE(code) is the dtype */
    "#define GA_DTYPE(code) ((ga_dtype_t){(code)})\n"
    GA_DTYPES(DTYPE_CONSTANT)
    /* the short names: a cell's own U8 or F32 takes #undef U8 first
     * (docs/arrays.md); a .c file may leave them out */
    "#ifndef GPUC_NO_SHORT_DTYPES\n"
    GA_DTYPES(DTYPE_SHORT)
    "#endif\n"
    "#define GA_CPU (-1)\n"
    "#define GA_END 9223372036854775807LL\n"
    "#define __GA_N(...) ((int)(sizeof((long long[]){0, ##__VA_ARGS__}) / sizeof(long long)) - 1)\n"
    "#define __GA_V(...) ((const long long[]){0, ##__VA_ARGS__} + 1)\n"
    "#define ga_empty(dt, ...) ga_empty_n((dt), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_zeros(dt, ...) ga_zeros_n((dt), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_ones(dt, ...) ga_ones_n((dt), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    /* an integer value stays exact (int64 and uint64 extremes): __GA_VALUE */
    "#define ga_full(dt, v, ...) ga_full_v((dt), __GA_VALUE(v), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_from_host(dt, p, ...) \\\n"
    "    ga_from_host_n((dt), (p), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_from_device(dt, p, ...) \\\n"
    "    ga_from_device_n((dt), (p), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_reshape(a, ...) ga_reshape_n((a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_permute(a, ...) ga_permute_n((a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_item(a, ...) ga_item_n((a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_item_i64(a, ...) ga_item_i64_n((a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_set(a, v, ...) ga_set_v((a), __GA_VALUE(v), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    /* array math: operands are arrays or numbers (docs/arrays.md); the operand
     * list is sized: TCC rejects an unsized compound literal of structs */
    "#define GA_ALL (-1000)\n"
    "typedef struct ga_arg { int kind; ga_t a; long long i; double f; } ga_arg_t;\n"
    "static inline ga_arg_t __ga_arg_a(ga_t a) { ga_arg_t r = {1, a, 0, 0}; return r; }\n"
    "static inline ga_arg_t __ga_arg_i(long long i) { ga_arg_t r = {2, 0, i, 0}; return r; }\n"
    "static inline ga_arg_t __ga_arg_f(double f) { ga_arg_t r = {3, 0, 0, f}; return r; }\n"
    /* a fill value: kind 4 is an unsigned integer's bits (ga_api.h) */
    "static inline ga_arg_t __ga_arg_u(unsigned long long u) { ga_arg_t r = {4, 0, (long long)u, 0}; return r; }\n"
    "#define __GA_VALUE(x) _Generic((x), float: __ga_arg_f, double: __ga_arg_f, long double: __ga_arg_f, \\\n"
    "    unsigned long: __ga_arg_u, unsigned long long: __ga_arg_u, default: __ga_arg_i)(x)\n"
    "#define __GA_ARG(x) _Generic((x), ga_t: __ga_arg_a, float: __ga_arg_f, double: __ga_arg_f, \\\n"
    "    long double: __ga_arg_f, default: __ga_arg_i)(x)\n"
    "#define __GA_NARGS(...) __GA_NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, \\\n"
    "    3, 2, 1, 0)\n"
    "#define __GA_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, \\\n"
    "    N, ...) N\n"
    "#define __GA_CAT(a, b) __GA_CAT_(a, b)\n"
    "#define __GA_CAT_(a, b) a##b\n"
    "#define __GA_A1(x) __GA_ARG(x)\n"
    "#define __GA_A2(x, ...) __GA_ARG(x), __GA_A1(__VA_ARGS__)\n"
    "#define __GA_A3(x, ...) __GA_ARG(x), __GA_A2(__VA_ARGS__)\n"
    "#define __GA_A4(x, ...) __GA_ARG(x), __GA_A3(__VA_ARGS__)\n"
    "#define __GA_A5(x, ...) __GA_ARG(x), __GA_A4(__VA_ARGS__)\n"
    "#define __GA_A6(x, ...) __GA_ARG(x), __GA_A5(__VA_ARGS__)\n"
    "#define __GA_A7(x, ...) __GA_ARG(x), __GA_A6(__VA_ARGS__)\n"
    "#define __GA_A8(x, ...) __GA_ARG(x), __GA_A7(__VA_ARGS__)\n"
    "#define __GA_A9(x, ...) __GA_ARG(x), __GA_A8(__VA_ARGS__)\n"
    "#define __GA_A10(x, ...) __GA_ARG(x), __GA_A9(__VA_ARGS__)\n"
    "#define __GA_A11(x, ...) __GA_ARG(x), __GA_A10(__VA_ARGS__)\n"
    "#define __GA_A12(x, ...) __GA_ARG(x), __GA_A11(__VA_ARGS__)\n"
    "#define __GA_A13(x, ...) __GA_ARG(x), __GA_A12(__VA_ARGS__)\n"
    "#define __GA_A14(x, ...) __GA_ARG(x), __GA_A13(__VA_ARGS__)\n"
    "#define __GA_A15(x, ...) __GA_ARG(x), __GA_A14(__VA_ARGS__)\n"
    "#define __GA_A16(x, ...) __GA_ARG(x), __GA_A15(__VA_ARGS__)\n"
    "#define __GA_ARGS(...) \\\n"
    "    ((const ga_arg_t[__GA_NARGS(__VA_ARGS__)]){__GA_CAT(__GA_A, __GA_NARGS(__VA_ARGS__))(__VA_ARGS__)})\n"
    "#define ga_map(expr, ...) \\\n"
    "    ga_eval_n(\"ga_map\", (expr), 0, __GA_NARGS(__VA_ARGS__), __GA_ARGS(__VA_ARGS__))\n"
    "#define ga_map_out(out, expr, ...) \\\n"
    "    ga_eval_n(\"ga_map_out\", (expr), (out), __GA_NARGS(__VA_ARGS__), __GA_ARGS(__VA_ARGS__))\n"
    GA_UNARY_OPS(RT_UNARY_MACRO) GA_BINARY_OPS(RT_BINARY_MACRO) GA_TERNARY_OPS(RT_TERNARY_MACRO)
    GA_REDUCTIONS(RT_REDUCTION_MACRO) GA_INT_REDUCTIONS(RT_INT_REDUCTION_MACRO)
    /* random numbers and BLAS */
    "#define ga_random(dt, ...) ga_random_n((dt), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_normal(dt, mean, std, ...) \\\n"
    "    ga_normal_n((dt), (mean), (std), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_integers(dt, low, high, ...) \\\n"
    "    ga_integers_n((dt), (low), (high), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    /* einsum: one or two operands, counted */
    "#define ga_einsum(s, ...) ga_einsum_n((s), \\\n"
    "    (int)(sizeof((ga_t[]){__VA_ARGS__}) / sizeof(ga_t)), (const ga_t[]){__VA_ARGS__})\n"
    /* joining, indexing by data, sorting; reductions over several axes
     * (docs/arrays.md) */
    GA_REDUCTIONS(RT_AXES_MACRO)
    "#define ga_var_ddof(a, axis, ddof, keepdims) \\\n"
    "    ga_reduce_axes(\"ga_var_ddof\", \"var\", (a), 1, __GA_V(axis), (keepdims), (ddof))\n"
    "#define ga_std_ddof(a, axis, ddof, keepdims) \\\n"
    "    ga_reduce_axes(\"ga_std_ddof\", \"std\", (a), 1, __GA_V(axis), (keepdims), (ddof))\n"
    "#define ga_var_axes_ddof(a, ddof, keepdims, ...) ga_reduce_axes(\"ga_var_axes_ddof\", \"var\", \\\n"
    "    (a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__), (keepdims), (ddof))\n"
    "#define ga_std_axes_ddof(a, ddof, keepdims, ...) ga_reduce_axes(\"ga_std_axes_ddof\", \"std\", \\\n"
    "    (a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__), (keepdims), (ddof))\n"
    "#define __GA_NA(...) ((int)(sizeof((ga_t[]){__VA_ARGS__}) / sizeof(ga_t)))\n"
    "#define ga_concatenate(axis, ...) \\\n"
    "    ga_concatenate_n(__GA_NA(__VA_ARGS__), (const ga_t[]){__VA_ARGS__}, (axis))\n"
    "#define ga_stack(axis, ...) ga_stack_n(__GA_NA(__VA_ARGS__), (const ga_t[]){__VA_ARGS__}, (axis))\n"
    "#define ga_split(a, sections, axis, parts) ga_split_n((a), (sections), (axis), -1, 0, (parts))\n"
    "#define ga_split_at(a, axis, parts, ...) \\\n"
    "    ga_split_n((a), 0, (axis), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__), (parts))\n"
    "#define ga_pad(a, mode, value, ...) \\\n"
    "    ga_pad_n((a), (mode), (value), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_tile(a, ...) ga_tile_n((a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_put(a, idx, v) ga_put_n((a), (idx), __GA_ARGS(v))\n"
    "#define ga_put_mode(a, idx, v, mode) ga_put_mode_n((a), (idx), __GA_ARGS(v), (mode))\n"
    "#define ga_mask_assign(a, mask, v) ga_mask_assign_n((a), (mask), __GA_ARGS(v))\n"
    /* where(c, a, b) is the elementwise choice; where(c, out) NumPy's
     * one-argument where, nonzero */
    "#undef ga_where\n"
    "#define ga_where(...) __GA_CAT(__ga_where_, __GA_NARGS(__VA_ARGS__))(__VA_ARGS__)\n"
    "#define __ga_where_3(c, a, b) ga_eval_n(\"ga_where\", \"where(c, a, b)\", 0, 3, __GA_ARGS(c, a, b))\n"
    "#define __ga_where_2(c, out) ga_nonzero((c), (out))\n"
    /* what the code rt_launch writes for kernel<<<...>>>(...) asks of each
     * argument */
    "#define __gpuc_is_dim3(v) _Generic((v), dim3: 1, default: 0)\n"
    /* what an argument is: i / u a signed / unsigned integer, f float,
     * d double, l long double, a a device array, v a CUDA vector type or
     * __half, p anything else (a pointer or a struct) */
    "#define __gpuc_kind(v) _Generic((v), _Bool: 'u', char: 'i', signed char: 'i', "
    "unsigned char: 'u', short: 'i', unsigned short: 'u', int: 'i', unsigned int: 'u', "
    "long: 'i', unsigned long: 'u', long long: 'i', unsigned long long: 'u', float: 'f', "
    "double: 'd', long double: 'l', struct ga_array *: 'a', "
    GPU_VECTOR_TYPES(VECTOR_KIND) GPU_HALF_TYPES(HALF_KIND) "default: 'p')\n"
    /* its type's name where it is one of those, for the launch's messages */
    "#define __gpuc_type(v) _Generic((v), _Bool: \"bool\", char: \"char\", "
    "signed char: \"signed char\", unsigned char: \"unsigned char\", short: \"short\", "
    "unsigned short: \"unsigned short\", int: \"int\", unsigned int: \"unsigned int\", "
    "long: \"long\", unsigned long: \"unsigned long\", long long: \"long long\", "
    "unsigned long long: \"unsigned long long\", float: \"float\", double: \"double\", "
    "long double: \"long double\", "
    GPU_VECTOR_TYPES(VECTOR_NAME) GPU_HALF_TYPES(HALF_NAME) "default: (const char *)0)\n"
    /* the functions of rt_api.h's list (dim3 and struct gpu_device_props
     * are defined with the CUDA runtime API, after this file) */
    "struct gpu_device_props;\n"
    RT_API_LIST(RT_API_DECLARATION)
    "#define ga_full_like(a, v) ga_full_like_v((a), __GA_VALUE(v))\n"
    /* three integers: NumPy's integer arange, exact past 2^53 */
    "#define ga_arange(dt, start, stop, step) _Generic((start) + (stop) + (step), float: ga_arange, \\\n"
    "    double: ga_arange, long double: ga_arange, default: ga_arange_i)((dt), (start), (stop), (step))\n"
    "/* the names of before the prefix rule, for one more release: use the\n"
    " * gpuc_ and __gpuc_ names above (docs/cells.md, \"Names\") */\n"
    RT_API_RENAMED(RT_API_RENAMED_DECLARATION)
    "#endif\n";
