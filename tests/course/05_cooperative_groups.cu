// Cooperative groups as a course introduces them: a block-wide reduction
// through thread_group, with `using namespace cooperative_groups;`.
#include <cstdio>
#include <cooperative_groups.h>
using namespace cooperative_groups;

__device__ int reduce_sum(thread_group g, int *temp, int val)
{
    int lane = g.thread_rank();
    for (int i = g.size() / 2; i > 0; i /= 2) {
        temp[lane] = val;
        g.sync();
        if (lane < i) val += temp[lane + i];
        g.sync();
    }
    return val;
}

__global__ void sum_kernel(const int *input, int *sums, int n)
{
    extern __shared__ int temp[];
    thread_block block = this_thread_block();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? input[i] : 0;
    int s = reduce_sum(block, temp, v);
    if (block.thread_rank() == 0) sums[blockIdx.x] = s;
}

int main()
{
    const int n = 1 << 16, threads = 256, blocks = n / threads;
    int *input, *sums;
    cudaMallocManaged(&input, n * sizeof(int));
    cudaMallocManaged(&sums, blocks * sizeof(int));
    for (int i = 0; i < n; i++) input[i] = i % 10;
    sum_kernel<<<blocks, threads, threads * sizeof(int)>>>(input, sums, n);
    cudaDeviceSynchronize();
    long total = 0;
    for (int b = 0; b < blocks; b++) total += sums[b];
    printf("block 0 sum = %d, block 255 sum = %d\n", sums[0], sums[blocks - 1]);
    printf("total = %ld\n", total);
    cudaFree(input); cudaFree(sums);
    return 0;
}
