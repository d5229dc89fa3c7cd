/* The SIMT core: divergence and reconvergence, loops with per-lane trip
 * counts, exits, calls (divergent, recursive, indirect), brx.idx, traps,
 * instruction budgets, thread statistics and launch validation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "exec_harness.h"

#define HEADER ".version 8.8\n.target sm_75\n.address_size 64\n"

static void run_ok(const char *ptx, const char *kernel, harness_opts *o, harness_arg *args, unsigned n)
{
    mb_status st = harness_run(ptx, kernel, o, args, n);
    if (st != MB_OK)
        fail_msg("run failed: %s", o->message);
}

/* out[tid] = number of iterations of a loop whose trip count is tid % 7 + 1,
 * then a nested if/else on tid parity inside the loop; checks per-lane
 * trip counts, nested divergence inside a loop and reconvergence after it. */
static const char *loop_ptx = HEADER
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .pred %p<3>;\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\trem.u32 %r2, %r1, 7;\n"
    "\tadd.s32 %r2, %r2, 1;\n"       /* trips */
    "\tmov.u32 %r3, 0;\n"             /* i */
    "\tmov.u32 %r4, 0;\n"             /* acc */
    "$L_loop:\n"
    "\tand.b32 %r5, %r1, 1;\n"
    "\tsetp.eq.s32 %p1, %r5, 0;\n"
    "\t@%p1 bra $L_even;\n"
    "\tadd.s32 %r4, %r4, 100;\n"
    "\tbra.uni $L_join;\n"
    "$L_even:\n"
    "\tadd.s32 %r4, %r4, 1;\n"
    "$L_join:\n"
    "\tadd.s32 %r3, %r3, 1;\n"
    "\tsetp.lt.u32 %p2, %r3, %r2;\n"
    "\t@%p2 bra $L_loop;\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], %r4;\n"
    "\tret;\n}\n";

static void test_divergent_loops(void **state)
{
    (void)state;
    uint32_t out[45];
    memset(out, 0xAB, sizeof(out));
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(45);
    run_ok(loop_ptx, "k", &o, args, 1);
    for (uint32_t t = 0; t < 45; t++) {
        uint32_t trips = t % 7 + 1;
        assert_int_equal(out[t], trips * (t % 2 == 0 ? 1 : 100));
    }
    assert_int_equal(o.stats.threads, 45);
    assert_int_equal(o.stats.warps, 2);
    /* thread instructions: each lane runs 6 setup instructions, 7 (even tid) or 8 (odd)
     * per iteration and 4 after the loop; divergence makes the warp instruction count
     * larger than the thread instruction count divided by 32 */
    uint64_t expect = 0;
    for (uint32_t t = 0; t < 45; t++)
        expect += 6 + (t % 7 + 1) * (t % 2 == 0 ? 7 : 8) + 4;
    assert_int_equal(o.stats.thread_insts, expect);
    assert_true(o.stats.warp_insts * 32 > o.stats.thread_insts);
}

/* Lanes with odd tid exit early; the rest store. A guarded exit, then a
 * store that only the remaining lanes perform. */
static const char *exit_ptx = HEADER
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tand.b32 %r2, %r1, 1;\n"
    "\tsetp.ne.s32 %p1, %r2, 0;\n"
    "\t@%p1 exit;\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], 7;\n"
    "\tret;\n}\n";

static void test_early_exit(void **state)
{
    (void)state;
    uint32_t out[40] = {0};
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(40);
    run_ok(exit_ptx, "k", &o, args, 1);
    for (uint32_t t = 0; t < 40; t++)
        assert_int_equal(out[t], t % 2 ? 0u : 7u);
}

/* A recursive function: fact(n) = n <= 1 ? 1 : n * fact(n - 1), called with
 * n = tid % 6 (divergent recursion depth), through nvcc-style call scopes. */
static const char *recursion_ptx = HEADER
    ".visible .func (.param .b32 fact_ret) fact(.param .b32 fact_n)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n"
    "\tld.param.b32 %r1, [fact_n];\n"
    "\tsetp.gt.u32 %p1, %r1, 1;\n"
    "\t@%p1 bra $L_rec;\n"
    "\tst.param.b32 [fact_ret], 1;\n"
    "\tret;\n"
    "$L_rec:\n"
    "\tadd.s32 %r2, %r1, -1;\n"
    "\t{\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 [param0], %r2;\n"
    "\t.param .b32 retval0;\n"
    "\tcall (retval0), fact, (param0);\n"
    "\tld.param.b32 %r3, [retval0];\n"
    "\t}\n"
    "\tmul.lo.s32 %r4, %r3, %r1;\n"
    "\tst.param.b32 [fact_ret], %r4;\n"
    "\tret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\trem.u32 %r2, %r1, 6;\n"
    "\t{\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 [param0], %r2;\n"
    "\t.param .b32 retval0;\n"
    "\tcall (retval0), fact, (param0);\n"
    "\tld.param.b32 %r3, [retval0];\n"
    "\t}\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], %r3;\n"
    "\tret;\n}\n";

static void test_recursion(void **state)
{
    (void)state;
    static const uint32_t fact[6] = {1, 1, 2, 6, 24, 120};
    uint32_t out[64] = {0};
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(64);
    run_ok(recursion_ptx, "k", &o, args, 1);
    for (uint32_t t = 0; t < 64; t++)
        assert_int_equal(out[t], fact[t % 6]);
}

/* A divergent call: only lanes with tid < 10 call; others skip it. The
 * callee's registers must not clobber the caller's (%r1 in both). */
static const char *divcall_ptx = HEADER
    ".visible .func (.param .b32 r) twice(.param .b32 a)\n{\n"
    "\t.reg .b32 %r<3>;\n"
    "\tld.param.b32 %r1, [a];\n"
    "\tadd.s32 %r2, %r1, %r1;\n"
    "\tmov.u32 %r1, 999;\n"
    "\tst.param.b32 [r], %r2;\n"
    "\tret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmov.u32 %r3, 5;\n"
    "\tsetp.ge.u32 %p1, %r1, 10;\n"
    "\t@%p1 bra $L_skip;\n"
    "\t{\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 [param0], %r1;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), twice, (param0);\n"
    "\tld.param.b32 %r3, [retval0];\n"
    "\t}\n"
    "$L_skip:\n"
    "\tadd.s32 %r4, %r3, %r1;\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], %r4;\n"
    "\tret;\n}\n";

static void test_divergent_call(void **state)
{
    (void)state;
    uint32_t out[32] = {0};
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(32);
    run_ok(divcall_ptx, "k", &o, args, 1);
    for (uint32_t t = 0; t < 32; t++)
        assert_int_equal(out[t], t < 10 ? 3 * t : 5 + t);
}

/* Indirect calls through a table of function addresses, different lanes
 * calling different functions, and brx.idx to one of three targets. */
static const char *indirect_ptx = HEADER
    ".visible .func (.param .b32 r) f0(.param .b32 a)\n{\n\t.reg .b32 %r<3>;\n"
    "\tld.param.b32 %r1, [a];\n\tadd.s32 %r2, %r1, 1000;\n\tst.param.b32 [r], %r2;\n\tret;\n}\n"
    ".visible .func (.param .b32 r) f1(.param .b32 a)\n{\n\t.reg .b32 %r<3>;\n"
    "\tld.param.b32 %r1, [a];\n\tadd.s32 %r2, %r1, 2000;\n\tst.param.b32 [r], %r2;\n\tret;\n}\n"
    ".global .align 8 .u64 table[2] = {f0, f1};\n"
    ".visible .entry k(.param .u64 out, .param .u64 out2)\n{\n"
    "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<10>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tld.param.u64 %rd8, [out2];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tand.b32 %r2, %r1, 1;\n"
    "\tmul.wide.u32 %rd2, %r2, 8;\n"
    "\tmov.u64 %rd3, table;\n"
    "\tadd.s64 %rd4, %rd3, %rd2;\n"
    "\tld.global.u64 %rd5, [%rd4];\n"
    "\t{\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 [param0], %r1;\n"
    "\t.param .b32 retval0;\n"
    "\tproto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
    "\tcall (retval0), %rd5, (param0), proto;\n"
    "\tld.param.b32 %r3, [retval0];\n"
    "\t}\n"
    "\tmul.wide.u32 %rd6, %r1, 4;\n"
    "\tadd.s64 %rd7, %rd1, %rd6;\n"
    "\tst.global.u32 [%rd7], %r3;\n"
    "\trem.u32 %r4, %r1, 3;\n"
    "\tts: .branchtargets $L_a, $L_b, $L_c;\n"
    "\tbrx.idx %r4, ts;\n"
    "$L_a:\n\tmov.u32 %r5, 10;\n\tbra.uni $L_end;\n"
    "$L_b:\n\tmov.u32 %r5, 20;\n\tbra.uni $L_end;\n"
    "$L_c:\n\tmov.u32 %r5, 30;\n"
    "$L_end:\n"
    "\tadd.s64 %rd9, %rd8, %rd6;\n"
    "\tst.global.u32 [%rd9], %r5;\n"
    "\tret;\n}\n";

static void test_indirect(void **state)
{
    (void)state;
    uint32_t out[33] = {0}, out2[33] = {0};
    harness_arg args[] = {HBUF(out, sizeof(out)), HBUF(out2, sizeof(out2))};
    harness_opts o = harness_one_cta(33);
    run_ok(indirect_ptx, "k", &o, args, 2);
    for (uint32_t t = 0; t < 33; t++) {
        assert_int_equal(out[t], t + (t % 2 ? 2000 : 1000));
        assert_int_equal(out2[t], 10 * (t % 3 + 1));
    }
}

static const char *trap_ptx = HEADER
    ".visible .entry k(.param .u32 n)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n"
    "\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 5;\n\t@%p1 trap;\n\tret;\n}\n";

static const char *spin_ptx = HEADER
    ".visible .entry k(.param .u32 n)\n{\n$L_spin:\n\tbra.uni $L_spin;\n}\n";

static void test_faults(void **state)
{
    (void)state;
    harness_arg args[] = {HVAL(0)};
    harness_opts o = harness_one_cta(64);
    o.grid = (mb_dim3){3, 2, 1};
    assert_int_equal(harness_run(trap_ptx, "k", &o, args, 1), MB_ERR_FAULT);
    assert_non_null(strstr(o.message, "test.ptx:10:"));
    assert_non_null(strstr(o.message, "kernel k, block (0,0,0), thread (5,0,0): trap instruction executed"));

    harness_opts b = harness_one_cta(32);
    b.max_warp_insts = 1000;
    assert_int_equal(harness_run(spin_ptx, "k", &b, args, 1), MB_ERR_FAULT);
    assert_non_null(strstr(b.message, "instruction budget exhausted"));
    assert_int_equal(b.stats.warp_insts, 1000);
}

static void test_launch_validation(void **state)
{
    (void)state;
    harness_arg args[] = {HVAL(0)};
    harness_opts o = harness_one_cta(2048);
    assert_int_equal(harness_run(trap_ptx, "k", &o, args, 1), MB_ERR_INVALID);
    assert_non_null(strstr(o.message, "is not a valid CTA shape"));
    o = harness_one_cta(32);
    o.grid = (mb_dim3){1, 70000, 1};
    assert_int_equal(harness_run(trap_ptx, "k", &o, args, 1), MB_ERR_INVALID);
    assert_non_null(strstr(o.message, "grid (1,70000,1) is out of range"));
    o = harness_one_cta(32);
    o.dynamic_shared = 1u << 30;
    assert_int_equal(harness_run(trap_ptx, "k", &o, args, 1), MB_ERR_LIMIT);
}

/* The same kernel on 1 and 3 host threads gives identical results. */
static void test_threads_identical(void **state)
{
    (void)state;
    uint32_t a[45], b[45];
    harness_arg args_a[] = {HBUF(a, sizeof(a))};
    harness_arg args_b[] = {HBUF(b, sizeof(b))};
    harness_opts o1 = harness_one_cta(45), o3 = harness_one_cta(45);
    o3.threads = 3;
    run_ok(loop_ptx, "k", &o1, args_a, 1);
    run_ok(loop_ptx, "k", &o3, args_b, 1);
    assert_memory_equal(a, b, sizeof(a));
    assert_int_equal(o1.stats.thread_insts, o3.stats.thread_insts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_divergent_loops),  cmocka_unit_test(test_early_exit),
        cmocka_unit_test(test_recursion),        cmocka_unit_test(test_divergent_call),
        cmocka_unit_test(test_indirect),         cmocka_unit_test(test_faults),
        cmocka_unit_test(test_launch_validation), cmocka_unit_test(test_threads_identical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
