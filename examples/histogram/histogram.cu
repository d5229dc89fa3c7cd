/*
 * histogram.cu - 256-bin byte histogram in two levels of atomics.
 *
 * Each block first clears a private histogram in shared memory, then walks
 * the input with a grid-stride loop doing atomicAdd on shared bins (cheap,
 * but lanes that hit the same bin serialise; the input is skewed so they
 * do), and finally merges its non-zero bins into the global histogram with
 * one global atomicAdd per bin. Input loads are single bytes (u8).
 *
 * usage: histogram [n] [block] [max_blocks] [seed]
 */
#include "../common/example_host.cuh"
#include "histogram_ref.h"

extern "C" __global__ void histogram256(const unsigned char *data, unsigned n, unsigned *bins)
{
    __shared__ unsigned local_bins[HISTOGRAM_BINS];

    for (unsigned b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x)
        local_bins[b] = 0;
    __syncthreads();

    const unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local_bins[data[i]], 1u);
    __syncthreads();

    for (unsigned b = threadIdx.x; b < HISTOGRAM_BINS; b += blockDim.x) {
        const unsigned count = local_bins[b];
        if (count != 0) /* skip the global atomic for empty bins */
            atomicAdd(&bins[b], count);
    }
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=200000] [block=256] [max_blocks=64] [seed=1]");
    unsigned n = (unsigned)example_arg(argc, argv, 1, "n", 200000, 1, 1u << 30);
    unsigned block = (unsigned)example_arg(argc, argv, 2, "block", 256, 32, 1024);
    unsigned max_blocks = (unsigned)example_arg(argc, argv, 3, "max_blocks", 64, 1, 65535);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 4, "seed", 1, 0, 0xffffffffu);

    unsigned char *data = (unsigned char *)example_host_alloc(n);
    unsigned bins[HISTOGRAM_BINS];
    uint32_t expect[HISTOGRAM_BINS];
    histogram_init(data, n, seed);

    unsigned char *d_data;
    unsigned *d_bins;
    CUDA_CHECK(cudaMalloc((void **)&d_data, n));
    CUDA_CHECK(cudaMalloc((void **)&d_bins, sizeof(bins)));
    CUDA_CHECK(cudaMemcpy(d_data, data, n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d_bins, 0, sizeof(bins)));

    /* Enough blocks to cover n once, capped: the grid-stride loop does the rest. */
    unsigned grid = example_div_up(n, block);
    if (grid > max_blocks)
        grid = max_blocks;
    histogram256<<<grid, block>>>(d_data, n, d_bins);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(bins, d_bins, sizeof(bins), cudaMemcpyDeviceToHost));

    histogram_ref(data, n, expect);
    unsigned mismatches = 0, fullest = 0;
    for (unsigned v = 0; v < HISTOGRAM_BINS; ++v) {
        if (bins[v] != expect[v])
            ++mismatches;
        if (expect[v] > expect[fullest])
            fullest = v;
    }

    printf("histogram: n=%u grid=%u block=%u fullest_bin=%u (%u) mismatched_bins=%u "
           "(exact comparison)\n", n, grid, block, fullest, expect[fullest], mismatches);
    CUDA_CHECK(cudaFree(d_data));
    CUDA_CHECK(cudaFree(d_bins));
    free(data);
    return example_verdict(mismatches == 0);
}
