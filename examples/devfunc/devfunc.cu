/*
 * devfunc.cu - a kernel that calls a non-inlined __device__ function.
 *
 * digit_sum() is marked __noinline__, so the PTX keeps it as a separate
 * .func with a C++-mangled name, and the kernel reaches it through call.uni
 * with .param-space argument passing. Two loops: the kernel's loop over
 * `rounds` (uniform trip count, one call per iteration) and the callee's
 * digit loop, whose trip count is the number of base-`base` digits of the
 * argument, different in every lane (the inputs have random bit lengths),
 * so warps diverge inside the function and reconverge at its return.
 * Division and remainder by the runtime `base` expand to long PTX sequences.
 *
 * usage: devfunc [n] [base] [rounds] [block] [seed]
 */
#include "../common/example_host.cuh"
#include "devfunc_ref.h"

__device__ __noinline__ unsigned digit_sum(unsigned x, unsigned base)
{
    unsigned sum = 0;
    while (x != 0) { /* trip count = number of digits of x */
        sum += x % base;
        x /= base;
    }
    return sum;
}

extern "C" __global__ void digit_sums(const unsigned *in, unsigned *out, unsigned n,
                                      unsigned base, unsigned rounds)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned x = in[i];
    unsigned acc = 0;
    for (unsigned r = 0; r < rounds; ++r)
        acc += digit_sum(x + r, base);
    out[i] = acc;
}

int main(int argc, char **argv)
{
    example_handle_help(argc, argv, "[n=20000] [base=10] [rounds=4] [block=128] [seed=1]");
    unsigned n = (unsigned)example_arg(argc, argv, 1, "n", 20000, 1, 1u << 26);
    unsigned base = (unsigned)example_arg(argc, argv, 2, "base", 10, 2, 0xffffffffu);
    unsigned rounds = (unsigned)example_arg(argc, argv, 3, "rounds", 4, 0, 1u << 20);
    unsigned block = (unsigned)example_arg(argc, argv, 4, "block", 128, 32, 1024);
    uint32_t seed = (uint32_t)example_arg(argc, argv, 5, "seed", 1, 0, 0xffffffffu);

    size_t bytes = (size_t)n * sizeof(unsigned);
    unsigned *in = (unsigned *)example_host_alloc(bytes);
    unsigned *out = (unsigned *)example_host_alloc(bytes);
    unsigned *expect = (unsigned *)example_host_alloc(bytes);
    devfunc_init(in, n, seed);

    unsigned *d_in, *d_out;
    CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
    CUDA_CHECK(cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice));

    unsigned grid = example_div_up(n, block);
    digit_sums<<<grid, block>>>(d_in, d_out, n, base, rounds);
    CUDA_CHECK_LAUNCH();
    CUDA_CHECK(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost));

    devfunc_ref(in, expect, n, base, rounds);
    size_t mismatches = 0;
    for (unsigned i = 0; i < n; ++i)
        if (out[i] != expect[i])
            ++mismatches;

    printf("devfunc: n=%u base=%u rounds=%u grid=%u block=%u mismatches=%zu (exact comparison)\n",
           n, base, rounds, grid, block, mismatches);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    free(in);
    free(out);
    free(expect);
    return example_verdict(mismatches == 0);
}
