/* Internal declarations shared by the synth sources. */
#ifndef MB_SYNTH_INTERNAL_H
#define MB_SYNTH_INTERNAL_H

#include <minibench/synth.h>

#include <stdarg.h>
#include <stdio.h>

/* How a loop's trip counts shrink (trip_reduce.c): a trip t becomes
 * max(1, floor(t / div + offset)); div 0 means every trip becomes 1. */
typedef struct mb_trip_scale {
    double div, offset;
} mb_trip_scale;

/* The scale of loop l at reduction r (0: max): div = r and no offset, except
 * for a loop whose every warp mixes trip counts, which keeps the fewest
 * iterations that express its SIMD efficiency (docs/synth.md). */
mb_trip_scale mb_sprof_trip_scale(const mb_sprof_loop *l, double r);
uint64_t mb_sprof_reduced_trip(mb_trip_scale s, int64_t t);
/* The mean of loop l's reduced trips over its activations (what `compare`
 * expects of the clone's). */
double mb_sprof_reduced_mean_trip(const mb_sprof_loop *l, double r);

/* mb_sprof_expected_ecount_in for function f as its loops alone scale it
 * (compare.c): the factor of a called function's calls left out. */
double mb_sprof_func_expected_ecount(const mb_sprof_func *f, int block, double r);

/* The least total variation distance from h's distribution of any histogram
 * of n counts (compare.c): compare's check accepts a clone's distribution
 * that near, whatever its tolerance. */
double mb_hist_tv_floor(const mb_hist *h, uint64_t n);

#endif
