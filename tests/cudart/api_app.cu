/*
 * A CUDA program exercising the runtime API beyond malloc/copy/launch, for
 * the runtime library's end-to-end tests: __constant__ and __device__
 * symbols, dynamic shared memory, pitched allocations and 2D copies, pinned,
 * mapped and managed memory, streams, events, device properties, function
 * attributes and occupancy. It checks every result on the host and prints
 * one line per check, then PASS or FAIL.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__constant__ int offsets[4];
__device__ int counter;
__managed__ int managed_sum;

__global__ void add_offset(const int *in, int *out, int n)
{
    extern __shared__ int stage[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    stage[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    if (i < n) {
        out[i] = stage[threadIdx.x] + offsets[i % 4];
        atomicAdd(&counter, 1);
        atomicAdd(&managed_sum, out[i]);
    }
}

/* Doubles every element of a pitched 2D array. */
__global__ void double_2d(float *a, size_t pitch, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) {
        float *row = (float *)((char *)a + y * pitch);
        row[x] *= 2.0f;
    }
}

/* Increments host memory the device sees (mapped or managed). */
__global__ void increment(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

static int failures = 0;
#define CHECK(cond, ...)                                                               \
    do {                                                                               \
        int ok_ = (cond);                                                              \
        printf("%s: ", ok_ ? "ok" : "FAILED");                                         \
        printf(__VA_ARGS__);                                                           \
        printf("\n");                                                                  \
        failures += !ok_;                                                              \
    } while (0)
#define CUDA(call) CHECK((call) == cudaSuccess, "%s", #call)

int main(void)
{
    const int n = 1000;
    int host_in[1000], host_out[1000];
    for (int i = 0; i < n; i++)
        host_in[i] = i * 3;
    int offs[4] = {1, 10, 100, 1000};
    CUDA(cudaMemcpyToSymbol(offsets, offs, sizeof(offs)));
    int zero = 0;
    CUDA(cudaMemcpyToSymbol(counter, &zero, sizeof(zero)));
    managed_sum = 0;

    int *d_in, *d_out;
    CUDA(cudaMalloc((void **)&d_in, n * sizeof(int)));
    CUDA(cudaMalloc((void **)&d_out, n * sizeof(int)));
    cudaStream_t stream;
    CUDA(cudaStreamCreate(&stream));
    cudaEvent_t start, stop;
    CUDA(cudaEventCreate(&start));
    CUDA(cudaEventCreate(&stop));
    CUDA(cudaEventRecord(start, stream));
    CUDA(cudaMemcpyAsync(d_in, host_in, n * sizeof(int), cudaMemcpyHostToDevice, stream));
    add_offset<<<(n + 127) / 128, 128, 128 * sizeof(int), stream>>>(d_in, d_out, n);
    CUDA(cudaGetLastError());
    CUDA(cudaMemcpyAsync(host_out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA(cudaEventRecord(stop, stream));
    CUDA(cudaStreamSynchronize(stream));
    CUDA(cudaEventSynchronize(stop));
    float ms = -1;
    CUDA(cudaEventElapsedTime(&ms, start, stop));
    CHECK(ms >= 0, "elapsed time is not negative");
    int bad = 0;
    long long sum = 0;
    for (int i = 0; i < n; i++) {
        bad += host_out[i] != host_in[i] + offs[i % 4];
        sum += host_out[i];
    }
    CHECK(bad == 0, "add_offset results (%d wrong)", bad);
    int count = 0;
    CUDA(cudaMemcpyFromSymbol(&count, counter, sizeof(count)));
    CHECK(count == n, "__device__ counter = %d", count);
    CUDA(cudaDeviceSynchronize());
    CHECK(managed_sum == (int)sum, "__managed__ sum = %d", managed_sum);
    int *counter_addr = NULL;
    size_t counter_size = 0;
    CUDA(cudaGetSymbolAddress((void **)&counter_addr, counter));
    CUDA(cudaGetSymbolSize(&counter_size, counter));
    CHECK(counter_size == sizeof(int), "symbol size %zu", counter_size);
    CUDA(cudaMemset(counter_addr, 0, sizeof(int)));
    CUDA(cudaMemcpyFromSymbol(&count, counter, sizeof(count)));
    CHECK(count == 0, "counter cleared through its address");

    /* Pitched 2D memory. */
    const int w = 37, h = 11;
    float img[11][37], back[11][37];
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            img[y][x] = (float)(y * 100 + x);
    float *d_img;
    size_t pitch = 0;
    CUDA(cudaMallocPitch((void **)&d_img, &pitch, w * sizeof(float), h));
    CHECK(pitch >= w * sizeof(float), "pitch %zu", pitch);
    CUDA(cudaMemset2D(d_img, pitch, 0, w * sizeof(float), h));
    CUDA(cudaMemcpy2D(d_img, pitch, img, w * sizeof(float), w * sizeof(float), h,
                      cudaMemcpyHostToDevice));
    double_2d<<<dim3(1, h), 64>>>(d_img, pitch, w, h);
    CUDA(cudaGetLastError());
    CUDA(cudaMemcpy2D(back, w * sizeof(float), d_img, pitch, w * sizeof(float), h,
                      cudaMemcpyDeviceToHost));
    bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            bad += back[y][x] != 2 * img[y][x];
    CHECK(bad == 0, "pitched 2D doubling (%d wrong)", bad);

    /* Mapped pinned memory and managed memory: the device writes what the host reads. */
    int *pinned = NULL, *mapped = NULL, *managed = NULL;
    CUDA(cudaHostAlloc((void **)&pinned, 64 * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < 64; i++)
        pinned[i] = i;
    CUDA(cudaHostGetDevicePointer((void **)&mapped, pinned, 0));
    increment<<<1, 64>>>(mapped, 64);
    CUDA(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < 64; i++)
        bad += pinned[i] != i + 1;
    CHECK(bad == 0, "mapped pinned memory (%d wrong)", bad);
    CUDA(cudaMallocManaged((void **)&managed, 100 * sizeof(int)));
    for (int i = 0; i < 100; i++)
        managed[i] = 7 * i;
    increment<<<1, 128>>>(managed, 100);
    CUDA(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < 100; i++)
        bad += managed[i] != 7 * i + 1;
    CHECK(bad == 0, "managed memory (%d wrong)", bad);
    cudaPointerAttributes attr;
    CUDA(cudaPointerGetAttributes(&attr, managed));
    CHECK(attr.type == cudaMemoryTypeManaged, "managed pointer attributes");
    CUDA(cudaPointerGetAttributes(&attr, d_in));
    CHECK(attr.type == cudaMemoryTypeDevice, "device pointer attributes");

    /* The device, the function, occupancy. */
    int devices = 0;
    CUDA(cudaGetDeviceCount(&devices));
    CHECK(devices == 1, "one device");
    cudaDeviceProp prop;
    CUDA(cudaGetDeviceProperties(&prop, 0));
    CHECK(prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024, "properties of %s", prop.name);
    int sms = 0;
    CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CHECK(sms == prop.multiProcessorCount, "SM count %d", sms);
    cudaFuncAttributes fa;
    CUDA(cudaFuncGetAttributes(&fa, add_offset));
    CHECK(fa.maxThreadsPerBlock > 0 && fa.numRegs > 0, "function attributes: %d regs", fa.numRegs);
    int blocks = 0;
    CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, add_offset, 128, 512));
    CHECK(blocks > 0, "occupancy: %d blocks of 128 threads per SM", blocks);
    CUDA(cudaFuncSetCacheConfig(add_offset, cudaFuncCachePreferShared));
    CUDA(cudaSetDevice(0));
    CHECK(cudaSetDevice(1) == cudaErrorInvalidDevice, "device 1 does not exist");
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice, "the last error names it");
    CHECK(cudaGetLastError() == cudaSuccess, "and is cleared by reading it");

    CUDA(cudaFreeHost(pinned));
    CUDA(cudaFree(managed));
    CUDA(cudaFree(d_img));
    CUDA(cudaFree(d_in));
    CUDA(cudaFree(d_out));
    CUDA(cudaEventDestroy(start));
    CUDA(cudaEventDestroy(stop));
    CUDA(cudaStreamDestroy(stream));
    puts(failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
