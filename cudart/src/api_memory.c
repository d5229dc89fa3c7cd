/*
 * Memory: device allocations in the executor's memory; pinned, mapped,
 * registered and managed memory as host memory the device sees at the same
 * address; copies, sets and symbols. Streams run in order, so the async
 * forms complete before they return.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PITCH_ALIGN = 512, HOST_ALIGN = 4096 };

static cudaError_t device_alloc(mb_rt *rt, void **ptr, size_t size)
{
    if (!ptr)
        return cudaErrorInvalidValue;
    *ptr = NULL;
    if (size == 0)
        return cudaSuccess;
    char name[64];
    snprintf(name, sizeof(name), "cudaMalloc#%zu", rt->nallocs);
    uint64_t addr = 0;
    mb_error err;
    if (mb_memory_alloc(rt->mem, size, name, &addr, &err) != MB_OK)
        return cudaErrorMemoryAllocation;
    cudaError_t e = rt_alloc_add(rt, (rt_alloc){addr, size, RT_DEVICE, NULL, 0});
    if (e != cudaSuccess) {
        mb_memory_release(rt->mem, addr, NULL);
        return e;
    }
    *ptr = (void *)(uintptr_t)addr;
    return cudaSuccess;
}

MB_API cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    mb_rt *rt = rt_enter();
    if (rt->sticky_error)
        return rt_leave(rt, cudaSuccess);
    return rt_leave(rt, device_alloc(rt, devPtr, size));
}

MB_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
    (void)stream;
    return cudaMalloc(devPtr, size);
}

MB_API cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch)
        return cudaErrorInvalidValue;
    size_t p = (width + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
    if (height && p > SIZE_MAX / height)
        return cudaErrorMemoryAllocation;
    cudaError_t e = cudaMalloc(devPtr, p * height);
    if (e == cudaSuccess)
        *pitch = p;
    return e;
}

/* Host memory the device sees at the same address. */
static cudaError_t host_alloc(mb_rt *rt, void **ptr, size_t size, rt_alloc_kind kind, unsigned flags)
{
    if (!ptr)
        return cudaErrorInvalidValue;
    *ptr = NULL;
    if (size == 0)
        return cudaSuccess;
    void *host = NULL;
    if (posix_memalign(&host, HOST_ALIGN, size) != 0)
        return cudaErrorMemoryAllocation;
    memset(host, 0, size);
    mb_error err;
    const char *name = kind == RT_MANAGED ? "cudaMallocManaged" : "cudaHostAlloc";
    if (mb_memory_map_host(rt->mem, host, size, name, &err) != MB_OK) {
        rt_warn("%s: %s", name, err.msg);
        free(host);
        return cudaErrorMemoryAllocation;
    }
    cudaError_t e = rt_alloc_add(rt, (rt_alloc){(uint64_t)(uintptr_t)host, size, kind, host, flags});
    if (e != cudaSuccess) {
        mb_memory_release(rt->mem, (uint64_t)(uintptr_t)host, NULL);
        free(host);
        return e;
    }
    *ptr = host;
    return cudaSuccess;
}

MB_API cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, host_alloc(rt, ptr, size, RT_PINNED, 0));
}

MB_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, flags > 0xf ? cudaErrorInvalidValue
                                    : host_alloc(rt, pHost, size, RT_PINNED, flags));
}

MB_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, flags != 1 && flags != 2 ? cudaErrorInvalidValue
                                                 : host_alloc(rt, devPtr, size, RT_MANAGED, flags));
}

static cudaError_t release(mb_rt *rt, void *ptr, int host_kind)
{
    if (!ptr)
        return cudaSuccess;
    rt_alloc *a = rt_alloc_find(rt, (uint64_t)(uintptr_t)ptr);
    if (!a || (host_kind ? a->kind != RT_PINNED : (a->kind != RT_DEVICE && a->kind != RT_MANAGED)))
        return host_kind ? cudaErrorInvalidHostPointer : cudaErrorInvalidDevicePointer;
    mb_memory_release(rt->mem, a->addr, NULL);
    if (a->kind == RT_PINNED || a->kind == RT_MANAGED)
        free(a->host);
    *a = rt->allocs[--rt->nallocs];
    return cudaSuccess;
}

MB_API cudaError_t cudaFree(void *devPtr)
{
    mb_rt *rt = rt_enter();
    if (rt->sticky_error)
        return rt_leave(rt, cudaSuccess);
    return rt_leave(rt, release(rt, devPtr, 0));
}

MB_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
    (void)stream;
    return cudaFree(devPtr);
}

MB_API cudaError_t cudaFreeHost(void *ptr)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, release(rt, ptr, 1));
}

MB_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = cudaSuccess;
    mb_error err;
    if (!ptr || !size || flags > 0xf)
        e = cudaErrorInvalidValue;
    else if (rt_alloc_containing(rt, (uint64_t)(uintptr_t)ptr))
        e = cudaErrorHostMemoryAlreadyRegistered;
    else if (mb_memory_map_host(rt->mem, ptr, size, "cudaHostRegister", &err) != MB_OK)
        e = cudaErrorHostMemoryAlreadyRegistered;
    else if ((e = rt_alloc_add(rt, (rt_alloc){(uint64_t)(uintptr_t)ptr, size, RT_REGISTERED, NULL,
                                              flags})) != cudaSuccess)
        mb_memory_release(rt->mem, (uint64_t)(uintptr_t)ptr, NULL);
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaHostUnregister(void *ptr)
{
    mb_rt *rt = rt_enter();
    rt_alloc *a = rt_alloc_find(rt, (uint64_t)(uintptr_t)ptr);
    if (!a || a->kind != RT_REGISTERED)
        return rt_leave(rt, cudaErrorHostMemoryNotRegistered);
    mb_memory_release(rt->mem, a->addr, NULL);
    *a = rt->allocs[--rt->nallocs];
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    mb_rt *rt = rt_enter();
    rt_alloc *a = rt_alloc_containing(rt, (uint64_t)(uintptr_t)pHost);
    cudaError_t e = cudaSuccess;
    if (!pDevice || flags != 0 || !a || a->kind == RT_DEVICE)
        e = cudaErrorInvalidValue;
    else
        *pDevice = pHost; /* unified addressing: the device sees host memory where the host does */
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost)
{
    mb_rt *rt = rt_enter();
    rt_alloc *a = rt_alloc_containing(rt, (uint64_t)(uintptr_t)pHost);
    cudaError_t e = cudaSuccess;
    if (!pFlags || !a || a->kind == RT_DEVICE)
        e = cudaErrorInvalidValue;
    else
        *pFlags = a->flags;
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr)
{
    mb_rt *rt = rt_enter();
    if (!attributes)
        return rt_leave(rt, cudaErrorInvalidValue);
    memset(attributes, 0, sizeof(*attributes));
    rt_alloc *a = rt_alloc_containing(rt, (uint64_t)(uintptr_t)ptr);
    void *p = (void *)(uintptr_t)ptr;
    if (!a) {
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        attributes->hostPointer = p;
    } else {
        static const enum cudaMemoryType types[] = {cudaMemoryTypeDevice, cudaMemoryTypeHost,
                                                    cudaMemoryTypeHost, cudaMemoryTypeManaged};
        attributes->type = types[a->kind];
        attributes->devicePointer = p;
        attributes->hostPointer = a->kind == RT_DEVICE ? NULL : p;
    }
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    mb_rt *rt = rt_enter();
    size_t used = 0;
    for (size_t i = 0; i < rt->nallocs; i++)
        if (rt->allocs[i].kind == RT_DEVICE)
            used += rt->allocs[i].size;
    size_t capacity = (size_t)16 << 30;
    if (free_bytes)
        *free_bytes = used < capacity ? capacity - used : 0;
    if (total)
        *total = capacity;
    return rt_leave(rt, free_bytes && total ? cudaSuccess : cudaErrorInvalidValue);
}

/* -------------------------------------------------------------- copies */

static int valid_kind(int kind)
{
    return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault;
}

/* One copy of `bytes` with both sides resolved to host views. */
static cudaError_t copy(mb_rt *rt, void *dst, const void *src, size_t bytes, int kind)
{
    if (!valid_kind(kind))
        return cudaErrorInvalidMemcpyDirection;
    if (bytes == 0)
        return cudaSuccess;
    int dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    int src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    void *d = rt_view(rt, dst, bytes, dst_dev);
    const void *s = rt_view(rt, src, bytes, src_dev);
    if (!d || !s)
        return cudaErrorInvalidValue;
    memmove(d, s, bytes);
    return cudaSuccess;
}

MB_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, int kind)
{
    mb_rt *rt = rt_enter();
    if (rt->sticky_error)
        return rt_leave(rt, cudaSuccess);
    return rt_leave(rt, copy(rt, dst, src, count, kind));
}

MB_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, int kind,
                                   cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy(dst, src, count, kind);
}

MB_API cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, int kind,
                                        cudaStream_t stream)
{
    return cudaMemcpyAsync(dst, src, count, kind, stream);
}

MB_API cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                                  size_t count)
{
    if (dstDevice != 0 || srcDevice != 0)
        return cudaErrorInvalidDevice;
    return cudaMemcpy(dst, src, count, cudaMemcpyDeviceToDevice);
}

static cudaError_t copy_2d(mb_rt *rt, void *dst, size_t dpitch, const void *src, size_t spitch,
                           size_t width, size_t height, int kind)
{
    if ((height > 1 && (width > dpitch || width > spitch)))
        return cudaErrorInvalidPitchValue;
    for (size_t row = 0; row < height; row++) {
        cudaError_t e = copy(rt, (char *)dst + row * dpitch, (const char *)src + row * spitch,
                             width, kind);
        if (e != cudaSuccess)
            return e;
    }
    return valid_kind(kind) ? cudaSuccess : cudaErrorInvalidMemcpyDirection;
}

MB_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                size_t width, size_t height, int kind)
{
    mb_rt *rt = rt_enter();
    if (rt->sticky_error)
        return rt_leave(rt, cudaSuccess);
    return rt_leave(rt, copy_2d(rt, dst, dpitch, src, spitch, width, height, kind));
}

MB_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, int kind, cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

static cudaError_t set(mb_rt *rt, void *ptr, int value, size_t bytes)
{
    if (bytes == 0)
        return cudaSuccess;
    void *d = rt_view(rt, ptr, bytes, 1);
    if (!d)
        return cudaErrorInvalidValue;
    memset(d, value, bytes);
    return cudaSuccess;
}

MB_API cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    mb_rt *rt = rt_enter();
    if (rt->sticky_error)
        return rt_leave(rt, cudaSuccess);
    return rt_leave(rt, set(rt, devPtr, value, count));
}

MB_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    (void)stream;
    return cudaMemset(devPtr, value, count);
}

MB_API cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = height > 1 && width > pitch ? cudaErrorInvalidPitchValue : cudaSuccess;
    for (size_t row = 0; e == cudaSuccess && row < height; row++)
        e = set(rt, (char *)devPtr + row * pitch, value, width);
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                     size_t height, cudaStream_t stream)
{
    (void)stream;
    return cudaMemset2D(devPtr, pitch, value, width, height);
}

/* Memory is host-backed and always resident: prefetches and advice have
 * nothing to move, and succeed as they would on a single-device system. */
MB_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, void *location,
                                        unsigned flags, cudaStream_t stream)
{
    (void)location, (void)flags, (void)stream;
    mb_rt *rt = rt_enter();
    return rt_leave(rt, rt_view(rt, devPtr, count, 1) ? cudaSuccess : cudaErrorInvalidValue);
}

MB_API cudaError_t cudaMemAdvise(const void *devPtr, size_t count, int advice, void *location)
{
    (void)advice, (void)location;
    mb_rt *rt = rt_enter();
    return rt_leave(rt, rt_view(rt, devPtr, count, 1) ? cudaSuccess : cudaErrorInvalidValue);
}

/* ------------------------------------------------------------- symbols */

static cudaError_t symbol_view(mb_rt *rt, const void *symbol, size_t count, size_t offset,
                               void **view)
{
    rt_var *v = rt_var_find(rt, symbol);
    if (!v)
        return cudaErrorInvalidSymbol;
    cudaError_t e = rt_var_resolve(rt, v);
    if (e != cudaSuccess)
        return e;
    if (offset > v->size || count > v->size - offset)
        return cudaErrorInvalidValue;
    *view = mb_memory_host(rt->mem, v->addr + offset, count ? count : 1);
    return *view ? cudaSuccess : cudaErrorInvalidSymbol;
}

MB_API cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                      size_t offset, int kind)
{
    mb_rt *rt = rt_enter();
    if (rt->sticky_error)
        return rt_leave(rt, cudaSuccess);
    void *view = NULL;
    cudaError_t e = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                            kind == cudaMemcpyDefault
                        ? symbol_view(rt, symbol, count, offset, &view)
                        : cudaErrorInvalidMemcpyDirection;
    if (e == cudaSuccess)
        e = copy(rt, view, src, count, kind == cudaMemcpyDefault ? cudaMemcpyDefault
                                      : kind == cudaMemcpyHostToDevice ? cudaMemcpyHostToHost
                                                                       : cudaMemcpyDeviceToHost);
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                        int kind)
{
    mb_rt *rt = rt_enter();
    if (rt->sticky_error)
        return rt_leave(rt, cudaSuccess);
    void *view = NULL;
    cudaError_t e = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                            kind == cudaMemcpyDefault
                        ? symbol_view(rt, symbol, count, offset, &view)
                        : cudaErrorInvalidMemcpyDirection;
    if (e == cudaSuccess)
        e = copy(rt, dst, view, count, kind == cudaMemcpyDefault ? cudaMemcpyDefault
                                     : kind == cudaMemcpyDeviceToHost ? cudaMemcpyHostToHost
                                                                      : cudaMemcpyHostToDevice);
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
                                           size_t offset, int kind, cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

MB_API cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                             size_t offset, int kind, cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

MB_API cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
    mb_rt *rt = rt_enter();
    rt_var *v = rt_var_find(rt, symbol);
    cudaError_t e = v ? rt_var_resolve(rt, v) : cudaErrorInvalidSymbol;
    if (e == cudaSuccess && !devPtr)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        *devPtr = (void *)(uintptr_t)v->addr;
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
    mb_rt *rt = rt_enter();
    rt_var *v = rt_var_find(rt, symbol);
    cudaError_t e = v ? cudaSuccess : cudaErrorInvalidSymbol;
    if (e == cudaSuccess && !size)
        e = cudaErrorInvalidValue;
    if (e == cudaSuccess)
        *size = v->size;
    return rt_leave(rt, e);
}
