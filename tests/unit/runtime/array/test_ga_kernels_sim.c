/* The GPU's sort, search, index and scan kernels (the CUDA text of
 * ga_sort_source, ga_index_source and ga_scan_source) run on the CUDA
 * simulator, where
 * there is no GPU: each is a %%kernel cell of a notebook that `gpuc run`
 * executes, and a host cell drives it as the library does and checks the
 * answer. The radix sort (the scan of the counts on the host) against
 * NumPy's stable sort: ordered with NaN last, each element from its own
 * line, equal keys in their first order; segmented (the lines' digits
 * last), with and without carried indices, float32, float64, int16 and
 * int32 keys whose high digits are all one (those passes left out).
 * take with negative indices and one out of range (flagged, not read),
 * put (a negative index), the selection of a mask's elements and argwhere
 * of a mask (flat and 2-d) over three tiles, the tiles' counts and
 * offsets, the check of put's indices, searchsorted on both sides and the shared-memory histogram. The
 * scan of long rows (a block a row, fewer blocks than rows) and the flat
 * three-pass scan, int32 into int64. GPUC_EXE is the gpuc binary (set by ctest). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ga_index.h"
#include "ga_join.h"
#include "ga_scan.h"
#include "ga_sort.h"
#include "ga_transpose.h"

/* The host cell: TYPE, the values' type, KBITS, VALS, LINES, M are filled in. */
static const char host_cell[] =
    "typedef %s K;\ntypedef %s V;\n"
    "long long m = %d, lines = %d, n = (long long)%d * %d, tiles = (n + 2047) / 2048, nc = 16 * tiles;\n"
    "int kbits = %d, vals = %d;\n"
    "K *h = malloc(n * sizeof(K)), *out = malloc(n * sizeof(K));\n"
    "V *hv = malloc(n * sizeof(V)), *ov = malloc(n * sizeof(V)); long long *hc = malloc(nc * 8);\n"
    "srand(3);\n"
    "for (long long i = 0; i < n; i++) h[i] = (K)((rand() %% 2001) - 1000 + %d) / (K)%d;\n"
    "%s\n"
    "for (long long i = 0; i < n; i++) hv[i] = -7; /* the first pass makes them */\n"
    "K *k0, *k1; V *v0, *v1; long long *dc, *di;\n"
    "cudaMalloc((void **)&k0, n * sizeof(K)); cudaMalloc((void **)&k1, n * sizeof(K));\n"
    "cudaMalloc((void **)&v0, n * sizeof(V)); cudaMalloc((void **)&v1, n * sizeof(V));\n"
    "cudaMalloc((void **)&dc, nc * 8); cudaMalloc((void **)&di, nc * 8);\n"
    "cudaMemcpy(k0, h, n * sizeof(K), cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(v0, hv, n * sizeof(V), cudaMemcpyHostToDevice);\n"
    "int line_bits = 0; while (lines > 1 && (1LL << line_bits) < lines) line_bits++;\n"
    "unsigned long long and_or[2] = {~0ULL, 0}, *dbits;\n"
    "cudaMalloc((void **)&dbits, 16); cudaMemcpy(dbits, and_or, 16, cudaMemcpyHostToDevice);\n"
    "ga_rx_bits<<<3, 64>>>(n, k0, dbits);\n"
    "cudaMemcpy(and_or, dbits, 16, cudaMemcpyDeviceToHost);\n"
    "unsigned long long differ = and_or[0] ^ and_or[1];\n"
    "int passes = 0;\n"
    "for (int pass = 0; pass * 4 < kbits + ((line_bits + 3) / 4) * 4; pass++) {\n"
    "    int lp = pass * 4 >= kbits, shift = lp ? pass * 4 - kbits : pass * 4;\n"
    "    if (!lp && !((differ >> shift) & 15)) continue;\n"
    "    passes++;\n"
    "    /* the first pass makes the indices itself (no values read) */\n"
    "    ga_rx_count<<<(int)tiles, 256>>>(n, k0, vals && passes > 1 ? v0 : 0, shift, lp, m, dc);\n"
    "    cudaMemcpy(hc, dc, nc * 8, cudaMemcpyDeviceToHost);\n"
    "    for (long long i = 1; i < nc; i++) hc[i] += hc[i - 1];\n"
    "    cudaMemcpy(di, hc, nc * 8, cudaMemcpyHostToDevice);\n"
    "    ga_rx_scatter<<<(int)tiles, 256>>>(n, k0, vals && passes > 1 ? v0 : 0, k1, vals ? v1 : 0, shift, lp, m, dc, di);\n"
    "    K *t = k0; k0 = k1; k1 = t; V *u = v0; v0 = v1; v1 = u;\n"
    "}\n"
    "cudaMemcpy(out, k0, n * sizeof(K), cudaMemcpyDeviceToHost);\n"
    "cudaMemcpy(ov, v0, n * sizeof(V), cudaMemcpyDeviceToHost);\n"
    "int bad = 0;\n"
    "for (long long l = 0; l < lines; l++)\n"
    "  for (long long p = 0; p < m; p++) {\n"
    "    K x = out[l * m + p], w = p ? out[l * m + p - 1] : x;\n"
    "    if (vals && ov[l * m + p] / m != l) bad++;\n"
    "    if (vals && !(h[ov[l * m + p]] == x || x != x)) bad++;\n"
    "    if (p && (w > x || (w != w && x == x))) bad++;\n"
    "    if (vals && p && w == x && ov[l * m + p - 1] > ov[l * m + p]) bad++;\n"
    "  }\n"
    "if (!vals) { /* the same elements: sums of both */\n"
    "  double s0 = 0, s1 = 0;\n"
    "  for (long long i = 0; i < n; i++) { if (h[i] == h[i]) s0 += h[i]; if (out[i] == out[i]) s1 += out[i]; }\n"
    "  if (s0 - s1 > 1e-6 || s1 - s0 > 1e-6) bad++; /* added in other orders */\n}\n"
    "if (passes != %d) bad += 1000 + passes;\n"
    "printf(\"bad %%d\\n\", bad);";

static json_t *cell(const char *text)
{
    return json_pack("{s:s, s:n, s:{}, s:[], s:s}", "cell_type", "code", "execution_count",
                     "metadata", "outputs", "source", text);
}

/* Runs a notebook of the kernel cell src and the host cell host through
 * `gpuc run` in dir; 1 when the host cell printed "bad 0". */
static int runs(const char *src, const char *host, const char *what, const char *dir)
{
    /* the simulator compiles kernel cells as C++ without __CUDACC__, where
     * the prelude would take its C side (GA_KERNEL a plain function): the
     * GPU's side is what is tested, so it is asked for */
    /* and its kernel cells find kernels by the words __global__ in the text,
     * not through macros: GA_KERNEL is written out */
    static const char word[] = "GA_KERNEL ", global[] = "extern \"C\" __global__ void ";
    size_t kl = 2 * strlen(src) + 64, at = 0;
    char *kcell = malloc(kl);
    at += (size_t)snprintf(kcell, kl, "%%%%kernel\n#define __CUDACC__ 1\n");
    for (const char *p = src; *p;) {
        if (!strncmp(p, word, sizeof word - 1) && (p == src || p[-1] == '\n')) {
            memcpy(kcell + at, global, sizeof global - 1);
            at += sizeof global - 1;
            p += sizeof word - 1;
        } else {
            kcell[at++] = *p++;
        }
    }
    kcell[at] = 0;
    json_t *nb = json_pack("{s:[o, o], s:{s:{s:s, s:s, s:s}}, s:i, s:i}", "cells", cell(kcell),
                           cell(host), "metadata", "kernelspec", "name", "gpuc", "display_name",
                           "gpuc", "language", "c", "nbformat", 4, "nbformat_minor", 5);
    free(kcell);
    char in[512], out[512], cmd[1600];
    snprintf(in, sizeof in, "%s/k.ipynb", dir);
    snprintf(out, sizeof out, "%s/k.out.ipynb", dir);
    json_dump_file(nb, in, 0);
    json_decref(nb);
    snprintf(cmd, sizeof cmd, "'%s' run --allow-errors '%s' -o '%s' >/dev/null 2>&1",
             getenv("GPUC_EXE"), in, out);
    if (system(cmd) == -1)
        return 0;
    json_t *r = json_load_file(out, 0, NULL);
    json_t *outputs = json_object_get(json_array_get(json_object_get(r, "cells"), 1), "outputs");
    int ok = 0;
    size_t i;
    json_t *o;
    json_array_foreach(outputs, i, o) {
        const char *text = json_string_value(json_object_get(o, "text"));
        const char *err = json_string_value(json_object_get(o, "evalue"));
        if (text && strstr(text, "bad 0\n"))
            ok = 1;
        else if (text || err)
            fprintf(stderr, "  %s: %s\n", what, text ? text : err);
    }
    json_decref(r);
    return ok;
}

/* Sorts `lines` lines of m keys of dtype d (C type ctype) on the simulator. */
static int sorts(ga_dtype_t d, const char *ctype, int vals, int lines, int m, int bias,
                 int passes, const char *dir)
{
    char *src = ga_sort_source(d, vals, 1);
    int is_float = d == GA_F32 || d == GA_F64;
    char host[8192], what[96];
    snprintf(host, sizeof host, host_cell, ctype, vals == 2 ? "unsigned" : "long long", m, lines, lines, m,
             (int)(8 * ga_dtype_size(d)), vals, bias, is_float ? 7 : 1,
             is_float ? "h[5] = 0.0 / 0.0; h[9] = -(0.0 / 0.0); h[11] = -0.0; h[12] = 0.0;" : "",
             passes);
    snprintf(what, sizeof what, "sort %s, %d lines of %d, values %d", ga_dtype_name(d), lines, m, vals);
    int ok = runs(src, host, what, dir);
    free(src);
    return ok;
}

/* take (an index out of range flagged, not read) and put, by element size 4 */
static const char take_cell[] =
    "long long O = 2, N = 50, J = 7, I = 3;\n"
    "float a[300], out[42], back[300]; long long idx[7] = {0, 49, -1, -50, 7, 7, 20}, bad[2] = {0, 0};\n"
    "for (int i = 0; i < 300; i++) a[i] = i * 0.5f;\n"
    "float *da, *dout; long long *di, *db;\n"
    "cudaMalloc((void **)&da, sizeof a); cudaMalloc((void **)&dout, sizeof out);\n"
    "cudaMalloc((void **)&di, sizeof idx); cudaMalloc((void **)&db, sizeof bad);\n"
    "cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice); cudaMemcpy(di, idx, sizeof idx, cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(db, bad, sizeof bad, cudaMemcpyHostToDevice);\n"
    "ga_take<<<2, 32>>>(O, N, J, I, da, di, dout, db, 0);\n"
    "cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost); cudaMemcpy(bad, db, sizeof bad, cudaMemcpyDeviceToHost);\n"
    "int nbad = bad[0] != 0;\n"
    "for (int o = 0; o < 2; o++) for (int j = 0; j < 7; j++) for (int i = 0; i < 3; i++) {\n"
    "    long long x = idx[j] < 0 ? idx[j] + N : idx[j];\n"
    "    if (out[(o * J + j) * I + i] != a[(o * N + x) * I + i]) nbad++;\n}\n"
    /* flat through the general kernel (a GPU's flat take is ga_take_flat) */
    "ga_take<<<1, 32>>>(1LL, 300LL, J, 1LL, da, di, dout, db, 0);\n"
    "cudaMemcpy(out, dout, J * 4, cudaMemcpyDeviceToHost);\n"
    "for (int j = 0; j < 7; j++) if (out[j] != a[idx[j] < 0 ? idx[j] + 300 : idx[j]]) nbad++;\n"
    /* the GPU's flat take, a thread an element (a part-filled block) */
    "ga_take_flat<<<1, 32>>>(300LL, J, da, di, dout, db, 0);\n"
    "cudaMemcpy(out, dout, J * 4, cudaMemcpyDeviceToHost);\n"
    "for (int j = 0; j < 7; j++) if (out[j] != a[idx[j] < 0 ? idx[j] + 300 : idx[j]]) nbad++;\n"
    "idx[3] = 50; cudaMemcpy(di, idx, sizeof idx, cudaMemcpyHostToDevice);\n"
    "ga_take<<<2, 32>>>(O, N, J, I, da, di, dout, db, 0);\n"
    "cudaMemcpy(bad, db, sizeof bad, cudaMemcpyDeviceToHost);\n"
    "if (bad[0] != 1 || bad[1] != 50) nbad++;\n"
    /* NumPy's modes: 50 and -50 wrap (mode 1) or clip (mode 2) */
    "idx[2] = -51;\n cudaMemcpy(di, idx, sizeof idx, cudaMemcpyHostToDevice);\n"
    "for (int mode = 1; mode <= 2; mode++) {\n"
    "    ga_take<<<2, 32>>>(O, N, J, I, da, di, dout, db, mode);\n"
    "    cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);\n"
    "    for (int o = 0; o < 2; o++) for (int j = 0; j < 7; j++) for (int i = 0; i < 3; i++) {\n"
    "        long long x = mode == 1 ? ((idx[j] % N) + N) % N : idx[j] < 0 ? 0 : idx[j] >= N ? N - 1 : idx[j];\n"
    "        if (out[(o * J + j) * I + i] != a[(o * N + x) * I + i]) nbad++;\n    }\n"
    "    ga_take_flat<<<1, 32>>>(N, J, da, di, dout, db, mode);\n"
    "    cudaMemcpy(out, dout, J * 4, cudaMemcpyDeviceToHost);\n"
    "    for (int j = 0; j < 7; j++) {\n"
    "        long long x = mode == 1 ? ((idx[j] % N) + N) % N : idx[j] < 0 ? 0 : idx[j] >= N ? N - 1 : idx[j];\n"
    "        if (out[j] != a[x]) nbad++;\n    }\n}\n"
    "long long pidx[3] = {4, -291, 4}; float v[2] = {-1, -2};\n"
    "cudaMemcpy(di, pidx, sizeof pidx, cudaMemcpyHostToDevice); cudaMemcpy(dout, v, sizeof v, cudaMemcpyHostToDevice);\n"
    "ga_put<<<1, 32>>>(1LL, 300LL, 3LL, 1LL, da, di, dout, 2LL, 0);\n"
    "cudaMemcpy(back, da, sizeof back, cudaMemcpyDeviceToHost);\n"
    "if (back[9] != -2 || back[4] != -1 || back[5] != 2.5f) nbad++;\n"
    /* the GPU's flat put, a thread an index: the values, then one value, wrapped */
    "ga_put_flat<<<1, 32>>>(300LL, 3LL, da, di, dout, 2LL, 0);\n"
    "cudaMemcpy(back, da, sizeof back, cudaMemcpyDeviceToHost);\n"
    "if (back[9] != -2 || back[4] != -1 || back[10] != 5.0f) nbad++;\n"
    "long long widx[2] = {305, -1}; float w = 7;\n"
    "cudaMemcpy(di, widx, sizeof widx, cudaMemcpyHostToDevice); cudaMemcpy(dout, &w, 4, cudaMemcpyHostToDevice);\n"
    "ga_put_flat<<<1, 32>>>(300LL, 2LL, da, di, dout, 1LL, 1);\n"
    "cudaMemcpy(back, da, sizeof back, cudaMemcpyDeviceToHost);\n"
    "if (back[5] != 7 || back[299] != 7 || back[6] != 3.0f) nbad++;\n"    /* the selection of a mask over three tiles (the last part-filled), the
     * tiles' offsets made here */
    "long long sn = 20000, tc[3] = {0, 0, 0}; unsigned char *sm = malloc(sn); float *sa = malloc(sn * 4), *so = malloc(sn * 4);\n"
    "for (long long q = 0; q < sn; q++) { sm[q] = (q / 700) % 3 != 1 && q % 5 != 2; sa[q] = q * 0.25f; }\n"
    "long long run = 0; for (int t = 0; t < 3; t++) { tc[t] = run; for (long long q = t * 8192; q < (t + 1) * 8192 && q < sn; q++) run += sm[q]; }\n"
    "unsigned char *dm; long long *dc; float *dsa, *dso;\n"
    "cudaMalloc((void **)&dm, sn); cudaMalloc((void **)&dc, sizeof tc); cudaMalloc((void **)&dsa, sn * 4); cudaMalloc((void **)&dso, sn * 4);\n"
    "cudaMemcpy(dm, sm, sn, cudaMemcpyHostToDevice); cudaMemcpy(dc, tc, sizeof tc, cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(dsa, sa, sn * 4, cudaMemcpyHostToDevice);\n"
    "ga_tile_select<<<3, 256>>>(sn, dm, dc, dsa, dso);\n"
    "cudaMemcpy(so, dso, run * 4, cudaMemcpyDeviceToHost);\n"
    "for (long long q = 0, k = 0; q < sn; q++) if (sm[q]) nbad += so[k++] != sa[q];\n"
    "printf(\"bad %d\\n\", nbad);";

/* the compaction: argwhere of a 2-d mask, with the running count given */
static const char argwhere_cell[] =
    "typedef struct { long long d[8]; } dims_t;\n"
    "long long n = 20000, nt = 3; unsigned char *m = malloc(n); long long c[4], *out = malloc(n * 16), k = 0;\n"
    "for (long long i = 0; i < n; i++) { m[i] = (i * 7) % 5 == 1 || (i > 9000 && i < 12000); k += m[i]; }\n"
    "unsigned char *dm; long long *dp, *dout;\n"
    "cudaMalloc((void **)&dm, n); cudaMalloc((void **)&dp, sizeof c); cudaMalloc((void **)&dout, n * 16);\n"
    "cudaMemcpy(dm, m, n, cudaMemcpyHostToDevice);\n"
    "ga_tile_count<<<3, 256>>>(n, dm, dp);\n"
    "ga_tile_offsets<<<1, 1024>>>(nt, dp);\n"
    "cudaMemcpy(c, dp, sizeof c, cudaMemcpyDeviceToHost);\n"
    "int nbad = c[3] != k || c[0] != 0;\n"
    "dims_t shape = {{100, 200}};\n"
    "for (int nd = 1; nd <= 2; nd++) {\n"
    "    if (nd == 2) shape.d[0] = 100; else shape.d[0] = n;\n"
    "    ga_tile_where<<<3, 256>>>(n, dm, dp, nd, shape, dout);\n"
    "    cudaMemcpy(out, dout, k * nd * 8, cudaMemcpyDeviceToHost);\n"
    "    for (long long i = 0, p = 0; i < n; i++) if (m[i]) {\n"
    "        if (nd == 1 ? out[p] != i : out[2 * p] != i / 200 || out[2 * p + 1] != i % 200) nbad++;\n"
    "        p++;\n    }\n}\n"
    "long long idx[3] = {4, -300, 299}, bad[2] = {0, 0};\n"
    "cudaMemcpy(dp, idx, sizeof idx, cudaMemcpyHostToDevice); cudaMemcpy(dout, bad, sizeof bad, cudaMemcpyHostToDevice);\n"
    "ga_check_index<<<1, 32>>>(3LL, 300LL, dp, dout);\n"
    "cudaMemcpy(bad, dout, sizeof bad, cudaMemcpyDeviceToHost);\n"
    "if (bad[0]) nbad++;\n"
    "idx[1] = -301; cudaMemcpy(dp, idx, sizeof idx, cudaMemcpyHostToDevice);\n"
    "ga_check_index<<<1, 32>>>(3LL, 300LL, dp, dout);\n"
    "cudaMemcpy(bad, dout, sizeof bad, cudaMemcpyDeviceToHost);\n"
    "if (bad[0] != 1 || bad[1] != -301) nbad++;\n"
    "printf(\"bad %d\\n\", nbad);";

/* searchsorted both sides and the shared-memory histogram, float32 */
static const char search_cell[] =
    "float a[100], v[300]; long long lo[300], hi[300]; double edges[11]; unsigned long long h[10] = {0};\n"
    "for (int i = 0; i < 100; i++) a[i] = (float)(i / 2);\n"
    "for (int i = 0; i < 300; i++) v[i] = (float)(i % 60) - 5.5f + (i % 2) * 0.5f;\n"
    "for (int i = 0; i <= 10; i++) edges[i] = i * 5.0;\n"
    "float *da, *dv; long long *dl; double *de; unsigned long long *dh;\n"
    "cudaMalloc((void **)&da, sizeof a); cudaMalloc((void **)&dv, sizeof v); cudaMalloc((void **)&dl, sizeof lo);\n"
    "cudaMalloc((void **)&de, sizeof edges); cudaMalloc((void **)&dh, sizeof h);\n"
    "cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice); cudaMemcpy(dv, v, sizeof v, cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(de, edges, sizeof edges, cudaMemcpyHostToDevice); cudaMemcpy(dh, h, sizeof h, cudaMemcpyHostToDevice);\n"
    "int nbad = 0;\n"
    "for (int right = 0; right < 2; right++) {\n"
    "    ga_searchsorted<<<2, 64>>>(100LL, da, 300LL, dv, dl, right);\n"
    "    cudaMemcpy(right ? hi : lo, dl, sizeof lo, cudaMemcpyDeviceToHost);\n}\n"
    "for (int i = 0; i < 300; i++) {\n"
    "    long long l = 0, r = 0; for (int j = 0; j < 100; j++) { l += a[j] < v[i]; r += a[j] <= v[i]; }\n"
    "    if (lo[i] != l || hi[i] != r) nbad++;\n}\n"
    "ga_histogram_shared<<<4, 64>>>(300LL, dv, 10LL, de, dh);\n"
    "cudaMemcpy(h, dh, sizeof h, cudaMemcpyDeviceToHost);\n"
    "unsigned long long want[10] = {0};\n"
    "for (int i = 0; i < 300; i++) if (v[i] >= 0 && v[i] <= 50) want[v[i] == 50 ? 9 : (int)(v[i] / 5)]++;\n"
    "for (int b = 0; b < 10; b++) if (h[b] != want[b]) nbad++;\n"
    "printf(\"bad %d\\n\", nbad);";

/* cumsum of int32 rows of 5000 (7 rows, 3 blocks) and of a flat line */
static const char scan_cell[] =
    "long long m = 5000, lines = 7, n = 7 * 5000, ntiles = (n + 2047) / 2048;\n"
    "int *h = malloc(n * 4); long long *o = malloc(n * 8);\n"
    "for (long long i = 0; i < n; i++) h[i] = (int)(i % 17) - 8 + (int)(i % 1000 == 3) * 100000;\n"
    "int *din; long long *dout, *dt;\n"
    "cudaMalloc((void **)&din, n * 4); cudaMalloc((void **)&dout, n * 8); cudaMalloc((void **)&dt, ntiles * 8);\n"
    "cudaMemcpy(din, h, n * 4, cudaMemcpyHostToDevice);\n"
    "ga_scan_rows<<<3, 256>>>(m, lines, din, dout);\n"
    "cudaMemcpy(o, dout, n * 8, cudaMemcpyDeviceToHost);\n"
    "int nbad = 0;\n"
    "for (long long l = 0; l < lines; l++) { long long acc = 0;\n"
    "    for (long long j = 0; j < m; j++) { acc += h[l * m + j]; nbad += o[l * m + j] != acc; } }\n"
    "ga_tile_totals<<<(int)ntiles, 256>>>(n, din, dt);\n"
    "ga_scan_totals<<<1, 256>>>(ntiles, dt);\n"
    "ga_tile_scan<<<(int)ntiles, 256>>>(n, din, dt, dout);\n"
    "cudaMemcpy(o, dout, n * 8, cudaMemcpyDeviceToHost);\n"
    "long long acc = 0;\n"
    "for (long long i = 0; i < n; i++) { acc += h[i]; nbad += o[i] != acc; }\n"
    "printf(\"bad %d\\n\", nbad);";

/* the tiled transpose of a batch of 3 matrices stored 70 x 37 (tiles cut
 * at both edges) into 37 x 70, grid and block as ga_transpose_copy's; T is
 * filled in: a 4-byte and a 16-byte element */
static const char transpose_cell[] =
    "typedef %s T;\n"
    "long long B = 3, R = 37, C = 70, n = B * R * C;\n"
    "T *in = malloc(n * sizeof(T)), *out = malloc(n * sizeof(T));\n"
    "unsigned char *bytes = (unsigned char *)in;\n"
    "for (long long i = 0; i < n * (long long)sizeof(T); i++) bytes[i] = (unsigned char)(i * 7 + i / 251);\n"
    "T *din, *dout;\n"
    "cudaMalloc((void **)&din, n * sizeof(T)); cudaMalloc((void **)&dout, n * sizeof(T));\n"
    "cudaMemcpy(din, in, n * sizeof(T), cudaMemcpyHostToDevice);\n"
    "ga_transpose<<<dim3(3, 2, 3), dim3(32, 8)>>>(B, R, C, din, dout);\n"
    "cudaMemcpy(out, dout, n * sizeof(T), cudaMemcpyDeviceToHost);\n"
    "int nbad = 0;\n"
    "for (long long m = 0; m < B; m++)\n"
    "    for (long long i = 0; i < R; i++)\n"
    "        for (long long j = 0; j < C; j++)\n"
    "            nbad += memcmp(&out[m * R * C + i * C + j], &in[m * R * C + j * R + i], sizeof(T)) != 0;\n"
    "printf(\"bad %%d\\n\", nbad);";

static int transposes(int bytes, const char *ctype, const char *dir)
{
    char *src = ga_transpose_source(bytes), host[2048], what[64];
    snprintf(host, sizeof host, transpose_cell, ctype);
    snprintf(what, sizeof what, "transpose of %d-byte elements", bytes);
    int ok = runs(src, host, what, dir);
    free(src);
    return ok;
}

int main(void)
{
    const char *exe = getenv("GPUC_EXE");
    if (!exe) {
        printf("test_ga_kernels_sim: GPUC_EXE is not set (run through ctest)\n");
        return 77;
    }
    char dir[] = "/tmp/test_ga_kernels_sim_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    /* argsort, segmented, NaN and -0.0: every key digit differs, one line digit */
    CHECK(sorts(GA_F32, "float", 1, 3, 5000, 0, 9, dir));
    CHECK(sorts(GA_F64, "double", 0, 1, 3000, 0, 16, dir)); /* a plain sort of one line */
    CHECK(sorts(GA_I16, "short", 1, 20, 300, 0, 6, dir));   /* short lines, two line digits */
    CHECK(sorts(GA_F32, "float", 2, 3, 5000, 0, 9, dir));   /* indices carried as uint32 */
    CHECK(sorts(GA_I16, "short", 2, 20, 300, 0, 6, dir));
    /* keys in [0, 2000]: 11 low bits differ, the 5 passes over the others are left out */
    CHECK(sorts(GA_I32, "int", 1, 2, 4000, 1000, 4, dir));
    char *src = ga_index_source(4);
    CHECK(runs(src, take_cell, "take and put", dir));
    free(src);
    src = ga_index_source(0);
    CHECK(runs(src, argwhere_cell, "argwhere", dir));
    free(src);
    src = ga_sort_source(GA_F32, 0, 1);
    CHECK(runs(src, search_cell, "searchsorted and histogram", dir));
    free(src);
    src = ga_scan_source(GA_SCAN_SUM, GA_I32, 1);
    CHECK(runs(src, scan_cell, "scans", dir));
    free(src);
    CHECK(transposes(4, "unsigned", dir));
    CHECK(transposes(16, "struct { unsigned long long lo, hi; }", dir));
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return check_report("test_ga_kernels_sim");
}
