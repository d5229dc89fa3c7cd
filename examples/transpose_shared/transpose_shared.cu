/*
 * transpose_shared.cu - matrix transpose staged through a shared-memory tile
 * so that both the global reads and the global writes are coalesced.
 *
 * A 32x8 thread block moves one 32x32 tile in four passes of 8 rows: it reads
 * rows of the input tile, synchronises, and writes rows of the output tile by
 * reading the shared tile column-wise. The tile is padded to 33 columns: a
 * column of a 32-wide float array would sit in a single bank (32-way
 * conflict); with the pad, tile[x][y] for consecutive x lies in consecutive
 * banks.
 *
 * usage: transpose_shared [rows] [cols] [seed]
 */
#include "../common/example_host.cuh"
#include "transpose_shared_ref.h"

#define TDIM TRANSPOSE_SHARED_TILE
#define TROWS TRANSPOSE_SHARED_ROWS

extern "C" __global__ void transpose_shared(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TDIM][TDIM + 1]; /* +1: column reads hit 32 banks */

    /* Read the input tile starting at (row0, col0) row by row. */
    const int col0 = blockIdx.x * TDIM;
    const int row0 = blockIdx.y * TDIM;
    const int x = col0 + threadIdx.x;
    for (int j = 0; j < TDIM; j += TROWS) {
        const int y = row0 + threadIdx.y + j;
        if (x < cols && y < rows)
            tile[threadIdx.y + j][threadIdx.x] = in[y * cols + x];
    }
    __syncthreads();

    /* The same tile lands at (col0, row0) of the output; threadIdx.x now runs
     * along an output row, which is an input column. */
    const int ox = row0 + threadIdx.x;
    for (int j = 0; j < TDIM; j += TROWS) {
        const int oy = col0 + threadIdx.y + j;
        if (ox < rows && oy < cols)
            out[oy * rows + ox] = tile[threadIdx.x][threadIdx.y + j];
    }
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[rows=300] [cols=200] [seed=1]");
    int rows = (int)example_arg(argc, argv, 1, "rows", 300, 1, 16384);
    int cols = (int)example_arg(argc, argv, 2, "cols", 200, 1, 16384);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 3, "seed", 1, 0, 0xffffffffu);

    size_t count = (size_t)rows * cols;
    float *in = (float *)example_host_alloc(count * sizeof(float));
    float *out = (float *)example_host_alloc(count * sizeof(float));
    float *expect = (float *)example_host_alloc(count * sizeof(float));
    transpose_shared_init(in, rows, cols, seed);

    float *d_in, *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_in, count * sizeof(float)));
    CUDA_CHECK(cudaMalloc((void **)&d_out, count * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, in, count * sizeof(float), cudaMemcpyHostToDevice));

    dim3 block(TDIM, TROWS);
    dim3 grid(example_div_up(cols, TDIM), example_div_up(rows, TDIM));
    transpose_shared<<<grid, block>>>(d_in, d_out, rows, cols);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out, d_out, count * sizeof(float), cudaMemcpyDeviceToHost));

    transpose_shared_ref(in, expect, rows, cols);
    size_t mismatches = 0;
    for (size_t i = 0; i < count; ++i)
        if (out[i] != expect[i])
            ++mismatches;

    printf("transpose_shared: rows=%d cols=%d grid=%ux%u block=%dx%d mismatches=%zu "
           "(exact comparison)\n", rows, cols, grid.x, grid.y, TDIM, TROWS, mismatches);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(in);
    free(out);
    free(expect);
    return example_verdict(mismatches == 0);
}
