/* rt_speedup: %%speedup (see rt_speedup.h). */
#include "rt_speedup.h"
#include "rt_magic.h"

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bk.h"
#include "cm_buf.h"
#include "cm_time.h"
#include "ga_copy.h"
#include "ga_eval.h"
#include "ga_map.h"
#include "gpu.h"
#include "rt_chart.h"
#include "rt_session_defs.h"
#include "rt_tcc.h"
#include "rt_timeit.h"
#include "rt_segment.h"

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
    int devices;            /* --devices: the //%% run section on the CPU backend, then a GPU */
    int gpu;                /* --devices: the GPU (where new arrays go) */
    int no_gpu;             /* --devices where new arrays go to host memory: the CPU column only */
} opts_t;

enum { SETUP, CPU, GPU, RUN, NSECTIONS };
static const char *const section_names[NSECTIONS] = {"setup", "cpu", "gpu", "run"};

typedef struct section {
    int present;
    size_t from, to; /* code[from, to) */
    int line;        /* the cell line `from` is on */
} section_t;

typedef struct row {
    long size;
    rt_speedup_time_t cpu;    /* seconds per run */
    rt_speedup_time_t wall;   /* the GPU section's wall time per run */
    rt_speedup_time_t kernel; /* its GPU time per run by CUDA events; 0 without gpu_work */
    int gpu_work;
    long cpu_loops, gpu_loops;
    double max_abs, max_rel;  /* over the checks */
} row_t;


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

#define USAGE "%%%%speedup [--devices] [--check CPU,GPU[:COUNT] | --check ARRAY]... [--rtol R] " \
              "[--atol A] [--sizes S,S,...] [--var NAME] [-n N] [-r R]"

static int parse_check(const char *v, opts_t *o, rt_error_t *err)
{
    if (o->nchecks == MAX_CHECKS)
        return rt_error_set(err, "UsageError", 0, 0, "%%%%speedup: at most %d --check", MAX_CHECKS);
    check_t *c = &o->checks[o->nchecks++];
    const char *comma = strchr(v, ','), *colon = strchr(v, ':');
    if (!comma && !colon && is_identifier(v, strlen(v))) { /* --devices: one array variable */
        snprintf(c->cpu, sizeof c->cpu, "%s", v);
        return 0;
    }
    const char *gpu_end = colon ? colon : v + strlen(v);
    if (!comma || comma > gpu_end || !is_identifier(v, (size_t)(comma - v)) ||
        !is_identifier(comma + 1, (size_t)(gpu_end - comma - 1)) ||
        (colon && (!colon[1] || strlen(colon + 1) >= sizeof c->count)))
        return rt_error_set(err, "UsageError", 0, 0, "%%%%speedup: --check %s: expected CPU_NAME,GPU_NAME or "
                           "CPU_NAME,GPU_NAME:COUNT (session variables; COUNT elements of "
                           "arrays or pointers)", v);
    snprintf(c->cpu, sizeof c->cpu, "%.*s", (int)(comma - v), v);
    snprintf(c->gpu, sizeof c->gpu, "%.*s", (int)(gpu_end - comma - 1), comma + 1);
    snprintf(c->count, sizeof c->count, "%s", colon ? colon + 1 : "");
    return 0;
}

static int parse_sizes(const char *v, opts_t *o, rt_error_t *err)
{
    const char *p = v;
    while (*p) {
        char *e;
        double d = strtod(p, &e);
        if (e == p || (*e && *e != ',') || !(d >= 1 && d <= 1e18) || o->nsizes == MAX_SIZES)
            return rt_error_set(err, "UsageError", 0, 0, "%%%%speedup: --sizes %s: expected up to %d sizes "
                               "from 1 to 1e18, separated by commas (1e3,1e4,1e5)", v,
                               MAX_SIZES);
        o->sizes[o->nsizes++] = (long)llround(d);
        p = *e ? e + 1 : e;
    }
    return 0;
}

static int parse_number(const char *flag, const char *v, double lo, double hi, double *out,
                        rt_error_t *err)
{
    char *e;
    double d = strtod(v, &e);
    if (e == v || *e || !(d >= lo && d <= hi))
        return rt_error_set(err, "UsageError", 0, 0, "%%%%speedup: %s %s: expected a number from %g to %g",
                           flag, v, lo, hi);
    *out = d;
    return 0;
}

/* Reads the magic line's options: words separated by blanks, values after
 * a blank or an '=' (--sizes=1e3,1e4). */
static int parse_opts(const char *code, const rt_magic_line_t *m, opts_t *o, rt_error_t *err)
{
    memset(o, 0, sizeof *o);
    o->rtol = -1;
    o->runs = 7;
    snprintf(o->var, sizeof o->var, "N");
    char *args = cm_strndup(code + m->args, m->args_len);
    char *words[64];
    int n = 0;
    for (char *save, *w = strtok_r(args, " \t", &save); w && n < 64; w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char *flag = words[i], *v = strchr(flag, '=');
        if (v && strncmp(flag, "--", 2) == 0)
            *v++ = '\0';
        else
            v = NULL;
        static const char *const known[] = {"--check", "--rtol", "--atol", "--sizes",
                                            "--var", "-n", "-r", "--devices"};
        int k = -1;
        for (int j = 0; j < 8; j++)
            if (strcmp(flag, known[j]) == 0)
                k = j;
        if (k == 7) { /* a switch: no value */
            o->devices = 1;
            continue;
        }
        if (k < 0) {
            rc = rt_error_set(err, "UsageError", 0, 0, "%%%%speedup: option %s not recognized (usage: "
                              USAGE ")", flag);
            break;
        }
        if (!v && (v = i + 1 < n ? words[++i] : NULL) == NULL) {
            rc = rt_error_set(err, "UsageError", 0, 0, "%%%%speedup: %s needs a value (usage: " USAGE ")",
                              flag);
            break;
        }
        double d = 0;
        switch (k) {
        case 0: rc = parse_check(v, o, err); break;
        case 1: rc = parse_number(flag, v, 0, 1, &o->rtol, err); break;
        case 2: rc = parse_number(flag, v, 0, 1e300, &o->atol, err); break;
        case 3: rc = parse_sizes(v, o, err); break;
        case 4:
            if (!is_identifier(v, strlen(v)))
                rc = rt_error_set(err, "UsageError", 0, 0, "%%%%speedup: --var %s: expected a C name", v);
            else
                snprintf(o->var, sizeof o->var, "%s", v);
            break;
        case 5:
            if ((rc = parse_number(flag, v, 1, 1e18, &d, err)) == 0)
                o->loops = (long)d;
            break;
        default:
            if ((rc = parse_number(flag, v, 1, RT_TIMEIT_RUNS_MAX, &d, err)) == 0)
                o->runs = (int)d;
            break;
        }
    }
    free(args);
    for (int i = 0; i < o->nchecks && rc == 0; i++)
        if (!o->checks[i].gpu[0] != !!o->devices)
            rc = rt_error_set(err, "UsageError", 0, 0, o->devices
                              ? "%%%%speedup --devices: --check %s: name one array variable the "
                                "//%%%% run section writes"
                              : "%%%%speedup: --check %s: expected CPU_NAME,GPU_NAME (one name "
                                "is for --devices)", o->checks[i].cpu);
    return rc;
}

/* ---- sections ------------------------------------------------------- */

/* Splits the cell below the magic line at its `//%% NAME` lines. */
static int find_sections(const char *code, const rt_magic_line_t *m, int devices, section_t *sec,
                         rt_error_t *err)
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
                return rt_error_set(err, "UsageError", 0, 0, "cell line %d: %%%%speedup: unknown section "
                                   "'%.*s' (sections: //%%%% setup, //%%%% cpu, //%%%% gpu, //%%%% run)",
                                   line, (int)(w - q), code + q);
            if (sec[k].present)
                return rt_error_set(err, "UsageError", 0, 0, "cell line %d: %%%%speedup: a second //%%%% %s "
                                   "section", line, section_names[k]);
            if (current >= 0)
                sec[current].to = start;
            current = k;
            sec[k].present = 1;
            sec[k].from = code[eol] ? eol + 1 : eol;
            sec[k].line = line + 1;
        } else if (current < 0 && q < eol) {
            return rt_error_set(err, "UsageError", 0, 0, "cell line %d: %%%%speedup: code before the first "
                               "section; start it with //%%%% setup, //%%%% cpu or //%%%% gpu",
                               line);
        }
        p = code[eol] ? eol + 1 : eol;
        line++;
    }
    if (current >= 0)
        sec[current].to = p;
    if (devices && (sec[CPU].present || sec[GPU].present || !sec[RUN].present))
        return rt_error_set(err, "UsageError", 0, 0, "%%%%speedup --devices: the cell has an optional "
                           "//%%%% setup section and a //%%%% run section, which runs on the CPU "
                           "backend and then on the GPU (no //%%%% cpu or //%%%% gpu)");
    if (!devices && (!sec[CPU].present || !sec[GPU].present || sec[RUN].present))
        return rt_error_set(err, "UsageError", 0, 0, "%%%%speedup: the cell needs a //%%%% cpu section and a "
                           "//%%%% gpu section (//%%%% run is for --devices) (usage: " USAGE ")");
    return 0;
}

/* Runs cell[sec) as a segment of the cell read once into cell (its
 * declarations stay; a result of the setup is not shown). */
static int run_section(rt_session_t *s, const rt_tokens_t *cell, const section_t *sec,
                       int cell_no, rt_error_t *err)
{
    rt_segment_t seg = rt_segment_of_tokens(cell, sec->from, sec->to, sec->line, cell_no);
    int rc = rt_session_run(s, &seg, err);
    rt_value_t shown;
    rt_session_take_result(s, &shown);
    rt_value_free(&shown);
    return rc;
}

static int set_size(rt_session_t *s, const char *var, long size, int cell_no, rt_error_t *err)
{
    cm_buf_t b = {0};
    if (!rt_session_symbol(s, var))
        cm_buf_addf(&b, "long %s;\n", var);
    cm_buf_addf(&b, "%s = %ld;\n", var, size);
    int rc = rt_session_run_text(s, cm_buf_str(&b), cell_no, err);
    cm_buf_free(&b);
    return rc;
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
 * by their element type. 0, or -1 with err set. */
static int check_one(rt_session_t *s, const check_t *c, const opts_t *o, long size,
                     int cell_no, row_t *row, rt_error_t *err)
{
    char a[NAME_MAX_LEN + 8], b[NAME_MAX_LEN + 8];
    snprintf(a, sizeof a, c->count[0] ? "(%s)" : "(&%s)", c->cpu);
    snprintf(b, sizeof b, c->count[0] ? "(%s)" : "(&%s)", c->gpu);
    cm_buf_t src = {0};
    cm_buf_addf(&src,
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
    cm_error_t e = {0};
    rt_tcc_t *t = rt_session_compile_aux(s, cm_buf_str(&src), &e);
    cm_buf_free(&src);
    if (!t)
        return rt_error_set(err, "UsageError", 0, 0,
                            "%%%%speedup: --check %s,%s%s%s: cannot compare them: %s", c->cpu,
                            c->gpu, c->count[0] ? ":" : "", c->count, e.text);
    compare_t cmp = {.fn = (void (*)(double *))rt_tcc_symbol(t, "__gpuc_speedup_check"),
                     .r = {o->rtol, o->atol, INFINITY}};
    int rc = cmp.fn ? rt_session_protect(s, run_compare, &cmp, cell_no, err) : 0;
    rt_tcc_free(t);
    if (rc != 0) /* 1 cannot be: the comparison is gpuc's, it never exits */
        return rt_error_set(err, "SpeedupMismatch", 0, 0, "%s and %s: the comparison stopped",
                            c->cpu, c->gpu);
    const double *r = cmp.r;
    row->max_abs = fmax(row->max_abs, r[4]);
    row->max_rel = fmax(row->max_rel, r[5]);
    if (r[6] == 0)
        return 0;
    char at[64] = "";
    if (c->count[0])
        snprintf(at, sizeof at, " (at [%.0f])", r[7]);
    char where[96] = "";
    if (o->nsizes)
        snprintf(where, sizeof where, " at %s = %ld", o->var, size);
    return rt_error_set(err, "SpeedupMismatch", 0, 0,
                       "%s and %s differ%s: %.0f of %.0f %s beyond rtol %g, atol %g: "
                       "max abs diff %.6g%s, max rel diff %.6g",
                       c->cpu, c->gpu, where, r[6], r[3],
                       r[9] == 1 ? "float values" : r[9] == 2 ? "double values" : "values",
                       r[8], o->atol, r[4], at, r[5]);
}

/* ---- one size ------------------------------------------------------- */

static int time_section(rt_session_t *s, rt_tcc_t *t, long loops, int runs, int cell_no,
                        rt_timeit_run_t *out, rt_error_t *err)
{
    memset(out, 0, sizeof *out);
    out->loops = loops;
    out->runs = runs;
    out->kernel_clock = 1; /* the "GPU kernels" row: kernels alone, copies left out */
    return rt_timeit_measure(s, t, out, cell_no, err);
}

/* Mean, std. dev. and spread per loop of `runs` runs of `loops` loops. */
static rt_speedup_time_t time_of(const double *per_run, int runs, long loops)
{
    rt_speedup_time_t t = {0};
    rt_timeit_stats(per_run, runs, loops, &t.mean, &t.std);
    t.lo = t.hi = per_run[0] / (double)loops;
    for (int i = 1; i < runs; i++) {
        t.lo = fmin(t.lo, per_run[i] / (double)loops);
        t.hi = fmax(t.hi, per_run[i] / (double)loops);
    }
    return t;
}

static int run_size(rt_session_t *s, const rt_tokens_t *cell, const opts_t *o, const section_t *sec,
                    long size, int cell_no, row_t *row, rt_error_t *err)
{
    int rc = sec[SETUP].present ? run_section(s, cell, &sec[SETUP], cell_no, err) : 0;
    if (rc != 0)
        return rc;
    rt_tcc_t *t[NSECTIONS] = {NULL};
    double tc;
    for (int k = CPU; k <= GPU && rc == 0; k++)
        if (!(t[k] = rt_timeit_compile(s, cell, sec[k].from, sec[k].to, sec[k].line, cell_no,
                                       &tc, err)))
            rc = -1;
    rt_timeit_run_t run;
    if (rc == 0 && o->nchecks) { /* one run of each, then compare */
        for (int k = CPU; k <= GPU && rc == 0; k++)
            rc = time_section(s, t[k], 1, 1, cell_no, &run, err);
        for (int i = 0; i < o->nchecks && rc == 0; i++)
            rc = check_one(s, &o->checks[i], o, size, cell_no, row, err);
    }
    if (rc == 0 && (rc = time_section(s, t[CPU], o->loops, o->runs, cell_no, &run, err)) == 0) {
        row->cpu = time_of(run.all, run.runs, run.loops);
        row->cpu_loops = run.loops;
    }
    if (rc == 0 && (rc = time_section(s, t[GPU], o->loops, o->runs, cell_no, &run, err)) == 0) {
        row->wall = time_of(run.all, run.runs, run.loops);
        row->gpu_loops = run.loops;
        if ((row->gpu_work = run.gpu_work))
            row->kernel = time_of(run.kernel, run.runs, run.loops);
    }
    row->size = size;
    for (int k = CPU; k <= GPU; k++)
        if (t[k])
            rt_tcc_free(t[k]);
    return rc;
}

/* ---- --devices: one section on the CPU backend, then on a GPU ---------- */

/* The CPU backend's results of the --check arrays, kept (on the CPU) to
 * compare the GPU's with. */
static ga_array_t *references[MAX_CHECKS];

static void drop_references(void)
{
    for (int i = 0; i < MAX_CHECKS; i++) {
        if (references[i])
            ga_array_keep(references[i], 0), ga_array_free(references[i]);
        references[i] = NULL;
    }
}

/* The array session variable name holds (NULL with err when it is none). */
static ga_array_t *array_variable(rt_session_t *s, const char *name, rt_error_t *err)
{
    void **slot = rt_session_symbol(s, name);
    ga_array_t *a = slot ? *slot : NULL;
    if (!slot || !ga_array_is_live(a)) {
        rt_error_set(err, "UsageError", 0, 0, "%%%%speedup --devices: --check %s: %s", name,
                     slot ? "it does not hold a live array (ga_t) after the //%% run section"
                          : "no session variable of that name (declare it in //%% setup)");
        return NULL;
    }
    return a;
}

/* Keeps (cpu) or compares (gpu) check i's array: element by element, by
 * the dtype's tolerance, through array math itself. */
static int check_devices(rt_session_t *s, const opts_t *o, int i, int on_gpu, long size, row_t *row,
                         rt_error_t *err)
{
    const char *name = o->checks[i].cpu;
    ga_array_t *a = array_variable(s, name, err);
    if (!a)
        return -1;
    cm_error_t e = {0};
    ga_array_t *host = ga_copy_array(a, GA_CPU, &e);
    if (!host)
        return rt_error_set(err, "SpeedupMismatch", 0, 0, "%s: %s", name, e.text);
    if (!on_gpu) {
        if (references[i])
            ga_array_keep(references[i], 0), ga_array_free(references[i]);
        ga_array_keep(host, 1);
        references[i] = host;
        return 0;
    }
    ga_array_t *ref = references[i];
    char where[96] = "";
    if (o->nsizes)
        snprintf(where, sizeof where, " at %s = %ld", o->var, size);
    int same = ref && ref->ndim == host->ndim && ref->dtype == host->dtype;
    for (int k = 0; same && k < ref->ndim; k++)
        same = ref->shape[k] == host->shape[k];
    if (!same) {
        char d1[160], d2[160];
        ga_array_describe(ref, d1, sizeof d1);
        ga_array_describe(host, d2, sizeof d2);
        ga_array_free(host);
        return rt_error_set(err, "SpeedupMismatch", 0, 0, "%s differs%s: the CPU backend made %s, "
                            "the GPU %s", name, where, d1, d2);
    }
    char k = ga_dtype_kind(ref->dtype);
    double rtol = o->rtol >= 0 ? o->rtol : ref->dtype == GA_F16 ? 1e-3 : ref->dtype == GA_F32 ? 1e-5
                  : k == GA_KIND_FLOAT ? 1e-12 : 0;
    ga_arg_t args[4] = {{.kind = GA_ARG_ARRAY, .a = ref}, {.kind = GA_ARG_ARRAY, .a = host},
                        {.kind = GA_ARG_FLOAT, .f = rtol}, {.kind = GA_ARG_FLOAT, .f = o->atol}};
    static const char *const exprs[3] = {
        "a, b: max((a != a && b != b) ? 0.0 : abs(float64(a) - float64(b)))",
        "a, b: max((a != a && b != b) || a == b ? 0.0 : abs(float64(a) - float64(b)) / abs(float64(a)))",
        ("a, b, rtol, atol: count_nonzero(!((a != a && b != b) || "
         "abs(float64(a) - float64(b)) <= atol + rtol * abs(float64(a))))")};
    double r[3] = {0, 0, 0};
    for (int q = 0; q < 3 && host->size; q++) {
        ga_array_t *v = ga_eval(exprs[q], NULL, q == 2 ? 4 : 2, args, &e);
        int rc = v ? ga_copy_scalar(v, &r[q], &e) : -1;
        ga_array_free(v);
        if (rc != 0) {
            ga_array_free(host);
            return rt_error_set(err, "SpeedupMismatch", 0, 0, "%s: cannot compare: %s", name, e.text);
        }
    }
    int64_t n = host->size;
    ga_array_free(host);
    row->max_abs = fmax(row->max_abs, r[0]);
    row->max_rel = fmax(row->max_rel, r[1]);
    if (r[2] == 0)
        return 0;
    return rt_error_set(err, "SpeedupMismatch", 0, 0,
                        "%s differs between the CPU backend and the GPU%s: %.0f of %lld %s values "
                        "beyond rtol %g, atol %g: max abs diff %.6g, max rel diff %.6g", name, where,
                        r[2], (long long)n, ga_dtype_name(ref->dtype), rtol, o->atol, r[0], r[1]);
}

static int run_size_devices(rt_session_t *s, const rt_tokens_t *cell, const opts_t *o,
                            const section_t *sec, long size, int cell_no, row_t *row,
                            rt_error_t *err)
{
    int rc = 0;
    row->size = size;
    for (int side = 0; side < 2 && rc == 0; side++) {
        int dev = side ? o->gpu : GA_CPU;
        if (side && o->no_gpu)
            break; /* no GPU here: the CPU column only */
        bk_set_default_device(dev);
        if (sec[SETUP].present && (rc = run_section(s, cell, &sec[SETUP], cell_no, err)) != 0)
            break;
        double tc;
        rt_tcc_t *t = rt_timeit_compile(s, cell, sec[RUN].from, sec[RUN].to, sec[RUN].line, cell_no,
                                        &tc, err);
        if (!t)
            return -1;
        rt_timeit_run_t run;
        if (o->nchecks) { /* one run, then keep or compare */
            rc = time_section(s, t, 1, 1, cell_no, &run, err);
            for (int i = 0; i < o->nchecks && rc == 0; i++)
                rc = check_devices(s, o, i, side, size, row, err);
        }
        if (rc == 0 && (rc = time_section(s, t, o->loops, o->runs, cell_no, &run, err)) == 0) {
            if (!side) {
                row->cpu = time_of(run.all, run.runs, run.loops);
                row->cpu_loops = run.loops;
            } else {
                row->wall = time_of(run.all, run.runs, run.loops);
                row->gpu_loops = run.loops;
                if ((row->gpu_work = run.gpu_work))
                    row->kernel = time_of(run.kernel, run.runs, run.loops);
            }
        }
        rt_tcc_free(t);
    }
    return rc;
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

/* ---- the verdict ----------------------------------------------------- */

rt_speedup_verdict_t rt_speedup_compare(rt_speedup_time_t cpu, rt_speedup_time_t gpu)
{
    if (!(cpu.mean >= RT_SPEEDUP_FLOOR) || !(gpu.mean >= RT_SPEEDUP_FLOOR))
        return RT_SPEEDUP_NONE;
    if (gpu.hi < cpu.lo)
        return RT_SPEEDUP_GPU;
    if (cpu.hi < gpu.lo)
        return RT_SPEEDUP_CPU;
    return RT_SPEEDUP_SAME;
}

double rt_speedup_crossover(const double *size, const rt_speedup_time_t *cpu,
                            const rt_speedup_time_t *gpu, int n)
{
    int i = n;
    while (i > 0 && rt_speedup_compare(cpu[i - 1], gpu[i - 1]) == RT_SPEEDUP_GPU)
        i--;
    if (i == n)
        return -1;
    if (i == 0)
        return 0;
    if (rt_speedup_compare(cpu[i - 1], gpu[i - 1]) != RT_SPEEDUP_CPU)
        return size[i]; /* no clear loser before: the first clear win */
    double s0 = log10(cpu[i - 1].mean / gpu[i - 1].mean), s1 = log10(cpu[i].mean / gpu[i].mean);
    double x0 = log10(size[i - 1]), x1 = log10(size[i]);
    double f = s1 > s0 ? -s0 / (s1 - s0) : 1;
    return pow(10, x0 + f * (x1 - x0));
}

double rt_speedup_sweep_verdict(const double *size, const rt_speedup_time_t *cpu,
                                const rt_speedup_time_t *gpu, int n, const char *var, char *buf,
                                size_t len)
{
    double cross = rt_speedup_crossover(size, cpu, gpu, n);
    int clear = 0, measured = 0;
    for (int i = 0; i < n; i++) {
        rt_speedup_verdict_t v = rt_speedup_compare(cpu[i], gpu[i]);
        clear |= v == RT_SPEEDUP_CPU || v == RT_SPEEDUP_GPU;
        measured |= v != RT_SPEEDUP_NONE;
    }
    char at[32];
    rt_chart_format_size(cross > 0 ? cross : size[n - 1], at, sizeof at);
    rt_speedup_verdict_t last = rt_speedup_compare(cpu[n - 1], gpu[n - 1]);
    if (cross > 0)
        snprintf(buf, len, "GPU (with transfers) wins from %s \xe2\x89\x88 %s", var, at);
    else if (cross == 0)
        snprintf(buf, len, "GPU (with transfers) faster at every size");
    else if (!measured)
        snprintf(buf, len, "no verdict: a section does nothing measurable at every size");
    else if (!clear)
        snprintf(buf, len, "GPU (with transfers) and CPU the same within noise at every size");
    else if (last == RT_SPEEDUP_SAME)
        snprintf(buf, len, "GPU (with transfers) and CPU the same within noise at %s = %s", var,
                 at);
    else if (last == RT_SPEEDUP_NONE)
        snprintf(buf, len, "no verdict at %s = %s: a section does nothing measurable", var, at);
    else
        snprintf(buf, len, "GPU (with transfers) not faster at %s = %s", var, at);
    return cross;
}

/* ---- output --------------------------------------------------------- */

static const char tcc_note[] =
    "CPU side compiled by TCC (unoptimised): use %%cc for an -O2 baseline";

/* A speedup cell: CPU / GPU time where one side is faster beyond the
 * noise; "-" when the GPU side was not timed (no kernels). */
static void fmt_speedup(rt_speedup_time_t cpu, rt_speedup_time_t gpu, int timed, char *buf,
                        size_t len)
{
    rt_speedup_verdict_t v = timed ? rt_speedup_compare(cpu, gpu) : RT_SPEEDUP_NONE;
    if (!timed)
        snprintf(buf, len, "-");
    else if (v == RT_SPEEDUP_NONE)
        snprintf(buf, len, "nothing measurable");
    else if (v == RT_SPEEDUP_SAME)
        snprintf(buf, len, "same within noise");
    else
        snprintf(buf, len, "%.3g\xc3\x97", cpu.mean / gpu.mean); /* × */
}

/* Notes on what gives no speedup: a GPU section that launched no kernels,
 * a section under the clock's floor; "at N = 1e2, 1e3" when a sweep
 * has it at some sizes only. */
static void add_section_notes(rt_table_t *t, const opts_t *o, const row_t *r, int n)
{
    char floor[160];
    snprintf(floor, sizeof floor, "does nothing measurable (under %.0f ns per loop: empty, or "
             "compiled away): no speedup", RT_SPEEDUP_FLOOR * 1e9);
    if (o->no_gpu) {
        rt_table_note(t, "No GPU here: the //%%%% run section ran on the CPU backend only; run the "
                      "cell on a GPU machine for the GPU column");
    }
    for (int k = 0; k < 3; k++) {
        if (o->no_gpu && k != 1)
            continue;
        cm_buf_t at = {0};
        int count = 0;
        for (int i = 0; i < n; i++) {
            int hit = k == 0 ? !r[i].gpu_work
                    : k == 1 ? !(r[i].cpu.mean >= RT_SPEEDUP_FLOOR)
                             : !(r[i].wall.mean >= RT_SPEEDUP_FLOOR);
            char z[32];
            rt_chart_format_size((double)r[i].size, z, sizeof z);
            if (hit)
                cm_buf_addf(&at, "%s%s", count++ ? ", " : "", z);
        }
        char where[200] = "";
        if (count > 0 && count < n)
            snprintf(where, sizeof where, "at %s = %s, ", o->var, cm_buf_str(&at));
        cm_buf_free(&at);
        if (count == 0)
            continue;
        if (k == 0)
            rt_table_note(t, "Note: %sthe GPU section launched no kernels: no GPU work, its "
                          "times are host code's", where);
        else
            rt_table_note(t, "Note: %sthe %s section %s", where, k == 1 ? "CPU" : "GPU", floor);
    }
    int simulated = 0;
    for (int i = 0; i < n; i++)
        simulated |= r[i].gpu_work && gpu_simulating();
    if (simulated)
        rt_table_note(t, "Note: the kernels ran on the CUDA simulator, timed unchecked (its "
                      "memcheck is off while %%%%speedup times: docs/simulator.md)");
}

static void add_check_note(rt_table_t *t, const opts_t *o, const row_t *rows, int n)
{
    if (!o->nchecks)
        return;
    double ma = 0, mr = 0;
    for (int i = 0; i < n; i++) {
        ma = fmax(ma, rows[i].max_abs);
        mr = fmax(mr, rows[i].max_rel);
    }
    if (o->no_gpu)
        return; /* nothing to compare with */
    cm_buf_t b = {0};
    for (int i = 0; i < o->nchecks; i++)
        if (o->devices)
            cm_buf_addf(&b, "%s%s on the CPU backend = on the GPU", i ? ", " : "", o->checks[i].cpu);
        else
            cm_buf_addf(&b, "%s%s = %s", i ? ", " : "", o->checks[i].cpu, o->checks[i].gpu);
    rt_table_note(t, "Results agree: %s (max abs diff %.3g, max rel diff %.3g)", cm_buf_str(&b),
                  ma, mr);
    cm_buf_free(&b);
}

/* The TCC note last, then the one display. */
static void show_table(rt_session_t *s, rt_table_t *t, int tcc)
{
    if (tcc)
        rt_table_note(t, "Note: %s", tcc_note);
    rt_table_show(t, s);
}

static void show_one(rt_session_t *s, const opts_t *o, const row_t *r, int tcc)
{
    char cpu[64], cpu_sd[64], wall[64], wall_sd[64], kern[64], kern_sd[64], sk[32], sw[32];
    rt_timeit_format(r->cpu.mean, cpu, sizeof cpu);
    rt_timeit_format(r->cpu.std, cpu_sd, sizeof cpu_sd);
    rt_timeit_format(r->wall.mean, wall, sizeof wall);
    rt_timeit_format(r->wall.std, wall_sd, sizeof wall_sd);
    rt_timeit_format(r->kernel.mean, kern, sizeof kern);
    rt_timeit_format(r->kernel.std, kern_sd, sizeof kern_sd);
    fmt_speedup(r->cpu, r->kernel, r->gpu_work, sk, sizeof sk);
    fmt_speedup(r->cpu, r->wall, 1, sw, sizeof sw);
    char kcell[160], ccell[160], wcell[160], kernels[48];
    bk_device_info_t kd;
    bk_device_info(bk_kernel_device(), &kd, NULL);
    snprintf(kernels, sizeof kernels, "GPU kernels (%s)", kd.clock);
    int no_gpu = o->no_gpu;
    if (no_gpu)
        snprintf(sw, sizeof sw, "-");
    if (no_gpu)
        snprintf(kcell, sizeof kcell, "not run (no GPU)");
    else if (r->gpu_work)
        snprintf(kcell, sizeof kcell, "%s \xc2\xb1 %s", kern, kern_sd);
    else
        snprintf(kcell, sizeof kcell, "no GPU work");
    snprintf(ccell, sizeof ccell, "%s \xc2\xb1 %s", cpu, cpu_sd);
    snprintf(wcell, sizeof wcell, no_gpu ? "not run (no GPU)" : "%s \xc2\xb1 %s", wall, wall_sd);
    static const int widths[] = {28, 26, 0};
    const char *rows[4][3] = {{"", "time per run", "speedup"}, {"CPU", ccell, ""},
                              {kernels, kcell, sk},
                              {"GPU with transfers (wall)", wcell, sw}};
    rt_table_t t;
    rt_table_begin(&t, "gpuc-speedup", widths);
    for (int i = 0; i < 4; i++)
        rt_table_row(&t, rows[i], NULL, 3, i == 0);
    rt_table_end(&t);
    rt_table_note(&t, "per run: mean \xc2\xb1 std. dev. of %d run%s; CPU %ld loop%s each, GPU %ld "
                  "loop%s each", o->runs, o->runs == 1 ? "" : "s", r->cpu_loops,
                  r->cpu_loops == 1 ? "" : "s", r->gpu_loops, r->gpu_loops == 1 ? "" : "s");
    add_check_note(&t, o, r, 1);
    add_section_notes(&t, o, r, 1);
    show_table(s, &t, tcc);
}

static void label_time(double v, char *buf, size_t len)
{
    rt_timeit_format(v, buf, len);
}

static void label_ratio(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%g\xc3\x97", v);
}

static char *chart(const opts_t *o, const row_t *r, int n, double cross, int any_gpu)
{
    double size[MAX_SIZES], cpu[MAX_SIZES], wall[MAX_SIZES], kern[MAX_SIZES], sw[MAX_SIZES],
        sk[MAX_SIZES];
    for (int i = 0; i < n; i++) {
        size[i] = (double)r[i].size;
        cpu[i] = r[i].cpu.mean;
        wall[i] = r[i].wall.mean;
        kern[i] = r[i].gpu_work ? r[i].kernel.mean : 0;
        /* a speedup point only where both sides did something measurable */
        sw[i] = rt_speedup_compare(r[i].cpu, r[i].wall) ? cpu[i] / wall[i] : 0;
        sk[i] = kern[i] > 0 && rt_speedup_compare(r[i].cpu, r[i].kernel) ? cpu[i] / kern[i] : 0;
    }
    const rt_chart_series_t times[] = {
        {"CPU", "cpu", "#1f77b4", cpu},
        {"GPU with transfers", "gpu-wall", "#d62728", wall},
        {"GPU kernels", "gpu-kernel", "#2ca02c", kern},
    };
    const rt_chart_series_t speedups[] = {
        {"speedup, GPU with transfers", "speedup-wall", "#d62728", sw},
        {"speedup, GPU kernels", "speedup-kernel", "#2ca02c", sk},
    };
    char label[160] = "", at[32];
    if (cross > 0) {
        rt_chart_format_size(cross, at, sizeof at);
        snprintf(label, sizeof label, "GPU wins from %s \xe2\x89\x88 %s", o->var, at);
    }
    const rt_chart_panel_t panels[] = {
        {"time per run", o->var, label_time, times, any_gpu ? 3 : 2, 0, NULL, cross,
         "crossover", label},
        {"speedup (CPU / GPU)", o->var, label_ratio, speedups, any_gpu ? 2 : 1, 1, "break-even",
         cross, "crossover", label},
    };
    return rt_chart_loglog(size, n, panels, 2);
}

static void show_sweep(rt_session_t *s, const opts_t *o, const row_t *r, int n, int tcc)
{
    int any_gpu = 0;
    double size[MAX_SIZES] = {0};
    rt_speedup_time_t cpu[MAX_SIZES] = {{0}}, wall[MAX_SIZES] = {{0}};
    for (int i = 0; i < n; i++) {
        any_gpu |= r[i].gpu_work;
        size[i] = (double)r[i].size;
        cpu[i] = r[i].cpu;
        wall[i] = r[i].wall;
    }
    char where[200];
    int no_gpu = o->no_gpu;
    double cross = rt_speedup_sweep_verdict(size, cpu, wall, n, o->var, where, sizeof where);
    if (no_gpu)
        snprintf(where, sizeof where, "CPU backend times only: no GPU here");
    char *svg = chart(o, r, n, cross, any_gpu);
    char alt[400];
    snprintf(alt, sizeof alt, "<SVG chart: CPU and GPU time and speedup against %s; %s>", o->var,
             where);
    rt_session_display(s, json_pack("{s:s, s:s}", "image/svg+xml", svg, "text/plain", alt), NULL,
                       0);
    free(svg);
    static const int widths[] = {12, 14, 14, 20, 20, 0};
    const char *head_html[] = {o->var, "CPU", "GPU kernels", "GPU with transfers",
                               "speedup (kernels)", "speedup (with transfers)"};
    const char *head_text[] = {o->var, "CPU", "GPU kernels", "GPU w/ transfers",
                               "speedup (kernels)", "speedup (w/ transfers)"};
    rt_table_t t;
    rt_table_begin(&t, "gpuc-speedup", widths);
    rt_table_row(&t, head_html, head_text, 6, 1);
    for (int i = 0; i < n; i++) {
        char z[32], c[64], k[64], w[64], sk[32], sw[32];
        rt_chart_format_size((double)r[i].size, z, sizeof z);
        rt_timeit_format(r[i].cpu.mean, c, sizeof c);
        if (r[i].gpu_work)
            rt_timeit_format(r[i].kernel.mean, k, sizeof k);
        else
            snprintf(k, sizeof k, "no GPU work");
        rt_timeit_format(r[i].wall.mean, w, sizeof w);
        fmt_speedup(r[i].cpu, r[i].kernel, r[i].gpu_work, sk, sizeof sk);
        fmt_speedup(r[i].cpu, r[i].wall, !no_gpu, sw, sizeof sw);
        if (no_gpu)
            snprintf(k, sizeof k, "not run"), snprintf(w, sizeof w, "not run");
        const char *cells[] = {z, c, k, w, sk, sw};
        rt_table_row(&t, cells, NULL, 6, 0);
    }
    rt_table_end(&t);
    rt_table_note(&t, "%s", where);
    rt_table_note(&t, "times per run: mean of %d run%s; a speedup only where the runs' spreads "
                  "(fastest to slowest) do not overlap", o->runs, o->runs == 1 ? "" : "s");
    add_check_note(&t, o, r, n);
    add_section_notes(&t, o, r, n);
    show_table(s, &t, tcc);
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
    rt_session_display(s, json_pack("{s:s}", "text/plain", text), id, update);
}

/* ---- the magic ------------------------------------------------------ */

int rt_magic_speedup(rt_session_t *s, const char *code, const rt_magic_line_t *m, int cell_no,
                     rt_error_t *err)
{
    opts_t o;
    section_t sec[NSECTIONS];
    if (parse_opts(code, m, &o, err) != 0 || find_sections(code, m, o.devices, sec, err) != 0)
        return -1;
    int home = bk_default_device(); /* --devices: where new arrays go, restored at the end */
    o.gpu = home;
    o.no_gpu = o.devices && bk_host_memory(home);
    int n = o.nsizes ? o.nsizes : 1;
    row_t rows[MAX_SIZES];
    memset(rows, 0, sizeof rows);
    static unsigned serial;
    char id[64];
    snprintf(id, sizeof id, "gpuc-speedup-%d-%u", cell_no, ++serial);
    double t0 = cm_seconds();
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (o.nsizes) {
            char size[32];
            rt_chart_format_size((double)o.sizes[i], size, sizeof size);
            progress(s, id, i > 0, "%%%%speedup: size %d/%d: %s = %s \xe2\x80\xa6", i + 1, n,
                     o.var, size);
            rc = set_size(s, o.var, o.sizes[i], cell_no, err);
        }
        long at = o.nsizes ? o.sizes[i] : 0;
        if (rc == 0)
            rc = o.devices ? run_size_devices(s, m->toks, &o, sec, at, cell_no, &rows[i], err)
                           : run_size(s, m->toks, &o, sec, at, cell_no, &rows[i], err);
        if (rc != 0 && o.nsizes)
            progress(s, id, 1, "%%%%speedup: stopped at size %d/%d", i + 1, n);
    }
    if (o.devices) {
        bk_set_default_device(home);
        drop_references();
    }
    if (rc != 0)
        return rc;
    int tcc = !o.devices && !cpu_calls_cc(s, code, &sec[CPU]);
    if (o.nsizes) {
        progress(s, id, 1, "%%%%speedup: done: %d sizes in %.1f s", n, cm_seconds() - t0);
        show_sweep(s, &o, rows, n, tcc);
    } else {
        show_one(s, &o, rows, tcc);
    }
    return 0;
}
