/*
 * tid_loop_ref.h - host reference for the tid_loop example. Thread t of a
 * block of `block` threads (global index i = b*block + t) computes
 *   trips = t % 7 + 1
 *   acc = 0; for k in [0, trips): acc = acc * 33 + (in[i] ^ k)
 *   out[i] = acc                       (unsigned 32-bit, wrapping)
 * The trip count depends on threadIdx.x only (not on the global index), so
 * the reference needs the block size.
 *
 * Accuracy: integers, exact.
 */
#ifndef TID_LOOP_REF_H
#define TID_LOOP_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Distinct trip counts: 1 .. TID_LOOP_PERIOD. */
#define TID_LOOP_PERIOD 7

/* Fills in[0..n) with uniform 32-bit values. */
void tid_loop_init(uint32_t *in, size_t n, uint32_t seed);

/* The loop trip count of thread index t within its block. */
uint32_t tid_loop_trips(uint32_t t);

/* out[i] for i < n, with threads grouped in blocks of `block`. */
void tid_loop_ref(const uint32_t *in, uint32_t *out, size_t n, uint32_t block);

#ifdef __cplusplus
}
#endif

#endif /* TID_LOOP_REF_H */
