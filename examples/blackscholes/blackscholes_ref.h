/*
 * blackscholes_ref.h - host reference for the blackscholes example: prices
 * of European call and put options under the Black-Scholes model in single
 * precision, with the cumulative normal distribution approximated by the
 * Abramowitz-Stegun polynomial 26.2.17 (absolute error below 7.5e-8).
 *
 *   d1 = (ln(S/X) + (r + v^2/2) T) / (v sqrt(T)),  d2 = d1 - v sqrt(T)
 *   call = S N(d1) - X e^(-rT) N(d2)
 *   put  = X e^(-rT) (1 - N(d2)) - S (1 - N(d1))
 *
 * Every multiply-add is written as an explicit fmaf in the kernel and in the
 * reference, so both perform the same roundings except inside expf and logf:
 * CUDA's expf is accurate to 2 ulp and logf to 1 ulp, the C library's to
 * about 1 ulp, and sqrtf and division are correctly rounded on both. The
 * example therefore accepts |gpu - ref| <= 1e-4 * max(1, |ref|)
 * (BLACKSCHOLES_TOLERANCE); prices are of order 1..100.
 */
#ifndef BLACKSCHOLES_REF_H
#define BLACKSCHOLES_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BLACKSCHOLES_TOLERANCE 1e-4f

/* Abramowitz-Stegun 26.2.17 constants, shared with the kernel. */
#define BS_P 0.2316419f
#define BS_A1 0.319381530f
#define BS_A2 (-0.356563782f)
#define BS_A3 1.781477937f
#define BS_A4 (-1.821255978f)
#define BS_A5 1.330274429f
#define BS_INV_SQRT_2PI 0.39894228040143267794f

/* Fills spot prices S in [10, 100), strikes X in [10, 100) and expiries T in
 * [0.1, 5) years, n of each. */
void blackscholes_init(float *spot, float *strike, float *years, size_t n, uint32_t seed);

/* Cumulative standard normal distribution N(d), as the kernel evaluates it. */
float blackscholes_cnd(float d);

/* call[i], put[i] for riskless rate `rate` and volatility `vol`. */
void blackscholes_ref(const float *spot, const float *strike, const float *years, float *call,
                      float *put, size_t n, float rate, float vol);

#ifdef __cplusplus
}
#endif

#endif /* BLACKSCHOLES_REF_H */
