/* jk_signer: HMAC-SHA256 of Jupyter messages (libsodium) and the replay
 * history of signatures already accepted. Declared in jk_wire.h. */
#include "jk_wire.h"

#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cm_log.h"

#define SIG_HEX_LEN (2 * crypto_auth_hmacsha256_BYTES) /* 64 */
#define NO_SLOT (-1)

_Static_assert(JK_WIRE_REPLAY_HISTORY > 0 && JK_WIRE_REPLAY_HISTORY < INT32_MAX,
               "replay history indexes are int32_t");

struct jk_signer {
    unsigned char *key; /* owned, zeroed on free */
    size_t key_len;
    int enabled;        /* 0: empty key, nothing signed or checked */

    /* Replay history: a ring of the last JK_WIRE_REPLAY_HISTORY accepted
     * MACs (FIFO eviction) indexed by a chained hash set. The MACs are
     * HMAC outputs, so their first bytes are already a uniform hash. */
    pthread_mutex_t lock;
    unsigned char (*ring)[crypto_auth_hmacsha256_BYTES]; /* (HISTORY, 32) */
    int32_t *next;    /* (HISTORY) next slot in the same bucket, NO_SLOT ends */
    int32_t *buckets; /* (HISTORY) first slot of each bucket, NO_SLOT if empty */
    size_t head;      /* oldest slot once the ring is full */
    size_t count;     /* slots in use */
};

static atomic_int warned_unsigned;

jk_signer_t *jk_signer_new(const char *key, const char *scheme, cm_error_t *err)
{
    if (!key)
        key = "";
    if (!scheme)
        scheme = "";
    if (sodium_init() < 0) { /* idempotent and thread-safe */
        CM_ERROR(err, -1, "signer: libsodium failed to initialise");
        return NULL;
    }
    if (strcmp(scheme, "hmac-sha256") != 0 && !(key[0] == '\0' && scheme[0] == '\0')) {
        CM_ERROR(err, -1, "signer: unsupported signature scheme '%s' (only hmac-sha256)",
                 scheme);
        return NULL;
    }
    jk_signer_t *s = calloc(1, sizeof *s);
    if (!s)
        goto oom;
    pthread_mutex_init(&s->lock, NULL);
    s->key_len = strlen(key);
    s->enabled = s->key_len > 0;
    if (!s->enabled) {
        if (!atomic_exchange(&warned_unsigned, 1))
            CM_WARN("signing key is empty: messages are neither signed nor verified");
        return s;
    }
    s->key = malloc(s->key_len);
    s->ring = malloc(JK_WIRE_REPLAY_HISTORY * sizeof *s->ring);
    s->next = malloc(JK_WIRE_REPLAY_HISTORY * sizeof *s->next);
    s->buckets = malloc(JK_WIRE_REPLAY_HISTORY * sizeof *s->buckets);
    if (!s->key || !s->ring || !s->next || !s->buckets) {
        jk_signer_free(s);
        goto oom;
    }
    memcpy(s->key, key, s->key_len);
    for (size_t i = 0; i < JK_WIRE_REPLAY_HISTORY; i++)
        s->buckets[i] = NO_SLOT;
    return s;
oom:
    CM_ERROR(err, -1, "signer: out of memory");
    return NULL;
}

void jk_signer_free(jk_signer_t *signer)
{
    if (!signer)
        return;
    if (signer->key)
        sodium_memzero(signer->key, signer->key_len);
    free(signer->key);
    free(signer->ring);
    free(signer->next);
    free(signer->buckets);
    pthread_mutex_destroy(&signer->lock);
    free(signer);
}

static void mac(const jk_signer_t *signer, const jk_frame_t parts[4],
                unsigned char out[crypto_auth_hmacsha256_BYTES])
{
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, signer->key, signer->key_len);
    for (int i = 0; i < 4; i++)
        crypto_auth_hmacsha256_update(&st, parts[i].data, parts[i].len);
    crypto_auth_hmacsha256_final(&st, out);
    sodium_memzero(&st, sizeof st);
}

void jk_signer_sign(const jk_signer_t *signer, const jk_frame_t parts[4], char out[65])
{
    out[0] = '\0';
    if (!signer->enabled)
        return;
    unsigned char digest[crypto_auth_hmacsha256_BYTES];
    mac(signer, parts, digest);
    sodium_bin2hex(out, SIG_HEX_LEN + 1, digest, sizeof digest); /* lower case */
}

static size_t bucket_of(const unsigned char *digest)
{
    uint32_t h;
    memcpy(&h, digest, sizeof h);
    return h % JK_WIRE_REPLAY_HISTORY;
}

static int history_has(const jk_signer_t *s, const unsigned char *digest)
{
    for (int32_t i = s->buckets[bucket_of(digest)]; i != NO_SLOT; i = s->next[i])
        if (memcmp(s->ring[i], digest, crypto_auth_hmacsha256_BYTES) == 0)
            return 1;
    return 0;
}

static void history_add(jk_signer_t *s, const unsigned char *digest)
{
    size_t slot;
    if (s->count == JK_WIRE_REPLAY_HISTORY) {
        /* evict the oldest: unlink it from its bucket's chain */
        slot = s->head;
        int32_t *link = &s->buckets[bucket_of(s->ring[slot])];
        while (*link != (int32_t)slot)
            link = &s->next[*link];
        *link = s->next[slot];
        s->head = (s->head + 1) % JK_WIRE_REPLAY_HISTORY;
    } else {
        slot = (s->head + s->count) % JK_WIRE_REPLAY_HISTORY;
        s->count++;
    }
    memcpy(s->ring[slot], digest, crypto_auth_hmacsha256_BYTES);
    size_t b = bucket_of(digest);
    s->next[slot] = s->buckets[b];
    s->buckets[b] = (int32_t)slot;
}

static int is_lower_hex(const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
            return 0;
    return 1;
}

int jk_signer_verify(jk_signer_t *signer, const jk_frame_t parts[4],
                     const jk_frame_t *signature, cm_error_t *err)
{
    if (!signer->enabled)
        return 0;
    if (signature->len == 0) {
        CM_ERROR(err, JK_WIRE_ESIG, "missing signature");
        return -1;
    }
    if (signature->len != SIG_HEX_LEN) {
        CM_ERROR(err, JK_WIRE_ESIG, "malformed signature: %zu characters, not %d",
                 signature->len, SIG_HEX_LEN);
        return -1;
    }
    /* Lower case only, as jupyter_client compares hexdigest() strings:
     * one spelling per MAC. The charset check looks only at the sender's
     * own bytes; the comparison with our MAC is constant time. */
    if (!is_lower_hex(signature->data, signature->len)) {
        CM_ERROR(err, JK_WIRE_ESIG, "malformed signature: not lower-case hex");
        return -1;
    }
    unsigned char digest[crypto_auth_hmacsha256_BYTES];
    char expected[SIG_HEX_LEN + 1];
    mac(signer, parts, digest);
    sodium_bin2hex(expected, sizeof expected, digest, sizeof digest);
    if (sodium_memcmp(expected, signature->data, SIG_HEX_LEN) != 0) {
        CM_ERROR(err, JK_WIRE_ESIG, "invalid signature");
        return -1;
    }
    pthread_mutex_lock(&signer->lock);
    int seen = history_has(signer, digest);
    if (!seen)
        history_add(signer, digest);
    pthread_mutex_unlock(&signer->lock);
    if (seen) {
        CM_ERROR(err, JK_WIRE_EREPLAY, "replayed signature");
        return -1;
    }
    return 0;
}
