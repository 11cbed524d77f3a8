/* rt_profile_draw: %%profile's pictures as SVG — a timeline of the rows
 * (one lane per device and stream; kernels, array kernels, BLAS calls and
 * copies in their colours, each with a tooltip) and a roofline (log-log:
 * FLOP/s against arithmetic intensity, the memory roof and one compute
 * roof per precision with a peak, one point per name). Classes name the
 * parts for tests and style sheets: "lane", "span kernel|array|BLAS|copy",
 * "roof memory", "roof fp32", "point". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_buf.h"
#include "rt_profile.h"

static const char *const COLOUR[4] = {"#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e"};
static const char *const KIND[4] = {"kernel", "array", "BLAS", "copy"};

void rt_profile_escape(cm_buf_t *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': cm_buf_adds(b, "&amp;"); break;
        case '<': cm_buf_adds(b, "&lt;"); break;
        case '>': cm_buf_adds(b, "&gt;"); break;
        case '"': cm_buf_adds(b, "&quot;"); break;
        default: cm_buf_add(b, s, 1);
        }
    }
}

static void time_text(double s, char *buf, size_t len)
{
    if (s >= 1)
        snprintf(buf, len, "%.3g s", s);
    else if (s >= 1e-3)
        snprintf(buf, len, "%.3g ms", s * 1e3);
    else
        snprintf(buf, len, "%.3g us", s * 1e6);
}

char *rt_profile_timeline(const bk_profile_t *p)
{
    /* lanes: (device, stream) pairs in order of appearance */
    int lane_dev[32], lane_stream[32], nlanes = 0;
    double end = 0;
    for (int i = 0; i < p->nrows; i++) {
        const bk_prof_row_t *r = &p->rows[i];
        int k = 0;
        while (k < nlanes && !(lane_dev[k] == r->device && lane_stream[k] == (int)r->stream))
            k++;
        if (k == nlanes && nlanes < 32) {
            lane_dev[nlanes] = r->device;
            lane_stream[nlanes++] = (int)r->stream;
        }
        if (r->start + r->seconds > end)
            end = r->start + r->seconds;
    }
    double begin = p->nrows ? p->rows[0].start : 0;
    double span = end - begin > 0 ? end - begin : 1e-6;
    const int left = 120, width = 640, lane_h = 28, top = 30;
    int height = top + nlanes * lane_h + 40;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"gpuc-timeline\" width=\"%d\" "
                "height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">", left + width + 20, height);
    cm_buf_addf(&b, "<text x=\"%d\" y=\"16\" font-size=\"13\">timeline%s</text>", left,
                p->simulated ? " (simulated)" : "");
    for (int k = 0; k < nlanes; k++) {
        char dev[32];
        bk_device_text(lane_dev[k], dev, sizeof dev);
        int y = top + k * lane_h;
        cm_buf_addf(&b, "<g class=\"lane\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "fill=\"#f4f4f4\"/><text x=\"4\" y=\"%d\">%s stream %d</text></g>",
                    left, y, width, lane_h - 4, y + lane_h / 2 + 2, dev, lane_stream[k]);
    }
    for (int i = 0; i < p->nrows; i++) {
        const bk_prof_row_t *r = &p->rows[i];
        int k = 0;
        while (k < nlanes && !(lane_dev[k] == r->device && lane_stream[k] == (int)r->stream))
            k++;
        if (k == nlanes)
            continue;
        double x = left + (r->start - begin) / span * width;
        double w = r->seconds / span * width;
        if (w < 1)
            w = 1;
        char t[32];
        time_text(r->seconds, t, sizeof t);
        int kind = r->kind >= 0 && r->kind < 4 ? r->kind : 0;
        cm_buf_addf(&b, "<rect class=\"span %s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                    "fill=\"%s\"><title>", KIND[kind], x, top + k * lane_h + 2, w, lane_h - 8,
                    COLOUR[kind]);
        rt_profile_escape(&b, r->name);
        cm_buf_addf(&b, ": %s</title></rect>", t);
    }
    char t[32];
    time_text(span, t, sizeof t);
    int y = top + nlanes * lane_h + 14;
    cm_buf_addf(&b, "<text x=\"%d\" y=\"%d\">0</text><text x=\"%d\" y=\"%d\" "
                "text-anchor=\"end\">%s</text>", left, y, left + width, y, t);
    for (int k = 0; k < 4; k++)
        cm_buf_addf(&b, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                    "<text x=\"%d\" y=\"%d\">%s</text>", left + 20 + k * 90, y + 8, COLOUR[k],
                    left + 34 + k * 90, y + 17, KIND[k]);
    cm_buf_adds(&b, "</svg>");
    return cm_buf_steal(&b);
}

/* ---- roofline ------------------------------------------------------------- */

typedef struct axes {
    double x0, x1, y0, y1;     /* decades shown: 10^x0 .. 10^x1 */
    int left, top, w, h;
} axes_t;

static double px(const axes_t *a, double v)
{
    return a->left + (log10(v) - a->x0) / (a->x1 - a->x0) * a->w;
}

static double py(const axes_t *a, double v)
{
    return a->top + a->h - (log10(v) - a->y0) / (a->y1 - a->y0) * a->h;
}

char *rt_profile_roofline(const bk_profile_t *p, const rt_profile_total_t *tot, int ntot)
{
    static const char *const PREC[BK_NPREC] = {"fp16", "fp32", "fp64"};
    static const char *const PREC_COLOUR[BK_NPREC] = {"#8c564b", "#d62728", "#1f77b4"};
    double bw = p->peaks.bytes_per_s > 0 ? p->peaks.bytes_per_s : 1e9;
    double top_flops = 0;
    for (int k = 0; k < BK_NPREC; k++)
        if (p->peaks.flops[k] > top_flops)
            top_flops = p->peaks.flops[k];
    if (top_flops <= 0)
        top_flops = bw;
    axes_t a = {-3, 3, 0, 0, 70, 30, 520, 300};
    a.y1 = ceil(log10(top_flops)) + 0.3;
    a.y0 = a.y1 - 7;
    /* points: names with bytes and FLOPs */
    double ai[256], fl[256];
    int have[256] = {0};
    for (int i = 0; i < ntot && i < 256; i++) {
        const bk_prof_row_t *r = &tot[i].row;
        double bytes = r->bytes_read >= 0 && r->bytes_written >= 0 ? r->bytes_read + r->bytes_written : -1;
        double f = rt_profile_total_flops(r);
        if (r->kind == BK_PROF_COPY || bytes <= 0 || f <= 0 || r->seconds <= 0)
            continue;
        ai[i] = f / bytes;
        fl[i] = f / r->seconds;
        have[i] = 1;
        if (log10(ai[i]) < a.x0 + 0.3)
            a.x0 = floor(log10(ai[i])) - 0.3;
        if (log10(ai[i]) > a.x1 - 0.3)
            a.x1 = ceil(log10(ai[i])) + 0.3;
        if (log10(fl[i]) < a.y0 + 0.3)
            a.y0 = floor(log10(fl[i])) - 0.3;
    }
    cm_buf_t b = {0};
    cm_buf_addf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"gpuc-roofline\" width=\"%d\" "
                "height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">", a.left + a.w + 220,
                a.top + a.h + 50);
    cm_buf_addf(&b, "<text x=\"%d\" y=\"16\" font-size=\"13\">roofline%s</text>", a.left,
                p->simulated ? " (simulated: the model's peaks)" : "");
    cm_buf_addf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                "stroke=\"#999\"/>", a.left, a.top, a.w, a.h);
    for (int d = (int)ceil(a.x0); d <= (int)floor(a.x1); d++)
        cm_buf_addf(&b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d</text>",
                    px(&a, pow(10, d)), a.top, px(&a, pow(10, d)), a.top + a.h,
                    px(&a, pow(10, d)), a.top + a.h + 14, d);
    for (int d = (int)ceil(a.y0); d <= (int)floor(a.y1); d++)
        cm_buf_addf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>", a.left,
                    py(&a, pow(10, d)), a.left + a.w, py(&a, pow(10, d)), a.left - 4,
                    py(&a, pow(10, d)) + 4, d);
    cm_buf_addf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity "
                "(FLOP/byte)</text>", a.left + a.w / 2, a.top + a.h + 32);
    cm_buf_addf(&b, "<text transform=\"translate(14,%d) rotate(-90)\" text-anchor=\"middle\">"
                "FLOP/s</text>", a.top + a.h / 2);
    /* the roofs: bandwidth x intensity up to each precision's peak */
    double xlo = pow(10, a.x0), xhi = pow(10, a.x1);
    double mem_top = top_flops / bw < xhi ? top_flops / bw : xhi;
    cm_buf_addf(&b, "<line class=\"roof memory\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#333\" stroke-width=\"2\"><title>memory: %.3g GB/s</title></line>",
                px(&a, xlo), py(&a, bw * xlo), px(&a, mem_top), py(&a, bw * mem_top), bw / 1e9);
    for (int k = 0; k < BK_NPREC; k++) {
        double f = p->peaks.flops[k];
        if (f <= 0 || f / bw >= xhi)
            continue;
        cm_buf_addf(&b, "<line class=\"roof %s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                    "stroke=\"%s\" stroke-width=\"2\"><title>%s peak: %.3g TFLOP/s</title></line>"
                    "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">%s</text>",
                    PREC[k], px(&a, f / bw), py(&a, f), px(&a, xhi), py(&a, f), PREC_COLOUR[k],
                    PREC[k], f / 1e12, px(&a, xhi) - 30, py(&a, f) - 3, PREC_COLOUR[k], PREC[k]);
    }
    int legend = 0;
    for (int i = 0; i < ntot && i < 256; i++) {
        if (!have[i])
            continue;
        char verdict[300];
        rt_profile_verdict(p, &tot[i].row, verdict, sizeof verdict);
        cm_buf_addf(&b, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" "
                    "data-intensity=\"%.6g\" data-flops=\"%.6g\"><title>",
                    px(&a, ai[i]), py(&a, fl[i]), COLOUR[legend % 4], ai[i], fl[i]);
        rt_profile_escape(&b, tot[i].row.name);
        cm_buf_adds(&b, ": ");
        rt_profile_escape(&b, verdict);
        cm_buf_adds(&b, "</title></circle>");
        cm_buf_addf(&b, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
                    a.left + a.w + 16, a.top + 10 + legend * 16, COLOUR[legend % 4],
                    a.left + a.w + 26, a.top + 14 + legend * 16);
        char shown[40];
        snprintf(shown, sizeof shown, "%.32s", tot[i].row.name);
        rt_profile_escape(&b, shown);
        cm_buf_adds(&b, "</text>");
        legend++;
    }
    if (!legend)
        cm_buf_addf(&b, "<text x=\"%d\" y=\"%d\">no kernel with counted bytes and FLOPs</text>",
                    a.left + 20, a.top + 20);
    cm_buf_adds(&b, "</svg>");
    return cm_buf_steal(&b);
}
