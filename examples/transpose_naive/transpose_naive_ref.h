/*
 * transpose_naive_ref.h - host reference for the transpose_naive example:
 * out (cols x rows) = transpose of in (rows x cols), both row-major.
 *
 * Accuracy: pure data movement, results are bit-identical.
 */
#ifndef TRANSPOSE_NAIVE_REF_H
#define TRANSPOSE_NAIVE_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills the rows x cols matrix in with floats uniform in [-1000, 1000). */
void transpose_naive_init(float *in, size_t rows, size_t cols, uint32_t seed);

/* out[c * rows + r] = in[r * cols + c]. */
void transpose_naive_ref(const float *in, float *out, size_t rows, size_t cols);

#ifdef __cplusplus
}
#endif

#endif /* TRANSPOSE_NAIVE_REF_H */
