/* test_rt_decl: the size an unsized array's initializer gives it. */
#include <string.h>

#include "check.h"
#include "rt_decl.h"

/* The count rt_decl_count writes for the first declarator of decl (no
 * ';'), or "-" when there is none. */
static const char *count(const char *decl)
{
    static char out[512];
    rt_decl_t d;
    rt_decl_parse(decl, 0, strlen(decl), 1, NULL, NULL, &d);
    cm_buf_t b = {0};
    int rc = rt_decl_count(decl, &d.d[0], &b);
    snprintf(out, sizeof out, "%s", rc == 0 ? cm_buf_str(&b) : "-");
    cm_buf_free(&b);
    return out;
}

int main(void)
{
    CHECK_STR(count("int a[] = {1, 2, 3}"), "3");
    CHECK_STR(count("int a[] = {1, 2, 3,}"), "3");
    CHECK_STR(count("const char *names[] = {\"a\", NULL, f(1, 2)}"), "3");
    CHECK_STR(count("int (*fns[])(const char *) = {atoi, NULL}"), "2");
    CHECK_STR(count("struct p ps[] = {{1, 2}, {3, 4}, {.x = 5}}"), "3");
    CHECK_STR(count("int m[][2] = {{1, 2}, {3, 4}}"), "2");
    CHECK_STR(count("int d[] = {[5] = 1, [2] = x, y}"),
              "sizeof (union { char m0[(5) + 1]; char m1[(2) + 2]; })");
    CHECK_STR(count("int d[] = {1, [N - 1] = 2}"),
              "sizeof (union { char m0[1]; char m1[(N - 1) + 1]; })");
    CHECK_STR(count("int r[] = {[0 ... 9] = v}"), "sizeof (union { char m0[(9) + 1]; })");
    CHECK_STR(count("char s[] = \"text\""), "sizeof (\"text\") / sizeof *(\"text\")");
    CHECK_STR(count("int n[3] = {1}"), "-");     /* sized */
    CHECK_STR(count("int *p = q"), "-");         /* not an array */
    CHECK_STR(count("extern int e[]"), "-");     /* no initializer */
    return check_report("test_rt_decl");
}
