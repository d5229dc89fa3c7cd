/* The clone model run on the host, thread by thread: it predicts the
 * clone's block counts and lets the builder calibrate thresholds so that
 * the clone's branches split threads like the original's. */
#include "clone_ctx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Block executions per thread before the model is declared runaway. */
#define SIM_STEP_LIMIT UINT64_C(50000000)

static int is_outside_pred(const ctx *c, int block, int loop)
{
    if (c->in_loop[loop][block])
        return 0;
    const blk *b = &c->b[block];
    int h = c->f->loops[loop].header;
    for (int s = 0; s < b->nsucc; s++)
        if (b->succ[s] == h)
            return 1;
    return 0;
}

static uint32_t hash_value(const ctx *c, const mb_clone_branch *br, uint32_t t, const uint32_t *iter)
{
    uint32_t it = br->loop >= 0 ? iter[br->loop] : 0;
    return it * br->hash_mult + c->gtid[t] * HASH_BASE_MULT;
}

mb_status cx_simulate(ctx *c, sim_watch *w, double *ecount)
{
    const mb_clone_model *m = c->m;
    uint32_t *iter = calloc(c->nloops + 1, sizeof(uint32_t));
    uint32_t *runs = w && w->visit ? calloc(c->nb + 1, sizeof(uint32_t)) : NULL;
    if (!iter || (w && w->visit && !runs)) {
        free(iter);
        free(runs);
        return cx_nomem(c);
    }
    if (w)
        w->iter = iter;
    memset(ecount, 0, c->nb * sizeof(double));
    uint64_t total = 0;
    mb_status st = MB_OK;
    int have_warp = 0;
    uint32_t warp = 0;
    for (uint32_t t = 0; t < c->nthreads && st == MB_OK; t++) {
        /* a called function runs weight[t] times, each time alike */
        uint32_t wt = c->weight ? c->weight[t] : 1;
        if (wt == 0)
            continue;
        if (w && w->warp_end && have_warp && c->kf[t] >> 5 != warp)
            w->warp_end(c, w->visit_arg, warp);
        warp = c->kf[t] >> 5;
        have_warp = 1;
        if (w && w->thread_begin)
            w->thread_begin(c, w->visit_arg, t);
        if (runs)
            memset(runs, 0, (c->nb + 1) * sizeof(uint32_t));
        memset(iter, 0, (c->nloops + 1) * sizeof(uint32_t));
        int b = 0, prev = -1;
        while (b >= 0) {
            if (++total > SIM_STEP_LIMIT) {
                st = mb_error_set(c->err, MB_ERR_LIMIT, "", 0, 0,
                                  "the clone model of %s runs more than %llu block executions",
                                  c->p->kernel, (unsigned long long)SIM_STEP_LIMIT);
                break;
            }
            ecount[b] += wt;
            int hl = c->loop_of_header[b];
            if (hl >= 0 && (prev < 0 || !c->in_loop[hl][prev]) && w && w->loop == hl)
                w->activations[t] += wt;
            const blk *B = &c->b[b];
            if (w && w->calls)
                w->calls[t] += (uint64_t)wt * B->ncalls;
            if (runs) {
                w->visit(c, w->visit_arg, t, b, runs);
                runs[b]++;
            }
            if (w && w->ranges)
                for (size_t i = 0; i < c->f->nmem; i++) {
                    memplan *pl = &c->plans[i];
                    const mb_sprof_mem *mm = &c->f->mem[i];
                    if (pl->kind != PLAN_AFFINE || mm->insn < c->f->blocks[b].first_insn ||
                        mm->insn >= c->f->blocks[b].first_insn + c->f->blocks[b].nchain)
                        continue;
                    int64_t v = cx_affine_eval(c, &mm->affine, t, iter, 0);
                    if (!pl->seen || v < pl->lo)
                        pl->lo = v;
                    if (!pl->seen || v > pl->hi)
                        pl->hi = v;
                    pl->seen = 1;
                }
            /* the counters count finished iterations: advanced where an
             * iteration ends, before that block's branch */
            for (size_t l = 0; l < c->nloops; l++)
                if (c->latch[l][b])
                    iter[l]++;
            int next;
            if (B->term == TERM_RET) {
                next = -1;
            } else if (B->cond) {
                const mb_clone_branch *br = &m->branches[B->branch];
                int p = 0, taken;
                switch (br->rule) {
                case MB_RULE_KEY:
                    p = cx_branch_key(c, t, br) < cx_branch_limit(c, br, t, iter);
                    break;
                case MB_RULE_HASH:
                    p = hash_value(c, br, t, iter) < br->threshold;
                    break;
                case MB_RULE_LOOP_BACK:
                    p = iter[br->loop] < cx_trip(c, br->loop, t, iter);
                    break;
                case MB_RULE_LOOP_EXIT:
                    p = iter[br->loop] + 1 >= cx_trip(c, br->loop, t, iter);
                    break;
                case MB_RULE_BOX:
                    p = c->gx[t] < br->box_x && c->gy[t] < br->box_y;
                    break;
                case MB_RULE_COMPARE:
                    p = cx_cond_eval(c, br->cond, t, iter);
                    break;
                case MB_RULE_CONST:
                    break;
                }
                taken = br->rule == MB_RULE_CONST ? br->const_taken : p == br->true_taken;
                if (w && w->branch_block == b) {
                    w->per_thread[t] += wt;
                    if (br->rule == MB_RULE_HASH) {
                        if (MB_GROW(w->hashes, w->hashes_cap, w->nhashes + wt) != MB_OK) {
                            st = cx_nomem(c);
                            break;
                        }
                        for (uint32_t k = 0; k < wt; k++)
                            w->hashes[w->nhashes++] = hash_value(c, br, t, iter);
                    }
                    if (br->rule == MB_RULE_KEY && br->loop >= 0) {
                        if (MB_GROW(w->execs, w->execs_cap, w->nexecs + 1) != MB_OK) {
                            st = cx_nomem(c);
                            break;
                        }
                        w->execs[w->nexecs++] = (sim_exec){t, iter[br->loop], wt};
                    }
                }
                next = taken ? B->taken : B->fall;
            } else {
                next = B->taken >= 0 ? B->taken : B->fall;
            }
            for (size_t l = 0; l < c->nloops; l++)
                if (is_outside_pred(c, b, (int)l))
                    iter[l] = 0;
            prev = b;
            b = next;
        }
    }
    if (st == MB_OK && w && w->warp_end && have_warp)
        w->warp_end(c, w->visit_arg, warp);
    if (w)
        w->iter = NULL;
    free(iter);
    free(runs);
    return st;
}

typedef struct keyed {
    uint32_t key;
    uint64_t weight;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    uint32_t x = ((const keyed *)a)->key, y = ((const keyed *)b)->key;
    return (x > y) - (x < y);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

typedef uint32_t (*key_fn)(const ctx *c, uint32_t t, uint32_t period);

/* Threads' weights aggregated by key(t, period), ascending. */
static keyed *by_key(ctx *c, const uint64_t *weight, key_fn key, uint32_t period, size_t *n)
{
    keyed *k = malloc((c->nthreads + 1) * sizeof(*k));
    if (!k)
        return NULL;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        k[t].key = key(c, t, period);
        k[t].weight = weight[t];
    }
    qsort(k, c->nthreads, sizeof(*k), cmp_keyed);
    size_t m = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        if (m && k[m - 1].key == k[t].key)
            k[m - 1].weight += k[t].weight;
        else
            k[m++] = k[t];
    }
    *n = m;
    return k;
}

/* Smallest threshold K with sum of weights of keys < K closest to target. */
static uint32_t threshold_for(const keyed *k, size_t n, double target)
{
    double before = 0, best_err = target < 0 ? -target : target;
    uint32_t best = 0;
    for (size_t i = 0; i < n; i++) {
        before += (double)k[i].weight;
        double e = before - target;
        if (e < 0)
            e = -e;
        if (e < best_err) {
            best_err = e;
            best = i + 1 < n ? k[i + 1].key : k[i].key + 1;
        }
    }
    return best;
}

/* The box (X, Y) whose weight is closest to `target`, preferring the
 * aspect of the whole grid; 2-D prefix sums make each candidate O(1). */
static mb_status calibrate_box(ctx *c, mb_clone_branch *br, const uint64_t *w, double target)
{
    uint32_t xs = 1, ys = 1;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        if (c->gx[t] + 1 > xs)
            xs = c->gx[t] + 1;
        if (c->gy[t] + 1 > ys)
            ys = c->gy[t] + 1;
    }
    double *sum = calloc((size_t)(xs + 1) * (ys + 1), sizeof(double));
    if (!sum)
        return cx_nomem(c);
#define S(x, y) sum[(size_t)(y) * (xs + 1) + (x)]
    for (uint32_t t = 0; t < c->nthreads; t++)
        S(c->gx[t] + 1, c->gy[t] + 1) += (double)w[t];
    for (uint32_t y = 1; y <= ys; y++)
        for (uint32_t x = 1; x <= xs; x++)
            S(x, y) += S(x - 1, y) + S(x, y - 1) - S(x - 1, y - 1);
    /* a row-major array indexed [y][x] has width coef(tid.y) / coef(tid.x):
     * the bound on x the kernel most likely checks */
    uint32_t hint = 0;
    for (size_t i = 0; i < c->f->nmem && !hint; i++) {
        const mb_affine *a = &c->f->mem[i].affine;
        int64_t cx = 0, cy = 0;
        for (size_t k = 0; k < a->nterms; k++) {
            if (!strcmp(a->var[k], "tid.x"))
                cx = a->coef[k];
            if (!strcmp(a->var[k], "tid.y"))
                cy = a->coef[k];
        }
        if (a->exact && cx > 0 && cy > cx && cy % cx == 0 && (uint64_t)(cy / cx) <= xs)
            hint = (uint32_t)(cy / cx);
    }
    double best_err = -1, best_aspect = 0;
    for (uint32_t x = 0; x <= xs; x++) {
        /* weight grows with y: binary search the closest */
        uint32_t lo = 0, hi = ys;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (S(x, mid) < target)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t y = lo > 0 ? lo - 1 : 0; y <= lo && y <= ys; y++) {
            double err = S(x, y) - target;
            err = err < 0 ? -err : err;
            double aspect = (double)x / xs - (double)y / ys;
            aspect = aspect < 0 ? -aspect : aspect;
            if (hint && x == hint)
                aspect = -1;
            if (best_err < 0 || err < best_err - 1e-9 || (err < best_err + 1e-9 && aspect < best_aspect)) {
                best_err = err;
                best_aspect = aspect;
                br->box_x = x;
                br->box_y = y;
            }
        }
    }
#undef S
    free(sum);
    return MB_OK;
}

/* The threshold of a KEY branch: its key alone (one instruction) when it
 * can hit the count, else ties broken by warp. */
static mb_status calibrate_key(ctx *c, mb_clone_branch *br, const uint64_t *weight, double target)
{
    key_fn plain = br->cta_relative ? cx_cta_key : br->reversed ? cx_rev_key : cx_key;
    size_t n;
    keyed *k = by_key(c, weight, plain, br->lane_period, &n);
    if (!k)
        return cx_nomem(c);
    br->threshold = threshold_for(k, n, target);
    double got = 0;
    for (size_t i = 0; i < n && k[i].key < br->threshold; i++)
        got += (double)k[i].weight;
    free(k);
    br->fine = !br->cta_relative && br->lane_period && (got - target > 0.5 || target - got > 0.5);
    if (!br->fine)
        return MB_OK;
    k = by_key(c, weight, br->reversed ? cx_rev_fine_key : cx_fine_key, br->lane_period, &n);
    if (!k)
        return cx_nomem(c);
    br->threshold = threshold_for(k, n, target);
    free(k);
    return MB_OK;
}

/* The share of warp executions of a KEY branch that diverge, its decision
 * being constant per thread: a warp runs the branch as often as its
 * busiest lane, and diverges every time when its lanes' decisions differ. */
static double predicted_divergence(const ctx *c, const mb_clone_branch *br, const uint64_t *execs)
{
    uint32_t warps = c->nthreads ? (c->kf[c->nthreads - 1] >> 5) + 1 : 1;
    uint64_t *most = calloc(warps, sizeof(uint64_t));
    unsigned char *sides = calloc(warps, 1);
    double total = 0, diverged = 0;
    if (most && sides) {
        for (uint32_t t = 0; t < c->nthreads; t++) {
            uint32_t wp = c->kf[t] >> 5;
            if (!execs[t] || wp >= warps)
                continue;
            if (execs[t] > most[wp])
                most[wp] = execs[t];
            sides[wp] |= cx_branch_key(c, t, br) < br->threshold ? 1 : 2;
        }
        for (uint32_t wp = 0; wp < warps; wp++) {
            total += (double)most[wp];
            diverged += sides[wp] == 3 ? (double)most[wp] : 0;
        }
    }
    free(most);
    free(sides);
    return total > 0 ? diverged / total : 0;
}

/* The watched KEY branch's executions under its rule: how many fall
 * through (weighted), and the share of warp executions that diverge, a
 * thread's k-th execution running with its warp's other lanes' k-th. */
static mb_status key_outcome(ctx *c, const mb_clone_branch *br, const sim_watch *w, double *below,
                             double *divergence)
{
    mb_status st = MB_OK;
    double total = 0, diverged = 0;
    unsigned char *sides = NULL;
    uint32_t *most = NULL;
    size_t cap = 0, cap2 = 0, n = 0;
    *below = 0;
    for (size_t i = 0; i < w->nexecs;) {
        /* one warp's executions: its threads are consecutive */
        uint32_t warp = c->kf[w->execs[i].t] >> 5;
        size_t end = i;
        while (end < w->nexecs && c->kf[w->execs[end].t] >> 5 == warp)
            end++;
        n = 0;
        for (size_t j = i, k = 0; j < end; j++, k++) {
            const sim_exec *e = &w->execs[j];
            if (j > i && e->t != w->execs[j - 1].t)
                k = 0;
            if (k >= n) {
                if (MB_GROW(sides, cap, k + 1) != MB_OK || MB_GROW(most, cap2, k + 1) != MB_OK) {
                    st = cx_nomem(c);
                    goto out;
                }
                for (; n <= k; n++)
                    sides[n] = 0, most[n] = 0;
            }
            int fall = cx_branch_key(c, e->t, br) < cx_halved(br, cx_sampled_iter(c, br->loop, e->t, e->iter));
            *below += fall ? e->weight : 0;
            sides[k] |= fall ? 1 : 2;
            if (e->weight > most[k])
                most[k] = e->weight;
        }
        for (size_t k = 0; k < n; k++) {
            total += most[k];
            diverged += sides[k] == 3 ? most[k] : 0;
        }
        i = end;
    }
out:
    free(sides);
    free(most);
    *divergence = total > 0 ? diverged / total : 0;
    return st;
}

/* The halving threshold whose fall-through count is nearest the target
 * (the count grows with the threshold). */
static mb_status calibrate_halving(ctx *c, mb_clone_branch *br, const sim_watch *w, double target)
{
    uint64_t lo = 0, hi = UINT32_MAX;
    double below = 0, fewer = 0, div;
    mb_status st = MB_OK;
    while (lo < hi && st == MB_OK) {
        uint64_t mid = (lo + hi) / 2;
        br->threshold = (uint32_t)mid;
        st = key_outcome(c, br, w, &below, &div);
        if (below >= target)
            hi = mid;
        else
            lo = mid + 1;
    }
    br->threshold = (uint32_t)lo;
    if (st == MB_OK)
        st = key_outcome(c, br, w, &below, &div);
    if (st == MB_OK && lo > 0) {
        br->threshold = (uint32_t)lo - 1;
        st = key_outcome(c, br, w, &fewer, &div);
        if (target - fewer > below - target)
            br->threshold = (uint32_t)lo;
    }
    return st;
}

/* Phases and thresholds per phase a sampled halving loop tries at most. */
#define HALVING_PHASES 64
#define HALVING_CANDIDATES 64

typedef struct halving_best {
    double err2, miss;
    uint32_t phase, threshold; /* threshold 0: none found */
} halving_best;

/* Every pair (phase, threshold) of the loop's sampling as it stands: the
 * count's own threshold at each phase and round ones near the calibrated
 * one; `b` keeps the pair within compare's divergence tolerance and 5% of
 * the count that comes nearest the divergence, then the count. */
static mb_status halving_search(ctx *c, mb_clone_branch *br, const sim_watch *w, double target,
                                uint32_t calibrated, halving_best *b)
{
    mb_clone_loop *cl = &c->m->loops[br->loop];
    const double tolerance = mb_compare_default_tolerance(1).divergence_pts;
    const uint32_t phases = cl->iter_stride < HALVING_PHASES ? cl->iter_stride : HALVING_PHASES;
    mb_status st = MB_OK;
    for (uint32_t p = 0; p < phases && st == MB_OK; p++) {
        cl->iter_phase = p;
        uint32_t cand[HALVING_CANDIDATES], n = 0;
        st = calibrate_halving(c, br, w, target);
        cand[n++] = br->threshold;
        for (uint64_t v = 1; v <= 4 * (uint64_t)calibrated && n < HALVING_CANDIDATES; v *= 2)
            cand[n++] = (uint32_t)v;
        for (uint64_t v = 32; v <= 2 * (uint64_t)calibrated && n < HALVING_CANDIDATES; v += 32)
            if (v & (v - 1)) /* powers of two are in already */
                cand[n++] = (uint32_t)v;
        for (uint32_t i = 0; i < n && st == MB_OK; i++) {
            double below, d;
            br->threshold = cand[i];
            st = key_outcome(c, br, w, &below, &d);
            const double e = d - br->target_divergence, miss = fabs(below - target);
            if (st == MB_OK && fabs(e) <= tolerance && miss <= 0.05 * target &&
                (e * e < b->err2 - 1e-12 || (e * e < b->err2 + 1e-12 && b->threshold && miss < b->miss))) {
                b->err2 = e * e;
                b->miss = miss;
                b->phase = p;
                b->threshold = cand[i];
            }
        }
    }
    return st;
}

/* The original's trip N where loop l can spread its n iterations over all
 * N of them (iter_div): a constant trip in the original and the clone, n
 * not dividing N (or 1 where the stride, R, falls short of N), and no other
 * halving branch in the loop whose phase a new sampling would move; 0
 * otherwise. */
static uint32_t spread_span(const ctx *c, const mb_clone_branch *br)
{
    const mb_clone_loop *cl = &c->m->loops[br->loop];
    const mb_hist *trips = &c->f->loops[br->loop].trips;
    if (trips->n != 1 || trips->key[0] < 2 || trips->key[0] > UINT32_MAX || cx_trip_varies(cl) ||
        cl->ntrips != 1 || cl->trip[0] < 1 ||
        (cl->trip[0] == 1 ? cl->iter_stride >= trips->key[0] : (uint64_t)trips->key[0] % cl->trip[0] == 0))
        return 0;
    /* the index (j N + phase) / n as a multiply-high by ceil(2^32 / n) is
     * exact while n (n N - 1) < 2^32; the counter j N + phase (below n N)
     * is compared signed where a halving bound reads it */
    const uint64_t n = cl->trip[0], N = (uint64_t)trips->key[0];
    if (n * (n * N - 1) >= UINT64_C(1) << 32 || n * N > INT32_MAX)
        return 0;
    for (size_t k = 0; k < c->nb; k++)
        if (c->in_loop[br->loop][k] && c->b[k].cond && &c->m->branches[c->b[k].branch] != br &&
            c->m->branches[c->b[k].branch].halving)
            return 0;
    return (uint32_t)trips->key[0];
}

/*
 * A halving branch in a loop that samples the original's iterations (CTA c
 * runs iteration j * S + (c + P) mod S) meets its count only with a
 * threshold that splits a warp at every sampled step (reduce_conflict at
 * R = 8 and max: one step a CTA, 0.25 of the warp executions diverging
 * against the original's 0.1786). Another phase P, with a power of two or
 * a multiple of 32 near the calibrated threshold, can give each CTA's step
 * the original's active threads at that step: every pair (P, threshold) is
 * tried (halving_search), and the best is kept where it is nearer than the
 * constant threshold's (e0). Where the clone's n iterations do not divide
 * the original's N, samples j * S + phase never reach the last N - n S
 * steps (reduce_conflict at R = 2 runs steps 0, 2, 4 or 1, 3, 5 of 7: 84 or
 * 42 of the 127 executions where 54.4 are expected; at R = 4, one step of
 * the first four); the pairs are tried again with iteration j of CTA c
 * standing for (j N + (c + P) mod N) / n, which visits every step equally
 * often over N CTAs. Only for loops whose
 * counter no calibrated comparison reads (their phase is calibrate_phase's).
 * br->halving is cleared when none is kept.
 */
static mb_status halving_phase(ctx *c, mb_clone_branch *br, const sim_watch *w, double target, double e0)
{
    mb_clone_loop *cl = &c->m->loops[br->loop];
    br->halving = 0;
    if (cl->iter_stride <= 1)
        return MB_OK;
    br->fine = 0; /* whole lanes in order, as the original's active threads */
    for (size_t k = 0; k < c->nb; k++)
        if (c->in_loop[br->loop][k] && c->b[k].cond) {
            const mb_clone_branch *o = &c->m->branches[c->b[k].branch];
            if (o->rule == MB_RULE_COMPARE && o->cond && o->cond->expr && cx_cond_reads_loop(o->cond->expr, br->loop))
                return MB_OK;
        }
    const uint32_t calibrated = br->threshold, phase0 = cl->iter_phase, stride0 = cl->iter_stride;
    halving_best b = {e0 * e0, 0, phase0, 0};
    br->halving = 1;
    mb_status st = halving_search(c, br, w, target, calibrated, &b);
    const uint32_t span = spread_span(c, br);
    if (st == MB_OK && !b.threshold && span) {
        cl->iter_stride = span;
        cl->iter_div = cl->trip[0];
        st = halving_search(c, br, w, target, calibrated, &b);
        if (!b.threshold) {
            cl->iter_stride = stride0;
            cl->iter_div = 1;
        }
    }
    cl->iter_phase = b.threshold ? b.phase : phase0;
    br->threshold = b.threshold ? b.threshold : calibrated;
    br->halving = b.threshold != 0;
    return st;
}

/* A halving threshold for a KEY branch in a loop, kept when it meets the
 * count (within 1%) and comes at least as close to the original's divergence as
 * the constant one calibrated already, within compare's tolerance: it
 * changes which warps run the guarded blocks, so the accesses there see
 * other request counts, and a divergence still out of tolerance is not
 * worth their distributions. */
static mb_status try_halving(ctx *c, mb_clone_branch *br, const sim_watch *w, double target)
{
    mb_clone_branch flat = *br;
    double below, d0, d1;
    mb_status st = key_outcome(c, br, w, &below, &d0);
    br->halving = 1;
    br->fine = 0;
    /* a tree's active threads halve in every CTA alike: the halving reads
     * the index in the CTA (the lane key of period warps-per-CTA) where the
     * constant split took a key across CTAs (reduce_conflict in CTAs of 512
     * threads: its divergence asked for a period of 32 warps, beyond its 16) */
    if (c->tpc % 32 == 0 && (c->wpc & (c->wpc - 1)) == 0) {
        br->cta_relative = 0;
        br->reversed = 0;
        br->lane_period = c->wpc;
    }
    if (st == MB_OK)
        st = calibrate_halving(c, br, w, target);
    if (st == MB_OK)
        st = key_outcome(c, br, w, &below, &d1);
    if (st == MB_OK && (below - target > 0.5 || target - below > 0.5) && br->lane_period && !br->cta_relative) {
        br->fine = 1;
        st = calibrate_halving(c, br, w, target);
        if (st == MB_OK)
            st = key_outcome(c, br, w, &below, &d1);
    }
    if (st != MB_OK)
        return st;
    double e0 = d0 - br->target_divergence, e1 = d1 - br->target_divergence;
    double miss = below > target ? below - target : target - below;
    const double tolerance = mb_compare_default_tolerance(1).divergence_pts;
    /* a tie goes to halving: the constant split can meet the divergence
     * (reduce_conflict in one-warp CTAs: every step splits the warp) but
     * not the active threads of each step, which its accesses need */
    if (e1 * e1 > e0 * e0 + 1e-12 || miss > 1 + 0.01 * target || e1 > tolerance || -e1 > tolerance) {
        st = halving_phase(c, br, w, target, e0);
        if (st != MB_OK || !br->halving) {
            *br = flat;
            br->loop = -1;
        }
    }
    return st;
}

static mb_status calibrate_branch(ctx *c, int block, double *ecount)
{
    mb_clone_branch *br = &c->m->branches[c->b[block].branch];
    sim_watch w;
    memset(&w, 0, sizeof(w));
    w.branch_block = block;
    w.loop = -1;
    w.per_thread = calloc(c->nthreads + 1, sizeof(uint64_t));
    if (!w.per_thread)
        return cx_nomem(c);
    mb_status st = cx_simulate(c, &w, ecount);
    if (st == MB_OK) {
        double execs = 0;
        for (uint32_t t = 0; t < c->nthreads; t++)
            execs += (double)w.per_thread[t];
        /* KEY: low keys fall through (the body of an 'if' is usually the
         * low threads' side), so the predicate true means not taken */
        double target = br->rule == MB_RULE_KEY || br->rule == MB_RULE_BOX ? (1 - br->target_taken) * execs
                                                : br->target_taken * execs;
        if (br->rule == MB_RULE_BOX) {
            st = calibrate_box(c, br, w.per_thread, target);
        } else if (br->rule == MB_RULE_HASH) {
            qsort(w.hashes, w.nhashes, sizeof(uint32_t), cmp_u32);
            size_t want = (size_t)(target + 0.5);
            br->threshold = want == 0           ? 0
                            : want >= w.nhashes ? UINT32_MAX
                                                : w.hashes[want];
        } else {
            br->reversed = br->halving = 0;
            st = calibrate_key(c, br, w.per_thread, target);
            /* every warp diverging (P = 1) but the lane key leaving some
             * undiverged: partial warps, which hold the low lanes only, and
             * the reversed key splits those too. The lane order is kept
             * otherwise: it keeps a guarded access's lanes together. */
            if (st == MB_OK && br->lane_period == 1 && !br->cta_relative) {
                mb_clone_branch plain = *br;
                double d0 = predicted_divergence(c, br, w.per_thread);
                br->reversed = 1;
                st = calibrate_key(c, br, w.per_thread, target);
                double d1 = st == MB_OK ? predicted_divergence(c, br, w.per_thread) : d0;
                double e0 = d0 - br->target_divergence, e1 = d1 - br->target_divergence;
                if (st == MB_OK && e1 * e1 >= e0 * e0)
                    *br = plain;
            }
            /* a halving threshold, kept when it meets the count and the
             * original's divergence (try_halving) */
            if (st == MB_OK && br->loop >= 0)
                st = try_halving(c, br, &w, target);
        }
    }
    free(w.per_thread);
    free(w.hashes);
    free(w.execs);
    return st;
}

typedef struct trip_weight {
    uint32_t trip;
    double weight;
} trip_weight;

/* Reduced trip values and their share of activations, at most 4 groups. */
static size_t trip_groups(ctx *c, int l, trip_weight *g)
{
    const mb_sprof_loop *sl = &c->f->loops[l];
    size_t n = 0;
    double total = 0;
    for (size_t j = 0; j < sl->trips.n; j++)
        total += (double)sl->trips.count[j];
    /* quantile groups of equal weight; a group's trip is its weighted mean */
    size_t groups = sl->trips.n < 4 ? sl->trips.n : 4;
    double acc = 0, gsum = 0, gw = 0;
    size_t gi = 0;
    mb_trip_scale scale = mb_sprof_trip_scale(sl, c->m->reduction);
    for (size_t j = 0; j < sl->trips.n; j++) {
        double r = (double)mb_sprof_reduced_trip(scale, sl->trips.key[j]);
        double w = (double)sl->trips.count[j];
        gsum += r * w;
        gw += w;
        acc += w;
        if (sl->trips.n <= 4 || acc >= total * (double)(gi + 1) / (double)groups - 1e-9 ||
            j + 1 == sl->trips.n) {
            uint32_t v = (uint32_t)(gsum / gw + 0.5);
            if (n && g[n - 1].trip == v) {
                g[n - 1].weight += gw;
            } else {
                g[n].trip = v;
                g[n].weight = gw;
                n++;
            }
            gsum = gw = 0;
            gi++;
        }
    }
    return n;
}

/* A nested loop whose trip count does not depend on the thread (no thread
 * id in its dataflow, no warp whose lanes differ) changes from one
 * activation to the next, as a tiled loop's last, shorter tile does. Its
 * values then follow the enclosing loop's iteration: every thread runs the
 * same sequence, and no warp or CTA gets more iterations than another. The
 * shares of activations hold when the enclosing loop runs a single count
 * long enough to give every value at least one iteration; else every thread
 * runs their mean, since spreading them over threads would give some CTAs
 * more work than others. */
static int thread_independent_trips(ctx *c, int l, const trip_weight *g, size_t n)
{
    const mb_sprof_loop *sl = &c->f->loops[l];
    mb_clone_loop *cl = &c->m->loops[l];
    int o = sl->parent;
    if (n < 2 || sl->thread_dependent || sl->warp_activations_differing != 0)
        return 0;
    double total = 0, share = 0, mean = 0;
    for (size_t j = 0; j < n; j++) {
        total += g[j].weight;
        mean += g[j].weight * g[j].trip;
    }
    uint32_t from[8];
    from[0] = 0;
    const mb_clone_loop *ol = o >= 0 ? &c->m->loops[o] : NULL;
    int fits = ol && ol->ntrips == 1 && !cx_trip_varies(ol) && ol->outer < 0;
    for (size_t j = 1; j < n && fits; j++) {
        share += g[j - 1].weight;
        from[j] = (uint32_t)((double)c->m->loops[o].trip[0] * share / total + 0.5);
        fits = from[j] > from[j - 1] && from[j] < c->m->loops[o].trip[0];
    }
    if (!fits) {
        /* every thread runs the mean count */
        cl->ntrips = 1;
        cl->trip[0] = (uint32_t)(mean / total + 0.5);
        cl->trip_from[0] = 0;
        return 1;
    }
    for (size_t j = 0; j < n; j++)
        cl->trip_from[j] = from[j];
    cl->outer = o;
    cl->lane_period = 0;
    return 1;
}

/* Thresholds on the loop's lane key (period cl->lane_period) giving the
 * trip values of g their shares of the loop's activations. */
static mb_status place_trips(ctx *c, int l, const trip_weight *g, size_t n,
                             const uint64_t *activations)
{
    mb_clone_loop *cl = &c->m->loops[l];
    size_t nk = 0;
    keyed *k = by_key(c, activations, cl->reversed ? cx_rev_key : cx_key, cl->lane_period, &nk);
    if (!k)
        return cx_nomem(c);
    double acts = 0, share = 0, total = 0;
    for (size_t i = 0; i < nk; i++)
        acts += (double)k[i].weight;
    for (size_t j = 0; j < n; j++)
        total += g[j].weight;
    for (size_t j = 1; j < n; j++) {
        share += g[j - 1].weight;
        cl->trip_from[j] = threshold_for(k, nk, acts * share / total);
        if (cl->trip_from[j] < cl->trip_from[j - 1])
            cl->trip_from[j] = cl->trip_from[j - 1];
    }
    free(k);
    return MB_OK;
}

/* The profiled divergence of the branch governing loop l's trip count, or
 * -1 when it has none. */
static double controller_divergence(const ctx *c, int l)
{
    const mb_clone_loop *cl = &c->m->loops[l];
    for (size_t i = 0; i < c->f->nbranches; i++)
        if (c->f->branches[i].block == cl->controller && c->f->branches[i].warp_execs)
            return c->f->branches[i].divergence_fraction;
    return -1;
}

/* Loop l's exit as the clone's warps run it with their threads' trips
 * (cx_trip): an activation runs to the warp's longest trip and diverges
 * once at every shorter trip one of its lanes has. Lanes of a warp
 * activate the loop together, as the host run counts them. */
typedef struct exit_run {
    double divergence; /* diverged warp executions over warp executions */
    double warp_execs;
    double mean_trip;  /* over the activations */
} exit_run;

static exit_run run_exit(const ctx *c, int l, const uint64_t *activations)
{
    double diverged = 0, execs = 0, lane_acts = 0, lane_trips = 0;
    uint32_t t = 0;
    while (t < c->nthreads) {
        const uint32_t warp = c->kf[t] >> 5;
        uint64_t acts = 0;
        uint32_t trips[8], distinct = 0, longest = 0; /* (trip_groups: at most 8 values) */
        for (; t < c->nthreads && c->kf[t] >> 5 == warp; t++) {
            if (!activations[t])
                continue;
            acts = activations[t] > acts ? activations[t] : acts;
            const uint32_t trip = cx_trip(c, l, t, NULL);
            longest = trip > longest ? trip : longest;
            lane_acts += (double)activations[t];
            lane_trips += (double)activations[t] * (double)trip;
            uint32_t j = 0;
            while (j < distinct && trips[j] != trip)
                j++;
            if (j == distinct && distinct < 8)
                trips[distinct++] = trip;
        }
        if (acts) {
            diverged += (double)acts * (double)(distinct - 1);
            execs += (double)acts * (double)longest;
        }
    }
    exit_run r = {execs > 0 ? diverged / execs : 0, execs, lane_acts > 0 ? lane_trips / lane_acts : 0};
    return r;
}

static double exit_divergence(const ctx *c, int l, const uint64_t *activations)
{
    return run_exit(c, l, activations).divergence;
}

/* Distinct trip values a loop may take (run_exit tells 8 apart). */
#define TRIP_VALUES_MAX 8
/* An exit divergence this near the original's needs no stairs. */
#define STAIR_DIVERGENCE_MET 0.01

/* How far a run's exit divergence and mean trip are from the original's
 * divergence and the reduction's mean, each in units of what `compare`
 * tolerates (the mean keeps a tenth of its tolerance for the loop's other
 * blocks): above 1 is out of tolerance. */
static void stair_errors(const ctx *c, exit_run r, double target, double want, double *div, double *mean)
{
    mb_compare_tolerance tol = mb_compare_default_tolerance(c->m->reduction);
    *div = fabs(r.divergence - target) / tol.divergence_pts;
    *mean = fabs(r.mean_trip / want - 1) / (0.9 * tol.ecount_rel);
}

/*
 * Reduced trips can split warps less often than the original's exit did:
 * 2 or 3 iterations become 1 in every lane at R = 2 and never diverge;
 * tid % 7 + 1 iterations keep 1 or 2 at R = 8 and diverge at most once in
 * two. Stairs restore the splits: k steps of w keys from the first key of
 * every period of p warps (lanes 0 to kw - 1 of one warp) run k..1
 * iterations more, so that warp's exit diverges up to k more times, at a
 * cost of w k (k + 1) / 2 iterations per p warps. Kept only with both the
 * exit divergence and the mean trip (what `compare` expects of the loop's
 * blocks) within tolerance.
 */
static mb_status add_stairs(ctx *c, int l, const trip_weight *g, size_t n, const uint64_t *activations,
                            int *added)
{
    mb_clone_loop *cl = &c->m->loops[l];
    double target = controller_divergence(c, l);
    *added = 0;
    if (target <= 0 || cl->controller < 0 || cl->outer >= 0 || cl->cycle || n < 1 || n >= TRIP_VALUES_MAX)
        return MB_OK;
    exit_run now = run_exit(c, l, activations);
    if (fabs(now.divergence - target) <= STAIR_DIVERGENCE_MET)
        return MB_OK;
    double want = mb_sprof_reduced_mean_trip(&c->f->loops[l], c->m->reduction), div, mean;
    /* both within tolerance (else stairs trade one statistic for another),
     * and a quarter of it gained over no stairs (their instructions count
     * in the totals too) */
    stair_errors(c, now, target, want, &div, &mean);
    double worst = div > mean ? div : mean, limit = worst < 1.25 ? worst - 0.25 : 1;
    mb_clone_loop kept = *cl;
    uint32_t from[TRIP_VALUES_MAX];
    memcpy(from, cl->trip_from, n * sizeof(uint32_t));
    /* of those, the one with the fewest steps (a warp's extra iterations
     * hold its CTA back, and the kernel waits for its slowest CTA: steps
     * of 5 in one warp of 16 made devfunc's clone at R = 4 29% slower
     * than its instruction count), then the fewest warp executions, the
     * widest on ties: wider steps run those iterations on more lanes */
    double best_execs = 0;
    uint32_t best_p = 0, best_k = 0, best_shift = 0, warps = c->nthreads / 32 + (c->nthreads % 32 != 0);
    mb_status st = MB_OK;
    for (uint32_t p = 1; p < warps && st == MB_OK; p *= 2) {
        cl->lane_period = p;
        cl->reversed = 0;
        cl->stairs = 0;
        st = place_trips(c, l, g, n, activations);
        /* more or wider steps only add iterations: stop at the first whose
         * mean is out of tolerance */
        for (uint32_t k = 1; n + k <= TRIP_VALUES_MAX && st == MB_OK; k++) {
            uint32_t shift = 0;
            for (; (k << shift) <= 32; shift++) {
                cl->stairs = k;
                cl->stair_shift = shift;
                exit_run r = run_exit(c, l, activations);
                stair_errors(c, r, target, want, &div, &mean);
                if (mean >= limit)
                    break;
                if (div < limit &&
                    (!best_k || k < best_k ||
                     (k == best_k && (r.warp_execs < best_execs - 0.5 ||
                                      (r.warp_execs < best_execs + 0.5 && shift > best_shift))))) {
                    best_execs = r.warp_execs;
                    best_p = p;
                    best_k = k;
                    best_shift = shift;
                }
            }
            if (shift == 0)
                break;
        }
    }
    if (st == MB_OK && best_k) {
        *added = 1;
        cl->lane_period = best_p;
        cl->stairs = best_k;
        cl->stair_shift = best_shift;
        return place_trips(c, l, g, n, activations);
    }
    *cl = kept;
    memcpy(cl->trip_from, from, n * sizeof(uint32_t));
    return st;
}

/* A host run counting loop l's activations per thread into
 * w->activations (the caller frees it). */
static mb_status count_activations(ctx *c, int l, sim_watch *w, double *ecount)
{
    memset(w, 0, sizeof(*w));
    w->branch_block = -1;
    w->loop = l;
    w->activations = calloc(c->nthreads + 1, sizeof(uint64_t));
    if (!w->activations)
        return cx_nomem(c);
    return cx_simulate(c, w, ecount);
}

/* Stairs for a loop whose threads all run one reduced trip, though the
 * original's exit diverged. */
static mb_status single_trip_stairs(ctx *c, int l, const trip_weight *g, double *ecount)
{
    sim_watch w;
    int added = 0;
    mb_status st = count_activations(c, l, &w, ecount);
    if (st == MB_OK)
        st = add_stairs(c, l, g, 1, w.activations, &added);
    if (st == MB_OK && added)
        st = cx_simulate(c, NULL, ecount);
    free(w.activations);
    return st;
}

/* Host-run work (threads times candidate tables) a cycle table's search
 * may take. */
#define TABLE_WORK 5e7

/* Bits a cycle table's field needs for values up to v. */
static uint32_t field_bits(uint32_t v)
{
    uint32_t b = 1;
    while (b < 32 && (v >> b))
        b++;
    return b;
}

/* Loop l's cycle as a table of trips, field i = value of i mod cycle. */
static void set_cycle_table(mb_clone_loop *cl, const uint32_t *v)
{
    uint32_t top = 1;
    for (uint32_t i = 0; i < cl->cycle; i++)
        top = v[i] > top ? v[i] : top;
    cl->cycle_bits = field_bits(top);
    /* a power-of-two width where it fits: the field's offset is a shift */
    uint32_t pow2 = 1;
    while (pow2 < cl->cycle_bits)
        pow2 *= 2;
    if (pow2 * cl->cycle <= 32)
        cl->cycle_bits = pow2;
    cl->cycle_table = 0;
    for (uint32_t i = 0; i < cl->cycle; i++)
        cl->cycle_table |= v[i] << (i * cl->cycle_bits);
}

/* The worse of a run's divergence and mean errors (stair_errors), with the
 * two. */
static double cycle_score(const ctx *c, int l, const uint64_t *activations, double target, double want,
                          double *div, double *mean)
{
    stair_errors(c, run_exit(c, l, activations), target, want, div, mean);
    return *div > *mean ? *div : *mean;
}

/*
 * The floors of a cycled loop, max(1, floor((lo + i mod cycle) / R)), run
 * each warp to the longest reduced trip with fewer distinct values than the
 * original's warps had: tid_loop's tid % 7 + 1 at R = 2 keeps 1 to 3 (58% of
 * the exits diverging against 75%), and its partial warp of four lanes
 * holds two values. A table of trips by i mod cycle can hold more values
 * where the warps need them: starting from the floors, the host run moves
 * one field by one iteration at a time, the move that most lowers the worse
 * of the exit's divergence error and the mean trip's (in compare's
 * tolerances, as stairs are scored), until none does. Kept when both end
 * within tolerance and a quarter of it is gained; four instructions a
 * thread (the index mod cycle, a shift and a bit-field extract of an
 * immediate) where the floors took five.
 */
static mb_status cycle_table(ctx *c, int l, double *ecount)
{
    mb_clone_loop *cl = &c->m->loops[l];
    const double target = controller_divergence(c, l);
    const uint32_t cycle = cl->cycle;
    if (target < 0 || cycle < 2 || cycle > 16 || cl->controller < 0 ||
        (double)c->nthreads * 2 * cycle > TABLE_WORK)
        return MB_OK;
    sim_watch w;
    mb_status st = count_activations(c, l, &w, ecount);
    if (st != MB_OK) {
        free(w.activations);
        return st;
    }
    const double want = mb_sprof_reduced_mean_trip(&c->f->loops[l], c->m->reduction);
    const exit_run floors = run_exit(c, l, w.activations);
    double div, mean;
    stair_errors(c, floors, target, want, &div, &mean);
    const double start = div > mean ? div : mean;
    if (fabs(floors.divergence - target) <= STAIR_DIVERGENCE_MET || start < 0.25) {
        free(w.activations);
        return MB_OK;
    }
    /* the table fits one 32-bit immediate */
    const uint32_t top = (UINT32_C(1) << (32 / cycle < 8 ? 32 / cycle : 8)) - 1;
    uint32_t v[16];
    for (uint32_t i = 0; i < cycle; i++) {
        v[i] = (uint32_t)(((uint64_t)cl->trip[0] + i) / c->reduce_num);
        v[i] = v[i] ? v[i] : 1;
        if (v[i] > top) {
            free(w.activations);
            return MB_OK;
        }
    }
    double best = start;
    int moved = 1;
    for (uint32_t round = 0; moved && round < 4 * cycle && (double)c->nthreads * 2 * cycle * (round + 1) <= TABLE_WORK;
         round++) {
        moved = 0;
        uint32_t at = 0, to = 0;
        for (uint32_t i = 0; i < cycle; i++)
            for (int d = -1; d <= 1; d += 2) {
                const uint32_t was = v[i];
                if ((d < 0 && was <= 1) || (d > 0 && was >= top))
                    continue;
                v[i] = was + (uint32_t)d;
                set_cycle_table(cl, v);
                const double e = cycle_score(c, l, w.activations, target, want, &div, &mean);
                if (e < best - 1e-9) {
                    best = e;
                    at = i;
                    to = v[i];
                    moved = 1;
                }
                v[i] = was;
            }
        if (moved)
            v[at] = to;
    }
    set_cycle_table(cl, v);
    cycle_score(c, l, w.activations, target, want, &div, &mean);
    free(w.activations);
    if (div < 1 && mean < 1 && best <= start - 0.25)
        return cx_simulate(c, NULL, ecount);
    cl->cycle_bits = cl->cycle_table = 0;
    return MB_OK;
}

static mb_status calibrate_trips(ctx *c, int l, double *ecount)
{
    mb_clone_loop *cl = &c->m->loops[l];
    trip_weight g[8];
    size_t n = trip_groups(c, l, g);
    cl->ntrips = n;
    cl->span = 0;
    cl->stairs = cl->stair_shift = 0;
    const mb_sprof_loop *sl = &c->f->loops[l];
    /* n values give n - 1 boundaries; a warp that mixes trip counts holds
     * about one, so the key repeats every (n - 1) / f warps */
    if (cl->lane_period && sl->warp_activations && n > 1) {
        double f = (double)sl->warp_activations_differing / (double)sl->warp_activations;
        double want = (double)(sl->trips.n - 1) / (f > 0 ? f : 1);
        /* the controlling branch's divergence says how many boundaries a
         * warp holds: it diverges once per boundary, out of its longest trip */
        for (size_t i = 0; i < c->f->nbranches; i++)
            if (c->f->branches[i].block == cl->controller && sl->trips.n) {
                double b = c->f->branches[i].divergence_fraction *
                           (double)sl->trips.key[sl->trips.n - 1];
                if (b > 0.5)
                    want = (double)(sl->trips.n - 1) / b;
            }
        uint32_t p = 1, warps = c->nthreads / 32 + (c->nthreads % 32 != 0);
        while ((double)p * 1.4142 < want && p < (1u << 20))
            p *= 2;
        cl->lane_period = p >= warps ? 0 : p;
    }
    cl->cycle = cl->cycle_bits = cl->cycle_table = 0;
    /* the cycle divides each thread's trip by R in the clone: only where the
     * loop's scale is R itself */
    mb_trip_scale scale = mb_sprof_trip_scale(sl, c->m->reduction);
    int plain = c->reduce_num != 0 && scale.div == (double)c->reduce_num && scale.offset == 0;
    if (sl->trips.n > 4 && sl->warp_activations && plain &&
        sl->warp_activations_differing == sl->warp_activations) {
        /* many trip counts in every warp, as in loops bounded by tid % k:
         * the profiled values as lo + (thread index mod cycle), reduced per
         * thread, put every value in every warp, so each warp runs to its
         * longest trip as the original's do; the index is the one in the CTA
         * unless the trip depends on the CTA */
        double sum = 0, w = 0;
        int64_t lo = INT64_MAX;
        for (size_t j = 0; j < sl->trips.n; j++) {
            int64_t t = sl->trips.key[j] > 0 ? sl->trips.key[j] : 1;
            sum += (double)t * (double)sl->trips.count[j];
            w += (double)sl->trips.count[j];
            if (t < lo)
                lo = t;
        }
        double cycle = 2 * (sum / w - (double)lo) + 1;
        /* the division by R is a 32-bit multiply-high (div_const) */
        if (lo <= 0x7fffffff && cycle < (double)c->nthreads &&
            ((double)lo + cycle) * c->reduce_num < 4294967296.0) {
            cl->ntrips = 1;
            cl->trip[0] = (uint32_t)lo;
            cl->cycle = cycle < 1 ? 1 : (uint32_t)(cycle + 0.5);
            cl->cycle_in_cta = !sl->cta_dependent;
            cl->lane_period = 0;
            return c->reduce_num > 1 ? cycle_table(c, l, ecount) : MB_OK;
        }
    }
    size_t distinct = 0;
    for (size_t j = 0; j < sl->trips.n; j++)
        distinct += j == 0 || mb_sprof_reduced_trip(scale, sl->trips.key[j]) !=
                                  mb_sprof_reduced_trip(scale, sl->trips.key[j - 1]);
    if (distinct > 4 && cl->lane_period) {
        /* many trip counts spread inside warps: a uniform spread over the
         * lane key with the profile's minimum and mean (3 instructions
         * instead of a threshold per value) */
        double sum = 0, w = 0;
        uint32_t lo = UINT32_MAX;
        for (size_t j = 0; j < sl->trips.n; j++) {
            uint64_t r = mb_sprof_reduced_trip(scale, sl->trips.key[j]);
            sum += (double)r * (double)sl->trips.count[j];
            w += (double)sl->trips.count[j];
            if (r < lo)
                lo = (uint32_t)r;
        }
        double span = 2 * (sum / w - lo) + 1;
        cl->ntrips = 1;
        cl->trip[0] = lo;
        cl->span = span < 1 ? 1 : (uint32_t)(span + 0.5);
        cl->shift = 5;
        for (uint32_t p = cl->lane_period; p > 1; p /= 2)
            cl->shift++;
        return MB_OK;
    }
    for (size_t j = 0; j < n; j++) {
        cl->trip[j] = g[j].trip;
        cl->trip_from[j] = 0;
    }
    if (n == 1 && controller_divergence(c, l) > 0)
        return single_trip_stairs(c, l, g, ecount);
    if (n <= 1)
        return MB_OK;
    /* the first threads get the most iterations, as in strided loops
     * (for (i = tid; i < n; i += stride)) */
    for (size_t j = 0; j < n / 2; j++) {
        trip_weight t = g[j];
        g[j] = g[n - 1 - j];
        g[n - 1 - j] = t;
    }
    for (size_t j = 0; j < n; j++)
        cl->trip[j] = g[j].trip;
    if (thread_independent_trips(c, l, g, n))
        return MB_OK;
    sim_watch w;
    mb_status st = count_activations(c, l, &w, ecount);
    if (st == MB_OK)
        st = place_trips(c, l, g, n, w.activations);
    double target = controller_divergence(c, l);
    if (st == MB_OK && cl->lane_period && target >= 0) {
        /* the period from the boundary count is a guess: every warp holds
         * a small share's lanes at P = 1, one warp in P at P; keep the
         * period whose exit divergence, as the warps will run it, is
         * nearest the original's */
        uint32_t best = cl->lane_period, warps = c->nthreads / 32 + (c->nthreads % 32 != 0);
        double best_err = fabs(exit_divergence(c, l, w.activations) - target);
        for (uint32_t p = 1; p < warps && st == MB_OK; p *= 2) {
            if (p == best)
                continue;
            cl->lane_period = p;
            st = place_trips(c, l, g, n, w.activations);
            double err = fabs(exit_divergence(c, l, w.activations) - target);
            if (err < best_err - 1e-9) {
                best_err = err;
                best = p;
            }
        }
        /* the reversed key puts a small share's lanes one to a warp in some
         * of the warps: between a period of one (in every warp) and two */
        cl->lane_period = 1;
        cl->reversed = 1;
        if (st == MB_OK)
            st = place_trips(c, l, g, n, w.activations);
        if (st == MB_OK && fabs(exit_divergence(c, l, w.activations) - target) < best_err - 1e-9)
            best = 1;
        else
            cl->reversed = 0;
        cl->lane_period = best;
        if (st == MB_OK)
            st = place_trips(c, l, g, n, w.activations);
    }
    int added = 0;
    if (st == MB_OK)
        st = add_stairs(c, l, g, n, w.activations, &added);
    if (st == MB_OK && added)
        st = cx_simulate(c, NULL, ecount);
    free(w.activations);
    return st;
}

/* Offsets tried for a loop's phase at most (evenly spaced over the stride),
 * and the block executions all their host runs may take together (a large
 * launch tries fewer). */
#define PHASE_CANDIDATES 64
#define PHASE_WORK 2e7

static int affine_reads_loop(const mb_affine *a, int l)
{
    for (size_t i = 0; i < a->nterms; i++)
        if (a->coef[i] != 0 && cx_var_loop(a->var[i]) == l)
            return 1;
    return 0;
}

int cx_cond_reads_loop(const mb_cond_node *n, int l)
{
    if (n->op != MB_COND_CMP)
        return cx_cond_reads_loop(n->args[0], l) || (n->op != MB_COND_NOT && cx_cond_reads_loop(n->args[1], l));
    return affine_reads_loop(&n->a, l) || affine_reads_loop(&n->b, l);
}

/* How far the blocks of loop l run from the counts the reduction expects
 * of them (what `compare` checks), relative, both taken relative to the
 * loop's header (a called function's expectation scales with its calls):
 * the sum over the blocks, and the largest into *worst. */
static double phase_error(const ctx *c, int l, const double *ecount, double *worst)
{
    int h = c->f->loops[l].header;
    double wh = mb_sprof_func_expected_ecount(c->f, h, c->m->reduction), err = 0;
    *worst = 0;
    if (wh < 0.5 || ecount[h] <= 0)
        return 0;
    for (size_t b = 0; b < c->nb; b++) {
        if (!c->in_loop[l][b])
            continue;
        double want = mb_sprof_func_expected_ecount(c->f, (int)b, c->m->reduction) / wh;
        double e = want * wh >= 0.5 ? fabs(ecount[b] / ecount[h] / want - 1) : 0;
        err += e;
        *worst = e > *worst ? e : *worst;
    }
    return err;
}

/*
 * A loop whose comparisons read its counter sees only the sampled
 * iterations j * stride + phase (cx_sampled_iter). Where the CTAs take
 * turns at every phase that evens out, but a grid of fewer CTAs than the
 * stride (a wavefront's first launch is one CTA) sees the phases its CTAs
 * have, and a comparison that singles out iterations (lanes working on
 * the diagonal k - t, an edge tile) then runs as the original's never did.
 * The host run tries offsets of the phase and keeps the one whose block
 * counts in the loop, relative to its header's, come nearest the counts
 * the reduction expects (branches calibrated later in the loop run with
 * their thresholds as they stand, so the comparisons decide).
 */
static mb_status calibrate_phase(ctx *c, int l, double *ecount)
{
    mb_clone_loop *cl = &c->m->loops[l];
    cl->iter_phase = 0;
    if (cl->iter_stride <= 1)
        return MB_OK;
    int compared = 0;
    for (size_t b = 0; b < c->nb && !compared; b++)
        if (c->in_loop[l][b] && c->b[b].cond) {
            const mb_clone_branch *br = &c->m->branches[c->b[b].branch];
            compared = br->rule == MB_RULE_COMPARE && br->cond && br->cond->expr &&
                       cx_cond_reads_loop(br->cond->expr, l);
        }
    if (!compared)
        return MB_OK;
    uint32_t tries = cl->iter_stride < PHASE_CANDIDATES ? cl->iter_stride : PHASE_CANDIDATES;
    uint32_t best = 0;
    double best_err = 0, best_worst = 0;
    for (uint32_t k = 0; k < tries; k++) {
        cl->iter_phase = (uint32_t)((uint64_t)k * cl->iter_stride / tries);
        mb_status st = cx_simulate(c, NULL, ecount);
        if (st != MB_OK)
            return st;
        double worst, err = phase_error(c, l, ecount, &worst);
        if (k == 0 || err < best_err - 1e-12) {
            best_err = err;
            best_worst = worst;
            best = cl->iter_phase;
        }
        if (k == 0) { /* the first run says what one costs */
            double work = 0;
            for (size_t b = 0; b < c->nb; b++)
                work += ecount[b];
            if (work * tries > PHASE_WORK)
                tries = work * 2 > PHASE_WORK ? 1 : (uint32_t)(PHASE_WORK / work);
        }
    }
    cl->iter_phase = best;
    if (best_worst <= mb_compare_default_tolerance(c->m->reduction).ecount_rel)
        return cx_simulate(c, NULL, ecount);
    /* no phase brings every block of the loop within what compare allows:
     * the few iterations the CTAs sample (nw's one-CTA wavefront at max
     * runs one of its 16 steps) single out lanes as no average does; the
     * calibrated rules keep the shares instead */
    for (size_t b = 0; b < c->nb; b++)
        if (c->in_loop[l][b] && c->b[b].cond) {
            const mb_clone_branch *br = &c->m->branches[c->b[b].branch];
            if (br->rule == MB_RULE_COMPARE && br->cond && br->cond->expr && cx_cond_reads_loop(br->cond->expr, l))
                cx_key_fallback(c, (int)b);
        }
    cl->iter_phase = 0;
    return cx_simulate(c, NULL, ecount);
}

/* Reverse post-order of the blocks from the entry. */
mb_status cx_rpo(ctx *c, int *order, size_t *n)
{
    unsigned char *seen = calloc(c->nb, 1);
    int *stack = malloc((c->nb + 1) * sizeof(int)), *next = calloc(c->nb, sizeof(int));
    int *post = malloc((c->nb + 1) * sizeof(int));
    if (!seen || !stack || !next || !post) {
        free(seen);
        free(stack);
        free(next);
        free(post);
        return cx_nomem(c);
    }
    size_t sp = 0, np = 0;
    stack[sp++] = 0;
    seen[0] = 1;
    while (sp) {
        int b = stack[sp - 1];
        if (next[b] < c->b[b].nsucc) {
            int s = c->b[b].succ[next[b]++];
            if (!seen[s]) {
                seen[s] = 1;
                stack[sp++] = s;
            }
        } else {
            post[np++] = b;
            sp--;
        }
    }
    for (size_t i = 0; i < np; i++)
        order[i] = post[np - 1 - i];
    *n = np;
    free(seen);
    free(stack);
    free(next);
    free(post);
    return MB_OK;
}

mb_status cx_calibrate(ctx *c)
{
    int *order = malloc((c->nb + 1) * sizeof(int));
    double *ecount = calloc(c->nb + 1, sizeof(double));
    size_t n = 0;
    mb_status st = order && ecount ? cx_rpo(c, order, &n) : cx_nomem(c);
    for (size_t i = 0; i < n && st == MB_OK; i++) {
        int b = order[i];
        int l = c->loop_of_header[b];
        if (l >= 0)
            st = calibrate_trips(c, l, ecount);
        if (l >= 0 && st == MB_OK)
            st = calibrate_phase(c, l, ecount);
        if (st == MB_OK && c->b[b].cond) {
            mb_clone_rule r = c->m->branches[c->b[b].branch].rule;
            if (r == MB_RULE_KEY || r == MB_RULE_HASH || r == MB_RULE_BOX)
                st = calibrate_branch(c, b, ecount);
        }
    }
    free(order);
    free(ecount);
    return st;
}
