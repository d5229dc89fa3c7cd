/*
 * bits_asm.cu - integer bit manipulation, SIMD-in-a-word intrinsics, wide
 * integer arithmetic and inline PTX.
 *
 * Intrinsics map to single instructions: brev, popc, clz, bfind (via
 * __ffs), prmt (__byte_perm), shf.l/shf.r with .wrap/.clamp (funnel
 * shifts), mul24, mul.hi, sad, dp4a/dp2a; the __v* SIMD functions expand
 * to sequences (or vadd-style instructions on older targets). 64-bit
 * division and __int128 arithmetic expand to multi-word sequences with
 * carry chains (add.cc/addc) and mul.hi.u64. The inline asm blocks use
 * scoped registers, predicates, labels inside the asm, vector operands and
 * every constraint letter (h, r, l, f, d, n).
 */
#include <cuda_runtime.h>
#include <stdint.h>

extern "C" __global__ void bit_ops(const unsigned *in, const unsigned long long *in64,
                                   unsigned *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned x = in[i], y = in[(i + 1) % n];
    const unsigned long long w = in64[i];
    unsigned r = __brev(x) ^ (unsigned)__popc(y) ^ (unsigned)__clz(x) ^ (unsigned)__ffs(y);
    r += (unsigned)__brevll(w) + (unsigned)__popcll(w) + (unsigned)__clzll(w) + (unsigned)__ffsll((long long)w);
    r ^= __byte_perm(x, y, 0x3210 + (i & 0x7));                 /* prmt with computed selector */
    r += __byte_perm(x, y, 0x5140);                              /* prmt with immediate */
    r ^= __funnelshift_l(x, y, i & 31) + __funnelshift_r(x, y, 7) +
         __funnelshift_lc(x, y, (unsigned)i) + __funnelshift_rc(y, x, 40u); /* .wrap / .clamp */
    r += (unsigned)__mul24((int)x, (int)y) + __umul24(x, y) + __umulhi(x, y) +
         (unsigned)__mulhi((int)x, (int)y) + (unsigned)__umul64hi(w, (unsigned long long)x) +
         (unsigned)__mul64hi((long long)w, -(long long)y);
    r += __sad((int)x, (int)y, 3u) + __usad(x, y, 5u) + (unsigned)__hadd((int)x, (int)y) +
         __urhadd(x, y);
    r ^= (unsigned)__dp4a((int)x, (int)y, 7) + __dp4a(x, y, 9u) +
         (unsigned)__dp2a_lo((int)x, (int)y, 1) + __dp2a_hi(x, y, 2u);
    r += __vadd4(x, y) ^ __vsub2(x, y) ^ __vabsdiffu4(x, y) ^ __vmaxs2(x, y) ^ __vcmpgtu4(x, y) ^
         __vavgu2(x, y) ^ __vsads4(x, y) ^ __vneg2(x);
    r += (unsigned)(x >> (y & 31)) + (unsigned)((int)x >> 3) + (x << (i & 7));
    /* 64-bit division and remainder: software sequences (or div.u64). */
    const unsigned long long q = w / (unsigned long long)(y | 1u);
    const long long sq = (long long)w % (long long)((int)y | 1);
    r += (unsigned)q + (unsigned)sq + (unsigned)(w >> 61) + (unsigned)(x / 7u) + (unsigned)((int)x % -5);
    out[i] = r;
}

/* 128-bit integers: a 64x64->128 multiply-accumulate hash over the input. */
extern "C" __global__ void wide_ints(const unsigned long long *in, unsigned long long *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned __int128 acc = (unsigned __int128)in[i] << 64 | in[(i + 1) % n];
#pragma unroll 1
    for (int round = 0; round < 4; ++round) {
        acc = acc * 0x9E3779B97F4A7C15ull + (unsigned __int128)in[(i + round) % n];
        acc ^= acc >> 71;
    }
    const __int128 signed_part = (__int128)acc / 12345 - (__int128)(acc % 977);
    out[2 * i] = (unsigned long long)acc;
    out[2 * i + 1] = (unsigned long long)(signed_part >> 64) ^ (unsigned long long)(acc >> 64);
}

/* Hand-written PTX: scoped registers and predicates, a loop with a local
 * label, bfe/bfi/lop3, a vector load and every constraint type. */
extern "C" __global__ void inline_asm(const uint4 *vec, const double *dv, const unsigned short *hv,
                                      unsigned *out, double *dout, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned a, b, c, d;
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d)
                 : "l"(vec + i));

    unsigned field, merged, logic;
    asm("bfe.u32 %0, %1, 4, 8;" : "=r"(field) : "r"(a));
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(merged) : "r"(b), "r"(c), "n"(8), "n"(12));
    asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(logic) : "r"(a), "r"(b), "r"(d)); /* a^b^d */

    /* Count down to zero with a predicate and a label local to the block:
     * %= makes the label unique per asm instance. */
    unsigned steps;
    asm("{\n\t"
        ".reg .pred p;\n\t"
        ".reg .u32 t;\n\t"
        "mov.u32 t, %1;\n\t"
        "mov.u32 %0, 0;\n"
        "LOOP%=:\n\t"
        "setp.eq.u32 p, t, 0;\n\t"
        "@p bra DONE%=;\n\t"
        "shr.u32 t, t, 1;\n\t"
        "add.u32 %0, %0, 1;\n\t"
        "bra.uni LOOP%=;\n"
        "DONE%=:\n\t"
        "}"
        : "=r"(steps)
        : "r"(d));

    unsigned short h = hv[i], h2;
    asm("add.u16 %0, %1, %1;" : "=h"(h2) : "h"(h));
    float f = (float)a;
    asm("sqrt.approx.ftz.f32 %0, %0;" : "+f"(f));
    double x = dv[i];
    asm("{ .reg .f64 tmp; mul.f64 tmp, %1, %1; add.rn.f64 %0, tmp, 0d3FF0000000000000; }"
        : "=d"(x)
        : "d"(x));
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    unsigned smid, warpid;
    asm volatile("mov.u32 %0, %%smid;\n\tmov.u32 %1, %%warpid;" : "=r"(smid), "=r"(warpid));
    unsigned mask_lt;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask_lt));
    unsigned long long clock_now;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(clock_now));
    asm volatile("membar.gl;" ::: "memory");

    out[i] = field ^ merged ^ logic ^ steps ^ h2 ^ (unsigned)f ^ lane ^ (unsigned)mask_lt ^
             (smid & warpid & (unsigned)clock_now & 0u);
    dout[i] = x;
}
