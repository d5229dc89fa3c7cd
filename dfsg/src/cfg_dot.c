/* Control-flow graphs as DOT, built with Graphviz cgraph. */
#define _POSIX_C_SOURCE 200809L
#include <minibench/dfsg.h>

#include <graphviz/cgraph.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphviz_io.h"

/* cgraph takes char * for names and values it does not modify. */
static char *mutable_text(const char *s)
{
    return (char *)(uintptr_t)s;
}

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

mb_status mb_cfg_write_dot(const mb_module *m, const mb_cfg *cfg, mb_buf *out, mb_error *err)
{
    const mb_function *fn = cfg->fn;
    Agraph_t *g = agopen(mutable_text(fn->name), Agstrictdirected, NULL);
    int n = cfg->nblocks;
    Agnode_t **nodes = calloc((size_t)n + 1, sizeof(Agnode_t *));
    Agraph_t **clusters = calloc((size_t)cfg->loops.nloops + 1, sizeof(Agraph_t *));
    mb_buf label = MB_BUF_INIT;
    mb_status st = MB_OK;
    if (!g || !nodes || !clusters) {
        st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory drawing '%s'", fn->name);
        goto done;
    }
    agattr(g, AGRAPH, "label", "");
    agattr(g, AGRAPH, "style", "");
    agattr(g, AGRAPH, "color", "");
    agattr(g, AGNODE, "shape", "box");
    agattr(g, AGNODE, "fontname", "monospace");
    agattr(g, AGNODE, "label", "\\N");
    agattr(g, AGNODE, "style", "");
    agattr(g, AGEDGE, "label", "");
    agattr(g, AGEDGE, "style", "");
    agattr(g, AGEDGE, "color", "");
    agattr(g, AGEDGE, "penwidth", "");
    mb_buf_printf(&label, "%s %s: %d blocks, %d loops", fn->is_entry ? "kernel" : "function",
                  fn->name, n, cfg->loops.nloops);
    agset(g, "label", label.data ? label.data : "");

    /* Loops become clusters nested like the loops themselves; loops are
     * ordered outermost first, so a parent's cluster always exists already. */
    for (int l = 0; l < cfg->loops.nloops; l++) {
        const mb_loop *loop = &cfg->loops.loops[l];
        Agraph_t *parent = loop->parent >= 0 ? clusters[loop->parent] : g;
        char cname[32], hname[32];
        snprintf(cname, sizeof(cname), "cluster_loop%d", l);
        clusters[l] = agsubg(parent, cname, 1);
        mb_buf_reset(&label);
        mb_buf_printf(&label, "loop %d: %s, header %s, depth %d", l,
                      mb_loop_kind_name(loop->kind),
                      mb_cfg_block_name(cfg, loop->header, hname, sizeof(hname)), loop->depth);
        agsafeset(clusters[l], "label", label.data, "");
        agsafeset(clusters[l], "style", "dashed", "");
        agsafeset(clusters[l], "color", loop->kind == MB_LOOP_SELF ? "blue"
                                        : loop->kind == MB_LOOP_NESTED ? "purple" : "darkgreen", "");
    }
    for (int b = 0; b < n; b++) {
        char name[32];
        int inner = cfg->loops.innermost ? cfg->loops.innermost[b] : -1;
        Agraph_t *home = inner >= 0 ? clusters[inner] : g;
        nodes[b] = agnode(home, mutable_text(mb_cfg_block_name(cfg, b, name, sizeof(name))), 1);
        mb_buf_reset(&label);
        block_label(m, cfg, b, &label);
        agset(nodes[b], "label", label.data);
        if (b == 0)
            agset(nodes[b], "style", "bold");
    }
    int any_exit = 0;
    for (int b = 0; b < n; b++)
        any_exit |= cfg->blocks[b].is_exit;
    if (any_exit) {
        nodes[n] = agnode(g, "EXIT", 1);
        agset(nodes[n], "shape", "doublecircle");
    }
    for (int b = 0; b < n; b++) {
        for (int k = cfg->graph.succ_start[b]; k < cfg->graph.succ_start[b + 1]; k++) {
            int to = cfg->graph.succ[k];
            Agedge_t *e = agedge(g, nodes[b], nodes[to], NULL, 1);
            if (is_back_edge(cfg, b, to)) {
                agset(e, "label", "back");
                agset(e, "color", "red");
                agset(e, "penwidth", "2");
                agset(e, "style", "bold");
            } else if (k == cfg->graph.succ_start[b] && b + 1 == to &&
                       cfg->graph.succ_start[b + 1] - cfg->graph.succ_start[b] > 1) {
                agset(e, "label", "fall");
            }
        }
        if (cfg->blocks[b].is_exit) {
            Agedge_t *e = agedge(g, nodes[b], nodes[n], NULL, 1);
            agset(e, "style", "dashed");
        }
    }
    st = mb_graphviz_write(g, out, fn->name, err);
done:
    if (g)
        agclose(g);
    free(nodes);
    free(clusters);
    mb_buf_free(&label);
    return st;
}
