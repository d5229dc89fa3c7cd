/*
 * Unit tests for profiler/src/graph.c: graph building, reverse postorder,
 * dominators, post-dominators and natural loops.
 *
 * Small hand-drawn graphs check exact results; a randomized test checks
 * 200 random graphs against brute-force definitions.
 *
 * When built with MB_GRAPH_ALLOC_HOOK defined (and graph.c compiled into
 * the same program with that definition), this file supplies the
 * allocation hook and an extra test fails every allocation in turn.
 */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph.h"

#ifdef MB_GRAPH_ALLOC_HOOK
static long alloc_calls;
static long alloc_fail_at = -1; /* index of the allocation to fail, -1 for none */

void *mb_graph_test_alloc(size_t size);
void *mb_graph_test_alloc(size_t size)
{
    if (alloc_fail_at >= 0 && alloc_calls++ == alloc_fail_at)
        return NULL;
    return malloc(size);
}
#endif

/* ---------------------------------------------------------------- helpers */

#define NEDGES(e) ((int)(sizeof(e) / sizeof((e)[0])))

/* Everything computed for one graph. */
typedef struct analysis {
    mb_graph g;
    int *idom;
    int *ipdom;
    mb_loop_forest f;
} analysis;

/* Builds the graph and runs every analysis; `exits` lists the exit nodes,
 * terminated by -1. */
static void analyze(analysis *a, int n, const mb_edge *edges, int nedges, const int *exits, int entry)
{
    mb_error err;
    memset(a, 0, sizeof *a);
    assert_int_equal(mb_graph_build(&a->g, n, edges, nedges, &err), MB_OK);
    a->idom = malloc(sizeof(int) * (size_t)(n ? n : 1));
    a->ipdom = malloc(sizeof(int) * (size_t)(n ? n : 1));
    unsigned char *is_exit = calloc((size_t)(n ? n : 1), 1);
    assert_non_null(a->idom);
    assert_non_null(a->ipdom);
    assert_non_null(is_exit);
    for (int i = 0; exits && exits[i] >= 0; i++)
        is_exit[exits[i]] = 1;
    assert_int_equal(mb_dominators(&a->g, entry, a->idom, &err), MB_OK);
    assert_int_equal(mb_postdominators(&a->g, is_exit, a->ipdom, &err), MB_OK);
    assert_int_equal(mb_find_loops(&a->g, entry, a->idom, &a->f, &err), MB_OK);
    free(is_exit);
}

static void release(analysis *a)
{
    mb_graph_free(&a->g);
    mb_loop_forest_free(&a->f);
    free(a->idom);
    free(a->ipdom);
    memset(a, 0, sizeof *a);
}

static void check_ints(const int *actual, const int *expected, int count)
{
    for (int i = 0; i < count; i++) {
        if (actual[i] != expected[i]) {
            print_error("index %d: got %d, expected %d\n", i, actual[i], expected[i]);
            fail();
        }
    }
}

static void check_rpo(const mb_graph *g, int entry, const int *expected, int count)
{
    int *order = malloc(sizeof(int) * (size_t)(g->n ? g->n : 1));
    assert_non_null(order);
    assert_int_equal(mb_graph_rpo(g, entry, order), count);
    check_ints(order, expected, count);
    free(order);
}

/* Checks one loop's header, body, latches and exits (exits as from,to pairs). */
static void check_loop(const mb_loop *lp, int header, const int *blocks, int nblocks, const int *latches,
                       int nlatches, const int *exits, int nexits)
{
    assert_int_equal(lp->header, header);
    assert_int_equal(lp->nblocks, nblocks);
    check_ints(lp->blocks, blocks, nblocks);
    assert_int_equal(lp->nlatches, nlatches);
    check_ints(lp->latches, latches, nlatches);
    assert_int_equal(lp->nexits, nexits);
    for (int i = 0; i < nexits; i++) {
        assert_int_equal(lp->exits[i].from, exits[2 * i]);
        assert_int_equal(lp->exits[i].to, exits[2 * i + 1]);
    }
    if (nexits == 0)
        assert_null(lp->exits);
}

/* Post-dominance by walking an ipdom array whose root is the virtual node n. */
static int postdominates(const int *ipdom, int n, int a, int b)
{
    for (int steps = 0; steps <= n + 1; steps++) {
        if (b == a)
            return 1;
        if (b == n)
            return 0;
        b = ipdom[b];
    }
    print_error("ipdom chain does not end at the virtual exit\n");
    fail();
    return 0;
}

/* ------------------------------------------------------------ small graphs */

/*
 *   0 -> 1 -> 2 -> 3 (exit)
 */
static void test_straight_line(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {1, 2}, {2, 3}};
    static const int exits[] = {3, -1};
    analysis a;
    analyze(&a, 4, e, NEDGES(e), exits, 0);
    check_rpo(&a.g, 0, (const int[]){0, 1, 2, 3}, 4);
    check_ints(a.idom, (const int[]){0, 0, 1, 2}, 4);
    check_ints(a.ipdom, (const int[]){1, 2, 3, 4}, 4);
    assert_int_equal(a.f.nloops, 0);
    assert_null(a.f.loops);
    check_ints(a.f.innermost, (const int[]){-1, -1, -1, -1}, 4);
    assert_int_equal(a.f.nirreducible, 0);
    /* the CSR arrays */
    check_ints(a.g.succ_start, (const int[]){0, 1, 2, 3, 3}, 5);
    check_ints(a.g.succ, (const int[]){1, 2, 3}, 3);
    check_ints(a.g.pred_start, (const int[]){0, 0, 1, 2, 3}, 5);
    check_ints(a.g.pred, (const int[]){0, 1, 2}, 3);
    release(&a);
}

/*
 *       0
 *      / \
 *     1   2
 *      \ /
 *       3 (exit)
 */
static void test_diamond(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
    static const int exits[] = {3, -1};
    analysis a;
    analyze(&a, 4, e, NEDGES(e), exits, 0);
    check_rpo(&a.g, 0, (const int[]){0, 1, 2, 3}, 4);
    check_ints(a.idom, (const int[]){0, 0, 0, 0}, 4);
    check_ints(a.ipdom, (const int[]){3, 3, 3, 4}, 4); /* the branch reconverges at the join */
    assert_int_equal(a.f.nloops, 0);
    assert_true(mb_dominates(a.idom, 0, 3));
    assert_false(mb_dominates(a.idom, 1, 3));
    assert_false(mb_dominates(a.idom, 2, 3));
    assert_true(mb_dominates(a.idom, 3, 3));
    release(&a);
}

/*
 *     0
 *     |\
 *     1 |
 *     |/
 *     2 (exit)
 */
static void test_if_then(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {0, 2}, {1, 2}};
    static const int exits[] = {2, -1};
    analysis a;
    analyze(&a, 3, e, NEDGES(e), exits, 0);
    check_rpo(&a.g, 0, (const int[]){0, 1, 2}, 3);
    check_ints(a.idom, (const int[]){0, 0, 0}, 3);
    check_ints(a.ipdom, (const int[]){2, 2, 3}, 3);
    assert_int_equal(a.f.nloops, 0);
    release(&a);
}

/*
 *     0
 *     |
 *     1 <--+    header (target point)
 *     |\   |
 *     | 2 -+    latch (jump point)
 *     |
 *     3 (exit)
 */
static void test_while_loop(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {1, 2}, {1, 3}, {2, 1}};
    static const int exits[] = {3, -1};
    analysis a;
    analyze(&a, 4, e, NEDGES(e), exits, 0);
    check_rpo(&a.g, 0, (const int[]){0, 1, 2, 3}, 4);
    check_ints(a.idom, (const int[]){0, 0, 1, 1}, 4);
    check_ints(a.ipdom, (const int[]){1, 3, 1, 4}, 4);
    assert_int_equal(a.f.nloops, 1);
    const mb_loop *lp = &a.f.loops[0];
    check_loop(lp, 1, (const int[]){1, 2}, 2, (const int[]){2}, 1, (const int[]){1, 3}, 1);
    assert_int_equal(lp->kind, MB_LOOP_NORMAL);
    assert_int_equal(lp->parent, -1);
    assert_int_equal(lp->depth, 1);
    assert_int_equal(lp->nchildren, 0);
    check_ints(a.f.innermost, (const int[]){-1, 0, 0, -1}, 4);
    assert_int_equal(a.f.nirreducible, 0);
    release(&a);
}

/*
 *     0
 *     |
 *     1 <-+   (1 -> 1)
 *     |---+
 *     2 (exit)
 */
static void test_self_loop(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {1, 2}, {1, 1}};
    static const int exits[] = {2, -1};
    analysis a;
    analyze(&a, 3, e, NEDGES(e), exits, 0);
    check_ints(a.idom, (const int[]){0, 0, 1}, 3);
    check_ints(a.ipdom, (const int[]){1, 2, 3}, 3);
    assert_int_equal(a.f.nloops, 1);
    const mb_loop *lp = &a.f.loops[0];
    check_loop(lp, 1, (const int[]){1}, 1, (const int[]){1}, 1, (const int[]){1, 2}, 1);
    assert_int_equal(lp->kind, MB_LOOP_SELF);
    assert_string_equal(mb_loop_kind_name(lp->kind), "self");
    assert_int_equal(lp->depth, 1);
    check_ints(a.f.innermost, (const int[]){-1, 0, -1}, 3);
    release(&a);
}

/*
 * Two back edges to one header (a `continue` and the loop end) form one loop:
 *
 *     0
 *     |
 *     1 <-----+    header
 *     |\      |
 *     | 2 ----+    latch (continue)
 *     | |     |
 *     | 3 ----+    latch
 *     |
 *     4 (exit)
 *
 * and a header that also branches to itself:
 *
 *     0 -> 1 <-+ (1 -> 1)
 *          |   |
 *          2 --+
 *          |
 *          3 (exit)
 */
static void test_shared_header(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {1, 2}, {1, 4}, {2, 3}, {2, 1}, {3, 1}};
    static const int exits[] = {4, -1};
    analysis a;
    analyze(&a, 5, e, NEDGES(e), exits, 0);
    assert_int_equal(a.f.nloops, 1);
    const mb_loop *lp = &a.f.loops[0];
    check_loop(lp, 1, (const int[]){1, 2, 3}, 3, (const int[]){2, 3}, 2, (const int[]){1, 4}, 1);
    assert_int_equal(lp->kind, MB_LOOP_NORMAL);
    check_ints(a.f.innermost, (const int[]){-1, 0, 0, 0, -1}, 5);
    check_ints(a.ipdom, (const int[]){1, 4, 1, 1, 5}, 5);
    release(&a);

    static const mb_edge e2[] = {{0, 1}, {1, 2}, {1, 1}, {2, 3}, {2, 1}};
    static const int exits2[] = {3, -1};
    analyze(&a, 4, e2, NEDGES(e2), exits2, 0);
    assert_int_equal(a.f.nloops, 1);
    lp = &a.f.loops[0];
    check_loop(lp, 1, (const int[]){1, 2}, 2, (const int[]){1, 2}, 2, (const int[]){2, 3}, 1);
    assert_int_equal(lp->kind, MB_LOOP_NORMAL);
    release(&a);
}

/*
 * Loops nested three deep, a self-loop innermost (paper Fig. 11c):
 *
 *     0
 *     |
 *     1 <--------+   outer header
 *     |          |
 *     2 <-----+  |   middle header
 *     |       |  |
 *     3 <-+   |  |   self-loop
 *     |---+   |  |
 *     4 ------+  |   middle latch
 *     |          |
 *     5 ---------+   outer latch
 *     |
 *     6 (exit)
 */
static void test_nested_three_deep(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {3, 3}, {4, 5}, {4, 2}, {5, 6}, {5, 1}};
    static const int exits[] = {6, -1};
    analysis a;
    analyze(&a, 7, e, NEDGES(e), exits, 0);
    check_ints(a.idom, (const int[]){0, 0, 1, 2, 3, 4, 5}, 7);
    check_ints(a.ipdom, (const int[]){1, 2, 3, 4, 5, 6, 7}, 7);
    assert_int_equal(a.f.nloops, 3);
    assert_int_equal(a.f.nirreducible, 0);

    const mb_loop *outer = &a.f.loops[0], *middle = &a.f.loops[1], *inner = &a.f.loops[2];
    check_loop(outer, 1, (const int[]){1, 2, 3, 4, 5}, 5, (const int[]){5}, 1, (const int[]){5, 6}, 1);
    check_loop(middle, 2, (const int[]){2, 3, 4}, 3, (const int[]){4}, 1, (const int[]){4, 5}, 1);
    check_loop(inner, 3, (const int[]){3}, 1, (const int[]){3}, 1, (const int[]){3, 4}, 1);

    assert_int_equal(outer->kind, MB_LOOP_NESTED);
    assert_int_equal(middle->kind, MB_LOOP_NESTED);
    assert_int_equal(inner->kind, MB_LOOP_SELF);
    assert_int_equal(outer->parent, -1);
    assert_int_equal(middle->parent, 0);
    assert_int_equal(inner->parent, 1);
    assert_int_equal(outer->depth, 1);
    assert_int_equal(middle->depth, 2);
    assert_int_equal(inner->depth, 3);
    assert_int_equal(outer->nchildren, 1);
    assert_int_equal(middle->nchildren, 1);
    assert_int_equal(inner->nchildren, 0);
    check_ints(a.f.innermost, (const int[]){-1, 0, 1, 2, 1, 0, -1}, 7);
    release(&a);
}

/*
 * Loop order: preorder of the nesting tree, siblings by header id.
 *
 *     0
 *     |
 *     7 <----------+   outer header
 *     |            |
 *     4 <-+ (4->4) |   self-loop
 *     |---+        |
 *     2 <-+        |   normal loop {2,3}
 *     |   |        |
 *     3 --+        |
 *     |            |
 *     6 -----------+   outer latch
 *     |
 *     1 <-+            second outermost loop {1,5}
 *     |   |
 *     5 --+
 *     |
 *     8 (exit)
 *
 * Outermost loops by header: 1, then 7 followed by its children 2 and 4.
 */
static void test_loop_order(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 7}, {7, 4}, {4, 2}, {4, 4}, {2, 3}, {3, 6},
                                {3, 2}, {6, 1}, {6, 7}, {1, 5}, {5, 8}, {5, 1}};
    static const int exits[] = {8, -1};
    analysis a;
    analyze(&a, 9, e, NEDGES(e), exits, 0);
    check_rpo(&a.g, 0, (const int[]){0, 7, 4, 2, 3, 6, 1, 5, 8}, 9);
    assert_int_equal(a.f.nloops, 4);
    const mb_loop *l = a.f.loops;
    check_loop(&l[0], 1, (const int[]){1, 5}, 2, (const int[]){5}, 1, (const int[]){5, 8}, 1);
    check_loop(&l[1], 7, (const int[]){2, 3, 4, 6, 7}, 5, (const int[]){6}, 1, (const int[]){6, 1}, 1);
    check_loop(&l[2], 2, (const int[]){2, 3}, 2, (const int[]){3}, 1, (const int[]){3, 6}, 1);
    check_loop(&l[3], 4, (const int[]){4}, 1, (const int[]){4}, 1, (const int[]){4, 2}, 1);
    assert_int_equal(l[0].kind, MB_LOOP_NORMAL);
    assert_int_equal(l[1].kind, MB_LOOP_NESTED);
    assert_int_equal(l[2].kind, MB_LOOP_NORMAL);
    assert_int_equal(l[3].kind, MB_LOOP_SELF);
    check_ints((const int[]){l[0].parent, l[1].parent, l[2].parent, l[3].parent}, (const int[]){-1, -1, 1, 1}, 4);
    check_ints((const int[]){l[0].depth, l[1].depth, l[2].depth, l[3].depth}, (const int[]){1, 1, 2, 2}, 4);
    assert_int_equal(l[1].nchildren, 2);
    check_ints(a.f.innermost, (const int[]){-1, 0, 2, 2, 3, 0, 1, 1, -1}, 9);
    release(&a);
}

/*
 * A loop left by its condition and by a `break`:
 *
 *     0
 *     |
 *     1 <-----+   header
 *     |\      |
 *     | 2     |
 *     | |\    |
 *     | | 3 --+   latch
 *     | 4         break target
 *     |/
 *     5 (exit)
 */
static void test_loop_two_exits(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {1, 2}, {1, 5}, {2, 3}, {2, 4}, {3, 1}, {4, 5}};
    static const int exits[] = {5, -1};
    analysis a;
    analyze(&a, 6, e, NEDGES(e), exits, 0);
    check_ints(a.idom, (const int[]){0, 0, 1, 2, 2, 1}, 6);
    check_ints(a.ipdom, (const int[]){1, 5, 5, 1, 5, 6}, 6);
    assert_int_equal(a.f.nloops, 1);
    check_loop(&a.f.loops[0], 1, (const int[]){1, 2, 3}, 3, (const int[]){3}, 1, (const int[]){1, 5, 2, 4}, 2);
    assert_int_equal(a.f.loops[0].kind, MB_LOOP_NORMAL);
    release(&a);
}

/*
 * Node 3 is unreachable from the entry (and loops on itself):
 *
 *     0 -> 1 -> 2 (exit) <- 3 <-+ (3 -> 3)
 *                           |---+
 */
static void test_unreachable(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {1, 2}, {3, 2}, {3, 3}};
    static const int exits[] = {2, -1};
    analysis a;
    analyze(&a, 4, e, NEDGES(e), exits, 0);
    check_rpo(&a.g, 0, (const int[]){0, 1, 2}, 3);
    check_ints(a.idom, (const int[]){0, 0, 1, -1}, 4);
    check_ints(a.ipdom, (const int[]){1, 2, 4, 4}, 4);
    assert_false(mb_dominates(a.idom, 3, 3));
    assert_false(mb_dominates(a.idom, 0, 3));
    assert_false(mb_dominates(a.idom, 3, 2));
    assert_int_equal(a.f.nloops, 0); /* the self-loop at 3 is dead code */
    check_ints(a.f.innermost, (const int[]){-1, -1, -1, -1}, 4);
    /* a search from node 3 sees only 3 and 2 */
    check_rpo(&a.g, 3, (const int[]){3, 2}, 2);
    release(&a);
}

/*
 * An infinite loop with no path to the exit:
 *
 *     0 ----> 3 (exit)
 *     |
 *     1 <-+
 *     |   |
 *     2 --+
 */
static void test_infinite_loop(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 3}, {0, 1}, {1, 2}, {2, 1}};
    static const int exits[] = {3, -1};
    analysis a;
    analyze(&a, 4, e, NEDGES(e), exits, 0);
    check_ints(a.idom, (const int[]){0, 0, 1, 0}, 4);
    /* 1 and 2 never reach the exit; every path from 0 that does goes through 3 */
    check_ints(a.ipdom, (const int[]){3, 4, 4, 4}, 4);
    assert_int_equal(a.f.nloops, 1);
    check_loop(&a.f.loops[0], 1, (const int[]){1, 2}, 2, (const int[]){2}, 1, NULL, 0);
    assert_int_equal(a.f.loops[0].kind, MB_LOOP_NORMAL);
    release(&a);
}

/*
 * An irreducible cycle {1, 2} entered at both nodes:
 *
 *       0
 *      / \
 *     1 <-> 2
 *           |
 *           3 (exit)
 *
 * The search from 0 reaches 2 first, then 1; the edge 1 -> 2 retreats to a
 * node that does not dominate 1: one irreducible edge, no natural loop.
 */
static void test_irreducible(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {0, 2}, {1, 2}, {2, 1}, {2, 3}};
    static const int exits[] = {3, -1};
    analysis a;
    analyze(&a, 4, e, NEDGES(e), exits, 0);
    check_ints(a.idom, (const int[]){0, 0, 0, 2}, 4);
    check_ints(a.ipdom, (const int[]){2, 2, 3, 4}, 4);
    assert_int_equal(a.f.nloops, 0);
    assert_int_equal(a.f.nirreducible, 1);
    check_ints(a.f.innermost, (const int[]){-1, -1, -1, -1}, 4);
    release(&a);
}

/*
 * Both sides of a branch return:
 *
 *       0
 *      / \
 *     1   2      (both exit)
 */
static void test_multiple_exits(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 1}, {0, 2}};
    static const int exits[] = {1, 2, -1};
    analysis a;
    analyze(&a, 3, e, NEDGES(e), exits, 0);
    check_ints(a.idom, (const int[]){0, 0, 0}, 3);
    check_ints(a.ipdom, (const int[]){3, 3, 3}, 3); /* reconverge only at function exit */
    release(&a);
}

/*
 * Duplicate edges are kept once, in first-appearance order:
 *
 *     edges 0->2, 0->1, 0->2, 1->2, 1->2, 0->1
 *
 *     0 --> 2
 *     |    ^
 *     v   /
 *     1 -+
 */
static void test_duplicate_edges(void **state)
{
    (void)state;
    static const mb_edge e[] = {{0, 2}, {0, 1}, {0, 2}, {1, 2}, {1, 2}, {0, 1}};
    static const int exits[] = {2, -1};
    analysis a;
    analyze(&a, 3, e, NEDGES(e), exits, 0);
    check_ints(a.g.succ_start, (const int[]){0, 2, 3, 3}, 4);
    check_ints(a.g.succ, (const int[]){2, 1, 2}, 3); /* 0: 2 then 1, as first listed */
    check_ints(a.g.pred_start, (const int[]){0, 0, 1, 3}, 4);
    check_ints(a.g.pred, (const int[]){0, 0, 1}, 3);
    check_ints(a.idom, (const int[]){0, 0, 0}, 3);
    check_ints(a.ipdom, (const int[]){2, 2, 3}, 3);
    release(&a);

    /* duplicated back edge: still one latch */
    static const mb_edge e2[] = {{0, 1}, {1, 2}, {2, 1}, {2, 1}, {1, 3}, {2, 1}};
    static const int exits2[] = {3, -1};
    analyze(&a, 4, e2, NEDGES(e2), exits2, 0);
    assert_int_equal(a.f.nloops, 1);
    check_loop(&a.f.loops[0], 1, (const int[]){1, 2}, 2, (const int[]){2}, 1, (const int[]){1, 3}, 1);
    release(&a);
}

static void test_bad_input(void **state)
{
    (void)state;
    mb_graph g;
    mb_error err;
    memset(&err, 0, sizeof err);
    static const mb_edge e[] = {{0, 1}, {1, 2}, {2, 4}};

    memset(&g, 0x5a, sizeof g); /* uninitialised: must come back zeroed */
    assert_int_equal(mb_graph_build(&g, 4, e, NEDGES(e), &err), MB_ERR_INVALID);
    assert_int_equal(err.status, MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "edge 2 (2 -> 4)"));
    assert_non_null(strstr(err.msg, "0..3"));
    assert_int_equal(g.n, 0);
    assert_null(g.succ_start);
    assert_null(g.succ);
    assert_null(g.pred_start);
    assert_null(g.pred);
    mb_graph_free(&g);

    static const mb_edge neg[] = {{0, 1}, {-1, 0}};
    assert_int_equal(mb_graph_build(&g, 2, neg, NEDGES(neg), &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "edge 1 (-1 -> 0)"));
    assert_int_equal(mb_graph_build(&g, -1, NULL, 0, &err), MB_ERR_INVALID);
    assert_int_equal(mb_graph_build(&g, 2, e, -1, &err), MB_ERR_INVALID);
    assert_int_equal(mb_graph_build(&g, 2, NULL, 1, &err), MB_ERR_INVALID);
    assert_int_equal(mb_graph_build(NULL, 2, e, 1, &err), MB_ERR_INVALID);
    assert_int_equal(mb_graph_build(&g, 2, e, 1, NULL), MB_OK); /* a NULL error record is fine */
    mb_graph_free(&g);

    /* too many nodes: refused before allocating anything */
    assert_int_equal(mb_graph_build(&g, INT_MAX, NULL, 0, &err), MB_ERR_NOMEM);
    assert_int_equal(err.status, MB_ERR_NOMEM);
    assert_int_equal(g.n, 0);
    assert_null(g.succ_start);

    /* analyses with bad arguments */
    static const mb_edge ok[] = {{0, 1}, {1, 2}};
    assert_int_equal(mb_graph_build(&g, 3, ok, NEDGES(ok), &err), MB_OK);
    int idom[3], ipdom[3], order[3];
    unsigned char is_exit[3] = {0, 0, 1};
    assert_int_equal(mb_dominators(&g, 3, idom, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "entry 3"));
    assert_int_equal(mb_dominators(&g, -1, idom, &err), MB_ERR_INVALID);
    assert_int_equal(mb_dominators(NULL, 0, idom, &err), MB_ERR_INVALID);
    assert_int_equal(mb_dominators(&g, 0, NULL, &err), MB_ERR_INVALID);
    assert_int_equal(mb_postdominators(&g, NULL, ipdom, &err), MB_ERR_INVALID);
    assert_int_equal(mb_postdominators(&g, is_exit, NULL, &err), MB_ERR_INVALID);
    assert_int_equal(mb_postdominators(NULL, is_exit, ipdom, &err), MB_ERR_INVALID);
    assert_int_equal(mb_graph_rpo(&g, 5, order), 0);
    assert_int_equal(mb_graph_rpo(&g, -1, order), 0);
    assert_int_equal(mb_graph_rpo(NULL, 0, order), -1);
    assert_int_equal(mb_graph_rpo(&g, 0, NULL), -1);

    mb_loop_forest f;
    assert_int_equal(mb_dominators(&g, 0, idom, &err), MB_OK);
    memset(&f, 0x5a, sizeof f);
    assert_int_equal(mb_find_loops(&g, 7, idom, &f, &err), MB_ERR_INVALID);
    assert_int_equal(f.nloops, 0);
    assert_null(f.loops);
    assert_null(f.innermost);
    assert_int_equal(mb_find_loops(&g, 0, NULL, &f, &err), MB_ERR_INVALID);
    assert_int_equal(mb_find_loops(NULL, 0, idom, &f, &err), MB_ERR_INVALID);
    assert_int_equal(mb_find_loops(&g, 0, idom, NULL, &err), MB_ERR_INVALID);
    int bad_idom[3] = {0, 0, 3};
    assert_int_equal(mb_find_loops(&g, 0, bad_idom, &f, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "idom[2] = 3"));
    int bad_root[3] = {1, 0, 1};
    assert_int_equal(mb_find_loops(&g, 0, bad_root, &f, &err), MB_ERR_INVALID);
    mb_loop_forest_free(&f);
    mb_loop_forest_free(NULL);
    mb_graph_free(&g);
    mb_graph_free(NULL);

    /* mb_dominates edge cases */
    int tree[4] = {0, 0, 1, -1};
    assert_true(mb_dominates(tree, 0, 2));
    assert_true(mb_dominates(tree, 1, 2));
    assert_false(mb_dominates(tree, 2, 1));
    assert_false(mb_dominates(tree, -1, 2));
    assert_false(mb_dominates(tree, 0, -1));
    assert_false(mb_dominates(tree, 3, 3));
    assert_false(mb_dominates(tree, 0, 3));
    assert_false(mb_dominates(NULL, 0, 0));

    assert_string_equal(mb_loop_kind_name(MB_LOOP_SELF), "self");
    assert_string_equal(mb_loop_kind_name(MB_LOOP_NORMAL), "normal");
    assert_string_equal(mb_loop_kind_name(MB_LOOP_NESTED), "nested");
    assert_string_equal(mb_loop_kind_name((mb_loop_kind)42), "unknown");
}

static void test_empty_graph(void **state)
{
    (void)state;
    mb_graph g;
    mb_error err;
    assert_int_equal(mb_graph_build(&g, 0, NULL, 0, &err), MB_OK);
    assert_int_equal(g.n, 0);
    assert_non_null(g.succ_start);
    assert_non_null(g.pred_start);
    assert_int_equal(g.succ_start[0], 0);
    assert_int_equal(g.pred_start[0], 0);
    int dummy = 12345;
    assert_int_equal(mb_graph_rpo(&g, 0, &dummy), 0);
    assert_int_equal(mb_dominators(&g, 0, &dummy, &err), MB_OK);
    assert_int_equal(mb_postdominators(&g, NULL, &dummy, &err), MB_OK);
    assert_int_equal(dummy, 12345); /* nothing written */
    mb_loop_forest f;
    assert_int_equal(mb_find_loops(&g, 0, &dummy, &f, &err), MB_OK);
    assert_int_equal(f.nloops, 0);
    assert_null(f.loops);
    assert_null(f.innermost);
    assert_int_equal(f.nirreducible, 0);
    mb_loop_forest_free(&f);
    mb_graph_free(&g);

    static const mb_edge e[] = {{0, 0}};
    assert_int_equal(mb_graph_build(&g, 0, e, 1, &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "edge 0 (0 -> 0)"));

    /* one node, no edges */
    static const int exits[] = {0, -1};
    analysis a;
    analyze(&a, 1, NULL, 0, exits, 0);
    check_ints(a.idom, (const int[]){0}, 1);
    check_ints(a.ipdom, (const int[]){1}, 1);
    assert_int_equal(a.f.nloops, 0);
    release(&a);
}

/*
 * Big graphs: a 200000-node chain with one loop around it, and 2000 loops
 * nested inside each other (nodes 1..2000 are headers, node 4001 - i jumps
 * back to header i). Checks that nothing recurses and the cost stays sane.
 */
static void test_big_graphs(void **state)
{
    (void)state;
    enum { N = 200000 };
    mb_edge *e = malloc(sizeof(mb_edge) * N);
    assert_non_null(e);
    for (int i = 0; i + 1 < N; i++)
        e[i] = (mb_edge){i, i + 1};
    e[N - 1] = (mb_edge){N - 2, 1}; /* back edge; N-1 is the exit */
    static const int exits[] = {N - 1, -1};
    analysis a;
    analyze(&a, N, e, N, exits, 0);
    assert_int_equal(a.idom[N - 1], N - 2);
    assert_int_equal(a.ipdom[0], 1);
    assert_int_equal(a.ipdom[1], 2);
    assert_int_equal(a.ipdom[N - 2], N - 1);
    assert_int_equal(a.f.nloops, 1);
    assert_int_equal(a.f.loops[0].header, 1);
    assert_int_equal(a.f.loops[0].nblocks, N - 2);
    assert_int_equal(a.f.loops[0].kind, MB_LOOP_NORMAL);
    release(&a);
    free(e);

    enum { K = 2000, M = 2 * K + 2 };
    int ne = 0;
    e = malloc(sizeof(mb_edge) * 2 * M);
    assert_non_null(e);
    for (int i = 0; i + 1 < M; i++)
        e[ne++] = (mb_edge){i, i + 1};
    for (int i = 1; i <= K; i++)
        e[ne++] = (mb_edge){2 * K + 1 - i, i};
    static const int exits2[] = {M - 1, -1};
    analyze(&a, M, e, ne, exits2, 0);
    assert_int_equal(a.f.nloops, K);
    for (int i = 0; i < K; i++) {
        const mb_loop *lp = &a.f.loops[i];
        assert_int_equal(lp->header, i + 1);
        assert_int_equal(lp->depth, i + 1);
        assert_int_equal(lp->parent, i - 1);
        assert_int_equal(lp->nblocks, 2 * (K - i));
        assert_int_equal(lp->kind, i + 1 < K ? MB_LOOP_NESTED : MB_LOOP_NORMAL);
    }
    assert_int_equal(a.f.innermost[K], K - 1);
    assert_int_equal(a.f.innermost[K + 1], K - 1);
    assert_int_equal(a.f.innermost[0], -1);
    release(&a);
    free(e);
}

/* ------------------------------------------------------- randomized test */

static uint32_t lcg_state;

static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state >> 8;
}

static int current_graph;

#define CHECK(c)                                                                                           \
    do {                                                                                                   \
        if (!(c)) {                                                                                        \
            print_error("random graph %d: check failed at line %d: %s\n", current_graph, __LINE__, #c);   \
            fail();                                                                                        \
        }                                                                                                  \
    } while (0)

/* Forward reachability from `start` with node `avoid` removed (-1: none). */
static void reach_from(const mb_graph *g, int start, int avoid, unsigned char *seen, int *queue)
{
    memset(seen, 0, (size_t)g->n);
    if (start == avoid)
        return;
    int head = 0, tail = 0;
    seen[start] = 1;
    queue[tail++] = start;
    while (head < tail) {
        int v = queue[head++];
        for (int i = g->succ_start[v]; i < g->succ_start[v + 1]; i++) {
            int w = g->succ[i];
            if (w != avoid && !seen[w]) {
                seen[w] = 1;
                queue[tail++] = w;
            }
        }
    }
}

/* Nodes that can reach an exit node with node `avoid` removed. */
static void reach_exit(const mb_graph *g, const unsigned char *is_exit, int avoid, unsigned char *seen, int *queue)
{
    memset(seen, 0, (size_t)g->n);
    int head = 0, tail = 0;
    for (int v = 0; v < g->n; v++)
        if (is_exit[v] && v != avoid) {
            seen[v] = 1;
            queue[tail++] = v;
        }
    while (head < tail) {
        int v = queue[head++];
        for (int i = g->pred_start[v]; i < g->pred_start[v + 1]; i++) {
            int w = g->pred[i];
            if (w != avoid && !seen[w]) {
                seen[w] = 1;
                queue[tail++] = w;
            }
        }
    }
}

static int has_edge(const mb_graph *g, int u, int v)
{
    for (int i = g->succ_start[u]; i < g->succ_start[u + 1]; i++)
        if (g->succ[i] == v)
            return 1;
    return 0;
}

static int contains(const int *a, int count, int x)
{
    for (int i = 0; i < count; i++)
        if (a[i] == x)
            return 1;
    return 0;
}

enum { RMAX = 60 };

static void check_random_graph(int n, const mb_edge *edges, int nedges, const unsigned char *is_exit, int entry)
{
    mb_graph g;
    mb_error err;
    CHECK(mb_graph_build(&g, n, edges, nedges, &err) == MB_OK);

    /* the CSR arrays: no duplicates, every input edge present, pred = transpose */
    for (int u = 0; u < n; u++)
        for (int i = g.succ_start[u]; i < g.succ_start[u + 1]; i++)
            for (int j = i + 1; j < g.succ_start[u + 1]; j++)
                CHECK(g.succ[i] != g.succ[j]);
    for (int i = 0; i < nedges; i++)
        CHECK(has_edge(&g, edges[i].from, edges[i].to));
    CHECK(g.pred_start[n] == g.succ_start[n]);
    for (int v = 0; v < n; v++)
        for (int i = g.pred_start[v]; i < g.pred_start[v + 1]; i++)
            CHECK(has_edge(&g, g.pred[i], v));

    int idom[RMAX], ipdom[RMAX], order[RMAX], rpoi[RMAX], queue[RMAX];
    unsigned char R[RMAX], R0[RMAX], E[RMAX], tmp[RMAX];
    unsigned char dom[RMAX][RMAX]; /* dom[a][b]: a dominates b, brute force */

    CHECK(mb_dominators(&g, entry, idom, &err) == MB_OK);
    CHECK(mb_postdominators(&g, is_exit, ipdom, &err) == MB_OK);
    mb_loop_forest f;
    CHECK(mb_find_loops(&g, entry, idom, &f, &err) == MB_OK);

    /* reverse postorder */
    reach_from(&g, entry, -1, R, queue);
    int nreach = 0;
    for (int v = 0; v < n; v++)
        nreach += R[v];
    int k = mb_graph_rpo(&g, entry, order);
    CHECK(k == nreach);
    CHECK(order[0] == entry);
    for (int v = 0; v < n; v++)
        rpoi[v] = -1;
    for (int i = 0; i < k; i++) {
        CHECK(R[order[i]] && rpoi[order[i]] < 0);
        rpoi[order[i]] = i;
    }
    for (int v = 0; v < n; v++) {
        if (!R[v] || v == entry)
            continue;
        int earlier = 0;
        for (int i = g.pred_start[v]; i < g.pred_start[v + 1]; i++)
            earlier |= R[g.pred[i]] && rpoi[g.pred[i]] < rpoi[v];
        CHECK(earlier); /* the DFS tree parent comes first */
    }

    /* dominators: a dominates b iff b is unreachable from entry without a */
    for (int a = 0; a < n; a++) {
        reach_from(&g, entry, a, tmp, queue);
        for (int b = 0; b < n; b++)
            dom[a][b] = R[a] && R[b] && (a == b || !tmp[b]);
    }
    CHECK(idom[entry] == entry);
    for (int b = 0; b < n; b++) {
        CHECK((idom[b] == -1) == !R[b]);
        for (int a = 0; a < n; a++)
            CHECK(mb_dominates(idom, a, b) == dom[a][b]);
    }

    /* post-dominators: a post-dominates b iff b cannot reach an exit without
     * a; entry for this is node 0; dead and exit-less nodes get n */
    reach_from(&g, 0, -1, R0, queue);
    reach_exit(&g, is_exit, -1, E, queue);
    for (int b = 0; b < n; b++) {
        if (!R0[b] || !E[b]) {
            CHECK(ipdom[b] == n);
            continue;
        }
        CHECK(ipdom[b] != b && ipdom[b] >= 0 && ipdom[b] <= n);
        CHECK(ipdom[b] == n || (R0[ipdom[b]] && E[ipdom[b]]));
    }
    for (int a = 0; a < n; a++) {
        reach_exit(&g, is_exit, a, tmp, queue);
        for (int b = 0; b < n; b++) {
            if (!R0[b] || !E[b])
                continue;
            int expect = a == b || !tmp[b];
            CHECK(postdominates(ipdom, n, a, b) == expect);
        }
    }

    /* loops: back edges u -> h with h dominating u, brute force */
    int nheaders = 0;
    unsigned char is_header[RMAX] = {0};
    for (int u = 0; u < n; u++)
        for (int i = g.succ_start[u]; i < g.succ_start[u + 1]; i++)
            if (R[u] && dom[g.succ[i]][u] && !is_header[g.succ[i]]) {
                is_header[g.succ[i]] = 1;
                nheaders++;
            }
    CHECK(f.nloops == nheaders);
    unsigned char body[RMAX][RMAX]; /* body[L][v] */
    memset(body, 0, sizeof body);
    for (int L = 0; L < f.nloops; L++) {
        const mb_loop *lp = &f.loops[L];
        int h = lp->header;
        CHECK(h >= 0 && h < n && is_header[h]);
        for (int M = 0; M < L; M++)
            CHECK(f.loops[M].header != h);
        /* latches */
        int nl = 0;
        for (int i = g.pred_start[h]; i < g.pred_start[h + 1]; i++) {
            int u = g.pred[i];
            if (R[u] && dom[h][u]) {
                CHECK(contains(lp->latches, lp->nlatches, u));
                nl++;
            }
        }
        CHECK(lp->nlatches == nl);
        for (int i = 1; i < lp->nlatches; i++)
            CHECK(lp->latches[i - 1] < lp->latches[i]);
        /* body: h plus the reachable nodes reaching a latch without h */
        int nb = 0;
        for (int v = 0; v < n; v++) {
            int in = v == h;
            if (!in && R[v]) {
                reach_from(&g, v, h, tmp, queue);
                for (int i = 0; i < lp->nlatches && !in; i++)
                    in = tmp[lp->latches[i]];
            }
            body[L][v] = (unsigned char)in;
            nb += in;
            if (in)
                CHECK(contains(lp->blocks, lp->nblocks, v));
        }
        CHECK(lp->nblocks == nb);
        for (int i = 1; i < lp->nblocks; i++)
            CHECK(lp->blocks[i - 1] < lp->blocks[i]);
        /* every block is dominated by the header */
        for (int i = 0; i < lp->nblocks; i++)
            CHECK(mb_dominates(idom, h, lp->blocks[i]));
        /* every latch has an edge to the header and every block reaches the
         * header inside the body */
        for (int i = 0; i < lp->nlatches; i++)
            CHECK(body[L][lp->latches[i]] && has_edge(&g, lp->latches[i], h));
        for (int i = 0; i < lp->nblocks; i++) {
            int v = lp->blocks[i], found = v == h;
            memset(tmp, 0, sizeof tmp);
            int head = 0, tail = 0;
            tmp[v] = 1;
            queue[tail++] = v;
            while (head < tail && !found) {
                int x = queue[head++];
                for (int j = g.succ_start[x]; j < g.succ_start[x + 1]; j++) {
                    int y = g.succ[j];
                    if (y == h)
                        found = 1;
                    else if (body[L][y] && !tmp[y]) {
                        tmp[y] = 1;
                        queue[tail++] = y;
                    }
                }
            }
            CHECK(found);
        }
        /* exits */
        int ne = 0;
        for (int x = 0; x < n; x++)
            if (body[L][x])
                for (int j = g.succ_start[x]; j < g.succ_start[x + 1]; j++)
                    ne += !body[L][g.succ[j]];
        CHECK(lp->nexits == ne);
        for (int i = 0; i < lp->nexits; i++) {
            CHECK(body[L][lp->exits[i].from] && !body[L][lp->exits[i].to]);
            CHECK(has_edge(&g, lp->exits[i].from, lp->exits[i].to));
            if (i > 0)
                CHECK(lp->exits[i - 1].from < lp->exits[i].from ||
                      (lp->exits[i - 1].from == lp->exits[i].from && lp->exits[i - 1].to < lp->exits[i].to));
        }
    }
    /* nesting: bodies are disjoint or nested; parent is the smallest strict
     * superset; innermost is the smallest loop containing the node */
    for (int L = 0; L < f.nloops; L++) {
        const mb_loop *lp = &f.loops[L];
        int best = -1, depth = 1, nchildren = 0;
        for (int M = 0; M < f.nloops; M++) {
            if (M == L)
                continue;
            int inter = 0, sub = 1;
            for (int v = 0; v < n; v++) {
                inter |= body[L][v] && body[M][v];
                sub &= !body[L][v] || body[M][v];
            }
            int sup_of_m = 1;
            for (int v = 0; v < n; v++)
                sup_of_m &= !body[M][v] || body[L][v];
            CHECK(!inter || sub || sup_of_m);
            if (sub) {
                depth++;
                if (best < 0 || f.loops[M].nblocks < f.loops[best].nblocks)
                    best = M;
            }
            if (f.loops[M].parent == L)
                nchildren++;
        }
        CHECK(lp->parent == best);
        CHECK(lp->depth == depth);
        CHECK(lp->nchildren == nchildren);
        CHECK(lp->kind == (nchildren ? MB_LOOP_NESTED : lp->nblocks == 1 ? MB_LOOP_SELF : MB_LOOP_NORMAL));
        /* preorder: the parent is the previous loop or one of its ancestors */
        CHECK(lp->parent < L);
        if (L > 0 && lp->parent >= 0) {
            int x = L - 1;
            while (x >= 0 && x != lp->parent)
                x = f.loops[x].parent;
            CHECK(x == lp->parent);
        }
        for (int M = L + 1; M < f.nloops; M++)
            if (f.loops[M].parent == lp->parent)
                CHECK(f.loops[M].header > lp->header);
    }
    for (int v = 0; v < n; v++) {
        int best = -1;
        for (int L = 0; L < f.nloops; L++)
            if (body[L][v] && (best < 0 || f.loops[L].nblocks < f.loops[best].nblocks))
                best = L;
        CHECK(f.innermost[v] == best);
    }
    /* irreducible iff the reachable graph without back edges has a cycle */
    int indeg[RMAX] = {0}, removed = 0, tail = 0;
    for (int u = 0; u < n; u++)
        for (int i = g.succ_start[u]; i < g.succ_start[u + 1]; i++)
            if (R[u] && !dom[g.succ[i]][u])
                indeg[g.succ[i]]++;
    for (int v = 0; v < n; v++)
        if (R[v] && indeg[v] == 0)
            queue[tail++] = v;
    for (int head = 0; head < tail; head++) {
        int u = queue[head];
        removed++;
        for (int i = g.succ_start[u]; i < g.succ_start[u + 1]; i++)
            if (!dom[g.succ[i]][u] && --indeg[g.succ[i]] == 0)
                queue[tail++] = g.succ[i];
    }
    CHECK((f.nirreducible > 0) == (removed < nreach));

    mb_loop_forest_free(&f);
    mb_graph_free(&g);
}

static int irreducible_seen, loops_seen, nested_seen;

static void test_random_graphs(void **state)
{
    (void)state;
    lcg_state = 12345u;
    mb_edge edges[4 * RMAX];
    unsigned char is_exit[RMAX];
    for (current_graph = 0; current_graph < 200; current_graph++) {
        int n = 1 + (int)(lcg() % RMAX);
        int ne = 0;
        for (int v = 0; v < n; v++) {
            if (v + 1 < n && lcg() % 4 != 0)
                edges[ne++] = (mb_edge){v, v + 1};
            int extra = (int)(lcg() % 3);
            for (int j = 0; j < extra && ne < 4 * RMAX; j++)
                edges[ne++] = (mb_edge){v, (int)(lcg() % (uint32_t)n)};
            is_exit[v] = v == n - 1 || lcg() % 8 == 0;
        }
        if (ne > 0 && lcg() % 2 == 0 && ne < 4 * RMAX) {
            mb_edge dup = edges[lcg() % (uint32_t)ne]; /* a duplicate */
            edges[ne++] = dup;
        }
        int entry = current_graph % 3 == 0 ? (int)(lcg() % (uint32_t)n) : 0;
        check_random_graph(n, edges, ne, is_exit, entry);

        /* count what the random graphs exercised */
        mb_graph g;
        int idom[RMAX];
        mb_loop_forest f;
        assert_int_equal(mb_graph_build(&g, n, edges, ne, NULL), MB_OK);
        assert_int_equal(mb_dominators(&g, entry, idom, NULL), MB_OK);
        assert_int_equal(mb_find_loops(&g, entry, idom, &f, NULL), MB_OK);
        irreducible_seen += f.nirreducible > 0;
        loops_seen += f.nloops > 0;
        for (int L = 0; L < f.nloops; L++)
            nested_seen += f.loops[L].kind == MB_LOOP_NESTED;
        mb_loop_forest_free(&f);
        mb_graph_free(&g);
    }
    print_message("random graphs: %d with loops, %d irreducible, %d nested loops\n", loops_seen,
                  irreducible_seen, nested_seen);
    /* the generator must produce interesting graphs */
    assert_true(irreducible_seen > 10);
    assert_true(loops_seen > 100);
    assert_true(nested_seen > 10);
}

/* ------------------------------------------------- allocation failures */

#ifdef MB_GRAPH_ALLOC_HOOK
/*
 * Fails the first, second, ... allocation of a full analysis until one run
 * completes; each failure must return MB_ERR_NOMEM with zeroed outputs and
 * leak nothing (checked by the sanitizer / valgrind run).
 */
static void test_alloc_failures(void **state)
{
    (void)state;
    /* nested loops, an irreducible region, a dead node, duplicates */
    static const mb_edge e[] = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {3, 3}, {4, 5}, {4, 2}, {5, 6}, {5, 1},
                                {0, 7}, {7, 8}, {8, 7}, {0, 8}, {8, 6}, {9, 6}, {5, 1}, {6, 10}, {10, 10}};
    const int n = 11;
    unsigned char is_exit[11] = {0};
    is_exit[6] = 1;
    int idom[11], ipdom[11], order[11];
    int failures = 0;
    for (long k = 0;; k++) {
        alloc_fail_at = k;
        alloc_calls = 0;
        mb_graph g;
        mb_loop_forest f;
        mb_error err;
        memset(&err, 0, sizeof err);
        mb_status st = mb_graph_build(&g, n, e, NEDGES(e), &err);
        if (st != MB_OK) {
            assert_int_equal(st, MB_ERR_NOMEM);
            assert_int_equal(err.status, MB_ERR_NOMEM);
            assert_true(err.msg[0] != '\0');
            assert_null(g.succ_start);
            assert_null(g.pred);
            failures++;
            continue;
        }
        int r = mb_graph_rpo(&g, 0, order);
        if (r < 0) {
            assert_int_equal(r, -1);
            failures++;
            mb_graph_free(&g);
            continue;
        }
        st = mb_dominators(&g, 0, idom, &err);
        if (st == MB_OK)
            st = mb_postdominators(&g, is_exit, ipdom, &err);
        if (st == MB_OK) {
            memset(&f, 0x5a, sizeof f);
            st = mb_find_loops(&g, 0, idom, &f, &err);
            if (st != MB_OK) {
                assert_null(f.loops);
                assert_null(f.innermost);
                assert_int_equal(f.nloops, 0);
                assert_int_equal(f.nirreducible, 0);
            }
        }
        if (st != MB_OK) {
            assert_int_equal(st, MB_ERR_NOMEM);
            assert_int_equal(err.status, MB_ERR_NOMEM);
            failures++;
            mb_graph_free(&g);
            continue;
        }
        int done = alloc_calls <= k; /* no allocation was failed this run */
        assert_int_equal(f.nloops, 4);
        mb_loop_forest_free(&f);
        mb_graph_free(&g);
        if (done)
            break;
        failures++; /* a failed allocation was survived (cannot happen today) */
    }
    alloc_fail_at = -1;
    print_message("%d allocation failure points exercised\n", failures);
    assert_true(failures >= 15);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_straight_line),
        cmocka_unit_test(test_diamond),
        cmocka_unit_test(test_if_then),
        cmocka_unit_test(test_while_loop),
        cmocka_unit_test(test_self_loop),
        cmocka_unit_test(test_shared_header),
        cmocka_unit_test(test_nested_three_deep),
        cmocka_unit_test(test_loop_order),
        cmocka_unit_test(test_loop_two_exits),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_infinite_loop),
        cmocka_unit_test(test_irreducible),
        cmocka_unit_test(test_multiple_exits),
        cmocka_unit_test(test_duplicate_edges),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_empty_graph),
        cmocka_unit_test(test_big_graphs),
        cmocka_unit_test(test_random_graphs),
#ifdef MB_GRAPH_ALLOC_HOOK
        cmocka_unit_test(test_alloc_failures),
#endif
    };
    return cmocka_run_group_tests_name("graph", tests, NULL, NULL);
}
