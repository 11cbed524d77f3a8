/* rt_session: the session's life — made, reset, options changed, freed —
 * and what it reports. Compiling is rt_compile.c, running rt_run.c, the
 * symbol table rt_symbols.c, header shaking rt_headers.c, what the session
 * knows of names rt_session_query.c. The bottom of the room's calls (see
 * docs/architecture.md): it calls none of those. */
#include "rt_session.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_buf.h"
#include "ga_api.h"
#include "gpu.h"
#include "gpuc_config.h"
#include "rt_cuda_header.h"
#include "rt_display.h"
#include "rt_header.h"
#include "rt_libnames.h"
#include "rt_session_internal.h"

/* libtcc's runtime files in a relocatable bundle (make bundle):
 * BUNDLE/lib/gpuc/tcc beside BUNDLE/bin/gpuc. NULL when not in one. */
static const char *bundled_tcc_libdir(void)
{
    static char dir[PATH_MAX + 32];
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    snprintf(dir, sizeof dir, "%s/../lib/gpuc/tcc", exe);
    char probe[sizeof dir + 16];
    snprintf(probe, sizeof probe, "%s/libtcc1.a", dir);
    return access(probe, R_OK) == 0 ? dir : NULL;
}

rt_session_t *rt_session_new(const char *tcc_libdir, rt_emit_fn emit, void *emit_ctx,
                             cm_error_t *err)
{
    if (!tcc_libdir || !*tcc_libdir)
        tcc_libdir = getenv("GPUC_TCC_LIBDIR");
    if (!tcc_libdir || !*tcc_libdir)
        tcc_libdir = bundled_tcc_libdir();
    if (!tcc_libdir || !*tcc_libdir)
        tcc_libdir = GPUC_TCC_LIBDIR;
    if (rt_protect_init(err) != 0)
        return NULL;
    ga_api_set_raise(rt_protect_raise); /* a failed array call ends the cell */
    rt_tcc_t *probe = rt_tcc_new(tcc_libdir, err);
    if (!probe)
        return NULL;
    rt_tcc_free(probe);
    rt_session_t *s = calloc(1, sizeof *s);
    if (!s) {
        CM_ERROR(err, 1, "out of memory");
        return NULL;
    }
    s->libdir = cm_strndup(tcc_libdir, strlen(tcc_libdir));
    const char *full = getenv("GPUC_FULL_HEADERS");
    s->headers = full && *full && strcmp(full, "0") != 0 ? RT_HEADERS_FULL : RT_HEADERS_SHAKE;
    s->emit = emit;
    s->emit_ctx = emit_ctx;
    return s;
}

void rt_session_free(rt_session_t *s)
{
    if (!s)
        return;
    rt_display_set_emit(NULL, NULL);
    for (size_t i = 0; i < s->nsyms; i++) {
        free(s->syms[i].name);
        free(s->syms[i].source);
    }
    free(s->syms);
    cm_map_free(&s->sym_index);
    free(s->code);
    cm_names_free(&s->code_names);
    cm_map_free(&s->code_name_index);
    for (size_t i = 0; i < s->nlibs; i++)
        free(s->libs[i].name);
    free(s->lines);
    free(s->libs);
    for (size_t i = 0; i < sizeof s->reruns / sizeof s->reruns[0]; i++)
        free(s->reruns[i].code);
    rt_prelude_free(&s->prelude);
    cm_names_free(&s->types);
    rt_shake_free(s->shake);
    free(s->shake_failed);
    rt_options_clear(&s->options);
    rt_tcc_set_extra(NULL, NULL, 0);
    rt_value_free(&s->result);
    json_decref(s->payload);
    free(s->libdir);
    free(s);
}

/* ---- reset and options ---------------------------------------------- */

static int is_directive_key(const char *key)
{
    return strncmp(key, "#include", 8) == 0 || strncmp(key, "#pragma", 7) == 0;
}

size_t rt_session_reset(rt_session_t *s)
{
    cm_names_t names = {0};
    for (size_t i = 0; i < s->prelude.n; i++) {
        const rt_entry_t *e = &s->prelude.v[i];
        for (size_t k = 0; k < e->nkeys; k++)
            if (!is_directive_key(e->keys[k]) && cm_names_find(&names, e->keys[k], (size_t)-1) < 0)
                cm_names_add(&names, e->keys[k], (size_t)-1);
    }
    size_t dropped = names.n;
    cm_names_free(&names);
    /* s->code and s->libs stay: code compiled before may still run (a
     * thread a cell started) and crash, and is then named */
    rt_prelude_free(&s->prelude);
    memset(&s->prelude, 0, sizeof s->prelude);
    for (size_t i = 0; i < s->nsyms; i++) {
        free(s->syms[i].name);
        free(s->syms[i].source);
    }
    s->nsyms = 0;
    cm_map_clear(&s->sym_index);
    cm_names_free(&s->types);
    rt_options_clear(&s->options);
    rt_session_options_changed(s);
    return dropped;
}

const char *rt_session_header(const rt_session_t *s)
{
    return rt_header(s->cuda_toolkit);
}

void rt_session_note_code(rt_session_t *s, const char *code)
{
    if (s->cuda_toolkit ||
        (!strstr(code, "cuda") && !strstr(code, "CUDA") && !rt_libraries_named(code)))
        return;
    s->cuda_toolkit = 1;
    /* cells compile against another gpuc.h from now on, with the toolkit's
     * include folder (cublas_v2.h & co) searched after the system's */
    rt_session_options_changed(s);
}

void rt_session_options_changed(rt_session_t *s)
{
    s->generation++;
    char *cflags = rt_options_cflags_text(&s->options);
    const char *cuda = s->cuda_toolkit ? rt_cuda_include_dir() : NULL;
    if (cuda) {
        cm_buf_t b = {0};
        cm_buf_addf(&b, "%s%s-isystem %s", cflags ? cflags : "", cflags ? " " : "", cuda);
        free(cflags);
        cflags = cm_buf_steal(&b);
    }
    rt_tcc_set_extra(cflags, s->options.lib_paths.v, s->options.lib_paths.n);
    free(cflags);
    /* the headers are preprocessed again with the new options */
    rt_shake_free(s->shake);
    s->shake = NULL;
    free(s->shake_failed);
    s->shake_failed = NULL;
}

rt_options_t *rt_session_options(rt_session_t *s)
{
    return &s->options;
}

const rt_prelude_t *rt_session_prelude(const rt_session_t *s)
{
    return &s->prelude;
}

int rt_session_uses_cuda_toolkit(const rt_session_t *s)
{
    return s->cuda_toolkit;
}

void rt_session_display(rt_session_t *s, json_t *data, const char *id, int update)
{
    rt_display_set_emit(s->emit, s->emit_ctx);
    rt_display_bundle(data, id, update);
    rt_display_set_emit(NULL, NULL);
}

void rt_session_display_meta(rt_session_t *s, json_t *data, json_t *metadata)
{
    rt_display_set_emit(s->emit, s->emit_ctx);
    rt_display_bundle_meta(data, metadata);
    rt_display_set_emit(NULL, NULL);
}

void rt_value_free(rt_value_t *v)
{
    free(v->text);
    free(v->html);
    v->text = v->html = NULL;
}

void rt_session_set_result(rt_session_t *s, const char *text)
{
    rt_value_free(&s->result);
    s->result.text = cm_strndup(text, strlen(text));
}

int rt_session_take_result(rt_session_t *s, rt_value_t *out)
{
    *out = s->result;
    s->result.text = s->result.html = NULL;
    return out->text != NULL;
}

void rt_session_add_payload(rt_session_t *s, json_t *item)
{
    if (!item)
        return;
    if (!s->payload)
        s->payload = json_array();
    json_array_append_new(s->payload, item);
}

json_t *rt_session_take_payload(rt_session_t *s)
{
    json_t *payload = s->payload;
    s->payload = NULL;
    return payload;
}

void rt_session_set_headers(rt_session_t *s, rt_headers_mode_t mode)
{
    s->headers = mode;
}

void rt_session_stats(const rt_session_t *s, rt_compile_stats_t *out)
{
    *out = s->stats;
}
