/* rt_kprelude: the device prelude of kernel cells (rt_kprelude.h): which
 * earlier cells are compiled in front of a new one, and the compile unit
 * the backend is given (gpu_compile_unit: parts, kernels, variables, all
 * read here, once per cell).
 *
 * An entry is a successful kernel cell, or a declaration of host code
 * (rt_kprelude_declare), with the top-level names and the variables its
 * text defines. A compile takes the entries in order, the new cell in the
 * place of the first entry it replaces (or last), and of those only the
 * ones the new cell uses, directly or through other used entries. */
#include "rt_kprelude.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "rt_kscan.h"

typedef struct entry {
    int cell;
    char *source;
    char *options;             /* its magic line's options (its template instances use them) */
    char **names;              /* top-level names it defines */
    int nnames;
    gpu_var_info_t *vars;      /* the variables it defines */
    int nvars;
    int host;                  /* a declaration of host code (rt_kprelude_declare) */
} entry_t;

static entry_t *prelude;
static int nprelude;

static int names_overlap(char **a, int na, char **b, int nb)
{
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (strcmp(a[i], b[j]) == 0)
                return 1;
    return 0;
}

/* Non-zero when text uses identifier name (a whole word; strings and
 * comments are not told apart: using a little more is harmless). */
static int uses_word(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = strstr(text, name); p; p = strstr(p + 1, name)) {
        int left = p == text || !rt_kscan_ident_char(p[-1]);
        int right = !rt_kscan_ident_char(p[n]);
        if (left && right)
            return 1;
    }
    return 0;
}

/* Marks in need[] the earlier cells (entries of order) that the new cell
 * uses, directly or through other needed cells: the others are left out
 * of this compile, which then costs what the cell itself costs. */
static void select_needed(const int *order, int n, const char *device_source, char *need)
{
    for (int i = 0; i < n; i++)
        need[i] = order[i] < 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int i = n; i-- > 0;) {
            if (need[i])
                continue;
            const entry_t *p = &prelude[order[i]];
            for (int j = 0; j < n && !need[i]; j++) {
                if (!need[j])
                    continue;
                const char *text = order[j] < 0 ? device_source : prelude[order[j]].source;
                for (int k = 0; k < p->nnames && !need[i]; k++)
                    need[i] = uses_word(text, p->names[k]);
            }
            changed |= need[i];
        }
    }
}

/* The order of the cells to compile: each entry is an index into prelude,
 * or -1 for the new cell. Returns the count. */
static int plan_order(char **names, int nnames, int *order)
{
    int n = 0, placed = 0;
    for (int i = 0; i < nprelude; i++) {
        if (names_overlap(prelude[i].names, prelude[i].nnames, names, nnames)) {
            if (!placed && !prelude[i].host) { /* a host declaration gives up its place */
                order[n++] = -1; /* the new cell takes the first replaced cell's place */
                placed = 1;
            }
            continue;
        }
        order[n++] = i;
    }
    if (!placed)
        order[n++] = -1;
    return n;
}

static void entry_free(entry_t *p)
{
    free(p->source);
    free(p->options);
    free(p->vars);
    rt_kscan_names_free(p->names, p->nnames);
}

/* Makes the entries of order the prelude, the new cell (fresh, taken
 * over) at -1; the entries left out are freed. */
static int commit(const int *order, int n, const entry_t *fresh)
{
    entry_t *next = calloc((size_t)n, sizeof *next);
    int *kept = calloc((size_t)(nprelude + 1), sizeof *kept);
    if (!next || !kept) {
        free(next);
        free(kept);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (order[i] < 0) {
            next[i] = *fresh;
        } else {
            next[i] = prelude[order[i]];
            kept[order[i]] = 1;
        }
    }
    for (int i = 0; i < nprelude; i++) {
        if (!kept[i])
            entry_free(&prelude[i]);
    }
    free(kept);
    free(prelude);
    prelude = next;
    nprelude = n;
    return 0;
}

/* Compiles a kernel cell (instance NULL: its kernels, variables and names
 * are read from device_source), or an instance of a template kernel of the
 * prelude (instance: its one kernel, named "scale<float>"; device_source
 * then only names it, for the choice of earlier cells, and nothing is added
 * to the prelude). */
static int compile(const char *device_source, const char *options, int cell,
                   const gpu_kernel_info_t *instance, gpu_cell_t **out, cm_error_t *err)
{
    entry_t fresh = {cell, NULL, NULL, NULL, 0, NULL, 0, 0};
    gpu_kernel_info_t *kernels = NULL;
    int nkernels = instance ? 1 : 0, rc = -1;
    int *order = NULL;
    char *need = NULL;
    gpu_part_t *parts = NULL;
    *out = NULL;
    if (!device_source) {
        CM_ERROR(err, GPU_E_INVALID, "no device source");
        return -1;
    }
    if (!instance) {
        nkernels = rt_kscan_kernels(device_source, &kernels);
        fresh.nvars = rt_kscan_vars(device_source, &fresh.vars);
        fresh.nnames = rt_kscan_names(device_source, &fresh.names);
    }
    order = malloc((size_t)(nprelude + 1) * sizeof *order);
    parts = calloc((size_t)(nprelude + 1), sizeof *parts);
    need = malloc((size_t)nprelude + 2);
    if (nkernels < 0 || fresh.nvars < 0 || fresh.nnames < 0 || !order || !parts || !need) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        fresh.nvars = fresh.nvars < 0 ? 0 : fresh.nvars;
        fresh.nnames = fresh.nnames < 0 ? 0 : fresh.nnames;
        nkernels = nkernels < 0 ? 0 : nkernels;
        goto out;
    }
    int norder = plan_order(fresh.names, fresh.nnames, order);
    select_needed(order, norder, device_source, need);
    int nparts = 0;
    for (int i = 0; i < norder; i++) {
        if (!need[i])
            continue;
        const entry_t *e = order[i] < 0 ? &fresh : &prelude[order[i]];
        parts[nparts++] = (gpu_part_t){e->cell, order[i] < 0 ? device_source : e->source,
                                       order[i] >= 0, e->vars, e->nvars};
    }
    gpu_unit_t unit = {cell,
                       options,
                       parts,
                       nparts,
                       instance ? instance : kernels,
                       nkernels,
                       fresh.vars,
                       fresh.nvars,
                       (const char *const *)fresh.names,
                       fresh.nnames};
    if (gpu_compile_unit(&unit, out, err))
        goto out;
    if (!instance) {
        fresh.source = strdup(device_source);
        fresh.options = strdup(options ? options : "");
        if (!fresh.source || !fresh.options || commit(order, norder, &fresh)) {
            CM_ERROR(err, GPU_E_INVALID, "out of memory");
            gpu_cell_free(*out);
            *out = NULL;
            goto out;
        }
        memset(&fresh, 0, sizeof fresh); /* the prelude owns it now */
    }
    rc = 0;
out:
    entry_free(&fresh);
    gpu_kernels_free(kernels, nkernels);
    free(order);
    free(parts);
    free(need);
    return rc;
}

int rt_kprelude_compile(const char *device_source, const char *options, int cell,
                        gpu_cell_t **out, cm_error_t *err)
{
    return compile(device_source, options, cell, NULL, out, err);
}

int rt_kprelude_declare(const char *text, int cell)
{
    char **names = NULL;
    int nnames = rt_kscan_names(text, &names), at = -1;
    if (nnames <= 0)
        return nnames;
    for (int i = 0; i < nprelude; i++) {
        if (!names_overlap(prelude[i].names, prelude[i].nnames, names, nnames))
            continue;
        if (!prelude[i].host) { /* device code's own definition */
            rt_kscan_names_free(names, nnames);
            return 0;
        }
        at = at < 0 ? i : at;
    }
    entry_t *next = calloc((size_t)nprelude + 1, sizeof *next);
    char *copy = strdup(text), *opts = strdup("");
    gpu_var_info_t *vars = NULL;
    int nvars = rt_kscan_vars(text, &vars);
    if (!next || !copy || !opts || nvars < 0) {
        free(next);
        free(copy);
        free(opts);
        free(vars);
        rt_kscan_names_free(names, nnames);
        return -1;
    }
    int n = 0;
    entry_t fresh = {cell, copy, opts, names, nnames, vars, nvars, 1};
    for (int i = 0; i < nprelude; i++) {
        if (i == at)
            next[n++] = fresh;
        if (prelude[i].host && names_overlap(prelude[i].names, prelude[i].nnames, names, nnames))
            entry_free(&prelude[i]);
        else
            next[n++] = prelude[i];
    }
    if (at < 0)
        next[n++] = fresh;
    free(prelude);
    prelude = next;
    nprelude = n;
    return 1;
}

int rt_kprelude_instance(const char *name, const char *base, const char *const *args, int nargs,
                         int *cell, cm_error_t *err)
{
    for (int i = nprelude; i-- > 0;) {
        gpu_kernel_info_t *k = NULL;
        char why[CM_ERROR_TEXT];
        int found = rt_kscan_template(prelude[i].source, base, args, nargs, &k, why, sizeof why);
        if (found == 0)
            continue;
        *cell = prelude[i].cell;
        if (found < 0) {
            CM_ERROR(err, GPU_E_ARGS, "%s", why);
            return -1;
        }
        snprintf(k->name, sizeof k->name, "%s", name);
        /* the source names the instance (for the cells it needs, and the
         * cache key); NVRTC instantiates it from the name expression */
        cm_buf_t text = {0};
        cm_buf_addf(&text, "/* %s */\n", name);
        gpu_cell_t *c = NULL;
        int rc = compile(cm_buf_str(&text), prelude[i].options, prelude[i].cell, k, &c, err);
        cm_buf_free(&text);
        gpu_kernels_free(k, 1);
        gpu_cell_free(c);
        return rc == 0 ? 1 : -1;
    }
    return 0;
}

int rt_kprelude_is_template(const char *name)
{
    for (int i = nprelude; i-- > 0;) {
        gpu_kernel_info_t *k = NULL;
        char why[CM_ERROR_TEXT];
        if (!uses_word(prelude[i].source, name))
            continue;
        int found = rt_kscan_template(prelude[i].source, name, NULL, 0, &k, why, sizeof why);
        gpu_kernels_free(k, k ? 1 : 0);
        if (found != 0) /* made, or refused for want of arguments: a template either way */
            return 1;
    }
    return 0;
}

int rt_kprelude_forget_host(void)
{
    int kept = 0, gone = 0;
    for (int i = 0; i < nprelude; i++) {
        if (prelude[i].host) {
            entry_free(&prelude[i]);
            gone++;
        } else {
            prelude[kept++] = prelude[i];
        }
    }
    nprelude = kept;
    return gone;
}

void rt_kprelude_reset(void)
{
    for (int i = 0; i < nprelude; i++)
        entry_free(&prelude[i]);
    free(prelude);
    prelude = NULL;
    nprelude = 0;
    gpu_reset_kernels();
}
