/*
 * minibench synth: from a profile to a clone model.
 *
 * Loads a profile (K.n.profile.json plus the DFSG K.n.dfsg.dot), compares two
 * profiles, and builds the clone model of the MiniBench paper (section 4.2):
 * the original CFG with synthetic instruction chains, reduced loop trip
 * counts, divergence conditions and address generators. emit/ writes the
 * model as PTX and CUDA; nothing here writes clone text.
 */
#ifndef MINIBENCH_SYNTH_H
#define MINIBENCH_SYNTH_H

#include <minibench/dfsg.h>
#include <minibench/util.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- profiles */

/** A histogram of small integer keys: `n` (key, count) pairs sorted by key. */
typedef struct mb_hist {
    size_t n;
    int64_t *key;
    uint64_t *count;
} mb_hist;

/** Sum of counts, and the count-weighted mean of the keys (0 when empty). */
uint64_t mb_hist_total(const mb_hist *h);
double mb_hist_mean(const mb_hist *h);

/** One kernel parameter. */
typedef struct mb_sprof_param {
    const char *name;
    const char *type;        /**< PTX type without the dot, e.g. "u64" */
    uint32_t bytes;
    int is_pointer;          /**< points into a launch buffer */
    const char *buffer;      /**< the buffer's name (pointers) */
    uint64_t buffer_bytes;   /**< its size */
    uint64_t offset;         /**< pointer value minus the buffer's start */
    const char *value;       /**< scalar value as JSON text (non-pointers) */
} mb_sprof_param;

/** One module-level variable the kernel uses. */
typedef struct mb_sprof_var {
    const char *name, *space, *type;
    uint64_t bytes, elements;
} mb_sprof_var;

/** A name -> count table (instruction classes or opcodes). */
typedef struct mb_sprof_mix {
    size_t n;
    const char **name;
    uint64_t *count;
} mb_sprof_mix;

typedef struct mb_sprof_block {
    int id;
    const char *name;
    uint64_t ecount, lcount, scount, threads, warp_execs, entries, exits;
    int loop;               /**< innermost loop, -1 outside loops */
    size_t nchain;
    const char **chain;     /**< opcode chain tokens, e.g. "add.s32" */
    uint32_t first_insn;    /**< index of its first instruction in the function */
    mb_hist dep_distance;   /**< dependence distance histogram */
} mb_sprof_block;

typedef struct mb_sprof_edge {
    int from, to;
    uint64_t count, threads;
    int back;
} mb_sprof_edge;

typedef struct mb_sprof_loop {
    int index;
    const char *kind;       /**< "self", "normal", "nested" */
    int header, depth, parent;
    size_t nblocks;
    int *blocks;
    uint64_t activations, warp_activations, warp_activations_differing;
    double mean_trip_count;
    mb_hist trips;          /**< trip count -> activations */
    int thread_dependent;   /**< trip count depends on thread id */
} mb_sprof_loop;

typedef struct mb_sprof_branch {
    uint32_t insn;
    int line, block;
    uint64_t warp_execs, taken, not_taken, diverged;
    double divergence_fraction;
    const char *condition;  /**< "uniform", "thread/cta id", "data-dependent" */
} mb_sprof_branch;

/** Affine address model: constant + sum of coefficient * variable. */
typedef struct mb_affine {
    int exact;
    int64_t constant;
    size_t nterms;
    const char **var;       /**< "tid.x", "ctaid.y", "iter.loop2", ... */
    int64_t *coef;
} mb_affine;

typedef struct mb_sprof_mem {
    uint32_t insn;
    int line;
    const char *op;         /**< chain token, e.g. "ld.f32" */
    const char *space;      /**< "global", "shared", "local", "const" */
    uint32_t width, vector;
    uint64_t requests, thread_accesses, footprint_lines;
    mb_hist sectors, bank_conflicts, lane_stride, reuse_log2;
    const char *base_kind;  /**< "parameter", "global", "shared", "local", "unknown", "multiple" */
    int base_index;         /**< parameter index, -1 otherwise */
    const char *base_name;
    mb_affine affine;
} mb_sprof_mem;

typedef struct mb_sprof_func {
    const char *name;
    int is_kernel;
    mb_sprof_mix classes, opcodes;
    size_t nblocks, nedges, nloops, nbranches, nmem;
    mb_sprof_block *blocks;
    mb_sprof_edge *edges;
    mb_sprof_loop *loops;
    mb_sprof_branch *branches;
    mb_sprof_mem *mem;
} mb_sprof_func;

/** A loaded profile. Everything lives in `arena`. */
typedef struct mb_sprof {
    const char *path;       /**< the PROFDIR/K.n prefix it was loaded from */
    const char *kernel, *ptx;
    uint32_t grid[3], block[3];
    uint64_t dynamic_shared, ctas, warps, threads, warp_insts, thread_insts;
    uint64_t shared_static, local_per_thread;
    size_t nparams, nvars, nfuncs;
    mb_sprof_param *params;
    mb_sprof_var *vars;
    mb_sprof_func *funcs;   /**< the kernel first */
    mb_arena *arena;
} mb_sprof;

/**
 * Loads `prefix`.profile.json and `prefix`.dfsg.dot (prefix is
 * PROFDIR/<kernel>.<n>; a trailing ".profile.json" or ".dfsg.dot" is
 * accepted too) and checks that the DFSG agrees with the JSON (same blocks,
 * ECount, LCount, SCount, chains and edge counts). Errors name the file and
 * the JSON path or DOT node at fault.
 */
mb_status mb_sprof_load(const char *prefix, mb_sprof **out, mb_error *err);

/** Parses the profile JSON text alone (no DFSG cross-check); `name` for messages. */
mb_status mb_sprof_parse_json(const char *text, size_t len, const char *name, mb_sprof **out,
                              mb_error *err);

/** Checks a profile against its DFSG; `name` names the DOT in messages. */
mb_status mb_sprof_check_dfsg(const mb_sprof *p, const mb_dfsg_graph *g, const char *name,
                              mb_error *err);

void mb_sprof_free(mb_sprof *p);

/** The kernel function (funcs[0]). */
const mb_sprof_func *mb_sprof_kernel(const mb_sprof *p);

/* ------------------------------------------------------------ comparing */

/** Tolerances of `minibench compare --check` (docs/cli.md). */
typedef struct mb_compare_tolerance {
    double reduction;       /**< R the clone was made with; 0 means "max" */
    double ecount_rel;      /**< blocks inside loops: |clone/expected - 1| (0.10) */
    double divergence_pts;  /**< branch divergence fraction, absolute (0.02) */
    double distribution;    /**< sectors / bank-conflict distributions, total variation (0.05) */
    double mix_pts;         /**< instruction-class proportions, absolute (0.02) */
    double totals_rel;      /**< at R = 1: thread instructions, relative (0.02) */
} mb_compare_tolerance;

/** The default tolerances for reduction `r` (0 = max). */
mb_compare_tolerance mb_compare_default_tolerance(double r);

/**
 * Compares profile `a` (the original) with `b` (a clone, or anything with
 * the same CFG). Writes the side-by-side text report into `text` (when not
 * NULL) and the JSON report into `json` (when not NULL). When `tol` is not
 * NULL, checks the tolerances and sets `*violation` to a message naming the
 * first violated statistic (empty when none). Returns MB_OK for any
 * completed comparison, whatever its differences.
 */
mb_status mb_sprof_compare(const mb_sprof *a, const mb_sprof *b, const mb_compare_tolerance *tol,
                           mb_buf *text, mb_buf *json, char *violation, size_t violation_size,
                           mb_error *err);

/**
 * Expected clone ECount of block `b` of `a`'s kernel at reduction `r`
 * (0 = max): the original's count scaled, for each enclosing loop, by the
 * ratio of reduced to original mean trip counts (trip' = max(1, floor(t/r))).
 */
double mb_sprof_expected_ecount(const mb_sprof *a, int block, double r);

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_SYNTH_H */
