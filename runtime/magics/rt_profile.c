/* rt_profile: %%profile and %profile STATEMENT — the cell (or statement)
 * run under the floor's profiler (bk_profile_*, backend/bk_profile.c),
 * then shown: a table of every launch, array kernel, BLAS call and copy
 * with totals per name, a verdict per kernel name (the arithmetic in
 * rt_profile_stats.c), a timeline and a roofline (rt_profile_draw.c), and
 * the numbers as JSON in the output's metadata ("gpuc.profile").
 * docs/magics.md describes every column. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "rt_chart.h"
#include "rt_magic.h"
#include "rt_profile.h"
#include "rt_timeit.h"

/* ---- text ------------------------------------------------------------------ */

static void si(double v, const char *unit, char *buf, size_t len)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
    if (v < 0) {
        snprintf(buf, len, "-");
        return;
    }
    int k = 0;
    while (v >= 1000 && k < 5) {
        v /= 1000;
        k++;
    }
    snprintf(buf, len, k == 0 && v == floor(v) ? "%.0f %s%s" : "%.3g %s%s", v, prefix[k], unit);
}

static void percent(double v, double peak, char *buf, size_t len)
{
    if (v < 0 || peak <= 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f%%", 100 * v / peak);
}

static const char *kind_name(int kind)
{
    static const char *const names[] = {"kernel", "array", "BLAS", "copy"};
    return kind >= 0 && kind < 4 ? names[kind] : "?";
}

enum { NCOLS = 16 };

/* The cells of one row (or one name's total), shown in the text and HTML
 * forms alike. */
static void cells_of(const bk_profile_t *p, const bk_prof_row_t *r, int count,
                     char c[NCOLS][64])
{
    snprintf(c[0], 64, "%s", kind_name(r->kind));
    if (count > 1)
        snprintf(c[1], 64, "%.50s x%d", r->name, count);
    else
        snprintf(c[1], 64, "%.60s", r->name);
    if (r->grid[0] && count <= 1)
        snprintf(c[2], 64, "%ux%ux%u", r->grid[0], r->grid[1], r->grid[2]);
    else
        snprintf(c[2], 64, "-");
    if (r->block[0] && count <= 1)
        snprintf(c[3], 64, "%ux%ux%u", r->block[0], r->block[1], r->block[2]);
    else
        snprintf(c[3], 64, "-");
    rt_timeit_format(r->seconds, c[4], 64);
    si(r->bytes_read, "B", c[5], 64);
    si(r->bytes_written, "B", c[6], 64);
    double bytes = r->bytes_read >= 0 && r->bytes_written >= 0 ? r->bytes_read + r->bytes_written : -1;
    double bw = bytes >= 0 && r->seconds > 0 ? bytes / r->seconds : -1;
    si(r->sector_bytes, "B", c[15], 64);
    si(bw, "B/s", c[7], 64);
    percent(bw, p->peaks.bytes_per_s, c[8], 64);
    double flops = rt_profile_total_flops(r);
    double fl = flops >= 0 && r->seconds > 0 ? flops / r->seconds : -1;
    si(flops, "", c[9], 64);
    int prec = rt_profile_main_prec(r);
    if (fl >= 0) {
        char rate[32];
        si(fl, "FLOP/s", rate, sizeof rate);
        snprintf(c[10], 64, "%s %s", rate, flops > 0 ? rt_profile_prec_name(prec) : "");
    } else {
        snprintf(c[10], 64, "-");
    }
    percent(fl, p->peaks.flops[prec], c[11], 64);
    if (r->occupancy >= 0 && r->occupancy_achieved >= 0)
        snprintf(c[12], 64, "%.0f%% / %.0f%%", 100 * r->occupancy_achieved, 100 * r->occupancy);
    else if (r->occupancy >= 0)
        snprintf(c[12], 64, "- / %.0f%%", 100 * r->occupancy);
    else
        snprintf(c[12], 64, "-");
    if (r->registers >= 0)
        snprintf(c[13], 64, "%d", r->registers);
    else
        snprintf(c[13], 64, "-");
    if (r->shared_static >= 0) {
        double sh = r->shared_static + (r->shared_dynamic > 0 ? r->shared_dynamic : 0);
        si(sh, "B", c[14], 64);
    } else {
        snprintf(c[14], 64, "-");
    }
}

static const char *const HEAD[NCOLS] = {
    "kind", "name", "grid", "block", "time", "read", "written", "bandwidth", "% peak BW",
    "FLOPs", "FLOP/s", "% peak", "occupancy (ach./theor.)", "regs", "shared/block",
    "sector traffic"};
static const int WIDTHS[NCOLS + 1] = {7, 34, 11, 10, 10, 10, 10, 12, 10, 10, 20, 8, 24, 5, 13, 0};

/* One row in both forms: the name escaped in the HTML one (a template
 * kernel's <, an expression's <) */
static void table_row(rt_table_t *t, const bk_profile_t *p, const bk_prof_row_t *r, int count)
{
    const char *html[NCOLS], *text[NCOLS];
    char cells[NCOLS][64];
    cells_of(p, r, count, cells);
    cm_buf_t name = {0};
    rt_profile_escape(&name, cells[1]);
    for (int k = 0; k < NCOLS; k++)
        html[k] = text[k] = cells[k];
    html[1] = cm_buf_str(&name);
    rt_table_row(t, html, text, NCOLS, 0);
    cm_buf_free(&name);
}

static void table_rows(rt_table_t *t, const bk_profile_t *p, const rt_profile_total_t *tot, int ntot)
{
    for (int i = 0; i < p->nrows; i++)
        table_row(t, p, &p->rows[i], 1);
    int repeated = 0;
    for (int i = 0; i < ntot; i++)
        repeated |= tot[i].count > 1;
    if (!repeated)
        return;
    const char *sep[NCOLS] = {"totals"};
    for (int k = 1; k < NCOLS; k++)
        sep[k] = "";
    rt_table_row(t, sep, NULL, NCOLS, 1);
    for (int i = 0; i < ntot; i++) {
        if (tot[i].count < 2)
            continue;
        table_row(t, p, &tot[i].row, tot[i].count);
    }
}

/* ---- JSON ------------------------------------------------------------------ */

static json_t *num(double v)
{
    return v < 0 ? json_null() : json_real(v);
}

static json_t *row_json(const bk_profile_t *p, const bk_prof_row_t *r, int count)
{
    json_t *ops = json_object();
    for (int k = 0; k < BK_NPREC; k++) {
        json_t *o = json_pack("{s:o, s:o, s:o, s:o, s:o}", "add", num(r->ops[k][BK_OP_ADD]), "mul",
                              num(r->ops[k][BK_OP_MUL]), "fma", num(r->ops[k][BK_OP_FMA]),
                              "special", num(r->ops[k][BK_OP_SPECIAL]), "flops",
                              num(rt_profile_flops(r, k)));
        json_object_set_new(ops, rt_profile_prec_name(k), o);
    }
    char verdict[300], dev[32];
    rt_profile_verdict(p, r, verdict, sizeof verdict);
    bk_device_text(r->device, dev, sizeof dev);
    return json_pack("{s:s, s:s, s:i, s:s, s:[i,i,i], s:[i,i,i], s:f, s:f, s:o, s:o, s:o, s:o, "
                     "s:o, s:o, s:o, s:o, s:o, s:s, s:s}",
                     "kind", kind_name(r->kind), "name", r->name, "count", count, "device", dev,
                     "grid", r->grid[0], r->grid[1], r->grid[2], "block", r->block[0], r->block[1],
                     r->block[2], "start_s", r->start, "seconds", r->seconds, "bytes_read",
                     num(r->bytes_read), "bytes_written", num(r->bytes_written), "sector_bytes", num(r->sector_bytes), "flops",
                     num(rt_profile_total_flops(r)), "ops", ops, "registers",
                     r->registers < 0 ? json_null() : json_integer(r->registers),
                     "shared_per_block",
                     num(r->shared_static < 0 ? -1
                                              : r->shared_static + (r->shared_dynamic > 0 ? r->shared_dynamic : 0)),
                     "occupancy", num(r->occupancy), "occupancy_achieved",
                     num(r->occupancy_achieved), "note", r->note, "verdict", verdict);
}

static json_t *profile_json(const bk_profile_t *p, const rt_profile_total_t *tot, int ntot)
{
    json_t *rows = json_array(), *totals = json_array();
    for (int i = 0; i < p->nrows; i++)
        json_array_append_new(rows, row_json(p, &p->rows[i], 1));
    for (int i = 0; i < ntot; i++)
        json_array_append_new(totals, row_json(p, &tot[i].row, tot[i].count));
    const bk_prof_peaks_t *k = &p->peaks;
    return json_pack("{s:s, s:b, s:s, s:b, s:{s:f, s:o, s:o, s:o, s:i, s:s}, s:o, s:o, s:s}",
                     "device", p->device_name, "simulated", p->simulated, "mode",
                     p->mode == BK_PROF_COUNTERS ? "counters" : "times", "counted", p->counted,
                     "peaks", "bytes_per_s", k->bytes_per_s, "fp16_flops", num(k->flops[0]),
                     "fp32_flops", num(k->flops[1]), "fp64_flops", num(k->flops[2]), "sms",
                     k->sms, "how", k->how, "rows", rows, "totals", totals, "note", p->note);
}

/* ---- showing it -------------------------------------------------------------- */

static void show(rt_session_t *s, const bk_profile_t *p)
{
    rt_profile_total_t *tot = NULL;
    int ntot = rt_profile_totals(p, &tot);
    rt_table_t t;
    rt_table_begin(&t, "gpuc-profile", WIDTHS);
    rt_table_row(&t, HEAD, NULL, NCOLS, 1);
    table_rows(&t, p, tot, ntot);
    rt_table_end(&t);
    rt_table_note(&t, "%s%s", p->simulated ? "SIMULATED on the CPU: " : "", p->device_name);
    char verdict[300];
    for (int i = 0; i < ntot; i++) {
        if (tot[i].row.kind == BK_PROF_COPY)
            continue;
        rt_profile_verdict(p, &tot[i].row, verdict, sizeof verdict);
        /* by hand: the name escaped in HTML only */
        cm_buf_adds(&t.html, "<p>");
        rt_profile_escape(&t.html, tot[i].row.name);
        cm_buf_addf(&t.html, ": %s</p>\n", verdict);
        cm_buf_addf(&t.text, "%s: %s\n", tot[i].row.name, verdict);
    }
    rt_table_note(&t, "peaks: %s", p->peaks.how);
    if (p->note[0])
        rt_table_note(&t, "%s", p->note);
    if (!p->nrows)
        rt_table_note(&t, "no GPU work ran in the profiled code");
    json_t *meta = json_pack("{s:o}", "gpuc.profile", profile_json(p, tot, ntot));
    rt_session_display_meta(s, json_pack("{s:s, s:s}", "text/html", cm_buf_str(&t.html),
                                         "text/plain", cm_buf_str(&t.text)),
                            meta);
    cm_buf_free(&t.html);
    cm_buf_free(&t.text);
    if (p->nrows) {
        char *svg = rt_profile_timeline(p);
        rt_session_display(s, json_pack("{s:s, s:s}", "image/svg+xml", svg, "text/plain",
                                        "<SVG timeline: kernels and copies on their devices and streams>"),
                           NULL, 0);
        free(svg);
        svg = rt_profile_roofline(p, tot, ntot);
        rt_session_display(s, json_pack("{s:s, s:s}", "image/svg+xml", svg, "text/plain",
                                        "<SVG roofline: each kernel by arithmetic intensity and FLOP/s "
                                        "under the device's roofs>"),
                           NULL, 0);
        free(svg);
    }
    free(tot);
}

/* ---- the magic ---------------------------------------------------------------- */

/* Runs code[from, to) (lines from `line`) under the profiler. */
static int profile_run(rt_session_t *s, const char *text, size_t len, int line, int cell_no,
                       int mode, rt_error_t *err)
{
    bk_device_t d = bk_kernel_device();
    cm_error_t e = {0};
    if (bk_profile_start(d, mode, &e))
        return rt_error_set(err, "ProfileError", 0, 0, "%%%%profile: %s", e.text);
    int checks = rt_timeit_unchecked();
    rt_segment_t seg = rt_segment_of(text, 0, len, line, cell_no);
    int rc = rt_session_run(s, &seg, err);
    cm_error_t sync = {0};
    bk_synchronize(d, &sync);
    rt_timeit_checked_again(checks);
    bk_profile_t *p = bk_profile_stop(&e);
    if (rc != 0) {
        bk_profile_free(p);
        return rc;
    }
    if (!p)
        return rt_error_set(err, "ProfileError", 0, 0, "%%%%profile: %s", e.text);
    fflush(stdout);
    show(s, p);
    bk_profile_free(p);
    return 0;
}

/* Takes --counters / --times off the front of args; the rest in *rest. */
static int options(const char *args, size_t len, int *mode, size_t *rest, rt_error_t *err)
{
    size_t i = 0;
    *mode = BK_PROF_TIMES;
    while (i < len && args[i] == '-') {
        size_t j = i;
        while (j < len && args[j] != ' ' && args[j] != '\t')
            j++;
        if (j - i == 10 && !strncmp(args + i, "--counters", 10))
            *mode = BK_PROF_COUNTERS;
        else if (!(j - i == 7 && !strncmp(args + i, "--times", 7)))
            return rt_error_set(err, "UsageError", 0, 0, "%%profile: unknown option %.*s "
                                "(--counters, --times)", (int)(j - i), args + i);
        while (j < len && (args[j] == ' ' || args[j] == '\t'))
            j++;
        i = j;
    }
    *rest = i;
    return 0;
}

int rt_magic_profile_cell(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                          rt_error_t *err)
{
    int mode;
    size_t rest;
    if (options(code + m->args, m->args_len, &mode, &rest, err))
        return -1;
    if (rest < m->args_len)
        return rt_error_set(err, "UsageError", 0, 0, "%%%%profile: only --counters or --times may "
                            "follow %%%%profile on its line; the cell below it is profiled");
    /* a blank line in the magic's place keeps the cell's line numbers */
    cm_buf_t b = {0};
    cm_buf_adds(&b, "\n");
    cm_buf_adds(&b, code + m->next);
    int rc = profile_run(s, cm_buf_str(&b), b.len, m->line, cell_no, mode, err);
    cm_buf_free(&b);
    return rc;
}

int rt_magic_profile(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                     rt_error_t *err)
{
    int mode;
    size_t rest;
    if (options(code + m->args, m->args_len, &mode, &rest, err))
        return -1;
    if (rest >= m->args_len)
        return rt_error_set(err, "UsageError", 0, 0, "%%profile: give a statement to profile "
                            "(%%profile saxpy<<<n / 256, 256>>>(n, 2, x, y);), or use %%%%profile "
                            "for a cell");
    return profile_run(s, code + m->args + rest, m->args_len - rest, m->line, cell_no, mode, err);
}
