/*
 * Test helper for the CUDA runtime library: the prototypes of the runtime
 * functions the tests call (as a program's host code would), fat binaries
 * built in memory from PTX, and capture of the library's messages on
 * standard error. Header-only, for tests.
 */
#ifndef MB_CUDART_HARNESS_H
#define MB_CUDART_HARNESS_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "../../cudart/src/cuda_abi.h"

#include <minibench/cudart.h>

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, void *tid, void *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global);
char __cudaInitModule(void **fatCubinHandle);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                     cudaStream_t stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                               size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, int kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, int kind, cudaStream_t stream);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, int kind);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                               int kind);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset, int kind);
cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, int attr, int device);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value);
cudaError_t cudaFuncSetCacheConfig(const void *func, int cacheConfig);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *tex, const struct cudaResourceDesc *res,
                                    const struct cudaTextureDesc *desc, const void *view);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t tex);
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(struct mb_array **array, const struct cudaChannelFormatDesc *desc,
                            size_t width, size_t height, unsigned int flags);
cudaError_t cudaMalloc3DArray(struct mb_array **array, const struct cudaChannelFormatDesc *desc,
                              struct cudaExtent extent, unsigned int flags);
cudaError_t cudaFreeArray(struct mb_array *array);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                             unsigned int *flags, struct mb_array *array);
cudaError_t cudaMemcpy2DToArray(struct mb_array *dst, size_t wOffset, size_t hOffset, const void *src,
                                size_t spitch, size_t width, size_t height, int kind);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, const struct mb_array *src,
                                  size_t wOffset, size_t hOffset, size_t width, size_t height,
                                  int kind);
cudaError_t cudaMemcpyToArray(struct mb_array *dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, int kind);
cudaError_t cudaMemcpyFromArray(void *dst, const struct mb_array *src, size_t wOffset, size_t hOffset,
                                size_t count, int kind);
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
/* Unimplemented functions are exported without parameters. */
int cudaGraphCreate(void);

/* ------------------------------------------------------- fat binaries */

enum { HFB_PLAIN, HFB_ZSTD, HFB_LZ4 };

/* A fat binary holding one PTX entry for sm_<sm> (compressed as asked):
 * the layout nvcc 13 writes. Returns a malloc'd buffer, its size in *size. */
static inline unsigned char *harness_fatbin(const char *ptx, unsigned sm, int compression,
                                            size_t *size)
{
    size_t text = strlen(ptx) + 1;
    size_t cap = compression == HFB_ZSTD  ? ZSTD_compressBound(text)
                 : compression == HFB_LZ4 ? (size_t)LZ4_compressBound((int)text)
                                          : text;
    unsigned char *payload = calloc(cap + 16, 1);
    size_t n = text;
    if (compression == HFB_ZSTD)
        n = ZSTD_compress(payload, cap, ptx, text, 3);
    else if (compression == HFB_LZ4)
        n = (size_t)LZ4_compress_default(ptx, (char *)payload, (int)text, (int)cap);
    else
        memcpy(payload, ptx, text);
    size_t padded = (n + 15) / 16 * 16;
    const size_t head = 16, entry = 80;
    *size = head + entry + padded;
    unsigned char *fb = calloc(*size, 1);
    uint32_t u32;
    uint64_t u64;
    u32 = MB_FATBIN_MAGIC;
    memcpy(fb, &u32, 4);
    fb[4] = 1;
    fb[6] = (unsigned char)head;
    u64 = entry + padded;
    memcpy(fb + 8, &u64, 8);
    unsigned char *e = fb + head;
    e[0] = MB_FATBIN_KIND_PTX;
    e[2] = 1;
    e[3] = 1;
    u32 = (uint32_t)entry;
    memcpy(e + 4, &u32, 4);
    u64 = padded;
    memcpy(e + 8, &u64, 8);
    u32 = compression == HFB_PLAIN ? 0 : (uint32_t)n;
    memcpy(e + 0x10, &u32, 4);
    u32 = sm;
    memcpy(e + 0x1c, &u32, 4);
    u64 = 0x11 | (compression == HFB_ZSTD ? MB_FATBIN_FLAG_ZSTD
                  : compression == HFB_LZ4 ? MB_FATBIN_FLAG_LZ4
                                           : 0);
    memcpy(e + 0x28, &u64, 8);
    u64 = compression == HFB_PLAIN ? 0 : text;
    memcpy(e + 0x38, &u64, 8);
    memcpy(e + entry, payload, n);
    free(payload);
    return fb;
}

/* Reads a whole test file (NULL on failure). */
static inline char *harness_read(const char *path, size_t *len)
{
    char *data = NULL;
    size_t n = 0;
    mb_error err;
    if (mb_read_file(path, 1u << 26, &data, &n, &err) != MB_OK)
        return NULL;
    if (len)
        *len = n;
    return data;
}

/* ---------------------------------------------------- standard error */

typedef struct harness_stderr {
    int saved, fd;
    char path[64];
} harness_stderr;

/* Sends file descriptor `fd` (2: standard error) to a temporary file until harness_capture_end(). */
static inline void harness_capture_begin(harness_stderr *h, int fd)
{
    fflush(stdout);
    fflush(stderr);
    snprintf(h->path, sizeof(h->path), "/tmp/mb_cudart_capture_XXXXXX");
    int tmp = mkstemp(h->path);
    h->fd = fd;
    h->saved = dup(fd);
    dup2(tmp, fd);
    close(tmp);
}

static inline void harness_stderr_begin(harness_stderr *h)
{
    harness_capture_begin(h, 2);
}

/* Restores the descriptor; returns what was written meanwhile (malloc'd). */
static inline char *harness_capture_end(harness_stderr *h)
{
    fflush(stdout);
    fflush(stderr);
    dup2(h->saved, h->fd);
    close(h->saved);
    char *text = harness_read(h->path, NULL);
    unlink(h->path);
    return text ? text : calloc(1, 1);
}

static inline char *harness_stderr_end(harness_stderr *h)
{
    return harness_capture_end(h);
}

#endif
