/* Launch sites for the inspector: 2-, 3- and 4-expression configurations,
 * macros in configurations and arguments, a launch written inside a macro,
 * arguments over several lines, cudaLaunchKernel, a kernel that is only
 * declared here, and launches outside main. */
#include <cuda_runtime.h>
#include <stdio.h>

#define BLOCK 256
#define GRID_FOR(n) (((n) + BLOCK - 1) / BLOCK)
#define SHARED_BYTES(t) ((t) * sizeof(float))
#define LAUNCH_FILL(ptr, value, n) fill<<<GRID_FOR(n), BLOCK>>>(ptr, value, n)

extern __global__ void external_kernel(int *data, int n); /* defined in another file */

__global__ void fill(float *out, float value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = value;
}

__global__ void stage(const float *in, float *out, int n, int tile)
{
    extern __shared__ float buffer[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buffer[threadIdx.x % tile] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n)
        out[i] = buffer[(threadIdx.x + 1) % tile];
}

static void pipeline(float *a, float *b, int n, cudaStream_t stream)
{
    fill<<<GRID_FOR(n), BLOCK>>>(a, 1.0f, n);
    stage<<<GRID_FOR(n), BLOCK, SHARED_BYTES(BLOCK)>>>(a, b, n, BLOCK);
    stage<<<dim3(GRID_FOR(n), 1, 1), dim3(BLOCK), BLOCK * sizeof(float), stream>>>(
        b,       /* input */
        a,       /* output */
        n, BLOCK);
    LAUNCH_FILL(b, 0.0f, n);
}

int main(void)
{
    int n = 1 << 20;
    float *a, *b;
    int *data;
    cudaStream_t stream;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMalloc(&data, n * sizeof(int));
    cudaStreamCreate(&stream);
    pipeline(a, b, n, stream);
    external_kernel<<<GRID_FOR(n), BLOCK, 0, stream>>>(data, n);
    float value = 3.0f;
    void *args[] = {&a, &value, &n};
    cudaLaunchKernel((const void *)fill, dim3(GRID_FOR(n)), dim3(BLOCK), args, 0, stream);
    cudaDeviceSynchronize();
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
