/* Internal contract of libminibench_validate. */
#ifndef MB_VALIDATE_INTERNAL_H
#define MB_VALIDATE_INTERNAL_H

#include <minibench/profiler.h>
#include <minibench/sim.h>
#include <minibench/validate.h>

#include <jansson.h>

/** What a simulation needs: a module, a manifest, which launch to time. */
typedef struct vsim_target {
    const mb_module *module;
    const mb_manifest *manifest;
    uint32_t launch;       /**< earlier launches run functionally first */
    const char *kernel;    /**< the kernel that launch must run, or NULL */
    const char *what;      /**< "the original" or "the clone at reduction 8", for errors */
} vsim_target;

/**
 * Simulates `t` on `cfg` `repeat` times (fresh memory each time), timing
 * only the simulated launch with the process CPU clock; the statistics are
 * the last run's (they repeat exactly), the time the median.
 */
mb_status vsim_measure(const vsim_target *t, const mb_sim_config *cfg, const char *config_name,
                       unsigned repeat, uint64_t max_warp_insts, mb_validate_sample *out,
                       mb_error *err);

/** Whether metric m of the clone is out of tolerance against the original's. */
int vmetric_diverged(mb_validate_metric m, double original, double clone);
/** The IPC tolerance of the metrics table (relative): the aim a clone is held to. */
double vipc_aim(void);

/** What diverged first: a cause ("coalescing"), "instruction count" or "none". */
const char *vcause_name(int first_diverged);
/**
 * The cause with the statistic and both values, for reading:
 * "instruction mix: DP instruction share 0.670 -> 0.338", or the bare cause
 * when nothing diverged.
 */
void vcause_detail(const mb_validate_sample *original, const mb_validate_row *row, char *buf,
                   size_t size);

/** "1", "8", "max": a reduction factor's label. */
void vreduction_label(double r, char *buf, size_t size);

/** The report as the JSON document of validate.json. */
json_t *vreport_json(const mb_validate_report *rep);
/** Appends ",value" to a CSV row, or a bare comma for NAN and infinities. */
void vcsv_number(mb_buf *out, double v);
/** A JSON real, or null for NAN and infinities. */
json_t *vjson_number(double v);
/** Appends `root` as indented JSON and a newline. */
mb_status vjson_dump(json_t *root, mb_buf *out, mb_error *err);
/** mkdir that accepts an existing directory. */
mb_status vmake_dir(const char *dir, mb_error *err);
/** Writes `b` to dir/name atomically. */
mb_status vwrite_in(const char *dir, const char *name, const mb_buf *b, mb_error *err);

/** A report's headline: its figures at the largest reduction factor (max when asked for). */
typedef struct vheadline {
    size_t reduction;          /**< index into the report's reductions */
    double mean_abs_ipc_error; /**< over the configurations, as a fraction */
    double max_abs_ipc_error;
    double hmean_speedup;      /**< harmonic mean over the configurations */
    double inst_ratio;         /**< original's thread instructions over the clone's (first config) */
    int trend_kept;
    int worst_config;          /**< configuration with the largest IPC error */
    /* The headline error split in two, when R = 1 was validated (else NAN): */
    double r1_mean_abs_ipc_error; /**< the clone's own error: mean |IPC error| at R = 1 */
    double reduction_drift;    /**< mean over configs of |clone IPC at the headline / at R = 1 - 1| */
    /* The largest factor whose clone is within the IPC aim on every configuration: */
    int best;                  /**< index into the reductions, -1 when none is */
    double best_mean_abs_ipc_error, best_hmean_speedup, best_inst_ratio;
} vheadline;
void vheadline_of(const mb_validate_report *rep, vheadline *h);

/** Harmonic mean of the positive finite values; NAN when there are none. */
double vharmonic_mean(const double *v, size_t n);

#endif
