/*
 * Texture fetches for the executor's and the runtime library's texture tests.
 * textures.ptx is `nvcc -arch=sm_75 -ptx -O3 textures.cu` (CUDA 13.0).
 */
/* Sums a texture object over linear memory (tex1Dfetch) and a pitched 2D one (tex2D). */
extern "C" __global__ void texture_sum(cudaTextureObject_t lin, cudaTextureObject_t img, int w,
                                       int h, float *out)
{
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h)
        out[y * w + x] = tex1Dfetch<float>(lin, y * w + x) + tex2D<float>(img, x + 0.5f, y + 0.5f);
}
