// Streams and events: chunks copied and processed on several streams
// from pinned memory, timed with events.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *d, int n, float f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] *= f;
}

int main()
{
    const int nstreams = 4, chunk = 1 << 16, n = nstreams * chunk;
    float *h, *d;
    cudaMallocHost(&h, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    for (int i = 0; i < n; i++) h[i] = (float)(i % 100);
    cudaStream_t s[nstreams];
    for (int k = 0; k < nstreams; k++) cudaStreamCreate(&s[k]);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start);
    for (int k = 0; k < nstreams; k++) {
        int off = k * chunk;
        cudaMemcpyAsync(d + off, h + off, chunk * sizeof(float), cudaMemcpyHostToDevice, s[k]);
        scale<<<chunk / 256, 256, 0, s[k]>>>(d + off, chunk, (float)(k + 1));
        cudaMemcpyAsync(h + off, d + off, chunk * sizeof(float), cudaMemcpyDeviceToHost, s[k]);
    }
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = -1;
    cudaEventElapsedTime(&ms, start, stop);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += h[i];
    printf("sum = %.0f\n", sum);
    printf("h[5] = %.0f, h[chunk + 5] = %.0f, h[n - 1] = %.0f\n", h[5], h[chunk + 5], h[n - 1]);
    printf("elapsed time measured: %s\n", ms >= 0 ? "yes" : "no");
    for (int k = 0; k < nstreams; k++) cudaStreamDestroy(s[k]);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaFreeHost(h);
    cudaFree(d);
    return 0;
}
