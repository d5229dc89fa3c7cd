/* nbody_f64_ref.c - host reference for the nbody_f64 example. */
#include "nbody_f64_ref.h"

#include <math.h>

#include "../common/example_rng.h"

void nbody_f64_init(double *x, double *y, double *z, double *mass, size_t n, uint32_t seed)
{
    uint32_t state = ex_rng_seed(seed);
    for (size_t i = 0; i < n; ++i) {
        x[i] = 2.0 * ex_rng_unit_double(&state) - 1.0;
        y[i] = 2.0 * ex_rng_unit_double(&state) - 1.0;
        z[i] = 2.0 * ex_rng_unit_double(&state) - 1.0;
        mass[i] = 0.5 + ex_rng_unit_double(&state);
    }
}

void nbody_f64_ref(const double *x, const double *y, const double *z, const double *mass,
                   double *ax, double *ay, double *az, size_t n, double softening2)
{
    for (size_t i = 0; i < n; ++i) {
        double sum_x = 0.0, sum_y = 0.0, sum_z = 0.0;
        for (size_t j = 0; j < n; ++j) {
            const double dx = x[j] - x[i];
            const double dy = y[j] - y[i];
            const double dz = z[j] - z[i];
            const double r2 = fma(dx, dx, fma(dy, dy, fma(dz, dz, softening2)));
            const double inv_r = 1.0 / sqrt(r2);
            const double s = mass[j] * (inv_r * inv_r * inv_r);
            sum_x = fma(dx, s, sum_x);
            sum_y = fma(dy, s, sum_y);
            sum_z = fma(dz, s, sum_z);
        }
        ax[i] = sum_x;
        ay[i] = sum_y;
        az[i] = sum_z;
    }
}
