/*
 * minibench's stand-in for the CUDA runtime headers, used only to parse CUDA
 * sources with libclang where no CUDA toolkit is installed (or where clang
 * does not understand the installed one). It declares what host programs
 * and kernels commonly use; nothing here is ever compiled into a program.
 * The declarations follow the CUDA programming guide's documented API.
 *
 * It is force-included before every parsed file and is also what
 * <cuda_runtime.h>, <cuda.h>, <cuda_runtime_api.h> and
 * <device_launch_parameters.h> resolve to.
 */
#ifndef MINIBENCH_CUDA_PRELUDE_H
#define MINIBENCH_CUDA_PRELUDE_H

/* A system header: no warnings from it, and inspection skips what it declares. */
#pragma clang system_header

/* Like CUDA's own headers, pull in the C library's math first: the device
 * overloads below are declared beside its host functions. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#define __CUDACC__ 1
#define __MINIBENCH_CUDA_PRELUDE__ 1

/* ------------------------------------------------ execution-space attributes */
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __grid_constant__

/* ------------------------------------------------------------ vector types */
#define MB_PRELUDE_VEC1(T, N, A) struct __attribute__((aligned(A))) N##1 { T x; };
#define MB_PRELUDE_VEC2(T, N, A) struct __attribute__((aligned(A))) N##2 { T x, y; };
#define MB_PRELUDE_VEC3(T, N) struct N##3 { T x, y, z; };
#define MB_PRELUDE_VEC4(T, N, A) struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };
#define MB_PRELUDE_VECS(T, N, A1, A2, A4)                                                       \
    MB_PRELUDE_VEC1(T, N, A1) MB_PRELUDE_VEC2(T, N, A2) MB_PRELUDE_VEC3(T, N)                   \
    MB_PRELUDE_VEC4(T, N, A4)                                                                   \
    typedef struct N##1 N##1; typedef struct N##2 N##2; typedef struct N##3 N##3;              \
    typedef struct N##4 N##4;                                                                   \
    static __inline__ __host__ __device__ N##1 make_##N##1(T x) { N##1 v = {x}; return v; }     \
    static __inline__ __host__ __device__ N##2 make_##N##2(T x, T y)                            \
    { N##2 v = {x, y}; return v; }                                                              \
    static __inline__ __host__ __device__ N##3 make_##N##3(T x, T y, T z)                       \
    { N##3 v = {x, y, z}; return v; }                                                           \
    static __inline__ __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w)                  \
    { N##4 v = {x, y, z, w}; return v; }

MB_PRELUDE_VECS(signed char, char, 1, 2, 4)
MB_PRELUDE_VECS(unsigned char, uchar, 1, 2, 4)
MB_PRELUDE_VECS(short, short, 2, 4, 8)
MB_PRELUDE_VECS(unsigned short, ushort, 2, 4, 8)
MB_PRELUDE_VECS(int, int, 4, 8, 16)
MB_PRELUDE_VECS(unsigned int, uint, 4, 8, 16)
MB_PRELUDE_VECS(long, long, 8, 16, 16)
MB_PRELUDE_VECS(unsigned long, ulong, 8, 16, 16)
MB_PRELUDE_VECS(long long, longlong, 8, 16, 16)
MB_PRELUDE_VECS(unsigned long long, ulonglong, 8, 16, 16)
MB_PRELUDE_VECS(float, float, 4, 8, 16)
MB_PRELUDE_VECS(double, double, 8, 16, 16)

#undef MB_PRELUDE_VEC1
#undef MB_PRELUDE_VEC2
#undef MB_PRELUDE_VEC3
#undef MB_PRELUDE_VEC4
#undef MB_PRELUDE_VECS

struct dim3 {
    unsigned int x, y, z;
#ifdef __cplusplus
    __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

/* ------------------------------------------------------- built-in variables */
extern const __device__ __attribute__((weak)) uint3 threadIdx;
extern const __device__ __attribute__((weak)) uint3 blockIdx;
extern const __device__ __attribute__((weak)) dim3 blockDim;
extern const __device__ __attribute__((weak)) dim3 gridDim;
extern const __device__ __attribute__((weak)) int warpSize;

/* -------------------------------------------------------- device functions */
__device__ void __syncthreads(void);
__device__ int __syncthreads_count(int predicate);
__device__ int __syncthreads_and(int predicate);
__device__ int __syncthreads_or(int predicate);
__device__ void __syncwarp(unsigned int mask = 0xffffffffu);
__device__ void __threadfence(void);
__device__ void __threadfence_block(void);
__device__ void __threadfence_system(void);
__device__ long long clock64(void);
__device__ int clock(void);
__device__ void __trap(void);
__device__ unsigned int __activemask(void);
__device__ int __all_sync(unsigned int mask, int predicate);
__device__ int __any_sync(unsigned int mask, int predicate);
__device__ unsigned int __ballot_sync(unsigned int mask, int predicate);
__device__ int __popc(unsigned int x);
__device__ int __popcll(unsigned long long x);
__device__ int __clz(int x);
__device__ int __ffs(int x);
__device__ unsigned int __brev(unsigned int x);
__device__ int __mul24(int x, int y);
__device__ int __mulhi(int x, int y);
__device__ float __fdividef(float x, float y);
__device__ float __expf(float x);
__device__ float __logf(float x);
__device__ float __sinf(float x);
__device__ float __cosf(float x);
__device__ float __saturatef(float x);
__device__ float __int_as_float(int x);
__device__ int __float_as_int(float x);
__device__ float __uint_as_float(unsigned int x);
__device__ unsigned int __float_as_uint(float x);
__device__ double __longlong_as_double(long long x);
__device__ long long __double_as_longlong(double x);

/*
 * Device-side math. Clang overloads functions on their execution space, so
 * these device declarations sit beside the host ones from <math.h> and are
 * what overload resolution picks inside kernels.
 */
#define MB_PRELUDE_MATH1(name)                                                                   \
    __device__ double name(double x); __device__ float name##f(float x);                         \
    __device__ float name(float x);
#define MB_PRELUDE_MATH2(name)                                                                   \
    __device__ double name(double x, double y); __device__ float name##f(float x, float y);      \
    __device__ float name(float x, float y);
MB_PRELUDE_MATH1(sqrt) MB_PRELUDE_MATH1(rsqrt) MB_PRELUDE_MATH1(cbrt) MB_PRELUDE_MATH1(rcbrt)
MB_PRELUDE_MATH1(exp) MB_PRELUDE_MATH1(exp2) MB_PRELUDE_MATH1(exp10) MB_PRELUDE_MATH1(expm1)
MB_PRELUDE_MATH1(log) MB_PRELUDE_MATH1(log2) MB_PRELUDE_MATH1(log10) MB_PRELUDE_MATH1(log1p)
MB_PRELUDE_MATH1(logb) MB_PRELUDE_MATH1(sin) MB_PRELUDE_MATH1(cos) MB_PRELUDE_MATH1(tan)
MB_PRELUDE_MATH1(sinpi) MB_PRELUDE_MATH1(cospi) MB_PRELUDE_MATH1(asin) MB_PRELUDE_MATH1(acos)
MB_PRELUDE_MATH1(atan) MB_PRELUDE_MATH1(sinh) MB_PRELUDE_MATH1(cosh) MB_PRELUDE_MATH1(tanh)
MB_PRELUDE_MATH1(asinh) MB_PRELUDE_MATH1(acosh) MB_PRELUDE_MATH1(atanh) MB_PRELUDE_MATH1(fabs)
MB_PRELUDE_MATH1(floor) MB_PRELUDE_MATH1(ceil) MB_PRELUDE_MATH1(round) MB_PRELUDE_MATH1(trunc)
MB_PRELUDE_MATH1(rint) MB_PRELUDE_MATH1(nearbyint) MB_PRELUDE_MATH1(erf) MB_PRELUDE_MATH1(erfc)
MB_PRELUDE_MATH1(erfinv) MB_PRELUDE_MATH1(normcdf) MB_PRELUDE_MATH1(lgamma) MB_PRELUDE_MATH1(tgamma)
MB_PRELUDE_MATH2(pow) MB_PRELUDE_MATH2(atan2) MB_PRELUDE_MATH2(fmin) MB_PRELUDE_MATH2(fmax)
MB_PRELUDE_MATH2(fmod) MB_PRELUDE_MATH2(hypot) MB_PRELUDE_MATH2(copysign) MB_PRELUDE_MATH2(fdim)
MB_PRELUDE_MATH2(remainder) MB_PRELUDE_MATH2(nextafter)
#undef MB_PRELUDE_MATH1
#undef MB_PRELUDE_MATH2
__device__ double fma(double x, double y, double z);
__device__ float fmaf(float x, float y, float z);
__device__ float fma(float x, float y, float z);
__device__ void sincos(double x, double *s, double *c);
__device__ void sincosf(float x, float *s, float *c);
__device__ double ldexp(double x, int e);
__device__ float ldexpf(float x, int e);
__device__ double frexp(double x, int *e);
__device__ float frexpf(float x, int *e);
__device__ int isnan(double x);
__device__ int isnan(float x);
__device__ int isinf(double x);
__device__ int isinf(float x);
__device__ int isfinite(double x);
__device__ int isfinite(float x);
__device__ int abs(int x);
__device__ long long llabs(long long x);
__device__ float __fadd_rn(float x, float y);
__device__ float __fmul_rn(float x, float y);
__device__ float __fmaf_rn(float x, float y, float z);
__device__ float __fsqrt_rn(float x);
__device__ float __frcp_rn(float x);
__device__ double __dadd_rn(double x, double y);
__device__ double __dmul_rn(double x, double y);
__device__ double __fma_rn(double x, double y, double z);

/* min and max as CUDA provides them, on both sides, for the usual operand types. */
#define MB_PRELUDE_MINMAX(R, A, B)                                                               \
    static __inline__ __host__ __device__ R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }  \
    static __inline__ __host__ __device__ R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
MB_PRELUDE_MINMAX(int, int, int)
MB_PRELUDE_MINMAX(unsigned int, unsigned int, unsigned int)
MB_PRELUDE_MINMAX(unsigned int, int, unsigned int)
MB_PRELUDE_MINMAX(unsigned int, unsigned int, int)
MB_PRELUDE_MINMAX(long, long, long)
MB_PRELUDE_MINMAX(unsigned long, unsigned long, unsigned long)
MB_PRELUDE_MINMAX(long long, long long, long long)
MB_PRELUDE_MINMAX(unsigned long long, unsigned long long, unsigned long long)
MB_PRELUDE_MINMAX(float, float, float)
MB_PRELUDE_MINMAX(double, double, double)
MB_PRELUDE_MINMAX(double, float, double)
MB_PRELUDE_MINMAX(double, double, float)
#undef MB_PRELUDE_MINMAX

/* Device-side printf, malloc and free, the ones kernels may call. */
extern "C" {
__device__ int printf(const char *format, ...);
__device__ void *malloc(size_t size);
__device__ void free(void *ptr);
__device__ void *memcpy(void *dst, const void *src, size_t n);
__device__ void *memset(void *dst, int value, size_t n);
}

#define MB_PRELUDE_SHFL(T)                                                                       \
    __device__ T __shfl_sync(unsigned int mask, T var, int src, int width = 32);                 \
    __device__ T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32);   \
    __device__ T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32); \
    __device__ T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = 32);
MB_PRELUDE_SHFL(int)
MB_PRELUDE_SHFL(unsigned int)
MB_PRELUDE_SHFL(long long)
MB_PRELUDE_SHFL(unsigned long long)
MB_PRELUDE_SHFL(float)
MB_PRELUDE_SHFL(double)
#undef MB_PRELUDE_SHFL

#define MB_PRELUDE_ATOMIC_ARITH(T)                                                               \
    __device__ T atomicAdd(T *address, T val);                                                   \
    __device__ T atomicSub(T *address, T val);                                                   \
    __device__ T atomicExch(T *address, T val);                                                  \
    __device__ T atomicMin(T *address, T val);                                                   \
    __device__ T atomicMax(T *address, T val);                                                   \
    __device__ T atomicCAS(T *address, T compare, T val);                                        \
    __device__ T atomicAnd(T *address, T val);                                                   \
    __device__ T atomicOr(T *address, T val);                                                    \
    __device__ T atomicXor(T *address, T val);
MB_PRELUDE_ATOMIC_ARITH(int)
MB_PRELUDE_ATOMIC_ARITH(unsigned int)
MB_PRELUDE_ATOMIC_ARITH(unsigned long long)
#undef MB_PRELUDE_ATOMIC_ARITH
__device__ float atomicAdd(float *address, float val);
__device__ double atomicAdd(double *address, double val);
__device__ float atomicExch(float *address, float val);
__device__ unsigned int atomicInc(unsigned int *address, unsigned int val);
__device__ unsigned int atomicDec(unsigned int *address, unsigned int val);

template <typename T> __device__ T __ldg(const T *address);

/* ------------------------------------------------------------- runtime API */
enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidKernelImage = 200,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorLaunchFailure = 719,
    cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    int maxThreadsPerBlock;
    int maxThreadsDim[3];
    int maxGridSize[3];
    int clockRate;
    int major;
    int minor;
    int multiProcessorCount;
    int maxThreadsPerMultiProcessor;
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00
#define cudaMemAttachGlobal 0x01

extern "C" {
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset = 0,
                               enum cudaMemcpyKind kind = cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset = 0,
                                 enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream);
cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value);

/*
 * What clang turns `kernel<<<grid, block, shmem, stream>>>(...)` into. Which
 * of the two it looks up depends on the CUDA version it detects (the newer
 * push/pop protocol from CUDA 9.2 on), so both are declared.
 */
cudaError_t cudaConfigureCall(dim3 gridSize, dim3 blockSize, size_t sharedMem = 0,
                              cudaStream_t stream = 0);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0,
                                     void *stream = 0);
}

/* Typed convenience overloads the CUDA runtime provides for C++ callers. */
template <class T> static __inline__ __host__ cudaError_t cudaMalloc(T **devPtr, size_t size)
{
    return cudaMalloc((void **)(void *)devPtr, size);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                                         unsigned int flags = cudaMemAttachGlobal)
{
    return cudaMallocManaged((void **)(void *)devPtr, size, flags);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                                          size_t offset = 0,
                                                          enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                                            size_t offset = 0,
                                                            enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T>
static __inline__ __host__ cudaError_t cudaLaunchKernel(T *func, dim3 gridDim, dim3 blockDim, void **args,
                                                        size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}

#endif /* MINIBENCH_CUDA_PRELUDE_H */
