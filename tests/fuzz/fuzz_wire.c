/* Fuzzes the wire layer (kernel/jk_wire.h): multipart frames with a
 * signature, headers and JSON content.
 *
 * Input: one flags byte, then the frames separated by "\n~~\n".
 *   bit 0  sign with the fixed key (else signing is off)
 *   bit 1  the harness writes the right signature into the frame after the
 *          delimiter, so that the JSON checks behind it are reached
 * A message that parses must serialise and parse back to the same JSON.
 *
 * The keyed signer lives for the whole run (a new one per input costs 3 MB
 * of replay history and ran 1,000 inputs/s): an input whose signed parts
 * equal an earlier input's is refused as a replay, as the kernel refuses
 * it. Run alone, an input is parsed by a fresh signer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jk_wire.h"

#define SEP "\n~~\n"
#define MAX_FRAMES (JK_WIRE_MAX_FRAMES + 8) /* a few past the cap */

static void check_roundtrip(jk_signer_t *plain, const jk_message_t *msg)
{
    jk_frame_t *frames = NULL;
    size_t n = 0;
    cm_error_t err;
    cm_error_clear(&err);
    if (jk_wire_serialize(plain, msg->identities, msg->n_identities, msg->header,
                          msg->parent_header, msg->metadata, msg->content, &frames, &n,
                          &err) != 0)
        abort();
    jk_message_t back;
    if (jk_wire_parse(plain, frames, n, &back, &err) != 0 ||
        back.n_identities != msg->n_identities || !json_equal(back.header, msg->header) ||
        !json_equal(back.parent_header, msg->parent_header) ||
        !json_equal(back.metadata, msg->metadata) || !json_equal(back.content, msg->content))
        abort();
    jk_message_clear(&back);
    jk_frames_free(frames, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static jk_signer_t *plain, *keyed_signer;
    if (!plain) {
        plain = jk_signer_new("", "", NULL);
        keyed_signer = jk_signer_new("fuzz-key", "hmac-sha256", NULL);
        if (!plain || !keyed_signer)
            abort();
    }
    if (size < 1)
        return 0;
    int keyed = data[0] & 1, resign = data[0] & 2;
    data++, size--;

    /* The frames point into a copy of the input (jk_wire_parse takes nothing). */
    uint8_t *copy = malloc(size + 1);
    memcpy(copy, data, size);
    jk_frame_t frames[MAX_FRAMES];
    size_t n = 0, at = 0;
    while (n < MAX_FRAMES) {
        uint8_t *sep = memmem(copy + at, size - at, SEP, strlen(SEP));
        size_t end = sep ? (size_t)(sep - copy) : size;
        frames[n++] = (jk_frame_t){copy + at, end - at};
        if (!sep)
            break;
        at = end + strlen(SEP);
    }

    cm_error_t err;
    cm_error_clear(&err);
    jk_signer_t *signer = keyed ? keyed_signer : plain;
    char sig[65];
    if (resign) {
        for (size_t i = 0; i + 5 < n; i++) {
            if (frames[i].len == strlen(JK_WIRE_DELIMITER) &&
                memcmp(frames[i].data, JK_WIRE_DELIMITER, frames[i].len) == 0) {
                jk_signer_sign(signer, frames + i + 2, sig);
                frames[i + 1] = (jk_frame_t){(unsigned char *)sig, strlen(sig)};
                break;
            }
        }
    }
    jk_message_t msg;
    if (jk_wire_parse(signer, frames, n, &msg, &err) == 0) {
        if (!msg.msg_type || !json_is_object(msg.header) || !json_is_object(msg.content))
            abort();
        check_roundtrip(plain, &msg);
        jk_message_clear(&msg);
    } else if (err.code < JK_WIRE_EFRAMES || err.code > JK_WIRE_EHEADER || msg.header) {
        abort();
    }
    free(copy);
    return 0;
}
