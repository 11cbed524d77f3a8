/* test_ga_fill: filling on the CPU backend, whose kernel is the GPU's text
 * with a plain loop — every element size, contiguous views at every
 * offset and length around the kernel's 16-byte words (the head before a
 * boundary, the words, the rest), strided, reversed and transposed views,
 * each leaving its neighbours alone; float16 from a double rounded once;
 * integers put exactly or refused outside their dtype. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ga_array.h"
#include "ga_copy.h"
#include "ga_create.h"
#include "ga_fill.h"

enum { N = 200 };

/* base (N elements of d) set to the byte 0x11, view filled with value:
 * the elements the view covers (mask) hold value, the others 0x11. */
static int fills_only(ga_array_t *base, ga_array_t *view, const unsigned char *mask,
                      const unsigned char *value)
{
    cm_error_t err = {0};
    size_t es = ga_dtype_size(base->dtype);
    unsigned char sentinel[16], host[N * 16];
    memset(sentinel, 0x11, sizeof sentinel);
    if (ga_fill_bytes(base, sentinel, &err) != 0 || ga_fill_bytes(view, value, &err) != 0 ||
        ga_copy_to_host(base, host, &err) != 0) {
        fprintf(stderr, "  %s\n", err.text);
        return 0;
    }
    for (int i = 0; i < N; i++)
        if (memcmp(host + i * es, mask[i] ? value : sentinel, es) != 0) {
            fprintf(stderr, "  %s element %d wrong\n", ga_dtype_name(base->dtype), i);
            return 0;
        }
    return 1;
}

static void test_views(void)
{
    static const ga_dtype_t dtypes[] = {GA_U8, GA_I16, GA_F32, GA_I64, GA_C128};
    static const int offsets[] = {0, 1, 3, 5, 7, 13}, lengths[] = {0, 1, 2, 15, 16, 17, 33, 150};
    unsigned char value[16], mask[N];
    for (int k = 0; k < 16; k++)
        value[k] = (unsigned char)(0xA0 + k);
    for (size_t t = 0; t < sizeof dtypes / sizeof *dtypes; t++) {
        cm_error_t err = {0};
        ga_array_t *base = ga_array_new(GA_CPU, dtypes[t], 1, (int64_t[]){N}, &err);
        for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++)
            for (size_t l = 0; l < sizeof lengths / sizeof *lengths; l++) {
                int from = offsets[o], to = offsets[o] + lengths[l];
                ga_array_t *v = ga_array_slice(base, 0, from, to, 1, &err);
                for (int i = 0; i < N; i++)
                    mask[i] = i >= from && i < to;
                CHECK(v && fills_only(base, v, mask, value));
                ga_array_free(v);
            }
        /* every third element from 4; all of them reversed */
        ga_array_t *v = ga_array_slice(base, 0, 4, GA_END, 3, &err);
        for (int i = 0; i < N; i++)
            mask[i] = i >= 4 && (i - 4) % 3 == 0;
        CHECK(v && fills_only(base, v, mask, value));
        ga_array_free(v);
        v = ga_array_slice(base, 0, GA_END, GA_END, -1, &err);
        memset(mask, 1, sizeof mask);
        CHECK(v && fills_only(base, v, mask, value));
        ga_array_free(v);
        /* a column of the (20, 10) matrix, through its transpose */
        ga_array_t *m = ga_array_reshape(base, 2, (int64_t[]){20, 10}, &err);
        ga_array_t *mt = m ? ga_array_permute(m, NULL, &err) : NULL;
        v = mt ? ga_array_slice(mt, 0, 7, 8, 1, &err) : NULL;
        for (int i = 0; i < N; i++)
            mask[i] = i % 10 == 7;
        CHECK(v && fills_only(base, v, mask, value));
        ga_array_free(v);
        ga_array_free(mt);
        ga_array_free(m);
        ga_array_free(base);
    }
}

static void test_values(void)
{
    /* 1 + 2^-11 + 2^-40: through float it rounds to the tie 1 + 2^-11,
     * then to even (1.0); once, it is above the tie (1 + 2^-10) */
    CHECK(ga_double_to_half(1.0 + ldexp(1, -11) + ldexp(1, -40)) == 0x3c01);
    CHECK(ga_double_to_half(1.0 + ldexp(1, -11)) == 0x3c00);
    CHECK(ga_double_to_half(65519.99) == 0x7bff && ga_double_to_half(65520.0) == 0x7c00);
    CHECK(ga_double_to_half(ldexp(1, -25)) == 0 && ga_double_to_half(ldexp(1.0000001, -25)) == 1);
    CHECK(ga_double_to_half(-1e300) == 0xfc00 && (ga_double_to_half(NAN) & 0x7fff) > 0x7c00);
    unsigned char b[16];
    CHECK(ga_dtype_set_int(GA_I64, b, 0, INT64_MIN, 0) == 0 && ga_dtype_get_i64(GA_I64, b, 0) == INT64_MIN);
    CHECK(ga_dtype_set_int(GA_U64, b, 0, -1, 1) == 0 && ga_dtype_get_u64(GA_U64, b, 0) == UINT64_MAX);
    CHECK(ga_dtype_set_int(GA_I64, b, 0, -1, 1) == -1); /* 2^64 - 1 */
    CHECK(ga_dtype_set_int(GA_I8, b, 0, -128, 0) == 0 && ga_dtype_set_int(GA_I8, b, 0, 128, 0) == -1);
    CHECK(ga_dtype_set_int(GA_U16, b, 0, 65535, 0) == 0 && ga_dtype_set_int(GA_U16, b, 0, -1, 0) == -1);
    CHECK(ga_dtype_set_int(GA_F32, b, 0, (1LL << 60) + (1LL << 36) + 1, 0) == 0);
    float f;
    memcpy(&f, b, 4);
    CHECK(f == 0x1p60f); /* through the double, as NumPy: the tie then goes to even */
}

int main(void)
{
    test_views();
    test_values();
    return check_report("test_ga_fill");
}
