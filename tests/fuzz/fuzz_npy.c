/* Fuzzes the .npy header parser (runtime/array/ga_npy.h). A header that
 * parses must round-trip: the header gpuc writes for its dtype and shape
 * parses back to the same dtype and shape. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ga_npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ga_npy_info_t info;
    cm_error_t err;
    cm_error_clear(&err);
    if (ga_npy_parse_header(data, size, &info, &err) != 0) {
        if (!err.text[0])
            abort();
        return 0;
    }
    if (info.ndim < 0 || info.ndim > GA_MAX_DIMS || info.header_bytes > size)
        abort();
    size_t len = 0;
    unsigned char *again = ga_npy_format_header(info.dtype, info.ndim, info.shape, &len);
    if (!again)
        abort();
    ga_npy_info_t back;
    if (ga_npy_parse_header(again, len, &back, &err) != 0 || back.dtype != info.dtype ||
        back.ndim != info.ndim || back.header_bytes != len || back.fortran_order ||
        back.big_endian ||
        memcmp(back.shape, info.shape, sizeof info.shape[0] * (size_t)info.ndim) != 0)
        abort();
    free(again);
    return 0;
}
