/* PTX parser, module level: directives, variables, function signatures. */
#include "ptx_parser.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

mb_status pp_error_at(ptx_parser *p, int line, int col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mb_error_vset(p->err, MB_ERR_PARSE, p->filename, line, col, fmt, ap);
    va_end(ap);
    return MB_ERR_PARSE;
}

mb_status pp_error(ptx_parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mb_error_vset(p->err, MB_ERR_PARSE, p->filename, p->tok.line, p->tok.col, fmt, ap);
    va_end(ap);
    /* Truncated input: say so, whatever was expected. */
    if (p->err && p->tok.kind == TOK_EOF && !strstr(p->err->msg, "end of file")) {
        size_t n = strlen(p->err->msg);
        snprintf(p->err->msg + n, sizeof(p->err->msg) - n, ", found end of file");
    }
    return MB_ERR_PARSE;
}

mb_status pp_nomem(ptx_parser *p)
{
    return mb_error_set(p->err, MB_ERR_NOMEM, p->filename, p->tok.line, p->tok.col,
                        "out of memory");
}

mb_status pp_next(ptx_parser *p)
{
    return ptx_lex(&p->lx, &p->tok, p->err);
}

int pp_is_punct(const ptx_parser *p, char c)
{
    return p->tok.kind == TOK_PUNCT && p->tok.punct == c;
}

int pp_is_dot(const ptx_parser *p, const char *name)
{
    return p->tok.kind == TOK_DOT && p->tok.len == strlen(name) &&
           memcmp(p->tok.text, name, p->tok.len) == 0;
}

int pp_is_ident(const ptx_parser *p, const char *name)
{
    return p->tok.kind == TOK_IDENT && p->tok.len == strlen(name) &&
           memcmp(p->tok.text, name, p->tok.len) == 0;
}

/* A short description of the current token for "expected X, found Y". */
static void describe_token(const ptx_token *t, char *buf, size_t size)
{
    switch (t->kind) {
    case TOK_EOF: snprintf(buf, size, "end of file"); break;
    case TOK_PUNCT: snprintf(buf, size, "'%c'", t->punct); break;
    case TOK_DOT: snprintf(buf, size, "'.%.*s'", (int)(t->len > 60 ? 60 : t->len), t->text); break;
    case TOK_STRING: snprintf(buf, size, "a string"); break;
    default: snprintf(buf, size, "'%.*s'", (int)(t->len > 60 ? 60 : t->len), t->text); break;
    }
}

mb_status pp_expect_punct(ptx_parser *p, char c, const char *context)
{
    if (!pp_is_punct(p, c)) {
        char found[96];
        describe_token(&p->tok, found, sizeof(found));
        return pp_error(p, "expected '%c' %s, found %s", c, context, found);
    }
    return pp_next(p);
}

int pp_peek_punct(ptx_parser *p, char c)
{
    ptx_lexer save = p->lx;
    ptx_token t;
    mb_error scratch;
    int match = ptx_lex(&save, &t, &scratch) == MB_OK && t.kind == TOK_PUNCT && t.punct == c;
    return match;
}

char *pp_strdup_tok(ptx_parser *p, const ptx_token *t)
{
    return mb_arena_strndup(p->m->arena, t->text, t->len);
}

static mb_status expect_int(ptx_parser *p, uint64_t *v, const char *what)
{
    if (p->tok.kind != TOK_INT) {
        char found[96];
        describe_token(&p->tok, found, sizeof(found));
        return pp_error(p, "expected an integer %s, found %s", what, found);
    }
    *v = p->tok.ival;
    return pp_next(p);
}

static mb_status expect_uint(ptx_parser *p, unsigned *v, const char *what)
{
    uint64_t x = 0;
    int line = p->tok.line, col = p->tok.col;
    mb_status st = expect_int(p, &x, what);
    if (st != MB_OK)
        return st;
    if (x > 0x7fffffffu)
        return pp_error_at(p, line, col, "%s %llu is too large", what, (unsigned long long)x);
    *v = (unsigned)x;
    return MB_OK;
}

int pp_module_symbol(ptx_parser *p, const char *name, size_t len)
{
    return mb_strmap_get(p->m->symbols, name, len);
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        mb_status st_ = (expr);                                                                    \
        if (st_ != MB_OK)                                                                          \
            return st_;                                                                            \
    } while (0)

static mb_status push_item(ptx_parser *p, mb_item_kind kind, uint32_t index, int prototype)
{
    mb_module *m = p->m;
    if (MB_GROW(m->items, m->cap_items, m->nitems + 1) != MB_OK)
        return pp_nomem(p);
    m->items[m->nitems].kind = kind;
    m->items[m->nitems].index = index;
    m->items[m->nitems].prototype = prototype;
    m->nitems++;
    return MB_OK;
}

static mb_space space_of_directive(const ptx_token *t)
{
    static const struct {
        const char *name;
        mb_space space;
    } spaces[] = {{"global", MB_SPACE_GLOBAL}, {"const", MB_SPACE_CONST}, {"shared", MB_SPACE_SHARED},
                  {"local", MB_SPACE_LOCAL},   {"param", MB_SPACE_PARAM}, {"tex", MB_SPACE_TEX},
                  {"reg", MB_SPACE_REG}};
    if (t->kind != TOK_DOT)
        return MB_SPACE_NONE;
    for (size_t i = 0; i < sizeof(spaces) / sizeof(spaces[0]); i++)
        if (strlen(spaces[i].name) == t->len && memcmp(spaces[i].name, t->text, t->len) == 0)
            return spaces[i].space;
    /* shared::cta / shared::cluster qualify the shared space */
    if (t->len > 8 && memcmp(t->text, "shared::", 8) == 0)
        return MB_SPACE_SHARED;
    return MB_SPACE_NONE;
}

static mb_ptx_type lookup_type(ptx_parser *p, const ptx_token *t)
{
    int v = mb_strmap_get(p->types, t->text, t->len);
    return v < 0 ? MB_TYPE_NONE : (mb_ptx_type)v;
}

/* ------------------------------------------------------- declarations */

mb_status pp_parse_dims(ptx_parser *p, unsigned *ndims, uint64_t *dims, int allow_unsized)
{
    *ndims = 0;
    while (pp_is_punct(p, '[')) {
        int line = p->tok.line, col = p->tok.col;
        if (*ndims == 4)
            return pp_error(p, "arrays have at most 4 dimensions");
        TRY(pp_next(p));
        uint64_t n = 0;
        if (pp_is_punct(p, ']')) {
            if (*ndims != 0 || !allow_unsized)
                return pp_error(p, "only the first array dimension may be left unsized");
        } else {
            TRY(expect_int(p, &n, "array size"));
            if (n == 0)
                return pp_error_at(p, line, col, "array dimension must be positive");
        }
        dims[(*ndims)++] = n;
        TRY(pp_expect_punct(p, ']', "to close the array dimension"));
    }
    return MB_OK;
}

/* Product of dims with overflow detection; returns 0 on overflow. */
static int dims_product(unsigned ndims, const uint64_t *dims, uint64_t *out)
{
    uint64_t n = 1;
    for (unsigned i = 0; i < ndims; i++) {
        if (dims[i] && n > UINT64_MAX / dims[i])
            return 0;
        n *= dims[i];
    }
    *out = n;
    return 1;
}

static mb_status check_size(ptx_parser *p, int line, int col, const char *name, uint64_t nelems,
                            unsigned elem_bytes, uint64_t *size)
{
    if (elem_bytes && nelems > MB_PTX_MAX_VAR_BYTES / elem_bytes)
        return mb_error_set(p->err, MB_ERR_LIMIT, p->filename, line, col,
                            "'%s' is too large: %llu elements of %u bytes exceed the limit of "
                            "%llu bytes",
                            name, (unsigned long long)nelems, elem_bytes,
                            (unsigned long long)MB_PTX_MAX_VAR_BYTES);
    *size = nelems * elem_bytes;
    return MB_OK;
}

/* Shape of the variable an initialiser fills: agg[d] is the number of
 * scalars a brace list at nesting depth d stands for (0: unknown). */
typedef struct init_shape {
    uint64_t agg[6];
    unsigned nagg;
    mb_init_kind zero_kind; /* what an omitted trailing element is */
} init_shape;

enum { MAX_PADDED_INIT = 1 << 24 };

/* Parses one initialiser element (or a nested brace list) into the growing list. */
static mb_status parse_init_elems(ptx_parser *p, const init_shape *shape, mb_init **items,
                                  uint32_t *n, size_t *cap, int depth)
{
    if (pp_is_punct(p, '{')) {
        if (depth > 8)
            return pp_error(p, "initialiser nesting is too deep");
        int line = p->tok.line, col = p->tok.col;
        uint32_t start = *n;
        TRY(pp_next(p));
        if (!pp_is_punct(p, '}')) {
            for (;;) {
                TRY(parse_init_elems(p, shape, items, n, cap, depth + 1));
                if (!pp_is_punct(p, ','))
                    break;
                TRY(pp_next(p));
            }
        }
        TRY(pp_expect_punct(p, '}', "to close the initialiser list"));
        /* An inner list shorter than its row, like {{1}, {2, 3}}, leaves the
         * rest of the row zero: pad so elements keep their positions. */
        uint64_t want = depth >= 1 && (unsigned)depth < shape->nagg ? shape->agg[depth] : 0;
        if (want && *n - start > want)
            return pp_error_at(p, line, col, "initialiser list has %u elements, more than the %llu "
                               "it initialises", *n - start, (unsigned long long)want);
        if (want && *n - start < want) {
            if (start + want > MAX_PADDED_INIT)
                return mb_error_set(p->err, MB_ERR_LIMIT, p->filename, line, col,
                                    "initialiser has too many elements");
            if (MB_GROW(*items, *cap, (size_t)(start + want)) != MB_OK)
                return pp_nomem(p);
            for (; *n < start + want; (*n)++) {
                memset(&(*items)[*n], 0, sizeof(mb_init));
                (*items)[*n].kind = (unsigned char)shape->zero_kind;
            }
        }
        return MB_OK;
    }
    if (*n >= (1u << 28))
        return mb_error_set(p->err, MB_ERR_LIMIT, p->filename, p->tok.line, p->tok.col,
                            "initialiser has too many elements");
    if (MB_GROW(*items, *cap, (size_t)*n + 1) != MB_OK)
        return pp_nomem(p);
    mb_init *it = &(*items)[*n];
    memset(it, 0, sizeof(*it));
    int negative = 0;
    if (pp_is_punct(p, '-')) {
        negative = 1;
        TRY(pp_next(p));
    }
    switch (p->tok.kind) {
    case TOK_INT:
        it->kind = MB_INIT_INT;
        it->bits = negative ? (uint64_t)0 - p->tok.ival : p->tok.ival;
        it->negative = (unsigned char)negative;
        break;
    case TOK_F32:
        it->kind = MB_INIT_F32;
        it->bits = p->tok.ival ^ (negative ? UINT64_C(0x80000000) : 0);
        break;
    case TOK_F64:
        it->kind = MB_INIT_F64;
        it->bits = p->tok.ival ^ (negative ? UINT64_C(0x8000000000000000) : 0);
        break;
    case TOK_FLOAT: {
        double d = negative ? -p->tok.fval : p->tok.fval;
        it->kind = MB_INIT_F64;
        memcpy(&it->bits, &d, sizeof(d));
        break;
    }
    case TOK_IDENT: {
        if (negative)
            return pp_error(p, "a symbol address cannot be negated");
        int generic = pp_is_ident(p, "generic");
        if (generic) {
            TRY(pp_next(p));
            TRY(pp_expect_punct(p, '(', "after 'generic'"));
            if (p->tok.kind != TOK_IDENT)
                return pp_error(p, "expected a symbol name inside generic()");
        }
        int sym = pp_module_symbol(p, p->tok.text, p->tok.len);
        if (sym < 0)
            return pp_error(p, "undeclared symbol '%.*s' in initialiser", (int)p->tok.len,
                            p->tok.text);
        it->kind = generic ? MB_INIT_GENERIC_ADDR : MB_INIT_ADDR;
        it->symkind = (unsigned char)(sym >> 24);
        it->sym = (uint32_t)(sym & 0xffffff);
        TRY(pp_next(p));
        if (generic)
            TRY(pp_expect_punct(p, ')', "to close generic()"));
        if (pp_is_punct(p, '+')) {
            TRY(pp_next(p));
            uint64_t off = 0;
            TRY(expect_int(p, &off, "address offset"));
            it->bits = off;
        }
        (*n)++;
        return MB_OK;
    }
    default:
        return pp_error(p, "expected a constant or symbol in initialiser");
    }
    (*n)++;
    return pp_next(p);
}

static mb_status add_var(ptx_parser *p, mb_var *v, int in_function)
{
    if (in_function) {
        mb_function *fn = p->fn;
        if (MB_GROW(fn->vars, fn->cap_vars, fn->nvars + 1) != MB_OK)
            return pp_nomem(p);
        int prev = mb_strmap_get(p->local_names, v->name, strlen(v->name));
        if (prev >= 0 && fn->vars[prev].scope == p->scope)
            return pp_error_at(p, v->line, v->col, "redeclaration of '%s'", v->name);
        TRY(pp_remember_shadow(p, 1, v->name, prev));
        v->scope = p->scope;
        fn->vars[fn->nvars] = *v;
        if (mb_strmap_put(p->local_names, v->name, strlen(v->name), (int)fn->nvars) != MB_OK)
            return pp_nomem(p);
        fn->nvars++;
        return MB_OK;
    }
    mb_module *m = p->m;
    int prev = pp_module_symbol(p, v->name, strlen(v->name));
    if (prev >= 0) {
        /* An extern declaration may be repeated or followed by the definition. */
        if ((prev >> 24) == MB_SYM_GLOBAL_VAR) {
            uint32_t index = (uint32_t)(prev & 0xffffff);
            mb_var *old = &m->vars[index];
            if (old->linkage == MB_LINK_EXTERN || v->linkage == MB_LINK_EXTERN) {
                /* Another extern declaration adds nothing. A definition
                 * replaces the variable; the earlier item stays where it
                 * was and prints as an .extern declaration (prototype). */
                if (v->linkage == MB_LINK_EXTERN)
                    return MB_OK;
                for (uint32_t i = 0; i < m->nitems; i++)
                    if (m->items[i].kind == MB_ITEM_VAR && m->items[i].index == index)
                        m->items[i].prototype = 1;
                v->scope = -1;
                *old = *v;
                return push_item(p, MB_ITEM_VAR, index, 0);
            }
        }
        return pp_error_at(p, v->line, v->col, "redeclaration of '%s'", v->name);
    }
    if (MB_GROW(m->vars, m->cap_vars, m->nvars + 1) != MB_OK)
        return pp_nomem(p);
    v->scope = -1;
    m->vars[m->nvars] = *v;
    if (mb_strmap_put(m->symbols, v->name, strlen(v->name),
                      (int)(((uint32_t)MB_SYM_GLOBAL_VAR << 24) | m->nvars)) != MB_OK)
        return pp_nomem(p);
    m->nvars++;
    return push_item(p, MB_ITEM_VAR, m->nvars - 1, 0);
}

mb_status pp_parse_var_decl(ptx_parser *p, mb_space space, mb_linkage linkage, int in_function)
{
    mb_var proto;
    memset(&proto, 0, sizeof(proto));
    proto.space = space;
    proto.linkage = linkage;
    proto.vec = 1;
    TRY(pp_next(p)); /* the state-space directive */
    while (p->tok.kind == TOK_DOT) {
        if (pp_is_dot(p, "align")) {
            TRY(pp_next(p));
            int line = p->tok.line, col = p->tok.col;
            TRY(expect_uint(p, &proto.align, "alignment"));
            if (proto.align == 0 || (proto.align & (proto.align - 1)))
                return pp_error_at(p, line, col, "alignment %u is not a power of two",
                                   proto.align);
        } else if (pp_is_dot(p, "attribute")) {
            TRY(pp_next(p));
            TRY(pp_expect_punct(p, '(', "after .attribute"));
            while (p->tok.kind == TOK_DOT) {
                if (pp_is_dot(p, "managed"))
                    proto.attrs |= MB_VAR_MANAGED;
                else
                    return pp_error(p, "unknown variable attribute '.%.*s'", (int)p->tok.len,
                                    p->tok.text);
                TRY(pp_next(p));
            }
            TRY(pp_expect_punct(p, ')', "to close .attribute"));
        } else if (pp_is_dot(p, "v2") || pp_is_dot(p, "v4") || pp_is_dot(p, "v8")) {
            proto.vec = (unsigned)(p->tok.text[1] - '0');
            TRY(pp_next(p));
        } else {
            mb_ptx_type t = lookup_type(p, &p->tok);
            if (t == MB_TYPE_NONE)
                return pp_error(p, "unknown type or attribute '.%.*s' in declaration",
                                (int)p->tok.len, p->tok.text);
            if (proto.type != MB_TYPE_NONE)
                return pp_error(p, "declaration has two types");
            proto.type = t;
            TRY(pp_next(p));
        }
    }
    if (proto.type == MB_TYPE_NONE)
        return pp_error(p, "declaration has no type");
    for (;;) {
        mb_var v = proto;
        if (p->tok.kind != TOK_IDENT)
            return pp_error(p, "expected a variable name");
        v.name = pp_strdup_tok(p, &p->tok);
        v.line = p->tok.line;
        v.col = p->tok.col;
        if (!v.name)
            return pp_nomem(p);
        TRY(pp_next(p));
        TRY(pp_parse_dims(p, &v.ndims, v.dims, 1));
        if (!dims_product(v.ndims, v.dims, &v.nelems))
            return mb_error_set(p->err, MB_ERR_LIMIT, p->filename, v.line, v.col,
                                "array '%s' has too many elements", v.name);
        if (pp_is_punct(p, '=')) {
            TRY(pp_next(p));
            size_t cap = 0;
            uint32_t n = 0;
            mb_init *items = NULL;
            init_shape shape;
            memset(&shape, 0, sizeof(shape));
            shape.zero_kind = mb_type_kind_of(v.type) == MB_TYPE_KIND_F ? MB_INIT_F64 : MB_INIT_INT;
            shape.nagg = v.ndims + 1;
            for (unsigned d = 0; d < shape.nagg; d++) {
                uint64_t k = v.vec;
                for (unsigned j = d; j < v.ndims && k; j++)
                    k = v.dims[j] && k <= UINT64_MAX / v.dims[j] ? k * v.dims[j] : 0;
                shape.agg[d] = k;
            }
            mb_status st = parse_init_elems(p, &shape, &items, &n, &cap, 0);
            if (st == MB_OK) {
                v.init = mb_arena_alloc(p->m->arena, (size_t)n * sizeof(mb_init) + 1);
                if (!v.init)
                    st = pp_nomem(p);
                else if (n)
                    memcpy(v.init, items, (size_t)n * sizeof(mb_init));
            }
            free(items);
            TRY(st);
            v.ninit = n;
            uint64_t per_elem = v.vec;
            uint64_t inner = 1;
            for (unsigned i = 1; i < v.ndims; i++)
                inner *= v.dims[i];
            if (v.ndims && v.dims[0] == 0) {
                uint64_t row = inner * per_elem;
                v.dims[0] = (n + row - 1) / row;
                if (v.dims[0] == 0)
                    v.dims[0] = 1;
                v.nelems = v.dims[0] * inner;
            }
            uint64_t capacity = (v.ndims ? v.nelems : 1) * per_elem;
            if (n > capacity)
                return pp_error_at(p, v.line, v.col,
                                   "initialiser of '%s' has %u elements, more than its %llu", v.name,
                                   n, (unsigned long long)capacity);
        }
        if (v.ndims && v.dims[0] == 0)
            v.nelems = 0; /* extern or dynamically sized */
        TRY(check_size(p, v.line, v.col, v.name, v.ndims ? v.nelems : 1,
                       mb_type_size(v.type) * v.vec, &v.size));
        TRY(add_var(p, &v, in_function));
        if (!pp_is_punct(p, ','))
            break;
        TRY(pp_next(p));
    }
    return pp_expect_punct(p, ';', "after the declaration");
}

mb_status pp_parse_param(ptx_parser *p, mb_param *out, int allow_anonymous)
{
    memset(out, 0, sizeof(*out));
    out->vec = 1;
    out->line = p->tok.line;
    out->col = p->tok.col;
    if (pp_is_dot(p, "param"))
        out->space = MB_SPACE_PARAM;
    else if (pp_is_dot(p, "reg"))
        out->space = MB_SPACE_REG;
    else
        return pp_error(p, "expected .param or .reg in a parameter list");
    TRY(pp_next(p));
    int seen_ptr = 0;
    while (p->tok.kind == TOK_DOT) {
        if (pp_is_dot(p, "align")) {
            TRY(pp_next(p));
            unsigned a;
            int line = p->tok.line, col = p->tok.col;
            TRY(expect_uint(p, &a, "alignment"));
            if (a == 0 || (a & (a - 1)))
                return pp_error_at(p, line, col, "alignment %u is not a power of two", a);
            if (seen_ptr)
                out->ptr_align = a;
            else
                out->align = a;
        } else if (pp_is_dot(p, "ptr")) {
            seen_ptr = 1;
            out->is_ptr = 1;
            TRY(pp_next(p));
        } else if (seen_ptr && space_of_directive(&p->tok) != MB_SPACE_NONE) {
            out->ptr_space = space_of_directive(&p->tok);
            TRY(pp_next(p));
        } else if (pp_is_dot(p, "v2") || pp_is_dot(p, "v4") || pp_is_dot(p, "v8")) {
            out->vec = (unsigned)(p->tok.text[1] - '0');
            TRY(pp_next(p));
        } else {
            mb_ptx_type t = lookup_type(p, &p->tok);
            if (t == MB_TYPE_NONE)
                return pp_error(p, "unknown type or attribute '.%.*s' in parameter",
                                (int)p->tok.len, p->tok.text);
            out->type = t;
            TRY(pp_next(p));
        }
    }
    if (out->type == MB_TYPE_NONE)
        return pp_error(p, "parameter has no type");
    if (p->tok.kind != TOK_IDENT)
        return pp_error(p, "expected a parameter name");
    if (!allow_anonymous && pp_is_ident(p, "_"))
        return pp_error(p, "parameter needs a name");
    out->name = pp_strdup_tok(p, &p->tok);
    if (!out->name)
        return pp_nomem(p);
    TRY(pp_next(p));
    TRY(pp_parse_dims(p, &out->ndims, out->dims, 0));
    uint64_t n;
    if (!dims_product(out->ndims, out->dims, &n))
        return mb_error_set(p->err, MB_ERR_LIMIT, p->filename, out->line, out->col,
                            "parameter '%s' has too many elements", out->name);
    return check_size(p, out->line, out->col, out->name, n, mb_type_size(out->type) * out->vec,
                      &out->size);
}

/* `( param, param, ... )` into an arena array. */
static mb_status parse_param_list(ptx_parser *p, mb_param **params, uint32_t *n, int allow_anonymous)
{
    TRY(pp_expect_punct(p, '(', "to open the parameter list"));
    mb_param *list = NULL;
    size_t cap = 0;
    uint32_t count = 0;
    mb_status st = MB_OK;
    if (!pp_is_punct(p, ')')) {
        for (;;) {
            if (MB_GROW(list, cap, (size_t)count + 1) != MB_OK) {
                st = pp_nomem(p);
                break;
            }
            st = pp_parse_param(p, &list[count], allow_anonymous);
            if (st != MB_OK)
                break;
            count++;
            if (!pp_is_punct(p, ','))
                break;
            st = pp_next(p);
            if (st != MB_OK)
                break;
        }
    }
    if (st == MB_OK)
        st = pp_expect_punct(p, ')', "to close the parameter list");
    if (st == MB_OK) {
        *params = mb_arena_alloc(p->m->arena, (size_t)count * sizeof(mb_param) + 1);
        if (!*params)
            st = pp_nomem(p);
        else if (count)
            memcpy(*params, list, (size_t)count * sizeof(mb_param));
        *n = count;
    }
    free(list);
    return st;
}

/* Parses a .callprototype signature after the directive: `(rets) _ (params) [.noreturn];` */
mb_status pp_parse_prototype(ptx_parser *p, mb_label *label);
mb_status pp_parse_prototype(ptx_parser *p, mb_label *label)
{
    if (pp_is_punct(p, '('))
        TRY(parse_param_list(p, &label->proto_rets, &label->nproto_rets, 1));
    if (!pp_is_ident(p, "_"))
        return pp_error(p, "expected '_' in .callprototype");
    TRY(pp_next(p));
    if (pp_is_punct(p, '('))
        TRY(parse_param_list(p, &label->proto_params, &label->nproto_params, 1));
    if (pp_is_dot(p, "noreturn")) {
        label->proto_noreturn = 1;
        TRY(pp_next(p));
    }
    return pp_expect_punct(p, ';', "after .callprototype");
}

static mb_status parse_dim_list(ptx_parser *p, unsigned *vals, unsigned *n, const char *what)
{
    *n = 0;
    for (;;) {
        if (*n == 3)
            return pp_error(p, "%s takes at most 3 values", what);
        TRY(expect_uint(p, &vals[*n], what));
        (*n)++;
        if (!pp_is_punct(p, ','))
            return MB_OK;
        TRY(pp_next(p));
    }
}

static mb_status parse_perf_directives(ptx_parser *p, mb_function *f)
{
    mb_perf *perf = &f->perf;
    const char **pragmas = NULL;
    size_t cap = 0;
    mb_status st = MB_OK;
    while (st == MB_OK && p->tok.kind == TOK_DOT) {
        if (pp_is_dot(p, "maxntid")) {
            st = pp_next(p);
            if (st == MB_OK)
                st = parse_dim_list(p, perf->maxntid, &perf->nmaxntid, ".maxntid");
        } else if (pp_is_dot(p, "reqntid")) {
            st = pp_next(p);
            if (st == MB_OK)
                st = parse_dim_list(p, perf->reqntid, &perf->nreqntid, ".reqntid");
        } else if (pp_is_dot(p, "reqnctapercluster")) {
            st = pp_next(p);
            if (st == MB_OK)
                st = parse_dim_list(p, perf->reqnctapercluster, &perf->nreqnctapercluster,
                                    ".reqnctapercluster");
        } else if (pp_is_dot(p, "minnctapersm")) {
            st = pp_next(p);
            if (st == MB_OK)
                st = expect_uint(p, &perf->minnctapersm, ".minnctapersm");
        } else if (pp_is_dot(p, "maxnctapersm")) {
            st = pp_next(p);
            if (st == MB_OK)
                st = expect_uint(p, &perf->maxnctapersm, ".maxnctapersm");
        } else if (pp_is_dot(p, "maxnreg")) {
            st = pp_next(p);
            if (st == MB_OK)
                st = expect_uint(p, &perf->maxnreg, ".maxnreg");
        } else if (pp_is_dot(p, "maxclusterrank")) {
            st = pp_next(p);
            if (st == MB_OK)
                st = expect_uint(p, &perf->maxclusterrank, ".maxclusterrank");
        } else if (pp_is_dot(p, "explicitcluster")) {
            perf->explicitcluster = 1;
            st = pp_next(p);
        } else if (pp_is_dot(p, "noreturn")) {
            f->noreturn = 1;
            st = pp_next(p);
        } else if (pp_is_dot(p, "pragma")) {
            st = pp_next(p);
            if (st == MB_OK && p->tok.kind != TOK_STRING)
                st = pp_error(p, "expected a string after .pragma");
            if (st == MB_OK && MB_GROW(pragmas, cap, (size_t)perf->npragmas + 1) != MB_OK)
                st = pp_nomem(p);
            if (st == MB_OK) {
                pragmas[perf->npragmas] = pp_strdup_tok(p, &p->tok);
                if (!pragmas[perf->npragmas])
                    st = pp_nomem(p);
                perf->npragmas++;
            }
            if (st == MB_OK)
                st = pp_next(p);
            if (st == MB_OK)
                st = pp_expect_punct(p, ';', "after .pragma");
        } else {
            st = pp_error(p, "unknown directive '.%.*s' before the function body",
                          (int)p->tok.len, p->tok.text);
        }
    }
    if (st == MB_OK && perf->npragmas) {
        perf->pragmas = mb_arena_alloc(p->m->arena, perf->npragmas * sizeof(char *));
        if (!perf->pragmas)
            st = pp_nomem(p);
        else
            memcpy(perf->pragmas, pragmas, perf->npragmas * sizeof(char *));
    }
    free(pragmas);
    return st;
}

static void free_function_storage(mb_function *f)
{
    free(f->regs);
    free(f->regdecls);
    free(f->vars);
    free(f->scopes);
    free(f->labels);
    free(f->insns);
    free(f->operands);
    free(f->pragmas);
    mb_strmap_free(f->reg_names);
    mb_strmap_free(f->label_names);
    f->regs = NULL;
    f->regdecls = NULL;
    f->vars = NULL;
    f->scopes = NULL;
    f->labels = NULL;
    f->insns = NULL;
    f->operands = NULL;
    f->pragmas = NULL;
    f->reg_names = f->label_names = NULL;
}

static mb_status parse_function(ptx_parser *p, mb_linkage linkage)
{
    mb_module *m = p->m;
    mb_function f;
    memset(&f, 0, sizeof(f));
    f.linkage = linkage;
    f.line = p->tok.line;
    f.col = p->tok.col;
    f.is_entry = pp_is_dot(p, "entry");
    TRY(pp_next(p));
    if (!f.is_entry && pp_is_punct(p, '('))
        TRY(parse_param_list(p, &f.rets, &f.nrets, 0));
    if (p->tok.kind != TOK_IDENT)
        return pp_error(p, "expected a function name");
    f.name = pp_strdup_tok(p, &p->tok);
    if (!f.name)
        return pp_nomem(p);
    int name_line = p->tok.line, name_col = p->tok.col;
    TRY(pp_next(p));
    if (pp_is_punct(p, '('))
        TRY(parse_param_list(p, &f.params, &f.nparams, 0));
    else if (f.is_entry)
        return pp_error(p, "expected '(' to open the kernel's parameter list");
    TRY(parse_perf_directives(p, &f));

    /* Find or create the function's slot: a prototype may precede the definition. */
    int sym = pp_module_symbol(p, f.name, strlen(f.name));
    uint32_t index;
    if (sym >= 0) {
        if ((sym >> 24) != MB_SYM_FUNC)
            return pp_error_at(p, name_line, name_col, "'%s' is already declared as a variable",
                               f.name);
        index = (uint32_t)(sym & 0xffffff);
        if (pp_is_punct(p, '{') && m->funcs[index].has_body)
            return pp_error_at(p, name_line, name_col, "redefinition of function '%s'", f.name);
    } else {
        if (MB_GROW(m->funcs, m->cap_funcs, m->nfuncs + 1) != MB_OK)
            return pp_nomem(p);
        index = m->nfuncs++;
        memset(&m->funcs[index], 0, sizeof(mb_function));
        if (mb_strmap_put(m->symbols, f.name, strlen(f.name),
                          (int)(((uint32_t)MB_SYM_FUNC << 24) | index)) != MB_OK)
            return pp_nomem(p);
    }
    if (pp_is_punct(p, ';')) {
        if (!m->funcs[index].has_body && !m->funcs[index].name)
            m->funcs[index] = f;
        TRY(push_item(p, MB_ITEM_FUNC, index, 1));
        return pp_next(p);
    }
    if (!pp_is_punct(p, '{'))
        return pp_error(p, "expected '{' or ';' after the function signature");
    f.has_body = 1;
    m->funcs[index] = f;
    p->fn = &m->funcs[index];
    TRY(push_item(p, MB_ITEM_FUNC, index, 0));
    mb_status st = pp_parse_body(p);
    p->fn = NULL;
    return st;
}

static mb_status parse_version(ptx_parser *p)
{
    TRY(pp_next(p));
    int line = p->tok.line, col = p->tok.col;
    if (p->tok.kind != TOK_FLOAT && p->tok.kind != TOK_INT)
        return pp_error(p, "expected a version number like 8.8 after .version");
    unsigned major = 0, minor = 0;
    const char *s = p->tok.text;
    size_t i = 0;
    while (i < p->tok.len && s[i] >= '0' && s[i] <= '9')
        major = major * 10 + (unsigned)(s[i++] - '0');
    if (i >= p->tok.len || s[i] != '.')
        return pp_error_at(p, line, col, "expected a version number like 8.8 after .version");
    i++;
    while (i < p->tok.len && s[i] >= '0' && s[i] <= '9')
        minor = minor * 10 + (unsigned)(s[i++] - '0');
    if (i != p->tok.len || major > 99 || minor > 99)
        return pp_error_at(p, line, col, "malformed .version number");
    if (major > 9 || (major == 9 && minor > 0))
        return mb_error_set(p->err, MB_ERR_UNSUPPORTED, p->filename, line, col,
                            "PTX ISA version %u.%u is newer than the 9.0 this front end knows",
                            major, minor);
    p->m->version_major = major;
    p->m->version_minor = minor;
    return pp_next(p);
}

static mb_status parse_target(ptx_parser *p)
{
    mb_module *m = p->m;
    TRY(pp_next(p));
    for (;;) {
        if (p->tok.kind != TOK_IDENT)
            return pp_error(p, "expected a target name like sm_75 after .target");
        if (MB_GROW(m->targets, m->cap_targets, m->ntargets + 1) != MB_OK)
            return pp_nomem(p);
        m->targets[m->ntargets] = pp_strdup_tok(p, &p->tok);
        if (!m->targets[m->ntargets])
            return pp_nomem(p);
        m->ntargets++;
        TRY(pp_next(p));
        if (!pp_is_punct(p, ','))
            return MB_OK;
        TRY(pp_next(p));
    }
}

static mb_status parse_file_directive(ptx_parser *p)
{
    mb_module *m = p->m;
    TRY(pp_next(p));
    mb_file_entry fe;
    memset(&fe, 0, sizeof(fe));
    unsigned idx;
    TRY(expect_uint(p, &idx, "file index"));
    fe.index = (int)idx;
    if (p->tok.kind != TOK_STRING)
        return pp_error(p, "expected a file name string in .file");
    fe.name = pp_strdup_tok(p, &p->tok);
    if (!fe.name)
        return pp_nomem(p);
    TRY(pp_next(p));
    if (pp_is_punct(p, ',')) {
        TRY(pp_next(p));
        TRY(expect_int(p, &fe.timestamp, "timestamp"));
        TRY(pp_expect_punct(p, ',', "between the .file timestamp and size"));
        TRY(expect_int(p, &fe.size, "file size"));
        fe.has_meta = 1;
    }
    if (MB_GROW(m->files, m->cap_files, m->nfiles + 1) != MB_OK)
        return pp_nomem(p);
    m->files[m->nfiles++] = fe;
    return push_item(p, MB_ITEM_FILE, m->nfiles - 1, 0);
}

/* Keeps a .section block verbatim: it holds DWARF data only debuggers read. */
static mb_status parse_section(ptx_parser *p)
{
    mb_module *m = p->m;
    const char *start = p->tok.text - 1; /* include the dot */
    int line = p->tok.line, col = p->tok.col;
    int depth = 0;
    TRY(pp_next(p));
    for (;;) {
        if (p->tok.kind == TOK_EOF)
            return pp_error_at(p, line, col, "unterminated .section block");
        if (pp_is_punct(p, '{'))
            depth++;
        else if (pp_is_punct(p, '}')) {
            if (--depth == 0)
                break;
        }
        TRY(pp_next(p));
    }
    const char *end = p->tok.text + 1;
    if (MB_GROW(m->sections, m->cap_sections, m->nsections + 1) != MB_OK)
        return pp_nomem(p);
    m->sections[m->nsections].text = mb_arena_strndup(m->arena, start, (size_t)(end - start));
    if (!m->sections[m->nsections].text)
        return pp_nomem(p);
    m->nsections++;
    TRY(push_item(p, MB_ITEM_SECTION, m->nsections - 1, 0));
    return pp_next(p);
}

static mb_status parse_module_pragma(ptx_parser *p)
{
    mb_module *m = p->m;
    TRY(pp_next(p));
    if (p->tok.kind != TOK_STRING)
        return pp_error(p, "expected a string after .pragma");
    if (MB_GROW(m->pragmas, m->cap_pragmas, m->npragmas + 1) != MB_OK)
        return pp_nomem(p);
    m->pragmas[m->npragmas] = pp_strdup_tok(p, &p->tok);
    if (!m->pragmas[m->npragmas])
        return pp_nomem(p);
    m->npragmas++;
    TRY(push_item(p, MB_ITEM_PRAGMA, m->npragmas - 1, 0));
    TRY(pp_next(p));
    return pp_expect_punct(p, ';', "after .pragma");
}

static mb_status parse_module_statement(ptx_parser *p)
{
    if (p->tok.kind != TOK_DOT) {
        char found[96];
        describe_token(&p->tok, found, sizeof(found));
        return pp_error(p, "expected a directive at module scope, found %s", found);
    }
    if (pp_is_dot(p, "version"))
        return parse_version(p);
    if (pp_is_dot(p, "target"))
        return parse_target(p);
    if (pp_is_dot(p, "address_size")) {
        TRY(pp_next(p));
        int line = p->tok.line, col = p->tok.col;
        unsigned bits;
        TRY(expect_uint(p, &bits, "address size"));
        if (bits != 32 && bits != 64)
            return pp_error_at(p, line, col, ".address_size must be 32 or 64, not %u", bits);
        p->m->address_size = bits;
        return MB_OK;
    }
    if (pp_is_dot(p, "file"))
        return parse_file_directive(p);
    if (pp_is_dot(p, "section"))
        return parse_section(p);
    if (pp_is_dot(p, "pragma"))
        return parse_module_pragma(p);
    mb_linkage linkage = MB_LINK_NONE;
    if (pp_is_dot(p, "visible"))
        linkage = MB_LINK_VISIBLE;
    else if (pp_is_dot(p, "extern"))
        linkage = MB_LINK_EXTERN;
    else if (pp_is_dot(p, "weak"))
        linkage = MB_LINK_WEAK;
    else if (pp_is_dot(p, "common"))
        linkage = MB_LINK_COMMON;
    if (linkage != MB_LINK_NONE)
        TRY(pp_next(p));
    if (pp_is_dot(p, "entry") || pp_is_dot(p, "func"))
        return parse_function(p, linkage);
    mb_space space = space_of_directive(&p->tok);
    if (space == MB_SPACE_GLOBAL || space == MB_SPACE_CONST || space == MB_SPACE_SHARED ||
        space == MB_SPACE_TEX)
        return pp_parse_var_decl(p, space, linkage, 0);
    if (space != MB_SPACE_NONE)
        return pp_error(p, "'.%.*s' variables are not allowed at module scope", (int)p->tok.len,
                        p->tok.text);
    if (pp_is_dot(p, "alias"))
        return mb_error_set(p->err, MB_ERR_UNSUPPORTED, p->filename, p->tok.line, p->tok.col,
                            "the .alias directive is not supported");
    return pp_error(p, "unknown directive '.%.*s' at module scope", (int)p->tok.len, p->tok.text);
}

/* ------------------------------------------------------------ entry */

static mb_status build_tables(ptx_parser *p)
{
    p->types = mb_strmap_new();
    p->mods = mb_strmap_new();
    p->opcodes = mb_strmap_new();
    p->sregs = mb_strmap_new();
    if (!p->types || !p->mods || !p->opcodes || !p->sregs)
        return pp_nomem(p);
    for (int t = 1; t < MB_TYPE_COUNT; t++) {
        const char *n = mb_type_name((mb_ptx_type)t);
        if (mb_strmap_put(p->types, n, strlen(n), t) != MB_OK)
            return pp_nomem(p);
    }
    for (int i = 1; i < MB_MOD_COUNT; i++) {
        const char *n = mb_mod_name((mb_ptx_mod)i);
        if (mb_strmap_put(p->mods, n, strlen(n), i) != MB_OK)
            return pp_nomem(p);
    }
    for (int o = 0; o < MB_OP_COUNT; o++) {
        const char *n = mb_opcode_get((mb_opcode)o)->name;
        if (mb_strmap_put(p->opcodes, n, strlen(n), o) != MB_OK)
            return pp_nomem(p);
    }
    for (int s = 0; s < MB_SREG_COUNT; s++) {
        const char *n = mb_sreg_name((mb_sreg)s);
        if (mb_strmap_put(p->sregs, n, strlen(n), s) != MB_OK)
            return pp_nomem(p);
    }
    return MB_OK;
}

void mb_module_free(mb_module *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        free_function_storage(&m->funcs[i]);
    free(m->vars);
    free(m->funcs);
    free(m->files);
    free(m->sections);
    free(m->pragmas);
    free(m->items);
    free(m->locs);
    free(m->targets);
    mb_strmap_free(m->symbols);
    mb_arena_free(m->arena);
    free(m);
}

mb_status mb_ptx_parse(const char *text, size_t len, const char *filename, mb_module **out,
                       mb_error *err)
{
    *out = NULL;
    if (!filename)
        filename = "<input>";
    if (len > MB_PTX_MAX_FILE_BYTES)
        return mb_error_set(err, MB_ERR_LIMIT, filename, 0, 0, "PTX text is larger than %d bytes",
                            MB_PTX_MAX_FILE_BYTES);
    ptx_parser p;
    memset(&p, 0, sizeof(p));
    p.err = err;
    p.filename = filename;
    mb_module *m = calloc(1, sizeof(*m));
    mb_status st = MB_OK;
    if (!m)
        return mb_error_set(err, MB_ERR_NOMEM, filename, 0, 0, "out of memory");
    p.m = m;
    m->arena = mb_arena_new();
    m->symbols = mb_strmap_new();
    if (!m->arena || !m->symbols)
        st = pp_nomem(&p);
    if (st == MB_OK) {
        m->filename = mb_arena_strdup(m->arena, filename);
        if (!m->filename)
            st = pp_nomem(&p);
    }
    if (st == MB_OK)
        st = build_tables(&p);
    ptx_lexer_init(&p.lx, text, len, m->filename ? m->filename : filename);
    if (st == MB_OK)
        st = pp_next(&p);
    int seen_version = 0;
    while (st == MB_OK && p.tok.kind != TOK_EOF) {
        if (!seen_version && !pp_is_dot(&p, "version")) {
            st = pp_error(&p, "a PTX module must start with .version");
            break;
        }
        int first = !seen_version;
        seen_version = 1;
        st = parse_module_statement(&p);
        if (st == MB_OK && first && !pp_is_dot(&p, "target")) {
            char found[96];
            describe_token(&p.tok, found, sizeof(found));
            st = pp_error(&p, "expected .target after .version, found %s", found);
        }
    }
    if (st == MB_OK && !seen_version)
        st = mb_error_set(err, MB_ERR_PARSE, filename, 1, 1,
                          "empty module: expected .version, .target and at least one function");
    if (st == MB_OK && m->ntargets == 0)
        st = mb_error_set(err, MB_ERR_PARSE, filename, 0, 0, "missing .target directive");
    mb_strmap_free(p.types);
    mb_strmap_free(p.mods);
    mb_strmap_free(p.opcodes);
    mb_strmap_free(p.sregs);
    mb_strmap_free(p.local_names);
    free(p.shadows);
    if (st != MB_OK) {
        mb_module_free(m);
        return st;
    }
    *out = m;
    return MB_OK;
}

mb_status mb_ptx_parse_file(const char *path, mb_module **out, mb_error *err)
{
    char *text;
    size_t len;
    *out = NULL;
    mb_status st = mb_read_file(path, MB_PTX_MAX_FILE_BYTES, &text, &len, err);
    if (st != MB_OK)
        return st;
    st = mb_ptx_parse(text, len, path, out, err);
    free(text);
    return st;
}

mb_function *mb_module_find_function(const mb_module *m, const char *name)
{
    int sym = mb_strmap_get(m->symbols, name, strlen(name));
    if (sym < 0 || (sym >> 24) != MB_SYM_FUNC)
        return NULL;
    return &m->funcs[sym & 0xffffff];
}
