/* test_ga_blas: matmul and dot on the CPU backend (OpenBLAS) against a
 * plain triple loop in double — float32, float64, float16 (via float32),
 * transposed views passed without a copy, strided views copied, batches
 * with broadcasting, matrix-vector, vector-matrix, empty and 1x1 shapes,
 * promotion, and the errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "check.h"
#include "ga_api.h"
#include "ga_blas.h"
#include "cpu_blas.h"
#include "ga_copy.h"
#include "ga_random.h"

static ga_array_t *rand_array(ga_dtype_t dtype, int ndim, const int64_t *shape, uint64_t seed)
{
    cm_error_t err = {0};
    ga_array_t *a = ga_array_new(GA_CPU, dtype, ndim, shape, &err);
    ga_rng_params_t p = {.dist = GA_RNG_NORMAL, .mean = 0, .std = 1};
    CHECK(a && ga_random_fill(a, &p, seed, 0, &err) == 0);
    return a;
}

/* Element [i, j] of the 2-d (or batch-indexed) view a, as a double. */
static double get2(const ga_array_t *a, int64_t base, int64_t i, int64_t j)
{
    int64_t off = a->offset + base + i * a->strides[a->ndim - 2] + j * a->strides[a->ndim - 1];
    return ga_dtype_get_f64(a->dtype, a->buf->ptr, (size_t)off);
}

/* The largest |c - a @ b| over 2-d a, b, c, relative to sum |a||b|. */
static double error2(const ga_array_t *a, const ga_array_t *b, const ga_array_t *c, int64_t ba,
                     int64_t bb, int64_t bc)
{
    int64_t m = a->shape[a->ndim - 2], k = a->shape[a->ndim - 1], n = b->shape[b->ndim - 1];
    double worst = 0;
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double s = 0, mag = 1e-30;
            for (int64_t l = 0; l < k; l++) {
                s += get2(a, ba, i, l) * get2(b, bb, l, j);
                mag += fabs(get2(a, ba, i, l) * get2(b, bb, l, j));
            }
            double e = fabs(get2(c, bc, i, j) - s) / mag;
            worst = e > worst ? e : worst;
        }
    return worst;
}

static size_t allocs_now(void)
{
    bk_pool_stats_t st;
    bk_pool_stats(GA_CPU, &st);
    return st.allocs;
}

static void test_plain(void)
{
    cm_error_t err = {0};
    struct { ga_dtype_t dtype; double tol; } cases[] = {
        {GA_F32, 1e-6}, {GA_F64, 1e-14}, {GA_F16, 2e-3}};
    for (int t = 0; t < 3; t++) {
        ga_array_t *a = rand_array(cases[t].dtype, 2, (int64_t[]){37, 53}, 1);
        ga_array_t *b = rand_array(cases[t].dtype, 2, (int64_t[]){53, 29}, 2);
        ga_array_t *c = ga_blas_matmul(a, b, &err);
        CHECK(c && c->dtype == cases[t].dtype && c->ndim == 2 && c->shape[0] == 37 &&
              c->shape[1] == 29);
        if (c)
            CHECK(error2(a, b, c, 0, 0, 0) < cases[t].tol);
        /* transposed views go to BLAS as they are: only the result is allocated */
        ga_array_t *at = ga_array_permute(rand_array(cases[t].dtype, 2, (int64_t[]){53, 37}, 3),
                                          NULL, &err);
        ga_array_t *bt = ga_array_permute(rand_array(cases[t].dtype, 2, (int64_t[]){29, 53}, 4),
                                          NULL, &err);
        size_t before = allocs_now();
        ga_array_t *d = ga_blas_matmul(at, bt, &err);
        if (cases[t].dtype != GA_F16) /* float16 is converted to float32 on the CPU */
            CHECK(allocs_now() - before == 1);
        CHECK(d && error2(at, bt, d, 0, 0, 0) < cases[t].tol);
        /* a view with steps is copied first */
        ga_array_t *s = ga_array_slice(b, 1, 0, GA_END, 2, &err);
        ga_array_t *e = ga_blas_matmul(a, s, &err);
        CHECK(e && e->shape[1] == 15 && error2(a, s, e, 0, 0, 0) < cases[t].tol);
        /* a negative step too */
        ga_array_t *r = ga_array_slice(a, 0, GA_END, GA_END, -1, &err);
        ga_array_t *f = ga_blas_matmul(r, b, &err);
        CHECK(f && error2(r, b, f, 0, 0, 0) < cases[t].tol);
    }
    ga_array_free_all();
}

static void test_vectors_and_edges(void)
{
    cm_error_t err = {0};
    ga_array_t *a = rand_array(GA_F64, 2, (int64_t[]){4, 5}, 5);
    ga_array_t *v = rand_array(GA_F64, 1, (int64_t[]){5}, 6);
    ga_array_t *w = rand_array(GA_F64, 1, (int64_t[]){4}, 7);
    const double *pa = ga_array_data(a), *pv = ga_array_data(v), *pw = ga_array_data(w);
    ga_array_t *mv = ga_blas_matmul(a, v, &err);
    CHECK(mv && mv->ndim == 1 && mv->shape[0] == 4);
    for (int i = 0; mv && i < 4; i++) {
        double s = 0;
        for (int j = 0; j < 5; j++)
            s += pa[i * 5 + j] * pv[j];
        CHECK(fabs(((double *)ga_array_data(mv))[i] - s) < 1e-12);
    }
    ga_array_t *vm = ga_blas_matmul(w, a, &err);
    CHECK(vm && vm->ndim == 1 && vm->shape[0] == 5);
    for (int j = 0; vm && j < 5; j++) {
        double s = 0;
        for (int i = 0; i < 4; i++)
            s += pw[i] * pa[i * 5 + j];
        CHECK(fabs(((double *)ga_array_data(vm))[j] - s) < 1e-12);
    }
    /* vector @ vector: a 0-d array, the same as ga_blas_dot */
    ga_array_t *vv = ga_blas_matmul(v, v, &err);
    double d = 0, ref = 0;
    for (int j = 0; j < 5; j++)
        ref += pv[j] * pv[j];
    CHECK(vv && vv->ndim == 0 && fabs(*(double *)ga_array_data(vv) - ref) < 1e-12);
    CHECK(ga_blas_dot(v, v, &d, &err) == 0 && fabs(d - ref) < 1e-12);
    /* a column of a matrix (stride 5) as the vector; and reversed */
    ga_array_t *col = ga_array_index(a, 1, 2, &err);
    ga_array_t *rev = ga_array_slice(w, 0, GA_END, GA_END, -1, &err);
    ref = 0;
    for (int i = 0; i < 4; i++)
        ref += pa[i * 5 + 2] * pw[3 - i];
    CHECK(ga_blas_dot(col, rev, &d, &err) == 0 && fabs(d - ref) < 1e-12);
    ga_array_t *cm = ga_blas_matmul(col, a, &err); /* strided vector @ matrix */
    CHECK(cm && fabs(((double *)ga_array_data(cm))[0] -
                     (pa[2] * pa[0] + pa[7] * pa[5] + pa[12] * pa[10] + pa[17] * pa[15])) < 1e-12);
    /* float32 and float16 dots */
    ga_array_t *f = rand_array(GA_F32, 1, (int64_t[]){1000}, 8);
    ga_array_t *h = rand_array(GA_F16, 1, (int64_t[]){100}, 9);
    double sf = 0, sh = 0;
    for (int i = 0; i < 1000; i++)
        sf += (double)((float *)ga_array_data(f))[i] * ((float *)ga_array_data(f))[i];
    for (int i = 0; i < 100; i++)
        sh += pow(ga_dtype_get_f64(GA_F16, ga_array_data(h), (size_t)i), 2);
    CHECK(ga_blas_dot(f, f, &d, &err) == 0 && fabs(d - sf) < 1e-4 * sf);
    CHECK(ga_blas_dot(h, h, &d, &err) == 0 && fabs(d - sh) < 2e-3 * sh);
    CHECK(d == ga_half_to_float(ga_float_to_half((float)d))); /* a float16 result */
    /* empty and 1 x 1 */
    ga_array_t *e1 = ga_array_new(GA_CPU, GA_F32, 2, (int64_t[]){0, 3}, &err);
    ga_array_t *e2 = ga_array_new(GA_CPU, GA_F32, 2, (int64_t[]){3, 4}, &err);
    ga_array_t *z = ga_blas_matmul(e1, e2, &err);
    CHECK(z && z->shape[0] == 0 && z->shape[1] == 4 && z->size == 0);
    ga_array_t *k0a = ga_array_new(GA_CPU, GA_F32, 2, (int64_t[]){2, 0}, &err);
    ga_array_t *k0b = ga_array_new(GA_CPU, GA_F32, 2, (int64_t[]){0, 3}, &err);
    ga_array_t *k0 = ga_blas_matmul(k0a, k0b, &err);
    CHECK(k0 && k0->size == 6 && ((float *)ga_array_data(k0))[5] == 0);
    ga_array_t *one = ga_array_new(GA_CPU, GA_F64, 2, (int64_t[]){1, 1}, &err);
    ((double *)ga_array_data(one))[0] = 3;
    ga_array_t *nine = ga_blas_matmul(one, one, &err);
    CHECK(nine && ((double *)ga_array_data(nine))[0] == 9);
    ga_array_t *ev = ga_array_new(GA_CPU, GA_F64, 1, (int64_t[]){0}, &err);
    CHECK(ga_blas_dot(ev, ev, &d, &err) == 0 && d == 0);
    ga_array_free_all();
}

static void test_batches(void)
{
    cm_error_t err = {0};
    /* (3, 1, 4, 5) @ (2, 5, 6) -> (3, 2, 4, 6) */
    ga_array_t *a = rand_array(GA_F32, 4, (int64_t[]){3, 1, 4, 5}, 10);
    ga_array_t *b = rand_array(GA_F32, 3, (int64_t[]){2, 5, 6}, 11);
    ga_array_t *c = ga_blas_matmul(a, b, &err);
    CHECK(c && c->ndim == 4 && c->shape[0] == 3 && c->shape[1] == 2 && c->shape[2] == 4 &&
          c->shape[3] == 6);
    for (int i = 0; c && i < 3; i++)
        for (int j = 0; j < 2; j++)
            CHECK(error2(a, b, c, i * a->strides[0], j * b->strides[0],
                         i * c->strides[0] + j * c->strides[1]) < 1e-6);
    /* a batch of transposed matrices against one matrix */
    ga_array_t *t = ga_array_permute(rand_array(GA_F64, 3, (int64_t[]){7, 6, 5}, 12),
                                     (const int[]){0, 2, 1}, &err);
    ga_array_t *m = rand_array(GA_F64, 2, (int64_t[]){6, 3}, 13);
    ga_array_t *r = ga_blas_matmul(t, m, &err);
    CHECK(r && r->shape[0] == 7 && r->shape[1] == 5 && r->shape[2] == 3);
    for (int i = 0; r && i < 7; i++)
        CHECK(error2(t, m, r, i * t->strides[0], 0, i * r->strides[0]) < 1e-14);
    /* a batch of matrices @ a vector */
    ga_array_t *v = rand_array(GA_F64, 1, (int64_t[]){6}, 14);
    ga_array_t *bv = ga_blas_matmul(t, v, &err);
    CHECK(bv && bv->ndim == 2 && bv->shape[0] == 7 && bv->shape[1] == 5);
    for (int i = 0; bv && i < 7; i++)
        for (int j = 0; j < 5; j++) {
            double s = 0;
            for (int l = 0; l < 6; l++)
                s += get2(t, i * t->strides[0], j, l) * ((double *)ga_array_data(v))[l];
            CHECK(fabs(((double *)ga_array_data(bv))[i * 5 + j] - s) < 1e-12);
        }
    ga_array_free_all();
}

static void test_promotion_and_errors(void)
{
    cm_error_t err = {0};
    ga_array_t *a = rand_array(GA_F32, 2, (int64_t[]){3, 4}, 20);
    ga_array_t *b = rand_array(GA_F64, 2, (int64_t[]){4, 2}, 21);
    ga_array_t *c = ga_blas_matmul(a, b, &err);
    CHECK(c && c->dtype == GA_F64 && error2(a, b, c, 0, 0, 0) < 1e-6);
    ga_array_t *i32 = ga_array_new(GA_CPU, GA_I32, 2, (int64_t[]){4, 2}, &err);
    for (int i = 0; i < 8; i++)
        ((int32_t *)ga_array_data(i32))[i] = i - 3;
    ga_array_t *d = ga_blas_matmul(a, i32, &err); /* int32 with float32 is float64 */
    CHECK(d && d->dtype == GA_F64 && error2(a, i32, d, 0, 0, 0) < 1e-12);
    struct { ga_array_t *x, *y; int code; const char *text; } bad[] = {
        {a, rand_array(GA_F32, 2, (int64_t[]){5, 2}, 22), GA_E_SHAPE,
         "shapes (3, 4) and (5, 2) do not align: 4 != 5"},
        {i32, i32, GA_E_DTYPE, "int32 and int32: products are computed for float16, float32 and "
                               "float64 only"},
        {rand_array(GA_F32, 0, NULL, 23), a, GA_E_SHAPE, "a 0-d array is not a matrix"},
        {rand_array(GA_F32, 3, (int64_t[]){2, 3, 4}, 24),
         rand_array(GA_F32, 3, (int64_t[]){3, 4, 2}, 25), GA_E_SHAPE,
         "shapes (2, 3, 4) and (3, 4, 2) do not broadcast in their batch dimensions: 2 != 3"},
    };
    for (size_t t = 0; t < sizeof bad / sizeof bad[0]; t++) {
        cm_error_clear(&err);
        CHECK(ga_blas_matmul(bad[t].x, bad[t].y, &err) == NULL);
        CHECK(err.code == bad[t].code);
        if (!strstr(err.text, bad[t].text)) {
            CHECK(!"message");
            fprintf(stderr, "  got: %s\n  expected: %s\n", err.text, bad[t].text);
        }
    }
    /* arrays on different devices (the device field alone: no GPU here) */
    ga_array_t *g = rand_array(GA_F32, 2, (int64_t[]){4, 2}, 26);
    g->device = 0;
    cm_error_clear(&err);
    CHECK(ga_blas_matmul(a, g, &err) == NULL && err.code == GA_E_DEVICE);
    CHECK(strstr(err.text, "different devices (cpu and gpu0)") != NULL);
    g->device = GA_CPU;
    /* dot */
    double r;
    cm_error_clear(&err);
    CHECK(ga_blas_dot(a, b, &r, &err) == -1 && err.code == GA_E_SHAPE);
    CHECK(strstr(err.text, "takes two vectors") != NULL);
    ga_array_t *v3 = rand_array(GA_F32, 1, (int64_t[]){3}, 27);
    ga_array_t *v4 = rand_array(GA_F32, 1, (int64_t[]){4}, 28);
    cm_error_clear(&err);
    CHECK(ga_blas_dot(v3, v4, &r, &err) == -1);
    CHECK(strstr(err.text, "shapes (3,) and (4,) do not align: 3 != 4") != NULL);
    /* through the cell API: "ga_matmul: ..." */
    CHECK(ga_api_matmul(a, a) == NULL);
    CHECK_STR(ga_api_last_error()->text, "ga_matmul: shapes (3, 4) and (3, 4) do not align: 4 != 3");
    CHECK(isnan(ga_api_dot(v3, v4)));
    CHECK(ga_api_set_tf32(1) == 0 && ga_api_set_tf32(0) == 1);
    ga_array_free(a);
    CHECK(ga_api_matmul(a, b) == NULL && ga_api_last_error()->code == GA_E_FREED);
    ga_array_free_all();
}

int main(void)
{
    cm_error_t err = {0};
    if (!cpu_blas_get(&err)) {
        printf("skipped: %s\n", err.text);
        return 77;
    }
    printf("BLAS: %s\n", cpu_blas_get(&err)->path);
    test_plain();
    test_vectors_and_edges();
    test_batches();
    test_promotion_and_errors();
    return check_report("test_ga_blas");
}
