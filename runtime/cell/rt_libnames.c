/* rt_libnames: which of CUDA's host libraries a host cell's text names
 * (see rt_libnames.h). */
#include "rt_libnames.h"

#include <ctype.h>
#include <string.h>

#include "gpu.h"

static const struct {
    int lib;            /* GPU_HOSTLIB_* */
    const char *prefix; /* of its header's, functions' and types' names */
} prefixes[] = {
    {GPU_HOSTLIB_CUBLAS, "cublas"},
    {GPU_HOSTLIB_CURAND, "curand"},
    {GPU_HOSTLIB_CUFFT, "cufft"},
    {GPU_HOSTLIB_CUSPARSE, "cusparse"},
};
#define NPREFIXES (int)(sizeof prefixes / sizeof prefixes[0])

/* Non-zero when code has a word that starts with prefixes[i] and belongs
 * to the library's host API. */
static int names(const char *code, int i)
{
    const char *prefix = prefixes[i].prefix;
    size_t n = strlen(prefix);
    for (const char *p = strstr(code, prefix); p; p = strstr(p + n, prefix)) {
        if (p > code && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
            continue;
        if (prefixes[i].lib == GPU_HOSTLIB_CURAND &&
            (p[n] == '_' || strncmp(p + n, "State", 5) == 0))
            continue; /* the device API: curand_init, curandState */
        return 1;
    }
    return 0;
}

unsigned rt_libraries_named(const char *code)
{
    unsigned mask = 0;
    for (int i = 0; i < NPREFIXES; i++)
        if (names(code, i))
            mask |= 1u << prefixes[i].lib;
    return mask;
}

int rt_library_of_symbol(const char *symbol)
{
    for (int i = 0; i < NPREFIXES; i++)
        if (strncmp(symbol, prefixes[i].prefix, strlen(prefixes[i].prefix)) == 0)
            return prefixes[i].lib;
    return -1;
}
