/*
 * The CUDA runtime library's memory, stream, event, device, function
 * attribute and occupancy calls (no nvcc needed), and the executor memory
 * hooks under them: host ranges mapped at their own address and freeing.
 */
#include "cudart_harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static void stub_scale_bias(void) {}
static void stub_increment(void) {}
static unsigned char *fatbin;
static void **handle;

/* A kernel adding 1 to n ints at a pointer: run on mapped and managed memory. */
static const char increment_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry increment(.param .u64 p, .param .u32 n)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p];\n  ld.param.u32 %r1, [n];\n  mov.u32 %r2, %tid.x;\n"
    "  setp.ge.u32 %p1, %r2, %r1;\n  @%p1 bra DONE;\n"
    "  mul.wide.u32 %rd2, %r2, 4;\n  add.s64 %rd3, %rd1, %rd2;\n"
    "  ld.u32 %r3, [%rd3];\n  add.s32 %r4, %r3, 1;\n  st.u32 [%rd3], %r4;\n"
    "DONE:\n  ret;\n}\n";

static int setup(void **state)
{
    (void)state;
    char *api = harness_read(MB_TEST_DATA "/cudart/runtime_api.ptx", NULL);
    assert_non_null(api);
    size_t n = strlen(api) + sizeof(increment_ptx);
    char *both = malloc(n);
    /* one module: the runtime_api kernels plus increment (drop its header) */
    snprintf(both, n, "%s%s", api, strstr(increment_ptx, ".visible"));
    free(api);
    size_t size;
    fatbin = harness_fatbin(both, 75, HFB_ZSTD, &size);
    free(both);
    static mb_fatbin_wrapper wrapper;
    wrapper = (mb_fatbin_wrapper){MB_FATBIN_WRAPPER_MAGIC, 1, fatbin, NULL};
    handle = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(handle, (const char *)stub_scale_bias, (char *)"scale_bias",
                           "scale_bias", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(handle, (const char *)stub_increment, (char *)"increment", "increment",
                           -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(handle);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cudaDeviceReset();
    __cudaUnregisterFatBinary(handle);
    free(fatbin);
    return 0;
}

static void increment(int *p, unsigned n)
{
    void *args[] = {&p, &n};
    assert_int_equal(cudaLaunchKernel(stub_increment, (dim3){1, 1, 1}, (dim3){64, 1, 1}, args, 0,
                                      NULL),
                     cudaSuccess);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
}

static void test_host_memory_the_device_sees(void **state)
{
    (void)state;
    /* Mapped pinned memory: the device pointer is the host pointer. */
    int *pinned = NULL, *dev = NULL;
    assert_int_equal(cudaHostAlloc((void **)&pinned, 40 * sizeof(int), cudaHostAllocMapped),
                     cudaSuccess);
    for (int i = 0; i < 40; i++)
        pinned[i] = i;
    assert_int_equal(cudaHostGetDevicePointer((void **)&dev, pinned, 0), cudaSuccess);
    assert_ptr_equal(dev, pinned);
    increment(dev, 40);
    for (int i = 0; i < 40; i++)
        assert_int_equal(pinned[i], i + 1);
    /* Managed memory. */
    int *managed = NULL;
    assert_int_equal(cudaMallocManaged((void **)&managed, 64 * sizeof(int), 1), cudaSuccess);
    managed[63] = 41;
    increment(managed, 64);
    assert_int_equal(managed[63], 42);
    assert_int_equal(managed[0], 1);
    /* Registered host memory. */
    int local[16] = {0};
    assert_int_equal(cudaHostRegister(local, sizeof(local), 0), cudaSuccess);
    assert_int_equal(cudaHostRegister(local, sizeof(local), 0), cudaErrorHostMemoryAlreadyRegistered);
    increment(local, 16);
    assert_int_equal(local[15], 1);
    assert_int_equal(cudaHostUnregister(local), cudaSuccess);
    assert_int_equal(cudaHostUnregister(local), cudaErrorHostMemoryNotRegistered);
    /* Unregistered host memory is not device memory: the kernel faults. */
    harness_stderr h;
    harness_stderr_begin(&h);
    void *args[] = {&(int *){local}, &(unsigned){16}};
    assert_int_equal(cudaLaunchKernel(stub_increment, (dim3){1, 1, 1}, (dim3){32, 1, 1}, args, 0, NULL),
                     cudaSuccess);
    cudaError_t e = cudaDeviceSynchronize();
    char *text = harness_stderr_end(&h);
    assert_int_equal(e, cudaErrorIllegalAddress);
    if (!strstr(text, "out-of-bounds global load"))
        fail_msg("%s", text);
    free(text);
    assert_int_equal(cudaDeviceReset(), cudaSuccess);
    /* Pointer attributes by kind. */
    struct cudaPointerAttributes attr;
    void *d = NULL;
    assert_int_equal(cudaMalloc(&d, 64), cudaSuccess);
    assert_int_equal(cudaPointerGetAttributes(&attr, (char *)d + 8), cudaSuccess);
    assert_int_equal(attr.type, cudaMemoryTypeDevice);
    assert_int_equal(cudaHostAlloc((void **)&pinned, 64, 0), cudaSuccess);
    assert_int_equal(cudaPointerGetAttributes(&attr, pinned), cudaSuccess);
    assert_int_equal(attr.type, cudaMemoryTypeHost);
    assert_int_equal(cudaPointerGetAttributes(&attr, local), cudaSuccess);
    assert_int_equal(attr.type, cudaMemoryTypeUnregistered);
    assert_int_equal(cudaFreeHost(pinned), cudaSuccess);
    assert_int_equal(cudaFreeHost(d), cudaErrorInvalidHostPointer);
    assert_int_equal(cudaFree(d), cudaSuccess);
    cudaGetLastError();
}

static void test_copies(void **state)
{
    (void)state;
    /* Pitched allocation, 2D copies and sets. */
    char *img = NULL;
    size_t pitch = 0;
    assert_int_equal(cudaMallocPitch((void **)&img, &pitch, 100, 5), cudaSuccess);
    assert_int_equal(pitch, 512);
    char src[5][100], back[5][100];
    for (int y = 0; y < 5; y++)
        for (int x = 0; x < 100; x++)
            src[y][x] = (char)(y * 7 + x);
    assert_int_equal(cudaMemset2D(img, pitch, 0x5a, 100, 5), cudaSuccess);
    assert_int_equal(cudaMemcpy2D(img, pitch, src, 100, 60, 5, cudaMemcpyHostToDevice), cudaSuccess);
    assert_int_equal(cudaMemcpy2D(back, 100, img, pitch, 100, 5, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int y = 0; y < 5; y++) {
        assert_memory_equal(back[y], src[y], 60);
        assert_int_equal(back[y][60], 0x5a);
    }
    assert_int_equal(cudaMemcpy2D(back, 10, img, pitch, 100, 5, cudaMemcpyDeviceToHost),
                     cudaErrorInvalidPitchValue);
    /* Device to device, async, default direction, bad directions and pointers. */
    char *d2 = NULL;
    assert_int_equal(cudaMalloc((void **)&d2, 100), cudaSuccess);
    assert_int_equal(cudaMemcpyAsync(d2, img + pitch, 100, cudaMemcpyDeviceToDevice, NULL),
                     cudaSuccess);
    char row[100];
    assert_int_equal(cudaMemcpy(row, d2, 100, cudaMemcpyDefault), cudaSuccess);
    assert_memory_equal(row, src[1], 60);
    assert_int_equal(cudaMemcpy(row, d2, 100, 7), cudaErrorInvalidMemcpyDirection);
    assert_int_equal(cudaMemcpy(row, d2, 101, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    assert_int_equal(cudaMemcpy(row, row + 1, 10, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
    assert_int_equal(cudaMemset(d2 + 90, 0, 11), cudaErrorInvalidValue);
    assert_int_equal(cudaFree(img), cudaSuccess);
    assert_int_equal(cudaFree(d2), cudaSuccess);
    assert_int_equal(cudaFree(d2), cudaErrorInvalidDevicePointer);
    size_t free_bytes = 0, total = 0;
    assert_int_equal(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    assert_true(free_bytes <= total && total > 0);
    cudaGetLastError();
}

static void test_3d_copies(void **state)
{
    (void)state;
    enum { W = 10, H = 4, D = 3 };
    float src[D][H][W], back[D][H][W];
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                src[z][y][x] = (float)(z * 100 + y * 10 + x);
    struct cudaExtent extent = {W * sizeof(float), H, D};
    struct cudaPitchedPtr dev;
    assert_int_equal(cudaMalloc3D(&dev, extent), cudaSuccess);
    assert_int_equal(dev.pitch, 512);
    assert_int_equal(dev.ysize, H);
    assert_int_equal(cudaMemset3D(dev, 0x7f, extent), cudaSuccess);
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof(p));
    p.srcPtr = (struct cudaPitchedPtr){src, W * sizeof(float), W, H};
    p.dstPtr = dev;
    /* a 2x2x2 box at (x 1 element, y 1, z 1) only */
    p.srcPos = (struct cudaPos){sizeof(float), 1, 1};
    p.dstPos = p.srcPos;
    p.extent = (struct cudaExtent){2 * sizeof(float), 2, 2};
    p.kind = cudaMemcpyHostToDevice;
    assert_int_equal(cudaMemcpy3D(&p), cudaSuccess);
    memset(&p, 0, sizeof(p));
    p.srcPtr = dev;
    p.dstPtr = (struct cudaPitchedPtr){back, W * sizeof(float), W, H};
    p.extent = extent;
    p.kind = cudaMemcpyDeviceToHost;
    assert_int_equal(cudaMemcpy3D(&p), cudaSuccess);
    float fill;
    memset(&fill, 0x7f, sizeof(fill));
    for (int z = 0; z < D; z++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int in_box = z >= 1 && z <= 2 && y >= 1 && y <= 2 && x >= 1 && x <= 2;
                assert_true(memcmp(&back[z][y][x], in_box ? &src[z][y][x] : &fill, 4) == 0);
            }
    /* A copy needs exactly one source and one destination. */
    p.srcArray = (cudaArray_t)&fill;
    assert_int_equal(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    p.srcArray = NULL;
    p.kind = 9;
    assert_int_equal(cudaMemcpy3D(&p), cudaErrorInvalidMemcpyDirection);
    /* Into and out of a 2D array (positions in elements). */
    struct mb_array *arr = NULL;
    struct cudaChannelFormatDesc fd = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    assert_int_equal(cudaMallocArray(&arr, &fd, W, H, 0), cudaSuccess);
    memset(&p, 0, sizeof(p));
    p.srcPtr = (struct cudaPitchedPtr){src[2], W * sizeof(float), W, H};
    p.dstArray = arr;
    p.extent = (struct cudaExtent){W, H, 1};
    p.kind = cudaMemcpyHostToDevice;
    assert_int_equal(cudaMemcpy3D(&p), cudaSuccess);
    float row[W];
    assert_int_equal(cudaMemcpyFromArray(row, arr, 0, 3, sizeof(row), cudaMemcpyDeviceToHost), cudaSuccess);
    assert_memory_equal(row, src[2][3], sizeof(row));
    p.extent.depth = 2; /* arrays here have one slice */
    assert_int_equal(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    assert_int_equal(cudaFreeArray(arr), cudaSuccess);
    assert_int_equal(cudaFree(dev.ptr), cudaSuccess);
    cudaGetLastError();
}

static void test_streams_and_events(void **state)
{
    (void)state;
    cudaStream_t s = NULL;
    cudaEvent_t a = NULL, b = NULL, untimed = NULL;
    assert_int_equal(cudaStreamCreate(&s), cudaSuccess);
    assert_int_equal(cudaEventCreate(&a), cudaSuccess);
    assert_int_equal(cudaEventCreate(&b), cudaSuccess);
    assert_int_equal(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
    float ms = -1;
    assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaEventRecord(a, s), cudaSuccess);
    assert_int_equal(cudaEventRecord(b, s), cudaSuccess);
    assert_int_equal(cudaEventRecord(untimed, s), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(s), cudaSuccess);
    assert_int_equal(cudaEventSynchronize(b), cudaSuccess);
    assert_int_equal(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    assert_true(ms >= 0.0f);
    assert_int_equal(cudaEventElapsedTime(&ms, a, untimed), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaEventDestroy(a), cudaSuccess);
    assert_int_equal(cudaEventDestroy(b), cudaSuccess);
    assert_int_equal(cudaEventDestroy(untimed), cudaSuccess);
    assert_int_equal(cudaStreamDestroy(s), cudaSuccess);
    cudaGetLastError();
}

static void test_device_and_functions(void **state)
{
    (void)state;
    int count = 0;
    assert_int_equal(cudaGetDeviceCount(&count), cudaSuccess);
    assert_int_equal(count, 1);
    assert_int_equal(cudaSetDevice(0), cudaSuccess);
    assert_int_equal(cudaSetDevice(1), cudaErrorInvalidDevice);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidDevice);
    struct cudaDeviceProp prop;
    assert_int_equal(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    assert_int_equal(prop.warpSize, 32);
    assert_int_equal(prop.major * 10 + prop.minor, 75);
    assert_non_null(strstr(prop.name, "minibench"));
    int v = 0;
    assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    assert_int_equal(v, prop.multiProcessorCount);
    assert_int_equal(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlock, 0), cudaSuccess);
    assert_int_equal((size_t)v, prop.sharedMemPerBlock);
    harness_stderr h;
    harness_stderr_begin(&h);
    cudaError_t e = cudaDeviceGetAttribute(&v, 1000, 0);
    char *text = harness_stderr_end(&h);
    assert_int_equal(e, cudaErrorNotSupported);
    assert_non_null(strstr(text, "cudaDeviceGetAttribute: attribute 1000 is not implemented"));
    free(text);
    /* Function attributes from the PTX: static shared memory, registers, PTX version. */
    struct cudaFuncAttributes fa;
    assert_int_equal(cudaFuncGetAttributes(&fa, stub_scale_bias), cudaSuccess);
    assert_int_equal(fa.sharedSizeBytes, 0);
    assert_true(fa.numRegs > 0);
    assert_int_equal(fa.ptxVersion, 75); /* the .target, as the runtime reports it */
    assert_int_equal(fa.maxThreadsPerBlock, 1024);
    assert_int_equal(cudaFuncGetAttributes(&fa, &v), cudaErrorInvalidDeviceFunction);
    /* Dynamic shared memory beyond 48 KiB needs the attribute, as on hardware. */
    assert_int_equal(cudaFuncSetAttribute(stub_scale_bias, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          60 * 1024),
                     cudaSuccess);
    assert_int_equal(cudaFuncSetAttribute(stub_scale_bias, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          1 << 20),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaFuncSetCacheConfig(stub_scale_bias, 1), cudaSuccess);
    /* Occupancy: threads bound at 1024 per SM, shared memory bound with big requests. */
    int blocks = 0;
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stub_scale_bias, 256, 0),
                     cudaSuccess);
    assert_int_equal(blocks, 4);
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stub_scale_bias, 32,
                                                                  20 * 1024),
                     cudaSuccess);
    assert_int_equal(blocks, 3);
    assert_int_equal(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, stub_scale_bias, 2048, 0),
                     cudaSuccess);
    assert_int_equal(blocks, 0);
    cudaGetLastError();
}

static void test_executor_host_mappings(void **state)
{
    (void)state;
    mb_memory *mem = NULL;
    mb_error err;
    assert_int_equal(mb_memory_new(&mem, &err), MB_OK);
    uint64_t a = 0, b = 0;
    assert_int_equal(mb_memory_alloc(mem, 100, "a", &a, &err), MB_OK);
    static int host[64];
    assert_int_equal(mb_memory_map_host(mem, host, sizeof(host), "host", &err), MB_OK);
    /* Allocations after a mapping above them keep the memory ordered. */
    assert_int_equal(mb_memory_alloc(mem, 100, "b", &b, &err), MB_OK);
    assert_ptr_equal(mb_memory_host(mem, (uint64_t)(uintptr_t)&host[3], 4), &host[3]);
    assert_non_null(mb_memory_host(mem, a, 100));
    assert_non_null(mb_memory_host(mem, b, 100));
    assert_null(mb_memory_host(mem, (uint64_t)(uintptr_t)&host[63], 8));
    assert_int_equal(mb_memory_map_host(mem, &host[10], 8, "again", &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "overlaps 'host'"));
    assert_int_equal(mb_memory_map_host(mem, NULL, 8, "null", &err), MB_ERR_INVALID);
    assert_int_equal(mb_memory_map_host(mem, (void *)(uintptr_t)MB_SHARED_WINDOW, 8, "window", &err),
                     MB_ERR_UNSUPPORTED);
    assert_int_equal(mb_memory_release(mem, a + 4, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "is not the start of an allocation"));
    assert_int_equal(mb_memory_release(mem, a, &err), MB_OK);
    assert_null(mb_memory_host(mem, a, 1));
    assert_int_equal(mb_memory_release(mem, (uint64_t)(uintptr_t)host, &err), MB_OK);
    assert_null(mb_memory_host(mem, (uint64_t)(uintptr_t)host, 4));
    assert_non_null(mb_memory_host(mem, b, 100));
    mb_memory_free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_memory_the_device_sees),
        cmocka_unit_test(test_copies),
        cmocka_unit_test(test_3d_copies),
        cmocka_unit_test(test_streams_and_events),
        cmocka_unit_test(test_device_and_functions),
        cmocka_unit_test(test_executor_host_mappings),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
