/* Moves and conversions (exec_cvt.c): every form of mov and cvt the
 * executor implements, run as PTX kernels and checked against host oracles
 * that share no code with the executor:
 *   - f32/f64 results: the host FPU under fesetround (restored after use);
 *   - f16/bf16 results: an exhaustive table of every finite value of the
 *     format, searched for the two neighbours of the exact value;
 *   - tf32 results: bit arithmetic on the f32 pattern;
 *   - exact source values as long double, integers through __int128.
 * Also edge cases (NaN, infinities, subnormals, overflow, ties), partial
 * warps, divergent lanes, unsupported forms, and a randomized differential
 * test of random straight-line mov/cvt code against a host model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "exec_harness.h"
#include "test_rng.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR ".version 8.3\n.target sm_90\n.address_size 64\n"

/* ============================================================ helpers */

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float bitsf(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint64_t dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static double bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static uint64_t mask_of(unsigned bits)
{
    return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* deterministic xorshift generator */
static uint64_t rng_state = TEST_RNG_SEED;

static uint64_t rnd(void)
{
    return test_rng_next(&rng_state);
}

static void run_ok(const char *ptx, harness_opts *o, harness_arg *args, unsigned n)
{
    mb_status st = harness_run(ptx, "k", o, args, n);
    if (st != MB_OK)
        fail_msg("launch failed: %s\n--- PTX ---\n%s", o->message, ptx);
}

/* ============================================================ types */

typedef enum ty { T_U8, T_U16, T_U32, T_U64, T_S8, T_S16, T_S32, T_S64, T_F16, T_BF16, T_F32, T_F64, T_COUNT } ty;

static const struct {
    const char *name;
    unsigned bits;
    int sgn;
    int isf;
} TY[T_COUNT] = {
    {"u8", 8, 0, 0},    {"u16", 16, 0, 0},  {"u32", 32, 0, 0},  {"u64", 64, 0, 0},
    {"s8", 8, 1, 0},    {"s16", 16, 1, 0},  {"s32", 32, 1, 0},  {"s64", 64, 1, 0},
    {"f16", 16, 0, 1},  {"bf16", 16, 0, 1}, {"f32", 32, 0, 1},  {"f64", 64, 0, 1},
};

/* Register classes: .b16 (%h), .b32 (%r), .b64 (%rd). */
typedef enum rclass { RC_H, RC_R, RC_RD } rclass;
static const unsigned RC_BITS[] = {16, 32, 64};

/* ============================================================ oracles */

/* Every finite non-negative value of a 16-bit float format, by encoding. */
typedef struct small_fmt {
    int eb, mb;
    uint32_t nmax; /* encoding of the largest finite value */
    long double *v;
} small_fmt;

static small_fmt F16T = {5, 10, 0x7BFF, NULL}, BF16T = {8, 7, 0x7F7F, NULL};

static long double small_value(const small_fmt *f, uint32_t enc)
{
    uint32_t e = enc >> f->mb, m = enc & ((1u << f->mb) - 1);
    int bias = (1 << (f->eb - 1)) - 1;
    if (e == 0)
        return ldexpl((long double)m, 1 - bias - f->mb);
    return ldexpl((long double)(m + (1u << f->mb)), (int)e - bias - f->mb);
}

static void init_tables(void)
{
    small_fmt *fs[] = {&F16T, &BF16T};
    for (int i = 0; i < 2; i++) {
        if (fs[i]->v)
            continue;
        fs[i]->v = malloc(((size_t)fs[i]->nmax + 1) * sizeof(long double));
        for (uint32_t k = 0; k <= fs[i]->nmax; k++)
            fs[i]->v[k] = small_value(fs[i], k);
    }
}

/* The encoding of x (not NaN) rounded to the 16-bit format by choosing
 * between its two neighbours in the table. */
static uint32_t ref_small(long double x, const small_fmt *f, char mode, int satfinite)
{
    const uint32_t sign = signbit(x) ? 1u << (f->eb + f->mb) : 0;
    const uint32_t infenc = f->nmax + 1;
    long double a = fabsl(x);
    if (isinf(a))
        return sign | (satfinite ? f->nmax : infenc);
    uint32_t k;
    if (a >= f->v[f->nmax]) {
        k = f->nmax;
    } else {
        uint32_t lo = 0, hi = f->nmax; /* v[lo] <= a < v[hi] */
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) / 2;
            if (f->v[mid] <= a)
                lo = mid;
            else
                hi = mid;
        }
        k = lo;
    }
    if (f->v[k] == a)
        return sign | k;
    int bias = (1 << (f->eb - 1)) - 1;
    long double vlo = f->v[k];
    long double vhi = k == f->nmax ? ldexpl(1.0L, bias + 1) : f->v[k + 1];
    uint32_t r;
    int neg = sign != 0;
    long double d1 = a - vlo, d2 = vhi - a;
    switch (mode) {
    case 'z': r = k; break;
    case 'm': r = neg ? k + 1 : k; break;
    case 'p': r = neg ? k : k + 1; break;
    case 'a': r = d1 < d2 ? k : k + 1; break;
    default: r = d1 < d2 ? k : d1 > d2 ? k + 1 : (k & 1) ? k + 1 : k; break;
    }
    if (r == infenc && satfinite)
        r = f->nmax;
    return sign | r;
}

static int host_mode(char mode)
{
    switch (mode) {
    case 'z': return FE_TOWARDZERO;
    case 'm': return FE_DOWNWARD;
    case 'p': return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

/* f32 / f64 rounding by the host FPU in the requested mode. */
static uint32_t ref_f32(long double x, char mode)
{
    volatile long double vx = x;
    volatile float r;
    int old = fegetround();
    fesetround(host_mode(mode));
    r = (float)vx;
    fesetround(old);
    return fbits(r);
}

static uint64_t ref_f64(long double x, char mode)
{
    volatile long double vx = x;
    volatile double r;
    int old = fegetround();
    fesetround(host_mode(mode));
    r = (double)vx;
    fesetround(old);
    return dbits(r);
}

/* tf32 by bit arithmetic on the f32 pattern (x not NaN). */
static uint32_t ref_tf32(uint32_t b, char mode, int satfinite)
{
    uint32_t sign = b & 0x80000000u;
    if ((b & 0x7FFFFFFFu) == 0x7F800000u)
        return satfinite ? sign | 0x7F7FE000u : b;
    uint32_t lo = b & ~0x1FFFu, rem = b & 0x1FFFu;
    int up;
    switch (mode) {
    case 'z': up = 0; break;
    case 'a': up = rem >= 0x1000; break;
    default: up = rem > 0x1000 || (rem == 0x1000 && (lo & 0x2000)); break;
    }
    uint32_t r = up ? lo + 0x2000 : lo;
    if (satfinite && (r & 0x7FFFFFFFu) == 0x7F800000u)
        r = sign | 0x7F7FE000u;
    return r;
}

/* Exact value of a float source word. */
static long double ref_read_float(uint64_t w, ty t, int ftz)
{
    switch (t) {
    case T_F16: {
        uint32_t h = (uint32_t)w & 0xFFFF;
        long double v;
        if ((h & 0x7C00) == 0x7C00)
            v = (h & 0x3FF) ? (long double)NAN : (long double)INFINITY;
        else
            v = small_value(&F16T, h & 0x7FFF);
        return (h & 0x8000) ? -v : v;
    }
    case T_BF16: return (long double)bitsf(((uint32_t)w & 0xFFFF) << 16);
    case T_F32: {
        uint32_t b = (uint32_t)w;
        if (ftz && (b & 0x7F800000u) == 0)
            b &= 0x80000000u;
        return (long double)bitsf(b);
    }
    default: return (long double)bitsd(w);
    }
}

static uint64_t ref_canon_nan(ty t)
{
    return t == T_F64 ? UINT64_C(0x7FFFFFFFFFFFFFFF) : t == T_F32 ? 0x7FFFFFFF : 0x7FFF;
}

/* Encodes a non-NaN exact value in float type t. */
static uint64_t ref_encode(long double x, ty t, char mode, int satfinite)
{
    switch (t) {
    case T_F16: return ref_small(x, &F16T, mode, satfinite);
    case T_BF16: return ref_small(x, &BF16T, mode, satfinite);
    case T_F32: return ref_f32(x, mode);
    default: return ref_f64(x, mode);
    }
}

/* A cvt instruction: types, modifiers and register classes. */
typedef struct cvtspec {
    ty dt, at;
    char irnd;     /* 'n' 'z' 'm' 'p' for .rni .rzi .rmi .rpi, or 0 */
    char frnd;     /* 'n' 'z' 'm' 'p' 'a' for .rn .rz .rm .rp .rna, or 0 */
    int ftz, sat, relu, satfinite;
    rclass dc, sc;
} cvtspec;

/* The destination word the instruction writes for source word `src`. */
static uint64_t ref_cvt(const cvtspec *c, uint64_t src)
{
    const unsigned dcb = RC_BITS[c->dc];
    src &= mask_of(RC_BITS[c->sc]);
    const unsigned db = TY[c->dt].bits, ab = TY[c->at].bits;
    __int128 iv = 0;
    int have_int = 0;
    if (!TY[c->at].isf) {
        uint64_t lowbits = src & mask_of(ab);
        if (TY[c->at].sgn && ab < 64 && (lowbits >> (ab - 1)) & 1)
            iv = (__int128)(int64_t)(lowbits | ~mask_of(ab));
        else if (TY[c->at].sgn)
            iv = (__int128)(int64_t)lowbits;
        else
            iv = (__int128)lowbits;
    }
    if (!TY[c->dt].isf) {
        if (TY[c->at].isf) {
            long double x = ref_read_float(src, c->at, c->ftz && c->at == T_F32);
            if (isnan(x)) {
                if (c->at == T_F64 || db == 64)
                    iv = TY[c->dt].sgn ? -((__int128)1 << (db - 1)) : ((__int128)1 << (db - 1));
                else
                    iv = 0;
            } else {
                long double r;
                switch (c->irnd ? c->irnd : 'z') {
                case 'n': r = nearbyintl(x); break; /* default mode: ties to even */
                case 'm': r = floorl(x); break;
                case 'p': r = ceill(x); break;
                default: r = truncl(x); break;
                }
                long double lo = TY[c->dt].sgn ? -ldexpl(1, (int)db - 1) : 0;
                long double hi = TY[c->dt].sgn ? ldexpl(1, (int)db - 1) - 1 : ldexpl(1, (int)db) - 1;
                if (r <= lo)
                    iv = TY[c->dt].sgn ? -((__int128)1 << (db - 1)) : 0;
                else if (r >= hi)
                    iv = TY[c->dt].sgn ? ((__int128)1 << (db - 1)) - 1 : ((__int128)1 << db) - 1;
                else
                    iv = (__int128)r;
            }
            have_int = 1;
        } else {
            if (c->sat) {
                __int128 lo = TY[c->dt].sgn ? -((__int128)1 << (db - 1)) : 0;
                __int128 hi = TY[c->dt].sgn ? ((__int128)1 << (db - 1)) - 1 : ((__int128)1 << db) - 1;
                iv = iv < lo ? lo : iv > hi ? hi : iv;
            }
            have_int = 1;
        }
    }
    if (have_int) {
        uint64_t t = (uint64_t)iv & mask_of(db);
        if (TY[c->dt].sgn && db < 64 && (t >> (db - 1)) & 1)
            t |= ~mask_of(db);
        return t & mask_of(dcb);
    }
    /* float destination */
    long double x;
    if (TY[c->at].isf) {
        x = ref_read_float(src, c->at, c->ftz && c->at == T_F32);
        if (c->irnd && !isnan(x)) {
            switch (c->irnd) {
            case 'n': x = nearbyintl(x); break;
            case 'm': x = floorl(x); break;
            case 'p': x = ceill(x); break;
            default: x = truncl(x); break;
            }
        }
    } else {
        x = (long double)iv;
    }
    uint64_t bits;
    if (isnan(x)) {
        bits = c->sat ? 0 : ref_canon_nan(c->dt);
    } else {
        if (c->relu && signbit(x))
            x = 0.0L;
        if (c->sat && x < 0)
            x = 0.0L;
        if (c->sat && x > 1)
            x = 1.0L;
        bits = ref_encode(x, c->dt, c->frnd ? c->frnd : 'n', c->satfinite);
        if (c->ftz && c->dt == T_F32 && (bits & 0x7F800000u) == 0)
            bits &= 0x80000000u;
    }
    return bits & mask_of(dcb);
}

/* ====================================================== unary kernels */

static const char *RC_DST[] = {"%h2", "%r7", "%rd7"};
static const char *RC_SRC[] = {"%h1", "%r6", "%rd6"};

/* Runs `insn DST, SRC;` on every input (one thread each): the source
 * register of class `sc` is loaded with the low bits of in[i], the whole
 * destination register word (16-bit registers included) is stored to out[i]. */
static void run_unary(const char *insn, rclass dc, rclass sc, const uint64_t *in, uint64_t *out,
                      unsigned n)
{
    static const char *loads[] = {"\tld.global.u16 %h1, [%rd4];\n", "\tld.global.u32 %r6, [%rd4];\n",
                                  "\tld.global.u64 %rd6, [%rd4];\n"};
    static const char *stores[] = {"\tmov.b32 %r7, %h2;\n\tst.global.u32 [%rd5], %r7;\n",
                                   "\tst.global.u32 [%rd5], %r7;\n",
                                   "\tst.global.u64 [%rd5], %rd7;\n"};
    char ptx[4096];
    snprintf(ptx, sizeof(ptx),
             HDR ".visible .entry k(.param .u64 pin, .param .u64 pout, .param .u32 pn)\n{\n"
                 "\t.reg .pred %%p<2>;\n\t.reg .b16 %%h<4>;\n\t.reg .b32 %%r<8>;\n\t.reg .b64 %%rd<8>;\n"
                 "\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd2, [pout];\n"
                 "\tmov.u32 %%r1, %%ctaid.x;\n\tmov.u32 %%r2, %%ntid.x;\n\tmov.u32 %%r3, %%tid.x;\n"
                 "\tmad.lo.s32 %%r4, %%r1, %%r2, %%r3;\n\tld.param.u32 %%r5, [pn];\n"
                 "\tsetp.ge.u32 %%p1, %%r4, %%r5;\n\t@%%p1 bra DONE;\n"
                 "\tmul.wide.u32 %%rd3, %%r4, 8;\n\tadd.s64 %%rd4, %%rd1, %%rd3;\n"
                 "\tadd.s64 %%rd5, %%rd2, %%rd3;\n"
                 "%s\t%s %s, %s;\n%s"
                 "DONE:\n\tret;\n}\n",
             loads[sc], insn, RC_DST[dc], RC_SRC[sc], stores[dc]);
    uint64_t *inb = malloc(n * sizeof(uint64_t) + 8);
    memcpy(inb, in, n * sizeof(uint64_t));
    memset(out, 0, n * sizeof(uint64_t));
    harness_arg args[] = {HBUF(inb, n * sizeof(uint64_t)), HBUF(out, n * sizeof(uint64_t)), HVAL(n)};
    harness_opts o = harness_one_cta(256);
    o.grid.x = (n + 255) / 256;
    run_ok(ptx, &o, args, 3);
    free(inb);
}

/* The PTX text of a cvt spec. */
static void cvt_text(const cvtspec *c, char *buf, size_t size)
{
    static const char *irnd[] = {"rni", "rzi", "rmi", "rpi"}, *frnd[] = {"rn", "rz", "rm", "rp", "rna"};
    char mods[64] = "";
    if (c->irnd) {
        strcat(mods, ".");
        strcat(mods, irnd[strchr("nzmp", c->irnd) - "nzmp"]);
    }
    if (c->frnd) {
        strcat(mods, ".");
        strcat(mods, frnd[strchr("nzmpa", c->frnd) - "nzmpa"]);
    }
    if (c->ftz)
        strcat(mods, ".ftz");
    if (c->sat)
        strcat(mods, ".sat");
    if (c->relu)
        strcat(mods, ".relu");
    if (c->satfinite)
        strcat(mods, ".satfinite");
    snprintf(buf, size, "cvt%s.%s.%s", mods, TY[c->dt].name, TY[c->at].name);
}

/* Runs the spec over the inputs and compares with ref_cvt; returns the
 * number of inputs checked. */
static unsigned check_cvt(const cvtspec *c, const uint64_t *in, unsigned n)
{
    char text[128];
    cvt_text(c, text, sizeof(text));
    uint64_t *out = malloc(n * sizeof(uint64_t) + 8);
    run_unary(text, c->dc, c->sc, in, out, n);
    for (unsigned i = 0; i < n; i++) {
        uint64_t want = ref_cvt(c, in[i]);
        if (out[i] != want)
            fail_msg("%s (dst %s, src %s): input 0x%016llx gives 0x%016llx, expected 0x%016llx", text,
                     RC_DST[c->dc], RC_SRC[c->sc], (unsigned long long)in[i],
                     (unsigned long long)out[i], (unsigned long long)want);
    }
    free(out);
    return n;
}

static rclass natural_class(ty t)
{
    unsigned b = TY[t].bits;
    return b <= 16 ? RC_H : b == 32 ? RC_R : RC_RD;
}

/* ============================================================ inputs */

static const uint64_t INT_EDGES[] = {
    0, 1, 2, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF, 0x100, 0x1FF, 0x7FFE, 0x7FFF, 0x8000, 0x8001,
    0xFFFF, 0x10000, 0x12345678, 0x7FFFFFFF, 0x80000000u, 0x80000001u, 0xFFFFFF80u, 0xFFFF8000u,
    0xFFFFFFFFu, UINT64_C(0x100000000), UINT64_C(0x1000001), UINT64_C(0x1000003), UINT64_C(0xFFFFFF),
    UINT64_C(0x20000001), UINT64_C(0x20000000000001), UINT64_C(0x20000000000003),
    UINT64_C(0x7FFFFFFFFFFFFFFF), UINT64_C(0x8000000000000000), UINT64_C(0x8000000000000001),
    UINT64_C(0xFFFFFFFFFFFFFFFF), UINT64_C(0xFFFFFFFF80000000), UINT64_C(0xFFFFFFFFFFFF8000),
    UINT64_C(0xFFFFFFFFFFFFFF80), UINT64_C(0xFFFFFFFFFFFFFFFE), UINT64_C(0x123456789ABCDEF0),
    UINT64_C(0xFEDCBA9876543210), 65504, 65519, 65520, 65535, 0xFFEF, 0xFFF0, 0xFF7F,
    UINT64_C(0xFFFFFF7FFFFFFFFF), UINT64_C(0x7FFFFF8000000000), UINT64_C(0x7FFFFF7FFFFFFFFF),
    UINT64_C(0xFFFFFFFFFFFFF800), UINT64_C(0xFFFFFFFFFFFFFC00), UINT64_C(0x8000008000000000),
};

/* Integer inputs: the edges, each with random upper bits too, and random values. */
static unsigned int_inputs(uint64_t *in, unsigned cap)
{
    unsigned n = 0;
    for (size_t i = 0; i < sizeof(INT_EDGES) / sizeof(INT_EDGES[0]) && n + 2 <= cap; i++) {
        in[n++] = INT_EDGES[i];
        in[n++] = INT_EDGES[i] | (rnd() << 32);
    }
    while (n < cap) {
        uint64_t r = rnd();
        in[n++] = r >> (rnd() % 64);
    }
    return n;
}

static const float F32_EDGES[] = {
    0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 3.5f, 0.49999997f, -0.49999997f,
    0.50000006f, 127.5f, 128.0f, -128.5f, -129.0f, 255.5f, 256.0f, 32767.5f, -32768.5f, 65535.5f,
    65536.0f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f, 4294967040.0f,
    4294967296.0f, 9223371487098961920.0f, 9223372036854775808.0f, -9223372036854775808.0f,
    18446742974197923840.0f, 18446744073709551616.0f, 1e30f, -1e30f, 65504.0f, 65519.998f, 65520.0f,
    65536.0f, 6.1035156e-05f, 5.9604645e-08f, 2.9802322e-08f, 2.9802326e-08f, 8.940697e-08f,
    1.00048828125f, 1.00146484375f, 1.00390625f, 1.01171875f, 3.3895314e38f, 3.3961775e38f,
    0.1f, -0.1f, 3.14159265f, 1e-10f, 1.1754944e-38f, 0.75f, 1.25f, 1.0000001f, 0.99999994f,
};
static const uint32_t F32_BIT_EDGES[] = {0x00000001, 0x80000001, 0x007FFFFF, 0x807FFFFF, 0x00800000,
                                         0x00400000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
                                         0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FFFFFFF, 0x3F801000,
                                         0x3F803000, 0x3F800FFF, 0x477FEFFF, 0x477FF000, 0x7F7FF000,
                                         0x7F7FEFFF, 0x33000000, 0x33000001, 0xB3000000, 0x3F808000,
                                         0x3F818000, 0x7F7F8000, 0x7F7F7FFF,
                                         /* ties between f16 subnormals, to even and to odd */
                                         0x34200000, 0x34600000, 0x387FA000, 0x387FE000,
                                         0x33400000, 0xB4200000, 0x38801000};

static unsigned f32_inputs(uint64_t *in, unsigned cap)
{
    unsigned n = 0;
    for (size_t i = 0; i < sizeof(F32_EDGES) / sizeof(F32_EDGES[0]) && n < cap; i++)
        in[n++] = fbits(F32_EDGES[i]);
    for (size_t i = 0; i < sizeof(F32_BIT_EDGES) / sizeof(F32_BIT_EDGES[0]) && n < cap; i++)
        in[n++] = F32_BIT_EDGES[i];
    while (n < cap) {
        uint32_t r = (uint32_t)rnd();
        if (n % 3 == 0) /* values of moderate size round to integers interestingly */
            r = fbits((float)((int32_t)r) / (float)(1 << (rnd() % 20)));
        in[n++] = r | (rnd() << 32); /* upper bits must be ignored */
    }
    return n;
}

static const double F64_EDGES[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, 127.5, -128.5, 255.5,
    32767.5, 65535.5, 2147483647.5, 2147483647.4, -2147483648.5, -2147483648.4, 4294967295.5,
    4294967295.4, 9223372036854774784.0, 9223372036854775808.0, -9223372036854775808.0,
    -9223372036854777856.0, 18446744073709549568.0, 18446744073709551616.0, 1e300, -1e300,
    1.0000000596046448, 1.0000000596046449, 1.0000001788139343, 3.4028235677973366e38,
    3.4028235677973362e38, 3.4028236e38, 1e-46, 7.006492321624085e-46, 7.006492321624087e-46,
    1.401298464324817e-45, 2.1019476964872256e-45, 1.1754942807573643e-38, 1.1754942e-38,
    65504.0, 65519.99999, 65520.0, 65520.000001, 3.3895313892515355e38, 3.3961775292304610e38,
    6.103515625e-05, 5.960464477539063e-08, 2.9802322387695312e-08, 2.98023223876953125e-08 * 1.0000001,
    0.1, 1.0 / 3.0, 2.0 / 3.0, 4503599627370495.5, 4503599627370497.0, -4503599627370495.5,
    1.00048828125, 1.00146484375, 1.00390625, 1.01171875,
};
static const uint64_t F64_BIT_EDGES[] = {
    1, UINT64_C(0x8000000000000001), UINT64_C(0x000FFFFFFFFFFFFF), UINT64_C(0x0010000000000000),
    UINT64_C(0x7FEFFFFFFFFFFFFF), UINT64_C(0x7FF0000000000000), UINT64_C(0xFFF0000000000000),
    UINT64_C(0x7FF8000000000000), UINT64_C(0xFFF8000000000001), UINT64_C(0x7FF0000000000001),
};

static unsigned f64_inputs(uint64_t *in, unsigned cap)
{
    unsigned n = 0;
    for (size_t i = 0; i < sizeof(F64_EDGES) / sizeof(F64_EDGES[0]) && n < cap; i++)
        in[n++] = dbits(F64_EDGES[i]);
    for (size_t i = 0; i < sizeof(F64_BIT_EDGES) / sizeof(F64_BIT_EDGES[0]) && n < cap; i++)
        in[n++] = F64_BIT_EDGES[i];
    while (n < cap) {
        uint64_t r = rnd();
        if (n % 3 == 0)
            r = dbits((double)(int64_t)r / ldexp(1.0, (int)(rnd() % 70)));
        else if (n % 3 == 1) /* a random f32 value with a small perturbation */
            r = dbits((double)bitsf((uint32_t)rnd())) + (rnd() % 5) - 2;
        in[n++] = r;
    }
    return n;
}

/* 16-bit inputs: every `step`-th encoding plus specials, with random upper bits. */
static unsigned half_inputs(uint64_t *in, unsigned cap, unsigned step)
{
    unsigned n = 0;
    static const uint32_t specials[] = {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x7BFF, 0xFBFF,
                                        0x7C00, 0xFC00, 0x7E00, 0x7C01, 0xFFFF, 0x3C00, 0x3800, 0x3E00,
                                        0x4100, 0xC100, 0x7F7F, 0x7F80, 0x0080, 0x007F, 0x3F80, 0x3FC0};
    for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]) && n < cap; i++)
        in[n++] = specials[i];
    for (uint32_t e = 0; e < 0x10000 && n < cap; e += step)
        in[n++] = e | (rnd() << 16);
    return n;
}

enum { NIN = 600 };

/* ========================================================== mov tests */

static void test_mov_registers_and_immediates(void **state)
{
    (void)state;
    const char *ptx = HDR
        ".visible .entry k(.param .u64 out)\n{\n"
        "\t.reg .pred %p<6>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n"
        "\t.reg .f32 %f<4>;\n\t.reg .f64 %fd<4>;\n"
        "\tld.param.u64 %rd1, [out];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmul.wide.u32 %rd2, %r1, 128;\n"
        "\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tmov.u32 %r2, -5;\n"                 /* 0 */
        "\tmov.b32 %r3, 0xDEADBEEF;\n"         /* 1 */
        "\tmov.f32 %f1, 0f3FC00000;\n"         /* 2: 1.5 */
        "\tmov.f32 %f2, 0.1;\n"                /* 3: decimal -> nearest f32 */
        "\tmov.f64 %fd1, 0d400921FB54442D18;\n" /* 4 */
        "\tmov.f64 %fd2, 0f3F800000;\n"        /* 5: f32 literal widened */
        "\tmov.u64 %rd4, -2;\n"                /* 6 */
        "\tmov.b16 %h1, 0xABCD;\n"             /* 7 */
        "\tmov.s16 %h2, -3;\n"                 /* 8 */
        "\tmov.u32 %r4, %r3;\n"                /* 9 */
        "\tmov.b32 %r5, %f1;\n"                /* 10 */
        "\tmov.b64 %rd5, %fd1;\n"              /* 11 */
        "\tmov.u16 %h3, %h1;\n"                /* 12 */
        "\tmov.s16 %r6, %h2;\n"                /* 13: sign-extends into the 32-bit register */
        "\tmov.u16 %r7, %h2;\n"                /* 14: zero-extends */
        "\tmov.u16 %h4, %r3;\n"                /* 15: truncates */
        "\tmov.u32 %rd6, %r2;\n"               /* 16: zero-extends */
        "\tmov.s32 %rd7, %r2;\n"               /* 17: sign-extends */
        "\tmov.u32 %r8, %rd4;\n"               /* 18: truncates */
        "\tmov.b32 %r9, %h2;\n"                /* 19: the whole word of a 16-bit register */
        "\tmov.s16 %r10, -3;\n"                /* 20 */
        "\tmov.u16 %r11, -3;\n"                /* 21 */
        "\tmov.b64 %rd8, 0x123456789ABCDEF0;\n" /* 22 */
        "\tmov.f16 %h5, 0f3F800000;\n"         /* 23: f32 literal rounded to f16 */
        "\tmov.bf16 %h6, 0d3FF0000000000000;\n" /* 24 */
        "\tst.global.u32 [%rd3+0], %r2;\n"
        "\tst.global.u32 [%rd3+4], %r3;\n"
        "\tst.global.f32 [%rd3+8], %f1;\n"
        "\tst.global.f32 [%rd3+12], %f2;\n"
        "\tst.global.f64 [%rd3+16], %fd1;\n"
        "\tst.global.f64 [%rd3+24], %fd2;\n"
        "\tst.global.u64 [%rd3+32], %rd4;\n"
        "\tmov.b32 %r12, %h1;\n\tst.global.u32 [%rd3+40], %r12;\n"
        "\tmov.b32 %r12, %h2;\n\tst.global.u32 [%rd3+44], %r12;\n"
        "\tst.global.u32 [%rd3+48], %r4;\n"
        "\tst.global.u32 [%rd3+52], %r5;\n"
        "\tst.global.u64 [%rd3+56], %rd5;\n"
        "\tmov.b32 %r12, %h3;\n\tst.global.u32 [%rd3+64], %r12;\n"
        "\tst.global.u32 [%rd3+68], %r6;\n"
        "\tst.global.u32 [%rd3+72], %r7;\n"
        "\tmov.b32 %r12, %h4;\n\tst.global.u32 [%rd3+76], %r12;\n"
        "\tst.global.u64 [%rd3+80], %rd6;\n"
        "\tst.global.u64 [%rd3+88], %rd7;\n"
        "\tst.global.u32 [%rd3+96], %r8;\n"
        "\tst.global.u32 [%rd3+100], %r9;\n"
        "\tst.global.u32 [%rd3+104], %r10;\n"
        "\tst.global.u32 [%rd3+108], %r11;\n"
        "\tst.global.u64 [%rd3+112], %rd8;\n"
        "\tmov.b32 %r12, %h5;\n\tst.global.u32 [%rd3+120], %r12;\n"
        "\tmov.b32 %r12, %h6;\n\tst.global.u32 [%rd3+124], %r12;\n"
        "\tret;\n}\n";
    enum { T = 37 };
    uint8_t out[T * 128];
    memset(out, 0xEE, sizeof(out));
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(T);
    run_ok(ptx, &o, args, 1);
    for (int t = 0; t < T; t++) {
        const uint8_t *b = out + t * 128;
        uint32_t u32;
        uint64_t u64;
#define W32(off, v) (memcpy(&u32, b + (off), 4), assert_int_equal(u32, (uint32_t)(v)))
#define W64(off, v) (memcpy(&u64, b + (off), 8), assert_int_equal(u64, (uint64_t)(v)))
        W32(0, 0xFFFFFFFBu);
        W32(4, 0xDEADBEEFu);
        W32(8, fbits(1.5f));
        W32(12, fbits(0.1f));
        W64(16, UINT64_C(0x400921FB54442D18));
        W64(24, dbits(1.0));
        W64(32, UINT64_C(0xFFFFFFFFFFFFFFFE));
        W32(40, 0xABCD);
        W32(44, 0xFFFD);
        W32(48, 0xDEADBEEFu);
        W32(52, fbits(1.5f));
        W64(56, UINT64_C(0x400921FB54442D18));
        W32(64, 0xABCD);
        W32(68, 0xFFFFFFFDu);
        W32(72, 0xFFFD);
        W32(76, 0xBEEF);
        W64(80, UINT64_C(0xFFFFFFFB));
        W64(88, UINT64_C(0xFFFFFFFFFFFFFFFB));
        W32(96, 0xFFFFFFFEu);
        W32(100, 0xFFFD);
        W32(104, 0xFFFFFFFDu);
        W32(108, 0xFFFD);
        W64(112, UINT64_C(0x123456789ABCDEF0));
        W32(120, 0x3C00);
        W32(124, 0x3F80);
#undef W32
#undef W64
    }
}

/* mov.pred: copies, constants, negated sources; under guards and with a
 * partial, divergent warp. Each lane stores a bit mask of its predicates. */
static void test_mov_pred(void **state)
{
    (void)state;
    const char *ptx = HDR
        ".visible .entry k(.param .u64 out)\n{\n"
        "\t.reg .pred %p<8>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n"
        "\tld.param.u64 %rd1, [out];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmul.wide.u32 %rd2, %r1, 4;\n"
        "\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tand.b32 %r2, %r1, 1;\n"
        "\tsetp.eq.u32 %p1, %r2, 1;\n"      /* odd lanes */
        "\tsetp.lt.u32 %p2, %r1, 20;\n"     /* lanes below 20 */
        "\tmov.pred %p3, %p1;\n"
        "\tmov.pred %p4, 1;\n"
        "\tmov.pred %p5, 0;\n"
        "\tmov.pred %p6, %p4;\n"
        "\t@%p2 mov.pred %p6, %p1;\n"      /* below 20: odd; else true */
        "\tmov.pred %p7, !%p1;\n"
        "\tmov.u32 %r3, 0;\n"
        "\t@%p3 add.u32 %r3, %r3, 1;\n"
        "\t@%p4 add.u32 %r3, %r3, 2;\n"
        "\t@%p5 add.u32 %r3, %r3, 4;\n"
        "\t@%p6 add.u32 %r3, %r3, 8;\n"
        "\t@%p7 add.u32 %r3, %r3, 16;\n"
        "\tst.global.u32 [%rd3], %r3;\n"
        "\tret;\n}\n";
    enum { T = 45 };
    uint32_t out[T];
    memset(out, 0xEE, sizeof(out));
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(T);
    run_ok(ptx, &o, args, 1);
    for (uint32_t t = 0; t < T; t++) {
        uint32_t odd = t & 1;
        uint32_t p6 = t < 20 ? odd : 1;
        uint32_t want = odd * 1 + 2 + p6 * 8 + (!odd) * 16;
        assert_int_equal(out[t], want);
    }
}

/* Special registers, including the dynamic ones this family computes. */
static void test_mov_special_registers(void **state)
{
    (void)state;
    const char *ptx = HDR
        ".visible .entry k(.param .u64 out)\n{\n"
        "\t.reg .b16 %h<4>;\n\t.reg .b32 %r<32>;\n\t.reg .b64 %rd<16>;\n"
        "\tmov.u64 %rd10, %clock64;\n"       /* insn 1 of the warp */
        "\tmov.u32 %r10, %clock;\n"          /* 2 */
        "\tmov.u32 %r11, %clock_hi;\n"       /* 3 */
        "\tmov.u64 %rd11, %globaltimer;\n"   /* 4 */
        "\tmov.u32 %r12, %globaltimer_lo;\n" /* 5 */
        "\tmov.u32 %r13, %globaltimer_hi;\n" /* 6 */
        "\tld.param.u64 %rd1, [out];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmov.u32 %r2, %ntid.x;\n"
        "\tmov.u32 %r3, %laneid;\n"
        "\tmov.u32 %r4, %warpid;\n"
        "\tmov.u32 %r5, %nwarpid;\n"
        "\tmov.u32 %r6, %lanemask_lt;\n"
        "\tmov.u32 %r7, %envreg3;\n"
        "\tmov.u32 %r8, %pm2;\n"
        "\tmov.u64 %rd12, %pm1_64;\n"
        "\tmov.u32 %r9, %gridid;\n"
        "\tmov.u64 %rd13, %gridid;\n"
        "\tmov.u32 %r14, %clusterid.x;\n"
        "\tmov.u32 %r15, %nclusterid.x;\n"
        "\tmov.u32 %r16, %cluster_ctaid.y;\n"
        "\tmov.u32 %r17, %cluster_nctaid.z;\n"
        "\tmov.u32 %r18, %cluster_ctarank;\n"
        "\tmov.u32 %r19, %cluster_nctarank;\n"
        "\tmov.u32 %r20, %ctaid.x;\n"
        "\tmov.u16 %h1, %tid.x;\n"           /* 16-bit read of a 32-bit special register */
        "\tmov.b32 %r21, %h1;\n"
        "\tmov.u64 %rd14, %clock64;\n"       /* insn 28 */
        "\tmov.u32 %r22, %is_explicit_cluster;\n"
        "\tmov.u32 %r23, %lanemask_ge;\n"
        "\tmov.u32 %r24, %ctaid.x;\n"
        "\tmov.u32 %r25, %ntid.x;\n"
        "\tmad.lo.s32 %r26, %r24, %r25, %r1;\n"
        "\tmul.wide.u32 %rd2, %r26, 160;\n"
        "\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tst.global.u64 [%rd3+0], %rd10;\n"
        "\tst.global.u32 [%rd3+8], %r10;\n"
        "\tst.global.u32 [%rd3+12], %r11;\n"
        "\tst.global.u64 [%rd3+16], %rd11;\n"
        "\tst.global.u32 [%rd3+24], %r12;\n"
        "\tst.global.u32 [%rd3+28], %r13;\n"
        "\tst.global.u32 [%rd3+32], %r1;\n"
        "\tst.global.u32 [%rd3+36], %r2;\n"
        "\tst.global.u32 [%rd3+40], %r3;\n"
        "\tst.global.u32 [%rd3+44], %r4;\n"
        "\tst.global.u32 [%rd3+48], %r5;\n"
        "\tst.global.u32 [%rd3+52], %r6;\n"
        "\tst.global.u32 [%rd3+56], %r7;\n"
        "\tst.global.u32 [%rd3+60], %r8;\n"
        "\tst.global.u64 [%rd3+64], %rd12;\n"
        "\tst.global.u32 [%rd3+72], %r9;\n"
        "\tst.global.u64 [%rd3+80], %rd13;\n"
        "\tst.global.u32 [%rd3+88], %r14;\n"
        "\tst.global.u32 [%rd3+92], %r15;\n"
        "\tst.global.u32 [%rd3+96], %r16;\n"
        "\tst.global.u32 [%rd3+100], %r17;\n"
        "\tst.global.u32 [%rd3+104], %r18;\n"
        "\tst.global.u32 [%rd3+108], %r19;\n"
        "\tst.global.u32 [%rd3+112], %r20;\n"
        "\tst.global.u32 [%rd3+116], %r21;\n"
        "\tst.global.u64 [%rd3+120], %rd14;\n"
        "\tst.global.u32 [%rd3+128], %r22;\n"
        "\tst.global.u32 [%rd3+132], %r23;\n"
        "\tret;\n}\n";
    enum { B = 45, G = 2 };
    uint8_t out[B * G * 160];
    memset(out, 0xEE, sizeof(out));
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(B);
    o.grid.x = G;
    run_ok(ptx, &o, args, 1);
    for (uint32_t c = 0; c < G; c++) {
        for (uint32_t t = 0; t < B; t++) {
            const uint8_t *b = out + (c * B + t) * 160;
            uint32_t lane = t % 32, u32;
            uint64_t u64;
#define W32(off, v) (memcpy(&u32, b + (off), 4), assert_int_equal(u32, (uint32_t)(v)))
#define W64(off, v) (memcpy(&u64, b + (off), 8), assert_int_equal(u64, (uint64_t)(v)))
            W64(0, 1);
            W32(8, 2);
            W32(12, 0);
            W64(16, 4);
            W32(24, 5);
            W32(28, 0);
            W32(32, t);
            W32(36, B);
            W32(40, lane);
            W32(44, t / 32);
            W32(48, 2);
            W32(52, (1u << lane) - 1);
            W32(56, 0);
            W32(60, 0);
            W64(64, 0);
            W32(72, 1);
            W64(80, 1);
            W32(88, c);
            W32(92, G);
            W32(96, 0);
            W32(100, 1);
            W32(104, 0);
            W32(108, 1);
            W32(112, c);
            W32(116, t);
            W64(120, 28);
            W32(128, 0);
            W32(132, ~((1u << lane) - 1));
#undef W32
#undef W64
        }
    }
}

/* Addresses of module variables, functions, shared variables, and of
 * .local and .param variables and parameters in per-thread frames. */
static void test_mov_symbol_addresses(void **state)
{
    (void)state;
    const char *ptx = HDR
        ".global .align 4 .u32 gv[4] = {11, 22, 33, 44};\n"
        ".const .align 8 .u64 cv = 77;\n"
        ".shared .align 4 .b8 s1[12];\n"
        ".shared .align 8 .b8 s2[8];\n"
        ".func (.param .b64 ret) f(.param .b32 a)\n{\n"
        "\t.local .align 8 .b8 depot[16];\n"
        "\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<6>;\n"
        "\tmov.u64 %rd1, depot;\n"
        "\tmov.u64 %rd2, a;\n"                /* the parameter's local-space address */
        "\tld.local.u32 %r1, [%rd2];\n"
        "\tadd.u32 %r1, %r1, 1000;\n"
        "\tst.local.u32 [%rd1+4], %r1;\n"
        "\tld.local.u32 %r2, [%rd1+4];\n"
        "\tmov.u64 %rd3, ret;\n"
        "\tmov.u32 %r3, depot;\n"            /* the 32-bit form: the low half */
        "\tcvt.u32.u64 %r4, %rd1;\n"
        "\txor.b32 %r3, %r3, %r4;\n"
        "\tmov.b64 %rd4, {%r2, %r3};\n"       /* {value, 0} */
        "\tst.local.u64 [%rd3], %rd4;\n"      /* return value through its address */
        "\tret;\n}\n"
        ".visible .entry k(.param .u64 out)\n{\n"
        "\t.local .align 8 .b8 __local_depot0[32];\n"
        "\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<16>;\n\t.reg .b64 %SP;\n\t.reg .b64 %SPL;\n"
        "\tmov.u64 %SPL, __local_depot0;\n"
        "\tcvta.local.u64 %SP, %SPL;\n"
        "\tld.param.u64 %rd1, [out];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmul.wide.u32 %rd2, %r1, 64;\n"
        "\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tmov.u64 %rd4, gv;\n"
        "\tld.global.u32 %r2, [%rd4+8];\n"
        "\tmov.u64 %rd5, gv+12;\n"
        "\tld.global.u32 %r3, [%rd5];\n"
        "\tmov.u64 %rd6, cv;\n"
        "\tld.const.u64 %rd7, [%rd6];\n"
        "\tmov.u32 %r4, s2;\n"
        "\tmov.u64 %rd8, s1+4;\n"
        "\tst.local.u32 [%SPL+12], %r1;\n"   /* per-lane local memory through the depot */
        "\tld.u32 %r5, [%SP+12];\n"
        "\tmov.u64 %rd9, f;\n"
        "\t{\n"
        "\t.param .b32 p0;\n\t.param .b64 r0;\n"
        "\tst.param.b32 [p0], %r1;\n"
        "\tcall.uni (r0), f, (p0);\n"
        "\tld.param.b64 %rd10, [r0];\n"
        "\t}\n"
        "\tst.global.u32 [%rd3+0], %r2;\n"
        "\tst.global.u32 [%rd3+4], %r3;\n"
        "\tst.global.u64 [%rd3+8], %rd7;\n"
        "\tst.global.u32 [%rd3+16], %r4;\n"
        "\tst.global.u64 [%rd3+24], %rd8;\n"
        "\tst.global.u32 [%rd3+32], %r5;\n"
        "\tst.global.u64 [%rd3+40], %SPL;\n"
        "\tst.global.u64 [%rd3+48], %rd9;\n"
        "\tst.global.u64 [%rd3+56], %rd10;\n"
        "\tret;\n}\n";
    enum { T = 40 };
    uint8_t out[T * 64];
    memset(out, 0xEE, sizeof(out));
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(T);
    run_ok(ptx, &o, args, 1);
    for (uint32_t t = 0; t < T; t++) {
        const uint8_t *b = out + t * 64;
        uint32_t u32;
        uint64_t u64;
#define W32(off, v) (memcpy(&u32, b + (off), 4), assert_int_equal(u32, (uint32_t)(v)))
#define W64(off, v) (memcpy(&u64, b + (off), 8), assert_int_equal(u64, (uint64_t)(v)))
        W32(0, 33);
        W32(4, 44);
        W64(8, 77);
        W32(16, 16); /* s1 at 0 (12 bytes), s2 aligned to 8 */
        W64(24, 4);
        W32(32, t);
        W64(40, 0); /* the kernel's frame starts each thread's local memory */
        W64(48, UINT64_C(0x600000000000)); /* f is the module's first function */
        W64(56, t + 1000);
#undef W32
#undef W64
    }
}

/* Vector pack and unpack of every supported shape, sinks included. */
static void test_mov_vectors(void **state)
{
    (void)state;
    const char *ptx = HDR
        ".visible .entry k(.param .u64 out)\n{\n"
        "\t.reg .b8 %b<6>;\n\t.reg .b16 %h<12>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<16>;\n"
        "\t.reg .b128 %q<4>;\n"
        "\tld.param.u64 %rd1, [out];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmul.wide.u32 %rd2, %r1, 128;\n"
        "\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tmul.lo.u32 %r2, %r1, 0x01010101;\n"
        "\txor.b32 %r2, %r2, 0x80FF7F00;\n"     /* lane-dependent bytes */
        "\tnot.b32 %r3, %r2;\n"
        "\tmov.b64 %rd4, {%r2, %r3};\n"         /* pack 2 x 32 */
        "\tmov.b64 {%r4, %r5}, %rd4;\n"         /* unpack 2 x 32 */
        "\tmov.b32 {%h1, %h2}, %r2;\n"          /* unpack 2 x 16 */
        "\tmov.b32 %r6, {%h2, %h1};\n"          /* pack 2 x 16 (swapped) */
        "\tmov.b32 {%b1, %b2, %b3, %b4}, %r2;\n" /* unpack 4 x 8 */
        "\tmov.b32 %r7, {%b4, %b3, %b2, %b1};\n" /* pack 4 x 8 (byte swap) */
        "\tmov.b64 {%h3, %h4, %h5, %h6}, %rd4;\n" /* unpack 4 x 16 */
        "\tmov.b64 %rd5, {%h6, %h5, %h4, %h3};\n" /* pack 4 x 16 */
        "\tmov.b16 {%b1, %b2}, %h1;\n"          /* unpack 2 x 8 */
        "\tmov.b16 %h7, {%b2, %b1};\n"          /* pack 2 x 8 */
        "\tmov.b64 {_, %r8}, %rd4;\n"           /* sinks */
        "\tmov.b32 {%h8, _}, %r3;\n"
        "\tmov.b128 %q1, {%rd4, %rd5};\n"       /* pack 2 x 64 */
        "\tmov.b128 {%r9, %r10, %r11, %r12}, %q1;\n" /* unpack 4 x 32 */
        "\tmov.b128 %q2, {%r12, %r11, %r10, %r9};\n" /* pack 4 x 32 */
        "\tmov.b128 %q3, %q2;\n"
        "\tmov.b128 {%rd6, %rd7}, %q3;\n"       /* unpack 2 x 64 */
        "\tmov.b32 %r13, {%h1, 0x1234};\n"      /* an immediate element */
        "\tst.global.u64 [%rd3+0], %rd4;\n"
        "\tst.global.u32 [%rd3+8], %r4;\n"
        "\tst.global.u32 [%rd3+12], %r5;\n"
        "\tmov.b32 %r14, %h1;\n\tst.global.u32 [%rd3+16], %r14;\n"
        "\tmov.b32 %r14, %h2;\n\tst.global.u32 [%rd3+20], %r14;\n"
        "\tst.global.u32 [%rd3+24], %r6;\n"
        "\tst.global.u32 [%rd3+28], %r7;\n"
        "\tst.global.u64 [%rd3+32], %rd5;\n"
        "\tmov.b32 %r14, %h7;\n\tst.global.u32 [%rd3+40], %r14;\n"
        "\tst.global.u32 [%rd3+44], %r8;\n"
        "\tmov.b32 %r14, %h8;\n\tst.global.u32 [%rd3+48], %r14;\n"
        "\tst.global.u32 [%rd3+52], %r9;\n"
        "\tst.global.u32 [%rd3+56], %r12;\n"
        "\tst.global.u64 [%rd3+64], %rd6;\n"
        "\tst.global.u64 [%rd3+72], %rd7;\n"
        "\tst.global.u32 [%rd3+80], %r13;\n"
        "\tmov.b32 %r14, %b1;\n\tst.global.u32 [%rd3+84], %r14;\n"
        "\tret;\n}\n";
    enum { T = 33 };
    uint8_t out[T * 128];
    memset(out, 0xEE, sizeof(out));
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(T);
    run_ok(ptx, &o, args, 1);
    for (uint32_t t = 0; t < T; t++) {
        const uint8_t *b = out + t * 128;
        uint32_t a = (t * 0x01010101u) ^ 0x80FF7F00u, na = ~a, u32;
        uint64_t u64, rd4 = (uint64_t)na << 32 | a;
        uint32_t h1 = a & 0xFFFF, h2 = a >> 16;
        uint64_t rd5 = (uint64_t)h1 << 48 | (uint64_t)h2 << 32 | (uint64_t)(na & 0xFFFF) << 16 | (na >> 16);
#define W32(off, v) (memcpy(&u32, b + (off), 4), assert_int_equal(u32, (uint32_t)(v)))
#define W64(off, v) (memcpy(&u64, b + (off), 8), assert_int_equal(u64, (uint64_t)(v)))
        W64(0, rd4);
        W32(8, a);
        W32(12, na);
        W32(16, h1);
        W32(20, h2);
        W32(24, h2 | h1 << 16);
        W32(28, __builtin_bswap32(a));
        W64(32, rd5);
        W32(40, ((h1 & 0xFF) << 8) | (h1 >> 8));
        W32(44, na);
        W32(48, na & 0xFFFF);
        W32(52, a);
        W32(56, (uint32_t)(rd5 >> 32));
        /* q2 = {r12, r11, r10, r9} = {rd5.hi, rd5.lo, rd4.hi, rd4.lo} */
        W64(64, (uint64_t)(uint32_t)rd5 << 32 | (uint32_t)(rd5 >> 32));
        W64(72, (uint64_t)(uint32_t)rd4 << 32 | (uint32_t)(rd4 >> 32));
        W32(80, h1 | 0x1234u << 16);
        W32(84, h1 & 0xFF); /* %b1 was last written by the 2 x 8 unpack of %h1 */
#undef W32
#undef W64
    }
}

/* ======================================================== cvt tests */

static void test_cvt_int_to_int(void **state)
{
    (void)state;
    init_tables();
    uint64_t in[160];
    unsigned n = int_inputs(in, 160), checked = 0;
    static const ty ints[] = {T_U8, T_U16, T_U32, T_U64, T_S8, T_S16, T_S32, T_S64};
    for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
            for (int sat = 0; sat < 2; sat++) {
                cvtspec c = {.dt = ints[i], .at = ints[j], .sat = sat};
                c.dc = natural_class(c.dt);
                c.sc = natural_class(c.at);
                checked += check_cvt(&c, in, n);
                /* a destination register wider than the type */
                if (c.dc != RC_RD) {
                    c.dc = (rclass)(c.dc + 1);
                    checked += check_cvt(&c, in, n);
                    c.dc = natural_class(c.dt);
                }
                /* a source register wider than the type */
                if (c.sc != RC_RD) {
                    c.sc = (rclass)(c.sc + 1);
                    checked += check_cvt(&c, in, n);
                }
            }
        }
    }
    assert_true(checked > 10000);
}

/* A few integer conversions spelled out, independent of ref_cvt. */
static void test_cvt_int_examples(void **state)
{
    (void)state;
    uint64_t in[4] = {0xFFFFFF80u, 0x1FF, 0x80000000u, 0x7FFF8000u}, out[4];
    run_unary("cvt.s16.s32", RC_H, RC_R, in, out, 4); /* low 16 bits, zero-extended in the word */
    assert_int_equal(out[0], 0xFF80);
    assert_int_equal(out[1], 0x01FF);
    assert_int_equal(out[2], 0x0000);
    assert_int_equal(out[3], 0x8000);
    run_unary("cvt.sat.s8.s32", RC_R, RC_R, in, out, 4); /* sign-extended into the 32-bit register */
    assert_int_equal(out[0], 0xFFFFFF80u);
    assert_int_equal(out[1], 0x7F);
    assert_int_equal(out[2], 0xFFFFFF80u);
    assert_int_equal(out[3], 0x7F);
    run_unary("cvt.sat.u8.s32", RC_H, RC_R, in, out, 4);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0xFF);
    assert_int_equal(out[2], 0);
    assert_int_equal(out[3], 0xFF);
    run_unary("cvt.s64.s32", RC_RD, RC_R, in, out, 4);
    assert_int_equal(out[0], UINT64_C(0xFFFFFFFFFFFFFF80));
    assert_int_equal(out[2], UINT64_C(0xFFFFFFFF80000000));
    run_unary("cvt.u64.u32", RC_RD, RC_R, in, out, 4);
    assert_int_equal(out[0], UINT64_C(0xFFFFFF80));
    uint64_t big[3] = {UINT64_C(0xFFFFFFFFFFFFFFFF), UINT64_C(0x8000000000000000), UINT64_C(0x123456789)};
    run_unary("cvt.sat.s32.u64", RC_R, RC_RD, big, out, 3);
    assert_int_equal(out[0], 0x7FFFFFFF);
    assert_int_equal(out[1], 0x7FFFFFFF);
    assert_int_equal(out[2], 0x7FFFFFFF);
    run_unary("cvt.sat.u64.s64", RC_RD, RC_RD, big, out, 3);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);
    assert_int_equal(out[2], UINT64_C(0x123456789));
    run_unary("cvt.sat.s64.u64", RC_RD, RC_RD, big, out, 3);
    assert_int_equal(out[0], UINT64_C(0x7FFFFFFFFFFFFFFF));
    run_unary("cvt.u32.u64", RC_R, RC_RD, big, out, 3);
    assert_int_equal(out[2], 0x23456789);
}

static void test_cvt_int_to_float(void **state)
{
    (void)state;
    init_tables();
    uint64_t in[200];
    unsigned n = int_inputs(in, 200), checked = 0;
    static const ty ints[] = {T_U8, T_U16, T_U32, T_U64, T_S8, T_S16, T_S32, T_S64};
    static const ty floats[] = {T_F16, T_BF16, T_F32, T_F64};
    static const char modes[] = "nzmp";
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            for (int m = 0; m < 4; m++) {
                cvtspec c = {.dt = floats[j], .at = ints[i], .frnd = modes[m]};
                c.dc = natural_class(c.dt);
                c.sc = natural_class(c.at);
                checked += check_cvt(&c, in, n);
            }
    /* modifiers */
    cvtspec extra[] = {
        {.dt = T_F32, .at = T_S32, .frnd = 'n', .sat = 1},
        {.dt = T_F64, .at = T_S64, .frnd = 'z', .sat = 1},
        {.dt = T_F16, .at = T_S32, .frnd = 'n', .sat = 1},
        {.dt = T_F16, .at = T_U32, .frnd = 'n', .satfinite = 1},
        {.dt = T_BF16, .at = T_S64, .frnd = 'p', .satfinite = 1},
        {.dt = T_F16, .at = T_S16, .frnd = 'n', .relu = 1},
        {.dt = T_F32, .at = T_S32}, /* no rounding modifier: .rn */
        {.dt = T_F32, .at = T_U64, .frnd = 'm'},
    };
    for (size_t k = 0; k < sizeof(extra) / sizeof(extra[0]); k++) {
        extra[k].dc = natural_class(extra[k].dt);
        extra[k].sc = natural_class(extra[k].at);
        checked += check_cvt(&extra[k], in, n);
    }
    assert_true(checked > 20000);
    /* spelled out: 2^24 + 1 and 2^53 + 1 are not representable */
    uint64_t v[4] = {16777217, UINT64_C(9007199254740993), UINT64_C(0xFFFFFFFFFFFFFFFF), 65520}, out[4];
    run_unary("cvt.rn.f32.s32", RC_R, RC_R, v, out, 1);
    assert_int_equal(out[0], fbits(16777216.0f));
    run_unary("cvt.rp.f32.s32", RC_R, RC_R, v, out, 1);
    assert_int_equal(out[0], fbits(16777218.0f));
    run_unary("cvt.rn.f64.u64", RC_RD, RC_RD, v, out, 3);
    assert_int_equal(out[1], dbits(9007199254740992.0));
    assert_int_equal(out[2], dbits(18446744073709551616.0));
    run_unary("cvt.rz.f64.u64", RC_RD, RC_RD, v, out, 3);
    assert_int_equal(out[2], dbits(18446744073709549568.0));
    run_unary("cvt.rn.f16.u32", RC_H, RC_R, v + 3, out, 1);
    assert_int_equal(out[0], 0x7C00); /* 65520 rounds to infinity */
    run_unary("cvt.rz.f16.u32", RC_H, RC_R, v + 3, out, 1);
    assert_int_equal(out[0], 0x7BFF);
}

static void test_cvt_float_to_int(void **state)
{
    (void)state;
    init_tables();
    static uint64_t in32[NIN], in64[NIN], in16[NIN];
    unsigned n32 = f32_inputs(in32, 400), n64 = f64_inputs(in64, 400), n16 = half_inputs(in16, NIN, 97);
    unsigned checked = 0;
    static const ty ints[] = {T_U8, T_U16, T_U32, T_U64, T_S8, T_S16, T_S32, T_S64};
    static const ty floats[] = {T_F16, T_BF16, T_F32, T_F64};
    static const char modes[] = "nzmp";
    for (int j = 0; j < 4; j++) {
        const uint64_t *in = floats[j] == T_F32 ? in32 : floats[j] == T_F64 ? in64 : in16;
        unsigned n = floats[j] == T_F32 ? n32 : floats[j] == T_F64 ? n64 : n16;
        for (int i = 0; i < 8; i++)
            for (int m = 0; m < 4; m++) {
                cvtspec c = {.dt = ints[i], .at = floats[j], .irnd = modes[m]};
                c.dc = natural_class(c.dt);
                c.sc = natural_class(c.at);
                checked += check_cvt(&c, in, n);
                if (floats[j] == T_F32 && (m == 2 || m == 3)) {
                    c.ftz = 1;
                    checked += check_cvt(&c, in, n);
                }
            }
    }
    /* relaxed widths: s8 results in a 32-bit register, s32 in a 64-bit one,
     * an f16 source in a 32-bit register with garbage upper bits */
    cvtspec extra[] = {
        {.dt = T_S8, .at = T_F32, .irnd = 'n', .dc = RC_R, .sc = RC_R},
        {.dt = T_S32, .at = T_F64, .irnd = 'z', .dc = RC_RD, .sc = RC_RD},
        {.dt = T_U16, .at = T_F16, .irnd = 'p', .dc = RC_R, .sc = RC_R},
        {.dt = T_S32, .at = T_F32, .dc = RC_R, .sc = RC_R}, /* no modifier: .rzi */
    };
    for (size_t k = 0; k < sizeof(extra) / sizeof(extra[0]); k++) {
        const uint64_t *in = extra[k].at == T_F64 ? in64 : in32;
        unsigned n = extra[k].at == T_F64 ? n64 : n32;
        if (extra[k].at == T_F16) {
            in = in16;
            n = n16;
        }
        checked += check_cvt(&extra[k], in, n);
    }
    assert_true(checked > 50000);
    /* spelled out: NaN rules, saturation, ties */
    uint64_t v[6] = {0x7FC00000, fbits(-2.5f), fbits(2.5f), fbits(3e9f), fbits(-1.0f), 0x00000001}, out[6];
    run_unary("cvt.rni.s32.f32", RC_R, RC_R, v, out, 6);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], (uint32_t)-2);
    assert_int_equal(out[2], 2);
    assert_int_equal(out[3], 0x7FFFFFFF);
    run_unary("cvt.rzi.u32.f32", RC_R, RC_R, v, out, 6);
    assert_int_equal(out[4], 0);
    assert_int_equal(out[3], 3000000000u);
    run_unary("cvt.rzi.s64.f32", RC_RD, RC_R, v, out, 1);
    assert_int_equal(out[0], UINT64_C(0x8000000000000000));
    run_unary("cvt.rpi.s32.f32", RC_R, RC_R, v + 5, out, 1);
    assert_int_equal(out[0], 1);
    run_unary("cvt.rpi.ftz.s32.f32", RC_R, RC_R, v + 5, out, 1);
    assert_int_equal(out[0], 0);
    uint64_t d[1] = {UINT64_C(0x7FF8000000000000)};
    run_unary("cvt.rzi.s32.f64", RC_R, RC_RD, d, out, 1);
    assert_int_equal(out[0], 0x80000000u);
    run_unary("cvt.rzi.u16.f64", RC_H, RC_RD, d, out, 1);
    assert_int_equal(out[0], 0x8000);
    run_unary("cvt.rzi.s8.f64", RC_R, RC_RD, d, out, 1);
    assert_int_equal(out[0], 0xFFFFFF80u);
}

static void test_cvt_float_to_float(void **state)
{
    (void)state;
    init_tables();
    static uint64_t in32[NIN], in64[NIN], in16[NIN];
    unsigned n32 = f32_inputs(in32, NIN), n64 = f64_inputs(in64, NIN), n16 = half_inputs(in16, NIN, 113);
    unsigned checked = 0;
    static const ty floats[] = {T_F16, T_BF16, T_F32, T_F64};
    static const char modes[] = "nzmp";
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            if (i == j)
                continue;
            const uint64_t *in = floats[j] == T_F32 ? in32 : floats[j] == T_F64 ? in64 : in16;
            unsigned n = floats[j] == T_F32 ? n32 : floats[j] == T_F64 ? n64 : n16;
            for (int m = 0; m < 4; m++) {
                cvtspec c = {.dt = floats[i], .at = floats[j], .frnd = modes[m]};
                c.dc = natural_class(c.dt);
                c.sc = natural_class(c.at);
                checked += check_cvt(&c, in, n);
            }
        }
    /* modifiers */
    cvtspec extra[] = {
        {.dt = T_F32, .at = T_F64, .frnd = 'n', .ftz = 1},
        {.dt = T_F32, .at = T_F64, .frnd = 'z', .ftz = 1},
        {.dt = T_F64, .at = T_F32, .ftz = 1},
        {.dt = T_F16, .at = T_F32, .frnd = 'n', .ftz = 1},
        {.dt = T_F32, .at = T_F32, .ftz = 1},
        {.dt = T_F32, .at = T_F32, .sat = 1},
        {.dt = T_F32, .at = T_F32, .ftz = 1, .sat = 1},
        {.dt = T_F64, .at = T_F64, .sat = 1},
        {.dt = T_F16, .at = T_F16, .sat = 1},
        {.dt = T_F32, .at = T_F64, .frnd = 'p', .sat = 1},
        {.dt = T_F16, .at = T_F32, .frnd = 'n', .sat = 1},
        {.dt = T_F16, .at = T_F32, .frnd = 'n', .relu = 1},
        {.dt = T_F16, .at = T_F32, .frnd = 'z', .relu = 1},
        {.dt = T_BF16, .at = T_F32, .frnd = 'n', .relu = 1},
        {.dt = T_F16, .at = T_F32, .frnd = 'n', .satfinite = 1},
        {.dt = T_BF16, .at = T_F32, .frnd = 'z', .satfinite = 1},
        {.dt = T_F16, .at = T_F32, .frnd = 'n', .relu = 1, .satfinite = 1},
        {.dt = T_F32, .at = T_F64}, /* no modifier: .rn */
        {.dt = T_F32, .at = T_BF16, .ftz = 1},
    };
    for (size_t k = 0; k < sizeof(extra) / sizeof(extra[0]); k++) {
        cvtspec *c = &extra[k];
        c->dc = natural_class(c->dt);
        c->sc = natural_class(c->at);
        const uint64_t *in = c->at == T_F32 ? in32 : c->at == T_F64 ? in64 : in16;
        unsigned n = c->at == T_F32 ? n32 : c->at == T_F64 ? n64 : n16;
        checked += check_cvt(c, in, n);
    }
    /* f16 source in a 32-bit register with garbage upper bits, f16 result
     * in a 32-bit register */
    cvtspec wide = {.dt = T_F16, .at = T_F16, .sat = 1, .dc = RC_R, .sc = RC_R};
    checked += check_cvt(&wide, in16, n16);
    cvtspec wide2 = {.dt = T_F32, .at = T_F16, .dc = RC_R, .sc = RC_R};
    checked += check_cvt(&wide2, in16, n16);
    assert_true(checked > 30000);
}

/* Every f16 and bf16 value converts exactly to f32; every f16 value round
 * trips; f16 <-> bf16 in every mode over all 65536 encodings. */
static void test_cvt_half_exhaustive(void **state)
{
    (void)state;
    init_tables();
    uint64_t *in = malloc(65536 * sizeof(uint64_t));
    uint64_t *out = malloc(65536 * sizeof(uint64_t));
    for (uint32_t e = 0; e < 65536; e++)
        in[e] = e;
    run_unary("cvt.f32.f16", RC_R, RC_H, in, out, 65536);
    for (uint32_t e = 0; e < 65536; e++) {
        uint32_t want;
        if ((e & 0x7C00) == 0x7C00 && (e & 0x3FF))
            want = 0x7FFFFFFF;
        else
            want = fbits((float)ref_read_float(e, T_F16, 0));
        if (out[e] != want)
            fail_msg("cvt.f32.f16 of 0x%04x gives 0x%08llx, expected 0x%08x", e, (unsigned long long)out[e], want);
    }
    for (uint32_t e = 0; e < 65536; e++)
        in[e] = out[e];
    run_unary("cvt.rn.f16.f32", RC_H, RC_R, in, out, 65536);
    for (uint32_t e = 0; e < 65536; e++) {
        uint32_t want = ((e & 0x7C00) == 0x7C00 && (e & 0x3FF)) ? 0x7FFF : e;
        if (out[e] != want)
            fail_msg("f16 0x%04x does not round trip through f32: 0x%04llx", e, (unsigned long long)out[e]);
    }
    for (uint32_t e = 0; e < 65536; e++)
        in[e] = e;
    run_unary("cvt.f32.bf16", RC_R, RC_H, in, out, 65536);
    for (uint32_t e = 0; e < 65536; e++) {
        uint32_t want = ((e & 0x7F80) == 0x7F80 && (e & 0x7F)) ? 0x7FFFFFFF : e << 16;
        if (out[e] != want)
            fail_msg("cvt.f32.bf16 of 0x%04x gives 0x%08llx", e, (unsigned long long)out[e]);
    }
    static const char modes[] = "nzmp";
    for (int m = 0; m < 4; m++) {
        cvtspec c = {.dt = T_BF16, .at = T_F16, .frnd = modes[m], .dc = RC_H, .sc = RC_H};
        check_cvt(&c, in, 65536);
        cvtspec c2 = {.dt = T_F16, .at = T_BF16, .frnd = modes[m], .dc = RC_H, .sc = RC_H};
        check_cvt(&c2, in, 65536);
    }
    free(in);
    free(out);
}

/* Rounding to an integral value in the same float type. */
static void test_cvt_round_to_integral(void **state)
{
    (void)state;
    init_tables();
    static uint64_t in32[NIN], in64[NIN], in16[NIN];
    unsigned n32 = f32_inputs(in32, NIN), n64 = f64_inputs(in64, NIN), n16 = half_inputs(in16, NIN, 109);
    unsigned checked = 0;
    static const ty floats[] = {T_F16, T_BF16, T_F32, T_F64};
    static const char modes[] = "nzmp";
    for (int j = 0; j < 4; j++) {
        const uint64_t *in = floats[j] == T_F32 ? in32 : floats[j] == T_F64 ? in64 : in16;
        unsigned n = floats[j] == T_F32 ? n32 : floats[j] == T_F64 ? n64 : n16;
        for (int m = 0; m < 4; m++) {
            cvtspec c = {.dt = floats[j], .at = floats[j], .irnd = modes[m]};
            c.dc = c.sc = natural_class(c.dt);
            checked += check_cvt(&c, in, n);
            if (floats[j] == T_F32) {
                c.ftz = 1;
                checked += check_cvt(&c, in, n);
                c.sat = 1;
                checked += check_cvt(&c, in, n);
            }
        }
    }
    assert_true(checked > 10000);
    uint64_t v[4] = {fbits(-0.3f), fbits(2.5f), fbits(-2.5f), fbits(0.5f)}, out[4];
    run_unary("cvt.rni.f32.f32", RC_R, RC_R, v, out, 4);
    assert_int_equal(out[0], 0x80000000u); /* -0 */
    assert_int_equal(out[1], fbits(2.0f));
    assert_int_equal(out[2], fbits(-2.0f));
    assert_int_equal(out[3], 0);
    run_unary("cvt.rpi.f32.f32", RC_R, RC_R, v, out, 4);
    assert_int_equal(out[0], 0x80000000u);
    assert_int_equal(out[3], fbits(1.0f));
}

/* .tf32 from .f32: rna, rn, rz, satfinite, relu. */
static void test_cvt_tf32(void **state)
{
    (void)state;
    static uint64_t in[NIN], out[NIN];
    unsigned n = f32_inputs(in, NIN);
    static const char *forms[] = {"cvt.rna.tf32.f32", "cvt.rna.satfinite.tf32.f32", "cvt.rn.tf32.f32",
                                  "cvt.rz.tf32.f32", "cvt.rn.satfinite.tf32.f32",
                                  "cvt.rn.relu.tf32.f32", "cvt.rz.relu.satfinite.tf32.f32"};
    for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
        run_unary(forms[f], RC_R, RC_R, in, out, n);
        char mode = strstr(forms[f], ".rna") ? 'a' : strstr(forms[f], ".rz") ? 'z' : 'n';
        int satfinite = strstr(forms[f], "satfinite") != NULL, relu = strstr(forms[f], "relu") != NULL;
        for (unsigned i = 0; i < n; i++) {
            uint32_t b = (uint32_t)in[i], want;
            if ((b & 0x7FFFFFFFu) > 0x7F800000u)
                want = 0x7FFFFFFF;
            else if (relu && (b & 0x80000000u))
                want = 0;
            else
                want = ref_tf32(b, mode, satfinite);
            if (out[i] != want)
                fail_msg("%s of 0x%08x gives 0x%08llx, expected 0x%08x", forms[f], b,
                         (unsigned long long)out[i], want);
        }
    }
}

/* Binary conversions: f16x2 / bf16x2 packs and cvt.pack.sat; `a` goes to
 * the upper half. */
static void test_cvt_packed(void **state)
{
    (void)state;
    init_tables();
    const char *ptx_fmt = HDR
        ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
        "\t.reg .b32 %%r<12>;\n\t.reg .b64 %%rd<8>;\n"
        "\tld.param.u64 %%rd1, [pin];\n\tld.param.u64 %%rd2, [pout];\n"
        "\tmov.u32 %%r1, %%tid.x;\n"
        "\tmul.wide.u32 %%rd3, %%r1, 12;\n\tadd.s64 %%rd4, %%rd1, %%rd3;\n"
        "\tmul.wide.u32 %%rd3, %%r1, 4;\n\tadd.s64 %%rd5, %%rd2, %%rd3;\n"
        "\tld.global.u32 %%r2, [%%rd4];\n\tld.global.u32 %%r3, [%%rd4+4];\n\tld.global.u32 %%r4, [%%rd4+8];\n"
        "\t%s;\n"
        "\tst.global.u32 [%%rd5], %%r5;\n"
        "\tret;\n}\n";
    enum { N = 256 };
    static uint32_t in[N * 3], out[N];
    static uint64_t f32s[N];
    f32_inputs(f32s, N);
    for (unsigned i = 0; i < N; i++) {
        in[3 * i] = (uint32_t)f32s[i];
        in[3 * i + 1] = (uint32_t)f32s[(i * 7 + 3) % N];
        in[3 * i + 2] = (uint32_t)rnd();
    }
    static const struct {
        const char *insn;
        ty t;
        char mode;
        int relu, satfinite;
    } x2[] = {{"cvt.rn.f16x2.f32 %r5, %r2, %r3", T_F16, 'n', 0, 0},
              {"cvt.rz.f16x2.f32 %r5, %r2, %r3", T_F16, 'z', 0, 0},
              {"cvt.rn.relu.f16x2.f32 %r5, %r2, %r3", T_F16, 'n', 1, 0},
              {"cvt.rn.satfinite.f16x2.f32 %r5, %r2, %r3", T_F16, 'n', 0, 1},
              {"cvt.rn.bf16x2.f32 %r5, %r2, %r3", T_BF16, 'n', 0, 0},
              {"cvt.rz.relu.satfinite.bf16x2.f32 %r5, %r2, %r3", T_BF16, 'z', 1, 1}};
    char ptx[4096];
    for (size_t f = 0; f < sizeof(x2) / sizeof(x2[0]); f++) {
        snprintf(ptx, sizeof(ptx), ptx_fmt, x2[f].insn);
        harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
        harness_opts o = harness_one_cta(N);
        run_ok(ptx, &o, args, 2);
        cvtspec c = {.dt = x2[f].t, .at = T_F32, .frnd = x2[f].mode, .relu = x2[f].relu,
                     .satfinite = x2[f].satfinite, .dc = RC_R, .sc = RC_R};
        for (unsigned i = 0; i < N; i++) {
            uint32_t want = (uint32_t)(ref_cvt(&c, in[3 * i]) << 16 | ref_cvt(&c, in[3 * i + 1]));
            if (out[i] != want)
                fail_msg("%s of (0x%08x, 0x%08x) gives 0x%08x, expected 0x%08x", x2[f].insn, in[3 * i],
                         in[3 * i + 1], out[i], want);
        }
    }
    /* cvt.pack.sat */
    static const int32_t ivals[] = {0, 1, -1, 7, 8, -8, -9, 15, 16, 127, 128, -128, -129, 255, 256,
                                    32767, 32768, -32768, -32769, 65535, 65536, INT32_MAX, INT32_MIN};
    const unsigned ni = sizeof(ivals) / sizeof(ivals[0]);
    for (unsigned i = 0; i < N; i++) {
        in[3 * i] = (uint32_t)ivals[i % ni];
        in[3 * i + 1] = (uint32_t)ivals[(i / ni) % ni];
    }
    static const struct {
        const char *insn;
        unsigned size;
        int sgn;
        int has_c;
    } pk[] = {{"cvt.pack.sat.s16.s32 %r5, %r2, %r3", 16, 1, 0},
              {"cvt.pack.sat.u16.s32 %r5, %r2, %r3", 16, 0, 0},
              {"cvt.pack.sat.s8.s32.b32 %r5, %r2, %r3, %r4", 8, 1, 1},
              {"cvt.pack.sat.u8.s32.b32 %r5, %r2, %r3, %r4", 8, 0, 1},
              {"cvt.pack.sat.s4.s32.b32 %r5, %r2, %r3, %r4", 4, 1, 1},
              {"cvt.pack.sat.u4.s32.b32 %r5, %r2, %r3, %r4", 4, 0, 1}};
    for (size_t f = 0; f < sizeof(pk) / sizeof(pk[0]); f++) {
        snprintf(ptx, sizeof(ptx), ptx_fmt, pk[f].insn);
        harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
        harness_opts o = harness_one_cta(N);
        run_ok(ptx, &o, args, 2);
        int64_t lo = pk[f].sgn ? -(INT64_C(1) << (pk[f].size - 1)) : 0;
        int64_t hi = pk[f].sgn ? (INT64_C(1) << (pk[f].size - 1)) - 1 : (INT64_C(1) << pk[f].size) - 1;
        for (unsigned i = 0; i < N; i++) {
            int64_t a = (int32_t)in[3 * i], b = (int32_t)in[3 * i + 1];
            a = a < lo ? lo : a > hi ? hi : a;
            b = b < lo ? lo : b > hi ? hi : b;
            uint64_t m = mask_of(pk[f].size);
            uint64_t td = ((uint64_t)a & m) << pk[f].size | ((uint64_t)b & m);
            if (pk[f].has_c)
                td |= (uint64_t)in[3 * i + 2] << (2 * pk[f].size);
            if (out[i] != (uint32_t)td)
                fail_msg("%s of (%d, %d, 0x%08x) gives 0x%08x, expected 0x%08x", pk[f].insn,
                         (int32_t)in[3 * i], (int32_t)in[3 * i + 1], in[3 * i + 2], out[i], (uint32_t)td);
        }
    }
}

/* Partial warps and divergent lanes: guarded conversions leave the
 * destination of other lanes alone; both sides of a branch convert. */
static void test_divergence(void **state)
{
    (void)state;
    const char *ptx = HDR
        ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
        "\t.reg .pred %p<4>;\n\t.reg .b16 %h<4>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<12>;\n"
        "\tld.param.u64 %rd1, [pin];\n\tld.param.u64 %rd2, [pout];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
        "\tmul.wide.u32 %rd3, %r1, 24;\n\tadd.s64 %rd5, %rd2, %rd3;\n"
        "\tld.global.f32 %r2, [%rd4];\n"
        "\tmov.u32 %r3, 0xCAFE;\n"
        "\tmov.u64 %rd6, 0xDEAD;\n"
        "\tmov.b16 %h1, 0xBEEF;\n"
        "\tand.b32 %r4, %r1, 3;\n"
        "\tsetp.eq.u32 %p1, %r4, 1;\n"
        "\t@%p1 cvt.rni.s32.f32 %r3, %r2;\n"
        "\t@!%p1 cvt.f64.f32 %rd6, %r2;\n"
        "\tsetp.gt.u32 %p2, %r1, 17;\n"
        "\t@%p2 bra BIG;\n"
        "\tcvt.rn.f16.f32 %h1, %r2;\n"
        "\tmov.u32 %r5, %laneid;\n"
        "\tbra.uni JOIN;\n"
        "BIG:\n"
        "\tcvt.rzi.u16.f32 %h1, %r2;\n"
        "\tmov.u32 %r5, %clock;\n"
        "JOIN:\n"
        "\tmov.b32 %r6, %h1;\n"
        "\tst.global.u32 [%rd5], %r3;\n"
        "\tst.global.u64 [%rd5+8], %rd6;\n"
        "\tst.global.u32 [%rd5+16], %r6;\n"
        "\tst.global.u32 [%rd5+20], %r5;\n"
        "\tret;\n}\n";
    enum { T = 45 };
    float in[T];
    uint32_t out[T * 6];
    for (int t = 0; t < T; t++)
        in[t] = (float)t * 1.75f - 20.5f;
    memset(out, 0xEE, sizeof(out));
    harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(T);
    run_ok(ptx, &o, args, 2);
    init_tables();
    for (uint32_t t = 0; t < T; t++) {
        const uint32_t *b = out + t * 6;
        uint64_t d;
        memcpy(&d, b + 2, 8);
        if ((t & 3) == 1) {
            assert_int_equal(b[0], (uint32_t)(int32_t)nearbyint(in[t]));
            assert_int_equal(d, 0xDEAD);
        } else {
            assert_int_equal(b[0], 0xCAFE);
            assert_int_equal(d, dbits((double)in[t]));
        }
        if (t > 17) {
            double r = trunc(in[t]);
            assert_int_equal(b[4], r < 0 ? 0 : (uint32_t)r);
        } else {
            assert_int_equal(b[4], ref_small((long double)in[t], &F16T, 'n', 0));
            assert_int_equal(b[5], t % 32);
        }
    }
    /* %clock counts the warp's instructions: warp 1 branches uniformly and
     * reads it as its 19th instruction; the lanes of warp 0 that branch read
     * one value, 19 or later depending on which side of the divergent
     * branch runs first */
    for (uint32_t t = 32; t < T; t++)
        assert_int_equal(out[t * 6 + 5], 19);
    for (uint32_t t = 18; t < 32; t++) {
        assert_int_equal(out[t * 6 + 5], out[18 * 6 + 5]);
        assert_in_range(out[t * 6 + 5], 19, 23);
    }
}

/* Immediate sources, identity conversions, unpacks of immediates and
 * sinks in the first element. */
static void test_cvt_immediates_and_identity(void **state)
{
    (void)state;
    const char *ptx = HDR
        ".visible .entry k(.param .u64 out)\n{\n"
        "\t.reg .b16 %h<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n"
        "\tld.param.u64 %rd1, [out];\n"
        "\tmov.u32 %r1, %tid.x;\n"
        "\tmul.wide.u32 %rd2, %r1, 64;\n"
        "\tadd.s64 %rd3, %rd1, %rd2;\n"
        "\tcvt.rn.f16.f32 %h1, 0f3FC00000;\n"    /* 1.5 */
        "\tcvt.u32.u16 %r2, 0x12345;\n"          /* the literal is taken as a .u16 */
        "\tcvt.rn.f32.s32 %r3, -7;\n"
        "\tcvt.rzi.s32.f64 %r4, 0dC00C000000000000;\n" /* -3.5 */
        "\tcvt.f32.f16 %r5, 0f3E000000;\n"       /* 0.125 given as f32, rounded to f16 */
        "\tmov.b32 %r6, 0xFF800001;\n"          /* a signaling NaN pattern */
        "\tcvt.f32.f32 %r7, %r6;\n"             /* plain: bits copied */
        "\tcvt.ftz.f32.f32 %r8, %r6;\n"         /* with a modifier: canonical NaN */
        "\tmov.b32 {%h2, %h3}, 0x12345678;\n"
        "\tmov.b32 {_, %h4}, %r6;\n"
        "\tmov.u64 %rd4, %current_graph_exec;\n"
        "\tmov.f32 %r9, 0f7F800001;\n"          /* 0f literals are exact bit patterns */
        "\tmov.b32 %r10, {%h3, %h2};\n"
        "\tmov.b32 %r11, %h1;\n"
        "\tmov.b32 %r12, %h4;\n"
        "\tst.global.u32 [%rd3+0], %r11;\n"
        "\tst.global.u32 [%rd3+4], %r2;\n"
        "\tst.global.u32 [%rd3+8], %r3;\n"
        "\tst.global.u32 [%rd3+12], %r4;\n"
        "\tst.global.u32 [%rd3+16], %r5;\n"
        "\tst.global.u32 [%rd3+20], %r7;\n"
        "\tst.global.u32 [%rd3+24], %r8;\n"
        "\tst.global.u32 [%rd3+28], %r10;\n"
        "\tst.global.u32 [%rd3+32], %r12;\n"
        "\tst.global.u64 [%rd3+40], %rd4;\n"
        "\tst.global.u32 [%rd3+48], %r9;\n"
        "\tret;\n}\n";
    enum { T = 35 };
    uint32_t out[T * 16];
    memset(out, 0xEE, sizeof(out));
    harness_arg args[] = {HBUF(out, sizeof(out))};
    harness_opts o = harness_one_cta(T);
    run_ok(ptx, &o, args, 1);
    for (int t = 0; t < T; t++) {
        const uint32_t *b = out + t * 16;
        assert_int_equal(b[0], 0x3E00);
        assert_int_equal(b[1], 0x2345);
        assert_int_equal(b[2], fbits(-7.0f));
        assert_int_equal(b[3], (uint32_t)-3);
        assert_int_equal(b[4], fbits(0.125f));
        assert_int_equal(b[5], 0xFF800001u);
        assert_int_equal(b[6], 0x7FFFFFFFu);
        assert_int_equal(b[7], 0x56781234u);
        assert_int_equal(b[8], 0xFF80);
        assert_int_equal(b[10], 0);
        assert_int_equal(b[11], 0);
        assert_int_equal(b[12], 0x7F800001u);
    }
}

/* Forms the executor does not implement are reported at their line. */
static void test_unsupported(void **state)
{
    (void)state;
    static const struct {
        const char *insn;
        const char *why;
    } cases[] = {
        {"cvt.rn.s32.f32 %r2, %r1;", "float-to-integer"},
        {"cvt.rni.f32.s32 %r2, %r1;", "integer rounding"},
        {"cvt.rn.satfinite.e4m3x2.f32 %h1, %r1, %r1;", "these types"},
        {"cvt.rn.f16x2.e4m3x2 %r2, %h1;", "these types"},
        {"cvt.rs.f16x2.f32 %r2, %r1, %r1, %r1;", "modifier"},
        {"cvt.rni.f16.f32 %h1, %r1;", "same source and destination"},
        {"cvt.rn.f16x2.f32 %r2, %r1;", "packed"},
        {"cvt.u64.u32 %r2, %r1;", "narrower"},
        {"cvt.rn.f64.f32 %r2, %r1;", "float type"},
        {"mov.u32 %r2, %clock64;", "64-bit"},
        {"mov.u64 %rd2, %clock;", "32-bit"},
        {"mov.u64 %rd2, %tid.x;", "32 bits"},
        {"mov.u64 %rd2, pk;", "kernel parameter"},
        {"mov.u32 %r2, %tid;", "special register"},
        {"mov.b32 %h1, %r1;", "narrower"},
        {"mov.v2.u32 %r2, %r1;", "modifiers"},
        {"mov.b64 {%r2, %r3}, {%r1, %r1};", "two vectors"},
        {"mov.b64 %rd2, {%h1, %h2};", "element"},
        {"mov.b32 %r2, %p1;", "predicate"},
        {"mov.b128 %q1, %rd1;", "b128"},
        {"cvt.u32.u32 %r2, %p1;", "predicate"},
        {"cvt.pack.sat.u8.s32 %r2, %r1, %r1;", "cvt.pack"},
        {"cvt.rna.f16.f32 %h1, %r1;", ".rna"},
        {"cvt.tf32.f32 %r2, %r1;", "tf32"},
        {"cvt.rn.u32.s32 %r2, %r1;", "rounding modifiers"},
        {"cvt.rn.f16x2.f32 %h1, %r1, %r1;", "32-bit register"},
        {"cvt.rn.f32.f16 %r2, %rd1;", "source register"},
        {"mov.u32 %rd2, k;", "address"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char ptx[2048];
        snprintf(ptx, sizeof(ptx),
                 HDR ".visible .entry k(.param .u64 pk)\n{\n"
                     "\t.reg .pred %%p<2>;\n\t.reg .b16 %%h<4>;\n\t.reg .b32 %%r<4>;\n"
                     "\t.reg .b64 %%rd<4>;\n\t.reg .b128 %%q<2>;\n"
                     "\t%s\n" /* line 11 */
                     "\tret;\n}\n",
                 cases[i].insn);
        harness_opts o = harness_one_cta(32);
        harness_arg args[] = {HVAL(0)};
        mb_status st = harness_run(ptx, "k", &o, args, 1);
        if (st != MB_ERR_UNSUPPORTED)
            fail_msg("'%s' gave status %d: %s", cases[i].insn, (int)st, o.message);
        if (!strstr(o.message, "test.ptx:11:"))
            fail_msg("'%s': the message does not name line 11: %s", cases[i].insn, o.message);
        if (!strstr(o.message, cases[i].why))
            fail_msg("'%s': the message does not say '%s': %s", cases[i].insn, cases[i].why, o.message);
    }
}

/* ======================================================== random test */

/* A register of the random program: class and index (0..7). */
typedef struct rreg {
    rclass c;
    int i;
} rreg;

typedef struct lane_state {
    uint64_t w[3][8]; /* words of %h, %r, %rd registers */
} lane_state;

static const char *RC_PREFIX[] = {"%h", "%r", "%rd"};

static rreg pick_reg(rclass c)
{
    rreg r = {c, (int)(rnd() % 8)};
    return r;
}

/* Random float-ish bits: special values often, random bits otherwise. */
static uint64_t random_word(rclass c)
{
    static const uint64_t specials64[] = {0, UINT64_C(0x8000000000000000), UINT64_C(0x3FF0000000000000),
                                          UINT64_C(0x7FF0000000000000), UINT64_C(0x7FF8000000000000),
                                          UINT64_C(0x0000000000000001), UINT64_C(0x41DFFFFFFFC00000),
                                          UINT64_C(0xC3E0000000000000), UINT64_C(0x7FFFFFFFFFFFFFFF),
                                          UINT64_C(0x3FE0000000000000)};
    static const uint32_t specials32[] = {0, 0x80000000u, 0x3F800000, 0x7F800000, 0x7FC00000, 0x00000001,
                                          0x4F000000, 0xCF000000, 0x7FFFFFFF, 0x3F000000, 0x477FF000,
                                          0x33000000, 0x40200000, 0xC0200000};
    static const uint32_t specials16[] = {0, 0x8000, 0x3C00, 0x7C00, 0x7E00, 0x0001, 0x7BFF, 0x3800,
                                          0x4100, 0xFFFF, 0x7F80, 0x7F7F};
    uint64_t r = rnd();
    int special = rnd() % 3 == 0;
    switch (c) {
    case RC_H: return special ? specials16[r % (sizeof(specials16) / 4)] : r & 0xFFFF;
    case RC_R:
        if (special)
            return specials32[r % (sizeof(specials32) / 4)];
        if (r & 1) /* small integral-ish floats */
            return fbits((float)((int32_t)(r >> 8) % 100000) / (float)(1 << ((r >> 40) % 8)));
        return r & 0xFFFFFFFFu;
    default:
        if (special)
            return specials64[r % (sizeof(specials64) / 8)];
        if (r & 1)
            return dbits((double)((int64_t)(r >> 8) % 10000000) / (double)(1 << ((r >> 50) % 12)));
        return r;
    }
}

/* One random instruction: its text and the host model of its effect. */
typedef enum op_kind { OP_CVT, OP_MOVREG, OP_MOVIMM, OP_PACK, OP_UNPACK, OP_X2, OP_TF32, OP_CVTPACK } op_kind;

typedef struct rop {
    op_kind kind;
    int guard; /* 0 none, 1 @%p1, 2 @!%p1 */
    cvtspec c;
    rreg d, a, b, e;
    uint64_t imm;
    unsigned ebits, n; /* pack/unpack element bits and count */
    rreg elems[4];
    int sink[4];
    char text[160];
    int ext_sgn;      /* OP_MOVREG: signed type */
    unsigned tbits;   /* OP_MOVREG: type bits */
    char mode;        /* OP_X2 / OP_TF32 */
    int relu, satfinite;
} rop;

static const ty INT_TYPES[] = {T_U8, T_U16, T_U32, T_U64, T_S8, T_S16, T_S32, T_S64};
static const ty FLOAT_TYPES[] = {T_F16, T_BF16, T_F32, T_F64};

/* A register class able to hold type t as a source (1) or destination (0). */
static rclass class_for(ty t, int src)
{
    unsigned b = TY[t].bits;
    if (b == 64)
        return RC_RD;
    if (t == T_BF16)
        return RC_H;
    if (b <= 16)
        return rnd() % 4 == 0 ? RC_R : RC_H;
    (void)src;
    if (!TY[t].isf && rnd() % 5 == 0)
        return RC_RD; /* relaxed: a wider register */
    return RC_R;
}

static void reg_text(rreg r, char *buf, size_t size)
{
    snprintf(buf, size, "%s%d", RC_PREFIX[r.c], r.i);
}

static void gen_op(rop *op)
{
    memset(op, 0, sizeof(*op));
    op->guard = rnd() % 4 == 0 ? (int)(1 + rnd() % 2) : 0;
    char ds[16], as[16], bs[16], es[16];
    unsigned k = (unsigned)(rnd() % 100);
    if (k < 55) {
        op->kind = OP_CVT;
        cvtspec *c = &op->c;
        unsigned cat = (unsigned)(rnd() % 5);
        static const char fr[] = "nzmp";
        if (cat == 0) { /* int -> int */
            c->dt = INT_TYPES[rnd() % 8];
            c->at = INT_TYPES[rnd() % 8];
            c->sat = rnd() % 2;
        } else if (cat == 1) { /* int -> float */
            c->dt = FLOAT_TYPES[rnd() % 4];
            c->at = INT_TYPES[rnd() % 8];
            c->frnd = fr[rnd() % 4];
            if (rnd() % 6 == 0 && c->dt != T_BF16)
                c->sat = 1;
        } else if (cat == 2) { /* float -> int */
            c->dt = INT_TYPES[rnd() % 8];
            c->at = FLOAT_TYPES[rnd() % 4];
            c->irnd = fr[rnd() % 4];
            c->ftz = c->at == T_F32 && rnd() % 3 == 0;
        } else if (cat == 3) { /* float -> float */
            c->dt = FLOAT_TYPES[rnd() % 4];
            do
                c->at = FLOAT_TYPES[rnd() % 4];
            while (c->at == c->dt);
            c->frnd = fr[rnd() % 4];
            c->ftz = (c->at == T_F32 || c->dt == T_F32) && rnd() % 3 == 0;
            if (rnd() % 6 == 0 && c->dt != T_BF16)
                c->sat = 1;
            else if ((c->dt == T_F16 || c->dt == T_BF16) && c->at == T_F32 && rnd() % 3 == 0) {
                c->relu = rnd() % 2;
                c->satfinite = rnd() % 2;
                c->frnd = rnd() % 2 ? 'n' : 'z';
            }
        } else { /* same type: integral rounding */
            c->dt = c->at = FLOAT_TYPES[rnd() % 4];
            c->irnd = fr[rnd() % 4];
            c->ftz = c->at == T_F32 && rnd() % 3 == 0;
            c->sat = c->dt != T_BF16 && rnd() % 4 == 0;
        }
        c->dc = class_for(c->dt, 0);
        c->sc = class_for(c->at, 1);
        if (TY[c->at].isf && TY[c->at].bits == 16 && c->sc == RC_R && c->at == T_BF16)
            c->sc = RC_H;
        if (TY[c->dt].isf && c->dt != T_F16)
            c->dc = natural_class(c->dt);
        if (TY[c->at].isf && c->at != T_F16)
            c->sc = natural_class(c->at);
        op->d = pick_reg(c->dc);
        op->a = pick_reg(c->sc);
        char text[96];
        cvt_text(c, text, sizeof(text));
        reg_text(op->d, ds, sizeof(ds));
        reg_text(op->a, as, sizeof(as));
        snprintf(op->text, sizeof(op->text), "%s %s, %s;", text, ds, as);
    } else if (k < 65) {
        op->kind = OP_MOVREG;
        static const struct {
            const char *t;
            unsigned bits;
            int sgn;
        } mt[] = {{"b16", 16, 0}, {"s16", 16, 1}, {"u16", 16, 0}, {"b32", 32, 0}, {"s32", 32, 1},
                  {"f32", 32, 0}, {"b64", 64, 0}, {"f64", 64, 0}};
        unsigned m = (unsigned)(rnd() % 8);
        op->tbits = mt[m].bits;
        op->ext_sgn = mt[m].sgn;
        rclass natural = mt[m].bits == 16 ? RC_H : mt[m].bits == 32 ? RC_R : RC_RD;
        rclass dcl = natural, scl = natural;
        if (mt[m].bits < 64 && rnd() % 3 == 0)
            dcl = (rclass)(natural + 1);
        if (mt[m].bits < 64 && rnd() % 3 == 0)
            scl = (rclass)(natural + 1);
        op->d = pick_reg(dcl);
        op->a = pick_reg(scl);
        reg_text(op->d, ds, sizeof(ds));
        reg_text(op->a, as, sizeof(as));
        snprintf(op->text, sizeof(op->text), "mov.%s %s, %s;", mt[m].t, ds, as);
    } else if (k < 72) {
        op->kind = OP_MOVIMM;
        unsigned m = (unsigned)(rnd() % 4);
        rclass cl = m == 0 ? RC_H : m == 3 ? RC_RD : RC_R;
        op->d = pick_reg(cl);
        reg_text(op->d, ds, sizeof(ds));
        op->imm = random_word(cl);
        if (m == 0)
            snprintf(op->text, sizeof(op->text), "mov.b16 %s, 0x%04llX;", ds, (unsigned long long)op->imm);
        else if (m == 1)
            snprintf(op->text, sizeof(op->text), "mov.f32 %s, 0f%08llX;", ds, (unsigned long long)op->imm);
        else if (m == 2)
            snprintf(op->text, sizeof(op->text), "mov.b32 %s, %lld;", ds,
                     (long long)(int32_t)(uint32_t)op->imm);
        else
            snprintf(op->text, sizeof(op->text), "mov.f64 %s, 0d%016llX;", ds, (unsigned long long)op->imm);
    } else if (k < 84) {
        int unpack = rnd() % 2;
        op->kind = unpack ? OP_UNPACK : OP_PACK;
        static const struct {
            unsigned tb, n;
        } shapes[] = {{32, 2}, {64, 2}, {64, 4}};
        unsigned s = (unsigned)(rnd() % 3);
        op->n = shapes[s].n;
        op->ebits = shapes[s].tb / shapes[s].n;
        rclass scalar = shapes[s].tb == 32 ? RC_R : RC_RD;
        rclass ec = op->ebits == 16 ? RC_H : RC_R;
        op->d = pick_reg(scalar);
        int base = (int)(rnd() % 8);
        char list[80] = "{";
        for (unsigned i = 0; i < op->n; i++) {
            /* unpack destinations are distinct so the order does not matter */
            op->elems[i].c = ec;
            op->elems[i].i = unpack ? (int)((base + i) % 8) : (int)(rnd() % 8);
            op->sink[i] = unpack && i > 0 && rnd() % 4 == 0;
            reg_text(op->elems[i], es, sizeof(es));
            strcat(list, i ? ", " : "");
            strcat(list, op->sink[i] ? "_" : es);
        }
        strcat(list, "}");
        reg_text(op->d, ds, sizeof(ds));
        if (unpack)
            snprintf(op->text, sizeof(op->text), "mov.b%u %s, %s;", shapes[s].tb, list, ds);
        else
            snprintf(op->text, sizeof(op->text), "mov.b%u %s, %s;", shapes[s].tb, ds, list);
    } else if (k < 90) {
        op->kind = OP_X2;
        op->c.dt = rnd() % 2 ? T_F16 : T_BF16;
        op->mode = rnd() % 2 ? 'n' : 'z';
        op->relu = rnd() % 3 == 0;
        op->satfinite = rnd() % 3 == 0;
        op->d = pick_reg(RC_R);
        op->a = pick_reg(RC_R);
        op->b = pick_reg(RC_R);
        reg_text(op->d, ds, sizeof(ds));
        reg_text(op->a, as, sizeof(as));
        reg_text(op->b, bs, sizeof(bs));
        snprintf(op->text, sizeof(op->text), "cvt.r%c%s%s.%s.f32 %s, %s, %s;", op->mode,
                 op->relu ? ".relu" : "", op->satfinite ? ".satfinite" : "",
                 op->c.dt == T_F16 ? "f16x2" : "bf16x2", ds, as, bs);
    } else if (k < 94) {
        op->kind = OP_TF32;
        op->mode = "azn"[rnd() % 3];
        op->satfinite = rnd() % 2;
        op->d = pick_reg(RC_R);
        op->a = pick_reg(RC_R);
        reg_text(op->d, ds, sizeof(ds));
        reg_text(op->a, as, sizeof(as));
        snprintf(op->text, sizeof(op->text), "cvt.%s%s.tf32.f32 %s, %s;",
                 op->mode == 'a' ? "rna" : op->mode == 'z' ? "rz" : "rn",
                 op->satfinite ? ".satfinite" : "", ds, as);
    } else {
        op->kind = OP_CVTPACK;
        static const unsigned sizes[] = {16, 8, 4};
        op->ebits = sizes[rnd() % 3];
        op->ext_sgn = rnd() % 2;
        op->d = pick_reg(RC_R);
        op->a = pick_reg(RC_R);
        op->b = pick_reg(RC_R);
        op->e = pick_reg(RC_R);
        reg_text(op->d, ds, sizeof(ds));
        reg_text(op->a, as, sizeof(as));
        reg_text(op->b, bs, sizeof(bs));
        reg_text(op->e, es, sizeof(es));
        if (op->ebits == 16)
            snprintf(op->text, sizeof(op->text), "cvt.pack.sat.%s16.s32 %s, %s, %s;",
                     op->ext_sgn ? "s" : "u", ds, as, bs);
        else
            snprintf(op->text, sizeof(op->text), "cvt.pack.sat.%s%u.s32.b32 %s, %s, %s, %s;",
                     op->ext_sgn ? "s" : "u", op->ebits, ds, as, bs, es);
    }
}

/* Applies op to one lane of the host model. */
static void model_op(const rop *op, lane_state *s)
{
    uint64_t *d = &s->w[op->d.c][op->d.i];
    switch (op->kind) {
    case OP_CVT: *d = ref_cvt(&op->c, s->w[op->a.c][op->a.i]); break;
    case OP_MOVREG: {
        uint64_t v = s->w[op->a.c][op->a.i] & mask_of(op->tbits);
        if (op->ext_sgn && op->tbits < 64 && (v >> (op->tbits - 1)) & 1)
            v |= ~mask_of(op->tbits);
        *d = v & mask_of(RC_BITS[op->d.c]);
        break;
    }
    case OP_MOVIMM: *d = op->imm & mask_of(RC_BITS[op->d.c]); break;
    case OP_PACK: {
        uint64_t acc = 0;
        for (unsigned i = 0; i < op->n; i++)
            acc |= (s->w[op->elems[i].c][op->elems[i].i] & mask_of(op->ebits)) << (i * op->ebits);
        *d = acc;
        break;
    }
    case OP_UNPACK: {
        uint64_t v = *d;
        for (unsigned i = 0; i < op->n; i++)
            if (!op->sink[i])
                s->w[op->elems[i].c][op->elems[i].i] = (v >> (i * op->ebits)) & mask_of(op->ebits);
        break;
    }
    case OP_X2: {
        cvtspec c = {.dt = op->c.dt, .at = T_F32, .frnd = op->mode, .relu = op->relu,
                     .satfinite = op->satfinite, .dc = RC_R, .sc = RC_R};
        uint64_t hi = ref_cvt(&c, s->w[RC_R][op->a.i]), lo = ref_cvt(&c, s->w[RC_R][op->b.i]);
        *d = (hi << 16 | lo) & 0xFFFFFFFFu;
        break;
    }
    case OP_TF32: {
        uint32_t b = (uint32_t)s->w[RC_R][op->a.i];
        *d = (b & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FFFFFFF : ref_tf32(b, op->mode, op->satfinite);
        break;
    }
    case OP_CVTPACK: {
        int64_t lo = op->ext_sgn ? -(INT64_C(1) << (op->ebits - 1)) : 0;
        int64_t hi = op->ext_sgn ? (INT64_C(1) << (op->ebits - 1)) - 1 : (INT64_C(1) << op->ebits) - 1;
        int64_t a = (int32_t)s->w[RC_R][op->a.i], b = (int32_t)s->w[RC_R][op->b.i];
        a = a < lo ? lo : a > hi ? hi : a;
        b = b < lo ? lo : b > hi ? hi : b;
        uint64_t td = ((uint64_t)a & mask_of(op->ebits)) << op->ebits | ((uint64_t)b & mask_of(op->ebits));
        if (op->ebits < 16)
            td |= s->w[RC_R][op->e.i] << (2 * op->ebits);
        *d = td & 0xFFFFFFFFu;
        break;
    }
    }
}

static void test_random_differential(void **state)
{
    (void)state;
    init_tables();
    enum { T = 45, NOPS = 160, ROUNDS = 12, WORDS = 24 };
    rng_state = 0x2545F4914F6CDD1Du;
    static rop ops[NOPS];
    static char ptx[NOPS * 200 + 8192];
    for (int round = 0; round < ROUNDS; round++) {
        size_t len = (size_t)snprintf(
            ptx, sizeof(ptx),
            HDR ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
                "\t.reg .pred %%p<3>;\n\t.reg .b16 %%h<8>;\n\t.reg .b32 %%r<8>;\n\t.reg .b64 %%rd<8>;\n"
                "\t.reg .b32 %%t<4>;\n\t.reg .b64 %%a<4>;\n"
                "\tld.param.u64 %%a0, [pin];\n\tld.param.u64 %%a1, [pout];\n"
                "\tmov.u32 %%t0, %%tid.x;\n"
                "\tmul.wide.u32 %%a2, %%t0, %d;\n"
                "\tadd.s64 %%a0, %%a0, %%a2;\n\tadd.s64 %%a1, %%a1, %%a2;\n"
                "\tand.b32 %%t1, %%t0, 5;\n\tsetp.ne.u32 %%p1, %%t1, 4;\n",
            WORDS * 8);
        for (int i = 0; i < 8; i++)
            len += (size_t)snprintf(ptx + len, sizeof(ptx) - len,
                                    "\tld.global.u16 %%h%d, [%%a0+%d];\n"
                                    "\tld.global.u32 %%r%d, [%%a0+%d];\n"
                                    "\tld.global.u64 %%rd%d, [%%a0+%d];\n",
                                    i, i * 8, i, 64 + i * 8, i, 128 + i * 8);
        for (int k = 0; k < NOPS; k++) {
            gen_op(&ops[k]);
            len += (size_t)snprintf(ptx + len, sizeof(ptx) - len, "\t%s%s\n",
                                    ops[k].guard == 1 ? "@%p1 " : ops[k].guard == 2 ? "@!%p1 " : "",
                                    ops[k].text);
        }
        for (int i = 0; i < 8; i++)
            len += (size_t)snprintf(ptx + len, sizeof(ptx) - len,
                                    "\tmov.b32 %%t2, %%h%d;\n\tst.global.u32 [%%a1+%d], %%t2;\n"
                                    "\tst.global.u32 [%%a1+%d], %%r%d;\n"
                                    "\tst.global.u64 [%%a1+%d], %%rd%d;\n",
                                    i, i * 8, 64 + i * 8, i, 128 + i * 8, i);
        snprintf(ptx + len, sizeof(ptx) - len, "\tret;\n}\n");
        static uint64_t in[T * WORDS], out[T * WORDS];
        static lane_state model[T];
        for (int t = 0; t < T; t++)
            for (int c = 0; c < 3; c++)
                for (int i = 0; i < 8; i++) {
                    uint64_t v = random_word((rclass)c);
                    in[t * WORDS + c * 8 + i] = v | (c < 2 ? rnd() << RC_BITS[c] : 0);
                    model[t].w[c][i] = v & mask_of(RC_BITS[c]);
                }
        memset(out, 0xEE, sizeof(out));
        harness_arg args[] = {HBUF(in, sizeof(in)), HBUF(out, sizeof(out))};
        harness_opts o = harness_one_cta(T);
        run_ok(ptx, &o, args, 2);
        for (int t = 0; t < T; t++) {
            lane_state before = model[t];
            int p1 = (t & 5) != 4;
            for (int k = 0; k < NOPS; k++) {
                if (ops[k].guard == 1 && !p1)
                    continue;
                if (ops[k].guard == 2 && p1)
                    continue;
                model_op(&ops[k], &model[t]);
            }
            for (int c = 0; c < 3; c++)
                for (int i = 0; i < 8; i++) {
                    uint64_t got = out[t * WORDS + c * 8 + i] & mask_of(c == 2 ? 64 : 32);
                    if (got != model[t].w[c][i]) {
                        fail_msg("round %d lane %d: %s%d is 0x%llx, the model says 0x%llx "
                                 "(initially 0x%llx); program:\n%s",
                                 round, t, RC_PREFIX[c], i, (unsigned long long)got,
                                 (unsigned long long)model[t].w[c][i],
                                 (unsigned long long)before.w[c][i], ptx);
                    }
                }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mov_registers_and_immediates),
        cmocka_unit_test(test_mov_pred),
        cmocka_unit_test(test_mov_special_registers),
        cmocka_unit_test(test_mov_symbol_addresses),
        cmocka_unit_test(test_mov_vectors),
        cmocka_unit_test(test_cvt_int_to_int),
        cmocka_unit_test(test_cvt_int_examples),
        cmocka_unit_test(test_cvt_int_to_float),
        cmocka_unit_test(test_cvt_float_to_int),
        cmocka_unit_test(test_cvt_float_to_float),
        cmocka_unit_test(test_cvt_half_exhaustive),
        cmocka_unit_test(test_cvt_round_to_integral),
        cmocka_unit_test(test_cvt_tf32),
        cmocka_unit_test(test_cvt_packed),
        cmocka_unit_test(test_divergence),
        cmocka_unit_test(test_cvt_immediates_and_identity),
        cmocka_unit_test(test_unsupported),
        cmocka_unit_test(test_random_differential),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(F16T.v);
    free(BF16T.v);
    return rc;
}
