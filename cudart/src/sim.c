/*
 * Sim mode: launches are timed on the bundled cycle simulator (sim/). The
 * selected launches (kernel regex, launch index, cap, as for profiling) each
 * get a statistics block; the others are simulated too, warming the caches
 * and advancing simulated time, unless fast-forwarding, when they run
 * functionally only. The device clock that events read is simulated time.
 * The statistics go to MINIBENCH_CUDART_STATS (rewritten atomically after
 * every launch, totals at exit) or to standard error as they come, unless
 * MINIBENCH_CUDART_STATS_JSON asks for JSON alone: every statistic of the
 * simulator at exit, with the selected launches' kernels and the CPU time
 * their simulation took (what `minibench validate` reads).
 */
#define _POSIX_C_SOURCE 200809L
#include "rt.h"

#include <minibench/sim.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct sim_state {
    mb_sim *sim;
    double core_mhz;
    mb_buf text;  /* every block so far */
    mb_buf selected_kernels; /* JSON strings of the selected launches' kernels, comma-separated */
    double selected_seconds; /* CPU time simulating the selected launches */
    int finished;
} sim_state;

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The value of `-option` in config text, or NULL. */
static const char *config_value(const char *text, const char *option, char *buf, size_t size)
{
    size_t n = strlen(option);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (line[0] == '-' && strncmp(line + 1, option, n) == 0 && (line[n + 1] == ' ' || line[n + 1] == '\t')) {
            const char *v = line + n + 1;
            while (*v == ' ' || *v == '\t' || *v == '"')
                v++;
            size_t len = strcspn(v, "\"\n");
            if (len >= size)
                len = size - 1;
            memcpy(buf, v, len);
            buf[len] = '\0';
            return buf;
        }
    }
    return NULL;
}

static int config_int(const char *text, const char *option, int fallback)
{
    char buf[128];
    const char *v = config_value(text, option, buf, sizeof(buf));
    return v ? atoi(v) : fallback;
}

mb_status rt_sim_init(mb_rt *rt, mb_error *err)
{
    sim_state *ss = calloc(1, sizeof(*ss));
    if (!ss)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    rt->sim_state = ss;
    const char *name = rt->opt.config ? rt->opt.config : "conf3";
    mb_sim_config *cfg = NULL;
    mb_buf warnings = MB_BUF_INIT;
    mb_status st = mb_sim_config_new(&cfg, err);
    if (st == MB_OK)
        st = mb_sim_config_load(cfg, name, &warnings, err);
    if (warnings.len)
        fprintf(stderr, "%s", warnings.data);
    mb_buf_free(&warnings);
    if (st == MB_OK)
        st = mb_sim_new(cfg, &ss->sim, err);
    if (st == MB_OK) {
        /* The device the program sees is the machine simulated. */
        mb_buf text = MB_BUF_INIT;
        mb_sim_config_write(cfg, &text);
        const char *t = text.data ? text.data : "";
        char buf[128];
        rt->dev.sms = config_int(t, "gpgpu_n_clusters", 1) * config_int(t, "gpgpu_n_cores_per_cluster", 1);
        const char *pipe = config_value(t, "gpgpu_shader_core_pipeline", buf, sizeof(buf));
        if (pipe)
            rt->dev.threads_per_sm = atoi(pipe);
        rt->dev.blocks_per_sm = config_int(t, "gpgpu_shader_cta", rt->dev.blocks_per_sm);
        rt->dev.regs_per_sm = config_int(t, "gpgpu_shader_registers", rt->dev.regs_per_sm);
        rt->dev.shared_per_sm = config_int(t, "gpgpu_shmem_size", rt->dev.shared_per_sm);
        const char *clocks = config_value(t, "gpgpu_clock_domains", buf, sizeof(buf));
        ss->core_mhz = clocks ? atof(clocks) : 0;
        if (ss->core_mhz <= 0)
            ss->core_mhz = 1000;
        rt->dev.clock_khz = (int)(ss->core_mhz * 1000);
        if (rt->dev.sms < 1)
            rt->dev.sms = 1;
        mb_buf_free(&text);
        mb_buf_printf(&ss->text, "# minibench sim: config %s\n", name);
    }
    mb_sim_config_free(cfg);
    return st;
}

int rt_sim_timed(mb_rt *rt, const rt_kernel *k, uint64_t index)
{
    sim_state *ss = rt->sim_state;
    if (!ss || !ss->sim)
        return 0;
    return !rt->opt.fast_forward || rt_profile_selected(rt, k, index);
}

/* Writes the blocks so far to the statistics file, or flushes them to stderr. */
static void emit(mb_rt *rt, sim_state *ss)
{
    if (!rt->opt.stats) {
        if (ss->text.len && !rt->opt.stats_json)
            fputs(ss->text.data, stderr);
        mb_buf_reset(&ss->text);
        return;
    }
    mb_error err;
    if (mb_write_file_atomic(rt->opt.stats, ss->text.data ? ss->text.data : "", ss->text.len, &err) !=
        MB_OK) {
        char msg[1700];
        mb_error_format(&err, msg, sizeof(msg));
        rt_warn("cannot write the statistics: %s", msg);
    }
}

mb_status rt_sim_launch(mb_rt *rt, rt_kernel *k, const mb_launch_config *cfg,
                        const mb_exec_options *opt, uint64_t index, mb_exec_stats *stats,
                        mb_error *err)
{
    sim_state *ss = rt->sim_state;
    int selected = rt_profile_selected(rt, k, index);
    mb_sim_stats before = *mb_sim_get_stats(ss->sim);
    mb_exec_options o = *opt;
    o.threads = 1;
    double start = cpu_seconds();
    mb_status st = mb_sim_launch(ss->sim, k->mod->program, rt->mem, cfg, &o, err);
    if (st != MB_OK)
        return st;
    if (selected) {
        ss->selected_seconds += cpu_seconds() - start;
        /* kernel names are PTX identifiers: no JSON escaping needed */
        mb_buf_printf(&ss->selected_kernels, "%s\"%s\"", ss->selected_kernels.len ? ", " : "", k->name);
    }
    const mb_sim_stats *after = mb_sim_get_stats(ss->sim);
    uint64_t cycles = after->cycles - before.cycles;
    uint64_t insts = after->thread_insts - before.thread_insts;
    stats->thread_insts += insts;
    stats->warp_insts += after->warp_insts - before.warp_insts;
    stats->ctas += after->ctas - before.ctas;
    rt->device_ms += (double)cycles / (ss->core_mhz * 1e3);
    if (selected) {
        rt->profiled++;
        mb_buf *b = &ss->text;
        mb_buf_printf(b, "kernel_name = %s\n", k->name);
        mb_buf_printf(b, "kernel_launch_uid = %" PRIu64 "\n", index);
        mb_buf_printf(b, "grid = (%u,%u,%u)\nblock = (%u,%u,%u)\n", cfg->grid.x, cfg->grid.y,
                      cfg->grid.z, cfg->block.x, cfg->block.y, cfg->block.z);
        mb_buf_printf(b, "gpu_sim_cycle = %" PRIu64 "\n", cycles);
        mb_buf_printf(b, "gpu_sim_insn = %" PRIu64 "\n", insts);
        mb_buf_printf(b, "gpu_ipc = %.4f\n", cycles ? (double)insts / (double)cycles : 0.0);
        mb_buf_printf(b, "gpu_tot_sim_cycle = %" PRIu64 "\n", after->cycles);
        mb_buf_printf(b, "gpu_tot_sim_insn = %" PRIu64 "\n", after->thread_insts);
        mb_buf_printf(b, "gpu_tot_ipc = %.4f\n",
                      after->cycles ? (double)after->thread_insts / (double)after->cycles : 0.0);
        mb_buf_printf(b, "L1_accesses = %" PRIu64 "\nL1_misses = %" PRIu64 "\n",
                      after->l1_accesses - before.l1_accesses, after->l1_misses - before.l1_misses);
        mb_buf_printf(b, "L2_accesses = %" PRIu64 "\nL2_misses = %" PRIu64 "\n",
                      after->l2_accesses - before.l2_accesses, after->l2_misses - before.l2_misses);
        mb_buf_printf(b, "dram_reads = %" PRIu64 "\ndram_writes = %" PRIu64 "\n",
                      after->dram_reads - before.dram_reads, after->dram_writes - before.dram_writes);
        mb_buf_printf(b, "bank_conflicts = %" PRIu64 "\n\n", after->bank_conflicts - before.bank_conflicts);
        emit(rt, ss);
    }
    return MB_OK;
}

static void write_json(mb_rt *rt, sim_state *ss)
{
    mb_buf out = MB_BUF_INIT;
    mb_error err;
    mb_buf_printf(&out, "{\"selected_kernels\": [%s], \"launch_seconds\": %.9f, \"simulator\": ",
                  ss->selected_kernels.data ? ss->selected_kernels.data : "", ss->selected_seconds);
    mb_status st = mb_sim_stats_json(ss->sim, &out, &err);
    mb_buf_puts(&out, "}\n");
    if (st == MB_OK && out.failed)
        st = mb_error_set(&err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    if (st == MB_OK)
        st = mb_write_file_atomic(rt->opt.stats_json, out.data, out.len, &err);
    if (st != MB_OK) {
        char msg[1700];
        mb_error_format(&err, msg, sizeof(msg));
        rt_warn("cannot write the JSON statistics: %s", msg);
    }
    mb_buf_free(&out);
}

void rt_sim_finish(mb_rt *rt)
{
    sim_state *ss = rt->sim_state;
    if (!ss || !ss->sim || ss->finished)
        return;
    ss->finished = 1;
    if (rt->opt.stats_json)
        write_json(rt, ss);
    mb_buf_puts(&ss->text, "# totals over every simulated launch\n");
    mb_sim_stats_text(ss->sim, &ss->text);
    emit(rt, ss);
}
