/* The executor's barrier and warp-collective family (exec_warp.c): bar /
 * barrier (.sync, .arrive, .red, bar.warp.sync), vote, shfl, match,
 * activemask, redux and elect. Kernels written in PTX compute on a buffer and
 * the results are checked against values worked out by hand or on the host:
 * full warps, partial warps, divergent lanes, guards, several warps meeting at
 * barriers, the faults (barrier divergence, deadlock, membermask misuse) and a
 * randomized differential test against a host model of the same semantics. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "exec_harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ harness */

#define HDR ".version 9.0\n.target sm_90\n.address_size 64\n"

/* Every kernel is k(out, in): %r1 = %tid.x, %r2 = %laneid, %r5 = in[tid],
 * %rd2 = &out[tid * SLOTS]; results go to [%rd2 + 4 * slot]. */
#define PRO                                                                                        \
    ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"                                      \
    ".reg .b32 %r<64>;\n.reg .b64 %rd<16>;\n.reg .pred %p<16>;\n"                                  \
    "ld.param.u64 %rd1, [out];\nld.param.u64 %rd4, [in];\n"                                        \
    "mov.u32 %r1, %tid.x;\nmov.u32 %r2, %laneid;\n"                                                \
    "mul.wide.u32 %rd2, %r1, 64;\nadd.s64 %rd2, %rd1, %rd2;\n"                                     \
    "mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd3, %rd4, %rd3;\nld.global.u32 %r5, [%rd3];\n"
#define EPI "ret;\n}\n"

enum { SLOTS = 16, MAXT = 1024 };
#define SENTINEL 0xDEADBEEFu

static uint32_t g_in[MAXT];
static uint32_t g_out[MAXT * SLOTS];
static char g_msg[2048];
static mb_exec_stats g_stats;

/* Runs `body` (between PRO and EPI) on one CTA of `threads` threads with
 * g_in as input; g_out is filled with SENTINEL first. */
static mb_status run_body(const char *body, uint32_t threads)
{
    size_t n = strlen(HDR PRO) + strlen(body) + strlen(EPI) + 1;
    char *ptx = malloc(n);
    snprintf(ptx, n, "%s%s%s", HDR PRO, body, EPI);
    for (size_t i = 0; i < (size_t)MAXT * SLOTS; i++)
        g_out[i] = SENTINEL;
    harness_opts o = harness_one_cta(threads);
    harness_arg args[2] = {HBUF(g_out, (size_t)threads * SLOTS * 4),
                           HBUF(g_in, (size_t)threads * 4)};
    mb_status st = harness_run(ptx, "k", &o, args, 2);
    snprintf(g_msg, sizeof(g_msg), "%s", o.message);
    g_stats = o.stats;
    free(ptx);
    return st;
}

#define RUN_OK(body, threads)                                                                      \
    do {                                                                                           \
        if (run_body((body), (threads)) != MB_OK)                                                  \
            fail_msg("launch failed: %s", g_msg);                                                  \
    } while (0)

/* Expects a launch failure with `status` whose message contains `phrase`. */
static void expect_fail(const char *body, uint32_t threads, mb_status status, const char *phrase)
{
    mb_status st = run_body(body, threads);
    if (st != status)
        fail_msg("status %s, expected %s (%s)", mb_status_name(st), mb_status_name(status), g_msg);
    if (!strstr(g_msg, phrase))
        fail_msg("message '%s' lacks '%s'", g_msg, phrase);
}

static uint32_t out_at(uint32_t t, unsigned slot)
{
    return g_out[t * SLOTS + slot];
}

#define CHECK_SLOT(t, slot, want)                                                                  \
    do {                                                                                           \
        uint32_t got_ = out_at((t), (slot)), want_ = (uint32_t)(want);                             \
        if (got_ != want_)                                                                         \
            fail_msg("thread %u slot %u: got 0x%08x, expected 0x%08x", (unsigned)(t),             \
                     (unsigned)(slot), got_, want_);                                               \
    } while (0)

static uint32_t lanes_below(uint32_t n)
{
    return n >= 32 ? 0xFFFFFFFFu : (1u << n) - 1;
}

/* Live lanes of warp `w` of a CTA of `threads` threads. */
static uint32_t live_of(uint32_t threads, uint32_t w)
{
    return lanes_below(threads - w * 32);
}

/* ================================================================ barriers */

/* Each thread writes shared[t] and reads shared[n-1-t] written by another
 * warp (the partial last warp included). Without the barrier the first
 * warp would read zeros. */
static void test_bar_shared_exchange(void **state)
{
    (void)state;
    static const char body[] = ".shared .align 4 .b32 s[128];\n"
                               "mov.u32 %r10, s;\n"
                               "shl.b32 %r11, %r1, 2;\nadd.u32 %r11, %r10, %r11;\n"
                               "mad.lo.u32 %r12, %r1, 3, 1;\n"
                               "st.shared.u32 [%r11], %r12;\n"
                               "bar.sync 0;\n"
                               "mov.u32 %r13, %ntid.x;\nsub.u32 %r13, %r13, 1;\n"
                               "sub.u32 %r13, %r13, %r1;\nshl.b32 %r13, %r13, 2;\n"
                               "add.u32 %r13, %r10, %r13;\n"
                               "ld.shared.u32 %r14, [%r13];\n"
                               "st.global.u32 [%rd2], %r14;\n";
    static const uint32_t sizes[] = {128, 100, 33, 32, 7};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint32_t n = sizes[k];
        RUN_OK(body, n);
        for (uint32_t t = 0; t < n; t++)
            CHECK_SLOT(t, 0, (n - 1 - t) * 3 + 1);
    }
    /* barrier.sync (the non-.aligned spelling) and bar.cta.sync behave the same */
    const char *forms[] = {"barrier.sync 0;", "barrier.sync.aligned 0;", "bar.cta.sync 0;",
                           "barrier.cta.sync.aligned 0, 128;"};
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        char b[2048];
        snprintf(b, sizeof(b), "%s", body);
        char *at = strstr(b, "bar.sync 0;");
        char rest[2048];
        snprintf(rest, sizeof(rest), "%s", at + strlen("bar.sync 0;"));
        snprintf(at, sizeof(b) - (size_t)(at - b), "%s%s", forms[f], rest);
        RUN_OK(b, 128);
        for (uint32_t t = 0; t < 128; t++)
            CHECK_SLOT(t, 0, (127 - t) * 3 + 1);
    }
}

/* A barrier inside a loop: five rounds of "publish, sync, read the right
 * neighbour, sync" across 3 warps (80 threads). */
static void test_bar_loop(void **state)
{
    (void)state;
    static const char body[] = ".shared .align 4 .b32 s[96];\n"
                               "mov.u32 %r10, s;\n"
                               "shl.b32 %r11, %r1, 2;\nadd.u32 %r11, %r10, %r11;\n"
                               "add.u32 %r12, %r1, 1;\n"        /* right neighbour */
                               "setp.eq.u32 %p1, %r12, 80;\n"
                               "selp.u32 %r12, 0, %r12, %p1;\n" /* wrap to 0 */
                               "shl.b32 %r12, %r12, 2;\nadd.u32 %r12, %r10, %r12;\n"
                               "mov.u32 %r13, %r1;\n" /* value */
                               "mov.u32 %r14, 0;\n"   /* round */
                               "LOOP:\n"
                               "st.shared.u32 [%r11], %r13;\n"
                               "bar.sync 0;\n"
                               "ld.shared.u32 %r15, [%r12];\n"
                               "mul.lo.u32 %r13, %r13, 3;\n"
                               "add.u32 %r13, %r13, %r15;\n"
                               "bar.sync 0;\n"
                               "add.u32 %r14, %r14, 1;\n"
                               "setp.lt.u32 %p2, %r14, 5;\n"
                               "@%p2 bra LOOP;\n"
                               "st.global.u32 [%rd2], %r13;\n";
    RUN_OK(body, 80);
    uint32_t v[80], nv[80];
    for (uint32_t t = 0; t < 80; t++)
        v[t] = t;
    for (int r = 0; r < 5; r++) {
        for (uint32_t t = 0; t < 80; t++)
            nv[t] = v[t] * 3 + v[(t + 1) % 80];
        memcpy(v, nv, sizeof(v));
    }
    for (uint32_t t = 0; t < 80; t++)
        CHECK_SLOT(t, 0, v[t]);
}

/* Named barriers with thread counts: warp 0 consumes what warp 1 produces
 * (bar.sync 1,64 / bar.arrive 1,64), then warp 1 waits for warp 0's answer
 * (bar.sync 2,64 / bar.arrive 2,64); warp 2 never takes part and exits. The
 * consumer arrives first, so it really has to wait. */
static void test_bar_producer_consumer(void **state)
{
    (void)state;
    static const char body[] =
        ".shared .align 4 .b32 buf[32];\n.shared .align 4 .b32 ans[32];\n"
        "shl.b32 %r10, %r2, 2;\n"
        "mov.u32 %r11, buf;\nadd.u32 %r11, %r11, %r10;\n"
        "mov.u32 %r12, ans;\nadd.u32 %r12, %r12, %r10;\n"
        "shr.u32 %r3, %r1, 5;\n" /* warp */
        "setp.eq.u32 %p1, %r3, 1;\n@%p1 bra PRODUCER;\n"
        "setp.eq.u32 %p1, %r3, 2;\n@%p1 bra OTHER;\n"
        /* consumer: warp 0 */
        "bar.sync 1, 64;\n"
        "ld.shared.u32 %r13, [%r11];\n"
        "add.u32 %r14, %r13, 1000;\n"
        "st.shared.u32 [%r12], %r14;\n"
        "bar.arrive 2, 64;\n"
        "st.global.u32 [%rd2], %r13;\n"
        "bra DONE;\n"
        "PRODUCER:\n"
        "mul.lo.u32 %r13, %r2, 7;\n"
        "st.shared.u32 [%r11], %r13;\n"
        "barrier.arrive 1, 64;\n"
        "barrier.sync 2, 64;\n"
        "ld.shared.u32 %r14, [%r12];\n"
        "st.global.u32 [%rd2], %r14;\n"
        "bra DONE;\n"
        "OTHER:\n"
        "mov.u32 %r63, 77;\nst.global.u32 [%rd2], %r63;\n"
        "DONE:\n";
    RUN_OK(body, 96);
    for (uint32_t l = 0; l < 32; l++) {
        CHECK_SLOT(l, 0, l * 7);
        CHECK_SLOT(32 + l, 0, l * 7 + 1000);
        CHECK_SLOT(64 + l, 0, 77);
    }
    /* The same with register barrier ids and counts. */
    static const char regs[] =
        ".shared .align 4 .b32 buf[32];\n"
        "shl.b32 %r10, %r2, 2;\nmov.u32 %r11, buf;\nadd.u32 %r11, %r11, %r10;\n"
        "mov.u32 %r20, 3;\nmov.u32 %r21, 64;\n"
        "shr.u32 %r3, %r1, 5;\nsetp.eq.u32 %p1, %r3, 1;\n@%p1 bra PRODUCER;\n"
        "bar.sync %r20, %r21;\nld.shared.u32 %r13, [%r11];\nst.global.u32 [%rd2], %r13;\n"
        "bra DONE;\n"
        "PRODUCER:\nadd.u32 %r13, %r2, 500;\nst.shared.u32 [%r11], %r13;\n"
        "bar.arrive %r20, %r21;\nmov.u32 %r63, 1;\nst.global.u32 [%rd2], %r63;\n"
        "DONE:\n";
    RUN_OK(regs, 64);
    for (uint32_t l = 0; l < 32; l++) {
        CHECK_SLOT(l, 0, 500 + l);
        CHECK_SLOT(32 + l, 0, 1);
    }
    /* bar.arrive does not wait: warp 0 arrives at 1 and waits at 2, warp 1
     * waits at 2 and then at 1 (a waiting arrive would deadlock here). */
    static const char nowait[] = "shr.u32 %r3, %r1, 5;\nsetp.eq.u32 %p1, %r3, 1;\n@%p1 bra W1;\n"
                                 "bar.arrive 1, 64;\nbar.sync 2, 64;\nbra DONE;\n"
                                 "W1:\nbar.sync 2, 64;\nbar.sync 1, 64;\n"
                                 "DONE:\nmov.u32 %r63, 9;\nst.global.u32 [%rd2], %r63;\n";
    RUN_OK(nowait, 64);
    for (uint32_t t = 0; t < 64; t++)
        CHECK_SLOT(t, 0, 9);
}

/* bar.sync without a count waits only for warps that have not finished:
 * warp 1 exits at once and warp 0 still gets through. */
static void test_bar_after_exit(void **state)
{
    (void)state;
    static const char body[] = "shr.u32 %r3, %r1, 5;\nsetp.eq.u32 %p1, %r3, 1;\n@%p1 exit;\n"
                               "bar.sync 0;\nbar.sync 0;\n"
                               "mov.u32 %r63, 5;\nst.global.u32 [%rd2], %r63;\n";
    RUN_OK(body, 64);
    for (uint32_t t = 0; t < 64; t++)
        CHECK_SLOT(t, 0, t < 32 ? 5 : SENTINEL);
}

/* bar.red.popc / .and / .or over a CTA of 80 threads (partial last warp),
 * with negated predicates, a register barrier id and a thread count. */
static void test_bar_red(void **state)
{
    (void)state;
    static const char body[] =
        "and.b32 %r10, %r1, 5;\nsetp.eq.u32 %p1, %r10, 1;\n" /* (t & 5) == 1 */
        "bar.red.popc.u32 %r11, 0, %p1;\n"
        "barrier.red.popc.aligned.u32 %r12, 1, 96, !%p1;\n"
        "setp.lt.u32 %p2, %r1, 80;\n" /* all true */
        "bar.red.and.pred %p3, 2, %p2;\nselp.u32 %r13, 1, 0, %p3;\n"
        "setp.ne.u32 %p4, %r1, 77;\n" /* false in thread 77 only */
        "bar.red.and.pred %p3, 2, %p4;\nselp.u32 %r14, 1, 0, %p3;\n"
        "bar.red.or.pred %p3, 3, !%p4;\nselp.u32 %r15, 1, 0, %p3;\n"
        "mov.u32 %r20, 4;\n"
        "barrier.cta.red.or.pred %p3, %r20, !%p2;\nselp.u32 %r16, 1, 0, %p3;\n"
        "bar.red.and.pred %p3, 5, !%p2;\nselp.u32 %r17, 1, 0, %p3;\n"
        "setp.eq.u32 %p5, %r1, 0;\n"
        "bar.red.popc.u32 %r18, 6, %p5;\n"
        "st.global.u32 [%rd2], %r11;\nst.global.u32 [%rd2+4], %r12;\n"
        "st.global.u32 [%rd2+8], %r13;\nst.global.u32 [%rd2+12], %r14;\n"
        "st.global.u32 [%rd2+16], %r15;\nst.global.u32 [%rd2+20], %r16;\n"
        "st.global.u32 [%rd2+24], %r17;\nst.global.u32 [%rd2+28], %r18;\n";
    uint32_t n = 80, popc = 0;
    for (uint32_t t = 0; t < n; t++)
        popc += (t & 5) == 1;
    RUN_OK(body, n);
    for (uint32_t t = 0; t < n; t++) {
        CHECK_SLOT(t, 0, popc);
        CHECK_SLOT(t, 1, n - popc);
        CHECK_SLOT(t, 2, 1);
        CHECK_SLOT(t, 3, 0);
        CHECK_SLOT(t, 4, 1);
        CHECK_SLOT(t, 5, 0);
        CHECK_SLOT(t, 6, 0);
        CHECK_SLOT(t, 7, 1);
    }
}

/* bar.warp.sync: a no-op when every named live lane executes it (full,
 * partial and divergent warps); a fault when a named lane is elsewhere or
 * the executing lane is not named. */
static void test_bar_warp_sync(void **state)
{
    (void)state;
    RUN_OK("bar.warp.sync -1;\nmov.u32 %r63, 1;\nst.global.u32 [%rd2], %r63;\n", 32);
    CHECK_SLOT(31, 0, 1);
    /* lanes 20 and up do not exist: they count as exited */
    RUN_OK("bar.warp.sync 0xffffffff;\nmov.u32 %r63, 1;\nst.global.u32 [%rd2], %r63;\n", 20);
    CHECK_SLOT(19, 0, 1);
    static const char div[] = "and.b32 %r3, %r2, 1;\nsetp.eq.u32 %p1, %r3, 1;\n@%p1 bra ODD;\n"
                              "bar.warp.sync 0x55555555;\nmov.u32 %r63, 2;\n"
                              "st.global.u32 [%rd2], %r63;\nbra DONE;\n"
                              "ODD:\nmov.u32 %r4, 0xaaaaaaaa;\nbar.warp.sync %r4;\n"
                              "mov.u32 %r63, 3;\nst.global.u32 [%rd2], %r63;\nDONE:\n";
    RUN_OK(div, 32);
    for (uint32_t t = 0; t < 32; t++)
        CHECK_SLOT(t, 0, t & 1 ? 3 : 2);
    /* a barrier whose named lanes are on the other path */
    expect_fail("and.b32 %r3, %r2, 1;\nsetp.eq.u32 %p1, %r3, 1;\n@%p1 bra ODD;\n"
                "bar.warp.sync -1;\nODD:\n",
                32, MB_ERR_FAULT, "bar.warp.sync with membermask 0xffffffff: lanes 0xaaaaaaaa");
    /* guarded off lanes cannot meet either */
    expect_fail("setp.lt.u32 %p1, %r2, 4;\n@%p1 bar.warp.sync 0xff;\n", 32, MB_ERR_FAULT,
                "lanes 0x000000f0 have not exited");
    expect_fail("bar.warp.sync 0x0000ffff;\n", 32, MB_ERR_FAULT,
                "bar.warp.sync executed by lane 16, which is not in its membermask 0x0000ffff");
    /* all lanes guarded off: not executed */
    RUN_OK("setp.gt.u32 %p1, %r2, 40;\n@%p1 bar.warp.sync 0;\nmov.u32 %r63, 4;\n"
           "st.global.u32 [%rd2], %r63;\n",
           32);
    CHECK_SLOT(0, 0, 4);
}

/* Faults: divergence at a barrier (by a branch or by the guard), barrier
 * deadlocks, bad ids and counts. */
static void test_bar_faults(void **state)
{
    (void)state;
    /* half of warp 1 branches around the barrier and still has work to do
     * (lanes that skip straight to the kernel's exit are the legal
     * `if (tid >= n) return;` pattern, checked below) */
    expect_fail("setp.lt.u32 %p1, %r1, 48;\n@%p1 bra SKIP;\nbar.sync 0;\nSKIP:\n"
                "mov.u32 %r63, 9;\nst.global.u32 [%rd2], %r63;\n", 64,
                MB_ERR_FAULT,
                "barrier divergence: barrier 0 reached by lanes 0xffff0000 of warp 1");
    /* threads that return early (a branch to the kernel's final ret) do not
     * make the barrier divergent: they have finished, as on hardware */
    RUN_OK("setp.lt.u32 %p1, %r1, 48;\n@%p1 bra SKIP;\nbar.sync 0;\nmov.u32 %r63, 5;\n"
           "st.global.u32 [%rd2], %r63;\nSKIP:\n",
           64);
    for (uint32_t t = 48; t < 64; t++)
        CHECK_SLOT(t, 0, 5);
    expect_fail("setp.lt.u32 %p1, %r1, 40;\n@%p1 bar.sync 0;\n", 64, MB_ERR_FAULT,
                "barrier divergence: barrier 0 is executed by lanes 0x000000ff of warp 1 but its "
                "guard predicate is false for lanes 0xffffff00");
    if (!strstr(g_msg, "test.ptx:"))
        fail_msg("fault lacks the PTX location: %s", g_msg);
    /* two warps at different barriers */
    expect_fail("shr.u32 %r3, %r1, 5;\nsetp.eq.u32 %p1, %r3, 1;\n@%p1 bra W1;\n"
                "bar.sync 1;\nbra DONE;\nW1:\nbar.sync 2;\nDONE:\n",
                64, MB_ERR_FAULT,
                "barrier deadlock: warp 0 at barrier 1, warp 1 at barrier 2; barrier 1 has 32 of "
                "64 threads");
    /* a counted barrier whose partner warp exits */
    expect_fail("shr.u32 %r3, %r1, 5;\nsetp.eq.u32 %p1, %r3, 1;\n@%p1 exit;\n"
                "bar.sync 1, 64;\n",
                64, MB_ERR_FAULT, "barrier deadlock: warp 0 at barrier 1; barrier 1 has 32 of 64");
    /* runtime checks on register operands */
    expect_fail("mov.u32 %r3, 16;\nbar.sync %r3;\n", 32, MB_ERR_FAULT,
                "barrier id 16 is out of range");
    expect_fail("mov.u32 %r3, 48;\nbar.sync 0, %r3;\n", 64, MB_ERR_FAULT,
                "barrier thread count 48 is not a multiple of the warp size");
    expect_fail("mov.u32 %r3, 128;\nbar.sync 0, %r3;\n", 64, MB_ERR_FAULT,
                "barrier 0 expects 128 threads but the CTA has 2 warps");
    expect_fail("mov.u32 %r3, 0;\nbar.arrive 0, %r3;\n", 64, MB_ERR_FAULT,
                "barrier arrive needs a non-zero thread count");
    expect_fail("and.b32 %r3, %r2, 1;\nbar.sync %r3;\n", 32, MB_ERR_FAULT,
                "the barrier id differs across the lanes of warp 0 (0 in lane 0, 1 in lane 1)");
    /* decode-time checks on immediates and forms */
    expect_fail("bar.sync 16;\n", 32, MB_ERR_UNSUPPORTED, "barrier id out of range");
    expect_fail("bar.sync 1, 33;\n", 32, MB_ERR_UNSUPPORTED, "multiple of the warp size");
    expect_fail("bar.arrive 1, 0;\n", 32, MB_ERR_UNSUPPORTED, "non-zero for arrive");
    expect_fail("bar.arrive 1;\n", 32, MB_ERR_UNSUPPORTED, "wrong number of operands");
    expect_fail("bar.red.popc.u32 %r3, 0;\n", 32, MB_ERR_UNSUPPORTED, "wrong number of operands");
    expect_fail("bar.red.popc.pred %p3, 0, %p1;\n", 32, MB_ERR_UNSUPPORTED, "needs the type .u32");
    expect_fail("bar.red.and.u32 %r3, 0, %p1;\n", 32, MB_ERR_UNSUPPORTED, "need the type .pred");
    expect_fail("bar.red.u32 %r3, 0, %p1;\n", 32, MB_ERR_UNSUPPORTED, "exactly one of .popc");
    expect_fail("bar.sync.arrive 1, 64;\n", 32, MB_ERR_UNSUPPORTED, "exactly one of .sync");
    expect_fail("bar.sync.rn 1;\n", 32, MB_ERR_UNSUPPORTED, "modifier or type '.rn' on bar");
    expect_fail("bar.red.popc.u32 _, 0, %p1;\n", 32, MB_ERR_UNSUPPORTED, "cannot discard");
    expect_fail("barrier.cluster.arrive.release;\n", 32, MB_ERR_UNSUPPORTED,
                "cluster-wide barriers (barrier.cluster) are not supported");
    if (!strstr(g_msg, "test.ptx:"))
        fail_msg("decode error lacks the PTX location: %s", g_msg);
}

/* ================================================================== vote */

/* vote.sync all/any/uni/ballot with plain and negated predicates over full
 * and partial warps; expectations from the live lanes. */
static void test_vote_modes(void **state)
{
    (void)state;
    static const char body[] = "setp.lt.u32 %p1, %r2, 10;\n"
                               "vote.sync.all.pred %p2, %p1, -1;\nselp.u32 %r10, 1, 0, %p2;\n"
                               "vote.sync.any.pred %p2, %p1, -1;\nselp.u32 %r11, 1, 0, %p2;\n"
                               "vote.sync.uni.pred %p2, %p1, -1;\nselp.u32 %r12, 1, 0, %p2;\n"
                               "vote.sync.ballot.b32 %r13, %p1, 0xffffffff;\n"
                               "vote.sync.all.pred %p2, !%p1, -1;\nselp.u32 %r14, 1, 0, %p2;\n"
                               "vote.sync.ballot.b32 %r15, !%p1, -1;\n"
                               "vote.sync.any.pred %p2, !%p1, -1;\nselp.u32 %r16, 1, 0, %p2;\n"
                               "vote.sync.uni.pred %p2, !%p1, -1;\nselp.u32 %r17, 1, 0, %p2;\n"
                               "vote.sync.all.pred %p1, %p1, -1;\nselp.u32 %r18, 1, 0, %p1;\n"
                               "st.global.u32 [%rd2], %r10;\nst.global.u32 [%rd2+4], %r11;\n"
                               "st.global.u32 [%rd2+8], %r12;\nst.global.u32 [%rd2+12], %r13;\n"
                               "st.global.u32 [%rd2+16], %r14;\nst.global.u32 [%rd2+20], %r15;\n"
                               "st.global.u32 [%rd2+24], %r16;\nst.global.u32 [%rd2+28], %r17;\n"
                               "st.global.u32 [%rd2+32], %r18;\n";
    static const uint32_t sizes[] = {32, 20, 8, 45, 1};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint32_t n = sizes[k];
        RUN_OK(body, n);
        for (uint32_t t = 0; t < n; t++) {
            uint32_t live = live_of(n, t / 32);
            uint32_t p = live & 0x3FFu, np = live & ~0x3FFu;
            CHECK_SLOT(t, 0, p == live);
            CHECK_SLOT(t, 1, p != 0);
            CHECK_SLOT(t, 2, p == live || p == 0);
            CHECK_SLOT(t, 3, p);
            CHECK_SLOT(t, 4, np == live);
            CHECK_SLOT(t, 5, np);
            CHECK_SLOT(t, 6, np != 0);
            CHECK_SLOT(t, 7, p == live || p == 0);
            CHECK_SLOT(t, 8, p == live);
        }
    }
    /* hand-computed spot checks */
    RUN_OK(body, 32);
    CHECK_SLOT(5, 3, 0x000003FFu);
    CHECK_SLOT(5, 5, 0xFFFFFC00u);
    CHECK_SLOT(31, 0, 0);
    CHECK_SLOT(31, 1, 1);
    CHECK_SLOT(31, 2, 0);
    RUN_OK(body, 8);
    CHECK_SLOT(0, 0, 1);
    CHECK_SLOT(7, 3, 0xFFu);
    CHECK_SLOT(7, 6, 0);
}

/* Votes inside an if on lane parity, with the matching membermask, with a
 * full membermask (the inactive lanes do not take part), the legacy vote,
 * a guard, and per-lane membermasks forming two independent groups. */
static void test_vote_divergent(void **state)
{
    (void)state;
    static const char body[] =
        "and.b32 %r3, %r2, 1;\nsetp.eq.u32 %p9, %r3, 0;\n"
        "@%p9 bra EVEN;\n"
        "setp.lt.u32 %p1, %r2, 10;\n"
        "vote.sync.ballot.b32 %r10, %p1, 0xaaaaaaaa;\n"
        "vote.sync.all.pred %p2, %p1, 0xaaaaaaaa;\nselp.u32 %r11, 1, 0, %p2;\n"
        "vote.sync.any.pred %p2, %p1, 0xaaaaaaaa;\nselp.u32 %r12, 1, 0, %p2;\n"
        "vote.sync.ballot.b32 %r13, %p1, -1;\n"
        "vote.ballot.b32 %r14, %p1;\n"
        "vote.all.pred %p2, %p1;\nselp.u32 %r15, 1, 0, %p2;\n"
        "bra DONE;\n"
        "EVEN:\n"
        "setp.gt.u32 %p1, %r2, 20;\n"
        "vote.sync.ballot.b32 %r10, %p1, 0x55555555;\n"
        "vote.sync.all.pred %p2, %p1, 0x55555555;\nselp.u32 %r11, 1, 0, %p2;\n"
        "vote.sync.any.pred %p2, %p1, 0x55555555;\nselp.u32 %r12, 1, 0, %p2;\n"
        "vote.sync.ballot.b32 %r13, %p1, -1;\n"
        "vote.ballot.b32 %r14, %p1;\n"
        "vote.uni.pred %p2, %p1;\nselp.u32 %r15, 1, 0, %p2;\n"
        "DONE:\n"
        /* guarded: lanes 0-11 execute, membermask all lanes */
        "setp.lt.u32 %p3, %r2, 12;\nsetp.gt.u32 %p4, %r2, 3;\n"
        "@%p3 vote.sync.ballot.b32 %r16, %p4, -1;\n"
        "@%p3 vote.sync.all.pred %p5, %p4, -1;\nselp.u32 %r17, 1, 0, %p5;\n"
        /* two groups: lanes 0-15 with 0xffff, lanes 16-31 with 0xffff0000 */
        "setp.lt.u32 %p6, %r2, 16;\nselp.b32 %r20, 0xffff, 0xffff0000, %p6;\n"
        "and.b32 %r21, %r2, 3;\nsetp.eq.u32 %p7, %r21, 0;\n"
        "vote.sync.ballot.b32 %r18, %p7, %r20;\n"
        "setp.lt.u32 %p8, %r2, 20;\n"
        "vote.sync.all.pred %p8, %p8, %r20;\nselp.u32 %r19, 1, 0, %p8;\n"
        "st.global.u32 [%rd2], %r10;\nst.global.u32 [%rd2+4], %r11;\n"
        "st.global.u32 [%rd2+8], %r12;\nst.global.u32 [%rd2+12], %r13;\n"
        "st.global.u32 [%rd2+16], %r14;\nst.global.u32 [%rd2+20], %r15;\n"
        "st.global.u32 [%rd2+24], %r16;\nst.global.u32 [%rd2+28], %r17;\n"
        "st.global.u32 [%rd2+32], %r18;\nst.global.u32 [%rd2+36], %r19;\n";
    RUN_OK(body, 32);
    for (uint32_t l = 0; l < 32; l++) {
        if (l & 1) {
            uint32_t b = 0x2AAu; /* odd lanes below 10 */
            CHECK_SLOT(l, 0, b);
            CHECK_SLOT(l, 1, 0);
            CHECK_SLOT(l, 2, 1);
            CHECK_SLOT(l, 3, b);
            CHECK_SLOT(l, 4, b);
            CHECK_SLOT(l, 5, 0);
        } else {
            uint32_t b = 0x55400000u; /* even lanes 22..30 */
            CHECK_SLOT(l, 0, b);
            CHECK_SLOT(l, 1, 0);
            CHECK_SLOT(l, 2, 1);
            CHECK_SLOT(l, 3, b);
            CHECK_SLOT(l, 4, b);
            CHECK_SLOT(l, 5, 0);
        }
        /* guarded: lanes 0-11 vote; lanes 4-11 have p4 */
        if (l < 12) {
            CHECK_SLOT(l, 6, 0xFF0u);
            CHECK_SLOT(l, 7, 0);
        } else {
            CHECK_SLOT(l, 6, 0); /* registers start at zero and were not written */
        }
        CHECK_SLOT(l, 8, l < 16 ? 0x1111u : 0x11110000u);
        CHECK_SLOT(l, 9, l < 16 ? 1 : 0);
    }
    /* misuse of membermask */
    expect_fail("setp.lt.u32 %p1, %r2, 10;\nvote.sync.ballot.b32 %r10, %p1, 0xffff;\n", 32,
                MB_ERR_FAULT,
                "vote.sync executed by lane 16, which is not in its membermask 0x0000ffff");
    expect_fail("setp.eq.u32 %p1, %r2, 3;\nselp.b32 %r20, 0xf, -1, %p1;\n"
                "vote.sync.ballot.b32 %r10, %p1, %r20;\n",
                32, MB_ERR_FAULT,
                "vote.sync: lane 0 executes it with membermask 0xffffffff, which names lane 3, "
                "but lane 3 executes it with membermask 0x0000000f");
    expect_fail("vote.sync.ballot.pred %p2, %p1, -1;\n", 32, MB_ERR_UNSUPPORTED,
                "vote.ballot needs .b32");
    expect_fail("vote.sync.all.any.pred %p2, %p1, -1;\n", 32, MB_ERR_UNSUPPORTED,
                "exactly one of .all");
    expect_fail("vote.sync.all.pred %p2, %p1;\n", 32, MB_ERR_UNSUPPORTED,
                "wrong number of operands");
}

/* ================================================================== shfl */

/* The manual's formula, written out once more for the expectations. */
static uint32_t ref_shfl(int mode, uint32_t lane, uint32_t b, uint32_t c, const uint32_t *a,
                         int *pv)
{
    uint32_t bval = b & 31, cval = c & 31, seg = (c >> 8) & 31;
    uint32_t maxl = (lane & seg) | (cval & ~seg), minl = lane & seg;
    int j;
    int ok;
    switch (mode) {
    case 0: j = (int)lane - (int)bval; ok = j >= (int)maxl; break;
    case 1: j = (int)(lane + bval); ok = j <= (int)maxl; break;
    case 2: j = (int)(lane ^ bval); ok = j <= (int)maxl; break;
    default: j = (int)(minl | (bval & ~seg)); ok = j <= (int)maxl; break;
    }
    *pv = ok;
    return a[ok ? j : (int)lane];
}

static const char *const shfl_modes[] = {"up", "down", "bfly", "idx"};

/* Each mode with many b and c values (immediates and registers), with the
 * predicate destination, on full and partial warps. */
static void test_shfl_modes(void **state)
{
    (void)state;
    static const uint32_t bs[] = {0, 1, 2, 3, 5, 8, 16, 17, 31, 33, 0xFFFFFFFFu};
    static const uint32_t cs[] = {0x0,    0x1f,   0x101f, 0x181f, 0x1c1f, 0x1e1f, 0x1f1f, 0x1000,
                                  0x1800, 0x1c00, 0x5,    0x0810, 0x1f00, 0xffffffe3u};
    for (int mode = 0; mode < 4; mode++)
        for (size_t bi = 0; bi < sizeof(bs) / sizeof(bs[0]); bi++)
            for (size_t ci = 0; ci < sizeof(cs) / sizeof(cs[0]); ci++) {
                char body[1024];
                snprintf(body, sizeof(body),
                         "mad.lo.u32 %%r10, %%r2, 10, 1;\n"
                         "shfl.sync.%s.b32 %%r11|%%p1, %%r10, %u, %u, -1;\n"
                         "selp.u32 %%r12, 1, 0, %%p1;\n"
                         "mov.u32 %%r13, %u;\nmov.u32 %%r14, %u;\n"
                         "shfl.sync.%s.b32 %%r15, %%r10, %%r13, %%r14, %%r16;\n"
                         "st.global.u32 [%%rd2], %%r11;\nst.global.u32 [%%rd2+4], %%r12;\n"
                         "st.global.u32 [%%rd2+8], %%r15;\n",
                         shfl_modes[mode], bs[bi], cs[ci], bs[bi], cs[ci], shfl_modes[mode]);
                /* %r16 (membermask) must be all ones: set it first */
                char full[1200];
                snprintf(full, sizeof(full), "mov.u32 %%r16, -1;\n%s", body);
                uint32_t n = (bi + ci) % 3 == 0 ? 20 : 32;
                RUN_OK(full, n);
                uint32_t a[32];
                for (uint32_t l = 0; l < 32; l++)
                    a[l] = l < n ? l * 10 + 1 : 0; /* lanes past the CTA hold 0 */
                for (uint32_t l = 0; l < n; l++) {
                    int pv;
                    uint32_t want = ref_shfl(mode, l, bs[bi], cs[ci], a, &pv);
                    CHECK_SLOT(l, 0, want);
                    CHECK_SLOT(l, 1, pv);
                    CHECK_SLOT(l, 2, want);
                }
            }
    /* b and c different in every lane: b = in[t], c = (lane & 3) << 11 | lane */
    for (int mode = 0; mode < 4; mode++) {
        char body[1024];
        snprintf(body, sizeof(body),
                 "mad.lo.u32 %%r10, %%r2, 10, 1;\n"
                 "and.b32 %%r13, %%r2, 3;\nshl.b32 %%r13, %%r13, 11;\nor.b32 %%r13, %%r13, %%r2;\n"
                 "shfl.sync.%s.b32 %%r11|%%p1, %%r10, %%r5, %%r13, -1;\n"
                 "selp.u32 %%r12, 1, 0, %%p1;\n"
                 "st.global.u32 [%%rd2], %%r11;\nst.global.u32 [%%rd2+4], %%r12;\n",
                 shfl_modes[mode]);
        for (uint32_t t = 0; t < 32; t++)
            g_in[t] = (t * 7u + (uint32_t)mode * 5u) % 40u;
        RUN_OK(body, 32);
        uint32_t a[32];
        for (uint32_t l = 0; l < 32; l++)
            a[l] = l * 10 + 1;
        for (uint32_t l = 0; l < 32; l++) {
            int pv;
            uint32_t want = ref_shfl(mode, l, g_in[l], ((l & 3) << 11) | l, a, &pv);
            CHECK_SLOT(l, 0, want);
            CHECK_SLOT(l, 1, pv);
        }
    }
    memset(g_in, 0, sizeof(g_in));
    /* hand-computed cases (a = lane*10+1) */
    static const char hand[] =
        "mad.lo.u32 %r10, %r2, 10, 1;\n"
        "shfl.sync.idx.b32 %r11, %r10, 3, 0x1f, -1;\n"        /* 31 everywhere */
        "shfl.sync.up.b32 %r12|%p1, %r10, 1, 0, -1;\n"        /* lane 0 keeps 1 */
        "selp.u32 %r13, 1, 0, %p1;\n"
        "shfl.sync.down.b32 %r14|%p2, %r10, 1, 0x1f, -1;\n"   /* lane 31 keeps 311 */
        "selp.u32 %r15, 1, 0, %p2;\n"
        "shfl.sync.idx.b32 %r16, %r10, 3, 0x181f, -1;\n"      /* width 8: lane 13 -> 11 */
        "shfl.sync.up.b32 %r17|%p3, %r10, 2, 0x1000, -1;\n"   /* width 16 */
        "selp.u32 %r18, 1, 0, %p3;\n"
        "shfl.sync.idx.b32 %r19|%p4, %r10, 35, 0x1f, -1;\n"   /* b=35 is lane 3 */
        "selp.u32 %r20, 1, 0, %p4;\n"
        "shfl.sync.idx.b32 %r21|%p5, %r10, 7, 5, -1;\n"       /* clamp 5: out of range */
        "selp.u32 %r22, 1, 0, %p5;\n"
        "shfl.sync.bfly.b32 %r23|%p6, %r10, 16, 0x101f, -1;\n" /* width 16: out of range */
        "selp.u32 %r24, 1, 0, %p6;\n"
        "st.global.u32 [%rd2], %r11;\nst.global.u32 [%rd2+4], %r12;\n"
        "st.global.u32 [%rd2+8], %r13;\nst.global.u32 [%rd2+12], %r14;\n"
        "st.global.u32 [%rd2+16], %r15;\nst.global.u32 [%rd2+20], %r16;\n"
        "st.global.u32 [%rd2+24], %r17;\nst.global.u32 [%rd2+28], %r18;\n"
        "st.global.u32 [%rd2+32], %r19;\nst.global.u32 [%rd2+36], %r20;\n"
        "st.global.u32 [%rd2+40], %r21;\nst.global.u32 [%rd2+44], %r22;\n"
        "st.global.u32 [%rd2+48], %r23;\nst.global.u32 [%rd2+52], %r24;\n";
    RUN_OK(hand, 32);
    CHECK_SLOT(0, 0, 31);
    CHECK_SLOT(29, 0, 31);
    CHECK_SLOT(0, 1, 1);
    CHECK_SLOT(0, 2, 0);
    CHECK_SLOT(5, 1, 41);
    CHECK_SLOT(5, 2, 1);
    CHECK_SLOT(31, 3, 311);
    CHECK_SLOT(31, 4, 0);
    CHECK_SLOT(30, 3, 311);
    CHECK_SLOT(30, 4, 1);
    CHECK_SLOT(13, 5, 111);
    CHECK_SLOT(2, 5, 31);
    CHECK_SLOT(17, 6, 171); /* 17-2 = 15 is below its segment [16,32) */
    CHECK_SLOT(17, 7, 0);
    CHECK_SLOT(18, 6, 161);
    CHECK_SLOT(18, 7, 1);
    CHECK_SLOT(9, 8, 31);
    CHECK_SLOT(9, 9, 1);
    CHECK_SLOT(9, 10, 91);
    CHECK_SLOT(9, 11, 0);
    CHECK_SLOT(3, 12, 31);
    CHECK_SLOT(3, 13, 0);
    /* d aliasing a: everyone reads the old values */
    RUN_OK("mov.u32 %r10, %r2;\nshfl.sync.down.b32 %r10, %r10, 1, 0x1f, -1;\n"
           "mov.u32 %r11, %r2;\nshfl.sync.up.b32 %r11, %r11, 1, 0, -1;\n"
           "st.global.u32 [%rd2], %r10;\nst.global.u32 [%rd2+4], %r11;\n",
           32);
    for (uint32_t l = 0; l < 32; l++) {
        CHECK_SLOT(l, 0, l < 31 ? l + 1 : 31);
        CHECK_SLOT(l, 1, l > 0 ? l - 1 : 0);
    }
}

/* A full butterfly reduction, a shfl.down reduction, an inclusive prefix sum
 * with shfl.up and a predicated add, and a partial warp's reduction. */
static void test_shfl_reduce_scan(void **state)
{
    (void)state;
    static const char body[] =
        "mov.u32 %r10, %r5;\n"
        "shfl.sync.bfly.b32 %r11, %r10, 16, 0x1f, -1;\nadd.u32 %r10, %r10, %r11;\n"
        "shfl.sync.bfly.b32 %r11, %r10, 8, 0x1f, -1;\nadd.u32 %r10, %r10, %r11;\n"
        "shfl.sync.bfly.b32 %r11, %r10, 4, 0x1f, -1;\nadd.u32 %r10, %r10, %r11;\n"
        "shfl.sync.bfly.b32 %r11, %r10, 2, 0x1f, -1;\nadd.u32 %r10, %r10, %r11;\n"
        "shfl.sync.bfly.b32 %r11, %r10, 1, 0x1f, -1;\nadd.u32 %r10, %r10, %r11;\n"
        "mov.u32 %r20, %r5;\n"
        "shfl.sync.down.b32 %r21, %r20, 16, 0x1f, -1;\nadd.u32 %r20, %r20, %r21;\n"
        "shfl.sync.down.b32 %r21, %r20, 8, 0x1f, -1;\nadd.u32 %r20, %r20, %r21;\n"
        "shfl.sync.down.b32 %r21, %r20, 4, 0x1f, -1;\nadd.u32 %r20, %r20, %r21;\n"
        "shfl.sync.down.b32 %r21, %r20, 2, 0x1f, -1;\nadd.u32 %r20, %r20, %r21;\n"
        "shfl.sync.down.b32 %r21, %r20, 1, 0x1f, -1;\nadd.u32 %r20, %r20, %r21;\n"
        "mov.u32 %r30, %r5;\n"
        "shfl.sync.up.b32 %r31|%p1, %r30, 1, 0, -1;\n@%p1 add.u32 %r30, %r30, %r31;\n"
        "shfl.sync.up.b32 %r31|%p1, %r30, 2, 0, -1;\n@%p1 add.u32 %r30, %r30, %r31;\n"
        "shfl.sync.up.b32 %r31|%p1, %r30, 4, 0, -1;\n@%p1 add.u32 %r30, %r30, %r31;\n"
        "shfl.sync.up.b32 %r31|%p1, %r30, 8, 0, -1;\n@%p1 add.u32 %r30, %r30, %r31;\n"
        "shfl.sync.up.b32 %r31|%p1, %r30, 16, 0, -1;\n@%p1 add.u32 %r30, %r30, %r31;\n"
        /* the same scan in segments of 8 lanes */
        "mov.u32 %r40, %r5;\n"
        "shfl.sync.up.b32 %r41|%p2, %r40, 1, 0x1800, -1;\n@%p2 add.u32 %r40, %r40, %r41;\n"
        "shfl.sync.up.b32 %r41|%p2, %r40, 2, 0x1800, -1;\n@%p2 add.u32 %r40, %r40, %r41;\n"
        "shfl.sync.up.b32 %r41|%p2, %r40, 4, 0x1800, -1;\n@%p2 add.u32 %r40, %r40, %r41;\n"
        "st.global.u32 [%rd2], %r10;\nst.global.u32 [%rd2+4], %r20;\n"
        "st.global.u32 [%rd2+8], %r30;\nst.global.u32 [%rd2+12], %r40;\n";
    static const uint32_t sizes[] = {64, 20};
    for (size_t k = 0; k < 2; k++) {
        uint32_t n = sizes[k];
        for (uint32_t t = 0; t < n; t++)
            g_in[t] = t * t * 7u + 3u * t + 1u;
        RUN_OK(body, n);
        for (uint32_t w = 0; w * 32 < n; w++) {
            uint32_t v[32] = {0}, total = 0;
            for (uint32_t l = 0; l < 32 && w * 32 + l < n; l++) {
                v[l] = g_in[w * 32 + l];
                total += v[l];
            }
            for (uint32_t l = 0; l < 32 && w * 32 + l < n; l++) {
                uint32_t t = w * 32 + l;
                if (n == 32 * (n / 32))
                    CHECK_SLOT(t, 0, total); /* butterfly: every lane of a full warp */
                if (l == 0)
                    CHECK_SLOT(t, 1, total); /* down: lane 0 (lanes past the CTA read 0) */
                uint32_t scan = 0, seg = 0;
                for (uint32_t k2 = 0; k2 <= l; k2++)
                    scan += v[k2];
                for (uint32_t k2 = l & ~7u; k2 <= l; k2++)
                    seg += v[k2];
                CHECK_SLOT(t, 2, scan);
                CHECK_SLOT(t, 3, seg);
            }
        }
    }
    memset(g_in, 0, sizeof(g_in));
}

/* Shuffles inside an if on lane parity: sourcing member lanes, sourcing an
 * inactive lane (reads its current register, a documented choice), the
 * legacy shfl, and membermask misuse. */
static void test_shfl_divergent(void **state)
{
    (void)state;
    static const char body[] =
        "mad.lo.u32 %r10, %r2, 10, 1;\n"
        "and.b32 %r3, %r2, 1;\nsetp.eq.u32 %p9, %r3, 0;\n"
        "@%p9 bra EVEN;\n"
        "add.u32 %r12, %r2, 2;\nand.b32 %r12, %r12, 31;\n"
        "shfl.sync.idx.b32 %r11, %r10, %r12, 0x1f, 0xaaaaaaaa;\n" /* next odd lane */
        "shfl.sync.bfly.b32 %r13, %r10, 1, 0x1f, 0xaaaaaaaa;\n"  /* an inactive even lane */
        "shfl.sync.down.b32 %r14|%p1, %r10, 2, 0x1f, -1;\n"
        "selp.u32 %r15, 1, 0, %p1;\n"
        "shfl.up.b32 %r16, %r10, 2, 0;\n" /* legacy form */
        "bra DONE;\n"
        "EVEN:\n"
        "shfl.sync.idx.b32 %r11, %r10, 0, 0x1f, 0x55555555;\n"
        "shfl.sync.bfly.b32 %r13, %r10, 2, 0x1f, 0x55555555;\n"
        "shfl.sync.up.b32 %r14|%p1, %r10, 4, 0x1800, 0x55555555;\n"
        "selp.u32 %r15, 1, 0, %p1;\n"
        "shfl.down.b32 %r16, %r10, 4, 0x1f;\n"
        "DONE:\n"
        "st.global.u32 [%rd2], %r11;\nst.global.u32 [%rd2+4], %r13;\n"
        "st.global.u32 [%rd2+8], %r14;\nst.global.u32 [%rd2+12], %r15;\n"
        "st.global.u32 [%rd2+16], %r16;\n";
    RUN_OK(body, 32);
    for (uint32_t l = 0; l < 32; l++) {
        if (l & 1) {
            CHECK_SLOT(l, 0, ((l + 2) & 31) * 10 + 1);
            CHECK_SLOT(l, 1, (l ^ 1) * 10 + 1);
            CHECK_SLOT(l, 2, l + 2 <= 31 ? (l + 2) * 10 + 1 : l * 10 + 1);
            CHECK_SLOT(l, 3, l + 2 <= 31);
            CHECK_SLOT(l, 4, l >= 2 ? (l - 2) * 10 + 1 : l * 10 + 1);
        } else {
            CHECK_SLOT(l, 0, 1);
            CHECK_SLOT(l, 1, (l ^ 2) * 10 + 1);
            CHECK_SLOT(l, 2, (l & 7) >= 4 ? (l - 4) * 10 + 1 : l * 10 + 1);
            CHECK_SLOT(l, 3, (l & 7) >= 4);
            CHECK_SLOT(l, 4, l + 4 <= 31 ? (l + 4) * 10 + 1 : l * 10 + 1);
        }
    }
    /* a guard: lanes 8+ keep their old value, lanes 0-7 read lane 5 */
    RUN_OK("mov.u32 %r11, 99;\nmad.lo.u32 %r10, %r2, 10, 1;\nsetp.lt.u32 %p1, %r2, 8;\n"
           "@%p1 shfl.sync.idx.b32 %r11, %r10, 5, 0x1f, 0xff;\nst.global.u32 [%rd2], %r11;\n",
           32);
    for (uint32_t l = 0; l < 32; l++)
        CHECK_SLOT(l, 0, l < 8 ? 51 : 99);
    expect_fail("shfl.sync.idx.b32 %r11, %r2, 0, 0x1f, 0xfffffffe;\n", 32, MB_ERR_FAULT,
                "shfl.sync executed by lane 0, which is not in its membermask 0xfffffffe");
    expect_fail("shfl.sync.idx.b32 %r11, %r2, 0, 0x1f;\n", 32, MB_ERR_UNSUPPORTED,
                "wrong number of operands");
    expect_fail("shfl.sync.idx.b64 %rd5, %rd4, 0, 0x1f, -1;\n", 32, MB_ERR_UNSUPPORTED,
                "modifier or type '.b64' on shfl");
    expect_fail("shfl.sync.b32 %r11, %r2, 0, 0x1f, -1;\n", 32, MB_ERR_UNSUPPORTED,
                "exactly one of .up");
}

/* ================================================================= match */

static void test_match(void **state)
{
    (void)state;
    static const char body[] =
        "shr.u32 %r10, %r2, 2;\n"
        "match.any.sync.b32 %r11, %r10, -1;\n"
        "mov.u32 %r12, 7;\n"
        "match.all.sync.b32 %r13|%p1, %r12, -1;\nselp.u32 %r14, 1, 0, %p1;\n"
        "match.all.sync.b32 %r15|%p2, %r10, -1;\nselp.u32 %r16, 1, 0, %p2;\n"
        "and.b32 %r17, %r2, 1;\ncvt.u64.u32 %rd5, %r17;\nshl.b64 %rd5, %rd5, 40;\n"
        "or.b64 %rd5, %rd5, 5;\n"
        "match.any.sync.b64 %r18, %rd5, -1;\n"
        "mov.b64 %rd6, 0x100000005;\n"
        "match.all.sync.b64 %r19, %rd6, -1;\n"
        "match.all.sync.b64 %r20|%p3, %rd5, -1;\nselp.u32 %r21, 1, 0, %p3;\n"
        "match.any.sync.b32 %r10, %r10, -1;\n" /* d aliasing a */
        "st.global.u32 [%rd2], %r11;\nst.global.u32 [%rd2+4], %r13;\n"
        "st.global.u32 [%rd2+8], %r14;\nst.global.u32 [%rd2+12], %r15;\n"
        "st.global.u32 [%rd2+16], %r16;\nst.global.u32 [%rd2+20], %r18;\n"
        "st.global.u32 [%rd2+24], %r19;\nst.global.u32 [%rd2+28], %r20;\n"
        "st.global.u32 [%rd2+32], %r21;\nst.global.u32 [%rd2+36], %r10;\n";
    static const uint32_t sizes[] = {32, 20, 3, 1};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint32_t n = sizes[k];
        uint32_t live = lanes_below(n);
        RUN_OK(body, n);
        for (uint32_t l = 0; l < n; l++) {
            CHECK_SLOT(l, 0, (0xFu << (4 * (l >> 2))) & live);
            CHECK_SLOT(l, 1, live);
            CHECK_SLOT(l, 2, 1);
            CHECK_SLOT(l, 3, n <= 4 ? live : 0);
            CHECK_SLOT(l, 4, n <= 4);
            CHECK_SLOT(l, 5, (l & 1 ? 0xAAAAAAAAu : 0x55555555u) & live);
            CHECK_SLOT(l, 6, live);
            CHECK_SLOT(l, 7, n == 1 ? live : 0);
            CHECK_SLOT(l, 8, n == 1);
            CHECK_SLOT(l, 9, (0xFu << (4 * (l >> 2))) & live);
        }
    }
    /* divergent: odd lanes with their membermask */
    RUN_OK("shr.u32 %r10, %r2, 2;\nand.b32 %r3, %r2, 1;\nsetp.eq.u32 %p9, %r3, 0;\n"
           "mov.u32 %r11, 0;\n@%p9 bra DONE;\n"
           "match.any.sync.b32 %r11, %r10, 0xaaaaaaaa;\n"
           "match.all.sync.b32 %r12|%p1, %r3, 0xaaaaaaaa;\nselp.u32 %r13, 1, 0, %p1;\n"
           "st.global.u32 [%rd2+4], %r12;\nst.global.u32 [%rd2+8], %r13;\n"
           "DONE:\nst.global.u32 [%rd2], %r11;\n",
           32);
    for (uint32_t l = 0; l < 32; l++) {
        CHECK_SLOT(l, 0, l & 1 ? 0xAu << (4 * (l >> 2)) : 0);
        if (l & 1) {
            CHECK_SLOT(l, 1, 0xAAAAAAAAu);
            CHECK_SLOT(l, 2, 1);
        }
    }
    /* 32 distinct values (each lane alone), then pairs of lanes, with values
     * chosen so that many share hash slots */
    RUN_OK("shl.b32 %r10, %r2, 26;\nmatch.any.sync.b32 %r11, %r10, -1;\n"
           "shr.u32 %r12, %r2, 1;\nmul.lo.u32 %r12, %r12, 0x9e3779b1;\n"
           "match.any.sync.b32 %r13, %r12, -1;\n"
           "cvt.u64.u32 %rd5, %r2;\nshl.b64 %rd5, %rd5, 32;\n"
           "match.any.sync.b64 %r14, %rd5, -1;\n"
           "st.global.u32 [%rd2], %r11;\nst.global.u32 [%rd2+4], %r13;\n"
           "st.global.u32 [%rd2+8], %r14;\n",
           32);
    for (uint32_t l = 0; l < 32; l++) {
        CHECK_SLOT(l, 0, 1u << l);
        CHECK_SLOT(l, 1, 3u << (l & ~1u));
        CHECK_SLOT(l, 2, 1u << l);
    }
    expect_fail("match.any.sync.b32 %r11|%p1, %r2, -1;\n", 32, MB_ERR_UNSUPPORTED,
                "no predicate destination");
    expect_fail("match.any.b32 %r11, %r2, -1;\n", 32, MB_ERR_UNSUPPORTED, "match needs .sync");
    expect_fail("match.any.sync.u32 %r11, %r2, -1;\n", 32, MB_ERR_UNSUPPORTED,
                "modifier or type '.u32' on match");
    expect_fail("match.any.sync.b32 %r11, %r2, 0x7fffffff;\n", 32, MB_ERR_FAULT,
                "match.sync executed by lane 31, which is not in its membermask 0x7fffffff");
}

/* ============================================================ activemask */

static void test_activemask(void **state)
{
    (void)state;
    static const char body[] = "mov.u32 %r10, 0xdead;\nmov.u32 %r11, 0xdead;\n"
                               "mov.u32 %r12, 0xdead;\n"
                               "activemask.b32 %r10;\n"
                               "and.b32 %r3, %r2, 1;\nsetp.eq.u32 %p9, %r3, 0;\n"
                               "@%p9 bra SKIP;\nactivemask.b32 %r11;\nSKIP:\n"
                               "setp.lt.u32 %p1, %r2, 8;\n@%p1 activemask.b32 %r12;\n"
                               "st.global.u32 [%rd2], %r10;\nst.global.u32 [%rd2+4], %r11;\n"
                               "st.global.u32 [%rd2+8], %r12;\n";
    static const uint32_t sizes[] = {32, 20, 5, 40};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint32_t n = sizes[k];
        RUN_OK(body, n);
        for (uint32_t t = 0; t < n; t++) {
            uint32_t l = t % 32, live = live_of(n, t / 32);
            CHECK_SLOT(t, 0, live);
            CHECK_SLOT(t, 1, l & 1 ? live & 0xAAAAAAAAu : 0xdead);
            /* predicated-off lanes contribute 0 (PTX manual) */
            CHECK_SLOT(t, 2, l < 8 ? live & 0xFFu : 0xdead);
        }
    }
    expect_fail("activemask.b64 %rd5;\n", 32, MB_ERR_UNSUPPORTED,
                "modifier or type '.b64' on activemask");
}

/* ================================================================= redux */

static void test_redux_int(void **state)
{
    (void)state;
    static const char body[] =
        "redux.sync.add.u32 %r10, %r5, -1;\nredux.sync.add.s32 %r11, %r5, -1;\n"
        "redux.sync.min.u32 %r12, %r5, -1;\nredux.sync.max.u32 %r13, %r5, -1;\n"
        "redux.sync.min.s32 %r14, %r5, -1;\nredux.sync.max.s32 %r15, %r5, -1;\n"
        "redux.sync.and.b32 %r16, %r5, -1;\nredux.sync.or.b32 %r17, %r5, -1;\n"
        "redux.sync.xor.b32 %r18, %r5, -1;\n"
        "and.b32 %r3, %r2, 1;\nsetp.eq.u32 %p9, %r3, 0;\nmov.u32 %r19, 0;\nmov.u32 %r20, 0;\n"
        "@%p9 bra DONE;\n"
        "redux.sync.add.u32 %r19, %r5, 0xaaaaaaaa;\nredux.sync.max.s32 %r20, %r5, 0xaaaaaaaa;\n"
        "DONE:\n"
        "redux.sync.min.s32 %r5, %r5, -1;\n" /* d aliasing src */
        "st.global.u32 [%rd2], %r10;\nst.global.u32 [%rd2+4], %r11;\n"
        "st.global.u32 [%rd2+8], %r12;\nst.global.u32 [%rd2+12], %r13;\n"
        "st.global.u32 [%rd2+16], %r14;\nst.global.u32 [%rd2+20], %r15;\n"
        "st.global.u32 [%rd2+24], %r16;\nst.global.u32 [%rd2+28], %r17;\n"
        "st.global.u32 [%rd2+32], %r18;\nst.global.u32 [%rd2+36], %r19;\n"
        "st.global.u32 [%rd2+40], %r20;\nst.global.u32 [%rd2+44], %r5;\n";
    static const uint32_t sizes[] = {32, 20, 64, 1};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        uint32_t n = sizes[k];
        uint32_t x = 12345u + (uint32_t)k;
        for (uint32_t t = 0; t < n; t++) {
            x = x * 1103515245u + 12345u;
            g_in[t] = t == 3 ? 0x80000000u : t == 4 ? 0x7FFFFFFFu : t == 6 ? 0xFFFFFFFFu : x;
        }
        RUN_OK(body, n);
        for (uint32_t w = 0; w * 32 < n; w++) {
            uint32_t add = 0, umin = UINT32_MAX, umax = 0, band = UINT32_MAX, bor = 0, bxor = 0;
            int32_t smin = INT32_MAX, smax = INT32_MIN;
            uint32_t oadd = 0;
            int32_t omax = INT32_MIN;
            for (uint32_t l = 0; l < 32 && w * 32 + l < n; l++) {
                uint32_t v = g_in[w * 32 + l];
                add += v;
                umin = v < umin ? v : umin;
                umax = v > umax ? v : umax;
                smin = (int32_t)v < smin ? (int32_t)v : smin;
                smax = (int32_t)v > smax ? (int32_t)v : smax;
                band &= v;
                bor |= v;
                bxor ^= v;
                if (l & 1) {
                    oadd += v;
                    omax = (int32_t)v > omax ? (int32_t)v : omax;
                }
            }
            for (uint32_t l = 0; l < 32 && w * 32 + l < n; l++) {
                uint32_t t = w * 32 + l;
                CHECK_SLOT(t, 0, add);
                CHECK_SLOT(t, 1, add);
                CHECK_SLOT(t, 2, umin);
                CHECK_SLOT(t, 3, umax);
                CHECK_SLOT(t, 4, (uint32_t)smin);
                CHECK_SLOT(t, 5, (uint32_t)smax);
                CHECK_SLOT(t, 6, band);
                CHECK_SLOT(t, 7, bor);
                CHECK_SLOT(t, 8, bxor);
                CHECK_SLOT(t, 9, l & 1 ? oadd : 0);
                CHECK_SLOT(t, 10, l & 1 ? (uint32_t)omax : 0);
                CHECK_SLOT(t, 11, (uint32_t)smin);
            }
        }
    }
    /* hand-computed: lanes 0..31 hold lane*7 - 50 */
    RUN_OK("mul.lo.u32 %r10, %r2, 7;\nsub.u32 %r10, %r10, 50;\n"
           "redux.sync.add.s32 %r11, %r10, -1;\nredux.sync.min.s32 %r12, %r10, -1;\n"
           "redux.sync.max.u32 %r13, %r10, -1;\nredux.sync.min.u32 %r14, %r10, -1;\n"
           "st.global.u32 [%rd2], %r11;\nst.global.u32 [%rd2+4], %r12;\n"
           "st.global.u32 [%rd2+8], %r13;\nst.global.u32 [%rd2+12], %r14;\n",
           32);
    CHECK_SLOT(9, 0, 7 * 496 - 50 * 32); /* 1872 */
    CHECK_SLOT(9, 1, (uint32_t)-50);
    CHECK_SLOT(9, 2, (uint32_t)-1); /* lane 7: 49-50 = -1 = 0xffffffff */
    CHECK_SLOT(9, 3, 6);            /* lane 8: 56-50 */
    /* four independent groups of 8 lanes, each with its own membermask */
    RUN_OK("shr.u32 %r3, %r2, 3;\nshl.b32 %r3, %r3, 3;\nmov.u32 %r4, 255;\nshl.b32 %r4, %r4, %r3;\n"
           "redux.sync.add.u32 %r10, %r2, %r4;\nredux.sync.max.u32 %r11, %r2, %r4;\n"
           "st.global.u32 [%rd2], %r10;\nst.global.u32 [%rd2+4], %r11;\n",
           32);
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t base = l & ~7u;
        CHECK_SLOT(l, 0, 8 * base + 28);
        CHECK_SLOT(l, 1, base + 7);
    }
    memset(g_in, 0, sizeof(g_in));
    expect_fail("redux.sync.add.b32 %r10, %r5, -1;\n", 32, MB_ERR_UNSUPPORTED, "redux types");
    expect_fail("redux.sync.and.u32 %r10, %r5, -1;\n", 32, MB_ERR_UNSUPPORTED, "redux types");
    expect_fail("redux.add.u32 %r10, %r5, -1;\n", 32, MB_ERR_UNSUPPORTED, "redux needs .sync");
    expect_fail("redux.sync.add.abs.u32 %r10, %r5, -1;\n", 32, MB_ERR_UNSUPPORTED,
                "apply to .f32 only");
    expect_fail("redux.sync.add.u32 %r10, %r5, 0xfffffffe;\n", 32, MB_ERR_FAULT,
                "redux.sync executed by lane 0, which is not in its membermask 0xfffffffe");
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* redux.sync.{min,max}{.abs}.f32 (sm_100a): NaN inputs skipped, -0 < +0,
 * canonical NaN when every input is NaN. */
static void test_redux_f32(void **state)
{
    (void)state;
    static const char body[] = "redux.sync.min.f32 %r10, %r5, -1;\n"
                               "redux.sync.max.f32 %r11, %r5, -1;\n"
                               "redux.sync.min.abs.f32 %r12, %r5, -1;\n"
                               "redux.sync.max.abs.f32 %r13, %r5, -1;\n"
                               "st.global.u32 [%rd2], %r10;\nst.global.u32 [%rd2+4], %r11;\n"
                               "st.global.u32 [%rd2+8], %r12;\nst.global.u32 [%rd2+12], %r13;\n";
    for (uint32_t l = 0; l < 32; l++)
        g_in[l] = fbits(1.5f + (float)l);
    g_in[3] = 0x7FC00000u;     /* NaN */
    g_in[4] = fbits(-0.0f);
    g_in[5] = fbits(-7.25f);
    g_in[6] = 0xFFC01234u;     /* negative NaN with payload */
    g_in[7] = fbits(40.0f);
    g_in[8] = fbits(0.0f);
    g_in[9] = fbits(-100.0f);
    RUN_OK(body, 32);
    CHECK_SLOT(0, 0, fbits(-100.0f));
    CHECK_SLOT(0, 1, fbits(40.0f));
    CHECK_SLOT(31, 2, fbits(0.0f));   /* |-0| = +0 and +0 */
    CHECK_SLOT(31, 3, fbits(100.0f)); /* |-100| */
    /* -0 against +0 */
    for (uint32_t l = 0; l < 32; l++)
        g_in[l] = l & 1 ? fbits(0.0f) : fbits(-0.0f);
    RUN_OK(body, 32);
    CHECK_SLOT(4, 0, 0x80000000u);
    CHECK_SLOT(4, 1, 0x00000000u);
    CHECK_SLOT(4, 2, 0x00000000u);
    /* all NaN: canonical NaN */
    for (uint32_t l = 0; l < 32; l++)
        g_in[l] = 0xFF800001u + l;
    RUN_OK(body, 32);
    CHECK_SLOT(2, 0, 0x7FFFFFFFu);
    CHECK_SLOT(2, 3, 0x7FFFFFFFu);
    /* infinities are ordinary values */
    for (uint32_t l = 0; l < 32; l++)
        g_in[l] = l == 0 ? 0xFF800000u : l == 1 ? 0x7F800000u : fbits((float)l);
    RUN_OK(body, 20);
    CHECK_SLOT(0, 0, 0xFF800000u);
    CHECK_SLOT(0, 1, 0x7F800000u);
    CHECK_SLOT(0, 2, fbits(2.0f));
    memset(g_in, 0, sizeof(g_in));
    expect_fail("redux.sync.add.f32 %r10, %r5, -1;\n", 32, MB_ERR_UNSUPPORTED, "redux types");
}

/* ================================================================= elect */

static void test_elect(void **state)
{
    (void)state;
    static const char body[] =
        "mov.u32 %r10, 99;\nmov.u32 %r12, 99;\nmov.u32 %r14, 99;\nmov.u32 %r16, 99;\n"
        "elect.sync %r10|%p1, -1;\nselp.u32 %r11, 1, 0, %p1;\n"
        "and.b32 %r3, %r2, 1;\nsetp.eq.u32 %p9, %r3, 0;\nmov.u32 %r13, 7;\n"
        "@%p9 bra SKIP;\nelect.sync %r12|%p2, 0xaaaaaaaa;\nselp.u32 %r13, 1, 0, %p2;\nSKIP:\n"
        "setp.ge.u32 %p3, %r2, 5;\nmov.u32 %r15, 7;\n"
        "@%p3 elect.sync %r14|%p4, -1;\n@%p3 selp.u32 %r15, 1, 0, %p4;\n"
        "setp.lt.u32 %p6, %r2, 16;\nselp.b32 %r20, 0xffff, 0xffff0000, %p6;\n"
        "elect.sync %r16|%p5, %r20;\nselp.u32 %r17, 1, 0, %p5;\n"
        "st.global.u32 [%rd2], %r10;\nst.global.u32 [%rd2+4], %r11;\n"
        "st.global.u32 [%rd2+8], %r12;\nst.global.u32 [%rd2+12], %r13;\n"
        "st.global.u32 [%rd2+16], %r14;\nst.global.u32 [%rd2+20], %r15;\n"
        "st.global.u32 [%rd2+24], %r16;\nst.global.u32 [%rd2+28], %r17;\n";
    RUN_OK(body, 32);
    for (uint32_t l = 0; l < 32; l++) {
        CHECK_SLOT(l, 0, 0);
        CHECK_SLOT(l, 1, l == 0);
        CHECK_SLOT(l, 2, l & 1 ? 1 : 99);
        CHECK_SLOT(l, 3, l & 1 ? l == 1 : 7);
        CHECK_SLOT(l, 4, l >= 5 ? 5 : 99);
        CHECK_SLOT(l, 5, l >= 5 ? l == 5 : 7);
        CHECK_SLOT(l, 6, l < 16 ? 0 : 16);
        CHECK_SLOT(l, 7, l == 0 || l == 16);
    }
    RUN_OK(body, 3); /* partial warp */
    CHECK_SLOT(2, 0, 0);
    CHECK_SLOT(2, 1, 0);
    CHECK_SLOT(0, 1, 1);
    expect_fail("elect.sync %r10|%p1, 0xfffffffe;\n", 32, MB_ERR_FAULT,
                "elect.sync executed by lane 0, which is not in its membermask 0xfffffffe");
    expect_fail("elect %r10|%p1, -1;\n", 32, MB_ERR_UNSUPPORTED, "elect needs .sync");
}

/* ============================================== randomized differential */

/* Random straight-line programs of collectives (with guards) over eight
 * value registers and four predicates, checked lane by lane against a host
 * model of the same semantics. */
typedef struct rng {
    uint64_t s;
} rng;

static uint32_t rnd(rng *r)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(r->s >> 33);
}

enum { NV = 8, NP = 4 };

typedef struct model {
    uint32_t v[NV][32];
    uint32_t p[NP];
    uint32_t live;
} model;

static uint32_t pick_c(rng *r)
{
    static const uint32_t segs[] = {0, 0x10, 0x18, 0x1c, 0x1e, 0x1f, 0x08};
    return (segs[rnd(r) % 7] << 8) | (rnd(r) % 3 == 0 ? rnd(r) % 32 : (rnd(r) & 1 ? 31 : 0));
}

static void gen_and_check(uint64_t seed, uint32_t threads, int nops)
{
    rng r = {seed};
    size_t cap = 200000;
    char *body = malloc(cap);
    size_t len = 0;
#define EMIT(...) len += (size_t)snprintf(body + len, cap - len, __VA_ARGS__)
    model m[32];
    uint32_t nwarps = (threads + 31) / 32;
    /* initial values: v_i = in[tid] * (2i+1) + i; p_i = v_i & (1 << i) */
    for (uint32_t t = 0; t < threads; t++)
        g_in[t] = rnd(&r) % 4 == 0 ? rnd(&r) % 4 : rnd(&r);
    for (uint32_t w = 0; w < nwarps; w++) {
        memset(&m[w], 0, sizeof(m[w]));
        m[w].live = live_of(threads, w);
        for (int i = 0; i < NV; i++)
            for (uint32_t l = 0; l < 32; l++)
                m[w].v[i][l] =
                    (m[w].live >> l & 1) ? g_in[w * 32 + l] * (2u * i + 1) + (uint32_t)i : 0;
        for (int i = 0; i < NP; i++)
            for (uint32_t l = 0; l < 32; l++)
                if ((m[w].live >> l & 1) && (m[w].v[i][l] >> i & 1))
                    m[w].p[i] |= 1u << l;
    }
    for (int i = 0; i < NV; i++)
        EMIT("mad.lo.u32 %%r%d, %%r5, %d, %d;\n", 20 + i, 2 * i + 1, i);
    for (int i = 0; i < NP; i++)
        EMIT("and.b32 %%r3, %%r%d, %d;\nsetp.ne.u32 %%p%d, %%r3, 0;\n", 20 + i, 1 << i, 1 + i);
    for (int k = 0; k < nops; k++) {
        int kind = (int)(rnd(&r) % 10);
        int dv = (int)(rnd(&r) % NV), av = (int)(rnd(&r) % NV);
        int dp = (int)(rnd(&r) % NP), ap = (int)(rnd(&r) % NP), gp = (int)(rnd(&r) % NP);
        int guard = rnd(&r) % 3; /* 0 none, 1 @p, 2 @!p */
        int neg = (int)(rnd(&r) & 1);
        char g[16] = "";
        if (guard)
            snprintf(g, sizeof(g), "@%s%%p%d ", guard == 2 ? "!" : "", gp + 1);
        uint32_t b = rnd(&r) % 3 == 0 ? rnd(&r) % 40 : rnd(&r) % 32, c = pick_c(&r);
        int mode = (int)(rnd(&r) % 4);
        int rop = (int)(rnd(&r) % 8);
        static const char *const rops[] = {"add.u32", "add.s32", "min.u32", "max.u32",
                                           "min.s32", "max.s32", "and.b32", "or.b32"};
        static const char *const vmodes[] = {"all", "any", "uni"};
        int vmode = (int)(rnd(&r) % 3);
        switch (kind) {
        case 0:
        case 1:
            EMIT("%sshfl.sync.%s.b32 %%r%d|%%p%d, %%r%d, %u, %u, -1;\n", g, shfl_modes[mode],
                 20 + dv, dp + 1, 20 + av, b, c);
            break;
        case 2:
            EMIT("%svote.sync.ballot.b32 %%r%d, %s%%p%d, -1;\n", g, 20 + dv, neg ? "!" : "",
                 ap + 1);
            break;
        case 3:
            EMIT("%svote.sync.%s.pred %%p%d, %s%%p%d, -1;\n", g, vmodes[vmode], dp + 1,
                 neg ? "!" : "", ap + 1);
            break;
        case 4: EMIT("%sredux.sync.%s %%r%d, %%r%d, -1;\n", g, rops[rop], 20 + dv, 20 + av); break;
        case 5: EMIT("%smatch.any.sync.b32 %%r%d, %%r%d, -1;\n", g, 20 + dv, 20 + av); break;
        case 6:
            EMIT("%smatch.all.sync.b32 %%r%d|%%p%d, %%r%d, -1;\n", g, 20 + dv, dp + 1, 20 + av);
            break;
        case 7: EMIT("%select.sync %%r%d|%%p%d, -1;\n", g, 20 + dv, dp + 1); break;
        case 8: EMIT("%sactivemask.b32 %%r%d;\n", g, 20 + dv); break;
        default: EMIT("and.b32 %%r%d, %%r%d, 3;\n", 20 + dv, 20 + av); guard = 0; break;
        }
        for (uint32_t w = 0; w < nwarps; w++) {
            model *M = &m[w];
            uint32_t mask = M->live;
            if (guard)
                mask &= guard == 2 ? ~M->p[gp] : M->p[gp];
            if (!mask)
                continue;
            uint32_t tmp[32], bits = 0;
            switch (kind) {
            case 0:
            case 1:
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1) {
                        int pv;
                        tmp[l] = ref_shfl(mode, l, b, c, M->v[av], &pv);
                        bits |= (uint32_t)pv << l;
                    }
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1)
                        M->v[dv][l] = tmp[l];
                M->p[dp] = (M->p[dp] & ~mask) | bits;
                break;
            case 2: {
                uint32_t src = (neg ? ~M->p[ap] : M->p[ap]) & mask;
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1)
                        M->v[dv][l] = src;
                break;
            }
            case 3: {
                uint32_t src = (neg ? ~M->p[ap] : M->p[ap]) & mask;
                int res = vmode == 0   ? src == mask
                          : vmode == 1 ? src != 0
                                       : (src == 0 || src == mask);
                M->p[dp] = (M->p[dp] & ~mask) | (res ? mask : 0);
                break;
            }
            case 4: {
                uint32_t acc = rop == 0 || rop == 1 || rop == 3 || rop == 7 ? 0
                               : rop == 2 || rop == 6                       ? UINT32_MAX
                               : rop == 4                                   ? 0x7FFFFFFFu
                                                                            : 0x80000000u;
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1) {
                        uint32_t v = M->v[av][l];
                        switch (rop) {
                        case 0:
                        case 1: acc += v; break;
                        case 2: acc = v < acc ? v : acc; break;
                        case 3: acc = v > acc ? v : acc; break;
                        case 4: acc = (int32_t)v < (int32_t)acc ? v : acc; break;
                        case 5: acc = (int32_t)v > (int32_t)acc ? v : acc; break;
                        case 6: acc &= v; break;
                        default: acc |= v; break;
                        }
                    }
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1)
                        M->v[dv][l] = acc;
                break;
            }
            case 5:
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1) {
                        uint32_t eq = 0;
                        for (uint32_t k2 = 0; k2 < 32; k2++)
                            if ((mask >> k2 & 1) && M->v[av][k2] == M->v[av][l])
                                eq |= 1u << k2;
                        tmp[l] = eq;
                    }
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1)
                        M->v[dv][l] = tmp[l];
                break;
            case 6: {
                int same = 1;
                uint32_t first = M->v[av][__builtin_ctz(mask)];
                for (uint32_t l = 0; l < 32; l++)
                    if ((mask >> l & 1) && M->v[av][l] != first)
                        same = 0;
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1)
                        M->v[dv][l] = same ? mask : 0;
                M->p[dp] = (M->p[dp] & ~mask) | (same ? mask : 0);
                break;
            }
            case 7:
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1)
                        M->v[dv][l] = (uint32_t)__builtin_ctz(mask);
                M->p[dp] = (M->p[dp] & ~mask) | (mask & (0u - mask));
                break;
            case 8:
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1)
                        M->v[dv][l] = mask;
                break;
            default:
                for (uint32_t l = 0; l < 32; l++)
                    if (mask >> l & 1)
                        M->v[dv][l] = M->v[av][l] & 3;
                break;
            }
        }
    }
    for (int i = 0; i < NV; i++)
        EMIT("st.global.u32 [%%rd2+%d], %%r%d;\n", 4 * i, 20 + i);
    for (int i = 0; i < NP; i++)
        EMIT("selp.u32 %%r3, 1, 0, %%p%d;\nst.global.u32 [%%rd2+%d], %%r3;\n", i + 1, 4 * (NV + i));
#undef EMIT
    if (run_body(body, threads) != MB_OK)
        fail_msg("seed %llu: launch failed: %s", (unsigned long long)seed, g_msg);
    for (uint32_t t = 0; t < threads; t++) {
        const model *M = &m[t / 32];
        uint32_t l = t % 32;
        for (int i = 0; i < NV; i++)
            if (out_at(t, (unsigned)i) != M->v[i][l])
                fail_msg("seed %llu, %u threads: thread %u register %d: got 0x%08x, expected "
                         "0x%08x\n%s",
                         (unsigned long long)seed, threads, t, i, out_at(t, (unsigned)i),
                         M->v[i][l], body);
        for (int i = 0; i < NP; i++)
            if (out_at(t, (unsigned)(NV + i)) != (M->p[i] >> l & 1))
                fail_msg("seed %llu, %u threads: thread %u predicate %d: got %u, expected %u\n%s",
                         (unsigned long long)seed, threads, t, i, out_at(t, (unsigned)(NV + i)),
                         M->p[i] >> l & 1, body);
    }
    free(body);
}

static void test_random_differential(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {32, 20, 64, 45, 7, 96};
    for (uint64_t seed = 1; seed <= 60; seed++)
        gen_and_check(seed * 7919, sizes[seed % 6], 40);
    memset(g_in, 0, sizeof(g_in));
}

/* ==================================================================== main */

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bar_shared_exchange),
        cmocka_unit_test(test_bar_loop),
        cmocka_unit_test(test_bar_producer_consumer),
        cmocka_unit_test(test_bar_after_exit),
        cmocka_unit_test(test_bar_red),
        cmocka_unit_test(test_bar_warp_sync),
        cmocka_unit_test(test_bar_faults),
        cmocka_unit_test(test_vote_modes),
        cmocka_unit_test(test_vote_divergent),
        cmocka_unit_test(test_shfl_modes),
        cmocka_unit_test(test_shfl_reduce_scan),
        cmocka_unit_test(test_shfl_divergent),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_activemask),
        cmocka_unit_test(test_redux_int),
        cmocka_unit_test(test_redux_f32),
        cmocka_unit_test(test_elect),
        cmocka_unit_test(test_random_differential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
