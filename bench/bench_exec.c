/*
 * bench_exec: throughput of the functional SIMT executor on every example
 * kernel at a realistic problem size.
 *
 * For each example the inputs are generated with the example's own
 * <name>_init, uploaded, and the kernel(s) launched exactly as the
 * example's CUDA main() does. Only mb_launch() is timed (CLOCK_MONOTONIC):
 * parsing, decoding, allocation, input generation and the host work between
 * launches (bfs clears its flags) are not. Each example runs R times on a
 * fresh device; the report gives the median wall time (and, to show when
 * the machine was busy, the median process CPU time), the thread
 * instructions, and their quotient, simulated thread instructions per
 * second, and at the end the median of that rate over the examples.
 *
 * Under valgrind --tool=callgrind (started with --instr-atstart=no) only the
 * mb_launch() calls are instrumented, so callgrind's total Ir divided by the
 * thread instructions is the host instructions per simulated thread
 * instruction (bench/run_exec_bench.sh does this).
 *
 * usage: bench_exec [--size small|large] [--repeat R] [--threads N]
 *                   [--only NAME[,NAME...]] [--csv] [--check] [--no-launch]
 *                   [--profile] [--profile-out DIR] [--profile-threads N] [--list]
 */
#define _POSIX_C_SOURCE 200809L
#include <minibench/profiler.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define HAVE_CALLGRIND 0
#endif

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

#ifndef MB_EXAMPLES_DIR
#error "MB_EXAMPLES_DIR must name the examples directory"
#endif

#define SEED 1u

/* ============================================================ one run */

enum { MAX_HOST = 32 };

typedef struct bench {
    const char *example;
    const mb_module *mod;
    mb_memory *mem;
    mb_program *prog;
    int large;
    unsigned threads;
    int check;         /* compare the outputs with the reference */
    int no_launch;     /* set everything up but skip mb_launch (callgrind baseline) */
    int profile;       /* attach the profiler to every launch (measures profiling cost) */
    unsigned profile_threads; /* mb_profile_options.threads */
    const char *profile_out; /* write each launch's profile JSON here (untimed): lets a change to
                                the profiler be checked byte for byte on these larger workloads */
    double seconds;    /* summed wall time of mb_launch */
    double cpu_seconds; /* summed process CPU time of mb_launch (all host threads) */
    mb_exec_stats stats;
    unsigned launches;
    char size[160];    /* the problem size, for the report (no commas: it is a CSV field) */
    long mismatches;   /* --check: elements that differ from the reference */
    void *host[MAX_HOST];
    unsigned nhost;
    jmp_buf fail;
    char error[2300];
} bench;

static void bench_fail(bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

static void bench_fail(bench *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->error, sizeof(b->error), fmt, ap);
    va_end(ap);
    longjmp(b->fail, 1);
}

static void check_status(bench *b, mb_status st, const mb_error *err, const char *what)
{
    if (st != MB_OK) {
        char buf[2048];
        mb_error_format(err, buf, sizeof(buf));
        bench_fail(b, "%s: %s", what, buf);
    }
}

/* Host memory freed after the run. */
static void *hmalloc(bench *b, size_t n)
{
    if (b->nhost == MAX_HOST)
        bench_fail(b, "too many host buffers");
    void *p = malloc(n ? n : 1);
    if (!p)
        bench_fail(b, "out of host memory (%zu bytes)", n);
    b->host[b->nhost++] = p;
    return p;
}

static void *dhost(bench *b, uint64_t addr, size_t bytes)
{
    void *p = mb_memory_host(b->mem, addr, bytes);
    if (!p)
        bench_fail(b, "no host view of device address 0x%" PRIx64, addr);
    return p;
}

/* A device buffer, filled from `init` when it is not NULL (zeros otherwise). */
static uint64_t dbuf(bench *b, const char *name, size_t bytes, const void *init)
{
    mb_error err;
    mb_error_clear(&err);
    uint64_t addr = 0;
    check_status(b, mb_memory_alloc(b->mem, bytes ? bytes : 1, name, &addr, &err), &err, "allocation");
    if (init && bytes)
        memcpy(dhost(b, addr, bytes), init, bytes);
    return addr;
}

typedef struct karg {
    uint64_t bits;
    unsigned size;
} karg;

static karg A_PTR(uint64_t a) { return (karg){a, 8}; }
static karg A_U32(uint32_t v) { return (karg){v, 4}; }
static karg A_S32(int32_t v) { return (karg){(uint32_t)v, 4}; }
static karg A_F32(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (karg){u, 4};
}
static karg A_F64(double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    return (karg){u, 8};
}
static mb_dim3 dim1(uint32_t x) { return (mb_dim3){x, 1, 1}; }
static mb_dim3 dim2(uint32_t x, uint32_t y) { return (mb_dim3){x, y, 1}; }
static uint32_t div_up(size_t a, size_t b) { return (uint32_t)((a + b - 1) / b); }

static double clock_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Writes the profile of the current launch to <profile_out>/<example>.<launch>.profile.json. */
static void write_profile(bench *b, const mb_profile *prof)
{
    mb_buf json = MB_BUF_INIT;
    mb_error err;
    mb_error_clear(&err);
    mb_status st = mb_profile_write_json(prof, &json, &err);
    if (st == MB_OK && json.failed)
        bench_fail(b, "out of memory writing a profile");
    check_status(b, st, &err, "profile JSON");
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.%u.profile.json", b->profile_out, b->example, b->launches - 1);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(json.data, 1, json.len, f) == json.len;
    ok = f && fclose(f) == 0 && ok;
    mb_buf_free(&json);
    if (!ok)
        bench_fail(b, "cannot write %s", path);
}

/* Launches a kernel; only this call is timed (and instrumented under callgrind). */
static void launch(bench *b, const char *kernel, mb_dim3 grid, mb_dim3 block, uint32_t dynamic_shared,
                   const karg *args, unsigned nargs)
{
    const mb_function *fn = mb_module_find_function(b->mod, kernel);
    if (!fn || !fn->is_entry)
        bench_fail(b, "no kernel %s", kernel);
    if (fn->nparams != nargs || nargs > 16)
        bench_fail(b, "kernel %s takes %u parameters, the bench passes %u", kernel, fn->nparams, nargs);
    mb_param_slot slots[16];
    uint32_t total = 0;
    mb_error err;
    mb_error_clear(&err);
    check_status(b, mb_kernel_param_layout(fn, slots, &total, &err), &err, "parameter layout");
    uint8_t params[256] = {0};
    if (total > sizeof(params))
        bench_fail(b, "parameter buffer too large");
    for (unsigned i = 0; i < nargs; i++) {
        if (slots[i].size != args[i].size)
            bench_fail(b, "parameter %u of %s is %u bytes, the bench passes %u", i, kernel,
                       slots[i].size, args[i].size);
        for (unsigned k = 0; k < args[i].size; k++)
            params[slots[i].offset + k] = (uint8_t)(args[i].bits >> (8 * k));
    }
    b->launches++;
    if (b->no_launch)
        return;
    mb_launch_config cfg = {fn, grid, block, dynamic_shared, params, total};
    mb_exec_options opt = {b->threads, 0, 0, NULL};
    mb_exec_stats s;
    memset(&s, 0, sizeof(s));
    mb_profile *prof = NULL;
    double c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
    double t0 = clock_seconds(CLOCK_MONOTONIC);
    CALLGRIND_START_INSTRUMENTATION;
    mb_status st = MB_OK;
    if (b->profile) { /* the profile's setup and finish count as profiling cost */
        const mb_profile_options popt = {.threads = b->profile_threads};
        st = mb_profile_new(b->prog, b->mem, &cfg, &popt, &prof, &err);
        opt.observer = st == MB_OK ? mb_profile_observer(prof) : NULL;
    }
    if (st == MB_OK)
        st = mb_launch(b->prog, b->mem, &cfg, &opt, &s, &err);
    if (st == MB_OK && prof)
        st = mb_profile_finish(prof, &s, &err);
    CALLGRIND_STOP_INSTRUMENTATION;
    b->seconds += clock_seconds(CLOCK_MONOTONIC) - t0;
    b->cpu_seconds += clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (st == MB_OK && prof && b->profile_out)
        write_profile(b, prof);
    mb_profile_free(prof);
    check_status(b, st, &err, kernel);
    b->stats.ctas += s.ctas;
    b->stats.warps += s.warps;
    b->stats.threads += s.threads;
    b->stats.warp_insts += s.warp_insts;
    b->stats.thread_insts += s.thread_insts;
}

/* --check helpers: count elements that differ (bit patterns) from the reference. */
static void cmp_bits(bench *b, const void *got, const void *want, size_t n, size_t elem)
{
    if (b->no_launch)
        return;
    for (size_t i = 0; i < n; i++)
        b->mismatches += memcmp((const char *)got + i * elem, (const char *)want + i * elem, elem) != 0;
}

#define SIZE(s_, l_) (b->large ? (l_) : (s_))

/* ======================================================== the examples */

static void bench_vecadd(bench *b)
{
    unsigned n = SIZE(1u << 16, 1u << 24), block = 256;
    snprintf(b->size, sizeof(b->size), "n=%u block=%u", n, block);
    size_t bytes = (size_t)n * 4;
    float *a = hmalloc(b, bytes), *x = hmalloc(b, bytes);
    vecadd_init(a, x, n, SEED);
    uint64_t da = dbuf(b, "a", bytes, a), dx = dbuf(b, "b", bytes, x), dc = dbuf(b, "c", bytes, NULL);
    karg args[] = {A_PTR(da), A_PTR(dx), A_PTR(dc), A_U32(n)};
    launch(b, "vecadd", dim1(div_up(n, block)), dim1(block), 0, args, 4);
    if (b->check) {
        float *want = hmalloc(b, bytes);
        vecadd_ref(a, x, want, n);
        cmp_bits(b, dhost(b, dc, bytes), want, n, 4);
    }
}

static void bench_matmul(bench *b)
{
    unsigned m = SIZE(128, 1024), n = m, k = m;
    snprintf(b->size, sizeof(b->size), "%ux%u x %ux%u", m, k, k, n);
    size_t ab = (size_t)m * k * 4, bb = (size_t)k * n * 4, cb = (size_t)m * n * 4;
    float *a = hmalloc(b, ab), *x = hmalloc(b, bb);
    matmul_init(a, x, m, n, k, SEED);
    uint64_t da = dbuf(b, "a", ab, a), dx = dbuf(b, "b", bb, x), dc = dbuf(b, "c", cb, NULL);
    karg args[] = {A_PTR(da), A_PTR(dx), A_PTR(dc), A_S32((int32_t)m), A_S32((int32_t)n), A_S32((int32_t)k)};
    launch(b, "_Z12matmul_tiledPKfS0_Pfiii", dim2(div_up(n, MATMUL_TILE), div_up(m, MATMUL_TILE)),
           dim2(MATMUL_TILE, MATMUL_TILE), 0, args, 6);
    if (b->check) {
        float *want = hmalloc(b, cb);
        matmul_ref(a, x, want, m, n, k);
        cmp_bits(b, dhost(b, dc, cb), want, (size_t)m * n, 4);
    }
}

static void bench_reduce_conflict(bench *b)
{
    unsigned n = SIZE(1u << 16, 1u << 24), block = 256, grid = div_up(n, block);
    snprintf(b->size, sizeof(b->size), "n=%u block=%u", n, block);
    float *in = hmalloc(b, (size_t)n * 4);
    reduce_conflict_init(in, n, SEED);
    uint64_t din = dbuf(b, "in", (size_t)n * 4, in), dp = dbuf(b, "partial", (size_t)grid * 4, NULL);
    karg args[] = {A_PTR(din), A_PTR(dp), A_U32(n)};
    launch(b, "reduce_interleaved", dim1(grid), dim1(block), block * 4, args, 3);
    if (b->check) {
        float *want = hmalloc(b, (size_t)grid * 4);
        reduce_conflict_ref(in, want, n, block);
        cmp_bits(b, dhost(b, dp, (size_t)grid * 4), want, grid, 4);
    }
}

static void bench_reduce_seq(bench *b)
{
    unsigned n = SIZE(1u << 16, 1u << 24), block = 256, grid = (unsigned)reduce_seq_blocks(n, block);
    snprintf(b->size, sizeof(b->size), "n=%u block=%u", n, block);
    float *in = hmalloc(b, (size_t)n * 4);
    reduce_seq_init(in, n, SEED);
    uint64_t din = dbuf(b, "in", (size_t)n * 4, in), dp = dbuf(b, "partial", (size_t)grid * 4, NULL);
    karg args[] = {A_PTR(din), A_PTR(dp), A_U32(n)};
    launch(b, "_Z10reduce_seqILj256EEvPKfPfj", dim1(grid), dim1(block), 0, args, 3);
    if (b->check) {
        float *want = hmalloc(b, (size_t)grid * 4);
        reduce_seq_ref(in, want, n, block);
        cmp_bits(b, dhost(b, dp, (size_t)grid * 4), want, grid, 4);
    }
}

static void bench_transpose_naive(bench *b)
{
    unsigned rows = SIZE(256, 2048), cols = rows, bx = 16, by = 16;
    snprintf(b->size, sizeof(b->size), "%ux%u block %ux%u", rows, cols, bx, by);
    size_t bytes = (size_t)rows * cols * 4;
    float *in = hmalloc(b, bytes);
    transpose_naive_init(in, rows, cols, SEED);
    uint64_t din = dbuf(b, "in", bytes, in), dout = dbuf(b, "out", bytes, NULL);
    karg args[] = {A_PTR(din), A_PTR(dout), A_S32((int32_t)rows), A_S32((int32_t)cols)};
    launch(b, "transpose_naive", dim2(div_up(cols, bx), div_up(rows, by)), dim2(bx, by), 0, args, 4);
    if (b->check) {
        float *want = hmalloc(b, bytes);
        transpose_naive_ref(in, want, rows, cols);
        cmp_bits(b, dhost(b, dout, bytes), want, (size_t)rows * cols, 4);
    }
}

static void bench_transpose_shared(bench *b)
{
    unsigned rows = SIZE(256, 2048), cols = rows;
    snprintf(b->size, sizeof(b->size), "%ux%u block %ux%u", rows, cols, TRANSPOSE_SHARED_TILE,
             TRANSPOSE_SHARED_ROWS);
    size_t bytes = (size_t)rows * cols * 4;
    float *in = hmalloc(b, bytes);
    transpose_shared_init(in, rows, cols, SEED);
    uint64_t din = dbuf(b, "in", bytes, in), dout = dbuf(b, "out", bytes, NULL);
    karg args[] = {A_PTR(din), A_PTR(dout), A_S32((int32_t)rows), A_S32((int32_t)cols)};
    launch(b, "transpose_shared",
           dim2(div_up(cols, TRANSPOSE_SHARED_TILE), div_up(rows, TRANSPOSE_SHARED_TILE)),
           dim2(TRANSPOSE_SHARED_TILE, TRANSPOSE_SHARED_ROWS), 0, args, 4);
    if (b->check) {
        float *want = hmalloc(b, bytes);
        transpose_shared_ref(in, want, rows, cols);
        cmp_bits(b, dhost(b, dout, bytes), want, (size_t)rows * cols, 4);
    }
}

static void bench_histogram(bench *b)
{
    unsigned n = SIZE(1u << 17, 1u << 24), block = 256, grid = div_up(n, block);
    if (grid > 64)
        grid = 64; /* the example's default max_blocks */
    snprintf(b->size, sizeof(b->size), "n=%u bytes grid=%u block=%u", n, grid, block);
    uint8_t *data = hmalloc(b, n);
    histogram_init(data, n, SEED);
    uint64_t dd = dbuf(b, "data", n, data), dbins = dbuf(b, "bins", HISTOGRAM_BINS * 4, NULL);
    karg args[] = {A_PTR(dd), A_U32(n), A_PTR(dbins)};
    launch(b, "histogram256", dim1(grid), dim1(block), 0, args, 3);
    if (b->check) {
        uint32_t want[HISTOGRAM_BINS];
        histogram_ref(data, n, want);
        cmp_bits(b, dhost(b, dbins, sizeof(want)), want, HISTOGRAM_BINS, 4);
    }
}

static void bench_bfs(bench *b)
{
    unsigned n = SIZE(1u << 14, 1u << 20), avg = 3, block = 256;
    uint32_t *row_ptr = hmalloc(b, ((size_t)n + 1) * 4);
    bfs_init_rows(row_ptr, n, avg, SEED);
    size_t edges = row_ptr[n];
    uint32_t *col_idx = hmalloc(b, edges * 4);
    bfs_init_cols(row_ptr, col_idx, n, SEED);
    int32_t *level = hmalloc(b, (size_t)n * 4);
    uint8_t *frontier = hmalloc(b, n);
    for (unsigned v = 0; v < n; v++) {
        level[v] = BFS_UNREACHED;
        frontier[v] = 0;
    }
    level[0] = 0;
    frontier[0] = 1;
    uint64_t drow = dbuf(b, "row_ptr", ((size_t)n + 1) * 4, row_ptr);
    uint64_t dcol = dbuf(b, "col_idx", edges * 4, col_idx);
    uint64_t dlevel = dbuf(b, "level", (size_t)n * 4, level);
    uint64_t dfront = dbuf(b, "frontier", n, frontier), dnext = dbuf(b, "next_frontier", n, NULL);
    uint64_t dchanged = dbuf(b, "changed", 4, NULL);
    unsigned grid = div_up(n, block);
    int steps = 0;
    for (int cur = 0;; ++cur) {
        if (cur > (int)n)
            bench_fail(b, "bfs does not terminate");
        memset(dhost(b, dnext, n), 0, n); /* cudaMemset, not timed */
        memset(dhost(b, dchanged, 4), 0, 4);
        karg args[] = {A_PTR(drow), A_PTR(dcol), A_PTR(dfront), A_PTR(dnext), A_PTR(dlevel),
                       A_U32(n), A_S32(cur), A_PTR(dchanged)};
        launch(b, "bfs_level_step", dim1(grid), dim1(block), 0, args, 8);
        ++steps;
        uint32_t changed;
        memcpy(&changed, dhost(b, dchanged, 4), 4);
        if (!changed || b->no_launch)
            break;
        uint64_t t = dfront;
        dfront = dnext;
        dnext = t;
    }
    snprintf(b->size, sizeof(b->size), "%u vertices %zu edges %d levels block=%u", n, edges, steps, block);
    if (b->check) {
        int32_t *want = hmalloc(b, (size_t)n * 4);
        int want_steps = bfs_ref(row_ptr, col_idx, n, 0, want);
        cmp_bits(b, dhost(b, dlevel, (size_t)n * 4), want, n, 4);
        b->mismatches += !b->no_launch && want_steps != steps;
    }
}

static void bench_nw(bench *b)
{
    unsigned m = SIZE(256, 2048), n = m;
    int gap = 2;
    size_t cells = (size_t)(m + 1) * (n + 1);
    uint8_t *sa = hmalloc(b, m), *sb = hmalloc(b, n);
    int32_t *score = hmalloc(b, cells * 4);
    nw_init(sa, m, sb, n, SEED);
    memset(score, 0, cells * 4);
    nw_init_borders(score, m, n, gap);
    uint64_t dscore = dbuf(b, "score", cells * 4, score), da = dbuf(b, "seq_a", m, sa), db = dbuf(b, "seq_b", n, sb);
    int tiles_m = (int)div_up(m, NW_TILE), tiles_n = (int)div_up(n, NW_TILE);
    for (int d = 0; d < tiles_m + tiles_n - 1; ++d) {
        int first = d - (tiles_n - 1) > 0 ? d - (tiles_n - 1) : 0;
        int last = d < tiles_m - 1 ? d : tiles_m - 1;
        karg args[] = {A_PTR(dscore), A_PTR(da), A_PTR(db), A_S32((int32_t)m), A_S32((int32_t)n),
                       A_S32(gap), A_S32(d), A_S32(first)};
        launch(b, "nw_tile_wavefront", dim1((uint32_t)(last - first + 1)), dim1(NW_TILE), 0, args, 8);
    }
    snprintf(b->size, sizeof(b->size), "%ux%u gap=2 %d launches", m, n, tiles_m + tiles_n - 1);
    if (b->check) {
        int32_t *want = hmalloc(b, cells * 4);
        nw_ref(sa, m, sb, n, gap, want);
        cmp_bits(b, dhost(b, dscore, cells * 4), want, cells, 4);
    }
}

static void bench_kmeans(bench *b)
{
    unsigned np = SIZE(1u << 13, 1u << 19), nc = 8, nf = 8, block = 128;
    snprintf(b->size, sizeof(b->size), "%u points %u clusters %u features", np, nc, nf);
    size_t pb = (size_t)np * nf * 4, cb = (size_t)nc * nf * 4;
    float *points = hmalloc(b, pb), *centroids = hmalloc(b, cb);
    kmeans_init(points, centroids, np, nc, nf, SEED);
    uint64_t dp = dbuf(b, "points", pb, points), dc = dbuf(b, "centroids", cb, centroids);
    uint64_t dm = dbuf(b, "membership", (size_t)np * 4, NULL), dd = dbuf(b, "distance", (size_t)np * 4, NULL);
    karg args[] = {A_PTR(dp), A_PTR(dc), A_PTR(dm), A_PTR(dd), A_S32((int32_t)np), A_S32((int32_t)nc),
                   A_S32((int32_t)nf)};
    launch(b, "kmeans_assign", dim1(div_up(np, block)), dim1(block), 0, args, 7);
    if (b->check) {
        int32_t *wm = hmalloc(b, (size_t)np * 4);
        float *wd = hmalloc(b, (size_t)np * 4);
        kmeans_ref(points, centroids, wm, wd, np, nc, nf);
        cmp_bits(b, dhost(b, dm, (size_t)np * 4), wm, np, 4);
        cmp_bits(b, dhost(b, dd, (size_t)np * 4), wd, np, 4);
    }
}

static void bench_stencil2d(bench *b)
{
    unsigned nx = SIZE(128, 1024), ny = nx, iters = 10, bx = 16, by = 16;
    snprintf(b->size, sizeof(b->size), "%ux%u %u iterations block %ux%u", nx, ny, iters, bx, by);
    size_t bytes = (size_t)nx * ny * 4;
    float *g0 = hmalloc(b, bytes);
    stencil2d_init(g0, nx, ny, SEED);
    uint64_t da = dbuf(b, "a", bytes, g0), db = dbuf(b, "b", bytes, NULL);
    for (unsigned it = 0; it < iters; ++it) {
        karg args[] = {A_PTR(da), A_PTR(db), A_S32((int32_t)nx), A_S32((int32_t)ny)};
        launch(b, "jacobi5", dim2(div_up(nx, bx), div_up(ny, by)), dim2(bx, by), 0, args, 4);
        uint64_t t = da;
        da = db;
        db = t;
    }
    if (b->check) {
        float *scratch = hmalloc(b, bytes);
        const float *want = stencil2d_ref(g0, scratch, nx, ny, iters);
        cmp_bits(b, dhost(b, da, bytes), want, (size_t)nx * ny, 4);
    }
}

static void bench_blackscholes(bench *b)
{
    unsigned n = SIZE(1u << 14, 1u << 22), block = 128;
    const float rate = 0.02f, vol = 0.30f;
    snprintf(b->size, sizeof(b->size), "%u options block=%u", n, block);
    size_t bytes = (size_t)n * 4;
    float *s = hmalloc(b, bytes), *x = hmalloc(b, bytes), *t = hmalloc(b, bytes);
    blackscholes_init(s, x, t, n, SEED);
    uint64_t ds = dbuf(b, "spot", bytes, s), dx = dbuf(b, "strike", bytes, x), dt = dbuf(b, "years", bytes, t);
    uint64_t dcall = dbuf(b, "call", bytes, NULL), dput = dbuf(b, "put", bytes, NULL);
    karg args[] = {A_PTR(ds), A_PTR(dx), A_PTR(dt), A_PTR(dcall), A_PTR(dput), A_S32((int32_t)n),
                   A_F32(rate), A_F32(vol)};
    launch(b, "black_scholes", dim1(div_up(n, block)), dim1(block), 0, args, 8);
    if (b->check && !b->no_launch) {
        float *call = hmalloc(b, bytes), *put = hmalloc(b, bytes);
        blackscholes_ref(s, x, t, call, put, n, rate, vol);
        const float *gc = dhost(b, dcall, bytes), *gp = dhost(b, dput, bytes);
        for (unsigned i = 0; i < n; i++) {
            float ec = fabsf(gc[i] - call[i]) / fmaxf(1.0f, fabsf(call[i]));
            float ep = fabsf(gp[i] - put[i]) / fmaxf(1.0f, fabsf(put[i]));
            b->mismatches += !(ec <= BLACKSCHOLES_TOLERANCE && ep <= BLACKSCHOLES_TOLERANCE);
        }
    }
}

static void bench_nbody_f64(bench *b)
{
    unsigned n = SIZE(512, 4096);
    const double soft2 = 1e-4;
    snprintf(b->size, sizeof(b->size), "%u bodies block=%d", n, NBODY_F64_BLOCK);
    size_t bytes = (size_t)n * 8;
    double *h[7];
    for (int a = 0; a < 7; a++)
        h[a] = hmalloc(b, bytes);
    nbody_f64_init(h[0], h[1], h[2], h[3], n, SEED);
    static const char *const names[7] = {"x", "y", "z", "mass", "ax", "ay", "az"};
    uint64_t d[7];
    for (int a = 0; a < 7; a++)
        d[a] = dbuf(b, names[a], bytes, a < 4 ? h[a] : NULL);
    karg args[] = {A_PTR(d[0]), A_PTR(d[1]), A_PTR(d[2]), A_PTR(d[3]), A_PTR(d[4]),
                   A_PTR(d[5]), A_PTR(d[6]), A_S32((int32_t)n), A_F64(soft2)};
    launch(b, "nbody_accel_f64", dim1(div_up(n, NBODY_F64_BLOCK)), dim1(NBODY_F64_BLOCK), 0, args, 9);
    if (b->check) {
        nbody_f64_ref(h[0], h[1], h[2], h[3], h[4], h[5], h[6], n, soft2);
        for (int a = 4; a < 7; a++)
            cmp_bits(b, dhost(b, d[a], bytes), h[a], n, 8);
    }
}

static void bench_devfunc(bench *b)
{
    unsigned n = SIZE(1u << 14, 1u << 20), base = 10, rounds = 4, block = 128;
    snprintf(b->size, sizeof(b->size), "n=%u base=%u rounds=%u block=%u", n, base, rounds, block);
    size_t bytes = (size_t)n * 4;
    uint32_t *in = hmalloc(b, bytes);
    devfunc_init(in, n, SEED);
    uint64_t din = dbuf(b, "in", bytes, in), dout = dbuf(b, "out", bytes, NULL);
    karg args[] = {A_PTR(din), A_PTR(dout), A_U32(n), A_U32(base), A_U32(rounds)};
    launch(b, "digit_sums", dim1(div_up(n, block)), dim1(block), 0, args, 5);
    if (b->check) {
        uint32_t *want = hmalloc(b, bytes);
        devfunc_ref(in, want, n, base, rounds);
        cmp_bits(b, dhost(b, dout, bytes), want, n, 4);
    }
}

static void bench_warp_reduce(bench *b)
{
    unsigned n = SIZE(1u << 16, 1u << 22), block = 128;
    snprintf(b->size, sizeof(b->size), "n=%u block=%u", n, block);
    size_t warps = warp_reduce_warps(n);
    int32_t *in = hmalloc(b, (size_t)n * 4);
    warp_reduce_init(in, n, SEED);
    uint64_t din = dbuf(b, "in", (size_t)n * 4, in);
    static const char *const names[4] = {"sum", "max", "ballot", "flags"};
    uint64_t d[4];
    for (int k = 0; k < 4; k++)
        d[k] = dbuf(b, names[k], warps * 4, NULL);
    karg args[] = {A_PTR(din), A_PTR(d[0]), A_PTR(d[1]), A_PTR(d[2]), A_PTR(d[3]), A_U32(n)};
    launch(b, "warp_stats", dim1(div_up(n, block)), dim1(block), 0, args, 6);
    if (b->check) {
        uint32_t *w[4];
        for (int k = 0; k < 4; k++)
            w[k] = hmalloc(b, warps * 4);
        warp_reduce_ref(in, n, (int32_t *)w[0], (int32_t *)w[1], w[2], w[3]);
        for (int k = 0; k < 4; k++)
            cmp_bits(b, dhost(b, d[k], warps * 4), w[k], warps, 4);
    }
}

static void bench_local_array(bench *b)
{
    unsigned n = SIZE(1u << 12, 1u << 18), window = 64, block = 128;
    snprintf(b->size, sizeof(b->size), "n=%u window=%u block=%u", n, window, block);
    size_t in_bytes = (size_t)n * window * 4, out_bytes = (size_t)n * 4;
    uint32_t *in = hmalloc(b, in_bytes);
    local_array_init(in, n, window, SEED);
    uint64_t din = dbuf(b, "in", in_bytes, in), dmode = dbuf(b, "mode", out_bytes, NULL);
    uint64_t dcount = dbuf(b, "count", out_bytes, NULL);
    karg args[] = {A_PTR(din), A_PTR(dmode), A_PTR(dcount), A_U32(n), A_U32(window)};
    launch(b, "local_mode", dim1(div_up(n, block)), dim1(block), 0, args, 5);
    if (b->check) {
        uint32_t *mode = hmalloc(b, out_bytes), *count = hmalloc(b, out_bytes);
        local_array_ref(in, mode, count, n, window);
        cmp_bits(b, dhost(b, dmode, out_bytes), mode, n, 4);
        cmp_bits(b, dhost(b, dcount, out_bytes), count, n, 4);
    }
}

static void bench_tid_loop(bench *b)
{
    unsigned n = SIZE(1u << 16, 1u << 23), block = 128;
    snprintf(b->size, sizeof(b->size), "n=%u block=%u", n, block);
    size_t bytes = (size_t)n * 4;
    uint32_t *in = hmalloc(b, bytes);
    tid_loop_init(in, n, SEED);
    uint64_t din = dbuf(b, "in", bytes, in), dout = dbuf(b, "out", bytes, NULL);
    karg args[] = {A_PTR(din), A_PTR(dout), A_U32(n)};
    launch(b, "tid_dependent_loop", dim1(div_up(n, block)), dim1(block), 0, args, 3);
    if (b->check) {
        uint32_t *want = hmalloc(b, bytes);
        tid_loop_ref(in, want, n, block);
        cmp_bits(b, dhost(b, dout, bytes), want, n, 4);
    }
}

static void bench_nested_loops(bench *b)
{
    unsigned n = SIZE(1u << 15, 1u << 22), ntaps = 15, block = 128, tiles = 4;
    snprintf(b->size, sizeof(b->size), "n=%u ntaps=%u block=%u tiles=%u", n, ntaps, block, tiles);
    size_t in_len = nested_loops_input_len(n, ntaps);
    float *in = hmalloc(b, in_len * 4), *taps = hmalloc(b, (size_t)ntaps * 4);
    nested_loops_init(in, taps, n, ntaps, SEED);
    uint64_t din = dbuf(b, "in", in_len * 4, in), dtaps = dbuf(b, "taps", (size_t)ntaps * 4, taps);
    uint64_t dout = dbuf(b, "out", (size_t)n * 4, NULL);
    unsigned grid = div_up(n, (size_t)tiles * 2 * block);
    uint32_t shared = (uint32_t)(((size_t)ntaps + 2 * block + ntaps - 1) * 4);
    karg args[] = {A_PTR(din), A_PTR(dtaps), A_PTR(dout), A_S32((int32_t)n), A_S32((int32_t)ntaps),
                   A_S32((int32_t)tiles)};
    launch(b, "conv1d_blocked", dim1(grid), dim1(block), shared, args, 6);
    if (b->check) {
        float *want = hmalloc(b, (size_t)n * 4);
        nested_loops_ref(in, taps, want, n, ntaps);
        cmp_bits(b, dhost(b, dout, (size_t)n * 4), want, n, 4);
    }
}

typedef struct example {
    const char *name;
    void (*run)(bench *b);
} example;

static const example examples[] = {
    {"vecadd", bench_vecadd},
    {"matmul", bench_matmul},
    {"reduce_conflict", bench_reduce_conflict},
    {"reduce_seq", bench_reduce_seq},
    {"transpose_naive", bench_transpose_naive},
    {"transpose_shared", bench_transpose_shared},
    {"histogram", bench_histogram},
    {"bfs", bench_bfs},
    {"nw", bench_nw},
    {"kmeans", bench_kmeans},
    {"stencil2d", bench_stencil2d},
    {"blackscholes", bench_blackscholes},
    {"nbody_f64", bench_nbody_f64},
    {"devfunc", bench_devfunc},
    {"warp_reduce", bench_warp_reduce},
    {"local_array", bench_local_array},
    {"tid_loop", bench_tid_loop},
    {"nested_loops", bench_nested_loops},
};
enum { NEXAMPLES = sizeof(examples) / sizeof(examples[0]) };

/* One repetition of one example on a fresh device. Returns 0 on success. */
static int run_once(bench *b, const example *ex)
{
    mb_error err;
    mb_error_clear(&err);
    int rc = 0;
    if (setjmp(b->fail) == 0) {
        check_status(b, mb_memory_new(&b->mem, &err), &err, "mb_memory_new");
        check_status(b, mb_program_new(b->mod, b->mem, &b->prog, &err), &err, "mb_program_new");
        ex->run(b);
    } else {
        fprintf(stderr, "bench_exec: %s: %s\n", ex->name, b->error);
        rc = 1;
    }
    mb_program_free(b->prog);
    mb_memory_free(b->mem);
    b->prog = NULL;
    b->mem = NULL;
    for (unsigned i = 0; i < b->nhost; i++)
        free(b->host[i]);
    b->nhost = 0;
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int selected(const char *only, const char *name)
{
    if (!only)
        return 1;
    size_t len = strlen(name);
    for (const char *p = only; *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == len && strncmp(p, name, n) == 0)
            return 1;
        p += n + (comma != NULL);
    }
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: bench_exec [--size small|large] [--repeat R] [--threads N] [--only NAME[,NAME...]]\n"
            "                  [--csv] [--check] [--no-launch] [--profile] [--profile-out DIR]\n"
            "                  [--profile-threads N] [--list]\n"
            "\n"
            "Runs every example kernel on the functional SIMT executor and reports the median\n"
            "wall time of mb_launch over R repetitions and simulated thread instructions per\n"
            "second (and their median over the examples).\n"
            "\n"
            "  --size small|large  problem sizes (default large; small is for callgrind)\n"
            "  --repeat R          repetitions per example, each on a fresh device (default 3)\n"
            "  --threads N         host threads for mb_launch (default 1)\n"
            "  --only LIST         run only these examples (comma-separated)\n"
            "  --csv               print CSV instead of a table\n"
            "  --check             compare every output with the example's C reference\n"
            "                      (slow at the large size: matmul and nbody_f64 references)\n"
            "  --no-launch         set up and tear down but skip mb_launch (a callgrind baseline)\n"
            "  --profile           attach the profiler to every launch (timed with it)\n"
            "  --profile-out DIR   --profile, and write each launch's profile JSON to\n"
            "                      DIR/NAME.LAUNCH.profile.json (untimed; DIR must exist)\n"
            "  --profile-threads N 1: the profiler counts memory requests in the launch's\n"
            "                      thread; 2: in a second thread (default: 2 when more than\n"
            "                      one CPU is online)\n"
            "  --list              print the example names and exit\n"
            "\n"
            "Under valgrind --tool=callgrind --instr-atstart=no only mb_launch is instrumented%s.\n",
            HAVE_CALLGRIND ? "" : " (not in this build: <valgrind/callgrind.h> was not found)");
}

static int parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = s ? strtoul(s, &end, 10) : 0;
    if (!s || errno || end == s || *end || s[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "bench_exec: %s needs a number from %u to %u\n", opt, lo, hi);
        return 0;
    }
    *out = (unsigned)v;
    return 1;
}

int main(int argc, char **argv)
{
    int large = 1, csv = 0, check = 0, no_launch = 0, profile = 0;
    unsigned repeat = 3, threads = 1, profile_threads = 0;
    const char *only = NULL, *profile_out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--size") == 0 && v && (strcmp(v, "small") == 0 || strcmp(v, "large") == 0)) {
            large = strcmp(v, "large") == 0;
            i++;
        } else if (strcmp(a, "--repeat") == 0) {
            if (!parse_uint(a, v, 1, 1000, &repeat))
                return 2;
            i++;
        } else if (strcmp(a, "--threads") == 0) {
            if (!parse_uint(a, v, 1, 1024, &threads))
                return 2;
            i++;
        } else if (strcmp(a, "--profile-threads") == 0) {
            if (!parse_uint(a, v, 1, 2, &profile_threads))
                return 2;
            i++;
        } else if (strcmp(a, "--only") == 0 && v) {
            only = v;
            i++;
        } else if (strcmp(a, "--csv") == 0) {
            csv = 1;
        } else if (strcmp(a, "--check") == 0) {
            check = 1;
        } else if (strcmp(a, "--no-launch") == 0) {
            no_launch = 1;
        } else if (strcmp(a, "--profile") == 0) {
            profile = 1;
        } else if (strcmp(a, "--profile-out") == 0 && v) {
            profile = 1;
            profile_out = v;
            i++;
        } else if (strcmp(a, "--list") == 0) {
            for (int k = 0; k < NEXAMPLES; k++)
                printf("%s\n", examples[k].name);
            return 0;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "bench_exec: bad argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (only)
        for (const char *p = only; *p;) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            int found = 0;
            for (int k = 0; k < NEXAMPLES; k++)
                found |= strlen(examples[k].name) == n && strncmp(examples[k].name, p, n) == 0;
            if (!found) {
                fprintf(stderr, "bench_exec: no example named '%.*s' (see --list)\n", (int)n, p);
                return 2;
            }
            p += n + (comma != NULL);
        }

    if (csv)
        printf("example,size,launches,threads,warp_insts,thread_insts,median_seconds,min_seconds,"
               "max_seconds,thread_insts_per_second,check,median_cpu_seconds\n");
    else
        printf("%-17s %-50s %8s %14s %9s %9s %9s %6s\n", "example", "size", "launches", "thread insts",
               "median s", "cpu s", "Minst/s", "check");
    double rates[NEXAMPLES];
    int nrates = 0, failures = 0;
    for (int k = 0; k < NEXAMPLES; k++) {
        const example *ex = &examples[k];
        if (!selected(only, ex->name))
            continue;
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s/%s.ptx", MB_EXAMPLES_DIR, ex->name, ex->name);
        mb_error err;
        mb_error_clear(&err);
        mb_module *mod = NULL;
        if (mb_ptx_parse_file(path, &mod, &err) != MB_OK) {
            char buf[2048];
            mb_error_format(&err, buf, sizeof(buf));
            fprintf(stderr, "bench_exec: %s\n", buf);
            failures++;
            continue;
        }
        double secs[1000], cpu[1000];
        bench b;
        int ok = 1;
        long mismatches = 0;
        for (unsigned r = 0; r < repeat && ok; r++) {
            memset(&b, 0, sizeof(b));
            b.example = ex->name;
            b.mod = mod;
            b.large = large;
            b.threads = threads;
            b.no_launch = no_launch;
            b.profile = profile;
            b.profile_threads = profile_threads;
            b.profile_out = profile_out;
            b.check = check && r == repeat - 1; /* once is enough */
            ok = run_once(&b, ex) == 0;
            secs[r] = b.seconds;
            cpu[r] = b.cpu_seconds;
            mismatches += b.mismatches;
        }
        mb_module_free(mod);
        if (!ok) {
            failures++;
            continue;
        }
        double mins = secs[0], maxs = secs[0];
        for (unsigned r = 1; r < repeat; r++) {
            mins = secs[r] < mins ? secs[r] : mins;
            maxs = secs[r] > maxs ? secs[r] : maxs;
        }
        double med = median(secs, (int)repeat), med_cpu = median(cpu, (int)repeat);
        double rate = med > 0 ? (double)b.stats.thread_insts / med : 0;
        if (!no_launch)
            rates[nrates++] = rate;
        const char *verdict = !check ? "-" : mismatches ? "FAILED" : "ok";
        if (check && mismatches) {
            fprintf(stderr, "bench_exec: %s: %ld output elements differ from the reference\n", ex->name,
                    mismatches);
            failures++;
        }
        if (csv)
            printf("%s,%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%.6f,%.6f,%.0f,%s,%.6f\n", ex->name,
                   b.size, b.launches, b.stats.threads, b.stats.warp_insts, b.stats.thread_insts, med,
                   mins, maxs, rate, verdict, med_cpu);
        else
            printf("%-17s %-50s %8u %14" PRIu64 " %9.3f %9.3f %9.1f %6s\n", ex->name, b.size, b.launches,
                   b.stats.thread_insts, med, med_cpu, rate / 1e6, verdict);
        fflush(stdout);
    }
    if (nrates > 0) {
        double med = median(rates, nrates);
        if (csv)
            printf("median,%d examples,,,,,,,,%.0f,,\n", nrates, med);
        else
            printf("%-17s %-50s %8s %14s %9s %9s %9.1f\n", "median", "", "", "", "", "", med / 1e6);
    }
    return failures ? 1 : 0;
}
