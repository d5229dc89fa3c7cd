/*
 * example_rng.h - deterministic pseudo-random numbers for the example inputs.
 *
 * Every example fills its inputs from this generator so that the GPU run, the
 * host reference and any later CPU execution of the PTX all see bit-identical
 * data for a given seed. It is the 32-bit linear congruential generator of
 * Numerical Recipes (multiplier 1664525, increment 1013904223); statistical
 * quality is irrelevant here, reproducibility across compilers is what counts,
 * which is why the C library's rand() is not used.
 *
 * The header is plain C11 that also compiles as C++ (it is included from the
 * references, which nvcc may compile as C++).
 */
#ifndef EXAMPLE_RNG_H
#define EXAMPLE_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Advances the state and returns the new 32-bit value. */
static inline uint32_t ex_rng_next(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state;
}

/* Seeds a state. The seed is scrambled once so that small consecutive seeds
 * (0, 1, 2, ...) do not produce visibly correlated first values. */
static inline uint32_t ex_rng_seed(uint32_t seed)
{
    uint32_t state = seed ^ 0x9e3779b9u;
    (void)ex_rng_next(&state);
    return state;
}

/* Uniform integer in [0, bound) for bound > 0, from the high bits (the low
 * bits of an LCG have short periods). */
static inline uint32_t ex_rng_below(uint32_t *state, uint32_t bound)
{
    return (uint32_t)(((uint64_t)ex_rng_next(state) * bound) >> 32);
}

/* Uniform float in [0, 1): the top 24 bits scaled by 2^-24, so every value is
 * exactly representable and no rounding depends on the platform. */
static inline float ex_rng_unit(uint32_t *state)
{
    return (float)(ex_rng_next(state) >> 8) * (1.0f / 16777216.0f);
}

/* Uniform float in [lo, hi). */
static inline float ex_rng_range(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * ex_rng_unit(state);
}

/* Uniform double in [0, 1) built from two draws (53 random bits). */
static inline double ex_rng_unit_double(uint32_t *state)
{
    uint64_t hi = ex_rng_next(state) >> 5; /* 27 bits */
    uint64_t lo = ex_rng_next(state) >> 6; /* 26 bits */
    return (double)((hi << 26) | lo) * (1.0 / 9007199254740992.0);
}

#ifdef __cplusplus
}
#endif

#endif /* EXAMPLE_RNG_H */
