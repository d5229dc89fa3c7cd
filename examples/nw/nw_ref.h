/*
 * nw_ref.h - host reference for the nw example: the Needleman-Wunsch global
 * alignment score matrix of two DNA sequences (symbols 0..3 = A, C, G, T)
 * with a substitution table and a linear gap penalty.
 *
 * score is (m+1) x (n+1), row-major with pitch n+1:
 *   score[i][0] = -i*gap, score[0][j] = -j*gap,
 *   score[i][j] = max(score[i-1][j-1] + subst(a[i-1], b[j-1]),
 *                     score[i-1][j] - gap, score[i][j-1] - gap).
 *
 * Accuracy: integers; the matrix does not depend on evaluation order, so the
 * GPU's tiled wavefront and the reference's row sweep agree exactly.
 */
#ifndef NW_REF_H
#define NW_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tile edge: one CTA of NW_TILE threads computes an NW_TILE x NW_TILE tile. */
#define NW_TILE 32

/* Substitution scores, row = symbol of sequence a, column = symbol of b.
 * Matches score 4, transitions (A<->G, C<->T) -1, transversions -3. An
 * initialiser list so the kernel can put it in __constant__ memory. */
#define NW_SUBST_TABLE {4, -3, -1, -3, -3, 4, -3, -1, -1, -3, 4, -3, -3, -1, -3, 4}

/*
 * Fills seq_a[0..m) with random symbols and seq_b[0..n) with a mutated copy:
 * seq_b[j] repeats seq_a[j % m] with probability 3/4, else a random symbol,
 * so the optimal alignment is mostly diagonal with real detours.
 */
void nw_init(uint8_t *seq_a, size_t m, uint8_t *seq_b, size_t n, uint32_t seed);

/* Writes the gap borders (row 0 and column 0) of the score matrix. */
void nw_init_borders(int32_t *score, size_t m, size_t n, int32_t gap);

/* Fills the whole (m+1) x (n+1) score matrix, borders included. */
void nw_ref(const uint8_t *seq_a, size_t m, const uint8_t *seq_b, size_t n, int32_t gap,
            int32_t *score);

#ifdef __cplusplus
}
#endif

#endif /* NW_REF_H */
