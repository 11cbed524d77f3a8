/* rt_execute: the cell runner (see rt_execute.h). */
#include "rt_execute.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "rt_arrays.h"
#include "rt_cxx.h"
#include "rt_device.h"
#include "rt_lex.h"
#include "rt_magic.h"
#include "rt_program.h"
#include "rt_segment.h"
#include "rt_shortcut.h"

/* Non-zero when the cell's first non-blank characters are "%%". */
static int starts_with_cell_magic(const char *code)
{
    while (isspace((unsigned char)*code))
        code++;
    return code[0] == '%' && code[1] == '%';
}

/* Runs cell[from, to) of the text read once into cell, starting on cell
 * line `line`, in the session; the result of a segment that ran replaces
 * *result. */
static int run_code(rt_session_t *s, const rt_tokens_t *cell, size_t from, size_t to, int line,
                    int cell_no, rt_value_t *result, rt_error_t *err)
{
    rt_segment_t seg = rt_segment_of_tokens(cell, from, to, line, cell_no);
    if (rt_segment_is_blank(&seg))
        return 0;
    if (rt_session_run(s, &seg, err) != 0 && rt_cc_fallback(s, &seg, err) != 0)
        return -1; /* the system C compiler takes what TCC cannot (rt_cc.c) */
    rt_value_free(result);
    rt_session_take_result(s, result);
    return 0;
}

/* The host part of a cell, read once into host: its code segments and
 * magic lines in order. */
static int run_host(rt_session_t *s, const rt_tokens_t *host, int cell_no, rt_value_t *result,
                    rt_error_t *err)
{
    size_t from = 0;
    int line = 1, rc = 0, rest = 1;
    rt_magic_walk_t w = rt_magic_walk(host);
    rt_magic_line_t m;
    while (rest && rt_magic_next(&w, &m)) {
        if (run_code(s, rt_magic_walk_tokens(&w), from, m.start, line, cell_no, result, err) !=
                0 ||
            rt_magic_run(s, host->src, &m, cell_no, err) != 0) {
            rc = -1;
            rest = 0;
            break;
        }
        rt_value_t shown; /* %timeit -o, %%time's cell */
        if (rt_session_take_result(s, &shown)) {
            rt_value_free(result);
            *result = shown;
        }
        rest = !m.cell; /* a cell magic took the rest of the cell */
        from = m.next;
        line = m.line + 1;
    }
    if (rest)
        rc = run_code(s, rt_magic_walk_tokens(&w), from, strlen(host->src), line, cell_no,
                      result, err);
    rt_magic_walk_free(&w);
    return rc;
}

/* The .cu-style parts of the cell read once into cell (device code, host
 * code) to run: those of a plain cell that holds kernels and host code,
 * or of a `%%cuda` cell that holds a whole program as nvcc4jupyter runs
 * them (kernels and host code, main() included; its magic line blanked).
 * 0 when it is neither: a `%%cuda` cell of device code only is
 * %%kernel's, through the magics. */
static int split_parts(const rt_tokens_t *cell, char **device, char **host)
{
    const char *code = cell->src;
    *device = *host = NULL;
    if (!starts_with_cell_magic(code))
        return rt_device_split(cell, device, host);
    rt_magic_line_t m;
    if (!rt_magic_find(cell, 0, &m) || !m.cell || !m.first || strcmp(m.name, "cuda") != 0)
        return 0;
    /* the body's tokens are the cell's, over its text with the magic line
     * blanked (the parts keep the cell's lines) */
    char *body = rt_segment_blank_outside(code, m.next, strlen(code));
    rt_tokens_t view = rt_tokens_view(cell, m.next, strlen(code), body);
    int split = rt_device_split(&view, device, host);
    free(body);
    return split;
}

/* Whether the cell (or a .cu-style cell's host part) read once into t is
 * C++: one with no cell magic that rt_cpp_is_cpp finds to be. */
static int is_cpp(rt_session_t *s, const rt_tokens_t *t)
{
    return !starts_with_cell_magic(t->src) && rt_cpp_is_cpp(s, t);
}

/* A host part runs as a %%cpp cell, whole, when cpp says it is C++; else
 * as C, with its magic lines. */
static int run_host_or_cpp(rt_session_t *s, const rt_tokens_t *host, int cpp, int cell_no,
                           rt_value_t *result, rt_error_t *err)
{
    if (!cpp)
        return run_host(s, host, cell_no, result, err);
    if (rt_magic_cpp_part(s, host->src, cell_no, err) != 0)
        return -1;
    rt_value_free(result);
    rt_session_take_result(s, result);
    return 0;
}

/* Whether a .cu-style cell's host part (read once into host) runs as C++,
 * as nvcc compiles a .cu file's host code: yes, unless it holds nothing
 * but preprocessor lines (C and C++ read those alike) or a line magic,
 * which only C cells run, and no C++ (see docs/cells.md). */
static int host_part_is_cpp(rt_session_t *s, const rt_tokens_t *host)
{
    rt_magic_line_t m;
    if (rt_magic_find(host, 0, &m) || !rt_device_has_code(host->src))
        return is_cpp(s, host);
    return 1;
}

/* A whole program (a .cu-style cell or a `%%cuda` cell, with main) as
 * one translation unit (rt_program): 1 when it is not one, or cannot be
 * built so here, and the split serves. split: whether split_parts split
 * the cell. */
static int run_program(rt_session_t *s, const rt_tokens_t *cell, int split, int cell_no,
                       rt_value_t *result, rt_error_t *err)
{
    const char *code = cell->src;
    rt_magic_line_t m;
    char *body = NULL, options[1024] = "";
    if (!starts_with_cell_magic(code)) { /* a .cu-style cell: kernels and main */
        if (!split)
            return 1;
        body = strdup(code);
    } else if (rt_magic_find(cell, 0, &m) && m.cell && m.first && strcmp(m.name, "cuda") == 0) {
        body = rt_segment_blank_outside(code, m.next, strlen(code));
        rt_magic_options(code, &m, options, sizeof options);
    }
    int rc = body && rt_program_is(body) ? rt_program_run(s, body, options, cell_no, err) : 1;
    free(body);
    if (rc == 0) {
        rt_value_free(result);
        rt_session_take_result(s, result);
    }
    return rc;
}

static int run_cell(rt_session_t *s, const rt_tokens_t *cell, int cell_no, rt_value_t *result,
                    rt_error_t *err)
{
    char *device, *host; /* the cell is split once: a whole program's test needs it too */
    int split = split_parts(cell, &device, &host);
    int whole = run_program(s, cell, split, cell_no, result, err);
    if (whole <= 0) {
        free(device);
        free(host);
        return whole;
    }
    int cpp = is_cpp(s, cell);
    /* a C++ cell without device code keeps its templates on the host */
    if (split && !(cpp && !rt_cxx_has_device_words(cell))) {
        /* a .cu-style cell: its device part to NVRTC, the rest as usual */
        /* device code sees its host declarations, as in one file: its own
         * kernels, their template instances and later kernel cells */
        /* the host part is text the split wrote (device items blanked,
         * typedefs added): read here, once */
        rt_tokens_t read;
        rt_tokens_lex(&read, host, 0, strlen(host), 1);
        rt_magic_host_declarations(&read, cell_no);
        int rc = rt_magic_device_part(s, device, cell_no, err);
        if (rc == 0)
            rc = run_host_or_cpp(s, &read, host_part_is_cpp(s, &read), cell_no, result, err);
        rt_tokens_free(&read);
        free(device);
        free(host);
        return rc;
    }
    free(device);
    free(host);
    rt_magic_host_declarations(cell, cell_no);
    return run_host_or_cpp(s, cell, cpp, cell_no, result, err);
}

int rt_execute_cell(rt_session_t *s, const char *code, int cell_no, rt_value_t *result,
                    rt_error_t *err)
{
    result->text = result->html = NULL;
    json_decref(rt_session_take_payload(s)); /* a failed cell's */
    if (rt_shortcut_run(s, code))
        return 0;
    rt_session_begin_cell(s, cell_no);
    rt_magic_verbose_cell(0);
    rt_tokens_t cell; /* THE read of the cell: its tokens go down the layers */
    rt_tokens_lex(&cell, code, 0, strlen(code), 1);
    int rc = run_cell(s, &cell, cell_no, result, err);
    rt_tokens_free(&cell);
    rt_session_end_cell(s); /* arrays no variable holds go, also after an error */
    return rc;
}

json_t *rt_execute(rt_session_t *s, const char *code, int cell_no)
{
    rt_value_t result;
    rt_error_t err = {0};
    if (rt_execute_cell(s, code, cell_no, &result, &err) != 0) {
        rt_value_free(&result);
        json_t *reply = json_pack("{s:s, s:o}", "status", "error", "error", rt_error_json(&err));
        rt_error_free(&err);
        return reply;
    }
    json_t *reply = json_pack("{s:s}", "status", "ok");
    if (result.text) {
        json_t *text = json_string(result.text);
        if (!text)
            text = json_string("<result is not valid UTF-8>");
        json_t *data = json_pack("{s:o}", "text/plain", text);
        json_t *html = result.html ? json_string(result.html) : NULL;
        if (html)
            json_object_set_new(data, "text/html", html);
        json_object_set_new(reply, "result", json_pack("{s:o, s:{}}", "data", data, "metadata"));
    }
    json_t *payload = rt_session_take_payload(s);
    if (payload)
        json_object_set_new(reply, "payload", payload);
    rt_value_free(&result);
    return reply;
}
