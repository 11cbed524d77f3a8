// CUB's device-wide reduction, with its two-call temporary storage idiom.
#include <cstdio>
#include <cub/cub.cuh>

int main()
{
    const int n = 1 << 20;
    int *h = new int[n];
    for (int i = 0; i < n; i++) h[i] = (i * 37) % 101 - 50;
    int *d_in, *d_out;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_out, sizeof(int));
    cudaMemcpy(d_in, h, n * sizeof(int), cudaMemcpyHostToDevice);
    void *temp = nullptr;
    size_t temp_bytes = 0;
    cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n);
    cudaMalloc(&temp, temp_bytes);
    cub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n);
    int sum = 0;
    cudaMemcpy(&sum, d_out, sizeof(int), cudaMemcpyDeviceToHost);
    long ref = 0;
    for (int i = 0; i < n; i++) ref += h[i];
    printf("sum %d, reference %ld, %s\n", sum, ref, sum == ref ? "equal" : "DIFFERENT");
    cudaFree(d_in); cudaFree(d_out); cudaFree(temp);
    delete[] h;
    return 0;
}
