/* reduce_conflict_ref.c - host reference for the reduce_conflict example. */
#include "reduce_conflict_ref.h"

#include "../common/example_rng.h"

void reduce_conflict_init(float *in, size_t n, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i)
        in[i] = ex_rng_range(&state, -1.0f, 1.0f);
}

int reduce_conflict_ref(const float *in, float *partial, size_t n, unsigned block)
{
    float sdata[REDUCE_CONFLICT_MAX_BLOCK];
    if (block == 0 || block > REDUCE_CONFLICT_MAX_BLOCK || (block & (block - 1)) != 0)
        return -1;

    size_t blocks = (n + block - 1) / block;
    for (size_t b = 0; b < blocks; ++b) {
        for (unsigned t = 0; t < block; ++t) {
            size_t i = b * block + t;
            sdata[t] = i < n ? in[i] : 0.0f;
        }
        /* Same steps as the kernel; within a step the updated slots are
         * disjoint from the slots read, so the thread order does not matter. */
        for (unsigned s = 1; s < block; s *= 2)
            for (unsigned t = 0; 2 * s * t < block; ++t)
                sdata[2 * s * t] += sdata[2 * s * t + s];
        partial[b] = sdata[0];
    }
    return 0;
}
