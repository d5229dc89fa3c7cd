/* Comparing two profiles side by side: the check a clone must pass. */
#include "synth_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

mb_compare_tolerance mb_compare_default_tolerance(double r)
{
    mb_compare_tolerance t = {r, 0.10, 0.02, 0.05, 0.02, 0.02};
    return t;
}

/* Ratio of reduced to original executions of a loop's header. */
static double loop_factor(const mb_sprof_loop *l, double r)
{
    double orig = 0, red = 0;
    mb_trip_scale scale = mb_sprof_trip_scale(l, r);
    for (size_t i = 0; i < l->trips.n; i++) {
        orig += (double)l->trips.key[i] * (double)l->trips.count[i];
        red += (double)mb_sprof_reduced_trip(scale, l->trips.key[i]) * (double)l->trips.count[i];
    }
    return orig > 0 ? red / orig : 1.0;
}

static int in_loop_blocks(const mb_sprof_loop *l, int b)
{
    for (size_t i = 0; i < l->nblocks; i++)
        if (l->blocks[i] == b)
            return 1;
    return 0;
}

/* Whether block b of loop l runs only in iterations that do not leave the
 * loop: it lies after the main exit (the in-loop block with the most exits,
 * other than the header), reached from it without passing the header. */
static int after_exit(const mb_sprof_func *f, const mb_sprof_loop *l, int b)
{
    int exit_block = -1;
    uint64_t best = 0;
    for (size_t e = 0; e < f->nedges; e++) {
        const mb_sprof_edge *ed = &f->edges[e];
        if (in_loop_blocks(l, ed->from) && !in_loop_blocks(l, ed->to) && ed->count > best) {
            best = ed->count;
            exit_block = ed->from;
        }
    }
    if (exit_block < 0 || exit_block == l->header || exit_block == b)
        return 0;
    for (size_t e = 0; e < f->nedges; e++)
        if (f->edges[e].from == exit_block && f->edges[e].to == l->header && f->edges[e].back)
            return 0; /* the exit is the jump point: nothing comes after it */
    /* walk forward from the exit block inside the loop, never through the header */
    unsigned char *seen = calloc(f->nblocks, 1);
    int *stack = malloc((f->nblocks + 1) * sizeof(int));
    int found = 0;
    if (!seen || !stack) {
        free(seen);
        free(stack);
        return 0;
    }
    size_t sp = 0;
    stack[sp++] = exit_block;
    seen[exit_block] = 1;
    while (sp && !found) {
        int x = stack[--sp];
        for (size_t e = 0; e < f->nedges; e++) {
            int y = f->edges[e].to;
            if (f->edges[e].from != x || y == l->header || !in_loop_blocks(l, y) || seen[y])
                continue;
            seen[y] = 1;
            found |= y == b;
            stack[sp++] = y;
        }
    }
    free(seen);
    free(stack);
    return found;
}

static uint32_t calls_in(const mb_sprof_block *b)
{
    uint32_t n = 0;
    for (size_t i = 0; i < b->nchain; i++)
        n += !strcmp(b->chain[i], "call");
    return n;
}

/* Ratio of reduced to original calls: every call site of the kernel
 * scaled as its block is. */
static double call_factor(const mb_sprof *a, double r)
{
    const mb_sprof_func *k = mb_sprof_kernel(a);
    double orig = 0, red = 0;
    for (size_t b = 0; b < k->nblocks; b++) {
        uint32_t n = calls_in(&k->blocks[b]);
        if (!n)
            continue;
        orig += (double)n * (double)k->blocks[b].ecount;
        red += (double)n * mb_sprof_expected_ecount(a, (int)b, r);
    }
    return orig > 0 ? red / orig : 1.0;
}

double mb_sprof_expected_ecount(const mb_sprof *a, int block, double r)
{
    return mb_sprof_expected_ecount_in(a, 0, block, r);
}

double mb_sprof_expected_ecount_in(const mb_sprof *a, size_t func, int block, double r)
{
    double e = mb_sprof_func_expected_ecount(&a->funcs[func], block, r);
    /* a called function runs as often as the kernel calls it */
    if (func > 0 && r != 1)
        e *= call_factor(a, r);
    return e;
}

double mb_sprof_func_expected_ecount(const mb_sprof_func *f, int block, double r)
{
    const mb_sprof_block *b = &f->blocks[block];
    double e = (double)b->ecount;
    if (r == 1)
        return e;
    for (int l = b->loop; l >= 0; l = f->loops[l].parent) {
        const mb_sprof_loop *lp = &f->loops[l];
        double h = 0, acts = 0;
        for (size_t i = 0; i < lp->trips.n; i++) {
            h += (double)lp->trips.key[i] * (double)lp->trips.count[i];
            acts += (double)lp->trips.count[i];
        }
        double factor = loop_factor(lp, r);
        if (after_exit(f, lp, block) && h > acts)
            e *= (factor * h - acts) / (h - acts); /* runs in every iteration but the last */
        else
            e *= factor;
    }
    return e;
}

/* Block of instruction `insn` of f (by the chain lengths), -1 if none. */
static int block_of_insn(const mb_sprof_func *f, uint32_t insn)
{
    for (size_t i = 0; i < f->nblocks; i++)
        if (insn >= f->blocks[i].first_insn && insn < f->blocks[i].first_insn + f->blocks[i].nchain)
            return (int)i;
    return -1;
}

/* Total variation distance between two histograms, each normalised. */
static double hist_tv(const mb_hist *a, const mb_hist *b)
{
    double ta = (double)mb_hist_total(a), tb = (double)mb_hist_total(b), d = 0;
    if (ta == 0 && tb == 0)
        return 0;
    if (ta == 0 || tb == 0)
        return 1;
    size_t i = 0, k = 0;
    while (i < a->n || k < b->n) {
        if (k >= b->n || (i < a->n && a->key[i] < b->key[k])) {
            d += (double)a->count[i++] / ta;
        } else if (i >= a->n || b->key[k] < a->key[i]) {
            d += (double)b->count[k++] / tb;
        } else {
            d += fabs((double)a->count[i++] / ta - (double)b->count[k++] / tb);
        }
    }
    return d / 2;
}

/* profiles keep fractions to 10 digits: a clone at the resolution may look
 * that much farther */
#define RESOLUTION_SLACK 1e-9

/*
 * How near a statistic over n events can come to the original's: a
 * divergence fraction over n warp executions is a multiple of 1/n, a
 * distribution over n requests has counts that are. A clone with fewer
 * events than a tolerance's resolution needs meets the check when it is
 * as near as any n events can be (the check says so, see `resolution`).
 */
static double fraction_floor(double f, uint64_t n)
{
    if (n == 0)
        return 0;
    const double x = f * (double)n, below = floor(x);
    return fmin(x - below, below + 1 - x) / (double)n;
}

static int remainder_desc(const void *p, const void *q)
{
    const double x = *(const double *)p, y = *(const double *)q;
    return (x < y) - (x > y);
}

/* The least total variation distance from a's distribution of any
 * histogram of n counts: a's shares times n, rounded down, and the counts
 * left over added to the largest remainders (0 when out of memory: no
 * allowance). */
double mb_hist_tv_floor(const mb_hist *a, uint64_t n)
{
    const double ta = (double)mb_hist_total(a);
    if (n == 0 || ta == 0 || a->n == 0)
        return 0;
    double *rem = malloc(a->n * sizeof(*rem));
    if (!rem)
        return 0;
    double left = (double)n;
    for (size_t i = 0; i < a->n; i++) {
        const double x = (double)a->count[i] / ta * (double)n;
        rem[i] = x - floor(x);
        left -= floor(x);
    }
    qsort(rem, a->n, sizeof(*rem), remainder_desc);
    const size_t up = (size_t)llround(left);
    double l1 = 0;
    for (size_t i = 0; i < a->n; i++)
        l1 += i < up ? 1 - rem[i] : rem[i];
    free(rem);
    return l1 / (2 * (double)n);
}

static uint64_t mix_total(const mb_sprof_mix *m)
{
    uint64_t t = 0;
    for (size_t i = 0; i < m->n; i++)
        t += m->count[i];
    return t;
}

static uint64_t mix_get(const mb_sprof_mix *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->name[i], name) == 0)
            return m->count[i];
    return 0;
}

typedef struct cmp_ctx {
    const mb_compare_tolerance *tol;
    mb_buf *text;
    json_t *violations;
    json_t *resolution; /* statistics accepted at the resolution of their counts */
    char *violation;
    size_t violation_size;
} cmp_ctx;

/* Appends a finding to `list`: a violation (the first is also kept in
 * c->violation) or a statistic accepted at its resolution. */
static void record(cmp_ctx *c, json_t *list, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (list == c->violations && c->violation && c->violation[0] == '\0')
        snprintf(c->violation, c->violation_size, "%s", msg);
    json_array_append_new(list, json_string(msg));
}

static void resolved(cmp_ctx *c, const char *fmt, ...) MB_PRINTF(2, 3);
static void resolved(cmp_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(c, c->resolution, fmt, ap);
    va_end(ap);
}

static void violate(cmp_ctx *c, const char *fmt, ...) MB_PRINTF(2, 3);
static void violate(cmp_ctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    record(c, c->violations, fmt, ap);
    va_end(ap);
}

static void out(cmp_ctx *c, const char *fmt, ...) MB_PRINTF(2, 3);
static void out(cmp_ctx *c, const char *fmt, ...)
{
    if (!c->text)
        return;
    va_list ap;
    va_start(ap, fmt);
    mb_buf_vprintf(c->text, fmt, ap);
    va_end(ap);
}

static double rel(double a, double b)
{
    return a == 0 ? (b == 0 ? 0 : INFINITY) : (b - a) / a;
}

/* Same blocks (count, loop membership) and same edge set. */
static int same_cfg(const mb_sprof_func *a, const mb_sprof_func *b, char *why, size_t n)
{
    if (a->nblocks != b->nblocks) {
        snprintf(why, n, "%zu blocks vs %zu", a->nblocks, b->nblocks);
        return 0;
    }
    if (a->nedges != b->nedges) {
        snprintf(why, n, "%zu edges vs %zu", a->nedges, b->nedges);
        return 0;
    }
    if (a->nloops != b->nloops) {
        snprintf(why, n, "%zu loops vs %zu", a->nloops, b->nloops);
        return 0;
    }
    for (size_t i = 0; i < a->nedges; i++) {
        int found = 0;
        for (size_t k = 0; k < b->nedges && !found; k++)
            found = a->edges[i].from == b->edges[k].from && a->edges[i].to == b->edges[k].to &&
                    a->edges[i].back == b->edges[k].back;
        if (!found) {
            snprintf(why, n, "edge %d -> %d missing in B", a->edges[i].from, a->edges[i].to);
            return 0;
        }
    }
    for (size_t i = 0; i < a->nblocks; i++)
        if (a->blocks[i].loop != b->blocks[i].loop) {
            snprintf(why, n, "block %zu: loop %d vs %d", i, a->blocks[i].loop, b->blocks[i].loop);
            return 0;
        }
    snprintf(why, n, "same");
    return 1;
}

/* "function F, " before a called function's statistics, "" for the kernel's */
static const char *where(size_t fi, const mb_sprof_func *a, char *buf, size_t n)
{
    if (fi == 0)
        return "";
    snprintf(buf, n, "function %s, ", a->name);
    return buf;
}

static void compare_blocks(cmp_ctx *c, const mb_sprof *pa, size_t fi, const mb_sprof_func *a,
                           const mb_sprof_func *b, json_t *jarr)
{
    char wbuf[300];
    const char *w = where(fi, a, wbuf, sizeof wbuf);
    double r = c->tol ? c->tol->reduction : 1;
    out(c, "\nblocks%s\n  %-4s %-16s %5s %12s %12s %12s %8s\n",
        c->tol ? "" : " (expected: at reduction 1)", "id", "name", "loop", "ECount A", "ECount B",
        "expected B", "rel");
    for (size_t i = 0; i < a->nblocks; i++) {
        const mb_sprof_block *x = &a->blocks[i], *y = &b->blocks[i];
        double want = mb_sprof_expected_ecount_in(pa, fi, (int)i, r);
        double d = rel(want, (double)y->ecount);
        out(c, "  %-4zu %-16.16s %5d %12llu %12llu %12.0f %+8.3f\n", i, x->name, x->loop,
            (unsigned long long)x->ecount, (unsigned long long)y->ecount, want,
            isinf(d) ? 999.0 : d);
        json_t *o = json_pack("{s:i, s:s, s:i, s:I, s:I, s:f, s:f, s:I, s:I}", "id", (int)i, "name",
                              x->name, "loop", x->loop, "ecount_a", (json_int_t)x->ecount,
                              "ecount_b", (json_int_t)y->ecount, "expected_b", want, "rel",
                              isinf(d) ? 1e9 : d, "scount_a", (json_int_t)x->scount, "scount_b",
                              (json_int_t)y->scount);
        json_object_set_new(o, "function", json_string(a->name));
        json_array_append_new(jarr, o);
        if (!c->tol)
            continue;
        if (x->loop < 0 && y->ecount != x->ecount)
            violate(c, "%sblock %zu (%s): ECount %llu vs %llu outside loops must be equal", w, i,
                    x->name, (unsigned long long)x->ecount, (unsigned long long)y->ecount);
        else if (x->loop >= 0 && fabs(d) > c->tol->ecount_rel)
            violate(c, "%sblock %zu (%s): ECount %llu vs expected %.0f (%+.1f%%, tolerance %.0f%%)",
                    w, i, x->name, (unsigned long long)y->ecount, want, 100 * (isinf(d) ? 999 : d),
                    100 * c->tol->ecount_rel);
        if ((x->scount > 0) != (y->scount > 0) && (y->scount > 0 || want >= 0.5))
            violate(c, "%sblock %zu (%s): barriers %llu vs %llu", w, i, x->name,
                    (unsigned long long)x->scount, (unsigned long long)y->scount);
    }
}

static const mb_sprof_branch *branch_in_block(const mb_sprof_func *f, int block)
{
    for (size_t i = 0; i < f->nbranches; i++)
        if (f->branches[i].block == block)
            return &f->branches[i];
    return NULL;
}

static double taken_fraction(const mb_sprof_branch *br)
{
    uint64_t t = br->taken + br->not_taken;
    return t ? (double)br->taken / (double)t : 0;
}

static void compare_branches(cmp_ctx *c, const mb_sprof *pa, size_t fi, const mb_sprof_func *a,
                             const mb_sprof_func *b, json_t *jarr)
{
    char wbuf[300];
    const char *w = where(fi, a, wbuf, sizeof wbuf);
    double r = c->tol ? c->tol->reduction : 1;
    out(c, "\nbranches (divergence fraction = diverged warp executions / warp executions)\n"
           "  %-5s %-5s %10s %10s %8s %10s %10s\n",
        "block", "line", "div A", "div B", "diff", "taken A", "taken B");
    for (size_t i = 0; i < a->nbranches; i++) {
        const mb_sprof_branch *x = &a->branches[i], *y = branch_in_block(b, x->block);
        if (!y) {
            out(c, "  %-5d %-5d %10.4f %10s\n", x->block, x->line, x->divergence_fraction, "-");
            if (c->tol && mb_sprof_expected_ecount_in(pa, fi, x->block, r) >= 0.5)
                violate(c, "%sbranch in block %d (line %d): missing in B", w, x->block, x->line);
            continue;
        }
        double d = y->divergence_fraction - x->divergence_fraction;
        out(c, "  %-5d %-5d %10.4f %10.4f %+8.4f %10.4f %10.4f\n", x->block, x->line,
            x->divergence_fraction, y->divergence_fraction, d, taken_fraction(x), taken_fraction(y));
        json_array_append_new(
            jarr, json_pack("{s:s, s:i, s:i, s:f, s:f, s:f, s:f, s:f}", "function", a->name, "block",
                            x->block, "line", x->line, "divergence_a", x->divergence_fraction,
                            "divergence_b", y->divergence_fraction, "diff", d, "taken_a",
                            taken_fraction(x), "taken_b", taken_fraction(y)));
        if (!c->tol || fabs(d) <= c->tol->divergence_pts + 1e-12)
            continue;
        if (fabs(d) <= fraction_floor(x->divergence_fraction, y->warp_execs) + RESOLUTION_SLACK)
            resolved(c,
                     "%sbranch in block %d (line %d): divergence fraction %.4f vs %.4f (%+.1f "
                     "points: as near as %llu warp execution%s can be)",
                     w, x->block, x->line, x->divergence_fraction, y->divergence_fraction, 100 * d,
                     (unsigned long long)y->warp_execs, y->warp_execs == 1 ? "" : "s");
        else
            violate(c,
                    "%sbranch in block %d (line %d): divergence fraction %.4f vs %.4f (%+.1f "
                    "points, tolerance %.1f)",
                    w, x->block, x->line, x->divergence_fraction, y->divergence_fraction, 100 * d,
                    100 * c->tol->divergence_pts);
    }
}

/* The sectors-per-request and bank-conflict distributions of access x (A)
 * and y (B) of block blk, total variation ts and tb apart. */
static void check_distributions(cmp_ctx *c, const char *w, const mb_sprof_mem *x,
                                const mb_sprof_mem *y, int blk, double ts, double tb)
{
    const double limit = c->tol->distribution + 1e-12;
    const struct {
        const char *what;
        const mb_hist *a, *b;
        double tv;
    } d[2] = {{"sectors-per-request", &x->sectors, &y->sectors, ts},
              {"bank-conflict", &x->bank_conflicts, &y->bank_conflicts, tb}};
    for (int k = 0; k < 2; k++) {
        if (d[k].tv <= limit)
            continue;
        const uint64_t n = mb_hist_total(d[k].b);
        if (d[k].tv <= mb_hist_tv_floor(d[k].a, n) + RESOLUTION_SLACK) {
            resolved(c,
                     "%smemory access %s at line %d (block %d): %s distributions differ by %.1f%% "
                     "(mean %.3f vs %.3f: as near as %llu request%s can be)",
                     w, x->op, x->line, blk, d[k].what, 100 * d[k].tv, mb_hist_mean(d[k].a),
                     mb_hist_mean(d[k].b), (unsigned long long)n, n == 1 ? "" : "s");
            continue;
        }
        violate(c,
                "%smemory access %s at line %d (block %d): %s distributions differ by %.1f%% "
                "(mean %.3f vs %.3f, tolerance %.0f%%)",
                w, x->op, x->line, blk, d[k].what, 100 * d[k].tv, mb_hist_mean(d[k].a),
                mb_hist_mean(d[k].b), 100 * c->tol->distribution);
        return;
    }
}

static void compare_memory(cmp_ctx *c, const mb_sprof *pa, size_t fi, const mb_sprof_func *a,
                           const mb_sprof_func *b, json_t *jarr)
{
    char wbuf[300];
    const char *w = where(fi, a, wbuf, sizeof wbuf);
    double r = c->tol ? c->tol->reduction : 1;
    out(c, "\nmemory (distributions compared by total variation distance)\n"
           "  %-5s %-5s %-7s %-8s %9s %9s %7s %7s %7s %9s %9s %7s %7s %7s %7s %7s\n",
        "block", "line", "space", "op", "sect/rq A", "sect/rq B", "TV", "lines A", "lines B", "bank A",
        "bank B", "TV", "1.x A", "1.x B", "addr A", "addr B");
    /* pair the k-th access of a block in A with the k-th of the same block in B */
    for (size_t i = 0; i < a->nmem; i++) {
        const mb_sprof_mem *x = &a->mem[i], *y = NULL;
        int blk = block_of_insn(a, x->insn), rank = 0;
        for (size_t k = 0; k < i; k++)
            rank += block_of_insn(a, a->mem[k].insn) == blk;
        for (size_t k = 0; k < b->nmem && !y; k++)
            if (block_of_insn(b, b->mem[k].insn) == blk && rank-- == 0)
                y = &b->mem[k];
        if (!y) {
            out(c, "  %-5d %-5d %-7s %-8s   (missing in B)\n", blk, x->line, x->space, x->op);
            if (c->tol && blk >= 0 && mb_sprof_expected_ecount_in(pa, fi, blk, r) >= 0.5)
                violate(c, "%smemory access %s at line %d (block %d): missing in B", w, x->op,
                        x->line, blk);
            continue;
        }
        double ts = hist_tv(&x->sectors, &y->sectors), tb = hist_tv(&x->bank_conflicts, &y->bank_conflicts);
        /* shown, not checked: the mean 128-byte lines per request (what an
         * L1 with lines of that size sees), the cost under the 1.x rule and a
         * constant access's distinct addresses (a cycle each) */
        const double ca = mb_hist_mean(&x->bank_cycles_cc1x), cb = mb_hist_mean(&y->bank_cycles_cc1x);
        const double la = mb_hist_mean(&x->lines), lb = mb_hist_mean(&y->lines);
        const double aa = mb_hist_mean(&x->addresses), ab = mb_hist_mean(&y->addresses);
        out(c, "  %-5d %-5d %-7s %-8s %9.3f %9.3f %7.4f %7.3f %7.3f %9.3f %9.3f %7.4f %7.3f %7.3f %7.3f %7.3f\n",
            blk, x->line, x->space, x->op, mb_hist_mean(&x->sectors), mb_hist_mean(&y->sectors), ts, la,
            lb, mb_hist_mean(&x->bank_conflicts), mb_hist_mean(&y->bank_conflicts), tb, ca, cb, aa, ab);
        json_array_append_new(
            jarr, json_pack("{s:s, s:i, s:i, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
                            "function", a->name, "block", blk,
                            "line", x->line, "space", x->space, "op", x->op, "op_b", y->op,
                            "sectors_mean_a", mb_hist_mean(&x->sectors), "sectors_mean_b",
                            mb_hist_mean(&y->sectors), "sectors_tv", ts, "lines_mean_a", la,
                            "lines_mean_b", lb, "bank_mean_a",
                            mb_hist_mean(&x->bank_conflicts), "bank_mean_b",
                            mb_hist_mean(&y->bank_conflicts), "bank_tv", tb, "bank_cc1x_mean_a", ca,
                            "bank_cc1x_mean_b", cb, "addresses_mean_a", aa, "addresses_mean_b", ab));
        if (!c->tol)
            continue;
        if (strcmp(x->space, y->space) != 0 || strcmp(x->op, y->op) != 0)
            violate(c, "%smemory access at line %d (block %d): %s %s vs %s %s", w, x->line, blk,
                    x->space, x->op, y->space, y->op);
        else
            check_distributions(c, w, x, y, blk, ts, tb);
    }
}

/* The launch's mix: every function's summed, by name. */
static mb_status mix_sum(const mb_sprof *p, int opcodes, mb_sprof_mix *out)
{
    size_t cap = 0;
    for (size_t f = 0; f < p->nfuncs; f++)
        cap += opcodes ? p->funcs[f].opcodes.n : p->funcs[f].classes.n;
    out->n = 0;
    out->name = calloc(cap + 1, sizeof(*out->name));
    out->count = calloc(cap + 1, sizeof(*out->count));
    if (!out->name || !out->count)
        return MB_ERR_NOMEM;
    for (size_t f = 0; f < p->nfuncs; f++) {
        const mb_sprof_mix *m = opcodes ? &p->funcs[f].opcodes : &p->funcs[f].classes;
        for (size_t i = 0; i < m->n; i++) {
            size_t k = 0;
            while (k < out->n && strcmp(out->name[k], m->name[i]))
                k++;
            if (k == out->n)
                out->name[out->n++] = m->name[i];
            out->count[k] += m->count[i];
        }
    }
    return MB_OK;
}

static void mix_free(mb_sprof_mix *m)
{
    free(m->name);
    free(m->count);
}

/* B's function of A's function fi: the same name (clones keep them). */
static const mb_sprof_func *func_named(const mb_sprof *p, const char *name)
{
    for (size_t i = 0; i < p->nfuncs; i++)
        if (!strcmp(p->funcs[i].name, name))
            return &p->funcs[i];
    return NULL;
}

/* Same CFG in every function: the kernel's, then each called function's. */
static int same_cfgs(const mb_sprof *pa, const mb_sprof *pb, char *why, size_t n)
{
    if (!same_cfg(mb_sprof_kernel(pa), mb_sprof_kernel(pb), why, n))
        return 0;
    if (pa->nfuncs != pb->nfuncs) {
        snprintf(why, n, "%zu functions vs %zu", pa->nfuncs, pb->nfuncs);
        return 0;
    }
    for (size_t fi = 1; fi < pa->nfuncs; fi++) {
        const mb_sprof_func *fb = func_named(pb, pa->funcs[fi].name);
        char sub[200];
        if (!fb) {
            snprintf(why, n, "function %s missing in B", pa->funcs[fi].name);
            return 0;
        }
        if (!same_cfg(&pa->funcs[fi], fb, sub, sizeof sub)) {
            if (snprintf(why, n, "function %s: %s", pa->funcs[fi].name, sub) >= (int)n)
                why[n - 1] = '\0'; /* cut: the message stays readable */
            return 0;
        }
    }
    snprintf(why, n, "same");
    return 1;
}

/* The share (0..1) of each name of `sum` (A's launch mix of classes, or of
 * opcodes with `opcodes`) that a clone of
 * A at reduction r should run: every block's classes weighted by its
 * expected ECount over its own, since the loops shrink by r and the code
 * around them does not. NULL when out of memory. */
static double *mix_expected(const mb_sprof *p, double r, int opcodes, const mb_sprof_mix *sum)
{
    double *want = calloc(sum->n + 1, sizeof(*want)), total = 0;
    if (!want)
        return NULL;
    for (size_t f = 0; f < p->nfuncs; f++)
        for (size_t b = 0; b < p->funcs[f].nblocks; b++) {
            const mb_sprof_block *x = &p->funcs[f].blocks[b];
            if (!x->ecount)
                continue;
            double w = mb_sprof_expected_ecount_in(p, f, (int)b, r) / (double)x->ecount;
            const mb_sprof_mix *m = opcodes ? &x->opcodes : &x->classes;
            for (size_t i = 0; i < sum->n; i++) {
                double n = w * (double)mix_get(m, sum->name[i]);
                want[i] += n;
                total += n;
            }
        }
    for (size_t i = 0; i < sum->n; i++)
        want[i] = total > 0 ? want[i] / total : 0;
    return want;
}

/* Two mixes side by side. `want` (shares A's clone at the reduction
 * should have, parallel to A's names; NULL at R = 1, where that is A's
 * own mix) adds a column and is what a check holds B to. */
static void compare_mix(cmp_ctx *c, const char *title, const mb_sprof_mix *a,
                        const mb_sprof_mix *b, int check, const double *want, json_t *jarr)
{
    double ta = (double)mix_total(a), tb = (double)mix_total(b);
    out(c, "\n%s (percent of thread instructions)\n  %-14s %9s", title, "name", "A");
    if (want)
        out(c, " %9s", "A at R");
    out(c, " %9s %8s\n", "B", "diff");
    /* every name of A, then the names only B has */
    for (int pass = 0; pass < 2; pass++) {
        const mb_sprof_mix *m = pass ? b : a;
        for (size_t i = 0; i < m->n; i++) {
            if (pass && mix_get(a, m->name[i]))
                continue;
            double pa = ta > 0 ? 100 * (double)mix_get(a, m->name[i]) / ta : 0;
            double pb = tb > 0 ? 100 * (double)mix_get(b, m->name[i]) / tb : 0;
            if (pass && pb == 0)
                continue;
            double pw = want && !pass ? 100 * want[i] : want ? 0 : pa;
            out(c, "  %-14s %9.3f", m->name[i], pa);
            if (want)
                out(c, " %9.3f", pw);
            out(c, " %9.3f %+8.3f\n", pb, pb - pw);
            json_t *row = json_pack("{s:s, s:f, s:f, s:f}", "name", m->name[i], "percent_a", pa,
                                    "percent_b", pb, "diff", pb - pw);
            if (row && want)
                json_object_set_new(row, "percent_a_at_r", json_real(pw));
            json_array_append_new(jarr, row);
            if (check && c->tol && fabs(pb - pw) > 100 * c->tol->mix_pts + 1e-9)
                violate(c, "instruction mix: %s %.2f%% vs %.2f%% (%+.2f points, tolerance %.0f)%s",
                        m->name[i], pw, pb, pb - pw, 100 * c->tol->mix_pts,
                        want ? " at the reduction" : "");
        }
    }
}

mb_status mb_sprof_compare(const mb_sprof *pa, const mb_sprof *pb, const mb_compare_tolerance *tol,
                           mb_buf *text, mb_buf *json, char *violation, size_t violation_size,
                           mb_error *err)
{
    if (violation && violation_size)
        violation[0] = '\0';
    const mb_sprof_func *a = mb_sprof_kernel(pa), *b = mb_sprof_kernel(pb);
    json_t *root = json_object(), *viol = json_array();
    if (!root || !viol) {
        json_decref(root);
        json_decref(viol);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    json_t *resolution = json_array();
    if (!resolution) {
        json_decref(root);
        json_decref(viol);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    cmp_ctx c = {tol, text, viol, resolution, violation, violation_size};
    char why[200];
    int cfg_same = same_cfgs(pa, pb, why, sizeof why);
    out(&c, "A: %s (kernel %s)\nB: %s (kernel %s)\n", pa->path ? pa->path : "-", pa->kernel,
        pb->path ? pb->path : "-", pb->kernel);
    out(&c, "\n%-22s %16s %16s %9s\n", "", "A", "B", "rel");
    out(&c, "%-22s %5u x %4u x %3u %5u x %4u x %3u\n", "grid", pa->grid[0], pa->grid[1],
        pa->grid[2], pb->grid[0], pb->grid[1], pb->grid[2]);
    out(&c, "%-22s %5u x %4u x %3u %5u x %4u x %3u\n", "block", pa->block[0], pa->block[1],
        pa->block[2], pb->block[0], pb->block[1], pb->block[2]);
    out(&c, "%-22s %16llu %16llu %+9.4f\n", "thread instructions",
        (unsigned long long)pa->thread_insts, (unsigned long long)pb->thread_insts,
        rel((double)pa->thread_insts, (double)pb->thread_insts));
    out(&c, "%-22s %16llu %16llu %+9.4f\n", "warp instructions",
        (unsigned long long)pa->warp_insts, (unsigned long long)pb->warp_insts,
        rel((double)pa->warp_insts, (double)pb->warp_insts));
    out(&c, "%-22s %s\n", "CFG", why);
    json_object_set_new(root, "a", json_string(pa->path ? pa->path : ""));
    json_object_set_new(root, "b", json_string(pb->path ? pb->path : ""));
    json_object_set_new(root, "cfg_equal", json_boolean(cfg_same));
    json_object_set_new(root, "cfg", json_string(why));
    json_object_set_new(root, "thread_insts_a", json_integer((json_int_t)pa->thread_insts));
    json_object_set_new(root, "thread_insts_b", json_integer((json_int_t)pb->thread_insts));
    json_object_set_new(root, "warp_insts_a", json_integer((json_int_t)pa->warp_insts));
    json_object_set_new(root, "warp_insts_b", json_integer((json_int_t)pb->warp_insts));
    if (tol) {
        if (memcmp(pa->grid, pb->grid, sizeof pa->grid) || memcmp(pa->block, pb->block, sizeof pa->block))
            violate(&c, "grid or CTA dimensions differ");
        if (!cfg_same)
            violate(&c, "CFG differs: %s", why);
        double tr = rel((double)pa->thread_insts, (double)pb->thread_insts);
        if (tol->reduction == 1 && fabs(tr) > tol->totals_rel)
            violate(&c, "thread instructions %llu vs %llu (%+.2f%%, tolerance %.0f%% at R = 1)",
                    (unsigned long long)pa->thread_insts, (unsigned long long)pb->thread_insts,
                    100 * tr, 100 * tol->totals_rel);
    }
    json_t *jblocks = json_array(), *jbr = json_array(), *jmem = json_array(),
           *jcls = json_array(), *jops = json_array();
    if (cfg_same) {
        compare_blocks(&c, pa, 0, a, b, jblocks);
        compare_branches(&c, pa, 0, a, b, jbr);
        compare_memory(&c, pa, 0, a, b, jmem);
        for (size_t fi = 1; fi < pa->nfuncs; fi++) {
            const mb_sprof_func *fa = &pa->funcs[fi], *fb = func_named(pb, fa->name);
            out(&c, "\nfunction %s: %llu calls in A, %llu in B\n", fa->name,
                (unsigned long long)fa->blocks[0].entries, (unsigned long long)fb->blocks[0].entries);
            compare_blocks(&c, pa, fi, fa, fb, jblocks);
            compare_branches(&c, pa, fi, fa, fb, jbr);
            compare_memory(&c, pa, fi, fa, fb, jmem);
        }
    } else {
        out(&c, "\n(blocks, branches and memory accesses are compared only when the CFGs match)\n");
    }
    /* the mixes are the launch's: every function's instructions */
    mb_sprof_mix ca = {0, NULL, NULL}, cb = ca, oa = ca, ob = ca;
    mb_status st = mix_sum(pa, 0, &ca);
    st = st == MB_OK ? mix_sum(pb, 0, &cb) : st;
    st = st == MB_OK ? mix_sum(pa, 1, &oa) : st;
    st = st == MB_OK ? mix_sum(pb, 1, &ob) : st;
    /* at R != 1 B is held to the mix A's blocks give at their expected counts */
    const double r = tol ? tol->reduction : 1;
    double *want_c = NULL, *want_o = NULL;
    if (st == MB_OK && r != 1 &&
        (!(want_c = mix_expected(pa, r, 0, &ca)) || !(want_o = mix_expected(pa, r, 1, &oa))))
        st = MB_ERR_NOMEM;
    if (st == MB_OK) {
        compare_mix(&c, "instruction classes", &ca, &cb, 1, want_c, jcls);
        compare_mix(&c, "opcodes", &oa, &ob, 0, want_o, jops);
    }
    free(want_c);
    free(want_o);
    mix_free(&ca);
    mix_free(&cb);
    mix_free(&oa);
    mix_free(&ob);
    json_object_set_new(root, "blocks", jblocks);
    json_object_set_new(root, "branches", jbr);
    json_object_set_new(root, "memory", jmem);
    json_object_set_new(root, "classes", jcls);
    json_object_set_new(root, "opcodes", jops);
    if (tol) {
        out(&c, "\ncheck: %s\n",
            json_array_size(viol) ? "FAILED" : "all statistics within tolerance");
        size_t i;
        json_t *v;
        json_array_foreach(viol, i, v) out(&c, "  %s\n", json_string_value(v));
        if (json_array_size(resolution))
            out(&c, "within tolerance only as near as their counts allow:\n");
        json_array_foreach(resolution, i, v) out(&c, "  %s\n", json_string_value(v));
        json_object_set_new(root, "violations", viol);
        json_object_set_new(root, "at_resolution", resolution);
    } else {
        json_decref(viol);
        json_decref(resolution);
    }
    if (json) {
        char *s = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
        if (s) {
            mb_buf_puts(json, s);
            mb_buf_putc(json, '\n');
            free(s);
        }
    }
    json_decref(root);
    if (st != MB_OK || (text && text->failed) || (json && json->failed))
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    return MB_OK;
}
