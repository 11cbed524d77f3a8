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
    int width = PANEL_WIDTH * npanels;
    cm_buf_addf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
                "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, CHART_HEIGHT,
                width, CHART_HEIGHT, width, CHART_HEIGHT);
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
