/* test_rt_array_pictures: ga_heatmap, ga_plot and ga_hist from cells on
 * the CPU backend — the heatmap's PNG decoded with libpng (size, colours
 * at the min and max cells, downsampling), its HTML (image and colour
 * bar); the line chart's points (all, or min and max per bucket) and
 * labels; the histogram's bars against counts made here (also over
 * several chunks); and the errors: wrong dimensions, empty and freed
 * arrays end the cell with their kind and show nothing. */
#include <jansson.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session_check.h"

static json_t *run(const char *code)
{
    return run_next_capturing(code);
}

static size_t count(const char *text, const char *part)
{
    size_t n = 0;
    for (const char *p = strstr(text, part); p; p = strstr(p + 1, part))
        n++;
    return n;
}

/* The cell runs and shows exactly one display; its MIME bundle (borrowed). */
static json_t *shown(const char *code)
{
    size_t before = json_array_size(emitted);
    EXPECT(code, NULL);
    CHECK(json_array_size(emitted) == before + 1);
    return json_object_get(json_array_get(emitted, json_array_size(emitted) - 1), "data");
}

static const char *mime(json_t *data, const char *type)
{
    const char *v = json_string_value(json_object_get(data, type));
    return v ? v : "";
}

/* The bytes of base64 text (new, *len of them). */
static unsigned char *unbase64(const char *text, size_t *len)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned char *out = malloc(strlen(text) / 4 * 3 + 3);
    size_t n = 0;
    unsigned bits = 0, nbits = 0;
    for (const char *p = text; *p && *p != '='; p++) {
        bits = bits << 6 | (unsigned)(strchr(digits, *p) - digits);
        if ((nbits += 6) >= 8)
            out[n++] = (unsigned char)(bits >> (nbits -= 8));
    }
    *len = n;
    return out;
}

/* The RGB pixels of a base64 PNG (new), its size in *w, *h; NULL when
 * libpng cannot read it. */
static unsigned char *decode_png(const char *b64, int *w, int *h)
{
    size_t len;
    unsigned char *png = unbase64(b64, &len), *rgb = NULL;
    png_image img = {.version = PNG_IMAGE_VERSION};
    if (png_image_begin_read_from_memory(&img, png, len)) {
        img.format = PNG_FORMAT_RGB;
        rgb = malloc(PNG_IMAGE_SIZE(img));
        if (!png_image_finish_read(&img, NULL, rgb, 0, NULL)) {
            free(rgb);
            rgb = NULL;
        }
    }
    free(png);
    *w = (int)img.width;
    *h = (int)img.height;
    return rgb;
}

static unsigned pixel(const unsigned char *rgb, int w, int row, int col)
{
    const unsigned char *p = rgb + 3 * ((size_t)row * w + col);
    return (unsigned)p[0] << 16 | (unsigned)p[1] << 8 | p[2];
}

static void test_heatmap(void)
{
    EXPECT("ga_use_device(GA_CPU);", NULL);
    json_t *d = shown("ga_t m = ga_reshape(ga_arange(F32, 0, 12, 1), 3, 4);\n"
                      "ga_set(m, NAN, 1, 1);\nga_heatmap(m);");
    CHECK_STR(mime(d, "text/plain"), "<heatmap of float32 (3, 4), min 0, max 11, "
                                     "1 not finite (grey)>");
    int w = 0, h = 0;
    unsigned char *rgb = decode_png(mime(d, "image/png"), &w, &h);
    CHECK(rgb && w == 4 && h == 3);
    if (rgb) {
        CHECK(pixel(rgb, w, 0, 0) == 0x440154); /* the min: viridis' first colour */
        CHECK(pixel(rgb, w, 2, 3) == 0xfde725); /* the max: its last */
        CHECK(pixel(rgb, w, 1, 1) == 0x808080); /* NaN */
    }
    free(rgb);
    const char *html = mime(d, "text/html");
    char img[64];
    snprintf(img, sizeof img, "<img src=\"data:image/png;base64,%.20s", mime(d, "image/png"));
    CHECK(strstr(html, img) != NULL);
    CHECK(strstr(html, "width=\"256\" height=\"192\"") != NULL); /* shown 64x */
    CHECK(strstr(html, "<linearGradient id=\"gpuc-viridis\"") != NULL);
    CHECK(strstr(html, "class=\"cbar-min\" x=\"24\" y=\"186\">0</text>") != NULL);
    CHECK(strstr(html, "class=\"cbar-max\" x=\"24\" y=\"10\">11</text>") != NULL);

    /* over 512 a side: every k-th row and column, said in the text */
    d = shown("ga_t big = ga_zeros(F64, 1100, 700);\nga_set(big, -2, 1098, 0);\n"
              "ga_set(big, 3, 0, 698);\nga_heatmap(big);");
    CHECK_STR(mime(d, "text/plain"), "<heatmap of float64 (1100, 700), min -2, max 3, shown "
                                     "367x350 (one row in 3, one column in 2)>");
    rgb = decode_png(mime(d, "image/png"), &w, &h);
    CHECK(rgb && w == 350 && h == 367);
    if (rgb) {
        CHECK(pixel(rgb, w, 366, 0) == 0x440154); /* row 1098 = 366 * 3 */
        CHECK(pixel(rgb, w, 0, 349) == 0xfde725); /* column 698 = 349 * 2 */
    }
    free(rgb);

    /* a column step over 64: a view strided both ways */
    d = shown("ga_t wide = ga_zeros(F32, 2, 70000);\nga_set(wide, 9, 1, 137 * 500);\n"
              "ga_heatmap(wide);");
    CHECK_STR(mime(d, "text/plain"), "<heatmap of float32 (2, 70000), min 0, max 9, shown 2x511 "
                                     "(one row in 1, one column in 137)>");
    rgb = decode_png(mime(d, "image/png"), &w, &h);
    CHECK(rgb && w == 511 && h == 2 && pixel(rgb, w, 1, 500) == 0xfde725 &&
          pixel(rgb, w, 1, 499) == 0x440154);
    free(rgb);

    d = shown("ga_heatmap(ga_full(C64, -3, 2, 2));");
    CHECK_STR(mime(d, "text/plain"), "<heatmap of |z| of complex64 (2, 2), min 3, max 3>");
}

/* The number of x,y pairs in the points of the first polyline. */
static int points(const char *svg)
{
    const char *p = strstr(svg, "points=\"");
    int n = 0;
    for (p = p ? p + 8 : ""; *p && *p != '"'; p++)
        n += *p == ',';
    return n;
}

static void test_plot(void)
{
    json_t *d = shown("ga_t p = ga_arange(F64, 0, 100, 1);\nga_set(p, INFINITY, 50);\n"
                      "ga_plot(p);");
    const char *svg = mime(d, "image/svg+xml");
    CHECK(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
    CHECK(count(svg, "<polyline class=\"series\"") == 1);
    CHECK(points(svg) == 99); /* the infinity left out */
    CHECK(strstr(svg, "class=\"xlabel\"") && strstr(svg, ">index</text>"));
    CHECK(strstr(svg, ">value</text>") && strstr(svg, ">float64 (100,)</text>"));
    CHECK(strstr(svg, "class=\"xtick\"") && strstr(svg, ">100</text>"));
    CHECK_STR(mime(d, "text/plain"), "<line chart of float64 (100,), 99 points, min 0, max 99>");

    /* 100000 values: 1000 buckets of 100, each its min and max; the
     * one-element spike survives */
    d = shown("ga_t q = ga_arange(F32, 0, 100000, 1);\nga_set(q, 1e6, 12345);\nga_plot(q);");
    CHECK(points(mime(d, "image/svg+xml")) == 2000);
    CHECK_STR(mime(d, "text/plain"), "<line chart of float32 (100000,), 2000 points (the min "
                                     "and max of each 100-element bucket), min 0, max 1e+06>");
}

/* The data-value of each bar of svg, in order, into v[]; how many. */
static int bars(const char *svg, double *v, int most)
{
    int n = 0;
    for (const char *p = strstr(svg, "<rect class=\"bar\""); p && n < most;
         p = strstr(p + 1, "<rect class=\"bar\"")) {
        const char *q = strstr(p, "data-value=\"");
        v[n++] = q ? strtod(q + 12, NULL) : -1;
    }
    return n;
}

/* The height attribute of the i-th bar. */
static double bar_height(const char *svg, int i)
{
    const char *p = strstr(svg, "<rect class=\"bar\"");
    while (p && i--)
        p = strstr(p + 1, "<rect class=\"bar\"");
    const char *q = p ? strstr(p, "height=\"") : NULL;
    return q ? strtod(q + 8, NULL) : -1;
}

static void test_hist(void)
{
    const double vals[] = {0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 0.5, 2.9};
    enum { N = 12, BINS = 4 };
    double want[BINS] = {0}, lo = 0, hi = 3;
    for (int i = 0; i < N; i++) {
        int k = (int)((vals[i] - lo) / (hi - lo) * BINS);
        want[k < BINS ? k : BINS - 1]++;
    }
    json_t *d = shown("double vals[] = {0, 1, 1, 2, 2, 2, 3, 3, 3, 3, 0.5, 2.9};\n"
                      "ga_t hv = ga_from_host(F64, vals, 3, 4);\nga_hist(hv, 4);");
    const char *svg = mime(d, "image/svg+xml");
    double got[8];
    CHECK(bars(svg, got, 8) == BINS);
    for (int k = 0; k < BINS; k++)
        CHECK(got[k] == want[k]);
    /* heights in proportion to the counts */
    for (int k = 0; k < BINS; k++)
        CHECK(fabs(bar_height(svg, k) / bar_height(svg, BINS - 1) - want[k] / want[BINS - 1]) <
              1e-3);
    CHECK(strstr(svg, ">count</text>") && strstr(svg, "<title>[0, 0.75): 2</title>"));
    CHECK_STR(mime(d, "text/plain"), "<histogram of float64 (3, 4), 4 bins over [0, 3], 12 "
                                     "values>");
    /* bins <= 0: 50; one value: the range around it */
    d = shown("ga_hist(ga_full(I32, 7, 5), 0);");
    CHECK(count(mime(d, "image/svg+xml"), "<rect class=\"bar\"") == 50);
    CHECK_STR(mime(d, "text/plain"), "<histogram of int32 (5,), 50 bins over [6.5, 7.5], 5 "
                                     "values>");
    /* read in chunks: 3000 rows of 1000 (several slices), rows over a chunk */
    d = shown("ga_hist(ga_reshape(ga_arange(F32, 0, 3000000, 1), 3000, 1000), 3);");
    CHECK(bars(mime(d, "image/svg+xml"), got, 8) == 3 && got[0] == 1e6 && got[1] == 1e6 &&
          got[2] == 1e6);
    d = shown("ga_hist(ga_ones(U8, 2, 1100000), 1);");
    CHECK(bars(mime(d, "image/svg+xml"), got, 8) == 1 && got[0] == 2200000);
}

static void test_errors(void)
{
    size_t before = json_array_size(emitted);
    EXPECT_ERROR("ga_heatmap(ga_arange(F32, 0, 10, 1));", "ShapeError",
                 "ga_heatmap: needs a 2-D array, not a 1-D one (10,)");
    EXPECT_ERROR("ga_plot(ga_zeros(F32, 2, 2, 2));", "ShapeError",
                 "ga_plot: needs a 1-D array, not a 3-D one (2, 2, 2)");
    EXPECT_ERROR("ga_plot(ga_zeros(F32, 0));", "ShapeError", "ga_plot: the array (0,) is empty");
    EXPECT_ERROR("ga_hist(ga_zeros(F32, 3), 5000);", "ShapeError", "ga_hist: 5000 bins");
    EXPECT("ga_t gone = ga_zeros(F32, 4, 4);\nga_free(gone);", NULL);
    EXPECT_ERROR("ga_heatmap(gone);", "FreedArrayError", "ga_heatmap: ");
    EXPECT_ERROR("ga_plot(gone);", "FreedArrayError", "ga_plot: ");
    EXPECT_ERROR("ga_hist(gone, 10);", "FreedArrayError", "ga_hist: ");
    CHECK(json_array_size(emitted) == before); /* nothing shown */
}

SESSION_TEST_MAIN("test_rt_array_pictures", test_heatmap, test_plot, test_hist, test_errors)
