/*
 * histogram_ref.h - host reference for the histogram example: counts of each
 * byte value 0..255 in a byte array.
 *
 * Accuracy: integer counts, results are identical.
 */
#ifndef HISTOGRAM_REF_H
#define HISTOGRAM_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HISTOGRAM_BINS 256

/*
 * Fills data[0..n) with bytes from seed. The distribution is skewed on
 * purpose: about 3 in 8 bytes come from a hot set of 4 values, so atomics
 * on those bins collide often; the rest are uniform over 0..255.
 */
void histogram_init(uint8_t *data, size_t n, uint32_t seed);

/* bins[v] = number of i < n with data[i] == v, for v < HISTOGRAM_BINS. */
void histogram_ref(const uint8_t *data, size_t n, uint32_t *bins);

#ifdef __cplusplus
}
#endif

#endif /* HISTOGRAM_REF_H */
