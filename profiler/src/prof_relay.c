/* Memory requests relayed to a counting thread: see prof_relay.h. */
#define _POSIX_C_SOURCE 200809L
#include "prof_relay.h"

#include <minibench/util.h>

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    /* 16 KB a chunk, a hundred-odd requests: at the end of a launch the
     * collector waits for the last chunk to be counted, and the chunks in
     * flight stay in the cores' caches */
    CHUNK_WORDS = 1 << 11,
    /* chunks in the ring: the launch runs ahead of the counting by up to
     * a megabyte of requests before it waits */
    NCHUNKS = 64,
    /* how long a side polls the other's counter before it sleeps: the
     * launch fills a chunk every few tens of microseconds and the counting
     * is faster, so a thread that slept whenever it caught up would pay a
     * system call and a context switch for nearly every chunk */
    SPIN_NS = 20000,
    /* a sleeping counting thread is woken when this many chunks wait for
     * it, or when the launch ends (where the collector waits for it) */
    WAKE_AT = 2
};
static_assert(WAKE_AT <= NCHUNKS, "a full ring wakes the counting thread");

/* A request's header, 16 bytes: the instruction is a slot number and the
 * lane count the executed mask's, since the headers are a third of what
 * crosses from one core to the other. */
typedef struct relay_head {
    uint32_t slot;
    uint32_t executed;
    uint16_t form;   /* HEAD_WORDS_MASK: this header and its payload; HEAD_* flags */
    uint16_t copied; /* bit k (k >= 3): feature column k follows in the payload */
    uint16_t access_bytes;
    uint8_t space;
    uint8_t warp; /* the warp's index in its CTA (features; a CTA has at most 32) */
} relay_head;

enum {
    HEAD_WORDS_MASK = 0x3ff,
    HEAD_TID_SHIFT = 10,    /* 3 bits: thread-id column k is per lane (else uniform) */
    HEAD_STRIDED = 1 << 13, /* the addresses are a0 + i d: the payload holds a0 and d */
    HEAD_FEATURES = 1 << 14
};

/* The payload: the executed lanes' addresses in lane order (or a0 and d),
 * then (with features) the uniform values of columns 3 on and 32 lane
 * values per copied column, in column order. */
#define HEAD_WORDS (sizeof(relay_head) / 8)
static_assert(sizeof(relay_head) == 16, "a header is two words");
static_assert(HEAD_WORDS + 32 + RELAY_MAX_FEATURES * 33 <= CHUNK_WORDS,
              "a request always fits an empty chunk");
static_assert(HEAD_WORDS + 32 + RELAY_MAX_FEATURES * 33 <= HEAD_WORDS_MASK,
              "a request's size fits its header");

/* One producer (the collector) and one consumer (the counting thread):
 * chunk k of the ring is written by the collector while k >= counted and
 * read by the thread while k < handed. The counters are the hand-over; the
 * lock and conditions only put a side to sleep and wake it. */
struct prof_relay {
    relay_slot *slots;
    uint32_t nslots;
    const int64_t *tid_table;
    uint64_t *chunk[NCHUNKS];
    size_t used[NCHUNKS]; /* words of a handed-over chunk */
    /* chunks handed over and chunks counted, ever: chunk k is ring entry
     * k % NCHUNKS */
    _Atomic uint64_t handed_n, counted_n;
    _Atomic int thread_sleeps, collector_sleeps, stop;
    int oom; /* some count ran out of memory (the thread's, read after a drain) */
    pthread_mutex_t lock;
    pthread_cond_t handed; /* a chunk was handed over, or stop was set */
    pthread_cond_t counted;
    pthread_t thread;
    /* the collector's own: words in the chunk it writes, entry handed_n % NCHUNKS */
    size_t fill;
};

/* Counts one relayed request, rebuilt as the collector would have passed it. */
static int count_relayed(const prof_relay *r, const relay_head *h)
{
    const uint64_t *pay = (const uint64_t *)h + HEAD_WORDS;
    const uint32_t executed = h->executed, lanes = (uint32_t)mb_popcount32(executed);
    relay_slot *slot = &r->slots[h->slot];
    uint64_t regenerated[32];
    const uint64_t *addrs = pay;
    const int strided = (h->form & HEAD_STRIDED) != 0;
    if (strided) {
        uint64_t e = pay[0];
        for (uint32_t i = 0; i < lanes; i++, e += pay[1])
            regenerated[i] = e;
        addrs = regenerated;
    }
    uint8_t numbers[32];
    prof_mem_request req = {.addrs = addrs,
                            .access_bytes = h->access_bytes,
                            .space = (mb_space)h->space};
    prof_mem_request_lanes(&req, executed, numbers);
    const int64_t *cols[RELAY_MAX_FEATURES];
    int64_t uniform[RELAY_MAX_FEATURES];
    if (h->form & HEAD_FEATURES) {
        const uint32_t nf = slot->nfeatures;
        const int64_t *tids = r->tid_table + (size_t)h->warp * 96;
        const int64_t *next = (const int64_t *)pay + (strided ? 2 : lanes);
        for (uint32_t k = 0; k < 3; k++) {
            cols[k] = h->form >> (HEAD_TID_SHIFT + k) & 1 ? tids + 32 * k : NULL;
            uniform[k] = tids[32 * k];
        }
        for (uint32_t k = 3; k < nf; k++)
            uniform[k] = *next++;
        for (uint32_t k = 3; k < nf; k++) {
            if (h->copied >> k & 1) {
                cols[k] = next;
                next += 32;
            } else {
                cols[k] = NULL;
            }
        }
        req.feature_lanes = cols;
        req.feature_uniform = uniform;
        req.warp_tag = (uint32_t)h->warp + 1;
    }
    const int ok = prof_mem_add(slot->pm, &req);
    /* the collector reads the flag before every request: write it only when
     * it falls, so the line it shares stays in the collector's cache */
    if (atomic_load_explicit(&slot->features, memory_order_relaxed) &&
        !prof_mem_needs_features(slot->pm))
        atomic_store_explicit(&slot->features, 0, memory_order_relaxed);
    return ok;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Waits until `*value` differs from `seen` or `stop` is set, first polling,
 * then asleep on `cond` with `*sleeps` set. The other side stores its counter
 * before reading `*sleeps` and this side sets `*sleeps` before reading the
 * counter again (both sequentially consistent), so one of them sees the
 * other's store and no wake-up is lost. */
static void wait_change(prof_relay *r, _Atomic uint64_t *value, uint64_t seen,
                        _Atomic int *sleeps, pthread_cond_t *cond)
{
    const uint64_t start = now_ns();
    for (uint32_t i = 1;; i++) {
        if (atomic_load_explicit(value, memory_order_acquire) != seen ||
            atomic_load_explicit(&r->stop, memory_order_relaxed))
            return;
        cpu_relax();
        if (i % 64 == 0 && now_ns() - start > SPIN_NS)
            break;
    }
    pthread_mutex_lock(&r->lock);
    atomic_store(sleeps, 1);
    while (atomic_load(value) == seen && !atomic_load(&r->stop))
        pthread_cond_wait(cond, &r->lock);
    atomic_store(sleeps, 0);
    pthread_mutex_unlock(&r->lock);
}

/* Wakes the other side if it sleeps on `cond` (after the caller stored its counter). */
static void wake(prof_relay *r, _Atomic int *sleeps, pthread_cond_t *cond)
{
    if (atomic_load(sleeps)) {
        pthread_mutex_lock(&r->lock);
        pthread_cond_signal(cond);
        pthread_mutex_unlock(&r->lock);
    }
}

static void *counting_thread(void *arg)
{
    prof_relay *r = arg;
    uint64_t counted = 0;
    for (;;) {
        while (atomic_load_explicit(&r->handed_n, memory_order_acquire) == counted) {
            if (atomic_load(&r->stop))
                return NULL;
            wait_change(r, &r->handed_n, counted, &r->thread_sleeps, &r->handed);
        }
        if (atomic_load_explicit(&r->stop, memory_order_relaxed))
            return NULL;
        const unsigned k = (unsigned)(counted % NCHUNKS);
        int ok = 1;
        for (size_t off = 0; off < r->used[k];) {
            const relay_head *h = (const relay_head *)(r->chunk[k] + off);
            ok &= count_relayed(r, h);
            off += h->form & HEAD_WORDS_MASK;
        }
        r->oom |= !ok;
        atomic_store(&r->counted_n, ++counted);
        wake(r, &r->collector_sleeps, &r->counted);
    }
}

prof_relay *prof_relay_new(uint32_t nslots, const int64_t *tid_table)
{
    prof_relay *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->nslots = nslots;
    r->tid_table = tid_table;
    r->slots = calloc((size_t)nslots + 1, sizeof(relay_slot));
    int ok = r->slots != NULL;
    for (unsigned k = 0; k < NCHUNKS; k++)
        ok &= (r->chunk[k] = malloc(CHUNK_WORDS * sizeof(uint64_t))) != NULL;
    int made = 0;
    if (ok && pthread_mutex_init(&r->lock, NULL) == 0) {
        made = 1;
        if (pthread_cond_init(&r->handed, NULL) == 0) {
            made = 2;
            if (pthread_cond_init(&r->counted, NULL) == 0) {
                made = 3;
                if (pthread_create(&r->thread, NULL, counting_thread, r) == 0)
                    return r;
            }
        }
    }
    if (made >= 3)
        pthread_cond_destroy(&r->counted);
    if (made >= 2)
        pthread_cond_destroy(&r->handed);
    if (made >= 1)
        pthread_mutex_destroy(&r->lock);
    for (unsigned k = 0; k < NCHUNKS; k++)
        free(r->chunk[k]);
    free(r->slots);
    free(r);
    return NULL;
}

relay_slot *prof_relay_slots(prof_relay *r)
{
    return r->slots;
}

void prof_relay_attach(prof_relay *r, uint32_t slot, prof_mem *pm, uint32_t nfeatures)
{
    assert(slot < r->nslots && nfeatures >= 3 && nfeatures <= RELAY_MAX_FEATURES);
    r->slots[slot].pm = pm;
    r->slots[slot].nfeatures = (uint8_t)nfeatures;
    atomic_store_explicit(&r->slots[slot].features, (uint8_t)prof_mem_needs_features(pm),
                          memory_order_relaxed);
}

/* Hands the chunk being written to the thread and waits for a free one;
 * `last`: the launch ends, wake the thread whatever waits. */
static void hand_over(prof_relay *r, int last)
{
    const uint64_t handed = atomic_load_explicit(&r->handed_n, memory_order_relaxed);
    r->used[handed % NCHUNKS] = r->fill;
    atomic_store(&r->handed_n, handed + 1);
    if (last || handed + 1 - atomic_load(&r->counted_n) >= WAKE_AT)
        wake(r, &r->thread_sleeps, &r->handed);
    uint64_t counted;
    while (handed + 1 - (counted = atomic_load_explicit(&r->counted_n, memory_order_acquire)) ==
           NCHUNKS)
        wait_change(r, &r->counted_n, counted, &r->collector_sleeps, &r->counted);
    r->fill = 0;
}

/* Whether the n addresses are a[0] + i d. Four lanes a step, each against
 * its own running address, so the check is not one chain of 32 additions
 * (a full warp's requests are most of them). */
static int strided(const uint64_t *a, uint32_t n, uint64_t d)
{
    if (a[n - 1] - a[0] != (uint64_t)(n - 1) * d)
        return 0;
    const uint64_t d4 = 4 * d;
    uint64_t e0 = a[0], e1 = e0 + d, e2 = e1 + d, e3 = e2 + d;
    uint64_t bad = 0;
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4, e0 += d4, e1 += d4, e2 += d4, e3 += d4)
        bad |= (a[i] ^ e0) | (a[i + 1] ^ e1) | (a[i + 2] ^ e2) | (a[i + 3] ^ e3);
    for (; i < n; i++, e0 += d)
        bad |= a[i] ^ e0;
    return bad == 0;
}

void prof_relay_push(prof_relay *r, uint32_t slot, const prof_mem_request *req)
{
    const uint32_t executed = req->lane_mask, lanes = req->lanes;
    const uint64_t *a = req->addrs;
    const uint64_t d = lanes >= 2 ? a[1] - a[0] : 0;
    const int stride_form = lanes >= 2 && strided(a, lanes, d);
    const uint32_t naddr = stride_form ? 2 : lanes;

    const int with_features = req->feature_lanes != NULL;
    const uint32_t nf = with_features ? r->slots[slot].nfeatures : 0;
    uint32_t copied = 0;
    for (uint32_t k = 3; k < nf; k++)
        copied |= (uint32_t)(req->feature_lanes[k] != NULL) << k;
    const size_t words =
        HEAD_WORDS + naddr + (nf > 3 ? nf - 3 + 32u * (uint32_t)mb_popcount32(copied) : 0);
    if (r->fill + words > CHUNK_WORDS)
        hand_over(r, 0);

    const uint64_t handed = atomic_load_explicit(&r->handed_n, memory_order_relaxed);
    uint64_t *at = r->chunk[handed % NCHUNKS] + r->fill;
    relay_head *h = (relay_head *)at;
    uint32_t form = (uint32_t)words;
    if (stride_form)
        form |= HEAD_STRIDED;
    if (with_features) {
        form |= HEAD_FEATURES;
        for (uint32_t k = 0; k < 3; k++)
            form |= (uint32_t)(req->feature_lanes[k] != NULL) << (HEAD_TID_SHIFT + k);
    }
    *h = (relay_head){.slot = slot,
                      .executed = executed,
                      .form = (uint16_t)form,
                      .copied = (uint16_t)copied,
                      .access_bytes = (uint16_t)req->access_bytes,
                      .space = (uint8_t)req->space,
                      .warp = (uint8_t)(with_features ? req->warp_tag - 1 : 0)};
    uint64_t *pay = at + HEAD_WORDS;
    if (stride_form) {
        pay[0] = a[0];
        pay[1] = d;
    } else {
        memcpy(pay, a, lanes * sizeof(uint64_t));
    }
    if (with_features) {
        int64_t *f = (int64_t *)pay + naddr;
        /* a loop, not memcpy: a few words, which `rep movs` starts slowly */
        for (uint32_t k = 3; k < nf; k++)
            *f++ = req->feature_uniform[k];
        for (uint32_t m = copied; m; m &= m - 1, f += 32)
            memcpy(f, req->feature_lanes[__builtin_ctz(m)], 32 * sizeof(int64_t));
    }
    r->fill += words;
}

int prof_relay_drain(prof_relay *r)
{
    if (r->fill)
        hand_over(r, 1);
    else
        wake(r, &r->thread_sleeps, &r->handed);
    const uint64_t handed = atomic_load_explicit(&r->handed_n, memory_order_relaxed);
    uint64_t counted;
    while ((counted = atomic_load_explicit(&r->counted_n, memory_order_acquire)) != handed)
        wait_change(r, &r->counted_n, counted, &r->collector_sleeps, &r->counted);
    return !r->oom;
}

void prof_relay_free(prof_relay *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    atomic_store(&r->stop, 1);
    pthread_cond_signal(&r->handed);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->counted);
    pthread_cond_destroy(&r->handed);
    pthread_mutex_destroy(&r->lock);
    for (unsigned k = 0; k < NCHUNKS; k++)
        free(r->chunk[k]);
    free(r->slots);
    free(r);
}
