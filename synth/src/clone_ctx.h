/* The clone builder's working state, shared by the clone_*.c sources. */
#ifndef MB_CLONE_CTX_H
#define MB_CLONE_CTX_H

#include "synth_internal.h"

#include <stdint.h>

/* Golden-ratio multiplier of the per-thread and per-warp hashes: the host
 * model computes with the first, the PTX's signed immediate is the second. */
#define HASH_BASE_MULT UINT32_C(0x9E3779B1)
#define HASH_BASE_MULT_S32 "-1640531535"

/* An instruction the model needs: op, operands, and its chain token for
 * matching against the original's filler slots. */
typedef struct need {
    const char *op, *operands, *token;
    int uncovered;          /* inserted, and no filler dropped for it */
    int reads_compared;     /* a constant predicate whose %f_in/%fd_in operand becomes the
                               value the original's comparison read, once every slot has
                               its register (clone_insns.c, compared_values) */
    int drop_block;         /* else the filler it dropped: block and slot */
    size_t drop_slot;
} need;

/* A run of needs that must execute in order before slot `deadline`. */
typedef struct need_seq {
    need *items;
    size_t n, cap;
    size_t deadline;
    size_t min_start;       /* first slot it may use (after readers of old values) */
    int independent;        /* needs nothing the block's earlier sequences compute */
} need_seq;

/* SLOT_DROPPED: a filler whose place an inserted need took (not emitted);
 * SLOT_PARAM: a .param store or load of a call or a return (clone_calls.c) */
enum { SLOT_FILLER, SLOT_ASSIGNED, SLOT_MEM, SLOT_BRANCH, SLOT_TERM, SLOT_DROPPED, SLOT_PARAM };

typedef struct slot {
    const char *token;
    int role;
    int mem;                /* memory record index for SLOT_MEM */
    const char *guard, *op, *operands;
    int dest_class;         /* register class written, -1 if none */
    const char *dest;       /* register written */
    const char *psym;       /* SLOT_PARAM: the .param variable it stores or loads */
    int parg;               /* SLOT_PARAM of a call site: the argument it stores, -1 the result */
    /* SLOT_MEM stores, red and atom: the operands before and after the values,
     * and the values' class; the values are read from the recorded producers
     * once every slot has its register (cx_memory_values) */
    const char *val_before, *val_after;
    int val_class;
    uint32_t nvals;
    int filler;             /* made by cx_filler: its value is the model's to choose */
    int reads_compared;     /* assigned a need with reads_compared */
    /* instructions inserted before this slot */
    need *ins;
    size_t nins, ins_cap;
} slot;

enum { TERM_NONE, TERM_BRA, TERM_RET };

typedef struct blk {
    slot *slots;
    size_t nslots;          /* chain length; slots[nslots] collects end insertions */
    int term;               /* TERM_* of the last chain instruction */
    int cond;               /* has a conditional branch record */
    int branch;             /* index into model->branches, -1 */
    int fall, taken;        /* successors: fall-through and branch target (-1 none) */
    int nsucc;
    int succ[2];
    need_seq *seqs;         /* sequences in placement order */
    size_t nseqs, seqs_cap;
    int idom;
    uint32_t ncalls;        /* calls in the block */
} blk;

/* A value computed once per thread (or per loop activation) and placed at
 * the dominator of its users, hoisted out of loops. */
typedef struct memplan {
    int kind;               /* PLAN_* */
    int mem;                /* memory record */
    int array;              /* clone array for shared/local/global variables, -1 */
    int param;              /* pointer parameter, -1 */
    const char *tbase;      /* thread base address register (b64 or b32) */
    int is64;
    int64_t offset;         /* immediate offset in the address operand */
    size_t nloop_terms;
    int loop_term_loop[8];
    int64_t loop_term_coef[8];
    int64_t lo, hi;         /* simulated absolute address range (affine) */
    uint64_t wrap;          /* PLAN_WRAP: the thread part's modulus in bytes */
    int64_t wrap_add;       /* PLAN_WRAP: added before the modulus */
    int seen;
    /* PLAN_QUOTA (clone_quota.c): the lanes' thresholds, one field per lane
     * rank of window qwin, compared with the request position of register
     * qpos (0: one per thread, 1 + l: advanced by loop l); qshare: the
     * access of the same block whose address it reuses (-1: its own);
     * qbank: a shared access whose requests take the profiled bank-conflict
     * degrees instead of sectors; qrows: its array's 32-word rows (at most
     * 32), the highest degree its lanes can pile on one bank */
    uint64_t qimm;
    int qwin, qpos, qshare, qbank;
    uint32_t qrows;
    /* bank: the lane's scale (its own word or its bank-0 row) selected
     * per request and the address made there, one instruction more per
     * request and two less per thread, taken where a thread makes at most
     * one request on average */
    int qindex;
    /* local: how many classes of 8-lane groups have words of their own
     * (cx_quota_word); the groups of a class share words, and so lines,
     * as the original's lanes did when they read the same counter (0 or 4:
     * every lane's words its own) */
    int qclasses;
    const char *qthr;       /* the thresholds' register (loops: once per thread) */
    const char *qaddr;      /* the address the request's lanes use */
    /* PLAN_PATTERN outside local and shared memory (clone_spread.c): the
     * lanes the sector spread covers (0: the whole warp, else a power of
     * two, the lane masked to it), the constant added to the warps'
     * hash, and the words per sector (0 or 1: one; constant loads, whose
     * distinct words cost a cycle each, spread over up to 8) */
    uint32_t swin, sadd, swords;
    /* PLAN_INDEX (clone_memory.c): the memory record of the load whose
     * value indexes the address, and the earlier access of the block with
     * the same index whose address register (ixaddr) it reuses (-1: none) */
    int ixload, ixshare;
    const char *ixaddr;
    /* an index the load could make but whose distribution a sample of
     * the clone's size was not expected to keep: the load's record, for
     * cx_index_by_data to decide with the clone's own requests (-1: none) */
    int ixcand;
    /* PLAN_STEP (clone_steps.c): a tree step's shared access whose lane
     * stride doubles every iteration of loop sloop, from sstride bytes:
     * the address is the array's start plus sstride * (ltid << iteration).
     * stepcand: the loop, before cx_steps_by_requests decides (-1: none);
     * sltid: the thread index register; saddr: the address made in its
     * block, which the block's later steps of the same form reuse */
    int sloop, stepcand;
    uint32_t sstride;
    const char *sltid, *saddr;
} memplan;

/* PLAN_WRAP: affine, but the thread part wrapped (mod wrap) so that the clone's
 * threads, which are not the original's, stay inside the buffer; PLAN_QUOTA:
 * a non-affine local access whose requests touch the profiled numbers of
 * sectors, or a non-affine shared one whose requests take the profiled
 * bank-conflict degrees (clone_quota.c); PLAN_INDEX: a shared or local
 * access indexed by a value its block loads from an input buffer, made the
 * way the original made it (the profile's "index") */
enum { PLAN_AFFINE, PLAN_PATTERN, PLAN_WRAP, PLAN_QUOTA, PLAN_INDEX, PLAN_STEP };

/* A request position register of PLAN_QUOTA accesses: the request index
 * i = warp + J * warps (J: iterations of its loop the thread finished, or,
 * with `block` set, the times it ran that block, which holds every access
 * of the register) scrambled as x = (i * mul + add) mod 2^bits, kept in
 * the top bits of a b64 register; a loop advances it by `step`, where its
 * iterations end or after the accesses of `block`. */
typedef struct quota_pos {
    int bits;               /* 0: unused */
    int block;              /* -1: advanced where the loop's iterations end */
    uint32_t mul, add, step;
    /* counter: the bank accesses of a loop no loop encloses, whose positions
     * are warp * span + J in order (span: the most iterations a request
     * index needs), compared as the loop's counter J against a per-thread
     * threshold in iterations: no position register */
    int counter;
    uint32_t span;
} quota_pos;

/* A lane-threshold window: tables of `bits`-bit fields for the levels
 * lo..hi (a full warp's sector counts, rank r is level r + 5; or, bank, its
 * bank-conflict degrees, rank r is level r + 2, lo = level0, the level of
 * rank 0) and, when hi is below 32 (not bank: there higher ranks read zeros,
 * which never move a lane), one more field that every higher rank reads
 * (never used). */
typedef struct quota_win {
    int bits, lo, hi, level0, bank;
} quota_win;

/* The lanes of a bank quota (clone_quota.c): lane l's words are word l and
 * row l of bank 0 (the conflicts piled into the first half-warp), or word
 * and row l mod 16, lane l + 16 moving with lane l (both halves alike). */
enum { QLAYOUT_PILED = 0, QLAYOUT_HALVES };

typedef struct ctx {
    const mb_sprof *p;
    const mb_sprof_func *f;
    mb_clone_model *m;
    mb_error *err;
    mb_arena *A;
    size_t nb;
    blk *b;
    size_t nloops;
    unsigned char **in_loop;  /* in_loop[l][block] */
    unsigned char **latch;    /* latch[l][block]: the block has a back edge to l's header */
    int *loop_of_header;      /* block -> loop whose header it is, -1 */
    /* threads */
    uint32_t nthreads, tpc, wpc;
    const uint32_t *weight;   /* per thread: runs of the function (calls), NULL: once */
    uint32_t *kf;             /* per thread: warp-major key (gwarp * 32 + lane) */
    uint32_t *gtid;           /* per thread: global thread index, equation (1) */
    uint32_t *ckey;           /* per thread: ltid * CTAs + cta (CTA-relative order) */
    uint32_t *gx, *gy;        /* per thread: global x and y indices ctaid * scale + tid */
    uint32_t box_scale[2];    /* the boxes' CTA scale in x and y */
    struct {
        int dim;
        int64_t scale;
        const char *reg;
    } gxy[8];                 /* ctaid * scale + tid registers already made */
    size_t ngxy;
    int need_kf;              /* some key, trip or address uses the lane structure */
    uint32_t *tid[3], *cta[3];
    /* registers of the per-thread values */
    const char *r_kf, *r_gtid, *r_ckey, *r_hash, *r_ltid, *r_cta, *r_coord[6];
    const char *r_key[32];    /* lane keys kf & (P*32-1), per log2(P)+1 */
    const char *r_fkey[32];   /* fine keys: lane key * warps/P + warp / P */
    const char **r_iter, **r_trip, **r_pbase, **r_gbase;
    /* per loop: its counter holds 2^iterations (a tree's step, doubled where
     * an iteration ends) instead of the iterations (clone_insns.c) */
    unsigned char *doubling;
    /* per loop: its counter holds j N + the CTA's phase (spread_ok) */
    unsigned char *spread;
    /* per spread loop: its halving branches compare the counter with a
     * per-thread bound (spread_limit_ok) */
    unsigned char *spread_limit;
    uint64_t rng;
    int dep_block;            /* the filler whose recorded producers source() hands out */
    size_t dep_slot;
    uint32_t dep_used;        /* its producers already used, by position */
    uint32_t dep_in_used;     /* its registers from outside the block already used */
    int dep_pending;          /* a producer outside the block has no register yet */
    int join_loads;           /* set by cx_value_producer: a load on a branch writes the value's register */
    int refill;               /* fillers made again keep their registers */
    memplan *plans;           /* one per memory record */
    int64_t *param_start;     /* estimated buffer start per parameter */
    uint32_t reduce_num;      /* reduction factor, 0 = max */
    struct {
        char key[256];
        const char *reg;
    } offsets[64];            /* thread offsets already computed, by block and terms */
    size_t noffsets;
    struct {
        const char *reg, *parent;
        int loop, is64;
        int64_t coef;
        uint32_t stride;      /* iterations one clone iteration advances (0: 1) */
    } inductions[256];        /* per-iteration address registers (induction variables); one
                                 with a stride starts at parent + coef * (cta mod stride) */
    size_t ninductions;
    struct {
        int block;
        const char *parent, *offset, *reg;
    } loop_sums[64];          /* parent + a loop offset, made before a block's accesses */
    size_t nloop_sums;
    struct {
        char key[40];
        int block;
        const char *reg;
    } vals[512];              /* per-thread values made so far (coordinates, keys), by block */
    size_t nvals;
    int cur_block;            /* the block whose instructions are being built */
    struct {
        char key[40];
        int block;
    } wants[512];             /* per value: the common dominator of the blocks that use it */
    size_t nwants;
    int saved_block[16];      /* cur_block while a value is made elsewhere */
    size_t nsaved;
    struct {
        int64_t constant, coef[6];
        int is64;
    } tparts[64];             /* thread parts of compared values ("tp<i>" values) */
    size_t ntparts;
    size_t nunshared;         /* thread parts made beyond the table, each its own key */
    struct {
        uint32_t insn;        /* the original's setp */
        int block;
        const char *reg;
    } leaves[128];            /* comparisons made so far: reused where their block dominates */
    size_t nleaves;
    /* a called function's per-thread trip count passed as an argument
     * (clone_calls.c), computed once in the kernel instead of in every call */
    const mb_clone_loop *arg_trip; /* kernel: the callee's loop whose trip it passes */
    uint32_t arg_trip_adj;    /* kernel: subtracted, as the callee's exit test expects */
    int arg_trip_index;       /* both: the argument carrying it, -1: none */
    int arg_trip_loop;        /* callee: the loop whose trip count the argument holds */
    int oom;                  /* a lazily created value ran out of memory */
    quota_pos *qpos;          /* PLAN_QUOTA positions: [0] per thread, [1 + l] loop l */
    quota_win qwin[64];
    int qlayout;               /* QLAYOUT_*: every bank quota's lanes */
    size_t nqwin;
} ctx;

/* clone_util.c */
const char *cx_fmt(ctx *c, const char *fmt, ...) MB_PRINTF(2, 3);
const char *cx_reg(ctx *c, int cls);
const char *cx_token_of(ctx *c, const char *op);
/* Splits operand text into exactly `want` operands as cx_operand finds them
 * (f[i], len[i], trimmed); 0 when it has another count. */
int cx_split_operands(const char *ops, const char **f, size_t *len, size_t want);
/* Operand n (0: the destination) of operand text, where commas inside
 * brackets and braces do not split: its start and, trimmed, its length;
 * NULL when there are fewer. */
const char *cx_operand(const char *ops, size_t n, size_t *len);
/* The decimal immediate p (len characters) into v; 0 when it is not one or
 * exceeds 32 bits. */
int cx_parse_decimal(const char *p, size_t len, uint32_t *v);
/* k when the decimal immediate p (len characters) is 2^k with k >= 1, else -1. */
int cx_pow2_exponent(const char *p, size_t len);
/* Whether block a dominates block b (every block dominates itself). */
int cx_dominates(const ctx *c, int a, int b);
int cx_class_of_type(const char *type);

/* A step of an indexed address (clone_memory.c): an integer cvt, mul.wide,
 * mul.lo, shl or and, with the widths and register classes it reads and
 * writes; cx_index_step returns 0 for any other op text. */
typedef struct index_step {
    unsigned src_bits, dst_bits;
    int src_class, dst_class, src_signed;
    int is_cvt, is_and, is_shl;
} index_step;
int cx_index_step(const char *op, index_step *st);
uint64_t cx_rand(ctx *c);
mb_status cx_nomem(ctx *c);
mb_status cx_seq_add(ctx *c, need_seq *s, const char *op, const char *operands);
need_seq *cx_block_seq(ctx *c, int block, size_t deadline);
int cx_block_loop(const ctx *c, int block);
/* The block holding memory record `mem` (0 when none does) */
int cx_mem_block(const ctx *c, int mem);
/* Affine variables: tid.x..ctaid.z as dimension 0-5, iter.loopN as N (-1: not one) */
int cx_var_dim(const char *var, int *dim);
int cx_var_loop(const char *var);
/* An affine model's value for thread t at iterations iter[] (finished
 * iterations of each loop; `sampled`: the original's indices they stand
 * for, cx_sampled_iter), in wrapping 64-bit arithmetic */
int64_t cx_affine_eval(const ctx *c, const mb_affine *a, uint32_t t, const uint32_t *iter, int sampled);

/* clone_control.c */
mb_status cx_classify(ctx *c);
uint32_t cx_key(const ctx *c, uint32_t t, uint32_t period);
uint32_t cx_fine_key(const ctx *c, uint32_t t, uint32_t period);
uint32_t cx_rev_key(const ctx *c, uint32_t t, uint32_t period);
uint32_t cx_rev_fine_key(const ctx *c, uint32_t t, uint32_t period);
uint32_t cx_cta_key(const ctx *c, uint32_t t, uint32_t period);
uint32_t cx_branch_key(const ctx *c, uint32_t t, const mb_clone_branch *br);
/* The threshold a KEY branch compares with: halved by the original's
 * iteration index when br->halving (shifts clamped to 32, as shr does) */
uint32_t cx_halved(const mb_clone_branch *br, uint32_t shift);
uint32_t cx_branch_limit(const ctx *c, const mb_clone_branch *br, uint32_t t, const uint32_t *iter);
uint32_t cx_trip(const ctx *c, int loop, uint32_t t, const uint32_t *iter);
/* Whether threads' trip counts of a clone loop differ (a register holds them). */
int cx_trip_varies(const mb_clone_loop *l);
/* Comparisons the original made: the width the clone compares in (32 or
 * 64; 0 for types it does not make), the setp type it uses, the comparison
 * with its operands swapped, and the value of a condition for thread t */
int cx_cmp_bits(const char *type);
const char *cx_cmp_type(const char *type);
const char *cx_cmp_swapped(const char *cmp);
int cx_cond_eval(const ctx *c, const mb_cond_model *m, uint32_t t, const uint32_t *iter);
uint32_t cx_sampled_iter(const ctx *c, int l, uint32_t t, uint32_t iter);

/* clone_sim.c */
typedef struct sim_watch {
    int branch_block;         /* count executions of this block's branch per thread */
    uint64_t *per_thread;
    uint32_t *hashes;         /* hash values of those executions (HASH rule) */
    size_t nhashes, hashes_cap;
    int loop;                 /* count activations of this loop per thread */
    uint64_t *activations;
    int ranges;               /* record memplan address ranges */
    uint64_t *calls;          /* count calls made per thread */
    /* called for every block a thread enters, before its loop counters
     * advance; runs[b]: the thread's earlier runs of block b (this one not
     * yet counted) */
    void (*visit)(ctx *c, void *arg, uint32_t t, int block, const uint32_t *runs);
    /* called (with visit_arg) before a thread's first block, and after the
     * last thread of a warp (kf >> 5; a warp's threads are consecutive) */
    void (*thread_begin)(ctx *c, void *arg, uint32_t t);
    void (*warp_end)(ctx *c, void *arg, uint32_t warp);
    void *visit_arg;
    /* set by cx_simulate while it runs: the current thread's finished
     * iterations of each loop, as cx_affine_eval reads them */
    const uint32_t *iter;
    /* record the watched branch's executions with their iteration, from
     * which a halving threshold's shift follows at any phase (KEY branches
     * that keep their loop) */
    struct sim_exec *execs;
    size_t nexecs, execs_cap;
} sim_watch;
typedef struct sim_exec {
    uint32_t t, iter, weight; /* iter: the thread's finished iterations of the branch's loop */
} sim_exec;
mb_status cx_simulate(ctx *c, sim_watch *w, double *ecount);
/* Whether a condition model compares a value with a term in loop l. */
int cx_cond_reads_loop(const mb_cond_node *n, int l);
/* A watch that counts nothing and only calls its visitors (thread_begin
 * and warp_end may be NULL) with arg. */
static inline sim_watch cx_visiting(void (*visit)(ctx *, void *, uint32_t, int, const uint32_t *),
                                    void (*thread_begin)(ctx *, void *, uint32_t),
                                    void (*warp_end)(ctx *, void *, uint32_t), void *arg)
{
    sim_watch w = {.branch_block = -1,
                   .loop = -1,
                   .visit = visit,
                   .thread_begin = thread_begin,
                   .warp_end = warp_end,
                   .visit_arg = arg};
    return w;
}
mb_status cx_calibrate(ctx *c);
/* Reverse post-order of the reachable blocks from the entry; n gets their count. */
mb_status cx_rpo(ctx *c, int *order, size_t *n);

/* clone_memory.c */
mb_status cx_plan_memory(ctx *c);
/* clone_inputs.c: the model's inputs from the profile's (files checked) */
mb_status cx_model_inputs(ctx *c);
mb_status cx_finish_memory(ctx *c);
/* clone_requests.c: the requests the clone will make at `block` (a warp's
 * lanes that run it for the k-th time together) with lane(t, iter) for each
 * active lane, listed by a host run; more than `max` requests lists max + 1
 * (the caller frees *req) */
typedef struct cx_request {
    uint32_t mask;
    int64_t v[32];
} cx_request;
typedef int64_t (*cx_lane_value)(ctx *c, void *arg, uint32_t t, const uint32_t *iter);
mb_status cx_list_requests(ctx *c, int block, cx_lane_value lane, void *arg, size_t max, cx_request **req,
                           size_t *n);
/* The bank-conflict degree of a request whose active lanes (mask) access
 * `width` bytes at addr[lane]: the most distinct 4-byte words of 32 banks. */
unsigned cx_bank_degree(const uint64_t *addr, uint32_t mask, uint32_t width);
/* Total variation distance between counts by value (count[v], v < n, any
 * weights) and a profiled distribution; 0 when either is empty. */
double cx_counts_tv(const double *count, size_t n, const mb_hist *h);
/* The distance n computed requests may keep from the profiled h: half
 * compare's tolerance (the rest is margin for what the host run does not
 * see), or as near as n requests can come; below 0 when h is empty. */
#define CX_DEGREE_TOLERANCE_SHARE 0.5
double cx_degree_bound(const ctx *c, const mb_hist *h, size_t n);

/* clone_index_data.c: the ixcand accesses whose requests, as the clone
 * will make them from its input, keep the profiled distribution become
 * PLAN_INDEX (after the calibration and the affine starts) */
mb_status cx_index_by_data(ctx *c);
/* clone_memory.c: access i indexed by load record k (PLAN_INDEX) */
void cx_make_index_plan(ctx *c, size_t i, size_t k);
/* clone_memory.c: bytes an access may reach past its region's start */
uint64_t cx_region_bytes(const ctx *c, const memplan *pl);
/* clone_steps.c: marks the shared accesses whose profiled lane strides
 * double iteration by iteration (stepcand), before the calibration; after
 * it, those whose requests keep the profiled bank conflicts become
 * PLAN_STEP */
void cx_step_candidates(ctx *c);
mb_status cx_steps_by_requests(ctx *c);

/* clone_spread.c: the window and hash constant of each sector spread,
 * from the model's requests (after the calibration) */
mb_status cx_plan_spreads(ctx *c);
/* log2 of a spread's window (memplan.swin): 5 for the whole warp (0) */
unsigned cx_spread_window_log2(uint32_t swin);

/* clone_insns.c: a distribution's values, clamped to [1, cap], with their
 * cumulative shares (at most four) */
size_t cx_draw_values(const mb_hist *h, uint32_t cap, uint32_t val[4], double share[4]);

/* clone_share.c: drops the inserted instructions that stood for no filler
 * and repeat an earlier value of their block; their readers read that one */
mb_status cx_share_values(ctx *c);

/* clone_quota.c: the thresholds of PLAN_QUOTA accesses, from the model's
 * requests (after the calibration) */
mb_status cx_plan_quotas(ctx *c);
/* The shift that brings rank `rank`'s field of a window's table to the top
 * (64 or more: the rank is below the window and always uses its own word). */
int32_t cx_quota_shift(const quota_win *W, int rank);
/* The frame word a local quota access's lane l reads with `classes` word
 * classes (memplan.qclasses): its own word, or its group's common word (its
 * own word | 7). 4 (or 0): the lane; 3: groups 2 and 3 share
 * (min(l, 16 + l % 8)); 2: groups 0 and 2, 1 and 3 (l & 15); 1: all four
 * (l & 7, common word 7). */
static inline uint32_t cx_quota_word(uint32_t l, int classes, int common)
{
    uint32_t w = classes == 1 ? (l & 7) : classes == 2 ? (l & 15) : classes == 3 && l >= 24 ? l - 8 : l;
    return common ? w | 7 : w;
}

/* clone_calls.c: which chain slots of a kernel and its called function
 * pass arguments and results, and the functions without those accesses */
typedef struct call_plan {
    const mb_sprof_func *callee;  /* the called function, NULL when the kernel calls none */
    size_t nargs;
    const char **arg_type;        /* .param types of the arguments ("b32") */
    const char *ret_type;         /* NULL: no result */
    mb_sprof_func kernel, func;   /* the kernel and the callee without their .param accesses */
    mb_sprof_param *func_params;  /* the callee's arguments, as parameters */
} call_plan;
mb_status cx_calls_plan(const mb_sprof *p, mb_arena *A, call_plan *cp, mb_error *err);
mb_status cx_calls_mark(ctx *c, const call_plan *cp);
/* After the callee's model: when one of its loops needs a per-thread trip
 * count and an argument can carry it, marks both contexts so that the kernel
 * computes it once per thread and every call receives it. */
void cx_calls_trip_arg(ctx *callee, const call_plan *cp, ctx *kernel);
/* The instruction of a SLOT_PARAM slot: a store of `src` or a load. */
mb_status cx_call_form(ctx *c, slot *s, const char *type, int cls, const char *src);

/* clone_insns.c */
mb_status cx_assemble(ctx *c);
/* Whether loop l's trip count is a per-thread register computed before the loop. */
int cx_trip_register(const ctx *c, int l);
mb_status cx_filler(ctx *c, int block, size_t i, const char *token, slot *s);
/* Makes the fillers at (blocks[j], slots[j]) again, keeping their registers:
 * those that read a producer outside their block that was not made yet
 * (a later block's, or a loop's later instruction) when they were made. */
mb_status cx_refill(ctx *c, const int *blocks, const size_t *slots, size_t n);
/* A register of class `cls` written by a producer the profile recorded for
 * slot i of `block` (each used once), or NULL. */
const char *cx_producer(ctx *c, int block, size_t i, int cls);
/* cx_producer for the value a store, red or atom writes: a load on a branch
 * that the value's register also came from writes the register returned
 * (join_loads in clone_forms.c). After the fillers. */
const char *cx_value_producer(ctx *c, int block, size_t i, int cls);
/* Before the values of store, red or atom slot i of `block` (nvals of them)
 * are read with cx_producer: the producer the profile lists first is the
 * address's when the block made more registers the access reads than it
 * has values; the clone computes its own address, so that one is passed over. */
void cx_skip_address_producer(ctx *c, int block, size_t i, uint32_t nvals);
/* The position among slot i's recorded producers (dependences) of its
 * address's, for a memory access reading nvals values, or -1 when the
 * address was not made in the block or cannot be told from a value's. */
int cx_address_dep(const ctx *c, int block, size_t i, uint32_t nvals);
/* Whether a later ALU or conversion instruction of the block reads slot i's
 * result (the profile's producers) as a register of class `cls`. */
int cx_read_as(const ctx *c, int block, size_t i, int cls);
/* Gives the branch of `block` the calibrated thread-condition rule in place
 * of the original's comparison. */
void cx_key_fallback(ctx *c, int block);

#endif
