/*
 * example_host.cuh - host-side helpers shared by the example programs:
 * CUDA error checking and command-line size parsing.
 *
 * The examples deliberately use a small slice of the CUDA runtime API
 * (cudaMalloc, cudaFree, cudaMemcpy, cudaMemset, cudaGetLastError,
 * cudaDeviceSynchronize, cudaGetErrorString and <<<>>> launches) so that they
 * also run under a replacement runtime that executes the PTX on the CPU.
 *
 * Exit codes of every example: 0 = PASS, 1 = FAIL (result mismatch),
 * 2 = usage error or CUDA error.
 */
#ifndef EXAMPLE_HOST_CUH
#define EXAMPLE_HOST_CUH

#include <cuda_runtime.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLE_EXIT_PASS 0
#define EXAMPLE_EXIT_FAIL 1
#define EXAMPLE_EXIT_ERROR 2

/* Aborts with file, line, the failing call and CUDA's message. */
#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t check_err_ = (call);                                     \
        if (check_err_ != cudaSuccess) {                                     \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,   \
                    #call, cudaGetErrorString(check_err_));                  \
            exit(EXAMPLE_EXIT_ERROR);                                        \
        }                                                                    \
    } while (0)

/* Checks a kernel launch: configuration errors are reported by
 * cudaGetLastError, execution faults by the following synchronisation. */
#define CUDA_CHECK_LAUNCH()                                                  \
    do {                                                                     \
        CUDA_CHECK(cudaGetLastError());                                      \
        CUDA_CHECK(cudaDeviceSynchronize());                                 \
    } while (0)

/* Prints the usage line and exits successfully when argv[1] is -h/--help. */
static inline void example_handle_help(int argc, char **argv, const char *usage)
{
    if (argc > 1 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: %s %s\n", argv[0], usage);
        exit(EXAMPLE_EXIT_PASS);
    }
}

/*
 * Returns argv[index] parsed as an unsigned decimal integer in [lo, hi], or
 * def when the argument is absent. A malformed or out-of-range value is a
 * usage error that names the parameter.
 */
static inline unsigned long example_arg(int argc, char **argv, int index, const char *name,
                                        unsigned long def, unsigned long lo, unsigned long hi)
{
    if (index >= argc)
        return def;
    const char *text = argv[index];
    char *end = NULL;
    errno = 0;
    unsigned long value = strtoul(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || text[0] == '-' || value < lo || value > hi) {
        fprintf(stderr, "%s: argument %d (%s) must be an integer in [%lu, %lu], got '%s'\n",
                argv[0], index, name, lo, hi, text);
        exit(EXAMPLE_EXIT_ERROR);
    }
    return value;
}

/* Ceiling division for grid sizes. */
static inline unsigned example_div_up(unsigned long a, unsigned long b)
{
    return (unsigned)((a + b - 1) / b);
}

/* Allocates host memory or exits; the examples keep inputs small, so running
 * out of host memory is an environment error rather than a result. */
static inline void *example_host_alloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(EXAMPLE_EXIT_ERROR);
    }
    return p;
}

/* Prints the verdict line and returns the matching exit code. */
static inline int example_verdict(int ok)
{
    puts(ok ? "PASS" : "FAIL");
    return ok ? EXAMPLE_EXIT_PASS : EXAMPLE_EXIT_FAIL;
}

#endif /* EXAMPLE_HOST_CUH */
