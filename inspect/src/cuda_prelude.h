/* The CUDA prelude text (prelude/cuda_runtime.h), embedded at build time. */
#ifndef MB_CUDA_PRELUDE_H
#define MB_CUDA_PRELUDE_H

#include <stddef.h>

extern const char mb_cuda_prelude_text[];
extern const size_t mb_cuda_prelude_text_len;

#endif
