/* Calls to a device function. The clone keeps them: the callee becomes a
 * .func with a cloned body and every call site a real call, so that a
 * simulator sees the same calls, returns and argument traffic.
 *
 * The profile records the .param traffic of a call as local accesses (the
 * executor keeps .param frames in local memory) and does not say which
 * instructions they are. They are recognised by where nvcc puts them: the
 * argument stores right before `call`, the result load right after it, the
 * callee's loads from its parameters (their base is a parameter) and its
 * result store right before `ret`. They leave the memory model and become
 * SLOT_PARAM slots, which pass the clone's own .param values at the same
 * places of the chains. */
#include "clone_ctx.h"

#include <stdlib.h>
#include <string.h>

/* Arguments a call may pass (nvcc passes aggregates by bytes: more is rare). */
#define MAX_ARGS 32

static mb_status refuse(const mb_sprof *p, mb_error *err, const char *fmt, ...) MB_PRINTF(3, 4);
static mb_status refuse(const mb_sprof *p, mb_error *err, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mb_error_set(err, MB_ERR_UNSUPPORTED, p->path ? p->path : "", 0, 0,
                        "kernel %s: %s: not reproduced by the clone model", p->kernel, msg);
}

/* The memory record of chain instruction i of block b, -1 if none. */
static int record_at(const mb_sprof_func *f, int b, size_t i)
{
    uint32_t insn = f->blocks[b].first_insn + (uint32_t)i;
    for (size_t r = 0; r < f->nmem; r++)
        if (f->mem[r].insn == insn)
            return (int)r;
    return -1;
}

static int is_local_access(const mb_sprof_func *f, int b, size_t i, const char *op)
{
    int r = record_at(f, b, i);
    return !strncmp(f->blocks[b].chain[i], op, strlen(op)) && r >= 0 &&
           !strcmp(f->mem[r].space, "local");
}

/* "st.b32" -> "b32" */
static const char *type_of(const char *token)
{
    const char *dot = strchr(token, '.');
    return dot ? dot + 1 : "";
}

static int is_call(const mb_sprof_block *b, size_t i)
{
    return !strcmp(b->chain[i], "call");
}

/* A call site as nvcc lays it out: argument stores, call, result load. */
typedef struct site {
    size_t nargs;
    const char *type[MAX_ARGS];
    const char *ret;
} site;

/* The stores before the call at chain index i and the load after it: an
 * executed site by its local accesses, one no thread ran by its tokens. */
static void read_site(const mb_sprof_func *f, int b, size_t i, site *s)
{
    const mb_sprof_block *sb = &f->blocks[b];
    int executed = sb->ecount > 0;
    size_t j = i;
    while (j > 0 && i - j < MAX_ARGS &&
           (executed ? is_local_access(f, b, j - 1, "st.") : !strncmp(sb->chain[j - 1], "st.", 3)))
        j--;
    s->nargs = i - j;
    for (size_t k = 0; k < s->nargs; k++)
        s->type[k] = type_of(sb->chain[j + k]);
    s->ret = NULL;
    if (i + 1 < sb->nchain &&
        (executed ? is_local_access(f, b, i + 1, "ld.") : !strncmp(sb->chain[i + 1], "ld.", 3)))
        s->ret = type_of(sb->chain[i + 1]);
}

static int same_site(const site *a, const site *b)
{
    if (a->nargs != b->nargs || !a->ret != !b->ret || (a->ret && strcmp(a->ret, b->ret)))
        return 0;
    for (size_t k = 0; k < a->nargs; k++)
        if (strcmp(a->type[k], b->type[k]))
            return 0;
    return 1;
}

/* Whether an unexecuted site's tokens fit the signature: nvcc's layout. */
static int fits(const mb_sprof_func *f, int b, size_t i, const site *sig)
{
    const mb_sprof_block *sb = &f->blocks[b];
    if (i < sig->nargs)
        return 0;
    for (size_t k = 0; k < sig->nargs; k++) {
        const char *t = sb->chain[i - sig->nargs + k];
        if (strncmp(t, "st.", 3) || strcmp(type_of(t), sig->type[k]))
            return 0;
    }
    return !sig->ret || (i + 1 < sb->nchain && !strncmp(sb->chain[i + 1], "ld.", 3) &&
                         !strcmp(type_of(sb->chain[i + 1]), sig->ret));
}

/* The one signature every call site of the kernel agrees on. */
static mb_status signature(const mb_sprof *p, const mb_sprof_func *k, const char *callee, site *sig,
                           mb_error *err)
{
    int have = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t b = 0; b < k->nblocks; b++) {
            const mb_sprof_block *sb = &k->blocks[b];
            if ((sb->ecount > 0) != (pass == 0))
                continue;
            for (size_t i = 0; i < sb->nchain; i++) {
                if (!is_call(sb, i))
                    continue;
                site s;
                read_site(k, (int)b, i, &s);
                if (!have) {
                    *sig = s;
                    have = 1;
                } else if (pass == 0 ? !same_site(&s, sig) : !fits(k, (int)b, i, sig)) {
                    return refuse(p, err,
                                  "block %zu (%s) calls %s with other arguments than its other "
                                  "call sites (%zu vs %zu)",
                                  b, sb->name, callee, s.nargs, sig->nargs);
                }
                if (pass == 0 && i + 2 < sb->nchain && is_local_access(k, (int)b, i + 2, "ld."))
                    return refuse(p, err, "block %zu (%s): a call returning more than one value",
                                  b, sb->name);
            }
        }
    if (!have)
        return refuse(p, err, "the profile holds function %s but the kernel has no call", callee);
    return MB_OK;
}

/* Marks the param records of the callee: its loads from its parameters and
 * the result stores right before each `ret`; anything else is refused. */
static mb_status callee_records(const mb_sprof *p, const mb_sprof_func *f, const site *sig,
                                unsigned char *param, mb_error *err)
{
    for (size_t r = 0; r < f->nmem; r++) {
        const mb_sprof_mem *m = &f->mem[r];
        if (!strncmp(m->op, "ld.", 3) && !strcmp(m->base_kind, "parameter")) {
            if (m->base_index < 0 || (size_t)m->base_index >= sig->nargs)
                return refuse(p, err,
                              "function %s reads argument %d at line %d, which its call sites "
                              "do not pass (aggregate arguments)",
                              f->name, m->base_index, m->line);
            param[r] = 1;
        }
    }
    for (size_t b = 0; b < f->nblocks; b++) {
        const mb_sprof_block *sb = &f->blocks[b];
        size_t n = sb->nchain, stores = 0;
        if (!n || strcmp(sb->chain[n - 1], "ret"))
            continue;
        for (size_t i = n - 1; i > 0 && is_local_access(f, (int)b, i - 1, "st."); i--) {
            param[record_at(f, (int)b, i - 1)] = 1;
            stores++;
        }
        if (stores > (sig->ret != NULL))
            return refuse(p, err, "function %s, block %zu (%s): a return of more than one value",
                          f->name, b, sb->name);
    }
    for (size_t r = 0; r < f->nmem; r++)
        if (!param[r])
            return refuse(p, err,
                          "function %s: its memory accesses (%s %s at line %d) are not modelled "
                          "in called functions",
                          f->name, f->mem[r].space, f->mem[r].op, f->mem[r].line);
    return MB_OK;
}

/* A view of f without the records marked in `drop`. */
static mb_status without(const mb_sprof_func *f, const unsigned char *drop, mb_arena *A,
                         mb_sprof_func *out)
{
    *out = *f;
    out->mem = mb_arena_alloc(A, (f->nmem + 1) * sizeof(*out->mem));
    if (!out->mem)
        return MB_ERR_NOMEM;
    out->nmem = 0;
    for (size_t r = 0; r < f->nmem; r++)
        if (!drop[r])
            out->mem[out->nmem++] = f->mem[r];
    return MB_OK;
}

/* The kernel's param records: around every executed call. */
static void kernel_records(const mb_sprof_func *k, const site *sig, unsigned char *param)
{
    for (size_t b = 0; b < k->nblocks; b++)
        for (size_t i = 0; i < k->blocks[b].nchain; i++) {
            if (!is_call(&k->blocks[b], i))
                continue;
            for (size_t a = 0; a < sig->nargs; a++) {
                int r = record_at(k, (int)b, i - sig->nargs + a);
                if (r >= 0)
                    param[r] = 1;
            }
            int r = sig->ret ? record_at(k, (int)b, i + 1) : -1;
            if (r >= 0)
                param[r] = 1;
        }
}

static int calls_anything(const mb_sprof_func *f)
{
    for (size_t b = 0; b < f->nblocks; b++)
        for (size_t i = 0; i < f->blocks[b].nchain; i++)
            if (is_call(&f->blocks[b], i))
                return 1;
    return 0;
}

mb_status cx_calls_plan(const mb_sprof *p, mb_arena *A, call_plan *cp, mb_error *err)
{
    memset(cp, 0, sizeof(*cp));
    const mb_sprof_func *k = mb_sprof_kernel(p);
    cp->kernel = *k;
    if (p->nfuncs < 2) {
        if (calls_anything(k))
            return refuse(p, err, "it calls a function the profile holds nothing of");
        return MB_OK;
    }
    if (p->nfuncs > 2) {
        char names[256] = "";
        for (size_t i = 1; i < p->nfuncs; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i > 1 ? ", " : "",
                     p->funcs[i].name);
        return refuse(p, err,
                      "calls to %zu functions (%s), and the profile does not say which call "
                      "site calls which",
                      p->nfuncs - 1, names);
    }
    const mb_sprof_func *f = &p->funcs[1];
    if (calls_anything(f))
        return refuse(p, err, "function %s calls itself (recursion)", f->name);
    site sig = {0, {NULL}, NULL};
    mb_status st = signature(p, k, f->name, &sig, err);
    if (st != MB_OK)
        return st;
    unsigned char *kdrop = calloc(k->nmem + 1, 1), *fdrop = calloc(f->nmem + 1, 1);
    if (!kdrop || !fdrop)
        st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    if (st == MB_OK)
        st = callee_records(p, f, &sig, fdrop, err);
    if (st == MB_OK) {
        kernel_records(k, &sig, kdrop);
        cp->callee = f;
        cp->nargs = sig.nargs;
        cp->arg_type = mb_arena_alloc(A, (sig.nargs + 1) * sizeof(char *));
        cp->func_params = mb_arena_alloc(A, (sig.nargs + 1) * sizeof(*cp->func_params));
        cp->ret_type = sig.ret ? mb_arena_strdup(A, sig.ret) : NULL;
        if (!cp->arg_type || !cp->func_params || (sig.ret && !cp->ret_type) ||
            without(k, kdrop, A, &cp->kernel) != MB_OK || without(f, fdrop, A, &cp->func) != MB_OK)
            st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    for (size_t a = 0; st == MB_OK && a < sig.nargs; a++) {
        char name[300];
        snprintf(name, sizeof name, "%s_param_%zu", f->name, a);
        mb_sprof_param *q = &cp->func_params[a];
        memset(q, 0, sizeof(*q));
        q->name = mb_arena_strdup(A, name);
        q->type = cp->arg_type[a] = mb_arena_strdup(A, sig.type[a]);
        q->bytes = (uint32_t)atoi(sig.type[a] + 1) / 8;
        if (!q->name || !q->type)
            st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        else if (q->bytes == 0 || cx_class_of_type(q->type) < 0)
            st = refuse(p, err, "function %s: argument %zu of type %s", f->name, a, q->type);
    }
    free(kdrop);
    free(fdrop);
    return st;
}

/* The kernel's call sites: argument stores, the call, the result load. Each
 * call site has its own .param variables, as nvcc declares them per call
 * sequence: the executor lays each out in the thread's local memory, so
 * sharing one set would make the calls' argument traffic hit lines the
 * original spread over more (devfunc: 128 L1 misses against 224). */
static mb_status mark_sites(ctx *c, const call_plan *cp)
{
    mb_clone_model *m = c->m;
    size_t per = cp->nargs + (cp->ret_type != NULL), nsites = 0;
    for (size_t b = 0; b < c->nb; b++)
        for (size_t i = 0; i < c->b[b].nslots; i++)
            nsites += !strcmp(c->b[b].slots[i].token, "call");
    m->ncall_params = nsites * per;
    m->call_params = mb_arena_alloc(c->A, (m->ncall_params + 1) * sizeof(*m->call_params));
    if (!m->call_params)
        return cx_nomem(c);
    mb_status st = MB_OK;
    size_t site = 0;
    for (size_t b = 0; b < c->nb && st == MB_OK; b++)
        for (size_t i = 0; i < c->b[b].nslots && st == MB_OK; i++) {
            slot *s = c->b[b].slots;
            if (strcmp(s[i].token, "call"))
                continue;
            mb_clone_call_param *cpar = &m->call_params[site * per];
            mb_buf args = MB_BUF_INIT;
            for (size_t a = 0; a < cp->nargs; a++) {
                cpar[a].name = cx_fmt(c, "_call%zu_param%zu", site, a);
                cpar[a].type = cx_fmt(c, "b%d", atoi(cp->arg_type[a] + 1));
                mb_buf_printf(&args, "%s%s", a ? ", " : "", cpar[a].name);
            }
            if (cp->ret_type) {
                cpar[cp->nargs].name = cx_fmt(c, "_call%zu_retval", site);
                cpar[cp->nargs].type = cx_fmt(c, "b%d", atoi(cp->ret_type + 1));
            }
            const char *operands =
                cx_fmt(c, "%s%s%s%s, (%s)", cp->ret_type ? "(" : "", cp->ret_type ? cpar[cp->nargs].name : "",
                       cp->ret_type ? "), " : "", cp->callee->name, args.data ? args.data : "");
            st = args.failed || !operands ? cx_nomem(c) : MB_OK;
            mb_buf_free(&args);
            c->b[b].ncalls++;
            s[i].role = SLOT_ASSIGNED;
            s[i].op = "call.uni";
            s[i].operands = operands;
            for (size_t a = 0; a < cp->nargs; a++) {
                s[i - cp->nargs + a].role = SLOT_PARAM;
                s[i - cp->nargs + a].psym = cpar[a].name;
                s[i - cp->nargs + a].parg = (int)a;
            }
            if (cp->ret_type) {
                s[i + 1].role = SLOT_PARAM;
                s[i + 1].psym = cpar[cp->nargs].name;
                s[i + 1].parg = -1;
            }
            site++;
        }
    return st;
}

/* The callee's loads of its arguments and its result stores. */
static mb_status mark_callee(ctx *c, const call_plan *cp)
{
    const mb_sprof_func *f = cp->callee;
    for (size_t r = 0; r < f->nmem; r++) {
        const mb_sprof_mem *mm = &f->mem[r];
        for (size_t b = 0; b < f->nblocks; b++) {
            const mb_sprof_block *sb = &f->blocks[b];
            if (mm->insn < sb->first_insn || mm->insn >= sb->first_insn + sb->nchain)
                continue;
            slot *s = &c->b[b].slots[mm->insn - sb->first_insn];
            s->role = SLOT_PARAM;
            s->psym = !strncmp(mm->op, "ld.", 3) ? cp->func_params[mm->base_index].name : "func_retval0";
        }
    }
    /* a result store no thread ran has no record: by its place before ret */
    for (size_t b = 0; b < f->nblocks && cp->ret_type; b++) {
        blk *B = &c->b[b];
        if (f->blocks[b].ecount == 0 && B->nslots >= 2 && !strcmp(B->slots[B->nslots - 1].token, "ret") &&
            !strncmp(B->slots[B->nslots - 2].token, "st.", 3)) {
            B->slots[B->nslots - 2].role = SLOT_PARAM;
            B->slots[B->nslots - 2].psym = "func_retval0";
        }
    }
    return MB_OK;
}

mb_status cx_calls_mark(ctx *c, const call_plan *cp)
{
    if (!cp->callee)
        return MB_OK;
    return c->f == &cp->func ? mark_callee(c, cp) : mark_sites(c, cp);
}

mb_status cx_call_form(ctx *c, slot *s, const char *type, int cls, const char *src)
{
    s->role = SLOT_ASSIGNED;
    if (src) {
        s->op = cx_fmt(c, "st.param.%s", type);
        s->operands = cx_fmt(c, "[%s], %s", s->psym, src);
        s->dest_class = -1;
        s->dest = NULL;
    } else {
        s->dest = cx_reg(c, cls);
        s->op = cx_fmt(c, "ld.param.%s", type);
        s->operands = cx_fmt(c, "%s, [%s]", s->dest, s->psym);
        s->dest_class = cls;
    }
    return s->op && s->operands && (src || s->dest) ? MB_OK : cx_nomem(c);
}

void cx_calls_trip_arg(ctx *callee, const call_plan *cp, ctx *kernel)
{
    const mb_clone_model *fm = callee->m;
    int loop = -1;
    for (size_t l = 0; l < callee->nloops && loop < 0; l++)
        if (cx_trip_register(callee, (int)l) && fm->loops[l].outer < 0)
            loop = (int)l;
    if (loop < 0)
        return;
    /* a 32-bit argument the callee loads in its entry block, before any loop */
    const blk *entry = &callee->b[0];
    for (size_t a = 0; a < cp->nargs; a++) {
        const char *t = cp->arg_type[a];
        if (strcmp(t, "b32") && strcmp(t, "u32") && strcmp(t, "s32"))
            continue;
        for (size_t i = 0; i < entry->nslots; i++)
            if (entry->slots[i].role == SLOT_PARAM && !strncmp(entry->slots[i].token, "ld.", 3) &&
                !strcmp(entry->slots[i].psym, cp->func_params[a].name)) {
                const mb_clone_loop *cl = &fm->loops[loop];
                callee->arg_trip_index = kernel->arg_trip_index = (int)a;
                callee->arg_trip_loop = loop;
                kernel->arg_trip = cl;
                kernel->arg_trip_adj = cl->controller >= 0 && callee->b[cl->controller].cond &&
                                       fm->branches[callee->b[cl->controller].branch].rule ==
                                           MB_RULE_LOOP_EXIT;
                return;
            }
    }
}
