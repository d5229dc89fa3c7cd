/*
 * Addresses indexed by a loaded value (prof_index.c): an access whose
 * address its own block computes as a variable's start plus a chain of
 * operations by immediates on a value the block loaded, the way compilers
 * index a table with data (`bins[data[i]]`, `counters[in[k] % 32]`). The
 * affine fitter refuses such an address; with the chain known, a clone can
 * load the same kind of value and index with it, instead of imitating the
 * conflicts it causes.
 *
 * The analysis is static and exact: every instruction it follows is
 * unguarded and the one definition that reaches, so the relation holds on
 * every execution.
 */
#include "prof.h"

#include <string.h>

static int is_op(const mb_insn *in, mb_opcode op)
{
    return in->opcode == (uint16_t)op;
}

static int list_has_reg(const mb_function *fn, const mb_operand *o, uint32_t reg)
{
    for (uint32_t k = 0; k < o->u.list.count && (uint64_t)o->u.list.first + k < fn->noperands; k++) {
        const mb_operand *e = &fn->operands[o->u.list.first + k];
        if (e->kind == MB_OPND_REG && e->u.reg == reg)
            return 1;
    }
    return 0;
}

static int writes_reg(const mb_function *fn, const mb_insn *in, uint32_t reg)
{
    const mb_operand *o = in->noperands ? mb_insn_operand(fn, in, 0) : NULL;
    if (o && is_op(in, MB_OP_CALL) && o->kind == MB_OPND_LIST) /* call (%r), f, ...: its results */
        return list_has_reg(fn, o, reg);
    if (!prof_first_is_dest(fn, in))
        return 0;
    switch (o->kind) {
    case MB_OPND_REG: return o->u.reg == reg;
    case MB_OPND_PAIR: return o->u.pair.first == reg || o->u.pair.second == reg;
    case MB_OPND_VEC: return list_has_reg(fn, o, reg);
    default: return 0;
    }
}

/* The instruction of block [first, before) that last writes `reg`, when it
 * does unguarded; -1 when it is guarded or the block does not write it;
 * -2 when it is not written there at all (the caller may look further). */
static int64_t def_in_block(const mb_function *fn, uint32_t first, uint32_t before, uint32_t reg)
{
    for (uint32_t i = before; i-- > first;) {
        if (!writes_reg(fn, &fn->insns[i], reg))
            continue;
        return fn->insns[i].guard >= 0 ? -1 : (int64_t)i;
    }
    return -2;
}

/* The only instruction of the function that writes `reg`, unguarded; -1
 * when there are several, none, or it is guarded. */
static int64_t only_def(const mb_function *fn, uint32_t reg)
{
    int64_t at = -1;
    for (uint32_t i = 0; i < fn->ninsns; i++)
        if (writes_reg(fn, &fn->insns[i], reg)) {
            if (at >= 0 || fn->insns[i].guard >= 0)
                return -1;
            at = (int64_t)i;
        }
    return at;
}

/* Operand k of `in` when it is of `kind`, else NULL. */
static const mb_operand *operand_of(const mb_function *fn, const mb_insn *in, unsigned k, unsigned kind)
{
    const mb_operand *o = k < in->noperands ? mb_insn_operand(fn, in, k) : NULL;
    return o && o->kind == kind ? o : NULL;
}

static int operand_reg(const mb_function *fn, const mb_insn *in, unsigned k, uint32_t *reg)
{
    const mb_operand *o = operand_of(fn, in, k, MB_OPND_REG);
    if (o)
        *reg = o->u.reg;
    return o != NULL;
}

static int operand_imm(const mb_function *fn, const mb_insn *in, unsigned k, int64_t *imm)
{
    const mb_operand *o = operand_of(fn, in, k, MB_OPND_IMM);
    if (o)
        *imm = (int64_t)o->u.bits;
    return o != NULL;
}

static int integer_type(mb_ptx_type t)
{
    mb_type_kind k = mb_type_kind_of(t);
    return k == MB_TYPE_KIND_U || k == MB_TYPE_KIND_S || k == MB_TYPE_KIND_B;
}

/* One step of an index chain: mul (lo or wide), shl or and by an
 * immediate, or an integer cvt without rounding; its source in *src. */
static int chain_step(const mb_function *fn, const mb_insn *in, uint32_t *src)
{
    int64_t imm;
    if (in->noperands == 3 && (is_op(in, MB_OP_MUL) || is_op(in, MB_OP_SHL) || is_op(in, MB_OP_AND)))
        return integer_type(mb_insn_type(in, 0)) &&
               (!is_op(in, MB_OP_MUL) || mb_insn_has_mod(in, MB_MOD_LO) || mb_insn_has_mod(in, MB_MOD_WIDE)) &&
               operand_reg(fn, in, 1, src) && operand_imm(fn, in, 2, &imm) && imm >= 0;
    if (in->noperands == 2 && is_op(in, MB_OP_CVT))
        return integer_type(mb_insn_type(in, 0)) && integer_type(mb_insn_type(in, 1)) &&
               !mb_insn_has_mod(in, MB_MOD_SAT) && operand_reg(fn, in, 1, src);
    return 0;
}

/* Follows `reg` (read before instruction `before` of the block starting at
 * `first`) back through chain steps to a scalar load of the same block:
 * fills the load and the steps in execution order. */
static int index_chain(const mb_function *fn, uint32_t first, uint32_t before, uint32_t reg,
                       prof_index *out)
{
    uint32_t steps[PROF_INDEX_MAX_OPS], n = 0;
    for (;;) {
        int64_t d = def_in_block(fn, first, before, reg);
        if (d < 0)
            return 0;
        const mb_insn *in = &fn->insns[d];
        if ((is_op(in, MB_OP_LD) || is_op(in, MB_OP_LDU)) && in->noperands == 2 &&
            mb_insn_operand(fn, in, 0)->kind == MB_OPND_REG && integer_type(mb_insn_type(in, 0)) &&
            !mb_insn_has_mod(in, MB_MOD_PARAM) && !mb_insn_has_mod(in, MB_MOD_PARAM_ENTRY) &&
            !mb_insn_has_mod(in, MB_MOD_PARAM_FUNC)) {
            if (n == 0)
                return 0; /* a loaded pointer, not an index */
            out->load = (uint32_t)d;
            out->nops = n;
            for (uint32_t k = 0; k < n; k++)
                out->op_insn[k] = steps[n - 1 - k];
            return 1;
        }
        if (n == PROF_INDEX_MAX_OPS || !chain_step(fn, in, &reg))
            return 0;
        steps[n++] = (uint32_t)d;
        before = (uint32_t)d;
    }
}

/* The variable whose start `reg` holds plus *offset: a symbol moved into a
 * register, through moves, conversions to a state space and additions of
 * immediates, each the one definition that reaches (in the block, or the
 * function's only one). */
static int variable_start(const mb_function *fn, uint32_t first, uint32_t before, uint32_t reg,
                          int depth, const mb_operand **sym, int64_t *offset)
{
    if (depth > 8)
        return 0;
    int64_t d = def_in_block(fn, first, before, reg);
    if (d == -2)
        d = only_def(fn, reg);
    if (d < 0)
        return 0;
    const mb_insn *in = &fn->insns[d];
    uint32_t src;
    int64_t imm;
    if ((is_op(in, MB_OP_MOV) || is_op(in, MB_OP_CVTA)) && in->noperands == 2) {
        const mb_operand *o = mb_insn_operand(fn, in, 1);
        if (o->kind == MB_OPND_SYMBOL) {
            *sym = o;
            *offset += o->offset;
            return 1;
        }
        return operand_reg(fn, in, 1, &src) &&
               variable_start(fn, first, (uint32_t)d, src, depth + 1, sym, offset);
    }
    if (is_op(in, MB_OP_ADD) && in->noperands == 3 && operand_reg(fn, in, 1, &src) &&
        operand_imm(fn, in, 2, &imm)) {
        *offset += imm;
        return variable_start(fn, first, (uint32_t)d, src, depth + 1, sym, offset);
    }
    return 0;
}

/* The variable a symbol operand names, when it is a .shared one or the
 * function's only .local one (its frame: a clone's local array stands for
 * the whole frame). */
static const mb_var *symbol_var(const mb_module *m, const mb_function *fn, const mb_operand *o)
{
    if (o->symkind == MB_SYM_GLOBAL_VAR && o->u.sym < m->nvars)
        return m->vars[o->u.sym].space == MB_SPACE_SHARED ? &m->vars[o->u.sym] : NULL;
    if (o->symkind != MB_SYM_LOCAL_VAR || o->u.sym >= fn->nvars)
        return NULL;
    const mb_var *v = &fn->vars[o->u.sym];
    if (v->space == MB_SPACE_SHARED)
        return v;
    uint32_t locals = 0;
    for (uint32_t k = 0; k < fn->nvars; k++)
        locals += fn->vars[k].space == MB_SPACE_LOCAL;
    return v->space == MB_SPACE_LOCAL && locals == 1 ? v : NULL;
}

int prof_index_find(const mb_module *m, const mb_function *fn, const mb_cfg *cfg, uint32_t insn,
                    prof_index *out)
{
    memset(out, 0, sizeof *out);
    if (insn >= fn->ninsns || !cfg->block_of_insn)
        return 0;
    const mb_insn *in = &fn->insns[insn];
    const mb_operand *addr = NULL;
    for (unsigned k = 0; k < in->noperands && !addr; k++)
        if (mb_insn_operand(fn, in, k)->kind == MB_OPND_ADDR)
            addr = mb_insn_operand(fn, in, k);
    if (!addr || addr->base_kind != MB_OPND_REG)
        return 0;
    const uint32_t first = cfg->blocks[cfg->block_of_insn[insn]].first;
    int64_t offset = addr->offset;
    uint32_t reg = addr->u.reg, before = insn;
    /* the sum: additions of immediates, then base + index */
    for (int hop = 0; hop < 8; hop++) {
        int64_t d = def_in_block(fn, first, before, reg);
        if (d < 0 || !is_op(&fn->insns[d], MB_OP_ADD) || fn->insns[d].noperands != 3)
            return 0;
        const mb_insn *add = &fn->insns[d];
        uint32_t a, b;
        int64_t imm;
        if (operand_reg(fn, add, 1, &a) && operand_imm(fn, add, 2, &imm)) {
            offset += imm;
            reg = a;
            before = (uint32_t)d;
            continue;
        }
        if (!operand_reg(fn, add, 1, &a) || !operand_reg(fn, add, 2, &b))
            return 0;
        for (int swap = 0; swap < 2; swap++) {
            uint32_t base = swap ? b : a, index = swap ? a : b;
            const mb_operand *sym = NULL;
            int64_t start = 0;
            if (!index_chain(fn, first, (uint32_t)d, index, out) ||
                !variable_start(fn, first, (uint32_t)d, base, 0, &sym, &start))
                continue;
            out->var = symbol_var(m, fn, sym);
            if (!out->var)
                return 0;
            out->offset = offset + start;
            return 1;
        }
        return 0;
    }
    return 0;
}
