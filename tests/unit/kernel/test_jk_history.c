/* Tests of jk_history and jk_journal over their files (jk_spool): many
 * cells read back, results, the three kinds of history_request, and the
 * %recover record across executor replacements. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jk_history.h"
#include "jk_journal.h"
#include "jk_spool.h"

static json_t *ask(const jk_history_t *h, const char *request)
{
    json_t *content = json_loads(request, 0, NULL);
    CHECK(content != NULL);
    json_t *reply = jk_history_reply(h, content);
    json_decref(content);
    CHECK_STR(json_string_value(json_object_get(reply, "status")), "ok");
    return reply;
}

static json_t *item(json_t *reply, size_t i)
{
    return json_array_get(json_object_get(reply, "history"), i);
}

static void test_spool(void)
{
    jk_spool_t *sp = jk_spool_new();
    CHECK(sp != NULL);
    size_t n;
    char *buf;
    CHECK(jk_spool_read(sp, &n, &buf) == NULL && n == 0);
    CHECK(jk_spool_add(sp, 'I', 7, "a\0b", 3) == 0); /* texts may hold NULs */
    CHECK(jk_spool_add(sp, 'O', -2, "", 0) == 0);
    jk_spool_record_t *r = jk_spool_read(sp, &n, &buf);
    CHECK(n == 2);
    CHECK(r[0].tag == 'I' && r[0].number == 7 && r[0].len == 3 && memcmp(r[0].text, "a\0b", 4) == 0);
    CHECK(r[1].tag == 'O' && r[1].number == -2 && r[1].len == 0 && r[1].text[0] == '\0');
    free(r);
    free(buf);
    jk_spool_free(sp);
}

static void test_many_cells(void)
{
    jk_history_t *h = jk_history_new();
    CHECK(h != NULL);
    char code[64], out[64];
    for (int line = 1; line <= 10000; line++) {
        snprintf(code, sizeof code, "int v%d = %d;", line, line);
        jk_history_add(h, line, code);
        if (line % 2 == 0) {
            snprintf(out, sizeof out, "%d", line * 10);
            jk_history_set_output(h, line, out);
        }
    }
    jk_history_set_output(h, 9998, "last word"); /* the latest result wins */

    json_t *r = ask(h, "{\"hist_access_type\": \"tail\", \"n\": 3, \"output\": true}");
    CHECK(json_array_size(json_object_get(r, "history")) == 3);
    CHECK(json_integer_value(json_array_get(item(r, 0), 1)) == 9998);
    CHECK_STR(json_string_value(json_array_get(json_array_get(item(r, 0), 2), 0)), "int v9998 = 9998;");
    CHECK_STR(json_string_value(json_array_get(json_array_get(item(r, 0), 2), 1)), "last word");
    json_t *none = json_array_get(json_array_get(item(r, 1), 2), 1); /* no result */
    CHECK(!none || json_is_null(none));
    CHECK_STR(json_string_value(json_array_get(json_array_get(item(r, 2), 2), 1)), "100000");
    json_decref(r);

    r = ask(h, "{\"hist_access_type\": \"range\", \"session\": 1, \"start\": 1, \"stop\": 4}");
    CHECK(json_array_size(json_object_get(r, "history")) == 3);
    CHECK_STR(json_string_value(json_array_get(item(r, 0), 2)), "int v1 = 1;");
    CHECK_STR(json_string_value(json_array_get(item(r, 2), 2)), "int v3 = 3;");
    json_decref(r);

    r = ask(h, "{\"hist_access_type\": \"range\", \"session\": 1}");
    CHECK(json_array_size(json_object_get(r, "history")) == 10000);
    json_decref(r);

    r = ask(h, "{\"hist_access_type\": \"search\", \"pattern\": \"int v12?? *\", \"n\": 2}");
    CHECK(json_array_size(json_object_get(r, "history")) == 2);
    CHECK_STR(json_string_value(json_array_get(item(r, 1), 2)), "int v1299 = 1299;");
    json_decref(r);
    jk_history_free(h);
}

static void test_empty_history(void)
{
    jk_history_t *h = jk_history_new();
    json_t *r = ask(h, "{\"hist_access_type\": \"tail\", \"n\": 10}");
    CHECK(json_array_size(json_object_get(r, "history")) == 0);
    json_decref(r);
    jk_history_free(h);
}

/* The codes recoverable now, "cell:code" joined by '|'; takes them. */
static const char *take(jk_journal_t *j)
{
    static char text[4096];
    text[0] = '\0';
    size_t n;
    char *buf;
    jk_journal_entry_t *e = jk_journal_take_recover(j, &n, &buf);
    for (size_t i = 0; i < n; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d:%s", i ? "|" : "",
                 e[i].cell, e[i].code);
    free(e);
    free(buf);
    return text;
}

static void test_journal(void)
{
    jk_journal_t j = {0};
    CHECK_STR(take(&j), "");
    jk_journal_replaced(&j); /* nothing live: nothing changes */
    CHECK(j.nrecover == 0);
    jk_journal_add(&j, 1, "int a = 1;");
    jk_journal_add(&j, 3, "a += 1;");
    CHECK(j.nlive == 2);
    jk_journal_replaced(&j);
    CHECK(j.nlive == 0 && j.nrecover == 2);
    jk_journal_add(&j, 5, "int b = 2;"); /* the next executor, before %recover */
    jk_journal_replaced(&j);
    CHECK(j.nrecover == 3);
    /* replayed cells are not recoverable twice */
    size_t n;
    char *buf;
    jk_journal_entry_t *e = jk_journal_take_recover(&j, &n, &buf);
    CHECK(n == 3 && j.nrecover == 0);
    for (size_t i = 0; i < n; i++)
        jk_journal_add(&j, e[i].cell, e[i].code);
    free(e);
    free(buf);
    jk_journal_replaced(&j);
    CHECK_STR(take(&j), "1:int a = 1;|3:a += 1;|5:int b = 2;");
    CHECK_STR(take(&j), "");
    for (int i = 0; i < 5000; i++)
        jk_journal_add(&j, i, "x++;");
    jk_journal_replaced(&j);
    CHECK(j.nrecover == 5000);
    jk_journal_free(&j);
}

int main(void)
{
    test_spool();
    test_many_cells();
    test_empty_history();
    test_journal();
    return check_report("test_jk_history");
}
