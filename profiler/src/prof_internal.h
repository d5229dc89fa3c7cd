/* The profile collector's data (prof_collect.c, prof_json.c). */
#ifndef MB_PROF_INTERNAL_H
#define MB_PROF_INTERNAL_H

#include "prof_cond.h"
#include "prof_relay.h"

enum {
    PROF_MAX_LOOP_FEATURES = 10, /* enclosing loops whose iteration index feeds address models */
    PROF_MAX_ACTIVATIONS = 64    /* per warp and loop: activations compared for differing trips */
};

/* Static facts about one instruction, looked up on every event. */
typedef struct insn_info {
    int32_t block;
    uint8_t block_start; /* first instruction of its block */
    uint8_t cond_branch; /* a guarded bra */
    uint8_t barrier;     /* a CTA barrier (SCount) */
    uint8_t leaves;      /* ret or exit */
    uint8_t mem;         /* touches memory */
    uint8_t cmp_leaf;    /* an integer setp in a branch's condition model: its operands are fitted */
    uint8_t special;     /* any of the above: the instruction needs more than counting */
    uint8_t nloops;      /* enclosing loops used as address features */
    int16_t loops[PROF_MAX_LOOP_FEATURES]; /* outermost first */
} insn_info;

typedef struct branch_stats {
    uint64_t warp_execs;
    uint64_t taken, not_taken; /* threads */
    uint64_t diverged;         /* warp executions where some active lanes took it and some not */
} branch_stats;

typedef struct loop_stats {
    prof_hist trips;                 /* trip count of each thread activation */
    uint64_t activations;            /* thread activations */
    uint64_t warp_activations;       /* (warp, activation number) pairs */
    uint64_t warp_activations_mixed; /* of those, the ones whose lanes had different trip counts */
} loop_stats;

/* What the collector knows about one function before any launch
 * (prof_analysis.c): built once per program, read-only afterwards. */
typedef struct prof_func_static {
    mb_cfg cfg;
    prof_static st;         /* dep_dist sorted */
    int has_static;
    insn_info *info;        /* per instruction */
    uint8_t *special;       /* per instruction: info[i].special, packed for the per-event test */
    /* Per instruction: whether the executor delivers its events (special
     * ones, calls, and the instruction after a call, ret or exit, where the
     * active lanes may change inside a block), and the observed instruction
     * whose active threads it shares (itself when observed; otherwise the
     * closest observed one before it, in its block). */
    uint8_t *observed;
    uint32_t *anchor;
    mb_edge_profile *edges; /* in CFG successor order: from, to and back; counts zero */
    uint32_t nedges;
    uint8_t *loop_member;   /* nloops x nblocks */
    prof_cond_model *conds; /* condition models of the conditional branches that have one */
    int32_t *cond_of;       /* per instruction: its model in conds, or -1 */
    uint8_t *launch_const;  /* per instruction (cmp_leaf): bit k, operand k is a launch constant */
} prof_func_static;

/* The analyses of function `index` of the program's module, built on first
 * use and kept with the program: every profile of the program shares them,
 * so its profiles are created one at a time and freed before it. */
mb_status prof_analysis_get(mb_program *prog, uint32_t index, const prof_func_static **out,
                            mb_error *err);
/* Where the shapes of the memory statistics of instruction `insn` of function
 * `index` wait between profiles of the program (prof_mem_take_shapes); NULL
 * when none can be kept. Valid after prof_analysis_get for that function. */
prof_mem_shapes **prof_analysis_shapes(mb_program *prog, uint32_t index, uint32_t insn);
/* Likewise the traces of the operand models of comparison `insn`
 * (prof_cond_fit_take_traces): two entries. */
aff_trace **prof_analysis_traces(mb_program *prog, uint32_t index, uint32_t insn);

typedef struct func_prof {
    const mb_function *fn;
    uint32_t index;      /* in the module */
    const mb_cfg *cfg;   /* the program's analyses (prof_func_static) */
    const prof_static *st;
    const insn_info *info;
    const uint8_t *special; /* info[i].special, one byte each */
    const uint8_t *observed; /* prof_func_static.observed */
    const uint32_t *anchor;  /* prof_func_static.anchor */
    const uint8_t *loop_member;
    int used;
    uint64_t *insn_threads; /* per instruction: active threads (observed ones; the rest at finish) */
    branch_stats *br;                    /* per instruction (conditional branches) */
    mb_block_profile *blocks;
    mb_edge_profile *edges; /* in CFG successor order */
    uint32_t nedges;
    loop_stats *loops;
    prof_mem **mems;        /* per instruction, created on first execution */
    uint32_t relay_base;    /* its instructions' first slot in the profile's relay */
    const prof_cond_model *conds; /* the program's analyses (prof_func_static) */
    const int32_t *cond_of;
    const uint8_t *launch_const;
    prof_cond_fit **cmps;   /* per instruction (cmp_leaf), created on first execution */
    uint64_t calls;
    mb_func_profile view;
} func_prof;

/* Per warp and function, reset for every CTA. */
typedef struct warp_func {
    uint64_t epoch;
    int touched;
    int last_block[32];    /* per lane: block it last entered in this function (-1: none);
                              stale for the lanes of group_mask */
    int group_block;       /* the lanes of group_mask last entered this block: a converged warp */
    uint32_t group_mask;   /* moves from block to block without touching last_block per lane */
    uint32_t *block_mask;  /* lanes that executed each block */
    uint32_t *edge_mask;   /* lanes that took each edge */
    int64_t *iter;         /* nloops x 32: current 0-based iteration (address features);
                              stale for the lanes of in_loop while iter_uniform */
    uint32_t *in_loop;     /* per loop: lanes inside an activation */
    uint8_t *iter_uniform; /* per loop: every lane in in_loop has iteration iter_value */
    int64_t *iter_value;
    uint32_t *front_mask;  /* per loop: lanes that entered its header together last, all with
                              iteration front_value (0: none known) */
    int64_t *front_value;
    uint32_t *activation;  /* nloops x 32: activations each lane has finished */
    uint32_t *act_min, *act_max; /* nloops x PROF_MAX_ACTIVATIONS: trip range per activation number */
} warp_func;

typedef struct warp_state {
    warp_func **funcs; /* per module function, allocated on first use */
} warp_state;

struct mb_profile {
    const mb_module *module;
    mb_program *prog;
    mb_memory *mem;
    const mb_launch_config *cfg;
    mb_observer observer;
    uint32_t banks, bank_bytes;
    func_prof *funcs;     /* kernel first */
    uint32_t nfuncs;
    uint32_t *func_slot;  /* module function index -> funcs index */
    uint32_t nfuncs_module;
    warp_state *warps;
    uint32_t nwarps;
    prof_relay *relay;    /* NULL: memory requests are counted in the launch's thread */
    relay_slot *relay_slots;
    int64_t *tid_table;   /* per warp: 32 tid.x, 32 tid.y, 32 tid.z, lane-indexed columns */
    uint8_t *tid_uniform; /* per warp and thread-id column: the same in every thread of the warp */
    uint64_t epoch;       /* one per CTA */
    mb_dim3 cta;
    int have_cta;
    const mb_function *last_fn; /* the function of the previous event, and its profile */
    func_prof *last_func;
    int oom;
    int finished;
    mb_exec_stats stats;
    mb_profile_input *inputs; /* prof_inputs.c */
    uint32_t ninputs;
    uint64_t inputs_omitted;
};

mb_status prof_inputs_record(mb_profile *p, mb_error *err);
void prof_inputs_free(mb_profile *p);
/* The input a parameter's pointer value lies in, -1 when none. */
int prof_input_of(const mb_profile *p, uint64_t address);

#endif
