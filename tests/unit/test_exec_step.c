/* The stepping API (profiler.h, "stepping a launch"): every example, stepped
 * one warp instruction at a time with several CTAs interleaved, writes the
 * same output buffers as mb_launch() and counts the same instructions; faults
 * are reported exactly like mb_launch() reports them. */
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

static const char *const examples[] = {
    "bfs",          "blackscholes", "devfunc",       "histogram",       "kmeans",
    "local_array",  "matmul",       "nbody_f64",     "nested_loops",    "nw",
    "reduce_conflict", "reduce_seq", "stencil2d",    "tid_loop",        "transpose_naive",
    "transpose_shared", "vecadd",   "warp_reduce"};

/* Steps a launch with up to `window` CTAs live, visiting warps round robin
 * one instruction at a time, so warps of different CTAs interleave. */
static mb_status step_launch(mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                             const mb_exec_options *opt, unsigned window, mb_exec_stats *stats,
                             mb_error *err)
{
    mb_stepper *s = NULL;
    mb_status st = mb_stepper_new(prog, mem, cfg, opt, &s, err);
    if (st != MB_OK)
        return st;
    uint64_t n = mb_stepper_nctas(s), next = 0;
    uint32_t nw = mb_stepper_cta_warps(s);
    mb_step_cta **live = calloc(window, sizeof(*live));
    unsigned nlive = 0;
    uint64_t steps = 0;
    while (st == MB_OK && (next < n || nlive)) {
        while (nlive < window && next < n && st == MB_OK)
            st = mb_stepper_cta_start(s, next++, &live[nlive++], err);
        for (unsigned c = 0; c < nlive && st == MB_OK; c++) {
            for (uint32_t w = 0; w < nw && st == MB_OK; w++) {
                if (mb_step_warp_state(live[c], w) != MB_WARP_READY)
                    continue;
                mb_step_event ev;
                uint32_t pc = mb_step_warp_pc(live[c], w);
                st = mb_step_warp(live[c], w, &ev, err);
                steps++;
                if (st == MB_OK) {
                    assert_int_equal(ev.pc, pc);
                    uint32_t insn = 0;
                    assert_ptr_equal(mb_program_code_insn(prog, ev.pc, &insn), ev.fn);
                    assert_int_equal(insn, ev.insn);
                    if (ev.flags & MB_STEP_MEMORY) {
                        assert_non_null(ev.addrs);
                        assert_true(ev.access_bytes > 0);
                        assert_true(ev.executed != 0);
                    }
                    if (ev.flags & MB_STEP_EXITED)
                        assert_int_equal(mb_step_warp_state(live[c], w), MB_WARP_DONE);
                }
            }
            if (st == MB_OK && mb_step_cta_live_warps(live[c]) == 0) {
                mb_stepper_cta_finish(s, live[c]);
                live[c] = live[--nlive];
                c--;
            }
        }
    }
    mb_exec_stats got;
    mb_stepper_stats(s, &got);
    if (st == MB_OK) {
        assert_int_equal(got.warp_insts, steps);
        stats->ctas += got.ctas;
        stats->warps += got.warps;
        stats->threads += got.threads;
        stats->warp_insts += got.warp_insts;
        stats->thread_insts += got.thread_insts;
    }
    free(live);
    mb_stepper_free(s);
    return st;
}

/* Runs an example's manifest either with mb_launch or stepped, writing its
 * outputs to `dir`. */
static void run_example(const char *name, int stepped, const char *dir, mb_exec_stats *stats)
{
    char ptx[512], launch[512];
    snprintf(ptx, sizeof(ptx), "%s/%s/%s.ptx", MB_EXAMPLES_DIR, name, name);
    snprintf(launch, sizeof(launch), "%s/%s/launch.json", MB_EXAMPLES_DIR, name);
    mb_error err;
    mb_error_clear(&err);
    mb_module *m = NULL;
    mb_memory *mem = NULL;
    mb_program *prog = NULL;
    mb_manifest *man = NULL;
    mb_manifest_run *run = NULL;
    mb_status st = mb_ptx_parse_file(ptx, &m, &err);
    if (st == MB_OK)
        st = mb_manifest_load(launch, &man, &err);
    if (st == MB_OK)
        st = mb_memory_new(&mem, &err);
    if (st == MB_OK)
        st = mb_program_new(m, mem, &prog, &err);
    if (st == MB_OK)
        st = mb_manifest_bind(man, prog, mem, &run, &err);
    for (uint32_t i = 0; st == MB_OK && i < mb_manifest_nlaunches(man); i++) {
        const mb_launch_config *cfg = mb_manifest_launch(run, i);
        st = stepped ? step_launch(prog, mem, cfg, NULL, 3, stats, &err)
                     : mb_launch(prog, mem, cfg, NULL, stats, &err);
    }
    if (st == MB_OK)
        st = mb_manifest_write_outputs(run, dir, &err);
    if (st != MB_OK)
        fail_msg("%s (%s): %s:%d: %s", name, stepped ? "stepped" : "mb_launch", err.file, err.line,
                 err.msg);
    mb_manifest_run_free(run);
    mb_manifest_free(man);
    mb_program_free(prog);
    mb_memory_free(mem);
    mb_module_free(m);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_examples_match_launch(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
        char a[256], b[256];
        snprintf(a, sizeof(a), "/tmp/mb_step_%d_%s_launch", (int)getpid(), examples[i]);
        snprintf(b, sizeof(b), "/tmp/mb_step_%d_%s_step", (int)getpid(), examples[i]);
        mb_exec_stats sa, sb;
        memset(&sa, 0, sizeof(sa));
        memset(&sb, 0, sizeof(sb));
        run_example(examples[i], 0, a, &sa);
        run_example(examples[i], 1, b, &sb);
        char pa[300], pb[300];
        snprintf(pa, sizeof(pa), "%s/index.json", a);
        snprintf(pb, sizeof(pb), "%s/index.json", b);
        char *ja = slurp(pa), *jb = slurp(pb);
        if (strcmp(ja, jb) != 0)
            fail_msg("%s: stepped outputs differ from mb_launch's", examples[i]);
        free(ja);
        free(jb);
        remove_dir(a);
        remove_dir(b);
        assert_int_equal(sa.ctas, sb.ctas);
        assert_int_equal(sa.threads, sb.threads);
        /* bfs CTAs race on the frontier: interleaving them changes which
         * thread claims a vertex, so only the (correct) outputs must agree */
        if (strcmp(examples[i], "bfs") != 0) {
            assert_int_equal(sa.warp_insts, sb.warp_insts);
            assert_int_equal(sa.thread_insts, sb.thread_insts);
        }
    }
}

static mb_status step_text(const char *ptx, const char *kernel, mb_dim3 grid, mb_dim3 block,
                           uint64_t max_insts, mb_error *err)
{
    mb_module *m = NULL;
    mb_memory *mem = NULL;
    mb_program *prog = NULL;
    mb_status st = mb_ptx_parse(ptx, strlen(ptx), "step.ptx", &m, err);
    if (st == MB_OK)
        st = mb_memory_new(&mem, err);
    if (st == MB_OK)
        st = mb_program_new(m, mem, &prog, err);
    uint64_t addr = 0;
    if (st == MB_OK)
        st = mb_memory_alloc(mem, 64, "out", &addr, err);
    if (st == MB_OK) {
        mb_launch_config cfg;
        memset(&cfg, 0, sizeof(cfg));
        cfg.kernel = mb_module_find_function(m, kernel);
        cfg.grid = grid;
        cfg.block = block;
        cfg.params = &addr;
        cfg.param_bytes = 8;
        mb_exec_options opt = {1, max_insts, 0, NULL};
        mb_exec_stats stats;
        memset(&stats, 0, sizeof(stats));
        st = step_launch(prog, mem, &cfg, &opt, 2, &stats, err);
    }
    mb_program_free(prog);
    mb_memory_free(mem);
    mb_module_free(m);
    return st;
}

static const char oob_ptx[] =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n"
    "  .reg .b32 %r<3>;\n  .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p];\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  mul.wide.u32 %rd2, %r1, 4;\n"
    "  add.s64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r1;\n"
    "  ret;\n}\n";

static void test_fault_reported_like_launch(void **state)
{
    (void)state;
    mb_error err;
    mb_error_clear(&err);
    /* 64 threads write 256 bytes into a 64-byte buffer: thread 16 faults */
    mb_status st = step_text(oob_ptx, "k", (mb_dim3){1, 1, 1}, (mb_dim3){64, 1, 1}, 0, &err);
    assert_int_equal(st, MB_ERR_FAULT);
    assert_string_equal(err.file, "step.ptx");
    assert_int_equal(err.line, 12);
    assert_non_null(strstr(err.msg, "kernel k"));
    assert_non_null(strstr(err.msg, "block (0,0,0)"));
    assert_non_null(strstr(err.msg, "thread (16,0,0)"));
    assert_non_null(strstr(err.msg, "'out'"));
}

static void test_budget(void **state)
{
    (void)state;
    mb_error err;
    mb_error_clear(&err);
    mb_status st = step_text(oob_ptx, "k", (mb_dim3){1, 1, 1}, (mb_dim3){16, 1, 1}, 3, &err);
    assert_int_equal(st, MB_ERR_FAULT);
    assert_non_null(strstr(err.msg, "instruction budget exhausted"));
    mb_error_clear(&err);
    assert_int_equal(step_text(oob_ptx, "k", (mb_dim3){1, 1, 1}, (mb_dim3){16, 1, 1}, 6, &err),
                     MB_OK);
}

static const char deadlock_ptx[] =
    ".version 7.0\n.target sm_75\n.address_size 64\n"
    ".visible .entry k(.param .u64 p)\n{\n"
    "  .reg .b32 %r<3>;\n  .reg .pred %p<2>;\n"
    "  mov.u32 %r1, %tid.x;\n"
    "  setp.lt.u32 %p1, %r1, 32;\n"
    "  @%p1 bra DONE;\n"
    "  bar.sync 0;\n"
    "DONE:\n"
    "  bar.sync 1, 64;\n"
    "  ret;\n}\n";

static void test_barrier_deadlock(void **state)
{
    (void)state;
    mb_error err;
    mb_error_clear(&err);
    /* warp 0 waits at barrier 1 for 64 threads, warp 1 at barrier 0 for all */
    mb_status st = step_text(deadlock_ptx, "k", (mb_dim3){1, 1, 1}, (mb_dim3){64, 1, 1}, 0, &err);
    assert_int_equal(st, MB_ERR_FAULT);
    assert_non_null(strstr(err.msg, "barrier deadlock"));
}

static void test_bad_cta_index(void **state)
{
    (void)state;
    mb_error err;
    mb_error_clear(&err);
    mb_module *m = NULL;
    mb_memory *mem = NULL;
    mb_program *prog = NULL;
    assert_int_equal(mb_ptx_parse(oob_ptx, strlen(oob_ptx), "step.ptx", &m, &err), MB_OK);
    assert_int_equal(mb_memory_new(&mem, &err), MB_OK);
    assert_int_equal(mb_program_new(m, mem, &prog, &err), MB_OK);
    uint64_t addr = 0;
    mb_launch_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.kernel = mb_module_find_function(m, "k");
    cfg.grid = (mb_dim3){2, 1, 1};
    cfg.block = (mb_dim3){2000, 1, 1};
    cfg.params = &addr;
    cfg.param_bytes = 8;
    mb_stepper *s = NULL;
    assert_int_equal(mb_stepper_new(prog, mem, &cfg, NULL, &s, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "not a valid CTA shape"));
    cfg.block = (mb_dim3){32, 1, 1};
    assert_int_equal(mb_stepper_new(prog, mem, &cfg, NULL, &s, &err), MB_OK);
    mb_step_cta *c = NULL;
    assert_int_equal(mb_stepper_cta_start(s, 2, &c, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "outside the grid"));
    assert_null(c);
    assert_int_equal(mb_program_ncode(prog) > 0, 1);
    uint32_t insn;
    assert_null(mb_program_code_insn(prog, mb_program_ncode(prog), &insn));
    mb_stepper_free(s);
    mb_program_free(prog);
    mb_memory_free(mem);
    mb_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_match_launch),
        cmocka_unit_test(test_fault_reported_like_launch),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_barrier_deadlock),
        cmocka_unit_test(test_bad_cta_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
