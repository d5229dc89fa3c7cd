/* A header found only through -I, with a kernel: inspect lists kernels of the program's own headers. */
#ifndef KERNEL_HEADER_CUH
#define KERNEL_HEADER_CUH
__global__ void from_header(int *flags) { flags[threadIdx.x] = 1; }
#endif
