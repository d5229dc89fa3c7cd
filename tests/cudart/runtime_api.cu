/*
 * Kernels for the CUDA runtime library's tests (tests/unit/test_cudart_*.c),
 * which call the registration and launch API the way nvcc's host code does.
 * runtime_api.ptx is `nvcc -arch=sm_75 -ptx -O3 runtime_api.cu` (CUDA 13.0),
 * committed so the tests need no nvcc.
 */
__constant__ float scale[4];
__device__ int launches;
__device__ float bias[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__managed__ int managed_total;

/* out[i] = in[i] * scale[0] + bias[i % 8], staged through dynamic shared memory. */
extern "C" __global__ void scale_bias(const float *in, float *out, int n)
{
    extern __shared__ float stage[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stage[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = stage[threadIdx.x] * scale[0] + bias[i % 8];
    if (i == 0)
        atomicAdd(&launches, 1);
    if (i < n)
        atomicAdd(&managed_total, 1);
}

/* Writes one element past the end of `out` from the last thread: a fault. */
extern "C" __global__ void write_past_end(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i == n - 1 ? n : i] = i;
}

/* Parameters of mixed sizes and alignments, as the PTX parameter layout places them. */
extern "C" __global__ void mixed_params(char c, double d, short s, long long *out, int4 v)
{
    out[0] = c;
    out[1] = (long long)d;
    out[2] = s;
    out[3] = v.x + v.y + v.z + v.w;
}
