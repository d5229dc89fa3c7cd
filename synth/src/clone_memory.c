/* Memory of the clone: arrays, address plans for every load, store and
 * atomic, and the buffer starts that keep every address inside buffers of
 * the original's sizes. */
#include "clone_ctx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int find_array(const mb_clone_model *m, const char *name)
{
    for (size_t i = 0; i < m->narrays; i++)
        if (strcmp(m->arrays[i].name, name) == 0)
            return (int)i;
    return -1;
}

static mb_status add_array(ctx *c, const char *name, const char *space, uint64_t bytes, int is_extern,
                           uint32_t align)
{
    mb_clone_model *m = c->m;
    mb_clone_array *a = &m->arrays[m->narrays++];
    a->name = mb_arena_strdup(c->A, name);
    a->space = space;
    a->bytes = bytes;
    a->is_extern = is_extern;
    a->align = align;
    a->source_offset = -1;
    return a->name ? MB_OK : cx_nomem(c);
}

/* Shared arrays named by accesses but not module variables (function-level
 * __shared__ arrays): placed by the smallest offset seen, sized up to the
 * next array or the end of the kernel's static total. The original's window
 * may begin with other kernels' arrays (the executor lays out every
 * function's), so the kernel's own arrays span shared_static minus the
 * module variables' bytes from the first one's start. */
static mb_status infer_shared_arrays(ctx *c)
{
    const mb_sprof_func *f = c->f;
    mb_clone_model *m = c->m;
    size_t first = m->narrays;
    for (size_t i = 0; i < f->nmem; i++) {
        const mb_sprof_mem *mm = &f->mem[i];
        if (strcmp(mm->space, "shared") != 0 || strcmp(mm->base_kind, "shared") != 0 ||
            !mm->base_name[0] || find_array(m, mm->base_name) >= 0)
            continue;
        mb_status st = add_array(c, mm->base_name, "shared", 0, 0, 4);
        if (st != MB_OK)
            return st;
    }
    size_t n = m->narrays - first;
    if (n == 0)
        return MB_OK;
    uint64_t known = 0;
    for (size_t i = 0; i < first; i++)
        if (strcmp(m->arrays[i].space, "shared") == 0 && !m->arrays[i].is_extern)
            known += m->arrays[i].bytes;
    int64_t own = c->p->shared_static > known ? (int64_t)(c->p->shared_static - known) : 0;
    int64_t *start = calloc(n, sizeof(int64_t));
    if (!start)
        return cx_nomem(c);
    for (size_t k = 0; k < n; k++) {
        mb_clone_array *a = &m->arrays[first + k];
        start[k] = INT64_MAX;
        for (size_t i = 0; i < f->nmem; i++) {
            const mb_sprof_mem *mm = &f->mem[i];
            if (strcmp(mm->base_name, a->name) != 0 || strcmp(mm->space, "shared") != 0)
                continue;
            if (mm->affine.exact && mm->affine.constant < start[k])
                start[k] = mm->affine.constant;
            if (mm->width * mm->vector > a->align)
                a->align = mm->width * mm->vector;
        }
        if (start[k] == INT64_MAX)
            start[k] = 0;
        start[k] &= ~(int64_t)(a->align - 1);
    }
    /* order by start (stable), then size each up to the next */
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0 && start[k] < start[k - 1]; k--) {
            int64_t t = start[k];
            start[k] = start[k - 1];
            start[k - 1] = t;
            mb_clone_array a = m->arrays[first + k];
            m->arrays[first + k] = m->arrays[first + k - 1];
            m->arrays[first + k - 1] = a;
        }
    int64_t window_end = start[0] + own > (int64_t)c->p->shared_static ? start[0] + own
                                                                         : (int64_t)c->p->shared_static;
    for (size_t k = 0; k < n; k++) {
        int64_t end = k + 1 < n ? start[k + 1] : window_end;
        m->arrays[first + k].bytes = end > start[k] ? (uint64_t)(end - start[k]) : 4;
        m->arrays[first + k].source_offset = start[k];
    }
    free(start);
    return MB_OK;
}

/* Byte offset of a shared array in the CTA's shared memory, laid out like
 * the executor: static arrays in declaration order, aligned; extern after. */
static int64_t shared_offset(const ctx *c, int array)
{
    uint64_t off = 0;
    const mb_clone_model *m = c->m;
    for (size_t i = 0; i < m->narrays; i++) {
        const mb_clone_array *a = &m->arrays[i];
        if (strcmp(a->space, "shared") != 0 || a->is_extern)
            continue;
        off = (off + a->align - 1) / a->align * a->align;
        if ((int)i == array)
            return (int64_t)off;
        off += a->bytes;
    }
    return (int64_t)((off + 15) / 16 * 16);
}

static mb_status plan_arrays(ctx *c)
{
    const mb_sprof *p = c->p;
    mb_clone_model *m = c->m;
    size_t cap = p->nvars + c->f->nmem + 2;
    m->arrays = mb_arena_alloc(c->A, cap * sizeof(*m->arrays));
    if (!m->arrays)
        return cx_nomem(c);
    for (size_t i = 0; i < p->nvars; i++) {
        const mb_sprof_var *v = &p->vars[i];
        int ext = strcmp(v->space, "shared") == 0 && v->bytes == 0;
        mb_status st = add_array(c, v->name, mb_arena_strdup(c->A, v->space), v->bytes, ext, 16);
        if (st != MB_OK)
            return st;
    }
    mb_status st = infer_shared_arrays(c);
    if (st == MB_OK && p->local_per_thread > 0)
        st = add_array(c, "__clone_local", "local", p->local_per_thread, 0, 16);
    return st;
}

/* Whether a non-affine local access can take per-request quotas
 * (clone_quota.c): a load or store of one word at most, lanes on words
 * 0..31 of an array that has them, in the kernel (a called function's
 * threads are its calls). */
static int quota_fits(const ctx *c, const mb_sprof_mem *mm, const mb_clone_array *arr)
{
    return !c->weight && mm->vector == 1 && mm->width >= 1 && mm->width <= 4 && arr->bytes >= 128 &&
           (!strncmp(mm->op, "ld.", 3) || !strncmp(mm->op, "st.", 3)) && mb_hist_total(&mm->sectors) > 0;
}

/* The 32-word rows of a shared access's array (at most 32) when its
 * requests can take per-request bank-conflict degrees (clone_quota.c): a
 * word-wide load, store or atomic in the kernel whose profiled degrees are
 * not one constant power of two (which the mean pattern reproduces exactly
 * for less), in an array of two rows at least; 0 otherwise. */
static uint32_t bank_quota_rows(const ctx *c, const mb_sprof_mem *mm, const mb_clone_array *arr)
{
    const mb_hist *h = &mm->bank_conflicts;
    uint64_t bytes = arr->bytes ? arr->bytes : c->p->dynamic_shared;
    if (c->weight || mm->vector != 1 || mm->width != 4 || mb_hist_total(h) == 0 || h->n == 0 ||
        (h->n == 1 && (h->key[0] & (h->key[0] - 1)) == 0))
        return 0;
    if (strncmp(mm->op, "ld.", 3) && strncmp(mm->op, "st.", 3) && strncmp(mm->op, "atom.", 5))
        return 0;
    uint64_t rows = bytes / 128;
    return rows < 2 ? 0 : rows > 32 ? 32 : (uint32_t)rows;
}

static int hist_equal(const mb_hist *a, const mb_hist *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->key[i] != b->key[i] || a->count[i] != b->count[i])
            return 0;
    return 1;
}

/* The earlier access of the same block with the same distributions: the
 * original's load and store of one element (a read-modify-write) share an
 * address, and so do the clone's. -1 when none. */
static int quota_share(const ctx *c, size_t i)
{
    const mb_sprof_mem *mm = &c->f->mem[i];
    for (size_t k = 0; k < i; k++) {
        const mb_sprof_mem *o = &c->f->mem[k];
        if (c->plans[k].kind != PLAN_QUOTA || c->plans[k].qshare >= 0 || o->width != mm->width ||
            c->plans[k].qbank != c->plans[i].qbank || c->plans[k].array != c->plans[i].array)
            continue;
        int same_block = 0;
        for (size_t b = 0; b < c->f->nblocks && !same_block; b++) {
            const mb_sprof_block *B = &c->f->blocks[b];
            same_block = o->insn >= B->first_insn && o->insn < B->first_insn + B->nchain &&
                         mm->insn >= B->first_insn && mm->insn < B->first_insn + B->nchain;
        }
        if (same_block && o->requests == mm->requests && hist_equal(&o->sectors, &mm->sectors) &&
            hist_equal(&o->lines, &mm->lines) && hist_equal(&o->bank_conflicts, &mm->bank_conflicts))
            return (int)k;
    }
    return -1;
}

/* An integer type of 16, 32 or 64 bits ("u16", "s32", "b64"): its bits,
 * 0 for anything else; whether it is signed in *is_signed (when not NULL). */
static unsigned int_type_bits(const char *t, size_t len, int *is_signed)
{
    if (len != 3 || (t[0] != 'u' && t[0] != 's' && t[0] != 'b'))
        return 0;
    if (is_signed)
        *is_signed = t[0] == 's';
    return !strncmp(t + 1, "16", 2) ? 16 : !strncmp(t + 1, "32", 2) ? 32 : !strncmp(t + 1, "64", 2) ? 64 : 0;
}

static int class_of_bits(unsigned bits)
{
    return bits == 16 ? MB_REG_B16 : bits == 32 ? MB_REG_B32 : MB_REG_B64;
}

int cx_index_step(const char *op, index_step *st)
{
    const char *t = NULL, *last = strrchr(op, '.');
    int sgn = 0;
    memset(st, 0, sizeof *st);
    if (!last)
        return 0;
    if (!strncmp(op, "cvt.", 4)) {
        const char *d = op + 4, *dot = strchr(d, '.');
        if (!dot || dot != last || !(st->dst_bits = int_type_bits(d, (size_t)(dot - d), NULL)) ||
            !(st->src_bits = int_type_bits(last + 1, strlen(last + 1), &sgn)))
            return 0;
        st->is_cvt = 1;
    } else if (!strncmp(op, "mul.wide.", 9)) {
        t = op + 9;
        if (t != last + 1 || !(st->src_bits = int_type_bits(t, strlen(t), &sgn)) || st->src_bits == 64)
            return 0;
        st->dst_bits = 2 * st->src_bits;
    } else if (!strncmp(op, "mul.lo.", 7) || !strncmp(op, "shl.", 4) || !strncmp(op, "and.", 4)) {
        t = op[0] == 'm' ? op + 7 : op + 4;
        if (t != last + 1 || !(st->src_bits = int_type_bits(t, strlen(t), &sgn)))
            return 0;
        st->dst_bits = st->src_bits;
        st->is_and = op[0] == 'a';
        st->is_shl = op[0] == 's';
    } else {
        return 0;
    }
    st->src_signed = sgn;
    st->src_class = class_of_bits(st->src_bits);
    st->dst_class = class_of_bits(st->dst_bits);
    return 1;
}

/* The largest value an index chain makes from loads of `width` bytes (any
 * value the type holds: the clone's input is uniform bytes); UINT64_MAX
 * when a step could make it negative or the bound passes 2^40. */
static uint64_t index_bound(const mb_sprof_index *ix, uint32_t width)
{
    const uint64_t cap = (uint64_t)1 << 40;
    uint64_t v = width >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * width)) - 1;
    for (size_t k = 0; k < ix->nops; k++) {
        index_step st;
        if (!cx_index_step(ix->ops[k].op, &st) || (!st.is_cvt && !ix->ops[k].has_imm))
            return UINT64_MAX;
        uint64_t src_max = st.src_bits == 64 ? UINT64_MAX : ((uint64_t)1 << st.src_bits) - 1;
        if (v > src_max)
            v = src_max; /* the register holds the low bits */
        if (st.src_signed && st.src_bits < 64 && v >> (st.src_bits - 1))
            return UINT64_MAX; /* sign extension of a negative value */
        uint64_t imm = (uint64_t)ix->ops[k].imm;
        if (st.is_and)
            v = v < imm ? v : imm;
        else if (st.is_shl)
            v = imm >= 40 || v >= cap >> imm ? UINT64_MAX : v << imm;
        else if (!st.is_cvt)
            v = imm && v > cap / imm ? UINT64_MAX : v * imm;
        if (v == UINT64_MAX)
            return v;
        uint64_t dst_max = st.dst_bits == 64 ? UINT64_MAX : ((uint64_t)1 << st.dst_bits) - 1;
        if (v > dst_max)
            v = dst_max; /* wraps: a bound still */
    }
    return v > cap ? UINT64_MAX : v;
}

/* Whether memory record k of the block of record i is a load before it
 * whose buffer no store, atomic or reduction of the kernel writes (the
 * clone's values there are its input's). */
static int index_load_ok(const ctx *c, size_t i, size_t k)
{
    const mb_sprof_func *f = c->f;
    const mb_sprof_mem *L = &f->mem[k];
    const memplan *lp = &c->plans[k];
    if (k >= i || cx_mem_block(c, (int)k) != cx_mem_block(c, (int)i) || strncmp(L->op, "ld.", 3) ||
        strcmp(L->space, "global") || L->vector != 1 || lp->param < 0 || lp->param != L->base_index)
        return 0;
    const char *buffer = c->p->params[lp->param].buffer;
    for (size_t j = 0; j < f->nmem; j++) {
        const mb_sprof_mem *w = &f->mem[j];
        if (!strncmp(w->op, "ld.", 3) || !strcmp(w->space, "shared") || !strcmp(w->space, "local"))
            continue;
        if (c->plans[j].param < 0 || !strcmp(c->p->params[c->plans[j].param].buffer, buffer))
            return 0;
    }
    return 1;
}

static int same_index(const mb_sprof_index *a, const mb_sprof_index *b)
{
    if (a->load != b->load || a->nops != b->nops || a->offset != b->offset ||
        strcmp(a->variable, b->variable))
        return 0;
    for (size_t k = 0; k < a->nops; k++)
        if (strcmp(a->ops[k].op, b->ops[k].op) || a->ops[k].imm != b->ops[k].imm)
            return 0;
    return 1;
}

/* The total-variation distance between two independent samples of na and
 * nb requests from the profiled distribution h that chance alone makes, on
 * average: per value the mean absolute difference of the two shares,
 * sqrt(2/pi) times its standard deviation (normal approximation). */
static double sampling_distance(const mb_hist *h, double na, double nb)
{
    double total = (double)mb_hist_total(h), sum = 0;
    if (total <= 0 || na < 1 || nb < 1)
        return 1;
    for (size_t k = 0; k < h->n; k++) {
        double p = (double)h->count[k] / total;
        sum += sqrt(p * (1 - p) * (1 / na + 1 / nb));
    }
    return 0.5 * 0.7978845608 * sum;
}

/* Shared and local accesses with an index the clone can reproduce become
 * PLAN_INDEX: the same load's value through the same steps, inside the
 * array. Its requests then draw their conflicts or sectors from the data,
 * as the original's did; where the clone makes too few of them for that
 * draw to land within the check's tolerance of the profiled distribution
 * (chance alone would move it further, as it moves the original's own
 * between inputs, and a sample's distance spreads about its expectation:
 * half the tolerance is asked), the access keeps the quotas that replay the
 * distribution. A load that reads the original's input where the original
 * read it, in every request (no loop shortened), draws the original's own
 * values: the same distribution, not a sample of it. A shortened loop's
 * first iterations are no random sample of the original's (histogram's
 * first half of its data lies 5.1% from the whole, where a random half
 * would lie 2.3% on average): those count as a sample. */
static void plan_indexes(ctx *c)
{
    const mb_sprof_func *f = c->f;
    for (size_t i = 0; i < f->nmem; i++) {
        const mb_sprof_mem *mm = &f->mem[i];
        memplan *pl = &c->plans[i];
        const mb_sprof_index *ix = &mm->index;
        if (ix->load < 0 || pl->array < 0 || (strcmp(mm->space, "shared") && strcmp(mm->space, "local")))
            continue;
        const mb_clone_array *arr = &c->m->arrays[pl->array];
        if (!strcmp(mm->space, "shared") ? strcmp(arr->name, ix->variable) != 0
                                         : strcmp(arr->name, "__clone_local") != 0)
            continue;
        size_t k = 0;
        while (k < f->nmem && f->mem[k].insn != (uint64_t)ix->load)
            k++;
        if (k == f->nmem || !index_load_ok(c, i, k))
            continue;
        const int b = cx_mem_block(c, (int)i);
        const double na = (double)mm->requests,
                     nb = f->blocks[b].ecount
                              ? na * mb_sprof_func_expected_ecount(f, b, c->m->reduction) /
                                    (double)f->blocks[b].ecount
                              : 0;
        const mb_hist *dist = strcmp(mm->space, "shared") == 0 ? &mm->bank_conflicts : &mm->sectors;
        const int same_values = c->plans[k].kind == PLAN_AFFINE && c->m->params[c->plans[k].param].input &&
                                nb >= na;
        uint64_t most = index_bound(ix, f->mem[k].width), w = (uint64_t)mm->width * mm->vector;
        uint64_t room = cx_region_bytes(c, pl);
        if (most == UINT64_MAX || ix->offset < 0 || (uint64_t)ix->offset > room ||
            most + w > room - (uint64_t)ix->offset)
            continue;
        if (!same_values &&
            sampling_distance(dist, na, nb) > 0.5 * mb_compare_default_tolerance(c->m->reduction).distribution) {
            /* the clone's own requests decide, once known (cx_index_by_data) */
            pl->ixcand = (int)k;
            continue;
        }
        cx_make_index_plan(c, i, k);
    }
}

void cx_make_index_plan(ctx *c, size_t i, size_t k)
{
    const mb_sprof_func *f = c->f;
    const mb_sprof_mem *mm = &f->mem[i];
    memplan *pl = &c->plans[i];
    pl->kind = PLAN_INDEX;
    pl->ixload = (int)k;
    pl->ixcand = -1;
    pl->qbank = 0;
    pl->qrows = 0;
    pl->is64 = strcmp(mm->space, "local") == 0;
    pl->offset = mm->index.offset;
    pl->ixshare = -1;
    for (size_t j = 0; j < i && pl->ixshare < 0; j++)
        if (c->plans[j].kind == PLAN_INDEX && c->plans[j].ixshare < 0 &&
            cx_mem_block(c, (int)j) == cx_mem_block(c, (int)i) && c->plans[j].array == pl->array &&
            same_index(&f->mem[j].index, &mm->index))
            pl->ixshare = (int)j;
}

mb_status cx_plan_memory(ctx *c)
{
    mb_status st = plan_arrays(c);
    if (st != MB_OK)
        return st;
    const mb_sprof_func *f = c->f;
    c->plans = mb_arena_alloc(c->A, (f->nmem + 1) * sizeof(*c->plans));
    c->param_start = mb_arena_alloc(c->A, (c->p->nparams + 1) * sizeof(int64_t));
    if (!c->plans || !c->param_start)
        return cx_nomem(c);
    for (size_t i = 0; i < f->nmem; i++) {
        const mb_sprof_mem *mm = &f->mem[i];
        memplan *pl = &c->plans[i];
        pl->mem = (int)i;
        pl->array = pl->param = -1;
        pl->qwin = pl->qpos = pl->qshare = -1;
        pl->qbank = pl->qindex = 0;
        pl->qrows = 0;
        pl->swin = pl->sadd = 0;
        pl->ixload = pl->ixshare = pl->ixcand = -1;
        pl->ixaddr = NULL;
        pl->sloop = pl->stepcand = -1;
        pl->sstride = 0;
        pl->sltid = pl->saddr = NULL;
        pl->kind = mm->affine.exact ? PLAN_AFFINE : PLAN_PATTERN;
        for (size_t k = 0; k < mm->affine.nterms && pl->kind == PLAN_AFFINE; k++) {
            int dim, l = cx_var_loop(mm->affine.var[k]);
            if (l >= 0 && (size_t)l < c->nloops && pl->nloop_terms < 8) {
                pl->loop_term_loop[pl->nloop_terms] = l;
                pl->loop_term_coef[pl->nloop_terms++] = mm->affine.coef[k];
            } else if (!cx_var_dim(mm->affine.var[k], &dim)) {
                pl->kind = PLAN_PATTERN;
            }
        }
        if (strcmp(mm->space, "shared") == 0) {
            pl->array = mm->base_name[0] ? find_array(c->m, mm->base_name) : -1;
            for (size_t a = 0; pl->array < 0 && a < c->m->narrays; a++)
                if (strcmp(c->m->arrays[a].space, "shared") == 0)
                    pl->array = (int)a;
            if (pl->array < 0)
                return mb_error_set(c->err, MB_ERR_UNSUPPORTED, "", 0, 0,
                                    "%s: shared access at line %d has no shared array to use",
                                    c->p->kernel, mm->line);
            pl->is64 = 0;
            if (pl->kind == PLAN_PATTERN) {
                pl->qrows = bank_quota_rows(c, mm, &c->m->arrays[pl->array]);
                if (pl->qrows) {
                    pl->kind = PLAN_QUOTA;
                    pl->qbank = 1;
                }
            }
        } else if (strcmp(mm->space, "local") == 0) {
            pl->array = find_array(c->m, "__clone_local");
            if (pl->array < 0)
                return mb_error_set(c->err, MB_ERR_UNSUPPORTED, "", 0, 0,
                                    "%s: local access at line %d but no local memory per thread",
                                    c->p->kernel, mm->line);
            pl->is64 = 1;
            if (pl->kind == PLAN_PATTERN && quota_fits(c, mm, &c->m->arrays[pl->array]))
                pl->kind = PLAN_QUOTA;
        } else if (strcmp(mm->base_kind, "global") == 0 && find_array(c->m, mm->base_name) >= 0) {
            pl->array = find_array(c->m, mm->base_name);
            pl->is64 = 1;
        } else {
            pl->param = mm->base_index >= 0 && (size_t)mm->base_index < c->p->nparams &&
                                c->p->params[mm->base_index].is_pointer
                            ? mm->base_index
                            : -1;
            for (size_t q = 0; pl->param < 0 && q < c->p->nparams; q++)
                if (c->p->params[q].is_pointer)
                    pl->param = (int)q;
            if (pl->param < 0)
                return mb_error_set(c->err, MB_ERR_UNSUPPORTED, "", 0, 0,
                                    "%s: %s access at line %d has no pointer parameter to use",
                                    c->p->kernel, mm->space, mm->line);
            pl->is64 = 1;
            if (pl->param != mm->base_index)
                pl->kind = PLAN_PATTERN;
        }
    }
    plan_indexes(c);
    cx_step_candidates(c);
    return MB_OK;
}

/* Bytes an address may reach past its start: the region's size. */
uint64_t cx_region_bytes(const ctx *c, const memplan *pl)
{
    if (pl->param >= 0)
        return c->p->params[pl->param].buffer_bytes - c->p->params[pl->param].offset;
    const mb_clone_array *a = &c->m->arrays[pl->array];
    if (strcmp(a->space, "shared") == 0 && a->source_offset < 0)
        return c->p->shared_static + c->p->dynamic_shared;
    return a->bytes;
}

/* With the simulated address ranges known: choose each buffer's start so
 * that every affine access stays inside; what cannot becomes a pattern. */
mb_status cx_finish_memory(ctx *c)
{
    const mb_sprof_func *f = c->f;
    for (size_t q = 0; q < c->p->nparams; q++) {
        c->param_start[q] = INT64_MAX;
        for (size_t i = 0; i < f->nmem; i++) {
            memplan *pl = &c->plans[i];
            if (pl->param == (int)q && pl->kind == PLAN_AFFINE && pl->seen) {
                int64_t s = pl->lo & ~(int64_t)255;
                if (s < c->param_start[q])
                    c->param_start[q] = s;
            }
        }
    }
    for (size_t i = 0; i < f->nmem; i++) {
        memplan *pl = &c->plans[i];
        const mb_sprof_mem *mm = &f->mem[i];
        int64_t width = (int64_t)(mm->width * mm->vector);
        if (pl->kind != PLAN_AFFINE)
            continue;
        int64_t start;
        if (pl->param >= 0) {
            start = c->param_start[pl->param];
            if (start == INT64_MAX)
                start = mm->affine.constant & ~(int64_t)255;
            start += (int64_t)c->p->params[pl->param].offset;
        } else if (strcmp(c->m->arrays[pl->array].space, "shared") == 0) {
            start = c->m->arrays[pl->array].source_offset >= 0 ? c->m->arrays[pl->array].source_offset : 0;
        } else if (strcmp(c->m->arrays[pl->array].space, "local") == 0) {
            start = 0;
        } else {
            start = pl->seen ? pl->lo & ~(int64_t)255 : mm->affine.constant & ~(int64_t)255;
        }
        int64_t size = (int64_t)cx_region_bytes(c, pl);
        if (pl->seen && pl->param >= 0 && (pl->lo < start || pl->hi + width > start + size)) {
            /* the clone's threads reach other elements than the original's:
             * slide this access's window inside the buffer, keeping the
             * 128-byte alignment that decides coalescing */
            int64_t s2 = (pl->hi + width - size + 127) & ~(int64_t)127;
            if (s2 <= pl->lo)
                start = s2;
        }
        if (pl->seen && (pl->lo < start || pl->hi + width > start + size) && pl->param >= 0) {
            /* wrap the thread part inside what the loop terms leave free,
             * keeping addresses modulo 128 (coalescing) */
            int64_t loop_span = 0, neg = 0;
            for (size_t k = 0; k < pl->nloop_terms; k++) {
                int l = pl->loop_term_loop[k];
                int64_t trips = 0;
                for (size_t j = 0; j < c->m->loops[l].ntrips; j++)
                    if ((int64_t)c->m->loops[l].trip[j] > trips)
                        trips = c->m->loops[l].trip[j];
                if (c->m->loops[l].span)
                    trips = c->m->loops[l].trip[0] + c->m->loops[l].span;
                if (c->m->loops[l].cycle)
                    trips = (c->m->loops[l].trip[0] + c->m->loops[l].cycle - 1) / c->reduce_num + 1;
                for (uint32_t at = 0; c->m->loops[l].cycle_bits && at < c->m->loops[l].cycle; at++)
                    if (mb_clone_cycle_trip(&c->m->loops[l], at) > trips)
                        trips = mb_clone_cycle_trip(&c->m->loops[l], at);
                trips += c->m->loops[l].stairs;
                if (pl->loop_term_coef[k] < 0)
                    neg = 1;
                loop_span += pl->loop_term_coef[k] * trips;
            }
            int64_t m = (size - width - loop_span) / 128 * 128;
            if (!neg && m >= 128) {
                pl->kind = PLAN_WRAP;
                pl->wrap = (uint64_t)m;
                pl->wrap_add = ((mm->affine.constant % 128) + 128) % 128;
                pl->offset = 0;
                continue;
            }
        }
        if (pl->seen && (pl->lo < start || pl->hi + width > start + size)) {
            pl->kind = PLAN_PATTERN;
            continue;
        }
        /* the address is base + thread terms + loop terms + offset */
        pl->offset = mm->affine.constant - start;
        if (pl->array >= 0 && strcmp(c->m->arrays[pl->array].space, "shared") == 0 &&
            c->m->arrays[pl->array].source_offset < 0)
            pl->offset -= shared_offset(c, pl->array); /* module variables keep their layout */
    }
    mb_status st = cx_index_by_data(c);
    if (st == MB_OK)
        st = cx_steps_by_requests(c);
    /* which quota accesses share an address, once the indexed and stepped
     * ones are known (quota_share reads the earlier ones' qshare) */
    for (size_t i = 0; st == MB_OK && i < f->nmem; i++)
        if (c->plans[i].kind == PLAN_QUOTA)
            c->plans[i].qshare = quota_share(c, i);
    if (st == MB_OK)
        st = cx_plan_spreads(c);
    return st == MB_OK ? cx_plan_quotas(c) : st;
}
