/* Barriers and warp collectives: bar / barrier (.sync, .arrive, .red),
 * bar.warp.sync, vote, shfl, match, activemask, redux and elect.
 *
 * Semantics follow the PTX ISA 9.0 manual. The executor runs a warp's
 * divergent paths one after the other (IPDOM reconvergence stack), so a
 * collective sees exactly the lanes that execute it together. Choices where
 * the manual leaves behaviour undefined, applied by every .sync collective:
 *
 *  - A lane executing a .sync instruction must be in its own membermask, and
 *    lanes that execute it together and name each other must pass the same
 *    membermask value; otherwise the launch faults (the manual: undefined;
 *    compute-sanitizer's synccheck reports the same misuse). Lanes with
 *    different, disjoint membermasks form independent groups (as on sm_70+).
 *  - Lanes named in membermask that have not exited but do not execute the
 *    instruction now (inactive on this divergent path, or guarded off) do not
 *    participate: the reduction, vote, match or election covers the executing
 *    members only. On sm_70+ hardware such lanes would be waited for; the
 *    executor cannot make divergent paths meet, so this is its deterministic
 *    reading. bar.warp.sync, whose only effect is that wait, faults instead.
 *  - shfl from a source lane that is inactive, guarded off, exited or outside
 *    membermask (the manual: the value is unpredictable) reads that lane's
 *    current register value, which is what the register file holds (lanes
 *    beyond the CTA's last thread hold 0).
 *
 * The legacy forms without .sync (vote, shfl; PTX < 6.4 or targets below
 * sm_70) use the executing lanes as the member set.
 */
#include "exec.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

/* Name of the instruction for fault messages. */
static const char *insn_name(const xinsn *x)
{
    switch ((mb_opcode)x->opcode) {
    case MB_OP_VOTE: return "vote.sync";
    case MB_OP_SHFL: return "shfl.sync";
    case MB_OP_MATCH: return "match.sync";
    case MB_OP_REDUX: return "redux.sync";
    case MB_OP_ELECT: return "elect.sync";
    case MB_OP_BAR: return "bar.warp.sync";
    default: return mb_opcode_get((mb_opcode)x->opcode)->name;
    }
}

/* Splits the executing lanes `mask` into the groups that execute the
 * instruction together: lanes sharing one membermask value (see the file
 * comment). `mref` is the membermask operand, XREF_NONE for the legacy forms
 * (one group: `mask`). Fills g[0..*ng) and returns 1, or 0 after a fault. */
static int member_groups(exec_warp *w, const xinsn *x, xref mref, uint32_t mask, uint32_t *g,
                         unsigned *ng)
{
    if (mref == XREF_NONE) {
        g[0] = mask;
        *ng = 1;
        return 1;
    }
    const uint32_t *mm = xr32(w, mref);
    int uniform = XREF_IS(mref, XREF_CONST);
    if (!uniform) { /* usually one value in every lane: check it in one pass */
        uint32_t m0 = mm[__builtin_ctz(mask)], diff = 0;
        FOR_LANES(mask, l, diff |= mm[l] ^ m0);
        uniform = diff == 0;
    }
    unsigned n = 0;
    for (uint32_t todo = mask; todo;) {
        int f = __builtin_ctz(todo);
        uint32_t m = mm[f];
        if (!((m >> f) & 1u)) {
            exec_fault_at(w, x, f,
                          "%s executed by lane %d, which is not in its membermask 0x%08x "
                          "(undefined behaviour)",
                          insn_name(x), f, m);
            return 0;
        }
        uint32_t grp = m & mask;
        if (!uniform)
            for (uint32_t r = grp; r; r &= r - 1) {
                int l = __builtin_ctz(r);
                if (mm[l] != m) {
                    exec_fault_at(w, x, f,
                                  "%s: lane %d executes it with membermask 0x%08x, which names "
                                  "lane %d, but lane %d executes it with membermask 0x%08x "
                                  "(undefined behaviour)",
                                  insn_name(x), f, m, l, l, mm[l]);
                    return 0;
                }
            }
        g[n++] = grp;
        todo &= ~grp;
    }
    *ng = n;
    return 1;
}

/* Writes predicate `p` (a PRED reference, or XREF_NONE) for the lanes of `mask`. */
static inline void write_pred(exec_warp *w, xref p, uint32_t mask, uint32_t bits)
{
    if (p == XREF_NONE)
        return;
    uint32_t *d = &w->preds[XREF_INDEX(p)];
    *d = (*d & ~mask) | (bits & mask);
}

/* ------------------------------------------------------------ barriers */

enum { BK_SYNC, BK_ARRIVE, BK_RED_POPC, BK_RED_AND, BK_RED_OR };

/* Reads operand `r` that all lanes of `mask` must agree on (barrier id and
 * thread count). Returns 1, or 0 after a fault. */
static int uniform_u32(exec_warp *w, const xinsn *x, xref r, uint32_t mask, const char *what,
                       uint32_t *out)
{
    const uint32_t *v = xr32(w, r);
    int f = __builtin_ctz(mask);
    uint32_t val = v[f];
    if (!XREF_IS(r, XREF_CONST))
        for (uint32_t m = mask & (mask - 1); m; m &= m - 1) {
            int l = __builtin_ctz(m);
            if (v[l] != val) {
                exec_fault_at(w, x, l,
                              "%s differs across the lanes of warp %u (%u in lane %d, %u in lane "
                              "%d)",
                              what, w->index, val, f, v[l], l);
                return 0;
            }
        }
    *out = val;
    return 1;
}

/* bar{.cta}.sync / .arrive / .red and barrier{.cta}.* (.aligned or not: the
 * executor requires a converged warp either way). op[0] bar.red destination,
 * op[1] barrier id, op[2] thread count or XREF_NONE, op[3] bar.red predicate
 * (negated with aux2). A thread count of 0 in bar.sync/bar.red (which ptxas
 * accepts) is read as "all threads of the CTA". */
static exec_result h_bar(exec_warp *w, const xinsn *x, uint32_t mask)
{
    if (!mask)
        return EXEC_NEXT; /* guarded off in every lane: not executed */
    uint32_t id, count = 0;
    if (!uniform_u32(w, x, x->op[1], mask, "the barrier id", &id))
        return EXEC_FAULT;
    if (x->op[2] != XREF_NONE) {
        if (!uniform_u32(w, x, x->op[2], mask, "the barrier thread count", &count))
            return EXEC_FAULT;
        int lane = __builtin_ctz(mask);
        if (count == 0 && x->aux == BK_ARRIVE)
            return exec_fault_at(w, x, lane, "barrier arrive needs a non-zero thread count");
        if (count % 32)
            return exec_fault_at(w, x, lane,
                                 "barrier thread count %u is not a multiple of the warp size (32)",
                                 count);
        if (count > w->cta->nwarps * 32)
            return exec_fault_at(w, x, lane,
                                 "barrier %u expects %u threads but the CTA has %u warps (%u "
                                 "threads as the barrier counts them)",
                                 id, count, w->cta->nwarps, w->cta->nwarps * 32);
    }
    if (mask != w->active && w->active == w->live)
        return exec_fault_at(w, x, __builtin_ctz(mask),
                             "barrier divergence: barrier %u is executed by lanes 0x%08x of warp "
                             "%u but its guard predicate is false for lanes 0x%08x",
                             id, mask, w->index, w->active & ~mask);
    if (x->aux >= BK_RED_POPC) {
        w->bar_red = (uint8_t)(x->aux - BK_RED_POPC + 1);
        w->bar_red_in = (xpred(w, x->op[3]) ^ x->aux2) & mask;
        w->bar_red_dest = x->op[0];
    }
    return exec_barrier_arrive(w, x, id, count, x->aux != BK_ARRIVE);
}

/* bar.warp.sync membermask: no data effect; every lane named in membermask
 * that has not exited must be executing it now. */
static exec_result h_bar_warp_sync(exec_warp *w, const xinsn *x, uint32_t mask)
{
    if (!mask)
        return EXEC_NEXT;
    uint32_t g[32];
    unsigned ng;
    if (!member_groups(w, x, x->op[0], mask, g, &ng))
        return EXEC_FAULT;
    const uint32_t *mm = xr32(w, x->op[0]);
    for (unsigned i = 0; i < ng; i++) {
        int f = __builtin_ctz(g[i]);
        uint32_t missing = mm[f] & w->live & ~mask;
        if (missing)
            return exec_fault_at(w, x, f,
                                 "bar.warp.sync with membermask 0x%08x: lanes 0x%08x have not "
                                 "exited but do not execute it together with lanes 0x%08x "
                                 "(divergent or guarded off), so they can never meet here",
                                 mm[f], missing, g[i]);
    }
    return EXEC_NEXT;
}

/* ---------------------------------------------------------------- vote */

enum { VM_ALL, VM_ANY, VM_UNI, VM_BALLOT };

/* op[0] destination, op[1] source predicate (negated with aux2),
 * op[2] membermask or XREF_NONE. */
static inline __attribute__((always_inline)) exec_result vote_run(exec_warp *w, const xinsn *x,
                                                                  uint32_t mask, int mode)
{
    if (!mask)
        return EXEC_NEXT;
    uint32_t g[32];
    unsigned ng;
    if (!member_groups(w, x, x->op[2], mask, g, &ng))
        return EXEC_FAULT;
    uint32_t src = xpred(w, x->op[1]) ^ x->aux2;
    if (mode == VM_BALLOT) {
        if (x->op[0] == XREF_NONE)
            return EXEC_NEXT;
        uint32_t *d = xr32(w, x->op[0]);
        for (unsigned i = 0; i < ng; i++) {
            uint32_t v = src & g[i];
            FOR_LANES(g[i], l, d[l] = v);
        }
        return EXEC_NEXT;
    }
    uint32_t out = 0;
    for (unsigned i = 0; i < ng; i++) {
        uint32_t t = src & g[i];
        int r = mode == VM_ALL ? t == g[i] : mode == VM_ANY ? t != 0 : (t == 0 || t == g[i]);
        out |= r ? g[i] : 0;
    }
    write_pred(w, x->op[0], mask, out);
    return EXEC_NEXT;
}

static exec_result h_vote_all(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return vote_run(w, x, mask, VM_ALL);
}

static exec_result h_vote_any(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return vote_run(w, x, mask, VM_ANY);
}

static exec_result h_vote_uni(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return vote_run(w, x, mask, VM_UNI);
}

static exec_result h_vote_ballot(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return vote_run(w, x, mask, VM_BALLOT);
}

/* ---------------------------------------------------------------- shfl */

enum { SH_UP, SH_DOWN, SH_BFLY, SH_IDX };

/* Source lane of `lane` per the manual's pseudo-code, with bval = b[4:0],
 * seg = c[12:8] and cmax = c[4:0] & ~seg; *pv tells whether it is in range
 * (otherwise the lane reads its own value). */
static inline __attribute__((always_inline)) uint32_t shfl_source(int mode, uint32_t lane,
                                                                  uint32_t bval, uint32_t seg,
                                                                  uint32_t cmax, uint32_t *pv)
{
    uint32_t max_lane = (lane & seg) | cmax;
    uint32_t j;
    int ok;
    switch (mode) {
    case SH_UP: {
        int32_t sj = (int32_t)lane - (int32_t)bval;
        ok = sj >= (int32_t)max_lane;
        j = (uint32_t)sj;
        break;
    }
    case SH_DOWN:
        j = lane + bval;
        ok = j <= max_lane;
        break;
    case SH_BFLY:
        j = lane ^ bval;
        ok = j <= max_lane;
        break;
    default:
        j = (lane & seg) | (bval & ~seg);
        ok = j <= max_lane;
        break;
    }
    *pv = (uint32_t)ok;
    return ok ? j : lane;
}

/* With b and c the same in every lane, the source lane of each lane and the
 * in-range mask depend only on (mode, b[4:0], c[12:8], c[4:0]): they are
 * kept in a small per-host-thread cache, so a shuffle costs one table look-up
 * per warp and a gather per lane. */
typedef struct shfl_map {
    uint32_t key; /* mode, bval, seg, cval packed, plus 1 (0: empty) */
    uint32_t pmask;
    uint8_t src[32];
} shfl_map;

static _Thread_local shfl_map shfl_cache[64];

static inline __attribute__((always_inline)) const shfl_map *shfl_lookup(int mode, uint32_t b,
                                                                         uint32_t c)
{
    uint32_t bval = b & 31u, cval = c & 31u, seg = (c >> 8) & 31u;
    uint32_t key = ((uint32_t)mode << 15 | bval << 10 | seg << 5 | cval) + 1u;
    shfl_map *m = &shfl_cache[(key * 0x9E3779B1u) >> 26];
    if (m->key != key) {
        uint32_t pm = 0, cmax = cval & ~seg;
        for (uint32_t l = 0; l < 32; l++) {
            uint32_t pv;
            m->src[l] = (uint8_t)shfl_source(mode, l, bval, seg, cmax, &pv);
            pm |= pv << l;
        }
        m->pmask = pm;
        m->key = key;
    }
    return m;
}

/* op[0] d (or XREF_NONE), op[1] p (or XREF_NONE), op[2] a, op[3] b, op[4] c,
 * op[5] membermask (XREF_NONE for the legacy form). aux is 1 when d is a
 * (the result goes through a temporary). b and c are nearly always the same
 * in every lane (immediates, or registers nvcc loads with constants): that
 * case uses shfl_lookup. */
static inline __attribute__((always_inline)) exec_result shfl_run(exec_warp *w, const xinsn *x,
                                                                  uint32_t mask, int mode)
{
    if (!mask)
        return EXEC_NEXT;
    if (x->op[5] != XREF_NONE) {
        uint32_t g[32];
        unsigned ng;
        if (!member_groups(w, x, x->op[5], mask, g, &ng))
            return EXEC_FAULT;
    }
    const uint32_t *a = xr32(w, x->op[2]);
    const uint32_t *b = xr32(w, x->op[3]);
    const uint32_t *c = xr32(w, x->op[4]);
    uint32_t tmp[32];
    uint32_t *d = x->aux || x->op[0] == XREF_NONE ? tmp : xr32(w, x->op[0]);
    uint32_t pbits = 0;
    int f = __builtin_ctz(mask);
    uint32_t b0 = b[f], c0 = c[f];
    uint32_t diff = 0;
    if (!XREF_IS(x->op[3], XREF_CONST) || !XREF_IS(x->op[4], XREF_CONST))
        FOR_LANES(mask, l, diff |= (b[l] ^ b0) | (c[l] ^ c0));
    if (!diff) {
        const shfl_map *sm = shfl_lookup(mode, b0, c0);
        FOR_LANES(mask, l, d[l] = a[sm->src[l]]);
        pbits = sm->pmask;
    } else {
        FOR_LANES(mask, l, {
            uint32_t pv_;
            uint32_t seg_ = (c[l] >> 8) & 31u;
            uint32_t j_ = shfl_source(mode, (uint32_t)l, b[l] & 31u, seg_, c[l] & 31u & ~seg_,
                                      &pv_);
            d[l] = a[j_];
            pbits |= pv_ << l;
        });
    }
    if (d == tmp && x->op[0] != XREF_NONE) {
        uint32_t *dst = xr32(w, x->op[0]);
        FOR_LANES(mask, l, dst[l] = tmp[l]);
    }
    write_pred(w, x->op[1], mask, pbits);
    return EXEC_NEXT;
}

static exec_result h_shfl_up(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return shfl_run(w, x, mask, SH_UP);
}

static exec_result h_shfl_down(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return shfl_run(w, x, mask, SH_DOWN);
}

static exec_result h_shfl_bfly(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return shfl_run(w, x, mask, SH_BFLY);
}

static exec_result h_shfl_idx(exec_warp *w, const xinsn *x, uint32_t mask)
{
    return shfl_run(w, x, mask, SH_IDX);
}

/* --------------------------------------------------------------- match */

/* Hash of a match operand, folded to 6 bits for a 64-slot table. */
static inline uint32_t match_hash(uint64_t v)
{
    v ^= v >> 32;
    return ((uint32_t)v * 0x9E3779B1u) >> 26;
}

/* op[0] d (or XREF_NONE), op[1] p (or XREF_NONE), op[2] a, op[3] membermask.
 * match.any groups equal values with an open-addressing table (64 slots for
 * at most 32 values), so a warp of distinct values costs O(32), not O(32^2). */
#define MATCH_HANDLERS(suffix, T, READ)                                                            \
    static exec_result h_match_any_##suffix(exec_warp *w, const xinsn *x, uint32_t mask)          \
    {                                                                                              \
        if (!mask)                                                                                 \
            return EXEC_NEXT;                                                                      \
        uint32_t g[32];                                                                            \
        unsigned ng;                                                                               \
        if (!member_groups(w, x, x->op[3], mask, g, &ng))                                          \
            return EXEC_FAULT;                                                                     \
        const T *a = READ(w, x->op[2]);                                                            \
        uint32_t tmp[32];                                                                          \
        uint8_t slot[32];                                                                          \
        T key[64];                                                                                 \
        uint32_t lanes[64];                                                                        \
        for (unsigned i = 0; i < ng; i++) {                                                        \
            T v0 = a[__builtin_ctz(g[i])], diff = 0;                                               \
            FOR_LANES(g[i], l, diff |= a[l] ^ v0);                                                 \
            if (!diff) { /* one value: the whole group */                                          \
                FOR_LANES(g[i], l, tmp[l] = g[i]);                                                 \
                continue;                                                                          \
            }                                                                                      \
            memset(lanes, 0, sizeof(lanes));                                                       \
            FOR_LANES(g[i], l, {                                                                   \
                T v_ = a[l];                                                                       \
                uint32_t h_ = match_hash((uint64_t)v_);                                            \
                while (lanes[h_] && key[h_] != v_)                                                 \
                    h_ = (h_ + 1) & 63u;                                                           \
                key[h_] = v_;                                                                      \
                lanes[h_] |= 1u << l;                                                              \
                slot[l] = (uint8_t)h_;                                                             \
            });                                                                                    \
            FOR_LANES(g[i], l, tmp[l] = lanes[slot[l]]);                                           \
        }                                                                                          \
        if (x->op[0] != XREF_NONE) {                                                               \
            uint32_t *d = xr32(w, x->op[0]);                                                       \
            FOR_LANES(mask, l, d[l] = tmp[l]);                                                     \
        }                                                                                          \
        return EXEC_NEXT;                                                                          \
    }                                                                                              \
    static exec_result h_match_all_##suffix(exec_warp *w, const xinsn *x, uint32_t mask)          \
    {                                                                                              \
        if (!mask)                                                                                 \
            return EXEC_NEXT;                                                                      \
        uint32_t g[32];                                                                            \
        unsigned ng;                                                                               \
        if (!member_groups(w, x, x->op[3], mask, g, &ng))                                          \
            return EXEC_FAULT;                                                                     \
        const T *a = READ(w, x->op[2]);                                                            \
        uint32_t same_lanes = 0;                                                                   \
        for (unsigned i = 0; i < ng; i++) {                                                        \
            T v = a[__builtin_ctz(g[i])];                                                          \
            uint32_t eq = 0;                                                                       \
            FOR_LANES(g[i], l, eq |= (uint32_t)(a[l] == v) << l);                                  \
            if (eq == g[i])                                                                        \
                same_lanes |= g[i];                                                                \
        }                                                                                          \
        if (x->op[0] != XREF_NONE) {                                                               \
            uint32_t *d = xr32(w, x->op[0]);                                                       \
            for (unsigned i = 0; i < ng; i++) {                                                    \
                uint32_t v = g[i] & same_lanes;                                                    \
                FOR_LANES(g[i], l, d[l] = v);                                                      \
            }                                                                                      \
        }                                                                                          \
        write_pred(w, x->op[1], mask, same_lanes);                                                 \
        return EXEC_NEXT;                                                                          \
    }

MATCH_HANDLERS(b32, uint32_t, xr32)
MATCH_HANDLERS(b64, uint64_t, xr64)

/* ---------------------------------------------------------- activemask */

/* The manual: "An active thread will contribute 1 for its entry in the
 * result and exited or inactive or predicated-off thread will contribute 0",
 * i.e. exactly the lanes executing the instruction (`mask`). */
static exec_result h_activemask(exec_warp *w, const xinsn *x, uint32_t mask)
{
    uint32_t *d = xr32(w, x->op[0]);
    FOR_LANES(mask, l, d[l] = mask);
    return EXEC_NEXT;
}

/* --------------------------------------------------------------- redux */

/* op[0] dst, op[1] src, op[2] membermask. Every member lane of a group gets
 * the reduction over the group. */
#define REDUX_INT(name, T, INIT, COMBINE)                                                          \
    static exec_result name(exec_warp *w, const xinsn *x, uint32_t mask)                          \
    {                                                                                              \
        if (!mask)                                                                                 \
            return EXEC_NEXT;                                                                      \
        uint32_t g[32];                                                                            \
        unsigned ng;                                                                               \
        if (!member_groups(w, x, x->op[2], mask, g, &ng))                                          \
            return EXEC_FAULT;                                                                     \
        const uint32_t *a = xr32(w, x->op[1]);                                                     \
        uint32_t res[32];                                                                          \
        for (unsigned i = 0; i < ng; i++) {                                                        \
            T acc = INIT;                                                                          \
            FOR_LANES(g[i], l, acc = COMBINE(acc, (T)a[l]));                                       \
            res[i] = (uint32_t)acc;                                                                \
        }                                                                                          \
        uint32_t *d = xr32(w, x->op[0]);                                                           \
        for (unsigned i = 0; i < ng; i++)                                                          \
            FOR_LANES(g[i], l, d[l] = res[i]);                                                     \
        return EXEC_NEXT;                                                                          \
    }

#define R_ADD(a, b) ((a) + (b))
#define R_MIN(a, b) ((b) < (a) ? (b) : (a))
#define R_MAX(a, b) ((b) > (a) ? (b) : (a))
#define R_AND(a, b) ((a) & (b))
#define R_OR(a, b) ((a) | (b))
#define R_XOR(a, b) ((a) ^ (b))

REDUX_INT(h_redux_add, uint32_t, 0u, R_ADD) /* .u32 and .s32: the same 32-bit wrapping sum */
REDUX_INT(h_redux_min_u32, uint32_t, UINT32_MAX, R_MIN)
REDUX_INT(h_redux_max_u32, uint32_t, 0u, R_MAX)
REDUX_INT(h_redux_min_s32, int32_t, INT32_MAX, R_MIN)
REDUX_INT(h_redux_max_s32, int32_t, INT32_MIN, R_MAX)
REDUX_INT(h_redux_and, uint32_t, UINT32_MAX, R_AND)
REDUX_INT(h_redux_or, uint32_t, 0u, R_OR)
REDUX_INT(h_redux_xor, uint32_t, 0u, R_XOR)

enum { RF_MAX = 1, RF_ABS = 2, RF_NAN = 4 }; /* xinsn.aux of redux .f32 */

#define F32_CANONICAL_NAN 0x7FFFFFFFu

static inline int f32_is_nan(uint32_t u)
{
    return (u & 0x7FFFFFFFu) > 0x7F800000u;
}

/* Orders floats as the manual asks for min/max: numerically, with
 * -0.0 < +0.0. Maps the bits to an unsigned key that sorts that way. */
static inline uint32_t f32_key(uint32_t u)
{
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* redux.sync.{min,max}{.abs}{.NaN}.f32: .abs reduces |src|; without .NaN,
 * NaN inputs are skipped and the result is the canonical NaN (0x7FFFFFFF)
 * only when every input is NaN; with .NaN any NaN input gives the canonical
 * NaN. The result is one of the (absolute) input values, bit for bit. */
static exec_result h_redux_f32(exec_warp *w, const xinsn *x, uint32_t mask)
{
    if (!mask)
        return EXEC_NEXT;
    uint32_t g[32];
    unsigned ng;
    if (!member_groups(w, x, x->op[2], mask, g, &ng))
        return EXEC_FAULT;
    const uint32_t *a = xr32(w, x->op[1]);
    const uint32_t clear = (x->aux & RF_ABS) ? 0x7FFFFFFFu : 0xFFFFFFFFu;
    const int is_max = (x->aux & RF_MAX) != 0;
    uint32_t res[32];
    for (unsigned i = 0; i < ng; i++) {
        int have = 0, nan = 0;
        uint32_t best = 0, best_key = 0;
        for (uint32_t m = g[i]; m; m &= m - 1) {
            uint32_t v = a[__builtin_ctz(m)] & clear;
            if (f32_is_nan(v)) {
                nan = 1;
                continue;
            }
            uint32_t k = f32_key(v);
            if (!have || (is_max ? k > best_key : k < best_key)) {
                best = v;
                best_key = k;
                have = 1;
            }
        }
        res[i] = (!have || (nan && (x->aux & RF_NAN))) ? F32_CANONICAL_NAN : best;
    }
    uint32_t *d = xr32(w, x->op[0]);
    for (unsigned i = 0; i < ng; i++)
        FOR_LANES(g[i], l, d[l] = res[i]);
    return EXEC_NEXT;
}

/* --------------------------------------------------------------- elect */

/* elect.sync d|p, membermask: the leader of each group is its lowest lane
 * (the manual only asks for a deterministic choice among the predicated
 * active members). op[0] d (or XREF_NONE), op[1] p (or XREF_NONE),
 * op[2] membermask. */
static exec_result h_elect(exec_warp *w, const xinsn *x, uint32_t mask)
{
    if (!mask)
        return EXEC_NEXT;
    uint32_t g[32];
    unsigned ng;
    if (!member_groups(w, x, x->op[2], mask, g, &ng))
        return EXEC_FAULT;
    uint32_t leaders = 0;
    for (unsigned i = 0; i < ng; i++)
        leaders |= g[i] & (0u - g[i]);
    if (x->op[0] != XREF_NONE) {
        uint32_t *d = xr32(w, x->op[0]);
        for (unsigned i = 0; i < ng; i++) {
            uint32_t leader = (uint32_t)__builtin_ctz(g[i]);
            FOR_LANES(g[i], l, d[l] = leader);
        }
    }
    write_pred(w, x->op[1], mask, leaders);
    return EXEC_NEXT;
}

/* ------------------------------------------------------------- decoding */

#define SFX_T(t) ((uint16_t)(MB_TYPE_##t | MB_SUFFIX_TYPE))
#define SFX_M(m) ((uint16_t)MB_MOD_##m)

/* Every suffix of `insn` must be in `ok` and appear once. */
static mb_status only_suffixes(decode_ctx *dc, const mb_insn *insn, const uint16_t *ok, size_t n)
{
    for (unsigned i = 0; i < insn->nsuffix; i++) {
        uint16_t s = insn->suffix[i];
        int found = 0;
        for (size_t k = 0; k < n && !found; k++)
            found = ok[k] == s;
        int repeated = 0;
        for (unsigned k = 0; k < i; k++)
            repeated |= insn->suffix[k] == s;
        if (!found || repeated) {
            char what[160];
            const char *name = (s & MB_SUFFIX_TYPE)
                                   ? mb_type_name((mb_ptx_type)(s & ~MB_SUFFIX_TYPE))
                                   : mb_mod_name((mb_ptx_mod)s);
            snprintf(what, sizeof(what), "%s '.%s' on %s is not supported",
                     repeated ? "repeated modifier" : "modifier or type", name,
                     mb_opcode_get((mb_opcode)insn->opcode)->name);
            return decode_unsupported(dc, insn, what);
        }
    }
    return MB_OK;
}

static const mb_operand *opnd(const decode_ctx *dc, const mb_insn *insn, unsigned i)
{
    return mb_insn_operand(dc->fn, insn, i);
}

static mb_status dec(decode_ctx *dc, const mb_insn *insn, unsigned i, mb_ptx_type t, xref *out)
{
    return decode_operand(dc, insn, opnd(dc, insn, i), t, out);
}

/* A source predicate `{!}a`: its reference and the xor mask of the negation. */
static mb_status dec_src_pred(decode_ctx *dc, const mb_insn *insn, unsigned i, xref *out,
                              uint32_t *negate)
{
    const mb_operand *o = opnd(dc, insn, i);
    if (o->kind == MB_OPND_SINK)
        return decode_unsupported(dc, insn, "a source predicate cannot be '_'");
    *negate = (o->flags & MB_OPND_NOT) ? 0xFFFFFFFFu : 0;
    return decode_operand(dc, insn, o, MB_TYPE_PRED, out);
}

/* Destination `d`, `d|p` (or `_`): d read as `t`, p a predicate. With
 * allow_pair 0, the pair form is rejected. */
static mb_status dec_dest_pair(decode_ctx *dc, const mb_insn *insn, unsigned i, mb_ptx_type t,
                               int allow_pair, xref *d, xref *p)
{
    const mb_operand *o = opnd(dc, insn, i);
    *p = XREF_NONE;
    if (o->kind != MB_OPND_PAIR)
        return decode_operand(dc, insn, o, t, d);
    if (!allow_pair)
        return decode_unsupported(dc, insn, "this instruction has no predicate destination");
    /* A register index past the function's registers stands for the sink
     * '_' (the parser does not produce `_|p` yet; this is ready for it). */
    mb_operand r;
    memset(&r, 0, sizeof(r));
    r.kind = MB_OPND_REG;
    r.u.reg = o->u.pair.first;
    *d = XREF_NONE;
    mb_status st = r.u.reg < dc->fn->nregs ? decode_operand(dc, insn, &r, t, d) : MB_OK;
    if (st != MB_OK)
        return st;
    r.u.reg = o->u.pair.second;
    if (r.u.reg >= dc->fn->nregs)
        return MB_OK;
    return decode_operand(dc, insn, &r, MB_TYPE_PRED, p);
}

/* The ".sync" requirement and operand count shared by the collectives. */
static mb_status need_operands(decode_ctx *dc, const mb_insn *insn, unsigned lo, unsigned hi)
{
    if (insn->noperands < lo || insn->noperands > hi)
        return decode_unsupported(dc, insn, "wrong number of operands");
    return MB_OK;
}

static mb_status decode_bar(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    static const uint16_t ok[] = {SFX_M(SYNC), SFX_M(ARRIVE),  SFX_M(RED), SFX_M(POPC),
                                  SFX_M(AND),  SFX_M(OR),      SFX_M(ALIGNED), SFX_M(CTA),
                                  SFX_M(WARP), SFX_T(U32),      SFX_T(PRED)};
    if (mb_insn_has_mod(insn, MB_MOD_CLUSTER))
        return decode_unsupported(dc, insn,
                                  "cluster-wide barriers (barrier.cluster) are not supported");
    mb_status st = only_suffixes(dc, insn, ok, sizeof(ok) / sizeof(ok[0]));
    if (st != MB_OK)
        return st;
    int sync = mb_insn_has_mod(insn, MB_MOD_SYNC), arrive = mb_insn_has_mod(insn, MB_MOD_ARRIVE);
    int red = mb_insn_has_mod(insn, MB_MOD_RED);
    int popc = mb_insn_has_mod(insn, MB_MOD_POPC), and_ = mb_insn_has_mod(insn, MB_MOD_AND);
    int or_ = mb_insn_has_mod(insn, MB_MOD_OR);
    mb_ptx_type type = mb_insn_type(insn, 0);
    if (mb_insn_has_mod(insn, MB_MOD_WARP)) {
        if (insn->opcode != MB_OP_BAR || !sync || arrive || red || popc || and_ || or_ ||
            type != MB_TYPE_NONE || mb_insn_has_mod(insn, MB_MOD_ALIGNED) ||
            mb_insn_has_mod(insn, MB_MOD_CTA))
            return decode_unsupported(dc, insn, "the only warp barrier form is bar.warp.sync");
        if ((st = need_operands(dc, insn, 1, 1)) != MB_OK)
            return st;
        if ((st = dec(dc, insn, 0, MB_TYPE_B32, &x->op[0])) != MB_OK)
            return st;
        x->fn = h_bar_warp_sync;
        return MB_OK;
    }
    if (sync + arrive + red != 1)
        return decode_unsupported(dc, insn, "a barrier needs exactly one of .sync, .arrive, .red");
    unsigned first = 0; /* operand index of the barrier id */
    if (red) {
        if (popc + and_ + or_ != 1)
            return decode_unsupported(dc, insn, "bar.red needs exactly one of .popc, .and, .or");
        if (popc && type != MB_TYPE_U32)
            return decode_unsupported(dc, insn, "bar.red.popc needs the type .u32");
        if (!popc && type != MB_TYPE_PRED)
            return decode_unsupported(dc, insn, "bar.red.and and bar.red.or need the type .pred");
        if ((st = need_operands(dc, insn, 3, 4)) != MB_OK)
            return st;
        if (opnd(dc, insn, 0)->kind == MB_OPND_SINK)
            return decode_unsupported(dc, insn, "bar.red cannot discard its result ('_')");
        if ((st = dec(dc, insn, 0, popc ? MB_TYPE_U32 : MB_TYPE_PRED, &x->op[0])) != MB_OK)
            return st;
        if ((st = dec_src_pred(dc, insn, insn->noperands - 1u, &x->op[3], &x->aux2)) != MB_OK)
            return st;
        x->aux = popc ? BK_RED_POPC : and_ ? BK_RED_AND : BK_RED_OR;
        first = 1;
    } else {
        if (popc || and_ || or_ || type != MB_TYPE_NONE)
            return decode_unsupported(dc, insn,
                                      "reduction modifiers and types belong to bar.red only");
        if ((st = need_operands(dc, insn, arrive ? 2 : 0, 2)) != MB_OK)
            return st;
        x->aux = arrive ? BK_ARRIVE : BK_SYNC;
    }
    unsigned nid = insn->noperands - first - (red ? 1u : 0u); /* id and optional count */
    if (nid == 0) {
        if ((st = decode_const(dc, 0, 0, &x->op[1])) != MB_OK) /* bar.sync without id: 0 */
            return st;
    } else {
        const mb_operand *a = opnd(dc, insn, first);
        if (a->kind == MB_OPND_IMM && a->u.bits > 15)
            return decode_unsupported(dc, insn, "barrier id out of range (0-15)");
        if ((st = dec(dc, insn, first, MB_TYPE_U32, &x->op[1])) != MB_OK)
            return st;
    }
    if (nid == 2) {
        const mb_operand *b = opnd(dc, insn, first + 1);
        if (b->kind == MB_OPND_IMM &&
            (b->u.bits % 32 || b->u.bits > 1024 || (arrive && b->u.bits == 0)))
            return decode_unsupported(dc, insn,
                                      "barrier thread count must be a multiple of the warp size "
                                      "(32) up to 1024, and non-zero for arrive");
        if ((st = dec(dc, insn, first + 1, MB_TYPE_U32, &x->op[2])) != MB_OK)
            return st;
    }
    x->fn = h_bar;
    return MB_OK;
}

static mb_status decode_vote(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    static const uint16_t ok[] = {SFX_M(SYNC), SFX_M(ALL),   SFX_M(ANY), SFX_M(UNI),
                                  SFX_M(BALLOT), SFX_T(PRED), SFX_T(B32)};
    mb_status st = only_suffixes(dc, insn, ok, sizeof(ok) / sizeof(ok[0]));
    if (st != MB_OK)
        return st;
    int all = mb_insn_has_mod(insn, MB_MOD_ALL), any = mb_insn_has_mod(insn, MB_MOD_ANY);
    int uni = mb_insn_has_mod(insn, MB_MOD_UNI), ballot = mb_insn_has_mod(insn, MB_MOD_BALLOT);
    int sync = mb_insn_has_mod(insn, MB_MOD_SYNC);
    mb_ptx_type type = mb_insn_type(insn, 0);
    if (all + any + uni + ballot != 1)
        return decode_unsupported(dc, insn, "vote needs exactly one of .all, .any, .uni, .ballot");
    if (ballot ? type != MB_TYPE_B32 : type != MB_TYPE_PRED)
        return decode_unsupported(dc, insn, "vote.ballot needs .b32, the other modes .pred");
    unsigned n = sync ? 3 : 2;
    if ((st = need_operands(dc, insn, n, n)) != MB_OK)
        return st;
    if ((st = dec(dc, insn, 0, ballot ? MB_TYPE_B32 : MB_TYPE_PRED, &x->op[0])) != MB_OK)
        return st;
    if ((st = dec_src_pred(dc, insn, 1, &x->op[1], &x->aux2)) != MB_OK)
        return st;
    x->op[2] = XREF_NONE;
    if (sync && (st = dec(dc, insn, 2, MB_TYPE_B32, &x->op[2])) != MB_OK)
        return st;
    x->fn = all ? h_vote_all : any ? h_vote_any : uni ? h_vote_uni : h_vote_ballot;
    return MB_OK;
}

static mb_status decode_shfl(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    static const uint16_t ok[] = {SFX_M(SYNC), SFX_M(UP),  SFX_M(DOWN),
                                  SFX_M(BFLY), SFX_M(IDX), SFX_T(B32)};
    mb_status st = only_suffixes(dc, insn, ok, sizeof(ok) / sizeof(ok[0]));
    if (st != MB_OK)
        return st;
    int up = mb_insn_has_mod(insn, MB_MOD_UP), down = mb_insn_has_mod(insn, MB_MOD_DOWN);
    int bfly = mb_insn_has_mod(insn, MB_MOD_BFLY), idx = mb_insn_has_mod(insn, MB_MOD_IDX);
    int sync = mb_insn_has_mod(insn, MB_MOD_SYNC);
    if (up + down + bfly + idx != 1)
        return decode_unsupported(dc, insn, "shfl needs exactly one of .up, .down, .bfly, .idx");
    if (mb_insn_type(insn, 0) != MB_TYPE_B32)
        return decode_unsupported(dc, insn, "shfl needs the type .b32");
    unsigned n = sync ? 5 : 4;
    if ((st = need_operands(dc, insn, n, n)) != MB_OK)
        return st;
    if ((st = dec_dest_pair(dc, insn, 0, MB_TYPE_B32, 1, &x->op[0], &x->op[1])) != MB_OK)
        return st;
    for (unsigned i = 1; i < n; i++)
        if ((st = dec(dc, insn, i, MB_TYPE_B32, &x->op[i + 1])) != MB_OK)
            return st;
    if (!sync)
        x->op[5] = XREF_NONE;
    x->aux = x->op[0] == x->op[2]; /* d is a: go through a temporary */
    x->fn = up ? h_shfl_up : down ? h_shfl_down : bfly ? h_shfl_bfly : h_shfl_idx;
    return MB_OK;
}

static mb_status decode_match(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    static const uint16_t ok[] = {SFX_M(SYNC), SFX_M(ANY), SFX_M(ALL), SFX_T(B32), SFX_T(B64)};
    mb_status st = only_suffixes(dc, insn, ok, sizeof(ok) / sizeof(ok[0]));
    if (st != MB_OK)
        return st;
    int any = mb_insn_has_mod(insn, MB_MOD_ANY), all = mb_insn_has_mod(insn, MB_MOD_ALL);
    mb_ptx_type type = mb_insn_type(insn, 0);
    if (!mb_insn_has_mod(insn, MB_MOD_SYNC) || any + all != 1)
        return decode_unsupported(dc, insn, "match needs .sync and exactly one of .any, .all");
    if (type != MB_TYPE_B32 && type != MB_TYPE_B64)
        return decode_unsupported(dc, insn, "match needs the type .b32 or .b64");
    if ((st = need_operands(dc, insn, 3, 3)) != MB_OK)
        return st;
    if ((st = dec_dest_pair(dc, insn, 0, MB_TYPE_B32, all, &x->op[0], &x->op[1])) != MB_OK)
        return st;
    if ((st = dec(dc, insn, 1, type, &x->op[2])) != MB_OK)
        return st;
    if ((st = dec(dc, insn, 2, MB_TYPE_B32, &x->op[3])) != MB_OK)
        return st;
    if (type == MB_TYPE_B32)
        x->fn = any ? h_match_any_b32 : h_match_all_b32;
    else
        x->fn = any ? h_match_any_b64 : h_match_all_b64;
    return MB_OK;
}

static mb_status decode_redux(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    static const uint16_t ok[] = {SFX_M(SYNC), SFX_M(ADD), SFX_M(MIN), SFX_M(MAX),
                                  SFX_M(AND),  SFX_M(OR),  SFX_M(XOR), SFX_M(ABS),
                                  SFX_M(NAN),  SFX_T(U32), SFX_T(S32), SFX_T(B32),
                                  SFX_T(F32)};
    mb_status st = only_suffixes(dc, insn, ok, sizeof(ok) / sizeof(ok[0]));
    if (st != MB_OK)
        return st;
    static const mb_ptx_mod ops[] = {MB_MOD_ADD, MB_MOD_MIN, MB_MOD_MAX,
                                     MB_MOD_AND, MB_MOD_OR,  MB_MOD_XOR};
    int nops = 0;
    mb_ptx_mod op = MB_MOD_NONE;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (mb_insn_has_mod(insn, ops[i])) {
            nops++;
            op = ops[i];
        }
    mb_ptx_type type = mb_insn_type(insn, 0);
    int abs_ = mb_insn_has_mod(insn, MB_MOD_ABS), nan = mb_insn_has_mod(insn, MB_MOD_NAN_PROPAGATE);
    if (!mb_insn_has_mod(insn, MB_MOD_SYNC) || nops != 1)
        return decode_unsupported(dc, insn,
                                  "redux needs .sync and exactly one of .add, .min, .max, .and, "
                                  ".or, .xor");
    if ((abs_ || nan) && type != MB_TYPE_F32)
        return decode_unsupported(dc, insn, "redux .abs and .NaN apply to .f32 only");
    xhandler fn = NULL;
    switch (op) {
    case MB_MOD_ADD:
        fn = type == MB_TYPE_U32 || type == MB_TYPE_S32 ? h_redux_add : NULL;
        break;
    case MB_MOD_MIN:
        fn = type == MB_TYPE_U32   ? h_redux_min_u32
             : type == MB_TYPE_S32 ? h_redux_min_s32
             : type == MB_TYPE_F32 ? h_redux_f32
                                   : NULL;
        break;
    case MB_MOD_MAX:
        fn = type == MB_TYPE_U32   ? h_redux_max_u32
             : type == MB_TYPE_S32 ? h_redux_max_s32
             : type == MB_TYPE_F32 ? h_redux_f32
                                   : NULL;
        break;
    case MB_MOD_AND: fn = type == MB_TYPE_B32 ? h_redux_and : NULL; break;
    case MB_MOD_OR: fn = type == MB_TYPE_B32 ? h_redux_or : NULL; break;
    case MB_MOD_XOR: fn = type == MB_TYPE_B32 ? h_redux_xor : NULL; break;
    default: break;
    }
    if (!fn)
        return decode_unsupported(dc, insn,
                                  "redux types: .add/.min/.max take .u32 or .s32 (.min/.max also "
                                  ".f32), .and/.or/.xor take .b32");
    if ((st = need_operands(dc, insn, 3, 3)) != MB_OK)
        return st;
    if ((st = dec(dc, insn, 0, MB_TYPE_B32, &x->op[0])) != MB_OK)
        return st;
    if ((st = dec(dc, insn, 1, MB_TYPE_B32, &x->op[1])) != MB_OK)
        return st;
    if ((st = dec(dc, insn, 2, MB_TYPE_B32, &x->op[2])) != MB_OK)
        return st;
    if (x->op[0] == XREF_NONE)
        return decode_unsupported(dc, insn, "redux cannot discard its result ('_')");
    x->aux = (op == MB_MOD_MAX ? RF_MAX : 0) | (abs_ ? RF_ABS : 0) | (nan ? RF_NAN : 0);
    x->fn = fn;
    return MB_OK;
}

static mb_status decode_elect(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    static const uint16_t ok[] = {SFX_M(SYNC)};
    mb_status st = only_suffixes(dc, insn, ok, sizeof(ok) / sizeof(ok[0]));
    if (st != MB_OK)
        return st;
    if (!mb_insn_has_mod(insn, MB_MOD_SYNC))
        return decode_unsupported(dc, insn, "elect needs .sync");
    if ((st = need_operands(dc, insn, 2, 2)) != MB_OK)
        return st;
    if ((st = dec_dest_pair(dc, insn, 0, MB_TYPE_B32, 1, &x->op[0], &x->op[1])) != MB_OK)
        return st;
    if ((st = dec(dc, insn, 1, MB_TYPE_B32, &x->op[2])) != MB_OK)
        return st;
    x->fn = h_elect;
    return MB_OK;
}

mb_status decode_warp(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    decode_common_mods(insn, x);
    switch ((mb_opcode)insn->opcode) {
    case MB_OP_BAR:
    case MB_OP_BARRIER: return decode_bar(dc, insn, x);
    case MB_OP_VOTE: return decode_vote(dc, insn, x);
    case MB_OP_SHFL: return decode_shfl(dc, insn, x);
    case MB_OP_MATCH: return decode_match(dc, insn, x);
    case MB_OP_REDUX: return decode_redux(dc, insn, x);
    case MB_OP_ELECT: return decode_elect(dc, insn, x);
    case MB_OP_ACTIVEMASK: {
        static const uint16_t ok[] = {SFX_T(B32)};
        mb_status st = only_suffixes(dc, insn, ok, 1);
        if (st != MB_OK)
            return st;
        if (mb_insn_type(insn, 0) != MB_TYPE_B32)
            return decode_unsupported(dc, insn, "activemask needs the type .b32");
        if ((st = need_operands(dc, insn, 1, 1)) != MB_OK)
            return st;
        if ((st = dec(dc, insn, 0, MB_TYPE_B32, &x->op[0])) != MB_OK)
            return st;
        if (x->op[0] == XREF_NONE)
            return decode_unsupported(dc, insn, "activemask cannot discard its result ('_')");
        x->fn = h_activemask;
        return MB_OK;
    }
    default: return decode_unsupported(dc, insn, "not a barrier or warp-collective instruction");
    }
}
