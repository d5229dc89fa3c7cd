/*
 * The one simulated device: properties and attributes, synchronisation and
 * reset, limits and cache configuration, function attributes, occupancy,
 * streams (in order: work completes before the call returns) and events.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The device's fixed figures; those of the machine simulated are in rt->dev. */
enum {
    DEV_MAJOR = 7,
    DEV_MINOR = 5,
    DEV_WARP = 32,
    DEV_THREADS_PER_BLOCK = 1024,
    DEV_REGS_PER_BLOCK = 65536,
    DEV_SHARED_PER_BLOCK = 48 * 1024,
    DEV_SHARED_OPTIN = 64 * 1024,
    DEV_CONST = 64 * 1024,
    DEV_L2 = 4 * 1024 * 1024,
    DEV_MEM_CLOCK_KHZ = 5000000,
    DEV_BUS_BITS = 256,
    DEV_TEX_ALIGN = 512,
    DEV_PITCH_ALIGN = 32
};
#define DEV_GLOBAL_MEM ((size_t)16 << 30)

void rt_device_defaults(rt_device *dev)
{
    dev->sms = 40;
    dev->threads_per_sm = 1024;
    dev->blocks_per_sm = 16;
    dev->regs_per_sm = 65536;
    dev->shared_per_sm = 64 * 1024;
    dev->clock_khz = 1500000;
}

/* Shared memory one block may use by default: 48 KiB, or all of a smaller SM's. */
static int shared_per_block(const mb_rt *rt)
{
    return rt->dev.shared_per_sm < DEV_SHARED_PER_BLOCK ? rt->dev.shared_per_sm : DEV_SHARED_PER_BLOCK;
}

static int shared_optin(const mb_rt *rt)
{
    return rt->dev.shared_per_sm < DEV_SHARED_OPTIN ? rt->dev.shared_per_sm : DEV_SHARED_OPTIN;
}

static int regs_per_block(const mb_rt *rt)
{
    return rt->dev.regs_per_sm < DEV_REGS_PER_BLOCK ? rt->dev.regs_per_sm : DEV_REGS_PER_BLOCK;
}

static cudaError_t check_device(int device)
{
    return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

MB_API cudaError_t cudaGetDeviceCount(int *count)
{
    mb_rt *rt = rt_enter();
    if (count)
        *count = 1;
    return rt_leave(rt, count ? cudaSuccess : cudaErrorInvalidValue);
}

MB_API cudaError_t cudaGetDevice(int *device)
{
    mb_rt *rt = rt_enter();
    if (device)
        *device = 0;
    return rt_leave(rt, device ? cudaSuccess : cudaErrorInvalidValue);
}

MB_API cudaError_t cudaSetDevice(int device)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, check_device(device));
}

MB_API cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    (void)deviceFlags, (void)flags;
    return cudaSetDevice(device);
}

MB_API cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    (void)flags; /* scheduling and host-mapping flags: the device already maps host memory */
    mb_rt *rt = rt_enter();
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    mb_rt *rt = rt_enter();
    if (flags)
        *flags = 0x08; /* cudaDeviceMapHost */
    return rt_leave(rt, flags ? cudaSuccess : cudaErrorInvalidValue);
}

MB_API cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    mb_rt *rt = rt_enter();
    if (device)
        *device = 0;
    return rt_leave(rt, device && prop ? cudaSuccess : cudaErrorInvalidValue);
}

MB_API cudaError_t cudaDriverGetVersion(int *version)
{
    if (!version)
        return cudaErrorInvalidValue;
    *version = 13000;
    return cudaSuccess;
}

MB_API cudaError_t cudaRuntimeGetVersion(int *version)
{
    if (!version)
        return cudaErrorInvalidValue;
    *version = 13000;
    return cudaSuccess;
}

MB_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    mb_rt *rt = rt_enter();
    if (!prop)
        return rt_leave(rt, cudaErrorInvalidValue);
    if (check_device(device) != cudaSuccess)
        return rt_leave(rt, cudaErrorInvalidDevice);
    memset(prop, 0, sizeof(*prop));
    if (rt->opt.mode == MB_CUDART_SIM)
        snprintf(prop->name, sizeof(prop->name), "minibench simulated GPU (%s)",
                 rt->opt.config ? rt->opt.config : "conf3");
    else
        snprintf(prop->name, sizeof(prop->name), "minibench functional executor (sm_%d%d)",
                 DEV_MAJOR, DEV_MINOR);
    memcpy(prop->uuid.bytes, "minibench-device", 16);
    prop->totalGlobalMem = DEV_GLOBAL_MEM;
    prop->sharedMemPerBlock = (size_t)shared_per_block(rt);
    prop->regsPerBlock = regs_per_block(rt);
    prop->warpSize = DEV_WARP;
    prop->memPitch = (size_t)1 << 31;
    prop->maxThreadsPerBlock = DEV_THREADS_PER_BLOCK;
    prop->maxThreadsDim[0] = 1024;
    prop->maxThreadsDim[1] = 1024;
    prop->maxThreadsDim[2] = 64;
    prop->maxGridSize[0] = 0x7fffffff;
    prop->maxGridSize[1] = 65535;
    prop->maxGridSize[2] = 65535;
    prop->totalConstMem = DEV_CONST;
    prop->major = DEV_MAJOR;
    prop->minor = DEV_MINOR;
    prop->textureAlignment = DEV_TEX_ALIGN;
    prop->texturePitchAlignment = DEV_PITCH_ALIGN;
    prop->multiProcessorCount = rt->dev.sms;
    prop->canMapHostMemory = 1;
    prop->maxTexture1D = 1 << 27;
    prop->maxTexture2D[0] = prop->maxTexture2D[1] = 1 << 16;
    prop->maxTexture2DLinear[0] = prop->maxTexture2DLinear[1] = 1 << 16;
    prop->maxTexture2DLinear[2] = 1 << 21;
    prop->concurrentKernels = 1;
    prop->asyncEngineCount = 1;
    prop->unifiedAddressing = 1;
    prop->memoryBusWidth = DEV_BUS_BITS;
    prop->l2CacheSize = DEV_L2;
    prop->maxThreadsPerMultiProcessor = rt->dev.threads_per_sm;
    prop->globalL1CacheSupported = 1;
    prop->localL1CacheSupported = 1;
    prop->sharedMemPerMultiprocessor = rt->dev.shared_per_sm;
    prop->regsPerMultiprocessor = rt->dev.regs_per_sm;
    prop->managedMemory = 1;
    prop->concurrentManagedAccess = 1;
    prop->pageableMemoryAccess = 0;
    prop->cooperativeLaunch = 1;
    prop->sharedMemPerBlockOptin = (size_t)shared_optin(rt);
    prop->directManagedMemAccessFromHost = 1;
    prop->maxBlocksPerMultiProcessor = rt->dev.blocks_per_sm;
    prop->hostRegisterSupported = 1;
    prop->unifiedFunctionPointers = 1;
    prop->deviceNumaId = -1;
    prop->hostNumaId = -1;
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaDeviceGetAttribute(int *value, int attr, int device)
{
    mb_rt *rt = rt_enter();
    if (!value)
        return rt_leave(rt, cudaErrorInvalidValue);
    if (check_device(device) != cudaSuccess)
        return rt_leave(rt, cudaErrorInvalidDevice);
    const struct {
        int attr, value;
    } table[] = {
        {cudaDevAttrMaxThreadsPerBlock, DEV_THREADS_PER_BLOCK},
        {cudaDevAttrMaxBlockDimX, 1024},
        {cudaDevAttrMaxBlockDimY, 1024},
        {cudaDevAttrMaxBlockDimZ, 64},
        {cudaDevAttrMaxGridDimX, 0x7fffffff},
        {cudaDevAttrMaxGridDimY, 65535},
        {cudaDevAttrMaxGridDimZ, 65535},
        {cudaDevAttrMaxSharedMemoryPerBlock, shared_per_block(rt)},
        {cudaDevAttrTotalConstantMemory, DEV_CONST},
        {cudaDevAttrWarpSize, DEV_WARP},
        {cudaDevAttrMaxRegistersPerBlock, regs_per_block(rt)},
        {cudaDevAttrClockRate, rt->dev.clock_khz},
        {cudaDevAttrTextureAlignment, DEV_TEX_ALIGN},
        {cudaDevAttrMultiProcessorCount, rt->dev.sms},
        {cudaDevAttrCanMapHostMemory, 1},
        {cudaDevAttrMemoryClockRate, DEV_MEM_CLOCK_KHZ},
        {cudaDevAttrGlobalMemoryBusWidth, DEV_BUS_BITS},
        {cudaDevAttrL2CacheSize, DEV_L2},
        {cudaDevAttrMaxThreadsPerMultiProcessor, rt->dev.threads_per_sm},
        {cudaDevAttrUnifiedAddressing, 1},
        {cudaDevAttrTexturePitchAlignment, DEV_PITCH_ALIGN},
        {cudaDevAttrComputeCapabilityMajor, DEV_MAJOR},
        {cudaDevAttrComputeCapabilityMinor, DEV_MINOR},
        {cudaDevAttrMaxSharedMemoryPerMultiprocessor, rt->dev.shared_per_sm},
        {cudaDevAttrMaxRegistersPerMultiprocessor, rt->dev.regs_per_sm},
        {cudaDevAttrManagedMemory, 1},
        {cudaDevAttrConcurrentManagedAccess, 1},
        {cudaDevAttrMaxSharedMemoryPerBlockOptin, shared_optin(rt)},
        {cudaDevAttrMaxBlocksPerMultiprocessor, rt->dev.blocks_per_sm},
        {cudaDevAttrMaxPitch, 0x7fffffff},
        {cudaDevAttrGpuOverlap, 1},
        {cudaDevAttrKernelExecTimeout, 0},
        {cudaDevAttrIntegrated, 0},
        {cudaDevAttrComputeMode, 0}, /* cudaComputeModeDefault */
        {cudaDevAttrMaxTexture1DWidth, 1 << 17},
        {cudaDevAttrMaxTexture2DWidth, 1 << 16},
        {cudaDevAttrMaxTexture2DHeight, 1 << 16},
        {cudaDevAttrSurfaceAlignment, DEV_TEX_ALIGN},
        {cudaDevAttrConcurrentKernels, 1},
        {cudaDevAttrEccEnabled, 0},
        {cudaDevAttrPciBusId, 0},
        {cudaDevAttrPciDeviceId, 0},
        {cudaDevAttrPciDomainId, 0},
        {cudaDevAttrTccDriver, 0},
        {cudaDevAttrAsyncEngineCount, 1},
        {cudaDevAttrMaxTexture1DLinearWidth, 1 << 27},
        {cudaDevAttrMaxTexture2DLinearWidth, 1 << 16},
        {cudaDevAttrMaxTexture2DLinearHeight, 1 << 16},
        {cudaDevAttrMaxTexture2DLinearPitch, 1 << 21},
        {cudaDevAttrStreamPrioritiesSupported, 1},
        {cudaDevAttrGlobalL1CacheSupported, 1},
        {cudaDevAttrLocalL1CacheSupported, 1},
        {cudaDevAttrIsMultiGpuBoard, 0},
        {cudaDevAttrMultiGpuBoardGroupID, 0},
        {cudaDevAttrHostNativeAtomicSupported, 0},
        {cudaDevAttrSingleToDoublePrecisionPerfRatio, 32},
        {cudaDevAttrPageableMemoryAccess, 0},
        {cudaDevAttrComputePreemptionSupported, 1},
        {cudaDevAttrCanUseHostPointerForRegisteredMem, 1},
        {cudaDevAttrCooperativeLaunch, 1},
        {cudaDevAttrHostRegisterSupported, 1},
        {cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0},
        {cudaDevAttrDirectManagedMemAccessFromHost, 1},
        {cudaDevAttrMaxPersistingL2CacheSize, 0},
        {cudaDevAttrMaxAccessPolicyWindowSize, 0},
        {cudaDevAttrReservedSharedMemoryPerBlock, 0},
        {cudaDevAttrMemoryPoolsSupported, 0},
        {cudaDevAttrClusterLaunch, 0},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (table[i].attr == attr) {
            *value = table[i].value;
            return rt_leave(rt, cudaSuccess);
        }
    rt_warn("cudaDeviceGetAttribute: attribute %d is not implemented", attr);
    return rt_leave(rt, cudaErrorNotSupported);
}

MB_API cudaError_t cudaDeviceSynchronize(void)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaDeviceReset(void)
{
    mb_rt *rt = rt_enter();
    rt_reset(rt);
    pthread_mutex_unlock(&rt->lock);
    return cudaSuccess;
}

/* cudaLimit values. */
enum { LIMIT_STACK = 0, LIMIT_PRINTF_FIFO = 1, LIMIT_MALLOC_HEAP = 2 };

MB_API cudaError_t cudaDeviceSetLimit(int limit, size_t value)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = cudaSuccess;
    if (limit == LIMIT_STACK)
        rt->stack_bytes = value > (1u << 20) ? 1u << 20 : (uint32_t)value;
    else if (limit != LIMIT_PRINTF_FIFO && limit != LIMIT_MALLOC_HEAP)
        e = cudaErrorUnsupportedLimit;
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaDeviceGetLimit(size_t *value, int limit)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = value ? cudaSuccess : cudaErrorInvalidValue;
    if (e == cudaSuccess) {
        if (limit == LIMIT_STACK)
            *value = rt->stack_bytes ? rt->stack_bytes : 1024;
        else if (limit == LIMIT_PRINTF_FIFO || limit == LIMIT_MALLOC_HEAP)
            *value = (size_t)8 << 20;
        else
            e = cudaErrorUnsupportedLimit;
    }
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaDeviceSetCacheConfig(int cacheConfig)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = cacheConfig >= 0 && cacheConfig <= 3 ? cudaSuccess : cudaErrorInvalidValue;
    if (e == cudaSuccess)
        rt->cache_config = cacheConfig;
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaDeviceGetCacheConfig(int *cacheConfig)
{
    mb_rt *rt = rt_enter();
    if (cacheConfig)
        *cacheConfig = rt->cache_config;
    return rt_leave(rt, cacheConfig ? cudaSuccess : cudaErrorInvalidValue);
}

MB_API cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -5;
    return cudaSuccess;
}

/* ------------------------------------------------- function attributes */

static cudaError_t resolved_kernel(mb_rt *rt, const void *func, rt_kernel **out)
{
    rt_kernel *k = rt_kernel_find(rt, func);
    if (!k)
        return cudaErrorInvalidDeviceFunction;
    *out = k;
    return rt_kernel_resolve(rt, k);
}

/* The sm number of the module's .target (75 for sm_75); the device's when absent. */
static int module_arch(const mb_module *m)
{
    for (uint32_t i = 0; i < m->ntargets; i++) {
        const char *t = m->targets[i];
        if (strncmp(t, "sm_", 3) == 0 && t[3] >= '1' && t[3] <= '9')
            return atoi(t + 3);
    }
    return DEV_MAJOR * 10 + DEV_MINOR;
}

MB_API cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    mb_rt *rt = rt_enter();
    rt_kernel *k = NULL;
    cudaError_t e = attr ? resolved_kernel(rt, func, &k) : cudaErrorInvalidValue;
    mb_resources res;
    mb_error err;
    if (e == cudaSuccess &&
        mb_function_resources(k->mod->module, k->fn, &res, &err) != MB_OK)
        e = cudaErrorInvalidDeviceFunction;
    if (e == cudaSuccess) {
        memset(attr, 0, sizeof(*attr));
        attr->sharedSizeBytes = res.shared_bytes;
        attr->constSizeBytes = res.const_bytes;
        attr->localSizeBytes = res.local_bytes;
        unsigned maxntid = k->fn->perf.nmaxntid
                               ? k->fn->perf.maxntid[0] *
                                     (k->fn->perf.nmaxntid > 1 ? k->fn->perf.maxntid[1] : 1) *
                                     (k->fn->perf.nmaxntid > 2 ? k->fn->perf.maxntid[2] : 1)
                               : DEV_THREADS_PER_BLOCK;
        attr->maxThreadsPerBlock = (int)(maxntid < DEV_THREADS_PER_BLOCK ? maxntid
                                                                         : DEV_THREADS_PER_BLOCK);
        /* PTX registers are virtual: report the 32-bit ones, capped like a real allocation. */
        unsigned regs = res.regs_by_size[2] + 2 * res.regs_by_size[3];
        attr->numRegs = (int)(regs > 255 ? 255 : regs);
        /* The virtual architecture the PTX targets (75 for .target sm_75), as the runtime
         * reports it; libraries such as CUB pick their tuning policies by it. */
        attr->ptxVersion = module_arch(k->mod->module);
        attr->binaryVersion = attr->ptxVersion;
        attr->maxDynamicSharedSizeBytes =
            k->max_dynamic_shared ? k->max_dynamic_shared
                                  : shared_per_block(rt) - (int)res.shared_bytes;
        attr->preferredShmemCarveout = -1;
    }
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value)
{
    mb_rt *rt = rt_enter();
    rt_kernel *k = rt_kernel_find(rt, func);
    cudaError_t e = k ? cudaSuccess : cudaErrorInvalidDeviceFunction;
    if (e == cudaSuccess) {
        if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
            if (value < 0 || value > shared_optin(rt))
                e = cudaErrorInvalidValue;
            else
                k->max_dynamic_shared = value;
        } else if (attr != cudaFuncAttributePreferredSharedMemoryCarveout) {
            rt_warn("cudaFuncSetAttribute: attribute %d is not implemented", attr);
            e = cudaErrorNotSupported;
        }
    }
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaFuncSetCacheConfig(const void *func, int cacheConfig)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = rt_kernel_find(rt, func) ? cudaSuccess : cudaErrorInvalidDeviceFunction;
    if (e == cudaSuccess && (cacheConfig < 0 || cacheConfig > 3))
        e = cudaErrorInvalidValue;
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    mb_rt *rt = rt_enter();
    rt_kernel *k = rt_kernel_find(rt, func);
    if (k && name)
        *name = k->name;
    return rt_leave(rt, !name ? cudaErrorInvalidValue : k ? cudaSuccess : cudaErrorInvalidDeviceFunction);
}

/* ----------------------------------------------------------- occupancy */

/* Blocks of `block_size` threads one SM holds, limited by threads, blocks,
 * registers and shared memory (the CUDA occupancy calculator's rules with
 * the device table above). */
static int blocks_per_sm(const mb_rt *rt, const rt_kernel *k, const mb_resources *res, int block_size,
                         size_t dynamic_shared)
{
    if (block_size <= 0 || block_size > DEV_THREADS_PER_BLOCK)
        return 0;
    int warps = (block_size + DEV_WARP - 1) / DEV_WARP;
    int by_threads = rt->dev.threads_per_sm / (warps * DEV_WARP);
    int limit = by_threads < rt->dev.blocks_per_sm ? by_threads : rt->dev.blocks_per_sm;
    unsigned regs = res->regs_by_size[2] + 2 * res->regs_by_size[3];
    if (regs > 255)
        regs = 255;
    unsigned regs_per_warp = (regs * DEV_WARP + 255) / 256 * 256;
    if (regs_per_warp) {
        int by_regs = (int)(rt->dev.regs_per_sm / (regs_per_warp * (unsigned)warps));
        if (by_regs < limit)
            limit = by_regs;
    }
    size_t shared = res->shared_bytes + dynamic_shared;
    if (shared) {
        size_t max_shared = k->max_dynamic_shared > shared_per_block(rt)
                                ? (size_t)shared_optin(rt)
                                : (size_t)shared_per_block(rt);
        if (shared > max_shared)
            return 0;
        int by_shared = (int)(rt->dev.shared_per_sm / shared);
        if (by_shared < limit)
            limit = by_shared;
    }
    return limit;
}

MB_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                          const void *func,
                                                                          int blockSize,
                                                                          size_t dynamicSMemSize,
                                                                          unsigned int flags)
{
    (void)flags;
    mb_rt *rt = rt_enter();
    rt_kernel *k = NULL;
    cudaError_t e = numBlocks ? resolved_kernel(rt, func, &k) : cudaErrorInvalidValue;
    mb_resources res;
    mb_error err;
    if (e == cudaSuccess && mb_function_resources(k->mod->module, k->fn, &res, &err) != MB_OK)
        e = cudaErrorInvalidDeviceFunction;
    if (e == cudaSuccess)
        *numBlocks = blocks_per_sm(rt, k, &res, blockSize, dynamicSMemSize);
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                                 int blockSize,
                                                                 size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                  dynamicSMemSize, 0);
}

MB_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                             const void *func, int numBlocks,
                                                             int blockSize)
{
    mb_rt *rt = rt_enter();
    rt_kernel *k = NULL;
    cudaError_t e = dynamicSmemSize && numBlocks > 0 && blockSize > 0
                        ? resolved_kernel(rt, func, &k)
                        : cudaErrorInvalidValue;
    mb_resources res;
    mb_error err;
    if (e == cudaSuccess && mb_function_resources(k->mod->module, k->fn, &res, &err) != MB_OK)
        e = cudaErrorInvalidDeviceFunction;
    if (e == cudaSuccess) {
        size_t per_block = rt->dev.shared_per_sm / (size_t)numBlocks;
        size_t cap = (size_t)shared_per_block(rt);
        if (per_block > cap)
            per_block = cap;
        *dynamicSmemSize = per_block > res.shared_bytes ? per_block - res.shared_bytes : 0;
    }
    return rt_leave(rt, e);
}

/* ------------------------------------------------------------- streams */

MB_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags,
                                                int priority)
{
    mb_rt *rt = rt_enter();
    struct mb_stream *s = stream ? calloc(1, sizeof(*s)) : NULL;
    if (s) {
        s->flags = flags;
        s->priority = priority;
        *stream = s;
    }
    return rt_leave(rt, !stream ? cudaErrorInvalidValue : s ? cudaSuccess : cudaErrorMemoryAllocation);
}

MB_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    return cudaStreamCreateWithPriority(stream, flags, 0);
}

MB_API cudaError_t cudaStreamCreate(cudaStream_t *stream)
{
    return cudaStreamCreateWithPriority(stream, 0, 0);
}

MB_API cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    mb_rt *rt = rt_enter();
    free(stream);
    return rt_leave(rt, stream ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

MB_API cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    (void)stream;
    mb_rt *rt = rt_enter();
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    (void)stream;
    mb_rt *rt = rt_enter();
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    (void)stream, (void)flags;
    mb_rt *rt = rt_enter();
    return rt_leave(rt, event ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

MB_API cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags)
{
    mb_rt *rt = rt_enter();
    if (flags)
        *flags = stream ? stream->flags : 0;
    return rt_leave(rt, flags ? cudaSuccess : cudaErrorInvalidValue);
}

MB_API cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority)
{
    mb_rt *rt = rt_enter();
    if (priority)
        *priority = stream ? stream->priority : 0;
    return rt_leave(rt, priority ? cudaSuccess : cudaErrorInvalidValue);
}

typedef void (*stream_callback)(cudaStream_t stream, cudaError_t status, void *userData);

MB_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, stream_callback callback,
                                         void *userData, unsigned int flags)
{
    if (!callback || flags != 0)
        return cudaErrorInvalidValue;
    mb_rt *rt = rt_enter();
    cudaError_t status = rt->sticky_error;
    pthread_mutex_unlock(&rt->lock);
    callback(stream, status, userData); /* everything before it in the stream has completed */
    return cudaSuccess;
}

/* -------------------------------------------------------------- events */

MB_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    mb_rt *rt = rt_enter();
    struct mb_event *ev = event ? calloc(1, sizeof(*ev)) : NULL;
    if (ev) {
        ev->flags = flags;
        *event = ev;
    }
    return rt_leave(rt, !event ? cudaErrorInvalidValue : ev ? cudaSuccess : cudaErrorMemoryAllocation);
}

MB_API cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return cudaEventCreateWithFlags(event, 0);
}

MB_API cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    mb_rt *rt = rt_enter();
    free(event);
    return rt_leave(rt, event ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

MB_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    (void)stream;
    mb_rt *rt = rt_enter();
    if (event) {
        event->recorded = 1;
        /* Simulated time under sim (launches advance it), wall time otherwise. */
        event->ms = rt->opt.mode == MB_CUDART_SIM ? rt->device_ms : rt_wall_ms(rt);
    }
    return rt_leave(rt, event ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

MB_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                            unsigned int flags)
{
    (void)flags;
    return cudaEventRecord(event, stream);
}

MB_API cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    return cudaEventRecord(event, stream);
}

MB_API cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, event ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

MB_API cudaError_t cudaEventQuery(cudaEvent_t event)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, event ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

MB_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = cudaSuccess;
    if (!ms || !start || !end)
        e = !ms ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle;
    else if ((start->flags | end->flags) & cudaEventDisableTiming)
        e = cudaErrorInvalidResourceHandle;
    else if (!start->recorded || !end->recorded)
        e = cudaErrorInvalidResourceHandle;
    else
        *ms = (float)(end->ms - start->ms);
    return rt_leave(rt, e);
}

/* ------------------------------------------------------------ profiler */

MB_API cudaError_t cudaProfilerStart(void)
{
    return cudaSuccess; /* every launch is visible to minibench already */
}

MB_API cudaError_t cudaProfilerStop(void)
{
    return cudaSuccess;
}
