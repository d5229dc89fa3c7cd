/*
 * A CUDA program printing from a kernel, for the runtime library's
 * end-to-end tests: the device lines, then the host's.
 */
#include <cstdio>

#include "printf.cu"

int main(void)
{
    char *dev = NULL;
    cudaMalloc((void **)&dev, 8);
    cudaMemcpy(dev, "dev", 4, cudaMemcpyHostToDevice);
    say<<<2, 3>>>(7, dev);
    cudaError_t e = cudaDeviceSynchronize();
    printf("host after the kernel: %s\n", cudaGetErrorName(e));
    cudaFree(dev);
    return e != cudaSuccess;
}
