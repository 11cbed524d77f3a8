/* test_rt_options: the state of %cflags and %lib — a -D or -U replacing
 * an earlier one of the same macro, an option kept once, the joined text
 * TCC gets, libraries found and recorded once, a missing one explained. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rt_options.h"

static void test_cflags(void)
{
    rt_options_t o = {0};
    CHECK(rt_options_cflags_text(&o) == NULL);
    rt_options_add_cflag(&o, "-DN=1");
    rt_options_add_cflag(&o, "-I/tmp");
    rt_options_add_cflag(&o, "-I/tmp");  /* once */
    rt_options_add_cflag(&o, "-UN");     /* replaces -DN=1 */
    rt_options_add_cflag(&o, "-DM");
    rt_options_add_cflag(&o, "-DN=2");   /* replaces -UN */
    char *text = rt_options_cflags_text(&o);
    CHECK_STR(text, "-I/tmp -DM -DN=2");
    free(text);
    rt_options_clear(&o);
    CHECK(o.cflags.n == 0);
}

static void test_libraries(void)
{
    rt_options_t o = {0};
    char why[2048] = "";
    CHECK(rt_options_add_library(&o, "m", why, sizeof why) == 0);
    CHECK(rt_options_add_library(&o, "m", why, sizeof why) == 0); /* recorded once */
    CHECK(o.lib_names.n == 1 && strcmp(o.lib_names.v[0], "m") == 0);
    CHECK(o.lib_paths.n == 1 && strstr(o.lib_paths.v[0], "libm.so"));
    CHECK(rt_options_add_library(&o, "gpuc_no_such_lib", why, sizeof why) == -1);
    CHECK(strstr(why, "no libgpuc_no_such_lib.so or libgpuc_no_such_lib.so.N") != NULL);
    CHECK(o.lib_names.n == 1);
    rt_options_clear(&o);
    CHECK(o.lib_names.n == 0 && o.lib_paths.n == 0);
}

int main(void)
{
    test_cflags();
    test_libraries();
    return check_report("test_rt_options");
}
