/* Values the model computes twice in a block, made once.
 *
 * The model's generators (per-thread keys, address bases, compared values,
 * sector spreads) each make what they need; two of them often need the same
 * value (a thread's negated index, a coordinate times a stride) and both
 * compute it. Where a block has no filler left for the second, it is an
 * instruction the original did not run. This pass numbers the values of
 * each block in emission order: an inserted instruction that stood for no
 * filler and repeats an earlier pure computation of its block (same opcode,
 * the same sources, none written in between, both results written nowhere
 * else) is dropped, and its register is read as the earlier one's
 * everywhere. Register names are compared as whole tokens. */
#include "clone_ctx.h"

#include <stdlib.h>
#include <string.h>

typedef struct reg_count {
    const char *name;
    size_t len;
    int writes;
} reg_count;

typedef struct share_ctx {
    ctx *c;
    reg_count *regs;
    size_t nregs, cap;
    const char **from, **to; /* aliases: from's readers read to */
    size_t nalias, fcap, tcap;
    mb_status st;
} share_ctx;

/* The next register token at or after p ('%' and name characters); NULL
 * when none. */
static const char *next_reg(const char *p, size_t *len)
{
    for (; (p = strchr(p, '%')) != NULL; p++) {
        size_t n = 1;
        while ((p[n] >= 'a' && p[n] <= 'z') || (p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9') ||
               p[n] == '_')
            n++;
        if (n > 1) {
            *len = n;
            return p;
        }
    }
    return NULL;
}

/* The end of the first operand (trimmed) and where the rest begins, after
 * its comma. */
static size_t first_operand(const char *ops, const char **rest)
{
    size_t len;
    const char *p = cx_operand(ops, 0, &len);
    const size_t end = (size_t)(p - ops) + len;
    *rest = ops + end + strspn(ops + end, " ");
    *rest += **rest == ',';
    return end;
}

static reg_count *reg_lookup(share_ctx *s, const char *name, size_t len)
{
    for (size_t i = 0; i < s->nregs; i++)
        if (s->regs[i].len == len && !strncmp(s->regs[i].name, name, len))
            return &s->regs[i];
    return NULL;
}

static reg_count *reg_find(share_ctx *s, const char *name, size_t len)
{
    reg_count *found = reg_lookup(s, name, len);
    if (found)
        return found;
    if (MB_GROW(s->regs, s->cap, s->nregs + 1) != MB_OK) {
        s->st = cx_nomem(s->c);
        return NULL;
    }
    reg_count *r = &s->regs[s->nregs++];
    r->name = name;
    r->len = len;
    r->writes = 0;
    return r;
}

/* Counts as written every register named in an instruction's first
 * operand: more than it writes (a store's address), never fewer. */
static void count_writes(share_ctx *s, const char *operands)
{
    if (!operands)
        return;
    const char *rest;
    const size_t n = first_operand(operands, &rest);
    size_t len;
    for (const char *p = operands; (p = next_reg(p, &len)) != NULL && p < operands + n; p += len) {
        reg_count *r = reg_find(s, p, len);
        if (r)
            r->writes++;
    }
}

static int writes_of(share_ctx *s, const char *name, size_t len)
{
    const reg_count *r = reg_lookup(s, name, len);
    return r ? r->writes : 0;
}

/* Whether `text` names register `reg` (len characters) as a whole token. */
static int names_reg(const char *text, const char *reg, size_t len)
{
    size_t n;
    for (const char *p = text; (p = next_reg(p, &n)) != NULL; p += n)
        if (n == len && !strncmp(p, reg, len))
            return 1;
    return 0;
}

/* `text` with every aliased register replaced (the same string when none is). */
static const char *apply_aliases(share_ctx *s, const char *text)
{
    if (!text || !s->nalias)
        return text;
    size_t cap = strlen(text) * 2 + 64, used = 0;
    char *out = malloc(cap);
    if (!out) {
        s->st = cx_nomem(s->c);
        return text;
    }
    int changed = 0;
    const char *p = text, *q;
    size_t len;
    while ((q = next_reg(p, &len)) != NULL) {
        const char *rep = NULL;
        for (size_t i = 0; i < s->nalias && !rep; i++)
            if (strlen(s->from[i]) == len && !strncmp(s->from[i], q, len))
                rep = s->to[i];
        size_t pre = (size_t)(q - p), add = rep ? strlen(rep) : len;
        if (used + pre + add + 1 > cap) {
            cap = (used + pre + add + 1) * 2;
            char *grown = realloc(out, cap);
            if (!grown) {
                free(out);
                s->st = cx_nomem(s->c);
                return text;
            }
            out = grown;
        }
        memcpy(out + used, p, pre);
        used += pre;
        memcpy(out + used, rep ? rep : q, add);
        used += add;
        changed |= rep != NULL;
        p = q + len;
    }
    if (!changed) {
        free(out);
        return text;
    }
    size_t rest = strlen(p);
    char *res = mb_arena_alloc(s->c->A, used + rest + 1);
    if (!res) {
        free(out);
        s->st = cx_nomem(s->c);
        return text;
    }
    memcpy(res, out, used);
    memcpy(res + used, p, rest + 1);
    free(out);
    return res;
}

/* Whether an instruction is a pure computation of one register: an ALU
 * operation or a conversion, unguarded, without carry, memory operands,
 * vectors or clocks. */
static int pure_value(const char *guard, const char *op, const char *operands)
{
    if ((guard && *guard) || !op || !operands || operands[0] != '%')
        return 0;
    const int code = mb_opcode_lookup(op, strcspn(op, "."));
    if (code < 0)
        return 0;
    const mb_op_class cls = mb_opcode_get((mb_opcode)code)->cls;
    if ((cls != MB_CLASS_ALU && cls != MB_CLASS_CONV) || strstr(op, ".cc") || !strncmp(op, "addc", 4) ||
        !strncmp(op, "subc", 4) || !strncmp(op, "madc", 4))
        return 0;
    return !strpbrk(operands, "{[(|") && !strstr(operands, "%clock") && !strstr(operands, "%globaltimer");
}

typedef struct avail {
    const char *op, *rest; /* rest: the operands after the destination, aliases applied */
    const char *dest;
    size_t dlen;
} avail;

/* One block: drops the uncovered inserted instructions that repeat an
 * available value, recording their aliases. */
static void share_block(share_ctx *s, blk *b)
{
    avail *av = NULL;
    size_t nav = 0, cap = 0;
    for (size_t i = 0; i <= b->nslots && s->st == MB_OK; i++) {
        slot *sl = &b->slots[i];
        for (size_t j = 0; j <= sl->nins && s->st == MB_OK; j++) {
            const char *guard, *op, *ops;
            need *n = NULL;
            if (j < sl->nins) {
                n = &sl->ins[j];
                guard = NULL;
                op = n->op;
                ops = n->operands;
            } else {
                if (i == b->nslots || sl->role == SLOT_DROPPED || !sl->op)
                    break;
                guard = sl->guard;
                op = sl->op;
                ops = sl->operands;
            }
            if (!op || !ops)
                continue;
            const char *rest;
            const size_t dl = first_operand(ops, &rest);
            const int pure = pure_value(guard, op, ops) && writes_of(s, ops, dl) == 1;
            const char *key = pure ? apply_aliases(s, rest) : NULL;
            if (pure && n && n->uncovered) {
                size_t a = 0;
                while (a < nav && (strcmp(av[a].op, op) || strcmp(av[a].rest, key)))
                    a++;
                if (a < nav) {
                    if (MB_GROW(s->from, s->fcap, s->nalias + 1) != MB_OK ||
                        MB_GROW(s->to, s->tcap, s->nalias + 1) != MB_OK) {
                        s->st = cx_nomem(s->c);
                        break;
                    }
                    s->from[s->nalias] = mb_arena_strndup(s->c->A, ops, dl);
                    s->to[s->nalias++] = mb_arena_strndup(s->c->A, av[a].dest, av[a].dlen);
                    n->op = NULL;
                    s->c->m->synthetic_insns--;
                    continue;
                }
            }
            /* what it writes invalidates the values that read or hold it */
            size_t len;
            for (const char *p = ops; (p = next_reg(p, &len)) != NULL && p < ops + dl; p += len)
                for (size_t a = 0; a < nav;)
                    if ((av[a].dlen == len && !strncmp(av[a].dest, p, len)) || names_reg(av[a].rest, p, len))
                        av[a] = av[--nav];
                    else
                        a++;
            if (pure && key) {
                if (MB_GROW(av, cap, nav + 1) != MB_OK) {
                    s->st = cx_nomem(s->c);
                    break;
                }
                av[nav].op = op;
                av[nav].rest = key;
                av[nav].dest = ops;
                av[nav++].dlen = dl;
            }
        }
    }
    free(av);
}

typedef struct shift_def {
    int block;
    size_t order;          /* in the block's emission order */
    const char *dest, *src;
    size_t dlen, slen;
    int k;
} shift_def;

/* An inserted `mad.lo.s32 d, a, 2^k, b` where a `shl.b32 t, a, k` already
 * made earlier in its block or in a dominating one (t and a written once)
 * becomes `add.s32 d, t, b`: the original's own form, a block index made
 * once and added to (transpose_shared's ctaid * 32, shifted in the entry
 * block and added to a thread index in every later block), at an add's
 * issue rate. The filler the mad took stays taken. */
static void reuse_shifts(share_ctx *s)
{
    ctx *c = s->c;
    shift_def *defs = NULL;
    size_t ndefs = 0, cap = 0;
    for (size_t k = 0; k < c->nb && s->st == MB_OK; k++) {
        blk *b = &c->b[k];
        size_t order = 0;
        for (size_t i = 0; i <= b->nslots && s->st == MB_OK; i++) {
            slot *sl = &b->slots[i];
            for (size_t j = 0; j <= sl->nins; j++, order++) {
                need *n = j < sl->nins ? &sl->ins[j] : NULL;
                if (!n && (i == b->nslots || sl->role == SLOT_DROPPED))
                    break;
                const char *op = n ? n->op : sl->op, *ops = n ? n->operands : sl->operands;
                const char *guard = n ? NULL : sl->guard;
                if (!op || !ops || !pure_value(guard, op, ops))
                    continue;
                const char *f[4];
                size_t len[4];
                if (!strcmp(op, "shl.b32") && cx_split_operands(ops, f, len, 3) && f[1][0] == '%' &&
                    writes_of(s, f[0], len[0]) == 1 && writes_of(s, f[1], len[1]) <= 1) {
                    uint32_t amt; /* the shift amount, a plain decimal */
                    if (!cx_parse_decimal(f[2], len[2], &amt) || amt < 1 || amt > 31)
                        continue;
                    if (MB_GROW(defs, cap, ndefs + 1) != MB_OK) {
                        s->st = cx_nomem(c);
                        break;
                    }
                    defs[ndefs++] = (shift_def){(int)k, order, f[0], f[1], len[0], len[1], (int)amt};
                    continue;
                }
                if (!n || strcmp(op, "mad.lo.s32") || !cx_split_operands(ops, f, len, 4) || f[1][0] != '%' ||
                    writes_of(s, f[1], len[1]) > 1)
                    continue;
                const int sh = cx_pow2_exponent(f[2], len[2]);
                for (size_t d = 0; sh > 0 && d < ndefs; d++) {
                    const shift_def *x = &defs[d];
                    if (x->k != sh || x->slen != len[1] || strncmp(x->src, f[1], len[1]) ||
                        !(x->block == (int)k ? x->order < order : cx_dominates(c, x->block, (int)k)))
                        continue;
                    const char *o = cx_fmt(c, "%.*s, %.*s, %.*s", (int)len[0], f[0], (int)x->dlen, x->dest,
                                           (int)len[3], f[3]);
                    if (!o) {
                        s->st = cx_nomem(c);
                        break;
                    }
                    n->op = n->token = "add.s32";
                    n->operands = o;
                    break;
                }
            }
        }
    }
    free(defs);
}

mb_status cx_share_values(ctx *c)
{
    share_ctx s;
    memset(&s, 0, sizeof s);
    s.c = c;
    for (size_t k = 0; k < c->nb && s.st == MB_OK; k++)
        for (size_t i = 0; i <= c->b[k].nslots && s.st == MB_OK; i++) {
            const slot *sl = &c->b[k].slots[i];
            for (size_t j = 0; j < sl->nins; j++)
                if (sl->ins[j].op)
                    count_writes(&s, sl->ins[j].operands);
            if (i < c->b[k].nslots && sl->role != SLOT_DROPPED && sl->op)
                count_writes(&s, sl->operands);
        }
    if (s.st == MB_OK)
        reuse_shifts(&s);
    for (size_t k = 0; k < c->nb && s.st == MB_OK; k++)
        share_block(&s, &c->b[k]);
    /* every reader of a dropped value reads the kept one; the dropped go */
    for (size_t k = 0; k < c->nb && s.st == MB_OK && s.nalias; k++)
        for (size_t i = 0; i <= c->b[k].nslots; i++) {
            slot *sl = &c->b[k].slots[i];
            size_t w = 0;
            for (size_t j = 0; j < sl->nins; j++) {
                if (!sl->ins[j].op)
                    continue;
                sl->ins[j].operands = apply_aliases(&s, sl->ins[j].operands);
                sl->ins[w++] = sl->ins[j];
            }
            sl->nins = w;
            if (i < c->b[k].nslots && sl->op) {
                sl->operands = apply_aliases(&s, sl->operands);
                sl->guard = apply_aliases(&s, sl->guard);
            }
        }
    free(s.regs);
    free(s.from);
    free(s.to);
    return s.st;
}
