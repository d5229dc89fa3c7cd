/* The requests the clone will make at one block, as the host run lists
 * them (a warp's lanes that run the block for the k-th time together),
 * with a value per lane; and the bank-conflict degrees of shared requests
 * (the profiler's rule: the most distinct 4-byte words any of 32 banks
 * holds). The indexed and the stepped shared accesses are decided by the
 * degrees their requests will really draw (clone_index_data.c). */
#include "clone_ctx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct req_run {
    int block;
    cx_lane_value lane;
    void *arg;
    size_t max;
    cx_request *req, *warp; /* all requests; the current warp's, by run */
    size_t n, cap, nwarp, warp_cap;
    const sim_watch *w;
    mb_status st;
} req_run;

static void req_visit(ctx *c, void *arg, uint32_t t, int block, const uint32_t *runs)
{
    req_run *r = arg;
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
    r->warp[k].v[lane] = r->lane(c, r->arg, t, r->w->iter);
}

static void req_warp_end(ctx *c, void *arg, uint32_t warp)
{
    req_run *r = arg;
    (void)warp;
    for (size_t k = 0; k < r->nwarp && r->st == MB_OK; k++) {
        if (!r->warp[k].mask || r->n > r->max)
            continue;
        if (MB_GROW(r->req, r->cap, r->n + 1) != MB_OK) {
            r->st = cx_nomem(c);
            return;
        }
        r->req[r->n++] = r->warp[k];
    }
    r->nwarp = 0;
}

mb_status cx_list_requests(ctx *c, int block, cx_lane_value lane, void *arg, size_t max, cx_request **req,
                           size_t *n)
{
    req_run r = {.block = block, .lane = lane, .arg = arg, .max = max, .st = MB_OK};
    sim_watch w = cx_visiting(req_visit, NULL, req_warp_end, &r);
    r.w = &w;
    double *ecount = calloc(c->nb + 1, sizeof(double));
    mb_status st = ecount ? cx_simulate(c, &w, ecount) : cx_nomem(c);
    if (st == MB_OK)
        st = r.st;
    free(ecount);
    free(r.warp);
    if (st != MB_OK) {
        free(r.req);
        r.req = NULL;
        r.n = 0;
    }
    *req = r.req;
    *n = r.n;
    return st;
}

unsigned cx_bank_degree(const uint64_t *addr, uint32_t mask, uint32_t width)
{
    uint64_t words[32 * 4];
    unsigned nw = 0;
    for (uint32_t l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        const uint64_t a = addr[l];
        for (uint64_t wd = a >> 2; wd <= (a + (width ? width : 1) - 1) >> 2 && nw < sizeof words / sizeof words[0];
             wd++)
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

double cx_counts_tv(const double *count, size_t n, const mb_hist *h)
{
    double total = 0, want = (double)mb_hist_total(h), d = 0;
    for (size_t v = 0; v < n; v++)
        total += count[v];
    if (total == 0 || want == 0)
        return 0;
    for (size_t v = 0; v < n; v++) {
        double a = 0;
        for (size_t i = 0; i < h->n; i++)
            if (h->key[i] == (int64_t)v)
                a += (double)h->count[i] / want;
        d += fabs(count[v] / total - a);
    }
    for (size_t i = 0; i < h->n; i++)
        if (h->key[i] < 0 || h->key[i] >= (int64_t)n)
            d += (double)h->count[i] / want;
    return d / 2;
}

double cx_degree_bound(const ctx *c, const mb_hist *h, size_t n)
{
    if (mb_hist_total(h) == 0)
        return -1; /* no profiled distribution to keep */
    const double share = CX_DEGREE_TOLERANCE_SHARE * mb_compare_default_tolerance(c->m->reduction).distribution;
    const double floor = mb_hist_tv_floor(h, n) + 1e-9;
    return floor > share ? floor : share;
}
