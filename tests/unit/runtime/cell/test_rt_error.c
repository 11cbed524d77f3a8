/* test_rt_error: the runtime's error value — first error wins, explicit
 * traceback lines, source lines with a caret under the column (tabs
 * kept), rewording, moving, and the JSON the executor link carries. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "rt_error.h"

static void test_first_wins(void)
{
    rt_error_t e = {0};
    CHECK(!rt_error_is_set(&e));
    CHECK(rt_error_set(&e, "CompileError", 3, 2, "cell %d, line %d: %s", 3, 2, "bad") == -1);
    CHECK(rt_error_is_set(&e));
    CHECK(rt_error_set(&e, "UsageError", 4, 1, "later") == -1);
    CHECK_STR(e.kind, "CompileError");
    CHECK_STR(e.message, "cell 3, line 2: bad");
    CHECK(e.cell == 3 && e.line == 2);
    CHECK(rt_error_set(NULL, "X", 0, 0, "ignored") == -1); /* no error wanted */
    rt_error_free(&e);
    CHECK(!rt_error_is_set(&e) && e.traceback.n == 0);
}

static void test_source_caret(void)
{
    rt_error_t e = {0};
    rt_error_set(&e, "CompileError", 1, 1, "m");
    rt_error_add_line(&e, "cell %d, line %d, column %d: error: %s", 1, 1, 9, "x");
    const char *src = "\tint x = ;";
    rt_error_add_source(&e, src, strlen(src), 9);
    CHECK(e.traceback.n == 3);
    CHECK_STR(e.traceback.v[0], "cell 1, line 1, column 9: error: x");
    CHECK_STR(e.traceback.v[1], "    \tint x = ;");
    CHECK_STR(e.traceback.v[2], "    \t       ^"); /* the tab kept, so the caret lines up */
    rt_error_add_source(&e, "abc", 3, 0); /* no column: no caret */
    CHECK(e.traceback.n == 4);
    rt_error_free(&e);
}

static void test_reword_move_json(void)
{
    rt_error_t a = {0}, b = {0};
    rt_error_set(&a, "SegmentationFault", 2, 0, "crashed");
    rt_error_add_line(&a, "SegmentationFault: crashed");
    rt_error_reword(&a, "interrupted, kernel %s still running", "k");
    CHECK_STR(a.message, "interrupted, kernel k still running");
    CHECK(a.traceback.n == 0); /* the old lines went with the old message */
    rt_error_hint(&a, "restart the kernel");
    rt_error_move(&b, &a);
    CHECK(!rt_error_is_set(&a));
    CHECK_STR(b.kind, "SegmentationFault");
    json_t *j = rt_error_json(&b);
    CHECK_STR(json_string_value(json_object_get(j, "kind")), "SegmentationFault");
    CHECK_STR(json_string_value(json_object_get(j, "message")),
              "interrupted, kernel k still running");
    CHECK_STR(json_string_value(json_object_get(j, "hint")), "restart the kernel");
    CHECK(json_integer_value(json_object_get(j, "cell")) == 2);
    CHECK(json_array_size(json_object_get(j, "traceback")) == 0);
    json_decref(j);
    /* text that is not UTF-8 still makes a JSON value */
    rt_error_t bad = {0};
    rt_error_set(&bad, "CompileError", 1, 1, "bad byte \xff here");
    j = rt_error_json(&bad);
    CHECK(j && json_string_value(json_object_get(j, "kind")));
    json_decref(j);
    rt_error_free(&bad);
    rt_error_free(&b);
}

static void test_source_line(void)
{
    size_t len;
    const char *l = rt_source_line("one\ntwo\nthree", 2, &len);
    CHECK(len == 3 && strncmp(l, "two", 3) == 0);
    l = rt_source_line("one\ntwo", 3, &len);
    CHECK(len == 0);
}

int main(void)
{
    test_first_wins();
    test_source_caret();
    test_reword_move_json();
    test_source_line();
    return check_report("test_rt_error");
}
