/* Floating-point instructions: add, sub, mul, mad, fma, div, abs, neg, min,
 * max, copysign, testp, rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh on .f32,
 * .f64 and (where PTX has them) .f16, .f16x2, .bf16, .bf16x2.
 *
 * Design
 * ------
 * Every form is decoded once into a handler specialised for its type and
 * modifiers (.ftz, .sat, .NaN, .xorsign.abs are compile-time constants of
 * the .f32/.f64 handlers; the rarely used 16-bit handlers read them from
 * x->aux once per instruction). Handlers compute a full warp into a local
 * array with a plain 32-iteration loop (which the compiler vectorises: the
 * local array cannot alias the operands) and copy it to the destination;
 * partial warps visit only the set lanes.
 *
 * Rounding: the default handlers compute in the host's default
 * round-to-nearest-even mode. The directed roundings (.rz .rm .rp) of add,
 * sub, mul, mad, fma, div, sqrt and rcp run the same handler inside
 * h_round(), which switches the host rounding mode around it with
 * fesetround(). The host (x86-64 SSE, or any IEEE 754 machine) performs
 * these operations with a single correct rounding in the current mode, so
 * the results are exact.
 *
 * Fused multiply-add: fma/mad must round once. On x86-64 the handlers are
 * compiled twice, once for the FMA instruction set (chosen at decode time
 * when the CPU has it) and once calling the C library's fma()/fmaf(), which
 * are correctly rounded in every rounding mode.
 *
 * NaNs: as on NVIDIA GPUs (CUDA Programming Guide, "Floating-Point
 * Standard"), every .f32 operation that produces a NaN returns the canonical
 * quiet NaN 0x7fffffff, and .f16/.bf16 operations return 0x7fff. PTX does
 * not specify .f64 NaN payloads; .f64 operations here return the first NaN
 * operand in PTX order, quieted, or 0xfff8000000000000 for an invalid
 * operation (the default NaN of x86-64, and CUDA's CUDART_NAN), the same
 * on every host and whatever order the compiler evaluates operands in.
 * neg/abs are bit operations on .f32 and the 16-bit types (PTX: "NaN inputs
 * yield an unspecified NaN"); on .f64 they return a NaN input unchanged, as
 * the CUDA Programming Guide documents.
 *
 * .ftz flushes subnormal inputs and results to zero of the same sign
 * (after rounding). .sat clamps the result to [+0.0, 1.0]; NaN and -0.0
 * become +0.0.
 *
 * Half precision (.f16, .bf16) is done in software: operands are widened
 * exactly to double; a*b is exact there, and sums are made exact-then-
 * rounded-to-odd with an error-free transformation (TwoSum), so the final
 * round-to-nearest-even conversion to the 16-bit format is correctly
 * rounded (53 >= 11 + 2 bits), subnormals, overflow and ties included. A
 * 16-bit value lives zero-extended in its 32-bit register word; packed x2
 * values hold element 0 in bits 0..15 and element 1 in bits 16..31.
 *
 * Approximate instructions (what this executor computes; all are within
 * the bounds the PTX ISA specifies for the hardware):
 *   rcp.approx.f32, sqrt.approx.f32   correctly rounded 1/x and sqrt(x)
 *                                     (PTX: rcp max 1 ulp; sqrt max rel.
 *                                     error 2^-23)
 *   rsqrt.approx.f32                  1/sqrt(x) in double, rounded to float
 *                                     (<= 1 ulp; PTX: rel. error 2^-22.9)
 *   sin/cos/lg2/ex2/tanh.approx.f32   the libm double-precision function of
 *                                     the exact input, rounded to float:
 *                                     error at most 0.5 ulp plus libm's
 *                                     double-precision error, i.e. correctly
 *                                     rounded but for rare near-ties. The
 *                                     hardware is less accurate (PTX: sin/cos
 *                                     absolute error about 2^-20.5 over
 *                                     -100pi..100pi, lg2 absolute error about
 *                                     2^-22, ex2 relative error about 2^-22,
 *                                     tanh relative error about 2^-11), so
 *                                     results are more accurate than, and not
 *                                     bit-identical to, a GPU's.
 *   div.approx.f32                    a * (1/b) exactly as the PTX ISA
 *                                     defines it: 1/b correctly rounded and
 *                                     flushed to zero when subnormal (so for
 *                                     2^126 < |b| < 2^128 the result is 0, or
 *                                     NaN for infinite a), then the product
 *                                     rounded to nearest (<= 1.5 ulp; PTX:
 *                                     max 2 ulp for |b| in [2^-126, 2^126])
 *   div.full.f32                      the correctly rounded quotient
 *                                     (PTX: max 2 ulp over the full range)
 *   rcp.approx.ftz.f64                correctly rounded 1/x (ftz); the
 *                                     hardware gives a much coarser value
 *   rsqrt.approx.f64                  1/sqrt(x) in double (<= 1 ulp)
 *   ex2.approx, tanh.approx .f16/.bf16  the libm double function of the
 *                                     exact input, rounded to nearest in the
 *                                     16-bit format (the hardware bound is
 *                                     several 16-bit ulps)
 *
 * Forms without an explicit modifier follow the PTX ISA: add/sub/mul/fma
 * round to nearest; mad.f32 (sm_20 and later) is fma.rn.f32; mad.f64 is
 * mad.rn.f64; the PTX ISA 1.0-1.3 defaults apply to div.f32
 * (div.approx.ftz.f32), rcp.f32 and sqrt.f32 (.approx.ftz), div/rcp/sqrt.f64
 * (.rn) and sin/cos/lg2/ex2.f32 (.approx.ftz).
 */
#include "exec.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* No expression here may be contracted into an fma (TwoSum relies on it):
 * gcc does not contract in ISO C mode (-std=c11), clang honours this. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

#define AI static inline __attribute__((always_inline))

/* ---------------------------------------------------------- bit access */

AI float f32_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

AI uint32_t bits_of_f32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

AI double f64_of(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

AI uint64_t bits_of_f64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

#define S32 0x80000000u
#define E32 0x7F800000u
#define NAN32 0x7FFFFFFFu /* the canonical NaN of NVIDIA GPUs */
#define ONE32 0x3F800000u
#define S64 UINT64_C(0x8000000000000000)
#define E64 UINT64_C(0x7FF0000000000000)
#define QUIET64 UINT64_C(0x0008000000000000)
#define NAN64 UINT64_C(0xFFF8000000000000) /* default NaN of .f64 invalid operations */

/* ------------------------------------------------------ .f32 helpers */

/* flush a subnormal to zero of the same sign */
AI uint32_t ftz32(uint32_t u)
{
    return (u & E32) ? u : (u & S32);
}

AI float in32(uint32_t u, int ftz)
{
    return f32_of(ftz ? ftz32(u) : u);
}

AI uint32_t sat32(uint32_t u)
{
    float r = f32_of(u);
    return r > 0.0f ? (r < 1.0f ? u : ONE32) : 0u;
}

/* the bits of an arithmetic result: canonical NaN, then .sat, then .ftz */
AI uint32_t out32(float r, int ftz, int sat)
{
    uint32_t u = r != r ? NAN32 : bits_of_f32(r);
    if (sat)
        u = sat32(u);
    if (ftz)
        u = ftz32(u);
    return u;
}

AI int isnan32(uint32_t u)
{
    return (u & 0x7FFFFFFFu) > E32;
}

AI int isnan64(uint64_t u)
{
    return (u & ~S64) > E64;
}

AI uint64_t ftz64(uint64_t u)
{
    return (u & E64) ? u : (u & S64);
}

/* --------------------------------------------------- 16-bit formats */

/* bf != 0 selects bfloat16 (8 exponent bits, 7 fraction bits), else IEEE
 * binary16 (5 exponent bits, 10 fraction bits). Both use 0x7fff as the
 * canonical NaN. */
#define NAN16 0x7FFFu

AI uint32_t h_expmask(int bf)
{
    return bf ? 0x7F80u : 0x7C00u;
}

AI uint32_t h_one(int bf)
{
    return bf ? 0x3F80u : 0x3C00u;
}

AI int h_isnan(uint32_t h, int bf)
{
    return (h & 0x7FFFu) > h_expmask(bf);
}

AI uint32_t h_ftz(uint32_t h, int bf)
{
    return (h & h_expmask(bf)) ? h : (h & 0x8000u);
}

/* Exact value of a 16-bit float (low 16 bits of h). */
AI double h_to_f64(uint32_t h, int bf)
{
    h &= 0xFFFFu;
    if (bf)
        return (double)f32_of(h << 16);
    uint32_t s = h & 0x8000u, e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
    double v;
    if (e == 0)
        v = (double)m * 0x1p-24; /* subnormal or zero: exact */
    else if (e == 31)
        v = m ? (double)NAN : (double)INFINITY;
    else
        v = f64_of(((uint64_t)(e - 15 + 1023) << 52) | ((uint64_t)m << 42));
    return s ? -v : v;
}

/* Rounds a double to the nearest 16-bit float, ties to even; handles
 * subnormal results, overflow to infinity and NaN (canonical). */
AI uint32_t f64_to_h(double v, int bf)
{
    const int fb = bf ? 7 : 10;     /* fraction bits */
    const int bias = bf ? 127 : 15; /* also the largest exponent */
    const int emin = 1 - bias;      /* exponent of the smallest normal */
    uint64_t u = bits_of_f64(v);
    uint32_t sign = (uint32_t)(u >> 48) & 0x8000u;
    uint64_t a = u & ~S64;
    if (a >= E64)
        return a == E64 ? (sign | h_expmask(bf)) : NAN16;
    int e = (int)(a >> 52) - 1023;
    if (e < emin - fb - 1) /* below half the smallest subnormal (double subnormals too) */
        return sign;
    if (e > bias)
        return sign | h_expmask(bf);
    uint64_t m = (a & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
    int shift = 52 - fb + (e < emin ? emin - e : 0); /* <= 53 */
    uint64_t q = m >> shift;
    uint64_t rem = m & ((UINT64_C(1) << shift) - 1), half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    if (e < emin)
        return sign | (uint32_t)q; /* a carry into the exponent field is the right encoding */
    /* q holds the hidden bit; a rounding carry moves into the exponent and
     * may reach the infinity encoding, which is what RNE overflow gives */
    return sign | (uint32_t)(((uint64_t)(e + bias - 1) << fb) + q);
}

/* p + c rounded to odd in double (p, c finite or not). With s = RN(p+c)
 * and its exact error e (TwoSum), the truncation toward zero of p+c is s or
 * its predecessor in magnitude; setting the last bit gives round-to-odd,
 * after which one RNE rounding to a format of <= 51 bits is correct. */
AI double sum_to_odd(double p, double c)
{
    double s = p + c;
    if (!isfinite(s))
        return s;
    double bb = s - p;
    double err = (p - (s - bb)) + (c - bb);
    if (err == 0.0)
        return s;
    uint64_t u = bits_of_f64(s);
    if ((err < 0.0) != (s < 0.0))
        u -= 1;
    return f64_of(u | 1);
}

/* .sat on a 16-bit result: NaN, negative and -0 give +0, > 1 gives 1 */
AI uint32_t h_sat(uint32_t h, int bf)
{
    if (h_isnan(h, bf) || (h & 0x8000u))
        return 0;
    return h > h_one(bf) ? h_one(bf) : h;
}

/* ------------------------------------------------------ lane loops */

/* Computes EXPR (using lane index l) for the lanes in mask and stores it in
 * the destination op[0]. The full-warp loop writes a local array so that
 * the compiler can vectorise it without alias checks. */
#define LOOP(T, EXPR)                                                                              \
    do {                                                                                           \
        T *d_ = (T *)(void *)xr32(w, x->op[0]);                                                    \
        if (mask == 0xFFFFFFFFu) {                                                                 \
            T t_[32];                                                                              \
            for (int l = 0; l < 32; l++)                                                           \
                t_[l] = (EXPR);                                                                    \
            memcpy(d_, t_, sizeof(t_));                                                            \
        } else {                                                                                   \
            for (uint32_t m_ = mask; m_; m_ &= m_ - 1) {                                           \
                int l = __builtin_ctz(m_);                                                         \
                d_[l] = (EXPR);                                                                    \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define SRC(T, i) ((const T *)(const void *)xr32(w, x->op[i]))

/* Handler definitions: N source operands of lane type T. */
#define H1(ATTR, T, name, EXPR)                                                                    \
    ATTR static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                      \
    {                                                                                              \
        const T *A = SRC(T, 1);                                                                    \
        LOOP(T, EXPR);                                                                             \
        return EXEC_NEXT;                                                                          \
    }
#define H2(ATTR, T, name, EXPR)                                                                    \
    ATTR static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                      \
    {                                                                                              \
        const T *A = SRC(T, 1), *B = SRC(T, 2);                                                    \
        LOOP(T, EXPR);                                                                             \
        return EXEC_NEXT;                                                                          \
    }
#define H3(ATTR, T, name, EXPR)                                                                    \
    ATTR static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                      \
    {                                                                                              \
        const T *A = SRC(T, 1), *B = SRC(T, 2), *C = SRC(T, 3);                                    \
        LOOP(T, EXPR);                                                                             \
        return EXEC_NEXT;                                                                          \
    }

/* Families of handlers over 1, 2 or 3 boolean flags; E(f0[, f1[, f2]])
 * yields the lane expression. tab_<tag>[index] with index = f0 | f1<<1 | f2<<2. */
#define GEN2(HM, ATTR, T, tag, E)                                                                  \
    HM(ATTR, T, h_##tag##_0, E(0))                                                                 \
    HM(ATTR, T, h_##tag##_1, E(1))                                                                 \
    static const xhandler tab_##tag[2] = {h_##tag##_0, h_##tag##_1};
#define GEN4(HM, ATTR, T, tag, E)                                                                  \
    HM(ATTR, T, h_##tag##_0, E(0, 0))                                                              \
    HM(ATTR, T, h_##tag##_1, E(1, 0))                                                              \
    HM(ATTR, T, h_##tag##_2, E(0, 1))                                                              \
    HM(ATTR, T, h_##tag##_3, E(1, 1))                                                              \
    static const xhandler tab_##tag[4] = {h_##tag##_0, h_##tag##_1, h_##tag##_2, h_##tag##_3};
#define GEN8(HM, ATTR, T, tag, E)                                                                  \
    HM(ATTR, T, h_##tag##_0, E(0, 0, 0))                                                           \
    HM(ATTR, T, h_##tag##_1, E(1, 0, 0))                                                           \
    HM(ATTR, T, h_##tag##_2, E(0, 1, 0))                                                           \
    HM(ATTR, T, h_##tag##_3, E(1, 1, 0))                                                           \
    HM(ATTR, T, h_##tag##_4, E(0, 0, 1))                                                           \
    HM(ATTR, T, h_##tag##_5, E(1, 0, 1))                                                           \
    HM(ATTR, T, h_##tag##_6, E(0, 1, 1))                                                           \
    HM(ATTR, T, h_##tag##_7, E(1, 1, 1))                                                           \
    static const xhandler tab_##tag[8] = {h_##tag##_0, h_##tag##_1, h_##tag##_2, h_##tag##_3,      \
                                          h_##tag##_4, h_##tag##_5, h_##tag##_6, h_##tag##_7};

#define NOATTR

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#define FMA_ATTR __attribute__((target("fma")))
#define HAVE_FMA_VARIANT 1
static int cpu_has_fma(void)
{
    return __builtin_cpu_supports("fma");
}
#else
#define FMA_ATTR
#define HAVE_FMA_VARIANT 0
#endif

static int have_fma(void)
{
#if HAVE_FMA_VARIANT
    return cpu_has_fma();
#else
    return 0;
#endif
}

/* ---------------------------------------------------- .f32 arithmetic */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_DIV_APPROX };

/* reciprocal as div.approx uses it: flushed to zero when subnormal */
AI float rcp_for_div(float b)
{
    return f32_of(ftz32(bits_of_f32(1.0f / b)));
}

AI uint32_t bin32(int op, uint32_t ua, uint32_t ub, int ftz, int sat)
{
    float a = in32(ua, ftz), b = in32(ub, ftz), r;
    switch (op) {
    case OP_ADD: r = a + b; break;
    case OP_SUB: r = a - b; break;
    case OP_MUL: r = a * b; break;
    case OP_DIV: r = a / b; break;
    default: r = a * rcp_for_div(b); break;
    }
    return out32(r, ftz, sat);
}

#define E_ADD32(F, S) bin32(OP_ADD, A[l], B[l], F, S)
#define E_SUB32(F, S) bin32(OP_SUB, A[l], B[l], F, S)
#define E_MUL32(F, S) bin32(OP_MUL, A[l], B[l], F, S)
#define E_DIV32(F) bin32(OP_DIV, A[l], B[l], F, 0)
#define E_DIVA32(F) bin32(OP_DIV_APPROX, A[l], B[l], F, 0)
GEN4(H2, NOATTR, uint32_t, add_f32, E_ADD32)
GEN4(H2, NOATTR, uint32_t, sub_f32, E_SUB32)
GEN4(H2, NOATTR, uint32_t, mul_f32, E_MUL32)
GEN2(H2, NOATTR, uint32_t, div_f32, E_DIV32)
GEN2(H2, NOATTR, uint32_t, diva_f32, E_DIVA32)

AI uint32_t fma32(uint32_t a, uint32_t b, uint32_t c, int ftz, int sat)
{
    return out32(__builtin_fmaf(in32(a, ftz), in32(b, ftz), in32(c, ftz)), ftz, sat);
}
#define E_FMA32(F, S) fma32(A[l], B[l], C[l], F, S)
GEN4(H3, NOATTR, uint32_t, fma_f32_sw, E_FMA32)
#if HAVE_FMA_VARIANT
GEN4(H3, FMA_ATTR, uint32_t, fma_f32_hw, E_FMA32)
#endif

/* unary .f32 */
enum { UN_SQRT, UN_RCP, UN_RSQRT, UN_SIN, UN_COS, UN_LG2, UN_EX2, UN_TANH };

AI uint32_t un32(int op, uint32_t ua, int ftz)
{
    float a = in32(ua, ftz), r;
    switch (op) {
    case UN_SQRT: r = sqrtf(a); break;
    case UN_RCP: r = 1.0f / a; break;
    case UN_RSQRT: r = (float)(1.0 / sqrt((double)a)); break;
    case UN_SIN: r = (float)sin((double)a); break;
    case UN_COS: r = (float)cos((double)a); break;
    case UN_LG2: r = (float)log2((double)a); break;
    case UN_EX2: r = (float)exp2((double)a); break;
    default: r = (float)tanh((double)a); break;
    }
    return out32(r, ftz, 0);
}
#define E_SQRT32(F) un32(UN_SQRT, A[l], F)
#define E_RCP32(F) un32(UN_RCP, A[l], F)
#define E_RSQRT32(F) un32(UN_RSQRT, A[l], F)
#define E_SIN32(F) un32(UN_SIN, A[l], F)
#define E_COS32(F) un32(UN_COS, A[l], F)
#define E_LG232(F) un32(UN_LG2, A[l], F)
#define E_EX232(F) un32(UN_EX2, A[l], F)
#define E_TANH32(F) un32(UN_TANH, A[l], F)
GEN2(H1, NOATTR, uint32_t, sqrt_f32, E_SQRT32)
GEN2(H1, NOATTR, uint32_t, rcp_f32, E_RCP32)
GEN2(H1, NOATTR, uint32_t, rsqrt_f32, E_RSQRT32)
GEN2(H1, NOATTR, uint32_t, sin_f32, E_SIN32)
GEN2(H1, NOATTR, uint32_t, cos_f32, E_COS32)
GEN2(H1, NOATTR, uint32_t, lg2_f32, E_LG232)
GEN2(H1, NOATTR, uint32_t, ex2_f32, E_EX232)
GEN2(H1, NOATTR, uint32_t, tanh_f32, E_TANH32)

/* neg/abs: bit operations (.ftz flushes a subnormal input first) */
#define E_NEG32(F) ((F ? ftz32(A[l]) : A[l]) ^ S32)
#define E_ABS32(F) ((F ? ftz32(A[l]) : A[l]) & ~S32)
GEN2(H1, NOATTR, uint32_t, neg_f32, E_NEG32)
GEN2(H1, NOATTR, uint32_t, abs_f32, E_ABS32)

/* min/max (PTX): with .xorsign.abs the operands' magnitudes are compared
 * and the result gets the XOR of their signs; if both are NaN (or, with
 * .NaN, either) the result is the canonical NaN; if one is NaN the other is
 * returned; otherwise the smaller (larger), -0.0 < +0.0. */
AI uint32_t minmax32(int is_max, uint32_t ua, uint32_t ub, int ftz, int nanp, int xs)
{
    if (ftz) {
        ua = ftz32(ua);
        ub = ftz32(ub);
    }
    uint32_t sign = (ua ^ ub) & S32;
    if (xs) {
        ua &= ~S32;
        ub &= ~S32;
    }
    int na = isnan32(ua), nb = isnan32(ub);
    if ((na && nb) || (nanp && (na || nb)))
        return NAN32;
    uint32_t r;
    if (na) {
        r = ub;
    } else if (nb) {
        r = ua;
    } else {
        float a = f32_of(ua), b = f32_of(ub);
        int pick_a = is_max ? (a > b || (a == b && !(ua & S32))) : (a < b || (a == b && (ua & S32)));
        r = pick_a ? ua : ub;
    }
    return xs ? ((r & ~S32) | sign) : r;
}
#define E_MIN32(F, N, X) minmax32(0, A[l], B[l], F, N, X)
#define E_MAX32(F, N, X) minmax32(1, A[l], B[l], F, N, X)
GEN8(H2, NOATTR, uint32_t, min_f32, E_MIN32)
GEN8(H2, NOATTR, uint32_t, max_f32, E_MAX32)

/* copysign d, a, b: the sign of a with the rest of b */
H2(NOATTR, uint32_t, h_copysign_f32, (A[l] & S32) | (B[l] & ~S32))

/* ---------------------------------------------------- .f64 arithmetic */

/* A NaN result of a .f64 operation: the first NaN operand in PTX order,
 * quieted, else (an invalid operation) the default NaN 0xfff8000000000000,
 * whatever order the host evaluated the operands in. */
AI uint64_t nan64(double r, uint64_t a, uint64_t b, uint64_t c)
{
    /* branch-free, with floating-point NaN tests, so that loops vectorise */
    double fa = f64_of(a), fb = f64_of(b), fc = f64_of(c);
    uint64_t pick = fc != fc ? c | QUIET64 : NAN64;
    pick = fb != fb ? b | QUIET64 : pick;
    pick = fa != fa ? a | QUIET64 : pick;
    return r != r ? pick : bits_of_f64(r);
}

#define E_NAN64(R) nan64(R, A[l], B[l], C[l])
#define E_NAN64_2(R) nan64(R, A[l], B[l], B[l])
#define E_NAN64_1(R) nan64(R, A[l], A[l], A[l])

/* The hot .f64 operations exist twice on x86-64: for the baseline
 * instruction set and for AVX+FMA (4 lanes per vector), chosen at decode. */
#if HAVE_FMA_VARIANT
#define GEN_F64(HM, name, EXPR)                                                                    \
    HM(NOATTR, uint64_t, h_##name##_sw, EXPR)                                                      \
    HM(FMA_ATTR, uint64_t, h_##name##_hw, EXPR)
#define PICK64(name) (have_fma() ? h_##name##_hw : h_##name##_sw)
#else
#define GEN_F64(HM, name, EXPR) HM(NOATTR, uint64_t, h_##name##_sw, EXPR)
#define PICK64(name) h_##name##_sw
#endif
GEN_F64(H2, add_f64, E_NAN64_2(f64_of(A[l]) + f64_of(B[l])))
GEN_F64(H2, sub_f64, E_NAN64_2(f64_of(A[l]) - f64_of(B[l])))
GEN_F64(H2, mul_f64, E_NAN64_2(f64_of(A[l]) * f64_of(B[l])))
GEN_F64(H2, div_f64, E_NAN64_2(f64_of(A[l]) / f64_of(B[l])))
GEN_F64(H3, fma_f64, E_NAN64(__builtin_fma(f64_of(A[l]), f64_of(B[l]), f64_of(C[l]))))
GEN_F64(H1, sqrt_f64, E_NAN64_1(sqrt(f64_of(A[l]))))
GEN_F64(H1, rcp_f64, E_NAN64_1(1.0 / f64_of(A[l])))

/* rcp.approx.ftz.f64 */
H1(NOATTR, uint64_t, h_rcpa_ftz_f64, ftz64(E_NAN64_1(1.0 / f64_of(ftz64(A[l])))))
#define E_RSQRT64(F) (F ? ftz64(E_NAN64_1(1.0 / sqrt(f64_of(ftz64(A[l]))))) \
                        : E_NAN64_1(1.0 / sqrt(f64_of(A[l]))))
GEN2(H1, NOATTR, uint64_t, rsqrt_f64, E_RSQRT64)

/* neg/abs.f64 leave NaNs unchanged (CUDA Programming Guide) */
H1(NOATTR, uint64_t, h_neg_f64, isnan64(A[l]) ? A[l] : (A[l] ^ S64))
H1(NOATTR, uint64_t, h_abs_f64, isnan64(A[l]) ? A[l] : (A[l] & ~S64))
H2(NOATTR, uint64_t, h_copysign_f64, (A[l] & S64) | (B[l] & ~S64))

/* min/max.f64: NaN rules as .f32, except that the NaN returned is the
 * first NaN operand, quieted (PTX leaves the .f64 NaN unspecified). */
AI uint64_t minmax64(int is_max, uint64_t ua, uint64_t ub, int nanp)
{
    int na = isnan64(ua), nb = isnan64(ub);
    if ((na && nb) || (nanp && (na || nb)))
        return (na ? ua : ub) | QUIET64;
    if (na)
        return ub;
    if (nb)
        return ua;
    double a = f64_of(ua), b = f64_of(ub);
    int pick_a = is_max ? (a > b || (a == b && !(ua & S64))) : (a < b || (a == b && (ua & S64)));
    return pick_a ? ua : ub;
}
#define E_MIN64(N) minmax64(0, A[l], B[l], N)
#define E_MAX64(N) minmax64(1, A[l], B[l], N)
GEN2(H2, NOATTR, uint64_t, min_f64, E_MIN64)
GEN2(H2, NOATTR, uint64_t, max_f64, E_MAX64)

/* ---------------------------------------------------------- testp */

enum { TP_FINITE, TP_INFINITE, TP_NUMBER, TP_NOTANUMBER, TP_NORMAL, TP_SUBNORMAL };

/* PTX: zero counts as normal (and not as subnormal) */
AI int testp32(int op, uint32_t u)
{
    uint32_t a = u & ~S32, e = a & E32;
    switch (op) {
    case TP_FINITE: return e != E32;
    case TP_INFINITE: return a == E32;
    case TP_NUMBER: return a <= E32;
    case TP_NOTANUMBER: return a > E32;
    case TP_NORMAL: return e != E32 && (e != 0 || a == 0);
    default: return e == 0 && a != 0;
    }
}

AI int testp64(int op, uint64_t u)
{
    uint64_t a = u & ~S64, e = a & E64;
    switch (op) {
    case TP_FINITE: return e != E64;
    case TP_INFINITE: return a == E64;
    case TP_NUMBER: return a <= E64;
    case TP_NOTANUMBER: return a > E64;
    case TP_NORMAL: return e != E64 && (e != 0 || a == 0);
    default: return e == 0 && a != 0;
    }
}

/* Writes the predicate op[0] for the lanes of mask only. */
#define HTESTP(name, T, FN, OPC)                                                                   \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                           \
    {                                                                                              \
        const T *A = SRC(T, 1);                                                                    \
        uint32_t res = 0;                                                                          \
        FOR_LANES(mask, l, res |= (uint32_t)FN(OPC, A[l]) << l);                                   \
        uint32_t *p = &w->preds[XREF_INDEX(x->op[0])];                                             \
        *p = (*p & ~mask) | (res & mask);                                                          \
        return EXEC_NEXT;                                                                          \
    }
HTESTP(h_testp_finite_f32, uint32_t, testp32, TP_FINITE)
HTESTP(h_testp_infinite_f32, uint32_t, testp32, TP_INFINITE)
HTESTP(h_testp_number_f32, uint32_t, testp32, TP_NUMBER)
HTESTP(h_testp_notanumber_f32, uint32_t, testp32, TP_NOTANUMBER)
HTESTP(h_testp_normal_f32, uint32_t, testp32, TP_NORMAL)
HTESTP(h_testp_subnormal_f32, uint32_t, testp32, TP_SUBNORMAL)
HTESTP(h_testp_finite_f64, uint64_t, testp64, TP_FINITE)
HTESTP(h_testp_infinite_f64, uint64_t, testp64, TP_INFINITE)
HTESTP(h_testp_number_f64, uint64_t, testp64, TP_NUMBER)
HTESTP(h_testp_notanumber_f64, uint64_t, testp64, TP_NOTANUMBER)
HTESTP(h_testp_normal_f64, uint64_t, testp64, TP_NORMAL)
HTESTP(h_testp_subnormal_f64, uint64_t, testp64, TP_SUBNORMAL)
static const xhandler tab_testp_f32[6] = {h_testp_finite_f32,     h_testp_infinite_f32,
                                          h_testp_number_f32,     h_testp_notanumber_f32,
                                          h_testp_normal_f32,     h_testp_subnormal_f32};
static const xhandler tab_testp_f64[6] = {h_testp_finite_f64,     h_testp_infinite_f64,
                                          h_testp_number_f64,     h_testp_notanumber_f64,
                                          h_testp_normal_f64,     h_testp_subnormal_f64};

/* ------------------------------------------------- 16-bit arithmetic */

/* Runtime flags of the 16-bit handlers (x->aux). */
enum { HF_FTZ = 1, HF_SAT = 2, HF_RELU = 4, HF_NAN = 8, HF_XORSIGN = 16 };

enum { HOP_ADD, HOP_SUB, HOP_MUL, HOP_FMA, HOP_MIN, HOP_MAX, HOP_NEG, HOP_ABS, HOP_EX2, HOP_TANH };

/* One 16-bit element (in the low 16 bits of a, b, c). */
AI uint32_t h_elem(int op, int bf, uint32_t a, uint32_t b, uint32_t c, uint32_t flags)
{
    a &= 0xFFFFu;
    b &= 0xFFFFu;
    c &= 0xFFFFu;
    if (flags & HF_FTZ) {
        a = h_ftz(a, bf);
        b = h_ftz(b, bf);
        c = h_ftz(c, bf);
    }
    uint32_t r;
    switch (op) {
    case HOP_NEG: return a ^ 0x8000u;
    case HOP_ABS: return a & 0x7FFFu;
    case HOP_MIN:
    case HOP_MAX: {
        uint32_t sign = (a ^ b) & 0x8000u;
        if (flags & HF_XORSIGN) {
            a &= 0x7FFFu;
            b &= 0x7FFFu;
        }
        int na = h_isnan(a, bf), nb = h_isnan(b, bf);
        if ((na && nb) || ((flags & HF_NAN) && (na || nb)))
            return NAN16;
        if (na) {
            r = b;
        } else if (nb) {
            r = a;
        } else {
            double x = h_to_f64(a, bf), y = h_to_f64(b, bf);
            int pick_a = op == HOP_MAX ? (x > y || (x == y && !(a & 0x8000u)))
                                       : (x < y || (x == y && (a & 0x8000u)));
            r = pick_a ? a : b;
        }
        return (flags & HF_XORSIGN) ? ((r & 0x7FFFu) | sign) : r;
    }
    default: break;
    }
    double x = h_to_f64(a, bf), y = h_to_f64(b, bf), v;
    switch (op) {
    case HOP_ADD: v = sum_to_odd(x, y); break;
    case HOP_SUB: v = sum_to_odd(x, -y); break;
    case HOP_MUL: v = x * y; break; /* exact */
    case HOP_FMA: v = sum_to_odd(x * y, h_to_f64(c, bf)); break;
    case HOP_EX2: v = exp2(x); break;
    default: v = tanh(x); break;
    }
    r = f64_to_h(v, bf);
    if ((flags & HF_RELU) && (r & 0x8000u) && r != NAN16)
        r = 0;
    if (flags & HF_SAT)
        r = h_sat(r, bf);
    if (flags & HF_FTZ)
        r = h_ftz(r, bf);
    return r;
}

AI uint32_t h_lane(int op, int bf, int x2, uint32_t a, uint32_t b, uint32_t c, uint32_t flags)
{
    uint32_t lo = h_elem(op, bf, a, b, c, flags);
    if (!x2)
        return lo;
    return lo | (h_elem(op, bf, a >> 16, b >> 16, c >> 16, flags) << 16);
}

/* Handlers per (operation, format, packing); the modifiers are runtime
 * flags read once per warp instruction. Unary and binary operations read
 * their missing operands from the first one. */
#define HHALF(name, OP, BF, X2, NSRC)                                                              \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                           \
    {                                                                                              \
        const uint32_t *A = SRC(uint32_t, 1);                                                      \
        const uint32_t *B = NSRC >= 2 ? SRC(uint32_t, 2) : A;                                      \
        const uint32_t *C = NSRC >= 3 ? SRC(uint32_t, 3) : A;                                      \
        const uint32_t flags = x->aux;                                                             \
        LOOP(uint32_t, h_lane(OP, BF, X2, A[l], B[l], C[l], flags));                               \
        return EXEC_NEXT;                                                                          \
    }
#define HHALF4(op, OP, NSRC)                                                                       \
    HHALF(h_##op##_f16, OP, 0, 0, NSRC)                                                            \
    HHALF(h_##op##_f16x2, OP, 0, 1, NSRC)                                                          \
    HHALF(h_##op##_bf16, OP, 1, 0, NSRC)                                                           \
    HHALF(h_##op##_bf16x2, OP, 1, 1, NSRC)                                                         \
    static const xhandler tab_##op##_h[4] = {h_##op##_f16, h_##op##_f16x2, h_##op##_bf16,          \
                                             h_##op##_bf16x2};
HHALF4(add, HOP_ADD, 2)
HHALF4(sub, HOP_SUB, 2)
HHALF4(mul, HOP_MUL, 2)
HHALF4(fma, HOP_FMA, 3)
HHALF4(min, HOP_MIN, 2)
HHALF4(max, HOP_MAX, 2)
HHALF4(neg, HOP_NEG, 1)
HHALF4(abs, HOP_ABS, 1)
HHALF4(ex2, HOP_EX2, 1)
HHALF4(tanh, HOP_TANH, 1)

/* ------------------------------------------------- rounding wrapper */

/* Runs the handler stored in x->imm with the host rounding mode x->aux2. */
static exec_result h_round(exec_warp *w, const xinsn *x, uint32_t mask)
{
    xhandler inner;
    memcpy(&inner, &x->imm, sizeof(inner));
    fesetround((int)x->aux2);
    exec_result r = inner(w, x, mask);
    fesetround(FE_TONEAREST);
    return r;
}

static exec_result h_nop(exec_warp *w, const xinsn *x, uint32_t mask)
{
    (void)w;
    (void)x;
    (void)mask;
    return EXEC_NEXT;
}

/* ----------------------------------------------------------- decoding */

/* What the suffixes of an instruction ask for. */
typedef struct fmods {
    int round;   /* XR_* (XR_DEFAULT when absent) */
    int ftz, sat, approx, full, nan, xorsign, abs, relu;
    int testp;   /* TP_* or -1 */
} fmods;

enum { FMT_F32, FMT_F64, FMT_F16, FMT_F16X2, FMT_BF16, FMT_BF16X2, FMT_OTHER };

static int fmt_of(mb_ptx_type t)
{
    switch (t) {
    case MB_TYPE_F32: return FMT_F32;
    case MB_TYPE_F64: return FMT_F64;
    case MB_TYPE_F16: return FMT_F16;
    case MB_TYPE_F16X2: return FMT_F16X2;
    case MB_TYPE_BF16: return FMT_BF16;
    case MB_TYPE_BF16X2: return FMT_BF16X2;
    default: return FMT_OTHER;
    }
}

/* Parses the modifiers; fails on any the float family does not know. */
static mb_status parse_mods(decode_ctx *dc, const mb_insn *insn, fmods *m)
{
    memset(m, 0, sizeof(*m));
    m->round = XR_DEFAULT;
    m->testp = -1;
    int ntypes = 0;
    for (unsigned i = 0; i < insn->nsuffix; i++) {
        uint16_t s = insn->suffix[i];
        if (s & MB_SUFFIX_TYPE) {
            ntypes++;
            continue;
        }
        int r = XR_DEFAULT, tp = -1;
        switch ((mb_ptx_mod)s) {
        case MB_MOD_RN: r = XR_RN; break;
        case MB_MOD_RZ: r = XR_RZ; break;
        case MB_MOD_RM: r = XR_RM; break;
        case MB_MOD_RP: r = XR_RP; break;
        case MB_MOD_FTZ: m->ftz = 1; break;
        case MB_MOD_SAT: m->sat = 1; break;
        case MB_MOD_APPROX: m->approx = 1; break;
        case MB_MOD_FULL: m->full = 1; break;
        case MB_MOD_NAN_PROPAGATE: m->nan = 1; break; /* ".NaN" (".nan" is setp's) */
        case MB_MOD_XORSIGN: m->xorsign = 1; break;
        case MB_MOD_ABS: m->abs = 1; break;
        case MB_MOD_RELU: m->relu = 1; break;
        case MB_MOD_FINITE: tp = TP_FINITE; break;
        case MB_MOD_INFINITE: tp = TP_INFINITE; break;
        case MB_MOD_NUMBER: tp = TP_NUMBER; break;
        case MB_MOD_NOTANUMBER: tp = TP_NOTANUMBER; break;
        case MB_MOD_NORMAL: tp = TP_NORMAL; break;
        case MB_MOD_SUBNORMAL: tp = TP_SUBNORMAL; break;
        default: {
            char what[96];
            snprintf(what, sizeof(what), "modifier .%s is not supported on this instruction",
                     mb_mod_name((mb_ptx_mod)s));
            return decode_unsupported(dc, insn, what);
        }
        }
        if (r != XR_DEFAULT) {
            if (m->round != XR_DEFAULT)
                return decode_unsupported(dc, insn, "more than one rounding modifier");
            m->round = r;
        }
        if (tp >= 0) {
            if (m->testp >= 0)
                return decode_unsupported(dc, insn, "testp takes exactly one test");
            m->testp = tp;
        }
    }
    if (ntypes != 1)
        return decode_unsupported(dc, insn, "expected exactly one type suffix");
    if (m->xorsign != m->abs)
        return decode_unsupported(dc, insn, ".xorsign and .abs go together");
    if (m->approx + m->full + (m->round != XR_DEFAULT) > 1)
        return decode_unsupported(dc, insn, "conflicting .approx, .full and rounding modifiers");
    return MB_OK;
}

/* Modifier sets an instruction form accepts. */
enum {
    A_RND = 1 << 0,    /* .rn .rz .rm .rp */
    A_RN = 1 << 1,     /* .rn only */
    A_FTZ = 1 << 2,
    A_SAT = 1 << 3,
    A_APPROX = 1 << 4,
    A_FULL = 1 << 5,
    A_NAN = 1 << 6,
    A_XORSIGN = 1 << 7, /* .xorsign.abs */
    A_RELU = 1 << 8,
    A_TESTP = 1 << 9
};

static mb_status check_allowed(decode_ctx *dc, const mb_insn *insn, const fmods *m, unsigned allowed)
{
    const char *bad = NULL;
    if (m->round != XR_DEFAULT && !(allowed & A_RND) && !((allowed & A_RN) && m->round == XR_RN))
        bad = "this rounding modifier";
    else if (m->ftz && !(allowed & A_FTZ))
        bad = ".ftz";
    else if (m->sat && !(allowed & A_SAT))
        bad = ".sat";
    else if (m->approx && !(allowed & A_APPROX))
        bad = ".approx";
    else if (m->full && !(allowed & A_FULL))
        bad = ".full";
    else if (m->nan && !(allowed & A_NAN))
        bad = ".NaN";
    else if (m->xorsign && !(allowed & A_XORSIGN))
        bad = ".xorsign.abs";
    else if (m->relu && !(allowed & A_RELU))
        bad = ".relu";
    else if (m->testp >= 0 && !(allowed & A_TESTP))
        bad = "a testp condition";
    else if ((allowed & A_TESTP) && m->testp < 0)
        bad = "testp without a condition";
    if (!bad)
        return MB_OK;
    char what[128];
    snprintf(what, sizeof(what), "%s is not supported on this instruction and type", bad);
    return decode_unsupported(dc, insn, what);
}

/* Decodes operand i as `type`; floating-point literals of 16-bit types are
 * converted here (round to nearest even). */
static mb_status operand(decode_ctx *dc, const mb_insn *insn, unsigned i, mb_ptx_type type,
                         xref *out)
{
    const mb_operand *o = mb_insn_operand(dc->fn, insn, i);
    if ((o->kind == MB_OPND_F32 || o->kind == MB_OPND_F64) &&
        (type == MB_TYPE_F16 || type == MB_TYPE_BF16 || type == MB_TYPE_F16X2 ||
         type == MB_TYPE_BF16X2)) {
        if (type == MB_TYPE_F16X2 || type == MB_TYPE_BF16X2)
            return decode_unsupported(dc, insn, "a floating-point literal for a packed type");
        double v = o->kind == MB_OPND_F32 ? (double)f32_of((uint32_t)o->u.bits) : f64_of(o->u.bits);
        return decode_const(dc, f64_to_h(v, type == MB_TYPE_BF16), 0, out);
    }
    if (o->kind == MB_OPND_VEC || o->kind == MB_OPND_ADDR || o->kind == MB_OPND_PAIR)
        return decode_unsupported(dc, insn, "unsupported operand form");
    return decode_operand(dc, insn, o, type, out);
}

static int host_round_mode(int xr)
{
    switch (xr) {
    case XR_RZ: return FE_TOWARDZERO;
    case XR_RM: return FE_DOWNWARD;
    case XR_RP: return FE_UPWARD;
    default: return FE_TONEAREST;
    }
}

/* Installs handler h, wrapped in h_round for a directed rounding. */
static void set_handler(xinsn *x, xhandler h, int round)
{
    if (round == XR_RZ || round == XR_RM || round == XR_RP) {
        memcpy(&x->imm, &h, sizeof(h));
        x->aux2 = (uint32_t)host_round_mode(round);
        x->fn = h_round;
    } else {
        x->fn = h;
    }
}

_Static_assert(sizeof(xhandler) <= sizeof(int64_t), "a handler pointer fits in xinsn.imm");

static xhandler fma32_handler(int ftz, int sat)
{
    int i = ftz | (sat << 1);
#if HAVE_FMA_VARIANT
    if (have_fma())
        return tab_fma_f32_hw[i];
#endif
    return tab_fma_f32_sw[i];
}

/* Selects the handler; returns NULL (with *why set) for a form that is not
 * implemented. */
static xhandler select_handler(mb_opcode op, int fmt, const fmods *m, unsigned *allowed,
                               int *nsrc, int *round, const char **why)
{
    int ftz = m->ftz, sat = m->sat;
    int half = fmt >= FMT_F16 && fmt <= FMT_BF16X2;
    int hidx = fmt - FMT_F16; /* f16, f16x2, bf16, bf16x2 */
    int bf = fmt == FMT_BF16 || fmt == FMT_BF16X2;
    *why = NULL;
    *nsrc = 2;
    *round = m->round;
    switch (op) {
    case MB_OP_ADD:
    case MB_OP_SUB:
    case MB_OP_MUL: {
        if (fmt == FMT_F32) {
            *allowed = A_RND | A_FTZ | A_SAT;
            const xhandler *t = op == MB_OP_ADD ? tab_add_f32 : op == MB_OP_SUB ? tab_sub_f32 : tab_mul_f32;
            return t[ftz | sat << 1];
        }
        if (fmt == FMT_F64) {
            *allowed = A_RND;
            return op == MB_OP_ADD ? PICK64(add_f64) : op == MB_OP_SUB ? PICK64(sub_f64) : PICK64(mul_f64);
        }
        if (half) {
            *allowed = A_RN | (bf ? 0 : A_FTZ | A_SAT);
            const xhandler *t = op == MB_OP_ADD ? tab_add_h : op == MB_OP_SUB ? tab_sub_h : tab_mul_h;
            return t[hidx];
        }
        break;
    }
    case MB_OP_MAD:
    case MB_OP_FMA:
        *nsrc = 3;
        if (fmt == FMT_F32) {
            *allowed = A_RND | A_FTZ | A_SAT;
            return fma32_handler(ftz, sat);
        }
        if (fmt == FMT_F64) {
            *allowed = A_RND;
            return PICK64(fma_f64);
        }
        if (half && op == MB_OP_FMA) {
            *allowed = A_RN | A_RELU | (bf ? 0 : A_FTZ | A_SAT);
            if (m->relu && m->sat) {
                *why = ".relu with .sat";
                return NULL;
            }
            return tab_fma_h[hidx];
        }
        break;
    case MB_OP_DIV:
        if (fmt == FMT_F32) {
            *allowed = A_RND | A_FTZ | A_APPROX | A_FULL;
            if (m->full)
                return tab_div_f32[ftz];
            if (m->round != XR_DEFAULT)
                return tab_div_f32[ftz];
            if (m->approx)
                return tab_diva_f32[ftz];
            return tab_diva_f32[1]; /* legacy div.f32: div.approx.ftz.f32 */
        }
        if (fmt == FMT_F64) {
            *allowed = A_RND;
            return PICK64(div_f64);
        }
        break;
    case MB_OP_ABS:
    case MB_OP_NEG:
        *nsrc = 1;
        if (fmt == FMT_F32) {
            *allowed = A_FTZ;
            return op == MB_OP_ABS ? tab_abs_f32[ftz] : tab_neg_f32[ftz];
        }
        if (fmt == FMT_F64) {
            *allowed = 0;
            return op == MB_OP_ABS ? h_abs_f64 : h_neg_f64;
        }
        if (half) {
            *allowed = bf ? 0 : A_FTZ;
            return op == MB_OP_ABS ? tab_abs_h[hidx] : tab_neg_h[hidx];
        }
        break;
    case MB_OP_MIN:
    case MB_OP_MAX:
        if (fmt == FMT_F32) {
            *allowed = A_FTZ | A_NAN | A_XORSIGN;
            const xhandler *t = op == MB_OP_MIN ? tab_min_f32 : tab_max_f32;
            return t[ftz | m->nan << 1 | m->xorsign << 2];
        }
        if (fmt == FMT_F64) {
            *allowed = A_NAN;
            return op == MB_OP_MIN ? tab_min_f64[m->nan] : tab_max_f64[m->nan];
        }
        if (half) {
            *allowed = A_NAN | A_XORSIGN | (bf ? 0 : A_FTZ);
            return op == MB_OP_MIN ? tab_min_h[hidx] : tab_max_h[hidx];
        }
        break;
    case MB_OP_COPYSIGN:
        *allowed = 0;
        if (fmt == FMT_F32)
            return h_copysign_f32;
        if (fmt == FMT_F64)
            return h_copysign_f64;
        break;
    case MB_OP_TESTP:
        *nsrc = 1;
        *allowed = A_TESTP;
        if (m->testp < 0) {
            *why = "testp without a condition";
            return NULL;
        }
        if (fmt == FMT_F32)
            return tab_testp_f32[m->testp];
        if (fmt == FMT_F64)
            return tab_testp_f64[m->testp];
        break;
    case MB_OP_RCP:
    case MB_OP_SQRT:
        *nsrc = 1;
        if (fmt == FMT_F32) {
            *allowed = A_RND | A_APPROX | A_FTZ;
            /* .approx and the legacy form are computed like .rn (see the top) */
            if (m->round == XR_DEFAULT && !m->approx)
                ftz = 1; /* legacy rcp.f32/sqrt.f32: .approx.ftz */
            return op == MB_OP_RCP ? tab_rcp_f32[ftz] : tab_sqrt_f32[ftz];
        }
        if (fmt == FMT_F64) {
            if (op == MB_OP_RCP && m->approx) {
                *allowed = A_APPROX | A_FTZ;
                if (!m->ftz) {
                    *why = "rcp.approx.f64 without .ftz";
                    return NULL;
                }
                return h_rcpa_ftz_f64;
            }
            *allowed = A_RND;
            return op == MB_OP_RCP ? PICK64(rcp_f64) : PICK64(sqrt_f64);
        }
        break;
    case MB_OP_RSQRT:
        *nsrc = 1;
        if (fmt == FMT_F32) {
            *allowed = A_APPROX | A_FTZ;
            return tab_rsqrt_f32[ftz || !m->approx];
        }
        if (fmt == FMT_F64) {
            *allowed = A_APPROX | A_FTZ;
            return tab_rsqrt_f64[ftz];
        }
        break;
    case MB_OP_SIN:
    case MB_OP_COS:
    case MB_OP_LG2:
    case MB_OP_EX2:
        *nsrc = 1;
        if (fmt == FMT_F32) {
            *allowed = A_APPROX | A_FTZ;
            ftz = ftz || !m->approx; /* legacy form: .approx.ftz */
            switch (op) {
            case MB_OP_SIN: return tab_sin_f32[ftz];
            case MB_OP_COS: return tab_cos_f32[ftz];
            case MB_OP_LG2: return tab_lg2_f32[ftz];
            default: return tab_ex2_f32[ftz];
            }
        }
        if (op == MB_OP_EX2 && half) {
            /* ex2.approx.{f16,f16x2}; ex2.approx.ftz.{bf16,bf16x2} */
            *allowed = A_APPROX | (bf ? A_FTZ : 0);
            if (!m->approx) {
                *why = "ex2 on 16-bit types without .approx";
                return NULL;
            }
            if (bf && !m->ftz) {
                *why = "ex2.approx on bf16 without .ftz";
                return NULL;
            }
            return tab_ex2_h[hidx];
        }
        break;
    case MB_OP_TANH:
        *nsrc = 1;
        *allowed = A_APPROX;
        if (!m->approx) {
            *why = "tanh without .approx";
            return NULL;
        }
        if (fmt == FMT_F32)
            return tab_tanh_f32[0];
        if (half)
            return tab_tanh_h[hidx];
        break;
    default: break;
    }
    return NULL;
}

static mb_ptx_type elem_reg_type(mb_ptx_type t)
{
    /* 16-bit and packed values are read as 32-bit words */
    switch (t) {
    case MB_TYPE_F16:
    case MB_TYPE_BF16:
    case MB_TYPE_F16X2:
    case MB_TYPE_BF16X2:
    case MB_TYPE_F32: return t;
    default: return MB_TYPE_F64;
    }
}

mb_status decode_float(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    decode_common_mods(insn, x);
    fmods m;
    mb_status st = parse_mods(dc, insn, &m);
    if (st != MB_OK)
        return st;
    mb_ptx_type type = mb_insn_type(insn, 0);
    int fmt = fmt_of(type);
    if (fmt == FMT_OTHER)
        return decode_unsupported(dc, insn, "the executor does not implement this type here");
    unsigned allowed = 0;
    int nsrc = 0, round = XR_DEFAULT;
    const char *why = NULL;
    mb_opcode op = (mb_opcode)insn->opcode;
    xhandler h = select_handler(op, fmt, &m, &allowed, &nsrc, &round, &why);
    if (!h) {
        if (why) {
            char what[128];
            snprintf(what, sizeof(what), "%s is not supported", why);
            return decode_unsupported(dc, insn, what);
        }
        return decode_unsupported(dc, insn, "the executor does not implement this instruction form");
    }
    st = check_allowed(dc, insn, &m, allowed);
    if (st != MB_OK)
        return st;
    if (insn->noperands != (unsigned)nsrc + 1)
        return decode_unsupported(dc, insn, "unexpected number of operands");

    /* operands */
    mb_ptx_type vt = elem_reg_type(type);
    st = operand(dc, insn, 0, op == MB_OP_TESTP ? MB_TYPE_PRED : vt, &x->op[0]);
    for (int i = 1; i <= nsrc && st == MB_OK; i++)
        st = operand(dc, insn, (unsigned)i, vt, &x->op[i]);
    if (st != MB_OK)
        return st;
    x->nops = (uint8_t)(nsrc + 1);
    if (op == MB_OP_TESTP && x->op[0] != XREF_NONE && !XREF_IS(x->op[0], XREF_PRED))
        return decode_unsupported(dc, insn, "testp needs a predicate destination");
    if (op == MB_OP_TESTP && x->op[0] != XREF_NONE &&
        (XREF_INDEX(x->op[0]) == PRED_TRUE || XREF_INDEX(x->op[0]) == PRED_FALSE))
        return decode_unsupported(dc, insn, "testp cannot write a constant predicate");
    if (x->op[0] == XREF_NONE) { /* the sink '_' */
        x->fn = h_nop;
        return MB_OK;
    }
    for (int i = 1; i <= nsrc; i++)
        if (x->op[i] == XREF_NONE)
            return decode_unsupported(dc, insn, "a source operand cannot be '_'");

    /* runtime flags of the 16-bit handlers */
    if (fmt >= FMT_F16 && fmt <= FMT_BF16X2)
        x->aux = (m.ftz ? HF_FTZ : 0) | (m.sat ? HF_SAT : 0) | (m.relu ? HF_RELU : 0) |
                 (m.nan ? HF_NAN : 0) | (m.xorsign ? HF_XORSIGN : 0);
    set_handler(x, h, round);
    return MB_OK;
}
