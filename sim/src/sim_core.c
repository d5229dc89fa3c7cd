/* The SMs: CTA dispatch by occupancy, warp schedulers (loose round robin,
 * greedy-then-oldest, two-level), the scoreboard, functional units, issue
 * through the executor's stepping API, and the cycle loop that skips
 * cycles in which nothing can issue. */
#include "sim_internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t ticks_per(double core_mhz, double mhz)
{
    double t = SIM_TICKS * core_mhz / mhz;
    uint64_t v = (uint64_t)(t + 0.5);
    return v ? v : 1;
}

static void free_sms(mb_sim *s)
{
    for (uint32_t i = 0; s->sms && i < s->nsm; i++) {
        sim_sm *sm = &s->sms[i];
        if (sm->warps)
            for (uint32_t w = 0; w < sm->nwarp_slots; w++) {
                free(sm->warps[w].reg_ready);
                free(sm->warps[w].reg_why);
            }
        free(sm->warps);
        free(sm->cta_slots);
        free(sm->cta_live);
        if (sm->sched)
            for (uint32_t k = 0; k < (uint32_t)s->cfg.sched_per_core; k++)
                free(sm->sched[k].warps);
        free(sm->sched);
        free(sm->unit_free);
        sim_cache_free(&sm->l1);
        sim_cache_free(&sm->cc);
        free(sm->mshr);
        free(sm->loads);
    }
    free(s->sms);
}

void mb_sim_free(mb_sim *s)
{
    if (!s)
        return;
    free_sms(s);
    sim_mem_free(s);
    free(s->insns);
    free(s->sched_stall);
    free(s->awake);
    free(s);
}

mb_status mb_sim_new(const mb_sim_config *cfg, mb_sim **out, mb_error *err)
{
    *out = NULL;
    mb_sim *s = calloc(1, sizeof(*s));
    if (!s)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    s->cfg = *cfg;
    mb_status st = sim_config_derive(cfg, &s->d, "config", err);
    if (st != MB_OK) {
        free(s);
        return st;
    }
    s->nsm = (uint32_t)(cfg->n_clusters * cfg->cores_per_cluster);
    s->t_icnt = ticks_per(s->d.core_mhz, s->d.icnt_mhz);
    s->t_l2 = ticks_per(s->d.core_mhz, s->d.l2_mhz);
    s->t_dram = ticks_per(s->d.core_mhz, s->d.dram_mhz);
    uint32_t nsched = (uint32_t)cfg->sched_per_core;
    s->nsched_total = s->nsm * nsched;
    s->sched_stall = calloc((size_t)s->nsched_total * MB_SIM_STALL_COUNT, sizeof(uint64_t));
    s->sms = calloc(s->nsm, sizeof(sim_sm));
    s->awake = calloc((s->nsm + 63) / 64 + 1, sizeof(uint64_t));
    if (!s->sched_stall || !s->sms || !s->awake) {
        mb_sim_free(s);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    for (uint32_t i = 0; i < s->nsm; i++) /* every next_wake starts at 0 */
        s->awake[i / 64] |= (uint64_t)1 << (i % 64);
    uint32_t counts[MB_SIM_UNIT_COUNT] = {(uint32_t)cfg->num_sp, (uint32_t)cfg->num_sfu,
                                          (uint32_t)cfg->num_dp, (uint32_t)cfg->num_int,
                                          (uint32_t)cfg->num_mem};
    uint32_t nunits = 0;
    for (int u = 0; u < MB_SIM_UNIT_COUNT; u++)
        nunits += counts[u];
    uint32_t slots = s->d.max_threads / 32;
    for (uint32_t i = 0; i < s->nsm; i++) {
        sim_sm *sm = &s->sms[i];
        sm->id = i;
        sm->nwarp_slots = slots;
        sm->warps = calloc(slots, sizeof(sim_warp));
        sm->cta_slots = calloc((size_t)cfg->max_ctas, sizeof(mb_step_cta *));
        sm->cta_live = calloc((size_t)cfg->max_ctas, sizeof(uint32_t));
        sm->sched = calloc(nsched, sizeof(sim_sched));
        sm->unit_free = calloc(nunits, sizeof(uint64_t));
        sm->mshr = calloc((size_t)s->d.dl1.mshr_entries * 2 + 64, sizeof(sim_mshr));
        int ok = sm->warps && sm->cta_slots && sm->cta_live && sm->sched && sm->unit_free && sm->mshr &&
                 sim_cache_init(&sm->l1, &s->d.dl1) && sim_cache_init(&sm->cc, &s->d.cl1);
        for (uint32_t k = 0; ok && k < nsched; k++)
            ok = (sm->sched[k].warps = calloc(slots, sizeof(uint32_t))) != NULL;
        if (!ok) {
            mb_sim_free(s);
            return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory for %u SMs", s->nsm);
        }
        uint32_t first = 0;
        for (int u = 0; u < MB_SIM_UNIT_COUNT; u++) {
            sm->unit_first[u] = first;
            sm->unit_count[u] = counts[u];
            first += counts[u];
        }
        /* DP without DP units runs on the SFUs; integer without INT units on the SPs */
        if (!counts[MB_SIM_UNIT_DP]) {
            sm->unit_first[MB_SIM_UNIT_DP] = sm->unit_first[MB_SIM_UNIT_SFU];
            sm->unit_count[MB_SIM_UNIT_DP] = counts[MB_SIM_UNIT_SFU];
        }
        if (!counts[MB_SIM_UNIT_INT]) {
            sm->unit_first[MB_SIM_UNIT_INT] = sm->unit_first[MB_SIM_UNIT_SP];
            sm->unit_count[MB_SIM_UNIT_INT] = counts[MB_SIM_UNIT_SP];
        }
        sm->free_load = UINT32_MAX;
    }
    st = sim_mem_init(s, err);
    if (st != MB_OK) {
        mb_sim_free(s);
        return st;
    }
    *out = s;
    return MB_OK;
}

void mb_sim_set_progress(mb_sim *s, mb_sim_progress_fn fn, void *ctx, uint64_t every)
{
    s->progress = fn;
    s->progress_ctx = ctx;
    s->progress_every = every ? every : 1;
}

const mb_sim_stats *mb_sim_get_stats(const mb_sim *s)
{
    return &s->stats;
}

/* ------------------------------------------------------------ CTAs */

/* Adds `cycles` cycles in which SM `sm` did not change to its schedulers' categories. */
static void account_skipped(mb_sim *s, sim_sm *sm, uint64_t cycles)
{
    uint32_t nsched = (uint32_t)s->cfg.sched_per_core;
    for (uint32_t k = 0; k < nsched; k++) {
        sim_sched *sc = &sm->sched[k];
        uint8_t cat = sc->nwarps ? sc->last_cat : MB_SIM_STALL_IDLE;
        if (cat == MB_SIM_STALL_ISSUED)
            cat = MB_SIM_STALL_IDLE;
        s->sched_stall[((size_t)sm->id * nsched + k) * MB_SIM_STALL_COUNT + cat] += cycles;
    }
}

/* Statistics of an SM are brought up to date lazily: the cycles since it was
 * last looked at are charged to its schedulers' last categories (nothing in
 * the SM changed in between) and to occupancy. */
static void sm_flush(mb_sim *s, sim_sm *sm, uint64_t upto)
{
    if (upto <= sm->acct)
        return;
    uint64_t cycles = upto - sm->acct;
    account_skipped(s, sm, cycles);
    s->stats.warp_cycles += sm->live_warps * cycles;
    sm->acct = upto;
}


static int cta_fits(const mb_sim *s, const sim_sm *sm)
{
    return sm->ctas < (uint32_t)s->cfg.max_ctas &&
           sm->threads + s->warps_per_cta * 32 <= s->d.max_threads &&
           sm->regs + s->regs_per_cta <= (uint64_t)s->cfg.registers &&
           sm->shared + s->shared_per_cta <= (uint64_t)s->cfg.shmem_size;
}

static mb_status start_cta(mb_sim *s, sim_sm *sm)
{
    mb_step_cta *c = NULL;
    sm_flush(s, sm, s->now); /* cycle `now` itself is charged by this cycle's scan or a later flush */
    mb_status st = mb_stepper_cta_start(s->stepper, s->next_cta, &c, s->err);
    if (st != MB_OK)
        return st;
    s->next_cta++;
    uint32_t cslot = 0;
    while (sm->cta_slots[cslot])
        cslot++;
    sm->cta_slots[cslot] = c;
    sm->cta_live[cslot] = s->warps_per_cta;
    sm->ctas++;
    sm->threads += s->warps_per_cta * 32;
    sm->regs += s->regs_per_cta;
    sm->shared += s->shared_per_cta;
    uint32_t nsched = (uint32_t)s->cfg.sched_per_core;
    uint32_t slot = 0;
    for (uint32_t wi = 0; wi < s->warps_per_cta; wi++) {
        while (sm->warps[slot].live)
            slot++;
        sim_warp *w = &sm->warps[slot];
        if (w->reg_cap < s->nslots || !w->reg_ready) {
            /* grown when a slot is first used: a launch of a few warps
             * should not pay for the scoreboards of every slot of every SM */
            const uint32_t n = s->nslots ? s->nslots : 1;
            uint64_t *ready = realloc(w->reg_ready, (size_t)n * sizeof(uint64_t));
            if (ready)
                w->reg_ready = ready;
            uint8_t *why = ready ? realloc(w->reg_why, n) : NULL;
            if (!why)
                return mb_error_set(s->err, MB_ERR_NOMEM, "", 0, 0, "out of memory for warp state");
            w->reg_why = why;
            w->reg_cap = n;
        }
        w->cta = c;
        w->wid = wi;
        w->cta_slot = cslot;
        w->age = sm->age++;
        w->live = 1;
        w->valid_next = 0;
        w->pending_loads = 0;
        w->two_level_active = 0;
        memset(w->reg_ready, 0, (size_t)s->nslots * sizeof(uint64_t));
        memset(w->reg_why, 0, s->nslots);
        sim_sched *sc = &sm->sched[slot % nsched];
        sc->warps[sc->nwarps++] = slot; /* newest last: the list stays in age order */
        sm->live_warps++;
    }
    sim_set_wake(s, sm, 0);
    return MB_OK;
}

static mb_status dispatch(mb_sim *s)
{
    int placed = 1;
    while (placed && s->next_cta < s->nctas) {
        placed = 0;
        for (uint32_t k = 0; k < s->nsm && s->next_cta < s->nctas; k++) {
            sim_sm *sm = &s->sms[(s->next_sm + k) % s->nsm];
            if (!cta_fits(s, sm))
                continue;
            mb_status st = start_cta(s, sm);
            if (st != MB_OK)
                return st;
            placed = 1;
        }
        s->next_sm = (s->next_sm + 1) % s->nsm;
    }
    return MB_OK;
}

static void warp_finished(mb_sim *s, sim_sm *sm, uint32_t slot)
{
    sim_warp *w = &sm->warps[slot];
    sim_sched *sc = &sm->sched[slot % (uint32_t)s->cfg.sched_per_core];
    for (uint32_t i = 0; i < sc->nwarps; i++)
        if (sc->warps[i] == slot) {
            memmove(&sc->warps[i], &sc->warps[i + 1], (sc->nwarps - i - 1) * sizeof(uint32_t));
            sc->nwarps--;
            if (sc->last > i || sc->last >= sc->nwarps)
                sc->last = sc->last ? sc->last - 1 : 0;
            break;
        }
    w->live = 0;
    sm->live_warps--;
    uint32_t cslot = w->cta_slot;
    if (--sm->cta_live[cslot] == 0) {
        mb_stepper_cta_finish(s->stepper, sm->cta_slots[cslot]);
        sm->cta_slots[cslot] = NULL;
        sm->ctas--;
        sm->threads -= s->warps_per_cta * 32;
        sm->regs -= s->regs_per_cta;
        sm->shared -= s->shared_per_cta;
        s->ctas_done++;
    }
}

/* --------------------------------------------------------- issue */

static const uint8_t why_stall[] = {MB_SIM_STALL_COMPUTE, MB_SIM_STALL_L1, MB_SIM_STALL_L2,
                                    MB_SIM_STALL_DRAM};

/* Refreshes the cached readiness of a warp's next instruction. */
static void evaluate(mb_sim *s, sim_warp *w)
{
    uint32_t pc = mb_step_warp_pc(w->cta, w->wid);
    const sim_insn *si = &s->insns[pc < s->ninsns ? pc : 0];
    uint64_t ready = 0;
    uint8_t why = WHY_COMPUTE;
    for (unsigned i = 0; i < si->nsrc; i++) {
        uint64_t r = w->reg_ready[si->src[i]];
        if (r > ready) {
            ready = r;
            why = w->reg_why[si->src[i]];
        }
    }
    for (unsigned i = 0; i < si->ndst; i++) {
        uint64_t r = w->reg_ready[si->dst[i]];
        if (r > ready) {
            ready = r;
            why = w->reg_why[si->dst[i]];
        }
    }
    w->next = si;
    w->ready_at = ready;
    w->why = why;
    w->valid_next = 1;
}

/* A free instance of `unit`, or -1 (and the earliest cycle one frees). */
static int free_unit(const sim_sm *sm, unsigned unit, uint64_t now, uint64_t *earliest)
{
    uint32_t first = sm->unit_first[unit];
    for (uint32_t i = 0; i < sm->unit_count[unit]; i++) {
        uint64_t f = sm->unit_free[first + i];
        if (f <= now)
            return (int)(first + i);
        if (f < *earliest)
            *earliest = f;
    }
    return -1;
}

/* Can warp `slot` issue now? Returns the unit index, or -1 with `cat` set. */
static int check_warp(mb_sim *s, sim_sm *sm, uint32_t slot, uint8_t *cat, uint64_t *wake)
{
    sim_warp *w = &sm->warps[slot];
    uint64_t now = s->now;
    if (w->valid_next && w->ready_at > now) {
        /* evaluated and still waiting (an evaluated warp is never at a barrier) */
        *cat = why_stall[w->why];
        if (w->ready_at != SIM_NEVER && w->ready_at < *wake)
            *wake = w->ready_at;
        return -1;
    }
    mb_warp_state ws = mb_step_warp_state(w->cta, w->wid);
    if (ws != MB_WARP_READY) {
        *cat = MB_SIM_STALL_BARRIER;
        return -1;
    }
    if (!w->valid_next)
        evaluate(s, w);
    if (w->ready_at > now) {
        *cat = why_stall[w->why];
        if (w->ready_at != SIM_NEVER && w->ready_at < *wake)
            *wake = w->ready_at;
        return -1;
    }
    const sim_insn *si = w->next;
    if (si->unit == MB_SIM_UNIT_MEM) {
        int why;
        if (sim_mem_blocked(s, sm, &why)) {
            *cat = (uint8_t)why;
            return -1;
        }
    }
    int u = free_unit(sm, si->unit, now, wake);
    if (u < 0) {
        *cat = si->unit == MB_SIM_UNIT_MEM ? MB_SIM_STALL_MEMQ : MB_SIM_STALL_UNIT;
        return -1;
    }
    return u;
}

static mb_status issue(mb_sim *s, sim_sm *sm, uint32_t slot, int unit)
{
    sim_warp *w = &sm->warps[slot];
    const sim_insn *si = w->next;
    mb_step_event ev;
    mb_status st = mb_step_warp(w->cta, w->wid, &ev, s->err);
    if (st != MB_OK)
        return st;
    uint64_t now = s->now;
    s->stats.warp_insts++;
    s->stats.unit_warp_insts[si->unit]++;
    s->stats.thread_insts += (uint64_t)mb_popcount32(ev.active);
    if (si->kind == KIND_MEM) {
        uint32_t busy = sim_mem_issue(s, sm, slot, si, &ev);
        sm->unit_free[unit] = now + (busy > si->interval ? busy : si->interval);
    } else {
        sm->unit_free[unit] = now + si->interval;
        uint64_t ready = now + si->latency;
        for (unsigned i = 0; i < si->ndst; i++) {
            w->reg_ready[si->dst[i]] = ready;
            w->reg_why[si->dst[i]] = WHY_COMPUTE;
        }
    }
    w->valid_next = 0;
    if (ev.flags & (MB_STEP_RELEASED | MB_STEP_EXITED))
        sim_set_wake(s, sm, 0);
    if (ev.flags & MB_STEP_EXITED)
        warp_finished(s, sm, slot);
    return MB_OK;
}

/* Two-level scheduling: warps waiting on memory leave the active set; the
 * oldest ready pending warps fill it. */
static void two_level_update(mb_sim *s, sim_sm *sm, sim_sched *sc)
{
    uint32_t active = 0;
    for (uint32_t i = 0; i < sc->nwarps; i++) {
        sim_warp *w = &sm->warps[sc->warps[i]];
        if (!w->two_level_active)
            continue;
        if (!w->valid_next && mb_step_warp_state(w->cta, w->wid) == MB_WARP_READY)
            evaluate(s, w);
        if (w->valid_next && w->ready_at == SIM_NEVER)
            w->two_level_active = 0;
        else
            active++;
    }
    for (uint32_t i = 0; i < sc->nwarps && active < s->d.two_level_active; i++) {
        sim_warp *w = &sm->warps[sc->warps[i]];
        if (w->two_level_active)
            continue;
        if (!w->valid_next && mb_step_warp_state(w->cta, w->wid) == MB_WARP_READY)
            evaluate(s, w);
        if (w->valid_next && w->ready_at == SIM_NEVER)
            continue;
        w->two_level_active = 1;
        active++;
    }
}

/* One cycle of one SM: every scheduler picks a warp by its policy. */
static mb_status sm_cycle(mb_sim *s, sim_sm *sm, int *issued_any)
{
    uint32_t nsched = (uint32_t)s->cfg.sched_per_core;
    uint64_t wake = SIM_NEVER;
    uint32_t ipw = (uint32_t)s->cfg.issue_per_warp;
    for (uint32_t k = 0; k < nsched; k++) {
        sim_sched *sc = &sm->sched[k];
        uint64_t *stall = &s->sched_stall[((size_t)sm->id * nsched + k) * MB_SIM_STALL_COUNT];
        uint32_t n = sc->nwarps;
        if (!n) {
            sc->last_cat = MB_SIM_STALL_IDLE;
            stall[MB_SIM_STALL_IDLE]++;
            continue;
        }
        if (s->d.sched_kind == SCHED_TWO_LEVEL)
            two_level_update(s, sm, sc);
        int first_cat = -1;
        int done = 0;
        for (uint32_t i = 0; i < n && !done; i++) {
            uint32_t pos;
            if (s->d.sched_kind == SCHED_GTO)
                pos = i == 0 ? (sc->last < n ? sc->last : 0) : (i <= sc->last ? i - 1 : i);
            else
                pos = (sc->last + 1 + i) % n;
            if (pos >= n)
                continue;
            uint32_t slot = sc->warps[pos];
            if (s->d.sched_kind == SCHED_TWO_LEVEL && !sm->warps[slot].two_level_active)
                continue;
            uint8_t cat = MB_SIM_STALL_IDLE;
            int unit = check_warp(s, sm, slot, &cat, &wake);
            if (unit < 0) {
                if (first_cat < 0)
                    first_cat = cat;
                continue;
            }
            for (uint32_t m = 0; m < ipw; m++) {
                mb_status st = issue(s, sm, slot, unit);
                if (st != MB_OK)
                    return st;
                if (!sm->warps[slot].live || m + 1 == ipw)
                    break;
                uint8_t c2;
                uint64_t w2 = SIM_NEVER;
                unit = check_warp(s, sm, slot, &c2, &w2);
                if (unit < 0)
                    break;
            }
            /* the warp's next instruction waits for the next cycle; warps after it in
             * the order were not looked at, so the SM is looked at again next cycle */
            sim_warp *w = &sm->warps[slot];
            if (w->live) {
                if (!w->valid_next)
                    evaluate(s, w);
                if (w->ready_at < s->now + 1)
                    w->ready_at = s->now + 1;
            }
            if (s->now + 1 < wake)
                wake = s->now + 1;
            /* GTO keeps the issuing warp first; the others start after it */
            uint32_t nn = sc->nwarps;
            uint32_t p = 0;
            while (p < nn && sc->warps[p] != slot)
                p++;
            if (p < nn)
                sc->last = p;
            else if (s->d.sched_kind == SCHED_GTO || !nn)
                sc->last = 0; /* the issuing warp left: back to the oldest */
            else
                sc->last = (pos + nn - 1) % nn; /* round robin continues with the warp after it */
            done = 1;
        }
        uint8_t cat = done ? MB_SIM_STALL_ISSUED : (uint8_t)(first_cat < 0 ? MB_SIM_STALL_IDLE : first_cat);
        sc->last_cat = cat;
        stall[cat]++;
        if (done)
            *issued_any = 1;
    }
    sim_set_wake(s, sm, wake);
    return MB_OK;
}

/* ---------------------------------------------------------- launch */

static uint32_t regs_per_thread(const mb_sim *s, const mb_program *prog, const mb_launch_config *cfg)
{
    if (s->cfg.regs_per_thread)
        return (uint32_t)s->cfg.regs_per_thread;
    mb_resources res;
    mb_error err;
    if (mb_function_resources(mb_program_module(prog), cfg->kernel, &res, &err) != MB_OK)
        return 32;
    uint64_t r = res.regs_by_size[1] + res.regs_by_size[2] + 2ull * res.regs_by_size[3] +
                 4ull * res.regs_by_size[4];
    /* PTX declares virtual registers, far more than ptxas allocates: assume
     * the kernel fits at full thread occupancy unless it declares fewer */
    uint64_t full = (uint64_t)s->cfg.registers / s->d.max_threads;
    if (r > full)
        r = full;
    return r ? (uint32_t)r : 1;
}

/* The first SM after `i` (from 0 when i is UINT32_MAX) whose next_wake is
 * not SIM_NEVER; nsm when none. Read afresh at every step: looking at one
 * SM may wake a later one. */
static inline uint32_t next_awake(const mb_sim *s, uint32_t i)
{
    uint32_t k = i == UINT32_MAX ? 0 : i / 64;
    uint64_t bits = i == UINT32_MAX ? s->awake[0] : s->awake[k] & (~(uint64_t)1 << (i % 64));
    while (!bits) {
        if (++k * 64 >= s->nsm)
            return s->nsm;
        bits = s->awake[k];
    }
    return k * 64 + (uint32_t)__builtin_ctzll(bits);
}

static mb_status run_launch(mb_sim *s)
{
    mb_status st = dispatch(s);
    while (st == MB_OK) {
        uint64_t tick = s->now * SIM_TICKS;
        sim_mem_advance(s, tick);
        int issued = 0;
        for (uint32_t i = next_awake(s, UINT32_MAX); i < s->nsm && st == MB_OK; i = next_awake(s, i)) {
            sim_sm *sm = &s->sms[i];
            if (sm->next_wake > s->now)
                continue; /* asleep: accounted when it wakes */
            sm_flush(s, sm, s->now);
            st = sm_cycle(s, sm, &issued);
            s->stats.warp_cycles += sm->live_warps;
            sm->acct = s->now + 1;
        }
        if (st != MB_OK)
            break;
        if (s->ctas_done < s->nctas && s->next_cta < s->nctas)
            st = dispatch(s);
        if (st != MB_OK)
            break;
        if (s->ctas_done == s->nctas && !s->nheap)
            break;
        if (s->progress && s->now >= s->progress_next) {
            s->progress(s->progress_ctx, s->stats.cycles + s->now, s->stats.thread_insts);
            s->progress_next = s->now + s->progress_every;
        }
        uint64_t next = s->now + 1;
        if (!issued) {
            /* nothing issued: jump to the next cycle at which anything can change */
            uint64_t t = sim_mem_next_tick(s);
            uint64_t target = t == SIM_NEVER ? SIM_NEVER : (t + SIM_TICKS - 1) / SIM_TICKS;
            for (uint32_t i = next_awake(s, UINT32_MAX); i < s->nsm; i = next_awake(s, i))
                if (s->sms[i].live_warps && s->sms[i].next_wake < target)
                    target = s->sms[i].next_wake;
            if (target == SIM_NEVER)
                return mb_error_set(s->err, MB_ERR_FAULT, "", 0, 0,
                                    "simulator stalled at cycle %llu with no pending event",
                                    (unsigned long long)s->now);
            if (target > next)
                next = target;
        }
        s->now = next;
    }
    return st;
}

mb_status mb_sim_launch(mb_sim *s, mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                        const mb_exec_options *opt, mb_error *err)
{
    mb_status st = mb_stepper_new(prog, mem, cfg, opt, &s->stepper, err);
    if (st != MB_OK)
        return st;
    s->err = err;
    s->prog = prog;
    st = sim_build_insns(s, prog, err);
    s->nctas = mb_stepper_nctas(s->stepper);
    s->warps_per_cta = mb_stepper_cta_warps(s->stepper);
    s->shared_per_cta = mb_stepper_shared_bytes(s->stepper);
    uint32_t rpt = regs_per_thread(s, prog, cfg);
    s->regs_per_cta = rpt * 32 * s->warps_per_cta;
    s->next_cta = s->ctas_done = 0;
    s->next_sm = 0;
    s->now = 0;
    s->progress_next = 0;
    if (st == MB_OK && (s->warps_per_cta * 32 > s->d.max_threads || s->regs_per_cta > (uint64_t)s->cfg.registers ||
                        s->shared_per_cta > (uint64_t)s->cfg.shmem_size))
        st = mb_error_set(err, MB_ERR_INVALID, mb_program_module(prog)->filename, cfg->kernel->line, 0,
                          "kernel %s: a CTA of %u threads, %u registers per thread and %u bytes of "
                          "shared memory does not fit one SM (%u threads, %lld registers, %lld "
                          "bytes of shared memory); see -mb_regs_per_thread",
                          cfg->kernel->name, s->warps_per_cta * 32, rpt, s->shared_per_cta,
                          s->d.max_threads, (long long)s->cfg.registers, (long long)s->cfg.shmem_size);
    for (uint32_t i = 0; st == MB_OK && i < s->nsm; i++) {
        sim_sm *sm = &s->sms[i];
        memset(sm->unit_free, 0, sizeof(uint64_t) * (size_t)(s->cfg.num_sp + s->cfg.num_sfu + s->cfg.num_dp + s->cfg.num_int + s->cfg.num_mem));
        sm->port_free = 0;
        sim_set_wake(s, sm, 0);
        sm->acct = 0;
        sm->age = 0;
        for (uint32_t k = 0; k < (uint32_t)s->cfg.sched_per_core; k++) {
            sm->sched[k].nwarps = 0;
            sm->sched[k].last = 0;
        }
        for (uint32_t w = 0; w < sm->nwarp_slots; w++) {
            sim_warp *wp = &sm->warps[w];
            const sim_warp keep = {.reg_ready = wp->reg_ready, .reg_why = wp->reg_why, .reg_cap = wp->reg_cap};
            *wp = keep;
        }
    }
    if (st == MB_OK) {
        sim_mem_reset_launch(s);
        st = run_launch(s);
    }
    if (st == MB_OK) {
        for (uint32_t i = 0; i < s->nsm; i++)
            sm_flush(s, &s->sms[i], s->now + 1);
        s->stats.cycles += s->now + 1;
        s->stats.sm_cycles += (uint64_t)s->nsm * (s->now + 1);
        s->stats.launches++;
        s->stats.ctas += s->nctas;
        s->stats.max_warps_per_sm = s->d.max_threads / 32;
        for (uint32_t k = 0; k < MB_SIM_STALL_COUNT; k++) {
            uint64_t sum = 0;
            for (uint32_t i = 0; i < s->nsched_total; i++)
                sum += s->sched_stall[(size_t)i * MB_SIM_STALL_COUNT + k];
            s->stats.stall[k] = sum;
        }
    } else {
        /* abandon the launch: drop in-flight memory traffic and the SMs' residents */
        s->nheap = 0;
        s->nreqs = 0;
        s->free_req = UINT32_MAX;
        for (uint32_t i = 0; i < s->nsm; i++) {
            sim_sm *sm = &s->sms[i];
            sm->missq_len = 0;
            sm->mshr_used = 0;
            sm->ctas = sm->threads = sm->regs = sm->shared = sm->live_warps = 0;
            memset(sm->cta_slots, 0, sizeof(mb_step_cta *) * (size_t)s->cfg.max_ctas);
            memset(sm->mshr, 0, sizeof(sim_mshr) * ((size_t)s->d.dl1.mshr_entries * 2 + 64));
            sm->nloads = 0;
            sm->free_load = UINT32_MAX;
        }
    }
    mb_stepper_free(s->stepper);
    s->stepper = NULL;
    s->err = NULL;
    return st;
}
