// CUDA graphs: a stream's work captured once, instantiated with the
// NULL arguments of the older five-argument form, and launched many times.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add_one(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

__global__ void twice(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2;
}

int main()
{
    const int n = 4096;
    int *d, h[n];
    cudaMalloc(&d, n * sizeof(int));
    cudaMemset(d, 0, n * sizeof(int));
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaGraph_t graph;
    cudaGraphExec_t instance;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    add_one<<<n / 256, 256, 0, stream>>>(d, n);
    twice<<<n / 256, 256, 0, stream>>>(d, n);
    cudaStreamEndCapture(stream, &graph);
    cudaError_t e = cudaGraphInstantiate(&instance, graph, NULL, NULL, 0);
    printf("instantiate: %s\n", cudaGetErrorString(e));
    for (int step = 0; step < 5; step++)
        cudaGraphLaunch(instance, stream);
    cudaStreamSynchronize(stream);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("after 5 launches: x[0] = %d, x[n-1] = %d\n", h[0], h[n - 1]);
    cudaGraphExecDestroy(instance);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    cudaFree(d);
    return 0;
}
