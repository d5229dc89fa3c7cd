/*
 * matmul_ref.h - host reference for the matmul example:
 * C[M x N] = A[M x K] * B[K x N], all row-major float.
 *
 * Accuracy: the kernel accumulates each dot product with fmaf in ascending k
 * (the zero padding of partial tiles adds exact zeros), and so does the
 * reference, so results are expected to be bit-identical. The example still
 * compares with a relative tolerance of 1e-5 so that a build with a different
 * contraction policy is reported as a real difference only when it is one.
 */
#ifndef MATMUL_REF_H
#define MATMUL_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tile edge of the shared-memory kernel (threads per block = MATMUL_TILE^2). */
#define MATMUL_TILE 16

/* Fills A (m*k) and B (k*n) with floats uniform in [-1, 1) from seed. */
void matmul_init(float *a, float *b, size_t m, size_t n, size_t k, uint32_t seed);

/* Computes C = A * B accumulating with fmaf in ascending k, as the kernel does. */
void matmul_ref(const float *a, const float *b, float *c, size_t m, size_t n, size_t k);

#ifdef __cplusplus
}
#endif

#endif /* MATMUL_REF_H */
