/* How a loop's trip counts shrink at a reduction factor: the one rule the
 * clone model and `compare`'s expected counts share. */
#include "synth_internal.h"

#include <math.h>

/* The largest trip count and the mean of a loop's activations. */
static int trip_range(const mb_sprof_loop *l, double *longest, double *mean)
{
    double n = 0, sum = 0, hi = 0;
    for (size_t j = 0; j < l->trips.n; j++) {
        double t = l->trips.key[j] > 0 ? (double)l->trips.key[j] : 1;
        n += (double)l->trips.count[j];
        sum += t * (double)l->trips.count[j];
        if (t > hi)
            hi = t;
    }
    if (n <= 0)
        return 0;
    *longest = hi;
    *mean = sum / n;
    return 1;
}

/* The mean of loop l's trips, each reduced by scale s, over its activations. */
static double reduced_mean(const mb_sprof_loop *l, mb_trip_scale s)
{
    double n = 0, sum = 0;
    for (size_t j = 0; j < l->trips.n; j++) {
        n += (double)l->trips.count[j];
        sum += (double)mb_sprof_reduced_trip(s, l->trips.key[j]) * (double)l->trips.count[j];
    }
    return n > 0 ? sum / n : 1;
}

mb_trip_scale mb_sprof_trip_scale(const mb_sprof_loop *l, double r)
{
    mb_trip_scale s = {r > 0 ? r : 0, 0};
    double longest, mean;
    /* Every warp mixes trip counts (a loop bounded by tid % k, or by data
     * that differs in every lane): the warp runs to its longest lane, and
     * the share of lanes still busy, mean / longest, is the loop's SIMD
     * efficiency. Making every trip 1 makes it 100%; the fewest iterations
     * that can still express it is ceil(longest / mean), at least 2, so the
     * loop is not reduced below that, with its trips scaled in proportion
     * (a lane's share of the longest trip kept) and rounded with the offset
     * that keeps the mean. */
    if (l->trips.n < 2 || l->warp_activations == 0 || l->warp_activations_differing != l->warp_activations ||
        !trip_range(l, &longest, &mean))
        return s;
    double keep = ceil(longest / mean - 1e-9);
    if (keep < 2)
        keep = 2;
    if (keep >= longest)
        return s.div > 0 && s.div <= 1 ? s : (mb_trip_scale){1, 0};
    double cap = longest / keep;
    if (s.div > 0 && s.div <= cap)
        return s;
    s.div = cap;
    /* the offsets where some trip's rounded value changes, and 0; the one
     * whose mean is nearest mean / cap, the smallest on ties */
    double want = mean / cap, best = fabs(reduced_mean(l, (mb_trip_scale){cap, 0}) - want);
    for (size_t j = 0; j < l->trips.n; j++) {
        double q = (double)(l->trips.key[j] > 0 ? l->trips.key[j] : 1) / cap;
        double off = ceil(q - 1e-9) - q;
        if (off <= 1e-9 || off >= 1)
            continue;
        off += 1e-9; /* just past the step, against rounding in the division */
        double err = fabs(reduced_mean(l, (mb_trip_scale){cap, off}) - want);
        if (err < best - 1e-12 || (err < best + 1e-12 && off < s.offset)) {
            best = err;
            s.offset = off;
        }
    }
    return s;
}

uint64_t mb_sprof_reduced_trip(mb_trip_scale s, int64_t t)
{
    if (s.div <= 0)
        return 1;
    double v = floor((double)(t > 0 ? t : 1) / s.div + s.offset);
    if (v < 1)
        return 1;
    return v > 2147483647.0 ? 2147483647u : (uint64_t)v;
}

double mb_sprof_reduced_mean_trip(const mb_sprof_loop *l, double r)
{
    return reduced_mean(l, mb_sprof_trip_scale(l, r));
}
