/* jk_self: where the running gpuc binary is, so that kernel.json and the
 * executor can name it by an absolute path. */
#include <stddef.h>
#include <unistd.h>

#include "jk_commands.h"

int jk_self_exe(char *buf, size_t size)
{
    if (!buf || size < 2)
        return -1;
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0 || (size_t)n >= size - 1) /* error, or possibly truncated */
        return -1;
    buf[n] = '\0';
    return 0;
}
