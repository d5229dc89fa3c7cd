/* Sector spreads of non-affine global and constant accesses (PLAN_PATTERN
 * outside local and shared memory): each warp draws its sector count S by
 * its hashed index against the profiled distribution's cumulative shares,
 * and its lanes spread over S sectors.
 *
 * Spreading all 32 lanes (`(lane * S) >> 5`) assumes full warps; under a
 * guard that only part of each warp passes, the active lanes share the
 * first sectors and a request touches fewer than S (nw's constant loads,
 * 16 lanes per request, touched one sector instead of two). So the lanes
 * spread over a window of W lanes (a power of two, the lane masked to it:
 * `((lane & (W - 1)) * S) >> log2 W`), and the hash may take an added
 * constant (the warp index times the golden-ratio multiplier plus a, one
 * mad instead of a mul): warp 0 always hashes to 0 and draws the lowest
 * value, which decides a clone with one warp. The host run of the model
 * lists every request with its active lanes; the window and constant whose
 * requests come closest to the profiled distribution are kept, the whole
 * warp and no constant unless something else comes strictly closer, so
 * clones the old spread served keep their code.
 *
 * A constant cache serves each distinct word of a request in a cycle, so a
 * constant access also has its distinct words to match (the profile's
 * addresses_per_request): its lanes spread over S sectors of E words each,
 * `((lane & (W - 1)) * S * E) >> log2 W` words 32 / E bytes apart (E a
 * power of two up to 8, the same for every warp), which touches the same
 * sectors as E = 1 and S * E words. Of the windows, constants and E whose
 * sectors stay near the profile's (a little farther than the nearest, at
 * most 0.03), the one whose requests' words come closest is kept. */
#include "clone_ctx.h"

#include <stdlib.h>
#include <string.h>

#define SPREAD_ADDS 64                         /* hash constants tried: k << 26 */
#define SPREAD_MAX_SECTORS 64

typedef struct sreq {
    uint32_t warp, mask;
    uint64_t n;                 /* requests of the warp with these lanes */
} sreq;

typedef struct sacc {
    int mem, block;
    uint32_t *mask_by_k;        /* the current warp's lanes per execution of the block */
    size_t nk, kcap;
    sreq *req;
    size_t n, cap;
} sacc;

typedef struct srun {
    sacc *acc;
    size_t nacc;
    mb_status st;
} srun;

static void flush_warp(ctx *c, void *arg, uint32_t warp)
{
    srun *q = arg;
    for (size_t a = 0; a < q->nacc && q->st == MB_OK; a++) {
        sacc *A = &q->acc[a];
        for (size_t k = 0; k < A->nk; k++) {
            if (!A->mask_by_k[k])
                continue;
            if (A->n && A->req[A->n - 1].warp == warp && A->req[A->n - 1].mask == A->mask_by_k[k]) {
                A->req[A->n - 1].n++;
            } else {
                if (MB_GROW(A->req, A->cap, A->n + 1) != MB_OK) {
                    q->st = cx_nomem(c);
                    return;
                }
                A->req[A->n].warp = warp;
                A->req[A->n].mask = A->mask_by_k[k];
                A->req[A->n++].n = 1;
            }
            A->mask_by_k[k] = 0;
        }
        A->nk = 0;
    }
}

/* A block runs with the warp's other lanes in the same iteration of its
 * innermost loop: a thread's k-th run of that loop's header (all its runs,
 * every activation) pairs with the other lanes' k-th, whichever iterations
 * each lane skipped the block in (a wavefront's lane t reaches it first at
 * iteration t). Outside loops, a thread's k-th run of the block pairs with
 * the other lanes' k-th. */
static void visit(ctx *c, void *arg, uint32_t t, int block, const uint32_t *runs)
{
    srun *q = arg;
    if (q->st != MB_OK)
        return;
    const uint32_t lane = c->kf[t] & 31;
    const int l = cx_block_loop(c, block);
    const int h = l >= 0 ? c->f->loops[l].header : block;
    /* (a natural loop's header dominates its body: counted already) */
    const size_t k = h != block && runs[h] ? runs[h] - 1 : runs[block];
    for (size_t a = 0; a < q->nacc; a++) {
        sacc *A = &q->acc[a];
        if (A->block != block)
            continue;
        if (k >= A->nk) {
            if (MB_GROW(A->mask_by_k, A->kcap, k + 1) != MB_OK) {
                q->st = cx_nomem(c);
                return;
            }
            memset(A->mask_by_k + A->nk, 0, (k + 1 - A->nk) * sizeof(uint32_t));
            A->nk = k + 1;
        }
        A->mask_by_k[k] |= UINT32_C(1) << lane;
    }
}

/* The distinct units (sectors, or words) a request with lanes `mask` touches
 * spread over `units` of them (at most 256): lane l takes unit
 * ((l & (W - 1)) * units) >> lgw. */
static unsigned request_units(uint32_t mask, uint32_t units, unsigned lgw)
{
    uint64_t seen[4] = {0, 0, 0, 0};
    uint32_t w = UINT32_C(1) << lgw;
    for (uint32_t l = 0; l < 32; l++)
        if (mask >> l & 1) {
            uint32_t x = (((l & (w - 1)) * units) >> lgw) & 255;
            seen[x >> 6] |= UINT64_C(1) << (x & 63);
        }
    return mb_popcount64(seen[0]) + mb_popcount64(seen[1]) + mb_popcount64(seen[2]) +
           mb_popcount64(seen[3]);
}

/* The index of the warp's draw among n values, as warp_choice compares in
 * the PTX. */
static size_t warp_draw(uint32_t warp, uint32_t add, const double *share, size_t n)
{
    uint32_t h = (warp * HASH_BASE_MULT + add) >> 22;
    size_t v = 0;
    for (size_t i = 1; i < n; i++)
        if (h >= (unsigned)(share[i - 1] * 1024))
            v = i;
    return v;
}

/* The total-variation distance between the requests' sector counts with
 * window 2^lgw and hash constant `add`, and the profile's. */
static double spread_tv(const sacc *A, uint8_t (*cnt)[5][4], const mb_hist *h, const double *share,
                        size_t nv, unsigned lgw, uint32_t add)
{
    double got[SPREAD_MAX_SECTORS + 1];
    memset(got, 0, sizeof got);
    for (size_t i = 0; i < A->n; i++)
        got[cnt[i][lgw - 1][warp_draw(A->req[i].warp, add, share, nv)]] += (double)A->req[i].n;
    return cx_counts_tv(got, SPREAD_MAX_SECTORS + 1, h);
}

unsigned cx_spread_window_log2(uint32_t swin)
{
    unsigned lgw = 5;
    while (swin && lgw > 1 && (UINT32_C(1) << lgw) > swin)
        lgw--;
    return lgw;
}

enum { SPREAD_WORD_LEVELS = 4 }; /* 1, 2, 4 or 8 words per sector */
/* How much farther from the profile's sectors a constant access's spread
 * may go for its words, and how far at most (compare checks 0.05). */
#define SPREAD_SECTOR_SLACK 0.02
#define SPREAD_SECTOR_LIMIT 0.03

/* The window and constant of acc[a]: the closest, or, as close, one an
 * earlier access with the same values took (they then share the offset
 * register, as equal distributions did before windows); for a constant
 * access then its words per sector, with the window and constant that
 * bring its words nearest while its sectors stay near. */
static mb_status choose(ctx *c, const sacc *acc, size_t a)
{
    const sacc *A = &acc[a];
    memplan *pl = &c->plans[A->mem];
    const mb_sprof_mem *mm = &c->f->mem[A->mem];
    const mb_hist *h = &mm->sectors;
    uint32_t val[4], val2[4];
    double share[4], share2[4];
    size_t nv = cx_draw_values(h, 32, val, share);
    const int words = !strcmp(mm->space, "const") && mb_hist_total(&mm->addresses) > 0;
    /* each request's sectors (and words) per window and value, so that
     * trying the hash constants costs a lookup per request */
    uint8_t (*cnt)[5][4] = malloc((A->n + 1) * sizeof(*cnt));
    uint8_t (*wcnt[SPREAD_WORD_LEVELS])[5][4] = {NULL, NULL, NULL, NULL};
    int ok = cnt != NULL;
    for (unsigned le = 0; words && ok && le < SPREAD_WORD_LEVELS; le++)
        ok = (wcnt[le] = malloc((A->n + 1) * sizeof(*cnt))) != NULL;
    if (!ok) {
        free(cnt);
        for (unsigned le = 0; le < SPREAD_WORD_LEVELS; le++)
            free(wcnt[le]);
        return cx_nomem(c);
    }
    for (size_t i = 0; i < A->n; i++)
        for (unsigned lgw = 1; lgw <= 5; lgw++)
            for (size_t v = 0; v < nv; v++) {
                cnt[i][lgw - 1][v] = (uint8_t)request_units(A->req[i].mask, val[v], lgw);
                for (unsigned le = 0; words && le < SPREAD_WORD_LEVELS; le++)
                    wcnt[le][i][lgw - 1][v] =
                        (uint8_t)request_units(A->req[i].mask, val[v] << le, lgw);
            }
    double best = spread_tv(A, cnt, h, share, nv, 5, 0);
    size_t nadd = nv > 1 ? SPREAD_ADDS : 1;
    for (unsigned lgw = 5; lgw >= 1; lgw--)
        for (size_t k = 0; k < nadd; k++) {
            uint32_t add = (uint32_t)k << 26;
            double d = spread_tv(A, cnt, h, share, nv, lgw, add);
            if (d < best - 1e-9) {
                best = d;
                pl->swin = lgw < 5 ? UINT32_C(1) << lgw : 0;
                pl->sadd = add;
            }
        }
    for (size_t b = 0; b < a; b++) {
        const memplan *o = &c->plans[acc[b].mem];
        if ((o->swin == pl->swin && o->sadd == pl->sadd) ||
            cx_draw_values(&c->f->mem[acc[b].mem].sectors, 32, val2, share2) != nv ||
            memcmp(val, val2, nv * sizeof *val) != 0 || memcmp(share, share2, nv * sizeof *share) != 0)
            continue;
        if (spread_tv(A, cnt, h, share, nv, cx_spread_window_log2(o->swin), o->sadd) <= best + 1e-9) {
            pl->swin = o->swin;
            pl->sadd = o->sadd;
            break;
        }
    }
    /* then the words: of the windows and constants whose sectors stay as
     * near (within SPREAD_SECTOR_SLACK, never past SPREAD_SECTOR_LIMIT
     * unless the nearest is), the one whose words come nearest */
    pl->swords = 1;
    if (words) {
        double limit = best + SPREAD_SECTOR_SLACK;
        if (limit > SPREAD_SECTOR_LIMIT)
            limit = best < SPREAD_SECTOR_LIMIT ? SPREAD_SECTOR_LIMIT : best + 1e-9;
        double best_words =
            spread_tv(A, wcnt[0], &mm->addresses, share, nv, cx_spread_window_log2(pl->swin), pl->sadd);
        for (unsigned lgw = 5; lgw >= 1; lgw--)
            for (size_t k = 0; k < nadd; k++) {
                uint32_t add = (uint32_t)k << 26;
                if (spread_tv(A, cnt, h, share, nv, lgw, add) > limit)
                    continue;
                for (unsigned le = 0; le < SPREAD_WORD_LEVELS; le++) {
                    double d = spread_tv(A, wcnt[le], &mm->addresses, share, nv, lgw, add);
                    if (d < best_words - 1e-9) {
                        best_words = d;
                        pl->swin = lgw < 5 ? UINT32_C(1) << lgw : 0;
                        pl->sadd = add;
                        pl->swords = UINT32_C(1) << le;
                    }
                }
            }
    }
    free(cnt);
    for (unsigned le = 0; le < SPREAD_WORD_LEVELS; le++)
        free(wcnt[le]);
    return MB_OK;
}

/* Whether memory record i is one of the spreads this file plans. */
static int is_spread(const ctx *c, size_t i)
{
    const mb_sprof_mem *mm = &c->f->mem[i];
    return c->plans[i].kind == PLAN_PATTERN && strcmp(mm->space, "shared") != 0 &&
           strcmp(mm->space, "local") != 0 && mb_hist_total(&mm->sectors) > 0;
}

mb_status cx_plan_spreads(ctx *c)
{
    size_t nacc = 0;
    for (size_t i = 0; i < c->f->nmem; i++)
        nacc += is_spread(c, i);
    if (nacc == 0)
        return MB_OK;
    srun q;
    memset(&q, 0, sizeof q);
    q.acc = calloc(nacc, sizeof(sacc));
    double *ecount = malloc((c->nb + 1) * sizeof(double));
    mb_status st = q.acc && ecount ? MB_OK : cx_nomem(c);
    for (size_t i = 0; st == MB_OK && i < c->f->nmem; i++) {
        if (!is_spread(c, i))
            continue;
        q.acc[q.nacc].mem = (int)i;
        q.acc[q.nacc++].block = cx_mem_block(c, (int)i);
    }
    if (st == MB_OK) {
        sim_watch w = cx_visiting(visit, NULL, flush_warp, &q);
        st = cx_simulate(c, &w, ecount);
        if (st == MB_OK)
            st = q.st;
    }
    for (size_t a = 0; st == MB_OK && a < q.nacc; a++)
        st = choose(c, q.acc, a);
    for (size_t a = 0; q.acc && a < q.nacc; a++) {
        free(q.acc[a].mask_by_k);
        free(q.acc[a].req);
    }
    free(q.acc);
    free(ecount);
    return st;
}
