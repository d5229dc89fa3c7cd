/* Basic blocks and the control-flow analyses of one function. */
#include <minibench/profiler.h>

#include <stdlib.h>
#include <string.h>

static int is_terminator(const mb_insn *insn)
{
    return (mb_opcode_get((mb_opcode)insn->opcode)->flags & MB_OPF_T) != 0;
}

static int leaves_function(const mb_insn *insn)
{
    return insn->opcode == MB_OP_RET || insn->opcode == MB_OP_EXIT || insn->opcode == MB_OP_TRAP;
}

void mb_cfg_free(mb_cfg *cfg)
{
    if (!cfg)
        return;
    free(cfg->blocks);
    free(cfg->block_of_insn);
    free(cfg->idom);
    free(cfg->ipdom);
    mb_graph_free(&cfg->graph);
    mb_loop_forest_free(&cfg->loops);
    memset(cfg, 0, sizeof(*cfg));
}

const char *mb_cfg_block_name(const mb_cfg *cfg, int block, char *buf, size_t size)
{
    if (block >= 0 && block < cfg->nblocks && cfg->blocks[block].label >= 0)
        return cfg->fn->labels[cfg->blocks[block].label].name;
    snprintf(buf, size, "BB%d", block);
    return buf;
}

static mb_status nomem(const mb_function *fn, mb_error *err)
{
    return mb_error_set(err, MB_ERR_NOMEM, "", fn->line, fn->col, "out of memory analysing '%s'",
                        fn->name);
}

/* Marks block starts: the entry, every code label, and each instruction after a terminator. */
static uint32_t mark_leaders(const mb_function *fn, unsigned char *leader, int *needs_end_block)
{
    uint32_t n = fn->ninsns;
    leader[0] = 1;
    for (uint32_t i = 0; i < fn->nlabels; i++) {
        const mb_label *l = &fn->labels[i];
        if (l->kind == MB_LABEL_CODE)
            leader[l->insn] = 1;
    }
    for (uint32_t i = 0; i + 1 < n; i++)
        if (is_terminator(&fn->insns[i]))
            leader[i + 1] = 1;
    *needs_end_block = n > 0 && leader[n];
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        count += leader[i];
    return count + (uint32_t)*needs_end_block + (n == 0);
}

/* Adds the edges leaving block b. */
static mb_status block_edges(const mb_function *fn, mb_cfg *cfg, int b, mb_edge **edges,
                             size_t *nedges, size_t *cap)
{
    mb_block *blk = &cfg->blocks[b];
    int fallthrough = b + 1 < cfg->nblocks ? b + 1 : -1;
    int targets[2] = {-1, -1};
    const uint32_t *many = NULL;
    uint32_t nmany = 0;
    int falls = 1;
    if (blk->ninsns == 0) {
        blk->is_exit = fallthrough < 0;
    } else {
        const mb_insn *last = &fn->insns[blk->first + blk->ninsns - 1];
        int guarded = last->guard >= 0;
        if (last->opcode == MB_OP_BRA) {
            const mb_operand *o = mb_insn_operand(fn, last, 0);
            const mb_label *l = &fn->labels[o->u.label];
            targets[0] = l->insn < fn->ninsns ? cfg->block_of_insn[l->insn] : cfg->nblocks - 1;
            falls = guarded;
        } else if (last->opcode == MB_OP_BRX) {
            const mb_operand *o = mb_insn_operand(fn, last, 1);
            if (o->kind == MB_OPND_LABEL &&
                fn->labels[o->u.label].kind == MB_LABEL_BRANCHTARGETS) {
                many = fn->labels[o->u.label].targets;
                nmany = fn->labels[o->u.label].ntargets;
            }
            falls = guarded;
        } else if (leaves_function(last)) {
            blk->is_exit = 1;
            falls = guarded;
        }
        if (falls && fallthrough < 0)
            blk->is_exit = 1;
    }
    if (falls && fallthrough >= 0)
        targets[1] = fallthrough;
    size_t need = *nedges + 2 + nmany;
    if (MB_GROW(*edges, *cap, need) != MB_OK)
        return MB_ERR_NOMEM;
    if (targets[1] >= 0)
        (*edges)[(*nedges)++] = (mb_edge){b, targets[1]};
    if (targets[0] >= 0)
        (*edges)[(*nedges)++] = (mb_edge){b, targets[0]};
    for (uint32_t i = 0; i < nmany; i++) {
        uint32_t at = fn->labels[many[i]].insn;
        (*edges)[(*nedges)++] = (mb_edge){b, at < fn->ninsns ? cfg->block_of_insn[at]
                                                              : cfg->nblocks - 1};
    }
    return MB_OK;
}

mb_status mb_cfg_build(const mb_function *fn, mb_cfg *cfg, mb_error *err)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->fn = fn;
    if (!fn->has_body)
        return mb_error_set(err, MB_ERR_INVALID, "", fn->line, fn->col,
                            "function '%s' has no body to analyse", fn->name);
    uint32_t n = fn->ninsns;
    if (n >= (uint32_t)MB_GRAPH_MAX_NODES)
        return mb_error_set(err, MB_ERR_LIMIT, "", fn->line, fn->col,
                            "function '%s' is too large to analyse", fn->name);
    unsigned char *leader = calloc((size_t)n + 1, 1);
    cfg->block_of_insn = malloc(((size_t)n + 1) * sizeof(int));
    if (!leader || !cfg->block_of_insn) {
        free(leader);
        mb_cfg_free(cfg);
        return nomem(fn, err);
    }
    int needs_end_block;
    uint32_t nblocks = mark_leaders(fn, leader, &needs_end_block);
    cfg->nblocks = (int)nblocks;
    cfg->blocks = calloc(nblocks, sizeof(mb_block));
    if (!cfg->blocks) {
        free(leader);
        mb_cfg_free(cfg);
        return nomem(fn, err);
    }
    int b = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (leader[i]) {
            b++;
            cfg->blocks[b].first = i;
            cfg->blocks[b].label = -1;
        }
        cfg->blocks[b].ninsns++;
        cfg->block_of_insn[i] = b;
    }
    if (n == 0 || needs_end_block) {
        b++;
        cfg->blocks[b].first = n;
        cfg->blocks[b].label = -1;
    }
    free(leader);
    for (uint32_t i = 0; i < fn->nlabels; i++) {
        const mb_label *l = &fn->labels[i];
        if (l->kind != MB_LABEL_CODE)
            continue;
        int blk = l->insn < n ? cfg->block_of_insn[l->insn] : cfg->nblocks - 1;
        if (cfg->blocks[blk].label < 0)
            cfg->blocks[blk].label = (int)i;
    }
    mb_edge *edges = NULL;
    size_t nedges = 0, cap = 0;
    mb_status st = MB_OK;
    for (int k = 0; k < cfg->nblocks && st == MB_OK; k++)
        st = block_edges(fn, cfg, k, &edges, &nedges, &cap);
    if (st == MB_OK && nedges > (size_t)INT32_MAX)
        st = mb_error_set(err, MB_ERR_LIMIT, "", fn->line, fn->col,
                          "function '%s' has too many control-flow edges", fn->name);
    if (st == MB_OK)
        st = mb_graph_build(&cfg->graph, cfg->nblocks, edges, (int)nedges, err);
    free(edges);
    unsigned char *is_exit = NULL;
    if (st == MB_OK) {
        cfg->idom = malloc((size_t)cfg->nblocks * sizeof(int));
        cfg->ipdom = malloc((size_t)cfg->nblocks * sizeof(int));
        is_exit = malloc((size_t)cfg->nblocks);
        if (!cfg->idom || !cfg->ipdom || !is_exit)
            st = MB_ERR_NOMEM;
    }
    if (st == MB_OK) {
        for (int k = 0; k < cfg->nblocks; k++)
            is_exit[k] = (unsigned char)cfg->blocks[k].is_exit;
        st = mb_dominators(&cfg->graph, 0, cfg->idom, err);
    }
    if (st == MB_OK)
        st = mb_postdominators(&cfg->graph, is_exit, cfg->ipdom, err);
    if (st == MB_OK)
        st = mb_find_loops(&cfg->graph, 0, cfg->idom, &cfg->loops, err);
    free(is_exit);
    if (st != MB_OK) {
        if (st == MB_ERR_NOMEM)
            nomem(fn, err);
        mb_cfg_free(cfg);
    }
    return st;
}
