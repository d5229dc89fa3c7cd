/* nested_loops_ref.c - host reference for the nested_loops example. */
#include "nested_loops_ref.h"

#include <math.h>

#include "../common/example_rng.h"

size_t nested_loops_input_len(size_t n, size_t ntaps)
{
    return n + ntaps - 1;
}

void nested_loops_init(float *in, float *taps, size_t n, size_t ntaps, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    size_t len = nested_loops_input_len(n, ntaps);
    for (size_t i = 0; i < len; ++i)
        in[i] = ex_rng_range(&state, -1.0f, 1.0f);
    /* A triangular window (1, 2, ..., peak, ..., 2, 1) normalised by its sum. */
    float total = 0.0f;
    for (size_t k = 0; k < ntaps; ++k) {
        size_t rise = k + 1, fall = ntaps - k;
        taps[k] = (float)(rise < fall ? rise : fall);
        total += taps[k];
    }
    for (size_t k = 0; k < ntaps; ++k)
        taps[k] /= total;
}

void nested_loops_ref(const float *in, const float *taps, float *out, size_t n, size_t ntaps)
{
    for (size_t o = 0; o < n; ++o) {
        float acc = 0.0f;
        for (size_t k = 0; k < ntaps; ++k)
            acc = fmaf(in[o + k], taps[k], acc);
        out[o] = acc;
    }
}
