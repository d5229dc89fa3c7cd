/* Tree steps: shared accesses whose lane stride doubles every iteration.
 * An interleaved tree reduction reads sdata[2 s tid] with s = 1, 2, 4, ...:
 * no affine model fits (the iteration multiplies the thread index), so the
 * clone replayed the profiled bank-conflict degrees with per-request quotas,
 * at six instructions a thread of set-up the original never ran. The profile
 * shows the shape, though: lane strides b, 2b, 4b, ... (the byte distance
 * between neighbouring lanes), fewer pairs at each larger one as the active
 * threads halve. Such an access is addressed as the original's is, the
 * array's start plus b (tid << iteration): a shift by the loop's counter
 * and a multiply-add, no set-up. It is taken where the degrees the clone's
 * requests will draw, as the host run lists them after the calibration,
 * keep the profiled distribution (clone_requests.c), and every address stays
 * inside the array; the quotas stay otherwise. Where nothing else reads
 * the loop's counter, cx_assemble makes it the doubling step itself (a
 * multiply then replaces the shift, doubling_ok in clone_insns.c). */
#include "clone_ctx.h"

#include <stdlib.h>
#include <string.h>

/* Requests listed at most; a launch making more keeps the quotas. */
#define STEP_REQUESTS_MAX ((size_t)1 << 18)

/* b when h's keys are b, 2b, 4b, ... (two at least, b > 0) with counts that
 * do not grow, 0 otherwise. */
static uint32_t doubling_stride(const mb_hist *h)
{
    if (h->n < 2 || h->key[0] <= 0 || h->key[0] > 1 << 16)
        return 0;
    for (size_t k = 1; k < h->n; k++)
        if (h->key[k] != 2 * h->key[k - 1] || h->count[k] > h->count[k - 1])
            return 0;
    return (uint32_t)h->key[0];
}

void cx_step_candidates(ctx *c)
{
    for (size_t i = 0; i < c->f->nmem; i++) {
        const mb_sprof_mem *mm = &c->f->mem[i];
        memplan *pl = &c->plans[i];
        const int block = cx_mem_block(c, (int)i);
        const int l = cx_block_loop(c, block);
        if ((pl->kind != PLAN_QUOTA && pl->kind != PLAN_PATTERN) || strcmp(mm->space, "shared") || l < 0 ||
            mm->vector != 1 || c->weight)
            continue;
        const uint32_t b = doubling_stride(&mm->lane_stride);
        if (b && (size_t)l < c->nloops) {
            pl->stepcand = l;
            pl->sstride = b;
        }
    }
}

typedef struct step_lane {
    int loop;
    uint32_t stride;
} step_lane;

/* The byte offset of a lane's address in the array, in the clone's 32-bit
 * registers: (ltid << k) * stride, k the original's iteration the clone's
 * stands for (cx_sampled_iter), a shift of 32 or more giving 0. */
static int64_t step_offset(ctx *c, void *arg, uint32_t t, const uint32_t *iter)
{
    const step_lane *s = arg;
    const uint32_t k = cx_sampled_iter(c, s->loop, t, iter[s->loop]), ltid = t % c->tpc; /* CTA by CTA */
    const uint32_t shifted = k < 32 ? ltid << k : 0;
    return (int64_t)(uint32_t)(shifted * s->stride);
}

static mb_status decide(ctx *c, size_t i)
{
    memplan *pl = &c->plans[i];
    const mb_sprof_mem *mm = &c->f->mem[i];
    step_lane s = {pl->stepcand, pl->sstride};
    cx_request *req = NULL;
    size_t n = 0;
    mb_status st = cx_list_requests(c, cx_mem_block(c, (int)i), step_offset, &s, STEP_REQUESTS_MAX, &req, &n);
    if (st != MB_OK || n == 0 || n > STEP_REQUESTS_MAX) {
        free(req);
        return st;
    }
    const uint64_t width = (uint64_t)mm->width * mm->vector, room = cx_region_bytes(c, pl);
    double count[33 * 4] = {0};
    uint64_t addr[32];
    const size_t nd = sizeof count / sizeof count[0];
    int inside = 1;
    for (size_t q = 0; q < n && inside; q++) {
        for (uint32_t l = 0; l < 32; l++)
            if (req[q].mask >> l & 1) {
                addr[l] = (uint64_t)req[q].v[l];
                inside &= addr[l] + width <= room;
            }
        const unsigned d = cx_bank_degree(addr, req[q].mask, (uint32_t)width);
        count[d < nd ? d : nd - 1]++;
    }
    free(req);
    if (inside && cx_counts_tv(count, nd, &mm->bank_conflicts) <= cx_degree_bound(c, &mm->bank_conflicts, n)) {
        pl->kind = PLAN_STEP;
        pl->sloop = pl->stepcand;
        pl->offset = 0;
        pl->qbank = 0;
        pl->qrows = 0;
        pl->is64 = 0;
    }
    return MB_OK;
}

mb_status cx_steps_by_requests(ctx *c)
{
    mb_status st = MB_OK;
    for (size_t i = 0; i < c->f->nmem && st == MB_OK; i++)
        if (c->plans[i].stepcand >= 0 && (c->plans[i].kind == PLAN_QUOTA || c->plans[i].kind == PLAN_PATTERN))
            st = decide(c, i);
    for (size_t i = 0; i < c->f->nmem; i++)
        c->plans[i].stepcand = -1;
    return st;
}
