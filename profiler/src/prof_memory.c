/*
 * minibench profiler: statistics of one static memory instruction over all
 * its warp requests (see prof.h, prof_mem_*).
 *
 * Definitions (what each result means)
 * ------------------------------------
 * The request's lanes: `lanes` entries in ascending lane order; entry i
 * (addrs[i], the i-th feature row) belongs to warp lane lane_index[i]
 * (lane_index NULL: entry i is lane i). Lane numbers matter for the
 * half-warp split and the 1.0 "k-th thread, k-th word" rule; everything
 * else works on the entries. A request with no lanes is ignored entirely.
 *
 * A lane's access covers the bytes [addr, addr + access_bytes) (an
 * access_bytes of 0 counts as 1; the end saturates at 2^64 - 1).
 *
 * sectors, lines (compute capability 2.0+): distinct sector_bytes- and
 *   line_bytes-sized aligned units covered by the request's lanes (a lane
 *   whose bytes straddle a boundary counts every unit it touches).
 * cc10_transactions (1.0/1.1): per half-warp (lanes 0-15, 16-31), one
 *   transaction when the word size w is 4, 8 or 16 bytes and every active
 *   thread k (k = lane & 15) accesses address base + k*w with base aligned
 *   to 16*w (64 B, 128 B, 256 B segments; inactive threads allowed); two
 *   transactions (two 128 B) for 16-byte words. Otherwise one transaction
 *   per active thread (any other word size is never coalesced). The
 *   request's count is the sum over its half-warps.
 * cc12_transactions (1.2/1.3): per half-warp, the CUDA guide's protocol:
 *   take the segment of the lowest active unserved thread (32 B for 1-byte
 *   words, 64 B for 2-byte words, 128 B for every larger word, 16-byte
 *   words included: half-warps, NOT quarter-warps, as in the CUDA Best
 *   Practices Guide for 1.x), serve every active thread whose address lies
 *   in it, shrink 128->64->32 when only one half is used, repeat. Shrinking
 *   changes the bytes moved, not the count, so the count is exactly the
 *   number of distinct segments holding a thread's (start) address; that is
 *   what is computed. Summed over both half-warps.
 * bank_degree (space MB_SPACE_SHARED only): with `banks` banks of
 *   `bank_bytes` bytes, every lane covers one or more bank words
 *   (addr / bank_bytes ...); the degree is the maximum over banks of the
 *   number of DISTINCT words of that bank touched by the whole warp (same
 *   word: a broadcast, counted once). It is the number of bank cycles the
 *   warp needs when each bank delivers one word per cycle. 8- and 16-byte
 *   accesses are counted over the whole warp too: an 8-byte unit-stride
 *   access has degree 2 (64 words on 32 banks), which equals the two
 *   conflict-free half-warp passes Fermi-class hardware makes.
 *   Shared requests feed bank_degree only; every other space (global,
 *   local, const, param, ...) feeds sectors, lines, cc10 and cc12 only.
 *   Addresses are state-space addresses as given, except local memory:
 *   its sectors, lines, cc10, cc12, footprint and reuse use the per-warp
 *   interleaved layout hardware gives it (local_units); lane strides and
 *   the affine model use the addresses as given.
 * addresses (space MB_SPACE_CONST only): the distinct start addresses of
 *   the request's lanes; a constant cache serves one a cycle, a broadcast
 *   to every lane asking for it.
 * space: the requests' space, MB_SPACE_NONE when they differ.
 * lane_stride: addr[i+1] - addr[i] for consecutive executing lanes, stored
 *   as (uint64)(difference) + 2^62. At most PM_STRIDE_CAP distinct values
 *   are kept; the accesses with any further new value are counted in the
 *   single bucket PM_STRIDE_OTHER (UINT64_MAX).
 * footprint_lines: distinct (space, line) pairs over the run, exact up to
 *   PM_FOOTPRINT_CAP lines; at the cap, footprint_capped is set and no new
 *   line is inserted (footprint_lines then stays at the cap, a lower bound).
 * reuse_log2: requests are numbered 0, 1, ... per instruction. For every
 *   distinct line a request r touches that an earlier request r' last
 *   touched, d = r - r' - 1 (the number of this instruction's requests in
 *   between: 0 when the previous request touched it too) is counted in
 *   bucket floor(log2(d + 1)). First touches are not counted (they are the
 *   footprint); a line touched several times in one request counts once.
 *   Lines not tracked because of the footprint cap are not counted.
 * affine: see prof_affine.h.
 *
 * Memory: a prof_mem is about 15 KiB plus the affine model's trace (about
 * 8 KiB per stored sample, see prof_affine.h) plus 12 bytes per bank (once a
 * shared request needs the generic bank count), the line table (16 bytes per slot, load <= 1/2: at most 2^21 slots = 32 MiB at the
 * footprint cap; local lines of small frames take 8 bytes per word of the
 * frame, and shared lines 8 bytes per line of shared memory, instead, see
 * prof_footprint.h), the lane_stride histogram (<= PM_STRIDE_CAP + 1 entries),
 * the other histograms (a few dozen entries), scratch sized by the widest
 * request and, once a request without a constant stride comes, an 18 KiB
 * table of small strides. Everything is deterministic (no clocks, no pointers in
 * hashes, no randomness; the floating-point fit only proposes integer
 * coefficients that are then verified exactly).
 *
 * Speed: how the common cases avoid most of this work (a memo of the last
 * request shape, bitmaps for scattered requests, verification of affine
 * shapes per warp) is described where each is defined; none changes a
 * result.
 *
 * Calls: prof_mem_new() returns NULL when out of memory or when a size in
 * the configuration is not a power of two (0 selects the default).
 * prof_mem_add() returns 0 when out of memory (that request may then be
 * partly counted). prof_mem_finish() never fails (everything it moves was
 * reserved while adding), may be called more than once, and requests may be
 * added after it.
 */
#include "prof.h"
#include "prof_affine.h"
#include "prof_footprint.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Histogram values below PM_DIRECT are counted in plain arrays and moved
 * to the prof_hist at prof_mem_finish(). */
#define PM_DIRECT 65
#define PM_DIRECT_UNITS 1u /* d_sectors, d_lines, d_cc10, d_cc12, d_addrs */
#define PM_DIRECT_BANKS 2u /* d_bank, d_bank_cc1x */
#define PM_STRIDE_CAP 4096
#define PM_STRIDE_BIAS ((uint64_t)1 << 62)
#define PM_STRIDE_OTHER UINT64_MAX
#define PM_STRIDE_DIRECT 1024 /* scattered lane strides in [-1024, 1024] bytes (a 256-word table
                              in shared memory, say): counted in a table */

/* ------------------------------------------------------------ prof_mem */

typedef struct pm_pending {
    uint64_t value, bucket, count;
} pm_pending;

/*
 * Request shapes of the instruction and what they produced. Two
 * requests with the same lanes, access size and space whose addresses
 * differ by one constant that is a multiple of M (every unit the rules
 * align to: sector, line, 128-byte segment, 16-word segment of the 1.0
 * rule, a full row of banks) have the same lane strides, sectors, lines,
 * transaction counts and bank degree, and their lines differ by a
 * constant. A repeat (a "hit") is then counted by incrementing `hits`; the
 * results are multiplied in when the memo is replaced or at finish. Every
 * value involved was reserved in its histogram by the request that created
 * the memo, so that never allocates (and since histograms only sum counts,
 * when a memo is flushed does not matter).
 *
 * An instruction keeps up to PM_MEMO_SETS x PM_MEMO_WAYS memos, found by a
 * hash of the lanes, access size, space and the first address modulo M:
 * a sliding window changes alignment on every request and a wavefront
 * changes lanes, but both cycle through a few dozen shapes. Memos are
 * allocated when first recorded, so an instruction with one shape keeps
 * one.
 *
 * The guard keeps every address of a hit (and of the creating request) an
 * exact integer in [0, 2^64 - access_bytes], where translation cannot wrap.
 */
/* Warp tags whose requests of one shape the affine model reproduced, and
 * the features from 3 on that were uniform in every one of those requests
 * (see aff_check; `uniform` is meaningful once a tag is recorded). */
typedef struct pm_verified {
    uint32_t tags;
    uint32_t uniform;
} pm_verified;

/* Constant-stride shapes (lanes and stride), whatever their alignment:
 * a sliding window changes alignment on every request, its shape never. */
#define PM_STRIDE_SHAPES 4
typedef struct pm_stride_shape {
    int valid;
    uint32_t mask, n;
    uint64_t d;
    pm_verified verified;
} pm_stride_shape;

#define PM_MEMO_MAX_RUNS 32
#define PM_MEMO_OWN_LINES 32 /* a warp of one-line lanes: no allocation */
#define PM_MEMO_SETS 64
#define PM_MEMO_WAYS 2
/* memos recorded (more than a full cycle of distinct shapes) after which
 * an instruction whose memos hit less often than they are recorded records
 * one only every PM_MEMO_RETRY requests: scattered requests rarely repeat */
#define PM_MEMO_GIVE_UP (PM_MEMO_SETS * PM_MEMO_WAYS + 16)
#define PM_MEMO_RETRY 64
typedef struct pm_memo {
    /* what a hit reads and writes first (two cache lines), then the arrays */
    int valid;
    uint32_t n, mask, bytes;
    mb_space space;
    int cst;             /* delta[i] == i * d for every i (as the request's own check finds) */
    uint64_t d;
    uint64_t align_mask; /* M - 1 */
    uint64_t a0;         /* the creating request's first address */
    uint64_t lo, hi;     /* guard: a hit's first address lies in [lo, hi] */
    int foreign;         /* kept from an earlier profile and not used since (memo_adopt) */
    uint64_t hits;
    uint64_t *line;      /* the distinct lines of the creating request: line_own, or
                            line_heap when there are more */
    uint64_t lines;
    uint64_t line_lo, line_hi; /* the least and greatest of line[] */
    pm_verified verified;
    uint64_t sectors, cc10, cc12, degree, degree_cc1x, addrs;
    uint64_t delta[32];  /* a[i] - a[0] */
    uint64_t line_own[PM_MEMO_OWN_LINES];
    uint64_t *line_heap;
    size_t line_cap;
    uint32_t nruns;      /* lane-stride buckets and counts the request added */
    uint64_t run_bucket[PM_MEMO_MAX_RUNS], run_count[PM_MEMO_MAX_RUNS];
} pm_memo;

struct prof_mem {
    /* First what every request reads or writes (a memo hit little else), so
     * that it takes few cache lines: a kernel's hundred instructions each
     * get a request at a time, and every one finds its prof_mem cold. */
    prof_mem_config cfg;
    unsigned sec_sh, line_sh, bank_sh;
    uint64_t nbanks;
    int space_seen;
    unsigned direct_ready; /* PM_DIRECT_UNITS, PM_DIRECT_BANKS: their counts are cleared */
    int aff_live;          /* aff.state is neither AFF_REFUSED nor AFF_DISABLED (aff_sync) */
    pm_memo **memo;      /* PM_MEMO_SETS x PM_MEMO_WAYS, each allocated when first recorded */
    pm_memo *rec;        /* the memo the current request is recorded into (NULL: none) */
    uint64_t memo_hits, memo_records; /* see PM_MEMO_GIVE_UP */
    prof_mem_result res;
    pm_footprint footprint;

    /* cleared by the first request that counts into them (direct_ready):
     * a shared instruction never uses the first four, any other never the
     * last two, and many instructions of a launch never run */
    uint64_t d_sectors[PM_DIRECT], d_lines[PM_DIRECT], d_cc10[PM_DIRECT], d_cc12[PM_DIRECT];
    uint64_t d_addrs[PM_DIRECT];
    uint64_t d_bank[PM_DIRECT], d_bank_cc1x[PM_DIRECT];
    pm_pending stride;

    uint64_t *tmp; /* sorted address / word scratch */
    size_t tmp_cap;
    uint64_t *lines; /* distinct lines of the current request */
    size_t lines_cap;

    uint32_t *bank_stamp;
    uint64_t *bank_word;
    uint32_t bank_gen;

    /* scattered strides: per stride in [-PM_STRIDE_DIRECT, PM_STRIDE_DIRECT]
     * a count and its bucket (0 undecided, 1 its own, 2 PM_STRIDE_OTHER);
     * allocated on the first request without a constant stride. A count is
     * written from the time its stride is decided its own (state 1) on:
     * clearing them all would cost more than the few requests of a small
     * launch that use them. */
    uint64_t *sd_count;
    uint8_t *sd_state;
    uint64_t sd_other;
    uint64_t *wbits; /* 2 x 64 words, all zero between requests (shared_scan); allocated
                        with the first scattered shared request */

    uint8_t memo_made[PM_MEMO_SETS * PM_MEMO_WAYS]; /* the slots allocated, in order: finishing
                                                       visits these, not every slot */
    uint32_t nmemo_made;
    uint8_t memo_next[PM_MEMO_SETS]; /* per set: the way to replace next */
    pm_stride_shape shapes[PM_STRIDE_SHAPES];
    uint32_t next_shape;
    pm_affine aff;
};

/* The end of the half-warp whose first entry is b. */
static inline uint32_t half_end(const prof_mem_request *req, uint32_t b, uint32_t n)
{
    uint32_t e;
    if (!req->lane_index || n == 32) { /* entry i is lane i */
        e = b + (16 - (b & 15));
        return e < n ? e : n;
    }
    if (req->lane_mask) { /* entries ascend by lane: count the rest of b's half */
        const uint32_t lane = lane_id(req, b);
        if (lane >= 16)
            return n;
        e = b + (uint32_t)mb_popcount32(req->lane_mask & 0xffffu & (UINT32_MAX << lane));
        return e < n ? e : n;
    }
    uint32_t stop = (lane_id(req, b) | 15) + 1;
    for (e = b + 1; e < n && e - b < 16 && lane_id(req, e) < stop; e++)
        ; /* (at most 16 entries even if lane_index were not ascending) */
    return e;
}

static int log2_exact(uint32_t v, unsigned *sh)
{
    if (v == 0 || (v & (v - 1)) != 0)
        return 0;
    unsigned s = 0;
    while ((1u << s) != v)
        s++;
    *sh = s;
    return 1;
}

static int grow_u64(uint64_t **p, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 1;
    size_t fresh = *cap ? *cap : 64;
    while (fresh < need) {
        if (fresh > SIZE_MAX / 16)
            return 0;
        fresh *= 2;
    }
    uint64_t *q = realloc(*p, fresh * sizeof(uint64_t));
    if (!q)
        return 0;
    *p = q;
    *cap = fresh;
    return 1;
}

/* The header's copy of whether the affine model still takes requests: the
 * collector asks before every request and the model lies at the far end of
 * the struct, a cache line a refused instruction need not touch. */
static void aff_sync(prof_mem *pm)
{
    pm->aff_live = pm->aff.state != AFF_REFUSED && pm->aff.state != AFF_DISABLED;
}

prof_mem *prof_mem_new(const prof_mem_config *cfg)
{
    prof_mem_config c = {32, 4, 32, 128, 0};
    if (cfg) {
        if (cfg->banks)
            c.banks = cfg->banks;
        if (cfg->bank_bytes)
            c.bank_bytes = cfg->bank_bytes;
        if (cfg->sector_bytes)
            c.sector_bytes = cfg->sector_bytes;
        if (cfg->line_bytes)
            c.line_bytes = cfg->line_bytes;
        c.nfeatures = cfg->nfeatures;
    }
    unsigned bank_count_sh;
    /* the affine model must stay last: its tail is not cleared (see pm_affine) */
    _Static_assert(offsetof(prof_mem, aff) + sizeof(pm_affine) == sizeof(prof_mem),
                   "pm_affine is the last member of prof_mem");
    prof_mem *pm = malloc(sizeof(*pm));
    if (!pm)
        return NULL;
    /* the direct counts, d_sectors to d_bank_cc1x, wait for direct_clear */
    memset(pm, 0, offsetof(prof_mem, d_sectors));
    memset(&pm->stride, 0, offsetof(prof_mem, aff) - offsetof(prof_mem, stride));
    if (!log2_exact(c.sector_bytes, &pm->sec_sh) || !log2_exact(c.line_bytes, &pm->line_sh) ||
        !log2_exact(c.bank_bytes, &pm->bank_sh) || !log2_exact(c.banks, &bank_count_sh)) {
        free(pm); /* sizes must be powers of two */
        return NULL;
    }
    pm->cfg = c;
    pm->nbanks = c.banks;
    pm->res.space = MB_SPACE_NONE;
    aff_init(&pm->aff, c.nfeatures);
    aff_sync(pm);
    return pm;
}

static void memos_free(pm_memo **memo, const uint8_t *made, uint32_t nmade)
{
    if (!memo)
        return;
    for (uint32_t k = 0; k < nmade; k++) {
        free(memo[made[k]]->line_heap);
        free(memo[made[k]]);
    }
    free(memo);
}

void prof_mem_free(prof_mem *pm)
{
    if (!pm)
        return;
    prof_hist_free(&pm->res.sectors);
    prof_hist_free(&pm->res.lines);
    prof_hist_free(&pm->res.cc10_transactions);
    prof_hist_free(&pm->res.cc12_transactions);
    prof_hist_free(&pm->res.bank_degree);
    prof_hist_free(&pm->res.bank_cc1x);
    prof_hist_free(&pm->res.addresses);
    prof_hist_free(&pm->res.lane_stride);
    prof_hist_free(&pm->res.reuse_log2);
    free(pm->tmp);
    free(pm->lines);
    free(pm->bank_stamp);
    free(pm->bank_word);
    pm_footprint_free(&pm->footprint);
    memos_free(pm->memo, pm->memo_made, pm->nmemo_made);
    free(pm->sd_count);
    free(pm->sd_state);
    free(pm->wbits);
    aff_free(&pm->aff);
    free(pm);
}

/* ----------------------------------------------------- histogram feeds */

/* Values below PM_DIRECT are counted in `direct`; the first count of a
 * value also inserts it into the histogram with count 0, so that moving
 * the counts over in prof_mem_finish() never allocates (finish cannot
 * fail). The same holds for lane strides and reuse buckets. */
static inline int count_value(uint64_t *direct, prof_hist *h, uint64_t v)
{
    if (v < PM_DIRECT) {
        if (direct[v]++ == 0)
            return prof_hist_direct_reserve(h, direct, v, 0);
        return 1;
    }
    return prof_hist_add(h, v, 1);
}

/* Notes a lane-stride count of the request being memoised; a request with
 * too many different strides is not memoised. */
static void memo_record_stride(prof_mem *pm, uint64_t bucket, uint64_t count)
{
    pm_memo *m = pm->rec;
    if (m->nruns > 0 && m->run_bucket[m->nruns - 1] == bucket) {
        m->run_count[m->nruns - 1] += count;
    } else if (m->nruns < PM_MEMO_MAX_RUNS) {
        m->run_bucket[m->nruns] = bucket;
        m->run_count[m->nruns++] = count;
    } else {
        pm->rec = NULL; /* it stays invalid */
    }
}

/* Lane strides are batched: runs of the same value are counted in
 * pm->stride and added to the histogram when the value changes. The
 * pending value is already in the histogram (see count_value). */
static void stride_flush(prof_mem *pm)
{
    if (pm->stride.count == 0)
        return;
    (void)prof_hist_add(&pm->res.lane_stride, pm->stride.bucket, pm->stride.count);
    pm->stride.count = 0;
}

static inline int stride_add(prof_mem *pm, uint64_t diff, uint64_t count)
{
    uint64_t v = diff + PM_STRIDE_BIAS;
    if (pm->stride.count != 0 && pm->stride.value == v) {
        pm->stride.count += count;
        if (pm->rec)
            memo_record_stride(pm, pm->stride.bucket, count);
        return 1;
    }
    stride_flush(pm);
    prof_hist *h = &pm->res.lane_stride;
    uint64_t bucket = v;
    if (h->n >= PM_STRIDE_CAP && !prof_hist_contains(h, v))
        bucket = PM_STRIDE_OTHER;
    if (!prof_hist_add(h, bucket, 0))
        return 0;
    pm->stride.value = v;
    pm->stride.bucket = bucket;
    pm->stride.count = count;
    if (pm->rec)
        memo_record_stride(pm, bucket, count);
    return 1;
}

/* The lane strides of a request without a constant stride: small strides
 * (the data-dependent indices into one array that make strides scatter)
 * are counted in a table, allocated here on the first such request (when
 * that fails, every stride goes through stride_add), the rest through
 * stride_add. */
static void strides_table(prof_mem *pm)
{
    const uint64_t span = 2 * PM_STRIDE_DIRECT;
    if (!pm->sd_count) {
        pm->sd_count = malloc((span + 1) * sizeof(uint64_t));
        pm->sd_state = calloc(span + 1, 1);
        if (!pm->sd_count || !pm->sd_state) {
            free(pm->sd_count);
            free(pm->sd_state);
            pm->sd_count = NULL;
            pm->sd_state = NULL;
        }
    }
}

/* One lane stride of a scattered request, in lane order. */
static inline __attribute__((always_inline)) int stride_one(prof_mem *pm, uint64_t diff)
{
    const uint64_t slot = diff + PM_STRIDE_DIRECT;
    if (slot > 2 * PM_STRIDE_DIRECT || !pm->sd_count)
        return stride_add(pm, diff, 1);
    prof_hist *h = &pm->res.lane_stride;
    const uint64_t v = diff + PM_STRIDE_BIAS;
    uint8_t state = pm->sd_state[slot];
    if (state == 0) { /* the same decision stride_add makes */
        uint64_t bucket = h->n >= PM_STRIDE_CAP && !prof_hist_contains(h, v) ? PM_STRIDE_OTHER : v;
        if (!prof_hist_add(h, bucket, 0))
            return 0;
        state = pm->sd_state[slot] = bucket == v ? 1 : 2;
        pm->sd_count[slot] = 0;
    }
    if (state == 1)
        pm->sd_count[slot]++;
    else
        pm->sd_other++;
    if (pm->rec)
        memo_record_stride(pm, state == 1 ? v : PM_STRIDE_OTHER, 1);
    return 1;
}

/* stride_one as a call, for loops that rarely need it and keep their
 * registers for other work (local_scan). */
static __attribute__((noinline)) int stride_one_call(prof_mem *pm, uint64_t diff)
{
    return stride_one(pm, diff);
}

/* What one pass over a scattered request finds besides its lane strides. */
typedef struct pm_scan {
    uint64_t lo, hi; /* lowest and highest address */
    uint64_t any;    /* OR of the addresses: with off, bounds every lane's offset in a unit */
    int asc, desc;   /* monotone addresses */
} pm_scan;

static inline __attribute__((always_inline)) void scan_first(pm_scan *sc, uint64_t a0)
{
    sc->lo = sc->hi = sc->any = a0;
    sc->asc = sc->desc = 1;
}

static inline __attribute__((always_inline)) void scan_next(pm_scan *sc, uint64_t x, uint64_t prev)
{
    sc->asc &= x >= prev;
    sc->desc &= x <= prev;
    sc->lo = x < sc->lo ? x : sc->lo;
    sc->hi = x > sc->hi ? x : sc->hi;
    sc->any |= x;
}

/* The range and order of a request's addresses (scatter_scan counts its
 * lane strides too). */
static void range_scan(const uint64_t *a, uint32_t n, pm_scan *sc)
{
    pm_scan s;
    scan_first(&s, a[0]);
    for (uint32_t k = 1; k < n; k++)
        scan_next(&s, a[k], a[k - 1]);
    *sc = s;
}

/* The lane strides of a request without a constant stride, in lane order
 * (stride_one), fused with the scan for its range and order: one pass over
 * the lanes instead of two. A stride already known to have its own table
 * slot is counted inline while no memo is being recorded. */
static int scatter_scan(prof_mem *pm, const uint64_t *a, uint32_t n, pm_scan *sc)
{
    strides_table(pm);
    uint64_t *cnt = pm->sd_count;
    const uint8_t *st = pm->sd_state;
    uint64_t lo = a[0], hi = a[0], any = a[0], up = 0, down = 0, prev = a[0];
    if (pm->rec)
        cnt = NULL; /* a memo being recorded notes every stride (stride_one) */
    for (uint32_t k = 1; k < n; k++) {
        const uint64_t x = a[k], diff = x - prev, slot = diff + PM_STRIDE_DIRECT;
        if (cnt && slot <= 2 * PM_STRIDE_DIRECT && st[slot] == 1)
            cnt[slot]++;
        else if (!stride_one(pm, diff))
            return 0;
        /* the order from the strides' signs, read once the range is known */
        down |= diff;
        up |= (uint64_t)0 - diff;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        any |= x;
        prev = x;
    }
    if ((hi - lo) >> 63) { /* strides of 2^63 or more: their signs say nothing */
        range_scan(a, n, sc);
        return 1;
    }
    sc->lo = lo;
    sc->hi = hi;
    sc->any = any;
    sc->asc = !(down >> 63);
    sc->desc = !(up >> 63);
    return 1;
}

/* Moves the table's counts to the histogram (every bucket is there). */
static void strides_drain(prof_mem *pm)
{
    prof_hist *h = &pm->res.lane_stride;
    const uint64_t size = 2 * PM_STRIDE_DIRECT + 1, base = PM_STRIDE_BIAS - PM_STRIDE_DIRECT;
    uint64_t *cnt = pm->sd_count;
    const uint8_t *st = pm->sd_state;
    /* only strides of state 1 have counts (and entries, reserved) */
    if (cnt && h->n < size) {
        for (uint32_t k = 0; k < h->n; k++) {
            const uint64_t i = h->value[k] - base;
            if (i < size && st[i] == 1 && cnt[i]) {
                h->count[k] += cnt[i];
                h->total += cnt[i];
                cnt[i] = 0;
            }
        }
    } else if (cnt) {
        for (uint64_t i = 0; i < size; i++)
            if (st[i] == 1 && cnt[i]) {
                (void)prof_hist_add(h, base + i, cnt[i]); /* reserved: cannot fail */
                cnt[i] = 0;
            }
    }
    if (pm->sd_other) {
        (void)prof_hist_add(h, PM_STRIDE_OTHER, pm->sd_other);
        pm->sd_other = 0;
    }
}


/* ------------------------------------------------------------- sorting */

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Insertion sort for warp-sized (often nearly sorted) arrays. */
static void sort_u64(uint64_t *v, uint32_t n)
{
    if (n > 64) {
        qsort(v, n, sizeof(*v), cmp_u64);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        uint64_t x = v[i];
        uint32_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

static inline uint64_t end_of(uint64_t a, uint64_t off)
{
    uint64_t e = a + off;
    return e < a ? UINT64_MAX : e;
}

/* --------------------------------------------------- sectors and lines */

/*
 * Walks accesses whose start addresses are monotone (a[0], a[step], ...
 * ascending), counting distinct sectors and writing the distinct lines in
 * increasing order to pm->lines (capacity checked by the caller).
 * The ends are monotone too (same length), so a running maximum merges the
 * intervals.
 */
static uint32_t units_monotone(prof_mem *pm, const uint64_t *a, uint32_t n, long step,
                               uint64_t off, uint64_t *sectors)
{
    const unsigned ss = pm->sec_sh, ls = pm->line_sh;
    uint64_t *out = pm->lines;
    long i = step > 0 ? 0 : (long)n - 1;
    uint64_t s = a[i], e = end_of(s, off);
    uint64_t slast = e >> ss, llast = e >> ls;
    uint64_t nsec = slast - (s >> ss) + 1;
    uint32_t nl = 0;
    for (uint64_t l = s >> ls;; l++) {
        out[nl++] = l;
        if (l == llast)
            break;
    }
    for (uint32_t k = 1; k < n; k++) {
        i += step;
        s = a[i];
        e = end_of(s, off);
        uint64_t slo = s >> ss, shi = e >> ss;
        if (slo > slast) {
            nsec += shi - slo + 1;
            slast = shi;
        } else if (shi > slast) {
            nsec += shi - slast;
            slast = shi;
        }
        uint64_t llo = s >> ls, lhi = e >> ls;
        if (lhi > llast) {
            uint64_t l = llo > llast ? llo : llast + 1;
            for (;; l++) {
                out[nl++] = l;
                if (l == lhi)
                    break;
            }
            llast = lhi;
        }
    }
    *sectors = nsec;
    return nl;
}

/* Bits s..e (e < 64) of a word. */
static inline uint64_t bit_range(uint64_t s, uint64_t e)
{
    return (uint64_t)((2ull << e) - (1ull << s)); /* wraps to the right mask for e == 63 */
}

/*
 * Sectors and lines of accesses in any order whose sectors all lie within
 * 64 consecutive sectors (lo, hi: the lowest and highest start address): a
 * bitmap instead of a sort. Writes the distinct lines in increasing order
 * to pm->lines; sectors only when asked (shared requests do not report
 * them). 0 when the range is wider.
 */
static inline __attribute__((always_inline)) int
units_small_range(prof_mem *pm, const uint64_t *a, uint32_t n, uint64_t off, uint64_t lo, uint64_t hi,
                  int need_sectors, int one_sector, uint64_t *sectors, uint64_t *nlines)
{
    const unsigned ss = pm->sec_sh, ls = pm->line_sh;
    const uint64_t s0 = lo >> ss, l0 = lo >> ls;
    if ((end_of(hi, off) >> ss) - s0 >= 64 || (end_of(hi, off) >> ls) - l0 >= 64)
        return 0;
    uint64_t sbits = 0, lbits = 0;
    if (need_sectors && ls >= ss) {
        /* one pass for the sectors; a line is touched exactly when one of
         * its sectors is, and s0's line is l0 */
        if (one_sector) /* every lane within one sector */
            for (uint32_t i = 0; i < n; i++)
                sbits |= 1ull << ((a[i] >> ss) - s0);
        else
            for (uint32_t i = 0; i < n; i++)
                sbits |= bit_range((a[i] >> ss) - s0, (end_of(a[i], off) >> ss) - s0);
        for (uint64_t b = sbits; b; b &= b - 1)
            lbits |= 1ull << (((s0 + (uint64_t)__builtin_ctzll(b)) >> (ls - ss)) - l0);
    } else if (one_sector && ls >= ss) { /* within one sector, so within one line */
        for (uint32_t i = 0; i < n; i++)
            lbits |= 1ull << ((a[i] >> ls) - l0);
    } else if (need_sectors) {
        for (uint32_t i = 0; i < n; i++) {
            uint64_t e = end_of(a[i], off);
            sbits |= bit_range((a[i] >> ss) - s0, (e >> ss) - s0);
            lbits |= bit_range((a[i] >> ls) - l0, (e >> ls) - l0);
        }
    } else {
        for (uint32_t i = 0; i < n; i++)
            lbits |= bit_range((a[i] >> ls) - l0, (end_of(a[i], off) >> ls) - l0);
    }
    *sectors = mb_popcount64(sbits);
    uint32_t k = 0;
    for (; lbits; lbits &= lbits - 1)
        pm->lines[k++] = l0 + (uint64_t)__builtin_ctzll(lbits);
    *nlines = k;
    return 1;
}

/* ------------------------------------------------------- cc 1.x rules */

static uint64_t cc10_half(const prof_mem_request *req, const uint64_t *a, uint32_t b, uint32_t e,
                          uint64_t w, int cst, uint64_t d)
{
    uint32_t active = e - b;
    if (w != 4 && w != 8 && w != 16)
        return active;
    uint64_t base = a[b] - (uint64_t)(lane_id(req, b) & 15) * w;
    if ((base & (16 * w - 1)) != 0)
        return active;
    int ok = 1;
    if (cst && active > 1 && lane_id(req, e - 1) - lane_id(req, b) == active - 1) {
        ok = d == w; /* consecutive lanes, constant stride */
    } else {
        for (uint32_t i = b + 1; i < e && ok; i++)
            ok = a[i] == base + (uint64_t)(lane_id(req, i) & 15) * w;
    }
    if (!ok)
        return active;
    return w == 16 ? 2 : 1;
}

/* glo: the request's lowest segment when all its segments lie within 64
 * of it (UINT64_MAX: unknown), so the half-warp needs no range pass. */
static uint64_t cc12_half(const uint64_t *a, uint32_t b, uint32_t e, unsigned seg_sh, int cst,
                          uint64_t d, uint64_t glo, int single)
{
    uint32_t active = e - b;
    if (cst) {
        uint64_t ad = (int64_t)d < 0 ? (uint64_t)0 - d : d;
        if (ad > ((uint64_t)1 << seg_sh))
            return active; /* every thread in its own segment */
        uint64_t s0 = a[b] >> seg_sh, s1 = a[e - 1] >> seg_sh;
        return (s0 > s1 ? s0 - s1 : s1 - s0) + 1;
    }
    if (glo != UINT64_MAX) {
        if (single)
            return 1; /* the request's addresses share one segment */
        uint64_t bits = 0;
        for (uint32_t i = b; i < e; i++)
            bits |= 1ull << ((a[i] >> seg_sh) - glo);
        return mb_popcount64(bits);
    }
    uint64_t lo = a[b] >> seg_sh, hi = lo;
    for (uint32_t i = b + 1; i < e; i++) {
        uint64_t g = a[i] >> seg_sh;
        lo = g < lo ? g : lo;
        hi = g > hi ? g : hi;
    }
    if (hi - lo < 64) { /* distinct segments through a bitmap */
        uint64_t bits = 0;
        for (uint32_t i = b; i < e; i++)
            bits |= 1ull << ((a[i] >> seg_sh) - lo);
        return mb_popcount64(bits);
    }
    uint64_t seg[16];
    uint32_t k = 0;
    for (uint32_t i = b; i < e; i++)
        seg[k++] = a[i] >> seg_sh;
    sort_u64(seg, k);
    uint64_t count = 1;
    for (uint32_t i = 1; i < k; i++)
        count += seg[i] != seg[i - 1];
    return count;
}

/* Sums per-half-warp counts for one request (sc: its scan, or NULL). */
static void cc1x(const prof_mem_request *req, const uint64_t *a, uint32_t n, uint64_t w, int cst,
                 uint64_t d, const pm_scan *sc, uint64_t *t10, uint64_t *t12)
{
    unsigned seg_sh = w == 1 ? 5 : w == 2 ? 6 : 7;
    uint64_t glo = UINT64_MAX;
    if (sc && (sc->hi >> seg_sh) - (sc->lo >> seg_sh) < 64)
        glo = sc->lo >> seg_sh;
    const int single = glo != UINT64_MAX && sc->hi >> seg_sh == glo;
    uint64_t s10 = 0, s12 = 0;
    uint32_t b = 0;
    while (b < n) {
        uint32_t e = half_end(req, b, n);
        s10 += cc10_half(req, a, b, e, w, cst, d);
        s12 += cc12_half(a, b, e, seg_sh, cst, d, glo, single);
        b = e;
    }
    *t10 = s10;
    *t12 = s12;
}

/* ----------------------------------------------------- bank conflicts */

/* Compute capability 1.x: a warp's shared request is served in half-warps
 * (lanes 0-15, 16-31) by 16 banks. */
#define PM_CC1X_BANKS 16

/* The per-bank scratch's entries: the configured banks, or the 1.x rule's. */
static uint64_t bank_slots(const prof_mem *pm)
{
    return pm->nbanks > PM_CC1X_BANKS ? pm->nbanks : PM_CC1X_BANKS;
}

/* A fresh stamp for the per-bank scratch (bank_stamp, bank_word): entries
 * stamped with an older generation read as empty. */
static uint32_t bank_generation(prof_mem *pm)
{
    if (++pm->bank_gen == 0) {
        memset(pm->bank_stamp, 0, bank_slots(pm) * sizeof(uint32_t));
        pm->bank_gen = 1;
    }
    return pm->bank_gen;
}

/*
 * Bank degrees on nb banks (a power of two, at most 64) of at most 32
 * distinct words given as the union of two bitmaps based at a multiple of
 * 64 words (the bitmap words in `visit`; one bitmap passed twice stands for
 * itself). Bit i of a bitmap word is in bank i mod nb. The bitmap words are
 * summed per bit position into counters kept bit-sliced (plane p holds bit
 * p of all 64 counters; at most 32 words, so 6 planes); the upper half of
 * the positions is then added onto the lower until nb remain, one counter
 * per bank, and the largest is read from the top plane down. The planes are
 * scalars in a struct that the helpers below take inlined, so that they
 * stay in registers.
 */
typedef struct pm_planes {
    uint64_t s0, s1, s2, s3, s4, s5;
    unsigned width; /* the counters still summed separately */
} pm_planes;

/* Adds the carry *c into plane *s; whether a carry goes on to the next. */
static inline __attribute__((always_inline)) int carry_into(uint64_t *s, uint64_t *c)
{
    const uint64_t t = *s & *c;
    *s ^= *c;
    *c = t;
    return t != 0;
}

static inline __attribute__((always_inline)) pm_planes bitmap_planes(const uint64_t *bits,
                                                                     const uint64_t *also,
                                                                     uint64_t visit)
{
    pm_planes q = {0, 0, 0, 0, 0, 0, 64};
    for (; visit; visit &= visit - 1) {
        const unsigned j = (unsigned)__builtin_ctzll(visit);
        uint64_t c = bits[j] | also[j];
        if (carry_into(&q.s0, &c) && carry_into(&q.s1, &c) && carry_into(&q.s2, &c) &&
            carry_into(&q.s3, &c) && carry_into(&q.s4, &c))
            q.s5 ^= c; /* (at most 32 words: no carry beyond) */
    }
    return q;
}

/* Plane by plane, *s += *s >> half (bit-sliced, the carry in *c). */
static inline __attribute__((always_inline)) void fold_plane(uint64_t *s, uint64_t *c, unsigned half)
{
    const uint64_t x = *s, y = *s >> half;
    *s = x ^ y ^ *c;
    *c = (x & y) | (*c & (x ^ y));
}

/* The highest counter's bit p: kept when some candidate has it. */
static inline __attribute__((always_inline)) void top_plane(uint64_t s, unsigned p, uint64_t *cand,
                                                            uint64_t *best)
{
    if (s & *cand) {
        *cand &= s;
        *best |= (uint64_t)1 << p;
    }
}

/* The largest per-bank count on nb banks (at most q->width; positions at
 * and above nb then hold partial sums no longer read). */
static inline __attribute__((always_inline)) uint64_t planes_degree(pm_planes *q, uint64_t nb)
{
    for (; q->width > nb; q->width >>= 1) {
        const unsigned half = q->width >> 1;
        uint64_t c = 0;
        fold_plane(&q->s0, &c, half);
        fold_plane(&q->s1, &c, half);
        fold_plane(&q->s2, &c, half);
        fold_plane(&q->s3, &c, half);
        fold_plane(&q->s4, &c, half);
        fold_plane(&q->s5, &c, half);
    }
    uint64_t cand = nb == 64 ? UINT64_MAX : ((uint64_t)1 << nb) - 1, best = 0;
    top_plane(q->s5, 5, &cand, &best);
    top_plane(q->s4, 4, &cand, &best);
    top_plane(q->s3, 3, &cand, &best);
    top_plane(q->s2, 2, &cand, &best);
    top_plane(q->s1, 1, &cand, &best);
    top_plane(q->s0, 0, &cand, &best);
    return best;
}

static uint64_t bitmap_degree(uint64_t nb, const uint64_t *bits, const uint64_t *also, uint64_t visit)
{
    pm_planes q = bitmap_planes(bits, also, visit);
    return planes_degree(&q, nb);
}

/* The bank degree of a scattered request whose lanes each touch one word,
 * within 4096 words (bitmap_degree); 0 when the request does not qualify. */
static int bank_degree_words(const prof_mem *pm, const uint64_t *a, uint32_t n, const pm_scan *sc,
                             uint64_t *deg)
{
    const unsigned bs = pm->bank_sh;
    const uint64_t wbase = (sc->lo >> bs) & ~(uint64_t)63;
    if (pm->nbanks > 64 || n > 32 || (sc->hi >> bs) - wbase >= 4096)
        return 0;
    uint64_t bits[64];
    const uint32_t nwords = (uint32_t)(((sc->hi >> bs) - wbase) >> 6) + 1;
    memset(bits, 0, nwords * sizeof(uint64_t));
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t w = (a[i] >> bs) - wbase;
        bits[w >> 6] |= 1ull << (w & 63);
    }
    *deg = bitmap_degree(pm->nbanks, bits, bits, nwords == 64 ? UINT64_MAX : ((uint64_t)1 << nwords) - 1);
    return 1;
}

/*
 * The degree of a request whose words lie within 32 rows either side of its
 * first lane's (a row: nb consecutive words from a multiple of nb): per bank
 * a mask of the rows its words are in and their count, the degree the
 * highest count. Scattered requests into a small array (histogram bins, a
 * tile) take one pass and no scratch; 0 when a word lies farther out.
 */
#define PM_ROW_BANKS 64
static int row_degree(const uint64_t *a, uint32_t n, uint64_t off, unsigned bs, uint64_t nb,
                      uint64_t *deg)
{
    if (n == 0)
        return 0;
    const unsigned rs = (unsigned)__builtin_ctzll(nb);
    const uint64_t bmask = nb - 1;
    /* (modulo 2^64, so a first row below 32 needs no care) */
    const uint64_t base = ((a[0] >> bs) & ~bmask) - ((uint64_t)32 << rs);
    uint64_t rows[PM_ROW_BANKS], best = 0;
    uint8_t count[PM_ROW_BANKS];
    memset(rows, 0, (size_t)nb * sizeof(uint64_t));
    memset(count, 0, (size_t)nb);
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t w0 = a[i] >> bs, w1 = end_of(a[i], off) >> bs;
        for (uint64_t w = w0;; w++) {
            const uint64_t r = (w - base) >> rs, b = w & bmask;
            if (r >= 64)
                return 0;
            if (!(rows[b] >> r & 1)) {
                rows[b] |= 1ull << r;
                const uint64_t c = ++count[b];
                best = c > best ? c : best;
            }
            if (w == w1)
                break;
        }
    }
    *deg = best;
    return 1;
}

/* The bank-conflict degree of the request's n entries on nb banks (a power
 * of two, at most bank_slots). */
static int bank_degree_on(prof_mem *pm, const uint64_t *a, uint32_t n, uint64_t off, int cst,
                          uint64_t d, uint64_t nb, uint64_t *deg)
{
    const unsigned bs = pm->bank_sh;
    const uint64_t bmask = nb - 1, wbytes = (uint64_t)1 << bs;
    uint64_t ad = (int64_t)d < 0 ? (uint64_t)0 - d : d;
    if (cst) {
        if (ad <= off + 1) { /* contiguous (or the same address): a range of words */
            uint64_t lo = (int64_t)d < 0 ? a[n - 1] : a[0];
            uint64_t hi = end_of((int64_t)d < 0 ? a[0] : a[n - 1], off);
            uint64_t m = (hi >> bs) - (lo >> bs) + 1;
            *deg = (m + nb - 1) / nb;
            return 1;
        }
        if ((ad & (wbytes - 1)) == 0 && (a[0] & (wbytes - 1)) + off < wbytes) {
            /* one word per lane, word stride s: banks repeat every nb / gcd(s, nb) lanes */
            uint64_t s = ad >> bs;
            uint64_t period = nb / mb_gcd_u64(s & bmask, nb);
            *deg = (n + period - 1) / period;
            return 1;
        }
    }
    if (nb <= PM_ROW_BANKS && row_degree(a, n, off, bs, nb, deg))
        return 1;
    /* Generic: the first word seen per bank; a second distinct word in a
     * bank sends us to the exact sort-based count. The per-bank scratch is
     * allocated here: most instructions never need it. */
    if (!pm->bank_stamp) {
        pm->bank_stamp = calloc(bank_slots(pm), sizeof(uint32_t));
        pm->bank_word = calloc(bank_slots(pm), sizeof(uint64_t));
        if (!pm->bank_stamp || !pm->bank_word) {
            free(pm->bank_stamp);
            free(pm->bank_word);
            pm->bank_stamp = NULL;
            pm->bank_word = NULL;
            return 0;
        }
    }
    uint32_t gen = bank_generation(pm);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t w0 = a[i] >> bs, w1 = end_of(a[i], off) >> bs;
        for (uint64_t w = w0;; w++) {
            uint64_t b = w & bmask;
            if (pm->bank_stamp[b] != gen) {
                pm->bank_stamp[b] = gen;
                pm->bank_word[b] = w;
            } else if (pm->bank_word[b] != w) {
                goto conflict;
            }
            if (w == w1)
                break;
        }
    }
    *deg = 1;
    return 1;
conflict:;
    /* distinct words through a bitmap when they span at most 4096 words */
    uint64_t wlo = UINT64_MAX, whi = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t w0 = a[i] >> bs, w1 = end_of(a[i], off) >> bs;
        wlo = w0 < wlo ? w0 : wlo;
        whi = w1 > whi ? w1 : whi;
    }
    if (whi - wlo < 4096) {
        uint64_t bits[64];
        const size_t nwords = (size_t)((whi - wlo) >> 6) + 1;
        memset(bits, 0, nwords * sizeof(uint64_t));
        for (uint32_t i = 0; i < n; i++) {
            uint64_t w0 = a[i] >> bs, w1 = end_of(a[i], off) >> bs;
            for (uint64_t w = w0;; w++) {
                uint64_t pos = w - wlo;
                bits[pos >> 6] |= 1ull << (pos & 63);
                if (w == w1)
                    break;
            }
        }
        gen = bank_generation(pm);
        uint64_t best = 0;
        for (size_t j = 0; j < nwords; j++)
            for (uint64_t m = bits[j]; m; m &= m - 1) {
                uint64_t b = (wlo + j * 64 + (uint64_t)__builtin_ctzll(m)) & bmask;
                uint64_t c = pm->bank_stamp[b] == gen ? pm->bank_word[b] + 1 : 1;
                pm->bank_stamp[b] = gen;
                pm->bank_word[b] = c; /* a per-bank count under this generation */
                best = c > best ? c : best;
            }
        *deg = best;
        return 1;
    }
    /* a lane covers at most off / wbytes + 2 words */
    size_t need = (size_t)n * ((off >> bs) + 2);
    if (!grow_u64(&pm->tmp, &pm->tmp_cap, need))
        return 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t w0 = a[i] >> bs, w1 = end_of(a[i], off) >> bs;
        for (uint64_t w = w0;; w++) {
            pm->tmp[k++] = w;
            if (w == w1)
                break;
        }
    }
    sort_u64(pm->tmp, k);
    gen = bank_generation(pm);
    uint64_t best = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (i > 0 && pm->tmp[i] == pm->tmp[i - 1])
            continue;
        uint64_t b = pm->tmp[i] & bmask;
        uint64_t c;
        if (pm->bank_stamp[b] != gen) {
            pm->bank_stamp[b] = gen;
            c = 1;
        } else {
            c = pm->bank_word[b] + 1;
        }
        pm->bank_word[b] = c; /* reused as the per-bank count */
        if (c > best)
            best = c;
    }
    /* bank_word now holds counts under stamp `gen`; the next request takes
     * a fresh generation, so they are never read as words */
    *deg = best;
    return 1;
}

static int bank_degree(prof_mem *pm, const uint64_t *a, uint32_t n, uint64_t off, int cst,
                       uint64_t d, uint64_t *deg)
{
    return bank_degree_on(pm, a, n, off, cst, d, pm->nbanks, deg);
}

/* What the request costs under the 1.x rule: the degrees of its half-warps
 * on PM_CC1X_BANKS banks, summed (a half without lanes costs nothing). */
static int bank_cycles_cc1x(prof_mem *pm, const prof_mem_request *req, uint64_t off, int cst,
                            uint64_t d, uint64_t *cycles)
{
    const uint32_t n = req->lanes;
    const uint32_t split = n && lane_id(req, 0) < 16 ? half_end(req, 0, n) : 0;
    uint64_t lo = 0, hi = 0;
    if ((split > 0 && !bank_degree_on(pm, req->addrs, split, off, cst, d, PM_CC1X_BANKS, &lo)) ||
        (split < n && !bank_degree_on(pm, req->addrs + split, n - split, off, cst, d, PM_CC1X_BANKS, &hi)))
        return 0;
    *cycles = lo + hi;
    return 1;
}

/* ------------------------------------------- scattered shared requests */

/*
 * A scattered shared request (an atomic on a table indexed by data, say)
 * whose lanes each access one bank word: one pass over its lanes counts
 * its lane strides (as scatter_scan does) and marks its words in a bitmap
 * of a 4096-word window around its first word, one bitmap per half-warp;
 * the bank degree (bitmap_degree on their union), the 1.x half-warp degrees
 * (bitmap_degree on each) and the distinct lines (aligned groups of bits)
 * follow from the bitmaps, instead of a pass each. pm->wbits (half 0's 64
 * words, then half 1's) is all zero between requests: a request clears the
 * bitmap words it wrote.
 */
#define PM_WBITS 64
typedef struct pm_words {
    uint64_t base;  /* the window's first word, a multiple of 64 */
    uint64_t dirty; /* the bitmap words written, in either half's bitmap */
    int in_window;  /* every lane accesses one word of the window (else the bitmaps are clear) */
} pm_words;

/* Whether shared_scan can serve this instruction: a bitmap word holds
 * whole lines, the banks suit bitmap_degree, and the bitmaps exist. */
static int shared_words(prof_mem *pm)
{
    if (pm->nbanks > 64 || pm->line_sh < pm->bank_sh || pm->line_sh - pm->bank_sh > 6)
        return 0;
    if (!pm->wbits)
        pm->wbits = calloc(2 * PM_WBITS, sizeof(uint64_t));
    return pm->wbits != NULL;
}

static void words_clear(prof_mem *pm, pm_words *ws)
{
    for (uint64_t m = ws->dirty; m; m &= m - 1) {
        const unsigned j = (unsigned)__builtin_ctzll(m);
        pm->wbits[j] = 0;
        pm->wbits[PM_WBITS + j] = 0;
    }
    ws->dirty = 0;
}

/* The state of shared_scan's pass over the lanes. */
typedef struct pm_lane_pass {
    uint64_t *cnt;      /* direct stride counts, or NULL while a memo records */
    const uint8_t *st;  /* their slots' states */
    uint64_t base;      /* the window's first word */
    uint64_t out, any, dirty;
    uint32_t nslow;
    uint64_t slow[32];  /* strides left for stride_one, in lane order */
} pm_lane_pass;

/* Entries [k, e) of the pass, their words marked in `bits`. */
static inline __attribute__((always_inline)) void
lane_range(pm_lane_pass *lp, const uint64_t *a, uint32_t k, uint32_t e, uint64_t *bits,
           const unsigned bs)
{
    for (; k < e; k++) {
        const uint64_t x = a[k], diff = x - a[k - 1], slot = diff + PM_STRIDE_DIRECT;
        if (lp->cnt && slot <= 2 * PM_STRIDE_DIRECT && lp->st[slot] == 1)
            lp->cnt[slot]++;
        else
            lp->slow[lp->nslow++] = diff;
        /* a word outside the window still lands in the bitmap (cleared below) */
        const uint64_t r = (x >> bs) - lp->base, j = (r >> 6) & 63;
        lp->out |= r;
        lp->any |= x;
        bits[j] |= (uint64_t)1 << (r & 63);
        lp->dirty |= (uint64_t)1 << j;
    }
}

/* shared_scan with bank words of 2^bs bytes (a constant at each call);
 * entries from `split` on are lanes of the second half-warp.
 * Strides whose table slot is known are counted in the loop; the others
 * go through stride_one after it, in lane order, which counts them as the
 * loop would have (a slot's state changes only there), and keeps calls out
 * of the loop, so that it keeps its values in registers. A memo being
 * recorded notes every stride through stride_one (as in scatter_scan). */
static inline __attribute__((always_inline)) int
shared_scan_lanes(prof_mem *pm, const uint64_t *a, uint32_t n, uint32_t split, uint64_t off,
                  pm_words *ws, const unsigned bs)
{
    uint64_t *const bits = pm->wbits, *const bits_hi = pm->wbits + PM_WBITS;
    pm_lane_pass lp;
    lp.cnt = pm->rec ? NULL : pm->sd_count;
    lp.st = pm->sd_state;
    lp.nslow = 0;
    const uint64_t w0 = a[0] >> bs;
    lp.base = w0 >= 2048 ? (w0 - 2048) & ~(uint64_t)63 : 0;
    lp.out = w0 - lp.base;
    lp.any = a[0];
    lp.dirty = (uint64_t)1 << (lp.out >> 6);
    (split > 0 ? bits : bits_hi)[lp.out >> 6] |= (uint64_t)1 << (lp.out & 63);
    const uint32_t first_hi = split > 1 ? split : 1;
    lane_range(&lp, a, 1, first_hi, bits, bs);
    lane_range(&lp, a, first_hi, n, bits_hi, bs);
    ws->base = lp.base;
    ws->dirty = lp.dirty;
    for (uint32_t k = 0; k < lp.nslow; k++)
        if (!stride_one_call(pm, lp.slow[k])) {
            words_clear(pm, ws);
            return 0;
        }
    const uint64_t wmask = ((uint64_t)1 << bs) - 1;
    ws->in_window = lp.out < 4096 && (lp.any & wmask) + off <= wmask;
    if (!ws->in_window)
        words_clear(pm, ws);
    return 1;
}

/* The pass over a scattered shared request of at most 32 lanes; 0 when
 * out of memory. */
static __attribute__((noinline)) int shared_scan(prof_mem *pm, const uint64_t *a, uint32_t n,
                                                 uint32_t split, uint64_t off, pm_words *ws)
{
    strides_table(pm);
    if (pm->bank_sh == 2) /* 4-byte banks */
        return shared_scan_lanes(pm, a, n, split, off, ws, 2);
    return shared_scan_lanes(pm, a, n, split, off, ws, pm->bank_sh);
}

/* The distinct lines of the bitmaps' words, in increasing order, to
 * pm->lines (room for one per lane checked by the caller). */
static uint64_t words_lines(prof_mem *pm, const pm_words *ws)
{
    const unsigned k = pm->line_sh - pm->bank_sh; /* 2^k words per line */
    const uint64_t group = k == 6 ? UINT64_MAX : ((uint64_t)1 << (1u << k)) - 1;
    const unsigned align = ~((1u << k) - 1);
    uint64_t nl = 0;
    for (uint64_t m = ws->dirty; m; m &= m - 1) {
        const unsigned j = (unsigned)__builtin_ctzll(m);
        const uint64_t first = ws->base + 64 * (uint64_t)j;
        for (uint64_t x = pm->wbits[j] | pm->wbits[PM_WBITS + j]; x;) {
            const unsigned c = (unsigned)__builtin_ctzll(x) & align;
            pm->lines[nl++] = (first + c) >> k;
            x &= ~(group << c);
        }
    }
    return nl;
}

/* The scattered request's bank degree and 1.x cycles from its bitmaps,
 * which it then clears; entries from `split` on are the second half-warp's. */
static void words_degrees(prof_mem *pm, pm_words *ws, uint32_t split, uint32_t n, uint64_t *deg,
                          uint64_t *cc1x_cycles)
{
    const uint64_t *bits = pm->wbits, *bits_hi = pm->wbits + PM_WBITS;
    if (split == 0 || split == n) {
        /* one half-warp: its words are the request's, one sum for both
         * rules, read at the wider bank count first */
        pm_planes q = bitmap_planes(bits, bits_hi, ws->dirty);
        if (pm->nbanks >= PM_CC1X_BANKS) {
            *deg = planes_degree(&q, pm->nbanks);
            *cc1x_cycles = planes_degree(&q, PM_CC1X_BANKS);
        } else {
            *cc1x_cycles = planes_degree(&q, PM_CC1X_BANKS);
            *deg = planes_degree(&q, pm->nbanks);
        }
    } else {
        *deg = bitmap_degree(pm->nbanks, bits, bits_hi, ws->dirty);
        *cc1x_cycles = bitmap_degree(PM_CC1X_BANKS, bits, bits, ws->dirty) +
                       bitmap_degree(PM_CC1X_BANKS, bits_hi, bits_hi, ws->dirty);
    }
    words_clear(pm, ws);
}

/* ------------------------------------------------ footprint and reuse */

/* touch_lines for lines line[k] + add that all lie in the space's array
 * (below its cap, so none is masked or beyond it): no bounds test per line. */
static int touch_lines_in(pm_footprint *fp, prof_hist *reuse, pm_direct *dl, const uint64_t *line,
                          uint64_t add, uint64_t n, unsigned space, uint64_t r)
{
    uint64_t *last = dl->last;
    const uint64_t now = r + 1;
    /* a request's lines were mostly last touched by one earlier request:
     * their reuses are counted as runs of one bucket */
    uint64_t run = 0, run_prev = 0;
    for (uint64_t k = 0; k < n; k++) {
        const uint64_t l = line[k] + add, prev = last[l];
        if (prev == 0) {
            if (!pm_footprint_touch_direct_new(fp, reuse, dl, space, l, r))
                return 0;
            continue; /* (within the cap: the array stays where it is) */
        }
        last[l] = now;
        if (prev == run_prev) {
            run++;
            continue;
        }
        if (run && !pm_footprint_reuses(fp, reuse, 63 - (uint32_t)__builtin_clzll(now - run_prev), run))
            return 0;
        run_prev = prev;
        run = 1;
    }
    return !run || pm_footprint_reuses(fp, reuse, 63 - (uint32_t)__builtin_clzll(now - run_prev), run);
}

/* Records that request r touched n distinct lines of `space`
 * (prof_footprint.h): line[l] + add, or add + l when line is NULL. */
static int touch_lines(prof_mem *pm, const uint64_t *line, uint64_t add, uint64_t n,
                       unsigned space, uint64_t r)
{
    pm_footprint *fp = &pm->footprint;
    prof_hist *reuse = &pm->res.reuse_log2;
    pm_direct *dl = pm_footprint_direct(fp, space);
    if (dl && line) {
        /* pm_footprint_touch_direct with the array and the reuse counts held
         * in locals, reloaded only after a new line (which may grow the array) */
        uint64_t *last = dl->last, cap = dl->cap, *bucket = fp->reuse;
        for (uint64_t k = 0; k < n; k++) {
            const uint64_t l = (line[k] + add) & (UINT64_MAX >> 4), prev = l < cap ? last[l] : 0;
            if (prev == 0) {
                if (!pm_footprint_touch_direct_new(fp, reuse, dl, space, l, r))
                    return 0;
                last = dl->last;
                cap = dl->cap;
                continue;
            }
            last[l] = r + 1;
            const uint32_t b = 63 - (uint32_t)__builtin_clzll(r + 1 - prev);
            if (bucket[b]++ == 0 && !prof_hist_direct_reserve(reuse, bucket, b, 0))
                return 0;
        }
        return 1;
    }
    if (dl) {
        for (uint64_t l = 0; l < n; l++)
            if (!pm_footprint_touch_direct(fp, reuse, dl, space, l + add, r))
                return 0;
        return 1;
    }
    if (line) {
        for (uint64_t l = 0; l < n; l++)
            if (!pm_footprint_touch_hashed(fp, reuse, ((line[l] + add) << 4) | space, r))
                return 0;
    } else {
        for (uint64_t l = 0; l < n; l++)
            if (!pm_footprint_touch_hashed(fp, reuse, ((add + l) << 4) | space, r))
                return 0;
    }
    return 1;
}

/* ------------------------------------------------ affine model */

int prof_mem_needs_features(const prof_mem *pm)
{
    return pm->aff_live;
}

/*
 * Whether the features of `used` from 3 on (all but the thread ids) are
 * uniform over the request. The check reads no other feature, so the others
 * may vary from lane to lane without changing what entry 0 stands for.
 */
static inline int uniform_from3(const prof_mem_request *req, uint32_t used)
{
    for (uint32_t m = used & ~7u; m; m &= m - 1)
        if (req->feature_lanes[__builtin_ctz(m)])
            return 0;
    return 1;
}

/* The features from 3 on that are the same in every lane of the request. */
static inline uint32_t uniform_features(const prof_mem_request *req, uint32_t nf)
{
    uint32_t uniform = 0;
    for (uint32_t k = 3; k < nf; k++)
        uniform |= (uint32_t)(req->feature_lanes[k] == NULL) << k;
    return uniform;
}

/*
 * The affine check of a request. `shape`: the verification record of the
 * request's shape (its lanes and address differences a[i] - a[0]), or NULL.
 *
 * Why entry 0 can suffice: let R' be an earlier request of this shape with
 * the same warp tag that the model reproduced, and R this one, both with
 * every feature the current model's check reads but the thread ids uniform
 * over the request (uniform_from3 for R, the record's `uniform` for R').
 * The current model reproduces every entry of R' even when it changed
 * since (every accepted access stays reproduced: prof_affine.h), and its
 * span holds them. The thread-id columns are the same in R and R' (same
 * tag), so every read feature's difference between entry i and entry 0 is
 * the same in both; so are the address differences (same shape). The model
 * and the span constraints are linear, so (modulo 2^64, the arithmetic of
 * the fast check) entry i of R passes iff entry 0 of R passes, as in R'.
 */
static void aff_check(prof_mem *pm, const prof_mem_request *req, pm_verified *shape)
{
    if (!pm->aff_live)
        return; /* what aff_request would do, without looking at the request */
    pm_affine *a = &pm->aff;
    const uint32_t tag = req->warp_tag;
    const int tagged = shape && tag >= 1 && tag <= 32 && !req->features && req->feature_lanes;
    if (tagged && a->state == AFF_OK && ((shape->tags >> (tag - 1)) & 1) &&
        (a->used & ~7u & ~shape->uniform) == 0 && uniform_from3(req, a->used) &&
        aff_entry_ok(a, req, 0))
        return;
    aff_request(a, req);
    aff_sync(pm);
    if (tagged && a->state == AFF_OK && uniform_from3(req, a->used)) {
        const uint32_t uniform = uniform_features(req, a->nf);
        shape->uniform = shape->tags ? shape->uniform & uniform : uniform;
        shape->tags |= 1u << (tag - 1);
    }
}

/* The verification record of a constant-stride shape (entries at a[0] +
 * i d on the lanes of `mask`), replacing the oldest when it is new. */
static pm_verified *stride_shape(prof_mem *pm, uint32_t mask, uint32_t n, uint64_t d)
{
    for (uint32_t k = 0; k < PM_STRIDE_SHAPES; k++) {
        pm_stride_shape *sh = &pm->shapes[k];
        if (sh->valid && sh->mask == mask && sh->n == n && sh->d == d)
            return &sh->verified;
    }
    pm_stride_shape *sh = &pm->shapes[pm->next_shape];
    pm->next_shape = (pm->next_shape + 1) % PM_STRIDE_SHAPES;
    sh->valid = 1;
    sh->mask = mask;
    sh->n = n;
    sh->d = d;
    sh->verified.tags = 0;
    return &sh->verified;
}

/* ------------------------------------------------------------ requests */

/* The lanes of a request as a mask; 0 when it cannot be memoised (more
 * than 32 entries or a lane number beyond 31). */
static inline uint32_t request_mask(const prof_mem_request *req)
{
    const uint32_t n = req->lanes;
    if (n > 32)
        return 0;
    if (req->lane_mask)
        return req->lane_mask; /* the caller's promise (prof.h) */
    if (!req->lane_index)
        return n == 32 ? UINT32_MAX : (1u << n) - 1;
    uint32_t mask = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (req->lane_index[i] > 31 || (i > 0 && req->lane_index[i] <= req->lane_index[i - 1]))
            return 0;
        mask |= 1u << req->lane_index[i];
    }
    return mask;
}

/* cst, d: whether the request has a constant stride d (count_request);
 * two shapes of constant strides are the same exactly when the strides
 * are, and a shape with one never equals a shape without. */
static inline int memo_hit(const pm_memo *m, const prof_mem_request *req, uint32_t mask, int cst,
                           uint64_t d)
{
    const uint32_t n = req->lanes;
    if (!m->valid || m->mask != mask || m->n != n || m->bytes != req->access_bytes ||
        m->space != req->space)
        return 0;
    const uint64_t *a = req->addrs, a0 = a[0];
    if (((a0 ^ m->a0) & m->align_mask) != 0 || a0 < m->lo || a0 > m->hi)
        return 0;
    if (m->cst || cst)
        return m->cst && cst && m->d == d;
    if (a[n - 1] - a0 != m->delta[n - 1]) /* (most scattered requests differ there) */
        return 0;
    uint64_t diff0 = 0, diff1 = 0, diff2 = 0, diff3 = 0;
    uint32_t i = 1;
    for (; i + 4 <= n; i += 4) { /* four independent lanes per step */
        diff0 |= (a[i] - a0) ^ m->delta[i];
        diff1 |= (a[i + 1] - a0) ^ m->delta[i + 1];
        diff2 |= (a[i + 2] - a0) ^ m->delta[i + 2];
        diff3 |= (a[i + 3] - a0) ^ m->delta[i + 3];
    }
    for (; i < n; i++)
        diff0 |= (a[i] - a0) ^ m->delta[i];
    return (diff0 | diff1 | diff2 | diff3) == 0;
}

/* Adds `hits` more counts of v (already reserved, see count_value). */
static void add_reserved(uint64_t *direct, prof_hist *h, uint64_t v, uint64_t hits)
{
    if (v < PM_DIRECT)
        direct[v] += hits;
    else
        (void)prof_hist_add(h, v, hits);
}

/* Multiplies a memo's repeats into the results. */
static void memo_flush(prof_mem *pm, pm_memo *m)
{
    if (!m->valid || m->hits == 0)
        return;
    const uint64_t h = m->hits;
    prof_mem_result *res = &pm->res;
    if (m->space == MB_SPACE_SHARED) {
        add_reserved(pm->d_bank, &res->bank_degree, m->degree, h);
        add_reserved(pm->d_bank_cc1x, &res->bank_cc1x, m->degree_cc1x, h);
    } else {
        add_reserved(pm->d_sectors, &res->sectors, m->sectors, h);
        add_reserved(pm->d_lines, &res->lines, m->lines, h);
        add_reserved(pm->d_cc10, &res->cc10_transactions, m->cc10, h);
        add_reserved(pm->d_cc12, &res->cc12_transactions, m->cc12, h);
        if (m->space == MB_SPACE_CONST)
            add_reserved(pm->d_addrs, &res->addresses, m->addrs, h);
    }
    for (uint32_t k = 0; k < m->nruns; k++)
        (void)prof_hist_add(&res->lane_stride, m->run_bucket[k], m->run_count[k] * h);
    m->hits = 0;
}

/* M - 1 for a request of this space and access size (see pm_memo). */
static uint64_t memo_align_mask(const prof_mem *pm, mb_space space, uint64_t off)
{
    uint64_t align = pm->cfg.line_bytes;
    const uint64_t bank_row = pm->nbanks << pm->bank_sh;
    if (space == MB_SPACE_SHARED) {
        if (bank_row > align)
            align = bank_row;
    } else {
        const uint64_t w = off + 1, seg10 = (w == 4 || w == 8 || w == 16) ? 16 * w : 0;
        if (pm->cfg.sector_bytes > align)
            align = pm->cfg.sector_bytes;
        if (128 > align)
            align = 128; /* the largest 1.2 segment */
        if (seg10 > align)
            align = seg10;
    }
    return align - 1;
}

/* The memo set of a request (a hash of what memo_hit compares first). */
static uint32_t memo_set(const prof_mem_request *req, uint32_t mask, uint64_t align_mask)
{
    uint64_t k = ((uint64_t)mask << 32) ^ (req->addrs[0] & align_mask) ^
                 ((uint64_t)req->access_bytes << 20) ^ ((uint64_t)req->space << 28);
    return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 58) & (PM_MEMO_SETS - 1);
}

/* A memo not yet valid: memo_store writes every field it reads later. */
static pm_memo *memo_alloc(void)
{
    pm_memo *m = malloc(sizeof(*m));
    if (m) {
        m->valid = 0;
        m->foreign = 0;
        m->hits = 0;
        m->verified.tags = 0;
        m->line_heap = NULL;
        m->line_cap = 0;
    }
    return m;
}

/* Makes the request just counted the memo m, when its addresses allow. */
static void memo_store(prof_mem *pm, pm_memo *m, const prof_mem_request *req, uint32_t mask,
                       int cst, uint64_t d, const uint64_t *line, uint64_t lfirst, uint64_t nlines)
{
    const uint32_t n = req->lanes;
    const uint64_t *a = req->addrs, a0 = a[0];
    const uint64_t off = (req->access_bytes ? req->access_bytes : 1) - 1;
    int64_t dmin = 0, dmax = 0;
    m->delta[0] = 0;
    for (uint32_t i = 1; i < n; i++) {
        uint64_t d = a[i] - a0;
        m->delta[i] = d;
        if ((int64_t)d < dmin)
            dmin = (int64_t)d;
        if ((int64_t)d > dmax)
            dmax = (int64_t)d;
    }
    uint64_t lo = (uint64_t)0 - (uint64_t)dmin; /* dmin <= 0 */
    if ((uint64_t)dmax > UINT64_MAX - off)
        return;
    uint64_t hi = UINT64_MAX - off - (uint64_t)dmax;
    if (a0 < lo || a0 > hi || nlines > (uint64_t)n * ((off >> pm->line_sh) + 2))
        return;
    if (nlines <= PM_MEMO_OWN_LINES) {
        m->line = m->line_own;
    } else {
        if (!grow_u64(&m->line_heap, &m->line_cap, nlines))
            return;
        m->line = m->line_heap;
    }
    uint64_t lmin = UINT64_MAX, lmax = 0;
    for (uint64_t l = 0; l < nlines; l++) {
        m->line[l] = line ? line[l] : lfirst + l;
        lmin = m->line[l] < lmin ? m->line[l] : lmin;
        lmax = m->line[l] > lmax ? m->line[l] : lmax;
    }
    m->line_lo = lmin;
    m->line_hi = lmax;
    m->align_mask = memo_align_mask(pm, req->space, off);
    m->n = n;
    m->mask = mask;
    m->bytes = req->access_bytes;
    m->space = req->space;
    m->a0 = a0;
    m->cst = cst;
    m->d = d;
    m->lo = lo;
    m->hi = hi;
    m->lines = nlines;
    m->hits = 0;
    m->verified.tags = 0;
    m->foreign = 0;
    m->valid = 1;
}

/* Local memory, as hardware interleaves it by lane: word w of lane l of a
 * warp at (w * 32 + l) * 4, accesses of at most 4 bytes (as the simulator
 * lays it out). A request touches one line per distinct word and one
 * sector per distinct (word, 8-lane group); the distinct words are its line
 * numbers (a warp's region).
 *
 * Most requests stay within a 64-word window around their first word; one
 * pass over the lanes (local_scan) then marks the words of each 8-lane
 * group in a bitmap, and every statistic follows from the bitmaps
 * (local_window_units). The half-warp rules on interleaved addresses
 * reduce to words because a word's 32 lanes fill one 128-byte segment:
 * segment w of 128 bytes (and w * 2 + l / 16 of 64 bytes, so again one per
 * word within a half-warp), w * 4 + l / 8 of 32 bytes (one per sector);
 * the 1.0 rule's 4-byte case holds exactly when the half-warp's lanes
 * share one word, each at its start. */
typedef struct pm_local {
    int in_window;      /* the words below; else local_units */
    uint64_t anchor;    /* the window's first word */
    uint64_t group[4];  /* per 8-lane group: words anchor + bit */
    uint32_t half[2];   /* entries per half-warp */
    uint64_t unaligned[2]; /* per half-warp: nonzero when a lane is not at a word's start */
} pm_local;

/* local_scan, with or without the lane strides. */
static inline __attribute__((always_inline)) int local_scan_lanes(prof_mem *pm,
                                                                  const prof_mem_request *req,
                                                                  const int strides, pm_local *lu)
{
    const uint32_t n = req->lanes;
    const uint64_t *a = req->addrs;
    /* the lanes as a mask; 0 (lanes out of order or beyond 31): not counted here */
    const uint32_t lanes = req->lane_index ? request_mask(req) : n == 32 ? UINT32_MAX : (1u << n) - 1;
    const uint64_t w0 = a[0] >> 2, anchor = w0 >= 32 ? w0 - 32 : 0;
    uint64_t outside = lanes == 0 ? UINT64_MAX : 0, any[4] = {0, 0, 0, 0};
    uint64_t *cnt = NULL;
    const uint8_t *st = NULL;
    if (strides) {
        strides_table(pm);
        cnt = pm->sd_count;
        st = pm->sd_state;
    }
    /* entries in lane order: those of group q follow those of group q - 1
     * (all of them in group 3 when the lanes are not a mask); byte q of
     * `upto` counts the entries of groups 0 to q */
    uint32_t v = lanes - ((lanes >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    const uint32_t upto = ((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u;
    uint32_t b = 0, half0 = 0;
    for (uint32_t q = 0; q < 4; q++) {
        const uint32_t e = q == 3 ? n : (upto >> (8 * q)) & 0xFF;
        uint64_t words = 0, x_or = 0;
        for (uint32_t k = b; k < e; k++) {
            const uint64_t x = a[k];
            if (strides && k > 0) {
                const uint64_t diff = x - a[k - 1], slot = diff + PM_STRIDE_DIRECT;
                if (cnt && slot <= 2 * PM_STRIDE_DIRECT && st[slot] == 1)
                    cnt[slot]++;
                else if (!stride_one_call(pm, diff))
                    return 0;
            }
            const uint64_t rel = (x >> 2) - anchor;
            outside |= rel;
            words |= (uint64_t)1 << (rel & 63);
            x_or |= x;
        }
        lu->group[q] = words;
        any[q] = x_or;
        b = e;
        if (q == 1)
            half0 = e;
    }
    lu->half[0] = half0;
    lu->half[1] = n - half0;
    lu->anchor = anchor;
    lu->unaligned[0] = (any[0] | any[1]) & 3;
    lu->unaligned[1] = (any[2] | any[3]) & 3;
    /* interleaved addresses below 2^64: words below 2^57 */
    lu->in_window = outside < 64 && w0 < ((uint64_t)1 << 56);
    return 1;
}

/* The pass over a local request's lanes: the word bitmaps and, when
 * `strides`, its lane strides (as scatter_scan counts them). 0 when out of
 * memory. */
static int local_scan(prof_mem *pm, const prof_mem_request *req, int strides, pm_local *lu)
{
    return strides ? local_scan_lanes(pm, req, 1, lu) : local_scan_lanes(pm, req, 0, lu);
}

static inline uint32_t popcount2(uint64_t x, uint64_t y)
{
    return (uint32_t)(mb_popcount64(x) + mb_popcount64(y));
}

/* The 1.0 rule for one half-warp of a local request, 4-byte words. */
static inline uint64_t local_cc10_half(uint32_t active, uint64_t unaligned, uint64_t words)
{
    return active != 0 && words == 1 && unaligned == 0 ? 1 : active;
}

/* Sectors, the 1.0 and 1.2 counts and the distinct words (lines, relative
 * to the anchor) of a request inside the window (w: its word size, at
 * most 4). */
static void local_window_units(const pm_local *lu, uint32_t n, uint64_t w, uint64_t *nsec,
                               uint64_t *t10, uint64_t *t12, uint64_t *words)
{
    const uint64_t *g = lu->group, h0 = g[0] | g[1], h1 = g[2] | g[3];
    *nsec = popcount2(g[0], g[1]) + popcount2(g[2], g[3]);
    const uint32_t c0 = (uint32_t)mb_popcount64(h0), c1 = (uint32_t)mb_popcount64(h1);
    *t12 = w == 1 ? *nsec : (uint64_t)c0 + c1;
    if (w == 4)
        *t10 = local_cc10_half(lu->half[0], lu->unaligned[0], c0) +
               local_cc10_half(lu->half[1], lu->unaligned[1], c1);
    else
        *t10 = n; /* a word size the rule never coalesces */
    *words = h0 | h1;
}

/* Requests whose words are far apart: the distinct (word, group) sector
 * keys, sorted; the interleaved addresses go to pm->tmp for the half-warp
 * rules. */
static int local_units(prof_mem *pm, const prof_mem_request *req, uint64_t *nsec, uint64_t *nlines)
{
    const uint32_t n = req->lanes;
    const uint64_t *a = req->addrs;
    if (!grow_u64(&pm->lines, &pm->lines_cap, n) || !grow_u64(&pm->tmp, &pm->tmp_cap, 2 * (size_t)n))
        return 0;
    uint64_t *key = pm->tmp + n;
    for (uint32_t i = 0; i < n; i++) {
        pm->tmp[i] = (a[i] >> 2) * 128 + (uint64_t)lane_id(req, i) * 4 + (a[i] & 3);
        key[i] = (a[i] >> 2) * 4 + (lane_id(req, i) >> 3);
    }
    sort_u64(key, n);
    *nsec = *nlines = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0 && key[i] == key[i - 1])
            continue;
        (*nsec)++;
        if (*nlines == 0 || pm->lines[*nlines - 1] != key[i] / 4)
            pm->lines[(*nlines)++] = key[i] / 4;
    }
    return 1;
}

/* Touches the lines of a local request inside the window. */
static int local_window_touch(prof_mem *pm, const pm_local *lu, uint64_t words, uint64_t r)
{
    pm_footprint *fp = &pm->footprint;
    prof_hist *reuse = &pm->res.reuse_log2;
    pm_direct *dl = &fp->local;
    if (lu->anchor + 64 <= dl->cap)
        return pm_footprint_touch_direct_bits(fp, reuse, dl, MB_SPACE_LOCAL, lu->anchor, words, r);
    for (uint64_t m = words; m; m &= m - 1)
        if (!pm_footprint_touch_direct(fp, reuse, dl, MB_SPACE_LOCAL,
                                       lu->anchor + (uint64_t)__builtin_ctzll(m), r))
            return 0;
    return 1;
}

/* ------------------------------------------------------- kept shapes */

/*
 * The memos of an instruction describe request shapes and what they
 * produce, which depends on the configuration alone, so they outlive a
 * profile: the next profile of the same instruction (the next launch of a
 * kernel) starts with them instead of relearning every shape. What a memo
 * holds that belongs to one prof_mem is renewed on its first use there
 * (memo_adopt): that use is counted as the request that made the memo was,
 * so that its values are reserved in this prof_mem's histograms and its lane
 * strides decided against this prof_mem's stride histogram (the strides of a
 * hit equal the maker's: the same constant stride, or the same address
 * differences); its hits and affine verification start afresh.
 */
struct prof_mem_shapes {
    prof_mem_config cfg;
    pm_memo **memo;
    uint8_t made[PM_MEMO_SETS * PM_MEMO_WAYS];
    uint32_t nmade;
    uint8_t next[PM_MEMO_SETS];
    uint64_t hits, records;
    aff_trace *trace; /* the affine model's spans (prof_affine.h) */
};

/* The first use of a foreign memo m, which the request hits: its lane
 * strides and values are counted as a new request's, and m records the
 * strides' buckets of this prof_mem. 0 when out of memory. */
static int memo_adopt(prof_mem *pm, pm_memo *m, const prof_mem_request *req, int cst, uint64_t d)
{
    const uint32_t n = req->lanes;
    const uint64_t *a = req->addrs;
    prof_mem_result *res = &pm->res;
    m->foreign = 0;
    m->hits = 0;
    m->nruns = 0;
    m->verified.tags = 0;
    pm->rec = m;
    int ok = 1;
    if (n >= 2 && cst) {
        ok = stride_add(pm, d, n - 1);
    } else if (n >= 2) {
        strides_table(pm);
        for (uint32_t i = 1; i < n && ok; i++)
            ok = stride_one_call(pm, a[i] - a[i - 1]);
    }
    if (!pm->rec)
        m->valid = 0; /* its strides take too many runs here */
    pm->rec = NULL;
    if (!ok)
        return 0;
    if (m->space == MB_SPACE_SHARED)
        return count_value(pm->d_bank, &res->bank_degree, m->degree) &&
               count_value(pm->d_bank_cc1x, &res->bank_cc1x, m->degree_cc1x);
    return count_value(pm->d_sectors, &res->sectors, m->sectors) &&
           count_value(pm->d_lines, &res->lines, m->lines) &&
           count_value(pm->d_cc10, &res->cc10_transactions, m->cc10) &&
           count_value(pm->d_cc12, &res->cc12_transactions, m->cc12) &&
           (m->space != MB_SPACE_CONST || count_value(pm->d_addrs, &res->addresses, m->addrs));
}

prof_mem_shapes *prof_mem_take_shapes(prof_mem *pm)
{
    if (!pm->memo && !pm->aff.trace)
        return NULL;
    prof_mem_shapes *s = malloc(sizeof(*s));
    if (!s)
        return NULL;
    s->trace = aff_take_trace(&pm->aff);
    s->cfg = pm->cfg;
    s->memo = pm->memo;
    memcpy(s->made, pm->memo_made, sizeof(s->made));
    s->nmade = pm->nmemo_made;
    memcpy(s->next, pm->memo_next, sizeof(s->next));
    s->hits = pm->memo_hits;
    s->records = pm->memo_records;
    for (uint32_t k = 0; k < s->nmade; k++) {
        pm_memo *m = s->memo[s->made[k]];
        m->foreign = 1;
        m->hits = 0; /* counted by pm (or dropped with it when it was not finished) */
    }
    pm->memo = NULL;
    pm->nmemo_made = 0;
    return s;
}

void prof_mem_give_shapes(prof_mem *pm, prof_mem_shapes *s)
{
    if (!s)
        return;
    const prof_mem_config *c = &pm->cfg;
    if (pm->memo || pm->res.requests || s->cfg.banks != c->banks ||
        s->cfg.bank_bytes != c->bank_bytes || s->cfg.sector_bytes != c->sector_bytes ||
        s->cfg.line_bytes != c->line_bytes) {
        prof_mem_shapes_free(s);
        return;
    }
    if (!aff_give_trace(&pm->aff, s->trace))
        aff_trace_free(s->trace);
    aff_sync(pm);
    pm->memo = s->memo;
    memcpy(pm->memo_made, s->made, sizeof(s->made));
    pm->nmemo_made = s->nmade;
    memcpy(pm->memo_next, s->next, sizeof(s->next));
    pm->memo_hits = s->hits;
    pm->memo_records = s->records;
    free(s);
}

void prof_mem_shapes_free(prof_mem_shapes *s)
{
    if (!s)
        return;
    memos_free(s->memo, s->made, s->nmade);
    aff_trace_free(s->trace);
    free(s);
}

/* ------------------------------------------------------------ counting */

/* Whether a[i] == a[0] + i d for every entry: four lanes a step, in pairs
 * of 64-bit lanes where the compiler has vectors for them (SSE2 on
 * x86-64), which halves the instructions per lane. */
typedef uint64_t pm_u64x2 __attribute__((vector_size(16)));
static inline int constant_stride(const uint64_t *a, uint32_t n, uint64_t d)
{
    const uint64_t a0 = a[0];
    pm_u64x2 e01 = {a0, a0 + d}, e23 = {a0 + 2 * d, a0 + 3 * d}, bad = {0, 0};
    const pm_u64x2 d4 = {4 * d, 4 * d};
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4, e01 += d4, e23 += d4) {
        pm_u64x2 x01, x23;
        memcpy(&x01, a + i, sizeof(x01)); /* (addresses need not be 16-byte aligned) */
        memcpy(&x23, a + i + 2, sizeof(x23));
        bad |= (x01 ^ e01) | (x23 ^ e23);
    }
    uint64_t rest = bad[0] | bad[1], e = a0 + (uint64_t)i * d;
    for (; i < n; i++, e += d)
        rest |= a[i] ^ e;
    return rest == 0;
}

/* The distinct values among a[0..n) (n >= 1) into *out; 0 when out of memory. */
static int distinct_addresses(prof_mem *pm, const uint64_t *a, uint32_t n, int cst, uint64_t d,
                              uint64_t *out)
{
    if (cst) {
        *out = d == 0 ? 1 : n;
        return 1;
    }
    if (!grow_u64(&pm->tmp, &pm->tmp_cap, n))
        return 0;
    memcpy(pm->tmp, a, (size_t)n * sizeof(uint64_t));
    sort_u64(pm->tmp, n);
    uint64_t k = 1;
    for (uint32_t i = 1; i < n; i++)
        k += pm->tmp[i] != pm->tmp[i - 1];
    *out = k;
    return 1;
}

/* Counts one request. */
static int count_request(prof_mem *pm, const prof_mem_request *req)
{
    const uint32_t n = req->lanes;
    if (n == 0)
        return 1;
    const uint64_t *a = req->addrs;
    prof_mem_result *res = &pm->res;
    const uint64_t r = res->requests++;
    res->thread_accesses += n;
    if (!pm->space_seen) {
        pm->space_seen = 1;
        res->space = req->space;
    } else if (res->space != req->space) {
        res->space = MB_SPACE_NONE;
    }
    const uint64_t bytes = req->access_bytes ? req->access_bytes : 1, off = bytes - 1;
    const int shared = req->space == MB_SPACE_SHARED;
    /* local requests are counted in their interleaved layout, without memos */
    const int local = req->space == MB_SPACE_LOCAL && n <= 32;
    const unsigned space = (unsigned)req->space & 15;

    /* constant-stride detection (memo_hit compares strides) */
    int cst = 1;
    uint64_t d = 0;
    if (n >= 2) {
        d = a[1] - a[0];
        /* a[i] == a[0] + i d for every lane; most scattered requests
         * already differ at the last lane */
        cst = a[n - 1] - a[0] == (uint64_t)(n - 1) * d && constant_stride(a, n, d);
    }

    const uint32_t mask = local ? 0 : request_mask(req);
    uint32_t set = 0;
    /* an instruction whose requests rarely repeat (see PM_MEMO_GIVE_UP) looks
     * its memos up only when it would record one */
    const int memo_rare = pm->memo_records >= PM_MEMO_GIVE_UP && pm->memo_hits * 4 < pm->memo_records &&
                          r % PM_MEMO_RETRY != 0;
    if (mask && pm->memo && !memo_rare) {
        set = memo_set(req, mask, memo_align_mask(pm, req->space, off));
        for (uint32_t w = 0; w < PM_MEMO_WAYS; w++) {
            pm_memo *memo = pm->memo[set * PM_MEMO_WAYS + w];
            if (!memo || !memo_hit(memo, req, mask, cst, d))
                continue;
            if (memo->foreign) {
                if (!memo_adopt(pm, memo, req, cst, d))
                    return 0;
            } else {
                memo->hits++;
            }
            pm->memo_hits++;
            pm->memo_next[set] = (uint8_t)((w + 1) % PM_MEMO_WAYS);
            const uint64_t shift = (a[0] >> pm->line_sh) - (memo->a0 >> pm->line_sh);
            pm_direct *dl = pm_footprint_direct(&pm->footprint, space);
            const uint64_t lo = memo->line_lo + shift, hi = memo->line_hi + shift;
            if (dl && lo <= hi && hi < dl->cap) { /* (lo <= hi: no wrap) */
                if (!touch_lines_in(&pm->footprint, &pm->res.reuse_log2, dl, memo->line, shift,
                                    memo->lines, space, r))
                    return 0;
            } else if (!touch_lines(pm, memo->line, shift, memo->lines, space, r)) {
                return 0;
            }
            aff_check(pm, req, memo->valid ? &memo->verified : NULL);
            return 1;
        }
    }
    /* scattered requests never repeat: stop paying for memos that miss */
    pm->rec = NULL;
    uint32_t way = 0;
    if (mask != 0 && (pm->memo_records < PM_MEMO_GIVE_UP || pm->memo_hits >= pm->memo_records ||
                      r % PM_MEMO_RETRY == 0)) {
        if (!pm->memo) {
            pm->memo = calloc(PM_MEMO_SETS * PM_MEMO_WAYS, sizeof(pm_memo *));
            set = pm->memo ? memo_set(req, mask, memo_align_mask(pm, req->space, off)) : 0;
        }
        if (pm->memo) { /* an empty way, else the one due for replacement */
            way = pm->memo_next[set];
            for (uint32_t w = PM_MEMO_WAYS; w-- > 0;)
                if (!pm->memo[set * PM_MEMO_WAYS + w] || !pm->memo[set * PM_MEMO_WAYS + w]->valid)
                    way = w;
            pm_memo **slot = &pm->memo[set * PM_MEMO_WAYS + way];
            if (!*slot) {
                *slot = memo_alloc(); /* none: simply no memo */
                if (*slot)
                    pm->memo_made[pm->nmemo_made++] = (uint8_t)(set * PM_MEMO_WAYS + way);
            }
            if (*slot) {
                memo_flush(pm, *slot);
                (*slot)->valid = 0;
                (*slot)->nruns = 0;
                pm->rec = *slot;
                pm->memo_records++;
            }
        }
    }

    /* lane strides */
    pm_scan sc = {0, 0, 0, 0, 0};
    pm_words ws = {0, 0, 0};
    uint32_t split = 0; /* shared_scan's: the second half-warp's first entry */
    pm_local lu;
    int local_scanned = 0, local_window = 0;
    uint64_t local_words = 0;
    if (n >= 2) {
        if (cst) {
            if (!stride_add(pm, d, n - 1))
                return 0;
        } else if (local) {
            if (!local_scan(pm, req, 1, &lu))
                return 0;
            local_scanned = 1;
        } else if (shared && n <= 32 && shared_words(pm)) {
            split = lane_id(req, 0) < 16 ? half_end(req, 0, n) : 0;
            if (!shared_scan(pm, a, n, split, off, &ws))
                return 0;
            if (!ws.in_window)
                range_scan(a, n, &sc);
        } else if (!scatter_scan(pm, a, n, &sc)) {
            return 0;
        }
    }
    const int neg = (int64_t)d < 0;
    const uint64_t ad = neg ? (uint64_t)0 - d : d;

    /* sectors and the distinct lines */
    uint64_t nsec, lfirst = 0, nlines, deg = 0, cc1x_cycles = 0, t10 = 0, t12 = 0, naddr = 0;
    int line_range = 0;
    const int local_uniform = local && cst && d == 0 && n == 32 && (a[0] & 3) + (bytes > 4 ? 4 : bytes) <= 4;
    if (local_uniform) {
        /* the whole warp on one word (a stack slot): its 128-byte line */
        if (!grow_u64(&pm->lines, &pm->lines_cap, 1))
            return 0;
        pm->lines[0] = a[0] >> 2;
        nsec = 4;
        nlines = 1;
        t10 = t12 = 2; /* a 64-byte aligned word run per half-warp */
    } else if (local) {
        if (!local_scanned && !local_scan(pm, req, 0, &lu))
            return 0;
        local_window = lu.in_window;
        if (local_window) {
            local_window_units(&lu, n, bytes > 4 ? 4 : bytes, &nsec, &t10, &t12, &local_words);
            nlines = (uint64_t)mb_popcount64(local_words);
        } else {
            if (!local_units(pm, req, &nsec, &nlines))
                return 0;
            cc1x(req, pm->tmp, n, bytes > 4 ? 4 : bytes, 0, 0, NULL, &t10, &t12);
        }
    } else if (cst && ad <= bytes) {
        /* contiguous or overlapping: one interval */
        uint64_t lo = neg ? a[n - 1] : a[0], hi = end_of(neg ? a[0] : a[n - 1], off);
        nsec = (hi >> pm->sec_sh) - (lo >> pm->sec_sh) + 1;
        lfirst = lo >> pm->line_sh;
        nlines = (hi >> pm->line_sh) - lfirst + 1;
        line_range = 1;
    } else if (ws.in_window) {
        if (!grow_u64(&pm->lines, &pm->lines_cap, n)) {
            words_clear(pm, &ws);
            return 0;
        }
        nsec = 0; /* not reported for shared requests */
        nlines = words_lines(pm, &ws);
    } else {
        size_t need = (size_t)n * ((off >> pm->line_sh) + 2);
        if (!grow_u64(&pm->lines, &pm->lines_cap, need))
            return 0;
        if (cst) {
            nlines = units_monotone(pm, a, n, neg ? -1 : 1, off, &nsec);
        } else {
            const uint64_t smask = ((uint64_t)1 << pm->sec_sh) - 1;
            const int one_sector = (sc.any & smask) + off <= smask;
            if (sc.asc || sc.desc) {
                nlines = units_monotone(pm, a, n, sc.asc ? 1 : -1, off, &nsec);
            } else if (!units_small_range(pm, a, n, off, sc.lo, sc.hi, !shared, one_sector, &nsec,
                                          &nlines)) {
                if (!grow_u64(&pm->tmp, &pm->tmp_cap, n))
                    return 0;
                memcpy(pm->tmp, a, (size_t)n * sizeof(uint64_t));
                sort_u64(pm->tmp, n);
                nlines = units_monotone(pm, pm->tmp, n, 1, off, &nsec);
            }
        }
    }

    if (shared) {
        const uint64_t wmask = ((uint64_t)1 << pm->bank_sh) - 1;
        const int one_word = !cst && (sc.any & wmask) + off <= wmask;
        if (ws.in_window) {
            words_degrees(pm, &ws, split, n, &deg, &cc1x_cycles);
        } else if ((!(one_word && bank_degree_words(pm, a, n, &sc, &deg)) &&
                    !bank_degree(pm, a, n, off, cst, d, &deg)) ||
                   !bank_cycles_cc1x(pm, req, off, cst, d, &cc1x_cycles)) {
            return 0;
        }
        if (!count_value(pm->d_bank, &res->bank_degree, deg) ||
            !count_value(pm->d_bank_cc1x, &res->bank_cc1x, cc1x_cycles))
            return 0;
    } else {
        if (!local)
            cc1x(req, a, n, bytes, cst, d, cst ? NULL : &sc, &t10, &t12);
        if (!count_value(pm->d_sectors, &res->sectors, nsec) ||
            !count_value(pm->d_lines, &res->lines, nlines) ||
            !count_value(pm->d_cc10, &res->cc10_transactions, t10) ||
            !count_value(pm->d_cc12, &res->cc12_transactions, t12))
            return 0;
        if (req->space == MB_SPACE_CONST &&
            (!distinct_addresses(pm, a, n, cst, d, &naddr) ||
             !count_value(pm->d_addrs, &res->addresses, naddr)))
            return 0;
    }

    /* footprint and reuse */
    if (local_window) {
        if (!local_window_touch(pm, &lu, local_words, r))
            return 0;
    } else if (!touch_lines(pm, line_range ? NULL : pm->lines, line_range ? lfirst : 0, nlines,
                            space, r)) {
        return 0;
    }

    pm_memo *memo = pm->rec;
    pm->rec = NULL;
    if (memo) {
        memo->sectors = nsec;
        memo->lines = nlines;
        memo->cc10 = t10;
        memo->cc12 = t12;
        memo->degree = deg;
        memo->degree_cc1x = cc1x_cycles;
        memo->addrs = naddr;
        memo_store(pm, memo, req, mask, cst, d, line_range ? NULL : pm->lines, lfirst, nlines);
        if (memo->valid)
            pm->memo_next[set] = (uint8_t)((way + 1) % PM_MEMO_WAYS);
    }
    pm_verified *shape = NULL;
    if (mask && cst && pm->aff.state == AFF_OK && req->warp_tag)
        shape = stride_shape(pm, mask, n, d);
    else if (memo && memo->valid)
        shape = &memo->verified;
    aff_check(pm, req, shape);
    return 1;
}

/* Clears the direct counts of `group` before their first use. */
static void direct_clear(prof_mem *pm, unsigned group)
{
    if (group == PM_DIRECT_UNITS)
        memset(pm->d_sectors, 0, offsetof(prof_mem, d_bank) - offsetof(prof_mem, d_sectors));
    else
        memset(pm->d_bank, 0, offsetof(prof_mem, stride) - offsetof(prof_mem, d_bank));
    pm->direct_ready |= group;
}

int prof_mem_add(prof_mem *pm, const prof_mem_request *req)
{
    /* every count (a request's, a memo's) goes to its request's space's group */
    const unsigned group = req->space == MB_SPACE_SHARED ? PM_DIRECT_BANKS : PM_DIRECT_UNITS;
    if (!(pm->direct_ready & group))
        direct_clear(pm, group);
    return count_request(pm, req);
}

/* -------------------------------------------------------------- finish */

const prof_mem_result *prof_mem_finish(prof_mem *pm)
{
    prof_mem_result *res = &pm->res;
    if (pm->memo)
        for (uint32_t k = 0; k < pm->nmemo_made; k++)
            memo_flush(pm, pm->memo[pm->memo_made[k]]);
    stride_flush(pm);
    strides_drain(pm);
    if (pm->direct_ready & PM_DIRECT_UNITS) {
        prof_hist_direct_drain(&res->sectors, pm->d_sectors, PM_DIRECT, 0);
        prof_hist_direct_drain(&res->lines, pm->d_lines, PM_DIRECT, 0);
        prof_hist_direct_drain(&res->cc10_transactions, pm->d_cc10, PM_DIRECT, 0);
        prof_hist_direct_drain(&res->cc12_transactions, pm->d_cc12, PM_DIRECT, 0);
        prof_hist_direct_drain(&res->addresses, pm->d_addrs, PM_DIRECT, 0);
    }
    if (pm->direct_ready & PM_DIRECT_BANKS) {
        prof_hist_direct_drain(&res->bank_degree, pm->d_bank, PM_DIRECT, 0);
        prof_hist_direct_drain(&res->bank_cc1x, pm->d_bank_cc1x, PM_DIRECT, 0);
    }
    prof_hist_direct_drain(&res->reuse_log2, pm->footprint.reuse, PM_REUSE_BUCKETS, 0);
    prof_hist_sort(&res->sectors);
    prof_hist_sort(&res->lines);
    prof_hist_sort(&res->cc10_transactions);
    prof_hist_sort(&res->cc12_transactions);
    prof_hist_sort(&res->bank_degree);
    prof_hist_sort(&res->bank_cc1x);
    prof_hist_sort(&res->addresses);
    prof_hist_sort(&res->lane_stride);
    prof_hist_sort(&res->reuse_log2);
    res->footprint_lines = pm->footprint.count;
    res->footprint_capped = pm->footprint.capped;

    const pm_affine *a = &pm->aff;
    memset(res->coef, 0, sizeof(res->coef));
    res->affine = a->state == AFF_OK;
    res->ncoef = a->state == AFF_DISABLED && a->nf > PM_MAX_FEATURES ? 0 : a->ncol;
    if (res->affine) {
        res->coef[0] = (int64_t)(uint64_t)a->c0; /* modulo 2^64 */
        for (uint32_t k = 1; k < a->ncol; k++)
            res->coef[k] = a->coef[k];
    }
    return res;
}
