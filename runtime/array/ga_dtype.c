/* ga_dtype: element types (see ga_dtype.h). */
#include "ga_dtype.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct info {
    const char *name, *npy, *ctype;
    size_t size;
    char kind;
} info_t;

static const info_t types[GA_NDTYPES] = {
    [GA_BOOL] = {"bool", "|b1", "bool", 1, GA_KIND_BOOL},
    [GA_I8] = {"int8", "|i1", "signed char", 1, GA_KIND_INT},
    [GA_U8] = {"uint8", "|u1", "unsigned char", 1, GA_KIND_UINT},
    [GA_I16] = {"int16", "<i2", "short", 2, GA_KIND_INT},
    [GA_U16] = {"uint16", "<u2", "unsigned short", 2, GA_KIND_UINT},
    [GA_I32] = {"int32", "<i4", "int", 4, GA_KIND_INT},
    [GA_U32] = {"uint32", "<u4", "unsigned int", 4, GA_KIND_UINT},
    [GA_I64] = {"int64", "<i8", "long long", 8, GA_KIND_INT},
    [GA_U64] = {"uint64", "<u8", "unsigned long long", 8, GA_KIND_UINT},
    [GA_F16] = {"float16", "<f2", "__half", 2, GA_KIND_FLOAT},
    [GA_F32] = {"float32", "<f4", "float", 4, GA_KIND_FLOAT},
    [GA_F64] = {"float64", "<f8", "double", 8, GA_KIND_FLOAT},
    [GA_C64] = {"complex64", "<c8", "float2", 8, GA_KIND_COMPLEX},
    [GA_C128] = {"complex128", "<c16", "double2", 16, GA_KIND_COMPLEX},
};

int ga_dtype_valid(int d)
{
    return d >= 0 && d < GA_NDTYPES;
}

size_t ga_dtype_size(ga_dtype_t d)
{
    return ga_dtype_valid(d) ? types[d].size : 0;
}

const char *ga_dtype_name(ga_dtype_t d)
{
    return ga_dtype_valid(d) ? types[d].name : "?";
}

char ga_dtype_kind(ga_dtype_t d)
{
    return ga_dtype_valid(d) ? types[d].kind : '?';
}

const char *ga_dtype_npy(ga_dtype_t d)
{
    return ga_dtype_valid(d) ? types[d].npy : "?";
}

const char *ga_dtype_ctype(ga_dtype_t d)
{
    return ga_dtype_valid(d) ? types[d].ctype : "?";
}

int ga_dtype_from_name(const char *name)
{
    static const struct {
        const char *alias;
        ga_dtype_t d;
    } aliases[] = {
        {"bool_", GA_BOOL}, {"?", GA_BOOL},    {"b1", GA_BOOL},     {"byte", GA_I8},
        {"ubyte", GA_U8},   {"short", GA_I16}, {"ushort", GA_U16},  {"intc", GA_I32},
        {"uintc", GA_U32},  {"int", GA_I64},   {"int_", GA_I64},    {"uint", GA_U64},
        {"half", GA_F16},   {"single", GA_F32}, {"float", GA_F64},  {"double", GA_F64},
        {"csingle", GA_C64}, {"complex", GA_C128}, {"cdouble", GA_C128},
    };
    if (!name)
        return -1;
    for (int d = 0; d < GA_NDTYPES; d++)
        if (strcmp(name, types[d].name) == 0 || strcmp(name, types[d].npy) == 0 ||
            strcmp(name, types[d].npy + 1) == 0)
            return d;
    if ((name[0] == '<' || name[0] == '|' || name[0] == '=') && name[1])
        for (int d = 0; d < GA_NDTYPES; d++)
            if (strcmp(name + 1, types[d].npy + 1) == 0)
                return d;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0)
            return aliases[i].d;
    return -1;
}

float ga_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, mant = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp == 0) {
        if (!mant) {
            bits = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do {
                e++;
                mant <<= 1;
            } while (!(mant & 0x400));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((mant & 0x3ff) << 13);
        }
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

uint16_t ga_double_to_half(double v)
{
    /* through float rounded to odd (truncated, the last bit set when
     * inexact): float's 13 extra bits then round to half as v itself
     * would, where plain (float)v could round twice */
    float f = (float)v;
    if (isfinite(f) && (double)f != v) {
        if (fabs((double)f) > fabs(v))
            f = nextafterf(f, 0.0f);
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        b |= 1;
        memcpy(&f, &b, sizeof f);
    }
    return ga_float_to_half(f);
}

uint16_t ga_float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) /* inf or nan */
        return sign | 0x7c00 | (absx > 0x7f800000u ? 0x200 : 0);
    if (absx >= 0x477ff000u) /* rounds to >= 65520: inf */
        return sign | 0x7c00;
    if (absx < 0x38800000u) { /* below the smallest normal half: subnormal or zero */
        if (absx < 0x33000000u)
            return sign;
        uint32_t mant = (absx & 0x7fffff) | 0x800000;
        int shift = 126 - (int)(absx >> 23); /* 14 .. 24 */
        uint32_t half = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            half++;
        return sign | (uint16_t)half;
    }
    uint32_t half = ((absx >> 13) - (112u << 10));
    uint32_t rem = absx & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
        half++;
    return sign | (uint16_t)half;
}

double ga_dtype_get_f64(ga_dtype_t d, const void *data, size_t i)
{
    const char *p = (const char *)data + i * ga_dtype_size(d);
    switch (d) {
    case GA_BOOL: return *(const unsigned char *)p != 0;
    case GA_I8: return *(const int8_t *)p;
    case GA_U8: return *(const uint8_t *)p;
    case GA_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case GA_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case GA_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    case GA_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case GA_I64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
    case GA_U64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
    case GA_F16: { uint16_t v; memcpy(&v, p, 2); return ga_half_to_float(v); }
    case GA_F32:
    case GA_C64: { float v; memcpy(&v, p, 4); return v; }
    case GA_F64:
    case GA_C128: { double v; memcpy(&v, p, 8); return v; }
    default: return NAN;
    }
}

double ga_dtype_get_imag(ga_dtype_t d, const void *data, size_t i)
{
    const char *p = (const char *)data + i * ga_dtype_size(d);
    if (d == GA_C64) {
        float v;
        memcpy(&v, p + 4, 4);
        return v;
    }
    if (d == GA_C128) {
        double v;
        memcpy(&v, p + 8, 8);
        return v;
    }
    return 0;
}

int64_t ga_dtype_get_i64(ga_dtype_t d, const void *data, size_t i)
{
    const char *p = (const char *)data + i * ga_dtype_size(d);
    switch (d) {
    case GA_I64: { int64_t v; memcpy(&v, p, 8); return v; }
    case GA_U64: { uint64_t v; memcpy(&v, p, 8); return (int64_t)v; }
    default: return (int64_t)ga_dtype_get_f64(d, data, i);
    }
}

uint64_t ga_dtype_get_u64(ga_dtype_t d, const void *data, size_t i)
{
    const char *p = (const char *)data + i * ga_dtype_size(d);
    switch (d) {
    case GA_U64: { uint64_t v; memcpy(&v, p, 8); return v; }
    case GA_I64: { int64_t v; memcpy(&v, p, 8); return (uint64_t)v; }
    default: {
        double v = ga_dtype_get_f64(d, data, i);
        return v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v;
    }
    }
}

void ga_dtype_set_f64(ga_dtype_t d, void *data, size_t i, double v)
{
    char *p = (char *)data + i * ga_dtype_size(d);
    switch (d) {
    case GA_BOOL: *(unsigned char *)p = v != 0; return;
    case GA_I8: *(int8_t *)p = (int8_t)(int64_t)v; return;
    case GA_U8: *(uint8_t *)p = (uint8_t)(int64_t)v; return;
    case GA_I16: { int16_t x = (int16_t)(int64_t)v; memcpy(p, &x, 2); return; }
    case GA_U16: { uint16_t x = (uint16_t)(int64_t)v; memcpy(p, &x, 2); return; }
    case GA_I32: { int32_t x = (int32_t)(int64_t)v; memcpy(p, &x, 4); return; }
    case GA_U32: { uint32_t x = (uint32_t)(int64_t)v; memcpy(p, &x, 4); return; }
    case GA_I64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); return; }
    case GA_U64: { uint64_t x = v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v; memcpy(p, &x, 8); return; }
    case GA_F16: { uint16_t x = ga_double_to_half(v); memcpy(p, &x, 2); return; }
    case GA_F32: { float x = (float)v; memcpy(p, &x, 4); return; }
    case GA_F64: memcpy(p, &v, 8); return;
    case GA_C64: { float x[2] = {(float)v, 0}; memcpy(p, x, 8); return; }
    case GA_C128: { double x[2] = {v, 0}; memcpy(p, x, 16); return; }
    default: return;
    }
}

int ga_dtype_set_int(ga_dtype_t d, void *data, size_t i, int64_t v, int is_unsigned)
{
    char k = ga_dtype_kind(d);
    if (k == GA_KIND_BOOL || k == GA_KIND_FLOAT || k == GA_KIND_COMPLEX) {
        ga_dtype_set_f64(d, data, i, is_unsigned ? (double)(uint64_t)v : (double)v);
        return 0;
    }
    int bits = (int)ga_dtype_size(d) * 8;
    int fits;
    if (is_unsigned && v < 0) /* past INT64_MAX */
        fits = d == GA_U64;
    else if (k == GA_KIND_UINT)
        fits = v >= 0 && (bits == 64 || v < (INT64_C(1) << bits));
    else
        fits = bits == 64 || (v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1)));
    if (!fits)
        return -1;
    memcpy((char *)data + i * ga_dtype_size(d), &v, ga_dtype_size(d)); /* little-endian */
    return 0;
}

/* The scalar C spellings a kernel may use for each dtype's elements. */
static const struct {
    ga_dtype_t d;
    const char *spellings[8];
} scalar_types[] = {
    {GA_BOOL, {"bool", "_Bool"}},
    {GA_I8, {"signed char", "int8_t", "char"}},
    {GA_U8, {"unsigned char", "uint8_t", "uchar"}},
    {GA_I16, {"short", "short int", "signed short", "int16_t"}},
    {GA_U16, {"unsigned short", "unsigned short int", "uint16_t", "ushort"}},
    {GA_I32, {"int", "signed", "signed int", "int32_t"}},
    {GA_U32, {"unsigned", "unsigned int", "uint32_t", "uint"}},
    {GA_I64, {"long long", "long long int", "long", "long int", "int64_t", "ptrdiff_t"}},
    {GA_U64, {"unsigned long long", "unsigned long", "uint64_t", "size_t", "ulong"}},
    {GA_F16, {"__half", "half", "__nv_half"}},
    {GA_F32, {"float"}},
    {GA_F64, {"double"}},
};

/* The pointee of a pointer parameter, normalised: qualifiers, the name and
 * the last '*' left out, words joined by one blank ("unsigned int"). */
static void pointee(const char *param, char *out, size_t len)
{
    char words[8][64];
    int n = 0;
    const char *star = strrchr(param, '*');
    const char *end = star ? star : param + strlen(param);
    for (const char *p = param; p < end && n < 8;) {
        while (p < end && !(isalnum((unsigned char)*p) || *p == '_'))
            p++;
        const char *w = p;
        while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
            p++;
        size_t wl = (size_t)(p - w);
        if (!wl || wl >= 64)
            continue;
        static const char *const skip[] = {"const", "volatile", "__restrict__", "restrict",
                                           "__restrict", "struct", NULL};
        int drop = 0;
        for (int i = 0; skip[i]; i++)
            drop |= strlen(skip[i]) == wl && memcmp(skip[i], w, wl) == 0;
        if (!drop) {
            memcpy(words[n], w, wl);
            words[n++][wl] = '\0';
        }
    }
    if (!star && n > 1) /* "float x": the last word is the name */
        n--;
    size_t at = 0;
    out[0] = '\0';
    for (int i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(out + at, len - at, "%s%s", i ? " " : "", words[i]);
}

int ga_dtype_fits_param(ga_dtype_t d, const char *param, char *why, size_t len)
{
    char t[160];
    pointee(param, t, sizeof t);
    if (!t[0] || strcmp(t, "void") == 0)
        return 1;
    int known = 0, fits = 0;
    for (size_t i = 0; i < sizeof scalar_types / sizeof scalar_types[0]; i++)
        for (int k = 0; k < 8 && scalar_types[i].spellings[k]; k++)
            if (strcmp(t, scalar_types[i].spellings[k]) == 0) {
                known = 1;
                fits |= scalar_types[i].d == d;
            }
    if (!known || fits)
        return 1;
    snprintf(why, len, "the kernel reads %s", t);
    return 0;
}

/* ---- promotion (NumPy's promote_types) ---- */

static int is_int(ga_dtype_t d) { return types[d].kind == GA_KIND_INT || types[d].kind == GA_KIND_UINT; }

/* The float that holds every value of integer d (NumPy's choice). */
static ga_dtype_t float_for_int(ga_dtype_t d)
{
    return types[d].size == 1 ? GA_F16 : types[d].size == 2 ? GA_F32 : GA_F64;
}

static ga_dtype_t int_of_size(size_t size, int is_signed)
{
    static const ga_dtype_t s[] = {GA_I8, GA_I16, GA_I32, GA_I64}, u[] = {GA_U8, GA_U16, GA_U32, GA_U64};
    int k = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
    return is_signed ? s[k] : u[k];
}

static ga_dtype_t promote_real(ga_dtype_t a, ga_dtype_t b)
{
    if (is_int(a) && is_int(b)) {
        int sa = types[a].kind == GA_KIND_INT, sb = types[b].kind == GA_KIND_INT;
        size_t za = types[a].size, zb = types[b].size;
        if (sa == sb)
            return za >= zb ? a : b;
        size_t ssize = sa ? za : zb, usize = sa ? zb : za;
        if (ssize > usize)
            return sa ? a : b;
        return usize == 8 ? GA_F64 : int_of_size(usize * 2, 1);
    }
    ga_dtype_t fa = is_int(a) ? float_for_int(a) : a, fb = is_int(b) ? float_for_int(b) : b;
    return types[fa].size >= types[fb].size ? fa : fb;
}

ga_dtype_t ga_dtype_promote(ga_dtype_t a, ga_dtype_t b)
{
    if (a == b || b == GA_BOOL)
        return a;
    if (a == GA_BOOL)
        return b;
    int ca = types[a].kind == GA_KIND_COMPLEX, cb = types[b].kind == GA_KIND_COMPLEX;
    if (ca || cb) {
        ga_dtype_t ra = ca ? (a == GA_C64 ? GA_F32 : GA_F64) : a;
        ga_dtype_t rb = cb ? (b == GA_C64 ? GA_F32 : GA_F64) : b;
        ga_dtype_t r = promote_real(ra, rb);
        return r == GA_F64 ? GA_C128 : GA_C64;
    }
    return promote_real(a, b);
}

ga_dtype_t ga_dtype_float_of(ga_dtype_t d)
{
    char k = types[d].kind;
    return k == GA_KIND_FLOAT || k == GA_KIND_COMPLEX ? d : ga_dtype_promote(d, GA_F16);
}
