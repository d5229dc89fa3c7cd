/*
 * stencil2d.cu - Jacobi iterations of the 5-point Laplace stencil on a 2D
 * grid with 2D thread blocks, one launch per iteration (ping-pong buffers).
 *
 * Threads on the grid boundary take a different path (copy) from interior
 * threads (four neighbour loads), so the warps covering the first and last
 * rows and columns diverge; blocks overhanging the grid edge have idle
 * threads. Row neighbours are coalesced, the y-neighbours are the same
 * pattern shifted by a row.
 *
 * usage: stencil2d [nx] [ny] [iters] [block_x] [block_y] [seed]
 */
#include "../common/example_host.cuh"
#include "stencil2d_ref.h"

extern "C" __global__ void jacobi5(const float *in, float *out, int nx, int ny)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny)
        return;

    const int i = y * nx + x;
    if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        out[i] = in[i]; /* Dirichlet boundary: values stay fixed */
        return;
    }
    out[i] = 0.25f * ((in[i - 1] + in[i + 1]) + (in[i - nx] + in[i + nx]));
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv,
                        "[nx=130] [ny=100] [iters=10] [block_x=16] [block_y=16] [seed=1]");
    int nx = (int)example_arg(argc, argv, 1, "nx", 130, 1, 16384);
    int ny = (int)example_arg(argc, argv, 2, "ny", 100, 1, 16384);
    unsigned iters = (unsigned)example_arg(argc, argv, 3, "iters", 10, 1, 100000);
    unsigned bx = (unsigned)example_arg(argc, argv, 4, "block_x", 16, 1, 1024);
    unsigned by = (unsigned)example_arg(argc, argv, 5, "block_y", 16, 1, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 6, "seed", 1, 0, 0xffffffffu);
    if (bx * by > 1024) {
        fprintf(stderr, "%s: block_x * block_y must be at most 1024\n", argv[0]);
        return EXAMPLE_EXIT_ERROR;
    }

    size_t bytes = (size_t)nx * ny * sizeof(float);
    float *grid = (float *)example_host_alloc(bytes);
    float *result = (float *)example_host_alloc(bytes);
    float *scratch = (float *)example_host_alloc(bytes);
    stencil2d_init(grid, nx, ny, seed);

    float *d_a, *d_b;
    CUDA_CHECK(cudaMalloc((void **)&d_a, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, bytes));
    CUDA_CHECK(cudaMemcpy(d_a, grid, bytes, cudaMemcpyHostToDevice));

    dim3 block(bx, by);
    dim3 blocks(example_div_up(nx, bx), example_div_up(ny, by));
    for (unsigned it = 0; it < iters; ++it) {
        jacobi5<<<blocks, block>>>(d_a, d_b, nx, ny);
        CUDA_CHECK_LAUNCH();
        float *swap = d_a; /* the output becomes the next input */
        d_a = d_b;
        d_b = swap;
    }
    CUDA_CHECK(cudaMemcpy(result, d_a, bytes, cudaMemcpyDeviceToHost));

    const float *expect = stencil2d_ref(grid, scratch, nx, ny, iters);
    size_t mismatches = 0;
    double checksum = 0.0;
    for (size_t i = 0; i < (size_t)nx * ny; ++i) {
        if (result[i] != expect[i])
            ++mismatches;
        checksum += result[i];
    }

    printf("stencil2d: nx=%d ny=%d iters=%u grid=%ux%u block=%ux%u checksum=%.4f "
           "mismatches=%zu (exact comparison)\n",
           nx, ny, iters, blocks.x, blocks.y, bx, by, checksum, mismatches);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    free(grid);
    free(result);
    free(scratch);
    return example_verdict(mismatches == 0);
}
