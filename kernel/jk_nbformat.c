/* jk_nbformat: reading and writing nbformat 4 notebooks, and storing a
 * cell's outputs as nbclient does (see jk_nbformat.h). */
#include "jk_nbformat.h"

#include "cm_file.h"
#include "cm_link.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

json_t *jk_nb_load(const char *path, cm_error_t *err)
{
    json_error_t jerr;
    json_t *nb = json_load_file(path, 0, &jerr);
    if (!nb) {
        if (jerr.line > 0)
            CM_ERROR(err, 1, "%s: line %d: %s", path, jerr.line, jerr.text);
        else
            CM_ERROR(err, 1, "%s: %s", path, jerr.text);
        return NULL;
    }
    json_t *format = json_object_get(nb, "nbformat");
    if (!json_is_object(nb) || !json_is_integer(format) || json_integer_value(format) != 4) {
        CM_ERROR(err, 1, "%s: not an nbformat 4 notebook", path);
        json_decref(nb);
        return NULL;
    }
    if (!json_is_array(json_object_get(nb, "cells"))) {
        CM_ERROR(err, 1, "%s: the notebook has no \"cells\" list", path);
        json_decref(nb);
        return NULL;
    }
    return nb;
}

int jk_nb_save(const json_t *nb, const char *path, cm_error_t *err)
{
    /* The file keeps its permissions; a new one gets 0666 less the umask. */
    mode_t mode = 0666;
    struct stat st;
    if (stat(path, &st) == 0)
        mode = st.st_mode & 07777;
    char *text = json_dumps(nb, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (!text) {
        CM_ERROR(err, 1, "cannot write %s: out of memory", path);
        return -1;
    }
    const void *parts[2] = {text, "\n"};
    size_t lens[2] = {strlen(text), 1};
    int rc = cm_file_writev(path, parts, lens, 2, mode, err);
    free(text);
    return rc;
}

char *jk_nb_cell_source(const json_t *cell)
{
    const json_t *source = json_object_get(cell, "source");
    if (json_is_string(source))
        return strdup(json_string_value(source));
    size_t total = 0, i;
    const json_t *line;
    json_array_foreach(source, i, line)
        total += json_string_length(line); /* 0 for a non-string */
    char *code = malloc(total + 1), *p = code;
    if (!code)
        return NULL;
    json_array_foreach(source, i, line) {
        size_t n = json_string_length(line);
        if (n)
            memcpy(p, json_string_value(line), n);
        p += n;
    }
    *p = '\0';
    return code;
}

int jk_nb_set_gpuc_metadata(json_t *nb)
{
    json_t *meta = json_object_get(nb, "metadata");
    if (!json_is_object(meta)) {
        meta = json_object();
        if (json_object_set_new(nb, "metadata", meta) != 0)
            return -1;
    }
    int rc = json_object_set_new(meta, "kernelspec",
                                 json_pack("{s:s, s:s, s:s}", "name", "gpuc", "display_name",
                                           "C + CUDA (gpuc)", "language", "c"));
    rc |= json_object_set_new(meta, "language_info",
                              json_pack("{s:s, s:s, s:s}", "name", "c", "mimetype", "text/x-csrc",
                                        "file_extension", ".c"));
    return rc ? -1 : 0;
}

/* --- outputs ------------------------------------------------------------ */

void jk_nb_outputs_begin(jk_nb_outputs_t *o, json_t *outputs, json_t *display_ids)
{
    o->outputs = outputs;
    o->display_ids = display_ids;
    o->clear_pending = 0;
    json_array_clear(outputs);
}

/* Every output is about to be added through here: a clear_output(wait=true)
 * takes effect now, as in Jupyter. */
static int append(jk_nb_outputs_t *o, json_t *output /* stolen */)
{
    if (!output)
        return -1;
    if (o->clear_pending) {
        json_array_clear(o->outputs);
        o->clear_pending = 0;
    }
    return json_array_append_new(o->outputs, output);
}

/* A string member of obj, "" when absent. */
static const char *field(const json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

int jk_nb_outputs_stream(jk_nb_outputs_t *o, const char *name, const char *text, size_t len)
{
    if (len == 0)
        return 0;
    size_t n = json_array_size(o->outputs);
    json_t *last = n && !o->clear_pending ? json_array_get(o->outputs, n - 1) : NULL;
    json_t *last_text = json_object_get(last, "text");
    if (last && json_is_string(last_text) &&
        strcmp(field(last, "output_type"), "stream") == 0 && strcmp(field(last, "name"), name) == 0) {
        size_t old = json_string_length(last_text);
        char *joined = malloc(old + len);
        if (!joined)
            return -1;
        memcpy(joined, json_string_value(last_text), old);
        memcpy(joined + old, text, len);
        int rc = json_string_setn(last_text, joined, old + len);
        free(joined);
        return rc;
    }
    json_t *s = json_stringn(text, len);
    if (!s)
        return -1;
    return append(o, json_pack("{s:s, s:s, s:o}", "output_type", "stream", "name", name, "text", s));
}

/* Replaces data and metadata of every output shown with display_id. */
static void update_display(jk_nb_outputs_t *o, const char *display_id, const json_t *data,
                           const json_t *metadata)
{
    json_t *shown = json_object_get(o->display_ids, display_id), *out;
    size_t i;
    json_array_foreach(shown, i, out) {
        json_object_set_new(out, "data", json_deep_copy(data));
        json_object_set_new(out, "metadata", json_deep_copy(metadata));
    }
}

static int remember_display(jk_nb_outputs_t *o, const char *display_id, json_t *out)
{
    json_t *shown = json_object_get(o->display_ids, display_id);
    if (!shown) {
        shown = json_array();
        if (json_object_set_new(o->display_ids, display_id, shown) != 0)
            return -1;
    }
    return json_array_append(shown, out);
}

static int on_display(jk_nb_outputs_t *o, const json_t *msg)
{
    const json_t *data = json_object_get(msg, "data");
    const json_t *metadata = json_object_get(msg, "metadata");
    if (!json_is_object(data))
        return -1;
    json_t *empty = NULL;
    if (!json_is_object(metadata))
        metadata = empty = json_object();
    const char *display_id =
        json_string_value(json_object_get(json_object_get(msg, "transient"), "display_id"));
    int rc = 0;

    if (display_id && o->display_ids)
        update_display(o, display_id, data, metadata);
    if (!json_is_true(json_object_get(msg, "update"))) {
        json_t *out = json_pack("{s:s, s:o, s:o}", "output_type", "display_data", "data",
                                json_deep_copy(data), "metadata", json_deep_copy(metadata));
        if (out && display_id && o->display_ids)
            rc = remember_display(o, display_id, out);
        rc |= append(o, out);
    }
    json_decref(empty);
    return rc ? -1 : 0;
}

int jk_nb_outputs_message(jk_nb_outputs_t *o, const json_t *msg)
{
    if (cm_link_op_is(msg, CM_LINK_DISPLAY))
        return on_display(o, msg);
    if (cm_link_op_is(msg, CM_LINK_CLEAR_OUTPUT)) {
        if (json_is_true(json_object_get(msg, "wait"))) {
            o->clear_pending = 1;
        } else {
            json_array_clear(o->outputs);
            o->clear_pending = 0;
        }
    }
    return 0;
}

int jk_nb_outputs_reply(jk_nb_outputs_t *o, const json_t *reply, int execution_count)
{
    const char *status = json_string_value(json_object_get(reply, "status"));
    if (status && strcmp(status, "ok") == 0) {
        const json_t *result = json_object_get(reply, "result");
        const json_t *data = json_object_get(result, "data");
        const json_t *metadata = json_object_get(result, "metadata");
        if (json_is_object(data))
            append(o, json_pack("{s:s, s:o, s:o, s:i}", "output_type", "execute_result", "data",
                                json_deep_copy(data), "metadata",
                                json_is_object(metadata) ? json_deep_copy(metadata) : json_object(),
                                "execution_count", execution_count));
        return 0;
    }

    const char *ename = json_string_value(json_object_get(reply, "ename"));
    const char *evalue = json_string_value(json_object_get(reply, "evalue"));
    const json_t *traceback = json_object_get(reply, "traceback");
    json_t *lines = json_array(), *line;
    size_t i;
    json_array_foreach(traceback, i, line)
        if (json_is_string(line))
            json_array_append(lines, line);
    append(o, json_pack("{s:s, s:s, s:s, s:o}", "output_type", "error", "ename",
                        ename ? ename : "Error", "evalue", evalue ? evalue : "", "traceback",
                        lines));
    return 1;
}

int jk_nb_outputs_error(jk_nb_outputs_t *o, const char *ename, const char *evalue)
{
    json_t *line = json_sprintf("%s: %s", ename, evalue);
    return append(o, json_pack("{s:s, s:s, s:s, s:[o]}", "output_type", "error", "ename", ename,
                               "evalue", evalue, "traceback", line));
}
