/* cm_cache: THE compile cache of gpuc, in memory and on disk, for every
 * compiler: NVRTC's images (backend/cuda/gpu_cache: the CUDA backend's
 * entry format), the system compiler's shared objects (backend/cpu/cpu_jit:
 * the CPU backend's array kernels, the simulator's kernels).
 *
 * A key is a SHA-256 of everything that decides what a compiler makes
 * (the compiler's identity, its flags, the source); each compiler hashes
 * its own name in, so keys of different compilers never meet.
 *
 * Disk: one folder, $XDG_CACHE_HOME/gpuc, else ~/.cache/gpuc, made 0700 at
 * first use; an entry is <64 hex digits of the key>.<ext> ("nvc", "so"),
 * written by its compiler through a temporary file and a rename.
 *
 * Memory: what was made or loaded for a key in this process (a loaded
 * image, a dlopen handle), so a second use touches no disk. Thread-safe. */
#ifndef CM_CACHE_H
#define CM_CACHE_H

#include <stddef.h>

/* The folder, made at first use; NULL when none can be made (then
 * compilers work without keeping). Borrowed; the environment is read once. */
const char *cm_cache_dir(void);

/* "<folder>/<hex key>.<ext>" into buf: 0, or -1 when there is no folder. */
int cm_cache_path(const unsigned char key[32], const char *ext, char *buf, size_t len);

/* The value kept under key in this process, or NULL. Borrowed. */
void *cm_cache_find(const unsigned char key[32]);

/* Keeps value under key. drop (may be NULL) frees a value when it is
 * forgotten: value itself when key is kept already (the first value
 * stays), or at cm_cache_forget. Returns the value kept under key. */
void *cm_cache_keep(const unsigned char key[32], void *value, void (*drop)(void *));

/* Forgets the memory side of every compiler (the disk stays), as a new
 * process would see it. For tests and %reset. */
void cm_cache_forget(void);

#endif
