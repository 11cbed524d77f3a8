/* Tests of jk_connection: loading connection files and endpoints. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "jk_connection.h"

static char paths[32][64];
static int n_paths;

/* Writes text to a new temp file; returns its path (removed at exit). */
static const char *write_temp(const char *text)
{
    char *path = paths[n_paths++];
    strcpy(path, "/tmp/gpuc-conn-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return "/nonexistent";
    size_t len = strlen(text);
    CHECK(write(fd, text, len) == (ssize_t)len);
    close(fd);
    return path;
}

#define PORTS "\"shell_port\": 5001, \"control_port\": 5002, \"stdin_port\": 5003, " \
              "\"iopub_port\": 5004, \"hb_port\": 5005"

/* Loads text and returns the error text ("" on success). */
static const char *load_error(const char *text, jk_connection_t *conn)
{
    static cm_error_t err;
    cm_error_clear(&err);
    const char *path = write_temp(text);
    int rc = jk_connection_load(path, conn, &err);
    CHECK((rc == 0) == (err.code == 0));
    CHECK(rc == 0 || strstr(err.text, path) != NULL); /* names the file */
    return err.text;
}

static void test_tcp(void)
{
    jk_connection_t c;
    const char *e = load_error("{\"transport\": \"tcp\", \"ip\": \"127.0.0.1\", " PORTS
                               ", \"key\": \"abc\", \"signature_scheme\": \"hmac-sha256\", "
                               "\"kernel_name\": \"gpuc\"}",
                               &c);
    CHECK_STR(e, "");
    CHECK_STR(c.transport, "tcp");
    CHECK_STR(c.ip, "127.0.0.1");
    CHECK(c.ports[JK_CHANNEL_SHELL] == 5001 && c.ports[JK_CHANNEL_CONTROL] == 5002 &&
          c.ports[JK_CHANNEL_STDIN] == 5003 && c.ports[JK_CHANNEL_IOPUB] == 5004 &&
          c.ports[JK_CHANNEL_HB] == 5005);
    CHECK_STR(c.key, "abc");
    CHECK_STR(c.signature_scheme, "hmac-sha256");
    char ep[64];
    CHECK(jk_connection_endpoint(&c, JK_CHANNEL_SHELL, ep, sizeof ep) == 0);
    CHECK_STR(ep, "tcp://127.0.0.1:5001");
    CHECK(jk_connection_endpoint(&c, JK_CHANNEL_HB, ep, sizeof ep) == 0);
    CHECK_STR(ep, "tcp://127.0.0.1:5005");
    char small[20]; /* "tcp://127.0.0.1:5001" needs 21 */
    CHECK(jk_connection_endpoint(&c, JK_CHANNEL_SHELL, small, sizeof small) == -1);
    CHECK(jk_connection_endpoint(&c, JK_CHANNEL_COUNT, ep, sizeof ep) == -1);

    /* transport missing: tcp; IPv6 literal gets brackets */
    e = load_error("{\"ip\": \"::1\", " PORTS ", \"key\": \"k\", "
                   "\"signature_scheme\": \"hmac-sha256\"}",
                   &c);
    CHECK_STR(e, "");
    CHECK_STR(c.transport, "tcp");
    CHECK(jk_connection_endpoint(&c, JK_CHANNEL_IOPUB, ep, sizeof ep) == 0);
    CHECK_STR(ep, "tcp://[::1]:5004");

    /* empty key: scheme may be empty or missing */
    e = load_error("{\"ip\": \"127.0.0.1\", " PORTS ", \"key\": \"\"}", &c);
    CHECK_STR(e, "");
    CHECK_STR(c.key, "");
    e = load_error("{\"ip\": \"127.0.0.1\", " PORTS ", \"key\": \"\", \"signature_scheme\": \"\"}",
                   &c);
    CHECK_STR(e, "");
}

static void test_ipc(void)
{
    jk_connection_t c;
    const char *e = load_error("{\"transport\": \"ipc\", \"ip\": \"/tmp/kernel-abc\", " PORTS
                               ", \"key\": \"k\", \"signature_scheme\": \"hmac-sha256\"}",
                               &c);
    CHECK_STR(e, "");
    char ep[64];
    CHECK(jk_connection_endpoint(&c, JK_CHANNEL_CONTROL, ep, sizeof ep) == 0);
    CHECK_STR(ep, "ipc:///tmp/kernel-abc-5002");
}

static void test_errors(void)
{
    jk_connection_t c;
    cm_error_t err;
    cm_error_clear(&err);
    CHECK(jk_connection_load("/nonexistent/conn.json", &c, &err) == -1);
    CHECK(strstr(err.text, "/nonexistent/conn.json") && strstr(err.text, "cannot open"));

    const char *e = load_error("{\"ip\": \"127.0.0.1\", ", &c);
    CHECK(strstr(e, "invalid JSON") != NULL);
    e = load_error("[1, 2]", &c);
    CHECK(strstr(e, "not a JSON object") != NULL);
    e = load_error("{\"ip\": \"127.0.0.1\", " PORTS
                   ", \"key\": \"k\", \"signature_scheme\": \"hmac-md5\"}",
                   &c);
    CHECK(strstr(e, "unsupported signature_scheme 'hmac-md5' (only hmac-sha256)") != NULL);
    e = load_error("{\"ip\": \"127.0.0.1\", " PORTS ", \"key\": \"k\"}", &c);
    CHECK(strstr(e, "signature_scheme") != NULL);
    CHECK(c.key[0] == '\0'); /* nothing half-filled */
    e = load_error("{\"ip\": \"127.0.0.1\", " PORTS "}", &c);
    CHECK(strstr(e, "missing field 'key'") != NULL);
    e = load_error("{\"ip\": \"127.0.0.1\", \"shell_port\": 5001, \"control_port\": 5002, "
                   "\"stdin_port\": 5003, \"iopub_port\": 5004, \"key\": \"\"}",
                   &c);
    CHECK(strstr(e, "missing field 'hb_port'") != NULL);
    e = load_error("{\"ip\": \"127.0.0.1\", \"shell_port\": \"5001\", \"control_port\": 5002, "
                   "\"stdin_port\": 5003, \"iopub_port\": 5004, \"hb_port\": 1, \"key\": \"\"}",
                   &c);
    CHECK(strstr(e, "'shell_port' is not an integer") != NULL);
    e = load_error("{\"ip\": \"127.0.0.1\", \"shell_port\": 70000, \"control_port\": 5002, "
                   "\"stdin_port\": 5003, \"iopub_port\": 5004, \"hb_port\": 1, \"key\": \"\"}",
                   &c);
    CHECK(strstr(e, "'shell_port' is out of range") != NULL);
    e = load_error("{\"transport\": \"udp\", \"ip\": \"127.0.0.1\", " PORTS ", \"key\": \"\"}",
                   &c);
    CHECK(strstr(e, "unsupported transport 'udp'") != NULL);
    e = load_error("{" PORTS ", \"key\": \"\"}", &c);
    CHECK(strstr(e, "missing field 'ip'") != NULL);
    e = load_error("{\"ip\": 7, " PORTS ", \"key\": \"\"}", &c);
    CHECK(strstr(e, "'ip' is not a string") != NULL);
    e = load_error("{\"ip\": \"127.0.0.1\", " PORTS ", \"key\": \"a\\u0000b\", "
                   "\"signature_scheme\": \"hmac-sha256\"}",
                   &c);
    CHECK(strstr(e, "NUL") != NULL);
}

int main(void)
{
    test_tcp();
    test_ipc();
    test_errors();
    for (int i = 0; i < n_paths; i++)
        unlink(paths[i]);
    return check_report("test_jk_connection");
}
