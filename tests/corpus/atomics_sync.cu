/*
 * atomics_sync.cu - atomics, warp and block synchronisation, memory
 * ordering and spin-waiting.
 *
 * Covers atom/red on global and shared memory for every operation and
 * width, CAS loops, scoped atomics (_block, _system; cuda::atomic_ref with
 * acquire/release orders, which emit ld.acquire/st.release/fence forms),
 * vote and barrier reductions (bar.red via __syncthreads_count/_and/_or),
 * all shfl.sync modes with sub-warp widths, match.sync, activemask, fences,
 * and a back-off loop with nanosleep and the clock registers. redux.sync
 * (sm_80) is guarded by __CUDA_ARCH__.
 */
#include <cuda/atomic>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

/* Float maximum by compare-and-swap on the bit pattern: the classic loop. */
__device__ float atomic_max_float(float *address, float value)
{
    int *bits = reinterpret_cast<int *>(address);
    int old = *bits;
    while (__int_as_float(old) < value) {
        const int assumed = old;
        old = atomicCAS(bits, assumed, __float_as_int(value));
        if (old == assumed)
            break;
    }
    return __int_as_float(old);
}

struct Counters {
    int i32;
    unsigned u32;
    unsigned long long u64;
    long long s64;
    float f32;
    double f64;
    unsigned wrap;
    unsigned bits;
    unsigned long long bits64;
    float fmax;
    __half2 h2;
    __half h;
};

extern "C" __global__ void every_atomic(Counters *c, const int *in, int *old_values, int n)
{
    __shared__ unsigned s_hist[64];
    __shared__ float s_sum;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 64)
        s_hist[threadIdx.x] = 0;
    if (threadIdx.x == 0)
        s_sum = 0.0f;
    __syncthreads();

    const int v = i < n ? in[i] : 0;
    int result = 0;
    result += atomicAdd(&c->i32, v);
    result += (int)atomicAdd(&c->u32, (unsigned)v);
    result += (int)atomicAdd(&c->u64, (unsigned long long)v);
    atomicAdd(&c->f32, (float)v * 0.5f);  /* result unused: red.global.add.f32 */
    atomicAdd(&c->f64, (double)v * 0.25); /* red.global.add.f64 (sm_60+) */
    result += atomicSub(&c->i32, 1);
    result += atomicExch(&c->i32, v) + (int)atomicExch(&c->u64, 7ull) +
              (int)atomicExch(&c->f32, 1.0f);
    result += atomicMin(&c->i32, v) + atomicMax(&c->i32, v) + (int)atomicMin(&c->u32, 3u) +
              (int)atomicMax(&c->u64, (unsigned long long)i) + (int)atomicMin(&c->s64, (long long)v) +
              (int)atomicMax(&c->s64, (long long)-v);
    result += (int)atomicInc(&c->wrap, 100u) + (int)atomicDec(&c->wrap, 100u);
    result += (int)atomicAnd(&c->bits, ~(1u << (i & 31))) + (int)atomicOr(&c->bits, 1u << (v & 31)) +
              (int)atomicXor(&c->bits, (unsigned)v) + (int)atomicAnd(&c->bits64, ~0ull >> (i & 63)) +
              (int)atomicOr(&c->bits64, 1ull << (v & 63)) + (int)atomicXor(&c->bits64, (unsigned long long)i);
    result += atomicCAS(&c->i32, v, v + 1) + (int)atomicCAS(&c->u64, 0ull, (unsigned long long)v);
    result += (int)atomic_max_float(&c->fmax, (float)v);
    atomicAdd(&c->h2, __floats2half2_rn(1.0f, 2.0f)); /* atom.add.noftz.f16x2 */
#if __CUDA_ARCH__ >= 700
    atomicAdd(&c->h, __float2half(0.5f)); /* atom.add.noftz.f16 */
#endif
    /* Scoped variants: .cta and .sys. */
    result += atomicAdd_block(&c->i32, 1) + atomicAdd_system(&c->i32, 1) +
              (int)atomicCAS_block(&c->u32, 0u, 1u) + (int)atomicOr_system(&c->bits, 4u);
    /* Shared-memory atomics. */
    atomicAdd(&s_hist[v & 63], 1u);
    atomicAdd(&s_sum, 1.0f);
    result += (int)atomicMax(&s_hist[0], (unsigned)v);
    __syncthreads();
    if (i < n)
        old_values[i] = result + (int)s_hist[threadIdx.x & 63] + (int)s_sum;
}

/* libcu++ atomic_ref with explicit scopes and memory orders: a flag
 * handshake between blocks plus relaxed and seq_cst read-modify-writes. */
extern "C" __global__ void scoped_orders(int *data, int *flag, int *out)
{
    cuda::atomic_ref<int, cuda::thread_scope_device> ready(*flag);
    cuda::atomic_ref<int, cuda::thread_scope_block> local(data[1]);
    cuda::atomic_ref<int, cuda::thread_scope_system> host_visible(data[2]);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        data[0] = 42;
        ready.store(1, cuda::memory_order_release);
    } else if (threadIdx.x == 0) {
        int spins = 0;
        while (ready.load(cuda::memory_order_acquire) == 0 && ++spins < 1000) {
        }
        out[blockIdx.x] = data[0] + spins;
    }
    local.fetch_add(1, cuda::memory_order_relaxed);
    host_visible.fetch_or(1 << (threadIdx.x & 7), cuda::memory_order_seq_cst);
    int expected = 0;
    local.compare_exchange_strong(expected, 5, cuda::memory_order_acq_rel);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
    __threadfence();
    __threadfence_block();
    __threadfence_system();
}

/* Warp-level primitives and block-wide barrier reductions. */
extern "C" __global__ void warp_sync_ops(const int *in, int *out, unsigned *masks, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const int v = i < n ? in[i] : 0;
    const unsigned full = 0xffffffffu;

    int acc = __shfl_sync(full, v, 0);                 /* broadcast (idx) */
    acc += __shfl_up_sync(full, v, 1);                 /* up */
    acc += __shfl_down_sync(full, v, 2, 16);           /* down, width 16 */
    acc += __shfl_xor_sync(full, v, 4, 8);             /* bfly, width 8 */
    acc += __shfl_sync(full, v, (lane + 3) & 31, 32);  /* idx, computed lane */
    const float fv = __shfl_sync(full, (float)v, 5);   /* float payload */
    const double dv = __shfl_down_sync(full, (double)v, 1); /* 64-bit: two shfl */

    const unsigned active = __activemask();
    const unsigned same = __match_any_sync(full, v & 3);
    int all_same = 0;
    const unsigned whole = __match_all_sync(full, v >> 8, &all_same);
    const unsigned ballot = __ballot_sync(full, v > 0);
    const int anyv = __any_sync(full, v < 0), allv = __all_sync(full, v != 7);
    const unsigned uni = __uni_sync(full, v == 0) ? 1u : 0u;
    __syncwarp();
    if (lane < 16)
        __syncwarp(0x0000ffffu); /* a partial-warp barrier */

    /* Barrier reductions (bar.red.popc / .and / .or). */
    const int count = __syncthreads_count(v > 10);
    const int every = __syncthreads_and(v >= 0);
    const int some = __syncthreads_or(v == 3);

#if __CUDA_ARCH__ >= 800
    acc += (int)__reduce_add_sync(full, (unsigned)v) + __reduce_min_sync(full, v) +
           (int)__reduce_or_sync(full, (unsigned)v); /* redux.sync */
#endif
    if (i < n) {
        out[i] = acc + (int)fv + (int)dv + anyv + allv + count + every + some + all_same;
        masks[i] = active ^ same ^ whole ^ ballot ^ uni;
    }
}

/* Spin-wait with exponential back-off, timed with every clock: clock()
 * and clock64() (%clock, %clock64), and %globaltimer read by inline asm. */
extern "C" __global__ void timed_backoff(volatile int *flag, long long *cycles,
                                         unsigned long long *nanoseconds, unsigned *ticks)
{
    const long long start = clock64();
    const unsigned start32 = (unsigned)clock();
    unsigned long long t0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));

    unsigned delay = 32;
#pragma unroll 1
    for (int tries = 0; tries < 16 && *flag == 0; ++tries) {
        __nanosleep(delay); /* nanosleep.u32, sm_70+ */
        delay = delay < 4096 ? delay * 2 : delay;
    }

    unsigned long long t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    const int slot = blockIdx.x * blockDim.x + threadIdx.x;
    cycles[slot] = clock64() - start;
    ticks[slot] = (unsigned)clock() - start32;
    nanoseconds[slot] = t1 - t0;
}
