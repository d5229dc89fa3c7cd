/*
 * Models of branch conditions (prof_cond.c): the guard of a conditional
 * bra as an expression tree of comparisons, and for every integer
 * comparison an exact affine model of each operand in the thread ids, CTA
 * ids and loop iterations (the features of memory addresses, prof.h).
 *
 * The tree (docs/formats.md, condition_model): the guard's definition that
 * reaches the branch must be an unguarded setp or and/or/xor/not.pred whose
 * predicate operands resolve the same way, from the point they are read.
 * The definition is the last one before the read in its block, or else the
 * last one in the nearest dominating block that has one, provided no other
 * definition reaches the read and every loop around that block is around
 * the read too (so each thread sees its own value of the same iterations).
 * The operands are fitted by the collector on every warp execution of the
 * setp, wherever it is.
 */
#ifndef MB_PROF_COND_H
#define MB_PROF_COND_H

#include "prof_affine.h"

enum {
    PROF_COND_MAX_LEAVES = 8,
    PROF_COND_MAX_NODES = 32 /* leaves, their combinations and negations */
};

typedef enum prof_cond_op {
    PROF_COND_CMP, /* a setp's comparison (`insn`) */
    PROF_COND_AND,
    PROF_COND_OR,
    PROF_COND_XOR,
    PROF_COND_NOT
} prof_cond_op;

typedef struct prof_cond_node {
    uint8_t op;     /* prof_cond_op */
    uint8_t arg[2]; /* operand nodes: two for and/or/xor, one for not */
    uint32_t insn;  /* PROF_COND_CMP: the setp */
} prof_cond_node;

/* The condition under which a branch is taken: the tree's value, negated
 * when the guard is written @!p. Nodes come after their operands: the
 * root is the last. */
typedef struct prof_cond_model {
    uint8_t negate;
    uint8_t nnodes;
    prof_cond_node node[PROF_COND_MAX_NODES];
} prof_cond_model;

/* Fills defs (fn->nregs entries) with, per register, the index of its one
 * defining instruction, or one of these. */
#define PROF_COND_NO_DEF UINT32_MAX
#define PROF_COND_MANY_DEFS (UINT32_MAX - 1)
void prof_cond_defs(const mb_function *fn, uint32_t *defs);

/* The model of conditional branch `branch` of `fn` (defs from
 * prof_cond_defs): 1 and *out filled when its guard resolves (see above),
 * 0 when the branch has no model, -1 when out of memory. */
int prof_cond_resolve(const mb_function *fn, const mb_cfg *cfg, const uint32_t *defs,
                      uint32_t branch, prof_cond_model *out);

/* Whether operand k (0: a, 1: b) of the setp at `at` of a kernel holds
 * one value in every thread of a launch: a register whose only definition
 * is unguarded, before it on every path, and an ld.param of a kernel
 * parameter, a mov of %ntid or %nctaid, or integer arithmetic over
 * immediates and such registers. Such an operand needs one look. */
int prof_cond_launch_constant(const mb_function *fn, const mb_cfg *cfg, const uint32_t *defs,
                              uint32_t at, unsigned k);

/* How a setp reads its operands: the integer the comparison sees (narrow
 * values sign- or zero-extended to 64 bits), or not an integer. */
typedef enum prof_cond_kind {
    PROF_COND_FLOAT = 0,
    PROF_COND_U16, /* zero-extended from 16 bits */
    PROF_COND_S16, /* sign-extended from 16 bits */
    PROF_COND_U32,
    PROF_COND_S32,
    PROF_COND_U64,
    PROF_COND_S64
} prof_cond_kind;

prof_cond_kind prof_cond_kind_of(const mb_insn *setp);
/* The comparison's PTX name ("ge", "lo", "gtu", ...). */
const char *prof_cond_cmp_name(const mb_insn *setp);

/* Signed values are fitted biased by 2^63, so that the fitter's unsigned
 * values are ordered like them and a model that crosses zero stays affine
 * (the fitter compares its exact prediction with the value as unsigned). */
#define PROF_COND_BIAS ((uint64_t)1 << 63)

/* Whether a kind's values are fitted as signed integers: the signed kinds,
 * and unsigned 32-bit ones as their two's complement, since a model is
 * evaluated in 32-bit registers, where it is exact modulo 2^32, and an
 * index that goes below zero (nw's `k - t > 31` as u32, a bounds check
 * folded into one unsigned comparison) wraps to the top of the unsigned
 * range, where no affine model reaches it. */
static inline int prof_cond_signed(prof_cond_kind k)
{
    return k == PROF_COND_S16 || k == PROF_COND_S32 || k == PROF_COND_S64 || k == PROF_COND_U32;
}

/* What one integer comparison saw over the run. */
typedef struct prof_cond_fit {
    uint64_t execs;    /* warp executions */
    uint8_t kind;      /* prof_cond_kind */
    uint8_t fitted[2]; /* operand a, b is fitted (not an immediate or a launch constant) */
    uint8_t launch[2]; /* operand a, b is a launch constant: its value, seen once */
    int64_t constant[2];
    struct prof_cond_shapes *shapes; /* 32-bit kinds: verified executions per warp tag and
                                        lanes (prof_cond.c), allocated when first recorded */
    pm_affine op[2];
} prof_cond_fit;

/* One warp execution of the comparison. */
typedef struct prof_cond_exec {
    uint32_t executed;      /* the lanes that executed it (not 0) */
    const void *values[2];  /* mb_insn_event.compared */
    const int64_t *const *feature_lanes; /* the lanes' features in column form (prof_mem_request) */
    const int64_t *feature_uniform;
    uint32_t warp_tag;      /* as in prof_mem_request: columns 0-2 are the same in every
                               execution with the tag; 0: none */
    int uniform;            /* every feature from 3 on is uniform (its column NULL) */
} prof_cond_exec;

/* A fit for `setp` with `nfeatures` features per lane, `launch` its launch
 * constants (bit k: operand k, prof_cond_launch_constant); NULL when out of
 * memory. */
prof_cond_fit *prof_cond_fit_new(const mb_function *fn, const mb_insn *setp, uint32_t nfeatures,
                                 uint32_t launch);
void prof_cond_fit_free(prof_cond_fit *cf);
/* The traces of the operand models (aff_take_trace) move into t[0..1] where
 * those are empty, to be given to the same comparison's fit in the next
 * profile; giving hands each t[k] to a fit that has fitted nothing yet,
 * and leaves in t[k] what it cannot use (NULL when taken). */
void prof_cond_fit_take_traces(prof_cond_fit *cf, aff_trace **t);
void prof_cond_fit_give_traces(prof_cond_fit *cf, aff_trace **t);
/* Fits the operands to one execution. */
void prof_cond_fit_add(prof_cond_fit *cf, const prof_cond_exec *ex);

/* 0 once later executions can teach nothing: neither operand can be
 * modelled any more and the launch constants were seen. */
static inline int prof_cond_fit_open(const prof_cond_fit *cf)
{
    if (cf->execs == 0)
        return 1;
    for (int k = 0; k < 2; k++)
        if (cf->fitted[k] && cf->op[k].state != AFF_REFUSED && cf->op[k].state != AFF_DISABLED)
            return 1;
    return 0;
}

/* The model of operand k (0: a, 1: b) of integer comparison `setp` whose
 * fit is `cf` (NULL: never executed): 1 with coef[0] the constant (modulo
 * 2^64) and coef[1 + f] the coefficient of feature f, *ncoef entries; 0
 * when the operand has no exact model. */
int prof_cond_operand(const prof_cond_fit *cf, const mb_function *fn, const mb_insn *setp,
                      unsigned k, int64_t coef[PM_MAXCOL], uint32_t *ncoef);

#endif
