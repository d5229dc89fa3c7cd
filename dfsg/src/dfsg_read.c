/* Reading a DFSG written by mb_dfsg_write_dot() back through cgraph. */
#include <minibench/dfsg.h>

#include <graphviz/cgraph.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

void mb_dfsg_graph_free(mb_dfsg_graph *g)
{
    if (!g)
        return;
    mb_arena_free(g->arena);
    free(g->nodes);
    free(g->edges);
    free(g);
}

/* Reads a non-negative integer attribute; absent or empty gives `dflt`. */
static int attr_u64(void *obj, const char *attr, uint64_t dflt, uint64_t *out)
{
    char *v = agget(obj, (char *)attr);
    if (!v || !*v) {
        *out = dflt;
        return 1;
    }
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno || *end || v[0] == '-')
        return 0;
    *out = x;
    return 1;
}

static int node_index(const mb_dfsg_graph *g, Agnode_t *n)
{
    const char *name = agnameof(n);
    for (size_t i = 0; i < g->nnodes; i++)
        if (strcmp(g->nodes[i].name, name) == 0)
            return (int)i;
    return -1;
}

static mb_status read_nodes(Agraph_t *ag, mb_dfsg_graph *g, const char *name, mb_error *err)
{
    for (Agnode_t *n = agfstnode(ag); n; n = agnxtnode(ag, n)) {
        const char *nm = agnameof(n);
        char *blk = agget(n, "block");
        /* EXIT and called functions' blocks ("fn:block") are not kernel blocks */
        if (!blk || !*blk || strchr(nm, ':'))
            continue;
        if (MB_GROW(g->nodes, g->nodes_cap, g->nnodes + 1) != MB_OK)
            return mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
        mb_dfsg_node *d = &g->nodes[g->nnodes];
        memset(d, 0, sizeof(*d));
        uint64_t block, loop;
        if (!attr_u64(n, "block", 0, &block) || block > INT_MAX || !attr_u64(n, "ecount", 0, &d->ecount) ||
            !attr_u64(n, "lcount", 0, &d->lcount) || !attr_u64(n, "scount", 0, &d->scount) ||
            !attr_u64(n, "threads", 0, &d->threads) ||
            !attr_u64(n, "warp_execs", 0, &d->warp_execs) ||
            !attr_u64(n, "loop", UINT64_MAX, &loop))
            return mb_error_set(err, MB_ERR_PARSE, name, 0, 0,
                                "node '%s': a count attribute is not a non-negative integer", nm);
        d->block = (int)block;
        d->loop = loop == UINT64_MAX || loop > INT_MAX ? -1 : (int)loop;
        d->name = mb_arena_strdup(g->arena, nm);
        char *chain = agget(n, "chain");
        d->chain = mb_arena_strdup(g->arena, chain ? chain : "");
        if (!d->name || !d->chain)
            return mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
        g->nnodes++;
    }
    return MB_OK;
}

static mb_status read_edges(Agraph_t *ag, mb_dfsg_graph *g, const char *name, mb_error *err)
{
    for (Agnode_t *n = agfstnode(ag); n; n = agnxtnode(ag, n)) {
        int from = node_index(g, n);
        if (from < 0)
            continue;
        for (Agedge_t *e = agfstout(ag, n); e; e = agnxtout(ag, e)) {
            int to = node_index(g, aghead(e));
            if (to < 0)
                continue;
            if (MB_GROW(g->edges, g->edges_cap, g->nedges + 1) != MB_OK)
                return mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
            mb_dfsg_edge *d = &g->edges[g->nedges];
            memset(d, 0, sizeof(*d));
            d->from = g->nodes[from].block;
            d->to = g->nodes[to].block;
            if (!attr_u64(e, "oecount", 0, &d->count) || !attr_u64(e, "tcount", 0, &d->threads))
                return mb_error_set(err, MB_ERR_PARSE, name, 0, 0,
                                    "edge '%s' -> '%s': a count attribute is not a non-negative "
                                    "integer",
                                    agnameof(n), agnameof(aghead(e)));
            char *color = agget(e, "color");
            d->back = color && strcmp(color, "red") == 0;
            g->nedges++;
        }
    }
    return MB_OK;
}

mb_status mb_dfsg_read_dot(const char *text, size_t len, const char *name, mb_dfsg_graph **out,
                           mb_error *err)
{
    *out = NULL;
    if (memchr(text, '\0', len))
        return mb_error_set(err, MB_ERR_PARSE, name, 0, 0, "NUL byte in DOT text");
    char *copy = malloc(len + 1);
    if (!copy)
        return mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    memcpy(copy, text, len);
    copy[len] = '\0';
    /* keep Graphviz from printing: its last message goes into the error record */
    agerrlevel_t old_level = agseterr(AGMAX);
    Agraph_t *ag = agmemread(copy);
    agseterr(old_level);
    free(copy);
    if (!ag) {
        char *why = aglasterr();
        size_t n = why ? strlen(why) : 0;
        while (n > 0 && (why[n - 1] == '\n' || why[n - 1] == ' '))
            n--;
        mb_status st = mb_error_set(err, MB_ERR_PARSE, name, 0, 0, "not a DOT graph: %.*s",
                                    (int)n, why ? why : "Graphviz could not read it");
        free(why);
        return st;
    }
    mb_dfsg_graph *g = calloc(1, sizeof(*g));
    mb_status st = MB_OK;
    if (!g || !(g->arena = mb_arena_new()))
        st = mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    if (st == MB_OK && !(g->graph_name = mb_arena_strdup(g->arena, agnameof(ag))))
        st = mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    if (st == MB_OK)
        st = read_nodes(ag, g, name, err);
    if (st == MB_OK)
        st = read_edges(ag, g, name, err);
    if (st == MB_OK && g->nnodes == 0)
        st = mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                          "no DFSG nodes (nodes with a 'block' attribute)");
    agclose(ag);
    if (st != MB_OK) {
        mb_dfsg_graph_free(g);
        return st;
    }
    *out = g;
    return MB_OK;
}
