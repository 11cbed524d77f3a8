/* Tests of backend/cuda/ that need no GPU: NVRTC compiles, compile errors mapped to
 * cell lines, the device prelude (planned by the cell layer, rt_kprelude),
 * template instances, the compile cache (memory, disk, corrupt entries, what
 * its key holds: the user's headers, the earlier cells),
 * argument checks and the "no GPU" message. Exits 77 (a skip) where NVRTC
 * cannot be loaded. The scanner's own tests are test_rt_kscan.c. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "gpu.h"
#include "gpu_internal.h"
#include "rt_kprelude.h"
#include "rt_ktemplate.h"

static const char *saxpy =
    "__global__ void saxpy(int n, float a, float *x, float *y)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n";

static char cache_dir[256];
static int base_entries; /* entries before the saxpy tests */

static void test_probe(void)
{
    gpu_info_t info;
    int n = gpu_probe(&info);
    CHECK(n == info.device_count);
    if (n == 0) {
        CHECK(info.selected == -1);
        CHECK(info.reason[0] != '\0');
        printf("probe: 0 devices: %s\n", info.reason);
    }
    printf("probe: nvrtc %d, cudart %d, cublas %d\n", info.nvrtc_version, info.cudart_version,
           info.cublas_present);
}

static int compile(const char *src, const char *opts, int cell, gpu_cell_t **out, cm_error_t *err)
{
    cm_error_clear(err);
    return rt_kprelude_compile(src, opts, cell, out, err);
}

/* the entries on disk, once the cache's writer has written what is queued */
static int count_entries(void)
{
    gpu_cache_flush();
    DIR *d = opendir(cache_dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strstr(e->d_name, ".nvc") && !strstr(e->d_name, ".tmp");
    if (d)
        closedir(d);
    return n;
}

/* Applies damage to every entry: 0 truncates, 1 flips a byte of the payload. */
static void damage_entries(int how)
{
    gpu_cache_flush();
    DIR *d = opendir(cache_dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strstr(e->d_name, ".nvc"))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", cache_dir, e->d_name);
        struct stat st;
        CHECK(stat(path, &st) == 0);
        if (how == 0) {
            CHECK(truncate(path, st.st_size / 2) == 0);
        } else {
            int fd = open(path, O_RDWR);
            unsigned char b;
            off_t at = st.st_size - 10;
            CHECK(pread(fd, &b, 1, at) == 1);
            b ^= 0x40;
            CHECK(pwrite(fd, &b, 1, at) == 1);
            close(fd);
        }
    }
    if (d)
        closedir(d);
}

static void test_saxpy_and_cache(void)
{
    cm_error_t err;
    gpu_cell_t *c = NULL;
    rt_kprelude_reset();
    CHECK(compile(saxpy, NULL, 1, &c, &err) == 0);
    CHECK(c && c->ok);
    if (!c)
        return;
    printf("saxpy: %s, %zu bytes, %.1f ms (%s)\n", c->arch, c->image_size, c->compile_ms, c->cache);
    CHECK(c->image_size > 0);
    CHECK_STR(c->cache, "miss");
    CHECK(c->nkernels == 1);
    if (c->nkernels == 1) {
        gpu_kernel_info_t *k = &c->kernels[0];
        CHECK_STR(k->name, "saxpy");
        CHECK_STR(k->lowered, "_Z5saxpyifPfS_");
        CHECK(k->nparams == 4);
        char kinds[5] = {0};
        for (int i = 0; i < 4 && k->nparams == 4; i++)
            kinds[i] = k->params[i].kind;
        CHECK_STR(kinds, "sspp");
        CHECK(k->nparams == 4 && k->params[0].size == 4 && k->params[1].size == 4 &&
              k->params[2].size == 8 && k->params[3].size == 8);
    }
    gpu_info_t info;
    if (gpu_probe(&info) == 0)
        CHECK(strncmp(c->arch, "compute_", 8) == 0 && !c->cubin && !c->loaded);
    gpu_cell_free(c);
    CHECK(count_entries() == base_entries + 1);

    /* re-running the cell: same text in the same place: memory hit */
    CHECK(compile(saxpy, NULL, 2, &c, &err) == 0);
    CHECK(c && strcmp(c->cache, "memory hit") == 0);
    CHECK(c && c->nkernels == 1 && strcmp(c->kernels[0].lowered, "_Z5saxpyifPfS_") == 0);
    if (c)
        printf("memory hit: %.3f ms\n", c->compile_ms);
    gpu_cell_free(c);

    /* a fresh process: disk hit */
    gpu_cache_reset_memory();
    rt_kprelude_reset();
    CHECK(compile(saxpy, NULL, 3, &c, &err) == 0);
    CHECK(c && strcmp(c->cache, "disk hit") == 0);
    if (c)
        printf("disk hit: %.3f ms\n", c->compile_ms);
    gpu_cell_free(c);

    /* corrupt entries are ignored and rebuilt */
    for (int how = 0; how < 2; how++) {
        damage_entries(how);
        gpu_cache_reset_memory();
        rt_kprelude_reset();
        CHECK(compile(saxpy, NULL, 4, &c, &err) == 0);
        CHECK(c && strcmp(c->cache, "miss") == 0);
        gpu_cell_free(c);
        gpu_cache_reset_memory();
        rt_kprelude_reset();
        CHECK(compile(saxpy, NULL, 5, &c, &err) == 0);
        CHECK(c && strcmp(c->cache, "disk hit") == 0);
        gpu_cell_free(c);
    }
    CHECK(count_entries() == base_entries + 1);

    /* options from the magic line: part of the key */
    CHECK(compile("__global__ void scale(float *x) { x[0] *= SCALE; }\n",
                  "-O3 --use_fast_math -lineinfo --maxrregcount=32 -DSCALE=2.0f", 6, &c, &err) == 0);
    CHECK(c && c->ok && strcmp(c->cache, "miss") == 0);
    if (!c || !c->ok)
        printf("options: %s\n", err.text);
    gpu_cell_free(c);
    CHECK(compile("__global__ void scale(float *x) { x[0] *= SCALE; }\n", "-DSCALE=3.0f", 7, &c,
                  &err) == 0);
    CHECK(c && strcmp(c->cache, "miss") == 0);
    gpu_cell_free(c);
    /* an option NVRTC does not know: an error, not a crash */
    CHECK(compile(saxpy, "--no-such-option", 8, &c, &err) == -1);
    CHECK(err.code == GPU_E_NVRTC || err.code == GPU_E_COMPILE);
    printf("bad option: %s\n", err.text);
    gpu_cell_free(c);
}

static void test_errors_and_prelude(void)
{
    cm_error_t err;
    gpu_cell_t *c = NULL;
    rt_kprelude_reset();
    CHECK(compile("__device__ float sq(float v) { return v * v; }\n", NULL, 7, &c, &err) == 0);
    CHECK(c && c->ok && c->nkernels == 0);
    gpu_cell_free(c);

    const char *bad = "__global__ void bad(float *x)\n"
                      "{\n"
                      "    x[0] = y;\n"
                      "}\n";
    CHECK(compile(bad, NULL, 9, &c, &err) == -1);
    CHECK(err.code == GPU_E_COMPILE);
    CHECK_STR(err.text, "cell 9, line 3: error: identifier \"y\" is undefined");
    CHECK(c && !c->ok && c->ndiags == 1);
    if (c && c->ndiags >= 1) {
        CHECK(c->diags[0].cell == 9 && c->diags[0].line == 3);
        CHECK(c->diags[0].column == 12);
        CHECK_STR(c->diags[0].severity, "error");
        CHECK_STR(c->diags[0].message, "identifier \"y\" is undefined");
        CHECK_STR(c->diags[0].source_line, "    x[0] = y;");
        CHECK(c->log && strstr(c->log, "cell 9, line 3: error") && !strstr(c->log, "cell["));
        printf("mapped log:\n%s\n", c->log ? c->log : "");
    }
    gpu_cell_free(c);

    /* a later cell calls an earlier cell's __device__ function */
    CHECK(compile("__global__ void use_sq(float *x)\n{\n    x[0] = sq(x[0]);\n}\n", NULL, 10, &c,
                  &err) == 0);
    CHECK(c && c->ok && c->nkernels == 1);
    if (!c || !c->ok)
        printf("prelude: %s\n", err.text);
    gpu_cell_free(c);

    /* redefining sq replaces cell 7 in place: use_sq (cell 10) still compiles after it */
    CHECK(compile("__device__ float sq(float v) { return v * v * 1.0f; }\n", NULL, 11, &c, &err) == 0);
    CHECK(c && c->ok);
    gpu_cell_free(c);
    CHECK(compile("__global__ void use_sq2(float *x) { x[0] = sq(x[1]); }\n", NULL, 12, &c,
                  &err) == 0);
    gpu_cell_free(c);

    /* a warning on a good cell is kept in the log, mapped */
    CHECK(compile("__global__ void warn(float *x)\n{\n    int unused = 1;\n}\n", NULL, 13, &c,
                  &err) == 0);
    CHECK(c && c->ok && c->log && strstr(c->log, "cell 13, line 3: warning"));
    gpu_cell_free(c);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* the compile cache's key holds what the compile reads: the user's headers
 * (named by #include, nested too) and the earlier cells it uses; a change
 * to any of them is a miss, and going back finds the first image again */
static void test_cache_key_inputs(void)
{
    cm_error_t err;
    gpu_cell_t *c = NULL;
    char dir[300], path[400], opts[400];
    snprintf(dir, sizeof dir, "%s/../headers", cache_dir);
    mkdir(dir, 0700);
    snprintf(opts, sizeof opts, "-I%s", dir);
    snprintf(path, sizeof path, "%s/inner.h", dir);
    write_text(path, "#define INNER 1.0f\n");
    snprintf(path, sizeof path, "%s/scale.h", dir);
    write_text(path, "#include \"inner.h\"\n#define SCALE (2.0f * INNER)\n");
    const char *cell = "#include \"scale.h\"\n"
                       "__global__ void hscale(float *x) { x[0] *= SCALE; }\n";
    const char *expect[] = {"miss", "memory hit", "miss", "memory hit", "miss", "memory hit"};
    for (int step = 0; step < 6; step++) {
        if (step == 2) /* the header changes */
            write_text(path, "#include \"inner.h\"\n#define SCALE (3.0f * INNER)\n");
        if (step == 3) /* and back: the first image */
            write_text(path, "#include \"inner.h\"\n#define SCALE (2.0f * INNER)\n");
        if (step == 4) { /* the header it includes changes */
            snprintf(path, sizeof path, "%s/inner.h", dir);
            write_text(path, "#define INNER 4.0f\n");
        }
        rt_kprelude_reset();
        CHECK(compile(cell, opts, 20 + step, &c, &err) == 0);
        CHECK(c && c->ok && strcmp(c->cache, expect[step]) == 0);
        if (!c || !c->ok || strcmp(c->cache, expect[step]))
            printf("header step %d: %s (%s)\n", step, c ? c->cache : "-", err.text);
        gpu_cell_free(c);
    }
    /* a fresh process finds the changed header's image on disk */
    gpu_cache_reset_memory();
    rt_kprelude_reset();
    CHECK(compile(cell, opts, 26, &c, &err) == 0);
    CHECK(c && strcmp(c->cache, "disk hit") == 0);
    gpu_cell_free(c);

    /* an earlier cell the kernel uses changes: a miss; back: a hit */
    const char *user = "__global__ void use_twice(float *x) { x[0] = twice(x[0]); }\n";
    const char *defs[] = {"__device__ float twice(float v) { return 2.0f * v; }\n",
                          "__device__ float twice(float v) { return v + v; }\n",
                          "__device__ float twice(float v) { return 2.0f * v; }\n"};
    const char *want[] = {"miss", "miss", "memory hit"};
    rt_kprelude_reset();
    for (int step = 0; step < 3; step++) {
        CHECK(compile(defs[step], NULL, 30 + 2 * step, &c, &err) == 0);
        gpu_cell_free(c);
        CHECK(compile(user, NULL, 31 + 2 * step, &c, &err) == 0);
        CHECK(c && c->ok && strcmp(c->cache, want[step]) == 0);
        if (!c || !c->ok || strcmp(c->cache, want[step]))
            printf("earlier cell step %d: %s (%s)\n", step, c ? c->cache : "-", err.text);
        gpu_cell_free(c);
    }
}

/* host code's declarations in the prelude (gpu_prelude_declare): compiled
 * in front of a later cell that names them, on their cell's lines;
 * declared again, replaced; a kernel cell's own name stays its own */
static void test_host_declarations(void)
{
    cm_error_t err;
    gpu_cell_t *c = NULL;
    rt_kprelude_reset();
    CHECK(rt_kprelude_declare("\nconst int block_size = 32;\n", 3) == 1);
    CHECK(rt_kprelude_declare("typedef double ft;\n", 4) == 1);
    CHECK(rt_kprelude_declare("int counter;\n", 4) == 0); /* declares nothing device code gets */
    CHECK(compile("__global__ void tile(ft *x)\n{\n    __shared__ ft s[block_size];\n"
                  "    s[threadIdx.x] = 1;\n    x[0] = s[0];\n}\n",
                  NULL, 5, &c, &err) == 0);
    if (!c || !c->ok)
        printf("host declarations: %s\n", err.text);
    gpu_cell_free(c);
    CHECK(rt_kprelude_declare("\n\nconst int broken = nowhere;\n", 6) == 1);
    CHECK(compile("__global__ void b(int *x) { x[0] = broken; }\n", NULL, 7, &c, &err) == -1);
    CHECK_STR(err.text, "cell 6, line 3: error: identifier \"nowhere\" is undefined");
    gpu_cell_free(c);
    CHECK(rt_kprelude_declare("const int broken = 5;\n", 8) == 1);
    CHECK(compile("__global__ void b(int *x) { x[0] = broken; }\n", NULL, 9, &c, &err) == 0);
    gpu_cell_free(c);
    CHECK(compile("#define WIDTH 4\n__global__ void w(int *x) { x[0] = WIDTH; }\n", NULL, 10, &c,
                  &err) == 0);
    gpu_cell_free(c);
    CHECK(rt_kprelude_declare("#define WIDTH 8\n", 11) == 0);
    /* a kernel cell that defines a host declaration's name takes it over */
    CHECK(compile("#define block_size 64\n__global__ void t2(int *x) { x[0] = block_size; }\n",
                  NULL, 12, &c, &err) == 0);
    gpu_cell_free(c);
    CHECK(compile("__global__ void t3(int *x) { __shared__ int s[block_size]; x[0] = s[0]; }\n",
                  NULL, 13, &c, &err) == 0);
    gpu_cell_free(c);
    /* enumerators are names too, of a named enum or not */
    CHECK(rt_kprelude_declare("enum { TILE = 8 };\n", 14) == 1);
    CHECK(rt_kprelude_declare("typedef enum op { ADD = 1, MUL = (2 + 1) } op_t;\n", 14) == 1);
    CHECK(compile("__global__ void t4(int *x) { __shared__ int s[TILE]; s[0] = MUL; x[0] = s[0]; }\n",
                  NULL, 15, &c, &err) == 0);
    if (!c || !c->ok)
        printf("enumerators: %s\n", err.text);
    gpu_cell_free(c);
    rt_kprelude_reset();
}

static void test_launch_checks(void)
{
    cm_error_t err;
    gpu_cell_t *c = NULL;
    rt_kprelude_reset();
    CHECK(compile(saxpy, NULL, 1, &c, &err) == 0);
    gpu_cell_free(c);
    int n = 1024;
    float a = 2.0f;
    double ad = 2.0;
    void *x = (void *)0x1000, *y = (void *)0x2000;
    unsigned grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
    void *args[4] = {&n, &a, &x, &y};
    size_t sizes[4] = {4, 4, 8, 8};

    cm_error_clear(&err);
    CHECK(gpu_launch("saxpy", grid, block, 0, NULL, 3, args, sizes, "ssp", NULL, 4, 2, &err) == -1);
    CHECK(err.code == GPU_E_ARGS);
    CHECK_STR(err.text, "cell 4, line 2: saxpy expects 4 arguments (int n, float a, float *x, "
                        "float *y), got 3");

    void *args2[4] = {&n, &ad, &x, &y};
    size_t sizes2[4] = {4, 8, 8, 8};
    cm_error_clear(&err);
    CHECK(gpu_launch("saxpy", grid, block, 0, NULL, 4, args2, sizes2, "sspp", NULL, 4, 2, &err) == -1);
    CHECK_STR(err.text, "cell 4, line 2: argument 2 of saxpy is float a (4 bytes), got an 8-byte "
                        "value");

    cm_error_clear(&err);
    CHECK(gpu_launch("saxpy", grid, block, 0, NULL, 4, args, sizes, "ssps", NULL, 4, 2, &err) == -1);
    CHECK_STR(err.text, "cell 4, line 2: argument 4 of saxpy is a pointer (float *y), got a scalar");

    cm_error_clear(&err);
    void *args3[4] = {&x, &a, &x, &y};
    size_t sizes3[4] = {8, 4, 8, 8};
    CHECK(gpu_launch("saxpy", grid, block, 0, NULL, 4, args3, sizes3, "pspp", NULL, 4, 2, &err) == -1);
    CHECK_STR(err.text, "cell 4, line 2: argument 1 of saxpy is int n (4 bytes), got a pointer (or an 8-byte "
                        "struct)");

    cm_error_clear(&err);
    CHECK(gpu_launch("sxpy", grid, block, 0, NULL, 4, args, sizes, "sspp", NULL, 4, 2, &err) == -1);
    CHECK(err.code == GPU_E_NO_KERNEL && strstr(err.text, "known kernels: saxpy"));

    const gpu_param_t *params = NULL;
    CHECK(gpu_kernel_params("saxpy", &params) == 4 && params && params[1].size == 4);
    CHECK(gpu_kernel_params("nope", &params) == -1);

    /* template instances, made at their first use and kept */
    CHECK(compile("template <typename T>\n__global__ void scale(T *x, T a, int n)\n"
                  "{ if (threadIdx.x < n) x[threadIdx.x] *= a; }\n", NULL, 5, &c, &err) == 0);
    gpu_cell_free(c);
    char canon[128];
    cm_error_clear(&err);
    CHECK(rt_ktemplate_instance("scale< double >", canon, sizeof canon, 6, 2, &err) == 0);
    CHECK_STR(canon, "scale<double>");
    CHECK(gpu_kernel_params("scale<double>", &params) == 3 && params[1].size == 8);
    CHECK(rt_ktemplate_instance("scale<double>", canon, sizeof canon, 6, 3, &err) == 0);
    CHECK(rt_ktemplate_instance("saxpy", canon, sizeof canon, 6, 3, &err) == 0); /* no template */
    cm_error_clear(&err);
    CHECK(rt_ktemplate_instance("scale<Nope>", canon, sizeof canon, 6, 4, &err) == -1);
    CHECK(err.code == GPU_E_COMPILE);
    CHECK(strncmp(err.text, "cell 6, line 4: scale<Nope> cannot be instantiated (the template is "
                            "in cell 5): error: identifier \"Nope\" is undefined", 100) == 0);
    cm_error_clear(&err);
    CHECK(rt_ktemplate_instance("saxpy<float>", canon, sizeof canon, 6, 5, &err) == -1);
    CHECK_STR(err.text, "cell 6, line 5: saxpy is not a template kernel: launch it as "
                        "saxpy<<<...>>>");
    /* the template's cell run again: its instances are made anew */
    CHECK(compile("template <typename T>\n__global__ void scale(T *x, T a, int n) {}\n", NULL, 7,
                  &c, &err) == 0);
    gpu_cell_free(c);
    CHECK(gpu_kernel_params("scale<double>", &params) == -1);

    gpu_info_t info;
    if (gpu_probe(&info) == 0) {
        /* no GPU: the launch runs on the CUDA simulator */
        CHECK(gpu_simulating());
        /* the kernels below are given the test's own (stack) memory, which
         * memcheck, the default, rightly refuses: they run unchecked */
        gpu_sim_set_checks(0, 0);
        float hx[1024], hy[1024];
        for (int i = 0; i < n; i++)
            hx[i] = (float)i, hy[i] = 1.0f;
        x = hx, y = hy;
        cm_error_clear(&err);
        CHECK(gpu_launch("saxpy", grid, block, 0, NULL, 4, args, sizes, "sspp", NULL, 4, 2, &err) == 0);
        CHECK(hy[0] == 1.0f && hy[1023] == 2.0f * 1023 + 1.0f);
        CHECK(gpu_last_launch(NULL, NULL, NULL) == 1);
        CHECK(gpu_synchronize(&err) == 0);
        cm_error_clear(&err);
        CHECK(gpu_select(0, &err) == -1 && err.code == GPU_E_NO_GPU);
        gpu_device_props_t props;
        CHECK(gpu_device_properties(&props, 0) == 0);
        CHECK(strncmp(props.name, "gpuc simulator (CPU, ", 21) == 0);
        CHECK(props.maxThreadsPerBlock == 1024 && props.warpSize == 32);
        CHECK(gpu_device_properties(&props, 1) == 101);

        /* a struct by value: its size is g++'s, checked at the launch */
        gpu_cell_t *sc = NULL;
        CHECK(compile("struct P { float a; double b; char c[3]; };\n"
                      "__global__ void takes(P p, float *out) { out[0] = p.a + p.c[2]; }\n",
                      NULL, 9, &sc, &err) == 0);
        gpu_cell_free(sc);
        CHECK(gpu_kernel_params("takes", &params) == 2 && params[0].kind == GPU_PARAM_BYVALUE &&
              params[0].size == 24);
        struct { float a; double b; char c[3]; } pv = {1.5f, 0, {0, 0, 2}};
        float out = 0, *outp = &out;
        void *pargs[2] = {&pv, &outp};
        size_t psizes[2] = {sizeof pv, sizeof outp};
        CHECK(gpu_launch("takes", block, block, 0, NULL, 2, pargs, psizes, "pp", NULL, 9, 3,
                         &err) == 0 && out == 3.5f);
        size_t short_sizes[2] = {16, sizeof outp};
        cm_error_clear(&err);
        CHECK(gpu_launch("takes", block, block, 0, NULL, 2, pargs, short_sizes, "pp", NULL, 9, 3,
                         &err) == -1);
        CHECK_STR(err.text, "cell 9, line 3: argument 1 of takes is P p (24 bytes), got a "
                            "16-byte value");
    }
}

static void test_errors_text(void)
{
    CHECK(gpu_error_is_sticky(700) && gpu_error_is_sticky(719) && gpu_error_is_sticky(716) &&
          gpu_error_is_sticky(715) && gpu_error_is_sticky(714));
    CHECK(!gpu_error_is_sticky(2) && !gpu_error_is_sticky(0) && !gpu_error_is_sticky(1));
    char buf[1024];
    gpu_track_alloc((void *)0x10, 4 << 20, "x: float32[1048576]");
    gpu_sticky_message(700, buf, sizeof buf);
    CHECK(strstr(buf, "context is lost") && strstr(buf, "x: float32[1048576] (4.00 MiB)"));
    gpu_track_free((void *)0x10);
    cm_error_t err;
    cm_error_clear(&err);
    gpu_error_oom(&err, (size_t)3 << 30, "cudaMalloc");
    CHECK(err.code == 2 && strstr(err.text, "asked for 3.00 GiB (3221225472 bytes)") &&
          strstr(err.text, "nothing else was lost"));
    char lib[512];
    int version = gpu_runtime_library(lib, sizeof lib);
    CHECK(version ? lib[0] != '\0' : lib[0] == '\0');
    cm_error_clear(&err);
    if (gpu_runtime_load(&err) == 0) {
        CHECK(gpu_runtime_handle() != NULL);
        printf("cudart loaded\n");
    } else {
        printf("cudart: %s\n", err.text);
    }
}

int main(void)
{
    snprintf(cache_dir, sizeof cache_dir, "/tmp/gpuc-test-XXXXXX");
    if (!mkdtemp(cache_dir))
        return 1;
    setenv("XDG_CACHE_HOME", cache_dir, 1);
    strcat(cache_dir, "/gpuc");

    test_probe();
    test_errors_text();
    cm_error_t err;
    cm_error_clear(&err);
    gpu_cell_t *c = NULL;
    if (rt_kprelude_compile("", NULL, 0, &c, &err) && err.code == GPU_E_NO_LIBRARY) {
        printf("SKIP: %s\n", err.text);
        return 77;
    }
    gpu_cell_free(c);
    base_entries = count_entries();
    struct stat st;
    CHECK(stat(cache_dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    test_saxpy_and_cache();
    test_errors_and_prelude();
    test_cache_key_inputs();
    test_host_declarations();
    test_launch_checks();
    rt_kprelude_reset();
    gpu_cache_reset_memory();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%.200s'", cache_dir);
    cache_dir[strlen(cache_dir) - 5] = '\0';
    snprintf(cmd, sizeof cmd, "rm -rf '%.200s'", cache_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", cache_dir);
    return check_report("test_gpu_compile");
}
