/* Filler instructions: each of the original's chain slots that the model
 * does not need keeps its opcode and types, with a synthetic dataflow that
 * reads the producers the profile recorded for the instruction (distances in
 * its block), so that the block's dependence graph is the original's. */
#include "clone_ctx.h"

#include <stdlib.h>
#include <ctype.h>
#include <string.h>

/* Splits "add.s32" into opcode "add" and up to three types. */
typedef struct token_parts {
    char opcode[32];
    char type[3][8];
    int ntypes;
} token_parts;

static void split_token(const char *tok, token_parts *t)
{
    memset(t, 0, sizeof(*t));
    const char *dot = strchr(tok, '.');
    size_t n = dot ? (size_t)(dot - tok) : strlen(tok);
    if (n >= sizeof t->opcode)
        n = sizeof t->opcode - 1;
    memcpy(t->opcode, tok, n);
    while (dot && t->ntypes < 3) {
        const char *q = dot + 1;
        dot = strchr(q, '.');
        size_t m = dot ? (size_t)(dot - q) : strlen(q);
        if (m >= sizeof t->type[0])
            m = sizeof t->type[0] - 1;
        memcpy(t->type[t->ntypes], q, m);
        t->ntypes++;
    }
}

static int is_float(const char *t)
{
    return t[0] == 'f';
}

static int is_signed_or_unsigned(const char *t)
{
    return t[0] == 's' || t[0] == 'u';
}

static int type_bits(const char *t)
{
    return atoi(t + 1);
}

static const char *const pool[MB_REG_CLASSES] = {"%p_in", "%rs_in", "%r_in", "%rd_in", "%f_in", "%fd_in"};

/* The class of the register a filler of `token` writes (-1: none). */
static int filler_class(const char *token)
{
    token_parts t;
    split_token(token, &t);
    if (!t.ntypes || !strcmp(t.opcode, "st") || !strcmp(t.opcode, "red") || !strcmp(t.opcode, "bar"))
        return -1;
    if (!strcmp(t.opcode, "setp"))
        return MB_REG_PRED;
    if (!strcmp(t.opcode, "popc") || !strcmp(t.opcode, "clz"))
        return MB_REG_B32;
    return cx_class_of_type(t.type[0]);
}

/* Whether loop l runs more than once for some thread of the clone. */
static int loop_repeats(const ctx *c, int l)
{
    const mb_clone_loop *cl = &c->m->loops[l];
    if (cl->span || cl->cycle || cl->stairs || cl->outer >= 0)
        return 1;
    for (size_t j = 0; j < cl->ntrips; j++)
        if (cl->trip[j] > 1)
            return 1;
    return 0;
}

/* Whether register `reg` appears in any slot but `skip_a` and `skip_b`
 * (as an operand or a destination, in the slot or in what was inserted
 * before it). */
static int reg_mentioned(const ctx *c, const char *reg, const slot *skip_a, const slot *skip_b)
{
    const size_t len = strlen(reg);
    for (size_t k = 0; k < c->nb; k++)
        for (size_t i = 0; i <= c->b[k].nslots; i++) {
            const slot *s = &c->b[k].slots[i];
            if (s == skip_a || s == skip_b)
                continue;
            const char *texts[3] = {s->operands, s->val_before, s->guard};
            for (int t = 0; t < 3; t++)
                for (const char *p = texts[t]; p && (p = strstr(p, reg)); p += len)
                    if (!isalnum((unsigned char)p[len]) && p[len] != '_')
                        return 1;
            for (size_t n = 0; n < s->nins; n++)
                for (const char *p = s->ins[n].operands; p && (p = strstr(p, reg)); p += len)
                    if (!isalnum((unsigned char)p[len]) && p[len] != '_')
                        return 1;
        }
    return 0;
}

/* The original's register read after a branch had two definitions, one
 * before the branch and a load on it (`x = 0; if (in) x = a[i]; s[t] = x`):
 * both wrote one register, so the reader waits for the load on the threads
 * that made it. The clone's load writes the register chosen for the reader
 * where neither register is seen by any other instruction. */
static void join_loads(ctx *c, const mb_sprof_block *sb, uint32_t g, const char *chosen, int cls)
{
    const slot *def = NULL;
    for (uint32_t k = sb->in_reg[g]; k < sb->in_reg[g + 1]; k++) {
        const slot *ps = &c->b[sb->in_def[k].block].slots[sb->in_def[k].index];
        if (ps->dest && !strcmp(ps->dest, chosen))
            def = ps;
    }
    for (uint32_t k = sb->in_reg[g]; k < sb->in_reg[g + 1]; k++) {
        slot *ld = &c->b[sb->in_def[k].block].slots[sb->in_def[k].index];
        const size_t len = ld->dest ? strlen(ld->dest) : 0;
        if (ld->role != SLOT_MEM || !ld->dest || ld->dest_class != cls || strncmp(ld->op, "ld.", 3) ||
            !strcmp(ld->dest, chosen) || strncmp(ld->operands, ld->dest, len) || ld->operands[len] != ',')
            continue;
        if (reg_mentioned(c, ld->dest, ld, NULL) || reg_mentioned(c, chosen, ld, def))
            continue;
        const char *ops = cx_fmt(c, "%s%s", chosen, ld->operands + len);
        if (!ops)
            continue; /* out of memory: the load keeps its own register */
        ld->operands = ops;
        ld->dest = chosen;
    }
}

/* A producer outside the block for the next unused register of slot i read
 * from outside it (the profile's "dependences_in"): a value made before a
 * branch or a loop and read after it (a load used in a loop) must be waited
 * for as in the original. Of a register's reaching definitions, one in the
 * same loop (carried from the previous iteration) comes first when the
 * clone's loop repeats, else one in a dominating block. */
static const char *outside_source(ctx *c, int block, size_t i, int cls)
{
    const mb_sprof_block *sb = &c->f->blocks[block];
    if (!sb->in_start)
        return NULL;
    int l = cx_block_loop(c, block);
    int carried = l >= 0 && loop_repeats(c, l);
    for (uint32_t g = sb->in_start[i]; g < sb->in_start[i + 1] && g - sb->in_start[i] < 32; g++) {
        const uint32_t bit = 1u << (g - sb->in_start[i]);
        if (c->dep_in_used & bit)
            continue;
        const char *best = NULL;
        int best_rank = 0, best_block = -1, pending = 0;
        for (uint32_t k = sb->in_reg[g]; k < sb->in_reg[g + 1]; k++) {
            int db = (int)sb->in_def[k].block;
            const slot *ps = &c->b[db].slots[sb->in_def[k].index];
            if (ps->role == SLOT_FILLER) {
                /* not made yet: cx_refill makes this one again once it is */
                pending |= filler_class(ps->token) == cls;
                continue;
            }
            if (!ps->dest || ps->dest_class != cls)
                continue;
            int in_same_loop = l >= 0 && c->in_loop[l][db];
            int rank = carried && in_same_loop ? 3 : cx_dominates(c, db, block) && db != block ? 2 : 1;
            /* of two dominating definitions, the nearer one is the value that
             * arrives (a loop's result after the loop, not its start value) */
            if (rank > best_rank ||
                (rank == 2 && best_rank == 2 && db != best_block && cx_dominates(c, best_block, db))) {
                best = ps->dest;
                best_rank = rank;
                best_block = db;
            }
        }
        if (pending && best_rank < 3)
            c->dep_pending = 1;
        if (best) {
            c->dep_in_used |= bit;
            if (c->join_loads)
                join_loads(c, sb, g, best, cls);
            return best;
        }
    }
    return NULL;
}

/* With the profile's per-instruction producers: the next unused producer of
 * slot i whose register has class `cls`, else a register no instruction
 * writes (the original read one from outside the block, or nothing). */
static const char *recorded_source(ctx *c, int block, size_t i, int cls)
{
    blk *b = &c->b[block];
    const mb_sprof_block *sb = &c->f->blocks[block];
    if (c->dep_block != block || c->dep_slot != i) {
        c->dep_block = block;
        c->dep_slot = i;
        c->dep_used = 0;
        c->dep_in_used = 0;
    }
    for (uint32_t k = sb->dep_start[i]; k < sb->dep_start[i + 1] && k - sb->dep_start[i] < 32; k++) {
        const uint32_t bit = 1u << (k - sb->dep_start[i]);
        const size_t d = sb->dep[k];
        if (!(c->dep_used & bit) && d <= i && b->slots[i - d].dest_class == cls && b->slots[i - d].dest) {
            c->dep_used |= bit;
            return b->slots[i - d].dest;
        }
    }
    const char *r = outside_source(c, block, i, cls);
    return r ? r : pool[cls];
}

/* A register of class `cls` for slot i: the producers the profile recorded
 * for the instruction, or (older profiles) one written `d` instructions
 * before slot i, d drawn from the block's histogram, else the nearest earlier
 * one, else the class's pool register. */
static const char *source(ctx *c, int block, size_t i, int cls)
{
    if (c->f->blocks[block].dep_start)
        return recorded_source(c, block, i, cls);
    blk *b = &c->b[block];
    const mb_hist *h = &c->f->blocks[block].dep_distance;
    uint64_t total = mb_hist_total(h);
    size_t d = 1;
    if (total) {
        uint64_t r = cx_rand(c) % total;
        for (size_t k = 0; k < h->n; k++) {
            if (r < h->count[k]) {
                d = h->key[k] > 0 ? (size_t)h->key[k] : 1;
                break;
            }
            r -= h->count[k];
        }
    }
    if (d <= i && b->slots[i - d].dest_class == cls && b->slots[i - d].dest)
        return b->slots[i - d].dest;
    for (size_t k = i; k-- > 0;)
        if (b->slots[k].dest_class == cls && b->slots[k].dest)
            return b->slots[k].dest;
    return pool[cls];
}

static mb_status set(ctx *c, slot *s, const char *op, const char *operands, int dest_class,
                     const char *dest)
{
    s->op = op;
    s->operands = operands;
    s->dest_class = dest_class;
    s->dest = dest;
    s->role = SLOT_ASSIGNED;
    return op && operands ? MB_OK : cx_nomem(c);
}

int cx_address_dep(const ctx *c, int block, size_t i, uint32_t nvals)
{
    const mb_sprof_block *sb = &c->f->blocks[block];
    const blk *b = &c->b[block];
    if (!sb->dep_start)
        return -1;
    /* registers are listed in operand order: the guard, the address, the
     * values; a producer of a predicate is the guard's */
    int first = -1;
    uint32_t n = 0;
    for (uint32_t q = sb->dep_start[i]; q < sb->dep_start[i + 1]; q++) {
        const size_t d = sb->dep[q];
        if (d == 0 || d > i || b->slots[i - d].dest_class == MB_REG_PRED)
            continue;
        if (first < 0)
            first = (int)(q - sb->dep_start[i]);
        n++;
    }
    /* more producers in the block than values: the first is the address's */
    return n > nvals ? first : -1;
}

void cx_skip_address_producer(ctx *c, int block, size_t i, uint32_t nvals)
{
    if (!c->f->blocks[block].dep_start)
        return;
    c->dep_block = block;
    c->dep_slot = i;
    c->dep_used = 0;
    c->dep_in_used = 0;
    const int q = cx_address_dep(c, block, i, nvals);
    if (q >= 0 && q < 32)
        c->dep_used = UINT32_C(1) << q;
}

const char *cx_producer(ctx *c, int block, size_t i, int cls)
{
    if (!c->f->blocks[block].dep_start)
        return NULL;
    const char *r = recorded_source(c, block, i, cls);
    return r == pool[cls] ? NULL : r;
}

const char *cx_value_producer(ctx *c, int block, size_t i, int cls)
{
    c->join_loads = 1;
    const char *r = cx_producer(c, block, i, cls);
    c->join_loads = 0;
    return r;
}

int cx_read_as(const ctx *c, int block, size_t i, int cls)
{
    const mb_sprof_block *sb = &c->f->blocks[block];
    const blk *b = &c->b[block];
    if (!sb->dep_start)
        return 0;
    for (size_t j = i + 1; j < b->nslots && j < sb->nchain; j++) {
        token_parts t;
        split_token(b->slots[j].token, &t);
        /* a memory instruction's operand may be its address or its value */
        if (!t.ntypes || !strcmp(t.opcode, "ld") || !strcmp(t.opcode, "st") ||
            !strcmp(t.opcode, "atom") || !strcmp(t.opcode, "red"))
            continue;
        int read = cx_class_of_type(!strcmp(t.opcode, "cvt") && t.ntypes == 2 ? t.type[1] : t.type[0]);
        for (uint32_t k = sb->dep_start[j]; k < sb->dep_start[j + 1]; k++)
            if (j - sb->dep[k] == i && read == cls)
                return 1;
    }
    return 0;
}

/* A register of class `cls` for the filler's result: when a filler is made
 * again (cx_refill), the one it wrote before, which later slots may read. */
static const char *dest_reg(ctx *c, const slot *s, int cls)
{
    return c->refill && s->dest && s->dest_class == cls ? s->dest : cx_reg(c, cls);
}

mb_status cx_filler(ctx *c, int block, size_t i, const char *token, slot *s)
{
    token_parts t;
    split_token(token, &t);
    const char *op = t.opcode, *ty = t.ntypes ? t.type[0] : "";
    int cls = t.ntypes ? cx_class_of_type(ty) : -1;
#define SRC(k) source(c, block, i, (k))
    if (s->role == SLOT_PARAM && cls >= 0)
        return cx_call_form(c, s, ty, cls, !strcmp(op, "st") ? SRC(cls) : NULL);
    if (!strcmp(op, "bar"))
        return set(c, s, "bar.sync", "0", -1, NULL);
    if (!strcmp(op, "membar") || !strcmp(op, "fence"))
        return set(c, s, "membar.gl", "", -1, NULL);
    if (!strcmp(op, "ld") && t.ntypes == 1) {
        /* a parameter load: the first parameter of the same size */
        int bits = type_bits(ty) ? type_bits(ty) : 32;
        const mb_sprof_param *pp = NULL;
        for (size_t q = 0; q < c->p->nparams && !pp; q++)
            if (c->p->params[q].bytes * 8 == (uint32_t)bits)
                pp = &c->p->params[q];
        if (!pp && c->p->nparams)
            pp = &c->p->params[0];
        if (!pp || cls < 0)
            goto unsupported;
        const char *d = dest_reg(c, s, cls);
        return set(c, s, cx_fmt(c, "ld.param.%s", ty), cx_fmt(c, "%s, [%s]", d, pp->name), cls, d);
    }
    if (t.ntypes == 0 || cls < 0)
        goto unsupported;
    if ((!strcmp(op, "st") || !strcmp(op, "atom") || !strcmp(op, "red")) && t.ntypes == 1) {
        /* an access no thread executed has no memory record: any address */
        if (!strcmp(op, "st"))
            return set(c, s, cx_fmt(c, "st.global.%s", ty), cx_fmt(c, "[%%rd_in], %s", SRC(cls)), -1,
                       NULL);
        const char *d = dest_reg(c, s, cls);
        return set(c, s, cx_fmt(c, "atom.global.%s.%s", ty[0] == 'b' ? "exch" : "add", ty),
                   cx_fmt(c, "%s, [%%rd_in], %s", d, SRC(cls)), cls, d);
    }
    if (!strcmp(op, "setp")) {
        const char *p = dest_reg(c, s, MB_REG_PRED);
        return set(c, s, cx_fmt(c, "setp.%s.%s", is_float(ty) ? "lt" : "ne", ty),
                   cx_fmt(c, "%s, %s, %s", p, SRC(cls), SRC(cls)), MB_REG_PRED, p);
    }
    int dcls = cls;
    if (!strcmp(op, "popc") || !strcmp(op, "clz"))
        dcls = MB_REG_B32;
    const char *d = dest_reg(c, s, dcls);
    if (!strcmp(op, "selp"))
        return set(c, s, cx_fmt(c, "selp.%s", ty),
                   cx_fmt(c, "%s, %s, %s, %s", d, SRC(cls), SRC(cls), SRC(MB_REG_PRED)), cls, d);
    if (cls == MB_REG_PRED) {
        if (!strcmp(op, "not"))
            return set(c, s, "not.pred", cx_fmt(c, "%s, %s", d, SRC(MB_REG_PRED)), cls, d);
        if (!strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "xor"))
            return set(c, s, cx_fmt(c, "%s.pred", op),
                       cx_fmt(c, "%s, %s, %s", d, SRC(MB_REG_PRED), SRC(MB_REG_PRED)), cls, d);
        if (!strcmp(op, "vote"))
            return set(c, s, "vote.sync.any.pred", cx_fmt(c, "%s, %s, -1", d, SRC(MB_REG_PRED)),
                       cls, d);
        if (!strcmp(op, "mov"))
            return set(c, s, "mov.pred", cx_fmt(c, "%s, %s", d, SRC(MB_REG_PRED)), cls, d);
        goto unsupported;
    }
    if (!strcmp(op, "cvt") && t.ntypes == 2) {
        int scls = cx_class_of_type(t.type[1]);
        if (scls < 0)
            goto unsupported;
        const char *rnd = "";
        if (is_float(ty) && !is_float(t.type[1]))
            rnd = ".rn";
        else if (!is_float(ty) && is_float(t.type[1]))
            rnd = ".rzi";
        else if (is_float(ty) && is_float(t.type[1]))
            rnd = type_bits(ty) < type_bits(t.type[1]) ? ".rn" : type_bits(ty) == type_bits(t.type[1]) ? ".rzi" : "";
        return set(c, s, cx_fmt(c, "cvt%s.%s.%s", rnd, ty, t.type[1]),
                   cx_fmt(c, "%s, %s", d, SRC(scls)), cls, d);
    }
    if (!strcmp(op, "cvta"))
        return set(c, s, cx_fmt(c, "cvta.to.global.%s", ty), cx_fmt(c, "%s, %s", d, SRC(cls)), cls, d);
    if (!strcmp(op, "mov"))
        return set(c, s, cx_fmt(c, "mov.%s", ty), cx_fmt(c, "%s, %s", d, SRC(cls)), cls, d);
    if (!strcmp(op, "shfl"))
        return set(c, s, "shfl.sync.bfly.b32", cx_fmt(c, "%s, %s, 1, 31, -1", d, SRC(cls)), cls, d);
    if (!strcmp(op, "vote"))
        return set(c, s, "vote.sync.ballot.b32", cx_fmt(c, "%s, %s, -1", d, SRC(MB_REG_PRED)), cls, d);
    if (!strcmp(op, "popc") || !strcmp(op, "clz") || !strcmp(op, "brev") || !strcmp(op, "not") ||
        !strcmp(op, "cnot")) {
        return set(c, s, cx_fmt(c, "%s.%s", op, ty), cx_fmt(c, "%s, %s", d, SRC(cls)), dcls, d);
    }
    if (!strcmp(op, "neg") || !strcmp(op, "abs"))
        return set(c, s, cx_fmt(c, "%s.%s", op, ty), cx_fmt(c, "%s, %s", d, SRC(cls)), cls, d);
    if (!strcmp(op, "sqrt") || !strcmp(op, "rcp"))
        return set(c, s, cx_fmt(c, "%s.%s.%s", op, is_float(ty) && type_bits(ty) == 32 && !strcmp(op, "sqrt") ? "rn" : "rn", ty),
                   cx_fmt(c, "%s, %s", d, SRC(cls)), cls, d);
    if (!strcmp(op, "ex2") || !strcmp(op, "lg2") || !strcmp(op, "sin") || !strcmp(op, "cos") ||
        !strcmp(op, "rsqrt") || !strcmp(op, "tanh"))
        return set(c, s, cx_fmt(c, "%s.approx.%s", op, ty), cx_fmt(c, "%s, %s", d, SRC(cls)), cls, d);
    if (!strcmp(op, "shl") || !strcmp(op, "shr"))
        return set(c, s, cx_fmt(c, "%s.%s", op, ty), cx_fmt(c, "%s, %s, 1", d, SRC(cls)), cls, d);
    if (!strcmp(op, "div") || !strcmp(op, "rem")) {
        if (is_float(ty))
            return set(c, s, cx_fmt(c, "div.rn.%s", ty),
                       cx_fmt(c, "%s, %s, %s", d, SRC(cls), SRC(cls)), cls, d);
        /* an immediate divisor: a register could be zero and fault */
        return set(c, s, cx_fmt(c, "%s.%s", op, ty), cx_fmt(c, "%s, %s, 3", d, SRC(cls)), cls, d);
    }
    /* the chain keeps no `.wide`: a product the block reads at twice the
     * width is one (mul.wide.u16 of a loaded byte added to a 32-bit index,
     * mul.wide.s32 of an index added to a 64-bit address) */
    if (!strcmp(op, "mul") && !is_float(ty) && (cls == MB_REG_B16 || cls == MB_REG_B32) &&
        !cx_read_as(c, block, i, cls) && cx_read_as(c, block, i, cls + 1)) {
        const char *w = dest_reg(c, s, cls + 1);
        return set(c, s, cx_fmt(c, "mul.wide.%s", ty), cx_fmt(c, "%s, %s, %s", w, SRC(cls), SRC(cls)),
                   cls + 1, w);
    }
    if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "min") || !strcmp(op, "max") ||
        !strcmp(op, "and") || !strcmp(op, "or") || !strcmp(op, "xor") || !strcmp(op, "mul")) {
        const char *mod = !strcmp(op, "mul") && !is_float(ty) ? ".lo" : "";
        return set(c, s, cx_fmt(c, "%s%s.%s", op, mod, ty),
                   cx_fmt(c, "%s, %s, %s", d, SRC(cls), SRC(cls)), cls, d);
    }
    if (!strcmp(op, "mad") || !strcmp(op, "fma")) {
        const char *mod = is_float(ty) ? ".rn" : ".lo";
        return set(c, s, cx_fmt(c, "%s%s.%s", is_float(ty) ? "fma" : "mad", mod, ty),
                   cx_fmt(c, "%s, %s, %s, %s", d, SRC(cls), SRC(cls), SRC(cls)), cls, d);
    }
    if (!strcmp(op, "copysign") && is_float(ty))
        return set(c, s, cx_fmt(c, "copysign.%s", ty),
                   cx_fmt(c, "%s, %s, %s", d, SRC(cls), SRC(cls)), cls, d);
    if (!strcmp(op, "bfe") && is_signed_or_unsigned(ty))
        return set(c, s, cx_fmt(c, "bfe.%s", ty), cx_fmt(c, "%s, %s, 1, 2", d, SRC(cls)), cls, d);
#undef SRC
unsupported:
    return mb_error_set(c->err, MB_ERR_UNSUPPORTED, "", 0, 0,
                        "kernel %s, block %d (%s): instruction %zu '%s' has no clone form",
                        c->p->kernel, block, c->f->blocks[block].name, i, token);
}

mb_status cx_refill(ctx *c, const int *blocks, const size_t *slots, size_t n)
{
    mb_status st = MB_OK;
    c->refill = 1;
    for (size_t j = 0; j < n && st == MB_OK; j++) {
        slot *s = &c->b[blocks[j]].slots[slots[j]];
        c->dep_block = -1;
        st = cx_filler(c, blocks[j], slots[j], s->token, s);
    }
    c->refill = 0;
    c->dep_block = -1;
    return st;
}
