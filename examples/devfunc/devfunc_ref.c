/* devfunc_ref.c - host reference for the devfunc example. */
#include "devfunc_ref.h"

#include "../common/example_rng.h"

void devfunc_init(uint32_t *in, size_t n, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits = 1 + ex_rng_below(&state, 32); /* 1..32 significant bits */
        uint32_t value = ex_rng_next(&state);
        in[i] = bits == 32 ? value : value & ((1u << bits) - 1u);
    }
}

uint32_t devfunc_digit_sum(uint32_t x, uint32_t base)
{
    uint32_t sum = 0;
    while (x != 0) {
        sum += x % base;
        x /= base;
    }
    return sum;
}

void devfunc_ref(const uint32_t *in, uint32_t *out, size_t n, uint32_t base, uint32_t rounds)
{
    for (size_t i = 0; i < n; ++i) {
        uint32_t acc = 0;
        for (uint32_t r = 0; r < rounds; ++r)
            acc += devfunc_digit_sum(in[i] + r, base);
        out[i] = acc;
    }
}
