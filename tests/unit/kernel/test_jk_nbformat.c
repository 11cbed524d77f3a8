/* Tests of jk_nbformat: how `gpuc run` stores outputs (as nbclient does),
 * reading and writing notebooks. No executor is needed. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "jk_nbformat.h"

static json_t *frame(const char *text)
{
    json_error_t jerr;
    json_t *msg = json_loads(text, 0, &jerr);
    if (!msg)
        fprintf(stderr, "bad test JSON: %s: %s\n", text, jerr.text);
    return msg;
}

static void apply(jk_nb_outputs_t *o, const char *text)
{
    json_t *msg = frame(text);
    CHECK(jk_nb_outputs_message(o, msg) == 0);
    json_decref(msg);
}

/* outputs[i].key as a string, or NULL. */
static const char *out_str(const jk_nb_outputs_t *o, size_t i, const char *key)
{
    return json_string_value(json_object_get(json_array_get(o->outputs, i), key));
}

static const char *out_data(const jk_nb_outputs_t *o, size_t i, const char *mime)
{
    json_t *data = json_object_get(json_array_get(o->outputs, i), "data");
    return json_string_value(json_object_get(data, mime));
}

static void test_streams(void)
{
    json_t *outputs = json_pack("[{s:s}]", "output_type", "old"), *ids = json_object();
    jk_nb_outputs_t o;
    jk_nb_outputs_begin(&o, outputs, ids);
    CHECK(json_array_size(outputs) == 0);

    CHECK(jk_nb_outputs_stream(&o, "stdout", "a\n", 2) == 0);
    CHECK(jk_nb_outputs_stream(&o, "stdout", "b\n", 2) == 0);
    CHECK(jk_nb_outputs_stream(&o, "stdout", "", 0) == 0);
    CHECK(json_array_size(outputs) == 1);
    CHECK_STR(out_str(&o, 0, "output_type"), "stream");
    CHECK_STR(out_str(&o, 0, "name"), "stdout");
    CHECK_STR(out_str(&o, 0, "text"), "a\nb\n");

    CHECK(jk_nb_outputs_stream(&o, "stderr", "warn\n", 5) == 0);
    CHECK(jk_nb_outputs_stream(&o, "stdout", "c", 1) == 0);
    CHECK(json_array_size(outputs) == 3); /* not merged across another stream */
    CHECK_STR(out_str(&o, 1, "text"), "warn\n");
    CHECK_STR(out_str(&o, 2, "text"), "c");

    /* a display in between starts a new stream output */
    apply(&o, "{\"op\":\"display\",\"data\":{\"text/plain\":\"x\"}}");
    CHECK(jk_nb_outputs_stream(&o, "stdout", "d", 1) == 0);
    CHECK(json_array_size(outputs) == 5);
    CHECK_STR(out_str(&o, 4, "text"), "d");

    /* invalid UTF-8 is refused, not stored */
    CHECK(jk_nb_outputs_stream(&o, "stderr", "\xff", 1) == -1);
    CHECK(json_array_size(outputs) == 5);
    json_decref(outputs);
    json_decref(ids);
}

static void test_display(void)
{
    json_t *cell1 = json_array(), *cell2 = json_array(), *ids = json_object();
    jk_nb_outputs_t o;
    jk_nb_outputs_begin(&o, cell1, ids);

    apply(&o, "{\"op\":\"display\",\"data\":{\"text/html\":\"<b>x</b>\"},\"metadata\":{\"m\":1},"
              "\"transient\":{},\"update\":false}");
    CHECK(json_array_size(cell1) == 1);
    json_t *first = json_array_get(cell1, 0);
    CHECK_STR(out_str(&o, 0, "output_type"), "display_data");
    CHECK_STR(out_data(&o, 0, "text/html"), "<b>x</b>");
    CHECK(json_integer_value(json_object_get(json_object_get(first, "metadata"), "m")) == 1);
    CHECK(json_object_get(first, "transient") == NULL); /* not stored, as Jupyter */
    CHECK(json_object_size(first) == 3);

    /* missing metadata becomes {} */
    apply(&o, "{\"op\":\"display\",\"data\":{\"text/plain\":\"p\"},"
              "\"transient\":{\"display_id\":\"bar\"}}");
    CHECK(json_is_object(json_object_get(json_array_get(cell1, 1), "metadata")));

    /* an update replaces in place, appends nothing */
    apply(&o, "{\"op\":\"display\",\"data\":{\"text/plain\":\"q\"},\"metadata\":{},"
              "\"transient\":{\"display_id\":\"bar\"},\"update\":true}");
    CHECK(json_array_size(cell1) == 2);
    CHECK_STR(out_data(&o, 1, "text/plain"), "q");

    /* an update of an unknown id is dropped */
    apply(&o, "{\"op\":\"display\",\"data\":{\"text/plain\":\"r\"},\"metadata\":{},"
              "\"transient\":{\"display_id\":\"nope\"},\"update\":true}");
    CHECK(json_array_size(cell1) == 2);

    /* a later cell updates the earlier cell's output, and a new display with
     * the same id updates all the earlier ones too (nbclient) */
    jk_nb_outputs_begin(&o, cell2, ids);
    apply(&o, "{\"op\":\"display\",\"data\":{\"text/plain\":\"s\"},\"metadata\":{},"
              "\"transient\":{\"display_id\":\"bar\"},\"update\":true}");
    CHECK(json_array_size(cell2) == 0);
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(cell1, 1), "data"),
                                                "text/plain")),
              "s");
    apply(&o, "{\"op\":\"display\",\"data\":{\"text/plain\":\"t\"},\"metadata\":{},"
              "\"transient\":{\"display_id\":\"bar\"}}");
    CHECK(json_array_size(cell2) == 1);
    CHECK_STR(out_data(&o, 0, "text/plain"), "t");
    CHECK_STR(json_string_value(json_object_get(json_object_get(json_array_get(cell1, 1), "data"),
                                                "text/plain")),
              "t");

    /* malformed frames are refused; unknown ops ignored */
    json_t *bad = frame("{\"op\":\"display\",\"data\":\"nope\"}");
    CHECK(jk_nb_outputs_message(&o, bad) == -1);
    json_decref(bad);
    apply(&o, "{\"op\":\"something\"}");
    CHECK(json_array_size(cell2) == 1);

    json_decref(cell1);
    json_decref(cell2);
    json_decref(ids);
}

static void test_clear_output(void)
{
    json_t *outputs = json_array(), *ids = json_object();
    jk_nb_outputs_t o;
    jk_nb_outputs_begin(&o, outputs, ids);

    jk_nb_outputs_stream(&o, "stdout", "1\n", 2);
    apply(&o, "{\"op\":\"clear_output\",\"wait\":false}");
    CHECK(json_array_size(outputs) == 0);

    /* wait=true: the outputs stay until the next output arrives */
    jk_nb_outputs_stream(&o, "stdout", "2\n", 2);
    apply(&o, "{\"op\":\"display\",\"data\":{\"text/plain\":\"frame 1\"},\"metadata\":{},"
              "\"transient\":{\"display_id\":\"p\"}}");
    apply(&o, "{\"op\":\"clear_output\",\"wait\":true}");
    CHECK(json_array_size(outputs) == 2);
    /* an update is not an output: it does not trigger the clear */
    apply(&o, "{\"op\":\"display\",\"data\":{\"text/plain\":\"frame 2\"},\"metadata\":{},"
              "\"transient\":{\"display_id\":\"p\"},\"update\":true}");
    CHECK(json_array_size(outputs) == 2);
    CHECK_STR(out_data(&o, 1, "text/plain"), "frame 2");
    /* the stream is not merged into the cleared "2\n" */
    jk_nb_outputs_stream(&o, "stdout", "3\n", 2);
    CHECK(json_array_size(outputs) == 1);
    CHECK_STR(out_str(&o, 0, "text"), "3\n");

    /* a pending clear applies before a result or an error too */
    apply(&o, "{\"op\":\"clear_output\",\"wait\":true}");
    json_t *reply = frame("{\"status\":\"ok\",\"result\":{\"data\":{\"text/plain\":\"49\"},"
                          "\"metadata\":{}}}");
    CHECK(jk_nb_outputs_reply(&o, reply, 4) == 0);
    json_decref(reply);
    CHECK(json_array_size(outputs) == 1);
    CHECK_STR(out_str(&o, 0, "output_type"), "execute_result");

    /* a new cell forgets a pending clear */
    apply(&o, "{\"op\":\"clear_output\",\"wait\":true}");
    jk_nb_outputs_begin(&o, outputs, ids);
    CHECK(o.clear_pending == 0);
    json_decref(outputs);
    json_decref(ids);
}

static void test_reply(void)
{
    json_t *outputs = json_array(), *ids = json_object();
    jk_nb_outputs_t o;
    jk_nb_outputs_begin(&o, outputs, ids);

    json_t *reply = frame("{\"status\":\"ok\"}");
    CHECK(jk_nb_outputs_reply(&o, reply, 1) == 0);
    CHECK(json_array_size(outputs) == 0);
    json_decref(reply);

    reply = frame("{\"status\":\"ok\",\"result\":{\"data\":{\"text/plain\":\"49\"}}}");
    CHECK(jk_nb_outputs_reply(&o, reply, 3) == 0);
    json_decref(reply);
    json_t *r = json_array_get(outputs, 0);
    CHECK_STR(out_str(&o, 0, "output_type"), "execute_result");
    CHECK_STR(out_data(&o, 0, "text/plain"), "49");
    CHECK(json_integer_value(json_object_get(r, "execution_count")) == 3);
    CHECK(json_is_object(json_object_get(r, "metadata")));

    reply = frame("{\"status\":\"error\",\"ename\":\"CompileError\",\"evalue\":\"cell 2, line 1\","
                  "\"traceback\":[\"line one\", 7, \"line two\"]}");
    CHECK(jk_nb_outputs_reply(&o, reply, 4) == 1);
    json_decref(reply);
    json_t *e = json_array_get(outputs, 1);
    CHECK_STR(out_str(&o, 1, "output_type"), "error");
    CHECK_STR(out_str(&o, 1, "ename"), "CompileError");
    CHECK_STR(out_str(&o, 1, "evalue"), "cell 2, line 1");
    CHECK(json_array_size(json_object_get(e, "traceback")) == 2);

    reply = frame("{\"status\":\"error\"}"); /* fields missing: still a valid output */
    CHECK(jk_nb_outputs_reply(&o, reply, 5) == 1);
    json_decref(reply);
    CHECK_STR(out_str(&o, 2, "ename"), "Error");
    CHECK_STR(out_str(&o, 2, "evalue"), "");
    CHECK(json_is_array(json_object_get(json_array_get(outputs, 2), "traceback")));

    CHECK(jk_nb_outputs_error(&o, "ExecutorDied", "gone") == 0);
    CHECK_STR(out_str(&o, 3, "ename"), "ExecutorDied");
    CHECK_STR(json_string_value(json_array_get(
                  json_object_get(json_array_get(outputs, 3), "traceback"), 0)),
              "ExecutorDied: gone");
    json_decref(outputs);
    json_decref(ids);
}

static void test_notebook_files(void)
{
    json_t *cell = frame("{\"source\":[\"int n = 7;\\n\",\"n\"]}");
    char *src = jk_nb_cell_source(cell);
    CHECK_STR(src, "int n = 7;\nn");
    free(src);
    json_decref(cell);
    cell = frame("{\"source\":\"printf(\\\"hi\\\");\"}");
    src = jk_nb_cell_source(cell);
    CHECK_STR(src, "printf(\"hi\");");
    free(src);
    json_decref(cell);
    cell = frame("{}");
    src = jk_nb_cell_source(cell);
    CHECK_STR(src, "");
    free(src);
    json_decref(cell);

    char dir[] = "/tmp/test_jk_nbformat.XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], bad[256];
    snprintf(path, sizeof path, "%s/nb.ipynb", dir);
    snprintf(bad, sizeof bad, "%s/v3.ipynb", dir);

    json_t *nb = frame("{\"nbformat\":4,\"nbformat_minor\":5,\"metadata\":{\"custom\":\"kept\","
                       "\"kernelspec\":{\"name\":\"python3\"}},\"cells\":[]}");
    CHECK(jk_nb_set_gpuc_metadata(nb) == 0);
    json_t *meta = json_object_get(nb, "metadata");
    CHECK_STR(json_string_value(json_object_get(meta, "custom")), "kept");
    CHECK_STR(json_string_value(json_object_get(json_object_get(meta, "kernelspec"), "name")),
              "gpuc");
    CHECK_STR(json_string_value(json_object_get(json_object_get(meta, "language_info"), "name")),
              "c");
    CHECK(jk_nb_save(nb, path, NULL) == 0);

    FILE *f = fopen(path, "r");
    char text[2048] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    CHECK(n > 0 && text[n - 1] == '\n');
    CHECK(strncmp(text, "{\n \"cells\": [],\n \"metadata\": {\n", 31) == 0); /* sorted, indent 1 */

    cm_error_t err = {0};
    json_t *back = jk_nb_load(path, &err);
    CHECK(back && json_equal(back, nb));
    json_decref(back);

    FILE *v3 = fopen(bad, "w");
    if (v3) {
        fputs("{\"nbformat\":3,\"worksheets\":[]}", v3);
        fclose(v3);
    }
    cm_error_clear(&err);
    CHECK(jk_nb_load(bad, &err) == NULL);
    CHECK(strstr(err.text, "nbformat 4") != NULL);
    cm_error_clear(&err);
    CHECK(jk_nb_load("/nonexistent/x.ipynb", &err) == NULL && err.code != 0);
    cm_error_clear(&err);
    CHECK(jk_nb_save(nb, "/nonexistent/x.ipynb", &err) == -1 && err.code != 0);
    json_decref(nb);
    unlink(path);
    unlink(bad);
    rmdir(dir);
}

int main(void)
{
    test_streams();
    test_display();
    test_clear_output();
    test_reply();
    test_notebook_files();
    return check_report("test_jk_nbformat");
}
