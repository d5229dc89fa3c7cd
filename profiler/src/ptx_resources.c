/* Static resources of a kernel: what it declares plus what it reaches
 * through calls and symbol references. */
#include <minibench/profiler.h>

#include <stdlib.h>
#include <string.h>

typedef struct reach {
    const mb_module *m;
    unsigned char *func_seen;
    unsigned char *var_seen;
    uint32_t *func_queue;
    uint32_t *var_queue;
    uint32_t nfunc_queue, nvar_queue;
    int indirect;
} reach;

static void mark_func(reach *r, uint32_t f)
{
    if (!r->func_seen[f]) {
        r->func_seen[f] = 1;
        r->func_queue[r->nfunc_queue++] = f;
    }
}

static void mark_var(reach *r, uint32_t v)
{
    if (!r->var_seen[v]) {
        r->var_seen[v] = 1;
        r->var_queue[r->nvar_queue++] = v;
    }
}

static void mark_symbol(reach *r, unsigned symkind, uint32_t sym)
{
    if (symkind == MB_SYM_FUNC)
        mark_func(r, sym);
    else if (symkind == MB_SYM_GLOBAL_VAR)
        mark_var(r, sym);
}

static void scan_operand(reach *r, const mb_function *fn, const mb_operand *o)
{
    switch ((mb_operand_kind)o->kind) {
    case MB_OPND_SYMBOL: mark_symbol(r, o->symkind, o->u.sym); break;
    case MB_OPND_ADDR:
        if (o->base_kind == MB_OPND_SYMBOL)
            mark_symbol(r, o->symkind, o->u.sym);
        break;
    case MB_OPND_VEC:
    case MB_OPND_LIST:
    case MB_OPND_BRACKET_LIST:
        for (uint32_t i = 0; i < o->u.list.count; i++)
            scan_operand(r, fn, &fn->operands[o->u.list.first + i]);
        break;
    default: break;
    }
}

static void scan_function(reach *r, const mb_function *fn)
{
    for (uint32_t i = 0; i < fn->ninsns; i++) {
        const mb_insn *insn = &fn->insns[i];
        for (unsigned k = 0; k < insn->noperands; k++)
            scan_operand(r, fn, mb_insn_operand(fn, insn, k));
        if (insn->opcode == MB_OP_CALL) {
            for (unsigned k = 0; k < insn->noperands; k++) {
                const mb_operand *o = mb_insn_operand(fn, insn, k);
                if (o->kind == MB_OPND_REG)
                    r->indirect = 1;
            }
        }
    }
    for (uint32_t i = 0; i < fn->nlabels; i++)
        if (fn->labels[i].kind == MB_LABEL_CALLTARGETS)
            for (uint32_t k = 0; k < fn->labels[i].ntargets; k++)
                mark_func(r, fn->labels[i].targets[k]);
}

static uint64_t align_up(uint64_t x, uint64_t a)
{
    return a > 1 ? (x + a - 1) / a * a : x;
}

mb_status mb_function_resources(const mb_module *m, const mb_function *fn, mb_resources *res,
                                mb_error *err)
{
    memset(res, 0, sizeof(*res));
    reach r;
    memset(&r, 0, sizeof(r));
    r.m = m;
    r.func_seen = calloc((size_t)m->nfuncs + 1, 1);
    r.var_seen = calloc((size_t)m->nvars + 1, 1);
    r.func_queue = malloc(((size_t)m->nfuncs + 1) * sizeof(uint32_t));
    r.var_queue = malloc(((size_t)m->nvars + 1) * sizeof(uint32_t));
    if (!r.func_seen || !r.var_seen || !r.func_queue || !r.var_queue) {
        free(r.func_seen);
        free(r.var_seen);
        free(r.func_queue);
        free(r.var_queue);
        return mb_error_set(err, MB_ERR_NOMEM, m->filename, 0, 0, "out of memory");
    }
    uint32_t self = (uint32_t)(fn - m->funcs);
    mark_func(&r, self);
    for (uint32_t qi = 0, vi = 0; qi < r.nfunc_queue || vi < r.nvar_queue;) {
        if (qi < r.nfunc_queue) {
            scan_function(&r, &m->funcs[r.func_queue[qi++]]);
            continue;
        }
        const mb_var *v = &m->vars[r.var_queue[vi++]];
        for (uint32_t k = 0; k < v->ninit; k++)
            if (v->init[k].kind == MB_INIT_ADDR || v->init[k].kind == MB_INIT_GENERIC_ADDR)
                mark_symbol(&r, v->init[k].symkind, v->init[k].sym);
    }
    res->ncallees = r.nfunc_queue - 1;
    res->has_indirect_calls = r.indirect;

    res->nparams = fn->nparams;
    for (uint32_t i = 0; i < fn->nparams; i++) {
        const mb_param *p = &fn->params[i];
        uint64_t a = p->align ? p->align : (uint64_t)mb_type_size(p->type) * p->vec;
        res->param_bytes = align_up(res->param_bytes, a) + p->size;
    }
    res->nregs = fn->nregs;
    for (uint32_t i = 0; i < fn->nregs; i++) {
        unsigned bytes = mb_type_size(fn->regs[i].type) * fn->regs[i].vec;
        int bucket = fn->regs[i].type == MB_TYPE_PRED ? 0 : bytes <= 2 ? 1 : bytes <= 4 ? 2
                                                        : bytes <= 8 ? 3 : 4;
        res->regs_by_size[bucket]++;
    }
    for (uint32_t qi = 0; qi < r.nfunc_queue; qi++) {
        const mb_function *f = &m->funcs[r.func_queue[qi]];
        for (uint32_t i = 0; i < f->nvars; i++) {
            const mb_var *v = &f->vars[i];
            if (v->space == MB_SPACE_SHARED)
                res->shared_bytes = align_up(res->shared_bytes, v->align) + v->size;
            else if (v->space == MB_SPACE_LOCAL)
                res->local_bytes = align_up(res->local_bytes, v->align) + v->size;
        }
    }
    for (uint32_t vi = 0; vi < r.nvar_queue; vi++) {
        const mb_var *v = &m->vars[r.var_queue[vi]];
        if (v->space == MB_SPACE_SHARED) {
            if (v->ndims && v->nelems == 0)
                res->dynamic_shared = 1;
            else
                res->shared_bytes = align_up(res->shared_bytes, v->align) + v->size;
        } else if (v->space == MB_SPACE_CONST) {
            res->const_bytes = align_up(res->const_bytes, v->align) + v->size;
        }
    }
    free(r.func_seen);
    free(r.var_seen);
    free(r.func_queue);
    free(r.var_queue);
    return MB_OK;
}
