/* Template kernels for the inspector: a non-type and a type parameter,
 * explicit and deduced instances, a template-dependent shared array. */
#include <cuda_runtime.h>

template <unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK) block_sum(const float *in, float *out, unsigned n)
{
    __shared__ float partial[BLOCK];
    unsigned i = blockIdx.x * BLOCK + threadIdx.x;
    partial[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.0f;
        for (unsigned k = 0; k < BLOCK; k++)
            s += partial[k];
        out[blockIdx.x] = s;
    }
}

template <typename T>
__global__ void scale(T *x, T a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

void run_all(float *in, float *out, double *d, unsigned n)
{
    block_sum<128><<<(n + 127) / 128, 128>>>(in, out, n);
    block_sum<256><<<(n + 255) / 256, 256>>>(in, out, n);
    block_sum<128><<<1, 128>>>(out, out, 128);
    scale<float><<<n / 64, 64>>>(in, 2.0f, (int)n);
    scale<<<n / 64, 64>>>(d, 0.5, (int)n);
}
