/* Models of branch conditions (prof_cond.h): resolving a branch's guard to
 * a tree of comparisons, and reading the operand models of a comparison. */
#include "prof_cond.h"

#include <stdlib.h>
#include <string.h>

/* --------------------------------------------------------- resolution */

typedef struct resolver {
    const mb_function *fn;
    const mb_cfg *cfg;
    const uint32_t *defs; /* prof_cond_defs */
    prof_cond_model *m;
    uint32_t leaves;
    int *stack;    /* the reaching-definition search's blocks (allocated when first needed) */
    uint8_t *seen;
    int oom;
} resolver;

static int mentions(const mb_function *fn, const mb_operand *o, uint32_t reg, int depth)
{
    switch (o->kind) {
    case MB_OPND_REG: return o->u.reg == reg;
    case MB_OPND_PAIR: return o->u.pair.first == reg || o->u.pair.second == reg;
    case MB_OPND_VEC:
    case MB_OPND_LIST:
        if (depth >= 8 || (uint64_t)o->u.list.first + o->u.list.count > fn->noperands)
            return 1; /* cannot tell: assume so */
        for (uint32_t i = 0; i < o->u.list.count; i++)
            if (mentions(fn, &fn->operands[o->u.list.first + i], reg, depth + 1))
                return 1;
        return 0;
    default: return 0;
    }
}

/* Whether `insn` may write register `reg`. Every instruction that writes a
 * predicate has its destination first; a call may write any of its
 * operands. Erring towards yes only costs a model. */
static int may_define(const mb_function *fn, const mb_insn *insn, uint32_t reg)
{
    if (insn->noperands == 0)
        return 0;
    if ((uint64_t)insn->operands + insn->noperands > fn->noperands)
        return 1;
    if (insn->opcode == MB_OP_CALL) {
        for (unsigned k = 0; k < insn->noperands; k++)
            if (mentions(fn, mb_insn_operand(fn, insn, k), reg, 0))
                return 1;
        return 0;
    }
    return mentions(fn, mb_insn_operand(fn, insn, 0), reg, 0);
}

/* Counts instruction i as a definition of register reg in defs. */
static void count_def(uint32_t *defs, uint32_t reg, uint32_t i)
{
    defs[reg] = defs[reg] == PROF_COND_NO_DEF || defs[reg] == i ? i : PROF_COND_MANY_DEFS;
}

static void count_operand(const mb_function *fn, const mb_operand *o, uint32_t i, uint32_t *defs,
                          int depth)
{
    switch (o->kind) {
    case MB_OPND_REG:
        if (o->u.reg < fn->nregs)
            count_def(defs, o->u.reg, i);
        return;
    case MB_OPND_PAIR:
        if (o->u.pair.first < fn->nregs)
            count_def(defs, o->u.pair.first, i);
        if (o->u.pair.second < fn->nregs)
            count_def(defs, o->u.pair.second, i);
        return;
    case MB_OPND_VEC:
    case MB_OPND_LIST:
        if (depth >= 8 || (uint64_t)o->u.list.first + o->u.list.count > fn->noperands) {
            for (uint32_t r = 0; r < fn->nregs; r++) /* cannot tell: assume every one */
                count_def(defs, r, i);
            return;
        }
        for (uint32_t k = 0; k < o->u.list.count; k++)
            count_operand(fn, &fn->operands[o->u.list.first + k], i, defs, depth + 1);
        return;
    default: return;
    }
}

void prof_cond_defs(const mb_function *fn, uint32_t *defs)
{
    for (uint32_t r = 0; r < fn->nregs; r++)
        defs[r] = PROF_COND_NO_DEF;
    for (uint32_t i = 0; i < fn->ninsns; i++) {
        const mb_insn *in = &fn->insns[i];
        if (in->noperands == 0)
            continue;
        if ((uint64_t)in->operands + in->noperands > fn->noperands) {
            for (uint32_t r = 0; r < fn->nregs; r++)
                count_def(defs, r, i);
            continue;
        }
        /* the same registers may_define() names */
        const unsigned n = in->opcode == MB_OP_CALL ? in->noperands : 1;
        for (unsigned k = 0; k < n; k++)
            count_operand(fn, mb_insn_operand(fn, in, k), i, defs, 0);
    }
}

static int add_node(resolver *r, prof_cond_op op, int a, int b, uint32_t insn)
{
    if (r->m->nnodes >= PROF_COND_MAX_NODES)
        return -1;
    prof_cond_node *n = &r->m->node[r->m->nnodes];
    n->op = (uint8_t)op;
    n->arg[0] = (uint8_t)(a < 0 ? 0 : a);
    n->arg[1] = (uint8_t)(b < 0 ? 0 : b);
    n->insn = insn;
    return r->m->nnodes++;
}

static int resolve(resolver *r, uint32_t reg, uint32_t before);

/* A predicate source operand (`!p` allowed) read by the instruction at
 * `at`; immediates and anything but a predicate register do not resolve. */
static int pred_source(resolver *r, const mb_operand *o, uint32_t at)
{
    if (o->kind != MB_OPND_REG || o->u.reg >= r->fn->nregs ||
        r->fn->regs[o->u.reg].type != MB_TYPE_PRED)
        return -1;
    int n = resolve(r, o->u.reg, at);
    if (n >= 0 && (o->flags & MB_OPND_NOT))
        n = add_node(r, PROF_COND_NOT, n, -1, 0);
    return n;
}

/* setp at `at` writing `reg`: p = cmp [BoolOp c], q = !cmp [BoolOp c]. */
static int setp_node(resolver *r, const mb_insn *in, uint32_t at, uint32_t reg)
{
    const mb_function *fn = r->fn;
    const mb_operand *d = mb_insn_operand(fn, in, 0);
    int second;
    if (d->kind == MB_OPND_REG && d->u.reg == reg)
        second = 0;
    else if (d->kind == MB_OPND_PAIR && (d->u.pair.first == reg) != (d->u.pair.second == reg))
        second = d->u.pair.second == reg;
    else
        return -1;
    const mb_ptx_type t = mb_insn_type(in, 0);
    if (t == MB_TYPE_F16X2 || t == MB_TYPE_BF16X2) /* q compares the upper halves */
        return -1;
    const int combine = mb_insn_has_mod(in, MB_MOD_AND)   ? PROF_COND_AND
                        : mb_insn_has_mod(in, MB_MOD_OR)  ? PROF_COND_OR
                        : mb_insn_has_mod(in, MB_MOD_XOR) ? PROF_COND_XOR
                                                          : -1;
    if (in->noperands != (combine < 0 ? 3u : 4u) || ++r->leaves > PROF_COND_MAX_LEAVES)
        return -1;
    /* the combined operand first: nodes come after their operands */
    int c = combine < 0 ? -1 : pred_source(r, mb_insn_operand(fn, in, 3), at);
    if (combine >= 0 && c < 0)
        return -1;
    int n = add_node(r, PROF_COND_CMP, -1, -1, at);
    if (n >= 0 && second)
        n = add_node(r, PROF_COND_NOT, n, -1, 0);
    if (n >= 0 && combine >= 0)
        n = add_node(r, (prof_cond_op)combine, n, c, 0);
    return n;
}

/* and/or/xor/not.pred at `at` writing `reg`. */
static int logic_node(resolver *r, const mb_insn *in, uint32_t at, uint32_t reg)
{
    const mb_function *fn = r->fn;
    const int unary = in->opcode == MB_OP_NOT;
    const mb_operand *d = mb_insn_operand(fn, in, 0);
    if (mb_insn_type(in, 0) != MB_TYPE_PRED || in->noperands != (unary ? 2u : 3u) ||
        d->kind != MB_OPND_REG || d->u.reg != reg)
        return -1;
    int a = pred_source(r, mb_insn_operand(fn, in, 1), at);
    if (a < 0)
        return -1;
    if (unary)
        return add_node(r, PROF_COND_NOT, a, -1, 0);
    int b = pred_source(r, mb_insn_operand(fn, in, 2), at);
    if (b < 0)
        return -1;
    prof_cond_op op = in->opcode == MB_OP_AND  ? PROF_COND_AND
                      : in->opcode == MB_OP_OR ? PROF_COND_OR
                                               : PROF_COND_XOR;
    return add_node(r, op, a, b, 0);
}

/* The node of the definition of `reg` at `j`. */
static int def_node(resolver *r, uint32_t reg, uint32_t j)
{
    const mb_insn *in = &r->fn->insns[j];
    if (in->guard >= 0) /* it may keep the value from before */
        return -1;
    switch ((mb_opcode)in->opcode) {
    case MB_OP_SETP: return setp_node(r, in, j, reg);
    case MB_OP_AND:
    case MB_OP_OR:
    case MB_OP_XOR:
    case MB_OP_NOT: return logic_node(r, in, j, reg);
    default: return -1;
    }
}

/* The last definition of `reg` in block b, or UINT32_MAX. */
static uint32_t last_def(const resolver *r, int b, uint32_t reg)
{
    const mb_block *blk = &r->cfg->blocks[b];
    for (uint32_t j = blk->first + blk->ninsns; j-- > blk->first;)
        if (may_define(r->fn, &r->fn->insns[j], reg))
            return j;
    return UINT32_MAX;
}

/* Whether a definition of `reg` other than the last one in block d can
 * reach the entry of block u: from the end of a block that holds one, a
 * path to u that does not go through d (which would redefine it). */
static int other_def_reaches(resolver *r, uint32_t reg, int d, int u)
{
    const mb_cfg *cfg = r->cfg;
    const int nb = cfg->nblocks;
    if (r->defs[reg] != PROF_COND_MANY_DEFS)
        return 0; /* the one in d is the only one */
    if (!r->stack) {
        r->stack = malloc((size_t)nb * sizeof(int));
        r->seen = malloc((size_t)nb);
        if (!r->stack || !r->seen) {
            r->oom = 1;
            return 1;
        }
    }
    memset(r->seen, 0, (size_t)nb);
    r->seen[d] = 1;
    int top = 0;
    for (int b = 0; b < nb; b++) {
        if (b == d || last_def(r, b, reg) == UINT32_MAX)
            continue;
        for (int k = cfg->graph.succ_start[b]; k < cfg->graph.succ_start[b + 1]; k++)
            if (!r->seen[cfg->graph.succ[k]]) {
                r->seen[cfg->graph.succ[k]] = 1;
                r->stack[top++] = cfg->graph.succ[k];
            }
    }
    while (top > 0) {
        const int b = r->stack[--top];
        if (b == u)
            return 1;
        for (int k = cfg->graph.succ_start[b]; k < cfg->graph.succ_start[b + 1]; k++)
            if (!r->seen[cfg->graph.succ[k]]) {
                r->seen[cfg->graph.succ[k]] = 1;
                r->stack[top++] = cfg->graph.succ[k];
            }
    }
    return 0;
}

/* Whether every loop that contains block d also contains block u: then the
 * last execution of d before u is in the iterations u is in, those of the
 * features the definition's operands were fitted with (a loop that u is
 * outside of would leave its last iteration's value). */
static int loops_enclose(const mb_cfg *cfg, int d, int u)
{
    const int ld = cfg->loops.innermost[d];
    if (ld < 0)
        return 1;
    for (int l = cfg->loops.innermost[u]; l >= 0; l = cfg->loops.loops[l].parent)
        if (l == ld)
            return 1;
    return 0;
}

/* The tree of predicate `reg` as it is just before instruction `before`:
 * its last definition in the block, or else the definition every thread
 * reaching the block saw. That is the last one in the nearest dominator
 * that defines `reg`, when no other definition reaches the block and every
 * loop around it is also around the block. */
static int resolve(resolver *r, uint32_t reg, uint32_t before)
{
    const mb_function *fn = r->fn;
    const mb_cfg *cfg = r->cfg;
    const int u = cfg->block_of_insn[before];
    for (uint32_t j = before; j-- > cfg->blocks[u].first;)
        if (may_define(fn, &fn->insns[j], reg))
            return def_node(r, reg, j);
    if (cfg->idom[u] < 0)
        return -1;
    for (int d = u; d != 0;) {
        d = cfg->idom[d];
        const uint32_t j = last_def(r, d, reg);
        if (j == UINT32_MAX)
            continue;
        if (!loops_enclose(cfg, d, u) || other_def_reaches(r, reg, d, u))
            return -1;
        return def_node(r, reg, j);
    }
    return -1; /* not defined on every path */
}

int prof_cond_resolve(const mb_function *fn, const mb_cfg *cfg, const uint32_t *defs,
                      uint32_t branch, prof_cond_model *out)
{
    const mb_insn *br = &fn->insns[branch];
    out->nnodes = 0;
    out->negate = br->guard_not != 0;
    if (br->opcode != MB_OP_BRA || br->guard < 0 || (uint32_t)br->guard >= fn->nregs)
        return 0;
    resolver r = {fn, cfg, defs, out, 0, NULL, NULL, 0};
    /* the root is added last, so it is the last node */
    const int ok = resolve(&r, (uint32_t)br->guard, branch) >= 0;
    free(r.stack);
    free(r.seen);
    return r.oom ? -1 : ok;
}

/* ------------------------------------------------------------ operands */

/* Integer arithmetic whose result is a function of its operands alone:
 * launch constants in, a launch constant out. */
static int pure_integer(const mb_insn *d)
{
    switch ((mb_opcode)d->opcode) {
    case MB_OP_MOV:
    case MB_OP_CVT:
    case MB_OP_ADD:
    case MB_OP_SUB:
    case MB_OP_MUL:
    case MB_OP_MAD:
    case MB_OP_SHL:
    case MB_OP_SHR:
    case MB_OP_AND:
    case MB_OP_OR:
    case MB_OP_XOR:
    case MB_OP_NOT:
    case MB_OP_NEG:
    case MB_OP_MIN:
    case MB_OP_MAX: break;
    default: return 0;
    }
    switch (mb_insn_type(d, 0)) {
    case MB_TYPE_S16: case MB_TYPE_U16: case MB_TYPE_B16:
    case MB_TYPE_S32: case MB_TYPE_U32: case MB_TYPE_B32:
    case MB_TYPE_S64: case MB_TYPE_U64: case MB_TYPE_B64: return 1;
    default: return 0;
    }
}

/* Whether register `reg`, read by the instruction at `at`, holds one value
 * in every thread of a launch: its only definition is unguarded, comes
 * before `at` on every path, and is an ld.param of a kernel parameter, a
 * mov of %ntid or %nctaid, or integer arithmetic over immediates and such
 * registers (nvcc's 2 * blockDim.x, n + m - 1). */
static int launch_register(const mb_function *fn, const mb_cfg *cfg, const uint32_t *defs,
                           uint32_t reg, uint32_t at, int depth)
{
    const uint32_t def = defs[reg];
    if (def == PROF_COND_NO_DEF || def == PROF_COND_MANY_DEFS)
        return 0;
    const mb_insn *d = &fn->insns[def];
    if (d->guard >= 0 || d->noperands < 2 || mb_insn_operand(fn, d, 0)->kind != MB_OPND_REG)
        return 0;
    const int bd = cfg->block_of_insn[def], bu = cfg->block_of_insn[at];
    if (bd == bu ? def >= at : !mb_dominates(cfg->idom, bd, bu))
        return 0;
    const mb_operand *src = mb_insn_operand(fn, d, 1);
    if (d->noperands == 2 && d->opcode == MB_OP_LD && mb_insn_has_mod(d, MB_MOD_PARAM))
        return src->kind == MB_OPND_ADDR && src->base_kind == MB_OPND_SYMBOL &&
               src->symkind == MB_SYM_PARAM;
    if (d->noperands == 2 && d->opcode == MB_OP_MOV && src->kind == MB_OPND_SREG)
        return src->u.sreg.id == MB_SREG_NTID || src->u.sreg.id == MB_SREG_NCTAID;
    if (depth >= 4 || !pure_integer(d))
        return 0;
    for (unsigned k = 1; k < d->noperands; k++) {
        const mb_operand *o = mb_insn_operand(fn, d, k);
        if (o->kind == MB_OPND_IMM)
            continue;
        if (o->kind != MB_OPND_REG || o->flags || o->u.reg >= fn->nregs ||
            fn->regs[o->u.reg].type == MB_TYPE_PRED ||
            !launch_register(fn, cfg, defs, o->u.reg, def, depth + 1))
            return 0;
    }
    return 1;
}

int prof_cond_launch_constant(const mb_function *fn, const mb_cfg *cfg, const uint32_t *defs,
                              uint32_t at, unsigned k)
{
    const mb_operand *o = mb_insn_operand(fn, &fn->insns[at], 1 + k);
    if (!fn->is_entry || o->kind != MB_OPND_REG || o->u.reg >= fn->nregs)
        return 0;
    return launch_register(fn, cfg, defs, o->u.reg, at, 0);
}

prof_cond_kind prof_cond_kind_of(const mb_insn *setp)
{
    const int uns = mb_insn_has_mod(setp, MB_MOD_LO) || mb_insn_has_mod(setp, MB_MOD_LS) ||
                    mb_insn_has_mod(setp, MB_MOD_HI) || mb_insn_has_mod(setp, MB_MOD_HS);
    switch (mb_insn_type(setp, 0)) {
    case MB_TYPE_S16: return uns ? PROF_COND_U16 : PROF_COND_S16;
    case MB_TYPE_U16:
    case MB_TYPE_B16: return PROF_COND_U16;
    case MB_TYPE_S32: return uns ? PROF_COND_U32 : PROF_COND_S32;
    case MB_TYPE_U32:
    case MB_TYPE_B32: return PROF_COND_U32;
    case MB_TYPE_S64: return uns ? PROF_COND_U64 : PROF_COND_S64;
    case MB_TYPE_U64:
    case MB_TYPE_B64: return PROF_COND_U64;
    default: return PROF_COND_FLOAT;
    }
}

const char *prof_cond_cmp_name(const mb_insn *setp)
{
    static const mb_ptx_mod cmps[] = {
        MB_MOD_EQ,  MB_MOD_NE,  MB_MOD_LT,  MB_MOD_LE,  MB_MOD_GT,  MB_MOD_GE,
        MB_MOD_LO,  MB_MOD_LS,  MB_MOD_HI,  MB_MOD_HS,  MB_MOD_EQU, MB_MOD_NEU,
        MB_MOD_LTU, MB_MOD_LEU, MB_MOD_GTU, MB_MOD_GEU, MB_MOD_NUM, MB_MOD_NAN};
    for (size_t i = 0; i < sizeof(cmps) / sizeof(cmps[0]); i++)
        if (mb_insn_has_mod(setp, cmps[i]))
            return mb_mod_name(cmps[i]);
    return "";
}

prof_cond_fit *prof_cond_fit_new(const mb_function *fn, const mb_insn *setp, uint32_t nfeatures,
                                 uint32_t launch)
{
    prof_cond_fit *cf = malloc(sizeof(*cf));
    if (!cf)
        return NULL;
    cf->execs = 0;
    cf->kind = (uint8_t)prof_cond_kind_of(setp);
    cf->shapes = NULL;
    for (unsigned k = 0; k < 2; k++) {
        cf->launch[k] = (launch >> k) & 1;
        cf->fitted[k] = mb_insn_operand(fn, setp, 1 + k)->kind != MB_OPND_IMM && !cf->launch[k];
        cf->constant[k] = 0;
        aff_init(&cf->op[k], nfeatures);
    }
    return cf;
}

void prof_cond_fit_free(prof_cond_fit *cf)
{
    if (!cf)
        return;
    free(cf->shapes);
    aff_free(&cf->op[0]);
    aff_free(&cf->op[1]);
    free(cf);
}

void prof_cond_fit_take_traces(prof_cond_fit *cf, aff_trace **t)
{
    for (unsigned k = 0; k < 2; k++)
        if (!t[k])
            t[k] = aff_take_trace(&cf->op[k]);
}

void prof_cond_fit_give_traces(prof_cond_fit *cf, aff_trace **t)
{
    for (unsigned k = 0; k < 2; k++)
        if (t[k] && aff_give_trace(&cf->op[k], t[k]))
            t[k] = NULL;
}

/* ------------------------------------------------------------- fitting */

/* The values of operand `raw` (mb_insn_event.compared) as comparison
 * `kind` reads them, for entries that are lanes lo, lo + 1, ... (idx NULL)
 * or lanes idx[i]; signed kinds biased (PROF_COND_BIAS). */
static void values_of(prof_cond_kind kind, const void *raw, uint32_t lo, const uint8_t *idx,
                      uint32_t n, uint64_t *y)
{
#define CONVERT(T, EXPR)                                                                          \
    do {                                                                                         \
        const T *r_ = raw;                                                                       \
        if (idx)                                                                                 \
            for (uint32_t i = 0; i < n; i++) {                                                   \
                const T v = r_[idx[i]];                                                          \
                y[i] = (EXPR);                                                                   \
            }                                                                                    \
        else                                                                                     \
            for (uint32_t i = 0; i < n; i++) {                                                   \
                const T v = r_[lo + i];                                                          \
                y[i] = (EXPR);                                                                   \
            }                                                                                    \
    } while (0)
    switch (kind) {
    case PROF_COND_U16: CONVERT(uint32_t, v & 0xFFFFu); break;
    case PROF_COND_S16: CONVERT(uint32_t, (uint64_t)(int64_t)(int16_t)(uint16_t)v ^ PROF_COND_BIAS); break;
    case PROF_COND_U32: /* as S32: see prof_cond_signed */
    case PROF_COND_S32: CONVERT(uint32_t, (uint64_t)(int64_t)(int32_t)v ^ PROF_COND_BIAS); break;
    case PROF_COND_U64: CONVERT(uint64_t, v); break;
    case PROF_COND_S64: CONVERT(uint64_t, v ^ PROF_COND_BIAS); break;
    default: break;
    }
#undef CONVERT
}

/* A 32-bit kind's value of raw word v, unbiased (both kinds are fitted
 * signed: prof_cond_signed). */
static inline int64_t value32(uint32_t v)
{
    return (int64_t)(int32_t)v;
}

/*
 * Verified executions. Most executions of a comparison repeat one seen
 * before in the same warp: the same lanes, the same differences between
 * the lanes' values, only the uniform features (CTA id, loop iterations)
 * and the values moved. Such an execution is accepted without looking at
 * the model lane by lane.
 *
 * Why one lane can stand for the warp. Let R' be an earlier execution with
 * the same warp tag and lanes whose every lane the model reproduced
 * (recorded), and R this one, both with every feature but the thread ids
 * uniform over the warp. The current model reproduces every lane of R' even
 * when it changed since (every accepted value stays reproduced:
 * prof_affine.h), and its span holds them. The thread ids
 * are those of R' (same tag), so the model predicts p_l = p_lo + D_l in R,
 * D_l = v'_l - v'_lo the differences seen in R' (lo the lowest lane); the
 * span constraints, linear too, hold in every lane iff they hold in lane
 * lo. So when lane lo passes (v_lo = p_lo), every v_l equals v_lo + D_l
 * modulo 2^32, and v_lo + D_l lies in the kind's range (an interval of
 * 2^32 integers, which also holds v_l), then v_l = p_l in every lane.
 *
 * Lane lo passes when it passed in the last execution recorded here and
 * what changed since agrees with the current model: the features that
 * changed (all uniform) appear in none of its span constraints, and v_lo
 * moved by the sum of their coefficients times their changes. Otherwise the exact check of lane lo
 * decides.
 */
typedef struct shape_operand {
    int recorded;           /* 0: nothing recorded (the rest is unset) */
    int64_t dmin, dmax;     /* range of v_l - v_lo */
    int64_t v_lo;           /* v_lo in the last execution */
    uint32_t delta[32];     /* v_l - v_lo modulo 2^32, per lane of the mask */
} shape_operand;

typedef struct prof_cond_shape {
    uint32_t tag;            /* the warp tag (0: nothing recorded) */
    uint32_t mask;           /* the lanes */
    int64_t u[PM_MAXCOL];    /* the features from 3 on in the last execution */
    shape_operand op[2];
} prof_cond_shape;

/* A loop whose lanes leave one by one has a shape per trip and warp: sets
 * of ways found by a hash of tag and lanes. */
enum { SHAPE_SETS = 16, SHAPE_WAYS = 4 };
struct prof_cond_shapes {
    prof_cond_shape way[SHAPE_SETS][SHAPE_WAYS];
    uint8_t victim[SHAPE_SETS]; /* the way to replace next */
    /* per warp tag, the shape it used last: a converged warp's next
     * execution nearly always has the same lanes, and needs no hash */
    prof_cond_shape *last[32];
};

/* murmur3's finaliser: the masks of a loop that lanes leave one by one
 * differ in a few bits. */
static inline uint32_t shape_set(const prof_cond_exec *ex)
{
    uint32_t h = ex->executed ^ ex->warp_tag * 0x9E3779B9u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h % SHAPE_SETS;
}

/* The shape of the execution's tag and lanes; a fresh one, replacing
 * another, when there is none (its operands recorded nothing yet). */
static prof_cond_shape *shape_find(struct prof_cond_shapes *shapes, const prof_cond_exec *ex,
                                   uint32_t nf)
{
    prof_cond_shape **last = &shapes->last[ex->warp_tag - 1];
    if (*last && (*last)->mask == ex->executed && (*last)->tag == ex->warp_tag)
        return *last;
    const uint32_t set = shape_set(ex);
    prof_cond_shape *ways = shapes->way[set];
    for (uint32_t w = 0; w < SHAPE_WAYS; w++)
        if (ways[w].mask == ex->executed && ways[w].tag == ex->warp_tag)
            return *last = &ways[w];
    prof_cond_shape *sh = *last = &ways[shapes->victim[set]];
    shapes->victim[set] = (uint8_t)((shapes->victim[set] + 1) % SHAPE_WAYS);
    sh->tag = ex->warp_tag;
    sh->mask = ex->executed;
    for (uint32_t f = 3; f < nf; f++)
        sh->u[f] = ex->feature_uniform[f];
    sh->op[0].recorded = sh->op[1].recorded = 0;
    return sh;
}

/* Four lanes at a time (SSE2 on x86-64): the whole check of a converged
 * warp, which every hit pays, in a handful of instructions. */
typedef uint32_t lanes4 __attribute__((vector_size(16)));

/* Non-zero when some lane l has r[l] - r0 != delta[l] (modulo 2^32). */
static inline uint32_t deltas_differ(const uint32_t *r, uint32_t r0, const uint32_t *delta)
{
    const lanes4 base = {r0, r0, r0, r0};
    lanes4 bad = {0, 0, 0, 0};
    /* unrolled: the loop's own counting was a third of the check */
    _Pragma("GCC unroll 8") for (uint32_t l = 0; l < 32; l += 4)
    {
        lanes4 v, d;
        memcpy(&v, r + l, sizeof(v));
        memcpy(&d, delta + l, sizeof(d));
        bad |= (v - base) ^ d;
    }
    bad |= __builtin_shufflevector(bad, bad, 2, 3, 0, 1);
    return bad[0] | bad[1];
}

/* Whether operand k of execution ex repeats its shape (see above); `d` are
 * the changes of the features since the shape's last execution, `changed`
 * those that are not zero. On success the operand's record moves to ex. */
static int shape_hit(const prof_cond_fit *cf, unsigned k, shape_operand *so,
                     const prof_cond_exec *ex, uint32_t lo, uint32_t changed, const uint64_t *d)
{
    const pm_affine *a = &cf->op[k];
    if (!so->recorded)
        return 0;
    const uint32_t *r = ex->values[k], r0 = r[lo];
    uint32_t bad = 0;
    if (ex->executed == UINT32_MAX) {
        bad = deltas_differ(r, r0, so->delta);
    } else {
        for (uint32_t m = ex->executed; m; m &= m - 1) {
            const uint32_t l = (uint32_t)__builtin_ctz(m);
            bad |= (r[l] - r0) ^ so->delta[l];
        }
    }
    if (bad)
        return 0;
    const prof_cond_kind kind = (prof_cond_kind)cf->kind;
    const int64_t v0 = value32(r0);
    if (v0 + so->dmin < INT32_MIN || v0 + so->dmax > INT32_MAX)
        return 0;
    if (changed & a->span->con_used) {
        const uint8_t lane = (uint8_t)lo;
        uint64_t y0;
        values_of(kind, r, lo, NULL, 1, &y0);
        const prof_mem_request one = {.lanes = 1,
                                      .addrs = &y0,
                                      .lane_index = &lane,
                                      .feature_lanes = ex->feature_lanes,
                                      .feature_uniform = ex->feature_uniform};
        if (!aff_entry_ok(a, &one, 0))
            return 0;
    } else {
        uint64_t moved = 0;
        for (uint32_t m = changed; m; m &= m - 1)
            moved += (uint64_t)a->coef[__builtin_ctz(m) + 1] * d[__builtin_ctz(m)];
        if (moved != (uint64_t)v0 - (uint64_t)so->v_lo)
            return 0;
    }
    so->v_lo = v0;
    return 1;
}

/* Records operand k of execution ex, which the model (AFF_OK) reproduced. */
static void shape_record(unsigned k, shape_operand *so,
                         const prof_cond_exec *ex, uint32_t lo)
{
    const uint32_t *r = ex->values[k], r0 = r[lo];
    const int64_t v0 = value32(r0);
    so->dmin = so->dmax = 0;
    for (uint32_t m = ex->executed; m; m &= m - 1) {
        const uint32_t l = (uint32_t)__builtin_ctz(m);
        const int64_t dl = value32(r[l]) - v0;
        so->delta[l] = r[l] - r0;
        so->dmin = dl < so->dmin ? dl : so->dmin;
        so->dmax = dl > so->dmax ? dl : so->dmax;
    }
    so->v_lo = v0;
    so->recorded = 1;
}

/* Empty shapes: only what finds them needs clearing (a profile makes one
 * per comparison and launch, and they are large). */
static struct prof_cond_shapes *shapes_new(void)
{
    struct prof_cond_shapes *shapes = malloc(sizeof(*shapes));
    if (!shapes)
        return NULL;
    for (uint32_t set = 0; set < SHAPE_SETS; set++) {
        for (uint32_t w = 0; w < SHAPE_WAYS; w++)
            shapes->way[set][w].tag = shapes->way[set][w].mask = 0;
        shapes->victim[set] = 0;
    }
    for (uint32_t t = 0; t < 32; t++)
        shapes->last[t] = NULL;
    return shapes;
}

/* The full check of operand k: every lane through the fitter. */
static void fit_operand(prof_cond_fit *cf, unsigned k, const prof_cond_exec *ex)
{
    const prof_cond_kind kind = (prof_cond_kind)cf->kind;
    uint8_t lane_index[32];
    prof_mem_request req = {.feature_lanes = ex->feature_lanes,
                            .feature_uniform = ex->feature_uniform};
    for (uint32_t m = ex->executed; m; m &= m - 1)
        lane_index[req.lanes++] = (uint8_t)__builtin_ctz(m);
    req.lane_index = ex->executed == UINT32_MAX ? NULL : lane_index; /* NULL: entry i is lane i */
    uint64_t y[32];
    if (kind == PROF_COND_U64 && !req.lane_index) {
        req.addrs = ex->values[k]; /* the values as they are */
    } else {
        values_of(kind, ex->values[k], 0, req.lane_index, req.lanes, y);
        req.addrs = y;
    }
    aff_request(&cf->op[k], &req);
}

static inline int operand_open(const prof_cond_fit *cf, unsigned k)
{
    return cf->fitted[k] && cf->op[k].state != AFF_REFUSED && cf->op[k].state != AFF_DISABLED;
}

void prof_cond_fit_add(prof_cond_fit *cf, const prof_cond_exec *ex)
{
    const prof_cond_kind kind = (prof_cond_kind)cf->kind;
    if (cf->execs++ == 0)
        for (unsigned k = 0; k < 2; k++)
            if (cf->launch[k]) {
                uint64_t v;
                values_of(kind, ex->values[k], (uint32_t)__builtin_ctz(ex->executed), NULL, 1, &v);
                cf->constant[k] = (int64_t)(v ^ (prof_cond_signed(kind) ? PROF_COND_BIAS : 0));
            }
    const int shaped = ex->uniform && ex->warp_tag >= 1 && ex->warp_tag <= 32 &&
                       (kind == PROF_COND_S32 || kind == PROF_COND_U32);
    /* out of memory for the shapes: the full check every time */
    if (!shaped || (!cf->shapes && !(cf->shapes = shapes_new()))) {
        for (unsigned k = 0; k < 2; k++)
            if (operand_open(cf, k))
                fit_operand(cf, k, ex);
        return;
    }
    const uint32_t lo = (uint32_t)__builtin_ctz(ex->executed), nf = cf->op[0].nf;
    prof_cond_shape *sh = shape_find(cf->shapes, ex, nf);
    const int64_t *u = ex->feature_uniform;
    uint64_t d[PM_MAXCOL];
    uint32_t changed = 0;
    for (uint32_t f = 3; f < nf; f++) {
        d[f] = (uint64_t)u[f] - (uint64_t)sh->u[f];
        changed |= (uint32_t)(d[f] != 0) << f;
    }
    for (unsigned k = 0; k < 2; k++) {
        if (!operand_open(cf, k))
            continue;
        shape_operand *so = &sh->op[k];
        if (cf->op[k].state == AFF_OK && shape_hit(cf, k, so, ex, lo, changed, d))
            continue;
        fit_operand(cf, k, ex);
        if (cf->op[k].state == AFF_OK)
            shape_record(k, so, ex, lo);
        else
            so->recorded = 0;
    }
    for (uint32_t m = changed; m; m &= m - 1)
        sh->u[__builtin_ctz(m)] = u[__builtin_ctz(m)];
}

/* An immediate as the comparison reads it. */
static int64_t immediate(prof_cond_kind kind, uint64_t bits)
{
    switch (kind) {
    case PROF_COND_U16: return (int64_t)(bits & 0xFFFFu);
    case PROF_COND_S16: return (int16_t)(uint16_t)bits;
    case PROF_COND_U32: return (int64_t)(uint32_t)bits;
    case PROF_COND_S32: return (int32_t)(uint32_t)bits;
    default: return (int64_t)bits; /* modulo 2^64, as every constant written */
    }
}

int prof_cond_operand(const prof_cond_fit *cf, const mb_function *fn, const mb_insn *setp,
                      unsigned k, int64_t coef[PM_MAXCOL], uint32_t *ncoef)
{
    const prof_cond_kind kind = prof_cond_kind_of(setp);
    if (kind == PROF_COND_FLOAT || !cf || !cf->execs || k > 1)
        return 0;
    const mb_operand *o = mb_insn_operand(fn, setp, 1 + k);
    if (o->kind == MB_OPND_IMM || cf->launch[k]) {
        coef[0] = cf->launch[k] ? cf->constant[k] : immediate(kind, o->u.bits);
        *ncoef = 1;
        return 1;
    }
    const pm_affine *a = &cf->op[k];
    if (a->state != AFF_OK)
        return 0;
    coef[0] = (int64_t)((uint64_t)a->c0 ^ (prof_cond_signed(kind) ? PROF_COND_BIAS : 0));
    for (uint32_t c = 1; c < a->ncol; c++)
        coef[c] = a->coef[c];
    *ncoef = a->ncol;
    return 1;
}
