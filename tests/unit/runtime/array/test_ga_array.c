/* test_ga_array: the array library on the CPU backend, without a session —
 * dtypes (names, .npy strings, float16 rounding, kernel parameter types),
 * shapes and their overflow, views (strides as NumPy computes them),
 * copies of strided views, gathering only chosen elements, the pool
 * (reuse, limit, out-of-memory message), the sweep, use after free. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "check.h"
#include "ga_array.h"
#include "ga_copy.h"
#include "ga_create.h"

static void test_dtypes(void)
{
    CHECK(ga_dtype_size(GA_F16) == 2 && ga_dtype_size(GA_C128) == 16 && ga_dtype_size(99) == 0);
    CHECK_STR(ga_dtype_name(GA_U16), "uint16");
    CHECK_STR(ga_dtype_npy(GA_F32), "<f4");
    CHECK_STR(ga_dtype_npy(GA_BOOL), "|b1");
    CHECK(ga_dtype_from_name("float32") == GA_F32);
    CHECK(ga_dtype_from_name("<f8") == GA_F64);
    CHECK(ga_dtype_from_name("f2") == GA_F16);
    CHECK(ga_dtype_from_name("float") == GA_F64); /* NumPy's float is float64 */
    CHECK(ga_dtype_from_name("<U5") == -1);
    /* float16: round to nearest even, subnormals, overflow to inf */
    CHECK(ga_float_to_half(1.0f) == 0x3c00);
    CHECK(ga_float_to_half(0.1f) == 0x2e66);
    CHECK(ga_float_to_half(65504.0f) == 0x7bff);
    CHECK(ga_float_to_half(65520.0f) == 0x7c00);
    CHECK(ga_float_to_half(5.96046448e-08f) == 0x0001); /* the smallest subnormal */
    CHECK(ga_float_to_half(-0.0f) == 0x8000);
    CHECK(ga_half_to_float(0x3555) > 0.3332f && ga_half_to_float(0x3555) < 0.3334f);
    CHECK(isnan(ga_half_to_float(0x7e00)));
    CHECK(ga_half_to_float(0x0001) == 5.96046448e-08f);
    /* kernel parameters: the pointee must be the dtype's type, if it is a scalar */
    char why[128] = "";
    CHECK(ga_dtype_fits_param(GA_F32, "const float *__restrict__ x", why, sizeof why) == 1);
    CHECK(ga_dtype_fits_param(GA_F64, "float *y", why, sizeof why) == 0);
    CHECK_STR(why, "the kernel reads float");
    CHECK(ga_dtype_fits_param(GA_I32, "int32_t *v", why, sizeof why) == 1);
    CHECK(ga_dtype_fits_param(GA_U64, "unsigned long long *v", why, sizeof why) == 1);
    CHECK(ga_dtype_fits_param(GA_I64, "unsigned int *v", why, sizeof why) == 0);
    CHECK(ga_dtype_fits_param(GA_F32, "float4 *v", why, sizeof why) == 1);   /* a vector */
    CHECK(ga_dtype_fits_param(GA_F16, "void *raw", why, sizeof why) == 1);
    CHECK(ga_dtype_fits_param(GA_F16, "__half *h", why, sizeof why) == 1);
}

static void test_shapes(void)
{
    cm_error_t err = {0};
    CHECK(ga_shape_size(2, (int64_t[]){3, 4}, 4, &err) == 12);
    CHECK(ga_shape_size(1, (int64_t[]){-1}, 4, &err) == -1 && err.code == GA_E_SHAPE);
    cm_error_clear(&err);
    CHECK(ga_shape_size(2, (int64_t[]){1LL << 40, 1LL << 40}, 4, &err) == -1);
    CHECK(strstr(err.text, "overflow") != NULL);
    cm_error_clear(&err);
    CHECK(ga_shape_size(9, (int64_t[9]){0}, 4, &err) == -1);
    char text[64];
    ga_shape_text(0, NULL, text, sizeof text);
    CHECK_STR(text, "()");
    ga_shape_text(1, (int64_t[]){5}, text, sizeof text);
    CHECK_STR(text, "(5,)");
    ga_shape_text(3, (int64_t[]){2, 3, 4}, text, sizeof text);
    CHECK_STR(text, "(2, 3, 4)");
}

/* A 2x3x4 float64 array of 0..23 on the CPU. */
static ga_array_t *counting(void)
{
    cm_error_t err = {0};
    ga_array_t *a = ga_create_arange(GA_CPU, GA_F64, 0, 24, 1, &err);
    ga_array_t *b = ga_array_reshape(a, 3, (int64_t[]){2, 3, 4}, &err);
    ga_array_free(a);
    return b;
}

static void test_views(void)
{
    cm_error_t err = {0};
    ga_array_t *a = counting();
    CHECK(a && a->strides[0] == 12 && a->strides[1] == 4 && a->strides[2] == 1);
    /* transpose (4, 3, 2): strides (1, 4, 12), as NumPy's a.T */
    ga_array_t *t = ga_array_permute(a, NULL, &err);
    CHECK(t->shape[0] == 4 && t->strides[0] == 1 && t->strides[2] == 12);
    CHECK(!ga_array_is_contiguous(t));
    /* a[:, ::2, 1:] then a copy in C order */
    ga_array_t *s1 = ga_array_slice(a, 1, 0, GA_END, 2, &err);
    ga_array_t *s2 = ga_array_slice(s1, 2, 1, GA_END, 1, &err);
    CHECK(s2->shape[1] == 2 && s2->shape[2] == 3 && s2->strides[1] == 8 && s2->offset == 1);
    double host[12];
    CHECK(ga_copy_to_host(s2, host, &err) == 0);
    const double want[12] = {1, 2, 3, 9, 10, 11, 13, 14, 15, 21, 22, 23};
    CHECK(memcmp(host, want, sizeof want) == 0);
    ga_array_t *c = ga_copy_array(t, GA_CPU, &err);
    CHECK(c && ga_array_is_contiguous(c));
    double tv[24];
    ga_copy_to_host(c, tv, &err);
    CHECK(tv[0] == 0 && tv[1] == 12 && tv[2] == 4 && tv[23] == 23); /* a.T.ravel() */
    /* reshapes NumPy can do without a copy, and one it cannot */
    ga_array_t *r = ga_array_reshape(a, 2, (int64_t[]){6, -1}, &err);
    CHECK(r && r->shape[1] == 4 && r->strides[0] == 4);
    /* s1 is (2, 2, 4) with strides (12, 8, 1): its last axis splits, but
     * its rows are apart, so (2, 8) needs a copy (NumPy too) */
    ga_array_t *r2 = ga_array_reshape(s1, 4, (int64_t[]){2, 2, 2, 2}, &err);
    CHECK(r2 && r2->strides[0] == 12 && r2->strides[1] == 8 && r2->strides[2] == 2 &&
          r2->strides[3] == 1);
    CHECK(ga_array_reshape(s1, 2, (int64_t[]){2, 8}, &err) == NULL && err.code == GA_E_SHAPE);
    cm_error_clear(&err);
    CHECK(ga_array_reshape(a, 1, (int64_t[]){25}, &err) == NULL);
    cm_error_clear(&err);
    /* a[1, 2] and a 0-d view of one element */
    ga_array_t *row = ga_array_index(a, 0, 1, &err);
    ga_array_t *el = ga_array_index(ga_array_index(row, 0, 2, &err), 0, -1, &err);
    CHECK(el && el->ndim == 0 && el->size == 1);
    double v;
    ga_copy_to_host(el, &v, &err);
    CHECK(v == 23);
    CHECK(ga_array_index(a, 0, 2, &err) == NULL && strstr(err.text, "out of bounds"));
    cm_error_clear(&err);
    CHECK(ga_array_slice(a, 3, 0, 1, 1, &err) == NULL && strstr(err.text, "axis 3"));
    ga_array_free_all();
}

/* Gathering: only the chosen elements, in C order. */
static void test_gather(void)
{
    cm_error_t err = {0};
    ga_array_t *a = counting();
    ga_array_t *t = ga_array_permute(a, NULL, &err); /* (4, 3, 2) */
    const int64_t i0[] = {0, 3}, i1[] = {0, 2}, i2[] = {1};
    const int64_t *idx[] = {i0, i1, i2};
    const int64_t count[] = {2, 2, 1};
    double out[4];
    CHECK(ga_copy_gather(NULL, t, idx, count, out, &err) == 0);
    /* t[i, j, 1] = a[1, j, i] = 12 + 4 j + i */
    CHECK(out[0] == 12 && out[1] == 20 && out[2] == 15 && out[3] == 23);
    ga_array_free_all();
}

static void test_pool(void)
{
    cm_error_t err = {0};
    bk_pool_stats_t s0, s1;
    bk_pool_release(GA_CPU);
    bk_pool_stats(GA_CPU, &s0);
    ga_array_t *a = ga_array_new(GA_CPU, GA_F32, 1, (int64_t[]){1000}, &err);
    ga_array_free(a);
    ga_array_t *b = ga_array_new(GA_CPU, GA_F32, 1, (int64_t[]){1000}, &err);
    bk_pool_stats(GA_CPU, &s1);
    CHECK(s1.hits == s0.hits + 1); /* the freed block came back */
    CHECK(s1.in_use == s0.in_use + 4096);
    ga_array_free(b);
    bk_pool_stats(GA_CPU, &s1);
    CHECK(s1.cached >= 4096);
    CHECK(bk_pool_release(GA_CPU) >= 4096);
    /* a limit: beyond it the allocation fails and says what the pool holds */
    bk_pool_set_limit(GA_CPU, 1 << 20);
    ga_array_t *c = ga_array_new(GA_CPU, GA_U8, 1, (int64_t[]){2 << 20}, &err);
    CHECK(c == NULL && err.code == GA_E_MEMORY);
    CHECK(strstr(err.text, "cpu out of memory (the pool's limit is 1.00 MiB)") != NULL);
    CHECK(strstr(err.text, "nothing was lost") != NULL);
    bk_pool_set_limit(GA_CPU, 0);
    ga_array_free_all();
}

static void test_sweep_and_free(void)
{
    cm_error_t err = {0};
    ga_array_t *held = ga_create_full(GA_CPU, GA_I32, 1, (int64_t[]){4}, 7, &err);
    ga_array_t *temp = ga_array_new(GA_CPU, GA_I32, 1, (int64_t[]){4}, &err);
    ga_array_t *kept = ga_array_new(GA_CPU, GA_I32, 1, (int64_t[]){4}, &err);
    ga_array_t *view = ga_array_slice(held, 0, 1, 3, 1, &err);
    ga_array_keep(kept, 1);
    ga_array_t *vars[2] = {held, view}; /* a variable holding handles */
    const void *roots[] = {vars};
    const size_t bytes[] = {sizeof vars};
    CHECK(ga_array_sweep(roots, bytes, 1) == 1); /* temp */
    CHECK(!ga_array_is_live(temp) && ga_array_is_live(held) && ga_array_is_live(kept));
    CHECK(ga_array_check(temp, &err) == -1 && err.code == GA_E_FREED);
    /* the view holds the buffer after its base goes */
    ga_array_free(held);
    int32_t v[2];
    cm_error_clear(&err);
    CHECK(ga_copy_to_host(view, v, &err) == 0 && v[0] == 7 && v[1] == 7);
    ga_array_free(view);
    ga_array_free(view); /* twice: ignored */
    CHECK(ga_copy_to_host(view, v, &err) == -1);
    ga_array_free_all();
    CHECK(ga_array_first() == NULL);
}

int main(void)
{
    test_dtypes();
    test_shapes();
    test_views();
    test_gather();
    test_pool();
    test_sweep_and_free();
    return check_report("test_ga_array");
}
