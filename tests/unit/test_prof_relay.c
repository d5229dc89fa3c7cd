/* The relay of memory requests to a counting thread (prof_relay.c): every
 * instruction's statistics equal those of the same requests counted in the
 * calling thread, across many wraps of the ring and with the counting
 * behind; the features flag falls once a model is refused; a relay freed
 * with requests queued frees cleanly. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../profiler/src/prof_relay.h"
#include "mem_result_check.h"
#include "test_rng.h"

#include <stdlib.h>
#include <string.h>

enum { NSLOTS = 5, NWARPS = 4, NFEAT = 8 };

static uint64_t rng = TEST_RNG_SEED;

static uint64_t rnd(void)
{
    return test_rng_next(&rng);
}

/* Per warp of a 128 x 1 x 1 CTA: 32 tid.x, 32 tid.y, 32 tid.z. */
static void fill_tids(int64_t *table)
{
    for (uint32_t w = 0; w < NWARPS; w++)
        for (uint32_t l = 0; l < 32; l++) {
            table[w * 96 + l] = w * 32 + l;
            table[w * 96 + 32 + l] = 0;
            table[w * 96 + 64 + l] = 0;
        }
}

static prof_mem *mk(void)
{
    prof_mem_config c = {32, 4, 32, 128, NFEAT};
    prof_mem *pm = prof_mem_new(&c);
    assert_non_null(pm);
    return pm;
}

/* A random request of slot s: its kind of addresses follows the slot, so
 * some instructions stay affine and others are refused early. */
typedef struct gen {
    uint64_t addrs[32];
    uint32_t executed, bytes, warp;
    mb_space space;
    int64_t iter[32]; /* the loop counter per lane, feature 6 */
    int64_t uniform[NFEAT];
    const int64_t *cols[NFEAT];
} gen;

static void make(gen *g, uint32_t s, const int64_t *tids, uint64_t step)
{
    static const uint32_t masks[] = {UINT32_MAX, 0x0000ffffu, 0x00ff00f0u, 0x80000001u};
    g->executed = rnd() % 3 ? UINT32_MAX : masks[rnd() % 4];
    g->bytes = s == 3 ? 8 : 4;
    g->space = s == 2 || s == 4 ? MB_SPACE_SHARED : MB_SPACE_GLOBAL;
    g->warp = (uint32_t)(rnd() % NWARPS);
    const int64_t *tid = tids + g->warp * 96;
    const int64_t ctaid = (int64_t)(step / 64 % 7), it = (int64_t)(step % 64);
    const int lane_iters = s == 1 && rnd() % 2; /* lanes on different iterations */
    for (uint32_t l = 0; l < 32; l++) {
        g->iter[l] = lane_iters ? it + l % 3 : it;
        switch (s) {
        case 0: /* affine in tid, ctaid and the counter */
        case 1:
            g->addrs[l] = 0x100000 + 4 * (uint64_t)tid[l] + 512 * (uint64_t)ctaid +
                          4096 * (uint64_t)g->iter[l];
            break;
        case 2: /* shared, a stride of 2 words */
            g->addrs[l] = 8 * (uint64_t)tid[l] % 1024;
            break;
        case 3: /* scattered */
            g->addrs[l] = 0x200000 + (rnd() % 4096) * 8;
            break;
        default: /* shared, random banks */
            g->addrs[l] = (rnd() % 256) * 4;
            break;
        }
    }
    for (uint32_t k = 0; k < NFEAT; k++) {
        g->cols[k] = NULL;
        g->uniform[k] = 0;
    }
    g->cols[0] = tid;
    g->uniform[0] = tid[0];
    g->uniform[3] = ctaid;
    g->uniform[6] = it;
    g->uniform[7] = 5;
    if (lane_iters)
        g->cols[6] = g->iter;
}

/* The same request as the collector counts it in its own thread. */
static void count_inline(prof_mem *pm, const gen *g, int features)
{
    uint64_t a[32];
    uint8_t lane[32];
    uint32_t n = 0;
    for (uint32_t m = g->executed; m; m &= m - 1) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        a[n] = g->addrs[l];
        lane[n++] = (uint8_t)l;
    }
    prof_mem_request rq = {.lanes = n,
                           .addrs = a,
                           .lane_index = lane,
                           .access_bytes = g->bytes,
                           .space = g->space,
                           .lane_mask = g->executed};
    if (features) {
        rq.feature_lanes = g->cols;
        rq.feature_uniform = g->uniform;
        rq.warp_tag = g->warp + 1;
    }
    assert_int_equal(prof_mem_add(pm, &rq), 1);
}

/* The request as the collector relays it: compacted by
 * prof_mem_request_gather, with features when `features`. */
static void push(prof_relay *r, uint32_t slot, const gen *g, int features)
{
    uint64_t gathered[32];
    uint8_t numbers[32];
    prof_mem_request rq = {.access_bytes = g->bytes, .space = g->space};
    prof_mem_request_gather(&rq, g->executed, g->addrs, gathered, numbers);
    if (features) {
        rq.feature_lanes = g->cols;
        rq.feature_uniform = g->uniform;
        rq.warp_tag = g->warp + 1;
    }
    prof_relay_push(r, slot, &rq);
}

/* Everything, the affine model too. */
static void same_everything(const prof_mem_result *x, const prof_mem_result *y)
{
    same_result(x, y);
    assert_int_equal(x->affine, y->affine);
    assert_int_equal(x->ncoef, y->ncoef);
    for (uint32_t k = 0; k < x->ncoef; k++)
        assert_int_equal(x->coef[k], y->coef[k]);
}

/* Pushes `n` requests spread over the slots, each also counted in this
 * thread by a twin, and compares the results after a drain. */
static void relay_against_inline(uint32_t n)
{
    int64_t tids[NWARPS * 96];
    fill_tids(tids);
    prof_relay *r = prof_relay_new(NSLOTS, tids);
    assert_non_null(r);
    relay_slot *slots = prof_relay_slots(r);
    prof_mem *relayed[NSLOTS], *twin[NSLOTS];
    for (uint32_t s = 0; s < NSLOTS; s++) {
        relayed[s] = mk();
        twin[s] = mk();
        prof_relay_attach(r, s, relayed[s], NFEAT);
    }
    /* all the pushes first, so that the counting falls behind and the
     * ring fills; then the same requests again for the twins */
    const uint64_t seed = rng;
    gen g;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t s = (uint32_t)(rnd() % NSLOTS);
        make(&g, s, tids, i);
        /* the collector's decision, from the flag the counting thread keeps */
        push(r, s, &g, atomic_load(&slots[s].features));
    }
    rng = seed;
    for (uint32_t i = 0; i < n; i++) {
        const uint32_t s = (uint32_t)(rnd() % NSLOTS);
        make(&g, s, tids, i);
        /* the twin gets features whenever it still wants them: a relayed
         * model that no longer needs them ignores the ones it is sent */
        count_inline(twin[s], &g, prof_mem_needs_features(twin[s]));
    }
    assert_int_equal(prof_relay_drain(r), 1);
    for (uint32_t s = 0; s < NSLOTS; s++) {
        same_everything(prof_mem_finish(relayed[s]), prof_mem_finish(twin[s]));
        assert_int_equal(atomic_load(&slots[s].features), prof_mem_needs_features(relayed[s]));
    }
    if (n > 1000) { /* the scattered instruction's model is refused, the first one's kept */
        assert_int_equal(atomic_load(&slots[3].features), 0);
        assert_int_equal(prof_mem_finish(relayed[0])->affine, 1);
    }
    prof_relay_free(r);
    for (uint32_t s = 0; s < NSLOTS; s++) {
        prof_mem_free(relayed[s]);
        prof_mem_free(twin[s]);
    }
}

static void test_few_requests(void **state)
{
    (void)state;
    relay_against_inline(7);
}

/* Hundreds of chunks: the ring wraps many times and fills whenever the
 * counting falls behind. */
static void test_many_requests(void **state)
{
    (void)state;
    relay_against_inline(300000);
}

static void test_drain_twice_and_empty(void **state)
{
    (void)state;
    int64_t tids[NWARPS * 96];
    fill_tids(tids);
    prof_relay *r = prof_relay_new(1, tids);
    assert_non_null(r);
    assert_int_equal(prof_relay_drain(r), 1); /* nothing queued */
    prof_mem *pm = mk();
    prof_relay_attach(r, 0, pm, NFEAT);
    gen g;
    make(&g, 2, tids, 0);
    push(r, 0, &g, 0);
    assert_int_equal(prof_relay_drain(r), 1);
    push(r, 0, &g, 0);
    assert_int_equal(prof_relay_drain(r), 1);
    assert_int_equal(prof_mem_finish(pm)->requests, 2);
    prof_relay_free(r);
    prof_mem_free(pm);
}

/* A launch that faults is freed without a drain: the thread stops, what is
 * queued is dropped, nothing leaks. */
static void test_free_with_requests_queued(void **state)
{
    (void)state;
    int64_t tids[NWARPS * 96];
    fill_tids(tids);
    prof_relay *r = prof_relay_new(NSLOTS, tids);
    assert_non_null(r);
    prof_mem *pm[NSLOTS];
    for (uint32_t s = 0; s < NSLOTS; s++) {
        pm[s] = mk();
        prof_relay_attach(r, s, pm[s], NFEAT);
    }
    gen g;
    for (uint32_t i = 0; i < 20000; i++) {
        const uint32_t s = (uint32_t)(rnd() % NSLOTS);
        make(&g, s, tids, i);
        push(r, s, &g, 1);
    }
    prof_relay_free(r);
    for (uint32_t s = 0; s < NSLOTS; s++)
        prof_mem_free(pm[s]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_few_requests),
        cmocka_unit_test(test_many_requests),
        cmocka_unit_test(test_drain_twice_and_empty),
        cmocka_unit_test(test_free_with_requests_queued),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
