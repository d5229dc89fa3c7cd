/* Every example kernel, run from its committed PTX on the functional SIMT
 * executor exactly as the example's CUDA main() launches it (same grid,
 * block, dynamic shared memory, argument order and launch sequence), is
 * compared with the example's C reference:
 *
 *   - bit-exact where the operation is exact or the reference reproduces
 *     the kernel's operation order (every example but blackscholes, whose
 *     header states a 1e-4 x max(1, |price|) tolerance);
 *   - at three to five problem sizes per example, including sizes that
 *     leave partial warps and partial CTAs (and, for 2D kernels, partial
 *     tiles in both dimensions); the last size of each list is the default
 *     of the example program's main();
 *   - again with two host threads: outputs must be byte-identical to the
 *     one-thread run (histogram, the one kernel with atomics, must still be
 *     exact), and so must the instruction counts (except bfs, see
 *     expect_same_runs_racy);
 *   - with the launch statistics checked (CTAs, warps, threads, and
 *     instruction counts that are positive and consistent).
 *
 * Output buffers the kernel writes completely are pre-filled with a
 * sentinel pattern, so an element the executor forgets to write is caught
 * even where the reference value would be zero. Every buffer is allocated
 * at its exact size, so an out-of-bounds access faults the launch. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/profiler.h>

#include <math.h>
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

#define SENTINEL 0xA5 /* byte pattern of output buffers before a launch */
#define SEED 7u

/* ============================================================ tracking */

/* Host allocations and open devices of the running test. A failed
 * assertion leaves the test function early (longjmp), so the teardown
 * frees whatever is still live: a failure is reported once, not drowned in
 * leak reports. */
static void **live;
static size_t nlive, caplive;

static void track(void *p)
{
    if (nlive == caplive) {
        size_t cap = caplive ? 2 * caplive : 64;
        void **n = realloc(live, cap * sizeof(*n));
        if (!n)
            abort();
        live = n;
        caplive = cap;
    }
    live[nlive++] = p;
}

static void untrack(void *p)
{
    for (size_t i = nlive; i-- > 0;)
        if (live[i] == p) {
            live[i] = live[--nlive];
            return;
        }
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    track(p);
    return p;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    assert_non_null(p);
    track(p);
    return p;
}

static void *xrealloc(void *old, size_t n)
{
    if (old)
        untrack(old);
    void *p = realloc(old, n ? n : 1);
    assert_non_null(p);
    track(p);
    return p;
}

static void xfree(void *p)
{
    if (p) {
        untrack(p);
        free(p);
    }
}

struct gpu;
static struct gpu *open_gpu[4];
static void gpu_close(struct gpu *g);

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(open_gpu) / sizeof(open_gpu[0]); i++)
        if (open_gpu[i])
            gpu_close(open_gpu[i]);
    while (nlive)
        xfree(live[nlive - 1]);
    return 0;
}

/* ================================================================ device */

/* One simulated device: a parsed example, its memory and program. */
typedef struct gpu {
    const char *example;
    mb_module *mod;
    mb_memory *mem;
    mb_program *prog;
    unsigned threads;    /* host threads for mb_launch */
    mb_exec_stats stats; /* summed over all launches */
    unsigned launches;
} gpu;

static void check_ok(mb_status st, const mb_error *err, const char *what, const char *example)
{
    if (st != MB_OK) {
        char buf[2048];
        mb_error_format(err, buf, sizeof(buf));
        fail_msg("%s: %s failed: %s", example, what, buf);
    }
}

static gpu *gpu_open(const char *example, unsigned threads)
{
    gpu *g = calloc(1, sizeof(*g));
    assert_non_null(g);
    g->example = example;
    g->threads = threads;
    for (size_t i = 0;; i++) {
        assert_true(i < sizeof(open_gpu) / sizeof(open_gpu[0]));
        if (!open_gpu[i]) {
            open_gpu[i] = g;
            break;
        }
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s/%s.ptx", MB_EXAMPLES_DIR, example, example);
    mb_error err;
    mb_error_clear(&err);
    check_ok(mb_ptx_parse_file(path, &g->mod, &err), &err, "parsing the PTX", example);
    check_ok(mb_memory_new(&g->mem, &err), &err, "mb_memory_new", example);
    check_ok(mb_program_new(g->mod, g->mem, &g->prog, &err), &err, "mb_program_new", example);
    return g;
}

static void gpu_close(gpu *g)
{
    for (size_t i = 0; i < sizeof(open_gpu) / sizeof(open_gpu[0]); i++)
        if (open_gpu[i] == g)
            open_gpu[i] = NULL;
    mb_program_free(g->prog);
    mb_memory_free(g->mem);
    mb_module_free(g->mod);
    free(g);
}

/* Host view of a whole allocation (or part of one). */
static void *gpu_host(gpu *g, uint64_t addr, size_t bytes)
{
    void *p = mb_memory_host(g->mem, addr, bytes);
    if (!p)
        fail_msg("%s: no host view of [0x%llx, +%zu)", g->example, (unsigned long long)addr, bytes);
    return p;
}

/* Allocates `bytes` named `name` and fills it from `init`, or with the
 * sentinel pattern when init is NULL and `sentinel` is set (zeros otherwise). */
static uint64_t gpu_alloc(gpu *g, const char *name, size_t bytes, const void *init, int sentinel)
{
    mb_error err;
    mb_error_clear(&err);
    uint64_t addr = 0;
    check_ok(mb_memory_alloc(g->mem, bytes, name, &addr, &err), &err, "mb_memory_alloc", g->example);
    assert_true(addr != 0);
    void *host = gpu_host(g, addr, bytes);
    if (init)
        memcpy(host, init, bytes);
    else if (sentinel)
        memset(host, SENTINEL, bytes);
    else
        for (size_t i = 0; i < bytes; i++) /* fresh allocations are zero-filled */
            assert_int_equal(((const uint8_t *)host)[i], 0);
    return addr;
}

/* Device-to-host copy. */
static void gpu_read(gpu *g, uint64_t addr, void *dst, size_t bytes)
{
    memcpy(dst, gpu_host(g, addr, bytes), bytes);
}

/* A kernel argument: its bits and the size the parameter must have. */
typedef struct karg {
    uint64_t bits;
    unsigned size;
} karg;

static karg A_PTR(uint64_t addr) { return (karg){addr, 8}; }
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

/* Launches `kernel` and checks the launch's statistics. */
static void gpu_launch(gpu *g, const char *kernel, mb_dim3 grid, mb_dim3 block, uint32_t dynamic_shared,
                       const karg *args, unsigned nargs)
{
    const mb_function *fn = mb_module_find_function(g->mod, kernel);
    if (!fn || !fn->is_entry)
        fail_msg("%s: no kernel %s in the PTX", g->example, kernel);
    assert_int_equal(fn->nparams, nargs);
    mb_param_slot slots[16];
    assert_true(nargs <= 16);
    uint32_t total = 0;
    mb_error err;
    mb_error_clear(&err);
    check_ok(mb_kernel_param_layout(fn, slots, &total, &err), &err, "mb_kernel_param_layout", g->example);
    uint8_t params[256];
    assert_true(total <= sizeof(params));
    memset(params, 0, sizeof(params));
    for (unsigned i = 0; i < nargs; i++) {
        if (slots[i].size != args[i].size)
            fail_msg("%s: parameter %u of %s is %u bytes, the test passes %u", g->example, i, kernel,
                     slots[i].size, args[i].size);
        assert_true(slots[i].offset + slots[i].size <= total);
        for (unsigned b = 0; b < args[i].size; b++) /* little-endian, like the device */
            params[slots[i].offset + b] = (uint8_t)(args[i].bits >> (8 * b));
    }
    mb_launch_config cfg = {fn, grid, block, dynamic_shared, params, total};
    mb_exec_options opt = {g->threads, 0, 0, NULL};
    mb_exec_stats s;
    memset(&s, 0, sizeof(s));
    mb_status st = mb_launch(g->prog, g->mem, &cfg, &opt, &s, &err);
    if (st != MB_OK) {
        char buf[2048];
        mb_error_format(&err, buf, sizeof(buf));
        fail_msg("%s: launch %u of %s grid (%u,%u,%u) block (%u,%u,%u) with %u host thread%s: %s",
                 g->example, g->launches, kernel, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                 g->threads, g->threads == 1 ? "" : "s", buf);
    }
    uint64_t ctas = (uint64_t)grid.x * grid.y * grid.z;
    uint64_t cta_threads = (uint64_t)block.x * block.y * block.z;
    assert_int_equal(s.ctas, ctas);
    assert_int_equal(s.threads, ctas * cta_threads);
    assert_int_equal(s.warps, ctas * ((cta_threads + 31) / 32));
    assert_true(s.warp_insts > 0);
    assert_true(s.thread_insts > 0);
    /* every thread executes at least one instruction; a warp instruction has at most 32 lanes */
    assert_true(s.thread_insts >= s.threads);
    assert_true(s.thread_insts <= 32 * s.warp_insts);
    assert_true(s.warp_insts >= s.warps);
    g->stats.ctas += s.ctas;
    g->stats.warps += s.warps;
    g->stats.threads += s.threads;
    g->stats.warp_insts += s.warp_insts;
    g->stats.thread_insts += s.thread_insts;
    g->launches++;
}

/* ============================================================== outputs */

/* The outputs of one run, concatenated, for comparing runs byte by byte. */
typedef struct blob {
    uint8_t *data;
    size_t len;
    mb_exec_stats stats;
} blob;

static void blob_add(blob *b, const void *p, size_t n)
{
    uint8_t *d = xrealloc(b->data, b->len + n + 1);
    memcpy(d + b->len, p, n);
    b->data = d;
    b->len += n;
}

static void blob_add_dev(blob *b, gpu *g, uint64_t addr, size_t n)
{
    blob_add(b, gpu_host(g, addr, n), n);
}

static void blob_free(blob *b)
{
    xfree(b->data);
    memset(b, 0, sizeof(*b));
}

/* Finishes a run: records the statistics and frees the device. */
static void gpu_finish(gpu *g, blob *out)
{
    assert_true(g->launches > 0);
    out->stats = g->stats;
    gpu_close(g);
}

/* Runs with one host thread, then with two: the outputs must be identical
 * (for histogram's atomics too, since integer sums do not depend on the
 * order), and so must every statistic unless `racy`: in bfs, CTAs of one
 * launch race benignly on level[] (a CTA that sees a neighbour already
 * claimed by another CTA skips the store), so which CTA does the work, and
 * therefore the instruction count, depends on the interleaving, although the
 * result does not. */
static void expect_same_runs_racy(const char *what, const blob *one, const blob *two, int racy)
{
    assert_int_equal(one->len, two->len);
    if (memcmp(one->data, two->data, one->len) != 0) {
        size_t i = 0;
        while (one->data[i] == two->data[i])
            i++;
        fail_msg("%s: outputs with 2 host threads differ from 1 thread, first at byte %zu "
                 "(0x%02x vs 0x%02x)", what, i, one->data[i], two->data[i]);
    }
    assert_int_equal(one->stats.ctas, two->stats.ctas);
    assert_int_equal(one->stats.threads, two->stats.threads);
    assert_int_equal(one->stats.warps, two->stats.warps);
    if (!racy) {
        assert_int_equal(one->stats.warp_insts, two->stats.warp_insts);
        assert_int_equal(one->stats.thread_insts, two->stats.thread_insts);
    }
}

static void expect_same_runs(const char *what, const blob *one, const blob *two)
{
    expect_same_runs_racy(what, one, two, 0);
}

/* Exact comparisons of 4- and 8-byte elements (floats by their bits, so
 * -0.0 and NaN payloads count), reporting the first mismatches. */
static void expect_u32(const char *what, const void *got_p, const void *want_p, size_t n)
{
    const uint32_t *got = got_p, *want = want_p;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ < 5)
            print_message("%s[%zu]: got 0x%08x (%d), expected 0x%08x (%d)\n", what, i, got[i],
                          (int32_t)got[i], want[i], (int32_t)want[i]);
    if (bad)
        fail_msg("%s: %zu of %zu elements differ", what, bad, n);
}

static void expect_f32_bits(const char *what, const float *got, const float *want, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], 4) != 0 && bad++ < 5)
            print_message("%s[%zu]: got %.9g (%a), expected %.9g (%a)\n", what, i, got[i], got[i],
                          want[i], want[i]);
    if (bad)
        fail_msg("%s: %zu of %zu floats are not bit-identical to the reference", what, bad, n);
}

static void expect_f64_bits(const char *what, const double *got, const double *want, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&got[i], &want[i], 8) != 0 && bad++ < 5)
            print_message("%s[%zu]: got %.17g (%a), expected %.17g (%a)\n", what, i, got[i], got[i],
                          want[i], want[i]);
    if (bad)
        fail_msg("%s: %zu of %zu doubles are not bit-identical to the reference", what, bad, n);
}

/* Runs `fn(c, threads, &out)` with 1 and 2 host threads, checks the
 * one-thread outputs with `check(c, &out)` and that both runs agree. */
#define RUN_BOTH(fn, check, c, label)                                                            \
    do {                                                                                         \
        blob one_ = {0}, two_ = {0};                                                             \
        fn(c, 1, &one_);                                                                         \
        check(c, &one_);                                                                         \
        fn(c, 2, &two_);                                                                         \
        expect_same_runs(label, &one_, &two_);                                                   \
        blob_free(&one_);                                                                        \
        blob_free(&two_);                                                                        \
    } while (0)

/* ================================================================ vecadd */

typedef struct vecadd_case {
    unsigned n, block;
} vecadd_case;

static void vecadd_run(const vecadd_case *c, unsigned threads, blob *out)
{
    size_t bytes = (size_t)c->n * 4;
    float *a = xmalloc(bytes), *b = xmalloc(bytes);
    vecadd_init(a, b, c->n, SEED);
    gpu *g = gpu_open("vecadd", threads);
    uint64_t da = gpu_alloc(g, "a", bytes, a, 0), db = gpu_alloc(g, "b", bytes, b, 0);
    uint64_t dc = gpu_alloc(g, "c", bytes, NULL, 1);
    karg args[] = {A_PTR(da), A_PTR(db), A_PTR(dc), A_U32(c->n)};
    gpu_launch(g, "vecadd", dim1(div_up(c->n, c->block)), dim1(c->block), 0, args, 4);
    /* the inputs are only read */
    assert_memory_equal(gpu_host(g, da, bytes), a, bytes);
    blob_add_dev(out, g, dc, bytes);
    gpu_finish(g, out);
    xfree(a);
    xfree(b);
}

static void vecadd_check(const vecadd_case *c, const blob *out)
{
    size_t bytes = (size_t)c->n * 4;
    float *a = xmalloc(bytes), *b = xmalloc(bytes), *want = xmalloc(bytes);
    vecadd_init(a, b, c->n, SEED);
    vecadd_ref(a, b, want, c->n);
    assert_int_equal(out->len, bytes);
    expect_f32_bits("vecadd c", (const float *)out->data, want, c->n);
    xfree(a);
    xfree(b);
    xfree(want);
}

static void test_vecadd(void **state)
{
    (void)state;
    /* 1000/128: partial last CTA with a partial warp; 77 < one CTA; 333 with 32-thread CTAs */
    static const vecadd_case cases[] = {{1000, 128}, {77, 256}, {333, 32}, {100000, 256}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(vecadd_run, vecadd_check, &cases[i], "vecadd");
}

/* ================================================================ matmul */

typedef struct matmul_case {
    unsigned m, n, k;
} matmul_case;

static void matmul_run(const matmul_case *c, unsigned threads, blob *out)
{
    size_t ab = (size_t)c->m * c->k * 4, bb = (size_t)c->k * c->n * 4, cb = (size_t)c->m * c->n * 4;
    float *a = xmalloc(ab), *b = xmalloc(bb);
    matmul_init(a, b, c->m, c->n, c->k, SEED);
    gpu *g = gpu_open("matmul", threads);
    uint64_t da = gpu_alloc(g, "a", ab, a, 0), db = gpu_alloc(g, "b", bb, b, 0);
    uint64_t dc = gpu_alloc(g, "c", cb, NULL, 1);
    karg args[] = {A_PTR(da), A_PTR(db), A_PTR(dc), A_S32((int32_t)c->m), A_S32((int32_t)c->n),
                   A_S32((int32_t)c->k)};
    gpu_launch(g, "_Z12matmul_tiledPKfS0_Pfiii", dim2(div_up(c->n, MATMUL_TILE), div_up(c->m, MATMUL_TILE)),
               dim2(MATMUL_TILE, MATMUL_TILE), 0, args, 6);
    blob_add_dev(out, g, dc, cb);
    gpu_finish(g, out);
    xfree(a);
    xfree(b);
}

static void matmul_check(const matmul_case *c, const blob *out)
{
    size_t ab = (size_t)c->m * c->k * 4, bb = (size_t)c->k * c->n * 4, cb = (size_t)c->m * c->n * 4;
    float *a = xmalloc(ab), *b = xmalloc(bb), *want = xmalloc(cb);
    matmul_init(a, b, c->m, c->n, c->k, SEED);
    matmul_ref(a, b, want, c->m, c->n, c->k);
    assert_int_equal(out->len, cb);
    expect_f32_bits("matmul C", (const float *)out->data, want, (size_t)c->m * c->n);
    xfree(a);
    xfree(b);
    xfree(want);
}

static void test_matmul(void **state)
{
    (void)state;
    /* partial tiles in M, N and K; then exact tiles with K spanning two slices */
    static const matmul_case cases[] = {{37, 45, 29}, {16, 32, 32}, {7, 50, 3}, {100, 90, 70}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(matmul_run, matmul_check, &cases[i], "matmul");
}

/* ======================================================= reduce_conflict */

typedef struct reduce_case {
    unsigned n, block;
} reduce_case;

static void reduce_conflict_run(const reduce_case *c, unsigned threads, blob *out)
{
    unsigned grid = div_up(c->n, c->block);
    float *in = xmalloc((size_t)c->n * 4);
    reduce_conflict_init(in, c->n, SEED);
    gpu *g = gpu_open("reduce_conflict", threads);
    uint64_t din = gpu_alloc(g, "in", (size_t)c->n * 4, in, 0);
    uint64_t dp = gpu_alloc(g, "partial", (size_t)grid * 4, NULL, 1);
    karg args[] = {A_PTR(din), A_PTR(dp), A_U32(c->n)};
    gpu_launch(g, "reduce_interleaved", dim1(grid), dim1(c->block), c->block * 4, args, 3);
    blob_add_dev(out, g, dp, (size_t)grid * 4);
    gpu_finish(g, out);
    xfree(in);
}

static void reduce_conflict_check(const reduce_case *c, const blob *out)
{
    unsigned grid = div_up(c->n, c->block);
    float *in = xmalloc((size_t)c->n * 4), *want = xmalloc((size_t)grid * 4);
    reduce_conflict_init(in, c->n, SEED);
    assert_int_equal(reduce_conflict_ref(in, want, c->n, c->block), 0);
    assert_int_equal(out->len, (size_t)grid * 4);
    expect_f32_bits("reduce_conflict partial", (const float *)out->data, want, grid);
    xfree(in);
    xfree(want);
}

static void test_reduce_conflict(void **state)
{
    (void)state;
    static const reduce_case cases[] = {{1000, 128}, {333, 64}, {77, 256}, {4096, 1024}, {100000, 256}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(reduce_conflict_run, reduce_conflict_check, &cases[i], "reduce_conflict");
}

/* ============================================================ reduce_seq */

static void reduce_seq_run(const reduce_case *c, unsigned threads, blob *out)
{
    unsigned grid = (unsigned)reduce_seq_blocks(c->n, c->block);
    float *in = xmalloc((size_t)c->n * 4);
    reduce_seq_init(in, c->n, SEED);
    gpu *g = gpu_open("reduce_seq", threads);
    uint64_t din = gpu_alloc(g, "in", (size_t)c->n * 4, in, 0);
    uint64_t dp = gpu_alloc(g, "partial", (size_t)grid * 4, NULL, 1);
    karg args[] = {A_PTR(din), A_PTR(dp), A_U32(c->n)};
    const char *kernel =
        c->block == 128 ? "_Z10reduce_seqILj128EEvPKfPfj" : "_Z10reduce_seqILj256EEvPKfPfj";
    gpu_launch(g, kernel, dim1(grid), dim1(c->block), 0, args, 3);
    blob_add_dev(out, g, dp, (size_t)grid * 4);
    gpu_finish(g, out);
    xfree(in);
}

static void reduce_seq_check(const reduce_case *c, const blob *out)
{
    unsigned grid = (unsigned)reduce_seq_blocks(c->n, c->block);
    float *in = xmalloc((size_t)c->n * 4), *want = xmalloc((size_t)grid * 4);
    reduce_seq_init(in, c->n, SEED);
    assert_int_equal(reduce_seq_ref(in, want, c->n, c->block), 0);
    assert_int_equal(out->len, (size_t)grid * 4);
    expect_f32_bits("reduce_seq partial", (const float *)out->data, want, grid);
    xfree(in);
    xfree(want);
}

static void test_reduce_seq(void **state)
{
    (void)state;
    /* both template instances; n not a multiple of 2*block; n below one block */
    static const reduce_case cases[] = {{1000, 128}, {1000, 256}, {333, 256}, {77, 128}, {100000, 256}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(reduce_seq_run, reduce_seq_check, &cases[i], "reduce_seq");
}

/* ============================================================= transpose */

typedef struct transpose_case {
    unsigned rows, cols, bx, by;
} transpose_case;

static void transpose_naive_run(const transpose_case *c, unsigned threads, blob *out)
{
    size_t bytes = (size_t)c->rows * c->cols * 4;
    float *in = xmalloc(bytes);
    transpose_naive_init(in, c->rows, c->cols, SEED);
    gpu *g = gpu_open("transpose_naive", threads);
    uint64_t din = gpu_alloc(g, "in", bytes, in, 0), dout = gpu_alloc(g, "out", bytes, NULL, 1);
    karg args[] = {A_PTR(din), A_PTR(dout), A_S32((int32_t)c->rows), A_S32((int32_t)c->cols)};
    gpu_launch(g, "transpose_naive", dim2(div_up(c->cols, c->bx), div_up(c->rows, c->by)),
               dim2(c->bx, c->by), 0, args, 4);
    blob_add_dev(out, g, dout, bytes);
    gpu_finish(g, out);
    xfree(in);
}

static void transpose_naive_check(const transpose_case *c, const blob *out)
{
    size_t bytes = (size_t)c->rows * c->cols * 4;
    float *in = xmalloc(bytes), *want = xmalloc(bytes);
    transpose_naive_init(in, c->rows, c->cols, SEED);
    transpose_naive_ref(in, want, c->rows, c->cols);
    assert_int_equal(out->len, bytes);
    expect_f32_bits("transpose_naive out", (const float *)out->data, want, (size_t)c->rows * c->cols);
    xfree(in);
    xfree(want);
}

static void test_transpose_naive(void **state)
{
    (void)state;
    /* partial blocks in both dimensions; a 2D block that is not a multiple of 32 threads */
    static const transpose_case cases[] = {{37, 45, 16, 16}, {100, 33, 32, 8}, {50, 21, 5, 7}, {300, 200, 16, 16}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(transpose_naive_run, transpose_naive_check, &cases[i], "transpose_naive");
}

/* transpose_shared's block is fixed (32 x 8); bx and by are unused */
static void transpose_shared_run(const transpose_case *c, unsigned threads, blob *out)
{
    size_t bytes = (size_t)c->rows * c->cols * 4;
    float *in = xmalloc(bytes);
    transpose_shared_init(in, c->rows, c->cols, SEED);
    gpu *g = gpu_open("transpose_shared", threads);
    uint64_t din = gpu_alloc(g, "in", bytes, in, 0), dout = gpu_alloc(g, "out", bytes, NULL, 1);
    karg args[] = {A_PTR(din), A_PTR(dout), A_S32((int32_t)c->rows), A_S32((int32_t)c->cols)};
    gpu_launch(g, "transpose_shared",
               dim2(div_up(c->cols, TRANSPOSE_SHARED_TILE), div_up(c->rows, TRANSPOSE_SHARED_TILE)),
               dim2(TRANSPOSE_SHARED_TILE, TRANSPOSE_SHARED_ROWS), 0, args, 4);
    blob_add_dev(out, g, dout, bytes);
    gpu_finish(g, out);
    xfree(in);
}

static void transpose_shared_check(const transpose_case *c, const blob *out)
{
    size_t bytes = (size_t)c->rows * c->cols * 4;
    float *in = xmalloc(bytes), *want = xmalloc(bytes);
    transpose_shared_init(in, c->rows, c->cols, SEED);
    transpose_shared_ref(in, want, c->rows, c->cols);
    assert_int_equal(out->len, bytes);
    expect_f32_bits("transpose_shared out", (const float *)out->data, want, (size_t)c->rows * c->cols);
    xfree(in);
    xfree(want);
}

static void test_transpose_shared(void **state)
{
    (void)state;
    static const transpose_case cases[] = {{37, 45, 0, 0}, {70, 100, 0, 0}, {64, 32, 0, 0}, {300, 200, 0, 0}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(transpose_shared_run, transpose_shared_check, &cases[i], "transpose_shared");
}

/* ============================================================= histogram */

typedef struct histogram_case {
    unsigned n, block, max_blocks;
} histogram_case;

static void histogram_run(const histogram_case *c, unsigned threads, blob *out)
{
    uint8_t *data = xmalloc(c->n);
    histogram_init(data, c->n, SEED);
    unsigned grid = div_up(c->n, c->block);
    if (grid > c->max_blocks)
        grid = c->max_blocks;
    gpu *g = gpu_open("histogram", threads);
    uint64_t dd = gpu_alloc(g, "data", c->n, data, 0);
    uint64_t db = gpu_alloc(g, "bins", HISTOGRAM_BINS * 4, NULL, 0); /* cudaMemset(0) */
    karg args[] = {A_PTR(dd), A_U32(c->n), A_PTR(db)};
    gpu_launch(g, "histogram256", dim1(grid), dim1(c->block), 0, args, 3);
    blob_add_dev(out, g, db, HISTOGRAM_BINS * 4);
    gpu_finish(g, out);
    xfree(data);
}

static void histogram_check(const histogram_case *c, const blob *out)
{
    uint8_t *data = xmalloc(c->n);
    uint32_t want[HISTOGRAM_BINS];
    histogram_init(data, c->n, SEED);
    histogram_ref(data, c->n, want);
    assert_int_equal(out->len, sizeof(want));
    expect_u32("histogram bins", out->data, want, HISTOGRAM_BINS);
    xfree(data);
}

static void test_histogram(void **state)
{
    (void)state;
    /* one pass with a partial CTA; a grid-stride loop over 3 CTAs with a
     * ragged last stride; fewer threads than bins (the bin loops iterate) */
    static const histogram_case cases[] = {{1000, 128, 64}, {20000, 128, 3}, {77, 32, 64}, {200000, 256, 64}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        blob one = {0}, two = {0};
        histogram_run(&cases[i], 1, &one);
        histogram_check(&cases[i], &one);
        /* atomics: with two host threads the order of updates changes, the counts must not */
        histogram_run(&cases[i], 2, &two);
        histogram_check(&cases[i], &two);
        expect_same_runs("histogram", &one, &two);
        blob_free(&one);
        blob_free(&two);
    }
}

/* =================================================================== bfs */

typedef struct bfs_case {
    unsigned n, avg, block;
} bfs_case;

static void bfs_graph(const bfs_case *c, uint32_t **row_ptr, uint32_t **col_idx)
{
    *row_ptr = xmalloc(((size_t)c->n + 1) * 4);
    bfs_init_rows(*row_ptr, c->n, c->avg, SEED);
    *col_idx = xmalloc((size_t)(*row_ptr)[c->n] * 4);
    bfs_init_cols(*row_ptr, *col_idx, c->n, SEED);
}

static void bfs_run(const bfs_case *c, unsigned threads, blob *out)
{
    uint32_t *row_ptr, *col_idx;
    bfs_graph(c, &row_ptr, &col_idx);
    size_t edges = row_ptr[c->n];
    int32_t *level = xmalloc((size_t)c->n * 4);
    uint8_t *frontier = xmalloc(c->n);
    for (unsigned v = 0; v < c->n; v++) {
        level[v] = BFS_UNREACHED;
        frontier[v] = 0;
    }
    level[0] = 0;
    frontier[0] = 1;
    gpu *g = gpu_open("bfs", threads);
    uint64_t drow = gpu_alloc(g, "row_ptr", ((size_t)c->n + 1) * 4, row_ptr, 0);
    uint64_t dcol = gpu_alloc(g, "col_idx", (edges ? edges : 1) * 4, NULL, 0);
    memcpy(gpu_host(g, dcol, edges * 4), col_idx, edges * 4);
    uint64_t dlevel = gpu_alloc(g, "level", (size_t)c->n * 4, level, 0);
    uint64_t dfront = gpu_alloc(g, "frontier", c->n, frontier, 0);
    uint64_t dnext = gpu_alloc(g, "next_frontier", c->n, NULL, 0);
    uint64_t dchanged = gpu_alloc(g, "changed", 4, NULL, 0);
    unsigned grid = div_up(c->n, c->block);
    int32_t steps = 0;
    for (int32_t cur = 0;; ++cur) {
        assert_true(cur <= (int32_t)c->n); /* BFS takes at most n steps */
        memset(gpu_host(g, dnext, c->n), 0, c->n);
        memset(gpu_host(g, dchanged, 4), 0, 4);
        karg args[] = {A_PTR(drow), A_PTR(dcol), A_PTR(dfront), A_PTR(dnext), A_PTR(dlevel),
                       A_U32(c->n), A_S32(cur), A_PTR(dchanged)};
        gpu_launch(g, "bfs_level_step", dim1(grid), dim1(c->block), 0, args, 8);
        ++steps;
        uint32_t changed;
        gpu_read(g, dchanged, &changed, 4);
        assert_true(changed == 0 || changed == 1);
        if (!changed)
            break;
        uint64_t swap = dfront;
        dfront = dnext;
        dnext = swap;
    }
    blob_add_dev(out, g, dlevel, (size_t)c->n * 4);
    blob_add(out, &steps, 4);
    gpu_finish(g, out);
    xfree(row_ptr);
    xfree(col_idx);
    xfree(level);
    xfree(frontier);
}

static void bfs_check(const bfs_case *c, const blob *out)
{
    uint32_t *row_ptr, *col_idx;
    bfs_graph(c, &row_ptr, &col_idx);
    int32_t *want = xmalloc((size_t)c->n * 4);
    int want_steps = bfs_ref(row_ptr, col_idx, c->n, 0, want);
    assert_true(want_steps > 1); /* the graph is not trivial */
    assert_int_equal(out->len, (size_t)c->n * 4 + 4);
    expect_u32("bfs level", out->data, want, c->n);
    int32_t steps;
    memcpy(&steps, out->data + (size_t)c->n * 4, 4);
    assert_int_equal(steps, want_steps);
    xfree(row_ptr);
    xfree(col_idx);
    xfree(want);
}

static void test_bfs(void **state)
{
    (void)state;
    static const bfs_case cases[] = {{1000, 3, 128}, {333, 2, 64}, {20000, 3, 256}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        blob one = {0}, two = {0};
        bfs_run(&cases[i], 1, &one);
        bfs_check(&cases[i], &one);
        bfs_run(&cases[i], 2, &two);
        expect_same_runs_racy("bfs", &one, &two, 1);
        blob_free(&one);
        blob_free(&two);
    }
}

/* ==================================================================== nw */

typedef struct nw_case {
    unsigned m, n;
    int gap;
} nw_case;

static void nw_run(const nw_case *c, unsigned threads, blob *out)
{
    size_t cells = (size_t)(c->m + 1) * (c->n + 1);
    uint8_t *a = xmalloc(c->m), *b = xmalloc(c->n);
    int32_t *score = xcalloc(cells, 4);
    nw_init(a, c->m, b, c->n, SEED);
    nw_init_borders(score, c->m, c->n, c->gap);
    gpu *g = gpu_open("nw", threads);
    uint64_t dscore = gpu_alloc(g, "score", cells * 4, score, 0);
    uint64_t da = gpu_alloc(g, "seq_a", c->m, a, 0), db = gpu_alloc(g, "seq_b", c->n, b, 0);
    int tiles_m = (int)div_up(c->m, NW_TILE), tiles_n = (int)div_up(c->n, NW_TILE);
    for (int d = 0; d < tiles_m + tiles_n - 1; ++d) {
        int first = d - (tiles_n - 1) > 0 ? d - (tiles_n - 1) : 0;
        int last = d < tiles_m - 1 ? d : tiles_m - 1;
        karg args[] = {A_PTR(dscore), A_PTR(da), A_PTR(db), A_S32((int32_t)c->m), A_S32((int32_t)c->n),
                       A_S32(c->gap), A_S32(d), A_S32(first)};
        gpu_launch(g, "nw_tile_wavefront", dim1((uint32_t)(last - first + 1)), dim1(NW_TILE), 0, args, 8);
    }
    assert_int_equal(g->launches, (unsigned)(tiles_m + tiles_n - 1));
    blob_add_dev(out, g, dscore, cells * 4);
    gpu_finish(g, out);
    xfree(a);
    xfree(b);
    xfree(score);
}

static void nw_check(const nw_case *c, const blob *out)
{
    size_t cells = (size_t)(c->m + 1) * (c->n + 1);
    uint8_t *a = xmalloc(c->m), *b = xmalloc(c->n);
    int32_t *want = xmalloc(cells * 4);
    nw_init(a, c->m, b, c->n, SEED);
    nw_ref(a, c->m, b, c->n, c->gap, want);
    assert_int_equal(out->len, cells * 4);
    expect_u32("nw score", out->data, want, cells);
    xfree(a);
    xfree(b);
    xfree(want);
}

static void test_nw(void **state)
{
    (void)state;
    /* partial tiles in both dimensions (2x2 and 3x2 tiles); one partial tile */
    static const nw_case cases[] = {{37, 45, 2}, {70, 33, 3}, {20, 9, 1}, {200, 150, 2}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(nw_run, nw_check, &cases[i], "nw");
}

/* ================================================================ kmeans */

typedef struct kmeans_case {
    unsigned npoints, nclusters, nfeatures, block;
} kmeans_case;

static void kmeans_run(const kmeans_case *c, unsigned threads, blob *out)
{
    size_t pb = (size_t)c->npoints * c->nfeatures * 4, cb = (size_t)c->nclusters * c->nfeatures * 4;
    float *points = xmalloc(pb), *centroids = xmalloc(cb);
    kmeans_init(points, centroids, c->npoints, c->nclusters, c->nfeatures, SEED);
    gpu *g = gpu_open("kmeans", threads);
    uint64_t dp = gpu_alloc(g, "points", pb, points, 0), dc = gpu_alloc(g, "centroids", cb, centroids, 0);
    uint64_t dm = gpu_alloc(g, "membership", (size_t)c->npoints * 4, NULL, 1);
    uint64_t dd = gpu_alloc(g, "distance", (size_t)c->npoints * 4, NULL, 1);
    karg args[] = {A_PTR(dp), A_PTR(dc), A_PTR(dm), A_PTR(dd), A_S32((int32_t)c->npoints),
                   A_S32((int32_t)c->nclusters), A_S32((int32_t)c->nfeatures)};
    gpu_launch(g, "kmeans_assign", dim1(div_up(c->npoints, c->block)), dim1(c->block), 0, args, 7);
    blob_add_dev(out, g, dm, (size_t)c->npoints * 4);
    blob_add_dev(out, g, dd, (size_t)c->npoints * 4);
    gpu_finish(g, out);
    xfree(points);
    xfree(centroids);
}

static void kmeans_check(const kmeans_case *c, const blob *out)
{
    size_t pb = (size_t)c->npoints * c->nfeatures * 4, cb = (size_t)c->nclusters * c->nfeatures * 4;
    float *points = xmalloc(pb), *centroids = xmalloc(cb), *dist = xmalloc((size_t)c->npoints * 4);
    int32_t *memb = xmalloc((size_t)c->npoints * 4);
    kmeans_init(points, centroids, c->npoints, c->nclusters, c->nfeatures, SEED);
    kmeans_ref(points, centroids, memb, dist, c->npoints, c->nclusters, c->nfeatures);
    assert_int_equal(out->len, (size_t)c->npoints * 8);
    expect_u32("kmeans membership", out->data, memb, c->npoints);
    expect_f32_bits("kmeans distance", (const float *)(out->data + (size_t)c->npoints * 4), dist,
                    c->npoints);
    /* the data has real clusters: more than one centroid wins */
    int32_t first = memb[0];
    int varied = 0;
    for (unsigned p = 0; p < c->npoints; p++)
        varied |= memb[p] != first;
    assert_true(varied);
    xfree(points);
    xfree(centroids);
    xfree(dist);
    xfree(memb);
}

static void test_kmeans(void **state)
{
    (void)state;
    static const kmeans_case cases[] = {{1000, 5, 8, 128}, {333, 3, 2, 64}, {10000, 5, 8, 128}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(kmeans_run, kmeans_check, &cases[i], "kmeans");
}

/* ============================================================= stencil2d */

typedef struct stencil_case {
    unsigned nx, ny, iters, bx, by;
} stencil_case;

static void stencil2d_run(const stencil_case *c, unsigned threads, blob *out)
{
    size_t bytes = (size_t)c->nx * c->ny * 4;
    float *grid0 = xmalloc(bytes);
    stencil2d_init(grid0, c->nx, c->ny, SEED);
    gpu *g = gpu_open("stencil2d", threads);
    uint64_t da = gpu_alloc(g, "a", bytes, grid0, 0), db = gpu_alloc(g, "b", bytes, NULL, 1);
    mb_dim3 blocks = dim2(div_up(c->nx, c->bx), div_up(c->ny, c->by));
    for (unsigned it = 0; it < c->iters; ++it) {
        karg args[] = {A_PTR(da), A_PTR(db), A_S32((int32_t)c->nx), A_S32((int32_t)c->ny)};
        gpu_launch(g, "jacobi5", blocks, dim2(c->bx, c->by), 0, args, 4);
        uint64_t swap = da;
        da = db;
        db = swap;
    }
    blob_add_dev(out, g, da, bytes);
    gpu_finish(g, out);
    xfree(grid0);
}

static void stencil2d_check(const stencil_case *c, const blob *out)
{
    size_t bytes = (size_t)c->nx * c->ny * 4;
    float *grid0 = xmalloc(bytes), *scratch = xmalloc(bytes);
    stencil2d_init(grid0, c->nx, c->ny, SEED);
    const float *want = stencil2d_ref(grid0, scratch, c->nx, c->ny, c->iters);
    assert_int_equal(out->len, bytes);
    expect_f32_bits("stencil2d grid", (const float *)out->data, want, (size_t)c->nx * c->ny);
    xfree(grid0);
    xfree(scratch);
}

static void test_stencil2d(void **state)
{
    (void)state;
    /* partial blocks in x and y; an odd number of iterations (result in the
     * second buffer's role); a block shape that is not a multiple of 32 */
    static const stencil_case cases[] = {{37, 29, 4, 16, 16}, {50, 20, 3, 8, 4}, {19, 23, 2, 7, 5}, {130, 100, 10, 16, 16}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(stencil2d_run, stencil2d_check, &cases[i], "stencil2d");
}

/* ========================================================== blackscholes */

typedef struct bs_case {
    unsigned n, block;
} bs_case;

static const float bs_rate = 0.02f, bs_vol = 0.30f;

static void blackscholes_run(const bs_case *c, unsigned threads, blob *out)
{
    size_t bytes = (size_t)c->n * 4;
    float *s = xmalloc(bytes), *x = xmalloc(bytes), *t = xmalloc(bytes);
    blackscholes_init(s, x, t, c->n, SEED);
    gpu *g = gpu_open("blackscholes", threads);
    uint64_t ds = gpu_alloc(g, "spot", bytes, s, 0), dx = gpu_alloc(g, "strike", bytes, x, 0);
    uint64_t dt = gpu_alloc(g, "years", bytes, t, 0);
    uint64_t dcall = gpu_alloc(g, "call", bytes, NULL, 1), dput = gpu_alloc(g, "put", bytes, NULL, 1);
    karg args[] = {A_PTR(ds), A_PTR(dx), A_PTR(dt), A_PTR(dcall), A_PTR(dput), A_S32((int32_t)c->n),
                   A_F32(bs_rate), A_F32(bs_vol)};
    gpu_launch(g, "black_scholes", dim1(div_up(c->n, c->block)), dim1(c->block), 0, args, 8);
    blob_add_dev(out, g, dcall, bytes);
    blob_add_dev(out, g, dput, bytes);
    gpu_finish(g, out);
    xfree(s);
    xfree(x);
    xfree(t);
}

static void blackscholes_check(const bs_case *c, const blob *out)
{
    size_t bytes = (size_t)c->n * 4;
    float *s = xmalloc(bytes), *x = xmalloc(bytes), *t = xmalloc(bytes);
    float *call = xmalloc(bytes), *put = xmalloc(bytes);
    blackscholes_init(s, x, t, c->n, SEED);
    blackscholes_ref(s, x, t, call, put, c->n, bs_rate, bs_vol);
    assert_int_equal(out->len, 2 * bytes);
    const float *got[2] = {(const float *)out->data, (const float *)(out->data + bytes)};
    const float *want[2] = {call, put};
    size_t bad = 0;
    float max_err = 0;
    for (int k = 0; k < 2; k++)
        for (unsigned i = 0; i < c->n; i++) {
            float err = fabsf(got[k][i] - want[k][i]) / fmaxf(1.0f, fabsf(want[k][i]));
            if (!(err <= BLACKSCHOLES_TOLERANCE) && bad++ < 5)
                print_message("blackscholes %s[%u]: got %.9g, expected %.9g\n", k ? "put" : "call",
                              i, got[k][i], want[k][i]);
            if (err > max_err)
                max_err = err;
        }
    if (bad)
        fail_msg("blackscholes: %zu prices outside the tolerance %g (max scaled error %g)", bad,
                 (double)BLACKSCHOLES_TOLERANCE, (double)max_err);
    xfree(s);
    xfree(x);
    xfree(t);
    xfree(call);
    xfree(put);
}

static void test_blackscholes(void **state)
{
    (void)state;
    static const bs_case cases[] = {{1000, 128}, {333, 64}, {50000, 128}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(blackscholes_run, blackscholes_check, &cases[i], "blackscholes");
}

/* ============================================================= nbody_f64 */

typedef struct nbody_case {
    unsigned n;
} nbody_case;

static const double nbody_softening2 = 1e-4;

static void nbody_run(const nbody_case *c, unsigned threads, blob *out)
{
    size_t bytes = (size_t)c->n * 8;
    double *h[4];
    for (int a = 0; a < 4; a++)
        h[a] = xmalloc(bytes);
    nbody_f64_init(h[0], h[1], h[2], h[3], c->n, SEED);
    gpu *g = gpu_open("nbody_f64", threads);
    static const char *const names[7] = {"x", "y", "z", "mass", "ax", "ay", "az"};
    uint64_t d[7];
    for (int a = 0; a < 7; a++)
        d[a] = gpu_alloc(g, names[a], bytes, a < 4 ? h[a] : NULL, 1);
    karg args[] = {A_PTR(d[0]), A_PTR(d[1]), A_PTR(d[2]), A_PTR(d[3]), A_PTR(d[4]),
                   A_PTR(d[5]), A_PTR(d[6]), A_S32((int32_t)c->n), A_F64(nbody_softening2)};
    gpu_launch(g, "nbody_accel_f64", dim1(div_up(c->n, NBODY_F64_BLOCK)), dim1(NBODY_F64_BLOCK), 0,
               args, 9);
    for (int a = 4; a < 7; a++)
        blob_add_dev(out, g, d[a], bytes);
    gpu_finish(g, out);
    for (int a = 0; a < 4; a++)
        xfree(h[a]);
}

static void nbody_check(const nbody_case *c, const blob *out)
{
    size_t bytes = (size_t)c->n * 8;
    double *h[7];
    for (int a = 0; a < 7; a++)
        h[a] = xmalloc(bytes);
    nbody_f64_init(h[0], h[1], h[2], h[3], c->n, SEED);
    nbody_f64_ref(h[0], h[1], h[2], h[3], h[4], h[5], h[6], c->n, nbody_softening2);
    assert_int_equal(out->len, 3 * bytes);
    static const char *const names[3] = {"nbody ax", "nbody ay", "nbody az"};
    for (int a = 0; a < 3; a++)
        expect_f64_bits(names[a], (const double *)(out->data + a * bytes), h[4 + a], c->n);
    for (int a = 0; a < 7; a++)
        xfree(h[a]);
}

static void test_nbody_f64(void **state)
{
    (void)state;
    /* two CTAs with a partial last tile; a single partial CTA */
    static const nbody_case cases[] = {{150}, {77}, {1000}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(nbody_run, nbody_check, &cases[i], "nbody_f64");
}

/* =============================================================== devfunc */

typedef struct devfunc_case {
    unsigned n, base, rounds, block;
} devfunc_case;

static void devfunc_run(const devfunc_case *c, unsigned threads, blob *out)
{
    size_t bytes = (size_t)c->n * 4;
    uint32_t *in = xmalloc(bytes);
    devfunc_init(in, c->n, SEED);
    gpu *g = gpu_open("devfunc", threads);
    uint64_t din = gpu_alloc(g, "in", bytes, in, 0), dout = gpu_alloc(g, "out", bytes, NULL, 1);
    karg args[] = {A_PTR(din), A_PTR(dout), A_U32(c->n), A_U32(c->base), A_U32(c->rounds)};
    gpu_launch(g, "digit_sums", dim1(div_up(c->n, c->block)), dim1(c->block), 0, args, 5);
    blob_add_dev(out, g, dout, bytes);
    gpu_finish(g, out);
    xfree(in);
}

static void devfunc_check(const devfunc_case *c, const blob *out)
{
    size_t bytes = (size_t)c->n * 4;
    uint32_t *in = xmalloc(bytes), *want = xmalloc(bytes);
    devfunc_init(in, c->n, SEED);
    devfunc_ref(in, want, c->n, c->base, c->rounds);
    assert_int_equal(out->len, bytes);
    expect_u32("devfunc out", out->data, want, c->n);
    xfree(in);
    xfree(want);
}

static void test_devfunc(void **state)
{
    (void)state;
    /* base 10; base 7 with a partial warp; a base above 2^31 (one or two digits) */
    static const devfunc_case cases[] = {{1000, 10, 4, 128}, {333, 7, 3, 64}, {100, 0x80000001u, 2, 32}, {20000, 10, 4, 128}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(devfunc_run, devfunc_check, &cases[i], "devfunc");
}

/* =========================================================== warp_reduce */

typedef struct warp_case {
    unsigned n, block;
} warp_case;

static void warp_reduce_run(const warp_case *c, unsigned threads, blob *out)
{
    size_t warps = warp_reduce_warps(c->n);
    int32_t *in = xmalloc((size_t)c->n * 4);
    warp_reduce_init(in, c->n, SEED);
    gpu *g = gpu_open("warp_reduce", threads);
    uint64_t din = gpu_alloc(g, "in", (size_t)c->n * 4, in, 0);
    static const char *const names[4] = {"sum", "max", "ballot", "flags"};
    uint64_t d[4];
    for (int k = 0; k < 4; k++)
        d[k] = gpu_alloc(g, names[k], warps * 4, NULL, 1);
    karg args[] = {A_PTR(din), A_PTR(d[0]), A_PTR(d[1]), A_PTR(d[2]), A_PTR(d[3]), A_U32(c->n)};
    gpu_launch(g, "warp_stats", dim1(div_up(c->n, c->block)), dim1(c->block), 0, args, 6);
    for (int k = 0; k < 4; k++)
        blob_add_dev(out, g, d[k], warps * 4);
    gpu_finish(g, out);
    xfree(in);
}

static void warp_reduce_check(const warp_case *c, const blob *out)
{
    size_t warps = warp_reduce_warps(c->n);
    int32_t *in = xmalloc((size_t)c->n * 4), *sum = xmalloc(warps * 4), *mx = xmalloc(warps * 4);
    uint32_t *ballot = xmalloc(warps * 4), *flags = xmalloc(warps * 4);
    warp_reduce_init(in, c->n, SEED);
    warp_reduce_ref(in, c->n, sum, mx, ballot, flags);
    assert_int_equal(out->len, warps * 16);
    expect_u32("warp_reduce sum", out->data, sum, warps);
    expect_u32("warp_reduce max", out->data + warps * 4, mx, warps);
    expect_u32("warp_reduce ballot", out->data + warps * 8, ballot, warps);
    expect_u32("warp_reduce flags", out->data + warps * 12, flags, warps);
    xfree(in);
    xfree(sum);
    xfree(mx);
    xfree(ballot);
    xfree(flags);
}

static void test_warp_reduce(void **state)
{
    (void)state;
    /* 1000 = 31 full warps + 8 lanes; 77 = 2 warps + 13 lanes in a 64-thread CTA grid */
    static const warp_case cases[] = {{1000, 128}, {77, 64}, {4096, 1024}, {10000, 128}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(warp_reduce_run, warp_reduce_check, &cases[i], "warp_reduce");
}

/* =========================================================== local_array */

typedef struct local_case {
    unsigned n, window, block;
} local_case;

static void local_array_run(const local_case *c, unsigned threads, blob *out)
{
    size_t in_bytes = (size_t)c->n * c->window * 4, out_bytes = (size_t)c->n * 4;
    uint32_t *in = xmalloc(in_bytes);
    local_array_init(in, c->n, c->window, SEED);
    gpu *g = gpu_open("local_array", threads);
    uint64_t din = gpu_alloc(g, "in", in_bytes, in, 0);
    uint64_t dmode = gpu_alloc(g, "mode", out_bytes, NULL, 1), dcount = gpu_alloc(g, "count", out_bytes, NULL, 1);
    karg args[] = {A_PTR(din), A_PTR(dmode), A_PTR(dcount), A_U32(c->n), A_U32(c->window)};
    gpu_launch(g, "local_mode", dim1(div_up(c->n, c->block)), dim1(c->block), 0, args, 5);
    blob_add_dev(out, g, dmode, out_bytes);
    blob_add_dev(out, g, dcount, out_bytes);
    gpu_finish(g, out);
    xfree(in);
}

static void local_array_check(const local_case *c, const blob *out)
{
    size_t in_bytes = (size_t)c->n * c->window * 4, out_bytes = (size_t)c->n * 4;
    uint32_t *in = xmalloc(in_bytes), *mode = xmalloc(out_bytes), *count = xmalloc(out_bytes);
    local_array_init(in, c->n, c->window, SEED);
    local_array_ref(in, mode, count, c->n, c->window);
    assert_int_equal(out->len, 2 * out_bytes);
    expect_u32("local_array mode", out->data, mode, c->n);
    expect_u32("local_array count", out->data + out_bytes, count, c->n);
    xfree(in);
    xfree(mode);
    xfree(count);
}

static void test_local_array(void **state)
{
    (void)state;
    static const local_case cases[] = {{1000, 16, 128}, {333, 40, 64}, {5000, 64, 128}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(local_array_run, local_array_check, &cases[i], "local_array");
}

/* ============================================================== tid_loop */

typedef struct tid_case {
    unsigned n, block;
} tid_case;

static void tid_loop_run(const tid_case *c, unsigned threads, blob *out)
{
    size_t bytes = (size_t)c->n * 4;
    uint32_t *in = xmalloc(bytes);
    tid_loop_init(in, c->n, SEED);
    gpu *g = gpu_open("tid_loop", threads);
    uint64_t din = gpu_alloc(g, "in", bytes, in, 0), dout = gpu_alloc(g, "out", bytes, NULL, 1);
    karg args[] = {A_PTR(din), A_PTR(dout), A_U32(c->n)};
    gpu_launch(g, "tid_dependent_loop", dim1(div_up(c->n, c->block)), dim1(c->block), 0, args, 3);
    blob_add_dev(out, g, dout, bytes);
    gpu_finish(g, out);
    xfree(in);
}

static void tid_loop_check(const tid_case *c, const blob *out)
{
    size_t bytes = (size_t)c->n * 4;
    uint32_t *in = xmalloc(bytes), *want = xmalloc(bytes);
    tid_loop_init(in, c->n, SEED);
    tid_loop_ref(in, want, c->n, c->block);
    assert_int_equal(out->len, bytes);
    expect_u32("tid_loop out", out->data, want, c->n);
    xfree(in);
    xfree(want);
}

static void test_tid_loop(void **state)
{
    (void)state;
    /* block 50: every CTA ends in a partial warp; block 7: one lane of each trip count */
    static const tid_case cases[] = {{1000, 128}, {333, 50}, {40, 7}, {10000, 128}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(tid_loop_run, tid_loop_check, &cases[i], "tid_loop");
}

/* ========================================================== nested_loops */

typedef struct nested_case {
    unsigned n, ntaps, block, tiles;
} nested_case;

static void nested_loops_run(const nested_case *c, unsigned threads, blob *out)
{
    size_t in_len = nested_loops_input_len(c->n, c->ntaps);
    float *in = xmalloc(in_len * 4), *taps = xmalloc((size_t)c->ntaps * 4);
    nested_loops_init(in, taps, c->n, c->ntaps, SEED);
    gpu *g = gpu_open("nested_loops", threads);
    uint64_t din = gpu_alloc(g, "in", in_len * 4, in, 0);
    uint64_t dtaps = gpu_alloc(g, "taps", (size_t)c->ntaps * 4, taps, 0);
    uint64_t dout = gpu_alloc(g, "out", (size_t)c->n * 4, NULL, 1);
    unsigned grid = div_up(c->n, (size_t)c->tiles * 2 * c->block);
    uint32_t shared = (uint32_t)(((size_t)c->ntaps + 2 * c->block + c->ntaps - 1) * 4);
    karg args[] = {A_PTR(din), A_PTR(dtaps), A_PTR(dout), A_S32((int32_t)c->n),
                   A_S32((int32_t)c->ntaps), A_S32((int32_t)c->tiles)};
    gpu_launch(g, "conv1d_blocked", dim1(grid), dim1(c->block), shared, args, 6);
    blob_add_dev(out, g, dout, (size_t)c->n * 4);
    gpu_finish(g, out);
    xfree(in);
    xfree(taps);
}

static void nested_loops_check(const nested_case *c, const blob *out)
{
    size_t in_len = nested_loops_input_len(c->n, c->ntaps);
    float *in = xmalloc(in_len * 4), *taps = xmalloc((size_t)c->ntaps * 4);
    float *want = xmalloc((size_t)c->n * 4);
    nested_loops_init(in, taps, c->n, c->ntaps, SEED);
    nested_loops_ref(in, taps, want, c->n, c->ntaps);
    assert_int_equal(out->len, (size_t)c->n * 4);
    expect_f32_bits("nested_loops out", (const float *)out->data, want, c->n);
    xfree(in);
    xfree(taps);
    xfree(want);
}

static void test_nested_loops(void **state)
{
    (void)state;
    /* one CTA with 4 tiles (last partial); 8 CTAs where the last CTA breaks
     * out of its tile loop early; more taps than threads (the taps loop iterates) */
    static const nested_case cases[] = {{1000, 15, 128, 4}, {3000, 7, 64, 3}, {333, 40, 32, 2}, {5000, 15, 128, 4}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        RUN_BOTH(nested_loops_run, nested_loops_check, &cases[i], "nested_loops");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_vecadd, teardown),
        cmocka_unit_test_teardown(test_matmul, teardown),
        cmocka_unit_test_teardown(test_reduce_conflict, teardown),
        cmocka_unit_test_teardown(test_reduce_seq, teardown),
        cmocka_unit_test_teardown(test_transpose_naive, teardown),
        cmocka_unit_test_teardown(test_transpose_shared, teardown),
        cmocka_unit_test_teardown(test_histogram, teardown),
        cmocka_unit_test_teardown(test_bfs, teardown),
        cmocka_unit_test_teardown(test_nw, teardown),
        cmocka_unit_test_teardown(test_kmeans, teardown),
        cmocka_unit_test_teardown(test_stencil2d, teardown),
        cmocka_unit_test_teardown(test_blackscholes, teardown),
        cmocka_unit_test_teardown(test_nbody_f64, teardown),
        cmocka_unit_test_teardown(test_devfunc, teardown),
        cmocka_unit_test_teardown(test_warp_reduce, teardown),
        cmocka_unit_test_teardown(test_local_array, teardown),
        cmocka_unit_test_teardown(test_tid_loop, teardown),
        cmocka_unit_test_teardown(test_nested_loops, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
