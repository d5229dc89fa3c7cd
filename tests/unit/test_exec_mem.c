/* The memory family of the executor: ld/ldu/st of every width with sign and
 * zero extension, vectors (with sinks), .b128, kernel parameters, .func
 * parameters and return values through call sequences, .local arrays
 * through %SPL/%SP, shared memory (static, function-level, dynamic),
 * atomics (every operation, lane order, exact totals from many CTAs on two
 * host threads, floating-point adds and their flushing rules), cvta,
 * isspacep, the no-op hints and fences, fault reports, unsupported forms,
 * and a randomized differential test against a host model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "exec_harness.h"

#include <math.h>

#define HEADER ".version 8.8\n.target sm_90\n.address_size 64\n"

static void run_ok(const char *ptx, const char *kernel, harness_opts *o, harness_arg *args,
                   unsigned n)
{
    mb_status st = harness_run(ptx, kernel, o, args, n);
    if (st != MB_OK)
        fail_msg("run failed: %s", o->message);
}

static void expect_fault(const char *ptx, harness_opts *o, harness_arg *args, unsigned n,
                         const char *const *needles)
{
    mb_status st = harness_run(ptx, "k", o, args, n);
    if (st != MB_ERR_FAULT)
        fail_msg("expected a fault, got status %d: %s", (int)st, o->message);
    for (; *needles; needles++)
        if (!strstr(o->message, *needles))
            fail_msg("fault message lacks \"%s\": %s", *needles, o->message);
}

/* Line (1-based) of the first line of `ptx` containing `marker`. */
static int line_of(const char *ptx, const char *marker)
{
    const char *at = strstr(ptx, marker);
    int line = 1;
    for (const char *c = ptx; at && c < at; c++)
        line += *c == '\n';
    return at ? line : -1;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static void fill_random(void *p, size_t n)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = (uint8_t)rnd();
}

static uint16_t rd16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Per-thread prologue: %rd1 = in, %rd2 = out, %r1 = tid.x,
 * %rd4 = in + IN*tid, %rd6 = out + OUT*tid. */
#define PROLOGUE(IN, OUT)                                                                          \
    "\tld.param.u64 %rd1, [in];\n"                                                                 \
    "\tld.param.u64 %rd2, [out];\n"                                                                \
    "\tmov.u32 %r1, %tid.x;\n"                                                                     \
    "\tmul.wide.u32 %rd3, %r1, " #IN ";\n"                                                         \
    "\tadd.s64 %rd4, %rd1, %rd3;\n"                                                                \
    "\tmul.wide.u32 %rd5, %r1, " #OUT ";\n"                                                        \
    "\tadd.s64 %rd6, %rd2, %rd5;\n"

/* ------------------------------------------------------------ widths */

static const char *widths_ptx = HEADER
    ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
    "\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<20>;\n\t.reg .f32 %f<2>;\n\t.reg .b64 %rd<30>;\n"
    PROLOGUE(16, 128)
    "\tld.global.u8 %r2, [%rd4+1];\n"
    "\tld.global.s8 %r3, [%rd4+1];\n"
    "\tld.global.u16 %r4, [%rd4+2];\n"
    "\tld.global.s16 %r5, [%rd4+2];\n"
    "\tldu.global.u32 %r6, [%rd4+4];\n"
    "\tld.global.s8 %rd7, [%rd4+1];\n"
    "\tld.global.u8 %rd8, [%rd4+1];\n"
    "\tld.global.s16 %rd9, [%rd4+2];\n"
    "\tld.global.s32 %rd10, [%rd4+4];\n"
    "\tld.global.u32 %rd11, [%rd4+4];\n"
    "\tld.global.nc.u64 %rd12, [%rd4+8];\n"
    "\tld.global.s8 %rs1, [%rd4+1];\n"
    "\tld.global.b8 %rs2, [%rd4+1];\n"
    "\tld.volatile.global.f32 %f1, [%rd4+4];\n"
    "\tld.relaxed.gpu.global.b16 %r7, [%rd4+2];\n"
    "\tld.global.u16 %rd13, [%rd4+2];\n"
    "\tst.global.u32 [%rd6+0], %r2;\n"
    "\tst.global.u32 [%rd6+4], %r3;\n"
    "\tst.global.u32 [%rd6+8], %r4;\n"
    "\tst.global.u32 [%rd6+12], %r5;\n"
    "\tst.global.u32 [%rd6+16], %r6;\n"
    "\tst.global.u32 [%rd6+20], %r7;\n"
    "\tst.global.u64 [%rd6+24], %rd7;\n"
    "\tst.global.u64 [%rd6+32], %rd8;\n"
    "\tst.global.u64 [%rd6+40], %rd9;\n"
    "\tst.global.u64 [%rd6+48], %rd10;\n"
    "\tst.global.u64 [%rd6+56], %rd11;\n"
    "\tst.global.wb.u64 [%rd6+64], %rd12;\n"
    "\tst.global.u16 [%rd6+72], %rs1;\n"
    "\tst.global.u16 [%rd6+74], %rs2;\n"
    "\tst.global.u8 [%rd6+76], %r6;\n"
    "\tst.global.u8 [%rd6+77], %rd12;\n"
    "\tst.global.u16 [%rd6+78], %rd12;\n"
    "\tst.global.u32 [%rd6+80], %rd12;\n"
    "\tst.global.u16 [%rd6+84], %r6;\n"
    "\tst.global.u8 [%rd6+86], 0xAB;\n"
    "\tst.global.s8 [%rd6+87], -2;\n"
    "\tst.global.u16 [%rd6+88], 0x1234;\n"
    "\tst.global.s16 [%rd6+90], -3;\n"
    "\tst.global.f32 [%rd6+92], 0f3FC00000;\n"
    "\tst.global.u64 [%rd6+96], 0x0123456789ABCDEF;\n"
    "\tst.global.f64 [%rd6+104], 0d4000000000000000;\n"
    "\tst.release.gpu.global.f32 [%rd6+112], %f1;\n"
    "\tst.global.s32 [%rd6+116], -5;\n"
    "\tst.global.u64 [%rd6+120], %rd13;\n"
    "\tret;\n}\n";

static void test_widths(void **state)
{
    (void)state;
    enum { N = 45 };
    static uint8_t in[N * 16], out[N * 128];
    fill_random(in, sizeof(in));
    memset(out, 0x5A, sizeof(out));
    harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(N);
    run_ok(widths_ptx, "k", &o, args, 2);
    for (int t = 0; t < N; t++) {
        const uint8_t *i = in + 16 * t, *r = out + 128 * t;
        uint8_t b = i[1];
        uint16_t h = rd16(i + 2);
        uint32_t w = rd32(i + 4);
        uint64_t q = rd64(i + 8);
        assert_int_equal(rd32(r + 0), b);
        assert_int_equal(rd32(r + 4), (uint32_t)(int32_t)(int8_t)b);
        assert_int_equal(rd32(r + 8), h);
        assert_int_equal(rd32(r + 12), (uint32_t)(int32_t)(int16_t)h);
        assert_int_equal(rd32(r + 16), w);
        assert_int_equal(rd32(r + 20), h); /* .b16 into a 32-bit register: zero-extended */
        assert_int_equal(rd64(r + 24), (uint64_t)(int64_t)(int8_t)b);
        assert_int_equal(rd64(r + 32), b);
        assert_int_equal(rd64(r + 40), (uint64_t)(int64_t)(int16_t)h);
        assert_int_equal(rd64(r + 48), (uint64_t)(int64_t)(int32_t)w);
        assert_int_equal(rd64(r + 56), w);
        assert_int_equal(rd64(r + 64), q);
        assert_int_equal(rd16(r + 72), (uint16_t)(int16_t)(int8_t)b); /* s8 into a 16-bit register */
        assert_int_equal(rd16(r + 74), b);
        assert_int_equal(r[76], (uint8_t)w);
        assert_int_equal(r[77], (uint8_t)q);
        assert_int_equal(rd16(r + 78), (uint16_t)q);
        assert_int_equal(rd32(r + 80), (uint32_t)q);
        assert_int_equal(rd16(r + 84), (uint16_t)w);
        assert_int_equal(r[86], 0xAB);
        assert_int_equal(r[87], 0xFE);
        assert_int_equal(rd16(r + 88), 0x1234);
        assert_int_equal(rd16(r + 90), 0xFFFD);
        assert_int_equal(rd32(r + 92), 0x3FC00000u);
        assert_int_equal(rd64(r + 96), 0x0123456789ABCDEFull);
        assert_int_equal(rd64(r + 104), 0x4000000000000000ull);
        assert_int_equal(rd32(r + 112), w);
        assert_int_equal(rd32(r + 116), 0xFFFFFFFBu);
        assert_int_equal(rd64(r + 120), h);
    }
}

/* ------------------------------------------------------------ vectors */

static const char *vector_ptx = HEADER
    ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
    "\t.reg .b16 %rs<6>;\n\t.reg .b32 %r<20>;\n\t.reg .f32 %f<3>;\n\t.reg .b64 %rd<30>;\n"
    "\t.reg .b128 %q<2>;\n"
    PROLOGUE(32, 192)
    "\tld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];\n"
    "\tst.global.v4.u32 [%rd6], {%r5, %r4, %r3, %r2};\n"
    "\tld.global.v2.u64 {%rd7, %rd8}, [%rd4+16];\n"
    "\tst.global.v2.u64 [%rd6+16], {%rd8, %rd7};\n"
    "\tld.global.v4.u8 {%rs1, %rs2, %rs3, %rs4}, [%rd4+4];\n"
    "\tst.global.v4.u8 [%rd6+32], {%rs4, %rs3, %rs2, %rs1};\n"
    "\tld.global.v2.s16 {%r6, %r7}, [%rd4+8];\n"
    "\tst.global.v2.u32 [%rd6+40], {%r6, %r7};\n"
    "\tld.global.v2.f32 {%f1, _}, [%rd4+24];\n"
    "\tst.global.f32 [%rd6+48], %f1;\n"
    "\tld.global.v4.u32 {_, %r8, _, %r9}, [%rd4];\n"
    "\tst.global.v2.u32 [%rd6+56], {%r8, %r9};\n"
    "\tst.global.v2.u32 [%rd6+64], {1, 0xFFFFFFFF};\n"
    "\tst.global.v4.b16 [%rd6+72], {%rs1, 7, %rs2, 0x8000};\n"
    "\tld.global.v2.s8 {%rd13, %rd14}, [%rd4+30];\n"
    "\tst.global.v2.u64 [%rd6+80], {%rd13, %rd14};\n"
    "\tld.global.v4.u64 {%rd9, %rd10, %rd11, %rd12}, [%rd4];\n"
    "\tst.global.v4.u64 [%rd6+96], {%rd12, %rd11, %rd10, %rd9};\n"
    "\tld.global.b128 %q1, [%rd4+16];\n"
    "\tst.global.b128 [%rd6+128], %q1;\n"
    "\tld.global.v2.u16 {%r10, %r11}, [%rd4+12];\n"
    "\tst.global.v2.u16 [%rd6+144], {%r11, %r10};\n"
    "\tret;\n}\n";

static void test_vectors(void **state)
{
    (void)state;
    enum { N = 45 };
    static uint8_t in[N * 32], out[N * 192];
    fill_random(in, sizeof(in));
    memset(out, 0x5A, sizeof(out));
    harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(N);
    run_ok(vector_ptx, "k", &o, args, 2);
    for (int t = 0; t < N; t++) {
        const uint8_t *i = in + 32 * t, *r = out + 192 * t;
        for (int k = 0; k < 4; k++)
            assert_int_equal(rd32(r + 4 * k), rd32(i + 4 * (3 - k)));
        assert_int_equal(rd64(r + 16), rd64(i + 24));
        assert_int_equal(rd64(r + 24), rd64(i + 16));
        for (int k = 0; k < 4; k++)
            assert_int_equal(r[32 + k], i[4 + 3 - k]);
        assert_int_equal(rd32(r + 40), (uint32_t)(int32_t)(int16_t)rd16(i + 8));
        assert_int_equal(rd32(r + 44), (uint32_t)(int32_t)(int16_t)rd16(i + 10));
        assert_int_equal(rd32(r + 48), rd32(i + 24));
        assert_int_equal(rd32(r + 56), rd32(i + 4));
        assert_int_equal(rd32(r + 60), rd32(i + 12));
        assert_int_equal(rd32(r + 64), 1);
        assert_int_equal(rd32(r + 68), 0xFFFFFFFFu);
        assert_int_equal(rd16(r + 72), i[4]);
        assert_int_equal(rd16(r + 74), 7);
        assert_int_equal(rd16(r + 76), i[5]);
        assert_int_equal(rd16(r + 78), 0x8000);
        assert_int_equal(rd64(r + 80), (uint64_t)(int64_t)(int8_t)i[30]);
        assert_int_equal(rd64(r + 88), (uint64_t)(int64_t)(int8_t)i[31]);
        for (int k = 0; k < 4; k++)
            assert_int_equal(rd64(r + 96 + 8 * k), rd64(i + 8 * (3 - k)));
        assert_memory_equal(r + 128, i + 16, 16);
        assert_int_equal(rd16(r + 144), rd16(i + 14));
        assert_int_equal(rd16(r + 146), rd16(i + 12));
    }
}

/* ------------------------------------------------------- kernel params */

static const char *param_ptx = HEADER
    ".visible .entry k(.param .u64 out, .param .u32 a, .param .u8 b, .param .u64 c,\n"
    "\t.param .align 8 .b8 s[16])\n{\n"
    "\t.reg .b16 %rs<3>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd2, %r1, 64;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tld.param.u32 %r2, [a];\n"
    "\tld.param.s8 %r3, [b];\n"
    "\tld.param.u8 %r4, [b];\n"
    "\tld.param::entry.u64 %rd4, [c];\n"
    "\tld.param.u32 %r5, [s+4];\n"
    "\tld.param.v2.u32 {%r6, %r7}, [s];\n"
    "\tld.param.u16 %rs1, [s+2];\n"
    "\tld.param.b32 %r8, [s+8];\n"
    "\tld.param.s32 %rd5, [s+4];\n"
    "\tmov.u64 %rd6, 16;\n"
    "\tld.param.u32 %r9, [%rd6+4];\n"
    "\tst.global.u32 [%rd3], %r2;\n"
    "\tst.global.u32 [%rd3+4], %r3;\n"
    "\tst.global.u32 [%rd3+8], %r4;\n"
    "\tst.global.u64 [%rd3+16], %rd4;\n"
    "\tst.global.u32 [%rd3+24], %r5;\n"
    "\tst.global.v2.u32 [%rd3+32], {%r6, %r7};\n"
    "\tst.global.u16 [%rd3+40], %rs1;\n"
    "\tst.global.u32 [%rd3+44], %r8;\n"
    "\tst.global.u64 [%rd3+48], %rd5;\n"
    "\tst.global.u32 [%rd3+56], %r9;\n"
    "\tret;\n}\n";

static void test_kernel_params(void **state)
{
    (void)state;
    enum { N = 40 };
    static uint8_t out[N * 64];
    harness_arg args[] = {HBUF(out, sizeof(out)), HVAL(0xDEADBEEF), HVAL(0xF0),
                          HVAL(0x1122334455667788ull), HVAL(0xCAFEBABE12345678ull)};
    harness_opts o = harness_one_cta(N);
    run_ok(param_ptx, "k", &o, args, 5);
    for (int t = 0; t < N; t++) {
        const uint8_t *r = out + 64 * t;
        assert_int_equal(rd32(r), 0xDEADBEEFu);
        assert_int_equal(rd32(r + 4), 0xFFFFFFF0u);
        assert_int_equal(rd32(r + 8), 0xF0u);
        assert_int_equal(rd64(r + 16), 0x1122334455667788ull);
        assert_int_equal(rd32(r + 24), 0xCAFEBABEu);
        assert_int_equal(rd32(r + 32), 0x12345678u);
        assert_int_equal(rd32(r + 36), 0xCAFEBABEu);
        assert_int_equal(rd16(r + 40), 0x1234);
        assert_int_equal(rd32(r + 44), 0);
        assert_int_equal(rd64(r + 48), 0xFFFFFFFFCAFEBABEull);
        assert_int_equal(rd32(r + 56), 0x11223344u); /* [%rd6+4] = offset 20: c's high word */
    }
}

/* ------------------------------------------------------------- shared */

static const char *shared_ptx = HEADER
    ".shared .align 4 .b8 sm[256];\n"
    ".extern .shared .align 16 .b8 dyn[];\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.shared .align 8 .b8 fsm[64];\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<30>;\n\t.reg .b64 %rd<20>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd2, %r1, 32;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tmov.u32 %r2, sm;\n"
    "\tmul.lo.u32 %r3, %r1, 4;\n"
    "\tadd.u32 %r4, %r2, %r3;\n"
    "\tmul.lo.u32 %r5, %r1, 3;\n"
    "\tst.shared.u32 [%r4], %r5;\n"
    "\tmov.u32 %r6, fsm;\n"
    "\tadd.u32 %r7, %r6, %r1;\n"
    "\tst.shared::cta.u8 [%r7], %r1;\n"
    "\tmov.u32 %r8, dyn;\n"
    "\tadd.u32 %r9, %r8, %r3;\n"
    "\tst.shared.u32 [%r9], %r1;\n"
    "\tbar.sync 0;\n"
    "\tsub.u32 %r10, 63, %r1;\n"
    "\tmul.lo.u32 %r11, %r10, 4;\n"
    "\tadd.u32 %r12, %r2, %r11;\n"
    "\tld.shared.u32 %r13, [%r12];\n"
    "\tcvta.shared.u64 %rd4, sm;\n"
    "\tmul.wide.u32 %rd5, %r10, 4;\n"
    "\tadd.s64 %rd6, %rd4, %rd5;\n"
    "\tld.u32 %r14, [%rd6];\n"
    "\tadd.u32 %r15, %r6, %r10;\n"
    "\tld.shared.u8 %r16, [%r15];\n"
    "\tcvta.shared.u64 %rd7, dyn;\n"
    "\tadd.s64 %rd8, %rd7, %rd5;\n"
    "\tld.u32 %r17, [%rd8];\n"
    "\tld.shared.u32 %r18, [sm+8];\n"
    "\tld.shared.u8 %r19, [fsm+5];\n"
    "\tst.global.u32 [%rd3], %r13;\n"
    "\tst.global.u32 [%rd3+4], %r14;\n"
    "\tst.global.u32 [%rd3+8], %r16;\n"
    "\tst.global.u32 [%rd3+12], %r17;\n"
    "\tst.global.u32 [%rd3+16], %r8;\n"
    "\tst.global.u32 [%rd3+20], %r18;\n"
    "\tst.global.u32 [%rd3+24], %r19;\n"
    "\tst.u32 [%rd3+28], %r6;\n"
    "\tret;\n}\n";

static void test_shared(void **state)
{
    (void)state;
    enum { N = 64 };
    static uint32_t out[N * 8];
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(N);
    o.dynamic_shared = N * 4;
    run_ok(shared_ptx, "k", &o, args, 1);
    for (uint32_t t = 0; t < N; t++) {
        const uint32_t *r = out + 8 * t;
        assert_int_equal(r[0], (63 - t) * 3);
        assert_int_equal(r[1], (63 - t) * 3);
        assert_int_equal(r[2], 63 - t);
        assert_int_equal(r[3], 63 - t);
        assert_int_equal(r[4], 320); /* dynamic shared after 256 + 64 static bytes */
        assert_int_equal(r[5], 6);
        assert_int_equal(r[6], 5);
        assert_int_equal(r[7], 256); /* the function-level array follows the module's */
    }
}

/* ------------------------------------------------------ local arrays */

/* nvcc's pattern: %SPL = the depot's local address, %SP = its generic
 * address; a per-thread array written through one and read through the other. */
static const char *local_ptx = HEADER
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.local .align 8 .b8 __local_depot0[72];\n"
    "\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n"
    "\tmov.u64 %SPL, __local_depot0;\n"
    "\tcvta.local.u64 %SP, %SPL;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmul.lo.u32 %r3, %r1, 100;\n"
    "\tmov.u32 %r2, 0;\n"
    "$L_fill:\n"
    "\tmul.wide.u32 %rd2, %r2, 4;\n"
    "\tadd.s64 %rd3, %SPL, %rd2;\n"
    "\tadd.u32 %r4, %r3, %r2;\n"
    "\tst.local.u32 [%rd3], %r4;\n"
    "\tadd.u32 %r2, %r2, 1;\n"
    "\tsetp.lt.u32 %p1, %r2, 16;\n"
    "\t@%p1 bra $L_fill;\n"
    "\tand.b32 %r5, %r1, 15;\n"
    "\tmul.wide.u32 %rd4, %r5, 4;\n"
    "\tadd.s64 %rd5, %SP, %rd4;\n"
    "\tld.u32 %r6, [%rd5];\n"
    "\tld.local.u32 %r7, [__local_depot0+20];\n"
    "\tst.u32 [%SP+64], %r1;\n"
    "\tld.local.u32 %r8, [%SPL+64];\n"
    "\tst.local.u32 [__local_depot0+68], %r3;\n"
    "\tadd.u64 %rd6, %SP, 68;\n"
    "\tld.u32 %r9, [%rd6];\n"
    "\tld.local.v2.u32 {%r10, %r11}, [%SPL+8];\n"
    "\tmul.wide.u32 %rd7, %r1, 32;\n"
    "\tadd.s64 %rd8, %rd1, %rd7;\n"
    "\tst.global.v4.u32 [%rd8], {%r6, %r7, %r8, %r9};\n"
    "\tst.global.v2.u32 [%rd8+16], {%r10, %r11};\n"
    "\tst.global.u64 [%rd8+24], %SP;\n"
    "\tret;\n}\n";

static void test_local_array(void **state)
{
    (void)state;
    enum { N = 45 };
    static uint32_t out[N * 8];
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(N);
    run_ok(local_ptx, "k", &o, args, 1);
    for (uint32_t t = 0; t < N; t++) {
        const uint32_t *r = out + 8 * t;
        assert_int_equal(r[0], t * 100 + (t & 15));
        assert_int_equal(r[1], t * 100 + 5);
        assert_int_equal(r[2], t);
        assert_int_equal(r[3], t * 100);
        assert_int_equal(r[4], t * 100 + 2);
        assert_int_equal(r[5], t * 100 + 3);
        uint64_t sp;
        memcpy(&sp, r + 6, 8);
        assert_int_equal(sp, MB_LOCAL_WINDOW); /* the kernel's frame starts the stack */
    }
}

/* ------------------------------------------------- calls and frames */

/* A .func with two parameters and a return value, called through nvcc's
 * call sequence; it reads and writes the caller's local variable through a
 * generic pointer, uses its own local depot, and calls a second function. */
static const char *call_ptx = HEADER
    ".func (.param .b32 twice_ret) twice(.param .b32 twice_x)\n{\n"
    "\t.reg .b32 %r<4>;\n"
    "\tld.param.b32 %r1, [twice_x];\n"
    "\tadd.s32 %r2, %r1, %r1;\n"
    "\tst.param.b32 [twice_ret], %r2;\n"
    "\tret;\n}\n"
    ".visible .func (.param .b64 func_retval0) scale(.param .b32 scale_param_0, "
    ".param .b64 scale_param_1)\n{\n"
    "\t.local .align 8 .b8 __local_depot1[32];\n"
    "\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n"
    "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<8>;\n"
    "\tmov.u64 %SPL, __local_depot1;\n"
    "\tcvta.local.u64 %SP, %SPL;\n"
    "\tld.param.u32 %r1, [scale_param_0];\n"
    "\tld.param.u64 %rd1, [scale_param_1];\n"
    "\tld.u32 %r2, [%rd1];\n"
    "\tst.local.u32 [%SPL+4], %r2;\n"
    "\tld.u32 %r3, [%SP+4];\n"
    "\tadd.s32 %r4, %r3, %r1;\n"
    "\tst.u32 [%rd1], %r4;\n"
    "\t{\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 [param0+0], %r4;\n"
    "\t.param .b32 retval0;\n"
    "\tcall.uni (retval0), twice, (param0);\n"
    "\tld.param.b32 %r5, [retval0+0];\n"
    "\t}\n"
    "\tld.local.u32 %r6, [%SPL+4];\n"
    "\tadd.s32 %r7, %r5, %r6;\n"
    "\tmul.wide.s32 %rd2, %r7, 1000;\n"
    "\tst.param.b64 [func_retval0+0], %rd2;\n"
    "\tret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.local .align 4 .b8 __local_depot0[8];\n"
    "\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n"
    "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<10>;\n"
    "\tmov.u64 %SPL, __local_depot0;\n"
    "\tcvta.local.u64 %SP, %SPL;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tst.local.u32 [%SPL], %r1;\n"
    "\tst.local.u32 [%SPL+4], 77;\n"
    "\tadd.u64 %rd2, %SP, 0;\n"
    "\t{\n"
    "\t.param .b32 param0;\n"
    "\tst.param.b32 [param0+0], 5;\n"
    "\t.param .b64 param1;\n"
    "\tst.param.b64 [param1+0], %rd2;\n"
    "\t.param .b64 retval0;\n"
    "\tcall.uni (retval0), scale, (param0, param1);\n"
    "\tld.param.b64 %rd3, [retval0+0];\n"
    "\t}\n"
    "\tld.local.u32 %r2, [%SPL];\n"
    "\tld.local.u32 %r3, [%SPL+4];\n"
    "\tmul.wide.u32 %rd4, %r1, 16;\n"
    "\tadd.s64 %rd5, %rd1, %rd4;\n"
    "\tst.global.u64 [%rd5], %rd3;\n"
    "\tst.global.v2.u32 [%rd5+8], {%r2, %r3};\n"
    "\tret;\n}\n";

static void test_call_frames(void **state)
{
    (void)state;
    enum { N = 45 };
    static uint64_t out[N * 2];
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(N);
    run_ok(call_ptx, "k", &o, args, 1);
    for (uint32_t t = 0; t < N; t++) {
        uint64_t v = (t + 5) * 2 + t;
        assert_int_equal(out[2 * t], v * 1000);
        assert_int_equal((uint32_t)out[2 * t + 1], t + 5);
        assert_int_equal((uint32_t)(out[2 * t + 1] >> 32), 77);
    }
}

/* ------------------------------------------------------- cvta/isspacep */

static const char *space_ptx = HEADER
    ".global .align 4 .u32 gv = 41;\n"
    ".const .align 4 .u32 cv[2] = {7, 8};\n"
    ".shared .align 4 .b8 sm[64];\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.local .align 8 .b8 __local_depot0[16];\n"
    "\t.reg .pred %p<20>;\n\t.reg .b32 %r<30>;\n\t.reg .b64 %rd<30>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd2, %r1, 256;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tcvta.shared.u64 %rd4, sm+8;\n"
    "\tcvta.to.shared.u64 %rd5, %rd4;\n"
    "\tcvta.local.u64 %rd6, __local_depot0+4;\n"
    "\tcvta.to.local.u64 %rd7, %rd6;\n"
    "\tcvta.global.u64 %rd8, gv;\n"
    "\tcvta.to.global.u64 %rd9, %rd8;\n"
    "\tcvta.const.u64 %rd10, cv+4;\n"
    "\tcvta.to.const.u64 %rd11, %rd10;\n"
    "\tmov.u64 %rd12, gv;\n"
    "\tcvta.global.u64 %rd13, %rd12;\n"
    "\tcvta.shared.u32 %r2, sm+4;\n"
    "\tcvta.to.shared.u32 %r3, %r2;\n"
    "\tcvta.to.global.u64 %rd14, %rd3;\n"
    "\tld.u32 %r4, [%rd8];\n"
    "\tld.global.u32 %r5, [%rd9];\n"
    "\tld.u32 %r6, [%rd10];\n"
    "\tld.const.u32 %r7, [%rd11];\n"
    "\tld.const.u32 %r8, [cv];\n"
    "\tld.global.u32 %r9, [gv];\n"
    "\tst.shared.u32 [%rd5], %r1;\n"
    "\tld.u32 %r10, [%rd4];\n"
    "\tst.u32 [%rd6], %r1;\n"
    "\tld.local.u32 %r11, [%rd7];\n"
    "\tisspacep.shared %p1, %rd4;\n"
    "\tisspacep.local %p2, %rd4;\n"
    "\tisspacep.global %p3, %rd4;\n"
    "\tisspacep.shared %p4, %rd6;\n"
    "\tisspacep.local %p5, %rd6;\n"
    "\tisspacep.global %p6, %rd6;\n"
    "\tisspacep.global %p7, %rd8;\n"
    "\tisspacep.shared %p8, %rd8;\n"
    "\tisspacep.const %p9, %rd10;\n"
    "\tisspacep.const %p10, %rd8;\n"
    "\tisspacep.global %p11, %rd10;\n"
    "\tisspacep.param %p12, %rd8;\n"
    "\tisspacep.global %p13, %rd3;\n"
    "\tst.global.v2.u64 [%rd3], {%rd4, %rd5};\n"
    "\tst.global.v2.u64 [%rd3+16], {%rd6, %rd7};\n"
    "\tst.global.v2.u64 [%rd3+32], {%rd8, %rd9};\n"
    "\tst.global.v2.u64 [%rd3+48], {%rd10, %rd11};\n"
    "\tst.global.v2.u64 [%rd3+64], {%rd12, %rd13};\n"
    "\tst.global.v2.u32 [%rd3+80], {%r2, %r3};\n"
    "\tst.global.u64 [%rd3+88], %rd14;\n"
    "\tst.global.v4.u32 [%rd3+96], {%r4, %r5, %r6, %r7};\n"
    "\tst.global.v4.u32 [%rd3+112], {%r8, %r9, %r10, %r11};\n"
    "\tselp.u32 %r20, 1, 0, %p1;\n\tst.global.u8 [%rd3+128], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p2;\n\tst.global.u8 [%rd3+129], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p3;\n\tst.global.u8 [%rd3+130], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p4;\n\tst.global.u8 [%rd3+131], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p5;\n\tst.global.u8 [%rd3+132], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p6;\n\tst.global.u8 [%rd3+133], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p7;\n\tst.global.u8 [%rd3+134], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p8;\n\tst.global.u8 [%rd3+135], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p9;\n\tst.global.u8 [%rd3+136], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p10;\n\tst.global.u8 [%rd3+137], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p11;\n\tst.global.u8 [%rd3+138], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p12;\n\tst.global.u8 [%rd3+139], %r20;\n"
    "\tselp.u32 %r20, 1, 0, %p13;\n\tst.global.u8 [%rd3+140], %r20;\n"
    "\tret;\n}\n";

static void test_cvta_isspacep(void **state)
{
    (void)state;
    enum { N = 33 };
    static uint8_t out[N * 256];
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(N);
    run_ok(space_ptx, "k", &o, args, 1);
    for (uint32_t t = 0; t < N; t++) {
        const uint8_t *r = out + 256 * t;
        assert_int_equal(rd64(r), MB_SHARED_WINDOW + 8);
        assert_int_equal(rd64(r + 8), 8);
        assert_int_equal(rd64(r + 16), MB_LOCAL_WINDOW + 4);
        assert_int_equal(rd64(r + 24), 4);
        uint64_t gv = rd64(r + 32);
        assert_true(gv >= MB_GLOBAL_BASE);
        assert_int_equal(rd64(r + 40), gv);
        uint64_t cv = rd64(r + 48);
        assert_true(cv >= MB_GLOBAL_BASE);
        assert_int_equal(rd64(r + 56), cv);
        assert_int_equal(rd64(r + 64), gv);
        assert_int_equal(rd64(r + 72), gv);
        assert_int_equal(rd32(r + 80), 4); /* (uint32_t)(MB_SHARED_WINDOW + 4) */
        assert_int_equal(rd32(r + 84), 4);
        assert_int_equal(rd64(r + 88), rd64(out + 88) + 256 * t); /* identity on global addresses */
        assert_int_equal(rd32(r + 96), 41);
        assert_int_equal(rd32(r + 100), 41);
        assert_int_equal(rd32(r + 104), 8);
        assert_int_equal(rd32(r + 108), 8);
        assert_int_equal(rd32(r + 112), 7);
        assert_int_equal(rd32(r + 116), 41);
        assert_int_equal(rd32(r + 124), t);
        static const uint8_t preds[13] = {1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
        for (int i = 0; i < 13; i++)
            if (r[128 + i] != preds[i])
                fail_msg("thread %u: isspacep #%d gave %u", t, i + 1, r[128 + i]);
    }
    /* all lanes raced on sm+8: one of them wrote it */
    assert_true(rd32(out + 120) < N);
}

/* ------------------------------------------------------------- atomics */

/* Host references for the floating-point atomic adds, computed differently
 * from the executor (in double, rounded with rint). */
static float bits_f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t f_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint32_t ref_add_f32(uint32_t a, uint32_t b, int ftz)
{
    if (ftz) {
        if ((a & 0x7F800000u) == 0)
            a &= 0x80000000u;
        if ((b & 0x7F800000u) == 0)
            b &= 0x80000000u;
    }
    double s = (double)bits_f(a) + (double)bits_f(b);
    if (isnan(s))
        return 0x7FFFFFFFu;
    uint32_t r = f_bits((float)s);
    if (ftz && (r & 0x7F800000u) == 0)
        r &= 0x80000000u;
    return r;
}

static uint64_t ref_add_f64(uint64_t a, uint64_t b)
{
    double x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    double s = x + y;
    if (isnan(s))
        return 0x7FFFFFFFFFFFFFFFull;
    uint64_t r;
    memcpy(&r, &s, 8);
    return r;
}

static double ref_f16_val(uint32_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Rounds v to a binary format with `p` significand bits, minimum normal
 * exponent emin and maximum finite value `max`, returning the bits. */
static uint32_t ref_round(double v, int p, int emin, int ebias, int mbits, double maxv, uint32_t nan)
{
    if (isnan(v))
        return nan;
    uint32_t sign = signbit(v) ? 1u << (mbits + (ebias == 15 ? 5 : 8)) : 0;
    double a = fabs(v);
    /* overflow threshold: max + half an ulp of max rounds (to even) to infinity */
    double half_ulp = ldexp(1.0, ilogb(maxv) - p);
    uint32_t inf = ((uint32_t)(2 * ebias + 1) << mbits);
    if (a >= maxv + half_ulp)
        return sign | inf;
    if (a < ldexp(1.0, emin)) {
        double q = rint(ldexp(a, p - 1 - emin));
        return sign | (uint32_t)q;
    }
    int e = ilogb(a);
    double q = rint(ldexp(a, p - 1 - e));
    if (q == ldexp(1.0, p)) {
        q /= 2;
        e++;
    }
    return sign | ((uint32_t)(e + ebias) << mbits) | ((uint32_t)q - (1u << (p - 1)));
}

static uint32_t ref_add_f16(uint32_t a, uint32_t b)
{
    return ref_round(ref_f16_val(a & 0xFFFF) + ref_f16_val(b & 0xFFFF), 11, -14, 15, 10, 65504.0,
                     0x7FFF);
}

static uint32_t ref_add_bf16(uint32_t a, uint32_t b)
{
    double x = bits_f((a & 0xFFFF) << 16), y = bits_f((b & 0xFFFF) << 16);
    return ref_round(x + y, 8, -126, 127, 7, (double)bits_f(0x7F7F0000u), 0x7FFF);
}

typedef enum { A_ADD, A_AND, A_OR, A_XOR, A_EXCH, A_CAS, A_MIN, A_MAX, A_INC, A_DEC } aop;
static const char *const aop_name[] = {"add", "and", "or", "xor", "exch", "cas", "min", "max", "inc", "dec"};

/* New memory value of an atomic on `bits`-wide data; `kind` 'u','s','b','f'
 * or 'h' (f16), 'g' (bf16), 'H' (f16x2), 'G' (bf16x2). */
static uint64_t ref_atom(aop op, char kind, unsigned bits, uint64_t o, uint64_t b, uint64_t c,
                         int ftz)
{
    uint64_t m = bits == 64 ? ~0ull : (1ull << bits) - 1;
    o &= m;
    b &= m;
    c &= m;
    int64_t so = bits == 64 ? (int64_t)o : (int64_t)(int32_t)(uint32_t)o;
    int64_t sb = bits == 64 ? (int64_t)b : (int64_t)(int32_t)(uint32_t)b;
    switch (op) {
    case A_ADD:
        if (kind == 'f')
            return bits == 32 ? ref_add_f32((uint32_t)o, (uint32_t)b, ftz) : ref_add_f64(o, b);
        if (kind == 'h')
            return ref_add_f16((uint32_t)o, (uint32_t)b);
        if (kind == 'g')
            return ref_add_bf16((uint32_t)o, (uint32_t)b);
        if (kind == 'H')
            return ref_add_f16((uint32_t)o, (uint32_t)b) |
                   (uint64_t)ref_add_f16((uint32_t)o >> 16, (uint32_t)b >> 16) << 16;
        if (kind == 'G')
            return ref_add_bf16((uint32_t)o, (uint32_t)b) |
                   (uint64_t)ref_add_bf16((uint32_t)o >> 16, (uint32_t)b >> 16) << 16;
        return (o + b) & m;
    case A_AND: return o & b;
    case A_OR: return o | b;
    case A_XOR: return o ^ b;
    case A_EXCH: return b;
    case A_CAS: return o == b ? c : o;
    case A_MIN: return kind == 's' ? (so < sb ? o : b) : (o < b ? o : b);
    case A_MAX: return kind == 's' ? (so > sb ? o : b) : (o > b ? o : b);
    case A_INC: return o >= b ? 0 : o + 1;
    case A_DEC: return (o == 0 || o > b) ? b : o - 1;
    }
    return 0;
}

/* One atomic per lane on its own slot: lane t applies `op` to A[t] with
 * B[t] (and C[t]); D[t] receives the old value. Space 'g' global, 's'
 * shared, 'G' generic->global, 'S' generic->shared; red when `red`. */
static void run_atom_table(aop op, const char *type, char kind, unsigned bits, char space, int red,
                           const uint64_t *A, const uint64_t *B, const uint64_t *C, unsigned n)
{
    unsigned w = bits / 8;
    const char *reg = bits == 16 ? "%h" : bits == 32 ? "%v" : "%x";
    char ptx[4096], instr[256], addr[32];
    const char *sp = space == 'g' ? ".global" : space == 's' ? ".shared" : "";
    snprintf(addr, sizeof(addr), "%s", space == 'g' || space == 'G' ? "%rd4" : space == 's' ? "%r3" : "%rd9");
    if (red)
        snprintf(instr, sizeof(instr), "red%s.%s%s.%s [%s], %s1;", sp, aop_name[op],
                 kind == 'h' || kind == 'g' || kind == 'H' || kind == 'G' ? ".noftz" : "", type,
                 addr, reg);
    else
        snprintf(instr, sizeof(instr), "atom%s.%s%s.%s %s3, [%s], %s1%s%s2;", sp, aop_name[op],
                 kind == 'h' || kind == 'g' || kind == 'H' || kind == 'G' ? ".noftz" : "", type, reg,
                 addr, reg, op == A_CAS ? ", " : "", op == A_CAS ? reg : "");
    if (!red && op != A_CAS) { /* drop the dangling "2" */
        char *two = strstr(instr, "2;");
        if (two)
            memmove(two, two + 1, strlen(two));
    }
    snprintf(ptx, sizeof(ptx),
             HEADER ".shared .align 8 .b8 sh[512];\n"
             ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
             "\t.reg .b16 %%h<4>;\n\t.reg .b32 %%v<4>;\n\t.reg .b64 %%x<4>;\n"
             "\t.reg .b32 %%r<10>;\n\t.reg .b64 %%rd<12>;\n"
             "\tld.param.u64 %%rd1, [in];\n\tld.param.u64 %%rd2, [out];\n"
             "\tmov.u32 %%r1, %%tid.x;\n"
             "\tmul.wide.u32 %%rd3, %%r1, %u;\n"
             "\tadd.s64 %%rd4, %%rd1, %%rd3;\n"
             "\tadd.s64 %%rd5, %%rd2, %%rd3;\n"
             "\tmov.u32 %%r2, sh;\n\tmul.lo.u32 %%r4, %%r1, %u;\n\tadd.u32 %%r3, %%r2, %%r4;\n"
             "\tcvt.u64.u32 %%rd8, %%r3;\n\tcvta.shared.u64 %%rd9, %%rd8;\n"
             "\tld.global.b%u %s0, [%%rd4];\n"
             "\tst.shared.b%u [%%r3], %s0;\n"
             "\tld.global.b%u %s1, [%%rd4+%u];\n"
             "\tld.global.b%u %s2, [%%rd4+%u];\n"
             "\tmov.b%u %s3, 0;\n"
             "\t%s\n"
             "\tld.shared.b%u %s0, [%%r3];\n"
             "\tst.global.b%u [%%rd5], %s3;\n"
             "\tst.global.b%u [%%rd5+%u], %s0;\n"
             "\tret;\n}\n",
             w, w, bits, reg, bits, reg, bits, reg, n * w, bits, reg, 2 * n * w, bits, reg,
             instr, bits, reg, bits, reg, bits, n * w, reg);
    if (space == 'g' || space == 'G') {
        /* global: the final memory is the input slot itself: copy it at the end */
        char *p = strstr(ptx, "\tld.shared.b");
        char *q = strstr(p, "\n");
        char tail[1024];
        snprintf(tail, sizeof(tail), "\tld.global.b%u %s0, [%%rd4];%s", bits, reg, q);
        strcpy(p, tail);
    }
    uint8_t *in = calloc(3 * n, w), *out = calloc(2 * n, w);
    for (unsigned i = 0; i < n; i++) {
        memcpy(in + i * w, &A[i], w);
        memcpy(in + (n + i) * w, &B[i], w);
        memcpy(in + (2 * n + i) * w, &C[i], w);
    }
    harness_arg args[] = {HBUF(in, 3 * n * w), HBUF(out, 2 * n * w)};
    harness_opts o = harness_one_cta(n);
    mb_status st = harness_run(ptx, "k", &o, args, 2);
    if (st != MB_OK)
        fail_msg("%s: %s\n%s", instr, o.message, ptx);
    int ftz = space == 'g' || space == 'G';
    for (unsigned i = 0; i < n; i++) {
        uint64_t d = 0, mem = 0;
        memcpy(&d, out + i * w, w);
        memcpy(&mem, out + (n + i) * w, w);
        uint64_t want = ref_atom(op, kind, bits, A[i], B[i], C[i], ftz);
        uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
        if (mem != want || (!red && d != (A[i] & mask)))
            fail_msg("%s lane %u: a=%#llx b=%#llx c=%#llx: old %#llx (want %#llx), memory %#llx "
                     "(want %#llx)",
                     instr, i, (unsigned long long)A[i], (unsigned long long)B[i],
                     (unsigned long long)C[i], (unsigned long long)d,
                     (unsigned long long)(red ? 0 : A[i] & mask), (unsigned long long)mem,
                     (unsigned long long)want);
    }
    free(in);
    free(out);
}

static void test_atomic_ops(void **state)
{
    (void)state;
    enum { N = 45 };
    uint64_t A[N], B[N], C[N];
    static const uint64_t edge[] = {0, 1, 5, 6, 9, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
                                    0x7FFFFFFFFFFFFFFFull, 0x8000000000000000ull, ~0ull};
    for (unsigned i = 0; i < N; i++) {
        A[i] = i < 11 ? edge[i] : i < 22 ? edge[i - 11] : rnd();
        B[i] = i < 11 ? edge[(i * 3) % 11] : i < 22 ? edge[i - 11] : rnd();
        C[i] = rnd();
        if (i % 5 == 0) /* cas matches */
            B[i] = A[i];
        if (i >= 33 && i < 39) { /* inc/dec around the bound */
            A[i] = 10 + i % 3;
            B[i] = 11;
        }
    }
    static const struct {
        const char *type;
        char kind;
        unsigned bits;
    } ints[] = {{"u32", 'u', 32}, {"s32", 's', 32}, {"b32", 'b', 32},
                {"u64", 'u', 64}, {"s64", 's', 64}, {"b64", 'b', 64}};
    const char spaces[] = {'g', 's', 'G', 'S'};
    for (size_t t = 0; t < sizeof(ints) / sizeof(ints[0]); t++)
        for (int op = A_ADD; op <= A_DEC; op++) {
            int bitop = op == A_AND || op == A_OR || op == A_XOR || op == A_EXCH || op == A_CAS;
            if (bitop != (ints[t].kind == 'b') && !(op == A_ADD && ints[t].kind == 's'))
                continue;
            if ((op == A_INC || op == A_DEC) && ints[t].kind == 's')
                continue;
            for (int s = 0; s < 4; s++) {
                run_atom_table((aop)op, ints[t].type, ints[t].kind, ints[t].bits, spaces[s], 0, A,
                               B, C, N);
                if (op != A_CAS && op != A_EXCH)
                    run_atom_table((aop)op, ints[t].type, ints[t].kind, ints[t].bits, spaces[s], 1,
                                   A, B, C, N);
            }
        }
    run_atom_table(A_CAS, "b16", 'b', 16, 'g', 0, A, B, C, N);
    run_atom_table(A_CAS, "b16", 'b', 16, 's', 0, A, B, C, N);
}

/* Floating-point adds: rounding, NaN, infinities, and subnormals flushed on
 * global memory only (f32); the half types never flush. */
static void test_atomic_float(void **state)
{
    (void)state;
    enum { N = 40 };
    uint64_t A[N], B[N], C[N] = {0};
    static const uint32_t f32[] = {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF,
                                   0x00800000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000,
                                   0x7FC00000, 0x7F7FFFFF, 0x33800000, 0x4B800000};
    for (unsigned i = 0; i < N; i++) {
        A[i] = i < 14 ? f32[i] : (uint32_t)rnd();
        B[i] = i < 14 ? f32[(i * 5 + 3) % 14] : i < 28 ? f32[i - 14] : (uint32_t)rnd();
    }
    A[0] = 0x00000001; /* subnormal + subnormal */
    B[0] = 0x00000001;
    A[1] = 0x7F800000; /* inf + -inf */
    B[1] = 0xFF800000;
    for (int s = 0; s < 4; s++) {
        run_atom_table(A_ADD, "f32", 'f', 32, "gsGS"[s], 0, A, B, C, N);
        run_atom_table(A_ADD, "f32", 'f', 32, "gsGS"[s], 1, A, B, C, N);
    }
    for (unsigned i = 0; i < N; i++) {
        A[i] = rnd();
        B[i] = rnd();
    }
    A[0] = 0x7FF0000000000000ull;
    B[0] = 0xFFF0000000000000ull;
    A[1] = 1;
    B[1] = 1;
    run_atom_table(A_ADD, "f64", 'f', 64, 'g', 0, A, B, C, N);
    run_atom_table(A_ADD, "f64", 'f', 64, 's', 0, A, B, C, N);
    run_atom_table(A_EXCH, "f32", 'b', 32, 'g', 0, A, B, C, N);
    static const uint16_t h[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00,
                                 0x7C00, 0xFC00, 0x7E00, 0x7BFF, 0x7BFE, 0x1400};
    for (unsigned i = 0; i < N; i++) {
        A[i] = i < 14 ? h[i] : (uint16_t)rnd();
        B[i] = i < 14 ? h[(i * 5 + 3) % 14] : i < 28 ? h[i - 14] : (uint16_t)rnd();
    }
    A[0] = 0x7BFF; /* 65504 + 16 = 65520: ties to even, overflows to infinity */
    B[0] = 0x4C00;
    A[1] = 0x3C00; /* 1 + 2^-24: rounds back to 1 */
    B[1] = 0x0001;
    for (int s = 0; s < 2; s++) {
        run_atom_table(A_ADD, "f16", 'h', 16, "gs"[s], 0, A, B, C, N);
        run_atom_table(A_ADD, "bf16", 'g', 16, "gs"[s], 0, A, B, C, N);
    }
    for (unsigned i = 0; i < N; i++) {
        A[i] = (uint32_t)rnd();
        B[i] = (uint32_t)rnd();
    }
    A[2] = 0x3C000001; /* halves: (1 + 2^-24 | f16 min subnormal) */
    B[2] = 0x00013C00;
    run_atom_table(A_ADD, "f16x2", 'H', 32, 'g', 0, A, B, C, N);
    run_atom_table(A_ADD, "bf16x2", 'G', 32, 'S', 1, A, B, C, N);
}

/* Within a warp atomics apply in ascending lane order; guards select lanes. */
static const char *order_ptx = HEADER
    ".shared .align 8 .b8 sc[16];\n"
    ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<20>;\n"
    PROLOGUE(0, 48)
    "\tand.b32 %r9, %r1, 1;\n"
    "\tsetp.eq.u32 %p1, %r9, 1;\n"
    "\tatom.global.add.u32 %r2, [%rd1], 1;\n"
    "\tatom.global.exch.b32 %r3, [%rd1+4], %r1;\n"
    "\tatom.shared.add.u32 %r4, [sc], 2;\n"
    "\tatom.shared.inc.u32 %r5, [sc+4], 9;\n"
    "\tatom.dec.u32 %r6, [%rd1+8], 9;\n"
    "\tadd.u32 %r10, %r1, 1;\n"
    "\tatom.relaxed.gpu.global.cas.b32 %r7, [%rd1+12], %r1, %r10;\n"
    "\tatom.global.max.u32 %r8, [%rd1+16], %r1;\n"
    "\t@%p1 red.global.add.u32 [%rd1+20], %r1;\n"
    "\t@!%p1 atom.global.add.u64 %rd7, [%rd1+24], 3;\n"
    "\tld.shared.v2.u32 {%r11, %r12}, [sc];\n"
    "\tst.global.v4.u32 [%rd6], {%r2, %r3, %r4, %r5};\n"
    "\tst.global.v4.u32 [%rd6+16], {%r6, %r7, %r8, %r11};\n"
    "\t@!%p1 st.global.u64 [%rd6+32], %rd7;\n"
    "\tret;\n}\n";

static void test_atomic_lane_order(void **state)
{
    (void)state;
    enum { N = 32 };
    uint32_t in[8] = {100, 555, 3, 0, 10, 0, 0, 0};
    static uint32_t out[N * 12];
    memset(out, 0, sizeof(out));
    harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(N);
    run_ok(order_ptx, "k", &o, args, 2);
    uint32_t dec = 3, mx = 10;
    uint64_t acc = 0;
    for (uint32_t l = 0; l < N; l++) {
        const uint32_t *r = out + 12 * l;
        assert_int_equal(r[0], 100 + l);
        assert_int_equal(r[1], l == 0 ? 555 : l - 1);
        assert_int_equal(r[2], 2 * l);
        assert_int_equal(r[3], l % 10);
        assert_int_equal(r[4], dec);
        dec = (dec == 0 || dec > 9) ? 9 : dec - 1;
        assert_int_equal(r[5], l);
        assert_int_equal(r[6], mx);
        mx = l > mx ? l : mx;
        assert_int_equal(r[7], 64);
        uint64_t got;
        memcpy(&got, r + 8, 8);
        if (l % 2 == 0) {
            assert_int_equal(got, acc); /* even lanes, in order */
            acc += 3;
        } else {
            assert_int_equal(got, 0); /* guarded off: no store */
        }
    }
    assert_int_equal(in[0], 132);
    assert_int_equal(in[1], 31);
    assert_int_equal(in[2], dec);
    assert_int_equal(in[3], 32);
    assert_int_equal(in[4], 31);
    assert_int_equal(in[5], 16 * 16); /* sum of odd lanes 1 + 3 + ... + 31 */
    uint64_t total;
    memcpy(&total, in + 6, 8);
    assert_int_equal(total, acc);
}

/* Many CTAs on two host threads: integer atomics give exact totals, and
 * value-returning atomics hand out each old value exactly once. */
static const char *many_ptx = HEADER
    ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<30>;\n\t.reg .b64 %rd<30>;\n"
    "\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n"
    "\tmul.lo.u32 %r4, %r2, %r3;\n\tadd.u32 %r5, %r4, %r1;\n"
    "\tatom.global.add.u32 %r6, [%rd1], 1;\n"
    "\tcvt.u64.u32 %rd3, %r5;\n"
    "\tred.global.add.u64 [%rd1+64], %rd3;\n"
    "\tatom.global.inc.u32 %r7, [%rd1+4], 1000;\n"
    "\tred.global.dec.u32 [%rd1+8], 1000;\n"
    "\tsub.s32 %r9, %r5, 5000;\n"
    "\tred.global.max.s32 [%rd1+12], %r9;\n"
    "\tred.global.min.s32 [%rd1+16], %r9;\n"
    "\tand.b32 %r10, %r5, 31;\n\tshl.b32 %r11, 1, %r10;\n"
    "\tred.global.or.b32 [%rd1+20], %r11;\n"
    "\tmul.lo.u32 %r12, %r5, 2654435761;\n"
    "\tred.global.xor.b32 [%rd1+24], %r12;\n"
    "\tred.global.add.f32 [%rd1+28], 0f3F800000;\n"
    "\tnot.b32 %r13, %r11;\n"
    "\tred.global.and.b32 [%rd1+32], %r13;\n"
    "\tred.global.add.f64 [%rd1+72], 0d3FE0000000000000;\n"
    "\tmul.wide.u32 %rd4, %r5, %r5;\n"
    "\tred.global.max.u64 [%rd1+80], %rd4;\n"
    "\tred.global.min.u64 [%rd1+88], %rd4;\n"
    "\tand.b32 %r14, %r5, 255;\n\tmul.wide.u32 %rd6, %r14, 4;\n\tadd.s64 %rd7, %rd1, %rd6;\n"
    "\tadd.u32 %r15, %r5, 1;\n"
    "\tatom.global.cas.b32 %r16, [%rd7+128], 0, %r15;\n"
    "\tatom.exch.b32 %r17, [%rd1+36], %r15;\n"
    "\tmul.wide.u32 %rd8, %r5, 16;\n\tadd.s64 %rd9, %rd2, %rd8;\n"
    "\tst.global.v4.u32 [%rd9], {%r6, %r16, %r17, %r7};\n"
    "\tret;\n}\n";

static void test_atomic_many_ctas(void **state)
{
    (void)state;
    enum { CTAS = 64, T = 128, N = CTAS * T };
    static uint8_t in[128 + 1024];
    static uint32_t out[N * 4];
    memset(in, 0, sizeof(in));
    uint32_t ones = 0xFFFFFFFFu;
    uint64_t big = ~0ull;
    memcpy(in + 32, &ones, 4);
    memcpy(in + 88, &big, 8);
    harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(T);
    o.grid = (mb_dim3){CTAS, 1, 1};
    o.threads = 2;
    run_ok(many_ptx, "k", &o, args, 2);
    assert_int_equal(o.stats.ctas, CTAS);
    assert_int_equal(rd32(in), N);
    assert_int_equal(rd64(in + 64), (uint64_t)N * (N - 1) / 2);
    assert_int_equal(rd32(in + 4), N % 1001);
    assert_int_equal(rd32(in + 8), (1001 - N % 1001) % 1001);
    assert_int_equal((int32_t)rd32(in + 12), N - 1 - 5000);
    assert_int_equal((int32_t)rd32(in + 16), -5000);
    assert_int_equal(rd32(in + 20), 0xFFFFFFFFu);
    uint32_t x = 0;
    for (uint32_t g = 0; g < N; g++)
        x ^= g * 2654435761u;
    assert_int_equal(rd32(in + 24), x);
    assert_int_equal(rd32(in + 28), f_bits((float)N));
    assert_int_equal(rd32(in + 32), 0);
    double half = N * 0.5;
    uint64_t hb;
    memcpy(&hb, &half, 8);
    assert_int_equal(rd64(in + 72), hb);
    assert_int_equal(rd64(in + 80), (uint64_t)(N - 1) * (N - 1));
    assert_int_equal(rd64(in + 88), 0);
    /* tickets and incs: each old value exactly once */
    static uint8_t seen[N], seen_inc[1001], seen_exch[N + 1];
    memset(seen, 0, sizeof(seen));
    memset(seen_inc, 0, sizeof(seen_inc));
    memset(seen_exch, 0, sizeof(seen_exch));
    uint32_t inc_count[1001] = {0};
    for (uint32_t g = 0; g < N; g++) {
        uint32_t t = out[4 * g];
        assert_true(t < N);
        assert_false(seen[t]);
        seen[t] = 1;
        assert_true(out[4 * g + 3] <= 1000);
        inc_count[out[4 * g + 3]]++;
        uint32_t e = out[4 * g + 2];
        assert_true(e <= N);
        assert_false(seen_exch[e]);
        seen_exch[e] = 1;
    }
    for (uint32_t v = 0; v <= 1000; v++) /* the inc sequence 0, 1, ..., 1000, 0, 1, ... */
        assert_int_equal(inc_count[v], N / 1001 + (v < N % 1001));
    uint32_t final_exch = rd32(in + 36);
    assert_true(final_exch >= 1 && final_exch <= N);
    assert_false(seen_exch[final_exch]); /* the last value stays in memory */
    /* cas: one winner per slot */
    for (uint32_t s = 0; s < 256; s++) {
        uint32_t winner = rd32(in + 128 + 4 * s);
        assert_true(winner >= 1 && ((winner - 1) & 255) == s);
        uint32_t zeros = 0;
        for (uint32_t g = s; g < N; g += 256) {
            uint32_t old = out[4 * g + 1];
            if (old == 0) {
                zeros++;
                assert_int_equal(g + 1, winner);
            } else {
                assert_int_equal(old, winner);
            }
        }
        assert_int_equal(zeros, 1);
    }
}

/* ------------------------------------------------------------- faults */

static const char *oob_load_ptx = HEADER
    ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
    "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<10>;\n"
    PROLOGUE(4, 4)
    "\tld.global.u32 %r2, [%rd4]; // LOAD\n"
    "\tst.global.u32 [%rd6], %r2;\n"
    "\tret;\n}\n";

/* gtid = ctaid.x * 64 + linear tid; out[gtid] = 1 */
static const char *oob_store_ptx = HEADER
    ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
    "\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<10>;\n"
    "\tld.param.u64 %rd2, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %tid.y;\n\tmov.u32 %r3, %tid.z;\n"
    "\tmov.u32 %r4, %ntid.x;\n\tmov.u32 %r5, %ntid.y;\n\tmov.u32 %r7, %ctaid.x;\n"
    "\tmul.lo.u32 %r6, %r3, %r5;\n\tadd.u32 %r6, %r6, %r2;\n\tmul.lo.u32 %r6, %r6, %r4;\n"
    "\tadd.u32 %r6, %r6, %r1;\n\tmul.lo.u32 %r8, %r7, 64;\n\tadd.u32 %r9, %r8, %r6;\n"
    "\tmul.wide.u32 %rd3, %r9, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n"
    "\tst.global.u32 [%rd4], 1; // STORE\n"
    "\tret;\n}\n";

/* One faulting instruction per kernel, selected by a text substitution. */
static char *single_insn_kernel(const char *insn)
{
    static char buf[2048];
    snprintf(buf, sizeof(buf), "%s%s // FAULT\n\tret;\n}\n",
             HEADER ".shared .align 4 .b8 sm[128];\n"
             ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
             "\t.local .align 4 .b8 __local_depot0[16];\n"
             "\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n"
             "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<10>;\n"
             PROLOGUE(4, 4)
             "\tmov.u64 %SPL, __local_depot0;\n\tcvta.local.u64 %SP, %SPL;\n"
             "\tmov.u32 %r5, sm;\n\tmul.lo.u32 %r6, %r1, 4;\n\tadd.u32 %r7, %r5, %r6;\n"
             "\tmov.u64 %rd7, 64;\n\t",
             insn);
    return buf;
}

static void test_faults(void **state)
{
    (void)state;
    static uint32_t in[256], out[256];
    harness_arg args[] = {HBUF(in, 160), HBUF(out, sizeof(out))};

    harness_opts o = harness_one_cta(45);
    char where[64];
    snprintf(where, sizeof(where), "test.ptx:%d", line_of(oob_load_ptx, "// LOAD"));
    const char *load[] = {"kernel k, block (0,0,0), thread (40,0,0): out-of-bounds global load of 4 bytes",
                          "(0 bytes past the end of 'arg0'", where, NULL};
    expect_fault(oob_load_ptx, &o, args, 2, load);

    /* a store fault in block (1,0,0) at thread (3,2,0): gtid 64 + 19 = 83 */
    harness_arg sargs[] = {HVAL(0), HBUF(out, 83 * 4)};
    o = harness_one_cta(1);
    o.block = (mb_dim3){8, 4, 2};
    o.grid = (mb_dim3){3, 1, 1};
    snprintf(where, sizeof(where), "test.ptx:%d", line_of(oob_store_ptx, "// STORE"));
    const char *store[] = {"kernel k, block (1,0,0), thread (3,2,0): out-of-bounds global store of 4 bytes",
                           "0 bytes past the end of 'arg1'", where, NULL};
    expect_fault(oob_store_ptx, &o, sargs, 2, store);

    static const struct {
        const char *insn;
        const char *needle;
        unsigned threads;
    } cases[] = {
        {"ld.global.u32 %r2, [%rd1+176];", "16 bytes past the end of 'arg0'", 1},
        {"ld.global.u32 %r2, [%rd1+2];", "misaligned global load of 4 bytes at 0x7", 1},
        {"ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1+8];", "misaligned global load of 16 bytes", 1},
        {"st.global.u64 [%rd6], %rd1;", "thread (1,0,0): misaligned global store of 8 bytes", 2},
        {"st.shared.u32 [%r7], %r1;",
         "thread (32,0,0): out-of-bounds shared store of 4 bytes at shared offset 0x80 (the CTA has "
         "128 bytes of shared memory)",
         40},
        {"ld.shared.u16 %r2, [%r7+1];", "misaligned shared load of 2 bytes", 1},
        {"ld.local.u32 %r2, [%SPL+4096];", "out-of-bounds local load of 4 bytes at local offset 0x1000", 1},
        {"st.u32 [%SP+16], %r1;", "out-of-bounds local store of 4 bytes at local offset 0x10", 1},
        {"ld.u32 %r2, [%rd7];", "NULL pointer load: generic load of 4 bytes at 0x40", 1},
        {"atom.global.add.u32 %r2, [%rd1+160], 1;", "out-of-bounds global store of 4 bytes", 1},
        {"ld.param.u32 %r2, [%rd7];", "out-of-bounds param load of 4 bytes at parameter offset 0x40", 1},
        {"ld.u32 %r2, [%rd5+0x100000];", "out-of-bounds global load", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *ptx = single_insn_kernel(cases[i].insn);
        snprintf(where, sizeof(where), "test.ptx:%d", line_of(ptx, "// FAULT"));
        const char *needles[] = {cases[i].needle, where, "kernel k, block (0,0,0), thread (", NULL};
        o = harness_one_cta(cases[i].threads);
        expect_fault(ptx, &o, args, 2, needles);
    }

    /* NULL kernel argument */
    harness_arg nargs[] = {HVAL(0), HBUF(out, sizeof(out))};
    o = harness_one_cta(32);
    const char *null_load[] = {"thread (0,0,0): NULL pointer load: global load of 4 bytes at 0x0", NULL};
    expect_fault(oob_load_ptx, &o, nargs, 2, null_load);

    /* a faulting warp instruction stores nothing, even for its valid lanes */
    for (int i = 0; i < 32; i++)
        out[i] = 0xA5A5A5A5u;
    harness_arg wargs[] = {HBUF(in, sizeof(in)), HBUF(out, 20 * 4)};
    o = harness_one_cta(32);
    const char *partial[] = {"thread (20,0,0): out-of-bounds global store", NULL};
    expect_fault(oob_load_ptx, &o, wargs, 2, partial);
    for (int i = 0; i < 20; i++)
        assert_int_equal(out[i], 0xA5A5A5A5u);
}

/* Forms the executor rejects at load time name the PTX line. */
static void test_unsupported(void **state)
{
    (void)state;
    static const char *const forms[] = {
        "ld.global.v8.f32 {%f1, %f1, %f1, %f1, %f1, %f1, %f1, %f1}, [%rd1];",
        "st.const.u32 [cv], %r1;",
        "atom.local.add.u32 %r1, [%rd1], 1;",
        "atom.global.min.f32 %f1, [%rd1], %f1;",
        "ld.global.u64 %r1, [%rd1];",
        "st.global.u64 [%rd1], %r1;",
        "st.param.u32 [p], %r1;",
        "cvta.param.u64 %rd1, p;",
        "ld.shared::cluster.u32 %r1, [%rd1];",
        "ld.global.u32 %r1, [sm];",
        "red.global.cas.b32 [%rd1], %r1;",
        "atom.global.add.u16 %rs1, [%rd1], %rs1;",
        "cvta.u64 %rd1, %rd1;",
        "isspacep.generic %p1, %rd1;",
    };
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        char ptx[1024];
        snprintf(ptx, sizeof(ptx),
                 HEADER ".const .align 4 .u32 cv;\n.shared .align 4 .b8 sm[16];\n"
                 ".visible .entry k(.param .u64 p)\n{\n"
                 "\t.reg .pred %%p<2>;\n\t.reg .b16 %%rs<2>;\n\t.reg .f32 %%f<2>;\n"
                 "\t.reg .b32 %%r<2>;\n\t.reg .b64 %%rd<2>;\n"
                 "\tld.param.u64 %%rd1, [p];\n"
                 "\t%s\n"
                 "\tret;\n}\n",
                 forms[i]);
        harness_arg args[] = {HVAL(0)};
        harness_opts o = harness_one_cta(1);
        mb_status st = harness_run(ptx, "k", &o, args, 1);
        if (st != MB_ERR_UNSUPPORTED)
            fail_msg("'%s' gave status %d: %s", forms[i], (int)st, o.message);
        char where[32];
        snprintf(where, sizeof(where), "test.ptx:%d:", line_of(ptx, forms[i]));
        if (!strstr(o.message, where))
            fail_msg("'%s': message lacks %s: %s", forms[i], where, o.message);
    }
}

/* Hints and fences run without effect; prefetch of any address is fine. */
static const char *hints_ptx = HEADER
    ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
    "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<10>;\n"
    PROLOGUE(4, 4)
    "\tprefetch.global.L2 [%rd4];\n"
    "\tprefetch.global.L2::evict_last [0];\n"
    "\tprefetchu.L1 [%rd4];\n"
    "\tmembar.gl;\n\tmembar.cta;\n\tmembar.sys;\n"
    "\tfence.sc.gpu;\n\tfence.acq_rel.cta;\n"
    "\tapplypriority.global.L2::evict_normal [%rd4], 128;\n"
    "\tmov.u64 %rd9, 0;\n"
    "\tld.global.L2::cache_hint.u32 %r2, [%rd4], %rd9;\n"
    "\tld.global.L1::evict_last.L2::128B.u32 %r3, [%rd4];\n"
    "\tld.global.nc.L1::no_allocate.L2::256B.u32 %r4, [%rd4];\n"
    "\tld.weak.global.cg.u32 %r5, [%rd4];\n"
    "\tld.acquire.sys.global.u32 %r6, [%rd4];\n"
    "\tld.mmio.relaxed.sys.global.u32 %r7, [%rd4];\n"
    "\tadd.u32 %r2, %r2, %r3;\n\tadd.u32 %r2, %r2, %r4;\n\tadd.u32 %r2, %r2, %r5;\n"
    "\tadd.u32 %r2, %r2, %r6;\n\tadd.u32 %r2, %r2, %r7;\n"
    "\tdiscard.global.L2 [%rd4], 128;\n"
    "\tst.global.L1::no_allocate.u32 [%rd6], %r2;\n"
    "\tatom.global.L2::cache_hint.add.u32 %r8, [%rd6], 1, %rd9;\n"
    "\tred.relaxed.gpu.global.L2::cache_hint.add.u32 [%rd6], 1, %rd9;\n"
    "\tst.global.cs.u32 [%rd6+256], %r8;\n"
    "\tret;\n}\n";

static void test_hints(void **state)
{
    (void)state;
    static uint32_t in[64], out[128];
    for (uint32_t i = 0; i < 64; i++)
        in[i] = i * 7;
    harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(64);
    run_ok(hints_ptx, "k", &o, args, 2);
    for (uint32_t i = 0; i < 64; i++) {
        assert_int_equal(out[i], i * 7 * 6 + 2);
        assert_int_equal(out[64 + i], i * 7 * 6);
    }
}

/* Observers see the resolved space, the access width and per-lane addresses. */
typedef struct obs_log {
    int n;
    mb_space space[8];
    uint32_t bytes[8];
    uint64_t a0[8], a5[8];
} obs_log;

static void on_insn(void *ctx, const mb_insn_event *ev)
{
    obs_log *lg = ctx;
    if (!ev->addrs || lg->n >= 8 || ev->warp != 0)
        return;
    lg->space[lg->n] = ev->space;
    lg->bytes[lg->n] = ev->access_bytes;
    lg->a0[lg->n] = ev->addrs[0];
    lg->a5[lg->n] = ev->addrs[5];
    lg->n++;
}

static const char *observe_ptx = HEADER
    ".shared .align 8 .b8 sm[512];\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.local .align 8 .b8 __local_depot0[16];\n"
    "\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<10>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd2, %r1, 8;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u64 [%rd3], %rd2;\n"
    "\tmov.u32 %r2, sm;\n\tmul.lo.u32 %r3, %r1, 8;\n\tadd.u32 %r4, %r2, %r3;\n"
    "\tst.shared.v2.u32 [%r4], {%r1, %r1};\n"
    "\tst.local.u16 [__local_depot0+6], %r1;\n"
    "\tcvta.shared.u64 %rd4, sm;\n"
    "\tld.u8 %r5, [%rd4+3];\n"
    "\tret;\n}\n";

/* observe_ptx loaded, with its kernel and 64 x 8-byte output buffer. */
typedef struct observed_kernel {
    mb_module *m;
    mb_memory *mem;
    mb_program *prog;
    const mb_function *k;
    uint64_t out;
} observed_kernel;

static void observed_load(observed_kernel *ok)
{
    mb_error err;
    memset(ok, 0, sizeof(*ok));
    assert_int_equal(mb_ptx_parse(observe_ptx, strlen(observe_ptx), "test.ptx", &ok->m, &err), MB_OK);
    assert_int_equal(mb_memory_new(&ok->mem, &err), MB_OK);
    assert_int_equal(mb_program_new(ok->m, ok->mem, &ok->prog, &err), MB_OK);
    assert_int_equal(mb_memory_alloc(ok->mem, 64 * 8, "out", &ok->out, &err), MB_OK);
    ok->k = mb_module_find_function(ok->m, "k");
    assert_non_null(ok->k);
}

/* Launches the kernel on one CTA of 64 threads with `obs` attached. */
static mb_exec_stats observed_launch(observed_kernel *ok, const mb_observer *obs)
{
    mb_error err;
    mb_launch_config cfg = {ok->k, {1, 1, 1}, {64, 1, 1}, 0, &ok->out, 8};
    mb_exec_options opt = {0, 0, 0, obs};
    mb_exec_stats stats;
    memset(&stats, 0, sizeof(stats));
    if (mb_launch(ok->prog, ok->mem, &cfg, &opt, &stats, &err) != MB_OK)
        fail_msg("%s", err.msg);
    return stats;
}

static void observed_free(observed_kernel *ok)
{
    mb_program_free(ok->prog);
    mb_memory_free(ok->mem);
    mb_module_free(ok->m);
}

static void test_observer(void **state)
{
    (void)state;
    observed_kernel ok;
    observed_load(&ok);
    const uint64_t out = ok.out;
    obs_log lg;
    memset(&lg, 0, sizeof(lg));
    mb_observer obs = {&lg, on_insn, NULL};
    observed_launch(&ok, &obs);
    /* ld.param, st.global, st.shared, st.local, ld (generic -> shared) */
    assert_int_equal(lg.n, 5);
    assert_int_equal(lg.space[0], MB_SPACE_PARAM);
    assert_int_equal(lg.bytes[0], 8);
    assert_int_equal(lg.space[1], MB_SPACE_GLOBAL);
    assert_int_equal(lg.bytes[1], 8);
    assert_int_equal(lg.a0[1], out);
    assert_int_equal(lg.a5[1], out + 40);
    assert_int_equal(lg.space[2], MB_SPACE_SHARED);
    assert_int_equal(lg.bytes[2], 8);
    assert_int_equal(lg.a5[2], 40);
    assert_int_equal(lg.space[3], MB_SPACE_LOCAL);
    assert_int_equal(lg.bytes[3], 2);
    assert_int_equal(lg.a5[3], 6);
    assert_int_equal(lg.space[4], MB_SPACE_SHARED);
    assert_int_equal(lg.bytes[4], 1);
    assert_int_equal(lg.a0[4], 3);
    observed_free(&ok);
}

typedef struct wanted_log {
    uint8_t want[32];
    uint32_t events[32];
} wanted_log;

static void count_event(void *ctx, const mb_insn_event *ev)
{
    wanted_log *lg = ctx;
    if (ev->insn < 32)
        lg->events[ev->insn]++;
}

static const uint8_t *wanted_insns(void *ctx, const mb_function *fn)
{
    (void)fn;
    return ((wanted_log *)ctx)->want;
}

/* An observer that names the instructions it needs sees those only, once
 * per warp execution. */
static void test_observer_wanted(void **state)
{
    (void)state;
    observed_kernel ok;
    observed_load(&ok);
    const mb_function *k = ok.k;
    assert_true(k->ninsns < 32);
    wanted_log lg;
    memset(&lg, 0, sizeof(lg));
    lg.want[0] = lg.want[4] = lg.want[k->ninsns - 1] = 1; /* ld.param, st.global, ret */
    mb_observer obs = {&lg, count_event, wanted_insns};
    const mb_exec_stats stats = observed_launch(&ok, &obs);
    for (uint32_t i = 0; i < k->ninsns; i++)
        assert_int_equal(lg.events[i], lg.want[i] ? 2 : 0);
    assert_int_equal(stats.warp_insts, 2 * k->ninsns); /* the others still ran */
    observed_free(&ok);
}

/* ------------------------------------------------ randomized differential */

/* Random straight-line programs of ld/st (all widths, vectors, sinks,
 * immediates), atom and red on per-thread regions of global, shared and
 * local memory, addressed through every mode (register + offset in the
 * space, generic, frame symbol), under per-lane guards; every lane's
 * registers and memory are compared with a host model. */

enum { RT_N = 45, RT_REG = 64, RT_OUT = 320 };

typedef struct rt_lane {
    uint8_t mem[3][RT_REG]; /* 0 global, 1 shared, 2 local */
    uint64_t r[8], rd[8], rs[4];
    uint8_t q[2][16];
} rt_lane;

typedef struct rt_type {
    const char *name;
    unsigned w;
    char kind; /* u s b f */
} rt_type;

static const rt_type rt_types[] = {
    {"u8", 1, 'u'},  {"s8", 1, 's'},  {"b8", 1, 'b'},  {"u16", 2, 'u'}, {"s16", 2, 's'},
    {"b16", 2, 'b'}, {"u32", 4, 'u'}, {"s32", 4, 's'}, {"b32", 4, 'b'}, {"f32", 4, 'f'},
    {"u64", 8, 'u'}, {"s64", 8, 's'}, {"b64", 8, 'b'}, {"f64", 8, 'f'},
};

/* a register: class 0 = %rs (16), 1 = %r (32), 2 = %rd (64) */
static uint64_t *rt_reg(rt_lane *L, int cls, int i)
{
    return cls == 0 ? &L->rs[i] : cls == 1 ? &L->r[i] : &L->rd[i];
}

static const char *const rt_prefix[3] = {"%rs", "%r", "%rd"};
static const unsigned rt_bits[3] = {16, 32, 64};
static const int rt_count[3] = {4, 8, 8};

static uint64_t rt_mask(unsigned bits)
{
    return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/* The address text of region `reg` at `off`; generic when `gen`. */
static void rt_addr(char *buf, size_t n, int reg, int off, int gen, int form)
{
    if (reg == 0)
        snprintf(buf, n, "[%%a3+%d]", off);
    else if (reg == 1)
        snprintf(buf, n, gen ? "[%%a5+%d]" : "[%%t1+%d]", off);
    else if (gen)
        snprintf(buf, n, "[%%a6+%d]", off);
    else
        snprintf(buf, n, form ? "[__local_depot0+%d]" : "[%%a7+%d]", off);
}

static const char *rt_space(int reg, int gen)
{
    return gen ? "" : reg == 0 ? ".global" : reg == 1 ? ".shared" : ".local";
}

static void rt_program(mb_buf *b, rt_lane *lanes, int nops)
{
    mb_buf_puts(b, HEADER ".shared .align 16 .b8 sm[2880];\n"
                          ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                          "\t.local .align 16 .b8 __local_depot0[64];\n"
                          "\t.reg .pred %p<2>;\n\t.reg .b16 %rs<4>;\n\t.reg .b32 %r<8>;\n"
                          "\t.reg .b64 %rd<8>;\n\t.reg .b128 %q<2>;\n"
                          "\t.reg .b32 %t<4>;\n\t.reg .b64 %a<10>;\n"
                          "\tmov.u64 %a7, __local_depot0;\n"
                          "\tld.param.u64 %a0, [in];\n\tld.param.u64 %a1, [out];\n"
                          "\tmov.u32 %t0, %tid.x;\n"
                          "\tmul.wide.u32 %a2, %t0, 64;\n\tadd.s64 %a3, %a0, %a2;\n"
                          "\tmul.wide.u32 %a2, %t0, 320;\n\tadd.s64 %a4, %a1, %a2;\n"
                          "\tmov.u32 %t2, sm;\n\tmul.lo.u32 %t1, %t0, 64;\n\tadd.u32 %t1, %t1, %t2;\n"
                          "\tcvt.u64.u32 %a5, %t1;\n\tcvta.shared.u64 %a5, %a5;\n"
                          "\tcvta.local.u64 %a6, %a7;\n"
                          "\tand.b32 %t3, %t0, 1;\n\tsetp.eq.u32 %p1, %t3, 1;\n");
    /* registers and the shared and local regions start from the global region */
    for (int i = 0; i < 8; i++)
        mb_buf_printf(b, "\tld.global.u64 %%rd%d, [%%a3+%d];\n\tst.shared.u64 [%%t1+%d], %%rd%d;\n"
                         "\tst.local.u64 [%%a7+%d], %%rd%d;\n",
                      i, 8 * i, 8 * i, i, 8 * i, i);
    for (int i = 0; i < 8; i++)
        mb_buf_printf(b, "\tld.global.u32 %%r%d, [%%a3+%d];\n", i, 4 * i + 4);
    for (int i = 0; i < 4; i++)
        mb_buf_printf(b, "\tld.global.u16 %%rs%d, [%%a3+%d];\n", i, 2 * i + 34);
    for (int i = 0; i < 2; i++)
        mb_buf_printf(b, "\tld.global.b128 %%q%d, [%%a3+%d];\n", i, 16 * i + 16);
    for (int l = 0; l < RT_N; l++) {
        rt_lane *L = &lanes[l];
        memcpy(L->mem[1], L->mem[0], RT_REG);
        memcpy(L->mem[2], L->mem[0], RT_REG);
        for (int i = 0; i < 8; i++) {
            L->rd[i] = rd64(L->mem[0] + 8 * i);
            L->r[i] = rd32(L->mem[0] + 4 * i + 4);
        }
        for (int i = 0; i < 4; i++)
            L->rs[i] = rd16(L->mem[0] + 2 * i + 34);
        for (int i = 0; i < 2; i++)
            memcpy(L->q[i], L->mem[0] + 16 * i + 16, 16);
    }

    for (int k = 0; k < nops; k++) {
        int g = (int)(rnd() % 5); /* guard: 0-2 none, 3 odd lanes, 4 even lanes */
        const char *guard = g == 3 ? "@%p1 " : g == 4 ? "@!%p1 " : "";
        int reg = (int)(rnd() % 3), gen = (int)(rnd() % 3) == 0, form = (int)(rnd() % 2);
        int what = (int)(rnd() % 100);
        char addr[64];
        if (what < 55) { /* ld / st, scalar or vector */
            int is_ld = what < 30;
            const rt_type *t = &rt_types[rnd() % (sizeof(rt_types) / sizeof(rt_types[0]))];
            unsigned vec = rnd() % 3 == 0 ? (rnd() % 2 ? 2 : 4) : 1;
            if (t->w * vec > 16 && !(t->w == 8 && vec == 4))
                vec = 2;
            int b128 = rnd() % 12 == 0;
            unsigned w = b128 ? 16 : t->w;
            if (b128)
                vec = 1;
            unsigned total = w * vec;
            int off = (int)((rnd() % (RT_REG / total)) * total);
            rt_addr(addr, sizeof(addr), reg, off, gen, form);
            int cls_min = w <= 2 ? 0 : w == 4 ? 1 : 2;
            int cls = b128 ? 3 : cls_min + (int)(rnd() % (unsigned)(3 - cls_min));
            /* operands: distinct registers (sinks / immediates sometimes) */
            int idx[4], used = 0, sink[4] = {0}, imm[4] = {0};
            uint64_t immv[4] = {0};
            for (unsigned e = 0; e < vec; e++) {
                int i;
                do
                    i = (int)(rnd() % (unsigned)(cls == 3 ? 2 : rt_count[cls]));
                while (used & (1 << i));
                used |= 1 << i;
                idx[e] = i;
                if (is_ld && vec > 1 && rnd() % 5 == 0)
                    sink[e] = 1;
                if (!is_ld && !b128 && rnd() % 6 == 0) {
                    imm[e] = 1;
                    immv[e] = rnd() & rt_mask(8 * w);
                }
            }
            char ops[200] = "";
            size_t n = 0;
            for (unsigned e = 0; e < vec; e++) {
                const char *sep = e ? ", " : "";
                if (sink[e])
                    n += (size_t)snprintf(ops + n, sizeof(ops) - n, "%s_", sep);
                else if (imm[e] && t->kind == 'f' && w == 4)
                    n += (size_t)snprintf(ops + n, sizeof(ops) - n, "%s0f%08llX", sep, (unsigned long long)immv[e]);
                else if (imm[e] && t->kind == 'f')
                    n += (size_t)snprintf(ops + n, sizeof(ops) - n, "%s0d%016llX", sep, (unsigned long long)immv[e]);
                else if (imm[e])
                    n += (size_t)snprintf(ops + n, sizeof(ops) - n, "%s0x%llX", sep, (unsigned long long)immv[e]);
                else if (cls == 3)
                    n += (size_t)snprintf(ops + n, sizeof(ops) - n, "%s%%q%d", sep, idx[e]);
                else
                    n += (size_t)snprintf(ops + n, sizeof(ops) - n, "%s%s%d", sep, rt_prefix[cls], idx[e]);
            }
            char vsuf[8] = "";
            if (vec > 1)
                snprintf(vsuf, sizeof(vsuf), ".v%u", vec);
            const char *tn = b128 ? "b128" : t->name;
            if (is_ld)
                mb_buf_printf(b, "\t%sld%s%s.%s %s%s%s, %s;\n", guard, rt_space(reg, gen), vsuf, tn,
                              vec > 1 ? "{" : "", ops, vec > 1 ? "}" : "", addr);
            else
                mb_buf_printf(b, "\t%sst%s%s.%s %s, %s%s%s;\n", guard, rt_space(reg, gen), vsuf, tn,
                              addr, vec > 1 ? "{" : "", ops, vec > 1 ? "}" : "");
            for (int l = 0; l < RT_N; l++) {
                if ((g == 3 && !(l & 1)) || (g == 4 && (l & 1)))
                    continue;
                rt_lane *L = &lanes[l];
                uint8_t *m = L->mem[reg] + off;
                for (unsigned e = 0; e < vec; e++) {
                    if (b128) {
                        if (is_ld)
                            memcpy(L->q[idx[e]], m, 16);
                        else
                            memcpy(m, L->q[idx[e]], 16);
                        continue;
                    }
                    if (is_ld) {
                        if (sink[e])
                            continue;
                        uint64_t v = 0;
                        memcpy(&v, m + e * w, w);
                        unsigned db = rt_bits[cls];
                        if (t->kind == 's' && 8 * w < db) {
                            unsigned sh = 64 - 8 * w;
                            v = (uint64_t)((int64_t)(v << sh) >> sh);
                        }
                        *rt_reg(L, cls, idx[e]) = v & rt_mask(db);
                    } else {
                        uint64_t v = imm[e] ? immv[e] : *rt_reg(L, cls, idx[e]);
                        memcpy(m + e * w, &v, w);
                    }
                }
            }
        } else { /* atom / red on global or shared */
            static const struct {
                aop op;
                const char *type;
                char kind;
                unsigned bits;
                int cls;
            } at[] = {
                {A_ADD, "u32", 'u', 32, 1},  {A_ADD, "s32", 's', 32, 1},  {A_AND, "b32", 'b', 32, 1},
                {A_OR, "b32", 'b', 32, 1},   {A_XOR, "b32", 'b', 32, 1},  {A_EXCH, "b32", 'b', 32, 1},
                {A_CAS, "b32", 'b', 32, 1},  {A_MIN, "u32", 'u', 32, 1},  {A_MAX, "u32", 'u', 32, 1},
                {A_MIN, "s32", 's', 32, 1},  {A_MAX, "s32", 's', 32, 1},  {A_INC, "u32", 'u', 32, 1},
                {A_DEC, "u32", 'u', 32, 1},  {A_ADD, "u64", 'u', 64, 2},  {A_AND, "b64", 'b', 64, 2},
                {A_OR, "b64", 'b', 64, 2},   {A_XOR, "b64", 'b', 64, 2},  {A_EXCH, "b64", 'b', 64, 2},
                {A_CAS, "b64", 'b', 64, 2},  {A_MIN, "u64", 'u', 64, 2},  {A_MAX, "u64", 'u', 64, 2},
                {A_MIN, "s64", 's', 64, 2},  {A_MAX, "s64", 's', 64, 2},  {A_ADD, "f32", 'f', 32, 1},
                {A_ADD, "f64", 'f', 64, 2},  {A_ADD, "f16", 'h', 16, 0},  {A_ADD, "bf16", 'g', 16, 0},
                {A_ADD, "f16x2", 'H', 32, 1}, {A_ADD, "bf16x2", 'G', 32, 1}, {A_CAS, "b16", 'b', 16, 0},
            };
            int ai = (int)(rnd() % (sizeof(at) / sizeof(at[0])));
            int red = what >= 90 && at[ai].op != A_CAS && at[ai].op != A_EXCH;
            unsigned w = at[ai].bits / 8;
            reg = (int)(rnd() % 2);
            int off = (int)((rnd() % (RT_REG / w)) * w);
            rt_addr(addr, sizeof(addr), reg, off, gen, 0);
            int cls = at[ai].cls;
            int d = (int)(rnd() % (unsigned)rt_count[cls]), bi = (int)(rnd() % (unsigned)rt_count[cls]);
            int ci = (int)(rnd() % (unsigned)rt_count[cls]);
            int bimm = cls != 0 && at[ai].kind != 'H' && at[ai].kind != 'G' && rnd() % 5 == 0;
            uint64_t bv = rnd() & rt_mask(at[ai].bits);
            if (at[ai].op == A_INC || at[ai].op == A_DEC)
                bv &= 63;
            char bop[40];
            if (!bimm)
                snprintf(bop, sizeof(bop), "%s%d", rt_prefix[cls], bi);
            else if (at[ai].kind == 'f')
                snprintf(bop, sizeof(bop), at[ai].bits == 32 ? "0f%08llX" : "0d%016llX", (unsigned long long)bv);
            else
                snprintf(bop, sizeof(bop), "0x%llX", (unsigned long long)bv);
            const char *noftz = strchr("hgHG", at[ai].kind) ? ".noftz" : "";
            const char *sp = gen ? "" : reg == 0 ? ".global" : ".shared";
            if (red)
                mb_buf_printf(b, "\t%sred%s.%s%s.%s %s, %s;\n", guard, sp, aop_name[at[ai].op], noftz,
                              at[ai].type, addr, bop);
            else if (at[ai].op == A_CAS)
                mb_buf_printf(b, "\t%satom%s.cas.%s %s%d, %s, %s, %s%d;\n", guard, sp, at[ai].type,
                              rt_prefix[cls], d, addr, bop, rt_prefix[cls], ci);
            else
                mb_buf_printf(b, "\t%satom%s.%s%s.%s %s%d, %s, %s;\n", guard, sp, aop_name[at[ai].op],
                              noftz, at[ai].type, rt_prefix[cls], d, addr, bop);
            for (int l = 0; l < RT_N; l++) {
                if ((g == 3 && !(l & 1)) || (g == 4 && (l & 1)))
                    continue;
                rt_lane *L = &lanes[l];
                uint8_t *m = L->mem[reg] + off;
                uint64_t old = 0;
                memcpy(&old, m, w);
                uint64_t bval = bimm ? bv : *rt_reg(L, cls, bi);
                uint64_t cval = *rt_reg(L, cls, ci);
                uint64_t nv = ref_atom(at[ai].op, at[ai].kind, at[ai].bits, old, bval, cval, reg == 0);
                memcpy(m, &nv, w);
                if (!red)
                    *rt_reg(L, cls, d) = old & rt_mask(rt_bits[cls]);
            }
        }
    }
    /* dump registers, then the shared and local regions */
    for (int i = 0; i < 8; i++)
        mb_buf_printf(b, "\tst.global.u32 [%%a4+%d], %%r%d;\n\tst.global.u64 [%%a4+%d], %%rd%d;\n",
                      4 * i, i, 32 + 8 * i, i);
    for (int i = 0; i < 4; i++)
        mb_buf_printf(b, "\tst.global.u16 [%%a4+%d], %%rs%d;\n", 96 + 2 * i, i);
    for (int i = 0; i < 2; i++)
        mb_buf_printf(b, "\tst.global.b128 [%%a4+%d], %%q%d;\n", 112 + 16 * i, i);
    for (int i = 0; i < 8; i++)
        mb_buf_printf(b, "\tld.shared.u64 %%a8, [%%t1+%d];\n\tst.global.u64 [%%a4+%d], %%a8;\n"
                         "\tld.local.u64 %%a9, [%%a7+%d];\n\tst.global.u64 [%%a4+%d], %%a9;\n",
                      8 * i, 192 + 8 * i, 8 * i, 256 + 8 * i);
    mb_buf_puts(b, "\tret;\n}\n");
}

static void test_random_differential(void **state)
{
    (void)state;
    static rt_lane lanes[RT_N];
    static uint8_t in[RT_N * RT_REG], out[RT_N * RT_OUT];
    for (int prog = 0; prog < 12; prog++) {
        rng_state = 0x1234567ull + (uint64_t)prog * 0x9E3779B97F4A7C15ull;
        fill_random(in, sizeof(in));
        /* some small values so that min/max/inc/dec/cas meet interesting cases */
        for (size_t i = 0; i < sizeof(in); i += 4)
            if (rnd() % 3 == 0)
                memset(in + i, 0, 3);
        memset(out, 0, sizeof(out));
        for (int l = 0; l < RT_N; l++)
            memcpy(lanes[l].mem[0], in + l * RT_REG, RT_REG);
        mb_buf b = MB_BUF_INIT;
        rt_program(&b, lanes, 250);
        harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
        harness_opts o = harness_one_cta(RT_N);
        mb_status st = harness_run(b.data, "k", &o, args, 2);
        if (st != MB_OK) {
            fprintf(stderr, "%s\n", b.data);
            fail_msg("program %d: %s", prog, o.message);
        }
        for (int l = 0; l < RT_N; l++) {
            rt_lane *L = &lanes[l];
            const uint8_t *r = out + l * RT_OUT;
            uint8_t want[RT_OUT];
            memset(want, 0, sizeof(want));
            for (int i = 0; i < 8; i++) {
                uint32_t v32 = (uint32_t)L->r[i];
                memcpy(want + 4 * i, &v32, 4);
                memcpy(want + 32 + 8 * i, &L->rd[i], 8);
            }
            for (int i = 0; i < 4; i++) {
                uint16_t v16 = (uint16_t)L->rs[i];
                memcpy(want + 96 + 2 * i, &v16, 2);
            }
            memcpy(want + 112, L->q, 32);
            memcpy(want + 192, L->mem[1], RT_REG);
            memcpy(want + 256, L->mem[2], RT_REG);
            const uint8_t *gm = in + l * RT_REG;
            for (int i = 0; i < RT_REG; i++)
                if (gm[i] != L->mem[0][i]) {
                    fprintf(stderr, "%s\n", b.data);
                    fail_msg("program %d lane %d: global byte %d is %#x, expected %#x", prog, l, i,
                             gm[i], L->mem[0][i]);
                }
            for (int i = 0; i < RT_OUT; i++)
                if (r[i] != want[i]) {
                    fprintf(stderr, "%s\n", b.data);
                    fail_msg("program %d lane %d: output byte %d is %#x, expected %#x", prog, l, i,
                             r[i], want[i]);
                }
        }
        mb_buf_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_kernel_params),
        cmocka_unit_test(test_shared),
        cmocka_unit_test(test_local_array),
        cmocka_unit_test(test_call_frames),
        cmocka_unit_test(test_cvta_isspacep),
        cmocka_unit_test(test_atomic_ops),
        cmocka_unit_test(test_atomic_float),
        cmocka_unit_test(test_atomic_lane_order),
        cmocka_unit_test(test_atomic_many_ctas),
        cmocka_unit_test(test_faults),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_hints),
        cmocka_unit_test(test_observer),
        cmocka_unit_test(test_observer_wanted),
        cmocka_unit_test(test_random_differential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
