/*
 * tex_surf.cu - texture and surface objects.
 *
 * Bindless textures are 64-bit .u64 kernel parameters used as the first
 * operand of tex.1d/tex.2d/tex.3d/tex.a2d/tld4/tex.level/tex.grad
 * instructions (with vector destinations such as {%f1, %f2, %f3, %f4});
 * surfaces use suld.b/sust.b with .trap/.clamp/.zero boundary modes, byte
 * x-coordinates and .v2/.v4 payloads; txq/suq query sizes. A small host
 * function shows how the objects are created, so the file is a complete
 * program fragment.
 */
#include <cuda_runtime.h>

/* Linear-memory texture: 1D fetch by integer index (tex.1d.v4 ... .s32). */
extern "C" __global__ void tex1d_fetch(cudaTextureObject_t tex, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float centre = tex1Dfetch<float>(tex, i);
    const float left = tex1Dfetch<float>(tex, i - 1); /* out of range reads are zero */
    const float right = tex1Dfetch<float>(tex, i + 1);
    out[i] = 0.25f * left + 0.5f * centre + 0.25f * right;
}

/* 2D array texture with hardware filtering: bilinear sample, gather,
 * explicit level of detail and gradients, plus a size query. */
extern "C" __global__ void tex2d_sample(cudaTextureObject_t tex, float4 *out, int width,
                                        int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const float u = (x + 0.5f) / width, v = (y + 0.5f) / height;
    float4 s = tex2D<float4>(tex, u, v);
    const float4 g = tex2Dgather<float4>(tex, u, v, 1); /* green channel of 4 texels */
    const float4 l = tex2DLod<float4>(tex, u, v, 1.5f);
    const float4 d = tex2DGrad<float4>(tex, u, v, make_float2(1.0f / width, 0.0f),
                                       make_float2(0.0f, 1.0f / height));
    s.x += g.x + g.y + l.x + d.x;
    s.y += g.z + g.w + l.y + d.y;
    out[y * width + x] = s;
}

/* 3D and layered textures. */
extern "C" __global__ void tex3d_layered(cudaTextureObject_t vol, cudaTextureObject_t layers,
                                         float *out, int n, int nlayers)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float t = (float)i / n;
    float acc = tex3D<float>(vol, t, 1.0f - t, 0.5f);
#pragma unroll 1
    for (int layer = 0; layer < nlayers; ++layer)
        acc += tex2DLayered<float>(layers, t, t * t, layer) + tex1DLayered<float>(layers, t, layer);
    out[i] = acc;
}

/* Surfaces: read-modify-write of a 2D uchar4 image with different
 * boundary modes, and a 1D float surface. */
extern "C" __global__ void surf_rmw(cudaSurfaceObject_t image, cudaSurfaceObject_t line,
                                    int width, int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    uchar4 p = surf2Dread<uchar4>(image, x * (int)sizeof(uchar4), y); /* x in bytes */
    const uchar4 below = surf2Dread<uchar4>(image, x * (int)sizeof(uchar4), y + 1,
                                            cudaBoundaryModeClamp);
    const uchar4 right = surf2Dread<uchar4>(image, (x + 1) * (int)sizeof(uchar4), y,
                                            cudaBoundaryModeZero);
    p.x = (unsigned char)((p.x + below.x + right.x) / 3);
    p.w = 255;
    surf2Dwrite(p, image, x * (int)sizeof(uchar4), y);
    if (y == 0) {
        const float f = surf1Dread<float>(line, x * (int)sizeof(float));
        surf1Dwrite(f * 0.5f + p.x, line, x * (int)sizeof(float), cudaBoundaryModeTrap);
    }
}

/* Host side: create a linear-memory texture object over a device buffer. */
cudaTextureObject_t make_linear_texture(float *device_buffer, size_t count)
{
    cudaResourceDesc resource = {};
    resource.resType = cudaResourceTypeLinear;
    resource.res.linear.devPtr = device_buffer;
    resource.res.linear.desc = cudaCreateChannelDesc<float>();
    resource.res.linear.sizeInBytes = count * sizeof(float);
    cudaTextureDesc desc = {};
    desc.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex = 0;
    if (cudaCreateTextureObject(&tex, &resource, &desc, NULL) != cudaSuccess)
        return 0;
    return tex;
}
