/* PTX parser, function bodies: scopes, declarations, labels and instructions. */
#include "ptx_parser.h"

#include <stdlib.h>
#include <string.h>

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        mb_status st_ = (expr);                                                                    \
        if (st_ != MB_OK)                                                                          \
            return st_;                                                                            \
    } while (0)

enum { MAX_TOP_OPERANDS = 16, MAX_LIST_OPERANDS = 1024 };

mb_status pp_parse_prototype(ptx_parser *p, mb_label *label);

/* ------------------------------------------------------------ scoping */

mb_status pp_remember_shadow(ptx_parser *p, int is_var, const char *name, int previous)
{
    if (MB_GROW(p->shadows, p->cap_shadows, p->nshadows + 1) != MB_OK)
        return pp_nomem(p);
    p->shadows[p->nshadows].scope = p->scope;
    p->shadows[p->nshadows].is_var = is_var;
    p->shadows[p->nshadows].name = name;
    p->shadows[p->nshadows].previous = previous;
    p->nshadows++;
    return MB_OK;
}

static mb_status open_scope(ptx_parser *p)
{
    mb_function *fn = p->fn;
    if (fn->nscopes >= 1u << 20)
        return mb_error_set(p->err, MB_ERR_LIMIT, p->filename, p->tok.line, p->tok.col,
                            "too many nested scopes");
    if (MB_GROW(fn->scopes, fn->cap_scopes, fn->nscopes + 1) != MB_OK)
        return pp_nomem(p);
    fn->scopes[fn->nscopes].parent = fn->nscopes ? p->scope : -1;
    fn->scopes[fn->nscopes].begin = fn->ninsns;
    fn->scopes[fn->nscopes].end = fn->ninsns;
    p->scope = (int)fn->nscopes++;
    return MB_OK;
}

/* Closes the current scope, restoring the names its declarations shadowed. */
static mb_status close_scope(ptx_parser *p)
{
    mb_function *fn = p->fn;
    fn->scopes[p->scope].end = fn->ninsns;
    /* Closing the body itself keeps its names: fn->reg_names must still map
     * the body-level registers once parsing is done. */
    if (p->scope == 0) {
        while (p->nshadows && p->shadows[p->nshadows - 1].scope == 0)
            p->nshadows--;
    }
    while (p->nshadows && p->shadows[p->nshadows - 1].scope == p->scope) {
        struct shadow *s = &p->shadows[--p->nshadows];
        mb_strmap *map = s->is_var ? p->local_names : fn->reg_names;
        if (mb_strmap_put(map, s->name, strlen(s->name), s->previous) != MB_OK)
            return pp_nomem(p);
    }
    p->scope = fn->scopes[p->scope].parent;
    return MB_OK;
}

/* ------------------------------------------------------- declarations */

static mb_status add_reg(ptx_parser *p, const char *name, mb_ptx_type type, unsigned vec, int decl,
                         int line, int col)
{
    mb_function *fn = p->fn;
    size_t len = strlen(name);
    int prev = mb_strmap_get(fn->reg_names, name, len);
    if (prev >= 0 && fn->regdecls[fn->regs[prev].decl].scope == p->scope)
        return pp_error_at(p, line, col, "redeclaration of register '%s'", name);
    if (fn->nregs >= (1u << 24))
        return mb_error_set(p->err, MB_ERR_LIMIT, p->filename, line, col,
                            "too many registers in function '%s'", fn->name);
    if (MB_GROW(fn->regs, fn->cap_regs, fn->nregs + 1) != MB_OK)
        return pp_nomem(p);
    mb_reg *r = &fn->regs[fn->nregs];
    r->name = name;
    r->type = type;
    r->vec = vec;
    r->decl = decl;
    TRY(pp_remember_shadow(p, 0, name, prev));
    if (mb_strmap_put(fn->reg_names, name, len, (int)fn->nregs) != MB_OK)
        return pp_nomem(p);
    fn->nregs++;
    return MB_OK;
}

static mb_status parse_reg_decl(ptx_parser *p)
{
    mb_function *fn = p->fn;
    TRY(pp_next(p)); /* .reg */
    unsigned vec = 1;
    mb_ptx_type type = MB_TYPE_NONE;
    while (p->tok.kind == TOK_DOT) {
        if (pp_is_dot(p, "v2") || pp_is_dot(p, "v4") || pp_is_dot(p, "v8")) {
            vec = (unsigned)(p->tok.text[1] - '0');
        } else {
            int t = mb_strmap_get(p->types, p->tok.text, p->tok.len);
            if (t < 0)
                return pp_error(p, "unknown register type '.%.*s'", (int)p->tok.len, p->tok.text);
            if (type != MB_TYPE_NONE)
                return pp_error(p, "register declaration has two types");
            type = (mb_ptx_type)t;
        }
        TRY(pp_next(p));
    }
    if (type == MB_TYPE_NONE)
        return pp_error(p, "register declaration has no type");
    if (mb_type_kind_of(type) == MB_TYPE_KIND_O)
        return pp_error(p, "registers cannot have an opaque type");
    for (;;) {
        if (p->tok.kind != TOK_IDENT)
            return pp_error(p, "expected a register name");
        int line = p->tok.line, col = p->tok.col;
        char *prefix = pp_strdup_tok(p, &p->tok);
        if (!prefix)
            return pp_nomem(p);
        TRY(pp_next(p));
        uint32_t count = 0;
        if (pp_is_punct(p, '<')) {
            TRY(pp_next(p));
            if (p->tok.kind != TOK_INT)
                return pp_error(p, "expected a register count inside <>");
            if (p->tok.ival == 0 || p->tok.ival > MB_PTX_MAX_REGS_PER_DECL)
                return mb_error_set(p->err, MB_ERR_LIMIT, p->filename, p->tok.line, p->tok.col,
                                    "register count %llu is out of range (1 to %d)",
                                    (unsigned long long)p->tok.ival, MB_PTX_MAX_REGS_PER_DECL);
            count = (uint32_t)p->tok.ival;
            TRY(pp_next(p));
            TRY(pp_expect_punct(p, '>', "to close the register count"));
        }
        if (MB_GROW(fn->regdecls, fn->cap_regdecls, fn->nregdecls + 1) != MB_OK)
            return pp_nomem(p);
        mb_regdecl *d = &fn->regdecls[fn->nregdecls];
        d->prefix = prefix;
        d->type = type;
        d->vec = vec;
        d->count = count;
        d->first_reg = fn->nregs;
        d->scope = p->scope;
        int decl = (int)fn->nregdecls++;
        if (count == 0) {
            TRY(add_reg(p, prefix, type, vec, decl, line, col));
        } else {
            size_t plen = strlen(prefix);
            for (uint32_t i = 0; i < count; i++) {
                char *name = mb_arena_alloc(p->m->arena, plen + 12);
                if (!name)
                    return pp_nomem(p);
                snprintf(name, plen + 12, "%s%u", prefix, i);
                TRY(add_reg(p, name, type, vec, decl, line, col));
            }
        }
        if (!pp_is_punct(p, ','))
            break;
        TRY(pp_next(p));
    }
    return pp_expect_punct(p, ';', "after the register declaration");
}

mb_status pp_parse_loc(ptx_parser *p)
{
    mb_module *m = p->m;
    TRY(pp_next(p));
    mb_loc loc;
    memset(&loc, 0, sizeof(loc));
    int *fields[3] = {&loc.file, &loc.line, &loc.col};
    for (int i = 0; i < 3; i++) {
        if (p->tok.kind != TOK_INT || p->tok.ival > 0x7fffffff)
            return pp_error(p, "expected file, line and column numbers in .loc");
        *fields[i] = (int)p->tok.ival;
        TRY(pp_next(p));
    }
    if (pp_is_punct(p, ',')) {
        TRY(pp_next(p));
        if (!pp_is_ident(p, "function_name"))
            return pp_error(p, "expected function_name in .loc");
        TRY(pp_next(p));
        if (p->tok.kind != TOK_IDENT)
            return pp_error(p, "expected a label after function_name");
        loc.function_name = pp_strdup_tok(p, &p->tok);
        if (!loc.function_name)
            return pp_nomem(p);
        TRY(pp_next(p));
        if (pp_is_punct(p, '+')) {
            TRY(pp_next(p));
            if (p->tok.kind != TOK_INT)
                return pp_error(p, "expected an offset after '+'");
            loc.function_name_offset = (int64_t)p->tok.ival;
            TRY(pp_next(p));
        }
        TRY(pp_expect_punct(p, ',', "before inlined_at"));
        if (!pp_is_ident(p, "inlined_at"))
            return pp_error(p, "expected inlined_at in .loc");
        TRY(pp_next(p));
        int *ifields[3] = {&loc.inlined_file, &loc.inlined_line, &loc.inlined_col};
        for (int i = 0; i < 3; i++) {
            if (p->tok.kind != TOK_INT || p->tok.ival > 0x7fffffff)
                return pp_error(p, "expected file, line and column numbers after inlined_at");
            *ifields[i] = (int)p->tok.ival;
            TRY(pp_next(p));
        }
    }
    if (MB_GROW(m->locs, m->cap_locs, m->nlocs + 1) != MB_OK)
        return pp_nomem(p);
    loc.insn = p->fn ? p->fn->ninsns : 0;
    loc.scope = p->scope;
    m->locs[m->nlocs] = loc;
    p->cur_loc = (int)m->nlocs++;
    return MB_OK;
}

static mb_status parse_body_pragma(ptx_parser *p)
{
    mb_function *fn = p->fn;
    TRY(pp_next(p));
    if (p->tok.kind != TOK_STRING)
        return pp_error(p, "expected a string after .pragma");
    if (MB_GROW(fn->pragmas, fn->cap_pragmas, fn->npragmas + 1) != MB_OK)
        return pp_nomem(p);
    mb_pragma *pr = &fn->pragmas[fn->npragmas];
    pr->insn = fn->ninsns;
    pr->scope = p->scope;
    pr->text = pp_strdup_tok(p, &p->tok);
    if (!pr->text)
        return pp_nomem(p);
    fn->npragmas++;
    TRY(pp_next(p));
    return pp_expect_punct(p, ';', "after .pragma");
}

/* --------------------------------------------------------------- labels */

/* Finds or creates the label `name`; a new one is an undefined forward reference. */
static mb_status get_label(ptx_parser *p, const ptx_token *t, uint32_t *out)
{
    mb_function *fn = p->fn;
    int idx = mb_strmap_get(fn->label_names, t->text, t->len);
    if (idx >= 0) {
        *out = (uint32_t)idx;
        return MB_OK;
    }
    if (MB_GROW(fn->labels, fn->cap_labels, fn->nlabels + 1) != MB_OK)
        return pp_nomem(p);
    mb_label *l = &fn->labels[fn->nlabels];
    memset(l, 0, sizeof(*l));
    l->name = pp_strdup_tok(p, t);
    if (!l->name)
        return pp_nomem(p);
    l->line = t->line;
    l->col = t->col;
    l->scope = -1;
    if (mb_strmap_put(fn->label_names, t->text, t->len, (int)fn->nlabels) != MB_OK)
        return pp_nomem(p);
    *out = fn->nlabels++;
    return MB_OK;
}

/* Takes the label by index: a forward reference in the list grows fn->labels. */
static mb_status parse_target_list(ptx_parser *p, uint32_t label_idx, int functions)
{
    uint32_t *list = NULL;
    size_t cap = 0;
    uint32_t n = 0;
    mb_status st = MB_OK;
    for (;;) {
        if (p->tok.kind != TOK_IDENT) {
            st = pp_error(p, functions ? "expected a function name in .calltargets"
                                       : "expected a label in .branchtargets");
            break;
        }
        if (MB_GROW(list, cap, (size_t)n + 1) != MB_OK) {
            st = pp_nomem(p);
            break;
        }
        if (functions) {
            int sym = pp_module_symbol(p, p->tok.text, p->tok.len);
            if (sym < 0 || (sym >> 24) != MB_SYM_FUNC) {
                st = pp_error(p, "'%.*s' is not a declared function", (int)p->tok.len,
                              p->tok.text);
                break;
            }
            list[n++] = (uint32_t)(sym & 0xffffff);
        } else {
            st = get_label(p, &p->tok, &list[n]);
            if (st != MB_OK)
                break;
            n++;
        }
        st = pp_next(p);
        if (st != MB_OK || !pp_is_punct(p, ','))
            break;
        st = pp_next(p);
        if (st != MB_OK)
            break;
    }
    if (st == MB_OK)
        st = pp_expect_punct(p, ';', "after the target list");
    if (st == MB_OK) {
        mb_label *label = &p->fn->labels[label_idx];
        label->targets = mb_arena_alloc(p->m->arena, (size_t)n * sizeof(uint32_t) + 1);
        if (!label->targets)
            st = pp_nomem(p);
        else
            memcpy(label->targets, list, (size_t)n * sizeof(uint32_t));
        label->ntargets = n;
    }
    free(list);
    return st;
}

static mb_status parse_label_def(ptx_parser *p)
{
    mb_function *fn = p->fn;
    ptx_token name = p->tok;
    uint32_t idx;
    TRY(get_label(p, &name, &idx));
    mb_label *l = &fn->labels[idx];
    if (l->defined)
        return pp_error_at(p, name.line, name.col, "duplicate label '%.*s'", (int)name.len,
                           name.text);
    l->defined = 1;
    l->line = name.line;
    l->col = name.col;
    l->scope = p->scope;
    l->insn = fn->ninsns;
    l->kind = MB_LABEL_CODE;
    TRY(pp_next(p)); /* name */
    TRY(pp_next(p)); /* ':' */
    if (pp_is_dot(p, "branchtargets")) {
        l->kind = MB_LABEL_BRANCHTARGETS;
        TRY(pp_next(p));
        return parse_target_list(p, idx, 0);
    }
    if (pp_is_dot(p, "calltargets")) {
        l->kind = MB_LABEL_CALLTARGETS;
        TRY(pp_next(p));
        return parse_target_list(p, idx, 1);
    }
    if (pp_is_dot(p, "callprototype")) {
        l->kind = MB_LABEL_CALLPROTOTYPE;
        TRY(pp_next(p));
        return pp_parse_prototype(p, &fn->labels[idx]);
    }
    return MB_OK;
}

/* -------------------------------------------------------------- operands */

static int find_param(const mb_param *params, uint32_t n, const ptx_token *t)
{
    for (uint32_t i = 0; i < n; i++)
        if (strlen(params[i].name) == t->len && memcmp(params[i].name, t->text, t->len) == 0)
            return (int)i;
    return -1;
}

/* Resolves a special register spelled by the current identifier token;
 * returns 1 and fills `o` when it is one. */
static mb_status parse_sreg(ptx_parser *p, mb_operand *o, int *found)
{
    const ptx_token *t = &p->tok;
    *found = 0;
    int id = mb_strmap_get(p->sregs, t->text, t->len);
    unsigned comp = 0;
    if (id < 0) {
        /* indexed forms: %envreg<N>, %pm<N>, %pm<N>_64 */
        static const struct {
            const char *prefix;
            mb_sreg sreg;
            unsigned count;
        } indexed[] = {{"%envreg", MB_SREG_ENVREG, 32}, {"%pm", MB_SREG_PM, 8}};
        for (size_t i = 0; i < 2 && id < 0; i++) {
            size_t pl = strlen(indexed[i].prefix);
            if (t->len <= pl || memcmp(t->text, indexed[i].prefix, pl) != 0)
                continue;
            size_t k = pl;
            unsigned n = 0;
            while (k < t->len && t->text[k] >= '0' && t->text[k] <= '9' && n < 1000)
                n = n * 10 + (unsigned)(t->text[k++] - '0');
            if (k == pl || n >= indexed[i].count)
                continue;
            if (k == t->len) {
                id = (int)indexed[i].sreg;
                comp = n;
            } else if (indexed[i].sreg == MB_SREG_PM && t->len - k == 3 &&
                       memcmp(t->text + k, "_64", 3) == 0) {
                id = (int)indexed[i].sreg;
                comp = n + 1000;
            }
        }
        if (id < 0)
            return MB_OK;
    }
    *found = 1;
    o->kind = MB_OPND_SREG;
    o->u.sreg.id = (unsigned short)id;
    o->u.sreg.comp = (unsigned short)comp;
    TRY(pp_next(p));
    if (mb_sreg_form_of((mb_sreg)id) == MB_SREG_FORM_VEC && p->tok.kind == TOK_DOT &&
        p->tok.len == 1) {
        const char *xyzw = "xyzw";
        const char *c = strchr(xyzw, p->tok.text[0]);
        if (!c)
            return pp_error(p, "unknown component '.%c' of %s", p->tok.text[0],
                            mb_sreg_name((mb_sreg)id));
        o->u.sreg.comp = (unsigned short)(c - xyzw + 1);
        TRY(pp_next(p));
    }
    return MB_OK;
}

/* Parses `+N`, `-N` or `+-N` after an address base or symbol. */
static mb_status parse_offset(ptx_parser *p, int64_t *offset)
{
    *offset = 0;
    while (pp_is_punct(p, '+') || pp_is_punct(p, '-')) {
        int neg = pp_is_punct(p, '-');
        TRY(pp_next(p));
        if (pp_is_punct(p, '-')) {
            neg = !neg;
            TRY(pp_next(p));
        }
        if (p->tok.kind != TOK_INT)
            return pp_error(p, "expected an integer offset");
        int64_t v = (int64_t)p->tok.ival;
        *offset += neg ? -v : v;
        TRY(pp_next(p));
    }
    return MB_OK;
}

static mb_status parse_operand(ptx_parser *p, const mb_insn *insn, mb_operand *o, int depth);

/* Appends a list of operands to the pool and points `o` at it. */
static mb_status store_list(ptx_parser *p, mb_operand *o, mb_operand_kind kind,
                            const mb_operand *items, uint32_t n)
{
    mb_function *fn = p->fn;
    if (MB_GROW(fn->operands, fn->cap_operands, (size_t)fn->noperands + n) != MB_OK)
        return pp_nomem(p);
    if (n)
        memcpy(&fn->operands[fn->noperands], items, n * sizeof(mb_operand));
    o->kind = (unsigned char)kind;
    o->u.list.first = fn->noperands;
    o->u.list.count = n;
    fn->noperands += n;
    return MB_OK;
}

static mb_status parse_list(ptx_parser *p, const mb_insn *insn, mb_operand *o, mb_operand_kind kind,
                            char close, int depth, const mb_operand *first)
{
    mb_operand *items = NULL;
    size_t cap = 0;
    uint32_t n = 0;
    mb_status st = MB_OK;
    if (first) {
        if (MB_GROW(items, cap, 1) != MB_OK)
            return pp_nomem(p);
        items[n++] = *first;
    }
    if (!first && !pp_is_punct(p, close)) {
        for (;;) {
            if (n >= MAX_LIST_OPERANDS) {
                st = pp_error(p, "operand list is too long");
                break;
            }
            if (MB_GROW(items, cap, (size_t)n + 1) != MB_OK) {
                st = pp_nomem(p);
                break;
            }
            st = parse_operand(p, insn, &items[n], depth + 1);
            if (st != MB_OK)
                break;
            n++;
            if (!pp_is_punct(p, ','))
                break;
            st = pp_next(p);
            if (st != MB_OK)
                break;
        }
    } else if (first) {
        while (st == MB_OK && pp_is_punct(p, ',')) {
            st = pp_next(p);
            if (st != MB_OK)
                break;
            if (MB_GROW(items, cap, (size_t)n + 1) != MB_OK) {
                st = pp_nomem(p);
                break;
            }
            st = parse_operand(p, insn, &items[n], depth + 1);
            if (st == MB_OK)
                n++;
        }
    }
    if (st == MB_OK) {
        char what[32];
        snprintf(what, sizeof(what), "to close the %s", close == '}' ? "vector" :
                                                        close == ')' ? "list" : "address");
        st = pp_expect_punct(p, close, what);
    }
    if (st == MB_OK)
        st = store_list(p, o, kind, items, n);
    free(items);
    return st;
}

/* Resolves an identifier that is not a register or special register. */
static mb_status resolve_name(ptx_parser *p, const mb_insn *insn, mb_operand *o)
{
    mb_function *fn = p->fn;
    const ptx_token *t = &p->tok;
    int idx = mb_strmap_get(p->local_names, t->text, t->len);
    if (idx >= 0) {
        o->kind = MB_OPND_SYMBOL;
        o->symkind = MB_SYM_LOCAL_VAR;
        o->u.sym = (uint32_t)idx;
        return MB_OK;
    }
    if ((idx = find_param(fn->params, fn->nparams, t)) >= 0) {
        o->kind = MB_OPND_SYMBOL;
        o->symkind = MB_SYM_PARAM;
        o->u.sym = (uint32_t)idx;
        return MB_OK;
    }
    if ((idx = find_param(fn->rets, fn->nrets, t)) >= 0) {
        o->kind = MB_OPND_SYMBOL;
        o->symkind = MB_SYM_RET;
        o->u.sym = (uint32_t)idx;
        return MB_OK;
    }
    int sym = pp_module_symbol(p, t->text, t->len);
    if (sym >= 0) {
        o->kind = MB_OPND_SYMBOL;
        o->symkind = (unsigned char)(sym >> 24);
        o->u.sym = (uint32_t)(sym & 0xffffff);
        return MB_OK;
    }
    idx = mb_strmap_get(fn->label_names, t->text, t->len);
    /* A forward reference may name a label, but never one spelled like a
     * register: `call f, (%r9)` with %r9 undeclared is an undeclared register. */
    int labels_allowed = (insn->opcode == MB_OP_BRA || insn->opcode == MB_OP_BRX ||
                          insn->opcode == MB_OP_CALL) && t->text[0] != '%';
    if (idx >= 0 || labels_allowed) {
        uint32_t label;
        TRY(get_label(p, t, &label));
        o->kind = MB_OPND_LABEL;
        o->u.label = label;
        return MB_OK;
    }
    if (t->text[0] == '%')
        return pp_error(p, "undeclared register '%.*s'", (int)t->len, t->text);
    return pp_error(p, "undeclared identifier '%.*s'", (int)t->len, t->text);
}

static mb_status parse_bracket(ptx_parser *p, const mb_insn *insn, mb_operand *o, int depth)
{
    mb_function *fn = p->fn;
    TRY(pp_next(p)); /* '[' */
    mb_operand base;
    memset(&base, 0, sizeof(base));
    if (p->tok.kind == TOK_INT) {
        base.kind = MB_OPND_IMM;
        base.u.bits = p->tok.ival;
        TRY(pp_next(p));
    } else if (p->tok.kind == TOK_IDENT) {
        int r = mb_strmap_get(fn->reg_names, p->tok.text, p->tok.len);
        if (r >= 0) {
            base.kind = MB_OPND_REG;
            base.u.reg = (uint32_t)r;
        } else {
            TRY(resolve_name(p, insn, &base));
            if (base.kind != MB_OPND_SYMBOL)
                return pp_error(p, "'%.*s' cannot be used as an address", (int)p->tok.len,
                                p->tok.text);
        }
        TRY(pp_next(p));
    } else {
        return pp_error(p, "expected a register, symbol or constant address after '['");
    }
    if (pp_is_punct(p, ',')) {
        /* texture/surface form: [handle, coordinates...] */
        return parse_list(p, insn, o, MB_OPND_BRACKET_LIST, ']', depth, &base);
    }
    int64_t offset;
    TRY(parse_offset(p, &offset));
    TRY(pp_expect_punct(p, ']', "to close the address"));
    o->kind = MB_OPND_ADDR;
    o->base_kind = base.kind;
    o->symkind = base.symkind;
    o->u = base.u;
    if (base.kind == MB_OPND_IMM) {
        o->u.bits = base.u.bits + (uint64_t)offset;
        o->offset = 0;
    } else {
        o->offset = offset;
    }
    return MB_OK;
}

static mb_status parse_operand(ptx_parser *p, const mb_insn *insn, mb_operand *o, int depth)
{
    mb_function *fn = p->fn;
    memset(o, 0, sizeof(*o));
    if (depth > 4)
        return pp_error(p, "operands are nested too deeply");
    if (pp_is_punct(p, '!')) {
        TRY(pp_next(p));
        TRY(parse_operand(p, insn, o, depth + 1));
        if (o->kind != MB_OPND_REG)
            return pp_error(p, "'!' applies only to predicate registers");
        o->flags |= MB_OPND_NOT;
        return MB_OK;
    }
    if (pp_is_punct(p, '{')) {
        TRY(pp_next(p));
        return parse_list(p, insn, o, MB_OPND_VEC, '}', depth, NULL);
    }
    if (pp_is_punct(p, '(')) {
        TRY(pp_next(p));
        return parse_list(p, insn, o, MB_OPND_LIST, ')', depth, NULL);
    }
    if (pp_is_punct(p, '['))
        return parse_bracket(p, insn, o, depth);
    int negative = 0;
    if (pp_is_punct(p, '-')) {
        negative = 1;
        TRY(pp_next(p));
    }
    switch (p->tok.kind) {
    case TOK_INT:
        o->kind = MB_OPND_IMM;
        o->u.bits = negative ? (uint64_t)0 - p->tok.ival : p->tok.ival;
        if (negative)
            o->flags |= MB_OPND_NEGLIT;
        return pp_next(p);
    case TOK_F32:
        o->kind = MB_OPND_F32;
        o->u.bits = p->tok.ival ^ (negative ? UINT64_C(0x80000000) : 0);
        return pp_next(p);
    case TOK_F64:
        o->kind = MB_OPND_F64;
        o->u.bits = p->tok.ival ^ (negative ? UINT64_C(0x8000000000000000) : 0);
        return pp_next(p);
    case TOK_FLOAT: {
        double d = negative ? -p->tok.fval : p->tok.fval;
        o->kind = MB_OPND_F64;
        memcpy(&o->u.bits, &d, sizeof(d));
        return pp_next(p);
    }
    case TOK_IDENT:
        break;
    default: {
        return pp_error(p, "expected an operand");
    }
    }
    if (negative)
        return pp_error(p, "only constants can be negated");
    int is_sink = pp_is_ident(p, "_");
    int r = is_sink ? -1 : mb_strmap_get(fn->reg_names, p->tok.text, p->tok.len);
    if (is_sink || r >= 0) {
        o->kind = is_sink ? MB_OPND_SINK : MB_OPND_REG;
        o->u.reg = (uint32_t)r;
        TRY(pp_next(p));
        if (pp_is_punct(p, '|')) {
            /* paired destinations %r|%p; either side may be the sink '_' */
            TRY(pp_next(p));
            int sink2 = pp_is_ident(p, "_");
            int r2 = sink2 ? -1
                     : p->tok.kind == TOK_IDENT ? mb_strmap_get(fn->reg_names, p->tok.text, p->tok.len)
                                                : -1;
            if (!sink2 && r2 < 0)
                return pp_error(p, "expected a register or '_' after '|'");
            o->kind = MB_OPND_PAIR;
            o->u.pair.first = is_sink ? MB_PAIR_SINK : (uint32_t)r;
            o->u.pair.second = sink2 ? MB_PAIR_SINK : (uint32_t)r2;
            TRY(pp_next(p));
        }
        return MB_OK;
    }
    if (p->tok.text[0] == '%') {
        int found;
        TRY(parse_sreg(p, o, &found));
        if (found)
            return MB_OK;
    }
    TRY(resolve_name(p, insn, o));
    TRY(pp_next(p));
    if (o->kind == MB_OPND_SYMBOL && (pp_is_punct(p, '+') || pp_is_punct(p, '-')))
        TRY(parse_offset(p, &o->offset));
    return MB_OK;
}

/* ---------------------------------------------------------- instructions */

static mb_status parse_instruction(ptx_parser *p)
{
    mb_function *fn = p->fn;
    mb_insn insn;
    memset(&insn, 0, sizeof(insn));
    insn.guard = -1;
    insn.line = p->tok.line;
    insn.col = p->tok.col;
    insn.loc = p->cur_loc;
    if (pp_is_punct(p, '@')) {
        TRY(pp_next(p));
        if (pp_is_punct(p, '!')) {
            insn.guard_not = 1;
            TRY(pp_next(p));
        }
        int r = p->tok.kind == TOK_IDENT ? mb_strmap_get(fn->reg_names, p->tok.text, p->tok.len)
                                         : -1;
        if (r < 0) {
            if (p->tok.kind == TOK_IDENT)
                return pp_error(p, "undeclared register '%.*s' in guard", (int)p->tok.len,
                                p->tok.text);
            return pp_error(p, "expected a predicate register after '@'");
        }
        if (fn->regs[r].type != MB_TYPE_PRED)
            return pp_error(p, "guard '%s' is not a predicate register", fn->regs[r].name);
        insn.guard = r;
        TRY(pp_next(p));
    }
    if (p->tok.kind != TOK_IDENT)
        return pp_error(p, "expected an instruction");
    int op = mb_strmap_get(p->opcodes, p->tok.text, p->tok.len);
    if (op < 0)
        return pp_error(p, "unknown instruction '%.*s'", (int)p->tok.len, p->tok.text);
    insn.opcode = (uint16_t)op;
    const mb_opcode_info *info = mb_opcode_get((mb_opcode)op);
    int op_line = p->tok.line, op_col = p->tok.col;
    TRY(pp_next(p));
    while (p->tok.kind == TOK_DOT) {
        if (insn.nsuffix == MB_MAX_SUFFIXES)
            return pp_error(p, "too many modifiers on '%s'", info->name);
        int t = mb_strmap_get(p->types, p->tok.text, p->tok.len);
        if (t >= 0) {
            insn.suffix[insn.nsuffix++] = (uint16_t)(t | MB_SUFFIX_TYPE);
        } else {
            int m = mb_strmap_get(p->mods, p->tok.text, p->tok.len);
            if (m < 0)
                return pp_error(p, "unknown modifier or type '.%.*s' on '%s'", (int)p->tok.len,
                                p->tok.text, info->name);
            insn.suffix[insn.nsuffix++] = (uint16_t)m;
        }
        TRY(pp_next(p));
    }
    mb_operand ops[MAX_TOP_OPERANDS];
    unsigned n = 0;
    if (!pp_is_punct(p, ';')) {
        for (;;) {
            if (n == MAX_TOP_OPERANDS)
                return pp_error(p, "too many operands for '%s'", info->name);
            TRY(parse_operand(p, &insn, &ops[n], 0));
            n++;
            if (!pp_is_punct(p, ','))
                break;
            TRY(pp_next(p));
        }
    }
    if (!pp_is_punct(p, ';')) {
        if (p->tok.kind == TOK_EOF)
            return pp_error(p, "unexpected end of file: missing ';' after '%s'", info->name);
        return pp_error(p, "expected ',' or ';' after an operand of '%s'", info->name);
    }
    if (n < info->min_operands || n > info->max_operands) {
        if (info->min_operands == info->max_operands)
            return pp_error_at(p, op_line, op_col, "'%s' takes %u operand%s, found %u", info->name,
                               info->min_operands, info->min_operands == 1 ? "" : "s", n);
        return pp_error_at(p, op_line, op_col, "'%s' takes %u to %u operands, found %u",
                           info->name, info->min_operands, info->max_operands, n);
    }
    if (MB_GROW(fn->operands, fn->cap_operands, (size_t)fn->noperands + n) != MB_OK ||
        MB_GROW(fn->insns, fn->cap_insns, (size_t)fn->ninsns + 1) != MB_OK)
        return pp_nomem(p);
    if (fn->ninsns >= (1u << 30))
        return mb_error_set(p->err, MB_ERR_LIMIT, p->filename, op_line, op_col,
                            "too many instructions in function '%s'", fn->name);
    insn.operands = fn->noperands;
    insn.noperands = (uint8_t)n;
    if (n) /* fn->operands may still be NULL when nothing had operands yet */
        memcpy(&fn->operands[fn->noperands], ops, n * sizeof(mb_operand));
    fn->noperands += n;
    fn->insns[fn->ninsns++] = insn;
    return pp_next(p);
}

/* ------------------------------------------------------------------ body */

static mb_status parse_statement(ptx_parser *p)
{
    if (pp_is_punct(p, '{')) {
        TRY(open_scope(p));
        return pp_next(p);
    }
    if (p->tok.kind == TOK_DOT) {
        if (pp_is_dot(p, "reg"))
            return parse_reg_decl(p);
        if (pp_is_dot(p, "local"))
            return pp_parse_var_decl(p, MB_SPACE_LOCAL, MB_LINK_NONE, 1);
        if (pp_is_dot(p, "shared"))
            return pp_parse_var_decl(p, MB_SPACE_SHARED, MB_LINK_NONE, 1);
        if (pp_is_dot(p, "param"))
            return pp_parse_var_decl(p, MB_SPACE_PARAM, MB_LINK_NONE, 1);
        if (pp_is_dot(p, "const"))
            return pp_parse_var_decl(p, MB_SPACE_CONST, MB_LINK_NONE, 1);
        if (pp_is_dot(p, "loc"))
            return pp_parse_loc(p);
        if (pp_is_dot(p, "pragma"))
            return parse_body_pragma(p);
        return pp_error(p, "unknown directive '.%.*s' in a function body", (int)p->tok.len,
                        p->tok.text);
    }
    if (p->tok.kind == TOK_IDENT && pp_peek_punct(p, ':'))
        return parse_label_def(p);
    if (p->tok.kind == TOK_IDENT || pp_is_punct(p, '@'))
        return parse_instruction(p);
    if (p->tok.kind == TOK_EOF)
        return pp_error(p, "unexpected end of file inside function '%s' (body opened at %d:%d)",
                        p->fn->name, p->fn->line, p->fn->col);
    return pp_error(p, "expected an instruction, label or declaration");
}

mb_status pp_parse_body(ptx_parser *p)
{
    mb_function *fn = p->fn;
    fn->reg_names = mb_strmap_new();
    fn->label_names = mb_strmap_new();
    mb_strmap_free(p->local_names);
    p->local_names = mb_strmap_new();
    p->nshadows = 0;
    p->cur_loc = -1;
    if (!fn->reg_names || !fn->label_names || !p->local_names)
        return pp_nomem(p);
    fn->loc_begin = fn->loc_end = p->m->nlocs;
    TRY(open_scope(p)); /* scope 0: the body; current token is '{' */
    TRY(pp_next(p));
    for (;;) {
        if (pp_is_punct(p, '}')) {
            int closing_body = p->scope == 0;
            TRY(close_scope(p));
            TRY(pp_next(p));
            if (closing_body)
                break;
            continue;
        }
        TRY(parse_statement(p));
    }
    fn->loc_end = p->m->nlocs;
    for (uint32_t i = 0; i < fn->nlabels; i++) {
        const mb_label *l = &fn->labels[i];
        if (!l->defined)
            return pp_error_at(p, l->line, l->col, "undefined label '%s' in function '%s'",
                               l->name, fn->name);
    }
    for (uint32_t i = 0; i < fn->ninsns; i++) {
        const mb_insn *insn = &fn->insns[i];
        if (insn->opcode != MB_OP_BRA)
            continue;
        const mb_operand *o = mb_insn_operand(fn, insn, 0);
        if (o->kind != MB_OPND_LABEL || fn->labels[o->u.label].kind != MB_LABEL_CODE)
            return pp_error_at(p, insn->line, insn->col, "bra needs a code label as its target");
    }
    return MB_OK;
}
