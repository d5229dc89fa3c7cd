/*
 * A CUDA program for the runtime library's end-to-end tests of failures:
 *   errors_app fault          a kernel writes past the end of its buffer
 *   errors_app unimplemented  calls cudaGraphCreate, which minibench lacks
 *   errors_app assert         a kernel's assert() fails in one thread
 * It reports each CUDA call's result as the real runtime's names, and exits 2
 * on the first error, like the examples do.
 */
#include <assert.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void write_past_end(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i == n - 1 ? n + 1000 : i] = i;
}

__global__ void check_positive(const int *a)
{
    assert(a[threadIdx.x] > 0);
}

#define REPORT(call)                                                                   \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        printf("%s -> %s (%d)\n", #call, cudaGetErrorName(e_), (int)e_);               \
        if (e_ != cudaSuccess) {                                                       \
            printf("message: %s\n", cudaGetErrorString(e_));                           \
            return 2;                                                                  \
        }                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "fault") == 0) {
        int *d = NULL;
        REPORT(cudaMalloc((void **)&d, 256 * sizeof(int)));
        write_past_end<<<2, 128>>>(d, 256);
        REPORT(cudaGetLastError());
        REPORT(cudaDeviceSynchronize());
        return 0;
    }
    if (strcmp(mode, "unimplemented") == 0) {
        cudaGraph_t graph;
        REPORT(cudaGraphCreate(&graph, 0));
        return 0;
    }
    if (strcmp(mode, "assert") == 0) {
        int h[8] = {1, 2, 3, 4, 5, -6, 7, 8}, *d = NULL;
        REPORT(cudaMalloc((void **)&d, sizeof(h)));
        REPORT(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
        check_positive<<<1, 8>>>(d);
        REPORT(cudaDeviceSynchronize());
        return 0;
    }
    fprintf(stderr, "usage: errors_app fault|unimplemented|assert\n");
    return 2;
}
