/* jk_wire: framing, parsing and serialising of Jupyter messages. Signing
 * and the replay history are in jk_signer.c. */
#include "jk_wire.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DELIM_LEN (sizeof JK_WIRE_DELIMITER - 1)

static const char *const part_names[4] = {"header", "parent_header", "metadata", "content"};

/* Copies n frames into a new owned array. Returns 0, or -1 (no memory). */
static int copy_frames(const jk_frame_t *src, size_t n, jk_frame_t **dst)
{
    *dst = NULL;
    if (n == 0)
        return 0;
    jk_frame_t *out = calloc(n, sizeof *out);
    if (!out)
        return -1;
    for (size_t i = 0; i < n; i++) {
        out[i].data = malloc(src[i].len ? src[i].len : 1);
        if (!out[i].data) {
            jk_frames_free(out, i);
            return -1;
        }
        if (src[i].len)
            memcpy(out[i].data, src[i].data, src[i].len);
        out[i].len = src[i].len;
    }
    *dst = out;
    return 0;
}

void jk_frames_free(jk_frame_t *frames, size_t n)
{
    if (!frames)
        return;
    for (size_t i = 0; i < n; i++)
        free(frames[i].data);
    free(frames);
}

void jk_message_clear(jk_message_t *msg)
{
    jk_frames_free(msg->identities, msg->n_identities);
    json_decref(msg->header);
    json_decref(msg->parent_header);
    json_decref(msg->metadata);
    json_decref(msg->content);
    jk_frames_free(msg->buffers, msg->n_buffers);
    memset(msg, 0, sizeof *msg);
}

/* Deepest bracket nesting in JSON text, ignoring brackets inside strings;
 * stops counting once past limit. Malformed text is left to Jansson. */
static int json_depth(const unsigned char *p, size_t len, int limit)
{
    int depth = 0, max = 0, in_string = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = p[i];
        if (in_string) {
            if (c == '\\')
                i++; /* the escaped character cannot end the string */
            else if (c == '"')
                in_string = 0;
        } else if (c == '"') {
            in_string = 1;
        } else if (c == '{' || c == '[') {
            if (++depth > max && (max = depth) > limit)
                return max;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return max;
}

static json_t *parse_part(const jk_frame_t *frame, const char *name, cm_error_t *err)
{
    if (json_depth(frame->data, frame->len, JK_WIRE_MAX_JSON_DEPTH) > JK_WIRE_MAX_JSON_DEPTH) {
        CM_ERROR(err, JK_WIRE_EJSON, "%s: JSON nested deeper than %d", name,
                 JK_WIRE_MAX_JSON_DEPTH);
        return NULL;
    }
    json_error_t jerr;
    /* Strings with \u0000 are refused (Jansson's default): every consumer
     * reads C strings, which would silently truncate them. */
    json_t *value = json_loadb((const char *)frame->data, frame->len, 0, &jerr);
    if (!value) {
        CM_ERROR(err, JK_WIRE_EJSON, "%s: invalid JSON: %s", name, jerr.text);
        return NULL;
    }
    if (!json_is_object(value)) {
        json_decref(value);
        CM_ERROR(err, JK_WIRE_EJSON, "%s: not a JSON object", name);
        return NULL;
    }
    return value;
}

static int check_frames(const jk_frame_t *frames, size_t n, size_t *delim, cm_error_t *err)
{
    if (n > JK_WIRE_MAX_FRAMES) {
        CM_ERROR(err, JK_WIRE_EFRAMES, "too many frames (%zu, at most %d)", n,
                 JK_WIRE_MAX_FRAMES);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (frames[i].len > JK_WIRE_MAX_FRAME_BYTES) {
            CM_ERROR(err, JK_WIRE_EFRAMES, "frame %zu too large (%zu bytes, at most %u)", i,
                     frames[i].len, JK_WIRE_MAX_FRAME_BYTES);
            return -1;
        }
    size_t d = 0;
    while (d < n && !(frames[d].len == DELIM_LEN &&
                      memcmp(frames[d].data, JK_WIRE_DELIMITER, DELIM_LEN) == 0))
        d++;
    if (d == n) {
        CM_ERROR(err, JK_WIRE_EFRAMES, "no %s delimiter in %zu frames", JK_WIRE_DELIMITER, n);
        return -1;
    }
    if (n - d - 1 < 5) {
        CM_ERROR(err, JK_WIRE_EFRAMES,
                 "%zu frames after the delimiter (need signature and 4 dicts)", n - d - 1);
        return -1;
    }
    *delim = d;
    return 0;
}

int jk_wire_parse(jk_signer_t *signer, const jk_frame_t *frames, size_t n, jk_message_t *msg,
                  cm_error_t *err)
{
    memset(msg, 0, sizeof *msg);
    size_t d;
    if (check_frames(frames, n, &d, err))
        return -1;
    const jk_frame_t *parts = frames + d + 2;
    if (jk_signer_verify(signer, parts, frames + d + 1, err))
        return -1;
    json_t *dicts[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i < 4; i++)
        if (!(dicts[i] = parse_part(&parts[i], part_names[i], err)))
            goto fail;
    json_t *type = json_object_get(dicts[0], "msg_type");
    json_t *id = json_object_get(dicts[0], "msg_id");
    if (!json_is_string(type) || !json_is_string(id)) {
        CM_ERROR(err, JK_WIRE_EHEADER, "header without a string %s",
                 json_is_string(type) ? "msg_id" : "msg_type");
        goto fail;
    }
    size_t first_buffer = d + 6;
    if (copy_frames(frames, d, &msg->identities) ||
        copy_frames(frames + first_buffer, n - first_buffer, &msg->buffers)) {
        jk_frames_free(msg->identities, d);
        msg->identities = NULL;
        CM_ERROR(err, JK_WIRE_EFRAMES, "out of memory copying frames");
        goto fail;
    }
    msg->n_identities = d;
    msg->n_buffers = n - first_buffer;
    msg->header = dicts[0];
    msg->parent_header = dicts[1];
    msg->metadata = dicts[2];
    msg->content = dicts[3];
    msg->msg_type = json_string_value(type);
    return 0;
fail:
    for (int i = 0; i < 4; i++)
        json_decref(dicts[i]);
    memset(msg, 0, sizeof *msg);
    return -1;
}

static int set_frame(jk_frame_t *frame, const void *data, size_t len)
{
    frame->data = malloc(len ? len : 1);
    if (!frame->data)
        return -1;
    memcpy(frame->data, data, len);
    frame->len = len;
    return 0;
}

int jk_wire_serialize(const jk_signer_t *signer, const jk_frame_t *identities, size_t n_ids,
                      const json_t *header, const json_t *parent, const json_t *metadata,
                      const json_t *content, jk_frame_t **frames, size_t *n_frames,
                      cm_error_t *err)
{
    *frames = NULL;
    *n_frames = 0;
    const json_t *dicts[4] = {header, parent, metadata, content};
    size_t n = n_ids + 6;
    if (n > JK_WIRE_MAX_FRAMES) {
        CM_ERROR(err, JK_WIRE_EFRAMES, "too many identities (%zu)", n_ids);
        return -1;
    }
    jk_frame_t *out = calloc(n, sizeof *out);
    if (!out)
        goto oom;
    for (size_t i = 0; i < n_ids; i++)
        if (set_frame(&out[i], identities[i].data, identities[i].len))
            goto oom;
    if (set_frame(&out[n_ids], JK_WIRE_DELIMITER, DELIM_LEN))
        goto oom;
    jk_frame_t *parts = out + n_ids + 2;
    for (int i = 0; i < 4; i++) {
        if (dicts[i] && !json_is_object(dicts[i])) {
            jk_frames_free(out, n);
            CM_ERROR(err, JK_WIRE_EJSON, "%s to send is not a JSON object", part_names[i]);
            return -1;
        }
        /* json_dumps memory is released with free(), as jk_frames_free does */
        char *text = dicts[i] ? json_dumps(dicts[i], JSON_COMPACT) : strdup("{}");
        if (!text)
            goto oom;
        parts[i].data = (unsigned char *)text;
        parts[i].len = strlen(text);
    }
    char sig[65];
    jk_signer_sign(signer, parts, sig);
    if (set_frame(&out[n_ids + 1], sig, strlen(sig)))
        goto oom;
    *frames = out;
    *n_frames = n;
    return 0;
oom:
    jk_frames_free(out, n);
    CM_ERROR(err, JK_WIRE_EJSON, "out of memory or unencodable JSON while serialising");
    return -1;
}

void jk_wire_uuid(char out[37])
{
    unsigned char b[16];
    if (sodium_init() < 0) { /* idempotent; randombytes needs it */
        memset(b, 0, sizeof b);
    } else {
        randombytes_buf(b, sizeof b);
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out[o++] = '-';
        out[o++] = hex[b[i] >> 4];
        out[o++] = hex[b[i] & 15];
    }
    out[o] = '\0';
}

/* ISO 8601 UTC with microseconds: 2026-11-21T19:20:01.123456Z */
static void iso_now(char out[32])
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%06ldZ", (long)(ts.tv_nsec / 1000));
}

json_t *jk_wire_header_new(const char *msg_type, const char *session)
{
    char id[37], date[32];
    jk_wire_uuid(id);
    iso_now(date);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "msg_id", id, "session",
                     session ? session : "", "username", "gpuc", "date", date, "msg_type",
                     msg_type ? msg_type : "", "version", JK_PROTOCOL_VERSION);
}
