/* %%kernel / %%cuda and .cu-style cells: device code compiled by NVRTC
 * (planned by runtime/cell/rt_kprelude.c, compiled by backend/cuda/'s
 * gpu_compile_unit), its kernels then launchable from host cells
 * (see docs/gpu.md); and host code's declarations given to device code
 * (rt_kprelude_declare), as one .cu file gives them (docs/cells.md). */
#include "rt_magic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "gpu.h"
#include "rt_device.h"
#include "rt_kprelude.h"
#include "rt_protect.h"
#include "rt_segment.h"
#include "rt_session_defs.h"

/* The CudaCompileError: every NVRTC message on the cell's lines, with the
 * source line and a caret where NVRTC gave a column. */
static int compile_error(const gpu_cell_t *gc, const cm_error_t *e, rt_error_t *err)
{
    rt_error_set(err, "CudaCompileError", 0, 0, "%s", e->text);
    for (int i = 0; gc && i < gc->ndiags; i++) {
        const gpu_diag_t *d = &gc->diags[i];
        if (d->line > 0 && d->column > 0)
            rt_error_add_line(err, "cell %d, line %d, column %d: %s: %s", d->cell, d->line,
                              d->column, d->severity, d->message);
        else if (d->line > 0)
            rt_error_add_line(err, "cell %d, line %d: %s: %s", d->cell, d->line, d->severity,
                              d->message);
        else
            rt_error_add_line(err, "cell %d: %s: %s", d->cell, d->severity, d->message);
        if (d->source_line)
            rt_error_add_source(err, d->source_line, strlen(d->source_line), d->column);
    }
    return -1;
}

/* Makes the device variables of a compiled cell known to host cells by
 * name, with the type they were declared with (else as bytes of their
 * size, for a type C does not know), as nvcc's host-side shadows are: a
 * host variable the cuda*Symbol macros take by name. */
static void declare_variables(rt_session_t *s, const gpu_cell_t *gc)
{
    for (int i = 0; i < gc->nvars; i++) {
        const gpu_var_info_t *v = &gc->vars[i];
        void *addr;
        size_t size;
        if (gpu_symbol_lookup(v->name, &addr, &size) != 0)
            continue;
        void *shadow = calloc(1, size ? size : 1); /* lives as long as the session's code */
        if (!shadow)
            continue;
        rt_session_define(s, v->name, shadow, gc->cell, 0);
        char decl[400];
        rt_error_t e = {0};
        snprintf(decl, sizeof decl, "extern %s;", v->decl);
        if (rt_session_run_text(s, decl, gc->cell, &e) == 0)
            continue;
        rt_error_t e2 = {0};
        snprintf(decl, sizeof decl, "extern unsigned char %s[%zu];", v->name, size);
        if (rt_session_run_text(s, decl, gc->cell, &e2) != 0)
            fprintf(stderr, "note: %s cannot be declared in host cells (%s)\n", v->name,
                    e.message);
    }
}

/* Makes the kernels of a compiled cell values in host cells, as an nvcc
 * program's kernels are: each name is bound to the kernel's handle
 * (backend/cuda/gpu_func.c), which cudaFuncGetAttributes, cudaLaunchKernel & co.
 * take. A name a host cell defines stays the host cell's. */
static void declare_kernels(rt_session_t *s, const gpu_cell_t *gc)
{
    for (int i = 0; i < gc->nkernels; i++) {
        const char *name = gc->kernels[i].name;
        const void *handle = gpu_kernel_handle(name);
        void *now = rt_session_symbol(s, name);
        if (!handle || (now && now != handle))
            continue;
        rt_session_define(s, name, (void *)handle, gc->cell, 0);
        char decl[200];
        rt_error_t e = {0};
        snprintf(decl, sizeof decl, "extern const char %s[];", name);
        if (rt_session_run_text(s, decl, gc->cell, &e) != 0)
            fprintf(stderr, "note: kernel %s cannot be named in host cells (%s)\n", name,
                    e.message);
    }
}

/* Compiles device source (the cell's own lines) and says how it went. */
static int compile_device(rt_session_t *s, const char *src, const char *options, int cell,
                          rt_error_t *err)
{
    gpu_cell_t *gc = NULL;
    cm_error_t e = {0};
    int rc = rt_kprelude_compile(src, options, cell, &gc, &e);
    if (rc != 0) {
        if (e.code == GPU_E_COMPILE)
            compile_error(gc, &e, err);
        else
            rt_error_set(err, "CudaUnavailable", 0, 0, "%s", e.text);
    } else {
        cm_buf_t names = {0};
        for (int k = 0; k < gc->nkernels; k++)
            cm_buf_addf(&names, "%s%s", k ? ", " : "", gc->kernels[k].name);
        const char *what = gc->nkernels ? cm_buf_str(&names) : "device code";
        cm_buf_t note = {0};
        if (strcmp(gc->cache, "miss") == 0)
            cm_buf_addf(&note, "compiled %s for %s in %.1f ms", what, gc->arch, gc->compile_ms);
        else
            cm_buf_addf(&note, "%s for %s: cache hit (%s, %.3f ms)", what, gc->arch, gc->cache,
                        gc->compile_ms);
        if (gc->setup_ms >= 1.0)
            cm_buf_addf(&note, " (GPU set-up on first use: %.0f ms)", gc->setup_ms);
        if (gc->loaded)
            cm_buf_addf(&note, ", loaded in %.2f ms", gc->load_ms);
        else if (gc->simulated)
            cm_buf_adds(&note, "; runs on the CUDA simulator (CPU)");
        rt_magic_note("%s\n", cm_buf_str(&note));
        cm_buf_free(&note);
        /* a cell of only __device__ code needs no launch */
        if (!gc->loaded && !gc->simulated && gc->nkernels)
            fprintf(stderr, "note: no GPU here: launches of %s will fail until one is "
                            "available\n", what);
        cm_buf_free(&names);
        declare_variables(s, gc);
        declare_kernels(s, gc);
    }
    gpu_cell_free(gc);
    rt_protect_hold(); /* an interrupt waits: the writer's lock is taken in there */
    gpu_cache_flush(); /* the disk entry, written while the cell went on */
    rt_protect_release();
    return rc == 0 ? 0 : -1;
}

void rt_magic_options(const char *code, const rt_magic_line_t *m, char *options, size_t cap)
{
    cm_names_t args = {0};
    rt_magic_args(code, m, &args);
    size_t o = 0;
    options[0] = '\0';
    for (size_t i = 0; i < args.n; i++) {
        if (strcmp(args.v[i], "-v") == 0 || strcmp(args.v[i], "--verbose") == 0) {
            rt_magic_verbose_cell(1);
            continue;
        }
        if (o + strlen(args.v[i]) + 2 < cap)
            o += (size_t)snprintf(options + o, cap - o, "%s%s", o ? " " : "", args.v[i]);
    }
    cm_names_free(&args);
}

int rt_magic_kernel(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                    rt_error_t *err)
{
    char options[1024];
    rt_magic_options(code, m, options, sizeof options);
    char *src = rt_segment_blank_outside(code, m->next, strlen(code));
    int rc = compile_device(s, src, options, cell_no, err);
    free(src);
    return rc;
}

int rt_magic_device_part(rt_session_t *s, const char *device, int cell_no, rt_error_t *err)
{
    return compile_device(s, device, "", cell_no, err);
}

static void declare_to_device(void *ctx, const char *text)
{
    rt_kprelude_declare(text, *(const int *)ctx);
}

void rt_magic_host_declarations(const rt_tokens_t *read, int cell_no)
{
    const char *host = read->src;
    rt_magic_line_t m;
    if (!rt_magic_find(read, 0, &m) || !m.cell || !m.first) {
        rt_device_declarations(read, declare_to_device, &cell_no);
    } else if (strcmp(m.name, "cpp") == 0 || strcmp(m.name, "c++") == 0) {
        /* the body's tokens are the cell's; over a text with the magic line
         * blanked, so that it is not taken for C */
        char *body = rt_segment_blank_outside(host, m.next, strlen(host));
        rt_tokens_t view = rt_tokens_view(read, m.next, strlen(host), body);
        rt_device_declarations(&view, declare_to_device, &cell_no);
        free(body);
    }
}
