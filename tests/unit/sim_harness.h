/* Test helper for the cycle simulator: a config from text, a kernel from
 * tests/sim/, buffers set up by the test, one or more simulated launches. */
#ifndef MB_SIM_HARNESS_H
#define MB_SIM_HARNESS_H

#include <minibench/profiler.h>
#include <minibench/sim.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sim_run {
    mb_module *m;
    mb_memory *mem;
    mb_program *prog;
    mb_sim_config *cfg;
    mb_sim *sim;
    mb_error err;
} sim_run;

/* A small, fully specified machine: 1 SM, one scheduler, all clocks equal,
 * 8 KB L1, 2 x 64 KB L2, 2 DRAM channels; tests override what they vary. */
static const char sim_test_config[] =
    "-gpgpu_n_clusters 1\n"
    "-gpgpu_n_cores_per_cluster 1\n"
    "-gpgpu_shader_core_pipeline 2048:32\n"
    "-gpgpu_shader_cta 32\n"
    "-gpgpu_shader_registers 65536\n"
    "-gpgpu_shmem_size 65536\n"
    "-gpgpu_num_sched_per_core 1\n"
    "-gpgpu_scheduler lrr\n"
    "-mb_simd_width 32\n"
    "-ptx_opcode_latency_fp 10,10,10,10,40\n"
    "-ptx_opcode_initiation_fp 1,1,1,1,1\n"
    "-ptx_opcode_latency_int 2,2,2,2,20,4\n"
    "-ptx_opcode_initiation_int 1,1,1,1,1,1\n"
    "-gpgpu_coalesce_arch 20\n"
    "-gpgpu_l1_latency 20\n"
    "-gpgpu_cache:dl1 N:16:128:4,L:T:m:N,A:32:8,8\n"
    "-gpgpu_n_mem 2\n"
    "-gpgpu_n_sub_partition_per_mchannel 1\n"
    "-gpgpu_cache:dl2 N:64:128:8,L:B:m:L,A:64:8,16\n"
    "-gpgpu_l2_rop_latency 100\n"
    "-mb_icnt_latency 10\n"
    "-icnt_flit_size 32\n"
    "-gpgpu_n_mem_per_ctrlr 2\n"
    "-gpgpu_dram_buswidth 4\n"
    "-dram_data_command_freq_ratio 2\n"
    "-gpgpu_dram_burst_length 4\n"
    "-gpgpu_dram_timing_opt nbk=8:CCD=2:RRD=8:RCD=12:RAS=25:RP=10:RC=35:CL=10:WL=7:CDLR=6:WR=11\n"
    "-mb_dram_latency 200\n"
    "-gpgpu_shmem_num_banks 32\n"
    "-gpgpu_shmem_warp_parts 1\n"
    "-gpgpu_clock_domains 1000:1000:1000:1000\n";

/* Loads tests/sim/<file> and a config: the test config plus `extra` lines. Returns 0 on failure. */
static inline int sim_run_open(sim_run *r, const char *file, const char *extra)
{
    memset(r, 0, sizeof(*r));
    char path[512];
    snprintf(path, sizeof(path), "%s/sim/%s", MB_TEST_DATA, file);
    mb_status st = mb_ptx_parse_file(path, &r->m, &r->err);
    if (st == MB_OK)
        st = mb_memory_new(&r->mem, &r->err);
    if (st == MB_OK)
        st = mb_program_new(r->m, r->mem, &r->prog, &r->err);
    if (st == MB_OK)
        st = mb_sim_config_new(&r->cfg, &r->err);
    if (st == MB_OK)
        st = mb_sim_config_parse(r->cfg, sim_test_config, strlen(sim_test_config), "test.config",
                                 NULL, &r->err);
    if (st == MB_OK && extra)
        st = mb_sim_config_parse(r->cfg, extra, strlen(extra), "extra.config", NULL, &r->err);
    if (st == MB_OK)
        st = mb_sim_new(r->cfg, &r->sim, &r->err);
    if (st != MB_OK)
        fprintf(stderr, "sim_run_open: %s:%d: %s\n", r->err.file, r->err.line, r->err.msg);
    return st == MB_OK;
}

/* A zeroed device buffer; its host view in *host when non-NULL. */
static inline uint64_t sim_run_alloc(sim_run *r, uint64_t bytes, void **host)
{
    uint64_t addr = 0;
    if (mb_memory_alloc(r->mem, bytes, "buf", &addr, &r->err) != MB_OK)
        return 0;
    if (host)
        *host = mb_memory_host(r->mem, addr, bytes);
    return addr;
}

/* Simulates kernel `kernel` with its parameters from `args` (each as wide as the parameter). */
static inline mb_status sim_run_launch(sim_run *r, const char *kernel, unsigned grid, unsigned block,
                                       const uint64_t *args, unsigned nargs)
{
    const mb_function *fn = mb_module_find_function(r->m, kernel);
    if (!fn || fn->nparams != nargs)
        return mb_error_set(&r->err, MB_ERR_INVALID, "test", 0, 0, "bad kernel %s", kernel);
    mb_param_slot slots[16];
    uint32_t total = 0;
    mb_status st = mb_kernel_param_layout(fn, slots, &total, &r->err);
    if (st != MB_OK)
        return st;
    uint8_t params[256] = {0};
    for (unsigned i = 0; i < nargs; i++)
        memcpy(params + slots[i].offset, &args[i], slots[i].size < 8 ? slots[i].size : 8);
    mb_launch_config cfg;
    memset(&cfg, 0, sizeof(cfg));
    cfg.kernel = fn;
    cfg.grid = (mb_dim3){grid, 1, 1};
    cfg.block = (mb_dim3){block, 1, 1};
    cfg.params = params;
    cfg.param_bytes = total;
    return mb_sim_launch(r->sim, r->prog, r->mem, &cfg, NULL, &r->err);
}

static inline void sim_run_close(sim_run *r)
{
    mb_sim_free(r->sim);
    mb_sim_config_free(r->cfg);
    mb_program_free(r->prog);
    mb_memory_free(r->mem);
    mb_module_free(r->m);
    memset(r, 0, sizeof(*r));
}

#endif
