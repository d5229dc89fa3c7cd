/* vecadd_ref.c - host reference for the vecadd example. */
#include "vecadd_ref.h"

#include "../common/example_rng.h"

void vecadd_init(float *a, float *b, size_t n, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i) {
        a[i] = ex_rng_range(&state, -100.0f, 100.0f);
        b[i] = ex_rng_range(&state, -100.0f, 100.0f);
    }
}

void vecadd_ref(const float *a, const float *b, float *c, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        c[i] = a[i] + b[i];
}
