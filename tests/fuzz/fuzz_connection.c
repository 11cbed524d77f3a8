/* Fuzzes the connection file parser (kernel/jk_connection.h): the input is
 * the file; a valid one must give an endpoint for every channel. */
#include <stdint.h>

#include "fuzz_file.h"
#include "jk_connection.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write(data, size, ".json");
    jk_connection_t conn;
    cm_error_t err;
    cm_error_clear(&err);
    if (jk_connection_load(path, &conn, &err) != 0) {
        if (!err.text[0])
            abort(); /* a failure must say why */
        return 0;
    }
    char endpoint[512];
    for (int c = 0; c < JK_CHANNEL_COUNT; c++)
        if (jk_connection_endpoint(&conn, (jk_channel_t)c, endpoint, sizeof endpoint) != 0)
            abort(); /* 512 bytes hold any ip[256] and port */
    return 0;
}
