/* cm_limits: the operator's limits from the environment (see cm_limits.h). */
#include "cm_limits.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int cm_size_parse(const char *text, size_t *bytes)
{
    if (strcasecmp(text, "none") == 0) {
        *bytes = 0;
        return 0;
    }
    char *end;
    double v = strtod(text, &end);
    if (end == text || !(v >= 0) || !isfinite(v))
        return -1;
    static const struct {
        const char *unit;
        double scale;
    } units[] = {{"", 1},      {"b", 1},      {"kb", 1e3},      {"mb", 1e6},         {"gb", 1e9},
                 {"tb", 1e12}, {"kib", 1024.0}, {"mib", 1048576.0}, {"gib", 1073741824.0},
                 {"tib", 1099511627776.0}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(end, units[i].unit) == 0) {
            double b = v * units[i].scale;
            if (b >= 1.8e19)
                return -1;
            *bytes = (size_t)b;
            return 0;
        }
    return -1;
}

/* The size in variable name, if set and not empty. */
static int env_size(const char *name, size_t *out, cm_error_t *err)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    if (cm_size_parse(v, out) != 0) {
        CM_ERROR(err, -1, "%s='%.64s' is not a size (512MB, 4GiB, none)", name, v);
        return -1;
    }
    return 0;
}

int cm_limits_from_env(cm_limits_t *out, cm_error_t *err)
{
    *out = (cm_limits_t){.output = CM_LIMITS_OUTPUT_DEFAULT};
    if (env_size(CM_LIMIT_MEMORY, &out->memory, err) != 0 ||
        env_size(CM_LIMIT_GPU_MEMORY, &out->gpu_memory, err) != 0 ||
        env_size(CM_LIMIT_OUTPUT, &out->output, err) != 0 ||
        env_size(CM_LIMIT_OUTPUT_RATE, &out->output_rate, err) != 0)
        return -1;
    if (!out->output) /* "none": as good as no cap; a browser cannot take more */
        out->output = (size_t)-1;
    const char *t = getenv(CM_LIMIT_CELL_TIME);
    if (t && *t && strcasecmp(t, "none") != 0) {
        char *end;
        double s = strtod(t, &end);
        if (end == t || *end || !(s >= 0) || s > 1e7) {
            CM_ERROR(err, -1, "%s='%.64s' is not a number of seconds", CM_LIMIT_CELL_TIME, t);
            return -1;
        }
        out->cell_time = s;
    }
    return 0;
}
