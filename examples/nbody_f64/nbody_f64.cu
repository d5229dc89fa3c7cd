/*
 * nbody_f64.cu - all-pairs gravitational accelerations in double precision.
 *
 * Each thread owns one body; the block streams all bodies through shared
 * memory in tiles of NBODY_F64_BLOCK (four double arrays), with a barrier
 * before and after each tile. The inner loop is f64 throughout: three
 * nested fma, a correctly rounded sqrt and a reciprocal per pair, i.e. the
 * slow double-precision pipeline and its long-latency special cases. Threads
 * past n keep loading tiles and hitting the barriers, they only skip the
 * final store; the last tile is partial when n is not a multiple of the
 * block size.
 *
 * usage: nbody_f64 [n] [seed]
 */
#include <math.h>

#include "../common/example_host.cuh"
#include "nbody_f64_ref.h"

#define NB NBODY_F64_BLOCK

extern "C" __global__ void nbody_accel_f64(const double *x, const double *y, const double *z,
                                           const double *mass, double *ax, double *ay,
                                           double *az, int n, double softening2)
{
    __shared__ double sx[NB], sy[NB], sz[NB], sm[NB];
    const int i = blockIdx.x * NB + threadIdx.x;
    const double xi = i < n ? x[i] : 0.0;
    const double yi = i < n ? y[i] : 0.0;
    const double zi = i < n ? z[i] : 0.0;

    double sum_x = 0.0, sum_y = 0.0, sum_z = 0.0;
    for (int base = 0; base < n; base += NB) {
        const int j = base + threadIdx.x;
        if (j < n) {
            sx[threadIdx.x] = x[j];
            sy[threadIdx.x] = y[j];
            sz[threadIdx.x] = z[j];
            sm[threadIdx.x] = mass[j];
        }
        __syncthreads();

        const int count = min(NB, n - base);
        for (int k = 0; k < count; ++k) {
            const double dx = sx[k] - xi;
            const double dy = sy[k] - yi;
            const double dz = sz[k] - zi;
            const double r2 = fma(dx, dx, fma(dy, dy, fma(dz, dz, softening2)));
            const double inv_r = 1.0 / sqrt(r2);
            const double s = sm[k] * (inv_r * inv_r * inv_r);
            sum_x = fma(dx, s, sum_x);
            sum_y = fma(dy, s, sum_y);
            sum_z = fma(dz, s, sum_z);
        }
        __syncthreads(); /* the next tile overwrites the shared arrays */
    }
    if (i < n) {
        ax[i] = sum_x;
        ay[i] = sum_y;
        az[i] = sum_z;
    }
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=1000] [seed=1]");
    int n = (int)example_arg(argc, argv, 1, "n", 1000, 1, 1 << 20);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 2, "seed", 1, 0, 0xffffffffu);
    const double softening2 = 1e-4;

    size_t bytes = (size_t)n * sizeof(double);
    double *h[7], *expect[3];
    for (int a = 0; a < 7; ++a)
        h[a] = (double *)example_host_alloc(bytes);
    for (int a = 0; a < 3; ++a)
        expect[a] = (double *)example_host_alloc(bytes);
    nbody_f64_init(h[0], h[1], h[2], h[3], n, seed);

    double *d[7]; /* x, y, z, mass, ax, ay, az */
    for (int a = 0; a < 7; ++a)
        CUDA_CHECK(cudaMalloc((void **)&d[a], bytes));
    for (int a = 0; a < 4; ++a)
        CUDA_CHECK(cudaMemcpy(d[a], h[a], bytes, cudaMemcpyHostToDevice));

    unsigned grid = example_div_up(n, NB);
    nbody_accel_f64<<<grid, NB>>>(d[0], d[1], d[2], d[3], d[4], d[5], d[6], n, softening2);
    CUDA_CHECK_LAUNCH();
    for (int a = 4; a < 7; ++a)
        CUDA_CHECK(cudaMemcpy(h[a], d[a], bytes, cudaMemcpyDeviceToHost));

    nbody_f64_ref(h[0], h[1], h[2], h[3], expect[0], expect[1], expect[2], n, softening2);
    size_t mismatches = 0, inexact = 0;
    double max_err = 0.0;
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < n; ++i) {
            const double got = h[4 + a][i], want = expect[a][i];
            const double err = fabs(got - want) / fmax(1e-12, fabs(want));
            if (got != want)
                ++inexact;
            if (!(err <= NBODY_F64_TOLERANCE))
                ++mismatches;
            if (err > max_err)
                max_err = err;
        }
    }

    printf("nbody_f64: n=%d grid=%u block=%d mismatches=%zu not-bit-exact=%zu max_rel_err=%.3g "
           "(tol %.0e)\n", n, grid, NB, mismatches, inexact, max_err, NBODY_F64_TOLERANCE);
    for (int a = 0; a < 7; ++a) {
        CUDA_CHECK(cudaFree(d[a]));
        free(h[a]);
    }
    for (int a = 0; a < 3; ++a)
        free(expect[a]);
    return example_verdict(mismatches == 0);
}
