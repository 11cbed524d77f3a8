/* Fuzzes the notebook reader of `gpuc run` (kernel/jk_nbformat.h): the
 * input is the .ipynb file. What `gpuc run` does with a notebook before and
 * after the executor runs a cell is done here without one: each code cell's
 * source, its outputs made ready and an error stored, the metadata set and
 * the notebook written out (to memory). The cell's old outputs are fed
 * back as executor frames and as a reply. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "jk_nbformat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size, ".ipynb");
    cm_error_t err;
    cm_error_clear(&err);
    json_t *nb = jk_nb_load(path, &err);
    if (!nb) {
        if (!err.text[0])
            abort();
        return 0;
    }
    json_t *display_ids = json_object();
    json_t *cells = json_object_get(nb, "cells"), *cell;
    size_t i;
    int count = 0;
    json_array_foreach(cells, i, cell) {
        const char *type = json_string_value(json_object_get(cell, "cell_type"));
        if (!type || strcmp(type, "code") != 0)
            continue;
        char *code = jk_nb_cell_source(cell);
        if (!code)
            abort();
        free(code);
        json_t *old = json_deep_copy(json_object_get(cell, "outputs"));
        json_t *outputs = json_object_get(cell, "outputs");
        if (!json_is_array(outputs)) {
            outputs = json_array();
            json_object_set_new(cell, "outputs", outputs);
        }
        json_object_set_new(cell, "execution_count", json_integer(++count));
        jk_nb_outputs_t out;
        jk_nb_outputs_begin(&out, outputs, display_ids);
        size_t k;
        json_t *o;
        json_array_foreach(old, k, o) {
            jk_nb_outputs_message(&out, o);
            jk_nb_outputs_reply(&out, o, count);
            const char *text = json_string_value(json_object_get(o, "text"));
            if (text)
                jk_nb_outputs_stream(&out, "stdout", text, strlen(text));
        }
        jk_nb_outputs_error(&out, "FuzzError", "stored by the harness");
        json_decref(old);
    }
    if (jk_nb_set_gpuc_metadata(nb) != 0)
        abort();
    char *text = json_dumps(nb, JSON_INDENT(1) | JSON_SORT_KEYS);
    if (!text)
        abort();
    free(text);
    json_decref(display_ids);
    json_decref(nb);
    return 0;
}
