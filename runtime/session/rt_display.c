/* rt_display: the display API of cells (see rt_display.h). */
#include "rt_display.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm_link.h"

static rt_emit_fn emit_fn;
static void *emit_ctx;

void rt_display_set_emit(rt_emit_fn emit, void *ctx)
{
    emit_fn = emit;
    emit_ctx = ctx;
}

static void emit(json_t *msg)
{
    if (emit_fn && msg)
        emit_fn(emit_ctx, msg);
    json_decref(msg);
}

/* data: the rich representation (a JSON value for application/json) */
static void display(const char *mime, json_t *data, const char *fallback)
{
    json_t *bundle = json_object();
    json_object_set_new(bundle, mime, data ? data : json_string(""));
    if (strcmp(mime, "text/plain") != 0)
        json_object_set_new(bundle, "text/plain", json_string(fallback));
    emit(json_pack("{s:s, s:o, s:{}, s:{}, s:b}", CM_LINK_OP, CM_LINK_DISPLAY, "data", bundle, "metadata",
                   "transient", "update", 0));
}

/* Text as a JSON string; invalid UTF-8 becomes a visible note, not a lost message. */
static json_t *text_value(const char *text)
{
    if (!text)
        text = "";
    json_t *v = json_string(text);
    return v ? v : json_string("<gpuc: text is not valid UTF-8>");
}

void rt_display_text(const char *text)
{
    display("text/plain", text_value(text), NULL);
}

void rt_display_html(const char *html)
{
    display("text/html", text_value(html), "<HTML>");
}

void rt_display_markdown(const char *markdown)
{
    display("text/markdown", text_value(markdown), markdown ? markdown : "");
}

void rt_display_svg(const char *svg)
{
    display("image/svg+xml", text_value(svg), "<SVG image>");
}

void rt_display_json(const char *json_text)
{
    json_error_t jerr;
    json_t *v = json_loads(json_text ? json_text : "null", JSON_DECODE_ANY, &jerr);
    if (!v) {
        char msg[300];
        snprintf(msg, sizeof msg, "display_json: invalid JSON: %s (line %d)", jerr.text, jerr.line);
        display("text/plain", json_string(msg), NULL);
        return;
    }
    display("application/json", v, json_text);
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *rt_display_base64(const void *data, size_t len)
{
    const unsigned char *p = data;
    char *out = malloc(4 * ((len + 2) / 3) + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        unsigned v = (unsigned)p[i] << 16;
        if (i + 1 < len)
            v |= (unsigned)p[i + 1] << 8;
        if (i + 2 < len)
            v |= p[i + 2];
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        out[o++] = i + 1 < len ? b64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? b64[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

void rt_display_png(const void *data, size_t len)
{
    char *text = rt_display_base64(data, len);
    if (!text)
        return;
    display("image/png", json_string(text), "<PNG image>");
    free(text);
}

void rt_display_mime(const char *mime, const char *data)
{
    if (!mime || !*mime)
        mime = "text/plain";
    if (strcmp(mime, "application/json") == 0) {
        rt_display_json(data);
        return;
    }
    char fallback[128];
    snprintf(fallback, sizeof fallback, "<%s>", mime);
    display(mime, text_value(data), fallback);
}

void rt_display_clear_output(int wait)
{
    emit(json_pack("{s:s, s:b}", CM_LINK_OP, CM_LINK_CLEAR_OUTPUT, "wait", wait != 0));
}

void rt_display_bundle(json_t *data, const char *display_id, int update)
{
    json_t *transient = display_id ? json_pack("{s:s}", "display_id", display_id) : json_object();
    emit(json_pack("{s:s, s:o, s:{}, s:o, s:b}", CM_LINK_OP, CM_LINK_DISPLAY, "data", data, "metadata",
                   "transient", transient, "update", update != 0));
}

void rt_display_bundle_meta(json_t *data, json_t *metadata)
{
    emit(json_pack("{s:s, s:o, s:o, s:{}, s:b}", CM_LINK_OP, CM_LINK_DISPLAY, "data", data,
                   "metadata", metadata ? metadata : json_object(), "transient", "update", 0));
}
