/*
 * libminibench_validate: clones measured against their originals on the
 * bundled cycle simulator, as the GPGPU-MiniBench paper evaluates them
 * (section 6, Figs. 16-20; docs/validate.md).
 *
 * For one profile, every reduction factor gets a clone (synth/), and the
 * original and each clone are simulated on every configuration (sim/). A
 * row per configuration and reduction holds both sides' statistics, their
 * relative errors (paper Eq. 4), the simulation speedup (Eq. 3), the
 * simulated-instruction ratio and the first statistic that diverged.
 */
#ifndef MINIBENCH_VALIDATE_H
#define MINIBENCH_VALIDATE_H

#include <minibench/synth.h>
#include <minibench/util.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * The statistics compared, in the order a divergence is diagnosed (the
 * first one out of tolerance is named as the cause): X(id, column name,
 * label, simulator statistic, tolerance kind, tolerance, cause). ABS
 * tolerances are absolute differences (rates as fractions), REL ones
 * relative to the original. IPC is the target, not a cause.
 */
#define MB_VALIDATE_METRICS(X)                                                                     \
    X(IPC, "ipc", "IPC", "gpu_ipc", REL, 0.03, NULL)                                               \
    X(SIMD, "simd_efficiency", "SIMD efficiency", "simd_efficiency", ABS, 0.02, "divergence")      \
    X(MIX_SP, "sp_share", "SP instruction share", "sp_warp_insn_share", ABS, 0.03,                \
      "instruction mix")                                                                           \
    X(MIX_SFU, "sfu_share", "SFU instruction share", "sfu_warp_insn_share", ABS, 0.03,            \
      "instruction mix")                                                                           \
    X(MIX_DP, "dp_share", "DP instruction share", "dp_warp_insn_share", ABS, 0.03,                \
      "instruction mix")                                                                           \
    X(MIX_INT, "int_share", "INT instruction share", "int_warp_insn_share", ABS, 0.03,            \
      "instruction mix")                                                                           \
    X(MIX_MEM, "mem_share", "memory instruction share", "mem_warp_insn_share", ABS, 0.03,         \
      "instruction mix")                                                                           \
    X(TPR, "transactions_per_request", "transactions/request", "gmem_transactions_per_request",   \
      REL, 0.05, "coalescing")                                                                     \
    X(BANK, "bank_conflicts_per_request", "bank conflicts/request",                               \
      "shmem_bank_conflicts_per_request", ABS, 0.05, "bank conflicts")                            \
    X(L1_MISS, "l1_miss_rate", "L1 miss rate", "L1D_total_cache_miss_rate", ABS, 0.03,             \
      "cache behaviour (L1)")                                                                      \
    X(L2_MISS, "l2_miss_rate", "L2 miss rate", "L2_total_cache_miss_rate", ABS, 0.03,              \
      "cache behaviour (L2)")                                                                      \
    X(DRAM_BW, "dram_bw_utilization", "DRAM bandwidth use", "dram_bandwidth_utilization", ABS,    \
      0.03, "DRAM bandwidth")                                                                      \
    X(DEP, "compute_dep_stalls", "dependence stall share", "stall_fraction_compute_dep", ABS,     \
      0.03, "dependence")

typedef enum mb_validate_metric {
#define MB_VALIDATE_METRIC_ENUM(id, col, label, stat, kind, tol, cause) MB_VM_##id,
    MB_VALIDATE_METRICS(MB_VALIDATE_METRIC_ENUM)
#undef MB_VALIDATE_METRIC_ENUM
    MB_VM_COUNT
} mb_validate_metric;

/** Column name of a metric ("ipc", "l1_miss_rate", ...). */
const char *mb_validate_metric_name(mb_validate_metric m);
/** Human label of a metric ("L1 miss rate"). */
const char *mb_validate_metric_label(mb_validate_metric m);

typedef struct mb_validate_sample mb_validate_sample;

/**
 * Simulates launch `launch` (of kernel `kernel`) of the original on
 * configuration `config` when the original is not a PTX file and a manifest
 * (the profile of an unmodified program, which the CLI runs again on the
 * runtime library).
 */
typedef mb_status (*mb_validate_original_fn)(void *ctx, const char *kernel, uint32_t launch,
                                             const char *config, mb_validate_sample *out,
                                             mb_error *err);

/** Called before each step of a long validation ("simulating the original on conf3"). */
typedef void (*mb_validate_progress_fn)(void *ctx, const char *what);

typedef struct mb_validate_options {
    const double *reductions;     /**< >= 1, or 0 for max */
    size_t nreductions;
    const char *const *configs;   /**< preset names or config files */
    size_t nconfigs;
    uint64_t seed;                /**< synth's seed */
    unsigned repeat;              /**< timing repetitions (median); 0 means 1 */
    const char *ptx, *manifest;   /**< the original's files; NULL: from the profile's index.json */
    uint64_t max_warp_insts;      /**< per simulated launch; 0: no limit */
    const char *suite_manifest;   /**< suites: each example's manifest file name (NULL: launch.json) */
    mb_validate_original_fn original; /**< NULL: simulate the PTX and manifest in-process */
    void *original_ctx;
    mb_validate_progress_fn progress;
    void *progress_ctx;
} mb_validate_options;

/** One simulated launch. */
struct mb_validate_sample {
    double value[MB_VM_COUNT];
    uint64_t cycles, thread_insts;
    double seconds;               /**< CPU seconds of the simulation, median of the repeats */
};

/**
 * Fills a sample from a simulator's JSON statistics (`minibench sim --json`'s
 * document, under "simulator", with "launch_seconds" beside it, as the
 * runtime library writes MINIBENCH_CUDART_STATS_JSON). `name` names the text
 * in errors. With `kernel`, the document's "selected_kernels" must be exactly
 * that one kernel.
 */
mb_status mb_validate_sample_from_json(const char *text, size_t len, const char *name,
                                       const char *kernel, mb_validate_sample *out, mb_error *err);

/** The cause code of a row whose statistics all stay within tolerance. */
#define MB_VALIDATE_NO_DIVERGENCE (-1)
/** The cause code of a reduction-1 clone that runs a different number of instructions. */
#define MB_VALIDATE_INSTS_DIVERGED MB_VM_COUNT

/** One configuration at one reduction factor. */
typedef struct mb_validate_row {
    size_t config, reduction;     /**< indices into the report's lists */
    mb_validate_sample clone;
    double rel_error[MB_VM_COUNT]; /**< Eq. 4: (clone - original) / original; NAN when undefined */
    double speedup;               /**< Eq. 3: original's simulation time over the clone's */
    double inst_ratio;            /**< original's thread instructions over the clone's */
    int first_diverged;           /**< a metric, MB_VALIDATE_INSTS_DIVERGED or MB_VALIDATE_NO_DIVERGENCE */
} mb_validate_row;

typedef struct mb_validate_report {
    char *kernel;                 /**< mangled name */
    char *profile;                /**< the profile prefix validated */
    int has_loops;                /**< the kernel's CFG has a loop */
    size_t nconfigs, nreductions;
    char **configs;
    double *reductions;           /**< 0 means max */
    mb_validate_sample *original; /**< per configuration */
    mb_validate_row *rows;        /**< nconfigs x nreductions, configuration-major */
    int *trend_kept;              /**< per reduction: the clone ranks the configs as the original does */
    mb_clone_model **clones;      /**< per reduction */
} mb_validate_report;

/** The row of configuration `c` at reduction `r`. */
const mb_validate_row *mb_validate_row_at(const mb_validate_report *rep, size_t c, size_t r);

/**
 * Validates profile `prefix` (PROFDIR/<kernel>.<n>): synthesises a clone per
 * reduction and simulates the original (launch n of its manifest, after the
 * earlier launches run functionally) and every clone on every configuration.
 * The original's PTX and manifest come from `opt` or from PROFDIR/index.json.
 */
mb_status mb_validate_profile(const char *prefix, const mb_validate_options *opt,
                              mb_validate_report **out, mb_error *err);
void mb_validate_report_free(mb_validate_report *rep);

/** The table printed on standard output. */
void mb_validate_text(const mb_validate_report *rep, mb_buf *out);
/**
 * Writes validate.csv, validate.json, speedup.svg (Fig. 16), ipc_error.svg
 * (Fig. 17), ipc_configs.svg (Fig. 20) and clones/r<R>/ into `dir`
 * (created if missing), each file atomically.
 */
mb_status mb_validate_write(const mb_validate_report *rep, const char *dir, mb_error *err);

/* =================================================================== suites */

/** One kernel of a suite: its report, or why it has none. */
typedef struct mb_validate_entry {
    char *name;                   /**< the example's directory name */
    mb_validate_report *report;   /**< NULL when the kernel could not be validated */
    char *failure;                /**< why (synth refused it, the original faulted, ...) */
} mb_validate_entry;

typedef struct mb_validate_suite {
    size_t nentries;
    mb_validate_entry *entries;
} mb_validate_suite;

/**
 * Validates every example of `dir` (each subdirectory holding the manifest
 * `opt->suite_manifest`, by default launch.json, and one .ptx file): profiles its launch with the most thread instructions
 * into outdir/<example>/profile, validates it and writes its report into
 * outdir/<example>. A kernel that cannot be validated is recorded with the
 * reason and the suite goes on.
 */
mb_status mb_validate_suite_run(const char *dir, const mb_validate_options *opt,
                                const char *outdir, mb_validate_suite **out, mb_error *err);
void mb_validate_suite_free(mb_validate_suite *s);
/** The suite's summary table: per kernel and the means of the targets. */
void mb_validate_suite_text(const mb_validate_suite *s, mb_buf *out);
/** Writes summary.csv, summary.json and summary_*.svg into `dir`. */
mb_status mb_validate_suite_write(const mb_validate_suite *s, const char *dir, mb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_VALIDATE_H */
