/* reduce_seq_ref.c - host reference for the reduce_seq example. */
#include "reduce_seq_ref.h"

#include "../common/example_rng.h"

void reduce_seq_init(float *in, size_t n, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i)
        in[i] = ex_rng_range(&state, -1.0f, 1.0f);
}

size_t reduce_seq_blocks(size_t n, unsigned block)
{
    return (n + 2 * (size_t)block - 1) / (2 * (size_t)block);
}

int reduce_seq_ref(const float *in, float *partial, size_t n, unsigned block)
{
    float sdata[REDUCE_SEQ_MAX_BLOCK];
    if (block == 0 || block > REDUCE_SEQ_MAX_BLOCK || (block & (block - 1)) != 0)
        return -1;

    size_t blocks = reduce_seq_blocks(n, block);
    for (size_t b = 0; b < blocks; ++b) {
        for (unsigned t = 0; t < block; ++t) {
            /* First element assigned, second added: the kernel's load step. */
            size_t i = b * 2 * block + t;
            float v = 0.0f;
            if (i < n)
                v = in[i];
            if (i + block < n)
                v += in[i + block];
            sdata[t] = v;
        }
        for (unsigned s = block / 2; s > 0; s >>= 1)
            for (unsigned t = 0; t < s; ++t)
                sdata[t] += sdata[t + s];
        partial[b] = sdata[0];
    }
    return 0;
}
