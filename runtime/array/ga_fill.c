/* ga_fill: fill, arange and linspace on the device (see ga_fill.h). */
#include "ga_fill.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_kernel.h"

/* ---- kernels ------------------------------------------------------------ */

typedef struct dims {
    int64_t d[GA_MAX_DIMS];
} dims_t; /* the kernels' ga_dims: a shape or strides passed by value */

/* What a source is for: the fill of elsize-byte elements (dtype < 0), or
 * dtype's arange and linspace. */
typedef struct plan {
    int dtype, elsize;
} plan_t;

/* No fused multiply-add in these kernels: NumPy rounds the product and
 * the sum apart (CUDA's _rn intrinsics are never contracted; the C
 * compiler is told). */
static const char exact_arithmetic[] =
    "#ifdef __CUDACC__\n"
    "GA_FN float ga_fmul(float a, float b) { return __fmul_rn(a, b); }\n"
    "GA_FN float ga_fadd(float a, float b) { return __fadd_rn(a, b); }\n"
    "GA_FN double ga_dmul(double a, double b) { return __dmul_rn(a, b); }\n"
    "GA_FN double ga_dadd(double a, double b) { return __dadd_rn(a, b); }\n"
    "GA_FN ga_u16 ga_d2h(double d) { ga_u16 h; asm(\"cvt.rn.f16.f64 %0, %1;\" : \"=h\"(h) : \"d\"(d));"
    " return h; }\n"
    "#else\n"
    "#if defined(__clang__)\n#pragma STDC FP_CONTRACT OFF\n"
    "#elif defined(__GNUC__)\n#pragma GCC optimize(\"fp-contract=off\")\n#endif\n"
    "GA_FN float ga_fmul(float a, float b) { return a * b; }\n"
    "GA_FN float ga_fadd(float a, float b) { return a + b; }\n"
    "GA_FN double ga_dmul(double a, double b) { return a * b; }\n"
    "GA_FN double ga_dadd(double a, double b) { return a + b; }\n"
    "GA_FN ga_u16 ga_d2h(double d) { _Float16 x = (_Float16)d; ga_u16 h; memcpy(&h, &x, 2);"
    " return h; }\n"
    "#endif\n";

/* How each dtype's range kernels store: T one element (a part of a
 * complex one), PARTS per element, C the arithmetic of arange (NumPy's
 * fill), PUT a value of C as an element, PUTD a double as one (linspace's
 * cast; integers floored first). */
static const struct range_type {
    const char *T, *C, *put, *putd;
    int parts;
} range_types[GA_NDTYPES] = {
    [GA_BOOL] = {"ga_u8", "ga_u64", "(ga_t)(x)", "(ga_t)(y != 0)", 1},
    [GA_I8] = {"ga_i8", "ga_u64", "(ga_t)(x)", "(ga_t)(ga_i64)floor(y)", 1},
    [GA_U8] = {"ga_u8", "ga_u64", "(ga_t)(x)", "(ga_t)(ga_i64)floor(y)", 1},
    [GA_I16] = {"ga_i16", "ga_u64", "(ga_t)(x)", "(ga_t)(ga_i64)floor(y)", 1},
    [GA_U16] = {"ga_u16", "ga_u64", "(ga_t)(x)", "(ga_t)(ga_i64)floor(y)", 1},
    [GA_I32] = {"ga_i32", "ga_u64", "(ga_t)(x)", "(ga_t)(ga_i64)floor(y)", 1},
    [GA_U32] = {"ga_u32", "ga_u64", "(ga_t)(x)", "(ga_t)(ga_i64)floor(y)", 1},
    [GA_I64] = {"ga_i64", "ga_u64", "(ga_t)(x)", "(ga_t)floor(y)", 1},
    [GA_U64] = {"ga_u64", "ga_u64", "(ga_t)(x)",
                "(floor(y) >= 9223372036854775808.0 ? (ga_t)floor(y) : (ga_t)(ga_i64)floor(y))", 1},
    [GA_F16] = {"ga_u16", "float", "ga_f2h(x)", "ga_d2h(y)", 1},
    [GA_F32] = {"float", "float", "(x)", "(float)(y)", 1},
    [GA_F64] = {"double", "double", "(x)", "(y)", 1},
    [GA_C64] = {"float", "float", "(x)", "(float)(y)", 2},
    [GA_C128] = {"double", "double", "(x)", "(y)", 2},
};

static void fill_source(cm_buf_t *b, int elsize)
{
    cm_buf_addf(b, "typedef struct { ga_i64 d[%d]; } ga_dims;\n", GA_MAX_DIMS);
    cm_buf_adds(b,
        "#ifdef __CUDACC__\n"
        "struct alignas(16) ga_w16 { ga_u64 lo, hi; };\n"
        "#else\n"
        "struct ga_w16 { _Alignas(16) ga_u64 lo; ga_u64 hi; };\n"
        "#endif\n"
        "typedef struct ga_w16 ga_w16;\n");
    cm_buf_addf(b, "typedef %s ga_e;\n", ga_kernel_bits(elsize));
    cm_buf_adds(b,
        /* lo, hi: the value repeated over 16 bytes. Dense (nd 0): head
         * elements up to a 16-byte boundary, n16 words of 16 bytes, the
         * rest; a view: the element offsets from its shape and strides */
        "GA_KERNEL ga_fill(ga_i64 n, ga_e *out, ga_u64 lo, ga_u64 hi, ga_i64 head, ga_i64 n16,\n"
        "                  ga_i64 nd, ga_dims shape, ga_dims stride)\n{\n");
    cm_buf_adds(b, elsize == 16 ? "    ga_e v = {lo, hi};\n" : "    ga_e v = (ga_e)lo;\n");
    cm_buf_adds(b,
        "    if (nd == 0) {\n"
        "        ga_w16 p = {lo, hi}, *w = (ga_w16 *)(out + head);\n"
        "        GA_LOOP(q, n16) w[q] = p;\n"
        "        ga_i64 done = head + n16 * (ga_i64)(16 / sizeof(ga_e));\n"
        "        GA_LOOP(q, head + n - done) out[q < head ? q : done + (q - head)] = v;\n"
        "        return;\n    }\n"
        "    GA_LOOP(q, n) {\n"
        "        ga_i64 r = q, off = 0;\n"
        "        for (int k = (int)nd - 1; k >= 0; k--) {\n"
        "            off += (r % shape.d[k]) * stride.d[k];\n            r /= shape.d[k];\n        }\n"
        "        out[off] = v;\n    }\n}\n");
}

static void range_source(cm_buf_t *b, ga_dtype_t d)
{
    const struct range_type *t = &range_types[d];
    int fl = !strcmp(t->C, "float"), db = !strcmp(t->C, "double");
    cm_buf_adds(b, exact_arithmetic);
    cm_buf_addf(b, "typedef %s ga_t;\ntypedef %s ga_c;\n", t->T, t->C);
    cm_buf_addf(b, "#define GA_MUL(a, b) %s\n#define GA_ADD(a, b) %s\n",
                fl ? "ga_fmul(a, b)" : db ? "ga_dmul(a, b)" : "((a) * (b))",
                fl ? "ga_fadd(a, b)" : db ? "ga_dadd(a, b)" : "((a) + (b))");
    cm_buf_addf(b, "#define GA_PUT(q, x) do { out[%s] = %s;%s } while (0)\n",
                t->parts == 2 ? "2 * (q)" : "q", t->put, t->parts == 2 ? " out[2 * (q) + 1] = 0;" : "");
    cm_buf_addf(b, "#define GA_PUTD(q, y) do { out[%s] = %s;%s } while (0)\n",
                t->parts == 2 ? "2 * (q)" : "q", t->putd, t->parts == 2 ? " out[2 * (q) + 1] = 0;" : "");
    cm_buf_adds(b,
        /* NumPy's fill: v0 and v1 as set (-0.0 stays), then s + i * d in ga_c (floats: s,
         * d and v1 given as doubles that hold them exactly; integers as
         * 64-bit words, wrapping as NumPy's C does) */
        "GA_KERNEL ga_arange(ga_i64 n, ga_t *out, double fs, double fd, double fv1, ga_u64 is,\n"
        "                    ga_u64 id, ga_u64 iv1)\n{\n"
        "    GA_LOOP(q, n) {\n");
    if (fl || db)
        cm_buf_adds(b, "        ga_c s = (ga_c)fs, d = (ga_c)fd;\n"
                       "        ga_c x = q == 0 ? s : q == 1 ? (ga_c)fv1 : GA_ADD(s, GA_MUL((ga_c)q, d));\n");
    else
        cm_buf_adds(b, "        (void)fs; (void)fd; (void)fv1;\n"
                       "        ga_c x = q == 1 ? iv1 : is + (ga_u64)q * id;\n");
    cm_buf_adds(b,
        "        GA_PUT(q, x);\n    }\n}\n"
        /* mode 0: i * step + start; 1 (step underflowed to 0): i / div * delta
         * + start; 2 (fewer than two elements): i * delta + start; the last
         * of two or more is stop */
        "GA_KERNEL ga_linspace(ga_i64 n, ga_t *out, double start, double stop, double step,\n"
        "                      double delta, double div, ga_i64 mode)\n{\n"
        "    GA_LOOP(q, n) {\n"
        "        double i = (double)q;\n"
        "        double y = mode == 0 ? ga_dmul(i, step) : mode == 1 ? ga_dmul(i / div, delta)\n"
        "                                                            : ga_dmul(i, delta);\n"
        "        y = ga_dadd(y, start);\n"
        "        if (mode != 2 && q == n - 1) y = stop;\n"
        "        GA_PUTD(q, y);\n    }\n}\n");
}

static char *make_source(void *ctx)
{
    const plan_t *p = ctx;
    cm_buf_t b = {0};
    if (p->dtype < 0)
        fill_source(&b, p->elsize);
    else
        range_source(&b, (ga_dtype_t)p->dtype);
    return cm_buf_steal(&b);
}

char *ga_fill_source(ga_dtype_t d, int elsize)
{
    cm_buf_t b = {0};
    plan_t fill = {-1, elsize}, range = {(int)d, 0};
    char *one = ga_kernel_source(make_source, &fill), *two = make_source(&range);
    cm_buf_adds(&b, one);
    cm_buf_adds(&b, two);
    free(one);
    free(two);
    return cm_buf_steal(&b);
}

static void *kernel(int device, plan_t p, const char *name, cm_error_t *err)
{
    char sig[32];
    if (p.dtype < 0)
        snprintf(sig, sizeof sig, "fill|%d", p.elsize);
    else
        snprintf(sig, sizeof sig, "range|%s", ga_dtype_name((ga_dtype_t)p.dtype));
    return ga_kernel_get(device, sig, name, make_source, &p, err);
}

/* ---- fill --------------------------------------------------------------- */

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

int ga_fill_bytes(ga_array_t *a, const void *value, cm_error_t *err)
{
    if (ga_array_check(a, err) != 0)
        return -1;
    int es = (int)ga_dtype_size(a->dtype);
    int dense = ga_array_is_contiguous(a);
    if (a->size == 0)
        return 0;
    if (dense && all_zero(value, (size_t)es))
        return bk_mem_zero(a->device, ga_array_data(a), (size_t)a->size * (size_t)es, err);
    void *fn = kernel(a->device, (plan_t){-1, es}, "ga_fill", err);
    if (!fn)
        return -1;
    /* the value repeated over 16 bytes */
    uint64_t words[2];
    for (int k = 0; k < 16; k += es)
        memcpy((char *)words + k, value, (size_t)es);
    long long n = a->size, head = n, n16 = 0, nd = dense ? 0 : a->ndim;
    void *out = ga_array_data(a);
    if (dense) {
        size_t mis = (16 - (uintptr_t)out % 16) % 16;
        if (mis % (size_t)es == 0 && (long long)(mis / (size_t)es) <= n) {
            head = (long long)(mis / (size_t)es);
            n16 = (n - head) * es / 16;
        }
    }
    dims_t shape = {{0}}, stride = {{0}};
    for (int k = 0; k < a->ndim; k++) {
        shape.d[k] = a->shape[k];
        stride.d[k] = a->strides[k];
    }
    unsigned long long lo = words[0], hi = words[1];
    if (bk_lang(a->device) == BK_LANG_C) {
        ((void (*)(long long, void *, unsigned long long, unsigned long long, long long,
                   long long, long long, dims_t, dims_t))fn)(n, out, lo, hi, head, n16, nd,
                                                             shape, stride);
        return 0;
    }
    long long rest = head + n - (head + n16 * (16 / es)), work = dense ? (n16 > rest ? n16 : rest) : n;
    void *args[9] = {&n, &out, &lo, &hi, &head, &n16, &nd, &shape, &stride};
    return ga_kernel_launch(a->device, fn, work, args, "ga_fill", err);
}

/* ---- arange and linspace ------------------------------------------------ */

/* start truncated as an integer of d, NumPy's Python int: its 64-bit
 * word in *out, -1 with err when d cannot hold it. */
static int integer_of(ga_dtype_t d, double v, const char *what, uint64_t *out, cm_error_t *err)
{
    double t = trunc(v);
    unsigned char bytes[16];
    int rc = -1;
    if (t >= -9223372036854775808.0 && t < 9223372036854775808.0)
        rc = ga_dtype_set_int(d, bytes, 0, (int64_t)t, 0);
    else if (t >= 0 && t < 18446744073709551616.0)
        rc = ga_dtype_set_int(d, bytes, 0, (int64_t)(uint64_t)t, 1);
    if (rc != 0) {
        CM_ERROR(err, GA_E_VALUE, "%s %.17g is out of bounds for %s", what, v, ga_dtype_name(d));
        return -1;
    }
    *out = ga_dtype_kind(d) == GA_KIND_UINT ? ga_dtype_get_u64(d, bytes, 0)
                                            : (uint64_t)ga_dtype_get_i64(d, bytes, 0);
    return 0;
}

/* What ga_arange's kernel takes: floats' first value, difference and
 * second value as doubles that hold them exactly; integers' as words. */
typedef struct arange_args {
    double fs, fd, fv1;
    unsigned long long is, id, iv1;
} arange_args_t;

static int launch_arange(ga_array_t *a, arange_args_t p, cm_error_t *err)
{
    long long n = a->size;
    void *fn = kernel(a->device, (plan_t){(int)a->dtype, 0}, "ga_arange", err);
    if (!fn)
        return -1;
    void *out = ga_array_data(a);
    if (bk_lang(a->device) == BK_LANG_C) {
        ((void (*)(long long, void *, double, double, double, unsigned long long,
                   unsigned long long, unsigned long long))fn)(n, out, p.fs, p.fd, p.fv1, p.is,
                                                               p.id, p.iv1);
        return 0;
    }
    void *args[8] = {&n, &out, &p.fs, &p.fd, &p.fv1, &p.is, &p.id, &p.iv1};
    return ga_kernel_launch(a->device, fn, n, args, "ga_arange", err);
}

/* An integer dtype's first two values as words: the difference in the
 * dtype (NumPy's delta -= start), widened as the dtype's sign says. */
static arange_args_t integer_args(ga_dtype_t d, uint64_t s, uint64_t v1)
{
    unsigned char bytes[8];
    uint64_t diff = v1 - s;
    memcpy(bytes, &diff, 8);
    arange_args_t p = {.is = s, .iv1 = v1};
    p.id = ga_dtype_kind(d) == GA_KIND_UINT ? ga_dtype_get_u64(d, bytes, 0)
                                            : (uint64_t)ga_dtype_get_i64(d, bytes, 0);
    return p;
}

int ga_fill_arange(ga_array_t *a, double start, double next, cm_error_t *err)
{
    ga_dtype_t d = a->dtype;
    char k = ga_dtype_kind(d);
    arange_args_t p = {0};
    if (a->size == 0)
        return 0;
    if (k == GA_KIND_BOOL) {
        p.is = start != 0;
        p.iv1 = next != 0;
    } else if (k == GA_KIND_INT || k == GA_KIND_UINT) {
        uint64_t s = 0, v1 = 0;
        if (integer_of(d, start, "start", &s, err) != 0 ||
            (a->size > 1 && integer_of(d, next, "start + step", &v1, err) != 0))
            return -1;
        p = integer_args(d, s, v1);
    } else if (d == GA_F16) {
        float s = ga_half_to_float(ga_double_to_half(start));
        float v1 = ga_half_to_float(ga_double_to_half(next));
        p = (arange_args_t){.fs = s, .fv1 = v1, .fd = (float)(v1 - s)};
    } else if (d == GA_F32 || d == GA_C64) {
        float s = (float)start, v1 = (float)next;
        p = (arange_args_t){.fs = s, .fv1 = v1, .fd = (float)(v1 - s)};
    } else {
        p = (arange_args_t){.fs = start, .fv1 = next, .fd = next - start};
    }
    return launch_arange(a, p, err);
}

/* v as a word of integer dtype d, -1 with err when d cannot hold it. */
static int word_of(ga_dtype_t d, __int128 v, const char *what, uint64_t *out, cm_error_t *err)
{
    int bits = (int)ga_dtype_size(d) * 8;
    __int128 lo = ga_dtype_kind(d) == GA_KIND_UINT ? 0 : -((__int128)1 << (bits - 1));
    __int128 hi = ga_dtype_kind(d) == GA_KIND_UINT ? ((__int128)1 << bits) - 1
                                                   : ((__int128)1 << (bits - 1)) - 1;
    if (v < lo || v > hi) {
        unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
        CM_ERROR(err, GA_E_VALUE, "%s %s%llu%s is out of bounds for %s", what, v < 0 ? "-" : "",
                 (unsigned long long)m, m >> 64 ? " + 2^64" : "", ga_dtype_name(d));
        return -1;
    }
    *out = (uint64_t)v;
    return 0;
}

int ga_fill_arange_int(ga_array_t *a, int64_t start, int64_t step, cm_error_t *err)
{
    ga_dtype_t d = a->dtype;
    char k = ga_dtype_kind(d);
    __int128 next = (__int128)start + step;
    if (k != GA_KIND_INT && k != GA_KIND_UINT) /* NumPy: through the int's double */
        return ga_fill_arange(a, (double)start, (double)next, err);
    if (a->size == 0)
        return 0;
    uint64_t s = 0, v1 = 0;
    if (word_of(d, start, "start", &s, err) != 0 ||
        (a->size > 1 && word_of(d, next, "start + step", &v1, err) != 0))
        return -1;
    return launch_arange(a, integer_args(d, s, v1), err);
}

int ga_fill_linspace(ga_array_t *a, double start, double stop, cm_error_t *err)
{
    long long n = a->size, mode;
    if (n == 0)
        return 0;
    double div = (double)(n - 1), delta = stop - start, step = div > 0 ? delta / div : NAN;
    mode = div <= 0 ? 2 : step == 0 ? 1 : 0;
    void *fn = kernel(a->device, (plan_t){(int)a->dtype, 0}, "ga_linspace", err);
    if (!fn)
        return -1;
    void *out = ga_array_data(a);
    if (bk_lang(a->device) == BK_LANG_C) {
        ((void (*)(long long, void *, double, double, double, double, double, long long))fn)(
            n, out, start, stop, step, delta, div, mode);
        return 0;
    }
    void *args[8] = {&n, &out, &start, &stop, &step, &delta, &div, &mode};
    return ga_kernel_launch(a->device, fn, n, args, "ga_linspace", err);
}
