/*
 * reduce_seq.cu - per-block sum reduction with sequential addressing, the
 * bank-conflict-free counterpart of reduce_conflict.
 *
 * Each block of BLOCK threads first adds two elements per thread while
 * loading (2*BLOCK elements per block), then halves the active range each
 * step: thread t < s adds sdata[t + s]. Active threads stay contiguous, so
 * whole warps retire together and consecutive lanes hit consecutive banks.
 *
 * The kernel is a template instantiated explicitly for 128 and 256 threads;
 * BLOCK is a compile-time constant, so the shared array is static and nvcc
 * unrolls the tree. Its PTX names are C++-mangled.
 *
 * usage: reduce_seq [n] [block] [seed]     (block: 128 or 256)
 */
#include "../common/example_host.cuh"
#include "reduce_seq_ref.h"

template <unsigned BLOCK>
__global__ void reduce_seq(const float *in, float *partial, unsigned n)
{
    __shared__ float sdata[BLOCK];
    const unsigned tid = threadIdx.x;
    const unsigned i = blockIdx.x * (2 * BLOCK) + tid;

    float v = 0.0f;
    if (i < n)
        v = in[i];
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        partial[blockIdx.x] = sdata[0];
}

/* Explicit instantiations: these are the kernels that appear in the PTX. */
template __global__ void reduce_seq<128>(const float *, float *, unsigned);
template __global__ void reduce_seq<256>(const float *, float *, unsigned);

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=100000] [block=256 (128|256)] [seed=1]");
    unsigned n = (unsigned)example_arg(argc, argv, 1, "n", 100000, 1, 1u << 28);
    unsigned block = (unsigned)example_arg(argc, argv, 2, "block", 256, 128, 256);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 3, "seed", 1, 0, 0xffffffffu);
    if (block != 128 && block != 256) {
        fprintf(stderr, "%s: block must be 128 or 256, got %u\n", argv[0], block);
        return EXAMPLE_EXIT_ERROR;
    }

    unsigned grid = (unsigned)reduce_seq_blocks(n, block);
    float *in = (float *)example_host_alloc((size_t)n * sizeof(float));
    float *partial = (float *)example_host_alloc((size_t)grid * sizeof(float));
    float *expect = (float *)example_host_alloc((size_t)grid * sizeof(float));
    reduce_seq_init(in, n, seed);

    float *d_in, *d_partial;
    CUDA_CHECK(cudaMalloc((void **)&d_in, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_partial, (size_t)grid * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, in, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));

    if (block == 128)
        reduce_seq<128><<<grid, 128>>>(d_in, d_partial, n);
    else
        reduce_seq<256><<<grid, 256>>>(d_in, d_partial, n);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(partial, d_partial, (size_t)grid * sizeof(float), cudaMemcpyDeviceToHost));

    /* The reference replays the tree order: partials must match exactly. */
    reduce_seq_ref(in, expect, n, block);
    size_t mismatches = 0;
    double total = 0.0;
    for (unsigned b = 0; b < grid; ++b) {
        if (partial[b] != expect[b])
            ++mismatches;
        total += partial[b];
    }

    printf("reduce_seq: n=%u grid=%u block=%u sum=%.6f mismatched_partials=%zu "
           "(exact comparison)\n", n, grid, block, total, mismatches);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_partial));
    free(in);
    free(partial);
    free(expect);
    return example_verdict(mismatches == 0);
}
