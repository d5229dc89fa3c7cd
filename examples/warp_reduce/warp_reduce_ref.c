/* warp_reduce_ref.c - host reference for the warp_reduce example. */
#include "warp_reduce_ref.h"

#include "../common/example_rng.h"

size_t warp_reduce_warps(size_t n)
{
    return (n + WARP_REDUCE_WIDTH - 1) / WARP_REDUCE_WIDTH;
}

void warp_reduce_init(int32_t *in, size_t n, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i) {
        int nonneg_warp = (i / WARP_REDUCE_WIDTH) % 3 == 0;
        int32_t v = (int32_t)ex_rng_below(&state, 2001) - 1000;
        if (nonneg_warp && v < 0)
            v = -v;
        if (ex_rng_below(&state, 40) == 0)
            v = 0;
        in[i] = v;
    }
}

void warp_reduce_ref(const int32_t *in, size_t n, int32_t *sum, int32_t *max, uint32_t *ballot,
                     uint32_t *flags)
{
    size_t warps = warp_reduce_warps(n);
    for (size_t w = 0; w < warps; ++w) {
        int32_t s = 0, m = INT32_MIN;
        uint32_t b = 0, all_nonneg = 1, any_zero = 0;
        for (unsigned lane = 0; lane < WARP_REDUCE_WIDTH; ++lane) {
            size_t i = w * WARP_REDUCE_WIDTH + lane;
            if (i >= n)
                break;
            int32_t v = in[i];
            s += v;
            if (v > m)
                m = v;
            if (v > 0)
                b |= 1u << lane;
            if (v < 0)
                all_nonneg = 0;
            if (v == 0)
                any_zero = 1;
        }
        sum[w] = s;
        max[w] = m;
        ballot[w] = b;
        flags[w] = all_nonneg | (any_zero << 1);
    }
}
