/* Control flow of the clone: successors, loops, and the section 4.2.2 case
 * and decision rule of every conditional branch. */
#include "clone_ctx.h"

#include <stdlib.h>
#include <string.h>

static const char *const case_names[] = {
#define MB_CLONE_CASE(id, name, paper) name,
#include <minibench/synth_cases.def>
#undef MB_CLONE_CASE
};
static const char *const case_papers[] = {
#define MB_CLONE_CASE(id, name, paper) paper,
#include <minibench/synth_cases.def>
#undef MB_CLONE_CASE
};

const char *mb_clone_case_name(mb_clone_case k)
{
    return k < MB_CLONE_CASE_COUNT ? case_names[k] : "?";
}

const char *mb_clone_case_paper(mb_clone_case k)
{
    return k < MB_CLONE_CASE_COUNT ? case_papers[k] : "?";
}

/* ------------------------------------------- the original's comparisons */

int cx_cmp_bits(const char *type)
{
    static const char *const narrow[] = {"s16", "u16", "b16", "s32", "u32", "b32"};
    static const char *const wide[] = {"s64", "u64", "b64"};
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
        if (!strcmp(type, narrow[i]))
            return 32;
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++)
        if (!strcmp(type, wide[i]))
            return 64;
    return 0;
}

const char *cx_cmp_type(const char *type)
{
    /* 16-bit operands arrive extended: the 32-bit comparison of the same
     * signedness orders them alike */
    return !strcmp(type, "s16") ? "s32" : !strcmp(type, "u16") || !strcmp(type, "b16") ? "u32" : type;
}

/* Index of an integer comparison in "eq ne lt le gt ge lo ls hi hs", -1 otherwise. */
static int cmp_index(const char *cmp)
{
    static const char *const names[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
    for (int i = 0; i < 10; i++)
        if (!strcmp(cmp, names[i]))
            return i;
    return -1;
}

const char *cx_cmp_swapped(const char *cmp)
{
    static const char *const swapped[] = {"eq", "ne", "gt", "ge", "lt", "le", "hi", "hs", "lo", "ls"};
    int i = cmp_index(cmp);
    return i < 0 ? cmp : swapped[i];
}

static int affine_usable(const ctx *c, int block, const mb_affine *a, int bits)
{
    if (!a->exact)
        return 0;
    for (size_t i = 0; i < a->nterms; i++) {
        int dim, l = cx_var_loop(a->var[i]);
        if (bits == 64 && (a->coef[i] < INT32_MIN || a->coef[i] > INT32_MAX))
            return 0; /* the clone multiplies 32-bit indices into 64 bits (mul.wide) */
        if (l >= 0) {
            /* the counter of an enclosing loop, read before its latch advances it */
            if ((size_t)l >= c->nloops || !c->in_loop[l][block] || c->latch[l][block])
                return 0;
        } else if (!cx_var_dim(a->var[i], &dim)) {
            return 0;
        }
    }
    return 1;
}

/* Whether the clone can make the comparisons of `n` in `block` as the original did. */
static int cond_usable(const ctx *c, int block, const mb_cond_node *n)
{
    if (n->op != MB_COND_CMP)
        return n->args[0] && cond_usable(c, block, n->args[0]) &&
               (n->op == MB_COND_NOT || (n->args[1] && cond_usable(c, block, n->args[1])));
    int bits = cx_cmp_bits(n->type);
    return bits && cmp_index(n->cmp) >= 0 && (cmp_index(n->cmp) < 2 || n->type[0] != 'b') &&
           affine_usable(c, block, &n->a, bits) && affine_usable(c, block, &n->b, bits);
}

/* The original's loop index a clone iteration stands for (iter_stride). */
uint32_t cx_sampled_iter(const ctx *c, int l, uint32_t t, uint32_t iter)
{
    const mb_clone_loop *cl = &c->m->loops[l];
    uint32_t s = cl->iter_stride;
    if (s <= 1)
        return iter;
    uint64_t cta = c->cta[0][t] + (uint64_t)c->p->grid[0] * (c->cta[1][t] + (uint64_t)c->p->grid[1] * c->cta[2][t]);
    uint32_t k = iter * s + (uint32_t)((cta + cl->iter_phase) % s);
    return cl->iter_div > 1 ? k / cl->iter_div : k;
}

static int cond_node_eval(const ctx *c, const mb_cond_node *n, uint32_t t, const uint32_t *iter)
{
    switch (n->op) {
    case MB_COND_AND: return cond_node_eval(c, n->args[0], t, iter) & cond_node_eval(c, n->args[1], t, iter);
    case MB_COND_OR: return cond_node_eval(c, n->args[0], t, iter) | cond_node_eval(c, n->args[1], t, iter);
    case MB_COND_XOR: return cond_node_eval(c, n->args[0], t, iter) ^ cond_node_eval(c, n->args[1], t, iter);
    case MB_COND_NOT: return !cond_node_eval(c, n->args[0], t, iter);
    case MB_COND_CMP: break;
    }
    uint64_t a = (uint64_t)cx_affine_eval(c, &n->a, t, iter, 1), b = (uint64_t)cx_affine_eval(c, &n->b, t, iter, 1);
    int k = cmp_index(n->cmp);
    int is_unsigned = k >= 6 || cx_cmp_type(n->type)[0] != 's';
    if (cx_cmp_bits(n->type) == 32) { /* the clone's 32-bit registers */
        a = is_unsigned ? (uint32_t)a : (uint64_t)(int64_t)(int32_t)(uint32_t)a;
        b = is_unsigned ? (uint32_t)b : (uint64_t)(int64_t)(int32_t)(uint32_t)b;
    }
    int lt = is_unsigned ? a < b : (int64_t)a < (int64_t)b;
    switch (k) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: case 6: return lt;
    case 3: case 7: return lt || a == b;
    case 4: case 8: return !lt && a != b;
    default: return !lt;
    }
}

/* Copies of a condition in the model's arena: the model outlives the profile. */
static int copy_affine(ctx *c, const mb_affine *a, mb_affine *out)
{
    *out = *a;
    out->var = mb_arena_alloc(c->A, (a->nterms + 1) * sizeof(*out->var));
    out->coef = mb_arena_alloc(c->A, (a->nterms + 1) * sizeof(*out->coef));
    if (!out->var || !out->coef)
        return 0;
    for (size_t i = 0; i < a->nterms; i++) {
        out->coef[i] = a->coef[i];
        if (!(out->var[i] = mb_arena_strdup(c->A, a->var[i])))
            return 0;
    }
    return 1;
}

static mb_cond_node *copy_node(ctx *c, const mb_cond_node *n)
{
    mb_cond_node *d = mb_arena_alloc(c->A, sizeof(*d));
    if (!d)
        return NULL;
    *d = *n;
    if (n->op == MB_COND_CMP)
        return (d->cmp = mb_arena_strdup(c->A, n->cmp)) && (d->type = mb_arena_strdup(c->A, n->type)) &&
                       copy_affine(c, &n->a, &d->a) && copy_affine(c, &n->b, &d->b)
                   ? d
                   : NULL;
    for (int i = 0; i < (n->op == MB_COND_NOT ? 1 : 2); i++)
        if (!(d->args[i] = copy_node(c, n->args[i])))
            return NULL;
    return d;
}

static const mb_cond_model *copy_cond(ctx *c, const mb_cond_model *m)
{
    mb_cond_model *d = mb_arena_alloc(c->A, sizeof(*d));
    if (!d)
        return NULL;
    *d = *m;
    return (d->expr = copy_node(c, m->expr)) ? d : NULL;
}

int cx_cond_eval(const ctx *c, const mb_cond_model *m, uint32_t t, const uint32_t *iter)
{
    return cond_node_eval(c, m->expr, t, iter);
}

static void format_affine(const mb_affine *a, mb_buf *out)
{
    int any = 0;
    for (size_t i = 0; i < a->nterms; i++) {
        if (a->coef[i] == 0)
            continue;
        if (a->coef[i] == 1)
            mb_buf_printf(out, "%s%s", any ? " + " : "", a->var[i]);
        else
            mb_buf_printf(out, "%s%lld*%s", any ? " + " : "", (long long)a->coef[i], a->var[i]);
        any = 1;
    }
    if (!any)
        mb_buf_printf(out, "%lld", (long long)a->constant);
    else if (a->constant)
        mb_buf_printf(out, " %c %llu", a->constant < 0 ? '-' : '+',
                      a->constant < 0 ? 0 - (unsigned long long)a->constant : (unsigned long long)a->constant);
}

static void format_node(const mb_cond_node *n, mb_buf *out)
{
    static const char *const ops[] = {"cmp", "and", "or", "xor", "not"};
    if (n->op == MB_COND_CMP) {
        mb_buf_printf(out, "%s.%s(", n->cmp, n->type);
        format_affine(&n->a, out);
        mb_buf_puts(out, ", ");
        format_affine(&n->b, out);
    } else {
        mb_buf_printf(out, "%s(", ops[n->op]);
        format_node(n->args[0], out);
        if (n->op != MB_COND_NOT) {
            mb_buf_puts(out, ", ");
            format_node(n->args[1], out);
        }
    }
    mb_buf_putc(out, ')');
}

void mb_cond_format(const mb_cond_model *m, mb_buf *out)
{
    if (m->negate)
        mb_buf_puts(out, "not ");
    format_node(m->expr, out);
}

const char *mb_clone_rule_name(mb_clone_rule r)
{
    static const char *const names[] = {"constant", "key threshold", "per-iteration hash",
                                        "jump point: iter < trip", "exit: iter >= trip",
                                        "box x < X and y < Y", "the original's comparison"};
    return (size_t)r < sizeof names / sizeof names[0] ? names[r] : "?";
}

uint32_t cx_key(const ctx *c, uint32_t t, uint32_t period)
{
    return period ? c->kf[t] & (period * 32 - 1) : c->gtid[t];
}

static int log2_of(uint32_t p)
{
    int l = 0;
    while ((1u << l) < p)
        l++;
    return l;
}

static uint32_t brev32(uint32_t x)
{
    uint32_t rev = 0;
    for (int i = 0; i < 32; i++)
        rev |= ((x >> i) & 1u) << (31 - i);
    return rev;
}

/* The reversed keys of a branch splitting every warp (P = 1), compared
 * unsigned: a threshold on the lane puts every low lane on one side, so a
 * partial warp (the grid's last, holding the low lanes only) never diverges
 * where the original's data-dependent condition splits it as any other
 * warp. Reversed, the lane is the top five bits, its low values spread over
 * the range, and the reversed warp index below breaks ties. The index in
 * the CTA, at hand in every kernel, has the lane's bits when CTAs are whole
 * warps; the fine key reverses kf, whose warps differ across CTAs, so one
 * `brev` hits any count. */
uint32_t cx_rev_key(const ctx *c, uint32_t t, uint32_t period)
{
    (void)period;
    return brev32(c->tpc % 32 == 0 ? c->kf[t] % c->tpc : c->kf[t]);
}

uint32_t cx_rev_fine_key(const ctx *c, uint32_t t, uint32_t period)
{
    (void)period;
    return brev32(c->kf[t]);
}

uint32_t cx_fine_key(const ctx *c, uint32_t t, uint32_t period)
{
    if (!period)
        return c->gtid[t];
    uint32_t warps = c->nthreads ? (c->kf[c->nthreads - 1] >> 5) + 1 : 1;
    uint32_t q = (warps + period - 1) / period;
    return (c->kf[t] & (period * 32 - 1)) * q + (c->kf[t] >> (5 + log2_of(period)));
}

uint32_t cx_cta_key(const ctx *c, uint32_t t, uint32_t period)
{
    (void)period;
    return c->ckey[t];
}

uint32_t cx_branch_key(const ctx *c, uint32_t t, const mb_clone_branch *br)
{
    if (br->reversed)
        return br->fine ? cx_rev_fine_key(c, t, 1) : cx_rev_key(c, t, 1);
    return br->cta_relative ? c->ckey[t]
           : br->fine       ? cx_fine_key(c, t, br->lane_period)
                            : cx_key(c, t, br->lane_period);
}

/* A tree reduction's active threads halve every iteration; a threshold
 * constant across iterations splits the same warps every time (every
 * warp holding the boundary diverges in every iteration), while halving
 * splits whole warps first and single warps only once fewer than a warp's
 * threads are left, as the original does. */
uint32_t cx_halved(const mb_clone_branch *br, uint32_t shift)
{
    if (!br->halving)
        return br->threshold;
    return shift >= 32 ? 0 : br->threshold >> shift;
}

uint32_t cx_branch_limit(const ctx *c, const mb_clone_branch *br, uint32_t t, const uint32_t *iter)
{
    return br->halving ? cx_halved(br, cx_sampled_iter(c, br->loop, t, iter[br->loop])) : br->threshold;
}

uint32_t mb_clone_cycle_trip(const mb_clone_loop *l, uint32_t at)
{
    const uint64_t shift = (uint64_t)at * l->cycle_bits;
    if (!l->cycle_bits || shift >= 32)
        return 0;
    const uint32_t field = l->cycle_table >> shift;
    return l->cycle_bits >= 32 ? field : field & ((UINT32_C(1) << l->cycle_bits) - 1);
}

uint32_t cx_trip(const ctx *c, int loop, uint32_t t, const uint32_t *iter)
{
    const mb_clone_loop *l = &c->m->loops[loop];
    if (l->ntrips == 0)
        return 1;
    uint32_t trip = l->trip[0];
    if (l->cycle) {
        uint32_t ctas = c->p->grid[0] * c->p->grid[1] * c->p->grid[2];
        uint32_t at = (l->cycle_in_cta ? c->ckey[t] / ctas : c->gtid[t]) % l->cycle;
        if (l->cycle_bits)
            return mb_clone_cycle_trip(l, at);
        uint32_t v = (trip + at) / c->reduce_num;
        return v ? v : 1;
    }
    uint32_t key = l->outer >= 0 ? iter[l->outer]
                   : l->reversed ? cx_rev_key(c, t, 1)
                                 : cx_key(c, t, l->lane_period);
    if (l->span)
        return trip + (uint32_t)(((uint64_t)key * l->span) >> l->shift);
    for (size_t j = 1; j < l->ntrips; j++)
        if (key >= l->trip_from[j])
            trip = l->trip[j];
    uint32_t step = key >> l->stair_shift;
    return step < l->stairs ? trip + (l->stairs - step) : trip;
}

int cx_trip_varies(const mb_clone_loop *l)
{
    return l->ntrips > 1 || l->span || l->cycle || l->stairs;
}

/* Lane period P (a power of two) whose key makes about `fraction` of warps
 * mixed: key_P repeats every P warps, and a threshold inside one period
 * splits one warp in P. 0 means warp-major order (a single boundary). */
static uint32_t lane_period(const ctx *c, double fraction, uint64_t warp_execs)
{
    uint32_t total_warps = c->nthreads / 32 + (c->nthreads % 32 != 0);
    if (fraction <= 0 || warp_execs == 0 || fraction * (double)warp_execs < 1.5)
        return 0;
    double want = 1.0 / fraction;
    uint32_t p = 1;
    while (p < 1u << 20 && (double)p * 1.4142 < want)
        p *= 2;
    return p >= total_warps ? 0 : p;
}

static int is_back_edge(const ctx *c, int from, int to)
{
    for (size_t i = 0; i < c->f->nedges; i++)
        if (c->f->edges[i].from == from && c->f->edges[i].to == to)
            return c->f->edges[i].back;
    return 0;
}

static uint64_t edge_count(const ctx *c, int from, int to)
{
    for (size_t i = 0; i < c->f->nedges; i++)
        if (c->f->edges[i].from == from && c->f->edges[i].to == to)
            return c->f->edges[i].count;
    return 0;
}

static mb_status unsupported(ctx *c, int block, const char *what)
{
    return mb_error_set(c->err, MB_ERR_UNSUPPORTED, c->p->path ? c->p->path : "", 0, 0,
                        "kernel %s, block %d (%s): %s is not reproduced by the clone model",
                        c->p->kernel, block, c->f->blocks[block].name, what);
}

static mb_status successors(ctx *c)
{
    const mb_sprof_func *f = c->f;
    for (size_t i = 0; i < f->nedges; i++) {
        blk *b = &c->b[f->edges[i].from];
        if (b->nsucc >= 2)
            return unsupported(c, f->edges[i].from, "a block with more than two successors (brx.idx)");
        b->succ[b->nsucc++] = f->edges[i].to;
    }
    for (size_t i = 0; i < f->nbranches; i++) {
        blk *b = &c->b[f->branches[i].block];
        b->cond = 1;
    }
    /* a two-way branch no thread executed has no record: it stays never taken */
    for (size_t k = 0; k < c->nb; k++)
        if (c->b[k].nsucc == 2 && !c->b[k].cond && f->blocks[k].ecount == 0)
            c->b[k].cond = 2;
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        const mb_sprof_block *sb = &f->blocks[k];
        const char *last = sb->nchain ? sb->chain[sb->nchain - 1] : "";
        b->branch = -1;
        b->fall = b->taken = -1;
        b->term = strcmp(last, "bra") == 0 ? TERM_BRA
                  : strcmp(last, "ret") == 0 || strcmp(last, "exit") == 0 ? TERM_RET
                                                                          : TERM_NONE;
        if (b->term == TERM_RET) {
            if (b->nsucc)
                return unsupported(c, (int)k, "a conditional return");
            continue;
        }
        if (b->term == TERM_NONE) {
            if (b->nsucc != 1 || b->succ[0] != (int)k + 1)
                return unsupported(c, (int)k, "a block without terminator that does not fall through");
            b->fall = (int)k + 1;
            continue;
        }
        if (b->nsucc == 0)
            return unsupported(c, (int)k, "a branch without successors");
        if (!b->cond) {
            if (b->nsucc != 1)
                return unsupported(c, (int)k, "an unconditional branch with two successors");
            b->taken = b->succ[0];
            continue;
        }
        if (b->nsucc == 1) {
            b->fall = b->taken = b->succ[0];
        } else if (b->succ[0] == (int)k + 1 || b->succ[1] == (int)k + 1) {
            b->fall = (int)k + 1;
            b->taken = b->succ[0] == (int)k + 1 ? b->succ[1] : b->succ[0];
        } else {
            return unsupported(c, (int)k, "a conditional branch without fall-through successor");
        }
    }
    return MB_OK;
}

static mb_status loops(ctx *c)
{
    const mb_sprof_func *f = c->f;
    c->nloops = f->nloops;
    c->in_loop = mb_arena_alloc(c->A, (f->nloops + 1) * sizeof(*c->in_loop));
    c->latch = mb_arena_alloc(c->A, (f->nloops + 1) * sizeof(*c->latch));
    c->loop_of_header = mb_arena_alloc(c->A, c->nb * sizeof(int));
    c->m->loops = mb_arena_alloc(c->A, (f->nloops + 1) * sizeof(*c->m->loops));
    if (!c->in_loop || !c->latch || !c->loop_of_header || !c->m->loops)
        return cx_nomem(c);
    c->m->nloops = f->nloops;
    for (size_t k = 0; k < c->nb; k++)
        c->loop_of_header[k] = -1;
    for (size_t l = 0; l < f->nloops; l++) {
        if (!(c->in_loop[l] = mb_arena_alloc(c->A, c->nb)) || !(c->latch[l] = mb_arena_alloc(c->A, c->nb)))
            return cx_nomem(c);
        for (size_t k = 0; k < f->loops[l].nblocks; k++)
            c->in_loop[l][f->loops[l].blocks[k]] = 1;
        c->loop_of_header[f->loops[l].header] = (int)l;
        for (size_t e = 0; e < f->nedges; e++)
            if (f->edges[e].to == f->loops[l].header && f->edges[e].back &&
                c->in_loop[l][f->edges[e].from])
                c->latch[l][f->edges[e].from] = 1;
        c->m->loops[l].header = f->loops[l].header;
        c->m->loops[l].controller = -1;
        c->m->loops[l].outer = -1;
        if (f->loops[l].header == 0)
            return unsupported(c, 0, "a loop whose header is the entry block");
    }
    return MB_OK;
}

static int in_loop(const ctx *c, int l, int block)
{
    return l >= 0 && block >= 0 && c->in_loop[l][block];
}

static const mb_sprof_branch *branch_of(const ctx *c, int block)
{
    for (size_t i = 0; i < c->f->nbranches; i++)
        if (c->f->branches[i].block == block)
            return &c->f->branches[i];
    return NULL;
}

/* The block whose branch governs loop l's trip count: the jump point with
 * the most exits, else the exiting block with the most exits. */
static void choose_controllers(ctx *c)
{
    for (size_t l = 0; l < c->nloops; l++) {
        int best = -1, best_back = 0;
        uint64_t best_exits = 0;
        for (size_t k = 0; k < c->nb; k++) {
            const blk *b = &c->b[k];
            if (!b->cond || cx_block_loop(c, (int)k) != (int)l || b->nsucc != 2)
                continue;
            int header = c->f->loops[l].header;
            int back = -1, exit = -1;
            for (int s = 0; s < 2; s++) {
                if (b->succ[s] == header && is_back_edge(c, (int)k, header))
                    back = b->succ[s];
                else if (!in_loop(c, (int)l, b->succ[s]))
                    exit = b->succ[s];
            }
            if (exit < 0)
                continue;
            uint64_t exits = edge_count(c, (int)k, exit);
            int is_back = back >= 0;
            if (exits == 0)
                continue;
            if (best < 0 || (is_back && !best_back) ||
                (is_back == best_back && exits > best_exits)) {
                best = (int)k;
                best_back = is_back;
                best_exits = exits;
            }
        }
        c->m->loops[l].controller = best;
    }
}

static mb_clone_case const_case(const ctx *c, int block, int taken)
{
    int l = cx_block_loop(c, block);
    if (l < 0)
        return MB_CASE_UNIFORM;
    const blk *b = &c->b[block];
    int target = taken ? b->taken : b->fall;
    if (c->loop_of_header[block] == l)
        return MB_CASE_TARGET_SAME;
    if (target == c->f->loops[l].header && is_back_edge(c, block, target))
        return MB_CASE_JUMP_ALL;
    return MB_CASE_UNIFORM;
}

/* The calibrated rule of a thread condition (section 4.2.2): a threshold on
 * a lane key, or a box of the global indices. */
static void key_rule(ctx *c, int k, const mb_sprof_branch *br, mb_clone_branch *cb)
{
    int l = cx_block_loop(c, k);
    cb->rule = MB_RULE_KEY;
    cb->cond = NULL;
    cb->loop = l;
    cb->true_taken = 0;
    cb->lane_period = lane_period(c, br->divergence_fraction, br->warp_execs);
    /* a condition on the thread index alone splits every CTA alike
     * ('first N threads' of each CTA); a lane pattern finer than a CTA
     * keeps the lane key */
    uint32_t ctas = c->p->grid[0] * c->p->grid[1] * c->p->grid[2];
    if (br->cta_relative && ctas > 1 && (cb->lane_period == 0 || cb->lane_period >= c->wpc)) {
        cb->cta_relative = 1;
        cb->lane_period = 0;
    }
    /* 2-D launches: the first N threads of a box (x < X and y < Y over
     * the global indices), the usual bounds check of 2-D kernels */
    uint64_t xs = (uint64_t)c->p->grid[0] * c->p->block[0], ys = (uint64_t)c->p->grid[1] * c->p->block[1];
    if (l < 0 && !cb->cta_relative && xs > 1 && ys > 1 && xs * ys <= (1u << 22) &&
        c->p->grid[2] * c->p->block[2] == 1 && strcmp(br->condition, "thread/cta id") == 0) {
        cb->rule = MB_RULE_BOX;
        cb->lane_period = 0;
    }
    if (l < 0)
        cb->kind = cb->lane_period ? MB_CASE_OUTSIDE_LANES : MB_CASE_OUTSIDE_FIRST_N;
    else
        cb->kind = c->loop_of_header[k] == l ? MB_CASE_TARGET_GROUPS : MB_CASE_INSIDE_THREAD;
    /* a thread condition reading the loop's counter may halve its
     * threshold every iteration (the calibration decides) */
    if (cb->rule != MB_RULE_KEY || !br->reads_loop_counter)
        cb->loop = -1;
}

void cx_key_fallback(ctx *c, int block)
{
    const mb_sprof_branch *br = branch_of(c, block);
    if (br)
        key_rule(c, block, br, &c->m->branches[c->b[block].branch]);
}

mb_status cx_classify(ctx *c)
{
    mb_status st = successors(c);
    if (st == MB_OK)
        st = loops(c);
    if (st != MB_OK)
        return st;
    choose_controllers(c);
    mb_clone_model *m = c->m;
    m->branches = mb_arena_alloc(c->A, (c->nb + 1) * sizeof(*m->branches));
    if (!m->branches)
        return cx_nomem(c);
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        if (!b->cond)
            continue;
        const mb_sprof_branch *br = branch_of(c, (int)k);
        mb_sprof_branch never;
        if (!br) {
            memset(&never, 0, sizeof(never));
            never.block = (int)k;
            never.condition = "uniform";
            br = &never;
        }
        mb_clone_branch *cb = &m->branches[m->nbranches];
        memset(cb, 0, sizeof(*cb));
        b->branch = (int)m->nbranches++;
        cb->block = (int)k;
        cb->line = br->line;
        cb->loop = cx_block_loop(c, (int)k);
        cb->true_taken = 1;
        uint64_t total = br->taken + br->not_taken;
        cb->target_taken = total ? (double)br->taken / (double)total : 0;
        cb->target_divergence = br->divergence_fraction;
        int l = cb->loop;
        int controller = l >= 0 && m->loops[l].controller == (int)k;
        if (b->fall == b->taken || br->taken == 0 || br->not_taken == 0 || (l >= 0 && !controller && m->loops[l].controller < 0 && c->f->loops[l].activations == 0)) {
            cb->rule = MB_RULE_CONST;
            cb->const_taken = br->taken > 0 || b->fall == b->taken;
            cb->kind = const_case(c, (int)k, cb->const_taken);
            cb->loop = -1;
            continue;
        }
        if (controller) {
            int header = c->f->loops[l].header;
            int back_taken = b->taken == header && is_back_edge(c, (int)k, header);
            int back_fall = b->fall == header && is_back_edge(c, (int)k, header);
            size_t ntrips = c->f->loops[l].trips.n;
            if (back_taken || back_fall) {
                /* predicate: iter < trip means "jump back" */
                cb->rule = MB_RULE_LOOP_BACK;
                cb->true_taken = back_taken;
                cb->kind = strcmp(c->f->loops[l].kind, "self") == 0 ? MB_CASE_SELF_LOOP
                           : ntrips > 1                            ? MB_CASE_JUMP_FIRST_N
                                                                   : MB_CASE_JUMP_ALL;
            } else {
                /* predicate: iter >= trip means "leave" */
                cb->rule = MB_RULE_LOOP_EXIT;
                cb->true_taken = !in_loop(c, l, b->taken);
                cb->kind = c->loop_of_header[k] == l
                               ? (ntrips > 1 ? MB_CASE_TARGET_ITERATIONS : MB_CASE_TARGET_SAME)
                               : MB_CASE_INSIDE_THREAD;
            }
            continue;
        }
        if (br->model && br->model->exact && br->model->expr && cond_usable(c, (int)k, br->model->expr)) {
            /* the original's own comparison: the same threads take it */
            cb->rule = MB_RULE_COMPARE;
            if (!(cb->cond = copy_cond(c, br->model)))
                return cx_nomem(c);
            cb->true_taken = !br->model->negate;
            /* the case as the calibrated rules would name it: divergence
             * inside warps, or at a boundary between them */
            if (l < 0)
                cb->kind = lane_period(c, br->divergence_fraction, br->warp_execs) ? MB_CASE_OUTSIDE_LANES
                                                                                : MB_CASE_OUTSIDE_FIRST_N;
            else
                cb->kind = c->loop_of_header[k] == l ? MB_CASE_TARGET_GROUPS : MB_CASE_INSIDE_THREAD;
            cb->loop = -1;
            continue;
        }
        if (l >= 0 && strcmp(br->condition, "data-dependent") == 0) {
            cb->rule = MB_RULE_HASH;
            cb->kind = MB_CASE_TARGET_RANDOM;
            cb->hash_mult = (uint32_t)(cx_rand(c) | 1);
            continue;
        }
        key_rule(c, (int)k, br, cb);
    }
    /* trip values: scaled by the reduction factor, rounded down, at least 1 (6.1 i);
     * a loop whose warps all mix trip counts keeps its spread (trip_reduce.c) */
    for (size_t l = 0; l < c->nloops; l++) {
        mb_clone_loop *cl = &m->loops[l];
        const mb_sprof_loop *sl = &c->f->loops[l];
        /* a reduced loop's iteration j stands for R of the original's: the
         * CTAs take turns at which, so that a comparison singling out some
         * iterations (an edge tile, a wavefront) is met as often, by whole
         * CTAs as in the original; j * stride + phase stays below every
         * thread's trip count as long as the stride is at most the shortest */
        uint64_t shortest = 0;
        for (size_t j = 0; j < sl->trips.n && !shortest; j++)
            if (sl->trips.key[j] >= 1)
                shortest = (uint64_t)sl->trips.key[j];
        cl->iter_stride = (uint32_t)(c->reduce_num && c->reduce_num < shortest ? c->reduce_num
                                     : shortest > UINT32_MAX                   ? UINT32_MAX
                                     : shortest ? shortest : 1);
        cl->iter_div = 1;
        cl->reversed = 0;
        cl->lane_period = lane_period(c,
                                      sl->warp_activations ? (double)sl->warp_activations_differing /
                                                                 (double)sl->warp_activations
                                                           : 0,
                                      sl->warp_activations);
        cl->trip = mb_arena_alloc(c->A, (sl->trips.n + 1) * sizeof(uint32_t));
        cl->trip_from = mb_arena_alloc(c->A, (sl->trips.n + 1) * sizeof(uint32_t));
        if (!cl->trip || !cl->trip_from)
            return cx_nomem(c);
        mb_trip_scale scale = mb_sprof_trip_scale(sl, c->m->reduction);
        for (size_t j = 0; j < sl->trips.n; j++) {
            uint64_t v = mb_sprof_reduced_trip(scale, sl->trips.key[j]);
            if (cl->ntrips == 0 || cl->trip[cl->ntrips - 1] != (uint32_t)v)
                cl->trip[cl->ntrips++] = (uint32_t)v;
        }
    }
    return MB_OK;
}
