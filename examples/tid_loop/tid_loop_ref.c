/* tid_loop_ref.c - host reference for the tid_loop example. */
#include "tid_loop_ref.h"

#include "../common/example_rng.h"

void tid_loop_init(uint32_t *in, size_t n, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i)
        in[i] = ex_rng_next(&state);
}

uint32_t tid_loop_trips(uint32_t t)
{
    return t % TID_LOOP_PERIOD + 1;
}

void tid_loop_ref(const uint32_t *in, uint32_t *out, size_t n, uint32_t block)
{
    for (size_t i = 0; i < n; ++i) {
        uint32_t trips = tid_loop_trips((uint32_t)(i % block));
        uint32_t acc = 0;
        for (uint32_t k = 0; k < trips; ++k)
            acc = acc * 33u + (in[i] ^ k);
        out[i] = acc;
    }
}
