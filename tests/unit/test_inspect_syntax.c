/* mb_cuda_check_syntax: valid CUDA passes without a CUDA toolkit; every kind
 * of error names the right place. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/inspect.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mb_status check(const char *name, const char *text, mb_error *err)
{
    mb_error_clear(err);
    return mb_cuda_check_syntax(name, text, strlen(text), err);
}

/* Asserts an error at name:line:col whose message contains `needle`. */
static void assert_error_at(const char *name, const char *text, int line, int col, const char *needle)
{
    mb_error err;
    assert_int_equal(check(name, text, &err), MB_ERR_PARSE);
    assert_int_equal(err.status, MB_ERR_PARSE);
    assert_string_equal(err.file, name);
    assert_int_equal(err.line, line);
    assert_int_equal(err.col, col);
    if (!strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
}

static void test_valid_program(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    mb_error err;
    assert_int_equal(mb_read_file(MB_TEST_DATA "/cuda/syntax_ok.cu", 1 << 20, &text, &len, &err), MB_OK);
    mb_error_clear(&err);
    mb_status st = mb_cuda_check_syntax(MB_TEST_DATA "/cuda/syntax_ok.cu", text, len, &err);
    if (st != MB_OK) {
        char buf[2048];
        mb_error_format(&err, buf, sizeof(buf));
        fail_msg("%s", buf);
    }
    assert_int_equal(err.status, MB_OK);
    free(text);
}

static void test_every_example_passes(void **state)
{
    (void)state;
    static const char *const names[] = {
        "bfs", "blackscholes", "devfunc", "histogram", "kmeans", "local_array",
        "matmul", "nbody_f64", "nested_loops", "nw", "reduce_conflict", "reduce_seq",
        "stencil2d", "tid_loop", "transpose_naive", "transpose_shared", "vecadd", "warp_reduce",
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s/%s.cu", MB_EXAMPLES_DIR, names[i], names[i]);
        char *text = NULL;
        size_t len = 0;
        mb_error err;
        assert_int_equal(mb_read_file(path, 1 << 20, &text, &len, &err), MB_OK);
        if (mb_cuda_check_syntax(path, text, len, &err) != MB_OK) {
            char buf[2048];
            mb_error_format(&err, buf, sizeof(buf));
            fail_msg("%s", buf);
        }
        free(text);
    }
}

static void test_syntax_error(void **state)
{
    (void)state;
    assert_error_at("clone.cu",
                    "__global__ void k(int *p)\n"
                    "{\n"
                    "    p[0] = 1\n"
                    "}\n",
                    3, 13, "expected ';'");
}

static void test_undeclared_identifier(void **state)
{
    (void)state;
    assert_error_at("clone.cu",
                    "__global__ void k(float *p)\n"
                    "{\n"
                    "    p[threadIdx.x] = missing_value;\n"
                    "}\n",
                    3, 22, "undeclared identifier 'missing_value'");
}

static void test_malformed_launch(void **state)
{
    (void)state;
    /* Too many configuration arguments. */
    assert_error_at("launch.cu",
                    "__global__ void k(int *p) { p[0] = 1; }\n"
                    "int main()\n"
                    "{\n"
                    "    k<<<1, 32, 0, 0, 7>>>(0);\n"
                    "    return 0;\n"
                    "}\n",
                    4, 22, "too many execution configuration arguments");
    /* An unterminated configuration. */
    mb_error err;
    assert_int_equal(check("launch.cu",
                           "__global__ void k(int *p) { p[0] = 1; }\n"
                           "int main() { k<<<1, 32(0); return 0; }\n",
                           &err),
                     MB_ERR_PARSE);
    assert_string_equal(err.file, "launch.cu");
    assert_int_equal(err.line, 2);
    assert_int_equal(err.col, 23);
    /* Launching a host function. */
    assert_error_at("launch.cu",
                    "void h(int *p) { p[0] = 1; }\n"
                    "int main() { h<<<1, 32>>>(0); return 0; }\n",
                    2, 26, "kernel call to non-global function 'h'");
    /* Wrong argument count to the kernel. */
    assert_error_at("launch.cu",
                    "__global__ void k(int *p, int n) { p[0] = n; }\n"
                    "int main() { k<<<1, 32>>>(0); return 0; }\n",
                    2, 28, "too few arguments");
}

static void test_error_in_macro_points_at_use(void **state)
{
    (void)state;
    assert_error_at("macro.cu",
                    "#define STORE(p, v) p[0] = v + undefined_thing\n"
                    "__global__ void k(int *p)\n"
                    "{\n"
                    "    STORE(p, 1);\n"
                    "}\n",
                    4, 5, "undefined_thing");
}

static void test_warnings_do_not_fail(void **state)
{
    (void)state;
    mb_error err;
    assert_int_equal(check("warn.cu",
                           "__global__ void k(int *p, int n)\n"
                           "{\n"
                           "    int unused;\n"
                           "    if (threadIdx.x < n) p[0] = 1;\n"
                           "}\n",
                           &err),
                     MB_OK);
}

static void test_empty_and_null(void **state)
{
    (void)state;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_cuda_check_syntax("empty.cu", "", 0, &err), MB_OK);
    assert_int_equal(mb_cuda_check_syntax("empty.cu", NULL, 0, &err), MB_OK);
    assert_int_equal(mb_cuda_check_syntax(NULL, NULL, 0, NULL), MB_OK);
    assert_int_equal(mb_cuda_check_syntax("x.cu", NULL, 5, &err), MB_ERR_INVALID);
    /* NULL err is allowed on failure too. */
    assert_int_equal(mb_cuda_check_syntax("x.cu", "int x = ;", 9, NULL), MB_ERR_PARSE);
}

static void test_nul_byte(void **state)
{
    (void)state;
    static const char text[] = "__global__ void k(int *p)\n{\n  p[0] = 1;\0\n}\n";
    mb_error err;
    assert_int_equal(mb_cuda_check_syntax("nul.cu", text, sizeof(text) - 1, &err), MB_ERR_PARSE);
    assert_string_equal(err.file, "nul.cu");
    assert_int_equal(err.line, 3);
    assert_int_equal(err.col, 12);
    assert_non_null(strstr(err.msg, "NUL"));
    /* The length bounds the text: what follows a NUL outside it is never read. */
    assert_int_equal(mb_cuda_check_syntax("nul.cu", text, 35, &err), MB_ERR_PARSE);
    assert_int_equal(mb_cuda_check_syntax("nul.cu", text, 20, &err), MB_ERR_PARSE);
    assert_int_equal(err.line, 1);
}

static void test_missing_header_and_header_errors(void **state)
{
    (void)state;
    /* A missing include is fatal and points at the #include line. */
    assert_error_at("inc.cu", "#include <stdio.h>\n#include \"no_such_header_here.h\"\nint x;\n", 2, 10,
                    "not found");
    /* An error inside an included file names that file. */
    mb_error err;
    char text[512];
    snprintf(text, sizeof(text), "#include \"%s/cuda/bad_header.cuh\"\nint ok;\n", MB_TEST_DATA);
    assert_int_equal(check("inc.cu", text, &err), MB_ERR_PARSE);
    assert_non_null(strstr(err.file, "bad_header.cuh"));
    assert_int_equal(err.line, 3);
}

static void test_path_never_opened(void **state)
{
    (void)state;
    /* The name is only a label: a path that does not exist is fine, and so is one in a
     * directory that does not exist. */
    mb_error err;
    assert_int_equal(check("/nonexistent/dir/clone.cu", "__global__ void k() {}\n", &err), MB_OK);
    assert_error_at("/nonexistent/dir/clone.cu", "__global__ void k() { x; }\n", 1, 23, "undeclared");
    assert_int_equal(check("", "int x;\n", &err), MB_OK);
}

static void test_limits(void **state)
{
    (void)state;
    mb_error err;
    assert_int_equal(mb_cuda_check_syntax("big.cu", "x", MB_CUDA_MAX_SOURCE_BYTES + 1, &err), MB_ERR_LIMIT);
    assert_string_equal(err.file, "big.cu");
    assert_non_null(strstr(err.msg, "limit"));
}

static void test_prelude_covers_runtime_api(void **state)
{
    (void)state;
    mb_error err;
    static const char text[] =
        "#include <cuda.h>\n"
        "#include <cuda_runtime_api.h>\n"
        "#include <device_launch_parameters.h>\n"
        "__global__ void k(float4 *v, int2 *q, double *d) {\n"
        "  v[0] = make_float4(1, 2, 3, 4); q[0] = make_int2(gridDim.x, warpSize);\n"
        "  d[0] = fmax(rsqrt(d[1]), exp2(d[2])) + min(1, 2) + max(1.0f, 2.0f);\n"
        "  __threadfence(); unsigned b = __ballot_sync(__activemask(), 1); (void)b;\n"
        "}\n"
        "int main() {\n"
        "  cudaDeviceProp prop; int dev = 0; cudaGetDevice(&dev);\n"
        "  cudaGetDeviceProperties(&prop, dev);\n"
        "  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
        "  float4 *v; int2 *q; double *d; cudaMalloc(&v, 16); cudaMalloc(&q, 8); cudaMalloc(&d, 24);\n"
        "  k<<<dim3(1, 1, 1), dim3(32), 0, s>>>(v, q, d);\n"
        "  cudaMemcpyAsync(v, v, 16, cudaMemcpyDeviceToDevice, s);\n"
        "  cudaStreamSynchronize(s);\n"
        "  return cudaPeekAtLastError() == cudaSuccess ? 0 : 1;\n"
        "}\n";
    mb_status st = check("api.cu", text, &err);
    if (st != MB_OK) {
        char buf[2048];
        mb_error_format(&err, buf, sizeof(buf));
        fail_msg("%s", buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_program),
        cmocka_unit_test(test_every_example_passes),
        cmocka_unit_test(test_syntax_error),
        cmocka_unit_test(test_undeclared_identifier),
        cmocka_unit_test(test_malformed_launch),
        cmocka_unit_test(test_error_in_macro_points_at_use),
        cmocka_unit_test(test_warnings_do_not_fail),
        cmocka_unit_test(test_empty_and_null),
        cmocka_unit_test(test_nul_byte),
        cmocka_unit_test(test_missing_header_and_header_errors),
        cmocka_unit_test(test_path_never_opened),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_prelude_covers_runtime_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
