/*
 * vecadd.cu - element-wise vector addition, the smallest useful kernel:
 * one thread per element, fully coalesced loads and stores, a single bounds
 * check as the only branch.
 *
 * usage: vecadd [n] [block] [seed]
 */
#include "../common/example_host.cuh"
#include "vecadd_ref.h"

extern "C" __global__ void vecadd(const float *a, const float *b, float *c, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) /* the last block is partial when n is not a multiple of blockDim */
        c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=100000] [block=256] [seed=1]");
    unsigned n = (unsigned)example_arg(argc, argv, 1, "n", 100000, 1, 1u << 28);
    unsigned block = (unsigned)example_arg(argc, argv, 2, "block", 256, 32, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 3, "seed", 1, 0, 0xffffffffu);

    size_t bytes = (size_t)n * sizeof(float);
    float *a = (float *)example_host_alloc(bytes);
    float *b = (float *)example_host_alloc(bytes);
    float *c = (float *)example_host_alloc(bytes);
    float *expect = (float *)example_host_alloc(bytes);
    vecadd_init(a, b, n, seed);

    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_c, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, a, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, bytes, cudaMemcpyHostToDevice));

    unsigned grid = example_div_up(n, block);
    vecadd<<<grid, block>>>(d_a, d_b, d_c, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(c, d_c, bytes, cudaMemcpyDeviceToHost));

    /* Exact comparison: one correctly rounded addition on both sides. */
    vecadd_ref(a, b, expect, n);
    size_t mismatches = 0;
    for (size_t i = 0; i < n; ++i)
        if (c[i] != expect[i])
            ++mismatches;

    printf("vecadd: n=%u grid=%u block=%u mismatches=%zu (exact comparison)\n", n, grid, block,
           mismatches);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(a);
    free(b);
    free(c);
    free(expect);
    return example_verdict(mismatches == 0);
}
