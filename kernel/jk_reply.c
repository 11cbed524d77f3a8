#include "jk_reply.h"

static const char *string_or(const json_t *object, const char *key, const char *fallback)
{
    const char *s = json_string_value(json_object_get(object, key));
    return s ? s : fallback;
}

static json_int_t int_of(const json_t *object, const char *key)
{
    return json_integer_value(json_object_get(object, key)); /* 0 when absent */
}

/* The traceback lines of an error value: its own lines, else one line
 * naming where it happened; then the hint, if any. */
static json_t *traceback_of(const json_t *error, const char *message)
{
    json_t *lines = json_array();
    const json_t *given = json_object_get(error, "traceback");
    size_t i;
    json_t *line;
    json_array_foreach(given, i, line)
        if (json_is_string(line))
            json_array_append(lines, line);
    json_int_t cell = int_of(error, "cell"), at = int_of(error, "line");
    if (json_array_size(lines) == 0)
        json_array_append_new(lines, cell > 0 && at > 0
                                         ? json_sprintf("cell %" JSON_INTEGER_FORMAT
                                                        ", line %" JSON_INTEGER_FORMAT ": %s",
                                                        cell, at, message)
                                         : json_string(message));
    const char *hint = string_or(error, "hint", "");
    if (*hint)
        json_array_append_new(lines, json_string(hint));
    return lines;
}

json_t *jk_reply_from_executor(json_t *frame)
{
    json_t *error = json_object_get(frame, "error");
    if (!json_is_object(error) || json_object_get(frame, "ename"))
        return frame;
    json_incref(error); /* outlives its removal from frame */
    json_object_del(frame, "error");
    const char *message = string_or(error, "message", "");
    json_object_set_new(frame, "status", json_string("error"));
    json_object_set_new(frame, "ename", json_string(string_or(error, "kind", "Error")));
    json_object_set_new(frame, "evalue", json_string(message));
    json_object_set_new(frame, "traceback", traceback_of(error, message));
    json_decref(error);
    return frame;
}

json_t *jk_reply_error(const char *kind, const char *message)
{
    return json_pack("{s:s, s:s, s:s, s:[s]}", "status", "error", "ename", kind, "evalue",
                     message, "traceback", message);
}
