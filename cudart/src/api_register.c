/*
 * The process's runtime instance, error queries, and the registration and
 * launch entry points nvcc's generated host code calls.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mb_rt the_runtime;
static pthread_once_t the_runtime_once = PTHREAD_ONCE_INIT;

static const char *env_lookup(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

static void runtime_create(void)
{
    mb_error err;
    mb_error_clear(&err);
    mb_status st = rt_init(&the_runtime, &err);
    if (st == MB_OK)
        st = mb_cudart_options_read(env_lookup, NULL, &the_runtime.opt, &err);
    if (st != MB_OK) {
        char msg[1700];
        mb_error_format(&err, msg, sizeof(msg));
        rt_warn("%s", msg);
        /* Every call fails from now on, naming this as the cause above. */
        the_runtime.sticky_error = cudaErrorInitializationError;
    }
    if (st == MB_OK && the_runtime.opt.mode == MB_CUDART_SIM &&
        (st = rt_sim_init(&the_runtime, &err)) != MB_OK) {
        char msg[1700];
        mb_error_format(&err, msg, sizeof(msg));
        rt_warn("cannot start the simulator: %s", msg);
        the_runtime.sticky_error = cudaErrorInitializationError;
    }
}

int rt_exists(void)
{
    return the_runtime.mem != NULL;
}

mb_rt *rt_enter(void)
{
    pthread_once(&the_runtime_once, runtime_create);
    pthread_mutex_lock(&the_runtime.lock);
    return &the_runtime;
}

cudaError_t rt_leave(mb_rt *rt, cudaError_t e)
{
    if (rt->sticky_error != cudaSuccess)
        e = rt->sticky_error;
    if (e != cudaSuccess)
        rt->last_error = e;
    pthread_mutex_unlock(&rt->lock);
    return e;
}

/* ------------------------------------------------------------- errors */

MB_API const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
#define MB_CUDA_ERROR(name, value, message)                                                        \
    case name: return message;
#include "cuda_errors.def"
#undef MB_CUDA_ERROR
    }
    return "unrecognized error code";
}

MB_API const char *cudaGetErrorName(cudaError_t error)
{
    switch (error) {
#define MB_CUDA_ERROR(name, value, message)                                                        \
    case name: return #name;
#include "cuda_errors.def"
#undef MB_CUDA_ERROR
    }
    return "cudaErrorUnknown";
}

MB_API cudaError_t cudaGetLastError(void)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = rt->sticky_error != cudaSuccess ? rt->sticky_error : rt->last_error;
    rt->last_error = cudaSuccess;
    pthread_mutex_unlock(&rt->lock);
    return e;
}

MB_API cudaError_t cudaPeekAtLastError(void)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = rt->sticky_error != cudaSuccess ? rt->sticky_error : rt->last_error;
    pthread_mutex_unlock(&rt->lock);
    return e;
}

/* ------------------------------------------------------- registration */

MB_API void **__cudaRegisterFatBinary(void *fatCubin)
{
    mb_rt *rt = rt_enter();
    rt_module *mod = rt_module_add(rt, fatCubin);
    if (!mod)
        rt_warn("out of memory registering a fat binary");
    rt_leave(rt, mod ? cudaSuccess : cudaErrorMemoryAllocation);
    return (void **)mod;
}

MB_API void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle; /* modules load lazily, on their first use */
}

MB_API void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    mb_rt *rt = rt_enter();
    rt_module *mod = (rt_module *)fatCubinHandle;
    /* The last module to go writes what profiling kept for the end. */
    if (mod && rt->nmodules && rt->modules[0] == mod) {
        rt_profile_finish(rt);
        rt_sim_finish(rt);
    }
    pthread_mutex_unlock(&rt->lock);
}

MB_API void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                   const char *deviceName, int thread_limit, void *tid, void *bid,
                                   dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim, (void)wSize;
    mb_rt *rt = rt_enter();
    cudaError_t e = cudaErrorMemoryAllocation;
    char *name = deviceName ? strdup(deviceName) : NULL;
    rt_kernel *k = calloc(1, sizeof(*k));
    if (!fatCubinHandle || !deviceName) {
        e = cudaErrorInvalidValue;
    } else if (name && k && MB_GROW(rt->kernels, rt->cap_kernels, rt->nkernels + 1) == MB_OK) {
        rt->kernels[rt->nkernels++] = k;
        k->mod = (rt_module *)fatCubinHandle;
        k->host_fun = hostFun;
        k->name = name;
        name = NULL;
        k = NULL;
        e = cudaSuccess;
    }
    free(name);
    free(k);
    if (e != cudaSuccess)
        rt_warn("__cudaRegisterFunction(%s) failed: %s", deviceName ? deviceName : "(null)",
                cudaGetErrorString(e));
    rt_leave(rt, e);
}

static void register_var(void **handle, const void *host, void **managed, const char *name,
                         size_t size, int constant)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = cudaErrorMemoryAllocation;
    char *copy = name ? strdup(name) : NULL;
    if (!handle || !name) {
        e = cudaErrorInvalidValue;
    } else if (copy && MB_GROW(rt->vars, rt->cap_vars, rt->nvars + 1) == MB_OK) {
        rt_var *v = &rt->vars[rt->nvars++];
        memset(v, 0, sizeof(*v));
        v->mod = (rt_module *)handle;
        v->host_var = host;
        v->managed_ptr = managed;
        v->name = copy;
        v->size = size;
        v->constant = constant;
        copy = NULL;
        e = cudaSuccess;
    }
    free(copy);
    if (e != cudaSuccess)
        rt_warn("registering device variable %s failed: %s", name ? name : "(null)",
                cudaGetErrorString(e));
    rt_leave(rt, e);
}

MB_API void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global)
{
    (void)deviceAddress, (void)ext, (void)global;
    register_var(fatCubinHandle, hostVar, NULL, deviceName, size, constant);
}

MB_API void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                     char *deviceAddress, const char *deviceName, int ext,
                                     size_t size, int constant, int global)
{
    (void)deviceAddress, (void)ext, (void)global;
    register_var(fatCubinHandle, hostVarPtrAddress, hostVarPtrAddress, deviceName, size, constant);
}

MB_API char __cudaInitModule(void **fatCubinHandle)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = fatCubinHandle ? rt_module_load(rt, (rt_module *)fatCubinHandle)
                                   : cudaErrorInvalidValue;
    rt_leave(rt, e);
    return e == cudaSuccess;
}

/* ------------------------------------------------------------ launches */

MB_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                            cudaStream_t stream)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = cudaErrorMemoryAllocation;
    if (MB_GROW(rt->configs, rt->cap_configs, rt->nconfigs + 1) == MB_OK) {
        rt->configs[rt->nconfigs++] = (rt_config){gridDim, blockDim, sharedMem, stream};
        e = cudaSuccess;
    }
    rt_leave(rt, e);
    return e == cudaSuccess ? 0 : 1;
}

MB_API cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                              void *stream)
{
    mb_rt *rt = rt_enter();
    if (rt->nconfigs == 0) {
        pthread_mutex_unlock(&rt->lock);
        return cudaErrorMissingConfiguration;
    }
    rt_config c = rt->configs[--rt->nconfigs];
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.shared;
    memcpy(stream, &c.stream, sizeof(c.stream));
    pthread_mutex_unlock(&rt->lock);
    return cudaSuccess;
}

MB_API cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func)
{
    mb_rt *rt = rt_enter();
    rt_kernel *k = rt_kernel_find(rt, func);
    if (k && kernel)
        *kernel = (cudaKernel_t)(void *)k;
    return rt_leave(rt, k && kernel ? cudaSuccess : cudaErrorInvalidDeviceFunction);
}

MB_API cudaError_t cudaGetKernel(cudaKernel_t *kernel, const void *func)
{
    return __cudaGetKernel(kernel, func);
}

MB_API cudaError_t cudaGetFuncBySymbol(void **func, const void *symbol)
{
    mb_rt *rt = rt_enter();
    rt_kernel *k = rt_kernel_find(rt, symbol);
    if (k && func)
        *func = k;
    return rt_leave(rt, k && func ? cudaSuccess : cudaErrorInvalidDeviceFunction);
}

static cudaError_t launch(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                          cudaStream_t stream)
{
    mb_rt *rt = rt_enter();
    if (rt->sticky_error != cudaSuccess)
        return rt_leave(rt, cudaSuccess);
    rt_kernel *k = rt_kernel_find(rt, func);
    if (!k)
        rt_warn("launch of %p, which is no registered kernel", func);
    cudaError_t e = k ? rt_launch(rt, k, grid, block, args, shared, stream)
                      : cudaErrorInvalidDeviceFunction;
    if (rt->sticky_error != cudaSuccess) {
        /* This launch faulted: as on hardware the launch itself succeeded and
         * the fault surfaces in the next call. */
        pthread_mutex_unlock(&rt->lock);
        return cudaSuccess;
    }
    return rt_leave(rt, e);
}

MB_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                      size_t sharedMem, cudaStream_t stream)
{
    return launch(kernel, gridDim, blockDim, args, sharedMem, stream);
}

MB_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                           void **args, size_t sharedMem, cudaStream_t stream)
{
    return launch(kernel, gridDim, blockDim, args, sharedMem, stream);
}

MB_API cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    return launch(func, gridDim, blockDim, args, sharedMem, stream);
}

MB_API cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                         size_t sharedMem, cudaStream_t stream)
{
    return launch(func, gridDim, blockDim, args, sharedMem, stream);
}

MB_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                       void **args)
{
    if (!config)
        return cudaErrorInvalidValue;
    return launch(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                  config->stream);
}

MB_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
                                            void **args)
{
    return cudaLaunchKernelExC(config, func, args);
}

/* CTAs run one after another, so a grid-wide barrier (grid.sync()) is not
 * available; kernels without one run exactly as cooperative launches do. */
MB_API cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                               void **args, size_t sharedMem, cudaStream_t stream)
{
    mb_rt *rt = rt_enter();
    if (!rt->warned_cooperative)
        rt_warn("cudaLaunchCooperativeKernel: grid-wide synchronisation (grid.sync()) is not "
                "implemented; a kernel calling it traps (cudaErrorLaunchFailure)");
    rt->warned_cooperative = 1;
    pthread_mutex_unlock(&rt->lock);
    return launch(func, gridDim, blockDim, args, sharedMem, stream);
}

MB_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, void (*fn)(void *), void *userData)
{
    (void)stream;
    if (!fn)
        return cudaErrorInvalidValue;
    fn(userData); /* streams are in order and everything before has completed */
    return cudaSuccess;
}
