/*
 * matmul.cu - tiled dense matrix multiply C = A * B through shared memory.
 *
 * Each 16x16 thread block computes one 16x16 tile of C. For every 16-wide
 * slice of the shared dimension the block stages one tile of A and one of B
 * in shared memory (two barriers per slice), then every thread runs a fully
 * unrolled 16-step fmaf chain. Tiles that hang over the matrix edge are
 * zero-padded, so M, N and K need not be multiples of 16.
 *
 * The kernel is an ordinary C++ function, so its PTX name is mangled.
 *
 * usage: matmul [M] [N] [K] [seed]
 */
#include <math.h>

#include "../common/example_host.cuh"
#include "matmul_ref.h"

#define TILE MATMUL_TILE

__global__ void matmul_tiled(const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int base = 0; base < k; base += TILE) {
        /* Row-major loads: consecutive tx read consecutive addresses. */
        const int a_col = base + tx;
        const int b_row = base + ty;
        a_tile[ty][tx] = (row < m && a_col < k) ? a[row * k + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < k && col < n) ? b[b_row * n + col] : 0.0f;
        __syncthreads();

        /* a_tile[ty][i] is a broadcast within a warp row, b_tile[i][tx] is
         * conflict-free: consecutive tx hit consecutive banks. */
        for (int i = 0; i < TILE; ++i)
            acc = fmaf(a_tile[ty][i], b_tile[i][tx], acc);
        __syncthreads(); /* the next slice overwrites the tiles */
    }
    if (row < m && col < n)
        c[row * n + col] = acc;
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[M=100] [N=90] [K=70] [seed=1]");
    int m = (int)example_arg(argc, argv, 1, "M", 100, 1, 8192);
    int n = (int)example_arg(argc, argv, 2, "N", 90, 1, 8192);
    int k = (int)example_arg(argc, argv, 3, "K", 70, 1, 8192);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 4, "seed", 1, 0, 0xffffffffu);

    size_t a_bytes = (size_t)m * k * sizeof(float);
    size_t b_bytes = (size_t)k * n * sizeof(float);
    size_t c_bytes = (size_t)m * n * sizeof(float);
    float *a = (float *)example_host_alloc(a_bytes);
    float *b = (float *)example_host_alloc(b_bytes);
    float *c = (float *)example_host_alloc(c_bytes);
    float *expect = (float *)example_host_alloc(c_bytes);
    matmul_init(a, b, m, n, k, seed);

    float *d_a, *d_b, *d_c;
    CUDA_CHECK(cudaMalloc((void **)&d_a, a_bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_b, b_bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_c, c_bytes));
    CUDA_CHECK(cudaMemcpy(d_a, a, a_bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, b, b_bytes, cudaMemcpyHostToDevice));

    dim3 block(TILE, TILE);
    dim3 grid(example_div_up(n, TILE), example_div_up(m, TILE));
    matmul_tiled<<<grid, block>>>(d_a, d_b, d_c, m, n, k);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(c, d_c, c_bytes, cudaMemcpyDeviceToHost));

    /* Expected bit-identical (same fmaf order); tolerance 1e-5 relative to
     * max(1, |expected|) guards against contraction differences only. */
    matmul_ref(a, b, expect, m, n, k);
    const float tol = 1e-5f;
    size_t mismatches = 0, inexact = 0;
    float max_err = 0.0f;
    for (size_t i = 0; i < (size_t)m * n; ++i) {
        float err = fabsf(c[i] - expect[i]) / fmaxf(1.0f, fabsf(expect[i]));
        if (c[i] != expect[i])
            ++inexact;
        if (!(err <= tol))
            ++mismatches;
        if (err > max_err)
            max_err = err;
    }

    printf("matmul: M=%d N=%d K=%d grid=%ux%u block=%dx%d mismatches=%zu not-bit-exact=%zu "
           "max_rel_err=%.3g (tol %.0e)\n",
           m, n, k, grid.x, grid.y, TILE, TILE, mismatches, inexact, max_err, tol);
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    CUDA_CHECK(cudaFree(d_c));
    free(a);
    free(b);
    free(c);
    free(expect);
    return example_verdict(mismatches == 0);
}
