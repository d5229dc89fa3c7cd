/*
 * Texture fetches in the executor (exec_tex.c) through texture objects
 * bound with mb_memory_bind_texture(): tex1Dfetch over linear memory (zeros
 * outside), tex.2d over pitched memory with point and linear filtering,
 * normalized coordinates, the addressing modes, integer and normalized-float
 * texels, unbound handles (a fault) and bad bindings; and the runtime's
 * cudaCreateTextureObject with nvcc's texture kernel (tests/cudart/textures.ptx).
 */
#include "cudart_harness.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

static const char fetch_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry fetch2d(.param .u64 tex, .param .u64 coords, .param .u64 out)\n{\n"
    "  .reg .b32 %r<3>;\n  .reg .f32 %f<7>;\n  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [tex];\n  ld.param.u64 %rd2, [coords];\n  ld.param.u64 %rd3, [out];\n"
    "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd4, %r1, 8;\n  add.s64 %rd5, %rd2, %rd4;\n"
    "  ld.global.f32 %f1, [%rd5];\n  ld.global.f32 %f2, [%rd5+4];\n"
    "  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];\n"
    "  mul.wide.u32 %rd6, %r1, 16;\n  add.s64 %rd7, %rd3, %rd6;\n"
    "  st.global.v4.f32 [%rd7], {%f3, %f4, %f5, %f6};\n  ret;\n}\n"
    ".visible .entry fetch1d(.param .u64 tex, .param .u64 out)\n{\n"
    "  .reg .b32 %r<7>;\n  .reg .b64 %rd<6>;\n"
    "  ld.param.u64 %rd1, [tex];\n  ld.param.u64 %rd2, [out];\n"
    "  mov.u32 %r1, %tid.x;\n  sub.s32 %r2, %r1, 2;\n"
    "  tex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}, [%rd1, {%r2}];\n"
    "  mul.wide.u32 %rd3, %r1, 4;\n  add.s64 %rd4, %rd2, %rd3;\n"
    "  st.global.u32 [%rd4], %r3;\n  ret;\n}\n";

typedef struct tex_env {
    mb_module *m;
    mb_memory *mem;
    mb_program *prog;
} tex_env;

static void env_open(tex_env *e, const char *ptx)
{
    mb_error err;
    memset(e, 0, sizeof(*e));
    assert_int_equal(mb_ptx_parse(ptx, strlen(ptx), "tex.ptx", &e->m, &err), MB_OK);
    assert_int_equal(mb_memory_new(&e->mem, &err), MB_OK);
    if (mb_program_new(e->m, e->mem, &e->prog, &err) != MB_OK)
        fail_msg("%s", err.msg);
}

static void env_close(tex_env *e)
{
    mb_program_free(e->prog);
    mb_memory_free(e->mem);
    mb_module_free(e->m);
}

static uint64_t upload(tex_env *e, const void *data, size_t bytes)
{
    uint64_t addr;
    mb_error err;
    assert_int_equal(mb_memory_alloc(e->mem, bytes, "buf", &addr, &err), MB_OK);
    if (data)
        memcpy(mb_memory_host(e->mem, addr, bytes), data, bytes);
    return addr;
}

/* Runs `kernel` with 64-bit parameters `p` on one CTA of `threads`. */
static mb_status run(tex_env *e, const char *kernel, const uint64_t *p, unsigned np, unsigned threads,
                     mb_error *err)
{
    const mb_function *fn = mb_module_find_function(e->m, kernel);
    assert_non_null(fn);
    mb_launch_config cfg = {fn, {1, 1, 1}, {threads, 1, 1}, 0, p, np * 8};
    mb_exec_options opt = {1, 0, 0, NULL};
    mb_exec_stats stats;
    memset(&stats, 0, sizeof(stats));
    return mb_launch(e->prog, e->mem, &cfg, &opt, &stats, err);
}

/* Fetches tex2D at each of `n` coordinates; results (4 floats each) to out. */
static void fetch2d(tex_env *e, uint64_t handle, const float *coords, unsigned n, float *out)
{
    uint64_t c = upload(e, coords, n * 8), o = upload(e, NULL, n * 16);
    uint64_t p[3] = {handle, c, o};
    mb_error err;
    if (run(e, "fetch2d", p, 3, n, &err) != MB_OK)
        fail_msg("%s", err.msg);
    memcpy(out, mb_memory_host(e->mem, o, n * 16), n * 16);
}

static void test_point_and_linear_2d(void **state)
{
    (void)state;
    tex_env e;
    env_open(&e, fetch_ptx);
    enum { W = 4, H = 3, PITCH = 32 };
    float img[H][PITCH / 4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < PITCH / 4; x++)
            img[y][x] = (float)(10 * y + x);
    uint64_t addr = upload(&e, img, sizeof(img));
    mb_texture t = {addr, W, H, PITCH, 1, 32, MB_TEXEL_FLOAT, 0, 0, 0,
                    {MB_TEX_CLAMP, MB_TEX_CLAMP}, {0, 0, 0, 0}};
    mb_error err;
    assert_int_equal(mb_memory_bind_texture(e.mem, 7, &t, &err), MB_OK);
    /* Point sampling: texel centres, and clamping beyond the edges. */
    float coords[] = {0.5f, 0.5f, 3.5f, 2.5f, 1.9f, 1.1f, -5.0f, 1.5f, 10.0f, 10.0f};
    float out[5 * 4];
    fetch2d(&e, 7, coords, 5, out);
    assert_true(out[0] == 0.0f && out[4] == 23.0f && out[8] == 11.0f && out[12] == 10.0f &&
                out[16] == 23.0f);
    /* One channel: the other components are zero. */
    assert_true(out[1] == 0.0f && out[2] == 0.0f && out[3] == 0.0f);
    /* Linear filtering between texel centres, with 8-bit weights. */
    t.filter_linear = 1;
    assert_int_equal(mb_memory_bind_texture(e.mem, 7, &t, &err), MB_OK);
    float lc[] = {1.0f, 0.5f, 1.5f, 1.0f, 1.25f, 1.75f, 1.0f + 1.0f / 3.0f, 0.5f};
    fetch2d(&e, 7, lc, 4, out);
    assert_true(out[0] == 0.5f);            /* halfway between 0 and 1 */
    assert_true(out[4] == 6.0f);            /* halfway between rows 0 and 1 of column 1 */
    assert_true(out[8] == 13.25f); /* weights (0.75, 0.25) between columns 0..1, rows 1..2 */
    /* 1/3 + 0.5 quantised to 0.83203125 (213/256): texel 0 + 0.83203125 */
    assert_true(out[12] == 213.0f / 256.0f);
    /* Normalized coordinates and wrap addressing. */
    t.filter_linear = 0;
    t.normalized_coords = 1;
    t.address[0] = t.address[1] = MB_TEX_WRAP;
    assert_int_equal(mb_memory_bind_texture(e.mem, 7, &t, &err), MB_OK);
    float nc[] = {0.125f, 0.5f, 1.125f, 0.5f, -0.125f, 0.2f};
    fetch2d(&e, 7, nc, 3, out);
    assert_true(out[0] == 10.0f && out[4] == 10.0f && out[8] == 3.0f);
    /* Border addressing returns the border colour outside. */
    t.normalized_coords = 0;
    t.address[0] = t.address[1] = MB_TEX_BORDER;
    t.border[0] = -1.0f;
    assert_int_equal(mb_memory_bind_texture(e.mem, 7, &t, &err), MB_OK);
    float bc[] = {4.5f, 0.5f, 0.5f, 0.5f};
    fetch2d(&e, 7, bc, 2, out);
    assert_true(out[0] == -1.0f && out[4] == 0.0f);
    /* Mirror addressing reflects at the edges. */
    t.address[0] = t.address[1] = MB_TEX_MIRROR;
    assert_int_equal(mb_memory_bind_texture(e.mem, 7, &t, &err), MB_OK);
    float mc[] = {4.5f, 0.5f, -0.5f, 0.5f};
    fetch2d(&e, 7, mc, 2, out);
    assert_true(out[0] == 3.0f && out[4] == 0.0f);
    env_close(&e);
}

static void test_normalized_integer_texels(void **state)
{
    (void)state;
    tex_env e;
    env_open(&e, fetch_ptx);
    unsigned char rgba[2][4] = {{0, 51, 255, 102}, {255, 0, 0, 0}};
    uint64_t addr = upload(&e, rgba, sizeof(rgba));
    mb_texture t = {addr, 2, 1, 8, 4, 8, MB_TEXEL_UNSIGNED, 1, 0, 0,
                    {MB_TEX_CLAMP, MB_TEX_CLAMP}, {0, 0, 0, 0}};
    mb_error err;
    assert_int_equal(mb_memory_bind_texture(e.mem, 3, &t, &err), MB_OK);
    float c[] = {0.5f, 0.5f};
    float out[4];
    fetch2d(&e, 3, c, 1, out);
    assert_true(out[0] == 0.0f && out[1] == 0.2f && out[2] == 1.0f && out[3] == 0.4f);
    env_close(&e);
}

static void test_fetch1d_linear_memory(void **state)
{
    (void)state;
    tex_env e;
    env_open(&e, fetch_ptx);
    int data[6] = {10, 20, 30, 40, 50, 60};
    uint64_t addr = upload(&e, data, sizeof(data));
    mb_texture t = {addr, 6, 1, sizeof(data), 1, 32, MB_TEXEL_SIGNED, 0, 0, 0,
                    {MB_TEX_CLAMP, MB_TEX_CLAMP}, {0, 0, 0, 0}};
    mb_error err;
    assert_int_equal(mb_memory_bind_texture(e.mem, 11, &t, &err), MB_OK);
    uint64_t o = upload(&e, NULL, 10 * 4);
    uint64_t p[2] = {11, o};
    assert_int_equal(run(&e, "fetch1d", p, 2, 10, &err), MB_OK);
    const int *out = mb_memory_host(e.mem, o, 40);
    /* threads fetch elements -2..7: zeros outside the 6 elements */
    int expect[10] = {0, 0, 10, 20, 30, 40, 50, 60, 0, 0};
    assert_memory_equal(out, expect, sizeof(expect));
    /* An unbound handle is a fault naming it. */
    mb_memory_unbind_texture(e.mem, 11);
    assert_int_equal(run(&e, "fetch1d", p, 2, 10, &err), MB_ERR_FAULT);
    assert_non_null(strstr(err.msg, "texture fetch through 0xb, which is not a bound texture object"));
    assert_non_null(strstr(err.msg, "kernel fetch1d, block (0,0,0), thread (0,0,0)"));
    assert_int_equal(err.line, 31);
    env_close(&e);
}

static void test_bad_bindings(void **state)
{
    (void)state;
    tex_env e;
    env_open(&e, fetch_ptx);
    uint64_t addr = upload(&e, NULL, 64);
    mb_texture t = {addr, 16, 1, 64, 1, 32, MB_TEXEL_FLOAT, 0, 0, 0,
                    {MB_TEX_CLAMP, MB_TEX_CLAMP}, {0, 0, 0, 0}};
    mb_error err;
    assert_int_equal(mb_memory_bind_texture(e.mem, 0, &t, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "handle 0 is reserved"));
    t.width = 17;
    assert_int_equal(mb_memory_bind_texture(e.mem, 1, &t, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "17x1 texels with a pitch of 64 bytes"));
    t.width = 16;
    t.pitch = 128;
    t.height = 2;
    assert_int_equal(mb_memory_bind_texture(e.mem, 1, &t, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "is not inside one allocation"));
    t.pitch = 64;
    t.height = 1;
    t.channels = 3;
    assert_int_equal(mb_memory_bind_texture(e.mem, 1, &t, &err), MB_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "3 channels of 32 bits"));
    env_close(&e);
    /* Unsupported fetch forms are named when the program is decoded. */
    char ptx[2048];
    snprintf(ptx, sizeof(ptx),
             ".version 8.0\n.target sm_75\n.address_size 64\n"
             ".visible .entry k(.param .u64 t)\n{\n  .reg .f32 %%f<6>;\n  .reg .b64 %%rd<2>;\n"
             "  ld.param.u64 %%rd1, [t];\n"
             "  tex.3d.v4.f32.f32 {%%f1, %%f2, %%f3, %%f4}, [%%rd1, {%%f5, %%f5, %%f5, %%f5}];\n"
             "  ret;\n}\n");
    mb_module *m = NULL;
    mb_memory *mem = NULL;
    mb_program *prog = NULL;
    assert_int_equal(mb_ptx_parse(ptx, strlen(ptx), "t3.ptx", &m, &err), MB_OK);
    assert_int_equal(mb_memory_new(&mem, &err), MB_OK);
    assert_int_equal(mb_program_new(m, mem, &prog, &err), MB_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "only 1d and 2d texture fetches are supported"));
    assert_int_equal(err.line, 9);
    mb_memory_free(mem);
    mb_module_free(m);
}

/* ------------------------------------------------- through the runtime */

static void stub_texture_sum(void) {}

static void test_runtime_texture_objects(void **state)
{
    (void)state;
    char *ptx = harness_read(MB_TEST_DATA "/cudart/textures.ptx", NULL);
    assert_non_null(ptx);
    size_t size;
    unsigned char *fb = harness_fatbin(ptx, 75, HFB_ZSTD, &size);
    free(ptx);
    mb_fatbin_wrapper wrapper = {MB_FATBIN_WRAPPER_MAGIC, 1, fb, NULL};
    void **handle = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(handle, (const char *)stub_texture_sum, (char *)"texture_sum",
                           "texture_sum", -1, NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(handle);
    enum { W = 20, H = 6 };
    float a[W * H], b[W * H], out[W * H];
    for (int i = 0; i < W * H; i++) {
        a[i] = (float)i;
        b[i] = 1000.0f + 0.5f * (float)i;
    }
    float *lin, *img, *dout;
    size_t pitch;
    assert_int_equal(cudaMalloc((void **)&lin, sizeof(a)), cudaSuccess);
    assert_int_equal(cudaMallocPitch((void **)&img, &pitch, W * 4, H), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&dout, sizeof(out)), cudaSuccess);
    assert_int_equal(cudaMemcpy(lin, a, sizeof(a), cudaMemcpyHostToDevice), cudaSuccess);
    assert_int_equal(cudaMemcpy2D(img, pitch, b, W * 4, W * 4, H, cudaMemcpyHostToDevice),
                     cudaSuccess);
    struct cudaResourceDesc r1, r2;
    memset(&r1, 0, sizeof(r1));
    memset(&r2, 0, sizeof(r2));
    r1.resType = cudaResourceTypeLinear;
    r1.res.linear.devPtr = lin;
    r1.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    r1.res.linear.sizeInBytes = sizeof(a);
    r2.resType = cudaResourceTypePitch2D;
    r2.res.pitch2D.devPtr = img;
    r2.res.pitch2D.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    r2.res.pitch2D.width = W;
    r2.res.pitch2D.height = H;
    r2.res.pitch2D.pitchInBytes = pitch;
    struct cudaTextureDesc td;
    memset(&td, 0, sizeof(td));
    cudaTextureObject_t t1 = 0, t2 = 0;
    assert_int_equal(cudaCreateTextureObject(&t1, &r1, &td, NULL), cudaSuccess);
    assert_int_equal(cudaCreateTextureObject(&t2, &r2, &td, NULL), cudaSuccess);
    assert_true(t1 != 0 && t2 != 0 && t1 != t2);
    int w = W, h = H;
    void *args[] = {&t1, &t2, &w, &h, &dout};
    assert_int_equal(cudaLaunchKernel(stub_texture_sum, (dim3){H, 1, 1}, (dim3){32, 1, 1}, args, 0,
                                      NULL),
                     cudaSuccess);
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    assert_int_equal(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < W * H; i++)
        assert_true(out[i] == a[i] + b[i]);
    /* Bad descriptors: three channels, a size that is no whole number of texels, arrays. */
    r1.res.linear.desc = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    assert_int_equal(cudaCreateTextureObject(&t1, &r1, &td, NULL), cudaErrorInvalidChannelDescriptor);
    r1.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    r1.res.linear.sizeInBytes = 6;
    assert_int_equal(cudaCreateTextureObject(&t1, &r1, &td, NULL), cudaErrorInvalidValue);
    r1.resType = cudaResourceTypeMipmappedArray;
    harness_stderr hs;
    harness_stderr_begin(&hs);
    cudaError_t e = cudaCreateTextureObject(&t1, &r1, &td, NULL);
    char *text = harness_stderr_end(&hs);
    assert_int_equal(e, cudaErrorNotSupported);
    assert_non_null(strstr(text, "mipmapped arrays (resource type 1) are not implemented"));
    free(text);
    r1.resType = cudaResourceTypeArray;
    r1.res.array.array = &w; /* not an array */
    assert_int_equal(cudaCreateTextureObject(&t1, &r1, &td, NULL), cudaErrorInvalidResourceHandle);

    /* The same kernel with the 2D texture over a CUDA array. */
    struct mb_array *arr = NULL;
    struct cudaChannelFormatDesc fdesc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    assert_int_equal(cudaMallocArray(&arr, &fdesc, W, H, 0), cudaSuccess);
    assert_int_equal(cudaMemcpy2DToArray(arr, 0, 0, b, W * 4, W * 4, H, cudaMemcpyHostToDevice),
                     cudaSuccess);
    float back[W * H];
    assert_int_equal(cudaMemcpy2DFromArray(back, W * 4, arr, 0, 0, W * 4, H, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    assert_memory_equal(back, b, sizeof(b));
    struct cudaChannelFormatDesc got;
    struct cudaExtent extent;
    assert_int_equal(cudaArrayGetInfo(&got, &extent, NULL, arr), cudaSuccess);
    assert_int_equal(got.x, 32);
    assert_int_equal(extent.width, W);
    assert_int_equal(extent.height, H);
    struct cudaResourceDesc ra;
    memset(&ra, 0, sizeof(ra));
    ra.resType = cudaResourceTypeArray;
    ra.res.array.array = arr;
    cudaTextureObject_t t3 = 0;
    r1.resType = cudaResourceTypeLinear; /* the union held the bogus array pointer */
    r1.res.linear.devPtr = lin;
    r1.res.linear.sizeInBytes = sizeof(a);
    assert_int_equal(cudaCreateTextureObject(&t1, &r1, &td, NULL), cudaSuccess);
    assert_int_equal(cudaCreateTextureObject(&t3, &ra, &td, NULL), cudaSuccess);
    void *args3[] = {&t1, &t3, &w, &h, &dout};
    assert_int_equal(cudaMemset(dout, 0, sizeof(out)), cudaSuccess);
    assert_int_equal(cudaLaunchKernel(stub_texture_sum, (dim3){H, 1, 1}, (dim3){32, 1, 1}, args3, 0,
                                      NULL),
                     cudaSuccess);
    assert_int_equal(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < W * H; i++)
        assert_true(out[i] == a[i] + b[i]);
    /* Linear copies row by row; copies outside the array are refused. */
    float row[W + 2];
    assert_int_equal(cudaMemcpyFromArray(row, arr, 4 * (W - 1), 2, sizeof(row), cudaMemcpyDeviceToHost),
                     cudaSuccess);
    assert_true(row[0] == b[2 * W + W - 1] && row[1] == b[3 * W] && row[2] == b[3 * W + 1]);
    assert_int_equal(cudaMemcpyToArray(arr, 0, H - 1, a, 2 * W * 4, cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    assert_int_equal(cudaMemcpy2DToArray(arr, 4, 0, b, W * 4, W * 4, 1, cudaMemcpyHostToDevice),
                     cudaErrorInvalidValue);
    harness_stderr_begin(&hs);
    e = cudaMalloc3DArray(&arr, &fdesc, (struct cudaExtent){4, 4, 4}, 0);
    text = harness_stderr_end(&hs);
    assert_int_equal(e, cudaErrorNotSupported);
    assert_non_null(strstr(text, "cudaMalloc3DArray: 3D arrays (depth 4) are not implemented"));
    free(text);
    assert_int_equal(cudaDestroyTextureObject(t3), cudaSuccess);
    assert_int_equal(cudaFreeArray(ra.res.array.array), cudaSuccess);
    assert_int_equal(cudaFreeArray(ra.res.array.array), cudaErrorInvalidResourceHandle);
    assert_int_equal(cudaDestroyTextureObject(t2), cudaSuccess);
    assert_int_equal(cudaDestroyTextureObject(t2), cudaErrorInvalidValue);
    cudaGetLastError();
    cudaDeviceReset();
    __cudaUnregisterFatBinary(handle);
    free(fb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_point_and_linear_2d),
        cmocka_unit_test(test_normalized_integer_texels),
        cmocka_unit_test(test_fetch1d_linear_memory),
        cmocka_unit_test(test_bad_bindings),
        cmocka_unit_test(test_runtime_texture_objects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
