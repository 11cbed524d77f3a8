/* ga_print: NumPy's array printing (see ga_print.h).
 *
 * The parts follow numpy/_core/arrayprint.py so that the output matches
 * it character for character: which indices are shown (_leading_trailing),
 * one formatter for all shown elements (FloatingFormat in 'maxprec' mode,
 * IntegerFormat, BoolFormat, ComplexFloatingFormat), and the nested
 * brackets with line wrapping (_formatArray). Floats print the shortest
 * decimal that reads back as the same value at the element's own precision
 * (float16 0.1 is "0.1"), found with printf's correctly rounded "%.*e" and
 * parsed back. */
#include "ga_print.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"

#define NUM_MAX 64   /* one formatted real: sign, <= 17 digits, exponent, padding */
#define ELEM_MAX 160 /* one formatted element (a complex is two reals and a 'j') */

/* ---- shortest decimals ---- */

/* v rounded to the nearest float of `bits` (16, 32, 64), ties to even. */
static double round_to(double v, int bits)
{
    if (bits == 64 || !isfinite(v))
        return v;
    if (bits == 32)
        return (float)v;
    double a = fabs(v);
    if (a >= 65520.0) /* halfway to 65536: rounds to even, past the largest half */
        return copysign(INFINITY, v);
    int e;
    frexp(a, &e);
    int q = e - 11; /* the weight of a half's last mantissa bit */
    if (q < -24)
        q = -24;    /* subnormals */
    return copysign(ldexp(nearbyint(ldexp(a, -q)), q), v);
}

/* The value of the decimal text s read at `bits` of precision. */
static double read_at(const char *s, int bits)
{
    return bits == 32 ? (double)strtof(s, NULL) : round_to(strtod(s, NULL), bits);
}

/* A decimal: digits d[0..n) with the point after d[0], times 10^e. */
typedef struct dec {
    char d[40];
    int n, e;
} dec_t;

/* "d.ddde±XX" (printf's %e of a non-negative value) into x, trailing zeros
 * dropped. */
static void dec_parse(const char *s, dec_t *x)
{
    x->n = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.')
            x->d[x->n++] = *s;
    x->e = *s ? atoi(s + 1) : 0;
    while (x->n > 1 && x->d[x->n - 1] == '0')
        x->n--;
    x->d[x->n] = 0;
}

/* The shortest decimal that reads back as a (> 0, finite) at `bits`. */
static void shortest(double a, int bits, dec_t *x)
{
    char s[NUM_MAX];
    for (int k = 1; k <= 17; k++) {
        snprintf(s, sizeof s, "%.*e", k - 1, a);
        if (read_at(s, bits) == a)
            break;
    }
    dec_parse(s, x);
}

/* a (>= 0, finite) positionally: integer digits into ip, fraction digits
 * into fp (no trailing zeros; "" for a whole number). The shortest digits,
 * rounded to `prec` fraction digits when they need more (prec < 0: never). */
static void pos_parts(double a, int bits, int prec, char *ip, char *fp)
{
    if (a == 0) {
        strcpy(ip, "0");
        fp[0] = 0;
        return;
    }
    dec_t x;
    shortest(a, bits, &x);
    if (prec >= 0 && x.n - 1 - x.e > prec) {
        char s[NUM_MAX + 320];
        snprintf(s, sizeof s, "%.*f", prec, a);
        char *dot = strchr(s, '.');
        size_t nf = 0;
        if (dot) {
            *dot = 0;
            nf = strlen(dot + 1);
            while (nf && dot[nf] == '0')
                nf--;
            memcpy(fp, dot + 1, nf);
        }
        fp[nf] = 0;
        strcpy(ip, s);
        return;
    }
    int k = 0, f = 0;
    if (x.e < 0) {
        ip[k++] = '0';
        for (int i = 0; i < -x.e - 1; i++)
            fp[f++] = '0';
        for (int i = 0; i < x.n; i++)
            fp[f++] = x.d[i];
    } else {
        for (int i = 0; i <= x.e; i++)
            ip[k++] = i < x.n ? x.d[i] : '0';
        for (int i = x.e + 1; i < x.n; i++)
            fp[f++] = x.d[i];
    }
    ip[k] = 0;
    fp[f] = 0;
}

/* a (>= 0, finite) as d.fff × 10^e: the shortest digits, rounded to `prec`
 * fraction digits when they need more (prec < 0: never). */
static void sci_parts(double a, int bits, int prec, dec_t *x)
{
    if (a == 0) {
        strcpy(x->d, "0");
        x->n = 1;
        x->e = 0;
        return;
    }
    shortest(a, bits, x);
    if (prec >= 0 && x->n - 1 > prec) {
        char s[NUM_MAX];
        snprintf(s, sizeof s, "%.*e", prec, a);
        dec_parse(s, x);
    }
}

static int exp_digits(int e)
{
    int n = 0;
    for (e = abs(e); e; e /= 10)
        n++;
    return n < 2 ? 2 : n;
}

/* ---- NumPy's FloatingFormat, mode 'maxprec' ---- */

typedef struct ffmt {
    int bits;       /* 16, 32, 64: the precision values are read back at */
    int plus;       /* sign '+': the imaginary parts */
    int exp_format; /* d.ddde+XX instead of positional */
    int precision;  /* most fraction digits */
    int pad_left;   /* width of sign and integer part */
    int pad_right;  /* width of the fraction (exponent format: all after the point) */
    int exp_size;   /* exponent digits */
} ffmt_t;

static int sign_char(double v, int plus)
{
    return signbit(v) ? '-' : plus ? '+' : 0;
}

/* Sets f up for the values v[0..n) (fillFormat). */
static void ffmt_fill(ffmt_t *f, const double *v, size_t n, int bits, int plus,
                      const ga_print_opts_t *o)
{
    double lo = INFINITY, hi = 0;
    size_t finite = 0;
    int neginf = 0;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(v[i]);
        if (!isfinite(v[i])) {
            neginf |= isinf(v[i]) && v[i] < 0;
            continue;
        }
        finite++;
        if (a != 0) {
            lo = a < lo ? a : lo;
            hi = a > hi ? a : hi;
        }
    }
    *f = (ffmt_t){.bits = bits, .plus = plus, .precision = o->precision, .exp_size = -1};
    if (hi > 0) {
        /* NumPy compares in the dtype: its cutoff 10**min(8, finfo.precision),
         * 1e-4 and the ratio all as float16/32/64 */
        double cutoff = bits == 16 ? 1e3 : bits == 32 ? 1e6 : 1e8;
        f->exp_format = hi >= cutoff || (!o->suppress && (lo < round_to(1e-4, bits) ||
                                                          round_to(hi / lo, bits) > 1000.0));
    }
    char ip[NUM_MAX + 320], fp[NUM_MAX + 320];
    int maxint = 0, maxfrac = 0, maxexp = 0;
    for (size_t i = 0; i < n && finite; i++) {
        if (!isfinite(v[i]))
            continue;
        int s = sign_char(v[i], plus) != 0, ni, nf;
        if (f->exp_format) {
            dec_t x;
            sci_parts(fabs(v[i]), bits, o->precision, &x);
            ni = s + 1;
            nf = x.n - 1;
            maxexp = exp_digits(x.e) > maxexp ? exp_digits(x.e) : maxexp;
        } else {
            pos_parts(fabs(v[i]), bits, o->precision, ip, fp);
            ni = s + (int)strlen(ip);
            nf = (int)strlen(fp);
        }
        maxint = ni > maxint ? ni : maxint;
        maxfrac = nf > maxfrac ? nf : maxfrac;
    }
    f->pad_left = maxint;
    if (f->exp_format) {
        f->precision = maxfrac;
        f->exp_size = maxexp;
        f->pad_right = maxexp + 2 + maxfrac;
    } else {
        f->pad_right = maxfrac;
    }
    if (finite < n) { /* room for "nan", "inf", "-inf" */
        int offset = f->pad_right + 1, need = 3 + (plus || neginf) - offset;
        f->pad_left = need > f->pad_left ? need : f->pad_left;
    }
}

/* One value as f formats it, into out (NUM_MAX + pad bytes). */
static void ffmt_put(const ffmt_t *f, double v, char *out)
{
    int sg = sign_char(v, f->plus), k = 0;
    char body[NUM_MAX + 320], sgs[2] = {(char)sg, 0};
    if (!isfinite(v)) {
        const char *word = isnan(v) ? (f->plus ? "+nan" : "nan") : sg == '-' ? "-inf" : sg ? "+inf" : "inf";
        sprintf(out, "%*s", f->pad_left + f->pad_right + 1, word);
        return;
    }
    if (sg)
        body[k++] = (char)sg;
    if (f->exp_format) {
        /* all values get `precision` fraction digits, and those past a
         * value's shortest digits are its exact ones (NumPy's min_digits):
         * float16 0.1 among longer values is 9.998e-02, not 1.000e-01 */
        char m[NUM_MAX];
        snprintf(m, sizeof m, "%.*e", f->precision, fabs(v));
        char *e = strchr(m, 'e');
        int ex = atoi(e + 1);
        *e = 0;
        k += sprintf(body + k, "%s%se%c%0*d", m, f->precision ? "" : ".", ex < 0 ? '-' : '+', f->exp_size,
                     abs(ex));
        sprintf(out, "%*s", f->pad_left + (k - (sg != 0) - 1), body);
        return;
    }
    char ip[NUM_MAX + 320], fp[NUM_MAX + 320];
    pos_parts(fabs(v), f->bits, f->precision, ip, fp);
    int ni = (sg != 0) + (int)strlen(ip);
    k = sprintf(out, "%*s%s%s.%s", f->pad_left > ni ? f->pad_left - ni : 0, "", sgs, ip, fp);
    sprintf(out + k, "%*s", f->pad_right - (int)strlen(fp), "");
}

/* ---- one formatter for all shown elements ---- */

typedef struct fmt {
    ga_dtype_t dtype;
    char kind;
    int zero_d;      /* a 0-d array: bool has no padding */
    int width;       /* integers: the widest */
    ffmt_t re, im;   /* floats: re; complex: both parts */
    const char *data; /* the gathered elements, dense */
    size_t elsize;
} fmt_t;

static int float_bits(ga_dtype_t d)
{
    return d == GA_F16 ? 16 : d == GA_F32 || d == GA_C64 ? 32 : 64;
}

static int int_text(const fmt_t *f, size_t i, char *out)
{
    if (f->kind == GA_KIND_UINT)
        return sprintf(out, "%llu", (unsigned long long)ga_dtype_get_u64(f->dtype, f->data, i));
    return sprintf(out, "%lld", (long long)ga_dtype_get_i64(f->dtype, f->data, i));
}

/* Sets f up for the n gathered elements at data; -1 when out of memory. */
static int fmt_fill(fmt_t *f, ga_dtype_t dtype, int zero_d, const void *data, size_t n,
                    const ga_print_opts_t *o)
{
    *f = (fmt_t){.dtype = dtype, .kind = ga_dtype_kind(dtype), .zero_d = zero_d, .data = data,
                 .elsize = ga_dtype_size(dtype)};
    char t[32];
    if (f->kind == GA_KIND_INT || f->kind == GA_KIND_UINT) {
        for (size_t i = 0; i < n; i++) {
            int w = int_text(f, i, t);
            f->width = w > f->width ? w : f->width;
        }
    } else if (f->kind == GA_KIND_FLOAT || f->kind == GA_KIND_COMPLEX) {
        double *v = malloc((n ? n : 1) * sizeof *v);
        if (!v)
            return -1;
        for (size_t i = 0; i < n; i++)
            v[i] = ga_dtype_get_f64(dtype, data, i);
        ffmt_fill(&f->re, v, n, float_bits(dtype), 0, o);
        if (f->kind == GA_KIND_COMPLEX) {
            for (size_t i = 0; i < n; i++)
                v[i] = ga_dtype_get_imag(dtype, data, i);
            ffmt_fill(&f->im, v, n, float_bits(dtype), 1, o);
        }
        free(v);
    }
    return 0;
}

/* Element i as f formats it, into out (ELEM_MAX bytes); its length. */
static int fmt_put(const fmt_t *f, size_t i, char *out)
{
    switch (f->kind) {
    case GA_KIND_BOOL:
        return sprintf(out, "%s", ga_dtype_get_u64(f->dtype, f->data, i) ? (f->zero_d ? "True" : " True") : "False");
    case GA_KIND_INT:
    case GA_KIND_UINT: {
        char t[32];
        int_text(f, i, t);
        return sprintf(out, "%*s", f->width, t);
    }
    case GA_KIND_FLOAT:
        ffmt_put(&f->re, ga_dtype_get_f64(f->dtype, f->data, i), out);
        return (int)strlen(out);
    default: { /* complex: the 'j' goes before the imaginary part's padding */
        ffmt_put(&f->re, ga_dtype_get_f64(f->dtype, f->data, i), out);
        size_t k = strlen(out), m;
        ffmt_put(&f->im, ga_dtype_get_imag(f->dtype, f->data, i), out + k);
        for (m = strlen(out); m > k && out[m - 1] == ' '; m--)
            ;
        size_t pad = strlen(out) - m;
        memmove(out + m + 1, out + m, pad + 1);
        out[m] = 'j';
        return (int)strlen(out);
    }
    }
}

/* ---- NumPy's scalar str (the str of a 0-d array) ---- */

/* One real as NumPy's float scalar str shows it: positional when
 * 1e-4 <= |v| < 10**precision-ish cutoff (1e3, 1e6, 1e16 for float16/32/64),
 * else d.ddde+XX. keep_zero: "1.0" (floats) rather than "1" (complex parts). */
static void scalar_real(cm_buf_t *b, double v, int bits, int plus, int keep_zero)
{
    int sg = sign_char(v, plus);
    if (isnan(v)) {
        cm_buf_adds(b, plus ? "+nan" : "nan");
        return;
    }
    if (sg)
        cm_buf_addc(b, (char)sg);
    double a = fabs(v), cutoff = bits == 16 ? 1e3 : bits == 32 ? 1e6 : 1e16;
    if (isinf(v)) {
        cm_buf_adds(b, "inf");
    } else if (a == 0 || (a >= 1e-4 && a < cutoff)) {
        char ip[NUM_MAX + 320], fp[NUM_MAX + 320];
        pos_parts(a, bits, -1, ip, fp);
        cm_buf_addf(b, "%s%s%s", ip, fp[0] || keep_zero ? "." : "", fp[0] ? fp : keep_zero ? "0" : "");
    } else {
        dec_t x;
        sci_parts(a, bits, -1, &x);
        cm_buf_addf(b, "%c%s%se%c%02d", x.d[0], x.n > 1 ? "." : "", x.d + 1, x.e < 0 ? '-' : '+', abs(x.e));
    }
}

static void scalar_str(cm_buf_t *b, const fmt_t *f)
{
    char t[32];
    int bits = float_bits(f->dtype);
    double re = ga_dtype_get_f64(f->dtype, f->data, 0);
    switch (f->kind) {
    case GA_KIND_BOOL: cm_buf_adds(b, re != 0 ? "True" : "False"); break;
    case GA_KIND_INT:
    case GA_KIND_UINT: int_text(f, 0, t); cm_buf_adds(b, t); break;
    case GA_KIND_FLOAT: scalar_real(b, re, bits, 0, 1); break;
    default: {
        double im = ga_dtype_get_imag(f->dtype, f->data, 0);
        if (re == 0 && !signbit(re)) {
            scalar_real(b, im, bits, 0, 0);
            cm_buf_addc(b, 'j');
            break;
        }
        cm_buf_addc(b, '(');
        scalar_real(b, re, bits, 0, 0);
        scalar_real(b, im, bits, 1, 0);
        cm_buf_adds(b, "j)");
    }
    }
}

/* ---- the shown indices and the gather ---- */

typedef struct shown {
    int ndim;
    int64_t count[GA_MAX_DIMS];  /* indices shown on each axis */
    int64_t *idx[GA_MAX_DIMS];   /* (count[k],) the indices */
    int summarised[GA_MAX_DIMS]; /* axis k has "..." after its first edgeitems */
    int64_t stride[GA_MAX_DIMS]; /* in the dense buffer, in elements */
    int64_t n;                   /* elements gathered */
    void *data;                  /* (n,) elements, dense, C order */
} shown_t;

static void shown_free(shown_t *s)
{
    for (int k = 0; k < s->ndim; k++)
        free(s->idx[k]);
    free(s->data);
}

static void shape_text(int ndim, const int64_t *shape, cm_buf_t *b)
{
    cm_buf_addc(b, '(');
    for (int k = 0; k < ndim; k++)
        cm_buf_addf(b, "%s%lld", k ? ", " : "", (long long)shape[k]);
    cm_buf_adds(b, ndim == 1 ? ",)" : ")");
}

static int check_array(const ga_array_t *a, cm_error_t *err)
{
    if (!a || !ga_dtype_valid((int)a->dtype) || a->ndim < 0 || a->ndim > GA_MAX_DIMS) {
        CM_ERROR(err, GA_E_FREED, "print: not an array");
        return -1;
    }
    return 0;
}

/* Gathers the elements shown on each axis: for axis k, its first and last
 * edge indices when summarise and the axis is longer than 2 * edge, or
 * only its first and last when ends_only[k], else all. */
static int shown_gather(shown_t *s, const ga_array_t *a, int summarise, int edge, const int *ends_only,
                        ga_gather_fn gather, void *ctx, cm_error_t *err)
{
    memset(s, 0, sizeof *s);
    s->ndim = a->ndim;
    s->n = 1;
    for (int k = 0; k < a->ndim; k++) {
        int64_t len = a->shape[k], c = len;
        if (ends_only && ends_only[k])
            c = len > 2 ? 2 : len;
        else if (summarise && len > 2 * (int64_t)edge)
            c = 2 * (int64_t)edge, s->summarised[k] = 1;
        s->count[k] = c;
        s->idx[k] = malloc((c ? c : 1) * sizeof(int64_t));
        if (!s->idx[k])
            goto oom;
        for (int64_t i = 0; i < c; i++)
            s->idx[k][i] = c == len ? i : i < c / 2 ? i : len - c + i;
        s->n *= c;
    }
    int64_t st = 1;
    for (int k = a->ndim - 1; k >= 0; k--) {
        s->stride[k] = st;
        st *= s->count[k];
    }
    s->data = malloc(s->n ? (size_t)s->n * ga_dtype_size(a->dtype) : 1);
    if (!s->data)
        goto oom;
    if (s->n && gather(ctx, a, (const int64_t *const *)s->idx, s->count, s->data, err) != 0) {
        CM_ERROR(err, GA_E_DEVICE, "print: the elements could not be read");
        shown_free(s);
        return -1;
    }
    return 0;
oom:
    CM_ERROR(err, GA_E_MEMORY, "print: out of memory");
    shown_free(s);
    return -1;
}

/* ---- the nested brackets (_formatArray) ---- */

typedef struct layout {
    const shown_t *s;
    const fmt_t *f;
    const char *sep; /* ", " (repr) or " " (str) */
    int edge;
} layout_t;

static void add_spaces(cm_buf_t *b, int n)
{
    for (int i = 0; i < n; i++)
        cm_buf_addc(b, ' ');
}

/* Adds word to line, first moving line to s (without its trailing blanks)
 * and starting a new one at the hanging indent when it would pass width
 * (_extendLine). */
static void extend_line(cm_buf_t *s, cm_buf_t *line, const char *word, int width, int hang)
{
    if ((int)(line->len + strlen(word)) > width && (int)line->len > hang) {
        size_t n = line->len;
        while (n && line->s[n - 1] == ' ')
            n--;
        cm_buf_add(s, line->s, n);
        cm_buf_addc(s, '\n');
        line->len = 0;
        add_spaces(line, hang);
    }
    cm_buf_adds(line, word);
}

/* The nested text of the block at dense offset off on axis, into out;
 * hang: the indent of its continuation lines, width: the room it has. */
static void layout_axis(const layout_t *l, int axis, int64_t off, int hang, int width, cm_buf_t *out)
{
    const shown_t *s = l->s;
    int64_t c = s->count[axis];
    cm_buf_t b = {0}; /* NumPy's s: it starts at the hanging indent, dropped at the end */
    if (axis == s->ndim - 1) {
        cm_buf_t line = {0};
        char word[ELEM_MAX];
        add_spaces(&line, hang);
        for (int64_t p = 0; p < c; p++) {
            if (s->summarised[axis] && p == l->edge) {
                extend_line(&b, &line, "...", width - 1, hang);
                cm_buf_adds(&line, l->sep);
            }
            fmt_put(l->f, (size_t)(off + p * s->stride[axis]), word);
            extend_line(&b, &line, word, width - 1, hang);
            if (p < c - 1)
                cm_buf_adds(&line, l->sep);
        }
        cm_buf_add(&b, line.s ? line.s : "", line.len);
        cm_buf_free(&line);
    } else {
        /* the separator without its blank, then one newline per axis left */
        cm_buf_t line_sep = {0};
        add_spaces(&b, hang);
        size_t sl = strlen(l->sep);
        while (sl && l->sep[sl - 1] == ' ')
            sl--;
        cm_buf_add(&line_sep, l->sep, sl);
        for (int i = axis; i < s->ndim - 1; i++)
            cm_buf_addc(&line_sep, '\n');
        for (int64_t p = 0; p < c; p++) {
            if (p > 0)
                add_spaces(&b, hang);
            if (s->summarised[axis] && p == l->edge) {
                cm_buf_adds(&b, "...");
                cm_buf_adds(&b, cm_buf_str(&line_sep));
                add_spaces(&b, hang);
            }
            layout_axis(l, axis + 1, off + p * s->stride[axis], hang + 1, width - 1, &b);
            if (p < c - 1)
                cm_buf_adds(&b, cm_buf_str(&line_sep));
        }
        cm_buf_free(&line_sep);
    }
    cm_buf_addc(out, '[');
    cm_buf_add(out, b.s + hang, b.len - (size_t)hang);
    cm_buf_addc(out, ']');
    cm_buf_free(&b);
}

/* ---- repr and str ---- */

void ga_print_defaults(ga_print_opts_t *o)
{
    *o = (ga_print_opts_t){.precision = 8, .threshold = 1000, .edgeitems = 3, .linewidth = 75};
}

/* NumPy's array2string body of a (its elements already in s) into out:
 * "[]" when empty, the one element of a 0-d array, else the brackets. */
static void body_text(const ga_array_t *a, const shown_t *s, const fmt_t *f, const ga_print_opts_t *o,
                      const char *sep, int prefix, int width, cm_buf_t *out)
{
    char word[ELEM_MAX];
    if (a->size == 0) {
        cm_buf_adds(out, "[]");
    } else if (a->ndim == 0) {
        fmt_put(f, 0, word);
        cm_buf_adds(out, word);
    } else {
        layout_t l = {.s = s, .f = f, .sep = sep, .edge = o->edgeitems};
        layout_axis(&l, 0, 0, 1 + prefix, width, out);
    }
}

/* The options (opts, or the defaults) into o; gathers what a shows and
 * sets up its formatter. -1 with err set. */
static int prepare(const ga_array_t *a, const ga_print_opts_t *opts, const int *ends_only, ga_gather_fn gather,
                   void *ctx, ga_print_opts_t *o, shown_t *s, fmt_t *f, cm_error_t *err)
{
    if (opts)
        *o = *opts;
    else
        ga_print_defaults(o);
    if (o->edgeitems < 1)
        o->edgeitems = 1;
    if (check_array(a, err) != 0)
        return -1;
    if (shown_gather(s, a, a->size > o->threshold, o->edgeitems, ends_only, gather, ctx, err) != 0)
        return -1;
    if (fmt_fill(f, a->dtype, a->ndim == 0, s->data, (size_t)s->n, o) != 0) {
        shown_free(s);
        CM_ERROR(err, GA_E_MEMORY, "print: out of memory");
        return -1;
    }
    return 0;
}

/* gpuc's suffix after the repr's body in out: on the same line, or on a
 * line of its own under the elements when it would make the last line
 * longer than linewidth (as NumPy places its "dtype="). */
static void add_suffix(cm_buf_t *out, const ga_array_t *a, int linewidth, int indent)
{
    cm_buf_t extra = {0};
    char dev[32];
    ga_device_text(a->device, dev, sizeof dev);
    cm_buf_addf(&extra, "dtype=%s, shape=", ga_dtype_name(a->dtype));
    shape_text(a->ndim, a->shape, &extra);
    cm_buf_addf(&extra, ", device=%s)", dev);
    const char *nl = strrchr(out->s, '\n');
    size_t last = out->len - (nl ? (size_t)(nl + 1 - out->s) : 0);
    if ((int)(last + extra.len + 1) > linewidth) {
        cm_buf_addc(out, '\n');
        add_spaces(out, indent);
    } else {
        cm_buf_addc(out, ' ');
    }
    cm_buf_add(out, extra.s, extra.len);
    cm_buf_free(&extra);
}

/* repr (NumPy's "array(" body "," and gpuc's suffix) or str. */
static char *print_text(const ga_array_t *a, const ga_print_opts_t *opts, ga_gather_fn gather, void *ctx,
                        int repr, cm_error_t *err)
{
    static const char prefix[] = "array(";
    int plen = (int)sizeof prefix - 1;
    ga_print_opts_t o;
    shown_t s;
    fmt_t f;
    if (prepare(a, opts, NULL, gather, ctx, &o, &s, &f, err) != 0)
        return NULL;
    cm_buf_t out = {0};
    if (repr) {
        cm_buf_adds(&out, prefix);
        body_text(a, &s, &f, &o, ", ", plen, o.linewidth - 1, &out); /* -1: the closing ")" */
        cm_buf_addc(&out, ',');
        add_suffix(&out, a, o.linewidth, plen);
    } else if (a->ndim == 0) {
        scalar_str(&out, &f);
    } else {
        body_text(a, &s, &f, &o, " ", 0, o.linewidth, &out);
    }
    shown_free(&s);
    return cm_buf_steal(&out);
}

char *ga_print_repr(const ga_array_t *a, const ga_print_opts_t *o, ga_gather_fn gather, void *ctx,
                    cm_error_t *err)
{
    return print_text(a, o, gather, ctx, 1, err);
}

char *ga_print_str(const ga_array_t *a, const ga_print_opts_t *o, ga_gather_fn gather, void *ctx,
                   cm_error_t *err)
{
    return print_text(a, o, gather, ctx, 0, err);
}

/* ---- HTML ---- */

/* Element i without its padding, as a table cell. */
static void html_cell(cm_buf_t *b, const fmt_t *f, size_t i)
{
    char word[ELEM_MAX];
    int n = fmt_put(f, i, word), k = 0;
    while (n && word[n - 1] == ' ')
        n--;
    while (k < n && word[k] == ' ')
        k++;
    cm_buf_adds(b, "<td>");
    cm_buf_add(b, word + k, (size_t)(n - k));
    cm_buf_adds(b, "</td>");
}

static void html_elided_row(cm_buf_t *b, int64_t cols)
{
    cm_buf_adds(b, "<tr>");
    for (int64_t j = 0; j < cols; j++)
        cm_buf_adds(b, "<td>&#8942;</td>");
    cm_buf_adds(b, "</tr>\n");
}

/* A table of the last two axes (or one row, or one cell) at dense offset
 * off; caption when there is one. */
static void html_table(cm_buf_t *b, const shown_t *s, const fmt_t *f, int edge, int64_t off,
                       const char *caption)
{
    int nd = s->ndim < 2 ? s->ndim : 2, rax = s->ndim - 2, cax = s->ndim - 1;
    int64_t rows = nd == 2 ? s->count[rax] : 1, cols = nd >= 1 ? s->count[cax] : 1;
    int rsum = nd == 2 && s->summarised[rax], csum = nd >= 1 && s->summarised[cax];
    cm_buf_adds(b, "<table class=\"gpuc-array\" style=\"font-family: monospace; text-align: right\">\n");
    if (caption)
        cm_buf_addf(b, "<caption>%s</caption>\n", caption);
    for (int64_t r = 0; r < rows; r++) {
        if (rsum && r == edge)
            html_elided_row(b, cols + csum);
        cm_buf_adds(b, "<tr>");
        for (int64_t c = 0; c < cols; c++) {
            if (csum && c == edge)
                cm_buf_adds(b, "<td>&#8230;</td>");
            int64_t i = off + (nd == 2 ? r * s->stride[rax] : 0) + (nd >= 1 ? c * s->stride[cax] : 0);
            html_cell(b, f, (size_t)i);
        }
        cm_buf_adds(b, "</tr>\n");
    }
    cm_buf_adds(b, "</table>\n");
}

char *ga_print_html(const ga_array_t *a, const ga_print_opts_t *opts, ga_gather_fn gather, void *ctx,
                    cm_error_t *err)
{
    ga_print_opts_t o;
    int ends_only[GA_MAX_DIMS] = {0};
    for (int k = 0; a && k + 2 < a->ndim && k < GA_MAX_DIMS; k++)
        ends_only[k] = 1; /* the leading axes: the first and the last block */
    shown_t s;
    fmt_t f;
    if (prepare(a, opts, ends_only, gather, ctx, &o, &s, &f, err) != 0)
        return NULL;
    cm_buf_t b = {0}, cap = {0};
    cm_buf_adds(&b, "<div class=\"gpuc-array\">\n");
    if (a->size > 0 && a->ndim <= 2) {
        html_table(&b, &s, &f, o.edgeitems, 0, NULL);
    } else if (a->size > 0) {
        /* the first block, then the last one when there is another */
        int lead = a->ndim - 2;
        int64_t blocks = s.n / (s.count[lead] * s.count[lead + 1]);
        for (int64_t blk = 0; blk < blocks; blk += blocks - 1) {
            cap.len = 0;
            cm_buf_addc(&cap, '[');
            for (int k = 0; k < lead; k++)
                cm_buf_addf(&cap, "%lld, ", (long long)(blk ? a->shape[k] - 1 : 0));
            cm_buf_adds(&cap, ":, :]");
            html_table(&b, &s, &f, o.edgeitems, blk ? (blocks - 1) * s.stride[lead - 1] : 0, cap.s);
            if (blocks == 1)
                break;
        }
    }
    char dev[32];
    ga_device_text(a->device, dev, sizeof dev);
    cm_buf_addf(&b, "<div class=\"gpuc-array-caption\">%s, shape=", ga_dtype_name(a->dtype));
    shape_text(a->ndim, a->shape, &b);
    cm_buf_addf(&b, ", device=%s</div>\n</div>\n", dev);
    cm_buf_free(&cap);
    shown_free(&s);
    return cm_buf_steal(&b);
}
