/*
 * Device printf and assert for the runtime library's tests: every kind of
 * conversion nvcc packs (int, long long, double, char, device string, width,
 * precision, '*', %%), and a failing assert().
 * printf.ptx is `nvcc -arch=sm_75 -ptx -O3 printf.cu`.
 */
#include <cassert>
#include <cstdio>

extern "C" __global__ void say(int n, const char *s)
{
    printf("t%d n=%d f=%f ll=%lld c=%c s=%s %5.2f|%-4d|%x%% %*d|%.*s\n", threadIdx.x, n,
           1.5f * threadIdx.x, (long long)n * 1000000000LL, 'A' + threadIdx.x, s, 3.14159,
           threadIdx.x, 255, 3, n, 2, s);
    if (threadIdx.x == 0)
        printf("plain line from block %d\n", blockIdx.x);
}

/* Fails the assertion in every thread whose element is 5 or more. */
extern "C" __global__ void check(const int *a)
{
    assert(a[threadIdx.x] < 5);
}
