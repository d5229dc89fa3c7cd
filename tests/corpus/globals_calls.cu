/*
 * globals_calls.cu - module-level state and the ways control reaches code.
 *
 * Data: __constant__ arrays and structs with initialisers; __device__
 * globals with initialisers, including an array of pointers to other
 * globals (PTX initialisers of the form generic(name)+offset); file-static
 * device data (.global without .visible); __managed__ variables
 * (.attribute(.managed)); dynamic extern __shared__ arrays of two element
 * types; per-thread local arrays.
 * Calls: a __noinline__ recursive function (.func calling itself); device
 * function pointers stored in a table and called indirectly
 * (call through a register with a .callprototype); virtual functions
 * (vtables as .global arrays of function addresses); device-side
 * malloc/free and new/delete (extern .func malloc); printf (a call to the
 * external vprintf with the format as a .global .b8 string and the
 * arguments packed in a local buffer); assert (__assertfail with file,
 * line and function strings) and __trap.
 * Kernel attributes: struct-by-value parameters (.param .align N .b8
 * name[size]), __grid_constant__, 3D grids, __launch_bounds__ (.maxntid,
 * .minnctapersm), __maxnreg__ (.maxnreg), #pragma unroll 1.
 */
#include <assert.h>
#include <cuda_runtime.h>
#include <new>
#include <stdint.h>
#include <stdio.h>

/* ---- Module data -------------------------------------------------------- */

__constant__ float c_weights[8] = {0.5f, -1.25f, 2.0f, 0.125f, -0.75f, 3.5f, 1.0f, -2.0f};
__constant__ int c_sparse[64] = {1, 2, 3}; /* mostly zero: a short initialiser */

struct Coefficients {
    double scale;
    int offset;
    short taps[3];
    char name[6];
};
__constant__ Coefficients c_coeffs = {1.5, -7, {1, -2, 1}, "lapl"};

__device__ int g_counter = 17;
__device__ float g_table[4] = {1.0f, 2.0f, 4.0f, 8.0f};
__device__ double g_bias = 0.25;
/* Pointers to other globals: resolved as generic addresses at load time. */
__device__ int *g_int_ptrs[3] = {&g_counter, &g_counter, nullptr};
__device__ float *g_float_ptrs[2] = {g_table, g_table + 2};
__device__ const char *g_label = "tagged";
static __device__ unsigned s_private_hits; /* file-local: .global, not .visible */
__managed__ int m_flag = 3;
__managed__ float m_results[16];

/* ---- Recursion ---------------------------------------------------------- */

/* Recursive partition count p(n, k): partitions of n into parts <= k.
 * __noinline__ keeps a real self-call with stack frames in the PTX. */
__device__ __noinline__ unsigned partitions(int n, int k)
{
    if (n == 0)
        return 1;
    if (n < 0 || k == 0)
        return 0;
    return partitions(n - k, k) + partitions(n, k - 1);
}

/* Recursive quicksort of a small per-thread array (a local array passed by
 * pointer, so it stays in local memory). */
__device__ __noinline__ void quicksort(int *a, int lo, int hi)
{
    if (lo >= hi)
        return;
    const int pivot = a[(lo + hi) / 2];
    int i = lo, j = hi;
    while (i <= j) {
        while (a[i] < pivot)
            ++i;
        while (a[j] > pivot)
            --j;
        if (i <= j) {
            const int t = a[i];
            a[i] = a[j];
            a[j] = t;
            ++i;
            --j;
        }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

/* ---- Function pointers and virtual functions ---------------------------- */

typedef float (*UnaryOp)(float);
__device__ __noinline__ float op_square(float x) { return x * x; }
__device__ __noinline__ float op_negate(float x) { return -x; }
__device__ __noinline__ float op_halve(float x) { return 0.5f * x; }
__device__ UnaryOp g_ops[3] = {op_square, op_negate, op_halve};

struct Shape {
    __device__ virtual float area() const = 0;
    __device__ virtual ~Shape() {}
};
struct Square : Shape {
    float side;
    __device__ explicit Square(float s) : side(s) {}
    __device__ float area() const override { return side * side; }
};
struct Circle : Shape {
    float radius;
    __device__ explicit Circle(float r) : radius(r) {}
    __device__ float area() const override { return 3.14159265f * radius * radius; }
};

/* ---- Kernels ------------------------------------------------------------ */

struct Params {
    float gain;
    int count;
    double offset;
    int4 window;
    float lut[5];
};

/* Struct by value, constant and global data, pointer tables. */
extern "C" __global__ void __launch_bounds__(256, 2)
    use_globals(Params p, const __grid_constant__ Coefficients coeffs, float *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.count)
        return;
    float v = p.gain * c_weights[i & 7] + (float)c_sparse[i & 63] + p.lut[i % 5];
    v += (float)(c_coeffs.scale * coeffs.taps[i % 3]) + (float)coeffs.offset + c_coeffs.name[0];
    v += *g_float_ptrs[i & 1] + g_table[i & 3] + (float)*g_int_ptrs[i % 3 == 2 ? 0 : i % 3];
    v += (float)(g_bias + p.offset) + (float)(p.window.x + p.window.w) + (float)g_label[i % 6];
    v += (float)m_flag;
    atomicAdd(&s_private_hits, 1u);
    if (i < 16)
        m_results[i] = v;
    out[i] = v;
    if (i == 0)
        g_counter += 1;
}

/* Indirect calls through a pointer table and through vtables. */
extern "C" __global__ void __maxnreg__(32) indirect_calls(const float *in, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const UnaryOp op = g_ops[(unsigned)__float_as_int(in[i]) % 3]; /* divergent target */
    float v = op(in[i]);

    Shape *shape;
    if (i & 1)
        shape = new Square(in[i]);
    else
        shape = new Circle(in[i]);
    if (shape != nullptr) {
        v += shape->area(); /* virtual call */
        delete shape;
    }
    out[i] = v;
}

/* Recursion, a per-thread local array and device malloc, on a 3D grid. */
extern "C" __global__ void recursion_3d(const int *in, unsigned *out, int nx, int ny, int nz)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= nx || y >= ny || z >= nz)
        return;
    const int cell = (z * ny + y) * nx + x;

    int local[12];
#pragma unroll 1
    for (int k = 0; k < 12; ++k)
        local[k] = in[(cell + k * 7) % (nx * ny * nz)] % 100;
    quicksort(local, 0, 11);

    unsigned result = partitions(local[0] % 12 + 4, 4) + (unsigned)local[11];
    int *scratch = static_cast<int *>(malloc(4 * sizeof(int)));
    if (scratch != nullptr) {
        for (int k = 0; k < 4; ++k)
            scratch[k] = local[k * 3];
        result += (unsigned)(scratch[0] + scratch[3]);
        free(scratch);
    }
    out[cell] = result + gridDim.z + blockDim.z;
}

/* Dynamic shared arrays of two element types: each is declared as an
 * `.extern .shared .align 16 .b8 name[]` of unknown size, and both alias the
 * start of the block's dynamic shared allocation at run time. */
extern "C" __global__ void dyn_shared_float(const float *in, float *out, int n)
{
    extern __shared__ float dyn_f[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    dyn_f[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = dyn_f[blockDim.x - 1 - threadIdx.x];
}

extern "C" __global__ void dyn_shared_double(const double *in, double *out, int n)
{
    extern __shared__ double dyn_d[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    dyn_d[threadIdx.x] = i < n ? in[i] : 0.0;
    dyn_d[blockDim.x + threadIdx.x] = 1.0; /* second half: a 2*blockDim array */
    __syncthreads();
    if (i < n)
        out[i] = dyn_d[(threadIdx.x + 1) % blockDim.x] + dyn_d[blockDim.x + threadIdx.x];
}

/* ---- printf, assert, trap ----------------------------------------------- */

/* A report from each block's first thread, covering the common conversions. */
extern "C" __global__ void report(const float *x, const double *y, long long big, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (threadIdx.x == 0) {
        printf("block %d/%u: x=%f y=%.3e big=%lld hex=%#x char=%c str=%s ptr=%p\n",
               (int)blockIdx.x, gridDim.x, x[i], y[i], big, (unsigned)i, 'A' + (i % 26),
               "tag", (const void *)(x + i));
    }
    if (x[i] < 0.0f)
        printf("negative input at %d: %g\n", i, (double)x[i]); /* float promoted to double */
}

/* assert and __trap: the failing paths are cold branches ending in a call
 * or a trap instruction. */
extern "C" __global__ void checked_scale(float *data, int n, float factor)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(factor != 0.0f);
    if (i >= n)
        return;
    const float v = data[i] * factor;
    assert(v == v && "scaled value is NaN");
    if (v > 1e30f)
        __trap();
    data[i] = v;
}
