/* Writing a profile as JSON (docs/formats.md, <kernel>.<n>.profile.json). */
#include "prof_internal.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *jint(uint64_t v)
{
    return json_integer((json_int_t)v);
}

static json_t *dim3_json(mb_dim3 d)
{
    json_t *a = json_array();
    json_array_append_new(a, jint(d.x));
    json_array_append_new(a, jint(d.y));
    json_array_append_new(a, jint(d.z));
    return a;
}

/* {"value": count, ...} with values as keys, sorted. */
/* `h` must be sorted: mb_profile_finish() sorts every histogram. */
static json_t *hist_json(const prof_hist *h, int64_t bias)
{
    json_t *o = json_object();
    for (uint32_t i = 0; i < h->n; i++) {
        char key[32];
        if (h->value[i] == UINT64_MAX) /* a capped histogram's bucket for everything else */
            snprintf(key, sizeof(key), "other");
        else
            snprintf(key, sizeof(key), "%" PRId64, (int64_t)(h->value[i] - (uint64_t)bias));
        json_object_set_new(o, key, jint(h->count[i]));
    }
    return o;
}

static json_t *sources_json(uint8_t src)
{
    static const struct {
        uint8_t bit;
        const char *name;
    } names[] = {{SRC_CONST, "constant"}, {SRC_TID, "thread id"}, {SRC_CTAID, "cta id"},
                 {SRC_PARAM, "parameter"}, {SRC_DATA, "data"},    {SRC_LOOP, "loop counter"}};
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (src & names[i].bit)
            json_array_append_new(a, json_string(names[i].name));
    return a;
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

static void opcode_key(const mb_insn *insn, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s", mb_opcode_get((mb_opcode)insn->opcode)->name);
    for (unsigned k = 0; k < insn->nsuffix && n < size; k++)
        if (insn->suffix[k] & MB_SUFFIX_TYPE)
            n += (size_t)snprintf(buf + n, size - n, ".%s",
                                  mb_type_name((mb_ptx_type)(insn->suffix[k] & ~MB_SUFFIX_TYPE)));
}

static void mix_add(json_t *obj, const char *key, uint64_t v)
{
    json_t *old = json_object_get(obj, key);
    json_object_set_new(obj, key, jint((old ? (uint64_t)json_integer_value(old) : 0) + v));
}

/* Thread-level instruction counts by class and by opcode.type over [first, end). */
static json_t *mix_json(const func_prof *f, uint32_t first, uint32_t end)
{
    json_t *mix = json_object(), *classes = json_object(), *ops = json_object();
    for (uint32_t i = first; i < end; i++) {
        const mb_insn *insn = &f->fn->insns[i];
        uint64_t n = f->insn_threads[i];
        if (!n)
            continue;
        char key[96];
        opcode_key(insn, key, sizeof(key));
        mix_add(classes, mix_class(insn), n);
        mix_add(ops, key, n);
    }
    json_object_set_new(mix, "classes", classes);
    json_object_set_new(mix, "opcodes", ops);
    return mix;
}

static json_t *base_json(const mb_module *m, const func_prof *f, uint32_t insn)
{
    json_t *b = json_object();
    prof_base_kind kind = f->st->base_kind[insn];
    uint32_t index = f->st->base_index[insn];
    static const char *const kinds[] = {"unknown", "parameter", "global", "shared", "local", "multiple"};
    json_object_set_new(b, "kind", json_string(kinds[kind <= BASE_MULTIPLE ? kind : 0]));
    if (kind == BASE_PARAM && index < f->fn->nparams) {
        json_object_set_new(b, "index", jint(index));
        json_object_set_new(b, "name", json_string(f->fn->params[index].name));
    } else if (kind == BASE_GLOBAL_VAR && index < m->nvars) {
        json_object_set_new(b, "name", json_string(m->vars[index].name));
    } else if (kind == BASE_SHARED_VAR) {
        const mb_var *v = (index & 0x80000000u) ? (index & 0x7FFFFFFFu) < f->fn->nvars
                                                       ? &f->fn->vars[index & 0x7FFFFFFFu]
                                                       : NULL
                          : index < m->nvars ? &m->vars[index]
                                             : NULL;
        if (v)
            json_object_set_new(b, "name", json_string(v->name));
    }
    return b;
}

static const char *const feature_names[] = {"tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z"};

/* An affine model over the features of instruction `ii` (prof.h): coef[0]
 * the constant, then one coefficient per feature; zero terms left out. */
static json_t *affine_json(int exact, const int64_t *coef, uint32_t ncoef, const insn_info *ii)
{
    json_t *aff = json_object();
    json_object_set_new(aff, "exact", json_boolean(exact));
    if (exact) {
        json_object_set_new(aff, "constant", json_integer((json_int_t)coef[0]));
        json_t *terms = json_object();
        for (uint32_t k = 1; k < ncoef; k++) {
            if (coef[k] == 0)
                continue;
            char name[32];
            if (k - 1 < 6)
                snprintf(name, sizeof(name), "%s", feature_names[k - 1]);
            else
                snprintf(name, sizeof(name), "iter.loop%d", ii->loops[k - 7]);
            json_object_set_new(terms, name, json_integer((json_int_t)coef[k]));
        }
        json_object_set_new(aff, "terms", terms);
    }
    return aff;
}

/* Node k of a condition model; *exact is cleared when a comparison or an
 * operand has no exact model. */
static json_t *cond_node_json(const func_prof *f, const prof_cond_model *m, uint32_t k, int *exact)
{
    static const char *const ops[] = {"cmp", "and", "or", "xor", "not"};
    const prof_cond_node *n = &m->node[k];
    json_t *o = json_object();
    json_object_set_new(o, "op", json_string(ops[n->op]));
    if (n->op != PROF_COND_CMP) {
        json_t *args = json_array();
        json_array_append_new(args, cond_node_json(f, m, n->arg[0], exact));
        if (n->op != PROF_COND_NOT)
            json_array_append_new(args, cond_node_json(f, m, n->arg[1], exact));
        json_object_set_new(o, "args", args);
        return o;
    }
    const mb_insn *setp = &f->fn->insns[n->insn];
    json_object_set_new(o, "insn", jint(n->insn));
    json_object_set_new(o, "line", jint((uint64_t)setp->line));
    json_object_set_new(o, "cmp", json_string(prof_cond_cmp_name(setp)));
    json_object_set_new(o, "type", json_string(mb_type_name(mb_insn_type(setp, 0))));
    for (unsigned op = 0; op < 2; op++) {
        int64_t coef[PM_MAXCOL];
        uint32_t ncoef = 0;
        const int ok = prof_cond_operand(f->cmps[n->insn], f->fn, setp, op, coef, &ncoef);
        *exact &= ok;
        json_object_set_new(o, op ? "b" : "a", affine_json(ok, coef, ncoef, &f->info[n->insn]));
    }
    return o;
}

/* A branch's condition_model (docs/formats.md). */
static json_t *cond_json(const func_prof *f, const prof_cond_model *m)
{
    int exact = 1;
    json_t *expr = cond_node_json(f, m, m->nnodes - 1u, &exact);
    json_t *o = json_object();
    json_object_set_new(o, "exact", json_boolean(exact));
    json_object_set_new(o, "negate", json_boolean(m->negate));
    json_object_set_new(o, "expr", expr);
    return o;
}

static json_t *memory_json(const mb_module *m, const func_prof *f, uint32_t insn)
{
    const mb_insn *in = &f->fn->insns[insn];
    const prof_mem_result *r = prof_mem_finish(f->mems[insn]);
    json_t *o = json_object();
    char key[96];
    mb_buf text = MB_BUF_INIT;
    mb_ptx_print_insn(m, f->fn, in, &text);
    json_object_set_new(o, "insn", jint(insn));
    json_object_set_new(o, "line", jint((uint64_t)in->line));
    json_object_set_new(o, "ptx", json_string(text.data ? text.data : ""));
    mb_buf_free(&text);
    opcode_key(in, key, sizeof(key));
    json_object_set_new(o, "op", json_string(key));
    const char *space = mb_space_name(r->space);
    json_object_set_new(o, "space", json_string(space[0] ? space + 1 : "mixed"));
    unsigned vec = mb_insn_has_mod(in, MB_MOD_V4) ? 4 : mb_insn_has_mod(in, MB_MOD_V2) ? 2 : 1;
    json_object_set_new(o, "width", jint(mb_type_size(mb_insn_type(in, 0))));
    json_object_set_new(o, "vector", jint(vec));
    json_object_set_new(o, "requests", jint(r->requests));
    json_object_set_new(o, "thread_accesses", jint(r->thread_accesses));
    json_object_set_new(o, "sectors_per_request", hist_json(&r->sectors, 0));
    json_object_set_new(o, "lines_per_request", hist_json(&r->lines, 0));
    json_object_set_new(o, "cc10_transactions_per_request", hist_json(&r->cc10_transactions, 0));
    json_object_set_new(o, "cc12_transactions_per_request", hist_json(&r->cc12_transactions, 0));
    if (r->bank_degree.n)
        json_object_set_new(o, "bank_conflict_degree", hist_json(&r->bank_degree, 0));
    json_object_set_new(o, "base", base_json(m, f, insn));
    json_object_set_new(o, "address_sources", sources_json(f->st->source[insn]));
    json_object_set_new(o, "affine", affine_json(r->affine, r->coef, r->ncoef, &f->info[insn]));
    json_object_set_new(o, "lane_stride", hist_json(&r->lane_stride, (int64_t)1 << 62));
    json_object_set_new(o, "footprint_lines", jint(r->footprint_lines));
    if (r->footprint_capped)
        json_object_set_new(o, "footprint_capped", json_true());
    json_object_set_new(o, "reuse_distance_log2", hist_json(&r->reuse_log2, 0));
    return o;
}

static json_t *function_json(const mb_profile *p, const func_prof *f)
{
    const mb_module *m = p->module;
    const mb_function *fn = f->fn;
    const mb_cfg *cfg = f->cfg;
    json_t *o = json_object();
    char name[64];
    json_object_set_new(o, "name", json_string(fn->name));
    json_object_set_new(o, "kind", json_string(fn->is_entry ? "kernel" : "function"));
    json_object_set_new(o, "calls", jint(f->calls));
    json_object_set_new(o, "instruction_mix", mix_json(f, 0, fn->ninsns));
    json_t *blocks = json_array();
    for (int b = 0; b < cfg->nblocks; b++) {
        const mb_block *blk = &cfg->blocks[b];
        const mb_block_profile *bp = &f->blocks[b];
        json_t *jb = json_object();
        json_object_set_new(jb, "id", jint((uint64_t)b));
        json_object_set_new(jb, "name", json_string(block_name(f, b, name, sizeof(name))));
        if (blk->ninsns) {
            json_object_set_new(jb, "first_line", jint((uint64_t)fn->insns[blk->first].line));
            json_object_set_new(jb, "last_line", jint((uint64_t)fn->insns[blk->first + blk->ninsns - 1].line));
        }
        json_object_set_new(jb, "ecount", jint(bp->ecount));
        json_object_set_new(jb, "lcount", jint(bp->lcount));
        json_object_set_new(jb, "scount", jint(bp->scount));
        json_object_set_new(jb, "threads", jint(bp->threads));
        json_object_set_new(jb, "warp_execs", jint(bp->warp_execs));
        json_object_set_new(jb, "entries", jint(bp->entries));
        json_object_set_new(jb, "exits", jint(bp->exits));
        int loop = cfg->loops.innermost[b];
        json_object_set_new(jb, "loop", loop >= 0 ? jint((uint64_t)loop) : json_null());
        mb_buf chain = MB_BUF_INIT;
        mb_profile_block_chain(fn, cfg, b, &chain);
        json_object_set_new(jb, "chain", json_string(chain.data ? chain.data : ""));
        mb_buf_free(&chain);
        json_object_set_new(jb, "instruction_mix", mix_json(f, blk->first, blk->first + blk->ninsns));
        json_object_set_new(jb, "dependence_distance", hist_json(&f->st->dep_dist[b], 0));
        const mb_buf *deps = &f->st->dep_chain[b];
        json_object_set_new(jb, "dependences", json_string(deps->data ? deps->data : ""));
        json_array_append_new(blocks, jb);
    }
    json_object_set_new(o, "blocks", blocks);
    json_t *edges = json_array();
    for (uint32_t e = 0; e < f->nedges; e++) {
        const mb_edge_profile *ep = &f->edges[e];
        json_t *je = json_object();
        json_object_set_new(je, "from", jint((uint64_t)ep->from));
        json_object_set_new(je, "to", jint((uint64_t)ep->to));
        json_object_set_new(je, "count", jint(ep->count));
        json_object_set_new(je, "threads", jint(ep->threads));
        json_object_set_new(je, "back", json_boolean(ep->back));
        json_array_append_new(edges, je);
    }
    json_object_set_new(o, "edges", edges);
    json_t *loops = json_array();
    for (int l = 0; l < cfg->loops.nloops; l++) {
        const mb_loop *loop = &cfg->loops.loops[l];
        const loop_stats *ls = &f->loops[l];
        json_t *jl = json_object();
        json_object_set_new(jl, "index", jint((uint64_t)l));
        json_object_set_new(jl, "kind", json_string(mb_loop_kind_name(loop->kind)));
        json_object_set_new(jl, "header", jint((uint64_t)loop->header));
        json_object_set_new(jl, "target_point", json_string(block_name(f, loop->header, name, sizeof(name))));
        json_t *jp = json_array();
        uint8_t src = 0;
        for (int k = 0; k < loop->nlatches; k++) {
            json_array_append_new(jp, json_string(block_name(f, loop->latches[k], name, sizeof(name))));
        }
        /* what decides the trip count: the conditions of the branches that leave the loop */
        for (int k = 0; k < loop->nexits; k++) {
            const mb_block *from = &cfg->blocks[loop->exits[k].from];
            if (from->ninsns) {
                uint32_t last = from->first + from->ninsns - 1;
                if (f->info[last].cond_branch)
                    src |= f->st->source[last];
            }
        }
        json_object_set_new(jl, "jump_points", jp);
        json_object_set_new(jl, "depth", jint((uint64_t)loop->depth));
        json_object_set_new(jl, "parent", loop->parent >= 0 ? jint((uint64_t)loop->parent) : json_null());
        json_t *jblocks = json_array();
        for (int k = 0; k < loop->nblocks; k++)
            json_array_append_new(jblocks, jint((uint64_t)loop->blocks[k]));
        json_object_set_new(jl, "blocks", jblocks);
        json_object_set_new(jl, "activations", jint(ls->activations));
        uint64_t sum = 0;
        for (uint32_t i = 0; i < ls->trips.n; i++)
            sum += ls->trips.value[i] * ls->trips.count[i];
        json_object_set_new(jl, "mean_trip_count",
                            json_real(ls->activations ? (double)sum / (double)ls->activations : 0.0));
        json_object_set_new(jl, "trip_counts", hist_json(&ls->trips, 0));
        json_object_set_new(jl, "warp_activations", jint(ls->warp_activations));
        json_object_set_new(jl, "warp_activations_with_differing_trips", jint(ls->warp_activations_mixed));
        json_object_set_new(jl, "trip_count_depends_on", sources_json(src & ~SRC_LOOP));
        json_array_append_new(loops, jl);
    }
    json_object_set_new(o, "loops", loops);
    json_t *branches = json_array(), *memory = json_array();
    for (uint32_t i = 0; i < fn->ninsns; i++) {
        const insn_info *ii = &f->info[i];
        if (ii->cond_branch && f->br[i].warp_execs) {
            const branch_stats *bs = &f->br[i];
            json_t *jb = json_object();
            json_object_set_new(jb, "insn", jint(i));
            json_object_set_new(jb, "line", jint((uint64_t)fn->insns[i].line));
            json_object_set_new(jb, "block", jint((uint64_t)ii->block));
            json_object_set_new(jb, "warp_execs", jint(bs->warp_execs));
            json_object_set_new(jb, "taken_threads", jint(bs->taken));
            json_object_set_new(jb, "not_taken_threads", jint(bs->not_taken));
            json_object_set_new(jb, "diverged_warp_execs", jint(bs->diverged));
            json_object_set_new(jb, "divergence_fraction",
                                json_real((double)bs->diverged / (double)bs->warp_execs));
            json_object_set_new(jb, "condition", json_string(condition_kind(f->st->source[i])));
            json_object_set_new(jb, "condition_sources", sources_json(f->st->source[i]));
            if (f->cond_of[i] >= 0)
                json_object_set_new(jb, "condition_model", cond_json(f, &f->conds[f->cond_of[i]]));
            json_array_append_new(branches, jb);
        }
        if (f->mems[i])
            json_array_append_new(memory, memory_json(m, f, i));
    }
    json_object_set_new(o, "branches", branches);
    json_object_set_new(o, "memory", memory);
    return o;
}

static json_t *params_json(const mb_profile *p)
{
    const mb_function *k = p->cfg->kernel;
    json_t *a = json_array();
    mb_param_slot *slots = calloc((size_t)k->nparams + 1, sizeof(mb_param_slot));
    uint32_t total = 0;
    if (!slots || mb_kernel_param_layout(k, slots, &total, NULL) != MB_OK) {
        free(slots);
        return a;
    }
    for (uint32_t i = 0; i < k->nparams; i++) {
        const mb_param *prm = &k->params[i];
        json_t *jp = json_object();
        json_object_set_new(jp, "name", json_string(prm->name));
        json_object_set_new(jp, "type", json_string(mb_type_name(prm->type)));
        json_object_set_new(jp, "bytes", jint(slots[i].size));
        if (slots[i].size == 8 && !prm->ndims && slots[i].offset + 8 <= p->cfg->param_bytes) {
            uint64_t v;
            memcpy(&v, (const uint8_t *)p->cfg->params + slots[i].offset, 8);
            uint64_t size;
            const char *name;
            uint64_t base = mb_memory_allocation(p->mem, v, &size, &name);
            if (base) {
                json_t *ptr = json_object();
                json_object_set_new(ptr, "buffer", json_string(name));
                json_object_set_new(ptr, "buffer_bytes", jint(size));
                json_object_set_new(ptr, "offset", jint(v - base));
                json_object_set_new(jp, "pointer", ptr);
            } else {
                json_object_set_new(jp, "value", json_integer((json_int_t)v));
            }
        } else if (!prm->ndims && slots[i].size <= 8 && slots[i].offset + slots[i].size <= p->cfg->param_bytes) {
            uint64_t v = 0;
            memcpy(&v, (const uint8_t *)p->cfg->params + slots[i].offset, slots[i].size);
            json_object_set_new(jp, "value", json_integer((json_int_t)v));
        }
        json_array_append_new(a, jp);
    }
    free(slots);
    return a;
}

mb_status mb_profile_write_json(const mb_profile *p, mb_buf *out, mb_error *err)
{
    if (!p->finished)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "the profile must be finished before it is written");
    const mb_function *k = p->cfg->kernel;
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string("minibench-profile-1"));
    json_object_set_new(root, "kernel", json_string(k->name));
    json_object_set_new(root, "ptx", json_string(p->module->filename));
    json_t *launch = json_object();
    json_object_set_new(launch, "grid", dim3_json(p->cfg->grid));
    json_object_set_new(launch, "block", dim3_json(p->cfg->block));
    json_object_set_new(launch, "dynamic_shared", jint(p->cfg->dynamic_shared));
    json_object_set_new(launch, "ctas", jint(p->stats.ctas));
    json_object_set_new(launch, "warps", jint(p->stats.warps));
    json_object_set_new(launch, "threads", jint(p->stats.threads));
    json_object_set_new(launch, "warp_insts", jint(p->stats.warp_insts));
    json_object_set_new(launch, "thread_insts", jint(p->stats.thread_insts));
    json_object_set_new(root, "launch", launch);
    mb_resources res;
    if (mb_function_resources(p->module, k, &res, err) != MB_OK) {
        json_decref(root);
        return err->status;
    }
    json_t *jr = json_object();
    json_object_set_new(jr, "registers", jint(res.nregs));
    json_object_set_new(jr, "shared_bytes_static", jint(res.shared_bytes));
    json_object_set_new(jr, "shared_bytes_dynamic", jint(p->cfg->dynamic_shared));
    json_object_set_new(jr, "local_bytes_per_thread", jint(res.local_bytes));
    json_object_set_new(jr, "const_bytes", jint(res.const_bytes));
    json_object_set_new(jr, "param_bytes", jint(res.param_bytes));
    json_object_set_new(root, "resources", jr);
    json_object_set_new(root, "parameters", params_json(p));
    json_t *globals = json_array();
    for (uint32_t i = 0; i < p->module->nvars; i++) {
        const mb_var *v = &p->module->vars[i];
        json_t *jv = json_object();
        json_object_set_new(jv, "name", json_string(v->name));
        json_object_set_new(jv, "space", json_string(mb_space_name(v->space) + 1));
        json_object_set_new(jv, "type", json_string(mb_type_name(v->type)));
        json_object_set_new(jv, "bytes", jint(v->size));
        json_object_set_new(jv, "elements", jint(v->ndims ? v->nelems : 1));
        json_array_append_new(globals, jv);
    }
    json_object_set_new(root, "module_variables", globals);
    json_t *funcs = json_array();
    for (uint32_t i = 0; i < p->nfuncs; i++)
        if (i == 0 || p->funcs[i].used)
            json_array_append_new(funcs, function_json(p, &p->funcs[i]));
    json_object_set_new(root, "functions", funcs);
    char *text = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(root);
    if (!text)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory writing the profile");
    mb_buf_puts(out, text);
    mb_buf_putc(out, '\n');
    free(text);
    return out->failed ? mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory") : MB_OK;
}
