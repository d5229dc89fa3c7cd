/*
 * The exact integer affine fitter (prof_affine.c): whether a value seen by
 * every executing lane equals c0 + sum_k coef_k * feature_k with integer
 * coefficients, over all the requests given to one model. Memory addresses
 * use it (prof_memory.c), and so do the operands of branch conditions.
 *
 * A request is a prof_mem_request (prof.h) whose `addrs` are simply the
 * per-lane values to fit: the fitter reads lanes, addrs, lane_index and the
 * feature fields, nothing else.
 */
#ifndef MB_PROF_AFFINE_H
#define MB_PROF_AFFINE_H

#include "prof.h"

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

#define PM_MAXCOL 16 /* 1 + at most 15 features (prof_mem_result.coef[16]) */
#define PM_MAX_FEATURES (PM_MAXCOL - 1)

enum { AFF_EMPTY = 0, AFF_OK, AFF_REFUSED, AFF_DISABLED };

/*
 * The affine model addr = coef[0] + sum_k coef[k+1] * feature[k] is kept
 * in augmented form over "columns": column 0 is the constant 1, column k+1
 * is feature k.
 *
 * Stored samples. A lane access (x, y) (x the augmented feature vector,
 * y the address) is stored exactly when x is linearly independent of the
 * stored x's. The stored x's therefore stay independent (at most 16 of
 * them) and span every x ever observed. Their reduced row echelon form
 * (RREF, exact integer arithmetic) is kept incrementally.
 *
 * Invariant: the current model reproduces every stored sample exactly.
 *
 * Why every accepted address stays reproduced: an access that was not
 * stored had x = sum_i alpha_i x_i over the samples stored at that time and
 * matched the model m of that time, so y = m.x = sum_i alpha_i m.x_i =
 * sum_i alpha_i y_i. Any later model m' reproduces those (still stored)
 * samples, so m'.x = sum_i alpha_i y_i = y. Hence checking each access once,
 * when it happens, is enough.
 *
 * Consequences: (1) an access whose x is in the span but whose address
 * the model mispredicts proves that NO affine model fits (every model that
 * reproduces the stored samples predicts the same value there), so the
 * instruction is refused at once without a refit; (2) an independent access
 * is stored, and when the model mispredicts it the model is refitted over
 * the stored samples; if no integer model reproduces them all, the
 * instruction is refused and never examined again.
 *
 * Refit: the pivot columns P of the RREF are the first (lowest-numbered)
 * columns that are linearly independent over the stored samples; the
 * stored-sample matrix restricted to P is square and nonsingular, so one
 * model reproduces the stored samples with coefficients 0 on the non-pivot
 * columns. A new stored sample with pivot column q moves the model along
 * the span constraint c of column q (zero on the earlier samples): m + ((y -
 * m.x) / (c.x)) c, in exact integers; not integral means no integer model.
 * Only where a value leaves 128 bits does GSL solve the system instead
 * (centred on the first sample, Householder QR), the solution rounded to
 * integers and verified EXACTLY (128-bit) on every stored sample. A feature that
 * never varies is never a pivot (its column is a multiple of the constant
 * column), so its coefficient is 0. Limitation: when varying features are
 * collinear over everything observed, only the lowest-numbered independent
 * ones get coefficients, and a model needing fractional coefficients in
 * that basis is refused even if another integer model exists.
 *
 * Fast check. Membership of x in the span is a set of linear constraints,
 * one per non-pivot column j: D_j x_j = sum_p w_pj x_p (from the RREF);
 * for a feature that never varied it reads x_j == its constant value. Per
 * lane the cost is the model's dot product over its non-zero lane-varying
 * coefficients, one compare, and one small dot product per constraint on a
 * lane-varying feature (typically a single compare, e.g. tid.y == 0).
 * ctaid.x/y/z (features 3-5, present when nfeatures >= 6) are the same for
 * every lane of a warp (a warp never spans CTAs), so their terms are
 * evaluated once per request from lane 0. Mismatches are OR-accumulated and
 * a failing request is re-run lane by lane through the exact slow path. The
 * fast check computes modulo 2^64 (the semantics of the kernel's own 64-bit
 * address arithmetic); it equals the exact check whenever the model's
 * terms do not overflow 64 bits. The slow path is exact and runs at most
 * about 16 times per instruction (once per stored sample, plus the refusal).
 *
 * Instructions with more than 15 features, or requests without features,
 * are not modelled (affine = 0). Exact arithmetic that would need entries
 * beyond 64 bits (absurd feature values) also refuses the instruction.
 */
/*
 * The span of the stored samples and the span constraints compiled from it.
 * Both depend on the stored samples' feature vectors alone, never on their
 * values, so a model that stores the same feature vectors in the same order
 * as an earlier one (the same instruction in the next launch) builds the
 * same spans: a trace (aff_trace) keeps them, and such a model takes each
 * from there instead of reducing, inserting and compiling it again. Its
 * values still decide everything else (model, refusal), so no result
 * depends on whether a span was built or taken.
 */
typedef struct aff_span {
    int64_t x[PM_MAXCOL];     /* the sample whose insertion made it (a trace step's key) */
    uint32_t pivot_mask;
    uint8_t pivot[PM_MAXCOL];
    int con_state;            /* con: 0 not computed yet, 1 computed, -1 none (aff_refit decides) */
    int64_t con[PM_MAXCOL];   /* the span constraint of x's pivot column over the span before
                                 (aff_update) */
    /* compiled span constraints (feature indices, i.e. column - 1) */
    uint32_t ncon;
    uint32_t con_used;        /* features they read (bit mask) */
    uint64_t con_const[PM_MAXCOL];
    uint32_t cu_beg[PM_MAXCOL + 1], cl_beg[PM_MAXCOL + 1];
    uint8_t cu_idx[PM_MAXCOL * PM_MAXCOL], cl_idx[PM_MAXCOL * PM_MAXCOL];
    uint64_t cu_coef[PM_MAXCOL * PM_MAXCOL], cl_coef[PM_MAXCOL * PM_MAXCOL];
    uint32_t nlcon;           /* other constraints with lane terms */
    uint8_t lcon[PM_MAXCOL];
    uint32_t neq;             /* constraints "feature == value of the request" */
    uint8_t eq_idx[PM_MAXCOL], eq_con[PM_MAXCOL];
    /* the same terms for one entry (aff_entry_ok), uniform and lane ones together */
    uint32_t ct_beg[PM_MAXCOL + 1];
    uint8_t ct_idx[PM_MAXCOL * PM_MAXCOL];
    uint64_t ct_coef[PM_MAXCOL * PM_MAXCOL];
    /* for aff_entry_ok, the constraints of one term (a feature that never
     * varied, most of them: c1_const + c1_coef x == 0) apart from the others */
    uint32_t n1, nmulti;
    uint8_t c1_idx[PM_MAXCOL], multi[PM_MAXCOL];
    uint64_t c1_coef[PM_MAXCOL], c1_const[PM_MAXCOL];
    /* last, so that a trace step allocates only its rows (its rank) */
    int64_t rref[PM_MAXCOL][PM_MAXCOL];
} aff_span;

/* The spans a model built, step k of rank k + 1 made by inserting
 * step[k]->x into step[k - 1]. A model follows the trace while its samples
 * are the steps' keys; at the first one that differs the rest is cut and
 * the new spans are recorded in its place. */
typedef struct aff_trace {
    uint32_t ncol, len;
    aff_span *step[PM_MAXCOL];
} aff_trace;

typedef struct pm_affine {
    int state;
    uint64_t gen;  /* counts model changes */
    uint32_t nf;   /* features per lane */
    uint32_t ncol; /* nf + 1 */
    uint32_t n;    /* stored samples == rank */
    i128 c0;                  /* exact constant term */
    int64_t coef[PM_MAXCOL];  /* coef[0] unused here (c0 is exact) */
    uint32_t uniform_mask; /* features evaluated from lane 0 only */
    aff_span *span;        /* the current span: own, or a step of trace (valid once n > 0) */
    aff_trace *trace;      /* owned; NULL: none (spans are built in own) */

    /* From here on, everything is written before it is read (rows < n;
     * the compiled check once the state is AFF_OK), so aff_init()
     * leaves it uninitialised: a profile makes thousands of these. */
    int64_t sx[PM_MAXCOL][PM_MAXCOL];
    uint64_t sy[PM_MAXCOL];

    /* compiled prediction terms (feature indices, i.e. column - 1) */
    uint32_t npu, npl;     /* uniform, lane */
    uint8_t pu_idx[PM_MAXCOL], pl_idx[PM_MAXCOL];
    uint64_t pu_coef[PM_MAXCOL], pl_coef[PM_MAXCOL];
    /* the same terms for one entry (aff_entry_ok), over the features read
     * once per entry */
    uint32_t used;         /* features the check reads (bit mask), constraints' included */
    uint32_t npt;
    uint8_t pt_idx[PM_MAXCOL];
    uint64_t pt_coef[PM_MAXCOL];
    aff_span own;
} pm_affine;

/* Empties a model over `nfeatures` features per lane (more than
 * PM_MAX_FEATURES: never modelled). Only the head of the struct is
 * written: the rest is written before it is read (see pm_affine). */
void aff_init(pm_affine *a, uint32_t nfeatures);
/* Frees what the model owns (its trace); the model itself is the caller's. */
void aff_free(pm_affine *a);
/* The model's trace, which it no longer uses (NULL: none); the model stays
 * usable. */
aff_trace *aff_take_trace(pm_affine *a);
/* Lets an empty model follow trace t (aff_take_trace of the same
 * instruction's model in an earlier profile): 1 when it takes it, 0 when t
 * does not fit it (the caller keeps t). */
int aff_give_trace(pm_affine *a, aff_trace *t);
void aff_trace_free(aff_trace *t);

/* The warp lane of entry i (lane_index; NULL means entries are lanes
 * 0, 1, ... in order). */
static inline uint32_t lane_id(const prof_mem_request *req, uint32_t i)
{
    return req->lane_index ? req->lane_index[i] : i;
}

/* The compiled check on entry i alone, every feature read from that
 * entry: 1 when it passes (the model is AFF_OK). */
int aff_entry_ok(const pm_affine *a, const prof_mem_request *req, uint32_t i);

/* The compiled check over entries [from, lanes) of a request: non-zero
 * when some entry fails. */
uint64_t aff_fast_bad(const pm_affine *a, const prof_mem_request *req, uint32_t from);

/* Exact lane-by-lane processing of one request. Lanes the compiled model
 * already accepts (the fast check, on that lane alone) are skipped: they
 * lie in the span and are predicted, so the exact path would change
 * nothing. The model is recompiled after every change, so that the lanes
 * after it are filtered by the new model. */
void aff_slow(pm_affine *a, const prof_mem_request *req);

/* Fits one request: the fast check, and the exact path when it fails.
 * Inline, so that a caller checking requests in bulk pays no call for the
 * state tests. */
static inline void aff_request(pm_affine *a, const prof_mem_request *req)
{
    if (a->state == AFF_REFUSED || a->state == AFF_DISABLED)
        return;
    if (a->nf > 0 && !req->features && !req->feature_lanes) {
        a->state = AFF_DISABLED;
        return;
    }
    if (a->state == AFF_EMPTY || aff_fast_bad(a, req, 0))
        aff_slow(a, req);
}

#endif
