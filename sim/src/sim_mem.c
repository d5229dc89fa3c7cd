/* The memory hierarchy: coalescer, shared-memory banks, constant cache, L1
 * with MSHRs and a miss queue, the interconnect, L2 slices with their own
 * MSHRs, atomics at L2, and DRAM channels with FR-FCFS scheduling over
 * banks with row buffers. Event-driven: every transaction is a sim_req moved
 * between units by events on a heap ordered by (tick, sequence). */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define LOCAL_BASE UINT64_C(0x7F0000000000)

/* ----------------------------------------------------------- events */

static int heap_less(const sim_event *a, const sim_event *b)
{
    return a->tick < b->tick || (a->tick == b->tick && a->seq < b->seq);
}

static void push_event(mb_sim *s, uint64_t tick, uint32_t kind, uint32_t arg)
{
    if (s->nheap == s->cap_heap) {
        uint32_t n = s->cap_heap ? s->cap_heap * 2 : 1024;
        sim_event *h = realloc(s->heap, (size_t)n * sizeof(*h));
        if (!h)
            abort(); /* host out of memory in the middle of a cycle: nothing sane to unwind */
        s->heap = h;
        s->cap_heap = n;
    }
    sim_event e = {tick, s->seq++, kind, arg};
    uint32_t i = s->nheap++;
    while (i) {
        uint32_t p = (i - 1) / 2;
        if (!heap_less(&e, &s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = e;
}

static sim_event pop_event(mb_sim *s)
{
    sim_event top = s->heap[0];
    sim_event last = s->heap[--s->nheap];
    uint32_t i = 0, n = s->nheap;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && heap_less(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!heap_less(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (n)
        s->heap[i] = last;
    return top;
}

uint64_t sim_mem_next_tick(const mb_sim *s)
{
    return s->nheap ? s->heap[0].tick : SIM_NEVER;
}

/* --------------------------------------------------------- requests */

static uint32_t new_req(mb_sim *s)
{
    uint32_t r;
    if (s->free_req != NONE) {
        r = s->free_req;
        s->free_req = s->reqs[r].next;
    } else {
        if (s->nreqs == s->cap_reqs) {
            uint32_t n = s->cap_reqs ? s->cap_reqs * 2 : 1024;
            sim_req *g = realloc(s->reqs, (size_t)n * sizeof(*g));
            if (!g)
                abort();
            s->reqs = g;
            s->cap_reqs = n;
        }
        r = s->nreqs++;
    }
    memset(&s->reqs[r], 0, sizeof(sim_req));
    s->reqs[r].next = NONE;
    s->reqs[r].load = NONE;
    return r;
}

static void free_req(mb_sim *s, uint32_t r)
{
    s->reqs[r].next = s->free_req;
    s->free_req = r;
}

/* Channel, slice, bank and row of a line address: 256-byte chunks
 * interleave across channels (with an XOR of higher bits so power-of-two
 * strides do not camp on one channel). */
static void map_addr(const mb_sim *s, sim_req *q)
{
    uint64_t chunk = q->addr >> 8;
    uint32_t nch = (uint32_t)s->cfg.n_mem;
    uint64_t h = chunk ^ (chunk >> 7) ^ (chunk >> 15);
    q->channel = (uint32_t)(h % nch);
    uint64_t local = ((chunk / nch) << 8) | (q->addr & 0xFF);
    q->slice = q->channel * (uint32_t)s->cfg.n_sub + (uint32_t)((chunk / nch) % (uint64_t)s->cfg.n_sub);
    uint64_t row_bytes = (uint64_t)s->cfg.dram_row_bytes;
    q->bank = (uint32_t)((local / row_bytes) % s->d.nbk);
    q->row = local / (row_bytes * s->d.nbk);
}

/* ------------------------------------------------------------ caches */

int sim_cache_init(sim_cache *c, const sim_cache_geom *g)
{
    memset(c, 0, sizeof(*c));
    c->g = *g;
    if (!g->present)
        return 1;
    size_t n = (size_t)g->sets * g->assoc;
    c->tag = calloc(n, sizeof(uint64_t));
    c->stamp = calloc(n, sizeof(uint64_t));
    c->valid = calloc(n, 1);
    c->pending = calloc(n, 1);
    c->dirty = calloc(n, 1);
    c->sector_bytes = g->sectored ? 32 : g->line;
    c->sectors = g->line / c->sector_bytes;
    return c->tag && c->stamp && c->valid && c->pending && c->dirty;
}

void sim_cache_free(sim_cache *c)
{
    free(c->tag);
    free(c->stamp);
    free(c->valid);
    free(c->pending);
    free(c->dirty);
    memset(c, 0, sizeof(*c));
}

static uint32_t cache_set(const sim_cache *c, uint64_t line)
{
    uint64_t l = line / c->g.line;
    return (uint32_t)((l ^ (l >> 11) ^ (l >> 19)) % c->g.sets);
}

/* Way index holding `line`, or -1. */
static int cache_find(const sim_cache *c, uint64_t line)
{
    uint32_t set = cache_set(c, line);
    size_t b = (size_t)set * c->g.assoc;
    for (uint32_t w = 0; w < c->g.assoc; w++)
        if (c->tag[b + w] == line + 1)
            return (int)(b + w);
    return -1;
}

static void cache_touch(sim_cache *c, int way)
{
    if (c->g.rep == 'L')
        c->stamp[way] = ++c->clock;
}

/* Allocates a way for `line` (evicting the least recently used line with
 * nothing pending); -1 when every way of the set is waiting for a fill.
 * `evicted_dirty` gets the evicted dirty line + 1, or 0. */
static int cache_alloc(sim_cache *c, uint64_t line, uint64_t *evicted_dirty)
{
    uint32_t set = cache_set(c, line);
    size_t b = (size_t)set * c->g.assoc;
    int victim = -1;
    for (uint32_t w = 0; w < c->g.assoc; w++) {
        size_t i = b + w;
        if (!c->tag[i]) {
            victim = (int)i;
            break;
        }
        if (c->pending[i])
            continue;
        if (victim < 0 || c->stamp[i] < c->stamp[victim])
            victim = (int)i;
    }
    *evicted_dirty = 0;
    if (victim < 0)
        return -1;
    if (c->tag[victim] && c->dirty[victim])
        *evicted_dirty = c->tag[victim];
    c->tag[victim] = line + 1;
    c->valid[victim] = 0;
    c->pending[victim] = 0;
    c->dirty[victim] = 0;
    c->stamp[victim] = ++c->clock;
    return victim;
}

/* Sector mask of a 128-byte-granule mask in a cache of this line and sector size. */
static uint8_t sectors_of(const sim_cache *c, uint64_t addr, uint32_t bytes)
{
    if (c->sectors <= 1)
        return 1;
    uint32_t first = (uint32_t)((addr % c->g.line) / c->sector_bytes);
    uint32_t last = (uint32_t)(((addr % c->g.line) + bytes - 1) / c->sector_bytes);
    uint8_t m = 0;
    for (uint32_t i = first; i <= last && i < 8; i++)
        m |= (uint8_t)(1u << i);
    return m;
}

/* ------------------------------------------------------------- setup */

mb_status sim_mem_init(mb_sim *s, mb_error *err)
{
    s->free_req = NONE;
    s->nslices = (uint32_t)(s->cfg.n_mem * s->cfg.n_sub);
    s->slices = calloc(s->nslices, sizeof(sim_slice));
    s->channels = calloc((size_t)s->cfg.n_mem, sizeof(sim_channel));
    if (!s->slices || !s->channels)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    for (uint32_t i = 0; i < s->nslices; i++)
        if (!sim_cache_init(&s->slices[i].l2, &s->d.dl2))
            return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory for the L2");
    for (uint32_t i = 0; i < (uint32_t)s->cfg.n_mem; i++) {
        s->channels[i].banks = calloc(s->d.nbk, sizeof(sim_dram_bank));
        if (!s->channels[i].banks)
            return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        s->channels[i].q_head = NONE;
    }
    return MB_OK;
}

void sim_mem_free(mb_sim *s)
{
    for (uint32_t i = 0; s->slices && i < s->nslices; i++) {
        sim_cache_free(&s->slices[i].l2);
        free(s->slices[i].mshr_addr);
        free(s->slices[i].mshr_waiters);
    }
    free(s->slices);
    for (uint32_t i = 0; s->channels && i < (uint32_t)s->cfg.n_mem; i++)
        free(s->channels[i].banks);
    free(s->channels);
    free(s->reqs);
    free(s->heap);
}

/* Time restarts at 0 for each launch: every busy-until mark is cleared. */
void sim_mem_reset_launch(mb_sim *s)
{
    for (uint32_t i = 0; i < s->nslices; i++)
        s->slices[i].port_free = 0;
    for (uint32_t i = 0; i < (uint32_t)s->cfg.n_mem; i++) {
        sim_channel *ch = &s->channels[i];
        ch->bus_free = ch->port_free = 0;
        ch->sched_pending = 0;
        for (uint32_t b = 0; b < s->d.nbk; b++) {
            ch->banks[b].ready = 0;
            ch->banks[b].act_time = 0;
            ch->banks[b].data_end = 0;
        }
    }
}

/* --------------------------------------------------- SM-side helpers */

static uint64_t now_tick(const mb_sim *s)
{
    return s->now * SIM_TICKS;
}

static uint32_t new_load(sim_sm *sm, uint32_t slot, const sim_insn *si)
{
    uint32_t id;
    if (sm->free_load != NONE) {
        id = sm->free_load;
        sm->free_load = sm->loads[id].next_free;
    } else {
        sim_load *g = realloc(sm->loads, ((size_t)sm->nloads + 1) * sizeof(*g));
        if (!g)
            abort();
        sm->loads = g;
        id = sm->nloads++;
    }
    sim_load *l = &sm->loads[id];
    l->warp = slot;
    l->remaining = 0;
    l->why = WHY_L1;
    l->ndst = si->ndst;
    memcpy(l->dst, si->dst, sizeof(l->dst));
    l->next_free = NONE;
    return id;
}

void sim_wake_warp(mb_sim *s, sim_sm *sm, uint32_t slot)
{
    sm->warps[slot].valid_next = 0;
    sim_set_wake(s, sm, 0);
}

/* One of a load's transactions arrived (or it had none left): its registers become ready at `cycle`. */
static void load_part_done(mb_sim *s, sim_sm *sm, uint32_t id, uint8_t why, uint64_t cycle)
{
    sim_load *l = &sm->loads[id];
    if (why > l->why)
        l->why = why;
    if (l->remaining && --l->remaining)
        return;
    sim_warp *w = &sm->warps[l->warp];
    for (unsigned i = 0; i < l->ndst; i++) {
        w->reg_ready[l->dst[i]] = cycle;
        w->reg_why[l->dst[i]] = l->why;
    }
    w->pending_loads--;
    sim_wake_warp(s, sm, l->warp);
    l->next_free = sm->free_load;
    sm->free_load = id;
}

static void missq_push(sim_sm *sm, mb_sim *s, uint32_t r)
{
    s->reqs[r].next = NONE;
    if (sm->missq_len == 0)
        sm->missq_head = r;
    else
        s->reqs[sm->missq_tail].next = r;
    sm->missq_tail = r;
    sm->missq_len++;
}

static uint32_t mshr_capacity(const sim_sm *sm)
{
    return sm->l1.g.present ? sm->l1.g.mshr_entries : UINT32_MAX;
}

/* Sends queued misses into the interconnect while MSHRs allow. */
static void drain_missq(mb_sim *s, sim_sm *sm, uint64_t tick)
{
    while (sm->missq_len) {
        uint32_t r = sm->missq_head;
        sim_req *q = &s->reqs[r];
        int needs_mshr = !q->is_write && !q->is_atomic && !q->from_const && sm->l1.g.present;
        if (needs_mshr && sm->mshr_used >= mshr_capacity(sm))
            break;
        sm->missq_head = q->next;
        sm->missq_len--;
        if (needs_mshr) {
            sm->mshr_used++;
            q->holds_mshr = 1;
        }
        sim_set_wake(s, sm, 0); /* a warp blocked on the memory pipeline may go on */
        uint32_t flit = (uint32_t)s->cfg.flit_size;
        uint32_t flits = 1 + (q->is_write || q->is_atomic ? (q->bytes + flit - 1) / flit : 0);
        uint64_t depart = tick > sm->port_free ? tick : sm->port_free;
        sm->port_free = depart + flits * s->t_icnt;
        s->stats.icnt_flits += flits;
        q->arrival = depart + (uint64_t)s->cfg.icnt_latency * s->t_icnt + flits * s->t_icnt;
        push_event(s, q->arrival, EV_L2_ARRIVE, r);
    }
}

int sim_mem_blocked(const mb_sim *s, const sim_sm *sm, int *why)
{
    uint32_t cap = sm->l1.g.present ? sm->l1.g.miss_queue : 8;
    (void)s;
    if (sm->l1.g.present && sm->mshr_used >= mshr_capacity(sm) && sm->missq_len) {
        *why = MB_SIM_STALL_MSHR;
        return 1;
    }
    if (sm->missq_len >= cap) {
        *why = MB_SIM_STALL_MEMQ;
        return 1;
    }
    return 0;
}

/* --------------------------------------------------------- coalescer */

typedef struct txn {
    uint64_t line; /* 128-byte aligned */
    uint8_t sectors;
    uint16_t lanes; /* lanes served (atomics: operations at L2) */
} txn;

static void add_txn(txn *t, unsigned *n, unsigned max, uint64_t line, uint8_t sectors)
{
    if (*n && t[*n - 1].line == line) { /* neighbouring lanes usually share a line */
        t[*n - 1].sectors |= sectors;
        t[*n - 1].lanes++;
        return;
    }
    for (unsigned i = 0; i < *n; i++)
        if (t[i].line == line) {
            t[i].sectors |= sectors;
            t[i].lanes++;
            return;
        }
    if (*n < max) {
        t[*n].line = line;
        t[*n].sectors = sectors;
        t[*n].lanes = 1;
        (*n)++;
    }
}

static uint8_t sector_mask(uint64_t addr, uint32_t bytes)
{
    uint32_t first = (uint32_t)((addr & 127) / 32), last = (uint32_t)(((addr & 127) + bytes - 1) / 32);
    if (last > 3)
        last = 3;
    uint8_t m = 0;
    for (uint32_t i = first; i <= last; i++)
        m |= (uint8_t)(1u << i);
    return m;
}

/* Coalesces a warp's global accesses into 128-byte-line transactions with
 * 32-byte sector masks. `ntrans` gets the transaction count under the
 * configured rules (lines for an unsectored L1, else sectors; segments for
 * cc1.x). */
static unsigned coalesce(const mb_sim *s, const uint64_t *addrs, uint32_t mask, uint32_t bytes,
                         txn *t, unsigned max, uint32_t *ntrans)
{
    unsigned n = 0;
    int arch = (int)s->cfg.coalesce_arch;
    *ntrans = 0;
    if (arch >= 20) {
        for (uint32_t m = mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            uint64_t a = addrs[l];
            uint64_t end = a + (bytes ? bytes : 1);
            for (uint64_t line = a & ~UINT64_C(127); line < end; line += 128) {
                uint64_t lo = a > line ? a : line;
                uint64_t hi = end < line + 128 ? end : line + 128;
                add_txn(t, &n, max, line, sector_mask(lo, (uint32_t)(hi - lo)));
            }
        }
        int by_line = s->d.dl1.present && !s->d.dl1.sectored;
        for (unsigned i = 0; i < n; i++)
            *ntrans += by_line ? 1 : (uint32_t)mb_popcount32(t[i].sectors);
        return n;
    }
    /* compute capability 1.x: each half-warp separately */
    for (int half = 0; half < 2; half++) {
        uint32_t hm = mask & (half ? 0xFFFF0000u : 0x0000FFFFu);
        if (!hm)
            continue;
        if (arch < 12) {
            /* cc1.0/1.1: one 64- or 128-byte transaction when thread k accesses word k of an
             * aligned block, else one 32-byte transaction per thread */
            int first = __builtin_ctz(hm) & ~15;
            uint64_t base = addrs[__builtin_ctz(hm)] - (uint64_t)(__builtin_ctz(hm) - first) * bytes;
            int ok = (bytes == 4 || bytes == 8 || bytes == 16) && base % (16u * bytes) == 0;
            for (uint32_t m = hm; m && ok; m &= m - 1) {
                int l = __builtin_ctz(m);
                ok = addrs[l] == base + (uint64_t)(l - first) * bytes;
            }
            if (ok) {
                for (uint64_t off = 0; off < 16u * bytes; off += 128) {
                    uint32_t len = 16u * bytes - (uint32_t)off < 128 ? 16u * bytes - (uint32_t)off : 128;
                    add_txn(t, &n, max, (base + off) & ~UINT64_C(127), sector_mask(base + off, len));
                    (*ntrans)++;
                }
            } else {
                for (uint32_t m = hm; m; m &= m - 1) {
                    int l = __builtin_ctz(m);
                    add_txn(t, &n, max, addrs[l] & ~UINT64_C(127), sector_mask(addrs[l] & ~UINT64_C(31), 32));
                    (*ntrans)++;
                }
            }
            continue;
        }
        /* cc1.2/1.3: segments of 32 (1-byte words), 64 (2-byte) or 128 bytes, reduced to
         * the half or quarter actually used */
        uint32_t seg = bytes == 1 ? 32 : bytes == 2 ? 64 : 128;
        uint32_t left = hm;
        while (left) {
            int l0 = __builtin_ctz(left);
            uint64_t sbase = addrs[l0] & ~(uint64_t)(seg - 1);
            uint64_t lo = UINT64_MAX, hi = 0;
            for (uint32_t m = left; m; m &= m - 1) {
                int l = __builtin_ctz(m);
                if ((addrs[l] & ~(uint64_t)(seg - 1)) == sbase) {
                    left &= ~(1u << l);
                    if (addrs[l] < lo)
                        lo = addrs[l];
                    if (addrs[l] + bytes > hi)
                        hi = addrs[l] + bytes;
                }
            }
            uint32_t size = seg;
            uint64_t b = sbase;
            while (size > 32) {
                uint32_t half_size = size / 2;
                if (hi <= b + half_size)
                    size = half_size;
                else if (lo >= b + half_size) {
                    b += half_size;
                    size = half_size;
                } else
                    break;
            }
            add_txn(t, &n, max, b & ~UINT64_C(127), sector_mask(b, size));
            (*ntrans)++;
        }
    }
    return n;
}

/* ------------------------------------------------------ shared / const */

static uint32_t shared_cycles(const mb_sim *s, const uint64_t *addrs, uint32_t mask, uint32_t bytes,
                              uint32_t *parts_used)
{
    uint32_t banks = (uint32_t)s->cfg.shmem_banks;
    uint32_t parts = (uint32_t)s->cfg.shmem_warp_parts;
    uint32_t per = 32 / parts;
    uint32_t total = 0;
    *parts_used = 0;
    uint32_t words_per_lane = bytes > 4 ? bytes / 4 : 1;
    for (uint32_t p = 0; p < parts; p++) {
        uint32_t pm = mask & (per == 32 ? 0xFFFFFFFFu : ((1u << per) - 1) << (p * per));
        if (!pm)
            continue;
        (*parts_used)++;
        /* distinct words per bank (the same word is broadcast): each bank keeps
         * the words seen so far, so a conflict-free access costs one look per lane */
        uint64_t words[128][4];
        uint32_t count[128];
        memset(count, 0, sizeof(uint32_t) * (banks < 128 ? banks : 128));
        uint32_t degree = 1;
        for (uint32_t m = pm; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            for (uint32_t k = 0; k < words_per_lane; k++) {
                uint64_t word = addrs[l] / 4 + k;
                uint32_t b = (uint32_t)(word % banks);
                uint32_t c = count[b], i = 0;
                while (i < c && i < 4 && words[b][i] != word)
                    i++;
                if (i < c && i < 4)
                    continue; /* broadcast */
                if (c < 4)
                    words[b][c] = word;
                /* beyond 4 distinct words a bank's later duplicates count as new: an
                 * over-estimate only for more than 4-way conflicts with broadcasts */
                if (++count[b] > degree)
                    degree = count[b];
            }
        }
        total += degree;
    }
    if (!total) {
        *parts_used = 1;
        return 1;
    }
    return total;
}

/* ------------------------------------------------------------- issue */

static void send_to_l2(mb_sim *s, sim_sm *sm, uint64_t line, uint8_t sectors, int is_write,
                       int is_atomic, int from_const, uint32_t lanes, uint32_t load)
{
    uint32_t r = new_req(s);
    sim_req *q = &s->reqs[r];
    q->addr = line;
    q->sectors = sectors;
    q->is_write = (uint8_t)is_write;
    q->is_atomic = (uint8_t)is_atomic;
    q->from_const = (uint8_t)from_const;
    q->bytes = (uint16_t)(32 * mb_popcount32(sectors));
    q->sm = (uint16_t)sm->id;
    q->load = load;
    q->atomic_ops = lanes;
    q->why = WHY_L2;
    map_addr(s, q);
    missq_push(sm, s, r);
}

static sim_mshr *find_mshr(sim_sm *sm, uint64_t line)
{
    for (uint32_t i = 0; i < sm->l1.g.mshr_entries * 2 + 64; i++)
        if (sm->mshr[i].used && sm->mshr[i].addr == line)
            return &sm->mshr[i];
    return NULL;
}

static sim_mshr *alloc_mshr(sim_sm *sm, uint64_t line)
{
    for (uint32_t i = 0; i < sm->l1.g.mshr_entries * 2 + 64; i++)
        if (!sm->mshr[i].used) {
            sim_mshr *m = &sm->mshr[i];
            m->used = 1;
            m->addr = line;
            m->waiters = NONE;
            m->merged = 0;
            return m;
        }
    return NULL;
}

/* A load waiting on an MSHR is kept as a small req record in its waiter list. */
static void mshr_add_waiter(mb_sim *s, sim_mshr *m, uint32_t load)
{
    uint32_t r = new_req(s);
    s->reqs[r].load = load;
    s->reqs[r].next = m->waiters;
    m->waiters = r;
    m->merged++;
}

uint32_t sim_mem_issue(mb_sim *s, sim_sm *sm, uint32_t slot, const sim_insn *si,
                       const mb_step_event *ev)
{
    sim_warp *w = &sm->warps[slot];
    uint64_t now = s->now;
    uint64_t tick = now_tick(s);
    uint32_t lat = (uint32_t)s->cfg.l1_latency;
    if (!(ev->flags & MB_STEP_MEMORY)) {
        for (unsigned i = 0; i < si->ndst; i++) {
            w->reg_ready[si->dst[i]] = now + 1;
            w->reg_why[si->dst[i]] = WHY_COMPUTE;
        }
        return 1;
    }
    uint32_t mask = ev->executed;
    const uint64_t *addrs = ev->addrs;
    uint32_t bytes = ev->access_bytes;
    if (ev->space == MB_SPACE_SHARED) {
        uint32_t parts = 0;
        uint32_t cyc = shared_cycles(s, addrs, mask, bytes, &parts);
        s->stats.shared_insts++;
        s->stats.shared_cycles += cyc;
        s->stats.bank_conflicts += cyc - parts;
        for (unsigned i = 0; i < si->ndst; i++) {
            w->reg_ready[si->dst[i]] = now + (uint64_t)s->cfg.smem_latency + cyc - 1;
            w->reg_why[si->dst[i]] = WHY_L1;
        }
        return cyc;
    }
    if (ev->space == MB_SPACE_PARAM || ev->space == MB_SPACE_CONST) {
        /* distinct addresses are served one per cycle */
        uint64_t seen[32];
        uint32_t n = 0;
        for (uint32_t m = mask; m; m &= m - 1) {
            uint64_t a = addrs[__builtin_ctz(m)];
            uint32_t i = 0;
            while (i < n && seen[i] != a)
                i++;
            if (i == n)
                seen[n++] = a;
        }
        uint32_t load = NONE;
        if (ev->space == MB_SPACE_CONST && sm->cc.g.present) {
            for (uint32_t i = 0; i < n; i++) {
                uint64_t line = seen[i] & ~(uint64_t)(sm->cc.g.line - 1);
                s->stats.const_accesses++;
                int way = cache_find(&sm->cc, line);
                if (way >= 0 && sm->cc.valid[way]) {
                    s->stats.const_hits++;
                    cache_touch(&sm->cc, way);
                    continue;
                }
                if (load == NONE) {
                    load = new_load(sm, slot, si);
                    w->pending_loads++;
                }
                sm->loads[load].remaining++;
                uint64_t dirty;
                if (way < 0)
                    way = cache_alloc(&sm->cc, line, &dirty);
                if (way >= 0)
                    sm->cc.pending[way] = 1;
                uint64_t l128 = seen[i] & ~UINT64_C(127);
                send_to_l2(s, sm, l128, sector_mask(seen[i] & ~UINT64_C(31), 32), 0, 0, 1, 1, load);
                s->reqs[sm->missq_tail].l1_line = line;
            }
        }
        for (unsigned i = 0; i < si->ndst; i++) {
            w->reg_ready[si->dst[i]] = load == NONE ? now + lat + n - 1 : SIM_NEVER;
            w->reg_why[si->dst[i]] = load == NONE ? WHY_L1 : WHY_L2;
        }
        drain_missq(s, sm, tick);
        return n ? n : 1;
    }
    /* global and local memory */
    uint64_t local_addrs[32];
    if (ev->space == MB_SPACE_LOCAL) {
        /* local words are interleaved across the warp's lanes, as hardware lays them out */
        uint64_t uid = mb_step_cta_index(w->cta) * s->warps_per_cta + w->wid;
        for (uint32_t m = mask; m; m &= m - 1) {
            int l = __builtin_ctz(m);
            uint64_t off = addrs[l];
            local_addrs[l] = LOCAL_BASE + (((uid << 18) + off / 4) * 128) + (uint64_t)l * 4 + off % 4;
        }
        addrs = local_addrs;
        bytes = bytes > 4 ? 4 : bytes;
    }
    txn t[64];
    uint32_t ntrans = 0;
    unsigned n = coalesce(s, addrs, mask, bytes, t, 64, &ntrans);
    s->stats.gmem_insts++;
    s->stats.gmem_transactions += ntrans;
    uint32_t load = NONE;
    if (!si->is_store) { /* loads and atomics with a result wait for their transactions */
        load = new_load(sm, slot, si);
        w->pending_loads++;
        sm->loads[load].remaining = 1; /* held until every transaction is issued */
    }
    sim_cache *l1 = &sm->l1;
    for (unsigned i = 0; i < n; i++) {
        if (si->is_atomic) {
            s->stats.atomics++;
            if (l1->g.present) {
                int way = cache_find(l1, t[i].line);
                if (way >= 0 && !l1->pending[way])
                    l1->tag[way] = 0; /* the line is updated at L2 */
            }
            if (load != NONE)
                sm->loads[load].remaining++;
            send_to_l2(s, sm, t[i].line, t[i].sectors, 0, 1, 0, t[i].lanes, load);
            continue;
        }
        if (si->is_store) {
            if (l1->g.present) {
                s->stats.l1_accesses++;
                int way = cache_find(l1, t[i].line);
                if (way >= 0) {
                    s->stats.l1_hits++;
                    cache_touch(l1, way);
                }
            }
            send_to_l2(s, sm, t[i].line, t[i].sectors, 1, 0, 0, t[i].lanes, NONE);
            continue;
        }
        if (!l1->g.present) {
            sm->loads[load].remaining++;
            send_to_l2(s, sm, t[i].line, t[i].sectors, 0, 0, 0, t[i].lanes, load);
            continue;
        }
        /* L1: lines of the L1's size; sectors of 32 bytes when sectored */
        uint64_t line = t[i].line & ~(uint64_t)(l1->g.line - 1);
        uint8_t want = l1->g.sectored ? (uint8_t)(t[i].sectors << ((t[i].line - line) / 32)) : 1;
        s->stats.l1_accesses++;
        int way = cache_find(l1, line);
        if (way >= 0 && (l1->valid[way] & want) == want) {
            s->stats.l1_hits++;
            cache_touch(l1, way);
            continue;
        }
        sim_mshr *m = way >= 0 && (l1->pending[way] & want) ? find_mshr(sm, line) : NULL;
        if (m && m->merged < l1->g.mshr_merge && ((l1->valid[way] | l1->pending[way]) & want) == want) {
            s->stats.l1_mshr_merges++;
            sm->loads[load].remaining++;
            mshr_add_waiter(s, m, load);
            continue;
        }
        s->stats.l1_misses++;
        uint8_t fetch = want;
        if (way >= 0 && !l1->pending[way])
            fetch = (uint8_t)(want & ~l1->valid[way]);
        if (way < 0) {
            uint64_t dirty;
            way = cache_alloc(l1, line, &dirty);
        }
        m = NULL;
        if (way >= 0 && !l1->pending[way]) {
            m = alloc_mshr(sm, line);
            if (m)
                l1->pending[way] = fetch;
        }
        if (!m) {
            /* every way of the set is waiting for a fill: fetch without allocating */
            sm->loads[load].remaining++;
            send_to_l2(s, sm, t[i].line, t[i].sectors, 0, 0, 0, t[i].lanes, load);
            continue;
        }
        sm->loads[load].remaining++;
        mshr_add_waiter(s, m, load);
        /* the fill: the sectors missing (sectored) or the whole line, from its first 128 bytes */
        send_to_l2(s, sm, line, l1->g.sectored ? (uint8_t)(fetch & 0xF) : 0xF, 0, 0, 0,
                   t[i].lanes, NONE);
        s->reqs[sm->missq_tail].bytes = (uint16_t)(l1->g.sectored ? 32 * mb_popcount32(fetch)
                                                                  : l1->g.line);
        s->reqs[sm->missq_tail].l1_line = line;
    }
    if (load != NONE) {
        for (unsigned i = 0; i < si->ndst; i++) {
            w->reg_ready[si->dst[i]] = SIM_NEVER;
            w->reg_why[si->dst[i]] = WHY_L2;
        }
        /* release the hold: all hits complete after the L1 latency */
        sim_load *l = &sm->loads[load];
        if (l->remaining == 1) {
            l->remaining = 0;
            load_part_done(s, sm, load, WHY_L1, now + lat + (ntrans > n ? 0 : 0) + (n ? n - 1 : 0));
        } else {
            l->remaining--;
        }
    }
    drain_missq(s, sm, tick);
    return ntrans ? ntrans : 1;
}

/* ------------------------------------------------------ partitions */

static void respond(mb_sim *s, uint32_t r, uint64_t t, uint8_t why)
{
    sim_req *q = &s->reqs[r];
    if (q->is_write) {
        free_req(s, r);
        return;
    }
    q->why = why;
    sim_channel *ch = &s->channels[q->channel];
    uint32_t flit = (uint32_t)s->cfg.flit_size;
    uint32_t flits = (q->bytes + flit - 1) / flit;
    if (!flits)
        flits = 1;
    uint64_t depart = t > ch->port_free ? t : ch->port_free;
    ch->port_free = depart + flits * s->t_icnt;
    s->stats.icnt_flits += flits;
    push_event(s, depart + (uint64_t)s->cfg.icnt_latency * s->t_icnt + flits * s->t_icnt,
               EV_SM_RESPONSE, r);
}

static void dram_enqueue(mb_sim *s, uint32_t r, uint64_t t)
{
    push_event(s, t, EV_DRAM_ARRIVE, r);
}

static void dram_arrive(mb_sim *s, uint32_t r, uint64_t t)
{
    sim_req *q = &s->reqs[r];
    sim_channel *ch = &s->channels[q->channel];
    q->next = NONE;
    q->arrival = t;
    if (ch->q_head == NONE) {
        ch->q_head = r;
    } else {
        uint32_t i = ch->q_head;
        while (s->reqs[i].next != NONE)
            i = s->reqs[i].next;
        s->reqs[i].next = r;
    }
    ch->q_len++;
    if (!ch->sched_pending) {
        ch->sched_pending = 1;
        push_event(s, t, EV_DRAM_SCHED, q->channel);
    }
}

static void dram_schedule(mb_sim *s, uint32_t c, uint64_t t)
{
    sim_channel *ch = &s->channels[c];
    if (ch->q_head == NONE) {
        ch->sched_pending = 0;
        return;
    }
    const sim_derived *d = &s->d;
    uint64_t T = s->t_dram;
    /* FR-FCFS: the oldest row hit among the requests the scheduler sees, else the oldest */
    uint32_t pick = ch->q_head, prev_pick = NONE;
    if (s->cfg.dram_scheduler == 1) {
        uint32_t i = ch->q_head, prev = NONE;
        for (int64_t k = 0; i != NONE && k < s->cfg.dram_queue; k++) {
            const sim_req *q = &s->reqs[i];
            if (ch->banks[q->bank].open_row == q->row + 1) {
                pick = i;
                prev_pick = prev;
                break;
            }
            prev = i;
            i = q->next;
        }
    }
    sim_req *q = &s->reqs[pick];
    if (prev_pick == NONE)
        ch->q_head = q->next;
    else
        s->reqs[prev_pick].next = q->next;
    ch->q_len--;
    sim_dram_bank *b = &ch->banks[q->bank];
    uint64_t cmd;
    if (b->open_row == q->row + 1) {
        s->stats.dram_row_hits++;
        cmd = t > b->ready ? t : b->ready;
    } else {
        s->stats.dram_row_misses++;
        uint64_t act = t > b->ready ? t : b->ready;
        if (act < b->data_end)
            act = b->data_end;
        if (b->open_row) {
            uint64_t pre = act > b->act_time + d->tRAS * T ? act : b->act_time + d->tRAS * T;
            act = pre + d->tRP * T;
        }
        if (b->act_time && act < b->act_time + d->tRC * T)
            act = b->act_time + d->tRC * T;
        b->act_time = act;
        b->open_row = q->row + 1;
        cmd = act + d->tRCD * T;
    }
    uint64_t data_ready = cmd + (q->is_write ? d->tWL : d->tCL) * T;
    uint32_t burst_bytes = (uint32_t)(s->cfg.dram_buswidth * s->cfg.mem_per_ctrlr * s->cfg.dram_burst);
    uint32_t bursts = (q->bytes + burst_bytes - 1) / burst_bytes;
    if (!bursts)
        bursts = 1;
    /* a burst of BL transfers takes BL / ratio command cycles, in ticks */
    uint64_t burst_ticks = (uint64_t)bursts * (uint64_t)s->cfg.dram_burst * T / (uint64_t)s->cfg.dram_ratio;
    uint64_t data_start = data_ready > ch->bus_free ? data_ready : ch->bus_free;
    ch->bus_free = data_start + burst_ticks;
    /* the next column command to the open row may follow after tCCD; its data
     * queues for the bus behind this one */
    b->ready = cmd + (d->tCCD ? d->tCCD : 1) * T;
    b->data_end = data_start + burst_ticks;
    s->stats.dram_busy_ticks += burst_ticks;
    s->stats.dram_bytes += q->bytes;
    if (q->is_write)
        s->stats.dram_writes++;
    else
        s->stats.dram_reads++;
    uint64_t done = data_start + burst_ticks + (uint64_t)s->cfg.dram_latency * SIM_TICKS;
    push_event(s, done, EV_DRAM_DONE, pick);
    /* choose the next request when the bus is about to free, early enough
     * that a row miss (precharge, activate, read) is ready by then: later
     * means more requests to choose row hits from, earlier means no bubble */
    uint64_t next = t + T;
    uint64_t lead = burst_ticks + (uint64_t)(d->tRP + d->tRCD + d->tCL) * T;
    if (ch->bus_free > lead && ch->bus_free - lead > next)
        next = ch->bus_free - lead;
    if (ch->q_head != NONE)
        push_event(s, next, EV_DRAM_SCHED, c);
    else
        ch->sched_pending = 0;
}

static uint32_t l2_find_mshr(sim_slice *sl, uint64_t line)
{
    for (uint32_t i = 0; i < sl->nmshr; i++)
        if (sl->mshr_addr[i] == line)
            return i;
    return NONE;
}

/* A load found to miss in L2 now waits on DRAM: its warp's registers say so,
 * so the stall breakdown charges the wait to DRAM from here on. */
static void mark_load_dram(mb_sim *s, sim_sm *sm, uint32_t id)
{
    sim_load *l = &sm->loads[id];
    l->why = WHY_DRAM;
    sim_warp *w = &sm->warps[l->warp];
    for (unsigned i = 0; i < l->ndst; i++)
        w->reg_why[l->dst[i]] = WHY_DRAM;
    sim_wake_warp(s, sm, l->warp); /* the SM looks again, so its stall category changes now */
}

static void mark_dram(mb_sim *s, const sim_req *q)
{
    sim_sm *sm = &s->sms[q->sm];
    if (q->load != NONE) {
        mark_load_dram(s, sm, q->load);
        return;
    }
    if (q->from_const || !sm->l1.g.present)
        return;
    sim_mshr *m = find_mshr(sm, q->l1_line);
    for (uint32_t w = m ? m->waiters : NONE; w != NONE; w = s->reqs[w].next)
        mark_load_dram(s, sm, s->reqs[w].load);
}

static void l2_arrive(mb_sim *s, uint32_t r, uint64_t t)
{
    sim_req *q = &s->reqs[r];
    sim_slice *sl = &s->slices[q->slice];
    uint64_t start = t > sl->port_free ? t : sl->port_free;
    uint32_t ops = q->is_atomic ? (q->atomic_ops ? q->atomic_ops : 1) : 1;
    sl->port_free = start + ops * s->t_l2;
    sim_cache *l2 = &sl->l2;
    if (!l2->g.present) {
        q->why = WHY_DRAM;
        if (!q->is_write)
            mark_dram(s, q);
        uint32_t f = new_req(s);
        q = &s->reqs[r]; /* new_req may move the pool */
        sim_req *fq = &s->reqs[f];
        *fq = *q;
        fq->next = NONE;
        fq->load = r; /* the fill answers the original */
        fq->is_write = q->is_write;
        if (q->is_write) {
            fq->load = NONE;
            free_req(s, r);
        }
        dram_enqueue(s, f, start + s->t_l2);
        return;
    }
    s->stats.l2_accesses++;
    uint64_t line = q->addr & ~(uint64_t)(l2->g.line - 1);
    uint8_t want = sectors_of(l2, q->addr, 128);
    if (l2->sectors > 1)
        want = (uint8_t)(q->sectors << ((q->addr - line) / 32));
    int way = cache_find(l2, line);
    if (q->is_write) {
        if (way >= 0) {
            s->stats.l2_hits++;
            l2->valid[way] |= want;
            l2->dirty[way] = 1;
            cache_touch(l2, way);
            free_req(s, r);
            return;
        }
        s->stats.l2_misses++;
        if (l2->g.write == 'B' && l2->g.write_alloc != 'N') {
            uint64_t dirty;
            way = cache_alloc(l2, line, &dirty);
            if (dirty) {
                s->stats.l2_writebacks++;
                uint32_t wb = new_req(s);
                s->reqs[wb].addr = dirty - 1;
                s->reqs[wb].is_write = 1;
                s->reqs[wb].bytes = (uint16_t)l2->g.line;
                s->reqs[wb].load = NONE;
                map_addr(s, &s->reqs[wb]);
                dram_enqueue(s, wb, start + s->t_l2);
            }
            if (way >= 0) {
                l2->valid[way] = want; /* lazy fetch: written sectors become valid */
                l2->dirty[way] = 1;
                free_req(s, r);
                return;
            }
        }
        dram_enqueue(s, r, start + s->t_l2); /* write-through or no allocation */
        return;
    }
    if (way >= 0 && (l2->valid[way] & want) == want) {
        s->stats.l2_hits++;
        cache_touch(l2, way);
        respond(s, r, start + (uint64_t)s->cfg.l2_latency * s->t_l2 + (ops - 1) * s->t_l2, WHY_L2);
        return;
    }
    s->stats.l2_misses++;
    q->why = WHY_DRAM;
    mark_dram(s, q);
    uint32_t mi = l2_find_mshr(sl, line);
    if (mi != NONE && way >= 0 && ((l2->valid[way] | l2->pending[way]) & want) == want) {
        q->next = sl->mshr_waiters[mi];
        sl->mshr_waiters[mi] = r;
        return;
    }
    uint8_t fetch = want;
    if (way < 0) {
        uint64_t dirty;
        way = cache_alloc(l2, line, &dirty);
        if (dirty) {
            s->stats.l2_writebacks++;
            uint32_t wb = new_req(s);
            s->reqs[wb].addr = dirty - 1;
            s->reqs[wb].is_write = 1;
            s->reqs[wb].bytes = (uint16_t)l2->g.line;
            s->reqs[wb].load = NONE;
            map_addr(s, &s->reqs[wb]);
            dram_enqueue(s, wb, start + s->t_l2);
            q = &s->reqs[r]; /* new_req may move the pool */
        }
    } else {
        fetch = (uint8_t)(want & ~l2->valid[way] & ~l2->pending[way]);
    }
    if (way >= 0)
        l2->pending[way] |= fetch;
    if (mi == NONE) {
        if (sl->nmshr == sl->cap_mshr) {
            uint32_t n = sl->cap_mshr ? sl->cap_mshr * 2 : 16;
            uint64_t *a = realloc(sl->mshr_addr, n * sizeof(uint64_t));
            if (!a)
                abort();
            sl->mshr_addr = a;
            uint32_t *wv = realloc(sl->mshr_waiters, n * sizeof(uint32_t));
            if (!wv)
                abort();
            sl->mshr_waiters = wv;
            sl->cap_mshr = n;
        }
        mi = sl->nmshr++;
        sl->mshr_addr[mi] = line;
        sl->mshr_waiters[mi] = NONE;
    }
    q->next = sl->mshr_waiters[mi];
    sl->mshr_waiters[mi] = r;
    if (!fetch)
        return; /* already being fetched */
    uint32_t slice = q->slice;
    uint32_t f = new_req(s);
    sim_req *fq = &s->reqs[f];
    fq->addr = line;
    fq->sectors = fetch;
    fq->bytes = (uint16_t)(l2->sectors > 1 ? 32 * mb_popcount32(fetch) : l2->g.line);
    fq->slice = slice;
    fq->load = NONE;
    fq->from_const = 2; /* marks an L2 fill */
    map_addr(s, fq);
    dram_enqueue(s, f, start + s->t_l2);
}

static void dram_done(mb_sim *s, uint32_t f, uint64_t t)
{
    sim_req *fq = &s->reqs[f];
    if (fq->is_write) {
        free_req(s, f);
        return;
    }
    if (fq->from_const != 2) {
        /* no L2: answer the original request */
        uint32_t r = fq->load;
        free_req(s, f);
        respond(s, r, t, WHY_DRAM);
        return;
    }
    sim_slice *sl = &s->slices[fq->slice];
    sim_cache *l2 = &sl->l2;
    int way = cache_find(l2, fq->addr);
    if (way >= 0) {
        l2->valid[way] |= fq->sectors;
        l2->pending[way] &= (uint8_t)~fq->sectors;
    }
    uint64_t line = fq->addr;
    free_req(s, f);
    uint32_t mi = l2_find_mshr(sl, line);
    if (mi == NONE)
        return;
    if (way >= 0 && l2->pending[way])
        return; /* other sectors still on their way: waiters answer when the last arrives */
    uint32_t r = sl->mshr_waiters[mi];
    sl->mshr_addr[mi] = sl->mshr_addr[sl->nmshr - 1];
    sl->mshr_waiters[mi] = sl->mshr_waiters[sl->nmshr - 1];
    sl->nmshr--;
    uint64_t k = 0;
    while (r != NONE) {
        uint32_t next = s->reqs[r].next;
        uint32_t ops = s->reqs[r].is_atomic ? s->reqs[r].atomic_ops : 0;
        respond(s, r, t + s->t_l2 * (1 + ops + k), WHY_DRAM);
        k++;
        r = next;
    }
}

static void sm_response(mb_sim *s, uint32_t r, uint64_t t)
{
    sim_req *q = &s->reqs[r];
    sim_sm *sm = &s->sms[q->sm];
    uint64_t cycle = (t + SIM_TICKS - 1) / SIM_TICKS;
    uint8_t why = q->why;
    /* every read that took an MSHR gives it back, the fills of an L1 line and
     * the loads answered directly alike (one fetched while every way of its
     * set was waiting, one bypassing the L1) */
    if (q->holds_mshr)
        sm->mshr_used--;
    if (q->from_const == 1) {
        if (sm->cc.g.present) {
            int way = cache_find(&sm->cc, q->l1_line);
            if (way >= 0) {
                sm->cc.valid[way] = 1;
                sm->cc.pending[way] = 0;
            }
        }
        if (q->load != NONE)
            load_part_done(s, sm, q->load, why, cycle + (uint64_t)s->cfg.l1_latency);
        free_req(s, r);
        return;
    }
    if (q->load != NONE) {
        /* uncached or atomic: answers one load directly */
        load_part_done(s, sm, q->load, why, cycle);
        free_req(s, r);
        drain_missq(s, sm, t);
        return;
    }
    /* an L1 fill: complete the MSHR and its merged loads */
    sim_cache *l1 = &sm->l1;
    uint64_t line = q->l1_line;
    int way = cache_find(l1, line);
    if (way >= 0) {
        l1->valid[way] |= l1->pending[way] ? l1->pending[way] : 1;
        l1->pending[way] = 0;
    }
    sim_mshr *m = find_mshr(sm, line);
    free_req(s, r);
    if (m) {
        uint32_t w = m->waiters;
        m->used = 0;
        while (w != NONE) {
            uint32_t next = s->reqs[w].next;
            load_part_done(s, sm, s->reqs[w].load, why, cycle);
            free_req(s, w);
            w = next;
        }
    }
    drain_missq(s, sm, t);
}

void sim_mem_advance(mb_sim *s, uint64_t t)
{
    while (s->nheap && s->heap[0].tick <= t) {
        sim_event e = pop_event(s);
        switch (e.kind) {
        case EV_L2_ARRIVE:
            l2_arrive(s, e.arg, e.tick);
            break;
        case EV_DRAM_SCHED:
            dram_schedule(s, e.arg, e.tick);
            break;
        case EV_DRAM_ARRIVE:
            dram_arrive(s, e.arg, e.tick);
            break;
        case EV_DRAM_DONE:
            dram_done(s, e.arg, e.tick);
            break;
        case EV_SM_RESPONSE:
            sm_response(s, e.arg, e.tick);
            break;
        default:
            break;
        }
    }
}
