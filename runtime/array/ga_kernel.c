/* ga_kernel: the prelude and compiling kernels for a backend (see
 * ga_kernel.h). */
#include "ga_kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bk.h"
#include "cm_buf.h"
#include "cm_map.h"
#include "ga_array.h"

const char ga_kernel_prelude[] =
    "#ifdef __CUDACC__\n"
    "#define GA_FN static __device__ __forceinline__\n"
    "#define GA_RESTRICT __restrict__\n"
    "typedef signed char ga_i8; typedef unsigned char ga_u8;\n"
    "typedef short ga_i16; typedef unsigned short ga_u16;\n"
    "typedef int ga_i32; typedef unsigned int ga_u32;\n"
    "typedef long long ga_i64; typedef unsigned long long ga_u64;\n"
    "#define GA_INF __longlong_as_double(0x7ff0000000000000LL)\n"
    /* a kernel whose body is written once for both: a grid-stride loop on a
     * GPU, a plain loop in C */
    "#define GA_KERNEL extern \"C\" __global__ void\n"
    "#define GA_LOOP(q, n) for (ga_i64 q = blockIdx.x * (ga_i64)blockDim.x + threadIdx.x; q < (n);"
    " q += (ga_i64)gridDim.x * blockDim.x)\n"
    "GA_FN float ga_h2f(ga_u16 h) { float f; asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h)); return f; }\n"
    "GA_FN ga_u16 ga_f2h(float f) { ga_u16 h; asm(\"cvt.rn.f16.f32 %0, %1;\" : \"=h\"(h) : \"f\"(f)); return h; }\n"
    "#else\n"
    "#include <math.h>\n"
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "#define GA_FN static inline\n"
    "#define GA_RESTRICT restrict\n"
    "#define GA_INF __builtin_inf()\n"
    "#define GA_KERNEL void\n"
    "#define GA_LOOP(q, n) for (ga_i64 q = 0; q < (n); q++)\n"
    "typedef int8_t ga_i8; typedef uint8_t ga_u8; typedef int16_t ga_i16; typedef uint16_t ga_u16;\n"
    "typedef int32_t ga_i32; typedef uint32_t ga_u32; typedef long long ga_i64;\n"
    "typedef unsigned long long ga_u64;\n"
    "GA_FN float ga_h2f(ga_u16 h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }\n"
    "GA_FN ga_u16 ga_f2h(float f) { _Float16 x = (_Float16)f; ga_u16 h; memcpy(&h, &x, 2); return h; }\n"
    "#endif\n"
    "GA_FN float ga_h(float f) { return ga_h2f(ga_f2h(f)); }\n"
    /* an element of 16 bytes moved as bits (ga_kernel_bits) */
    "typedef struct { ga_u64 lo, hi; } ga_e16;\n"
    /* integers: T, its unsigned twin U, bits B, signed S */
    "#define GA_INT(s, T, U, B, S) \\\n"
    "GA_FN T ga_mod_##s(T a, T b) { if (b == 0 || (S && b == (T)-1)) return 0;"
    " T r = (T)(a % b); if (S && r != 0 && ((r < 0) != (b < 0))) r = (T)(r + b); return r; } \\\n"
    "GA_FN T ga_pow_##s(T a, T b) { if (S && b < 0) return a == 1 ? 1 : a == (T)-1 ? ((b & 1) ? (T)-1 : 1) : 0;"
    " U r = 1, x = (U)a; U e = (U)b; while (e) { if (e & 1) r *= x; x *= x; e >>= 1; } return (T)r; } \\\n"
    "GA_FN T ga_shl_##s(T a, T b) { return (b < 0 || b >= B) ? 0 : (T)((U)a << b); } \\\n"
    "GA_FN T ga_shr_##s(T a, T b) { return (b < 0 || b >= B) ? (T)(a < 0 ? -1 : 0) : (T)(a >> b); } \\\n"
    "GA_FN T ga_fmod_##s(T a, T b) { return (b == 0 || (S && b == (T)-1)) ? 0 : (T)(a % b); } \\\n"
    "GA_FN T ga_max_##s(T a, T b) { return a > b ? a : b; } \\\n"
    "GA_FN T ga_min_##s(T a, T b) { return a < b ? a : b; } \\\n"
    "GA_FN T ga_abs_##s(T a) { return a < 0 ? (T)(0u - (U)a) : a; } \\\n"
    "GA_FN T ga_sign_##s(T a) { return (T)((a > 0) - (a < 0)); }\n"
    "GA_INT(i8, ga_i8, unsigned, 8, 1) GA_INT(u8, ga_u8, unsigned, 8, 0)\n"
    "GA_INT(i16, ga_i16, unsigned, 16, 1) GA_INT(u16, ga_u16, unsigned, 16, 0)\n"
    "GA_INT(i32, ga_i32, unsigned, 32, 1) GA_INT(u32, ga_u32, unsigned, 32, 0)\n"
    "GA_INT(i64, ga_i64, ga_u64, 64, 1) GA_INT(u64, ga_u64, ga_u64, 64, 0)\n"
    /* floats: s suffix, T type, F the C library's suffix */
    "#define GA_FLOAT(s, T, F) \\\n"
    "GA_FN T ga_mod_##s(T a, T b) { T r = fmod##F(a, b); if (r != 0) { if ((r < 0) != (b < 0)) r += b; }"
    " else r = copysign##F((T)0, b); return r; } \\\n"
    "GA_FN T ga_pow_##s(T a, T b) { return pow##F(a, b); } \\\n"
    "GA_FN T ga_fmod_##s(T a, T b) { return fmod##F(a, b); } \\\n"
    "GA_FN T ga_max_##s(T a, T b) { return a != a ? a : b != b ? b : a > b ? a : b; } \\\n"
    "GA_FN T ga_min_##s(T a, T b) { return a != a ? a : b != b ? b : a < b ? a : b; } \\\n"
    "GA_FN T ga_sign_##s(T a) { return a > 0 ? (T)1 : a < 0 ? (T)-1 : a; }\n"
    "GA_FLOAT(f, float, f) GA_FLOAT(d, double, )\n";

const char *ga_kernel_bits(int bytes)
{
    switch (bytes) {
    case 1: return "ga_u8";
    case 2: return "ga_u16";
    case 4: return "ga_u32";
    case 8: return "ga_u64";
    default: return "ga_e16";
    }
}

/* ---- signatures ------------------------------------------------------- */

typedef struct known {
    char *key;       /* "device|name|signature" */
    void *fn;
} known_t;

static known_t *known;
static size_t nknown, cap_known;
static cm_map_t index_; /* key -> position in known */

void ga_kernel_reset(void)
{
    for (size_t i = 0; i < nknown; i++)
        free(known[i].key);
    nknown = 0;
    cm_map_clear(&index_);
}

static void remember(const char *key, void *fn)
{
    if (nknown == cap_known) {
        size_t n = cap_known ? cap_known * 2 : 64;
        known_t *k = realloc(known, n * sizeof *k);
        if (!k)
            return;
        /* the map borrows the keys, which do not move: only the array does */
        known = k;
        cap_known = n;
    }
    known[nknown].key = strdup(key);
    if (!known[nknown].key)
        return;
    known[nknown].fn = fn;
    cm_map_put(&index_, known[nknown].key, nknown);
    nknown++;
}

static void *compile(int device, const char *source, const char *name, cm_error_t *err)
{
    _Static_assert((int)BK_E_KERNEL == (int)GA_E_KERNEL, "error codes");
    cm_buf_t text = {0};
    cm_buf_adds(&text, ga_kernel_prelude);
    cm_buf_adds(&text, source);
    void *fn = bk_kernel_get(device, cm_buf_str(&text), NULL, name, err);
    cm_buf_free(&text);
    return fn;
}

void *ga_kernel_get(int device, const char *signature, const char *name,
                    char *(*make_source)(void *ctx), void *ctx, cm_error_t *err)
{
    cm_buf_t key = {0};
    cm_buf_addf(&key, "%d|%s|%s", device, name, signature);
    long at = cm_map_get(&index_, cm_buf_str(&key), key.len);
    void *fn = NULL;
    if (at >= 0) {
        fn = known[at].fn;
    } else {
        char *source = make_source(ctx);
        fn = compile(device, source, name, err);
        free(source);
        if (fn)
            remember(cm_buf_str(&key), fn);
    }
    cm_buf_free(&key);
    return fn;
}

char *ga_kernel_source(char *(*make_source)(void *ctx), void *ctx)
{
    cm_buf_t b = {0};
    cm_buf_adds(&b, ga_kernel_prelude);
    char *body = make_source(ctx);
    cm_buf_adds(&b, body);
    free(body);
    return cm_buf_steal(&b);
}

int ga_kernel_launch_grid(int device, void *fn, const unsigned grid[3], const unsigned block[3],
                          unsigned shared, void **args, const char *what, cm_error_t *err)
{
    return bk_kernel_launch(device, fn, grid, block, shared, args, what, err);
}

int ga_kernel_launch(int device, void *fn, int64_t n, void **args, const char *what, cm_error_t *err)
{
    int64_t blocks = (n + 255) / 256, most = (int64_t)bk_units(device) * 32;
    unsigned grid[3] = {(unsigned)(blocks < 1 ? 1 : blocks > most ? most : blocks), 1, 1};
    unsigned block[3] = {256, 1, 1};
    return ga_kernel_launch_grid(device, fn, grid, block, 0, args, what, err);
}

int ga_kernel_check(const char *source, int gpu, int *line, cm_error_t *err)
{
    return bk_kernel_check(gpu ? BK_LANG_CUDA : BK_LANG_C, source, line, err);
}
