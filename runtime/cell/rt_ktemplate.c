/* rt_ktemplate: template kernels launched by an instance's name, as nvcc
 * programs write them (`scale<float><<<g, b>>>(x, 2.0f, n)`; rt_ktemplate.h).
 * The name is put in one canonical form, split into the template's name
 * and its arguments, and compiled the first time (rt_kprelude_instance:
 * the cells of the prelude that it needs, NVRTC's name expression for the
 * instance, g++ on the simulator); the backend's kernel registry then
 * holds it under that name, so a later launch costs what any launch
 * costs. */
#include "rt_ktemplate.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "rt_kprelude.h"
#include "rt_kscan.h"

#define MAX_TEMPLATE_ARGS 16

/* name without blanks, but one between two words ("unsigned int"). */
static void canonical(const char *name, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = name; *p && o + 2 < len; p++) {
        if (!isspace((unsigned char)*p)) {
            out[o++] = *p;
            continue;
        }
        while (isspace((unsigned char)p[1]))
            p++;
        if (o && rt_kscan_ident_char(out[o - 1]) && rt_kscan_ident_char(p[1]))
            out[o++] = ' ';
    }
    out[o] = '\0';
}

/* The template arguments of canon ("tile<float,16>": "float", "16") into
 * args; the count, or -1 when canon is no instance's name. base gets the
 * template's name. */
static int split(const char *canon, char *base, size_t base_len,
                 char args[MAX_TEMPLATE_ARGS][128])
{
    const char *lt = strchr(canon, '<');
    size_t n = strlen(canon);
    if (!lt || lt == canon || canon[n - 1] != '>')
        return -1;
    snprintf(base, base_len, "%.*s", (int)(lt - canon), canon);
    int count = 0, depth = 0;
    const char *start = lt + 1, *end = canon + n - 1;
    for (const char *p = start; p <= end; p++) {
        if (p < end && strchr("<([", *p))
            depth++;
        else if (p < end && strchr(">)]", *p))
            depth--;
        if (p < end && (*p != ',' || depth > 0))
            continue;
        if (count == MAX_TEMPLATE_ARGS || p == start)
            return p == start && p == end && count == 0 ? 0 : -1;
        snprintf(args[count++], 128, "%.*s", (int)(p - start), start);
        start = p + 1;
    }
    return count;
}

static void where(char *buf, size_t len, int cell, int line)
{
    if (cell > 0 && line > 0)
        snprintf(buf, len, "cell %d, line %d: ", cell, line);
    else
        buf[0] = '\0';
}

int rt_ktemplate_instance(const char *name, char *canon, size_t canon_len, int cell, int line,
                          cm_error_t *err)
{
    const gpu_param_t *params;
    canonical(name, canon, canon_len);
    if (gpu_kernel_params(canon, &params) >= 0)
        return 0; /* a kernel, or an instance made before */
    char base[128], args[MAX_TEMPLATE_ARGS][128], at[64];
    int nargs = split(canon, base, sizeof base, args);
    if (nargs < 0)
        return 0; /* no instance: gpu_launch says the name is unknown */
    where(at, sizeof at, cell, line);
    if (strlen(canon) >= sizeof ((gpu_kernel_info_t *)0)->name) {
        CM_ERROR(err, GPU_E_ARGS, "%sthe instance name %s is too long (at most %zu characters)",
                 at, canon, sizeof ((gpu_kernel_info_t *)0)->name - 1);
        return -1;
    }
    if (gpu_kernel_params(base, &params) >= 0) {
        CM_ERROR(err, GPU_E_NO_KERNEL, "%s%s is not a template kernel: launch it as %s<<<...>>>",
                 at, base, base);
        return -1;
    }
    const char *argv[MAX_TEMPLATE_ARGS];
    for (int i = 0; i < nargs; i++)
        argv[i] = args[i];
    int tcell = 0;
    cm_error_t e = {0};
    int rc = rt_kprelude_instance(canon, base, argv, nargs, &tcell, &e);
    if (rc == 1)
        return 0;
    if (rc == 0) {
        CM_ERROR(err, GPU_E_NO_KERNEL, "%sno template kernel named %s: no kernel cell defines "
                 "`template <...> __global__ void %s(...)`", at, base, base);
        return -1;
    }
    /* NVRTC names its instantiation request __nv_name_map: say what it was */
    const char *why = e.text;
    if (strncmp(why, "__nv_name_map(", 14) == 0 && strstr(why, "): "))
        why = strstr(why, "): ") + 3;
    CM_ERROR(err, e.code, "%s%s cannot be instantiated (the template is in cell %d): %s", at,
             canon, tcell, why);
    return -1;
}
