/*
 * stencil2d_ref.h - host reference for the stencil2d example: Jacobi
 * iterations of the 5-point Laplace stencil on an nx x ny grid (row-major,
 * x fastest) with fixed (Dirichlet) boundary values:
 *   interior: out[y][x] = 0.25f * ((in[y][x-1] + in[y][x+1]) + (in[y-1][x] + in[y+1][x]))
 *   boundary: out[y][x] = in[y][x]
 *
 * Accuracy: the same three additions and one multiplication in the same
 * order on both sides (no multiply-add to contract), so results are
 * bit-identical.
 */
#ifndef STENCIL2D_REF_H
#define STENCIL2D_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills grid (nx * ny): boundary cells uniform in [0, 100), interior 0. */
void stencil2d_init(float *grid, size_t nx, size_t ny, uint32_t seed);

/* One Jacobi step from in to out. */
void stencil2d_step(const float *in, float *out, size_t nx, size_t ny);

/*
 * Runs `iters` steps starting from grid, ping-ponging with scratch (same
 * size), and returns a pointer to whichever of the two holds the result,
 * exactly as the example's host loop does.
 */
float *stencil2d_ref(float *grid, float *scratch, size_t nx, size_t ny, unsigned iters);

#ifdef __cplusplus
}
#endif

#endif /* STENCIL2D_REF_H */
