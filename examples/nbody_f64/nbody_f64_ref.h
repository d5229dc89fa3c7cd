/*
 * nbody_f64_ref.h - host reference for the nbody_f64 example: all-pairs
 * gravitational accelerations in double precision with Plummer softening,
 *   a_i = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps^2)^(3/2)
 * (G = 1; the j = i term is zero because p_j - p_i = 0).
 *
 * Accuracy: the kernel and the reference use the same explicit fma calls,
 * the same j order, and correctly rounded sqrt and division (sqrt.rn.f64,
 * div.rn.f64/rcp.rn.f64 on the GPU), so results are expected to be
 * bit-identical. The example accepts a relative error of 1e-12 against
 * max(1e-12, |expected|), NBODY_F64_TOLERANCE.
 */
#ifndef NBODY_F64_REF_H
#define NBODY_F64_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bodies per shared-memory tile; the kernel runs with this many threads. */
#define NBODY_F64_BLOCK 128
#define NBODY_F64_TOLERANCE 1e-12

/* Positions uniform in the cube [-1, 1)^3, masses in [0.5, 1.5). */
void nbody_f64_init(double *x, double *y, double *z, double *mass, size_t n, uint32_t seed);

/* Accelerations of all n bodies; softening2 = eps^2 > 0. */
void nbody_f64_ref(const double *x, const double *y, const double *z, const double *mass,
                   double *ax, double *ay, double *az, size_t n, double softening2);

#ifdef __cplusplus
}
#endif

#endif /* NBODY_F64_REF_H */
