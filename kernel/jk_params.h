/* jk_params: notebook parameters as papermill injects them, for gpuc's C.
 *
 * The code cell tagged "parameters" keeps its defaults; a new code cell
 * tagged "injected-parameters" is put right after it (at the top when
 * there is none; an earlier injected cell is replaced) and assigns the
 * given values as C, read as papermill's -p reads them: integers in
 * decimal (010 is ten), other numbers as doubles (INFINITY, NAN by name),
 * true/false/True/False as 1/0, None as NULL, anything else as a string
 * literal. A name the parameters cell mentions is assigned (`n = 1000;`);
 * another one is declared with the type of its value (`long long n =
 * 1000;`, `double`, `int`, `void *`, `const char *`). The papermill
 * translator python/gpuc_papermill writes the same text (tests/notebooks/
 * test_papermill.py compares them). */
#ifndef JK_PARAMS_H
#define JK_PARAMS_H

#include <jansson.h>

#include "cm_error.h"

typedef struct jk_param {
    const char *name;   /* a C identifier */
    const char *value;  /* as given on the command line */
    int quoted;         /* non-zero: a string, whatever it reads as */
} jk_param_t;

/* The injected cell's C source for params[0, n) (caller frees); of a name
 * given twice, the later value counts.
 * defaults: the parameters cell's source, or NULL. */
char *jk_params_source(const jk_param_t *params, int n, const char *defaults);

/* Injects params[0, n) into notebook nb (nbformat 4 JSON). 0, or -1 with
 * err (a name that is not a C identifier, out of memory). */
int jk_params_inject(json_t *nb, const jk_param_t *params, int n, cm_error_t *err);

/* Appends the parameters of the file at path (papermill's -f: a flat YAML
 * mapping, "name: value" a line, or a JSON object) to params[*n, max),
 * advancing *n. Unquoted values are read as -p values are; quoted ones are
 * strings; null is None. The strings live in owner (a JSON array the
 * caller made and frees). 0, or -1 with err (unreadable file, a list or a
 * mapping as a value, a name that is not a C name, more than max). */
int jk_params_load(const char *path, jk_param_t *params, int *n, int max, json_t *owner,
                   cm_error_t *err);

#endif
