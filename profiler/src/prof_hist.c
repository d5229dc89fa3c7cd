/*
 * minibench profiler: exact histograms (value -> count), see prof.h.
 *
 * The arrays are kept sorted by value at all times, so a lookup is a
 * binary search and prof_hist_sort() is normally a linear check. The two
 * common cases cost a single compare: adding to the largest value seen
 * (repeats and values arriving in increasing order) and appending a new
 * largest value. Inserting a new value in the middle moves the tail of the
 * arrays (O(n)), which is cheap for the histograms the profiler keeps
 * (tens to a few thousand distinct values). Callers that may see a very
 * large number of distinct values should bucket or cap them first (as
 * prof_memory.c does for lane strides) or batch repeated values.
 *
 * prof_hist_sort() also repairs a histogram whose arrays were filled by
 * hand in any order (duplicates are merged), in place and without
 * allocating.
 */
#include "prof.h"

#include <stdlib.h>
#include <string.h>

/* First index whose value is >= v (n when none). */
static uint32_t lower_bound(const prof_hist *h, uint64_t v)
{
    uint32_t lo = 0, hi = h->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (h->value[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Makes room for one more entry; 0 when out of memory (h unchanged). */
static int reserve_one(prof_hist *h)
{
    if (h->n < h->cap)
        return 1;
    if (h->cap > UINT32_MAX / 2)
        return 0;
    uint32_t fresh = h->cap ? h->cap * 2 : 8;
    uint64_t *v = realloc(h->value, (size_t)fresh * sizeof(*v));
    if (!v)
        return 0;
    h->value = v;
    uint64_t *c = realloc(h->count, (size_t)fresh * sizeof(*c));
    if (!c)
        return 0; /* value grew, count did not: cap stays, still consistent */
    h->count = c;
    h->cap = fresh;
    return 1;
}

int prof_hist_add(prof_hist *h, uint64_t value, uint64_t count)
{
    uint32_t n = h->n, i;
    if (n != 0) {
        uint64_t last = h->value[n - 1];
        if (value == last) { /* the common repeat */
            h->count[n - 1] += count;
            h->total += count;
            return 1;
        }
        if (value > last) {
            i = n;
        } else {
            i = lower_bound(h, value);
            if (h->value[i] == value) {
                h->count[i] += count;
                h->total += count;
                return 1;
            }
        }
    } else {
        i = 0;
    }
    if (!reserve_one(h))
        return 0;
    if (i < n) {
        memmove(h->value + i + 1, h->value + i, (size_t)(n - i) * sizeof(uint64_t));
        memmove(h->count + i + 1, h->count + i, (size_t)(n - i) * sizeof(uint64_t));
    }
    h->value[i] = value;
    h->count[i] = count;
    h->n = n + 1;
    h->total += count;
    return 1;
}

void prof_hist_free(prof_hist *h)
{
    if (!h)
        return;
    free(h->value);
    free(h->count);
    memset(h, 0, sizeof(*h));
}

/* In-place heap sort of the parallel arrays by value (deterministic, no
 * allocation); only used when a histogram was filled out of order. */
static void swap_entries(prof_hist *h, uint32_t a, uint32_t b)
{
    uint64_t t = h->value[a];
    h->value[a] = h->value[b];
    h->value[b] = t;
    t = h->count[a];
    h->count[a] = h->count[b];
    h->count[b] = t;
}

static void sift_down(prof_hist *h, uint32_t root, uint32_t end)
{
    for (;;) {
        uint64_t child = 2 * (uint64_t)root + 1;
        if (child >= end)
            return;
        uint32_t c = (uint32_t)child;
        if (c + 1 < end && h->value[c + 1] > h->value[c])
            c++;
        if (h->value[root] >= h->value[c])
            return;
        swap_entries(h, root, c);
        root = c;
    }
}

void prof_hist_sort(prof_hist *h)
{
    uint32_t n = h->n, i;
    for (i = 1; i < n; i++)
        if (h->value[i - 1] >= h->value[i])
            break;
    if (i >= n)
        return; /* already strictly increasing: the normal case */
    for (i = n / 2; i-- > 0;)
        sift_down(h, i, n);
    for (i = n; i-- > 1;) {
        swap_entries(h, 0, i);
        sift_down(h, 0, i);
    }
    /* merge duplicates and recompute the total */
    uint32_t out = 0;
    uint64_t total = 0;
    for (i = 0; i < n; i++) {
        total += h->count[i];
        if (out > 0 && h->value[out - 1] == h->value[i]) {
            h->count[out - 1] += h->count[i];
        } else {
            h->value[out] = h->value[i];
            h->count[out] = h->count[i];
            out++;
        }
    }
    h->n = out;
    h->total = total;
}
