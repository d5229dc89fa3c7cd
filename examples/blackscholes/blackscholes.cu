/*
 * blackscholes.cu - Black-Scholes pricing of European options, one thread
 * per option, in single precision.
 *
 * A compute-bound kernel dominated by special functions: per option one
 * logf, one sqrtf, three expf, two reciprocal/divisions and two degree-5
 * polynomials in fmaf. Its only divergence is the sign test inside the
 * cumulative normal (d > 0), which depends on the data. The helper is a
 * __device__ __forceinline__ function, so it leaves no .func in the PTX.
 *
 * usage: blackscholes [n] [block] [seed]   (rate 0.02, volatility 0.30)
 */
#include <math.h>

#include "../common/example_host.cuh"
#include "blackscholes_ref.h"

/* Same operation order as blackscholes_cnd() in the reference. */
__device__ __forceinline__ float cnd(float d)
{
    const float k = 1.0f / fmaf(BS_P, fabsf(d), 1.0f);
    float poly = fmaf(k, BS_A5, BS_A4);
    poly = fmaf(k, poly, BS_A3);
    poly = fmaf(k, poly, BS_A2);
    poly = fmaf(k, poly, BS_A1);
    poly = k * poly;
    const float t = BS_INV_SQRT_2PI * expf(-0.5f * d * d);
    return d > 0.0f ? fmaf(-t, poly, 1.0f) : t * poly;
}

extern "C" __global__ void black_scholes(const float *spot, const float *strike,
                                         const float *years, float *call, float *put, int n,
                                         float rate, float vol)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float s = spot[i], x = strike[i], t = years[i];
    const float vol_sqrt_t = vol * sqrtf(t);
    const float drift = fmaf(0.5f * vol, vol, rate);
    const float d1 = fmaf(drift, t, logf(s / x)) / vol_sqrt_t;
    const float d2 = d1 - vol_sqrt_t;
    const float n1 = cnd(d1);
    const float n2 = cnd(d2);
    const float discounted = x * expf(-rate * t);
    call[i] = fmaf(s, n1, -(discounted * n2));
    put[i] = fmaf(discounted, 1.0f - n2, -(s * (1.0f - n1)));
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=50000] [block=128] [seed=1]");
    int n = (int)example_arg(argc, argv, 1, "n", 50000, 1, 1 << 26);
    unsigned block = (unsigned)example_arg(argc, argv, 2, "block", 128, 32, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 3, "seed", 1, 0, 0xffffffffu);
    const float rate = 0.02f, vol = 0.30f;

    size_t bytes = (size_t)n * sizeof(float);
    float *spot = (float *)example_host_alloc(bytes);
    float *strike = (float *)example_host_alloc(bytes);
    float *years = (float *)example_host_alloc(bytes);
    float *call = (float *)example_host_alloc(bytes);
    float *put = (float *)example_host_alloc(bytes);
    float *expect_call = (float *)example_host_alloc(bytes);
    float *expect_put = (float *)example_host_alloc(bytes);
    blackscholes_init(spot, strike, years, n, seed);

    float *d_spot, *d_strike, *d_years, *d_call, *d_put;
    CUDA_CHECK(cudaMalloc((void **)&d_spot, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_strike, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_years, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_call, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_put, bytes));
    CUDA_CHECK(cudaMemcpy(d_spot, spot, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_strike, strike, bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_years, years, bytes, cudaMemcpyHostToDevice));

    unsigned grid = example_div_up(n, block);
    black_scholes<<<grid, block>>>(d_spot, d_strike, d_years, d_call, d_put, n, rate, vol);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(call, d_call, bytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(put, d_put, bytes, cudaMemcpyDeviceToHost));

    /* expf/logf differ by a few ulp between CUDA and the C library. */
    blackscholes_ref(spot, strike, years, expect_call, expect_put, n, rate, vol);
    size_t mismatches = 0;
    float max_err = 0.0f;
    for (int i = 0; i < n; ++i) {
        float ec = fabsf(call[i] - expect_call[i]) / fmaxf(1.0f, fabsf(expect_call[i]));
        float ep = fabsf(put[i] - expect_put[i]) / fmaxf(1.0f, fabsf(expect_put[i]));
        float err = fmaxf(ec, ep);
        if (!(err <= BLACKSCHOLES_TOLERANCE))
            ++mismatches;
        if (err > max_err)
            max_err = err;
    }

    printf("blackscholes: n=%d grid=%u block=%u mismatches=%zu max_scaled_err=%.3g (tol %.0e)\n",
           n, grid, block, mismatches, max_err, BLACKSCHOLES_TOLERANCE);
    CUDA_CHECK(cudaFree(d_spot));
    CUDA_CHECK(cudaFree(d_strike));
    CUDA_CHECK(cudaFree(d_years));
    CUDA_CHECK(cudaFree(d_call));
    CUDA_CHECK(cudaFree(d_put));
    free(spot);
    free(strike);
    free(years);
    free(call);
    free(put);
    free(expect_call);
    free(expect_put);
    return example_verdict(mismatches == 0);
}
