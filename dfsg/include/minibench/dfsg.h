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

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_DFSG_H */
