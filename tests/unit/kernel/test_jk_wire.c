/* Tests of jk_wire and jk_signer: signing, verification, replay, caps,
 * parsing and serialising. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "jk_wire.h"

#define KEY "secret-key"
#define HEADER "{\"msg_id\":\"1\",\"msg_type\":\"kernel_info_request\"}"
/* python3 -c "import hmac,hashlib; h=hmac.new(b'secret-key',digestmod=hashlib.sha256);
 *   [h.update(p) for p in (b'<HEADER>',b'{}',b'{}',b'{}')]; print(h.hexdigest())" */
#define HEADER_SIG "d24613c901272087168eb7a17b371d2f54d14044dca08737846f4baf86191b6a"

static jk_frame_t fr(const char *s)
{
    return (jk_frame_t){(unsigned char *)s, strlen(s)};
}

/* frames: [id, delimiter, sig, header, {}, {}, content] */
static size_t make(jk_frame_t *f, const char *sig, const char *header, const char *content)
{
    f[0] = fr("routing-id");
    f[1] = fr(JK_WIRE_DELIMITER);
    f[2] = fr(sig);
    f[3] = fr(header);
    f[4] = fr("{}");
    f[5] = fr("{}");
    f[6] = fr(content);
    return 7;
}

/* A correctly signed message with the given header and content. */
static size_t make_signed(jk_signer_t *s, jk_frame_t *f, char sig[65], const char *header,
                          const char *content)
{
    make(f, "", header, content);
    jk_signer_sign(s, f + 3, sig);
    f[2] = fr(sig);
    return 7;
}

static int parse_code(jk_signer_t *s, const jk_frame_t *f, size_t n)
{
    jk_message_t msg;
    cm_error_t err;
    cm_error_clear(&err);
    int rc = jk_wire_parse(s, f, n, &msg, &err);
    if (rc == 0) {
        jk_message_clear(&msg);
        return 0;
    }
    CHECK(msg.header == NULL && msg.identities == NULL && err.text[0] != '\0');
    return err.code;
}

static void test_sign_vector(void)
{
    cm_error_t err;
    cm_error_clear(&err);
    jk_signer_t *s = jk_signer_new(KEY, "hmac-sha256", &err);
    CHECK(s != NULL);
    jk_frame_t parts[4] = {fr(HEADER), fr("{}"), fr("{}"), fr("{}")};
    char sig[65];
    jk_signer_sign(s, parts, sig);
    CHECK_STR(sig, HEADER_SIG);

    jk_frame_t f[8];
    size_t n = make(f, HEADER_SIG, HEADER, "{}");
    jk_message_t msg;
    CHECK(jk_wire_parse(s, f, n, &msg, &err) == 0);
    CHECK_STR(msg.msg_type, "kernel_info_request");
    CHECK(msg.n_identities == 1 && msg.identities[0].len == 10 &&
          memcmp(msg.identities[0].data, "routing-id", 10) == 0);
    CHECK(msg.n_buffers == 0);
    CHECK(json_is_object(msg.content) && json_object_size(msg.content) == 0);
    jk_message_clear(&msg);
    CHECK(msg.header == NULL);

    /* the same frames again: a replay */
    CHECK(parse_code(s, f, n) == JK_WIRE_EREPLAY);
    jk_signer_free(s);
}

static void test_bad_signatures(void)
{
    jk_signer_t *s = jk_signer_new(KEY, "hmac-sha256", NULL);
    jk_frame_t f[8];
    char wrong[65];
    memcpy(wrong, HEADER_SIG, 65);
    wrong[10] = wrong[10] == '0' ? '1' : '0';
    CHECK(parse_code(s, f, make(f, wrong, HEADER, "{}")) == JK_WIRE_ESIG);
    CHECK(parse_code(s, f, make(f, "", HEADER, "{}")) == JK_WIRE_ESIG);
    char shorter[65];
    memcpy(shorter, HEADER_SIG, 63);
    shorter[63] = '\0';
    CHECK(parse_code(s, f, make(f, shorter, HEADER, "{}")) == JK_WIRE_ESIG);
    char longer[66];
    memcpy(longer, HEADER_SIG, 64);
    longer[64] = '0';
    longer[65] = '\0';
    CHECK(parse_code(s, f, make(f, longer, HEADER, "{}")) == JK_WIRE_ESIG);
    /* decision: upper-case hex is refused (jupyter_client compares the
     * lower-case hexdigest string; one spelling per MAC) */
    char upper[65];
    for (int i = 0; i < 65; i++)
        upper[i] = (char)(HEADER_SIG[i] >= 'a' && HEADER_SIG[i] <= 'f' ? HEADER_SIG[i] - 32
                                                                        : HEADER_SIG[i]);
    CHECK(parse_code(s, f, make(f, upper, HEADER, "{}")) == JK_WIRE_ESIG);
    /* right signature, content changed after signing */
    CHECK(parse_code(s, f, make(f, HEADER_SIG, HEADER, "{\"a\":1}")) == JK_WIRE_ESIG);
    /* the failures did not enter the history: the good one still passes */
    CHECK(parse_code(s, f, make(f, HEADER_SIG, HEADER, "{}")) == 0);
    /* a different key */
    jk_signer_t *other = jk_signer_new("other-key", "hmac-sha256", NULL);
    CHECK(parse_code(other, f, make(f, HEADER_SIG, HEADER, "{}")) == JK_WIRE_ESIG);
    jk_signer_free(other);
    jk_signer_free(s);
}

static void test_schemes(void)
{
    cm_error_t err;
    cm_error_clear(&err);
    CHECK(jk_signer_new(KEY, "hmac-md5", &err) == NULL);
    CHECK(strstr(err.text, "hmac-md5") != NULL);
    cm_error_clear(&err);
    CHECK(jk_signer_new(KEY, "", &err) == NULL);
    CHECK(jk_signer_new(KEY, "HMAC-SHA256", NULL) == NULL);
    jk_signer_t *s = jk_signer_new("", "", NULL);
    CHECK(s != NULL);
    jk_signer_free(s);
    s = jk_signer_new("", "hmac-sha256", NULL);
    CHECK(s != NULL);
    jk_signer_free(s);
}

static void test_unsigned(void)
{
    jk_signer_t *s = jk_signer_new("", "", NULL);
    jk_frame_t parts[4] = {fr(HEADER), fr("{}"), fr("{}"), fr("{}")};
    char sig[65];
    jk_signer_sign(s, parts, sig);
    CHECK_STR(sig, "");
    jk_frame_t f[8];
    CHECK(parse_code(s, f, make(f, "", HEADER, "{}")) == 0);
    CHECK(parse_code(s, f, make(f, "", HEADER, "{}")) == 0); /* no replay check */
    CHECK(parse_code(s, f, make(f, "junk", HEADER, "{}")) == 0);
    CHECK(parse_code(s, f, make(f, "", "{}", "{}")) == JK_WIRE_EHEADER);
    jk_signer_free(s);
}

static void test_frames(void)
{
    jk_signer_t *s = jk_signer_new(KEY, "hmac-sha256", NULL);
    jk_frame_t f[JK_WIRE_MAX_FRAMES + 2];
    char sig[65];
    /* no delimiter */
    make_signed(s, f, sig, HEADER, "{}");
    f[1] = fr("<IDS|MSX>");
    CHECK(parse_code(s, f, 7) == JK_WIRE_EFRAMES);
    /* only 4 frames after the delimiter */
    make_signed(s, f, sig, HEADER, "{}");
    CHECK(parse_code(s, f, 6) == JK_WIRE_EFRAMES);
    CHECK(parse_code(s, f, 0) == JK_WIRE_EFRAMES);
    /* too many frames (buffers) */
    make_signed(s, f, sig, HEADER, "{}");
    for (size_t i = 7; i < JK_WIRE_MAX_FRAMES + 1; i++)
        f[i] = fr("buffer");
    CHECK(parse_code(s, f, JK_WIRE_MAX_FRAMES + 1) == JK_WIRE_EFRAMES);
    /* exactly the cap: accepted, with buffers */
    jk_message_t msg;
    CHECK(jk_wire_parse(s, f, JK_WIRE_MAX_FRAMES, &msg, NULL) == 0);
    CHECK(msg.n_buffers == JK_WIRE_MAX_FRAMES - 7);
    jk_message_clear(&msg);
    /* a frame over the size cap (length only: the data is never read) */
    make_signed(s, f, sig, HEADER, "{}");
    f[6].len = (size_t)JK_WIRE_MAX_FRAME_BYTES + 1;
    CHECK(parse_code(s, f, 7) == JK_WIRE_EFRAMES);
    jk_signer_free(s);
}

/* n levels of {"a": ... {} ...}, plus a string full of brackets */
static char *nested(int n)
{
    size_t cap = (size_t)n * 8 + 64;
    char *p = malloc(cap), *o = p;
    for (int i = 1; i < n; i++)
        o += sprintf(o, "{\"a\":");
    o += sprintf(o, "{\"s\":\"[[[{{{\\\"\"}");
    for (int i = 1; i < n; i++)
        *o++ = '}';
    *o = '\0';
    return p;
}

static void test_json(void)
{
    jk_signer_t *s = jk_signer_new(KEY, "hmac-sha256", NULL);
    jk_frame_t f[8];
    char sig[65];
    make_signed(s, f, sig, HEADER, "{\"a\":");
    CHECK(parse_code(s, f, 7) == JK_WIRE_EJSON);
    make_signed(s, f, sig, HEADER, "[1,2]");
    CHECK(parse_code(s, f, 7) == JK_WIRE_EJSON);
    make_signed(s, f, sig, "{\"msg_id\":\"1\"}", "{}");
    CHECK(parse_code(s, f, 7) == JK_WIRE_EHEADER);
    make_signed(s, f, sig, "{\"msg_type\":\"x\"}", "{}");
    CHECK(parse_code(s, f, 7) == JK_WIRE_EHEADER);
    make_signed(s, f, sig, "{\"msg_id\":\"1\",\"msg_type\":3}", "{}");
    CHECK(parse_code(s, f, 7) == JK_WIRE_EHEADER);

    char *ok = nested(JK_WIRE_MAX_JSON_DEPTH);
    char *deep = nested(JK_WIRE_MAX_JSON_DEPTH + 1);
    make_signed(s, f, sig, HEADER, ok);
    CHECK(parse_code(s, f, 7) == 0);
    make_signed(s, f, sig, HEADER, deep);
    CHECK(parse_code(s, f, 7) == JK_WIRE_EJSON);
    free(ok);
    free(deep);
    /* arrays count too; far deeper than Jansson's own limit */
    char arr[5001];
    memset(arr, '[', 5000);
    arr[5000] = '\0';
    make_signed(s, f, sig, HEADER, arr);
    CHECK(parse_code(s, f, 7) == JK_WIRE_EJSON);
    jk_signer_free(s);
}

static void test_round_trip(void)
{
    jk_signer_t *s = jk_signer_new(KEY, "hmac-sha256", NULL);
    json_t *header = jk_wire_header_new("execute_reply", "sess-1");
    CHECK(header != NULL);
    CHECK_STR(json_string_value(json_object_get(header, "username")), "gpuc");
    CHECK_STR(json_string_value(json_object_get(header, "session")), "sess-1");
    CHECK_STR(json_string_value(json_object_get(header, "version")), JK_PROTOCOL_VERSION);
    const char *id = json_string_value(json_object_get(header, "msg_id"));
    CHECK(id && strlen(id) == 36 && id[8] == '-' && id[14] == '4');
    CHECK(id && strchr("89ab", id[19]) != NULL);
    const char *date = json_string_value(json_object_get(header, "date"));
    /* 2026-11-21T19:20:01.123456Z */
    CHECK(date && strlen(date) == 27 && date[10] == 'T' && date[19] == '.' && date[26] == 'Z');
    char u1[37], u2[37];
    jk_wire_uuid(u1);
    jk_wire_uuid(u2);
    CHECK(strcmp(u1, u2) != 0);

    json_t *parent = json_pack("{s:s, s:s}", "msg_id", "p", "msg_type", "execute_request");
    json_t *content = json_pack("{s:s, s:i, s:[i,i]}", "status", "ok", "execution_count", 3,
                                "list", 1, 2);
    jk_frame_t ids[2] = {fr("id-one"), {(unsigned char *)"\0\x01\x02", 3}};
    jk_frame_t *frames;
    size_t n;
    cm_error_t err;
    cm_error_clear(&err);
    CHECK(jk_wire_serialize(s, ids, 2, header, parent, NULL, content, &frames, &n, &err) == 0);
    CHECK(n == 8);
    CHECK(frames[3].len == 64);
    CHECK(frames[6].len == 2 && memcmp(frames[6].data, "{}", 2) == 0);
    /* add two buffers (not signed) */
    jk_frame_t *grown = realloc(frames, (n + 2) * sizeof *grown);
    frames = grown;
    frames[n].data = (unsigned char *)strdup("buf0");
    frames[n].len = 4;
    frames[n + 1].data = malloc(1);
    frames[n + 1].len = 0;
    n += 2;

    jk_message_t msg;
    CHECK(jk_wire_parse(s, frames, n, &msg, &err) == 0);
    CHECK_STR(msg.msg_type, "execute_reply");
    CHECK(msg.n_identities == 2 && msg.identities[1].len == 3 &&
          memcmp(msg.identities[1].data, "\0\x01\x02", 3) == 0);
    CHECK(json_equal(msg.header, header));
    CHECK(json_equal(msg.parent_header, parent));
    CHECK(json_equal(msg.content, content));
    CHECK(json_object_size(msg.metadata) == 0);
    CHECK(msg.n_buffers == 2 && msg.buffers[0].len == 4 && msg.buffers[1].len == 0);
    jk_message_clear(&msg);
    CHECK(jk_wire_parse(s, frames, n, &msg, NULL) == -1); /* replay */
    jk_frames_free(frames, n);

    /* non-object content is refused */
    json_t *arr = json_array();
    cm_error_clear(&err);
    CHECK(jk_wire_serialize(s, NULL, 0, header, NULL, NULL, arr, &frames, &n, &err) == -1);
    CHECK(frames == NULL && err.code == JK_WIRE_EJSON);
    json_decref(arr);

    /* unsigned: "" signature frame */
    jk_signer_t *u = jk_signer_new("", "", NULL);
    CHECK(jk_wire_serialize(u, NULL, 0, header, NULL, NULL, NULL, &frames, &n, NULL) == 0);
    CHECK(n == 6 && frames[1].len == 0);
    CHECK(jk_wire_parse(u, frames, n, &msg, NULL) == 0);
    jk_message_clear(&msg);
    jk_frames_free(frames, n);
    jk_signer_free(u);

    json_decref(header);
    json_decref(parent);
    json_decref(content);
    jk_signer_free(s);
}

/* More distinct messages than the history holds: the oldest is forgotten
 * (accepted again), the newest still refused. */
static void test_history_eviction(void)
{
    jk_signer_t *s = jk_signer_new(KEY, "hmac-sha256", NULL);
    jk_frame_t f[8];
    char sig[65], first[65], content[64];
    int fails = 0;
    for (int i = 0; i <= JK_WIRE_REPLAY_HISTORY; i++) {
        snprintf(content, sizeof content, "{\"i\":%d}", i);
        make_signed(s, f, sig, HEADER, content);
        if (i == 0)
            memcpy(first, sig, 65);
        fails += jk_signer_verify(s, f + 3, &f[2], NULL) != 0;
    }
    CHECK(fails == 0);
    cm_error_t err;
    cm_error_clear(&err);
    CHECK(jk_signer_verify(s, f + 3, &f[2], &err) == -1 && err.code == JK_WIRE_EREPLAY);
    snprintf(content, sizeof content, "{\"i\":%d}", 0);
    make(f, first, HEADER, content);
    CHECK(jk_signer_verify(s, f + 3, &f[2], NULL) == 0);
    snprintf(content, sizeof content, "{\"i\":%d}", 2);
    make_signed(s, f, sig, HEADER, content);
    CHECK(jk_signer_verify(s, f + 3, &f[2], NULL) == -1);
    jk_signer_free(s);
}

int main(void)
{
    test_sign_vector();
    test_bad_signatures();
    test_schemes();
    test_unsigned();
    test_frames();
    test_json();
    test_round_trip();
    test_history_eviction();
    return check_report("test_jk_wire");
}
