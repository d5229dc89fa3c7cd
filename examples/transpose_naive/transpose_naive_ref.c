/* transpose_naive_ref.c - host reference for the transpose_naive example. */
#include "transpose_naive_ref.h"

#include "../common/example_rng.h"

void transpose_naive_init(float *in, size_t rows, size_t cols, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < rows * cols; ++i)
        in[i] = ex_rng_range(&state, -1000.0f, 1000.0f);
}

void transpose_naive_ref(const float *in, float *out, size_t rows, size_t cols)
{
    for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c)
            out[c * rows + r] = in[r * cols + c];
}
