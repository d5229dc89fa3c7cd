/*
 * Moves and conversions: mov and cvt (including cvt.pack).
 *
 * mov
 *   - register to register of every width (16/32/64/128-bit values, .pred),
 *     immediates (integers, 0f/0d and decimal floats, predicate constants);
 *     when the register widths differ from the type (relaxed type checking)
 *     the value is truncated to the type and extended to the destination
 *     register (sign-extended for .s types, zero-extended otherwise);
 *   - special registers: the ones the run loop materialises (decode_operand),
 *     plus the dynamic ones handled here:
 *       %clock, %clock_hi (32-bit), %clock64: a deterministic per-warp
 *         cycle counter equal to the number of instructions the warp has
 *         issued, the current one included (w->warp_insts);
 *       %globaltimer (64-bit), %globaltimer_lo/_hi (32-bit halves): a
 *         deterministic nanosecond timer, 1 ns per issued warp instruction
 *         (the same count as %clock64);
 *       %envreg<N>, %pm<N>, %pm<N>_64: 0;
 *       %gridid in its 64-bit form (zero-extended 32-bit value);
 *       cluster registers for launches without clusters (every CTA is a
 *         cluster of one): %clusterid = %ctaid, %nclusterid = %nctaid,
 *         %cluster_ctaid = 0, %cluster_nctaid = 1, %cluster_ctarank = 0,
 *         %cluster_nctarank = 1, %is_explicit_cluster = 0,
 *         %current_graph_exec = 0;
 *   - addresses of symbols: module .global/.const variables and functions
 *     and .shared variables (constants from decode_operand), and .local /
 *     .param variables, parameters and return values of the current
 *     function, which live in each thread's stack frame: the value is the
 *     lane's local-space address w->sp[lane] + frame offset (this is how
 *     nvcc's `mov.u64 %SPL, __local_depot0;` works). The address of a
 *     kernel parameter is not supported (kernel parameters are not in
 *     local memory);
 *   - vector pack/unpack: mov.b16/.b32/.b64/.b128 between a scalar and a
 *     vector of 2 or 4 elements of 8, 16, 32 or 64 bits, element 0 in the
 *     low bits; sinks `_` in unpacks.
 *
 * cvt
 *   - every pair among u8 u16 u32 u64 s8 s16 s32 s64 f16 bf16 f32 f64,
 *     and .tf32 from .f32 (.rna, .rn, .rz), .f16x2/.bf16x2 from two .f32
 *     (a goes to the upper half), and cvt.pack.sat.{u16,s16}.s32 and
 *     cvt.pack.sat.{u8,s8,u4,s4}.s32.b32;
 *   - integer to integer: truncation, sign/zero extension, .sat clamps to
 *     the destination type's range;
 *   - integer to float: exact software rounding (.rn .rz .rm .rp; .rn when
 *     no rounding modifier is given), so 64-bit integers round correctly;
 *   - float to integer: .rni .rzi .rmi .rpi (.rzi when no rounding modifier
 *     is given); out-of-range values saturate; NaN gives 0, or
 *     1 << (width - 1) when the source is .f64 or the destination is 64-bit
 *     (the PTX manual's rule);
 *   - float to float: software rounding (.rn .rz .rm .rp, .rna for tf32;
 *     .rn when no modifier is given), correct for subnormals, overflow
 *     (to infinity or to the largest finite value, as the rounding mode
 *     says), .ftz (flushes .f32 inputs, and .f32 results after rounding),
 *     .sat ([0, 1], NaN to +0, -0 stays -0), .relu (negative values and -0
 *     to +0, NaN to the canonical NaN), .satfinite (infinities and overflow
 *     to the largest finite value, NaN stays NaN);
 *   - float rounded to an integral value in the same float type
 *     (cvt.rni.f32.f32 etc.).
 *   NaN results are always the canonical NaN of the destination format:
 *   0x7fff (f16, bf16), 0x7fffffff (f32, tf32), 0x7fffffffffffffff (f64),
 *   except for a plain cvt between identical float types without any
 *   modifier, which copies the bits.
 *
 * Results narrower than their 32-bit register word are written
 * zero-extended from the destination register's declared width (so
 * cvt.s16.s32 into a .b16 register writes the low 16 bits), while a
 * destination register wider than the type gets the PTX extension rule
 * (sign-extension for signed integer types).
 *
 * Rounding is computed here, not by the host FPU's rounding modes: the
 * host is assumed to run in its default round-to-nearest-even mode (never
 * changed), which gives the exact PTX result for int/double to float with
 * .rn, float to double, and the 2^52 trick of .rni; directed roundings of
 * doubles to f32 take the nearest result and step one unit back when it
 * overshot; everything else (f16, bf16, tf32, 64-bit integers with directed
 * modes) is exact integer arithmetic (round_pack).
 *
 * Handlers are specialised at decode time per source/destination kind and
 * word width; the rounding mode selects a loop specialised for it once per
 * warp instruction (DISPATCH_*), never per lane.
 */
#include "exec.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

/* ------------------------------------------------------------- bits */

static inline uint32_t f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static inline float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline uint64_t d2u(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}

static inline double u2d(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* All ones in the low `bits` bits (1..64). */
static inline uint64_t width_mask(unsigned bits)
{
    return bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
}

/* The low bits of `v` selected by `m`, sign-extended when `sb` is the sign
 * bit of that width, zero-extended when `sb` is 0. */
static inline uint64_t ext(uint64_t v, uint64_t m, uint64_t sb)
{
    return ((v & m) ^ sb) - sb;
}

/* -------------------------------------------------- float formats */

/* Float formats; the first four double as source kinds. */
enum { FMT_F16, FMT_BF16, FMT_F32, FMT_F64, FMT_TF32 };

/* Flags of float conversions (xinsn.aux2). */
enum { CF_FTZ_IN = 1, CF_FTZ_OUT = 2, CF_SAT = 4, CF_RELU = 8, CF_SATFINITE = 16 };

static inline int fmt_ebits(int f)
{
    return f == FMT_F16 ? 5 : f == FMT_F64 ? 11 : 8;
}

static inline int fmt_mbits(int f)
{
    switch (f) {
    case FMT_F16: return 10;
    case FMT_BF16: return 7;
    case FMT_F32: return 23;
    case FMT_F64: return 52;
    default: return 10; /* tf32 */
    }
}

/* tf32 values are .f32 bit patterns with the low 13 mantissa bits zero. */
static inline unsigned fmt_shift(int f)
{
    return f == FMT_TF32 ? 13 : 0;
}

static inline uint64_t fmt_nan(int f)
{
    switch (f) {
    case FMT_F16:
    case FMT_BF16: return 0x7FFF;
    case FMT_F64: return UINT64_C(0x7FFFFFFFFFFFFFFF);
    default: return 0x7FFFFFFF;
    }
}

/*
 * Rounds the exact value (-1)^neg * mag * 2^exp2 once to the format and
 * returns its bits (without the tf32 shift). Handles subnormal results,
 * rounding up into the next binade and overflow (to infinity, or to the
 * largest finite value when the mode rounds towards it or `satfinite`).
 */
INLINE uint64_t round_pack(int neg, uint64_t mag, int exp2, int fmt, int mode, int satfinite)
{
    const int eb = fmt_ebits(fmt), mb = fmt_mbits(fmt);
    const uint64_t sign = (uint64_t)(neg != 0) << (eb + mb);
    if (mag == 0)
        return sign;
    const int bias = (1 << (eb - 1)) - 1;
    const int p = 63 - __builtin_clzll(mag);
    const int e = p + exp2;                       /* exponent of the leading bit */
    const int te = e < 1 - bias ? 1 - bias : e;   /* subnormals use the minimum exponent */
    const int s = te - mb - exp2;                 /* bits of mag below the last place */
    uint64_t q;
    if (s <= 0) {
        q = mag << -s; /* exact: mag has at most mb + 1 significant bits here */
    } else {
        int gt, eq, inexact;
        if (s < 64) {
            uint64_t rem = mag & ((UINT64_C(1) << s) - 1);
            uint64_t half = UINT64_C(1) << (s - 1);
            q = mag >> s;
            gt = rem > half;
            eq = rem == half;
            inexact = rem != 0;
        } else {
            q = 0;
            gt = s == 64 && mag > (UINT64_C(1) << 63);
            eq = s == 64 && mag == (UINT64_C(1) << 63);
            inexact = 1;
        }
        int up;
        switch (mode) {
        case XR_RZ: up = 0; break;
        case XR_RM: up = inexact && neg; break;
        case XR_RP: up = inexact && !neg; break;
        case XR_RNA: up = gt || eq; break;
        default: up = gt || (eq && (q & 1)); break;
        }
        q += (uint64_t)up;
    }
    /* q carries the hidden bit, so adding it to the exponent field minus one
     * gives the encoding, including a carry into the next binade and the
     * step from the largest subnormal to the smallest normal */
    uint64_t enc = ((uint64_t)(te + bias - 1) << mb) + q;
    const uint64_t inf = ((UINT64_C(1) << eb) - 1) << mb;
    if (enc >= inf) {
        int to_inf;
        if (satfinite)
            to_inf = 0;
        else if (mode == XR_RZ)
            to_inf = 0;
        else if (mode == XR_RM)
            to_inf = neg;
        else if (mode == XR_RP)
            to_inf = !neg;
        else
            to_inf = 1;
        enc = to_inf ? inf : inf - 1;
    }
    return sign | enc;
}

/* Bits of a non-NaN double rounded to the format (without the tf32 shift). */
INLINE uint64_t round_double(double v, int fmt, int mode, int satfinite)
{
    const uint64_t b = d2u(v);
    const int neg = (int)(b >> 63);
    const uint32_t ex = (uint32_t)(b >> 52) & 0x7FF;
    const uint64_t m = b & ((UINT64_C(1) << 52) - 1);
    if (ex == 0x7FF) { /* infinity */
        const int eb = fmt_ebits(fmt), mb = fmt_mbits(fmt);
        const uint64_t inf = ((UINT64_C(1) << eb) - 1) << mb;
        return ((uint64_t)neg << (eb + mb)) | (satfinite ? inf - 1 : inf);
    }
    if (ex == 0)
        return round_pack(neg, m, -1074, fmt, mode, satfinite);
    return round_pack(neg, m | (UINT64_C(1) << 52), (int)ex - 1075, fmt, mode, satfinite);
}

/* ------------------------------------------- fast float conversions */

/* f32 bits to f16 bits rounded to nearest even (NaN: the canonical NaN). */
static inline uint32_t f32_to_f16_rn(uint32_t x)
{
    const uint32_t sign = (x >> 16) & 0x8000, a = x & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return 0x7FFF;
    if (a >= 0x477FF000u) /* 65520 and above round to infinity */
        return sign | 0x7C00;
    if (a >= 0x38800000u) { /* normal results: rebias, round off 13 bits */
        const uint32_t r = a - 0x38000000u;
        return sign | ((r + 0xFFFu + ((r >> 13) & 1)) >> 13);
    }
    if (a <= 0x33000000u) /* up to 2^-25 (a tie, to even): zero */
        return sign;
    const uint32_t e = a >> 23, m = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126 - e; /* 14..24: units of 2^-24 */
    const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    uint32_t q = m >> shift;
    q += rem > half || (rem == half && (q & 1));
    return sign | q;
}

/* f32 bits to bf16 bits rounded to nearest even (NaN: the canonical NaN). */
static inline uint32_t f32_to_bf16_rn(uint32_t x)
{
    if ((x & 0x7FFFFFFFu) > 0x7F800000u)
        return 0x7FFF;
    return (x + 0x7FFFu + ((x >> 16) & 1)) >> 16;
}

/* f16 bits (low half of the word) to f32 bits, exact (NaN: canonical). */
static inline uint32_t f16_to_f32(uint32_t h)
{
    const uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    if (e == 0x1F)
        return m ? 0x7FFFFFFFu : sign | 0x7F800000u;
    if (e != 0)
        return sign | (e + 112) << 23 | m << 13;
    return sign | f2u((float)m * 0x1p-24f); /* zero and subnormals: exact */
}

/* bf16 bits (low half of the word) to f32 bits, exact (NaN: canonical). */
static inline uint32_t bf16_to_f32(uint32_t h)
{
    const uint32_t b = (h & 0xFFFF) << 16;
    return (b & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FFFFFFFu : b;
}

/* A double (not NaN) rounded to f32 bits by .rz, .rm or .rp: the host's
 * round-to-nearest result, moved one unit back when it went past the value
 * in the wrong direction (it is then the neighbour on the right side). */
INLINE uint32_t f64_to_f32_directed(double v, int mode)
{
    const float f = (float)v;
    const double back = (double)f;
    const uint32_t b = f2u(f);
    int down; /* step towards -infinity (else towards +infinity) */
    if (mode == XR_RM && back > v)
        down = 1;
    else if (mode == XR_RP && back < v)
        down = 0;
    else if (mode == XR_RZ && v > 0 && back > v)
        down = 1;
    else if (mode == XR_RZ && v < 0 && back < v)
        down = 0;
    else
        return b;
    if ((b & 0x7FFFFFFFu) == 0)
        return down ? 0x80000001u : 0x00000001u;
    /* positive values shrink going down, negative ones grow */
    return (down == !(b >> 31)) ? b - 1 : b + 1;
}

/* The exact value of a binary16 number. */
static inline double half_to_double(uint32_t h)
{
    const uint32_t e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v;
    if (e == 0)
        v = (double)m * 0x1p-24;
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = u2d((uint64_t)(e + 1008) << 52 | (uint64_t)m << 42);
    return (h & 0x8000) ? -v : v;
}

/* Encodes the exact value `v` in the format with the conversion flags. */
INLINE uint64_t encode_double(double v, int fmt, int mode, unsigned flags)
{
    if (v != v)
        return (flags & CF_SAT) ? 0 : fmt_nan(fmt);
    if ((flags & CF_RELU) && signbit(v))
        v = 0.0;
    if (flags & CF_SAT)
        v = v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
    uint64_t bits;
    if (fmt == FMT_F64)
        bits = d2u(v);
    else if (fmt == FMT_F32 && mode == XR_RN && !(flags & CF_SATFINITE))
        bits = f2u((float)v); /* the host's default rounding is round-to-nearest-even */
    else if (fmt == FMT_F32 && mode != XR_RNA && !(flags & CF_SATFINITE))
        bits = f64_to_f32_directed(v, mode);
    else
        bits = round_double(v, fmt, mode, (flags & CF_SATFINITE) != 0) << fmt_shift(fmt);
    if ((flags & CF_FTZ_OUT) && fmt == FMT_F32 && (bits & 0x7F800000u) == 0)
        bits &= 0x80000000u;
    return bits;
}

/* Encodes the integer (-1)^neg * mag in the format with the flags. */
INLINE uint64_t encode_int(int neg, uint64_t mag, int fmt, int mode, unsigned flags)
{
    if ((flags & (CF_RELU | CF_SAT)) && neg) {
        neg = 0;
        mag = 0;
    }
    if ((flags & CF_SAT) && mag > 1)
        mag = 1;
    return round_pack(neg, mag, 0, fmt, mode, (flags & CF_SATFINITE) != 0) << fmt_shift(fmt);
}

/* ---------------------------------------------- integral rounding */

/* |v| < 2^52 rounded to the nearest integer, ties to even: adding and
 * subtracting 2^52 rounds away the fraction in the host's default
 * round-to-nearest-even mode (exact otherwise); keeps the sign of zero. */
INLINE double round_even_small(double v)
{
    return copysign((fabs(v) + 0x1p52) - 0x1p52, v);
}

/* v (|v| < 2^63, not NaN) rounded to an integer by an integer rounding
 * mode (XR_R?I). The truncating conversion is exact, and so is (double)t
 * (v is integral when |v| >= 2^53). */
INLINE int64_t round_to_i64(double v, int mode)
{
    const int64_t t = (int64_t)v;
    switch (mode) {
    case XR_RZI: return t;
    case XR_RMI: return t - ((double)t > v);
    case XR_RPI: return t + ((double)t < v);
    default: return fabs(v) < 0x1p52 ? (int64_t)round_even_small(v) : t;
    }
}

/* `v` rounded to an integral value in double; keeps the sign of zero. */
INLINE double round_int(double v, int mode)
{
    if (!(fabs(v) < 0x1p52))
        return v; /* already integral, infinite or NaN */
    if (mode == XR_RNI)
        return round_even_small(v);
    return copysign((double)round_to_i64(v, mode), v);
}

/* Saturation bounds of float-to-integer conversions, per destination type. */
typedef struct int_range {
    double lo;     /* smallest value */
    double hiex;   /* one past the largest value */
    int64_t lo_i, hi_i;
} int_range;

enum { IR_S8, IR_S16, IR_S32, IR_S64, IR_U8, IR_U16, IR_U32, IR_U64 };

static const int_range INT_RANGES[] = {
    [IR_S8] = {-128.0, 128.0, INT8_MIN, INT8_MAX},
    [IR_S16] = {-32768.0, 32768.0, INT16_MIN, INT16_MAX},
    [IR_S32] = {-2147483648.0, 2147483648.0, INT32_MIN, INT32_MAX},
    [IR_S64] = {-0x1p63, 0x1p63, INT64_MIN, INT64_MAX},
    [IR_U8] = {0.0, 256.0, 0, UINT8_MAX},
    [IR_U16] = {0.0, 65536.0, 0, UINT16_MAX},
    [IR_U32] = {0.0, 4294967296.0, 0, UINT32_MAX},
    [IR_U64] = {0.0, 0x1p64, 0, INT64_MAX}, /* handled apart */
};

/* Float (not NaN) to integer with saturation; `u64`: a .u64 destination. */
INLINE uint64_t f2i_value(double v, int mode, const int_range *rg, int u64)
{
    if (u64) {
        if (v >= 0x1p64)
            return UINT64_MAX;
        if (v >= 0x1p63)
            return (uint64_t)v; /* integral */
        if (!(v > 0.0))
            return 0;
        return (uint64_t)round_to_i64(v, mode);
    }
    if (v >= rg->hiex)
        return (uint64_t)rg->hi_i;
    if (v <= rg->lo)
        return (uint64_t)rg->lo_i;
    int64_t t = round_to_i64(v, mode); /* at least lo: v > lo and lo is integral */
    if ((mode == XR_RPI || mode == XR_RNI) && t > rg->hi_i)
        t = rg->hi_i;
    return (uint64_t)t;
}

/* --------------------------------------------------- lane access */

/* The exact value of a float source of kind `sk` (FMT_F16..FMT_F64). 16-bit
 * values use the low half of their word (a wider register may be given). */
INLINE double read_float(const void *src, int l, int sk, int ftz)
{
    switch (sk) {
    case FMT_F16: return half_to_double(((const uint32_t *)src)[l] & 0xFFFF);
    case FMT_BF16: return (double)u2f((((const uint32_t *)src)[l] & 0xFFFF) << 16);
    case FMT_F32: {
        uint32_t b = ((const uint32_t *)src)[l];
        if (ftz && (b & 0x7F800000u) == 0)
            b &= 0x80000000u;
        return (double)u2f(b);
    }
    default: return u2d(((const uint64_t *)src)[l]);
    }
}

INLINE void write_word(void *dst, int l, uint64_t v, int is64)
{
    if (is64)
        ((uint64_t *)dst)[l] = v;
    else
        ((uint32_t *)dst)[l] = (uint32_t)v;
}

/* Runs CALL(mode) with the float rounding mode of the instruction as a
 * compile-time constant, so each mode gets its own specialised loop. */
#define DISPATCH_FRND(mode_var, CALL)                                                              \
    switch (mode_var) {                                                                            \
    case XR_RZ: CALL(XR_RZ); break;                                                                \
    case XR_RM: CALL(XR_RM); break;                                                                \
    case XR_RP: CALL(XR_RP); break;                                                                \
    case XR_RNA: CALL(XR_RNA); break;                                                              \
    default: CALL(XR_RN); break;                                                                   \
    }

#define DISPATCH_IRND(mode_var, CALL)                                                              \
    switch (mode_var) {                                                                            \
    case XR_RNI: CALL(XR_RNI); break;                                                              \
    case XR_RMI: CALL(XR_RMI); break;                                                              \
    case XR_RPI: CALL(XR_RPI); break;                                                              \
    default: CALL(XR_RZI); break;                                                                  \
    }

/* ================================================================ mov */

static exec_result h_mov32(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint32_t *s = xr32(w, x->op[1]);
    FOR_LANES(mask, l, d[l] = s[l]);
    return EXEC_NEXT;
}

static exec_result h_mov64(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint64_t *s = xr64(w, x->op[1]);
    FOR_LANES(mask, l, d[l] = s[l]);
    return EXEC_NEXT;
}

/* .b128 registers: lane l holds its low half at [2l] and its high half at [2l+1]. */
static exec_result h_mov128(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint64_t *s = xr64(w, x->op[1]);
    FOR_LANES(mask, l, {
        d[2 * l] = s[2 * l];
        d[2 * l + 1] = s[2 * l + 1];
    });
    return EXEC_NEXT;
}

/* Predicates: aux is all ones for a negated source. */
static exec_result h_mov_pred(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = &w->preds[XREF_INDEX(x->op[0])];
    uint32_t s = w->preds[XREF_INDEX(x->op[1])] ^ x->aux;
    *d = (*d & ~mask) | (s & mask);
    return EXEC_NEXT;
}

/* Local-space address of a variable in the current frame (imm: frame offset). */
static exec_result h_frame_addr32(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint32_t off = (uint32_t)x->imm;
    FOR_LANES(mask, l, d[l] = w->sp[l] + off);
    return EXEC_NEXT;
}

static exec_result h_frame_addr64(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint64_t off = (uint64_t)x->imm;
    FOR_LANES(mask, l, d[l] = (uint64_t)w->sp[l] + off);
    return EXEC_NEXT;
}

/* %clock, %globaltimer_lo: low 32 bits of the warp's instruction count. */
static exec_result h_clock_lo(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint32_t v = (uint32_t)w->warp_insts;
    FOR_LANES(mask, l, d[l] = v);
    return EXEC_NEXT;
}

/* %clock_hi, %globaltimer_hi: high 32 bits. */
static exec_result h_clock_hi(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint32_t v = (uint32_t)(w->warp_insts >> 32);
    FOR_LANES(mask, l, d[l] = v);
    return EXEC_NEXT;
}

/* %clock64, %globaltimer. */
static exec_result h_clock64(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint64_t v = w->warp_insts;
    FOR_LANES(mask, l, d[l] = v);
    return EXEC_NEXT;
}

/* ----------------------------------------------------- pack, unpack */

/* aux: element count | element bits << 8 | total bits << 16. */
#define VEC_N(x) ((x)->aux & 0xFF)
#define VEC_EW(x) (((x)->aux >> 8) & 0xFF)
#define VEC_W(x) ((x)->aux >> 16)

/* {a, b} (32-bit elements) -> .b64 */
static exec_result h_pack_2x32(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint32_t *a = xr32(w, x->op[1]);
    const uint32_t *b = xr32(w, x->op[2]);
    FOR_LANES(mask, l, d[l] = (uint64_t)a[l] | (uint64_t)b[l] << 32);
    return EXEC_NEXT;
}

/* {a, b} (16-bit elements) -> .b32 */
static exec_result h_pack_2x16(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint32_t *a = xr32(w, x->op[1]);
    const uint32_t *b = xr32(w, x->op[2]);
    FOR_LANES(mask, l, d[l] = (a[l] & 0xFFFF) | b[l] << 16);
    return EXEC_NEXT;
}

/* Any pack of elements held in 32-bit words into 16, 32, 64 or 128 bits. */
static exec_result h_pack_words(exec_warp *w, const xinsn *x, uint32_t mask)
{
    const unsigned n = VEC_N(x), ew = VEC_EW(x), tw = VEC_W(x);
    const uint32_t *e[4] = {NULL, NULL, NULL, NULL};
    for (unsigned i = 0; i < n; i++)
        e[i] = xr32(w, x->op[1 + i]);
    const uint64_t em = width_mask(ew);
    if (tw <= 32) {
        uint32_t *d = xr32(w, x->op[0]);
        FOR_LANES(mask, l, {
            uint64_t acc = 0;
            for (unsigned i = 0; i < n; i++)
                acc |= (e[i][l] & em) << (i * ew);
            d[l] = (uint32_t)acc;
        });
    } else if (tw == 64) {
        uint64_t *d = xr64(w, x->op[0]);
        FOR_LANES(mask, l, {
            uint64_t acc = 0;
            for (unsigned i = 0; i < n; i++)
                acc |= (e[i][l] & em) << (i * ew);
            d[l] = acc;
        });
    } else { /* 4 x 32 -> 128 */
        uint64_t *d = xr64(w, x->op[0]);
        FOR_LANES(mask, l, {
            d[2 * l] = (uint64_t)e[0][l] | (uint64_t)e[1][l] << 32;
            d[2 * l + 1] = (uint64_t)e[2][l] | (uint64_t)e[3][l] << 32;
        });
    }
    return EXEC_NEXT;
}

/* {a, b} (64-bit elements) -> .b128 */
static exec_result h_pack_2x64(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint64_t *a = xr64(w, x->op[1]);
    const uint64_t *b = xr64(w, x->op[2]);
    FOR_LANES(mask, l, {
        d[2 * l] = a[l];
        d[2 * l + 1] = b[l];
    });
    return EXEC_NEXT;
}

/* .b64 -> {a, b} (32-bit elements; either may be a sink) */
static exec_result h_unpack_2x32(exec_warp *w, const xinsn *x, uint32_t mask)
{
    const uint64_t *s = xr64(w, x->op[2]);
    uint32_t *a = x->op[0] == XREF_NONE ? NULL : xr32(w, x->op[0]);
    uint32_t *b = x->op[1] == XREF_NONE ? NULL : xr32(w, x->op[1]);
    if (a && b)
        FOR_LANES(mask, l, {
            uint64_t v = s[l];
            a[l] = (uint32_t)v;
            b[l] = (uint32_t)(v >> 32);
        });
    else if (a)
        FOR_LANES(mask, l, a[l] = (uint32_t)s[l]);
    else if (b)
        FOR_LANES(mask, l, b[l] = (uint32_t)(s[l] >> 32));
    return EXEC_NEXT;
}

/* .b32 -> {a, b} (16-bit elements; either may be a sink) */
static exec_result h_unpack_2x16(exec_warp *w, const xinsn *x, uint32_t mask)
{
    const uint32_t *s = xr32(w, x->op[2]);
    uint32_t *a = x->op[0] == XREF_NONE ? NULL : xr32(w, x->op[0]);
    uint32_t *b = x->op[1] == XREF_NONE ? NULL : xr32(w, x->op[1]);
    if (a && b)
        FOR_LANES(mask, l, {
            uint32_t v = s[l]; /* read before writing: a destination may be the source */
            a[l] = v & 0xFFFF;
            b[l] = v >> 16;
        });
    else if (a)
        FOR_LANES(mask, l, a[l] = s[l] & 0xFFFF);
    else if (b)
        FOR_LANES(mask, l, b[l] = s[l] >> 16);
    return EXEC_NEXT;
}

/* Any unpack of 16, 32, 64 or 128 bits into elements held in 32-bit words
 * (or 64-bit words for 64-bit elements). op[n] is the source. */
static exec_result h_unpack_any(exec_warp *w, const xinsn *x, uint32_t mask)
{
    const unsigned n = VEC_N(x), ew = VEC_EW(x), tw = VEC_W(x);
    void *e[4] = {NULL, NULL, NULL, NULL};
    for (unsigned i = 0; i < n; i++)
        if (x->op[i] != XREF_NONE)
            e[i] = xr32(w, x->op[i]);
    const uint32_t *s = xr32(w, x->op[n]);
    const uint64_t em = width_mask(ew);
    FOR_LANES(mask, l, {
        uint64_t lo;
        uint64_t hi = 0;
        if (tw <= 32)
            lo = s[l];
        else if (tw == 64)
            lo = ((const uint64_t *)s)[l];
        else {
            lo = ((const uint64_t *)s)[2 * l];
            hi = ((const uint64_t *)s)[2 * l + 1];
        }
        for (unsigned i = 0; i < n; i++) {
            unsigned at = i * ew;
            uint64_t v = at >= 64 ? hi >> (at - 64) : lo >> at;
            if (!e[i])
                continue;
            if (ew == 64)
                ((uint64_t *)e[i])[l] = v;
            else
                ((uint32_t *)e[i])[l] = (uint32_t)(v & em);
        }
    });
    return EXEC_NEXT;
}

/* ======================================================= integer cvt */

/* Integer to integer. aux: source bits | signed << 8 | destination bits << 16
 * | signed << 24; aux2: mask of the destination register's declared width
 * (32-bit words). `sat`: 0 none, 1 clamp as signed 64-bit values, 2 clamp
 * an unsigned 64-bit source. */
INLINE void ii_loop(exec_warp *w, const xinsn *x, uint32_t mask, int s64, int d64, int sat)
{
    const void *s = xr32(w, x->op[1]);
    void *d = xr32(w, x->op[0]);
    const unsigned sw = x->aux & 0xFF, dw = (x->aux >> 16) & 0xFF;
    const int ss = (x->aux >> 8) & 1, ds = (x->aux >> 24) & 1;
    const uint64_t sm = width_mask(sw), ssb = ss ? UINT64_C(1) << (sw - 1) : 0;
    const uint64_t dm = width_mask(dw), dsb = ds ? UINT64_C(1) << (dw - 1) : 0;
    const uint64_t rm = d64 ? UINT64_MAX : x->aux2;
    const int64_t lo = ds ? (int64_t)(UINT64_MAX << (dw - 1)) : 0;
    const uint64_t hiu = ds ? (UINT64_C(1) << (dw - 1)) - 1 : dm;
    const int64_t hi = hiu > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)hiu;
    FOR_LANES(mask, l, {
        uint64_t v = ext(s64 ? ((const uint64_t *)s)[l] : ((const uint32_t *)s)[l], sm, ssb);
        if (sat == 1)
            v = (int64_t)v < lo ? (uint64_t)lo : (int64_t)v > hi ? (uint64_t)hi : v;
        else if (sat == 2)
            v = v > hiu ? hiu : v;
        write_word(d, l, ext(v, dm, dsb) & rm, d64);
    });
}

#define DEF_II(S64, D64, SAT)                                                                      \
    static exec_result h_ii_##S64##D64##SAT(exec_warp *w, const xinsn *x, uint32_t mask)          \
    {                                                                                              \
        ii_loop(w, x, mask, S64, D64, SAT);                                                        \
        return EXEC_NEXT;                                                                          \
    }
DEF_II(0, 0, 0) DEF_II(0, 0, 1) DEF_II(0, 0, 2)
DEF_II(0, 1, 0) DEF_II(0, 1, 1) DEF_II(0, 1, 2)
DEF_II(1, 0, 0) DEF_II(1, 0, 1) DEF_II(1, 0, 2)
DEF_II(1, 1, 0) DEF_II(1, 1, 1) DEF_II(1, 1, 2)

static const xhandler II_HANDLERS[2][2][3] = {
    {{h_ii_000, h_ii_001, h_ii_002}, {h_ii_010, h_ii_011, h_ii_012}},
    {{h_ii_100, h_ii_101, h_ii_102}, {h_ii_110, h_ii_111, h_ii_112}},
};

/* The common widenings and narrowings. */
static exec_result h_zext32_64(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint32_t *s = xr32(w, x->op[1]);
    FOR_LANES(mask, l, d[l] = s[l]);
    return EXEC_NEXT;
}

static exec_result h_sext32_64(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t *d = xr64(w, x->op[0]);
    const uint32_t *s = xr32(w, x->op[1]);
    FOR_LANES(mask, l, d[l] = (uint64_t)(int64_t)(int32_t)s[l]);
    return EXEC_NEXT;
}

static exec_result h_trunc64_32(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint64_t *s = xr64(w, x->op[1]);
    FOR_LANES(mask, l, d[l] = (uint32_t)s[l]);
    return EXEC_NEXT;
}

/* Integer to float. aux: source bits | signed << 8; aux2: CF_* flags. */
INLINE void i2f_loop(exec_warp *w, const xinsn *x, uint32_t mask, int s64, int fmt, int mode,
                     unsigned flags)
{
    const void *s = xr32(w, x->op[1]);
    void *d = xr32(w, x->op[0]);
    const unsigned sw = x->aux & 0xFF;
    const int ss = (x->aux >> 8) & 1;
    const uint64_t sm = width_mask(sw), ssb = ss ? UINT64_C(1) << (sw - 1) : 0;
    FOR_LANES(mask, l, {
        uint64_t v = ext(s64 ? ((const uint64_t *)s)[l] : ((const uint32_t *)s)[l], sm, ssb);
        uint64_t bits;
        if (mode == XR_RN && flags == 0 && fmt == FMT_F32)
            bits = f2u(ss ? (float)(int64_t)v : (float)v); /* host default rounding: .rn */
        else if (mode == XR_RN && flags == 0 && fmt == FMT_F64)
            bits = d2u(ss ? (double)(int64_t)v : (double)v);
        else if (flags == 0 && fmt == FMT_F32 && mode != XR_RNA && sw <= 32)
            bits = f64_to_f32_directed(ss ? (double)(int64_t)v : (double)v, mode); /* exact double */
        else {
            int neg = ss && (int64_t)v < 0;
            bits = encode_int(neg, neg ? 0 - v : v, fmt, mode, flags);
        }
        write_word(d, l, bits, fmt == FMT_F64);
    });
}

#define I2F_CALL(M) i2f_loop(w, x, mask, S64_, FMT_, M, 0)
#define DEF_I2F(S64, FMT)                                                                          \
    static exec_result h_i2f_##S64##_##FMT(exec_warp *w, const xinsn *x, uint32_t mask)           \
    {                                                                                              \
        enum { S64_ = S64, FMT_ = FMT };                                                           \
        if (x->aux2)                                                                               \
            i2f_loop(w, x, mask, S64, FMT, x->round, x->aux2);                                     \
        else                                                                                       \
            DISPATCH_FRND(x->round, I2F_CALL)                                                      \
        return EXEC_NEXT;                                                                          \
    }
DEF_I2F(0, FMT_F16) DEF_I2F(0, FMT_BF16) DEF_I2F(0, FMT_F32) DEF_I2F(0, FMT_F64)
DEF_I2F(1, FMT_F16) DEF_I2F(1, FMT_BF16) DEF_I2F(1, FMT_F32) DEF_I2F(1, FMT_F64)

static const xhandler I2F_HANDLERS[2][4] = {
    {h_i2f_0_FMT_F16, h_i2f_0_FMT_BF16, h_i2f_0_FMT_F32, h_i2f_0_FMT_F64},
    {h_i2f_1_FMT_F16, h_i2f_1_FMT_BF16, h_i2f_1_FMT_F32, h_i2f_1_FMT_F64},
};

/* Float to integer. aux: INT_RANGES index; aux2: destination register mask
 * (32-bit words); imm: the result for NaN. `dk`: 0 a 32-bit word, 1 a
 * 64-bit word, 2 a .u64 destination. */
INLINE void f2i_loop(exec_warp *w, const xinsn *x, uint32_t mask, int sk, int dk, int mode)
{
    const void *s = xr32(w, x->op[1]);
    void *d = xr32(w, x->op[0]);
    const int_range rg = INT_RANGES[x->aux];
    const uint64_t nanval = (uint64_t)x->imm;
    const uint64_t rm = dk == 0 ? x->aux2 : UINT64_MAX;
    const int ftz = sk == FMT_F32 && (x->mods & XM_FTZ);
    FOR_LANES(mask, l, {
        double v = read_float(s, l, sk, ftz);
        uint64_t r = v != v ? nanval : f2i_value(v, mode, &rg, dk == 2);
        write_word(d, l, r & rm, dk != 0);
    });
}

#define F2I_CALL(M) f2i_loop(w, x, mask, SK_, DK_, M)
#define DEF_F2I(SK, DK)                                                                            \
    static exec_result h_f2i_##SK##_##DK(exec_warp *w, const xinsn *x, uint32_t mask)             \
    {                                                                                              \
        enum { SK_ = SK, DK_ = DK };                                                               \
        DISPATCH_IRND(x->round, F2I_CALL)                                                          \
        return EXEC_NEXT;                                                                          \
    }
DEF_F2I(FMT_F16, 0) DEF_F2I(FMT_F16, 1) DEF_F2I(FMT_F16, 2)
DEF_F2I(FMT_BF16, 0) DEF_F2I(FMT_BF16, 1) DEF_F2I(FMT_BF16, 2)
DEF_F2I(FMT_F32, 0) DEF_F2I(FMT_F32, 1) DEF_F2I(FMT_F32, 2)
DEF_F2I(FMT_F64, 0) DEF_F2I(FMT_F64, 1) DEF_F2I(FMT_F64, 2)

static const xhandler F2I_HANDLERS[4][3] = {
    {h_f2i_FMT_F16_0, h_f2i_FMT_F16_1, h_f2i_FMT_F16_2},
    {h_f2i_FMT_BF16_0, h_f2i_FMT_BF16_1, h_f2i_FMT_BF16_2},
    {h_f2i_FMT_F32_0, h_f2i_FMT_F32_1, h_f2i_FMT_F32_2},
    {h_f2i_FMT_F64_0, h_f2i_FMT_F64_1, h_f2i_FMT_F64_2},
};

/* ========================================================= float cvt */

/* Float to float (and .tf32). aux2: CF_* flags. */
INLINE void f2f_loop(exec_warp *w, const xinsn *x, uint32_t mask, int sk, int fmt, int mode,
                     unsigned flags)
{
    const void *s = xr32(w, x->op[1]);
    void *d = xr32(w, x->op[0]);
    const int ftz = (flags & CF_FTZ_IN) != 0;
    if (flags == 0 && sk == FMT_F32 && mode == XR_RN && (fmt == FMT_F16 || fmt == FMT_BF16)) {
        const uint32_t *s32 = s;
        uint32_t *d32 = d;
        if (fmt == FMT_F16)
            FOR_LANES(mask, l, d32[l] = f32_to_f16_rn(s32[l]));
        else
            FOR_LANES(mask, l, d32[l] = f32_to_bf16_rn(s32[l]));
        return;
    }
    if (flags == 0 && fmt == FMT_F32 && (sk == FMT_F16 || sk == FMT_BF16)) {
        const uint32_t *s32 = s;
        uint32_t *d32 = d;
        if (sk == FMT_F16)
            FOR_LANES(mask, l, d32[l] = f16_to_f32(s32[l]));
        else
            FOR_LANES(mask, l, d32[l] = bf16_to_f32(s32[l]));
        return;
    }
    if (sk == FMT_F32 && fmt == FMT_F32) { /* cvt{.ftz}{.sat}.f32.f32: no rounding */
        const uint32_t *s32 = s;
        uint32_t *d32 = d;
        const int sat = (flags & CF_SAT) != 0;
        FOR_LANES(mask, l, {
            uint32_t b = s32[l];
            if (ftz && (b & 0x7F800000u) == 0) /* flushes the input, hence the result */
                b &= 0x80000000u;
            float f = u2f(b);
            if (f != f)
                b = sat ? 0 : 0x7FFFFFFFu;
            else if (sat)
                b = f < 0.0f ? 0 : f > 1.0f ? 0x3F800000u : b;
            d32[l] = b;
        });
        return;
    }
    FOR_LANES(mask, l,
              write_word(d, l, encode_double(read_float(s, l, sk, ftz), fmt, mode, flags),
                         fmt == FMT_F64));
}

#define F2F_CALL(M) f2f_loop(w, x, mask, SK_, FMT_, M, 0)
#define DEF_F2F(SK, FMT)                                                                           \
    static exec_result h_f2f_##SK##_##FMT(exec_warp *w, const xinsn *x, uint32_t mask)            \
    {                                                                                              \
        enum { SK_ = SK, FMT_ = FMT };                                                             \
        if (x->aux2)                                                                               \
            f2f_loop(w, x, mask, SK, FMT, x->round, x->aux2);                                      \
        else                                                                                       \
            DISPATCH_FRND(x->round, F2F_CALL)                                                      \
        return EXEC_NEXT;                                                                          \
    }
#define DEF_F2F_ROW(SK)                                                                            \
    DEF_F2F(SK, FMT_F16) DEF_F2F(SK, FMT_BF16) DEF_F2F(SK, FMT_F32) DEF_F2F(SK, FMT_F64)          \
    DEF_F2F(SK, FMT_TF32)
DEF_F2F_ROW(FMT_F16)
DEF_F2F_ROW(FMT_BF16)
DEF_F2F_ROW(FMT_F32)
DEF_F2F_ROW(FMT_F64)

#define F2F_ROW(SK)                                                                                \
    {h_f2f_##SK##_FMT_F16, h_f2f_##SK##_FMT_BF16, h_f2f_##SK##_FMT_F32, h_f2f_##SK##_FMT_F64,      \
     h_f2f_##SK##_FMT_TF32}
static const xhandler F2F_HANDLERS[4][5] = {F2F_ROW(FMT_F16), F2F_ROW(FMT_BF16), F2F_ROW(FMT_F32),
                                            F2F_ROW(FMT_F64)};

/* Rounding to an integral value in the same float type. aux2: CF_* flags. */
INLINE void rint_loop(exec_warp *w, const xinsn *x, uint32_t mask, int sk, int mode,
                      unsigned flags)
{
    const void *s = xr32(w, x->op[1]);
    void *d = xr32(w, x->op[0]);
    const int ftz = (flags & CF_FTZ_IN) != 0;
    /* the integral value is exact in the format, so encoding it does not round */
    FOR_LANES(mask, l,
              write_word(d, l,
                         encode_double(round_int(read_float(s, l, sk, ftz), mode), sk, XR_RN,
                                       flags),
                         sk == FMT_F64));
}

#define RINT_CALL(M) rint_loop(w, x, mask, SK_, M, 0)
#define RINT_CALL_FLAGS(M) rint_loop(w, x, mask, SK_, M, x->aux2)
#define DEF_RINT(SK)                                                                               \
    static exec_result h_rint_##SK(exec_warp *w, const xinsn *x, uint32_t mask)                   \
    {                                                                                              \
        enum { SK_ = SK };                                                                         \
        if (x->aux2)                                                                               \
            DISPATCH_IRND(x->round, RINT_CALL_FLAGS)                                               \
        else                                                                                       \
            DISPATCH_IRND(x->round, RINT_CALL)                                                     \
        return EXEC_NEXT;                                                                          \
    }
DEF_RINT(FMT_F16) DEF_RINT(FMT_BF16) DEF_RINT(FMT_F32) DEF_RINT(FMT_F64)

static const xhandler RINT_HANDLERS[4] = {h_rint_FMT_F16, h_rint_FMT_BF16, h_rint_FMT_F32,
                                          h_rint_FMT_F64};

/* cvt.f16x2.f32 / cvt.bf16x2.f32 d, a, b: a to the upper half. aux2: flags. */
INLINE void x2_loop(exec_warp *w, const xinsn *x, uint32_t mask, int fmt, int mode,
                    unsigned flags)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint32_t *a = xr32(w, x->op[1]);
    const uint32_t *b = xr32(w, x->op[2]);
    const int ftz = (flags & CF_FTZ_IN) != 0;
    if (flags == 0 && mode == XR_RN) {
        if (fmt == FMT_F16)
            FOR_LANES(mask, l, d[l] = f32_to_f16_rn(a[l]) << 16 | f32_to_f16_rn(b[l]));
        else
            FOR_LANES(mask, l, d[l] = f32_to_bf16_rn(a[l]) << 16 | f32_to_bf16_rn(b[l]));
        return;
    }
    FOR_LANES(mask, l, {
        uint64_t hi = encode_double(read_float(a, l, FMT_F32, ftz), fmt, mode, flags);
        uint64_t lo = encode_double(read_float(b, l, FMT_F32, ftz), fmt, mode, flags);
        d[l] = (uint32_t)(hi << 16 | lo);
    });
}

#define X2_CALL(M) x2_loop(w, x, mask, FMT_, M, 0)
#define DEF_X2(FMT)                                                                                \
    static exec_result h_x2_##FMT(exec_warp *w, const xinsn *x, uint32_t mask)                    \
    {                                                                                              \
        enum { FMT_ = FMT };                                                                       \
        if (x->aux2)                                                                               \
            x2_loop(w, x, mask, FMT, x->round, x->aux2);                                           \
        else                                                                                       \
            DISPATCH_FRND(x->round, X2_CALL)                                                       \
        return EXEC_NEXT;                                                                          \
    }
DEF_X2(FMT_F16) DEF_X2(FMT_BF16)

/* cvt.pack.sat: aux = element bits | signed << 8; op[3] the optional c. */
static exec_result h_cvt_pack(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    const uint32_t *a = xr32(w, x->op[1]);
    const uint32_t *b = xr32(w, x->op[2]);
    const uint32_t *c = x->op[3] == XREF_NONE ? NULL : xr32(w, x->op[3]);
    const unsigned size = x->aux & 0xFF;
    const int sgn = (x->aux >> 8) & 1;
    const int32_t lo = sgn ? -(int32_t)(1u << (size - 1)) : 0;
    const int32_t hi = sgn ? (int32_t)(1u << (size - 1)) - 1 : (int32_t)((1u << size) - 1);
    const uint32_t m = (1u << size) - 1;
    FOR_LANES(mask, l, {
        int32_t va = (int32_t)a[l];
        int32_t vb = (int32_t)b[l];
        va = va < lo ? lo : va > hi ? hi : va;
        vb = vb < lo ? lo : vb > hi ? hi : vb;
        uint32_t td = ((uint32_t)va & m) << size | ((uint32_t)vb & m);
        d[l] = c ? td | c[l] << (2 * size) : td;
    });
    return EXEC_NEXT;
}

/* =========================================================== decoding */

static int type_is_int(mb_ptx_type t)
{
    switch (t) {
    case MB_TYPE_U8: case MB_TYPE_U16: case MB_TYPE_U32: case MB_TYPE_U64:
    case MB_TYPE_S8: case MB_TYPE_S16: case MB_TYPE_S32: case MB_TYPE_S64:
        return 1;
    default:
        return 0;
    }
}

/* FMT_* of a scalar float type, or -1. */
static int type_fmt(mb_ptx_type t)
{
    switch (t) {
    case MB_TYPE_F16: return FMT_F16;
    case MB_TYPE_BF16: return FMT_BF16;
    case MB_TYPE_F32: return FMT_F32;
    case MB_TYPE_F64: return FMT_F64;
    default: return -1;
    }
}

static unsigned type_bits(mb_ptx_type t)
{
    return mb_type_size(t) * 8;
}

static int type_signed(mb_ptx_type t)
{
    return mb_type_kind_of(t) == MB_TYPE_KIND_S;
}

/* Declared width in bits of register operand `o` (0 for predicates). */
static unsigned reg_decl_bits(const decode_ctx *dc, const mb_operand *o)
{
    const mb_reg *r = &dc->fn->regs[o->u.reg];
    return r->type == MB_TYPE_PRED ? 0 : mb_type_size(r->type) * 8;
}

/* A value operand: its reference, the width of its lane words (32, 64, 128)
 * and the number of meaningful bits in them (declared register width; for
 * immediates and special registers the type's width). */
typedef struct vopnd {
    xref ref;
    unsigned word;
    unsigned bits;
} vopnd;

/* The bits of a float literal `o` in format `fmt` (rounded to nearest). */
static uint64_t float_literal_bits(const mb_operand *o, int fmt)
{
    double v;
    if (o->kind == MB_OPND_F32)
        v = (double)u2f((uint32_t)o->u.bits);
    else
        v = u2d(o->u.bits);
    return encode_double(v, fmt, XR_RN, 0);
}

/* Destination register of a value instruction. */
static mb_status dst_operand(decode_ctx *dc, const mb_insn *insn, const mb_operand *o, vopnd *v)
{
    if (o->kind != MB_OPND_REG || dc->fn->regs[o->u.reg].type == MB_TYPE_PRED)
        return decode_unsupported(dc, insn, "the destination must be a non-predicate register");
    v->ref = dc->ef->reg_ref[o->u.reg];
    v->word = decode_reg_bits(dc, o);
    v->bits = reg_decl_bits(dc, o);
    return MB_OK;
}

/* Source operand read as `type`: registers of any value width (the low bits
 * are used), immediates converted to the type, 32-bit special registers. */
static mb_status src_operand(decode_ctx *dc, const mb_insn *insn, const mb_operand *o,
                             mb_ptx_type type, vopnd *v)
{
    const unsigned tb = type_bits(type);
    switch ((mb_operand_kind)o->kind) {
    case MB_OPND_REG:
        if (dc->fn->regs[o->u.reg].type == MB_TYPE_PRED)
            return decode_unsupported(dc, insn, "a predicate register is used as a value");
        v->ref = dc->ef->reg_ref[o->u.reg];
        v->word = decode_reg_bits(dc, o);
        v->bits = reg_decl_bits(dc, o);
        return MB_OK;
    case MB_OPND_F32:
    case MB_OPND_F64:
        if (type == MB_TYPE_F16 || type == MB_TYPE_BF16) {
            v->word = 32;
            v->bits = 16;
            return decode_const(dc, float_literal_bits(o, type_fmt(type)), 0, &v->ref);
        }
        /* fall through */
    case MB_OPND_IMM:
        if (tb == 0 || tb > 64)
            return decode_unsupported(dc, insn, "immediate operand of an unsupported type");
        v->word = tb == 64 ? 64 : 32;
        v->bits = tb;
        return decode_operand(dc, insn, o, type, &v->ref);
    case MB_OPND_SREG:
        v->word = 32;
        v->bits = 32;
        return decode_operand(dc, insn, o, MB_TYPE_U32, &v->ref);
    default:
        return decode_unsupported(dc, insn, "unsupported source operand");
    }
}

/*
 * Integer-style move of `tb` bits (signed `sgn`) from `s` to `d`: a plain
 * copy when the widths allow, else truncation to the type and extension to
 * the destination register. `sat` clamps to the range of (`dw`, `dsgn`).
 */
static mb_status int_move(decode_ctx *dc, const mb_insn *insn, xinsn *x, const vopnd *s,
                          unsigned stb, int ssgn, const vopnd *d, unsigned dtb, int dsgn,
                          int sat)
{
    if (d->bits < dtb)
        return decode_unsupported(dc, insn,
                                  "the destination register is narrower than the instruction type");
    if (s->word > 64 || d->word > 64)
        return decode_unsupported(dc, insn, "128-bit registers cannot be converted");
    x->op[0] = d->ref;
    x->op[1] = s->ref;
    unsigned sw = stb < s->word ? stb : s->word;
    /* The word can be copied when nothing is truncated (the source holds at
     * most sw = dtb meaningful bits, zero-extended) and the extension to the
     * destination register changes nothing: the register is as wide as the
     * type, or the extension is a zero-extension, or the source's top bit
     * (bit dtb-1) is known to be zero. */
    int same_value = s->bits <= sw && sw == dtb && (d->bits == dtb || !dsgn || s->bits < sw);
    if (!sat && same_value && s->word == d->word) {
        x->fn = s->word == 64 ? h_mov64 : h_mov32;
        return MB_OK;
    }
    if (!sat && s->word == 32 && d->word == 64 && sw == 32 && dtb == 64) {
        x->fn = ssgn ? h_sext32_64 : h_zext32_64;
        return MB_OK;
    }
    if (!sat && s->word == 64 && d->word == 32 && dtb == 32 && d->bits == 32) {
        x->fn = h_trunc64_32;
        return MB_OK;
    }
    x->aux = sw | (uint32_t)ssgn << 8 | dtb << 16 | (uint32_t)dsgn << 24;
    x->aux2 = (uint32_t)width_mask(d->bits < 32 ? d->bits : 32);
    int satkind = !sat ? 0 : (sw == 64 && !ssgn) ? 2 : 1;
    x->fn = II_HANDLERS[s->word == 64][d->word == 64][satkind];
    return MB_OK;
}

/* -------------------------------------------------------------- mov */

static mb_status decode_mov_pred(decode_ctx *dc, const mb_insn *insn, xinsn *x,
                                 const mb_operand *d, const mb_operand *a)
{
    if (d->kind != MB_OPND_REG)
        return decode_unsupported(dc, insn, "mov.pred needs a predicate register destination");
    mb_status st = decode_operand(dc, insn, d, MB_TYPE_PRED, &x->op[0]);
    if (st == MB_OK)
        st = decode_operand(dc, insn, a, MB_TYPE_PRED, &x->op[1]);
    if (st != MB_OK)
        return st;
    x->aux = (a->flags & MB_OPND_NOT) ? 0xFFFFFFFFu : 0;
    x->fn = h_mov_pred;
    return MB_OK;
}

/* mov of a symbol's address. */
static mb_status decode_mov_symbol(decode_ctx *dc, const mb_insn *insn, xinsn *x,
                                   const vopnd *d, const mb_operand *a, unsigned tb)
{
    const mb_function *fn = dc->fn;
    int frame = 0;
    uint64_t off = 0;
    if (a->symkind == MB_SYM_LOCAL_VAR) {
        mb_space sp = fn->vars[a->u.sym].space;
        if (sp == MB_SPACE_LOCAL || sp == MB_SPACE_PARAM) {
            frame = 1;
            off = dc->ef->var_offset[a->u.sym];
        }
    } else if (a->symkind == MB_SYM_PARAM || a->symkind == MB_SYM_RET) {
        const mb_param *p = a->symkind == MB_SYM_PARAM ? &fn->params[a->u.sym] : &fn->rets[a->u.sym];
        if (fn->is_entry && a->symkind == MB_SYM_PARAM)
            return decode_unsupported(dc, insn,
                                      "the address of a kernel parameter cannot be taken with mov");
        if (p->space != MB_SPACE_PARAM)
            return decode_unsupported(dc, insn, "the address of a .reg parameter cannot be taken");
        frame = 1;
        off = a->symkind == MB_SYM_PARAM ? dc->ef->param_offset[a->u.sym]
                                         : dc->ef->ret_offset[a->u.sym];
    }
    if (tb != d->word || (tb != 32 && tb != 64))
        return decode_unsupported(dc, insn, "an address needs a .u32 or .u64 mov of that width");
    if (!frame) {
        x->op[0] = d->ref;
        x->fn = tb == 64 ? h_mov64 : h_mov32;
        return decode_operand(dc, insn, a, tb == 64 ? MB_TYPE_U64 : MB_TYPE_U32, &x->op[1]);
    }
    x->op[0] = d->ref;
    x->imm = (int64_t)(off + (uint64_t)a->offset);
    x->fn = tb == 64 ? h_frame_addr64 : h_frame_addr32;
    return MB_OK;
}

/* mov of a special register the run loop does not materialise, or in a
 * width it does not provide. Returns 1 when handled (status in *st). */
static int decode_mov_dynamic_sreg(decode_ctx *dc, const mb_insn *insn, xinsn *x, const vopnd *d,
                                   const mb_operand *a, unsigned tb, mb_status *st)
{
    unsigned comp = a->u.sreg.comp;
    int want64 = 0;
    uint64_t value = 0;
    int slot = -1;
    xhandler fn = NULL;
    switch ((mb_sreg)a->u.sreg.id) {
    case MB_SREG_CLOCK:
    case MB_SREG_GLOBALTIMER_LO: fn = h_clock_lo; break;
    case MB_SREG_CLOCK_HI:
    case MB_SREG_GLOBALTIMER_HI: fn = h_clock_hi; break;
    case MB_SREG_CLOCK64:
    case MB_SREG_GLOBALTIMER: fn = h_clock64; want64 = 1; break;
    case MB_SREG_ENVREG: break;
    case MB_SREG_PM: want64 = comp >= 1000; break;
    case MB_SREG_CURRENT_GRAPH_EXEC: want64 = 1; break;
    case MB_SREG_GRIDID:
        if (tb != 64)
            return 0; /* the 32-bit form is a plain special register */
        want64 = 1;
        slot = SS_GRIDID;
        break;
    case MB_SREG_CLUSTERID:
    case MB_SREG_NCLUSTERID:
        if (comp < 1 || comp > 3)
            return 0;
        slot = (a->u.sreg.id == MB_SREG_CLUSTERID ? SS_CTAID_X : SS_NCTAID_X) + (int)comp - 1;
        break;
    case MB_SREG_CLUSTER_CTAID:
    case MB_SREG_CLUSTER_NCTAID:
        if (comp < 1 || comp > 3)
            return 0;
        value = a->u.sreg.id == MB_SREG_CLUSTER_NCTAID;
        break;
    case MB_SREG_CLUSTER_CTARANK:
    case MB_SREG_IS_EXPLICIT_CLUSTER: break;
    case MB_SREG_CLUSTER_NCTARANK: value = 1; break;
    default: return 0;
    }
    if (tb != (want64 ? 64u : 32u) || d->word != tb) {
        *st = decode_unsupported(dc, insn,
                                 want64 ? "this special register is read with a 64-bit mov"
                                        : "this special register is read with a 32-bit mov");
        return 1;
    }
    x->op[0] = d->ref;
    if (fn) {
        x->fn = fn;
        *st = MB_OK;
    } else if (slot >= 0) {
        dc->prog->sreg_used |= 1u << slot;
        x->op[1] = XREF_SREG | (uint32_t)(slot * 32);
        x->fn = want64 ? h_zext32_64 : h_mov32;
        *st = MB_OK;
    } else {
        x->fn = want64 ? h_mov64 : h_mov32;
        *st = decode_const(dc, value, want64, &x->op[1]);
    }
    return 1;
}

/* Vector pack (`a` is a vector) or unpack (`d` is a vector). */
static mb_status decode_mov_vector(decode_ctx *dc, const mb_insn *insn, xinsn *x,
                                   const mb_operand *d, const mb_operand *a, unsigned tb)
{
    const int unpack = d->kind == MB_OPND_VEC;
    const mb_operand *vec = unpack ? d : a, *scalar = unpack ? a : d;
    if (scalar->kind == MB_OPND_VEC)
        return decode_unsupported(dc, insn, "mov between two vectors");
    unsigned n = vec->u.list.count;
    if ((tb != 16 && tb != 32 && tb != 64 && tb != 128) || (n != 2 && n != 4))
        return decode_unsupported(dc, insn, "a vector mov packs 2 or 4 elements into 16 to 128 bits");
    unsigned ew = tb / n;
    unsigned elem_word = ew == 64 ? 64 : 32;
    unsigned scalar_word = tb <= 32 ? 32 : tb;
    /* the scalar */
    vopnd sv;
    mb_status st;
    if (unpack && scalar->kind != MB_OPND_REG && tb <= 64) {
        st = src_operand(dc, insn, scalar, tb == 64 ? MB_TYPE_B64 : MB_TYPE_B32, &sv);
    } else if (scalar->kind == MB_OPND_REG && dc->fn->regs[scalar->u.reg].type != MB_TYPE_PRED) {
        st = MB_OK;
        sv.ref = dc->ef->reg_ref[scalar->u.reg];
        sv.word = decode_reg_bits(dc, scalar);
        sv.bits = reg_decl_bits(dc, scalar);
    } else {
        return decode_unsupported(dc, insn, "the scalar of a vector mov must be a register");
    }
    if (st != MB_OK)
        return st;
    if (sv.word != scalar_word || (!unpack && sv.bits < tb))
        return decode_unsupported(dc, insn,
                                  "the scalar register of a vector mov does not match the type");
    /* the elements */
    const mb_function *fn = dc->fn;
    xref elems[4];
    int nsinks = 0;
    for (unsigned i = 0; i < n; i++) {
        const mb_operand *e = &fn->operands[vec->u.list.first + i];
        if (e->kind == MB_OPND_SINK && unpack) {
            elems[i] = XREF_NONE;
            nsinks++;
            continue;
        }
        if (e->kind == MB_OPND_REG && fn->regs[e->u.reg].type != MB_TYPE_PRED) {
            if (decode_reg_bits(dc, e) != elem_word || reg_decl_bits(dc, e) < ew)
                return decode_unsupported(dc, insn,
                                          "a vector element register does not match the element size");
            elems[i] = dc->ef->reg_ref[e->u.reg];
            continue;
        }
        if (!unpack && (e->kind == MB_OPND_IMM || e->kind == MB_OPND_F32 || e->kind == MB_OPND_F64)) {
            static const mb_ptx_type bt[] = {MB_TYPE_B8, MB_TYPE_B16, MB_TYPE_B32, MB_TYPE_B64};
            mb_ptx_type et = bt[ew == 8 ? 0 : ew == 16 ? 1 : ew == 32 ? 2 : 3];
            st = decode_operand(dc, insn, e, et, &elems[i]);
            if (st != MB_OK)
                return st;
            continue;
        }
        return decode_unsupported(dc, insn, "unsupported vector element");
    }
    if (nsinks == (int)n)
        return decode_unsupported(dc, insn, "every element of the vector is a sink");
    if (unpack) {
        for (unsigned i = 0; i < n; i++)
            x->op[i] = elems[i];
        x->op[n] = sv.ref;
        x->aux = n | ew << 8 | tb << 16;
        x->fn = tb == 64 && n == 2 ? h_unpack_2x32 : tb == 32 && n == 2 ? h_unpack_2x16 : h_unpack_any;
        return MB_OK;
    }
    x->op[0] = sv.ref;
    for (unsigned i = 0; i < n; i++)
        x->op[1 + i] = elems[i];
    x->aux = n | ew << 8 | tb << 16;
    if (tb == 64 && n == 2)
        x->fn = h_pack_2x32;
    else if (tb == 32 && n == 2)
        x->fn = h_pack_2x16;
    else if (tb == 128 && n == 2)
        x->fn = h_pack_2x64;
    else
        x->fn = h_pack_words;
    return MB_OK;
}

static mb_status decode_mov(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    const mb_function *fn = dc->fn;
    for (unsigned i = 0; i < insn->nsuffix; i++)
        if (!(insn->suffix[i] & MB_SUFFIX_TYPE))
            return decode_unsupported(dc, insn, "mov takes no modifiers besides its type");
    if (insn->noperands != 2 || mb_insn_type(insn, 1) != MB_TYPE_NONE)
        return decode_unsupported(dc, insn, "mov takes one type and two operands");
    const mb_ptx_type t = (mb_ptx_type)x->type;
    const mb_operand *d = mb_insn_operand(fn, insn, 0), *a = mb_insn_operand(fn, insn, 1);
    if (t == MB_TYPE_PRED)
        return decode_mov_pred(dc, insn, x, d, a);
    const unsigned tb = type_bits(t);
    if (tb == 0 || mb_type_kind_of(t) == MB_TYPE_KIND_O)
        return decode_unsupported(dc, insn, "mov of this type");
    if (d->kind == MB_OPND_VEC || a->kind == MB_OPND_VEC)
        return decode_mov_vector(dc, insn, x, d, a, tb);
    vopnd dv;
    mb_status st = dst_operand(dc, insn, d, &dv);
    if (st != MB_OK)
        return st;
    if (tb == 128 || dv.word == 128) {
        if (tb != 128 || dv.word != 128 || a->kind != MB_OPND_REG || decode_reg_bits(dc, a) != 128)
            return decode_unsupported(dc, insn, "mov.b128 needs two .b128 registers");
        x->op[0] = dv.ref;
        x->op[1] = dc->ef->reg_ref[a->u.reg];
        x->fn = h_mov128;
        return MB_OK;
    }
    if (dv.bits < tb)
        return decode_unsupported(dc, insn,
                                  "the destination register is narrower than the instruction type");
    const int sgn = type_signed(t);
    vopnd sv;
    switch ((mb_operand_kind)a->kind) {
    case MB_OPND_SYMBOL: return decode_mov_symbol(dc, insn, x, &dv, a, tb);
    case MB_OPND_SREG:
        if (decode_mov_dynamic_sreg(dc, insn, x, &dv, a, tb, &st))
            return st;
        st = src_operand(dc, insn, a, MB_TYPE_U32, &sv);
        if (st != MB_OK)
            return st;
        if (tb > 32)
            return decode_unsupported(dc, insn, "this special register is 32 bits wide");
        return int_move(dc, insn, x, &sv, tb, sgn, &dv, tb, sgn, 0);
    case MB_OPND_IMM:
    case MB_OPND_F32:
    case MB_OPND_F64: {
        /* the final word is known at decode time */
        uint64_t bits;
        int fmt = type_fmt(t);
        if (a->kind != MB_OPND_IMM && (fmt == FMT_F16 || fmt == FMT_BF16)) {
            bits = float_literal_bits(a, fmt);
        } else if ((a->kind == MB_OPND_F32 && tb == 32) || (a->kind == MB_OPND_F64 && tb == 64)) {
            /* 0f/0d literals are exact bit patterns (decode_operand would
             * pass NaNs through the host FPU and quiet signaling ones) */
            bits = a->u.bits;
        } else if (a->kind == MB_OPND_IMM) {
            uint64_t m = width_mask(tb);
            bits = ext(a->u.bits, m, sgn ? UINT64_C(1) << (tb - 1) : 0);
        } else if (tb == dv.word) {
            x->op[0] = dv.ref;
            x->fn = tb == 64 ? h_mov64 : h_mov32;
            return decode_operand(dc, insn, a, t, &x->op[1]);
        } else {
            return decode_unsupported(dc, insn, "float immediate of a different width than its register");
        }
        bits &= width_mask(dv.bits);
        x->op[0] = dv.ref;
        x->fn = dv.word == 64 ? h_mov64 : h_mov32;
        return decode_const(dc, bits, dv.word == 64, &x->op[1]);
    }
    case MB_OPND_REG:
        st = src_operand(dc, insn, a, t, &sv);
        if (st != MB_OK)
            return st;
        if (sv.word == 128)
            return decode_unsupported(dc, insn, "mov of a .b128 register needs mov.b128");
        return int_move(dc, insn, x, &sv, tb, sgn, &dv, tb, sgn, 0);
    default: return decode_unsupported(dc, insn, "unsupported mov source");
    }
}

/* -------------------------------------------------------------- cvt */

/* cvt.pack.sat.{u16,s16}.s32 d, a, b / cvt.pack.sat.{u8,s8,u4,s4}.s32.b32 d, a, b, c */
static mb_status decode_cvt_pack(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    const mb_function *fn = dc->fn;
    const mb_ptx_type ct = (mb_ptx_type)x->type, abt = (mb_ptx_type)x->type2;
    const mb_ptx_type cty = mb_insn_type(insn, 2);
    unsigned size;
    switch (ct) {
    case MB_TYPE_U16: case MB_TYPE_S16: size = 16; break;
    case MB_TYPE_U8: case MB_TYPE_S8: size = 8; break;
    case MB_TYPE_U4: case MB_TYPE_S4: size = 4; break;
    default: return decode_unsupported(dc, insn, "cvt.pack of this type");
    }
    const unsigned want_ops = size == 16 ? 3 : 4;
    if (abt != MB_TYPE_S32 || !(x->mods & XM_SAT) || insn->noperands != want_ops ||
        (size == 16 ? cty != MB_TYPE_NONE : cty != MB_TYPE_B32))
        return decode_unsupported(dc, insn, "this form of cvt.pack");
    vopnd d, v;
    mb_status st = dst_operand(dc, insn, mb_insn_operand(fn, insn, 0), &d);
    if (st != MB_OK)
        return st;
    if (d.word != 32 || d.bits != 32)
        return decode_unsupported(dc, insn, "cvt.pack writes a 32-bit register");
    x->op[0] = d.ref;
    for (unsigned i = 1; i < want_ops; i++) {
        st = src_operand(dc, insn, mb_insn_operand(fn, insn, i), i < 3 ? MB_TYPE_S32 : MB_TYPE_B32, &v);
        if (st != MB_OK)
            return st;
        if (v.word != 32)
            return decode_unsupported(dc, insn, "cvt.pack reads 32-bit operands");
        x->op[i] = v.ref;
    }
    x->aux = size | (uint32_t)type_signed(ct) << 8;
    x->fn = h_cvt_pack;
    return MB_OK;
}

static int is_int_round(int r)
{
    return r == XR_RNI || r == XR_RZI || r == XR_RMI || r == XR_RPI;
}

static int is_float_round(int r)
{
    return r == XR_RN || r == XR_RZ || r == XR_RM || r == XR_RP || r == XR_RNA;
}

static mb_status decode_cvt_insn(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    const mb_function *fn = dc->fn;
    int pack = 0, satfinite = 0;
    for (unsigned i = 0; i < insn->nsuffix; i++) {
        uint16_t s = insn->suffix[i];
        if (s & MB_SUFFIX_TYPE)
            continue;
        switch ((mb_ptx_mod)s) {
        case MB_MOD_RN: case MB_MOD_RZ: case MB_MOD_RM: case MB_MOD_RP: case MB_MOD_RNA:
        case MB_MOD_RNI: case MB_MOD_RZI: case MB_MOD_RMI: case MB_MOD_RPI:
        case MB_MOD_FTZ: case MB_MOD_SAT: case MB_MOD_RELU:
            break;
        case MB_MOD_SATFINITE: satfinite = 1; break;
        case MB_MOD_PACK: pack = 1; break;
        default: return decode_unsupported(dc, insn, "cvt with this modifier is not supported");
        }
    }
    if (pack)
        return decode_cvt_pack(dc, insn, x);
    const mb_ptx_type dt = (mb_ptx_type)x->type, at = (mb_ptx_type)x->type2;
    const int dint = type_is_int(dt), aint = type_is_int(at);
    const int dfmt = dt == MB_TYPE_TF32 ? FMT_TF32 : type_fmt(dt), afmt = type_fmt(at);
    const int dpacked = dt == MB_TYPE_F16X2 || dt == MB_TYPE_BF16X2;
    if ((!dint && dfmt < 0 && !dpacked) || (!aint && afmt < 0) ||
        ((dfmt == FMT_TF32 || dpacked) && at != MB_TYPE_F32))
        return decode_unsupported(dc, insn, "cvt between these types is not supported");
    const int round = x->round;
    const unsigned ftz = (x->mods & XM_FTZ) != 0, sat = (x->mods & XM_SAT) != 0;
    const unsigned relu = (x->mods & XM_RELU) != 0;
    if (mb_insn_type(insn, 2) != MB_TYPE_NONE || at == MB_TYPE_NONE)
        return decode_unsupported(dc, insn, "cvt takes a destination and a source type");
    vopnd d, s;
    mb_status st = dst_operand(dc, insn, mb_insn_operand(fn, insn, 0), &d);
    if (st != MB_OK)
        return st;

    /* two .f32 to packed .f16x2 / .bf16x2 */
    if (dpacked) {
        if (insn->noperands != 3)
            return decode_unsupported(dc, insn, "this packed conversion");
        if (round != XR_RN && round != XR_RZ)
            return decode_unsupported(dc, insn, "packed half conversions need .rn or .rz");
        if (d.word != 32 || d.bits != 32)
            return decode_unsupported(dc, insn, "a packed half conversion writes a 32-bit register");
        x->op[0] = d.ref;
        for (unsigned i = 1; i < 3; i++) {
            st = src_operand(dc, insn, mb_insn_operand(fn, insn, i), MB_TYPE_F32, &s);
            if (st != MB_OK)
                return st;
            if (s.word != 32)
                return decode_unsupported(dc, insn, "an .f32 operand in a 64-bit register");
            x->op[i] = s.ref;
        }
        x->aux2 = (ftz ? CF_FTZ_IN : 0) | (relu ? CF_RELU : 0) | (satfinite ? CF_SATFINITE : 0);
        x->fn = dt == MB_TYPE_F16X2 ? h_x2_FMT_F16 : h_x2_FMT_BF16;
        return MB_OK;
    }
    if (insn->noperands != 2)
        return decode_unsupported(dc, insn, "this form of cvt takes two operands");
    st = src_operand(dc, insn, mb_insn_operand(fn, insn, 1), at, &s);
    if (st != MB_OK)
        return st;
    if (s.word == 128 || d.word == 128)
        return decode_unsupported(dc, insn, "128-bit registers cannot be converted");
    x->op[0] = d.ref;
    x->op[1] = s.ref;
    /* integer to integer */
    if (dint && aint) {
        if (round != XR_DEFAULT)
            return decode_unsupported(dc, insn, "rounding modifiers on an integer conversion");
        return int_move(dc, insn, x, &s, type_bits(at), type_signed(at), &d, type_bits(dt),
                        type_signed(dt), sat);
    }

    /* float operands live in words of their own width */
    const unsigned want_dword = dfmt == FMT_F64 ? 64 : 32;
    const unsigned want_sword = afmt == FMT_F64 ? 64 : 32;
    if (!dint && (d.word != want_dword || d.bits < type_bits(dt)))
        return decode_unsupported(dc, insn, "the destination register does not fit the float type");
    if (!aint && s.word != want_sword)
        return decode_unsupported(dc, insn, "the source register does not fit the float type");

    /* integer to float */
    if (aint) {
        if (is_int_round(round))
            return decode_unsupported(dc, insn, "integer rounding on an integer-to-float conversion");
        x->round = round == XR_DEFAULT ? XR_RN : (uint8_t)round;
        unsigned sw = type_bits(at) < s.word ? type_bits(at) : s.word;
        x->aux = sw | (uint32_t)type_signed(at) << 8;
        x->aux2 = (sat ? CF_SAT : 0) | (relu ? CF_RELU : 0) | (satfinite ? CF_SATFINITE : 0);
        x->fn = I2F_HANDLERS[s.word == 64][dfmt];
        return MB_OK;
    }

    /* float to integer */
    if (dint) {
        if (is_float_round(round))
            return decode_unsupported(dc, insn,
                                      "float-to-integer conversions take .rni, .rzi, .rmi or .rpi");
        x->round = round == XR_DEFAULT ? XR_RZI : (uint8_t)round;
        const unsigned dw = type_bits(dt);
        const int dsgn = type_signed(dt);
        if (d.bits < dw)
            return decode_unsupported(dc, insn,
                                      "the destination register is narrower than the instruction type");
        static const uint8_t ranges[2][4] = {{IR_U8, IR_U16, IR_U32, IR_U64},
                                             {IR_S8, IR_S16, IR_S32, IR_S64}};
        x->aux = ranges[dsgn][dw == 8 ? 0 : dw == 16 ? 1 : dw == 32 ? 2 : 3];
        x->aux2 = (uint32_t)width_mask(d.bits < 32 ? d.bits : 32);
        /* NaN: 0, or 1 << (width - 1) (MININT for signed types) from .f64
         * sources and for 64-bit destinations */
        uint64_t nanval = 0;
        if (afmt == FMT_F64 || dw == 64)
            nanval = dsgn ? UINT64_MAX << (dw - 1) : UINT64_C(1) << (dw - 1);
        x->imm = (int64_t)nanval;
        int dk = d.word == 32 ? 0 : (dt == MB_TYPE_U64 ? 2 : 1);
        x->fn = F2I_HANDLERS[afmt][dk];
        return MB_OK;
    }

    /* float to float */
    unsigned flags = (ftz && afmt == FMT_F32 ? CF_FTZ_IN : 0) |
                     (ftz && dfmt == FMT_F32 ? CF_FTZ_OUT : 0) | (sat ? CF_SAT : 0) |
                     (relu ? CF_RELU : 0) | (satfinite ? CF_SATFINITE : 0);
    if (dfmt == afmt) {
        if (is_int_round(round)) {
            x->aux2 = flags;
            x->fn = RINT_HANDLERS[afmt];
            return MB_OK;
        }
        if (!flags) {
            x->fn = afmt == FMT_F64 ? h_mov64 : h_mov32;
            return MB_OK;
        }
    } else if (is_int_round(round)) {
        return decode_unsupported(dc, insn,
                                  "integer rounding needs the same source and destination type");
    }
    if (dfmt == FMT_TF32 && round != XR_RNA && round != XR_RN && round != XR_RZ)
        return decode_unsupported(dc, insn, "cvt.tf32.f32 needs .rna, .rn or .rz");
    if (dfmt != FMT_TF32 && round == XR_RNA)
        return decode_unsupported(dc, insn, ".rna is only defined for conversions to .tf32");
    x->round = round == XR_DEFAULT ? XR_RN : (uint8_t)round;
    x->aux2 = flags;
    x->fn = F2F_HANDLERS[afmt][dfmt];
    return MB_OK;
}

mb_status decode_cvt(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    decode_common_mods(insn, x);
    if (insn->opcode == MB_OP_MOV)
        return decode_mov(dc, insn, x);
    if (insn->opcode == MB_OP_CVT)
        return decode_cvt_insn(dc, insn, x);
    return decode_unsupported(dc, insn, "not a move or conversion instruction");
}
