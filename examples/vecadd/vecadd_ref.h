/*
 * vecadd_ref.h - host reference for the vecadd example: c[i] = a[i] + b[i].
 *
 * Accuracy: a single IEEE-754 round-to-nearest addition per element on both
 * sides, so GPU and reference results are bit-identical.
 */
#ifndef VECADD_REF_H
#define VECADD_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills a and b with n floats each, uniform in [-100, 100), from seed. */
void vecadd_init(float *a, float *b, size_t n, uint32_t seed);

/* Computes c[i] = a[i] + b[i] for i < n. */
void vecadd_ref(const float *a, const float *b, float *c, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* VECADD_REF_H */
