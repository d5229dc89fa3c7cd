/* emit: template placeholders, and the clone directory's five files. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/emit.h>
#include <minibench/inspect.h>
#include <minibench/profiler.h>
#include <minibench/synth.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "synth_fixture.h"

static void test_template_fill(void **state)
{
    (void)state;
    const char *keys[] = {"NAME", "N2"};
    const char *values[] = {"world", "two"};
    const char tpl[] = "hello @@NAME@@, @@N2@@ and @@NAME@@; @@lower@@ stays";
    mb_buf out = MB_BUF_INIT;
    mb_error err;
    assert_int_equal(mb_template_fill("t", tpl, strlen(tpl), keys, values, 2, &out, &err), MB_OK);
    assert_string_equal(out.data, "hello world, two and world; @@lower@@ stays");
    mb_buf_reset(&out);
    const char bad[] = "line one\nline @@MISSING@@ two\n";
    assert_int_equal(mb_template_fill("bad.in", bad, strlen(bad), keys, values, 2, &out, &err),
                     MB_ERR_INVALID);
    assert_string_equal(err.file, "bad.in");
    assert_int_equal(err.line, 2);
    assert_non_null(strstr(err.msg, "placeholder @@MISSING@@ has no value"));
    mb_buf_free(&out);
    /* every template is embedded, so emit works from any directory */
    const char *names[] = {"clone.ptx", "clone.cu", "Makefile", "README.md"};
    for (int i = 0; i < 4; i++) {
        size_t len = 0;
        assert_non_null(mb_template_text(names[i], &len));
        assert_true(len > 100);
    }
    assert_null(mb_template_text("nothing", NULL));
}

/* The fixture profile's JSON with a uniform self-loop branch (malloc'd). */
static char *fixture_json(void)
{
    /* the self-loop's branch record */
    return replace(PROFILE_JSON("0.0", "128", "{\"4\": 4}"), "\"condition\": \"thread/cta id\"}],",
                   "\"condition\": \"thread/cta id\"},\n {\"insn\": 4, \"line\": 13, \"block\": 1, "
                   "\"warp_execs\": 4, \"taken_threads\": 96, \"not_taken_threads\": 32, "
                   "\"diverged_warp_execs\": 0, \"divergence_fraction\": 0.0, \"condition\": \"uniform\"}],");
}

static mb_clone_model *fixture_model(double r)
{
    char *s = fixture_json();
    mb_error err;
    mb_sprof *p = NULL;
    mb_clone_model *m = NULL;
    if (mb_sprof_parse_json(s, strlen(s), "fixture.json", &p, &err) != MB_OK ||
        mb_clone_build(p, r, 3, &m, &err) != MB_OK)
        fail_msg("%s", err.msg);
    mb_sprof_free(p);
    free(s);
    return m;
}

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *data = NULL;
    size_t len;
    mb_error err;
    if (mb_read_file(path, 1 << 24, &data, &len, &err) != MB_OK)
        fail_msg("%s: %s", path, err.msg);
    return data;
}

/* m's README holds `text`, or, where text is NULL, no `absent` at all. */
static void readme_names(const mb_clone_model *m, const char *text, const char *absent)
{
    mb_buf out = MB_BUF_INIT;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_emit_readme(m, &out, &err), MB_OK);
    if (text)
        assert_non_null(strstr(out.data, text));
    else
        assert_null(strstr(out.data, absent));
    mb_buf_free(&out);
}

/* A loop's stairs are named with its branch in the README, in each form. */
static void test_readme_stairs(void **state)
{
    (void)state;
    mb_clone_model *m = fixture_model(2);
    assert_int_equal(m->branches[1].rule, MB_RULE_LOOP_BACK);
    assert_int_equal(m->branches[1].loop, 0);
    const struct {
        uint32_t stairs, shift, period;
        const char *text;
    } cases[] = {
        {0, 0, 1, NULL},
        {1, 0, 8, "(stairs: lane 0 of one warp in 8 runs an iteration more)"},
        {1, 4, 8, "(stairs: lanes 0 to 15 of one warp in 8 run an iteration more)"},
        {2, 0, 1, "(stairs: lanes 0 to 1 of every warp run 2 to 1 iterations more, 1 lane a step)"},
        {2, 3, 4, "(stairs: lanes 0 to 15 of one warp in 4 run 2 to 1 iterations more, 8 lanes a step)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        m->loops[0].stairs = cases[i].stairs;
        m->loops[0].stair_shift = cases[i].shift;
        m->loops[0].lane_period = cases[i].period;
        readme_names(m, cases[i].text, "stairs");
    }
    mb_clone_free(m);
}

/* A cycled loop's table of trips is listed with its branch, field by
 * field; a cycle without a table (the floors) lists none. */
static void test_readme_cycle_table(void **state)
{
    (void)state;
    mb_clone_model *m = fixture_model(2);
    assert_int_equal(m->branches[1].loop, 0);
    const struct {
        uint32_t cycle, bits, table;
        const char *text;
    } cases[] = {
        {7, 0, 0, NULL},
        {7, 4, 0x03411112u, "(trips by thread index mod 7: 2 1 1 1 1 4 3)"},
        {3, 3, 0x1d1u, "(trips by thread index mod 3: 1 2 7)"},
        {2, 16, 0x00050001u, "(trips by thread index mod 2: 1 5)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        m->loops[0].cycle = cases[i].cycle;
        m->loops[0].cycle_bits = cases[i].bits;
        m->loops[0].cycle_table = cases[i].table;
        readme_names(m, cases[i].text, "trips by thread index");
    }
    /* a field past the table's 32 bits reads 0, not a shifted-out value */
    m->loops[0].cycle_bits = 16;
    m->loops[0].cycle_table = 0xffffffffu;
    assert_int_equal(mb_clone_cycle_trip(&m->loops[0], 1), 0xffff);
    assert_int_equal(mb_clone_cycle_trip(&m->loops[0], 2), 0);
    m->loops[0].cycle = 0;
    m->loops[0].cycle_bits = 0;
    mb_clone_free(m);
}

static void test_clone_dir(void **state)
{
    (void)state;
    mb_clone_model *m = fixture_model(2);
    char dir[] = "/tmp/mb_emit_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[600];
    snprintf(sub, sizeof sub, "%s/a/b", dir);
    mb_error err;
    mb_error_clear(&err);
    if (mb_emit_clone_dir(m, sub, &err) != MB_OK)
        fail_msg("%s", err.msg);
    char *ptx = slurp(sub, "clone.ptx"), *cu = slurp(sub, "clone.cu"), *mk = slurp(sub, "Makefile"),
         *readme = slurp(sub, "README.md"), *launch = slurp(sub, "launch.json");
    /* clone.cu: one asm volatile block, parameters as operands, timed with events */
    assert_non_null(strstr(cu, "asm volatile("));
    assert_null(strstr(strstr(cu, "asm volatile(") + 1, "asm volatile("));
    assert_non_null(strstr(cu, ": \"l\"(p0)"));
    assert_non_null(strstr(cu, "cudaEventElapsedTime"));
    assert_non_null(strstr(cu, "CHECK(cudaMalloc(&d_0, bytes));"));
    assert_non_null(strstr(cu, "k_clone<<<grid, block, 0>>>(d_0 + 0)"));
    assert_int_equal(mb_cuda_check_syntax("clone.cu", cu, strlen(cu), &err), MB_OK);
    /* the README states source, reduction, seed and expected statistics */
    assert_non_null(strstr(readme, "| reduction factor | 2 |"));
    assert_non_null(strstr(readme, "| seed | 3 |"));
    assert_non_null(strstr(readme, "| 1 | `$Lc1` | 64 |"));
    assert_non_null(strstr(readme, "self-loop"));
    assert_non_null(strstr(mk, "$(NVCC) -arch=$(ARCH)"));
    assert_non_null(strstr(ptx, ".target sm_75"));
    /* launch.json loads as a manifest with the original's buffer size */
    assert_non_null(strstr(launch, "\"bytes\": 256"));
    char path[700];
    snprintf(path, sizeof path, "%s/launch.json", sub);
    mb_manifest *man = NULL;
    if (mb_manifest_load(path, &man, &err) != MB_OK)
        fail_msg("%s", err.msg);
    mb_manifest_free(man);
    free(ptx);
    free(cu);
    free(mk);
    free(readme);
    free(launch);
    const char *names[] = {"clone.ptx", "clone.cu", "launch.json", "Makefile", "README.md"};
    for (int i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", sub, names[i]);
        unlink(path);
    }
    rmdir(sub);
    snprintf(path, sizeof path, "%s/a", dir);
    rmdir(path);
    /* an output path that is a file: nothing written, the error names it */
    snprintf(path, sizeof path, "%s/file", dir);
    assert_int_equal(mb_write_file_atomic(path, "x", 1, &err), MB_OK);
    assert_int_equal(mb_emit_clone_dir(m, path, &err), MB_ERR_IO);
    assert_non_null(strstr(err.msg, "cannot create the output directory"));
    unlink(path);
    rmdir(dir);
    mb_clone_free(m);
}

/* The profile's input becomes the clone's: checked when the model is built,
 * copied into the clone directory (checked again), loaded by launch.json and
 * clone.cu; a file that changed in between leaves nothing behind. */
static void test_clone_dir_inputs(void **state)
{
    (void)state;
    char dir[] = "/tmp/mb_emit_XXXXXX", src[600], out[600], path[700];
    assert_non_null(mkdtemp(dir));
    unsigned char data[256];
    for (int i = 0; i < 256; i++)
        data[i] = (unsigned char)(i * 7);
    snprintf(src, sizeof src, "%s/k.0.input0.bin", dir);
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_write_file_atomic(src, data, sizeof data, &err), MB_OK);
    char *base = fixture_json(), inputs[200];
    snprintf(inputs, sizeof inputs,
             "\"offset\": 0, \"input\": 0}}],\n \"inputs\": [{\"buffer\": \"a\", \"bytes\": 256, "
             "\"fnv1a64\": \"0x%016llx\"}], \"module_variables\"",
             (unsigned long long)mb_fnv1a64(MB_FNV1A64_INIT, data, sizeof data));
    char *s = replace(base, "\"offset\": 0}}],\n \"module_variables\"", inputs);
    mb_sprof *p = NULL;
    mb_clone_model *m = NULL;
    if (mb_sprof_parse_json(s, strlen(s), "fixture.json", &p, &err) != MB_OK)
        fail_msg("%s", err.msg);
    /* parsed from text: no files beside it, seeded bytes */
    assert_int_equal(mb_clone_build(p, 2, 3, &m, &err), MB_OK);
    assert_int_equal(m->ninputs, 0);
    assert_null(m->params[0].input);
    mb_clone_free(m);
    /* beside the profile, as mb_sprof_load finds it */
    p->inputs[0].path = src;
    if (mb_clone_build(p, 2, 3, &m, &err) != MB_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(m->ninputs, 1);
    assert_ptr_equal(m->params[0].input, &m->inputs[0]);
    assert_string_equal(m->inputs[0].file, "input0.bin");
    assert_true(m->inputs[0].source[0] == '/');
    mb_buf launch = MB_BUF_INIT;
    assert_int_equal(mb_emit_launch(m, MB_INPUTS_AT_PROFILE, &launch, &err), MB_OK);
    assert_non_null(strstr(launch.data, m->inputs[0].source));
    mb_buf_reset(&launch);
    assert_int_equal(mb_emit_launch(m, MB_INPUTS_IN_CLONE_DIR, &launch, &err), MB_OK);
    assert_non_null(strstr(launch.data, "\"path\": \"input0.bin\""));
    mb_buf_free(&launch);
    snprintf(out, sizeof out, "%s/clone", dir);
    /* an earlier clone with more inputs wrote here: its extra inputs go,
     * files not named like a clone's input stay */
    assert_int_equal(mkdir(out, 0777), 0);
    static const char *const stale[] = {"input1.bin", "input12.bin"}, *const kept[] = {"inputs.bin", "input1.txt"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", out, stale[i]);
        assert_int_equal(mb_write_file_atomic(path, "x", 1, &err), MB_OK);
        snprintf(path, sizeof path, "%s/%s", out, kept[i]);
        assert_int_equal(mb_write_file_atomic(path, "x", 1, &err), MB_OK);
    }
    if (mb_emit_clone_dir(m, out, &err) != MB_OK)
        fail_msg("%s", err.msg);
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", out, stale[i]);
        assert_int_equal(access(path, F_OK), -1);
        snprintf(path, sizeof path, "%s/%s", out, kept[i]);
        assert_int_equal(access(path, F_OK), 0);
        unlink(path);
    }
    char *copy = slurp(out, "input0.bin"), *cu = slurp(out, "clone.cu"), *readme = slurp(out, "README.md");
    assert_memory_equal(copy, data, sizeof data);
    assert_non_null(strstr(cu, "read_input(input_dir, \"input0.bin\", h, bytes)"));
    assert_int_equal(mb_cuda_check_syntax("clone.cu", cu, strlen(cu), &err), MB_OK);
    assert_non_null(strstr(readme, "`input0.bin`: the original's input for buffer 'a' (256 bytes"));
    free(copy);
    free(cu);
    free(readme);
    static const char *const names[] = {"input0.bin", "clone.ptx", "clone.cu", "launch.json", "Makefile",
                                        "README.md"};
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", out, names[i]);
        unlink(path);
    }
    /* the profile's file changed after the model was built */
    data[17] ^= 1;
    assert_int_equal(mb_write_file_atomic(src, data, sizeof data, &err), MB_OK);
    assert_int_equal(mb_emit_clone_dir(m, out, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "changed since the clone was built"));
    assert_string_equal(err.file, m->inputs[0].source);
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/%s", out, names[i]);
        assert_int_equal(access(path, F_OK), -1);
    }
    mb_clone_free(m);
    /* and a model built now refuses it, naming the file */
    assert_int_equal(mb_clone_build(p, 2, 3, &m, &err), MB_ERR_INVALID);
    assert_null(m);
    assert_string_equal(err.file, src);
    assert_non_null(strstr(err.msg, "but the profile lists buffer 'a' as 256 bytes"));
    mb_sprof_free(p);
    rmdir(out);
    unlink(src);
    rmdir(dir);
    free(s);
    free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_template_fill),
        cmocka_unit_test(test_clone_dir),
        cmocka_unit_test(test_clone_dir_inputs),
        cmocka_unit_test(test_readme_stairs),
        cmocka_unit_test(test_readme_cycle_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
