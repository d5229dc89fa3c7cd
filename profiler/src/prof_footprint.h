/*
 * minibench profiler: the footprint and reuse distances of one memory
 * instruction's lines (prof_memory.c defines what they mean: footprint_lines,
 * footprint_capped, reuse_log2).
 *
 * A line is identified by its key (line << 4 | space), as it always was: two
 * lines whose keys agree are the same line. Keys live in an open-addressing
 * table, except local and shared lines with small numbers: a local request
 * touches one line per distinct word of a thread's frame (see local_units in
 * prof_memory.c), and shared addresses are offsets into the CTA's shared
 * memory, so their lines are the first few thousand numbers and a directly
 * indexed array of last requests per space replaces hashing them. An array
 * grows while no line of its space has gone to the table, so every key is
 * always kept in the same one of the two places.
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

/* The directly indexed lines of one space. */
typedef struct pm_direct {
    uint64_t *last; /* line l < cap: 1 + its last request (0: never) */
    uint32_t cap;
    int hashed;     /* a line of this space is in the table: cap may no longer grow */
} pm_direct;

typedef struct pm_footprint {
    pm_line_slot *slot;   /* line table: key -> last request */
    uint32_t bits;        /* log2 of its slots, 0 before the first line */
    uint32_t count;       /* distinct lines in all places */
    int capped;           /* a new line came at PM_FOOTPRINT_CAP and was not kept */
    pm_direct local, shared;
    uint64_t reuse[PM_REUSE_BUCKETS]; /* counts per bucket; each counted bucket is
                                         reserved in the reuse histogram */
} pm_footprint;

/* The slow paths of pm_footprint_touch; 0 when out of memory. */
int pm_footprint_insert(pm_footprint *fp, uint64_t key, uint64_t r);
int pm_footprint_touch_direct_new(pm_footprint *fp, prof_hist *reuse, pm_direct *dl,
                                  unsigned space, uint64_t line, uint64_t r);

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

/* `count` reuses whose gaps all fall in bucket b. */
static inline int pm_footprint_reuses(pm_footprint *fp, prof_hist *reuse, uint32_t b,
                                      uint64_t count)
{
    const uint64_t before = fp->reuse[b];
    fp->reuse[b] = before + count;
    if (before != 0 || prof_hist_direct_reserve(reuse, fp->reuse, b, 0))
        return 1;
    fp->reuse[b] = 0; /* as if none was counted */
    return 0;
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

/* The directly indexed lines of `space`, or NULL when it has none. */
static inline pm_direct *pm_footprint_direct(pm_footprint *fp, unsigned space)
{
    return space == MB_SPACE_LOCAL ? &fp->local : space == MB_SPACE_SHARED ? &fp->shared : NULL;
}

/* pm_footprint_touch for a line of a space with directly indexed lines. */
static inline int pm_footprint_touch_direct(pm_footprint *fp, prof_hist *reuse, pm_direct *dl,
                                            unsigned space, uint64_t line, uint64_t r)
{
    const uint64_t l = line & (UINT64_MAX >> 4); /* the line as its key keeps it */
    if (l >= dl->cap || dl->last[l] == 0)
        return pm_footprint_touch_direct_new(fp, reuse, dl, space, l, r);
    const uint64_t gap = r + 1 - dl->last[l];
    dl->last[l] = r + 1;
    return pm_footprint_reuse(fp, reuse, gap);
}

/* pm_footprint_touch for the lines first + bit of `lines` of a space whose
 * array covers them (first + 64 <= cap). */
static inline int pm_footprint_touch_direct_bits(pm_footprint *fp, prof_hist *reuse,
                                                 pm_direct *dl, unsigned space, uint64_t first,
                                                 uint64_t lines, uint64_t r)
{
    uint64_t *last = dl->last + first;
    for (uint64_t m = lines; m; m &= m - 1) {
        const uint32_t bit = (uint32_t)__builtin_ctzll(m);
        const uint64_t prev = last[bit];
        if (prev == 0) {
            if (!pm_footprint_touch_direct_new(fp, reuse, dl, space, first + bit, r))
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
    pm_direct *dl = pm_footprint_direct(fp, space);
    if (dl)
        return pm_footprint_touch_direct(fp, reuse, dl, space, line, r);
    return pm_footprint_touch_hashed(fp, reuse, (line << 4) | space, r);
}

void pm_footprint_free(pm_footprint *fp);

#endif
