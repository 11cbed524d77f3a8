/* The GPU's radix sort kernels (ga_sort_source's CUDA text) run on the CUDA
 * simulator, where there is no GPU: each is a %%kernel cell of a notebook
 * that `gpuc run` executes, and a host cell drives the passes as ga_sort
 * does (the scan of the counts on the host) and checks every line against
 * what NumPy's stable sort gives: ordered (NaN last), each element from
 * its own line, equal keys in their first order. Segmented (several lines,
 * the lines' digits last), with and without carried indices, float32,
 * float64 and int16 keys. GPUC_EXE is the gpuc binary (set by ctest). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ga_sort.h"

/* The host cell: TYPE, KBITS, VALS, LINES, M are filled in. */
static const char host_cell[] =
    "typedef %s K;\n"
    "long long m = %d, lines = %d, n = (long long)%d * %d, tiles = (n + 2047) / 2048, nc = 16 * tiles;\n"
    "int kbits = %d, vals = %d;\n"
    "K *h = malloc(n * sizeof(K)), *out = malloc(n * sizeof(K));\n"
    "long long *hv = malloc(n * 8), *ov = malloc(n * 8), *hc = malloc(nc * 8);\n"
    "srand(3);\n"
    "for (long long i = 0; i < n; i++) h[i] = (K)((rand() %% 2001) - 1000) / (K)%d;\n"
    "%s\n"
    "for (long long i = 0; i < n; i++) hv[i] = i;\n"
    "K *k0, *k1; long long *v0, *v1, *dc, *di;\n"
    "cudaMalloc((void **)&k0, n * sizeof(K)); cudaMalloc((void **)&k1, n * sizeof(K));\n"
    "cudaMalloc((void **)&v0, n * 8); cudaMalloc((void **)&v1, n * 8);\n"
    "cudaMalloc((void **)&dc, nc * 8); cudaMalloc((void **)&di, nc * 8);\n"
    "cudaMemcpy(k0, h, n * sizeof(K), cudaMemcpyHostToDevice);\n"
    "cudaMemcpy(v0, hv, n * 8, cudaMemcpyHostToDevice);\n"
    "int line_bits = 0; while (lines > 1 && (1LL << line_bits) < lines) line_bits++;\n"
    "for (int pass = 0; pass * 4 < kbits + ((line_bits + 3) / 4) * 4; pass++) {\n"
    "    int lp = pass * 4 >= kbits, shift = lp ? pass * 4 - kbits : pass * 4;\n"
    "    ga_rx_count<<<(int)tiles, 256>>>(n, k0, vals ? v0 : 0, shift, lp, m, dc);\n"
    "    cudaMemcpy(hc, dc, nc * 8, cudaMemcpyDeviceToHost);\n"
    "    for (long long i = 1; i < nc; i++) hc[i] += hc[i - 1];\n"
    "    cudaMemcpy(di, hc, nc * 8, cudaMemcpyHostToDevice);\n"
    "    ga_rx_scatter<<<(int)tiles, 256>>>(n, k0, vals ? v0 : 0, k1, vals ? v1 : 0, shift, lp, m, dc, di);\n"
    "    K *t = k0; k0 = k1; k1 = t; long long *u = v0; v0 = v1; v1 = u;\n"
    "}\n"
    "cudaMemcpy(out, k0, n * sizeof(K), cudaMemcpyDeviceToHost);\n"
    "cudaMemcpy(ov, v0, n * 8, cudaMemcpyDeviceToHost);\n"
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
    "printf(\"bad %%d\\n\", bad);";

static json_t *cell(const char *text)
{
    return json_pack("{s:s, s:n, s:{}, s:[], s:s}", "cell_type", "code", "execution_count",
                     "metadata", "outputs", "source", text);
}

/* Sorts `lines` lines of m keys of dtype d (C type ctype) on the simulator;
 * 1 when the host cell printed "bad 0". */
static int sorts(ga_dtype_t d, const char *ctype, int vals, int lines, int m, const char *dir)
{
    char *src = ga_sort_source(d, vals, 1);
    int is_float = d == GA_F32 || d == GA_F64;
    char host[8192];
    snprintf(host, sizeof host, host_cell, ctype, m, lines, lines, m,
             (int)(8 * ga_dtype_size(d)), vals, is_float ? 7 : 1,
             is_float ? "h[5] = 0.0 / 0.0; h[9] = -(0.0 / 0.0); h[11] = -0.0; h[12] = 0.0;" : "");
    size_t kl = strlen(src) + 16;
    char *kcell = malloc(kl);
    snprintf(kcell, kl, "%%%%kernel\n%s", src);
    json_t *nb = json_pack("{s:[o, o], s:{s:{s:s, s:s, s:s}}, s:i, s:i}", "cells", cell(kcell),
                           cell(host), "metadata", "kernelspec", "name", "gpuc", "display_name",
                           "gpuc", "language", "c", "nbformat", 4, "nbformat_minor", 5);
    char in[512], out[512], cmd[1600];
    snprintf(in, sizeof in, "%s/sort.ipynb", dir);
    snprintf(out, sizeof out, "%s/sort.out.ipynb", dir);
    json_dump_file(nb, in, 0);
    json_decref(nb);
    free(kcell);
    free(src);
    const char *exe = getenv("GPUC_EXE");
    snprintf(cmd, sizeof cmd, "'%s' run --allow-errors '%s' -o '%s' >/dev/null 2>&1", exe, in, out);
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
            fprintf(stderr, "  %s lines %d x %d, values %d: %s\n", ga_dtype_name(d), lines, m, vals,
                    text ? text : err);
    }
    json_decref(r);
    return ok;
}

int main(void)
{
    const char *exe = getenv("GPUC_EXE");
    if (!exe) {
        printf("test_ga_sort_sim: GPUC_EXE is not set (run through ctest)\n");
        return 77;
    }
    char dir[] = "/tmp/test_ga_sort_sim_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("XDG_CACHE_HOME", dir, 1);
    CHECK(sorts(GA_F32, "float", 1, 3, 5000, dir));  /* argsort, segmented, NaN and -0.0 */
    CHECK(sorts(GA_F64, "double", 0, 1, 3000, dir)); /* a plain sort of one line */
    CHECK(sorts(GA_I16, "short", 1, 20, 300, dir));  /* short lines, many line digits */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    return check_report("test_ga_sort_sim");
}
