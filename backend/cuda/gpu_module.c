/* gpu_module: the kernel registry and launches. Each compiled kernel cell
 * is one module; the latest definition of a kernel name wins, and a module
 * no kernel refers to any more is unloaded. Images are kept, so a module
 * compiled where there was no GPU (or before %gpu N) loads when needed; a
 * cell run again with the image its module has loaded keeps that module
 * (reuse_loaded). A launch (gpu_launch) is a lookup, the argument checks,
 * cuCtxGetCurrent and cuLaunchKernel: it formats nothing unless it fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_time.h"
#include "gpu_internal.h"
#include "sim.h"

typedef struct module {
    int cell;
    gpu_image_t img;
    gpu_cumodule_t mod;        /* NULL until loaded on the selected device */
    gpu_cumodule_t mods[GPU_MAX_DEVICES]; /* loaded on other devices, kept for a switch back */
    int refs;                  /* kernels pointing here */
    char *source, *options;    /* compiled for the GPU only: what the simulator */
    int *cells, ncells;        /* compiles when a launch needs it there */
} module_t;

typedef struct kernel {
    gpu_kernel_info_t info;    /* params owned */
    module_t *module;
    gpu_cufunction_t fn;       /* NULL until the module is loaded on the selected device */
    gpu_cufunction_t fns[GPU_MAX_DEVICES]; /* on other devices (mod's mods) */
    sim_entry_fn sim_entry;    /* on the simulator; NULL when not compiled for it */
    int *sim_cells;            /* the cells of the simulator module's parts */
    int nsim_cells;
    char *sim_shared;          /* the module's static shared memory */
    size_t sim_shared_bytes;
    int sim_unchecked;         /* a whole program's kernel (gpu_module_sim_unchecked) */
} kernel_t;

static kernel_t *kernels;
static int nkernels, cap_kernels;
static int loaded_on = -1; /* the device the fn and mod fields are of */

static struct {
    int valid;
    char name[128];
    int cell, line;
} last;

void gpu_params_measured(gpu_kernel_info_t *k, const unsigned long *sizes, int n)
{
    if (n != k->nparams || n > GPU_MAX_PARAMS)
        return;
    for (int i = 0; i < n; i++)
        if (k->params[i].kind == GPU_PARAM_BYVALUE && sizes[i])
            k->params[i].size = sizes[i];
}

static void module_unref(module_t *m)
{
    if (--m->refs > 0)
        return;
    const gpu_driver_t *d = gpu_driver_get(NULL);
    if (m->mod && d)
        d->cuModuleUnload(m->mod);
    gpu_image_clear(&m->img);
    free(m->source);
    free(m->options);
    free(m->cells);
    free(m);
}

/* The sizes the driver gives k's parameters (by-value structs are checked
 * against them); nothing when the driver cannot tell. */
static void measure_params(const gpu_driver_t *d, kernel_t *k)
{
    unsigned long s[GPU_MAX_PARAMS];
    int n = 0;
    for (; d->cuFuncGetParamInfo && n < k->info.nparams && n < GPU_MAX_PARAMS; n++) {
        size_t offset, size;
        if (d->cuFuncGetParamInfo(k->fn, (size_t)n, &offset, &size) != GPU_CU_SUCCESS)
            return;
        s[n] = size;
    }
    gpu_params_measured(&k->info, s, n);
}

/* Loads m on the current context and resolves the kernels that use it. */
static int module_load(module_t *m, cm_error_t *err)
{
    if (gpu_context_ensure(err))
        return -1;
    const gpu_driver_t *d = gpu_driver_get(err);
    cm_error_t e;
    cm_error_clear(&e);
    if (!m->mod && GPU_CU_CHECK(d->cuModuleLoadData(&m->mod, m->img.data), &e)) {
        CM_ERROR(err, e.code, "loading the module of cell %d failed: %s", m->cell, e.text);
        m->mod = NULL;
        return -1;
    }
    loaded_on = gpu_selected();
    for (int i = 0; i < nkernels; i++) {
        kernel_t *k = &kernels[i];
        if (k->module != m || k->fn)
            continue;
        if (GPU_CU_CHECK(d->cuModuleGetFunction(&k->fn, m->mod, k->info.lowered), &e)) {
            CM_ERROR(err, e.code, "kernel %s of cell %d is not in its module: %s", k->info.name,
                     m->cell, e.text);
            return -1;
        }
        measure_params(d, k);
    }
    return 0;
}

/* The kernel named name, or NULL. Names are unique in the registry; the
 * last one found is tried first (a launch looks its kernel up a few times,
 * a loop launches the same one), checked by name, so any change to the
 * registry leaves it right. */
static kernel_t *find(const char *name)
{
    static int hint;
    if (hint < nkernels && strcmp(kernels[hint].info.name, name) == 0)
        return &kernels[hint];
    for (int i = 0; i < nkernels; i++)
        if (strcmp(kernels[i].info.name, name) == 0) {
            hint = i;
            return &kernels[i];
        }
    return NULL;
}

static const char *lowered_of(const gpu_image_t *img, const char *name)
{
    for (size_t off = 0; off < img->names_size;) {
        const char *n = img->names + off;
        const char *l = n + strlen(n) + 1;
        if ((size_t)(l - img->names) >= img->names_size)
            break;
        if (strcmp(n, name) == 0)
            return l;
        off = (size_t)(l - img->names) + strlen(l) + 1;
    }
    return NULL;
}

/* Loads the modules not loaded yet on the current context. */
static int load_all(cm_error_t *err)
{
    for (int i = 0; i < nkernels; i++)
        if (!kernels[i].fn && module_load(kernels[i].module, err))
            return -1;
    return 0;
}

/* Puts the modules loaded on the device left aside (each stays in that
 * device's context, which is kept): a switch back finds them again. */
static void forget_loaded(void)
{
    for (int i = 0; i < nkernels; i++) {
        kernel_t *k = &kernels[i];
        if (loaded_on >= 0 && loaded_on < GPU_MAX_DEVICES) {
            k->fns[loaded_on] = k->fn;
            k->module->mods[loaded_on] = k->module->mod;
        }
        k->fn = NULL;
        k->module->mod = NULL;
    }
    loaded_on = -1;
}

/* Takes up what was loaded on device before (nothing when it is the
 * device the fields are of already). */
static void recall_loaded(int device)
{
    if (device == loaded_on || device < 0 || device >= GPU_MAX_DEVICES)
        return;
    for (int i = 0; i < nkernels; i++) {
        kernel_t *k = &kernels[i];
        k->fn = k->fns[device];
        k->module->mod = k->module->mods[device];
    }
    loaded_on = device;
}

/* The registry's part in a device switch (gpu_select): one compile,
 * modules loaded on each device at its first use there. */
static int on_context(gpu_context_event_t event, void *user, cm_error_t *err)
{
    (void)user;
    if (event == GPU_CONTEXT_LEAVING) {
        forget_loaded();
        return 0;
    }
    recall_loaded(gpu_selected());
    return load_all(err);
}

/* Subscribes the registry to context events, once. 0 / -1 with err. */
static int subscribe(cm_error_t *err)
{
    static int listening;
    if (!listening && gpu_device_on_context(on_context, NULL)) {
        CM_ERROR(err, GPU_E_INVALID, "too many listeners of GPU context changes");
        return -1;
    }
    listening = 1;
    return 0;
}

/* A kernel cell run again whose image is the one its kernels' module has
 * loaded on the selected GPU (a compile-cache hit): that module stays, so
 * a re-run is a lookup, not a cuModuleLoadData (~0.1 ms) and its
 * lookups. Only where the cell has no device variables (a re-run gives
 * those fresh storage) and every kernel of the cell is in that one
 * module. The records take the new cell's lines and declarations; the
 * sizes the driver measured stay. 1 when it did, 0 when a load is needed. */
static int reuse_loaded(int cell, const gpu_image_t *img, const gpu_kernel_info_t *infos,
                        int ninfos)
{
    module_t *m = NULL;
    for (int i = 0; i < ninfos; i++) {
        kernel_t *k = find(infos[i].name);
        if (!k || !k->fn || (m && k->module != m) || k->info.nparams != infos[i].nparams)
            return 0;
        m = k->module;
    }
    if (!m || !m->mod || loaded_on != gpu_selected() || m->img.kind != img->kind ||
        m->img.size != img->size || memcmp(m->img.data, img->data, img->size) != 0)
        return 0;
    for (int i = 0; i < ninfos; i++) {
        kernel_t *k = find(infos[i].name);
        k->info.line = infos[i].line;
        for (int p = 0; p < infos[i].nparams; p++) {
            size_t measured = k->info.params[p].size;
            k->info.params[p] = infos[i].params[p];
            if (infos[i].params[p].kind == GPU_PARAM_BYVALUE && measured)
                k->info.params[p].size = measured;
        }
    }
    m->cell = cell;
    return 1;
}

int gpu_module_add(int cell, gpu_image_t *img, const gpu_kernel_info_t *infos, int ninfos,
                   int nglobals, const char *const *globals, unsigned long long *addrs,
                   size_t *sizes, int *loaded, double *load_ms, cm_error_t *err)
{
    *loaded = 0;
    *load_ms = 0;
    if (subscribe(err)) {
        gpu_image_clear(img);
        return -1;
    }
    int major, minor;
    if (ninfos == 0 && (nglobals == 0 || !gpu_device_target(&major, &minor))) {
        gpu_image_clear(img);
        return 0;
    }
    if (nglobals == 0 && !gpu_simulating() && reuse_loaded(cell, img, infos, ninfos)) {
        gpu_image_clear(img);
        *loaded = 1;
        return 0;
    }
    module_t *m = calloc(1, sizeof *m);
    if (!m || nkernels + ninfos > (1 << 20)) {
        free(m);
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        return -1;
    }
    m->cell = cell;
    m->img = *img;
    memset(img, 0, sizeof *img);

    /* the new kernels, resolved before the old ones are replaced */
    kernel_t *fresh = calloc((size_t)ninfos + 1, sizeof *fresh);
    if (!fresh) {
        gpu_image_clear(&m->img);
        free(m);
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        return -1;
    }
    for (int i = 0; i < ninfos; i++) {
        fresh[i].info = infos[i];
        fresh[i].info.params = NULL;
        const char *low = lowered_of(&m->img, infos[i].name);
        snprintf(fresh[i].info.lowered, sizeof fresh[i].info.lowered, "%s",
                 low ? low : infos[i].lowered);
        if (infos[i].nparams) {
            fresh[i].info.params = malloc((size_t)infos[i].nparams * sizeof(gpu_param_t));
            if (fresh[i].info.params)
                memcpy(fresh[i].info.params, infos[i].params,
                       (size_t)infos[i].nparams * sizeof(gpu_param_t));
            else
                fresh[i].info.nparams = 0;
        }
        fresh[i].module = m;
    }
    if (gpu_device_target(&major, &minor)) {
        double t0 = (cm_seconds() * 1e3);
        const gpu_driver_t *d = gpu_driver_get(err);
        cm_error_t e;
        cm_error_clear(&e);
        int rc = gpu_context_ensure(err);
        if (rc == 0 && GPU_CU_CHECK(d->cuModuleLoadData(&m->mod, m->img.data), &e)) {
            CM_ERROR(err, e.code, "loading the module of cell %d failed: %s", cell, e.text);
            rc = -1;
        }
        if (rc == 0)
            loaded_on = gpu_selected();
        for (int i = 0; rc == 0 && i < ninfos; i++) {
            if (GPU_CU_CHECK(d->cuModuleGetFunction(&fresh[i].fn, m->mod, fresh[i].info.lowered), &e)) {
                CM_ERROR(err, e.code, "kernel %s not found in the module of cell %d: %s",
                         fresh[i].info.name, cell, e.text);
                rc = -1;
            } else {
                measure_params(d, &fresh[i]);
            }
        }
        for (int i = 0; rc == 0 && i < nglobals; i++) {
            gpu_cudeviceptr_t at = 0;
            if (GPU_CU_CHECK(d->cuModuleGetGlobal(&at, &sizes[i], m->mod, globals[i]), &e)) {
                CM_ERROR(err, e.code, "device variable %s not found in the module of cell %d: %s",
                         globals[i], cell, e.text);
                rc = -1;
            }
            addrs[i] = at;
        }
        if (rc) {
            if (m->mod)
                d->cuModuleUnload(m->mod);
            for (int i = 0; i < ninfos; i++)
                free(fresh[i].info.params);
            free(fresh);
            gpu_image_clear(&m->img);
            free(m);
            return -1;
        }
        *loaded = 1;
        *load_ms = (cm_seconds() * 1e3) - t0;
    }
    for (int i = 0; i < ninfos; i++) {
        kernel_t *old = find(fresh[i].info.name);
        if (old) {
            free(old->info.params);
            free(old->sim_cells);
            module_unref(old->module);
            *old = fresh[i];
        } else {
            if (nkernels == cap_kernels) {
                int cap = cap_kernels ? cap_kernels * 2 : 16;
                kernel_t *grown = realloc(kernels, (size_t)cap * sizeof *grown);
                if (!grown) {
                    free(fresh[i].info.params);
                    continue;
                }
                kernels = grown;
                cap_kernels = cap;
            }
            kernels[nkernels++] = fresh[i];
        }
        m->refs++;
    }
    free(fresh);
    if (nglobals)
        m->refs++; /* its variables live for the session (gpu_symbol.c) */
    if (m->refs == 0) {
        m->refs = 1;
        module_unref(m);
    }
    return 0;
}

void gpu_module_reset(void)
{
    for (int i = 0; i < nkernels; i++) {
        free(kernels[i].info.params);
        free(kernels[i].sim_cells);
        module_unref(kernels[i].module);
    }
    free(kernels);
    kernels = NULL;
    nkernels = cap_kernels = 0;
    last.valid = 0;
}

void gpu_module_keep_source(const char *name, const char *source, const char *options,
                            const int *cells, int ncells)
{
    kernel_t *k = find(name);
    if (!k || k->module->source)
        return;
    module_t *m = k->module;
    m->source = strdup(source);
    m->options = options ? strdup(options) : NULL;
    m->cells = malloc((size_t)(ncells ? ncells : 1) * sizeof *cells);
    if (!m->source || !m->cells) {
        free(m->source), free(m->options), free(m->cells);
        m->source = m->options = NULL, m->cells = NULL;
        return;
    }
    memcpy(m->cells, cells, (size_t)ncells * sizeof *cells);
    m->ncells = ncells;
}

/* Compiles k's module for the simulator now (its cell was compiled while a
 * GPU was selected) and gives its kernels their entry points. 0 / -1. */
static int compile_for_sim(kernel_t *k, cm_error_t *err)
{
    module_t *m = k->module;
    if (!m->source)
        return 0;
    const char **names = calloc((size_t)nkernels + 1, sizeof *names);
    sim_entry_fn *entries = calloc((size_t)nkernels + 1, sizeof *entries);
    sim_sizes_fn *params = calloc((size_t)nkernels + 1, sizeof *params);
    int n = 0, rc = -1;
    if (!names || !entries || !params) {
        CM_ERROR(err, GPU_E_INVALID, "out of memory");
        goto out;
    }
    for (int i = 0; i < nkernels; i++)
        if (kernels[i].module == m)
            names[n++] = kernels[i].info.name;
    gpu_device_note_sim();
    char *log = NULL, *shared = NULL;
    size_t shared_bytes = 0;
    double ms;
    const char *cache;
    cm_error_t e = {0};
    cm_buf_t opts = {0};
    gpu_include_sim_options(m->options, &opts);
    int failed = sim_compile(m->source, cm_buf_str(&opts), n, names, entries, params, 0, NULL,
                             NULL, NULL, &shared, &shared_bytes, &log, &ms, &cache, &e);
    cm_buf_free(&opts);
    if (failed) {
        CM_ERROR(err, GPU_E_INVALID, "kernel %s (cell %d) cannot be compiled for the simulator: %s",
                 k->info.name, m->cell, e.text);
        free(log);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        gpu_module_set_sim(names[i], entries[i], m->cells, m->ncells, shared, shared_bytes);
        unsigned long s[GPU_MAX_PARAMS];
        gpu_params_measured(&find(names[i])->info, s, params[i](s, GPU_MAX_PARAMS));
    }
    rc = 0;
out:
    free(names);
    free(entries);
    free(params);
    return rc;
}

void gpu_module_set_sim(const char *name, void (*entry)(void **), const int *cells, int ncells,
                        char *shared, size_t shared_bytes)
{
    kernel_t *k = find(name);
    if (!k)
        return;
    k->sim_entry = entry;
    k->sim_shared = shared;
    k->sim_shared_bytes = shared_bytes;
    free(k->sim_cells);
    k->sim_cells = ncells ? malloc((size_t)ncells * sizeof *cells) : NULL;
    k->nsim_cells = k->sim_cells ? ncells : 0;
    if (k->sim_cells)
        memcpy(k->sim_cells, cells, (size_t)ncells * sizeof *cells);
}

void gpu_module_sim_unchecked(const char *name)
{
    kernel_t *k = find(name);
    if (k)
        k->sim_unchecked = 1;
}

int gpu_kernel_params(const char *name, const gpu_param_t **params)
{
    kernel_t *k = name ? find(name) : NULL;
    if (!k)
        return -1;
    *params = k->info.params;
    return k->info.nparams;
}

static void where(char *buf, size_t len, int cell, int line)
{
    if (cell > 0 && line > 0)
        snprintf(buf, len, "cell %d, line %d: ", cell, line);
    else if (cell > 0)
        snprintf(buf, len, "cell %d: ", cell);
    else
        buf[0] = '\0';
}

static void signature(const kernel_t *k, char *buf, size_t len)
{
    size_t n = 0;
    for (int i = 0; i < k->info.nparams && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", k->info.params[i].decl);
}

/* "an 8-byte value", "a 4-byte value" */
static const char *article(size_t n)
{
    while (n >= 1000)
        n /= 1000;
    return n == 8 || n == 11 || n == 18 || (n >= 80 && n < 90) || (n >= 800 && n < 900) ? "an" : "a";
}

/* "a float4 (16 bytes)" when the cell's compiler named the argument's type,
 * "a pointer (or an 8-byte struct)" for an unnamed 8-byte one (C cannot
 * tell them apart), else
 * "a 12-byte value". */
static void got_text(const char *const *types, const char *kinds, int i, size_t size,
                     char *buf, size_t len)
{
    if (types && types[i])
        snprintf(buf, len, "%s %s (%zu bytes)", strchr("aeiou", types[i][0]) ? "an" : "a",
                 types[i], size);
    else if (kinds && kinds[i] == 'p' && size == sizeof(void *))
        snprintf(buf, len, "a pointer (or an 8-byte struct)");
    else
        snprintf(buf, len, "%s %zu-byte value", article(size), size);
}

static int check_args(const kernel_t *k, int nargs, const size_t *sizes, const char *kinds,
                      const char *const *types, const char *at, cm_error_t *err)
{
    const char *name = k->info.name;
    if (nargs != k->info.nparams) {
        char sig[600];
        signature(k, sig, sizeof sig);
        CM_ERROR(err, GPU_E_ARGS, "%s%s expects %d argument%s (%s), got %d", at, name,
                 k->info.nparams, k->info.nparams == 1 ? "" : "s", sig, nargs);
        return -1;
    }
    for (int i = 0; i < nargs; i++) {
        const gpu_param_t *p = &k->info.params[i];
        int got_pointer = kinds && kinds[i] == 'p';
        int got_value = kinds && kinds[i] == 'v'; /* a CUDA vector type or __half */
        char got[160];
        if (p->kind == GPU_PARAM_POINTER && (!got_pointer || sizes[i] != sizeof(void *))) {
            if (!err)
                return -1;
            got_text(types, kinds, i, sizes[i], got, sizeof got);
            CM_ERROR(err, GPU_E_ARGS, "%sargument %d of %s is a pointer (%s), got %s", at, i + 1,
                     name, p->decl, got_pointer || got_value ? got : "a scalar");
            return -1;
        }
        if (p->kind == GPU_PARAM_SCALAR && got_pointer) { /* a pointer or a struct */
            if (!err)
                return -1;
            got_text(types, kinds, i, sizes[i], got, sizeof got);
            CM_ERROR(err, GPU_E_ARGS, "%sargument %d of %s is %s (%zu bytes), got %s", at, i + 1,
                     name, p->decl, p->size, got);
            return -1;
        }
        if (p->kind != GPU_PARAM_POINTER && p->size && sizes[i] != p->size) {
            if (!err)
                return -1;
            got_text(types, kinds, i, sizes[i], got, sizeof got);
            CM_ERROR(err, GPU_E_ARGS, "%sargument %d of %s is %s (%zu bytes), got %s", at, i + 1,
                     name, p->decl, p->size, got);
            return -1;
        }
    }
    return 0;
}

/* The checks of a launch, with the location formatted only when one fails. */
static int check_launch(const kernel_t *k, int nargs, const size_t *sizes, const char *kinds,
                        const char *const *types, int cell, int line, cm_error_t *err)
{
    if (check_args(k, nargs, sizes, kinds, types, "", NULL) == 0)
        return 0;
    char at[64];
    where(at, sizeof at, cell, line);
    check_args(k, nargs, sizes, kinds, types, at, err);
    return -1;
}

/* 1 when some by-value parameter of k has no size yet (known once the
 * device compiler's module is there). */
static int unmeasured(const kernel_t *k)
{
    for (int i = 0; i < k->info.nparams; i++)
        if (k->info.params[i].kind == GPU_PARAM_BYVALUE && !k->info.params[i].size)
            return 1;
    return 0;
}

void gpu_module_note_launch(const char *name, int cell, int line)
{
    /* every launch: a plain copy, no formatting */
    size_t n = strnlen(name, sizeof last.name - 1);
    memcpy(last.name, name, n);
    last.name[n] = '\0';
    last.cell = cell;
    last.line = line;
    last.valid = 1;
}

/* A launch on the simulator: it runs now; the kernel clock counts it. */
static int launch_sim(const kernel_t *k, const unsigned grid[3], const unsigned block[3],
                      unsigned shared_bytes, void *const *arg_ptrs, int cell, int line,
                      cm_error_t *err)
{
    char at[64];
    where(at, sizeof at, cell, line);
    if (!k->sim_entry) {
        CM_ERROR(err, GPU_E_NO_KERNEL, "%scannot launch %s on the simulator: its cell was "
                 "compiled for the GPU only; run that cell again now", at, k->info.name);
        return -1;
    }
    gpu_module_note_launch(k->info.name, cell, line);
    sim_kernel_t sk = {k->info.name, k->sim_entry,       k->sim_cells,     k->nsim_cells,
                       k->sim_shared,  k->sim_shared_bytes, k->sim_unchecked};
    cm_error_t e = {0};
    gpu_kernel_clock_before(NULL);
    int rc = sim_launch(&sk, grid, block, shared_bytes, (void **)arg_ptrs, &e);
    gpu_kernel_clock_after(NULL);
    if (rc) {
        CM_ERROR(err, e.code, "%slaunching %s<<<(%u,%u,%u), (%u,%u,%u), %u>>> failed: %s", at,
                 k->info.name, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                 shared_bytes, e.text);
        return -1;
    }
    return 0;
}

/* "no kernel named X; known kernels: ..." */
static void no_kernel(const char *name, int cell, int line, cm_error_t *err)
{
    char at[64], known[700];
    size_t n = 0;
    known[0] = '\0';
    for (int i = 0; i < nkernels && n < sizeof known; i++)
        n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "",
                              kernels[i].info.name);
    where(at, sizeof at, cell, line);
    if (nkernels)
        CM_ERROR(err, GPU_E_NO_KERNEL, "%sno kernel named %s; known kernels: %s", at, name, known);
    else
        CM_ERROR(err, GPU_E_NO_KERNEL, "%sno kernel named %s: no kernel cell has defined one yet",
                 at, name);
}

/* Makes k runnable where kernels run now: compiled for the simulator
 * (when its cell was compiled for a GPU only), or its module loaded on the
 * GPU's context. 0 / -1 with err. */
static int ready(kernel_t *k, int cell, int line, cm_error_t *err)
{
    if (gpu_simulating())
        return k->sim_entry ? 0 : compile_for_sim(k, err);
    if (k->fn)
        return gpu_context_ensure(err);
    int major, minor;
    if (!gpu_device_target(&major, &minor)) {
        char at[64], prefix[200];
        where(at, sizeof at, cell, line);
        snprintf(prefix, sizeof prefix, "%scannot launch %s: ", at, k->info.name);
        gpu_error_no_gpu(err, prefix);
        return -1;
    }
    return module_load(k->module, err);
}

/* cuLaunchKernel (or cuLaunchCooperativeKernel) of a ready k. */
static int launch_driver(const kernel_t *k, const unsigned grid[3], const unsigned block[3],
                         unsigned shared_bytes, void *stream, void *const *arg_ptrs,
                         int cooperative, int cell, int line, cm_error_t *err)
{
    gpu_module_note_launch(k->info.name, cell, line);
    const gpu_driver_t *d = gpu_driver_get(err);
    gpu_kernel_clock_before(stream);
    gpu_curesult_t rc =
        !cooperative ? d->cuLaunchKernel(k->fn, grid[0], grid[1], grid[2], block[0], block[1],
                                         block[2], shared_bytes, (gpu_custream_t)stream,
                                         (void **)arg_ptrs, NULL)
        : d->cuLaunchCooperativeKernel
            ? d->cuLaunchCooperativeKernel(k->fn, grid[0], grid[1], grid[2], block[0], block[1],
                                           block[2], shared_bytes, (gpu_custream_t)stream,
                                           (void **)arg_ptrs)
            : 801; /* CUDA_ERROR_NOT_SUPPORTED */
    gpu_kernel_clock_after(stream);
    if (rc != GPU_CU_SUCCESS) {
        char text[300], at[64];
        gpu_driver_error_text(rc, text, sizeof text);
        where(at, sizeof at, cell, line);
        CM_ERROR(err, rc, "%slaunching %s<<<(%u,%u,%u), (%u,%u,%u), %u>>> failed: %s", at,
                 k->info.name, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                 shared_bytes, text);
        return -1;
    }
    return 0;
}

int gpu_launch(const char *name, const unsigned grid[3], const unsigned block[3],
               unsigned shared_bytes, void *stream, int nargs, void *const *arg_ptrs,
               const size_t *arg_sizes, const char *arg_kinds, const char *const *arg_types,
               int cell, int line, cm_error_t *err)
{
    kernel_t *k = find(name);
    if (!k) {
        no_kernel(name, cell, line, err);
        return -1;
    }
    if (check_launch(k, nargs, arg_sizes, arg_kinds, arg_types, cell, line, err))
        return -1;
    /* a by-value struct's size is the device compiler's: checked once its
     * module is there */
    int measure = unmeasured(k);
    if (ready(k, cell, line, err))
        return -1;
    if (measure && check_launch(k, nargs, arg_sizes, arg_kinds, arg_types, cell, line, err))
        return -1;
    if (gpu_simulating())
        return launch_sim(k, grid, block, shared_bytes, arg_ptrs, cell, line, err);
    return launch_driver(k, grid, block, shared_bytes, stream, arg_ptrs, 0, cell, line, err);
}

int gpu_launch_params(const char *name, const unsigned grid[3], const unsigned block[3],
                      unsigned shared_bytes, void *stream, void **args, int cooperative,
                      int cell, int line, cm_error_t *err)
{
    kernel_t *k = find(name);
    if (!k) {
        no_kernel(name, cell, line, err);
        return -1;
    }
    if (ready(k, cell, line, err))
        return -1;
    if (gpu_simulating()) /* a cooperative grid runs as any other there */
        return launch_sim(k, grid, block, shared_bytes, args, cell, line, err);
    return launch_driver(k, grid, block, shared_bytes, stream, args, cooperative, cell, line, err);
}

int gpu_module_function(const char *name, gpu_cufunction_t *fn, size_t *sim_shared,
                        cm_error_t *err)
{
    kernel_t *k = find(name);
    *fn = NULL;
    *sim_shared = 0;
    if (!k) {
        no_kernel(name, 0, 0, err);
        return -1;
    }
    if (ready(k, 0, 0, err))
        return -1;
    *fn = k->fn;
    *sim_shared = k->sim_shared_bytes;
    return 0;
}

void gpu_module_drop_instances(const char *const *names, int n)
{
    for (int i = 0; i < nkernels;) {
        const char *name = kernels[i].info.name, *lt = strchr(name, '<');
        int drop = 0;
        for (int j = 0; lt && j < n && !drop; j++)
            drop = strlen(names[j]) == (size_t)(lt - name) && !strncmp(names[j], name, (size_t)(lt - name));
        if (!drop) {
            i++;
            continue;
        }
        free(kernels[i].info.params);
        free(kernels[i].sim_cells);
        module_unref(kernels[i].module);
        memmove(&kernels[i], &kernels[i + 1], (size_t)(nkernels - i - 1) * sizeof *kernels);
        nkernels--;
    }
}

int gpu_stopped_kernel(const void *ip, char *buf, size_t len)
{
    char where[256], line[128], at[160] = "";
    if (!sim_cut_off(ip, where, sizeof where, line, sizeof line))
        return 0;
    const char *comma = strchr(where, ',');
    if (line[0])
        snprintf(at, sizeof at, " at %s,", line);
    if (last.valid)
        snprintf(buf, len, "the simulated kernel %s (launched at cell %d, line %d) stopped%s in%s",
                 last.name, last.cell, last.line, at, comma ? comma + 1 : "");
    else
        snprintf(buf, len, "the simulated kernel %s stopped", where);
    return 1;
}

int gpu_last_launch(const char **name, int *cell, int *line)
{
    if (!last.valid)
        return 0;
    if (name)
        *name = last.name;
    if (cell)
        *cell = last.cell;
    if (line)
        *line = last.line;
    return 1;
}

int gpu_busy(const char **name, int *cell, int *line)
{
    const gpu_driver_t *d = gpu_driver_get(NULL);
    gpu_cucontext_t ctx = NULL;
    if (!d || d->cuCtxGetCurrent(&ctx) != GPU_CU_SUCCESS || !ctx)
        return 0;
    if (d->cuStreamQuery(NULL) != 600) /* CUDA_ERROR_NOT_READY */
        return 0;
    if (name)
        *name = last.valid ? last.name : "a kernel";
    if (cell)
        *cell = last.valid ? last.cell : 0;
    if (line)
        *line = last.valid ? last.line : 0;
    return 1;
}

int gpu_synchronize(cm_error_t *err)
{
    cm_error_t e = {0};
    if (sim_take_error(&e)) { /* a simulated kernel's failure */
        char launched[200] = "";
        if (last.valid)
            snprintf(launched, sizeof launched, " (in %s, launched at cell %d, line %d)",
                     last.name, last.cell, last.line);
        CM_ERROR(err, e.code, "%s%s", e.text, launched);
        return -1;
    }
    const gpu_driver_t *d = gpu_driver_get(NULL);
    gpu_cucontext_t ctx = NULL;
    if (!d || d->cuCtxGetCurrent(&ctx) != GPU_CU_SUCCESS || !ctx)
        return 0;
    gpu_curesult_t rc = d->cuCtxSynchronize();
    if (rc == GPU_CU_SUCCESS)
        return 0;
    char text[300], launched[200] = "", cost[700] = "";
    gpu_driver_error_text(rc, text, sizeof text);
    if (last.valid)
        snprintf(launched, sizeof launched, " (in %s, launched at cell %d, line %d)", last.name,
                 last.cell, last.line);
    if (gpu_error_is_sticky(rc))
        gpu_sticky_cost(cost, sizeof cost);
    CM_ERROR(err, rc, "%s%s%s%s", text, launched, cost[0] ? ". " : "", cost);
    return -1;
}
