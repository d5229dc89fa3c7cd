/*
 * bfs.cu - breadth-first search over a CSR graph, one kernel launch per level.
 *
 * One thread per vertex. Threads whose vertex is not in the current frontier
 * exit at once (data-dependent divergence: frontiers are sparse); the others
 * walk their adjacency list, a loop whose trip count is the vertex degree,
 * and for each neighbour do an irregular load of its level, claiming it for
 * the next level if unvisited. Several threads may claim the same vertex in
 * one step; they all write the same values, so the race is benign and the
 * result deterministic. The host loops until a step changes nothing.
 *
 * usage: bfs [vertices] [avg_degree] [block] [seed]
 */
#include "../common/example_host.cuh"
#include "bfs_ref.h"

extern "C" __global__ void bfs_level_step(const unsigned *row_ptr, const unsigned *col_idx,
                                          const unsigned char *frontier,
                                          unsigned char *next_frontier, int *level,
                                          unsigned n, int cur_level, unsigned *changed)
{
    const unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || !frontier[v])
        return;

    const unsigned end = row_ptr[v + 1];
    for (unsigned e = row_ptr[v]; e < end; ++e) {
        const unsigned u = col_idx[e];
        if (level[u] < 0) { /* unvisited */
            level[u] = cur_level + 1;
            next_frontier[u] = 1;
            *changed = 1;
        }
    }
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[vertices=20000] [avg_degree=3] [block=256] [seed=1]");
    unsigned n = (unsigned)example_arg(argc, argv, 1, "vertices", 20000, 1, 1u << 26);
    unsigned avg = (unsigned)example_arg(argc, argv, 2, "avg_degree", 3, 0, 64);
    unsigned block = (unsigned)example_arg(argc, argv, 3, "block", 256, 32, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 4, "seed", 1, 0, 0xffffffffu);
    const unsigned source = 0;

    unsigned *row_ptr = (unsigned *)example_host_alloc(((size_t)n + 1) * sizeof(unsigned));
    bfs_init_rows(row_ptr, n, avg, seed);
    size_t edges = row_ptr[n];
    unsigned *col_idx = (unsigned *)example_host_alloc(edges * sizeof(unsigned));
    bfs_init_cols(row_ptr, col_idx, n, seed);
    int *level = (int *)example_host_alloc((size_t)n * sizeof(int));
    int *expect = (int *)example_host_alloc((size_t)n * sizeof(int));
    unsigned char *frontier = (unsigned char *)example_host_alloc(n);
    for (unsigned v = 0; v < n; ++v) {
        level[v] = BFS_UNREACHED;
        frontier[v] = 0;
    }
    level[source] = 0;
    frontier[source] = 1;

    unsigned *d_row_ptr, *d_col_idx, *d_changed;
    unsigned char *d_frontier, *d_next;
    int *d_level;
    CUDA_CHECK(cudaMalloc((void **)&d_row_ptr, ((size_t)n + 1) * sizeof(unsigned)));
    /* A graph can have no edges at all; never ask for a zero-byte allocation. */
    CUDA_CHECK(cudaMalloc((void **)&d_col_idx, (edges ? edges : 1) * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc((void **)&d_level, (size_t)n * sizeof(int)));
    CUDA_CHECK(cudaMalloc((void **)&d_frontier, n));
    CUDA_CHECK(cudaMalloc((void **)&d_next, n));
    CUDA_CHECK(cudaMalloc((void **)&d_changed, sizeof(unsigned)));
    CUDA_CHECK(cudaMemcpy(d_row_ptr, row_ptr, ((size_t)n + 1) * sizeof(unsigned),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_col_idx, col_idx, edges * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_level, level, (size_t)n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_frontier, frontier, n, cudaMemcpyHostToDevice));

    unsigned grid = example_div_up(n, block);
    int steps = 0;
    for (int cur = 0;; ++cur) {
        unsigned changed = 0;
        CUDA_CHECK(cudaMemset(d_next, 0, n));
        CUDA_CHECK(cudaMemset(d_changed, 0, sizeof(unsigned)));
        bfs_level_step<<<grid, block>>>(d_row_ptr, d_col_idx, d_frontier, d_next, d_level, n, cur,
                                        d_changed);
        CUDA_CHECK_LAUNCH();
        ++steps;
        CUDA_CHECK(cudaMemcpy(&changed, d_changed, sizeof(unsigned), cudaMemcpyDeviceToHost));
        if (!changed)
            break;
        unsigned char *swap = d_frontier; /* next level becomes the frontier */
        d_frontier = d_next;
        d_next = swap;
    }
    CUDA_CHECK(cudaMemcpy(level, d_level, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));

    int expect_steps = bfs_ref(row_ptr, col_idx, n, source, expect);
    size_t mismatches = 0, reached = 0;
    for (unsigned v = 0; v < n; ++v) {
        if (level[v] != expect[v])
            ++mismatches;
        if (expect[v] != BFS_UNREACHED)
            ++reached;
    }

    printf("bfs: vertices=%u edges=%zu reached=%zu steps=%d (expected %d) grid=%u block=%u "
           "mismatched_levels=%zu (exact comparison)\n",
           n, edges, reached, steps, expect_steps, grid, block, mismatches);
    CUDA_CHECK(cudaFree(d_row_ptr));
    CUDA_CHECK(cudaFree(d_col_idx));
    CUDA_CHECK(cudaFree(d_level));
    CUDA_CHECK(cudaFree(d_frontier));
    CUDA_CHECK(cudaFree(d_next));
    CUDA_CHECK(cudaFree(d_changed));
    free(row_ptr);
    free(col_idx);
    free(level);
    free(expect);
    free(frontier);
    return example_verdict(mismatches == 0 && steps == expect_steps);
}
