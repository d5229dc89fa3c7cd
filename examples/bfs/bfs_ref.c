/* bfs_ref.c - host reference for the bfs example. */
#include "bfs_ref.h"

#include <stdlib.h>

#include "../common/example_rng.h"

void bfs_init_rows(uint32_t *row_ptr, uint32_t n, uint32_t avg_degree, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    row_ptr[0] = 0;
    for (uint32_t v = 0; v < n; ++v)
        row_ptr[v + 1] = row_ptr[v] + ex_rng_below(&state, 2 * avg_degree + 1);
}

void bfs_init_cols(const uint32_t *row_ptr, uint32_t *col_idx, uint32_t n, uint32_t seed)
{
    /* A different stream from bfs_init_rows, so degrees and targets are independent. */
    uint32_t state = ex_rng_seed(seed ^ 0x5bd1e995u);
    for (uint32_t v = 0; v < n; ++v) {
        for (uint32_t e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
            uint32_t target;
            if (n == 1) {
                target = 0; /* the only vertex; a self-loop is unavoidable */
            } else if (ex_rng_below(&state, 4) != 0) {
                /* Local edge: offset in [-16, 16] \ {0}, wrapped around n. */
                uint32_t offset = 1 + ex_rng_below(&state, 16);
                uint32_t back = ex_rng_below(&state, 2);
                offset %= n;
                if (offset == 0)
                    offset = 1;
                target = back ? (v + n - offset) % n : (v + offset) % n;
            } else {
                target = ex_rng_below(&state, n - 1);
                if (target >= v)
                    ++target; /* skip v itself */
            }
            col_idx[e] = target;
        }
    }
}

int bfs_ref(const uint32_t *row_ptr, const uint32_t *col_idx, uint32_t n, uint32_t source,
            int32_t *level)
{
    if (source >= n)
        return -1;
    uint32_t *queue = (uint32_t *)malloc((size_t)n * sizeof(uint32_t));
    if (queue == NULL)
        return -1;

    for (uint32_t v = 0; v < n; ++v)
        level[v] = BFS_UNREACHED;
    level[source] = 0;
    queue[0] = source;
    size_t head = 0, tail = 1;
    int32_t deepest = 0;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
            uint32_t u = col_idx[e];
            if (level[u] == BFS_UNREACHED) {
                level[u] = level[v] + 1;
                if (level[u] > deepest)
                    deepest = level[u];
                queue[tail++] = u;
            }
        }
    }
    free(queue);
    /* Levels 0..deepest each seed one step; the last step finds nothing. */
    return (int)deepest + 1;
}
