/*
 * libminibench_sim: the bundled cycle-level GPU simulator (docs/sim.md).
 *
 * Execution-driven on the profiler's functional executor (the stepping API
 * of profiler.h): the timing model decides when each warp issues, the
 * executor runs the instruction at that moment and reports its lanes and
 * addresses, and the memory hierarchy times its transactions. Configs use
 * GPGPU-Sim's `-option value` syntax; presets are compiled in.
 */
#ifndef MINIBENCH_SIM_H
#define MINIBENCH_SIM_H

#include <minibench/profiler.h>
#include <minibench/util.h>

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ configs */

/** A simulator configuration: every option of sim/src/sim_options.def. */
typedef struct mb_sim_config mb_sim_config;

/** A configuration holding every option's default. */
mb_status mb_sim_config_new(mb_sim_config **out, mb_error *err);
void mb_sim_config_free(mb_sim_config *cfg);

/**
 * Applies a config file's text (GPGPU-Sim syntax: `-option value` per line,
 * `#` comments, values may be quoted; later lines override earlier ones).
 * Options the simulator does not model add one line each to `warnings`
 * ("name:line: warning: ..."), once per option name; malformed values fail
 * with MB_ERR_PARSE naming name:line. The whole configuration is validated
 * (structured values such as cache geometries parsed) before returning MB_OK.
 */
mb_status mb_sim_config_parse(mb_sim_config *cfg, const char *text, size_t len, const char *name,
                              mb_buf *warnings, mb_error *err);
/** Loads a preset by name (conf3) or, when no preset has that name, a config file. */
mb_status mb_sim_config_load(mb_sim_config *cfg, const char *name_or_path, mb_buf *warnings,
                             mb_error *err);
/** Sets one option from text, as a config line would (`where` names it in errors). */
mb_status mb_sim_config_set(mb_sim_config *cfg, const char *option, const char *value,
                            const char *where, mb_error *err);
/** Names of the compiled-in presets, NULL-terminated. */
const char *const *mb_sim_preset_names(void);
/** The text of preset `name` (its config file), or NULL. */
const char *mb_sim_preset_text(const char *name);
/** Appends every option with its current value as config text. */
void mb_sim_config_write(const mb_sim_config *cfg, mb_buf *out);
/** Appends a table of every option: name, default, meaning (for --help and docs). */
void mb_sim_options_describe(mb_buf *out);

/* ============================================================= statistics */

/** Per-scheduler cycle categories (a measured CPI stack), docs/sim.md. */
#define MB_SIM_STALLS(X)                                                                           \
    X(ISSUED, "issued")                                                                            \
    X(COMPUTE, "compute_dep")                                                                      \
    X(L1, "l1_hit")                                                                                \
    X(L2, "l2_hit")                                                                                \
    X(DRAM, "dram")                                                                                \
    X(MSHR, "mshr_full")                                                                           \
    X(MEMQ, "mem_queue")                                                                           \
    X(UNIT, "unit_busy")                                                                           \
    X(BARRIER, "barrier")                                                                          \
    X(IDLE, "idle")

typedef enum mb_sim_stall {
#define MB_SIM_STALL_ENUM(e, name) MB_SIM_STALL_##e,
    MB_SIM_STALLS(MB_SIM_STALL_ENUM)
#undef MB_SIM_STALL_ENUM
    MB_SIM_STALL_COUNT
} mb_sim_stall;

const char *mb_sim_stall_name(mb_sim_stall s);

/** The functional-unit classes a warp instruction issues to (docs/sim.md): an
 * instruction counts in its class even when another unit kind serves it. */
#define MB_SIM_UNITS(X)                                                                            \
    X(SP, "sp")                                                                                    \
    X(SFU, "sfu")                                                                                  \
    X(DP, "dp")                                                                                    \
    X(INT, "int")                                                                                  \
    X(MEM, "mem")

typedef enum mb_sim_unit {
#define MB_SIM_UNIT_ENUM(e, name) MB_SIM_UNIT_##e,
    MB_SIM_UNITS(MB_SIM_UNIT_ENUM)
#undef MB_SIM_UNIT_ENUM
    MB_SIM_UNIT_COUNT
} mb_sim_unit;

/** Totals over every simulated launch. */
typedef struct mb_sim_stats {
    uint64_t cycles;           /**< gpu_sim_cycle: core cycles */
    uint64_t thread_insts;     /**< gpu_sim_insn: SIMT-active lanes summed over warp instructions */
    uint64_t warp_insts;
    uint64_t unit_warp_insts[MB_SIM_UNIT_COUNT]; /**< warp instructions per unit class */
    uint64_t launches, ctas;
    uint64_t stall[MB_SIM_STALL_COUNT]; /**< scheduler-cycles per category, all schedulers */
    uint64_t warp_cycles;      /**< sum over cycles and SMs of resident warps (occupancy) */
    uint64_t sm_cycles;        /**< cycles times SMs */
    uint64_t max_warps_per_sm;
    uint64_t gmem_insts, gmem_transactions; /**< global/local load, store, atomic instructions and their transactions */
    uint64_t l1_accesses, l1_hits, l1_mshr_merges, l1_misses;
    uint64_t mshr_full_events;
    uint64_t const_accesses, const_hits;
    uint64_t shared_insts, shared_cycles; /**< shared-memory instructions and the cycles they needed */
    uint64_t bank_conflicts;   /**< extra shared-memory cycles (replays) */
    uint64_t l2_accesses, l2_hits, l2_misses, l2_writebacks;
    uint64_t atomics;          /**< atomic transactions performed at L2 */
    uint64_t dram_reads, dram_writes, dram_row_hits, dram_row_misses;
    uint64_t dram_bytes;
    uint64_t dram_busy_ticks;  /**< data-bus busy time summed over channels, in simulator ticks */
    uint64_t icnt_flits;
} mb_sim_stats;

/* ============================================================ simulation */

typedef struct mb_sim mb_sim;

/** A simulator for configuration `cfg` (copied). */
mb_status mb_sim_new(const mb_sim_config *cfg, mb_sim **out, mb_error *err);
void mb_sim_free(mb_sim *sim);

/** Called about every `every` cycles during a launch. */
typedef void (*mb_sim_progress_fn)(void *ctx, uint64_t cycles, uint64_t thread_insts);
void mb_sim_set_progress(mb_sim *sim, mb_sim_progress_fn fn, void *ctx, uint64_t every);

/**
 * Simulates one launch from an idle GPU to its completion (caches keep their
 * contents across launches, as on hardware); statistics accumulate. A fault
 * in the simulated program fails with the executor's report.
 */
mb_status mb_sim_launch(mb_sim *sim, mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                        const mb_exec_options *opt, mb_error *err);

const mb_sim_stats *mb_sim_get_stats(const mb_sim *sim);
/** Statistics as `name = value` lines (GPGPU-Sim's names where it has them). */
void mb_sim_stats_text(const mb_sim *sim, mb_buf *out);
/**
 * One statistic by its output name (`gpu_ipc`, `L2_total_cache_miss_rate`,
 * `stall_fraction_dram`, ...: every row of the text output); an unknown name
 * fails with MB_ERR_INVALID.
 */
mb_status mb_sim_stat_value(const mb_sim *sim, const char *name, double *value, mb_error *err);
/** Statistics, per-scheduler stall breakdown and the configuration as JSON. */
mb_status mb_sim_stats_json(const mb_sim *sim, mb_buf *out, mb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_SIM_H */
