/*
 * devfunc_ref.h - host reference for the devfunc example:
 *   out[i] = sum over r in [0, rounds) of digit_sum(in[i] + r, base)
 * where digit_sum(x, base) is the sum of the base-`base` digits of x
 * (unsigned 32-bit arithmetic, x + r wraps modulo 2^32).
 *
 * Accuracy: integers, exact.
 */
#ifndef DEVFUNC_REF_H
#define DEVFUNC_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fills in[0..n) with values whose magnitude varies a lot between
 * neighbours (a random bit length from 1 to 32, then random bits), so the
 * digit loop's trip count differs across the lanes of a warp.
 */
void devfunc_init(uint32_t *in, size_t n, uint32_t seed);

/* Sum of the base-`base` digits of x; base must be at least 2. */
uint32_t devfunc_digit_sum(uint32_t x, uint32_t base);

/* The whole kernel: out[i] for i < n. */
void devfunc_ref(const uint32_t *in, uint32_t *out, size_t n, uint32_t base, uint32_t rounds);

#ifdef __cplusplus
}
#endif

#endif /* DEVFUNC_REF_H */
