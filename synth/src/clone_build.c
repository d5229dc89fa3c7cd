/* mb_clone_build: from a loaded profile to the clone model. */
#include "clone_ctx.h"

#include <stdlib.h>
#include <string.h>

/* The host simulation keeps a few words per thread. */
#define CLONE_MAX_THREADS (UINT32_C(1) << 24)

static mb_status setup_threads(ctx *c)
{
    const mb_sprof *p = c->p;
    if (p->threads == 0 || p->threads > CLONE_MAX_THREADS)
        return mb_error_set(c->err, MB_ERR_LIMIT, p->path ? p->path : "", 0, 0,
                            "%llu threads: the clone model handles 1 to %u",
                            (unsigned long long)p->threads, CLONE_MAX_THREADS);
    c->nthreads = (uint32_t)p->threads;
    /* 2-D bounds are checked on ctaid * S + tid, with S the tile size the
     * kernel's 2-D accesses use (coef(ctaid) / coef(tid)), else the CTA size */
    for (int d = 0; d < 2; d++) {
        c->box_scale[d] = p->block[d];
        const mb_sprof_func *f = mb_sprof_kernel(p);
        for (size_t i = 0; i < f->nmem; i++) {
            const mb_affine *a = &f->mem[i].affine;
            int64_t ct = 0, cc = 0;
            for (size_t k = 0; k < a->nterms; k++) {
                if (!strcmp(a->var[k], d ? "tid.y" : "tid.x"))
                    ct = a->coef[k];
                if (!strcmp(a->var[k], d ? "ctaid.y" : "ctaid.x"))
                    cc = a->coef[k];
            }
            if (a->exact && ct > 0 && cc > 0 && cc % ct == 0 && cc / ct >= p->block[d] &&
                cc / ct <= 65536) {
                c->box_scale[d] = (uint32_t)(cc / ct);
                break;
            }
        }
    }
    c->tpc = p->block[0] * p->block[1] * p->block[2];
    c->wpc = (c->tpc + 31) / 32;
    c->kf = malloc(c->nthreads * sizeof(uint32_t));
    c->gtid = malloc(c->nthreads * sizeof(uint32_t));
    c->ckey = malloc(c->nthreads * sizeof(uint32_t));
    c->gx = malloc(c->nthreads * sizeof(uint32_t));
    c->gy = malloc(c->nthreads * sizeof(uint32_t));
    for (int d = 0; d < 3; d++) {
        c->tid[d] = malloc(c->nthreads * sizeof(uint32_t));
        c->cta[d] = malloc(c->nthreads * sizeof(uint32_t));
        if (!c->tid[d] || !c->cta[d])
            return cx_nomem(c);
    }
    if (!c->kf || !c->gtid || !c->ckey || !c->gx || !c->gy)
        return cx_nomem(c);
    for (uint32_t t = 0; t < c->nthreads; t++) {
        uint32_t cta = t / c->tpc, ltid = t % c->tpc;
        c->tid[0][t] = ltid % p->block[0];
        c->tid[1][t] = ltid / p->block[0] % p->block[1];
        c->tid[2][t] = ltid / (p->block[0] * p->block[1]);
        c->cta[0][t] = cta % p->grid[0];
        c->cta[1][t] = cta / p->grid[0] % p->grid[1];
        c->cta[2][t] = cta / (p->grid[0] * p->grid[1]);
        c->kf[t] = (cta * c->wpc + ltid / 32) * 32 + ltid % 32;
        c->gtid[t] = t;
        c->gx[t] = c->cta[0][t] * c->box_scale[0] + c->tid[0][t];
        c->gy[t] = c->cta[1][t] * c->box_scale[1] + c->tid[1][t];
        c->ckey[t] = ltid * (p->grid[0] * p->grid[1] * p->grid[2]) + cta;
    }
    return MB_OK;
}

static mb_status setup_model(ctx *c, double reduction, uint64_t seed)
{
    const mb_sprof *p = c->p;
    mb_clone_model *m = c->m;
    m->kernel = mb_arena_strdup(c->A, p->kernel);
    m->source = mb_arena_strdup(c->A, p->path ? p->path : p->kernel);
    m->reduction = reduction;
    m->seed = seed;
    memcpy(m->grid, p->grid, sizeof m->grid);
    memcpy(m->block, p->block, sizeof m->block);
    m->dynamic_shared = p->dynamic_shared;
    m->original_thread_insts = p->thread_insts;
    m->nparams = p->nparams;
    m->params = mb_arena_alloc(c->A, (p->nparams + 1) * sizeof(*m->params));
    if (!m->kernel || !m->source || !m->params)
        return cx_nomem(c);
    for (size_t i = 0; i < p->nparams; i++) {
        const mb_sprof_param *q = &p->params[i];
        mb_clone_param *r = &m->params[i];
        /* the model outlives the profile: copies */
        r->name = mb_arena_strdup(c->A, q->name);
        r->type = mb_arena_strdup(c->A, q->type);
        r->bytes = q->bytes;
        r->is_pointer = q->is_pointer;
        r->buffer = q->buffer ? mb_arena_strdup(c->A, q->buffer) : NULL;
        r->buffer_bytes = q->buffer_bytes;
        r->offset = q->offset;
        r->value = q->value ? mb_arena_strdup(c->A, q->value) : NULL;
        if (!r->name || !r->type || (q->buffer && !r->buffer) || (q->value && !r->value))
            return cx_nomem(c);
    }
    mb_status st = cx_model_inputs(c);
    if (st != MB_OK)
        return st;
    c->nb = c->f->nblocks;
    c->b = mb_arena_alloc(c->A, c->nb * sizeof(*c->b));
    if (!c->b)
        return cx_nomem(c);
    for (size_t k = 0; k < c->nb; k++) {
        const mb_sprof_block *sb = &c->f->blocks[k];
        blk *b = &c->b[k];
        if (sb->nchain == 0)
            return mb_error_set(c->err, MB_ERR_INVALID, p->path ? p->path : "", 0, 0,
                                "block %zu (%s) has an empty opcode chain", k, sb->name);
        b->nslots = sb->nchain;
        b->slots = mb_arena_alloc(c->A, (sb->nchain + 1) * sizeof(*b->slots));
        if (!b->slots)
            return cx_nomem(c);
        for (size_t i = 0; i < sb->nchain; i++) {
            b->slots[i].token = sb->chain[i];
            b->slots[i].dest_class = -1;
        }
        b->slots[sb->nchain].token = "";
        b->slots[sb->nchain].role = SLOT_TERM;
        b->slots[sb->nchain].dest_class = -1;
    }
    return MB_OK;
}

static void free_ctx(ctx *c)
{
    free(c->kf);
    free(c->gtid);
    free(c->ckey);
    free(c->gx);
    free(c->gy);
    for (int d = 0; d < 3; d++) {
        free(c->tid[d]);
        free(c->cta[d]);
    }
    if (c->b)
        for (size_t k = 0; k < c->nb; k++) {
            for (size_t i = 0; c->b[k].slots && i <= c->b[k].nslots; i++)
                free(c->b[k].slots[i].ins);
            for (size_t i = 0; i < c->b[k].nseqs; i++)
                free(c->b[k].seqs[i].items);
            free(c->b[k].seqs);
        }
}

/* The model of one function (the kernel, or a called function whose
 * threads run it weight[t] times), up to its code: `calls` gets each
 * thread's calls, `ecount` its blocks' predicted counts. */
static mb_status model_function(ctx *c, const call_plan *cp, double reduction, uint64_t seed,
                                uint64_t *calls, double *ecount)
{
    mb_status st = setup_model(c, reduction, seed);
    if (st == MB_OK)
        st = cx_calls_mark(c, cp);
    if (st == MB_OK)
        st = setup_threads(c);
    if (st == MB_OK)
        st = cx_classify(c);
    if (st == MB_OK)
        st = cx_plan_memory(c);
    if (st == MB_OK)
        st = cx_calibrate(c);
    if (st == MB_OK) {
        sim_watch w;
        memset(&w, 0, sizeof(w));
        w.branch_block = w.loop = -1;
        w.ranges = 1;
        w.calls = calls;
        st = cx_simulate(c, &w, ecount);
    }
    if (st == MB_OK)
        st = cx_finish_memory(c);
    return st;
}

/* Its code and expected counts; frees the context either way. */
static mb_status finish_function(ctx *c, mb_status st, const double *ecount)
{
    mb_clone_model *m = c->m;
    if (st == MB_OK)
        st = cx_assemble(c);
    if (st == MB_OK) {
        m->expected_ecount = mb_arena_alloc(c->A, (c->nb + 1) * sizeof(double));
        if (!m->expected_ecount)
            st = cx_nomem(c);
        else
            for (size_t k = 0; k < c->nb; k++) {
                m->expected_ecount[k] = ecount[k];
                m->expected_thread_insts += (uint64_t)ecount[k] * m->blocks[k].ninsns;
            }
    }
    free_ctx(c);
    return st;
}

static void init_ctx(ctx *c, const mb_sprof *p, const mb_sprof_func *f, mb_clone_model *m,
                     mb_arena *A, uint64_t seed, double reduction, mb_error *err)
{
    memset(c, 0, sizeof(*c));
    c->p = p;
    c->f = f;
    c->m = m;
    c->err = err;
    c->A = A;
    c->rng = seed ^ UINT64_C(0x6A09E667F3BCC909);
    c->dep_block = -1;
    c->reduce_num = reduction == 0 ? 0 : (uint32_t)reduction;
    c->arg_trip_index = c->arg_trip_loop = -1;
}

/* The called function's model: its threads are the kernel's, each running
 * it as often as the kernel's model calls it; per-thread values (keys, trip
 * counts) are computed inside it from %tid and %ctaid, as in the kernel. */
static mb_status build_callee(const mb_sprof *p, const call_plan *cp, mb_clone_model *m,
                              const uint64_t *calls, double reduction, uint64_t seed, ctx *kernel,
                              mb_error *err)
{
    mb_sprof view = *p;
    char who[400];
    snprintf(who, sizeof who, "%s, function %s", p->kernel, cp->callee->name);
    /* messages name the kernel and the function; the function sees only its
     * arguments, and the kernel's arrays are the kernel's */
    view.kernel = who;
    view.nparams = cp->nargs;
    view.params = cp->func_params;
    view.nvars = 0;
    view.ninputs = 0; /* the kernel's model holds the input */
    view.shared_static = view.dynamic_shared = view.local_per_thread = 0;
    m->nfuncs = 1;
    m->funcs = mb_arena_alloc(m->arena, sizeof(*m->funcs));
    uint32_t *weight = malloc((p->threads + 1) * sizeof(uint32_t));
    if (!m->funcs || !weight) {
        free(weight);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    memset(m->funcs, 0, sizeof(*m->funcs));
    for (uint64_t t = 0; t < p->threads; t++)
        weight[t] = calls[t] > UINT32_MAX ? UINT32_MAX : (uint32_t)calls[t];
    mb_clone_model *fm = &m->funcs[0];
    ctx c;
    /* a stream of its own: the kernel's choices stay what they were */
    init_ctx(&c, &view, &cp->func, fm, m->arena, seed ^ UINT64_C(0xBB67AE8584CAA73B), reduction, err);
    c.weight = weight;
    double *ecount = calloc(cp->func.nblocks + 1, sizeof(double));
    mb_status st = ecount ? model_function(&c, cp, reduction, seed, NULL, ecount) : cx_nomem(&c);
    if (st == MB_OK)
        cx_calls_trip_arg(&c, cp, kernel);
    st = finish_function(&c, st, ecount);
    free(ecount);
    free(weight);
    if (st != MB_OK)
        return st;
    fm->kernel = mb_arena_strdup(m->arena, cp->callee->name);
    fm->ret_type = cp->ret_type;
    if (!fm->kernel)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    m->expected_thread_insts += fm->expected_thread_insts;
    m->synthetic_insns += fm->synthetic_insns;
    m->chain_insns += fm->chain_insns;
    m->dropped_fillers += fm->dropped_fillers;
    return MB_OK;
}

mb_status mb_clone_build(const mb_sprof *p, double reduction, uint64_t seed, mb_clone_model **out,
                         mb_error *err)
{
    *out = NULL;
    if (reduction != 0 && !(reduction >= 1 && reduction <= 1e9))
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "reduction factor %g: must be at least 1 (or max)", reduction);
    mb_clone_model *m = calloc(1, sizeof(*m));
    if (!m || !(m->arena = mb_arena_new())) {
        free(m);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    call_plan cp;
    mb_status st = cx_calls_plan(p, m->arena, &cp, err);
    uint64_t *calls = NULL;
    /* (a thread count the model refuses is refused by the kernel's build) */
    if (st == MB_OK && cp.callee && p->threads <= CLONE_MAX_THREADS &&
        !(calls = calloc(p->threads + 1, sizeof(uint64_t))))
        st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    if (st == MB_OK) {
        /* the kernel's code comes last: it may compute what the callee needs */
        ctx c;
        init_ctx(&c, p, &cp.kernel, m, m->arena, seed, reduction, err);
        double *ecount = calloc(cp.kernel.nblocks + 1, sizeof(double));
        st = ecount ? model_function(&c, &cp, reduction, seed, calls, ecount) : cx_nomem(&c);
        if (st == MB_OK && cp.callee)
            st = build_callee(p, &cp, m, calls, reduction, seed, &c, err);
        st = finish_function(&c, st, ecount);
        free(ecount);
    }
    free(calls);
    if (st != MB_OK) {
        mb_clone_free(m);
        return st;
    }
    *out = m;
    return MB_OK;
}

void mb_clone_free(mb_clone_model *m)
{
    if (!m)
        return;
    mb_arena_free(m->arena);
    free(m);
}
