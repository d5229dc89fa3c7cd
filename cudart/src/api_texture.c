/*
 * Texture objects over linear and pitched 2D device memory and CUDA arrays. A texture
 * object is a 64-bit handle the kernel receives as a parameter; the
 * executor's tex instructions look it up in the memory's texture table
 * (mb_memory_bind_texture) and fetch, filter and convert texels.
 */
#include "rt.h"

#include <string.h>

MB_API struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                          enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d = {x, y, z, w, f};
    return d;
}

/* The texture object as the executor sees it, or an error for what it cannot express. */
static cudaError_t to_texture(mb_rt *rt, const struct cudaResourceDesc *res,
                              const struct cudaTextureDesc *desc, mb_texture *t)
{
    memset(t, 0, sizeof(*t));
    const struct cudaChannelFormatDesc *ch;
    if (res->resType == cudaResourceTypeLinear) {
        ch = &res->res.linear.desc;
        t->addr = (uint64_t)(uintptr_t)res->res.linear.devPtr;
        t->height = 1;
    } else if (res->resType == cudaResourceTypePitch2D) {
        ch = &res->res.pitch2D.desc;
        t->addr = (uint64_t)(uintptr_t)res->res.pitch2D.devPtr;
        t->width = res->res.pitch2D.width;
        t->height = res->res.pitch2D.height;
        t->pitch = res->res.pitch2D.pitchInBytes;
    } else if (res->resType == cudaResourceTypeArray) {
        struct mb_array *a = rt_array_find(rt, res->res.array.array);
        if (!a)
            return cudaErrorInvalidResourceHandle;
        ch = &a->desc;
        t->addr = a->addr;
        t->width = a->width;
        t->height = a->height ? a->height : 1;
        t->pitch = a->pitch;
    } else {
        rt_warn("cudaCreateTextureObject: mipmapped arrays (resource type %d) are not "
                "implemented; use linear, pitched 2D memory or CUDA arrays",
                (int)res->resType);
        return cudaErrorNotSupported;
    }
    int bits = ch->x;
    unsigned channels = (ch->x > 0) + (ch->y > 0) + (ch->z > 0) + (ch->w > 0);
    if ((ch->y && ch->y != bits) || (ch->z && ch->z != bits) || (ch->w && ch->w != bits) ||
        channels == 3 || channels == 0 ||
        (ch->f != cudaChannelFormatKindSigned && ch->f != cudaChannelFormatKindUnsigned &&
         ch->f != cudaChannelFormatKindFloat))
        return cudaErrorInvalidChannelDescriptor;
    t->channels = channels;
    t->channel_bits = (unsigned)bits;
    t->kind = ch->f == cudaChannelFormatKindFloat    ? MB_TEXEL_FLOAT
              : ch->f == cudaChannelFormatKindSigned ? MB_TEXEL_SIGNED
                                                     : MB_TEXEL_UNSIGNED;
    uint64_t texel = (uint64_t)channels * (unsigned)bits / 8;
    if (res->resType == cudaResourceTypeLinear) {
        if (texel == 0 || res->res.linear.sizeInBytes % texel)
            return cudaErrorInvalidValue;
        t->width = res->res.linear.sizeInBytes / texel;
        t->pitch = res->res.linear.sizeInBytes;
    }
    t->read_normalized = desc->readMode == cudaReadModeNormalizedFloat;
    t->normalized_coords = desc->normalizedCoords != 0;
    t->filter_linear = desc->filterMode == cudaFilterModeLinear;
    for (int i = 0; i < 2; i++)
        t->address[i] = desc->addressMode[i] == cudaAddressModeWrap     ? MB_TEX_WRAP
                        : desc->addressMode[i] == cudaAddressModeMirror ? MB_TEX_MIRROR
                        : desc->addressMode[i] == cudaAddressModeBorder ? MB_TEX_BORDER
                                                                        : MB_TEX_CLAMP;
    memcpy(t->border, desc->borderColor, sizeof(t->border));
    return cudaSuccess;
}

MB_API cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                           const struct cudaResourceDesc *pResDesc,
                                           const struct cudaTextureDesc *pTexDesc,
                                           const void *pResViewDesc)
{
    mb_rt *rt = rt_enter();
    if (!pTexObject || !pResDesc || !pTexDesc)
        return rt_leave(rt, cudaErrorInvalidValue);
    if (pResViewDesc) {
        rt_warn("cudaCreateTextureObject: resource views are not implemented");
        return rt_leave(rt, cudaErrorNotSupported);
    }
    mb_texture t;
    cudaError_t e = to_texture(rt, pResDesc, pTexDesc, &t);
    if (e != cudaSuccess)
        return rt_leave(rt, e);
    if (MB_GROW(rt->textures, rt->cap_textures, rt->ntextures + 1) != MB_OK)
        return rt_leave(rt, cudaErrorMemoryAllocation);
    uint64_t handle = rt->next_texture++;
    mb_error err;
    if (mb_memory_bind_texture(rt->mem, handle, &t, &err) != MB_OK) {
        rt_warn("cudaCreateTextureObject: %s", err.msg);
        return rt_leave(rt, err.status == MB_ERR_UNSUPPORTED ? cudaErrorNotSupported
                                                              : cudaErrorInvalidValue);
    }
    rt->textures[rt->ntextures++] = (rt_texture){handle, *pResDesc, *pTexDesc};
    *pTexObject = handle;
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    mb_rt *rt = rt_enter();
    rt_texture *t = rt_texture_find(rt, texObject);
    if (!t)
        return rt_leave(rt, texObject ? cudaErrorInvalidValue : cudaSuccess);
    mb_memory_unbind_texture(rt->mem, texObject);
    *t = rt->textures[--rt->ntextures];
    return rt_leave(rt, cudaSuccess);
}

MB_API cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                    cudaTextureObject_t texObject)
{
    mb_rt *rt = rt_enter();
    rt_texture *t = rt_texture_find(rt, texObject);
    if (t && pResDesc)
        *pResDesc = t->res;
    return rt_leave(rt, t && pResDesc ? cudaSuccess : cudaErrorInvalidValue);
}

MB_API cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                                   cudaTextureObject_t texObject)
{
    mb_rt *rt = rt_enter();
    rt_texture *t = rt_texture_find(rt, texObject);
    if (t && pTexDesc)
        *pTexDesc = t->tex;
    return rt_leave(rt, t && pTexDesc ? cudaSuccess : cudaErrorInvalidValue);
}
