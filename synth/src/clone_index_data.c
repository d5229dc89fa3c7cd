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
#include "clone_ctx.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Inputs read whole up to this size; a larger one keeps the quotas. */
#define INDEX_INPUT_MAX ((uint64_t)256 << 20)
/* Windows tried for the load at most, and lane evaluations in all. */
#define INDEX_SHIFTS 4096
#define INDEX_WORK 5e7
/* Requests listed at most (264 bytes each); a launch making more keeps the quotas. */
#define INDEX_REQUESTS_MAX ((size_t)1 << 18)

typedef struct ix_load {
    const mb_sprof_mem *load;
    int64_t start; /* the buffer's start as the clone's addresses see it */
} ix_load;

/* A lane's byte offset into the load's buffer. */
static int64_t load_offset(ctx *c, void *arg, uint32_t t, const uint32_t *iter)
{
    const ix_load *L = arg;
    return cx_affine_eval(c, &L->load->affine, t, iter, 0) - L->start;
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

static double access_tv(const cx_request *req, size_t n, const unsigned char *data, int64_t shift,
                        const mb_sprof_mem *load, const mb_sprof_mem *acc)
{
    double count[33 * 4] = {0};
    uint64_t addr[32];
    const size_t nd = sizeof count / sizeof count[0];
    for (size_t q = 0; q < n; q++) {
        for (uint32_t l = 0; l < 32; l++)
            if (req[q].mask >> l & 1)
                addr[l] = index_value(data + req[q].v[l] + shift, load, &acc->index) + (uint64_t)acc->index.offset;
        unsigned d = cx_bank_degree(addr, req[q].mask, acc->width * acc->vector);
        count[d < nd ? d : nd - 1]++;
    }
    return cx_counts_tv(count, nd, &acc->bank_conflicts);
}

static mb_status read_input(ctx *c, const mb_clone_input *in, unsigned char **data)
{
    *data = NULL;
    if (in->bytes == 0 || in->bytes > INDEX_INPUT_MAX)
        return MB_OK;
    char *text = NULL;
    size_t len = 0;
    mb_status st = mb_read_file(in->source, INDEX_INPUT_MAX, &text, &len, c->err);
    if (st == MB_OK && len != in->bytes) {
        free(text);
        return mb_error_set(c->err, MB_ERR_INVALID, in->source, 0, 0,
                            "%zu bytes, but the profile lists %" PRIu64 " (changed since the model was built)", len,
                            in->bytes);
    }
    *data = (unsigned char *)text;
    return st;
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
    ix_load L = {&f->mem[k], c->param_start[lp->param]};
    cx_request *req = NULL;
    size_t n = 0;
    unsigned char *data = NULL;
    mb_status st = cx_list_requests(c, cx_mem_block(c, (int)k), load_offset, &L, INDEX_REQUESTS_MAX, &req, &n);
    if (st == MB_OK && n > 0 && n <= INDEX_REQUESTS_MAX)
        st = read_input(c, in, &data);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t q = 0; q < n; q++)
        for (uint32_t l = 0; l < 32; l++)
            if (req[q].mask >> l & 1) {
                lo = req[q].v[l] < lo ? req[q].v[l] : lo;
                hi = req[q].v[l] > hi ? req[q].v[l] : hi;
            }
    const int64_t width = f->mem[k].width;
    if (st != MB_OK || !data || n == 0 || n > INDEX_REQUESTS_MAX || lo < 0 || hi + width > (int64_t)in->bytes)
        goto out;
    /* windows: whole lines further, while the load stays in its buffer */
    const int64_t lines = ((int64_t)in->bytes - width - hi) / 128 + 1;
    double per_shift = (double)n * 32;
    int64_t tries = lines < INDEX_SHIFTS ? lines : INDEX_SHIFTS;
    if (per_shift * (double)tries > INDEX_WORK)
        tries = per_shift > INDEX_WORK ? 1 : (int64_t)(INDEX_WORK / per_shift);
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
                double tv = access_tv(req, n, data, shift, &f->mem[k], &f->mem[i]);
                within += tv <= cx_degree_bound(c, &f->mem[i].bank_conflicts, n);
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
        double tv = access_tv(req, n, data, best_shift, &f->mem[k], &f->mem[i]);
        if (tv <= cx_degree_bound(c, &f->mem[i].bank_conflicts, n)) {
            cx_make_index_plan(c, i, k);
            worst = tv > worst ? tv : worst;
        }
    }
    if (best_in && best_shift)
        st = add_window(c, k, best_shift, worst);
out:
    free(data);
    free(req);
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
