/* Every example's PTX parses, prints canonically, re-parses to the same
 * text, yields well-formed control-flow graphs and (when ptxas is installed)
 * is accepted by ptxas after printing. The same holds for the hand-written
 * files in tests/ptx and, when nvcc is installed, for the examples compiled
 * again with -G, -lineinfo and --use_fast_math (debug sections, .file, .loc
 * with inlined_at). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/profiler.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_EXAMPLES = 256 };

static char *example_paths[MAX_EXAMPLES];
static int nexamples;
static char *testptx_paths[MAX_EXAMPLES];
static int ntestptx;
static char scratch_dir[64]; /* for printed and nvcc-generated PTX */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Appends dir/<name><suffix> for every matching file in `dir`. */
static void collect_files(const char *dir, const char *suffix, char **paths, int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *f;
    while ((f = readdir(d)) != NULL) {
        if (!has_suffix(f->d_name, suffix) || *n == MAX_EXAMPLES)
            continue;
        char path[8192];
        snprintf(path, sizeof(path), "%s/%s", dir, f->d_name);
        paths[(*n)++] = strdup(path);
    }
    closedir(d);
}

/* Collects MB_EXAMPLES_DIR/<dir>/<file>.ptx and MB_TEST_DATA/ptx/<file>.ptx,
 * sorted, so failures name the file. */
static void collect_examples(void)
{
    DIR *top = opendir(MB_EXAMPLES_DIR);
    if (top) {
        struct dirent *d;
        while ((d = readdir(top)) != NULL) {
            if (d->d_name[0] == '.')
                continue;
            char dir[4096];
            snprintf(dir, sizeof(dir), "%s/%s", MB_EXAMPLES_DIR, d->d_name);
            struct stat st;
            if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
                collect_files(dir, ".ptx", example_paths, &nexamples);
        }
        closedir(top);
    }
    qsort(example_paths, (size_t)nexamples, sizeof(char *), cmp_str);
    collect_files(MB_TEST_DATA "/ptx", ".ptx", testptx_paths, &ntestptx);
    qsort(testptx_paths, (size_t)ntestptx, sizeof(char *), cmp_str);
}

static int setup(void **state)
{
    (void)state;
    collect_examples();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    if (scratch_dir[0]) {
        /* a failed check may have left its file behind */
        static const char *const leftovers[] = {"printed.ptx", "variant.ptx"};
        for (int i = 0; i < 2; i++) {
            char path[128];
            snprintf(path, sizeof(path), "%s/%s", scratch_dir, leftovers[i]);
            remove(path);
        }
        rmdir(scratch_dir);
    }
    for (int i = 0; i < nexamples; i++)
        free(example_paths[i]);
    for (int i = 0; i < ntestptx; i++)
        free(testptx_paths[i]);
    nexamples = ntestptx = 0;
    return 0;
}

static mb_module *parse_file_or_fail(const char *path)
{
    mb_module *m = NULL;
    mb_error err;
    mb_error_clear(&err);
    if (mb_ptx_parse_file(path, &m, &err) != MB_OK) {
        char msg[2048];
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
    assert_non_null(m);
    return m;
}

static mb_module *parse_text_or_fail(const char *text, size_t len, const char *name)
{
    mb_module *m = NULL;
    mb_error err;
    mb_error_clear(&err);
    if (mb_ptx_parse(text, len, name, &m, &err) != MB_OK) {
        char msg[2048];
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("re-parsing printed PTX: %s", msg);
    }
    return m;
}

static void print_or_fail(const mb_module *m, mb_buf *out)
{
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_ptx_print(m, out, &err), MB_OK);
    assert_non_null(out->data);
    assert_int_equal(out->failed, 0);
}

/* Reports the first differing line of two texts. */
static void assert_same_text(const char *a, const char *b, const char *what)
{
    if (strcmp(a, b) == 0)
        return;
    int line = 1;
    const char *la = a, *lb = b;
    while (*a && *a == *b) {
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
        a++;
        b++;
    }
    fail_msg("%s: printed text differs at line %d:\n  first:  %.120s\n  second: %.120s", what,
             line, la, lb);
}

static void test_examples_found(void **state)
{
    (void)state;
    /* The project ships at least the 18 examples of issue 1; vecadd is one of them. */
    assert_true(nexamples >= 18);
    int vecadd = 0;
    for (int i = 0; i < nexamples; i++)
        vecadd |= has_suffix(example_paths[i], "/vecadd/vecadd.ptx");
    assert_true(vecadd);
}

/* Parses `m1`'s printed text again, prints it, asserts the same text and
 * the same module shape. Returns the printed text (caller frees). */
static char *check_roundtrip(const mb_module *m1, const char *what)
{
    mb_buf t1 = MB_BUF_INIT, t2 = MB_BUF_INIT;
    print_or_fail(m1, &t1);
    mb_module *m2 = parse_text_or_fail(t1.data, t1.len, what);
    print_or_fail(m2, &t2);
    assert_same_text(t1.data, t2.data, what);

    /* The re-parsed module has the same shape as the original. */
    assert_int_equal(m2->version_major, m1->version_major);
    assert_int_equal(m2->version_minor, m1->version_minor);
    assert_int_equal(m2->ntargets, m1->ntargets);
    assert_int_equal(m2->address_size, m1->address_size);
    assert_int_equal(m2->nvars, m1->nvars);
    assert_int_equal(m2->nfuncs, m1->nfuncs);
    assert_int_equal(m2->nlocs, m1->nlocs);
    assert_int_equal(m2->nfiles, m1->nfiles);
    assert_int_equal(m2->nsections, m1->nsections);
    for (uint32_t f = 0; f < m1->nfuncs; f++) {
        const mb_function *a = &m1->funcs[f], *b = &m2->funcs[f];
        assert_string_equal(a->name, b->name);
        assert_int_equal(a->is_entry, b->is_entry);
        assert_int_equal(a->has_body, b->has_body);
        assert_int_equal(a->nparams, b->nparams);
        assert_int_equal(a->nrets, b->nrets);
        assert_int_equal(a->ninsns, b->ninsns);
        assert_int_equal(a->nregs, b->nregs);
        assert_int_equal(a->nlabels, b->nlabels);
        assert_int_equal(a->nvars, b->nvars);
        assert_int_equal(a->noperands, b->noperands);
        for (uint32_t k = 0; k < a->ninsns; k++) {
            assert_int_equal(a->insns[k].opcode, b->insns[k].opcode);
            assert_int_equal(a->insns[k].nsuffix, b->insns[k].nsuffix);
            assert_memory_equal(a->insns[k].suffix, b->insns[k].suffix,
                                sizeof(a->insns[k].suffix));
            assert_int_equal(a->insns[k].noperands, b->insns[k].noperands);
            assert_int_equal(a->insns[k].guard, b->insns[k].guard);
            assert_int_equal(a->insns[k].guard_not, b->insns[k].guard_not);
            assert_int_equal(a->insns[k].loc >= 0, b->insns[k].loc >= 0);
        }
    }
    mb_buf_free(&t2);
    mb_module_free(m2);
    return t1.data;
}

static void test_examples_roundtrip(void **state)
{
    (void)state;
    for (int i = 0; i < nexamples; i++) {
        mb_module *m = parse_file_or_fail(example_paths[i]);
        assert_true(m->nfuncs >= 1);
        free(check_roundtrip(m, example_paths[i]));
        mb_module_free(m);
    }
}

/* Structural invariants every CFG must satisfy. */
static void check_cfg_invariants(const mb_function *fn, const mb_cfg *cfg, const char *where)
{
    assert_true(cfg->nblocks >= 1);
    /* Blocks are contiguous, in order, and cover each instruction exactly once. */
    uint32_t next = 0;
    for (int b = 0; b < cfg->nblocks; b++) {
        const mb_block *blk = &cfg->blocks[b];
        if (blk->first != next)
            fail_msg("%s: block %d starts at %u, expected %u", where, b, blk->first, next);
        for (uint32_t k = 0; k < blk->ninsns; k++)
            assert_int_equal(cfg->block_of_insn[blk->first + k], b);
        next += blk->ninsns;
        /* Only the last block may be empty (empty body or label at the end). */
        if (blk->ninsns == 0)
            assert_int_equal(b, cfg->nblocks - 1);
        /* Instructions that end a block are last in it. */
        for (uint32_t k = 0; k + 1 < blk->ninsns; k++) {
            const mb_insn *insn = &fn->insns[blk->first + k];
            assert_false(mb_opcode_get((mb_opcode)insn->opcode)->flags & MB_OPF_T);
        }
    }
    assert_int_equal(next, fn->ninsns);
    /* Every code label starts a block. */
    for (uint32_t l = 0; l < fn->nlabels; l++) {
        if (fn->labels[l].kind != MB_LABEL_CODE || fn->labels[l].insn >= fn->ninsns)
            continue;
        int b = cfg->block_of_insn[fn->labels[l].insn];
        assert_int_equal(cfg->blocks[b].first, fn->labels[l].insn);
    }
    /* Every edge's reverse is among the predecessors. */
    const mb_graph *g = &cfg->graph;
    assert_int_equal(g->n, cfg->nblocks);
    for (int v = 0; v < g->n; v++) {
        for (int e = g->succ_start[v]; e < g->succ_start[v + 1]; e++) {
            int w = g->succ[e], found = 0;
            assert_true(w >= 0 && w < g->n);
            for (int k = g->pred_start[w]; k < g->pred_start[w + 1]; k++)
                found |= g->pred[k] == v;
            if (!found)
                fail_msg("%s: edge %d->%d missing from preds", where, v, w);
        }
    }
    /* Dominators: the entry is its own idom; every reachable block's idom
     * is reachable; ipdom is a real block or the virtual exit. */
    assert_int_equal(cfg->idom[0], 0);
    for (int b = 0; b < cfg->nblocks; b++) {
        assert_true(cfg->idom[b] >= -1 && cfg->idom[b] < cfg->nblocks);
        if (cfg->idom[b] >= 0)
            assert_true(mb_dominates(cfg->idom, 0, b));
        assert_true(cfg->ipdom[b] >= 0 && cfg->ipdom[b] <= cfg->nblocks);
        assert_true(cfg->ipdom[b] != b || b == cfg->nblocks);
    }
    /* Loops: the header dominates every block of the loop, latches are in
     * the body, and the nesting is consistent. */
    for (int i = 0; i < cfg->loops.nloops; i++) {
        const mb_loop *lp = &cfg->loops.loops[i];
        for (int k = 0; k < lp->nblocks; k++)
            if (!mb_dominates(cfg->idom, lp->header, lp->blocks[k]))
                fail_msg("%s: loop header %d does not dominate block %d", where, lp->header,
                         lp->blocks[k]);
        assert_true(lp->nlatches >= 1);
        for (int k = 0; k < lp->nlatches; k++) {
            int in = 0;
            for (int j = 0; j < lp->nblocks; j++)
                in |= lp->blocks[j] == lp->latches[k];
            assert_true(in);
        }
        assert_true(lp->parent < i);
        assert_int_equal(lp->depth, lp->parent < 0 ? 1 : cfg->loops.loops[lp->parent].depth + 1);
        if (lp->kind == MB_LOOP_SELF)
            assert_int_equal(lp->nblocks, 1);
        assert_int_equal(lp->kind == MB_LOOP_NESTED, lp->nchildren > 0);
    }
    /* At least one block leaves the function. */
    int exits = 0;
    for (int b = 0; b < cfg->nblocks; b++)
        exits += cfg->blocks[b].is_exit;
    assert_true(exits >= 1);
}

/* Builds and checks the CFG of every function with a body; returns the
 * number of loops found. */
static int check_module_cfgs(const mb_module *m, const char *what, int *nfuncs)
{
    int nloops = 0;
    for (uint32_t f = 0; f < m->nfuncs; f++) {
        const mb_function *fn = &m->funcs[f];
        if (!fn->has_body)
            continue;
        mb_cfg cfg;
        mb_error err;
        mb_error_clear(&err);
        if (mb_cfg_build(fn, &cfg, &err) != MB_OK) {
            char msg[2048];
            mb_error_format(&err, msg, sizeof(msg));
            fail_msg("%s: %s: %s", what, fn->name, msg);
        }
        char where[512];
        snprintf(where, sizeof(where), "%s: %s", what, fn->name);
        check_cfg_invariants(fn, &cfg, where);
        nloops += cfg.loops.nloops;
        (*nfuncs)++;
        mb_cfg_free(&cfg);
    }
    return nloops;
}

static void test_examples_cfg(void **state)
{
    (void)state;
    int nloops = 0, nfuncs = 0;
    for (int i = 0; i < nexamples; i++) {
        mb_module *m = parse_file_or_fail(example_paths[i]);
        nloops += check_module_cfgs(m, example_paths[i], &nfuncs);
        mb_module_free(m);
    }
    /* The examples exercise loops (tid_loop, nested_loops, reduce_*, ...). */
    assert_true(nfuncs >= nexamples);
    assert_true(nloops >= 10);
}

/* An executable `name` on PATH or in /usr/local/cuda/bin, or NULL. */
static const char *find_tool(const char *name, char *buf, size_t size)
{
    const char *path = getenv("PATH");
    if (path) {
        const char *p = path;
        while (*p) {
            const char *colon = strchr(p, ':');
            size_t n = colon ? (size_t)(colon - p) : strlen(p);
            if (n > 0 && n + strlen(name) + 2 < size) {
                snprintf(buf, size, "%.*s/%s", (int)n, p, name);
                if (access(buf, X_OK) == 0)
                    return buf;
            }
            p += n;
            if (*p == ':')
                p++;
        }
    }
    snprintf(buf, size, "/usr/local/cuda/bin/%s", name);
    return access(buf, X_OK) == 0 ? buf : NULL;
}

/* Writes `text` to a scratch file and runs ptxas on it for sm_75. */
static void assert_ptxas_accepts(const char *ptxas, const char *text, const char *what)
{
    if (!scratch_dir[0]) {
        snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/mb_roundtrip_XXXXXX");
        assert_non_null(mkdtemp(scratch_dir));
    }
    char file[128];
    snprintf(file, sizeof(file), "%s/printed.ptx", scratch_dir);
    mb_error err;
    assert_int_equal(mb_write_file_atomic(file, text, strlen(text), &err), MB_OK);
    char cmd[8192];
    snprintf(cmd, sizeof(cmd), "'%s' -arch=sm_75 '%s' -o /dev/null", ptxas, file);
    int rc = system(cmd);
    if (rc != 0)
        fail_msg("ptxas rejected the printed form of %s (status %d)", what, rc);
    remove(file);
}

static void test_examples_ptxas_accepts_printed(void **state)
{
    (void)state;
    char ptxas[4096];
    if (!find_tool("ptxas", ptxas, sizeof(ptxas))) {
        print_message("skipping ptxas check: ptxas not found\n");
        skip();
    }
    for (int i = 0; i < nexamples; i++) {
        mb_module *m = parse_file_or_fail(example_paths[i]);
        mb_buf text = MB_BUF_INIT;
        print_or_fail(m, &text);
        assert_ptxas_accepts(ptxas, text.data, example_paths[i]);
        mb_buf_free(&text);
        mb_module_free(m);
    }
}

/* The hand-written files of tests/ptx: round trip, CFG invariants, ptxas. */
static void test_test_ptx_files(void **state)
{
    (void)state;
    assert_true(ntestptx >= 11);
    char ptxas[4096];
    const char *px = find_tool("ptxas", ptxas, sizeof(ptxas));
    if (!px)
        print_message("ptxas not found: checking tests/ptx without it\n");
    int nfuncs = 0;
    for (int i = 0; i < ntestptx; i++) {
        mb_module *m = parse_file_or_fail(testptx_paths[i]);
        char *text = check_roundtrip(m, testptx_paths[i]);
        check_module_cfgs(m, testptx_paths[i], &nfuncs);
        if (px)
            assert_ptxas_accepts(px, text, testptx_paths[i]);
        free(text);
        mb_module_free(m);
    }
    assert_true(nfuncs >= ntestptx);
}

/* nvcc's other output styles: each example's .cu compiled again with -G
 * (debug sections), -lineinfo (.loc, .file, inlined_at)
 * and --use_fast_math. */
static void test_examples_nvcc_variants(void **state)
{
    (void)state;
    char nvcc[4096], ptxas[4096];
    if (!find_tool("nvcc", nvcc, sizeof(nvcc))) {
        print_message("skipping nvcc variants: nvcc not found\n");
        skip();
    }
    const char *px = find_tool("ptxas", ptxas, sizeof(ptxas));
    if (!scratch_dir[0]) {
        snprintf(scratch_dir, sizeof(scratch_dir), "/tmp/mb_roundtrip_XXXXXX");
        assert_non_null(mkdtemp(scratch_dir));
    }
    static const char *const flags[] = {"-G", "-lineinfo", "--use_fast_math"};
    int compiled = 0, with_sections = 0, with_inlined = 0;
    for (int i = 0; i < nexamples; i++) {
        char cu[8192];
        snprintf(cu, sizeof(cu), "%.*s.cu", (int)(strlen(example_paths[i]) - 4), example_paths[i]);
        if (access(cu, R_OK) != 0)
            continue;
        for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
            char out[256], cmd[16384], what[8400];
            snprintf(out, sizeof(out), "%s/variant.ptx", scratch_dir);
            snprintf(cmd, sizeof(cmd),
                     "'%s' -arch=sm_75 %s -I'%s/common' -ptx '%s' -o '%s' > /dev/null 2>&1", nvcc,
                     flags[f], MB_EXAMPLES_DIR, cu, out);
            if (system(cmd) != 0)
                fail_msg("nvcc failed: %s", cmd);
            snprintf(what, sizeof(what), "%s (nvcc %s)", cu, flags[f]);
            mb_module *m = parse_file_or_fail(out);
            char *text = check_roundtrip(m, what);
            int nfuncs = 0;
            check_module_cfgs(m, what, &nfuncs);
            if (px)
                assert_ptxas_accepts(px, text, what);
            with_sections += m->nsections > 0;
            for (uint32_t k = 0; k < m->nlocs; k++)
                if (m->locs[k].function_name) {
                    with_inlined++;
                    break;
                }
            if (f == 0 || f == 1)
                assert_true(m->nlocs > 0);
            free(text);
            mb_module_free(m);
            remove(out);
            compiled++;
        }
    }
    assert_true(compiled >= 3 * 18);
    assert_true(with_sections >= 18); /* every -G build has DWARF sections */
    assert_true(with_inlined >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples_found),
        cmocka_unit_test(test_examples_roundtrip),
        cmocka_unit_test(test_examples_cfg),
        cmocka_unit_test(test_examples_ptxas_accepts_printed),
        cmocka_unit_test(test_test_ptx_files),
        cmocka_unit_test(test_examples_nvcc_variants),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
