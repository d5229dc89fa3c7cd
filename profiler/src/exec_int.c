/* The integer family of the SIMT executor: integer arithmetic (add, sub,
 * mul, mad, the carry chain, 24-bit multiplies, sad, div, rem, abs, neg,
 * min, max), bit manipulation (popc, clz, bfind, fns, brev, bfe, bfi, bmsk,
 * szext, dp4a, dp2a), logic and shifts (and, or, xor, not, cnot, lop3, shf,
 * shl, shr, prmt), and comparison and selection (setp, set, selp, slct,
 * predicate logic).
 *
 * Every form is specialised at decode time: the handler chosen for an
 * instruction knows its type, width and modifiers, so the per-lane loops
 * hold no switches. Value-producing handlers run their full-warp case as a
 * plain 32-iteration loop into a local array (WARP_STORE), which the
 * compiler vectorises without aliasing checks. Immediate operands that
 * steer an operation (shift amounts, bfe/bfi position and length, shf
 * amounts, prmt selectors, the lop3 table) are folded into the handler's
 * constants at decode time, so those loops are branch-free too.
 *
 * Predicate sources may be written negated (!%p) wherever this family reads
 * a predicate (c of setp/set/selp, q of lop3, and/or/xor/not.pred), and
 * predicate immediates 0/1 are accepted; decode_operand ignores the '!'
 * flag, so the decoders here record it.
 *
 * Representation reminders (exec.h): a register of up to 32 bits is a lane
 * array of uint32_t, values narrower than 32 bits are kept zero-extended
 * (16-bit results are masked to 16 bits, signed 16-bit operands are read
 * sign-extended), a 64-bit register is a lane array of uint64_t, predicates
 * are one mask per predicate with a bit per lane. Predicate destinations
 * are written only for the lanes in `mask`.
 *
 * Results PTX leaves unspecified, and what this executor does:
 *   - div by zero: unsigned gives all ones (what NVIDIA hardware does);
 *     signed also gives all ones (-1). rem by zero gives the dividend (for
 *     both signednesses).
 *   - signed div of the most negative value by -1 gives the most negative
 *     value (the quotient wraps); the matching rem gives 0.
 *   - abs and neg of the most negative value give that value.
 *   - fns with a base above 31 (undefined in PTX) gives 0xffffffff.
 *   - mul24/mad24 read only the low 24 bits of a and b (sign-extended from
 *     bit 23 for .s32), as the manual's description of a 24x24-bit product.
 *   - mul and mad without .lo/.hi/.wide are executed as .lo.
 *   - setp/set with .lo/.ls/.hi/.hs compare unsigned whatever the type;
 *     .lt/.le/.gt/.ge on .bN types compare unsigned.
 *   - slct with an .f32 selector: a NaN selector picks b (c >= 0 is false);
 *     -0.0 picks a.
 *   - the carry flag of sub.cc/subc.cc is the borrow: 1 when the
 *     subtraction wrapped (the PTX manual's "borrow-out").
 *   - lop3.and/.or with '_' as d is not reachable: the parser does not
 *     accept '_' inside a d|p pair (setp's p|q likewise).
 * No instruction of this family is approximate: every result is exact
 * (f16/bf16 comparisons convert both operands exactly to f32 first).
 */
#include "exec.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/* ------------------------------------------------------------ scalar helpers */

static inline int32_t S16(uint32_t v)
{
    return (int16_t)(uint16_t)v;
}

static inline uint32_t sat32(int64_t v)
{
    return v > INT32_MAX ? 0x7FFFFFFFu : v < INT32_MIN ? 0x80000000u : (uint32_t)(int32_t)v;
}

static inline float u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline double u2d(uint64_t u)
{
    double d;
    memcpy(&d, &u, 8);
    return d;
}

/* Flushes a subnormal f32 to a zero of the same sign. */
static inline uint32_t ftz32(uint32_t u)
{
    return (u & 0x7F800000u) ? u : (u & 0x80000000u);
}

/* Exact value of an IEEE binary16 (in the low 16 bits); subnormals become
 * signed zeros when `ftz`. */
static inline float h2f(uint32_t h, int ftz)
{
    uint32_t sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    if (e == 0) {
        float v = ftz ? 0.0f : (float)m * 0x1p-24f;
        return sign ? -v : v;
    }
    uint32_t bits = e == 31 ? sign | 0x7F800000u | (m << 13) : sign | ((e + 112) << 23) | (m << 13);
    return u2f(bits);
}

static inline float bf2f(uint32_t h)
{
    return u2f((h & 0xFFFFu) << 16);
}

static inline uint32_t brev32(uint32_t v)
{
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    return __builtin_bswap32(v);
}

static inline uint64_t brev64(uint64_t v)
{
    return ((uint64_t)brev32((uint32_t)v) << 32) | brev32((uint32_t)(v >> 32));
}

static inline uint64_t mulhi_u64(uint64_t a, uint64_t b)
{
    return (uint64_t)(((u128)a * b) >> 64);
}

static inline uint64_t mulhi_s64(uint64_t a, uint64_t b)
{
    return (uint64_t)((u128)((i128)(int64_t)a * (int64_t)b) >> 64);
}

static inline uint32_t mulhi_s32(uint32_t a, uint32_t b)
{
    return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32);
}

/* mul24: the 48-bit product of the low 24 bits of a and b. */
static inline uint64_t prod24_u(uint32_t a, uint32_t b)
{
    return (uint64_t)(a & 0xFFFFFFu) * (b & 0xFFFFFFu);
}

static inline uint64_t prod24_s(uint32_t a, uint32_t b)
{
    int32_t sa = (int32_t)(a << 8) >> 8, sb = (int32_t)(b << 8) >> 8;
    return (uint64_t)((int64_t)sa * sb);
}

/* ---- division: results for the cases PTX leaves unspecified (file comment) */

static inline uint32_t div_u16(uint32_t a, uint32_t b)
{
    return b ? (a & 0xFFFF) / (b & 0xFFFF) : 0xFFFFu;
}

static inline uint32_t div_s16(uint32_t a, uint32_t b)
{
    return S16(b) ? (uint32_t)(S16(a) / S16(b)) & 0xFFFFu : 0xFFFFu;
}

static inline uint32_t div_u32(uint32_t a, uint32_t b)
{
    return b ? a / b : 0xFFFFFFFFu;
}

static inline uint32_t div_s32(uint32_t a, uint32_t b)
{
    if (!b)
        return 0xFFFFFFFFu;
    if (a == 0x80000000u && b == 0xFFFFFFFFu)
        return a;
    return (uint32_t)((int32_t)a / (int32_t)b);
}

static inline uint64_t div_u64(uint64_t a, uint64_t b)
{
    return b ? a / b : UINT64_MAX;
}

static inline uint64_t div_s64(uint64_t a, uint64_t b)
{
    if (!b)
        return UINT64_MAX;
    if (a == UINT64_C(0x8000000000000000) && b == UINT64_MAX)
        return a;
    return (uint64_t)((int64_t)a / (int64_t)b);
}

static inline uint32_t rem_u16(uint32_t a, uint32_t b)
{
    return b ? (a & 0xFFFF) % (b & 0xFFFF) : a & 0xFFFFu;
}

static inline uint32_t rem_s16(uint32_t a, uint32_t b)
{
    return S16(b) ? (uint32_t)(S16(a) % S16(b)) & 0xFFFFu : a & 0xFFFFu;
}

static inline uint32_t rem_u32(uint32_t a, uint32_t b)
{
    return b ? a % b : a;
}

static inline uint32_t rem_s32(uint32_t a, uint32_t b)
{
    if (!b)
        return a;
    if (b == 0xFFFFFFFFu)
        return 0;
    return (uint32_t)((int32_t)a % (int32_t)b);
}

static inline uint64_t rem_u64(uint64_t a, uint64_t b)
{
    return b ? a % b : a;
}

static inline uint64_t rem_s64(uint64_t a, uint64_t b)
{
    if (!b)
        return a;
    if (b == UINT64_MAX)
        return 0;
    return (uint64_t)((int64_t)a % (int64_t)b);
}

/* ---- packed 16-bit pairs */

static inline uint32_t add_x2(uint32_t a, uint32_t b)
{
    return ((a + b) & 0xFFFFu) | ((a & 0xFFFF0000u) + (b & 0xFFFF0000u));
}

static inline uint32_t sub_x2(uint32_t a, uint32_t b)
{
    return ((a - b) & 0xFFFFu) | ((a & 0xFFFF0000u) - (b & 0xFFFF0000u));
}

static inline uint32_t pack2(uint32_t lo, uint32_t hi)
{
    return (lo & 0xFFFFu) | (hi << 16);
}

static inline uint32_t min_u16x2(uint32_t a, uint32_t b)
{
    uint32_t al = a & 0xFFFF, bl = b & 0xFFFF, ah = a >> 16, bh = b >> 16;
    return pack2(al < bl ? al : bl, ah < bh ? ah : bh);
}

static inline uint32_t max_u16x2(uint32_t a, uint32_t b)
{
    uint32_t al = a & 0xFFFF, bl = b & 0xFFFF, ah = a >> 16, bh = b >> 16;
    return pack2(al > bl ? al : bl, ah > bh ? ah : bh);
}

static inline uint32_t relu16(int32_t v, int relu)
{
    return (uint32_t)(relu && v < 0 ? 0 : v) & 0xFFFFu;
}

static inline uint32_t min_s16x2(uint32_t a, uint32_t b, int relu)
{
    int32_t al = S16(a), bl = S16(b), ah = S16(a >> 16), bh = S16(b >> 16);
    return pack2(relu16(al < bl ? al : bl, relu), relu16(ah < bh ? ah : bh, relu));
}

static inline uint32_t max_s16x2(uint32_t a, uint32_t b, int relu)
{
    int32_t al = S16(a), bl = S16(b), ah = S16(a >> 16), bh = S16(b >> 16);
    return pack2(relu16(al > bl ? al : bl, relu), relu16(ah > bh ? ah : bh, relu));
}

static inline uint32_t min_s32(uint32_t a, uint32_t b, int relu)
{
    int32_t r = (int32_t)a < (int32_t)b ? (int32_t)a : (int32_t)b;
    return (uint32_t)(relu && r < 0 ? 0 : r);
}

static inline uint32_t max_s32(uint32_t a, uint32_t b, int relu)
{
    int32_t r = (int32_t)a > (int32_t)b ? (int32_t)a : (int32_t)b;
    return (uint32_t)(relu && r < 0 ? 0 : r);
}

/* ---- shifts: amounts above the width are clamped to the width */

static inline uint32_t shl16(uint32_t a, uint32_t n)
{
    return n >= 16 ? 0 : (a << n) & 0xFFFFu;
}

static inline uint32_t shl32(uint32_t a, uint32_t n)
{
    return n >= 32 ? 0 : a << n;
}

static inline uint64_t shl64(uint64_t a, uint32_t n)
{
    return n >= 64 ? 0 : a << n;
}

static inline uint32_t shr_u16(uint32_t a, uint32_t n)
{
    return n >= 16 ? 0 : (a & 0xFFFFu) >> n;
}

static inline uint32_t shr_s16(uint32_t a, uint32_t n)
{
    return (uint32_t)(S16(a) >> (n > 15 ? 15 : n)) & 0xFFFFu;
}

static inline uint32_t shr_u32(uint32_t a, uint32_t n)
{
    return n >= 32 ? 0 : a >> n;
}

static inline uint32_t shr_s32(uint32_t a, uint32_t n)
{
    return (uint32_t)((int32_t)a >> (n > 31 ? 31 : n));
}

static inline uint64_t shr_u64(uint64_t a, uint32_t n)
{
    return n >= 64 ? 0 : a >> n;
}

static inline uint64_t shr_s64(uint64_t a, uint32_t n)
{
    return (uint64_t)((int64_t)a >> (n > 63 ? 63 : n));
}

/* shf: funnel shift of the 64-bit value {b, a} by n (0..32). */
static inline uint32_t shf_l(uint32_t a, uint32_t b, uint32_t n)
{
    return (uint32_t)(((((uint64_t)b << 32) | a) << n) >> 32);
}

static inline uint32_t shf_r(uint32_t a, uint32_t b, uint32_t n)
{
    return (uint32_t)((((uint64_t)b << 32) | a) >> n);
}

static inline uint32_t clamp32(uint32_t n)
{
    return n > 32 ? 32 : n;
}

/* ---- bit fields */

static inline uint32_t bfind32(uint32_t a, int shiftamt)
{
    if (!a)
        return 0xFFFFFFFFu;
    return shiftamt ? (uint32_t)__builtin_clz(a) : 31u - (uint32_t)__builtin_clz(a);
}

static inline uint32_t bfind64(uint64_t a, int shiftamt)
{
    if (!a)
        return 0xFFFFFFFFu;
    return shiftamt ? (uint32_t)__builtin_clzll(a) : 63u - (uint32_t)__builtin_clzll(a);
}

/* bfe.u32: the bits above the source are zeros, so the field is the
 * source shifted down (to nothing for pos >= 32) masked to len bits. */
static inline uint32_t bfe_u32(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t pos = b & 0xFF, len = c & 0xFF;
    uint64_t f = (uint64_t)a >> (pos < 32 ? pos : 32);
    return (uint32_t)(f & ((UINT64_C(1) << (len < 32 ? len : 32)) - 1));
}

/* bfe.s32: with the source sign-extended to 64 bits, every bit position
 * past the msb reads the msb, which is what the manual's definition puts
 * there; the field then sign-extends from its bit len-1. */
static inline uint32_t bfe_s32(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t pos = b & 0xFF, len = c & 0xFF;
    uint32_t f = (uint32_t)((int64_t)(int32_t)a >> (pos < 63 ? pos : 63));
    uint32_t sh = 32 - (len < 32 ? len : 32);
    uint32_t r = (uint32_t)((int32_t)(f << (sh & 31)) >> (sh & 31));
    return len ? r : 0;
}

static inline uint64_t bfe_u64(uint64_t a, uint32_t b, uint32_t c)
{
    uint32_t pos = b & 0xFF, len = c & 0xFF;
    if (len == 0 || pos > 63)
        return 0;
    uint32_t n = len < 64 - pos ? len : 64 - pos;
    uint64_t f = a >> pos;
    return n >= 64 ? f : f & ((UINT64_C(1) << n) - 1);
}

static inline uint64_t bfe_s64(uint64_t a, uint32_t b, uint32_t c)
{
    uint32_t pos = b & 0xFF, len = c & 0xFF;
    uint64_t f = (uint64_t)((int64_t)a >> (pos < 63 ? pos : 63));
    uint32_t sh = 64 - (len < 64 ? len : 64);
    uint64_t r = (uint64_t)((int64_t)(f << (sh & 63)) >> (sh & 63));
    return len ? r : 0;
}

/* bfi.b32: the inserted bits are a len-bit mask moved to pos and cut at
 * the msb (empty for len 0 or pos >= 32). */
static inline uint32_t bfi32(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    uint32_t pos = c & 0xFF, len = d & 0xFF;
    uint32_t p = pos < 32 ? pos : 32;
    uint32_t m = (uint32_t)(((UINT64_C(1) << (len < 32 ? len : 32)) - 1) << p);
    return (b & ~m) | ((uint32_t)((uint64_t)a << p) & m);
}

static inline uint64_t bfi64(uint64_t a, uint64_t b, uint32_t c, uint32_t d)
{
    uint32_t pos = c & 0xFF, len = d & 0xFF;
    if (len == 0 || pos > 63)
        return b;
    uint32_t n = len < 64 - pos ? len : 64 - pos;
    uint64_t m = (n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1) << pos;
    return (b & ~m) | ((a << pos) & m);
}

/* fns: position of the |offset|-th set bit of `m` counting from `base`
 * upwards (offset > 0) or downwards (offset < 0). */
static inline uint32_t fns32(uint32_t m, uint32_t base, uint32_t offset)
{
    int32_t off = (int32_t)offset;
    if (base > 31)
        return 0xFFFFFFFFu;
    if (off == 0)
        return (m >> base) & 1 ? base : 0xFFFFFFFFu;
    if (off > 0) {
        m &= 0xFFFFFFFFu << base;
        if ((uint32_t)off > mb_popcount32(m))
            return 0xFFFFFFFFu;
        for (int32_t k = 1; k < off; k++)
            m &= m - 1;
        return (uint32_t)__builtin_ctz(m);
    }
    m &= (uint32_t)((UINT64_C(2) << base) - 1);
    uint32_t n = off == INT32_MIN ? 0x80000000u : (uint32_t)-off;
    if (n > mb_popcount32(m))
        return 0xFFFFFFFFu;
    for (uint32_t k = 1; k < n; k++)
        m &= ~(0x80000000u >> __builtin_clz(m));
    return 31u - (uint32_t)__builtin_clz(m);
}

/* bmsk, following the manual's pseudocode. */
static inline uint32_t bmsk32(uint32_t a, uint32_t b, int clamp)
{
    uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
    uint32_t mask0 = 0xFFFFFFFFu << a1, mask1;
    int overflow = sum >= 32;
    if (clamp) {
        if (a >= 32) {
            overflow = 1;
            mask0 = 0;
        }
        if (b >= 32)
            overflow = 1;
    }
    if (overflow)
        mask1 = 0;
    else if (b1 == 0)
        mask1 = 0xFFFFFFFFu;
    else
        mask1 = 0xFFFFFFFFu << sum;
    return mask0 & ~mask1;
}

/* szext, following the manual's pseudocode. */
static inline uint32_t szext32(uint32_t a, uint32_t b, int clamp, int is_signed)
{
    uint32_t b1 = b & 31;
    int too_large = clamp && b >= 32;
    uint32_t mask = too_large ? 0 : 0xFFFFFFFFu << b1;
    uint32_t sbit = 0;
    if (b1 != 0 && !too_large && is_signed)
        sbit = (a >> ((b1 - 1) & 31)) & 1;
    return (a & ~mask) | (sbit ? mask : 0);
}

/* ---- dot products */

static inline int32_t byte_of(uint32_t v, int i, int is_signed)
{
    uint32_t b = (v >> (8 * i)) & 0xFF;
    return is_signed ? (int8_t)(uint8_t)b : (int32_t)b;
}

static inline int32_t half_of(uint32_t v, int i, int is_signed)
{
    uint32_t h = (v >> (16 * i)) & 0xFFFF;
    return is_signed ? (int16_t)(uint16_t)h : (int32_t)h;
}

static inline uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, int sa, int sb)
{
    uint32_t d = c;
    for (int i = 0; i < 4; i++)
        d += (uint32_t)(byte_of(a, i, sa) * byte_of(b, i, sb));
    return d;
}

static inline uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, int sa, int sb, int hi)
{
    uint32_t d = c;
    for (int i = 0; i < 2; i++)
        d += (uint32_t)(half_of(a, i, sa) * byte_of(b, (hi ? 2 : 0) + i, sb));
    return d;
}

/* ---- prmt */

/* Byte permute of {b, a} by four selector nibbles; a selector with bit 3
 * set replicates the sign of the chosen byte. */
static inline uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel)
{
    /* a 16-entry byte table: entries 0-7 are the bytes of {b, a}, entries
     * 8-15 their sign fills, so a selector nibble indexes it directly */
    uint64_t src = ((uint64_t)b << 32) | a;
    uint64_t fill = ((src >> 7) & UINT64_C(0x0101010101010101)) * 0xFF;
    uint8_t t[16];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(t, &src, 8);
    memcpy(t + 8, &fill, 8);
#else
    for (int k = 0; k < 8; k++) {
        t[k] = (uint8_t)(src >> (8 * k));
        t[8 + k] = (uint8_t)(fill >> (8 * k));
    }
#endif
    return t[sel & 15] | (uint32_t)t[(sel >> 4) & 15] << 8 | (uint32_t)t[(sel >> 8) & 15] << 16 |
           (uint32_t)t[(sel >> 12) & 15] << 24;
}


/* Selectors of the special modes, indexed by c[1:0] (PTX manual table;
 * nibble i gives the source byte of destination byte i). */
static const uint16_t PRMT_MODE_SEL[6][4] = {
    {0x3210, 0x4321, 0x5432, 0x6543}, /* .f4e  forward 4 extract */
    {0x5670, 0x6701, 0x7012, 0x0123}, /* .b4e  backward 4 extract */
    {0x0000, 0x1111, 0x2222, 0x3333}, /* .rc8  replicate 8 */
    {0x3210, 0x3211, 0x3222, 0x3333}, /* .ecl  edge clamp left */
    {0x0000, 0x1110, 0x2210, 0x3210}, /* .ecr  edge clamp right */
    {0x1010, 0x3232, 0x1010, 0x3232}  /* .rc16 replicate 16 */
};

/* ---- lop3: bitwise 3-input function from an 8-bit table, as muxes */

/* s ? one : zero, bitwise */
static inline uint32_t mux(uint32_t s, uint32_t one, uint32_t zero)
{
    return zero ^ (s & (one ^ zero));
}

/* ------------------------------------------------------ handler templates */

#define LANES(T, r) ((T *)(void *)xr32(w, (r)))

/* Runs `LOADS` then d_[l] = EXPR for the lanes of `mask`. A full warp
 * computes into a local array and copies it out: the loop then carries no
 * possible aliasing between the destination and the sources (which may be
 * the same register), so the compiler vectorises it without run-time
 * checks. Partial masks visit only their lanes, as FOR_LANES does. */
#define WARP_STORE(DT, d_, mask, LOADS, EXPR)                                                      \
    do {                                                                                           \
        if ((mask) == 0xFFFFFFFFu) {                                                               \
            DT t_[32];                                                                             \
            for (int l = 0; l < 32; l++) {                                                         \
                LOADS                                                                              \
                t_[l] = (DT)(EXPR);                                                                \
            }                                                                                      \
            memcpy((d_), t_, sizeof(t_));                                                          \
        } else {                                                                                   \
            for (uint32_t m_ = (mask); m_; m_ &= m_ - 1) {                                         \
                int l = __builtin_ctz(m_);                                                         \
                LOADS                                                                              \
                (d_)[l] = (DT)(EXPR);                                                              \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* d = EXPR(a) */
#define DEF_UN(name, DT, AT, EXPR)                                                                 \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        DT *d_ = LANES(DT, x->op[0]);                                                              \
        const AT *a_ = LANES(const AT, x->op[1]);                                                  \
        WARP_STORE(DT, d_, mask, AT a = a_[l];, EXPR);                                             \
        return EXEC_NEXT;                                                                          \
    }

/* d = EXPR(a, b) */
#define DEF_BIN(name, DT, AT, BT, EXPR)                                                            \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        DT *d_ = LANES(DT, x->op[0]);                                                              \
        const AT *a_ = LANES(const AT, x->op[1]);                                                  \
        const BT *b_ = LANES(const BT, x->op[2]);                                                  \
        WARP_STORE(DT, d_, mask, AT a = a_[l]; BT b = b_[l];, EXPR);                               \
        return EXEC_NEXT;                                                                          \
    }

/* d = EXPR(a, b, c) */
#define DEF_TER(name, DT, AT, BT, CT, EXPR)                                                        \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        DT *d_ = LANES(DT, x->op[0]);                                                              \
        const AT *a_ = LANES(const AT, x->op[1]);                                                  \
        const BT *b_ = LANES(const BT, x->op[2]);                                                  \
        const CT *c_ = LANES(const CT, x->op[3]);                                                  \
        WARP_STORE(DT, d_, mask, AT a = a_[l]; BT b = b_[l]; CT c = c_[l];, EXPR);                 \
        return EXEC_NEXT;                                                                          \
    }

/* Forms with decode-time constants: k = x->aux, k2 = x->aux2 (an
 * immediate shift amount, field position and length, ...). */
#define DEF_UN_K(name, DT, AT, EXPR)                                                               \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        DT *d_ = LANES(DT, x->op[0]);                                                              \
        const AT *a_ = LANES(const AT, x->op[1]);                                                  \
        const uint32_t k = x->aux, k2 = x->aux2;                                                   \
        (void)k, (void)k2;                                                                         \
        WARP_STORE(DT, d_, mask, AT a = a_[l];, EXPR);                                             \
        return EXEC_NEXT;                                                                          \
    }

#define DEF_BIN_K(name, DT, AT, BT, EXPR)                                                          \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        DT *d_ = LANES(DT, x->op[0]);                                                              \
        const AT *a_ = LANES(const AT, x->op[1]);                                                  \
        const BT *b_ = LANES(const BT, x->op[2]);                                                  \
        const uint32_t k = x->aux, k2 = x->aux2;                                                   \
        (void)k, (void)k2;                                                                         \
        WARP_STORE(DT, d_, mask, AT a = a_[l]; BT b = b_[l];, EXPR);                               \
        return EXEC_NEXT;                                                                          \
    }

#define T32 uint32_t
#define T64 uint64_t

/* ---------------------------------------------------------- add, sub */

DEF_BIN(h_add16, T32, T32, T32, (a + b) & 0xFFFFu)
DEF_BIN(h_add32, T32, T32, T32, a + b)
DEF_BIN(h_add64, T64, T64, T64, a + b)
DEF_BIN(h_add_sat, T32, T32, T32, sat32((int64_t)(int32_t)a + (int32_t)b))
DEF_BIN(h_add_x2, T32, T32, T32, add_x2(a, b))
DEF_BIN(h_sub16, T32, T32, T32, (a - b) & 0xFFFFu)
DEF_BIN(h_sub32, T32, T32, T32, a - b)
DEF_BIN(h_sub64, T64, T64, T64, a - b)
DEF_BIN(h_sub_sat, T32, T32, T32, sat32((int64_t)(int32_t)a - (int32_t)b))
DEF_BIN(h_sub_x2, T32, T32, T32, sub_x2(a, b))

/* ------------------------------------------------------------- mul, mad */

DEF_BIN(h_mul_lo16, T32, T32, T32, (a * b) & 0xFFFFu)
DEF_BIN(h_mul_lo32, T32, T32, T32, a * b)
DEF_BIN(h_mul_lo64, T64, T64, T64, a * b)
DEF_BIN(h_mul_hi_u16, T32, T32, T32, ((a & 0xFFFF) * (b & 0xFFFF)) >> 16)
DEF_BIN(h_mul_hi_s16, T32, T32, T32, (uint32_t)((S16(a) * S16(b)) >> 16) & 0xFFFFu)
DEF_BIN(h_mul_hi_u32, T32, T32, T32, ((uint64_t)a * b) >> 32)
DEF_BIN(h_mul_hi_s32, T32, T32, T32, mulhi_s32(a, b))
DEF_BIN(h_mul_hi_u64, T64, T64, T64, mulhi_u64(a, b))
DEF_BIN(h_mul_hi_s64, T64, T64, T64, mulhi_s64(a, b))
DEF_BIN(h_mul_wide_u16, T32, T32, T32, (a & 0xFFFF) * (b & 0xFFFF))
DEF_BIN(h_mul_wide_s16, T32, T32, T32, (uint32_t)(S16(a) * S16(b)))
DEF_BIN(h_mul_wide_u32, T64, T32, T32, (uint64_t)a * b)
DEF_BIN(h_mul_wide_s32, T64, T32, T32, (uint64_t)((int64_t)(int32_t)a * (int32_t)b))

DEF_TER(h_mad_lo16, T32, T32, T32, T32, (a * b + c) & 0xFFFFu)
DEF_TER(h_mad_lo32, T32, T32, T32, T32, a * b + c)
DEF_TER(h_mad_lo64, T64, T64, T64, T64, a * b + c)
DEF_TER(h_mad_hi_u16, T32, T32, T32, T32, ((((a & 0xFFFF) * (b & 0xFFFF)) >> 16) + c) & 0xFFFFu)
DEF_TER(h_mad_hi_s16, T32, T32, T32, T32, ((uint32_t)((S16(a) * S16(b)) >> 16) + c) & 0xFFFFu)
DEF_TER(h_mad_hi_u32, T32, T32, T32, T32, (uint32_t)(((uint64_t)a * b) >> 32) + c)
DEF_TER(h_mad_hi_s32, T32, T32, T32, T32, mulhi_s32(a, b) + c)
DEF_TER(h_mad_hi_sat_s32, T32, T32, T32, T32, sat32((int64_t)(int32_t)mulhi_s32(a, b) + (int32_t)c))
DEF_TER(h_mad_hi_u64, T64, T64, T64, T64, mulhi_u64(a, b) + c)
DEF_TER(h_mad_hi_s64, T64, T64, T64, T64, mulhi_s64(a, b) + c)
DEF_TER(h_mad_wide_u16, T32, T32, T32, T32, (a & 0xFFFF) * (b & 0xFFFF) + c)
DEF_TER(h_mad_wide_s16, T32, T32, T32, T32, (uint32_t)(S16(a) * S16(b)) + c)
DEF_TER(h_mad_wide_u32, T64, T32, T32, T64, (uint64_t)a * b + c)
DEF_TER(h_mad_wide_s32, T64, T32, T32, T64, (uint64_t)((int64_t)(int32_t)a * (int32_t)b) + c)

/* ---------------------------------------------------------- mul24, mad24 */

DEF_BIN(h_mul24_lo_u, T32, T32, T32, (uint32_t)prod24_u(a, b))
DEF_BIN(h_mul24_hi_u, T32, T32, T32, (uint32_t)(prod24_u(a, b) >> 16))
DEF_BIN(h_mul24_lo_s, T32, T32, T32, (uint32_t)prod24_s(a, b))
DEF_BIN(h_mul24_hi_s, T32, T32, T32, (uint32_t)(prod24_s(a, b) >> 16))
DEF_TER(h_mad24_lo_u, T32, T32, T32, T32, (uint32_t)prod24_u(a, b) + c)
DEF_TER(h_mad24_hi_u, T32, T32, T32, T32, (uint32_t)(prod24_u(a, b) >> 16) + c)
DEF_TER(h_mad24_lo_s, T32, T32, T32, T32, (uint32_t)prod24_s(a, b) + c)
DEF_TER(h_mad24_hi_s, T32, T32, T32, T32, (uint32_t)(prod24_s(a, b) >> 16) + c)
DEF_TER(h_mad24_hi_sat, T32, T32, T32, T32,
        sat32((int64_t)(int32_t)(uint32_t)(prod24_s(a, b) >> 16) + (int32_t)c))

/* ------------------------------------------------------------------ sad */

DEF_TER(h_sad_u16, T32, T32, T32, T32, (c + (a < b ? b - a : a - b)) & 0xFFFFu)
DEF_TER(h_sad_s16, T32, T32, T32, T32, (c + (uint32_t)(S16(a) < S16(b) ? S16(b) - S16(a) : S16(a) - S16(b))) & 0xFFFFu)
DEF_TER(h_sad_u32, T32, T32, T32, T32, c + (a < b ? b - a : a - b))
DEF_TER(h_sad_s32, T32, T32, T32, T32, c + ((int32_t)a < (int32_t)b ? b - a : a - b))
DEF_TER(h_sad_u64, T64, T64, T64, T64, c + (a < b ? b - a : a - b))
DEF_TER(h_sad_s64, T64, T64, T64, T64, c + ((int64_t)a < (int64_t)b ? b - a : a - b))

/* -------------------------------------------------------------- div, rem */

DEF_BIN(h_div_u16, T32, T32, T32, div_u16(a, b))
DEF_BIN(h_div_s16, T32, T32, T32, div_s16(a, b))
DEF_BIN(h_div_u32, T32, T32, T32, div_u32(a, b))
DEF_BIN(h_div_s32, T32, T32, T32, div_s32(a, b))
DEF_BIN(h_div_u64, T64, T64, T64, div_u64(a, b))
DEF_BIN(h_div_s64, T64, T64, T64, div_s64(a, b))
DEF_BIN(h_rem_u16, T32, T32, T32, rem_u16(a, b))
DEF_BIN(h_rem_s16, T32, T32, T32, rem_s16(a, b))
DEF_BIN(h_rem_u32, T32, T32, T32, rem_u32(a, b))
DEF_BIN(h_rem_s32, T32, T32, T32, rem_s32(a, b))
DEF_BIN(h_rem_u64, T64, T64, T64, rem_u64(a, b))
DEF_BIN(h_rem_s64, T64, T64, T64, rem_s64(a, b))

/* -------------------------------------------------------------- abs, neg */

DEF_UN(h_abs_s16, T32, T32, (S16(a) < 0 ? 0u - a : a) & 0xFFFFu)
DEF_UN(h_abs_s32, T32, T32, (int32_t)a < 0 ? 0u - a : a)
DEF_UN(h_abs_s64, T64, T64, (int64_t)a < 0 ? 0u - a : a)
DEF_UN(h_neg16, T32, T32, (0u - a) & 0xFFFFu)
DEF_UN(h_neg32, T32, T32, 0u - a)
DEF_UN(h_neg64, T64, T64, 0u - a)

/* -------------------------------------------------------------- min, max */

DEF_BIN(h_min_u16, T32, T32, T32, (a & 0xFFFF) < (b & 0xFFFF) ? a : b)
DEF_BIN(h_min_s16, T32, T32, T32, S16(a) < S16(b) ? a : b)
DEF_BIN(h_min_u32, T32, T32, T32, a < b ? a : b)
DEF_BIN(h_min_s32, T32, T32, T32, min_s32(a, b, 0))
DEF_BIN(h_min_relu_s32, T32, T32, T32, min_s32(a, b, 1))
DEF_BIN(h_min_u64, T64, T64, T64, a < b ? a : b)
DEF_BIN(h_min_s64, T64, T64, T64, (int64_t)a < (int64_t)b ? a : b)
DEF_BIN(h_min_u16x2, T32, T32, T32, min_u16x2(a, b))
DEF_BIN(h_min_s16x2, T32, T32, T32, min_s16x2(a, b, 0))
DEF_BIN(h_min_relu_s16x2, T32, T32, T32, min_s16x2(a, b, 1))
DEF_BIN(h_max_u16, T32, T32, T32, (a & 0xFFFF) > (b & 0xFFFF) ? a : b)
DEF_BIN(h_max_s16, T32, T32, T32, S16(a) > S16(b) ? a : b)
DEF_BIN(h_max_u32, T32, T32, T32, a > b ? a : b)
DEF_BIN(h_max_s32, T32, T32, T32, max_s32(a, b, 0))
DEF_BIN(h_max_relu_s32, T32, T32, T32, max_s32(a, b, 1))
DEF_BIN(h_max_u64, T64, T64, T64, a > b ? a : b)
DEF_BIN(h_max_s64, T64, T64, T64, (int64_t)a > (int64_t)b ? a : b)
DEF_BIN(h_max_u16x2, T32, T32, T32, max_u16x2(a, b))
DEF_BIN(h_max_s16x2, T32, T32, T32, max_s16x2(a, b, 0))
DEF_BIN(h_max_relu_s16x2, T32, T32, T32, max_s16x2(a, b, 1))

/* ---------------------------------------------------- popc, clz, brev, bfind */

DEF_UN(h_popc32, T32, T32, mb_popcount32(a))
DEF_UN(h_popc64, T32, T64, mb_popcount64(a))
DEF_UN(h_clz32, T32, T32, a ? (uint32_t)__builtin_clz(a) : 32u)
DEF_UN(h_clz64, T32, T64, a ? (uint32_t)__builtin_clzll(a) : 64u)
DEF_UN(h_brev32, T32, T32, brev32(a))
DEF_UN(h_brev64, T64, T64, brev64(a))
DEF_UN(h_bfind_u32, T32, T32, bfind32(a, 0))
DEF_UN(h_bfind_s32, T32, T32, bfind32((int32_t)a < 0 ? ~a : a, 0))
DEF_UN(h_bfind_u64, T32, T64, bfind64(a, 0))
DEF_UN(h_bfind_s64, T32, T64, bfind64((int64_t)a < 0 ? ~a : a, 0))
DEF_UN(h_bfind_sa_u32, T32, T32, bfind32(a, 1))
DEF_UN(h_bfind_sa_s32, T32, T32, bfind32((int32_t)a < 0 ? ~a : a, 1))
DEF_UN(h_bfind_sa_u64, T32, T64, bfind64(a, 1))
DEF_UN(h_bfind_sa_s64, T32, T64, bfind64((int64_t)a < 0 ? ~a : a, 1))

/* ------------------------------------------- fns, bfe, bfi, bmsk, szext */

DEF_TER(h_fns, T32, T32, T32, T32, fns32(a, b, c))
DEF_TER(h_bfe_u32, T32, T32, T32, T32, bfe_u32(a, b, c))
DEF_TER(h_bfe_s32, T32, T32, T32, T32, bfe_s32(a, b, c))
DEF_TER(h_bfe_u64, T64, T64, T32, T32, bfe_u64(a, b, c))
DEF_TER(h_bfe_s64, T64, T64, T32, T32, bfe_s64(a, b, c))
DEF_BIN(h_bmsk_clamp, T32, T32, T32, bmsk32(a, b, 1))
DEF_BIN(h_bmsk_wrap, T32, T32, T32, bmsk32(a, b, 0))
DEF_BIN(h_szext_clamp_u, T32, T32, T32, szext32(a, b, 1, 0))
DEF_BIN(h_szext_clamp_s, T32, T32, T32, szext32(a, b, 1, 1))
DEF_BIN(h_szext_wrap_u, T32, T32, T32, szext32(a, b, 0, 0))
DEF_BIN(h_szext_wrap_s, T32, T32, T32, szext32(a, b, 0, 1))

#define DEF_BFI(name, T, F)                                                                        \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        T *d_ = LANES(T, x->op[0]);                                                                \
        const T *a_ = LANES(const T, x->op[1]);                                                    \
        const T *b_ = LANES(const T, x->op[2]);                                                    \
        const uint32_t *c_ = LANES(const uint32_t, x->op[3]);                                      \
        const uint32_t *e_ = LANES(const uint32_t, x->op[4]);                                      \
        WARP_STORE(T, d_, mask, , F(a_[l], b_[l], c_[l], e_[l]));                                  \
        return EXEC_NEXT;                                                                          \
    }
DEF_BFI(h_bfi32, uint32_t, bfi32)
DEF_BFI(h_bfi64, uint64_t, bfi64)

/* bfe/bfi with immediate position (k) and length (k2) */
DEF_UN_K(h_bfe_u32_k, T32, T32, bfe_u32(a, k, k2))
DEF_UN_K(h_bfe_s32_k, T32, T32, bfe_s32(a, k, k2))
DEF_UN_K(h_bfe_u64_k, T64, T64, bfe_u64(a, k, k2))
DEF_UN_K(h_bfe_s64_k, T64, T64, bfe_s64(a, k, k2))
DEF_BIN_K(h_bfi32_k, T32, T32, T32, bfi32(a, b, k, k2))
DEF_BIN_K(h_bfi64_k, T64, T64, T64, bfi64(a, b, k, k2))

/* ------------------------------------------------------------ dp4a, dp2a */

DEF_TER(h_dp4a_uu, T32, T32, T32, T32, dp4a(a, b, c, 0, 0))
DEF_TER(h_dp4a_us, T32, T32, T32, T32, dp4a(a, b, c, 0, 1))
DEF_TER(h_dp4a_su, T32, T32, T32, T32, dp4a(a, b, c, 1, 0))
DEF_TER(h_dp4a_ss, T32, T32, T32, T32, dp4a(a, b, c, 1, 1))
DEF_TER(h_dp2a_lo_uu, T32, T32, T32, T32, dp2a(a, b, c, 0, 0, 0))
DEF_TER(h_dp2a_lo_us, T32, T32, T32, T32, dp2a(a, b, c, 0, 1, 0))
DEF_TER(h_dp2a_lo_su, T32, T32, T32, T32, dp2a(a, b, c, 1, 0, 0))
DEF_TER(h_dp2a_lo_ss, T32, T32, T32, T32, dp2a(a, b, c, 1, 1, 0))
DEF_TER(h_dp2a_hi_uu, T32, T32, T32, T32, dp2a(a, b, c, 0, 0, 1))
DEF_TER(h_dp2a_hi_us, T32, T32, T32, T32, dp2a(a, b, c, 0, 1, 1))
DEF_TER(h_dp2a_hi_su, T32, T32, T32, T32, dp2a(a, b, c, 1, 0, 1))
DEF_TER(h_dp2a_hi_ss, T32, T32, T32, T32, dp2a(a, b, c, 1, 1, 1))

/* ------------------------------------------------------ logic and shifts */

DEF_BIN(h_and32, T32, T32, T32, a & b)
DEF_BIN(h_and64, T64, T64, T64, a & b)
DEF_BIN(h_or32, T32, T32, T32, a | b)
DEF_BIN(h_or64, T64, T64, T64, a | b)
DEF_BIN(h_xor32, T32, T32, T32, a ^ b)
DEF_BIN(h_xor64, T64, T64, T64, a ^ b)
DEF_UN(h_not16, T32, T32, ~a & 0xFFFFu)
DEF_UN(h_not32, T32, T32, ~a)
DEF_UN(h_not64, T64, T64, ~a)
DEF_UN(h_cnot16, T32, T32, (a & 0xFFFFu) == 0)
DEF_UN(h_cnot32, T32, T32, a == 0)
DEF_UN(h_cnot64, T64, T64, a == 0)

DEF_BIN(h_shl16, T32, T32, T32, shl16(a, b))
DEF_BIN(h_shl32, T32, T32, T32, shl32(a, b))
DEF_BIN(h_shl64, T64, T64, T32, shl64(a, b))
DEF_BIN(h_shr_u16, T32, T32, T32, shr_u16(a, b))
DEF_BIN(h_shr_s16, T32, T32, T32, shr_s16(a, b))
DEF_BIN(h_shr_u32, T32, T32, T32, shr_u32(a, b))
DEF_BIN(h_shr_s32, T32, T32, T32, shr_s32(a, b))
DEF_BIN(h_shr_u64, T64, T64, T32, shr_u64(a, b))
DEF_BIN(h_shr_s64, T64, T64, T32, shr_s64(a, b))

/* immediate shift amounts (k, already clamped to the width at decode;
 * amounts that shift everything out use h_zero*) */
DEF_UN_K(h_shl16_k, T32, T32, (a << k) & 0xFFFFu)
DEF_UN_K(h_shl32_k, T32, T32, a << k)
DEF_UN_K(h_shl64_k, T64, T64, a << k)
DEF_UN_K(h_shr_u16_k, T32, T32, (a & 0xFFFFu) >> k)
DEF_UN_K(h_shr_s16_k, T32, T32, (uint32_t)(S16(a) >> k) & 0xFFFFu)
DEF_UN_K(h_shr_u32_k, T32, T32, a >> k)
DEF_UN_K(h_shr_s32_k, T32, T32, (uint32_t)((int32_t)a >> k))
DEF_UN_K(h_shr_u64_k, T64, T64, a >> k)
DEF_UN_K(h_shr_s64_k, T64, T64, (uint64_t)((int64_t)a >> k))
DEF_UN_K(h_zero32, T32, T32, 0 * a)
DEF_UN_K(h_zero64, T64, T64, 0 * a)

/* shf with an immediate amount (k, clamped or wrapped at decode) */
DEF_BIN_K(h_shf_l_k, T32, T32, T32, shf_l(a, b, k))
DEF_BIN_K(h_shf_r_k, T32, T32, T32, shf_r(a, b, k))

DEF_TER(h_shf_l_clamp, T32, T32, T32, T32, shf_l(a, b, clamp32(c)))
DEF_TER(h_shf_l_wrap, T32, T32, T32, T32, shf_l(a, b, c & 31))
DEF_TER(h_shf_r_clamp, T32, T32, T32, T32, shf_r(a, b, clamp32(c)))
DEF_TER(h_shf_r_wrap, T32, T32, T32, T32, shf_r(a, b, c & 31))

/* prmt of every lane of `mask` by one selector: each destination byte is
 * a loop-invariant choice of word (a or b) and byte, moved to the top of
 * the word and shifted down arithmetically by 24 (the byte) or 31 (its
 * sign), so the loop is plain 32-bit arithmetic that vectorises. */
static void prmt_uniform(uint32_t *d_, const uint32_t *a_, const uint32_t *b_, uint32_t mask,
                         uint32_t sel)
{
    uint32_t am[4], bm[4], ls[4], rs[4];
    for (int i = 0; i < 4; i++) {
        uint32_t n = (sel >> (4 * i)) & 0xF;
        am[i] = (n & 4) ? 0 : 0xFFFFFFFFu;
        bm[i] = ~am[i];
        ls[i] = 24 - 8 * (n & 3);
        rs[i] = (n & 8) ? 31 : 24;
    }
#define PRMT_PICK(i)                                                                               \
    (((uint32_t)((int32_t)(((a & am[i]) | (b & bm[i])) << ls[i]) >> rs[i]) & 0xFFu) << (8 * i))
    WARP_STORE(uint32_t, d_, mask, uint32_t a = a_[l]; uint32_t b = b_[l];,
               PRMT_PICK(0) | PRMT_PICK(1) | PRMT_PICK(2) | PRMT_PICK(3));
#undef PRMT_PICK
}

/* prmt with a selector register: when every lane has the same selector
 * (the usual case) the uniform path runs, else the per-lane byte table */
static exec_result h_prmt(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d_ = LANES(uint32_t, x->op[0]);
    const uint32_t *a_ = LANES(const uint32_t, x->op[1]);
    const uint32_t *b_ = LANES(const uint32_t, x->op[2]);
    const uint32_t *c_ = LANES(const uint32_t, x->op[3]);
    if (!mask)
        return EXEC_NEXT;
    uint32_t c0 = c_[__builtin_ctz(mask)] & 0xFFFF, diff = 0;
    FOR_LANES(mask, l, diff |= (c_[l] & 0xFFFF) ^ c0);
    if (!diff) {
        prmt_uniform(d_, a_, b_, mask, c0);
        return EXEC_NEXT;
    }
    WARP_STORE(uint32_t, d_, mask, , prmt(a_[l], b_[l], c_[l]));
    return EXEC_NEXT;
}

static exec_result h_prmt_mode(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d_ = LANES(uint32_t, x->op[0]);
    const uint32_t *a_ = LANES(const uint32_t, x->op[1]);
    const uint32_t *b_ = LANES(const uint32_t, x->op[2]);
    const uint32_t *c_ = LANES(const uint32_t, x->op[3]);
    const uint16_t *sel = PRMT_MODE_SEL[x->aux];
    WARP_STORE(uint32_t, d_, mask, , prmt(a_[l], b_[l], sel[c_[l] & 3]));
    return EXEC_NEXT;
}

/* prmt with an immediate selector (x->aux) */
static exec_result h_prmt_imm(exec_warp *w, const xinsn *x, uint32_t mask)
{
    prmt_uniform(LANES(uint32_t, x->op[0]), LANES(const uint32_t, x->op[1]),
                 LANES(const uint32_t, x->op[2]), mask, x->aux);
    return EXEC_NEXT;
}

/* lop3: x->aux is the 8-bit table (bit (a<<2 | b<<1 | c) of it is the
 * result for those input bits). */
#define LOP3_SETUP                                                                                 \
    uint32_t t_[8];                                                                                \
    for (int i = 0; i < 8; i++)                                                                    \
        t_[i] = (x->aux >> i) & 1 ? 0xFFFFFFFFu : 0;                                               \
    const uint32_t k76_ = t_[7] ^ t_[6], k54_ = t_[5] ^ t_[4], k32_ = t_[3] ^ t_[2],               \
                   k10_ = t_[1] ^ t_[0], t6_ = t_[6], t4_ = t_[4], t2_ = t_[2], t0_ = t_[0];
/* the innermost muxes choose between constants: t ^ (c & k) */
#define LOP3(a, b, c)                                                                              \
    mux((a), mux((b), t6_ ^ ((c) & k76_), t4_ ^ ((c) & k54_)),                                     \
        mux((b), t2_ ^ ((c) & k32_), t0_ ^ ((c) & k10_)))

static exec_result h_lop3(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d_ = LANES(uint32_t, x->op[0]);
    const uint32_t *a_ = LANES(const uint32_t, x->op[1]);
    const uint32_t *b_ = LANES(const uint32_t, x->op[2]);
    const uint32_t *c_ = LANES(const uint32_t, x->op[3]);
    LOP3_SETUP
    WARP_STORE(uint32_t, d_, mask, , LOP3(a_[l], b_[l], c_[l]));
    return EXEC_NEXT;
}

/* ----------------------------------------------------------- predicates */

static inline void write_pred(exec_warp *w, xref p, uint32_t value, uint32_t mask)
{
    if (p == XREF_NONE)
        return;
    uint32_t *dst = &w->preds[XREF_INDEX(p)];
    *dst = (*dst & ~mask) | (value & mask);
}

/* Boolean combine of setp/set/lop3: x->aux2 bits 0-1: 0 none, 1 and, 2 or,
 * 3 xor; bit 2: the predicate operand is negated. */
enum { BOOL_NONE = 0, BOOL_AND = 1, BOOL_OR = 2, BOOL_XOR = 3, BOOL_NEG = 4 };

static inline uint32_t bool_op(uint32_t kind, uint32_t t, uint32_t c)
{
    switch (kind & 3) {
    case BOOL_AND: return t & c;
    case BOOL_OR: return t | c;
    case BOOL_XOR: return t ^ c;
    default: return t;
    }
}

static inline uint32_t bool_operand(exec_warp *w, const xinsn *x, xref r)
{
    if (!(x->aux2 & 3))
        return 0;
    return xpred(w, r) ^ ((x->aux2 & BOOL_NEG) ? 0xFFFFFFFFu : 0);
}

/* lop3.BoolOp: d = F(a, b, c) and p = (d != 0) BoolOp q; ops: d, p, a, b, c, q */
static exec_result h_lop3_pred(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d_ = x->op[0] == XREF_NONE ? NULL : LANES(uint32_t, x->op[0]);
    const uint32_t *a_ = LANES(const uint32_t, x->op[2]);
    const uint32_t *b_ = LANES(const uint32_t, x->op[3]);
    const uint32_t *c_ = LANES(const uint32_t, x->op[4]);
    LOP3_SETUP
    uint32_t nz = 0;
    FOR_LANES(mask, l, {
        uint32_t r = LOP3(a_[l], b_[l], c_[l]);
        if (d_)
            d_[l] = r;
        nz |= (uint32_t)(r != 0) << l;
    });
    write_pred(w, x->op[1], bool_op(x->aux2, nz, bool_operand(w, x, x->op[5])), mask);
    return EXEC_NEXT;
}

/* .pred logic: x->aux / x->aux2 are the negation masks of a and b. */
static exec_result h_pand(exec_warp *w, const xinsn *x, uint32_t mask)
{
    write_pred(w, x->op[0], (xpred(w, x->op[1]) ^ x->aux) & (xpred(w, x->op[2]) ^ x->aux2), mask);
    return EXEC_NEXT;
}

static exec_result h_por(exec_warp *w, const xinsn *x, uint32_t mask)
{
    write_pred(w, x->op[0], (xpred(w, x->op[1]) ^ x->aux) | (xpred(w, x->op[2]) ^ x->aux2), mask);
    return EXEC_NEXT;
}

static exec_result h_pxor(exec_warp *w, const xinsn *x, uint32_t mask)
{
    write_pred(w, x->op[0], (xpred(w, x->op[1]) ^ x->aux) ^ (xpred(w, x->op[2]) ^ x->aux2), mask);
    return EXEC_NEXT;
}

static exec_result h_pnot(exec_warp *w, const xinsn *x, uint32_t mask)
{
    write_pred(w, x->op[0], ~(xpred(w, x->op[1]) ^ x->aux), mask);
    return EXEC_NEXT;
}

/* ------------------------------------------------------------ comparisons */

/* A comparison evaluates a CmpOp for the lanes of `mask` on op[2] and
 * op[3] and returns the result bits (bits 32-63: the upper halves of the
 * packed .f16x2/.bf16x2 forms). */
typedef uint64_t (*cmp_fn)(exec_warp *w, const xinsn *x, uint32_t mask);

enum {
    CO_EQ, CO_NE, CO_LT, CO_LE, CO_GT, CO_GE,
    CO_EQU, CO_NEU, CO_LTU, CO_LEU, CO_GTU, CO_GEU, CO_NUM, CO_UNORD,
    CO_COUNT
};

enum {
    CC_U16, CC_S16, CC_U32, CC_S32, CC_U64, CC_S64,
    CC_F32, CC_F32FTZ, CC_F64, CC_F16, CC_F16FTZ, CC_BF16,
    CC_F16X2, CC_F16X2FTZ, CC_BF16X2,
    CC_COUNT
};

/* per class: lane word type, value type, load of one value */
#define WT_U16 uint32_t
#define WT_S16 uint32_t
#define WT_U32 uint32_t
#define WT_S32 uint32_t
#define WT_U64 uint64_t
#define WT_S64 uint64_t
#define WT_F32 uint32_t
#define WT_F32FTZ uint32_t
#define WT_F64 uint64_t
#define WT_F16 uint32_t
#define WT_F16FTZ uint32_t
#define WT_BF16 uint32_t
#define WT_F16X2 uint32_t
#define WT_F16X2FTZ uint32_t
#define WT_BF16X2 uint32_t
#define VT_U16 uint32_t
#define VT_S16 int32_t
#define VT_U32 uint32_t
#define VT_S32 int32_t
#define VT_U64 uint64_t
#define VT_S64 int64_t
#define VT_F32 float
#define VT_F32FTZ float
#define VT_F64 double
#define VT_F16 float
#define VT_F16FTZ float
#define VT_BF16 float
#define VT_F16X2 float
#define VT_F16X2FTZ float
#define VT_BF16X2 float
#define LD_U16(v) ((v) & 0xFFFFu)
#define LD_S16(v) S16(v)
#define LD_U32(v) (v)
#define LD_S32(v) ((int32_t)(v))
#define LD_U64(v) (v)
#define LD_S64(v) ((int64_t)(v))
#define LD_F32(v) u2f(v)
#define LD_F32FTZ(v) u2f(ftz32(v))
#define LD_F64(v) u2d(v)
#define LD_F16(v) h2f((v) & 0xFFFFu, 0)
#define LD_F16FTZ(v) h2f((v) & 0xFFFFu, 1)
#define LD_BF16(v) bf2f(v)
#define LD_F16X2(v) h2f((v) & 0xFFFFu, 0)
#define LD_F16X2FTZ(v) h2f((v) & 0xFFFFu, 1)
#define LD_BF16X2(v) bf2f(v)

#define DEF_CMP1(C, OP, COND)                                                                      \
    static uint64_t cmp_##C##_##OP(exec_warp *w, const xinsn *x, uint32_t mask)                   \
    {                                                                                              \
        const WT_##C *pa = LANES(const WT_##C, x->op[2]);                                          \
        const WT_##C *pb = LANES(const WT_##C, x->op[3]);                                          \
        uint32_t bits = 0;                                                                         \
        FOR_LANES(mask, l, {                                                                       \
            VT_##C va = LD_##C(pa[l]);                                                             \
            VT_##C vb = LD_##C(pb[l]);                                                             \
            bits |= (uint32_t)(COND) << l;                                                         \
        });                                                                                        \
        return bits;                                                                               \
    }

#define DEF_CMP2(C, OP, COND)                                                                      \
    static uint64_t cmp_##C##_##OP(exec_warp *w, const xinsn *x, uint32_t mask)                   \
    {                                                                                              \
        const uint32_t *pa = LANES(const uint32_t, x->op[2]);                                      \
        const uint32_t *pb = LANES(const uint32_t, x->op[3]);                                      \
        uint32_t lo = 0, hi = 0;                                                                   \
        FOR_LANES(mask, l, {                                                                       \
            {                                                                                      \
                VT_##C va = LD_##C(pa[l]);                                                         \
                VT_##C vb = LD_##C(pb[l]);                                                         \
                lo |= (uint32_t)(COND) << l;                                                       \
            }                                                                                      \
            {                                                                                      \
                VT_##C va = LD_##C(pa[l] >> 16);                                                   \
                VT_##C vb = LD_##C(pb[l] >> 16);                                                   \
                hi |= (uint32_t)(COND) << l;                                                       \
            }                                                                                      \
        });                                                                                        \
        return lo | ((uint64_t)hi << 32);                                                          \
    }

/* Integer compares (unsigned classes compare unsigned). */
#define INT_CMPS(X, C)                                                                             \
    X(C, EQ, va == vb)                                                                             \
    X(C, NE, va != vb)                                                                             \
    X(C, LT, va < vb)                                                                              \
    X(C, LE, va <= vb)                                                                             \
    X(C, GT, va > vb)                                                                              \
    X(C, GE, va >= vb)

/* Float compares: the plain ones are false when either input is NaN, the
 * U forms true; num: neither is NaN; nan (UNORD): either is. */
#define FLT_CMPS(X, C)                                                                             \
    X(C, EQ, va == vb)                                                                             \
    X(C, NE, va < vb || va > vb)                                                                   \
    X(C, LT, va < vb)                                                                              \
    X(C, LE, va <= vb)                                                                             \
    X(C, GT, va > vb)                                                                              \
    X(C, GE, va >= vb)                                                                             \
    X(C, EQU, !(va < vb || va > vb))                                                               \
    X(C, NEU, !(va == vb))                                                                         \
    X(C, LTU, !(va >= vb))                                                                         \
    X(C, LEU, !(va > vb))                                                                          \
    X(C, GTU, !(va <= vb))                                                                         \
    X(C, GEU, !(va < vb))                                                                          \
    X(C, NUM, !isnan(va) && !isnan(vb))                                                            \
    X(C, UNORD, isnan(va) || isnan(vb))

INT_CMPS(DEF_CMP1, U16)
INT_CMPS(DEF_CMP1, S16)
INT_CMPS(DEF_CMP1, U32)
INT_CMPS(DEF_CMP1, S32)
INT_CMPS(DEF_CMP1, U64)
INT_CMPS(DEF_CMP1, S64)
FLT_CMPS(DEF_CMP1, F32)
FLT_CMPS(DEF_CMP1, F32FTZ)
FLT_CMPS(DEF_CMP1, F64)
FLT_CMPS(DEF_CMP1, F16)
FLT_CMPS(DEF_CMP1, F16FTZ)
FLT_CMPS(DEF_CMP1, BF16)
FLT_CMPS(DEF_CMP2, F16X2)
FLT_CMPS(DEF_CMP2, F16X2FTZ)
FLT_CMPS(DEF_CMP2, BF16X2)

#define CMP_ENTRY(C, OP, COND) [CO_##OP] = cmp_##C##_##OP,
static const cmp_fn CMP_TABLE[CC_COUNT][CO_COUNT] = {
    [CC_U16] = {INT_CMPS(CMP_ENTRY, U16)},
    [CC_S16] = {INT_CMPS(CMP_ENTRY, S16)},
    [CC_U32] = {INT_CMPS(CMP_ENTRY, U32)},
    [CC_S32] = {INT_CMPS(CMP_ENTRY, S32)},
    [CC_U64] = {INT_CMPS(CMP_ENTRY, U64)},
    [CC_S64] = {INT_CMPS(CMP_ENTRY, S64)},
    [CC_F32] = {FLT_CMPS(CMP_ENTRY, F32)},
    [CC_F32FTZ] = {FLT_CMPS(CMP_ENTRY, F32FTZ)},
    [CC_F64] = {FLT_CMPS(CMP_ENTRY, F64)},
    [CC_F16] = {FLT_CMPS(CMP_ENTRY, F16)},
    [CC_F16FTZ] = {FLT_CMPS(CMP_ENTRY, F16FTZ)},
    [CC_BF16] = {FLT_CMPS(CMP_ENTRY, BF16)},
    [CC_F16X2] = {FLT_CMPS(CMP_ENTRY, F16X2)},
    [CC_F16X2FTZ] = {FLT_CMPS(CMP_ENTRY, F16X2FTZ)},
    [CC_BF16X2] = {FLT_CMPS(CMP_ENTRY, BF16X2)},
};

/* x->aux: class << 8 | compare op */
static inline uint64_t run_cmp(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return CMP_TABLE[x->aux >> 8][x->aux & 0xFF](w, x, mask);
}

/* setp: ops p, q (either may be XREF_NONE), a, b, c */
static exec_result h_setp(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t t = (uint32_t)run_cmp(w, x, mask);
    uint32_t c = bool_operand(w, x, x->op[4]);
    write_pred(w, x->op[0], bool_op(x->aux2, t, c), mask);
    write_pred(w, x->op[1], bool_op(x->aux2, ~t, c), mask);
    return EXEC_NEXT;
}

/* setp on .f16x2/.bf16x2: p gets the lower halves, q the upper halves */
static exec_result h_setp_x2(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t t = run_cmp(w, x, mask);
    uint32_t c = bool_operand(w, x, x->op[4]);
    write_pred(w, x->op[0], bool_op(x->aux2, (uint32_t)t, c), mask);
    write_pred(w, x->op[1], bool_op(x->aux2, (uint32_t)(t >> 32), c), mask);
    return EXEC_NEXT;
}

/* set: ops d, -, a, b, c; x->imm is the value written for true */
static exec_result h_set(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t t = bool_op(x->aux2, (uint32_t)run_cmp(w, x, mask), bool_operand(w, x, x->op[4]));
    uint32_t *d_ = LANES(uint32_t, x->op[0]);
    uint32_t one = (uint32_t)x->imm;
    WARP_STORE(uint32_t, d_, mask, , ((t >> l) & 1) ? one : 0);
    return EXEC_NEXT;
}

/* set on .f16x2/.bf16x2 sources: one 16-bit result per half (x->imm) */
static exec_result h_set_x2(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint64_t r = run_cmp(w, x, mask);
    uint32_t c = bool_operand(w, x, x->op[4]);
    uint32_t lo = bool_op(x->aux2, (uint32_t)r, c), hi = bool_op(x->aux2, (uint32_t)(r >> 32), c);
    uint32_t *d_ = LANES(uint32_t, x->op[0]);
    uint32_t one = (uint32_t)x->imm & 0xFFFFu;
    WARP_STORE(uint32_t, d_, mask, , (((lo >> l) & 1) ? one : 0) | (((hi >> l) & 1) ? one << 16 : 0));
    return EXEC_NEXT;
}

/* ------------------------------------------------------------ selection */

/* selp: ops d, a, b, c; x->aux is the negation mask of c */
#define DEF_SELP(name, T)                                                                          \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        T *d_ = LANES(T, x->op[0]);                                                                \
        const T *a_ = LANES(const T, x->op[1]);                                                    \
        const T *b_ = LANES(const T, x->op[2]);                                                    \
        uint32_t c = xpred(w, x->op[3]) ^ x->aux;                                                  \
        WARP_STORE(T, d_, mask, , ((c >> l) & 1) ? a_[l] : b_[l]);                                 \
        return EXEC_NEXT;                                                                          \
    }
DEF_SELP(h_selp32, uint32_t)
DEF_SELP(h_selp64, uint64_t)

DEF_TER(h_slct32_s, T32, T32, T32, T32, (int32_t)c >= 0 ? a : b)
DEF_TER(h_slct32_f, T32, T32, T32, T32, u2f(c) >= 0.0f ? a : b)
DEF_TER(h_slct32_fz, T32, T32, T32, T32, u2f(ftz32(c)) >= 0.0f ? a : b)
DEF_TER(h_slct64_s, T64, T64, T64, T32, (int32_t)c >= 0 ? a : b)
DEF_TER(h_slct64_f, T64, T64, T64, T32, u2f(c) >= 0.0f ? a : b)
DEF_TER(h_slct64_fz, T64, T64, T64, T32, u2f(ftz32(c)) >= 0.0f ? a : b)

/* --------------------------------------------------------- carry chain */

/* add.cc, addc{.cc}, sub.cc, subc{.cc}: ops d, a, b; w->carry per lane.
 * CIN: use the carry flag; COUT: write it. */
#define DEF_ADDC(name, T, WIDE, BITS, CIN, COUT)                                                   \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        T *d_ = LANES(T, x->op[0]);                                                                \
        const T *a_ = LANES(const T, x->op[1]);                                                    \
        const T *b_ = LANES(const T, x->op[2]);                                                    \
        uint32_t *cf = w->carry;                                                                   \
        FOR_LANES(mask, l, {                                                                       \
            WIDE s = (WIDE)a_[l] + b_[l] + ((CIN) ? cf[l] : 0);                                    \
            d_[l] = (T)s;                                                                          \
            if (COUT)                                                                              \
                cf[l] = (uint32_t)(s >> BITS);                                                     \
        });                                                                                        \
        return EXEC_NEXT;                                                                          \
    }
#define DEF_SUBC(name, T, WIDE, BITS, CIN, COUT)                                                   \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        T *d_ = LANES(T, x->op[0]);                                                                \
        const T *a_ = LANES(const T, x->op[1]);                                                    \
        const T *b_ = LANES(const T, x->op[2]);                                                    \
        uint32_t *cf = w->carry;                                                                   \
        FOR_LANES(mask, l, {                                                                       \
            WIDE s = (WIDE)a_[l] - b_[l] - ((CIN) ? cf[l] : 0);                                    \
            d_[l] = (T)s;                                                                          \
            if (COUT)                                                                              \
                cf[l] = (uint32_t)(s >> BITS) & 1;                                                 \
        });                                                                                        \
        return EXEC_NEXT;                                                                          \
    }
DEF_ADDC(h_add_cc32, uint32_t, uint64_t, 32, 0, 1)
DEF_ADDC(h_addc32, uint32_t, uint64_t, 32, 1, 0)
DEF_ADDC(h_addc_cc32, uint32_t, uint64_t, 32, 1, 1)
DEF_ADDC(h_add_cc64, uint64_t, u128, 64, 0, 1)
DEF_ADDC(h_addc64, uint64_t, u128, 64, 1, 0)
DEF_ADDC(h_addc_cc64, uint64_t, u128, 64, 1, 1)
DEF_SUBC(h_sub_cc32, uint32_t, uint64_t, 32, 0, 1)
DEF_SUBC(h_subc32, uint32_t, uint64_t, 32, 1, 0)
DEF_SUBC(h_subc_cc32, uint32_t, uint64_t, 32, 1, 1)
DEF_SUBC(h_sub_cc64, uint64_t, u128, 64, 0, 1)
DEF_SUBC(h_subc64, uint64_t, u128, 64, 1, 0)
DEF_SUBC(h_subc_cc64, uint64_t, u128, 64, 1, 1)

/* mad{c}.lo/.hi{.cc}: d = part(a * b) + c (+ carry); ops d, a, b, c */
#define DEF_MADC(name, T, WIDE, BITS, PART, CIN, COUT)                                             \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        T *d_ = LANES(T, x->op[0]);                                                                \
        const T *a_ = LANES(const T, x->op[1]);                                                    \
        const T *b_ = LANES(const T, x->op[2]);                                                    \
        const T *c_ = LANES(const T, x->op[3]);                                                    \
        uint32_t *cf = w->carry;                                                                   \
        FOR_LANES(mask, l, {                                                                       \
            T a = a_[l];                                                                           \
            T b = b_[l];                                                                           \
            WIDE s = (WIDE)(T)(PART) + c_[l] + ((CIN) ? cf[l] : 0);                                \
            d_[l] = (T)s;                                                                          \
            if (COUT)                                                                              \
                cf[l] = (uint32_t)(s >> BITS);                                                     \
        });                                                                                        \
        return EXEC_NEXT;                                                                          \
    }
#define DEF_MADC_SET(sfx, T, WIDE, BITS, PART)                                                     \
    DEF_MADC(h_mad_cc_##sfx, T, WIDE, BITS, PART, 0, 1)                                            \
    DEF_MADC(h_madc_##sfx, T, WIDE, BITS, PART, 1, 0)                                              \
    DEF_MADC(h_madc_cc_##sfx, T, WIDE, BITS, PART, 1, 1)
DEF_MADC_SET(lo32, uint32_t, uint64_t, 32, a * b)
DEF_MADC_SET(hi_u32, uint32_t, uint64_t, 32, ((uint64_t)a * b) >> 32)
DEF_MADC_SET(hi_s32, uint32_t, uint64_t, 32, mulhi_s32(a, b))
DEF_MADC_SET(lo64, uint64_t, u128, 64, a * b)
DEF_MADC_SET(hi_u64, uint64_t, u128, 64, mulhi_u64(a, b))
DEF_MADC_SET(hi_s64, uint64_t, u128, 64, mulhi_s64(a, b))

/* ================================================================ decoding */

static unsigned type_bits(mb_ptx_type t)
{
    return mb_type_size(t) * 8;
}

static int is_signed(mb_ptx_type t)
{
    return mb_type_kind_of(t) == MB_TYPE_KIND_S;
}

static unsigned count_types(const mb_insn *insn)
{
    unsigned n = 0;
    for (unsigned i = 0; i < insn->nsuffix; i++)
        n += (insn->suffix[i] & MB_SUFFIX_TYPE) != 0;
    return n;
}

/* Nonzero when every modifier of the instruction is one of `ok`. */
static int mods_only(const mb_insn *insn, const mb_ptx_mod *ok, size_t n)
{
    for (unsigned i = 0; i < insn->nsuffix; i++) {
        uint16_t s = insn->suffix[i];
        if (s & MB_SUFFIX_TYPE)
            continue;
        size_t k = 0;
        while (k < n && (uint16_t)ok[k] != s)
            k++;
        if (k == n)
            return 0;
    }
    return 1;
}

#define MODS_ONLY(insn, ...)                                                                       \
    mods_only((insn), (const mb_ptx_mod[]){MB_MOD_NONE, __VA_ARGS__},                              \
              sizeof((const mb_ptx_mod[]){MB_MOD_NONE, __VA_ARGS__}) / sizeof(mb_ptx_mod))
#define NO_MODS(insn) mods_only((insn), NULL, 0)

static int has(const mb_insn *insn, mb_ptx_mod m)
{
    return mb_insn_has_mod(insn, m);
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        mb_status st_ = (expr);                                                                    \
        if (st_ != MB_OK)                                                                          \
            return st_;                                                                            \
    } while (0)

static const mb_operand *opnd(const decode_ctx *dc, const mb_insn *insn, unsigned i)
{
    return mb_insn_operand(dc->fn, insn, i);
}

/* A value destination: a register of the right width. */
static mb_status dst(decode_ctx *dc, const mb_insn *insn, unsigned i, mb_ptx_type t, xref *out)
{
    const mb_operand *o = opnd(dc, insn, i);
    if (o->kind != MB_OPND_REG)
        return decode_unsupported(dc, insn, "the destination must be a register");
    return decode_operand(dc, insn, o, t, out);
}

static mb_status src(decode_ctx *dc, const mb_insn *insn, unsigned i, mb_ptx_type t, xref *out)
{
    const mb_operand *o = opnd(dc, insn, i);
    if (o->flags & MB_OPND_NOT)
        return decode_unsupported(dc, insn, "'!' applies only to predicate operands");
    return decode_operand(dc, insn, o, t, out);
}

/* A predicate source (register, 0/1 literal, or !%p): its reference and
 * whether it is negated. */
static mb_status psrc(decode_ctx *dc, const mb_insn *insn, unsigned i, xref *out, int *neg)
{
    const mb_operand *o = opnd(dc, insn, i);
    *neg = (o->flags & MB_OPND_NOT) != 0;
    if (o->kind != MB_OPND_REG && o->kind != MB_OPND_IMM)
        return decode_unsupported(dc, insn, "expected a predicate operand");
    return decode_operand(dc, insn, o, MB_TYPE_PRED, out);
}

static mb_status pred_reg(decode_ctx *dc, const mb_insn *insn, uint32_t reg, xref *out)
{
    if (reg == MB_PAIR_SINK) { /* the '_' side of a %a|_ pair */
        *out = XREF_NONE;
        return MB_OK;
    }
    if (reg >= dc->fn->nregs || dc->fn->regs[reg].type != MB_TYPE_PRED)
        return decode_unsupported(dc, insn, "the destination must be a predicate register");
    *out = dc->ef->reg_ref[reg];
    return MB_OK;
}

/* A predicate destination: a predicate register or '_'. */
static mb_status pdst(decode_ctx *dc, const mb_insn *insn, unsigned i, xref *out)
{
    const mb_operand *o = opnd(dc, insn, i);
    if (o->kind == MB_OPND_SINK) {
        *out = XREF_NONE;
        return MB_OK;
    }
    if (o->kind != MB_OPND_REG || (o->flags & MB_OPND_NOT))
        return decode_unsupported(dc, insn, "the destination must be a predicate register");
    return pred_reg(dc, insn, o->u.reg, out);
}

/* Decodes the common "d, a[, b[, c]]" shape: all of type t. */
static mb_status ops_same(decode_ctx *dc, const mb_insn *insn, xinsn *x, unsigned n, mb_ptx_type t)
{
    TRY(dst(dc, insn, 0, t, &x->op[0]));
    for (unsigned i = 1; i < n; i++)
        TRY(src(dc, insn, i, t, &x->op[i]));
    x->nops = (uint8_t)n;
    return MB_OK;
}

/* Operand types given per position. */
static mb_status ops_typed(decode_ctx *dc, const mb_insn *insn, xinsn *x, unsigned n,
                           const mb_ptx_type *types)
{
    TRY(dst(dc, insn, 0, types[0], &x->op[0]));
    for (unsigned i = 1; i < n; i++)
        TRY(src(dc, insn, i, types[i], &x->op[i]));
    x->nops = (uint8_t)n;
    return MB_OK;
}

#define OPS_TYPED(dc, insn, x, ...)                                                                \
    ops_typed((dc), (insn), (x),                                                                   \
              sizeof((const mb_ptx_type[]){__VA_ARGS__}) / sizeof(mb_ptx_type),                    \
              (const mb_ptx_type[]){__VA_ARGS__})

static mb_status bad_type(decode_ctx *dc, const mb_insn *insn)
{
    return decode_unsupported(dc, insn, "this type is not supported for the instruction");
}

static mb_status bad_mods(decode_ctx *dc, const mb_insn *insn)
{
    return decode_unsupported(dc, insn, "unsupported modifier combination");
}

/* Which of four handlers fits an integer type: 16-bit unsigned/bits,
 * 16-bit signed, 32 u/b, 32 s, 64 u/b, 64 s. Index into a 6-entry table. */
static int int_slot(mb_ptx_type t)
{
    switch (t) {
    case MB_TYPE_U16: case MB_TYPE_B16: return 0;
    case MB_TYPE_S16: return 1;
    case MB_TYPE_U32: case MB_TYPE_B32: return 2;
    case MB_TYPE_S32: return 3;
    case MB_TYPE_U64: case MB_TYPE_B64: return 4;
    case MB_TYPE_S64: return 5;
    default: return -1;
    }
}

/* A 6-way handler choice for the integer types u16..s64 (b types allowed
 * only when `bits_ok`). */
static mb_status pick6(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t, int bits_ok,
                       const xhandler h[6])
{
    int s = int_slot(t);
    if (s < 0 || (!bits_ok && mb_type_kind_of(t) == MB_TYPE_KIND_B) || !h[s])
        return bad_type(dc, insn);
    x->fn = h[s];
    return MB_OK;
}

/* ---------------------------------------------------------------- add/sub */

static mb_status decode_carry(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    static const xhandler add[2][3] = {{h_add_cc32, h_addc32, h_addc_cc32},
                                       {h_add_cc64, h_addc64, h_addc_cc64}};
    static const xhandler sub[2][3] = {{h_sub_cc32, h_subc32, h_subc_cc32},
                                       {h_sub_cc64, h_subc64, h_subc_cc64}};
    if (t != MB_TYPE_U32 && t != MB_TYPE_S32 && t != MB_TYPE_U64 && t != MB_TYPE_S64)
        return bad_type(dc, insn);
    if (!MODS_ONLY(insn, MB_MOD_CC))
        return bad_mods(dc, insn);
    int w64 = type_bits(t) == 64;
    int cc = has(insn, MB_MOD_CC);
    int k;
    switch ((mb_opcode)insn->opcode) {
    case MB_OP_ADD: k = 0; break;             /* add.cc */
    case MB_OP_SUB: k = 0; break;             /* sub.cc */
    default: k = cc ? 2 : 1; break;           /* addc / subc */
    }
    int is_sub = insn->opcode == MB_OP_SUB || insn->opcode == MB_OP_SUBC;
    x->fn = is_sub ? sub[w64][k] : add[w64][k];
    return ops_same(dc, insn, x, 3, t);
}

static mb_status decode_addsub(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    int is_sub = insn->opcode == MB_OP_SUB;
    if (has(insn, MB_MOD_CC))
        return decode_carry(dc, insn, x, t);
    if (!MODS_ONLY(insn, MB_MOD_SAT))
        return bad_mods(dc, insn);
    if (has(insn, MB_MOD_SAT)) {
        if (t != MB_TYPE_S32)
            return decode_unsupported(dc, insn, ".sat applies only to .s32");
        x->fn = is_sub ? h_sub_sat : h_add_sat;
    } else if (t == MB_TYPE_U16X2 || t == MB_TYPE_S16X2) {
        x->fn = is_sub ? h_sub_x2 : h_add_x2;
    } else {
        static const xhandler add[6] = {h_add16, h_add16, h_add32, h_add32, h_add64, h_add64};
        static const xhandler sub[6] = {h_sub16, h_sub16, h_sub32, h_sub32, h_sub64, h_sub64};
        TRY(pick6(dc, insn, x, t, 0, is_sub ? sub : add));
    }
    return ops_same(dc, insn, x, 3, t);
}

/* ---------------------------------------------------------------- mul/mad */

static mb_ptx_type wide_type(mb_ptx_type t)
{
    switch (t) {
    case MB_TYPE_U16: return MB_TYPE_U32;
    case MB_TYPE_S16: return MB_TYPE_S32;
    case MB_TYPE_U32: return MB_TYPE_U64;
    case MB_TYPE_S32: return MB_TYPE_S64;
    default: return MB_TYPE_NONE;
    }
}

static mb_status decode_mul(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    static const xhandler lo[6] = {h_mul_lo16, h_mul_lo16, h_mul_lo32, h_mul_lo32, h_mul_lo64, h_mul_lo64};
    static const xhandler hi[6] = {h_mul_hi_u16, h_mul_hi_s16, h_mul_hi_u32, h_mul_hi_s32, h_mul_hi_u64, h_mul_hi_s64};
    static const xhandler wide[6] = {h_mul_wide_u16, h_mul_wide_s16, h_mul_wide_u32, h_mul_wide_s32, NULL, NULL};
    if (!MODS_ONLY(insn, MB_MOD_HI, MB_MOD_LO, MB_MOD_WIDE) ||
        has(insn, MB_MOD_HI) + has(insn, MB_MOD_LO) + has(insn, MB_MOD_WIDE) > 1)
        return bad_mods(dc, insn);
    if (has(insn, MB_MOD_WIDE)) {
        TRY(pick6(dc, insn, x, t, 0, wide));
        return OPS_TYPED(dc, insn, x, wide_type(t), t, t);
    }
    TRY(pick6(dc, insn, x, t, 0, has(insn, MB_MOD_HI) ? hi : lo));
    return ops_same(dc, insn, x, 3, t);
}

static mb_status decode_mad_carry(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    /* [part: lo, hi unsigned, hi signed][width][mad.cc, madc, madc.cc] */
    static const xhandler h[3][2][3] = {
        {{h_mad_cc_lo32, h_madc_lo32, h_madc_cc_lo32}, {h_mad_cc_lo64, h_madc_lo64, h_madc_cc_lo64}},
        {{h_mad_cc_hi_u32, h_madc_hi_u32, h_madc_cc_hi_u32},
         {h_mad_cc_hi_u64, h_madc_hi_u64, h_madc_cc_hi_u64}},
        {{h_mad_cc_hi_s32, h_madc_hi_s32, h_madc_cc_hi_s32},
         {h_mad_cc_hi_s64, h_madc_hi_s64, h_madc_cc_hi_s64}}};
    if (t != MB_TYPE_U32 && t != MB_TYPE_S32 && t != MB_TYPE_U64 && t != MB_TYPE_S64)
        return bad_type(dc, insn);
    if (!MODS_ONLY(insn, MB_MOD_HI, MB_MOD_LO, MB_MOD_CC) || (has(insn, MB_MOD_HI) && has(insn, MB_MOD_LO)))
        return bad_mods(dc, insn);
    int part = has(insn, MB_MOD_HI) ? (is_signed(t) ? 2 : 1) : 0;
    int cc = has(insn, MB_MOD_CC);
    int k = insn->opcode == MB_OP_MAD ? 0 : cc ? 2 : 1;
    x->fn = h[part][type_bits(t) == 64][k];
    return ops_same(dc, insn, x, 4, t);
}

static mb_status decode_mad(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    static const xhandler lo[6] = {h_mad_lo16, h_mad_lo16, h_mad_lo32, h_mad_lo32, h_mad_lo64, h_mad_lo64};
    static const xhandler hi[6] = {h_mad_hi_u16, h_mad_hi_s16, h_mad_hi_u32, h_mad_hi_s32, h_mad_hi_u64, h_mad_hi_s64};
    static const xhandler wide[6] = {h_mad_wide_u16, h_mad_wide_s16, h_mad_wide_u32, h_mad_wide_s32, NULL, NULL};
    if (insn->opcode == MB_OP_MADC || has(insn, MB_MOD_CC))
        return decode_mad_carry(dc, insn, x, t);
    if (!MODS_ONLY(insn, MB_MOD_HI, MB_MOD_LO, MB_MOD_WIDE, MB_MOD_SAT) ||
        has(insn, MB_MOD_HI) + has(insn, MB_MOD_LO) + has(insn, MB_MOD_WIDE) > 1)
        return bad_mods(dc, insn);
    if (has(insn, MB_MOD_SAT)) {
        if (!has(insn, MB_MOD_HI) || t != MB_TYPE_S32)
            return decode_unsupported(dc, insn, ".sat applies only to mad.hi.s32");
        x->fn = h_mad_hi_sat_s32;
        return ops_same(dc, insn, x, 4, t);
    }
    if (has(insn, MB_MOD_WIDE)) {
        TRY(pick6(dc, insn, x, t, 0, wide));
        mb_ptx_type wt = wide_type(t);
        return OPS_TYPED(dc, insn, x, wt, t, t, wt);
    }
    TRY(pick6(dc, insn, x, t, 0, has(insn, MB_MOD_HI) ? hi : lo));
    return ops_same(dc, insn, x, 4, t);
}

static mb_status decode_mul24(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    int is_mad = insn->opcode == MB_OP_MAD24;
    if (t != MB_TYPE_U32 && t != MB_TYPE_S32)
        return bad_type(dc, insn);
    if (!(is_mad ? MODS_ONLY(insn, MB_MOD_HI, MB_MOD_LO, MB_MOD_SAT) : MODS_ONLY(insn, MB_MOD_HI, MB_MOD_LO)) ||
        has(insn, MB_MOD_HI) + has(insn, MB_MOD_LO) != 1)
        return decode_unsupported(dc, insn, "mul24/mad24 need exactly one of .hi and .lo");
    int hi = has(insn, MB_MOD_HI), s = t == MB_TYPE_S32;
    if (has(insn, MB_MOD_SAT)) {
        if (!hi || !s)
            return decode_unsupported(dc, insn, ".sat applies only to mad24.hi.s32");
        x->fn = h_mad24_hi_sat;
    } else if (is_mad) {
        x->fn = hi ? (s ? h_mad24_hi_s : h_mad24_hi_u) : (s ? h_mad24_lo_s : h_mad24_lo_u);
    } else {
        x->fn = hi ? (s ? h_mul24_hi_s : h_mul24_hi_u) : (s ? h_mul24_lo_s : h_mul24_lo_u);
    }
    return ops_same(dc, insn, x, is_mad ? 4 : 3, t);
}

/* ------------------------------------------------------------ the rest */

static mb_status decode_minmax(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    static const xhandler mn[6] = {h_min_u16, h_min_s16, h_min_u32, h_min_s32, h_min_u64, h_min_s64};
    static const xhandler mx[6] = {h_max_u16, h_max_s16, h_max_u32, h_max_s32, h_max_u64, h_max_s64};
    int is_max = insn->opcode == MB_OP_MAX;
    if (insn->noperands != 3)
        return decode_unsupported(dc, insn, "integer min/max take two source operands");
    if (!MODS_ONLY(insn, MB_MOD_RELU))
        return bad_mods(dc, insn);
    int relu = has(insn, MB_MOD_RELU);
    if (relu && t != MB_TYPE_S32 && t != MB_TYPE_S16X2)
        return decode_unsupported(dc, insn, ".relu applies only to .s32 and .s16x2");
    if (t == MB_TYPE_U16X2)
        x->fn = is_max ? h_max_u16x2 : h_min_u16x2;
    else if (t == MB_TYPE_S16X2)
        x->fn = is_max ? (relu ? h_max_relu_s16x2 : h_max_s16x2) : (relu ? h_min_relu_s16x2 : h_min_s16x2);
    else if (relu)
        x->fn = is_max ? h_max_relu_s32 : h_min_relu_s32;
    else
        TRY(pick6(dc, insn, x, t, 0, is_max ? mx : mn));
    return ops_same(dc, insn, x, 3, t);
}

static mb_status decode_logic(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    mb_opcode op = (mb_opcode)insn->opcode;
    if (!NO_MODS(insn))
        return bad_mods(dc, insn);
    if (t == MB_TYPE_PRED) {
        int na = 0, nb = 0;
        TRY(pdst(dc, insn, 0, &x->op[0]));
        if (x->op[0] == XREF_NONE)
            return decode_unsupported(dc, insn, "the destination must be a predicate register");
        TRY(psrc(dc, insn, 1, &x->op[1], &na));
        x->aux = na ? 0xFFFFFFFFu : 0;
        if (op == MB_OP_NOT) {
            x->nops = 2;
            x->fn = h_pnot;
            return MB_OK;
        }
        TRY(psrc(dc, insn, 2, &x->op[2], &nb));
        x->aux2 = nb ? 0xFFFFFFFFu : 0;
        x->nops = 3;
        x->fn = op == MB_OP_AND ? h_pand : op == MB_OP_OR ? h_por : h_pxor;
        return MB_OK;
    }
    unsigned bits = type_bits(t);
    if (mb_type_kind_of(t) != MB_TYPE_KIND_B || (bits != 16 && bits != 32 && bits != 64))
        return bad_type(dc, insn);
    int w64 = bits == 64;
    switch (op) {
    case MB_OP_AND: x->fn = w64 ? h_and64 : h_and32; break;
    case MB_OP_OR: x->fn = w64 ? h_or64 : h_or32; break;
    case MB_OP_XOR: x->fn = w64 ? h_xor64 : h_xor32; break;
    case MB_OP_NOT: x->fn = w64 ? h_not64 : bits == 16 ? h_not16 : h_not32; break;
    default: x->fn = w64 ? h_cnot64 : bits == 16 ? h_cnot16 : h_cnot32; break;
    }
    return ops_same(dc, insn, x, op == MB_OP_NOT || op == MB_OP_CNOT ? 2 : 3, t);
}

static mb_status decode_shift(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    if (!NO_MODS(insn))
        return bad_mods(dc, insn);
    if (insn->opcode == MB_OP_SHL) {
        static const xhandler h[6] = {h_shl16, NULL, h_shl32, NULL, h_shl64, NULL};
        if (mb_type_kind_of(t) != MB_TYPE_KIND_B)
            return bad_type(dc, insn);
        TRY(pick6(dc, insn, x, t, 1, h));
    } else {
        static const xhandler h[6] = {h_shr_u16, h_shr_s16, h_shr_u32, h_shr_s32, h_shr_u64, h_shr_s64};
        TRY(pick6(dc, insn, x, t, 1, h));
    }
    const mb_operand *n = opnd(dc, insn, 2);
    if (n->kind == MB_OPND_IMM) {
        /* an immediate amount, clamped to the width here */
        static const xhandler shl[6] = {h_shl16_k, h_shl16_k, h_shl32_k, h_shl32_k, h_shl64_k, h_shl64_k};
        static const xhandler shr[6] = {h_shr_u16_k, h_shr_s16_k, h_shr_u32_k,
                                        h_shr_s32_k, h_shr_u64_k, h_shr_s64_k};
        int slot = int_slot(t);
        unsigned bits = type_bits(t);
        uint64_t amount = (uint32_t)n->u.bits;
        int sgn = insn->opcode == MB_OP_SHR && is_signed(t);
        if (amount >= bits && !sgn) {
            x->fn = bits == 64 ? h_zero64 : h_zero32;
        } else {
            x->fn = insn->opcode == MB_OP_SHL ? shl[slot] : shr[slot];
            x->aux = (uint32_t)(amount >= bits ? bits - 1 : amount);
        }
    }
    return OPS_TYPED(dc, insn, x, t, t, MB_TYPE_U32);
}

static mb_status decode_shf(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    if (t != MB_TYPE_B32)
        return bad_type(dc, insn);
    int l = has(insn, MB_MOD_L), r = has(insn, MB_MOD_R);
    int clamp = has(insn, MB_MOD_CLAMP), wrap = has(insn, MB_MOD_WRAP);
    if (!MODS_ONLY(insn, MB_MOD_L, MB_MOD_R, MB_MOD_CLAMP, MB_MOD_WRAP) || l + r != 1 ||
        clamp + wrap != 1)
        return decode_unsupported(dc, insn, "shf needs one of .l/.r and one of .clamp/.wrap");
    x->fn = l ? (clamp ? h_shf_l_clamp : h_shf_l_wrap) : (clamp ? h_shf_r_clamp : h_shf_r_wrap);
    const mb_operand *n = opnd(dc, insn, 3);
    if (n->kind == MB_OPND_IMM) {
        uint32_t c = (uint32_t)n->u.bits;
        x->aux = clamp ? (c > 32 ? 32 : c) : c & 31;
        x->fn = l ? h_shf_l_k : h_shf_r_k;
    }
    return OPS_TYPED(dc, insn, x, MB_TYPE_B32, MB_TYPE_B32, MB_TYPE_B32, MB_TYPE_U32);
}

static mb_status decode_prmt(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    static const mb_ptx_mod modes[6] = {MB_MOD_F4E, MB_MOD_B4E, MB_MOD_RC8,
                                        MB_MOD_ECL, MB_MOD_ECR, MB_MOD_RC16};
    if (t != MB_TYPE_B32)
        return bad_type(dc, insn);
    if (!MODS_ONLY(insn, MB_MOD_F4E, MB_MOD_B4E, MB_MOD_RC8, MB_MOD_ECL, MB_MOD_ECR, MB_MOD_RC16))
        return bad_mods(dc, insn);
    int found = 0;
    x->fn = h_prmt;
    for (int i = 0; i < 6; i++)
        if (has(insn, modes[i])) {
            found++;
            x->fn = h_prmt_mode;
            x->aux = (uint32_t)i;
        }
    if (found > 1)
        return bad_mods(dc, insn);
    const mb_operand *c = opnd(dc, insn, 3);
    if (!found && c->kind == MB_OPND_IMM) {
        /* a constant selector (the usual form): only its low 16 bits count */
        x->aux = (uint32_t)c->u.bits & 0xFFFF;
        x->fn = h_prmt_imm;
    }
    return ops_same(dc, insn, x, 4, MB_TYPE_B32);
}

static mb_status decode_lop3(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    if (t != MB_TYPE_B32)
        return bad_type(dc, insn);
    if (!MODS_ONLY(insn, MB_MOD_AND, MB_MOD_OR) || has(insn, MB_MOD_AND) + has(insn, MB_MOD_OR) > 1)
        return bad_mods(dc, insn);
    int boolop = has(insn, MB_MOD_AND) || has(insn, MB_MOD_OR);
    unsigned lut_at = 4;
    const mb_operand *lut = opnd(dc, insn, lut_at);
    if (lut->kind != MB_OPND_IMM || lut->u.bits > 255)
        return decode_unsupported(dc, insn, "lop3 needs an immLut constant from 0 to 255");
    x->aux = (uint32_t)lut->u.bits;
    if (!boolop) {
        if (insn->noperands != 5)
            return decode_unsupported(dc, insn, "lop3 without .and/.or takes five operands");
        x->fn = h_lop3;
        TRY(ops_same(dc, insn, x, 4, MB_TYPE_B32));
        x->nops = 5;
        return MB_OK;
    }
    /* lop3.BoolOp.b32 d|p, a, b, c, immLut, q */
    if (insn->noperands != 6)
        return decode_unsupported(dc, insn, "lop3.and/.or take d|p, a, b, c, immLut, q");
    const mb_operand *d = opnd(dc, insn, 0);
    if (d->kind != MB_OPND_PAIR)
        return decode_unsupported(dc, insn, "lop3.and/.or need a d|p destination pair");
    if (d->u.pair.first == MB_PAIR_SINK)
        return decode_unsupported(dc, insn, "lop3.and/.or with '_' as the value destination");
    if (decode_reg_bits(dc, &(mb_operand){.kind = MB_OPND_REG, .u.reg = d->u.pair.first}) != 32)
        return decode_unsupported(dc, insn, "the destination must be a 32-bit register");
    x->op[0] = dc->ef->reg_ref[d->u.pair.first];
    TRY(pred_reg(dc, insn, d->u.pair.second, &x->op[1]));
    for (unsigned i = 1; i <= 3; i++)
        TRY(src(dc, insn, i, MB_TYPE_B32, &x->op[i + 1]));
    int neg = 0;
    TRY(psrc(dc, insn, 5, &x->op[5], &neg));
    x->aux2 = (has(insn, MB_MOD_AND) ? BOOL_AND : BOOL_OR) | (neg ? BOOL_NEG : 0);
    x->nops = 6;
    x->fn = h_lop3_pred;
    return MB_OK;
}

static mb_status decode_bits(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type t)
{
    unsigned bits = type_bits(t);
    int w64 = bits == 64;
    switch ((mb_opcode)insn->opcode) {
    case MB_OP_POPC:
    case MB_OP_CLZ:
        if (!NO_MODS(insn))
            return bad_mods(dc, insn);
        if (t != MB_TYPE_B32 && t != MB_TYPE_B64)
            return bad_type(dc, insn);
        if (insn->opcode == MB_OP_POPC)
            x->fn = w64 ? h_popc64 : h_popc32;
        else
            x->fn = w64 ? h_clz64 : h_clz32;
        return OPS_TYPED(dc, insn, x, MB_TYPE_U32, t);
    case MB_OP_BREV:
        if (!NO_MODS(insn))
            return bad_mods(dc, insn);
        if (t != MB_TYPE_B32 && t != MB_TYPE_B64)
            return bad_type(dc, insn);
        x->fn = w64 ? h_brev64 : h_brev32;
        return ops_same(dc, insn, x, 2, t);
    case MB_OP_BFIND: {
        static const xhandler h[6] = {NULL, NULL, h_bfind_u32, h_bfind_s32, h_bfind_u64, h_bfind_s64};
        static const xhandler hs[6] = {NULL, NULL, h_bfind_sa_u32, h_bfind_sa_s32, h_bfind_sa_u64,
                                       h_bfind_sa_s64};
        if (!MODS_ONLY(insn, MB_MOD_SHIFTAMT))
            return bad_mods(dc, insn);
        TRY(pick6(dc, insn, x, t, 0, has(insn, MB_MOD_SHIFTAMT) ? hs : h));
        return OPS_TYPED(dc, insn, x, MB_TYPE_U32, t);
    }
    case MB_OP_FNS:
        if (!NO_MODS(insn))
            return bad_mods(dc, insn);
        if (t != MB_TYPE_B32)
            return bad_type(dc, insn);
        x->fn = h_fns;
        return OPS_TYPED(dc, insn, x, MB_TYPE_B32, MB_TYPE_B32, MB_TYPE_U32, MB_TYPE_S32);
    case MB_OP_BFE: {
        static const xhandler h[6] = {NULL, NULL, h_bfe_u32, h_bfe_s32, h_bfe_u64, h_bfe_s64};
        if (!NO_MODS(insn))
            return bad_mods(dc, insn);
        static const xhandler hk[6] = {NULL, NULL, h_bfe_u32_k, h_bfe_s32_k, h_bfe_u64_k, h_bfe_s64_k};
        TRY(pick6(dc, insn, x, t, 0, h));
        if (opnd(dc, insn, 2)->kind == MB_OPND_IMM && opnd(dc, insn, 3)->kind == MB_OPND_IMM) {
            x->fn = hk[int_slot(t)];
            x->aux = (uint32_t)opnd(dc, insn, 2)->u.bits;
            x->aux2 = (uint32_t)opnd(dc, insn, 3)->u.bits;
        }
        return OPS_TYPED(dc, insn, x, t, t, MB_TYPE_U32, MB_TYPE_U32);
    }
    case MB_OP_BFI:
        if (!NO_MODS(insn))
            return bad_mods(dc, insn);
        if (t != MB_TYPE_B32 && t != MB_TYPE_B64)
            return bad_type(dc, insn);
        x->fn = w64 ? h_bfi64 : h_bfi32;
        if (opnd(dc, insn, 3)->kind == MB_OPND_IMM && opnd(dc, insn, 4)->kind == MB_OPND_IMM) {
            x->fn = w64 ? h_bfi64_k : h_bfi32_k;
            x->aux = (uint32_t)opnd(dc, insn, 3)->u.bits;
            x->aux2 = (uint32_t)opnd(dc, insn, 4)->u.bits;
        }
        return OPS_TYPED(dc, insn, x, t, t, t, MB_TYPE_U32, MB_TYPE_U32);
    case MB_OP_BMSK: {
        int clamp = has(insn, MB_MOD_CLAMP), wrap = has(insn, MB_MOD_WRAP);
        if (!MODS_ONLY(insn, MB_MOD_CLAMP, MB_MOD_WRAP) || clamp + wrap != 1)
            return decode_unsupported(dc, insn, "bmsk needs one of .clamp and .wrap");
        if (t != MB_TYPE_B32)
            return bad_type(dc, insn);
        x->fn = clamp ? h_bmsk_clamp : h_bmsk_wrap;
        return OPS_TYPED(dc, insn, x, MB_TYPE_B32, MB_TYPE_U32, MB_TYPE_U32);
    }
    case MB_OP_SZEXT: {
        int clamp = has(insn, MB_MOD_CLAMP), wrap = has(insn, MB_MOD_WRAP);
        if (!MODS_ONLY(insn, MB_MOD_CLAMP, MB_MOD_WRAP) || clamp + wrap != 1)
            return decode_unsupported(dc, insn, "szext needs one of .clamp and .wrap");
        if (t != MB_TYPE_U32 && t != MB_TYPE_S32)
            return bad_type(dc, insn);
        int s = t == MB_TYPE_S32;
        x->fn = clamp ? (s ? h_szext_clamp_s : h_szext_clamp_u) : (s ? h_szext_wrap_s : h_szext_wrap_u);
        return OPS_TYPED(dc, insn, x, t, t, MB_TYPE_U32);
    }
    default: return decode_unsupported(dc, insn, "not an integer instruction");
    }
}

static mb_status decode_dp(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    static const xhandler h4[2][2] = {{h_dp4a_uu, h_dp4a_us}, {h_dp4a_su, h_dp4a_ss}};
    static const xhandler h2[2][2][2] = {{{h_dp2a_lo_uu, h_dp2a_lo_us}, {h_dp2a_lo_su, h_dp2a_lo_ss}},
                                         {{h_dp2a_hi_uu, h_dp2a_hi_us}, {h_dp2a_hi_su, h_dp2a_hi_ss}}};
    mb_ptx_type ta = mb_insn_type(insn, 0), tb = mb_insn_type(insn, 1);
    if (count_types(insn) != 2 || (ta != MB_TYPE_U32 && ta != MB_TYPE_S32) ||
        (tb != MB_TYPE_U32 && tb != MB_TYPE_S32))
        return decode_unsupported(dc, insn, "dp4a/dp2a need .atype.btype, each .u32 or .s32");
    int sa = ta == MB_TYPE_S32, sb = tb == MB_TYPE_S32;
    mb_ptx_type tc = sa || sb ? MB_TYPE_S32 : MB_TYPE_U32;
    if (insn->opcode == MB_OP_DP4A) {
        if (!NO_MODS(insn))
            return bad_mods(dc, insn);
        x->fn = h4[sa][sb];
    } else {
        int hi = has(insn, MB_MOD_HI), lo = has(insn, MB_MOD_LO);
        if (!MODS_ONLY(insn, MB_MOD_HI, MB_MOD_LO) || hi + lo != 1)
            return decode_unsupported(dc, insn, "dp2a needs one of .lo and .hi");
        x->fn = h2[hi][sa][sb];
    }
    return OPS_TYPED(dc, insn, x, tc, ta, tb, tc);
}

/* --------------------------------------------------------------- compares */

/* The compare op named by the instruction's modifiers, or -1; `unsigned_op`
 * tells .lo/.ls/.hi/.hs (mapped to lt/le/gt/ge on the unsigned class). */
static int cmp_op(const mb_insn *insn, int *unsigned_op, int *count)
{
    static const struct {
        mb_ptx_mod mod;
        int op;
        int uns;
    } ops[] = {{MB_MOD_EQ, CO_EQ, 0},   {MB_MOD_NE, CO_NE, 0},   {MB_MOD_LT, CO_LT, 0},
               {MB_MOD_LE, CO_LE, 0},   {MB_MOD_GT, CO_GT, 0},   {MB_MOD_GE, CO_GE, 0},
               {MB_MOD_LO, CO_LT, 1},   {MB_MOD_LS, CO_LE, 1},   {MB_MOD_HI, CO_GT, 1},
               {MB_MOD_HS, CO_GE, 1},   {MB_MOD_EQU, CO_EQU, 0}, {MB_MOD_NEU, CO_NEU, 0},
               {MB_MOD_LTU, CO_LTU, 0}, {MB_MOD_LEU, CO_LEU, 0}, {MB_MOD_GTU, CO_GTU, 0},
               {MB_MOD_GEU, CO_GEU, 0}, {MB_MOD_NUM, CO_NUM, 0}, {MB_MOD_NAN, CO_UNORD, 0}};
    int op = -1;
    *count = 0;
    *unsigned_op = 0;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (has(insn, ops[i].mod)) {
            op = ops[i].op;
            *unsigned_op = ops[i].uns;
            ++*count;
        }
    return op;
}

/* Compare class of a source type, or -1. */
static int cmp_class(mb_ptx_type t, int ftz, int unsigned_op)
{
    switch (t) {
    case MB_TYPE_B16: case MB_TYPE_U16: return CC_U16;
    case MB_TYPE_S16: return unsigned_op ? CC_U16 : CC_S16;
    case MB_TYPE_B32: case MB_TYPE_U32: return CC_U32;
    case MB_TYPE_S32: return unsigned_op ? CC_U32 : CC_S32;
    case MB_TYPE_B64: case MB_TYPE_U64: return CC_U64;
    case MB_TYPE_S64: return unsigned_op ? CC_U64 : CC_S64;
    case MB_TYPE_F32: return ftz ? CC_F32FTZ : CC_F32;
    case MB_TYPE_F64: return CC_F64;
    case MB_TYPE_F16: return ftz ? CC_F16FTZ : CC_F16;
    case MB_TYPE_BF16: return CC_BF16;
    case MB_TYPE_F16X2: return ftz ? CC_F16X2FTZ : CC_F16X2;
    case MB_TYPE_BF16X2: return CC_BF16X2;
    default: return -1;
    }
}

/* Fills x->aux (compare), x->aux2 (boolean combine), op[2], op[3] and
 * op[4] (c) for setp and set; `first_src` is the operand index of a. */
static mb_status decode_compare(decode_ctx *dc, const mb_insn *insn, xinsn *x, mb_ptx_type st,
                                unsigned first_src)
{
    if (!MODS_ONLY(insn, MB_MOD_EQ, MB_MOD_NE, MB_MOD_LT, MB_MOD_LE, MB_MOD_GT, MB_MOD_GE,
                   MB_MOD_LO, MB_MOD_LS, MB_MOD_HI, MB_MOD_HS, MB_MOD_EQU, MB_MOD_NEU, MB_MOD_LTU,
                   MB_MOD_LEU, MB_MOD_GTU, MB_MOD_GEU, MB_MOD_NUM, MB_MOD_NAN, MB_MOD_AND,
                   MB_MOD_OR, MB_MOD_XOR, MB_MOD_FTZ))
        return bad_mods(dc, insn);
    int uns, n;
    int op = cmp_op(insn, &uns, &n);
    if (n != 1)
        return decode_unsupported(dc, insn, "expected exactly one comparison operator");
    int ftz = has(insn, MB_MOD_FTZ);
    int is_float = mb_type_kind_of(st) == MB_TYPE_KIND_F;
    if (ftz && st != MB_TYPE_F32 && st != MB_TYPE_F16 && st != MB_TYPE_F16X2)
        return decode_unsupported(dc, insn, ".ftz applies only to .f32, .f16 and .f16x2 comparisons");
    if (uns && is_float)
        return decode_unsupported(dc, insn, ".lo/.ls/.hi/.hs compare integers only");
    int cls = cmp_class(st, ftz, uns);
    if (cls < 0)
        return bad_type(dc, insn);
    if (!CMP_TABLE[cls][op])
        return decode_unsupported(dc, insn, "this comparison applies only to floating-point types");
    x->aux = (uint32_t)cls << 8 | (uint32_t)op;
    int nb = has(insn, MB_MOD_AND) + has(insn, MB_MOD_OR) + has(insn, MB_MOD_XOR);
    if (nb > 1)
        return bad_mods(dc, insn);
    TRY(src(dc, insn, first_src, st, &x->op[2]));
    TRY(src(dc, insn, first_src + 1, st, &x->op[3]));
    if (nb) {
        if (insn->noperands != first_src + 3)
            return decode_unsupported(dc, insn, "a boolean combine needs the predicate operand c");
        int neg = 0;
        TRY(psrc(dc, insn, first_src + 2, &x->op[4], &neg));
        x->aux2 = (has(insn, MB_MOD_AND) ? BOOL_AND : has(insn, MB_MOD_OR) ? BOOL_OR : BOOL_XOR) |
                  (neg ? BOOL_NEG : 0);
    } else if (insn->noperands != first_src + 2) {
        return decode_unsupported(dc, insn, "a fourth operand needs .and, .or or .xor");
    }
    x->nops = (uint8_t)insn->noperands;
    return MB_OK;
}

static int is_x2(mb_ptx_type t)
{
    return t == MB_TYPE_F16X2 || t == MB_TYPE_BF16X2;
}

static mb_status decode_setp(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    mb_ptx_type st = mb_insn_type(insn, 0);
    if (count_types(insn) != 1)
        return bad_type(dc, insn);
    TRY(decode_compare(dc, insn, x, st, 1));
    const mb_operand *d = opnd(dc, insn, 0);
    if (d->kind == MB_OPND_PAIR) {
        TRY(pred_reg(dc, insn, d->u.pair.first, &x->op[0]));
        TRY(pred_reg(dc, insn, d->u.pair.second, &x->op[1]));
    } else {
        TRY(pdst(dc, insn, 0, &x->op[0]));
        x->op[1] = XREF_NONE;
        if (is_x2(st))
            return decode_unsupported(dc, insn, "setp on .f16x2/.bf16x2 needs a p|q destination");
    }
    x->fn = is_x2(st) ? h_setp_x2 : h_setp;
    return MB_OK;
}

static mb_status decode_set(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    mb_ptx_type dt = mb_insn_type(insn, 0), st = mb_insn_type(insn, 1);
    if (count_types(insn) != 2)
        return decode_unsupported(dc, insn, "set needs .dtype.stype");
    TRY(decode_compare(dc, insn, x, st, 1));
    uint32_t one;
    if (is_x2(st)) {
        switch (dt) {
        case MB_TYPE_U32: case MB_TYPE_S32: one = 0xFFFF; break;
        case MB_TYPE_F16X2: one = st == MB_TYPE_F16X2 ? 0x3C00 : 0; break;
        case MB_TYPE_BF16X2: one = st == MB_TYPE_BF16X2 ? 0x3F80 : 0; break;
        default: one = 0; break;
        }
        if (!one)
            return bad_type(dc, insn);
        x->fn = h_set_x2;
    } else {
        switch (dt) {
        case MB_TYPE_U32: case MB_TYPE_S32: one = 0xFFFFFFFFu; break;
        case MB_TYPE_F32: one = 0x3F800000u; break;
        case MB_TYPE_U16: case MB_TYPE_S16: one = 0xFFFF; break;
        case MB_TYPE_F16: one = 0x3C00; break;
        case MB_TYPE_BF16: one = 0x3F80; break;
        default: return bad_type(dc, insn);
        }
        x->fn = h_set;
    }
    x->imm = one;
    x->op[1] = XREF_NONE;
    return dst(dc, insn, 0, dt, &x->op[0]);
}

static int is_plain_value_type(mb_ptx_type t)
{
    unsigned bits = type_bits(t);
    mb_type_kind k = mb_type_kind_of(t);
    return (bits == 16 || bits == 32 || bits == 64) &&
           (k == MB_TYPE_KIND_B || k == MB_TYPE_KIND_U || k == MB_TYPE_KIND_S || k == MB_TYPE_KIND_F) &&
           t != MB_TYPE_TF32 && t != MB_TYPE_E4M3X2 && t != MB_TYPE_E5M2X2 &&
           t != MB_TYPE_E2M3X2 && t != MB_TYPE_E3M2X2 && t != MB_TYPE_UE8M0X2;
}

static mb_status decode_selp(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    mb_ptx_type t = mb_insn_type(insn, 0);
    if (!NO_MODS(insn))
        return bad_mods(dc, insn);
    if (count_types(insn) != 1 || !is_plain_value_type(t))
        return bad_type(dc, insn);
    x->fn = type_bits(t) == 64 ? h_selp64 : h_selp32;
    TRY(ops_same(dc, insn, x, 3, t));
    int neg = 0;
    TRY(psrc(dc, insn, 3, &x->op[3], &neg));
    x->aux = neg ? 0xFFFFFFFFu : 0;
    x->nops = 4;
    return MB_OK;
}

static mb_status decode_slct(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    mb_ptx_type dt = mb_insn_type(insn, 0), ct = mb_insn_type(insn, 1);
    if (count_types(insn) != 2 || !is_plain_value_type(dt) || (ct != MB_TYPE_S32 && ct != MB_TYPE_F32))
        return decode_unsupported(dc, insn, "slct needs .dtype.s32 or .dtype.f32");
    if (!MODS_ONLY(insn, MB_MOD_FTZ) || (has(insn, MB_MOD_FTZ) && ct != MB_TYPE_F32))
        return bad_mods(dc, insn);
    int w64 = type_bits(dt) == 64, f = ct == MB_TYPE_F32, ftz = has(insn, MB_MOD_FTZ);
    if (w64)
        x->fn = f ? (ftz ? h_slct64_fz : h_slct64_f) : h_slct64_s;
    else
        x->fn = f ? (ftz ? h_slct32_fz : h_slct32_f) : h_slct32_s;
    return OPS_TYPED(dc, insn, x, dt, dt, dt, ct);
}

/* ------------------------------------------------------------------ entry */

mb_status decode_int(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    decode_common_mods(insn, x);
    mb_ptx_type t = mb_insn_type(insn, 0);
    mb_opcode op = (mb_opcode)insn->opcode;
    switch (op) {
    case MB_OP_SETP: return decode_setp(dc, insn, x);
    case MB_OP_SET: return decode_set(dc, insn, x);
    case MB_OP_SELP: return decode_selp(dc, insn, x);
    case MB_OP_SLCT: return decode_slct(dc, insn, x);
    case MB_OP_DP4A:
    case MB_OP_DP2A: return decode_dp(dc, insn, x);
    default: break;
    }
    if (count_types(insn) != 1)
        return decode_unsupported(dc, insn, "expected exactly one type suffix");
    switch (op) {
    case MB_OP_ADD:
    case MB_OP_SUB: return decode_addsub(dc, insn, x, t);
    case MB_OP_ADDC:
    case MB_OP_SUBC: return decode_carry(dc, insn, x, t);
    case MB_OP_MUL: return decode_mul(dc, insn, x, t);
    case MB_OP_MAD:
    case MB_OP_MADC: return decode_mad(dc, insn, x, t);
    case MB_OP_MUL24:
    case MB_OP_MAD24: return decode_mul24(dc, insn, x, t);
    case MB_OP_SAD: {
        static const xhandler h[6] = {h_sad_u16, h_sad_s16, h_sad_u32, h_sad_s32, h_sad_u64, h_sad_s64};
        if (!NO_MODS(insn))
            return bad_mods(dc, insn);
        TRY(pick6(dc, insn, x, t, 0, h));
        return ops_same(dc, insn, x, 4, t);
    }
    case MB_OP_DIV:
    case MB_OP_REM: {
        static const xhandler dv[6] = {h_div_u16, h_div_s16, h_div_u32, h_div_s32, h_div_u64, h_div_s64};
        static const xhandler rm[6] = {h_rem_u16, h_rem_s16, h_rem_u32, h_rem_s32, h_rem_u64, h_rem_s64};
        if (!NO_MODS(insn))
            return bad_mods(dc, insn);
        TRY(pick6(dc, insn, x, t, 0, op == MB_OP_DIV ? dv : rm));
        return ops_same(dc, insn, x, 3, t);
    }
    case MB_OP_ABS:
    case MB_OP_NEG: {
        static const xhandler ab[6] = {NULL, h_abs_s16, NULL, h_abs_s32, NULL, h_abs_s64};
        static const xhandler ng[6] = {NULL, h_neg16, NULL, h_neg32, NULL, h_neg64};
        if (!NO_MODS(insn))
            return bad_mods(dc, insn);
        TRY(pick6(dc, insn, x, t, 0, op == MB_OP_ABS ? ab : ng));
        return ops_same(dc, insn, x, 2, t);
    }
    case MB_OP_MIN:
    case MB_OP_MAX: return decode_minmax(dc, insn, x, t);
    case MB_OP_POPC:
    case MB_OP_CLZ:
    case MB_OP_BFIND:
    case MB_OP_FNS:
    case MB_OP_BREV:
    case MB_OP_BFE:
    case MB_OP_BFI:
    case MB_OP_BMSK:
    case MB_OP_SZEXT: return decode_bits(dc, insn, x, t);
    case MB_OP_AND:
    case MB_OP_OR:
    case MB_OP_XOR:
    case MB_OP_NOT:
    case MB_OP_CNOT:
        if (op == MB_OP_CNOT && t == MB_TYPE_PRED)
            return bad_type(dc, insn);
        return decode_logic(dc, insn, x, t);
    case MB_OP_LOP3: return decode_lop3(dc, insn, x, t);
    case MB_OP_SHF: return decode_shf(dc, insn, x, t);
    case MB_OP_SHL:
    case MB_OP_SHR: return decode_shift(dc, insn, x, t);
    case MB_OP_PRMT: return decode_prmt(dc, insn, x, t);
    default: return decode_unsupported(dc, insn, "not an integer instruction");
    }
}
