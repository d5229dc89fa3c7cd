/* The unit tests' deterministic generator (xorshift64), so that a failing
 * randomised check repeats. Each test keeps its own state. */
#ifndef MB_TEST_RNG_H
#define MB_TEST_RNG_H

#include <stdint.h>

#define TEST_RNG_SEED UINT64_C(0x9E3779B97F4A7C15)

static inline uint64_t test_rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif
