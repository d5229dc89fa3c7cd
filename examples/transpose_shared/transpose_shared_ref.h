/*
 * transpose_shared_ref.h - host reference for the transpose_shared example:
 * out (cols x rows) = transpose of in (rows x cols), both row-major.
 *
 * Accuracy: pure data movement, results are bit-identical.
 */
#ifndef TRANSPOSE_SHARED_REF_H
#define TRANSPOSE_SHARED_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tile edge and rows copied per pass; the kernel runs with
 * TRANSPOSE_SHARED_TILE x TRANSPOSE_SHARED_ROWS threads per block. */
#define TRANSPOSE_SHARED_TILE 32
#define TRANSPOSE_SHARED_ROWS 8

/* Fills the rows x cols matrix in with floats uniform in [-1000, 1000). */
void transpose_shared_init(float *in, size_t rows, size_t cols, uint32_t seed);

/* out[c * rows + r] = in[r * cols + c]. */
void transpose_shared_ref(const float *in, float *out, size_t rows, size_t cols);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_SHARED_REF_H */
