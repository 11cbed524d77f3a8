/* rt_header: the embedded gpuc.h (see rt_header.h); the functions it
 * declares come from the one list in rt_api.h. */
#include "rt_header.h"

#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "rt_api.h"
#include "rt_launch.h"

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
    /* random numbers and BLAS */
    "#define ga_random(dt, ...) ga_random_n((dt), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_normal(dt, mean, std, ...) \\\n"
    "    ga_normal_n((dt), (mean), (std), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n"
    "#define ga_integers(dt, low, high, ...) \\\n"
    "    ga_integers_n((dt), (low), (high), __GA_N(__VA_ARGS__), __GA_V(__VA_ARGS__))\n";

/* The declarations of rt_api.h's list, one per line. */
#define RT_API_DECLARATION(ret, name, params, impl) #ret " " #name #params ";\n"
static const char api_declarations[] = RT_API_LIST(RT_API_DECLARATION);


const char *rt_header(void)
{
    static char *text;
    if (!text) {
        size_t a = strlen(rt_header_text), b = strlen(gpu_host_header),
               c = strlen(rt_launch_header), d = strlen(api_declarations);
        text = malloc(a + b + c + d + 1);
        if (!text)
            abort();
        memcpy(text, rt_header_text, a);
        memcpy(text + a, gpu_host_header, b);
        memcpy(text + a + b, rt_launch_header, c);
        memcpy(text + a + b + c, api_declarations, d + 1);
    }
    return text;
}
