/*
 * The profiler's internals: what a profile holds per function, block, edge,
 * loop, branch and memory instruction, shared by the collector
 * (prof_collect.c), the static analyses (prof_static.c), the memory
 * statistics (prof_memory.c) and the JSON writer (prof_json.c).
 */
#ifndef MB_PROF_H
#define MB_PROF_H

#include <minibench/profiler.h>

#include <stdint.h>

/* ------------------------------------------------------------ histograms */

/* Exact histogram of non-negative integer values (value -> count), kept
 * sorted by value when read. Grows as needed; the counts live in the
 * values' allocation (count == value + cap) unless filled by hand. */
#define PROF_HIST_LOCAL 4 /* entries held in the histogram itself */
typedef struct prof_hist {
    uint64_t *value;
    uint64_t *count;
    uint32_t n, cap;
    uint64_t total;   /* sum of counts */
    uint32_t *index;  /* open-addressing index: value -> position + 1 (large histograms) */
    uint32_t index_slots;
    int unsorted;     /* values were appended out of order since the last prof_hist_sort() */
    /* the first PROF_HIST_LOCAL values, then their counts: most histograms
     * (a launch makes thousands) keep a few values and never allocate; a
     * histogram therefore must not be copied while in use */
    uint64_t local[2 * PROF_HIST_LOCAL];
} prof_hist;

int prof_hist_add(prof_hist *h, uint64_t value, uint64_t count); /* 0 when out of memory */
void prof_hist_free(prof_hist *h);
/* 1 when `value` has an entry (possibly with count 0). */
int prof_hist_contains(const prof_hist *h, uint64_t value);
/* Sorts by value: call before reading the arrays. */
void prof_hist_sort(prof_hist *h);
/* Direct counts beside a histogram, for hot paths: direct[i] counts value
 * base + i. When direct[i] first becomes nonzero its value is reserved in
 * h (an entry with count 0), so that moving the counts over never fails.
 * prof_hist_direct_reserve undoes the count when the reservation cannot
 * be made (out of memory: 0), so that the next count retries it. */
int prof_hist_direct_reserve(prof_hist *h, uint64_t *direct, uint64_t i, uint64_t base);
/* Moves the direct counts direct[0..size) into h and clears them. */
void prof_hist_direct_drain(prof_hist *h, uint64_t *direct, uint64_t size, uint64_t base);

/* --------------------------------------------------- static analyses */

/* Where a value comes from (bit set): a union per SSA value (reaching
 * definitions through SSA form; a plain per-register union where SSA is
 * unavailable or over budget), prof_static.c. */
enum {
    SRC_CONST = 1 << 0,  /* literals */
    SRC_TID = 1 << 1,    /* %tid, %laneid, %lanemask_*, %warpid, elect */
    SRC_CTAID = 1 << 2,  /* %ctaid, %nctaid, %ntid, %smid ... (uniform within a CTA) */
    SRC_PARAM = 1 << 3,  /* kernel or function parameters */
    SRC_DATA = 1 << 4,   /* loaded from memory, atomics, shuffles, votes, clocks, call results */
    SRC_LOOP = 1 << 5    /* a loop-carried value (an induction variable) */
};

/* The origin of an address (prof_static.c). */
typedef enum prof_base_kind {
    BASE_UNKNOWN = 0,
    BASE_PARAM,        /* a pointer parameter: index */
    BASE_GLOBAL_VAR,   /* a module .global/.const variable: index */
    BASE_SHARED_VAR,   /* a .shared variable: module (index) or function-level (index | 0x80000000) */
    BASE_LOCAL,        /* the thread's stack or a .local variable */
    BASE_MULTIPLE      /* several bases reach it */
} prof_base_kind;

typedef struct prof_static {
    /* per instruction */
    uint8_t *source;        /* SRC_*: the guard of a guarded terminator (bra, brx plus its index,
                               ret, exit, trap); the address of memory instructions and of
                               anything with an address operand */
    prof_base_kind *base_kind; /* memory instructions; ld/st.param of a kernel parameter i:
                                  BASE_PARAM(i); call parameters and func_retval: BASE_LOCAL */
    uint32_t *base_index;
    /* per block: register def-use distance within the block */
    prof_hist *dep_dist;    /* nblocks histograms: for each instruction and source register
                               defined earlier in the same block, distance = i - j */
    mb_buf *dep_chain;      /* nblocks texts, one word per instruction: the distances of its
                               producers in the block in operand order ("2,5"), "-" for none */
    mb_buf *dep_in;         /* nblocks texts, one word per instruction: for each register it
                               reads that no earlier instruction of its block writes, in operand
                               order, the definitions that can reach it as "block.index", joined
                               by "|", registers joined by ","; "-" for none (empty when the
                               function is too large to say) */
} prof_static;

/* Runs the static analyses of `fn` (its CFG in `cfg`). */
mb_status prof_static_analyse(const mb_module *m, const mb_function *fn, const mb_cfg *cfg,
                              prof_static *out, mb_error *err);
void prof_static_free(prof_static *s, const mb_cfg *cfg);
/* Whether the instruction's operand 0 is a register it writes. */
int prof_first_is_dest(const mb_function *fn, const mb_insn *insn);

/* An address its block computes from a value it loaded (prof_index.c):
 * var's start + offset + f(value), f the chain op_insn[0..nops) of
 * integer conversions and mul, shl and and by immediates. */
#define PROF_INDEX_MAX_OPS 6
typedef struct prof_index {
    uint32_t load;                        /* the load's instruction */
    uint32_t nops;
    uint32_t op_insn[PROF_INDEX_MAX_OPS]; /* in execution order */
    const mb_var *var;                    /* a .shared or .local variable */
    int64_t offset;
} prof_index;

/* 1 when memory instruction `insn` of fn (CFG cfg) has an indexed address. */
int prof_index_find(const mb_module *m, const mb_function *fn, const mb_cfg *cfg, uint32_t insn,
                    prof_index *out);

/* ------------------------------------------------------ memory stats */

/* Everything measured for one static memory instruction (prof_memory.c). */
typedef struct prof_mem prof_mem;

typedef struct prof_mem_config {
    uint32_t banks;       /* shared-memory banks (32) */
    uint32_t bank_bytes;  /* bytes per bank word (4) */
    uint32_t sector_bytes; /* 32 */
    uint32_t line_bytes;  /* 128 */
    uint32_t nfeatures;   /* affine features per lane: see prof_mem_request */
} prof_mem_config;

/* One warp request as the collector sees it, compacted to the lanes that
 * executed the access, in ascending lane order: entry i belongs to lane
 * lane_index[i] (lane_index NULL: entry i is lane i).
 *
 * Affine features, nfeatures per lane: tid.x, tid.y, tid.z, ctaid.x,
 * ctaid.y, ctaid.z, then the 0-based iteration index of each enclosing loop
 * from outermost to innermost. Features that are constant over the whole
 * launch are still passed (they simply never vary). They come in one of two
 * forms (or none: both NULL):
 * - rows: features[i * nfeatures + k] for entry i;
 * - columns: feature_lanes[k] is indexed by warp LANE (not entry), so that
 *   a collector can pass its per-lane tables without copying; a NULL column
 *   means the feature has the same value feature_uniform[k] in every lane.
 *
 * warp_tag (column form only; 0: none) is the warp's index in its CTA plus
 * one. Giving it promises that columns 0-2 hold the same values in every
 * request with that tag, so that a request whose addresses have the shape
 * of one the instruction's affine model already reproduced (in this or an
 * earlier state of the model), and whose other features are all uniform,
 * is checked on its first entry alone.
 *
 * lane_mask (optional, 0: none) is lane_index as a bit mask, which the
 * collector has at hand: given, it must match lane_index (or lanes 0 to
 * lanes - 1 when lane_index is NULL) and spares the request that check. */
typedef struct prof_mem_request {
    uint32_t lanes;            /* number of lanes that executed the access (entries) */
    const uint64_t *addrs;     /* per entry: the state-space address */
    const uint8_t *lane_index; /* per entry: its lane, 0-31, ascending */
    uint32_t access_bytes;     /* bytes per lane (whole vector) */
    mb_space space;            /* resolved space */
    const int64_t *features;   /* row form */
    const int64_t *const *feature_lanes; /* column form */
    const int64_t *feature_uniform;
    uint32_t warp_tag;
    uint32_t lane_mask;
} prof_mem_request;

/* Lane numbers 0 to 31: entry i of a request of consecutive lanes from
 * lane lo is lane lo + i. */
static const uint8_t prof_lane_identity[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                               11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                               22, 23, 24, 25, 26, 27, 28, 29, 30, 31};

/* The lane fields of a request whose addrs are already compacted to the
 * lanes of `executed` (non-zero): lanes, lane_mask and lane_index (NULL for
 * a full warp, prof_lane_identity for consecutive lanes, else filled into
 * `numbers`). Inline: the collector builds one for every memory event. */
static inline void prof_mem_request_lanes(prof_mem_request *req, uint32_t executed,
                                          uint8_t numbers[32])
{
    req->lane_mask = executed;
    if (executed == UINT32_MAX) {
        req->lanes = 32;
        req->lane_index = NULL;
        return;
    }
    req->lanes = (uint32_t)mb_popcount32(executed);
    const uint32_t lo = (uint32_t)__builtin_ctz(executed), run = executed >> lo;
    if ((run & (run + 1)) == 0) { /* consecutive lanes (a wavefront's, a tail's) */
        req->lane_index = prof_lane_identity + lo;
        return;
    }
    uint32_t i = 0;
    for (uint32_t m = executed; m; m &= m - 1)
        numbers[i++] = (uint8_t)__builtin_ctz(m);
    req->lane_index = numbers;
}

/* The request of the lanes of `executed` (non-zero) from a warp's
 * lane-indexed addresses: a full warp's and consecutive lanes' addresses are
 * used in place, others are gathered into `gathered`; then the lane fields
 * as prof_mem_request_lanes sets them. */
static inline void prof_mem_request_gather(prof_mem_request *req, uint32_t executed,
                                           const uint64_t *lane_addrs, uint64_t gathered[32],
                                           uint8_t numbers[32])
{
    const uint32_t lo = (uint32_t)__builtin_ctz(executed), run = executed >> lo;
    if ((run & (run + 1)) == 0) {
        req->addrs = lane_addrs + lo;
    } else {
        uint32_t i = 0;
        for (uint32_t m = executed; m; m &= m - 1)
            gathered[i++] = lane_addrs[__builtin_ctz(m)];
        req->addrs = gathered;
    }
    prof_mem_request_lanes(req, executed, numbers);
}

prof_mem *prof_mem_new(const prof_mem_config *cfg);
/* Accounts one request; returns 0 when out of memory. */
int prof_mem_add(prof_mem *pm, const prof_mem_request *req);
/* 0 once the affine model is refused: later requests may pass features = NULL. */
int prof_mem_needs_features(const prof_mem *pm);
void prof_mem_free(prof_mem *pm);

/* Results, valid after prof_mem_finish(). */
typedef struct prof_mem_result {
    uint64_t requests, thread_accesses;
    mb_space space;                 /* the space seen (MB_SPACE_NONE when mixed) */
    prof_hist sectors;              /* 32-byte sectors per request (compute capability 2.0+) */
    prof_hist lines;                /* 128-byte lines per request (2.0+) */
    prof_hist cc10_transactions;    /* transactions per request under 1.0/1.1 rules (strict half-warp) */
    prof_hist cc12_transactions;    /* transactions per request under 1.2/1.3 rules (shrinking segments) */
    prof_hist bank_degree;          /* shared: bank-conflict degree per request */
    prof_hist bank_cc1x;            /* shared: its half-warps' degrees on 16 banks, summed (1.x rule) */
    prof_hist addresses;            /* const: distinct addresses per request (served one a cycle) */
    int affine;                     /* 1: every address equals the affine model */
    int64_t coef[16];               /* constant term, then one per feature */
    uint32_t ncoef;
    prof_hist lane_stride;          /* address differences between consecutive active lanes (bias 2^62) */
    uint64_t footprint_lines;       /* distinct 128-byte lines touched (exact up to a cap) */
    int footprint_capped;
    prof_hist reuse_log2;           /* reuse distance in requests of this instruction, log2 buckets */
} prof_mem_result;

/* Finalises and returns the results (owned by pm). */
const prof_mem_result *prof_mem_finish(prof_mem *pm);

/* The request shapes an instruction's statistics have learnt (prof_memory.c,
 * "kept shapes"): taken from a finished prof_mem, they let a new prof_mem of
 * the same configuration (the same instruction's in the next profile) skip
 * relearning them; no result depends on them. Taking leaves pm without them
 * (NULL: it has none, or out of memory); giving hands them to a prof_mem
 * that has counted nothing yet, which frees them when it cannot use them. */
typedef struct prof_mem_shapes prof_mem_shapes;
prof_mem_shapes *prof_mem_take_shapes(prof_mem *pm);
void prof_mem_give_shapes(prof_mem *pm, prof_mem_shapes *s);
void prof_mem_shapes_free(prof_mem_shapes *s);

#endif
