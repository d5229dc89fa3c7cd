/*
 * A valid CUDA program using what generated clones use: kernels with static
 * and dynamic shared arrays, inline PTX, device helpers, every launch form,
 * the runtime API's allocation, copy, stream and event calls.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

__constant__ float scale[4];
__device__ unsigned int counter;

__device__ __forceinline__ float square(float x) { return x * x; }

__global__ void __launch_bounds__(256, 2) tile_sum(const float *__restrict__ in, float *out, int n)
{
    __shared__ float tile[256];
    extern __shared__ float spill[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? square(in[i]) * scale[0] : 0.0f;
    spill[threadIdx.x] = sqrtf(fabsf(tile[threadIdx.x]));
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s)
            tile[threadIdx.x] += tile[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[blockIdx.x] = tile[0] + spill[0];
        atomicAdd(&counter, 1u);
    }
}

__global__ void ptx_chain(unsigned *out, unsigned seed)
{
    unsigned r = seed, t;
    asm volatile("{\n\t"
                 ".reg .pred p;\n\t"
                 "mad.lo.u32 %0, %1, 1664525, 1013904223;\n\t"
                 "setp.eq.u32 p, %0, 0;\n\t"
                 "@p add.u32 %0, %0, 1;\n\t"
                 "}"
                 : "=r"(t)
                 : "r"(r)
                 : "memory");
    asm volatile("bar.sync 0;" ::: "memory");
    out[threadIdx.x] = t + __shfl_xor_sync(0xffffffffu, t, 1);
}

int main(void)
{
    const int n = 1024;
    float *d_in, *d_out;
    unsigned *d_u;
    float host[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    CHECK(cudaMalloc((void **)&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    CHECK(cudaMalloc(&d_u, 32 * sizeof(unsigned)));
    CHECK(cudaMemset(d_in, 0, n * sizeof(float)));
    CHECK(cudaMemcpyToSymbol(scale, host, sizeof(host)));
    cudaStream_t stream;
    cudaEvent_t start, stop;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    dim3 grid(n / 256), block(256);
    tile_sum<<<grid, block, 256 * sizeof(float), stream>>>(d_in, d_out, n);
    tile_sum<<<4, 256, 1024>>>(d_in, d_out, n);
    ptx_chain<<<1, 32>>>(d_u, 7u);
    void *args[] = {&d_u, (void *)&n};
    CHECK(cudaLaunchKernel((const void *)ptx_chain, dim3(1), dim3(32), args, 0, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float result[4];
    CHECK(cudaMemcpy(result, d_out, sizeof(result), cudaMemcpyDeviceToHost));
    memset(host, 0, sizeof(host));
    printf("%f %f %f\n", result[0], ms, pow(2.0, 0.5));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_u));
    return 0;
}
