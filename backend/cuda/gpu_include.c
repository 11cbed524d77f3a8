/* gpu_include: where the CUDA toolkit's headers are (<cuda_fp16.h>,
 * <curand_kernel.h>, CCCL), as the options of the compiles that need them:
 * NVRTC's (kernel cells, gpu_compile; gpuc's own kernels, gpu_program) and
 * g++'s for the simulator (gpu_compile, gpu_module). Calls no other policy
 * file, so the compile and the module registry both reach down to it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gpu_internal.h"
#include "gpu_nvrtc.h"

/* The CUDA include folder, for <cuda_fp16.h> and friends: next to NVRTC,
 * else $CUDA_HOME/include, else /usr/local/cuda/include. */
const char *gpu_include_dir(const gpu_nvrtc_t *nv)
{
    static char found[600];
    static int tried;
    if (tried)
        return found[0] ? found : NULL;
    tried = 1;
    char cand[3][600] = {{0}};
    const char *slash = nv ? strrchr(nv->path, '/') : NULL;
    if (slash)
        snprintf(cand[0], sizeof cand[0], "%.*s/../include", (int)(slash - nv->path), nv->path);
    const char *home = getenv("CUDA_HOME");
    if (home && *home)
        snprintf(cand[1], sizeof cand[1], "%s/include", home);
    snprintf(cand[2], sizeof cand[2], "/usr/local/cuda/include");
    for (int i = 0; i < 3; i++) {
        char probe[1024];
        struct stat st;
        if (!cand[i][0])
            continue;
        snprintf(probe, sizeof probe, "%.600s/cuda_fp16.h", cand[i]);
        if (stat(probe, &st) == 0) {
            char *real = realpath(cand[i], NULL);
            snprintf(found, sizeof found, "%.590s", real ? real : cand[i]);
            free(real);
            return found;
        }
    }
    return NULL;
}

int gpu_include_options(const gpu_nvrtc_t *nv, char opts[2][640])
{
    const char *inc = gpu_include_dir(nv);
    if (!inc)
        return 0;
    snprintf(opts[0], sizeof opts[0], "-I%.600s", inc);
    char cccl[700];
    struct stat st;
    snprintf(cccl, sizeof cccl, "%.600s/cccl", inc);
    if (stat(cccl, &st) != 0 || !S_ISDIR(st.st_mode))
        return 1;
    snprintf(opts[1], sizeof opts[1], "-I%.600s/cccl", inc);
    return 2;
}

void gpu_include_sim_options(const char *options, cm_buf_t *out)
{
    cm_buf_adds(out, options ? options : "");
    const char *inc = gpu_include_dir(NULL);
    if (inc)
        cm_buf_addf(out, " -I%s", inc);
}
