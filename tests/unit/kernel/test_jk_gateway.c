/* Tests of jk_gateway's launch side: EG's arguments in their spellings, the
 * connection file written for a port range (read back by jk_connection),
 * where it goes, and the errors that end a launch. The sealed report and the
 * communication port are tested against Enterprise Gateway itself
 * (tests/gateway/test_launcher.py). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "jk_connection.h"
#include "jk_gateway.h"

/* Takes every word of argv; returns how many were EG's, or -1. */
static int take_all(jk_gateway_args_t *a, int argc, char **argv, cm_error_t *err)
{
    int taken = 0;
    for (int i = 0; i < argc; i++) {
        int rc = jk_gateway_args_take(a, argc, argv, &i, err);
        if (rc < 0)
            return -1;
        taken += rc;
    }
    return taken;
}

static void test_spellings(void)
{
    char *argv[] = {"-f", "conn.json", "--RemoteProcessProxy.kernel-id", "k1",
                    "--response-address=10.0.0.5:8877", "--public-key", "KEY",
                    "--RemoteProcessProxy.port-range=40000..41999",
                    "--RemoteProcessProxy.spark-context-initialization-mode", "none",
                    "--kernel-identity", "x"};
    jk_gateway_args_t a = {0};
    cm_error_t err;
    cm_error_clear(&err);
    CHECK(!jk_gateway_args_given(&a));
    CHECK(take_all(&a, 12, argv, &err) == 5); /* -f and an unknown flag are not EG's */
    CHECK(jk_gateway_args_given(&a));
    CHECK_STR(a.kernel_id, "k1");
    CHECK_STR(a.response_address, "10.0.0.5:8877");
    CHECK_STR(a.public_key, "KEY");
    CHECK_STR(a.port_range, "40000..41999");
    CHECK_STR(a.spark_mode, "none");

    char *missing[] = {"--RemoteProcessProxy.public-key"};
    jk_gateway_args_t b = {0};
    CHECK(take_all(&b, 1, missing, &err) == -1);
    CHECK(strstr(err.text, "--RemoteProcessProxy.public-key needs a value") != NULL);
}

static void test_connection_file_in_range(void)
{
    jk_gateway_args_t a = {.kernel_id = "k2", .public_key = "KEY", .response_address = "127.0.0.1:1",
                           .port_range = "45000..46999"};
    cm_error_t err;
    cm_error_clear(&err);
    char dir[] = "/tmp/gpuc-gateway-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    setenv("TMPDIR", dir, 1);
    jk_gateway_t *g = jk_gateway_new(&a, "/nonexistent-folder/conn.json", &err);
    CHECK(g != NULL);
    if (!g) {
        fprintf(stderr, "  %s\n", err.text);
        return;
    }
    /* the folder of -f does not exist here: a file of its own in $TMPDIR */
    const char *path = jk_gateway_connection_file(g);
    CHECK(strncmp(path, dir, strlen(dir)) == 0);
    CHECK(strstr(path, "/kernel-k2_") != NULL);
    jk_connection_t conn;
    CHECK(jk_connection_load(path, &conn, &err) == 0);
    CHECK_STR(conn.transport, "tcp");
    CHECK_STR(conn.ip, "0.0.0.0");
    CHECK(strlen(conn.key) == 36);
    for (int c = 0; c < JK_CHANNEL_COUNT; c++) {
        CHECK(conn.ports[c] >= 45000 && conn.ports[c] <= 46999);
        for (int d = 0; d < c; d++)
            CHECK(conn.ports[c] != conn.ports[d]);
    }
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    jk_gateway_free(g);
    CHECK(access(copy, F_OK) != 0); /* removed at the end */

    /* an id that is not a plain name stays out of the file's name */
    jk_gateway_args_t odd = {.kernel_id = "../../etc/x", .public_key = "KEY",
                             .response_address = "127.0.0.1:1"};
    g = jk_gateway_new(&odd, NULL, &err);
    CHECK(g != NULL && strncmp(jk_gateway_connection_file(g), dir, strlen(dir)) == 0 &&
          strstr(jk_gateway_connection_file(g), "/kernel-gateway_") != NULL);
    jk_gateway_free(g);

    /* -f in a folder that exists is used as it is */
    char wanted[4096];
    snprintf(wanted, sizeof wanted, "%s/given.json", dir);
    a.port_range = "0..0";
    g = jk_gateway_new(&a, wanted, &err);
    CHECK(g != NULL && strcmp(jk_gateway_connection_file(g), wanted) == 0);
    CHECK(access(wanted, F_OK) == 0);
    jk_gateway_free(g);
    CHECK(rmdir(dir) == 0); /* nothing left in it */
    unsetenv("TMPDIR");
}

static const char *new_error(jk_gateway_args_t a)
{
    static cm_error_t err;
    cm_error_clear(&err);
    jk_gateway_t *g = jk_gateway_new(&a, NULL, &err);
    CHECK(g == NULL);
    jk_gateway_free(g);
    return err.text;
}

static void test_errors(void)
{
    CHECK(strstr(new_error((jk_gateway_args_t){.kernel_id = "k", .public_key = "KEY"}),
                 "needs --RemoteProcessProxy.kernel-id, --RemoteProcessProxy.response-address "
                 "and --RemoteProcessProxy.public-key"));
    jk_gateway_args_t a = {.kernel_id = "k", .public_key = "KEY", .response_address = "127.0.0.1:1"};
    a.port_range = "100..200";
    CHECK(strstr(new_error(a), "with at least 1000 ports"));
    a.port_range = "2000..1000";
    CHECK(strstr(new_error(a), "is not LOW..HIGH"));
    a.port_range = "1000..70000";
    CHECK(strstr(new_error(a), "is not LOW..HIGH"));
    setenv("EG_MIN_PORT_RANGE_SIZE", "10", 1); /* EG passes its own minimum */
    a.port_range = "47000..47020";
    cm_error_t err;
    cm_error_clear(&err);
    jk_gateway_t *g = jk_gateway_new(&a, NULL, &err);
    CHECK(g != NULL);
    jk_gateway_free(g);
    unsetenv("EG_MIN_PORT_RANGE_SIZE");
}

int main(void)
{
    test_spellings();
    test_connection_file_in_range();
    test_errors();
    return check_report("test_jk_gateway");
}
