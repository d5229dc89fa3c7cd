/*
 * nested_loops_ref.h - host reference for the nested_loops example: a
 * "valid" 1D convolution (correlation form) of an input of n + ntaps - 1
 * floats with ntaps filter taps:
 *   out[o] = sum over k in [0, ntaps) of in[o + k] * taps[k],  o < n
 * accumulated as acc = fmaf(in[o + k], taps[k], acc) in ascending k.
 *
 * Accuracy: the kernel uses the same fmaf chain in the same order, so the
 * results are expected to be bit-identical; the example accepts a relative
 * error of 1e-5 against max(1, |expected|).
 */
#ifndef NESTED_LOOPS_REF_H
#define NESTED_LOOPS_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NESTED_LOOPS_TOLERANCE 1e-5f

/* Number of input samples for n outputs: n + ntaps - 1. */
size_t nested_loops_input_len(size_t n, size_t ntaps);

/* Fills in (nested_loops_input_len(n, ntaps) floats, uniform in [-1, 1))
 * and taps (ntaps floats, a smooth window scaled to sum to about 1). */
void nested_loops_init(float *in, float *taps, size_t n, size_t ntaps, uint32_t seed);

/* out[o] for o < n. */
void nested_loops_ref(const float *in, const float *taps, float *out, size_t n, size_t ntaps);

#ifdef __cplusplus
}
#endif

#endif /* NESTED_LOOPS_REF_H */
