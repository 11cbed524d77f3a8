/* test_ga_print: NumPy's printing against NumPy itself, and the gather
 * contract (only the shown elements are asked for, in one call).
 *
 * The golden cases are tests/array/print/NN_name.case, written by
 * tests/array/make_print_cases.py (its top says the format). An argument
 * names another folder of cases (tests/array/test_print_numpy.py passes
 * freshly generated random ones). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cm_buf.h"
#include "ga_print.h"

/* ---- a host gather that records what it was asked for ---- */

typedef struct host {
    const char *data;         /* C-contiguous elements, or NULL: element = its flat index */
    int calls;
    int64_t count[GA_MAX_DIMS]; /* the last call's index lists */
    int64_t idx[GA_MAX_DIMS][16];
    int fail;                 /* 1: the gather reports an error */
} host_t;

static int host_gather(void *ctx, const ga_array_t *a, const int64_t *const *idx, const int64_t *count,
                       void *out, cm_error_t *err)
{
    host_t *h = ctx;
    size_t es = ga_dtype_size(a->dtype);
    int64_t n = 1, pos[GA_MAX_DIMS] = {0};
    h->calls++;
    if (h->fail) {
        CM_ERROR(err, GA_E_DEVICE, "gather failed on purpose");
        return -1;
    }
    for (int k = 0; k < a->ndim; k++) {
        h->count[k] = count[k];
        for (int64_t i = 0; i < count[k] && i < 16; i++)
            h->idx[k][i] = idx[k][i];
        n *= count[k];
    }
    for (int64_t e = 0; e < n; e++) {
        int64_t flat = 0;
        for (int k = 0; k < a->ndim; k++)
            flat = flat * a->shape[k] + idx[k][pos[k]];
        if (h->data)
            memcpy((char *)out + e * es, h->data + flat * es, es);
        else
            ga_dtype_set_f64(a->dtype, out, (size_t)e, (double)flat);
        for (int k = a->ndim - 1; k >= 0 && ++pos[k] == count[k]; k--)
            pos[k] = 0;
    }
    return 0;
}

static void make_array(ga_array_t *a, ga_dtype_t dtype, int ndim, const int64_t *shape, int device)
{
    memset(a, 0, sizeof *a);
    a->magic = GA_MAGIC;
    a->dtype = dtype;
    a->ndim = ndim;
    a->device = device;
    a->size = 1;
    for (int k = ndim - 1; k >= 0; k--) {
        a->shape[k] = shape[k];
        a->strides[k] = a->size;
        a->size *= shape[k];
    }
}

/* ---- the golden cases ---- */

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    cm_buf_t b = {0};
    cm_buf_add_stream(&b, f);
    fclose(f);
    return cm_buf_steal(&b);
}

/* Cuts the text at the line "--- name" and returns what follows it. */
static char *section(char *text, const char *name)
{
    char mark[32];
    snprintf(mark, sizeof mark, "\n--- %s\n", name);
    char *p = strstr(text, mark);
    if (!p)
        return NULL;
    *p = 0;
    return p + strlen(mark);
}

static void chomp(char *s)
{
    size_t n = strlen(s);
    if (n && s[n - 1] == '\n')
        s[n - 1] = 0;
}

static int run_case(const char *path)
{
    char *text = read_file(path), *repr, *str, *line, *save = NULL;
    if (!text || !(repr = section(text, "repr")) || !(str = section(repr, "str"))) {
        fprintf(stderr, "%s: not a case\n", path);
        free(text);
        return -1;
    }
    chomp(str);
    int dtype = -1, ndim = 0, device = GA_CPU;
    int64_t shape[GA_MAX_DIMS];
    char *data = NULL;
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(line, "dtype ", 6)) {
            dtype = ga_dtype_from_name(line + 6);
        } else if (!strncmp(line, "shape", 5)) {
            for (char *p = line + 5, *end; *p; p = end) {
                long long v = strtoll(p, &end, 10);
                if (end == p)
                    break;
                shape[ndim++] = v;
            }
        } else if (!strncmp(line, "device ", 7)) {
            device = atoi(line + 7);
        } else if (!strncmp(line, "data ", 5)) {
            const char *hex = line + 5;
            size_t n = strlen(hex) / 2;
            data = malloc(n + 1);
            for (size_t i = 0; i < n; i++)
                sscanf(hex + 2 * i, "%2hhx", (unsigned char *)&data[i]);
        }
    }
    ga_array_t a;
    make_array(&a, (ga_dtype_t)dtype, ndim, shape, device);
    host_t h = {.data = data};
    cm_error_t err = {0};
    char *got_repr = ga_print_repr(&a, NULL, host_gather, &h, &err);
    char *got_str = ga_print_str(&a, NULL, host_gather, &h, &err);
    int before = check_failures;
    CHECK(dtype >= 0);
    CHECK_STR(got_repr, repr);
    CHECK_STR(got_str, str);
    CHECK(a.size == 0 || h.calls == 2);
    if (check_failures != before)
        fprintf(stderr, "  in %s\n", path);
    free(got_repr);
    free(got_str);
    free(data);
    free(text);
    return 0;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Runs every *.case in dir, in name order; the number run. */
static int run_cases(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "no case folder %s\n", dir);
        return 0;
    }
    cm_names_t names = {0};
    for (struct dirent *e; (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (n > 5 && !strcmp(e->d_name + n - 5, ".case"))
            cm_names_add(&names, e->d_name, n);
    }
    closedir(d);
    qsort(names.v, names.n, sizeof *names.v, by_name);
    int run = 0;
    for (size_t i = 0; i < names.n; i++) {
        char path[8400];
        snprintf(path, sizeof path, "%s/%s", dir, names.v[i]);
        run += run_case(path) == 0;
    }
    cm_names_free(&names);
    return run;
}

/* ---- the gather contract ---- */

static void test_gather_only_shown(void)
{
    ga_array_t a;
    host_t h = {0};
    cm_error_t err = {0};

    make_array(&a, GA_F32, 1, (int64_t[]){1000000}, 0);
    char *s = ga_print_repr(&a, NULL, host_gather, &h, &err);
    CHECK_STR(s, "array([0.00000e+00, 1.00000e+00, 2.00000e+00, ..., 9.99997e+05,\n"
                 "       9.99998e+05, 9.99999e+05],\n"
                 "      dtype=float32, shape=(1000000,), device=gpu0)");
    CHECK(h.calls == 1);
    CHECK(h.count[0] == 6);
    const int64_t want[6] = {0, 1, 2, 999997, 999998, 999999};
    CHECK(!memcmp(h.idx[0], want, sizeof want));
    free(s);

    h = (host_t){0};
    make_array(&a, GA_I32, 2, (int64_t[]){1000, 1000}, GA_CPU);
    s = ga_print_str(&a, NULL, host_gather, &h, &err);
    CHECK(h.calls == 1 && h.count[0] == 6 && h.count[1] == 6);
    CHECK(h.idx[0][3] == 997 && h.idx[1][5] == 999);
    CHECK(s && !strncmp(s, "[[     0      1      2 ...    997    998    999]\n", 49));
    free(s);

    /* at the threshold nothing is elided: every index is asked for */
    h = (host_t){0};
    make_array(&a, GA_I64, 1, (int64_t[]){1000}, GA_CPU);
    s = ga_print_str(&a, NULL, host_gather, &h, &err);
    CHECK(h.calls == 1 && h.count[0] == 1000);
    free(s);
}

static void test_gather_error(void)
{
    ga_array_t a;
    host_t h = {.fail = 1};
    cm_error_t err = {0};
    make_array(&a, GA_F64, 1, (int64_t[]){3}, GA_CPU);
    CHECK(ga_print_repr(&a, NULL, host_gather, &h, &err) == NULL);
    CHECK(err.code == GA_E_DEVICE && strstr(err.text, "on purpose"));
    cm_error_clear(&err);
    CHECK(ga_print_html(NULL, NULL, host_gather, &h, &err) == NULL && err.code == GA_E_FREED);
}

static void test_options(void)
{
    ga_array_t a;
    host_t h = {0};
    ga_print_opts_t o;
    ga_print_defaults(&o);
    CHECK(o.precision == 8 && o.threshold == 1000 && o.edgeitems == 3 && o.linewidth == 75 && !o.suppress);
    o.threshold = 4;
    o.edgeitems = 1;
    make_array(&a, GA_F64, 1, (int64_t[]){5}, GA_CPU);
    char *s = ga_print_str(&a, &o, host_gather, &h, NULL);
    CHECK_STR(s, "[0. ... 4.]");
    free(s);
}

static void test_html(void)
{
    ga_array_t a;
    host_t h = {0};
    cm_error_t err = {0};

    make_array(&a, GA_I32, 2, (int64_t[]){2000, 3}, 0);
    char *s = ga_print_html(&a, NULL, host_gather, &h, &err);
    CHECK(s && strstr(s, "<tr><td>0</td><td>1</td><td>2</td></tr>"));
    CHECK(s && strstr(s, "<td>&#8942;</td><td>&#8942;</td><td>&#8942;</td>")); /* the elided rows */
    CHECK(s && strstr(s, "<td>5997</td><td>5998</td><td>5999</td>"));
    CHECK(s && strstr(s, "int32, shape=(2000, 3), device=gpu0"));
    CHECK(h.calls == 1 && h.count[0] == 6 && h.count[1] == 3);
    free(s);

    /* 3-d: the first and the last block, each captioned, gathered alone */
    h = (host_t){0};
    make_array(&a, GA_I16, 3, (int64_t[]){4, 2, 2}, GA_CPU);
    s = ga_print_html(&a, NULL, host_gather, &h, &err);
    CHECK(s && strstr(s, "<caption>[0, :, :]</caption>") && strstr(s, "<caption>[3, :, :]</caption>"));
    CHECK(s && strstr(s, "<tr><td>12</td><td>13</td></tr>"));
    CHECK(h.count[0] == 2 && h.idx[0][1] == 3);
    free(s);

    /* a summarised row: "…" between the edges */
    h = (host_t){0};
    make_array(&a, GA_U8, 1, (int64_t[]){2000}, GA_CPU);
    a.dtype = GA_I32;
    s = ga_print_html(&a, NULL, host_gather, &h, &err);
    CHECK(s && strstr(s, "<td>2</td><td>&#8230;</td><td>1997</td>"));
    free(s);

    make_array(&a, GA_BOOL, 0, NULL, GA_CPU);
    h = (host_t){0};
    s = ga_print_html(&a, NULL, host_gather, &h, &err);
    CHECK(s && strstr(s, "<tr><td>False</td></tr>") && strstr(s, "bool, shape=(), device=cpu"));
    free(s);
}

/* tests/array/print beside this file's tests/ folder */
static void default_cases(char *dir, size_t len)
{
    const char *file = __FILE__, *t = strstr(file, "tests/unit/");
    snprintf(dir, len, "%.*sarray/print", t ? (int)(t - file) + 6 : 0, file);
}

int main(int argc, char **argv)
{
    char dir[4200];
    if (argc > 1)
        snprintf(dir, sizeof dir, "%s", argv[1]);
    else
        default_cases(dir, sizeof dir);
    int n = run_cases(dir);
    printf("%d cases from %s\n", n, dir);
    CHECK(n > 0);
    if (argc == 1) {
        CHECK(n >= 60);
        test_gather_only_shown();
        test_gather_error();
        test_options();
        test_html();
    }
    return check_report("test_ga_print");
}
