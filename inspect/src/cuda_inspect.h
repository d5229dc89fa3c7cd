/* The inspector's private storage behind mb_cuda_source. */
#ifndef MB_CUDA_INSPECT_H
#define MB_CUDA_INSPECT_H

#include <minibench/inspect.h>

struct mb_cuda_source_store {
    mb_arena *arena;            /* every string and small array */
    mb_cuda_kernel *kernels;    /* growable arrays (malloc) behind the public pointers */
    size_t kernels_cap;
    mb_cuda_var *vars;
    size_t vars_cap;
    mb_cuda_launch *launches;
    size_t launches_cap;
};

#endif
