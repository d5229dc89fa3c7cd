/*
 * wmma_tensor.cu - warp-level matrix multiply-accumulate on tensor cores.
 *
 * wmma fragments compile to wmma.load.{a,b,c}.sync.aligned.<layout>.<shape>
 * .<type>, wmma.mma.sync.aligned... and wmma.store.d... instructions whose
 * operands are brace-enclosed register vectors of 4 to 8 elements. Shapes
 * and types available on sm_75: f16 inputs with f16 or f32 accumulators
 * in m16n16k16, m32n8k16 and m8n32k16; u8/s8 inputs with s32 accumulators;
 * 4-bit and 1-bit experimental types in m8n8k32 / m8n8k128. sm_80 adds
 * bf16, tf32 and f64 (m8n8k4), guarded below. One hand-written mma.sync
 * (inline PTX, m16n8k8 f16, sm_75+) shows the non-wmma form.
 */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#if __CUDA_ARCH__ >= 800 || !defined(__CUDA_ARCH__)
#include <cuda_bf16.h>
#endif

using namespace nvcuda;

/* One 16x16 output tile per warp: C = A * B + C over K in steps of 16.
 * A is row-major M x K, B column-major K x N, C row-major, all multiples
 * of 16. */
extern "C" __global__ void wmma_f16_f32(const half *a, const half *b, float *c, int m, int n, int k)
{
    const int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int warp_n = blockIdx.y;
    if (warp_m * 16 >= m || warp_n * 16 >= n)
        return;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, c + warp_m * 16 * n + warp_n * 16, n, wmma::mem_row_major);
#pragma unroll 1
    for (int kk = 0; kk < k; kk += 16) {
        wmma::load_matrix_sync(fa, a + warp_m * 16 * k + kk, k);
        wmma::load_matrix_sync(fb, b + warp_n * 16 * k + kk, k);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int e = 0; e < acc.num_elements; ++e)
        acc.x[e] = fmaxf(acc.x[e], 0.0f); /* element-wise ReLU on the fragment */
    wmma::store_matrix_sync(c + warp_m * 16 * n + warp_n * 16, acc, n, wmma::mem_row_major);
}

/* The rectangular shapes with an f16 accumulator, from shared memory. */
extern "C" __global__ void wmma_shapes_f16(const half *a, const half *b, half *c)
{
    __shared__ half sa[32 * 16], sb[16 * 32];
    for (int e = threadIdx.x; e < 32 * 16; e += blockDim.x) {
        sa[e] = a[e];
        sb[e] = b[e];
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> a32;
    wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> b32;
    wmma::fragment<wmma::accumulator, 32, 8, 16, half> c32;
    wmma::fill_fragment(c32, __float2half(0.0f));
    wmma::load_matrix_sync(a32, sa, 16);
    wmma::load_matrix_sync(b32, sb, 8);
    wmma::mma_sync(c32, a32, b32, c32);
    wmma::store_matrix_sync(c, c32, 8, wmma::mem_col_major);

    wmma::fragment<wmma::matrix_a, 8, 32, 16, half, wmma::col_major> a8;
    wmma::fragment<wmma::matrix_b, 8, 32, 16, half, wmma::col_major> b8;
    wmma::fragment<wmma::accumulator, 8, 32, 16, half> c8;
    wmma::fill_fragment(c8, __float2half(1.0f));
    wmma::load_matrix_sync(a8, sa, 8);
    wmma::load_matrix_sync(b8, sb, 16);
    wmma::mma_sync(c8, a8, b8, c8);
    wmma::store_matrix_sync(c + 256, c8, 32, wmma::mem_row_major);
}

/* Integer and sub-byte tensor-core forms (sm_72+ / sm_75+). */
extern "C" __global__ void wmma_integer(const signed char *a8, const signed char *b8, int *c8,
                                        const void *a4, const void *b4, int *c4,
                                        const void *a1, const void *b1, int *c1)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
    wmma::fill_fragment(acc, 0);
    wmma::load_matrix_sync(fa, a8, 16);
    wmma::load_matrix_sync(fb, b8, 16);
    wmma::mma_sync(acc, fa, fb, acc, true); /* saturating */
    wmma::store_matrix_sync(c8, acc, 16, wmma::mem_row_major);

    using namespace nvcuda::wmma::experimental;
    wmma::fragment<wmma::matrix_a, 8, 8, 32, precision::s4, wmma::row_major> f4a;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, precision::s4, wmma::col_major> f4b;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> acc4;
    wmma::fill_fragment(acc4, 0);
    wmma::load_matrix_sync(f4a, a4, 32);
    wmma::load_matrix_sync(f4b, b4, 32);
    wmma::mma_sync(acc4, f4a, f4b, acc4);
    wmma::store_matrix_sync(c4, acc4, 8, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 8, 8, 128, precision::b1, wmma::row_major> f1a;
    wmma::fragment<wmma::matrix_b, 8, 8, 128, precision::b1, wmma::col_major> f1b;
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> acc1;
    wmma::fill_fragment(acc1, 0);
    wmma::load_matrix_sync(f1a, a1, 128);
    wmma::load_matrix_sync(f1b, b1, 128);
    wmma::bmma_sync(acc1, f1a, f1b, acc1, bmmaBitOpXOR, bmmaAccumulateOpPOPC);
    wmma::store_matrix_sync(c1, acc1, 8, wmma::mem_row_major);
}

/* mma.sync written directly: m16n8k8 with f16 inputs and f32 accumulators.
 * Each lane holds 2 registers of A (4 halves), 1 of B, 4 floats of C/D. */
extern "C" __global__ void mma_inline(const unsigned *a, const unsigned *b, float *d)
{
    const int lane = threadIdx.x & 31;
    const unsigned a0 = a[lane * 2], a1 = a[lane * 2 + 1], b0 = b[lane];
    float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
                 : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                 : "r"(a0), "r"(a1), "r"(b0));
    d[lane * 4 + 0] = d0;
    d[lane * 4 + 1] = d1;
    d[lane * 4 + 2] = d2;
    d[lane * 4 + 3] = d3;
}

#if __CUDA_ARCH__ >= 800 || !defined(__CUDA_ARCH__)
/* sm_80 tensor-core types: bf16, tf32 and double. */
extern "C" __global__ void wmma_sm80_types(const __nv_bfloat16 *abf, const __nv_bfloat16 *bbf,
                                           const float *atf, const float *btf, float *cf,
                                           const double *ad, const double *bd, double *cd)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, abf, 16);
    wmma::load_matrix_sync(fb, bbf, 16);
    wmma::mma_sync(acc, fa, fb, acc);

    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> tacc;
    wmma::load_matrix_sync(ta, atf, 8);
    wmma::load_matrix_sync(tb, btf, 8);
    for (int e = 0; e < ta.num_elements; ++e)
        ta.x[e] = wmma::__float_to_tf32(ta.x[e]);
    wmma::fill_fragment(tacc, 0.0f);
    wmma::mma_sync(tacc, ta, tb, tacc);
    for (int e = 0; e < acc.num_elements; ++e)
        acc.x[e] += tacc.x[e];
    wmma::store_matrix_sync(cf, acc, 16, wmma::mem_row_major);

    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> da;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> db;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> dacc;
    wmma::fill_fragment(dacc, 0.0);
    wmma::load_matrix_sync(da, ad, 4);
    wmma::load_matrix_sync(db, bd, 8);
    wmma::mma_sync(dacc, da, db, dacc);
    wmma::store_matrix_sync(cd, dacc, 8, wmma::mem_row_major);
}
#endif
