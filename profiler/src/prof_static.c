/*
 * Static analyses of one function for the profiler (prof.h): where values
 * come from (SRC_* bits), where memory addresses come from (BASE_*), and
 * def-use distances inside basic blocks.
 *
 * Values. Registers, and the function-level .param variables nvcc declares
 * around a call ("cells": st.param writes one, call and ld.param read it),
 * are variables. The function is first put in SSA form (phis at the iterated
 * dominance frontiers, renaming along the dominator tree), so that a read
 * sees only the definitions that reach it; nvcc reuses registers (a copy of
 * %tid.x that later becomes a loop counter) and a plain per-register union
 * would mix values that never meet. Nodes are: every instruction (standing
 * for what it defines), every phi, and every variable (the union of all its
 * definitions, read only where SSA does not apply: unreachable code,
 * variables over the phi budget, CFGs without dominators). An instruction
 * with k inputs and m outputs costs k + m edges. Two edge sets share the
 * nodes:
 *
 *   value edges   every operand that determines a result, the guard
 *                 included (`@%p mov %r, 1` is %r = %p ? 1 : %r, so the old
 *                 value flows in too); loads, atomics, textures and other
 *                 memory reads pass neither their address nor their
 *                 operands on: what they return comes from memory.
 *   address edges only the operands an address travels through: mov, cvt
 *                 and cvta (the source), add/sub/and/or/xor/min/max (either
 *                 side), selp/slct (either value), mad (the addend c), and
 *                 st.param/ld.param through a cell. A pointer is never
 *                 scaled, so mul and shl stop it; that keeps an integer
 *                 parameter that only indexes an array from looking like a
 *                 second base.
 *
 * Leaves: literals and symbol addresses are SRC_CONST; %tid, %laneid,
 * %warpid, %lanemask_* and elect are SRC_TID; the other special registers
 * except clocks, timers and %pm (SRC_DATA) are SRC_CTAID; ld.param of a
 * kernel or function parameter and .reg parameters are SRC_PARAM; other
 * loads, atom, tex/tld4/txq, suld/suq, ldmatrix, wmma.load, mbarrier,
 * multimem, bar.red, shfl, vote, match, redux, activemask and the results
 * of calls are SRC_DATA (collectives and calls also pass their operands
 * on). Bases start at ld.param of a pointer-sized parameter (BASE_PARAM),
 * the address of a module .global/.const/.tex variable (BASE_GLOBAL_VAR),
 * of a .shared variable (BASE_SHARED_VAR), of a .local variable or call
 * parameter block, alloca and stacksave (BASE_LOCAL); .local accesses are
 * BASE_LOCAL whatever their address.
 *
 * Both analyses are joins over the edges, solved by one worklist each: a
 * node is queued only when its value grows, a source set grows at most six
 * times and a base at most twice (unknown, one base, several), so the work
 * is O(nodes + edges) in any order, well inside the "nregs + 2 passes" of
 * a round-robin iteration. Loop-carried values are the nodes on a cycle of
 * value edges: the strongly connected components (Tarjan, iterative) with
 * two or more nodes or a self edge. They get SRC_LOOP before propagation so
 * that everything computed from them inherits it.
 *
 * Costs are linear in practice: dominance frontiers, phi placement and phis
 * each have a budget proportional to the function's size, past which the
 * remaining variables fall back to the flow-insensitive union. Forms the
 * analysis does not know contribute nothing; nothing here fails on PTX the
 * parser accepts, and every index read from the IR is range-checked.
 */
#include "prof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUNC_VAR_FLAG 0x80000000u /* BASE_SHARED_VAR index of a function-level variable */

/* ------------------------------------------------------------ lattices */

typedef struct base_val {
    uint32_t kind; /* prof_base_kind */
    uint32_t index;
} base_val;

static const base_val BASE_NONE = {BASE_UNKNOWN, 0};

static base_val base_make(prof_base_kind kind, uint32_t index)
{
    base_val b = {(uint32_t)kind, kind == BASE_PARAM || kind == BASE_GLOBAL_VAR ||
                                          kind == BASE_SHARED_VAR
                                      ? index
                                      : 0};
    return b;
}

/* Unknown is the bottom, multiple the top, and two different bases meet at the top. */
static base_val base_join(base_val a, base_val b)
{
    if (a.kind == BASE_UNKNOWN)
        return b;
    if (b.kind == BASE_UNKNOWN || (a.kind == b.kind && a.index == b.index))
        return a;
    return base_make(BASE_MULTIPLE, 0);
}

static int base_eq(base_val a, base_val b)
{
    return a.kind == b.kind && a.index == b.index;
}

/* ------------------------------------------------------------- graphs */

typedef struct epair {
    uint32_t from, to;
} epair;

typedef struct elist {
    epair *e;
    size_t n, cap;
    int failed;
} elist;

static void elist_add(elist *l, uint32_t from, uint32_t to)
{
    if (l->failed)
        return;
    if (MB_GROW(l->e, l->cap, l->n + 1) != MB_OK) {
        l->failed = 1;
        return;
    }
    l->e[l->n].from = from;
    l->e[l->n].to = to;
    l->n++;
}

/* Successors in compressed form: succ[start[v] .. start[v+1]). */
typedef struct csr {
    uint32_t *start;
    uint32_t *succ;
} csr;

static int csr_build(csr *g, uint32_t n, const elist *l)
{
    if (l->n >= UINT32_MAX)
        return 0;
    g->start = calloc((size_t)n + 1, sizeof(uint32_t));
    g->succ = malloc((l->n ? l->n : 1) * sizeof(uint32_t));
    if (!g->start || !g->succ)
        return 0;
    for (size_t i = 0; i < l->n; i++)
        g->start[l->e[i].from + 1]++;
    for (uint32_t v = 0; v < n; v++)
        g->start[v + 1] += g->start[v];
    uint32_t *pos = malloc(((size_t)n + 1) * sizeof(uint32_t));
    if (!pos)
        return 0;
    memcpy(pos, g->start, ((size_t)n + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < l->n; i++)
        g->succ[pos[l->e[i].from]++] = l->e[i].to;
    free(pos);
    return 1;
}

static void csr_free(csr *g)
{
    free(g->start);
    free(g->succ);
    g->start = g->succ = NULL;
}

/* ------------------------------------------------------------ context */

/* Roles of a register read in one instruction. */
enum { USE_VALUE = 1, USE_ADDR = 2, USE_BASE = 4 };

typedef struct ctx {
    const mb_module *m;
    const mb_function *fn;
    uint32_t nregs, nvars, nnodes; /* nodes: registers, cells (function vars), instructions, phis */
    unsigned ptr_bytes;            /* 8, or 4 with .address_size 32 */

    /* what scan() finds in the current instruction */
    uint32_t *defs;  /* nodes defined */
    size_t ndefs, cap_defs;
    uint32_t *uses;  /* nodes read, with roles in use_role */
    uint8_t *use_role;
    size_t nuses, cap_uses, cap_role;
    uint8_t gen;       /* SRC_* the instruction contributes by itself */
    base_val gen_base; /* base the instruction contributes by itself */
    int has_addr;      /* an address operand was seen */
    uint8_t addr_src;  /* SRC_* of the literal part of the first address (symbol, absolute) */
    base_val addr_base; /* base of the first address when it is a symbol */
    int64_t addr_reg;   /* register of the first address, or -1 */
    int failed;
} ctx;

static int valid_reg(const ctx *c, uint32_t r)
{
    return r < c->nregs;
}

static void add_def(ctx *c, uint32_t node)
{
    if (c->failed)
        return;
    if (MB_GROW(c->defs, c->cap_defs, c->ndefs + 1) != MB_OK) {
        c->failed = 1;
        return;
    }
    c->defs[c->ndefs++] = node;
}

static void add_use(ctx *c, uint32_t node, uint8_t role)
{
    if (c->failed)
        return;
    if (MB_GROW(c->uses, c->cap_uses, c->nuses + 1) != MB_OK ||
        MB_GROW(c->use_role, c->cap_role, c->nuses + 1) != MB_OK) {
        c->failed = 1;
        return;
    }
    c->uses[c->nuses] = node;
    c->use_role[c->nuses] = role;
    c->nuses++;
}

/* The cell of function variable `v` when it is a .param variable, else UINT32_MAX. */
static uint32_t cell_of(const ctx *c, uint32_t v)
{
    if (v >= c->nvars || c->fn->vars[v].space != MB_SPACE_PARAM)
        return UINT32_MAX;
    return c->nregs + v;
}

/* The cell an address operand names directly ([param0+0]), or UINT32_MAX. */
static uint32_t addr_cell(const ctx *c, const mb_operand *o)
{
    if (o->kind != MB_OPND_ADDR || o->base_kind != MB_OPND_SYMBOL ||
        o->symkind != MB_SYM_LOCAL_VAR)
        return UINT32_MAX;
    return cell_of(c, o->u.sym);
}

/* ------------------------------------------------------- classification */

static uint8_t sreg_source(unsigned id)
{
    switch ((mb_sreg)id) {
    case MB_SREG_TID:
    case MB_SREG_LANEID:
    case MB_SREG_WARPID:
    case MB_SREG_LANEMASK_EQ:
    case MB_SREG_LANEMASK_LE:
    case MB_SREG_LANEMASK_LT:
    case MB_SREG_LANEMASK_GE:
    case MB_SREG_LANEMASK_GT:
        return SRC_TID;
    case MB_SREG_CLOCK:
    case MB_SREG_CLOCK_HI:
    case MB_SREG_CLOCK64:
    case MB_SREG_GLOBALTIMER:
    case MB_SREG_GLOBALTIMER_LO:
    case MB_SREG_GLOBALTIMER_HI:
    case MB_SREG_PM:
        return SRC_DATA;
    default:
        /* %ctaid, %nctaid, %ntid, %nwarpid, %smid, %nsmid, %gridid, the
         * shared-memory sizes, cluster ids, %envreg...: the same for every
         * thread of a CTA. */
        return SRC_CTAID;
    }
}

/* The base a symbol's address (or a .reg parameter's value) starts. */
static base_val symbol_base(const ctx *c, unsigned symkind, uint32_t sym)
{
    const mb_module *m = c->m;
    const mb_function *fn = c->fn;
    switch (symkind) {
    case MB_SYM_GLOBAL_VAR:
        if (sym >= m->nvars)
            return BASE_NONE;
        switch (m->vars[sym].space) {
        case MB_SPACE_GLOBAL:
        case MB_SPACE_CONST:
        case MB_SPACE_TEX:
            return base_make(BASE_GLOBAL_VAR, sym);
        case MB_SPACE_SHARED:
            return base_make(BASE_SHARED_VAR, sym);
        case MB_SPACE_LOCAL:
            return base_make(BASE_LOCAL, 0);
        default:
            return BASE_NONE;
        }
    case MB_SYM_LOCAL_VAR:
        if (sym >= fn->nvars)
            return BASE_NONE;
        switch (fn->vars[sym].space) {
        case MB_SPACE_SHARED:
            return base_make(BASE_SHARED_VAR, sym | FUNC_VAR_FLAG);
        case MB_SPACE_LOCAL:
        case MB_SPACE_PARAM: /* a call's parameter block lives in the caller's frame */
            return base_make(BASE_LOCAL, 0);
        default:
            return BASE_NONE;
        }
    case MB_SYM_PARAM:
        if (sym >= fn->nparams)
            return BASE_NONE;
        if (fn->params[sym].space == MB_SPACE_REG) /* the value of a .reg parameter */
            return mb_type_size(fn->params[sym].type) == c->ptr_bytes && fn->params[sym].vec <= 1
                       ? base_make(BASE_PARAM, sym)
                       : BASE_NONE;
        return base_make(BASE_PARAM, sym); /* the parameter's own address */
    case MB_SYM_RET:
        return base_make(BASE_LOCAL, 0);
    default:
        return BASE_NONE;
    }
}

/* SRC_* of a symbol used as a value: an address is a literal, a .reg parameter is a parameter. */
static uint8_t symbol_source(const ctx *c, unsigned symkind, uint32_t sym)
{
    if (symkind == MB_SYM_PARAM && sym < c->fn->nparams &&
        c->fn->params[sym].space == MB_SPACE_REG)
        return SRC_PARAM;
    return SRC_CONST;
}

static mb_space insn_space(const mb_insn *insn)
{
    mb_space space = MB_SPACE_NONE;
    for (unsigned i = 0; i < insn->nsuffix && i < MB_MAX_SUFFIXES; i++) {
        uint16_t s = insn->suffix[i];
        if (s & MB_SUFFIX_TYPE)
            continue;
        switch ((mb_ptx_mod)s) {
        case MB_MOD_GLOBAL: space = MB_SPACE_GLOBAL; break;
        case MB_MOD_SHARED:
        case MB_MOD_SHARED_CTA:
        case MB_MOD_SHARED_CLUSTER: space = MB_SPACE_SHARED; break;
        case MB_MOD_LOCAL: space = MB_SPACE_LOCAL; break;
        case MB_MOD_CONST: space = MB_SPACE_CONST; break;
        case MB_MOD_PARAM:
        case MB_MOD_PARAM_ENTRY:
        case MB_MOD_PARAM_FUNC: space = MB_SPACE_PARAM; break;
        default: break;
        }
    }
    return space;
}

static int is_vector_access(const mb_insn *insn)
{
    return mb_insn_has_mod(insn, MB_MOD_V2) || mb_insn_has_mod(insn, MB_MOD_V4) ||
           mb_insn_has_mod(insn, MB_MOD_V8);
}

/* Instructions whose result comes from memory or from other lanes' state
 * rather than from their operands. */
static int reads_memory(const mb_insn *insn)
{
    switch ((mb_opcode)insn->opcode) {
    case MB_OP_LD:
    case MB_OP_LDU:
    case MB_OP_ATOM:
    case MB_OP_TEX:
    case MB_OP_TLD4:
    case MB_OP_TXQ:
    case MB_OP_SULD:
    case MB_OP_SUQ:
    case MB_OP_LDMATRIX:
    case MB_OP_MBARRIER:
    case MB_OP_MULTIMEM:
        return 1;
    case MB_OP_WMMA:
        return mb_insn_has_mod(insn, MB_MOD_LOAD);
    default:
        return 0;
    }
}

static int is_dest_kind(unsigned kind)
{
    return kind == MB_OPND_REG || kind == MB_OPND_PAIR || kind == MB_OPND_VEC ||
           kind == MB_OPND_SINK || kind == MB_OPND_SYMBOL;
}

/* Whether operand 0 is a destination (prof.h). */
int prof_first_is_dest(const mb_function *fn, const mb_insn *insn)
{
    if (insn->noperands == 0)
        return 0;
    const mb_operand *o = mb_insn_operand(fn, insn, 0);
    const mb_opcode_info *info = mb_opcode_get((mb_opcode)insn->opcode);
    switch ((mb_opcode)insn->opcode) {
    case MB_OP_MBARRIER: /* mbarrier.arrive %state, [bar]; mbarrier.try_wait %p, [bar], ... */
    case MB_OP_MULTIMEM: /* multimem.ld_reduce %r, [a] */
        return o->kind == MB_OPND_REG || o->kind == MB_OPND_PAIR || o->kind == MB_OPND_SINK ||
               o->kind == MB_OPND_VEC;
    case MB_OP_BAR:
    case MB_OP_BARRIER: /* bar.red.popc.u32 %r, 0, %p */
        return mb_insn_has_mod(insn, MB_MOD_RED) && o->kind == MB_OPND_REG;
    default:
        /* st, red, sust and wmma.store start with an address: not a destination */
        return (info->flags & MB_OPF_D) && is_dest_kind(o->kind);
    }
}

/* Which input operand positions an address travels through. */
static int base_flows(const mb_insn *insn, unsigned k)
{
    switch ((mb_opcode)insn->opcode) {
    case MB_OP_MOV:
    case MB_OP_CVT:
    case MB_OP_CVTA:
        return k >= 1;
    case MB_OP_ADD:
    case MB_OP_SUB:
    case MB_OP_ADDC:
    case MB_OP_SUBC:
    case MB_OP_AND:
    case MB_OP_OR:
    case MB_OP_XOR:
    case MB_OP_MIN:
    case MB_OP_MAX:
    case MB_OP_SELP:
    case MB_OP_SLCT:
        return k == 1 || k == 2;
    case MB_OP_MAD:
    case MB_OP_MADC:
    case MB_OP_MAD24:
        return k == 3;
    default:
        return 0;
    }
}

/* ------------------------------------------------------------- operands */

static void def_operand(ctx *c, const mb_operand *o, int depth)
{
    const mb_function *fn = c->fn;
    switch (o->kind) {
    case MB_OPND_REG:
        if (valid_reg(c, o->u.reg))
            add_def(c, o->u.reg);
        break;
    case MB_OPND_PAIR:
        if (valid_reg(c, o->u.pair.first))
            add_def(c, o->u.pair.first);
        if (valid_reg(c, o->u.pair.second))
            add_def(c, o->u.pair.second);
        break;
    case MB_OPND_VEC:
    case MB_OPND_LIST:
        if (depth < 8 && (uint64_t)o->u.list.first + o->u.list.count <= fn->noperands)
            for (uint32_t i = 0; i < o->u.list.count; i++)
                def_operand(c, &fn->operands[o->u.list.first + i], depth + 1);
        break;
    default: /* _ or a .reg return symbol: nothing to track */
        break;
    }
}

static void note_address(ctx *c, const mb_operand *o, int is_first);

/* An input operand. `role` is USE_VALUE (its value reaches the result),
 * USE_ADDR (part of an address) or 0 (read only); `base` says whether an
 * address travels through it. */
static void use_operand(ctx *c, const mb_operand *o, uint8_t role, int base, int depth)
{
    const mb_function *fn = c->fn;
    uint8_t r = (uint8_t)(role | (base ? USE_BASE : 0));
    switch (o->kind) {
    case MB_OPND_REG:
        if (valid_reg(c, o->u.reg))
            add_use(c, o->u.reg, r);
        break;
    case MB_OPND_PAIR:
        if (valid_reg(c, o->u.pair.first))
            add_use(c, o->u.pair.first, r);
        if (valid_reg(c, o->u.pair.second))
            add_use(c, o->u.pair.second, r);
        break;
    case MB_OPND_SREG:
        if (role & USE_VALUE)
            c->gen |= sreg_source(o->u.sreg.id);
        break;
    case MB_OPND_IMM:
    case MB_OPND_F32:
    case MB_OPND_F64:
        if (role & USE_VALUE)
            c->gen |= SRC_CONST;
        break;
    case MB_OPND_SYMBOL:
        if (role & USE_VALUE)
            c->gen |= symbol_source(c, o->symkind, o->u.sym);
        if (base)
            c->gen_base = base_join(c->gen_base, symbol_base(c, o->symkind, o->u.sym));
        break;
    case MB_OPND_ADDR:
    case MB_OPND_BRACKET_LIST:
        note_address(c, o, !c->has_addr);
        break;
    case MB_OPND_VEC:
    case MB_OPND_LIST:
        if (depth < 8 && (uint64_t)o->u.list.first + o->u.list.count <= fn->noperands)
            for (uint32_t i = 0; i < o->u.list.count; i++)
                use_operand(c, &fn->operands[o->u.list.first + i], role, base, depth + 1);
        break;
    default: /* labels, _ */
        break;
    }
}

/* [reg+off], [sym+off], [imm], or [handle, coordinates...]. */
static void note_address(ctx *c, const mb_operand *o, int is_first)
{
    const mb_function *fn = c->fn;
    c->has_addr = 1;
    const mb_operand *base = o;
    if (o->kind == MB_OPND_BRACKET_LIST) {
        if (o->u.list.count == 0 || (uint64_t)o->u.list.first + o->u.list.count > fn->noperands)
            return;
        base = &fn->operands[o->u.list.first];
        /* coordinates (and a sampler) are read as parts of the address */
        for (uint32_t i = 1; i < o->u.list.count; i++)
            use_operand(c, &fn->operands[o->u.list.first + i], USE_ADDR, 0, 1);
    }
    unsigned kind = o->kind == MB_OPND_ADDR ? o->base_kind : base->kind;
    switch (kind) {
    case MB_OPND_REG:
        if (valid_reg(c, base->u.reg)) {
            add_use(c, base->u.reg, USE_ADDR);
            if (is_first)
                c->addr_reg = base->u.reg;
        }
        break;
    case MB_OPND_SYMBOL: /* a variable's address, or the value of a .reg parameter */
        if (is_first) {
            c->addr_src |= symbol_source(c, base->symkind, base->u.sym);
            c->addr_base = symbol_base(c, base->symkind, base->u.sym);
        }
        break;
    case MB_OPND_IMM:
        if (is_first)
            c->addr_src |= SRC_CONST;
        break;
    default:
        break;
    }
}

/* Fills the context with what instruction `insn` defines and reads. */
static void scan(ctx *c, const mb_insn *insn)
{
    const mb_function *fn = c->fn;
    c->ndefs = c->nuses = 0;
    c->gen = 0;
    c->gen_base = BASE_NONE;
    c->has_addr = 0;
    c->addr_src = 0;
    c->addr_base = BASE_NONE;
    c->addr_reg = -1;
    if (insn->opcode >= MB_OP_COUNT || (uint64_t)insn->operands + insn->noperands > fn->noperands)
        return;
    if (insn->guard >= 0 && valid_reg(c, (uint32_t)insn->guard))
        add_use(c, (uint32_t)insn->guard, USE_VALUE);
    mb_opcode op = (mb_opcode)insn->opcode;

    if (op == MB_OP_CALL) {
        /* call [(rets),] target [, (args)] [, proto]: the results are a
         * summary of everything passed in, plus "unknown data". */
        int seen_target = 0, seen_args = 0;
        for (unsigned k = 0; k < insn->noperands; k++) {
            const mb_operand *o = mb_insn_operand(fn, insn, k);
            if (o->kind == MB_OPND_LIST && !seen_target) {
                if ((uint64_t)o->u.list.first + o->u.list.count > fn->noperands)
                    continue;
                for (uint32_t i = 0; i < o->u.list.count; i++) {
                    const mb_operand *e = &fn->operands[o->u.list.first + i];
                    uint32_t cell;
                    if (e->kind == MB_OPND_SYMBOL && e->symkind == MB_SYM_LOCAL_VAR &&
                        (cell = cell_of(c, e->u.sym)) != UINT32_MAX)
                        add_def(c, cell);
                    else
                        def_operand(c, e, 1);
                }
            } else if (o->kind == MB_OPND_LIST && !seen_args) {
                seen_args = 1;
                if ((uint64_t)o->u.list.first + o->u.list.count > fn->noperands)
                    continue;
                for (uint32_t i = 0; i < o->u.list.count; i++) {
                    const mb_operand *e = &fn->operands[o->u.list.first + i];
                    uint32_t cell;
                    if (e->kind == MB_OPND_SYMBOL && e->symkind == MB_SYM_LOCAL_VAR &&
                        (cell = cell_of(c, e->u.sym)) != UINT32_MAX)
                        add_use(c, cell, USE_VALUE);
                    else
                        use_operand(c, e, USE_VALUE, 0, 1);
                }
            } else if (!seen_target) {
                seen_target = 1;
                if (o->kind == MB_OPND_REG) /* indirect call */
                    use_operand(c, o, USE_VALUE, 0, 0);
            }
        }
        c->gen |= SRC_DATA;
        return;
    }

    if (op == MB_OP_ST && insn->noperands >= 2) {
        uint32_t cell = addr_cell(c, mb_insn_operand(fn, insn, 0));
        if (cell != UINT32_MAX) {
            /* st.param [param0], %r: the cell takes the value (and its base) */
            note_address(c, mb_insn_operand(fn, insn, 0), 1);
            add_def(c, cell);
            for (unsigned k = 1; k < insn->noperands; k++)
                use_operand(c, mb_insn_operand(fn, insn, k), USE_VALUE, 1, 0);
            return;
        }
    }

    int dest = prof_first_is_dest(fn, insn);
    int memread = reads_memory(insn);
    for (unsigned k = 0; k < insn->noperands; k++) {
        const mb_operand *o = mb_insn_operand(fn, insn, k);
        if (k == 0 && dest)
            def_operand(c, o, 0);
        else if (memread || !dest)
            use_operand(c, o, 0, 0, 0); /* read, but the result (if any) does not come from it */
        else
            use_operand(c, o, USE_VALUE, base_flows(insn, k), 0);
    }
    if (!dest)
        return;

    switch (op) {
    case MB_OP_LD:
    case MB_OP_LDU:
        if (insn_space(insn) == MB_SPACE_PARAM && insn->noperands >= 2) {
            const mb_operand *a = mb_insn_operand(fn, insn, 1);
            uint32_t cell = addr_cell(c, a);
            if (cell != UINT32_MAX) {
                /* ld.param %r, [retval0]: what the call (or a st.param) left there */
                add_use(c, cell, USE_VALUE | USE_BASE);
            } else if (a->kind == MB_OPND_ADDR && a->base_kind == MB_OPND_SYMBOL &&
                       a->symkind == MB_SYM_RET) {
                c->gen |= SRC_DATA;
            } else {
                c->gen |= SRC_PARAM;
                /* a pointer-sized parameter read whole may be a pointer */
                if (a->kind == MB_OPND_ADDR && a->base_kind == MB_OPND_SYMBOL &&
                    a->symkind == MB_SYM_PARAM && a->u.sym < fn->nparams &&
                    !is_vector_access(insn) && mb_type_size(mb_insn_type(insn, 0)) == c->ptr_bytes)
                    c->gen_base = base_make(BASE_PARAM, a->u.sym);
            }
        } else {
            c->gen |= SRC_DATA;
        }
        break;
    case MB_OP_ATOM:
    case MB_OP_TEX:
    case MB_OP_TLD4:
    case MB_OP_TXQ:
    case MB_OP_SULD:
    case MB_OP_SUQ:
    case MB_OP_LDMATRIX:
    case MB_OP_MBARRIER:
    case MB_OP_MULTIMEM:
    case MB_OP_WMMA:
        if (memread)
            c->gen |= SRC_DATA;
        break;
    case MB_OP_SHFL:
    case MB_OP_VOTE:
    case MB_OP_MATCH:
    case MB_OP_REDUX:
    case MB_OP_ACTIVEMASK:
    case MB_OP_BAR:
    case MB_OP_BARRIER:
        c->gen |= SRC_DATA; /* other lanes' values */
        break;
    case MB_OP_ELECT:
        c->gen |= SRC_TID; /* one lane is chosen */
        break;
    case MB_OP_ALLOCA:
    case MB_OP_STACKSAVE:
        c->gen |= SRC_CONST;
        c->gen_base = base_make(BASE_LOCAL, 0);
        break;
    default:
        break;
    }
}

/* --------------------------------------------------------------- solvers */

/* Tarjan's strongly connected components, iteratively. Marks in `on_cycle`
 * the nodes that lie on a cycle: in a component of two or more nodes, or
 * with an edge to themselves. */
static int mark_cycles(const csr *g, uint32_t n, uint8_t *on_cycle)
{
    size_t words = (size_t)n + 1;
    uint32_t *index = malloc(words * sizeof(uint32_t));
    uint32_t *low = malloc(words * sizeof(uint32_t));
    uint32_t *stack = malloc(words * sizeof(uint32_t));
    uint32_t *call_node = malloc(words * sizeof(uint32_t));
    uint32_t *call_edge = malloc(words * sizeof(uint32_t));
    uint8_t *on_stack = calloc(words, 1);
    int ok = index && low && stack && call_node && call_edge && on_stack;
    if (ok) {
        const uint32_t unvisited = UINT32_MAX;
        for (uint32_t v = 0; v < n; v++)
            index[v] = unvisited;
        uint32_t next = 0, sp = 0, depth = 0;
        for (uint32_t root = 0; root < n; root++) {
            if (index[root] != unvisited || g->start[root] == g->start[root + 1])
                continue;
            call_node[0] = root;
            call_edge[0] = g->start[root];
            depth = 1;
            index[root] = low[root] = next++;
            stack[sp++] = root;
            on_stack[root] = 1;
            while (depth) {
                uint32_t v = call_node[depth - 1];
                if (call_edge[depth - 1] < g->start[v + 1]) {
                    uint32_t w = g->succ[call_edge[depth - 1]++];
                    if (index[w] == unvisited) {
                        index[w] = low[w] = next++;
                        stack[sp++] = w;
                        on_stack[w] = 1;
                        call_node[depth] = w;
                        call_edge[depth] = g->start[w];
                        depth++;
                    } else if (on_stack[w] && index[w] < low[v]) {
                        low[v] = index[w];
                    }
                    continue;
                }
                depth--;
                if (depth && low[v] < low[call_node[depth - 1]])
                    low[call_node[depth - 1]] = low[v];
                if (low[v] != index[v])
                    continue;
                /* v roots a component: pop it */
                uint32_t first = sp;
                do {
                    first--;
                } while (stack[first] != v);
                int cyclic = sp - first >= 2;
                for (uint32_t e = g->start[v]; !cyclic && e < g->start[v + 1]; e++)
                    cyclic = g->succ[e] == v; /* a value computed from itself */
                for (uint32_t k = first; k < sp; k++) {
                    on_stack[stack[k]] = 0;
                    if (cyclic)
                        on_cycle[stack[k]] = 1;
                }
                sp = first;
            }
        }
    }
    free(index);
    free(low);
    free(stack);
    free(call_node);
    free(call_edge);
    free(on_stack);
    return ok;
}

/* Propagates source bits along the edges to a fixpoint. */
static int solve_sources(const csr *g, uint32_t n, uint8_t *src)
{
    uint32_t *work = malloc(((size_t)n + 1) * sizeof(uint32_t));
    uint8_t *queued = calloc((size_t)n + 1, 1);
    if (!work || !queued) {
        free(work);
        free(queued);
        return 0;
    }
    uint32_t top = 0;
    for (uint32_t v = n; v-- > 0;)
        if (src[v]) {
            work[top++] = v;
            queued[v] = 1;
        }
    while (top) {
        uint32_t v = work[--top];
        queued[v] = 0;
        for (uint32_t e = g->start[v]; e < g->start[v + 1]; e++) {
            uint32_t w = g->succ[e];
            uint8_t grown = (uint8_t)(src[w] | src[v]);
            if (grown != src[w]) {
                src[w] = grown;
                if (!queued[w]) {
                    queued[w] = 1;
                    work[top++] = w;
                }
            }
        }
    }
    free(work);
    free(queued);
    return 1;
}

/* Propagates bases along the edges to a fixpoint. */
static int solve_bases(const csr *g, uint32_t n, base_val *base)
{
    uint32_t *work = malloc(((size_t)n + 1) * sizeof(uint32_t));
    uint8_t *queued = calloc((size_t)n + 1, 1);
    if (!work || !queued) {
        free(work);
        free(queued);
        return 0;
    }
    uint32_t top = 0;
    for (uint32_t v = n; v-- > 0;)
        if (base[v].kind != BASE_UNKNOWN) {
            work[top++] = v;
            queued[v] = 1;
        }
    while (top) {
        uint32_t v = work[--top];
        queued[v] = 0;
        for (uint32_t e = g->start[v]; e < g->start[v + 1]; e++) {
            uint32_t w = g->succ[e];
            base_val joined = base_join(base[w], base[v]);
            if (!base_eq(joined, base[w])) {
                base[w] = joined;
                if (!queued[w]) {
                    queued[w] = 1;
                    work[top++] = w;
                }
            }
        }
    }
    free(work);
    free(queued);
    return 1;
}

/* ------------------------------------------------------------- SSA form */

/*
 * How a read of a variable (register or cell) finds the node holding its
 * value:
 *   VAR_UNDEF    never defined: nothing.
 *   VAR_SINGLE   one defining instruction: that instruction's node.
 *   VAR_SSA      several: the definition or phi that reaches the read, found
 *                by the classic renaming walk over the dominator tree with
 *                phis at the iterated dominance frontiers of the defining
 *                blocks (Cytron et al., frontiers after Cooper, Harvey and
 *                Kennedy). Reads in blocks the entry does not reach use
 *                the variable's own node, the union of all its definitions.
 *   VAR_SUMMARY  several, but its phis would exceed the budget that keeps the
 *                analysis linear (or the CFG has no dominators): always the
 *                variable's own node, i.e. the flow-insensitive union.
 * The results stay a flow-insensitive union over values; SSA only stops the
 * registers nvcc reuses (a copy of %tid.x that becomes a loop counter
 * later) from mixing values that never meet.
 */
enum { VAR_UNDEF, VAR_SINGLE, VAR_SSA, VAR_SUMMARY };

#define NO_NODE UINT32_MAX

typedef struct undo {
    uint32_t var, old;
} undo;

typedef struct ssa {
    uint32_t nvalues;   /* registers + cells */
    uint32_t insn0;     /* node of instruction 0 */
    uint32_t phi0;      /* node of phi 0 */
    uint8_t *mode;      /* per variable: VAR_* */
    uint32_t *single;   /* VAR_SINGLE: its defining instruction */
    uint32_t *cur;      /* during the walk: the node reaching this point, or NO_NODE */
    uint32_t *phi_start; /* per block: phis phi_var[phi_start[b] .. phi_start[b+1]) */
    uint32_t *phi_var;
    uint32_t nphis;
    int usable;          /* dominators and edges are there */
    int *dom_start, *dom_child; /* children in the dominator tree */
    uint8_t *reached;    /* per block: visited by the dominator walk */
    undo *log;
    size_t nlog, cap_log;
} ssa;

static void ssa_free(ssa *S)
{
    free(S->mode);
    free(S->single);
    free(S->cur);
    free(S->phi_start);
    free(S->phi_var);
    free(S->dom_start);
    free(S->dom_child);
    free(S->reached);
    free(S->log);
    memset(S, 0, sizeof(*S));
}

static int cfg_usable(const mb_cfg *cfg)
{
    int n = cfg->nblocks;
    if (n <= 0 || !cfg->idom || cfg->graph.n != n || !cfg->graph.succ_start || !cfg->graph.succ ||
        !cfg->graph.pred_start || !cfg->graph.pred || cfg->idom[0] != 0)
        return 0;
    for (int b = 0; b < n; b++)
        if (cfg->idom[b] < -1 || cfg->idom[b] >= n)
            return 0;
    for (int b = 0; b < n; b++)
        if (cfg->graph.succ_start[b] > cfg->graph.succ_start[b + 1] ||
            cfg->graph.pred_start[b] > cfg->graph.pred_start[b + 1])
            return 0;
    for (int e = cfg->graph.succ_start[0]; e < cfg->graph.succ_start[n]; e++)
        if (cfg->graph.succ[e] < 0 || cfg->graph.succ[e] >= n)
            return 0;
    for (int e = cfg->graph.pred_start[0]; e < cfg->graph.pred_start[n]; e++)
        if (cfg->graph.pred[e] < 0 || cfg->graph.pred[e] >= n)
            return 0;
    return cfg->graph.succ_start[0] == 0 && cfg->graph.pred_start[0] == 0;
}

/* Dominator-tree children and the blocks the tree reaches from the entry. */
static int dom_tree(ssa *S, const mb_cfg *cfg)
{
    int n = cfg->nblocks;
    S->dom_start = calloc((size_t)n + 1, sizeof(int));
    S->dom_child = malloc((size_t)n * sizeof(int));
    S->reached = calloc((size_t)n, 1);
    int *stack = malloc((size_t)n * sizeof(int));
    if (!S->dom_start || !S->dom_child || !S->reached || !stack) {
        free(stack);
        return 0;
    }
    for (int b = 1; b < n; b++)
        if (cfg->idom[b] >= 0 && cfg->idom[b] != b)
            S->dom_start[cfg->idom[b] + 1]++;
    for (int b = 0; b < n; b++)
        S->dom_start[b + 1] += S->dom_start[b];
    int *pos = stack; /* borrowed as fill cursors */
    memcpy(pos, S->dom_start, (size_t)n * sizeof(int));
    for (int b = 1; b < n; b++)
        if (cfg->idom[b] >= 0 && cfg->idom[b] != b)
            S->dom_child[pos[cfg->idom[b]]++] = b;
    /* the tree from the entry: malformed cycles elsewhere are never reached */
    int sp = 0;
    stack[sp++] = 0;
    S->reached[0] = 1;
    while (sp) {
        int b = stack[--sp];
        for (int k = S->dom_start[b]; k < S->dom_start[b + 1]; k++) {
            int ch = S->dom_child[k];
            if (!S->reached[ch]) {
                S->reached[ch] = 1;
                stack[sp++] = ch;
            }
        }
    }
    free(stack);
    return 1;
}

/* Dominance frontiers of the reached blocks, as (block, frontier block)
 * pairs. Returns 0 when out of memory, -1 when there are more than `limit`
 * pairs (frontiers can be quadratic in pathological graphs). */
static int frontiers(const ssa *S, const mb_cfg *cfg, csr *df, size_t limit)
{
    int n = cfg->nblocks;
    const mb_graph *g = &cfg->graph;
    elist pairs = {0};
    int *stamp = malloc((size_t)n * sizeof(int));
    if (!stamp)
        return 0;
    for (int b = 0; b < n; b++)
        stamp[b] = -1;
    for (int b = 0; b < n; b++) {
        if (!S->reached[b] || g->pred_start[b + 1] - g->pred_start[b] < 2)
            continue;
        for (int e = g->pred_start[b]; e < g->pred_start[b + 1]; e++) {
            int runner = g->pred[e];
            if (!S->reached[runner])
                continue;
            for (int steps = 0; runner >= 0 && runner != cfg->idom[b] && steps <= n; steps++) {
                if (stamp[runner] != b) {
                    stamp[runner] = b;
                    elist_add(&pairs, (uint32_t)runner, (uint32_t)b);
                    if (pairs.n > limit) {
                        free(stamp);
                        free(pairs.e);
                        return -1;
                    }
                }
                if (runner == cfg->idom[runner])
                    break;
                runner = cfg->idom[runner];
            }
        }
    }
    free(stamp);
    int ok = !pairs.failed && csr_build(df, (uint32_t)n, &pairs);
    free(pairs.e);
    return ok;
}

/* Classifies the variables and places the phis. */
static int ssa_build(ssa *S, ctx *c, const mb_cfg *cfg, const int *blk)
{
    const mb_function *fn = c->fn;
    uint32_t nv = S->nvalues;
    S->mode = calloc((size_t)nv + 1, 1);
    S->single = calloc((size_t)nv + 1, sizeof(uint32_t));
    S->cur = malloc(((size_t)nv + 1) * sizeof(uint32_t));
    /* the last instruction (+ 1) defining each variable */
    uint32_t *seen = calloc((size_t)nv + 1, sizeof(uint32_t));
    elist defblocks = {0}; /* (variable, reached block defining it) */
    csr byvar = {0}, df = {0};
    elist phis = {0}; /* (block, variable) */
    int *inwork = NULL, *hasphi = NULL, *work = NULL;
    int ok = 0;
    if (!S->mode || !S->single || !S->cur || !seen)
        goto out;
    S->usable = cfg_usable(cfg);
    if (S->usable && !dom_tree(S, cfg))
        goto out;

    for (uint32_t i = 0; i < fn->ninsns; i++) {
        scan(c, &fn->insns[i]);
        if (c->failed)
            goto out;
        for (size_t d = 0; d < c->ndefs; d++) {
            uint32_t v = c->defs[d];
            if (seen[v] == i + 1)
                continue;
            seen[v] = i + 1;
            if (S->mode[v] == VAR_UNDEF) {
                S->mode[v] = VAR_SINGLE;
                S->single[v] = i;
            } else {
                S->mode[v] = VAR_SSA;
            }
            if (S->usable && blk[i] >= 0 && S->reached[blk[i]])
                elist_add(&defblocks, v, (uint32_t)blk[i]);
        }
    }
    if (defblocks.failed)
        goto out;

    int n = cfg->nblocks > 0 ? cfg->nblocks : 0;
    /* budgets that keep the frontiers, the phi placement and the phis
     * linear in the function's size; past them variables stay unions */
    size_t size = (size_t)fn->ninsns + (size_t)n;
    size_t budget = 8 * size + 4096;
    size_t work_left = 64 * size + 65536;
    int got = 1;
    if (S->usable) {
        if (!csr_build(&byvar, nv, &defblocks))
            goto out;
        got = frontiers(S, cfg, &df, 16 * size + 65536);
        if (got == 0)
            goto out;
        if (got < 0)
            S->usable = 0;
    }
    if (!S->usable) {
        for (uint32_t v = 0; v < nv; v++)
            if (S->mode[v] == VAR_SSA)
                S->mode[v] = VAR_SUMMARY;
    } else {
        inwork = malloc((size_t)n * sizeof(int));
        hasphi = malloc((size_t)n * sizeof(int));
        work = malloc(((size_t)n + 1) * sizeof(int));
        if (!inwork || !hasphi || !work)
            goto out;
        for (int b = 0; b < n; b++)
            inwork[b] = hasphi[b] = -1;
        for (uint32_t v = 0; v < nv; v++) {
            if (S->mode[v] != VAR_SSA)
                continue;
            if (work_left == 0) {
                S->mode[v] = VAR_SUMMARY;
                continue;
            }
            size_t mark = phis.n;
            int top = 0;
            for (uint32_t k = byvar.start[v]; k < byvar.start[v + 1]; k++) {
                int b = (int)byvar.succ[k];
                if (inwork[b] != (int)v) {
                    inwork[b] = (int)v;
                    work[top++] = b;
                }
            }
            while (top && phis.n <= budget && work_left) {
                int x = work[--top];
                size_t len = df.start[x + 1] - df.start[x];
                work_left = len < work_left ? work_left - len : 0;
                for (uint32_t k = df.start[x]; k < df.start[x + 1]; k++) {
                    int y = (int)df.succ[k];
                    if (hasphi[y] == (int)v)
                        continue;
                    hasphi[y] = (int)v;
                    elist_add(&phis, (uint32_t)y, v);
                    if (inwork[y] != (int)v) {
                        inwork[y] = (int)v;
                        work[top++] = y;
                    }
                }
            }
            if (phis.n > budget || (top && !work_left)) { /* too costly: this one stays a union */
                phis.n = mark;
                S->mode[v] = VAR_SUMMARY;
            }
        }
        if (phis.failed)
            goto out;
    }
    S->nphis = (uint32_t)phis.n;
    S->phi_start = calloc((size_t)n + 2, sizeof(uint32_t));
    S->phi_var = malloc((phis.n ? phis.n : 1) * sizeof(uint32_t));
    if (!S->phi_start || !S->phi_var)
        goto out;
    for (size_t k = 0; k < phis.n; k++)
        S->phi_start[phis.e[k].from + 1]++;
    for (int b = 0; b < n; b++)
        S->phi_start[b + 1] += S->phi_start[b];
    {
        uint32_t *fill = malloc(((size_t)n + 1) * sizeof(uint32_t));
        if (!fill)
            goto out;
        memcpy(fill, S->phi_start, ((size_t)n + 1) * sizeof(uint32_t));
        for (size_t k = 0; k < phis.n; k++)
            S->phi_var[fill[phis.e[k].from]++] = phis.e[k].to;
        free(fill);
    }
    ok = 1;
out:
    free(seen);
    free(defblocks.e);
    free(phis.e);
    csr_free(&byvar);
    csr_free(&df);
    free(inwork);
    free(hasphi);
    free(work);
    return ok;
}

/* The node holding the value a read of `v` sees; NO_NODE for none. */
static uint32_t ssa_read(const ssa *S, uint32_t v, int in_tree)
{
    switch (S->mode[v]) {
    case VAR_SINGLE: return S->insn0 + S->single[v];
    case VAR_SSA: return in_tree ? S->cur[v] : v;
    case VAR_SUMMARY: return v;
    default: return NO_NODE;
    }
}

static int ssa_set(ssa *S, uint32_t v, uint32_t node)
{
    if (MB_GROW(S->log, S->cap_log, S->nlog + 1) != MB_OK)
        return 0;
    S->log[S->nlog].var = v;
    S->log[S->nlog].old = S->cur[v];
    S->nlog++;
    S->cur[v] = node;
    return 1;
}

/* ------------------------------------------------------------ the walk */

enum { PHASE_BUILD, PHASE_REPORT };

typedef struct walker {
    ctx *c;
    ssa *S;
    int phase;
    elist *vedges, *bedges; /* BUILD */
    const uint8_t *src;     /* REPORT */
    const base_val *base;
    prof_static *out;
} walker;

static uint8_t src_of(const walker *w, uint32_t node)
{
    return node == NO_NODE ? 0 : w->src[node];
}

/* One instruction: BUILD adds its edges, REPORT fills its results. Then
 * its definitions become the current values. */
static int walk_insn(walker *w, uint32_t i, int in_tree)
{
    ctx *c = w->c;
    ssa *S = w->S;
    const mb_function *fn = c->fn;
    const mb_insn *insn = &fn->insns[i];
    scan(c, insn);
    if (c->failed)
        return 0;
    uint32_t node = S->insn0 + i;
    if (w->phase == PHASE_BUILD) {
        if (c->ndefs) {
            for (size_t u = 0; u < c->nuses; u++) {
                uint32_t from = ssa_read(S, c->uses[u], in_tree);
                if (from == NO_NODE)
                    continue;
                if (c->use_role[u] & USE_VALUE)
                    elist_add(w->vedges, from, node);
                if (c->use_role[u] & USE_BASE)
                    elist_add(w->bedges, from, node);
            }
            for (size_t d = 0; d < c->ndefs; d++) {
                uint32_t v = c->defs[d];
                if (S->mode[v] != VAR_SSA && S->mode[v] != VAR_SUMMARY)
                    continue;
                /* the variable's own node: every definition */
                elist_add(w->vedges, node, v);
                elist_add(w->bedges, node, v);
                /* a guarded definition keeps the old value where the guard fails */
                if (insn->guard >= 0 && in_tree && S->mode[v] == VAR_SSA && S->cur[v] != NO_NODE) {
                    elist_add(w->vedges, S->cur[v], node);
                    elist_add(w->bedges, S->cur[v], node);
                }
            }
        }
    } else if (insn->opcode < MB_OP_COUNT) {
        prof_static *out = w->out;
        const mb_opcode_info *info = mb_opcode_get((mb_opcode)insn->opcode);
        if (info->flags & MB_OPF_T) {
            /* conditional control flow: the guard; brx.idx also its index */
            uint8_t s = 0;
            if (insn->guard >= 0 && (uint32_t)insn->guard < c->nregs)
                s |= src_of(w, ssa_read(S, (uint32_t)insn->guard, in_tree));
            if (insn->opcode == MB_OP_BRX && insn->noperands >= 1) {
                const mb_operand *o = mb_insn_operand(fn, insn, 0);
                if (o->kind == MB_OPND_REG && o->u.reg < c->nregs)
                    s |= src_of(w, ssa_read(S, o->u.reg, in_tree));
            }
            out->source[i] = s;
        } else if ((info->flags & MB_OPF_M) || c->has_addr) {
            uint8_t s = c->addr_src;
            for (size_t u = 0; u < c->nuses; u++)
                if (c->use_role[u] & USE_ADDR)
                    s |= src_of(w, ssa_read(S, c->uses[u], in_tree));
            out->source[i] = s;
            base_val b = BASE_NONE;
            if (c->has_addr) {
                if (c->addr_reg >= 0) {
                    uint32_t at = ssa_read(S, (uint32_t)c->addr_reg, in_tree);
                    b = at == NO_NODE ? BASE_NONE : w->base[at];
                } else {
                    b = c->addr_base;
                }
                if (insn_space(insn) == MB_SPACE_LOCAL)
                    b = base_make(BASE_LOCAL, 0);
            }
            out->base_kind[i] = (prof_base_kind)b.kind;
            out->base_index[i] = b.index;
        }
    }
    if (in_tree)
        for (size_t d = 0; d < c->ndefs; d++)
            if (S->mode[c->defs[d]] == VAR_SSA && !ssa_set(S, c->defs[d], node))
                return 0;
    return 1;
}

/* The renaming walk over the dominator tree, then the blocks it does not reach. */
static int walk(walker *w, const mb_cfg *cfg, const int *blk)
{
    ctx *c = w->c;
    ssa *S = w->S;
    const mb_function *fn = c->fn;
    for (uint32_t v = 0; v < S->nvalues; v++)
        S->cur[v] = NO_NODE;
    S->nlog = 0;
    if (S->usable) {
        int n = cfg->nblocks;
        int *stack = malloc((size_t)n * sizeof(int));
        int *next = malloc((size_t)n * sizeof(int));   /* next child to visit */
        size_t *mark = malloc((size_t)n * sizeof(size_t)); /* undo log height on entry */
        int ok = stack && next && mark;
        int sp = 0;
        if (ok)
            stack[sp++] = 0;
        int entering = 1;
        while (ok && sp) {
            int b = stack[sp - 1];
            if (entering) {
                mark[b] = S->nlog;
                next[b] = S->dom_start[b];
                for (uint32_t k = S->phi_start[b]; ok && k < S->phi_start[b + 1]; k++)
                    ok = ssa_set(S, S->phi_var[k], S->phi0 + k);
                const mb_block *blkp = &cfg->blocks[b];
                for (uint32_t k = 0; ok && k < blkp->ninsns; k++)
                    ok = walk_insn(w, blkp->first + k, 1);
                if (ok && w->phase == PHASE_BUILD) {
                    /* the values leaving b flow into the successors' phis */
                    const mb_graph *g = &cfg->graph;
                    for (int e = g->succ_start[b]; e < g->succ_start[b + 1]; e++) {
                        int s = g->succ[e];
                        for (uint32_t k = S->phi_start[s]; k < S->phi_start[s + 1]; k++) {
                            uint32_t from = S->cur[S->phi_var[k]];
                            if (from == NO_NODE)
                                continue;
                            elist_add(w->vedges, from, S->phi0 + k);
                            elist_add(w->bedges, from, S->phi0 + k);
                        }
                    }
                }
            }
            if (!ok)
                break;
            if (next[b] < S->dom_start[b + 1]) {
                stack[sp++] = S->dom_child[next[b]++];
                entering = 1;
            } else {
                while (S->nlog > mark[b]) {
                    S->nlog--;
                    S->cur[S->log[S->nlog].var] = S->log[S->nlog].old;
                }
                sp--;
                entering = 0;
            }
        }
        free(stack);
        free(next);
        free(mark);
        if (!ok)
            return 0;
    }
    /* unreachable code, or everything when there are no dominators */
    for (uint32_t i = 0; i < fn->ninsns; i++)
        if (!S->usable || blk[i] < 0 || !S->reached[blk[i]])
            if (!walk_insn(w, i, 0))
                return 0;
    return 1;
}

/* Appends ",d" (or "d" for the first) without printf: this runs for every
 * register read of every launch's static analysis. */
static void append_distance(mb_buf *text, int comma, uint32_t d)
{
    char digits[12];
    size_t n = sizeof digits;
    do
        digits[--n] = (char)('0' + d % 10);
    while ((d /= 10) != 0 && n > 1);
    if (comma)
        digits[--n] = ',';
    mb_buf_append(text, digits + n, sizeof digits - n);
}

/* Blocks reachable from each block through at least one edge, one bitset
 * row per block; NULL when the function is too large for it (the rows take
 * nblocks^2 bits). */
#define REACH_MAX_BLOCKS 4096

static uint64_t *reachability(const mb_cfg *cfg, int *failed)
{
    int n = cfg->nblocks;
    *failed = 0;
    if (n <= 0 || n > REACH_MAX_BLOCKS || !cfg->graph.succ_start || cfg->graph.n != n)
        return NULL;
    size_t words = ((size_t)n + 63) / 64;
    uint64_t *rows = calloc((size_t)n * words, sizeof(uint64_t));
    int *stack = malloc(((size_t)n + 1) * sizeof(int));
    if (!rows || !stack) {
        free(rows);
        free(stack);
        *failed = 1;
        return NULL;
    }
    const mb_graph *g = &cfg->graph;
    for (int b = 0; b < n; b++) {
        uint64_t *row = rows + (size_t)b * words;
        int sp = 0;
        stack[sp++] = b;
        while (sp) {
            int x = stack[--sp];
            for (int e = g->succ_start[x]; e < g->succ_start[x + 1]; e++) {
                int y = g->succ[e];
                if (y < 0 || y >= n || (row[y / 64] >> (y % 64) & 1))
                    continue;
                row[y / 64] |= UINT64_C(1) << (y % 64);
                stack[sp++] = y;
            }
        }
    }
    free(stack);
    return rows;
}

/* Appends the definitions of register r that can reach a read in block b at
 * instruction i (from another block, or from later in b around a loop): the
 * producers a clone needs for values that cross block boundaries, such as a
 * load used after a branch or a loop-carried sum. A block's last definition
 * of r is the one that leaves it; paths through other definitions are not
 * excluded (a superset of the reaching definitions). At most 4 per register. */
static void append_outside_defs(mb_buf *text, const mb_cfg *cfg, const int *blk, const uint64_t *reach,
                                const csr *defs, uint32_t r, int b, uint32_t i, int *first_reg)
{
    size_t words = ((size_t)cfg->nblocks + 63) / 64;
    const uint32_t end = defs->start[r + 1];
    int listed = 0;
    for (uint32_t k = defs->start[r]; k < end && listed < 4; k++) {
        uint32_t j = defs->succ[k];
        int d = blk[j];
        if (d < 0 || (d == b && j < i))
            continue;
        /* a later definition in the same block hides this one from other blocks */
        if (k + 1 < end && blk[defs->succ[k + 1]] == d)
            continue;
        if (!(reach[(size_t)d * words + (size_t)b / 64] >> (b % 64) & 1))
            continue;
        /* "block.index", after "|" or "," (append_distance's digits, no printf) */
        if (listed || !*first_reg)
            mb_buf_putc(text, listed ? '|' : ',');
        append_distance(text, 0, (uint32_t)d);
        mb_buf_putc(text, '.');
        append_distance(text, 0, j - cfg->blocks[d].first);
        listed++;
    }
    if (listed)
        *first_reg = 0;
}

/* Def-use distances inside each block, and the definitions reaching each
 * read from outside its block. */
static int distances(ctx *c, const mb_cfg *cfg, const int *blk, prof_static *out)
{
    const mb_function *fn = c->fn;
    uint32_t *last_def = calloc((size_t)c->nregs + 1, sizeof(uint32_t));
    uint32_t *def_stamp = calloc((size_t)c->nregs + 1, sizeof(uint32_t));
    uint32_t *read_stamp = calloc((size_t)c->nregs + 1, sizeof(uint32_t));
    int ok = last_def && def_stamp && read_stamp;
    uint32_t stamp_base = 0; /* stamps of block b: stamp_base + 1 .. stamp_base + ninsns */
    /* every register's definitions, for the reads from outside a block */
    int reach_failed = 0;
    uint64_t *reach = ok ? reachability(cfg, &reach_failed) : NULL;
    csr defs = {0}; /* register -> its defining instructions, in order */
    ok = ok && !reach_failed;
    if (ok && reach) {
        elist pairs = {0};
        for (uint32_t i = 0; ok && i < fn->ninsns; i++) {
            scan(c, &fn->insns[i]);
            ok = !c->failed;
            for (size_t d = 0; ok && d < c->ndefs; d++)
                if (c->defs[d] < c->nregs)
                    elist_add(&pairs, c->defs[d], i);
        }
        ok = ok && !pairs.failed && csr_build(&defs, c->nregs, &pairs);
        free(pairs.e);
    }
    for (int b = 0; ok && b < cfg->nblocks; b++) {
        const mb_block *blkp = &cfg->blocks[b];
        for (uint32_t k = 0; ok && k < blkp->ninsns; k++) {
            uint32_t i = blkp->first + k;
            scan(c, &fn->insns[i]);
            if (c->failed) {
                ok = 0;
                break;
            }
            uint32_t stamp = stamp_base + k + 1;
            mb_buf *text = &out->dep_chain[b], *in = &out->dep_in[b];
            size_t word = text->len, word_in = in->len;
            int first_reg = 1;
            if (k > 0) {
                mb_buf_putc(text, ' ');
                if (reach)
                    mb_buf_putc(in, ' ');
            }
            for (size_t u = 0; ok && u < c->nuses; u++) {
                uint32_t r = c->uses[u];
                if (r >= c->nregs || read_stamp[r] == stamp)
                    continue; /* cells are not registers; each register once per instruction */
                read_stamp[r] = stamp;
                if (def_stamp[r] > stamp_base) { /* defined earlier in this block */
                    ok = prof_hist_add(&out->dep_dist[b], (uint64_t)(i - last_def[r]), 1);
                    append_distance(text, text->len > word + (k > 0), i - last_def[r]);
                } else if (reach) {
                    append_outside_defs(in, cfg, blk, reach, &defs, r, b, i, &first_reg);
                }
            }
            if (text->len == word + (k > 0))
                mb_buf_putc(text, '-');
            if (reach && in->len == word_in + (k > 0))
                mb_buf_putc(in, '-');
            ok = ok && !text->failed && !in->failed;
            for (size_t d = 0; d < c->ndefs; d++) {
                uint32_t r = c->defs[d];
                if (r < c->nregs) {
                    last_def[r] = i;
                    def_stamp[r] = stamp;
                }
            }
        }
        stamp_base += blkp->ninsns + 1;
    }
    free(reach);
    csr_free(&defs);
    free(last_def);
    free(def_stamp);
    free(read_stamp);
    return ok;
}

/* ------------------------------------------------------------ the analysis */

static mb_status fail(prof_static *out, const mb_cfg *cfg, mb_error *err, mb_status st,
                      const char *what)
{
    prof_static_free(out, cfg);
    return mb_error_set(err, st, "", 0, 0, "static analysis: %s", what);
}

mb_status prof_static_analyse(const mb_module *m, const mb_function *fn, const mb_cfg *cfg,
                              prof_static *out, mb_error *err)
{
    if (out)
        memset(out, 0, sizeof(*out));
    if (!m || !fn || !cfg || !out)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "static analysis: NULL module, function, CFG or output");
    if (cfg->nblocks < 0 || (cfg->nblocks > 0 && !cfg->blocks))
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "static analysis: malformed CFG");
    for (int b = 0; b < cfg->nblocks; b++)
        if ((uint64_t)cfg->blocks[b].first + cfg->blocks[b].ninsns > fn->ninsns)
            return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                                "static analysis: block %d of '%s' lies outside its %u "
                                "instructions",
                                b, fn->name ? fn->name : "?", fn->ninsns);

    uint32_t ninsns = fn->ninsns;
    uint64_t fixed = (uint64_t)fn->nregs + fn->nvars + ninsns;
    /* phis are at most 8 * (instructions + blocks) + 4096 */
    uint64_t nblocks = (uint64_t)(cfg->nblocks > 0 ? cfg->nblocks : 0);
    uint64_t worst = fixed + 8 * ((uint64_t)ninsns + nblocks) + 4096 + 64;
    if (worst >= UINT32_MAX / 2)
        return mb_error_set(err, MB_ERR_LIMIT, "", 0, 0,
                            "static analysis: function '%s' is too large",
                            fn->name ? fn->name : "?");

    size_t nb = cfg->nblocks > 0 ? (size_t)cfg->nblocks : 1;
    out->source = calloc(ninsns ? ninsns : 1, sizeof(*out->source));
    out->base_kind = calloc(ninsns ? ninsns : 1, sizeof(*out->base_kind));
    out->base_index = calloc(ninsns ? ninsns : 1, sizeof(*out->base_index));
    out->dep_dist = calloc(nb, sizeof(*out->dep_dist));
    out->dep_chain = calloc(nb, sizeof(*out->dep_chain));
    out->dep_in = calloc(nb, sizeof(*out->dep_in));
    if (!out->source || !out->base_kind || !out->base_index || !out->dep_dist || !out->dep_chain ||
        !out->dep_in)
        return fail(out, cfg, err, MB_ERR_NOMEM, "out of memory");

    ctx c;
    memset(&c, 0, sizeof(c));
    c.m = m;
    c.fn = fn;
    c.nregs = fn->nregs;
    c.nvars = fn->nvars;
    c.ptr_bytes = m->address_size == 32 ? 4 : 8;

    mb_status st = MB_ERR_NOMEM;
    ssa S;
    memset(&S, 0, sizeof(S));
    S.nvalues = c.nregs + c.nvars;
    S.insn0 = S.nvalues;
    S.phi0 = S.insn0 + ninsns;
    elist vedges = {0}, bedges = {0};
    csr vg = {0}, bg = {0};
    uint8_t *src = NULL, *cyc = NULL;
    base_val *base = NULL;
    int *blk = malloc(((size_t)ninsns + 1) * sizeof(int));
    if (!blk)
        goto done;
    for (uint32_t i = 0; i < ninsns; i++)
        blk[i] = -1;
    for (int b = 0; b < cfg->nblocks; b++)
        for (uint32_t k = 0; k < cfg->blocks[b].ninsns; k++)
            blk[cfg->blocks[b].first + k] = b;

    /* 1. SSA form, the two graphs, the def-use distances */
    if (!ssa_build(&S, &c, cfg, blk))
        goto done;
    c.nnodes = S.phi0 + S.nphis;
    src = calloc((size_t)c.nnodes + 1, 1);
    cyc = calloc((size_t)c.nnodes + 1, 1);
    base = calloc((size_t)c.nnodes + 1, sizeof(base_val));
    if (!src || !cyc || !base)
        goto done;
    for (uint32_t i = 0; i < ninsns; i++) { /* what each instruction contributes by itself */
        scan(&c, &fn->insns[i]);
        if (c.failed)
            goto done;
        if (c.ndefs) {
            src[S.insn0 + i] = c.gen;
            base[S.insn0 + i] = c.gen_base;
        }
    }
    walker w = {&c, &S, PHASE_BUILD, &vedges, &bedges, NULL, NULL, out};
    if (!walk(&w, cfg, blk) || vedges.failed || bedges.failed ||
        !csr_build(&vg, c.nnodes, &vedges) || !csr_build(&bg, c.nnodes, &bedges) ||
        !distances(&c, cfg, blk, out))
        goto done;
    free(vedges.e);
    free(bedges.e);
    vedges.e = bedges.e = NULL;

    /* 2. loop-carried values, then the two fixpoints */
    if (!mark_cycles(&vg, c.nnodes, cyc))
        goto done;
    for (uint32_t v = 0; v < c.nnodes; v++)
        if (cyc[v])
            src[v] |= SRC_LOOP;
    if (!solve_sources(&vg, c.nnodes, src) || !solve_bases(&bg, c.nnodes, base))
        goto done;

    /* 3. per instruction: branch conditions, addresses and their bases */
    w.phase = PHASE_REPORT;
    w.src = src;
    w.base = base;
    if (!walk(&w, cfg, blk))
        goto done;
    st = MB_OK;

done:
    free(vedges.e);
    free(bedges.e);
    csr_free(&vg);
    csr_free(&bg);
    free(src);
    free(cyc);
    free(base);
    free(blk);
    ssa_free(&S);
    free(c.defs);
    free(c.uses);
    free(c.use_role);
    if (st != MB_OK)
        return fail(out, cfg, err, st, "out of memory");
    return MB_OK;
}

void prof_static_free(prof_static *s, const mb_cfg *cfg)
{
    if (!s)
        return;
    if (s->dep_dist && cfg)
        for (int b = 0; b < cfg->nblocks; b++)
            prof_hist_free(&s->dep_dist[b]);
    if (s->dep_chain && cfg)
        for (int b = 0; b < cfg->nblocks; b++)
            mb_buf_free(&s->dep_chain[b]);
    if (s->dep_in && cfg)
        for (int b = 0; b < cfg->nblocks; b++)
            mb_buf_free(&s->dep_in[b]);
    free(s->dep_chain);
    free(s->dep_in);
    free(s->source);
    free(s->base_kind);
    free(s->base_index);
    free(s->dep_dist);
    memset(s, 0, sizeof(*s));
}
