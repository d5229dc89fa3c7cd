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

/** One buffer of the launch's input (profile "inputs"), its bytes in a file beside the profile. */
typedef struct mb_sprof_input {
    const char *buffer;      /**< the buffer's name */
    uint64_t bytes;
    uint64_t fnv1a64;        /**< FNV-1a 64 of the bytes */
    const char *path;        /**< PROFDIR/K.n.input<k>.bin; NULL when parsed from text alone */
} mb_sprof_input;

/** One kernel parameter. */
typedef struct mb_sprof_param {
    const char *name;
    const char *type;        /**< PTX type without the dot, e.g. "u64" */
    uint32_t bytes;
    int is_pointer;          /**< points into a launch buffer */
    const char *buffer;      /**< the buffer's name (pointers) */
    uint64_t buffer_bytes;   /**< its size */
    uint64_t offset;         /**< pointer value minus the buffer's start */
    const mb_sprof_input *input; /**< the buffer's recorded input (pointers); NULL: not recorded */
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
    mb_sprof_mix classes, opcodes; /**< its thread instructions by class and opcode */
    mb_hist dep_distance;   /**< dependence distance histogram */
    const uint32_t *dep_start; /**< chain instruction i's producers in the block are
                                    dep[dep_start[i] .. dep_start[i + 1]), distances in
                                    operand order; NULL in profiles without them */
    const uint32_t *dep;
    /** Producers outside the block ("dependences_in"): chain instruction i reads
     *  registers in_reg[in_start[i] .. in_start[i + 1]) from outside its block,
     *  register g reachable from definitions in_def[in_reg[g] .. in_reg[g + 1])
     *  (the last register's end is in_reg[in_start[nchain]]), each a block and an
     *  instruction of that block's chain; in_start NULL in profiles without them */
    const uint32_t *in_start, *in_reg;
    const struct mb_sprof_def {
        uint32_t block, index;
    } *in_def;
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
    int cta_dependent;      /**< trip count depends on cta id */
} mb_sprof_loop;

/** Affine model: constant + sum of coefficient * variable. */
typedef struct mb_affine {
    int exact;
    int64_t constant;
    size_t nterms;
    const char **var;       /**< "tid.x", "ctaid.y", "iter.loop2", ... */
    int64_t *coef;
} mb_affine;

/** Nodes of a branch condition: a comparison or a boolean combination. */
typedef enum mb_cond_op { MB_COND_CMP, MB_COND_AND, MB_COND_OR, MB_COND_XOR, MB_COND_NOT } mb_cond_op;

/** One node of a profiled branch condition (docs/formats.md, condition_model). */
typedef struct mb_cond_node {
    mb_cond_op op;
    /* MB_COND_CMP: the setp's comparison, type and operands */
    uint32_t insn;
    int line;
    const char *cmp;        /**< "lt", "ge", "lo", ... */
    const char *type;       /**< "s32", "u64", "f32", ... */
    mb_affine a, b;         /**< the integers the comparison sees */
    /* the other ops: args[0] (and args[1] except MB_COND_NOT) */
    struct mb_cond_node *args[2];
} mb_cond_node;

/** The guard of a branch as the original computed it. */
typedef struct mb_cond_model {
    int exact;              /**< every comparison is of integers with exact affine operands */
    int negate;             /**< the branch is taken when the expression is false (@!p) */
    const mb_cond_node *expr;
} mb_cond_model;

/** Writes a condition as text: "or(ge.s32(16*ctaid.y + tid.y, 100), ...)". */
void mb_cond_format(const mb_cond_model *m, mb_buf *out);

typedef struct mb_sprof_branch {
    uint32_t insn;
    int line, block;
    uint64_t warp_execs, taken, not_taken, diverged;
    double divergence_fraction;
    const char *condition;  /**< "uniform", "thread/cta id", "data-dependent" */
    int cta_relative;       /**< condition_sources has "thread id" but not "cta id" */
    int reads_loop_counter; /**< condition_sources has "loop counter" */
    const mb_cond_model *model; /**< condition_model, NULL when the profile has none */
} mb_sprof_branch;

/** One step of an indexed address: an integer cvt, or mul/shl/and by an immediate. */
typedef struct mb_sprof_index_op {
    const char *op;         /**< "mul.wide.u16", "shl.b32", "cvt.u64.u32", ... */
    int has_imm;
    int64_t imm;
} mb_sprof_index_op;

/** An address indexed by a loaded value (profile "index"): the start of
 *  `variable` + offset + ops applied to what instruction `load` loaded. */
typedef struct mb_sprof_index {
    int64_t load;           /**< the load's instruction; -1: the address has no index */
    size_t nops;
    mb_sprof_index_op *ops;
    const char *variable;
    int64_t offset;
} mb_sprof_index;

typedef struct mb_sprof_mem {
    uint32_t insn;
    int line;
    const char *op;         /**< chain token, e.g. "ld.f32" */
    const char *space;      /**< "global", "shared", "local", "const" */
    uint32_t width, vector;
    uint64_t requests, thread_accesses, footprint_lines;
    mb_hist sectors, lines, bank_conflicts, lane_stride, reuse_log2;
    mb_hist bank_cycles_cc1x; /**< shared: half-warp degrees on 16 banks, summed (may be empty) */
    mb_hist addresses;      /**< const: distinct addresses per request (may be empty) */
    const char *base_kind;  /**< "parameter", "global", "shared", "local", "unknown", "multiple" */
    int base_index;         /**< parameter index, -1 otherwise */
    const char *base_name;
    mb_affine affine;
    mb_sprof_index index;
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
    size_t nparams, nvars, nfuncs, ninputs;
    mb_sprof_param *params;
    mb_sprof_input *inputs;   /**< empty in profiles that recorded none */
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
 * ratio of reduced to original mean trip counts (trip' = max(1, floor(t/r)),
 * except that a loop whose warps all mix trip counts keeps its spread;
 * docs/synth.md, "Loops and the reduction factor").
 */
double mb_sprof_expected_ecount(const mb_sprof *a, int block, double r);

/**
 * The same for block `b` of function `func` of `a` (0 the kernel): a called
 * function's blocks are scaled first by the ratio of expected to original
 * calls (its call sites' blocks scaled as above), then by its own loops.
 */
double mb_sprof_expected_ecount_in(const mb_sprof *a, size_t func, int block, double r);

/* ---------------------------------------------------------- clone model */

/** The divergence cases of MiniBench section 4.2.2 a clone branch reproduces. */
typedef enum mb_clone_case {
#define MB_CLONE_CASE(id, name, paper) id,
#include <minibench/synth_cases.def>
#undef MB_CLONE_CASE
    MB_CLONE_CASE_COUNT
} mb_clone_case;

/** Short name ("outside-loop first N") and paper reference ("4.2.2 outside-loop"). */
const char *mb_clone_case_name(mb_clone_case c);
const char *mb_clone_case_paper(mb_clone_case c);

/** How a clone branch decides (docs/synth.md). */
typedef enum mb_clone_rule {
    MB_RULE_CONST,     /**< always one way */
    MB_RULE_KEY,       /**< key_P(thread) < threshold: first N threads or a lane pattern */
    MB_RULE_HASH,      /**< (iter * mult + thread hash) < threshold: per-iteration random */
    MB_RULE_LOOP_BACK, /**< jump point: back while iter < trip */
    MB_RULE_LOOP_EXIT, /**< exit once iter >= trip */
    MB_RULE_BOX,       /**< x < box_x and y < box_y: a 2-D first-N (global x, y indices) */
    MB_RULE_COMPARE    /**< the original's comparisons of affine values (`cond`) */
} mb_clone_rule;

/** What README tables call a rule ("key threshold", "the original's comparison"). */
const char *mb_clone_rule_name(mb_clone_rule r);

typedef struct mb_clone_branch {
    int block;
    int line;              /**< the original branch's PTX line */
    mb_clone_case kind;
    mb_clone_rule rule;
    int loop;              /**< the loop whose iteration counter it reads, -1 if none */
    uint32_t lane_period;  /**< P of key_P: 0 = warp-major (global thread order) */
    int cta_relative;      /**< key = ltid * CTAs + cta: the first N threads of every CTA */
    int fine;              /**< lane key with ties broken by warp (exact counts) */
    int reversed;          /**< P = 1: the key is the thread index bit-reversed */
    int halving;           /**< KEY: the threshold halves every iteration of `loop`
                                (threshold >> the original's index, cx_sampled_iter) */
    uint32_t threshold;
    uint32_t hash_mult;
    uint32_t box_x, box_y;
    int true_taken;        /**< the predicate true means the branch is taken */
    int const_taken;       /**< MB_RULE_CONST: taken or not */
    double target_taken;   /**< taken fraction the original had */
    double target_divergence; /**< diverged share of warp executions the original had */
    const mb_cond_model *cond; /**< MB_RULE_COMPARE: the profiled condition (the model's copy) */
} mb_clone_branch;

typedef struct mb_clone_loop {
    int header;
    size_t ntrips;
    uint32_t *trip;        /**< trip values (reduced), ascending thresholds below */
    uint32_t *trip_from;   /**< trip[j] applies to threads with key >= trip_from[j] */
    uint32_t lane_period;
    int reversed;          /**< the thresholds compare the bit-reversed key (cx_rev_key): a
                                small share's lanes are spread one to a warp over some warps,
                                not packed into a few lanes of every warp or of one in P */
    uint32_t span;         /**< > 0: trip = trip[0] + ((key * span) >> shift), a uniform spread */
    uint32_t shift;
    uint32_t stairs;       /**< > 0: the first stairs << stair_shift keys (lanes of one warp in
                                lane_period) run stairs - (key >> stair_shift) iterations
                                more: that warp's exit diverges where the reduced trips
                                alone would not split it (docs/synth.md) */
    uint32_t stair_shift;
    uint32_t cycle;        /**< > 0: trip = max(1, (trip[0] + i mod cycle) / R), i the thread
                                index (in the CTA when cycle_in_cta, else global): every warp
                                holds every value, trip[0] and cycle as profiled */
    int cycle_in_cta;
    uint32_t cycle_bits;   /**< > 0 with cycle: trip = field (i mod cycle) of cycle_table, fields
                                cycle_bits wide from bit 0, values the host run chose so that
                                the exit keeps the original's divergence where the floors
                                above cannot (docs/synth.md) */
    uint32_t cycle_table;
    int controller;        /**< block whose branch governs the trip count, -1 if none */
    int outer;             /**< >= 0: the trip follows this enclosing loop's iteration
                                (the key is its counter), not the thread */
    uint32_t iter_stride;  /**< compared loop indices: iteration j of CTA c stands for the
                                original's (j * iter_stride + (c + iter_phase) mod iter_stride)
                                / iter_div */
    uint32_t iter_div;     /**< 1, or the clone's trip n where iter_stride is the original's
                                trip N and n does not divide N: a halving loop's iterations
                                spread over all N of the original's (docs/synth.md) */
    uint32_t iter_phase;   /**< < iter_stride: the offset whose sampled iterations meet the
                                original's block counts in the loop best (the builder's
                                host run chooses it) */
} mb_clone_loop;

/** A cycled loop's trip at field `at` (the thread index mod cycle) of its
 *  table (cycle_bits > 0); 0 past the table's 32 bits. */
uint32_t mb_clone_cycle_trip(const mb_clone_loop *l, uint32_t at);

/** One instruction of the clone, already in PTX syntax pieces. */
typedef struct mb_clone_insn {
    const char *guard;     /**< "@%p1", "@!%p1" or NULL */
    const char *op;        /**< mnemonic with modifiers and types, e.g. "mad.lo.s32" */
    const char *operands;  /**< operand text, "" when none */
    int synthetic;         /**< added by the model (not one of the original's chain slots) */
} mb_clone_insn;

typedef struct mb_clone_block {
    const char *label;
    size_t ninsns;
    mb_clone_insn *insns;
} mb_clone_block;

/** A shared, global, const or local array of the clone. */
typedef struct mb_clone_array {
    const char *name, *space;
    uint64_t bytes;        /**< 0 with is_extern: the launch's dynamic shared memory */
    int is_extern;
    uint32_t align;
    int64_t source_offset; /**< a function-level shared array: its offset in the original's shared
                                window (where its addresses were profiled); -1 otherwise */
} mb_clone_array;

/** A buffer of the original's input, which the clone runs on. */
typedef struct mb_clone_input {
    const char *buffer;    /**< the original's buffer name */
    const char *file;      /**< its file in the clone directory: "input<k>.bin" */
    const char *source;    /**< the profile's file it comes from, an absolute path */
    uint64_t bytes, fnv1a64;
} mb_clone_input;

/** A load whose values index shared accesses and that reads a window of its
 *  input further on than the original's threads did at the same iterations:
 *  there the data give those accesses the profiled bank conflicts. */
typedef struct mb_clone_window {
    int line;              /**< the load's PTX line */
    const char *buffer;    /**< the buffer it reads */
    uint64_t shift;        /**< bytes further on, a multiple of 128 */
    double tv;             /**< largest total variation distance of the indexed
                                accesses' bank-conflict distributions, as computed */
} mb_clone_window;

typedef struct mb_clone_param {
    const char *name, *type;
    uint32_t bytes;
    int is_pointer;
    const char *buffer;
    uint64_t buffer_bytes, offset;
    const mb_clone_input *input; /**< the buffer's contents; NULL: seeded bytes (no recorded input) */
    const char *value;     /**< scalar value as JSON text */
} mb_clone_param;

/** Register classes of the clone, in declaration order. */
enum { MB_REG_PRED, MB_REG_B16, MB_REG_B32, MB_REG_B64, MB_REG_F32, MB_REG_F64, MB_REG_CLASSES };

typedef struct mb_clone_model mb_clone_model;

/** A call-site argument or result: a `.param` variable of the caller. */
typedef struct mb_clone_call_param {
    const char *name;      /**< e.g. "_call0_param0": call site 0, argument 0 */
    const char *type;      /**< PTX type without the dot, e.g. "b32" */
} mb_clone_call_param;

struct mb_clone_model {
    const char *kernel, *source;
    double reduction;      /**< 0 means max */
    uint64_t seed;
    uint32_t grid[3], block[3];
    uint64_t dynamic_shared;
    size_t nparams, narrays, nblocks, nbranches, nloops, ninputs;
    mb_clone_param *params;
    mb_clone_input *inputs;
    mb_clone_array *arrays;
    mb_clone_block *blocks;
    mb_clone_branch *branches;
    mb_clone_loop *loops;
    uint32_t nregs[MB_REG_CLASSES];
    double *expected_ecount;       /**< per block, from the model's own simulation */
    uint64_t expected_thread_insts;
    uint64_t original_thread_insts;
    size_t synthetic_insns, chain_insns; /**< static counts, for the README */
    size_t dropped_fillers;              /**< chain fillers synthetic instructions replaced */
    size_t nwindows;
    mb_clone_window *windows;            /**< shifted input windows, for the README */
    /* calls: the kernel's model holds its called functions, each a model of
     * its own (`kernel` is the function's name, `params` its arguments) whose
     * blocks become a .func; the kernel declares the .param variables its
     * call sites pass. */
    size_t nfuncs;
    mb_clone_model *funcs;
    const char *ret_type;  /**< a called function's return .param type ("b32"), NULL for none */
    size_t ncall_params;   /**< the kernel's .param variables of its call sites, each site's */
    mb_clone_call_param *call_params; /**< arguments then result, site after site */
    mb_arena *arena;       /**< NULL in a called function's model (the kernel's arena holds it) */
};

/**
 * Builds the clone model of profile `p` at reduction `reduction` (>= 1, or
 * 0 for max) with PRNG seed `seed`. Calls to one device function are kept
 * (the function is cloned as a .func). Fails with MB_ERR_UNSUPPORTED naming
 * the kernel, function, block and instruction when the kernel uses something
 * the model does not reproduce (several called functions, recursion, memory
 * accesses in a called function, indirect branches, unknown opcodes).
 * The profile's recorded input becomes the clone's: each file must be
 * there with the size and checksum the profile lists (MB_ERR_IO or
 * MB_ERR_INVALID naming the file otherwise).
 */
mb_status mb_clone_build(const mb_sprof *p, double reduction, uint64_t seed, mb_clone_model **out,
                         mb_error *err);

void mb_clone_free(mb_clone_model *m);

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_SYNTH_H */
