/* Stepping a launch one warp instruction at a time (profiler.h, "stepping a
 * launch"): the cycle simulator decides which warp issues when, and this file
 * executes exactly what mb_launch()'s run loop would for that warp. */
#include "exec.h"

#include <stdlib.h>
#include <string.h>

struct mb_step_cta {
    exec_cta cta;
    struct mb_stepper *owner;
    uint64_t index;
    uint32_t live_warps;
    int in_use;
    struct mb_step_cta *next_free;
};

struct mb_stepper {
    mb_program *prog;
    mb_memory *mem;
    const mb_launch_config *cfg;
    const mb_observer *observer;
    uint64_t nctas;
    uint32_t nwarps;
    uint32_t shared_bytes, local_bytes;
    uint64_t max_insts; /* 0: no budget */
    uint64_t used_insts;
    mb_exec_stats stats;
    mb_step_cta **all; /* every workspace ever allocated, for freeing */
    size_t nall, cap_all;
    mb_step_cta *free_list; /* finished workspaces, reused by the next CTA */
};

mb_status mb_stepper_new(mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                         const mb_exec_options *opt, mb_stepper **out, mb_error *err)
{
    *out = NULL;
    mb_status st = exec_check_launch(prog, cfg, err);
    if (st != MB_OK)
        return st;
    mb_stepper *s = calloc(1, sizeof(*s));
    if (!s)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    s->prog = prog;
    s->mem = mem;
    s->cfg = cfg;
    s->observer = opt ? opt->observer : NULL;
    s->max_insts = opt ? opt->max_warp_insts : 0;
    s->nctas = (uint64_t)cfg->grid.x * cfg->grid.y * cfg->grid.z;
    uint32_t nthreads = cfg->block.x * cfg->block.y * cfg->block.z;
    s->nwarps = (nthreads + 31) / 32;
    exec_launch_sizes(prog, cfg, opt, &s->shared_bytes, &s->local_bytes);
    *out = s;
    return MB_OK;
}

void mb_stepper_free(mb_stepper *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nall; i++) {
        exec_cta_free(&s->all[i]->cta);
        free(s->all[i]);
    }
    free(s->all);
    free(s);
}

uint64_t mb_stepper_nctas(const mb_stepper *s)
{
    return s->nctas;
}

uint32_t mb_stepper_cta_warps(const mb_stepper *s)
{
    return s->nwarps;
}

uint32_t mb_stepper_shared_bytes(const mb_stepper *s)
{
    return s->shared_bytes;
}

static mb_step_cta *new_workspace(mb_stepper *s)
{
    if (s->free_list) {
        mb_step_cta *c = s->free_list;
        s->free_list = c->next_free;
        return c;
    }
    if (s->nall == s->cap_all) {
        size_t n = s->cap_all ? s->cap_all * 2 : 16;
        mb_step_cta **grown = realloc(s->all, n * sizeof(*grown));
        if (!grown)
            return NULL;
        s->all = grown;
        s->cap_all = n;
    }
    mb_step_cta *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    s->all[s->nall++] = c;
    if (!exec_cta_alloc(&c->cta, s->prog, s->mem, s->cfg, s->observer, s->shared_bytes,
                        s->local_bytes))
        return NULL; /* freed with the stepper */
    return c;
}

mb_status mb_stepper_cta_start(mb_stepper *s, uint64_t index, mb_step_cta **out, mb_error *err)
{
    *out = NULL;
    if (index >= s->nctas)
        return mb_error_set(err, MB_ERR_INVALID, s->prog->module->filename, 0, 0,
                            "kernel %s: CTA %llu is outside the grid of %llu CTAs",
                            s->cfg->kernel->name, (unsigned long long)index,
                            (unsigned long long)s->nctas);
    mb_step_cta *c = new_workspace(s);
    if (!c)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of host memory for a CTA of kernel %s",
                            s->cfg->kernel->name);
    const mb_dim3 g = s->cfg->grid;
    mb_dim3 ctaid = {(uint32_t)(index % g.x), (uint32_t)((index / g.x) % g.y),
                     (uint32_t)(index / ((uint64_t)g.x * g.y))};
    c->cta.budget = UINT64_MAX; /* the stepper counts the budget across CTAs */
    c->cta.record_addrs = 1; /* timing models need every memory access's addresses */
    c->owner = s;
    c->cta.fault.set = 0;
    c->index = index;
    c->in_use = 1;
    c->live_warps = c->cta.nwarps;
    if (exec_cta_begin(&c->cta, ctaid) == EXEC_FAULT) {
        mb_status st = exec_fault_error(s->prog, &c->cta.fault, err);
        c->in_use = 0;
        c->next_free = s->free_list;
        s->free_list = c;
        return st;
    }
    *out = c;
    return MB_OK;
}

void mb_stepper_cta_finish(mb_stepper *s, mb_step_cta *c)
{
    if (!c || !c->in_use)
        return;
    exec_cta *cta = &c->cta;
    for (uint32_t i = 0; i < cta->nwarps; i++) {
        exec_warp *w = &cta->warps[i];
        exec_settle_active(w);
        s->stats.warp_insts += w->warp_insts;
        s->stats.thread_insts += w->thread_insts;
    }
    s->stats.ctas++;
    s->stats.warps += cta->nwarps;
    s->stats.threads += cta->nthreads;
    c->in_use = 0;
    c->next_free = s->free_list;
    s->free_list = c;
}

uint64_t mb_step_cta_index(const mb_step_cta *c)
{
    return c->index;
}

mb_warp_state mb_step_warp_state(const mb_step_cta *c, uint32_t warp)
{
    const exec_warp *w = &c->cta.warps[warp];
    return w->done ? MB_WARP_DONE : w->at_barrier ? MB_WARP_BARRIER : MB_WARP_READY;
}

uint32_t mb_step_warp_pc(const mb_step_cta *c, uint32_t warp)
{
    return c->cta.warps[warp].pc;
}

uint32_t mb_step_cta_live_warps(const mb_step_cta *c)
{
    return c->live_warps;
}

/* After a warp blocked or exited: a CTA with warps at barriers and none
 * able to run can never continue. */
static int cta_deadlocked(const exec_cta *cta)
{
    int waiting = 0;
    for (uint32_t i = 0; i < cta->nwarps; i++) {
        const exec_warp *w = &cta->warps[i];
        if (w->done)
            continue;
        if (!w->at_barrier)
            return 0;
        waiting = 1;
    }
    return waiting;
}

mb_status mb_step_warp(mb_step_cta *c, uint32_t warp, mb_step_event *ev, mb_error *err)
{
    exec_cta *cta = &c->cta;
    exec_warp *w = &cta->warps[warp];
    const xinsn *x = &w->code[w->pc];
    const mb_program *prog = cta->prog;
    mb_stepper *s = c->owner;
    uint32_t active = w->active;
    uint32_t mask = x->guard < 0 ? active : (w->preds[x->guard] ^ x->guard_xor) & active;
    const exec_func *ef = &prog->funcs[x->func];
    ev->pc = (uint32_t)(x - w->code);
    ev->fn = ef->fn;
    ev->insn = x->src ? (uint32_t)(x->src - ef->fn->insns) : ef->fn->ninsns;
    ev->active = active;
    ev->executed = mask;
    ev->taken = 0;
    ev->flags = 0;
    ev->space = MB_SPACE_NONE;
    ev->access_bytes = 0;
    ev->addrs = NULL;
    if (s->max_insts && ++s->used_insts > s->max_insts) {
        exec_fault_at(w, x, -1, "instruction budget exhausted");
        return exec_fault_error(prog, &cta->fault, err);
    }
    int is_mem = x->fn != exec_function_exit && (mb_opcode_get((mb_opcode)x->opcode)->flags & MB_OPF_M);
    if (is_mem)
        w->access_bytes = 0;
    w->pc++;
    w->warp_insts++;
    w->seg_insts++;
    exec_result r = x->fn(w, x, mask);
    if (cta->observer && x->fn != exec_function_exit)
        exec_observe(w, x, active, mask);
    if (r == EXEC_FAULT)
        return exec_fault_error(prog, &cta->fault, err);
    if (x->opcode == MB_OP_BRA || x->opcode == MB_OP_BRX)
        ev->taken = w->taken;
    if (is_mem && w->access_bytes && mask) {
        ev->flags |= MB_STEP_MEMORY;
        ev->space = (mb_space)w->access_space;
        ev->access_bytes = w->access_bytes;
        ev->addrs = w->addrs;
    }
    if (r == EXEC_BARRIER) {
        ev->flags |= MB_STEP_BARRIER;
    } else if (!w->done && w->pc == w->stack[w->depth - 1].rpc) {
        w->stack[w->depth - 1].pc = w->pc;
        exec_reconverge(w);
    }
    if (w->done) {
        ev->flags |= MB_STEP_EXITED;
        c->live_warps--;
    }
    if (w->active != active)
        ev->flags |= MB_STEP_DIVERGED;
    if (ev->flags & (MB_STEP_BARRIER | MB_STEP_EXITED)) {
        if (exec_release_barriers(cta))
            ev->flags |= MB_STEP_RELEASED;
        else if (cta_deadlocked(cta)) {
            exec_barrier_deadlock(cta);
            return exec_fault_error(prog, &cta->fault, err);
        }
    }
    ev->next_pc = w->pc;
    return MB_OK;
}

void mb_stepper_stats(const mb_stepper *s, mb_exec_stats *stats)
{
    *stats = s->stats;
}

uint32_t mb_program_ncode(const mb_program *prog)
{
    return prog->ncode;
}

const mb_function *mb_program_code_insn(const mb_program *prog, uint32_t pc, uint32_t *insn)
{
    if (pc >= prog->ncode)
        return NULL;
    const xinsn *x = &prog->code[pc];
    const mb_function *fn = prog->funcs[x->func].fn;
    *insn = x->src ? (uint32_t)(x->src - fn->insns) : fn->ninsns;
    return fn;
}
