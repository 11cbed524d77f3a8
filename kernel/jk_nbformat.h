/* jk_nbformat: notebooks (nbformat 4) for `gpuc run` — reading, writing,
 * and storing a cell's outputs the way Jupyter (nbclient) stores them.
 *
 * Output collection is pure: jk_nb_outputs_* apply one event from the
 * executor (stream text, a "display" or "clear_output" frame, the reply)
 * to a cell's outputs array, so it can be tested without an executor.
 * All JSON is Jansson; nothing here runs code or does I/O except
 * jk_nb_load and jk_nb_save. */
#ifndef JK_NBFORMAT_H
#define JK_NBFORMAT_H

#include <jansson.h>
#include <stddef.h>

#include "cm_error.h"

/* Reads an nbformat 4 notebook. Returns a new reference, or NULL with err
 * set (unreadable, not JSON, not nbformat 4, no "cells" array). */
json_t *jk_nb_load(const char *path, cm_error_t *err);

/* Writes nb to path as Jupyter does (indent 1, sorted keys, UTF-8, final
 * newline), through a temporary file in the same directory renamed over
 * path; an existing file keeps its permissions. Returns 0, or -1 with err
 * set (path is then untouched). */
int jk_nb_save(const json_t *nb, const char *path, cm_error_t *err);

/* A cell's source ("source" as a string or a list of strings) joined, as a
 * malloc'd string the caller frees. Returns NULL when out of memory. */
char *jk_nb_cell_source(const json_t *cell);

/* Sets metadata.kernelspec and metadata.language_info to gpuc's, keeping
 * the rest of the notebook's metadata. Returns 0, or -1 when out of memory. */
int jk_nb_set_gpuc_metadata(json_t *nb);

/* The outputs of the cell being run, and what Jupyter tracks to build them. */
typedef struct jk_nb_outputs {
    json_t *outputs;     /* the cell's "outputs" array (borrowed) */
    json_t *display_ids; /* display_id -> array of output objects shown with
                            it, across the whole notebook (borrowed; one per
                            run, shared by all cells) */
    int clear_pending;   /* clear_output(wait=true) seen: clear before the
                            next output arrives */
} jk_nb_outputs_t;

/* Starts a cell: empties outputs, forgets a pending clear. */
void jk_nb_outputs_begin(jk_nb_outputs_t *o, json_t *outputs, json_t *display_ids);

/* Text the cell wrote on stream name ("stdout"/"stderr"); appended to the
 * last output when that is the same stream. Returns 0, or -1 when text is
 * not valid UTF-8 or memory ran out (the output is then dropped). */
int jk_nb_outputs_stream(jk_nb_outputs_t *o, const char *name, const char *text, size_t len);

/* An executor frame: op "display" (data, metadata, transient.display_id,
 * update) or "clear_output" (wait). An update replaces data and metadata of
 * every earlier output with its display_id instead of appending. Other ops
 * are ignored. Returns 0, or -1 when the frame is malformed (ignored). */
int jk_nb_outputs_message(jk_nb_outputs_t *o, const json_t *msg);

/* The reply to "execute": appends an execute_result (when it has a
 * "result") or an error output. Returns 1 when the reply is an error,
 * 0 when ok. */
int jk_nb_outputs_reply(jk_nb_outputs_t *o, const json_t *reply, int execution_count);

/* Appends an error output made here (not by the executor); its traceback
 * is the one line "ename: evalue". Returns 0, or -1 when out of memory. */
int jk_nb_outputs_error(jk_nb_outputs_t *o, const char *ename, const char *evalue);

#endif
