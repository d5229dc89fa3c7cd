/* mb_cuda_inspect_*: kernels, parameters, shared arrays, device variables and
 * launch sites of the examples and of the crafted files in tests/cuda. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/inspect.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const example_names[] = {
    "bfs", "blackscholes", "devfunc", "histogram", "kmeans", "local_array",
    "matmul", "nbody_f64", "nested_loops", "nw", "reduce_conflict", "reduce_seq",
    "stencil2d", "tid_loop", "transpose_naive", "transpose_shared", "vecadd", "warp_reduce",
};
enum { NEXAMPLES = sizeof(example_names) / sizeof(example_names[0]) };

static mb_cuda_source *inspect_path(const char *path)
{
    mb_cuda_source *src = NULL;
    mb_error err;
    mb_error_clear(&err);
    if (mb_cuda_inspect_file(path, NULL, 0, &src, &err) != MB_OK) {
        char buf[2048];
        mb_error_format(&err, buf, sizeof(buf));
        fail_msg("%s", buf);
    }
    assert_non_null(src);
    return src;
}

static mb_cuda_source *inspect_example(const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s/%s.cu", MB_EXAMPLES_DIR, name, name);
    return inspect_path(path);
}

static mb_cuda_source *inspect_crafted(const char *file)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/cuda/%s", MB_TEST_DATA, file);
    return inspect_path(path);
}

static void assert_param(const mb_cuda_kernel *k, int i, const char *name, const char *type, const char *pointee)
{
    assert_true(i < k->nparams);
    assert_string_equal(k->params[i].name, name);
    assert_string_equal(k->params[i].type, type);
    if (pointee) {
        assert_true(k->params[i].is_pointer);
        assert_string_equal(k->params[i].pointee, pointee);
    } else {
        assert_false(k->params[i].is_pointer);
        assert_null(k->params[i].pointee);
    }
}

static void assert_args(const mb_cuda_launch *l, int n, const char *const *args)
{
    assert_int_equal(l->nargs, n);
    for (int i = 0; i < n; i++)
        assert_string_equal(l->args[i], args[i]);
}

/* Every example: each launch names a kernel of the file with as many arguments as it has
 * parameters, and each kernel's .entry name is one of the committed PTX's entries. */
static void test_every_example(void **state)
{
    (void)state;
    for (int e = 0; e < NEXAMPLES; e++) {
        mb_cuda_source *src = inspect_example(example_names[e]);
        char path[512];
        snprintf(path, sizeof(path), "%s/%s/%s.ptx", MB_EXAMPLES_DIR, example_names[e], example_names[e]);
        char *ptx = NULL;
        size_t len = 0;
        mb_error err;
        assert_int_equal(mb_read_file(path, 1 << 24, &ptx, &len, &err), MB_OK);
        if (src->nkernels < 1 || src->nlaunches < 1)
            fail_msg("%s: %d kernels, %d launches", example_names[e], src->nkernels, src->nlaunches);
        for (int i = 0; i < src->nlaunches; i++) {
            const mb_cuda_launch *l = &src->launches[i];
            if (l->kernel_index < 0)
                fail_msg("%s: launch of %s not resolved", example_names[e], l->callee);
            const mb_cuda_kernel *k = &src->kernels[l->kernel_index];
            assert_int_equal(l->nargs, k->nparams);
            assert_string_equal(l->function, "main");
            assert_true(l->nconfig >= 2 && l->nconfig <= 3);
            assert_non_null(l->ptx_name);
            char entry[512];
            snprintf(entry, sizeof(entry), ".entry %s(", l->ptx_name);
            if (!strstr(ptx, entry))
                fail_msg("%s: %s not in the PTX", example_names[e], entry);
            assert_false(l->in_macro);
        }
        for (int i = 0; i < src->nkernels; i++) {
            const mb_cuda_kernel *k = &src->kernels[i];
            assert_true(k->is_definition);
            assert_true(k->nparams > 0);
            if (k->ptx_name) {
                char entry[512];
                snprintf(entry, sizeof(entry), ".entry %s(", k->ptx_name);
                if (!strstr(ptx, entry))
                    fail_msg("%s: %s not in the PTX", example_names[e], entry);
            } else {
                assert_true(k->is_template);
            }
            assert_string_equal(k->loc.file, src->name);
        }
        free(ptx);
        mb_cuda_source_free(src);
    }
}

static void test_vecadd(void **state)
{
    (void)state;
    mb_cuda_source *src = inspect_example("vecadd");
    assert_int_equal(src->nkernels, 1);
    const mb_cuda_kernel *k = &src->kernels[0];
    assert_string_equal(k->name, "vecadd");
    assert_string_equal(k->ptx_name, "vecadd");
    assert_true(k->is_extern_c);
    assert_false(k->is_template);
    assert_int_equal(k->loc.line, 11);
    assert_int_equal(k->loc.col, 28);
    assert_int_equal(k->nparams, 4);
    assert_param(k, 0, "a", "const float *", "const float");
    assert_param(k, 1, "b", "const float *", "const float");
    assert_param(k, 2, "c", "float *", "float");
    assert_param(k, 3, "n", "unsigned int", NULL);
    assert_null(k->launch_bounds);
    assert_int_equal(k->nshared, 0);
    assert_int_equal(src->nvars, 0);
    assert_int_equal(src->nlaunches, 1);
    const mb_cuda_launch *l = &src->launches[0];
    assert_int_equal(l->kind, MB_CUDA_LAUNCH_CHEVRON);
    assert_string_equal(l->kernel, "vecadd");
    assert_int_equal(l->kernel_index, 0);
    assert_int_equal(l->loc.line, 40);
    assert_int_equal(l->loc.col, 5);
    assert_int_equal(l->nconfig, 2);
    assert_string_equal(l->config[MB_CUDA_CFG_GRID], "grid");
    assert_string_equal(l->config[MB_CUDA_CFG_BLOCK], "block");
    assert_null(l->config[MB_CUDA_CFG_SHMEM]);
    assert_null(l->config[MB_CUDA_CFG_STREAM]);
    static const char *const args[] = {"d_a", "d_b", "d_c", "n"};
    assert_args(l, 4, args);
    assert_ptr_equal(mb_cuda_find_kernel(src, "vecadd"), k);
    assert_null(mb_cuda_find_kernel(src, "main"));
    mb_cuda_source_free(src);
}

static void test_matmul_shared_tiles(void **state)
{
    (void)state;
    mb_cuda_source *src = inspect_example("matmul");
    const mb_cuda_kernel *k = mb_cuda_find_kernel(src, "matmul_tiled");
    assert_non_null(k);
    assert_false(k->is_extern_c);
    assert_string_equal(k->ptx_name, "_Z12matmul_tiledPKfS0_Pfiii");
    assert_ptr_equal(mb_cuda_find_kernel(src, "_Z12matmul_tiledPKfS0_Pfiii"), k);
    assert_int_equal(k->nparams, 6);
    assert_param(k, 5, "k", "int", NULL);
    assert_int_equal(k->nshared, 2);
    const mb_cuda_var *a = &src->vars[k->shared[0]];
    assert_string_equal(a->name, "a_tile");
    assert_int_equal(a->space, MB_CUDA_SPACE_SHARED);
    assert_string_equal(a->element_type, "float");
    assert_int_equal(a->ndims, 2);
    assert_string_equal(a->dims[0].text, "TILE");
    assert_int_equal(a->dims[0].value, 16);
    assert_int_equal(a->dims[1].value, 16);
    assert_int_equal(a->bytes, 16 * 16 * 4);
    assert_false(a->is_dynamic);
    assert_string_equal(a->function, "matmul_tiled");
    assert_string_equal(src->vars[k->shared[1]].name, "b_tile");
    mb_cuda_source_free(src);
}

static void test_reduce_seq_template(void **state)
{
    (void)state;
    mb_cuda_source *src = inspect_example("reduce_seq");
    const mb_cuda_kernel *k = mb_cuda_find_kernel(src, "reduce_seq");
    assert_non_null(k);
    assert_true(k->is_template);
    assert_null(k->ptx_name);
    assert_int_equal(k->ninstantiations, 2);
    assert_string_equal(k->instantiations[0], "reduce_seq<128>");
    assert_string_equal(k->instantiations[1], "reduce_seq<256>");
    assert_int_equal(k->nshared, 1);
    const mb_cuda_var *s = &src->vars[k->shared[0]];
    assert_string_equal(s->dims[0].text, "BLOCK");
    assert_int_equal(s->dims[0].value, -1); /* a template parameter */
    assert_int_equal(s->bytes, -1);
    assert_int_equal(src->nlaunches, 2);
    assert_string_equal(src->launches[0].callee, "reduce_seq<128>");
    assert_string_equal(src->launches[0].kernel, "reduce_seq");
    assert_string_equal(src->launches[0].ptx_name, "_Z10reduce_seqILj128EEvPKfPfj");
    assert_string_equal(src->launches[1].config[MB_CUDA_CFG_BLOCK], "256");
    assert_string_equal(src->launches[1].ptx_name, "_Z10reduce_seqILj256EEvPKfPfj");
    mb_cuda_source_free(src);
}

static void test_dynamic_shared_and_constant(void **state)
{
    (void)state;
    mb_cuda_source *src = inspect_example("reduce_conflict");
    const mb_cuda_kernel *k = mb_cuda_find_kernel(src, "reduce_interleaved");
    assert_int_equal(k->nshared, 1);
    const mb_cuda_var *s = &src->vars[k->shared[0]];
    assert_true(s->is_dynamic);
    assert_true(s->is_extern);
    assert_int_equal(s->ndims, 1);
    assert_string_equal(s->dims[0].text, "");
    assert_int_equal(s->dims[0].value, -1);
    assert_int_equal(src->launches[0].nconfig, 3);
    assert_string_equal(src->launches[0].config[MB_CUDA_CFG_SHMEM], "block * sizeof(float)");
    mb_cuda_source_free(src);

    src = inspect_example("nw");
    int found = 0;
    for (int i = 0; i < src->nvars; i++)
        if (strcmp(src->vars[i].name, "c_subst") == 0) {
            found = 1;
            assert_int_equal(src->vars[i].space, MB_CUDA_SPACE_CONSTANT);
            assert_null(src->vars[i].function);
            assert_int_equal(src->vars[i].kernel, -1);
            assert_int_equal(src->vars[i].bytes, 64);
        }
    assert_true(found);
    assert_string_equal(src->launches[0].config[MB_CUDA_CFG_GRID], "last - first + 1");
    assert_string_equal(src->launches[0].config[MB_CUDA_CFG_BLOCK], "T");
    const mb_cuda_kernel *nw = &src->kernels[0];
    assert_string_equal(src->vars[nw->shared[0]].dims[0].text, "(T + 1) * PITCH");
    mb_cuda_source_free(src);
}

static void test_crafted_templates(void **state)
{
    (void)state;
    mb_cuda_source *src = inspect_crafted("inspect_templates.cu");
    assert_int_equal(src->nkernels, 2);
    const mb_cuda_kernel *sum = &src->kernels[0];
    assert_string_equal(sum->name, "block_sum");
    assert_string_equal(sum->launch_bounds, "BLOCK");
    assert_int_equal(sum->max_threads, -1);
    const mb_cuda_kernel *scale = &src->kernels[1];
    assert_param(scale, 0, "x", "T *", "T");
    assert_param(scale, 1, "a", "T", NULL);
    assert_int_equal(scale->ninstantiations, 2);
    assert_string_equal(scale->instantiations[0], "scale<float>");
    assert_string_equal(scale->instantiations[1], "scale<double>"); /* deduced from the arguments */
    assert_int_equal(src->nlaunches, 5);
    assert_int_equal(sum->ninstantiations, 2); /* block_sum<128> launched twice counts once */
    assert_string_equal(src->launches[0].config[MB_CUDA_CFG_GRID], "(n + 127) / 128");
    assert_string_equal(src->launches[0].function, "run_all");
    assert_string_equal(src->launches[4].callee, "scale");
    assert_string_equal(src->launches[4].ptx_name, "_Z5scaleIdEvPT_S0_i");
    static const char *const args[] = {"in", "2.0f", "(int)n"};
    assert_args(&src->launches[3], 3, args);
    mb_cuda_source_free(src);
}

static void test_crafted_launches(void **state)
{
    (void)state;
    mb_cuda_source *src = inspect_crafted("inspect_launches.cu");
    assert_int_equal(src->nkernels, 3);
    const mb_cuda_kernel *ext = mb_cuda_find_kernel(src, "external_kernel");
    assert_non_null(ext);
    assert_false(ext->is_definition);
    assert_int_equal(ext->loc.line, 13);
    assert_param(ext, 0, "data", "int *", "int");
    assert_int_equal(src->nlaunches, 6);

    const mb_cuda_launch *l = &src->launches[0]; /* fill<<<GRID_FOR(n), BLOCK>>> */
    assert_string_equal(l->function, "pipeline");
    assert_int_equal(l->loc.line, 34);
    assert_string_equal(l->config[MB_CUDA_CFG_GRID], "GRID_FOR(n)");
    assert_string_equal(l->config[MB_CUDA_CFG_BLOCK], "BLOCK");

    l = &src->launches[1]; /* three expressions */
    assert_int_equal(l->nconfig, 3);
    assert_string_equal(l->config[MB_CUDA_CFG_SHMEM], "SHARED_BYTES(BLOCK)");

    l = &src->launches[2]; /* four expressions, arguments over lines with comments */
    assert_int_equal(l->nconfig, 4);
    assert_string_equal(l->config[MB_CUDA_CFG_GRID], "dim3(GRID_FOR(n), 1, 1)");
    assert_string_equal(l->config[MB_CUDA_CFG_BLOCK], "dim3(BLOCK)");
    assert_string_equal(l->config[MB_CUDA_CFG_SHMEM], "BLOCK * sizeof(float)");
    assert_string_equal(l->config[MB_CUDA_CFG_STREAM], "stream");
    static const char *const args[] = {"b", "a", "n", "BLOCK"};
    assert_args(l, 4, args);

    l = &src->launches[3]; /* inside LAUNCH_FILL's body */
    assert_true(l->in_macro);
    assert_string_equal(l->kernel, "fill");
    assert_int_equal(l->loc.line, 40);
    assert_int_equal(l->loc.col, 5);
    assert_int_equal(l->nconfig, 2);
    assert_string_equal(l->config[MB_CUDA_CFG_GRID], "");
    static const char *const macro_args[] = {"b", "0.0f", "n"};
    assert_args(l, 3, macro_args);

    l = &src->launches[4]; /* a kernel defined elsewhere */
    assert_string_equal(l->kernel, "external_kernel");
    assert_ptr_equal(&src->kernels[l->kernel_index], ext);
    assert_string_equal(l->config[MB_CUDA_CFG_SHMEM], "0");
    assert_string_equal(l->function, "main");

    l = &src->launches[5];
    assert_int_equal(l->kind, MB_CUDA_LAUNCH_API);
    assert_string_equal(l->kernel, "fill");
    assert_string_equal(l->callee, "(const void *)fill");
    assert_string_equal(l->config[MB_CUDA_CFG_GRID], "dim3(GRID_FOR(n))");
    assert_string_equal(l->config[MB_CUDA_CFG_STREAM], "stream");
    static const char *const api_args[] = {"args"};
    assert_args(l, 1, api_args);
    mb_cuda_source_free(src);
}

static void test_crafted_memory(void **state)
{
    (void)state;
    mb_cuda_source *src = inspect_crafted("inspect_memory.cu");
    const mb_cuda_kernel *tiles = mb_cuda_find_kernel(src, "tiles");
    assert_string_equal(tiles->launch_bounds, "THREADS, 4");
    assert_int_equal(tiles->max_threads, -1); /* a macro: not evaluated */
    assert_int_equal(tiles->min_blocks, 4);
    assert_param(tiles, 0, "in", "const float *__restrict", "const float");
    assert_int_equal(tiles->nshared, 3);
    const mb_cuda_var *tile = &src->vars[tiles->shared[0]];
    assert_string_equal(tile->dims[1].text, "TILE + 1");
    assert_int_equal(tile->dims[1].value, 17);
    const mb_cuda_var *rows = &src->vars[tiles->shared[1]];
    assert_int_equal(rows->ndims, 2); /* one written, one from the typedef */
    assert_string_equal(rows->dims[0].text, "2");
    assert_int_equal(rows->dims[1].value, 16);
    assert_string_equal(rows->element_type, "float");
    assert_int_equal(rows->bytes, 128);
    const mb_cuda_var *accum = &src->vars[tiles->shared[2]];
    assert_int_equal(accum->ndims, 0);
    assert_int_equal(accum->bytes, 8);

    const mb_cuda_kernel *dyn = mb_cuda_find_kernel(src, "dynamic_two");
    assert_int_equal(dyn->max_threads, 512);
    assert_int_equal(dyn->min_blocks, -1);
    assert_true(src->vars[dyn->shared[0]].is_dynamic);

    /* Outside kernels, in source order. */
    static const struct {
        const char *name;
        mb_cuda_space space;
        long long bytes;
        const char *function;
    } expect[] = {
        {"coefficients", MB_CUDA_SPACE_CONSTANT, 192, NULL},
        {"level_count", MB_CUDA_SPACE_CONSTANT, 4, NULL},
        {"total_work", MB_CUDA_SPACE_DEVICE, 8, NULL},
        {"lookup", MB_CUDA_SPACE_DEVICE, 256, NULL},
        {"file_scope_flags", MB_CUDA_SPACE_SHARED, 16, NULL},
        {"scratch", MB_CUDA_SPACE_SHARED, 128, "helper_reduce"},
    };
    int n = 0;
    for (int i = 0; i < src->nvars; i++) {
        const mb_cuda_var *v = &src->vars[i];
        if (v->kernel >= 0)
            continue;
        assert_true(n < 6);
        assert_string_equal(v->name, expect[n].name);
        assert_int_equal(v->space, expect[n].space);
        assert_int_equal(v->bytes, expect[n].bytes);
        if (expect[n].function)
            assert_string_equal(v->function, expect[n].function);
        else
            assert_null(v->function);
        n++;
    }
    assert_int_equal(n, 6);
    assert_string_equal(src->vars[0].dims[1].text, "TILE");
    assert_int_equal(src->nlaunches, 0);
    mb_cuda_source_free(src);
}

static void test_errors(void **state)
{
    (void)state;
    mb_cuda_source *src = (mb_cuda_source *)1;
    mb_error err;
    assert_int_equal(mb_cuda_inspect_file(MB_TEST_DATA "/cuda/no_such_file.cu", NULL, 0, &src, &err), MB_ERR_IO);
    assert_null(src);
    assert_non_null(strstr(err.file, "no_such_file.cu"));

    static const char bad[] = "__global__ void k(int *p)\n{\n    p[0] = ;\n}\n";
    assert_int_equal(mb_cuda_inspect_text("bad.cu", bad, sizeof(bad) - 1, NULL, 0, &src, &err), MB_ERR_PARSE);
    assert_null(src);
    assert_string_equal(err.file, "bad.cu");
    assert_int_equal(err.line, 3);
    assert_int_equal(err.col, 12);
    assert_non_null(strstr(err.msg, "expected expression"));

    /* Too many clang arguments. */
    const char *many[MB_CUDA_MAX_CLANG_ARGS + 1];
    for (int i = 0; i <= MB_CUDA_MAX_CLANG_ARGS; i++)
        many[i] = "-DX";
    assert_int_equal(mb_cuda_inspect_text("a.cu", "int x;", 6, many, MB_CUDA_MAX_CLANG_ARGS + 1, &src, &err),
                     MB_ERR_INVALID);
    /* An unknown clang option is an error that names no place in the file. */
    const char *unknown[] = {"--no-such-clang-option"};
    assert_int_equal(mb_cuda_inspect_text("a.cu", "int x;", 6, unknown, 1, &src, &err), MB_ERR_PARSE);
    assert_string_equal(err.file, "a.cu");
    assert_int_equal(err.line, 0);
    assert_non_null(strstr(err.msg, "no-such-clang-option"));
    mb_cuda_source_free(NULL);
}

static void test_clang_args_pass_through(void **state)
{
    (void)state;
    static const char text[] =
        "#include \"kernel_header.cuh\"\n"
        "#ifndef WIDTH\n#error WIDTH must be defined\n#endif\n"
        "__global__ void k(float *p) { __shared__ float s[WIDTH]; s[0] = p[0]; p[1] = s[0]; }\n";
    const char *args[] = {"-DWIDTH=48", "-I", MB_TEST_DATA "/cuda/include"};
    mb_cuda_source *src = NULL;
    mb_error err;
    mb_status st = mb_cuda_inspect_text("args.cu", text, sizeof(text) - 1, args, 3, &src, &err);
    if (st != MB_OK) {
        char buf[2048];
        mb_error_format(&err, buf, sizeof(buf));
        fail_msg("%s", buf);
    }
    assert_int_equal(src->nkernels, 2);
    assert_string_equal(src->kernels[0].name, "from_header");
    assert_non_null(strstr(src->kernels[0].loc.file, "kernel_header.cuh"));
    const mb_cuda_kernel *k = mb_cuda_find_kernel(src, "k");
    assert_int_equal(src->vars[k->shared[0]].dims[0].value, 48);
    assert_string_equal(src->vars[k->shared[0]].dims[0].text, "WIDTH");
    mb_cuda_source_free(src);
    /* Without the definition the #error is the first error. */
    assert_int_equal(mb_cuda_inspect_text("args.cu", text, sizeof(text) - 1, args + 1, 2, &src, &err), MB_ERR_PARSE);
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.msg, "WIDTH must be defined"));
}

/* Without a CUDA installation clang uses the legacy cudaConfigureCall; the prelude
 * declares it, so launches parse and are found the same way. */
static void test_legacy_launch_protocol(void **state)
{
    (void)state;
    const char *args[] = {"--cuda-path=/nonexistent-cuda-for-minibench-test"};
    static const char text[] = "__global__ void k(int *p) { p[0] = 1; }\n"
                               "int main() { k<<<2, 64, 0, 0>>>(0); return 0; }\n";
    mb_cuda_source *src = NULL;
    mb_error err;
    assert_int_equal(mb_cuda_inspect_text("legacy.cu", text, sizeof(text) - 1, args, 1, &src, &err), MB_OK);
    assert_int_equal(src->nlaunches, 1);
    assert_int_equal(src->launches[0].nconfig, 4);
    assert_string_equal(src->launches[0].config[MB_CUDA_CFG_BLOCK], "64");
    mb_cuda_source_free(src);
}

static void test_json(void **state)
{
    (void)state;
    mb_cuda_source *src = inspect_example("vecadd");
    mb_buf a = MB_BUF_INIT, b = MB_BUF_INIT;
    mb_error err;
    assert_int_equal(mb_cuda_source_json(src, &a, &err), MB_OK);
    mb_cuda_source_free(src);
    src = inspect_example("vecadd");
    assert_int_equal(mb_cuda_source_json(src, &b, &err), MB_OK);
    assert_string_equal(a.data, b.data); /* deterministic */
    assert_non_null(strstr(a.data, "\"name\": \"vecadd\""));
    assert_non_null(strstr(a.data, "\"ptx_name\": \"vecadd\""));
    assert_non_null(strstr(a.data, "\"pointee\": \"const float\""));
    assert_non_null(strstr(a.data, "\"grid\": \"grid\""));
    assert_non_null(strstr(a.data, "\"shared_bytes\": null"));
    assert_non_null(strstr(a.data, "\"arguments\": [\n        \"d_a\",\n"));
    assert_int_equal(a.data[a.len - 1], '\n');
    mb_buf_free(&a);
    mb_buf_free(&b);
    mb_cuda_source_free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_example),
        cmocka_unit_test(test_vecadd),
        cmocka_unit_test(test_matmul_shared_tiles),
        cmocka_unit_test(test_reduce_seq_template),
        cmocka_unit_test(test_dynamic_shared_and_constant),
        cmocka_unit_test(test_crafted_templates),
        cmocka_unit_test(test_crafted_launches),
        cmocka_unit_test(test_crafted_memory),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_clang_args_pass_through),
        cmocka_unit_test(test_legacy_launch_protocol),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
