/*
 * warp_reduce_ref.h - host reference for the warp_reduce example. For each
 * group of 32 consecutive elements (one warp; lanes past n are inactive
 * inputs that contribute identity values) it computes:
 *   sum[w]   - the sum of the values (int32, no overflow for the inputs)
 *   max[w]   - the maximum value (INT32_MIN never occurs for valid lanes)
 *   ballot[w]- bit l set iff lane l is valid and its value is > 0
 *   flags[w] - bit 0: every valid value is >= 0; bit 1: some valid value is 0
 *
 * Accuracy: integers, exact.
 */
#ifndef WARP_REDUCE_REF_H
#define WARP_REDUCE_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WARP_REDUCE_WIDTH 32

/* Number of warps (outputs) for n inputs: ceil(n / 32). */
size_t warp_reduce_warps(size_t n);

/*
 * Fills in[0..n) with integers in [-1000, 1000]. One warp in three gets only
 * non-negative values (so the all-vote is true there), and about 1 value in
 * 40 is exactly zero (so the any-vote varies between warps).
 */
void warp_reduce_init(int32_t *in, size_t n, uint32_t seed);

/* The four per-warp results for warp_reduce_warps(n) warps. */
void warp_reduce_ref(const int32_t *in, size_t n, int32_t *sum, int32_t *max, uint32_t *ballot,
                     uint32_t *flags);

#ifdef __cplusplus
}
#endif

#endif /* WARP_REDUCE_REF_H */
