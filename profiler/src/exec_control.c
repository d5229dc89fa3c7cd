/* Control flow: branches, indirect branches, calls, returns, exit, trap. */
#include "exec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* pc of a code label of the function being decoded */
static uint32_t label_pc(const decode_ctx *dc, uint32_t label)
{
    uint32_t at = dc->fn->labels[label].insn;
    return at < dc->fn->ninsns ? dc->ef->entry_pc + at : dc->ef->exit_pc;
}

static exec_result h_bra(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return exec_branch(w, mask, x->target, x->reconv);
}

static exec_result h_ret(exec_warp *w, const xinsn *x, uint32_t mask)
{
    const exec_func *ef = &w->cta->prog->funcs[x->func];
    return exec_branch(w, mask, ef->exit_pc, x->reconv);
}

static exec_result h_exit(exec_warp *w, const xinsn *x, uint32_t mask)
{
    (void)x;
    if (!mask)
        return EXEC_NEXT;
    return exec_exit_lanes(w, mask);
}

static exec_result h_trap(exec_warp *w, const xinsn *x, uint32_t mask)
{
    if (!mask)
        return EXEC_NEXT;
    return exec_fault_at(w, x, __builtin_ctz(mask), "trap instruction executed");
}

static exec_result h_brkpt(exec_warp *w, const xinsn *x, uint32_t mask)
{
    if (!mask)
        return EXEC_NEXT;
    return exec_fault_at(w, x, __builtin_ctz(mask), "breakpoint (brkpt) executed");
}

static exec_result h_nop(exec_warp *w, const xinsn *x, uint32_t mask)
{
    (void)w;
    (void)x;
    (void)mask;
    return EXEC_NEXT;
}

/* Lanes of `mask` whose value in `v` equals that of the lowest lane. */
static uint32_t same_as_first(const uint32_t *v, uint32_t mask, uint32_t *first_value)
{
    int f = __builtin_ctz(mask);
    uint32_t group = 0;
    *first_value = v[f];
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if (v[l] == v[f])
            group |= 1u << l;
    }
    return group;
}

/* Runs `group` now and makes the rest of `mask` execute this instruction
 * again afterwards; all of them reconverge at `rpc` (after the instruction
 * for a call, the post-dominator for an indirect branch). */
static exec_result split_and_retry(exec_warp *w, const xinsn *x, uint32_t mask, uint32_t group,
                                   uint32_t rpc)
{
    uint32_t rest = mask & ~group;
    if (!rest)
        return EXEC_NEXT;
    uint32_t self = (uint32_t)(x - w->code);
    simt_entry *top = &w->stack[w->depth - 1];
    top->pc = rpc;
    if (w->depth + 1 >= SIMT_MAX_DEPTH)
        return exec_fault_at(w, x, -1, "SIMT stack overflow");
    simt_entry *e = &w->stack[w->depth++];
    e->pc = self;
    e->rpc = w->pc;
    e->mask = rest;
    e->frame = 0;
    /* the group runs as the new top */
    if (w->depth + 1 >= SIMT_MAX_DEPTH)
        return exec_fault_at(w, x, -1, "SIMT stack overflow");
    e = &w->stack[w->depth++];
    e->pc = w->pc;
    e->rpc = rpc;
    e->mask = group;
    e->frame = 0;
    exec_settle_active(w);
    w->active = group;
    return EXEC_NEXT;
}

static exec_result h_brx(exec_warp *w, const xinsn *x, uint32_t mask)
{
    if (!mask)
        return EXEC_NEXT;
    const uint32_t *idx = xr32(w, x->op[0]);
    const uint32_t *targets = (const uint32_t *)(w->cta->prog->calls[x->aux].arg_off);
    uint32_t ntargets = w->cta->prog->calls[x->aux].nargs;
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if (idx[l] >= ntargets)
            return exec_fault_at(w, x, l, "brx.idx index %u is outside its %u targets", idx[l],
                                 ntargets);
    }
    uint32_t first;
    uint32_t group = same_as_first(idx, mask, &first);
    exec_result r = split_and_retry(w, x, mask, group, x->reconv);
    if (r != EXEC_NEXT)
        return r;
    return exec_branch(w, group, targets[first], x->reconv);
}

static exec_result h_call(exec_warp *w, const xinsn *x, uint32_t mask)
{
    if (!mask)
        return EXEC_NEXT;
    return exec_call(w, x, mask, x->target);
}

static exec_result h_call_indirect(exec_warp *w, const xinsn *x, uint32_t mask)
{
    if (!mask)
        return EXEC_NEXT;
    const mb_program *prog = w->cta->prog;
    const uint64_t *addr = xr64(w, x->op[0]);
    uint32_t index[32];
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint64_t off = addr[l] - MB_FUNC_ADDR_BASE;
        uint64_t f = off / MB_FUNC_ADDR_STRIDE;
        if (addr[l] < MB_FUNC_ADDR_BASE || off % MB_FUNC_ADDR_STRIDE || f >= prog->nfuncs)
            return exec_fault_at(w, x, l, "indirect call to 0x%" PRIx64 ", which is not a function",
                                 addr[l]);
        index[l] = (uint32_t)f;
    }
    uint32_t first;
    uint32_t group = same_as_first(index, mask, &first);
    exec_result r = split_and_retry(w, x, mask, group, w->pc);
    if (r != EXEC_NEXT)
        return r;
    return exec_call(w, x, group, first);
}

static mb_status decode_call(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    const mb_function *fn = dc->fn;
    const mb_operand *rets = NULL, *args = NULL, *target = NULL;
    for (unsigned i = 0; i < insn->noperands; i++) {
        const mb_operand *o = mb_insn_operand(fn, insn, i);
        if (o->kind == MB_OPND_LIST) {
            if (!target)
                rets = o;
            else if (!args)
                args = o;
        } else if (!target) {
            target = o;
        }
    }
    if (!target)
        return decode_unsupported(dc, insn, "call without a target");
    mb_program *prog = dc->prog;
    if (MB_GROW(prog->calls, prog->cap_calls, (size_t)prog->ncalls + 1) != MB_OK)
        return mb_error_set(dc->err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    exec_call_info *ci = &prog->calls[prog->ncalls];
    memset(ci, 0, sizeof(*ci));
    x->aux = prog->ncalls++;
    const mb_operand *lists[2] = {args, rets};
    for (int k = 0; k < 2; k++) {
        const mb_operand *list = lists[k];
        uint32_t n = list ? list->u.list.count : 0;
        uint32_t *off = calloc((size_t)n + 1, sizeof(uint32_t));
        uint32_t *size = calloc((size_t)n + 1, sizeof(uint32_t));
        if (!off || !size) {
            free(off);
            free(size);
            return mb_error_set(dc->err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        }
        if (k == 0) {
            ci->nargs = n, ci->arg_off = off, ci->arg_size = size;
        } else {
            ci->nrets = n, ci->ret_off = off, ci->ret_size = size;
        }
        for (uint32_t i = 0; i < n; i++) {
            const mb_operand *o = &fn->operands[list->u.list.first + i];
            if (o->kind != MB_OPND_SYMBOL || o->symkind != MB_SYM_LOCAL_VAR ||
                fn->vars[o->u.sym].space != MB_SPACE_PARAM)
                return decode_unsupported(dc, insn,
                                          "call arguments must be .param variables of the caller");
            off[i] = dc->ef->var_offset[o->u.sym];
            size[i] = (uint32_t)fn->vars[o->u.sym].size;
        }
    }
    if (target->kind == MB_OPND_SYMBOL && target->symkind == MB_SYM_FUNC) {
        const mb_function *callee = &dc->module->funcs[target->u.sym];
        if (callee->nparams != ci->nargs || callee->nrets != ci->nrets)
            return decode_unsupported(dc, insn,
                                      "call passes a different number of arguments or results "
                                      "than the callee declares");
        x->target = target->u.sym;
        x->fn = h_call;
        return MB_OK;
    }
    if (target->kind == MB_OPND_REG && decode_reg_bits(dc, target) == 64) {
        ci->indirect = 1;
        x->op[0] = dc->ef->reg_ref[target->u.reg];
        x->fn = h_call_indirect;
        return MB_OK;
    }
    return decode_unsupported(dc, insn, "call target must be a function or a 64-bit register");
}

static mb_status decode_brx(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    const mb_operand *idx = mb_insn_operand(dc->fn, insn, 0);
    const mb_operand *tbl = mb_insn_operand(dc->fn, insn, 1);
    if (tbl->kind != MB_OPND_LABEL || dc->fn->labels[tbl->u.label].kind != MB_LABEL_BRANCHTARGETS)
        return decode_unsupported(dc, insn, "brx.idx needs a .branchtargets label");
    mb_status st = decode_operand(dc, insn, idx, MB_TYPE_U32, &x->op[0]);
    if (st != MB_OK)
        return st;
    const mb_label *l = &dc->fn->labels[tbl->u.label];
    mb_program *prog = dc->prog;
    if (MB_GROW(prog->calls, prog->cap_calls, (size_t)prog->ncalls + 1) != MB_OK)
        return mb_error_set(dc->err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    exec_call_info *ci = &prog->calls[prog->ncalls];
    memset(ci, 0, sizeof(*ci));
    /* the target table reuses a call-info record: arg_off holds target pcs */
    ci->arg_off = calloc((size_t)l->ntargets + 1, sizeof(uint32_t));
    if (!ci->arg_off)
        return mb_error_set(dc->err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    ci->nargs = l->ntargets;
    for (uint32_t i = 0; i < l->ntargets; i++)
        ci->arg_off[i] = label_pc(dc, l->targets[i]);
    x->aux = prog->ncalls++;
    x->fn = h_brx;
    return MB_OK;
}

mb_status decode_control(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    decode_common_mods(insn, x);
    switch ((mb_opcode)insn->opcode) {
    case MB_OP_BRA: {
        const mb_operand *o = mb_insn_operand(dc->fn, insn, 0);
        x->target = label_pc(dc, o->u.label);
        x->fn = h_bra;
        return MB_OK;
    }
    case MB_OP_BRX: return decode_brx(dc, insn, x);
    case MB_OP_CALL: return decode_call(dc, insn, x);
    case MB_OP_RET: x->fn = h_ret; return MB_OK;
    case MB_OP_EXIT: x->fn = h_exit; return MB_OK;
    case MB_OP_TRAP: x->fn = h_trap; return MB_OK;
    case MB_OP_BRKPT: x->fn = h_brkpt; return MB_OK;
    case MB_OP_NANOSLEEP:
    case MB_OP_PMEVENT: x->fn = h_nop; return MB_OK;
    default: return decode_unsupported(dc, insn, "not a control-flow instruction");
    }
}
