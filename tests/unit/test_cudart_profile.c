/*
 * Profile mode of the CUDA runtime library, configured through its
 * environment variables as 'minibench profile -- PROGRAM' sets them: the
 * selected launches (kernel regex, cap) are written as <kernel>.<n> profiles
 * with index.json, the others run functionally; and the environment's
 * validation (mb_cudart_options_read) with the messages it gives.
 */
#define _POSIX_C_SOURCE 200809L
#include "cudart_harness.h"

#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "../../examples/vecadd/vecadd_ref.h"

static char dir[64];

static void stub_vecadd(void) {}

static int file_exists(const char *name)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    struct stat sb;
    return stat(path, &sb) == 0;
}

static void test_profiles_selected_launches(void **state)
{
    (void)state;
    char *ptx = harness_read(MB_EXAMPLES_DIR "/vecadd/vecadd.ptx", NULL);
    assert_non_null(ptx);
    size_t size;
    unsigned char *fb = harness_fatbin(ptx, 75, HFB_PLAIN, &size);
    free(ptx);
    mb_fatbin_wrapper wrapper = {MB_FATBIN_WRAPPER_MAGIC, 1, fb, NULL};
    void **handle = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(handle, (const char *)stub_vecadd, (char *)"vecadd", "vecadd", -1, NULL,
                           NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(handle);
    enum { N = 300 };
    float a[N], b[N], c[N], expect[N];
    vecadd_init(a, b, N, 3);
    vecadd_ref(a, b, expect, N);
    float *da, *db, *dc;
    assert_int_equal(cudaMalloc((void **)&da, sizeof(a)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&db, sizeof(b)), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&dc, sizeof(c)), cudaSuccess);
    cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice);
    cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice);
    unsigned n = N;
    void *args[] = {&da, &db, &dc, &n};
    /* Three launches; MINIBENCH_CUDART_MAX_PROFILES=2 profiles the first two. */
    for (int i = 0; i < 3; i++)
        assert_int_equal(cudaLaunchKernel(stub_vecadd, (dim3){3, 1, 1}, (dim3){128, 1, 1}, args, 0,
                                          NULL),
                         cudaSuccess);
    /* Profiled launches compute the same results. */
    assert_int_equal(cudaMemcpy(c, dc, sizeof(c), cudaMemcpyDeviceToHost), cudaSuccess);
    assert_memory_equal(c, expect, sizeof(c));
    assert_true(file_exists("vecadd.0.profile.json"));
    assert_true(file_exists("vecadd.0.dfsg.dot"));
    assert_true(file_exists("vecadd.1.profile.json"));
    assert_false(file_exists("vecadd.2.profile.json"));
    char path[256];
    snprintf(path, sizeof(path), "%s/index.json", dir);
    json_error_t jerr;
    json_t *index = json_load_file(path, 0, &jerr);
    assert_non_null(index);
    json_t *launches = json_object_get(index, "launches");
    assert_int_equal(json_array_size(launches), 2);
    json_t *first = json_array_get(launches, 0);
    assert_string_equal(json_string_value(json_object_get(first, "kernel")), "vecadd");
    assert_string_equal(json_string_value(json_object_get(first, "profile")), "vecadd.0.profile.json");
    assert_int_equal(json_integer_value(json_object_get(first, "threads")), 384);
    json_decref(index);
    snprintf(path, sizeof(path), "%s/vecadd.1.profile.json", dir);
    json_t *profile = json_load_file(path, 0, &jerr);
    assert_non_null(profile);
    assert_string_equal(json_string_value(json_object_get(profile, "kernel")), "vecadd");
    json_decref(profile);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    __cudaUnregisterFatBinary(handle);
    free(fb);
}

/* ------------------------------------------------------ environment */

typedef struct fake_env {
    const char *names[8];
    const char *values[8];
    int n;
} fake_env;

static const char *fake_get(void *ctx, const char *name)
{
    fake_env *e = ctx;
    for (int i = 0; i < e->n; i++)
        if (strcmp(e->names[i], name) == 0)
            return e->values[i];
    return NULL;
}

static void expect_env_error(const char *name, const char *value, const char *msg)
{
    fake_env e = {{name, "MINIBENCH_CUDART_OUTPUT"}, {value, "out"}, 2};
    mb_cudart_options opt;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_cudart_options_read(fake_get, &e, &opt, &err), MB_ERR_INVALID);
    if (!strstr(err.msg, msg))
        fail_msg("expected '%s' in '%s'", msg, err.msg);
}

static void test_environment(void **state)
{
    (void)state;
    fake_env e = {{"MINIBENCH_CUDART_MODE", "MINIBENCH_CUDART_OUTPUT", "MINIBENCH_CUDART_KERNEL",
                   "MINIBENCH_CUDART_LAUNCH_INDEX", "MINIBENCH_CUDART_AGGREGATE",
                   "MINIBENCH_CUDART_THREADS"},
                  {"profile", "out", "^k", "4", "1", "3"},
                  6};
    mb_cudart_options opt;
    mb_error err;
    assert_int_equal(mb_cudart_options_read(fake_get, &e, &opt, &err), MB_OK);
    assert_int_equal(opt.mode, MB_CUDART_PROFILE);
    assert_string_equal(opt.output, "out");
    assert_string_equal(opt.kernel, "^k");
    assert_int_equal(opt.launch_index, 4);
    assert_int_equal(opt.max_profiles, UINT64_MAX);
    assert_int_equal(opt.aggregate, 1);
    assert_int_equal(opt.threads, 3);
    /* Nothing set: functional runs of every launch. */
    fake_env none = {{NULL}, {NULL}, 0};
    assert_int_equal(mb_cudart_options_read(fake_get, &none, &opt, &err), MB_OK);
    assert_int_equal(opt.mode, MB_CUDART_RUN);
    assert_null(opt.ptx);
    assert_int_equal(opt.launch_index, UINT64_MAX);
    expect_env_error("MINIBENCH_CUDART_MODE", "trace", "MINIBENCH_CUDART_MODE: 'trace' is not run, profile or sim");
    expect_env_error("MINIBENCH_CUDART_LAUNCH_INDEX", "-1", "MINIBENCH_CUDART_LAUNCH_INDEX: '-1' is not a count");
    expect_env_error("MINIBENCH_CUDART_MAX_PROFILES", "2x", "MINIBENCH_CUDART_MAX_PROFILES: '2x' is not a count");
    expect_env_error("MINIBENCH_CUDART_THREADS", "0", "MINIBENCH_CUDART_THREADS: 0 is not in 1..1024");
    fake_env no_output = {{"MINIBENCH_CUDART_MODE"}, {"profile"}, 1};
    assert_int_equal(mb_cudart_options_read(fake_get, &no_output, &opt, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "needs MINIBENCH_CUDART_OUTPUT"));
}

int main(void)
{
    /* The runtime reads its environment once, on its first call. */
    snprintf(dir, sizeof(dir), "/tmp/mb_cudart_profile_XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    setenv("MINIBENCH_CUDART_MODE", "profile", 1);
    setenv("MINIBENCH_CUDART_OUTPUT", dir, 1);
    setenv("MINIBENCH_CUDART_KERNEL", "^vec", 1);
    setenv("MINIBENCH_CUDART_MAX_PROFILES", "2", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profiles_selected_launches),
        cmocka_unit_test(test_environment),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        failed++;
    return failed;
}
