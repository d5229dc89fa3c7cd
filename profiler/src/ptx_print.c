/* Canonical PTX printer. The output re-parses to the same module, and
 * printing that module again gives identical text. */
#include <minibench/profiler.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *linkage_text(mb_linkage l)
{
    switch (l) {
    case MB_LINK_VISIBLE: return ".visible ";
    case MB_LINK_EXTERN: return ".extern ";
    case MB_LINK_WEAK: return ".weak ";
    case MB_LINK_COMMON: return ".common ";
    case MB_LINK_NONE: break;
    }
    return "";
}

static void print_dims(mb_buf *b, unsigned ndims, const uint64_t *dims)
{
    for (unsigned i = 0; i < ndims; i++) {
        if (dims[i])
            mb_buf_printf(b, "[%" PRIu64 "]", dims[i]);
        else
            mb_buf_puts(b, "[]");
    }
}

static const char *symbol_name(const mb_module *m, const mb_function *fn, unsigned symkind,
                               uint32_t sym)
{
    switch ((mb_symkind)symkind) {
    case MB_SYM_GLOBAL_VAR: return m->vars[sym].name;
    case MB_SYM_FUNC: return m->funcs[sym].name;
    case MB_SYM_LOCAL_VAR: return fn ? fn->vars[sym].name : "?";
    case MB_SYM_PARAM: return fn ? fn->params[sym].name : "?";
    case MB_SYM_RET: return fn ? fn->rets[sym].name : "?";
    case MB_SYM_NONE: break;
    }
    return "?";
}

static void print_int(mb_buf *b, uint64_t bits, int negative)
{
    if (negative)
        mb_buf_printf(b, "-%" PRIu64, (uint64_t)0 - bits);
    else if (bits > (uint64_t)INT64_MAX)
        mb_buf_printf(b, "0x%016" PRIX64, bits);
    else
        mb_buf_printf(b, "%" PRIu64, bits);
}

static void print_init_item(mb_buf *b, const mb_module *m, const mb_init *it)
{
    switch ((mb_init_kind)it->kind) {
    case MB_INIT_INT: print_int(b, it->bits, it->negative); break;
    case MB_INIT_F32: mb_buf_printf(b, "0f%08" PRIX32, (uint32_t)it->bits); break;
    case MB_INIT_F64: mb_buf_printf(b, "0d%016" PRIX64, it->bits); break;
    case MB_INIT_ADDR:
    case MB_INIT_GENERIC_ADDR:
        if (it->kind == MB_INIT_GENERIC_ADDR)
            mb_buf_printf(b, "generic(%s)", symbol_name(m, NULL, it->symkind, it->sym));
        else
            mb_buf_puts(b, symbol_name(m, NULL, it->symkind, it->sym));
        if (it->bits)
            mb_buf_printf(b, "+%" PRIu64, it->bits);
        break;
    }
}

/* Prints `count` initialiser items starting at *pos nested along the
 * dimensions from `dim` on (vectors form the innermost level). */
static void print_init_nested(mb_buf *b, const mb_module *m, const mb_var *v, unsigned dim,
                              uint32_t *pos)
{
    uint64_t n = dim < v->ndims ? v->dims[dim] : v->vec;
    int leaf = dim >= v->ndims;
    mb_buf_putc(b, '{');
    for (uint64_t i = 0; i < n; i++) {
        if (i)
            mb_buf_puts(b, ", ");
        if (leaf)
            print_init_item(b, m, &v->init[(*pos)++]);
        else if (dim + 1 == v->ndims && v->vec == 1)
            print_init_item(b, m, &v->init[(*pos)++]);
        else
            print_init_nested(b, m, v, dim + 1, pos);
    }
    mb_buf_putc(b, '}');
}

static void print_init(mb_buf *b, const mb_module *m, const mb_var *v)
{
    if (!v->init)
        return;
    mb_buf_puts(b, " = ");
    uint64_t full = (v->ndims ? v->nelems : 1) * v->vec;
    if (v->ndims == 0 && v->vec == 1 && v->ninit == 1) {
        print_init_item(b, m, &v->init[0]);
        return;
    }
    if (v->ninit == full && full > 0) {
        uint32_t pos = 0;
        print_init_nested(b, m, v, 0, &pos);
        return;
    }
    mb_buf_putc(b, '{');
    for (uint32_t i = 0; i < v->ninit; i++) {
        if (i)
            mb_buf_puts(b, ", ");
        print_init_item(b, m, &v->init[i]);
    }
    mb_buf_putc(b, '}');
}

static void print_var(mb_buf *b, const mb_module *m, const mb_var *v)
{
    mb_buf_printf(b, "%s%s", linkage_text(v->linkage), mb_space_name(v->space));
    if (v->attrs & MB_VAR_MANAGED)
        mb_buf_puts(b, " .attribute(.managed)");
    if (v->align)
        mb_buf_printf(b, " .align %u", v->align);
    if (v->vec > 1)
        mb_buf_printf(b, " .v%u", v->vec);
    mb_buf_printf(b, " .%s %s", mb_type_name(v->type), v->name);
    print_dims(b, v->ndims, v->dims);
    print_init(b, m, v);
    mb_buf_puts(b, ";");
}

static void print_param(mb_buf *b, const mb_param *p)
{
    mb_buf_puts(b, p->space == MB_SPACE_REG ? ".reg" : ".param");
    if (p->align)
        mb_buf_printf(b, " .align %u", p->align);
    if (p->vec > 1)
        mb_buf_printf(b, " .v%u", p->vec);
    mb_buf_printf(b, " .%s", mb_type_name(p->type));
    if (p->is_ptr) {
        mb_buf_puts(b, " .ptr");
        if (p->ptr_space != MB_SPACE_NONE)
            mb_buf_printf(b, " %s", mb_space_name(p->ptr_space));
        if (p->ptr_align)
            mb_buf_printf(b, " .align %u", p->ptr_align);
    }
    mb_buf_printf(b, " %s", p->name);
    print_dims(b, p->ndims, p->dims);
}

static void print_param_list(mb_buf *b, const mb_param *params, uint32_t n, int multiline)
{
    mb_buf_putc(b, '(');
    for (uint32_t i = 0; i < n; i++) {
        if (multiline)
            mb_buf_puts(b, i ? ",\n\t" : "\n\t");
        else if (i)
            mb_buf_puts(b, ", ");
        print_param(b, &params[i]);
    }
    if (multiline && n)
        mb_buf_putc(b, '\n');
    mb_buf_putc(b, ')');
}

static void print_operand(mb_buf *b, const mb_module *m, const mb_function *fn, const mb_operand *o);

static void print_list(mb_buf *b, const mb_module *m, const mb_function *fn, const mb_operand *o,
                       const char *open, const char *close)
{
    mb_buf_puts(b, open);
    for (uint32_t i = 0; i < o->u.list.count; i++) {
        if (i)
            mb_buf_puts(b, ", ");
        print_operand(b, m, fn, &fn->operands[o->u.list.first + i]);
    }
    mb_buf_puts(b, close);
}

static void print_offset(mb_buf *b, int64_t off, int address)
{
    if (off > 0)
        mb_buf_printf(b, "+%" PRId64, off);
    else if (off < 0)
        mb_buf_printf(b, address ? "+%" PRId64 : "%" PRId64, off);
}

static void print_operand(mb_buf *b, const mb_module *m, const mb_function *fn, const mb_operand *o)
{
    if (o->flags & MB_OPND_NOT)
        mb_buf_putc(b, '!');
    switch ((mb_operand_kind)o->kind) {
    case MB_OPND_REG: mb_buf_puts(b, fn->regs[o->u.reg].name); break;
    case MB_OPND_SREG: {
        mb_sreg id = (mb_sreg)o->u.sreg.id;
        mb_buf_puts(b, mb_sreg_name(id));
        if (mb_sreg_form_of(id) == MB_SREG_FORM_VEC && o->u.sreg.comp)
            mb_buf_printf(b, ".%c", "xyzw"[o->u.sreg.comp - 1]);
        else if (mb_sreg_form_of(id) == MB_SREG_FORM_INDEXED) {
            if (o->u.sreg.comp >= 1000)
                mb_buf_printf(b, "%u_64", o->u.sreg.comp - 1000u);
            else
                mb_buf_printf(b, "%u", o->u.sreg.comp);
        }
        break;
    }
    case MB_OPND_IMM: print_int(b, o->u.bits, (o->flags & MB_OPND_NEGLIT) != 0); break;
    case MB_OPND_F32: mb_buf_printf(b, "0f%08" PRIX32, (uint32_t)o->u.bits); break;
    case MB_OPND_F64: mb_buf_printf(b, "0d%016" PRIX64, o->u.bits); break;
    case MB_OPND_SYMBOL:
        mb_buf_puts(b, symbol_name(m, fn, o->symkind, o->u.sym));
        print_offset(b, o->offset, 0);
        break;
    case MB_OPND_LABEL: mb_buf_puts(b, fn->labels[o->u.label].name); break;
    case MB_OPND_ADDR:
        mb_buf_putc(b, '[');
        if (o->base_kind == MB_OPND_REG)
            mb_buf_puts(b, fn->regs[o->u.reg].name);
        else if (o->base_kind == MB_OPND_SYMBOL)
            mb_buf_puts(b, symbol_name(m, fn, o->symkind, o->u.sym));
        else
            mb_buf_printf(b, "%" PRIu64, o->u.bits);
        if (o->base_kind != MB_OPND_IMM)
            print_offset(b, o->offset, 1);
        mb_buf_putc(b, ']');
        break;
    case MB_OPND_VEC: print_list(b, m, fn, o, "{", "}"); break;
    case MB_OPND_BRACKET_LIST: print_list(b, m, fn, o, "[", "]"); break;
    case MB_OPND_LIST: print_list(b, m, fn, o, "(", ")"); break;
    case MB_OPND_SINK: mb_buf_putc(b, '_'); break;
    case MB_OPND_PAIR:
        mb_buf_printf(b, "%s|%s",
                      o->u.pair.first == MB_PAIR_SINK ? "_" : fn->regs[o->u.pair.first].name,
                      o->u.pair.second == MB_PAIR_SINK ? "_" : fn->regs[o->u.pair.second].name);
        break;
    }
}

void mb_ptx_print_mnemonic(const mb_insn *insn, mb_buf *b)
{
    mb_buf_puts(b, mb_opcode_get((mb_opcode)insn->opcode)->name);
    for (unsigned i = 0; i < insn->nsuffix; i++) {
        uint16_t s = insn->suffix[i];
        mb_buf_putc(b, '.');
        if (s & MB_SUFFIX_TYPE)
            mb_buf_puts(b, mb_type_name((mb_ptx_type)(s & ~MB_SUFFIX_TYPE)));
        else
            mb_buf_puts(b, mb_mod_name((mb_ptx_mod)s));
    }
}

void mb_ptx_print_insn(const mb_module *m, const mb_function *fn, const mb_insn *insn, mb_buf *b)
{
    if (insn->guard >= 0)
        mb_buf_printf(b, "@%s%s ", insn->guard_not ? "!" : "", fn->regs[insn->guard].name);
    mb_ptx_print_mnemonic(insn, b);
    for (unsigned i = 0; i < insn->noperands; i++) {
        mb_buf_puts(b, i ? ", " : " ");
        print_operand(b, m, fn, mb_insn_operand(fn, insn, i));
    }
    mb_buf_putc(b, ';');
}

static void indent(mb_buf *b, int depth)
{
    for (int i = 0; i < depth; i++)
        mb_buf_putc(b, '\t');
}

static void print_loc(mb_buf *b, const mb_loc *loc, int depth)
{
    indent(b, depth);
    mb_buf_printf(b, ".loc %d %d %d", loc->file, loc->line, loc->col);
    if (loc->function_name) {
        mb_buf_printf(b, ", function_name %s", loc->function_name);
        if (loc->function_name_offset)
            mb_buf_printf(b, "+%" PRId64, loc->function_name_offset);
        mb_buf_printf(b, ", inlined_at %d %d %d", loc->inlined_file, loc->inlined_line,
                      loc->inlined_col);
    }
    mb_buf_putc(b, '\n');
}

static void print_label(mb_buf *b, const mb_module *m, const mb_function *fn, const mb_label *l,
                        int depth)
{
    switch (l->kind) {
    case MB_LABEL_CODE: mb_buf_printf(b, "%s:\n", l->name); return;
    case MB_LABEL_BRANCHTARGETS:
    case MB_LABEL_CALLTARGETS:
        indent(b, depth);
        mb_buf_printf(b, "%s: %s ", l->name,
                      l->kind == MB_LABEL_BRANCHTARGETS ? ".branchtargets" : ".calltargets");
        for (uint32_t i = 0; i < l->ntargets; i++) {
            if (i)
                mb_buf_puts(b, ", ");
            mb_buf_puts(b, l->kind == MB_LABEL_BRANCHTARGETS ? fn->labels[l->targets[i]].name
                                                             : m->funcs[l->targets[i]].name);
        }
        mb_buf_puts(b, ";\n");
        return;
    case MB_LABEL_CALLPROTOTYPE:
        indent(b, depth);
        mb_buf_printf(b, "%s: .callprototype ", l->name);
        if (l->nproto_rets) {
            print_param_list(b, l->proto_rets, l->nproto_rets, 0);
            mb_buf_putc(b, ' ');
        }
        mb_buf_puts(b, "_ ");
        print_param_list(b, l->proto_params, l->nproto_params, 0);
        if (l->proto_noreturn)
            mb_buf_puts(b, " .noreturn");
        mb_buf_puts(b, ";\n");
        return;
    }
}

static void print_scope_decls(mb_buf *b, const mb_module *m, const mb_function *fn, int scope,
                              int depth)
{
    for (uint32_t i = 0; i < fn->nvars; i++) {
        if (fn->vars[i].scope != scope)
            continue;
        indent(b, depth);
        print_var(b, m, &fn->vars[i]);
        mb_buf_putc(b, '\n');
    }
    for (uint32_t i = 0; i < fn->nregdecls; i++) {
        const mb_regdecl *d = &fn->regdecls[i];
        if (d->scope != scope)
            continue;
        indent(b, depth);
        mb_buf_puts(b, ".reg");
        if (d->vec > 1)
            mb_buf_printf(b, " .v%u", d->vec);
        mb_buf_printf(b, " .%s %s", mb_type_name(d->type), d->prefix);
        if (d->count)
            mb_buf_printf(b, "<%u>", d->count);
        mb_buf_puts(b, ";\n");
    }
}

typedef struct mark_cursors {
    uint32_t label, pragma, loc;
    const uint32_t *label_order;
    unsigned char *label_done;
} mark_cursors;

/* Labels, pragmas and .loc directives at position `pos` in `scope`. */
static void print_marks(mb_buf *b, const mb_module *m, const mb_function *fn, uint32_t pos,
                        int scope, int depth, mark_cursors *c)
{
    uint32_t *label_cursor = &c->label, *pragma_cursor = &c->pragma;
    const uint32_t *label_order = c->label_order;
    unsigned char *label_done = c->label_done;
    for (uint32_t k = *label_cursor; k < fn->nlabels; k++) {
        const mb_label *l = &fn->labels[label_order[k]];
        if (l->insn != pos)
            break;
        if (!label_done[k] && l->scope == scope) {
            print_label(b, m, fn, l, depth);
            label_done[k] = 1;
        }
    }
    while (*label_cursor < fn->nlabels && label_done[*label_cursor])
        (*label_cursor)++;
    while (*pragma_cursor < fn->npragmas && fn->pragmas[*pragma_cursor].insn == pos &&
           fn->pragmas[*pragma_cursor].scope == scope) {
        indent(b, depth);
        mb_buf_printf(b, ".pragma \"%s\";\n", fn->pragmas[*pragma_cursor].text);
        (*pragma_cursor)++;
    }
    while (c->loc < fn->loc_end && m->locs[c->loc].insn == pos && m->locs[c->loc].scope == scope)
        print_loc(b, &m->locs[c->loc++], depth);
}


static mb_status print_body(mb_buf *b, const mb_module *m, const mb_function *fn)
{
    uint32_t *order = malloc(((size_t)fn->nlabels + 1) * sizeof(uint32_t));
    unsigned char *done = calloc((size_t)fn->nlabels + 1, 1);
    int *stack = malloc(((size_t)fn->nscopes + 1) * sizeof(int));
    if (!order || !done || !stack) {
        free(order);
        free(done);
        free(stack);
        return MB_ERR_NOMEM;
    }
    /* Labels are created in source order except forward references; a stable
     * insertion sort by position keeps definition order within a position. */
    for (uint32_t i = 0; i < fn->nlabels; i++) {
        uint32_t j = i;
        while (j > 0 && fn->labels[order[j - 1]].insn > fn->labels[i].insn) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    /* Forward references are created before their definition, so order by
     * definition position within a position using line numbers. */
    for (uint32_t i = 1; i < fn->nlabels; i++) {
        uint32_t cur = order[i];
        uint32_t j = i;
        while (j > 0 && fn->labels[order[j - 1]].insn == fn->labels[cur].insn &&
               (fn->labels[order[j - 1]].line > fn->labels[cur].line ||
                (fn->labels[order[j - 1]].line == fn->labels[cur].line &&
                 fn->labels[order[j - 1]].col > fn->labels[cur].col))) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = cur;
    }
    mb_buf_puts(b, "{\n");
    print_scope_decls(b, m, fn, 0, 1);
    int depth = 0;
    stack[0] = 0;
    uint32_t next_scope = 1;
    mark_cursors cur = {0, 0, fn->loc_begin, order, done};
    for (uint32_t i = 0; i <= fn->ninsns; i++) {
        for (;;) {
            int top = stack[depth];
            if (next_scope < fn->nscopes && fn->scopes[next_scope].begin == i &&
                fn->scopes[next_scope].parent == top) {
                print_marks(b, m, fn, i, top, depth + 1, &cur);
                indent(b, depth + 1);
                mb_buf_puts(b, "{\n");
                stack[++depth] = (int)next_scope;
                print_scope_decls(b, m, fn, (int)next_scope, depth + 1);
                next_scope++;
                continue;
            }
            if (top != 0 && fn->scopes[top].end == i) {
                print_marks(b, m, fn, i, top, depth + 1, &cur);
                indent(b, depth);
                mb_buf_puts(b, "}\n");
                depth--;
                continue;
            }
            break;
        }
        print_marks(b, m, fn, i, stack[depth], depth + 1, &cur);
        if (i == fn->ninsns)
            break;
        const mb_insn *insn = &fn->insns[i];
        indent(b, depth + 1);
        mb_ptx_print_insn(m, fn, insn, b);
        mb_buf_putc(b, '\n');
    }
    mb_buf_puts(b, "}\n");
    free(order);
    free(done);
    free(stack);
    return MB_OK;
}

static void print_perf(mb_buf *b, const mb_perf *perf)
{
    static const char *const names[] = {".maxntid", ".reqntid", ".reqnctapercluster"};
    const unsigned *vals[] = {perf->maxntid, perf->reqntid, perf->reqnctapercluster};
    const unsigned counts[] = {perf->nmaxntid, perf->nreqntid, perf->nreqnctapercluster};
    for (int k = 0; k < 3; k++) {
        if (!counts[k])
            continue;
        mb_buf_puts(b, names[k]);
        for (unsigned i = 0; i < counts[k]; i++)
            mb_buf_printf(b, "%s%u", i ? ", " : " ", vals[k][i]);
        mb_buf_putc(b, '\n');
    }
    if (perf->minnctapersm)
        mb_buf_printf(b, ".minnctapersm %u\n", perf->minnctapersm);
    if (perf->maxnctapersm)
        mb_buf_printf(b, ".maxnctapersm %u\n", perf->maxnctapersm);
    if (perf->maxnreg)
        mb_buf_printf(b, ".maxnreg %u\n", perf->maxnreg);
    if (perf->maxclusterrank)
        mb_buf_printf(b, ".maxclusterrank %u\n", perf->maxclusterrank);
    if (perf->explicitcluster)
        mb_buf_puts(b, ".explicitcluster\n");
    for (unsigned i = 0; i < perf->npragmas; i++)
        mb_buf_printf(b, ".pragma \"%s\";\n", perf->pragmas[i]);
}

static mb_status print_function(mb_buf *b, const mb_module *m, const mb_function *fn, int prototype)
{
    mb_buf_printf(b, "%s%s ", linkage_text(fn->linkage), fn->is_entry ? ".entry" : ".func");
    if (!fn->is_entry && fn->nrets) {
        print_param_list(b, fn->rets, fn->nrets, 0);
        mb_buf_putc(b, ' ');
    }
    mb_buf_puts(b, fn->name);
    if (fn->is_entry || fn->nparams)
        print_param_list(b, fn->params, fn->nparams, 1);
    if (fn->noreturn)
        mb_buf_puts(b, " .noreturn");
    mb_buf_putc(b, '\n');
    print_perf(b, &fn->perf);
    if (prototype || !fn->has_body) {
        mb_buf_puts(b, ";\n");
        return MB_OK;
    }
    return print_body(b, m, fn);
}

mb_status mb_ptx_print(const mb_module *m, mb_buf *b, mb_error *err)
{
    mb_buf_puts(b, "//\n// Canonical PTX written by minibench\n//\n\n");
    mb_buf_printf(b, ".version %u.%u\n.target ", m->version_major, m->version_minor);
    for (uint32_t i = 0; i < m->ntargets; i++)
        mb_buf_printf(b, "%s%s", i ? ", " : "", m->targets[i]);
    mb_buf_putc(b, '\n');
    if (m->address_size)
        mb_buf_printf(b, ".address_size %u\n", m->address_size);
    for (uint32_t k = 0; k < m->nitems; k++) {
        const mb_item *it = &m->items[k];
        mb_buf_putc(b, '\n');
        switch (it->kind) {
        case MB_ITEM_VAR:
            if (it->prototype) {
                /* an .extern declaration that a later definition replaced */
                mb_var decl = m->vars[it->index];
                decl.linkage = MB_LINK_EXTERN;
                decl.init = NULL;
                decl.ninit = 0;
                print_var(b, m, &decl);
            } else {
                print_var(b, m, &m->vars[it->index]);
            }
            mb_buf_putc(b, '\n');
            break;
        case MB_ITEM_FUNC:
            if (print_function(b, m, &m->funcs[it->index], it->prototype) != MB_OK)
                return mb_error_set(err, MB_ERR_NOMEM, m->filename, 0, 0, "out of memory");
            break;
        case MB_ITEM_FILE: {
            const mb_file_entry *f = &m->files[it->index];
            mb_buf_printf(b, ".file %d \"%s\"", f->index, f->name);
            if (f->has_meta)
                mb_buf_printf(b, ", %" PRIu64 ", %" PRIu64, f->timestamp, f->size);
            mb_buf_putc(b, '\n');
            break;
        }
        case MB_ITEM_SECTION:
            mb_buf_printf(b, "%s\n", m->sections[it->index].text);
            break;
        case MB_ITEM_PRAGMA:
            mb_buf_printf(b, ".pragma \"%s\";\n", m->pragmas[it->index]);
            break;
        }
    }
    if (b->failed)
        return mb_error_set(err, MB_ERR_NOMEM, m->filename, 0, 0, "out of memory");
    return MB_OK;
}
