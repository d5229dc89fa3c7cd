/* Instruction chains of the clone: the model's needs (thread keys, loop
 * counters, branch conditions, addresses) are placed in the original's
 * filler slots with the same opcode and types where possible and inserted
 * otherwise; remaining slots become fillers. */
#include "clone_ctx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ dominators */

static int intersect(const ctx *c, const int *order_of, int a, int b)
{
    while (a != b) {
        while (order_of[a] > order_of[b])
            a = c->b[a].idom;
        while (order_of[b] > order_of[a])
            b = c->b[b].idom;
    }
    return a;
}

static mb_status dominators(ctx *c)
{
    /* Cooper, Harvey and Kennedy's iteration over a BFS order, good enough
     * for the few dozen blocks of a kernel */
    int *order = malloc(c->nb * sizeof(int)), *order_of = malloc(c->nb * sizeof(int));
    if (!order || !order_of) {
        free(order);
        free(order_of);
        return cx_nomem(c);
    }
    size_t n = 0;
    for (size_t k = 0; k < c->nb; k++) {
        c->b[k].idom = -1;
        order_of[k] = 1 << 30;
    }
    order[n++] = 0;
    order_of[0] = 0;
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < c->b[order[i]].nsucc; s++) {
            int x = c->b[order[i]].succ[s];
            if (order_of[x] == 1 << 30) {
                order_of[x] = (int)n;
                order[n++] = x;
            }
        }
    c->b[0].idom = 0;
    int changed = 1;
    while (changed) {
        changed = 0;
        for (size_t i = 1; i < n; i++) {
            int b = order[i], nd = -1;
            for (size_t e = 0; e < c->f->nedges; e++) {
                int p = c->f->edges[e].from;
                if (c->f->edges[e].to != b || c->b[p].idom < 0)
                    continue;
                nd = nd < 0 ? p : intersect(c, order_of, p, nd);
            }
            if (nd >= 0 && nd != c->b[b].idom) {
                c->b[b].idom = nd;
                changed = 1;
            }
        }
    }
    for (size_t k = 0; k < c->nb; k++)
        if (c->b[k].idom < 0)
            c->b[k].idom = 0; /* unreachable blocks: anything dominating is fine */
    free(order);
    free(order_of);
    return MB_OK;
}

static int lca(const ctx *c, int a, int b)
{
    if (a < 0)
        return b;
    /* walk up from a, marking, then from b */
    for (int x = a;; x = c->b[x].idom) {
        for (int y = b;; y = c->b[y].idom) {
            if (x == y)
                return x;
            if (y == 0)
                break;
        }
        if (x == 0)
            return 0;
    }
}

/* The block itself, or the nearest dominator outside every loop. */
static int hoist(const ctx *c, int block)
{
    while (cx_block_loop(c, block) >= 0) {
        int l = cx_block_loop(c, block);
        while (c->f->loops[l].parent >= 0)
            l = c->f->loops[l].parent;
        block = c->b[c->f->loops[l].header].idom;
    }
    return block;
}

/* ------------------------------------------------------------ matching */

static size_t first_mem_slot(const blk *b)
{
    for (size_t i = 0; i < b->nslots; i++)
        if (b->slots[i].role == SLOT_MEM)
            return i;
    return b->term != TERM_NONE ? b->nslots - 1 : b->nslots;
}

static size_t term_slot(const blk *b)
{
    return b->term != TERM_NONE ? b->nslots - 1 : b->nslots;
}

/* The class of the register an instruction writes: its first operand's
 * prefix (stores, branches and barriers write none). */
static int dest_class_of(const char *op, const char *operands)
{
    if (!strncmp(op, "st.", 3) || !strncmp(op, "bra", 3) || !strncmp(op, "bar", 3) ||
        !strncmp(op, "red.", 4) || operands[0] != '%')
        return -1;
    static const char *const prefix[] = {"%p", "%rs", "%rd", "%r", "%fd", "%f"};
    static const int cls[] = {MB_REG_PRED, MB_REG_B16, MB_REG_B64, MB_REG_B32, MB_REG_F64, MB_REG_F32};
    for (int i = 0; i < 6; i++) {
        size_t n = strlen(prefix[i]);
        if (!strncmp(operands, prefix[i], n) && (operands[n] >= '0' && operands[n] <= '9'))
            return cls[i];
    }
    return -1;
}

static const char *dest_of(ctx *c, const char *operands)
{
    const char *comma = strchr(operands, ',');
    return comma ? mb_arena_strndup(c->A, operands, (size_t)(comma - operands)) : NULL;
}

static mb_status insert(ctx *c, slot *s, const need *n)
{
    if (MB_GROW(s->ins, s->ins_cap, s->nins + 1) != MB_OK)
        return cx_nomem(c);
    s->ins[s->nins++] = *n;
    return MB_OK;
}

/* The slot from which a need reading `operands` may be placed: after the
 * needs of this block that write its input registers. */
static size_t inputs_ready(const char *operands, char **regs, const size_t *ready, size_t nregs)
{
    size_t at = 0;
    const char *p = strchr(operands, ','); /* the first operand is the destination */
    while (p && *p) {
        p = strchr(p, '%');
        if (!p)
            break;
        size_t len = strcspn(p, ",]+} ;");
        for (size_t i = 0; i < nregs; i++)
            if (strlen(regs[i]) == len && !strncmp(regs[i], p, len) && ready[i] > at)
                at = ready[i];
        p += len;
    }
    return at;
}

/* Whether need n is a 32-bit `mad.lo` or `mul.lo`. */
static int is_product(const need *n)
{
    return !strcmp(n->op, "mad.lo.s32") || !strcmp(n->op, "mul.lo.s32");
}

/* k when need n is a `mad.lo.s32` or `mul.lo.s32` of a register by 2^k
 * (its operands then in f and len, four or three), else -1: a product
 * split_products can turn into a shift. */
static int product_shift(const need *n, const char **f, size_t *len)
{
    if (!is_product(n) || !cx_split_operands(n->operands, f, len, !strcmp(n->op, "mad.lo.s32") ? 4 : 3) ||
        f[1][0] != '%')
        return -1;
    return cx_pow2_exponent(f[2], len[2]);
}

static int splittable_product(const need *n)
{
    const char *f[4];
    size_t len[4];
    return product_shift(n, f, len) >= 0;
}

/* The free filler slots of `b` whose token is `token`. */
static size_t free_fillers(const blk *b, const char *token)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nslots; i++)
        n += b->slots[i].role == SLOT_FILLER && !strcmp(b->slots[i].token, token);
    return n;
}

/* The needs of `b` after the k-th of sequence i that are products of
 * `token` split_products cannot split. A product it can split leaves the
 * original's products to those (transpose_shared's `ctaid.x * 32 + tid.x`
 * took the entry block's one `mad` ahead of the shared tile's
 * `tid.y * 33 + tid.x`, which then took an `add`'s place). */
static size_t later_unsplittable(const blk *b, size_t i, size_t k, const char *token)
{
    size_t n = 0;
    for (size_t i2 = i; i2 < b->nseqs; i2++)
        for (size_t k2 = i2 == i ? k + 1 : 0; k2 < b->seqs[i2].n; k2++) {
            const need *o = &b->seqs[i2].items[k2];
            n += is_product(o) && !splittable_product(o) && !strcmp(o->token, token);
        }
    return n;
}

/* A filler slot becomes need n. */
static void assign(ctx *c, slot *s, const need *n)
{
    s->role = SLOT_ASSIGNED;
    s->op = n->op;
    s->operands = n->operands;
    s->reads_compared = n->reads_compared;
    s->dest_class = dest_class_of(n->op, n->operands);
    s->dest = dest_of(c, n->operands);
}

static mb_status match_block(ctx *c, int block)
{
    blk *b = &c->b[block];
    /* needs of this block and where their results are ready */
    size_t total = 0;
    for (size_t i = 0; i < b->nseqs; i++)
        total += b->seqs[i].n;
    char **regs = calloc(total + 1, sizeof(char *));
    size_t *ready = calloc(total + 1, sizeof(size_t)), nregs = 0;
    if (!regs || !ready) {
        free(regs);
        free(ready);
        return cx_nomem(c);
    }
    mb_status st = MB_OK;
    /* in creation order (producers before consumers); a sequence must finish
     * before its own deadline and every later sequence's */
    for (size_t i = 0; i < b->nseqs && st == MB_OK; i++) {
        size_t eff = b->seqs[i].deadline;
        for (size_t j = i + 1; j < b->nseqs; j++)
            if (b->seqs[j].deadline < eff)
                eff = b->seqs[j].deadline;
        size_t pos = b->seqs[i].min_start;
        for (size_t k = 0; k < b->seqs[i].n && st == MB_OK; k++) {
            const need *n = &b->seqs[i].items[k];
            size_t start = inputs_ready(n->operands, regs, ready, nregs);
            if (start < pos)
                start = pos;
            if (start > eff)
                start = eff;
            size_t found = SIZE_MAX;
            /* a product split_products can make a shift and an add leaves
             * its token's fillers to the later ones it cannot: inserted */
            const int search = !splittable_product(n) ||
                               later_unsplittable(b, i, k, n->token) < free_fillers(b, n->token);
            for (size_t s2 = start; search && s2 < eff && found == SIZE_MAX; s2++)
                if (b->slots[s2].role == SLOT_FILLER && strcmp(b->slots[s2].token, n->token) == 0)
                    found = s2;
            size_t done;
            if (found != SIZE_MAX) {
                assign(c, &b->slots[found], n);
                done = found + 1;
            } else {
                /* inserted as early as its inputs allow, so that later needs
                 * can still take filler slots */
                st = insert(c, &b->slots[start], n);
                c->m->synthetic_insns++;
                done = start;
            }
            pos = done;
            const char *dest = dest_of(c, n->operands);
            if (dest && nregs < total) {
                regs[nregs] = (char *)dest;
                ready[nregs++] = done;
            }
        }
        free(b->seqs[i].items);
        b->seqs[i].items = NULL;
    }
    free(regs);
    free(ready);
    return st;
}

/* The instruction class of a chain token and the kind of value it works on
 * (0 integer or bits, 1 f32/f16, 2 f64): a filler of the same class and kind
 * keeps the clone's mix and the pressure on each functional unit. */
static int token_class(const char *token, int *kind)
{
    size_t n = strcspn(token, ".");
    int op = mb_opcode_lookup(token, n);
    const char *last = strrchr(token, '.');
    *kind = !last ? 0 : !strcmp(last, ".f64") ? 2 : last[1] == 'f' || last[1] == 'h' ? 1 : 0;
    return op < 0 ? -1 : (int)mb_opcode_get((mb_opcode)op)->cls;
}

/* The free filler of `block` nearest slot `at` that can stand for `token`:
 * the same token, else (unless `exact_only`) the same class and kind (ALU
 * and conversions only; memory and control are never exchanged). SIZE_MAX
 * when none. */
static size_t filler_for(const blk *b, const char *token, size_t at, int exact_only)
{
    int kind, cls = token_class(token, &kind);
    size_t best = SIZE_MAX, best_d = SIZE_MAX, alike = SIZE_MAX, alike_d = SIZE_MAX;
    for (size_t i = 0; i < b->nslots; i++) {
        if (b->slots[i].role != SLOT_FILLER)
            continue;
        size_t d = i > at ? i - at : at - i;
        if (!strcmp(b->slots[i].token, token)) {
            if (d < best_d)
                best = i, best_d = d;
            continue;
        }
        if (exact_only)
            continue;
        int k2, c2 = token_class(b->slots[i].token, &k2);
        if (c2 == cls && k2 == kind && (cls == MB_CLASS_ALU || cls == MB_CLASS_CONV) && d < alike_d)
            alike = i, alike_d = d;
    }
    return best != SIZE_MAX ? best : alike;
}

/* Whether `a` runs exactly as often as `k` in the clone (freq: each
 * block's count at the reduction): a filler dropped there removes as many
 * dynamic instructions as `k` adds. Counts at the reduction, not the
 * original's, because the clone's mix is what is kept: where every loop of
 * a nest runs once (the maximum reduction) a loop's preheader and body run
 * equally often, and a value made before the loop can take the body's
 * filler. */
static int same_frequency(const double *freq, int a, int k)
{
    return fabs(freq[a] - freq[k]) <= 1e-9 * (freq[a] > freq[k] ? freq[a] : freq[k]);
}

/* Whether every path from block `from` to the function's end passes `to`. */
static int always_reaches(const ctx *c, int from, int to)
{
    unsigned char *seen = calloc(c->nb + 1, 1);
    int *stack = malloc((c->nb + 1) * sizeof(int)), n = 0, escapes = 0;
    if (!seen || !stack) {
        free(seen);
        free(stack);
        return 0;
    }
    stack[n++] = from;
    seen[from] = 1;
    while (n > 0 && !escapes) {
        const blk *b = &c->b[stack[--n]];
        if (b->term == TERM_RET || b->nsucc == 0)
            escapes = 1;
        for (int s = 0; s < b->nsucc; s++) {
            int x = b->succ[s];
            if (x != to && x >= 0 && !seen[x]) {
                seen[x] = 1;
                stack[n++] = x;
            }
        }
    }
    free(seen);
    free(stack);
    return !escapes;
}

/* Whether `reg` names one of the model's virtual registers (%r12, %rd3,
 * %p1, ...), not a special register, a never-written input (%r_in) or a
 * symbol. */
static int is_vreg(const char *reg, size_t len)
{
    static const char *const prefix[] = {"%rs", "%rd", "%fd", "%p", "%r", "%f"};
    for (int i = 0; i < 6; i++) {
        size_t n = strlen(prefix[i]);
        if (len > n && !strncmp(reg, prefix[i], n) && reg[n] >= '0' && reg[n] <= '9')
            return 1;
    }
    return 0;
}

/* The writers of register `reg` (len characters) so far: the count, and
 * the last one's block and position (2 i for an instruction inserted
 * before slot i, 2 i + 1 for slot i itself). Fillers write none of the
 * model's registers. */
static int writers_of(const ctx *c, const char *reg, size_t len, int *block, size_t *pos)
{
    int n = 0;
    for (size_t k = 0; k < c->nb; k++) {
        const blk *b = &c->b[k];
        for (size_t i = 0; i <= b->nslots; i++) {
            for (size_t j = 0; j < b->slots[i].nins; j++) {
                const need *x = &b->slots[i].ins[j];
                if (x->op && dest_class_of(x->op, x->operands) >= 0 &&
                    strcspn(x->operands, ",") == len && !strncmp(x->operands, reg, len))
                    n++, *block = (int)k, *pos = 2 * i;
            }
            const slot *s = &b->slots[i];
            if (i == b->nslots || s->role == SLOT_FILLER || s->role == SLOT_DROPPED || !s->op ||
                !s->operands)
                continue;
            if (dest_class_of(s->op, s->operands) >= 0 && strcspn(s->operands, ",") == len &&
                !strncmp(s->operands, reg, len))
                n++, *block = (int)k, *pos = 2 * i + 1;
        }
    }
    return n;
}

/* Whether need `n`, inserted in block k, may take filler slot f of block
 * `a`, a dominator of k outside every loop: it computes a value written
 * once from values written once before that slot, so it is the same value
 * made earlier. */
static int movable_to(const ctx *c, const need *n, int k, int a, size_t f)
{
    int kind, cls = token_class(n->token, &kind);
    if (cls != MB_CLASS_ALU && cls != MB_CLASS_CONV)
        return 0;
    const char *ops = n->operands;
    size_t dlen = strcspn(ops, ",");
    int wb;
    size_t wp;
    if (dest_class_of(n->op, ops) < 0 || !is_vreg(ops, dlen) || writers_of(c, ops, dlen, &wb, &wp) != 1 ||
        wb != k)
        return 0;
    for (const char *p = strchr(ops, ','); p && (p = strchr(p, '%')) != NULL;) {
        size_t len = strcspn(p, ",]+} ;");
        if (is_vreg(p, len)) {
            if (writers_of(c, p, len, &wb, &wp) != 1)
                return 0;
            if (wb == a ? wp >= 2 * f + 1 : (wb == k || !cx_dominates(c, wb, a)))
                return 0;
        }
        p += len;
    }
    return 1;
}

/* Occurrences of register `reg` (len characters) in `operands`: as the
 * destination (the first operand of an instruction that writes one) and
 * elsewhere. */
static void reg_uses(const char *op, const char *operands, const char *reg, size_t len, int *writes,
                     int *reads)
{
    if (!op || !operands)
        return;
    int first = dest_class_of(op, operands) >= 0;
    for (const char *p = operands; (p = strchr(p, '%')) != NULL; first = 0) {
        size_t n = strcspn(p, ",]+} ;|");
        if (n == len && !strncmp(p, reg, len)) {
            if (first && p == operands)
                (*writes)++;
            else
                (*reads)++;
        }
        p += n;
    }
}

/* Writes and reads of `reg` by the model's instructions so far (every
 * block's sequences and its slots that hold one), and those in block `k`. */
static void count_uses(const ctx *c, const char *reg, int k, int *writes, int *reads, int *in_k)
{
    *writes = *reads = *in_k = 0;
    const size_t len = strlen(reg);
    for (size_t b = 0; b < c->nb; b++) {
        const blk *bk = &c->b[b];
        int w = 0, r = 0;
        for (size_t i = 0; i < bk->nseqs; i++)
            for (size_t j = 0; j < bk->seqs[i].n; j++)
                reg_uses(bk->seqs[i].items[j].op, bk->seqs[i].items[j].operands, reg, len, &w, &r);
        for (size_t i = 0; i < bk->nslots; i++) {
            const slot *s = &bk->slots[i];
            if (s->role != SLOT_FILLER && s->role != SLOT_DROPPED) {
                reg_uses(s->op, s->operands, reg, len, &w, &r);
                reg_uses("", s->guard, reg, len, &w, &r);
            }
        }
        *writes += w;
        *reads += r;
        if ((int)b == k)
            *in_k = w + r;
    }
}

/* A copy `mov X, Y` of a value Y that nothing else reads, made in the same
 * block by one instruction, becomes that instruction writing X: an
 * induction reset from an address made for it alone (matmul's and
 * nested_loops' per-access address registers) costs no move, as a
 * compiler's register allocation would have it. Before matching, so that
 * the filler the copy would have taken stays a filler. */
static void coalesce_copies(ctx *c)
{
    for (size_t k = 0; k < c->nb; k++) {
        blk *bk = &c->b[k];
        for (size_t i = 0; i < bk->nseqs; i++)
            for (size_t j = 0; j < bk->seqs[i].n; j++) {
                need *mv = &bk->seqs[i].items[j];
                if (strcmp(mv->op, "mov.u32") && strcmp(mv->op, "mov.u64"))
                    continue;
                const char *comma = strchr(mv->operands, ',');
                if (!comma)
                    continue;
                size_t xl = (size_t)(comma - mv->operands);
                const char *y = comma + 1 + strspn(comma + 1, " ");
                size_t yl = strlen(y);
                if (!is_vreg(mv->operands, xl) || !is_vreg(y, yl))
                    continue;
                char *x = mb_arena_strndup(c->A, mv->operands, xl);
                int yw, yr, yk, xw, xr, xk;
                if (!x)
                    return;
                count_uses(c, y, (int)k, &yw, &yr, &yk);
                count_uses(c, x, (int)k, &xw, &xr, &xk);
                if (yw != 1 || yr != 1 || xk != 1)
                    continue;
                /* the writer: an instruction of this block's sequences */
                need *w = NULL;
                for (size_t i2 = 0; i2 < bk->nseqs && !w; i2++)
                    for (size_t j2 = 0; j2 < bk->seqs[i2].n && !w; j2++) {
                        need *n = &bk->seqs[i2].items[j2];
                        if (n != mv && dest_class_of(n->op, n->operands) >= 0 &&
                            strcspn(n->operands, ",") == yl && !strncmp(n->operands, y, yl))
                            w = n;
                    }
                if (!w)
                    continue;
                const char *ops = cx_fmt(c, "%s%s", x, w->operands + yl);
                if (!ops)
                    return;
                w->operands = ops;
                memmove(mv, mv + 1, (bk->seqs[i].n - j - 1) * sizeof(*mv));
                bk->seqs[i].n--;
                j--;
            }
    }
}

/* A free filler of `b` whose token is exactly `token`; SIZE_MAX when none. */
static size_t exact_filler(const blk *b, const char *token)
{
    for (size_t i = 0; i < b->nslots; i++)
        if (b->slots[i].role == SLOT_FILLER && !strcmp(b->slots[i].token, token))
            return i;
    return SIZE_MAX;
}

/* Whether need n took a filler of its own token. */
static int took_own_filler(const ctx *c, const need *n)
{
    return !strcmp(c->b[n->drop_block].slots[n->drop_slot].token, n->token);
}

/* Where a product split_products can split took a filler of its own token
 * and one it cannot split took a filler of another in the same block, they
 * exchange fillers, so that the first becomes the original's shift and add
 * and the block keeps its products (see later_unsplittable). */
/* An inserted need with `own`'s token that split_products cannot split and
 * that took a filler of another opcode in the block `own` took its filler
 * in; NULL when none. */
static need *unsplit_in_other_filler(ctx *c, const need *own)
{
    for (size_t k = 0; k < c->nb; k++)
        for (size_t i = 0; i <= c->b[k].nslots; i++)
            for (size_t j = 0; j < c->b[k].slots[i].nins; j++) {
                need *o = &c->b[k].slots[i].ins[j];
                if (o->op && !o->uncovered && o->drop_block == own->drop_block && !strcmp(o->token, own->token) &&
                    !splittable_product(o) && !took_own_filler(c, o))
                    return o;
            }
    return NULL;
}

static void give_products_own_fillers(ctx *c)
{
    for (size_t k = 0; k < c->nb; k++)
        for (size_t i = 0; i <= c->b[k].nslots; i++)
            for (size_t j = 0; j < c->b[k].slots[i].nins; j++) {
                need *own = &c->b[k].slots[i].ins[j];
                if (!own->op || own->uncovered || own->drop_block < 0 || !splittable_product(own) ||
                    !took_own_filler(c, own))
                    continue;
                need *other = unsplit_in_other_filler(c, own);
                if (other) {
                    const size_t s = own->drop_slot;
                    own->drop_slot = other->drop_slot;
                    other->drop_slot = s;
                }
            }
}

/* After the drops: an inserted `mad.lo.s32 d, a, 2^k, b` (or `mul.lo.s32
 * d, a, 2^k`) that took the place of a filler of another opcode, in a
 * block that still has free `shl.b32` (and `add.s32`) fillers, becomes
 * `shl.b32 t, a, k; add.s32 d, t, b` (or `shl.b32 d, a, k`) in their
 * places, and the filler it took is run again. The value is the same, the
 * count too, and the opcodes are the original's own where the compiler had
 * strength-reduced the product: a multiply issues at half an add's rate on
 * an integer unit (the simulator's initiation intervals), which made a
 * clone whose mix matched the original's by class run slower. */
static mb_status split_products(ctx *c)
{
    give_products_own_fillers(c);
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        for (size_t i = 0; i <= b->nslots; i++)
            for (size_t j = 0; j < b->slots[i].nins; j++) {
                need *n = &b->slots[i].ins[j];
                const char *f[4];
                size_t len[4];
                const int sh = n->op && !n->uncovered && n->drop_block >= 0 ? product_shift(n, f, len) : -1;
                if (sh < 0 || took_own_filler(c, n))
                    continue; /* not a product by 2^k, or in a filler of its own opcode */
                const int mad = !strcmp(n->op, "mad.lo.s32");
                blk *at = &c->b[n->drop_block];
                slot *taken = &at->slots[n->drop_slot];
                /* the shift takes a free shl filler; the add a free add
                 * filler, else the place the product took */
                const size_t fs = exact_filler(at, "shl.b32");
                if (fs == SIZE_MAX)
                    continue;
                taken->role = SLOT_FILLER;
                at->slots[fs].role = SLOT_DROPPED;
                size_t fa = mad ? exact_filler(at, "add.s32") : 0;
                if (fa == SIZE_MAX)
                    fa = n->drop_slot;
                if (!mad) {
                    const char *o = cx_fmt(c, "%.*s, %.*s, %d", (int)len[0], f[0], (int)len[1], f[1], sh);
                    if (!o)
                        return cx_nomem(c);
                    n->op = n->token = "shl.b32";
                    n->operands = o;
                    n->drop_slot = fs;
                    continue;
                }
                at->slots[fa].role = SLOT_DROPPED;
                c->m->dropped_fillers++;
                const char *t = cx_reg(c, MB_REG_B32);
                const char *o1 = t ? cx_fmt(c, "%s, %.*s, %d", t, (int)len[1], f[1], sh) : NULL;
                const char *o2 = t ? cx_fmt(c, "%.*s, %s, %.*s", (int)len[0], f[0], t, (int)len[3], f[3]) : NULL;
                if (!o1 || !o2 || MB_GROW(b->slots[i].ins, b->slots[i].ins_cap, b->slots[i].nins + 1) != MB_OK)
                    return cx_nomem(c);
                n = &b->slots[i].ins[j];
                memmove(n + 2, n + 1, (b->slots[i].nins - j - 1) * sizeof(need));
                b->slots[i].nins++;
                n[1] = n[0];
                n[0].op = n[0].token = "shl.b32";
                n[0].operands = o1;
                n[0].drop_slot = fs;
                n[1].op = n[1].token = "add.s32";
                n[1].operands = o2;
                n[1].drop_slot = fa;
                c->m->synthetic_insns++;
                j++;
            }
    }
    return MB_OK;
}

/* Each block's expected ECount at the clone's reduction (malloc'd; NULL
 * when out of memory). */
static double *expected_counts(const ctx *c)
{
    double *freq = malloc((c->nb + 1) * sizeof(double));
    for (size_t k = 0; freq && k < c->nb; k++)
        freq[k] = mb_sprof_func_expected_ecount(c->f, (int)k, c->m->reduction);
    return freq;
}

/* Synthetic instructions take the place of chain fillers: every inserted
 * need drops a free filler of its kind in its block, or else in a dominating
 * block that runs as often in the clone (or in a block that runs exactly
 * when it does), so that the clone's instruction count and mix at its
 * reduction stay the original's. A need nothing can stand for stays extra. */
static mb_status drop_fillers(ctx *c)
{
    double *freq = expected_counts(c);
    if (!freq)
        return cx_nomem(c);
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        for (size_t i = 0; i <= b->nslots; i++)
            for (size_t j = 0; j < b->slots[i].nins; j++) {
                const char *token = b->slots[i].ins[j].token;
                /* the same token in this block or a dominating one that
                 * runs as often, before another opcode of its class here:
                 * the kernel then runs the original's opcodes (tid_loop's
                 * global index, made where its load needs it, takes the
                 * entry block's `mad` rather than a shift beside the load) */
                int at = (int)k;
                size_t f = SIZE_MAX;
                for (int exact = 1; exact >= 0 && f == SIZE_MAX; exact--) {
                    at = (int)k;
                    f = filler_for(b, token, i, exact);
                    while (f == SIZE_MAX && at > 0 && c->b[at].idom >= 0) {
                        at = c->b[at].idom;
                        if (same_frequency(freq, at, (int)k))
                            f = filler_for(&c->b[at], token, c->b[at].nslots, exact);
                    }
                }
                /* else a block that runs exactly when its own does: one
                 * it dominates and that every path from it reaches (the
                 * quota accesses' per-thread values, made once above the
                 * blocks that use them; a preheader's values where the
                 * loop runs once per entry at the reduction) */
                for (size_t o = 0; f == SIZE_MAX && o < c->nb; o++)
                    if (o != k && same_frequency(freq, (int)o, (int)k) && cx_dominates(c, (int)k, (int)o) &&
                        always_reaches(c, (int)k, (int)o)) {
                        at = (int)o;
                        f = filler_for(&c->b[at], token, c->b[at].nslots, 0);
                    }
                if (f != SIZE_MAX) {
                    c->b[at].slots[f].role = SLOT_DROPPED;
                    c->m->dropped_fillers++;
                    b->slots[i].ins[j].drop_block = at;
                    b->slots[i].ins[j].drop_slot = f;
                } else
                    b->slots[i].ins[j].uncovered = 1;
            }
    }
    /* A per-thread value nothing here can stand for is made earlier, in a
     * dominating block's free filler of its token: that block runs the
     * filler anyway, so the value costs nothing (bfs's array bases, made
     * before its second loop, take the entry block's cvta fillers, where
     * the original made them). After the drops above, so that it takes no
     * filler a drop would have used; outside loops, where a block runs at
     * most once per thread and an earlier value is the same value. */
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        if (cx_block_loop(c, (int)k) >= 0)
            continue;
        for (size_t i = 0; i <= b->nslots; i++)
            for (size_t j = 0; j < b->slots[i].nins; j++) {
                need *n = &b->slots[i].ins[j];
                if (!n->uncovered)
                    continue;
                for (int a = k > 0 ? c->b[k].idom : -1; a >= 0; a = a > 0 ? c->b[a].idom : -1) {
                    if (cx_block_loop(c, a) >= 0)
                        continue;
                    blk *ba = &c->b[a];
                    size_t f = SIZE_MAX;
                    for (size_t s2 = 0; s2 < ba->nslots && f == SIZE_MAX; s2++)
                        if (ba->slots[s2].role == SLOT_FILLER && !strcmp(ba->slots[s2].token, n->token) &&
                            movable_to(c, n, (int)k, a, s2))
                            f = s2;
                    if (f == SIZE_MAX)
                        continue;
                    assign(c, &ba->slots[f], n);
                    n->op = NULL; /* removed below */
                    c->m->synthetic_insns--;
                    break;
                }
            }
        for (size_t i = 0; i <= b->nslots; i++) {
            size_t w = 0;
            for (size_t j = 0; j < b->slots[i].nins; j++)
                if (b->slots[i].ins[j].op)
                    b->slots[i].ins[w++] = b->slots[i].ins[j];
            b->slots[i].nins = w;
        }
    }
    free(freq);
    return MB_OK;
}

/* Reads of register `reg` (len characters) by the clone's instructions:
 * every inserted need and every slot not dropped. */
static int reads_of(const ctx *c, const char *reg, size_t len)
{
    int w = 0, r = 0;
    for (size_t k = 0; k < c->nb; k++) {
        const blk *b = &c->b[k];
        for (size_t i = 0; i <= b->nslots; i++) {
            for (size_t j = 0; j < b->slots[i].nins; j++)
                reg_uses(b->slots[i].ins[j].op, b->slots[i].ins[j].operands, reg, len, &w, &r);
            if (i < b->nslots && b->slots[i].role != SLOT_DROPPED) {
                reg_uses(b->slots[i].op, b->slots[i].operands, reg, len, &w, &r);
                reg_uses("", b->slots[i].guard, reg, len, &w, &r);
            }
        }
    }
    return r;
}

/* Whether a load or an atomic of the clone writes `reg` (len characters):
 * its recorded destination, one register or a vector's braces. */
static int loaded(const ctx *c, const char *reg, size_t len)
{
    for (size_t k = 0; k < c->nb; k++)
        for (size_t i = 0; i < c->b[k].nslots; i++) {
            const slot *s = &c->b[k].slots[i];
            if (s->role != SLOT_MEM || !s->dest)
                continue;
            for (const char *p = s->dest; (p = strchr(p, '%')) != NULL;) {
                size_t n = strcspn(p, ",} ");
                if (n == len && !strncmp(p, reg, len))
                    return 1;
                p += n;
            }
        }
    return 0;
}

/* The input a filler `mov D, %X_in` copies (the never-written register
 * of its class), NULL for any other filler. */
static const char *copied_input(const slot *s)
{
    if (strncmp(s->op, "mov.", 4))
        return NULL;
    const char *src = s->operands + strcspn(s->operands, ",");
    src += strspn(src, ", ");
    size_t n = strlen(src);
    return n > 3 && src[0] == '%' && !strcmp(src + n - 3, "_in") && !strchr(src, ',') ? src : NULL;
}

/* Text `x` with every whole-register occurrence of `from` replaced by
 * `to`; x itself where there is none, NULL when out of memory. */
static const char *renamed(ctx *c, const char *x, const char *from, const char *to)
{
    const size_t len = strlen(from);
    size_t at = 0;
    for (const char *p; x && (p = strstr(x + at, from)) != NULL;) {
        const char e = p[len];
        if ((e >= '0' && e <= '9') || (e >= 'a' && e <= 'z') || e == '_') {
            at = (size_t)(p - x) + len;
            continue;
        }
        at = (size_t)(p - x) + strlen(to);
        x = cx_fmt(c, "%.*s%s%s", (int)(p - x), x, to, p + len);
    }
    return x;
}

/* Every read of register `from` becomes a read of `to`. */
static mb_status rename_reads(ctx *c, const char *from, const char *to)
{
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        for (size_t i = 0; i <= b->nslots; i++) {
            for (size_t j = 0; j < b->slots[i].nins; j++) {
                need *n = &b->slots[i].ins[j];
                if (n->operands && !(n->operands = renamed(c, n->operands, from, to)))
                    return cx_nomem(c);
            }
            slot *s = &b->slots[i];
            if (i == b->nslots || s->role == SLOT_DROPPED)
                continue;
            if ((s->operands && !(s->operands = renamed(c, s->operands, from, to))) ||
                (s->guard && !(s->guard = renamed(c, s->guard, from, to))))
                return cx_nomem(c);
        }
    }
    return MB_OK;
}

/* Whether filler slot i of block b (made by cx_filler) can go without
 * changing what the clone waits for: 1 where nothing reads what it writes
 * and it reads no load's result (an unread consumer of a load still holds
 * its warp until the load is back, as the original's consumer does); 2
 * where it copies the never-written input, which its readers can read
 * themselves. */
static int idle_filler(const ctx *c, const blk *b, size_t i)
{
    const slot *s = &b->slots[i];
    if (s->role != SLOT_ASSIGNED || !s->filler || !s->op || !s->operands || s->guard)
        return 0;
    size_t left = 0; /* a block keeps an instruction, or it is no block */
    for (size_t j = 0; j <= b->nslots; j++)
        left += b->slots[j].nins + (j < b->nslots && b->slots[j].role != SLOT_DROPPED);
    if (left < 2)
        return 0;
    if (!s->dest || !is_vreg(s->dest, strlen(s->dest)))
        return 0;
    if (copied_input(s))
        return 2;
    if (reads_of(c, s->dest, strlen(s->dest)))
        return 0;
    for (const char *p = s->operands + strcspn(s->operands, ","); (p = strchr(p, '%')) != NULL;) {
        size_t n = strcspn(p, ",]+} ;|");
        if (loaded(c, p, n))
            return 0;
        p += n;
    }
    return 1;
}

/* How often the uncovered needs of class `cls` and `kind` run at the
 * reduction. */
static double uncovered_count(const ctx *c, const double *freq, int cls, int kind)
{
    double u = 0;
    for (size_t k = 0; k < c->nb; k++)
        for (size_t i = 0; i <= c->b[k].nslots; i++)
            for (size_t j = 0; j < c->b[k].slots[i].nins; j++) {
                const need *n = &c->b[k].slots[i].ins[j];
                int nk, nc = n->op && n->uncovered ? token_class(n->token, &nk) : -1;
                if (nc == cls && nk == kind)
                    u += freq[k];
            }
    return u;
}

/* The idle filler of class `cls` and `kind` whose block runs most often
 * without running more than `left` times: its block (-1 when none), its
 * slot and idle_filler's answer. */
static int idle_to_pay(const ctx *c, const double *freq, double left, int cls, int kind, size_t *slot_at,
                       int *how)
{
    int best = -1;
    for (size_t k = 0; k < c->nb; k++) {
        if (freq[k] <= 0 || freq[k] > left * (1 + 1e-9) || (best >= 0 && freq[k] <= freq[best]))
            continue;
        for (size_t i = 0; i < c->b[k].nslots; i++) {
            int fk, fc = c->b[k].slots[i].filler ? token_class(c->b[k].slots[i].token, &fk) : -1;
            const int idle = fc == cls && fk == kind ? idle_filler(c, &c->b[k], i) : 0;
            if (idle) {
                best = (int)k;
                *slot_at = i;
                *how = idle;
                break;
            }
        }
    }
    return best;
}

/* What drop_fillers could not pay for in kind is paid in count: the
 * uncovered needs of one class and kind run U times in the clone at its
 * reduction, and idle fillers of that class and kind in any block
 * (idle_filler) are dropped, the most frequent first, while their
 * counts fit in what is left of U. The clone's totals and mix then stay
 * the original's where set-up has no filler of its own frequency
 * (histogram's thread base, made once per thread, paid by the clearing
 * loop's shift that runs twice). Never more than U: a clone short of the
 * original's count is as wrong as one over it. */
static mb_status pay_by_count(ctx *c)
{
    double *freq = expected_counts(c);
    if (!freq)
        return cx_nomem(c);
    /* the classes and kinds filler_for exchanges: ALU and conversions, of
     * integer, float and double kind */
    static const int classes[] = {MB_CLASS_ALU, MB_CLASS_CONV};
    mb_status st = MB_OK;
    for (size_t ci = 0; ci < sizeof classes / sizeof classes[0]; ci++)
        for (int kind = 0; kind < 3 && st == MB_OK; kind++) {
            size_t i;
            int how, k;
            for (double left = uncovered_count(c, freq, classes[ci], kind);
                 left > 0 && (k = idle_to_pay(c, freq, left, classes[ci], kind, &i, &how)) >= 0; left -= freq[k]) {
                slot *f = &c->b[k].slots[i];
                f->role = SLOT_DROPPED;
                c->m->dropped_fillers++;
                if (how == 2 && (st = rename_reads(c, f->dest, copied_input(f))) != MB_OK)
                    break;
            }
        }
    free(freq);
    return st;
}

/* ----------------------------------------------------------- the needs */

#define ADD(seq, op, ...)                                                                          \
    do {                                                                                           \
        const char *ops_ = cx_fmt(c, __VA_ARGS__);                                                 \
        if (!ops_ || cx_seq_add(c, (seq), (op), ops_) != MB_OK)                                    \
            return cx_nomem(c);                                                                    \
    } while (0)

static int log2u(uint32_t x)
{
    int l = 0;
    while ((1u << l) < x)
        l++;
    return l;
}

/* Pointer parameters, loaded once each: in the entry block, or in the block
 * that makes the parameter's global base (`gplace`) when that block has an
 * ld.u64 filler to spare, i.e. the original loaded a parameter there, as
 * compilers load one where it is first used. Such a load costs nothing and
 * spares the entry block's threads, all of them, one load (`deferred`). */
static mb_status load_params(ctx *c, need_seq *params, const int *gplace, unsigned char *deferred)
{
    size_t *spare = calloc(c->nb + 1, sizeof(size_t));
    if (!spare)
        return cx_nomem(c);
    for (size_t k = 1; k < c->nb; k++)
        for (size_t i = 0; i < c->b[k].nslots; i++)
            spare[k] += c->b[k].slots[i].role == SLOT_FILLER && !strcmp(c->b[k].slots[i].token, "ld.u64");
    for (size_t q = 0; q < c->p->nparams; q++)
        if (c->p->params[q].is_pointer) {
            c->r_pbase[q] = cx_reg(c, MB_REG_B64);
            const int g = gplace[q];
            deferred[q] = g > 0 && spare[g] > 0;
            if (deferred[q]) {
                spare[g]--;
                continue;
            }
            const char *ops = cx_fmt(c, "%s, [%s]", c->r_pbase[q], c->p->params[q].name);
            if (!ops || cx_seq_add(c, params, "ld.param.u64", ops) != MB_OK) {
                free(spare);
                return cx_nomem(c);
            }
        }
    free(spare);
    return MB_OK;
}

/* The global base of pointer parameter p, after its load where that was
 * deferred to this block (load_params). */
static mb_status global_base(ctx *c, need_seq *q, size_t p, const unsigned char *deferred)
{
    if (deferred[p])
        ADD(q, "ld.param.u64", "%s, [%s]", c->r_pbase[p], c->p->params[p].name);
    ADD(q, "cvta.to.global.u64", "%s, %s", c->r_gbase[p], c->r_pbase[p]);
    return MB_OK;
}

/* ---------------------------------------------- per-thread values, lazily
 * Each is computed once, on first use, in the sequence placed at the common
 * dominator of their users (step 1b of cx_assemble). */

/* Where values for the current block are made: outside every loop. */
static int val_block(ctx *c)
{
    return hoist(c, c->cur_block);
}

static void pro_add(ctx *c, const char *op, const char *operands)
{
    /* seqs[0] of every block is reserved for its per-thread values */
    need_seq *s = &c->b[c->cur_block].seqs[0];
    if (!operands || cx_seq_add(c, s, op, operands) != MB_OK)
        c->oom = 1;
}

/* A value made in a block that dominates the current one, or NULL: like a
 * compiler, values are computed where they are used and reused where a
 * dominating block computed them. */
/* Records that `block` uses value `key` (the pre-pass of cx_assemble). */
static void want(ctx *c, const char *key, int block)
{
    block = hoist(c, block);
    for (size_t i = 0; i < c->nwants; i++)
        if (!strcmp(c->wants[i].key, key)) {
            c->wants[i].block = lca(c, c->wants[i].block, block);
            return;
        }
    if (c->nwants < sizeof c->wants / sizeof c->wants[0]) {
        snprintf(c->wants[c->nwants].key, sizeof c->wants[c->nwants].key, "%s", key);
        c->wants[c->nwants++].block = block;
    }
}

/* A value made in a block that dominates the current one, or NULL. When it
 * is missing, the current block switches to where it should be made: the
 * common dominator of its users when that dominates the current block (one
 * computation for all), else the current block, hoisted out of loops. The
 * caller makes it and calls val_put, which switches back. */
static const char *val_find(ctx *c, const char *key)
{
    int at = val_block(c);
    for (size_t i = 0; i < c->nvals; i++)
        if (!strcmp(c->vals[i].key, key) && cx_dominates(c, c->vals[i].block, at))
            return c->vals[i].reg;
    int where = at;
    for (size_t i = 0; i < c->nwants; i++)
        if (!strcmp(c->wants[i].key, key) && cx_dominates(c, c->wants[i].block, at))
            where = c->wants[i].block;
    c->saved_block[c->nsaved < 16 ? c->nsaved : 15] = c->cur_block;
    c->nsaved++;
    c->cur_block = where;
    return NULL;
}

static const char *val_put(ctx *c, const char *key, const char *reg)
{
    if (c->nvals < sizeof c->vals / sizeof c->vals[0]) {
        snprintf(c->vals[c->nvals].key, sizeof c->vals[c->nvals].key, "%s", key);
        c->vals[c->nvals].block = c->cur_block;
        c->vals[c->nvals++].reg = reg;
    }
    if (c->nsaved > 0) {
        c->nsaved--;
        c->cur_block = c->saved_block[c->nsaved < 16 ? c->nsaved : 15];
    }
    return reg;
}

static uint32_t extent(const ctx *c, int d)
{
    return d < 3 ? c->m->block[d] : c->m->grid[d - 3];
}

/* A coordinate register, or "0" when its extent is 1. */
static const char *g_coord(ctx *c, int d)
{
    static const char *const sreg[6] = {"%tid.x", "%tid.y", "%tid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z"};
    if (extent(c, d) <= 1)
        return "0";
    char key[24];
    snprintf(key, sizeof key, "coord%d", d);
    const char *r = val_find(c, key);
    if (!r) {
        r = cx_reg(c, MB_REG_B32);
        pro_add(c, "mov.u32", cx_fmt(c, "%s, %s", r, sreg[d]));
        val_put(c, key, r);
    }
    return r;
}

/* thread index in the CTA (equation 2) and CTA index in the grid */
static const char *g_ltid(ctx *c)
{
    const char *r = val_find(c, "ltid");
    if (r)
        return r;
    r = g_coord(c, 0);
    if (extent(c, 1) > 1) {
        const char *n = cx_reg(c, MB_REG_B32);
        pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %u, %s", n, g_coord(c, 1), c->m->block[0], r));
        r = n;
    }
    if (extent(c, 2) > 1) {
        const char *n = cx_reg(c, MB_REG_B32);
        pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %u, %s", n, g_coord(c, 2),
                                        c->m->block[0] * c->m->block[1], r));
        r = n;
    }
    return val_put(c, "ltid", r);
}

static const char *g_cta(ctx *c)
{
    const char *r = val_find(c, "cta");
    if (r)
        return r;
    r = g_coord(c, 3);
    if (extent(c, 4) > 1) {
        const char *n = cx_reg(c, MB_REG_B32);
        pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %u, %s", n, g_coord(c, 4), c->m->grid[0], r));
        r = n;
    }
    if (extent(c, 5) > 1) {
        const char *n = cx_reg(c, MB_REG_B32);
        pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %u, %s", n, g_coord(c, 5),
                                        c->m->grid[0] * c->m->grid[1], r));
        r = n;
    }
    return val_put(c, "cta", r);
}

/* global thread index (equation 1) */
static const char *g_gtid(ctx *c)
{
    const char *r = val_find(c, "gtid");
    if (r)
        return r;
    const char *ltid = g_ltid(c), *cta = g_cta(c);
    if (!strcmp(cta, "0"))
        return val_put(c, "gtid", ltid); /* one CTA: a multiply-add by zero would be extra work */
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %u, %s", r, cta, c->tpc, ltid));
    return val_put(c, "gtid", r);
}

/* warp-major key gwarp * 32 + lane (the global index when CTAs are whole warps) */
static const char *g_kf(ctx *c)
{
    if (c->tpc % 32 == 0)
        return g_gtid(c);
    const char *r = val_find(c, "kf");
    if (r)
        return r;
    const char *ltid = g_ltid(c), *cta = g_cta(c);
    const char *w = cx_reg(c, MB_REG_B32), *lane = cx_reg(c, MB_REG_B32);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "shr.u32", cx_fmt(c, "%s, %s, 5", w, ltid));
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %u, %s", w, cta, c->wpc, w));
    pro_add(c, "and.b32", cx_fmt(c, "%s, %s, 31", lane, ltid));
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, 32, %s", r, w, lane));
    return val_put(c, "kf", r);
}

/* lane key kf & (P * 32 - 1) */
static const char *g_key(ctx *c, uint32_t period)
{
    if (!period)
        return g_gtid(c);
    char key[24];
    snprintf(key, sizeof key, "key%u", period);
    const char *r = val_find(c, key);
    if (r)
        return r;
    /* when CTAs hold whole periods, the thread index in the CTA has the same
     * bits, and when a CTA is one period it is the key */
    if (c->tpc == period * 32)
        return val_put(c, key, g_ltid(c));
    const char *kf = c->tpc % (period * 32) == 0 ? g_ltid(c) : g_kf(c);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "and.b32", cx_fmt(c, "%s, %s, %u", r, kf, period * 32 - 1));
    return val_put(c, key, r);
}

/* reversed branch keys (cx_rev_key, cx_rev_fine_key), compared unsigned */
static const char *g_rkey(ctx *c, int fine)
{
    const char *key = fine ? "rfkey" : "rkey";
    const char *r = val_find(c, key);
    if (r)
        return r;
    const char *x = !fine && c->tpc % 32 == 0 ? g_ltid(c) : g_kf(c);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "brev.b32", cx_fmt(c, "%s, %s", r, x));
    return val_put(c, key, r);
}

/* fine key: ties within the lane key broken by warp, for exact thresholds */
static const char *g_fkey(ctx *c, uint32_t period)
{
    if (!period)
        return g_gtid(c);
    char key[24];
    snprintf(key, sizeof key, "fkey%u", period);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const char *lk = g_key(c, period), *h;
    uint32_t warps = c->nthreads ? (c->kf[c->nthreads - 1] >> 5) + 1 : 1;
    if (c->tpc == period * 32) {
        h = g_cta(c); /* the period index kf / (32 P) is the CTA index */
    } else {
        const char *kf = g_kf(c);
        h = cx_reg(c, MB_REG_B32);
        pro_add(c, "shr.u32", cx_fmt(c, "%s, %s, %d", h, kf, 5 + log2u(period)));
    }
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %u, %s", r, lk, (warps + period - 1) / period, h));
    return val_put(c, key, r);
}

/* a halving threshold's starting value, in a register for shr */
static const char *g_halving(ctx *c, uint32_t threshold)
{
    char key[24];
    snprintf(key, sizeof key, "half%u", threshold);
    const char *r = val_find(c, key);
    if (r)
        return r;
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "mov.u32", cx_fmt(c, "%s, %u", r, threshold));
    return val_put(c, key, r);
}

static const char *g_phase(ctx *c, int loop);
static const char *key_register(ctx *c, const mb_clone_branch *br);

/* The counter bound of a halving branch in a spread loop (spread_limit_ok):
 * (clz(key) + m - 31) n, made once per thread. */
static const char *g_spread_limit(ctx *c, int block)
{
    const mb_clone_branch *br = &c->m->branches[c->b[block].branch];
    char key[24];
    snprintf(key, sizeof key, "slim%d", c->b[block].branch);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const mb_clone_loop *cl = &c->m->loops[br->loop];
    const char *k = key_register(c, br), *z = cx_reg(c, MB_REG_B32);
    r = cx_reg(c, MB_REG_B32);
    if (!k || !z || !r) {
        c->oom = 1;
        return val_put(c, key, r);
    }
    pro_add(c, "clz.b32", cx_fmt(c, "%s, %s", z, k));
    pro_add(c, "mad.lo.s32",
            cx_fmt(c, "%s, %s, %u, %lld", r, z, cl->trip[0], (long long)(log2u(br->threshold) - 31) * cl->trip[0]));
    return val_put(c, key, r);
}


/* CTA-relative key ltid * CTAs + cta */
static const char *g_ckey(ctx *c)
{
    const char *r = val_find(c, "ckey");
    if (r)
        return r;
    const char *ltid = g_ltid(c), *cta = g_cta(c);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %u, %s", r, ltid,
                                    c->m->grid[0] * c->m->grid[1] * c->m->grid[2], cta));
    return val_put(c, "ckey", r);
}

static const char *g_hash(ctx *c)
{
    const char *r = val_find(c, "hash");
    if (r)
        return r;
    const char *g = g_gtid(c);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "mul.lo.s32", cx_fmt(c, "%s, %s, " HASH_BASE_MULT_S32, r, g));
    return val_put(c, "hash", r);
}

/* global x or y index ctaid * scale + tid (scale: the CTA or tile size) */
static const char *g_gxy(ctx *c, int dim, int64_t scale)
{
    char key[40];
    snprintf(key, sizeof key, "g%d:%lld", dim, (long long)scale);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const char *cta = g_coord(c, 3 + dim), *tid = g_coord(c, dim);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %lld, %s", r, cta, (long long)scale, tid));
    return val_put(c, key, r);
}

/* Coefficient of each coordinate in the global thread index (equation 1). */
static int64_t gtid_coef(const ctx *c, int d)
{
    const uint32_t *bd = c->m->block, *gd = c->m->grid;
    switch (d) {
    case 0: return 1;
    case 1: return bd[0];
    case 2: return (int64_t)bd[0] * bd[1];
    case 3: return c->tpc;
    case 4: return (int64_t)c->tpc * gd[0];
    default: return (int64_t)c->tpc * gd[0] * gd[1];
    }
}

/* --------------------------------------------- the original's comparisons
 * A compared value is constant + thread terms + iteration terms: the
 * constant and thread terms are a per-thread value made once, outside
 * loops (as compilers hoist row = ctaid.y * 16 + tid.y); each iteration
 * term is one multiply-add where the comparison is. */

/* The thread coefficients of `a` (dimensions of extent 1 contribute nothing). */
static int thread_terms(const ctx *c, const mb_affine *a, int64_t coef[6])
{
    int any = 0;
    memset(coef, 0, 6 * sizeof(int64_t));
    for (size_t i = 0; i < a->nterms; i++) {
        int d;
        if (cx_var_dim(a->var[i], &d) && extent(c, d) > 1 && a->coef[i]) {
            coef[d] += a->coef[i];
            any = 1;
        }
    }
    return any;
}

/* The key of a thread part (constant 0) the clone makes anyway: a
 * coordinate, the global thread index, or ctaid * S + tid (32 bits). */
static int shared_key(const ctx *c, const int64_t coef[6], char *key, size_t size)
{
    int nz = 0, last = 0;
    for (int d = 0; d < 6; d++)
        if (coef[d]) {
            nz++;
            last = d;
        }
    if (nz == 1 && coef[last] == 1) {
        snprintf(key, size, "coord%d", last);
        return 1;
    }
    int linear = coef[0] == 1;
    for (int d = 1; d < 6 && linear; d++)
        linear = coef[d] == (extent(c, d) > 1 ? gtid_coef(c, d) : 0);
    if (linear) {
        snprintf(key, size, "gtid");
        return 1;
    }
    for (int d = 0; d < 3; d++)
        if (nz == 2 && coef[d] == 1 && coef[3 + d]) {
            snprintf(key, size, "g%d:%lld", d, (long long)coef[3 + d]);
            return 1;
        }
    return 0;
}

/* The register of a shared_key value. */
static const char *g_shared(ctx *c, const char *key)
{
    if (!strncmp(key, "coord", 5))
        return g_coord(c, key[5] - '0');
    if (!strcmp(key, "gtid"))
        return g_gtid(c);
    int d = key[1] - '0';
    return g_gxy(c, d, strtoll(key + 3, NULL, 10));
}

/* The key of the per-thread value holding the thread part of `a` (1), or 0
 * when the part is the constant alone (an immediate). */
static int tpart_key(ctx *c, const mb_affine *a, int is64, char *key, size_t size)
{
    int64_t coef[6];
    if (!thread_terms(c, a, coef))
        return 0;
    if (!is64 && a->constant == 0 && shared_key(c, coef, key, size))
        return 1;
    size_t i = 0;
    while (i < c->ntparts && (c->tparts[i].is64 != is64 || c->tparts[i].constant != a->constant ||
                              memcmp(c->tparts[i].coef, coef, sizeof(coef))))
        i++;
    if (i == c->ntparts) {
        if (i == sizeof c->tparts / sizeof c->tparts[0]) {
            /* a key no other value has: made where it is used, not shared */
            snprintf(key, size, "tpu%zu", c->nunshared++);
            return 1;
        }
        c->tparts[i].is64 = is64;
        c->tparts[i].constant = a->constant;
        memcpy(c->tparts[i].coef, coef, sizeof(coef));
        c->ntparts++;
    }
    snprintf(key, size, "tp%zu", i);
    return 1;
}

static const char *imm_text(ctx *c, int64_t v, int is64, int is_unsigned)
{
    if (is64)
        return is_unsigned ? cx_fmt(c, "%llu", (unsigned long long)v) : cx_fmt(c, "%lld", (long long)v);
    return is_unsigned ? cx_fmt(c, "%u", (uint32_t)v) : cx_fmt(c, "%d", (int32_t)(uint32_t)v);
}

static const char *g_tpart(ctx *c, const mb_affine *a, int is64, int is_unsigned);

/* Writes constant + sum coef[d] * coordinate d into r, in the current block's values. */
static void make_tpart(ctx *c, const char *r, const int64_t coef[6], int64_t constant, int is64)
{
    char base[40];
    if (!is64 && shared_key(c, coef, base, sizeof base)) {
        /* a value the clone has, plus the constant (as `i + 128` is compiled) */
        pro_add(c, "add.s32", cx_fmt(c, "%s, %s, %s", r, g_shared(c, base), imm_text(c, constant, 0, 0)));
        return;
    }
    if (!is64 && constant) {
        /* the same thread part without the constant, plus the constant: a
         * tile's later rows (`row + 8`) share the first row's value */
        static const char *const names[6] = {"tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z"};
        const char *var[6];
        int64_t k[6];
        size_t n = 0;
        for (int d = 0; d < 6; d++)
            if (coef[d]) {
                var[n] = names[d];
                k[n++] = coef[d];
            }
        mb_affine zero = {1, 0, n, var, k};
        const char *z = g_tpart(c, &zero, 0, 0);
        pro_add(c, "add.s32", cx_fmt(c, "%s, %s, %s", r, z, imm_text(c, constant, 0, 0)));
        return;
    }
    /* 32 bits: a coordinate of coefficient 1 is the first multiply-add's addend */
    int addend = -1;
    for (int d = 0; d < 6 && !is64 && addend < 0; d++)
        if (coef[d] == 1)
            addend = d;
    const char *acc = addend >= 0 ? g_coord(c, addend) : NULL;
    int first = 1;
    for (int d = 0; d < 6; d++) {
        if (!coef[d] || d == addend)
            continue;
        const char *x = g_coord(c, d);
        int32_t k = (int32_t)coef[d];
        if (is64)
            pro_add(c, first ? "mul.wide.s32" : "mad.wide.s32",
                    first ? cx_fmt(c, "%s, %s, %d", r, x, k) : cx_fmt(c, "%s, %s, %d, %s", r, x, k, r));
        else if (first && !acc)
            pro_add(c, "mul.lo.s32", cx_fmt(c, "%s, %s, %d", r, x, k));
        else
            pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %d, %s", r, x, k, first ? acc : r));
        first = 0;
    }
    if (constant)
        pro_add(c, is64 ? "add.s64" : "add.s32", cx_fmt(c, "%s, %s, %s", r, r, imm_text(c, constant, is64, 0)));
}

/* The thread part of `a`: a register, or the constant as an immediate. */
static const char *g_tpart(ctx *c, const mb_affine *a, int is64, int is_unsigned)
{
    char key[40];
    if (!tpart_key(c, a, is64, key, sizeof key))
        return imm_text(c, a->constant, is64, is_unsigned);
    if (strncmp(key, "tp", 2))
        return g_shared(c, key);
    const char *r = val_find(c, key);
    if (r)
        return r;
    int64_t coef[6];
    thread_terms(c, a, coef);
    r = cx_reg(c, is64 ? MB_REG_B64 : MB_REG_B32);
    make_tpart(c, r, coef, a->constant, is64);
    return val_put(c, key, r);
}

/* ctaid[cd] * scale + tid[td] as a thread part, shared with a comparison
 * of the same value where one was made */
static const char *g_cross(ctx *c, int td, int cd, int64_t scale)
{
    static const char *const names[6] = {"tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z"};
    const char *var[2] = {names[td], names[cd]};
    int64_t coef[2] = {1, scale};
    mb_affine a = {1, 0, 2, var, coef};
    return g_tpart(c, &a, 0, 0);
}

static int plan_block(const ctx *c, const memplan *pl)
{
    return cx_mem_block(c, pl->mem);
}

static size_t plan_slot(const ctx *c, const memplan *pl, int block)
{
    return c->f->mem[pl->mem].insn - c->f->blocks[block].first_insn;
}

/* Whether the original's chain of block k has opcode `op` before slot `at`. */
static int chain_has(const ctx *c, int k, size_t at, const char *op)
{
    for (size_t i = 0; i < at && i < c->f->blocks[k].nchain; i++)
        if (!strcmp(c->f->blocks[k].chain[i], op))
            return 1;
    return 0;
}

/* Whether the original formed the access's address in the access's own
 * block (an address add of its width before it): compilers keep such a
 * computation with its access instead of hoisting it above a branch. */
static int address_in_block(const ctx *c, const memplan *pl)
{
    const int k = plan_block(c, pl);
    return chain_has(c, k, plan_slot(c, pl, k), pl->is64 ? "add.s64" : "add.s32");
}

static int shares_loop_offset(const ctx *c, int l, int64_t coef, int is64);

/* Whether the innermost loop term of a 64-bit address is formed in its
 * block from the loop's counter (counter * coef + the outer part) instead of
 * an induction register: when the original multiplies an index there before
 * the access (a mul.wide), the clone's product and add take those places,
 * and the loop needs no register copied before it and advanced at its end.
 * 32-bit addresses keep their inductions: their product would be a mad in
 * a shift's place, which issues at half its rate (docs/results.md). */
static int loop_term_in_body(const ctx *c, const memplan *pl, int *loop)
{
    if ((pl->kind != PLAN_AFFINE && pl->kind != PLAN_WRAP) || pl->nloop_terms == 0 || !pl->is64)
        return 0;
    int l = pl->loop_term_loop[0];
    int64_t coef = pl->loop_term_coef[0];
    for (size_t k = 1; k < pl->nloop_terms; k++)
        if (c->f->loops[pl->loop_term_loop[k]].depth > c->f->loops[l].depth) {
            l = pl->loop_term_loop[k];
            coef = pl->loop_term_coef[k];
        }
    const int k = plan_block(c, pl);
    if (coef < INT32_MIN || coef > INT32_MAX || !c->in_loop[l][k] ||
        shares_loop_offset(c, l, coef, pl->is64))
        return 0;
    const size_t at = plan_slot(c, pl, k);
    /* (the chain names a mul.wide by its type: mul.s32) */
    if (!chain_has(c, k, at, "mul.s32") && !chain_has(c, k, at, "mul.u32"))
        return 0;
    *loop = l;
    return 1;
}

static const char *filler_choice(ctx *c, int block, const char *a, const char *b)
{
    const blk *bk = &c->b[block];
    for (size_t i = 0; i < bk->nslots; i++)
        if (bk->slots[i].role == SLOT_FILLER && !strcmp(bk->slots[i].token, b))
            return b;
    return a;
}

/* Thread offsets already computed in a block, by what they compute: accesses
 * with the same offset share one computation, as compiled code does. */
static const char *offset_find(const ctx *c, const char *key)
{
    for (size_t i = 0; i < c->noffsets; i++)
        if (!strcmp(c->offsets[i].key, key))
            return c->offsets[i].reg;
    return NULL;
}

static void offset_put(ctx *c, const char *key, const char *reg)
{
    if (c->noffsets < sizeof c->offsets / sizeof c->offsets[0]) {
        snprintf(c->offsets[c->noffsets].key, sizeof c->offsets[c->noffsets].key, "%s", key);
        c->offsets[c->noffsets++].reg = reg;
    }
}

/* The thread terms of an affine address as one register (NULL when none). */
static const char *thread_offset(ctx *c, need_seq *s, int block, const mb_sprof_mem *mm, int is64)
{
    static const char *const names[6] = {"tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z"};
    int64_t coef[6] = {0};
    for (size_t k = 0; k < mm->affine.nterms; k++)
        for (int d = 0; d < 6; d++)
            if (!strcmp(mm->affine.var[k], names[d]) && extent(c, d) > 1)
                coef[d] = mm->affine.coef[k];
    char key[256];
    snprintf(key, sizeof key, "%d:%d:%lld,%lld,%lld,%lld,%lld,%lld", block, is64, (long long)coef[0],
             (long long)coef[1], (long long)coef[2], (long long)coef[3], (long long)coef[4],
             (long long)coef[5]);
    const char *made = offset_find(c, key);
    if (made)
        return made;
    int any = 0, linear = 1;
    int64_t scale = 0;
    for (int d = 0; d < 6; d++) {
        if (extent(c, d) <= 1)
            continue;
        any |= coef[d] != 0;
        if (d == 0)
            scale = coef[0];
        else if (coef[d] != scale * gtid_coef(c, d))
            linear = 0;
    }
    if (!any)
        return NULL;
    /* the variables: the global index; or the global x and y indices
     * (ctaid * ntid + tid, as 2-D kernels compute them); or the coordinates */
    const char *var[6];
    int64_t k[6];
    int nv = 0;
    if (linear && scale != 0) {
        var[nv] = g_gtid(c);
        k[nv++] = scale;
    } else if (coef[2] == 0 && coef[5] == 0 && (coef[3] || coef[4]) &&
               (!coef[3] || (coef[0] && coef[3] % coef[0] == 0)) &&
               (!coef[4] || (coef[1] && coef[4] % coef[1] == 0))) {
        /* x and y indices with a tile scale: ctaid * (coef(ctaid) / coef(tid)) + tid */
        if (coef[0]) {
            var[nv] = coef[3] ? g_gxy(c, 0, coef[3] / coef[0]) : g_coord(c, 0);
            k[nv++] = coef[0];
        }
        if (coef[1]) {
            var[nv] = coef[4] ? g_gxy(c, 1, coef[4] / coef[1]) : g_coord(c, 1);
            k[nv++] = coef[1];
        }
    } else if (coef[2] == 0 && coef[5] == 0 && coef[0] && coef[1] && coef[3] && coef[4] &&
               coef[4] % coef[0] == 0 && coef[3] % coef[1] == 0) {
        /* a transposed index: tid.x pairs with ctaid.y and tid.y with ctaid.x
         * (a tiled transpose's out[x'][y']); the same values as the bounds
         * checks compare, which the original reuses for the address */
        var[nv] = g_cross(c, 0, 4, coef[4] / coef[0]);
        k[nv++] = coef[0];
        var[nv] = g_cross(c, 1, 3, coef[3] / coef[1]);
        k[nv++] = coef[1];
    } else {
        for (int d = 0; d < 6; d++)
            if (coef[d]) {
                var[nv] = g_coord(c, d);
                k[nv++] = coef[d];
            }
    }
    const char *reg = cx_reg(c, is64 ? MB_REG_B64 : MB_REG_B32);
    {
        /* factor out the coefficients' common divisor: a variable with the
         * divisor as its factor enters as the addend, the divisor as one
         * (widening) multiply */
        uint64_t ug = 0;
        for (int d = 0; d < nv; d++)
            ug = mb_gcd_u64(ug, k[d] < 0 ? (uint64_t)0 - (uint64_t)k[d] : (uint64_t)k[d]);
        int64_t g = (int64_t)ug;
        if (g <= 0)
            g = 1;
        const char *acc = NULL;
        int unit = -1;
        for (int d = 0; d < nv; d++)
            if (k[d] == g && unit < 0)
                unit = d;
        if (unit >= 0)
            acc = var[unit];
        for (int d = 0; d < nv; d++) {
            if (d == unit)
                continue;
            const char *r = cx_reg(c, MB_REG_B32);
            if (cx_seq_add(c, s, acc ? "mad.lo.s32" : "mul.lo.s32",
                           acc ? cx_fmt(c, "%s, %s, %lld, %s", r, var[d], (long long)(k[d] / g), acc)
                               : cx_fmt(c, "%s, %s, %lld", r, var[d], (long long)(k[d] / g))) != MB_OK)
                return NULL;
            acc = r;
        }
        int nonneg = 1;
        for (int d = 0; d < nv; d++)
            nonneg &= k[d] > 0;
        for (int d = 0; d < 6; d++)
            nonneg &= coef[d] >= 0;
        if (is64 && g == 1 && nonneg) {
            /* a non-negative index of unit scale (a byte array's) is
             * widened by a conversion, as compiled code does, not a
             * multiply by one */
            if (cx_seq_add(c, s, "cvt.u64.u32", cx_fmt(c, "%s, %s", reg, acc)) != MB_OK)
                return NULL;
        } else if (is64) {
            const char *op = filler_choice(c, block, "mul.wide.s32", "mul.u32");
            if (cx_seq_add(c, s, !strcmp(op, "mul.u32") ? "mul.wide.u32" : "mul.wide.s32",
                           cx_fmt(c, "%s, %s, %lld", reg, acc, (long long)g)) != MB_OK)
                return NULL;
        } else if (g != 1) {
            int lg = 0;
            while (lg < 31 && ((int64_t)1 << lg) < g)
                lg++;
            if (((int64_t)1 << lg) == g) {
                if (cx_seq_add(c, s, "shl.b32", cx_fmt(c, "%s, %s, %d", reg, acc, lg)) != MB_OK)
                    return NULL;
            } else if (cx_seq_add(c, s, "mul.lo.s32", cx_fmt(c, "%s, %s, %lld", reg, acc, (long long)g)) != MB_OK) {
                return NULL;
            }
        } else {
            reg = acc;
        }
    }
    offset_put(c, key, reg);
    return reg;
}

/* A distribution's values, clamped to [1, cap], with their cumulative
 * shares: at most four, later values merging into the fourth. Returns how
 * many (at least one). */
size_t cx_draw_values(const mb_hist *h, uint32_t cap, uint32_t val[4], double share[4])
{
    size_t n = 0;
    double total = (double)mb_hist_total(h), acc = 0;
    for (size_t i = 0; i < h->n; i++) {
        uint32_t v = h->key[i] < 1 ? 1 : h->key[i] > cap ? cap : (uint32_t)h->key[i];
        acc += total > 0 ? (double)h->count[i] / total : 1;
        if (n < 4) {
            val[n] = v;
            share[n++] = acc;
        } else {
            val[3] = v;
            share[3] = acc;
        }
    }
    if (n == 0) {
        val[0] = 1;
        share[0] = 1;
        n = 1;
    }
    return n;
}

/* The thread's warp in warp-major order. */
static const char *g_qwarp(ctx *c)
{
    const char *w = val_find(c, "qwarp");
    if (w)
        return w;
    const char *kf = g_kf(c);
    w = cx_reg(c, MB_REG_B32);
    pro_add(c, "shr.u32", cx_fmt(c, "%s, %s, 5", w, kf));
    return val_put(c, "qwarp", w);
}

/* The hashed warp index per-warp draws compare against (0 to 1023), the
 * constant `add` (clone_spread.c) added before the top bits are taken. */
static const char *warp_hash(ctx *c, uint32_t add)
{
    char key[24];
    snprintf(key, sizeof key, add ? "whash:%u" : "whash", add >> 26);
    const char *hw = val_find(c, key);
    if (hw)
        return hw;
    const char *w = g_qwarp(c); /* one warp index for every hash */
    hw = cx_reg(c, MB_REG_B32);
    if (add)
        pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, " HASH_BASE_MULT_S32 ", %d", hw, w, (int32_t)add));
    else
        pro_add(c, "mul.lo.s32", cx_fmt(c, "%s, %s, " HASH_BASE_MULT_S32, hw, w));
    pro_add(c, "shr.u32", cx_fmt(c, "%s, %s, 22", hw, hw));
    return val_put(c, key, hw);
}

/* The lane within a window of `win` lanes (a power of two below 32), once
 * per window. */
static const char *window_lane(ctx *c, uint32_t win)
{
    char key[24];
    snprintf(key, sizeof key, "lanew%u", win);
    const char *r = val_find(c, key);
    if (r)
        return r;
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "and.b32", cx_fmt(c, "%s, %s, %u", r, c->tpc % 32 == 0 ? g_ltid(c) : g_kf(c), win - 1));
    return val_put(c, key, r);
}

/* Each warp's pick among n values, by its hash `hw` against the cumulative
 * shares: an immediate when there is one value. */
static const char *warp_choice(ctx *c, const char *hw, const uint32_t *val, const double *share, size_t n)
{
    if (n == 1)
        return cx_fmt(c, "%u", val[0]);
    const char *v = cx_reg(c, MB_REG_B32);
    for (size_t i = 1; i < n; i++) {
        const char *p = cx_reg(c, MB_REG_PRED);
        pro_add(c, "setp.ge.u32", cx_fmt(c, "%s, %s, %u", p, hw, (unsigned)(share[i - 1] * 1024)));
        /* the first choice selects between two immediates: no move first */
        pro_add(c, "selp.b32", i == 1 ? cx_fmt(c, "%s, %u, %u, %s", v, val[1], val[0], p)
                                      : cx_fmt(c, "%s, %u, %s, %s", v, val[i], v, p));
    }
    return v;
}

/* Per-lane byte offset spreading a warp's lanes over S 32-byte sectors,
 * S drawn per warp from the distribution `h` (its hash plus `add`); the
 * lanes of a window of `win` lanes (0: the whole warp) span the S sectors,
 * so that partial warps touch S too, and over `words` words in each (a
 * power of two up to 8, 32 / words bytes apart; 0 or 1: the sector's first
 * word) (clone_spread.c). *smax gets the largest S. One register per
 * distribution and block; NULL when every lane reads one word (the offset
 * is zero). */
static const char *sector_spread(ctx *c, const mb_hist *h, uint32_t win, uint32_t add,
                                 uint32_t words, uint32_t *smax)
{
    const int lge = words > 1 ? log2u(words) : 0;
    uint32_t val[4];
    double share[4];
    size_t n = cx_draw_values(h, 32, val, share);
    *smax = 1;
    for (size_t i = 0; i < n; i++)
        if (val[i] > *smax)
            *smax = val[i];
    if (*smax == 1 && lge == 0)
        return NULL; /* every lane on one word: no offset */
    const int lgw = (int)cx_spread_window_log2(win);
    /* (values keep at most 44 characters: "sect" or "s", the window's log2
     * and the constant's top bits, the words' log2, and at most 32 for the
     * values) */
    char key[44];
    int len = win || add ? snprintf(key, sizeof key, "s%d.%u", lgw, add >> 26) : snprintf(key, sizeof key, "sect");
    if (lge)
        len += snprintf(key + len, sizeof key - (size_t)len, "w%d", lge);
    for (size_t i = 0; i < n && len < 36; i++)
        len += snprintf(key + len, sizeof key - (size_t)len, ":%u/%u", val[i], (unsigned)(share[i] * 1023));
    const char *r = val_find(c, key);
    if (r)
        return r;
    const char *lane = lgw < 5 ? window_lane(c, UINT32_C(1) << lgw) : g_key(c, 1);
    uint32_t wv[4];
    for (size_t i = 0; i < n; i++)
        wv[i] = val[i] << lge; /* the words over the window, S * E */
    const char *sv = warp_choice(c, n > 1 ? warp_hash(c, add) : NULL, wv, share, n);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "mul.lo.s32", cx_fmt(c, "%s, %s, %s", r, lane, sv));
    pro_add(c, "shr.u32", cx_fmt(c, "%s, %s, %d", r, r, lgw));
    pro_add(c, "shl.b32", cx_fmt(c, "%s, %s, %d", r, r, 5 - lge));
    return val_put(c, key, r);
}

/* lane `op` imm (the 8-lane group's lane or the group) of the lane key,
 * once per block */
static const char *lane_part(ctx *c, const char *lane, const char *key, const char *op, unsigned imm)
{
    const char *r = val_find(c, key);
    if (r)
        return r;
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, op, cx_fmt(c, "%s, %s, %u", r, lane, imm));
    return val_put(c, key, r);
}

/* Per-lane byte offset (b64) of a non-affine local access. Local memory is
 * interleaved by lane (as the profile counts it), so a request touches one
 * line per distinct word and one sector per distinct (word, 8-lane group).
 * The lanes use K words, K the profile's mean lines per request rounded:
 * every 8-lane group d consecutive words (d from the mean sectors per line),
 * successive groups shifted by s words, so that the union is d + 3s = K
 * words and the sectors 4d. The timing depends on the mean line and sector
 * counts, and one constant pattern, shared by every access using it, is as
 * cheap as the original's own address arithmetic. *span gets the bytes the
 * offsets can reach; NULL when every lane uses the same word. */
static const char *local_spread(ctx *c, const mb_sprof_mem *mm, uint64_t array_bytes, uint64_t *span)
{
    uint32_t w = mm->width * mm->vector < 4 ? 4 : mm->width * mm->vector;
    uint64_t words = array_bytes / w;
    uint32_t cap = words >= 32 ? 32 : words ? (uint32_t)words : 1;
    double lines = mb_hist_mean(&mm->lines), per_line = lines > 0 ? mb_hist_mean(&mm->sectors) / lines : 1;
    per_line = per_line < 1 ? 1 : per_line > 4 ? 4 : per_line;
    lines = lines < 1 ? 1 : lines > cap ? cap : lines;
    uint32_t k = (uint32_t)(lines + 0.5) > cap ? cap : (uint32_t)(lines + 0.5);
    uint32_t d = (uint32_t)(k * per_line / 4 + 0.5), lo = (k + 3) / 4, hi = k < 8 ? k : 8;
    d = d < lo ? lo : d > hi ? hi : d;
    uint32_t sh = (uint32_t)((k - d) / 3.0 + 0.5);
    sh = sh > d ? d : sh;
    while (sh > 0 && 3 * sh + d > words)
        sh--;
    *span = (uint64_t)(3 * sh + d) * w;
    if (3 * sh + d == 1)
        return NULL;
    char key[40];
    snprintf(key, sizeof key, "loc%u:%u,%u", w, d, sh);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const char *lane = g_key(c, 1);
    const char *in_group = lane_part(c, lane, "lane&7", "and.b32", 7);
    const char *group = lane_part(c, lane, "lane>>3", "shr.u32", 3);
    const char *word = cx_reg(c, MB_REG_B32);
    r = cx_reg(c, MB_REG_B64);
    pro_add(c, "mul.lo.s32", cx_fmt(c, "%s, %s, %u", word, in_group, d));
    pro_add(c, "shr.u32", cx_fmt(c, "%s, %s, 3", word, word));
    if (sh)
        pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %u, %s", word, group, sh, word));
    pro_add(c, "mul.wide.u32", cx_fmt(c, "%s, %s, %u", r, word, w));
    return val_put(c, key, r);
}

/* x = x / m in place, for x in [0, xmax] as u32, by the multiply-high of
 * mod_const (below) or a shift. */
static mb_status div_const(ctx *c, need_seq *s, const char *x, uint64_t xmax, uint64_t m)
{
    if (m <= 1)
        return MB_OK;
    if ((m & (m - 1)) == 0) {
        int k = 0;
        while ((UINT64_C(1) << k) < m)
            k++;
        ADD(s, "shr.u32", "%s, %s, %d", x, x, k);
        return MB_OK;
    }
    if (m > UINT32_MAX || xmax >= (UINT64_C(1) << 32) / m)
        return mb_error_set(c->err, MB_ERR_LIMIT, "", 0, 0,
                            "kernel %s: trip counts up to %llu cannot be divided by %llu in 32 bits",
                            c->p->kernel, (unsigned long long)xmax, (unsigned long long)m);
    ADD(s, "mul.hi.u32", "%s, %s, %llu", x, x, (unsigned long long)(((UINT64_C(1) << 32) + m - 1) / m));
    return MB_OK;
}

/* x = x mod m in place, for x in [0, xmax] as u32, without rem: integer
 * division is a long-latency, many-instruction emulation on GPUs, which the
 * original did not pay. A power of two is a mask; otherwise the quotient is
 * a multiply-high by ceil(2^k / m), exact when x * m < 2^k (k = 32 when the
 * range allows, else 64, which holds for every u32 x). */
static mb_status mod_const_from(ctx *c, need_seq *s, const char *x, const char *src, uint64_t xmax,
                                uint64_t m);

static mb_status mod_const(ctx *c, need_seq *s, const char *x, uint64_t xmax, uint64_t m)
{
    return mod_const_from(c, s, x, x, xmax, m);
}

/* x = src mod m, src in [0, xmax] (x itself when src is x): a value shared
 * by other users is reduced into x without a copy first. */
static mb_status mod_const_from(ctx *c, need_seq *s, const char *x, const char *src, uint64_t xmax,
                                uint64_t m)
{
    if (m == 0 || xmax < m) {
        if (strcmp(x, src))
            ADD(s, "mov.u32", "%s, %s", x, src);
        return MB_OK;
    }
    if ((m & (m - 1)) == 0) {
        ADD(s, "and.b32", "%s, %s, %llu", x, src, (unsigned long long)(m - 1));
        return MB_OK;
    }
    const char *q = cx_reg(c, MB_REG_B32);
    if (m <= UINT32_MAX && xmax < (UINT64_C(1) << 32) / m) {
        uint64_t mh = ((UINT64_C(1) << 32) + m - 1) / m;
        ADD(s, "mul.hi.u32", "%s, %s, %llu", q, src, (unsigned long long)mh);
    } else {
        const char *xd = cx_reg(c, MB_REG_B64), *qd = cx_reg(c, MB_REG_B64);
        uint64_t mh = UINT64_MAX / m + 1; /* ceil(2^64 / m) for m not a power of two */
        ADD(s, "cvt.u64.u32", "%s, %s", xd, src);
        ADD(s, "mul.hi.u64", "%s, %s, 0x%llx", qd, xd, (unsigned long long)mh);
        ADD(s, "cvt.u32.u64", "%s, %s", q, qd);
    }
    ADD(s, "mad.lo.s32", "%s, %s, %lld, %s", x, q, -(long long)m, src);
    return MB_OK;
}

/* An array's address, made once in the entry block, which dominates every
 * use: compiled code keeps the stack's or a shared array's address in one
 * register. */
static const char *array_address(ctx *c, int array, int is64)
{
    char key[40];
    snprintf(key, sizeof key, "array%d:%d", array, is64);
    int saved = c->cur_block;
    c->cur_block = 0;
    const char *r = val_find(c, key);
    if (!r) {
        r = cx_reg(c, is64 ? MB_REG_B64 : MB_REG_B32);
        pro_add(c, is64 ? "mov.u64" : "mov.u32", cx_fmt(c, "%s, %s", r, c->m->arrays[array].name));
        val_put(c, key, r);
    }
    c->cur_block = saved;
    return r;
}

/* ------------------------------------------------ per-request quotas
 * (PLAN_QUOTA, clone_quota.c): per thread the lane's rank and its two
 * words, the request position and the window shifts; per request one
 * comparison and one selection. */

static const char *g_lane_low(ctx *c)
{
    return lane_part(c, g_key(c, 1), "lane&7", "and.b32", 7);
}

static const char *g_lane_group(ctx *c)
{
    return lane_part(c, g_key(c, 1), "lane>>3", "shr.u32", 3);
}

/* rank 4 * (lane & 7) + 3 - (lane >> 3): round-robin over the 8-lane
 * groups, the first group last (clone_quota.c) */
static const char *g_qrank(ctx *c)
{
    const char *r = val_find(c, "qrank");
    if (r)
        return r;
    const char *p = g_lane_low(c), *g = g_lane_group(c);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "xor.b32", cx_fmt(c, "%s, %s, 3", r, g));
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, 4, %s", r, p, r));
    return val_put(c, "qrank", r);
}

/* The lane key of period 1 (the lane) read from %laneid: a move, where
 * g_key's `and` would add to the integer share */
static const char *g_laneid(ctx *c)
{
    const char *r = val_find(c, "key1");
    if (r)
        return r;
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "mov.u32", cx_fmt(c, "%s, %%laneid", r));
    return val_put(c, "key1", r);
}

/* The lane's index in the bank quotas' layout (c->qlayout): its own word
 * and its row of bank 0, one more than its rank; the lane, or the lane mod
 * 16 where both half-warps move alike. */
static const char *g_brow(ctx *c)
{
    if (c->qlayout == QLAYOUT_PILED)
        return g_laneid(c);
    return lane_part(c, g_laneid(c), "brow", "and.b32", 15);
}

/* The 32-bit shared address of a bank-conflict quota access's lane: its own
 * word (g_brow, on bank g_brow) or its word on bank 0, row g_brow. */
static const char *g_bword(ctx *c, int array, int pile)
{
    char key[40];
    snprintf(key, sizeof key, "bw%d:%d", array, pile);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const char *index = g_brow(c), *base = array_address(c, array, 0);
    r = cx_reg(c, MB_REG_B32);
    /* a row past the array only for lanes whose levels no quota reaches,
     * which never use it (clone_quota.c) */
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %d, %s", r, index, pile ? 128 : 4, base));
    return val_put(c, key, r);
}

/* The 32-bit local address of the lane's own word or of its group's common
 * word in `array` with `classes` word classes (cx_quota_word). */
static const char *g_qword(ctx *c, int array, int common, int classes)
{
    char key[40];
    snprintf(key, sizeof key, "qw%d:%d:%d", array, common, classes);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const char *lane = g_key(c, 1), *base = array_address(c, array, 0);
    r = cx_reg(c, MB_REG_B32);
    if (classes == 1 && common) { /* word 7 of every lane */
        pro_add(c, "add.s32", cx_fmt(c, "%s, %s, 28", r, base));
        return val_put(c, key, r);
    }
    if (classes == 1) {
        lane = g_lane_low(c);
    } else if (classes == 2 || classes == 3) {
        char wkey[24];
        snprintf(wkey, sizeof wkey, "qlane%d", classes);
        const char *w = val_find(c, wkey);
        if (!w) {
            w = cx_reg(c, MB_REG_B32);
            if (classes == 2) {
                pro_add(c, "and.b32", cx_fmt(c, "%s, %s, 15", w, lane));
            } else {
                pro_add(c, "add.s32", cx_fmt(c, "%s, %s, 16", w, g_lane_low(c)));
                pro_add(c, "min.u32", cx_fmt(c, "%s, %s, %s", w, w, lane));
            }
            val_put(c, wkey, w);
        }
        lane = w;
    }
    if (common) {
        const char *t = cx_reg(c, MB_REG_B32);
        pro_add(c, "or.b32", cx_fmt(c, "%s, %s, 7", t, lane));
        lane = t;
    }
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, 4, %s", r, lane, base));
    return val_put(c, key, r);
}

/* A counter position's lane threshold in iterations (quota_pos.counter):
 * the field of rank lane - 1 of the access's table, less the position of
 * the warp's first request, so that iteration J moves the lane while
 * J < the result (a field past the table reads 0: never). */
static const char *g_qgj(ctx *c, const memplan *pl)
{
    char key[24];
    snprintf(key, sizeof key, "qgj%d", pl->mem);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const quota_win *W = &c->qwin[pl->qwin];
    const quota_pos *P = &c->qpos[pl->qpos];
    /* the field of rank g_brow - 1 */
    const char *rank1 = g_brow(c), *w = g_qwarp(c);
    const char *start = cx_reg(c, MB_REG_B32), *g = cx_reg(c, MB_REG_B32);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %d, %d", start, rank1, W->bits, -W->bits));
    /* bfe reads the start's low byte: past it, the field past the table */
    if (W->bits * 30 > 255)
        pro_add(c, "min.u32", cx_fmt(c, "%s, %s, 64", start, start));
    if (pl->qimm >> 32 == 0) {
        /* the fields in the low word: a 32-bit extract, no conversion */
        pro_add(c, "bfe.u32", cx_fmt(c, "%s, 0x%08x, %s, %d", g, (uint32_t)pl->qimm, start, W->bits));
    } else {
        const char *f = cx_reg(c, MB_REG_B64);
        pro_add(c, "bfe.u64",
                  cx_fmt(c, "%s, 0x%016llx, %s, %d", f, (unsigned long long)pl->qimm, start, W->bits));
        pro_add(c, "cvt.u32.u64", cx_fmt(c, "%s, %s", g, f));
    }
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %d, %s", r, w, -(int32_t)P->span, g));
    return val_put(c, key, r);
}

/* Request positions (quota_pos): x in the top bits of a b64 register and
 * ones below, so that x reaches a threshold whatever fields lie below it; a
 * loop's in the top bits of a b32 register, compared with the thresholds'
 * top words (x reaches f exactly when x.ones >= f.fields below). */
static const char *g_qpos(ctx *c, int pos)
{
    char key[24];
    snprintf(key, sizeof key, "qpos%d", pos);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const quota_pos *P = &c->qpos[pos];
    const char *w = g_qwarp(c);
    int low = 32 - P->bits;
    uint32_t mul = P->mul << low, add = (P->add << low) | ((UINT32_C(1) << low) - 1);
    const char *t = cx_reg(c, MB_REG_B32);
    pro_add(c, "mad.lo.s32", cx_fmt(c, "%s, %s, %d, %d", t, w, (int32_t)mul, (int32_t)add));
    if (pos > 0)
        return val_put(c, key, t); /* compared in 32 bits (g_qthr) */
    r = cx_reg(c, MB_REG_B64);
    /* widened by a multiply: the original's own opcode here, and no conversion
     * (of which the blocks around have none to stand for it) */
    pro_add(c, "mul.wide.u32", cx_fmt(c, "%s, %s, 1", r, t));
    pro_add(c, "shl.b64", cx_fmt(c, "%s, %s, 32", r, r));
    pro_add(c, "or.b64", cx_fmt(c, "%s, %s, 4294967295", r, r));
    return val_put(c, key, r);
}

/* The shift bringing the thread's rank's field of window w's tables to the top. */
static const char *g_qshift(ctx *c, int w)
{
    char key[24];
    snprintf(key, sizeof key, "qsh%d", w);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const quota_win *W = &c->qwin[w];
    r = cx_reg(c, MB_REG_B32);
    if (W->bank) /* bank rank g_brow - 1: made in the same mad */
        pro_add(c, "mad.lo.s32",
                  cx_fmt(c, "%s, %s, %d, %d", r, g_brow(c), -W->bits, 64 + W->bits * (W->lo - W->level0)));
    else
        pro_add(c, "mad.lo.s32",
                  cx_fmt(c, "%s, %s, %d, %d", r, g_qrank(c), -W->bits, (int)cx_quota_shift(W, 0)));
    if (W->hi < 32 && !W->bank)
        pro_add(c, "max.s32", cx_fmt(c, "%s, %s, %d", r, r, 64 - W->bits * (W->hi - W->lo + 2)));
    return val_put(c, key, r);
}

/* The lane's threshold of access `pl` (its table's field at the top), made
 * once per thread for an access inside a loop: the top word, so that every
 * request compares in 32 bits as the original's do. */
static const char *g_qthr(ctx *c, const memplan *pl)
{
    char key[24];
    snprintf(key, sizeof key, "qthr%d", pl->mem);
    const char *r = val_find(c, key);
    if (r)
        return r;
    const char *sh = g_qshift(c, pl->qwin);
    const char *t = cx_reg(c, MB_REG_B64), *lo = cx_reg(c, MB_REG_B32);
    r = cx_reg(c, MB_REG_B32);
    pro_add(c, "shl.b64", cx_fmt(c, "%s, 0x%016llx, %s", t, (unsigned long long)pl->qimm, sh));
    pro_add(c, "mov.b64", cx_fmt(c, "{%s, %s}, %s", lo, r, t));
    return val_put(c, key, r);
}

/* The request's address: the lane's own word when its position reaches the
 * lane's threshold, else its group's common word. */
static mb_status quota_address(ctx *c, int block, memplan *pl)
{
    if (pl->qshare >= 0) {
        pl->qaddr = c->plans[pl->qshare].qaddr;
        return MB_OK;
    }
    c->cur_block = block;
    need_seq *q = cx_block_seq(c, block, plan_slot(c, pl, block));
    if (!q)
        return cx_nomem(c);
    const char *x = NULL, *own, *common;
    if (pl->qindex) {
        own = "128"; /* the lane's scale: row g_brow of bank 0, or word g_brow */
        common = "4";
    } else if (pl->qbank) {
        own = g_bword(c, pl->array, 1); /* selected below the threshold */
        common = g_bword(c, pl->array, 0);
    } else {
        own = g_qword(c, pl->array, 0, pl->qclasses);
        common = g_qword(c, pl->array, 1, pl->qclasses);
    }
    const char *thr, *cmp = pl->qbank ? "setp.lt.u64" : "setp.ge.u64";
    if (c->qpos[pl->qpos].counter) {
        thr = g_qgj(c, pl);
        x = c->r_iter[pl->qpos - 1];
        cmp = "setp.lt.s32";
    } else if (cx_block_loop(c, block) >= 0) {
        thr = g_qthr(c, pl);
        cmp = pl->qbank ? "setp.lt.u32" : "setp.ge.u32";
    } else {
        /* once per thread anyway: next to the access, as the original's address */
        const char *sh = g_qshift(c, pl->qwin);
        thr = cx_reg(c, MB_REG_B64);
        ADD(q, "shl.b64", "%s, 0x%016llx, %s", thr, (unsigned long long)pl->qimm, sh);
    }
    if (!x)
        x = g_qpos(c, pl->qpos);
    const char *p = cx_reg(c, MB_REG_PRED), *a = cx_reg(c, MB_REG_B32);
    ADD(q, cmp, "%s, %s, %s", p, x, thr);
    ADD(q, "selp.b32", "%s, %s, %s, %s", a, own, common, p);
    if (pl->qindex) {
        const char *lane = g_brow(c), *base = array_address(c, pl->array, 0);
        c->cur_block = block;
        ADD(q, "mad.lo.s32", "%s, %s, %s, %s", a, lane, a, base);
    }
    pl->qaddr = a;
    return c->oom ? cx_nomem(c) : MB_OK;
}

/* The slot after the last access of block k that reads loop l's counter
 * (quota_pos.counter, loop_term_in_body), SIZE_MAX when none does. */
static size_t counter_read(const ctx *c, int l, int k)
{
    size_t after = SIZE_MAX;
    for (size_t i = 0; i < c->f->nmem; i++) {
        const memplan *pl = &c->plans[i];
        int in_body = -1;
        if (((c->qpos && pl->kind == PLAN_QUOTA && pl->qpos == l + 1 && c->qpos[pl->qpos].counter) ||
             (pl->kind == PLAN_STEP && pl->sloop == l) || (loop_term_in_body(c, pl, &in_body) && in_body == l)) &&
            plan_block(c, pl) == k && (after == SIZE_MAX || plan_slot(c, pl, k) + 1 > after))
            after = plan_slot(c, pl, k) + 1;
    }
    return after;
}

/* The thread-constant part of an access's address, in block `block`. */
static mb_status thread_base(ctx *c, need_seq *s, memplan *pl, int block)
{
    c->cur_block = block;
    if (pl->kind == PLAN_QUOTA)
        return MB_OK; /* per request (quota_address) */
    if (pl->kind == PLAN_INDEX) {
        pl->tbase = array_address(c, pl->array, pl->is64); /* the index is added per access */
        return pl->tbase ? MB_OK : cx_nomem(c);
    }
    if (pl->kind == PLAN_STEP) {
        pl->tbase = array_address(c, pl->array, 0); /* the step is added per access */
        pl->sltid = g_ltid(c);
        return pl->tbase && pl->sltid && !c->oom ? MB_OK : cx_nomem(c);
    }
    const mb_sprof_mem *mm = &c->f->mem[pl->mem];
    const mb_clone_array *arr = pl->array >= 0 ? &c->m->arrays[pl->array] : NULL;
    const char *base;
    if (pl->param >= 0) {
        base = c->r_gbase[pl->param];
    } else if (!strcmp(arr->space, "shared")) {
        base = array_address(c, pl->array, 0);
        if (pl->kind == PLAN_AFFINE) {
            const char *off = thread_offset(c, s, block, mm, 0);
            if (!off) {
                pl->tbase = base;
                return MB_OK;
            }
            const char *a = cx_reg(c, MB_REG_B32);
            ADD(s, "add.s32", "%s, %s, %s", a, base, off);
            pl->tbase = a;
            return MB_OK;
        }
    } else {
        base = array_address(c, pl->array, 1);
    }
    if (pl->kind == PLAN_PATTERN && strcmp(mm->space, "shared") != 0) {
        /* the profiled sectors-per-request distribution: each warp draws its
         * sector count S (hashed warp index against the distribution's
         * cumulative shares) and its lanes spread over S sectors */
        uint32_t w = mm->width * mm->vector;
        if (w == 0)
            w = 4;
        if (!strcmp(mm->space, "local")) {
            /* per-thread memory: no warp has to move elsewhere */
            uint64_t span = 0;
            const char *off = local_spread(c, mm, arr->bytes, &span);
            uint64_t room = arr->bytes > span ? arr->bytes - span : 0;
            pl->offset = room >= w ? (int64_t)(((uint64_t)pl->mem * w) % (room / w * w)) : 0;
            pl->is64 = 1;
            pl->tbase = base;
            if (!off)
                return MB_OK;
            const char *r = cx_reg(c, MB_REG_B64);
            ADD(s, "add.s64", "%s, %s, %s", r, base, off);
            pl->tbase = r;
            return MB_OK;
        }
        uint32_t smax = 1;
        const char *off = sector_spread(c, &mm->sectors, pl->swin, pl->sadd, pl->swords, &smax);
        uint64_t span = (uint64_t)smax * 32;
        uint64_t region = pl->param >= 0 ? c->p->params[pl->param].buffer_bytes -
                                               c->p->params[pl->param].offset
                                         : arr->bytes;
        uint64_t slots = region / (span ? span : 32);
        if (mm->footprint_lines && mm->footprint_lines * 128 / (span ? span : 32) < slots)
            slots = mm->footprint_lines * 128 / (span ? span : 32);
        if (slots == 0)
            slots = 1;
        /* warps in their own spans, wrapped inside the footprint */
        char key[256];
        snprintf(key, sizeof key, "pattern:%d:%llu:%llu:%s", block, (unsigned long long)slots,
                 (unsigned long long)span, off ? off : "-");
        const char *o = offset_find(c, key), *r = cx_reg(c, MB_REG_B64);
        pl->offset = 0;
        pl->is64 = 1;
        if (!o && slots == 1 && !off) {
            pl->tbase = base; /* one span for every warp, every lane in one sector */
            return MB_OK;
        }
        if (!o) {
            const char *t = off;
            o = cx_reg(c, MB_REG_B64);
            if (slots > 1) {
                /* the warp index (one register for every user), reduced */
                uint64_t warps = (uint64_t)(c->nthreads / c->tpc) * c->wpc;
                const char *w = g_qwarp(c), *wm = w;
                if (warps - 1 >= slots) {
                    wm = cx_reg(c, MB_REG_B32);
                    if (mod_const_from(c, s, wm, w, warps ? warps - 1 : 0, slots) != MB_OK)
                        return c->err->status;
                }
                t = cx_reg(c, MB_REG_B32);
                if (off)
                    ADD(s, "mad.lo.s32", "%s, %s, %llu, %s", t, wm, (unsigned long long)span, off);
                else
                    ADD(s, "mul.lo.s32", "%s, %s, %llu", t, wm, (unsigned long long)span);
            }
            ADD(s, "cvt.u64.u32", "%s, %s", o, t);
            offset_put(c, key, o);
        }
        ADD(s, "add.s64", "%s, %s, %s", r, base, o);
        pl->tbase = r;
        return MB_OK;
    }
    if (pl->kind == PLAN_PATTERN) {
        const char *t = cx_reg(c, MB_REG_B32), *u = cx_reg(c, MB_REG_B32);
        uint32_t w = mm->width * mm->vector;
        uint64_t region = arr->bytes ? arr->bytes : c->p->dynamic_shared;
        if (!strcmp(mm->space, "shared")) {
            /* bank-conflict degree D: D lanes of a warp share a bank */
            double deg = mb_hist_mean(&mm->bank_conflicts);
            uint32_t dg = 1;
            while (dg * 2 <= deg + 0.5 && dg < 32)
                dg *= 2;
            uint32_t banks = 32 / dg;
            uint64_t units = region / (w < 4 ? 4 : w);
            /* accesses of the block with the same degree share one address */
            char key[160];
            snprintf(key, sizeof key, "bank:%d:%u:%llu:%u:%s", block, dg, (unsigned long long)units,
                     w, base);
            const char *same = offset_find(c, key);
            pl->offset = 0;
            pl->is64 = 0;
            if (same) {
                pl->tbase = same;
                return MB_OK;
            }
            /* the D lanes sharing a bank are neighbours (lane l: bank l / D,
             * word (l mod D) * 32 + l / D), so every half or quarter of the
             * warp holds the conflict too: GPGPU-Sim's configurations check a
             * warp's shared access in parts (conf1-conf4: half-warps on 16
             * banks), where lanes l and l + 16 never meet */
            const char *kf = g_kf(c);
            uint32_t lgd = (uint32_t)log2u(dg);
            ADD(s, "shr.u32", "%s, %s, %u", t, kf, lgd);
            ADD(s, "and.b32", "%s, %s, %u", t, t, banks - 1);
            ADD(s, "and.b32", "%s, %s, %u", u, kf, dg - 1);
            ADD(s, "mad.lo.s32", "%s, %s, 32, %s", t, u, t);
            if (mod_const(c, s, t, (uint64_t)(dg - 1) * 32 + banks - 1, units ? units : 1) != MB_OK)
                return c->err->status;
            ADD(s, "mad.lo.s32", "%s, %s, %u, %s", t, t, w < 4 ? 4 : w, base);
            offset_put(c, key, t);
            pl->tbase = t;
            return MB_OK;
        }
    }
    if (pl->kind == PLAN_WRAP) {
        /* (thread part + a) mod M in 32 bits, then widened */
        const char *off = thread_offset(c, s, block, mm, 0);
        const char *t = cx_reg(c, MB_REG_B32), *src = t;
        /* the largest value wrapped, when the thread terms bound it: a
         * multiply-high in 32 bits then divides, without 64-bit conversions
         * (nested_loops' clone converted three times per thread) */
        uint64_t xmax = pl->wrap_add >= 0 ? (uint64_t)pl->wrap_add : UINT32_MAX;
        for (size_t k = 0; k < mm->affine.nterms && xmax < UINT32_MAX; k++) {
            int d;
            if (cx_var_dim(mm->affine.var[k], &d) && extent(c, d) > 1)
                xmax = mm->affine.coef[k] < 0 || (uint64_t)mm->affine.coef[k] > UINT32_MAX
                           ? UINT32_MAX
                           : xmax + (uint64_t)mm->affine.coef[k] * (extent(c, d) - 1);
        }
        if (xmax > UINT32_MAX)
            xmax = UINT32_MAX;
        if (off && pl->wrap_add == 0)
            src = off; /* nothing to add: reduced straight into t */
        else if (off)
            ADD(s, "add.s32", "%s, %s, %lld", t, off, (long long)pl->wrap_add);
        else
            ADD(s, "mov.u32", "%s, %lld", t, (long long)pl->wrap_add);
        if (mod_const_from(c, s, t, src, xmax, pl->wrap) != MB_OK)
            return c->err->status;
        const char *o = cx_reg(c, MB_REG_B64), *a = cx_reg(c, MB_REG_B64);
        ADD(s, "cvt.u64.u32", "%s, %s", o, t);
        ADD(s, "add.s64", "%s, %s, %s", a, base, o);
        pl->tbase = a;
        return MB_OK;
    }
    /* affine: the thread terms' offset, shared by accesses with the same terms */
    const char *off = thread_offset(c, s, block, mm, pl->is64);
    if (!off) {
        pl->tbase = base;
        return c->err->status == MB_OK ? MB_OK : c->err->status;
    }
    const char *a = cx_reg(c, pl->is64 ? MB_REG_B64 : MB_REG_B32);
    ADD(s, pl->is64 ? "add.s64" : "add.s32", "%s, %s, %s", a, base, off);
    pl->tbase = a;
    return MB_OK;
}

static const char *space_of(const mb_sprof_mem *mm)
{
    return mm->space;
}

static const char *type_of_token(ctx *c, const char *tok)
{
    const char *dot = strrchr(tok, '.');
    return dot ? mb_arena_strdup(c->A, dot + 1) : "b32";
}

/* The induction register of `parent` advanced by `coef` per iteration of
 * loop l (made on first use; 5b resets and advances it). */
static const char *induction(ctx *c, const char *parent, int l, int64_t coef, int is64)
{
    for (size_t i = 0; i < c->ninductions; i++)
        if (c->inductions[i].parent == parent && c->inductions[i].loop == l &&
            c->inductions[i].coef == coef && c->inductions[i].is64 == is64 &&
            c->inductions[i].stride == 0)
            return c->inductions[i].reg;
    if (c->ninductions == sizeof c->inductions / sizeof c->inductions[0])
        return NULL;
    const char *r = cx_reg(c, is64 ? MB_REG_B64 : MB_REG_B32);
    c->inductions[c->ninductions].reg = r;
    c->inductions[c->ninductions].parent = parent;
    c->inductions[c->ninductions].loop = l;
    c->inductions[c->ninductions].coef = coef;
    c->inductions[c->ninductions].stride = 0;
    c->inductions[c->ninductions++].is64 = is64;
    return r;
}

/* Whether accesses with one loop term in loop l (coefficient coef) start
 * from more than one base: then, as compilers index them, one offset
 * register per loop and coefficient is advanced and each base adds it
 * before its accesses (in the original's own address additions, which
 * the block has for them), instead of one register per base, each reset
 * before the loop and advanced in it. */
static int shares_loop_offset(const ctx *c, int l, int64_t coef, int is64)
{
    const char *first = NULL;
    for (size_t i = 0; i < c->f->nmem; i++) {
        const memplan *o = &c->plans[i];
        if ((o->kind != PLAN_AFFINE && o->kind != PLAN_WRAP) || o->nloop_terms != 1 ||
            o->loop_term_loop[0] != l || o->loop_term_coef[0] != coef || o->is64 != is64)
            continue;
        if (!first)
            first = o->tbase;
        else if (strcmp(first, o->tbase) != 0)
            return 1;
    }
    return 0;
}

/* parent + offset, computed before slot `si` of `block` (once per block);
 * NULL past the table's size or, with c->oom set, out of memory. */
static const char *loop_sum(ctx *c, int block, size_t si, const char *parent, const char *offset,
                            int is64)
{
    for (size_t i = 0; i < c->nloop_sums; i++)
        if (c->loop_sums[i].block == block && c->loop_sums[i].parent == parent &&
            c->loop_sums[i].offset == offset)
            return c->loop_sums[i].reg;
    if (c->nloop_sums == sizeof c->loop_sums / sizeof c->loop_sums[0])
        return NULL;
    need_seq *q = cx_block_seq(c, block, si);
    const char *r = cx_reg(c, is64 ? MB_REG_B64 : MB_REG_B32);
    const char *ops = cx_fmt(c, "%s, %s, %s", r, parent, offset);
    if (!q || !ops || cx_seq_add(c, q, is64 ? "add.s64" : "add.s32", ops) != MB_OK) {
        c->oom = 1;
        return NULL;
    }
    c->loop_sums[c->nloop_sums].block = block;
    c->loop_sums[c->nloop_sums].parent = parent;
    c->loop_sums[c->nloop_sums].offset = offset;
    c->loop_sums[c->nloop_sums++].reg = r;
    return r;
}

/* parent + coef * (loop l's counter), a 64-bit address computed before
 * slot `si` of `block` (loop_term_in_body) as compilers index arrays: a wide
 * product and an add. NULL when out of memory. */
static const char *counter_term(ctx *c, int block, size_t si, const char *parent, int l,
                                int64_t coef)
{
    need_seq *q = cx_block_seq(c, block, si);
    const char *r = cx_reg(c, MB_REG_B64), *w = cx_reg(c, MB_REG_B64);
    const char *mul = w ? cx_fmt(c, "%s, %s, %lld", w, c->r_iter[l], (long long)coef) : NULL;
    const char *add = r && w ? cx_fmt(c, "%s, %s, %s", r, parent, w) : NULL;
    if (!q || !mul || !add || cx_seq_add(c, q, "mul.wide.s32", mul) != MB_OK ||
        cx_seq_add(c, q, "add.s64", add) != MB_OK)
        return NULL;
    return r;
}

/* `reg` of class `from` in class `to` (zero-extended or truncated), made
 * in q when they differ. */
static const char *convert_class(ctx *c, need_seq *q, const char *reg, int from, int to)
{
    static const char *const uname[MB_REG_CLASSES] = {[MB_REG_B16] = "u16", [MB_REG_B32] = "u32",
                                                      [MB_REG_B64] = "u64"};
    if (from == to)
        return reg;
    const char *r = cx_reg(c, to);
    const char *op = r ? cx_fmt(c, "cvt.%s.%s", uname[to], uname[from]) : NULL;
    const char *ops = op ? cx_fmt(c, "%s, %s", r, reg) : NULL;
    return ops && cx_seq_add(c, q, op, ops) == MB_OK ? r : NULL;
}

/* PLAN_INDEX: the array's start plus the original's steps applied to the
 * value its load of this block loaded, after that load. */
static mb_status index_address(ctx *c, int block, memplan *pl)
{
    if (pl->ixshare >= 0) {
        pl->ixaddr = c->plans[pl->ixshare].ixaddr;
        return MB_OK;
    }
    const memplan *lp = &c->plans[pl->ixload];
    const slot *ls = &c->b[block].slots[plan_slot(c, lp, block)];
    const mb_sprof_index *ix = &c->f->mem[pl->mem].index;
    if (!ls->dest || ls->dest_class < 0)
        return mb_error_set(c->err, MB_ERR_INVALID, "", 0, 0,
                            "kernel %s: the load indexing line %d has no register", c->p->kernel,
                            c->f->mem[pl->mem].line);
    need_seq *q = cx_block_seq(c, block, plan_slot(c, pl, block));
    if (!q)
        return cx_nomem(c);
    q->min_start = plan_slot(c, lp, block) + 1;
    const char *v = ls->dest;
    int cls = ls->dest_class;
    c->cur_block = block;
    for (size_t k = 0; k < ix->nops && v; k++) {
        index_step st;
        if (!cx_index_step(ix->ops[k].op, &st))
            return mb_error_set(c->err, MB_ERR_INVALID, "", 0, 0, "kernel %s: index step '%s'",
                                c->p->kernel, ix->ops[k].op);
        v = convert_class(c, q, v, cls, st.src_class);
        const char *r = cx_reg(c, st.dst_class);
        if (!v || !r)
            return cx_nomem(c);
        if (st.is_cvt)
            ADD(q, ix->ops[k].op, "%s, %s", r, v);
        else
            ADD(q, ix->ops[k].op, "%s, %s, %lld", r, v, (long long)ix->ops[k].imm);
        v = r;
        cls = st.dst_class;
    }
    const int acls = pl->is64 ? MB_REG_B64 : MB_REG_B32;
    v = v ? convert_class(c, q, v, cls, acls) : NULL;
    const char *a = cx_reg(c, acls);
    if (!v || !a)
        return cx_nomem(c);
    ADD(q, pl->is64 ? "add.s64" : "add.s32", "%s, %s, %s", a, pl->tbase, v);
    pl->ixaddr = a;
    return MB_OK;
}

/* Whether loop l is a tree loop (a halving branch or a step access reads
 * its counter) whose counter nothing else reads: no hashed, compared or
 * quota use, no address term, no inner trip. With `trip` > 0, also whether
 * its halving branches' key < T >> k equals key * 2^k < T at every
 * iteration k < trip. */
static int tree_counter(const ctx *c, int l, uint32_t trip)
{
    int tree = 0;
    for (size_t i = 0; i < c->f->nmem; i++) {
        const memplan *pl = &c->plans[i];
        int in_body = -1;
        if ((pl->kind == PLAN_QUOTA && c->qpos && pl->qpos == l + 1 && c->qpos[pl->qpos].counter) ||
            (loop_term_in_body(c, pl, &in_body) && in_body == l))
            return 0;
        tree |= pl->kind == PLAN_STEP && pl->sloop == l;
    }
    for (size_t j = 0; j < c->nloops; j++)
        if (c->m->loops[j].outer == l)
            return 0;
    for (size_t k = 0; k < c->nb; k++) {
        if (!c->b[k].cond)
            continue;
        const mb_clone_branch *br = &c->m->branches[c->b[k].branch];
        if (br->rule == MB_RULE_COMPARE && br->cond && br->cond->expr && cx_cond_reads_loop(br->cond->expr, l))
            return 0;
        if (br->loop != l || br->rule == MB_RULE_LOOP_BACK || br->rule == MB_RULE_LOOP_EXIT)
            continue;
        if (br->rule != MB_RULE_KEY || !br->halving)
            return 0;
        for (uint32_t t = 0; t < c->nthreads && trip; t++) {
            const uint64_t key = cx_branch_key(c, t, br);
            for (uint32_t it = 0; it < trip; it++)
                if ((key << it) >= UINT32_MAX || (key < cx_halved(br, it)) != ((key << it) < br->threshold))
                    return 0;
        }
        tree = 1;
    }
    return tree;
}

/* Whether loop l's counter may hold 2^iterations: a tree loop with a
 * constant trip of at most 30 and its own iterations (tree_counter with
 * the keys checked). Then the counter is the original's doubling step:
 * reset to 1, shifted left where an iteration ends, multiplied into the
 * key and the step addresses (the original's multiply on the branch's
 * path), compared with 2^trip. */
static int doubling_ok(const ctx *c, int l)
{
    const mb_clone_loop *cl = &c->m->loops[l];
    if (cx_trip_varies(cl) || cl->iter_stride > 1 || cl->outer >= 0 || (cl->ntrips && cl->trip[0] > 30))
        return 0;
    return tree_counter(c, l, cl->ntrips ? cl->trip[0] : 1);
}

/* Whether loop l's counter may hold j N + phase, j its finished iterations:
 * a tree loop whose n iterations spread over the original's N (iter_div,
 * set only for constant trips with n N - 1 within a signed 32-bit counter,
 * clone_sim.c spread_span). Then the counter starts at the CTA's phase,
 * advances by N and is compared with n N (j N + phase < n N exactly when
 * j < n, the phase being below N), and the original's index is the counter
 * / n: one multiply-high where the sampled index took a `mad` and another. */
static int spread_ok(const ctx *c, int l)
{
    const mb_clone_loop *cl = &c->m->loops[l];
    return cl->iter_div > 1 && cl->outer < 0 && tree_counter(c, l, 0);
}

/* Work (threads x counter values) the check of a spread limit may take. */
#define SPREAD_LIMIT_WORK 5e7

/* Whether loop l's halving branches, in a spread loop (spread_ok), may
 * compare its counter with a per-thread limit instead of shifting their
 * threshold: key < K >> (v / n) for K = 2^m holds for the first
 * m + 1 - bitlen(key) steps, so exactly when v < (clz(key) + m - 31) n
 * (signed; a key of K or more gives no step). Checked for every thread
 * and counter value v = j N + phase the clone runs. Then an iteration
 * costs a `setp` where it took a `div` and a `shr`, and the thread two
 * instructions once. */
static int spread_limit_ok(const ctx *c, int l)
{
    const mb_clone_loop *cl = &c->m->loops[l];
    const uint32_t n = cl->trip[0], N = cl->iter_stride;
    if ((double)c->nthreads * n * N > SPREAD_LIMIT_WORK)
        return 0;
    int any = 0;
    for (size_t k = 0; k < c->nb; k++) {
        if (!c->b[k].cond)
            continue;
        const mb_clone_branch *br = &c->m->branches[c->b[k].branch];
        if (br->loop != l || br->rule != MB_RULE_KEY || !br->halving)
            continue;
        const uint32_t K = br->threshold;
        if (K == 0 || (K & (K - 1)))
            return 0;
        const int m = log2u(K);
        for (uint32_t t = 0; t < c->nthreads; t++) {
            const uint64_t key = cx_branch_key(c, t, br);
            if (key > UINT32_MAX)
                return 0;
            const int clz = key ? __builtin_clz((uint32_t)key) : 32;
            const int64_t limit = (int64_t)(clz + m - 31) * n;
            for (uint64_t v = 0; v < (uint64_t)n * N; v++)
                if ((key < cx_halved(br, (uint32_t)(v / n))) != ((int64_t)v < limit))
                    return 0;
        }
        any = 1;
    }
    return any;
}

static mb_status plan_counters(ctx *c)
{
    c->doubling = mb_arena_alloc(c->A, c->nloops + 1);
    c->spread = mb_arena_alloc(c->A, c->nloops + 1);
    c->spread_limit = mb_arena_alloc(c->A, c->nloops + 1);
    if (!c->doubling || !c->spread || !c->spread_limit)
        return cx_nomem(c);
    for (size_t l = 0; l < c->nloops; l++) {
        c->doubling[l] = (unsigned char)doubling_ok(c, (int)l);
        c->spread[l] = (unsigned char)spread_ok(c, (int)l);
        c->spread_limit[l] = (unsigned char)(c->spread[l] && spread_limit_ok(c, (int)l));
    }
    return MB_OK;
}

/* Whether every thread runs loop l once per entry at the reduction (every
 * loop at the maximum): its counter then keeps its reset value, which is
 * what every reader of it in the body expects, so it is never advanced and
 * the loop's own branch is decided without it. The original's loop runs
 * its induction update once, not a counter's besides. */
static int runs_once(const ctx *c, int l)
{
    const mb_clone_loop *cl = &c->m->loops[l];
    return !cx_trip_varies(cl) && (cl->ntrips ? cl->trip[0] : 1) == 1 && l != c->arg_trip_loop;
}

static mb_status div_const(ctx *c, need_seq *s, const char *x, uint64_t xmax, uint64_t m);

/* r = the original's index loop l's iteration stands for (cx_sampled_iter):
 * counter * S + phase, divided by the clone's trip where the iterations
 * spread over all of the original's (iter_div). */
static mb_status sampled_index(ctx *c, need_seq *q, const char *r, int l, const char *phase)
{
    const mb_clone_loop *cl = &c->m->loops[l];
    const uint64_t top = (uint64_t)cl->iter_div * cl->iter_stride - 1;
    if (c->spread[l] && (cl->iter_div & (cl->iter_div - 1))) {
        /* a multiply-high by ceil(2^32 / n), exact over the counter's range
         * (spread_span): what ptxas makes of a division by a constant, where
         * a `div` would wait as a division does */
        ADD(q, "mul.hi.u32", "%s, %s, %llu", r, c->r_iter[l],
            (unsigned long long)(((UINT64_C(1) << 32) + cl->iter_div - 1) / cl->iter_div));
        return MB_OK;
    }
    if (c->spread[l]) { /* n a power of two */
        ADD(q, "shr.u32", "%s, %s, %d", r, c->r_iter[l], log2u(cl->iter_div));
        return MB_OK;
    }
    ADD(q, "mad.lo.s32", "%s, %s, %u, %s", r, c->r_iter[l], cl->iter_stride, phase);
    return div_const(c, q, r, top, cl->iter_div);
}

/* The loop counter advanced where an iteration ends. */
static mb_status advance_counter(ctx *c, need_seq *q, int l)
{
    if (runs_once(c, l))
        return MB_OK;
    if (c->doubling[l])
        ADD(q, "shl.b32", "%s, %s, 1", c->r_iter[l], c->r_iter[l]);
    else
        ADD(q, "add.s32", "%s, %s, %u", c->r_iter[l], c->r_iter[l], c->spread[l] ? c->m->loops[l].iter_stride : 1);
    return MB_OK;
}

/* PLAN_STEP: the array's start plus stride * (ltid << the loop's counter),
 * made before the access (the block's earlier step of the same loop and
 * stride made it already where there is one). */
static mb_status step_address(ctx *c, int block, memplan *pl)
{
    for (size_t j = 0; j < c->f->nmem; j++) {
        const memplan *o = &c->plans[j];
        if (o != pl && o->kind == PLAN_STEP && o->saddr && o->sloop == pl->sloop && o->sstride == pl->sstride &&
            o->array == pl->array && plan_block(c, o) == block) {
            pl->saddr = o->saddr;
            return MB_OK;
        }
    }
    need_seq *q = cx_block_seq(c, block, plan_slot(c, pl, block));
    const char *t = cx_reg(c, MB_REG_B32), *a = cx_reg(c, MB_REG_B32);
    if (!q || !t || !a)
        return cx_nomem(c);
    c->cur_block = block;
    const mb_clone_loop *l = &c->m->loops[pl->sloop];
    if (c->doubling[pl->sloop]) {
        ADD(q, "mul.lo.s32", "%s, %s, %s", t, pl->sltid, c->r_iter[pl->sloop]);
    } else if (l->iter_stride > 1) {
        /* the original's iteration the clone's stands for (cx_sampled_iter):
         * the phase itself where the counter stays 0 */
        const char *ph = g_phase(c, pl->sloop), *sh = runs_once(c, pl->sloop) ? ph : cx_reg(c, MB_REG_B32);
        if (!sh || !ph)
            return cx_nomem(c);
        mb_status st = sh != ph ? sampled_index(c, q, sh, pl->sloop, ph) : MB_OK;
        if (st != MB_OK)
            return st;
        ADD(q, "shl.b32", "%s, %s, %s", t, pl->sltid, sh);
    } else {
        ADD(q, "shl.b32", "%s, %s, %s", t, pl->sltid, c->r_iter[pl->sloop]);
    }
    ADD(q, "mad.lo.s32", "%s, %s, %u, %s", a, t, pl->sstride, pl->tbase);
    pl->saddr = a;
    return MB_OK;
}

/* The access itself, in its slot; loop terms added in the slot's sequence. */
static mb_status memory_slot(ctx *c, int block, memplan *pl)
{
    blk *b = &c->b[block];
    size_t si = plan_slot(c, pl, block);
    const mb_sprof_mem *mm = &c->f->mem[pl->mem];
    slot *s = &b->slots[si];
    const char *addr = pl->tbase;
    int64_t off = pl->offset;
    if ((pl->kind == PLAN_AFFINE || pl->kind == PLAN_WRAP) && pl->nloop_terms == 1 &&
        shares_loop_offset(c, pl->loop_term_loop[0], pl->loop_term_coef[0], pl->is64)) {
        const char *o = induction(c, "0", pl->loop_term_loop[0], pl->loop_term_coef[0], pl->is64);
        addr = o ? loop_sum(c, block, si, addr, o, pl->is64) : NULL;
        if (!addr)
            return c->oom ? cx_nomem(c)
                          : mb_error_set(c->err, MB_ERR_LIMIT, "", 0, 0,
                                         "kernel %s: more than %zu loop address terms",
                                         c->p->kernel, c->ninductions + c->nloop_sums);
    } else if ((pl->kind == PLAN_AFFINE || pl->kind == PLAN_WRAP) && pl->nloop_terms) {
        /* one induction register per enclosing loop with a term, outermost
         * first: reset from its parent before the loop, advanced at the header */
        int order[8];
        size_t n = pl->nloop_terms;
        for (size_t k = 0; k < n; k++)
            order[k] = (int)k;
        for (size_t k = 1; k < n; k++)
            for (size_t j = k; j > 0 && c->f->loops[pl->loop_term_loop[order[j]]].depth <
                                            c->f->loops[pl->loop_term_loop[order[j - 1]]].depth; j--) {
                int t = order[j];
                order[j] = order[j - 1];
                order[j - 1] = t;
            }
        int in_body = -1;
        const int last_in_body = loop_term_in_body(c, pl, &in_body) &&
                                 pl->loop_term_loop[order[n - 1]] == in_body;
        for (size_t k = 0; k < n; k++) {
            if (k + 1 == n && last_in_body) {
                addr = counter_term(c, block, si, addr, in_body, pl->loop_term_coef[order[k]]);
                if (!addr)
                    return cx_nomem(c);
                break;
            }
            const char *r = induction(c, addr, pl->loop_term_loop[order[k]],
                                      pl->loop_term_coef[order[k]], pl->is64);
            if (!r)
                return mb_error_set(c->err, MB_ERR_LIMIT, "", 0, 0,
                                    "kernel %s: more than %zu loop address terms", c->p->kernel,
                                    c->ninductions);
            addr = r;
        }
    }
    if (pl->kind == PLAN_QUOTA || pl->kind == PLAN_INDEX || pl->kind == PLAN_STEP) {
        /* an address made per access (the index keeps its offset) */
        mb_status st = pl->kind == PLAN_QUOTA   ? quota_address(c, block, pl)
                       : pl->kind == PLAN_INDEX ? index_address(c, block, pl)
                                                : step_address(c, block, pl);
        if (st != MB_OK)
            return st;
        addr = pl->kind == PLAN_QUOTA ? pl->qaddr : pl->kind == PLAN_INDEX ? pl->ixaddr : pl->saddr;
        off = pl->kind == PLAN_INDEX ? off : 0;
    }
    const char *ty = type_of_token(c, mm->op);
    int cls = cx_class_of_type(ty);
    if (cls < 0)
        cls = MB_REG_B32;
    const char *where = off ? cx_fmt(c, "[%s+%lld]", addr, (long long)off) : cx_fmt(c, "[%s]", addr);
    char op[16];
    snprintf(op, sizeof op, "%.*s", (int)strcspn(mm->op, "."), mm->op);
    const char *vec = mm->vector > 1 ? cx_fmt(c, ".v%u", mm->vector) : "";
    const char *val;
    s->nvals = 0;
    /* a narrow load the block reads as a word is loaded into one (nw's
     * sequence bytes, read by the add that indexes its table) */
    if (!strncmp(mm->op, "ld", 2) && mm->vector <= 1 && cls == MB_REG_B16 &&
        !cx_read_as(c, block, si, MB_REG_B16) && cx_read_as(c, block, si, MB_REG_B32))
        cls = MB_REG_B32;
    if (mm->vector > 1) {
        char buf[256] = "{";
        for (uint32_t v = 0; v < mm->vector && v < 8; v++) {
            const char *r = cx_reg(c, cls);
            strncat(buf, r, sizeof buf - strlen(buf) - 3);
            strcat(buf, v + 1 < mm->vector ? ", " : "}");
        }
        val = mb_arena_strdup(c->A, buf);
    } else {
        val = cx_reg(c, cls);
    }
    s->role = SLOT_MEM;
    s->dest_class = -1;
    if (!strcmp(op, "ld")) {
        s->op = cx_fmt(c, "ld.%s%s.%s", space_of(mm), vec, ty);
        s->operands = cx_fmt(c, "%s, %s", val, where);
        s->dest_class = mm->vector > 1 ? -1 : cls;
        s->dest = val;
    } else if (!strcmp(op, "st")) {
        s->op = cx_fmt(c, "st.%s%s.%s", space_of(mm), vec, ty);
        s->operands = cx_fmt(c, "%s, %s", where, val);
        s->val_before = cx_fmt(c, "%s, ", where);
        s->val_after = "";
        s->nvals = mm->vector > 1 ? mm->vector : 1;
    } else if (!strcmp(op, "atom") || !strcmp(op, "red")) {
        /* the profile does not record the atomic operation: add (exch for bit types) */
        const char *aop = ty[0] == 'b' ? "exch" : "add";
        if (!strcmp(op, "atom")) {
            s->op = cx_fmt(c, "atom.%s.%s.%s", space_of(mm), aop, ty);
            s->operands = cx_fmt(c, "%s, %s, %s", val, where, val);
            s->val_before = cx_fmt(c, "%s, %s, ", val, where);
            s->dest_class = cls;
            s->dest = val;
        } else {
            s->op = cx_fmt(c, "red.%s.%s.%s", space_of(mm), aop, ty);
            s->operands = cx_fmt(c, "%s, %s", where, val);
            s->val_before = cx_fmt(c, "%s, ", where);
        }
        s->val_after = "";
        s->nvals = mm->vector > 1 ? 0 : 1;
    } else {
        return mb_error_set(c->err, MB_ERR_UNSUPPORTED, "", 0, 0,
                            "kernel %s: memory instruction '%s' at line %d has no clone form",
                            c->p->kernel, mm->op, mm->line);
    }
    s->val_class = cls;
    return s->op && s->operands && (!s->nvals || (s->val_before && s->val_after)) ? MB_OK
                                                                                : cx_nomem(c);
}

/* Operand n (0: the destination) of `operands`, into buf. */
static int operand_at(const char *operands, size_t n, char *buf, size_t size)
{
    size_t len;
    const char *p = cx_operand(operands, n, &len);
    if (!p || !len || len >= size)
        return 0;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return 1;
}

/* `text` with its first "[reg" made "[repl" (NULL when reg is not there). */
static const char *swap_address(ctx *c, const char *text, const char *reg, const char *repl)
{
    const char *at = text ? strstr(text, cx_fmt(c, "[%s", reg)) : NULL;
    size_t len = strlen(reg);
    if (!at || (at[1 + len] != ']' && at[1 + len] != '+'))
        return NULL;
    return cx_fmt(c, "%.*s[%s%s", (int)(at - text), text, repl, at + 1 + len);
}

/* An access whose address the original computed in its block from earlier
 * values of the block (a table indexed by loaded data: nw's substitution
 * scores) waits for them, as the original's did: when the address's
 * recorded producer is an `add` filler whose own producer is a `mul` or
 * `shl` filler, the product becomes zero (its source times 0, or shifted
 * out) and the add the model's address plus that zero, which the access
 * then reads. The dependence chain is the original's, at no instruction's
 * cost. After the fillers, before the stored values are read. */
static mb_status address_dependences(ctx *c)
{
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        const mb_sprof_block *sb = &c->f->blocks[k];
        if (!sb->dep_start)
            continue;
        for (size_t i = 0; i < b->nslots && i < sb->nchain; i++) {
            slot *s = &b->slots[i];
            const char *lb = s->role == SLOT_MEM && s->operands ? strchr(s->operands, '[') : NULL;
            if (!lb)
                continue;
            size_t alen = strcspn(lb + 1, "+]");
            if (!is_vreg(lb + 1, alen) || alen >= 32)
                continue;
            char reg[32];
            memcpy(reg, lb + 1, alen);
            reg[alen] = '\0';
            const int cls = !strncmp(reg, "%rd", 3) ? MB_REG_B64 : MB_REG_B32;
            /* a store's value may come from an add too: only the address's producer */
            const int aq = s->nvals ? cx_address_dep(c, (int)k, i, s->nvals) : -1;
            if (s->nvals && aq < 0)
                continue;
            for (uint32_t q = sb->dep_start[i]; q < sb->dep_start[i + 1]; q++) {
                if (aq >= 0 && q - sb->dep_start[i] != (uint32_t)aq)
                    continue;
                const size_t j = i - sb->dep[q];
                slot *add = &b->slots[j];
                if (sb->dep[q] > i || !add->filler || !add->op || strncmp(add->op, "add.", 4) ||
                    add->dest_class != cls || !add->dest)
                    continue;
                slot *mul = NULL;
                for (uint32_t r = sb->dep_start[j]; r < sb->dep_start[j + 1] && !mul; r++) {
                    slot *m = &b->slots[j - sb->dep[r]];
                    if (sb->dep[r] <= j && m->filler && m->op && m->dest && m->dest_class == cls &&
                        (!strncmp(m->op, "mul.", 4) || !strncmp(m->op, "shl.", 4)))
                        mul = m;
                }
                int wb;
                size_t wp;
                char src[32];
                if (writers_of(c, reg, alen, &wb, &wp) < 1 || (wb == (int)k && wp > 2 * j))
                    continue;
                if (!mul) {
                    /* the address was the add's alone (a base plus an offset): the
                     * add becomes the model's address plus 0 */
                    const char *a_ops = cx_fmt(c, "%s, %s, 0", add->dest, reg);
                    const char *ops = swap_address(c, s->operands, reg, add->dest);
                    const char *before =
                        s->val_before ? swap_address(c, s->val_before, reg, add->dest) : NULL;
                    if (!a_ops || !ops || (s->val_before && !before))
                        return cx_nomem(c);
                    add->operands = a_ops;
                    add->filler = 0; /* another access must not take it again */
                    s->operands = ops;
                    if (s->val_before)
                        s->val_before = before;
                    break;
                }
                /* the source the product reads: a value of the block's if it has
                 * one, else the register it reads, never an immediate (the same
                 * chain met again by another access keeps its register) */
                char other[32];
                int has1 = operand_at(mul->operands, 1, src, sizeof src);
                int has2 = operand_at(mul->operands, 2, other, sizeof other);
                if (has2 && is_vreg(other, strlen(other)) && !(has1 && is_vreg(src, strlen(src))))
                    strcpy(src, other);
                else if (!has1 || src[0] != '%')
                    continue;
                const int shift = !strncmp(mul->op, "shl.", 4);
                const char *m_ops = cx_fmt(c, "%s, %s, %d", mul->dest, src,
                                           shift ? (cls == MB_REG_B64 ? 64 : 32) : 0);
                const char *a_ops = cx_fmt(c, "%s, %s, %s", add->dest, reg, mul->dest);
                const char *ops = swap_address(c, s->operands, reg, add->dest);
                const char *before = s->val_before ? swap_address(c, s->val_before, reg, add->dest) : NULL;
                if (!m_ops || !a_ops || !ops || (s->val_before && !before))
                    return cx_nomem(c);
                mul->operands = m_ops;
                add->operands = a_ops;
                s->operands = ops;
                if (s->val_before)
                    s->val_before = before;
                break;
            }
        }
    }
    return MB_OK;
}

/* A constant floating-point predicate in the place of the original's
 * comparison reads what that comparison read (a loaded value, say), so
 * that the branch waits for it as the original's did; x < -inf stays
 * never true and x >= -inf or unordered always, whatever x holds. After
 * the fillers, when every slot has its register. */
static mb_status compared_values(ctx *c)
{
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        for (size_t i = 0; i < b->nslots; i++) {
            slot *s = &b->slots[i];
            if (s->role != SLOT_ASSIGNED || !s->reads_compared)
                continue;
            const int is64 = strstr(s->op, ".f64") != NULL;
            const char *in = is64 ? "%fd_in" : "%f_in", *at = strstr(s->operands, in);
            const char *r = cx_value_producer(c, (int)k, i, is64 ? MB_REG_F64 : MB_REG_F32);
            if (!r || !at)
                continue;
            s->operands = cx_fmt(c, "%.*s%s%s", (int)(at - s->operands), s->operands, r, at + strlen(in));
            if (!s->operands)
                return cx_nomem(c);
        }
    }
    return MB_OK;
}

/* The values a store, red or atom writes: the original's producers in the
 * block (a loaded value stored, say), so that the access waits for them as
 * the original's did; registers nothing writes where the profile recorded
 * none. After the fillers, when every slot has its register. */
static mb_status memory_values(ctx *c)
{
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        for (size_t i = 0; i < b->nslots; i++) {
            slot *s = &b->slots[i];
            if (s->role != SLOT_MEM || !s->nvals)
                continue;
            char buf[256] = "";
            const int vec = s->nvals > 1;
            if (vec)
                strcat(buf, "{");
            cx_skip_address_producer(c, (int)k, i, s->nvals);
            for (uint32_t v = 0; v < s->nvals && v < 8; v++) {
                const char *r = cx_value_producer(c, (int)k, i, s->val_class);
                if (!r)
                    r = cx_reg(c, s->val_class);
                if (!r)
                    return cx_nomem(c);
                strncat(buf, r, sizeof buf - strlen(buf) - 3);
                if (vec)
                    strcat(buf, v + 1 < s->nvals ? ", " : "}");
            }
            s->operands = cx_fmt(c, "%s%s%s", s->val_before, buf, s->val_after);
            if (!s->operands)
                return cx_nomem(c);
        }
    }
    return MB_OK;
}

static const char *setp_type(const ctx *c, int block)
{
    const blk *b = &c->b[block];
    for (size_t i = b->nslots; i-- > 0;)
        if (!strncmp(b->slots[i].token, "setp.", 5)) {
            const char *t = b->slots[i].token + 5;
            if (!strcmp(t, "s32") || !strcmp(t, "u32"))
                return t;
            break;
        }
    return "u32";
}

/* "f32" or "f64" when the block's last `setp` compares floating-point
 * values, NULL otherwise. */
static const char *setp_float_type(const ctx *c, int block)
{
    const blk *b = &c->b[block];
    for (size_t i = b->nslots; i-- > 0;)
        if (!strncmp(b->slots[i].token, "setp.", 5)) {
            const char *t = b->slots[i].token + 5;
            return !strcmp(t, "f32") ? "f32" : !strcmp(t, "f64") ? "f64" : NULL;
        }
    return NULL;
}

/* Loop terms of a compared value, outermost loop first. */
static size_t loop_terms(const ctx *c, const mb_affine *a, int *loop, int64_t *coef)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nterms && n < 8; i++) {
        int l = cx_var_loop(a->var[i]);
        if (l < 0 || !a->coef[i])
            continue;
        size_t j = n++;
        for (; j > 0 && c->f->loops[loop[j - 1]].depth > c->f->loops[l].depth; j--) {
            loop[j] = loop[j - 1];
            coef[j] = coef[j - 1];
        }
        loop[j] = l;
        coef[j] = a->coef[i];
    }
    return n;
}

/* Whether a and b have the same terms (variables and coefficients). */
static int same_terms(const mb_affine *a, const mb_affine *b)
{
    for (int side = 0; side < 2; side++) {
        const mb_affine *x = side ? b : a, *y = side ? a : b;
        for (size_t i = 0; i < x->nterms; i++) {
            if (!x->coef[i])
                continue;
            size_t j = 0;
            while (j < y->nterms && (strcmp(y->var[j], x->var[i]) || y->coef[j] != x->coef[i]))
                j++;
            if (j == y->nterms)
                return 0;
        }
    }
    return 1;
}

/* The constants of the 32-bit compared values of `n` (in `block`) with
 * a's terms, appended to con/at (up to 64). */
static void group_constants(const mb_cond_node *n, const mb_affine *a, int block, int64_t *con,
                            int *at, size_t *count)
{
    if (n->op != MB_COND_CMP) {
        group_constants(n->args[0], a, block, con, at, count);
        if (n->op != MB_COND_NOT)
            group_constants(n->args[1], a, block, con, at, count);
        return;
    }
    if (cx_cmp_bits(n->type) == 64)
        return;
    for (int side = 0; side < 2 && *count < 64; side++) {
        const mb_affine *x = side ? &n->b : &n->a;
        if (same_terms(x, a)) {
            con[*count] = x->constant;
            at[(*count)++] = block;
        }
    }
}

/* The original's `add.s32` in block b: the chain, whatever the model
 * makes of its slots, so that every stage of the assembly decides alike. */
static size_t free_adds(const blk *b)
{
    size_t n = 0;
    for (size_t i = 0; i < b->nslots; i++)
        n += !strcmp(b->slots[i].token, "add.s32");
    return n;
}

/* The constant of the group of 32-bit compared values with a's loop and
 * thread terms that their shared inductions start from: of the constants,
 * the one whose adds cost the fewest executions beyond the original's
 * `add.s32` in the comparing blocks, the lowest on a tie. */
static int64_t base_constant(const ctx *c, const mb_affine *a)
{
    int at[64];
    int64_t con[64], low = a->constant;
    size_t n = 0;
    for (size_t k = 0; k < c->nb; k++) {
        const blk *bk = &c->b[k];
        if (bk->cond && c->m->branches[bk->branch].rule == MB_RULE_COMPARE)
            group_constants(c->m->branches[bk->branch].cond->expr, a, (int)k, con, at, &n);
    }
    double best = -1;
    for (size_t i = 0; i < n; i++) {
        /* per block, the adds it needs beyond its own `add.s32` run extra */
        double cost = 0;
        for (size_t j = 0; j < n; j++) {
            size_t need = 0, first = j;
            for (size_t m = 0; m < n; m++) {
                need += at[m] == at[j] && con[m] != con[i];
                first = at[m] == at[j] && m < first ? m : first;
            }
            size_t own = free_adds(&c->b[at[j]]);
            if (first == j && need > own)
                cost += (double)(need - own) * (double)c->f->blocks[at[j]].ecount;
        }
        if (best < 0 || cost < best || (cost == best && con[i] < low)) {
            best = cost;
            low = con[i];
        }
    }
    return low;
}

static int has_loop_terms(const ctx *c, const mb_affine *a)
{
    int loop[8];
    int64_t coef[8];
    return loop_terms(c, a, loop, coef) > 0;
}

/* Counts, in the order of the condition's tree, the compared values that
 * need an add to their base until `a`; *found once it is reached. */
static void adds_before(const ctx *c, const mb_cond_node *n, const mb_affine *a, size_t *count,
                        int *found)
{
    if (*found)
        return;
    if (n->op != MB_COND_CMP) {
        adds_before(c, n->args[0], a, count, found);
        if (n->op != MB_COND_NOT)
            adds_before(c, n->args[1], a, count, found);
        return;
    }
    if (cx_cmp_bits(n->type) == 64)
        return;
    for (int side = 0; side < 2 && !*found; side++) {
        const mb_affine *x = side ? &n->b : &n->a;
        if (!has_loop_terms(c, x) || base_constant(c, x) == x->constant)
            continue;
        (*count)++;
        *found = x == a;
    }
}

/* The value a 32-bit compared value with loop terms is made from: the same
 * terms with its group's base constant (base_constant), so that values
 * that differ by a constant (an unrolled loop's steps compare k - t,
 * k + 1 - t, ...) share their inductions and add the difference (*delta)
 * where they are compared, as the original does, instead of advancing one
 * induction each in every iteration. The add takes one of the original's
 * free `add.s32` in the comparing block; where the block has none left,
 * the value keeps an induction of its own (an add there would run as
 * often as the induction's advance, and cost an instruction the original
 * did not run). */
static mb_affine shared_base(const ctx *c, const mb_affine *a, int is64, int block, int64_t *delta)
{
    mb_affine base = *a;
    *delta = 0;
    if (is64 || !has_loop_terms(c, a) || block < 0 || !c->b[block].cond ||
        c->m->branches[c->b[block].branch].rule != MB_RULE_COMPARE)
        return base;
    int64_t low = base_constant(c, a);
    size_t count = 0;
    int found = 0;
    adds_before(c, c->m->branches[c->b[block].branch].cond->expr, a, &count, &found);
    if (low == a->constant || !found || count > free_adds(&c->b[block]))
        return base;
    base.constant = low;
    *delta = a->constant - low;
    return base;
}

/* A compared value: its thread part, advanced by the loops' iterations in
 * induction registers (reset before each loop, advanced where an iteration
 * ends, as compiled loops advance their indices). `make` creates the
 * inductions (before step 5b places their updates); without it a missing
 * one yields NULL. */
static const char *cond_operand(ctx *c, const mb_affine *a, int is64, int is_unsigned, int make)
{
    const char *v = g_tpart(c, a, is64, is_unsigned);
    int loop[8];
    int64_t coef[8];
    size_t n = loop_terms(c, a, loop, coef);
    /* the iteration itself (for k = 0; k < n; k++ compares k): the loop's
     * counter, reset and advanced where an induction would be, is that value */
    if (v && n == 1 && coef[0] == 1 && !is64 && !strcmp(v, "0") &&
        c->m->loops[loop[0]].iter_stride <= 1)
        return c->r_iter[loop[0]];
    for (size_t k = 0; k < n && v; k++) {
        const char *r = NULL;
        uint32_t stride = c->m->loops[loop[k]].iter_stride;
        for (size_t i = 0; i < c->ninductions && !r; i++)
            if (!strcmp(c->inductions[i].parent, v) && c->inductions[i].loop == loop[k] &&
                c->inductions[i].coef == coef[k] && c->inductions[i].is64 == is64 &&
                c->inductions[i].stride == stride)
                r = c->inductions[i].reg;
        if (!r && make && c->ninductions < sizeof c->inductions / sizeof c->inductions[0]) {
            r = cx_reg(c, is64 ? MB_REG_B64 : MB_REG_B32);
            c->inductions[c->ninductions].reg = r;
            c->inductions[c->ninductions].parent = v;
            c->inductions[c->ninductions].loop = loop[k];
            c->inductions[c->ninductions].coef = coef[k];
            c->inductions[c->ninductions].stride = stride;
            c->inductions[c->ninductions++].is64 = is64;
        }
        v = r;
    }
    return v;
}

/* Creates the inductions of every compared value of `n`. */
static mb_status cond_inductions(ctx *c, const mb_cond_node *n)
{
    if (n->op != MB_COND_CMP) {
        mb_status st = cond_inductions(c, n->args[0]);
        return st != MB_OK || n->op == MB_COND_NOT ? st : cond_inductions(c, n->args[1]);
    }
    int is64 = cx_cmp_bits(n->type) == 64;
    int64_t da, db;
    mb_affine a = shared_base(c, &n->a, is64, c->cur_block, &da),
              b = shared_base(c, &n->b, is64, c->cur_block, &db);
    if (!cond_operand(c, &a, is64, 0, 1) || !cond_operand(c, &b, is64, 0, 1))
        return mb_error_set(c->err, MB_ERR_LIMIT, "", 0, 0, "kernel %s: more than %zu loop terms",
                            c->p->kernel, c->ninductions);
    return MB_OK;
}

/* The predicate register holding node `n`'s value in `block`. A comparison
 * a dominating block already made (a predicate the original computed once
 * and tested again) is that block's register, as in the original. */
static mb_status cond_pred(ctx *c, need_seq *q, int block, const mb_cond_node *n, const char **out)
{
    if (n->op == MB_COND_CMP) {
        for (size_t i = 0; i < c->nleaves; i++)
            if (c->leaves[i].insn == n->insn && cx_dominates(c, c->leaves[i].block, block)) {
                *out = c->leaves[i].reg;
                return MB_OK;
            }
        int is64 = cx_cmp_bits(n->type) == 64;
        const char *type = cx_cmp_type(n->type), *cmp = n->cmp;
        int is_unsigned = type[0] != 's' || (cmp[0] == 'l' && (cmp[1] == 'o' || cmp[1] == 's')) ||
                          (cmp[0] == 'h' && (cmp[1] == 'i' || cmp[1] == 's'));
        int64_t coef[6];
        int a_imm = !thread_terms(c, &n->a, coef), b_imm = !thread_terms(c, &n->b, coef);
        for (size_t i = 0; i < n->a.nterms; i++)
            a_imm &= cx_var_loop(n->a.var[i]) < 0 || !n->a.coef[i];
        for (size_t i = 0; i < n->b.nterms; i++)
            b_imm &= cx_var_loop(n->b.var[i]) < 0 || !n->b.coef[i];
        const mb_affine *x = &n->a, *y = &n->b;
        if (a_imm && !b_imm) { /* setp's first operand is a register */
            x = &n->b;
            y = &n->a;
            cmp = cx_cmp_swapped(cmp);
        }
        int64_t dx, dy;
        mb_affine bx = shared_base(c, x, is64, block, &dx), by = shared_base(c, y, is64, block, &dy);
        const char *vx = cond_operand(c, &bx, is64, is_unsigned, 0);
        const char *vy = cond_operand(c, &by, is64, is_unsigned, 0);
        if (!vx || !vy)
            return mb_error_set(c->err, MB_ERR_LIMIT, "", 0, 0, "kernel %s: more than %zu loop terms",
                                c->p->kernel, c->ninductions);
        for (int side = 0; side < 2; side++) {
            const int64_t d = side ? dy : dx;
            if (!d)
                continue;
            const char *r = cx_reg(c, MB_REG_B32);
            ADD(q, "add.s32", "%s, %s, %d", r, side ? vy : vx, (int32_t)(uint32_t)d);
            *(side ? &vy : &vx) = r;
        }
        if (a_imm && b_imm) {
            const char *r = cx_reg(c, is64 ? MB_REG_B64 : MB_REG_B32);
            ADD(q, is64 ? "mov.b64" : "mov.b32", "%s, %s", r, vx);
            vx = r;
        }
        const char *dest = cx_reg(c, MB_REG_PRED);
        ADD(q, cx_fmt(c, "setp.%s.%s", cmp, type), "%s, %s, %s", dest, vx, vy);
        if (c->nleaves < sizeof c->leaves / sizeof c->leaves[0]) {
            c->leaves[c->nleaves].insn = n->insn;
            c->leaves[c->nleaves].block = block;
            c->leaves[c->nleaves++].reg = dest;
        }
        *out = dest;
        return MB_OK;
    }
    static const char *const ops[] = {"", "and.pred", "or.pred", "xor.pred", "not.pred"};
    const char *x = NULL, *y = NULL;
    mb_status st = cond_pred(c, q, block, n->args[0], &x);
    if (st == MB_OK && n->op != MB_COND_NOT)
        st = cond_pred(c, q, block, n->args[1], &y);
    if (st != MB_OK)
        return st;
    const char *dest = cx_reg(c, MB_REG_PRED);
    if (y)
        ADD(q, ops[n->op], "%s, %s, %s", dest, x, y);
    else
        ADD(q, ops[n->op], "%s, %s", dest, x);
    *out = dest;
    return MB_OK;
}

/* Makes the thread parts of every compared value of `n` (branch_values). */
static void cond_values(ctx *c, const mb_cond_node *n)
{
    if (n->op != MB_COND_CMP) {
        cond_values(c, n->args[0]);
        if (n->op != MB_COND_NOT)
            cond_values(c, n->args[1]);
        return;
    }
    int is64 = cx_cmp_bits(n->type) == 64;
    int64_t d;
    mb_affine a = shared_base(c, &n->a, is64, c->cur_block, &d),
              b = shared_base(c, &n->b, is64, c->cur_block, &d);
    g_tpart(c, &a, is64, 0);
    g_tpart(c, &b, is64, 0);
}

static void cond_wants(ctx *c, const mb_cond_node *n, int block)
{
    if (n->op != MB_COND_CMP) {
        cond_wants(c, n->args[0], block);
        if (n->op != MB_COND_NOT)
            cond_wants(c, n->args[1], block);
        return;
    }
    char key[40];
    int is64 = cx_cmp_bits(n->type) == 64;
    for (int side = 0; side < 2; side++) {
        int64_t coef[6], d;
        const mb_affine base = shared_base(c, side ? &n->b : &n->a, is64, block, &d), *a = &base;
        if (tpart_key(c, a, is64, key, sizeof key) <= 0)
            continue;
        want(c, key, block);
        /* its coordinates where it is made, so that nothing dominated makes them again */
        thread_terms(c, a, coef);
        for (int d = 0; d < 6; d++)
            if (coef[d]) {
                snprintf(key, sizeof key, "coord%d", d);
                want(c, key, block);
            }
    }
}

/* The key a KEY branch compares (cx_branch_key). */
static const char *key_register(ctx *c, const mb_clone_branch *br)
{
    return br->reversed       ? g_rkey(c, br->fine)
           : br->cta_relative ? g_ckey(c)
           : br->fine         ? g_fkey(c, br->lane_period)
                              : g_key(c, br->lane_period);
}

static mb_status branch_slot(ctx *c, int block)
{
    c->cur_block = block;
    blk *b = &c->b[block];
    size_t ti = term_slot(b);
    slot *s = &b->slots[ti];
    s->role = SLOT_TERM;
    s->dest_class = -1;
    if (b->term == TERM_RET) {
        s->op = mb_arena_strdup(c->A, b->slots[ti].token); /* the model outlives the profile */
        s->operands = "";
        return MB_OK;
    }
    if (!b->cond) {
        s->op = "bra.uni";
        s->operands = cx_fmt(c, "$Lc%d", b->taken);
        return MB_OK;
    }
    const mb_clone_branch *br = &c->m->branches[b->branch];
    need_seq *q = cx_block_seq(c, block, ti);
    if (!q)
        return cx_nomem(c);
    const char *p = cx_reg(c, MB_REG_PRED), *ty = setp_type(c, block);
    const char *guard = br->true_taken ? cx_fmt(c, "@%s", p) : cx_fmt(c, "@!%s", p);
    switch (br->rule) {
    case MB_RULE_CONST: {
        /* x < minimum is never true, x >= minimum always: any register will
         * do. Where the original compared floating-point values (a test all
         * threads pass on data), x < -inf is never true and x >= -inf or
         * unordered always, so that the predicate takes that `setp`'s slot
         * instead of running beside it */
        const char *fty = setp_float_type(c, block);
        if (fty) {
            const int f64 = !strcmp(fty, "f64");
            ADD(q, cx_fmt(c, "setp.%s.%s", br->const_taken ? "geu" : "lt", fty), "%s, %s, %s", p,
                f64 ? "%fd_in" : "%f_in", f64 ? "0dFFF0000000000000" : "0fFF800000");
            q->items[q->n - 1].reads_compared = 1;
        } else
            ADD(q, cx_fmt(c, "setp.%s.%s", br->const_taken ? "ge" : "lt", ty), "%s, %%r_in, %s", p,
                ty[0] == 's' ? "-2147483648" : "0");
        guard = cx_fmt(c, "@%s", p);
        break;
    }
    case MB_RULE_KEY: {
        const char *limit = cx_fmt(c, "%u", br->threshold);
        if (br->halving && c->doubling[br->loop]) {
            /* key * 2^k < threshold (doubling_ok) */
            const char *kk = cx_reg(c, MB_REG_B32);
            ADD(q, "mul.lo.s32", "%s, %s, %s", kk, key_register(c, br), c->r_iter[br->loop]);
            ADD(q, "setp.lt.u32", "%s, %s, %u", p, kk, br->threshold);
            break;
        }
        if (br->halving && c->spread_limit[br->loop]) {
            const char *bound = g_spread_limit(c, block);
            ADD(q, "setp.lt.s32", "%s, %s, %s", p, c->r_iter[br->loop], bound);
            break;
        }
        if (br->halving) {
            /* threshold >> the original's index (cx_branch_limit) */
            const mb_clone_loop *l = &c->m->loops[br->loop];
            const char *sh = c->r_iter[br->loop];
            if (l->iter_stride > 1 && runs_once(c, br->loop))
                sh = g_phase(c, br->loop);
            else if (l->iter_stride > 1) {
                sh = cx_reg(c, MB_REG_B32);
                mb_status st = sampled_index(c, q, sh, br->loop, g_phase(c, br->loop));
                if (st != MB_OK)
                    return st;
            }
            limit = cx_reg(c, MB_REG_B32);
            ADD(q, "shr.u32", "%s, %s, %s", limit, g_halving(c, br->threshold), sh);
        }
        ADD(q, cx_fmt(c, "setp.lt.%s", br->reversed || br->halving ? "u32" : ty), "%s, %s, %s", p,
            key_register(c, br), limit);
        break;
    }
    case MB_RULE_BOX: {
        /* outside the box, as compilers test bounds: x >= X or y >= Y, taken */
        const char *px = cx_reg(c, MB_REG_PRED), *py = cx_reg(c, MB_REG_PRED);
        ADD(q, cx_fmt(c, "setp.ge.%s", ty), "%s, %s, %u", px, g_gxy(c, 0, c->box_scale[0]), br->box_x);
        ADD(q, cx_fmt(c, "setp.ge.%s", ty), "%s, %s, %u", py, g_gxy(c, 1, c->box_scale[1]), br->box_y);
        ADD(q, "or.pred", "%s, %s, %s", p, px, py);
        guard = cx_fmt(c, "@%s", p);
        break;
    }
    case MB_RULE_HASH: {
        const char *h = cx_reg(c, MB_REG_B32);
        ADD(q, "mad.lo.s32", "%s, %s, %d, %s", h, c->r_iter[br->loop], (int32_t)br->hash_mult,
            g_hash(c));
        ADD(q, "setp.lt.u32", "%s, %s, %u", p, h, br->threshold);
        break;
    }
    case MB_RULE_COMPARE: {
        const char *r;
        if (cond_pred(c, q, block, br->cond->expr, &r) != MB_OK)
            return c->err->status;
        guard = br->true_taken ? cx_fmt(c, "@%s", r) : cx_fmt(c, "@!%s", r);
        break;
    }
    case MB_RULE_LOOP_BACK:
    case MB_RULE_LOOP_EXIT: {
        /* the counter holds finished iterations: the jump point (after the
         * count) goes back while iter < trip; an exit before it leaves once
         * iter >= trip - 1 (trip registers of such loops hold trip - 1) */
        const char *cmp = br->rule == MB_RULE_LOOP_BACK ? "lt" : "ge";
        const mb_clone_loop *l = &c->m->loops[br->loop];
        uint32_t adj = br->rule == MB_RULE_LOOP_EXIT;
        if (runs_once(c, br->loop)) {
            /* never back, always out (x < 0 unsigned is never true): x is an
             * induction this block advances, so that the branch waits for
             * the update as the original's waits for its induction's, else
             * the counter's reset */
            const char *x = c->r_iter[br->loop];
            int wide = 0;
            for (size_t i = 0; i < c->ninductions && c->latch[br->loop][block]; i++)
                if (c->inductions[i].loop == br->loop) {
                    x = c->inductions[i].reg;
                    wide = c->inductions[i].is64;
                }
            ADD(q, cx_fmt(c, "setp.%s.u%d", cmp, wide ? 64 : 32), "%s, %s, 0", p, x);
        } else if (c->doubling[br->loop])
            ADD(q, cx_fmt(c, "setp.%s.u32", cmp), "%s, %s, %u", p, c->r_iter[br->loop],
                1u << ((l->ntrips ? l->trip[0] : 1) - adj));
        else if (c->spread[br->loop])
            ADD(q, cx_fmt(c, "setp.%s.u32", cmp), "%s, %s, %u", p, c->r_iter[br->loop],
                (l->trip[0] - adj) * l->iter_stride);
        else if (cx_trip_varies(l))
            ADD(q, cx_fmt(c, "setp.%s.%s", cmp, ty), "%s, %s, %s", p, c->r_iter[br->loop],
                c->r_trip[br->loop]);
        else
            ADD(q, cx_fmt(c, "setp.%s.%s", cmp, ty), "%s, %s, %u", p, c->r_iter[br->loop],
                (l->ntrips ? l->trip[0] : 1) - adj);
        break;
    }
    }
    s->guard = guard;
    s->op = "bra";
    s->operands = cx_fmt(c, "$Lc%d", b->taken);
    return MB_OK;
}

int cx_trip_register(const ctx *c, int l)
{
    const mb_clone_loop *cl = &c->m->loops[l];
    return cx_trip_varies(cl) && cl->controller >= 0 && cl->outer < 0;
}

/* Writes loop cl's trip count (less adj) into r: thresholds on the key
 * (key_P of the thread, or the `key` register given) select a value. */
static mb_status make_trip(ctx *c, need_seq *s, const mb_clone_loop *cl, uint32_t adj, const char *r,
                           const char *key)
{
    if (cl->cycle) {
        const char *t = cx_reg(c, MB_REG_B32);
        const char *i = cl->cycle_in_cta ? g_ltid(c) : g_gtid(c);
        if (mod_const_from(c, s, t, i, c->nthreads ? c->nthreads - 1 : 0, cl->cycle) != MB_OK)
            return c->err->status;
        if (cl->cycle_bits) {
            /* the chosen trips, less adj, packed in an immediate: the
             * field at t * bits */
            uint32_t table = 0;
            for (uint32_t at = 0; at < cl->cycle; at++)
                table |= (mb_clone_cycle_trip(cl, at) - adj) << (at * cl->cycle_bits);
            if ((cl->cycle_bits & (cl->cycle_bits - 1)) == 0)
                ADD(s, "shl.b32", "%s, %s, %d", t, t, log2u(cl->cycle_bits));
            else
                ADD(s, "mul.lo.s32", "%s, %s, %u", t, t, cl->cycle_bits);
            ADD(s, "bfe.u32", "%s, 0x%08x, %s, %u", r, table, t, cl->cycle_bits);
            return MB_OK;
        }
        if (c->reduce_num <= 1) {
            ADD(s, "add.s32", "%s, %s, %u", r, t, cl->trip[0] - adj);
            return MB_OK;
        }
        ADD(s, "add.s32", "%s, %s, %u", t, t, cl->trip[0]);
        if (div_const(c, s, t, (uint64_t)cl->trip[0] + cl->cycle - 1, c->reduce_num) != MB_OK)
            return c->err->status;
        ADD(s, "max.u32", "%s, %s, 1", t, t);
        if (adj)
            ADD(s, "add.s32", "%s, %s, -1", r, t);
        else
            ADD(s, "mov.u32", "%s, %s", r, t);
        return MB_OK;
    }
    if (!key && (cl->span || cl->ntrips > 1 || cl->stairs))
        key = cl->reversed ? g_rkey(c, 0) : g_key(c, cl->lane_period);
    if (cl->span) {
        const char *t = cx_reg(c, MB_REG_B32);
        ADD(s, "mul.lo.s32", "%s, %s, %u", t, key, cl->span);
        ADD(s, "shr.u32", "%s, %s, %u", t, t, cl->shift);
        ADD(s, "add.s32", "%s, %s, %u", r, t, cl->trip[0] - adj);
        return MB_OK;
    }
    /* one step over a single trip: trip + 1 for keys below 2^shift, a
     * compare and a select (no shift, min and multiply-add) */
    if (cl->stairs == 1 && cl->ntrips <= 1 && cl->stair_shift < 32) {
        const char *p = cx_reg(c, MB_REG_PRED);
        ADD(s, "setp.lt.u32", "%s, %s, %u", p, key, 1u << cl->stair_shift);
        ADD(s, "selp.b32", "%s, %u, %u, %s", r, cl->trip[0] + 1 - adj, cl->trip[0] - adj, p);
        return MB_OK;
    }
    /* stairs add stairs - min(key >> shift, stairs): the values below carry the + stairs */
    const char *stair = NULL;
    if (cl->stairs) {
        stair = cx_reg(c, MB_REG_B32);
        if (cl->stair_shift) {
            ADD(s, "shr.u32", "%s, %s, %u", stair, key, cl->stair_shift);
            ADD(s, "min.u32", "%s, %s, %u", stair, stair, cl->stairs);
        } else {
            ADD(s, "min.u32", "%s, %s, %u", stair, key, cl->stairs);
        }
        adj -= cl->stairs;
    }
    if (cl->ntrips <= 1) {
        if (stair)
            ADD(s, "mad.lo.s32", "%s, %s, -1, %d", r, stair, (int32_t)(cl->trip[0] - adj));
        else
            ADD(s, "mov.u32", "%s, %u", r, cl->trip[0] - adj);
        return MB_OK;
    }
    /* the first choice selects between two immediates: no move first */
    for (size_t j = 1; j < cl->ntrips; j++) {
        const char *p = cx_reg(c, MB_REG_PRED);
        ADD(s, "setp.ge.u32", "%s, %s, %u", p, key, cl->trip_from[j]);
        if (j == 1)
            ADD(s, "selp.b32", "%s, %u, %u, %s", r, cl->trip[1] - adj, cl->trip[0] - adj, p);
        else
            ADD(s, "selp.b32", "%s, %u, %s, %s", r, cl->trip[j] - adj, r, p);
    }
    if (stair)
        ADD(s, "sub.s32", "%s, %s, %s", r, r, stair);
    return MB_OK;
}

/* Trip count register of loop l. */
static mb_status trip_value(ctx *c, need_seq *s, int l, int block)
{
    c->cur_block = block;
    const mb_clone_loop *cl = &c->m->loops[l];
    uint32_t adj = cl->controller >= 0 && c->b[cl->controller].cond &&
                   c->m->branches[c->b[cl->controller].branch].rule == MB_RULE_LOOP_EXIT;
    return make_trip(c, s, cl, adj, c->r_trip[l], cl->outer >= 0 ? c->r_iter[cl->outer] : NULL);
}

static void phase_key(const ctx *c, int loop, char *key, size_t size)
{
    const mb_clone_loop *l = &c->m->loops[loop];
    snprintf(key, size, "phase%u+%u", l->iter_stride, l->iter_phase);
}

/* The CTA's linear index mod 2: the phase a loop of stride 2 and offset 0
 * takes (the same value, under the same key as g_phase's). */
static const char *g_cta_parity(ctx *c)
{
    const char *r = val_find(c, "phase2+0");
    if (r)
        return r;
    r = cx_reg(c, MB_REG_B32);
    uint32_t ctas = c->m->grid[0] * c->m->grid[1] * c->m->grid[2];
    if (!r || mod_const_from(c, &c->b[c->cur_block].seqs[0], r, g_cta(c), ctas ? ctas - 1 : 0, 2) != MB_OK)
        c->oom = 1;
    return val_put(c, "phase2+0", r);
}

/* x = src mod m for the CTA phase: a `rem` where mod_const needs a
 * multiply by the reciprocal and a `mad`. The phase is set-up the original
 * has no instruction for, made once per thread, so each instruction shows
 * in the mix where the loop runs once (reduce_conflict at R = 8: three
 * integer instructions a thread were 3.5 points of the mix); ptxas turns
 * a remainder by a constant into the same multiply either way. */
static mb_status phase_mod(ctx *c, need_seq *s, const char *x, const char *src, uint64_t xmax, uint32_t m)
{
    if (m == 0 || xmax < m || (m & (m - 1)) == 0)
        return mod_const_from(c, s, x, src, xmax, m);
    ADD(s, "rem.u32", "%s, %s, %u", x, src, m);
    return MB_OK;
}

/* r = loop's phase for the CTA (cx_sampled_iter): the CTA's linear index
 * plus the loop's offset, mod the loop's stride. */
static mb_status make_phase(ctx *c, need_seq *s, const char *r, int loop)
{
    const mb_clone_loop *l = &c->m->loops[loop];
    uint32_t ctas = c->m->grid[0] * c->m->grid[1] * c->m->grid[2];
    if (l->iter_phase == 0)
        return phase_mod(c, s, r, g_cta(c), ctas ? ctas - 1 : 0, l->iter_stride);
    if (ctas <= 1) {
        ADD(s, "mov.u32", "%s, %u", r, l->iter_phase);
        return MB_OK;
    }
    if (l->iter_stride == 2) {
        /* the other phase of two flipped: one instruction where a loop of
         * phase 0 makes that one anyway (nested_loops' tile and load
         * loops at R = 8), two as before where none does */
        const char *even = g_cta_parity(c);
        if (!even)
            return cx_nomem(c);
        ADD(s, "xor.b32", "%s, %s, 1", r, even);
        return MB_OK;
    }
    const char *cta = g_cta(c);
    ADD(s, "add.s32", "%s, %s, %u", r, cta, l->iter_phase);
    return phase_mod(c, s, r, r, (uint64_t)ctas - 1 + l->iter_phase, l->iter_stride);
}

static const char *g_phase(ctx *c, int loop)
{
    char key[40];
    phase_key(c, loop, key, sizeof key);
    const char *r = val_find(c, key);
    if (r)
        return r;
    r = cx_reg(c, MB_REG_B32);
    if (make_phase(c, &c->b[c->cur_block].seqs[0], r, loop) != MB_OK)
        c->oom = 1;
    return val_put(c, key, r);
}

/* The kernel's slots storing the argument that carries the callee's trip count. */
static int is_trip_store(const ctx *c, const slot *s)
{
    return c->arg_trip && s->role == SLOT_PARAM && !strncmp(s->token, "st.", 3) &&
           s->parg == c->arg_trip_index;
}

/* The callee's trip count, made once per thread where the calls need it. */
static const char *g_callee_trip(ctx *c)
{
    const char *r = val_find(c, "ctrip");
    if (r)
        return r;
    r = cx_reg(c, MB_REG_B32);
    if (make_trip(c, &c->b[c->cur_block].seqs[0], c->arg_trip, c->arg_trip_adj, r, NULL) != MB_OK)
        c->oom = 1;
    return val_put(c, "ctrip", r);
}

/* The pre-pass: which blocks use which per-thread value (the same names
 * the getters use), so that each is made once at their common dominator. */
static void plan_wants(ctx *c, const int *share, const int *place)
{
    char key[40];
    for (size_t k = 0; k < c->nb; k++) {
        const blk *b = &c->b[k];
        if (!b->cond)
            continue;
        const mb_clone_branch *br = &c->m->branches[b->branch];
        if (br->rule == MB_RULE_KEY) {
            if (br->reversed)
                snprintf(key, sizeof key, "%s", br->fine ? "rfkey" : "rkey");
            else if (br->cta_relative)
                snprintf(key, sizeof key, "ckey");
            else if (!br->lane_period)
                snprintf(key, sizeof key, "gtid");
            else
                snprintf(key, sizeof key, br->fine ? "fkey%u" : "key%u", br->lane_period);
            want(c, key, (int)k);
            if (br->halving && c->spread_limit[br->loop]) {
                snprintf(key, sizeof key, "slim%d", b->branch);
                want(c, key, (int)k);
            } else if (br->halving && !c->doubling[br->loop]) {
                snprintf(key, sizeof key, "half%u", br->threshold);
                want(c, key, (int)k);
                if (c->m->loops[br->loop].iter_stride > 1) {
                    phase_key(c, br->loop, key, sizeof key);
                    want(c, key, (int)k);
                }
            }
        } else if (br->rule == MB_RULE_BOX) {
            snprintf(key, sizeof key, "g0:%u", c->box_scale[0]);
            want(c, key, (int)k);
            snprintf(key, sizeof key, "g1:%u", c->box_scale[1]);
            want(c, key, (int)k);
        } else if (br->rule == MB_RULE_HASH) {
            /* the hash's thread index too: made once where the accesses'
             * is (histogram's merge loop and data loop share it) */
            want(c, "hash", (int)k);
            want(c, "gtid", (int)k);
        } else if (br->rule == MB_RULE_COMPARE) {
            cond_wants(c, br->cond->expr, (int)k);
        }
    }
    for (size_t k = 0; k < c->nb; k++)
        for (size_t i = 0; i < c->b[k].nslots; i++)
            if (is_trip_store(c, &c->b[k].slots[i]))
                want(c, "ctrip", (int)k);
    for (size_t l = 0; l < c->nloops; l++) {
        const mb_clone_loop *cl = &c->m->loops[l];
        if (!cx_trip_register(c, (int)l) || (int)l == c->arg_trip_loop)
            continue;
        if (cl->reversed)
            snprintf(key, sizeof key, "rkey");
        else if (cl->lane_period)
            snprintf(key, sizeof key, "key%u", cl->lane_period);
        else
            snprintf(key, sizeof key, cl->cycle && cl->cycle_in_cta ? "ltid" : "gtid");
        want(c, key, hoist(c, c->b[c->f->loops[l].header].idom));
    }
    static const char *const names[6] = {"tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z"};
    for (size_t i = 0; i < c->f->nmem; i++) {
        if (share[i] != (int)i)
            continue;
        const mb_sprof_mem *mm = &c->f->mem[i];
        if (c->plans[i].kind == PLAN_PATTERN) {
            want(c, c->tpc % 32 == 0 ? "gtid" : "kf", place[i]);
            continue;
        }
        if (c->plans[i].kind == PLAN_STEP) {
            want(c, "ltid", place[i]);
            if (c->m->loops[c->plans[i].sloop].iter_stride > 1) {
                phase_key(c, c->plans[i].sloop, key, sizeof key);
                want(c, key, place[i]);
            }
            continue;
        }
        if (c->plans[i].kind == PLAN_QUOTA) {
            /* every per-thread value of the quota accesses in one place,
             * their common dominator: made once, and what they cost can
             * take the place of fillers in the blocks it reaches */
            int at = -1;
            for (size_t k = 0; k < c->f->nmem; k++)
                if (c->plans[k].kind == PLAN_QUOTA)
                    at = lca(c, at, place[k]);
            const memplan *pl = &c->plans[i];
            if (pl->qshare >= 0)
                continue;
            static const char *const lane_keys[] = {"key1", "lane&7", "lane>>3", "qrank", "qwarp"};
            static const char *const bank_keys[] = {"key1", "qwarp"};
            const char *const *keys = pl->qbank ? bank_keys : lane_keys;
            size_t nk = pl->qbank ? sizeof bank_keys / sizeof bank_keys[0] : sizeof lane_keys / sizeof lane_keys[0];
            for (size_t k = 0; k < nk; k++)
                want(c, keys[k], at);
            want(c, c->tpc % 32 == 0 ? "gtid" : "kf", at);
            for (int other = 0; other < 2 && !pl->qindex; other++) {
                if (pl->qbank)
                    snprintf(key, sizeof key, "bw%d:%d", pl->array, other);
                else
                    snprintf(key, sizeof key, "qw%d:%d:%d", pl->array, other, pl->qclasses);
                want(c, key, at);
            }
            if (!pl->qbank && (pl->qclasses == 2 || pl->qclasses == 3)) {
                snprintf(key, sizeof key, "qlane%d", pl->qclasses);
                want(c, key, at);
            }
            if (c->qpos[pl->qpos].counter) {
                snprintf(key, sizeof key, "qgj%d", pl->mem);
                want(c, key, at);
                continue;
            }
            snprintf(key, sizeof key, "qpos%d", pl->qpos);
            want(c, key, at);
            snprintf(key, sizeof key, "qsh%d", pl->qwin);
            want(c, key, at);
            snprintf(key, sizeof key, "qthr%d", pl->mem);
            want(c, key, at);
            continue;
        }
        int64_t coef[6] = {0};
        for (size_t t = 0; t < mm->affine.nterms; t++)
            for (int d = 0; d < 6; d++)
                if (!strcmp(mm->affine.var[t], names[d]) && extent(c, d) > 1)
                    coef[d] = mm->affine.coef[t];
        int any = 0, linear = 1;
        for (int d = 0; d < 6; d++) {
            if (extent(c, d) <= 1)
                continue;
            any |= coef[d] != 0;
            if (d > 0 && coef[d] != coef[0] * gtid_coef(c, d))
                linear = 0;
        }
        if (!any)
            continue;
        if (linear && coef[0]) {
            want(c, "gtid", place[i]);
        } else if (coef[2] == 0 && coef[5] == 0 && (coef[3] || coef[4]) &&
                   (!coef[3] || (coef[0] && coef[3] % coef[0] == 0)) &&
                   (!coef[4] || (coef[1] && coef[4] % coef[1] == 0))) {
            for (int d = 0; d < 2; d++)
                if (coef[d] && coef[3 + d]) {
                    snprintf(key, sizeof key, "g%d:%lld", d, (long long)(coef[3 + d] / coef[d]));
                    want(c, key, place[i]);
                }
        } else {
            for (int d = 0; d < 6; d++)
                if (coef[d]) {
                    snprintf(key, sizeof key, "coord%d", d);
                    want(c, key, place[i]);
                }
        }
    }
}

/* Makes the per-thread values block's branch condition reads. */
static void branch_values(ctx *c, int block)
{
    const blk *b = &c->b[block];
    if (!b->cond)
        return;
    const mb_clone_branch *br = &c->m->branches[b->branch];
    c->cur_block = block;
    switch (br->rule) {
    case MB_RULE_KEY:
        if (br->halving && c->spread_limit[br->loop]) {
            g_spread_limit(c, block);
        } else if (br->halving && !c->doubling[br->loop]) {
            g_halving(c, br->threshold);
            if (c->m->loops[br->loop].iter_stride > 1)
                g_phase(c, br->loop);
        }
        if (br->reversed)
            g_rkey(c, br->fine);
        else if (br->cta_relative)
            g_ckey(c);
        else if (br->fine)
            g_fkey(c, br->lane_period);
        else
            g_key(c, br->lane_period);
        break;
    case MB_RULE_BOX:
        g_gxy(c, 0, c->box_scale[0]);
        g_gxy(c, 1, c->box_scale[1]);
        break;
    case MB_RULE_HASH:
        g_hash(c);
        break;
    case MB_RULE_COMPARE:
        cond_values(c, br->cond->expr);
        break;
    default:
        break;
    }
}

mb_status cx_assemble(ctx *c)
{
    mb_status st = dominators(c);
    if (st != MB_OK)
        return st;
    size_t np = c->p->nparams, nl = c->nloops;
    c->r_pbase = mb_arena_alloc(c->A, (np + 1) * sizeof(char *));
    c->r_gbase = mb_arena_alloc(c->A, (np + 1) * sizeof(char *));
    c->r_iter = mb_arena_alloc(c->A, (nl + 1) * sizeof(char *));
    c->r_trip = mb_arena_alloc(c->A, (nl + 1) * sizeof(char *));
    if (!c->r_pbase || !c->r_gbase || !c->r_iter || !c->r_trip)
        return cx_nomem(c);
    /* memory slots first: their positions bound the sequences' deadlines */
    for (size_t i = 0; i < c->f->nmem; i++) {
        int blkno = plan_block(c, &c->plans[i]);
        c->b[blkno].slots[plan_slot(c, &c->plans[i], blkno)].role = SLOT_MEM;
    }
    for (size_t l = 0; l < nl; l++) {
        c->r_iter[l] = cx_reg(c, MB_REG_B32);
        if (cx_trip_varies(&c->m->loops[l]))
            c->r_trip[l] = cx_reg(c, MB_REG_B32);
    }
    if ((st = plan_counters(c)) != MB_OK)
        return st;
    /* a called function receives its trip count: the load of that argument is the register */
    for (size_t i = 0; c->arg_trip_loop >= 0 && i < c->b[0].nslots; i++) {
        slot *s = &c->b[0].slots[i];
        if (s->role == SLOT_PARAM && !strncmp(s->token, "ld.", 3) &&
            !strcmp(s->psym, c->p->params[c->arg_trip_index].name)) {
            if ((st = cx_call_form(c, s, s->token + 3, MB_REG_B32, NULL)) != MB_OK)
                return st;
            c->r_trip[c->arg_trip_loop] = s->dest;
            break;
        }
    }
    /* 1. every block's first sequence holds the per-thread values made for
     *    it (lazily, on first use); parameters are loaded in the entry block */
    for (size_t k = 0; k < c->nb; k++)
        if (!cx_block_seq(c, (int)k, first_mem_slot(&c->b[k])))
            return cx_nomem(c);
    if (!cx_block_seq(c, 0, first_mem_slot(&c->b[0])))
        return cx_nomem(c);
    const size_t param_seq = c->b[0].nseqs - 1; /* filled once the bases are placed */
    /* 2. where each thread base goes: the hoisted common dominator of its
     *    users; accesses with the same base and thread terms share one */
    int *place = malloc((c->f->nmem + 1) * sizeof(int)), *gplace = malloc((np + 1) * sizeof(int));
    int *share = malloc((c->f->nmem + 1) * sizeof(int));
    if (!place || !gplace || !share) {
        free(place);
        free(gplace);
        free(share);
        return cx_nomem(c);
    }
    for (size_t q = 0; q < np; q++)
        gplace[q] = -1;
    for (size_t i = 0; i < c->f->nmem; i++) {
        memplan *pl = &c->plans[i];
        share[i] = (int)i;
        for (size_t k = 0; k < i; k++) {
            const memplan *o = &c->plans[k];
            const mb_sprof_mem *a = &c->f->mem[i], *bm = &c->f->mem[k];
            if (share[k] != (int)k || o->kind != PLAN_AFFINE || pl->kind != PLAN_AFFINE ||
                o->param != pl->param || o->array != pl->array || o->is64 != pl->is64)
                continue;
            if (plan_block(c, o) != plan_block(c, pl) && address_in_block(c, o) &&
                address_in_block(c, pl) &&
                hoist(c, plan_block(c, o)) != hoist(c, plan_block(c, pl)) &&
                (hoist(c, plan_block(c, o)) == plan_block(c, o) ||
                 hoist(c, plan_block(c, pl)) == plan_block(c, pl)))
                continue; /* each computed where the original computed it (unless
                             both are hoisted out of their loops, where
                             computing it twice is pure overhead) */
            int same = 1;
            /* same thread terms (loop terms are added per access) */
            for (size_t t = 0; t < a->affine.nterms && same; t++) {
                if (!strncmp(a->affine.var[t], "iter.", 5))
                    continue;
                int found = 0;
                for (size_t u = 0; u < bm->affine.nterms; u++)
                    found |= !strcmp(a->affine.var[t], bm->affine.var[u]) &&
                             a->affine.coef[t] == bm->affine.coef[u];
                same = found;
            }
            for (size_t u = 0; u < bm->affine.nterms && same; u++) {
                if (!strncmp(bm->affine.var[u], "iter.", 5))
                    continue;
                int found = 0;
                for (size_t t = 0; t < a->affine.nterms; t++)
                    found |= !strcmp(a->affine.var[t], bm->affine.var[u]);
                same = found;
            }
            if (same) {
                share[i] = (int)k;
                break;
            }
        }
        place[i] = -1;
    }
    /* like a compiler: addresses computed in the block that uses them,
     * or before the outermost loop around it; a base several blocks share
     * is computed once, at their common dominator (as compilers hoist a
     * common address out of the branches that use it) */
    for (size_t i = 0; i < c->f->nmem; i++)
        place[i] = hoist(c, plan_block(c, &c->plans[i]));
    for (size_t i = 0; i < c->f->nmem; i++)
        if (share[i] != (int)i)
            place[share[i]] = hoist(c, lca(c, place[share[i]], place[i]));
    for (size_t i = 0; i < c->f->nmem; i++)
        if (share[i] != (int)i)
            place[i] = place[share[i]];
    for (size_t i = 0; i < c->f->nmem; i++)
        if (share[i] == (int)i) {
            const memplan *pl = &c->plans[i];
            if (pl->param >= 0)
                gplace[pl->param] = lca(c, gplace[pl->param], place[i]);
        }
    plan_wants(c, share, place);
    /* 3. per block: parameter bases, thread bases (by first use), trip counts */
    for (size_t p = 0; p < np; p++)
        if (c->p->params[p].is_pointer)
            c->r_gbase[p] = cx_reg(c, MB_REG_B64);
    unsigned char *made = calloc(np + 1, 1), *deferred = calloc(np + 1, 1);
    if (!deferred || (st = load_params(c, &c->b[0].seqs[param_seq], gplace, deferred)) != MB_OK) {
        free(made);
        free(deferred);
        free(place);
        free(gplace);
        free(share);
        return st != MB_OK ? st : cx_nomem(c);
    }
    size_t *order = malloc((c->f->nmem + 1) * sizeof(size_t));
    if (!made || !order)
        st = cx_nomem(c);
    /* in reverse post-order, so that a value a dominating block needs is made
     * there first and reused below it; the branch's values before the accesses' */
    int *rpo_order = malloc((c->nb + 1) * sizeof(int));
    size_t nrpo = 0;
    if (st == MB_OK && (!rpo_order || cx_rpo(c, rpo_order, &nrpo) != MB_OK))
        st = cx_nomem(c);
    unsigned char *visited = calloc(c->nb + 1, 1);
    if (st == MB_OK && !visited)
        st = cx_nomem(c);
    for (size_t i = 0; i < nrpo && st == MB_OK; i++)
        visited[rpo_order[i]] = 1;
    for (size_t k = 0; k < c->nb && st == MB_OK; k++)
        if (!visited[k])
            rpo_order[nrpo++] = (int)k; /* unreachable blocks last */
    free(visited);
    for (size_t ri = 0; ri < nrpo && st == MB_OK; ri++) {
        size_t k = (size_t)rpo_order[ri];
        blk *bk = &c->b[k];
        branch_values(c, (int)k);
        /* groups placed here, by the first slot that uses them in this block */
        size_t ng = 0;
        for (size_t i = 0; i < c->f->nmem; i++)
            if (share[i] == (int)i && place[i] == (int)k)
                order[ng++] = i;
        size_t *first = malloc((ng + 1) * sizeof(size_t));
        if (!first) {
            st = cx_nomem(c);
            break;
        }
        for (size_t g = 0; g < ng; g++) {
            first[g] = term_slot(bk);
            for (size_t i = 0; i < c->f->nmem; i++)
                if (share[i] == (int)order[g] && plan_block(c, &c->plans[i]) == (int)k &&
                    plan_slot(c, &c->plans[i], (int)k) < first[g])
                    first[g] = plan_slot(c, &c->plans[i], (int)k);
        }
        for (size_t g = 1; g < ng; g++)
            for (size_t h = g; h > 0 && first[h] < first[h - 1]; h--) {
                size_t t = first[h];
                first[h] = first[h - 1];
                first[h - 1] = t;
                t = order[h];
                order[h] = order[h - 1];
                order[h - 1] = t;
            }
        for (size_t g = 0; g < ng && st == MB_OK; g++) {
            memplan *pl = &c->plans[order[g]];
            need_seq *q = cx_block_seq(c, (int)k, first[g]);
            if (!q) {
                st = cx_nomem(c);
                break;
            }
            if (pl->param >= 0 && gplace[pl->param] == (int)k && !made[pl->param]) {
                made[pl->param] = 1;
                st = global_base(c, q, (size_t)pl->param, deferred);
            }
            if (st == MB_OK)
                st = thread_base(c, q, pl, (int)k);
        }
        free(first);
        need_seq *q = st == MB_OK ? cx_block_seq(c, (int)k, term_slot(bk)) : NULL;
        if (st == MB_OK && !q)
            st = cx_nomem(c);
        if (q) {
            /* parameter bases need only the parameter loads: any slot after
             * them, unless a load was deferred to this block */
            int loads_here = 0;
            for (size_t p = 0; p < np; p++)
                loads_here |= gplace[p] == (int)k && !made[p] && deferred[p];
            q->independent = 1;
            while (!loads_here && q->min_start < bk->nslots &&
                   !strncmp(bk->slots[q->min_start].token, "ld.", 3))
                q->min_start++;
        }
        for (size_t p = 0; p < np && st == MB_OK; p++)
            if (gplace[p] == (int)k && !made[p]) {
                made[p] = 1;
                st = global_base(c, q, p, deferred);
            }
        /* trip counts read the per-thread keys: after everything before them */
        need_seq *tq = st == MB_OK ? cx_block_seq(c, (int)k, term_slot(bk)) : NULL;
        if (st == MB_OK && !tq)
            st = cx_nomem(c);
        for (size_t l = 0; l < nl && st == MB_OK; l++) {
            if (!cx_trip_register(c, (int)l) || (int)l == c->arg_trip_loop)
                continue;
            if (hoist(c, c->b[c->f->loops[l].header].idom) == (int)k)
                st = trip_value(c, tq, (int)l, (int)k);
        }
    }
    free(made);
    free(deferred);
    free(order);
    free(rpo_order);
    for (size_t i = 0; i < c->f->nmem; i++)
        if (share[i] != (int)i) {
            c->plans[i].tbase = c->plans[share[i]].tbase;
        }
    free(place);
    free(gplace);
    free(share);
    if (st != MB_OK)
        return st;
    /* 4. loop counters: increment at the header, reset before entering */
    for (size_t l = 0; l < nl; l++) {
        /* counted where an iteration ends, like compiled loops' counters */
        for (size_t k = 0; k < c->nb; k++) {
            if (!c->latch[l][k] || counter_read(c, (int)l, (int)k) != SIZE_MAX)
                continue; /* after the accesses, below */
            need_seq *q = cx_block_seq(c, (int)k, term_slot(&c->b[k]));
            if (!q)
                return cx_nomem(c);
            q->independent = 1;
            if ((st = advance_counter(c, q, (int)l)) != MB_OK)
                return st;
        }
    }
    /* 5. accesses (in slot order) */
    for (size_t k = 0; k < c->nb; k++)
        for (size_t i = 0; i < c->f->nmem; i++)
            if (plan_block(c, &c->plans[i]) == (int)k && (st = memory_slot(c, (int)k, &c->plans[i])) != MB_OK)
                return st;
    /* 5a. the compared values' inductions, whose updates 5b places too */
    for (size_t k = 0; k < c->nb; k++) {
        const blk *bk = &c->b[k];
        if (!bk->cond || c->m->branches[bk->branch].rule != MB_RULE_COMPARE)
            continue;
        c->cur_block = (int)k;
        if ((st = cond_inductions(c, c->m->branches[bk->branch].cond->expr)) != MB_OK)
            return st;
    }
    /* 5b. induction registers: reset in every block entering the loop, advanced at its header */
    for (size_t i = 0; i < c->ninductions; i++) {
        int l = c->inductions[i].loop, h = c->f->loops[l].header, w = c->inductions[i].is64;
        /* advanced where an iteration ends (each block with a back edge to the
         * header), like the pointer increments of compiled loops */
        for (size_t e = 0; e < c->f->nedges; e++) {
            const mb_sprof_edge *ed = &c->f->edges[e];
            if (ed->to != h || !ed->back || !c->in_loop[l][ed->from])
                continue;
            need_seq *a = cx_block_seq(c, ed->from, term_slot(&c->b[ed->from]));
            if (!a)
                return cx_nomem(c);
            a->independent = 1;
            /* after every access of the block, which read the old value */
            for (size_t k = 0; k < c->b[ed->from].nslots; k++)
                if (c->b[ed->from].slots[k].role == SLOT_MEM)
                    a->min_start = k + 1;
            uint32_t stride = c->inductions[i].stride ? c->inductions[i].stride : 1;
            ADD(a, w ? "add.s64" : "add.s32", "%s, %s, %lld", c->inductions[i].reg,
                c->inductions[i].reg, (long long)(c->inductions[i].coef * stride));
        }
        for (size_t k = 0; k < c->nb; k++) {
            if (c->in_loop[l][k])
                continue;
            int pred = 0;
            for (int s2 = 0; s2 < c->b[k].nsucc; s2++)
                pred |= c->b[k].succ[s2] == h;
            if (!pred)
                continue;
            need_seq *r = cx_block_seq(c, (int)k, term_slot(&c->b[k]));
            if (!r)
                return cx_nomem(c);
            if (c->inductions[i].stride <= 1) {
                ADD(r, w ? "mov.u64" : "mov.u32", "%s, %s", c->inductions[i].reg, c->inductions[i].parent);
                continue;
            }
            /* starts at the CTA's phase (cx_sampled_iter) */
            c->cur_block = (int)k;
            const char *ph = g_phase(c, c->inductions[i].loop), *reg = c->inductions[i].reg;
            const char *parent = c->inductions[i].parent;
            int32_t coef = (int32_t)c->inductions[i].coef;
            if (parent[0] == '%') {
                ADD(r, w ? "mad.wide.s32" : "mad.lo.s32", "%s, %s, %d, %s", reg, ph, coef, parent);
            } else {
                ADD(r, w ? "mul.wide.s32" : "mul.lo.s32", "%s, %s, %d", reg, ph, coef);
                ADD(r, w ? "add.s64" : "add.s32", "%s, %s, %s", reg, reg, parent);
            }
        }
    }
    /* 5a'. loop counters that bank quota accesses of their block compare:
     *      advanced after them (a sequence created before the accesses'
     *      would have to finish before them) */
    for (size_t l = 0; l < nl; l++)
        for (size_t k = 0; k < c->nb; k++) {
            size_t after = counter_read(c, (int)l, (int)k);
            if (!c->latch[l][k] || after == SIZE_MAX)
                continue;
            need_seq *q = cx_block_seq(c, (int)k, term_slot(&c->b[k]));
            if (!q)
                return cx_nomem(c);
            q->independent = 1;
            q->min_start = after;
            if ((st = advance_counter(c, q, (int)l)) != MB_OK)
                return st;
        }
    /* 5b'. quota positions: advanced where an iteration of their loop ends
     *      (or in the one block holding their accesses, which then counts
     *      the requests: threads skipping it pay nothing), after the
     *      block's accesses, and never reset (every iteration of every
     *      activation is a request of its own) */
    for (size_t l = 0; c->qpos && l < nl; l++) {
        const quota_pos *P = &c->qpos[l + 1];
        char key[40];
        snprintf(key, sizeof key, "qpos%zu", l + 1);
        const char *reg = NULL;
        for (size_t i = 0; i < c->nvals && !reg; i++)
            if (!strcmp(c->vals[i].key, key))
                reg = c->vals[i].reg;
        if (!P->bits || !reg)
            continue;
        for (size_t k = 0; k < c->nb; k++) {
            if (P->block >= 0 ? (int)k != P->block : !c->latch[l][k])
                continue;
            need_seq *a = cx_block_seq(c, (int)k, term_slot(&c->b[k]));
            if (!a)
                return cx_nomem(c);
            a->independent = 1;
            for (size_t j = 0; j < c->b[k].nslots; j++)
                if (c->b[k].slots[j].role == SLOT_MEM)
                    a->min_start = j + 1;
            ADD(a, "add.s32", "%s, %s, %d", reg, reg, (int32_t)(P->step << (32 - P->bits)));
        }
    }
    /* 5c. loop counter resets and branches */
    for (size_t k = 0; k < c->nb; k++) {
        for (size_t l = 0; l < nl; l++) {
            if (c->in_loop[l][k])
                continue;
            int h = c->f->loops[l].header, pred = 0;
            for (int s = 0; s < c->b[k].nsucc; s++)
                pred |= c->b[k].succ[s] == h;
            if (!pred)
                continue;
            need_seq *q = cx_block_seq(c, (int)k, term_slot(&c->b[k]));
            if (!q)
                return cx_nomem(c);
            if (c->spread[l]) {
                c->cur_block = (int)k;
                const char *ph = g_phase(c, (int)l);
                if (!ph)
                    return cx_nomem(c);
                ADD(q, "mov.u32", "%s, %s", c->r_iter[l], ph);
            } else {
                ADD(q, "mov.u32", "%s, %d", c->r_iter[l], c->doubling[l] ? 1 : 0);
            }
            /* a trip that follows the enclosing loop is chosen on every entry */
            if (c->m->loops[l].outer >= 0 && c->m->loops[l].controller >= 0 &&
                (st = trip_value(c, q, (int)l, (int)k)) != MB_OK)
                return st;
        }
        if ((st = branch_slot(c, (int)k)) != MB_OK)
            return st;
    }
    /* 5d. the argument carrying the callee's trip count */
    for (size_t k = 0; k < c->nb; k++)
        for (size_t i = 0; i < c->b[k].nslots; i++) {
            slot *s = &c->b[k].slots[i];
            if (!is_trip_store(c, s))
                continue;
            c->cur_block = (int)k;
            if ((st = cx_call_form(c, s, s->token + 3, MB_REG_B32, g_callee_trip(c))) != MB_OK)
                return st;
        }
    if (c->oom)
        return cx_nomem(c);
    coalesce_copies(c);
    /* 6. match every block's sequences, drop the fillers inserted needs
     *    replace, then fill the rest */
    for (size_t k = 0; k < c->nb; k++)
        if ((st = match_block(c, (int)k)) != MB_OK)
            return st;
    if ((st = drop_fillers(c)) != MB_OK)
        return st;
    if ((st = split_products(c)) != MB_OK)
        return st;
    int *again_block = NULL;
    size_t *again_slot = NULL, nagain = 0, again_cap = 0, again_cap2 = 0;
    for (size_t k = 0; k < c->nb && st == MB_OK; k++) {
        blk *b = &c->b[k];
        for (size_t i = 0; i < b->nslots && st == MB_OK; i++) {
            int role = b->slots[i].role;
            if (role != SLOT_FILLER && role != SLOT_PARAM)
                continue;
            c->dep_pending = 0;
            b->slots[i].filler = role == SLOT_FILLER;
            st = cx_filler(c, (int)k, i, b->slots[i].token, &b->slots[i]);
            if (st == MB_OK && c->dep_pending && role == SLOT_FILLER) {
                if (MB_GROW(again_block, again_cap, nagain + 1) != MB_OK ||
                    MB_GROW(again_slot, again_cap2, nagain + 1) != MB_OK)
                    st = cx_nomem(c);
                else {
                    again_block[nagain] = (int)k;
                    again_slot[nagain++] = i;
                }
            }
        }
    }
    if (st == MB_OK)
        st = cx_refill(c, again_block, again_slot, nagain);
    free(again_block);
    free(again_slot);
    if (st != MB_OK)
        return st;
    if ((st = address_dependences(c)) != MB_OK || (st = memory_values(c)) != MB_OK ||
        (st = compared_values(c)) != MB_OK ||
        (st = cx_share_values(c)) != MB_OK || (st = pay_by_count(c)) != MB_OK)
        return st;
    /* 7. the model's blocks */
    mb_clone_model *m = c->m;
    m->nblocks = c->nb;
    m->blocks = mb_arena_alloc(c->A, c->nb * sizeof(*m->blocks));
    if (!m->blocks)
        return cx_nomem(c);
    for (size_t k = 0; k < c->nb; k++) {
        blk *b = &c->b[k];
        size_t n = 0;
        for (size_t i = 0; i <= b->nslots; i++)
            n += b->slots[i].nins + (i < b->nslots && b->slots[i].role != SLOT_DROPPED);
        mb_clone_block *cb = &m->blocks[k];
        cb->label = cx_fmt(c, "$Lc%zu", k);
        cb->insns = mb_arena_alloc(c->A, (n + 1) * sizeof(*cb->insns));
        if (!cb->label || !cb->insns)
            return cx_nomem(c);
        for (size_t i = 0; i <= b->nslots; i++) {
            slot *s = &b->slots[i];
            for (size_t j = 0; j < s->nins; j++) {
                mb_clone_insn *x = &cb->insns[cb->ninsns++];
                x->op = s->ins[j].op;
                x->operands = s->ins[j].operands;
                x->synthetic = 1;
            }
            free(s->ins);
            s->ins = NULL;
            if (i < b->nslots && s->role != SLOT_DROPPED) {
                mb_clone_insn *x = &cb->insns[cb->ninsns++];
                x->guard = s->guard;
                x->op = s->op;
                x->operands = s->operands;
                m->chain_insns++;
            }
        }
    }
    return MB_OK;
}
