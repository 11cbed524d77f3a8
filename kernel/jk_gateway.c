/* jk_gateway: Enterprise Gateway's launcher protocol (see jk_gateway.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <sodium.h>

#include "cm_log.h"
#include "jk_gateway.h"
#include "jk_seal.h"
#include "jk_wire.h"

#define KERNEL_PORTS 5          /* shell, iopub, stdin, hb, control */
#define REQUEST_MAX_BYTES 4096  /* EG's requests are a few bytes of JSON */
#define REQUEST_TIMEOUT_MS 5000 /* a connection that sends nothing is dropped */
#define LISTEN_POLL_MS 200      /* how often the listener checks for its end */

struct jk_gateway {
    const jk_gateway_args_t *args;
    char path[PATH_MAX];   /* the connection file written */
    json_t *info;          /* its content */
    int comm_fd;           /* listening: EG's signal and shutdown requests */
    pthread_t listener;
    int listening;         /* the listener thread was started */
    atomic_int stopping;
};

/* EG's launcher arguments, each under two spellings. */
static const struct {
    const char *name;
    size_t field; /* offset of the const char * in jk_gateway_args_t */
} launcher_args[] = {
    {"kernel-id", offsetof(jk_gateway_args_t, kernel_id)},
    {"response-address", offsetof(jk_gateway_args_t, response_address)},
    {"public-key", offsetof(jk_gateway_args_t, public_key)},
    {"port-range", offsetof(jk_gateway_args_t, port_range)},
    {"spark-context-initialization-mode", offsetof(jk_gateway_args_t, spark_mode)},
    {"cluster-type", offsetof(jk_gateway_args_t, cluster_type)},
};

int jk_gateway_args_take(jk_gateway_args_t *args, int argc, char **argv, int *i,
                         cm_error_t *err)
{
    const char *word = argv[*i];
    static const char proxy_prefix[] = "--RemoteProcessProxy.";
    if (strncmp(word, proxy_prefix, sizeof proxy_prefix - 1) == 0)
        word += sizeof proxy_prefix - 1;
    else if (strncmp(word, "--", 2) == 0)
        word += 2;
    else
        return 0;
    for (size_t a = 0; a < sizeof launcher_args / sizeof launcher_args[0]; a++) {
        size_t n = strlen(launcher_args[a].name);
        if (strncmp(word, launcher_args[a].name, n) != 0 || (word[n] != '\0' && word[n] != '='))
            continue;
        const char **field = (const char **)((char *)args + launcher_args[a].field);
        if (word[n] == '=') {
            *field = word + n + 1;
        } else if (*i + 1 < argc) {
            *field = argv[++*i];
        } else {
            CM_ERROR(err, -1, "%s needs a value", argv[*i]);
            return -1;
        }
        return 1;
    }
    return 0;
}

/* Non-zero for a value that is there and not empty. */
static int given(const char *value)
{
    return value && *value;
}

int jk_gateway_args_given(const jk_gateway_args_t *args)
{
    return args->kernel_id != NULL;
}

/* An integer from the environment, or fallback when unset or not one. */
static long env_long(const char *name, long fallback)
{
    const char *text = getenv(name);
    char *end = NULL;
    long v = text ? strtol(text, &end, 10) : fallback;
    return text && (end == text || *end) ? fallback : v;
}

/* Parses "LOW..HIGH" into *low, *high (both 0 for none or "0..0"). EG
 * requires a range of at least EG_MIN_PORT_RANGE_SIZE ports (1000),
 * passed in the environment. Returns 0, or -1 with err set. */
static int parse_range(const char *text, int *low, int *high, cm_error_t *err)
{
    *low = *high = 0;
    if (!text || !*text)
        return 0;
    char *dots = NULL, *end = NULL;
    long lo = strtol(text, &dots, 10);
    long hi = dots && strncmp(dots, "..", 2) == 0 ? strtol(dots + 2, &end, 10) : -1;
    long min_size = env_long("EG_MIN_PORT_RANGE_SIZE", 1000);
    if (!end || *end || lo < 0 || hi > 65535 || hi < lo ||
        (hi - lo != 0 && hi - lo < min_size)) {
        CM_ERROR(err, -1,
                 "port range '%s' is not LOW..HIGH with at least %ld ports (EG_MIN_PORT_RANGE_SIZE)",
                 text, min_size);
        return -1;
    }
    *low = (int)lo;
    *high = (int)hi;
    return 0;
}

/* Binds a TCP socket on all addresses to a port in [low, high] (any port
 * when both are 0), trying random ports as EG's launchers do. Returns the
 * socket, or -1 with err set. */
static int bind_in_range(int low, int high, cm_error_t *err)
{
    long tries = high > low ? env_long("EG_MAX_PORT_RANGE_RETRIES", 5) + 1 : 1;
    for (long t = 0; t < tries; t++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            break;
        int port = high > low ? low + (int)randombytes_uniform((uint32_t)(high - low + 1)) : 0;
        struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                   .sin_addr.s_addr = htonl(INADDR_ANY)};
        if (bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0)
            return fd;
        close(fd);
    }
    CM_ERROR(err, -1, "no free port in %d..%d after %ld tries: %s", low, high, tries,
             strerror(errno));
    return -1;
}

/* The port a bound socket has. */
static int port_of(int fd)
{
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    return getsockname(fd, (struct sockaddr *)&addr, &len) == 0 ? ntohs(addr.sin_port) : -1;
}

/* Non-zero when the folder of path exists ("" and "/" included). */
static int folder_exists(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 1; /* the working folder */
    *slash = '\0';
    struct stat st;
    return stat(dir[0] ? dir : "/", &st) == 0 && S_ISDIR(st.st_mode);
}

/* Chooses the connection file: path when its folder exists, else a new
 * kernel-ID_XXXXXX.json in $TMPDIR (an id that is not a plain name is left
 * out of it). Returns 0, or -1 with err set. */
static int choose_path(jk_gateway_t *g, const char *path, cm_error_t *err)
{
    if (path && folder_exists(path)) {
        snprintf(g->path, sizeof g->path, "%s", path);
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    const char *id = g->args->kernel_id;
    int plain = id[0] != '\0' && strspn(id, "abcdefghijklmnopqrstuvwxyz"
                                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == strlen(id) &&
                id[0] != '.';
    snprintf(g->path, sizeof g->path, "%s/kernel-%s_XXXXXX.json", tmp && *tmp ? tmp : "/tmp",
             plain ? id : "gateway");
    int fd = mkstemps(g->path, 5);
    if (fd < 0) {
        CM_ERROR(err, -1, "cannot create %s: %s", g->path, strerror(errno));
        g->path[0] = '\0';
        return -1;
    }
    close(fd);
    return 0;
}

/* Picks the five kernel ports and writes the connection file. The ports
 * are held bound together so that no two are the same, then released for
 * the kernel's ZeroMQ sockets to bind. Returns 0, or -1 with err set. */
static int write_connection_file(jk_gateway_t *g, int low, int high, const char *path,
                                 cm_error_t *err)
{
    int fds[KERNEL_PORTS], ports[KERNEL_PORTS], n = 0;
    for (; n < KERNEL_PORTS; n++) {
        fds[n] = bind_in_range(low, high, err);
        if (fds[n] < 0)
            break;
        ports[n] = port_of(fds[n]);
    }
    for (int i = 0; i < n; i++)
        close(fds[i]);
    if (n < KERNEL_PORTS || choose_path(g, path, err) != 0)
        return -1;
    char key[37];
    jk_wire_uuid(key);
    g->info = json_pack("{s:i, s:i, s:i, s:i, s:i, s:s, s:s, s:s, s:s, s:s}", "shell_port",
                        ports[0], "iopub_port", ports[1], "stdin_port", ports[2], "hb_port",
                        ports[3], "control_port", ports[4], "ip", "0.0.0.0", "key", key,
                        "transport", "tcp", "signature_scheme", "hmac-sha256", "kernel_name",
                        "");
    if (!g->info || json_dump_file(g->info, g->path, JSON_INDENT(2)) != 0) {
        CM_ERROR(err, -1, "cannot write the connection file %s", g->path);
        return -1;
    }
    return 0;
}

jk_gateway_t *jk_gateway_new(const jk_gateway_args_t *args, const char *path, cm_error_t *err)
{
    if (!given(args->kernel_id) || !given(args->response_address) || !given(args->public_key)) {
        CM_ERROR(err, -1, "Enterprise Gateway's launch needs --RemoteProcessProxy.kernel-id, "
                          "--RemoteProcessProxy.response-address and "
                          "--RemoteProcessProxy.public-key");
        return NULL;
    }
    /* gpuc has no Spark or Dask context to make */
    if (args->spark_mode && strcmp(args->spark_mode, "none") != 0)
        CM_WARN("spark-context-initialization-mode '%s' ignored: gpuc has no Spark context",
                args->spark_mode);
    if (args->cluster_type && strcmp(args->cluster_type, "none") != 0 &&
        strcmp(args->cluster_type, "spark") != 0)
        CM_WARN("cluster-type '%s' ignored: gpuc makes no cluster", args->cluster_type);
    if (sodium_init() < 0) {
        CM_ERROR(err, -1, "libsodium failed to initialise");
        return NULL;
    }
    int low, high;
    if (parse_range(args->port_range, &low, &high, err) != 0)
        return NULL;
    jk_gateway_t *g = calloc(1, sizeof *g);
    if (!g) {
        CM_ERROR(err, -1, "out of memory");
        return NULL;
    }
    g->args = args;
    g->comm_fd = -1;
    if (write_connection_file(g, low, high, path, err) != 0 ||
        (g->comm_fd = bind_in_range(low, high, err)) < 0 || listen(g->comm_fd, 8) != 0) {
        CM_ERROR(err, -1, "cannot listen on the communication port: %s", strerror(errno));
        jk_gateway_free(g);
        return NULL;
    }
    return g;
}

const char *jk_gateway_connection_file(const jk_gateway_t *g)
{
    return g->path;
}

/* Splits "IP:PORT" into addr. Returns 0, or -1 with err set. */
static int parse_address(const char *text, struct sockaddr_in *addr, cm_error_t *err)
{
    char ip[64];
    const char *colon = text ? strrchr(text, ':') : NULL;
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    size_t ip_len = colon ? (size_t)(colon - text) : 0;
    *addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (!colon || *end || port <= 0 || port > 65535 || ip_len >= sizeof ip ||
        (memcpy(ip, text, ip_len), ip[ip_len] = '\0', inet_pton(AF_INET, ip, &addr->sin_addr)) != 1) {
        CM_ERROR(err, -1, "response address '%s' is not IPv4-ADDRESS:PORT", text ? text : "");
        return -1;
    }
    return 0;
}

/* Writes all of n bytes. Returns 0, or -1 (errno set). */
static int write_all(int fd, const char *bytes, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, bytes, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        bytes += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads one request: everything up to the peer's end of writing, within
 * REQUEST_TIMEOUT_MS. Returns its JSON (new reference), or NULL. */
static json_t *read_request(int fd)
{
    char buf[REQUEST_MAX_BYTES + 1];
    size_t n = 0;
    while (n < REQUEST_MAX_BYTES) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, REQUEST_TIMEOUT_MS) <= 0)
            return NULL;
        ssize_t r = recv(fd, buf + n, REQUEST_MAX_BYTES - n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return NULL;
        if (r == 0)
            break;
        n += (size_t)r;
    }
    buf[n] = '\0';
    return json_loads(buf, 0, NULL);
}

/* Acts on one request. Returns 1 when it asks the listener to stop. */
static int serve_request(const json_t *request)
{
    json_t *signum = json_object_get(request, "signum");
    json_t *shutdown = json_object_get(request, "shutdown");
    if (json_is_integer(signum)) {
        int sig = (int)json_integer_value(signum);
        if (sig > 0) {
            CM_INFO("gateway asks for signal %d", sig);
            /* our handlers do what a signal from Jupyter would: SIGINT
             * interrupts the cell, SIGTERM shuts down */
            kill(getpid(), sig);
        }
    }
    return json_is_true(shutdown) || (json_is_integer(shutdown) && json_integer_value(shutdown));
}

static void *listen_thread(void *arg)
{
    jk_gateway_t *g = arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to the kernel's threads */
    while (!atomic_load(&g->stopping)) {
        struct pollfd p = {.fd = g->comm_fd, .events = POLLIN};
        if (poll(&p, 1, LISTEN_POLL_MS) <= 0)
            continue;
        int fd = accept4(g->comm_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        json_t *request = read_request(fd);
        close(fd);
        int stop = request && serve_request(request);
        json_decref(request);
        if (stop) {
            CM_INFO("gateway asks the listener to stop");
            break;
        }
    }
    close(g->comm_fd);
    g->comm_fd = -1;
    return NULL;
}

int jk_gateway_announce(jk_gateway_t *g, cm_error_t *err)
{
    struct sockaddr_in addr;
    if (parse_address(g->args->response_address, &addr, err) != 0)
        return -1;
    int comm_port = port_of(g->comm_fd);
    json_t *info = json_deep_copy(g->info);
    json_object_set_new(info, "pid", json_integer(getpid()));
    json_object_set_new(info, "pgid", json_integer(getpgid(0)));
    json_object_set_new(info, "comm_port", json_integer(comm_port));
    json_object_set_new(info, "kernel_id", json_string(g->args->kernel_id));
    char *text = json_dumps(info, JSON_COMPACT);
    json_decref(info);
    char *payload = text ? jk_seal_connection_info(g->args->public_key, text, err) : NULL;
    free(text);
    if (!payload)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = fd >= 0 && connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
                     write_all(fd, payload, strlen(payload)) == 0
                 ? 0
                 : -1;
    if (rc != 0)
        CM_ERROR(err, -1, "cannot send the connection information to %s: %s",
                 g->args->response_address, strerror(errno));
    if (fd >= 0)
        close(fd);
    free(payload);
    if (rc == 0 && pthread_create(&g->listener, NULL, listen_thread, g) != 0) {
        CM_ERROR(err, -1, "cannot start the gateway listener");
        return -1;
    }
    g->listening = rc == 0;
    if (rc == 0)
        CM_INFO("connection information sent to %s; gateway requests on port %d",
                g->args->response_address, comm_port);
    return rc;
}

void jk_gateway_free(jk_gateway_t *g)
{
    if (!g)
        return;
    atomic_store(&g->stopping, 1);
    if (g->listening)
        pthread_join(g->listener, NULL);
    if (g->comm_fd >= 0)
        close(g->comm_fd);
    if (g->path[0])
        unlink(g->path);
    json_decref(g->info);
    free(g);
}
