/*
 * reduce_conflict.cu - per-block sum reduction in shared memory with
 * interleaved addressing, the textbook example of shared-memory bank
 * conflicts.
 *
 * At step s (1, 2, 4, ...) the active threads are t = 0 .. blockDim/(2s)-1
 * and thread t updates sdata[2*s*t]. Consecutive threads of a warp therefore
 * touch words 2s apart: a 2-way bank conflict at s = 1, 4-way at s = 2, up to
 * 32-way, while the number of active threads halves each step (warps go
 * partially and then entirely idle). The shared array is dynamic
 * (extern __shared__), sized at launch.
 *
 * usage: reduce_conflict [n] [block] [seed]     (block: power of two, 32..1024)
 */
#include <math.h>

#include "../common/example_host.cuh"
#include "reduce_conflict_ref.h"

extern "C" __global__ void reduce_interleaved(const float *in, float *partial, unsigned n)
{
    extern __shared__ float sdata[]; /* blockDim.x floats */
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * blockDim.x + tid;

    sdata[tid] = (i < n) ? in[i] : 0.0f;
    __syncthreads();

    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid; /* stride 2s between neighbours */
        if (index < blockDim.x)
            sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=100000] [block=256] [seed=1]");
    unsigned n = (unsigned)example_arg(argc, argv, 1, "n", 100000, 1, 1u << 28);
    unsigned block = (unsigned)example_arg(argc, argv, 2, "block", 256, 32, REDUCE_CONFLICT_MAX_BLOCK);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 3, "seed", 1, 0, 0xffffffffu);
    if ((block & (block - 1)) != 0) {
        fprintf(stderr, "%s: block must be a power of two, got %u\n", argv[0], block);
        return EXAMPLE_EXIT_ERROR;
    }

    unsigned grid = example_div_up(n, block);
    float *in = (float *)example_host_alloc((size_t)n * sizeof(float));
    float *partial = (float *)example_host_alloc((size_t)grid * sizeof(float));
    float *expect = (float *)example_host_alloc((size_t)grid * sizeof(float));
    reduce_conflict_init(in, n, seed);

    float *d_in, *d_partial;
    CUDA_CHECK(cudaMalloc((void **)&d_in, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_partial, (size_t)grid * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));

    reduce_interleaved<<<grid, block, block * sizeof(float)>>>(d_in, d_partial, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(partial, d_partial, (size_t)grid * sizeof(float), cudaMemcpyDeviceToHost));

    /* The reference replays the tree order: partials must match exactly. */
    reduce_conflict_ref(in, expect, n, block);
    size_t mismatches = 0;
    double total = 0.0;
    for (unsigned b = 0; b < grid; ++b) {
        if (partial[b] != expect[b])
            ++mismatches;
        total += partial[b];
    }

    printf("reduce_conflict: n=%u grid=%u block=%u sum=%.6f mismatched_partials=%zu "
           "(exact comparison)\n", n, grid, block, total, mismatches);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_partial));
    free(in);
    free(partial);
    free(expect);
    return example_verdict(mismatches == 0);
}
