/*
 * reduce_seq_ref.h - host reference for the reduce_seq example: per-block
 * sums of a float array where each block of BLOCK threads covers 2*BLOCK
 * elements (one add while loading), then a shared-memory tree with
 * sequential addressing (at step s, thread t < s adds sdata[t + s]).
 *
 * Accuracy: the reference replays the kernel's pairing order, so the
 * per-block partial sums are bit-identical to the GPU's.
 */
#ifndef REDUCE_SEQ_REF_H
#define REDUCE_SEQ_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest block size the reference accepts (the kernel exists for 128, 256). */
#define REDUCE_SEQ_MAX_BLOCK 1024

/* Fills in[0..n) with floats uniform in [-1, 1) from seed. */
void reduce_seq_init(float *in, size_t n, uint32_t seed);

/* Number of partial sums for n elements: ceil(n / (2 * block)). */
size_t reduce_seq_blocks(size_t n, unsigned block);

/*
 * Writes partial[b] = tree sum of in[2*block*b .. 2*block*(b+1)), elements
 * past n counting as 0.0f, for every b < reduce_seq_blocks(n, block).
 * Returns 0, or -1 when block is not a power of two in [1, MAX_BLOCK].
 */
int reduce_seq_ref(const float *in, float *partial, size_t n, unsigned block);

#ifdef __cplusplus
}
#endif

#endif /* REDUCE_SEQ_REF_H */
