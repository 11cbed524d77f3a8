/* rt_chart: pictures and tables for displays — log-log line charts as SVG
 * and tables in two forms (HTML, and aligned text for text/plain). The
 * timing magics draw with it, and so will the array pictures. Drawing
 * only: what the numbers mean is the caller's. */
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
