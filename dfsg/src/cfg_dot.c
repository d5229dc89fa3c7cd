/* Control-flow graphs as DOT, built with Graphviz cgraph. */
#define _POSIX_C_SOURCE 200809L
#include <minibench/dfsg.h>

#include <graphviz/cgraph.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphviz_io.h"


static int is_back_edge(const mb_cfg *cfg, int from, int to)
{
    return mb_dominates(cfg->idom, to, from);
}

static void block_label(const mb_module *m, const mb_cfg *cfg, int b, mb_buf *label)
{
    const mb_function *fn = cfg->fn;
    const mb_block *blk = &cfg->blocks[b];
    char name[32], idom[32], ipdom[32];
    mb_buf_printf(label, "%s", mb_cfg_block_name(cfg, b, name, sizeof(name)));
    if (blk->ninsns) {
        int first = fn->insns[blk->first].line;
        int last = fn->insns[blk->first + blk->ninsns - 1].line;
        mb_buf_printf(label, "\\nPTX lines %d-%d, %u instruction%s", first, last, blk->ninsns,
                      blk->ninsns == 1 ? "" : "s");
        const mb_insn *term = &fn->insns[blk->first + blk->ninsns - 1];
        mb_buf_puts(label, "\\nlast: ");
        mb_buf printed = MB_BUF_INIT;
        mb_ptx_print_insn(m, fn, term, &printed);
        /* keep labels short and free of DOT escapes */
        for (size_t i = 0; i < printed.len && i < 48; i++)
            mb_buf_putc(label, printed.data[i] == '"' || printed.data[i] == '\\' ? '\'' : printed.data[i]);
        if (printed.len > 48)
            mb_buf_puts(label, "...");
        mb_buf_free(&printed);
    } else {
        mb_buf_puts(label, "\\n(empty)");
    }
    if (b != 0) {
        if (cfg->idom[b] >= 0)
            mb_buf_printf(label, "\\nidom %s", mb_cfg_block_name(cfg, cfg->idom[b], idom, sizeof(idom)));
        else
            mb_buf_puts(label, "\\nunreachable");
    }
    if (cfg->ipdom[b] >= cfg->nblocks)
        mb_buf_puts(label, "\\nipdom EXIT");
    else
        mb_buf_printf(label, "\\nipdom %s", mb_cfg_block_name(cfg, cfg->ipdom[b], ipdom, sizeof(ipdom)));
}

/* What agsafeset does, with the attribute looked up once per function
 * instead of once per object: `*sym` caches it, declared with an empty
 * default on first use as agsafeset would. */
static void set_attr(void *obj, Agsym_t **sym, const char *name, const char *value)
{
    if (!*sym) {
        Agraph_t *root = agroot(obj);
        const int kind = agobjkind(obj);
        *sym = agattr(root, kind, (char *)(uintptr_t)name, NULL);
        if (!*sym)
            *sym = agattr(root, kind, (char *)(uintptr_t)name, "");
    }
    agxset(obj, *sym, (char *)(uintptr_t)value); /* cgraph copies it */
}

/* Decimal text of v in buf (at least 21 bytes), without printf's cost. */
static const char *u64_text(uint64_t v, char *buf, size_t size)
{
    size_t n = size - 1;
    buf[n] = '\0';
    do {
        buf[--n] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n);
    return buf + n;
}

/* Adds one function's blocks, edges and loop clusters to `parent`. Node
 * names get `prefix` so several functions can share a graph. With a
 * profile, nodes and edges carry the DFSG counts. */
static mb_status add_function(Agraph_t *g, Agraph_t *parent, const mb_module *m, const mb_cfg *cfg,
                              const mb_func_profile *fp, const char *prefix, mb_error *err)
{
    const mb_function *fn = cfg->fn;
    int n = cfg->nblocks;
    Agnode_t **nodes = calloc((size_t)n + 1, sizeof(Agnode_t *));
    Agraph_t **clusters = calloc((size_t)cfg->loops.nloops + 1, sizeof(Agraph_t *));
    mb_buf label = MB_BUF_INIT, name = MB_BUF_INIT;
    Agsym_t *count_syms[7] = {NULL}, *chain_sym = NULL, *block_sym = NULL, *loop_sym = NULL;
    Agsym_t *oecount_sym = NULL, *iecount_sym = NULL, *tcount_sym = NULL;
    mb_status st = MB_OK;
    if (!nodes || !clusters) {
        st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory drawing '%s'", fn->name);
        goto done;
    }
    /* Loops become clusters nested like the loops themselves; loops are
     * ordered outermost first, so a parent's cluster always exists already. */
    for (int l = 0; l < cfg->loops.nloops; l++) {
        const mb_loop *loop = &cfg->loops.loops[l];
        Agraph_t *outer = loop->parent >= 0 ? clusters[loop->parent] : parent;
        char hname[32];
        mb_buf_reset(&name);
        mb_buf_printf(&name, "cluster_%sloop%d", prefix, l);
        clusters[l] = agsubg(outer, name.data, 1);
        mb_buf_reset(&label);
        mb_buf_printf(&label, "loop %d: %s, header %s, depth %d", l, mb_loop_kind_name(loop->kind),
                      mb_cfg_block_name(cfg, loop->header, hname, sizeof(hname)), loop->depth);
        agsafeset(clusters[l], "label", label.data, "");
        agsafeset(clusters[l], "style", "dashed", "");
        agsafeset(clusters[l], "color", loop->kind == MB_LOOP_SELF ? "blue"
                                        : loop->kind == MB_LOOP_NESTED ? "purple" : "darkgreen", "");
    }
    for (int b = 0; b < n; b++) {
        char bname[32];
        int inner = cfg->loops.innermost ? cfg->loops.innermost[b] : -1;
        Agraph_t *home = inner >= 0 ? clusters[inner] : parent;
        mb_buf_reset(&name);
        mb_buf_printf(&name, "%s%s", prefix, mb_cfg_block_name(cfg, b, bname, sizeof(bname)));
        nodes[b] = agnode(home, name.data, 1);
        mb_buf_reset(&label);
        if (fp) {
            const mb_block_profile *bp = &fp->blocks[b];
            char num[32];
            mb_buf_printf(&label, "%s\\nECount %llu\\nLCount %llu\\nSCount %llu",
                          mb_cfg_block_name(cfg, b, bname, sizeof(bname)),
                          (unsigned long long)bp->ecount, (unsigned long long)bp->lcount,
                          (unsigned long long)bp->scount);
            static const char *const keys[] = {"ecount", "lcount", "scount", "threads", "warp_execs", "entries", "exits"};
            const uint64_t vals[] = {bp->ecount, bp->lcount, bp->scount, bp->threads, bp->warp_execs, bp->entries, bp->exits};
            for (int k = 0; k < 7; k++)
                set_attr(nodes[b], &count_syms[k], keys[k], u64_text(vals[k], num, sizeof(num)));
            mb_buf chain = MB_BUF_INIT;
            mb_profile_block_chain(fn, cfg, b, &chain);
            set_attr(nodes[b], &chain_sym, "chain", chain.data ? chain.data : "");
            mb_buf_free(&chain);
            set_attr(nodes[b], &block_sym, "block", u64_text((uint64_t)b, num, sizeof(num)));
            if (inner >= 0)
                set_attr(nodes[b], &loop_sym, "loop", u64_text((uint64_t)inner, num, sizeof(num)));
        } else {
            block_label(m, cfg, b, &label);
        }
        agset(nodes[b], "label", label.data);
        if (b == 0)
            agset(nodes[b], "style", "bold");
    }
    int any_exit = 0;
    for (int b = 0; b < n; b++)
        any_exit |= cfg->blocks[b].is_exit;
    if (any_exit) {
        mb_buf_reset(&name);
        mb_buf_printf(&name, "%sEXIT", prefix);
        nodes[n] = agnode(parent, name.data, 1);
        agset(nodes[n], "shape", "doublecircle");
        agset(nodes[n], "label", "EXIT");
    }
    for (int b = 0; b < n; b++) {
        for (int k = cfg->graph.succ_start[b]; k < cfg->graph.succ_start[b + 1]; k++) {
            int to = cfg->graph.succ[k];
            Agedge_t *e = agedge(g, nodes[b], nodes[to], NULL, 1);
            int back = is_back_edge(cfg, b, to);
            if (fp) {
                const mb_edge_profile *ep = &fp->edges[k];
                char num[48];
                const char *count = u64_text(ep->count, num, sizeof(num));
                set_attr(e, &oecount_sym, "oecount", count);
                set_attr(e, &iecount_sym, "iecount", count);
                set_attr(e, &tcount_sym, "tcount", u64_text(ep->threads, num, sizeof(num)));
                snprintf(num, sizeof(num), "%llu / %llu%s", (unsigned long long)ep->count,
                         (unsigned long long)ep->threads, back ? " back" : "");
                agset(e, "xlabel", num);
            }
            if (back) {
                if (!fp)
                    agset(e, "xlabel", "back");
                agset(e, "color", "red");
                agset(e, "penwidth", "2");
                agset(e, "style", "bold");
            } else if (!fp && k == cfg->graph.succ_start[b] && b + 1 == to &&
                       cfg->graph.succ_start[b + 1] - cfg->graph.succ_start[b] > 1) {
                agset(e, "xlabel", "fall");
            }
        }
        if (cfg->blocks[b].is_exit) {
            Agedge_t *e = agedge(g, nodes[b], nodes[n], NULL, 1);
            agset(e, "style", "dashed");
        }
    }
done:
    free(nodes);
    free(clusters);
    mb_buf_free(&label);
    mb_buf_free(&name);
    return st;
}

static Agraph_t *open_graph(const char *name)
{
    Agraph_t *g = mb_graphviz_open(name);
    if (!g)
        return NULL;
    agattr(g, AGRAPH, "label", "");
    agattr(g, AGRAPH, "style", "");
    agattr(g, AGRAPH, "color", "");
    agattr(g, AGNODE, "shape", "box");
    agattr(g, AGNODE, "fontname", "monospace");
    agattr(g, AGNODE, "label", "\\N");
    agattr(g, AGNODE, "style", "");
    /* edge labels are xlabels: Graphviz 2.42's dot double-frees ordinary edge
     * labels inside clusters when it cleans up a layout */
    agattr(g, AGEDGE, "xlabel", "");
    agattr(g, AGEDGE, "style", "");
    agattr(g, AGEDGE, "color", "");
    agattr(g, AGEDGE, "penwidth", "");
    return g;
}

mb_status mb_cfg_write_dot(const mb_module *m, const mb_cfg *cfg, mb_buf *out, mb_error *err)
{
    const mb_function *fn = cfg->fn;
    Agraph_t *g = open_graph(fn->name);
    if (!g)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory drawing '%s'", fn->name);
    mb_buf label = MB_BUF_INIT;
    mb_buf_printf(&label, "%s %s: %d blocks, %d loops", fn->is_entry ? "kernel" : "function",
                  fn->name, cfg->nblocks, cfg->loops.nloops);
    agset(g, "label", label.data ? label.data : "");
    mb_buf_free(&label);
    mb_status st = add_function(g, g, m, cfg, NULL, "", err);
    if (st == MB_OK)
        st = mb_graphviz_write(g, out, fn->name, err);
    agclose(g);
    return st;
}

mb_status mb_dfsg_write_dot(const mb_module *m, const mb_profile *p, mb_buf *out, mb_error *err)
{
    const mb_func_profile *kernel = mb_profile_func(p, 0);
    if (!kernel)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "the profile must be finished before its DFSG is written");
    Agraph_t *g = open_graph(kernel->fn->name);
    if (!g)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory drawing the DFSG");
    mb_buf label = MB_BUF_INIT;
    mb_buf_printf(&label, "DFSG of %s: %llu threads (edge labels: executions / threads)",
                  kernel->fn->name, (unsigned long long)kernel->calls);
    agset(g, "label", label.data ? label.data : "");
    mb_status st = MB_OK;
    for (uint32_t i = 0; i < mb_profile_nfuncs(p) && st == MB_OK; i++) {
        const mb_func_profile *fp = mb_profile_func(p, i);
        if (i == 0) {
            st = add_function(g, g, m, fp->cfg, fp, "", err);
            continue;
        }
        /* each called function in its own cluster, node names prefixed */
        mb_buf name = MB_BUF_INIT, prefix = MB_BUF_INIT;
        mb_buf_printf(&name, "cluster_fn_%s", fp->fn->name);
        mb_buf_printf(&prefix, "%s:", fp->fn->name);
        Agraph_t *sub = agsubg(g, name.data, 1);
        mb_buf_reset(&label);
        mb_buf_printf(&label, "function %s: %llu calls", fp->fn->name, (unsigned long long)fp->calls);
        agsafeset(sub, "label", label.data, "");
        st = add_function(g, sub, m, fp->cfg, fp, prefix.data, err);
        mb_buf_free(&name);
        mb_buf_free(&prefix);
    }
    mb_buf_free(&label);
    if (st == MB_OK)
        st = mb_graphviz_write(g, out, kernel->fn->name, err);
    agclose(g);
    return st;
}
