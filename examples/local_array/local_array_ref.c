/* local_array_ref.c - host reference for the local_array example. */
#include "local_array_ref.h"

#include "../common/example_rng.h"

void local_array_init(uint32_t *in, size_t n, size_t window, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i) {
        uint32_t favourite = ex_rng_below(&state, LOCAL_ARRAY_BUCKETS);
        for (size_t j = 0; j < window; ++j) {
            uint32_t v = ex_rng_next(&state) >> 4;
            if (ex_rng_below(&state, 2) == 0)
                v = v - v % LOCAL_ARRAY_BUCKETS + favourite; /* lands in the favourite bucket */
            in[j * n + i] = v;
        }
    }
}

void local_array_ref(const uint32_t *in, uint32_t *mode, uint32_t *count, size_t n,
                     size_t window)
{
    for (size_t i = 0; i < n; ++i) {
        uint32_t buckets[LOCAL_ARRAY_BUCKETS] = {0};
        for (size_t j = 0; j < window; ++j)
            ++buckets[in[j * n + i] % LOCAL_ARRAY_BUCKETS];
        uint32_t best = 0;
        for (uint32_t b = 1; b < LOCAL_ARRAY_BUCKETS; ++b)
            if (buckets[b] > buckets[best])
                best = b;
        mode[i] = best;
        count[i] = buckets[best];
    }
}
