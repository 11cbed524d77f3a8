/* rt_display: the display API of cells (display_text, display_html, ...,
 * clear_output). Each call becomes one {"op":"display"} or
 * {"op":"clear_output"} message handed to the session's emit function.
 *
 * Cells know the functions by their gpuc.h names (see rt_api.h);
 * here they carry the rt_ prefix. */
#ifndef RT_DISPLAY_H
#define RT_DISPLAY_H

#include <jansson.h>
#include <stddef.h>

#include "rt_result.h"
#include "rt_session.h"

/* Where display messages go; emit NULL drops them. */
void rt_display_set_emit(rt_emit_fn emit, void *ctx);

void rt_display_text(const char *text);
void rt_display_html(const char *html);
void rt_display_markdown(const char *markdown);
void rt_display_svg(const char *svg);
void rt_display_json(const char *json_text);
void rt_display_png(const void *data, size_t len);
void rt_display_mime(const char *mime, const char *data);
void rt_display_clear_output(int wait);

/* For gpuc's own displays: one display of data (a MIME bundle, stolen).
 * With display_id it carries transient.display_id, and update non-zero
 * makes it an update_display_data of the display shown with that id. */
void rt_display_bundle(json_t *data, const char *display_id, int update);

/* The same with the output's metadata (stolen; NULL: none), for numbers
 * people post-process (%%profile's). */
void rt_display_bundle_meta(json_t *data, json_t *metadata);

/* Base64 of data[0..len) (RFC 4648, no line breaks); caller frees. */
char *rt_display_base64(const void *data, size_t len);


#endif
