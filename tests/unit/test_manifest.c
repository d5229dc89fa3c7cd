/* Launch manifests: parsing, initialisers, binding to kernels, outputs, errors. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/profiler.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Kernels that only return: binding needs a program, not execution. */
static const char *kernels_ptx =
    ".version 8.8\n.target sm_75\n.address_size 64\n"
    ".visible .entry vec(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n{\n\tret;\n}\n"
    ".visible .entry scal(.param .f32 x, .param .s8 y, .param .align 4 .b8 s[8])\n{\n\tret;\n}\n"
    ".visible .entry vec2(.param .u64 a)\n{\n\tret;\n}\n";

typedef struct fixture {
    mb_module *m;
    mb_memory *mem;
    mb_program *prog;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    mb_error err;
    assert_int_equal(mb_ptx_parse(kernels_ptx, strlen(kernels_ptx), "k.ptx", &f->m, &err), MB_OK);
    assert_int_equal(mb_memory_new(&f->mem, &err), MB_OK);
    assert_int_equal(mb_program_new(f->m, f->mem, &f->prog, &err), MB_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    mb_program_free(f->prog);
    mb_memory_free(f->mem);
    mb_module_free(f->m);
    free(f);
    return 0;
}

static mb_manifest *parse_ok(const char *json)
{
    mb_manifest *man = NULL;
    mb_error err;
    mb_error_clear(&err);
    mb_status st = mb_manifest_parse(json, strlen(json), "t.json", &man, &err);
    if (st != MB_OK)
        fail_msg("manifest did not parse: %s", err.msg);
    return man;
}

/* Parses (and, if parsing works, binds) and expects failure with `phrase`. */
static void expect_error(fixture *f, const char *json, mb_status status, const char *phrase)
{
    mb_manifest *man = NULL;
    mb_manifest_run *run = NULL;
    mb_error err;
    mb_error_clear(&err);
    mb_status st = mb_manifest_parse(json, strlen(json), "t.json", &man, &err);
    if (st == MB_OK) {
        st = mb_manifest_bind(man, f->prog, f->mem, &run, &err);
        mb_manifest_run_free(run);
        mb_manifest_free(man);
    }
    if (st == MB_OK)
        fail_msg("expected an error containing '%s'", phrase);
    assert_int_equal(st, status);
    if (!strstr(err.msg, phrase))
        fail_msg("message '%s' lacks '%s'", err.msg, phrase);
    assert_string_equal(err.file, "t.json");
}

#define VEC_LAUNCH "\"launches\": [{\"kernel\": \"vec\", \"grid\": 2, \"block\": [64], \"args\": [\"a\", \"b\", \"c\", 100]}]"

static void test_bind_and_params(void **state)
{
    fixture *f = *state;
    mb_manifest *man = parse_ok(
        "{\"buffers\": {\"a\": {\"type\": \"u32\", \"count\": 4, \"init\": [1, 2, 3]},"
        " \"b\": {\"type\": \"f32\", \"count\": 3, \"init\": {\"kind\": \"sequence\", \"start\": 1, \"step\": 0.5}},"
        " \"c\": {\"type\": \"s8\", \"count\": 2, \"init\": {\"kind\": \"constant\", \"value\": -1}, \"output\": true}},"
        VEC_LAUNCH "}");
    assert_int_equal(mb_manifest_nlaunches(man), 1);
    mb_manifest_run *run;
    mb_error err;
    assert_int_equal(mb_manifest_bind(man, f->prog, f->mem, &run, &err), MB_OK);
    uint64_t bytes;
    uint64_t a = mb_manifest_buffer(run, "a", &bytes);
    assert_int_equal(bytes, 16);
    const uint32_t *av = mb_memory_host(f->mem, a, 16);
    assert_int_equal(av[0], 1);
    assert_int_equal(av[2], 3);
    assert_int_equal(av[3], 0); /* the rest of an explicit list is zero */
    const float *bv = mb_memory_host(f->mem, mb_manifest_buffer(run, "b", NULL), 12);
    assert_true(bv[0] == 1.0f && bv[1] == 1.5f && bv[2] == 2.0f);
    const int8_t *cv = mb_memory_host(f->mem, mb_manifest_buffer(run, "c", NULL), 2);
    assert_int_equal(cv[0], -1);
    assert_int_equal(mb_manifest_buffer(run, "nope", NULL), 0);
    const mb_launch_config *cfg = mb_manifest_launch(run, 0);
    assert_string_equal(cfg->kernel->name, "vec");
    assert_int_equal(cfg->grid.x, 2);
    assert_int_equal(cfg->grid.y, 1);
    assert_int_equal(cfg->block.x, 64);
    assert_int_equal(cfg->param_bytes, 28);
    uint64_t p0;
    uint32_t p3;
    memcpy(&p0, cfg->params, 8);
    memcpy(&p3, (const uint8_t *)cfg->params + 24, 4);
    assert_int_equal(p0, a);
    assert_int_equal(p3, 100);
    assert_null(mb_manifest_launch(run, 1));
    mb_manifest_run_free(run);
    mb_manifest_free(man);
}

static void test_random_is_deterministic_and_in_range(void **state)
{
    fixture *f = *state;
    const char *json = "{\"buffers\": {\"a\": {\"type\": \"f32\", \"count\": 1000, \"init\": {\"kind\": \"random\", \"seed\": 7, \"min\": -2, \"max\": 3}},"
                       " \"b\": {\"type\": \"s32\", \"count\": 1000, \"init\": {\"kind\": \"random\", \"seed\": 7, \"min\": -5, \"max\": 5}},"
                       " \"c\": {\"type\": \"u32\", \"count\": 1}},"
                       VEC_LAUNCH "}";
    float first[1000];
    for (int pass = 0; pass < 2; pass++) {
        mb_manifest *man = parse_ok(json);
        mb_manifest_run *run;
        mb_error err;
        assert_int_equal(mb_manifest_bind(man, f->prog, f->mem, &run, &err), MB_OK);
        const float *a = mb_memory_host(f->mem, mb_manifest_buffer(run, "a", NULL), 4000);
        const int32_t *b = mb_memory_host(f->mem, mb_manifest_buffer(run, "b", NULL), 4000);
        int seen_lo = 0, seen_hi = 0;
        for (int i = 0; i < 1000; i++) {
            assert_true(a[i] >= -2.0f && a[i] < 3.0f);
            assert_true(b[i] >= -5 && b[i] <= 5);
            seen_lo |= b[i] == -5;
            seen_hi |= b[i] == 5;
        }
        assert_true(seen_lo && seen_hi); /* both ends of an integer range occur */
        if (pass == 0)
            memcpy(first, a, sizeof(first));
        else
            assert_memory_equal(first, a, sizeof(first));
        mb_manifest_run_free(run);
        mb_manifest_free(man);
    }
}

static void test_scalar_conversions_and_bytes(void **state)
{
    fixture *f = *state;
    mb_manifest *man = parse_ok("{\"launches\": [{\"kernel\": \"/^sc/\", \"grid\": [1,1,1], \"block\": 32,"
                                " \"args\": [1.5, -3, {\"bytes\": [1,2,3,4,5,6,7,8]}]}]}");
    mb_manifest_run *run;
    mb_error err;
    assert_int_equal(mb_manifest_bind(man, f->prog, f->mem, &run, &err), MB_OK);
    const mb_launch_config *cfg = mb_manifest_launch(run, 0);
    assert_string_equal(cfg->kernel->name, "scal");
    const uint8_t *p = cfg->params;
    float x;
    memcpy(&x, p, 4);
    assert_true(x == 1.5f);
    assert_int_equal((int8_t)p[4], -3);
    assert_int_equal(p[8], 1); /* .align 4 array after an s8 at offset 4 */
    assert_int_equal(p[15], 8);
    mb_manifest_run_free(run);
    mb_manifest_free(man);
}

static void test_outputs(void **state)
{
    fixture *f = *state;
    char dir[] = "/tmp/mb_manifest_outXXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[300];
    snprintf(sub, sizeof(sub), "%s/out", dir);
    mb_manifest *man = parse_ok("{\"buffers\": {\"a\": {\"type\": \"u32\", \"init\": [1, 2]},"
                                " \"b\": {\"type\": \"u32\", \"count\": 1}, \"c\": {\"type\": \"u8\", \"count\": 3, \"output\": true,"
                                " \"init\": [9, 8, 7]}}," VEC_LAUNCH "}");
    mb_manifest_run *run;
    mb_error err;
    assert_int_equal(mb_manifest_bind(man, f->prog, f->mem, &run, &err), MB_OK);
    assert_int_equal(mb_manifest_write_outputs(run, sub, &err), MB_OK);
    char path[400];
    snprintf(path, sizeof(path), "%s/c.bin", sub);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    unsigned char got[4] = {0};
    assert_int_equal(fread(got, 1, 4, fp), 3);
    fclose(fp);
    assert_int_equal(got[0], 9);
    assert_int_equal(got[2], 7);
    snprintf(path, sizeof(path), "%s/a.bin", sub);
    assert_int_not_equal(access(path, F_OK), 0); /* not an output */
    snprintf(path, sizeof(path), "%s/index.json", sub);
    char *text;
    size_t len;
    assert_int_equal(mb_read_file(path, 1 << 20, &text, &len, &err), MB_OK);
    assert_non_null(strstr(text, "\"name\": \"c\""));
    assert_non_null(strstr(text, "\"bytes\": 3"));
    assert_non_null(strstr(text, "\"fnv1a64\": \"0x"));
    free(text);
    snprintf(path, sizeof(path), "rm -rf %s", dir);
    assert_int_equal(system(path), 0);
    mb_manifest_run_free(run);
    mb_manifest_free(man);
}

static void test_errors(void **state)
{
    fixture *f = *state;
    expect_error(f, "{\"buffers\": {}, \n \"launches\": [}", MB_ERR_PARSE, "");
    expect_error(f, "[1]", MB_ERR_INVALID, "(top level): expected an object");
    expect_error(f, "{\"launchs\": []}", MB_ERR_INVALID, "unknown field 'launchs'");
    expect_error(f, "{\"launches\": []}", MB_ERR_INVALID, "launches: expected a non-empty array");
    expect_error(f, "{\"launches\": [{\"kernel\": \"vec\", \"block\": 1, \"args\": []}]}", MB_ERR_INVALID,
                 "launches[0].grid: missing");
    expect_error(f, "{\"launches\": [{\"kernel\": \"vec\", \"grid\": [1,2,3,4], \"block\": 1}]}", MB_ERR_INVALID,
                 "launches[0].grid: expected a positive integer or an array of 1 to 3");
    expect_error(f, "{\"launches\": [{\"kernel\": \"vec\", \"grid\": 0, \"block\": 1}]}", MB_ERR_INVALID,
                 "launches[0].grid");
    expect_error(f, "{\"buffers\": {\"a\": {\"type\": \"q32\", \"count\": 1}}, " VEC_LAUNCH "}", MB_ERR_INVALID,
                 "buffers.a.type: expected a PTX data type");
    expect_error(f, "{\"buffers\": {\"a\": {\"type\": \"u32\"}}, " VEC_LAUNCH "}", MB_ERR_INVALID,
                 "buffers.a: missing \"count\" or \"bytes\"");
    expect_error(f, "{\"buffers\": {\"a\": {\"type\": \"u32\", \"count\": 1000000000000000}}, " VEC_LAUNCH "}",
                 MB_ERR_LIMIT, "buffers.a.count");
    expect_error(f, "{\"buffers\": {\"a\": {\"type\": \"u32\", \"count\": 2, \"bytes\": 12}}, " VEC_LAUNCH "}",
                 MB_ERR_INVALID, "disagrees");
    expect_error(f, "{\"buffers\": {\"a\": {\"type\": \"u8\", \"count\": 2, \"init\": [1, 2, 3]}}, " VEC_LAUNCH "}",
                 MB_ERR_INVALID, "3 values for 2 elements");
    expect_error(f, "{\"buffers\": {\"a\": {\"type\": \"u8\", \"count\": 2, \"init\": [1, 300]}, \"b\": {\"count\": 1}, \"c\": {\"count\": 1}}, " VEC_LAUNCH "}",
                 MB_ERR_INVALID, "element 1 is not a number that fits in .u8");
    expect_error(f, "{\"buffers\": {\"a\": {\"type\": \"u8\", \"count\": 2, \"init\": {\"kind\": \"noise\"}}}, " VEC_LAUNCH "}",
                 MB_ERR_INVALID, "unknown kind 'noise'");
    expect_error(f, "{\"buffers\": {\"a\": {\"count\": 2, \"init\": {\"kind\": \"file\", \"path\": \"/nonexistent/x.bin\"}}, \"b\": {\"count\": 1}, \"c\": {\"count\": 1}}, " VEC_LAUNCH "}",
                 MB_ERR_IO, "cannot open");
    expect_error(f, "{\"buffers\": {\"a\": {\"count\": 2, \"init\": {\"kind\": \"file\", \"path\": \"/etc/passwd\"}}, \"b\": {\"count\": 1}, \"c\": {\"count\": 1}}, " VEC_LAUNCH "}",
                 MB_ERR_INVALID, "is larger than the buffer");
    expect_error(f, "{\"launches\": [{\"kernel\": \"nope\", \"grid\": 1, \"block\": 1}]}", MB_ERR_INVALID,
                 "no kernel named 'nope' in k.ptx; kernels: vec scal vec2");
    expect_error(f, "{\"launches\": [{\"kernel\": \"/vec/\", \"grid\": 1, \"block\": 1}]}", MB_ERR_INVALID,
                 "/vec/ matches 2 kernels: vec vec2");
    expect_error(f, "{\"launches\": [{\"kernel\": \"/(/\", \"grid\": 1, \"block\": 1}]}", MB_ERR_INVALID,
                 "bad regular expression");
    expect_error(f, "{\"buffers\": {\"a\": {\"count\": 1}}, \"launches\": [{\"kernel\": \"vec\", \"grid\": 1, \"block\": 1, \"args\": [\"a\"]}]}",
                 MB_ERR_INVALID, "kernel vec takes 4 arguments, the manifest gives 1");
    expect_error(f, "{\"buffers\": {\"a\": {\"count\": 1}}, \"launches\": [{\"kernel\": \"vec\", \"grid\": 1, \"block\": 1, \"args\": [\"a\", \"a\", \"a\", 5000000000]}]}",
                 MB_ERR_INVALID, "launches[0].args[3]: the integer does not fit parameter n of type .u32");
    expect_error(f, "{\"buffers\": {\"a\": {\"count\": 1}}, \"launches\": [{\"kernel\": \"vec\", \"grid\": 1, \"block\": 1, \"args\": [\"a\", \"a\", \"a\", -1]}]}",
                 MB_ERR_INVALID, "does not fit parameter n");
    expect_error(f, "{\"buffers\": {\"a\": {\"count\": 1}}, \"launches\": [{\"kernel\": \"vec\", \"grid\": 1, \"block\": 1, \"args\": [\"a\", \"a\", \"a\", 2.5]}]}",
                 MB_ERR_INVALID, "the number does not fit parameter n");
    expect_error(f, "{\"buffers\": {\"a\": {\"count\": 1}}, \"launches\": [{\"kernel\": \"vec\", \"grid\": 1, \"block\": 1, \"args\": [\"a\", \"a\", \"a\", \"a\"]}]}",
                 MB_ERR_INVALID, "cannot hold a 64-bit address");
    expect_error(f, "{\"buffers\": {\"a\": {\"count\": 1}}, \"launches\": [{\"kernel\": \"vec\", \"grid\": 1, \"block\": 1, \"args\": [\"a\", \"zz\", \"a\", 1]}]}",
                 MB_ERR_INVALID, "launches[0].args[1]: no buffer named 'zz'");
    expect_error(f, "{\"launches\": [{\"kernel\": \"scal\", \"grid\": 1, \"block\": 1, \"args\": [1, 2, {\"bytes\": [1]}]}]}",
                 MB_ERR_INVALID, "parameter s takes 8 bytes, the manifest gives 1");
    expect_error(f, "{\"launches\": [{\"kernel\": \"scal\", \"grid\": 1, \"block\": 1, \"args\": [1, 2, 3]}]}",
                 MB_ERR_INVALID, "parameter s is an array");
}

static void test_memory_limit(void **state)
{
    fixture *f = *state;
    mb_memory_set_limit(f->mem, 1 << 20);
    expect_error(f, "{\"buffers\": {\"a\": {\"count\": 2000000}, \"b\": {\"count\": 1}, \"c\": {\"count\": 1}}, " VEC_LAUNCH "}", MB_ERR_LIMIT,
                 "buffers.a: allocating 2000000 bytes for 'a' exceeds the device memory limit");
    mb_memory_set_limit(f->mem, UINT64_C(16) << 30);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_bind_and_params, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_is_deterministic_and_in_range, setup, teardown),
        cmocka_unit_test_setup_teardown(test_scalar_conversions_and_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outputs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_memory_limit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
