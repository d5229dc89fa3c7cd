/*
 * nw.cu - Needleman-Wunsch alignment scores by a two-level wavefront.
 *
 * The (m+1) x (n+1) score matrix is cut into NW_TILE x NW_TILE tiles. The
 * host launches one kernel per anti-diagonal of tiles (tiles on the same
 * diagonal are independent); inside a CTA, thread t owns row t of its tile
 * and the CTA sweeps the 2*NW_TILE-1 anti-diagonals of the tile, with a
 * __syncthreads barrier after each. On step k only threads with
 * 0 <= k - t < NW_TILE do work, so the active lane count ramps up and down
 * (1, 2, ..., 32, ..., 1): structured divergence in a loop with barriers.
 * The substitution table lives in __constant__ memory; tiles overhanging the
 * matrix edge leave their out-of-range lanes idle.
 *
 * usage: nw [m] [n] [gap] [seed]
 */
#include "../common/example_host.cuh"
#include "nw_ref.h"

#define T NW_TILE
/* Shared row pitch T+2: cell (t, k-t) of anti-diagonal k sits at word
 * (T+2)t + k - t = 33t + k, so the lanes of a step hit 32 different banks. */
#define PITCH (T + 2)

__constant__ int c_subst[16] = NW_SUBST_TABLE;

extern "C" __global__ void nw_tile_wavefront(int *score, const unsigned char *seq_a,
                                             const unsigned char *seq_b, int m, int n, int gap,
                                             int tile_diag, int first_tile_row)
{
    __shared__ int s[(T + 1) * PITCH]; /* tile plus its top row and left column */
    __shared__ unsigned char a_s[T];
    __shared__ unsigned char b_s[T];

    const int t = threadIdx.x;
    const int tile_row = first_tile_row + blockIdx.x;
    const int tile_col = tile_diag - tile_row;
    const int row0 = tile_row * T; /* score row of the tile's top border */
    const int col0 = tile_col * T; /* score column of its left border */
    const int pitch = n + 1;
    const bool row_ok = row0 + 1 + t <= m;
    const bool col_ok = col0 + 1 + t <= n;

    /* Borders come from tiles finished by earlier launches. */
    if (col_ok) {
        s[t + 1] = score[row0 * pitch + col0 + 1 + t];
        b_s[t] = seq_b[col0 + t];
    }
    if (row_ok) {
        s[(t + 1) * PITCH] = score[(row0 + 1 + t) * pitch + col0];
        a_s[t] = seq_a[row0 + t];
    }
    if (t == 0)
        s[0] = score[row0 * pitch + col0];
    __syncthreads();

    for (int k = 0; k < 2 * T - 1; ++k) {
        const int c = k - t;
        if (row_ok && c >= 0 && c < T && col0 + 1 + c <= n) {
            const int diag = s[t * PITCH + c] + c_subst[a_s[t] * 4 + b_s[c]];
            const int up = s[t * PITCH + c + 1] - gap;
            const int left = s[(t + 1) * PITCH + c] - gap;
            s[(t + 1) * PITCH + c + 1] = max(diag, max(up, left));
        }
        __syncthreads(); /* step k+1 reads what step k wrote */
    }

    /* Write the tile back row by row: lane t stores column t (coalesced). */
    for (int r = 0; r < T; ++r)
        if (row0 + 1 + r <= m && col_ok)
            score[(row0 + 1 + r) * pitch + col0 + 1 + t] = s[(r + 1) * PITCH + t + 1];
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[m=200] [n=150] [gap=2] [seed=1]");
    int m = (int)example_arg(argc, argv, 1, "m", 200, 1, 8192);
    int n = (int)example_arg(argc, argv, 2, "n", 150, 1, 8192);
    int gap = (int)example_arg(argc, argv, 3, "gap", 2, 0, 100);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 4, "seed", 1, 0, 0xffffffffu);

    size_t cells = (size_t)(m + 1) * (n + 1);
    unsigned char *seq_a = (unsigned char *)example_host_alloc(m);
    unsigned char *seq_b = (unsigned char *)example_host_alloc(n);
    int *score = (int *)example_host_alloc(cells * sizeof(int));
    int *expect = (int *)example_host_alloc(cells * sizeof(int));
    nw_init(seq_a, m, seq_b, n, seed);
    for (size_t i = 0; i < cells; ++i)
        score[i] = 0;
    nw_init_borders(score, m, n, gap);

    int *d_score;
    unsigned char *d_a, *d_b;
    CUDA_CHECK(cudaMalloc((void **)&d_score, cells * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d_a, m));
    CUDA_CHECK(cudaMalloc((void **)&d_b, n));
    CUDA_CHECK(cudaMemcpy(d_score, score, cells * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_a, seq_a, m, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_b, seq_b, n, cudaMemcpyHostToDevice));

    const int tiles_m = (int)example_div_up(m, T);
    const int tiles_n = (int)example_div_up(n, T);
    const int diagonals = tiles_m + tiles_n - 1;
    for (int d = 0; d < diagonals; ++d) {
        /* Tiles (r, d - r) with 0 <= r < tiles_m and 0 <= d - r < tiles_n. */
        int first = d - (tiles_n - 1) > 0 ? d - (tiles_n - 1) : 0;
        int last = d < tiles_m - 1 ? d : tiles_m - 1;
        nw_tile_wavefront<<<last - first + 1, T>>>(d_score, d_a, d_b, m, n, gap, d, first);
        CUDA_CHECK_LAUNCH();
    }
    CUDA_CHECK(cudaMemcpy(score, d_score, cells * sizeof(int), cudaMemcpyDeviceToHost));

    nw_ref(seq_a, m, seq_b, n, gap, expect);
    size_t mismatches = 0;
    for (size_t i = 0; i < cells; ++i)
        if (score[i] != expect[i])
            ++mismatches;

    printf("nw: m=%d n=%d gap=%d tiles=%dx%d launches=%d block=%d final_score=%d "
           "mismatched_cells=%zu (exact comparison)\n",
           m, n, gap, tiles_m, tiles_n, diagonals, T, score[cells - 1], mismatches);
    CUDA_CHECK(cudaFree(d_score));
    CUDA_CHECK(cudaFree(d_a));
    CUDA_CHECK(cudaFree(d_b));
    free(seq_a);
    free(seq_b);
    free(score);
    free(expect);
    return example_verdict(mismatches == 0);
}
