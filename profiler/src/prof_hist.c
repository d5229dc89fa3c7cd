/*
 * minibench profiler: exact histograms (value -> count), see prof.h.
 *
 * New values are appended; past a few distinct values a hash index finds
 * existing ones, so adding costs O(1) however many values there are (the
 * lane strides of random accesses have thousands). Repeating the last
 * value costs one compare. prof_hist_sort() orders the arrays for readers
 * (a linear check when values came in increasing order) and also repairs a
 * histogram whose arrays were filled by hand in any order (duplicates are
 * merged).
 */
#include "prof.h"

#include <stdlib.h>
#include <string.h>

enum { LINEAR_LIMIT = 16 };

static uint32_t hash64(uint64_t v)
{
    v ^= v >> 33;
    v *= UINT64_C(0xff51afd7ed558ccd);
    v ^= v >> 33;
    return (uint32_t)v;
}

/* Rebuilds the index for the current entries with room to grow; 0 when out of memory. */
static int rebuild_index(prof_hist *h)
{
    uint32_t slots = 64;
    while (slots < 2 * (h->n + 1))
        slots *= 2;
    uint32_t *index = calloc(slots, sizeof(uint32_t));
    if (!index)
        return 0;
    for (uint32_t i = 0; i < h->n; i++) {
        uint32_t k = hash64(h->value[i]) & (slots - 1);
        while (index[k])
            k = (k + 1) & (slots - 1);
        index[k] = i + 1;
    }
    free(h->index);
    h->index = index;
    h->index_slots = slots;
    return 1;
}

/* Position of `value`, or -1 (and *slot, the index slot where it would go). */
static int64_t find(const prof_hist *h, uint64_t value, uint32_t *slot)
{
    if (!h->index) {
        for (uint32_t i = 0; i < h->n; i++)
            if (h->value[i] == value)
                return i;
        return -1;
    }
    uint32_t k = hash64(value) & (h->index_slots - 1);
    while (h->index[k]) {
        if (h->value[h->index[k] - 1] == value)
            return h->index[k] - 1;
        k = (k + 1) & (h->index_slots - 1);
    }
    *slot = k;
    return -1;
}

/* Frees the arrays: none while they are h->local, one allocation as
 * reserve_one makes them, two when a caller filled them by hand. */
static void release_arrays(prof_hist *h)
{
    if (h->value == h->local)
        return;
    if (!h->value || h->count != h->value + h->cap)
        free(h->count);
    free(h->value);
}

/* Makes room for one more entry; 0 when out of memory (h unchanged). Values
 * and counts share one allocation (counts right after `cap` values): a
 * profile makes thousands of small histograms, so one allocation each
 * rather than two matters. */
static int reserve_one(prof_hist *h)
{
    if (h->n < h->cap)
        return 1;
    if (h->cap == 0 && !h->value) {
        h->value = h->local;
        h->count = h->local + PROF_HIST_LOCAL;
        h->cap = PROF_HIST_LOCAL;
        return 1;
    }
    if (h->cap > UINT32_MAX / 2)
        return 0;
    uint32_t fresh = h->cap ? h->cap * 2 : 8;
    uint64_t *v = malloc((size_t)fresh * 2 * sizeof(*v));
    if (!v)
        return 0;
    if (h->n) {
        memcpy(v, h->value, (size_t)h->n * sizeof(*v));
        memcpy(v + fresh, h->count, (size_t)h->n * sizeof(*v));
    }
    release_arrays(h);
    h->value = v;
    h->count = v + fresh;
    h->cap = fresh;
    return 1;
}

int prof_hist_contains(const prof_hist *h, uint64_t value)
{
    uint32_t slot;
    return find(h, value, &slot) >= 0;
}

/* New values are appended (out of order when smaller than the last one) and
 * found again through a hash index once there are more than a few, so an
 * add costs O(1) however many distinct values there are; prof_hist_sort()
 * puts them in order for readers. */
int prof_hist_add(prof_hist *h, uint64_t value, uint64_t count)
{
    uint32_t n = h->n;
    if (n != 0 && h->value[n - 1] == value) { /* the common repeat */
        h->count[n - 1] += count;
        h->total += count;
        return 1;
    }
    uint32_t slot = 0;
    int64_t at = find(h, value, &slot);
    if (at >= 0) {
        h->count[at] += count;
        h->total += count;
        return 1;
    }
    if (!reserve_one(h))
        return 0;
    if (n != 0 && value < h->value[n - 1])
        h->unsorted = 1;
    h->value[n] = value;
    h->count[n] = count;
    h->n = n + 1;
    h->total += count;
    if (h->index) {
        h->index[slot] = n + 1;
        if (2 * h->n > h->index_slots && !rebuild_index(h)) {
            free(h->index); /* fall back to linear lookups */
            h->index = NULL;
        }
    } else if (h->n > LINEAR_LIMIT) {
        rebuild_index(h); /* on failure lookups stay linear */
    }
    return 1;
}

void prof_hist_free(prof_hist *h)
{
    if (!h)
        return;
    release_arrays(h);
    free(h->index);
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
    h->unsorted = 0;
    if (h->index && !rebuild_index(h)) { /* positions moved */
        free(h->index);
        h->index = NULL;
    }
}

int prof_hist_direct_reserve(prof_hist *h, uint64_t *direct, uint64_t i, uint64_t base)
{
    if (prof_hist_add(h, base + i, 0))
        return 1;
    direct[i]--;
    return 0;
}

void prof_hist_direct_drain(prof_hist *h, uint64_t *direct, uint64_t size, uint64_t base)
{
    if (h->n < size) {
        /* fewer entries than direct slots: every counted value has an
         * entry, so look the entries up instead of scanning the slots */
        for (uint32_t k = 0; k < h->n; k++) {
            const uint64_t i = h->value[k] - base;
            if (i < size && direct[i]) {
                h->count[k] += direct[i];
                h->total += direct[i];
                direct[i] = 0;
            }
        }
        return;
    }
    for (uint64_t i = 0; i < size; i++)
        if (direct[i]) {
            (void)prof_hist_add(h, base + i, direct[i]); /* reserved: cannot fail */
            direct[i] = 0;
        }
}
