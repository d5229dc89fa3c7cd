/*
 * minibench profiler: the line table behind an instruction's footprint and
 * reuse distances (see prof_footprint.h); the lookups that hit are inline
 * there, what grows the tables is here.
 */
#include "prof_footprint.h"

#include <stdlib.h>
#include <string.h>

/* Local and shared lines below this are kept in the directly indexed arrays:
 * a 64 KiB frame per thread or 2 MiB of shared memory, at most 128 KiB of
 * array per space and instruction. */
#define PM_DIRECT_MAX ((uint64_t)1 << 14)

static int table_grow(pm_footprint *fp)
{
    const uint32_t bits = fp->bits ? fp->bits + 1 : 6;
    const size_t size = (size_t)1 << bits;
    pm_line_slot *slot = malloc(size * sizeof(pm_line_slot));
    if (!slot)
        return 0;
    for (size_t i = 0; i < size; i++)
        slot[i].key = PM_LT_EMPTY;
    if (fp->bits) {
        const size_t old = (size_t)1 << fp->bits;
        for (size_t i = 0; i < old; i++) {
            const uint64_t k = fp->slot[i].key;
            if (k == PM_LT_EMPTY)
                continue;
            size_t h = pm_footprint_hash(k, bits);
            while (slot[h].key != PM_LT_EMPTY)
                h = (h + 1) & (size - 1);
            slot[h] = fp->slot[i];
        }
    }
    free(fp->slot);
    fp->slot = slot;
    fp->bits = bits;
    return 1;
}

int pm_footprint_insert(pm_footprint *fp, uint64_t key, uint64_t r)
{
    if (fp->count >= PM_FOOTPRINT_CAP) {
        fp->capped = 1;
        return 1;
    }
    if (fp->bits == 0 || (size_t)(fp->count + 1) * 2 > ((size_t)1 << fp->bits)) {
        if (!table_grow(fp))
            return 0;
    }
    const size_t mask = ((size_t)1 << fp->bits) - 1;
    size_t h = pm_footprint_hash(key, fp->bits);
    while (fp->slot[h].key != PM_LT_EMPTY)
        h = (h + 1) & mask;
    fp->slot[h].key = key;
    fp->slot[h].last = r;
    fp->count++;
    return 1;
}

/* Makes the array cover `line`; 0 when it cannot. */
static int direct_grow(pm_direct *dl, uint64_t line)
{
    if (dl->hashed || line >= PM_DIRECT_MAX)
        return 0;
    uint32_t cap = dl->cap ? dl->cap : 64;
    while (cap <= line)
        cap *= 2;
    uint64_t *last = realloc(dl->last, (size_t)cap * sizeof(uint64_t));
    if (!last)
        return 0;
    memset(last + dl->cap, 0, (size_t)(cap - dl->cap) * sizeof(uint64_t));
    dl->last = last;
    dl->cap = cap;
    return 1;
}

/* A line the space's array does not hold yet: new there, or beyond what it
 * can cover (then it, and from now on every line of the space beyond the
 * array, goes to the table). */
int pm_footprint_touch_direct_new(pm_footprint *fp, prof_hist *reuse, pm_direct *dl,
                                  unsigned space, uint64_t line, uint64_t r)
{
    if (line >= dl->cap && !direct_grow(dl, line)) {
        dl->hashed = 1;
        return pm_footprint_touch_hashed(fp, reuse, (line << 4) | space, r);
    }
    if (fp->count >= PM_FOOTPRINT_CAP) {
        fp->capped = 1;
        return 1;
    }
    dl->last[line] = r + 1;
    fp->count++;
    return 1;
}

void pm_footprint_free(pm_footprint *fp)
{
    free(fp->slot);
    free(fp->local.last);
    free(fp->shared.last);
}
