// Thrust: sort, reduce and transform on device vectors.
#include <cstdio>
#include <cstdlib>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/functional.h>
#include <thrust/sequence.h>

struct square {
    __host__ __device__ int operator()(int x) const { return x * x; }
};

int main()
{
    const int n = 100000;
    thrust::host_vector<int> h(n);
    srand(7);
    for (int i = 0; i < n; i++) h[i] = rand() % 1000;
    thrust::device_vector<int> d = h;
    thrust::sort(d.begin(), d.end());
    long sum = thrust::reduce(d.begin(), d.end(), 0L, thrust::plus<long>());
    thrust::device_vector<int> sq(n);
    thrust::transform(d.begin(), d.end(), sq.begin(), square());
    long sumsq = thrust::reduce(sq.begin(), sq.end(), 0L);
    int first = d[0], last = d[n - 1];
    thrust::device_vector<int> seq(10);
    thrust::sequence(seq.begin(), seq.end(), 5);
    printf("min %d, max %d, sum %ld, sum of squares %ld\n", first, last, sum, sumsq);
    printf("sorted: %s\n", thrust::is_sorted(d.begin(), d.end()) ? "yes" : "no");
    printf("sequence: %d .. %d\n", (int)seq[0], (int)seq[9]);
    return 0;
}
