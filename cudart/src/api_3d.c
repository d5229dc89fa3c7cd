/*
 * 3D memory: cudaMalloc3D's pitched allocations, cudaMemset3D, and
 * cudaMemcpy3D between pitched memory and 1D/2D CUDA arrays (3D arrays are
 * not implemented). Positions and widths are bytes for pitched memory and
 * elements for arrays, as in the CUDA runtime.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt.h"

#include <string.h>

enum { PITCH_ALIGN_3D = 512 };

cudaError_t cudaMalloc(void **devPtr, size_t size); /* api_memory.c */

MB_API cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent)
{
    if (!pitchedDevPtr)
        return cudaErrorInvalidValue;
    size_t pitch = (extent.width + PITCH_ALIGN_3D - 1) / PITCH_ALIGN_3D * PITCH_ALIGN_3D;
    size_t rows = extent.height * (extent.depth ? extent.depth : 1);
    if (rows && pitch > SIZE_MAX / rows)
        return cudaErrorMemoryAllocation;
    void *ptr = NULL;
    cudaError_t e = cudaMalloc(&ptr, pitch * rows);
    if (e == cudaSuccess)
        *pitchedDevPtr = (struct cudaPitchedPtr){ptr, pitch, extent.width, extent.height};
    return e;
}

MB_API cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent)
{
    mb_rt *rt = rt_enter();
    cudaError_t e = extent.width > pitchedDevPtr.pitch ? cudaErrorInvalidValue : cudaSuccess;
    for (size_t z = 0; e == cudaSuccess && z < extent.depth; z++)
        for (size_t y = 0; e == cudaSuccess && y < extent.height; y++) {
            char *row = (char *)pitchedDevPtr.ptr + (z * pitchedDevPtr.ysize + y) * pitchedDevPtr.pitch;
            void *d = extent.width ? rt_view(rt, row, extent.width, 1) : row;
            if (!d)
                e = cudaErrorInvalidValue;
            else if (extent.width)
                memset(d, value, extent.width);
        }
    return rt_leave(rt, e);
}

MB_API cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                                     struct cudaExtent extent, cudaStream_t stream)
{
    (void)stream;
    return cudaMemset3D(pitchedDevPtr, value, extent);
}

/* One side of a 3D copy: the host view of row (y, z), `bytes` long. */
static void *side_row(mb_rt *rt, struct mb_array *a, const struct cudaPos *pos,
                      const struct cudaPitchedPtr *p, size_t y, size_t z, size_t bytes, int device)
{
    if (a) {
        size_t rows = a->height ? a->height : 1;
        size_t x = pos->x * a->elem;
        if (z + pos->z > 0 || pos->y + y >= rows || x > a->pitch || bytes > a->pitch - x)
            return NULL;
        return mb_memory_host(rt->mem, a->addr + (pos->y + y) * a->pitch + x, bytes ? bytes : 1);
    }
    char *row = (char *)p->ptr + ((pos->z + z) * p->ysize + pos->y + y) * p->pitch + pos->x;
    return rt_view(rt, row, bytes ? bytes : 1, device);
}

MB_API cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
    mb_rt *rt = rt_enter();
    if (rt->sticky_error)
        return rt_leave(rt, cudaSuccess);
    if (!p || (p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr) ||
        (!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr))
        return rt_leave(rt, cudaErrorInvalidValue);
    if (p->kind < cudaMemcpyHostToHost || p->kind > cudaMemcpyDefault)
        return rt_leave(rt, cudaErrorInvalidMemcpyDirection);
    struct mb_array *sa = p->srcArray ? rt_array_find(rt, p->srcArray) : NULL;
    struct mb_array *da = p->dstArray ? rt_array_find(rt, p->dstArray) : NULL;
    if ((p->srcArray && !sa) || (p->dstArray && !da))
        return rt_leave(rt, cudaErrorInvalidResourceHandle);
    /* With an array on either side the width counts elements. */
    size_t elem = sa ? sa->elem : da ? da->elem : 1;
    size_t bytes = p->extent.width * elem;
    int src_dev = p->kind == cudaMemcpyDeviceToHost || p->kind == cudaMemcpyDeviceToDevice;
    int dst_dev = p->kind == cudaMemcpyHostToDevice || p->kind == cudaMemcpyDeviceToDevice;
    size_t depth = p->extent.depth ? p->extent.depth : 1;
    for (size_t z = 0; z < depth; z++)
        for (size_t y = 0; y < p->extent.height; y++) {
            void *d = side_row(rt, da, &p->dstPos, &p->dstPtr, y, z, bytes, dst_dev);
            void *s = side_row(rt, sa, &p->srcPos, &p->srcPtr, y, z, bytes, src_dev);
            if (!d || !s)
                return rt_leave(rt, cudaErrorInvalidValue);
            memmove(d, s, bytes);
        }
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
    (void)stream;
    return cudaMemcpy3D(p);
}
