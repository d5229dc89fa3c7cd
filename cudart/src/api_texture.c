/*
 * Texture objects over linear and pitched 2D device memory. A texture
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
