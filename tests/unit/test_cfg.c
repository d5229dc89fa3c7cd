/* Basic blocks, edges, dominators, post-dominators and natural loops of
 * the small kernels in tests/ptx/cfg_*.ptx, checked against expectations
 * worked out by hand (each file's header comment lists its blocks), and
 * static resources of tests/ptx/resources.ptx. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/profiler.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

typedef struct fixture {
    mb_module *m;
    const mb_function *fn;
    mb_cfg cfg;
} fixture;

static void load(fixture *fx, const char *file, const char *kernel)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/ptx/%s", MB_TEST_DATA, file);
    mb_error err;
    mb_error_clear(&err);
    char msg[2048];
    if (mb_ptx_parse_file(path, &fx->m, &err) != MB_OK) {
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
    fx->fn = mb_module_find_function(fx->m, kernel);
    if (!fx->fn)
        fail_msg("%s: no function '%s'", file, kernel);
    if (mb_cfg_build(fx->fn, &fx->cfg, &err) != MB_OK) {
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
    assert_ptr_equal(fx->cfg.fn, fx->fn);
}

static void unload(fixture *fx)
{
    mb_cfg_free(&fx->cfg);
    mb_module_free(fx->m);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define END (-100) /* terminates successor lists */

/* Block b covers [first, first + ninsns). */
static void expect_block(const mb_cfg *cfg, int b, uint32_t first, uint32_t ninsns, int is_exit)
{
    assert_true(b < cfg->nblocks);
    if (cfg->blocks[b].first != first || cfg->blocks[b].ninsns != ninsns)
        fail_msg("block %d is [%u, +%u), expected [%u, +%u)", b, cfg->blocks[b].first,
                 cfg->blocks[b].ninsns, first, ninsns);
    if (cfg->blocks[b].is_exit != is_exit)
        fail_msg("block %d: is_exit %d, expected %d", b, cfg->blocks[b].is_exit, is_exit);
    for (uint32_t i = first; i < first + ninsns; i++)
        assert_int_equal(cfg->block_of_insn[i], b);
}

/* The successors of b, in order (fall-through first), ended by END. */
static void expect_succ(const mb_cfg *cfg, int b, ...)
{
    va_list ap;
    va_start(ap, b);
    const mb_graph *g = &cfg->graph;
    int k = g->succ_start[b];
    for (;;) {
        int want = va_arg(ap, int);
        if (want == END)
            break;
        if (k >= g->succ_start[b + 1])
            fail_msg("block %d: missing successor %d", b, want);
        if (g->succ[k] != want)
            fail_msg("block %d: successor #%d is %d, expected %d", b, k - g->succ_start[b],
                     g->succ[k], want);
        k++;
    }
    va_end(ap);
    if (k != g->succ_start[b + 1])
        fail_msg("block %d: %d successors, more than expected", b,
                 g->succ_start[b + 1] - g->succ_start[b]);
}

static void expect_ints(const int *got, const int *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (got[i] != want[i])
            fail_msg("%s[%d] = %d, expected %d", what, i, got[i], want[i]);
}

static void expect_loop(const mb_cfg *cfg, int i, int header, const int *blocks, int nblocks,
                        const int *latches, int nlatches, mb_loop_kind kind, int depth, int parent,
                        int nchildren)
{
    assert_true(i < cfg->loops.nloops);
    const mb_loop *lp = &cfg->loops.loops[i];
    assert_int_equal(lp->header, header);
    assert_int_equal(lp->nblocks, nblocks);
    expect_ints(lp->blocks, blocks, nblocks, "loop blocks");
    assert_int_equal(lp->nlatches, nlatches);
    expect_ints(lp->latches, latches, nlatches, "loop latches");
    if (lp->kind != kind)
        fail_msg("loop %d is %s, expected %s", i, mb_loop_kind_name(lp->kind),
                 mb_loop_kind_name(kind));
    assert_int_equal(lp->depth, depth);
    assert_int_equal(lp->parent, parent);
    assert_int_equal(lp->nchildren, nchildren);
}

static const char *block_name(const mb_cfg *cfg, int b)
{
    static char buf[64];
    return mb_cfg_block_name(cfg, b, buf, sizeof(buf));
}

/* --------------------------------------------------------------- shapes */

static void test_straight_line(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_straight.ptx", "straight");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(fx.fn->ninsns, 6);
    assert_int_equal(cfg->nblocks, 1);
    expect_block(cfg, 0, 0, 6, 1);
    assert_int_equal(cfg->blocks[0].label, -1);
    expect_succ(cfg, 0, END);
    assert_int_equal(cfg->idom[0], 0);
    assert_int_equal(cfg->ipdom[0], 1); /* function exit */
    assert_int_equal(cfg->loops.nloops, 0);
    assert_int_equal(cfg->loops.innermost[0], -1);
    assert_string_equal(block_name(cfg, 0), "BB0");
    unload(&fx);
}

static void test_diamond(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_diamond.ptx", "diamond");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(cfg->nblocks, 4);
    expect_block(cfg, 0, 0, 4, 0);
    expect_block(cfg, 1, 4, 2, 0);
    expect_block(cfg, 2, 6, 1, 0);
    expect_block(cfg, 3, 7, 3, 1);
    expect_succ(cfg, 0, 1, 2, END); /* fall-through (else) first, then the taken branch */
    expect_succ(cfg, 1, 3, END);
    expect_succ(cfg, 2, 3, END);
    expect_succ(cfg, 3, END);
    static const int idom[] = {0, 0, 0, 0};
    static const int ipdom[] = {3, 3, 3, 4}; /* the branch reconverges at the join */
    expect_ints(cfg->idom, idom, 4, "idom");
    expect_ints(cfg->ipdom, ipdom, 4, "ipdom");
    assert_int_equal(cfg->loops.nloops, 0);
    assert_int_equal(cfg->loops.nirreducible, 0);
    /* predecessors of the join, ascending */
    const mb_graph *g = &cfg->graph;
    assert_int_equal(g->pred_start[4] - g->pred_start[3], 2);
    assert_int_equal(g->pred[g->pred_start[3]], 1);
    assert_int_equal(g->pred[g->pred_start[3] + 1], 2);
    /* the else side ends in bra.uni */
    assert_int_equal(fx.fn->insns[5].opcode, MB_OP_BRA);
    assert_true(mb_insn_has_mod(&fx.fn->insns[5], MB_MOD_UNI));
    assert_string_equal(block_name(cfg, 0), "BB0");
    assert_string_equal(block_name(cfg, 1), "BB1");
    assert_string_equal(block_name(cfg, 2), "$L__THEN");
    assert_string_equal(block_name(cfg, 3), "$L__JOIN");
    assert_string_equal(block_name(cfg, 7), "BB7"); /* out of range: a plain name */
    unload(&fx);
}

static void test_tid_loop(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_loop.ptx", "tid_loop");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(cfg->nblocks, 4);
    expect_block(cfg, 0, 0, 6, 0);
    expect_block(cfg, 1, 6, 2, 0);
    expect_block(cfg, 2, 8, 3, 0);
    expect_block(cfg, 3, 11, 2, 1);
    expect_succ(cfg, 0, 1, 3, END);
    expect_succ(cfg, 1, 2, 3, END);
    expect_succ(cfg, 2, 1, END);
    expect_succ(cfg, 3, END);
    static const int idom[] = {0, 0, 1, 0};
    static const int ipdom[] = {3, 3, 1, 4};
    expect_ints(cfg->idom, idom, 4, "idom");
    expect_ints(cfg->ipdom, ipdom, 4, "ipdom");

    assert_int_equal(cfg->loops.nloops, 1);
    static const int body[] = {1, 2}, latches[] = {2};
    expect_loop(cfg, 0, 1, body, 2, latches, 1, MB_LOOP_NORMAL, 1, -1, 0);
    const mb_loop *lp = &cfg->loops.loops[0];
    assert_int_equal(lp->nexits, 1);
    assert_int_equal(lp->exits[0].from, 1);
    assert_int_equal(lp->exits[0].to, 3);
    static const int innermost[] = {-1, 0, 0, -1};
    expect_ints(cfg->loops.innermost, innermost, 4, "innermost");
    assert_true(mb_dominates(cfg->idom, 1, 2));
    assert_false(mb_dominates(cfg->idom, 2, 1));
    assert_string_equal(block_name(cfg, 1), "$L__HEAD");
    unload(&fx);
}

static void test_self_loop(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_self_loop.ptx", "self_loop");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(cfg->nblocks, 3);
    expect_block(cfg, 0, 0, 3, 0);
    expect_block(cfg, 1, 3, 3, 0);
    expect_block(cfg, 2, 6, 2, 1);
    expect_succ(cfg, 0, 1, END);
    expect_succ(cfg, 1, 2, 1, END);
    expect_succ(cfg, 2, END);
    static const int idom[] = {0, 0, 1};
    static const int ipdom[] = {1, 2, 3};
    expect_ints(cfg->idom, idom, 3, "idom");
    expect_ints(cfg->ipdom, ipdom, 3, "ipdom");
    assert_int_equal(cfg->loops.nloops, 1);
    static const int body[] = {1}, latches[] = {1};
    expect_loop(cfg, 0, 1, body, 1, latches, 1, MB_LOOP_SELF, 1, -1, 0);
    assert_int_equal(cfg->loops.loops[0].nexits, 1);
    assert_int_equal(cfg->loops.loops[0].exits[0].to, 2);
    assert_string_equal(mb_loop_kind_name(MB_LOOP_SELF), "self");
    unload(&fx);
}

static void test_nested_loops(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_nested.ptx", "nested");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(cfg->nblocks, 5);
    expect_block(cfg, 0, 0, 4, 0);
    expect_block(cfg, 1, 4, 1, 0);
    expect_block(cfg, 2, 5, 4, 0);
    expect_block(cfg, 3, 9, 3, 0);
    expect_block(cfg, 4, 12, 2, 1);
    expect_succ(cfg, 0, 1, END);
    expect_succ(cfg, 1, 2, END);
    expect_succ(cfg, 2, 3, 2, END);
    expect_succ(cfg, 3, 4, 1, END);
    expect_succ(cfg, 4, END);
    static const int idom[] = {0, 0, 1, 2, 3};
    static const int ipdom[] = {1, 2, 3, 4, 5};
    expect_ints(cfg->idom, idom, 5, "idom");
    expect_ints(cfg->ipdom, ipdom, 5, "ipdom");

    /* Preorder: the outer loop, then the inner self-loop nested in it. */
    assert_int_equal(cfg->loops.nloops, 2);
    static const int outer[] = {1, 2, 3}, outer_latches[] = {3};
    static const int inner[] = {2}, inner_latches[] = {2};
    expect_loop(cfg, 0, 1, outer, 3, outer_latches, 1, MB_LOOP_NESTED, 1, -1, 1);
    expect_loop(cfg, 1, 2, inner, 1, inner_latches, 1, MB_LOOP_SELF, 2, 0, 0);
    assert_int_equal(cfg->loops.loops[0].nexits, 1);
    assert_int_equal(cfg->loops.loops[0].exits[0].from, 3);
    assert_int_equal(cfg->loops.loops[0].exits[0].to, 4);
    assert_int_equal(cfg->loops.loops[1].exits[0].from, 2);
    assert_int_equal(cfg->loops.loops[1].exits[0].to, 3);
    static const int innermost[] = {-1, 0, 1, 0, -1};
    expect_ints(cfg->loops.innermost, innermost, 5, "innermost");
    assert_string_equal(mb_loop_kind_name(MB_LOOP_NESTED), "nested");
    unload(&fx);
}

static void test_guarded_ret(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_guarded_ret.ptx", "guarded_ret");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(cfg->nblocks, 2);
    /* @%p1 ret leaves the function for some threads and falls through for the rest. */
    expect_block(cfg, 0, 0, 4, 1);
    expect_block(cfg, 1, 4, 3, 1);
    assert_int_equal(fx.fn->insns[3].opcode, MB_OP_RET);
    assert_true(fx.fn->insns[3].guard >= 0);
    expect_succ(cfg, 0, 1, END);
    expect_succ(cfg, 1, END);
    static const int idom[] = {0, 0};
    static const int ipdom[] = {2, 2}; /* threads leaving at B0 reconverge only at exit */
    expect_ints(cfg->idom, idom, 2, "idom");
    expect_ints(cfg->ipdom, ipdom, 2, "ipdom");
    assert_int_equal(cfg->loops.nloops, 0);
    unload(&fx);
}

static void test_brx_multiway(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_brx.ptx", "multiway");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(fx.fn->ninsns, 11);
    assert_int_equal(cfg->nblocks, 5);
    expect_block(cfg, 0, 0, 4, 0);
    expect_block(cfg, 1, 4, 2, 0);
    expect_block(cfg, 2, 6, 2, 0);
    expect_block(cfg, 3, 8, 1, 0);
    expect_block(cfg, 4, 9, 2, 1);
    expect_succ(cfg, 0, 1, 2, 3, END); /* in .branchtargets order, no fall-through */
    expect_succ(cfg, 1, 4, END);
    expect_succ(cfg, 2, 4, END);
    expect_succ(cfg, 3, 4, END);
    expect_succ(cfg, 4, END);
    static const int idom[] = {0, 0, 0, 0, 0};
    static const int ipdom[] = {4, 4, 4, 4, 5};
    expect_ints(cfg->idom, idom, 5, "idom");
    expect_ints(cfg->ipdom, ipdom, 5, "ipdom");
    assert_int_equal(cfg->loops.nloops, 0);
    assert_string_equal(block_name(cfg, 3), "$L__CASE2");
    unload(&fx);
}

static void test_label_at_end(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_label_at_end.ptx", "label_at_end");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(fx.fn->ninsns, 6);
    assert_int_equal(cfg->nblocks, 3);
    expect_block(cfg, 0, 0, 4, 0);
    expect_block(cfg, 1, 4, 2, 0);
    expect_block(cfg, 2, 6, 0, 1); /* empty: falls off the end of the kernel */
    expect_succ(cfg, 0, 1, 2, END);
    expect_succ(cfg, 1, 2, END);
    expect_succ(cfg, 2, END);
    static const int idom[] = {0, 0, 0};
    static const int ipdom[] = {2, 2, 3};
    expect_ints(cfg->idom, idom, 3, "idom");
    expect_ints(cfg->ipdom, ipdom, 3, "ipdom");
    assert_string_equal(block_name(cfg, 2), "$L__END");
    unload(&fx);
}

static void test_empty_body(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_empty.ptx", "empty");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(fx.fn->ninsns, 0);
    assert_int_equal(cfg->nblocks, 1);
    expect_block(cfg, 0, 0, 0, 1);
    expect_succ(cfg, 0, END);
    assert_int_equal(cfg->idom[0], 0);
    assert_int_equal(cfg->ipdom[0], 1);
    assert_int_equal(cfg->loops.nloops, 0);
    unload(&fx);
}

static void test_unreachable_after_bra(void **state)
{
    (void)state;
    fixture fx;
    load(&fx, "cfg_unreachable.ptx", "unreachable");
    const mb_cfg *cfg = &fx.cfg;
    assert_int_equal(cfg->nblocks, 3);
    expect_block(cfg, 0, 0, 3, 0);
    expect_block(cfg, 1, 3, 2, 0);
    expect_block(cfg, 2, 5, 1, 1);
    expect_succ(cfg, 0, 2, END); /* unguarded bra: no fall-through edge */
    expect_succ(cfg, 1, 2, END);
    expect_succ(cfg, 2, END);
    static const int idom[] = {0, -1, 0}; /* B1 is unreachable */
    static const int ipdom[] = {2, 3, 3}; /* dead code reconverges "at exit" */
    expect_ints(cfg->idom, idom, 3, "idom");
    expect_ints(cfg->ipdom, ipdom, 3, "ipdom");
    assert_false(mb_dominates(cfg->idom, 0, 1));
    assert_int_equal(cfg->loops.nloops, 0);
    assert_int_equal(cfg->loops.innermost[1], -1);
    unload(&fx);
}

/* Inline PTX for shapes that need no file: an infinite loop and a guarded brx. */
static void test_inline_shapes(void **state)
{
    (void)state;
    static const char text[] =
        ".version 9.0\n.target sm_75\n"
        ".entry spin()\n{\n"
        "\t.reg .pred %p1;\n\t.reg .b32 %r<3>;\n"
        "\tmov.u32 %r1, %tid.x;\n"             /* 0 B0 */
        "\tsetp.eq.u32 %p1, %r1, 0;\n"         /* 1 */
        "\t@%p1 bra SPIN;\n"                   /* 2 */
        "\tret;\n"                             /* 3 B1 */
        "SPIN:\n\tbra.uni SPIN;\n"             /* 4 B2: never reaches an exit */
        "}\n"
        ".entry guarded_brx()\n{\n"
        "\t.reg .pred %p1;\n\t.reg .b32 %r<3>;\n"
        "\tmov.u32 %r1, %tid.x;\n"             /* 0 B0 */
        "\tsetp.lt.u32 %p1, %r1, 2;\n"         /* 1 */
        "\tts: .branchtargets A, B;\n"
        "\t@%p1 brx.idx %r1, ts;\n"            /* 2 */
        "\tret;\n"                             /* 3 B1 */
        "A:\n\tret;\n"                         /* 4 B2 */
        "B:\n\tret;\n"                         /* 5 B3 */
        "}\n";
    mb_module *m = NULL;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_ptx_parse(text, strlen(text), "inline.ptx", &m, &err), MB_OK);

    mb_cfg cfg;
    assert_int_equal(mb_cfg_build(mb_module_find_function(m, "spin"), &cfg, &err), MB_OK);
    assert_int_equal(cfg.nblocks, 3);
    expect_succ(&cfg, 0, 1, 2, END);
    expect_succ(&cfg, 1, END);
    expect_succ(&cfg, 2, 2, END);
    assert_int_equal(cfg.blocks[1].is_exit, 1);
    assert_int_equal(cfg.blocks[2].is_exit, 0);
    static const int spin_ipdom[] = {1, 3, 3}; /* the spin block cannot reach an exit */
    expect_ints(cfg.ipdom, spin_ipdom, 3, "ipdom");
    assert_int_equal(cfg.loops.nloops, 1);
    assert_int_equal(cfg.loops.loops[0].kind, MB_LOOP_SELF);
    assert_int_equal(cfg.loops.loops[0].nexits, 0);
    mb_cfg_free(&cfg);

    assert_int_equal(mb_cfg_build(mb_module_find_function(m, "guarded_brx"), &cfg, &err), MB_OK);
    assert_int_equal(cfg.nblocks, 4);
    expect_succ(&cfg, 0, 1, 2, 3, END); /* guarded: fall-through first, then the targets */
    static const int brx_ipdom[] = {4, 4, 4, 4};
    expect_ints(cfg.ipdom, brx_ipdom, 4, "ipdom");
    mb_cfg_free(&cfg);
    mb_module_free(m);
}

static void test_cfg_errors(void **state)
{
    (void)state;
    static const char text[] = ".version 9.0\n.target sm_75\n.func decl_only(.param .b32 a);\n";
    mb_module *m = NULL;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_ptx_parse(text, strlen(text), "decl.ptx", &m, &err), MB_OK);
    mb_cfg cfg;
    memset(&cfg, 0xab, sizeof(cfg));
    assert_int_equal(mb_cfg_build(&m->funcs[0], &cfg, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "decl_only"));
    assert_int_equal(cfg.nblocks, 0);
    assert_null(cfg.blocks);
    mb_cfg_free(&cfg); /* safe on a failed build */
    mb_cfg_free(&cfg);
    mb_cfg_free(NULL);
    mb_module_free(m);
}

/* ------------------------------------------------------------- resources */

static void test_resources(void **state)
{
    (void)state;
    mb_module *m = NULL;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_ptx_parse_file(MB_TEST_DATA "/ptx/resources.ptx", &m, &err), MB_OK);

    mb_resources r;
    assert_int_equal(mb_function_resources(m, mb_module_find_function(m, "res_kernel"), &r, &err),
                     MB_OK);
    assert_int_equal(r.nparams, 3);
    assert_int_equal(r.param_bytes, 36); /* 8 + 4, aligned to 16, + 20 */
    assert_int_equal(r.nregs, 18);
    assert_int_equal(r.regs_by_size[0], 3); /* predicates */
    assert_int_equal(r.regs_by_size[1], 2); /* 16-bit */
    assert_int_equal(r.regs_by_size[2], 7); /* 32-bit */
    assert_int_equal(r.regs_by_size[3], 5); /* 64-bit */
    assert_int_equal(r.regs_by_size[4], 1); /* 128-bit (.v2 .b64) */
    assert_int_equal(r.shared_bytes, 96 + 256);
    assert_int_equal(r.dynamic_shared, 1);
    assert_int_equal(r.local_bytes, 40 + 24); /* own depot + helper's */
    assert_int_equal(r.const_bytes, 32 + 16); /* through the ptrs table */
    assert_int_equal(r.ncallees, 1);
    assert_int_equal(r.has_indirect_calls, 0);

    assert_int_equal(mb_function_resources(m, mb_module_find_function(m, "bare_kernel"), &r, &err),
                     MB_OK);
    assert_int_equal(r.nparams, 0);
    assert_int_equal(r.param_bytes, 0);
    assert_int_equal(r.nregs, 0);
    assert_int_equal(r.shared_bytes, 0);
    assert_int_equal(r.dynamic_shared, 0);
    assert_int_equal(r.local_bytes, 0);
    assert_int_equal(r.const_bytes, 0);
    assert_int_equal(r.ncallees, 0);

    assert_int_equal(
        mb_function_resources(m, mb_module_find_function(m, "indirect_kernel"), &r, &err), MB_OK);
    assert_int_equal(r.has_indirect_calls, 1);
    assert_int_equal(r.ncallees, 1);     /* helper's address is taken */
    assert_int_equal(r.local_bytes, 24); /* so its frame counts */
    assert_int_equal(r.param_bytes, 8);
    assert_int_equal(r.nregs, 6); /* %r<3> + %rd<3> */
    assert_int_equal(r.shared_bytes, 0);

    /* The helper alone: its own frame and parameter. */
    assert_int_equal(mb_function_resources(m, mb_module_find_function(m, "helper"), &r, &err), MB_OK);
    assert_int_equal(r.nparams, 1);
    assert_int_equal(r.param_bytes, 4);
    assert_int_equal(r.local_bytes, 24);
    assert_int_equal(r.ncallees, 0);
    assert_int_equal(r.regs_by_size[3], 2);
    mb_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_straight_line),
        cmocka_unit_test(test_diamond),
        cmocka_unit_test(test_tid_loop),
        cmocka_unit_test(test_self_loop),
        cmocka_unit_test(test_nested_loops),
        cmocka_unit_test(test_guarded_ret),
        cmocka_unit_test(test_brx_multiway),
        cmocka_unit_test(test_label_at_end),
        cmocka_unit_test(test_empty_body),
        cmocka_unit_test(test_unreachable_after_bra),
        cmocka_unit_test(test_inline_shapes),
        cmocka_unit_test(test_cfg_errors),
        cmocka_unit_test(test_resources),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
