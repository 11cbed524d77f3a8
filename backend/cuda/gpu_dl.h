/* gpu_dl: finding NVIDIA's shared libraries at run time.
 *
 * Tries each soname as the dynamic loader would find it, then in
 * /usr/local/cuda/lib64, $CUDA_HOME/lib64 and $CUDA_PATH/lib64. Never links
 * anything at build time. Internal to backend/cuda/. For the tests,
 * GPUC_HIDE_LIBS=libcufft,libnvrtc (prefixes of sonames) makes those
 * libraries look absent. */
#ifndef GPU_DL_H
#define GPU_DL_H

#include <stddef.h>

/* Opens the first of names (NULL-terminated) that loads, with flags
 * (RTLD_NOW etc.). Returns the handle, or NULL with where filled with the
 * names and places tried ("libnvrtc.so.13, libnvrtc.so.12 in the loader's
 * path, /usr/local/cuda/lib64"). path (may be NULL) receives the file
 * loaded. */
void *gpu_dl_open(const char *const *names, int flags, char *path, size_t path_len,
                  char *where, size_t where_len);

/* dlsym that returns NULL quietly. */
void *gpu_dl_sym(void *handle, const char *name);

#endif
