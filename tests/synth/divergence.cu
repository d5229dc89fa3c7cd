// Crafted kernels, one per divergence case of the MiniBench paper's section
// 4.2.2, for the synth end-to-end tests (tests/e2e/test_synth_cases.sh); the
// loop that leaves from its first block (case 3 iii) is top_tested.ptx,
// written by hand, since compilers rotate such loops.
// divergence.ptx is this file compiled with
//   nvcc -arch=sm_75 -ptx -O3 divergence.cu -o divergence.ptx

// Outside-loop area: the first N threads go one way (a boundary between warps).
extern "C" __global__ void outside_first_n(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 2.0f;
}

// Outside-loop area, divergence inside every warp: a lane pattern.
extern "C" __global__ void outside_lanes(const float *in, float *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((threadIdx.x & 31) < 12)
        out[i] = in[i] * in[i + 1] + 1.0f;
}

// Self-loop with the same trip count in every thread (case 1).
extern "C" __global__ void self_loop(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < n; k++)
        acc = acc * 0.5f + in[k];
    out[i] = acc;
}

// Jump point where only some threads jump back: trip counts differ across
// threads (case 2 ii) in a strided loop.
extern "C" __global__ void jump_first_n(const unsigned *in, unsigned *out, int n)
{
    unsigned acc = 0;
#pragma unroll 1
    for (int k = threadIdx.x; k < n; k += 32)
        acc += in[k] ^ k;
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Target point with two groups of threads and the same iterations (case 3 ii):
// inside the loop, a condition on the thread index alone.
extern "C" __global__ void target_groups(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        if (threadIdx.x < 48)
            out[i] = acc + in[k];
        acc += in[k + 1];
    }
    out[i] = acc;
}

// Data-dependent branch inside a loop (case 3 iv): random per iteration.
extern "C" __global__ void target_random(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        float v = in[i * n + k];
        if (v > 0.7f)
            out[i] = acc * v;
        acc += v;
    }
    out[i] = acc;
}

// Not a divergence case: a tiled loop whose last tile is shorter, the same
// for every thread. The inner trip count changes with the outer iteration,
// not with the thread, and the clone must keep it that way (no CTA gets
// more iterations than another).
extern "C" __global__ void tiled_inner(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int tile = 0; tile < n; tile += 128) {
        int len = min(128, n - tile);
#pragma unroll 1
        for (int j = 0; j < len; j++)
            acc += in[tile + j] * in[i];
    }
    out[i] = acc;
}

// Target point (iii) in a one-CTA launch: on step k only the lanes with
// t <= k < t + 32 work, as in a wavefront over a tile. A reduced clone sees
// one sampled step per clone iteration, and which steps it samples decides
// how many lanes work there.
extern "C" __global__ void wavefront(const float *in, float *out)
{
    const int t = threadIdx.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < 63; k++) {
        if (k >= t) {
            if (k < t + 32)
                acc = acc * 0.5f + in[k - t];
        }
    }
    out[t] = acc;
}

// Jump point where only some threads jump back, in a loop of several blocks
// (case 2 ii): the strided loop's trip counts differ across threads, and its
// back edge leaves from a latch below a data-dependent branch.
extern "C" __global__ void jump_groups(const unsigned *in, unsigned *out, int n)
{
    unsigned acc = 0;
#pragma unroll 1
    for (int k = threadIdx.x; k < n; k += 32) {
        unsigned v = in[k];
        if (v & 4)
            out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
        acc = acc * 3 + v;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Target point where every thread takes the same direction (case 3 i): the
// loop's first block ends with a test all threads pass (the input lies in
// [0, 1)), the guarded store making it a branch.
extern "C" __global__ void target_same(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < n; k++) {
        float v = in[k];
        if (v >= 0.0f)
            out[i] = acc;
        acc = acc * 0.5f + v;
    }
    out[i] = acc;
}
