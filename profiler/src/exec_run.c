/* Running launches: CTAs on host threads, warps in a CTA, the interpreter
 * loop, the SIMT reconvergence stack, calls, exits and barriers. */
#define _POSIX_C_SOURCE 200809L
#include "exec.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DEFAULT_RECURSIVE_STACK = 16 * 1024, MAX_STACK = 1 << 20, MAX_DYNAMIC_SHARED = 16 << 20 };

/* ------------------------------------------------------------- frames */

static void load_frame(exec_warp *w)
{
    const exec_frame *fr = &w->frames[w->call_depth];
    w->func = fr->func;
    w->base[0] = w->regstack + fr->regs_off;
    w->preds = w->predstack + fr->preds_off;
    w->base[3] = w->preds;
}

/* Makes the top SIMT entry current: pc, active mask and frame. */
static void load_top(exec_warp *w)
{
    const simt_entry *top = &w->stack[w->depth - 1];
    exec_settle_active(w);
    w->pc = top->pc;
    w->active = top->mask;
}

static void init_preds(uint32_t *preds, uint32_t n)
{
    memset(preds, 0, n * sizeof(uint32_t));
    preds[PRED_TRUE] = 0xFFFFFFFFu;
}

/* Grows the register and predicate stacks for one more frame. */
static int reserve_frame(exec_warp *w, uint32_t regs_end, uint32_t preds_end)
{
    if (regs_end == 0)
        regs_end = 2; /* keep base[0] valid for functions without registers */
    if (regs_end > w->regstack_words) {
        uint32_t n = w->regstack_words ? w->regstack_words : 1024;
        while (n < regs_end)
            n *= 2;
        uint32_t *grown = realloc(w->regstack, (size_t)n * sizeof(uint32_t));
        if (!grown)
            return 0;
        w->regstack = grown;
        w->regstack_words = n;
    }
    if (preds_end > w->predstack_count) {
        uint32_t n = w->predstack_count ? w->predstack_count : 64;
        while (n < preds_end)
            n *= 2;
        uint32_t *grown = realloc(w->predstack, (size_t)n * sizeof(uint32_t));
        if (!grown)
            return 0;
        w->predstack = grown;
        w->predstack_count = n;
    }
    return 1;
}

/* ------------------------------------------------------- SIMT stack */

static int push_entry(exec_warp *w, uint32_t pc, uint32_t rpc, uint32_t mask, uint32_t frame)
{
    if (w->depth == SIMT_MAX_DEPTH)
        return 0;
    simt_entry *e = &w->stack[w->depth++];
    e->pc = pc;
    e->rpc = rpc;
    e->mask = mask;
    e->frame = frame;
    return 1;
}

/* Pops a call frame entry: copies return values to the caller and restores
 * the caller's frame for the lanes that made the call. */
static void return_from_call(exec_warp *w, uint32_t lanes)
{
    const mb_program *prog = w->cta->prog;
    const exec_frame *fr = &w->frames[w->call_depth];
    const exec_frame *caller = &w->frames[w->call_depth - 1];
    const exec_func *callee = &prog->funcs[fr->func];
    uint32_t caller_bytes = prog->funcs[caller->func].frame_bytes;
    const exec_call_info *ci = &prog->calls[fr->call->aux];
    for (uint32_t m = lanes; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint8_t *local = w->local + (size_t)l * w->local_bytes;
        uint32_t callee_sp = w->sp[l];
        uint32_t caller_sp = callee_sp - caller_bytes;
        for (uint32_t i = 0; i < ci->nrets && i < callee->fn->nrets; i++)
            memcpy(local + caller_sp + ci->ret_off[i], local + callee_sp + callee->ret_offset[i],
                   ci->ret_size[i]);
        w->sp[l] = caller_sp;
    }
    w->call_depth--;
    load_frame(w);
}

/* Pops entries whose pc reached their reconvergence point. */
static void reconverge(exec_warp *w)
{
    do {
        simt_entry popped = w->stack[--w->depth];
        if (popped.frame && w->call_depth > 0) /* the kernel's own entry has no caller */
            return_from_call(w, popped.mask & w->live);
        if (w->depth == 0) {
            exec_settle_active(w);
            w->active = 0;
            w->done = 1;
            return;
        }
        load_top(w);
    } while (w->pc == w->stack[w->depth - 1].rpc);
}

void exec_reconverge(exec_warp *w)
{
    reconverge(w);
}

exec_result exec_branch(exec_warp *w, uint32_t taken, uint32_t target, uint32_t reconv)
{
    const xinsn *x = &w->code[w->pc - 1];
    uint32_t not_taken = w->active & ~taken;
    w->taken = taken;
    if (!taken)
        return EXEC_NEXT;
    if (!not_taken) {
        w->pc = target;
        return EXEC_NEXT;
    }
    simt_entry *top = &w->stack[w->depth - 1];
    uint32_t fallthrough = w->pc;
    /* When the branch reconverges where the current entry does (a loop exit
     * inside a loop's own entry, an early-out to the end), the entry below
     * already waits there with these lanes: the leaving lanes just drop out.
     * Not for a call frame's entry: its lanes must all pass through the return. */
    if (top->rpc == reconv && top->frame == 0 && (fallthrough == reconv || target == reconv)) {
        uint32_t stay = fallthrough == reconv ? taken : not_taken;
        exec_settle_active(w);
        top->mask = stay;
        w->active = stay;
        if (fallthrough == reconv)
            w->pc = target;
        return EXEC_NEXT;
    }
    /* divergence: the current entry waits at the reconvergence point */
    top->pc = reconv;
    if (fallthrough != reconv && !push_entry(w, fallthrough, reconv, not_taken, 0))
        return exec_fault_at(w, x, -1, "SIMT stack overflow (more than %d nested divergences)",
                             SIMT_MAX_DEPTH);
    if (target != reconv && !push_entry(w, target, reconv, taken, 0))
        return exec_fault_at(w, x, -1, "SIMT stack overflow (more than %d nested divergences)",
                             SIMT_MAX_DEPTH);
    load_top(w);
    return EXEC_EXITED;
}

exec_result exec_call(exec_warp *w, const xinsn *x, uint32_t mask, uint32_t callee_index)
{
    const mb_program *prog = w->cta->prog;
    const exec_func *caller = &prog->funcs[w->func];
    const exec_func *callee = &prog->funcs[callee_index];
    const exec_call_info *ci = &prog->calls[x->aux];
    if (callee->entry_pc == UINT32_MAX)
        return exec_fault_at(w, x, __builtin_ctz(mask),
                             "call of '%s', which has no body in this module", callee->fn->name);
    if (w->call_depth + 1 >= w->frames_cap) {
        uint32_t n = w->frames_cap * 2;
        exec_frame *grown = realloc(w->frames, n * sizeof(exec_frame));
        if (!grown)
            return exec_fault_at(w, x, -1, "out of host memory for call frames");
        w->frames = grown;
        w->frames_cap = n;
    }
    const exec_frame *cur = &w->frames[w->call_depth];
    exec_frame *next = &w->frames[w->call_depth + 1];
    next->func = callee_index;
    next->regs_off = cur->regs_off + caller->regfile_words;
    next->preds_off = cur->preds_off + caller->npreds;
    next->call = x;
    if (!reserve_frame(w, next->regs_off + callee->regfile_words, next->preds_off + callee->npreds))
        return exec_fault_at(w, x, -1, "out of host memory for registers of '%s'", callee->fn->name);
    /* arguments: caller's .param variables into the callee's frame */
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        uint32_t sp = w->sp[l];
        uint64_t new_sp = (uint64_t)sp + caller->frame_bytes;
        if (new_sp + callee->frame_bytes > w->local_bytes)
            return exec_fault_at(w, x, l,
                                 "stack overflow calling '%s': %u bytes of stack per thread are "
                                 "not enough (use a larger stack)",
                                 callee->fn->name, w->local_bytes);
        uint8_t *local = w->local + (size_t)l * w->local_bytes;
        for (uint32_t i = 0; i < ci->nargs && i < callee->fn->nparams; i++)
            memcpy(local + new_sp + callee->param_offset[i], local + sp + ci->arg_off[i],
                   ci->arg_size[i]);
    }
    w->stack[w->depth - 1].pc = w->pc; /* everyone resumes after the call */
    if (!push_entry(w, callee->entry_pc, callee->exit_pc, mask, w->call_depth + 2))
        return exec_fault_at(w, x, -1, "SIMT stack overflow (calls nested too deeply)");
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        w->sp[l] += caller->frame_bytes;
    }
    w->call_depth++;
    load_frame(w);
    memset(w->base[0], 0, (size_t)callee->regfile_words * sizeof(uint32_t));
    init_preds(w->preds, callee->npreds);
    load_top(w);
    return EXEC_EXITED;
}

exec_result exec_function_exit(exec_warp *w, const xinsn *x, uint32_t mask)
{
    (void)x;
    (void)mask;
    /* lanes that reached the end of the function without a matching
     * reconvergence point: their entry is finished */
    w->stack[w->depth - 1].pc = w->stack[w->depth - 1].rpc;
    w->pc = w->stack[w->depth - 1].rpc;
    return EXEC_NEXT;
}

exec_result exec_exit_lanes(exec_warp *w, uint32_t lanes)
{
    w->stack[w->depth - 1].pc = w->pc;
    exec_settle_active(w);
    w->live &= ~lanes;
    for (uint32_t i = 0; i < w->depth; i++)
        w->stack[i].mask &= ~lanes;
    while (w->depth && w->stack[w->depth - 1].mask == 0) {
        simt_entry popped = w->stack[--w->depth];
        if (popped.frame && w->call_depth) {
            w->call_depth--;
            load_frame(w);
        }
    }
    if (w->depth == 0) {
        w->active = 0;
        w->done = 1;
        return EXEC_EXITED;
    }
    load_top(w);
    if (w->pc == w->stack[w->depth - 1].rpc)
        reconverge(w);
    return EXEC_EXITED;
}

/* ------------------------------------------------------------ barriers */

/* Lanes parked (not active) at an unguarded exit of the kernel: the
 * `if (tid >= n) return;` before a __syncthreads() that nvcc compiles into
 * a branch to the kernel's final ret. They have finished their work, as
 * hardware treats them, so they do not make a barrier divergent. */
static uint32_t lanes_about_to_exit(const exec_warp *w)
{
    uint32_t lanes = 0;
    for (uint32_t i = 0; i + 1 < w->depth; i++) {
        const simt_entry *e = &w->stack[i];
        const xinsn *t = &w->code[e->pc];
        int kernel_level = w->call_depth == 0;
        if (t->guard < 0 && (t->opcode == MB_OP_EXIT ||
                             (kernel_level && (t->opcode == MB_OP_RET || t->fn == exec_function_exit))))
            lanes |= e->mask;
    }
    return lanes & ~w->active;
}

exec_result exec_barrier_arrive(exec_warp *w, const xinsn *x, uint32_t id, uint32_t count, int wait)
{
    exec_cta *cta = w->cta;
    if (id >= 16)
        return exec_fault_at(w, x, __builtin_ctz(w->active | 1), "barrier id %u is out of range (0-15)", id);
    if (w->active != w->live && (w->live & ~w->active & ~lanes_about_to_exit(w)))
        return exec_fault_at(w, x, __builtin_ctz(w->active | 1),
                             "barrier divergence: barrier %u reached by lanes 0x%08x of warp %u "
                             "while lanes 0x%08x have not exited",
                             id, w->active, w->index, w->live);
    exec_barrier *b = &cta->barriers[id];
    if (count && b->expected && count != b->expected)
        return exec_fault_at(w, x, __builtin_ctz(w->active | 1),
                             "barrier %u used with thread counts %u and %u at once", id, count,
                             b->expected);
    if (count)
        b->expected = count;
    b->arrived += 32;
    if (!wait)
        return EXEC_NEXT;
    w->at_barrier = (int)id + 1;
    w->barrier_count = count;
    return EXEC_BARRIER;
}

/* Threads a barrier without a count waits for: every warp not finished. */
static uint32_t cta_live_threads(const exec_cta *cta)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < cta->nwarps; i++)
        if (!cta->warps[i].done)
            n += 32;
    return n;
}

uint32_t exec_release_barriers(exec_cta *cta)
{
    uint32_t released = 0;
    for (uint32_t id = 0; id < 16; id++) {
        exec_barrier *b = &cta->barriers[id];
        if (!b->arrived)
            continue;
        uint32_t need = b->expected ? b->expected : cta_live_threads(cta);
        if (b->arrived < need)
            continue;
        uint32_t popc = 0, all = 1, any = 0;
        for (uint32_t i = 0; i < cta->nwarps; i++) {
            exec_warp *w = &cta->warps[i];
            if (w->at_barrier == (int)id + 1 && w->bar_red) {
                popc += (uint32_t)mb_popcount32(w->bar_red_in);
                all &= w->bar_red_in == w->live;
                any |= w->bar_red_in != 0;
            }
        }
        for (uint32_t i = 0; i < cta->nwarps; i++) {
            exec_warp *w = &cta->warps[i];
            if (w->at_barrier != (int)id + 1)
                continue;
            if (w->bar_red == 1) {
                uint32_t *d = xr32(w, w->bar_red_dest);
                FOR_LANES(w->active, l, d[l] = popc);
            } else if (w->bar_red) {
                uint32_t v = w->bar_red == 2 ? all : any;
                w->preds[XREF_INDEX(w->bar_red_dest)] = v ? 0xFFFFFFFFu : 0;
            }
            w->at_barrier = 0;
            w->bar_red = 0;
            released++;
        }
        memset(b, 0, sizeof(*b));
    }
    return released;
}

exec_result exec_barrier_deadlock(exec_cta *cta)
{
    char waits[400] = "";
    size_t len = 0;
    exec_warp *first = NULL;
    for (uint32_t i = 0; i < cta->nwarps && len < sizeof(waits) - 40; i++) {
        exec_warp *w = &cta->warps[i];
        if (w->at_barrier) {
            if (!first)
                first = w;
            len += (size_t)snprintf(waits + len, sizeof(waits) - len, "%swarp %u at barrier %d",
                                    len ? ", " : "", i, w->at_barrier - 1);
        }
    }
    const exec_barrier *b = &cta->barriers[first->at_barrier - 1];
    return exec_fault_at(first, &first->code[first->pc - 1], -1,
                         "barrier deadlock: %s; barrier %d has %u of %u threads and no warp can "
                         "run",
                         waits, first->at_barrier - 1, b->arrived,
                         b->expected ? b->expected : cta_live_threads(cta));
}

/* ------------------------------------------------------ interpreter */

void exec_observe(exec_warp *w, const xinsn *x, uint32_t active, uint32_t mask)
{
    const exec_cta *cta = w->cta;
    const exec_func *ef = &cta->prog->funcs[x->func];
    mb_insn_event ev = {.fn = ef->fn,
                        .insn = x->src ? (uint32_t)(x->src - ef->fn->insns) : ef->fn->ninsns,
                        .ctaid = cta->ctaid,
                        .warp = w->index,
                        .active = active,
                        .executed = mask};
    if (x->opcode == MB_OP_BRA || x->opcode == MB_OP_BRX) {
        ev.taken = w->taken;
    } else if (x->opcode == MB_OP_SETP) {
        /* setp writes only predicates: its sources still hold what it compared */
        ev.compared[0] = xr32(w, x->op[2]);
        ev.compared[1] = xr32(w, x->op[3]);
    }
    if (mb_opcode_get((mb_opcode)x->opcode)->flags & MB_OPF_M) { /* run_warp never observes the exit pseudo-instruction */
        ev.space = (mb_space)w->access_space;
        ev.access_bytes = w->access_bytes;
        ev.addrs = w->addrs;
    }
    cta->observer->on_insn(cta->observer->ctx, &ev);
}

/* Runs warp `w` until it finishes, waits at a barrier or faults. */
static exec_result run_warp(exec_warp *w)
{
    exec_cta *cta = w->cta;
    const xinsn *code = w->code;
    const uint8_t *observe = cta->observe;
    for (;;) {
        const uint32_t pc = w->pc;
        const xinsn *x = &code[pc];
        uint32_t active = w->active;
        uint32_t mask = x->guard < 0 ? active : (w->preds[x->guard] ^ x->guard_xor) & active;
        if (--cta->budget == 0)
            return exec_fault_at(w, x, -1, "instruction budget exhausted");
        w->pc++;
        w->warp_insts++;
        w->seg_insts++;
        exec_result r = x->fn(w, x, mask);
        if (observe && observe[pc])
            exec_observe(w, x, active, mask);
        if (r != EXEC_NEXT) {
            if (r == EXEC_FAULT || r == EXEC_BARRIER)
                return r;
            if (w->done)
                return EXEC_EXITED;
        }
        if (w->pc == w->stack[w->depth - 1].rpc) {
            w->stack[w->depth - 1].pc = w->pc;
            reconverge(w);
            if (w->done)
                return EXEC_EXITED;
        }
    }
}

/* -------------------------------------------------------------- CTAs */

typedef struct cta_workspace {
    exec_cta cta;
    uint32_t warps_cap;
} cta_workspace;

void exec_warp_free(exec_warp *w)
{
    free(w->regstack);
    free(w->predstack);
    free(w->stack);
    free(w->frames);
    free(w->local);
    memset(w, 0, sizeof(*w));
}

static void set_sreg(exec_warp *w, exec_sreg_slot s, uint32_t v)
{
    uint32_t *d = &w->sregs[s * 32];
    for (int l = 0; l < 32; l++)
        d[l] = v;
}

int exec_warp_start(exec_warp *w, exec_cta *cta, uint32_t index)
{
    const mb_program *prog = cta->prog;
    const mb_launch_config *cfg = cta->cfg;
    uint32_t kernel = (uint32_t)(cfg->kernel - prog->module->funcs);
    const exec_func *ef = &prog->funcs[kernel];
    w->cta = cta;
    w->code = prog->code;
    w->index = index;
    uint32_t first = index * 32;
    uint32_t n = cta->nthreads - first < 32 ? cta->nthreads - first : 32;
    w->live = n == 32 ? 0xFFFFFFFFu : (1u << n) - 1;
    w->done = 0;
    w->at_barrier = 0;
    w->bar_red = 0;
    w->depth = 0;
    w->call_depth = 0;
    w->warp_insts = w->thread_insts = w->seg_insts = 0;
    w->taken = 0;
    if (!w->stack)
        w->stack = malloc(SIMT_MAX_DEPTH * sizeof(simt_entry));
    if (!w->frames) {
        w->frames_cap = 16;
        w->frames = malloc(w->frames_cap * sizeof(exec_frame));
    }
    if (!w->stack || !w->frames || !reserve_frame(w, ef->regfile_words, ef->npreds))
        return 0;
    w->frames[0].func = kernel;
    w->frames[0].regs_off = 0;
    w->frames[0].preds_off = 0;
    w->frames[0].call = NULL;
    w->base[1] = w->sregs;
    w->base[2] = prog->pool;
    load_frame(w);
    memset(w->base[0], 0, (size_t)ef->regfile_words * sizeof(uint32_t));
    init_preds(w->preds, ef->npreds);
    memset(w->sp, 0, sizeof(w->sp));
    memset(w->carry, 0, sizeof(w->carry));
    push_entry(w, ef->entry_pc, ef->exit_pc, w->live, 1);
    w->pc = ef->entry_pc;
    w->active = w->live;
    /* special registers: only those the program reads */
    uint32_t used = prog->sreg_used;
    const mb_dim3 b = cfg->block, g = cfg->grid;
    if (used & ((1u << SS_TID_X) | (1u << SS_TID_Y) | (1u << SS_TID_Z))) {
        for (int l = 0; l < 32; l++) {
            uint32_t t = first + (uint32_t)l;
            w->sregs[SS_TID_X * 32 + l] = t % b.x;
            w->sregs[SS_TID_Y * 32 + l] = (t / b.x) % b.y;
            w->sregs[SS_TID_Z * 32 + l] = t / (b.x * b.y);
        }
    }
    const struct {
        exec_sreg_slot slot;
        uint32_t value;
    } uniform[] = {{SS_NTID_X, b.x},           {SS_NTID_Y, b.y},
                   {SS_NTID_Z, b.z},           {SS_CTAID_X, cta->ctaid.x},
                   {SS_CTAID_Y, cta->ctaid.y}, {SS_CTAID_Z, cta->ctaid.z},
                   {SS_NCTAID_X, g.x},         {SS_NCTAID_Y, g.y},
                   {SS_NCTAID_Z, g.z},         {SS_WARPID, index},
                   {SS_NWARPID, cta->nwarps},  {SS_SMID, 0},
                   {SS_NSMID, 1},              {SS_GRIDID, 1},
                   {SS_TOTAL_SMEM, cta->shared_bytes}, {SS_DYNAMIC_SMEM, cfg->dynamic_shared},
                   {SS_AGGR_SMEM, cta->shared_bytes}};
    for (size_t k = 0; k < sizeof(uniform) / sizeof(uniform[0]); k++)
        if (used & (1u << uniform[k].slot))
            set_sreg(w, uniform[k].slot, uniform[k].value);
    if (used & ((1u << SS_LANEID) | (1u << SS_LANEMASK_EQ) | (1u << SS_LANEMASK_LE) |
                (1u << SS_LANEMASK_LT) | (1u << SS_LANEMASK_GE) | (1u << SS_LANEMASK_GT))) {
        for (int l = 0; l < 32; l++) {
            uint32_t bit = 1u << l;
            w->sregs[SS_LANEID * 32 + l] = (uint32_t)l;
            w->sregs[SS_LANEMASK_EQ * 32 + l] = bit;
            w->sregs[SS_LANEMASK_LT * 32 + l] = bit - 1;
            w->sregs[SS_LANEMASK_LE * 32 + l] = bit | (bit - 1);
            w->sregs[SS_LANEMASK_GE * 32 + l] = ~(bit - 1);
            w->sregs[SS_LANEMASK_GT * 32 + l] = ~(bit | (bit - 1));
        }
    }
    return 1;
}

exec_result exec_cta_begin(exec_cta *cta, mb_dim3 ctaid)
{
    cta->ctaid = ctaid;
    memset(cta->barriers, 0, sizeof(cta->barriers));
    memset(cta->shared, 0, cta->shared_bytes);
    for (uint32_t i = 0; i < cta->nwarps; i++)
        if (!exec_warp_start(&cta->warps[i], cta, i))
            return exec_fault_at(&cta->warps[i], NULL, -1, "out of host memory starting a warp");
    return EXEC_NEXT;
}

/* Runs one CTA to completion; returns EXEC_FAULT with cta->fault set on failure. */
static exec_result run_cta(cta_workspace *ws, mb_dim3 ctaid)
{
    exec_cta *cta = &ws->cta;
    if (exec_cta_begin(cta, ctaid) == EXEC_FAULT)
        return EXEC_FAULT;
    for (;;) {
        int ran = 0, waiting = 0;
        for (uint32_t i = 0; i < cta->nwarps; i++) {
            exec_warp *w = &cta->warps[i];
            if (w->done)
                continue;
            if (w->at_barrier) {
                waiting++;
                continue;
            }
            ran = 1;
            exec_result r = run_warp(w);
            if (r == EXEC_FAULT)
                return r;
            if (r == EXEC_BARRIER)
                waiting++;
        }
        if (!waiting)
            return EXEC_NEXT; /* every warp finished */
        if (!exec_release_barriers(cta) && !ran)
            return exec_barrier_deadlock(cta);
    }
}

/* ------------------------------------------------------------ launches */

typedef struct launch_state {
    mb_program *prog;
    mb_memory *mem;
    const mb_launch_config *cfg;
    const mb_exec_options *opt;
    uint64_t nctas;
    uint32_t shared_bytes;
    uint32_t local_bytes;
    atomic_uint_fast64_t next_cta;
    atomic_int stop;
    atomic_uint_fast64_t budget_used;
    uint64_t budget;
    pthread_mutex_t lock;
    /* results, guarded by lock */
    mb_exec_stats stats;
    int faulted;
    uint64_t fault_cta;
    exec_fault fault;
    int oom;
    uint8_t *observe; /* per pc, with an observer: whether it sees the instruction */
} launch_state;

int exec_cta_alloc(exec_cta *cta, mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                   const mb_observer *observer, uint32_t shared_bytes, uint32_t local_bytes)
{
    memset(cta, 0, sizeof(*cta));
    cta->prog = prog;
    cta->mem = mem;
    cta->cfg = cfg;
    cta->observer = observer;
    cta->record_addrs = observer != NULL;
    const mb_dim3 b = cfg->block;
    cta->nthreads = b.x * b.y * b.z;
    cta->nwarps = (cta->nthreads + 31) / 32;
    cta->shared_bytes = shared_bytes;
    cta->shared = calloc(shared_bytes ? shared_bytes : 1, 1);
    cta->warps = calloc(cta->nwarps, sizeof(exec_warp));
    if (!cta->shared || !cta->warps)
        return 0;
    for (uint32_t i = 0; i < cta->nwarps; i++) {
        cta->warps[i].local_bytes = local_bytes;
        cta->warps[i].local = calloc((size_t)32 * local_bytes + 1, 1);
        if (!cta->warps[i].local)
            return 0;
    }
    return 1;
}

void exec_cta_free(exec_cta *cta)
{
    if (cta->warps)
        for (uint32_t i = 0; i < cta->nwarps; i++)
            exec_warp_free(&cta->warps[i]);
    free(cta->warps);
    free(cta->shared);
    cta->warps = NULL;
    cta->shared = NULL;
}

static int workspace_init(cta_workspace *ws, launch_state *ls)
{
    memset(ws, 0, sizeof(*ws));
    if (!exec_cta_alloc(&ws->cta, ls->prog, ls->mem, ls->cfg, ls->opt ? ls->opt->observer : NULL,
                        ls->shared_bytes, ls->local_bytes))
        return 0;
    ws->cta.observe = ls->observe;
    return 1;
}

/* Which instructions the observer sees (mb_observer.wanted): never the exit
 * pseudo-instructions, which have no source instruction. */
static uint8_t *observed_pcs(const mb_program *prog, const mb_observer *obs)
{
    uint8_t *on = calloc((size_t)prog->ncode + 1, 1);
    if (!on)
        return NULL;
    for (uint32_t f = 0; f < prog->nfuncs; f++) {
        const exec_func *ef = &prog->funcs[f];
        if (ef->entry_pc == UINT32_MAX)
            continue;
        const uint8_t *want = obs->wanted ? obs->wanted(obs->ctx, ef->fn) : NULL;
        for (uint32_t pc = ef->entry_pc; pc < ef->exit_pc; pc++) {
            const xinsn *x = &prog->code[pc];
            on[pc] = x->src && (!want || want[x->src - ef->fn->insns]);
        }
    }
    return on;
}

static void workspace_free(cta_workspace *ws)
{
    exec_cta_free(&ws->cta);
}

static void *worker(void *arg)
{
    launch_state *ls = arg;
    cta_workspace ws;
    if (!workspace_init(&ws, ls)) {
        pthread_mutex_lock(&ls->lock);
        ls->oom = 1;
        pthread_mutex_unlock(&ls->lock);
        atomic_store(&ls->stop, 1);
        workspace_free(&ws);
        return NULL;
    }
    mb_exec_stats local;
    memset(&local, 0, sizeof(local));
    const mb_dim3 g = ls->cfg->grid;
    while (!atomic_load(&ls->stop)) {
        uint64_t k = atomic_fetch_add(&ls->next_cta, 1);
        if (k >= ls->nctas)
            break;
        mb_dim3 ctaid = {(uint32_t)(k % g.x), (uint32_t)((k / g.x) % g.y), (uint32_t)(k / ((uint64_t)g.x * g.y))};
        uint64_t used = atomic_load(&ls->budget_used);
        ws.cta.budget = ls->budget == UINT64_MAX ? UINT64_MAX
                        : used >= ls->budget      ? 1
                                                  : ls->budget - used + 1;
        ws.cta.fault.set = 0;
        exec_result r = run_cta(&ws, ctaid);
        uint64_t insts = 0;
        for (uint32_t i = 0; i < ws.cta.nwarps; i++) {
            exec_warp *w = &ws.cta.warps[i];
            exec_settle_active(w);
            insts += w->warp_insts;
            local.thread_insts += w->thread_insts;
        }
        local.warp_insts += insts;
        local.ctas++;
        local.warps += ws.cta.nwarps;
        local.threads += ws.cta.nthreads;
        atomic_fetch_add(&ls->budget_used, insts);
        if (r == EXEC_FAULT) {
            pthread_mutex_lock(&ls->lock);
            if (!ls->faulted || k < ls->fault_cta) {
                ls->faulted = 1;
                ls->fault_cta = k;
                ls->fault = ws.cta.fault;
            }
            pthread_mutex_unlock(&ls->lock);
            atomic_store(&ls->stop, 1);
        }
    }
    pthread_mutex_lock(&ls->lock);
    ls->stats.ctas += local.ctas;
    ls->stats.warps += local.warps;
    ls->stats.threads += local.threads;
    ls->stats.warp_insts += local.warp_insts;
    ls->stats.thread_insts += local.thread_insts;
    pthread_mutex_unlock(&ls->lock);
    workspace_free(&ws);
    return NULL;
}

mb_status exec_check_launch(const mb_program *prog, const mb_launch_config *cfg, mb_error *err)
{
    const mb_module *m = prog->module;
    const mb_function *k = cfg->kernel;
    if (!k || k < m->funcs || k >= m->funcs + m->nfuncs || !k->is_entry || !k->has_body)
        return mb_error_set(err, MB_ERR_INVALID, m->filename, 0, 0,
                            "the launch does not name a kernel of this module");
    const mb_dim3 b = cfg->block, g = cfg->grid;
    if (!b.x || !b.y || !b.z || (uint64_t)b.x * b.y * b.z > 1024 || b.z > 64)
        return mb_error_set(err, MB_ERR_INVALID, m->filename, k->line, 0,
                            "kernel %s: block (%u,%u,%u) is not a valid CTA shape (1 to 1024 "
                            "threads, z at most 64)",
                            k->name, b.x, b.y, b.z);
    if (!g.x || !g.y || !g.z || g.x > 0x7FFFFFFFu || g.y > 65535 || g.z > 65535)
        return mb_error_set(err, MB_ERR_INVALID, m->filename, k->line, 0,
                            "kernel %s: grid (%u,%u,%u) is out of range (x up to 2^31-1, y and z "
                            "up to 65535)",
                            k->name, g.x, g.y, g.z);
    if (cfg->dynamic_shared > MAX_DYNAMIC_SHARED)
        return mb_error_set(err, MB_ERR_LIMIT, m->filename, k->line, 0,
                            "kernel %s: %u bytes of dynamic shared memory exceed the %d-byte limit",
                            k->name, cfg->dynamic_shared, MAX_DYNAMIC_SHARED);
    if (k->perf.nreqntid) {
        uint32_t want[3] = {1, 1, 1};
        for (unsigned i = 0; i < k->perf.nreqntid; i++)
            want[i] = k->perf.reqntid[i];
        if (b.x != want[0] || b.y != want[1] || b.z != want[2])
            return mb_error_set(err, MB_ERR_INVALID, m->filename, k->line, 0,
                                "kernel %s requires block (%u,%u,%u) (.reqntid) but was launched "
                                "with (%u,%u,%u)",
                                k->name, want[0], want[1], want[2], b.x, b.y, b.z);
    }
    if (k->perf.nmaxntid) {
        uint64_t max = 1;
        for (unsigned i = 0; i < k->perf.nmaxntid; i++)
            max *= k->perf.maxntid[i];
        if ((uint64_t)b.x * b.y * b.z > max)
            return mb_error_set(err, MB_ERR_INVALID, m->filename, k->line, 0,
                                "kernel %s allows at most %llu threads per block (.maxntid) but "
                                "was launched with %llu",
                                k->name, (unsigned long long)max,
                                (unsigned long long)b.x * b.y * b.z);
    }
    mb_param_slot *slots = malloc(((size_t)k->nparams + 1) * sizeof(mb_param_slot));
    uint32_t total = 0;
    if (!slots)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    mb_status st = mb_kernel_param_layout(k, slots, &total, err);
    free(slots);
    if (st != MB_OK)
        return st;
    if (cfg->param_bytes < total || (total && !cfg->params))
        return mb_error_set(err, MB_ERR_INVALID, m->filename, k->line, 0,
                            "kernel %s needs %u bytes of parameters, the launch gives %u", k->name,
                            total, cfg->param_bytes);
    return MB_OK;
}

void exec_launch_sizes(const mb_program *prog, const mb_launch_config *cfg,
                       const mb_exec_options *opt, uint32_t *shared_bytes, uint32_t *local_bytes)
{
    uint64_t shared = prog->static_shared_bytes;
    if (cfg->dynamic_shared)
        shared = ((shared + 15) & ~UINT64_C(15)) + cfg->dynamic_shared;
    *shared_bytes = (uint32_t)shared;
    uint32_t stack = opt && opt->stack_bytes ? opt->stack_bytes
                     : prog->recursive       ? DEFAULT_RECURSIVE_STACK
                                             : prog->stack_bytes_static;
    if (stack > MAX_STACK)
        stack = MAX_STACK;
    *local_bytes = (stack + 15) & ~15u;
}

mb_status exec_fault_error(const mb_program *prog, const exec_fault *fault, mb_error *err)
{
    const xinsn *x = fault->x;
    const mb_insn *src = x ? x->src : NULL;
    /* the PTX file:line is the error's location; add the CUDA source line
     * when the PTX carries .loc information */
    char where[300] = "";
    if (src && src->loc >= 0) {
        const mb_module *m = prog->module;
        const mb_loc *loc = &m->locs[src->loc];
        for (uint32_t i = 0; i < m->nfiles; i++)
            if (m->files[i].index == loc->file) {
                snprintf(where, sizeof(where), " (source %s:%d)", m->files[i].name, loc->line);
                break;
            }
    }
    return mb_error_set(err, MB_ERR_FAULT, prog->module->filename, src ? src->line : 0,
                        src ? src->col : 0, "%s%s", fault->msg, where);
}

mb_status mb_launch(mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                    const mb_exec_options *opt, mb_exec_stats *stats, mb_error *err)
{
    mb_status st = exec_check_launch(prog, cfg, err);
    if (st != MB_OK)
        return st;
    launch_state *ls = calloc(1, sizeof(*ls));
    if (!ls)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    ls->prog = prog;
    ls->mem = mem;
    ls->cfg = cfg;
    ls->opt = opt;
    ls->nctas = (uint64_t)cfg->grid.x * cfg->grid.y * cfg->grid.z;
    exec_launch_sizes(prog, cfg, opt, &ls->shared_bytes, &ls->local_bytes);
    ls->budget = opt && opt->max_warp_insts ? opt->max_warp_insts : UINT64_MAX;
    atomic_init(&ls->next_cta, 0);
    atomic_init(&ls->stop, 0);
    atomic_init(&ls->budget_used, 0);
    pthread_mutex_init(&ls->lock, NULL);
    unsigned threads = opt && opt->threads ? opt->threads : 1;
    if (opt && opt->observer) {
        threads = 1;
        ls->observe = observed_pcs(prog, opt->observer);
        if (!ls->observe) {
            pthread_mutex_destroy(&ls->lock);
            free(ls);
            return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        }
    }
    if (threads > ls->nctas)
        threads = (unsigned)ls->nctas;
    if (threads <= 1) {
        worker(ls);
    } else {
        pthread_t *tids = calloc(threads, sizeof(pthread_t));
        unsigned started = 0;
        if (tids)
            for (; started < threads; started++)
                if (pthread_create(&tids[started], NULL, worker, ls) != 0)
                    break;
        if (started == 0)
            worker(ls);
        for (unsigned i = 0; i < started; i++)
            pthread_join(tids[i], NULL);
        free(tids);
    }
    pthread_mutex_destroy(&ls->lock);
    if (stats) {
        stats->ctas += ls->stats.ctas;
        stats->warps += ls->stats.warps;
        stats->threads += ls->stats.threads;
        stats->warp_insts += ls->stats.warp_insts;
        stats->thread_insts += ls->stats.thread_insts;
    }
    if (ls->oom)
        st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0,
                          "out of host memory for a CTA of kernel %s", cfg->kernel->name);
    else if (ls->faulted)
        st = exec_fault_error(prog, &ls->fault, err);
    free(ls->observe);
    free(ls);
    return st;
}
