// Several GPUs as courses loop over them: each device fills its share; a
// machine with one device (or the simulator) runs the same loop once.
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void fill(int *p, int n, int base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}

int main()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
        printf("no CUDA device\n");
        return 1;
    }
    const int total = 1 << 16;
    int used = count > 4 ? 4 : count;
    int share = total / used;
    std::vector<int *> parts(used);
    for (int dev = 0; dev < used; dev++) {
        cudaSetDevice(dev);
        cudaMalloc(&parts[dev], share * sizeof(int));
        fill<<<(share + 255) / 256, 256>>>(parts[dev], share, dev * share);
    }
    std::vector<int> all(total);
    for (int dev = 0; dev < used; dev++) {
        cudaSetDevice(dev);
        cudaMemcpy(all.data() + dev * share, parts[dev], share * sizeof(int), cudaMemcpyDeviceToHost);
        cudaFree(parts[dev]);
    }
    cudaSetDevice(0);
    long sum = 0;
    int ok = 1;
    for (int i = 0; i < total; i++) {
        sum += all[i];
        ok &= all[i] == i;
    }
    printf("filled %d values on the devices: %s, sum %ld\n", total, ok ? "in order" : "WRONG", sum);
    return 0;
}
