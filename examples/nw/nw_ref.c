/* nw_ref.c - host reference for the nw example. */
#include "nw_ref.h"

#include "../common/example_rng.h"

void nw_init(uint8_t *seq_a, size_t m, uint8_t *seq_b, size_t n, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < m; ++i)
        seq_a[i] = (uint8_t)ex_rng_below(&state, 4);
    for (size_t j = 0; j < n; ++j) {
        uint32_t keep = ex_rng_below(&state, 4) != 0;
        uint8_t fresh = (uint8_t)ex_rng_below(&state, 4);
        seq_b[j] = (keep && m > 0) ? seq_a[j % m] : fresh;
    }
}

void nw_init_borders(int32_t *score, size_t m, size_t n, int32_t gap)
{
    const size_t pitch = n + 1;
    for (size_t i = 0; i <= m; ++i)
        score[i * pitch] = -(int32_t)i * gap;
    for (size_t j = 0; j <= n; ++j)
        score[j] = -(int32_t)j * gap;
}

static int32_t max3(int32_t a, int32_t b, int32_t c)
{
    int32_t m = a > b ? a : b;
    return m > c ? m : c;
}

void nw_ref(const uint8_t *seq_a, size_t m, const uint8_t *seq_b, size_t n, int32_t gap,
            int32_t *score)
{
    static const int32_t subst[16] = NW_SUBST_TABLE;
    const size_t pitch = n + 1;
    nw_init_borders(score, m, n, gap);
    for (size_t i = 1; i <= m; ++i) {
        for (size_t j = 1; j <= n; ++j) {
            int32_t diag = score[(i - 1) * pitch + j - 1] + subst[seq_a[i - 1] * 4 + seq_b[j - 1]];
            int32_t up = score[(i - 1) * pitch + j] - gap;
            int32_t left = score[i * pitch + j - 1] - gap;
            score[i * pitch + j] = max3(diag, up, left);
        }
    }
}
