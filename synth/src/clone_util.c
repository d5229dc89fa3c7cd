/* Small helpers of the clone builder: strings, registers, tokens, randomness. */
#include "clone_ctx.h"

#include <stdlib.h>
#include <string.h>

mb_status cx_nomem(ctx *c)
{
    return mb_error_set(c->err, MB_ERR_NOMEM, "", 0, 0, "out of memory building the clone");
}

const char *cx_fmt(ctx *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return mb_arena_strdup(c->A, buf);
}

static const char *const reg_prefix[MB_REG_CLASSES] = {"%p", "%rs", "%r", "%rd", "%f", "%fd"};

const char *cx_reg(ctx *c, int cls)
{
    return cx_fmt(c, "%s%u", reg_prefix[cls], ++c->m->nregs[cls]);
}

static int is_type_name(const char *s, size_t n)
{
    static const char *const types[] = {"s8",  "s16", "s32", "s64", "u8",  "u16", "u32", "u64", "b8",
                                        "b16", "b32", "b64", "f16", "f16x2", "bf16", "f32", "f64",
                                        "pred"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strlen(types[i]) == n && memcmp(types[i], s, n) == 0)
            return 1;
    return 0;
}

/* The profiler's chain token of a mnemonic: the opcode and its types only. */
const char *cx_token_of(ctx *c, const char *op)
{
    char buf[128];
    size_t len = 0;
    const char *p = op;
    const char *dot = strchr(p, '.');
    size_t first = dot ? (size_t)(dot - p) : strlen(p);
    memcpy(buf, p, first);
    len = first;
    p += first;
    while (*p == '.') {
        const char *q = p + 1;
        const char *e = strchr(q, '.');
        size_t n = e ? (size_t)(e - q) : strlen(q);
        if (is_type_name(q, n) && len + n + 2 < sizeof buf) {
            buf[len++] = '.';
            memcpy(buf + len, q, n);
            len += n;
        }
        p = q + n;
    }
    buf[len] = '\0';
    return mb_arena_strdup(c->A, buf);
}

int cx_class_of_type(const char *t)
{
    if (strcmp(t, "pred") == 0)
        return MB_REG_PRED;
    if (strcmp(t, "f32") == 0)
        return MB_REG_F32;
    if (strcmp(t, "f64") == 0)
        return MB_REG_F64;
    size_t n = strlen(t);
    if (n >= 2 && strcmp(t + n - 2, "64") == 0)
        return MB_REG_B64;
    if (n >= 2 && strcmp(t + n - 2, "32") == 0)
        return MB_REG_B32;
    if (n >= 2 && (strcmp(t + n - 2, "16") == 0 || strcmp(t + 1, "8") == 0))
        return MB_REG_B16;
    return -1;
}

/* splitmix64: deterministic for a seed on every machine */
uint64_t cx_rand(ctx *c)
{
    uint64_t z = (c->rng += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

mb_status cx_seq_add(ctx *c, need_seq *s, const char *op, const char *operands)
{
    if (MB_GROW(s->items, s->cap, s->n + 1) != MB_OK)
        return cx_nomem(c);
    need *n = &s->items[s->n++];
    n->op = op;
    n->operands = operands;
    n->uncovered = 0;
    n->reads_compared = 0;
    n->drop_block = -1;
    n->drop_slot = 0;
    n->token = cx_token_of(c, op);
    return n->token ? MB_OK : cx_nomem(c);
}

need_seq *cx_block_seq(ctx *c, int block, size_t deadline)
{
    blk *b = &c->b[block];
    if (MB_GROW(b->seqs, b->seqs_cap, b->nseqs + 1) != MB_OK)
        return NULL;
    need_seq *s = &b->seqs[b->nseqs++];
    memset(s, 0, sizeof(*s));
    s->deadline = deadline;
    return s;
}

int cx_mem_block(const ctx *c, int mem)
{
    uint32_t insn = c->f->mem[mem].insn;
    for (size_t k = 0; k < c->nb; k++)
        if (insn >= c->f->blocks[k].first_insn &&
            insn < c->f->blocks[k].first_insn + c->f->blocks[k].nchain)
            return (int)k;
    return 0;
}

int cx_block_loop(const ctx *c, int block)
{
    return c->f->blocks[block].loop;
}

int cx_var_dim(const char *var, int *dim)
{
    static const char *const names[] = {"tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ctaid.z"};
    for (int i = 0; i < 6; i++)
        if (strcmp(var, names[i]) == 0) {
            *dim = i;
            return 1;
        }
    return 0;
}

int cx_var_loop(const char *var)
{
    if (strncmp(var, "iter.loop", 9) != 0)
        return -1;
    char *end;
    long l = strtol(var + 9, &end, 10);
    return *end || l < 0 || l > 1 << 20 ? -1 : (int)l;
}

int64_t cx_affine_eval(const ctx *c, const mb_affine *a, uint32_t t, const uint32_t *iter, int sampled)
{
    /* wrapping arithmetic, as the clone's registers compute it */
    uint64_t v = (uint64_t)a->constant;
    for (size_t i = 0; i < a->nterms; i++) {
        int dim, l;
        uint64_t x = 0;
        if (cx_var_dim(a->var[i], &dim))
            x = dim < 3 ? c->tid[dim][t] : c->cta[dim - 3][t];
        else if ((l = cx_var_loop(a->var[i])) >= 0 && (size_t)l < c->nloops)
            x = sampled ? cx_sampled_iter(c, l, t, iter[l]) : iter[l]; /* finished iterations */
        v += (uint64_t)a->coef[i] * x;
    }
    return (int64_t)v;
}

const char *cx_operand(const char *ops, size_t n, size_t *len)
{
    const char *p = ops;
    for (size_t k = 0;; k++) {
        p += strspn(p, " ");
        int depth = 0;
        size_t i = 0;
        for (; p[i] && !(p[i] == ',' && depth == 0); i++)
            depth += (p[i] == '{' || p[i] == '[' || p[i] == '(') - (p[i] == '}' || p[i] == ']' || p[i] == ')');
        if (k == n) {
            while (i && p[i - 1] == ' ')
                i--;
            *len = i;
            return p;
        }
        if (!p[i])
            return NULL;
        p += i + 1;
    }
}

int cx_split_operands(const char *ops, const char **f, size_t *len, size_t want)
{
    if (!ops)
        return 0;
    for (size_t i = 0; i < want; i++)
        if (!(f[i] = cx_operand(ops, i, &len[i])))
            return 0;
    size_t more;
    return cx_operand(ops, want, &more) == NULL;
}

int cx_parse_decimal(const char *p, size_t len, uint32_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        x = x * 10 + (uint64_t)(p[i] - '0');
        if (x > UINT32_MAX)
            return 0;
    }
    *v = (uint32_t)x;
    return len > 0;
}

int cx_pow2_exponent(const char *p, size_t len)
{
    uint32_t v;
    if (!cx_parse_decimal(p, len, &v) || v < 2 || (v & (v - 1)))
        return -1;
    int k = 0;
    while ((UINT64_C(1) << k) < v)
        k++;
    return k;
}

int cx_dominates(const ctx *c, int a, int b)
{
    for (int x = b, steps = 0; x >= 0 && steps <= (int)c->nb; steps++) {
        if (x == a)
            return 1;
        int up = c->b[x].idom;
        if (up == x)
            break;
        x = up;
    }
    return 0;
}
