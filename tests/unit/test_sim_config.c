/* Simulator configs: GPGPU-Sim -option value syntax, warnings for options
 * the simulator does not model, errors naming file:line, structured values,
 * and the compiled-in presets. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/sim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static mb_sim_config *fresh(void)
{
    mb_sim_config *c = NULL;
    mb_error err;
    assert_int_equal(mb_sim_config_new(&c, &err), MB_OK);
    return c;
}

static char *written(const mb_sim_config *c)
{
    mb_buf b = {0};
    mb_sim_config_write(c, &b);
    return b.data;
}

static mb_status parse(mb_sim_config *c, const char *text, mb_buf *warn, mb_error *err)
{
    mb_error_clear(err);
    return mb_sim_config_parse(c, text, strlen(text), "my.config", warn, err);
}

static void test_gpgpusim_syntax(void **state)
{
    (void)state;
    mb_sim_config *c = fresh();
    mb_buf warn = {0};
    mb_error err;
    const char *text = "# a GPGPU-Sim style file\n"
                       "\n"
                       "-gpgpu_n_clusters 15   # trailing comment\n"
                       "-gpgpu_n_cores_per_cluster 2\n"
                       "-gpgpu_ptx_sim_mode 0\n"
                       "-gpgpu_cache:dl1 \"S:64:128:4,L:T:m:L,A:256:32,32\"\n"
                       "-gpgpu_ptx_sim_mode 1\n"
                       "\t-gpgpu_scheduler gto\n"
                       "-gpgpu_cache:il1 N:8:128:4,L:R:f:N,A:2:48,4\n"
                       "-gpgpu_clock_domains 1200.0:1200.0:1200.0:850.0\n";
    assert_int_equal(parse(c, text, &warn, &err), MB_OK);
    /* one warning per option not modelled, naming where it first appears */
    assert_non_null(strstr(warn.data, "my.config:5: warning: option -gpgpu_ptx_sim_mode"));
    assert_null(strstr(warn.data, "my.config:7:"));
    assert_non_null(strstr(warn.data, "my.config:9: warning: option -gpgpu_cache:il1"));
    char *w = written(c);
    assert_non_null(strstr(w, "-gpgpu_n_clusters 15\n"));
    assert_non_null(strstr(w, "-gpgpu_n_cores_per_cluster 2\n"));
    assert_non_null(strstr(w, "-gpgpu_cache:dl1 S:64:128:4,L:T:m:L,A:256:32,32\n"));
    assert_non_null(strstr(w, "-gpgpu_scheduler gto\n"));
    /* writing and reading back gives the same configuration */
    mb_sim_config *d = fresh();
    assert_int_equal(parse(d, w, NULL, &err), MB_OK);
    char *w2 = written(d);
    assert_string_equal(w, w2);
    mb_sim *sim = NULL;
    assert_int_equal(mb_sim_new(c, &sim, &err), MB_OK);
    mb_sim_free(sim);
    free(w);
    free(w2);
    mb_buf_free(&warn);
    mb_sim_config_free(c);
    mb_sim_config_free(d);
}

static void test_gpgpusim_file_excerpt(void **state)
{
    (void)state;
    /* option lines in the forms GPGPU-Sim's distributed configs use: quoted timing
     * with spaces, set-index letters, trailing MSHR and queue fields, multi-field
     * schedulers, and options this simulator ignores */
    const char *text = "-gpgpu_shader_core_pipeline 2048:32\n"
                       "-gpgpu_scheduler two_level_active:6:0:1\n"
                       "-gpgpu_cache:dl1 S:4:128:64,L:T:m:L:L,A:512:8,16:0,32\n"
                       "-gpgpu_cache:dl2 S:32:128:24,L:B:m:L:P,A:192:4,32:0,32\n"
                       "-gpgpu_const_cache:l1 N:128:64:8,L:R:f:N:L,S:2:64,4\n"
                       "-gpgpu_dram_timing_opt \"nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40: "
                       "CL=12:WL=4:CDLR=5:WR=12:nbkgrp=1:CCDL=0:RTPL=0\"\n"
                       "-gpgpu_clock_domains 1447.0:1447.0:1447.0:850.0\n"
                       "-gpgpu_tex_cache:l1 N:4:128:256,L:R:m:N:L,T:512:8,128:2\n"
                       "-gpgpu_perf_sim_memcpy 1\n";
    mb_sim_config *c = fresh();
    mb_buf warn = {0};
    mb_error err;
    assert_int_equal(parse(c, text, &warn, &err), MB_OK);
    assert_non_null(strstr(warn.data, "-gpgpu_tex_cache:l1"));
    assert_non_null(strstr(warn.data, "-gpgpu_perf_sim_memcpy"));
    mb_sim *sim = NULL;
    assert_int_equal(mb_sim_new(c, &sim, &err), MB_OK);
    mb_sim_free(sim);
    mb_buf_free(&warn);
    mb_sim_config_free(c);
}

static void expect_error(const char *text, int line, const char *needle)
{
    mb_sim_config *c = fresh();
    mb_error err;
    mb_status st = parse(c, text, NULL, &err);
    if (st == MB_OK)
        fail_msg("accepted: %s", text);
    assert_string_equal(err.file, "my.config");
    assert_int_equal(err.line, line);
    if (!strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
    mb_sim_config_free(c);
}

static void test_malformed_values(void **state)
{
    (void)state;
    expect_error("-gpgpu_n_clusters 8\n-gpgpu_n_clusters eight\n", 2, "non-negative integer");
    expect_error("-gpgpu_n_clusters -3\n", 1, "non-negative integer");
    expect_error("-gpgpu_n_clusters 0\n", 1, "out of range");
    expect_error("\n\n-gpgpu_cache:dl1 64:128\n", 3, "not a cache description");
    expect_error("-gpgpu_cache:dl1 64:100:4,L:T:m:N,A:32:8,8\n", 1, "power of two");
    expect_error("-gpgpu_cache:dl2 N:64:128:4,Q:T:m:N,A:32:8,8\n", 1, "not a cache description");
    expect_error("-gpgpu_scheduler fastest\n", 1, "lrr, gto or two_level_active");
    expect_error("-gpgpu_scheduler two_level_active:0\n", 1, "two_level_active:N");
    expect_error("-gpgpu_shader_core_pipeline 1024:64\n", 1, "warp size 64");
    expect_error("-gpgpu_shader_core_pipeline 1024\n", 1, "THREADS:WARP_SIZE");
    expect_error("-ptx_opcode_latency_int 4,13,4\n", 1, "6 comma-separated");
    expect_error("-gpgpu_dram_timing_opt nbk=0:CL=10\n", 1, "nbk");
    expect_error("-gpgpu_dram_timing_opt CL:10\n", 1, "KEY=cycles");
    expect_error("-gpgpu_dram_timing_opt nbk=4:RCD=12:RP=10\n", 1, "CL, RCD and RP");
    expect_error("-gpgpu_clock_domains 700:700:700\n", 1, "CORE:ICNT:L2:DRAM");
    expect_error("-gpgpu_n_clusters\n", 1, "has no value");
    expect_error("gpgpu_n_clusters 4\n", 1, "expected '-option value'");
}

static void test_set_and_describe(void **state)
{
    (void)state;
    mb_sim_config *c = fresh();
    mb_error err;
    assert_int_equal(mb_sim_config_set(c, "gpgpu_n_mem", "3", "--set", &err), MB_OK);
    assert_int_equal(mb_sim_config_set(c, "-smem_latency", "7", "--set", &err), MB_OK);
    assert_int_equal(mb_sim_config_set(c, "no_such_option", "1", "--set", &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "unknown simulator option -no_such_option"));
    char *w = written(c);
    assert_non_null(strstr(w, "-gpgpu_n_mem 3\n"));
    assert_non_null(strstr(w, "-smem_latency 7\n"));
    /* every option written is described */
    mb_buf d = {0};
    mb_sim_options_describe(&d);
    for (char *p = w; *p;) {
        char *sp = strchr(p, ' ');
        char name[128];
        snprintf(name, sizeof(name), "%.*s ", (int)(sp - p), p);
        assert_non_null(strstr(d.data, name));
        p = strchr(p, '\n') + 1;
    }
    mb_buf_free(&d);
    free(w);
    mb_sim_config_free(c);
}

static void test_presets(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *must[3];
    } want[] = {
        {"conf1", {"-gpgpu_n_clusters 8\n", "-gpgpu_shader_registers 16384\n", "-mb_simd_width 8\n"}},
        {"conf2", {"-gpgpu_n_clusters 28\n", "-gpgpu_shader_registers 16384\n", "-gpgpu_n_mem 8\n"}},
        {"conf3", {"-gpgpu_n_clusters 56\n", "-gpgpu_shader_registers 32768\n", "-gpgpu_cache:dl2 none\n"}},
        {"conf4", {"-gpgpu_n_clusters 110\n", "-gpgpu_shader_registers 32768\n", "-gpgpu_shmem_num_banks 16\n"}},
        {"gpumech", {"-gpgpu_n_clusters 16\n", "-gpgpu_l1_latency 25\n", "-gpgpu_l2_rop_latency 120\n"}},
        {"stargazer", {"-gpgpu_n_clusters 30\n", "-gpgpu_cache:dl1 none\n", "-gpgpu_n_mem 8\n"}},
        {"v100", {"-gpgpu_n_clusters 80\n", "-gpgpu_num_sched_per_core 4\n", "-gpgpu_n_mem 32\n"}},
        {"rtx2060", {"-gpgpu_n_clusters 30\n", "-gpgpu_shader_registers 65536\n", "-gpgpu_n_mem 6\n"}},
        {"h100", {"-gpgpu_n_clusters 132\n", "-gpgpu_shader_core_pipeline 2048:32\n", "-gpgpu_n_mem 40\n"}},
    };
    size_t n = 0;
    for (const char *const *p = mb_sim_preset_names(); *p; p++)
        n++;
    assert_int_equal(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n; i++) {
        mb_sim_config *c = fresh();
        mb_buf warn = {0};
        mb_error err;
        assert_int_equal(mb_sim_config_load(c, want[i].name, &warn, &err), MB_OK);
        assert_int_equal(warn.len, 0); /* presets use modelled options only */
        const char *text = mb_sim_preset_text(want[i].name);
        assert_non_null(text);
        assert_true(text[0] == '#'); /* a comment header citing sources */
        char *w = written(c);
        for (int k = 0; k < 3; k++)
            if (!strstr(w, want[i].must[k]))
                fail_msg("%s lacks %s", want[i].name, want[i].must[k]);
        mb_sim *sim = NULL;
        assert_int_equal(mb_sim_new(c, &sim, &err), MB_OK);
        mb_sim_free(sim);
        free(w);
        mb_buf_free(&warn);
        mb_sim_config_free(c);
    }
    mb_sim_config *c = fresh();
    mb_error err;
    assert_int_equal(mb_sim_config_load(c, "conf9", NULL, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "no preset or config file named 'conf9'"));
    assert_non_null(strstr(err.msg, "conf1"));
    assert_int_equal(mb_sim_config_load(c, "/nonexistent/x.config", NULL, &err), MB_ERR_IO);
    assert_null(mb_sim_preset_text("conf9"));
    mb_sim_config_free(c);
}

static void test_stall_names(void **state)
{
    (void)state;
    assert_string_equal(mb_sim_stall_name(MB_SIM_STALL_ISSUED), "issued");
    assert_string_equal(mb_sim_stall_name(MB_SIM_STALL_DRAM), "dram");
    assert_string_equal(mb_sim_stall_name(MB_SIM_STALL_IDLE), "idle");
    assert_string_equal(mb_sim_stall_name((mb_sim_stall)99), "?");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpgpusim_syntax),  cmocka_unit_test(test_gpgpusim_file_excerpt),
        cmocka_unit_test(test_malformed_values),
        cmocka_unit_test(test_set_and_describe), cmocka_unit_test(test_presets),
        cmocka_unit_test(test_stall_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
