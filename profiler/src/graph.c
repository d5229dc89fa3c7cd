/*
 * minibench profiler: control-flow graph algorithms (see graph.h).
 *
 * Every traversal uses an explicit stack. Scratch memory is allocated per
 * call and freed before returning; outputs are zeroed on failure.
 *
 * Building with MB_GRAPH_ALLOC_HOOK defined routes every allocation through
 * mb_graph_test_alloc(), which the unit test defines to inject allocation
 * failures. Normal builds call malloc().
 */
#include "graph.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef MB_GRAPH_ALLOC_HOOK
void *mb_graph_test_alloc(size_t size); /* defined by the test program */
#define GRAPH_MALLOC(size) mb_graph_test_alloc(size)
#else
#define GRAPH_MALLOC(size) malloc(size)
#endif

/* ------------------------------------------------------------- helpers */

/* An array of `count` elements of `elem` bytes; never asks malloc for 0
 * bytes (so NULL always means failure); NULL when the size overflows. */
static void *alloc_array(size_t count, size_t elem)
{
    if (count == 0)
        count = 1;
    if (count > SIZE_MAX / elem)
        return NULL;
    return GRAPH_MALLOC(count * elem);
}

/* `k` * `n` ints in one block, with overflow checking. */
static int *alloc_ints(size_t k, size_t n)
{
    if (n != 0 && k > SIZE_MAX / n)
        return NULL;
    return alloc_array(k * n, sizeof(int));
}

static mb_status nomem(mb_error *err, const char *fn, int n)
{
    return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "%s: out of memory for a graph of %d nodes", fn, n);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int cmp_edge(const void *a, const void *b)
{
    const mb_edge *x = a, *y = b;
    if (x->from != y->from)
        return (x->from > y->from) - (x->from < y->from);
    return (x->to > y->to) - (x->to < y->to);
}

/* ---------------------------------------------------------------- build */

mb_status mb_graph_build(mb_graph *g, int n, const mb_edge *edges, int nedges, mb_error *err)
{
    static const char fn[] = "mb_graph_build";
    if (!g)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: graph is NULL", fn);
    memset(g, 0, sizeof *g);
    if (n < 0)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: negative node count %d", fn, n);
    if (nedges < 0)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: negative edge count %d", fn, nedges);
    if (nedges > 0 && !edges)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: %d edges but the edge list is NULL", fn,
                            nedges);
    if (n > MB_GRAPH_MAX_NODES)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "%s: %d nodes exceed the limit of %d", fn, n,
                            MB_GRAPH_MAX_NODES);
    for (int i = 0; i < nedges; i++) {
        int from = edges[i].from, to = edges[i].to;
        if (from < 0 || from >= n || to < 0 || to >= n) {
            if (n == 0)
                return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                                    "%s: edge %d (%d -> %d) names a node, but the graph has no nodes", fn, i,
                                    from, to);
            return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                                "%s: edge %d (%d -> %d) names a node outside 0..%d", fn, i, from, to, n - 1);
        }
    }

    size_t un = (size_t)n, um = (size_t)nedges;
    int *ss = alloc_array(un + 1, sizeof(int));
    int *s = alloc_array(um, sizeof(int));
    int *ps = alloc_array(un + 1, sizeof(int));
    int *p = alloc_array(um, sizeof(int));
    int *scratch = alloc_array(un, sizeof(int));
    if (!ss || !s || !ps || !p || !scratch) {
        free(ss);
        free(s);
        free(ps);
        free(p);
        free(scratch);
        return nomem(err, fn, n);
    }

    /* Successors, bucketed by source in edge-list order (counting sort). */
    memset(ss, 0, (un + 1) * sizeof(int));
    for (int i = 0; i < nedges; i++)
        ss[edges[i].from + 1]++;
    for (int v = 0; v < n; v++)
        ss[v + 1] += ss[v];
    memcpy(scratch, ss, un * sizeof(int));
    for (int i = 0; i < nedges; i++)
        s[scratch[edges[i].from]++] = edges[i].to;

    /* Drop duplicates in place, keeping first appearances. scratch[t] == v
     * marks t as already a successor of v. */
    for (int v = 0; v < n; v++)
        scratch[v] = -1;
    int w = 0;
    for (int v = 0; v < n; v++) {
        int start = ss[v], end = ss[v + 1];
        ss[v] = w;
        for (int i = start; i < end; i++) {
            int t = s[i];
            if (scratch[t] != v) {
                scratch[t] = v;
                s[w++] = t;
            }
        }
    }
    ss[n] = w;

    /* Predecessors: the transpose, ascending by source. */
    memset(ps, 0, (un + 1) * sizeof(int));
    for (int i = 0; i < w; i++)
        ps[s[i] + 1]++;
    for (int v = 0; v < n; v++)
        ps[v + 1] += ps[v];
    memcpy(scratch, ps, un * sizeof(int));
    for (int v = 0; v < n; v++)
        for (int i = ss[v]; i < ss[v + 1]; i++)
            p[scratch[s[i]]++] = v;

    free(scratch);
    g->n = n;
    g->succ_start = ss;
    g->succ = s;
    g->pred_start = ps;
    g->pred = p;
    return MB_OK;
}

void mb_graph_free(mb_graph *g)
{
    if (!g)
        return;
    free(g->succ_start);
    free(g->succ);
    free(g->pred_start);
    free(g->pred);
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------------ DFS */

/* Dominance test on a dominator tree numbered by a DFS: tin at entry,
 * tout at exit, -1 for nodes outside the tree. */
static int tree_dominates(const int *tin, const int *tout, int a, int b)
{
    return tin[a] >= 0 && tin[b] >= 0 && tin[a] <= tin[b] && tout[b] <= tout[a];
}

/*
 * Iterative depth-first search from `entry`, visiting each node's
 * successors in reverse of their listed order. Writes the postorder into
 * `post` when not NULL and returns the number of nodes visited.
 * `stack` and `pos` need g->n entries; `state` (g->n bytes) must be zero on
 * entry and ends 2 for every visited node. When `tin` is not NULL, counts
 * into *nirr the retreating edges (target still on the stack) whose target
 * does not dominate their source in the tree numbered by tin/tout.
 */
static int dfs(const mb_graph *g, int entry, int *post, int *stack, int *pos, unsigned char *state,
               const int *tin, const int *tout, int *nirr)
{
    const int *ss = g->succ_start, *s = g->succ;
    int sp = 0, k = 0;
    state[entry] = 1;
    stack[sp] = entry;
    pos[sp] = ss[entry + 1];
    sp++;
    while (sp > 0) {
        int v = stack[sp - 1];
        if (pos[sp - 1] > ss[v]) {
            int w = s[--pos[sp - 1]];
            if (state[w] == 0) {
                state[w] = 1;
                stack[sp] = w;
                pos[sp] = ss[w + 1];
                sp++;
            } else if (state[w] == 1 && tin && !tree_dominates(tin, tout, w, v)) {
                (*nirr)++;
            }
        } else {
            state[v] = 2;
            if (post)
                post[k] = v;
            k++;
            sp--;
        }
    }
    return k;
}

static void reverse_ints(int *a, int k)
{
    for (int i = 0, j = k - 1; i < j; i++, j--) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

int mb_graph_rpo(const mb_graph *g, int entry, int *order)
{
    if (!g || !order)
        return -1;
    if (g->n <= 0 || entry < 0 || entry >= g->n)
        return 0;
    size_t un = (size_t)g->n;
    int *scratch = alloc_ints(2, un);
    unsigned char *state = alloc_array(un, 1);
    if (!scratch || !state) {
        free(scratch);
        free(state);
        return -1;
    }
    memset(state, 0, un);
    int k = dfs(g, entry, order, scratch, scratch + un, state, NULL, NULL, NULL);
    reverse_ints(order, k);
    free(scratch);
    free(state);
    return k;
}

/* ----------------------------------------------------------- dominators */

/*
 * Cooper-Harvey-Kennedy on graph `g` given its reverse postorder `order`
 * (k nodes, order[0] the entry) and rpoi[v] = position of v in `order`.
 * `idom` must be -1 everywhere on entry; unreachable nodes stay -1.
 */
static void chk_dominators(const mb_graph *g, const int *order, int k, const int *rpoi, int *idom)
{
    const int *ps = g->pred_start, *p = g->pred;
    int entry = order[0];
    idom[entry] = entry;
    int changed = 1;
    while (changed) {
        changed = 0;
        for (int i = 1; i < k; i++) {
            int b = order[i];
            int nd = -1;
            for (int j = ps[b]; j < ps[b + 1]; j++) {
                int q = p[j];
                if (idom[q] < 0)
                    continue; /* unreachable, or not processed yet */
                if (nd < 0) {
                    nd = q;
                    continue;
                }
                int f1 = q, f2 = nd;
                while (f1 != f2) {
                    while (rpoi[f1] > rpoi[f2])
                        f1 = idom[f1];
                    while (rpoi[f2] > rpoi[f1])
                        f2 = idom[f2];
                }
                nd = f1;
            }
            if (idom[b] != nd) {
                idom[b] = nd;
                changed = 1;
            }
        }
    }
}

/* Computes idom over g from entry with `scratch` of 4 * g->n ints and
 * `state` of g->n zeroed bytes. */
static void dominators_with(const mb_graph *g, int entry, int *idom, int *scratch, unsigned char *state)
{
    size_t un = (size_t)g->n;
    int *order = scratch, *rpoi = scratch + un, *stack = scratch + 2 * un, *pos = scratch + 3 * un;
    int k = dfs(g, entry, order, stack, pos, state, NULL, NULL, NULL);
    reverse_ints(order, k);
    for (int v = 0; v < g->n; v++) {
        idom[v] = -1;
        rpoi[v] = -1;
    }
    for (int i = 0; i < k; i++)
        rpoi[order[i]] = i;
    chk_dominators(g, order, k, rpoi, idom);
}

mb_status mb_dominators(const mb_graph *g, int entry, int *idom, mb_error *err)
{
    static const char fn[] = "mb_dominators";
    if (!g || !idom)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: %s is NULL", fn, !g ? "graph" : "idom");
    if (g->n <= 0)
        return MB_OK;
    if (entry < 0 || entry >= g->n)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: entry %d is outside 0..%d", fn, entry,
                            g->n - 1);
    size_t un = (size_t)g->n;
    int *scratch = alloc_ints(4, un);
    unsigned char *state = alloc_array(un, 1);
    if (!scratch || !state) {
        free(scratch);
        free(state);
        return nomem(err, fn, g->n);
    }
    memset(state, 0, un);
    dominators_with(g, entry, idom, scratch, state);
    free(scratch);
    free(state);
    return MB_OK;
}

mb_status mb_postdominators(const mb_graph *g, const unsigned char *is_exit, int *ipdom, mb_error *err)
{
    static const char fn[] = "mb_postdominators";
    if (!g || !ipdom)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: %s is NULL", fn, !g ? "graph" : "ipdom");
    int n = g->n;
    if (n <= 0)
        return MB_OK;
    if (!is_exit)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: is_exit is NULL", fn);
    if (n > MB_GRAPH_MAX_NODES)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "%s: %d nodes exceed the limit of %d", fn, n,
                            MB_GRAPH_MAX_NODES);
    size_t nexit = 0;
    for (int v = 0; v < n; v++)
        nexit += is_exit[v] != 0;
    size_t m = (size_t)g->succ_start[n];
    if (m + nexit > (size_t)INT_MAX)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "%s: %zu edges plus %zu exit edges exceed INT_MAX", fn,
                            m, nexit);

    /* The reverse graph plus the virtual exit X = n, whose successors in
     * the reverse graph are the exit nodes. */
    int N = n + 1, X = n;
    size_t uN = (size_t)N, rm = m + nexit;
    mb_graph rg = {N, NULL, NULL, NULL, NULL};
    rg.succ_start = alloc_array(uN + 1, sizeof(int));
    rg.succ = alloc_array(rm, sizeof(int));
    rg.pred_start = alloc_array(uN + 1, sizeof(int));
    rg.pred = alloc_array(rm, sizeof(int));
    int *scratch = alloc_ints(5, uN);
    unsigned char *state = alloc_array(uN, 1);
    unsigned char *reach = alloc_array((size_t)n, 1);
    if (!rg.succ_start || !rg.succ || !rg.pred_start || !rg.pred || !scratch || !state || !reach) {
        free(rg.succ_start);
        free(rg.succ);
        free(rg.pred_start);
        free(rg.pred);
        free(scratch);
        free(state);
        free(reach);
        return nomem(err, fn, n);
    }

    /* Successors in the reverse graph: g's predecessors, then X -> exits. */
    memcpy(rg.succ_start, g->pred_start, ((size_t)n + 1) * sizeof(int));
    if (m)
        memcpy(rg.succ, g->pred, m * sizeof(int));
    int w = (int)m;
    for (int v = 0; v < n; v++)
        if (is_exit[v])
            rg.succ[w++] = v;
    rg.succ_start[N] = w;
    /* Predecessors in the reverse graph: g's successors, then X for exits. */
    w = 0;
    for (int v = 0; v < n; v++) {
        rg.pred_start[v] = w;
        for (int i = g->succ_start[v]; i < g->succ_start[v + 1]; i++)
            rg.pred[w++] = g->succ[i];
        if (is_exit[v])
            rg.pred[w++] = X;
    }
    rg.pred_start[n] = w;
    rg.pred_start[N] = w;

    /* Nodes reachable from the entry, node 0. */
    memset(reach, 0, (size_t)n);
    dfs(g, 0, NULL, scratch, scratch + uN, reach, NULL, NULL, NULL);

    int *ridom = scratch + 4 * uN;
    memset(state, 0, uN);
    dominators_with(&rg, X, ridom, scratch, state);
    for (int v = 0; v < n; v++)
        ipdom[v] = (reach[v] && ridom[v] >= 0) ? ridom[v] : n;

    free(rg.succ_start);
    free(rg.succ);
    free(rg.pred_start);
    free(rg.pred);
    free(scratch);
    free(state);
    free(reach);
    return MB_OK;
}

int mb_dominates(const int *idom, int a, int b)
{
    if (!idom || a < 0 || b < 0 || idom[a] < 0 || idom[b] < 0)
        return 0;
    for (;;) {
        if (b == a)
            return 1;
        int up = idom[b];
        if (up == b || up < 0)
            return 0;
        b = up;
    }
}

/* ---------------------------------------------------------------- loops */

static void free_loop_array(mb_loop *loops, int count)
{
    if (!loops)
        return;
    for (int i = 0; i < count; i++) {
        free(loops[i].blocks);
        free(loops[i].latches);
        free(loops[i].exits);
    }
    free(loops);
}

void mb_loop_forest_free(mb_loop_forest *forest)
{
    if (!forest)
        return;
    free_loop_array(forest->loops, forest->nloops);
    free(forest->innermost);
    memset(forest, 0, sizeof *forest);
}

const char *mb_loop_kind_name(mb_loop_kind kind)
{
    switch (kind) {
    case MB_LOOP_SELF:
        return "self";
    case MB_LOOP_NORMAL:
        return "normal";
    case MB_LOOP_NESTED:
        return "nested";
    }
    return "unknown";
}

typedef struct loop_key {
    int size, header, index;
} loop_key;

/* Larger bodies first, so every loop comes after all loops containing it. */
static int cmp_loop_key(const void *a, const void *b)
{
    const loop_key *x = a, *y = b;
    if (x->size != y->size)
        return (x->size < y->size) - (x->size > y->size);
    return (x->header > y->header) - (x->header < y->header);
}

/*
 * Builds loop L (header h) into *lp: latches, body and exits. `mark[v] ==
 * L` marks the body; `work` (n ints) collects it. Returns 0 on allocation
 * failure (what was allocated stays in *lp for the caller to free).
 */
static int build_loop(const mb_graph *g, int h, int L, const int *tin, const int *tout, int *mark, int *work,
                      mb_loop *lp)
{
    const int *ps = g->pred_start, *p = g->pred, *ss = g->succ_start, *s = g->succ;
    lp->header = h;
    lp->parent = -1;

    int nl = 0;
    for (int j = ps[h]; j < ps[h + 1]; j++)
        if (tree_dominates(tin, tout, h, p[j]))
            nl++;
    lp->latches = alloc_array((size_t)nl, sizeof(int));
    if (!lp->latches)
        return 0;
    for (int j = ps[h]; j < ps[h + 1]; j++)
        if (tree_dominates(tin, tout, h, p[j]))
            lp->latches[lp->nlatches++] = p[j];
    qsort(lp->latches, (size_t)nl, sizeof(int), cmp_int);

    /* Body: h plus every reachable node reaching a latch without h. */
    int cnt = 0;
    mark[h] = L;
    work[cnt++] = h;
    for (int i = 0; i < nl; i++) {
        int x = lp->latches[i];
        if (mark[x] != L) {
            mark[x] = L;
            work[cnt++] = x;
        }
    }
    for (int qi = 1; qi < cnt; qi++) {
        int x = work[qi];
        for (int j = ps[x]; j < ps[x + 1]; j++) {
            int q = p[j];
            if (tin[q] >= 0 && mark[q] != L) {
                mark[q] = L;
                work[cnt++] = q;
            }
        }
    }
    lp->blocks = alloc_array((size_t)cnt, sizeof(int));
    if (!lp->blocks)
        return 0;
    memcpy(lp->blocks, work, (size_t)cnt * sizeof(int));
    lp->nblocks = cnt;
    qsort(lp->blocks, (size_t)cnt, sizeof(int), cmp_int);

    int ne = 0;
    for (int i = 0; i < cnt; i++) {
        int x = lp->blocks[i];
        for (int j = ss[x]; j < ss[x + 1]; j++)
            ne += mark[s[j]] != L;
    }
    if (ne > 0) {
        lp->exits = alloc_array((size_t)ne, sizeof(mb_edge));
        if (!lp->exits)
            return 0;
        for (int i = 0; i < cnt; i++) {
            int x = lp->blocks[i];
            for (int j = ss[x]; j < ss[x + 1]; j++)
                if (mark[s[j]] != L) {
                    lp->exits[lp->nexits].from = x;
                    lp->exits[lp->nexits].to = s[j];
                    lp->nexits++;
                }
        }
        qsort(lp->exits, (size_t)ne, sizeof(mb_edge), cmp_edge);
    }
    return 1;
}

mb_status mb_find_loops(const mb_graph *g, int entry, const int *idom, mb_loop_forest *forest, mb_error *err)
{
    static const char fn[] = "mb_find_loops";
    if (!forest)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: forest is NULL", fn);
    memset(forest, 0, sizeof *forest);
    if (!g || !idom)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: %s is NULL", fn, !g ? "graph" : "idom");
    int n = g->n;
    if (n <= 0)
        return MB_OK;
    if (entry < 0 || entry >= n)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: entry %d is outside 0..%d", fn, entry, n - 1);
    if (n > MB_GRAPH_MAX_NODES)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "%s: %d nodes exceed the limit of %d", fn, n,
                            MB_GRAPH_MAX_NODES);
    for (int v = 0; v < n; v++)
        if (idom[v] < -1 || idom[v] >= n)
            return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: idom[%d] = %d is outside -1..%d", fn, v,
                                idom[v], n - 1);
    if (idom[entry] != entry)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "%s: idom[entry %d] is %d, not the entry itself", fn,
                            entry, idom[entry]);

    size_t un = (size_t)n;
    int *scratch = alloc_ints(8, un + 1);
    unsigned char *state = alloc_array(un, 1);
    int *innermost = alloc_array(un, sizeof(int));
    mb_loop *tmp = NULL, *loops = NULL;
    loop_key *keys = NULL;
    int *lscratch = NULL;
    int nloops = 0;
    if (!scratch || !state || !innermost)
        goto oom;
    int *tin = scratch, *tout = scratch + (un + 1), *cstart = scratch + 2 * (un + 1),
        *child = scratch + 3 * (un + 1), *stack = scratch + 4 * (un + 1), *pos = scratch + 5 * (un + 1),
        *mark = scratch + 6 * (un + 1), *work = scratch + 7 * (un + 1);

    /* Number the dominator tree (children lists by counting sort, then an
     * iterative DFS) so dominance queries are O(1). */
    memset(cstart, 0, (un + 1) * sizeof(int));
    for (int v = 0; v < n; v++)
        if (v != entry && idom[v] >= 0 && idom[v] != v)
            cstart[idom[v] + 1]++;
    for (int v = 0; v < n; v++)
        cstart[v + 1] += cstart[v];
    memcpy(pos, cstart, un * sizeof(int));
    for (int v = 0; v < n; v++)
        if (v != entry && idom[v] >= 0 && idom[v] != v)
            child[pos[idom[v]]++] = v;
    for (int v = 0; v < n; v++)
        tin[v] = tout[v] = -1;
    {
        int sp = 0, clock = 0;
        tin[entry] = clock++;
        stack[sp] = entry;
        pos[sp] = cstart[entry];
        sp++;
        while (sp > 0) {
            int v = stack[sp - 1];
            if (pos[sp - 1] < cstart[v + 1]) {
                int c = child[pos[sp - 1]++];
                tin[c] = clock++;
                stack[sp] = c;
                pos[sp] = cstart[c];
                sp++;
            } else {
                tout[v] = clock++;
                sp--;
            }
        }
    }

    /* Retreating edges that are not back edges: irreducible control flow. */
    memset(state, 0, un);
    dfs(g, entry, NULL, stack, pos, state, tin, tout, &forest->nirreducible);

    /* Headers: targets of back edges u -> h, h dominating u. */
    for (int h = 0; h < n; h++) {
        if (tin[h] < 0)
            continue;
        for (int j = g->pred_start[h]; j < g->pred_start[h + 1]; j++)
            if (tree_dominates(tin, tout, h, g->pred[j])) {
                nloops++;
                break;
            }
    }
    if (nloops == 0) {
        for (int v = 0; v < n; v++)
            innermost[v] = -1;
        goto done;
    }

    tmp = alloc_array((size_t)nloops, sizeof(mb_loop));
    if (!tmp)
        goto oom;
    memset(tmp, 0, (size_t)nloops * sizeof(mb_loop));
    for (int v = 0; v < n; v++)
        mark[v] = -1;
    {
        int L = 0;
        for (int h = 0; h < n && L < nloops; h++) {
            if (tin[h] < 0)
                continue;
            int is_header = 0;
            for (int j = g->pred_start[h]; j < g->pred_start[h + 1] && !is_header; j++)
                is_header = tree_dominates(tin, tout, h, g->pred[j]);
            if (!is_header)
                continue;
            if (!build_loop(g, h, L, tin, tout, mark, work, &tmp[L]))
                goto oom;
            L++;
        }
    }

    /* Nesting: process loops from the largest body down; the loop last
     * recorded at a header is then its innermost enclosing loop. */
    keys = alloc_array((size_t)nloops, sizeof(loop_key));
    lscratch = alloc_ints(4, (size_t)nloops + 1);
    if (!keys || !lscratch)
        goto oom;
    for (int L = 0; L < nloops; L++) {
        keys[L].size = tmp[L].nblocks;
        keys[L].header = tmp[L].header;
        keys[L].index = L;
    }
    qsort(keys, (size_t)nloops, sizeof(loop_key), cmp_loop_key);
    for (int v = 0; v < n; v++)
        innermost[v] = -1;
    for (int i = 0; i < nloops; i++) {
        int L = keys[i].index;
        int par = innermost[tmp[L].header];
        tmp[L].parent = par;
        tmp[L].depth = par < 0 ? 1 : tmp[par].depth + 1;
        if (par >= 0)
            tmp[par].nchildren++;
        for (int b = 0; b < tmp[L].nblocks; b++)
            innermost[tmp[L].blocks[b]] = L;
    }

    /* Preorder of the nesting tree, siblings by header (tmp is in header
     * order, so counting-sorted child lists are too). */
    {
        size_t ul = (size_t)nloops + 1;
        int *ccs = lscratch, *cl = lscratch + ul, *lstack = lscratch + 2 * ul, *newidx = lscratch + 3 * ul;
        memset(ccs, 0, ul * sizeof(int));
        for (int L = 0; L < nloops; L++)
            if (tmp[L].parent >= 0)
                ccs[tmp[L].parent + 1]++;
        for (int L = 0; L < nloops; L++)
            ccs[L + 1] += ccs[L];
        memcpy(newidx, ccs, (size_t)nloops * sizeof(int)); /* fill cursors */
        for (int L = 0; L < nloops; L++)
            if (tmp[L].parent >= 0)
                cl[newidx[tmp[L].parent]++] = L;
        int sp = 0, k = 0;
        for (int L = nloops - 1; L >= 0; L--)
            if (tmp[L].parent < 0)
                lstack[sp++] = L;
        while (sp > 0) {
            int L = lstack[--sp];
            newidx[L] = k++;
            for (int j = ccs[L + 1] - 1; j >= ccs[L]; j--)
                lstack[sp++] = cl[j];
        }

        loops = alloc_array((size_t)nloops, sizeof(mb_loop));
        if (!loops)
            goto oom;
        for (int L = 0; L < nloops; L++) {
            mb_loop *lp = &loops[newidx[L]];
            *lp = tmp[L];
            lp->parent = tmp[L].parent < 0 ? -1 : newidx[tmp[L].parent];
            lp->kind = lp->nchildren > 0 ? MB_LOOP_NESTED : lp->nblocks == 1 ? MB_LOOP_SELF : MB_LOOP_NORMAL;
        }
        for (int v = 0; v < n; v++)
            if (innermost[v] >= 0)
                innermost[v] = newidx[innermost[v]];
        free(tmp); /* its arrays now belong to `loops` */
        tmp = NULL;
    }

done:
    forest->loops = loops;
    forest->nloops = loops ? nloops : 0;
    forest->innermost = innermost;
    free(scratch);
    free(state);
    free(keys);
    free(lscratch);
    return MB_OK;

oom:
    free_loop_array(tmp, nloops);
    free(scratch);
    free(state);
    free(innermost);
    free(keys);
    free(lscratch);
    memset(forest, 0, sizeof *forest);
    return nomem(err, fn, n);
}
