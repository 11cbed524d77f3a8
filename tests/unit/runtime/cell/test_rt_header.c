/* test_rt_header: the file gpuc.h the build writes (BUILD/include, what
 * `gpuc install` and the bundle copy) is byte for byte the text every host
 * cell is compiled after, with and without the CUDA toolkit's
 * declarations, which follow it under their own name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpuc_config.h"
#include "rt_header.h"

/* The whole file, or NULL. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static void test_file_is_what_cells_see(void)
{
    size_t len = 0;
    char *file = read_file(GPUC_BUILD_INCLUDE_DIR "/gpuc.h", &len);
    CHECK(file != NULL);
    if (!file)
        return;
    CHECK(len == strlen(rt_gpuc_h) && memcmp(file, rt_gpuc_h, len) == 0);
    static const char first[] = "#line 1 \"gpuc.h\"\n", after[] = "#line 1 \"cuda_runtime_api.h\"\n";
    for (int toolkit = 0; toolkit <= 1; toolkit++) {
        const char *cells = rt_header(toolkit);
        CHECK(strncmp(cells, first, strlen(first)) == 0);
        CHECK(memcmp(cells + strlen(first), file, len) == 0);
        CHECK(strncmp(cells + strlen(first) + len, after, strlen(after)) == 0);
        CHECK(strstr(cells + strlen(first) + len, "cudaMalloc") != NULL);
    }
    /* the file is gpuc's own API: the CUDA runtime's is not in it */
    CHECK(strstr(file, "ga_zeros_n") && !strstr(file, "cudaMemcpy"));
    free(file);
}

int main(void)
{
    test_file_is_what_cells_see();
    return check_report("test_rt_header");
}
