/* Tests of jk_reply: rendering the runtime's error values into Jupyter
 * error replies, and the pass-through of ok and old-form replies. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "jk_reply.h"

/* The rendered reply of a frame given as JSON text. */
static json_t *render(const char *text)
{
    json_t *frame = json_loads(text, 0, NULL);
    CHECK(frame != NULL);
    return jk_reply_from_executor(frame);
}

/* The traceback as one string, lines joined by '|'. */
static const char *traceback(const json_t *reply)
{
    static char buf[1024];
    buf[0] = '\0';
    size_t i;
    json_t *line;
    json_array_foreach(json_object_get(reply, "traceback"), i, line) {
        if (i)
            strcat(buf, "|");
        strcat(buf, json_string_value(line));
    }
    return buf;
}

static void check_error(const json_t *reply, const char *ename, const char *evalue,
                        const char *lines)
{
    CHECK_STR(json_string_value(json_object_get(reply, "status")), "error");
    CHECK_STR(json_string_value(json_object_get(reply, "ename")), ename);
    CHECK_STR(json_string_value(json_object_get(reply, "evalue")), evalue);
    CHECK_STR(traceback(reply), lines);
    CHECK(json_object_get(reply, "error") == NULL);
}

/* One rendering case: the error value, and the expected ename, evalue and
 * traceback (lines joined by '|'). */
typedef struct render_case {
    const char *error;
    const char *ename, *evalue, *traceback;
} render_case_t;

static const render_case_t cases[] = {
    /* the given traceback lines */
    {"{\"kind\":\"CompileError\", \"message\":\"cell 3, line 2: expected ';'\", \"cell\":3, "
     "\"line\":2, \"column\":5, \"hint\":\"\", \"traceback\":[\"cell 3, line 2, column 5: "
     "error: expected ';'\", \"    int x = 1\", \"        ^\"]}",
     "CompileError", "cell 3, line 2: expected ';'",
     "cell 3, line 2, column 5: error: expected ';'|    int x = 1|        ^"},
    /* none given (empty or absent): where it happened, then the message */
    {"{\"kind\":\"Segfault\", \"message\":\"invalid read\", \"cell\":4, \"line\":7, "
     "\"column\":0, \"traceback\":[]}",
     "Segfault", "invalid read", "cell 4, line 7: invalid read"},
    /* the line unknown: the message alone */
    {"{\"kind\":\"SystemExit\", \"message\":\"exit(3)\", \"cell\":2, \"line\":0, \"column\":0}",
     "SystemExit", "exit(3)", "exit(3)"},
    {"{\"kind\":\"MagicError\", \"message\":\"bad\"}", "MagicError", "bad", "bad"},
    /* a hint: one more line, after either kind of traceback */
    {"{\"kind\":\"CudaError\", \"message\":\"out of memory\", \"cell\":1, \"line\":3, "
     "\"hint\":\"free arrays with %reset\"}",
     "CudaError", "out of memory", "cell 1, line 3: out of memory|free arrays with %reset"},
    {"{\"kind\":\"E\", \"message\":\"m\", \"traceback\":[\"a\", \"b\"], \"hint\":\"h\"}", "E",
     "m", "a|b|h"},
};

static void test_render(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char frame[1024];
        snprintf(frame, sizeof frame, "{\"status\":\"error\", \"error\":%s}", cases[i].error);
        json_t *r = render(frame);
        check_error(r, cases[i].ename, cases[i].evalue, cases[i].traceback);
        json_decref(r);
    }
}

static void test_other_keys_kept(void)
{
    json_t *r = render("{\"status\":\"error\", \"execution_count\":5, \"error\":{\"kind\":\"E\", "
                       "\"message\":\"m\"}}");
    CHECK(json_integer_value(json_object_get(r, "execution_count")) == 5);
    json_decref(r);
}

/* ok replies and replies already in the old form pass through unchanged */
static void test_pass_through(void)
{
    const char *texts[] = {
        "{\"status\":\"ok\", \"result\":{\"data\":{\"text/plain\":\"42\"}, \"metadata\":{}}}",
        "{\"status\":\"ok\"}",
        "{\"status\":\"error\", \"ename\":\"CompileError\", \"evalue\":\"x\", "
        "\"traceback\":[\"x\", \"  ^\"]}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        json_t *frame = json_loads(texts[i], 0, NULL);
        json_t *expect = json_deep_copy(frame);
        json_t *r = jk_reply_from_executor(frame);
        CHECK(r == frame);
        CHECK(json_equal(r, expect));
        json_decref(r);
        json_decref(expect);
    }
    CHECK(jk_reply_from_executor(NULL) == NULL);
}

static void test_error_builder(void)
{
    json_t *r = jk_reply_error("ExecutorDied", "the executor was killed by SEGV");
    check_error(r, "ExecutorDied", "the executor was killed by SEGV",
                "the executor was killed by SEGV");
    CHECK(json_object_size(r) == 4);
    json_decref(r);
}

int main(void)
{
    test_render();
    test_other_keys_kept();
    test_pass_through();
    test_error_builder();
    return check_report("test_jk_reply");
}
