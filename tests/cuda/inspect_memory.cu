/* Variables for the inspector: __constant__ and __device__ globals, a
 * file-scope __shared__ array, static and dynamic shared arrays in kernels,
 * a shared array in a __device__ helper, a typedef'd array type, and both
 * forms of __launch_bounds__. */
#include <cuda_runtime.h>

#define TILE 16
#define THREADS 128
typedef float row_t[TILE];

__constant__ float coefficients[3][TILE];
__constant__ int level_count;
__device__ unsigned long long total_work;
__device__ float lookup[64];
__shared__ int file_scope_flags[4];

__device__ float helper_reduce(float v)
{
    __shared__ float scratch[32];
    scratch[threadIdx.x % 32] = v;
    __syncthreads();
    return scratch[0];
}

__global__ void __launch_bounds__(THREADS, 4) tiles(const float *__restrict__ in, float *out)
{
    __shared__ float tile[TILE][TILE + 1];
    __shared__ row_t rows[2];
    __shared__ double accum;
    tile[threadIdx.y][threadIdx.x] = in[threadIdx.x] * coefficients[0][threadIdx.x % TILE];
    rows[0][threadIdx.x % TILE] = lookup[threadIdx.x % 64];
    if (threadIdx.x == 0)
        accum = 0.0;
    __syncthreads();
    out[threadIdx.x] = helper_reduce(tile[threadIdx.x][threadIdx.y] + rows[1][0]) + (float)accum;
}

__global__ void __launch_bounds__(512) dynamic_two(int *out, int words)
{
    extern __shared__ int words_area[];
    words_area[threadIdx.x] = file_scope_flags[threadIdx.x % 4] + level_count;
    out[threadIdx.x] = words_area[(threadIdx.x + 1) % words];
    atomicAdd(&total_work, 1ull);
}
