/* blackscholes_ref.c - host reference for the blackscholes example. */
#include "blackscholes_ref.h"

#include <math.h>

#include "../common/example_rng.h"

void blackscholes_init(float *spot, float *strike, float *years, size_t n, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i) {
        spot[i] = ex_rng_range(&state, 10.0f, 100.0f);
        strike[i] = ex_rng_range(&state, 10.0f, 100.0f);
        years[i] = ex_rng_range(&state, 0.1f, 5.0f);
    }
}

float blackscholes_cnd(float d)
{
    const float k = 1.0f / fmaf(BS_P, fabsf(d), 1.0f);
    float poly = fmaf(k, BS_A5, BS_A4);
    poly = fmaf(k, poly, BS_A3);
    poly = fmaf(k, poly, BS_A2);
    poly = fmaf(k, poly, BS_A1);
    poly = k * poly;
    const float t = BS_INV_SQRT_2PI * expf(-0.5f * d * d);
    /* Tail mass w = t * poly; for d > 0 the result is 1 - w in one rounding. */
    return d > 0.0f ? fmaf(-t, poly, 1.0f) : t * poly;
}

void blackscholes_ref(const float *spot, const float *strike, const float *years, float *call,
                      float *put, size_t n, float rate, float vol)
{
    for (size_t i = 0; i < n; ++i) {
        const float s = spot[i], x = strike[i], t = years[i];
        const float vol_sqrt_t = vol * sqrtf(t);
        const float drift = fmaf(0.5f * vol, vol, rate); /* r + v^2/2 */
        const float d1 = fmaf(drift, t, logf(s / x)) / vol_sqrt_t;
        const float d2 = d1 - vol_sqrt_t;
        const float n1 = blackscholes_cnd(d1);
        const float n2 = blackscholes_cnd(d2);
        const float discounted = x * expf(-rate * t);
        call[i] = fmaf(s, n1, -(discounted * n2));
        put[i] = fmaf(discounted, 1.0f - n2, -(s * (1.0f - n1)));
    }
}
