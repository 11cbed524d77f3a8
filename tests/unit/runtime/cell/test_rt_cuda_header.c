/* test_rt_cuda_header: the CUDA runtime API host cells see is NVIDIA's
 * cuda_runtime_api.h made C-ready where the toolkit's matches the loaded
 * libcudart, else gpuc's subset; cells that name nothing of CUDA's get the
 * subset; both carry dim3 and the vector types with nvcc's alignment. */
#include <string.h>

#include "check.h"
#include "rt_cuda_header.h"

static void test_header(void)
{
    const char *h = rt_cuda_header(1);
    if (strstr(rt_cuda_header_source(), "cuda_runtime_api.h"))
        CHECK(strstr(h, "/cuda_runtime_api.h\"") &&
              strstr(h, "#define __gpuc_cudaEventRecord_1(a0) __gpuc_fn_cudaEventRecord((a0), 0)") &&
              rt_cuda_include_dir() != NULL);
    else
        CHECK(strstr(h, "cudaError_t cudaMalloc(void *devPtr, size_t size);") &&
              strstr(h, "struct cudaDeviceProp { char name[256];") &&
              rt_cuda_include_dir() == NULL);
    CHECK(strstr(h, "typedef struct dim3 { unsigned int x, y, z;\n#ifdef __cplusplus\n"));
    CHECK(strstr(h, "typedef struct float4 { _Alignas(16) float x; float y, z, w; } float4;"));
    /* cells that name nothing of CUDA's get gpuc's subset, and the same types */
    const char *lean = rt_cuda_header(0);
    CHECK(strstr(lean, "cudaError_t cudaMalloc(void *devPtr, size_t size);") &&
          !strstr(lean, "/cuda_runtime_api.h\"") &&
          strstr(lean, "typedef struct dim3 { unsigned int x, y, z;\n#ifdef __cplusplus\n"));
    CHECK(rt_cuda_header(1) == h); /* made once */
}

int main(void)
{
    test_header();
    return check_report("test_rt_cuda_header");
}
