/*
 * math_libdevice.cu - the CUDA math library in single and double precision.
 *
 * Most of these functions are not PTX instructions: nvcc inlines libdevice
 * implementations (range reduction, polynomial evaluation, slow paths for
 * huge arguments behind rarely taken branches, local-memory tables for
 * Payne-Hanek reduction in sinf/cosf/tanf), so one call becomes dozens of
 * instructions with many rounding modifiers. The intrinsics (__sinf,
 * __expf, __fdividef, __f*_r* rounding variants) map to single approximate
 * or explicitly rounded instructions instead.
 */
#include <cuda_runtime.h>
#include <math.h>

/* Single precision: one output column per function, so none is dead code. */
extern "C" __global__ void math_f32(const float *x, const float *y, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float a = x[i], b = y[i];
    float *o = out + (size_t)i * 32;
    o[0] = sinf(a);
    o[1] = cosf(a);
    o[2] = tanf(a);
    o[3] = expf(a);
    o[4] = logf(fabsf(a) + 1.0f);
    o[5] = powf(fabsf(a), b);
    o[6] = erff(a);
    o[7] = lgammaf(a);
    o[8] = tgammaf(a);
    o[9] = cbrtf(a);
    o[10] = atan2f(a, b);
    o[11] = fmodf(a, b);
    o[12] = remainderf(a, b);
    float s, c;
    sincosf(a, &s, &c);
    o[13] = s + c;
    o[14] = rsqrtf(fabsf(b) + 1.0f);
    o[15] = erfcf(b) + erfinvf(fminf(fmaxf(b, -0.99f), 0.99f));
    o[16] = asinf(fminf(fmaxf(a, -1.0f), 1.0f)) + acoshf(fabsf(b) + 1.0f);
    o[17] = sinhf(a) + tanhf(b) + atanhf(b * 0.5f);
    o[18] = exp10f(a) + exp2f(b) + expm1f(a);
    o[19] = log2f(fabsf(b) + 2.0f) + log10f(fabsf(a) + 2.0f) + log1pf(fabsf(a));
    o[20] = hypotf(a, b) + norm3df(a, b, 1.0f) + rhypotf(a, b);
    int e;
    const float m = frexpf(a, &e);
    o[21] = ldexpf(m, e + 1) + scalbnf(b, 3);
    float ipart;
    o[22] = modff(a, &ipart) + ipart;
    o[23] = nextafterf(a, b) + copysignf(a, b) + fdimf(a, b);
    o[24] = rintf(a) + truncf(b) + ceilf(a) + floorf(b) + roundf(a) + nearbyintf(b);
    o[25] = (float)lrintf(a) + (float)llroundf(b);
    o[26] = (isnan(a) ? 1.0f : 0.0f) + (isinf(b) ? 2.0f : 0.0f) + (signbit(a) ? 4.0f : 0.0f);
    o[27] = normcdff(a) + normcdfinvf(fminf(fmaxf(fabsf(b), 0.01f), 0.99f));
    o[28] = j0f(a) + y1f(fabsf(b) + 0.5f) + cyl_bessel_i0f(a);
    /* Intrinsics: approximate hardware instructions. */
    o[29] = __sinf(a) + __cosf(b) + __expf(a) + __logf(fabsf(b) + 1.0f) + __powf(2.0f, a) +
            __tanf(b);
    /* Explicitly rounded arithmetic: rn, rz, ru, rd modifiers. */
    o[30] = __fadd_rz(a, b) + __fmul_ru(a, b) + __fdiv_rd(a, b) + __fsqrt_rn(fabsf(a)) +
            __frcp_rz(b) + __fmaf_ru(a, b, 1.0f) + __fdividef(a, b) + __saturatef(a);
    o[31] = (float)__float2int_rz(a) + (float)__float2uint_ru(b) + __int2float_rd(i) +
            (float)__float2ll_rn(a) + __uint2float_rz((unsigned)i) + __int_as_float(__float_as_int(b));
}

/* Double precision versions of the same families. */
extern "C" __global__ void math_f64(const double *x, const double *y, double *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double a = x[i], b = y[i];
    double *o = out + (size_t)i * 20;
    o[0] = sin(a) + cos(b);
    o[1] = tan(a);
    o[2] = exp(a) + exp2(b) + exp10(a);
    o[3] = log(fabs(a) + 1.0) + log2(fabs(b) + 1.0) + log1p(fabs(a));
    o[4] = pow(fabs(a), b);
    o[5] = erf(a) + erfc(b) + erfinv(fmin(fmax(b, -0.99), 0.99));
    o[6] = lgamma(a) + tgamma(b);
    o[7] = cbrt(a) + rcbrt(b);
    o[8] = atan2(a, b) + asin(fmin(fmax(a, -1.0), 1.0)) + atan(b);
    o[9] = fmod(a, b) + remainder(a, b);
    double s, c;
    sincos(a, &s, &c);
    o[10] = s * c;
    double sp, cp;
    sincospi(b, &sp, &cp);
    o[11] = sp + cp + sinpi(a) + cospi(b);
    o[12] = rsqrt(fabs(b) + 1.0) + sqrt(fabs(a));
    o[13] = cosh(a) + tanh(b) + asinh(a) + acosh(fabs(b) + 1.0);
    o[14] = hypot(a, b) + norm3d(a, b, 1.0) + fma(a, b, 1.0);
    int e;
    o[15] = ldexp(frexp(a, &e), e) + logb(fabs(b) + 1.0) + (double)ilogb(fabs(a) + 1.0);
    o[16] = __dadd_rz(a, b) + __dmul_ru(a, b) + __ddiv_rd(a, b) + __dsqrt_rn(fabs(a)) +
            __drcp_rz(b) + __fma_rd(a, b, 1.0);
    o[17] = (double)__double2int_rz(a) + (double)__double2ull_ru(fabs(b)) +
            (double)__double2float_rd(a) + __ll2double_rz((long long)i) +
            __longlong_as_double(__double_as_longlong(b));
    o[18] = (double)__double2hiint(a) + (double)__double2loint(b) + __hiloint2double(i, i + 1);
    o[19] = normcdf(a) + j1(b) + yn(2, fabs(a) + 0.5) + cyl_bessel_i1(b);
}
