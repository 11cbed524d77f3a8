/* Fuzzes the compile-cache reader (backend/cuda/gpu_cache.c): the input is one
 * entry file, put where the cache looks for its key (bytes 32..64 of the
 * input, the key the entry claims), then looked up. The same bytes are
 * tried a second time with a correct checksum (bytes 64..96, SHA-256 of
 * everything after the 96-byte header), so that the checks behind it are
 * reached. A hit must be a well-formed image. */
#include <sodium.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "gpu_internal.h"

#define HEADER_SIZE 96

static char dir[256];

static void remove_dir(void)
{
    char gpuc[300];
    snprintf(gpuc, sizeof gpuc, "%s/gpuc", dir);
    rmdir(gpuc);
    rmdir(dir);
}

static void lookup(const unsigned char key[32], const uint8_t *data, size_t size)
{
    char path[1200];
    if (gpu_cache_path(key, path, sizeof path) != 0)
        abort();
    fuzz_file_write_at(path, data, size);
    gpu_image_t img;
    const char *where = NULL;
    if (gpu_cache_lookup(key, &img, &where)) {
        if (!where || img.size == 0 || !img.data ||
            (img.kind != GPU_IMAGE_CUBIN && img.kind != GPU_IMAGE_PTX) ||
            (img.kind == GPU_IMAGE_PTX && img.data[img.size - 1] != '\0') ||
            (img.names_size && img.names[img.names_size - 1] != '\0'))
            abort();
        gpu_image_clear(&img);
    }
    gpu_cache_reset_memory();
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        /* in memory where there is a /dev/shm: an entry is written per run */
        const char *tmp = getenv("TMPDIR");
        if (!tmp || !*tmp)
            tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/gpuc-fuzz-cache-XXXXXX", tmp);
        if (!mkdtemp(dir) || setenv("XDG_CACHE_HOME", dir, 1) != 0)
            abort();
        atexit(remove_dir);
    }
    unsigned char key[32] = {0};
    if (size >= 64)
        memcpy(key, data + 32, 32);
    lookup(key, data, size);
    if (size >= HEADER_SIZE) {
        uint8_t *fixed = malloc(size);
        memcpy(fixed, data, size);
        crypto_hash_sha256(fixed + 64, fixed + HEADER_SIZE, size - HEADER_SIZE);
        lookup(key, fixed, size);
        free(fixed);
    }
    return 0;
}
