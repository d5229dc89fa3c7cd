/*
 * bfs_ref.h - host reference for the bfs example: level-synchronous
 * breadth-first search over a directed graph in CSR form.
 *
 * The kernel runs one level per launch; the resulting levels do not depend on
 * the order in which threads discover vertices, so the reference's levels are
 * identical to the GPU's (integers, exact comparison).
 */
#ifndef BFS_REF_H
#define BFS_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Level of a vertex not reachable from the source. */
#define BFS_UNREACHED (-1)

/*
 * First half of the graph generator: row_ptr[0..n] of a CSR graph whose
 * vertex v has an out-degree drawn uniformly from [0, 2*avg_degree]. The
 * edge count is row_ptr[n]; allocate col_idx with that many entries.
 */
void bfs_init_rows(uint32_t *row_ptr, uint32_t n, uint32_t avg_degree, uint32_t seed);

/*
 * Second half: fills col_idx[0..row_ptr[n]). Three quarters of the edges go
 * to a vertex within +-16 of the source vertex (locality, like a mesh), the
 * rest anywhere (irregular, long-range loads). No self-loops.
 */
void bfs_init_cols(const uint32_t *row_ptr, uint32_t *col_idx, uint32_t n, uint32_t seed);

/*
 * Fills level[0..n) with the BFS depth of each vertex from `source`
 * (BFS_UNREACHED where unreachable) and returns the number of levels, i.e.
 * the number of frontier-expansion steps the kernel performs, counting the
 * last step that finds nothing new. Uses a queue of n entries internally;
 * returns -1 if it cannot be allocated or source >= n.
 */
int bfs_ref(const uint32_t *row_ptr, const uint32_t *col_idx, uint32_t n, uint32_t source,
            int32_t *level);

#ifdef __cplusplus
}
#endif

#endif /* BFS_REF_H */
