/* %limits: the operator's limits on this kernel (runtime/session/rt_limits.h,
 * docs/hosting.md), as the executor applied them at its start. */
#include "rt_magic.h"

#include <stdio.h>

#include "ga_array.h"
#include "rt_limits.h"

static void row(const char *what, const char *var, const char *value)
{
    printf("%-26s %-22s %s\n", what, var, value);
}

static const char *bytes_or_none(size_t bytes, char *buf, size_t size)
{
    if (!bytes)
        return "none";
    char text[32];
    ga_bytes_text(bytes, text, sizeof text);
    snprintf(buf, size, "%s (%zu bytes)", text, bytes);
    return buf;
}

int rt_magic_limits(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                    rt_error_t *err)
{
    (void)s;
    (void)code;
    (void)m;
    (void)cell_no;
    (void)err;
    const cm_limits_t *l = rt_limits();
    char b[64];
    row("executor memory (cells)", CM_LIMIT_MEMORY, bytes_or_none(l->memory, b, sizeof b));
    row("array pool per device", CM_LIMIT_GPU_MEMORY, bytes_or_none(l->gpu_memory, b, sizeof b));
    row("output per cell", CM_LIMIT_OUTPUT,
        l->output == (size_t)-1 ? "none" : bytes_or_none(l->output, b, sizeof b));
    if (l->output_rate) {
        snprintf(b, sizeof b, "%zu bytes/s", l->output_rate);
    }
    row("output rate", CM_LIMIT_OUTPUT_RATE, l->output_rate ? b : "none");
    if (l->cell_time)
        snprintf(b, sizeof b, "%g s", l->cell_time);
    row("time per cell", CM_LIMIT_CELL_TIME, l->cell_time ? b : "none");
    return 0;
}
