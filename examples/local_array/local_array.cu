/*
 * local_array.cu - a per-thread array that must live in local memory.
 *
 * Each thread keeps 32 bucket counters in a private array and increments
 * counters[v % 32] for each of its `window` inputs. The index depends on the
 * data, so the compiler cannot keep the array in registers: it becomes a
 * .local array reached through the stack pointer (%SP / __local_depot),
 * and every update is a local load plus a local store whose address
 * differs between lanes. Inputs are read column-wise (in[j * n + i]), so
 * the global loads are coalesced. A final scan over the counters (constant
 * trip count 31) finds the most frequent bucket.
 *
 * usage: local_array [n] [window] [block] [seed]
 */
#include "../common/example_host.cuh"
#include "local_array_ref.h"

#define BUCKETS LOCAL_ARRAY_BUCKETS

extern "C" __global__ void local_mode(const unsigned *in, unsigned *mode, unsigned *count,
                                      unsigned n, unsigned window)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;

    unsigned counters[BUCKETS];
    for (int b = 0; b < BUCKETS; ++b)
        counters[b] = 0;
    for (unsigned j = 0; j < window; ++j)
        ++counters[in[j * n + i] % BUCKETS]; /* data-dependent index: local memory */

    unsigned best = 0;
    for (unsigned b = 1; b < BUCKETS; ++b)
        if (counters[b] > counters[best])
            best = b;
    mode[i] = best;
    count[i] = counters[best];
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=5000] [window=64] [block=128] [seed=1]");
    unsigned n = (unsigned)example_arg(argc, argv, 1, "n", 5000, 1, 1u << 24);
    unsigned window = (unsigned)example_arg(argc, argv, 2, "window", 64, 1, 4096);
    unsigned block = (unsigned)example_arg(argc, argv, 3, "block", 128, 32, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 4, "seed", 1, 0, 0xffffffffu);

    size_t in_bytes = (size_t)n * window * sizeof(unsigned);
    size_t out_bytes = (size_t)n * sizeof(unsigned);
    unsigned *in = (unsigned *)example_host_alloc(in_bytes);
    unsigned *mode = (unsigned *)example_host_alloc(out_bytes);
    unsigned *count = (unsigned *)example_host_alloc(out_bytes);
    unsigned *e_mode = (unsigned *)example_host_alloc(out_bytes);
    unsigned *e_count = (unsigned *)example_host_alloc(out_bytes);
    local_array_init(in, n, window, seed);

    unsigned *d_in, *d_mode, *d_count;
    CUDA_CHECK(cudaMalloc((void **)&d_in, in_bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_mode, out_bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_count, out_bytes));
    CUDA_CHECK(cudaMemcpy(d_in, in, in_bytes, cudaMemcpyHostToDevice));

    unsigned grid = example_div_up(n, block);
    local_mode<<<grid, block>>>(d_in, d_mode, d_count, n, window);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(mode, d_mode, out_bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(count, d_count, out_bytes, cudaMemcpyDeviceToHost));

    local_array_ref(in, e_mode, e_count, n, window);
    size_t mismatches = 0;
    for (unsigned i = 0; i < n; ++i)
        if (mode[i] != e_mode[i] || count[i] != e_count[i])
            ++mismatches;

    printf("local_array: n=%u window=%u grid=%u block=%u mismatches=%zu (exact comparison)\n", n,
           window, grid, block, mismatches);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_mode));
    CUDA_CHECK(cudaFree(d_count));
    free(in);
    free(mode);
    free(count);
    free(e_mode);
    free(e_count);
    return example_verdict(mismatches == 0);
}
