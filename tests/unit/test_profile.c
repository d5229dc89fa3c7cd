/* The profiler: DFSG counts, loops, branches, memory statistics, affine
 * models and conservation laws, on hand-made kernels with hand-computed
 * expectations and on every example. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/dfsg.h>
#include <minibench/profiler.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile_fixture.h"

#define HEADER ".version 8.8\n.target sm_75\n.address_size 64\n"

static json_t *kernel_json(const profiled *r)
{
    return json_array_get(json_object_get(r->json, "functions"), 0);
}

static uint64_t jget(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        fail_msg("missing integer '%s'", key);
    return (uint64_t)json_integer_value(v);
}

static int json_list_has(json_t *list, const char *s)
{
    for (size_t i = 0; i < json_array_size(list); i++)
        if (strcmp(json_string_value(json_array_get(list, i)), s) == 0)
            return 1;
    return 0;
}

/* The largest value with a non-zero count. */
static uint64_t hist_max(json_t *hist)
{
    uint64_t max = 0;
    const char *key;
    json_t *v;
    json_object_foreach(hist, key, v)
    {
        uint64_t k = strtoull(key, NULL, 10);
        if (json_integer_value(v) > 0 && k > max)
            max = k;
    }
    return max;
}

static uint64_t hist_count(json_t *hist, uint64_t value)
{
    char key[32];
    snprintf(key, sizeof(key), "%llu", (unsigned long long)value);
    json_t *v = json_object_get(hist, key);
    return v ? (uint64_t)json_integer_value(v) : 0;
}

/* Every conservation law of the DFSG (docs/formats.md). */
static void check_conservation(const mb_profile *p, uint64_t threads)
{
    for (uint32_t i = 0; i < mb_profile_nfuncs(p); i++) {
        const mb_func_profile *fp = mb_profile_func(p, i);
        int n = fp->cfg->nblocks;
        uint64_t *in = calloc((size_t)n, sizeof(uint64_t)), *out = calloc((size_t)n, sizeof(uint64_t));
        for (uint32_t e = 0; e < fp->nedges; e++) {
            in[fp->edges[e].to] += fp->edges[e].count;
            out[fp->edges[e].from] += fp->edges[e].count;
            assert_true(fp->edges[e].threads <= fp->edges[e].count);
        }
        if (i == 0)
            assert_int_equal(fp->blocks[0].ecount - in[0], threads); /* entry ECount = threads */
        for (int b = 0; b < n; b++) {
            const mb_block_profile *bp = &fp->blocks[b];
            if (bp->ecount != in[b] + bp->entries)
                fail_msg("%s block %d: ECount %llu != in-edges %llu + entries %llu", fp->fn->name, b,
                         (unsigned long long)bp->ecount, (unsigned long long)in[b],
                         (unsigned long long)bp->entries);
            if (bp->ecount != out[b] + bp->exits)
                fail_msg("%s block %d: ECount %llu != out-edges %llu + exits %llu", fp->fn->name, b,
                         (unsigned long long)bp->ecount, (unsigned long long)out[b],
                         (unsigned long long)bp->exits);
            assert_true(bp->threads <= bp->ecount);
            assert_true(bp->lcount <= bp->ecount);
        }
        free(in);
        free(out);
    }
}

/* Thread instructions of the instruction mix, over every function: the
 * executor's count, since the mix counts each instruction's active lanes. */
static void check_mix_total(const profiled *r)
{
    json_t *fns = json_object_get(r->json, "functions");
    uint64_t total = 0;
    for (size_t i = 0; i < json_array_size(fns); i++) {
        json_t *classes = json_object_get(json_object_get(json_array_get(fns, i), "instruction_mix"), "classes");
        const char *key;
        json_t *v;
        json_object_foreach(classes, key, v)
        {
            (void)key;
            total += (uint64_t)json_integer_value(v);
        }
    }
    assert_int_equal(total, r->stats.thread_insts);
}

/* The MiniBench paper's k-means example: 57,600 threads of which 51,200 take a branch. */
/* A kernel whose threads below n store their index: a guarded store. */
#define GUARDED_STORE_KERNEL(NAME)                                                                \
    ".visible .entry " NAME "(.param .u64 out, .param .u32 n)\n{\n"                              \
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n"                            \
    "\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r1, [n];\n"                                   \
    "\tmov.u32 %r2, %ctaid.x;\n\tmov.u32 %r3, %ntid.x;\n\tmov.u32 %r4, %tid.x;\n"               \
    "\tmad.lo.s32 %r5, %r2, %r3, %r4;\n"                                                         \
    "\tsetp.ge.s32 %p1, %r5, %r1;\n"                                                             \
    "\t@%p1 bra $L_skip;\n"                                                                       \
    "\tmul.wide.s32 %rd2, %r5, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r5;\n" \
    "$L_skip:\n\tret;\n}\n"

static const char *branch_ptx = HEADER GUARDED_STORE_KERNEL("k");

static void test_branch_counts(void **state)
{
    (void)state;
    profiled r;
    profile_text(&r, branch_ptx, "branch.ptx",
                 "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 57600}},"
                 " \"launches\": [{\"kernel\": \"k\", \"grid\": 225, \"block\": 256, \"args\": [\"o\", 51200]}]}",
                 0);
    const mb_func_profile *fp = mb_profile_func(r.p, 0);
    assert_int_equal(fp->cfg->nblocks, 3);
    assert_int_equal(fp->blocks[0].ecount, 57600);
    assert_int_equal(fp->blocks[0].threads, 57600);
    assert_int_equal(fp->blocks[1].ecount, 51200); /* fall-through: threads below n */
    assert_int_equal(fp->blocks[2].ecount, 57600);
    assert_int_equal(fp->edges[0].count, 51200);   /* 0 -> 1 (fall-through first) */
    assert_int_equal(fp->edges[0].threads, 51200);
    assert_int_equal(fp->edges[1].count, 6400);    /* 0 -> 2 (taken) */
    check_conservation(r.p, 57600);
    json_t *br = json_array_get(json_object_get(kernel_json(&r), "branches"), 0);
    assert_int_equal(jget(br, "taken_threads"), 6400);
    assert_int_equal(jget(br, "not_taken_threads"), 51200);
    assert_int_equal(jget(br, "warp_execs"), 1800);
    assert_int_equal(jget(br, "diverged_warp_execs"), 0); /* 51200 is a multiple of 32 */
    assert_string_equal(json_string_value(json_object_get(br, "condition")), "thread/cta id");
    /* the store is affine: out + 4*tid.x + 1024*ctaid.x */
    json_t *mem = json_array_get(json_object_get(kernel_json(&r), "memory"), 0);
    json_t *aff = json_object_get(mem, "affine");
    assert_true(json_is_true(json_object_get(aff, "exact")));
    json_t *terms = json_object_get(aff, "terms");
    assert_int_equal(json_integer_value(json_object_get(terms, "tid.x")), 4);
    assert_int_equal(json_integer_value(json_object_get(terms, "ctaid.x")), 1024);
    assert_string_equal(json_string_value(json_object_get(json_object_get(mem, "base"), "kind")), "parameter");
    assert_int_equal(hist_count(json_object_get(mem, "sectors_per_request"), 4), 1600);
    assert_int_equal(hist_count(json_object_get(mem, "lines_per_request"), 1), 1600);
    profiled_free(&r);
}

/* A loop with trip count tid % 7 + 1 whose body reads a shared array with a
 * stride chosen per launch, and an inner loop whose exit depends on data. */
#define LOOPS_KERNEL(name) \
    ".visible .entry " name "(.param .u64 out, .param .u64 data, .param .u32 stride)\n{\n" \
    "\t.reg .pred %p<4>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n" \
    "\t.shared .align 4 .b8 sm[4096];\n" \
    "\tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd5, [data];\n\tld.param.u32 %r10, [stride];\n" \
    "\tmov.u32 %r1, %tid.x;\n" \
    "\trem.u32 %r2, %r1, 7;\n\tadd.s32 %r2, %r2, 1;\n" \
    "\tmov.u32 %r3, 0;\n\tmov.u32 %r4, 0;\n" \
    "\tmul.lo.s32 %r11, %r1, %r10;\n\tand.b32 %r11, %r11, 1023;\n\tshl.b32 %r11, %r11, 2;\n" \
    "\tmov.u32 %r12, sm;\n\tadd.s32 %r12, %r12, %r11;\n" \
    "$L_outer:\n" \
    "\tld.shared.u32 %r13, [%r12];\n" \
    "\tadd.s32 %r4, %r4, %r13;\n" \
    "\tmul.wide.u32 %rd6, %r1, 4;\n\tadd.s64 %rd7, %rd5, %rd6;\n" \
    "\tld.global.u32 %r5, [%rd7];\n" /* data-dependent inner trip count */ \
    "$L_inner:\n" \
    "\tadd.s32 %r4, %r4, 1;\n\tadd.s32 %r5, %r5, -1;\n" \
    "\tsetp.gt.s32 %p2, %r5, 0;\n\t@%p2 bra $L_inner;\n" \
    "\tadd.s32 %r3, %r3, 1;\n\tsetp.lt.u32 %p1, %r3, %r2;\n\t@%p1 bra $L_outer;\n" \
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r4;\n" \
    "\tret;\n}\n"

static const char *loops_ptx = HEADER LOOPS_KERNEL("k");

static json_t *loop_with_kind(json_t *kernel, const char *kind)
{
    json_t *loops = json_object_get(kernel, "loops");
    for (size_t i = 0; i < json_array_size(loops); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(loops, i), "kind")), kind) == 0)
            return json_array_get(loops, i);
    fail_msg("no %s loop", kind);
    return NULL;
}

static json_t *memory_op(json_t *kernel, const char *op)
{
    json_t *mem = json_object_get(kernel, "memory");
    for (size_t i = 0; i < json_array_size(mem); i++)
        if (strcmp(json_string_value(json_object_get(json_array_get(mem, i), "op")), op) == 0)
            return json_array_get(mem, i);
    fail_msg("no memory instruction %s", op);
    return NULL;
}

static void run_loops(profiled *r, unsigned stride)
{
    char manifest[600];
    snprintf(manifest, sizeof(manifest),
             "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 64},"
             " \"d\": {\"type\": \"u32\", \"count\": 64, \"init\": {\"kind\": \"sequence\", \"start\": 1, \"step\": 0}}},"
             " \"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 64, \"args\": [\"o\", \"d\", %u]}]}",
             stride);
    profile_text(r, loops_ptx, "loops.ptx", manifest, 0);
}

static void test_loops_and_banks(void **state)
{
    (void)state;
    static const struct {
        unsigned stride, degree;
    } cases[] = {{1, 1}, {2, 2}, {32, 32}, {0, 1}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        profiled r;
        run_loops(&r, cases[c].stride);
        json_t *k = kernel_json(&r);
        check_conservation(r.p, 64);
        /* outer loop: trip counts tid % 7 + 1 for 64 threads */
        json_t *outer = loop_with_kind(k, "nested");
        json_t *trips = json_object_get(outer, "trip_counts");
        for (unsigned t = 1; t <= 7; t++) {
            unsigned expect = 0;
            for (unsigned tid = 0; tid < 64; tid++)
                expect += tid % 7 + 1 == t;
            assert_int_equal(hist_count(trips, t), expect);
        }
        assert_int_equal(jget(outer, "activations"), 64);
        assert_int_equal(jget(outer, "warp_activations"), 2);
        assert_int_equal(jget(outer, "warp_activations_with_differing_trips"), 2);
        json_t *dep = json_object_get(outer, "trip_count_depends_on");
        assert_true(json_list_has(dep, "thread id"));
        assert_false(json_list_has(dep, "data"));
        /* inner self-loop: the data is 1 everywhere, so one trip per activation */
        json_t *inner = loop_with_kind(k, "self");
        assert_int_equal(hist_count(json_object_get(inner, "trip_counts"), 1), jget(inner, "activations"));
        assert_true(json_list_has(json_object_get(inner, "trip_count_depends_on"), "data"));
        /* bank conflicts of the shared load: full-warp requests (the first
         * iteration) have the stride's degree; later iterations run with
         * fewer lanes and can only have less */
        json_t *ld = memory_op(k, "ld.u32");
        json_t *deg = json_object_get(ld, "bank_conflict_degree");
        assert_int_equal(hist_max(deg), cases[c].degree);
        assert_true(hist_count(deg, cases[c].degree) >= 2); /* both warps' first iteration */
        if (cases[c].degree == 1)
            assert_int_equal(hist_count(deg, 1), jget(ld, "requests"));
        profiled_free(&r);
    }
}

/* A loop whose lanes iterate together for two iterations, then leave one
 * group at a time (trip count lim[tid] + 1, lim = 2, 3 or 4), with a store
 * at out + 4 * (32 * i + tid) in its header: the lanes' iteration indices,
 * shared while they are together, must be each lane's own once they part. */
static const char *parting_ptx = HEADER
    ".visible .entry k(.param .u64 out, .param .u64 lim)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<8>;\n"
    "\tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [lim];\n\tmov.u32 %r1, %tid.x;\n"
    "\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\tld.global.u32 %r2, [%rd4];\n"
    "\tmov.u32 %r3, 0;\n"
    "$L_loop:\n"
    "\tshl.b32 %r4, %r3, 5;\n\tadd.s32 %r4, %r4, %r1;\n"
    "\tmul.wide.u32 %rd5, %r4, 4;\n\tadd.s64 %rd6, %rd1, %rd5;\n\tst.global.u32 [%rd6], %r3;\n"
    "\tsetp.ge.u32 %p1, %r3, %r2;\n\t@%p1 bra $L_done;\n"
    "\tadd.s32 %r3, %r3, 1;\n\tbra $L_loop;\n"
    "$L_done:\n\tret;\n}\n";

static void test_loop_lanes_parting(void **state)
{
    (void)state;
    char manifest[800];
    int n = snprintf(manifest, sizeof(manifest),
                     "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 160},"
                     " \"lim\": {\"type\": \"u32\", \"init\": [");
    for (int l = 0; l < 32; l++)
        n += snprintf(manifest + n, sizeof(manifest) - (size_t)n, "%s%d", l ? "," : "", 2 + l % 3);
    snprintf(manifest + n, sizeof(manifest) - (size_t)n,
             "]}}, \"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 32, \"args\": [\"o\", \"lim\"]}]}");
    profiled r;
    profile_text(&r, parting_ptx, "parting.ptx", manifest, 0);
    json_t *k = kernel_json(&r);
    check_conservation(r.p, 32);
    json_t *loops = json_object_get(k, "loops");
    assert_int_equal(json_array_size(loops), 1);
    json_t *trips = json_object_get(json_array_get(loops, 0), "trip_counts");
    assert_int_equal(hist_count(trips, 3), 11); /* lanes 0, 3, ..., 30 */
    assert_int_equal(hist_count(trips, 4), 11);
    assert_int_equal(hist_count(trips, 5), 10);
    json_t *st = memory_op(k, "st.u32");
    assert_int_equal(jget(st, "requests"), 5); /* iterations 0-4 */
    json_t *aff = json_object_get(st, "affine");
    assert_true(json_is_true(json_object_get(aff, "exact")));
    json_t *terms = json_object_get(aff, "terms");
    assert_int_equal(json_integer_value(json_object_get(terms, "tid.x")), 4);
    const char *key;
    json_t *v;
    int iter_terms = 0;
    json_object_foreach(terms, key, v)
    {
        if (strncmp(key, "iter.", 5) == 0) {
            assert_int_equal(json_integer_value(v), 128);
            iter_terms++;
        }
    }
    assert_int_equal(iter_terms, 1);
    profiled_free(&r);
}

/* A one-launch, 32-thread manifest whose buffer "idx" holds the 32 indices;
 * `buffers` lists the other buffers (with a trailing comma) and `args` the
 * kernel's arguments. */
static void index_manifest(char *out, size_t size, const char *buffers, const unsigned *idx, const char *args)
{
    int n = snprintf(out, size, "{\"buffers\": {%s \"idx\": {\"type\": \"u32\", \"init\": [", buffers);
    for (int l = 0; l < 32; l++)
        n += snprintf(out + n, size - (size_t)n, "%s%u", l ? "," : "", idx[l]);
    snprintf(out + n, size - (size_t)n,
             "]}}, \"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 32, \"args\": [%s]}]}", args);
}

/* Coalescing of a global load at unit stride, stride 2, stride 32 and random indices. */
static const char *gather_ptx = HEADER
    ".visible .entry k(.param .u64 in, .param .u64 idx, .param .u64 out)\n{\n"
    "\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<10>;\n"
    "\tld.param.u64 %rd1, [in];\n\tld.param.u64 %rd2, [idx];\n\tld.param.u64 %rd3, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd4, %r1, 4;\n"
    "\tadd.s64 %rd5, %rd2, %rd4;\n\tld.global.u32 %r2, [%rd5];\n"
    "\tmul.wide.u32 %rd6, %r2, 4;\n\tadd.s64 %rd7, %rd1, %rd6;\n\tld.global.f32 %r3, [%rd7];\n"
    "\tadd.s64 %rd8, %rd3, %rd4;\n\tst.global.u32 [%rd8], %r3;\n\tret;\n}\n";

static void test_coalescing(void **state)
{
    (void)state;
    /* indices: stride 1, 2, 32, and 32 scattered values with 7 distinct lines */
    static const unsigned scattered[32] = {0, 40, 80, 120, 160, 200, 240, 1, 41, 81, 121, 161, 201, 241, 2, 42,
                                           82, 122, 162, 202, 242, 3, 43, 83, 123, 163, 203, 243, 4, 44, 84, 124};
    struct {
        unsigned idx[32];
        unsigned sectors, lines, cc12;
    } cases[4];
    for (unsigned l = 0; l < 32; l++) {
        cases[0].idx[l] = l;
        cases[1].idx[l] = 2 * l;
        cases[2].idx[l] = 32 * l;
        cases[3].idx[l] = scattered[l];
    }
    cases[0].sectors = 4, cases[0].lines = 1, cases[0].cc12 = 2;   /* 64B per half-warp */
    cases[1].sectors = 8, cases[1].lines = 2, cases[1].cc12 = 2;   /* 128B per half-warp */
    cases[2].sectors = 32, cases[2].lines = 32, cases[2].cc12 = 32; /* one 32B transaction per thread */
    /* scattered: words 0..4, 40..44, 80..84, 120..124, 160..163, 200..203, 240..243 */
    cases[3].sectors = 7, cases[3].lines = 7, cases[3].cc12 = 14;
    for (int c = 0; c < 4; c++) {
        char manifest[1200];
        index_manifest(manifest, sizeof manifest,
                       "\"in\": {\"type\": \"f32\", \"count\": 1024}, \"o\": {\"type\": \"u32\", \"count\": 32},",
                       cases[c].idx, "\"in\", \"idx\", \"o\"");
        profiled r;
        profile_text(&r, gather_ptx, "gather.ptx", manifest, 0);
        json_t *ld = memory_op(kernel_json(&r), "ld.f32");
        assert_int_equal(hist_count(json_object_get(ld, "sectors_per_request"), cases[c].sectors), 1);
        assert_int_equal(hist_count(json_object_get(ld, "lines_per_request"), cases[c].lines), 1);
        assert_int_equal(hist_count(json_object_get(ld, "cc12_transactions_per_request"), cases[c].cc12), 1);
        /* the index load is unit stride and affine in every case; the gather only in the first three */
        json_t *idx = memory_op(kernel_json(&r), "ld.u32");
        assert_true(json_is_true(json_object_get(json_object_get(idx, "affine"), "exact")));
        assert_int_equal(json_is_true(json_object_get(json_object_get(ld, "affine"), "exact")), c < 3);
        profiled_free(&r);
    }
}

/* Local memory is counted as hardware lays it out, interleaved by lane:
 * lanes on the same word share a line, lanes on different words do not. */
static const char *local_ptx = HEADER
    ".visible .entry k(.param .u64 idx)\n{\n"
    "\t.local .align 4 .b8 arr[128];\n"
    "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<8>;\n"
    "\tld.param.u64 %rd1, [idx];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n\tld.global.u32 %r2, [%rd3];\n"
    "\tmov.u64 %rd4, arr;\n\tmul.wide.u32 %rd5, %r2, 4;\n\tadd.s64 %rd6, %rd4, %rd5;\n"
    "\tst.local.u32 [%rd6], %r1;\n\tld.local.u32 %r3, [%rd4+8];\n\tret;\n}\n";

static void test_local_interleaved(void **state)
{
    (void)state;
    struct {
        unsigned idx[32];
        unsigned sectors, lines;
    } cases[4];
    for (unsigned l = 0; l < 32; l++) {
        cases[0].idx[l] = 5;     /* one word: one line, the warp's 128 bytes */
        cases[1].idx[l] = l;     /* a word per lane: a line per lane */
        cases[2].idx[l] = l / 8; /* a word per 8-lane group: one sector each */
        cases[3].idx[l] = l % 4; /* four words in every group */
    }
    cases[0].sectors = 4, cases[0].lines = 1;
    cases[1].sectors = 32, cases[1].lines = 32;
    cases[2].sectors = 4, cases[2].lines = 4;
    cases[3].sectors = 16, cases[3].lines = 4;
    for (int c = 0; c < 4; c++) {
        char manifest[1000];
        index_manifest(manifest, sizeof manifest, "", cases[c].idx, "\"idx\"");
        profiled r;
        profile_text(&r, local_ptx, "local.ptx", manifest, 0);
        json_t *st = memory_op(kernel_json(&r), "st.u32");
        assert_int_equal(hist_count(json_object_get(st, "sectors_per_request"), cases[c].sectors), 1);
        assert_int_equal(hist_count(json_object_get(st, "lines_per_request"), cases[c].lines), 1);
        /* the affine model fits the program's addresses, not the layout */
        assert_int_equal(json_is_true(json_object_get(json_object_get(st, "affine"), "exact")), c < 2);
        /* the uniform load: one word for the whole warp */
        json_t *ld = NULL, *mem = json_object_get(kernel_json(&r), "memory");
        for (size_t i = 0; i < json_array_size(mem); i++)
            if (!strcmp(json_string_value(json_object_get(json_array_get(mem, i), "space")), "local") &&
                !strcmp(json_string_value(json_object_get(json_array_get(mem, i), "op")), "ld.u32"))
                ld = json_array_get(mem, i);
        assert_non_null(ld);
        assert_int_equal(hist_count(json_object_get(ld, "sectors_per_request"), 4), 1);
        assert_int_equal(hist_count(json_object_get(ld, "lines_per_request"), 1), 1);
        profiled_free(&r);
    }
}

/* The JSON of a finished profile, keys sorted. */
static char *profile_dump(const mb_profile *p)
{
    mb_buf json = MB_BUF_INIT;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_profile_write_json(p, &json, &err), MB_OK);
    json_error_t jerr;
    json_t *j = json_loads(json.data, 0, &jerr);
    mb_buf_free(&json);
    assert_non_null(j);
    char *text = json_dumps(j, JSON_SORT_KEYS);
    json_decref(j);
    assert_non_null(text);
    return text;
}

/* Launch `which` profiled by a program that profiled none before. */
static char *fresh_profile(const char *ptx, const char *manifest, uint32_t which)
{
    profiled r;
    profile_text(&r, ptx, "session.ptx", manifest, which);
    char *text = json_dumps(r.json, JSON_SORT_KEYS);
    assert_non_null(text);
    profiled_free(&r);
    return text;
}

/* Profiles launch i of the session's manifest (run in order) and returns its JSON. */
static char *session_profile(session *s, uint32_t i)
{
    mb_error err;
    mb_error_clear(&err);
    mb_profile *p = NULL;
    mb_exec_stats stats;
    assert_int_equal(session_launch(s, i, &p, &stats, &err), MB_OK);
    char *text = profile_dump(p);
    mb_profile_free(p);
    return text;
}

/* Two kernels with different CFGs (a loop nest with shared and data-dependent
 * accesses; a guarded store) in one module. */
static const char *two_kernels_ptx = HEADER LOOPS_KERNEL("ka") GUARDED_STORE_KERNEL("kb");

static const char *two_kernels_manifest =
    "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 4096},"
    " \"d\": {\"type\": \"u32\", \"count\": 64, \"init\": {\"kind\": \"sequence\", \"start\": 1, \"step\": 1}}},"
    " \"launches\": [{\"kernel\": \"ka\", \"grid\": 1, \"block\": 64, \"args\": [\"o\", \"d\", 1]},"
    " {\"kernel\": \"kb\", \"grid\": 16, \"block\": 256, \"args\": [\"o\", 4000]},"
    " {\"kernel\": \"ka\", \"grid\": 1, \"block\": 64, \"args\": [\"o\", \"d\", 33]},"
    " {\"kernel\": \"kb\", \"grid\": 4, \"block\": 96, \"args\": [\"o\", 300]}]}";

/* The launch's input: what its buffers held when it started, not what it
 * left there; a buffer two parameters point into is one input. */
static void test_inputs_recorded(void **state)
{
    (void)state;
    const char *manifest =
        "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 64, \"init\": {\"kind\": \"sequence\","
        " \"start\": 1000}},"
        " \"d\": {\"type\": \"u32\", \"count\": 64, \"init\": {\"kind\": \"constant\", \"value\": 1}}},"
        " \"launches\": [{\"kernel\": \"kb\", \"grid\": 1, \"block\": 32, \"args\": [\"o\", 16]},"
        " {\"kernel\": \"kb\", \"grid\": 1, \"block\": 64, \"args\": [\"o\", 64]},"
        " {\"kernel\": \"ka\", \"grid\": 1, \"block\": 32, \"args\": [\"o\", {\"buffer\": \"o\", \"offset\": 128}, 1]}]}";
    profiled r;
    profile_text(&r, two_kernels_ptx, "inputs.ptx", manifest, 1);
    assert_int_equal(mb_profile_ninputs(r.p), 1);
    const mb_profile_input *in = mb_profile_get_input(r.p, 0);
    assert_string_equal(in->buffer, "o");
    assert_int_equal(in->bytes, 256);
    /* launch 0 stored 0..15; launch 1, the profiled one, then stored 0..63 */
    uint32_t want[64];
    for (uint32_t i = 0; i < 64; i++)
        want[i] = i < 16 ? i : 1000 + i;
    assert_memory_equal(in->data, want, sizeof want);
    assert_int_equal(in->fnv1a64, mb_fnv1a64(MB_FNV1A64_INIT, want, sizeof want));
    assert_null(mb_profile_get_input(r.p, 1));
    assert_int_equal(mb_profile_inputs_omitted(r.p), 0);
    char warning[8] = "";
    assert_false(mb_profile_inputs_warning(r.p, "kb", 1, warning, sizeof warning));
    assert_string_equal(warning, "");
    json_t *inputs = json_object_get(r.json, "inputs");
    assert_int_equal(json_array_size(inputs), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(inputs, 0), "buffer")), "o");
    assert_int_equal(jget(json_array_get(inputs, 0), "bytes"), 256);
    char sum[24];
    snprintf(sum, sizeof sum, "0x%016llx", (unsigned long long)in->fnv1a64);
    assert_string_equal(json_string_value(json_object_get(json_array_get(inputs, 0), "fnv1a64")), sum);
    json_t *ptr = json_object_get(json_array_get(json_object_get(r.json, "parameters"), 0), "pointer");
    assert_int_equal(jget(ptr, "input"), 0);

    /* written beside the profile under the documented names */
    char dir[] = "/tmp/mb_inputs_XXXXXX", path[256], name[64];
    assert_non_null(mkdtemp(dir));
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_profile_write_inputs(r.p, dir, "kb", 1, &err), MB_OK);
    assert_false(mb_profile_input_file("kb", 1, 0, name, 8));
    assert_true(mb_profile_input_file("kb", 1, 0, name, sizeof name));
    assert_string_equal(name, "kb.1.input0.bin");
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint32_t got[65];
    assert_int_equal(fread(got, 1, sizeof got, f), sizeof want);
    fclose(f);
    assert_memory_equal(got, want, sizeof want);
    remove(path);
    rmdir(dir);
    profiled_free(&r);

    /* two parameters into one buffer: one input, both point at it */
    profile_text(&r, two_kernels_ptx, "inputs.ptx", manifest, 2);
    assert_int_equal(mb_profile_ninputs(r.p), 1);
    json_t *params = json_object_get(r.json, "parameters");
    assert_int_equal(jget(json_object_get(json_array_get(params, 0), "pointer"), "input"), 0);
    assert_int_equal(jget(json_object_get(json_array_get(params, 1), "pointer"), "input"), 0);
    assert_int_equal(jget(json_object_get(json_array_get(params, 1), "pointer"), "offset"), 128);
    profiled_free(&r);
}

/* Buffers past MB_PROFILE_INPUT_LIMIT are not copied; the profile says how much was left out. */
static void test_inputs_over_limit(void **state)
{
    (void)state;
    char manifest[512];
    snprintf(manifest, sizeof manifest,
             "{\"buffers\": {\"o\": {\"type\": \"b8\", \"bytes\": %llu}},"
             " \"launches\": [{\"kernel\": \"kb\", \"grid\": 1, \"block\": 32, \"args\": [\"o\", 32]}]}",
             (unsigned long long)(MB_PROFILE_INPUT_LIMIT + 4096));
    profiled r;
    profile_text(&r, two_kernels_ptx, "big.ptx", manifest, 0);
    assert_int_equal(mb_profile_ninputs(r.p), 0);
    assert_int_equal(mb_profile_inputs_omitted(r.p), MB_PROFILE_INPUT_LIMIT + 4096);
    assert_int_equal(jget(r.json, "inputs_omitted_bytes"), MB_PROFILE_INPUT_LIMIT + 4096);
    char warning[300];
    assert_true(mb_profile_inputs_warning(r.p, "kb", 0, warning, sizeof warning));
    assert_string_equal(warning, "launch 0 (kb): its input buffers total 268439552 bytes, over the 256 MiB "
                                 "a profile records; clones of it get seeded bytes");
    assert_int_equal(json_array_size(json_object_get(r.json, "inputs")), 0);
    json_t *ptr = json_object_get(json_array_get(json_object_get(r.json, "parameters"), 0), "pointer");
    assert_null(json_object_get(ptr, "input"));
    profiled_free(&r);
}

/* A program keeps its functions' analyses from one profile to the next: every
 * launch profiled through one program, kernels alternating, gives the profile
 * a program that profiled nothing before gives. */
static void test_analyses_kept_with_program(void **state)
{
    (void)state;
    session s;
    session_open(&s, two_kernels_ptx, "session.ptx", two_kernels_manifest);
    for (uint32_t i = 0; i < mb_manifest_nlaunches(s.man); i++) {
        char *kept = session_profile(&s, i);
        char *fresh = fresh_profile(two_kernels_ptx, two_kernels_manifest, i);
        if (strcmp(kept, fresh) != 0)
            fail_msg("launch %u: the profile through a program that profiled before differs", i);
        free(kept);
        free(fresh);
    }
    session_close(&s);
}

/* Two programs whose kernels share a name but not a body: each program's
 * profiles stay those of its own kernel, however they interleave. */
/* Replaces a profile's JSON text by the same without its "inputs" checksums. */
static void without_inputs(char **text)
{
    json_error_t jerr;
    json_t *j = json_loads(*text, 0, &jerr);
    assert_non_null(j);
    json_object_del(j, "inputs");
    free(*text);
    *text = json_dumps(j, JSON_SORT_KEYS);
    json_decref(j);
    assert_non_null(*text);
}

static void test_analyses_per_program(void **state)
{
    (void)state;
    static const char *manifest_a =
        "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 4096}},"
        " \"launches\": [{\"kernel\": \"k\", \"grid\": 16, \"block\": 256, \"args\": [\"o\", 4000]}]}";
    static const char *manifest_b =
        "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 64},"
        " \"d\": {\"type\": \"u32\", \"count\": 64, \"init\": {\"kind\": \"sequence\", \"start\": 1, \"step\": 0}}},"
        " \"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 64, \"args\": [\"o\", \"d\", 5]}]}";
    session a, b;
    session_open(&a, branch_ptx, "session.ptx", manifest_a);
    session_open(&b, loops_ptx, "session.ptx", manifest_b);
    char *fresh_a = fresh_profile(branch_ptx, manifest_a, 0);
    char *fresh_b = fresh_profile(loops_ptx, manifest_b, 0);
    assert_true(strcmp(fresh_a, fresh_b) != 0);
    for (int round = 0; round < 2; round++) {
        char *pa = session_profile(&a, 0);
        char *pb = session_profile(&b, 0);
        if (round) {
            /* the second round's input is what the first left in the buffers */
            without_inputs(&pa);
            without_inputs(&pb);
            without_inputs(&fresh_a);
            without_inputs(&fresh_b);
        }
        assert_string_equal(pa, fresh_a);
        assert_string_equal(pb, fresh_b);
        free(pa);
        free(pb);
    }
    free(fresh_a);
    free(fresh_b);
    session_close(&a);
    session_close(&b);
}

/* Every example: conservation, determinism of the JSON and DOT output. */
/* Lanes leave inside a block: a guarded exit in the kernel, and an exit in
 * a callee. The executor tells the profiler only of the instructions it
 * needs; the others share the counts of the observed instruction before them
 * in their block, which must then be taken after each place where lanes
 * leave (32 threads: 8 leave at the first exit, the odd ones at the call). */
static const char *exits_ptx = HEADER
    ".func leave_odd(.param .b32 leave_odd_param_0)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n"
    "\tld.param.u32 %r1, [leave_odd_param_0];\n"
    "\tand.b32 %r2, %r1, 1;\n\tsetp.ne.u32 %p1, %r2, 0;\n"
    "\t@%p1 exit;\n\tret;\n}\n"
    ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n"
    "\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 8;\n"
    "\t@%p1 exit;\n"
    "\txor.b32 %r2, %r1, 3;\n\txor.b32 %r3, %r2, 5;\n"
    "\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0+0], %r3;\n"
    "\tcall.uni leave_odd, (param0);\n\t}\n"
    "\tsub.s32 %r4, %r3, 1;\n\tsub.s32 %r5, %r4, 1;\n"
    "\tret;\n}\n";

static void test_lanes_leaving_inside_blocks(void **state)
{
    (void)state;
    profiled r;
    profile_text(&r, exits_ptx, "exits.ptx",
                 "{\"buffers\": {\"out\": {\"type\": \"u32\", \"count\": 32}},"
                 " \"launches\": [{\"kernel\": \"k\", \"grid\": [1,1,1], \"block\": [32,1,1],"
                 " \"args\": [\"out\"]}]}",
                 0);
    check_mix_total(&r);
    json_t *fns = json_object_get(r.json, "functions");
    json_t *kops = json_object_get(json_object_get(json_array_get(fns, 0), "instruction_mix"), "opcodes");
    assert_int_equal(jget(kops, "xor.b32"), 2 * 24);
    assert_int_equal(jget(kops, "sub.s32"), 2 * 12); /* (tid ^ 6) odd for odd tid */
    assert_int_equal(jget(kops, "ret"), 12);
    json_t *cops = json_object_get(json_object_get(json_array_get(fns, 1), "instruction_mix"), "opcodes");
    assert_int_equal(jget(cops, "and.b32"), 24);
    assert_int_equal(jget(cops, "ret"), 12);
    profiled_free(&r);
}

static void test_examples(void **state)
{
    (void)state;
    DIR *dir = opendir(MB_EXAMPLES_DIR);
    assert_non_null(dir);
    struct dirent *de;
    int count = 0;
    while ((de = readdir(dir))) {
        if (de->d_name[0] == '.')
            continue;
        char ptx[1024], manifest[1024];
        snprintf(ptx, sizeof(ptx), "%s/%s/%s.ptx", MB_EXAMPLES_DIR, de->d_name, de->d_name);
        snprintf(manifest, sizeof(manifest), "%s/%s/launch.json", MB_EXAMPLES_DIR, de->d_name);
        char *ptx_text, *man_text;
        size_t len;
        mb_error err;
        if (mb_read_file(ptx, 1 << 24, &ptx_text, &len, &err) != MB_OK)
            continue;
        if (mb_read_file(manifest, 1 << 24, &man_text, &len, &err) != MB_OK) {
            free(ptx_text);
            continue;
        }
        /* counted in the launch's thread, then by a counting thread: the
         * same profile, byte for byte */
        char *texts[2] = {NULL, NULL};
        for (int pass = 0; pass < 2; pass++) {
            profiled r;
            profile_text_threads(&r, ptx_text, ptx, man_text, 0, pass == 0 ? 1 : 2);
            check_conservation(r.p, r.stats.threads);
            check_mix_total(&r);
            mb_buf dot = MB_BUF_INIT;
            assert_int_equal(mb_dfsg_write_dot(r.s.m, r.p, &dot, &err), MB_OK);
            assert_non_null(strstr(dot.data, "ecount="));
            char *json = json_dumps(r.json, JSON_SORT_KEYS);
            size_t total = strlen(json) + dot.len + 1;
            texts[pass] = malloc(total);
            snprintf(texts[pass], total, "%s%s", json, dot.data);
            free(json);
            mb_buf_free(&dot);
            profiled_free(&r);
        }
        if (strcmp(texts[0], texts[1]) != 0)
            fail_msg("profile of %s differs between counting in the launch's thread and in a "
                     "second thread", de->d_name);
        free(texts[0]);
        free(texts[1]);
        free(ptx_text);
        free(man_text);
        count++;
    }
    closedir(dir);
    assert_true(count >= 14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_branch_counts),
        cmocka_unit_test(test_loops_and_banks),
        cmocka_unit_test(test_loop_lanes_parting),
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_local_interleaved),
        cmocka_unit_test(test_lanes_leaving_inside_blocks),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_analyses_kept_with_program),
        cmocka_unit_test(test_analyses_per_program),
        cmocka_unit_test(test_inputs_recorded),
        cmocka_unit_test(test_inputs_over_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
