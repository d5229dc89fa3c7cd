/* Writing a profile as JSON (docs/formats.md, <kernel>.<n>.profile.json). */
#include "prof_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shorthands for object members. Counts are written as signed 64-bit
 * integers, the widest the profile reader (jansson) accepts. */
static void member_int(mb_json_writer *w, const char *key, uint64_t v)
{
    mb_json_key(w, key);
    mb_json_int(w, (int64_t)v);
}

static void member_string(mb_json_writer *w, const char *key, const char *s)
{
    mb_json_key(w, key);
    mb_json_string(w, s);
}

static void member_bool(mb_json_writer *w, const char *key, int v)
{
    mb_json_key(w, key);
    mb_json_bool(w, v);
}

static void member_real(mb_json_writer *w, const char *key, double v)
{
    mb_json_key(w, key);
    mb_json_real(w, v, 10);
}

static void dim3_json(mb_json_writer *w, const char *key, mb_dim3 d)
{
    mb_json_key(w, key);
    mb_json_array_begin(w);
    mb_json_int(w, d.x);
    mb_json_int(w, d.y);
    mb_json_int(w, d.z);
    mb_json_array_end(w);
}

/* {"value": count, ...} with values as keys, sorted. */
/* `h` must be sorted: mb_profile_finish() sorts every histogram. */
static void hist_json(mb_json_writer *w, const char *member, const prof_hist *h, int64_t bias)
{
    mb_json_key(w, member);
    mb_json_object_begin(w);
    for (uint32_t i = 0; i < h->n; i++) {
        char key[32];
        if (h->value[i] == UINT64_MAX) /* a capped histogram's bucket for everything else */
            snprintf(key, sizeof(key), "other");
        else
            snprintf(key, sizeof(key), "%" PRId64, (int64_t)(h->value[i] - (uint64_t)bias));
        member_int(w, key, h->count[i]);
    }
    mb_json_object_end(w);
}

static void sources_json(mb_json_writer *w, const char *member, uint8_t src)
{
    static const struct {
        uint8_t bit;
        const char *name;
    } names[] = {{SRC_CONST, "constant"}, {SRC_TID, "thread id"}, {SRC_CTAID, "cta id"},
                 {SRC_PARAM, "parameter"}, {SRC_DATA, "data"},    {SRC_LOOP, "loop counter"}};
    mb_json_key(w, member);
    mb_json_array_begin(w);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (src & names[i].bit)
            mb_json_string(w, names[i].name);
    mb_json_array_end(w);
}

/* The three categories of the issue: data-dependent, a function of
 * thread/CTA ids, or uniform. */
static const char *condition_kind(uint8_t src)
{
    if (src & SRC_DATA)
        return "data-dependent";
    if (src & (SRC_TID | SRC_CTAID))
        return "thread/cta id";
    return "uniform";
}

static const char *block_name(const func_prof *f, int b, char *buf, size_t size)
{
    return mb_cfg_block_name(f->cfg, b, buf, size);
}

/* Instruction mix key: the class, split by type for arithmetic and by space for memory. */
static const char *mix_class(const mb_insn *insn)
{
    const mb_opcode_info *info = mb_opcode_get((mb_opcode)insn->opcode);
    mb_ptx_type t = mb_insn_type(insn, 0);
    switch (info->cls) {
    case MB_CLASS_ALU:
        if (t == MB_TYPE_F64)
            return "fp64";
        if (t == MB_TYPE_F32)
            return "fp32";
        if (mb_type_kind_of(t) == MB_TYPE_KIND_F)
            return "fp16";
        return "int";
    case MB_CLASS_SFU: return t == MB_TYPE_F64 ? "fp64" : "sfu";
    case MB_CLASS_CONV: return "conv";
    case MB_CLASS_MEM:
        if (mb_insn_has_mod(insn, MB_MOD_SHARED))
            return "mem.shared";
        if (mb_insn_has_mod(insn, MB_MOD_LOCAL))
            return "mem.local";
        if (mb_insn_has_mod(insn, MB_MOD_PARAM))
            return "mem.param";
        if (mb_insn_has_mod(insn, MB_MOD_CONST))
            return "mem.const";
        if (mb_insn_has_mod(insn, MB_MOD_GLOBAL))
            return "mem.global";
        return "mem.generic";
    case MB_CLASS_CTRL: return "ctrl";
    case MB_CLASS_SYNC: return "sync";
    case MB_CLASS_TENSOR: return "tensor";
    default: return "misc";
    }
}

/* Appends `s` at buf[n] within `size` (one byte kept for the NUL); returns the new length. */
static size_t append_text(char *buf, size_t n, size_t size, const char *s)
{
    while (*s && n + 1 < size)
        buf[n++] = *s++;
    buf[n] = '\0';
    return n;
}

/* "opcode.type..." with the instruction's type suffixes. Written without
 * printf: the instruction mix asks for it once per instruction and block. */
static void opcode_key(const mb_insn *insn, char *buf, size_t size)
{
    size_t n = append_text(buf, 0, size, mb_opcode_get((mb_opcode)insn->opcode)->name);
    for (unsigned k = 0; k < insn->nsuffix; k++)
        if (insn->suffix[k] & MB_SUFFIX_TYPE) {
            n = append_text(buf, n, size, ".");
            n = append_text(buf, n, size, mb_type_name((mb_ptx_type)(insn->suffix[k] & ~MB_SUFFIX_TYPE)));
        }
}

/* Counts kept in the order their keys first appear, the order the profile
 * lists them in. */
typedef struct mix_counts {
    struct mix_entry {
        char key[96];
        uint64_t n;
    } *entry;
    size_t n, cap;
} mix_counts;

static int mix_add(mix_counts *m, const char *key, uint64_t v)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->entry[i].key, key)) {
            m->entry[i].n += v;
            return 1;
        }
    if (MB_GROW(m->entry, m->cap, m->n + 1) != MB_OK)
        return 0;
    snprintf(m->entry[m->n].key, sizeof(m->entry[m->n].key), "%s", key);
    m->entry[m->n++].n = v;
    return 1;
}

static void mix_counts_json(mb_json_writer *w, const char *member, const mix_counts *m)
{
    mb_json_key(w, member);
    mb_json_object_begin(w);
    for (size_t i = 0; i < m->n; i++)
        member_int(w, m->entry[i].key, m->entry[i].n);
    mb_json_object_end(w);
}

/* Thread-level instruction counts by class and by opcode.type over [first, end). */
static void mix_json(mb_json_writer *w, const func_prof *f, uint32_t first, uint32_t end)
{
    mix_counts classes = {0}, ops = {0};
    int ok = 1;
    for (uint32_t i = first; i < end && ok; i++) {
        const mb_insn *insn = &f->fn->insns[i];
        uint64_t n = f->insn_threads[i];
        if (!n)
            continue;
        char key[96];
        opcode_key(insn, key, sizeof(key));
        ok = mix_add(&classes, mix_class(insn), n) && mix_add(&ops, key, n);
    }
    if (!ok)
        w->failed = 1;
    mb_json_key(w, "instruction_mix");
    mb_json_object_begin(w);
    mix_counts_json(w, "classes", &classes);
    mix_counts_json(w, "opcodes", &ops);
    mb_json_object_end(w);
    free(classes.entry);
    free(ops.entry);
}

static void base_json(mb_json_writer *w, const mb_module *m, const func_prof *f, uint32_t insn)
{
    prof_base_kind kind = f->st->base_kind[insn];
    uint32_t index = f->st->base_index[insn];
    static const char *const kinds[] = {"unknown", "parameter", "global", "shared", "local", "multiple"};
    mb_json_key(w, "base");
    mb_json_object_begin(w);
    member_string(w, "kind", kinds[kind <= BASE_MULTIPLE ? kind : 0]);
    if (kind == BASE_PARAM && index < f->fn->nparams) {
        member_int(w, "index", index);
        member_string(w, "name", f->fn->params[index].name);
    } else if (kind == BASE_GLOBAL_VAR && index < m->nvars) {
        member_string(w, "name", m->vars[index].name);
    } else if (kind == BASE_SHARED_VAR) {
        const mb_var *v = (index & 0x80000000u) ? (index & 0x7FFFFFFFu) < f->fn->nvars
                                                       ? &f->fn->vars[index & 0x7FFFFFFFu]
                                                       : NULL
                          : index < m->nvars ? &m->vars[index]
                                             : NULL;
        if (v)
            member_string(w, "name", v->name);
    }
    mb_json_object_end(w);
}

static const char *const feature_names[] = {"tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z"};

/* An affine model over the features of instruction `ii` (prof.h): coef[0]
 * the constant, then one coefficient per feature; zero terms left out. */
static void affine_json(mb_json_writer *w, const char *member, int exact, const int64_t *coef, uint32_t ncoef,
                        const insn_info *ii)
{
    mb_json_key(w, member);
    mb_json_object_begin(w);
    member_bool(w, "exact", exact);
    if (exact) {
        mb_json_key(w, "constant");
        mb_json_int(w, coef[0]);
        mb_json_key(w, "terms");
        mb_json_object_begin(w);
        for (uint32_t k = 1; k < ncoef; k++) {
            if (coef[k] == 0)
                continue;
            char name[32];
            if (k - 1 < 6)
                snprintf(name, sizeof(name), "%s", feature_names[k - 1]);
            else
                snprintf(name, sizeof(name), "iter.loop%d", ii->loops[k - 7]);
            mb_json_key(w, name);
            mb_json_int(w, coef[k]);
        }
        mb_json_object_end(w);
    }
    mb_json_object_end(w);
}

/* Node k of a condition model. */
static void cond_node_json(mb_json_writer *w, const func_prof *f, const prof_cond_model *m, uint32_t k)
{
    static const char *const ops[] = {"cmp", "and", "or", "xor", "not"};
    const prof_cond_node *n = &m->node[k];
    mb_json_object_begin(w);
    member_string(w, "op", ops[n->op]);
    if (n->op != PROF_COND_CMP) {
        mb_json_key(w, "args");
        mb_json_array_begin(w);
        cond_node_json(w, f, m, n->arg[0]);
        if (n->op != PROF_COND_NOT)
            cond_node_json(w, f, m, n->arg[1]);
        mb_json_array_end(w);
        mb_json_object_end(w);
        return;
    }
    const mb_insn *setp = &f->fn->insns[n->insn];
    member_int(w, "insn", n->insn);
    member_int(w, "line", (uint64_t)setp->line);
    member_string(w, "cmp", prof_cond_cmp_name(setp));
    member_string(w, "type", mb_type_name(mb_insn_type(setp, 0)));
    for (unsigned op = 0; op < 2; op++) {
        int64_t coef[PM_MAXCOL];
        uint32_t ncoef = 0;
        const int ok = prof_cond_operand(f->cmps[n->insn], f->fn, setp, op, coef, &ncoef);
        affine_json(w, op ? "b" : "a", ok, coef, ncoef, &f->info[n->insn]);
    }
    mb_json_object_end(w);
}

/* Whether every comparison under node k has exact models of both operands;
 * the model's "exact" precedes the expression it summarises. */
static int cond_node_exact(const func_prof *f, const prof_cond_model *m, uint32_t k)
{
    const prof_cond_node *n = &m->node[k];
    if (n->op != PROF_COND_CMP)
        return cond_node_exact(f, m, n->arg[0]) && (n->op == PROF_COND_NOT || cond_node_exact(f, m, n->arg[1]));
    for (unsigned op = 0; op < 2; op++) {
        int64_t coef[PM_MAXCOL];
        uint32_t ncoef = 0;
        if (!prof_cond_operand(f->cmps[n->insn], f->fn, &f->fn->insns[n->insn], op, coef, &ncoef))
            return 0;
    }
    return 1;
}

/* A branch's condition_model (docs/formats.md). */
static void cond_json(mb_json_writer *w, const func_prof *f, const prof_cond_model *m)
{
    mb_json_key(w, "condition_model");
    mb_json_object_begin(w);
    member_bool(w, "exact", cond_node_exact(f, m, m->nnodes - 1u));
    member_bool(w, "negate", m->negate);
    mb_json_key(w, "expr");
    cond_node_json(w, f, m, m->nnodes - 1u);
    mb_json_object_end(w);
}

/* An address indexed by a loaded value (prof_index.c), when it has one. */
static void index_json(mb_json_writer *w, const mb_module *m, const func_prof *f, uint32_t insn)
{
    prof_index ix;
    if (!prof_index_find(m, f->fn, f->cfg, insn, &ix))
        return;
    mb_json_key(w, "index");
    mb_json_object_begin(w);
    member_int(w, "load", ix.load);
    member_int(w, "load_line", (uint64_t)f->fn->insns[ix.load].line);
    mb_json_key(w, "ops");
    mb_json_array_begin(w);
    for (uint32_t k = 0; k < ix.nops; k++) {
        const mb_insn *in = &f->fn->insns[ix.op_insn[k]];
        mb_buf op = MB_BUF_INIT;
        mb_ptx_print_mnemonic(in, &op);
        mb_json_object_begin(w);
        member_string(w, "op", op.data ? op.data : "");
        if (in->noperands == 3) {
            mb_json_key(w, "imm");
            mb_json_int(w, (int64_t)mb_insn_operand(f->fn, in, 2)->u.bits);
        }
        mb_json_object_end(w);
        mb_buf_free(&op);
    }
    mb_json_array_end(w);
    member_string(w, "variable", ix.var->name);
    mb_json_key(w, "offset");
    mb_json_int(w, ix.offset);
    mb_json_object_end(w);
}

static void memory_json(mb_json_writer *w, const mb_module *m, const func_prof *f, uint32_t insn)
{
    const mb_insn *in = &f->fn->insns[insn];
    const prof_mem_result *r = prof_mem_finish(f->mems[insn]);
    char key[96];
    mb_buf text = MB_BUF_INIT;
    mb_ptx_print_insn(m, f->fn, in, &text);
    mb_json_object_begin(w);
    member_int(w, "insn", insn);
    member_int(w, "line", (uint64_t)in->line);
    member_string(w, "ptx", text.data ? text.data : "");
    mb_buf_free(&text);
    opcode_key(in, key, sizeof(key));
    member_string(w, "op", key);
    const char *space = mb_space_name(r->space);
    member_string(w, "space", space[0] ? space + 1 : "mixed");
    unsigned vec = mb_insn_has_mod(in, MB_MOD_V4) ? 4 : mb_insn_has_mod(in, MB_MOD_V2) ? 2 : 1;
    member_int(w, "width", mb_type_size(mb_insn_type(in, 0)));
    member_int(w, "vector", vec);
    member_int(w, "requests", r->requests);
    member_int(w, "thread_accesses", r->thread_accesses);
    hist_json(w, "sectors_per_request", &r->sectors, 0);
    hist_json(w, "lines_per_request", &r->lines, 0);
    hist_json(w, "cc10_transactions_per_request", &r->cc10_transactions, 0);
    hist_json(w, "cc12_transactions_per_request", &r->cc12_transactions, 0);
    if (r->bank_degree.n)
        hist_json(w, "bank_conflict_degree", &r->bank_degree, 0);
    if (r->bank_cc1x.n)
        hist_json(w, "bank_cycles_cc1x", &r->bank_cc1x, 0);
    if (r->addresses.n)
        hist_json(w, "addresses_per_request", &r->addresses, 0);
    base_json(w, m, f, insn);
    sources_json(w, "address_sources", f->st->source[insn]);
    affine_json(w, "affine", r->affine, r->coef, r->ncoef, &f->info[insn]);
    if (!r->affine)
        index_json(w, m, f, insn);
    hist_json(w, "lane_stride", &r->lane_stride, (int64_t)1 << 62);
    member_int(w, "footprint_lines", r->footprint_lines);
    if (r->footprint_capped)
        member_bool(w, "footprint_capped", 1);
    hist_json(w, "reuse_distance_log2", &r->reuse_log2, 0);
    mb_json_object_end(w);
}

static void blocks_json(mb_json_writer *w, const func_prof *f)
{
    const mb_function *fn = f->fn;
    const mb_cfg *cfg = f->cfg;
    char name[64];
    mb_json_key(w, "blocks");
    mb_json_array_begin(w);
    for (int b = 0; b < cfg->nblocks; b++) {
        const mb_block *blk = &cfg->blocks[b];
        const mb_block_profile *bp = &f->blocks[b];
        mb_json_object_begin(w);
        member_int(w, "id", (uint64_t)b);
        member_string(w, "name", block_name(f, b, name, sizeof(name)));
        if (blk->ninsns) {
            member_int(w, "first_line", (uint64_t)fn->insns[blk->first].line);
            member_int(w, "last_line", (uint64_t)fn->insns[blk->first + blk->ninsns - 1].line);
        }
        member_int(w, "ecount", bp->ecount);
        member_int(w, "lcount", bp->lcount);
        member_int(w, "scount", bp->scount);
        member_int(w, "threads", bp->threads);
        member_int(w, "warp_execs", bp->warp_execs);
        member_int(w, "entries", bp->entries);
        member_int(w, "exits", bp->exits);
        int loop = cfg->loops.innermost[b];
        mb_json_key(w, "loop");
        if (loop >= 0)
            mb_json_int(w, loop);
        else
            mb_json_null(w);
        mb_buf chain = MB_BUF_INIT;
        mb_profile_block_chain(fn, cfg, b, &chain);
        member_string(w, "chain", chain.data ? chain.data : "");
        mb_buf_free(&chain);
        mix_json(w, f, blk->first, blk->first + blk->ninsns);
        hist_json(w, "dependence_distance", &f->st->dep_dist[b], 0);
        const mb_buf *deps = &f->st->dep_chain[b];
        member_string(w, "dependences", deps->data ? deps->data : "");
        const mb_buf *deps_in = &f->st->dep_in[b];
        if (deps_in->len)
            member_string(w, "dependences_in", deps_in->data);
        mb_json_object_end(w);
    }
    mb_json_array_end(w);
}

static void edges_json(mb_json_writer *w, const func_prof *f)
{
    mb_json_key(w, "edges");
    mb_json_array_begin(w);
    for (uint32_t e = 0; e < f->nedges; e++) {
        const mb_edge_profile *ep = &f->edges[e];
        mb_json_object_begin(w);
        member_int(w, "from", (uint64_t)ep->from);
        member_int(w, "to", (uint64_t)ep->to);
        member_int(w, "count", ep->count);
        member_int(w, "threads", ep->threads);
        member_bool(w, "back", ep->back);
        mb_json_object_end(w);
    }
    mb_json_array_end(w);
}

static void loops_json(mb_json_writer *w, const func_prof *f)
{
    const mb_cfg *cfg = f->cfg;
    char name[64];
    mb_json_key(w, "loops");
    mb_json_array_begin(w);
    for (int l = 0; l < cfg->loops.nloops; l++) {
        const mb_loop *loop = &cfg->loops.loops[l];
        const loop_stats *ls = &f->loops[l];
        mb_json_object_begin(w);
        member_int(w, "index", (uint64_t)l);
        member_string(w, "kind", mb_loop_kind_name(loop->kind));
        member_int(w, "header", (uint64_t)loop->header);
        member_string(w, "target_point", block_name(f, loop->header, name, sizeof(name)));
        mb_json_key(w, "jump_points");
        mb_json_array_begin(w);
        for (int k = 0; k < loop->nlatches; k++)
            mb_json_string(w, block_name(f, loop->latches[k], name, sizeof(name)));
        mb_json_array_end(w);
        /* what decides the trip count: the conditions of the branches that leave the loop */
        uint8_t src = 0;
        for (int k = 0; k < loop->nexits; k++) {
            const mb_block *from = &cfg->blocks[loop->exits[k].from];
            if (from->ninsns) {
                uint32_t last = from->first + from->ninsns - 1;
                if (f->info[last].cond_branch)
                    src |= f->st->source[last];
            }
        }
        member_int(w, "depth", (uint64_t)loop->depth);
        mb_json_key(w, "parent");
        if (loop->parent >= 0)
            mb_json_int(w, loop->parent);
        else
            mb_json_null(w);
        mb_json_key(w, "blocks");
        mb_json_array_begin(w);
        for (int k = 0; k < loop->nblocks; k++)
            mb_json_int(w, loop->blocks[k]);
        mb_json_array_end(w);
        member_int(w, "activations", ls->activations);
        uint64_t sum = 0;
        for (uint32_t i = 0; i < ls->trips.n; i++)
            sum += ls->trips.value[i] * ls->trips.count[i];
        member_real(w, "mean_trip_count", ls->activations ? (double)sum / (double)ls->activations : 0.0);
        hist_json(w, "trip_counts", &ls->trips, 0);
        member_int(w, "warp_activations", ls->warp_activations);
        member_int(w, "warp_activations_with_differing_trips", ls->warp_activations_mixed);
        sources_json(w, "trip_count_depends_on", src & ~SRC_LOOP);
        mb_json_object_end(w);
    }
    mb_json_array_end(w);
}

static void branch_json(mb_json_writer *w, const func_prof *f, uint32_t i)
{
    const insn_info *ii = &f->info[i];
    const branch_stats *bs = &f->br[i];
    mb_json_object_begin(w);
    member_int(w, "insn", i);
    member_int(w, "line", (uint64_t)f->fn->insns[i].line);
    member_int(w, "block", (uint64_t)ii->block);
    member_int(w, "warp_execs", bs->warp_execs);
    member_int(w, "taken_threads", bs->taken);
    member_int(w, "not_taken_threads", bs->not_taken);
    member_int(w, "diverged_warp_execs", bs->diverged);
    member_real(w, "divergence_fraction", (double)bs->diverged / (double)bs->warp_execs);
    member_string(w, "condition", condition_kind(f->st->source[i]));
    sources_json(w, "condition_sources", f->st->source[i]);
    if (f->cond_of[i] >= 0)
        cond_json(w, f, &f->conds[f->cond_of[i]]);
    mb_json_object_end(w);
}

static void function_json(mb_json_writer *w, const mb_profile *p, const func_prof *f)
{
    const mb_function *fn = f->fn;
    mb_json_object_begin(w);
    member_string(w, "name", fn->name);
    member_string(w, "kind", fn->is_entry ? "kernel" : "function");
    member_int(w, "calls", f->calls);
    mix_json(w, f, 0, fn->ninsns);
    blocks_json(w, f);
    edges_json(w, f);
    loops_json(w, f);
    mb_json_key(w, "branches");
    mb_json_array_begin(w);
    for (uint32_t i = 0; i < fn->ninsns; i++)
        if (f->info[i].cond_branch && f->br[i].warp_execs)
            branch_json(w, f, i);
    mb_json_array_end(w);
    mb_json_key(w, "memory");
    mb_json_array_begin(w);
    for (uint32_t i = 0; i < fn->ninsns; i++)
        if (f->mems[i])
            memory_json(w, p->module, f, i);
    mb_json_array_end(w);
    mb_json_object_end(w);
}

static void params_json(mb_json_writer *w, const mb_profile *p)
{
    const mb_function *k = p->cfg->kernel;
    mb_json_key(w, "parameters");
    mb_json_array_begin(w);
    mb_param_slot *slots = calloc((size_t)k->nparams + 1, sizeof(mb_param_slot));
    uint32_t total = 0;
    if (!slots || mb_kernel_param_layout(k, slots, &total, NULL) != MB_OK) {
        free(slots);
        mb_json_array_end(w);
        return;
    }
    for (uint32_t i = 0; i < k->nparams; i++) {
        const mb_param *prm = &k->params[i];
        mb_json_object_begin(w);
        member_string(w, "name", prm->name);
        member_string(w, "type", mb_type_name(prm->type));
        member_int(w, "bytes", slots[i].size);
        if (slots[i].size == 8 && !prm->ndims && slots[i].offset + 8 <= p->cfg->param_bytes) {
            uint64_t v;
            memcpy(&v, (const uint8_t *)p->cfg->params + slots[i].offset, 8);
            uint64_t size;
            const char *name;
            uint64_t base = mb_memory_allocation(p->mem, v, &size, &name);
            if (base) {
                mb_json_key(w, "pointer");
                mb_json_object_begin(w);
                member_string(w, "buffer", name);
                member_int(w, "buffer_bytes", size);
                member_int(w, "offset", v - base);
                const int input = prof_input_of(p, v);
                if (input >= 0)
                    member_int(w, "input", (uint64_t)input);
                mb_json_object_end(w);
            } else {
                member_int(w, "value", v);
            }
        } else if (!prm->ndims && slots[i].size <= 8 && slots[i].offset + slots[i].size <= p->cfg->param_bytes) {
            uint64_t v = 0;
            memcpy(&v, (const uint8_t *)p->cfg->params + slots[i].offset, slots[i].size);
            member_int(w, "value", v);
        }
        mb_json_object_end(w);
    }
    free(slots);
    mb_json_array_end(w);
}

static void inputs_json(mb_json_writer *w, const mb_profile *p)
{
    if (p->inputs_omitted)
        member_int(w, "inputs_omitted_bytes", p->inputs_omitted);
    mb_json_key(w, "inputs");
    mb_json_array_begin(w);
    for (uint32_t k = 0; k < p->ninputs; k++) {
        char sum[24];
        snprintf(sum, sizeof(sum), "0x%016" PRIx64, p->inputs[k].fnv1a64);
        mb_json_object_begin(w);
        member_string(w, "buffer", p->inputs[k].buffer);
        member_int(w, "bytes", p->inputs[k].bytes);
        member_string(w, "fnv1a64", sum);
        mb_json_object_end(w);
    }
    mb_json_array_end(w);
}

static void module_variables_json(mb_json_writer *w, const mb_module *m)
{
    mb_json_key(w, "module_variables");
    mb_json_array_begin(w);
    for (uint32_t i = 0; i < m->nvars; i++) {
        const mb_var *v = &m->vars[i];
        mb_json_object_begin(w);
        member_string(w, "name", v->name);
        member_string(w, "space", mb_space_name(v->space) + 1);
        member_string(w, "type", mb_type_name(v->type));
        member_int(w, "bytes", v->size);
        member_int(w, "elements", v->ndims ? v->nelems : 1);
        mb_json_object_end(w);
    }
    mb_json_array_end(w);
}

mb_status mb_profile_write_json(const mb_profile *p, mb_buf *out, mb_error *err)
{
    if (!p->finished)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "the profile must be finished before it is written");
    const mb_function *k = p->cfg->kernel;
    mb_resources res;
    if (mb_function_resources(p->module, k, &res, err) != MB_OK)
        return err->status;
    const size_t start = out->len;
    mb_json_writer w;
    mb_json_init(&w, out, 1);
    mb_json_object_begin(&w);
    member_string(&w, "format", "minibench-profile-1");
    member_string(&w, "kernel", k->name);
    member_string(&w, "ptx", p->module->filename);
    mb_json_key(&w, "launch");
    mb_json_object_begin(&w);
    dim3_json(&w, "grid", p->cfg->grid);
    dim3_json(&w, "block", p->cfg->block);
    member_int(&w, "dynamic_shared", p->cfg->dynamic_shared);
    member_int(&w, "ctas", p->stats.ctas);
    member_int(&w, "warps", p->stats.warps);
    member_int(&w, "threads", p->stats.threads);
    member_int(&w, "warp_insts", p->stats.warp_insts);
    member_int(&w, "thread_insts", p->stats.thread_insts);
    mb_json_object_end(&w);
    mb_json_key(&w, "resources");
    mb_json_object_begin(&w);
    member_int(&w, "registers", res.nregs);
    member_int(&w, "shared_bytes_static", res.shared_bytes);
    member_int(&w, "shared_bytes_dynamic", p->cfg->dynamic_shared);
    member_int(&w, "local_bytes_per_thread", res.local_bytes);
    member_int(&w, "const_bytes", res.const_bytes);
    member_int(&w, "param_bytes", res.param_bytes);
    mb_json_object_end(&w);
    params_json(&w, p);
    inputs_json(&w, p);
    module_variables_json(&w, p->module);
    mb_json_key(&w, "functions");
    mb_json_array_begin(&w);
    for (uint32_t i = 0; i < p->nfuncs; i++)
        if (i == 0 || p->funcs[i].used)
            function_json(&w, p, &p->funcs[i]);
    mb_json_array_end(&w);
    mb_json_object_end(&w);
    mb_buf_putc(out, '\n');
    if (!mb_json_ok(&w)) {
        /* leave the buffer as it was: no half-written profile */
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory writing the profile");
    }
    return MB_OK;
}
