/*
 * minibench profiler: the footprint and reuse distances of one memory
 * instruction's lines (prof_memory.c defines what they mean: footprint_lines,
 * footprint_capped, reuse_log2).
 *
 * A line is identified by its key (line << 4 | space), as it always was: two
 * lines whose keys agree are the same line. Keys live in an open-addressing
 * table, except local lines with small numbers: a local request touches one
 * line per distinct word of a thread's frame (see local_units in
 * prof_memory.c), so its lines are the first few thousand numbers and a
 * directly indexed array of last requests replaces hashing them. The array
 * grows while no local line has gone to the table, so every key is always
 * kept in the same one of the two places.
 */
#ifndef MB_PROF_FOOTPRINT_H
#define MB_PROF_FOOTPRINT_H

#include "prof.h"

#include <stdint.h>

#define PM_FOOTPRINT_CAP ((uint32_t)1 << 20)
#define PM_REUSE_BUCKETS 65

/* A slot of the line table: key and last request side by side, one
 * cache line for four of them. */
typedef struct pm_line_slot {
    uint64_t key, last;
} pm_line_slot;

typedef struct pm_footprint {
    pm_line_slot *slot;   /* line table: key -> last request */
    uint32_t bits;        /* log2 of its slots, 0 before the first line */
    uint32_t count;       /* distinct lines in both places */
    int capped;           /* a new line came at PM_FOOTPRINT_CAP and was not kept */
    uint64_t *local_last; /* local line l < local_cap: 1 + its last request (0: never) */
    uint32_t local_cap;
    int local_hashed;     /* a local line is in the table: local_cap may no longer grow */
    uint64_t reuse[PM_REUSE_BUCKETS]; /* counts per bucket; each counted bucket is
                                         reserved in the reuse histogram */
} pm_footprint;

/* The slow paths of pm_footprint_touch; 0 when out of memory. */
int pm_footprint_insert(pm_footprint *fp, uint64_t key, uint64_t r);
int pm_footprint_touch_local_new(pm_footprint *fp, prof_hist *reuse, uint64_t line, uint64_t r);

#define PM_LT_EMPTY UINT64_MAX

/* The home slot of a key (bits >= 6): the eight lines of an aligned group
 * of eight get neighbouring slots, so that a request's consecutive lines
 * share cache lines of the table instead of each missing its own. */
static inline size_t pm_footprint_hash(uint64_t key, uint32_t bits)
{
    const uint64_t group = key >> 7; /* key = line << 4 | space */
    return (size_t)((((group * 0x9E3779B97F4A7C15ull) >> (67 - bits)) << 3) | ((key >> 4) & 7));
}

/* A reuse after gap = d + 1 >= 1 requests. */
static inline int pm_footprint_reuse(pm_footprint *fp, prof_hist *reuse, uint64_t gap)
{
    const uint32_t b = 63 - (uint32_t)__builtin_clzll(gap);
    if (fp->reuse[b]++ == 0)
        return prof_hist_direct_reserve(reuse, fp->reuse, b, 0);
    return 1;
}

/* pm_footprint_touch for a key kept in the table. */
static inline int pm_footprint_touch_hashed(pm_footprint *fp, prof_hist *reuse, uint64_t key,
                                            uint64_t r)
{
    const uint32_t bits = fp->bits;
    if (bits != 0) {
        const size_t mask = ((size_t)1 << bits) - 1;
        size_t h = pm_footprint_hash(key, bits);
        for (;;) {
            const uint64_t k = fp->slot[h].key;
            if (k == key) {
                const uint64_t gap = r - fp->slot[h].last;
                fp->slot[h].last = r;
                return pm_footprint_reuse(fp, reuse, gap);
            }
            if (k == PM_LT_EMPTY)
                break;
            h = (h + 1) & mask;
        }
    }
    return pm_footprint_insert(fp, key, r);
}

/* pm_footprint_touch for a local line. */
static inline int pm_footprint_touch_local(pm_footprint *fp, prof_hist *reuse, uint64_t line,
                                           uint64_t r)
{
    const uint64_t l = line & (UINT64_MAX >> 4); /* the line as its key keeps it */
    if (l >= fp->local_cap || fp->local_last[l] == 0)
        return pm_footprint_touch_local_new(fp, reuse, l, r);
    const uint64_t gap = r + 1 - fp->local_last[l];
    fp->local_last[l] = r + 1;
    return pm_footprint_reuse(fp, reuse, gap);
}

/* pm_footprint_touch for the local lines first + bit of `lines`, which the
 * array covers (first + 64 <= local_cap). */
static inline int pm_footprint_touch_local_bits(pm_footprint *fp, prof_hist *reuse,
                                                uint64_t first, uint64_t lines, uint64_t r)
{
    uint64_t *last = fp->local_last + first;
    for (uint64_t m = lines; m; m &= m - 1) {
        const uint32_t bit = (uint32_t)__builtin_ctzll(m);
        const uint64_t prev = last[bit];
        if (prev == 0) {
            if (!pm_footprint_touch_local_new(fp, reuse, first + bit, r))
                return 0;
            continue;
        }
        last[bit] = r + 1;
        if (!pm_footprint_reuse(fp, reuse, r + 1 - prev))
            return 0;
    }
    return 1;
}

/* Records that request r touched `line` of `space` (at most once per
 * request): a reuse when the line was touched before, else a new footprint
 * line. 0 when out of memory. */
static inline int pm_footprint_touch(pm_footprint *fp, prof_hist *reuse, uint64_t line,
                                     unsigned space, uint64_t r)
{
    if (space == MB_SPACE_LOCAL)
        return pm_footprint_touch_local(fp, reuse, line, r);
    return pm_footprint_touch_hashed(fp, reuse, (line << 4) | space, r);
}

void pm_footprint_free(pm_footprint *fp);

#endif
