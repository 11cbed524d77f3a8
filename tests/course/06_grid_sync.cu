// A grid-wide barrier through cooperative groups: the kernel is launched
// with cudaLaunchCooperativeKernel, as the programming guide shows.
#include <cstdio>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__global__ void two_phase(int *data, int *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    int i = grid.thread_rank();
    if (i < n) data[i] = i * 2;
    grid.sync();                       // every block's writes are seen now
    if (i < n) out[i] = data[(i + 1) % n] + data[i];
}

int main()
{
    int dev = 0, supported = 0;
    cudaDeviceGetAttribute(&supported, cudaDevAttrCooperativeLaunch, dev);
    printf("cooperative launch supported: %s\n", supported ? "yes" : "no");
    const int threads = 128, blocks = 8, n = threads * blocks;
    int *data, *out;
    cudaMallocManaged(&data, n * sizeof(int));
    cudaMallocManaged(&out, n * sizeof(int));
    int nn = n;
    void *args[] = {&data, &out, &nn};
    cudaError_t e = cudaLaunchCooperativeKernel((void *)two_phase, blocks, threads, args);
    printf("launch: %s\n", cudaGetErrorString(e));
    e = cudaDeviceSynchronize();
    printf("sync: %s\n", cudaGetErrorString(e));
    printf("out[0] = %d, out[127] = %d, out[128] = %d, out[n-1] = %d\n", out[0], out[127],
           out[128], out[n - 1]);
    cudaFree(data); cudaFree(out);
    return 0;
}
