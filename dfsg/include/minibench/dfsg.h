/*
 * minibench dfsg: graphs as files and pictures.
 *
 * Owns DOT output through Graphviz cgraph and SVG rendering through gvc.
 * Today it draws control-flow graphs; the divergence flow statistics graph
 * (DFSG) of the profiler lands here too.
 */
#ifndef MINIBENCH_DFSG_H
#define MINIBENCH_DFSG_H

#include <minibench/profiler.h>
#include <minibench/util.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Writes the control-flow graph of `cfg` as DOT text into `out`: one node
 * per basic block (name, PTX line range, instruction count, immediate
 * dominator and post-dominator), fall-through and branch edges, back edges
 * drawn bold and labelled "back", exits drawn to an EXIT node, and each
 * natural loop as a cluster labelled with its kind (self, normal, nested),
 * nested inside its enclosing loop's cluster.
 */
mb_status mb_cfg_write_dot(const mb_module *module, const mb_cfg *cfg, mb_buf *out, mb_error *err);

/**
 * Writes the divergence flow statistics graph (DFSG, MiniBench paper Fig.
 * 10) of a finished profile as DOT: the kernel's blocks and edges as in
 * mb_cfg_write_dot(), each node labelled with ECount, LCount and SCount and
 * carrying the attributes block, ecount, lcount, scount, threads,
 * warp_execs, entries, exits, loop and chain (the opcode chain); each edge
 * carrying oecount, iecount and tcount. Called functions follow in their
 * own clusters with node names prefixed by "function:".
 */
mb_status mb_dfsg_write_dot(const mb_module *module, const mb_profile *profile, mb_buf *out,
                            mb_error *err);

/**
 * Lays out DOT text with Graphviz's dot engine and renders it as SVG into
 * `out`. `name` names the input in error messages.
 */
mb_status mb_dot_render_svg(const char *dot, size_t len, const char *name, mb_buf *out,
                            mb_error *err);

/* ------------------------------------------------------------ reading */

/** A DFSG node read back from DOT: one basic block of the kernel. */
typedef struct mb_dfsg_node {
    const char *name;  /**< node name (block label or BB<n>) */
    int block;         /**< block index (the `block` attribute) */
    int loop;          /**< innermost loop index, -1 outside loops */
    uint64_t ecount, lcount, scount, threads, warp_execs;
    const char *chain; /**< opcode chain, "" when absent */
} mb_dfsg_node;

/** A DFSG edge between two kernel blocks (EXIT edges are left out). */
typedef struct mb_dfsg_edge {
    int from, to;     /**< block indices */
    uint64_t count;   /**< oecount (= iecount) */
    uint64_t threads; /**< tcount */
    int back;         /**< drawn as a back edge */
} mb_dfsg_edge;

/** The kernel part of a DFSG; called functions' clusters are skipped. */
typedef struct mb_dfsg_graph {
    const char *graph_name;
    mb_dfsg_node *nodes;
    size_t nnodes, nodes_cap;
    mb_dfsg_edge *edges;
    size_t nedges, edges_cap;
    mb_arena *arena;
} mb_dfsg_graph;

/**
 * Reads DFSG DOT text (as written by mb_dfsg_write_dot()) through cgraph.
 * `name` names the input in messages. Fails with MB_ERR_PARSE when the text
 * is not DOT or a count attribute is not a non-negative integer, and with
 * MB_ERR_INVALID when no node carries a `block` attribute.
 */
mb_status mb_dfsg_read_dot(const char *text, size_t len, const char *name, mb_dfsg_graph **out,
                           mb_error *err);

/** Frees a graph from mb_dfsg_read_dot(). NULL is allowed. */
void mb_dfsg_graph_free(mb_dfsg_graph *g);

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_DFSG_H */
