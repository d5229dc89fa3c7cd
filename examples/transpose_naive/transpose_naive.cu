/*
 * transpose_naive.cu - matrix transpose with one thread per element and no
 * staging: reads are coalesced (consecutive threadIdx.x read consecutive
 * columns of a row) but writes are strided by `rows` floats, so each warp's
 * store touches up to 32 different memory segments. Compare with
 * transpose_shared, which fixes the writes through shared memory.
 *
 * usage: transpose_naive [rows] [cols] [block_x] [block_y] [seed]
 */
#include "../common/example_host.cuh"
#include "transpose_naive_ref.h"

extern "C" __global__ void transpose_naive(const float *in, float *out, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols)
        out[c * rows + r] = in[r * cols + c]; /* write stride = rows */
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[rows=300] [cols=200] [block_x=16] [block_y=16] [seed=1]");
    int rows = (int)example_arg(argc, argv, 1, "rows", 300, 1, 16384);
    int cols = (int)example_arg(argc, argv, 2, "cols", 200, 1, 16384);
    unsigned bx = (unsigned)example_arg(argc, argv, 3, "block_x", 16, 1, 1024);
    unsigned by = (unsigned)example_arg(argc, argv, 4, "block_y", 16, 1, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 5, "seed", 1, 0, 0xffffffffu);
    if (bx * by > 1024) {
        fprintf(stderr, "%s: block_x * block_y must be at most 1024\n", argv[0]);
        return EXAMPLE_EXIT_ERROR;
    }

    size_t count = (size_t)rows * cols;
    float *in = (float *)example_host_alloc(count * sizeof(float));
    float *out = (float *)example_host_alloc(count * sizeof(float));
    float *expect = (float *)example_host_alloc(count * sizeof(float));
    transpose_naive_init(in, rows, cols, seed);

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_in, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, count * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, in, count * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(bx, by);
    dim3 grid(example_div_up(cols, bx), example_div_up(rows, by));
    transpose_naive<<<grid, block>>>(d_in, d_out, rows, cols);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out, d_out, count * sizeof(float), cudaMemcpyDeviceToHost));

    transpose_naive_ref(in, expect, rows, cols);
    size_t mismatches = 0;
    for (size_t i = 0; i < count; ++i)
        if (out[i] != expect[i])
            ++mismatches;

    printf("transpose_naive: rows=%d cols=%d grid=%ux%u block=%ux%u mismatches=%zu "
           "(exact comparison)\n", rows, cols, grid.x, grid.y, bx, by, mismatches);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(in);
    free(out);
    free(expect);
    return example_verdict(mismatches == 0);
}
