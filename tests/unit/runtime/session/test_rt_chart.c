/* test_rt_chart: log-log SVG charts (series, legend, reference and marker
 * lines, decade grid); nice ticks, linear line and bar charts; viridis
 * and the colour bar; two-form tables (HTML rows, aligned text with UTF-8
 * widths, notes), and their display through the session. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "session_check.h"
#include "rt_chart.h"

static size_t count(const char *text, const char *part)
{
    size_t n = 0;
    for (const char *p = strstr(text, part); p; p = strstr(p + 1, part))
        n++;
    return n;
}

static void label(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%gs", v);
}

static void test_chart(void)
{
    const double x[] = {1e2, 1e4, 1e6};
    const double a[] = {1e-3, 1e-1, 10}, b[] = {0, 2e-2, 1e-1}; /* b has no value at 1e2 */
    const rt_chart_series_t series[] = {{"A", "a-line", "#111", a}, {"B", "b-line", "#222", b}};
    const rt_chart_panel_t panels[] = {
        {"times", "N", label, series, 2, 0, NULL, 5e3, "cross", "wins from 5e3"},
        {"ratios", "N", label, series, 1, 1, "even", 0, NULL, NULL},
    };
    char *svg = rt_chart_loglog(x, 3, panels, 2);
    CHECK(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\"", 50) == 0);
    CHECK(count(svg, "<polyline class=\"a-line\"") == 2);
    CHECK(count(svg, "<polyline class=\"b-line\"") == 1);
    CHECK(count(svg, "<circle") == 3 + 2 + 3); /* no dot where a value is missing */
    CHECK(count(svg, "<line class=\"cross\"") == 1 && strstr(svg, ">wins from 5e3</text>"));
    CHECK(count(svg, "<line class=\"even\"") == 1);
    CHECK(strstr(svg, ">1e2</text>") && strstr(svg, ">1e6</text>")); /* x decades */
    CHECK(strstr(svg, ">0.001s</text>") && strstr(svg, ">10s</text>"));   /* y decades */
    CHECK(strstr(svg, "</svg>\n") != NULL);
    free(svg);
    char size[32];
    rt_chart_format_size(500, size, sizeof size);
    CHECK_STR(size, "500");
    rt_chart_format_size(1e6, size, sizeof size);
    CHECK_STR(size, "1e6");
    rt_chart_format_size(31623, size, sizeof size);
    CHECK_STR(size, "3.2e4");
}

static void test_ticks(void)
{
    double t[9];
    int n = rt_chart_ticks(0, 1, 8, t);
    CHECK(n == 6 && t[0] == 0 && fabs(t[5] - 1) < 1e-12);
    n = rt_chart_ticks(-3, 11, 8, t); /* step 2.0 from -4 */
    CHECK(n == 9 && t[0] == -4 && t[8] == 12);
    n = rt_chart_ticks(0.3, 0.7, 2, t); /* step 0.5: 0, 0.5, 1 */
    CHECK(n == 3 && t[0] == 0 && t[2] == 1);
    n = rt_chart_ticks(5, 5, 8, t); /* widened: 4.5 .. 5.5 */
    CHECK(n >= 2 && t[0] <= 4.5 && t[n - 1] >= 5.5);
    for (double lo = -1e6; lo < 1e6; lo = lo * -1.7 + 3.1) { /* never more than most + 1 */
        n = rt_chart_ticks(lo, lo + fabs(lo) * 0.37 + 1, 8, t);
        CHECK(n >= 2 && n <= 9 && t[0] <= lo && t[n - 1] >= lo + fabs(lo) * 0.37 + 1);
    }
}

static void test_linear(void)
{
    const double x[] = {0, 1, 2, 3, 4}, y[] = {-1, 0.5, 2, 0, 1};
    const rt_chart_labels_t l = {"a title", "index", "value"};
    char *svg = rt_chart_line(x, y, 5, &l);
    CHECK(count(svg, "<polyline class=\"series\"") == 1);
    CHECK(strstr(svg, "points=\"80.0,") != NULL); /* x = 0 at the left edge */
    CHECK(count(svg, "class=\"xtick\"") == 5 && count(svg, "class=\"ytick\"") == 7);
    CHECK(strstr(svg, ">-1</text>") && strstr(svg, ">a title</text>"));
    CHECK(strstr(svg, "class=\"ylabel\"") && strstr(svg, ">value</text>"));
    free(svg);
    const double edges[] = {0, 1, 2, 3}, heights[] = {2, 0, 4};
    svg = rt_chart_bars(edges, heights, 3, &l);
    CHECK(count(svg, "<rect class=\"bar\"") == 3);
    CHECK(strstr(svg, "height=\"0.00\" fill") != NULL); /* the empty bin */
    CHECK(strstr(svg, "data-value=\"4\"><title>[2, 3): 4</title>") != NULL);
    free(svg);
}

static void test_colour(void)
{
    unsigned char c[3];
    rt_chart_viridis(0, c);
    CHECK(c[0] == 0x44 && c[1] == 0x01 && c[2] == 0x54);
    rt_chart_viridis(1.5, c); /* clamped */
    CHECK(c[0] == 0xfd && c[1] == 0xe7 && c[2] == 0x25);
    rt_chart_viridis(0.5, c);
    CHECK(c[0] == 0x21 && c[1] == 0x91 && c[2] == 0x8c);
    rt_chart_viridis(NAN, c);
    CHECK(c[0] == 0x80 && c[1] == 0x80 && c[2] == 0x80);
    char *svg = rt_chart_colourbar(-2.5, 1e6, 200);
    CHECK(strstr(svg, "height=\"200\"") && count(svg, "<stop ") == 33);
    CHECK(strstr(svg, "stop-color=\"#440154\"") && strstr(svg, "stop-color=\"#fde725\""));
    CHECK(strstr(svg, "class=\"cbar-min\" x=\"24\" y=\"194\">-2.5</text>") != NULL);
    CHECK(strstr(svg, "class=\"cbar-max\" x=\"24\" y=\"10\">1e+06</text>") != NULL);
    free(svg);
}

static void test_table(void)
{
    static const int widths[] = {6, 10, 0};
    rt_table_t t;
    rt_table_begin(&t, "demo", widths);
    const char *head[] = {"", "time", "speedup"};
    const char *row1[] = {"CPU", "1 \xce\xbcs", ""}; /* "μ" is one character */
    const char *row2[] = {"GPU", "2 ns", "500\xc3\x97"};
    rt_table_row(&t, head, NULL, 3, 1);
    rt_table_row(&t, row1, NULL, 3, 0);
    rt_table_row(&t, row2, NULL, 3, 0);
    rt_table_end(&t);
    rt_table_note(&t, "note %d", 1);
    CHECK_STR(cm_buf_str(&t.text), "      time      speedup\n"
                                   "CPU   1 \xce\xbcs\n"
                                   "GPU   2 ns      500\xc3\x97\n"
                                   "note 1\n");
    CHECK_STR(cm_buf_str(&t.html), "<table class=\"demo\">\n"
                                   "<tr><th></th><th>time</th><th>speedup</th></tr>\n"
                                   "<tr><td>CPU</td><td>1 \xce\xbcs</td><td></td></tr>\n"
                                   "<tr><td>GPU</td><td>2 ns</td><td>500\xc3\x97</td></tr>\n"
                                   "</table>\n<p>note 1</p>\n");
    rt_table_show(&t, S);
    CHECK(json_array_size(emitted) == 1);
    json_t *data = json_object_get(json_array_get(emitted, 0), "data");
    CHECK(strstr(json_string_value(json_object_get(data, "text/plain")), "GPU   2 ns"));
    CHECK(strstr(json_string_value(json_object_get(data, "text/html")), "<table class=\"demo\">"));
    CHECK(t.html.len == 0 && t.text.len == 0); /* freed */
}

SESSION_TEST_MAIN("test_rt_chart", test_chart, test_ticks, test_linear, test_colour, test_table)
