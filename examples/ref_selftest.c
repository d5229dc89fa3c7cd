/*
 * ref_selftest.c - sanity checks of the example references.
 *
 * Each example's reference is what the GPU run (and later the CPU execution
 * of the PTX) is compared against, so it must be right on its own. For every
 * example this program runs the reference on a tiny input and checks a
 * property that can be established independently of the reference's own
 * loop structure: an algebraic identity, a conservation law, a hand-worked
 * case or a naive recomputation.
 *
 * Prints one line per example and, for each failed check, the example, the
 * check and the source line. Exits 1 if any check failed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bfs_ref.h"
#include "blackscholes_ref.h"
#include "devfunc_ref.h"
#include "histogram_ref.h"
#include "kmeans_ref.h"
#include "local_array_ref.h"
#include "matmul_ref.h"
#include "nbody_f64_ref.h"
#include "nested_loops_ref.h"
#include "nw_ref.h"
#include "reduce_conflict_ref.h"
#include "reduce_seq_ref.h"
#include "stencil2d_ref.h"
#include "tid_loop_ref.h"
#include "transpose_naive_ref.h"
#include "transpose_shared_ref.h"
#include "vecadd_ref.h"
#include "warp_reduce_ref.h"

static int total_failures;
static int example_failures;
static const char *current_example;

/* Records a failed check with its text and line; evaluates to the condition. */
#define CHECK(cond)                                                                 \
    ((cond) ? 1                                                                     \
            : (fprintf(stderr, "FAIL %s: check '%s' (ref_selftest.c:%d)\n",         \
                       current_example, #cond, __LINE__),                           \
               ++example_failures, 0))

static void *xalloc(size_t bytes)
{
    void *p = calloc(bytes ? bytes : 1, 1);
    if (p == NULL) {
        fprintf(stderr, "ref_selftest: out of memory\n");
        exit(2);
    }
    return p;
}

static void begin(const char *name)
{
    current_example = name;
    example_failures = 0;
}

static void end(void)
{
    printf("%-16s %s\n", current_example, example_failures ? "FAILED" : "ok");
    total_failures += example_failures;
}

static void test_vecadd(void)
{
    enum { N = 37 };
    float a[N], b[N], c[N], a2[N], b2[N];
    begin("vecadd");
    for (int i = 0; i < N; ++i) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    vecadd_ref(a, b, c, N);
    for (int i = 0; i < N; ++i)
        CHECK(c[i] == (float)(3 * i));
    /* The generator is deterministic and in range. */
    vecadd_init(a, b, N, 7);
    vecadd_init(a2, b2, N, 7);
    CHECK(memcmp(a, a2, sizeof(a)) == 0 && memcmp(b, b2, sizeof(b)) == 0);
    for (int i = 0; i < N; ++i)
        CHECK(a[i] >= -100.0f && a[i] < 100.0f && b[i] >= -100.0f && b[i] < 100.0f);
    vecadd_init(a2, b2, N, 8);
    CHECK(memcmp(a, a2, sizeof(a)) != 0);
    end();
}

static void test_matmul(void)
{
    enum { M = 5, N = 7, K = 19 };
    float a[M * K], b[K * N], c[M * N];
    begin("matmul");
    /* Small integers: every partial sum is exact, so any summation order
     * must give the naive triple loop's answer. */
    for (int i = 0; i < M * K; ++i)
        a[i] = (float)(i % 7 - 3);
    for (int i = 0; i < K * N; ++i)
        b[i] = (float)(i % 5 - 2);
    matmul_ref(a, b, c, M, N, K);
    for (int r = 0; r < M; ++r) {
        for (int col = 0; col < N; ++col) {
            long sum = 0;
            for (int i = 0; i < K; ++i)
                sum += (long)a[r * K + i] * (long)b[i * N + col];
            CHECK(c[r * N + col] == (float)sum);
        }
    }
    /* Identity: A * I == A. */
    float id[K * K];
    float out[M * K];
    for (int i = 0; i < K * K; ++i)
        id[i] = (i / K == i % K) ? 1.0f : 0.0f;
    matmul_init(a, b, M, N, K, 3);
    matmul_ref(a, id, out, M, K, K);
    CHECK(memcmp(a, out, sizeof(out)) == 0);
    end();
}

static void test_reduce_conflict(void)
{
    enum { N = 1000, BLOCK = 64 };
    float in[N], partial[(N + BLOCK - 1) / BLOCK];
    begin("reduce_conflict");
    for (int i = 0; i < N; ++i)
        in[i] = (float)(i % 11 - 5); /* integer-valued: any order is exact */
    CHECK(reduce_conflict_ref(in, partial, N, BLOCK) == 0);
    for (int blk = 0; blk * BLOCK < N; ++blk) {
        long sum = 0;
        for (int i = blk * BLOCK; i < N && i < (blk + 1) * BLOCK; ++i)
            sum += (long)in[i];
        CHECK(partial[blk] == (float)sum);
    }
    CHECK(reduce_conflict_ref(in, partial, N, 48) == -1);   /* not a power of two */
    CHECK(reduce_conflict_ref(in, partial, N, 2048) == -1); /* too large */
    end();
}

static void test_reduce_seq(void)
{
    enum { N = 1000, BLOCK = 128 };
    float in[N], partial[8];
    begin("reduce_seq");
    for (int i = 0; i < N; ++i)
        in[i] = (float)(i % 13 - 6);
    CHECK(reduce_seq_blocks(N, BLOCK) == 4);
    CHECK(reduce_seq_ref(in, partial, N, BLOCK) == 0);
    for (int blk = 0; blk < 4; ++blk) {
        long sum = 0;
        for (int i = blk * 2 * BLOCK; i < N && i < (blk + 1) * 2 * BLOCK; ++i)
            sum += (long)in[i];
        CHECK(partial[blk] == (float)sum);
    }
    CHECK(reduce_seq_ref(in, partial, N, 100) == -1);
    end();
}

static void test_transposes(void)
{
    enum { R = 7, C = 13 };
    float in[R * C], once[R * C], twice[R * C];
    begin("transpose_naive");
    transpose_naive_init(in, R, C, 5);
    transpose_naive_ref(in, once, R, C);
    transpose_naive_ref(once, twice, C, R);
    CHECK(memcmp(in, twice, sizeof(in)) == 0);
    CHECK(once[3 * R + 2] == in[2 * C + 3]);
    end();

    begin("transpose_shared");
    transpose_shared_init(in, R, C, 5);
    transpose_shared_ref(in, once, R, C);
    transpose_shared_ref(once, twice, C, R);
    CHECK(memcmp(in, twice, sizeof(in)) == 0);
    CHECK(once[12 * R + 6] == in[6 * C + 12]);
    end();
}

static void test_histogram(void)
{
    enum { N = 5000 };
    uint8_t data[N];
    uint32_t bins[HISTOGRAM_BINS];
    begin("histogram");
    const uint8_t word[] = {'a', 'a', 'b', 0, 255};
    histogram_ref(word, sizeof(word), bins);
    CHECK(bins['a'] == 2 && bins['b'] == 1 && bins[0] == 1 && bins[255] == 1 && bins['c'] == 0);

    histogram_init(data, N, 9);
    histogram_ref(data, N, bins);
    uint64_t total = 0;
    for (int v = 0; v < HISTOGRAM_BINS; ++v)
        total += bins[v];
    CHECK(total == N);
    /* The hot values get about 3/32 of the input each, the rest about 1/256. */
    CHECK(bins['e'] > 5 * (N / HISTOGRAM_BINS));
    CHECK(bins['x'] < 3 * (N / HISTOGRAM_BINS));
    end();
}

static void test_bfs(void)
{
    begin("bfs");
    /* A hand-made chain 0 -> 1 -> 2 -> 3 plus an unreachable vertex 4. */
    const uint32_t chain_rows[6] = {0, 1, 2, 3, 3, 4};
    const uint32_t chain_cols[4] = {1, 2, 3, 0};
    int32_t chain_level[5];
    CHECK(bfs_ref(chain_rows, chain_cols, 5, 0, chain_level) == 4);
    CHECK(chain_level[0] == 0 && chain_level[1] == 1 && chain_level[2] == 2 &&
          chain_level[3] == 3 && chain_level[4] == BFS_UNREACHED);
    CHECK(bfs_ref(chain_rows, chain_cols, 5, 5, chain_level) == -1);

    /* A generated graph: levels must satisfy the BFS invariants. */
    enum { N = 600 };
    uint32_t *rows = (uint32_t *)xalloc((N + 1) * sizeof(uint32_t));
    bfs_init_rows(rows, N, 3, 4);
    uint32_t *cols = (uint32_t *)xalloc(rows[N] * sizeof(uint32_t));
    bfs_init_cols(rows, cols, N, 4);
    int32_t *level = (int32_t *)xalloc(N * sizeof(int32_t));
    int steps = bfs_ref(rows, cols, N, 0, level);
    int32_t deepest = 0;
    int bad_edges = 0, orphans = 0, self_loops = 0;
    for (uint32_t u = 0; u < N; ++u) {
        for (uint32_t e = rows[u]; e < rows[u + 1]; ++e) {
            uint32_t v = cols[e];
            self_loops += v == u;
            /* An edge from a reached vertex reaches at most one level deeper. */
            if (level[u] != BFS_UNREACHED && (level[v] == BFS_UNREACHED || level[v] > level[u] + 1))
                ++bad_edges;
        }
        if (level[u] > deepest)
            deepest = level[u];
    }
    /* Every vertex at level L > 0 has an in-edge from level L - 1. */
    for (uint32_t v = 1; v < N; ++v) {
        if (level[v] <= 0)
            continue;
        int found = 0;
        for (uint32_t u = 0; u < N && !found; ++u)
            for (uint32_t e = rows[u]; e < rows[u + 1]; ++e)
                if (cols[e] == v && level[u] == level[v] - 1)
                    found = 1;
        orphans += !found;
    }
    CHECK(level[0] == 0);
    CHECK(bad_edges == 0);
    CHECK(orphans == 0);
    CHECK(self_loops == 0);
    CHECK(steps == deepest + 1);
    CHECK(deepest > 2); /* the generator makes a graph worth searching */
    free(rows);
    free(cols);
    free(level);
    end();
}

static void test_nw(void)
{
    enum { M = 40 };
    uint8_t a[M], b[M];
    int32_t score[(M + 1) * (M + 1)];
    begin("nw");
    /* One cell by hand: A vs G is a transition (-1), gaps cost 2. */
    const uint8_t sa[1] = {0}, sb[1] = {2};
    int32_t small[4];
    nw_ref(sa, 1, sb, 1, 2, small);
    CHECK(small[0] == 0 && small[1] == -2 && small[2] == -2 && small[3] == -1);

    /* A 2 x 3 case worked by hand: "AC" against "ACT", gap 2. */
    const uint8_t ha[2] = {0, 1}, hb[3] = {0, 1, 3};
    const int32_t hand[12] = {0, -2, -4, -6, -2, 4, 2, 0, -4, 2, 8, 6};
    int32_t h[12];
    nw_ref(ha, 2, hb, 3, 2, h);
    CHECK(memcmp(h, hand, sizeof(hand)) == 0);

    /* A sequence against itself: the diagonal of matches (4 each) is optimal. */
    nw_init(a, M, b, M, 6);
    nw_ref(a, M, a, M, 2, score);
    CHECK(score[(M + 1) * (M + 1) - 1] == 4 * M);
    CHECK(score[M] == -2 * M && score[M * (M + 1)] == -2 * M);

    /* Against the mutated copy: never better than the perfect match, and the
     * final score is attained by an explicit alignment found by traceback,
     * whose moves are re-scored from scratch. */
    nw_ref(a, M, b, M, 2, score);
    CHECK(score[(M + 1) * (M + 1) - 1] < 4 * M);
    static const int32_t subst[16] = NW_SUBST_TABLE;
    int i = M, j = M, path_score = 0, stuck = 0;
    while ((i > 0 || j > 0) && !stuck) {
        const int32_t here = score[i * (M + 1) + j];
        if (i > 0 && j > 0 &&
            here == score[(i - 1) * (M + 1) + j - 1] + subst[a[i - 1] * 4 + b[j - 1]]) {
            path_score += subst[a[i - 1] * 4 + b[j - 1]];
            --i;
            --j;
        } else if (i > 0 && here == score[(i - 1) * (M + 1) + j] - 2) {
            path_score -= 2;
            --i;
        } else if (j > 0 && here == score[i * (M + 1) + j - 1] - 2) {
            path_score -= 2;
            --j;
        } else {
            stuck = 1; /* no predecessor explains this cell */
        }
    }
    CHECK(!stuck);
    CHECK(path_score == score[(M + 1) * (M + 1) - 1]);
    end();
}

static void test_kmeans(void)
{
    enum { P = 200, K = 6, F = 5 };
    float points[P * F], centroids[K * F], distance[P];
    int32_t membership[P];
    begin("kmeans");
    kmeans_init(points, centroids, P, K, F, 11);
    /* Make the first K points the centroids: each must claim itself at
     * distance exactly 0 (the points are distinct with probability 1). */
    for (int c = 0; c < K; ++c)
        for (int f = 0; f < F; ++f)
            centroids[c * F + f] = points[f * P + c];
    kmeans_ref(points, centroids, membership, distance, P, K, F);
    for (int c = 0; c < K; ++c)
        CHECK(membership[c] == c && distance[c] == 0.0f);
    for (int p = 0; p < P; ++p) {
        CHECK(membership[p] >= 0 && membership[p] < K);
        /* The reported distance is no larger than the distance to any centroid
         * recomputed in double precision (with slack for float rounding). */
        for (int c = 0; c < K; ++c) {
            double d = 0.0;
            for (int f = 0; f < F; ++f) {
                double diff = (double)points[f * P + p] - centroids[c * F + f];
                d += diff * diff;
            }
            CHECK(distance[p] <= d * (1.0 + 1e-5) + 1e-6);
        }
    }
    end();
}

static void test_stencil2d(void)
{
    enum { NX = 9, NY = 6 };
    float grid[NX * NY], scratch[NX * NY], copy[NX * NY];
    begin("stencil2d");
    /* f(x, y) = x + 2y is harmonic and its 4-neighbour averages are exact
     * in float, so it is a fixed point of every Jacobi step. */
    for (int y = 0; y < NY; ++y)
        for (int x = 0; x < NX; ++x)
            grid[y * NX + x] = (float)(x + 2 * y);
    memcpy(copy, grid, sizeof(grid));
    const float *result = stencil2d_ref(grid, scratch, NX, NY, 5);
    CHECK(memcmp(result, copy, sizeof(copy)) == 0);

    /* From the generated start, boundaries stay fixed and interior values
     * stay within the boundary range (discrete maximum principle). */
    stencil2d_init(grid, NX, NY, 2);
    memcpy(copy, grid, sizeof(grid));
    result = stencil2d_ref(grid, scratch, NX, NY, 7);
    float hi = 0.0f;
    for (int y = 0; y < NY; ++y) {
        for (int x = 0; x < NX; ++x) {
            int edge = x == 0 || y == 0 || x == NX - 1 || y == NY - 1;
            if (edge) {
                CHECK(result[y * NX + x] == copy[y * NX + x]);
                hi = fmaxf(hi, copy[y * NX + x]);
            }
        }
    }
    /* Interior starts at 0, boundaries are in [0, hi]: averages stay there. */
    for (int i = 0; i < NX * NY; ++i)
        CHECK(result[i] >= 0.0f && result[i] <= hi);
    end();
}

static void test_blackscholes(void)
{
    enum { N = 500 };
    float s[N], x[N], t[N], call[N], put[N];
    const float rate = 0.02f, vol = 0.30f;
    begin("blackscholes");
    CHECK(fabsf(blackscholes_cnd(0.0f) - 0.5f) < 1e-6f);
    for (float d = -4.0f; d <= 4.0f; d += 0.25f) /* N(d) + N(-d) = 1 */
        CHECK(fabsf(blackscholes_cnd(d) + blackscholes_cnd(-d) - 1.0f) < 1e-6f);
    CHECK(fabsf(blackscholes_cnd(1.0f) - 0.8413447f) < 1e-6f); /* tabulated value */

    blackscholes_init(s, x, t, N, 21);
    blackscholes_ref(s, x, t, call, put, N, rate, vol);
    for (int i = 0; i < N; ++i) {
        /* Put-call parity: C - P = S - X e^(-rT), computed here in double. */
        double parity = (double)s[i] - (double)x[i] * exp(-(double)rate * t[i]);
        CHECK(fabs((double)call[i] - put[i] - parity) <= 1e-4 * s[i]);
        CHECK(call[i] >= -1e-4f && put[i] >= -1e-4f);
        CHECK(call[i] <= s[i] + 1e-4f); /* a call is never worth more than the stock */
    }
    end();
}

static void test_nbody_f64(void)
{
    enum { N = 64 };
    double x[N], y[N], z[N], m[N], ax[N], ay[N], az[N];
    begin("nbody_f64");
    /* Two bodies one unit apart (the tiny softening rounds away): a_0 = m_1 = 2
     * towards +x, a_1 = m_0 = 1 towards -x, exactly. */
    const double px[2] = {0.0, 1.0}, p0[2] = {0.0, 0.0}, pm[2] = {1.0, 2.0};
    double bx[2], by[2], bz[2];
    nbody_f64_ref(px, p0, p0, pm, bx, by, bz, 2, 1e-30);
    CHECK(bx[0] == 2.0 && bx[1] == -1.0 && by[0] == 0.0 && bz[1] == 0.0);

    /* Newton's third law: the total force sum(m_i a_i) vanishes. */
    nbody_f64_init(x, y, z, m, N, 13);
    nbody_f64_ref(x, y, z, m, ax, ay, az, N, 1e-4);
    double fx = 0, fy = 0, fz = 0, scale = 0;
    for (int i = 0; i < N; ++i) {
        fx += m[i] * ax[i];
        fy += m[i] * ay[i];
        fz += m[i] * az[i];
        scale += m[i] * (fabs(ax[i]) + fabs(ay[i]) + fabs(az[i]));
    }
    CHECK(fabs(fx) + fabs(fy) + fabs(fz) <= 1e-10 * scale);
    end();
}

static void test_devfunc(void)
{
    enum { N = 300, ROUNDS = 3 };
    uint32_t in[N], out10[N], out2[N];
    begin("devfunc");
    CHECK(devfunc_digit_sum(0, 10) == 0 && devfunc_digit_sum(1234, 10) == 10);
    CHECK(devfunc_digit_sum(0xffffffffu, 16) == 15 * 8);
    devfunc_init(in, N, 17);
    devfunc_ref(in, out10, N, 10, ROUNDS);
    devfunc_ref(in, out2, N, 2, ROUNDS);
    for (int i = 0; i < N; ++i) {
        if (in[i] > 0xffffffffu - ROUNDS)
            continue; /* x + r would wrap; the identities below assume it does not */
        uint32_t mod9 = 0, pop = 0;
        for (uint32_t r = 0; r < ROUNDS; ++r) {
            uint32_t v = in[i] + r;
            mod9 += v % 9;
            for (; v != 0; v &= v - 1) /* Kernighan's popcount */
                ++pop;
        }
        CHECK(out10[i] % 9 == mod9 % 9); /* decimal digit sum = value mod 9 */
        CHECK(out2[i] == pop);           /* binary digit sum = popcount */
    }
    end();
}

static void test_warp_reduce(void)
{
    enum { N = 100 }; /* three full warps and a tail of four lanes */
    int32_t in[N], sum[4], max[4];
    uint32_t ballot[4], flags[4];
    begin("warp_reduce");
    CHECK(warp_reduce_warps(N) == 4);
    warp_reduce_init(in, N, 23);
    warp_reduce_ref(in, N, sum, max, ballot, flags);
    for (int w = 0; w < 4; ++w) {
        int32_t s = 0;
        int positives = 0, popcount = 0;
        for (int i = w * 32; i < N && i < (w + 1) * 32; ++i) {
            s += in[i];
            positives += in[i] > 0;
            CHECK(in[i] <= max[w]);
        }
        for (uint32_t b = ballot[w]; b != 0; b &= b - 1)
            ++popcount;
        CHECK(sum[w] == s);
        CHECK(popcount == positives);
        if (w % 3 == 0)
            CHECK(flags[w] & 1u); /* generated all non-negative */
    }
    CHECK((ballot[3] >> 4) == 0); /* lanes past n never vote */
    end();
}

static void test_local_array(void)
{
    enum { N = 50, WINDOW = 40 };
    uint32_t in[N * WINDOW], mode[N], count[N];
    begin("local_array");
    local_array_init(in, N, WINDOW, 29);
    local_array_ref(in, mode, count, N, WINDOW);
    for (int i = 0; i < N; ++i) {
        CHECK(mode[i] < LOCAL_ARRAY_BUCKETS);
        /* Pigeonhole: some bucket holds at least ceil(WINDOW / 32) values. */
        CHECK(count[i] >= (WINDOW + LOCAL_ARRAY_BUCKETS - 1) / LOCAL_ARRAY_BUCKETS);
        /* Recount every bucket: the mode's count matches, buckets before it
         * hold strictly fewer values (ties go to the lowest index), buckets
         * after it no more. */
        for (uint32_t b = 0; b < LOCAL_ARRAY_BUCKETS; ++b) {
            uint32_t c = 0;
            for (int j = 0; j < WINDOW; ++j)
                c += in[j * N + i] % LOCAL_ARRAY_BUCKETS == b;
            if (b == mode[i])
                CHECK(c == count[i]);
            else if (b < mode[i])
                CHECK(c < count[i]);
            else
                CHECK(c <= count[i]);
        }
    }
    end();
}

static void test_tid_loop(void)
{
    enum { N = 200, BLOCK = 64 };
    uint32_t in[N], out[N];
    begin("tid_loop");
    for (uint32_t t = 0; t < 20; ++t)
        CHECK(tid_loop_trips(t) >= 1 && tid_loop_trips(t) <= TID_LOOP_PERIOD);
    tid_loop_init(in, N, 31);
    tid_loop_ref(in, out, N, BLOCK);
    for (int i = 0; i < N; ++i) {
        /* The Horner recurrence equals the power sum
         * sum_k (x ^ k) * 33^(trips - 1 - k)  (mod 2^32). */
        uint32_t trips = (uint32_t)(i % BLOCK) % TID_LOOP_PERIOD + 1;
        uint32_t expect = 0;
        for (uint32_t k = 0; k < trips; ++k) {
            uint32_t power = 1;
            for (uint32_t e = 0; e + 1 + k < trips; ++e)
                power *= 33u;
            expect += (in[i] ^ k) * power;
        }
        CHECK(out[i] == expect);
        if (trips == 1)
            CHECK(out[i] == in[i]);
    }
    end();
}

static void test_nested_loops(void)
{
    enum { N = 300, TAPS = 9 };
    float in[N + TAPS - 1], taps[TAPS], out[N];
    begin("nested_loops");
    CHECK(nested_loops_input_len(N, TAPS) == N + TAPS - 1);
    nested_loops_init(in, taps, N, TAPS, 37);
    float total = 0.0f;
    for (int k = 0; k < TAPS; ++k)
        total += taps[k];
    CHECK(fabsf(total - 1.0f) < 1e-5f); /* normalised window */

    /* A delta filter at tap 2 shifts the input by two samples. */
    for (int k = 0; k < TAPS; ++k)
        taps[k] = k == 2 ? 1.0f : 0.0f;
    nested_loops_ref(in, taps, out, N, TAPS);
    for (int o = 0; o < N; ++o)
        CHECK(out[o] == in[o + 2]);

    /* Integer data and taps: exact sums, any order. */
    for (int i = 0; i < N + TAPS - 1; ++i)
        in[i] = (float)(i % 9 - 4);
    for (int k = 0; k < TAPS; ++k)
        taps[k] = (float)(k - 3);
    nested_loops_ref(in, taps, out, N, TAPS);
    for (int o = 0; o < N; ++o) {
        long sum = 0;
        for (int k = 0; k < TAPS; ++k)
            sum += (long)in[o + k] * (long)taps[k];
        CHECK(out[o] == (float)sum);
    }
    end();
}

int main(void)
{
    test_vecadd();
    test_matmul();
    test_reduce_conflict();
    test_reduce_seq();
    test_transposes();
    test_histogram();
    test_bfs();
    test_nw();
    test_kmeans();
    test_stencil2d();
    test_blackscholes();
    test_nbody_f64();
    test_devfunc();
    test_warp_reduce();
    test_local_array();
    test_tid_loop();
    test_nested_loops();
    if (total_failures) {
        fprintf(stderr, "ref_selftest: %d check(s) failed\n", total_failures);
        return 1;
    }
    printf("ref_selftest: all checks passed\n");
    return 0;
}
