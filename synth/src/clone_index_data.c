/* Indexed shared accesses decided by the clone's own requests. A reduced
 * clone makes fewer requests than the original, and a table indexed by
 * loaded data (histogram's bins[data[i]]) draws its bank conflicts from
 * the values those requests load: plan_indexes keeps the quotas that
 * replay the profiled distribution where a random sample that small would
 * be expected to stray. But the values are not random: they are the
 * original's input, which the clone reads, at addresses the host run
 * knows. So the conflicts the clone will see are computed here, request
 * by request, and where they keep the profiled distribution the access
 * takes the index (no per-thread set-up, the original's own steps); the
 * load may start further into its buffer, by whole 128-byte lines (its
 * coalescing unchanged), where that window's data keep the distribution
 * better than the first one. */
#define _POSIX_C_SOURCE 200809L
#include "clone_ctx.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs read whole up to this size; a larger one keeps the quotas. */
#define INDEX_INPUT_MAX ((uint64_t)256 << 20)
/* Windows tried for the load at most, and lane evaluations in all. */
#define INDEX_SHIFTS 4096
#define INDEX_WORK 5e7
/* Requests listed at most (264 bytes each); a launch making more keeps the quotas. */
#define INDEX_REQUESTS_MAX ((size_t)1 << 18)
/* The share of compare's distribution tolerance a computed distribution
 * may use (the rest is margin for what the host run does not see), unless
 * no distribution of as many requests comes nearer. */
#define INDEX_TOLERANCE_SHARE 0.5

typedef struct ix_request {
    uint32_t mask;
    int64_t off[32]; /* lane's byte offset into the load's buffer */
} ix_request;

typedef struct ix_run {
    int block, load, param;
    ix_request *req, *warp; /* all requests; the current warp's, by run */
    size_t n, cap, nwarp, warp_cap;
    const sim_watch *w;
    mb_status st;
} ix_run;

static void ix_visit(ctx *c, void *arg, uint32_t t, int block, const uint32_t *runs)
{
    ix_run *r = arg;
    if (r->st != MB_OK || block != r->block)
        return;
    size_t k = runs[block];
    if (k >= r->nwarp) {
        if (MB_GROW(r->warp, r->warp_cap, k + 1) != MB_OK) {
            r->st = cx_nomem(c);
            return;
        }
        memset(r->warp + r->nwarp, 0, (k + 1 - r->nwarp) * sizeof(*r->warp));
        r->nwarp = k + 1;
    }
    const uint32_t lane = c->kf[t] & 31;
    r->warp[k].mask |= UINT32_C(1) << lane;
    r->warp[k].off[lane] = cx_affine_eval(c, &c->f->mem[r->load].affine, t, r->w->iter, 0) - c->param_start[r->param];
}

static void ix_warp_end(ctx *c, void *arg, uint32_t warp)
{
    ix_run *r = arg;
    (void)warp;
    for (size_t k = 0; k < r->nwarp && r->st == MB_OK; k++) {
        if (!r->warp[k].mask || r->n > INDEX_REQUESTS_MAX)
            continue;
        if (MB_GROW(r->req, r->cap, r->n + 1) != MB_OK) {
            r->st = cx_nomem(c);
            return;
        }
        r->req[r->n++] = r->warp[k];
    }
    r->nwarp = 0;
}

/* The loaded value (the load's type, little-endian) through the index's
 * steps, as the clone's registers compute it. */
static uint64_t index_value(const unsigned char *p, const mb_sprof_mem *load, const mb_sprof_index *ix)
{
    uint64_t v = 0;
    for (uint32_t b = 0; b < load->width && b < 8; b++)
        v |= (uint64_t)p[b] << (8 * b);
    const char *ty = strrchr(load->op, '.');
    unsigned bits = load->width >= 8 ? 64 : 8 * load->width;
    if (ty && ty[1] == 's' && bits < 64 && (v >> (bits - 1)) & 1)
        v |= ~(uint64_t)0 << bits;
    for (size_t k = 0; k < ix->nops; k++) {
        index_step st;
        cx_index_step(ix->ops[k].op, &st); /* checked by plan_indexes (index_bound) */
        uint64_t smask = st.src_bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << st.src_bits) - 1;
        uint64_t x = v & smask;
        if (st.src_signed && st.src_bits < 64 && (x >> (st.src_bits - 1)) & 1)
            x |= ~smask;
        uint64_t imm = (uint64_t)ix->ops[k].imm;
        v = st.is_cvt ? x : st.is_and ? x & imm : st.is_shl ? (imm >= 64 ? 0 : x << imm) : x * imm;
        if (st.dst_bits < 64)
            v &= ((uint64_t)1 << st.dst_bits) - 1;
    }
    return v;
}

/* The bank-conflict degree of one request on 32 banks of 4 bytes: the most
 * distinct words any bank holds (the profiler's rule). */
static unsigned request_degree(const ix_request *q, const unsigned char *data, int64_t shift,
                               const mb_sprof_mem *load, const mb_sprof_mem *acc)
{
    uint64_t words[32 * 4];
    unsigned nw = 0;
    const uint32_t aw = acc->width * acc->vector;
    for (uint32_t l = 0; l < 32; l++) {
        if (!(q->mask >> l & 1))
            continue;
        uint64_t a = index_value(data + q->off[l] + shift, load, &acc->index) + (uint64_t)acc->index.offset;
        for (uint64_t wd = a >> 2; wd <= (a + aw - 1) >> 2 && nw < sizeof words / sizeof words[0]; wd++)
            words[nw++] = wd;
    }
    unsigned best = 0, per_bank[32] = {0};
    for (unsigned i = 0; i < nw; i++) {
        int seen = 0;
        for (unsigned j = 0; j < i && !seen; j++)
            seen = words[j] == words[i];
        if (!seen && ++per_bank[words[i] & 31] > best)
            best = per_bank[words[i] & 31];
    }
    return best;
}

/* Total variation distance between a degree count and a profiled histogram. */
static double degree_tv(const uint64_t *count, size_t n, const mb_hist *h)
{
    double tb = 0, ta = (double)mb_hist_total(h), d = 0;
    for (size_t k = 0; k < n; k++)
        tb += (double)count[k];
    if (ta == 0 || tb == 0)
        return 1;
    for (size_t k = 0; k < n; k++) {
        double a = 0;
        for (size_t i = 0; i < h->n; i++)
            if (h->key[i] == (int64_t)k)
                a = (double)h->count[i] / ta;
        d += fabs(a - (double)count[k] / tb);
    }
    for (size_t i = 0; i < h->n; i++)
        if (h->key[i] < 0 || h->key[i] >= (int64_t)n)
            d += (double)h->count[i] / ta;
    return d / 2;
}

static double access_tv(const ix_run *r, const unsigned char *data, int64_t shift, const mb_sprof_mem *load,
                        const mb_sprof_mem *acc)
{
    uint64_t count[33 * 4] = {0};
    const size_t n = sizeof count / sizeof count[0];
    for (size_t q = 0; q < r->n; q++) {
        unsigned d = request_degree(&r->req[q], data, shift, load, acc);
        count[d < n ? d : n - 1]++;
    }
    return degree_tv(count, n, &acc->bank_conflicts);
}

/* The distance an access's n computed requests may keep from its profile. */
static double accept_below(double share, const mb_sprof_mem *acc, size_t n)
{
    double floor = mb_hist_tv_floor(&acc->bank_conflicts, n) + 1e-9;
    return floor > share ? floor : share;
}

static mb_status read_input(ctx *c, const mb_clone_input *in, unsigned char **data)
{
    *data = NULL;
    if (in->bytes == 0 || in->bytes > INDEX_INPUT_MAX)
        return MB_OK;
    FILE *fp = fopen(in->source, "rb");
    if (!fp)
        return mb_error_set(c->err, MB_ERR_IO, in->source, 0, 0, "cannot open the profile's input: %s",
                            strerror(errno));
    unsigned char *buf = malloc(in->bytes);
    size_t got = buf ? fread(buf, 1, in->bytes, fp) : 0;
    fclose(fp);
    if (!buf)
        return cx_nomem(c);
    if (got != in->bytes) {
        free(buf);
        return mb_error_set(c->err, MB_ERR_IO, in->source, 0, 0, "cannot read the profile's input");
    }
    *data = buf;
    return MB_OK;
}

/* Load record k reads `shift` bytes further on (the README says so). */
static mb_status add_window(ctx *c, size_t k, int64_t shift, double tv)
{
    mb_clone_model *m = c->m;
    mb_clone_window *w = mb_arena_alloc(c->A, (m->nwindows + 1) * sizeof(*w));
    if (!w)
        return cx_nomem(c);
    if (m->nwindows)
        memcpy(w, m->windows, m->nwindows * sizeof(*w));
    c->plans[k].offset += shift;
    w[m->nwindows] = (mb_clone_window){c->f->mem[k].line, c->p->params[c->plans[k].param].buffer,
                                       (uint64_t)shift, tv};
    m->windows = w;
    m->nwindows++;
    return MB_OK;
}

/* A shared access that could take its index from load record k. */
static int candidate(const ctx *c, size_t i, size_t k)
{
    return c->plans[i].ixcand == (int)k && !strcmp(c->f->mem[i].space, "shared");
}

/* The candidates indexed by load k, decided together (they share the load's window). */
static mb_status decide_load(ctx *c, size_t k)
{
    const mb_sprof_func *f = c->f;
    memplan *lp = &c->plans[k];
    if (lp->kind != PLAN_AFFINE || lp->param < 0 || !c->m->params[lp->param].input)
        return MB_OK;
    for (size_t i = 0; i < f->nmem; i++)
        if (c->plans[i].kind == PLAN_INDEX && c->plans[i].ixload == (int)k)
            return MB_OK; /* its window stays where those were accepted */
    const mb_clone_input *in = c->m->params[lp->param].input;
    ix_run r = {.block = cx_mem_block(c, (int)k), .load = (int)k, .param = lp->param, .st = MB_OK};
    sim_watch w = cx_visiting(ix_visit, NULL, ix_warp_end, &r);
    r.w = &w;
    double *ecount = calloc(c->nb + 1, sizeof(double));
    unsigned char *data = NULL;
    mb_status st = ecount ? cx_simulate(c, &w, ecount) : cx_nomem(c);
    if (st == MB_OK)
        st = r.st;
    if (st == MB_OK && r.n > 0 && r.n <= INDEX_REQUESTS_MAX)
        st = read_input(c, in, &data);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t q = 0; q < r.n; q++)
        for (uint32_t l = 0; l < 32; l++)
            if (r.req[q].mask >> l & 1) {
                lo = r.req[q].off[l] < lo ? r.req[q].off[l] : lo;
                hi = r.req[q].off[l] > hi ? r.req[q].off[l] : hi;
            }
    const int64_t width = f->mem[k].width;
    if (st != MB_OK || !data || r.n == 0 || r.n > INDEX_REQUESTS_MAX || lo < 0 || hi + width > (int64_t)in->bytes)
        goto out;
    /* windows: whole lines further, while the load stays in its buffer */
    const int64_t lines = ((int64_t)in->bytes - width - hi) / 128 + 1;
    double per_shift = (double)r.n * 32;
    int64_t tries = lines < INDEX_SHIFTS ? lines : INDEX_SHIFTS;
    if (per_shift * (double)tries > INDEX_WORK)
        tries = per_shift > INDEX_WORK ? 1 : (int64_t)(INDEX_WORK / per_shift);
    const double share = INDEX_TOLERANCE_SHARE * mb_compare_default_tolerance(c->m->reduction).distribution;
    int64_t best_shift = 0;
    size_t best_in = 0, ncand = 0;
    double best_sum = 0;
    for (size_t i = 0; i < f->nmem; i++)
        ncand += candidate(c, i, k);
    for (int64_t j = 0; j < tries && (j == 0 || best_in < ncand || best_shift); j++) {
        const int64_t shift = 128 * (j * (lines - 1) / (tries > 1 ? tries - 1 : 1));
        size_t within = 0;
        double sum = 0;
        for (size_t i = 0; i < f->nmem; i++)
            if (candidate(c, i, k)) {
                double tv = access_tv(&r, data, shift, &f->mem[k], &f->mem[i]);
                within += tv <= accept_below(share, &f->mem[i], r.n);
                sum += tv;
            }
        /* the first window unless another keeps more accesses' distributions */
        if (j == 0 || within > best_in || (within == best_in && best_shift && sum < best_sum - 1e-12)) {
            best_shift = shift;
            best_in = within;
            best_sum = sum;
        }
    }
    double worst = 0;
    for (size_t i = 0; i < f->nmem && best_in; i++) {
        if (!candidate(c, i, k))
            continue;
        double tv = access_tv(&r, data, best_shift, &f->mem[k], &f->mem[i]);
        if (tv <= accept_below(share, &f->mem[i], r.n)) {
            cx_make_index_plan(c, i, k);
            worst = tv > worst ? tv : worst;
        }
    }
    if (best_in && best_shift)
        st = add_window(c, k, best_shift, worst);
out:
    free(data);
    free(ecount);
    free(r.req);
    free(r.warp);
    return st;
}

mb_status cx_index_by_data(ctx *c)
{
    mb_status st = MB_OK;
    for (size_t k = 0; k < c->f->nmem && st == MB_OK; k++) {
        int any = 0;
        for (size_t i = 0; i < c->f->nmem && !any; i++)
            any = candidate(c, i, k);
        if (any && !c->weight)
            st = decide_load(c, k);
    }
    for (size_t i = 0; i < c->f->nmem; i++)
        c->plans[i].ixcand = -1;
    return st;
}
