/*
 * nested_loops.cu - a blocked 1D convolution with three levels of loops.
 *
 *   outer  (per block): tiles_per_block tiles of 2*blockDim outputs each; a
 *          barrier before the tile's input is staged in shared memory (the
 *          previous tile's readers must be done) and one after;
 *   middle (per thread): the outputs o = tid, tid + blockDim of the tile
 *          (trip count 2, fewer in the last, partial tile);
 *   inner  (per output): the ntaps-step fmaf chain over the filter, a loop
 *          of a single basic block (a self-loop in the CFG).
 * `#pragma unroll 1` on the middle and inner loops keeps nvcc from
 * unrolling them, so the nest survives in the PTX. The staging loop inside
 * the outer loop is a fourth, sibling loop. Taps and the input tile live in
 * one dynamic shared-memory array.
 *
 * usage: nested_loops [n] [ntaps] [block] [tiles_per_block] [seed]
 */
#include <math.h>

#include "../common/example_host.cuh"
#include "nested_loops_ref.h"

extern "C" __global__ void conv1d_blocked(const float *in, const float *taps, float *out, int n,
                                          int ntaps, int tiles_per_block)
{
    extern __shared__ float smem[];
    float *s_taps = smem;        /* ntaps floats */
    float *s_in = smem + ntaps;  /* tile_out + ntaps - 1 floats */
    const int tile_out = 2 * blockDim.x;
    const int tile_in = tile_out + ntaps - 1;
    const int in_len = n + ntaps - 1;

    for (int k = threadIdx.x; k < ntaps; k += blockDim.x)
        s_taps[k] = taps[k];

    const int block_first = blockIdx.x * tiles_per_block * tile_out;
    for (int tile = 0; tile < tiles_per_block; ++tile) {
        const int first = block_first + tile * tile_out;
        if (first >= n) /* same for every thread of the block: no barrier divergence */
            break;
        __syncthreads(); /* previous tile consumed (first pass: taps visible) */
        for (int j = threadIdx.x; j < tile_in; j += blockDim.x)
            s_in[j] = first + j < in_len ? in[first + j] : 0.0f;
        __syncthreads();

#pragma unroll 1
        for (int o = threadIdx.x; o < tile_out && first + o < n; o += blockDim.x) {
            float acc = 0.0f;
#pragma unroll 1
            for (int k = 0; k < ntaps; ++k)
                acc = fmaf(s_in[o + k], s_taps[k], acc);
            out[first + o] = acc;
        }
    }
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv,
                        "[n=5000] [ntaps=15] [block=128] [tiles_per_block=4] [seed=1]");
    int n = (int)example_arg(argc, argv, 1, "n", 5000, 1, 1 << 26);
    int ntaps = (int)example_arg(argc, argv, 2, "ntaps", 15, 1, 1024);
    unsigned block = (unsigned)example_arg(argc, argv, 3, "block", 128, 32, 1024);
    int tiles = (int)example_arg(argc, argv, 4, "tiles_per_block", 4, 1, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 5, "seed", 1, 0, 0xffffffffu);

    size_t in_len = nested_loops_input_len(n, ntaps);
    float *in = (float *)example_host_alloc(in_len * sizeof(float));
    float *taps = (float *)example_host_alloc((size_t)ntaps * sizeof(float));
    float *out = (float *)example_host_alloc((size_t)n * sizeof(float));
    float *expect = (float *)example_host_alloc((size_t)n * sizeof(float));
    nested_loops_init(in, taps, n, ntaps, seed);

    float *d_in, *d_taps, *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_in, in_len * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_taps, (size_t)ntaps * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, (size_t)n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, in, in_len * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_taps, taps, (size_t)ntaps * sizeof(float), cudaMemcpyHostToDevice));

    const unsigned outputs_per_block = (unsigned)tiles * 2 * block;
    unsigned grid = example_div_up(n, outputs_per_block);
    size_t shared = ((size_t)ntaps + 2 * block + ntaps - 1) * sizeof(float);
    if (shared > 48 * 1024) {
        fprintf(stderr, "%s: ntaps and block need %zu bytes of shared memory (max 49152)\n",
                argv[0], shared);
        return EXAMPLE_EXIT_ERROR;
    }
    conv1d_blocked<<<grid, block, shared>>>(d_in, d_taps, d_out, n, ntaps, tiles);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out, d_out, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));

    nested_loops_ref(in, taps, expect, n, ntaps);
    size_t mismatches = 0, inexact = 0;
    float max_err = 0.0f;
    for (int o = 0; o < n; ++o) {
        float err = fabsf(out[o] - expect[o]) / fmaxf(1.0f, fabsf(expect[o]));
        if (out[o] != expect[o])
            ++inexact;
        if (!(err <= NESTED_LOOPS_TOLERANCE))
            ++mismatches;
        if (err > max_err)
            max_err = err;
    }

    printf("nested_loops: n=%d ntaps=%d grid=%u block=%u tiles_per_block=%d shared=%zu "
           "mismatches=%zu not-bit-exact=%zu max_rel_err=%.3g (tol %.0e)\n",
           n, ntaps, grid, block, tiles, shared, mismatches, inexact, max_err,
           NESTED_LOOPS_TOLERANCE);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_taps));
    CUDA_CHECK(cudaFree(d_out));
    free(in);
    free(taps);
    free(out);
    free(expect);
    return example_verdict(mismatches == 0);
}
