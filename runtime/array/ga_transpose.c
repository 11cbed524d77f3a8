/* ga_transpose: tiled transposed copies on a GPU (see ga_transpose.h). */
#include "ga_transpose.h"

#include <stdio.h>
#include <stdlib.h>

#include "bk.h"
#include "cm_buf.h"
#include "ga_kernel.h"

#define TILE 32
#define ROWS 8 /* a block is TILE x ROWS threads: each moves TILE / ROWS elements */

/* Elements of `bytes` bytes, moved as bits. */
static char *make_source(void *ctx)
{
    int bytes = *(int *)ctx;
    cm_buf_t b = {0};
    cm_buf_addf(&b, "typedef %s ga_t;\n", ga_kernel_bits(bytes));
    /* in: batch of matrices stored C x R (the view's rows run along in's
     * rows); out: batch of R x C. The tile's row is padded by one so that
     * a column of it falls in 32 different banks. */
    cm_buf_addf(&b,
                "GA_KERNEL ga_transpose(long long batch, long long r, long long c,"
                " const ga_t *GA_RESTRICT in, ga_t *GA_RESTRICT out)\n"
                "{\n"
                "    __shared__ ga_t tile[%d][%d];\n"
                "    long long r0 = (long long)blockIdx.y * %d, c0 = (long long)blockIdx.x * %d;\n"
                "    for (long long m = blockIdx.z; m < batch; m += gridDim.z) {\n"
                "        const ga_t *src = in + m * r * c;\n"
                "        ga_t *dst = out + m * r * c;\n"
                "        long long i = r0 + threadIdx.x;\n"
                "        for (int k = threadIdx.y; k < %d; k += %d) {\n"
                "            long long j = c0 + k;\n"
                "            if (i < r && j < c)\n"
                "                tile[k][threadIdx.x] = src[j * r + i];\n"
                "        }\n"
                "        __syncthreads();\n"
                "        long long j = c0 + threadIdx.x;\n"
                "        for (int k = threadIdx.y; k < %d; k += %d) {\n"
                "            long long ii = r0 + k;\n"
                "            if (ii < r && j < c)\n"
                "                dst[ii * c + j] = tile[threadIdx.x][k];\n"
                "        }\n"
                "        __syncthreads();\n"
                "    }\n"
                "}\n",
                TILE, TILE + 1, TILE, TILE, TILE, ROWS, TILE, ROWS);
    return cm_buf_steal(&b);
}

char *ga_transpose_source(int bytes)
{
    return ga_kernel_source(make_source, &bytes);
}

/* a: the last two axes swapped over a contiguous batch (see the header). */
static int is_transposed(const ga_array_t *a, int64_t *batch)
{
    int nd = a->ndim;
    if (nd < 2 || a->size == 0)
        return 0;
    int64_t r = a->shape[nd - 2], c = a->shape[nd - 1];
    if (r < 2 || c < 2 || a->strides[nd - 2] != 1 || a->strides[nd - 1] != r)
        return 0;
    int64_t step = r * c;
    *batch = 1;
    for (int k = nd - 3; k >= 0; k--) {
        if (a->shape[k] != 1 && a->strides[k] != step)
            return 0;
        step *= a->shape[k];
        *batch *= a->shape[k];
    }
    return 1;
}

int ga_transpose_copy(ga_array_t *dst, const ga_array_t *a, cm_error_t *err)
{
    int64_t batch = 0;
    int bytes = (int)ga_dtype_size(a->dtype);
    if (bk_lang(a->device) != BK_LANG_CUDA || bk_host_memory(a->device) || !is_transposed(a, &batch) ||
        (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8 && bytes != 16))
        return 0;
    int64_t r = a->shape[a->ndim - 2], c = a->shape[a->ndim - 1];
    int64_t tr = (r + TILE - 1) / TILE, tc = (c + TILE - 1) / TILE;
    if (tr > 65535 || tc > (int64_t)0x7fffffff)
        return 0; /* past a grid's y: the copy kernel does it */
    char sig[16];
    snprintf(sig, sizeof sig, "%d", bytes);
    void *fn = ga_kernel_get(a->device, sig, "ga_transpose", make_source, &bytes, err);
    if (!fn)
        return -1;
    unsigned grid[3] = {(unsigned)tc, (unsigned)tr, (unsigned)(batch < 65535 ? batch : 65535)};
    unsigned block[3] = {TILE, ROWS, 1};
    long long nb = batch, nr = r, nc = c;
    void *in = ga_array_data(a), *out = ga_array_data(dst);
    void *args[5] = {&nb, &nr, &nc, &in, &out};
    return ga_kernel_launch_grid(a->device, fn, grid, block, 0, args, "transpose", err) ? -1 : 1;
}
