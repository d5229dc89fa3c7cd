/* The floating-point instruction family of the executor: every operation,
 * type and modifier against host-computed or hand-computed expectations
 * (NaNs, infinities, subnormals, signed zeros, overflow, directed rounding,
 * .ftz, .sat), partial warps and divergent lanes, decode errors, and a
 * randomized differential test of straight-line PTX against a host model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fenv.h>
#include <math.h>

#include "exec_harness.h"
#include "test_rng.h"

#define HEADER ".version 8.8\n.target sm_90\n.address_size 64\n"

enum { NT = 45 }; /* threads: one full warp and a partial one */

/* ------------------------------------------------------------ bits */

static uint32_t fb(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bf_(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t db(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static double bd(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* deterministic generator */
static uint64_t rng_state = TEST_RNG_SEED;
static uint64_t rnd64(void)
{
    return test_rng_next(&rng_state);
}

/* interesting f32 bit patterns */
static const uint32_t special32[] = {
    0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7FC00000,
    0xFFC00001, 0x7F800001, /* signalling NaN */
    0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000, 0x80800000, 0x7F7FFFFF,
    0xFF7FFFFF, 0x3F000000, 0x40490FDB, 0x3EAAAAAB, 0x4B000001, 0x33800000, 0x3F800001};

static uint32_t rand32(void)
{
    uint64_t r = rnd64();
    switch (r % 8) {
    case 0: return special32[(r >> 8) % (sizeof(special32) / sizeof(special32[0]))];
    case 1: return (uint32_t)(r >> 32) & 0x807FFFFFu; /* subnormal */
    case 2: return fb((float)((int)(r >> 40) % 64 - 32)); /* small integers */
    case 3: /* near 1 */
        return (0x3F800000u + ((uint32_t)(r >> 32) & 0xFFF)) ^ ((uint32_t)(r >> 20) & 0x80000000u);
    default: { /* random normal, moderate exponent */
        uint32_t e = (uint32_t)(100 + (r >> 16) % 56);
        return (uint32_t)(r >> 40) % 2 << 31 | e << 23 | ((uint32_t)(r >> 24) & 0x7FFFFF);
    }
    }
}

static const uint64_t special64[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x3FF0000000000000ull, 0xBFF0000000000000ull,
    0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull, 0x7FF4000000000123ull,
    0xFFF8000000000abcull, 0x0000000000000001ull, 0x800FFFFFFFFFFFFFull, 0x0010000000000000ull,
    0x7FEFFFFFFFFFFFFFull, 0x3FE0000000000000ull, 0x400921FB54442D18ull, 0x3FD5555555555555ull};

static uint64_t rand64(void)
{
    uint64_t r = rnd64();
    switch (r % 8) {
    case 0: return special64[(r >> 8) % (sizeof(special64) / sizeof(special64[0]))];
    case 1: return rnd64() & 0x800FFFFFFFFFFFFFull;
    case 2: return db((double)((int)(r >> 40) % 64 - 32));
    default: {
        uint64_t e = 900 + (r >> 16) % 250;
        return (rnd64() & 0x800FFFFFFFFFFFFFull) | e << 52;
    }
    }
}

/* --------------------------------------------------------- kernels */

/* A kernel where thread t loads a[t], b[t], c[t] into %i1..%i3 and the old
 * out[t] into %o0, runs `insn` (guarded by %p1 = (t % 4 != 0) when
 * `guarded`), and stores %o0 to out[t]. Input and output elements are
 * `inb` and `outb` bytes wide (2, 4, 8). With pred_out, %p2 starts as
 * (out[t] != 0), `insn` writes %p2 and out[t] becomes %p2 as 0/1. */
static void build(char *buf, size_t size, int inb, int outb, int pred_out, int guarded,
                  const char *insn)
{
    int n = snprintf(
        buf, size,
        HEADER
        ".visible .entry k(.param .u64 po, .param .u64 pa, .param .u64 pb, .param .u64 pc)\n{\n"
        "\t.reg .pred %%p<4>;\n\t.reg .b32 %%t<8>;\n\t.reg .b64 %%q<12>;\n"
        "\t.reg .b%d %%i<4>;\n\t.reg .b%d %%o<2>;\n"
        "\tld.param.u64 %%q1, [po];\n\tld.param.u64 %%q2, [pa];\n"
        "\tld.param.u64 %%q3, [pb];\n\tld.param.u64 %%q4, [pc];\n"
        "\tmov.u32 %%t1, %%tid.x;\n\tand.b32 %%t2, %%t1, 3;\n\tsetp.ne.u32 %%p1, %%t2, 0;\n"
        "\tmul.wide.u32 %%q5, %%t1, %d;\n\tmul.wide.u32 %%q6, %%t1, %d;\n"
        "\tadd.s64 %%q7, %%q2, %%q5;\n\tadd.s64 %%q8, %%q3, %%q5;\n"
        "\tadd.s64 %%q9, %%q4, %%q5;\n\tadd.s64 %%q10, %%q1, %%q6;\n"
        "\tld.global.b%d %%i1, [%%q7];\n\tld.global.b%d %%i2, [%%q8];\n"
        "\tld.global.b%d %%i3, [%%q9];\n\tld.global.b%d %%o0, [%%q10];\n"
        "%s"
        "\t%s%s\n"
        "%s"
        "\tst.global.b%d [%%q10], %%o0;\n\tret;\n}\n",
        inb * 8, outb * 8, inb, outb, inb * 8, inb * 8, inb * 8, outb * 8,
        pred_out ? "\tsetp.ne.u32 %p2, %o0, 0;\n" : "", guarded ? "@%p1 " : "", insn,
        pred_out ? "\tselp.b32 %o0, 1, 0, %p2;\n" : "", outb * 8);
    assert_true(n > 0 && (size_t)n < size);
}

static mb_status run_ptx(const char *ptx, harness_opts *o, harness_arg *args, unsigned nargs)
{
    return harness_run(ptx, "k", o, args, nargs);
}

static mb_status run_kernel(const char *ptx, unsigned nt, void *out, size_t outb, const void *a,
                            const void *b, const void *c, size_t inb, char *msg, size_t msgsize)
{
    /* the kernel may read a, b, c fully; give it private copies */
    void *ca = malloc(inb * nt), *cb = malloc(inb * nt), *cc = malloc(inb * nt);
    memcpy(ca, a, inb * nt);
    memcpy(cb, b ? b : a, inb * nt);
    memcpy(cc, c ? c : a, inb * nt);
    harness_arg args[] = {HBUF(out, outb * nt), HBUF(ca, inb * nt), HBUF(cb, inb * nt),
                          HBUF(cc, inb * nt)};
    harness_opts o = harness_one_cta(nt);
    mb_status st = run_ptx(ptx, &o, args, 4);
    if (msg)
        snprintf(msg, msgsize, "%s", o.message);
    free(ca);
    free(cb);
    free(cc);
    return st;
}

/* Runs `insn` over NT lanes, unguarded and guarded; `expect(lane)` gives the
 * expected output bits. Inputs/outputs are arrays of inb/outb-byte elements. */
typedef uint64_t (*expect_fn)(const void *a, const void *b, const void *c, unsigned t);

static uint64_t get_elem(const void *p, size_t bytes, unsigned t)
{
    const uint8_t *q = (const uint8_t *)p + bytes * t;
    if (bytes == 2) {
        uint16_t v;
        memcpy(&v, q, 2);
        return v;
    }
    if (bytes == 4) {
        uint32_t v;
        memcpy(&v, q, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, q, 8);
    return v;
}

static void check_insn(const char *insn, int inb, int outb, int pred_out, const void *a,
                       const void *b, const void *c, expect_fn expect)
{
    char ptx[4096], msg[2048];
    for (int guarded = 0; guarded < 2; guarded++) {
        build(ptx, sizeof(ptx), inb, outb, pred_out, guarded, insn);
        uint8_t out[NT * 8];
        for (unsigned t = 0; t < NT; t++) { /* recognisable old values */
            uint64_t v = pred_out ? (t % 3 == 0) : 0x5A5A5A5A5A5A5A5Aull + t;
            memcpy(out + (size_t)outb * t, &v, (size_t)outb);
        }
        uint8_t old[NT * 8];
        memcpy(old, out, sizeof(old));
        mb_status st = run_kernel(ptx, NT, out, (size_t)outb, a, b, c, (size_t)inb, msg, sizeof(msg));
        if (st != MB_OK)
            fail_msg("%s: %s", insn, msg);
        for (unsigned t = 0; t < NT; t++) {
            uint64_t got = get_elem(out, (size_t)outb, t);
            uint64_t want = (guarded && t % 4 == 0) ? get_elem(old, (size_t)outb, t)
                                                    : expect(a, b ? b : a, c ? c : a, t);
            if (got != want)
                fail_msg("%s%s lane %u: got 0x%llx, want 0x%llx (a=0x%llx b=0x%llx c=0x%llx)",
                         guarded ? "@p " : "", insn, t, (unsigned long long)got,
                         (unsigned long long)want, (unsigned long long)get_elem(a, (size_t)inb, t),
                         (unsigned long long)get_elem(b ? b : a, (size_t)inb, t),
                         (unsigned long long)get_elem(c ? c : a, (size_t)inb, t));
        }
    }
}

/* ------------------------------------------------- host reference */

#define CANON32 0x7FFFFFFFu

static int isnan32(uint32_t u)
{
    return (u & 0x7FFFFFFFu) > 0x7F800000u;
}

static uint32_t flush32(uint32_t u)
{
    return (u & 0x7F800000u) ? u : (u & 0x80000000u);
}

static uint32_t finish32(float r, int ftz, int sat)
{
    uint32_t u = isnan(r) ? CANON32 : fb(r);
    if (sat) {
        if (isnan32(u) || (u & 0x80000000u))
            u = 0;
        else if (bf_(u) > 1.0f)
            u = 0x3F800000u;
    }
    if (ftz)
        u = flush32(u);
    return u;
}

enum { R_N, R_Z, R_M, R_P };
static const int host_mode[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
static const char *const rnd_name[] = {"rn", "rz", "rm", "rp"};

enum { F_ADD, F_SUB, F_MUL, F_DIV, F_FMA, F_SQRT, F_RCP };

/* one f32 operation in rounding mode `rnd`, volatile so it is done at run time */
static uint32_t ref32(int op, uint32_t ua, uint32_t ub, uint32_t uc, int rnd, int ftz, int sat)
{
    volatile float a = bf_(ftz ? flush32(ua) : ua), b = bf_(ftz ? flush32(ub) : ub),
                   c = bf_(ftz ? flush32(uc) : uc);
    volatile float r;
    fesetround(host_mode[rnd]);
    switch (op) {
    case F_ADD: r = a + b; break;
    case F_SUB: r = a - b; break;
    case F_MUL: r = a * b; break;
    case F_DIV: r = a / b; break;
    case F_FMA: r = fmaf(a, b, c); break;
    case F_SQRT: r = sqrtf(a); break;
    default: r = 1.0f / a; break;
    }
    fesetround(FE_TONEAREST);
    return finish32(r, ftz, sat);
}

static uint64_t ref64(int op, uint64_t ua, uint64_t ub, uint64_t uc, int rnd)
{
    volatile double a = bd(ua), b = bd(ub), c = bd(uc);
    volatile double r;
    fesetround(host_mode[rnd]);
    switch (op) {
    case F_ADD: r = a + b; break;
    case F_SUB: r = a - b; break;
    case F_MUL: r = a * b; break;
    case F_DIV: r = a / b; break;
    case F_FMA: r = fma(a, b, c); break;
    case F_SQRT: r = sqrt(a); break;
    default: r = 1.0 / a; break;
    }
    fesetround(FE_TONEAREST);
    if (!isnan(r))
        return db(r);
    /* NaN results: the first NaN operand in PTX order, quieted; else the
     * default NaN */
    int nsrc = op == F_FMA ? 3 : (op == F_SQRT || op == F_RCP) ? 1 : 2;
    uint64_t ops[3] = {ua, ub, uc};
    for (int i = 0; i < nsrc; i++)
        if (isnan(bd(ops[i])))
            return ops[i] | 0x0008000000000000ull;
    return 0xFFF8000000000000ull;
}

static int same64(uint64_t got, uint64_t want)
{
    return got == want;
}

/* ----------------------------------------------- current expectation */

/* check_insn's callback reads the operation from these */
static int cur_op, cur_rnd, cur_ftz, cur_sat;

static uint64_t exp_ref32(const void *a, const void *b, const void *c, unsigned t)
{
    return ref32(cur_op, ((const uint32_t *)a)[t], ((const uint32_t *)b)[t],
                 ((const uint32_t *)c)[t], cur_rnd, cur_ftz, cur_sat);
}

static void fill32(uint32_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        v[i] = rand32();
}

static void fill64(uint64_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        v[i] = rand64();
}

/* ------------------------------------------------------ f32 arithmetic */

static void test_f32_arith(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int op, nsrc, has_sat;
    } ops[] = {{"add", F_ADD, 2, 1}, {"sub", F_SUB, 2, 1}, {"mul", F_MUL, 2, 1},
               {"div", F_DIV, 2, 0}, {"fma", F_FMA, 3, 1}, {"mad", F_FMA, 3, 1},
               {"sqrt", F_SQRT, 1, 0}, {"rcp", F_RCP, 1, 0}};
    uint32_t a[NT], b[NT], c[NT];
    for (int round = 0; round < 3; round++) {
        fill32(a, NT);
        fill32(b, NT);
        fill32(c, NT);
        for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
            for (int rnd = 0; rnd < 4; rnd++)
                for (int ftz = 0; ftz < 2; ftz++)
                    for (int sat = 0; sat <= ops[k].has_sat; sat++) {
                        char insn[128];
                        const char *srcs = ops[k].nsrc == 1   ? "%i1"
                                           : ops[k].nsrc == 2 ? "%i1, %i2"
                                                              : "%i1, %i2, %i3";
                        snprintf(insn, sizeof(insn), "%s.%s%s%s.f32 %%o0, %s;", ops[k].name,
                                 rnd_name[rnd], ftz ? ".ftz" : "", sat ? ".sat" : "", srcs);
                        cur_op = ops[k].op, cur_rnd = rnd, cur_ftz = ftz, cur_sat = sat;
                        check_insn(insn, 4, 4, 0, a, b, c, exp_ref32);
                    }
    }
    /* default rounding is .rn; mad.f32 without rounding is fused (sm_20+) */
    cur_rnd = R_N, cur_ftz = 0, cur_sat = 0;
    cur_op = F_ADD;
    check_insn("add.f32 %o0, %i1, %i2;", 4, 4, 0, a, b, c, exp_ref32);
    cur_op = F_MUL;
    check_insn("mul.f32 %o0, %i1, %i2;", 4, 4, 0, a, b, c, exp_ref32);
    cur_op = F_FMA;
    check_insn("mad.f32 %o0, %i1, %i2, %i3;", 4, 4, 0, a, b, c, exp_ref32);
}

/* hand-computed cases that separate the rounding modes and fusion */
static uint32_t hand_a[NT], hand_b[NT], hand_c[NT], hand_want[NT];
static uint64_t exp_hand(const void *a, const void *b, const void *c, unsigned t)
{
    (void)a, (void)b, (void)c;
    return hand_want[t];
}

static void hand_case(const char *insn, uint32_t a, uint32_t b, uint32_t c, uint32_t want)
{
    for (unsigned t = 0; t < NT; t++) {
        hand_a[t] = a, hand_b[t] = b, hand_c[t] = c, hand_want[t] = want;
    }
    check_insn(insn, 4, 4, 0, hand_a, hand_b, hand_c, exp_hand);
}

static void test_f32_hand(void **state)
{
    (void)state;
    const uint32_t one = 0x3F800000, three = 0x40400000;
    /* 1 + 2^-24 * 1.5: between 1 and 1+2^-23 (nearer the upper) */
    const uint32_t tiny = 0x33C00000; /* 1.5 * 2^-24 */
    hand_case("add.rn.f32 %o0, %i1, %i2;", one, tiny, 0, 0x3F800001);
    hand_case("add.rz.f32 %o0, %i1, %i2;", one, tiny, 0, 0x3F800000);
    hand_case("add.rm.f32 %o0, %i1, %i2;", one, tiny, 0, 0x3F800000);
    hand_case("add.rp.f32 %o0, %i1, %i2;", one, tiny, 0, 0x3F800001);
    hand_case("sub.rm.f32 %o0, %i1, %i2;", 0xBF800000, tiny, 0, 0xBF800001);
    hand_case("sub.rz.f32 %o0, %i1, %i2;", 0xBF800000, tiny, 0, 0xBF800000);
    /* x - x is +0 except in round-down, where it is -0 */
    hand_case("sub.rn.f32 %o0, %i1, %i2;", three, three, 0, 0x00000000);
    hand_case("sub.rm.f32 %o0, %i1, %i2;", three, three, 0, 0x80000000);
    /* 1/3 */
    hand_case("div.rn.f32 %o0, %i1, %i2;", one, three, 0, 0x3EAAAAAB);
    hand_case("div.rz.f32 %o0, %i1, %i2;", one, three, 0, 0x3EAAAAAA);
    hand_case("div.rm.f32 %o0, %i1, %i2;", 0xBF800000, three, 0, 0xBEAAAAAB);
    hand_case("div.rp.f32 %o0, %i1, %i2;", one, three, 0, 0x3EAAAAAB);
    hand_case("rcp.rz.f32 %o0, %i1;", three, 0, 0, 0x3EAAAAAA);
    hand_case("rcp.rn.f32 %o0, %i1;", 0x80000000, 0, 0, 0xFF800000);
    hand_case("sqrt.rn.f32 %o0, %i1;", 0x40000000, 0, 0, 0x3FB504F3);
    hand_case("sqrt.rz.f32 %o0, %i1;", 0x40000000, 0, 0, 0x3FB504F3);
    hand_case("sqrt.rp.f32 %o0, %i1;", 0x40000000, 0, 0, 0x3FB504F4);
    hand_case("sqrt.rn.f32 %o0, %i1;", 0xBF800000, 0, 0, CANON32);
    hand_case("sqrt.rn.f32 %o0, %i1;", 0x80000000, 0, 0, 0x80000000);
    /* overflow: rn gives inf, rz the largest finite */
    hand_case("mul.rn.f32 %o0, %i1, %i2;", 0x7F000000, 0x40400000, 0, 0x7F800000);
    hand_case("mul.rz.f32 %o0, %i1, %i2;", 0x7F000000, 0x40400000, 0, 0x7F7FFFFF);
    hand_case("mul.rm.f32 %o0, %i1, %i2;", 0x7F000000, 0xC0400000, 0, 0xFF800000);
    hand_case("mul.rp.f32 %o0, %i1, %i2;", 0x7F000000, 0xC0400000, 0, 0xFF7FFFFF);
    /* fused: (1+2^-23)(1-2^-23) - 1 = -2^-46, unfused it would be 0 */
    hand_case("fma.rn.f32 %o0, %i1, %i2, %i3;", 0x3F800001, 0x3F7FFFFE, 0xBF800000, 0xA8800000);
    hand_case("mad.f32 %o0, %i1, %i2, %i3;", 0x3F800001, 0x3F7FFFFE, 0xBF800000, 0xA8800000);
    hand_case("mad.rn.f32 %o0, %i1, %i2, %i3;", 0x3F800001, 0x3F7FFFFE, 0xBF800000, 0xA8800000);
    hand_case("mul.rn.f32 %o0, %i1, %i2;", 0x3F800001, 0x3F7FFFFE, 0, one);
    hand_case("fma.rz.f32 %o0, %i1, %i2, %i3;", one, tiny, one, 0x3F800000);
    hand_case("fma.rp.f32 %o0, %i1, %i2, %i3;", one, tiny, one, 0x3F800001);
    hand_case("fma.rm.f32 %o0, %i1, %i2, %i3;", 0xBF800000, tiny, 0xBF800000, 0xBF800001);
    /* NaN results are the canonical NaN, whatever the inputs */
    hand_case("add.f32 %o0, %i1, %i2;", 0x7F800001, one, 0, CANON32);
    hand_case("mul.f32 %o0, %i1, %i2;", 0x7F800000, 0, 0, CANON32);
    hand_case("add.f32 %o0, %i1, %i2;", 0x7F800000, 0xFF800000, 0, CANON32);
    hand_case("div.rn.f32 %o0, %i1, %i2;", 0, 0x80000000, 0, CANON32);
    hand_case("div.rn.f32 %o0, %i1, %i2;", one, 0x80000000, 0, 0xFF800000);
    /* .ftz: subnormal inputs are zero, subnormal results flush (sign kept) */
    hand_case("add.ftz.f32 %o0, %i1, %i2;", 0x00000001, 0x00000001, 0, 0);
    hand_case("add.f32 %o0, %i1, %i2;", 0x00000001, 0x00000001, 0, 2);
    hand_case("mul.f32 %o0, %i1, %i2;", 0x0D800000, 0xB2000000, 0, 0x80400000); /* 2^-100 * -2^-27 */
    hand_case("mul.ftz.f32 %o0, %i1, %i2;", 0x0D800000, 0xB2000000, 0, 0x80000000);
    hand_case("mul.ftz.f32 %o0, %i1, %i2;", 0x807FFFFF, 0x7F800000, 0, CANON32); /* -0 * inf */
    hand_case("fma.rn.ftz.f32 %o0, %i1, %i2, %i3;", one, 0x00400000, 0x00400000, 0);
    hand_case("fma.rn.f32 %o0, %i1, %i2, %i3;", one, 0x00400000, 0x00400000, 0x00800000);
    /* .sat: [0, 1], NaN and -0 to +0 */
    hand_case("add.sat.f32 %o0, %i1, %i2;", one, one, 0, one);
    hand_case("add.sat.f32 %o0, %i1, %i2;", 0xBF800000, 0x3F000000, 0, 0);
    hand_case("add.sat.f32 %o0, %i1, %i2;", 0x3E800000, 0x3E800000, 0, 0x3F000000);
    hand_case("mul.sat.f32 %o0, %i1, %i2;", 0x7F800000, 0, 0, 0);
    hand_case("sub.sat.f32 %o0, %i1, %i2;", 0x80000000, 0, 0, 0);
    hand_case("fma.rn.sat.f32 %o0, %i1, %i2, %i3;", three, three, 0xFF800000, 0);
    /* immediates */
    hand_case("add.f32 %o0, %i1, 0f3F800000;", one, 0, 0, 0x40000000);
    hand_case("mul.f32 %o0, %i1, 0d4000000000000000;", three, 0, 0, 0x40C00000);
    hand_case("fma.rn.f32 %o0, %i1, 0f40000000, 0fBF800000;", three, 0, 0, 0x40A00000);
}

/* ------------------------------------------------------------ f64 */

/* expected values given per lane */
static uint64_t mm64_want[NT];
static uint64_t exp_mm64(const void *a, const void *b, const void *c, unsigned t)
{
    (void)a, (void)b, (void)c;
    return mm64_want[t];
}

static uint64_t exp_ref64(const void *a, const void *b, const void *c, unsigned t);

static uint64_t g64_last_got;
static uint64_t exp_ref64(const void *a, const void *b, const void *c, unsigned t)
{
    return ref64(cur_op, ((const uint64_t *)a)[t], ((const uint64_t *)b)[t],
                 ((const uint64_t *)c)[t], cur_rnd);
}

/* like check_insn but comparing f64 NaNs by NaN-ness */
static void check_f64(const char *insn, const uint64_t *a, const uint64_t *b, const uint64_t *c,
                      expect_fn expect)
{
    char ptx[4096], msg[2048];
    for (int guarded = 0; guarded < 2; guarded++) {
        build(ptx, sizeof(ptx), 8, 8, 0, guarded, insn);
        uint64_t out[NT], old[NT];
        for (unsigned t = 0; t < NT; t++)
            out[t] = old[t] = 0xA5A5A5A5A5A5A5A5ull + t;
        if (run_kernel(ptx, NT, out, 8, a, b, c, 8, msg, sizeof(msg)) != MB_OK)
            fail_msg("%s: %s", insn, msg);
        for (unsigned t = 0; t < NT; t++) {
            uint64_t want = (guarded && t % 4 == 0) ? old[t] : expect(a, b, c, t);
            if (!guarded && t == 1)
                g64_last_got = out[t];
            if (!same64(out[t], want))
                fail_msg("%s%s lane %u: got 0x%llx want 0x%llx (a=0x%llx b=0x%llx c=0x%llx)",
                         guarded ? "@p " : "", insn, t, (unsigned long long)out[t],
                         (unsigned long long)want, (unsigned long long)a[t],
                         (unsigned long long)b[t], (unsigned long long)c[t]);
        }
    }
}

static void test_f64_arith(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int op, nsrc;
    } ops[] = {{"add", F_ADD, 2},  {"sub", F_SUB, 2},   {"mul", F_MUL, 2}, {"div", F_DIV, 2},
               {"fma", F_FMA, 3},  {"mad", F_FMA, 3},   {"sqrt", F_SQRT, 1},
               {"rcp", F_RCP, 1}};
    uint64_t a[NT], b[NT], c[NT];
    for (int round = 0; round < 3; round++) {
        fill64(a, NT);
        fill64(b, NT);
        fill64(c, NT);
        for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
            for (int rnd = 0; rnd < 4; rnd++) {
                char insn[128];
                const char *srcs = ops[k].nsrc == 1   ? "%i1"
                                   : ops[k].nsrc == 2 ? "%i1, %i2"
                                                      : "%i1, %i2, %i3";
                snprintf(insn, sizeof(insn), "%s.%s.f64 %%o0, %s;", ops[k].name, rnd_name[rnd],
                         srcs);
                cur_op = ops[k].op, cur_rnd = rnd;
                check_f64(insn, a, b, c, exp_ref64);
            }
    }
    /* defaults: add/mul .rn; mad/div/rcp/sqrt.f64 without rounding are .rn */
    cur_rnd = R_N;
    cur_op = F_ADD;
    check_f64("add.f64 %o0, %i1, %i2;", a, b, c, exp_ref64);
    cur_op = F_FMA;
    check_f64("mad.f64 %o0, %i1, %i2, %i3;", a, b, c, exp_ref64);
    cur_op = F_DIV;
    check_f64("div.f64 %o0, %i1, %i2;", a, b, c, exp_ref64);
    cur_op = F_SQRT;
    check_f64("sqrt.f64 %o0, %i1;", a, b, c, exp_ref64);
    /* hand-computed: 1/3 in the four modes, fused vs unfused */
    for (unsigned t = 0; t < NT; t++) {
        a[t] = db(1.0);
        b[t] = db(3.0);
        c[t] = 0;
    }
    static const uint64_t third[4] = {0x3FD5555555555555ull, 0x3FD5555555555555ull,
                                      0x3FD5555555555555ull, 0x3FD5555555555556ull};
    for (int rnd = 0; rnd < 4; rnd++) {
        char insn[64];
        snprintf(insn, sizeof(insn), "div.%s.f64 %%o0, %%i1, %%i2;", rnd_name[rnd]);
        cur_op = F_DIV, cur_rnd = rnd;
        check_f64(insn, a, b, c, exp_ref64);
        assert_int_equal(g64_last_got, third[rnd]);
    }
    for (unsigned t = 0; t < NT; t++) {
        a[t] = db(1.0 + 0x1p-52);
        b[t] = db(1.0 - 0x1p-52);
        c[t] = db(-1.0);
    }
    cur_op = F_FMA, cur_rnd = R_N;
    check_f64("fma.rn.f64 %o0, %i1, %i2, %i3;", a, b, c, exp_ref64);
    assert_int_equal(g64_last_got, db(-0x1p-104));
    /* NaN results, hand-computed */
    static const struct {
        const char *insn;
        uint64_t a, b, c, want;
    } nans[] = {
        {"add.f64 %o0, %i1, %i2;", 0x7FF0000000000000ull, 0xFFF0000000000000ull, 0,
         0xFFF8000000000000ull},
        {"mul.f64 %o0, %i1, %i2;", 0x7FF0000000000000ull, 0, 0, 0xFFF8000000000000ull},
        {"add.f64 %o0, %i1, %i2;", 0x7FF8000000000001ull, 0xFFF8000000000002ull, 0,
         0x7FF8000000000001ull},
        {"add.f64 %o0, %i1, %i2;", 0xFFF8000000000002ull, 0x7FF8000000000001ull, 0,
         0xFFF8000000000002ull},
        {"sub.rz.f64 %o0, %i1, %i2;", 0x3FF0000000000000ull, 0x7FF0000000000005ull, 0,
         0x7FF8000000000005ull},
        {"fma.rn.f64 %o0, %i1, %i2, %i3;", 0x3FF0000000000000ull, 0x7FF0000000000007ull,
         0x7FF8000000000009ull, 0x7FF8000000000007ull},
        {"fma.rn.f64 %o0, %i1, %i2, %i3;", 0x7FF0000000000000ull, 0, 0x7FF8000000000009ull,
         0x7FF8000000000009ull},
        {"sqrt.rn.f64 %o0, %i1;", 0xBFF0000000000000ull, 0, 0, 0xFFF8000000000000ull},
        {"rcp.rn.f64 %o0, %i1;", 0x7FF0000000000003ull, 0, 0, 0x7FF8000000000003ull},
        {"div.rn.f64 %o0, %i1, %i2;", 0, 0, 0, 0xFFF8000000000000ull},
    };
    for (size_t k = 0; k < sizeof(nans) / sizeof(nans[0]); k++) {
        for (unsigned t = 0; t < NT; t++)
            a[t] = nans[k].a, b[t] = nans[k].b, c[t] = nans[k].c, mm64_want[t] = nans[k].want;
        check_insn(nans[k].insn, 8, 8, 0, a, b, c, exp_mm64);
    }
}

/* ------------------------------------------------------ min / max */

typedef struct {
    const char *insn;
    uint32_t a, b, want;
} mm32_case;

static void test_minmax_f32(void **state)
{
    (void)state;
    const uint32_t qnan = 0x7FC00001, pz = 0, nz = 0x80000000, one = 0x3F800000,
                   mone = 0xBF800000, two = 0x40000000, sub = 0x00000010;
    const mm32_case cases[] = {
        {"min.f32", one, two, one},
        {"min.f32", two, mone, mone},
        {"max.f32", one, two, two},
        {"min.f32", qnan, two, two},       /* one NaN: the other operand */
        {"min.f32", two, qnan, two},
        {"max.f32", 0xFF800001, mone, mone},
        {"min.f32", qnan, 0xFFC00000, CANON32}, /* both NaN: canonical */
        {"max.f32", qnan, qnan, CANON32},
        {"min.f32", pz, nz, nz},           /* -0 < +0 */
        {"min.f32", nz, pz, nz},
        {"max.f32", pz, nz, pz},
        {"max.f32", nz, pz, pz},
        {"min.f32", 0xFF800000, 0x7F800000, 0xFF800000},
        {"min.NaN.f32", qnan, two, CANON32}, /* .NaN propagates a canonical NaN */
        {"max.NaN.f32", two, qnan, CANON32},
        {"max.NaN.f32", two, one, two},
        {"min.f32", sub, 0x80000010, 0x80000010},
        {"min.ftz.f32", sub, 0x80000010, 0x80000000}, /* both flush: -0 < +0 */
        {"max.ftz.f32", sub, pz, pz},
        {"max.ftz.f32", sub, 0x80000001, 0},
        /* .xorsign.abs: |min| with the XOR of the signs */
        {"min.xorsign.abs.f32", mone, two, mone},
        {"min.xorsign.abs.f32", mone, 0xC0000000, one},
        {"max.xorsign.abs.f32", mone, 0x3F000000, mone},
        {"max.xorsign.abs.f32", 0xC0400000, 0xC0000000, 0x40400000},
        {"min.xorsign.abs.f32", qnan, 0xC0000000, 0xC0000000}, /* NaN ignored, sign still xored */
        {"min.xorsign.abs.f32", qnan, qnan, CANON32},
        {"min.NaN.xorsign.abs.f32", qnan, mone, CANON32},
        {"max.ftz.NaN.xorsign.abs.f32", 0x80000001, 0x00000005, 0x80000000},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        char insn[96];
        snprintf(insn, sizeof(insn), "%s %%o0, %%i1, %%i2;", cases[k].insn);
        hand_case(insn, cases[k].a, cases[k].b, 0, cases[k].want);
    }
}


static void test_minmax_f64(void **state)
{
    (void)state;
    static const struct {
        const char *insn;
        uint64_t a, b, want;
    } cases[] = {
        {"min.f64", 0x3FF0000000000000ull, 0x4000000000000000ull, 0x3FF0000000000000ull},
        {"max.f64", 0x3FF0000000000000ull, 0x4000000000000000ull, 0x4000000000000000ull},
        {"min.f64", 0x7FF8000000000001ull, 0xC000000000000000ull, 0xC000000000000000ull},
        {"max.f64", 0xC000000000000000ull, 0x7FF0000000000001ull, 0xC000000000000000ull},
        {"min.f64", 0x0000000000000000ull, 0x8000000000000000ull, 0x8000000000000000ull},
        {"max.f64", 0x8000000000000000ull, 0x0000000000000000ull, 0x0000000000000000ull},
        {"min.f64", 0x7FF8000000000001ull, 0x7FF8000000000002ull, 0x7FF8000000000001ull},
        {"max.NaN.f64", 0x4000000000000000ull, 0x7FF0000000000003ull, 0x7FF8000000000003ull},
        {"min.f64", 0x0000000000000001ull, 0x8000000000000001ull, 0x8000000000000001ull},
    };
    uint64_t a[NT], b[NT];
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        for (unsigned t = 0; t < NT; t++) {
            a[t] = cases[k].a, b[t] = cases[k].b, mm64_want[t] = cases[k].want;
        }
        char insn[96];
        snprintf(insn, sizeof(insn), "%s %%o0, %%i1, %%i2;", cases[k].insn);
        check_insn(insn, 8, 8, 0, a, b, a, exp_mm64); /* bit-exact, NaNs included */
    }
}

/* ------------------------------------------ neg, abs, copysign */

static void test_sign_ops(void **state)
{
    (void)state;
    /* .f32: bit operations, NaNs included; .ftz flushes a subnormal input */
    hand_case("neg.f32 %o0, %i1;", 0x3F800000, 0, 0, 0xBF800000);
    hand_case("neg.f32 %o0, %i1;", 0x00000000, 0, 0, 0x80000000);
    hand_case("neg.f32 %o0, %i1;", 0x7FC00001, 0, 0, 0xFFC00001);
    hand_case("neg.f32 %o0, %i1;", 0x00000003, 0, 0, 0x80000003);
    hand_case("neg.ftz.f32 %o0, %i1;", 0x00000003, 0, 0, 0x80000000);
    hand_case("abs.f32 %o0, %i1;", 0xFFC00001, 0, 0, 0x7FC00001);
    hand_case("abs.f32 %o0, %i1;", 0x80000007, 0, 0, 0x00000007);
    hand_case("abs.ftz.f32 %o0, %i1;", 0x80000007, 0, 0, 0);
    hand_case("abs.f32 %o0, %i1;", 0xFF800000, 0, 0, 0x7F800000);
    hand_case("copysign.f32 %o0, %i1, %i2;", 0x80000000, 0x3F800000, 0, 0xBF800000);
    hand_case("copysign.f32 %o0, %i1, %i2;", 0x00000000, 0xC0000000, 0, 0x40000000);
    hand_case("copysign.f32 %o0, %i1, %i2;", 0xFFC00000, 0x7FC00005, 0, 0xFFC00005);
    /* .f64: NaNs pass unchanged through neg/abs */
    static const struct {
        const char *insn;
        uint64_t a, b, want;
    } c64[] = {
        {"neg.f64 %o0, %i1;", 0x3FF0000000000000ull, 0, 0xBFF0000000000000ull},
        {"neg.f64 %o0, %i1;", 0x0000000000000000ull, 0, 0x8000000000000000ull},
        {"neg.f64 %o0, %i1;", 0x7FF8000000000001ull, 0, 0x7FF8000000000001ull},
        {"neg.f64 %o0, %i1;", 0xFFF0000000000001ull, 0, 0xFFF0000000000001ull},
        {"abs.f64 %o0, %i1;", 0xBFF0000000000000ull, 0, 0x3FF0000000000000ull},
        {"abs.f64 %o0, %i1;", 0xFFF8000000000000ull, 0, 0xFFF8000000000000ull},
        {"abs.f64 %o0, %i1;", 0x8000000000000001ull, 0, 0x0000000000000001ull},
        {"copysign.f64 %o0, %i1, %i2;", 0x8000000000000000ull, 0x4000000000000000ull,
         0xC000000000000000ull},
        {"copysign.f64 %o0, %i1, %i2;", 0x0000000000000000ull, 0xFFF8000000000000ull,
         0x7FF8000000000000ull},
    };
    uint64_t a[NT], b[NT];
    for (size_t k = 0; k < sizeof(c64) / sizeof(c64[0]); k++) {
        for (unsigned t = 0; t < NT; t++)
            a[t] = c64[k].a, b[t] = c64[k].b, mm64_want[t] = c64[k].want;
        check_insn(c64[k].insn, 8, 8, 0, a, b, a, exp_mm64);
    }
}

/* ------------------------------------------------------------ testp */

static const char *const tp_name[] = {"finite", "infinite", "number", "notanumber", "normal",
                                      "subnormal"};
static int cur_tp;

static int ref_testp(int tp, double v, int sub)
{
    switch (tp) {
    case 0: return isfinite(v) != 0;
    case 1: return isinf(v) != 0;
    case 2: return !isnan(v);
    case 3: return isnan(v) != 0;
    case 4: return isfinite(v) && !sub; /* zero counts as normal */
    default: return sub;
    }
}

static uint64_t exp_testp32(const void *a, const void *b, const void *c, unsigned t)
{
    (void)b, (void)c;
    uint32_t u = ((const uint32_t *)a)[t];
    int sub = (u & 0x7F800000u) == 0 && (u & 0x7FFFFFu) != 0;
    return (uint64_t)ref_testp(cur_tp, (double)bf_(u), sub);
}

static uint64_t exp_testp64(const void *a, const void *b, const void *c, unsigned t)
{
    (void)b, (void)c;
    uint64_t u = ((const uint64_t *)a)[t];
    int sub = (u & 0x7FF0000000000000ull) == 0 && (u & 0xFFFFFFFFFFFFFull) != 0;
    return (uint64_t)ref_testp(cur_tp, bd(u), sub);
}

static void test_testp(void **state)
{
    (void)state;
    uint32_t a[NT];
    uint64_t d[NT];
    for (unsigned t = 0; t < NT; t++) {
        a[t] = t < sizeof(special32) / 4 ? special32[t] : rand32();
        d[t] = t < sizeof(special64) / 8 ? special64[t] : rand64();
    }
    for (int tp = 0; tp < 6; tp++) {
        char insn[96];
        cur_tp = tp;
        snprintf(insn, sizeof(insn), "testp.%s.f32 %%p2, %%i1;", tp_name[tp]);
        check_insn(insn, 4, 4, 1, a, a, a, exp_testp32);
        snprintf(insn, sizeof(insn), "testp.%s.f64 %%p2, %%i1;", tp_name[tp]);
        check_insn(insn, 8, 4, 1, d, d, d, exp_testp64);
    }
    /* spot checks of the PTX definitions */
    cur_tp = 4;
    assert_int_equal(exp_testp32((uint32_t[]){0x80000000}, NULL, NULL, 0), 1);
    cur_tp = 5;
    assert_int_equal(exp_testp32((uint32_t[]){0x00000001}, NULL, NULL, 0), 1);
}

/* ----------------------------------------------------- approximations */

typedef double (*dfn)(double);

static double d_rcp(double x) { return 1.0 / x; }
static double d_rsqrt(double x) { return 1.0 / sqrt(x); }

/* runs an approximate unary f32 instruction and compares with the double
 * function within cur_tol (special values exactly) */
static void check_approx32(const char *insn, const uint32_t *a, dfn fn, double tol, int ftz)
{
    char ptx[4096], msg[2048];
    build(ptx, sizeof(ptx), 4, 4, 0, 0, insn);
    uint32_t out[NT] = {0};
    if (run_kernel(ptx, NT, out, 4, a, a, a, 4, msg, sizeof(msg)) != MB_OK)
        fail_msg("%s: %s", insn, msg);
    for (unsigned t = 0; t < NT; t++) {
        uint32_t in = ftz ? flush32(a[t]) : a[t];
        double want = fn((double)bf_(in));
        float wantf = (float)want;
        if (ftz)
            wantf = bf_(flush32(fb(wantf)));
        float got = bf_(out[t]);
        if (isnan(wantf)) {
            if (out[t] != CANON32)
                fail_msg("%s lane %u (x=0x%08x): got 0x%08x, want canonical NaN", insn, t, a[t],
                         out[t]);
            continue;
        }
        if (isinf(wantf) || wantf == 0.0f) {
            if (fb(got) != fb(wantf))
                fail_msg("%s lane %u (x=0x%08x): got 0x%08x want 0x%08x", insn, t, a[t], fb(got),
                         fb(wantf));
            continue;
        }
        /* relative tolerance, or half the subnormal spacing */
        double err = fabs((double)got - want);
        if (!(err <= fmax(fabs(want) * tol, 0x1p-150)))
            fail_msg("%s lane %u (x=%a): got %a want %a (rel err %g)", insn, t, (double)bf_(a[t]),
                     (double)got, want, err);
    }
}

static void test_approx_f32(void **state)
{
    (void)state;
    uint32_t a[NT], pos[NT], small[NT];
    for (unsigned t = 0; t < NT; t++) {
        a[t] = t < sizeof(special32) / 4 ? special32[t] : rand32();
        pos[t] = a[t] & 0x7FFFFFFFu;
        /* |x| < 8 for the trigonometric functions */
        small[t] = t < sizeof(special32) / 4 ? special32[t]
                                             : fb((float)((int)(rnd64() % 16000) - 8000) / 1000.0f);
    }
    const double ulp = 0x1p-23;
    for (int ftz = 0; ftz < 2; ftz++) {
        char insn[96];
#define APPROX(op, arr, fn, tol)                                                                   \
    snprintf(insn, sizeof(insn), op ".approx%s.f32 %%o0, %%i1;", ftz ? ".ftz" : "");              \
    check_approx32(insn, arr, fn, tol, ftz)
        APPROX("sin", small, sin, ulp);
        APPROX("cos", small, cos, ulp);
        APPROX("lg2", a, log2, ulp);
        APPROX("lg2", pos, log2, ulp);
        APPROX("ex2", a, exp2, ulp);
        APPROX("ex2", small, exp2, ulp);
        APPROX("rsqrt", pos, d_rsqrt, ulp);
        APPROX("rsqrt", a, d_rsqrt, ulp);
        APPROX("sqrt", pos, sqrt, ulp);
        APPROX("rcp", a, d_rcp, ulp);
#undef APPROX
    }
    check_approx32("tanh.approx.f32 %o0, %i1;", a, tanh, 0x1p-23, 0);
    check_approx32("tanh.approx.f32 %o0, %i1;", small, tanh, 0x1p-23, 0);
    /* legacy forms without .approx are .approx.ftz */
    check_approx32("sin.f32 %o0, %i1;", small, sin, ulp, 1);
    check_approx32("ex2.f32 %o0, %i1;", a, exp2, ulp, 1);
    check_approx32("rcp.f32 %o0, %i1;", a, d_rcp, ulp, 1);
    check_approx32("sqrt.f32 %o0, %i1;", pos, sqrt, ulp, 1);
    /* special values */
    hand_case("ex2.approx.f32 %o0, %i1;", 0xFF800000, 0, 0, 0);
    hand_case("ex2.approx.f32 %o0, %i1;", 0x7F800000, 0, 0, 0x7F800000);
    hand_case("ex2.approx.f32 %o0, %i1;", 0x43000000, 0, 0, 0x7F800000); /* 2^128 */
    hand_case("ex2.approx.f32 %o0, %i1;", 0xC3100000, 0, 0, 0x00000020); /* 2^-144 */
    hand_case("ex2.approx.ftz.f32 %o0, %i1;", 0xC3100000, 0, 0, 0);
    hand_case("ex2.approx.f32 %o0, %i1;", 0x40400000, 0, 0, 0x41000000); /* 2^3 */
    hand_case("lg2.approx.f32 %o0, %i1;", 0x00000000, 0, 0, 0xFF800000);
    hand_case("lg2.approx.f32 %o0, %i1;", 0x80000000, 0, 0, 0xFF800000);
    hand_case("lg2.approx.f32 %o0, %i1;", 0xBF800000, 0, 0, CANON32);
    hand_case("lg2.approx.f32 %o0, %i1;", 0x00000001, 0, 0, 0xC3150000); /* -149 */
    hand_case("lg2.approx.ftz.f32 %o0, %i1;", 0x00000001, 0, 0, 0xFF800000);
    hand_case("lg2.approx.f32 %o0, %i1;", 0x41000000, 0, 0, 0x40400000);
    hand_case("rsqrt.approx.f32 %o0, %i1;", 0x00000000, 0, 0, 0x7F800000);
    hand_case("rsqrt.approx.f32 %o0, %i1;", 0x80000000, 0, 0, 0xFF800000);
    hand_case("rsqrt.approx.f32 %o0, %i1;", 0x7F800000, 0, 0, 0);
    hand_case("rsqrt.approx.f32 %o0, %i1;", 0x40800000, 0, 0, 0x3F000000);
    hand_case("sin.approx.f32 %o0, %i1;", 0x7F800000, 0, 0, CANON32);
    hand_case("sin.approx.f32 %o0, %i1;", 0x80000000, 0, 0, 0x80000000);
    hand_case("cos.approx.f32 %o0, %i1;", 0x80000000, 0, 0, 0x3F800000);
    hand_case("tanh.approx.f32 %o0, %i1;", 0xFF800000, 0, 0, 0xBF800000);
    hand_case("tanh.approx.f32 %o0, %i1;", 0x7FC00000, 0, 0, CANON32);
    hand_case("rcp.approx.f32 %o0, %i1;", 0x80000000, 0, 0, 0xFF800000);
    hand_case("rcp.approx.f32 %o0, %i1;", 0xFF800000, 0, 0, 0x80000000);
    hand_case("rcp.approx.ftz.f32 %o0, %i1;", 0x80000001, 0, 0, 0xFF800000);
    hand_case("rcp.approx.f32 %o0, %i1;", 0x00000001, 0, 0, 0x7F800000);
    hand_case("sqrt.approx.f32 %o0, %i1;", 0xC0800000, 0, 0, CANON32);
    hand_case("sqrt.approx.ftz.f32 %o0, %i1;", 0x80000001, 0, 0, 0x80000000);
}

static float div_ref_approx(uint32_t ua, uint32_t ub, int ftz)
{
    float a = bf_(ftz ? flush32(ua) : ua), b = bf_(ftz ? flush32(ub) : ub);
    return a / b;
}

static void test_div_approx(void **state)
{
    (void)state;
    uint32_t a[NT], b[NT];
    const char *forms[] = {"div.approx.f32", "div.approx.ftz.f32", "div.full.f32",
                           "div.full.ftz.f32"};
    for (int f = 0; f < 4; f++) {
        int ftz = f & 1;
        for (unsigned t = 0; t < NT; t++) {
            /* normal operands with |b| in [2^-126, 2^126] and a finite quotient */
            a[t] = fb((float)((int)(rnd64() % 20001) - 10000) * 0x1p-7f);
            b[t] = (uint32_t)(rnd64() & 1) << 31 | (uint32_t)(107 + rnd64() % 40) << 23 |
                   (uint32_t)(rnd64() % 0x800000);
        }
        char ptx[4096], msg[2048], insn[96];
        snprintf(insn, sizeof(insn), "%s %%o0, %%i1, %%i2;", forms[f]);
        build(ptx, sizeof(ptx), 4, 4, 0, 0, insn);
        uint32_t out[NT] = {0};
        if (run_kernel(ptx, NT, out, 4, a, b, a, 4, msg, sizeof(msg)) != MB_OK)
            fail_msg("%s: %s", insn, msg);
        for (unsigned t = 0; t < NT; t++) {
            float want = div_ref_approx(a[t], b[t], ftz), got = bf_(out[t]);
            /* PTX: at most 2 ulp; div.full here is the IEEE quotient */
            double ulp = ldexp(1.0, ilogbf(want) - 23);
            double tol = f >= 2 ? 0.0 : 2 * ulp;
            if (want == 0.0f ? fb(got) != fb(want) : fabs((double)got - want) > tol)
                fail_msg("%s lane %u: %a / %a = %a, want %a", insn, t, (double)bf_(a[t]),
                         (double)bf_(b[t]), (double)got, (double)want);
        }
    }
    /* div.approx is a * (1/b): for 2^126 < |b| < 2^128 it gives 0, or NaN for infinite a */
    hand_case("div.approx.f32 %o0, %i1, %i2;", 0x3F800000, 0x7F000000, 0, 0);
    hand_case("div.approx.f32 %o0, %i1, %i2;", 0xBF800000, 0x7F000000, 0, 0x80000000);
    hand_case("div.approx.f32 %o0, %i1, %i2;", 0x7F800000, 0x7F000000, 0, CANON32);
    hand_case("div.full.f32 %o0, %i1, %i2;", 0x7F000000, 0x7F000000, 0, 0x3F800000);
    hand_case("div.approx.f32 %o0, %i1, %i2;", 0x40C00000, 0x40400000, 0, 0x40000000);
    hand_case("div.approx.f32 %o0, %i1, %i2;", 0, 0, 0, CANON32);
    hand_case("div.approx.ftz.f32 %o0, %i1, %i2;", 0x3F800000, 0x00000001, 0, 0x7F800000);
    hand_case("div.full.f32 %o0, %i1, %i2;", 0x00000002, 0x40000000, 0, 0x00000001);
    hand_case("div.full.ftz.f32 %o0, %i1, %i2;", 0x00000002, 0x40000000, 0, 0);
    /* legacy div.f32 is div.approx.ftz.f32 */
    hand_case("div.f32 %o0, %i1, %i2;", 0x40C00000, 0x40400000, 0, 0x40000000);
    hand_case("div.f32 %o0, %i1, %i2;", 0x00000002, 0x3F800000, 0, 0);
}

static void test_approx_f64(void **state)
{
    (void)state;
    uint64_t a[NT];
    for (unsigned t = 0; t < NT; t++)
        a[t] = t < sizeof(special64) / 8 ? special64[t] : rand64();
    const char *forms[] = {"rsqrt.approx.f64", "rsqrt.approx.ftz.f64", "rcp.approx.ftz.f64"};
    for (int f = 0; f < 3; f++) {
        char ptx[4096], msg[2048], insn[96];
        snprintf(insn, sizeof(insn), "%s %%o0, %%i1;", forms[f]);
        build(ptx, sizeof(ptx), 8, 8, 0, 0, insn);
        uint64_t out[NT] = {0};
        if (run_kernel(ptx, NT, out, 8, a, a, a, 8, msg, sizeof(msg)) != MB_OK)
            fail_msg("%s: %s", insn, msg);
        int ftz = f > 0;
        for (unsigned t = 0; t < NT; t++) {
            uint64_t in = a[t];
            if (ftz && (in & 0x7FF0000000000000ull) == 0)
                in &= 0x8000000000000000ull;
            double x = bd(in), want = f == 2 ? 1.0 / x : 1.0 / sqrt(x), got = bd(out[t]);
            if (ftz && want != 0 && fabs(want) < 0x1p-1022)
                want = copysign(0.0, want);
            if (isnan(want) ? !isnan(got)
                            : (isinf(want) || want == 0) ? db(got) != db(want)
                                                         : fabs(got - want) > fabs(want) * 0x1p-51)
                fail_msg("%s lane %u: x=%a got %a want %a", insn, t, bd(a[t]), got, want);
        }
    }
    mm64_want[0] = 0;
    uint64_t one[NT], w[NT];
    for (unsigned t = 0; t < NT; t++) {
        one[t] = 0x0000000000000003ull; /* subnormal: flushed, 1/+0 = +inf */
        w[t] = 0x7FF0000000000000ull;
        mm64_want[t] = w[t];
    }
    check_insn("rcp.approx.ftz.f64 %o0, %i1;", 8, 8, 0, one, one, one, exp_mm64);
    for (unsigned t = 0; t < NT; t++) {
        one[t] = 0x7FE0000000000000ull; /* 1/2^1023 is subnormal: flushed */
        mm64_want[t] = 0;
    }
    check_insn("rcp.approx.ftz.f64 %o0, %i1;", 8, 8, 0, one, one, one, exp_mm64);
}

/* ---------------------------------------------------- 16-bit types */

/* Independent reference: value of a 16-bit float and correct rounding of a
 * double to it (frexp/ldexp/rint rather than bit manipulation). */
static double hval(uint32_t h, int bf)
{
    h &= 0xFFFF;
    int fbits = bf ? 7 : 10, ebits = bf ? 8 : 5, bias = bf ? 127 : 15;
    int e = (int)(h >> fbits) & ((1 << ebits) - 1);
    double m = (double)(h & ((1u << fbits) - 1));
    double v;
    if (e == (1 << ebits) - 1)
        v = m != 0 ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp(m, 1 - bias - fbits);
    else
        v = ldexp(m + ldexp(1.0, fbits), e - bias - fbits);
    return (h & 0x8000) ? -v : v;
}

static uint32_t hround(long double v, int bf)
{
    int fbits = bf ? 7 : 10, bias = bf ? 127 : 15;
    uint32_t inf = bf ? 0x7F80 : 0x7C00;
    if (isnan(v))
        return 0x7FFF;
    uint32_t sign = signbit(v) ? 0x8000 : 0;
    long double av = fabsl(v);
    if (isinf(av))
        return sign | inf;
    if (av == 0)
        return sign;
    int e;
    frexpl(av, &e);
    e -= 1; /* av in [2^e, 2^(e+1)) */
    if (e < 1 - bias)
        e = 1 - bias;
    long double quantum = ldexpl(1.0L, e - fbits);
    long double r = rintl(av / quantum) * quantum; /* ties to even */
    if (r >= ldexpl(2.0L, bias))
        return sign | inf;
    /* encode the representable r */
    if (r < ldexpl(1.0L, 1 - bias))
        return sign | (uint32_t)(r / ldexpl(1.0L, 1 - bias - fbits));
    int re = ilogbl(r);
    uint32_t frac = (uint32_t)((r / ldexpl(1.0L, re) - 1.0L) * ldexpl(1.0L, fbits));
    return sign | (uint32_t)(re + bias) << fbits | frac;
}

static uint32_t hflush(uint32_t h, int bf)
{
    return (h & (bf ? 0x7F80u : 0x7C00u)) ? h : (h & 0x8000u);
}

static int hnan(uint32_t h, int bf)
{
    return (h & 0x7FFF) > (bf ? 0x7F80u : 0x7C00u);
}

enum { HA_ADD, HA_SUB, HA_MUL, HA_FMA, HA_MIN, HA_MAX, HA_NEG, HA_ABS, HA_EX2, HA_TANH };
enum { HFL_FTZ = 1, HFL_SAT = 2, HFL_RELU = 4, HFL_NAN = 8, HFL_XS = 16 };

static uint32_t href(int op, uint32_t a, uint32_t b, uint32_t c, int bf, int fl)
{
    a &= 0xFFFF, b &= 0xFFFF, c &= 0xFFFF;
    if (fl & HFL_FTZ)
        a = hflush(a, bf), b = hflush(b, bf), c = hflush(c, bf);
    if (op == HA_NEG)
        return a ^ 0x8000;
    if (op == HA_ABS)
        return a & 0x7FFF;
    if (op == HA_MIN || op == HA_MAX) {
        uint32_t s = (a ^ b) & 0x8000;
        if (fl & HFL_XS)
            a &= 0x7FFF, b &= 0x7FFF;
        int na = hnan(a, bf), nb = hnan(b, bf);
        uint32_t r;
        if ((na && nb) || ((fl & HFL_NAN) && (na || nb)))
            return 0x7FFF;
        if (na)
            r = b;
        else if (nb)
            r = a;
        else {
            double x = hval(a, bf), y = hval(b, bf);
            if (x == y) /* equal: -0 is smaller */
                r = ((op == HA_MIN) == ((a & 0x8000) != 0)) ? a : b;
            else
                r = ((op == HA_MIN) == (x < y)) ? a : b;
        }
        return (fl & HFL_XS) ? ((r & 0x7FFF) | s) : r;
    }
    double x = hval(a, bf), y = hval(b, bf), z = hval(c, bf);
    long double v;
    switch (op) {
    case HA_ADD: v = (long double)x + y; break; /* exact for the operands used here */
    case HA_SUB: v = (long double)x - y; break;
    case HA_MUL: v = (long double)x * y; break;
    case HA_FMA: v = (long double)x * y + z; break;
    case HA_EX2: v = exp2(x); break;
    default: v = tanh(x); break;
    }
    uint32_t r = hround(v, bf);
    if ((fl & HFL_RELU) && (r & 0x8000))
        r = 0;
    if (fl & HFL_SAT) {
        uint32_t one = bf ? 0x3F80 : 0x3C00;
        if (hnan(r, bf) || (r & 0x8000))
            r = 0;
        else if (r > one)
            r = one;
    }
    if (fl & HFL_FTZ)
        r = hflush(r, bf);
    return r;
}

static uint32_t rand_half(int bf)
{
    static const uint16_t sp16[] = {0x0000, 0x8000, 0x3C00, 0xBC00, 0x7C00, 0xFC00, 0x7E00,
                                    0x7C01, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x3555};
    static const uint16_t spbf[] = {0x0000, 0x8000, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7FC0,
                                    0x7F81, 0x0001, 0x807F, 0x0080, 0x7F7F, 0xFF7F, 0x3EAB};
    uint64_t r = rnd64();
    if (r % 4 == 0)
        return bf ? spbf[(r >> 8) % 14] : sp16[(r >> 8) % 14];
    if (bf) /* moderate exponents keep the long double reference exact */
        return (uint32_t)((r >> 16) & 0x807F) | (uint32_t)(100 + (r >> 32) % 56) << 7;
    return (uint32_t)(r >> 16) & 0xFFFF;
}

static int cur_hop, cur_bf, cur_x2, cur_hfl;
static uint64_t exp_half(const void *a, const void *b, const void *c, unsigned t)
{
    size_t w = cur_x2 ? 4 : 2;
    uint32_t ua = (uint32_t)get_elem(a, w, t), ub = (uint32_t)get_elem(b, w, t),
             uc = (uint32_t)get_elem(c, w, t);
    uint32_t lo = href(cur_hop, ua, ub, uc, cur_bf, cur_hfl);
    if (!cur_x2)
        return lo;
    return lo | href(cur_hop, ua >> 16, ub >> 16, uc >> 16, cur_bf, cur_hfl) << 16;
}

static void test_half(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int op, nsrc;
        int fl_f16, fl_bf16; /* modifiers the form accepts */
    } ops[] = {
        {"add.rn", HA_ADD, 2, HFL_FTZ | HFL_SAT, 0},
        {"add", HA_ADD, 2, HFL_FTZ | HFL_SAT, 0},
        {"sub.rn", HA_SUB, 2, HFL_FTZ | HFL_SAT, 0},
        {"mul.rn", HA_MUL, 2, HFL_FTZ | HFL_SAT, 0},
        {"mul", HA_MUL, 2, 0, 0},
        {"fma.rn", HA_FMA, 3, HFL_FTZ | HFL_SAT, 0},
        {"fma.rn", HA_FMA, 3, HFL_FTZ | HFL_RELU, HFL_RELU},
        {"min", HA_MIN, 2, HFL_FTZ | HFL_NAN | HFL_XS, HFL_NAN | HFL_XS},
        {"max", HA_MAX, 2, HFL_FTZ | HFL_NAN | HFL_XS, HFL_NAN | HFL_XS},
        {"neg", HA_NEG, 1, HFL_FTZ, 0},
        {"abs", HA_ABS, 1, HFL_FTZ, 0},
    };
    static const char *const types[4] = {"f16", "f16x2", "bf16", "bf16x2"};
    uint32_t a[NT], b[NT], c[NT];
    for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
        for (int ty = 0; ty < 4; ty++) {
            int bf = ty >= 2, x2 = ty & 1;
            int allowed = bf ? ops[k].fl_bf16 : ops[k].fl_f16;
            for (int fl = 0; fl < 32; fl++) {
                if ((fl & ~allowed) || ((fl & HFL_SAT) && (fl & HFL_RELU)))
                    continue;
                if ((fl & HFL_NAN) && (fl & HFL_XS) && (fl & HFL_FTZ))
                    continue; /* enough combinations */
                for (unsigned t = 0; t < NT; t++) {
                    a[t] = rand_half(bf) | (x2 ? rand_half(bf) << 16 : 0);
                    b[t] = rand_half(bf) | (x2 ? rand_half(bf) << 16 : 0);
                    c[t] = rand_half(bf) | (x2 ? rand_half(bf) << 16 : 0);
                }
                char insn[160];
                const char *srcs = ops[k].nsrc == 1   ? "%i1"
                                   : ops[k].nsrc == 2 ? "%i1, %i2"
                                                      : "%i1, %i2, %i3";
                snprintf(insn, sizeof(insn), "%s%s%s%s%s%s.%s %%o0, %s;", ops[k].name,
                         (fl & HFL_FTZ) ? ".ftz" : "", (fl & HFL_NAN) ? ".NaN" : "",
                         (fl & HFL_XS) ? ".xorsign.abs" : "", (fl & HFL_SAT) ? ".sat" : "",
                         (fl & HFL_RELU) ? ".relu" : "", types[ty], srcs);
                cur_hop = ops[k].op, cur_bf = bf, cur_x2 = x2, cur_hfl = fl;
                if (x2) {
                    check_insn(insn, 4, 4, 0, a, b, c, exp_half);
                } else {
                    uint16_t a16[NT], b16[NT], c16[NT];
                    for (unsigned t = 0; t < NT; t++)
                        a16[t] = (uint16_t)a[t], b16[t] = (uint16_t)b[t], c16[t] = (uint16_t)c[t];
                    check_insn(insn, 2, 2, 0, a16, b16, c16, exp_half);
                }
            }
        }
    /* exhaustive binary16 add/mul against one operand sweep: every f16 value */
    for (int op = 0; op < 2; op++) {
        for (uint32_t base = 0; base < 0x10000; base += 2 * NT) {
            uint32_t x[NT], y[NT];
            for (unsigned t = 0; t < NT; t++) {
                x[t] = (base + 2 * t) | (base + 2 * t + 1) << 16;
                y[t] = 0x3555 | 0x1C01u << 16; /* 0.333, 2^-8 * (1 + 2^-10) */
            }
            cur_hop = op ? HA_MUL : HA_ADD, cur_bf = 0, cur_x2 = 1, cur_hfl = 0;
            check_insn(op ? "mul.rn.f16x2 %o0, %i1, %i2;" : "add.rn.f16x2 %o0, %i1, %i2;", 4, 4,
                       0, x, y, y, exp_half);
        }
    }
}

static void test_half_special(void **state)
{
    (void)state;
    uint16_t a[NT], b[NT], c[NT];
    static const struct {
        const char *insn;
        uint16_t a, b, c, want;
    } cases[] = {
        {"add.f16 %o0, %i1, %i2;", 0x3C00, 0x3C00, 0, 0x4000},
        {"add.f16 %o0, %i1, %i2;", 0x7BFF, 0x5000, 0, 0x7C00},  /* 65504 + 32 -> inf */
        {"add.f16 %o0, %i1, %i2;", 0x7BFF, 0x4F00, 0, 0x7C00},  /* 65532 -> inf */
        {"add.f16 %o0, %i1, %i2;", 0x7BFF, 0x4C00, 0, 0x7C00},  /* 65520: tie to even is inf */
        {"add.f16 %o0, %i1, %i2;", 0x7BFF, 0x4800, 0, 0x7BFF},  /* 65512 -> 65504 */
        {"add.f16 %o0, %i1, %i2;", 0x0001, 0x0001, 0, 0x0002},  /* subnormals */
        {"add.ftz.f16 %o0, %i1, %i2;", 0x0001, 0x0001, 0, 0x0000},
        {"add.f16 %o0, %i1, %i2;", 0x7C00, 0xFC00, 0, 0x7FFF},  /* inf - inf: canonical NaN */
        {"add.f16 %o0, %i1, %i2;", 0x7E12, 0x3C00, 0, 0x7FFF},
        {"mul.f16 %o0, %i1, %i2;", 0x0200, 0x3800, 0, 0x0100},
        {"mul.f16 %o0, %i1, %i2;", 0x0001, 0x3800, 0, 0x0000},  /* 2^-25: tie to even 0 */
        {"mul.f16 %o0, %i1, %i2;", 0x0003, 0x3800, 0, 0x0002},  /* 1.5 * 2^-24: tie to 2 */
        {"mul.f16 %o0, %i1, %i2;", 0x8001, 0x3800, 0, 0x8000},
        {"fma.rn.f16 %o0, %i1, %i2, %i3;", 0x3C01, 0x3BFE, 0xBC00, 0x8010}, /* -2^-20 fused */
        {"mul.rn.f16 %o0, %i1, %i2;", 0x3C01, 0x3BFE, 0, 0x3C00},
        {"fma.rn.relu.f16 %o0, %i1, %i2, %i3;", 0x3C01, 0x3BFE, 0xBC00, 0x0000},
        {"fma.rn.sat.f16 %o0, %i1, %i2, %i3;", 0x4000, 0x4000, 0x0000, 0x3C00},
        {"add.sat.f16 %o0, %i1, %i2;", 0x7C00, 0xFC00, 0, 0x0000},
        {"neg.f16 %o0, %i1;", 0x7E00, 0, 0, 0xFE00},
        {"abs.f16 %o0, %i1;", 0x8001, 0, 0, 0x0001},
        {"abs.ftz.f16 %o0, %i1;", 0x8001, 0, 0, 0x0000},
        {"neg.bf16 %o0, %i1;", 0x3F80, 0, 0, 0xBF80},
        {"abs.bf16 %o0, %i1;", 0xFFC1, 0, 0, 0x7FC1},
        {"add.bf16 %o0, %i1, %i2;", 0x3F80, 0x3B80, 0, 0x3F80}, /* 1 + 2^-8: tie to even */
        {"add.bf16 %o0, %i1, %i2;", 0x3F81, 0x3B80, 0, 0x3F82}, /* tie to even up */
        {"add.rn.bf16 %o0, %i1, %i2;", 0x7F7F, 0x7B00, 0, 0x7F80},
        {"mul.rn.bf16 %o0, %i1, %i2;", 0x0001, 0x3F00, 0, 0x0000},
        {"fma.rn.bf16 %o0, %i1, %i2, %i3;", 0x3F81, 0x3F7E, 0xBF80, 0xB880}, /* -2^-14 */
        {"fma.rn.relu.bf16 %o0, %i1, %i2, %i3;", 0x7FC0, 0x3F80, 0x3F80, 0x7FFF},
        /* a*b = 1.12890625 is a bf16 midpoint; a tiny c (+-2^-80) decides, although
         * a*b + c is not representable in double */
        {"fma.rn.bf16 %o0, %i1, %i2, %i3;", 0x3F88, 0x3F88, 0x1780, 0x3F91},
        {"fma.rn.bf16 %o0, %i1, %i2, %i3;", 0x3F88, 0x3F88, 0x9780, 0x3F90},
        {"fma.rn.bf16 %o0, %i1, %i2, %i3;", 0x3F88, 0x3F88, 0x0000, 0x3F90},
        {"min.f16 %o0, %i1, %i2;", 0x7E00, 0x3C00, 0, 0x3C00},
        {"min.NaN.f16 %o0, %i1, %i2;", 0x7E00, 0x3C00, 0, 0x7FFF},
        {"max.bf16 %o0, %i1, %i2;", 0x8000, 0x0000, 0, 0x0000},
        {"min.bf16 %o0, %i1, %i2;", 0x0000, 0x8000, 0, 0x8000},
        {"max.xorsign.abs.f16 %o0, %i1, %i2;", 0xC000, 0x3C00, 0, 0xC000},
        {"ex2.approx.f16 %o0, %i1;", 0x4200, 0, 0, 0x4800},     /* 2^3 = 8 */
        {"ex2.approx.f16 %o0, %i1;", 0xFC00, 0, 0, 0x0000},
        {"ex2.approx.f16 %o0, %i1;", 0x4C00, 0, 0, 0x7C00},     /* 2^16: overflow */
        {"ex2.approx.ftz.bf16 %o0, %i1;", 0xC300, 0, 0, 0x0000}, /* 2^-128 flushed */
        {"ex2.approx.ftz.bf16 %o0, %i1;", 0x3F80, 0, 0, 0x4000},
        {"tanh.approx.f16 %o0, %i1;", 0x0000, 0, 0, 0x0000},
        {"tanh.approx.f16 %o0, %i1;", 0xFC00, 0, 0, 0xBC00},
        {"tanh.approx.bf16 %o0, %i1;", 0x4120, 0, 0, 0x3F80},   /* tanh(10) rounds to 1 */
        {"add.f16 %o0, %i1, 0f3F800000;", 0x3C00, 0, 0, 0x4000}, /* literal converted */
        {"mul.bf16 %o0, %i1, 0d4000000000000000;", 0x3F80, 0, 0, 0x4000},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        for (unsigned t = 0; t < NT; t++) {
            a[t] = cases[k].a, b[t] = cases[k].b, c[t] = cases[k].c;
            mm64_want[t] = cases[k].want;
        }
        check_insn(cases[k].insn, 2, 2, 0, a, b, c, exp_mm64);
    }
    /* x2: the two halves are independent */
    uint32_t x[NT], y[NT];
    for (unsigned t = 0; t < NT; t++) {
        x[t] = 0x3C00u | 0xC000u << 16;
        y[t] = 0x7C00u | 0x3C00u << 16;
        mm64_want[t] = 0x7C00u | 0xBC00u << 16;
    }
    check_insn("add.f16x2 %o0, %i1, %i2;", 4, 4, 0, x, y, y, exp_mm64);
    for (unsigned t = 0; t < NT; t++)
        mm64_want[t] = 0x7C00u | 0xC000u << 16;
    check_insn("max.xorsign.abs.f16x2 %o0, %i1, %i2;", 4, 4, 0, x, y, y, exp_mm64);
    /* reference self-check against hand values */
    assert_int_equal(hround(65520.0, 0), 0x7C00);
    assert_int_equal(hround(0x1p-25, 0), 0x0000);
    assert_int_equal(hround(0x1.0000001p-25, 0), 0x0001);
    assert_int_equal(hround(1.0 + 0x1p-8, 1), 0x3F80);
    assert_int_equal(hround(0x1p-133, 1), 0x0001);
}

static void test_half_approx(void **state)
{
    (void)state;
    /* every f16 input for ex2/tanh: within 1 ulp of the correctly rounded value */
    static const char *const forms[] = {"ex2.approx.f16x2", "tanh.approx.f16x2",
                                        "ex2.approx.ftz.bf16x2", "tanh.approx.bf16x2"};
    for (int f = 0; f < 4; f++) {
        int bf = f >= 2;
        char ptx[4096], msg[2048], insn[96];
        snprintf(insn, sizeof(insn), "%s %%o0, %%i1;", forms[f]);
        build(ptx, sizeof(ptx), 4, 4, 0, 0, insn);
        for (uint32_t base = 0; base < 0x10000; base += 2 * NT) {
            uint32_t x[NT], out[NT] = {0};
            for (unsigned t = 0; t < NT; t++)
                x[t] = ((base + 2 * t) & 0xFFFF) | ((base + 2 * t + 1) & 0xFFFF) << 16;
            if (run_kernel(ptx, NT, out, 4, x, x, x, 4, msg, sizeof(msg)) != MB_OK)
                fail_msg("%s: %s", insn, msg);
            for (unsigned t = 0; t < NT; t++)
                for (int h = 0; h < 2; h++) {
                    uint32_t in = (x[t] >> (16 * h)) & 0xFFFF;
                    uint32_t got = (out[t] >> (16 * h)) & 0xFFFF;
                    int fl = bf && f == 2 ? HFL_FTZ : 0;
                    uint32_t want = href(f % 2 ? HA_TANH : HA_EX2, in, 0, 0, bf, fl);
                    int ok = got == want || (hnan(want, bf) && got == 0x7FFF) ||
                             (!hnan(want, bf) && !hnan(got, bf) && (got ^ want) < 0x8000 &&
                              (got > want ? got - want : want - got) <= 1);
                    if (!ok)
                        fail_msg("%s of 0x%04x: got 0x%04x want 0x%04x", insn, in, got, want);
                }
        }
    }
}

/* ------------------------------------------------------ decode errors */

static void expect_unsupported(const char *insn, const char *reg_decl)
{
    char ptx[2048];
    snprintf(ptx, sizeof(ptx),
             HEADER ".visible .entry k()\n{\n\t.reg .pred %%p<2>;\n%s\n\t%s\n\tret;\n}\n", reg_decl,
             insn);
    harness_opts o = harness_one_cta(32);
    mb_status st = harness_run(ptx, "k", &o, NULL, 0);
    if (st != MB_ERR_UNSUPPORTED)
        fail_msg("'%s' should be unsupported (status %d: %s)", insn, (int)st, o.message);
    int line = 1;
    for (const char *p = ptx; p < strstr(ptx, insn); p++)
        line += *p == '\n';
    char where[32];
    snprintf(where, sizeof(where), "test.ptx:%d:", line);
    if (!strstr(o.message, where))
        fail_msg("'%s': the message should name %s: %s", insn, where, o.message);
}

static void test_decode_errors(void **state)
{
    (void)state;
    const char *r32 = "\t.reg .f32 %f<4>;\n\t.reg .f64 %d<4>;\n\t.reg .b16 %h<4>;\n\t.reg .b32 %r<4>;";
    static const char *const bad[] = {
        "add.rz.f16 %h1, %h2, %h3;",          /* 16-bit types round to nearest only */
        "add.ftz.f64 %d1, %d2, %d3;",         /* no .ftz on f64 */
        "add.sat.f64 %d1, %d2, %d3;",
        "add.ftz.bf16 %h1, %h2, %h3;",
        "div.sat.f32 %f1, %f2, %f3;",
        "div.approx.f64 %d1, %d2, %d3;",
        "div.approx.rn.f32 %f1, %f2, %f3;",   /* conflicting */
        "add.rn.rz.f32 %f1, %f2, %f3;",
        "rcp.approx.f64 %d1, %d2;",           /* only rcp.approx.ftz.f64 exists */
        "min.xorsign.abs.f64 %d1, %d2, %d3;",
        "min.xorsign.f32 %f1, %f2, %f3;",     /* .xorsign needs .abs */
        "tanh.approx.f64 %d1, %d2;",
        "tanh.f32 %f1, %f2;",
        "sin.approx.f64 %d1, %d2;",
        "ex2.f16 %h1, %h2;",
        "mad.f16 %h1, %h2, %h3, %h1;",
        "fma.rn.oob.f16 %h1, %h2, %h3, %h1;",
        "fma.rn.sat.relu.f16 %h1, %h2, %h3, %h1;",
        "copysign.f16 %h1, %h2, %h3;",
        "add.f32 %f1, %f2, %d3;",             /* register width */
        "add.f64 %d1, %d2, %f3;",
        "neg.ftz.f64 %d1, %d2;",
        "testp.finite.f16 %p1, %h1;",
        "sqrt.approx.f64 %d1, %d2;",
        "add.f16x2 %r1, %r2, 0f3F800000;",    /* float literal for a packed type */
        "min.relu.f32 %f1, %f2, %f3;",
        "abs.sat.f32 %f1, %f2;",
        "lg2.approx.f16 %h1, %h2;",
        "min.nan.f32 %f1, %f2, %f3;",         /* .nan is a setp comparison, not .NaN */
        "ex2.approx.bf16 %h1, %h2;",          /* bf16 ex2 needs .ftz */
        "add.e4m3 %h1, %h2, %h3;",
    };
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
        expect_unsupported(bad[k], r32);
}

/* --------------------------------------------- the sink destination */

static void test_sink_and_literals(void **state)
{
    (void)state;
    /* "_" as a testp destination is accepted and does nothing */
    static const char *ptx = HEADER
        ".visible .entry k(.param .u64 po)\n{\n"
        "\t.reg .pred %p<3>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .f64 %d<4>;\n"
        "\t.reg .b64 %rd<4>;\n"
        "\tld.param.u64 %rd1, [po];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmul.wide.u32 %rd2, %r1, 8;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tcvt.rn.f32.u32 %f1, %r1;\n"
        "\tmul.rn.f32 %f2, %f1, 0f3F000000;\n"      /* t / 2 */
        "\tfma.rn.f32 %f2, %f2, %f2, 0f3F800000;\n" /* (t/2)^2 + 1 */
        "\tcvt.f64.f32 %d1, %f2;\n"
        "\tsqrt.rn.f64 %d2, %d1;\n"
        "\tmul.f64 %d2, %d2, %d2;\n"
        "\tsub.f64 %d2, %d2, %d1;\n"                  /* tiny or 0 */
        "\tabs.f64 %d2, %d2;\n"
        "\tadd.f64 %d3, %d1, %d2;\n"
        "\ttestp.normal.f64 _, %d3;\n"
        "\tst.global.f64 [%rd3], %d3;\n"
        "\tret;\n}\n";
    double out[64];
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(64);
    mb_status st = harness_run(ptx, "k", &o, args, 1);
    if (st != MB_OK)
        fail_msg("%s", o.message);
    for (unsigned t = 0; t < 64; t++) {
        double f2 = (double)fmaf((float)t * 0.5f, (float)t * 0.5f, 1.0f);
        double s = sqrt(f2);
        double want = f2 + fabs(s * s - f2);
        if (out[t] != want)
            fail_msg("lane %u: got %a want %a", t, out[t], want);
    }
}

/* --------------------------------------- randomized differential test */

/* Random straight-line programs over 8 .f32, 4 .f64 and 4 .f16x2/.bf16x2
 * registers per thread; the executor's final registers are compared with a
 * host model of every instruction, lane by lane. */
enum { NF = 8, ND = 4, NH = 4, PROG_LEN = 48, DIFF_THREADS = 40 };

typedef struct {
    uint32_t f[NF];
    uint64_t d[ND];
    uint32_t h[NH];
} lane_regs;

typedef struct {
    int kind; /* 0 f32, 1 f64, 2 packed half */
    int op, rnd, ftz, sat, nanf, xs, bf;
    int dst, src[3];
} rinsn;

enum { RO_ADD, RO_SUB, RO_MUL, RO_DIV, RO_FMA, RO_SQRT, RO_RCP, RO_MIN, RO_MAX, RO_NEG,
       RO_ABS, RO_COPYSIGN, RO_COUNT };

static void gen_insn(rinsn *in)
{
    memset(in, 0, sizeof(*in));
    in->kind = (int)(rnd64() % 3);
    if (in->kind == 2) {
        static const int hops[] = {HA_ADD, HA_SUB, HA_MUL, HA_FMA, HA_MIN, HA_MAX, HA_NEG, HA_ABS};
        in->op = hops[rnd64() % 8];
        in->bf = (int)(rnd64() % 2);
        if (!in->bf && in->op != HA_MIN && in->op != HA_MAX)
            in->ftz = (int)(rnd64() % 2);
        if (!in->bf && in->op <= HA_FMA)
            in->sat = (int)(rnd64() % 2);
        if (in->op == HA_MIN || in->op == HA_MAX) {
            in->nanf = (int)(rnd64() % 2);
            in->xs = (int)(rnd64() % 2);
            if (!in->bf)
                in->ftz = (int)(rnd64() % 2);
        }
    } else {
        in->op = (int)(rnd64() % RO_COUNT);
        in->rnd = (int)(rnd64() % 5); /* 4: no modifier */
        if (in->kind == 0) {
            in->ftz = (int)(rnd64() % 2);
            if (in->op <= RO_MUL || in->op == RO_FMA)
                in->sat = (int)(rnd64() % 4 == 0);
            if (in->op == RO_MIN || in->op == RO_MAX) {
                in->nanf = (int)(rnd64() % 2);
                in->xs = (int)(rnd64() % 2);
            }
        }
        if (in->op == RO_FMA && in->rnd == 4 && in->kind == 0)
            in->rnd = 0;
        if (in->op >= RO_MIN)
            in->rnd = 4;
        if (in->op == RO_COPYSIGN || (in->kind == 1 && in->op >= RO_MIN))
            in->ftz = 0;
        if ((in->op == RO_DIV || in->op == RO_SQRT || in->op == RO_RCP) && in->rnd == 4)
            in->rnd = 0; /* .rn (the legacy default is approximate) */
    }
    int n = in->kind == 0 ? NF : in->kind == 1 ? ND : NH;
    in->dst = (int)(rnd64() % (uint64_t)n);
    for (int i = 0; i < 3; i++)
        in->src[i] = (int)(rnd64() % (uint64_t)n);
}

static int nsrc_of(const rinsn *in)
{
    if (in->kind == 2)
        return in->op == HA_FMA ? 3 : (in->op == HA_NEG || in->op == HA_ABS) ? 1 : 2;
    switch (in->op) {
    case RO_FMA: return 3;
    case RO_SQRT:
    case RO_RCP:
    case RO_NEG:
    case RO_ABS: return 1;
    default: return 2;
    }
}

static void print_insn(const rinsn *in, char *buf, size_t size)
{
    static const char *const names[] = {"add", "sub", "mul", "div", "fma", "sqrt",
                                        "rcp", "min", "max", "neg", "abs", "copysign"};
    static const char *const hnames[] = {"add", "sub", "mul", "fma", "min", "max", "neg", "abs"};
    char mods[64] = "";
    const char *name;
    if (in->kind == 2) {
        name = hnames[in->op];
        if (in->op <= HA_FMA)
            strcat(mods, ".rn");
    } else {
        name = names[in->op];
        if (in->op == RO_FMA && in->kind == 1 && in->rnd == 4) {
            name = "mad";
            strcat(mods, ".rn");
        } else if (in->op == RO_FMA && in->rnd == 0 && in->kind == 0 && (rnd64() & 1)) {
            name = "mad"; /* mad.f32 (fused) */
        } else if (in->rnd < 4) {
            strcat(mods, ".");
            strcat(mods, rnd_name[in->rnd]);
        }
    }
    if (in->ftz)
        strcat(mods, ".ftz");
    if (in->nanf)
        strcat(mods, ".NaN");
    if (in->xs)
        strcat(mods, ".xorsign.abs");
    if (in->sat)
        strcat(mods, ".sat");
    const char *type = in->kind == 0 ? "f32" : in->kind == 1 ? "f64" : in->bf ? "bf16x2" : "f16x2";
    const char *pfx = in->kind == 0 ? "%f" : in->kind == 1 ? "%d" : "%h";
    int n = snprintf(buf, size, "\t%s%s.%s %s%d", name, mods, type, pfx, in->dst);
    for (int i = 0; i < nsrc_of(in); i++)
        n += snprintf(buf + n, size - (size_t)n, ", %s%d", pfx, in->src[i]);
    snprintf(buf + n, size - (size_t)n, ";\n");
}

static uint32_t model_minmax32(int is_max, uint32_t a, uint32_t b, int ftz, int nanf, int xs)
{
    if (ftz)
        a = flush32(a), b = flush32(b);
    uint32_t s = (a ^ b) & 0x80000000u;
    if (xs)
        a &= 0x7FFFFFFFu, b &= 0x7FFFFFFFu;
    int na = isnan32(a), nb = isnan32(b);
    if ((na && nb) || (nanf && (na || nb)))
        return CANON32;
    uint32_t r;
    if (na)
        r = b;
    else if (nb)
        r = a;
    else if (bf_(a) == bf_(b))
        r = (is_max ? !(a & 0x80000000u) : (a & 0x80000000u) != 0) ? a : b;
    else
        r = ((bf_(a) < bf_(b)) != is_max) ? a : b;
    return xs ? ((r & 0x7FFFFFFFu) | s) : r;
}

static uint64_t model_minmax64(int is_max, uint64_t a, uint64_t b)
{
    int na = isnan(bd(a)), nb = isnan(bd(b));
    if (na && nb)
        return a | 0x0008000000000000ull;
    if (na)
        return b;
    if (nb)
        return a;
    if (bd(a) == bd(b))
        return (is_max ? !(a >> 63) : (int)(a >> 63)) ? a : b;
    return ((bd(a) < bd(b)) != is_max) ? a : b;
}

static void model(const rinsn *in, lane_regs *r)
{
    int rnd = in->rnd == 4 ? R_N : in->rnd;
    static const int fop[] = {F_ADD, F_SUB, F_MUL, F_DIV, F_FMA, F_SQRT, F_RCP};
    if (in->kind == 0) {
        uint32_t a = r->f[in->src[0]], b = r->f[in->src[1]], c = r->f[in->src[2]], d;
        switch (in->op) {
        case RO_MIN: d = model_minmax32(0, a, b, in->ftz, in->nanf, in->xs); break;
        case RO_MAX: d = model_minmax32(1, a, b, in->ftz, in->nanf, in->xs); break;
        case RO_NEG: d = (in->ftz ? flush32(a) : a) ^ 0x80000000u; break;
        case RO_ABS: d = (in->ftz ? flush32(a) : a) & 0x7FFFFFFFu; break;
        case RO_COPYSIGN: d = (a & 0x80000000u) | (b & 0x7FFFFFFFu); break;
        default: d = ref32(fop[in->op], a, b, c, rnd, in->ftz, in->sat); break;
        }
        r->f[in->dst] = d;
    } else if (in->kind == 1) {
        uint64_t a = r->d[in->src[0]], b = r->d[in->src[1]], c = r->d[in->src[2]], d;
        switch (in->op) {
        case RO_MIN: d = model_minmax64(0, a, b); break;
        case RO_MAX: d = model_minmax64(1, a, b); break;
        case RO_NEG: d = isnan(bd(a)) ? a : a ^ 0x8000000000000000ull; break;
        case RO_ABS: d = isnan(bd(a)) ? a : a & 0x7FFFFFFFFFFFFFFFull; break;
        case RO_COPYSIGN: d = (a & 0x8000000000000000ull) | (b & 0x7FFFFFFFFFFFFFFFull); break;
        default: d = ref64(fop[in->op], a, b, c, rnd); break;
        }
        r->d[in->dst] = d;
    } else {
        int fl = (in->ftz ? HFL_FTZ : 0) | (in->sat ? HFL_SAT : 0) | (in->nanf ? HFL_NAN : 0) |
                 (in->xs ? HFL_XS : 0);
        uint32_t a = r->h[in->src[0]], b = r->h[in->src[1]], c = r->h[in->src[2]];
        uint32_t lo = href(in->op, a, b, c, in->bf, fl);
        uint32_t hi = href(in->op, a >> 16, b >> 16, c >> 16, in->bf, fl);
        r->h[in->dst] = lo | hi << 16;
    }
}

static void test_random_differential(void **state)
{
    (void)state;
    rng_state = 0x0123456789ABCDEFull;
    for (int prog = 0; prog < 60; prog++) {
        rinsn code[PROG_LEN];
        for (int i = 0; i < PROG_LEN; i++)
            gen_insn(&code[i]);
        /* text */
        size_t cap = 64 * 1024;
        char *ptx = malloc(cap);
        size_t n = (size_t)snprintf(
            ptx, cap,
            HEADER ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
                   "\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<8>;\n\t.reg .f32 %%f<%d>;\n"
                   "\t.reg .f64 %%d<%d>;\n\t.reg .b32 %%h<%d>;\n"
                   "\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd2, [pout];\n"
                   "\tmov.u32 %%r1, %%tid.x;\n\tmul.wide.u32 %%rd3, %%r1, %u;\n"
                   "\tadd.s64 %%rd4, %%rd1, %%rd3;\n\tadd.s64 %%rd5, %%rd2, %%rd3;\n",
            NF, ND, NH, (unsigned)sizeof(lane_regs));
        for (int i = 0; i < NF; i++)
            n += (size_t)snprintf(ptx + n, cap - n, "\tld.global.f32 %%f%d, [%%rd4+%u];\n", i,
                                  (unsigned)(offsetof(lane_regs, f) + 4 * (unsigned)i));
        for (int i = 0; i < ND; i++)
            n += (size_t)snprintf(ptx + n, cap - n, "\tld.global.f64 %%d%d, [%%rd4+%u];\n", i,
                                  (unsigned)(offsetof(lane_regs, d) + 8 * (unsigned)i));
        for (int i = 0; i < NH; i++)
            n += (size_t)snprintf(ptx + n, cap - n, "\tld.global.b32 %%h%d, [%%rd4+%u];\n", i,
                                  (unsigned)(offsetof(lane_regs, h) + 4 * (unsigned)i));
        for (int i = 0; i < PROG_LEN; i++)
            print_insn(&code[i], ptx + n, cap - n), n += strlen(ptx + n);
        for (int i = 0; i < NF; i++)
            n += (size_t)snprintf(ptx + n, cap - n, "\tst.global.f32 [%%rd5+%u], %%f%d;\n",
                                  (unsigned)(offsetof(lane_regs, f) + 4 * (unsigned)i), i);
        for (int i = 0; i < ND; i++)
            n += (size_t)snprintf(ptx + n, cap - n, "\tst.global.f64 [%%rd5+%u], %%d%d;\n",
                                  (unsigned)(offsetof(lane_regs, d) + 8 * (unsigned)i), i);
        for (int i = 0; i < NH; i++)
            n += (size_t)snprintf(ptx + n, cap - n, "\tst.global.b32 [%%rd5+%u], %%h%d;\n",
                                  (unsigned)(offsetof(lane_regs, h) + 4 * (unsigned)i), i);
        snprintf(ptx + n, cap - n, "\tret;\n}\n");
        /* inputs */
        lane_regs in[DIFF_THREADS], out[DIFF_THREADS];
        for (unsigned t = 0; t < DIFF_THREADS; t++) {
            for (int i = 0; i < NF; i++)
                in[t].f[i] = rand32();
            for (int i = 0; i < ND; i++)
                in[t].d[i] = rand64();
            for (int i = 0; i < NH; i++) {
                int bf = (int)(rnd64() % 2);
                in[t].h[i] = rand_half(bf) | rand_half(bf) << 16;
            }
        }
        memset(out, 0, sizeof(out));
        harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
        harness_opts o = harness_one_cta(DIFF_THREADS);
        mb_status st = run_ptx(ptx, &o, args, 2);
        if (st != MB_OK)
            fail_msg("program %d: %s\n%s", prog, o.message, ptx);
        for (unsigned t = 0; t < DIFF_THREADS; t++) {
            lane_regs r = in[t];
            for (int i = 0; i < PROG_LEN; i++)
                model(&code[i], &r);
            for (int i = 0; i < NF; i++)
                if (r.f[i] != out[t].f[i])
                    fail_msg("program %d lane %u %%f%d: got 0x%08x want 0x%08x\n%s", prog, t, i,
                             out[t].f[i], r.f[i], ptx);
            for (int i = 0; i < ND; i++)
                if (!same64(out[t].d[i], r.d[i]))
                    fail_msg("program %d lane %u %%d%d: got 0x%llx want 0x%llx\n%s", prog, t, i,
                             (unsigned long long)out[t].d[i], (unsigned long long)r.d[i], ptx);
            for (int i = 0; i < NH; i++)
                if (r.h[i] != out[t].h[i])
                    fail_msg("program %d lane %u %%h%d: got 0x%08x want 0x%08x\n%s", prog, t, i,
                             out[t].h[i], r.h[i], ptx);
        }
        free(ptx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_f32_arith),       cmocka_unit_test(test_f32_hand),
        cmocka_unit_test(test_f64_arith),       cmocka_unit_test(test_minmax_f32),
        cmocka_unit_test(test_minmax_f64),      cmocka_unit_test(test_sign_ops),
        cmocka_unit_test(test_testp),           cmocka_unit_test(test_approx_f32),
        cmocka_unit_test(test_div_approx),      cmocka_unit_test(test_approx_f64),
        cmocka_unit_test(test_half),            cmocka_unit_test(test_half_special),
        cmocka_unit_test(test_half_approx),     cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_sink_and_literals), cmocka_unit_test(test_random_differential),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
