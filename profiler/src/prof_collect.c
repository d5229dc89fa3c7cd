/* The profile collector: an executor observer that turns warp instruction
 * events into the DFSG counts, loop trip-count distributions, branch
 * statistics and memory statistics of one launch. */
#include "prof_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ setup */

static mb_status nomem(mb_error *err)
{
    return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory while profiling");
}

static mb_status func_init(mb_profile *p, func_prof *f, uint32_t index, mb_error *err)
{
    const prof_func_static *a;
    mb_status st = prof_analysis_get(p->prog, index, &a, err);
    if (st != MB_OK)
        return st;
    const mb_function *fn = &p->module->funcs[index];
    f->fn = fn;
    f->index = index;
    f->cfg = &a->cfg;
    f->st = &a->st;
    f->info = a->info;
    f->special = a->special;
    f->observed = a->observed;
    f->anchor = a->anchor;
    f->loop_member = a->loop_member;
    const uint32_t n = fn->ninsns, nb = (uint32_t)a->cfg.nblocks;
    const uint32_t ne = a->nedges, nl = (uint32_t)a->cfg.loops.nloops;
    f->insn_threads = calloc((size_t)n + 1, sizeof(uint64_t));
    f->br = calloc((size_t)n + 1, sizeof(branch_stats));
    f->blocks = calloc((size_t)nb + 1, sizeof(mb_block_profile));
    f->edges = malloc(((size_t)ne + 1) * sizeof(mb_edge_profile));
    f->loops = calloc((size_t)nl + 1, sizeof(loop_stats));
    f->mems = calloc((size_t)n + 1, sizeof(prof_mem *));
    f->conds = a->conds;
    f->cond_of = a->cond_of;
    f->launch_const = a->launch_const;
    f->cmps = calloc((size_t)n + 1, sizeof(prof_cond_fit *));
    if (!f->insn_threads || !f->br || !f->blocks || !f->edges || !f->loops ||
        !f->mems || !f->cmps)
        return nomem(err);
    memcpy(f->edges, a->edges, ((size_t)ne + 1) * sizeof(mb_edge_profile));
    f->nedges = ne;
    return MB_OK;
}

static void func_free(mb_program *prog, func_prof *f)
{
    if (f->mems)
        for (uint32_t i = 0; i < f->fn->ninsns; i++) {
            if (!f->mems[i])
                continue;
            /* the shapes learnt go back to the program for its next profile */
            prof_mem_shapes **kept = prof_analysis_shapes(prog, f->index, i);
            if (kept && !*kept)
                *kept = prof_mem_take_shapes(f->mems[i]);
            prof_mem_free(f->mems[i]);
        }
    if (f->cmps)
        for (uint32_t i = 0; i < f->fn->ninsns; i++) {
            if (!f->cmps[i])
                continue;
            aff_trace **kept = prof_analysis_traces(prog, f->index, i);
            if (kept)
                prof_cond_fit_take_traces(f->cmps[i], kept);
            prof_cond_fit_free(f->cmps[i]);
        }
    if (f->loops)
        for (int l = 0; l < f->cfg->loops.nloops; l++)
            prof_hist_free(&f->loops[l].trips);
    free(f->insn_threads);
    free(f->br);
    free(f->blocks);
    free(f->edges);
    free(f->loops);
    free(f->mems);
    free(f->cmps);
}

/* ------------------------------------------------------ warp state */

static __attribute__((noinline)) warp_func *warp_func_get(mb_profile *p, warp_state *w,
                                                         func_prof *f)
{
    warp_func *wf = w->funcs[f->index];
    if (wf) {
        if (wf->epoch == p->epoch)
            return wf;
    } else {
        uint32_t nb = (uint32_t)f->cfg->nblocks, nl = (uint32_t)f->cfg->loops.nloops;
        wf = calloc(1, sizeof(*wf));
        if (!wf)
            return NULL;
        wf->block_mask = calloc((size_t)nb + 1, sizeof(uint32_t));
        wf->edge_mask = calloc((size_t)f->nedges + 1, sizeof(uint32_t));
        wf->iter = calloc((size_t)nl * 32 + 1, sizeof(int64_t));
        wf->in_loop = calloc((size_t)nl + 1, sizeof(uint32_t));
        wf->iter_uniform = calloc((size_t)nl + 1, 1);
        wf->iter_value = calloc((size_t)nl + 1, sizeof(int64_t));
        wf->front_mask = calloc((size_t)nl + 1, sizeof(uint32_t));
        wf->front_value = calloc((size_t)nl + 1, sizeof(int64_t));
        wf->activation = calloc((size_t)nl * 32 + 1, sizeof(uint32_t));
        wf->act_min = calloc((size_t)nl * PROF_MAX_ACTIVATIONS + 1, sizeof(uint32_t));
        wf->act_max = calloc((size_t)nl * PROF_MAX_ACTIVATIONS + 1, sizeof(uint32_t));
        if (!wf->block_mask || !wf->edge_mask || !wf->iter || !wf->in_loop || !wf->activation ||
            !wf->act_min || !wf->act_max || !wf->iter_uniform || !wf->iter_value ||
            !wf->front_mask || !wf->front_value) {
            free(wf->iter_uniform);
            free(wf->iter_value);
            free(wf->front_mask);
            free(wf->front_value);
            free(wf->block_mask);
            free(wf->edge_mask);
            free(wf->iter);
            free(wf->in_loop);
            free(wf->activation);
            free(wf->act_min);
            free(wf->act_max);
            free(wf);
            return NULL;
        }
        w->funcs[f->index] = wf;
    }
    /* a fresh CTA: reset */
    uint32_t nb = (uint32_t)f->cfg->nblocks, nl = (uint32_t)f->cfg->loops.nloops;
    memset(wf->block_mask, 0, nb * sizeof(uint32_t));
    memset(wf->edge_mask, 0, f->nedges * sizeof(uint32_t));
    memset(wf->in_loop, 0, nl * sizeof(uint32_t));
    memset(wf->iter_uniform, 1, nl);
    memset(wf->front_mask, 0, nl * sizeof(uint32_t));
    memset(wf->activation, 0, (size_t)nl * 32 * sizeof(uint32_t));
    for (size_t k = 0; k < (size_t)nl * PROF_MAX_ACTIVATIONS; k++) {
        wf->act_min[k] = UINT32_MAX;
        wf->act_max[k] = 0;
    }
    for (int l = 0; l < 32; l++)
        wf->last_block[l] = -1;
    wf->group_block = -1;
    wf->group_mask = UINT32_MAX;
    wf->epoch = p->epoch;
    wf->touched = 1;
    return wf;
}

/* Notes one more finished activation of lane l with `trips` trips. */
static inline void note_activation(warp_func *wf, uint32_t L, int l, uint32_t trips)
{
    uint32_t act = wf->activation[L * 32 + (uint32_t)l]++;
    if (act < PROF_MAX_ACTIVATIONS) {
        uint32_t *mn = &wf->act_min[L * PROF_MAX_ACTIVATIONS + act];
        uint32_t *mx = &wf->act_max[L * PROF_MAX_ACTIVATIONS + act];
        if (trips < *mn)
            *mn = trips;
        if (trips > *mx)
            *mx = trips;
    }
}

/* Records the trip count of lane `l`'s activation of loop `L`. */
static void close_activation(func_prof *f, warp_func *wf, uint32_t L, int l)
{
    uint32_t trips = (uint32_t)wf->iter[L * 32 + (uint32_t)l] + 1;
    loop_stats *ls = &f->loops[L];
    prof_hist_add(&ls->trips, trips, 1);
    ls->activations++;
    note_activation(wf, L, l, trips);
    wf->in_loop[L] &= ~(1u << l);
}

/* Closes the activations of loop L of the lanes `m` (all inside it). A
 * converged loop has one trip count for them all: one histogram update
 * instead of one per lane (the histogram only sums counts). */
static void close_activations(func_prof *f, warp_func *wf, uint32_t L, uint32_t m)
{
    if (!m)
        return;
    if (!wf->iter_uniform[L]) {
        for (; m; m &= m - 1)
            close_activation(f, wf, L, __builtin_ctz(m));
        return;
    }
    const uint32_t trips = (uint32_t)wf->iter_value[L] + 1;
    loop_stats *ls = &f->loops[L];
    const uint32_t k = (uint32_t)mb_popcount32(m);
    prof_hist_add(&ls->trips, trips, k);
    ls->activations += k;
    for (uint32_t c = m; c; c &= c - 1)
        note_activation(wf, L, __builtin_ctz(c), trips);
    wf->in_loop[L] &= ~m;
}

/* Folds a warp's per-CTA masks into the thread counts. */
static void flush_warp_func(func_prof *f, warp_func *wf)
{
    uint32_t nb = (uint32_t)f->cfg->nblocks, nl = (uint32_t)f->cfg->loops.nloops;
    for (uint32_t b = 0; b < nb; b++)
        f->blocks[b].threads += (uint64_t)mb_popcount32(wf->block_mask[b]);
    for (uint32_t e = 0; e < f->nedges; e++)
        f->edges[e].threads += (uint64_t)mb_popcount32(wf->edge_mask[e]);
    for (uint32_t L = 0; L < nl; L++) {
        close_activations(f, wf, L, wf->in_loop[L]); /* threads that ended inside the loop */
        for (uint32_t a = 0; a < PROF_MAX_ACTIVATIONS; a++) {
            uint32_t mn = wf->act_min[L * PROF_MAX_ACTIVATIONS + a];
            if (mn == UINT32_MAX)
                break;
            f->loops[L].warp_activations++;
            if (mn != wf->act_max[L * PROF_MAX_ACTIVATIONS + a])
                f->loops[L].warp_activations_mixed++;
        }
    }
    wf->touched = 0;
}

static void flush_cta(mb_profile *p)
{
    for (uint32_t w = 0; w < p->nwarps; w++)
        for (uint32_t i = 0; i < p->nfuncs_module; i++) {
            warp_func *wf = p->warps[w].funcs[i];
            if (wf && wf->touched && wf->epoch == p->epoch)
                flush_warp_func(&p->funcs[p->func_slot[i]], wf);
        }
    p->epoch++;
}

/* ------------------------------------------------------ events */

/* Recomputes whether the lanes inside loop L share one iteration index. */
static void iter_recompute(warp_func *wf, uint32_t L)
{
    uint32_t m = wf->in_loop[L];
    const int64_t *it = wf->iter + (size_t)L * 32;
    int64_t v = m ? it[__builtin_ctz(m)] : 0;
    uint8_t uniform = 1;
    for (; m; m &= m - 1)
        uniform &= it[__builtin_ctz(m)] == v;
    wf->iter_uniform[L] = uniform;
    wf->iter_value[L] = v;
}

/* Lanes `m`, all coming from block `prev` (-1: entering the function),
 * enter block b: edge counts, loops left, loops entered or iterated. */
static void block_group(func_prof *f, warp_func *wf, int b, int prev, uint32_t m)
{
    mb_block_profile *bp = &f->blocks[b];
    const uint32_t nb = (uint32_t)f->cfg->nblocks;
    const mb_graph *g = &f->cfg->graph;
    const mb_loop *loops = f->cfg->loops.loops;
    if (prev < 0) {
        bp->entries += (uint64_t)mb_popcount32(m);
    } else {
        for (int k = g->succ_start[prev]; k < g->succ_start[prev + 1]; k++)
            if (g->succ[k] == b) {
                f->edges[k].count += (uint64_t)mb_popcount32(m);
                wf->edge_mask[k] |= m;
                break;
            }
        /* loops left: those containing prev but not b */
        for (int L = f->cfg->loops.innermost[prev]; L >= 0; L = loops[L].parent) {
            if (f->loop_member[(uint32_t)L * nb + (uint32_t)b])
                break;
            close_activations(f, wf, (uint32_t)L, wf->in_loop[L] & m);
        }
    }
    /* loops entered or iterated: those containing b. While the lanes inside
     * a loop share one iteration index, it is kept in iter_value alone (their
     * entries of iter are stale) and written to iter when they part. */
    for (int L = f->cfg->loops.innermost[b]; L >= 0; L = loops[L].parent) {
        const uint32_t in = wf->in_loop[L];
        const int back = loops[L].header == b && prev >= 0 &&
                         f->loop_member[(uint32_t)L * nb + (uint32_t)prev];
        const uint32_t next = back ? in & m : 0, fresh = m & ~in;
        if (!next && !fresh)
            continue;
        wf->in_loop[L] = in | fresh;
        /* lanes leaving a loop one by one stay in it (at their last
         * iteration) until they reconverge: the lanes still iterating share
         * one iteration though, which the front keeps */
        if (!fresh && (m & ~wf->front_mask[L]) == 0) {
            wf->front_mask[L] = m;
            wf->front_value[L]++;
        } else if (fresh == m) {
            wf->front_mask[L] = m;
            wf->front_value[L] = 0;
        } else {
            wf->front_mask[L] = 0;
        }
        if (in == 0) {
            wf->iter_uniform[L] = 1;
            wf->iter_value[L] = 0;
            continue;
        }
        int64_t *it = wf->iter + (size_t)L * 32;
        if (wf->iter_uniform[L]) {
            if (next == in && !fresh) {
                wf->iter_value[L]++;
                continue;
            }
            if (!next && wf->iter_value[L] == 0)
                continue; /* lanes joining at iteration 0 */
            for (uint32_t c = in; c; c &= c - 1)
                it[__builtin_ctz(c)] = wf->iter_value[L];
        }
        for (uint32_t c = next; c; c &= c - 1)
            it[__builtin_ctz(c)]++; /* back edge: next iteration */
        for (uint32_t c = fresh; c; c &= c - 1)
            it[__builtin_ctz(c)] = 0;
        iter_recompute(wf, (uint32_t)L);
    }
    const int inner = f->cfg->loops.innermost[b];
    if (inner >= 0) {
        if (wf->iter_uniform[inner] && (wf->in_loop[inner] & m) == m) {
            if (wf->iter_value[inner] > 0)
                bp->lcount += (uint64_t)mb_popcount32(m);
        } else {
            const int64_t *it = wf->iter + (size_t)inner * 32;
            for (uint32_t c = m; c; c &= c - 1)
                bp->lcount += it[__builtin_ctz(c)] > 0;
        }
    }
}

static void block_entry(func_prof *f, warp_func *wf, int b, uint32_t lanes)
{
    mb_block_profile *bp = &f->blocks[b];
    bp->ecount += (uint64_t)mb_popcount32(lanes);
    bp->warp_execs++;
    wf->block_mask[b] |= lanes;
    /* a converged warp: every lane comes from the block the group entered
     * last; lanes of the group left behind get their block written now */
    const uint32_t behind = wf->group_mask & ~lanes;
    if (lanes && (lanes & ~wf->group_mask) == 0) {
        for (uint32_t c = behind; c; c &= c - 1)
            wf->last_block[__builtin_ctz(c)] = wf->group_block;
        block_group(f, wf, b, wf->group_block, lanes);
        wf->group_block = b;
        wf->group_mask = lanes;
        return;
    }
    for (uint32_t c = wf->group_mask; c; c &= c - 1)
        wf->last_block[__builtin_ctz(c)] = wf->group_block;
    wf->group_mask = 0;
    /* group the lanes by the block they come from */
    uint32_t rest = lanes;
    while (rest) {
        int prev = wf->last_block[__builtin_ctz(rest)];
        uint32_t group = 0;
        for (uint32_t c = rest; c; c &= c - 1) {
            int l = __builtin_ctz(c);
            if (wf->last_block[l] == prev) {
                group |= 1u << l;
                wf->last_block[l] = b;
            }
        }
        block_group(f, wf, b, prev, group);
        rest &= ~group;
    }
    wf->group_block = b; /* their last_block is b already */
    wf->group_mask = lanes;
}

/* Lanes leaving the function (ret or exit): their loops end here. */
static void function_exit(func_prof *f, warp_func *wf, int b, uint32_t lanes)
{
    f->blocks[b].exits += (uint64_t)mb_popcount32(lanes);
    wf->group_mask &= ~lanes;
    for (int L = f->cfg->loops.innermost[b]; L >= 0; L = f->cfg->loops.loops[L].parent)
        close_activations(f, wf, (uint32_t)L, wf->in_loop[L] & lanes);
    for (uint32_t m = lanes; m; m &= m - 1)
        wf->last_block[__builtin_ctz(m)] = -1;
}

/* The affine features of an event's lanes as columns (prof_mem_request):
 * the warp's thread ids, the CTA id (uniform) and the lanes' iteration
 * counters, all read in place. A loop's counter is uniform when every lane
 * in the loop has the same iteration, or when `front` is set and the lanes
 * that executed are those that entered the header together last. Returns
 * whether every feature but the thread ids is uniform. */
static inline __attribute__((always_inline)) int
lane_features(const mb_profile *p, const warp_func *wf, const insn_info *ii, const mb_insn_event *ev,
              int front, const int64_t **cols, int64_t *uniform)
{
    const int64_t *tids = p->tid_table + (size_t)ev->warp * 96;
    const uint8_t *same = p->tid_uniform + (size_t)ev->warp * 3;
    for (uint32_t k = 0; k < 3; k++) { /* e.g. tid.z of a 2D block: one value per warp */
        cols[k] = same[k] ? NULL : tids + 32 * k;
        uniform[k] = tids[32 * k];
    }
    cols[3] = cols[4] = cols[5] = NULL;
    uniform[3] = ev->ctaid.x;
    uniform[4] = ev->ctaid.y;
    uniform[5] = ev->ctaid.z;
    int all = 1;
    for (uint32_t k = 0; k < ii->nloops; k++) {
        uint32_t L = (uint32_t)ii->loops[k];
        if (wf->iter_uniform[L]) { /* a converged loop: one value for the warp */
            cols[6 + k] = NULL;
            uniform[6 + k] = wf->iter_value[L];
        } else if (front && (ev->executed & ~wf->front_mask[L]) == 0) {
            cols[6 + k] = NULL;
            uniform[6 + k] = wf->front_value[L];
        } else {
            cols[6 + k] = wf->iter + (size_t)L * 32;
            all = 0;
        }
    }
    return all;
}

static_assert(6 + PROF_MAX_LOOP_FEATURES <= RELAY_MAX_FEATURES, "a request's features fit a relay");

static void memory_event(mb_profile *p, func_prof *f, warp_func *wf, uint32_t insn,
                         const mb_insn_event *ev)
{
    const insn_info *ii = &f->info[insn];
    prof_mem *pm = f->mems[insn];
    uint32_t nfeat = 6u + ii->nloops;
    if (!pm) {
        prof_mem_config cfg = {p->banks, p->bank_bytes, 32, 128, nfeat};
        pm = f->mems[insn] = prof_mem_new(&cfg);
        if (!pm) {
            p->oom = 1;
            return;
        }
        prof_mem_shapes **kept = prof_analysis_shapes(p->prog, f->index, insn);
        if (kept) {
            prof_mem_give_shapes(pm, *kept);
            *kept = NULL;
        }
        if (p->relay)
            prof_relay_attach(p->relay, f->relay_base + insn, pm, nfeat);
    }
    uint64_t gathered[32];
    uint8_t numbers[32];
    prof_mem_request req = {.access_bytes = ev->access_bytes, .space = ev->space};
    prof_mem_request_gather(&req, ev->executed, ev->addrs, gathered, numbers);
    const uint32_t slot = f->relay_base + insn;
    /* with a relay, the counting thread's flag: it lags, and a model that
     * no longer needs features ignores them */
    const int features =
        p->relay ? atomic_load_explicit(&p->relay_slots[slot].features, memory_order_relaxed)
                 : prof_mem_needs_features(pm);
    const int64_t *cols[6 + PROF_MAX_LOOP_FEATURES];
    int64_t uniform[6 + PROF_MAX_LOOP_FEATURES];
    if (features) {
        lane_features(p, wf, ii, ev, 0, cols, uniform);
        req.feature_lanes = cols;
        req.feature_uniform = uniform;
        req.warp_tag = ev->warp + 1;
    }
    if (p->relay)
        prof_relay_push(p->relay, slot, &req);
    else if (!prof_mem_add(pm, &req))
        p->oom = 1;
}

/* An integer comparison in a condition model: its operands' affine fits. */
static void compare_event(mb_profile *p, func_prof *f, warp_func *wf, uint32_t insn,
                          const mb_insn_event *ev)
{
    const insn_info *ii = &f->info[insn];
    prof_cond_fit *cf = f->cmps[insn];
    if (!cf) {
        cf = f->cmps[insn] = prof_cond_fit_new(f->fn, &f->fn->insns[insn], 6u + ii->nloops,
                                               f->launch_const[insn]);
        if (!cf) {
            p->oom = 1;
            return;
        }
        aff_trace **kept = prof_analysis_traces(p->prog, f->index, insn);
        if (kept)
            prof_cond_fit_give_traces(cf, kept);
    }
    if (!prof_cond_fit_open(cf)) {
        cf->execs++;
        return;
    }
    const int64_t *cols[6 + PROF_MAX_LOOP_FEATURES];
    int64_t uniform[6 + PROF_MAX_LOOP_FEATURES];
    const int all = lane_features(p, wf, ii, ev, 1, cols, uniform);
    const prof_cond_exec ex = {.executed = ev->executed,
                               .values = {ev->compared[0], ev->compared[1]},
                               .feature_lanes = cols,
                               .feature_uniform = uniform,
                               .warp_tag = ev->warp + 1,
                               .uniform = all};
    prof_cond_fit_add(cf, &ex);
}

/* Makes the event's function and CTA the current ones. */
static void switch_context(mb_profile *p, const mb_insn_event *ev)
{
    if (ev->fn != p->last_fn) {
        uint32_t findex = (uint32_t)(ev->fn - p->module->funcs);
        p->last_func = &p->funcs[p->func_slot[findex]];
        p->last_fn = ev->fn;
    }
    if (!p->have_cta || ev->ctaid.x != p->cta.x || ev->ctaid.y != p->cta.y ||
        ev->ctaid.z != p->cta.z) {
        if (p->have_cta)
            flush_cta(p);
        p->cta = ev->ctaid;
        p->have_cta = 1;
    }
}

/* What an instruction that needs more than counting adds (insn_info.special):
 * apart from the hot path of on_insn, which then keeps its registers. */
static __attribute__((noinline)) void special_event(mb_profile *p, func_prof *f, warp_func *wf,
                                                    const insn_info *ii, uint32_t insn,
                                                    const mb_insn_event *ev)
{
    if (ii->block_start)
        block_entry(f, wf, ii->block, ev->active);
    if (ii->barrier)
        f->blocks[ii->block].scount += (uint64_t)mb_popcount32(ev->executed);
    if (ii->cond_branch) {
        branch_stats *bs = &f->br[insn];
        uint32_t active = (uint32_t)mb_popcount32(ev->active);
        uint32_t taken = (uint32_t)mb_popcount32(ev->taken);
        bs->warp_execs++;
        bs->taken += taken;
        bs->not_taken += active - taken;
        if (taken && taken < active)
            bs->diverged++;
    }
    /* parameter reads are not memory traffic of interest */
    if (ii->mem && ev->addrs && ev->executed && ev->space != MB_SPACE_PARAM)
        memory_event(p, f, wf, insn, ev);
    if (ii->cmp_leaf && ev->compared[0] && ev->executed)
        compare_event(p, f, wf, insn, ev);
    if (ii->leaves && ev->executed)
        function_exit(f, wf, ii->block, ev->executed);
}

static void on_insn(void *ctx, const mb_insn_event *ev);

/* The rarer paths of on_insn, each its own function that on_insn calls last
 * (as a tail call), so that on_insn's path for an instruction that is only
 * counted saves no registers. */

/* An event of another function or CTA than the previous one. */
static __attribute__((noinline)) void on_insn_switch(mb_profile *p, const mb_insn_event *ev)
{
    switch_context(p, ev);
    on_insn(p, ev); /* now in the event's context */
}

/* The first event of a warp in a function in this CTA. */
static __attribute__((noinline)) void on_insn_warp(mb_profile *p, func_prof *f, uint32_t insn,
                                                   const mb_insn_event *ev)
{
    warp_func *wf = warp_func_get(p, &p->warps[ev->warp], f);
    if (!wf) {
        p->oom = 1;
        return;
    }
    const insn_info *ii = &f->info[insn];
    if (ii->special)
        special_event(p, f, wf, ii, insn, ev);
}

static void on_insn(void *ctx, const mb_insn_event *ev)
{
    mb_profile *p = ctx;
    if (p->oom)
        return;
    /* (p->cta starts as no CTA's id, see mb_profile_new) */
    if (ev->fn != p->last_fn || ev->ctaid.x != p->cta.x || ev->ctaid.y != p->cta.y ||
        ev->ctaid.z != p->cta.z) {
        on_insn_switch(p, ev);
        return;
    }
    if (ev->insn >= ev->fn->ninsns || ev->warp >= p->nwarps)
        return;
    func_prof *f = p->last_func;
    const uint32_t insn = ev->insn;
    f->used = 1;
    f->insn_threads[insn] += ev->active == UINT32_MAX ? 32 : (uint64_t)mb_popcount32(ev->active);
    warp_func *wf = p->warps[ev->warp].funcs[f->index];
    if (!wf || wf->epoch != p->epoch) {
        on_insn_warp(p, f, insn, ev);
        return;
    }
    if (f->special[insn])
        special_event(p, f, wf, &f->info[insn], insn, ev);
}

/* The instructions the collector needs events of (prof_func_static.observed):
 * the others share their block's counts (mb_profile_finish). */
static const uint8_t *wanted(void *ctx, const mb_function *fn)
{
    const mb_profile *p = ctx;
    const uint32_t index = (uint32_t)(fn - p->module->funcs);
    if (index >= p->nfuncs_module || !fn->has_body)
        return NULL;
    const func_prof *f = &p->funcs[p->func_slot[index]];
    return f->fn == fn ? f->observed : NULL;
}

/* --------------------------------------------------------- public */

/* Whether memory requests go to a counting thread (mb_profile_options.threads). */
static int relay_wanted(const mb_profile_options *opt)
{
    const uint32_t threads = opt ? opt->threads : 0;
    if (threads)
        return threads >= 2;
    return sysconf(_SC_NPROCESSORS_ONLN) > 1;
}

mb_status mb_profile_new(mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                         const mb_profile_options *opt, mb_profile **out, mb_error *err)
{
    *out = NULL;
    const mb_module *m = mb_program_module(prog);
    mb_profile *p = calloc(1, sizeof(*p));
    if (!p)
        return nomem(err);
    p->module = m;
    p->prog = prog;
    p->mem = mem;
    p->cfg = cfg;
    p->banks = opt && opt->banks ? opt->banks : 32;
    p->bank_bytes = opt && opt->bank_bytes ? opt->bank_bytes : 4;
    p->nfuncs_module = m->nfuncs;
    p->observer.ctx = p;
    p->observer.on_insn = on_insn;
    p->observer.wanted = wanted;
    const mb_dim3 b = cfg->block;
    p->nwarps = (b.x * b.y * b.z + 31) / 32;
    mb_status st = MB_OK;
    p->func_slot = calloc((size_t)m->nfuncs + 1, sizeof(uint32_t));
    p->funcs = calloc((size_t)m->nfuncs + 1, sizeof(func_prof));
    p->warps = calloc(p->nwarps, sizeof(warp_state));
    p->tid_table = calloc((size_t)p->nwarps * 96, sizeof(int64_t));
    if (!p->func_slot || !p->funcs || !p->warps || !p->tid_table)
        st = nomem(err);
    p->tid_uniform = calloc((size_t)p->nwarps * 3 + 1, 1);
    if (st == MB_OK && !p->tid_uniform)
        st = nomem(err);
    for (uint32_t t = 0; st == MB_OK && t < p->nwarps * 32; t++) {
        int64_t *cols = p->tid_table + (size_t)(t / 32) * 96 + t % 32;
        cols[0] = t % b.x;
        cols[32] = (t / b.x) % b.y;
        cols[64] = t / (b.x * b.y);
    }
    /* which thread-id columns are constant over a warp (lanes past the
     * block's last thread never execute, so they do not count) */
    const uint32_t nthreads = b.x * b.y * b.z;
    for (uint32_t w = 0; st == MB_OK && w < p->nwarps; w++)
        for (uint32_t k = 0; k < 3; k++) {
            const int64_t *col = p->tid_table + (size_t)w * 96 + 32 * k;
            uint8_t same = 1;
            for (uint32_t l = 1; l < 32 && w * 32 + l < nthreads; l++)
                same &= col[l] == col[0];
            p->tid_uniform[w * 3 + k] = same;
        }
    /* the kernel first, then the other functions with bodies in module order */
    uint32_t kernel = (uint32_t)(cfg->kernel - m->funcs);
    for (uint32_t pass = 0; pass < 2 && st == MB_OK; pass++)
        for (uint32_t i = 0; i < m->nfuncs && st == MB_OK; i++) {
            if (!m->funcs[i].has_body || (pass == 0) != (i == kernel))
                continue;
            p->func_slot[i] = p->nfuncs;
            st = func_init(p, &p->funcs[p->nfuncs], i, err);
            p->nfuncs++;
        }
    for (uint32_t w = 0; w < p->nwarps && st == MB_OK; w++) {
        p->warps[w].funcs = calloc((size_t)m->nfuncs + 1, sizeof(warp_func *));
        if (!p->warps[w].funcs)
            st = nomem(err);
    }
    uint32_t nslots = 0;
    for (uint32_t k = 0; k < p->nfuncs && st == MB_OK; k++) {
        p->funcs[k].relay_base = nslots;
        nslots += p->funcs[k].fn->ninsns;
    }
    if (st == MB_OK && relay_wanted(opt)) {
        /* (without a relay, the requests are counted here) */
        p->relay = prof_relay_new(nslots, p->tid_table);
        p->relay_slots = p->relay ? prof_relay_slots(p->relay) : NULL;
    }
    p->epoch = 1;
    p->cta.x = UINT32_MAX; /* no CTA has it: the first event switches to its own */
    if (st == MB_OK)
        st = prof_inputs_record(p, err);
    if (st != MB_OK) {
        mb_profile_free(p);
        return st;
    }
    *out = p;
    return MB_OK;
}

const mb_observer *mb_profile_observer(mb_profile *p)
{
    return &p->observer;
}

mb_status mb_profile_finish(mb_profile *p, const mb_exec_stats *stats, mb_error *err)
{
    if (p->have_cta)
        flush_cta(p);
    if (p->relay && !prof_relay_drain(p->relay))
        p->oom = 1;
    if (p->oom)
        return nomem(err);
    if (stats)
        p->stats = *stats;
    for (uint32_t k = 0; k < p->nfuncs; k++) {
        func_prof *f = &p->funcs[k];
        f->calls = f->blocks[0].entries;
        for (int l = 0; l < f->cfg->loops.nloops; l++)
            prof_hist_sort(&f->loops[l].trips);
        for (uint32_t i = 0; i < f->fn->ninsns; i++) {
            if (f->mems[i])
                prof_mem_finish(f->mems[i]);
            /* in order: an anchor comes before the instructions that share it */
            f->insn_threads[i] = f->insn_threads[f->anchor[i]];
        }
        f->view.fn = f->fn;
        f->view.cfg = f->cfg;
        f->view.blocks = f->blocks;
        f->view.edges = f->edges;
        f->view.nedges = f->nedges;
        f->view.calls = f->calls;
    }
    p->finished = 1;
    return MB_OK;
}

void mb_profile_free(mb_profile *p)
{
    if (!p)
        return;
    prof_relay_free(p->relay); /* first: its thread counts into the functions' statistics */
    if (p->warps)
        for (uint32_t w = 0; w < p->nwarps; w++) {
            if (!p->warps[w].funcs)
                continue;
            for (uint32_t i = 0; i < p->nfuncs_module; i++) {
                warp_func *wf = p->warps[w].funcs[i];
                if (!wf)
                    continue;
                free(wf->block_mask);
                free(wf->edge_mask);
                free(wf->iter);
                free(wf->iter_uniform);
                free(wf->iter_value);
                free(wf->front_mask);
                free(wf->front_value);
                free(wf->in_loop);
                free(wf->activation);
                free(wf->act_min);
                free(wf->act_max);
                free(wf);
            }
            free(p->warps[w].funcs);
        }
    if (p->funcs)
        for (uint32_t k = 0; k < p->nfuncs; k++)
            func_free(p->prog, &p->funcs[k]);
    free(p->funcs);
    free(p->func_slot);
    free(p->warps);
    free(p->tid_table);
    free(p->tid_uniform);
    prof_inputs_free(p);
    free(p);
}

uint32_t mb_profile_nfuncs(const mb_profile *p)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < p->nfuncs; k++)
        n += k == 0 || p->funcs[k].used;
    return n;
}

const mb_func_profile *mb_profile_func(const mb_profile *p, uint32_t i)
{
    if (!p->finished)
        return NULL;
    for (uint32_t k = 0; k < p->nfuncs; k++) {
        const func_prof *f = &p->funcs[k];
        if (k != 0 && !f->used)
            continue;
        if (i-- == 0)
            return &f->view;
    }
    return NULL;
}

void mb_profile_block_chain(const mb_function *fn, const mb_cfg *cfg, int block, mb_buf *out)
{
    const mb_block *b = &cfg->blocks[block];
    for (uint32_t i = b->first; i < b->first + b->ninsns; i++) {
        const mb_insn *insn = &fn->insns[i];
        if (i != b->first)
            mb_buf_putc(out, ' ');
        mb_buf_puts(out, mb_opcode_get((mb_opcode)insn->opcode)->name);
        for (unsigned k = 0; k < insn->nsuffix; k++)
            if (insn->suffix[k] & MB_SUFFIX_TYPE)
                mb_buf_printf(out, ".%s", mb_type_name((mb_ptx_type)(insn->suffix[k] & ~MB_SUFFIX_TYPE)));
    }
}
