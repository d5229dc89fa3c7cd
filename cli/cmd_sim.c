/* minibench sim: time a PTX file's launches on the bundled cycle simulator. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_cudart.h"

#include <minibench/profiler.h>
#include <minibench/sim.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char sim_help[] =
    "Usage: minibench sim FILE.ptx --launch L.json --config NAME|FILE [options]\n"
    "       minibench sim --config NAME|FILE [options] -- PROGRAM [ARGS...]  (its options: 'minibench sim --help --')\n"
    "\n"
    "Simulates the launches of a launch manifest, in order, on the bundled cycle-level GPU\n"
    "simulator (docs/sim.md) and prints GPGPU-Sim-style statistics: gpu_sim_cycle,\n"
    "gpu_sim_insn (thread instructions), gpu_ipc, cache, DRAM and shared-memory counts and\n"
    "a per-scheduler stall breakdown. The same input always gives the same output.\n"
    "\n"
    "Options:\n"
    "  --launch L.json     the launch manifest (docs/formats.md)\n"
    "  --config NAME|FILE  a preset (conf1 conf2 conf3 conf4 gpumech stargazer v100\n"
    "                      rtx2060 h100) or a GPGPU-Sim-syntax config file\n"
    "  --set OPT=V[;OPT=V] override config options after loading (option names as in\n"
    "                      config files, without the leading '-')\n"
    "  --json              print every statistic, the per-scheduler stall cycles and the\n"
    "                      configuration as JSON instead of text\n"
    "  --stats-out F       also write the JSON statistics to F (atomically)\n"
    "  --max-insts N       stop with a fault after N warp instructions in total\n"
    "  --print-config      print the configuration as config text and exit\n"
    "  --list-options      list every config option with its default and exit\n"
    "  -h, --help          show this help\n"
    "\n"
    "Config options the simulator does not model are reported once each on stderr and\n"
    "ignored. A progress line is shown on stderr for runs longer than a few seconds when\n"
    "stderr is a terminal.\n";

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct progress_state {
    double start, last;
    int shown;
} progress_state;

static void show_progress(void *ctx, uint64_t cycles, uint64_t insts)
{
    progress_state *p = ctx;
    double t = now_seconds();
    if (t - p->start < 3.0 || t - p->last < 0.5)
        return;
    p->last = t;
    p->shown = 1;
    fprintf(stderr, "\rminibench sim: %llu cycles, %llu thread instructions, %.1f s",
            (unsigned long long)cycles, (unsigned long long)insts, t - p->start);
    fflush(stderr);
}

static mb_status apply_sets(mb_sim_config *cfg, const char *sets, mb_error *err)
{
    char *copy = strdup(sets);
    if (!copy)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    mb_status st = MB_OK;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ";", &save); tok && st == MB_OK; tok = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            st = mb_error_set(err, MB_ERR_INVALID, "--set", 0, 0, "'%s' is not OPTION=VALUE", tok);
            break;
        }
        *eq = 0;
        st = mb_sim_config_set(cfg, tok, eq + 1, "--set", err);
    }
    free(copy);
    return st;
}

int cmd_sim(int argc, char **argv)
{
    int split = cli_cudart_split(argc, argv);
    if (split >= 0) /* an unmodified CUDA program on the runtime library (cli_cudart.c) */
        return cli_cudart_sim(split, argv, argv + split + 1);
    const char *prog = "minibench sim";
    const char *launch = NULL, *config = NULL, *json = NULL, *stats_out = NULL, *max_s = NULL,
               *print_config = NULL, *list = NULL, *sets = NULL;
    cli_option opts[] = {{"--launch", NULL, 1, &launch},
                         {"--config", NULL, 1, &config},
                         {"--set", NULL, 1, &sets},
                         {"--json", NULL, 0, &json},
                         {"--stats-out", NULL, 1, &stats_out},
                         {"--max-insts", NULL, 1, &max_s},
                         {"--print-config", NULL, 0, &print_config},
                         {"--list-options", NULL, 0, &list}};
    const char *files[1];
    int nfiles = 0;
    int rc = cli_parse(prog, argc, argv, opts, sizeof(opts) / sizeof(opts[0]), files, 1, &nfiles,
                       sim_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (list) {
        mb_buf b = {0};
        mb_sim_options_describe(&b);
        fwrite(b.data, 1, b.len, stdout);
        mb_buf_free(&b);
        return MB_EXIT_OK;
    }
    if (!config)
        return cli_usage_error(prog, "--config NAME|FILE is required");
    uint64_t max_insts = 0;
    if (max_s && !cli_parse_number(prog, "--max-insts", max_s, 1, UINT64_MAX, &max_insts))
        return MB_EXIT_USAGE;
    if (!print_config) {
        if (nfiles != 1)
            return cli_usage_error(prog, "expected one PTX file");
        if (!launch)
            return cli_usage_error(prog, "--launch L.json is required");
    }

    mb_error err;
    mb_error_clear(&err);
    mb_sim_config *cfg = NULL;
    mb_buf warnings = {0};
    mb_status st = mb_sim_config_new(&cfg, &err);
    if (st == MB_OK)
        st = mb_sim_config_load(cfg, config, &warnings, &err);
    if (warnings.len)
        fwrite(warnings.data, 1, warnings.len, stderr);
    mb_buf_free(&warnings);
    if (st == MB_OK && sets)
        st = apply_sets(cfg, sets, &err);
    if (st == MB_OK && print_config) {
        mb_buf b = {0};
        mb_sim_config_write(cfg, &b);
        fwrite(b.data, 1, b.len, stdout);
        mb_buf_free(&b);
        mb_sim_config_free(cfg);
        return MB_EXIT_OK;
    }
    mb_sim *sim = NULL;
    mb_module *m = NULL;
    mb_memory *mem = NULL;
    mb_program *program = NULL;
    mb_manifest *manifest = NULL;
    mb_manifest_run *run = NULL;
    if (st == MB_OK)
        st = mb_sim_new(cfg, &sim, &err);
    if (st == MB_OK)
        st = mb_ptx_parse_file(files[0], &m, &err);
    if (st == MB_OK)
        st = mb_manifest_load(launch, &manifest, &err);
    if (st == MB_OK)
        st = mb_memory_new(&mem, &err);
    if (st == MB_OK)
        st = mb_program_new(m, mem, &program, &err);
    if (st == MB_OK)
        st = mb_manifest_bind(manifest, program, mem, &run, &err);
    progress_state ps = {now_seconds(), 0, 0};
    if (st == MB_OK && isatty(STDERR_FILENO))
        mb_sim_set_progress(sim, show_progress, &ps, 100000);
    uint32_t n = manifest ? mb_manifest_nlaunches(manifest) : 0;
    for (uint32_t i = 0; st == MB_OK && i < n; i++) {
        const mb_launch_config *lc = mb_manifest_launch(run, i);
        const mb_sim_stats *sofar = mb_sim_get_stats(sim);
        mb_exec_options opt = {1, 0, 0, NULL};
        if (max_insts)
            opt.max_warp_insts = sofar->warp_insts >= max_insts ? 1 : max_insts - sofar->warp_insts;
        st = mb_sim_launch(sim, program, mem, lc, &opt, &err);
    }
    if (ps.shown)
        fprintf(stderr, "\r%*s\r", 79, "");
    mb_buf out = {0};
    if (st == MB_OK && (json || stats_out))
        st = mb_sim_stats_json(sim, &out, &err);
    if (st == MB_OK && stats_out)
        st = mb_write_file_atomic(stats_out, out.data, out.len, &err);
    if (st == MB_OK) {
        if (!json) {
            mb_buf_reset(&out);
            mb_sim_stats_text(sim, &out);
        }
        fwrite(out.data, 1, out.len, stdout);
    } else {
        cli_print_error(&err);
    }
    mb_buf_free(&out);
    mb_manifest_run_free(run);
    mb_manifest_free(manifest);
    mb_program_free(program);
    mb_memory_free(mem);
    mb_module_free(m);
    mb_sim_free(sim);
    mb_sim_config_free(cfg);
    return st == MB_OK ? MB_EXIT_OK : MB_EXIT_FAIL;
}
