/*
 * Every CUDA runtime function minibench does not implement: it says so on
 * standard error, records and returns cudaErrorNotSupported. It never
 * silently does nothing.
 */
#include "rt.h"

static int unimplemented(const char *name)
{
    mb_rt *rt = rt_enter();
    rt_warn("%s is not implemented (returning cudaErrorNotSupported)", name);
    rt->last_error = cudaErrorNotSupported;
    pthread_mutex_unlock(&rt->lock);
    return cudaErrorNotSupported;
}

/* The arguments are never read, so one parameterless definition serves any
 * signature under the C calling convention; the result is the error code. */
#define MB_CUDART_UNIMPLEMENTED(name)                                                              \
    MB_API int name(void);                                                                         \
    MB_API int name(void)                                                                          \
    {                                                                                              \
        return unimplemented(#name);                                                               \
    }
#include "unimplemented.def"
#undef MB_CUDART_UNIMPLEMENTED
