/* minibench run: execute a PTX file's launches functionally. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_cudart.h"

#include <minibench/profiler.h>

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char run_help[] =
    "Usage: minibench run FILE.ptx --launch L.json [options]\n"
    "       minibench run [options] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs the launches of a launch manifest on the functional SIMT executor, in order,\n"
    "sharing the manifest's buffers, and reports threads, warp instructions, thread\n"
    "instructions, wall time and simulated thread instructions per second.\n"
    "\n"
    "Options:\n"
    "  --launch L.json     the launch manifest (docs/formats.md)\n"
    "  -o, --output DIR    write every output buffer to DIR as NAME.bin plus index.json\n"
    "  --threads N         run CTAs on N host threads (default 1); results of kernels\n"
    "                      without atomics are identical for any N\n"
    "  --max-insts N       stop with a fault after N warp instructions in total\n"
    "  --stack BYTES       per-thread stack for calls and local memory (default: enough\n"
    "                      for the deepest call chain; 16384 for recursive code)\n"
    "  --json              print the statistics as JSON\n"
    "  -h, --help          show this help\n"
    "\n"
    "A fault in the simulated program (out-of-bounds or misaligned access, barrier\n"
    "divergence or deadlock, trap, instruction budget) is reported with the kernel,\n"
    "block, thread, PTX line and address; the run stops, writes no output and exits 1.\n"
    "\n"
    "With '-- PROGRAM ARGS', runs an unmodified CUDA program built with\n"
    "'nvcc -cudart shared' on minibench's libcudart.so.13: every kernel runs on the\n"
    "executor, the program's output is its own, and the exit status is the\n"
    "program's (docs/cudart.md). Options of this form:\n"
    "  --ptx FILE          use this PTX instead of the program's fat binaries\n"
    "  --threads N         run CTAs on N host threads (default 1)\n"
    "  --max-insts N       fault a launch after N warp instructions\n"
    "  --verbose           one line per launch on standard error\n"
    "  --preload           also put the library in LD_PRELOAD (programs with an RPATH)\n";


/* minibench run [options] -- PROGRAM ARGS: the program on our CUDA runtime. */
static int run_program(int argc, char **argv, char **cmd)
{
    const char *prog = "minibench run";
    const char *ptx = NULL, *threads_s = NULL, *max_s = NULL, *verbose = NULL, *preload = NULL;
    cli_option opts[] = {{"--ptx", NULL, 1, &ptx},
                         {"--threads", NULL, 1, &threads_s},
                         {"--max-insts", NULL, 1, &max_s},
                         {"--verbose", NULL, 0, &verbose},
                         {"--preload", NULL, 0, &preload}};
    int npos = 0;
    int rc = cli_parse(prog, argc, argv, opts, sizeof(opts) / sizeof(opts[0]), NULL, 0, &npos,
                       run_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    uint64_t v = 0;
    if ((threads_s && !cli_parse_number(prog, "--threads", threads_s, 1, 1024, &v)) ||
        (max_s && !cli_parse_number(prog, "--max-insts", max_s, 1, UINT64_MAX, &v)))
        return MB_EXIT_USAGE;
    const char *names[] = {"MINIBENCH_CUDART_MODE", "MINIBENCH_CUDART_PTX",
                           "MINIBENCH_CUDART_THREADS", "MINIBENCH_CUDART_MAX_INSTS",
                           "MINIBENCH_CUDART_VERBOSE"};
    const char *values[] = {"run", ptx, threads_s, max_s, verbose ? "1" : NULL};
    return cli_cudart_exec(prog, cmd, names, values, 5, preload != NULL, NULL, 0);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cmd_run(int argc, char **argv)
{
    int split = cli_cudart_split(argc, argv);
    if (split >= 0)
        return run_program(split, argv, argv + split + 1);
    const char *prog = "minibench run";
    const char *launch = NULL, *output = NULL, *threads_s = NULL, *max_s = NULL, *stack_s = NULL,
               *json = NULL;
    cli_option opts[] = {{"--launch", NULL, 1, &launch},   {"--output", "-o", 1, &output},
                         {"--threads", NULL, 1, &threads_s}, {"--max-insts", NULL, 1, &max_s},
                         {"--stack", NULL, 1, &stack_s},   {"--json", NULL, 0, &json}};
    const char *files[1];
    int nfiles = 0;
    int rc = cli_parse(prog, argc, argv, opts, sizeof(opts) / sizeof(opts[0]), files, 1, &nfiles,
                       run_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (nfiles != 1)
        return cli_usage_error(prog, "expected one PTX file");
    if (!launch)
        return cli_usage_error(prog, "--launch L.json is required");
    uint64_t threads = 1, max_insts = 0, stack = 0;
    if ((threads_s && !cli_parse_number(prog, "--threads", threads_s, 1, 1024, &threads)) ||
        (max_s && !cli_parse_number(prog, "--max-insts", max_s, 1, UINT64_MAX, &max_insts)) ||
        (stack_s && !cli_parse_number(prog, "--stack", stack_s, 1, 1u << 20, &stack)))
        return MB_EXIT_USAGE;

    mb_error err;
    mb_error_clear(&err);
    mb_module *m = NULL;
    mb_memory *mem = NULL;
    mb_program *program = NULL;
    mb_manifest *manifest = NULL;
    mb_manifest_run *run = NULL;
    mb_status st = mb_ptx_parse_file(files[0], &m, &err);
    if (st == MB_OK)
        st = mb_manifest_load(launch, &manifest, &err);
    if (st == MB_OK)
        st = mb_memory_new(&mem, &err);
    if (st == MB_OK)
        st = mb_program_new(m, mem, &program, &err);
    if (st == MB_OK)
        st = mb_manifest_bind(manifest, program, mem, &run, &err);
    mb_exec_stats total;
    memset(&total, 0, sizeof(total));
    double seconds = 0;
    json_t *jlaunches = json_array();
    uint32_t n = manifest ? mb_manifest_nlaunches(manifest) : 0;
    for (uint32_t i = 0; st == MB_OK && i < n; i++) {
        const mb_launch_config *cfg = mb_manifest_launch(run, i);
        mb_exec_options opt = {(unsigned)threads, max_insts ? max_insts - total.warp_insts : 0,
                               (uint32_t)stack, NULL};
        if (max_insts && total.warp_insts >= max_insts)
            opt.max_warp_insts = 1;
        mb_exec_stats s;
        memset(&s, 0, sizeof(s));
        double t0 = now_seconds();
        st = mb_launch(program, mem, cfg, &opt, &s, &err);
        double dt = now_seconds() - t0;
        seconds += dt;
        total.ctas += s.ctas;
        total.warps += s.warps;
        total.threads += s.threads;
        total.warp_insts += s.warp_insts;
        total.thread_insts += s.thread_insts;
        if (st != MB_OK)
            break;
        if (json) {
            json_t *j = json_object();
            json_object_set_new(j, "kernel", json_string(cfg->kernel->name));
            json_object_set_new(j, "threads", json_integer((json_int_t)s.threads));
            json_object_set_new(j, "warp_insts", json_integer((json_int_t)s.warp_insts));
            json_object_set_new(j, "thread_insts", json_integer((json_int_t)s.thread_insts));
            json_object_set_new(j, "seconds", json_real(dt));
            json_array_append_new(jlaunches, j);
        } else {
            printf("launch %u: %s grid (%u,%u,%u) block (%u,%u,%u): %" PRIu64 " threads, %" PRIu64
                   " warp instructions, %" PRIu64 " thread instructions, %.3f s\n",
                   i, cfg->kernel->name, cfg->grid.x, cfg->grid.y, cfg->grid.z, cfg->block.x,
                   cfg->block.y, cfg->block.z, s.threads, s.warp_insts, s.thread_insts, dt);
        }
    }
    if (st == MB_OK && output)
        st = mb_manifest_write_outputs(run, output, &err);
    if (st != MB_OK) {
        cli_print_error(&err);
    } else if (json) {
        json_t *j = json_object();
        json_object_set_new(j, "file", json_string(files[0]));
        json_object_set_new(j, "launches", json_incref(jlaunches));
        json_object_set_new(j, "threads", json_integer((json_int_t)total.threads));
        json_object_set_new(j, "warp_insts", json_integer((json_int_t)total.warp_insts));
        json_object_set_new(j, "thread_insts", json_integer((json_int_t)total.thread_insts));
        json_object_set_new(j, "seconds", json_real(seconds));
        json_object_set_new(j, "thread_insts_per_second",
                            json_real(seconds > 0 ? (double)total.thread_insts / seconds : 0));
        char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (text)
            printf("%s\n", text);
        free(text);
        json_decref(j);
    } else {
        printf("total: %" PRIu64 " threads, %" PRIu64 " warp instructions, %" PRIu64
               " thread instructions, %.3f s, %.1f million thread instructions per second\n",
               total.threads, total.warp_insts, total.thread_insts, seconds,
               seconds > 0 ? (double)total.thread_insts / seconds / 1e6 : 0.0);
    }
    json_decref(jlaunches);
    mb_manifest_run_free(run);
    mb_manifest_free(manifest);
    mb_program_free(program);
    mb_memory_free(mem);
    mb_module_free(m);
    return st == MB_OK ? MB_EXIT_OK : MB_EXIT_FAIL;
}
