#include "jk_connection.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* Field names of the ports, indexed by jk_channel_t. */
static const char *const port_fields[JK_CHANNEL_COUNT] = {
    [JK_CHANNEL_SHELL] = "shell_port",
    [JK_CHANNEL_CONTROL] = "control_port",
    [JK_CHANNEL_STDIN] = "stdin_port",
    [JK_CHANNEL_IOPUB] = "iopub_port",
    [JK_CHANNEL_HB] = "hb_port",
};

/* Copies the string field `name` of root into buf. A missing field gives
 * fallback (or an error when fallback is NULL). Rejects non-strings,
 * embedded NULs and values that do not fit. Returns 0 or -1. */
static int get_string(const char *path, json_t *root, const char *name, const char *fallback,
                      char *buf, size_t size, cm_error_t *err)
{
    json_t *value = json_object_get(root, name);
    if (!value) {
        if (!fallback) {
            CM_ERROR(err, -1, "connection file %s: missing field '%s'", path, name);
            return -1;
        }
        snprintf(buf, size, "%s", fallback);
        return 0;
    }
    if (!json_is_string(value)) {
        CM_ERROR(err, -1, "connection file %s: field '%s' is not a string", path, name);
        return -1;
    }
    const char *text = json_string_value(value);
    size_t len = json_string_length(value);
    if (strlen(text) != len) {
        CM_ERROR(err, -1, "connection file %s: field '%s' contains a NUL character", path,
                 name);
        return -1;
    }
    if (len >= size) {
        CM_ERROR(err, -1, "connection file %s: field '%s' is too long (%zu bytes, at most %zu)",
                 path, name, len, size - 1);
        return -1;
    }
    memcpy(buf, text, len + 1);
    return 0;
}

static int get_port(const char *path, json_t *root, const char *name, int *port,
                    cm_error_t *err)
{
    json_t *value = json_object_get(root, name);
    if (!value) {
        CM_ERROR(err, -1, "connection file %s: missing field '%s'", path, name);
        return -1;
    }
    if (!json_is_integer(value)) {
        CM_ERROR(err, -1, "connection file %s: field '%s' is not an integer", path, name);
        return -1;
    }
    json_int_t n = json_integer_value(value);
    if (n < 0 || n > 65535) {
        CM_ERROR(err, -1, "connection file %s: field '%s' is out of range (%lld, not 0..65535)",
                 path, name, (long long)n);
        return -1;
    }
    *port = (int)n;
    return 0;
}

static int validate(const char *path, json_t *root, jk_connection_t *conn, cm_error_t *err)
{
    if (get_string(path, root, "transport", "tcp", conn->transport, sizeof conn->transport,
                   err))
        return -1;
    if (strcmp(conn->transport, "tcp") != 0 && strcmp(conn->transport, "ipc") != 0) {
        CM_ERROR(err, -1, "connection file %s: unsupported transport '%s' (tcp or ipc)", path,
                 conn->transport);
        return -1;
    }
    if (get_string(path, root, "ip", NULL, conn->ip, sizeof conn->ip, err))
        return -1;
    if (conn->ip[0] == '\0') {
        CM_ERROR(err, -1, "connection file %s: field 'ip' is empty", path);
        return -1;
    }
    for (int c = 0; c < JK_CHANNEL_COUNT; c++)
        if (get_port(path, root, port_fields[c], &conn->ports[c], err))
            return -1;
    /* The key must be present: an absent key silently turning signing off
     * would hide a broken launcher. "" turns it off on purpose. */
    if (get_string(path, root, "key", NULL, conn->key, sizeof conn->key, err))
        return -1;
    if (get_string(path, root, "signature_scheme", "", conn->signature_scheme,
                   sizeof conn->signature_scheme, err))
        return -1;
    if (conn->signature_scheme[0] == '\0') {
        if (conn->key[0] != '\0') {
            CM_ERROR(err, -1,
                     "connection file %s: missing signature_scheme with a non-empty key "
                     "(only hmac-sha256)",
                     path);
            return -1;
        }
    } else if (strcmp(conn->signature_scheme, "hmac-sha256") != 0) {
        CM_ERROR(err, -1,
                 "connection file %s: unsupported signature_scheme '%s' (only hmac-sha256)",
                 path, conn->signature_scheme);
        return -1;
    }
    return 0;
}

int jk_connection_load(const char *path, jk_connection_t *conn, cm_error_t *err)
{
    memset(conn, 0, sizeof *conn);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        CM_ERROR(err, -1, "connection file %s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    json_error_t jerr;
    json_t *root = json_loadf(fp, JSON_REJECT_DUPLICATES, &jerr);
    fclose(fp);
    if (!root) {
        CM_ERROR(err, -1, "connection file %s: invalid JSON at line %d: %s", path, jerr.line,
                 jerr.text);
        return -1;
    }
    int rc = 0;
    if (!json_is_object(root)) {
        CM_ERROR(err, -1, "connection file %s: not a JSON object", path);
        rc = -1;
    } else {
        rc = validate(path, root, conn, err);
    }
    json_decref(root);
    if (rc)
        memset(conn, 0, sizeof *conn); /* no half-filled key left behind */
    return rc;
}

int jk_connection_endpoint(const jk_connection_t *conn, jk_channel_t channel, char *buf,
                           size_t size)
{
    if ((int)channel < 0 || channel >= JK_CHANNEL_COUNT || size == 0)
        return -1;
    int port = conn->ports[channel];
    int n;
    if (strcmp(conn->transport, "ipc") == 0)
        n = snprintf(buf, size, "ipc://%s-%d", conn->ip, port); /* Jupyter: "<ip>-<port>" */
    else if (strchr(conn->ip, ':') && conn->ip[0] != '[')
        n = snprintf(buf, size, "tcp://[%s]:%d", conn->ip, port); /* IPv6 literal */
    else
        n = snprintf(buf, size, "tcp://%s:%d", conn->ip, port);
    if (n < 0 || (size_t)n >= size) {
        buf[0] = '\0';
        return -1;
    }
    return 0;
}
