/* Statistics output: `name = value` text with GPGPU-Sim's names where it has
 * them, and JSON with everything (totals, per-scheduler CPI stacks, config). */
#include "sim_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const stall_names[] = {
#define MB_SIM_STALL_NAME(e, name) name,
    MB_SIM_STALLS(MB_SIM_STALL_NAME)
#undef MB_SIM_STALL_NAME
};

const char *mb_sim_stall_name(mb_sim_stall s)
{
    return (unsigned)s < MB_SIM_STALL_COUNT ? stall_names[s] : "?";
}

static double ratio(uint64_t a, uint64_t b)
{
    return b ? (double)a / (double)b : 0.0;
}

/* One row per statistic: name, value, and whether it is an integer. The
 * text and JSON writers both walk this list, so they always agree. */
typedef struct stat_row {
    const char *name;
    double real;
    uint64_t integer;
    int is_int;
} stat_row;

static size_t collect(const mb_sim *s, stat_row *rows, size_t max)
{
    const mb_sim_stats *t = &s->stats;
    size_t n = 0;
#define INT_ROW(nm, v)                                                                             \
    do {                                                                                           \
        if (n < max)                                                                               \
            rows[n++] = (stat_row){nm, 0, (v), 1};                                                 \
    } while (0)
#define REAL_ROW(nm, v)                                                                            \
    do {                                                                                           \
        if (n < max)                                                                               \
            rows[n++] = (stat_row){nm, (v), 0, 0};                                                 \
    } while (0)
    INT_ROW("gpu_sim_cycle", t->cycles);
    INT_ROW("gpu_sim_insn", t->thread_insts);
    REAL_ROW("gpu_ipc", ratio(t->thread_insts, t->cycles));
    INT_ROW("gpu_sim_warp_insn", t->warp_insts);
    REAL_ROW("gpu_warp_ipc", ratio(t->warp_insts, t->cycles));
    INT_ROW("gpu_sim_launches", t->launches);
    INT_ROW("gpu_sim_ctas", t->ctas);
    REAL_ROW("gpu_occupancy", ratio(t->warp_cycles, t->sm_cycles * (t->max_warps_per_sm ? t->max_warps_per_sm : 1)));
    REAL_ROW("simd_efficiency", ratio(t->thread_insts, t->warp_insts * 32));
    static const char *const unit_rows[] = {
#define MB_SIM_UNIT_ROW(e, name) name "_warp_insn",
        MB_SIM_UNITS(MB_SIM_UNIT_ROW)
#undef MB_SIM_UNIT_ROW
    };
    static const char *const unit_share_rows[] = {
#define MB_SIM_UNIT_SHARE(e, name) name "_warp_insn_share",
        MB_SIM_UNITS(MB_SIM_UNIT_SHARE)
#undef MB_SIM_UNIT_SHARE
    };
    for (int u = 0; u < MB_SIM_UNIT_COUNT; u++)
        INT_ROW(unit_rows[u], t->unit_warp_insts[u]);
    for (int u = 0; u < MB_SIM_UNIT_COUNT; u++)
        REAL_ROW(unit_share_rows[u], ratio(t->unit_warp_insts[u], t->warp_insts));
    INT_ROW("gmem_insn", t->gmem_insts);
    INT_ROW("gmem_transactions", t->gmem_transactions);
    REAL_ROW("gmem_transactions_per_request", ratio(t->gmem_transactions, t->gmem_insts));
    INT_ROW("L1D_total_cache_accesses", t->l1_accesses);
    INT_ROW("L1D_total_cache_hits", t->l1_hits);
    INT_ROW("L1D_total_cache_misses", t->l1_misses);
    INT_ROW("L1D_total_cache_mshr_merges", t->l1_mshr_merges);
    REAL_ROW("L1D_total_cache_hit_rate", ratio(t->l1_hits, t->l1_accesses));
    REAL_ROW("L1D_total_cache_miss_rate", ratio(t->l1_accesses - t->l1_hits, t->l1_accesses));
    INT_ROW("L1C_total_cache_accesses", t->const_accesses);
    INT_ROW("L1C_total_cache_hits", t->const_hits);
    INT_ROW("shared_insn", t->shared_insts);
    INT_ROW("shared_cycles", t->shared_cycles);
    INT_ROW("gpgpu_n_shmem_bank_conflicts", t->bank_conflicts);
    REAL_ROW("shmem_bank_conflicts_per_request", ratio(t->bank_conflicts, t->shared_insts));
    INT_ROW("L2_total_cache_accesses", t->l2_accesses);
    INT_ROW("L2_total_cache_hits", t->l2_hits);
    INT_ROW("L2_total_cache_misses", t->l2_misses);
    INT_ROW("L2_total_cache_writebacks", t->l2_writebacks);
    REAL_ROW("L2_total_cache_hit_rate", ratio(t->l2_hits, t->l2_accesses));
    REAL_ROW("L2_total_cache_miss_rate", ratio(t->l2_accesses - t->l2_hits, t->l2_accesses));
    INT_ROW("l2_atomic_transactions", t->atomics);
    INT_ROW("dram_reads", t->dram_reads);
    INT_ROW("dram_writes", t->dram_writes);
    INT_ROW("dram_row_hits", t->dram_row_hits);
    INT_ROW("dram_row_misses", t->dram_row_misses);
    REAL_ROW("dram_row_locality", ratio(t->dram_row_hits, t->dram_row_hits + t->dram_row_misses));
    INT_ROW("dram_bytes", t->dram_bytes);
    /* data-bus busy time over the channels' available time */
    REAL_ROW("dram_bandwidth_utilization",
             ratio(t->dram_busy_ticks, t->cycles * SIM_TICKS * (uint64_t)s->cfg.n_mem));
    REAL_ROW("dram_bytes_per_cycle", ratio(t->dram_bytes, t->cycles));
    REAL_ROW("dram_gbytes_per_second",
             t->cycles ? (double)t->dram_bytes / ((double)t->cycles / (s->d.core_mhz * 1e6)) / 1e9 : 0.0);
    INT_ROW("icnt_total_flits", t->icnt_flits);
    uint64_t total = 0;
    for (int k = 0; k < MB_SIM_STALL_COUNT; k++)
        total += t->stall[k];
    static const char *const stall_rows[] = {
#define MB_SIM_STALL_ROW(e, name) "stall_" name,
        MB_SIM_STALLS(MB_SIM_STALL_ROW)
#undef MB_SIM_STALL_ROW
    };
    for (int k = 0; k < MB_SIM_STALL_COUNT; k++)
        INT_ROW(stall_rows[k], t->stall[k]);
    static const char *const frac_rows[] = {
#define MB_SIM_STALL_FRAC(e, name) "stall_fraction_" name,
        MB_SIM_STALLS(MB_SIM_STALL_FRAC)
#undef MB_SIM_STALL_FRAC
    };
    for (int k = 0; k < MB_SIM_STALL_COUNT; k++)
        REAL_ROW(frac_rows[k], ratio(t->stall[k], total));
#undef INT_ROW
#undef REAL_ROW
    return n;
}

enum { MAX_ROWS = 96 };

void mb_sim_stats_text(const mb_sim *s, mb_buf *out)
{
    stat_row rows[MAX_ROWS];
    size_t n = collect(s, rows, MAX_ROWS);
    for (size_t i = 0; i < n; i++) {
        if (rows[i].is_int)
            mb_buf_printf(out, "%s = %llu\n", rows[i].name, (unsigned long long)rows[i].integer);
        else
            mb_buf_printf(out, "%s = %.4f\n", rows[i].name, rows[i].real);
    }
}

mb_status mb_sim_stat_value(const mb_sim *s, const char *name, double *value, mb_error *err)
{
    stat_row rows[MAX_ROWS];
    size_t n = collect(s, rows, MAX_ROWS);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].name, name) == 0) {
            *value = rows[i].is_int ? (double)rows[i].integer : rows[i].real;
            return MB_OK;
        }
    }
    return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "no simulator statistic is called '%s'", name);
}

mb_status mb_sim_stats_json(const mb_sim *s, mb_buf *out, mb_error *err)
{
    stat_row rows[MAX_ROWS];
    size_t n = collect(s, rows, MAX_ROWS);
    json_t *root = json_object();
    json_t *stats = json_object();
    for (size_t i = 0; i < n; i++)
        json_object_set_new(stats, rows[i].name,
                            rows[i].is_int ? json_integer((json_int_t)rows[i].integer)
                                           : json_real(rows[i].real));
    json_object_set_new(root, "stats", stats);
    /* the measured CPI stack of every scheduler: [sm][scheduler] -> category -> cycles */
    uint32_t nsched = (uint32_t)s->cfg.sched_per_core;
    json_t *sms = json_array();
    for (uint32_t i = 0; i < s->nsm; i++) {
        json_t *scheds = json_array();
        for (uint32_t k = 0; k < nsched; k++) {
            json_t *o = json_object();
            const uint64_t *c = &s->sched_stall[((size_t)i * nsched + k) * MB_SIM_STALL_COUNT];
            for (int c2 = 0; c2 < MB_SIM_STALL_COUNT; c2++)
                json_object_set_new(o, stall_names[c2], json_integer((json_int_t)c[c2]));
            json_array_append_new(scheds, o);
        }
        json_array_append_new(sms, scheds);
    }
    json_object_set_new(root, "scheduler_cycles", sms);
    mb_buf cfgtext = {0};
    mb_sim_config_write(&s->cfg, &cfgtext);
    json_t *cfg = json_object();
    /* the config as option -> value, in table order */
    char *p = cfgtext.data;
    while (p && *p) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        char *sp = strchr(p, ' ');
        if (sp && p[0] == '-') {
            *sp = 0;
            json_object_set_new(cfg, p + 1, json_string(sp + 1));
        }
        p = nl ? nl + 1 : NULL;
    }
    mb_buf_free(&cfgtext);
    json_object_set_new(root, "config", cfg);
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (!text)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory writing JSON");
    mb_buf_puts(out, text);
    mb_buf_putc(out, '\n');
    free(text);
    return MB_OK;
}
