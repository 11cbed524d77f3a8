// Vector addition, as the first lesson of a CUDA course writes it.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t e = (call);                                            \
        if (e != cudaSuccess) {                                            \
            fprintf(stderr, "CUDA error %s at line %d\n",                  \
                    cudaGetErrorString(e), __LINE__);                      \
            exit(1);                                                       \
        }                                                                  \
    } while (0)

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main(void)
{
    const int n = 1 << 20;
    size_t bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes), *h_b = (float *)malloc(bytes), *h_c = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) {
        h_a[i] = i * 0.5f;
        h_b[i] = i * 0.25f;
    }
    float *d_a, *d_b, *d_c;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_c, bytes));
    CHECK(cudaMemcpy(d_a, h_a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, h_b, bytes, cudaMemcpyHostToDevice));
    int threads = 256, blocks = (n + threads - 1) / threads;
    vector_add<<<blocks, threads>>>(d_a, d_b, d_c, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_c, d_c, bytes, cudaMemcpyDeviceToHost));
    int errors = 0;
    for (int i = 0; i < n; i++)
        if (h_c[i] != i * 0.75f)
            errors++;
    printf("blocks %d, threads %d\n", blocks, threads);
    printf("c[0] = %.2f, c[1000] = %.2f, c[n-1] = %.2f\n", h_c[0], h_c[1000], h_c[n - 1]);
    printf("%s (%d errors)\n", errors ? "FAILED" : "PASSED", errors);
    cudaFree(d_a); cudaFree(d_b); cudaFree(d_c);
    free(h_a); free(h_b); free(h_c);
    return 0;
}
