/*
 * reduce_conflict_ref.h - host reference for the reduce_conflict example:
 * per-block sums of a float array by a shared-memory tree with interleaved
 * addressing (at step s, thread t adds element 2*s*t + s into 2*s*t).
 *
 * Accuracy: the reference replays the kernel's exact pairing order, so the
 * per-block partial sums are bit-identical to the GPU's. Only the final host
 * sum of the partials is an ordinary left-to-right float sum.
 */
#ifndef REDUCE_CONFLICT_REF_H
#define REDUCE_CONFLICT_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest block size the reference (and the example) accepts. */
#define REDUCE_CONFLICT_MAX_BLOCK 1024

/* Fills in[0..n) with floats uniform in [-1, 1) from seed. */
void reduce_conflict_init(float *in, size_t n, uint32_t seed);

/*
 * Writes one partial sum per block of `block` consecutive elements into
 * partial[0 .. ceil(n/block)), elements past n counting as 0.0f.
 * Returns 0, or -1 when block is not a power of two in [1, MAX_BLOCK].
 */
int reduce_conflict_ref(const float *in, float *partial, size_t n, unsigned block);

#ifdef __cplusplus
}
#endif

#endif /* REDUCE_CONFLICT_REF_H */
