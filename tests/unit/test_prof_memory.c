/* Memory statistics of one static memory instruction (prof_memory.c) and
 * the exact histograms (prof_hist.c): hand-computed coalescing, bank
 * conflicts, strides, footprint, reuse and affine fits, plus randomised
 * cross-checks of the fast paths against literal reference models. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../profiler/src/prof.h"
#include "mem_result_check.h"
#include "test_rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIAS ((uint64_t)1 << 62)

/* ------------------------------------------------------------ helpers */

static prof_mem *mk(uint32_t nfeatures)
{
    prof_mem_config c = {32, 4, 32, 128, nfeatures};
    prof_mem *pm = prof_mem_new(&c);
    assert_non_null(pm);
    return pm;
}

static void add(prof_mem *pm, const uint64_t *addrs, uint32_t n, uint32_t bytes, mb_space sp)
{
    prof_mem_request rq = {
        .lanes = n, .addrs = addrs, .access_bytes = bytes, .space = sp, .features = NULL};
    assert_int_equal(prof_mem_add(pm, &rq), 1);
}

static uint64_t hget(const prof_hist *h, uint64_t v)
{
    for (uint32_t i = 0; i < h->n; i++)
        if (h->value[i] == v)
            return h->count[i];
    return 0;
}

/* The histogram holds exactly one value with count `count`. */
static void only(const prof_hist *h, uint64_t v, uint64_t count)
{
    if (h->n != 1 || h->value[0] != v || h->count[0] != count) {
        fprintf(stderr, "histogram:");
        for (uint32_t i = 0; i < h->n; i++)
            fprintf(stderr, " %llu:%llu", (unsigned long long)h->value[i],
                    (unsigned long long)h->count[i]);
        fprintf(stderr, " (expected %llu:%llu)\n", (unsigned long long)v,
                (unsigned long long)count);
    }
    assert_int_equal(h->n, 1);
    assert_int_equal(h->value[0], v);
    assert_int_equal(h->count[0], count);
    assert_int_equal(h->total, count);
}

static void stride_seq(uint64_t *a, uint32_t n, uint64_t base, int64_t stride)
{
    for (uint32_t i = 0; i < n; i++)
        a[i] = base + (uint64_t)((int64_t)i * stride);
}

/* Coalescing numbers of a single global request. */
typedef struct one {
    uint64_t sectors, lines, cc10, cc12;
} one;

/* The lanes as the collector also passes them (prof_mem_request.lane_mask). */
static uint32_t mask_of(const uint8_t *lanes, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        m |= UINT32_C(1) << lanes[i];
    return m;
}

static one global_one_req(const uint64_t *a, const uint8_t *lanes, uint32_t mask, uint32_t n,
                          uint32_t bytes)
{
    prof_mem *pm = mk(0);
    prof_mem_request rq = {.lanes = n,
                           .addrs = a,
                           .lane_index = lanes,
                           .lane_mask = mask,
                           .access_bytes = bytes,
                           .space = MB_SPACE_GLOBAL};
    assert_int_equal(prof_mem_add(pm, &rq), 1);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_non_null(r);
    assert_int_equal(r->sectors.n, 1);
    assert_int_equal(r->lines.n, 1);
    assert_int_equal(r->cc10_transactions.n, 1);
    assert_int_equal(r->cc12_transactions.n, 1);
    assert_int_equal(r->bank_degree.n, 0);
    one o = {r->sectors.value[0], r->lines.value[0], r->cc10_transactions.value[0],
             r->cc12_transactions.value[0]};
    prof_mem_free(pm);
    return o;
}

static one global_one_lanes(const uint64_t *a, const uint8_t *lanes, uint32_t n, uint32_t bytes)
{
    return global_one_req(a, lanes, 0, n, bytes);
}

static one global_one(const uint64_t *a, uint32_t n, uint32_t bytes)
{
    return global_one_lanes(a, NULL, n, bytes);
}

static uint64_t bank_one(const uint64_t *a, uint32_t n, uint32_t bytes, uint32_t banks)
{
    prof_mem_config c = {banks, 4, 32, 128, 0};
    prof_mem *pm = prof_mem_new(&c);
    assert_non_null(pm);
    add(pm, a, n, bytes, MB_SPACE_SHARED);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->bank_degree.n, 1);
    assert_int_equal(r->sectors.n, 0);
    assert_int_equal(r->cc10_transactions.n, 0);
    uint64_t d = r->bank_degree.value[0];
    prof_mem_free(pm);
    return d;
}

/* The request's cost under the 1.x rule (bank_cycles_cc1x), lanes 0..n-1. */
static uint64_t cc1x_one(const uint64_t *a, uint32_t n, uint32_t bytes)
{
    prof_mem *pm = prof_mem_new(NULL);
    assert_non_null(pm);
    add(pm, a, n, bytes, MB_SPACE_SHARED);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->bank_cc1x.n, 1);
    uint64_t v = r->bank_cc1x.value[0];
    prof_mem_free(pm);
    return v;
}

static void expect_one(const uint64_t *a, uint32_t n, uint32_t bytes, uint64_t sectors,
                       uint64_t lines, uint64_t cc10, uint64_t cc12)
{
    one o = global_one(a, n, bytes);
    assert_int_equal(o.sectors, sectors);
    assert_int_equal(o.lines, lines);
    assert_int_equal(o.cc10, cc10);
    assert_int_equal(o.cc12, cc12);
}

/* ---------------------------------------------------------- histograms */

static void test_hist_basic(void **state)
{
    (void)state;
    prof_hist h = {0};
    assert_int_equal(prof_hist_add(&h, 5, 1), 1);
    assert_int_equal(prof_hist_add(&h, 3, 2), 1);
    assert_int_equal(prof_hist_add(&h, 5, 4), 1);
    assert_int_equal(prof_hist_add(&h, 9, 1), 1);
    assert_int_equal(prof_hist_add(&h, 1, 1), 1);
    assert_int_equal(prof_hist_add(&h, 3, 1), 1);
    assert_int_equal(prof_hist_add(&h, UINT64_MAX, 7), 1);
    prof_hist_sort(&h);
    uint64_t ev[] = {1, 3, 5, 9, UINT64_MAX}, ec[] = {1, 3, 5, 1, 7};
    assert_int_equal(h.n, 5);
    for (int i = 0; i < 5; i++) {
        assert_int_equal(h.value[i], ev[i]);
        assert_int_equal(h.count[i], ec[i]);
    }
    assert_int_equal(h.total, 17);
    prof_hist_free(&h);
    assert_int_equal(h.n, 0);
    assert_null(h.value);
    prof_hist_free(&h); /* twice is fine */
}

static void test_hist_random(void **state)
{
    (void)state;
    static uint64_t ref[1000];
    memset(ref, 0, sizeof(ref));
    prof_hist h = {0};
    uint64_t x = 12345, total = 0;
    for (int i = 0; i < 20000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = (x >> 33) % 1000, c = (x >> 20) % 3 + 1;
        ref[v] += c;
        total += c;
        assert_int_equal(prof_hist_add(&h, v, c), 1);
    }
    prof_hist_sort(&h);
    uint32_t k = 0;
    for (uint64_t v = 0; v < 1000; v++) {
        if (!ref[v])
            continue;
        assert_true(k < h.n);
        assert_int_equal(h.value[k], v);
        assert_int_equal(h.count[k], ref[v]);
        k++;
    }
    assert_int_equal(k, h.n);
    assert_int_equal(h.total, total);
    prof_hist_free(&h);
}

/* The first PROF_HIST_LOCAL values live in the histogram itself; the next
 * one moves them all to the heap, counts and order intact. */
static void test_hist_local_then_heap(void **state)
{
    (void)state;
    prof_hist h = {0};
    for (uint64_t v = PROF_HIST_LOCAL; v > 0; v--) /* descending: sorting must reorder */
        assert_int_equal(prof_hist_add(&h, 10 * v, v), 1);
    assert_ptr_equal(h.value, h.local);
    assert_int_equal(prof_hist_add(&h, 20, 5), 1); /* a repeat stays local */
    assert_ptr_equal(h.value, h.local);
    prof_hist_sort(&h);
    assert_int_equal(h.value[0], 10);
    assert_int_equal(h.count[1], 2 + 5);
    assert_int_equal(prof_hist_add(&h, 7, 3), 1);
    assert_true(h.value != h.local);
    prof_hist_sort(&h);
    assert_int_equal(h.n, PROF_HIST_LOCAL + 1);
    assert_int_equal(h.value[0], 7);
    assert_int_equal(h.count[0], 3);
    for (uint32_t i = 1; i <= PROF_HIST_LOCAL; i++) {
        assert_int_equal(h.value[i], 10 * i);
        assert_int_equal(h.count[i], i == 2 ? 7 : i);
    }
    prof_hist_free(&h);
    assert_null(h.value);
}

/* A histogram filled by hand, out of order with duplicates, is repaired. */
static void test_hist_sort_foreign(void **state)
{
    (void)state;
    prof_hist h = {0};
    h.cap = 6;
    h.value = malloc(6 * sizeof(uint64_t));
    h.count = malloc(6 * sizeof(uint64_t));
    uint64_t v[] = {7, 2, 7, 0, 2, 9}, c[] = {1, 2, 3, 4, 5, 6};
    memcpy(h.value, v, sizeof(v));
    memcpy(h.count, c, sizeof(c));
    h.n = 6;
    prof_hist_sort(&h);
    assert_int_equal(h.n, 4);
    uint64_t ev[] = {0, 2, 7, 9}, ec[] = {4, 7, 4, 6};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(h.value[i], ev[i]);
        assert_int_equal(h.count[i], ec[i]);
    }
    assert_int_equal(h.total, 21);
    assert_int_equal(prof_hist_add(&h, 5, 1), 1); /* still usable: appended, then sorted */
    prof_hist_sort(&h);
    assert_int_equal(h.n, 5);
    assert_int_equal(h.value[2], 5);
    assert_int_equal(h.count[2], 1);
    assert_int_equal(h.total, 22);
    prof_hist_free(&h);
}

/* Thousands of distinct values in random order, with repeats: every count
 * is exact after sorting (the hash index path of prof_hist_add). */
static void test_hist_many_values(void **state)
{
    (void)state;
    enum { RANGE = 3000, ADDS = 20000 };
    static uint64_t expect[RANGE];
    memset(expect, 0, sizeof(expect));
    prof_hist h = {0};
    uint64_t x = 12345;
    for (int i = 0; i < ADDS; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t v = (x >> 33) % RANGE;
        assert_int_equal(prof_hist_add(&h, v * 7919, 1 + (uint64_t)(i & 3)), 1);
        expect[v] += 1 + (uint64_t)(i & 3);
    }
    prof_hist_sort(&h);
    uint64_t total = 0, distinct = 0;
    for (uint32_t v = 0; v < RANGE; v++) {
        total += expect[v];
        distinct += expect[v] != 0;
    }
    assert_int_equal(h.n, distinct);
    assert_int_equal(h.total, total);
    for (uint32_t i = 0; i < h.n; i++) {
        if (i)
            assert_true(h.value[i - 1] < h.value[i]);
        assert_int_equal(h.value[i] % 7919, 0);
        assert_int_equal(h.count[i], expect[h.value[i] / 7919]);
    }
    /* adding after sorting still finds existing values */
    uint64_t before = h.n;
    assert_int_equal(prof_hist_add(&h, h.value[10], 5), 1);
    prof_hist_sort(&h);
    assert_int_equal(h.n, before);
    prof_hist_free(&h);
}

/* ------------------------------------------------------- coalescing */

static void test_unit_stride_4(void **state)
{
    (void)state;
    uint64_t a[32];
    stride_seq(a, 32, 0x1000, 4);
    prof_mem *pm = mk(0);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->requests, 1);
    assert_int_equal(r->thread_accesses, 32);
    assert_int_equal(r->space, MB_SPACE_GLOBAL);
    only(&r->sectors, 4, 1);
    only(&r->lines, 1, 1);
    only(&r->cc10_transactions, 2, 1);
    only(&r->cc12_transactions, 2, 1);
    assert_int_equal(r->bank_degree.n, 0);
    only(&r->lane_stride, BIAS + 4, 31);
    assert_int_equal(r->footprint_lines, 1);
    assert_int_equal(r->footprint_capped, 0);
    assert_int_equal(r->reuse_log2.n, 0);
    prof_mem_free(pm);
}

static void test_stride_2_and_32(void **state)
{
    (void)state;
    uint64_t a[32];
    stride_seq(a, 32, 0x1000, 8); /* every other word */
    expect_one(a, 32, 4, 8, 2, 32, 2);
    stride_seq(a, 32, 0x1000, 128); /* every 32nd word */
    expect_one(a, 32, 4, 32, 32, 32, 32);
    prof_mem *pm = mk(0);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->footprint_lines, 32);
    only(&r->lane_stride, BIAS + 128, 31);
    prof_mem_free(pm);
    /* descending unit stride: same numbers as ascending */
    stride_seq(a, 32, 0x107c, -4);
    expect_one(a, 32, 4, 4, 1, 32, 2);
}

/* Scattered addresses, worked out by hand (8 lanes, 4-byte words):
 * sectors (addr>>5): 8 8 16 8 9 11 12 8 -> {8,9,11,12,16} = 5
 * lines  (addr>>7): 2 2 4 2 2 2 3 2    -> {2,3,4} = 3
 * cc10: lane 2 breaks the sequence -> 8 transactions
 * cc12 (128 B segments = lines here): 3
 * strides: +4 +252 -228 +4 +92 +4 -128
 * shared, bank = word % 32: bank 0 gets words 64, 128, 96 (lane 7 re-reads
 * lane 0's word) -> degree 3. */
static const uint64_t scattered[8] = {0x100, 0x104, 0x200, 0x11C, 0x120, 0x17C, 0x180, 0x100};

static void test_scattered(void **state)
{
    (void)state;
    expect_one(scattered, 8, 4, 5, 3, 8, 3);
    prof_mem *pm = mk(0);
    add(pm, scattered, 8, 4, MB_SPACE_GLOBAL);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->lane_stride.n, 5);
    assert_int_equal(hget(&r->lane_stride, BIAS + 4), 3);
    assert_int_equal(hget(&r->lane_stride, BIAS + 252), 1);
    assert_int_equal(hget(&r->lane_stride, BIAS - 228), 1);
    assert_int_equal(hget(&r->lane_stride, BIAS + 92), 1);
    assert_int_equal(hget(&r->lane_stride, BIAS - 128), 1);
    assert_int_equal(r->footprint_lines, 3);
    prof_mem_free(pm);
    assert_int_equal(bank_one(scattered, 8, 4, 32), 3);
}

static void test_misaligned(void **state)
{
    (void)state;
    uint64_t a[32];
    /* bytes [0x1004, 0x1084): sectors 0x80..0x84, lines 0x20..0x21;
     * neither half-warp starts on a 64-byte boundary -> 16 + 16;
     * cc12: half 0 in one segment, half 1 ends at 0x1080 -> 1 + 2 */
    stride_seq(a, 32, 0x1004, 4);
    expect_one(a, 32, 4, 5, 2, 32, 3);
    /* single lanes straddling a sector / a line */
    uint64_t s = 0x101C;
    expect_one(&s, 1, 8, 2, 1, 1, 1);
    s = 0x107E;
    expect_one(&s, 1, 4, 2, 2, 1, 1);
}

static void test_wide_words(void **state)
{
    (void)state;
    uint64_t a[32];
    /* 8-byte: 256 bytes, each half-warp one aligned 128 B segment */
    stride_seq(a, 32, 0x2000, 8);
    expect_one(a, 32, 8, 8, 2, 2, 2);
    /* 16-byte: 512 bytes; cc10 two 128 B transactions per half-warp;
     * cc12 each half-warp spans two 128 B segments */
    stride_seq(a, 32, 0x4000, 16);
    expect_one(a, 32, 16, 16, 4, 4, 4);
    /* 16-byte shifted by one word: not 256-aligned -> 16 + 16 under 1.0;
     * half 0 starts 0x4010..0x4100 -> 3 segments, half 1 0x4110..0x4200 -> 3 */
    stride_seq(a, 32, 0x4010, 16);
    expect_one(a, 32, 16, 17, 5, 32, 6);
    /* 1- and 2-byte words: never coalesced under 1.0; 32 / 64 B segments */
    stride_seq(a, 32, 0x3000, 1);
    expect_one(a, 32, 1, 1, 1, 32, 2);
    stride_seq(a, 32, 0x3000, 2);
    expect_one(a, 32, 2, 2, 1, 32, 2);
}

static void test_partial_warps(void **state)
{
    (void)state;
    uint64_t a[32];
    stride_seq(a, 32, 0x1000, 4);
    expect_one(a, 20, 4, 3, 1, 2, 2); /* lanes 0-19: [0x1000, 0x1050) */
    expect_one(a, 10, 4, 2, 1, 1, 1);
    expect_one(a, 1, 4, 1, 1, 1, 1);
    /* 17 lanes of stride 2: half 1 is lane 16 alone (aligned) */
    stride_seq(a, 32, 0x1000, 8);
    expect_one(a, 17, 4, 5, 2, 17, 2);
    prof_mem *pm = mk(0);
    add(pm, a, 1, 4, MB_SPACE_GLOBAL);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->lane_stride.n, 0);
    assert_int_equal(r->thread_accesses, 1);
    prof_mem_free(pm);
}

/* Divergent warps: the lane numbers decide the half-warps and the 1.0
 * "k-th thread, k-th word" rule. */
static void test_divergent_lanes(void **state)
{
    (void)state;
    uint8_t lanes[32];
    uint64_t a[32];
    /* even lanes, addr = 0x1000 + 4 lane: in sequence in both halves */
    for (uint32_t i = 0; i < 16; i++) {
        lanes[i] = (uint8_t)(2 * i);
        a[i] = 0x1000 + 4 * (uint64_t)lanes[i];
    }
    one o = global_one_lanes(a, lanes, 16, 4);
    assert_int_equal(o.sectors, 4);
    assert_int_equal(o.lines, 1);
    assert_int_equal(o.cc10, 2);
    assert_int_equal(o.cc12, 2);
    o = global_one(a, 16, 4); /* as lanes 0-15: stride 2 in one half-warp */
    assert_int_equal(o.cc10, 16);
    assert_int_equal(o.cc12, 1);
    /* odd lanes with the same addresses: lane 1 reads word 0 -> 8 + 8 */
    for (uint32_t i = 0; i < 16; i++)
        lanes[i] = (uint8_t)(2 * i + 1);
    o = global_one_lanes(a, lanes, 16, 4);
    assert_int_equal(o.cc10, 16);
    assert_int_equal(o.cc12, 2);
    /* lanes 8-23, addr = 0x1000 + 4 lane: two aligned half-warp pieces */
    for (uint32_t i = 0; i < 16; i++) {
        lanes[i] = (uint8_t)(8 + i);
        a[i] = 0x1000 + 4 * (uint64_t)lanes[i];
    }
    o = global_one_lanes(a, lanes, 16, 4);
    assert_int_equal(o.sectors, 2);
    assert_int_equal(o.cc10, 2);
    assert_int_equal(o.cc12, 2);
    o = global_one(a, 16, 4); /* as lanes 0-15: starts at 0x1020, misaligned */
    assert_int_equal(o.cc10, 16);
    assert_int_equal(o.cc12, 1);
    /* strides are between consecutive entries */
    prof_mem *pm = mk(0);
    for (uint32_t i = 0; i < 16; i++) {
        lanes[i] = (uint8_t)(2 * i);
        a[i] = 0x1000 + 4 * (uint64_t)lanes[i];
    }
    prof_mem_request rq = {
        .lanes = 16, .addrs = a, .lane_index = lanes, .access_bytes = 4, .space = MB_SPACE_GLOBAL};
    assert_int_equal(prof_mem_add(pm, &rq), 1);
    const prof_mem_result *r = prof_mem_finish(pm);
    only(&r->lane_stride, BIAS + 8, 15);
    prof_mem_free(pm);
}

/* ------------------------------------------------------- bank conflicts */

static void test_bank_conflicts(void **state)
{
    (void)state;
    uint64_t a[32];
    stride_seq(a, 32, 0x100, 4);
    assert_int_equal(bank_one(a, 32, 4, 32), 1);
    stride_seq(a, 32, 0x100, 8);
    assert_int_equal(bank_one(a, 32, 4, 32), 2);
    stride_seq(a, 32, 0x100, 128);
    assert_int_equal(bank_one(a, 32, 4, 32), 32);
    stride_seq(a, 32, 0x100, 12); /* odd word stride: conflict-free */
    assert_int_equal(bank_one(a, 32, 4, 32), 1);
    stride_seq(a, 32, 0x100, 0); /* broadcast */
    assert_int_equal(bank_one(a, 32, 4, 32), 1);
    stride_seq(a, 32, 0x100, 8); /* 8-byte unit stride: 64 words, whole warp */
    assert_int_equal(bank_one(a, 32, 8, 32), 2);
    stride_seq(a, 32, 0, 4); /* 16 banks: 32 words -> 2 */
    assert_int_equal(bank_one(a, 32, 4, 16), 2);
    /* lanes 0-15 words 0..15, lanes 16-31 words 32,34,..,62 -> banks
     * 0,2,..,14 get two words: 2 */
    for (uint32_t i = 0; i < 32; i++)
        a[i] = i < 16 ? 4 * i : 4 * (32 + 2 * (i - 16));
    assert_int_equal(bank_one(a, 32, 4, 32), 2);
    /* everyone reads word 0 except lane 5 (word 32) and lane 6 (word 64) */
    for (uint32_t i = 0; i < 32; i++)
        a[i] = 0;
    a[5] = 128;
    a[6] = 256;
    assert_int_equal(bank_one(a, 32, 4, 32), 3);
    /* a permutation of 32 distinct banks: 1 */
    for (uint32_t i = 0; i < 32; i++)
        a[i] = 4 * ((i * 7) % 32);
    assert_int_equal(bank_one(a, 32, 4, 32), 1);
}

/* The 1.x rule: half-warps on 16 banks, their degrees summed. */
static uint64_t ref_bank(const uint64_t *a, uint32_t n, uint32_t bytes, uint32_t banks);

/* Scattered words counted by rows of the banks: rows 32 below and 31 above
 * the first lane's are the window's edges, a word beyond them takes the
 * general count; every degree is the reference's, 8-byte accesses too. */
static void test_bank_row_window(void **state)
{
    (void)state;
    static const int64_t last_row[] = {-32, -33, 31, 32};
    uint64_t a[32];
    for (uint32_t banks = 16; banks <= 32; banks *= 2) {
        const uint64_t row = 4 * banks, first = 100 * row + 12; /* word 3 of row 100 */
        for (size_t k = 0; k < sizeof(last_row) / sizeof(last_row[0]); k++) {
            for (uint32_t i = 0; i < 31; i++) /* rows -27..27, banks 3 and 5 */
                a[i] = first + (uint64_t)((int64_t)(i % 7) * 9 - 27) * row + (i % 2) * 8;
            a[31] = first + (uint64_t)last_row[k] * row;
            assert_int_equal(bank_one(a, 32, 4, banks), ref_bank(a, 32, 4, banks));
            assert_int_equal(bank_one(a, 32, 8, banks), ref_bank(a, 32, 8, banks));
        }
    }
}

static void test_bank_cycles_cc1x(void **state)
{
    (void)state;
    uint64_t a[32];
    stride_seq(a, 32, 0, 4); /* words 0..31: each half conflict-free */
    assert_int_equal(cc1x_one(a, 32, 4), 2);
    assert_int_equal(cc1x_one(a, 16, 4), 1); /* one half only */
    stride_seq(a, 32, 0, 8); /* word stride 2: 2-way in each half */
    assert_int_equal(cc1x_one(a, 32, 4), 4);
    stride_seq(a, 32, 0, 64); /* words 16 apart: degree 16 on 32 banks, bank 0 of 16 */
    assert_int_equal(bank_one(a, 32, 4, 32), 16);
    assert_int_equal(cc1x_one(a, 32, 4), 32);
    stride_seq(a, 32, 0, 0); /* broadcast */
    assert_int_equal(cc1x_one(a, 32, 4), 2);
    /* lane l and l + 16 on the same words 0..15: degree 1, each half 1 */
    for (uint32_t i = 0; i < 32; i++)
        a[i] = 4 * (i % 16);
    assert_int_equal(bank_one(a, 32, 4, 32), 1);
    assert_int_equal(cc1x_one(a, 32, 4), 2);
    /* three words of bank 0 in the first half, two of them again in the second */
    for (uint32_t i = 0; i < 32; i++)
        a[i] = 4 * i;
    a[1] = 4 * 32;
    a[2] = 4 * 64;
    a[17] = 4 * 32;
    assert_int_equal(bank_one(a, 32, 4, 32), 3);
    assert_int_equal(cc1x_one(a, 32, 4), 5); /* 3 + (words 16, 32 on bank 0 of 16) */
    /* words 32k in a scattered order (no constant stride): every lane in
     * bank 0, the largest degree a warp can have */
    for (uint32_t i = 0; i < 32; i++)
        a[i] = 4 * 32 * ((7 * i) % 32);
    assert_int_equal(bank_one(a, 32, 4, 32), 32);
    assert_int_equal(bank_one(a, 32, 4, 16), 32);
    assert_int_equal(bank_one(a, 32, 4, 64), 16); /* banks 0 and 32 */
    assert_int_equal(cc1x_one(a, 32, 4), 32);
    assert_int_equal(cc1x_one(a, 20, 4), 20); /* 16 + 4 */
    for (uint32_t i = 0; i < 32; i++) /* words 64k: bank 0 of 64 as well */
        a[i] = 4 * 64 * ((7 * i) % 32);
    assert_int_equal(bank_one(a, 32, 4, 64), 32);
    assert_int_equal(bank_one(a, 32, 4, 32), 32);
}

/* -------------------------------------------- randomised cross-checks */

static uint64_t rng_state = TEST_RNG_SEED;
static uint64_t rnd(void)
{
    return test_rng_next(&rng_state);
}

static uint64_t distinct(uint64_t *v, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    uint64_t c = n ? 1 : 0;
    for (uint32_t i = 1; i < n; i++)
        c += v[i] != v[i - 1];
    return c;
}

static uint64_t ref_units(const uint64_t *a, uint32_t n, uint32_t bytes, uint64_t unit)
{
    static uint64_t u[32 * 8];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint64_t x = a[i] / unit; x <= (a[i] + bytes - 1) / unit; x++)
            u[k++] = x;
    return distinct(u, k);
}

/* Entries [b, e) of half-warp h (lanes 16h .. 16h+15). */
static void half_range(const uint8_t *lanes, uint32_t n, uint32_t h, uint32_t *b, uint32_t *e)
{
    *b = n;
    *e = n;
    for (uint32_t i = 0; i < n; i++) {
        if (lanes[i] / 16 == h && *b == n)
            *b = i;
        if (lanes[i] / 16 > h) {
            *e = i;
            break;
        }
    }
    if (*b == n)
        *e = n;
}

static uint64_t ref_cc10(const uint64_t *a, const uint8_t *lanes, uint32_t n, uint32_t w)
{
    uint64_t t = 0;
    for (uint32_t h = 0; h < 2; h++) {
        uint32_t b, e;
        half_range(lanes, n, h, &b, &e);
        if (b == e)
            continue;
        int ok = w == 4 || w == 8 || w == 16;
        uint64_t seg = a[b] - (uint64_t)(lanes[b] % 16) * w;
        if (seg % (16 * w))
            ok = 0;
        for (uint32_t i = b; i < e; i++)
            if (a[i] != seg + (uint64_t)(lanes[i] % 16) * w)
                ok = 0;
        t += ok ? (w == 16 ? 2 : 1) : e - b;
    }
    return t;
}

/* The CUDA guide's 1.2/1.3 protocol, literally (with the size reduction). */
static uint64_t ref_cc12(const uint64_t *a, const uint8_t *lanes, uint32_t n, uint32_t w)
{
    uint64_t S = w == 1 ? 32 : w == 2 ? 64 : 128, t = 0;
    for (uint32_t h = 0; h < 2; h++) {
        uint32_t b, e;
        half_range(lanes, n, h, &b, &e);
        int served[16] = {0};
        for (;;) {
            uint32_t lo = e;
            for (uint32_t i = b; i < e; i++)
                if (!served[i - b]) {
                    lo = i;
                    break;
                }
            if (lo == e)
                break;
            uint64_t seg = a[lo] / S * S, size = S, umin = UINT64_MAX, umax = 0;
            for (uint32_t i = b; i < e; i++)
                if (!served[i - b] && a[i] / S * S == seg) {
                    served[i - b] = 1;
                    if (a[i] < umin)
                        umin = a[i];
                    if (a[i] + w > umax)
                        umax = a[i] + w;
                }
            while (size > 32) { /* shrink while one half suffices */
                uint64_t half = size / 2;
                if (umax <= seg + half)
                    size = half;
                else if (umin >= seg + half)
                    seg += half, size = half;
                else
                    break;
            }
            assert_true(size >= 32);
            t++;
        }
    }
    return t;
}

static uint64_t ref_bank_words(const uint64_t *a, uint32_t n, uint32_t bytes, uint32_t banks,
                               uint32_t word)
{
    uint64_t best = 0, w[32 * 16]; /* 32 lanes of up to 16 words */
    for (uint32_t b = 0; b < banks; b++) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++)
            for (uint64_t x = a[i] / word; x <= (a[i] + bytes - 1) / word; x++)
                if (x % banks == b && k < sizeof w / sizeof w[0])
                    w[k++] = x;
        uint64_t c = distinct(w, k);
        if (c > best)
            best = c;
    }
    return best;
}

static uint64_t ref_bank(const uint64_t *a, uint32_t n, uint32_t bytes, uint32_t banks)
{
    return ref_bank_words(a, n, bytes, banks, 4);
}

static void random_pattern(uint64_t *a, uint8_t *lanes, uint32_t *n, uint32_t *bytes)
{
    static const uint32_t sizes[] = {1, 2, 4, 8, 16};
    *bytes = sizes[rnd() % 5];
    switch (rnd() % 4) {
    case 0: { /* a random mask */
        uint32_t mask = (uint32_t)rnd() | 1u << (rnd() % 32);
        *n = 0;
        for (uint32_t l = 0; l < 32; l++)
            if (mask >> l & 1)
                lanes[(*n)++] = (uint8_t)l;
        break;
    }
    case 1: /* a prefix */
        *n = 1 + (uint32_t)(rnd() % 32);
        for (uint32_t l = 0; l < *n; l++)
            lanes[l] = (uint8_t)l;
        break;
    default: /* the full warp */
        *n = 32;
        for (uint32_t l = 0; l < 32; l++)
            lanes[l] = (uint8_t)l;
        break;
    }
    uint64_t base = (rnd() % 4096) * (rnd() % 2 ? *bytes : 1) + 0x10000;
    switch (rnd() % 6) {
    case 0: /* constant stride, multiple of the word size */
    case 1: {
        int64_t s = ((int64_t)(rnd() % 9) - 4) * *bytes;
        if (rnd() % 3 == 0)
            s *= (int64_t)(rnd() % 40);
        stride_seq(a, *n, base + 0x8000, s);
        break;
    }
    case 2: { /* any constant stride */
        int64_t s = (int64_t)(rnd() % 300) - 150;
        stride_seq(a, *n, base + 0x8000, s);
        break;
    }
    case 3: /* random within a small window */
        for (uint32_t i = 0; i < *n; i++)
            a[i] = base + (rnd() % 512) / *bytes * *bytes;
        break;
    case 4: /* permuted unit stride */
        stride_seq(a, *n, base / *bytes * *bytes, *bytes);
        for (uint32_t i = *n; i > 1; i--) {
            uint32_t j = (uint32_t)(rnd() % i);
            uint64_t t = a[i - 1];
            a[i - 1] = a[j];
            a[j] = t;
        }
        break;
    default: /* unit stride with a few lanes disturbed */
        stride_seq(a, *n, base / *bytes * *bytes, *bytes);
        for (int k = 0; k < 3; k++)
            a[rnd() % *n] += (rnd() % 8) * *bytes;
        break;
    }
}

static void test_random_crosscheck(void **state)
{
    (void)state;
    uint64_t a[32];
    uint8_t lanes[32];
    for (int iter = 0; iter < 8000; iter++) {
        uint32_t n, bytes;
        random_pattern(a, lanes, &n, &bytes);
        /* prefixes and full warps also go without lane_index */
        int prefix = lanes[n - 1] == n - 1;
        one o = global_one_lanes(a, prefix && rnd() % 2 ? NULL : lanes, n, bytes);
        uint64_t es = ref_units(a, n, bytes, 32), el = ref_units(a, n, bytes, 128);
        uint64_t e10 = ref_cc10(a, lanes, n, bytes), e12 = ref_cc12(a, lanes, n, bytes);
        if (o.sectors != es || o.lines != el || o.cc10 != e10 || o.cc12 != e12) {
            fprintf(stderr, "iter %d n=%u bytes=%u:", iter, n, bytes);
            for (uint32_t i = 0; i < n; i++)
                fprintf(stderr, " %u:%llx", lanes[i], (unsigned long long)a[i]);
            fprintf(stderr, "\n got %llu %llu %llu %llu want %llu %llu %llu %llu\n",
                    (unsigned long long)o.sectors, (unsigned long long)o.lines,
                    (unsigned long long)o.cc10, (unsigned long long)o.cc12, (unsigned long long)es,
                    (unsigned long long)el, (unsigned long long)e10, (unsigned long long)e12);
        }
        assert_int_equal(o.sectors, es);
        assert_int_equal(o.lines, el);
        assert_int_equal(o.cc10, e10);
        assert_int_equal(o.cc12, e12);
        /* the same with the lanes also given as a mask (half-warps counted from it) */
        one m = global_one_req(a, lanes, mask_of(lanes, n), n, bytes);
        assert_int_equal(m.sectors, es);
        assert_int_equal(m.lines, el);
        assert_int_equal(m.cc10, e10);
        assert_int_equal(m.cc12, e12);
        uint32_t banks = rnd() % 2 ? 32 : 16;
        uint64_t got = bank_one(a, n, bytes, banks), want = ref_bank(a, n, bytes, banks);
        if (got != want) {
            fprintf(stderr, "bank iter %d n=%u bytes=%u banks=%u:", iter, n, bytes, banks);
            for (uint32_t i = 0; i < n; i++)
                fprintf(stderr, " %llx", (unsigned long long)a[i]);
            fprintf(stderr, "\n");
        }
        assert_int_equal(got, want);
    }
}

/* The distinct values among a[0..n), by brute force. */
static uint64_t ref_distinct(const uint64_t *a, uint32_t n)
{
    uint64_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = 0;
        while (j < i && a[j] != a[i])
            j++;
        k += j == i;
    }
    return k;
}

/* A small exact multiset for expected histograms. */
typedef struct expect_hist {
    uint64_t value[4096], count[4096];
    uint32_t n;
} expect_hist;

static void expect_add(expect_hist *e, uint64_t v, uint64_t c)
{
    for (uint32_t i = 0; i < e->n; i++)
        if (e->value[i] == v) {
            e->count[i] += c;
            return;
        }
    assert_true(e->n < 4096);
    e->value[e->n] = v;
    e->count[e->n++] = c;
}

static void expect_equal(const expect_hist *e, const prof_hist *h)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < e->n; i++) {
        if (hget(h, e->value[i]) != e->count[i])
            fprintf(stderr, "value %llu: got %llu want %llu\n", (unsigned long long)e->value[i],
                    (unsigned long long)hget(h, e->value[i]), (unsigned long long)e->count[i]);
        assert_int_equal(hget(h, e->value[i]), e->count[i]);
        total += e->count[i];
    }
    assert_int_equal(h->total, total);
}

/* The per-request references of a stream of requests outside shared memory
 * (units, 1.x transactions, lane strides), summed. */
typedef struct expect_units {
    expect_hist sectors, lines, cc10, cc12, strides;
} expect_units;

static void expect_units_add(expect_units *e, const uint64_t *a, const uint8_t *lanes, uint32_t n,
                             uint32_t bytes)
{
    expect_add(&e->sectors, ref_units(a, n, bytes, 32), 1);
    expect_add(&e->lines, ref_units(a, n, bytes, 128), 1);
    expect_add(&e->cc10, ref_cc10(a, lanes, n, bytes), 1);
    expect_add(&e->cc12, ref_cc12(a, lanes, n, bytes), 1);
}

static void expect_strides_add(expect_units *e, const uint64_t *a, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        expect_add(&e->strides, a[i] - a[i - 1] + BIAS, 1);
}

static void expect_units_equal(const expect_units *e, const prof_mem_result *r)
{
    expect_equal(&e->sectors, &r->sectors);
    expect_equal(&e->lines, &r->lines);
    expect_equal(&e->cc10, &r->cc10_transactions);
    expect_equal(&e->cc12, &r->cc12_transactions);
    expect_equal(&e->strides, &r->lane_stride);
}

/* Requests of one shape repeated at translated addresses (which the
 * statistics may count once and multiply) and at other offsets, mixed with
 * other shapes: every statistic equals the sum of the per-request reference
 * values, and the footprint is the number of distinct lines. */
static void test_repeated_shapes(void **state)
{
    (void)state;
    static expect_units e;
    static expect_hist banks;
    static uint64_t seen[32 * 8 * 64 * 4];
    uint64_t a[32], b[32], pa[32];
    uint8_t lanes[32], plane[32];
    for (int iter = 0; iter < 300; iter++) {
        memset(&e, 0, sizeof(e));
        memset(&banks, 0, sizeof(banks));
        uint32_t nseen = 0;
        static expect_hist addrs;
        memset(&addrs, 0, sizeof(addrs));
        const int pick = (int)(rnd() % 3);
        const mb_space space = pick == 0 ? MB_SPACE_SHARED : pick == 1 ? MB_SPACE_GLOBAL : MB_SPACE_CONST;
        prof_mem *pm = mk(0);
        uint32_t n, bytes, pn, pbytes;
        random_pattern(a, lanes, &n, &bytes);
        random_pattern(pa, plane, &pn, &pbytes);
        for (int k = 0; k < 24; k++) {
            const uint64_t *x = a;
            const uint8_t *xl = lanes;
            uint32_t xn = n, xbytes = bytes;
            uint64_t shift = (rnd() % 64) * 256; /* the same shape, aligned alike */
            if (rnd() % 5 == 0)
                shift = rnd() % 300; /* the same differences, aligned differently */
            if (rnd() % 6 == 0) {     /* another shape in between */
                x = pa;
                xl = plane;
                xn = pn;
                xbytes = pbytes;
            }
            for (uint32_t i = 0; i < xn; i++)
                b[i] = x[i] + shift;
            prof_mem_request rq = {.lanes = xn,
                                   .addrs = b,
                                   .lane_index = xl,
                                   .access_bytes = xbytes,
                                   .space = space};
            assert_int_equal(prof_mem_add(pm, &rq), 1);
            if (space == MB_SPACE_SHARED)
                expect_add(&banks, ref_bank(b, xn, xbytes, 32), 1);
            else
                expect_units_add(&e, b, xl, xn, xbytes);
            if (space == MB_SPACE_CONST)
                expect_add(&addrs, ref_distinct(b, xn), 1);
            expect_strides_add(&e, b, xn);
            for (uint32_t i = 0; i < xn; i++)
                for (uint64_t l = b[i] / 128; l <= (b[i] + xbytes - 1) / 128; l++) {
                    uint32_t j = 0;
                    while (j < nseen && seen[j] != l)
                        j++;
                    if (j == nseen)
                        seen[nseen++] = l;
                }
        }
        const prof_mem_result *r = prof_mem_finish(pm);
        assert_int_equal(r->requests, 24);
        expect_units_equal(&e, r);
        expect_equal(&banks, &r->bank_degree);
        expect_equal(&addrs, &r->addresses);
        assert_int_equal(r->footprint_lines, nseen);
        prof_mem_free(pm);
    }
}

/* Constant requests: the distinct addresses, whatever the lanes' order,
 * repeats and alignment; other spaces have none. */
static void test_const_addresses(void **state)
{
    (void)state;
    uint64_t a[32];
    prof_mem *pm = mk(0);
    stride_seq(a, 32, 4096, 0); /* a uniform load: one address */
    add(pm, a, 32, 4, MB_SPACE_CONST);
    stride_seq(a, 32, 4096, 4); /* every lane its word */
    add(pm, a, 32, 4, MB_SPACE_CONST);
    for (uint32_t i = 0; i < 32; i++) /* a 4x4 table read by two bytes: 5 words, out of order */
        a[i] = 4096 + 4 * ((i * 7) % 5) * 3;
    add(pm, a, 32, 4, MB_SPACE_CONST);
    add(pm, a, 32, 4, MB_SPACE_CONST); /* a repeat (a memo hit) counts again */
    for (uint32_t i = 0; i < 32; i++) /* the same shape moved by a line: the same count */
        a[i] += 128;
    add(pm, a, 32, 4, MB_SPACE_CONST);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->addresses.total, 5);
    assert_int_equal(hget(&r->addresses, 1), 1);
    assert_int_equal(hget(&r->addresses, 32), 1);
    assert_int_equal(hget(&r->addresses, 5), 3);
    prof_mem_free(pm);

    pm = mk(0);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    assert_int_equal(prof_mem_finish(pm)->addresses.n, 0);
    prof_mem_free(pm);
}

/* --------------------------------------- strides, footprint, reuse */

static void test_stride_histogram(void **state)
{
    (void)state;
    prof_mem *pm = mk(0);
    uint64_t a[32];
    stride_seq(a, 32, 0x1000, 4);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    stride_seq(a, 32, 0x1000, -8);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    add(pm, scattered, 8, 4, MB_SPACE_GLOBAL);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->lane_stride.n, 6);
    assert_int_equal(hget(&r->lane_stride, BIAS + 4), 62 + 3);
    assert_int_equal(hget(&r->lane_stride, BIAS - 8), 31);
    assert_int_equal(hget(&r->lane_stride, BIAS - 228), 1);
    assert_int_equal(r->lane_stride.total, 31 * 3 + 7);
    for (uint32_t i = 1; i < r->lane_stride.n; i++)
        assert_true(r->lane_stride.value[i - 1] < r->lane_stride.value[i]);
    prof_mem_free(pm);

    /* more than 4096 distinct strides: the rest go to UINT64_MAX */
    pm = mk(0);
    for (uint64_t s = 0; s < 5000; s++) {
        uint64_t two[2] = {0x1000, 0x1000 + 4 * s};
        add(pm, two, 2, 4, MB_SPACE_GLOBAL);
    }
    r = prof_mem_finish(pm);
    assert_int_equal(r->lane_stride.n, 4097);
    assert_int_equal(r->lane_stride.total, 5000);
    assert_int_equal(hget(&r->lane_stride, UINT64_MAX), 5000 - 4096);
    assert_int_equal(hget(&r->lane_stride, BIAS + 4 * 4095), 1);
    prof_mem_free(pm);

    /* Past the cap, a stride seen before keeps its own bucket and a new one
     * goes to UINT64_MAX, whether it arrives as a constant stride or among
     * scattered ones (small scattered strides are counted in a table), and
     * whatever order the values were first seen in. */
    pm = mk(0);
    uint64_t eight[2] = {0x1000, 0x1008};
    add(pm, eight, 2, 4, MB_SPACE_GLOBAL);
    for (uint64_t s = 0; s < 4200; s++) {
        uint64_t two[2] = {0x100000, 0x100000 + 4 * (6000 - s)}; /* decreasing strides */
        add(pm, two, 2, 4, MB_SPACE_GLOBAL);
    }
    uint64_t mixed[4] = {0x2000, 0x2008, 0x2014, 0x2014 + 4000}; /* 8 seen, 12 and 4000 new */
    add(pm, mixed, 4, 4, MB_SPACE_GLOBAL);
    add(pm, mixed, 4, 4, MB_SPACE_GLOBAL);
    add(pm, eight, 2, 4, MB_SPACE_GLOBAL);
    uint64_t seen_early[2] = {0x3000, 0x3000 + 4 * 5990};
    add(pm, seen_early, 2, 4, MB_SPACE_GLOBAL);
    r = prof_mem_finish(pm);
    assert_int_equal(r->lane_stride.n, 4097);
    assert_int_equal(hget(&r->lane_stride, BIAS + 8), 1 + 2 + 1);
    assert_int_equal(hget(&r->lane_stride, BIAS + 12), 0);
    assert_int_equal(hget(&r->lane_stride, BIAS + 4 * 5990), 2);
    assert_int_equal(hget(&r->lane_stride, BIAS + 4000), 0);
    /* 4200 - 4095 constant strides past the cap, then 12 and 4000 twice */
    assert_int_equal(hget(&r->lane_stride, UINT64_MAX), 4200 - 4095 + 4);
    assert_int_equal(r->lane_stride.total, 1 + 4200 + 6 + 1 + 1);
    prof_mem_free(pm);
}

static void test_footprint_and_reuse(void **state)
{
    (void)state;
    /* one line per request: r0 A, r1 A (d=0 -> bucket 0), r2 B (first),
     * r3 A (d=1 -> bucket 1), r4 C, r5 C (d=0 -> 0), r6 B (d=3 -> 2),
     * r7 A (d=3 -> 2) */
    const uint64_t line[] = {0, 0, 1, 0, 2, 2, 1, 0};
    prof_mem *pm = mk(0);
    for (int i = 0; i < 8; i++) {
        uint64_t a[32];
        stride_seq(a, 32, 0x10000 + line[i] * 128, 4);
        add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    }
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->footprint_lines, 3);
    assert_int_equal(r->reuse_log2.n, 3);
    assert_int_equal(hget(&r->reuse_log2, 0), 2);
    assert_int_equal(hget(&r->reuse_log2, 1), 1);
    assert_int_equal(hget(&r->reuse_log2, 2), 2);
    assert_int_equal(r->reuse_log2.total, 5);
    prof_mem_free(pm);

    /* the same lines in two spaces are two lines; mixed space -> NONE;
     * shared requests feed bank_degree, global ones the coalescing stats */
    pm = mk(0);
    uint64_t a[32];
    stride_seq(a, 32, 0, 4);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    add(pm, a, 32, 4, MB_SPACE_SHARED);
    r = prof_mem_finish(pm);
    assert_int_equal(r->space, MB_SPACE_NONE);
    assert_int_equal(r->footprint_lines, 2);
    assert_int_equal(r->reuse_log2.n, 0);
    only(&r->sectors, 4, 1);
    only(&r->bank_degree, 1, 1);
    assert_int_equal(r->requests, 2);
    prof_mem_free(pm);

    /* the footprint cap: 32 new lines per request */
    pm = mk(0);
    uint32_t reqs = (1u << 20) / 32 + 4;
    for (uint32_t q = 0; q < reqs; q++) {
        stride_seq(a, 32, (uint64_t)q * 32 * 128, 128);
        add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    }
    /* revisit the first request's lines: still tracked, reuse counted */
    stride_seq(a, 32, 0, 128);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    r = prof_mem_finish(pm);
    assert_int_equal(r->footprint_lines, 1u << 20);
    assert_int_equal(r->footprint_capped, 1);
    assert_int_equal(r->reuse_log2.total, 32);
    /* d = reqs - 1 -> floor(log2(reqs)) */
    uint64_t bucket = 0;
    while ((2ull << bucket) <= reqs)
        bucket++;
    assert_int_equal(hget(&r->reuse_log2, bucket), 32);
    prof_mem_free(pm);
}

/* Reference footprint and reuse: the last request of every line seen. */
typedef struct ref_lines {
    uint64_t line[8192], last[8192];
    uint32_t n;
} ref_lines;

static void ref_touch(ref_lines *rl, expect_hist *reuse, const uint64_t *a, uint32_t n,
                      uint32_t bytes, uint64_t r)
{
    uint64_t mine[32 * 8];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint64_t l = a[i] / 128; l <= (a[i] + bytes - 1) / 128; l++)
            mine[k++] = l;
    uint64_t nl = distinct(mine, k);
    uint32_t j = 0;
    for (uint32_t i = 0; i < k; i++)
        if (i == 0 || mine[i] != mine[i - 1])
            mine[j++] = mine[i];
    assert_int_equal(j, nl);
    for (uint32_t i = 0; i < j; i++) {
        uint32_t s = 0;
        while (s < rl->n && rl->line[s] != mine[i])
            s++;
        if (s == rl->n) {
            assert_true(rl->n < 8192);
            rl->line[rl->n++] = mine[i];
        } else {
            uint64_t gap = r - rl->last[s], b = 0;
            while ((2ull << b) <= gap)
                b++;
            expect_add(reuse, b, 1);
        }
        rl->last[s] = r;
    }
}


/* Scattered shared requests (atomics on a table indexed by data), some with
 * a lane far from the others or straddling bank words, under several bank
 * configurations: bank degrees, lane strides, footprint and reuse equal
 * their literal definitions. */
static void test_scattered_shared(void **state)
{
    (void)state;
    static expect_hist banks, cc1x, strides, reuse;
    static ref_lines seen;
    static const uint32_t nbanks[] = {32, 16, 64, 8}, words[] = {4, 8};
    uint64_t a[32];
    uint8_t lanes[32];
    for (int iter = 0; iter < 200; iter++) {
        memset(&banks, 0, sizeof(banks));
        memset(&cc1x, 0, sizeof(cc1x));
        memset(&strides, 0, sizeof(strides));
        memset(&reuse, 0, sizeof(reuse));
        seen.n = 0;
        const uint32_t nb = nbanks[rnd() % 4], word = words[rnd() % 2];
        prof_mem_config c = {nb, word, 32, 128, 0};
        prof_mem *pm = prof_mem_new(&c);
        assert_non_null(pm);
        const uint64_t table = 64u << (rnd() % 8), base = (rnd() % 64) * 4;
        for (uint64_t r = 0; r < 40; r++) {
            /* the whole warp, some lanes, or lanes of one half-warp only */
            const uint32_t pick = (uint32_t)(rnd() % 6);
            uint32_t mask = pick < 2 ? UINT32_MAX : (uint32_t)rnd() | 0x10001u, n = 0;
            if (pick >= 4)
                mask &= pick == 4 ? 0xffffu : 0xffff0000u;
            for (uint32_t l = 0; l < 32; l++)
                if (mask >> l & 1)
                    lanes[n++] = (uint8_t)l;
            uint32_t bytes = rnd() % 4 ? 4 : 1u << (rnd() % 4);
            for (uint32_t i = 0; i < n; i++)
                a[i] = base + (rnd() % table) * 4 + (bytes < 4 ? (rnd() % 4) / bytes * bytes : 0);
            if (rnd() % 8 == 0)
                a[rnd() % n] += 4 * 4096 * (1 + rnd() % 3); /* a lane far away */
            if (rnd() % 8 == 0)
                a[rnd() % n] += 2; /* straddling two words */
            prof_mem_request rq = {.lanes = n,
                                   .addrs = a,
                                   .lane_index = lanes,
                                   .access_bytes = bytes,
                                   .space = MB_SPACE_SHARED};
            assert_int_equal(prof_mem_add(pm, &rq), 1);
            expect_add(&banks, ref_bank_words(a, n, bytes, nb, word), 1);
            uint32_t split = 0; /* the 1.x rule: each half-warp on 16 banks */
            while (split < n && lanes[split] < 16)
                split++;
            expect_add(&cc1x,
                       (split ? ref_bank_words(a, split, bytes, 16, word) : 0) +
                           (split < n ? ref_bank_words(a + split, n - split, bytes, 16, word) : 0),
                       1);
            for (uint32_t i = 1; i < n; i++)
                expect_add(&strides, a[i] - a[i - 1] + BIAS, 1);
            ref_touch(&seen, &reuse, a, n, bytes, r);
        }
        const prof_mem_result *r = prof_mem_finish(pm);
        expect_equal(&banks, &r->bank_degree);
        expect_equal(&cc1x, &r->bank_cc1x);
        expect_equal(&strides, &r->lane_stride);
        expect_equal(&reuse, &r->reuse_log2);
        assert_int_equal(r->footprint_lines, seen.n);
        assert_int_equal(r->sectors.n, 0);
        prof_mem_free(pm);
    }
}

/* Shared and global requests of a few shapes (lane offsets spanning
 * several lines) at translated addresses, so that memos hit with their
 * lines shifted: footprint and reuse equal their literal definitions,
 * whether a hit's lines lie in the shared space's array or not (global
 * lines are hashed). */
static void test_memo_hit_reuse(void **state)
{
    (void)state;
    static expect_hist reuse;
    static ref_lines seen;
    static const mb_space spaces[] = {MB_SPACE_SHARED, MB_SPACE_GLOBAL};
    uint64_t shapes[3][32], a[32];
    for (int iter = 0; iter < 100; iter++) {
        memset(&reuse, 0, sizeof(reuse));
        seen.n = 0;
        prof_mem *pm = prof_mem_new(NULL);
        assert_non_null(pm);
        const mb_space space = spaces[iter % 2];
        for (int s = 0; s < 3; s++)
            for (uint32_t i = 0; i < 32; i++) /* strides of 132 bytes, or scattered */
                shapes[s][i] = s == 0 ? i * 132 : s == 1 ? i * 4 * (1 + rnd() % 40) : (rnd() % 512) * 4;
        for (uint64_t r = 0; r < 60; r++) {
            const int s = (int)(rnd() % 3);
            const uint64_t at = (rnd() % 24) * 128 + (rnd() % 2 ? 0 : 4096 * (uint64_t)(rnd() % 3));
            for (uint32_t i = 0; i < 32; i++)
                a[i] = at + shapes[s][i];
            prof_mem_request rq = {.lanes = 32,
                                   .addrs = a,
                                   .access_bytes = 4,
                                   .space = space};
            assert_int_equal(prof_mem_add(pm, &rq), 1);
            ref_touch(&seen, &reuse, a, 32, 4, r);
        }
        const prof_mem_result *r = prof_mem_finish(pm);
        expect_equal(&reuse, &r->reuse_log2);
        assert_int_equal(r->footprint_lines, seen.n);
        prof_mem_free(pm);
    }
}

/* One instruction's stream of scattered global requests, each new (its
 * memos almost never hit, so after PM_MEMO_GIVE_UP records it stops looking
 * them up except every PM_MEMO_RETRY-th request), with a shape repeated now
 * and then, lanes given as the collector gives them: every statistic
 * equals the sum of the per-request references. */
static void test_memos_given_up(void **state)
{
    (void)state;
    static expect_units e;
    uint64_t a[32], rep[32], b[32];
    uint8_t lanes[32], rlanes[32];
    for (int iter = 0; iter < 4; iter++) {
        memset(&e, 0, sizeof(e));
        prof_mem *pm = mk(0);
        uint32_t rn, rbytes;
        random_pattern(rep, rlanes, &rn, &rbytes);
        for (int k = 0; k < 1000; k++) {
            const uint64_t *x = a;
            const uint8_t *xl = lanes;
            uint32_t n, bytes;
            if (k % 7 == 0) { /* the repeated shape, translated by whole segments */
                const uint64_t shift = (rnd() % 64) * 256;
                for (uint32_t i = 0; i < rn; i++)
                    b[i] = rep[i] + shift;
                x = b;
                xl = rlanes;
                n = rn;
                bytes = rbytes;
            } else {
                random_pattern(a, lanes, &n, &bytes);
            }
            prof_mem_request rq = {.lanes = n,
                                   .addrs = x,
                                   .lane_index = xl,
                                   .lane_mask = mask_of(xl, n),
                                   .access_bytes = bytes,
                                   .space = MB_SPACE_GLOBAL};
            assert_int_equal(prof_mem_add(pm, &rq), 1);
            expect_units_add(&e, x, xl, n, bytes);
            expect_strides_add(&e, x, n);
        }
        const prof_mem_result *r = prof_mem_finish(pm);
        assert_int_equal(r->requests, 1000);
        expect_units_equal(&e, r);
        prof_mem_free(pm);
    }
}

/* One "launch" of requests: a few shapes at translated addresses, mixed with
 * others; with `many_strides`, first a request of 4200 distinct lane strides
 * (too wide for a memo), so that the lane-stride histogram is full when the
 * shapes come. */
static void kept_launch(prof_mem *pm, prof_mem *fresh, uint64_t seed, int many_strides, mb_space space)
{
    static uint64_t wide[4201];
    uint64_t a[4][32], b[32];
    uint8_t lanes[4][32];
    uint32_t n[4], bytes[4];
    rng_state = seed;
    for (int k = 0; k < 4; k++)
        random_pattern(a[k], lanes[k], &n[k], &bytes[k]);
    if (many_strides) {
        wide[0] = 0x100000;
        for (uint32_t i = 1; i < 4201; i++)
            wide[i] = wide[i - 1] + 4 * (i + 300);
        add(pm, wide, 4201, 4, space);
        add(fresh, wide, 4201, 4, space);
    }
    for (int r = 0; r < 300; r++) {
        const int k = (int)(rnd() % 4);
        const uint64_t shift = rnd() % 3 ? (rnd() % 64) * 256 : rnd() % 300;
        for (uint32_t i = 0; i < n[k]; i++)
            b[i] = a[k][i] + shift;
        prof_mem_request rq = {
            .lanes = n[k], .addrs = b, .lane_index = lanes[k], .access_bytes = bytes[k], .space = space};
        assert_int_equal(prof_mem_add(pm, &rq), 1);
        assert_int_equal(prof_mem_add(fresh, &rq), 1);
    }
}

/* Shapes kept from one prof_mem and given to the next (the same instruction
 * in the next launch) change no result: the second prof_mem counts what a
 * fresh one counts, whether or not its lane-stride histogram fills up
 * before the kept shapes come back, and shapes of another configuration
 * are not used. */
static void test_kept_shapes(void **state)
{
    (void)state;
    for (int iter = 0; iter < 60; iter++) {
        const mb_space space = iter % 3 == 0 ? MB_SPACE_SHARED : MB_SPACE_GLOBAL;
        const uint64_t seed = 0x1234567ull * (uint64_t)(iter + 1);
        prof_mem *first = mk(0), *scratch = mk(0);
        kept_launch(first, scratch, seed, iter % 2, space);
        prof_mem_finish(first);
        prof_mem_shapes *kept = prof_mem_take_shapes(first);
        assert_non_null(kept);
        assert_null(prof_mem_take_shapes(first)); /* taken */
        prof_mem_free(first);
        prof_mem_free(scratch);

        prof_mem_config other = {16, 4, 32, 128, 0};
        prof_mem *second = iter % 5 == 4 ? prof_mem_new(&other) : mk(0);
        prof_mem *fresh = iter % 5 == 4 ? prof_mem_new(&other) : mk(0);
        assert_non_null(second);
        assert_non_null(fresh);
        prof_mem_give_shapes(second, kept);
        kept_launch(second, fresh, seed + (uint64_t)(iter % 4 == 1), (iter / 2) % 2, space);
        same_result(prof_mem_finish(second), prof_mem_finish(fresh));
        /* and once more, from the shapes the second one kept */
        prof_mem_shapes *again = prof_mem_take_shapes(second);
        prof_mem *third = iter % 5 == 4 ? prof_mem_new(&other) : mk(0);
        prof_mem *fresh3 = iter % 5 == 4 ? prof_mem_new(&other) : mk(0);
        prof_mem_give_shapes(third, again);
        kept_launch(third, fresh3, seed, 0, space);
        same_result(prof_mem_finish(third), prof_mem_finish(fresh3));
        prof_mem_free(second);
        prof_mem_free(fresh);
        prof_mem_free(third);
        prof_mem_free(fresh3);
    }
    prof_mem_shapes_free(NULL);
    prof_mem *none = mk(0);
    assert_null(prof_mem_take_shapes(none)); /* no shapes learnt */
    prof_mem_free(none);
}

/* finish may be called again after more requests; nothing is counted twice */
static void test_finish_twice(void **state)
{
    (void)state;
    prof_mem *pm = mk(0);
    uint64_t a[32];
    stride_seq(a, 32, 0x1000, 4);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    const prof_mem_result *r = prof_mem_finish(pm);
    only(&r->sectors, 4, 1);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    add(pm, a, 16, 4, MB_SPACE_GLOBAL);
    add(pm, a, 0, 4, MB_SPACE_GLOBAL); /* no lanes: ignored */
    r = prof_mem_finish(pm);
    r = prof_mem_finish(pm);
    assert_int_equal(r->requests, 3);
    assert_int_equal(r->thread_accesses, 80);
    assert_int_equal(r->sectors.n, 2);
    assert_int_equal(hget(&r->sectors, 4), 2);
    assert_int_equal(hget(&r->sectors, 2), 1);
    assert_int_equal(hget(&r->lane_stride, BIAS + 4), 31 + 31 + 15);
    assert_int_equal(r->reuse_log2.total, 2);
    prof_mem_free(pm);
    prof_mem_free(NULL);
}

static void test_config(void **state)
{
    (void)state;
    prof_mem_config bad = {24, 4, 32, 128, 0};
    assert_null(prof_mem_new(&bad));
    prof_mem_config zero = {0, 0, 0, 0, 0};
    prof_mem *pm = prof_mem_new(&zero); /* defaults 32 x 4, 32, 128 */
    assert_non_null(pm);
    uint64_t a[32];
    stride_seq(a, 32, 0x1000, 4);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    const prof_mem_result *r = prof_mem_finish(pm);
    only(&r->sectors, 4, 1);
    assert_int_equal(r->affine, 0); /* no features and varying addresses */
    prof_mem_free(pm);
}

/* ------------------------------------------------------------ affine */

enum { F_TX, F_TY, F_TZ, F_CX, F_CY, F_CZ, F_IT, NF };

typedef uint64_t (*addr_fn)(const int64_t *f, int req);

/* Runs a 1-D launch: `ctas` CTAs of `threads` threads, `iters` loop
 * iterations, one request per warp per iteration; ctaid.y = 3 and
 * tid.z = 0 never vary. */
static const prof_mem_result *run_launch(prof_mem *pm, addr_fn fn, int ctas, int threads, int iters)
{
    int req = 0;
    for (int c = 0; c < ctas; c++)
        for (int it = 0; it < iters; it++)
            for (int w = 0; w * 32 < threads; w++) {
                int64_t f[32 * NF];
                uint64_t a[32];
                uint32_t n = 0;
                for (int l = 0; l < 32 && w * 32 + l < threads; l++, n++) {
                    int64_t *x = f + n * NF;
                    memset(x, 0, NF * sizeof(int64_t));
                    x[F_TX] = w * 32 + l;
                    x[F_CX] = c;
                    x[F_CY] = 3;
                    x[F_IT] = it;
                    a[n] = fn(x, req);
                }
                prof_mem_request rq = {.lanes = n,
                                       .addrs = a,
                                       .access_bytes = 4,
                                       .space = MB_SPACE_GLOBAL,
                                       .features = f};
                assert_int_equal(prof_mem_add(pm, &rq), 1);
                req++;
            }
    return prof_mem_finish(pm);
}

#define BASE 0x7f12345600ull

static uint64_t f_affine(const int64_t *f, int req)
{
    (void)req;
    return BASE + 4 * f[F_TX] + 1024 * f[F_CX] + 64 * f[F_IT];
}

static uint64_t f_square(const int64_t *f, int req)
{
    (void)req;
    return BASE + 4 * (uint64_t)((f[F_TX] ^ 1) * f[F_TX]);
}

static int bad_req;
static uint64_t f_one_off(const int64_t *f, int req)
{
    return f_affine(f, req) + (req == bad_req && f[F_TX] % 32 == 5 ? 4 : 0);
}

static uint64_t f_negative(const int64_t *f, int req)
{
    (void)req;
    return BASE + 4 * (63 - f[F_TX]) - 4096 * f[F_CX];
}

static void expect_coef(const prof_mem_result *r, int64_t c0, int64_t tx, int64_t cx, int64_t it)
{
    assert_int_equal(r->affine, 1);
    assert_int_equal(r->ncoef, NF + 1);
    assert_int_equal(r->coef[0], c0);
    assert_int_equal(r->coef[1 + F_TX], tx);
    assert_int_equal(r->coef[1 + F_TY], 0);
    assert_int_equal(r->coef[1 + F_TZ], 0);
    assert_int_equal(r->coef[1 + F_CX], cx);
    assert_int_equal(r->coef[1 + F_CY], 0); /* never varies (always 3) */
    assert_int_equal(r->coef[1 + F_CZ], 0);
    assert_int_equal(r->coef[1 + F_IT], it);
}

static void test_affine_found(void **state)
{
    (void)state;
    prof_mem *pm = mk(NF);
    const prof_mem_result *r = run_launch(pm, f_affine, 4, 64, 3);
    expect_coef(r, (int64_t)BASE, 4, 1024, 64);
    assert_int_equal(r->requests, 4 * 3 * 2);
    prof_mem_free(pm);

    pm = mk(NF);
    r = run_launch(pm, f_negative, 3, 64, 2);
    expect_coef(r, (int64_t)BASE + 252, -4, -4096, 0);
    prof_mem_free(pm);

    /* a single CTA, single iteration: only tid.x varies */
    pm = mk(NF);
    r = run_launch(pm, f_affine, 1, 32, 1);
    expect_coef(r, (int64_t)BASE, 4, 0, 0);
    prof_mem_free(pm);

    /* no features at all: affine only when the address never changes */
    pm = mk(0);
    uint64_t a[32];
    stride_seq(a, 32, 0x500, 0);
    add(pm, a, 32, 4, MB_SPACE_GLOBAL);
    add(pm, a, 7, 4, MB_SPACE_GLOBAL);
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 1);
    assert_int_equal(r->ncoef, 1);
    assert_int_equal(r->coef[0], 0x500);
    prof_mem_free(pm);
}

static void test_affine_refused(void **state)
{
    (void)state;
    prof_mem *pm = mk(NF);
    const prof_mem_result *r = run_launch(pm, f_square, 2, 64, 2);
    assert_int_equal(r->affine, 0);
    assert_int_equal(r->ncoef, NF + 1);
    assert_int_equal(r->coef[0], 0);
    prof_mem_free(pm);

    /* affine except in one request: early, in the middle, last */
    int bads[] = {0, 1, 2, 7, 23};
    for (int k = 0; k < 5; k++) {
        bad_req = bads[k];
        pm = mk(NF);
        r = run_launch(pm, f_one_off, 4, 64, 3);
        assert_int_equal(r->affine, 0);
        prof_mem_free(pm);
    }
    /* control: a request index that never occurs */
    bad_req = 1000;
    pm = mk(NF);
    r = run_launch(pm, f_one_off, 4, 64, 3);
    expect_coef(r, (int64_t)BASE, 4, 1024, 64);
    prof_mem_free(pm);

    /* fractional slope: addr = base + 2 * tid.x for even lanes only ... as
     * integer division tid.x / 2 * 4: not affine */
    pm = mk(1);
    for (int64_t t = 0; t < 32; t++) {
        int64_t f = t;
        uint64_t a = 0x1000 + (uint64_t)(t / 2) * 4;
        prof_mem_request rq = {
            .lanes = 1, .addrs = &a, .access_bytes = 4, .space = MB_SPACE_GLOBAL, .features = &f};
        assert_int_equal(prof_mem_add(pm, &rq), 1);
    }
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 0);
    prof_mem_free(pm);

    /* too many features: not modelled */
    prof_mem_config c = {32, 4, 32, 128, 16};
    pm = prof_mem_new(&c);
    int64_t f[16] = {0};
    uint64_t a = 0x100;
    prof_mem_request rq = {
        .lanes = 1, .addrs = &a, .access_bytes = 4, .space = MB_SPACE_GLOBAL, .features = f};
    assert_int_equal(prof_mem_add(pm, &rq), 1);
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 0);
    assert_int_equal(r->ncoef, 0);
    prof_mem_free(pm);
}

/* Collinear features first (iter == 2 * tid.x in every lane), broken later:
 * the model first puts everything on tid.x, then refits to the truth. */
static void test_affine_collinear(void **state)
{
    (void)state;
    prof_mem *pm = mk(2);
    int64_t f[64];
    uint64_t a[32];
    for (int phase = 0; phase < 3; phase++) {
        for (int l = 0; l < 32; l++) {
            int64_t tx = l, it = phase == 0 ? 2 * l : phase;
            f[2 * l] = tx;
            f[2 * l + 1] = it;
            a[l] = 0x9000 + 4 * (uint64_t)tx + 8 * (uint64_t)it;
        }
        prof_mem_request rq = {
            .lanes = 32, .addrs = a, .access_bytes = 4, .space = MB_SPACE_GLOBAL, .features = f};
        assert_int_equal(prof_mem_add(pm, &rq), 1);
        if (phase == 0) {
            const prof_mem_result *r = prof_mem_finish(pm);
            assert_int_equal(r->affine, 1);
            assert_int_equal(r->coef[0], 0x9000);
            assert_int_equal(r->coef[1], 20);
            assert_int_equal(r->coef[2], 0);
        }
    }
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 1);
    assert_int_equal(r->coef[0], 0x9000);
    assert_int_equal(r->coef[1], 4);
    assert_int_equal(r->coef[2], 8);
    prof_mem_free(pm);

    /* the same, but the later phase contradicts the collinear model in a
     * way no affine model fits: (tx, it) = (1, 2) seen with two addresses */
    pm = mk(2);
    for (int l = 0; l < 32; l++) {
        f[2 * l] = l;
        f[2 * l + 1] = 2 * l;
        a[l] = 0x9000 + 20 * (uint64_t)l;
    }
    prof_mem_request rq = {
        .lanes = 32, .addrs = a, .access_bytes = 4, .space = MB_SPACE_GLOBAL, .features = f};
    assert_int_equal(prof_mem_add(pm, &rq), 1);
    a[1] += 4;
    assert_int_equal(prof_mem_add(pm, &rq), 1);
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 0);
    prof_mem_free(pm);
}

/* One request of 32 lanes with two features per lane. */
static void add2(prof_mem *pm, const int64_t *f0, const int64_t *f1, const uint64_t *a)
{
    int64_t f[64];
    for (int l = 0; l < 32; l++) {
        f[2 * l] = f0[l];
        f[2 * l + 1] = f1[l];
    }
    prof_mem_request rq = {
        .lanes = 32, .addrs = a, .access_bytes = 4, .space = MB_SPACE_GLOBAL, .features = f};
    assert_int_equal(prof_mem_add(pm, &rq), 1);
}

/* An access whose features leave the span must be stored even when the
 * current model happens to predict its address: a later refit has to
 * reproduce it. Here the data are not affine, and only the stored sample
 * proves it. */
static void test_affine_span_matters(void **state)
{
    (void)state;
    int64_t tx[32], fz[32];
    uint64_t a[32];
    /* (1) a feature that never varied (tz = 7) changes to 8 while the
     * address follows the model; then tz = 9 with an offset of 16:
     * offsets 0, 0, 16 for tz = 7, 8, 9 is not linear */
    prof_mem *pm = mk(2);
    for (int phase = 0; phase < 3; phase++) {
        for (int l = 0; l < 32; l++) {
            tx[l] = l;
            fz[l] = 7 + phase;
            a[l] = 0x1000 + 4 * (uint64_t)l + (phase == 2 ? 16 : 0);
        }
        add2(pm, tx, fz, a);
    }
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 0);
    prof_mem_free(pm);
    /* control: offsets 0, 8, 16 are affine (coefficient 8, constant -56) */
    pm = mk(2);
    for (int phase = 0; phase < 3; phase++) {
        for (int l = 0; l < 32; l++) {
            tx[l] = l;
            fz[l] = 7 + phase;
            a[l] = 0x1000 + 4 * (uint64_t)l + 8 * (uint64_t)phase;
        }
        add2(pm, tx, fz, a);
    }
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 1);
    assert_int_equal(r->coef[0], 0x1000 - 56);
    assert_int_equal(r->coef[1], 4);
    assert_int_equal(r->coef[2], 8);
    prof_mem_free(pm);

    /* (2) collinear features (it = 2 tx: a two-term span constraint);
     * then it = 2 tx + 1 with addresses the collinear model predicts
     * (20 tx); then it = 0 with 4 tx: the refit 4 tx + 8 it would miss
     * phase 2 by 8, so no affine model exists */
    pm = mk(2);
    for (int phase = 0; phase < 3; phase++) {
        for (int l = 0; l < 32; l++) {
            tx[l] = l;
            fz[l] = phase == 0 ? 2 * l : phase == 1 ? 2 * l + 1 : 0;
            a[l] = 0x9000 + (phase == 2 ? 4 : 20) * (uint64_t)l;
        }
        add2(pm, tx, fz, a);
    }
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 0);
    prof_mem_free(pm);

    /* (3) as (1) with a warp-uniform feature (ctaid.y), checked once per
     * request: offsets 0, 0, 16 for ctaid.y = 0, 1, 2 */
    for (int affine = 0; affine < 2; affine++) {
        pm = mk(NF);
        for (int phase = 0; phase < 3; phase++) {
            int64_t f[32 * NF];
            for (int l = 0; l < 32; l++) {
                int64_t *x = f + l * NF;
                memset(x, 0, NF * sizeof(int64_t));
                x[F_TX] = l;
                x[F_CY] = phase;
                a[l] = 0x1000 + 4 * (uint64_t)l +
                       (affine       ? 8 * (uint64_t)phase
                        : phase == 2 ? 16
                                     : 0);
            }
            prof_mem_request rq = {.lanes = 32,
                                   .addrs = a,
                                   .access_bytes = 4,
                                   .space = MB_SPACE_GLOBAL,
                                   .features = f};
            assert_int_equal(prof_mem_add(pm, &rq), 1);
        }
        r = prof_mem_finish(pm);
        assert_int_equal(r->affine, affine);
        if (affine)
            assert_int_equal(r->coef[1 + F_CY], 8);
        prof_mem_free(pm);
    }

    /* (4) a span constraint that needs the fully reduced echelon form:
     * f2 = f1 + 5 (first sample f1 = 3), then f2 = f1 + 8 with the model's
     * address 4 f1, then f2 = f1 + 20 with 4 f1 + 60. Without phase 2,
     * 4 f2 - 20 would fit; with it nothing does. */
    pm = mk(2);
    for (int phase = 0; phase < 3; phase++) {
        for (int l = 0; l < 32; l++) {
            tx[l] = phase == 0 ? l + 3 : l;
            fz[l] = tx[l] + (phase == 0 ? 5 : phase == 1 ? 8 : 20);
            a[l] = 4 * (uint64_t)tx[l] + (phase == 2 ? 60 : 0);
        }
        add2(pm, tx, fz, a);
    }
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 0);
    prof_mem_free(pm);
}

/* The least-squares solution is fractional (slope 1.5): rounding gives 2,
 * which the exact verification rejects. */
static void test_affine_fractional(void **state)
{
    (void)state;
    prof_mem *pm = mk(1);
    int64_t f[2] = {0, 2};
    uint64_t a[2] = {0x1000, 0x1003};
    prof_mem_request rq = {
        .lanes = 2, .addrs = a, .access_bytes = 1, .space = MB_SPACE_GLOBAL, .features = f};
    assert_int_equal(prof_mem_add(pm, &rq), 1);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 0);
    prof_mem_free(pm);
    /* slope 3 over the same features is fine */
    pm = mk(1);
    a[1] = 0x1006;
    assert_int_equal(prof_mem_add(pm, &rq), 1);
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 1);
    assert_int_equal(r->coef[0], 0x1000);
    assert_int_equal(r->coef[1], 3);
    prof_mem_free(pm);
}

/* Addresses near 2^63 and features near 2^40: the exact model update finds
 * the integer slope, and refuses one that is 2^-40 off an integer. */
static void test_affine_wide_values(void **state)
{
    (void)state;
    const int64_t big = (int64_t)1 << 40;
    int64_t f[3] = {0, big, 3 * big};
    uint64_t a[3];
    for (int k = 0; k < 3; k++)
        a[k] = 0x7000000000000000ull + (uint64_t)f[k] * 4096;
    prof_mem_request rq = {
        .lanes = 3, .addrs = a, .access_bytes = 1, .space = MB_SPACE_GLOBAL, .features = f};
    prof_mem *pm = mk(1);
    assert_int_equal(prof_mem_add(pm, &rq), 1);
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 1);
    assert_int_equal(r->coef[0], 0x7000000000000000ll);
    assert_int_equal(r->coef[1], 4096);
    prof_mem_free(pm);
    /* slope 4096 + 1/2^40 is not integral */
    a[1] += 1;
    a[2] += 3;
    pm = mk(1);
    assert_int_equal(prof_mem_add(pm, &rq), 1);
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 0);
    prof_mem_free(pm);
}

/* Random 3-D launches with random integer coefficients: the fit recovers
 * them exactly (0 for dimensions of size 1); one disturbed lane anywhere
 * makes the instruction non-affine. */
static void test_affine_random(void **state)
{
    (void)state;
    static int64_t f[32 * NF];
    for (int trial = 0; trial < 300; trial++) {
        int dims[7] = {3 + (int)(rnd() % 38), 1 + (int)(rnd() % 3), 1 + (int)(rnd() % 2),
                       1 + (int)(rnd() % 3),  1 + (int)(rnd() % 2), 1 + (int)(rnd() % 2),
                       1 + (int)(rnd() % 3)};
        int64_t coef[NF + 1];
        coef[0] = (int64_t)(0x10000000 + (rnd() % 0x1000000) * 16);
        for (int k = 1; k <= NF; k++)
            coef[k] = rnd() % 4 == 0 ? 0 : ((int64_t)(rnd() % 101) - 50) * 4;
        int nthreads = dims[0] * dims[1] * dims[2];
        int nreq = 0;
        int disturb = trial % 2;
        int total = dims[3] * dims[4] * dims[5] * dims[6] * ((nthreads + 31) / 32);
        int bad_req_i = (int)(rnd() % (uint64_t)total);
        prof_mem *pm = mk(NF);
        for (int cz = 0; cz < dims[5]; cz++)
            for (int cy = 0; cy < dims[4]; cy++)
                for (int cx = 0; cx < dims[3]; cx++)
                    for (int it = 0; it < dims[6]; it++)
                        for (int w = 0; w * 32 < nthreads; w++) {
                            uint64_t a[32];
                            uint32_t n = 0;
                            for (int t = w * 32; t < nthreads && t < w * 32 + 32; t++, n++) {
                                int64_t *x = f + n * NF;
                                x[F_TX] = t % dims[0];
                                x[F_TY] = t / dims[0] % dims[1];
                                x[F_TZ] = t / (dims[0] * dims[1]);
                                x[F_CX] = cx;
                                x[F_CY] = cy;
                                x[F_CZ] = cz;
                                x[F_IT] = it;
                                uint64_t v = (uint64_t)coef[0];
                                for (int k = 0; k < NF; k++)
                                    v += (uint64_t)coef[k + 1] * (uint64_t)x[k];
                                a[n] = v;
                            }
                            if (disturb && nreq == bad_req_i)
                                a[rnd() % n] += 4;
                            prof_mem_request rq = {.lanes = n,
                                                   .addrs = a,
                                                   .access_bytes = 4,
                                                   .space = MB_SPACE_GLOBAL,
                                                   .features = f};
                            assert_int_equal(prof_mem_add(pm, &rq), 1);
                            nreq++;
                        }
        const prof_mem_result *r = prof_mem_finish(pm);
        if (disturb) {
            assert_int_equal(r->affine, 0);
        } else {
            assert_int_equal(r->affine, 1);
            assert_int_equal(r->coef[0], coef[0]); /* size-1 dimensions are 0 */
            for (int k = 0; k < NF; k++)
                assert_int_equal(r->coef[k + 1], dims[k] == 1 ? 0 : coef[k + 1]);
        }
        prof_mem_free(pm);
    }
}

/* 2-D blocks (16 x 2): tid.y varies inside a warp; the address is a
 * row-major 2-D index. */
static void test_affine_2d(void **state)
{
    (void)state;
    prof_mem *pm = mk(NF);
    for (int c = 0; c < 3; c++)
        for (int w = 0; w < 4; w++) {
            int64_t f[32 * NF];
            uint64_t a[32];
            for (int l = 0; l < 32; l++) {
                int64_t *x = f + l * NF;
                memset(x, 0, NF * sizeof(int64_t));
                x[F_TX] = l % 16;
                x[F_TY] = 2 * w + l / 16;
                x[F_CX] = c;
                x[F_CY] = 3;
                a[l] = 0x20000 + 4 * (uint64_t)x[F_TX] + 256 * (uint64_t)x[F_TY] + 64 * (uint64_t)c;
            }
            prof_mem_request rq = {.lanes = 32,
                                   .addrs = a,
                                   .access_bytes = 4,
                                   .space = MB_SPACE_GLOBAL,
                                   .features = f};
            assert_int_equal(prof_mem_add(pm, &rq), 1);
        }
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 1);
    assert_int_equal(r->coef[0], 0x20000);
    assert_int_equal(r->coef[1 + F_TX], 4);
    assert_int_equal(r->coef[1 + F_TY], 256);
    assert_int_equal(r->coef[1 + F_CX], 64);
    assert_int_equal(r->coef[1 + F_CY], 0);
    assert_int_equal(r->coef[1 + F_IT], 0);
    prof_mem_free(pm);
}

/* A feature that never varies in early requests and varies later: the
 * span grows and the model stays exact. Also: a never-varying feature with
 * a non-zero value keeps coefficient 0 (the constant absorbs it). */
static void test_affine_late_feature(void **state)
{
    (void)state;
    prof_mem *pm = mk(NF);
    for (int rq_i = 0; rq_i < 40; rq_i++) {
        int64_t f[32 * NF];
        uint64_t a[32];
        for (int l = 0; l < 32; l++) {
            int64_t *x = f + l * NF;
            memset(x, 0, NF * sizeof(int64_t));
            x[F_TX] = l;
            x[F_TZ] = 7; /* constant, non-zero */
            x[F_IT] = rq_i < 30 ? 0 : rq_i - 29;
            x[F_CZ] = rq_i < 35 ? 0 : 1;
            a[l] = 0x40000 + 8 * (uint64_t)l + 100 * (uint64_t)x[F_IT] + 3 * (uint64_t)x[F_CZ];
        }
        prof_mem_request rq = {
            .lanes = 32, .addrs = a, .access_bytes = 8, .space = MB_SPACE_GLOBAL, .features = f};
        assert_int_equal(prof_mem_add(pm, &rq), 1);
    }
    const prof_mem_result *r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 1);
    assert_int_equal(r->coef[0], 0x40000);
    assert_int_equal(r->coef[1 + F_TX], 8);
    assert_int_equal(r->coef[1 + F_TZ], 0);
    assert_int_equal(r->coef[1 + F_IT], 100);
    assert_int_equal(r->coef[1 + F_CZ], 3);
    prof_mem_free(pm);

    /* the same, but tid.z changes once, with an address that no affine
     * model explains together with the rest */
    pm = mk(NF);
    for (int rq_i = 0; rq_i < 12; rq_i++) {
        int64_t f[32 * NF];
        uint64_t a[32];
        for (int l = 0; l < 32; l++) {
            int64_t *x = f + l * NF;
            memset(x, 0, NF * sizeof(int64_t));
            x[F_TX] = l;
            x[F_TZ] = rq_i == 10 ? 8 : 7;
            x[F_IT] = rq_i;
            /* tid.z = 8 explains an offset of 16 in request 10 only if
             * lane 3 were offset too */
            a[l] =
                0x40000 + 4 * (uint64_t)l + 128 * (uint64_t)rq_i + (rq_i == 10 && l != 3 ? 16 : 0);
        }
        prof_mem_request rq = {
            .lanes = 32, .addrs = a, .access_bytes = 4, .space = MB_SPACE_GLOBAL, .features = f};
        assert_int_equal(prof_mem_add(pm, &rq), 1);
    }
    r = prof_mem_finish(pm);
    assert_int_equal(r->affine, 0);
    prof_mem_free(pm);
}

/* Requests in column form with warp tags take the profiler's shortcut (a
 * shape already verified is checked on its first entry alone); the same
 * requests in row form are checked lane by lane. Whatever the features do
 * (uniform or varying per lane, the model changing as new ones vary) and
 * whether or not the addresses are affine, both must reach the same result. */
static void test_affine_tagged_matches_rows(void **state)
{
    (void)state;
    uint64_t seed = 12345;
    for (int sequence = 0; sequence < 60; sequence++) {
        prof_mem *cols_pm = mk(NF), *rows_pm = mk(NF);
        const int lane_varying_it = sequence % 3 != 0, perturbed = sequence % 4 == 1;
        /* the addresses ignore the iteration's lane part: the shape of a
         * verified request whose lanes the model does not reproduce */
        const int lane_part_ignored = sequence % 4 == 3;
        const uint64_t it_coef = sequence % 5 == 2 ? 0 : 512;
        for (int rq_i = 0; rq_i < 80; rq_i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            const uint32_t tag = 1 + (uint32_t)((seed >> 33) & 1);
            const int half = ((seed >> 40) & 7) == 0; /* the low 16 lanes only */
            const int64_t cx = (int64_t)((seed >> 44) % 3), iter = rq_i / 8;
            const int vary = lane_varying_it && ((seed >> 50) & 7) == 0;
            const uint32_t n = half ? 16 : 32;
            int64_t tx[32], it[32], uniform[NF] = {0}, rows[32 * NF];
            uint64_t a[32];
            const int64_t *columns[NF] = {NULL};
            uniform[F_CX] = cx;
            uniform[F_IT] = iter;
            for (uint32_t l = 0; l < 32; l++) {
                tx[l] = (int64_t)(tag - 1) * 32 + l;
                it[l] = iter + (vary ? (int64_t)(l & 1) : 0);
            }
            columns[F_TX] = tx;
            if (vary)
                columns[F_IT] = it;
            for (uint32_t l = 0; l < n; l++) {
                int64_t *x = rows + l * NF;
                memset(x, 0, NF * sizeof(int64_t));
                x[F_TX] = tx[l];
                x[F_CX] = cx;
                x[F_IT] = it[l];
                a[l] = 0x100000 + 4 * (uint64_t)tx[l] +
                       it_coef * (uint64_t)(lane_part_ignored ? iter : it[l]) +
                       4096 * (uint64_t)cx + (perturbed && rq_i == 60 && l == 5 ? 8 : 0);
            }
            prof_mem_request by_cols = {.lanes = n,
                                        .addrs = a,
                                        .access_bytes = 4,
                                        .space = MB_SPACE_GLOBAL,
                                        .feature_lanes = columns,
                                        .feature_uniform = uniform,
                                        .warp_tag = tag};
            prof_mem_request by_rows = {
                .lanes = n, .addrs = a, .access_bytes = 4, .space = MB_SPACE_GLOBAL, .features = rows};
            assert_int_equal(prof_mem_add(cols_pm, &by_cols), 1);
            assert_int_equal(prof_mem_add(rows_pm, &by_rows), 1);
        }
        const prof_mem_result *rc = prof_mem_finish(cols_pm), *rr = prof_mem_finish(rows_pm);
        assert_int_equal(rc->affine, rr->affine);
        if (!lane_part_ignored)
            assert_int_equal(rr->affine, !perturbed);
        else if (lane_varying_it && it_coef != 0)
            assert_int_equal(rr->affine, 0);
        if (rr->affine)
            for (uint32_t k = 0; k <= NF; k++)
                assert_int_equal(rc->coef[k], rr->coef[k]);
        prof_mem_free(cols_pm);
        prof_mem_free(rows_pm);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_basic),        cmocka_unit_test(test_hist_random),
        cmocka_unit_test(test_hist_sort_foreign), cmocka_unit_test(test_hist_local_then_heap),
        cmocka_unit_test(test_hist_many_values), cmocka_unit_test(test_unit_stride_4),
        cmocka_unit_test(test_stride_2_and_32),   cmocka_unit_test(test_scattered),
        cmocka_unit_test(test_misaligned),        cmocka_unit_test(test_wide_words),
        cmocka_unit_test(test_partial_warps),     cmocka_unit_test(test_divergent_lanes),
        cmocka_unit_test(test_bank_conflicts),    cmocka_unit_test(test_random_crosscheck),
        cmocka_unit_test(test_repeated_shapes),
        cmocka_unit_test(test_const_addresses),
        cmocka_unit_test(test_stride_histogram),  cmocka_unit_test(test_footprint_and_reuse),
        cmocka_unit_test(test_scattered_shared), cmocka_unit_test(test_memo_hit_reuse),
        cmocka_unit_test(test_memos_given_up),
        cmocka_unit_test(test_bank_cycles_cc1x), cmocka_unit_test(test_bank_row_window),
        cmocka_unit_test(test_kept_shapes),
        cmocka_unit_test(test_finish_twice),      cmocka_unit_test(test_config),
        cmocka_unit_test(test_affine_found),      cmocka_unit_test(test_affine_refused),
        cmocka_unit_test(test_affine_collinear),  cmocka_unit_test(test_affine_span_matters),
        cmocka_unit_test(test_affine_fractional), cmocka_unit_test(test_affine_wide_values),
        cmocka_unit_test(test_affine_random),
        cmocka_unit_test(test_affine_2d),         cmocka_unit_test(test_affine_late_feature),
        cmocka_unit_test(test_affine_tagged_matches_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
