/*
 * tid_loop.cu - a loop whose trip count depends on the thread index.
 *
 * Thread t iterates t % 7 + 1 times, so the 32 lanes of a warp want 1..7
 * iterations: after the first iteration some lanes leave the loop while the
 * others continue, and the warp only reconverges when the longest lane is
 * done (SIMT efficiency of this loop: 4/7 of the lanes busy on average).
 * The body is a multiplicative hash step, a recurrence the compiler cannot
 * replace with a closed form, and `#pragma unroll 1` keeps it a plain loop
 * so the trip-count distribution is visible at the PTX level.
 *
 * usage: tid_loop [n] [block] [seed]
 */
#include "../common/example_host.cuh"
#include "tid_loop_ref.h"

extern "C" __global__ void tid_dependent_loop(const unsigned *in, unsigned *out, unsigned n)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned trips = threadIdx.x % TID_LOOP_PERIOD + 1;
    const unsigned x = in[i];
    unsigned acc = 0;
#pragma unroll 1
    for (unsigned k = 0; k < trips; ++k)
        acc = acc * 33u + (x ^ k);
    out[i] = acc;
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=10000] [block=128] [seed=1]");
    unsigned n = (unsigned)example_arg(argc, argv, 1, "n", 10000, 1, 1u << 28);
    unsigned block = (unsigned)example_arg(argc, argv, 2, "block", 128, 1, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 3, "seed", 1, 0, 0xffffffffu);

    size_t bytes = (size_t)n * sizeof(unsigned);
    unsigned *in = (unsigned *)example_host_alloc(bytes);
    unsigned *out = (unsigned *)example_host_alloc(bytes);
    unsigned *expect = (unsigned *)example_host_alloc(bytes);
    tid_loop_init(in, n, seed);

    unsigned *d_in, *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice));

    unsigned grid = example_div_up(n, block);
    tid_dependent_loop<<<grid, block>>>(d_in, d_out, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost));

    tid_loop_ref(in, expect, n, block);
    size_t mismatches = 0;
    for (unsigned i = 0; i < n; ++i)
        if (out[i] != expect[i])
            ++mismatches;

    printf("tid_loop: n=%u grid=%u block=%u mismatches=%zu (exact comparison)\n", n, grid, block,
           mismatches);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(in);
    free(out);
    free(expect);
    return example_verdict(mismatches == 0);
}
