/*
 * CUDA arrays (1D and 2D): opaque on hardware, row-major device memory
 * here, so that texture objects over them fetch like pitched memory. 3D,
 * layered, cubemap and surface-load/store arrays are not implemented.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t element_bytes(const struct cudaChannelFormatDesc *d)
{
    if (d->x < 0 || d->y < 0 || d->z < 0 || d->w < 0)
        return 0;
    int bits = d->x + d->y + d->z + d->w;
    return bits % 8 ? 0 : (size_t)bits / 8;
}

struct mb_array *rt_array_find(mb_rt *rt, const void *array)
{
    for (size_t i = 0; i < rt->narrays; i++)
        if (rt->arrays[i] == array)
            return rt->arrays[i];
    return NULL;
}

static cudaError_t array_new(mb_rt *rt, struct mb_array **out, const struct cudaChannelFormatDesc *desc,
                             size_t width, size_t height, unsigned flags)
{
    if (!out || !desc || width == 0)
        return cudaErrorInvalidValue;
    size_t elem = element_bytes(desc);
    if (!elem || (desc->f != cudaChannelFormatKindSigned && desc->f != cudaChannelFormatKindUnsigned &&
                  desc->f != cudaChannelFormatKindFloat))
        return cudaErrorInvalidChannelDescriptor;
    if (flags) {
        rt_warn("cudaMallocArray: array flags 0x%x (surface load/store, layered, ...) are not "
                "implemented",
                flags);
        return cudaErrorNotSupported;
    }
    size_t rows = height ? height : 1;
    if (width > SIZE_MAX / elem / rows)
        return cudaErrorMemoryAllocation;
    struct mb_array *a = calloc(1, sizeof(*a));
    if (!a || MB_GROW(rt->arrays, rt->cap_arrays, rt->narrays + 1) != MB_OK) {
        free(a);
        return cudaErrorMemoryAllocation;
    }
    mb_error err;
    char name[64];
    snprintf(name, sizeof(name), "cudaArray#%zu", rt->narrays);
    if (mb_memory_alloc(rt->mem, width * elem * rows, name, &a->addr, &err) != MB_OK) {
        free(a);
        return cudaErrorMemoryAllocation;
    }
    a->desc = *desc;
    a->width = width;
    a->height = height;
    a->elem = elem;
    a->pitch = width * elem;
    rt->arrays[rt->narrays++] = a;
    *out = a;
    return cudaSuccess;
}

MB_API cudaError_t cudaMallocArray(struct mb_array **array, const struct cudaChannelFormatDesc *desc,
                                   size_t width, size_t height, unsigned int flags)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, array_new(rt, array, desc, width, height, flags));
}

MB_API cudaError_t cudaMalloc3DArray(struct mb_array **array, const struct cudaChannelFormatDesc *desc,
                                     struct cudaExtent extent, unsigned int flags)
{
    mb_rt *rt = rt_enter();
    if (extent.depth > 0) {
        rt_warn("cudaMalloc3DArray: 3D arrays (depth %zu) are not implemented", extent.depth);
        return rt_leave(rt, cudaErrorNotSupported);
    }
    return rt_leave(rt, array_new(rt, array, desc, extent.width, extent.height, flags));
}

void rt_array_free(mb_rt *rt, struct mb_array *a)
{
    mb_memory_release(rt->mem, a->addr, NULL);
    for (size_t i = 0; i < rt->narrays; i++)
        if (rt->arrays[i] == a) {
            rt->arrays[i] = rt->arrays[--rt->narrays];
            break;
        }
    free(a);
}

MB_API cudaError_t cudaFreeArray(struct mb_array *array)
{
    mb_rt *rt = rt_enter();
    if (!array)
        return rt_leave(rt, cudaSuccess);
    struct mb_array *a = rt_array_find(rt, array);
    if (!a)
        return rt_leave(rt, cudaErrorInvalidResourceHandle);
    rt_array_free(rt, a);
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                                    unsigned int *flags, struct mb_array *array)
{
    mb_rt *rt = rt_enter();
    struct mb_array *a = rt_array_find(rt, array);
    if (!a)
        return rt_leave(rt, cudaErrorInvalidResourceHandle);
    if (desc)
        *desc = a->desc;
    if (extent)
        *extent = (struct cudaExtent){a->width, a->height, 0};
    if (flags)
        *flags = 0;
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, const struct mb_array *array)
{
    mb_rt *rt = rt_enter();
    struct mb_array *a = rt_array_find(rt, array);
    if (!a || !desc)
        return rt_leave(rt, a ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
    *desc = a->desc;
    return rt_leave(rt, cudaSuccess);
}

/* Copies `height` rows of `width` bytes between a pointer (pitch `pitch`) and
 * the array at byte column `x`, row `y`; to_array says which way. */
static cudaError_t array_copy(mb_rt *rt, struct mb_array *a, size_t x, size_t y, void *ptr,
                              size_t pitch, size_t width, size_t height, int kind, int to_array)
{
    if (!a)
        return cudaErrorInvalidResourceHandle;
    if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
        return cudaErrorInvalidMemcpyDirection;
    size_t rows = a->height ? a->height : 1;
    if (x > a->pitch || width > a->pitch - x || y > rows || height > rows - y)
        return cudaErrorInvalidValue;
    if (height > 1 && width > pitch)
        return cudaErrorInvalidPitchValue;
    /* The pointer's side is the device when the kind says so (or it is device memory). */
    int ptr_device = to_array ? (kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDeviceToHost)
                              : (kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyHostToDevice);
    for (size_t r = 0; r < height; r++) {
        uint8_t *arr = mb_memory_host(rt->mem, a->addr + (y + r) * a->pitch + x, width ? width : 1);
        void *p = rt_view(rt, (char *)ptr + r * pitch, width ? width : 1,
                          ptr_device && kind != cudaMemcpyDefault);
        if (!arr || !p)
            return cudaErrorInvalidValue;
        if (to_array)
            memmove(arr, p, width);
        else
            memmove(p, arr, width);
    }
    return cudaSuccess;
}

MB_API cudaError_t cudaMemcpy2DToArray(struct mb_array *dst, size_t wOffset, size_t hOffset,
                                       const void *src, size_t spitch, size_t width, size_t height,
                                       int kind)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, array_copy(rt, rt_array_find(rt, dst), wOffset, hOffset, (void *)(uintptr_t)src,
                                   spitch, width, height, kind, 1));
}

MB_API cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, const struct mb_array *src,
                                         size_t wOffset, size_t hOffset, size_t width,
                                         size_t height, int kind)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, array_copy(rt, rt_array_find(rt, src), wOffset, hOffset, dst, dpitch, width,
                                   height, kind, 0));
}

MB_API cudaError_t cudaMemcpy2DToArrayAsync(struct mb_array *dst, size_t wOffset, size_t hOffset,
                                            const void *src, size_t spitch, size_t width,
                                            size_t height, int kind, cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

MB_API cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, const struct mb_array *src,
                                              size_t wOffset, size_t hOffset, size_t width,
                                              size_t height, int kind, cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}

/* The deprecated linear forms: `count` bytes from (wOffset, hOffset) on, row after row. */
static cudaError_t linear_copy(mb_rt *rt, struct mb_array *a, size_t x, size_t y, void *ptr,
                               size_t count, int kind, int to_array)
{
    if (!a)
        return cudaErrorInvalidResourceHandle;
    while (count) {
        size_t n = a->pitch - x < count ? a->pitch - x : count;
        cudaError_t e = array_copy(rt, a, x, y, ptr, n, n, 1, kind, to_array);
        if (e != cudaSuccess)
            return e;
        ptr = (char *)ptr + n;
        count -= n;
        x = 0;
        y++;
    }
    return cudaSuccess;
}

MB_API cudaError_t cudaMemcpyToArray(struct mb_array *dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t count, int kind)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, linear_copy(rt, rt_array_find(rt, dst), wOffset, hOffset,
                                    (void *)(uintptr_t)src, count, kind, 1));
}

MB_API cudaError_t cudaMemcpyFromArray(void *dst, const struct mb_array *src, size_t wOffset,
                                       size_t hOffset, size_t count, int kind)
{
    mb_rt *rt = rt_enter();
    return rt_leave(rt, linear_copy(rt, rt_array_find(rt, src), wOffset, hOffset, dst, count, kind, 0));
}
