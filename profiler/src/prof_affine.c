/* The exact integer affine fitter (prof_affine.h). */
#include "prof_affine.h"

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#include <math.h>
#include <stddef.h>
#include <string.h>

void aff_init(pm_affine *a, uint32_t nfeatures)
{
    memset(a, 0, offsetof(pm_affine, sx));
    a->nf = nfeatures;
    a->ncol = nfeatures + 1;
    a->state = nfeatures > PM_MAX_FEATURES ? AFF_DISABLED : AFF_EMPTY;
    if (nfeatures >= 6)
        a->uniform_mask = 7u << 3; /* ctaid.x, ctaid.y, ctaid.z */
    a->span = &a->own;
}

/* Bytes of a span with `rows` rows (the rows end it). */
static size_t span_bytes(uint32_t rows)
{
    return offsetof(aff_span, rref) + (size_t)rows * sizeof(((aff_span *)0)->rref[0]);
}

/* Drops the steps from `keep` on. */
static void trace_cut(aff_trace *t, uint32_t keep)
{
    while (t->len > keep)
        free(t->step[--t->len]);
}

void aff_trace_free(aff_trace *t)
{
    if (!t)
        return;
    trace_cut(t, 0);
    free(t);
}

void aff_free(pm_affine *a)
{
    aff_trace_free(aff_take_trace(a));
}

/* Moves the current span into own, so that the trace can go. */
static void span_to_own(pm_affine *a)
{
    if (a->span != &a->own && a->n > 0)
        memcpy(&a->own, a->span, span_bytes(a->n));
    a->span = &a->own;
}

aff_trace *aff_take_trace(pm_affine *a)
{
    aff_trace *t = a->trace;
    if (t) {
        span_to_own(a);
        a->trace = NULL;
    }
    return t;
}

int aff_give_trace(pm_affine *a, aff_trace *t)
{
    if (!t || a->trace || a->n != 0 || a->state != AFF_EMPTY || t->ncol != a->ncol)
        return 0;
    a->trace = t;
    return 1;
}

/* Feature k of entry i, from either form of the request (prof.h). */
static inline int64_t feature_of(const prof_mem_request *req, uint32_t nf, uint32_t i, uint32_t k)
{
    if (req->features)
        return req->features[(size_t)i * nf + k];
    const int64_t *col = req->feature_lanes[k];
    return col ? col[lane_id(req, i)] : req->feature_uniform[k];
}

static u128 abs128(i128 v)
{
    return v < 0 ? (u128)0 - (u128)v : (u128)v;
}

static u128 gcd128(u128 x, u128 y)
{
    while (y) {
        u128 t = x % y;
        x = y;
        y = t;
    }
    return x;
}

static int fits64(i128 v)
{
    return v >= (i128)INT64_MIN && v <= (i128)INT64_MAX;
}

/* Divides t[0..n) by the gcd of its entries and stores it as int64;
 * 0 when an entry does not fit. Entries that all fit 64 bits (nearly
 * always) take 64-bit arithmetic: the same gcd and quotients, without
 * 128-bit divisions. */
static int normalise(const i128 *t, uint32_t n, int64_t *out)
{
    int small = 1;
    uint64_t g64 = 0;
    for (uint32_t k = 0; k < n && small; k++) {
        small = fits64(t[k]);
        const int64_t v = (int64_t)t[k];
        if (g64 != 1)
            g64 = mb_gcd_u64(g64, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    }
    if (small && g64 <= (uint64_t)INT64_MAX) {
        if (g64 <= 1) {
            for (uint32_t k = 0; k < n; k++)
                out[k] = (int64_t)t[k];
        } else {
            for (uint32_t k = 0; k < n; k++)
                out[k] = (int64_t)t[k] / (int64_t)g64;
        }
        return 1;
    }
    u128 g = 0;
    for (uint32_t k = 0; k < n; k++)
        g = gcd128(g, abs128(t[k]));
    if (g == 0)
        g = 1;
    for (uint32_t k = 0; k < n; k++) {
        i128 v = t[k] / (i128)g;
        if (!fits64(v))
            return 0;
        out[k] = (int64_t)v;
    }
    return 1;
}

/* Reduces x against the RREF rows. Returns 1 with the remainder in r when
 * x is independent, 0 when it lies in the span, -1 on overflow. */
static int aff_reduce(const pm_affine *a, const int64_t *x, int64_t *r)
{
    const uint32_t nc = a->ncol;
    const aff_span *s = a->span;
    int64_t cur[PM_MAXCOL];
    memcpy(cur, x, nc * sizeof(int64_t));
    for (uint32_t j = 0; j < a->n; j++) {
        uint32_t p = s->pivot[j];
        if (cur[p] == 0)
            continue;
        i128 t[PM_MAXCOL];
        i128 dp = s->rref[j][p], f = cur[p];
        for (uint32_t k = 0; k < nc; k++)
            t[k] = dp * cur[k] - f * (i128)s->rref[j][k];
        if (!normalise(t, nc, cur))
            return -1;
    }
    for (uint32_t k = 0; k < nc; k++) {
        if (cur[k] != 0) {
            if (cur[k] < 0)
                for (uint32_t q = k; q < nc; q++) {
                    if (cur[q] == INT64_MIN)
                        return -1;
                    cur[q] = -cur[q];
                }
            memcpy(r, cur, nc * sizeof(int64_t));
            return 1;
        }
    }
    return 0;
}

/* Writes into d (which may be the current span itself) the span after
 * adding the remainder r (from aff_reduce) as a row, the echelon form kept
 * fully reduced. 0 on overflow. */
static int aff_insert(const pm_affine *a, aff_span *d, const int64_t *r)
{
    const uint32_t nc = a->ncol;
    const aff_span *s = a->span;
    uint32_t q = 0;
    while (r[q] == 0)
        q++;
    for (uint32_t j = 0; j < a->n; j++) {
        if (s->rref[j][q] == 0) {
            if (d != s)
                memcpy(d->rref[j], s->rref[j], nc * sizeof(int64_t));
            continue;
        }
        /* (row j of d depends on row j of s alone: in place is fine) */
        i128 t[PM_MAXCOL];
        i128 rq = r[q], f = s->rref[j][q];
        for (uint32_t k = 0; k < nc; k++)
            t[k] = rq * s->rref[j][k] - f * (i128)r[k];
        if (!normalise(t, nc, d->rref[j]))
            return 0;
    }
    memcpy(d->rref[a->n], r, nc * sizeof(int64_t));
    if (d != s) {
        memcpy(d->pivot, s->pivot, a->n);
        d->pivot_mask = a->n ? s->pivot_mask : 0;
    } else if (a->n == 0) {
        d->pivot_mask = 0;
    }
    d->pivot[a->n] = (uint8_t)q;
    d->pivot_mask |= 1u << q;
    return 1;
}

/* Exact prediction == y ? (0 also when the sum leaves 128 bits) */
static int aff_predicts(const pm_affine *a, const int64_t *x, uint64_t y)
{
    i128 p = a->c0;
    for (uint32_t k = 1; k < a->ncol; k++) {
        if (a->coef[k] == 0)
            continue;
        i128 t = (i128)a->coef[k] * x[k];
        if (__builtin_add_overflow(p, t, &p))
            return 0;
    }
    return p == (i128)y;
}

/* Least-squares refit over the stored samples (square and nonsingular on
 * the pivot columns), rounded and verified exactly. 0: no integer model. */
static int aff_refit(pm_affine *a)
{
    const uint32_t n = a->n, nc = a->ncol;
    uint32_t cols[PM_MAXCOL], m = 0;
    for (uint32_t k = 1; k < nc; k++)
        if (a->span->pivot_mask & (1u << k))
            cols[m++] = k;
    if (m + 1 != n)
        return 0; /* cannot happen: column 0 is always a pivot */
    int64_t coef[PM_MAXCOL] = {0};
    if (m > 0) {
        double A[PM_MAXCOL * PM_MAXCOL], b[PM_MAXCOL], tau[PM_MAXCOL], sol[PM_MAXCOL];
        for (uint32_t i = 1; i < n; i++) {
            for (uint32_t c = 0; c < m; c++)
                A[(i - 1) * m + c] = (double)((i128)a->sx[i][cols[c]] - a->sx[0][cols[c]]);
            b[i - 1] = (double)((i128)a->sy[i] - (i128)a->sy[0]);
        }
        gsl_matrix_view Av = gsl_matrix_view_array(A, m, m);
        gsl_vector_view tv = gsl_vector_view_array(tau, m);
        gsl_vector_view bv = gsl_vector_view_array(b, m);
        gsl_vector_view xv = gsl_vector_view_array(sol, m);
        if (gsl_linalg_QR_decomp(&Av.matrix, &tv.vector) != 0 ||
            gsl_linalg_QR_solve(&Av.matrix, &tv.vector, &bv.vector, &xv.vector) != 0)
            return 0;
        for (uint32_t c = 0; c < m; c++) {
            double v = nearbyint(sol[c]);
            if (!isfinite(v) || fabs(v) > 4.0e18)
                return 0;
            coef[cols[c]] = (int64_t)v;
        }
    }
    /* constant from the first sample, exactly */
    i128 c0 = (i128)a->sy[0];
    for (uint32_t k = 1; k < nc; k++)
        if (__builtin_sub_overflow(c0, (i128)coef[k] * a->sx[0][k], &c0))
            return 0;
    i128 old_c0 = a->c0;
    int64_t old[PM_MAXCOL];
    memcpy(old, a->coef, sizeof(old));
    a->c0 = c0;
    memcpy(a->coef, coef, sizeof(coef));
    for (uint32_t i = 0; i < n; i++) {
        if (!aff_predicts(a, a->sx[i], a->sy[i])) {
            a->c0 = old_c0;
            memcpy(a->coef, old, sizeof(old));
            return 0;
        }
    }
    return 1;
}

/* The span constraint of non-pivot column j, normalised, into c (ncol
 * entries): D x_j - sum over the rows r with a non-zero entry in column j of
 * (D / den_r) R_r[j] x_pivot(r) = 0, D the lcm of those rows' pivot entries
 * den_r. 0 when an entry does not fit 64 bits (the model is refused). */
static int constraint128(const aff_span *a, uint32_t n, uint32_t nc, uint32_t j, int64_t *c)
{
    i128 D = 1;
    for (uint32_t r = 0; r < n; r++) {
        if (a->rref[r][j] == 0)
            continue;
        i128 den = a->rref[r][a->pivot[r]];
        D = D / (i128)gcd128(abs128(D), abs128(den)) * den;
        if (!fits64(D))
            return 0;
    }
    i128 w[PM_MAXCOL];
    for (uint32_t k = 0; k < nc; k++)
        w[k] = 0;
    w[j] = D;
    for (uint32_t r = 0; r < n; r++) {
        if (a->rref[r][j] == 0)
            continue;
        i128 den = a->rref[r][a->pivot[r]];
        i128 mul = D / den;
        i128 v = mul * a->rref[r][j];
        if (!fits64(mul) || !fits64(v))
            return 0;
        w[a->pivot[r]] = -v;
    }
    return normalise(w, nc, c);
}

/* The model after sample (x, y), whose remainder's pivot column is q, joins
 * the stored samples, given the span constraint c of column q over the
 * samples before it: c.x_i = 0 for each of them and c is zero outside their
 * pivot columns and q, while c.x != 0. The old model plus t c, t = (y -
 * m.x) / (c.x), reproduces every old sample and the new one and is zero
 * outside the new pivot columns: it is the unique such model, the one the
 * least-squares refit would find, computed exactly. 1: updated; 0: it is
 * not integral (no integer model); -1: a quantity leaves 128 bits (or a
 * coefficient 64), and aff_refit decides. */
static int aff_update(pm_affine *a, const int64_t *c, const int64_t *x, uint64_t y)
{
    const uint32_t nc = a->ncol;
    i128 mx = a->c0, den = (i128)c[0];
    for (uint32_t k = 1; k < nc; k++) {
        if (__builtin_add_overflow(mx, (i128)a->coef[k] * x[k], &mx) ||
            __builtin_add_overflow(den, (i128)c[k] * x[k], &den))
            return -1;
    }
    i128 delta;
    if (den == 0 || __builtin_sub_overflow((i128)y, mx, &delta))
        return -1;
    i128 step[PM_MAXCOL] = {0};
    for (uint32_t k = 0; k < nc; k++) {
        if (c[k] == 0)
            continue;
        i128 num;
        if (__builtin_mul_overflow(delta, (i128)c[k], &num))
            return -1;
        if (fits64(num) && fits64(den) && den != -1) { /* (64-bit division, as nearly always) */
            if ((int64_t)num % (int64_t)den != 0)
                return 0;
            step[k] = (int64_t)num / (int64_t)den;
        } else {
            if (num % den != 0)
                return 0;
            step[k] = num / den;
        }
        if (k > 0 && !fits64((i128)a->coef[k] + step[k]))
            return -1;
    }
    i128 c0;
    if (__builtin_add_overflow(a->c0, step[0], &c0))
        return -1;
    a->c0 = c0;
    for (uint32_t k = 1; k < nc; k++)
        a->coef[k] = (int64_t)((i128)a->coef[k] + step[k]);
    return 1;
}

static uint64_t abs64(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* constraint128 where every quantity fits 64 bits, as it nearly always
 * does: the same lcm, products and gcd on the few non-zero entries (a
 * compiled model has one constraint per feature that did not vary, so
 * this runs for every column of every model change). -1 when a quantity
 * leaves 64 bits: constraint128 then decides. */
static int constraint64(const aff_span *a, uint32_t n, uint32_t nc, uint32_t j, int64_t *c)
{
    int64_t D = 1;
    for (uint32_t r = 0; r < n; r++) {
        if (a->rref[r][j] == 0)
            continue;
        const int64_t den = a->rref[r][a->pivot[r]];
        const uint64_t g = mb_gcd_u64(abs64(D), abs64(den));
        if (den == INT64_MIN || D == INT64_MIN || __builtin_mul_overflow(D / (int64_t)g, den, &D))
            return -1;
    }
    uint32_t col[PM_MAXCOL + 1], nz = 0;
    int64_t val[PM_MAXCOL + 1];
    uint64_t g = abs64(D);
    col[nz] = j;
    val[nz++] = D;
    for (uint32_t r = 0; r < n; r++) {
        if (a->rref[r][j] == 0)
            continue;
        int64_t v;
        if (__builtin_mul_overflow(D / a->rref[r][a->pivot[r]], a->rref[r][j], &v) || v == INT64_MIN)
            return -1;
        col[nz] = a->pivot[r];
        val[nz++] = -v;
        g = mb_gcd_u64(g, abs64(v));
    }
    for (uint32_t k = 0; k < nc; k++)
        c[k] = 0;
    for (uint32_t k = 0; k < nz; k++)
        c[col[k]] = g > 1 ? val[k] / (int64_t)g : val[k];
    return 1;
}

/* Compiles the span constraints of span s of rank n: one per non-pivot
 * column j, D x_j - sum_rows (D / den_row) R_row[j] x_pivot(row) = 0.
 * 0 on overflow. */
static int compile_span(aff_span *s, uint32_t n, uint32_t nc, uint32_t uniform_mask)
{
    uint32_t nu = 0, nl = 0, nt = 0;
    s->ncon = s->nlcon = s->neq = s->n1 = s->nmulti = 0;
    s->con_used = 0;
    for (uint32_t j = 1; j < nc; j++) {
        if (s->pivot_mask & (1u << j))
            continue;
        int64_t c[PM_MAXCOL];
        const int fast = constraint64(s, n, nc, j, c);
        if (fast == 0 || (fast < 0 && !constraint128(s, n, nc, j, c)))
            return 0;
        uint32_t q = s->ncon++;
        s->con_const[q] = (uint64_t)c[0];
        s->cu_beg[q] = nu;
        s->cl_beg[q] = nl;
        s->ct_beg[q] = nt;
        for (uint32_t k = 1; k < nc; k++) {
            if (c[k] == 0)
                continue;
            uint32_t f = k - 1;
            s->con_used |= 1u << f;
            s->ct_idx[nt] = (uint8_t)f;
            s->ct_coef[nt++] = (uint64_t)c[k];
            if (uniform_mask & (1u << f)) {
                s->cu_idx[nu] = (uint8_t)f;
                s->cu_coef[nu++] = (uint64_t)c[k];
            } else {
                s->cl_idx[nl] = (uint8_t)f;
                s->cl_coef[nl++] = (uint64_t)c[k];
            }
        }
        s->cu_beg[q + 1] = nu;
        s->cl_beg[q + 1] = nl;
        s->ct_beg[q + 1] = nt;
        if (nt == s->ct_beg[q] + 1) {
            s->c1_idx[s->n1] = s->ct_idx[nt - 1];
            s->c1_coef[s->n1] = s->ct_coef[nt - 1];
            s->c1_const[s->n1++] = s->con_const[q];
        } else {
            s->multi[s->nmulti++] = (uint8_t)q;
        }
        if (s->cl_beg[q + 1] == s->cl_beg[q] + 1 && s->cl_coef[s->cl_beg[q]] == 1) {
            s->eq_idx[s->neq] = s->cl_idx[s->cl_beg[q]];
            s->eq_con[s->neq++] = (uint8_t)q;
        } else if (s->cl_beg[q + 1] > s->cl_beg[q]) {
            s->lcon[s->nlcon++] = (uint8_t)q;
        }
    }
    return 1;
}

/* Builds the fast check's prediction terms from the model (its span
 * constraints come compiled with the span). */
static void compile_model(pm_affine *a)
{
    const uint32_t nc = a->ncol;
    a->npu = a->npl = a->npt = 0;
    a->used = a->span->con_used;
    for (uint32_t k = 1; k < nc; k++) {
        if (a->coef[k] == 0)
            continue;
        uint32_t f = k - 1;
        a->used |= 1u << f;
        a->pt_idx[a->npt] = (uint8_t)f;
        a->pt_coef[a->npt++] = (uint64_t)a->coef[k];
        if (a->uniform_mask & (1u << f)) {
            a->pu_idx[a->npu] = (uint8_t)f;
            a->pu_coef[a->npu++] = (uint64_t)a->coef[k];
        } else {
            a->pl_idx[a->npl] = (uint8_t)f;
            a->pl_coef[a->npl++] = (uint64_t)a->coef[k];
        }
    }
}

/* Whether aff_fast_bad over a range equals aff_entry_ok on each of its
 * entries: it reads the warp-uniform features from entry 0, which is the
 * same thing when they come as single values (the collector's form). */
static int aff_range_exact(const pm_affine *a, const prof_mem_request *req)
{
    if (req->features || !req->feature_lanes)
        return 0;
    for (uint32_t m = a->uniform_mask; m; m &= m - 1)
        if ((uint32_t)__builtin_ctz(m) < a->nf && req->feature_lanes[__builtin_ctz(m)])
            return 0;
    return 1;
}

/* The span constraint of the pivot column q that x brings, over the
 * current span, into con: 1, or -1 when none fits (aff_refit decides). */
static int new_pivot_constraint(const pm_affine *a, uint32_t q, int64_t *con)
{
    const int fast = constraint64(a->span, a->n, a->ncol, q, con);
    return fast > 0 || (fast < 0 && constraint128(a->span, a->n, a->ncol, q, con)) ? 1 : -1;
}

/* The span after inserting x, which aff_reduce found independent with
 * remainder rem, compiled, and its con (when the model mispredicts x):
 * the next step of the trace, else own (updated in place). NULL on
 * overflow (the model is refused). */
static aff_span *span_build(pm_affine *a, const int64_t *x, const int64_t *rem, int predicted)
{
    const uint32_t nc = a->ncol;
    aff_span *d = NULL;
    if (!a->trace && a->n == 0 && (a->trace = malloc(sizeof(*a->trace))) != NULL) {
        a->trace->ncol = nc; /* the model's first span starts its trace */
        a->trace->len = 0;
    }
    if (a->trace) {
        trace_cut(a->trace, a->n);
        d = malloc(span_bytes(a->n + 1));
        if (!d) /* out of memory: on without the trace, as without one */
            aff_trace_free(aff_take_trace(a));
    }
    if (!d)
        d = &a->own;
    d->con_state = 0;
    if (!predicted) {
        uint32_t q = 0;
        while (rem[q] == 0)
            q++;
        d->con_state = new_pivot_constraint(a, q, d->con);
    }
    if (!aff_insert(a, d, rem) || !compile_span(d, a->n + 1, nc, a->uniform_mask)) {
        if (d != &a->own)
            free(d);
        return NULL;
    }
    memcpy(d->x, x, nc * sizeof(int64_t));
    if (d != &a->own)
        a->trace->step[a->trace->len++] = d;
    return d;
}

/* The trace's next span when x is its key: x is then independent of the
 * current span (the trace's previous step, which it follows) and brings
 * that span. */
static aff_span *span_traced(pm_affine *a, const int64_t *x)
{
    const aff_trace *t = a->trace;
    if (!t || a->n >= t->len || memcmp(t->step[a->n]->x, x, a->ncol * sizeof(int64_t)) != 0)
        return NULL;
    return t->step[a->n];
}

void aff_slow(pm_affine *a, const prof_mem_request *req)
{
    const uint32_t nf = a->nf, nc = a->ncol;
    int compiled = a->state == AFF_OK, changed = 0;
    const int range_exact = aff_range_exact(a, req);
    for (uint32_t i = 0; i < req->lanes && a->state != AFF_REFUSED; i++) {
        if (compiled && aff_entry_ok(a, req, i)) {
            /* the model just changed and accepts this entry: when it accepts
             * every later one too, nothing is left to do (checked over the
             * range at once, but only now: right after a change the next
             * entry often fails, and the range check would pay for every
             * lane to find that out) */
            if (changed && range_exact && i + 1 < req->lanes && !aff_fast_bad(a, req, i + 1))
                break;
            changed = 0;
            continue;
        }
        int64_t x[PM_MAXCOL], rem[PM_MAXCOL];
        x[0] = 1;
        for (uint32_t k = 0; k < nf; k++)
            x[k + 1] = feature_of(req, nf, i, k);
        uint64_t y = req->addrs[i];
        aff_span *next = span_traced(a, x);
        const int ind = next ? 1 : aff_reduce(a, x, rem);
        if (ind < 0) {
            a->state = AFF_REFUSED;
        } else if (ind == 0) {
            if (!aff_predicts(a, x, y))
                a->state = AFF_REFUSED; /* no model fits (see above) */
        } else {
            const int predicted = aff_predicts(a, x, y);
            if (next) {
                /* its constraint, from the span before it, when first needed */
                if (!predicted && next->con_state == 0)
                    next->con_state = new_pivot_constraint(a, next->pivot[a->n], next->con);
            } else if (!(next = span_build(a, x, rem, predicted))) {
                a->state = AFF_REFUSED;
                break;
            }
            memcpy(a->sx[a->n], x, nc * sizeof(int64_t));
            a->sy[a->n] = y;
            a->n++;
            a->span = next;
            a->gen++;
            int fits = 1;
            if (!predicted) {
                const int exact = next->con_state > 0 ? aff_update(a, next->con, x, y) : -1;
                fits = exact > 0 || (exact < 0 && aff_refit(a));
            }
            a->state = fits ? AFF_OK : AFF_REFUSED;
            compiled = a->state == AFF_OK;
            if (compiled)
                compile_model(a);
            changed = 1;
        }
    }
}

/* The fast per-lane check's terms, resolved for one request: up to three
 * prediction terms (coefficient times a lane-varying feature) and three
 * equality constraints (a lane-varying feature that must equal a value).
 * Entry i reads element i * stride of each term's array ("direct": rows,
 * or lane-indexed columns when entries are lanes 0..n-1) or element idx[i]
 * ("indexed": lane-indexed columns of a compacted request). */
typedef struct pm_terms {
    const int64_t *p[3], *e[3];
    uint64_t c[3], v[3];
    size_t stride;
    const uint8_t *idx;
} pm_terms;

/* The check with P prediction and E equality terms, P, E <= 3 (compile-time
 * constants at every call, so the unused terms fold away): OR of
 * (prediction ^ address) and (feature ^ value) over the entries. */
static inline __attribute__((always_inline)) uint64_t
lane_check(const pm_terms *t, const uint64_t *y, uint32_t n, uint64_t base, const uint32_t P,
           const uint32_t E, const int indexed)
{
    const int64_t *p0 = t->p[0], *p1 = t->p[1], *p2 = t->p[2];
    const int64_t *e0 = t->e[0], *e1 = t->e[1], *e2 = t->e[2];
    const uint64_t c0 = t->c[0], c1 = t->c[1], c2 = t->c[2];
    const uint64_t v0 = t->v[0], v1 = t->v[1], v2 = t->v[2];
    const size_t stride = t->stride;
    const uint8_t *idx = t->idx;
    uint64_t bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t j = indexed ? idx[i] : (size_t)i * stride;
        uint64_t p = base;
        if (P > 0)
            p += c0 * (uint64_t)p0[j];
        if (P > 1)
            p += c1 * (uint64_t)p1[j];
        if (P > 2)
            p += c2 * (uint64_t)p2[j];
        uint64_t d = p ^ y[i];
        if (E > 0)
            d |= (uint64_t)e0[j] ^ v0;
        if (E > 1)
            d |= (uint64_t)e1[j] ^ v1;
        if (E > 2)
            d |= (uint64_t)e2[j] ^ v2;
        bad |= d;
    }
    return bad;
}

/* One small function per shape, so that each loop gets the registers to
 * itself. */
typedef uint64_t (*lane_check_fn)(const pm_terms *, const uint64_t *, uint32_t, uint64_t);
#define PM_LANE_FN(P, E)                                                                          \
    static __attribute__((noinline)) uint64_t lane_check_##P##E(                                 \
        const pm_terms *t, const uint64_t *y, uint32_t n, uint64_t base)                         \
    {                                                                                            \
        return lane_check(t, y, n, base, P, E, 0);                                               \
    }                                                                                            \
    static __attribute__((noinline)) uint64_t lane_check_i##P##E(                                \
        const pm_terms *t, const uint64_t *y, uint32_t n, uint64_t base)                         \
    {                                                                                            \
        return lane_check(t, y, n, base, P, E, 1);                                               \
    }
PM_LANE_FN(0, 0) PM_LANE_FN(0, 1) PM_LANE_FN(0, 2) PM_LANE_FN(0, 3)
PM_LANE_FN(1, 0) PM_LANE_FN(1, 1) PM_LANE_FN(1, 2) PM_LANE_FN(1, 3)
PM_LANE_FN(2, 0) PM_LANE_FN(2, 1) PM_LANE_FN(2, 2) PM_LANE_FN(2, 3)
PM_LANE_FN(3, 0) PM_LANE_FN(3, 1) PM_LANE_FN(3, 2) PM_LANE_FN(3, 3)
#undef PM_LANE_FN
static const lane_check_fn lane_checks[2][16] = {
    {lane_check_00, lane_check_01, lane_check_02, lane_check_03, lane_check_10, lane_check_11,
     lane_check_12, lane_check_13, lane_check_20, lane_check_21, lane_check_22, lane_check_23,
     lane_check_30, lane_check_31, lane_check_32, lane_check_33},
    {lane_check_i00, lane_check_i01, lane_check_i02, lane_check_i03, lane_check_i10,
     lane_check_i11, lane_check_i12, lane_check_i13, lane_check_i20, lane_check_i21,
     lane_check_i22, lane_check_i23, lane_check_i30, lane_check_i31, lane_check_i32,
     lane_check_i33}};

/* The array feature f's term reads for this request, or NULL when the
 * feature has one value over the whole request (column form only). */
static inline const int64_t *term_array(const prof_mem_request *req, uint32_t f)
{
    return req->features ? req->features + f : req->feature_lanes[f];
}

/* The compiled check over entries [from, lanes) of a request: non-zero
 * when some entry fails. */
uint64_t aff_fast_bad(const pm_affine *a, const prof_mem_request *req, uint32_t from)
{
    const uint32_t n = req->lanes - from, nf = a->nf;
    /* request-level part: constant and warp-uniform features from entry 0 */
    uint64_t base = (uint64_t)a->c0;
    for (uint32_t t = 0; t < a->npu; t++)
        base += a->pu_coef[t] * (uint64_t)feature_of(req, nf, 0, a->pu_idx[t]);
    const aff_span *sp = a->span;
    uint64_t bad = 0, rhs[PM_MAXCOL];
    for (uint32_t q = 0; q < sp->ncon; q++) {
        uint64_t s = sp->con_const[q];
        for (uint32_t t = sp->cu_beg[q]; t < sp->cu_beg[q + 1]; t++)
            s += sp->cu_coef[t] * (uint64_t)feature_of(req, nf, 0, sp->cu_idx[t]);
        if (sp->cl_beg[q + 1] == sp->cl_beg[q])
            bad |= s;
        rhs[q] = (uint64_t)0 - s;
    }
    const uint64_t *y = req->addrs + from;
    const uint32_t npl = a->npl, nlcon = sp->nlcon, neq = sp->neq;
    if (nlcon == 0 && npl <= 3 && neq <= 3) {
        /* the common shapes, unrolled; features uniform over this request
         * fold into the base or are checked once */
        pm_terms t = {.stride = req->features ? nf : 1,
                      .idx = req->features || !req->lane_index ? NULL : req->lane_index + from};
        const size_t skip = t.idx ? 0 : (size_t)from * t.stride; /* direct arrays start at `from` */
        uint32_t P = 0, E = 0;
        for (uint32_t k = 0; k < npl; k++) {
            const int64_t *col = term_array(req, a->pl_idx[k]);
            if (col) {
                t.p[P] = col + skip;
                t.c[P++] = a->pl_coef[k];
            } else {
                base += a->pl_coef[k] * (uint64_t)req->feature_uniform[a->pl_idx[k]];
            }
        }
        for (uint32_t k = 0; k < neq; k++) {
            const int64_t *col = term_array(req, sp->eq_idx[k]);
            uint64_t v = rhs[sp->eq_con[k]];
            if (col) {
                t.e[E] = col + skip;
                t.v[E++] = v;
            } else {
                bad |= (uint64_t)req->feature_uniform[sp->eq_idx[k]] ^ v;
            }
        }
        bad |= lane_checks[t.idx != NULL][P * 4 + E](&t, y, n, base);
    } else { /* other shapes: entry by entry */
        for (uint32_t i = from; i < req->lanes && !bad; i++)
            bad = !aff_entry_ok(a, req, i);
    }
    return bad;
}


/* The fast check on entry i alone, every feature read from that entry
 * (otherwise the arithmetic of lane_check: the same terms, summed modulo
 * 2^64 in another order). Each feature the check uses is read once. */
int aff_entry_ok(const pm_affine *a, const prof_mem_request *req, uint32_t i)
{
    const uint32_t nf = a->nf;
    uint64_t x[PM_MAXCOL];
    if (req->features) {
        const int64_t *row = req->features + (size_t)i * nf;
        for (uint32_t m = a->used; m; m &= m - 1)
            x[__builtin_ctz(m)] = (uint64_t)row[__builtin_ctz(m)];
    } else {
        const uint32_t lane = lane_id(req, i);
        for (uint32_t m = a->used; m; m &= m - 1) {
            const uint32_t k = (uint32_t)__builtin_ctz(m);
            const int64_t *col = req->feature_lanes[k];
            x[k] = (uint64_t)(col ? col[lane] : req->feature_uniform[k]);
        }
    }
    uint64_t p = (uint64_t)a->c0;
    for (uint32_t t = 0; t < a->npt; t++)
        p += a->pt_coef[t] * x[a->pt_idx[t]];
    if (p != req->addrs[i])
        return 0;
    const aff_span *sp = a->span;
    uint64_t bad = 0;
    for (uint32_t k = 0; k < sp->n1; k++)
        bad |= sp->c1_const[k] + sp->c1_coef[k] * x[sp->c1_idx[k]];
    for (uint32_t k = 0; k < sp->nmulti; k++) {
        const uint32_t q = sp->multi[k];
        uint64_t s = sp->con_const[q];
        for (uint32_t t = sp->ct_beg[q]; t < sp->ct_beg[q + 1]; t++)
            s += sp->ct_coef[t] * x[sp->ct_idx[t]];
        bad |= s;
    }
    return bad == 0;
}
