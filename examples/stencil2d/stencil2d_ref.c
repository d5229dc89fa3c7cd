/* stencil2d_ref.c - host reference for the stencil2d example. */
#include "stencil2d_ref.h"

#include "../common/example_rng.h"

void stencil2d_init(float *grid, size_t nx, size_t ny, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t y = 0; y < ny; ++y) {
        for (size_t x = 0; x < nx; ++x) {
            int edge = x == 0 || y == 0 || x == nx - 1 || y == ny - 1;
            grid[y * nx + x] = edge ? ex_rng_range(&state, 0.0f, 100.0f) : 0.0f;
        }
    }
}

void stencil2d_step(const float *in, float *out, size_t nx, size_t ny)
{
    for (size_t y = 0; y < ny; ++y) {
        for (size_t x = 0; x < nx; ++x) {
            size_t i = y * nx + x;
            if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1)
                out[i] = in[i];
            else
                out[i] = 0.25f * ((in[i - 1] + in[i + 1]) + (in[i - nx] + in[i + nx]));
        }
    }
}

float *stencil2d_ref(float *grid, float *scratch, size_t nx, size_t ny, unsigned iters)
{
    float *src = grid, *dst = scratch;
    for (unsigned it = 0; it < iters; ++it) {
        stencil2d_step(src, dst, nx, ny);
        float *swap = src;
        src = dst;
        dst = swap;
    }
    return src;
}
