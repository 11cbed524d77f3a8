/* test_ga_npy: .npy files written by NumPy (tests/array/npy, made by
 * tests/array/make_npy_files.py) load with the right dtype, shape and bytes;
 * what ga_npy_save writes is byte for byte what np.save writes; broken
 * files give a clear error each.
 *
 * test_ga_npy            the tests
 * test_ga_npy -v         also prints the error of each broken file
 * test_ga_npy --write D  loads every golden file and saves it as D/NAME.npy
 *                        (tests/array/test_npy_numpy.py reads them with NumPy) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ga_npy.h"
#include "gpuc_config.h"

#define NPY_DIR GPUC_SOURCE_DIR "/tests/array/npy/"

static int verbose;

/* ---- files ---- */

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    *len = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

static int same_bytes(const void *a, size_t alen, const void *b, size_t blen)
{
    return a && b && alen == blen && memcmp(a, b, alen) == 0;
}

/* ---- the manifest: NAME.npy DTYPE SHAPE NAME.bin TWIN.npy ---- */

typedef struct golden {
    char file[64], dtype[16], bin[64], twin[64];
    int ndim;
    int64_t shape[GA_MAX_DIMS];
} golden_t;

/* The manifest's cases into *out (the caller frees); how many, -1 when unreadable. */
static int read_manifest(golden_t **out)
{
    FILE *f = fopen(NPY_DIR "MANIFEST", "r");
    char line[512], shape[128];
    int n = 0;
    *out = NULL;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        golden_t g = {0};
        if (line[0] == '#' ||
            sscanf(line, "%63s %15s %127s %63s %63s", g.file, g.dtype, shape, g.bin, g.twin) != 5)
            continue;
        for (char *p = shape + 1; *p && *p != ')' && g.ndim < GA_MAX_DIMS; p += *p == ',')
            g.shape[g.ndim++] = strtoll(p, &p, 10);
        *out = realloc(*out, (size_t)(n + 1) * sizeof **out);
        (*out)[n++] = g;
    }
    fclose(f);
    return n;
}

/* ---- golden files ---- */

/* The file at path (the golden file g or a copy) holds g's dtype, shape and bytes. */
static void check_loads(const golden_t *g, const char *file)
{
    char path[1024];
    ga_npy_info_t info;
    void *data;
    cm_error_t err = {0};
    size_t blen = 0;
    int rc = ga_npy_load(file, &info, &data, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.text);
    CHECK(rc == 0);
    if (rc)
        return;
    CHECK_STR(ga_dtype_name(info.dtype), g->dtype);
    CHECK(info.ndim == g->ndim && memcmp(info.shape, g->shape, sizeof info.shape) == 0);
    snprintf(path, sizeof path, NPY_DIR "%s", g->bin);
    unsigned char *raw = read_file(path, &blen);
    if (!same_bytes(data, blen, raw, blen))
        fprintf(stderr, "%s: the data differs from %s\n", g->file, g->bin);
    CHECK(same_bytes(data, blen, raw, blen));
    free(raw);
    free(data);
}

/* Saves the golden file's data as dir/NAME; 0 when it could. */
static int save_copy(const golden_t *g, const char *dir, char *out, size_t outlen)
{
    char path[1024];
    ga_npy_info_t info;
    void *data;
    cm_error_t err = {0};
    snprintf(path, sizeof path, NPY_DIR "%s", g->file);
    snprintf(out, outlen, "%s/%s", dir, g->file);
    int rc = ga_npy_load(path, &info, &data, &err) ||
             ga_npy_save(out, info.dtype, info.ndim, info.shape, data, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", g->file, err.text);
    free(data);
    return rc;
}

/* Save, then: the file is np.save's twin byte for byte, and loads back
 * as the same bytes. */
static void check_round_trip(const golden_t *g, const char *dir)
{
    char saved[1024], path[1024];
    size_t slen = 0, tlen = 0;
    CHECK(save_copy(g, dir, saved, sizeof saved) == 0);
    snprintf(path, sizeof path, NPY_DIR "%s", g->twin);
    unsigned char *mine = read_file(saved, &slen), *twin = read_file(path, &tlen);
    if (!same_bytes(mine, slen, twin, tlen))
        fprintf(stderr, "%s: saved %zu bytes, not np.save's %s (%zu bytes)\n", g->file, slen,
                g->twin, tlen);
    CHECK(same_bytes(mine, slen, twin, tlen));
    free(mine);
    free(twin);
    check_loads(g, saved);
    unlink(saved);
}

static void test_golden(const char *dir)
{
    golden_t *gs;
    int n = read_manifest(&gs);
    CHECK(n >= 30);
    for (int i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, NPY_DIR "%s", gs[i].file);
        check_loads(&gs[i], path);
        check_round_trip(&gs[i], dir);
    }
    free(gs);
}

/* ---- headers ---- */

/* A file prefix of version major.0 and dict (padded with a '\n') into buf. */
static size_t make_header(unsigned char *buf, int major, const char *dict)
{
    size_t prefix = major == 1 ? 10 : 12, n = strlen(dict) + 1;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    for (size_t i = 8; i < prefix; i++)
        buf[i] = (unsigned char)(n >> (8 * (i - 8)));
    memcpy(buf + prefix, dict, n - 1);
    buf[prefix + n - 1] = '\n';
    return prefix + n;
}

static void test_parse(void)
{
    static const struct {
        int major;
        const char *dict;
        ga_dtype_t dtype;
        int ndim, fortran, big;
        int64_t shape0, shape_last;
    } ok[] = {
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", GA_F32, 1, 0, 0, 3, 3},
        {1, "{'shape': (2, 3), 'descr': '>f8', 'fortran_order': True}", GA_F64, 2, 1, 1, 2, 3},
        {2, "{ 'fortran_order' : False ,'shape':(),'descr':'|b1' }", GA_BOOL, 0, 0, 0, 0, 0},
        {3, "{\"descr\": \"=i4\", \"fortran_order\": False, \"shape\": (7 , 1 ,)}", GA_I32, 2, 0, 0, 7, 1},
        {1, "{'descr': '?', 'fortran_order': False, 'shape': (1,)}", GA_BOOL, 1, 0, 0, 1, 1},
        {1, "{'descr': '>u1', 'fortran_order': False, 'shape': (4L,)}", GA_U8, 1, 0, 0, 4, 4},
        {1, "{'descr': '<c16', 'fortran_order': False, 'shape': (0, 5)}", GA_C128, 2, 0, 0, 0, 5},
        {1, "{'descr': '>c8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 9)}", GA_C64, 8,
         0, 1, 1, 9},
        {1, "{'descr': '<f2', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4611686018427387904)}",
         GA_F16, 3, 0, 0, 0, 4611686018427387904},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        unsigned char buf[256];
        ga_npy_info_t info;
        cm_error_t err = {0};
        size_t len = make_header(buf, ok[i].major, ok[i].dict);
        int rc = ga_npy_parse_header(buf, len, &info, &err);
        if (rc)
            fprintf(stderr, "%s: %s\n", ok[i].dict, err.text);
        CHECK(rc == 0 && info.header_bytes == len);
        CHECK(info.dtype == ok[i].dtype && info.ndim == ok[i].ndim);
        CHECK(info.fortran_order == ok[i].fortran && info.big_endian == ok[i].big);
        CHECK(info.ndim == 0 || (info.shape[0] == ok[i].shape0 &&
                                 info.shape[info.ndim - 1] == ok[i].shape_last));
    }

    static const struct {
        const char *dict, *error;
    } bad[] = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", "'shape' (3) is not a tuple"},
        {"{'descr': '<f4', 'fortran_order': 0, 'shape': (3,)}", "expected True or False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}", "unknown key 'x'"},
        {"{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}", "given twice"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} junk", "only padding"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,", "an integer in 'shape'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", "overflows 64 bits"},
        {"{'descr': '<f10', 'fortran_order': False, 'shape': (3,)}", "a float size gpuc does not have"},
        {"{'descr': 'xyz', 'fortran_order': False, 'shape': (3,)}", "'xyz' (not a NumPy type string)"},
        {"['descr', '<f4']", "expected the header dict's '{'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char buf[256];
        ga_npy_info_t info;
        cm_error_t err = {0};
        size_t len = make_header(buf, 1, bad[i].dict);
        CHECK(ga_npy_parse_header(buf, len, &info, &err) == -1 && err.code == GA_E_FILE);
        if (!strstr(err.text, bad[i].error))
            fprintf(stderr, "%s: got \"%s\", expected \"%s\"\n", bad[i].dict, err.text, bad[i].error);
        CHECK(strstr(err.text, bad[i].error) != NULL);
    }

    /* Every prefix of a good header is an error, never a read past len. */
    unsigned char buf[256];
    size_t len = make_header(buf, 1, ok[0].dict);
    for (size_t n = 0; n < len; n++) {
        ga_npy_info_t info;
        unsigned char *cut = malloc(n ? n : 1);
        memcpy(cut, buf, n);
        CHECK(ga_npy_parse_header(cut, n, &info, NULL) == -1);
        free(cut);
    }
}

static void test_format(void)
{
    int64_t longest[GA_MAX_DIMS] = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX,
                                    INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    int64_t shape[GA_MAX_DIMS] = {3, 1, 4, 1, 5, 9, 2, 6};
    for (int ndim = 0; ndim <= GA_MAX_DIMS; ndim++)
        for (int d = 0; d < GA_NDTYPES; d++) {
            size_t len;
            ga_npy_info_t info;
            unsigned char *h = ga_npy_format_header((ga_dtype_t)d, ndim, longest, &len);
            CHECK(h && len % 64 == 0 && h[len - 1] == '\n' && h[6] == 1);
            free(h);
            h = ga_npy_format_header((ga_dtype_t)d, ndim, shape, &len);
            CHECK(h && len % 64 == 0 && ga_npy_parse_header(h, len, &info, NULL) == 0 &&
                  info.dtype == (ga_dtype_t)d && info.ndim == ndim && info.header_bytes == len &&
                  memcmp(info.shape, shape, (size_t)ndim * sizeof shape[0]) == 0);
            free(h);
        }
    size_t len;
    int64_t negative[1] = {-1};
    CHECK(ga_npy_format_header(GA_NDTYPES, 1, shape, &len) == NULL);
    CHECK(ga_npy_format_header(GA_F32, GA_MAX_DIMS + 1, shape, &len) == NULL);
    CHECK(ga_npy_format_header(GA_F32, 1, negative, &len) == NULL);
}

/* ---- broken files and paths ---- */

static void check_error(const char *what, int rc, const cm_error_t *err, int code, const char *expected)
{
    if (verbose)
        printf("%-22s %s\n", what, err->text);
    if (rc != -1 || err->code != code || !strstr(err->text, expected))
        fprintf(stderr, "%s: rc %d, code %d, \"%s\"; expected \"%s\"\n", what, rc, err->code,
                err->text, expected);
    CHECK(rc == -1 && err->code == code && strstr(err->text, expected));
}

static void test_bad_files(const char *dir)
{
    static const struct {
        const char *file, *error;
    } bad[] = {
        {"truncated.npy", "truncated: the header promises 96 bytes of data (float64, shape (4, 3)) "
                          "but the file has 76 after its 128 header bytes"},
        {"lying.npy", "truncated: the header promises 800 bytes of data (float64, shape (100,)) "
                      "but the file has 32"},
        {"extra.npy", "too long: the header promises 96 bytes of data (float64, shape (4, 3)) "
                      "but the file has 104"},
        {"header_past_end.npy", "truncated: the header says it is 1000 bytes long, but only 118"},
        {"bad_magic.npy", "not a .npy file: it does not start with \"\\x93NUMPY\""},
        {"tiny.npy", "truncated: 4 bytes"},
        {"version99.npy", "unknown .npy format version 9.9 (gpuc reads 1.0, 2.0 and 3.0)"},
        {"unicode.npy", "'<U5' (unicode strings) is not an array dtype gpuc has"},
        {"object.npy", "'|O' (Python objects) is not an array dtype gpuc has"},
        {"structured.npy", "the structured dtype [('a', '<f4')] is not an array dtype gpuc has"},
        {"datetime.npy", "'<M8[D]' (datetime64) is not an array dtype gpuc has"},
        {"dims9.npy", "the array has 9 dimensions; gpuc arrays have at most 8"},
        {"negative.npy", "shape (3, -1) has a negative dimension"},
        {"overflow.npy", "shape (4611686018427387904, 4611686018427387904) of float64 overflows"},
        {"no_shape.npy", "bad .npy header: it has no 'shape'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char path[1024];
        ga_npy_info_t info;
        void *data = (void *)1;
        cm_error_t err = {0};
        snprintf(path, sizeof path, NPY_DIR "bad/%s", bad[i].file);
        int rc = ga_npy_load(path, &info, &data, &err);
        check_error(bad[i].file, rc, &err, GA_E_FILE, bad[i].error);
        CHECK(data == NULL && strstr(err.text, path));
    }

    char path[1024], file[1024];
    ga_npy_info_t info;
    void *data;
    int64_t shape[2] = {2, 3}, negative[2] = {2, -3};
    double values[6] = {0};
    cm_error_t err = {0};
    check_error("no such file", ga_npy_load("/nonexistent/x.npy", &info, &data, &err), &err,
                GA_E_FILE, "cannot open '/nonexistent/x.npy': No such file or directory");
    cm_error_clear(&err);
    check_error("a directory", ga_npy_load(dir, &info, &data, &err), &err, GA_E_FILE,
                "it is a directory");

    /* unwritable even for root: a path under a regular file */
    snprintf(file, sizeof file, "%s/plain", dir);
    fclose(fopen(file, "w"));
    snprintf(path, sizeof path, "%s/plain/x.npy", dir);
    cm_error_clear(&err);
    check_error("unwritable path", ga_npy_save(path, GA_F64, 2, shape, values, &err), &err,
                GA_E_FILE, "Not a directory");
    cm_error_clear(&err);
    check_error("no such directory", ga_npy_save("/nonexistent/x.npy", GA_F64, 2, shape, values, &err),
                &err, GA_E_FILE, "cannot write '/nonexistent/x.npy': No such file or directory");
    snprintf(path, sizeof path, "%s/x.npy", dir);
    cm_error_clear(&err);
    check_error("save: a bad dtype", ga_npy_save(path, GA_NDTYPES, 2, shape, values, &err), &err,
                GA_E_DTYPE, "is not a dtype");
    cm_error_clear(&err);
    check_error("save: 9 dimensions", ga_npy_save(path, GA_F64, 9, shape, values, &err), &err,
                GA_E_SHAPE, "9 dimensions (at most 8)");
    cm_error_clear(&err);
    check_error("save: negative shape", ga_npy_save(path, GA_F64, 2, negative, values, &err), &err,
                GA_E_SHAPE, "shape (2, -3) has a negative dimension");
    CHECK(access(path, F_OK) != 0); /* nothing written, no temporary left */
    unlink(file);
}

/* Saving over a file replaces it whole. */
static void test_overwrite(const char *dir)
{
    char path[1024];
    int64_t big[1] = {1000}, small[1] = {2};
    float a[1000] = {0}, b[2] = {1, 2};
    ga_npy_info_t info;
    void *data;
    snprintf(path, sizeof path, "%s/over.npy", dir);
    CHECK(ga_npy_save(path, GA_F32, 1, big, a, NULL) == 0);
    CHECK(ga_npy_save(path, GA_F32, 1, small, b, NULL) == 0);
    CHECK(ga_npy_load(path, &info, &data, NULL) == 0 && info.shape[0] == 2 &&
          memcmp(data, b, sizeof b) == 0);
    free(data);
    unlink(path);
}

/* ---- main ---- */

static int write_all_golden(const char *dir)
{
    golden_t *gs;
    char saved[1024];
    int n = read_manifest(&gs), rc = n < 0;
    for (int i = 0; i < n; i++)
        rc |= save_copy(&gs[i], dir, saved, sizeof saved);
    free(gs);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_all_golden(argv[2]);
    verbose = argc == 2 && strcmp(argv[1], "-v") == 0;
    char dir[] = "/tmp/test_ga_npy.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_golden(dir);
    test_parse();
    test_format();
    test_bad_files(dir);
    test_overwrite(dir);
    CHECK(rmdir(dir) == 0); /* empty: no temporary file left behind */
    return check_report("test_ga_npy");
}
