/*
 * warp_reduce.cu - warp-synchronous reductions and votes without shared
 * memory.
 *
 * Every warp computes, for its 32 inputs: the sum by a __shfl_down_sync tree
 * (lane 0 ends up with the total), the maximum by a __shfl_xor_sync butterfly
 * (every lane ends up with it), a __ballot_sync mask of positive values, and
 * two votes, __all_sync (all non-negative) and __any_sync (some zero). Lanes
 * past n stay in the warp with identity values, because the *_sync
 * intrinsics name all 32 lanes in their mask. Lane 0 writes the results.
 *
 * usage: warp_reduce [n] [block] [seed]     (block: multiple of 32)
 */
#include <limits.h>

#include "../common/example_host.cuh"
#include "warp_reduce_ref.h"

#define FULL_MASK 0xffffffffu

extern "C" __global__ void warp_stats(const int *in, int *warp_sum, int *warp_max,
                                      unsigned *warp_ballot, unsigned *warp_flags, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned lane = threadIdx.x % 32;
    const bool valid = i < n;
    const int v = valid ? in[i] : 0;

    int sum = v; /* 0 is the identity of + */
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(FULL_MASK, sum, offset);

    int best = valid ? v : INT_MIN; /* INT_MIN is the identity of max */
    for (int mask = 16; mask > 0; mask >>= 1)
        best = max(best, __shfl_xor_sync(FULL_MASK, best, mask));

    const unsigned positive = __ballot_sync(FULL_MASK, valid && v > 0);
    const int all_nonneg = __all_sync(FULL_MASK, !valid || v >= 0);
    const int any_zero = __any_sync(FULL_MASK, valid && v == 0);

    const unsigned warp = i / 32; /* blockDim is a multiple of 32 */
    if (lane == 0 && warp * 32 < n) {
        warp_sum[warp] = sum;
        warp_max[warp] = best;
        warp_ballot[warp] = positive;
        warp_flags[warp] = (all_nonneg ? 1u : 0u) | (any_zero ? 2u : 0u);
    }
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=10000] [block=128] [seed=1]");
    unsigned n = (unsigned)example_arg(argc, argv, 1, "n", 10000, 1, 1u << 26);
    unsigned block = (unsigned)example_arg(argc, argv, 2, "block", 128, 32, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 3, "seed", 1, 0, 0xffffffffu);
    if (block % 32 != 0) {
        fprintf(stderr, "%s: block must be a multiple of 32, got %u\n", argv[0], block);
        return EXAMPLE_EXIT_ERROR;
    }

    size_t warps = warp_reduce_warps(n);
    int *in = (int *)example_host_alloc((size_t)n * sizeof(int));
    int *sum = (int *)example_host_alloc(warps * sizeof(int));
    int *mx = (int *)example_host_alloc(warps * sizeof(int));
    unsigned *ballot = (unsigned *)example_host_alloc(warps * sizeof(unsigned));
    unsigned *flags = (unsigned *)example_host_alloc(warps * sizeof(unsigned));
    int *e_sum = (int *)example_host_alloc(warps * sizeof(int));
    int *e_max = (int *)example_host_alloc(warps * sizeof(int));
    unsigned *e_ballot = (unsigned *)example_host_alloc(warps * sizeof(unsigned));
    unsigned *e_flags = (unsigned *)example_host_alloc(warps * sizeof(unsigned));
    warp_reduce_init(in, n, seed);

    int *d_in, *d_sum, *d_max;
    unsigned *d_ballot, *d_flags;
    CUDA_CHECK(cudaMalloc((void **)&d_in, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d_sum, warps * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d_max, warps * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d_ballot, warps * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&d_flags, warps * sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));

    unsigned grid = example_div_up(n, block);
    warp_stats<<<grid, block>>>(d_in, d_sum, d_max, d_ballot, d_flags, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(sum, d_sum, warps * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(mx, d_max, warps * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(ballot, d_ballot, warps * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(flags, d_flags, warps * sizeof(unsigned), cudaMemcpyDeviceToHost));

    warp_reduce_ref(in, n, e_sum, e_max, e_ballot, e_flags);
    size_t mismatches = 0, all_true = 0;
    for (size_t w = 0; w < warps; ++w) {
        if (sum[w] != e_sum[w] || mx[w] != e_max[w] || ballot[w] != e_ballot[w] ||
            flags[w] != e_flags[w])
            ++mismatches;
        all_true += e_flags[w] & 1u;
    }

    printf("warp_reduce: n=%u warps=%zu grid=%u block=%u all_nonneg_warps=%zu "
           "mismatched_warps=%zu (exact comparison)\n", n, warps, grid, block, all_true,
           mismatches);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_sum));
    CUDA_CHECK(cudaFree(d_max));
    CUDA_CHECK(cudaFree(d_ballot));
    CUDA_CHECK(cudaFree(d_flags));
    free(in);
    free(sum);
    free(mx);
    free(ballot);
    free(flags);
    free(e_sum);
    free(e_max);
    free(e_ballot);
    free(e_flags);
    return example_verdict(mismatches == 0);
}
