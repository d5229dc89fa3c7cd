/*
 * half_bf16.cu - 16-bit floating point: __half / __half2 (cuda_fp16.h) and
 * __nv_bfloat16 / __nv_bfloat162 (cuda_bf16.h).
 *
 * The headers implement most operations with inline PTX (.f16, .f16x2,
 * .bf16, .bf16x2 types, `{ .reg .b16 ...; }` scoped blocks, mov.b32 {lo,hi}
 * vector unpacking). Native bf16 add/mul/fma need sm_80 or sm_90; for older
 * targets the header falls back to f32 arithmetic, so the same source
 * gives very different PTX per architecture. The bf16 fma overloads do not
 * exist below sm_80, hence the __CUDA_ARCH__ guards.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

/* Scalar and paired half arithmetic, comparisons, conversions, math. */
extern "C" __global__ void half_ops(const __half2 *a, const __half2 *b, __half2 *out,
                                    float *out_f, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const __half2 x = a[i], y = b[i];
    __half2 acc = __hadd2(x, y);
    acc = __hfma2(acc, y, x);
    acc = __hmul2(acc, __hsub2(x, y));
    acc = __hmax2(acc, __hneg2(y));
    acc = __hfma2_relu(acc, x, y);
    acc = __h2div(acc, __hadd2(y, __float2half2_rn(2.0f)));
    acc = h2exp(__hmin2(acc, __float2half2_rn(4.0f)));
    acc = __hadd2(acc, h2sqrt(__habs2(x)));
    out[i] = acc;

    /* Scalar halves from the pair, mixed with float. */
    const __half lo = __low2half(x), hi = __high2half(y);
    __half s = __hadd(lo, hi);
    s = __hfma(s, lo, __float2half_rz(0.5f));
    s = hsin(s) + hcos(hi); /* operator+ from the header */
    s = __hdiv(s, __hadd(hi, __int2half_rn(3)));
    const bool less = __hlt(lo, hi);
    const unsigned both = __hblt2(x, y) ? 1u : 0u;
    const unsigned nan = __hisnan(s) ? 2u : 0u;
    float2 f = __half22float2(acc);
    out_f[i] = __half2float(s) + f.x * f.y + (less ? 1.0f : 0.0f) + (float)(both | nan) +
               (float)__half2int_rd(hi) + __half2float(__ushort_as_half(__half_as_ushort(lo)));
}

/* bfloat16: arithmetic is native from sm_80 (some forms from sm_90). */
extern "C" __global__ void bf16_ops(const __nv_bfloat162 *a, const __nv_bfloat162 *b,
                                    __nv_bfloat162 *out, float *out_f, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const __nv_bfloat162 x = a[i], y = b[i];
    __nv_bfloat162 acc = __hadd2(x, y);
#if __CUDA_ARCH__ >= 800
    acc = __hfma2(acc, y, x); /* fma.rn.bf16x2: no pre-sm_80 overload */
#else
    acc = __hadd2(__hmul2(acc, y), x);
#endif
    acc = __hmul2(acc, x);
    acc = __hmax2(acc, y);
    acc = __hneg2(__habs2(acc));
    out[i] = acc;

    const __nv_bfloat16 lo = __low2bfloat16(x), hi = __high2bfloat16(y);
#if __CUDA_ARCH__ >= 800
    __nv_bfloat16 s = __hfma(lo, hi, __float2bfloat16(1.5f));
#else
    __nv_bfloat16 s = __hadd(__hmul(lo, hi), __float2bfloat16(1.5f));
#endif
    s = __hadd(s, __float2bfloat16_rn(__bfloat162float(lo) * 0.25f));
    const float2 f = __bfloat1622float2(acc);
    out_f[i] = __bfloat162float(s) + f.x - f.y + (__hgt(lo, hi) ? 1.0f : 0.0f) +
               __half2float(__float2half(__bfloat162float(hi)));
}

/* Converting a float array to half with 8-byte vector stores. */
extern "C" __global__ void pack_halves(const float4 *in, uint2 *out, int n4)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4)
        return;
    const float4 v = __ldg(&in[i]);
    const __half2 p = __floats2half2_rn(v.x, v.y);
    const __half2 q = __floats2half2_rn(v.z, v.w);
    uint2 packed;
    packed.x = *reinterpret_cast<const unsigned *>(&p);
    packed.y = *reinterpret_cast<const unsigned *>(&q);
    out[i] = packed;
}
