/* rt_array_pictures: heatmaps, line charts and histograms of device
 * arrays (see rt_array_pictures.h). */
#include "rt_array_pictures.h"

#include <jansson.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_api.h"
#include "ga_copy.h"
#include "rt_chart.h"
#include "rt_display.h"

#define HEATMAP_SIDE 512         /* cells shown per side at most */
#define PLOT_POINTS 2000         /* points of a line chart at most */
#define HIST_BINS 50             /* bins when none are asked */
#define HIST_MOST_BINS 1000
#define CHUNK ((int64_t)1 << 20) /* elements read from the device at a time */

/* ---- reading values ------------------------------------------------------ */

/* values[0, n) are the elements first, first + 1, ... (C order) */
typedef void (*visit_fn)(void *ctx, const double *values, int64_t n, int64_t first);

/* Element i of data as a double: complex ones as their magnitude. */
static double value_at(ga_dtype_t d, const void *data, size_t i)
{
    if (ga_dtype_kind(d) == GA_KIND_COMPLEX)
        return hypot(ga_dtype_get_f64(d, data, i), ga_dtype_get_imag(d, data, i));
    return ga_dtype_get_f64(d, data, i);
}

/* Calls visit with all of a's elements, in C order, as doubles: a's rows
 * (axis 0) are copied to the host about CHUNK elements at a time through
 * views. 0, or -1 with err set. */
static int read_values(ga_array_t *a, visit_fn visit, void *ctx, cm_error_t *err)
{
    int64_t rows = a->ndim ? a->shape[0] : 1, per_row = a->size / rows;
    int64_t step = per_row >= CHUNK ? 1 : CHUNK / per_row;
    if (step > rows)
        step = rows;
    size_t elsize = ga_dtype_size(a->dtype);
    void *raw = malloc((size_t)(step * per_row) * elsize);
    double *v = malloc((size_t)(step * per_row) * sizeof *v);
    int rc = raw && v ? 0 : -1;
    if (rc != 0)
        CM_ERROR(err, GA_E_MEMORY, "no host memory for %lld elements",
                 (long long)(step * per_row));
    for (int64_t r = 0; rc == 0 && r < rows; r += step) {
        ga_array_t *part = a;
        if (step < rows)
            part = ga_array_slice(a, 0, r, r + step < rows ? r + step : rows, 1, err);
        rc = part ? ga_copy_to_host(part, raw, err) : -1;
        int64_t n = part ? part->size : 0;
        if (part != a)
            ga_array_free(part);
        for (int64_t i = 0; rc == 0 && i < n; i++)
            v[i] = value_at(a->dtype, raw, (size_t)i);
        if (rc == 0)
            visit(ctx, v, n, r * per_row);
    }
    free(raw);
    free(v);
    return rc;
}

/* "float32 (4096, 4096)", "|z| of complex64 (8,)" into buf; " on gpu1"
 * after it for an array away from the device new arrays go to (several
 * devices in use: which one it is). */
static void describe(const ga_array_t *a, char *buf, size_t len)
{
    char shape[128], where[32] = "";
    ga_shape_text(a->ndim, a->shape, shape, sizeof shape);
    if (bk_default_device() != a->device) {
        char dev[16];
        ga_device_text(a->device, dev, sizeof dev);
        snprintf(where, sizeof where, " on %s", dev);
    }
    snprintf(buf, len, "%s%s %s%s", ga_dtype_kind(a->dtype) == GA_KIND_COMPLEX ? "|z| of " : "",
             ga_dtype_name(a->dtype), shape, where);
}

/* 0 when a is live, has ndim dimensions (any when ndim < 0) and
 * elements; else the failure of fn's cell (-1 without a hook). */
static int drawable(const char *fn, ga_array_t *a, int ndim)
{
    cm_error_t err = {0};
    if (ga_array_check(a, &err) != 0) {
        ga_api_fail(fn, &err);
        return -1;
    }
    char shape[128];
    ga_shape_text(a->ndim, a->shape, shape, sizeof shape);
    if (ndim >= 0 && a->ndim != ndim) {
        ga_api_failf(fn, GA_E_SHAPE, "needs a %d-D array, not a %d-D one %s", ndim, a->ndim,
                     shape);
        return -1;
    }
    if (a->size == 0) {
        ga_api_failf(fn, GA_E_SHAPE, "the array %s is empty: nothing to draw", shape);
        return -1;
    }
    return 0;
}

/* Shows one display: rich (a new string, freed) as mime, with text. */
static void show(const char *mime, char *rich, const char *text)
{
    rt_display_bundle(json_pack("{s:s, s:s}", mime, rich, "text/plain", text), NULL, 0);
    free(rich);
}

/* ---- heatmap ------------------------------------------------------------- */

typedef struct grid {
    double *v;     /* (h * w) the shown cells, C order */
    int64_t cols;  /* columns read */
    int64_t cstep; /* of which every cstep-th is shown */
    int w;
} grid_t;

static void keep_values(void *ctx, const double *values, int64_t n, int64_t first)
{
    grid_t *g = ctx;
    for (int64_t i = 0; i < n; i++) {
        int64_t row = (first + i) / g->cols, col = (first + i) % g->cols;
        if (col % g->cstep == 0)
            g->v[row * g->w + col / g->cstep] = values[i];
    }
}

/* The PNG (malloc'd, *len bytes) of an RGB image, or NULL with err set. */
static void *png_encode(const unsigned char *rgb, int w, int h, size_t *len, cm_error_t *err)
{
    png_image img = {.version = PNG_IMAGE_VERSION, .width = (png_uint_32)w,
                     .height = (png_uint_32)h, .format = PNG_FORMAT_RGB};
    png_alloc_size_t size = 0;
    void *png = NULL;
    if (png_image_write_get_memory_size(img, size, 0, rgb, 0, NULL) && (png = malloc(size)) &&
        png_image_write_to_memory(&img, png, &size, 0, rgb, 0, NULL)) {
        *len = size;
        return png;
    }
    CM_ERROR(err, GA_E_MEMORY, "PNG encoding failed: %s", png ? img.message : "no memory");
    free(png);
    return NULL;
}

/* Column steps up to this read whole rows and drop columns on the host:
 * a strided view of a GPU array is copied an element at a time (one
 * cudaMemcpy each), a row in one go; at most WHOLE_ROWS times the cells
 * shown cross the bus. */
#define WHOLE_ROWS 64

/* The view of a 2-D array that is read: every step[0]-th row, and every
 * step[1]-th column when that step is over WHOLE_ROWS (then *cstep = 1,
 * else step[1]); at most HEATMAP_SIDE rows and columns are shown. */
static ga_array_t *heatmap_view(ga_array_t *a, int64_t step[2], int64_t *cstep, cm_error_t *err)
{
    ga_array_t *view = a;
    for (int k = 0; k < 2; k++)
        step[k] = (a->shape[k] + HEATMAP_SIDE - 1) / HEATMAP_SIDE;
    *cstep = step[1] > WHOLE_ROWS ? 1 : step[1];
    for (int k = 0; k < 2; k++) {
        if (step[k] == 1 || (k == 1 && *cstep > 1))
            continue;
        ga_array_t *next = ga_array_slice(view, k, 0, GA_END, step[k], err);
        if (view != a)
            ga_array_free(view);
        if (!(view = next))
            return NULL;
    }
    return view;
}

void rt_array_heatmap(ga_array_t *a)
{
    const char *fn = "ga_heatmap";
    if (drawable(fn, a, 2) != 0)
        return;
    cm_error_t err = {0};
    int64_t step[2], cstep;
    ga_array_t *view = heatmap_view(a, step, &cstep, &err);
    int h = view ? (int)view->shape[0] : 0, w = (int)((a->shape[1] + step[1] - 1) / step[1]);
    grid_t g = {malloc((size_t)h * w * sizeof(double)), view ? view->shape[1] : 1, cstep, w};
    unsigned char *rgb = malloc((size_t)h * w * 3);
    if (view && (!g.v || !rgb))
        CM_ERROR(&err, GA_E_MEMORY, "no host memory for %dx%d cells", h, w);
    int rc = view && g.v && rgb ? read_values(view, keep_values, &g, &err) : -1;
    if (view != a)
        ga_array_free(view);
    double lo = INFINITY, hi = -INFINITY;
    long long bad = 0;
    for (size_t i = 0; rc == 0 && i < (size_t)h * w; i++) {
        if (isfinite(g.v[i])) {
            lo = fmin(lo, g.v[i]);
            hi = fmax(hi, g.v[i]);
        } else
            bad++;
    }
    for (size_t i = 0; rc == 0 && i < (size_t)h * w; i++)
        rt_chart_viridis(!isfinite(g.v[i]) ? NAN : hi > lo ? (g.v[i] - lo) / (hi - lo) : 0,
                         rgb + 3 * i);
    if (lo > hi)
        lo = hi = 0; /* no finite value: all grey */
    size_t len = 0;
    void *png = rc == 0 ? png_encode(rgb, w, h, &len, &err) : NULL;
    free(g.v);
    free(rgb);
    if (!png) {
        ga_api_fail(fn, &err);
        return;
    }
    char what[160], desc[512];
    describe(a, what, sizeof what);
    int n = bad == (long long)h * w
                ? snprintf(desc, sizeof desc, "heatmap of %s, no finite values", what)
                : snprintf(desc, sizeof desc, "heatmap of %s, min %.6g, max %.6g", what, lo, hi);
    if (step[0] > 1 || step[1] > 1)
        n += snprintf(desc + n, sizeof desc - n, ", shown %dx%d (one row in %lld, one column in "
                      "%lld)", h, w, (long long)step[0], (long long)step[1]);
    if (bad)
        snprintf(desc + n, sizeof desc - n, ", %lld not finite (grey)", bad);
    /* small arrays are shown larger, cells as squares (pixelated) */
    int side = h > w ? h : w, scale = side < 256 ? 256 / side : 1;
    char *b64 = rt_display_base64(png, len);
    char *bar = rt_chart_colourbar(lo, hi, h * scale < 80 ? 80 : h * scale);
    cm_buf_t html = {0};
    cm_buf_addf(&html, "<div class=\"gpuc-heatmap\" style=\"display:flex;align-items:flex-start;"
                "gap:8px\"><img src=\"data:image/png;base64,%s\" width=\"%d\" height=\"%d\" "
                "alt=\"%s\" style=\"image-rendering:pixelated\">\n%s</div>\n"
                "<div style=\"font-size:small\">%s</div>\n", b64, w * scale, h * scale, desc, bar,
                desc);
    char plain[600];
    snprintf(plain, sizeof plain, "<%s>", desc);
    rt_display_bundle(json_pack("{s:s, s:s, s:s}", "text/html", cm_buf_str(&html), "image/png",
                                b64, "text/plain", plain), NULL, 0);
    cm_buf_free(&html);
    free(bar);
    free(b64);
    free(png);
}

/* ---- line chart ---------------------------------------------------------- */

typedef struct buckets {
    int64_t width;       /* elements per bucket */
    double *lo, *hi;     /* (nbuckets) finite min and max; lo > hi: none */
    int64_t *ilo, *ihi;  /* (nbuckets) their indices */
} buckets_t;

static void bucket_values(void *ctx, const double *values, int64_t n, int64_t first)
{
    buckets_t *b = ctx;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = (first + i) / b->width;
        if (!isfinite(values[i]))
            continue;
        if (values[i] < b->lo[k]) {
            b->lo[k] = values[i];
            b->ilo[k] = first + i;
        }
        if (values[i] > b->hi[k]) {
            b->hi[k] = values[i];
            b->ihi[k] = first + i;
        }
    }
}

void rt_array_plot(ga_array_t *a)
{
    const char *fn = "ga_plot";
    if (drawable(fn, a, 1) != 0)
        return;
    /* up to PLOT_POINTS elements: one bucket each; more: PLOT_POINTS / 2
     * buckets, each drawn by its min and max in index order, so that a
     * spike of one element still shows (a strided read would miss it) */
    int64_t size = a->size, width = size <= PLOT_POINTS ? 1 : (size + PLOT_POINTS / 2 - 1) /
                                                                (PLOT_POINTS / 2);
    int64_t nb = (size + width - 1) / width;
    buckets_t b = {width, malloc(nb * sizeof(double)), malloc(nb * sizeof(double)),
                   malloc(nb * sizeof(int64_t)), malloc(nb * sizeof(int64_t))};
    double *x = malloc(2 * nb * sizeof(double)), *y = malloc(2 * nb * sizeof(double));
    cm_error_t err = {0};
    int rc = b.lo && b.hi && b.ilo && b.ihi && x && y ? 0 : -1;
    if (rc != 0)
        CM_ERROR(&err, GA_E_MEMORY, "no host memory for %lld buckets", (long long)nb);
    for (int64_t k = 0; rc == 0 && k < nb; k++) {
        b.lo[k] = INFINITY;
        b.hi[k] = -INFINITY;
    }
    rc = rc == 0 ? read_values(a, bucket_values, &b, &err) : rc;
    int n = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t k = 0; rc == 0 && k < nb; k++) {
        if (b.lo[k] > b.hi[k])
            continue; /* no finite value */
        int lo_first = b.ilo[k] <= b.ihi[k];
        x[n] = (double)(lo_first ? b.ilo[k] : b.ihi[k]);
        y[n++] = lo_first ? b.lo[k] : b.hi[k];
        if (b.ilo[k] != b.ihi[k]) {
            x[n] = (double)(lo_first ? b.ihi[k] : b.ilo[k]);
            y[n++] = lo_first ? b.hi[k] : b.lo[k];
        }
        lo = fmin(lo, b.lo[k]);
        hi = fmax(hi, b.hi[k]);
    }
    free(b.lo);
    free(b.hi);
    free(b.ilo);
    free(b.ihi);
    if (rc != 0) {
        free(x);
        free(y);
        ga_api_fail(fn, &err);
        return;
    }
    char what[160], desc[512];
    describe(a, what, sizeof what);
    int len = snprintf(desc, sizeof desc, "line chart of %s, %d points", what, n);
    if (width > 1)
        len += snprintf(desc + len, sizeof desc - len,
                        " (the min and max of each %lld-element bucket)", (long long)width);
    if (n)
        snprintf(desc + len, sizeof desc - len, ", min %.6g, max %.6g", lo, hi);
    else
        snprintf(desc + len, sizeof desc - len, ": no finite values");
    char plain[600];
    snprintf(plain, sizeof plain, "<%s>", desc);
    const rt_chart_labels_t labels = {what, "index", ga_dtype_kind(a->dtype) == GA_KIND_COMPLEX
                                                         ? "|z|" : "value"};
    if (n)
        show("image/svg+xml", rt_chart_line(x, y, n, &labels), plain);
    else
        rt_display_text(plain);
    free(x);
    free(y);
}

/* ---- histogram ----------------------------------------------------------- */

typedef struct histogram {
    double lo, hi;      /* the finite range (pass 1), then the bins' range */
    long long bad;      /* values not finite */
    int bins;
    double *counts;     /* (bins) pass 2 */
} histogram_t;

static void hist_range(void *ctx, const double *values, int64_t n, int64_t first)
{
    histogram_t *h = ctx;
    for (int64_t i = 0; i < n; i++) {
        if (isfinite(values[i])) {
            h->lo = fmin(h->lo, values[i]);
            h->hi = fmax(h->hi, values[i]);
        } else
            h->bad++;
    }
}

/* As NumPy's histogram: bins of equal width, the last one closed. */
static void hist_count(void *ctx, const double *values, int64_t n, int64_t first)
{
    histogram_t *h = ctx;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(values[i]))
            continue;
        int k = (int)((values[i] - h->lo) / (h->hi - h->lo) * h->bins);
        h->counts[k < h->bins ? k : h->bins - 1]++;
    }
}

void rt_array_hist(ga_array_t *a, int bins)
{
    const char *fn = "ga_hist";
    if (drawable(fn, a, -1) != 0)
        return;
    if (bins > HIST_MOST_BINS) {
        ga_api_failf(fn, GA_E_SHAPE, "%d bins: at most %d", bins, HIST_MOST_BINS);
        return;
    }
    histogram_t h = {INFINITY, -INFINITY, 0, bins > 0 ? bins : HIST_BINS, NULL};
    cm_error_t err = {0};
    if (read_values(a, hist_range, &h, &err) != 0) {
        ga_api_fail(fn, &err);
        return;
    }
    if (h.lo > h.hi)
        h.lo = h.hi = 0; /* no finite value: empty bins */
    if (h.lo == h.hi) {  /* one value: NumPy's range around it */
        h.lo -= 0.5;
        h.hi += 0.5;
    }
    h.counts = calloc(h.bins, sizeof *h.counts);
    double *edges = malloc((h.bins + 1) * sizeof *edges);
    int rc = h.counts && edges ? read_values(a, hist_count, &h, &err) : -1;
    if (rc != 0) {
        if (!h.counts || !edges)
            CM_ERROR(&err, GA_E_MEMORY, "no host memory for %d bins", h.bins);
        free(h.counts);
        free(edges);
        ga_api_fail(fn, &err);
        return;
    }
    for (int i = 0; i <= h.bins; i++)
        edges[i] = h.lo + (h.hi - h.lo) * i / h.bins;
    char what[160], desc[512];
    describe(a, what, sizeof what);
    int len = snprintf(desc, sizeof desc, "histogram of %s, %d bins over [%.6g, %.6g], %lld "
                       "values", what, h.bins, h.lo, h.hi, (long long)(a->size - h.bad));
    if (h.bad)
        snprintf(desc + len, sizeof desc - len, ", %lld not finite left out", h.bad);
    char plain[600];
    snprintf(plain, sizeof plain, "<%s>", desc);
    const rt_chart_labels_t labels = {what, ga_dtype_kind(a->dtype) == GA_KIND_COMPLEX ? "|z|"
                                                                                    : "value",
                                      "count"};
    show("image/svg+xml", rt_chart_bars(edges, h.counts, h.bins, &labels), plain);
    free(h.counts);
    free(edges);
}
