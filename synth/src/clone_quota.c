/* Per-request quotas (PLAN_QUOTA): sectors of non-affine local accesses,
 * bank-conflict degrees of non-affine shared ones.
 *
 * Local memory is interleaved by lane (docs/formats.md), so a request
 * touches one sector per distinct (word, 8-lane group). Every lane has two
 * words: its own (word `lane`) and its group's common word (that of the
 * group's last lane, `lane | 7`). Lanes are ranked round-robin over the
 * groups, r = 4 * (lane & 7) + 3 - (lane >> 3), so that rank r < 28 is the
 * lane that brings a full warp's request to r + 5 sectors; the first group,
 * which partial warps keep longest, comes last, so such warps touch few
 * sectors, as the original's do. A lane uses its own word when the
 * request's position x reaches its threshold.
 *
 * Positions scramble the request index (warp, iterations of the access's
 * loop the thread finished). Sorted by position, the full warps take the
 * profiled values (less the share the original's partial warps had, scaled
 * to the clone's request count) in ascending order, and rank r's threshold
 * is the first position whose value exceeds r + 4: a full warp touches
 * exactly its quota, and the clone's histogram is the original's up to the
 * rounding of its own request count. Partial warps touch what their lanes
 * can; of the scramble's offsets, the one whose plans come closest to the
 * profile is kept.
 *
 * Shared accesses (qbank) take the same per-request scheme for their
 * bank-conflict degrees: lane l's own word is l (bank l), its other word
 * is on bank 0, row l, where lane 0's own word is; rank l - 1 is the lane
 * that brings a full warp's degree to l + 1 (lanes in ascending order, so
 * the first lanes, which partial warps keep, pile up first and a half-warp
 * checked alone holds the conflict too). The comparison is turned round:
 * a lane moves while the position is below its threshold (the full warps
 * take their degrees in descending order), so that a field of zeros, what
 * a shift past the table reads, never moves a lane: ranks above the
 * table's levels need no clamp, and lanes past the array's rows, whose
 * levels no quota reaches, never leave their own word.
 *
 * The thresholds of an access are fields of one 64-bit table (an immediate)
 * that a per-thread shift brings to the top; accesses share the shift when
 * one window of fields holds their variable levels. */
#include "clone_ctx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define QUOTA_LEVELS 33   /* sector counts or degrees 0..32 */
#define QUOTA_MAX_BITS 16
#define QUOTA_TOLERANCE 0.05 /* compare's tolerance on these distributions */
#define QUOTA_REFINE_WORK (UINT64_C(1) << 17) /* lane evaluations one refinement may take */

typedef struct qreq {
    uint32_t idx, x, mask; /* request index, its position, active lanes */
    uint32_t idx_b;        /* the index counted by runs of the access's block */
} qreq;

typedef struct qacc {
    int mem, block, pos;
    int bank;             /* bank-conflict degrees (else sectors) */
    int layout;           /* bank: QLAYOUT_* */
    int level0;           /* the level of rank 0 */
    int qmin, qmax;       /* the values a full warp can take */
    const mb_hist *h;     /* the profiled values */
    qreq *req;
    size_t n, cap;
    uint32_t *mask_by_j;  /* the current warp's lanes per iteration */
    uint32_t *runs_by_j;  /* their earlier runs of the block (one value) */
    size_t nj, jcap;
    uint32_t jmax, jmax_b;
    int mixed;            /* a request's lanes had run the block unequally often */
    uint32_t thr[QUOTA_LEVELS]; /* threshold per level (level0..32), in positions */
    int lo, hi;           /* its variable levels (lo > hi: none) */
} qacc;

typedef struct qrun {
    qacc *acc;
    size_t nacc;
    uint32_t warps;
    uint32_t *latches;    /* per loop: iterations the current thread finished */
    mb_status st;
} qrun;

static void flush_warp(ctx *c, void *arg, uint32_t warp)
{
    qrun *q = arg;
    for (size_t a = 0; a < q->nacc && q->st == MB_OK; a++) {
        qacc *A = &q->acc[a];
        for (size_t j = 0; j < A->nj; j++) {
            if (!A->mask_by_j[j])
                continue;
            if (MB_GROW(A->req, A->cap, A->n + 1) != MB_OK) {
                q->st = cx_nomem(c);
                return;
            }
            /* the request index; scrambled into a position once all are known */
            A->req[A->n].idx = warp + (uint32_t)j * q->warps;
            A->req[A->n].idx_b = warp + A->runs_by_j[j] * q->warps;
            A->req[A->n++].mask = A->mask_by_j[j];
            if (j > A->jmax)
                A->jmax = (uint32_t)j;
            if (A->runs_by_j[j] > A->jmax_b)
                A->jmax_b = A->runs_by_j[j];
            A->mask_by_j[j] = 0;
        }
        A->nj = 0;
    }
}

static void thread_begin(ctx *c, void *arg, uint32_t t)
{
    qrun *q = arg;
    (void)t;
    memset(q->latches, 0, (c->nloops + 1) * sizeof(uint32_t));
}

static void visit(ctx *c, void *arg, uint32_t t, int block, const uint32_t *runs)
{
    qrun *q = arg;
    if (q->st != MB_OK)
        return;
    const uint32_t lane = c->kf[t] & 31;
    for (size_t a = 0; a < q->nacc; a++) {
        qacc *A = &q->acc[a];
        if (A->block != block)
            continue;
        size_t j = A->pos > 0 ? q->latches[A->pos - 1] : 0;
        if (j >= A->nj) {
            size_t cap = A->jcap;
            if (MB_GROW(A->mask_by_j, cap, j + 1) != MB_OK ||
                MB_GROW(A->runs_by_j, A->jcap, j + 1) != MB_OK) {
                q->st = cx_nomem(c);
                return;
            }
            memset(A->mask_by_j + A->nj, 0, (j + 1 - A->nj) * sizeof(uint32_t));
            A->nj = j + 1;
        }
        if (!A->mask_by_j[j])
            A->runs_by_j[j] = runs[block];
        else if (A->runs_by_j[j] != runs[block])
            A->mixed = 1;
        A->mask_by_j[j] |= UINT32_C(1) << lane;
    }
    for (size_t l = 0; l < c->nloops; l++)
        if (c->latch[l][block])
            q->latches[l]++;
}

/* Whether rank `rank` uses its own word (bank: its bank-0 word) at position x. */
static int lane_new(const qacc *A, uint32_t x, int rank)
{
    int level = rank + A->level0;
    return level < QUOTA_LEVELS && (A->bank ? x < A->thr[level] : x >= A->thr[level]);
}

/* The thresholds that make a level always and never used: bank accesses
 * compare the other way round. */
static uint32_t thr_always(const qacc *A, uint32_t never)
{
    return A->bank ? never : 0;
}

static uint32_t thr_none(const qacc *A, uint32_t never)
{
    return A->bank ? 0 : never;
}

/* Lane l's index in a bank quota's layout (QLAYOUT_*): its own word and
 * its bank-0 row; its rank is one less (-1: it never moves). */
static int bank_index(int layout, int l)
{
    return layout == QLAYOUT_PILED ? l : l & 15;
}

/* The bank-conflict degree of a request at position x with lanes `mask`:
 * the distinct words on bank 0 (no other bank holds two). Lane 0's own word
 * is row 0 of bank 0; every other lane's own word is alone on its bank. */
static int realized_bank(const qacc *A, uint32_t x, uint32_t mask)
{
    uint32_t rows = 0;
    for (int l = 0; l < 32; l++)
        if (mask >> l & 1) {
            int i = bank_index(A->layout, l);
            if (i > 0 && lane_new(A, x, i - 1))
                rows |= UINT32_C(1) << i; /* below qmax: no quota reaches higher lanes */
            else if (i == 0)
                rows |= 1; /* its own word, word 0 */
        }
    const int n = (int)mb_popcount32(rows);
    return n ? n : mask != 0;
}

/* What the request costs under the 1.x rule (the profile's
 * bank_cycles_cc1x): on 16 banks, rows of bank 0 (32 words apart) stay on
 * bank 0 and own word w goes to bank w mod 16, so in each half-warp bank 0
 * holds the moved lanes' rows and the own word of a lane 0 or 16 that did
 * not move (word 0, or lane 16's word 16 when piled), and every other bank
 * one word. */
static int realized_cc1x(const qacc *A, uint32_t x, uint32_t mask)
{
    int cycles = 0;
    for (int h = 0; h < 2; h++) {
        uint32_t half = mask >> (16 * h) & 0xFFFFu;
        if (!half)
            continue;
        uint64_t words = 0; /* bit r: row r; bit 32: word 16 */
        for (int i = 0; i < 16; i++)
            if (half >> i & 1) {
                int l = 16 * h + i, k = bank_index(A->layout, l);
                if (k > 0 && lane_new(A, x, k - 1))
                    words |= UINT64_C(1) << k;
                else if (i == 0)
                    words |= k == 0 ? 1 : UINT64_C(1) << 32; /* word 0, or word 16 */
            }
        const int n = (int)mb_popcount64(words);
        cycles += n ? n : 1;
    }
    return cycles;
}

/* The mean cost under the 1.x rule of A's requests as planned, and the
 * profile's; 0 when the profile has none. */
static int cc1x_means(const qacc *A, const mb_hist *h, double *planned, double *profiled)
{
    if (mb_hist_total(h) == 0 || A->n == 0)
        return 0;
    *profiled = mb_hist_mean(h);
    double s = 0;
    for (size_t k = 0; k < A->n; k++)
        s += realized_cc1x(A, A->req[k].x, A->req[k].mask);
    *planned = s / (double)A->n;
    return 1;
}

/* The lines a local request at position x with lanes `mask` touches with
 * `classes` word classes (cx_quota_word): one per distinct word
 * (interleaved by lane, a word's 32 lanes fill one line). */
static int realized_lines(const qacc *A, uint32_t x, uint32_t mask, int classes)
{
    uint32_t words = 0;
    for (int l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        int p = l & 7, g = l >> 3;
        int own = p != 7 && lane_new(A, x, 4 * p + 3 - g);
        words |= UINT32_C(1) << cx_quota_word((uint32_t)l, classes, !own);
    }
    return (int)mb_popcount32(words);
}

/* The value a request at position x with lanes `mask` takes: local, the
 * sectors it touches, one per distinct (word, group), which are the lines
 * when every group has words of its own; shared, its bank-conflict degree. */
static int realized(const qacc *A, uint32_t x, uint32_t mask)
{
    return A->bank ? realized_bank(A, x, mask) : realized_lines(A, x, mask, 4);
}

/* The word classes of local access A whose planned lines per request come
 * nearest, on average, the profiled ones: sectors are (word, 8-lane group)
 * pairs however the groups share words, lines the distinct words, so
 * groups that share words share lines, as the original's lanes did when
 * they read the same counter. Each choice costs per-thread words, so one
 * the earlier accesses made (`used`, bit k) is kept when it comes within
 * half a line, or 5%, of the best; every group its own words on a tie. */
static int choose_word_classes(const qacc *A, const mb_hist *lines, uint32_t *used)
{
    if (A->bank || A->n == 0 || mb_hist_total(lines) == 0)
        return 0;
    const double want = mb_hist_mean(lines);
    double err[5] = {0};
    int best = 4;
    for (int k = 4; k >= 1; k--) {
        double s = 0;
        for (size_t i = 0; i < A->n; i++)
            s += realized_lines(A, A->req[i].x, A->req[i].mask, k);
        err[k] = fabs(s / (double)A->n - want);
        if (err[k] < err[best] - 1e-9)
            best = k;
    }
    const double slack = want * 0.05 > 0.5 ? want * 0.05 : 0.5;
    for (int k = 4; k >= 1; k--)
        if (k != best && (*used >> k & 1) && !(*used >> best & 1) && err[k] <= err[best] + slack)
            best = k;
    *used |= UINT32_C(1) << best;
    return best == 4 ? 0 : best;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_req(const void *a, const void *b)
{
    return cmp_u32(&((const qreq *)a)->x, &((const qreq *)b)->x);
}

/* Whether a request with lanes `mask` can take every value of A: a full
 * warp (local), or one holding the lanes that pile up to the highest
 * degree (shared). */
static int can_take_all(const qacc *A, uint32_t mask)
{
    if (!A->bank)
        return mask == UINT32_MAX;
    uint32_t need = A->qmax >= 32 ? UINT32_MAX : (UINT32_C(1) << A->qmax) - 1;
    return (mask & need) == need;
}

/* The full warps' quotas: the profiled histogram less the share of the
 * partial warps, scaled to nf values a full warp can take (qmin to qmax)
 * by largest remainders, ascending. The partial warps' share is the
 * histogram's lowest (n - nf) / n (the original's partial warps touched
 * least, in the same proportion as the clone's), or, for a level `partial`
 * of 0 or more, n - nf requests there: what the clone's partial warps
 * would then touch. */
static void full_quotas(const qacc *A, size_t n, size_t nf, int partial, uint32_t *q)
{
    const mb_hist *h = A->h;
    int qmin = A->qmin, qmax = A->qmax;
    double mass[QUOTA_LEVELS] = {0}, total = 0;
    uint32_t count[QUOTA_LEVELS] = {0};
    for (size_t i = 0; i < h->n; i++) {
        if (partial >= 0 && (h->key[i] < 0 || h->key[i] >= QUOTA_LEVELS))
            continue;
        int64_t v = partial >= 0 ? h->key[i] : h->key[i] < qmin ? qmin : h->key[i] > qmax ? qmax : h->key[i];
        mass[v] += (double)h->count[i];
        total += (double)h->count[i];
    }
    if (partial >= 0) {
        double drop = total * (double)(n - nf) / (double)n;
        mass[partial] = mass[partial] > drop ? mass[partial] - drop : 0;
        total = 0;
        for (int v = 0; v < QUOTA_LEVELS; v++) {
            if (v < qmin || v > qmax)
                mass[v] = 0;
            total += mass[v];
        }
    } else {
        double drop = n ? total * (double)(n - nf) / (double)n : 0;
        for (int v = qmin; v <= qmax && drop > 0; v++) {
            double d = mass[v] < drop ? mass[v] : drop;
            mass[v] -= d;
            total -= d;
            drop -= d;
        }
    }
    size_t given = 0;
    for (int v = qmin; v <= qmax; v++) {
        mass[v] = total > 0 ? mass[v] * (double)nf / total : 0;
        count[v] = (uint32_t)mass[v];
        mass[v] -= count[v];
        given += count[v];
    }
    while (given < nf) {
        int best = qmin;
        for (int v = qmin; v <= qmax; v++)
            if (mass[v] > mass[best])
                best = v;
        count[best]++;
        mass[best] -= 1;
        given++;
    }
    size_t k = 0;
    for (int v = qmin; v <= qmax; v++)
        for (uint32_t j = 0; j < count[v]; j++)
            q[k++] = (uint32_t)v;
}

/* Thresholds of access A from the full warps' quotas: `full` sorted by
 * position, q their quotas ascending, taken in that order (bank: in
 * descending order, a level used below its threshold). */
static void thresholds(qacc *A, const qreq *full, const uint32_t *q, size_t nf, uint32_t never)
{
    for (int level = 0; level < QUOTA_LEVELS; level++) {
        size_t below = 0;
        while (below < nf && q[below] < (uint32_t)level)
            below++;
        if (A->bank) {
            size_t reach = nf - below; /* the first `reach` full warps use it */
            A->thr[level] = reach == 0 ? 0 : reach == nf ? never : full[reach].x;
        } else {
            A->thr[level] = below == 0 ? 0 : below == nf ? never : full[below].x;
        }
    }
}

/* The levels whose threshold is neither 0 nor never. */
static void variable_range(qacc *A, uint32_t never)
{
    A->lo = QUOTA_LEVELS;
    A->hi = A->level0 - 1;
    for (int level = A->level0; level < QUOTA_LEVELS; level++)
        if (A->thr[level] != 0 && A->thr[level] != never) {
            if (level < A->lo)
                A->lo = level;
            A->hi = level;
        }
}

/* Trims A's variable levels to `fields` table fields (one more for the
 * clamp when they stop below 32), making the edge level that leaves fewer
 * full warps off their quota always or never used. */
static void trim(qacc *A, const uint32_t *q, size_t nf, int fields, uint32_t never)
{
    /* bank tables start at rank 0: only their top levels can go, never used */
    for (int level = 32; A->bank && level >= A->level0; level--)
        if (A->thr[level] != 0 && level - A->level0 + 1 > fields)
            A->thr[level] = 0;
    for (;;) {
        variable_range(A, never);
        if (A->lo > A->hi)
            return;
        if (A->bank || A->hi - A->lo + 1 + (A->hi < 32) <= fields)
            return;
        /* the full warps that no longer touch their quota */
        size_t at_lo = 0, at_hi = 0;
        for (size_t k = 0; k < nf; k++) {
            at_lo += q[k] < (uint32_t)A->lo;
            at_hi += q[k] >= (uint32_t)A->hi;
        }
        if (at_lo <= at_hi)
            A->thr[A->lo] = thr_always(A, never);
        else
            A->thr[A->hi] = thr_none(A, never);
    }
}

/* The table fields A's full warps' quotas need: a level between the
 * smallest and the largest, and the never-used field below 32. */
static int fields_needed(const qacc *A)
{
    size_t nf = 0;
    for (size_t k = 0; k < A->n; k++)
        nf += can_take_all(A, A->req[k].mask);
    if (nf == 0)
        return 0;
    uint32_t *q = malloc(nf * sizeof(uint32_t));
    if (!q)
        return 64;
    full_quotas(A, A->n, nf, -1, q);
    int need = A->bank ? (int)q[nf - 1] - A->level0 + 1 : (int)(q[nf - 1] - q[0]) + (q[nf - 1] < 32);
    free(q);
    return need;
}

/* The profiled histogram of A as shares per level. */
static void profile_shares(const qacc *A, double *share)
{
    const mb_hist *h = A->h;
    const double total = (double)mb_hist_total(h);
    memset(share, 0, QUOTA_LEVELS * sizeof(double));
    for (size_t i = 0; i < h->n; i++)
        if (h->key[i] >= 0 && h->key[i] < QUOTA_LEVELS)
            share[h->key[i]] += total > 0 ? (double)h->count[i] / total : 0;
}

/* The total-variation distance between `count` requests per level, n in
 * all, and the shares `share`. */
static double counts_tv(const double *share, const uint32_t *count, size_t n)
{
    double tv = 0;
    for (int v = 0; v < QUOTA_LEVELS; v++) {
        double d = share[v] - (n ? (double)count[v] / (double)n : 0);
        tv += d < 0 ? -d : d;
    }
    return tv / 2;
}

/* The total-variation distance between A's requests as planned and the
 * profiled histogram. */
static double plan_tv(const qacc *A)
{
    double share[QUOTA_LEVELS];
    uint32_t count[QUOTA_LEVELS] = {0};
    profile_shares(A, share);
    for (size_t k = 0; k < A->n; k++)
        count[realized(A, A->req[k].x, A->req[k].mask)]++;
    return counts_tv(share, count, A->n);
}

/* A threshold between two full warps' positions can be any value from the
 * lower one's plus one to the higher one's without moving a full warp; where
 * partial warps lie between, that choice is theirs: each variable level's
 * threshold is cut at the partial warp position that brings the plan
 * nearest the profile (every value below the cut on one side; the same
 * candidates serve both comparison directions). Only the partial warps in
 * the gap change value, so only theirs are counted again. */
static void place_partials(qacc *A, const qreq *full, const uint32_t *q, size_t nf)
{
    double share[QUOTA_LEVELS];
    uint32_t count[QUOTA_LEVELS] = {0};
    profile_shares(A, share);
    size_t *gap = malloc(A->n * sizeof(size_t));
    uint8_t *was = malloc(A->n);
    if (!gap || !was) {
        free(gap);
        free(was);
        return; /* the thresholds as they are */
    }
    for (size_t k = 0; k < A->n; k++)
        count[realized(A, A->req[k].x, A->req[k].mask)]++;
    double tv = counts_tv(share, count, A->n);
    for (int level = A->level0; level < QUOTA_LEVELS; level++) {
        size_t below = 0;
        while (below < nf && q[below] < (uint32_t)level)
            below++;
        size_t k = A->bank ? nf - below : below;
        if (k == 0 || k == nf || A->thr[level] != full[k].x)
            continue; /* fixed, or trimmed to a constant */
        const uint32_t lo = full[k - 1].x + 1, hi = full[k].x;
        size_t g = 0;
        for (size_t r = 0; r < A->n; r++)
            if (A->req[r].x >= lo && A->req[r].x < hi && !can_take_all(A, A->req[r].mask)) {
                was[g] = (uint8_t)realized(A, A->req[r].x, A->req[r].mask);
                gap[g++] = r;
            }
        uint32_t best = A->thr[level];
        for (size_t c = 0; c <= g; c++) {
            A->thr[level] = c < g ? A->req[gap[c]].x + 1 : lo;
            for (size_t i = 0; i < g; i++) {
                count[was[i]]--;
                count[realized(A, A->req[gap[i]].x, A->req[gap[i]].mask)]++;
            }
            double t = counts_tv(share, count, A->n);
            for (size_t i = 0; i < g; i++) {
                count[realized(A, A->req[gap[i]].x, A->req[gap[i]].mask)]--;
                count[was[i]]++;
            }
            if (t < tv - 1e-12) {
                tv = t;
                best = A->thr[level];
            }
        }
        A->thr[level] = best;
        for (size_t i = 0; i < g; i++) {
            count[was[i]]--;
            count[realized(A, A->req[gap[i]].x, A->req[gap[i]].mask)]++;
        }
    }
    free(gap);
    free(was);
}

/* Thresholds of A for the full warps' quotas q, trimmed to the table, with
 * the partial warps placed. */
static void apply_quotas(qacc *A, const qreq *full, const uint32_t *q, size_t nf, int fields,
                         uint32_t never)
{
    thresholds(A, full, q, nf, never);
    trim(A, q, nf, fields, never);
    if (nf < A->n)
        place_partials(A, full, q, nf);
}

/* Partial warps touch what their position among the full warps gives them,
 * which can leave the plan further from the profile than its request count
 * must (local_array's 8-lane warp at 7 sectors where 6 fits: 5.5% where
 * 4.7% can be reached). When the plan is outside compare's tolerance, the
 * full warps' quotas are made again for the partial warps at each level
 * they can touch (full_quotas), and the nearest plan kept. */
static void refine_quotas(qacc *A, const qreq *full, uint32_t *q, size_t nf, int fields,
                          uint32_t never)
{
    double tv = plan_tv(A);
    if (tv < QUOTA_TOLERANCE)
        return;
    uint32_t lanes = 0;
    for (size_t k = 0; k < A->n; k++)
        if (!can_take_all(A, A->req[k].mask) && mb_popcount32(A->req[k].mask) > lanes)
            lanes = mb_popcount32(A->req[k].mask);
    /* each value a plan of its own, for every offset tried: small plans only */
    if ((uint64_t)A->n * 32 * lanes > QUOTA_REFINE_WORK)
        return;
    uint32_t *alt = malloc(nf * sizeof(uint32_t));
    if (!alt)
        return; /* the plan as it is */
    int best = -1;
    for (int v = 1; v <= (int)lanes && v < QUOTA_LEVELS; v++) {
        full_quotas(A, A->n, nf, v, alt);
        apply_quotas(A, full, alt, nf, fields, never);
        double t = plan_tv(A);
        if (t < tv - 1e-12) {
            tv = t;
            best = v;
        }
    }
    if (best >= 0)
        full_quotas(A, A->n, nf, best, q);
    free(alt);
    apply_quotas(A, full, q, nf, fields, never);
}

/* A's thresholds: the full warps, in position order, take their quotas
 * (full_quotas) in ascending order; partial warps touch what their lanes
 * can under the same thresholds. */
static mb_status plan_access(ctx *c, qacc *A, const quota_pos *qp)
{
    uint32_t never = (UINT32_C(1) << qp->bits) - 1;
    for (size_t k = 0; k < A->n; k++)
        A->req[k].x = (A->req[k].idx * qp->mul + qp->add) & never;
    qsort(A->req, A->n, sizeof(qreq), cmp_req);
    uint32_t *qf = malloc((A->n + 1) * sizeof(uint32_t));
    qreq *full = calloc(A->n + 1, sizeof(qreq));
    if (!qf || !full) {
        free(qf);
        free(full);
        return cx_nomem(c);
    }
    size_t nf = 0;
    for (size_t k = 0; k < A->n; k++)
        if (can_take_all(A, A->req[k].mask))
            full[nf++] = A->req[k];
    full_quotas(A, A->n, nf, -1, qf);
    apply_quotas(A, full, qf, nf, 64 / qp->bits, never);
    if (nf < A->n)
        refine_quotas(A, full, qf, nf, 64 / qp->bits, never);
    variable_range(A, never);
    if (A->bank) {
        /* its table: every level from rank 0's up to the last one used */
        A->lo = A->level0;
        A->hi = A->level0 - 1;
        for (int level = A->level0; level < QUOTA_LEVELS; level++)
            if (A->thr[level] != 0)
                A->hi = level;
    } else if (A->lo > A->hi) {
        /* one count for every full warp: every level up to it always used */
        int q = A->level0 - 1;
        for (int level = A->level0; level < QUOTA_LEVELS; level++)
            if (A->thr[level] == thr_always(A, never))
                q = level;
        A->lo = q + 1 > 32 ? 32 : q + 1;
        A->hi = A->lo - 1;
    }
    free(qf);
    free(full);
    return MB_OK;
}

/* Groups the accesses of one field width into windows, in program order
 * (a window serves an access whose variable levels it covers), and writes
 * each access's table; the host's thresholds become what the PTX computes. */
static mb_status plan_windows(ctx *c, qacc *acc, size_t nacc)
{
    for (size_t a = 0; a < nacc; a++) {
        qacc *A = &acc[a];
        memplan *pl = &c->plans[A->mem];
        int bits = c->qpos[A->pos].bits, fields = 64 / bits;
        uint32_t never = (UINT32_C(1) << bits) - 1;
        int w = -1;
        for (size_t k = c->nqwin; k-- > 0 && w < 0;)
            if (c->qwin[k].bits == bits && c->qwin[k].level0 == A->level0 && c->qwin[k].lo <= A->lo &&
                A->hi <= c->qwin[k].hi)
                w = (int)k;
        if (w < 0) {
            if (c->nqwin == sizeof c->qwin / sizeof c->qwin[0])
                return mb_error_set(c->err, MB_ERR_LIMIT, "", 0, 0,
                                    "kernel %s: more than %zu local address windows", c->p->kernel,
                                    c->nqwin);
            /* reaching up as far as the table allows: later accesses tend
             * to touch more sectors (counters filling up) */
            quota_win *W = &c->qwin[c->nqwin];
            W->bits = bits;
            W->level0 = A->level0;
            W->bank = A->bank;
            W->lo = A->lo;
            W->hi = A->lo + fields - 2; /* the last field: never used */
            if (A->bank) {
                W->hi = A->lo + fields - 1; /* past it: zeros, never used */
                if (W->hi > 32)
                    W->hi = 32;
            } else if (A->lo + fields - 1 >= 32) {
                W->hi = 32; /* no rank above it: no field for them */
                if (W->lo > 33 - fields)
                    W->lo = 33 - fields;
            }
            w = (int)c->nqwin++;
        }
        const quota_win *W = &c->qwin[w];
        int n = W->hi - W->lo + 1;
        uint64_t imm = 0;
        for (int k = 0; k < n; k++)
            imm |= (uint64_t)(A->thr[W->lo + k] & never) << (bits * k);
        if (W->hi < 32 && !W->bank)
            imm |= (uint64_t)never << (bits * n);
        pl->qimm = imm;
        pl->qwin = w;
        for (int level = A->level0; level < QUOTA_LEVELS; level++) {
            int32_t s = cx_quota_shift(W, level - A->level0);
            uint64_t t = (uint32_t)s >= 64 ? 0 : imm << (uint32_t)s;
            A->thr[level] = (uint32_t)(t >> (64 - bits));
        }
    }
    return MB_OK;
}

/*
 * The lane layout of the bank quotas (the same for all, so that their
 * windows share the lanes' ranks). The full warp's degree is the same in
 * both (a moved lane l + 16 takes the row of lane l); what differs is the
 * cost on a machine that serves half-warps on 16 banks (compute capability
 * 1.x, the simulator's presets): d + 1 for a degree d piled into the first
 * half, 2d with both halves alike. The layout whose planned costs come
 * nearest the profiled bank_cycles_cc1x is kept, piled on a tie or without
 * the statistic; both halves alike needs every profiled degree within 16.
 */
static void choose_layout(ctx *c, qacc *acc, size_t nacc)
{
    int best = QLAYOUT_PILED, usable = 0;
    double best_err = 0;
    /* (rows l mod 16 reach degree 16 at most) */
    for (size_t a = 0; a < nacc && usable >= 0; a++)
        if (acc[a].bank) {
            const mb_hist *h = acc[a].h;
            int64_t top = 0;
            for (size_t i = 0; i < h->n; i++)
                top = h->count[i] && h->key[i] > top ? h->key[i] : top;
            usable = top <= 16 ? 1 : -1;
        }
    for (int layout = QLAYOUT_PILED; layout <= QLAYOUT_HALVES; layout++) {
        if (layout != QLAYOUT_PILED && usable <= 0)
            break;
        double err = 0;
        int measured = 0;
        for (size_t a = 0; a < nacc; a++) {
            if (!acc[a].bank)
                continue;
            acc[a].layout = layout;
            double planned, profiled;
            if (cc1x_means(&acc[a], &c->f->mem[acc[a].mem].bank_cycles_cc1x, &planned, &profiled)) {
                err += fabs(planned - profiled);
                measured = 1;
            }
        }
        if (!measured)
            break;
        if (layout == QLAYOUT_PILED || err < best_err - 1e-9) {
            best = layout;
            best_err = err;
        }
    }
    c->qlayout = best;
    for (size_t a = 0; a < nacc; a++)
        if (acc[a].bank)
            acc[a].layout = best;
}

/* The plans of position l's accesses with its scramble as set: the sum of
 * their distances from the profile, an access beyond compare's tolerance
 * counting most. */
static mb_status scramble_cost(ctx *c, qrun *q, size_t l, double *cost)
{
    *cost = 0;
    for (size_t a = 0; a < q->nacc; a++)
        if (q->acc[a].pos == (int)l) {
            mb_status st = plan_access(c, &q->acc[a], &c->qpos[l]);
            if (st != MB_OK)
                return st;
            double d = plan_tv(&q->acc[a]);
            *cost += d >= QUOTA_TOLERANCE ? 1 + d : d;
        }
    return MB_OK;
}

/* Where partial warps land decides what they touch: of the offsets that
 * keep full warps off the sentinel (an unused index, or a partial warp's,
 * on it), the one whose plans come closest to the profile (the first 64,
 * fewer for many requests). The golden-ratio multiplier is tried first;
 * the others, which spread a warp's quotas less evenly, only while an
 * access stays beyond the tolerance. */
static mb_status choose_scramble(ctx *c, qrun *q, size_t l, uint64_t nidx)
{
    static const double fractions[] = {0.6180339887, 0.7548776662, 0.5698402910, 0.4142135624,
                                       0.3247179572};
    quota_pos *P = &c->qpos[l];
    uint32_t mod = (UINT32_C(1) << P->bits) - 1, best_add = P->add, best_mul = P->mul;
    double best = 1e300;
    /* a few million lane evaluations at most */
    uint64_t work = 1, limit = 64;
    for (size_t a = 0; a < q->nacc; a++)
        if (q->acc[a].pos == (int)l)
            work += q->acc[a].n * 32;
    if (work * limit > (UINT64_C(1) << 24))
        limit = (UINT64_C(1) << 24) / work + 1;
    /* other multipliers only while the offsets' work stays small */
    const size_t nfrac = work * limit * 8 <= (UINT64_C(1) << 24) ? sizeof fractions / sizeof fractions[0] : 1;
    for (size_t f = 0; f < nfrac && best >= 1; f++) {
        P->mul = ((uint32_t)((double)(mod + 1) * fractions[f]) | 1) & mod;
        if (f > 0 && P->mul == best_mul)
            continue;
        for (uint64_t u = 0, tried = 0; u <= mod && tried < limit; u++) {
            int ok = u >= nidx;
            for (size_t a = 0; a < q->nacc && !ok; a++)
                for (size_t k = 0; q->acc[a].pos == (int)l && k < q->acc[a].n; k++)
                    if (q->acc[a].req[k].idx == u) {
                        ok = !can_take_all(&q->acc[a], q->acc[a].req[k].mask);
                        break;
                    }
            if (!ok)
                continue;
            P->add = (mod - (((uint32_t)u * P->mul) & mod)) & mod;
            double cost;
            mb_status st = scramble_cost(c, q, l, &cost);
            if (st != MB_OK)
                return st;
            tried++;
            if (cost < best - 1e-12) {
                best = cost;
                best_add = P->add;
                best_mul = P->mul;
            }
        }
    }
    P->mul = best_mul;
    P->add = best_add;
    P->step = (q->warps * P->mul) & mod;
    return MB_OK;
}

int32_t cx_quota_shift(const quota_win *W, int rank)
{
    int32_t s = 64 - W->bits + W->bits * (W->lo - W->level0) - W->bits * rank;
    int32_t floor = 64 - W->bits * (W->hi - W->lo + 2);
    return W->hi < 32 && !W->bank && s < floor ? floor : s;
}

mb_status cx_plan_quotas(ctx *c)
{
    size_t nacc = 0;
    for (size_t i = 0; i < c->f->nmem; i++)
        nacc += c->plans[i].kind == PLAN_QUOTA && c->plans[i].qshare < 0;
    if (nacc == 0)
        return MB_OK;
    c->qpos = mb_arena_alloc(c->A, (c->nloops + 1) * sizeof(quota_pos));
    qrun q;
    memset(&q, 0, sizeof q);
    q.acc = calloc(nacc, sizeof(qacc));
    q.latches = calloc(c->nloops + 1, sizeof(uint32_t));
    uint64_t *nidx = calloc(c->nloops + 1, sizeof(uint64_t));
    double *ecount = malloc((c->nb + 1) * sizeof(double));
    mb_status st = MB_OK;
    if (!c->qpos || !q.acc || !q.latches || !ecount || !nidx)
        st = cx_nomem(c);
    else
        memset(c->qpos, 0, (c->nloops + 1) * sizeof(quota_pos));
    for (uint32_t t = 0; st == MB_OK && t < c->nthreads; t++)
        if ((c->kf[t] >> 5) + 1 > q.warps)
            q.warps = (c->kf[t] >> 5) + 1;
    for (size_t i = 0; st == MB_OK && i < c->f->nmem; i++) {
        memplan *pl = &c->plans[i];
        if (pl->kind != PLAN_QUOTA || pl->qshare >= 0)
            continue;
        qacc *A = &q.acc[q.nacc++];
        A->mem = (int)i;
        A->block = cx_mem_block(c, pl->mem);
        A->pos = cx_block_loop(c, A->block) + 1;
        A->bank = pl->qbank;
        A->level0 = A->bank ? 2 : 5;
        A->qmin = A->bank ? 1 : 4;
        A->qmax = A->bank ? (int)pl->qrows : 32;
        A->h = A->bank ? &c->f->mem[i].bank_conflicts : &c->f->mem[i].sectors;
        pl->qpos = A->pos;
    }
    if (st == MB_OK) {
        sim_watch w = cx_visiting(visit, thread_begin, flush_warp, &q);
        st = cx_simulate(c, &w, ecount);
        if (st == MB_OK)
            st = q.st;
    }
    /* bank accesses alone in a loop that no loop encloses, which a thread
     * enters once (its counter is the iterations it finished, J): request
     * warp * span + J, so that a lane's threshold becomes one in iterations,
     * made once per thread, against which each request compares the
     * loop's own counter (no position to advance) */
    for (size_t l = 1; st == MB_OK && l <= c->nloops; l++) {
        quota_pos *P = &c->qpos[l];
        int ok = c->f->loops[l - 1].parent < 0, any = 0;
        uint32_t span = 0;
        for (size_t a = 0; a < q.nacc && ok; a++)
            if (q.acc[a].pos == (int)l) {
                ok = q.acc[a].bank;
                any = 1;
                if (q.acc[a].jmax + 1 > span)
                    span = q.acc[a].jmax + 1;
            }
        if (!ok || !any || (uint64_t)q.warps * span >= (UINT64_C(1) << QUOTA_MAX_BITS))
            continue;
        P->counter = 1;
        P->span = span;
        for (size_t a = 0; a < q.nacc; a++)
            for (size_t k = 0; q.acc[a].pos == (int)l && k < q.acc[a].n; k++) {
                uint32_t idx = q.acc[a].req[k].idx;
                q.acc[a].req[k].idx = idx % q.warps * span + idx / q.warps;
            }
    }
    /* a loop's position advanced only where its accesses are, when they
     * share a block and every request's lanes had run it equally often
     * (requests counted by runs are then those counted by iterations):
     * threads that skip the accesses in an iteration skip the advance */
    for (size_t l = 0; st == MB_OK && l <= c->nloops; l++) {
        int block = -1, ok = l > 0 && !c->qpos[l].counter;
        for (size_t a = 0; a < q.nacc && ok; a++)
            if (q.acc[a].pos == (int)l) {
                ok = !q.acc[a].mixed && (block < 0 || block == q.acc[a].block);
                block = q.acc[a].block;
            }
        c->qpos[l].block = ok ? block : -1;
        for (size_t a = 0; a < q.nacc && ok && block >= 0; a++)
            if (q.acc[a].pos == (int)l) {
                for (size_t k = 0; k < q.acc[a].n; k++)
                    q.acc[a].req[k].idx = q.acc[a].req[k].idx_b;
                q.acc[a].jmax = q.acc[a].jmax_b;
            }
    }
    /* positions: bits for every request index of the register's accesses;
     * the largest position is the sentinel that never-used fields hold, so
     * it goes to an unused index, or else to one only partial warps use
     * (their lanes touch what the host model says, sentinel or not) */
    for (size_t a = 0; st == MB_OK && a < q.nacc; a++) {
        uint64_t n = (uint64_t)q.warps * (q.acc[a].jmax + 1);
        if (n > nidx[q.acc[a].pos])
            nidx[q.acc[a].pos] = n;
    }
    for (size_t l = 0; st == MB_OK && l <= c->nloops; l++) {
        quota_pos *P = &c->qpos[l];
        if (!nidx[l])
            continue;
        P->bits = 1;
        if (P->counter) {
            /* in order, below the sentinel: no full warp on it */
            while ((UINT64_C(1) << P->bits) <= nidx[l])
                P->bits++;
            P->mul = 1;
            P->add = P->step = 0;
            continue;
        }
        while (P->bits < QUOTA_MAX_BITS && (UINT64_C(1) << P->bits) < nidx[l])
            P->bits++;
        uint64_t spare = nidx[l];
        if ((UINT64_C(1) << P->bits) == nidx[l]) {
            unsigned char *full = calloc(nidx[l], 1);
            if (!full) {
                st = cx_nomem(c);
                break;
            }
            for (size_t a = 0; a < q.nacc; a++)
                for (size_t k = 0; q.acc[a].pos == (int)l && k < q.acc[a].n; k++)
                    if (can_take_all(&q.acc[a], q.acc[a].req[k].mask) && q.acc[a].req[k].idx < nidx[l])
                        full[q.acc[a].req[k].idx] = 1;
            spare = nidx[l];
            for (uint64_t i = nidx[l]; i-- > 0;)
                if (!full[i]) {
                    spare = i;
                    break;
                }
            free(full);
            /* one more bit keeps every partial warp off the sentinel (where
             * all its lanes use their own words) when the tables still hold
             * every access's levels */
            int need = 0;
            for (size_t a = 0; a < q.nacc; a++)
                if (q.acc[a].pos == (int)l && fields_needed(&q.acc[a]) > need)
                    need = fields_needed(&q.acc[a]);
            if ((spare == nidx[l] || need <= 64 / (P->bits + 1)) && P->bits < QUOTA_MAX_BITS) {
                P->bits++;
                spare = nidx[l];
            }
        }
        uint32_t mod = (UINT32_C(1) << P->bits) - 1;
        /* a golden-ratio scramble spreads each warp's quotas over its
         * iterations and the warps */
        P->mul = ((uint32_t)((double)(mod + 1) * 0.6180339887) | 1) & mod;
        P->add = (mod - (((uint32_t)spare * P->mul) & mod)) & mod;
        P->step = (q.warps * P->mul) & mod;
    }
    for (size_t l = 0; st == MB_OK && l <= c->nloops; l++)
        if (c->qpos[l].bits && !c->qpos[l].counter)
            st = choose_scramble(c, &q, l, nidx[l]);
    for (size_t a = 0; st == MB_OK && a < q.nacc; a++)
        st = plan_access(c, &q.acc[a], &c->qpos[q.acc[a].pos]);
    if (st == MB_OK)
        choose_layout(c, q.acc, q.nacc);
    for (size_t a = 0; st == MB_OK && a < q.nacc; a++) {
        uint64_t lanes = 0;
        for (size_t k = 0; k < q.acc[a].n; k++)
            lanes += mb_popcount32(q.acc[a].req[k].mask);
        c->plans[q.acc[a].mem].qindex = q.acc[a].bank && lanes <= c->nthreads;
    }
    if (st == MB_OK)
        st = plan_windows(c, q.acc, q.nacc);
    uint32_t classes_used = 0;
    for (size_t a = 0; st == MB_OK && a < q.nacc; a++)
        c->plans[q.acc[a].mem].qclasses =
            choose_word_classes(&q.acc[a], &c->f->mem[q.acc[a].mem].lines, &classes_used);
    for (size_t a = 0; a < q.nacc; a++) {
        free(q.acc[a].req);
        free(q.acc[a].mask_by_j);
        free(q.acc[a].runs_by_j);
    }
    free(q.acc);
    free(q.latches);
    free(nidx);
    free(ecount);
    return st;
}
