/*
 * The CUDA runtime library driven as nvcc's generated host code drives it:
 * fat binary and function/variable registration, call configuration
 * push/pop, __cudaGetKernel and __cudaLaunchKernel, with fat binaries built
 * here from committed PTX (no nvcc needed). Also: nvcc's own fat binaries
 * (committed), bad fat binaries, kernel faults and sticky errors,
 * unimplemented functions and launch configuration errors.
 */
#include "cudart_harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../../examples/vecadd/vecadd_ref.h"

#define DATA MB_TEST_DATA "/cudart/"

/* Host stubs: nvcc registers each kernel under the address of its host stub. */
static void stub_vecadd(void) {}
static void stub_scale_bias(void) {}
static void stub_write_past_end(void) {}
static void stub_mixed_params(void) {}
static void stub_bad(void) {}
static void stub_missing(void) {}

/* Host shadows of the device variables. */
static float host_scale[4];
static int host_launches;
static float host_bias[8];
static int *host_managed_total;

static mb_fatbin_wrapper vecadd_wrapper, api_wrapper, bad_wrapper;
static void **vecadd_handle, **api_handle, **bad_handle;
static unsigned char *vecadd_fatbin, *api_fatbin;
static const unsigned char garbage[64] = "this is not a fat binary at all";

/* What nvcc's __sti____cudaRegisterAll does for each translation unit. */
static int register_all(void **state)
{
    (void)state;
    size_t size;
    char *ptx = harness_read(MB_EXAMPLES_DIR "/vecadd/vecadd.ptx", NULL);
    assert_non_null(ptx);
    vecadd_fatbin = harness_fatbin(ptx, 75, HFB_ZSTD, &size);
    free(ptx);
    vecadd_wrapper = (mb_fatbin_wrapper){MB_FATBIN_WRAPPER_MAGIC, 1, vecadd_fatbin, NULL};
    vecadd_handle = __cudaRegisterFatBinary(&vecadd_wrapper);
    __cudaRegisterFunction(vecadd_handle, (const char *)stub_vecadd, (char *)"vecadd", "vecadd", -1,
                           NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(vecadd_handle);

    ptx = harness_read(DATA "runtime_api.ptx", NULL);
    assert_non_null(ptx);
    api_fatbin = harness_fatbin(ptx, 75, HFB_LZ4, &size);
    free(ptx);
    api_wrapper = (mb_fatbin_wrapper){MB_FATBIN_WRAPPER_MAGIC, 1, api_fatbin, NULL};
    api_handle = __cudaRegisterFatBinary(&api_wrapper);
    __cudaRegisterFunction(api_handle, (const char *)stub_scale_bias, (char *)"scale_bias",
                           "scale_bias", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(api_handle, (const char *)stub_write_past_end, (char *)"write_past_end",
                           "write_past_end", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(api_handle, (const char *)stub_mixed_params, (char *)"mixed_params",
                           "mixed_params", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFunction(api_handle, (const char *)stub_missing, (char *)"not_in_ptx",
                           "not_in_ptx", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterVar(api_handle, (char *)host_scale, (char *)"scale", "scale", 0, 16, 1, 0);
    __cudaRegisterVar(api_handle, (char *)&host_launches, (char *)"launches", "launches", 0, 4, 0, 0);
    __cudaRegisterVar(api_handle, (char *)host_bias, (char *)"bias", "bias", 0, 32, 0, 0);
    __cudaRegisterManagedVar(api_handle, (void **)&host_managed_total, (char *)"managed_total",
                             "managed_total", 0, 4, 0, 0);
    __cudaRegisterFatBinaryEnd(api_handle);

    bad_wrapper = (mb_fatbin_wrapper){MB_FATBIN_WRAPPER_MAGIC, 1, garbage, NULL};
    bad_handle = __cudaRegisterFatBinary(&bad_wrapper);
    __cudaRegisterFunction(bad_handle, (const char *)stub_bad, (char *)"bad", "bad", -1, NULL, NULL,
                           NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(bad_handle);
    return 0;
}

static int unregister_all(void **state)
{
    (void)state;
    cudaDeviceReset();
    __cudaUnregisterFatBinary(bad_handle);
    __cudaUnregisterFatBinary(api_handle);
    __cudaUnregisterFatBinary(vecadd_handle);
    free(vecadd_fatbin);
    free(api_fatbin);
    return 0;
}

/* A launch exactly as nvcc's stub does it: the pushed configuration is popped
 * by the stub, which launches through the kernel handle. */
static cudaError_t launch_like_nvcc(const void *stub, dim3 grid, dim3 block, size_t shared,
                                    void **args)
{
    assert_int_equal(__cudaPushCallConfiguration(grid, block, shared, NULL), 0);
    cudaKernel_t handle = NULL;
    cudaError_t e = __cudaGetKernel(&handle, stub);
    if (e != cudaSuccess)
        return e;
    dim3 g, b;
    size_t s;
    cudaStream_t stream;
    assert_int_equal(__cudaPopCallConfiguration(&g, &b, &s, &stream), cudaSuccess);
    return __cudaLaunchKernel(handle, g, b, args, s, stream);
}

static void test_vecadd_end_to_end(void **state)
{
    (void)state;
    enum { N = 1000 };
    float a[N], b[N], c[N], expect[N];
    vecadd_init(a, b, N, 7);
    vecadd_ref(a, b, expect, N);
    float *da, *db, *dc;
    assert_int_equal(cudaMalloc((void **)&da, sizeof(a)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&db, sizeof(b)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&dc, sizeof(c)), cudaSuccess);
    assert_int_equal(cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice), cudaSuccess);
    assert_int_equal(cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice), cudaSuccess);
    unsigned n = N;
    void *args[] = {&da, &db, &dc, &n};
    assert_int_equal(launch_like_nvcc(stub_vecadd, (dim3){4, 1, 1}, (dim3){256, 1, 1}, 0, args),
                     cudaSuccess);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    assert_int_equal(cudaMemcpy(c, dc, sizeof(c), cudaMemcpyDeviceToHost), cudaSuccess);
    assert_memory_equal(c, expect, sizeof(c));
    assert_int_equal(cudaFree(da), cudaSuccess);
    assert_int_equal(cudaFree(db), cudaSuccess);
    assert_int_equal(cudaFree(dc), cudaSuccess);
    /* A second free of the same pointer is an error, as on hardware. */
    assert_int_equal(cudaFree(da), cudaErrorInvalidDevicePointer);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidDevicePointer);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
}

static void test_variables_and_dynamic_shared(void **state)
{
    (void)state;
    enum { N = 100 };
    float in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = (float)i;
    float s[4] = {2.0f, 0, 0, 0};
    assert_int_equal(cudaMemcpyToSymbol(host_scale, s, sizeof(s), 0, cudaMemcpyHostToDevice),
                     cudaSuccess);
    /* The managed variable's host pointer is set once its module loaded. */
    assert_non_null(host_managed_total);
    *host_managed_total = 0;
    float *din, *dout;
    assert_int_equal(cudaMalloc((void **)&din, sizeof(in)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&dout, sizeof(out)), cudaSuccess);
    assert_int_equal(cudaMemcpy(din, in, sizeof(in), cudaMemcpyDefault), cudaSuccess);
    int n = N;
    void *args[] = {&din, &dout, &n};
    assert_int_equal(launch_like_nvcc(stub_scale_bias, (dim3){2, 1, 1}, (dim3){64, 1, 1},
                                      64 * sizeof(float), args),
                     cudaSuccess);
    assert_int_equal(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDefault), cudaSuccess);
    for (int i = 0; i < N; i++)
        assert_true(out[i] == in[i] * 2.0f + (float)(i % 8 + 1));
    int launches = -1;
    assert_int_equal(cudaMemcpyFromSymbol(&launches, &host_launches, sizeof(int), 0,
                                          cudaMemcpyDeviceToHost),
                     cudaSuccess);
    assert_int_equal(launches, 1);
    assert_int_equal(*host_managed_total, N);
    /* Symbol addresses and sizes; a copy past the end is refused. */
    void *addr = NULL;
    size_t size = 0;
    assert_int_equal(cudaGetSymbolAddress(&addr, host_bias), cudaSuccess);
    assert_non_null(addr);
    assert_int_equal(cudaGetSymbolSize(&size, host_bias), cudaSuccess);
    assert_int_equal(size, 32);
    float bias[8];
    assert_int_equal(cudaMemcpy(bias, addr, sizeof(bias), cudaMemcpyDeviceToHost), cudaSuccess);
    assert_true(bias[7] == 8.0f);
    assert_int_equal(cudaMemcpyToSymbol(host_bias, s, 16, 24, cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaMemcpyToSymbol(&size, s, 4, 0, cudaMemcpyHostToDevice),
                     cudaErrorInvalidSymbol);
    cudaGetLastError();
    cudaFree(din);
    cudaFree(dout);
}

static void test_parameter_layout(void **state)
{
    (void)state;
    long long *dout, out[4];
    assert_int_equal(cudaMalloc((void **)&dout, sizeof(out)), cudaSuccess);
    char c = -5;
    double d = 1234.75;
    short s = -300;
    int v[4] = {1, 20, 300, 4000};
    void *args[] = {&c, &d, &s, &dout, v};
    /* Through the public launch call, naming the kernel by its host stub. */
    assert_int_equal(cudaLaunchKernel(stub_mixed_params, (dim3){1, 1, 1}, (dim3){1, 1, 1}, args, 0,
                                      NULL),
                     cudaSuccess);
    assert_int_equal(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost), cudaSuccess);
    assert_int_equal(out[0], -5);
    assert_int_equal(out[1], 1234);
    assert_int_equal(out[2], -300);
    assert_int_equal(out[3], 4321);
    cudaFree(dout);
}

static void test_fault_is_sticky(void **state)
{
    (void)state;
    int *dout;
    assert_int_equal(cudaMalloc((void **)&dout, 64 * sizeof(int)), cudaSuccess);
    int n = 64;
    void *args[] = {&dout, &n};
    harness_stderr h;
    harness_stderr_begin(&h);
    /* The launch itself succeeds: faults surface asynchronously, as on hardware. */
    cudaError_t launch = launch_like_nvcc(stub_write_past_end, (dim3){1, 1, 1}, (dim3){64, 1, 1}, 0,
                                          args);
    cudaError_t sync = cudaDeviceSynchronize();
    char *text = harness_stderr_end(&h);
    assert_int_equal(launch, cudaSuccess);
    assert_int_equal(sync, cudaErrorIllegalAddress);
    assert_non_null(strstr(text, "kernel fault"));
    assert_non_null(strstr(text, "write_past_end"));
    assert_non_null(strstr(text, "thread (63,0,0)"));
    assert_non_null(strstr(text, "out-of-bounds global store"));
    free(text);
    assert_string_equal(cudaGetErrorName(sync), "cudaErrorIllegalAddress");
    assert_string_equal(cudaGetErrorString(sync), "an illegal memory access was encountered");
    /* Sticky: every later call reports it, and reading it does not clear it. */
    assert_int_equal(cudaGetLastError(), cudaErrorIllegalAddress);
    assert_int_equal(cudaGetLastError(), cudaErrorIllegalAddress);
    void *p = NULL;
    assert_int_equal(cudaMalloc(&p, 16), cudaErrorIllegalAddress);
    /* Until the device is reset. */
    assert_int_equal(cudaDeviceReset(), cudaSuccess);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
    assert_int_equal(cudaMalloc(&p, 16), cudaSuccess);
    assert_int_equal(cudaFree(p), cudaSuccess);
}

static void test_unimplemented_function(void **state)
{
    (void)state;
    harness_stderr h;
    harness_stderr_begin(&h);
    int e = cudaGraphCreate();
    char *text = harness_stderr_end(&h);
    assert_int_equal(e, cudaErrorNotSupported);
    assert_non_null(strstr(text, "minibench cudart: cudaGraphCreate is not implemented"));
    free(text);
    assert_int_equal(cudaGetLastError(), cudaErrorNotSupported);
    assert_int_equal(cudaGetLastError(), cudaSuccess);
}

static void test_bad_fat_binary_fails_at_launch(void **state)
{
    (void)state;
    harness_stderr h;
    harness_stderr_begin(&h);
    cudaError_t e = launch_like_nvcc(stub_bad, (dim3){1, 1, 1}, (dim3){32, 1, 1}, 0, NULL);
    char *text = harness_stderr_end(&h);
    assert_int_equal(e, cudaErrorInvalidKernelImage);
    assert_non_null(strstr(text, "cannot load the program's device code"));
    assert_non_null(strstr(text, "fat binary: error: at offset 0: bad magic 0x73696874"));
    free(text);
    /* The failure is remembered: no second message, the same error. */
    harness_stderr_begin(&h);
    e = launch_like_nvcc(stub_bad, (dim3){1, 1, 1}, (dim3){32, 1, 1}, 0, NULL);
    text = harness_stderr_end(&h);
    assert_int_equal(e, cudaErrorInvalidKernelImage);
    assert_string_equal(text, "");
    free(text);
    cudaGetLastError();
}

static void test_launch_configuration_errors(void **state)
{
    (void)state;
    int *d = NULL;
    int n = 1;
    void *args[] = {&d, &n};
    assert_int_equal(cudaLaunchKernel(stub_write_past_end, (dim3){1, 1, 1}, (dim3){2048, 1, 1}, args,
                                      0, NULL),
                     cudaErrorInvalidConfiguration);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidConfiguration);
    assert_int_equal(cudaLaunchKernel(stub_write_past_end, (dim3){0, 1, 1}, (dim3){32, 1, 1}, args,
                                      0, NULL),
                     cudaErrorInvalidConfiguration);
    assert_int_equal(cudaLaunchKernel(stub_write_past_end, (dim3){1, 1, 1}, (dim3){32, 1, 1}, args,
                                      1 << 20, NULL),
                     cudaErrorInvalidValue);
    /* A pointer that is no registered kernel. */
    harness_stderr h;
    harness_stderr_begin(&h);
    cudaError_t e = cudaLaunchKernel(&n, (dim3){1, 1, 1}, (dim3){32, 1, 1}, args, 0, NULL);
    char *text = harness_stderr_end(&h);
    assert_int_equal(e, cudaErrorInvalidDeviceFunction);
    assert_non_null(strstr(text, "which is no registered kernel"));
    free(text);
    /* A registered kernel missing from the PTX. */
    harness_stderr_begin(&h);
    e = cudaLaunchKernel(stub_missing, (dim3){1, 1, 1}, (dim3){32, 1, 1}, args, 0, NULL);
    text = harness_stderr_end(&h);
    assert_int_equal(e, cudaErrorInvalidDeviceFunction);
    assert_non_null(strstr(text, "kernel 'not_in_ptx' is not an .entry"));
    free(text);
    /* Popping a configuration nobody pushed. */
    dim3 g, b;
    size_t s;
    cudaStream_t stream;
    assert_int_equal(__cudaPopCallConfiguration(&g, &b, &s, &stream), cudaErrorMissingConfiguration);
    cudaGetLastError();
}

static void stub_say(void) {}
static void stub_check(void) {}

static void test_device_printf(void **state)
{
    (void)state;
    char *ptx = harness_read(DATA "printf.ptx", NULL);
    assert_non_null(ptx);
    size_t size;
    unsigned char *fb = harness_fatbin(ptx, 75, HFB_ZSTD, &size);
    free(ptx);
    mb_fatbin_wrapper wrapper = {MB_FATBIN_WRAPPER_MAGIC, 1, fb, NULL};
    void **handle = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(handle, (const char *)stub_say, (char *)"say", "say", -1, NULL, NULL,
                           NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(handle);
    char *dev = NULL;
    assert_int_equal(cudaMalloc((void **)&dev, 8), cudaSuccess);
    assert_int_equal(cudaMemcpy(dev, "dev", 4, cudaMemcpyHostToDevice), cudaSuccess);
    int n = 7;
    void *args[] = {&n, &dev};
    harness_stderr h;
    harness_capture_begin(&h, 1);
    cudaError_t e = cudaLaunchKernel(stub_say, (dim3){2, 1, 1}, (dim3){3, 1, 1}, args, 0, NULL);
    char *text = harness_capture_end(&h);
    assert_int_equal(e, cudaSuccess);
    /* Block 0's three threads, then block 1's: CTAs run in order, lanes in order. */
    const char *expect =
        "t0 n=7 f=0.000000 ll=7000000000 c=A s=dev  3.14|0   |ff%   7|de\n"
        "t1 n=7 f=1.500000 ll=7000000000 c=B s=dev  3.14|1   |ff%   7|de\n"
        "t2 n=7 f=3.000000 ll=7000000000 c=C s=dev  3.14|2   |ff%   7|de\n"
        "plain line from block 0\n"
        "t0 n=7 f=0.000000 ll=7000000000 c=A s=dev  3.14|0   |ff%   7|de\n"
        "t1 n=7 f=1.500000 ll=7000000000 c=B s=dev  3.14|1   |ff%   7|de\n"
        "t2 n=7 f=3.000000 ll=7000000000 c=C s=dev  3.14|2   |ff%   7|de\n"
        "plain line from block 1\n";
    assert_string_equal(text, expect);
    free(text);
    /* A failed assert: the hardware's line for each failing thread, cudaErrorAssert after. */
    __cudaRegisterFunction(handle, (const char *)stub_check, (char *)"check", "check", -1, NULL, NULL,
                           NULL, NULL, NULL);
    int values[4] = {0, 7, 1, 9};
    int *dv = NULL;
    assert_int_equal(cudaMalloc((void **)&dv, sizeof(values)), cudaSuccess);
    assert_int_equal(cudaMemcpy(dv, values, sizeof(values), cudaMemcpyHostToDevice), cudaSuccess);
    void *cargs[] = {&dv};
    harness_stderr_begin(&h);
    e = cudaLaunchKernel(stub_check, (dim3){1, 1, 1}, (dim3){4, 1, 1}, cargs, 0, NULL);
    cudaError_t sync = cudaDeviceSynchronize();
    text = harness_stderr_end(&h);
    assert_int_equal(e, cudaSuccess);
    assert_int_equal(sync, cudaErrorAssert);
    assert_string_equal(cudaGetErrorString(sync), "device-side assert triggered");
    if (!strstr(text, "printf.cu:22: void check(const int *): block: [0,0,0], thread: [1,0,0] "
                      "Assertion `a[threadIdx.x] < 5` failed.\n"))
        fail_msg("%s", text);
    assert_non_null(strstr(text, "thread: [3,0,0] Assertion"));
    assert_null(strstr(text, "thread: [2,0,0]"));
    free(text);
    assert_int_equal(cudaDeviceReset(), cudaSuccess);
    __cudaUnregisterFatBinary(handle);
    free(fb);
}

static void stub_good(void) {}
static void stub_uses_3d(void) {}

/* A module with one kernel the executor cannot run: the others still can. */
static void test_unsupported_kernel_leaves_the_others(void **state)
{
    (void)state;
    static const char ptx[] =
        ".version 8.0\n.target sm_75\n.address_size 64\n"
        ".visible .entry uses_3d(.param .u64 t)\n{\n  .reg .f32 %f<6>;\n  .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [t];\n"
        "  tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f5, %f5, %f5}];\n"
        "  ret;\n}\n"
        ".visible .entry good(.param .u64 out)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
        "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, 42;\n  st.global.u32 [%rd1], %r1;\n"
        "  ret;\n}\n";
    size_t size;
    unsigned char *fb = harness_fatbin(ptx, 75, HFB_PLAIN, &size);
    mb_fatbin_wrapper wrapper = {MB_FATBIN_WRAPPER_MAGIC, 1, fb, NULL};
    void **handle = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(handle, (const char *)stub_good, (char *)"good", "good", -1, NULL, NULL,
                           NULL, NULL, NULL);
    __cudaRegisterFunction(handle, (const char *)stub_uses_3d, (char *)"uses_3d", "uses_3d", -1,
                           NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(handle);
    int *d = NULL, v = 0;
    assert_int_equal(cudaMalloc((void **)&d, 4), cudaSuccess);
    void *args[] = {&d};
    assert_int_equal(cudaLaunchKernel(stub_good, (dim3){1, 1, 1}, (dim3){1, 1, 1}, args, 0, NULL),
                     cudaSuccess);
    assert_int_equal(cudaMemcpy(&v, d, 4, cudaMemcpyDeviceToHost), cudaSuccess);
    assert_int_equal(v, 42);
    harness_stderr h;
    harness_stderr_begin(&h);
    cudaError_t e = cudaLaunchKernel(stub_uses_3d, (dim3){1, 1, 1}, (dim3){1, 1, 1}, args, 0, NULL);
    char *text = harness_stderr_end(&h);
    assert_int_equal(e, cudaErrorInvalidPtx);
    if (!strstr(text, "kernel uses_3d cannot run on minibench: test_cudart_register.fatbin") ||
        !strstr(text, ".ptx:9:3: error: only 1d and 2d texture fetches are supported"))
        fail_msg("%s", text);
    free(text);
    assert_int_equal(cudaGetLastError(), cudaErrorInvalidPtx);
    /* Not sticky: the context still works. */
    assert_int_equal(cudaLaunchKernel(stub_good, (dim3){1, 1, 1}, (dim3){1, 1, 1}, args, 0, NULL),
                     cudaSuccess);
    cudaFree(d);
    __cudaUnregisterFatBinary(handle);
    free(fb);
}

/* ------------------------------------------------------- fat binaries */

static void extract(const char *file, mb_status expect_status, char **ptx)
{
    size_t len = 0;
    char *data = harness_read(file, &len);
    assert_non_null(data);
    size_t ptx_len = 0;
    unsigned sm = 0;
    mb_error err;
    mb_error_clear(&err);
    mb_status st = mb_fatbin_extract_ptx(data, len, ptx, &ptx_len, &sm, &err);
    if (st != expect_status)
        fail_msg("%s: %s", file, err.msg);
    if (st == MB_OK) {
        assert_int_equal(sm, 75);
        assert_int_equal(strlen(*ptx), ptx_len);
    } else {
        assert_non_null(strstr(err.msg, "holds no PTX, only SASS for sm_75"));
    }
    free(data);
}

static void test_nvcc_fat_binaries(void **state)
{
    (void)state;
    char *zstd = NULL, *lz4 = NULL, *plain = NULL, *sass = NULL;
    extract(DATA "runtime_api.zstd.fatbin", MB_OK, &zstd);
    extract(DATA "runtime_api.lz4.fatbin", MB_OK, &lz4);
    extract(DATA "runtime_api.plain.fatbin", MB_OK, &plain);
    extract(DATA "runtime_api.sass.fatbin", MB_ERR_UNSUPPORTED, &sass);
    assert_null(sass);
    /* The same SASS-only fat binary wrapped as nvlink's output (version 2, -rdc=true). */
    size_t sass_len = 0;
    char *sass_data = harness_read(DATA "runtime_api.sass.fatbin", &sass_len);
    assert_non_null(sass_data);
    mb_fatbin_wrapper linked = {MB_FATBIN_WRAPPER_MAGIC, 2, sass_data, NULL};
    size_t n = 0;
    unsigned sm = 0;
    mb_error err;
    assert_int_equal(mb_fatbin_extract_ptx(&linked, sizeof(linked), &sass, &n, &sm, &err),
                     MB_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "linked by nvlink (built with -rdc=true), which has no PTX"));
    free(sass_data);
    assert_string_equal(zstd, plain);
    assert_string_equal(lz4, plain);
    assert_non_null(strstr(plain, ".visible .entry scale_bias("));
    assert_non_null(strstr(plain, ".global .attribute(.managed) .align 4 .u32 managed_total;"));
    /* The text parses as the PTX it is. */
    mb_module *m = NULL;
    assert_int_equal(mb_ptx_parse(plain, strlen(plain), "fatbin", &m, &err), MB_OK);
    assert_non_null(mb_module_find_function(m, "mixed_params"));
    mb_module_free(m);
    free(zstd);
    free(lz4);
    free(plain);
}

static void expect_bad(const unsigned char *data, size_t len, mb_status status, const char *msg)
{
    char *ptx = NULL;
    size_t n;
    unsigned sm;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_fatbin_extract_ptx(data, len, &ptx, &n, &sm, &err), status);
    assert_null(ptx);
    if (!strstr(err.msg, msg))
        fail_msg("expected '%s' in '%s'", msg, err.msg);
    assert_string_equal(err.file, "fat binary");
}

static void test_bad_fat_binaries(void **state)
{
    (void)state;
    size_t size;
    unsigned char *fb = harness_fatbin("// empty\n", 75, HFB_ZSTD, &size);
    expect_bad(fb, 4, MB_ERR_PARSE, "at offset 0: truncated fat binary");
    expect_bad(fb, 12, MB_ERR_PARSE, "at offset 0: truncated fat binary header");
    expect_bad(fb, size - 1, MB_ERR_PARSE, "at offset 0: fat binary size runs past the available data");
    expect_bad(NULL, 0, MB_ERR_PARSE, "no fat binary (NULL)");
    /* An entry whose payload runs past the end of the fat binary. */
    unsigned char *copy = malloc(size);
    memcpy(copy, fb, size);
    copy[16 + 8] = 0xff;
    expect_bad(copy, size, MB_ERR_PARSE, "at offset 16: entry size runs past the end");
    /* A corrupted zstd payload. */
    memcpy(copy, fb, size);
    copy[16 + 80] ^= 0xff;
    expect_bad(copy, size, MB_ERR_PARSE, "at offset 16: zstd payload does not decompress");
    /* A compressed size larger than the entry. */
    memcpy(copy, fb, size);
    copy[16 + 0x13] = 0x7f;
    expect_bad(copy, size, MB_ERR_PARSE, "at offset 16: zstd payload size is larger than the entry");
    /* An unknown entry kind. */
    memcpy(copy, fb, size);
    copy[16] = 9;
    expect_bad(copy, size, MB_ERR_PARSE, "at offset 16: unknown entry kind 9");
    /* A wrapper of an unknown version. */
    mb_fatbin_wrapper w = {MB_FATBIN_WRAPPER_MAGIC, 7, fb, NULL};
    expect_bad((const unsigned char *)&w, sizeof(w), MB_ERR_UNSUPPORTED, "wrapper version 7");
    free(copy);
    free(fb);
    /* LZ4 and plain payloads built here decode to the same text. */
    const char *text = ".version 8.0\n.target sm_75\n.address_size 64\n";
    for (int c = HFB_PLAIN; c <= HFB_LZ4; c++) {
        fb = harness_fatbin(text, 80, c, &size);
        char *ptx = NULL;
        size_t n;
        unsigned sm;
        mb_error err;
        assert_int_equal(mb_fatbin_extract_ptx(fb, size, &ptx, &n, &sm, &err), MB_OK);
        assert_string_equal(ptx, text);
        assert_int_equal(sm, 80);
        free(ptx);
        free(fb);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vecadd_end_to_end),
        cmocka_unit_test(test_variables_and_dynamic_shared),
        cmocka_unit_test(test_parameter_layout),
        cmocka_unit_test(test_fault_is_sticky),
        cmocka_unit_test(test_unimplemented_function),
        cmocka_unit_test(test_bad_fat_binary_fails_at_launch),
        cmocka_unit_test(test_launch_configuration_errors),
        cmocka_unit_test(test_device_printf),
        cmocka_unit_test(test_unsupported_kernel_leaves_the_others),
        cmocka_unit_test(test_nvcc_fat_binaries),
        cmocka_unit_test(test_bad_fat_binaries),
    };
    return cmocka_run_group_tests(tests, register_all, unregister_all);
}
