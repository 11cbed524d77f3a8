/* Tests of cm_limits: sizes as operators write them, and the GPUC_LIMIT_*
 * variables read, defaulted and refused. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cm_limits.h"

static void test_sizes(void)
{
    static const struct {
        const char *text;
        size_t bytes;
    } good[] = {{"0", 0}, {"none", 0}, {"NONE", 0}, {"512", 512}, {"512b", 512},
                {"1kB", 1000}, {"1KiB", 1024}, {"256MiB", 256u << 20}, {"64MB", 64000000},
                {"4GiB", (size_t)4 << 30}, {"1.5G", 1500000000}, {"1e9", 1000000000},
                {"2t", (size_t)2000000000000}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t got = 7;
        CHECK(cm_size_parse(good[i].text, &got) == 0);
        CHECK(got == good[i].bytes);
    }
    static const char *const bad[] = {"", "4X", "-1", "GB", "4 GB", "nan", "inf", "1e30", "12MBs"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t got = 7;
        CHECK(cm_size_parse(bad[i], &got) == -1);
        CHECK(got == 7); /* untouched */
    }
}

static void clear_env(void)
{
    const char *names[] = {CM_LIMIT_MEMORY, CM_LIMIT_GPU_MEMORY, CM_LIMIT_OUTPUT,
                           CM_LIMIT_OUTPUT_RATE, CM_LIMIT_CELL_TIME};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unsetenv(names[i]);
}

static void test_env(void)
{
    cm_limits_t l;
    cm_error_t err = {0};
    clear_env();
    CHECK(cm_limits_from_env(&l, &err) == 0);
    CHECK(!l.memory && !l.gpu_memory && !l.output_rate && l.cell_time == 0);
    CHECK(l.output == CM_LIMITS_OUTPUT_DEFAULT);

    setenv(CM_LIMIT_MEMORY, "4GiB", 1);
    setenv(CM_LIMIT_GPU_MEMORY, "8GB", 1);
    setenv(CM_LIMIT_OUTPUT, "none", 1);
    setenv(CM_LIMIT_OUTPUT_RATE, "1MB", 1);
    setenv(CM_LIMIT_CELL_TIME, "2.5", 1);
    CHECK(cm_limits_from_env(&l, &err) == 0);
    CHECK(l.memory == (size_t)4 << 30 && l.gpu_memory == 8000000000u);
    CHECK(l.output == (size_t)-1); /* none: no cap */
    CHECK(l.output_rate == 1000000 && l.cell_time == 2.5);

    setenv(CM_LIMIT_CELL_TIME, "", 1); /* empty: not set */
    CHECK(cm_limits_from_env(&l, &err) == 0 && l.cell_time == 0);

    setenv(CM_LIMIT_CELL_TIME, "soon", 1);
    CHECK(cm_limits_from_env(&l, &err) == -1);
    CHECK(strstr(err.text, "GPUC_LIMIT_CELL_TIME='soon' is not a number of seconds") != NULL);

    clear_env();
    cm_error_clear(&err);
    setenv(CM_LIMIT_OUTPUT_RATE, "fast", 1);
    CHECK(cm_limits_from_env(&l, &err) == -1);
    CHECK(strstr(err.text, "GPUC_LIMIT_OUTPUT_RATE='fast' is not a size") != NULL);
    clear_env();
}

int main(void)
{
    test_sizes();
    test_env();
    return check_report("test_cm_limits");
}
