/* Known-answer tests of the cycle simulator (docs/sim.md, "Checks"): each
 * kernel in tests/sim/ exercises one mechanism on a fully specified machine
 * (sim_harness.h) and the result is compared with what the configuration
 * says it must be. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sim_harness.h"

static uint64_t cycles_of(const sim_run *r)
{
    return mb_sim_get_stats(r->sim)->cycles;
}

/* Every scheduler is charged exactly one category per cycle. */
static void check_cpi_stack(const sim_run *r, uint64_t schedulers)
{
    const mb_sim_stats *st = mb_sim_get_stats(r->sim);
    uint64_t sum = 0;
    for (int k = 0; k < MB_SIM_STALL_COUNT; k++)
        sum += st->stall[k];
    assert_int_equal(sum, st->cycles * schedulers);
}

/* Instructions outside the measured chain (parameter load, moves, the store)
 * cost at most this many cycles in these kernels. */
enum { OVERHEAD = 60 };

static void test_dependent_chain(void **state)
{
    (void)state;
    /* 64 dependent fp adds: about 64 x latency, for two different latencies */
    unsigned lats[] = {10, 25};
    for (unsigned i = 0; i < 2; i++) {
        char extra[200];
        snprintf(extra, sizeof(extra), "-ptx_opcode_latency_fp %u,10,10,10,40\n", lats[i]);
        sim_run r;
        assert_true(sim_run_open(&r, "dep_chain.ptx", extra));
        uint64_t out = sim_run_alloc(&r, 128, NULL);
        assert_int_equal(sim_run_launch(&r, "dep_chain", 1, 32, &out, 1), MB_OK);
        uint64_t c = cycles_of(&r);
        print_message("dep_chain latency %u: %llu cycles\n", lats[i], (unsigned long long)c);
        assert_true(c >= 64ull * lats[i]);
        assert_true(c <= 64ull * lats[i] + OVERHEAD);
        check_cpi_stack(&r, 1);
        /* the chain's waits are compute dependences */
        assert_true(mb_sim_get_stats(r.sim)->stall[MB_SIM_STALL_COMPUTE] >= 63ull * (lats[i] - 1));
        /* per unit class: the 64 adds on the SPs; ld.param and st on the memory
         * unit; the moves (a move is not arithmetic), mul.wide, add.s64 and ret
         * in the integer class */
        const mb_sim_stats *st = mb_sim_get_stats(r.sim);
        assert_int_equal(st->unit_warp_insts[MB_SIM_UNIT_SP], 64);
        assert_int_equal(st->unit_warp_insts[MB_SIM_UNIT_MEM], 2);
        assert_int_equal(st->unit_warp_insts[MB_SIM_UNIT_INT], 6);
        assert_int_equal(st->unit_warp_insts[MB_SIM_UNIT_SFU] + st->unit_warp_insts[MB_SIM_UNIT_DP], 0);
        assert_int_equal(st->warp_insts, 72);
        double share;
        mb_error err;
        assert_int_equal(mb_sim_stat_value(r.sim, "sp_warp_insn_share", &share, &err), MB_OK);
        assert_true(share == 64.0 / 72.0);
        sim_run_close(&r);
    }
}

static void test_independent_issue_limited(void **state)
{
    (void)state;
    /* one scheduler issues one warp instruction per cycle; four issue four */
    const char *cfgs[] = {"", "-gpgpu_num_sched_per_core 4\n-gpgpu_num_sp_units 4\n"};
    double want[] = {1.0, 4.0};
    for (unsigned i = 0; i < 2; i++) {
        sim_run r;
        assert_true(sim_run_open(&r, "indep.ptx", cfgs[i]));
        uint64_t out = sim_run_alloc(&r, 64 * 256 * 4, NULL);
        assert_int_equal(sim_run_launch(&r, "indep", 64, 256, &out, 1), MB_OK);
        const mb_sim_stats *st = mb_sim_get_stats(r.sim);
        double ipc = (double)st->warp_insts / (double)st->cycles;
        print_message("indep, %u scheduler(s): warp IPC %.3f\n", i ? 4u : 1u, ipc);
        assert_true(ipc >= 0.9 * want[i]);
        assert_true(ipc <= want[i] + 1e-9);
        assert_true(st->stall[MB_SIM_STALL_ISSUED] == st->warp_insts);
        check_cpi_stack(&r, i ? 4 : 1);
        sim_run_close(&r);
    }
}

/* Builds a ring of `lines` elements `stride` bytes apart and chases it 256 steps. */
static uint64_t chase_cycles(uint32_t lines, uint32_t stride, int warm, double *l1_rate, double *l2_rate,
                             mb_sim_stall expect)
{
    sim_run r;
    assert_true(sim_run_open(&r, "chase.ptx", NULL));
    uint8_t *host = NULL;
    uint64_t ring = sim_run_alloc(&r, (uint64_t)lines * stride, (void **)&host);
    assert_non_null(host);
    for (uint32_t i = 0; i < lines; i++) {
        uint64_t next = ring + (uint64_t)((i + 1) % lines) * stride;
        memcpy(host + (size_t)i * stride, &next, 8);
    }
    uint64_t out = sim_run_alloc(&r, 64, NULL);
    uint64_t args[2] = {ring, out};
    assert_int_equal(sim_run_launch(&r, "chase", 1, 1, args, 2), MB_OK);
    mb_sim_stats before = *mb_sim_get_stats(r.sim);
    if (warm)
        assert_int_equal(sim_run_launch(&r, "chase", 1, 1, args, 2), MB_OK);
    const mb_sim_stats *after = mb_sim_get_stats(r.sim);
    uint64_t c = warm ? after->cycles - before.cycles : after->cycles;
    uint64_t l1a = after->l1_accesses - (warm ? before.l1_accesses : 0);
    uint64_t l1h = after->l1_hits - (warm ? before.l1_hits : 0);
    uint64_t l2a = after->l2_accesses - (warm ? before.l2_accesses : 0);
    uint64_t l2h = after->l2_hits - (warm ? before.l2_hits : 0);
    /* the CPI stack charges the waits to the level that served the loads */
    uint64_t waited = after->stall[expect] - (warm ? before.stall[expect] : 0);
    if ((double)waited < 0.9 * (double)c) {
        for (int k = 0; k < MB_SIM_STALL_COUNT; k++)
            print_message("%s=%llu ", mb_sim_stall_name((mb_sim_stall)k), (unsigned long long)(after->stall[k] - (warm ? before.stall[k] : 0)));
        print_message(" cycles %llu\n", (unsigned long long)c);
    }
    assert_true((double)waited >= 0.9 * (double)c);
    *l1_rate = l1a ? (double)l1h / (double)l1a : 0;
    *l2_rate = l2a ? (double)l2h / (double)l2a : 0;
    sim_run_close(&r);
    return c;
}

static void test_pointer_chase_levels(void **state)
{
    (void)state;
    double l1r, l2r;
    /* 16 lines (2 KB) fit the 8 KB L1: a step is the L1 hit latency, 20 */
    uint64_t c = chase_cycles(16, 128, 1, &l1r, &l2r, MB_SIM_STALL_L1);
    double step = (double)c / 256;
    print_message("chase in L1: %.1f cycles/step, L1 hit rate %.3f\n", step, l1r);
    assert_true(l1r > 0.99);
    assert_true(step >= 20.0 && step <= 20.0 + (double)OVERHEAD / 256 + 0.5);
    /* 256 lines (32 KB) miss the L1 and fit the 128 KB L2: request 1 flit + 10 cycles
     * there, 100 in the L2, a 4-flit line + 10 cycles back: 125 */
    c = chase_cycles(256, 128, 1, &l1r, &l2r, MB_SIM_STALL_L2);
    step = (double)c / 256;
    print_message("chase in L2: %.1f cycles/step, L1 %.3f L2 %.3f\n", step, l1r, l2r);
    assert_true(l1r < 0.01);
    assert_true(l2r > 0.99);
    assert_true(step >= 125.0 && step <= 125.0 * 1.1);
    /* cold, 4 KB apart: every step misses both caches and opens a new DRAM row:
     * 11 there, 1 L2 tag check, RCD 12 + CL 10 (+ RP 10 when a row is open), 8 data
     * cycles, 200 fixed, 1 + 14 back: 257 to 267 */
    c = chase_cycles(256, 4096, 0, &l1r, &l2r, MB_SIM_STALL_DRAM);
    step = (double)c / 256;
    print_message("chase in DRAM: %.1f cycles/step, L2 %.3f\n", step, l2r);
    assert_true(l2r < 0.01);
    assert_true(step >= 257.0 && step <= 267.0 * 1.05);
}

static void test_stream_reaches_dram_bandwidth(void **state)
{
    (void)state;
    /* 4 SMs copying 2 MB through two channels of 4 x 2 x 2 = 16 bytes per cycle each */
    sim_run r;
    assert_true(sim_run_open(&r, "copy.ptx",
                             "-gpgpu_n_clusters 4\n-gpgpu_cache:dl1 N:16:128:4,L:T:m:N,A:64:8,16\n"));
    uint32_t n = 1u << 17;
    uint64_t src = sim_run_alloc(&r, (uint64_t)n * 16, NULL);
    uint64_t dst = sim_run_alloc(&r, (uint64_t)n * 16, NULL);
    uint64_t args[3] = {dst, src, n};
    assert_int_equal(sim_run_launch(&r, "copy", 64, 256, args, 3), MB_OK);
    const mb_sim_stats *st = mb_sim_get_stats(r.sim);
    double peak = 2 * 16.0;
    double got = (double)st->dram_bytes / (double)st->cycles;
    print_message("copy: %.2f bytes/cycle of %.0f peak, row locality %.3f\n", got, peak,
                  (double)st->dram_row_hits / (double)(st->dram_row_hits + st->dram_row_misses));
    assert_true(got >= 0.9 * peak);
    assert_true(got <= peak * 1.0001);
    sim_run_close(&r);
}

static void test_shared_stride_replays(void **state)
{
    (void)state;
    for (uint32_t k = 1; k <= 32; k *= 2) {
        sim_run r;
        assert_true(sim_run_open(&r, "shared_stride.ptx", NULL));
        uint64_t out = sim_run_alloc(&r, 128, NULL);
        uint64_t args[2] = {out, k};
        assert_int_equal(sim_run_launch(&r, "shared_stride", 1, 32, args, 2), MB_OK);
        const mb_sim_stats *st = mb_sim_get_stats(r.sim);
        assert_int_equal(st->shared_insts, 2);
        assert_int_equal(st->shared_cycles, 2 * k);
        assert_int_equal(st->bank_conflicts, 2 * (k - 1));
        sim_run_close(&r);
    }
    /* 16 banks accessed in two half-warps: stride 2 conflicts 2-way in each half */
    sim_run r;
    assert_true(sim_run_open(&r, "shared_stride.ptx", "-gpgpu_shmem_num_banks 16\n-gpgpu_shmem_warp_parts 2\n"));
    uint64_t out = sim_run_alloc(&r, 128, NULL);
    uint64_t args[2] = {out, 2};
    assert_int_equal(sim_run_launch(&r, "shared_stride", 1, 32, args, 2), MB_OK);
    assert_int_equal(mb_sim_get_stats(r.sim)->shared_cycles, 2 * 2 * 2);
    sim_run_close(&r);
}

static uint64_t run_on_sms(const char *ptx, const char *kernel, unsigned sms, int copy)
{
    char extra[300];
    snprintf(extra, sizeof(extra), "-gpgpu_n_clusters %u\n-gpgpu_n_mem 1\n-mb_dram_latency 50\n", sms);
    sim_run r;
    assert_true(sim_run_open(&r, ptx, extra));
    mb_status st;
    if (copy) {
        uint32_t n = 1u << 16;
        uint64_t src = sim_run_alloc(&r, (uint64_t)n * 16, NULL);
        uint64_t dst = sim_run_alloc(&r, (uint64_t)n * 16, NULL);
        uint64_t args[3] = {dst, src, n};
        st = sim_run_launch(&r, kernel, 64, 256, args, 3);
    } else {
        uint64_t out = sim_run_alloc(&r, 128 * 256 * 4, NULL);
        st = sim_run_launch(&r, kernel, 128, 256, &out, 1);
    }
    assert_int_equal(st, MB_OK);
    uint64_t c = cycles_of(&r);
    sim_run_close(&r);
    return c;
}

static void test_sm_scaling(void **state)
{
    (void)state;
    uint64_t c1 = run_on_sms("indep.ptx", "indep", 1, 0);
    uint64_t c4 = run_on_sms("indep.ptx", "indep", 4, 0);
    print_message("compute-bound: 1 SM %llu cycles, 4 SMs %llu\n", (unsigned long long)c1,
                  (unsigned long long)c4);
    assert_true((double)c1 / (double)c4 >= 3.5);
    uint64_t b4 = run_on_sms("copy.ptx", "copy", 4, 1);
    uint64_t b8 = run_on_sms("copy.ptx", "copy", 8, 1);
    print_message("bandwidth-bound (one channel): 4 SMs %llu cycles, 8 SMs %llu\n",
                  (unsigned long long)b4, (unsigned long long)b8);
    assert_true((double)b4 / (double)b8 < 1.15);
}

static void test_gto_beats_lrr_on_cache_sensitive_kernel(void **state)
{
    (void)state;
    const char *policy[] = {"-gpgpu_scheduler lrr\n", "-gpgpu_scheduler gto\n"};
    uint64_t cycles[2];
    double hit[2];
    for (int i = 0; i < 2; i++) {
        sim_run r;
        assert_true(sim_run_open(&r, "warp_private.ptx", policy[i]));
        uint64_t out = sim_run_alloc(&r, 256 * 4, NULL);
        uint64_t data = sim_run_alloc(&r, 8 * 2048, NULL);
        uint64_t args[3] = {out, data, 8};
        assert_int_equal(sim_run_launch(&r, "warp_private", 1, 256, args, 3), MB_OK);
        const mb_sim_stats *st = mb_sim_get_stats(r.sim);
        cycles[i] = st->cycles;
        hit[i] = (double)st->l1_hits / (double)st->l1_accesses;
        sim_run_close(&r);
    }
    print_message("warp_private: LRR %llu cycles (L1 hits %.3f), GTO %llu (%.3f)\n",
                  (unsigned long long)cycles[0], hit[0], (unsigned long long)cycles[1], hit[1]);
    assert_true(hit[1] > hit[0]);
    assert_true(cycles[1] < cycles[0]);
}

static void test_two_level_same_work(void **state)
{
    (void)state;
    /* scheduling changes timing, never the work: same instructions under every policy */
    const char *policy[] = {"-gpgpu_scheduler lrr\n", "-gpgpu_scheduler two_level_active:2\n"};
    uint64_t insts[2], cycles[2];
    for (int i = 0; i < 2; i++) {
        sim_run r;
        assert_true(sim_run_open(&r, "warp_private.ptx", policy[i]));
        uint64_t out = sim_run_alloc(&r, 256 * 4, NULL);
        uint64_t data = sim_run_alloc(&r, 8 * 2048, NULL);
        uint64_t args[3] = {out, data, 8};
        assert_int_equal(sim_run_launch(&r, "warp_private", 1, 256, args, 3), MB_OK);
        insts[i] = mb_sim_get_stats(r.sim)->thread_insts;
        cycles[i] = mb_sim_get_stats(r.sim)->cycles;
        sim_run_close(&r);
    }
    print_message("warp_private: LRR %llu cycles, two-level(2) %llu\n", (unsigned long long)cycles[0],
                  (unsigned long long)cycles[1]);
    assert_int_equal(insts[0], insts[1]);
    assert_true(cycles[1] != cycles[0]);
}

static void test_loads_past_a_pending_set_return_their_mshrs(void **state)
{
    (void)state;
    /* One L1 line and two MSHRs: while the line is being filled, every other
     * warp's load finds its only way waiting and is fetched without
     * allocating; each still takes an MSHR until it is answered. When those
     * were not given back, the third such load left the SM waiting for an
     * MSHR that nothing would free, and the launch stalled. */
    sim_run r;
    assert_true(sim_run_open(&r, "copy.ptx", "-gpgpu_cache:dl1 N:1:128:1,L:T:m:N,A:2:8,4\n"));
    uint32_t n = 1u << 12;
    uint32_t *in = NULL, *out = NULL;
    uint64_t src = sim_run_alloc(&r, (uint64_t)n * 16, (void **)&in);
    uint64_t dst = sim_run_alloc(&r, (uint64_t)n * 16, (void **)&out);
    for (uint32_t i = 0; i < n * 4; i++)
        in[i] = i * 2654435761u;
    uint64_t args[3] = {dst, src, n};
    assert_int_equal(sim_run_launch(&r, "copy", 4, 256, args, 3), MB_OK);
    assert_memory_equal(out, in, (size_t)n * 16);
    const mb_sim_stats *st = mb_sim_get_stats(r.sim);
    assert_true(st->l1_misses >= (uint64_t)n * 16 / 128); /* nothing fits: every line misses */
    sim_run_close(&r);
}

static void test_deterministic(void **state)
{
    (void)state;
    char *text[2];
    for (int i = 0; i < 2; i++) {
        sim_run r;
        assert_true(sim_run_open(&r, "copy.ptx", "-gpgpu_n_clusters 3\n-gpgpu_scheduler gto\n"));
        uint32_t n = 1u << 14;
        uint64_t src = sim_run_alloc(&r, (uint64_t)n * 16, NULL);
        uint64_t dst = sim_run_alloc(&r, (uint64_t)n * 16, NULL);
        uint64_t args[3] = {dst, src, n};
        assert_int_equal(sim_run_launch(&r, "copy", 16, 128, args, 3), MB_OK);
        assert_int_equal(sim_run_launch(&r, "copy", 7, 96, args, 3), MB_OK);
        mb_buf b = {0};
        assert_int_equal(mb_sim_stats_json(r.sim, &b, &r.err), MB_OK);
        text[i] = b.data;
        sim_run_close(&r);
    }
    assert_string_equal(text[0], text[1]);
    free(text[0]);
    free(text[1]);
}

static void test_fault_reported(void **state)
{
    (void)state;
    sim_run r;
    assert_true(sim_run_open(&r, "dep_chain.ptx", NULL));
    uint64_t out = sim_run_alloc(&r, 64, NULL); /* 16 floats for 32 threads */
    assert_int_equal(sim_run_launch(&r, "dep_chain", 1, 32, &out, 1), MB_ERR_FAULT);
    assert_non_null(strstr(r.err.file, "dep_chain.ptx"));
    assert_true(r.err.line > 70);
    assert_non_null(strstr(r.err.msg, "thread (16,0,0)"));
    /* the simulator stays usable after a fault */
    uint64_t ok = sim_run_alloc(&r, 128, NULL);
    assert_int_equal(sim_run_launch(&r, "dep_chain", 1, 32, &ok, 1), MB_OK);
    sim_run_close(&r);
}

static void test_cta_too_large(void **state)
{
    (void)state;
    sim_run r;
    assert_true(sim_run_open(&r, "indep.ptx", "-gpgpu_shader_core_pipeline 128:32\n"));
    uint64_t out = sim_run_alloc(&r, 256 * 4, NULL);
    assert_int_equal(sim_run_launch(&r, "indep", 1, 256, &out, 1), MB_ERR_INVALID);
    assert_non_null(strstr(r.err.msg, "does not fit one SM"));
    sim_run_close(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_chain),
        cmocka_unit_test(test_independent_issue_limited),
        cmocka_unit_test(test_pointer_chase_levels),
        cmocka_unit_test(test_stream_reaches_dram_bandwidth),
        cmocka_unit_test(test_shared_stride_replays),
        cmocka_unit_test(test_sm_scaling),
        cmocka_unit_test(test_gto_beats_lrr_on_cache_sensitive_kernel),
        cmocka_unit_test(test_two_level_same_work),
        cmocka_unit_test(test_loads_past_a_pending_set_return_their_mshrs),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_fault_reported),
        cmocka_unit_test(test_cta_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
