/* histogram_ref.c - host reference for the histogram example. */
#include "histogram_ref.h"

#include "../common/example_rng.h"

void histogram_init(uint8_t *data, size_t n, uint32_t seed)
{
    static const uint8_t hot[4] = {' ', 'e', 't', 0};
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i) {
        uint32_t r = ex_rng_next(&state) >> 24; /* top 8 bits */
        data[i] = (r < 96) ? hot[r & 3] : (uint8_t)ex_rng_below(&state, 256);
    }
}

void histogram_ref(const uint8_t *data, size_t n, uint32_t *bins)
{
    for (unsigned v = 0; v < HISTOGRAM_BINS; ++v)
        bins[v] = 0;
    for (size_t i = 0; i < n; ++i)
        ++bins[data[i]];
}
