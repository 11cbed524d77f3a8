/* rt_header: the embedded gpuc.h (see rt_header.h); the functions it
 * declares come from the one list in rt_api.h. */
#include "rt_header.h"

#include <stdlib.h>
#include <string.h>

#include "ga_ops.h"
#include "gpu.h"
#include "rt_api.h"
#include "rt_launch.h"

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

const char rt_header_text[] =
    "#line 1 \"gpuc.h\"\n"
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
    "enum { GA_BOOL, GA_I8, GA_U8, GA_I16, GA_U16, GA_I32, GA_U32, GA_I64, GA_U64, GA_F16,\n"
    "       GA_F32, GA_F64, GA_C64, GA_C128 };\n"
    "#define BOOL GA_BOOL\n#define I8 GA_I8\n#define U8 GA_U8\n#define I16 GA_I16\n"
    "#define U16 GA_U16\n#define I32 GA_I32\n#define U32 GA_U32\n#define I64 GA_I64\n"
    "#define U64 GA_U64\n#define F16 GA_F16\n#define F32 GA_F32\n#define F64 GA_F64\n"
    "#define C64 GA_C64\n#define C128 GA_C128\n"
    "#define GA_CPU (-1)\n"
    "#define GA_END 9223372036854775807LL\n"
    "#define __GA_N(...) ((int)(sizeof((long long[]){0, ##__VA_ARGS__}) / sizeof(long long)) - 1)\n"
    "#define __GA_V(...) ((const long long[]){0, ##__VA_ARGS__} + 1)\n"
    "#define ga_empty(dt, ...) ga_empty_n((dt), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_zeros(dt, ...) ga_zeros_n((dt), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_ones(dt, ...) ga_ones_n((dt), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_full(dt, v, ...) ga_full_n((dt), (v), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_from_host(dt, p, ...) \\\n"
    "    ga_from_host_n((dt), (p), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_from_device(dt, p, ...) \\\n"
    "    ga_from_device_n((dt), (p), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_reshape(a, ...) ga_reshape_n((a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_permute(a, ...) ga_permute_n((a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_item(a, ...) ga_item_n((a), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_set(a, v, ...) ga_set_n((a), (v), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    /* array math: operands are arrays or numbers (docs/arrays.md); the operand
     * list is sized: TCC rejects an unsized compound literal of structs */
    "#define GA_ALL (-1000)\n"
    "typedef struct ga_arg { int kind; ga_t a; long long i; double f; } ga_arg_t;\n"
    "static inline ga_arg_t __ga_arg_a(ga_t a) { ga_arg_t r = {1, a, 0, 0}; return r; }\n"
    "static inline ga_arg_t __ga_arg_i(long long i) { ga_arg_t r = {2, 0, i, 0}; return r; }\n"
    "static inline ga_arg_t __ga_arg_f(double f) { ga_arg_t r = {3, 0, 0, f}; return r; }\n"
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
    GA_REDUCTIONS(RT_REDUCTION_MACRO)
    /* random numbers and BLAS */
    "#define ga_random(dt, ...) ga_random_n((dt), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_normal(dt, mean, std, ...) \\\n"
    "    ga_normal_n((dt), (mean), (std), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_integers(dt, low, high, ...) \\\n"
    "    ga_integers_n((dt), (low), (high), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n";

/* The declarations of rt_api.h's list, one per line. */
#define RT_API_DECLARATION(ret, name, params, impl) #ret " " #name #params ";\n"
static const char api_declarations[] = RT_API_LIST(RT_API_DECLARATION);


const char *rt_header(int cuda_toolkit)
{
    static char *text[2];
    cuda_toolkit = cuda_toolkit != 0;
    if (!text[cuda_toolkit]) {
        const char *cuda = gpu_host_header(cuda_toolkit);
        size_t a = strlen(rt_header_text), b = strlen(cuda), c = strlen(rt_launch_header),
               d = strlen(api_declarations);
        char *t = malloc(a + b + c + d + 1);
        if (!t)
            abort();
        memcpy(t, rt_header_text, a);
        memcpy(t + a, cuda, b);
        memcpy(t + a + b, rt_launch_header, c);
        memcpy(t + a + b + c, api_declarations, d + 1);
        text[cuda_toolkit] = t;
    }
    return text[cuda_toolkit];
}
