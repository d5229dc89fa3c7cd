/*
 * local_array_ref.h - host reference for the local_array example. Input i
 * owns the column in[j * n + i], j < window; the kernel buckets each value
 * by v % 32 into a per-thread array of 32 counters and reports the most
 * frequent bucket (lowest index on ties) and its count:
 *   mode[i]  = argmax_b #{ j : in[j*n + i] % 32 == b }
 *   count[i] = that maximum
 *
 * Accuracy: integers, exact.
 */
#ifndef LOCAL_ARRAY_REF_H
#define LOCAL_ARRAY_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOCAL_ARRAY_BUCKETS 32

/*
 * Fills in[0 .. window*n). Each column i draws its values around its own
 * favourite bucket (half the values) or uniformly (the other half), so the
 * modes differ between threads and the counter updates are data-dependent.
 */
void local_array_init(uint32_t *in, size_t n, size_t window, uint32_t seed);

/* mode[i] and count[i] for i < n. */
void local_array_ref(const uint32_t *in, uint32_t *mode, uint32_t *count, size_t n,
                     size_t window);

#ifdef __cplusplus
}
#endif

#endif /* LOCAL_ARRAY_REF_H */
