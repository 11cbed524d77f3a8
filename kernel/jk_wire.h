/* jk_wire: Jupyter messages on the wire — framing, HMAC-SHA256 signing
 * with replay protection, parsing and serialising.
 *
 * A message is [identities..., "<IDS|MSG>", signature, header,
 * parent_header, metadata, content, buffers...]. The signature is checked
 * over the RAW received frames BEFORE any JSON is parsed: in constant time
 * after a length check, and a signature seen before (a bounded history, as
 * jupyter_client's Session keeps) is refused as a replay. */
#ifndef JK_WIRE_H
#define JK_WIRE_H

#include <jansson.h>
#include <stddef.h>

#include "cm_error.h"

#define JK_WIRE_DELIMITER "<IDS|MSG>"
#define JK_WIRE_MAX_FRAMES 64               /* identities + 6 + buffers */
#define JK_WIRE_MAX_FRAME_BYTES (64u << 20) /* also ZMQ_MAXMSGSIZE */
#define JK_WIRE_MAX_JSON_DEPTH 64
#define JK_WIRE_REPLAY_HISTORY 65536        /* signatures remembered */
#define JK_PROTOCOL_VERSION "5.3"

/* Error codes in cm_error_t.code for dropped messages. */
enum {
    JK_WIRE_EFRAMES = 1, /* too few / too many frames, no delimiter, too large */
    JK_WIRE_ESIG,        /* missing, malformed or wrong signature */
    JK_WIRE_EREPLAY,     /* signature already seen */
    JK_WIRE_EJSON,       /* invalid JSON, too deep, not an object */
    JK_WIRE_EHEADER,     /* header without msg_type / msg_id */
};

typedef struct jk_frame {
    unsigned char *data; /* owned */
    size_t len;
} jk_frame_t;

typedef struct jk_signer jk_signer_t;

/* Creates a signer. scheme must be "hmac-sha256" (case-sensitive) or ""
 * when key is empty. An empty key disables signing (logs a warning) and
 * then every signature is accepted and "" is sent. Returns NULL with err
 * set for an unsupported scheme. Caller frees with jk_signer_free. */
jk_signer_t *jk_signer_new(const char *key, const char *scheme, cm_error_t *err);
void jk_signer_free(jk_signer_t *signer);

/* Lower-case hex HMAC-SHA256 of the four parts into out (65 bytes, NUL
 * terminated); "" when signing is disabled. Thread-safe. */
void jk_signer_sign(const jk_signer_t *signer, const jk_frame_t parts[4], char out[65]);

/* Checks a received signature against the four raw parts: exactly 64
 * LOWER-CASE hex digits (as jupyter_client sends and compares; upper case
 * is refused so that one MAC has one spelling), equal in constant time,
 * then not in the replay history (it is added). Always 0 when signing is
 * disabled. Returns 0, or -1 with err->code JK_WIRE_ESIG or
 * JK_WIRE_EREPLAY. Thread-safe: the history is under a mutex inside the
 * signer, so the shell and control threads may share one signer. */
int jk_signer_verify(jk_signer_t *signer, const jk_frame_t parts[4],
                     const jk_frame_t *signature, cm_error_t *err);

typedef struct jk_message {
    jk_frame_t *identities; /* owned array of owned frames (routing ids) */
    size_t n_identities;
    json_t *header;         /* owned */
    json_t *parent_header;  /* owned */
    json_t *metadata;       /* owned */
    json_t *content;        /* owned */
    jk_frame_t *buffers;    /* owned */
    size_t n_buffers;
    const char *msg_type;   /* borrowed from header */
} jk_message_t;

/* Parses raw frames into msg. Checks, in this order: frame count and
 * sizes, the delimiter, the signature (constant time, then replay
 * history), then the JSON (depth-capped, objects only) and the header's
 * msg_type and msg_id. Takes nothing from frames. Returns 0, or -1 with
 * err set (code = JK_WIRE_E*) and msg left empty. Thread-safe (the
 * signer locks its replay history). */
int jk_wire_parse(jk_signer_t *signer, const jk_frame_t *frames, size_t n, jk_message_t *msg,
                  cm_error_t *err);

/* Frees everything msg owns and zeroes it. */
void jk_message_clear(jk_message_t *msg);

/* Serialises a message: identities (may be 0), delimiter, signature and
 * the four JSON dicts (NULL means {}; others must be objects), compact.
 * No buffers: the kernel sends none (append frames to the array to add
 * some; they are not signed). Takes nothing. Returns 0 and a new array in
 * *frames (free with jk_frames_free), or -1 with err set. */
int jk_wire_serialize(const jk_signer_t *signer, const jk_frame_t *identities, size_t n_ids,
                      const json_t *header, const json_t *parent, const json_t *metadata,
                      const json_t *content, jk_frame_t **frames, size_t *n_frames,
                      cm_error_t *err);

void jk_frames_free(jk_frame_t *frames, size_t n);

/* A new header: msg_id (uuid4), session, username "gpuc", date (ISO 8601
 * UTC with microseconds and 'Z'), msg_type, version. Caller owns it;
 * NULL only when out of memory. */
json_t *jk_wire_header_new(const char *msg_type, const char *session);

/* Writes a random uuid4 string into out (37 bytes). */
void jk_wire_uuid(char out[37]);

#endif
