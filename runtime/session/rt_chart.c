/* rt_chart: SVG charts and two-form tables (see rt_chart.h). */
#include "rt_chart.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- log-log line charts ---------------------------------------------- */

#define PANEL_WIDTH 400
#define CHART_HEIGHT 320

/* The opening of an SVG of width x height on white. */
static void svg_begin(cm_buf_t *b, int width, int height)
{
    cm_buf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
                "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height, width,
                height, width, height);
}

typedef struct axis {
    double lo, hi; /* decades (log10) */
    double p0, p1; /* pixels */
} axis_t;

static void axis_fit(axis_t *a, double lo, double hi, double p0, double p1)
{
    a->lo = floor(log10(lo));
    a->hi = ceil(log10(hi));
    if (a->hi <= a->lo)
        a->hi = a->lo + 1;
    a->p0 = p0;
    a->p1 = p1;
}

static double axis_at(const axis_t *a, double v)
{
    return a->p0 + (log10(v) - a->lo) / (a->hi - a->lo) * (a->p1 - a->p0);
}

/* Axes, decade grid and labels of one panel. */
static void panel_frame(cm_buf_t *b, const axis_t *x, const axis_t *y, const rt_chart_panel_t *p)
{
    cm_buf_addf(b, "<text x=\"%.0f\" y=\"18\" text-anchor=\"middle\" font-weight=\"bold\">%s"
                "</text>\n", (x->p0 + x->p1) / 2, p->title);
    for (double e = x->lo; e <= x->hi; e++) {
        double px = axis_at(x, pow(10, e));
        cm_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1e%.0f</text>\n", px,
                    y->p0, px, y->p1, px, y->p0 + 16, e);
    }
    for (double e = y->lo; e <= y->hi; e++) {
        double py = axis_at(y, pow(10, e));
        char label[64];
        p->ylabel(pow(10, e), label, sizeof label);
        cm_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", x->p0, py,
                    x->p1, py, x->p0 - 4, py + 4, label);
    }
    cm_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                "stroke=\"#444\"/>\n<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n",
                x->p0, y->p1, x->p1 - x->p0, y->p0 - y->p1, (x->p0 + x->p1) / 2, y->p0 + 32,
                p->xlabel);
}

/* One series as a line with dots, and its legend entry. */
static void series_line(cm_buf_t *b, const axis_t *x, const axis_t *y, const double *xs, int n,
                        const rt_chart_series_t *s, int legend)
{
    cm_buf_addf(b, "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                "points=\"", s->cls, s->colour);
    for (int i = 0; i < n; i++)
        if (s->y[i] > 0)
            cm_buf_addf(b, "%.1f,%.1f ", axis_at(x, xs[i]), axis_at(y, s->y[i]));
    cm_buf_adds(b, "\"/>\n");
    for (int i = 0; i < n; i++)
        if (s->y[i] > 0)
            cm_buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                        axis_at(x, xs[i]), axis_at(y, s->y[i]), s->colour);
    double ly = y->p1 + 14 + 14 * legend;
    cm_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x->p0 + 8, ly - 4,
                x->p0 + 28, ly - 4, s->colour, x->p0 + 32, ly, s->name);
}

char *rt_chart_loglog(const double *x, int n, const rt_chart_panel_t *panels, int npanels)
{
    cm_buf_t b = {0};
    svg_begin(&b, PANEL_WIDTH * npanels, CHART_HEIGHT);
    axis_t xa[8], ya[8];
    for (int k = 0; k < npanels && k < 8; k++) {
        const rt_chart_panel_t *p = &panels[k];
        double lo = INFINITY, hi = 0;
        if (p->reference > 0)
            lo = hi = p->reference;
        for (int s = 0; s < p->nseries; s++)
            for (int i = 0; i < n; i++)
                if (p->series[s].y[i] > 0) {
                    lo = fmin(lo, p->series[s].y[i]);
                    hi = fmax(hi, p->series[s].y[i]);
                }
        if (!(hi > 0))
            lo = 1e-9, hi = 1;
        axis_fit(&xa[k], x[0], x[n - 1], 80 + PANEL_WIDTH * k, 370 + PANEL_WIDTH * k);
        axis_fit(&ya[k], lo, hi, 270, 30);
        panel_frame(&b, &xa[k], &ya[k], p);
    }
    for (int k = 0; k < npanels && k < 8; k++) {
        const rt_chart_panel_t *p = &panels[k];
        if (p->reference > 0) {
            double py = axis_at(&ya[k], p->reference);
            cm_buf_addf(&b, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n", p->reference_cls,
                        xa[k].p0, py, xa[k].p1, py);
        }
    }
    for (int k = 0; k < npanels && k < 8; k++)
        for (int s = 0; s < panels[k].nseries; s++)
            series_line(&b, &xa[k], &ya[k], x, n, &panels[k].series[s], s);
    for (int k = 0; k < npanels && k < 8; k++) {
        const rt_chart_panel_t *p = &panels[k];
        if (!(p->marker > 0))
            continue;
        double px = axis_at(&xa[k], p->marker);
        cm_buf_addf(&b, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                    "stroke=\"#000\" stroke-dasharray=\"6 3\"/>\n"
                    "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                    p->marker_cls, px, ya[k].p0, px, ya[k].p1, p->marker_cls, px, ya[k].p0 - 6,
                    p->marker_label);
    }
    cm_buf_adds(&b, "</svg>\n");
    return cm_buf_steal(&b);
}

void rt_chart_format_size(double n, char *buf, size_t len)
{
    if (n < 1e4) {
        snprintf(buf, len, "%.0f", n);
        return;
    }
    int e = (int)floor(log10(n));
    double mant = n / pow(10, e);
    if (mant >= 9.95) {
        mant /= 10;
        e++;
    }
    if (fabs(mant - 1) < 0.05)
        snprintf(buf, len, "1e%d", e);
    else
        snprintf(buf, len, "%.2ge%d", mant, e);
}

/* ---- linear charts ----------------------------------------------------- */

#define LINEAR_WIDTH 640
#define MOST_TICKS 8

/* The least of 1, 2, 5 or 10 times a power of ten that is >= x: a tick
 * step (Heckbert's "nice numbers", Graphics Gems, 1990). */
static double nice_step(double x)
{
    double p = pow(10, floor(log10(x))), f = x / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

int rt_chart_ticks(double lo, double hi, int most, double *ticks)
{
    if (!(hi > lo)) {
        double d = lo != 0 ? fabs(lo) * 0.1 : 0.5;
        lo -= d;
        hi += d;
    }
    /* the step is at least (hi - lo) / (most - 1): at most most + 1 ticks */
    double step = nice_step((hi - lo) / (most - 1));
    double first = floor(lo / step) * step;
    int n = 0;
    while (n <= most && (n == 0 || ticks[n - 1] < hi)) {
        double t = first + n * step;
        ticks[n++] = fabs(t) < step * 1e-9 ? 0 : t; /* no -0 or 1e-17 */
    }
    return n;
}

typedef struct linear {
    double ticks[MOST_TICKS + 1]; /* the first and last are the axis ends */
    int nticks;
    double p0, p1; /* pixels of the ends */
} linear_t;

static void linear_fit(linear_t *a, double lo, double hi, double p0, double p1)
{
    a->nticks = rt_chart_ticks(lo, hi, MOST_TICKS, a->ticks);
    a->p0 = p0;
    a->p1 = p1;
}

static double linear_at(const linear_t *a, double v)
{
    double lo = a->ticks[0], hi = a->ticks[a->nticks - 1];
    return a->p0 + (v - lo) / (hi - lo) * (a->p1 - a->p0);
}

/* Opens an SVG with linear axes, grid, tick labels and labels. */
static void linear_frame(cm_buf_t *b, const linear_t *x, const linear_t *y,
                         const rt_chart_labels_t *l)
{
    svg_begin(b, LINEAR_WIDTH, CHART_HEIGHT);
    cm_buf_addf(b, "<text x=\"%.0f\" y=\"18\" text-anchor=\"middle\" font-weight=\"bold\">%s"
                "</text>\n", (x->p0 + x->p1) / 2, l->title);
    for (int i = 0; i < x->nticks; i++) {
        double px = linear_at(x, x->ticks[i]);
        cm_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                    "<text class=\"xtick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.6g"
                    "</text>\n", px, y->p0, px, y->p1, px, y->p0 + 16, x->ticks[i]);
    }
    for (int i = 0; i < y->nticks; i++) {
        double py = linear_at(y, y->ticks[i]);
        cm_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n"
                    "<text class=\"ytick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.6g</text>\n",
                    x->p0, py, x->p1, py, x->p0 - 4, py + 4, y->ticks[i]);
    }
    cm_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                "stroke=\"#444\"/>\n<text class=\"xlabel\" x=\"%.0f\" y=\"%.0f\" "
                "text-anchor=\"middle\">%s</text>\n<text class=\"ylabel\" x=\"14\" y=\"%.0f\" "
                "text-anchor=\"middle\" transform=\"rotate(-90 14 %.0f)\">%s</text>\n", x->p0,
                y->p1, x->p1 - x->p0, y->p0 - y->p1, (x->p0 + x->p1) / 2, y->p0 + 32, l->xlabel,
                (y->p0 + y->p1) / 2, (y->p0 + y->p1) / 2, l->ylabel);
}

/* The lowest and highest of v[0, n). */
static void range(const double *v, int n, double *lo, double *hi)
{
    *lo = *hi = v[0];
    for (int i = 1; i < n; i++) {
        *lo = fmin(*lo, v[i]);
        *hi = fmax(*hi, v[i]);
    }
}

char *rt_chart_line(const double *x, const double *y, int n, const rt_chart_labels_t *labels)
{
    double xlo, xhi, ylo, yhi;
    range(x, n, &xlo, &xhi);
    range(y, n, &ylo, &yhi);
    linear_t xa, ya;
    linear_fit(&xa, xlo, xhi, 80, LINEAR_WIDTH - 20);
    linear_fit(&ya, ylo, yhi, 270, 30);
    cm_buf_t b = {0};
    linear_frame(&b, &xa, &ya, labels);
    cm_buf_adds(&b, "<polyline class=\"series\" fill=\"none\" stroke=\"#1f77b4\" "
                "stroke-width=\"1.5\" points=\"");
    for (int i = 0; i < n; i++)
        cm_buf_addf(&b, "%.1f,%.1f ", linear_at(&xa, x[i]), linear_at(&ya, y[i]));
    cm_buf_adds(&b, "\"/>\n</svg>\n");
    return cm_buf_steal(&b);
}

char *rt_chart_bars(const double *edges, const double *heights, int n,
                    const rt_chart_labels_t *labels)
{
    double lo, hi;
    range(heights, n, &lo, &hi);
    linear_t xa, ya;
    linear_fit(&xa, edges[0], edges[n], 80, LINEAR_WIDTH - 20);
    linear_fit(&ya, 0, hi > 0 ? hi : 1, 270, 30);
    cm_buf_t b = {0};
    linear_frame(&b, &xa, &ya, labels);
    for (int i = 0; i < n; i++) {
        double x0 = linear_at(&xa, edges[i]), x1 = linear_at(&xa, edges[i + 1]);
        double top = linear_at(&ya, heights[i]);
        cm_buf_addf(&b, "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                    "height=\"%.2f\" fill=\"#1f77b4\" stroke=\"white\" stroke-width=\"0.5\" "
                    "data-value=\"%.17g\"><title>[%.6g, %.6g): %.17g</title></rect>\n", x0, top,
                    x1 - x0, ya.p0 - top, heights[i], edges[i], edges[i + 1], heights[i]);
    }
    cm_buf_adds(&b, "</svg>\n");
    return cm_buf_steal(&b);
}

/* ---- colour ------------------------------------------------------------- */

/* viridis, 256 colours as 0xRRGGBB: the published table of Stéfan van der
 * Walt and Nathaniel Smith (matplotlib's _viridis_data, CC0,
 * https://bids.github.io/colormap/), each component rounded to 8 bits. */
static const unsigned viridis[256] = {
    0x440154, 0x440256, 0x450457, 0x450559, 0x46075a, 0x46085c, 0x460a5d, 0x460b5e,
    0x470d60, 0x470e61, 0x471063, 0x471164, 0x471365, 0x481467, 0x481668, 0x481769,
    0x48186a, 0x481a6c, 0x481b6d, 0x481c6e, 0x481d6f, 0x481f70, 0x482071, 0x482173,
    0x482374, 0x482475, 0x482576, 0x482677, 0x482878, 0x482979, 0x472a7a, 0x472c7a,
    0x472d7b, 0x472e7c, 0x472f7d, 0x46307e, 0x46327e, 0x46337f, 0x463480, 0x453581,
    0x453781, 0x453882, 0x443983, 0x443a83, 0x443b84, 0x433d84, 0x433e85, 0x423f85,
    0x424086, 0x424186, 0x414287, 0x414487, 0x404588, 0x404688, 0x3f4788, 0x3f4889,
    0x3e4989, 0x3e4a89, 0x3e4c8a, 0x3d4d8a, 0x3d4e8a, 0x3c4f8a, 0x3c508b, 0x3b518b,
    0x3b528b, 0x3a538b, 0x3a548c, 0x39558c, 0x39568c, 0x38588c, 0x38598c, 0x375a8c,
    0x375b8d, 0x365c8d, 0x365d8d, 0x355e8d, 0x355f8d, 0x34608d, 0x34618d, 0x33628d,
    0x33638d, 0x32648e, 0x32658e, 0x31668e, 0x31678e, 0x31688e, 0x30698e, 0x306a8e,
    0x2f6b8e, 0x2f6c8e, 0x2e6d8e, 0x2e6e8e, 0x2e6f8e, 0x2d708e, 0x2d718e, 0x2c718e,
    0x2c728e, 0x2c738e, 0x2b748e, 0x2b758e, 0x2a768e, 0x2a778e, 0x2a788e, 0x29798e,
    0x297a8e, 0x297b8e, 0x287c8e, 0x287d8e, 0x277e8e, 0x277f8e, 0x27808e, 0x26818e,
    0x26828e, 0x26828e, 0x25838e, 0x25848e, 0x25858e, 0x24868e, 0x24878e, 0x23888e,
    0x23898e, 0x238a8d, 0x228b8d, 0x228c8d, 0x228d8d, 0x218e8d, 0x218f8d, 0x21908d,
    0x21918c, 0x20928c, 0x20928c, 0x20938c, 0x1f948c, 0x1f958b, 0x1f968b, 0x1f978b,
    0x1f988b, 0x1f998a, 0x1f9a8a, 0x1e9b8a, 0x1e9c89, 0x1e9d89, 0x1f9e89, 0x1f9f88,
    0x1fa088, 0x1fa188, 0x1fa187, 0x1fa287, 0x20a386, 0x20a486, 0x21a585, 0x21a685,
    0x22a785, 0x22a884, 0x23a983, 0x24aa83, 0x25ab82, 0x25ac82, 0x26ad81, 0x27ad81,
    0x28ae80, 0x29af7f, 0x2ab07f, 0x2cb17e, 0x2db27d, 0x2eb37c, 0x2fb47c, 0x31b57b,
    0x32b67a, 0x34b679, 0x35b779, 0x37b878, 0x38b977, 0x3aba76, 0x3bbb75, 0x3dbc74,
    0x3fbc73, 0x40bd72, 0x42be71, 0x44bf70, 0x46c06f, 0x48c16e, 0x4ac16d, 0x4cc26c,
    0x4ec36b, 0x50c46a, 0x52c569, 0x54c568, 0x56c667, 0x58c765, 0x5ac864, 0x5cc863,
    0x5ec962, 0x60ca60, 0x63cb5f, 0x65cb5e, 0x67cc5c, 0x69cd5b, 0x6ccd5a, 0x6ece58,
    0x70cf57, 0x73d056, 0x75d054, 0x77d153, 0x7ad151, 0x7cd250, 0x7fd34e, 0x81d34d,
    0x84d44b, 0x86d549, 0x89d548, 0x8bd646, 0x8ed645, 0x90d743, 0x93d741, 0x95d840,
    0x98d83e, 0x9bd93c, 0x9dd93b, 0xa0da39, 0xa2da37, 0xa5db36, 0xa8db34, 0xaadc32,
    0xaddc30, 0xb0dd2f, 0xb2dd2d, 0xb5de2b, 0xb8de29, 0xbade28, 0xbddf26, 0xc0df25,
    0xc2df23, 0xc5e021, 0xc8e020, 0xcae11f, 0xcde11d, 0xd0e11c, 0xd2e21b, 0xd5e21a,
    0xd8e219, 0xdae319, 0xdde318, 0xdfe318, 0xe2e418, 0xe5e419, 0xe7e419, 0xeae51a,
    0xece51b, 0xefe51c, 0xf1e51d, 0xf4e61e, 0xf6e620, 0xf8e621, 0xfbe723, 0xfde725,
};

void rt_chart_viridis(double t, unsigned char rgb[3])
{
    unsigned c = 0x808080;
    if (t == t)
        c = viridis[(int)lround(fmin(fmax(t, 0), 1) * 255)];
    rgb[0] = (unsigned char)(c >> 16);
    rgb[1] = (unsigned char)(c >> 8);
    rgb[2] = (unsigned char)c;
}

#define COLOURBAR_STOPS 32

char *rt_chart_colourbar(double lo, double hi, int height)
{
    cm_buf_t b = {0};
    svg_begin(&b, 90, height);
    /* one gradient for every bar: its id may repeat in a notebook, always
     * with the same stops */
    cm_buf_adds(&b, "<defs><linearGradient id=\"gpuc-viridis\" x1=\"0\" y1=\"1\" x2=\"0\" "
                "y2=\"0\">\n");
    for (int i = 0; i <= COLOURBAR_STOPS; i++) {
        unsigned char c[3];
        rt_chart_viridis((double)i / COLOURBAR_STOPS, c);
        cm_buf_addf(&b, "<stop offset=\"%.4f\" stop-color=\"#%02x%02x%02x\"/>\n",
                    (double)i / COLOURBAR_STOPS, c[0], c[1], c[2]);
    }
    cm_buf_addf(&b, "</linearGradient></defs>\n<rect x=\"2\" y=\"6\" width=\"18\" height=\"%d\" "
                "fill=\"url(#gpuc-viridis)\" stroke=\"#444\"/>\n"
                "<text class=\"cbar-max\" x=\"24\" y=\"10\">%.6g</text>\n"
                "<text class=\"cbar-min\" x=\"24\" y=\"%d\">%.6g</text>\n</svg>\n", height - 12,
                hi, height - 6, lo);
    return cm_buf_steal(&b);
}

/* ---- tables ------------------------------------------------------------ */

/* text, then blanks up to width characters (UTF-8 aware, unlike %-Ns). */
static void pad(cm_buf_t *b, const char *text, int width)
{
    int chars = 0;
    for (const char *p = text; *p; p++)
        chars += ((unsigned char)*p & 0xC0) != 0x80;
    cm_buf_adds(b, text);
    for (; chars < width; chars++)
        cm_buf_addc(b, ' ');
}

void rt_table_begin(rt_table_t *t, const char *cls, const int *widths)
{
    *t = (rt_table_t){.widths = widths};
    cm_buf_addf(&t->html, "<table class=\"%s\">\n", cls);
}

void rt_table_row(rt_table_t *t, const char *const *html, const char *const *text, int n,
                  int header)
{
    if (!text)
        text = html;
    cm_buf_adds(&t->html, "<tr>");
    for (int i = 0; i < n; i++)
        cm_buf_addf(&t->html, header ? "<th>%s</th>" : "<td>%s</td>", html[i]);
    cm_buf_adds(&t->html, "</tr>\n");
    int last = n - 1;
    while (last > 0 && !text[last][0])
        last--;
    for (int i = 0; i < last; i++)
        pad(&t->text, text[i], t->widths[i]);
    cm_buf_addf(&t->text, "%s\n", text[last]);
}

void rt_table_end(rt_table_t *t)
{
    cm_buf_adds(&t->html, "</table>\n");
}

void rt_table_note(rt_table_t *t, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cm_buf_addf(&t->html, "<p>%s</p>\n", text);
    cm_buf_addf(&t->text, "%s\n", text);
}

void rt_table_show(rt_table_t *t, rt_session_t *s)
{
    rt_session_display(s, json_pack("{s:s, s:s}", "text/html", cm_buf_str(&t->html),
                                    "text/plain", cm_buf_str(&t->text)),
                       NULL, 0);
    cm_buf_free(&t->html);
    cm_buf_free(&t->text);
}
