/*
 * What the profiler knows about a function before any launch: its CFG, the
 * static analyses (prof_static.c), the per-instruction facts the collector
 * looks up on every event, the edges and the loop membership. None of it
 * depends on a launch, and a program is often launched many times (one
 * launch per wavefront step, per iteration of a host loop), so it is built
 * on a function's first profile and kept with the program: later profiles
 * of the same program share it read-only.
 */
#include "exec.h"
#include "prof_internal.h"

#include <stdlib.h>

/* What one instruction's statistics learnt and a later profile of the same
 * program starts from: the shapes of its memory statistics
 * (prof_mem_take_shapes) and the traces of its comparison's two operand
 * models (aff_take_trace). Unlike the analyses these change from profile to
 * profile; each profile takes them when it starts counting an instruction
 * and puts them back when it is freed. */
typedef struct insn_kept {
    prof_mem_shapes *shapes;
    aff_trace *traces[2];
} insn_kept;

typedef struct shape_slots {
    insn_kept *insn; /* per instruction; NULL until first asked for */
    uint32_t n;
} shape_slots;

struct prof_analysis {
    uint32_t nfuncs;
    prof_func_static **funcs; /* per module function; NULL until first analysed */
    shape_slots *shapes;      /* per module function; instructions NULL until first asked for */
};

static mb_status nomem(mb_error *err)
{
    return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory while profiling");
}

static int is_barrier(const mb_insn *insn)
{
    if (insn->opcode != MB_OP_BAR && insn->opcode != MB_OP_BARRIER)
        return 0;
    /* bar.warp.sync and bar.arrive do not synchronise the CTA */
    return !mb_insn_has_mod(insn, MB_MOD_WARP) && !mb_insn_has_mod(insn, MB_MOD_ARRIVE);
}

static void func_static_free(prof_func_static *s)
{
    if (!s)
        return;
    if (s->has_static)
        prof_static_free(&s->st, &s->cfg);
    free(s->info);
    free(s->special);
    free(s->observed);
    free(s->anchor);
    free(s->edges);
    free(s->loop_member);
    free(s->conds);
    free(s->cond_of);
    free(s->launch_const);
    mb_cfg_free(&s->cfg);
    free(s);
}

/* The loop nest of block b, outermost first, as address features: the
 * innermost PROF_MAX_LOOP_FEATURES loops when there are more. */
static void loop_features(const mb_cfg *cfg, int b, insn_info *ii)
{
    int depth = 0, chain[PROF_MAX_LOOP_FEATURES];
    for (int l = cfg->loops.innermost[b]; l >= 0; l = cfg->loops.loops[l].parent)
        depth++;
    int skip = depth > PROF_MAX_LOOP_FEATURES ? depth - PROF_MAX_LOOP_FEATURES : 0;
    int k = 0, d = 0;
    for (int l = cfg->loops.innermost[b]; l >= 0; l = cfg->loops.loops[l].parent, d++)
        if (d >= skip)
            chain[k++] = l;
    ii->nloops = (uint8_t)k;
    for (int j = 0; j < k; j++)
        ii->loops[j] = (int16_t)chain[k - 1 - j];
}

/* The condition models of the conditional branches, and which setps the
 * collector fits for them (the integer ones). 0 when out of memory. */
static int conditions(const mb_function *fn, prof_func_static *s)
{
    const uint32_t n = fn->ninsns;
    uint32_t count = 0;
    s->cond_of = malloc(((size_t)n + 1) * sizeof(int32_t));
    s->launch_const = calloc((size_t)n + 1, 1);
    if (!s->cond_of || !s->launch_const)
        return 0;
    for (uint32_t i = 0; i < n; i++) {
        s->cond_of[i] = -1;
        count += s->info[i].cond_branch;
    }
    if (!count)
        return 1;
    s->conds = malloc(count * sizeof(prof_cond_model));
    uint32_t *defs = malloc(((size_t)fn->nregs + 1) * sizeof(uint32_t));
    if (!s->conds || !defs) {
        free(defs);
        return 0;
    }
    prof_cond_defs(fn, defs);
    uint32_t made = 0;
    int resolved = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!s->info[i].cond_branch)
            continue;
        resolved = prof_cond_resolve(fn, &s->cfg, defs, i, &s->conds[made]);
        if (resolved < 0)
            break;
        if (!resolved)
            continue;
        const prof_cond_model *m = &s->conds[made];
        for (uint32_t k = 0; k < m->nnodes; k++) {
            const uint32_t leaf = m->node[k].insn;
            if (m->node[k].op != PROF_COND_CMP || s->info[leaf].cmp_leaf ||
                prof_cond_kind_of(&fn->insns[leaf]) == PROF_COND_FLOAT)
                continue;
            s->info[leaf].cmp_leaf = 1;
            s->launch_const[leaf] =
                (uint8_t)(prof_cond_launch_constant(fn, &s->cfg, defs, leaf, 0) |
                          prof_cond_launch_constant(fn, &s->cfg, defs, leaf, 1) << 1);
        }
        s->cond_of[i] = (int32_t)made++;
    }
    free(defs);
    return resolved >= 0;
}

static mb_status func_static_build(const mb_module *m, uint32_t index, prof_func_static **out,
                                   mb_error *err)
{
    const mb_function *fn = &m->funcs[index];
    prof_func_static *s = calloc(1, sizeof(*s));
    if (!s)
        return nomem(err);
    mb_status st = mb_cfg_build(fn, &s->cfg, err);
    if (st != MB_OK) {
        free(s);
        return st;
    }
    st = prof_static_analyse(m, fn, &s->cfg, &s->st, err);
    if (st != MB_OK) {
        func_static_free(s);
        return st;
    }
    s->has_static = 1;
    const mb_cfg *cfg = &s->cfg;
    const uint32_t n = fn->ninsns, nb = (uint32_t)cfg->nblocks;
    const uint32_t ne = (uint32_t)cfg->graph.succ_start[nb], nl = (uint32_t)cfg->loops.nloops;
    /* readers need the dependence histograms sorted; sorting once here
     * keeps them read-only afterwards */
    for (uint32_t b = 0; b < nb; b++)
        prof_hist_sort(&s->st.dep_dist[b]);
    s->info = calloc((size_t)n + 1, sizeof(insn_info));
    s->special = calloc((size_t)n + 1, 1);
    s->observed = calloc((size_t)n + 1, 1);
    s->anchor = calloc((size_t)n + 1, sizeof(uint32_t));
    s->edges = calloc((size_t)ne + 1, sizeof(mb_edge_profile));
    s->loop_member = calloc((size_t)nl * nb + 1, 1);
    if (!s->info || !s->special || !s->observed || !s->anchor || !s->edges || !s->loop_member) {
        func_static_free(s);
        return nomem(err);
    }
    s->nedges = ne;
    for (uint32_t b = 0; b < nb; b++)
        for (int k = cfg->graph.succ_start[b]; k < cfg->graph.succ_start[b + 1]; k++) {
            mb_edge_profile *e = &s->edges[k];
            e->from = (int)b;
            e->to = cfg->graph.succ[k];
            e->back = mb_dominates(cfg->idom, e->to, e->from);
        }
    for (uint32_t l = 0; l < nl; l++) {
        const mb_loop *loop = &cfg->loops.loops[l];
        for (int k = 0; k < loop->nblocks; k++)
            s->loop_member[l * nb + (uint32_t)loop->blocks[k]] = 1;
    }
    for (uint32_t i = 0; i < n; i++) {
        const mb_insn *insn = &fn->insns[i];
        insn_info *ii = &s->info[i];
        int b = cfg->block_of_insn[i];
        ii->block = b;
        ii->block_start = cfg->blocks[b].first == i;
        ii->cond_branch = insn->opcode == MB_OP_BRA && insn->guard >= 0;
        ii->barrier = (uint8_t)is_barrier(insn);
        ii->leaves = insn->opcode == MB_OP_RET || insn->opcode == MB_OP_EXIT;
        ii->mem = (mb_opcode_get((mb_opcode)insn->opcode)->flags & MB_OPF_M) != 0;
        loop_features(cfg, b, ii);
    }
    if (!conditions(fn, s)) {
        func_static_free(s);
        return nomem(err);
    }
    for (uint32_t i = 0; i < n; i++) {
        insn_info *ii = &s->info[i];
        ii->special = ii->block_start | ii->cond_branch | ii->barrier | ii->leaves | ii->mem |
                      ii->cmp_leaf;
        s->special[i] = ii->special;
        /* a call's lanes may exit inside the callee, and a call may run
         * twice (an indirect call splits by target) */
        const uint8_t call = fn->insns[i].opcode == MB_OP_CALL;
        const uint8_t after = i > 0 && (fn->insns[i - 1].opcode == MB_OP_CALL || s->info[i - 1].leaves);
        s->observed[i] = ii->special || call || after;
        s->anchor[i] = s->observed[i] || i == 0 ? i : s->anchor[i - 1];
    }
    *out = s;
    return MB_OK;
}

mb_status prof_analysis_get(mb_program *prog, uint32_t index, const prof_func_static **out,
                            mb_error *err)
{
    const mb_module *m = prog->module;
    if (index >= m->nfuncs)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "no function %u to analyse", index);
    prof_analysis *a = prog->analysis;
    if (!a) {
        a = calloc(1, sizeof(*a));
        if (!a)
            return nomem(err);
        a->funcs = calloc((size_t)m->nfuncs + 1, sizeof(prof_func_static *));
        a->shapes = calloc((size_t)m->nfuncs + 1, sizeof(shape_slots));
        if (!a->funcs || !a->shapes) {
            free(a->funcs);
            free(a->shapes);
            free(a);
            return nomem(err);
        }
        a->nfuncs = m->nfuncs;
        prog->analysis = a;
    }
    if (!a->funcs[index]) {
        /* a failure keeps nothing, so the next profile tries again */
        mb_status st = func_static_build(m, index, &a->funcs[index], err);
        if (st != MB_OK)
            return st;
    }
    *out = a->funcs[index];
    return MB_OK;
}

/* Instruction insn's record, allocated for the whole function on first use;
 * NULL when nothing can be kept (the statistics then learn afresh). */
static insn_kept *kept_of(mb_program *prog, uint32_t index, uint32_t insn)
{
    prof_analysis *a = prog->analysis;
    if (!a || index >= a->nfuncs || insn >= prog->module->funcs[index].ninsns)
        return NULL;
    shape_slots *ss = &a->shapes[index];
    if (!ss->insn) {
        ss->insn = calloc(prog->module->funcs[index].ninsns, sizeof(insn_kept));
        if (!ss->insn)
            return NULL;
        ss->n = prog->module->funcs[index].ninsns;
    }
    return &ss->insn[insn];
}

prof_mem_shapes **prof_analysis_shapes(mb_program *prog, uint32_t index, uint32_t insn)
{
    insn_kept *k = kept_of(prog, index, insn);
    return k ? &k->shapes : NULL;
}

aff_trace **prof_analysis_traces(mb_program *prog, uint32_t index, uint32_t insn)
{
    insn_kept *k = kept_of(prog, index, insn);
    return k ? k->traces : NULL;
}

void prof_analysis_free(prof_analysis *a)
{
    if (!a)
        return;
    for (uint32_t i = 0; i < a->nfuncs; i++) {
        func_static_free(a->funcs[i]);
        for (uint32_t k = 0; k < a->shapes[i].n; k++) {
            insn_kept *kept = &a->shapes[i].insn[k];
            prof_mem_shapes_free(kept->shapes);
            aff_trace_free(kept->traces[0]);
            aff_trace_free(kept->traces[1]);
        }
        free(a->shapes[i].insn);
    }
    free(a->funcs);
    free(a->shapes);
    free(a);
}
