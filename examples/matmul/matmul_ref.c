/* matmul_ref.c - host reference for the matmul example. */
#include "matmul_ref.h"

#include <math.h>

#include "../common/example_rng.h"

void matmul_init(float *a, float *b, size_t m, size_t n, size_t k, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < m * k; ++i)
        a[i] = ex_rng_range(&state, -1.0f, 1.0f);
    for (size_t i = 0; i < k * n; ++i)
        b[i] = ex_rng_range(&state, -1.0f, 1.0f);
}

void matmul_ref(const float *a, const float *b, float *c, size_t m, size_t n, size_t k)
{
    for (size_t row = 0; row < m; ++row) {
        for (size_t col = 0; col < n; ++col) {
            float acc = 0.0f;
            for (size_t i = 0; i < k; ++i)
                acc = fmaf(a[row * k + i], b[i * n + col], acc);
            c[row * n + col] = acc;
        }
    }
}
