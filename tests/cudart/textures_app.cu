/*
 * A CUDA program reading its inputs through texture objects (linear memory,
 * pitched 2D memory and a CUDA array), for the runtime library's end-to-end
 * tests. Prints the number of wrong sums, then PASS or FAIL.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "textures.cu"

int main(void)
{
    const int w = 20, h = 6;
    float a[w * h], b[w * h], out[w * h];
    for (int i = 0; i < w * h; i++) {
        a[i] = (float)i;
        b[i] = 1000.0f + 0.5f * (float)i;
    }
    float *lin, *img, *dout;
    size_t pitch;
    cudaMalloc((void **)&lin, sizeof(a));
    cudaMallocPitch((void **)&img, &pitch, w * sizeof(float), h);
    cudaMalloc((void **)&dout, sizeof(out));
    cudaMemcpy(lin, a, sizeof(a), cudaMemcpyHostToDevice);
    cudaMemcpy2D(img, pitch, b, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
    cudaResourceDesc r1 = {}, r2 = {};
    r1.resType = cudaResourceTypeLinear;
    r1.res.linear.devPtr = lin;
    r1.res.linear.desc = cudaCreateChannelDesc<float>();
    r1.res.linear.sizeInBytes = sizeof(a);
    r2.resType = cudaResourceTypePitch2D;
    r2.res.pitch2D.devPtr = img;
    r2.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    r2.res.pitch2D.width = w;
    r2.res.pitch2D.height = h;
    r2.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t1 = 0, t2 = 0;
    if (cudaCreateTextureObject(&t1, &r1, &td, NULL) != cudaSuccess ||
        cudaCreateTextureObject(&t2, &r2, &td, NULL) != cudaSuccess) {
        printf("cudaCreateTextureObject failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 2;
    }
    texture_sum<<<h, 32>>>(t1, t2, w, h, dout);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < w * h; i++)
        bad += out[i] != a[i] + b[i];
    printf("texture sums: %d wrong (%s)\n", bad, cudaGetErrorName(e));
    /* Again with the 2D texture over a CUDA array. */
    cudaArray_t arr;
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaMallocArray(&arr, &fd, w, h);
    cudaMemcpy2DToArray(arr, 0, 0, b, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
    cudaResourceDesc r3 = {};
    r3.resType = cudaResourceTypeArray;
    r3.res.array.array = arr;
    cudaTextureObject_t t3 = 0;
    cudaError_t ce = cudaCreateTextureObject(&t3, &r3, &td, NULL);
    cudaMemset(dout, 0, sizeof(out));
    texture_sum<<<h, 32>>>(t1, t3, w, h, dout);
    cudaError_t e2 = cudaDeviceSynchronize();
    cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost);
    int bad2 = 0;
    for (int i = 0; i < w * h; i++)
        bad2 += out[i] != a[i] + b[i];
    printf("array texture sums: %d wrong (%s, %s)\n", bad2, cudaGetErrorName(ce), cudaGetErrorName(e2));
    bad += bad2 + (ce != cudaSuccess) + (e2 != cudaSuccess);
    cudaDestroyTextureObject(t3);
    cudaFreeArray(arr);
    cudaDestroyTextureObject(t1);
    cudaDestroyTextureObject(t2);
    puts(bad || e != cudaSuccess ? "FAIL" : "PASS");
    return bad || e != cudaSuccess;
}
