/* rt_speedup: %%speedup (see rt_speedup.h). */
#include "rt_speedup.h"

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rt_buf.h"
#include "rt_display.h"
#include "rt_protect.h"
#include "rt_session_internal.h"
#include "rt_tcc.h"
#include "rt_timeit.h"
#include "rt_traceback.h"

#define MAX_CHECKS 8
#define MAX_SIZES 32
#define NAME_MAX_LEN 64

typedef struct check {
    char cpu[NAME_MAX_LEN], gpu[NAME_MAX_LEN]; /* the session variables compared */
    char count[128];                            /* "" = compare the values themselves */
} check_t;

typedef struct opts {
    check_t checks[MAX_CHECKS];
    int nchecks;
    double rtol, atol;      /* rtol < 0: by the element type */
    long sizes[MAX_SIZES];
    int nsizes;
    char var[NAME_MAX_LEN]; /* the sweep variable */
    long loops;             /* -n; 0 = autorange */
    int runs;               /* -r */
} opts_t;

enum { SETUP, CPU, GPU, NSECTIONS };
static const char *const section_names[NSECTIONS] = {"setup", "cpu", "gpu"};

typedef struct section {
    int present;
    size_t from, to; /* code[from, to) */
    int line;        /* the cell line `from` is on */
} section_t;

typedef struct row {
    long size;
    double cpu, cpu_std;      /* seconds per run */
    double wall, wall_std;    /* the GPU section's wall time per run */
    double kernel, kernel_std; /* its GPU time per run by CUDA events */
    int gpu_work;
    long cpu_loops, gpu_loops;
    double max_abs, max_rel;  /* over the checks */
} row_t;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}


static int is_ok(const json_t *reply)
{
    const char *st = json_string_value(json_object_get(reply, "status"));
    return st && strcmp(st, "ok") == 0;
}

static int is_identifier(const char *p, size_t n)
{
    if (!n || n >= NAME_MAX_LEN || !(isalpha((unsigned char)p[0]) || p[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!isalnum((unsigned char)p[i]) && p[i] != '_')
            return 0;
    return 1;
}

/* ---- options -------------------------------------------------------- */

#define USAGE "%%%%speedup [--check CPU,GPU[:COUNT]]... [--rtol R] [--atol A] " \
              "[--sizes S,S,...] [--var NAME] [-n N] [-r R]"

static json_t *parse_check(const char *v, opts_t *o)
{
    if (o->nchecks == MAX_CHECKS)
        return rt_error_reply("UsageError", "%%%%speedup: at most %d --check", MAX_CHECKS);
    check_t *c = &o->checks[o->nchecks++];
    const char *comma = strchr(v, ','), *colon = strchr(v, ':');
    const char *gpu_end = colon ? colon : v + strlen(v);
    if (!comma || comma > gpu_end || !is_identifier(v, (size_t)(comma - v)) ||
        !is_identifier(comma + 1, (size_t)(gpu_end - comma - 1)) ||
        (colon && (!colon[1] || strlen(colon + 1) >= sizeof c->count)))
        return rt_error_reply("UsageError", "%%%%speedup: --check %s: expected CPU_NAME,GPU_NAME or "
                           "CPU_NAME,GPU_NAME:COUNT (session variables; COUNT elements of "
                           "arrays or pointers)", v);
    snprintf(c->cpu, sizeof c->cpu, "%.*s", (int)(comma - v), v);
    snprintf(c->gpu, sizeof c->gpu, "%.*s", (int)(gpu_end - comma - 1), comma + 1);
    snprintf(c->count, sizeof c->count, "%s", colon ? colon + 1 : "");
    return NULL;
}

static json_t *parse_sizes(const char *v, opts_t *o)
{
    const char *p = v;
    while (*p) {
        char *e;
        double d = strtod(p, &e);
        if (e == p || (*e && *e != ',') || !(d >= 1 && d <= 1e18) || o->nsizes == MAX_SIZES)
            return rt_error_reply("UsageError", "%%%%speedup: --sizes %s: expected up to %d sizes "
                               "from 1 to 1e18, separated by commas (1e3,1e4,1e5)", v,
                               MAX_SIZES);
        o->sizes[o->nsizes++] = (long)llround(d);
        p = *e ? e + 1 : e;
    }
    return NULL;
}

static json_t *parse_number(const char *flag, const char *v, double lo, double hi, double *out)
{
    char *e;
    double d = strtod(v, &e);
    if (e == v || *e || !(d >= lo && d <= hi))
        return rt_error_reply("UsageError", "%%%%speedup: %s %s: expected a number from %g to %g",
                           flag, v, lo, hi);
    *out = d;
    return NULL;
}

/* Reads the magic line's options: words separated by blanks, values after
 * a blank or an '=' (--sizes=1e3,1e4). */
static json_t *parse_opts(const char *code, const rt_magic_line_t *m, opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->rtol = -1;
    o->runs = 7;
    snprintf(o->var, sizeof o->var, "N");
    char *args = rt_strndup(code + m->args, m->args_len);
    char *words[64];
    int n = 0;
    for (char *save, *w = strtok_r(args, " \t", &save); w && n < 64; w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    json_t *err = NULL;
    for (int i = 0; i < n && !err; i++) {
        char *flag = words[i], *v = strchr(flag, '=');
        if (v && strncmp(flag, "--", 2) == 0)
            *v++ = '\0';
        else
            v = NULL;
        static const char *const known[] = {"--check", "--rtol", "--atol", "--sizes",
                                            "--var", "-n", "-r"};
        int k = -1;
        for (int j = 0; j < 7; j++)
            if (strcmp(flag, known[j]) == 0)
                k = j;
        if (k < 0) {
            err = rt_error_reply("UsageError", "%%%%speedup: option %s not recognized (usage: "
                              USAGE ")", flag);
            break;
        }
        if (!v && (v = i + 1 < n ? words[++i] : NULL) == NULL) {
            err = rt_error_reply("UsageError", "%%%%speedup: %s needs a value (usage: " USAGE ")",
                              flag);
            break;
        }
        double d = 0;
        switch (k) {
        case 0: err = parse_check(v, o); break;
        case 1: err = parse_number(flag, v, 0, 1, &o->rtol); break;
        case 2: err = parse_number(flag, v, 0, 1e300, &o->atol); break;
        case 3: err = parse_sizes(v, o); break;
        case 4:
            if (!is_identifier(v, strlen(v)))
                err = rt_error_reply("UsageError", "%%%%speedup: --var %s: expected a C name", v);
            else
                snprintf(o->var, sizeof o->var, "%s", v);
            break;
        case 5:
            if (!(err = parse_number(flag, v, 1, 1e18, &d)))
                o->loops = (long)d;
            break;
        default:
            if (!(err = parse_number(flag, v, 1, RT_TIMEIT_RUNS_MAX, &d)))
                o->runs = (int)d;
            break;
        }
    }
    free(args);
    return err;
}

/* ---- sections ------------------------------------------------------- */

/* Splits the cell below the magic line at its `//%% NAME` lines. */
static json_t *find_sections(const char *code, const rt_magic_line_t *m, section_t *sec)
{
    memset(sec, 0, NSECTIONS * sizeof *sec);
    int line = m->line + 1, current = -1;
    size_t p = m->next;
    while (code[p]) {
        size_t start = p, eol = p + strcspn(code + p, "\n");
        size_t q = start;
        while (q < eol && isspace((unsigned char)code[q]))
            q++;
        if (strncmp(code + q, "//%%", 4) == 0) {
            q += 4;
            while (q < eol && isspace((unsigned char)code[q]))
                q++;
            size_t w = q;
            while (w < eol && !isspace((unsigned char)code[w]))
                w++;
            int k = -1;
            for (int i = 0; i < NSECTIONS; i++)
                if (w - q == strlen(section_names[i]) &&
                    strncmp(code + q, section_names[i], w - q) == 0)
                    k = i;
            if (k < 0)
                return rt_error_reply("UsageError", "cell line %d: %%%%speedup: unknown section "
                                   "'%.*s' (sections: //%%%% setup, //%%%% cpu, //%%%% gpu)",
                                   line, (int)(w - q), code + q);
            if (sec[k].present)
                return rt_error_reply("UsageError", "cell line %d: %%%%speedup: a second //%%%% %s "
                                   "section", line, section_names[k]);
            if (current >= 0)
                sec[current].to = start;
            current = k;
            sec[k].present = 1;
            sec[k].from = code[eol] ? eol + 1 : eol;
            sec[k].line = line + 1;
        } else if (current < 0 && q < eol) {
            return rt_error_reply("UsageError", "cell line %d: %%%%speedup: code before the first "
                               "section; start it with //%%%% setup, //%%%% cpu or //%%%% gpu",
                               line);
        }
        p = code[eol] ? eol + 1 : eol;
        line++;
    }
    if (current >= 0)
        sec[current].to = p;
    if (!sec[CPU].present || !sec[GPU].present)
        return rt_error_reply("UsageError", "%%%%speedup: the cell needs a //%%%% cpu section and a "
                           "//%%%% gpu section (usage: " USAGE ")");
    return NULL;
}

/* Runs code[sec) as a cell of the session (its declarations stay). */
static json_t *run_cell_text(rt_session_t *s, const char *code, const section_t *sec, int cell_no)
{
    rt_buf_t b = {0};
    for (int l = 1; l < sec->line; l++)
        rt_buf_addc(&b, '\n');
    rt_buf_add(&b, code + sec->from, sec->to - sec->from);
    json_t *r = rt_session_run_code(s, rt_buf_str(&b), cell_no);
    rt_buf_free(&b);
    if (is_ok(r)) {
        json_decref(r); /* a result of the setup is not shown */
        return NULL;
    }
    return r;
}

static json_t *set_size(rt_session_t *s, const char *var, long size, int cell_no)
{
    rt_buf_t b = {0};
    if (!rt_session_symbol(s, var))
        rt_buf_addf(&b, "long %s;\n", var);
    rt_buf_addf(&b, "%s = %ld;\n", var, size);
    json_t *r = rt_session_run_code(s, rt_buf_str(&b), cell_no);
    rt_buf_free(&b);
    if (is_ok(r)) {
        json_decref(r);
        return NULL;
    }
    return r;
}

/* ---- checks --------------------------------------------------------- */

typedef struct compare {
    void (*fn)(double *r);
    double r[10]; /* in: rtol, atol, inf; out: n, max abs, max rel, bad, at, rtol, kind */
} compare_t;

static void run_compare(void *arg)
{
    compare_t *c = arg;
    c->fn(c->r);
}

/* Compares c's variables (the CPU one is the reference) in compiled code,
 * by their element type. NULL, or an error reply. */
static json_t *check_one(rt_session_t *s, const check_t *c, const opts_t *o, long size,
                         int cell_no, row_t *row)
{
    char a[NAME_MAX_LEN + 8], b[NAME_MAX_LEN + 8];
    snprintf(a, sizeof a, c->count[0] ? "(%s)" : "(&%s)", c->cpu);
    snprintf(b, sizeof b, c->count[0] ? "(%s)" : "(&%s)", c->gpu);
    rt_buf_t src = {0};
    rt_buf_addf(&src,
        "void __gpuc_speedup_check(double *r)\n{\n"
        "    long n = (long)(%s);\n"
        "    int kind = _Generic(%s[0], float: 1, double: 2, long double: 2, default: 0);\n"
        "    double rtol = r[0] >= 0 ? r[0] : kind == 1 ? 1e-5 : kind == 2 ? 1e-12 : 0;\n"
        "    double atol = r[1], inf = r[2], ma = 0, mr = 0, bad = 0, at = -1;\n"
        "    for (long i = 0; i < n; i++) {\n"
        "        double x = (double)%s[i], y = (double)%s[i];\n"
        "        double d = x == y || (x != x && y != y) ? 0 : x > y ? x - y : y > x ? y - x : inf;\n"
        "        double ax = x < 0 ? -x : x, rel = d == 0 ? 0 : ax > 0 ? d / ax : inf;\n"
        "        if (d > ma) { ma = d; at = (double)i; }\n"
        "        if (rel > mr) mr = rel;\n"
        "        if (!(d <= atol + rtol * ax)) bad++;\n"
        "    }\n"
        "    r[3] = (double)n; r[4] = ma; r[5] = mr; r[6] = bad; r[7] = at; r[8] = rtol;\n"
        "    r[9] = kind;\n}\n",
        c->count[0] ? c->count : "1", a, a, b);
    cm_error_t err = {0};
    rt_tcc_t *t = rt_session_compile_aux(s, rt_buf_str(&src), &err);
    rt_buf_free(&src);
    if (!t)
        return rt_error_reply("UsageError", "%%%%speedup: --check %s,%s%s%s: cannot compare them: %s",
                           c->cpu, c->gpu, c->count[0] ? ":" : "", c->count, err.text);
    compare_t cmp = {.fn = (void (*)(double *))rt_tcc_symbol(t, "__gpuc_speedup_check"),
                     .r = {o->rtol, o->atol, INFINITY}};
    rt_fault_t fault;
    int sig = cmp.fn ? rt_protect_run(run_compare, &cmp, &fault) : 0;
    rt_tcc_free(t);
    if (sig > 0)
        return rt_session_fault_reply(s, cell_no, &fault);
    const double *r = cmp.r;
    row->max_abs = fmax(row->max_abs, r[4]);
    row->max_rel = fmax(row->max_rel, r[5]);
    if (r[6] == 0)
        return NULL;
    char at[64] = "";
    if (c->count[0])
        snprintf(at, sizeof at, " (at [%.0f])", r[7]);
    char where[96] = "";
    if (o->nsizes)
        snprintf(where, sizeof where, " at %s = %ld", o->var, size);
    return rt_error_reply("SpeedupMismatch",
                       "%s and %s differ%s: %.0f of %.0f %s beyond rtol %g, atol %g: "
                       "max abs diff %.6g%s, max rel diff %.6g",
                       c->cpu, c->gpu, where, r[6], r[3],
                       r[9] == 1 ? "float values" : r[9] == 2 ? "double values" : "values",
                       r[8], o->atol, r[4], at, r[5]);
}

/* ---- one size ------------------------------------------------------- */

static json_t *time_section(rt_session_t *s, rt_tcc_t *t, long loops, int runs, int cell_no,
                            rt_timeit_run_t *out)
{
    memset(out, 0, sizeof *out);
    out->loops = loops;
    out->runs = runs;
    out->kernel_clock = 1; /* the "GPU kernels" row: kernels alone, copies left out */
    return rt_timeit_measure(s, t, out, cell_no);
}

static json_t *run_size(rt_session_t *s, const char *code, const opts_t *o, const section_t *sec,
                        long size, int cell_no, row_t *row)
{
    json_t *reply = sec[SETUP].present ? run_cell_text(s, code, &sec[SETUP], cell_no) : NULL;
    if (reply)
        return reply;
    rt_tcc_t *t[NSECTIONS] = {NULL};
    double tc;
    for (int k = CPU; k <= GPU && !reply; k++)
        t[k] = rt_timeit_compile(s, code, sec[k].from, sec[k].to, sec[k].line, cell_no, &tc,
                                 &reply);
    rt_timeit_run_t run;
    if (!reply && o->nchecks) { /* one run of each, then compare */
        for (int k = CPU; k <= GPU && !reply; k++)
            reply = time_section(s, t[k], 1, 1, cell_no, &run);
        for (int i = 0; i < o->nchecks && !reply; i++)
            reply = check_one(s, &o->checks[i], o, size, cell_no, row);
    }
    if (!reply && !(reply = time_section(s, t[CPU], o->loops, o->runs, cell_no, &run))) {
        rt_timeit_stats(run.all, run.runs, run.loops, &row->cpu, &row->cpu_std);
        row->cpu_loops = run.loops;
    }
    if (!reply && !(reply = time_section(s, t[GPU], o->loops, o->runs, cell_no, &run))) {
        rt_timeit_stats(run.all, run.runs, run.loops, &row->wall, &row->wall_std);
        row->gpu_loops = run.loops;
        if ((row->gpu_work = run.gpu_work))
            rt_timeit_stats(run.kernel, run.runs, run.loops, &row->kernel, &row->kernel_std);
    }
    row->size = size;
    for (int k = CPU; k <= GPU; k++)
        if (t[k])
            rt_tcc_free(t[k]);
    return reply;
}

/* ---- the CPU side's compiler ------------------------------------------ */

/* Non-zero when the CPU section calls a function that %%cc compiled: its
 * code lies in one of the shared objects rt_cc loads from its folder. */
static int cpu_calls_cc(rt_session_t *s, const char *code, const section_t *sec)
{
    for (size_t p = sec->from; p < sec->to;) {
        if (!(isalpha((unsigned char)code[p]) || code[p] == '_')) {
            p++;
            continue;
        }
        size_t w = p;
        while (w < sec->to && (isalnum((unsigned char)code[w]) || code[w] == '_'))
            w++;
        size_t q = w;
        while (q < sec->to && isspace((unsigned char)code[q]))
            q++;
        if (q < sec->to && code[q] == '(' && w - p < NAME_MAX_LEN) {
            char name[NAME_MAX_LEN];
            snprintf(name, sizeof name, "%.*s", (int)(w - p), code + p);
            void *addr = rt_session_symbol(s, name);
            Dl_info info;
            if (addr && dladdr(addr, &info) && info.dli_fname &&
                strstr(info.dli_fname, "/gpuc-cc-"))
                return 1;
        }
        p = w;
    }
    return 0;
}

/* ---- output --------------------------------------------------------- */

static const char tcc_note[] =
    "CPU side compiled by TCC (unoptimised): use %%cc for an -O2 baseline";

static void fmt_time(double t, char *buf, size_t len)
{
    rt_timeit_format(t, buf, len);
}

static void fmt_ratio(double num, double den, char *buf, size_t len)
{
    if (den > 0 && num > 0)
        snprintf(buf, len, "%.3g\xc3\x97", num / den); /* × */
    else
        snprintf(buf, len, "-");
}

/* "3.2e4" for large sizes, "500" for small. */
static void fmt_size(double n, char *buf, size_t len)
{
    if (n < 1e4) {
        snprintf(buf, len, "%.0f", n);
        return;
    }
    int e = (int)floor(log10(n));
    double mant = n / pow(10, e);
    if (mant >= 9.95) {
        mant /= 10;
        e++;
    }
    if (fabs(mant - 1) < 0.05)
        snprintf(buf, len, "1e%d", e);
    else
        snprintf(buf, len, "%.2ge%d", mant, e);
}

/* text, then blanks up to width characters (UTF-8 aware, unlike %-Ns). */
static void pad(rt_buf_t *b, const char *text, int width)
{
    int chars = 0;
    for (const char *p = text; *p; p++)
        chars += ((unsigned char)*p & 0xC0) != 0x80;
    rt_buf_adds(b, text);
    for (; chars < width; chars++)
        rt_buf_addc(b, ' ');
}

static void add_check_line(rt_buf_t *b, const opts_t *o, const row_t *rows, int n, int html)
{
    if (!o->nchecks)
        return;
    double ma = 0, mr = 0;
    for (int i = 0; i < n; i++) {
        ma = fmax(ma, rows[i].max_abs);
        mr = fmax(mr, rows[i].max_rel);
    }
    rt_buf_adds(b, html ? "<p>Results agree: " : "Results agree: ");
    for (int i = 0; i < o->nchecks; i++)
        rt_buf_addf(b, "%s%s = %s", i ? ", " : "", o->checks[i].cpu, o->checks[i].gpu);
    rt_buf_addf(b, " (max abs diff %.3g, max rel diff %.3g)%s\n", ma, mr, html ? "</p>" : "");
}

static void add_loops_line(rt_buf_t *b, const opts_t *o, const row_t *r, int html)
{
    char c[32], g[32];
    snprintf(c, sizeof c, "%ld", r->cpu_loops);
    snprintf(g, sizeof g, "%ld", r->gpu_loops);
    rt_buf_addf(b, "%sper run: mean \xc2\xb1 std. dev. of %d run%s; CPU %s loop%s each, GPU %s "
                "loop%s each%s\n", html ? "<p>" : "", o->runs, o->runs == 1 ? "" : "s", c,
                r->cpu_loops == 1 ? "" : "s", g, r->gpu_loops == 1 ? "" : "s",
                html ? "</p>" : "");
}

/* One display of data (stolen), to the session's frontend. */
static void display(rt_session_t *s, json_t *data, const char *id, int update)
{
    rt_display_set_emit(s->emit, s->emit_ctx);
    rt_display_bundle(data, id, update);
    rt_display_set_emit(NULL, NULL);
}

/* Ends both forms of a result (the TCC note last), shows them as one
 * display, and frees them. */
static void show_table(rt_session_t *s, rt_buf_t *h, rt_buf_t *t, int tcc)
{
    for (int html = 0; html < 2; html++)
        if (tcc)
            rt_buf_addf(html ? h : t, "%sNote: %s%s\n", html ? "<p>" : "", tcc_note,
                        html ? "</p>" : "");
    display(s, json_pack("{s:s, s:s}", "text/html", rt_buf_str(h), "text/plain", rt_buf_str(t)),
            NULL, 0);
    rt_buf_free(h);
    rt_buf_free(t);
}

static void show_one(rt_session_t *s, const opts_t *o, const row_t *r, int tcc)
{
    char cpu[64], cpu_sd[64], wall[64], wall_sd[64], kern[64], kern_sd[64], sk[32], sw[32];
    fmt_time(r->cpu, cpu, sizeof cpu);
    fmt_time(r->cpu_std, cpu_sd, sizeof cpu_sd);
    fmt_time(r->wall, wall, sizeof wall);
    fmt_time(r->wall_std, wall_sd, sizeof wall_sd);
    fmt_time(r->kernel, kern, sizeof kern);
    fmt_time(r->kernel_std, kern_sd, sizeof kern_sd);
    fmt_ratio(r->cpu, r->gpu_work ? r->kernel : 0, sk, sizeof sk);
    fmt_ratio(r->cpu, r->wall, sw, sizeof sw);
    char kcell[160];
    if (r->gpu_work)
        snprintf(kcell, sizeof kcell, "%s \xc2\xb1 %s", kern, kern_sd);
    else
        snprintf(kcell, sizeof kcell, "no GPU work");
    rt_buf_t h = {0}, t = {0};
    rt_buf_addf(&h, "<table class=\"gpuc-speedup\">\n<tr><th></th><th>time per run</th>"
                "<th>speedup</th></tr>\n"
                "<tr><td>CPU</td><td>%s \xc2\xb1 %s</td><td></td></tr>\n"
                "<tr><td>GPU kernels (CUDA events)</td><td>%s</td><td>%s</td></tr>\n"
                "<tr><td>GPU with transfers (wall)</td><td>%s \xc2\xb1 %s</td><td>%s</td></tr>\n"
                "</table>\n", cpu, cpu_sd, kcell, sk, wall, wall_sd, sw);
    char ccell[160], wcell[160];
    snprintf(ccell, sizeof ccell, "%s \xc2\xb1 %s", cpu, cpu_sd);
    snprintf(wcell, sizeof wcell, "%s \xc2\xb1 %s", wall, wall_sd);
    const char *lines[4][3] = {{"", "time per run", "speedup"}, {"CPU", ccell, ""},
                               {"GPU kernels (CUDA events)", kcell, sk},
                               {"GPU with transfers (wall)", wcell, sw}};
    for (int i = 0; i < 4; i++) {
        pad(&t, lines[i][0], 28);
        pad(&t, lines[i][1], *lines[i][2] ? 26 : 0);
        rt_buf_addf(&t, "%s\n", lines[i][2]);
    }
    for (int html = 0; html < 2; html++) {
        rt_buf_t *b = html ? &h : &t;
        add_loops_line(b, o, r, html);
        add_check_line(b, o, r, 1, html);
    }
    show_table(s, &h, &t, tcc);
}

/* The first size from which the GPU section (wall time) stays faster,
 * interpolated on log scales between the last slower size and it; 0 when
 * it is faster at every size, -1 when not at the last one. */
static double crossover(const row_t *r, int n)
{
    int i = n;
    while (i > 0 && r[i - 1].wall > 0 && r[i - 1].cpu > r[i - 1].wall)
        i--;
    if (i == n)
        return -1;
    if (i == 0)
        return 0;
    double s0 = log10(r[i - 1].cpu / r[i - 1].wall), s1 = log10(r[i].cpu / r[i].wall);
    double x0 = log10((double)r[i - 1].size), x1 = log10((double)r[i].size);
    double f = s1 > s0 ? -s0 / (s1 - s0) : 1;
    return pow(10, x0 + f * (x1 - x0));
}

typedef struct axis {
    double lo, hi; /* decades (log10) */
    double p0, p1; /* pixels */
} axis_t;

static void axis_fit(axis_t *a, double lo, double hi, double p0, double p1)
{
    a->lo = floor(log10(lo));
    a->hi = ceil(log10(hi));
    if (a->hi <= a->lo)
        a->hi = a->lo + 1;
    a->p0 = p0;
    a->p1 = p1;
}

static double axis_at(const axis_t *a, double v)
{
    return a->p0 + (log10(v) - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* Axes, decade grid and labels of one panel. */
static void svg_panel(rt_buf_t *b, const axis_t *x, const axis_t *y, const char *title,
                      const char *var, int times)
{
    rt_buf_addf(b, "<text x=\"%.0f\" y=\"18\" text-anchor=\"middle\" font-weight=\"bold\">%s"
                "</text>\n", (x->p0 + x->p1) / 2, title);
    for (double e = x->lo; e <= x->hi; e++) {
        double px = axis_at(x, pow(10, e));
        rt_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1e%.0f</text>\n", px,
                    y->p0, px, y->p1, px, y->p0 + 16, e);
    }
    for (double e = y->lo; e <= y->hi; e++) {
        double py = axis_at(y, pow(10, e));
        char label[64];
        if (times)
            rt_timeit_format(pow(10, e), label, sizeof label);
        else
            snprintf(label, sizeof label, "%g\xc3\x97", pow(10, e));
        rt_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", x->p0, py,
                    x->p1, py, x->p0 - 4, py + 4, label);
    }
    rt_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                "stroke=\"#444\"/>\n<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
                x->p0, y->p1, x->p1 - x->p0, y->p0 - y->p1, (x->p0 + x->p1) / 2, y->p0 + 32, var);
}

/* One line of values v[0..n) (0 = none) against the rows' sizes. */
static void svg_line(rt_buf_t *b, const axis_t *x, const axis_t *y, const row_t *r,
                     const double *v, int n, const char *colour, const char *cls,
                     const char *name, int legend)
{
    rt_buf_addf(b, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                "points=\"", cls, colour);
    for (int i = 0; i < n; i++)
        if (v[i] > 0)
            rt_buf_addf(b, "%.1f,%.1f ", axis_at(x, (double)r[i].size), axis_at(y, v[i]));
    rt_buf_adds(b, "\"/>\n");
    for (int i = 0; i < n; i++)
        if (v[i] > 0)
            rt_buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                        axis_at(x, (double)r[i].size), axis_at(y, v[i]), colour);
    double ly = y->p1 + 14 + 14 * legend;
    rt_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x->p0 + 8, ly - 4,
                x->p0 + 28, ly - 4, colour, x->p0 + 32, ly, name);
}

static char *chart(const opts_t *o, const row_t *r, int n, double cross, int any_gpu)
{
    double cpu[MAX_SIZES], wall[MAX_SIZES], kern[MAX_SIZES], sw[MAX_SIZES], sk[MAX_SIZES];
    double tmin = INFINITY, tmax = 0, smin = 1, smax = 1;
    for (int i = 0; i < n; i++) {
        cpu[i] = r[i].cpu;
        wall[i] = r[i].wall;
        kern[i] = r[i].gpu_work ? r[i].kernel : 0;
        sw[i] = r[i].wall > 0 ? r[i].cpu / r[i].wall : 0;
        sk[i] = kern[i] > 0 ? r[i].cpu / kern[i] : 0;
        const double *vals[] = {&cpu[i], &wall[i], &kern[i]};
        for (int k = 0; k < 3; k++)
            if (*vals[k] > 0) {
                tmin = fmin(tmin, *vals[k]);
                tmax = fmax(tmax, *vals[k]);
            }
        const double *sp[] = {&sw[i], &sk[i]};
        for (int k = 0; k < 2; k++)
            if (*sp[k] > 0) {
                smin = fmin(smin, *sp[k]);
                smax = fmax(smax, *sp[k]);
            }
    }
    if (!(tmax > 0))
        tmin = 1e-9, tmax = 1;
    axis_t x1, y1, x2, y2;
    axis_fit(&x1, (double)r[0].size, (double)r[n - 1].size, 80, 370);
    axis_fit(&y1, tmin, tmax, 270, 30);
    axis_fit(&x2, (double)r[0].size, (double)r[n - 1].size, 480, 770);
    axis_fit(&y2, smin, smax, 270, 30);
    rt_buf_t b = {0};
    rt_buf_adds(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" height=\"320\" "
                    "viewBox=\"0 0 800 320\" font-family=\"sans-serif\" font-size=\"11\">\n"
                    "<rect width=\"800\" height=\"320\" fill=\"white\"/>\n");
    svg_panel(&b, &x1, &y1, "time per run", o->var, 1);
    svg_panel(&b, &x2, &y2, "speedup (CPU / GPU)", o->var, 0);
    double one = axis_at(&y2, 1);
    rt_buf_addf(&b, "<line class=\"break-even\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n", x2.p0, one, x2.p1, one);
    svg_line(&b, &x1, &y1, r, cpu, n, "#1f77b4", "cpu", "CPU", 0);
    svg_line(&b, &x1, &y1, r, wall, n, "#d62728", "gpu-wall", "GPU with transfers", 1);
    if (any_gpu)
        svg_line(&b, &x1, &y1, r, kern, n, "#2ca02c", "gpu-kernel", "GPU kernels", 2);
    svg_line(&b, &x2, &y2, r, sw, n, "#d62728", "speedup-wall", "speedup, GPU with transfers", 0);
    if (any_gpu)
        svg_line(&b, &x2, &y2, r, sk, n, "#2ca02c", "speedup-kernel", "speedup, GPU kernels", 1);
    if (cross > 0) {
        char size[32];
        fmt_size(cross, size, sizeof size);
        for (int p = 0; p < 2; p++) {
            const axis_t *x = p ? &x2 : &x1, *y = p ? &y2 : &y1;
            double px = axis_at(x, cross);
            rt_buf_addf(&b, "<line class=\"crossover\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                        "y2=\"%.1f\" stroke=\"#000\" stroke-dasharray=\"6 3\"/>\n"
                        "<text class=\"crossover\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
                        "GPU wins from %s \xe2\x89\x88 %s</text>\n",
                        px, y->p0, px, y->p1, px, y->p0 - 6, o->var, size);
        }
    }
    rt_buf_adds(&b, "</svg>\n");
    return rt_buf_steal(&b);
}

static void show_sweep(rt_session_t *s, const opts_t *o, const row_t *r, int n, int tcc)
{
    int any_gpu = 0;
    for (int i = 0; i < n; i++)
        any_gpu |= r[i].gpu_work;
    double cross = crossover(r, n);
    char where[160], size[32];
    if (cross > 0) {
        fmt_size(cross, size, sizeof size);
        snprintf(where, sizeof where, "GPU (with transfers) wins from %s \xe2\x89\x88 %s", o->var,
                 size);
    } else if (cross == 0) {
        snprintf(where, sizeof where, "GPU (with transfers) faster at every size");
    } else {
        fmt_size((double)r[n - 1].size, size, sizeof size);
        snprintf(where, sizeof where, "GPU (with transfers) not faster at %s = %s", o->var, size);
    }
    char *svg = chart(o, r, n, cross, any_gpu);
    char alt[400];
    snprintf(alt, sizeof alt, "<SVG chart: CPU and GPU time and speedup against %s; %s>", o->var,
             where);
    display(s, json_pack("{s:s, s:s}", "image/svg+xml", svg, "text/plain", alt), NULL, 0);
    free(svg);
    rt_buf_t h = {0}, t = {0};
    rt_buf_addf(&h, "<table class=\"gpuc-speedup\">\n<tr><th>%s</th><th>CPU</th>"
                "<th>GPU kernels</th><th>GPU with transfers</th><th>speedup (kernels)</th>"
                "<th>speedup (with transfers)</th></tr>\n", o->var);
    const char *head[] = {o->var, "CPU", "GPU kernels", "GPU w/ transfers", "speedup (kernels)"};
    const int widths[] = {12, 14, 14, 20, 20};
    for (int i = 0; i < 5; i++)
        pad(&t, head[i], widths[i]);
    rt_buf_adds(&t, "speedup (w/ transfers)\n");
    for (int i = 0; i < n; i++) {
        char c[64], k[64], w[64], sk[32], sw[32];
        fmt_size((double)r[i].size, size, sizeof size);
        fmt_time(r[i].cpu, c, sizeof c);
        if (r[i].gpu_work)
            fmt_time(r[i].kernel, k, sizeof k);
        else
            snprintf(k, sizeof k, "no GPU work");
        fmt_time(r[i].wall, w, sizeof w);
        fmt_ratio(r[i].cpu, r[i].gpu_work ? r[i].kernel : 0, sk, sizeof sk);
        fmt_ratio(r[i].cpu, r[i].wall, sw, sizeof sw);
        rt_buf_addf(&h, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                    "</tr>\n", size, c, k, w, sk, sw);
        pad(&t, size, 12);
        pad(&t, c, 14);
        pad(&t, k, 14);
        pad(&t, w, 20);
        pad(&t, sk, 20);
        rt_buf_addf(&t, "%s\n", sw);
    }
    rt_buf_adds(&h, "</table>\n");
    for (int html = 0; html < 2; html++) {
        rt_buf_t *b = html ? &h : &t;
        rt_buf_addf(b, "%s%s%s\n", html ? "<p>" : "", where, html ? "</p>" : "");
        rt_buf_addf(b, "%stimes per run: mean of %d run%s%s\n", html ? "<p>" : "", o->runs,
                    o->runs == 1 ? "" : "s", html ? "</p>" : "");
        add_check_line(b, o, r, n, html);
    }
    show_table(s, &h, &t, tcc);
}

static void progress(rt_session_t *s, const char *id, int update, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void progress(rt_session_t *s, const char *id, int update, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    display(s, json_pack("{s:s}", "text/plain", text), id, update);
}

/* ---- the magic ------------------------------------------------------ */

json_t *rt_speedup_magic(rt_session_t *s, const char *code, const rt_magic_line_t *m,
                         int cell_no)
{
    opts_t o;
    section_t sec[NSECTIONS];
    json_t *reply = parse_opts(code, m, &o);
    if (!reply)
        reply = find_sections(code, m, sec);
    if (reply)
        return reply;
    int n = o.nsizes ? o.nsizes : 1;
    row_t rows[MAX_SIZES];
    memset(rows, 0, sizeof rows);
    static unsigned serial;
    char id[64];
    snprintf(id, sizeof id, "gpuc-speedup-%d-%u", cell_no, ++serial);
    double t0 = now();
    for (int i = 0; i < n && !reply; i++) {
        if (o.nsizes) {
            char size[32];
            fmt_size((double)o.sizes[i], size, sizeof size);
            progress(s, id, i > 0, "%%%%speedup: size %d/%d: %s = %s \xe2\x80\xa6", i + 1, n, o.var,
                     size);
            reply = set_size(s, o.var, o.sizes[i], cell_no);
        }
        if (!reply)
            reply = run_size(s, code, &o, sec, o.nsizes ? o.sizes[i] : 0, cell_no, &rows[i]);
        if (reply && o.nsizes)
            progress(s, id, 1, "%%%%speedup: stopped at size %d/%d", i + 1, n);
    }
    if (reply)
        return reply;
    int tcc = !cpu_calls_cc(s, code, &sec[CPU]);
    if (o.nsizes) {
        progress(s, id, 1, "%%%%speedup: done: %d sizes in %.1f s", n, now() - t0);
        show_sweep(s, &o, rows, n, tcc);
    } else {
        show_one(s, &o, rows, tcc);
    }
    return NULL;
}
