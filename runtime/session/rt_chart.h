/* rt_chart: pictures and tables for displays — log-log line charts, linear
 * line charts, bar charts (histograms) and a colour bar as SVG, the viridis
 * colour map, and tables in two forms (HTML, and aligned text for
 * text/plain). The timing magics and the array pictures draw with it.
 * Drawing only: what the numbers mean is the caller's. */
#ifndef RT_CHART_H
#define RT_CHART_H

#include <stddef.h>

#include "cm_buf.h"
#include "rt_session.h"

/* ---- log-log line charts ---- */

typedef struct rt_chart_series {
    const char *name;    /* in the legend */
    const char *cls;     /* the polyline's SVG class */
    const char *colour;  /* "#1f77b4" */
    const double *y;     /* (n) values; <= 0 means none at that x */
} rt_chart_series_t;

typedef struct rt_chart_panel {
    const char *title;
    const char *xlabel;
    /* the label of the tick at value v (a power of ten) */
    void (*ylabel)(double v, char *buf, size_t len);
    const rt_chart_series_t *series;
    int nseries;
    double reference;          /* > 0: a dashed horizontal line at this y */
    const char *reference_cls; /* its SVG class */
    double marker;             /* > 0: a dashed vertical line at this x, labelled */
    const char *marker_cls;    /* its SVG class (line and label) */
    const char *marker_label;
} rt_chart_panel_t;

/* An SVG (a new string) of panels side by side, each plotting its series
 * against x[0..n) (n >= 1, x > 0) on log scales with a decade grid. */
char *rt_chart_loglog(const double *x, int n, const rt_chart_panel_t *panels, int npanels);

/* "3.2e4" for large sizes, "500" for small ones, into buf. */
void rt_chart_format_size(double v, char *buf, size_t len);

/* ---- linear charts ---- */

typedef struct rt_chart_labels {
    const char *title;  /* above the plot (text, not escaped: gpuc's own) */
    const char *xlabel; /* under the x axis */
    const char *ylabel; /* beside the y axis, turned */
} rt_chart_labels_t;

/* "Nice" tick values (1, 2 or 5 times a power of ten apart) from one <=
 * lo to one >= hi, at most most + 1 of them (most >= 2), into ticks[].
 * Returns how many; lo == hi is widened. */
int rt_chart_ticks(double lo, double hi, int most, double *ticks);

/* An SVG (a new string): y[i] against x[i], i < n (n >= 1; finite
 * values), as one polyline of class "series" on linear axes with nice
 * ticks and a grid. */
char *rt_chart_line(const double *x, const double *y, int n, const rt_chart_labels_t *labels);

/* An SVG (a new string): n bars, bar i from edges[i] to edges[i + 1]
 * (n + 1 edges, increasing) of height heights[i] >= 0, each a rect of
 * class "bar" with data-value="height" and a tooltip; linear axes from 0. */
char *rt_chart_bars(const double *edges, const double *heights, int n,
                    const rt_chart_labels_t *labels);

/* ---- colour ---- */

/* The colour of t in [0, 1] (clamped; NaN: mid grey) in viridis, into
 * rgb[3]. */
void rt_chart_viridis(double t, unsigned char rgb[3]);

/* An SVG (a new string), `height` pixels tall: the viridis colour bar
 * from lo (bottom) to hi (top), labelled with both (classes "cbar-min",
 * "cbar-max"). */
char *rt_chart_colourbar(double lo, double hi, int height);

/* ---- tables in two forms ---- */

typedef struct rt_table {
    cm_buf_t html, text;
    const int *widths; /* (columns) text widths; the last column is not padded */
} rt_table_t;

/* Starts a table of SVG/HTML class cls, text columns widths[] wide. */
void rt_table_begin(rt_table_t *t, const char *cls, const int *widths);

/* One row: html[i] in the HTML form (th cells when header), text[i] in
 * the text form (NULL: the same as html). Trailing empty text cells are
 * left out, so a row's text ends at its last cell. */
void rt_table_row(rt_table_t *t, const char *const *html, const char *const *text, int n,
                  int header);

/* Ends the table; what follows are notes. */
void rt_table_end(rt_table_t *t);

/* A note under the table: a paragraph in HTML, a line in text. */
void rt_table_note(rt_table_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Shows the table as one display (text/html with text/plain) in the
 * session's front end, and frees it. */
void rt_table_show(rt_table_t *t, rt_session_t *s);

#endif
