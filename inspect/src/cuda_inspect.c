/*
 * The inspector: one walk over the libclang cursor tree collecting kernels,
 * CUDA variables and launch sites. Places come from libclang; the texts of
 * configurations, arguments and bounds are cut from the source as written
 * (cuda_text.c), so macros appear unexpanded.
 */
#include "cuda_inspect.h"
#include "cuda_text.h"
#include "cuda_tu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DIMS = 8, MAX_CALL_ARGS = 256, MAX_CHILDREN = 8 };

typedef struct inspect_ctx {
    cuda_tu *ctu;
    mb_cuda_source *src;
    struct mb_cuda_source_store *store;
    mb_strmap *kernel_by_usr; /* USR of the canonical declaration -> kernel index */
    int nomem;
} inspect_ctx;

/* What encloses the cursor being visited. */
typedef struct visit_frame {
    inspect_ctx *ctx;
    const char *function; /* enclosing function's name, NULL outside */
    int kernel;           /* enclosing kernel's index, -1 outside */
    int extern_c;         /* inside extern "C" { } */
} visit_frame;

const char *mb_cuda_space_name(mb_cuda_space space)
{
    switch (space) {
    case MB_CUDA_SPACE_SHARED: return "shared";
    case MB_CUDA_SPACE_CONSTANT: return "constant";
    case MB_CUDA_SPACE_DEVICE: return "device";
    }
    return "unknown";
}

/* ------------------------------------------------------------ small helpers */

static const char *intern(inspect_ctx *ctx, const char *s)
{
    char *copy = mb_arena_strdup(ctx->store->arena, s ? s : "");
    if (!copy)
        ctx->nomem = 1;
    return copy ? copy : "";
}

/* Interns a CXString and disposes it. */
static const char *intern_cx(inspect_ctx *ctx, CXString s)
{
    const char *copy = intern(ctx, clang_getCString(s));
    clang_disposeString(s);
    return copy;
}

static mb_cuda_loc location_of(inspect_ctx *ctx, CXSourceLocation loc)
{
    char file[1024];
    mb_cuda_loc out = {NULL, 0, 0};
    cuda_tu_location(ctx->ctu, loc, file, sizeof(file), &out.line, &out.col);
    out.file = intern(ctx, file);
    return out;
}

static const char *copy_span(inspect_ctx *ctx, const char *text, cuda_span span)
{
    char *copy = cuda_text_copy(ctx->store->arena, text, span);
    if (!copy)
        ctx->nomem = 1;
    return copy ? copy : "";
}

/*
 * The source text a cursor covers, as a buffer and a span in it: both ends
 * taken as file locations (where macro arguments were written, where macros
 * were used), which must fall in one file and in order. NULL otherwise.
 */
static const char *cursor_source(inspect_ctx *ctx, CXCursor c, cuda_span *span)
{
    CXSourceRange range = clang_getCursorExtent(c);
    size_t begin, end, size_begin, size_end;
    CXFile fb = NULL, fe = NULL;
    const char *text = cuda_tu_file_text(ctx->ctu, clang_getRangeStart(range), &begin, &size_begin, &fb);
    const char *text_end = cuda_tu_file_text(ctx->ctu, clang_getRangeEnd(range), &end, &size_end, &fe);
    if (!text || !text_end || !clang_File_isEqual(fb, fe) || end < begin)
        return NULL;
    *span = (cuda_span){begin, end - begin};
    return text;
}

/* A cursor's source text with blanks collapsed; "" when it has none. */
static const char *cursor_text(inspect_ctx *ctx, CXCursor c)
{
    cuda_span span;
    const char *text = cursor_source(ctx, c, &span);
    return text ? copy_span(ctx, text, span) : "";
}

typedef struct children {
    CXCursor at[MAX_CHILDREN];
    int n;     /* stored, at most MAX_CHILDREN */
    int total; /* all direct children */
} children;

static enum CXChildVisitResult collect_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    children *ch = data;
    if (ch->n < MAX_CHILDREN)
        ch->at[ch->n++] = c;
    ch->total++;
    return CXChildVisit_Continue;
}

static void children_of(CXCursor c, children *ch)
{
    ch->n = ch->total = 0;
    clang_visitChildren(c, collect_child, ch);
}

typedef struct attr_scan {
    int global, shared, constant, device;
} attr_scan;

static enum CXChildVisitResult scan_attr(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    attr_scan *a = data;
    switch (clang_getCursorKind(c)) {
    case CXCursor_CUDAGlobalAttr: a->global = 1; break;
    case CXCursor_CUDASharedAttr: a->shared = 1; break;
    case CXCursor_CUDAConstantAttr: a->constant = 1; break;
    case CXCursor_CUDADeviceAttr: a->device = 1; break;
    default: break;
    }
    return CXChildVisit_Continue;
}

static attr_scan attributes_of(CXCursor c)
{
    attr_scan a = {0, 0, 0, 0};
    clang_visitChildren(c, scan_attr, &a);
    return a;
}

static int grow(inspect_ctx *ctx, mb_status st)
{
    if (st != MB_OK)
        ctx->nomem = 1;
    return st == MB_OK;
}

/* ------------------------------------------------------------------ kernels */

static enum CXChildVisitResult collect_param(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    children *ch = data;
    if (clang_getCursorKind(c) == CXCursor_ParmDecl)
        ch->total++;
    return CXChildVisit_Continue;
}

typedef struct param_fill {
    inspect_ctx *ctx;
    mb_cuda_param *params;
    int n;
} param_fill;

static enum CXChildVisitResult fill_param(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    param_fill *pf = data;
    if (clang_getCursorKind(c) != CXCursor_ParmDecl)
        return CXChildVisit_Continue;
    mb_cuda_param *p = &pf->params[pf->n++];
    CXType type = clang_getCursorType(c);
    p->name = intern_cx(pf->ctx, clang_getCursorSpelling(c));
    p->type = intern_cx(pf->ctx, clang_getTypeSpelling(type));
    CXType pointer = type;
    if (pointer.kind != CXType_Pointer)
        pointer = clang_getCanonicalType(type);
    if (pointer.kind == CXType_Pointer) {
        p->is_pointer = 1;
        p->pointee = intern_cx(pf->ctx, clang_getTypeSpelling(clang_getPointeeType(pointer)));
    }
    return CXChildVisit_Continue;
}

static void read_params(inspect_ctx *ctx, CXCursor fn, mb_cuda_kernel *k)
{
    children count = {.n = 0, .total = 0};
    clang_visitChildren(fn, collect_param, &count);
    k->nparams = count.total;
    k->params = NULL;
    if (count.total == 0)
        return;
    mb_cuda_param *params = mb_arena_alloc(ctx->store->arena, (size_t)count.total * sizeof(*params));
    if (!params) {
        ctx->nomem = 1;
        k->nparams = 0;
        return;
    }
    param_fill pf = {ctx, params, 0};
    clang_visitChildren(fn, fill_param, &pf);
    k->params = params;
}

/* __launch_bounds__(...) between the start of the declaration and its name. */
static void read_launch_bounds(inspect_ctx *ctx, CXCursor fn, mb_cuda_kernel *k)
{
    k->launch_bounds = NULL;
    k->max_threads = k->min_blocks = -1;
    size_t begin, name_at, size, size2;
    CXFile f1 = NULL, f2 = NULL;
    const char *text = cuda_tu_file_text(ctx->ctu, clang_getRangeStart(clang_getCursorExtent(fn)), &begin,
                                         &size, &f1);
    const char *text2 = cuda_tu_file_text(ctx->ctu, clang_getCursorLocation(fn), &name_at, &size2, &f2);
    if (!text || !text2 || !clang_File_isEqual(f1, f2) || name_at < begin)
        return;
    cuda_span inside, values[3];
    if (cuda_text_macro_args(text + begin, name_at - begin, "__launch_bounds__", &inside) != 0)
        return;
    inside.start += begin;
    k->launch_bounds = copy_span(ctx, text, inside);
    int nvalues = cuda_text_split(text, inside, values, 3);
    if (nvalues >= 1)
        k->max_threads = cuda_text_integer(text + values[0].start, values[0].len);
    if (nvalues >= 2)
        k->min_blocks = cuda_text_integer(text + values[1].start, values[1].len);
}

/* The name nvcc gives the kernel's .entry: host-side mangling names the launch stub
 * ("<len+15>__device_stub__<name>"), the device side the kernel itself. */
static const char *ptx_name_of(inspect_ctx *ctx, CXCursor fn, const char *name, int extern_c)
{
    if (extern_c)
        return name;
    CXString mangled = clang_Cursor_getMangling(fn);
    const char *m = clang_getCString(mangled);
    const char *result = NULL;
    static const char stub[] = "__device_stub__";
    size_t name_len = strlen(name);
    if (m && m[0]) {
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "%zu%s", name_len + sizeof(stub) - 1, stub);
        const char *at = strstr(m, prefix);
        if (at && strncmp(at + strlen(prefix), name, name_len) == 0) {
            mb_buf b = MB_BUF_INIT;
            mb_buf_append(&b, m, (size_t)(at - m));
            mb_buf_printf(&b, "%zu", name_len);
            mb_buf_puts(&b, at + strlen(prefix));
            result = b.failed ? NULL : intern(ctx, b.data);
            if (b.failed)
                ctx->nomem = 1;
            mb_buf_free(&b);
        } else if (strcmp(m, name) == 0) {
            result = intern(ctx, m);
        }
    }
    clang_disposeString(mangled);
    return result;
}

/* C linkage: the host-side symbol is the plain name (libclang shows extern "C"
 * blocks as unexposed declarations, so the mangling is the reliable sign). */
static int is_extern_c(CXCursor fn, const char *name, int in_linkage_block)
{
    if (in_linkage_block)
        return 1;
    CXString mangled = clang_Cursor_getMangling(fn);
    const char *m = clang_getCString(mangled);
    int yes = m && strcmp(m, name) == 0;
    clang_disposeString(mangled);
    return yes;
}

/* Records (or completes) the kernel declared by `fn`; returns its index or -1. */
static int record_kernel(inspect_ctx *ctx, CXCursor fn, const visit_frame *frame)
{
    CXString usr_cx = clang_getCursorUSR(clang_getCanonicalCursor(fn));
    const char *usr = clang_getCString(usr_cx);
    int index = usr && usr[0] ? mb_strmap_get(ctx->kernel_by_usr, usr, strlen(usr)) : -1;
    int is_def = clang_isCursorDefinition(fn) != 0;
    struct mb_cuda_source_store *st = ctx->store;
    if (index < 0) {
        if (!grow(ctx, MB_GROW(st->kernels, st->kernels_cap, (size_t)ctx->src->nkernels + 1))) {
            clang_disposeString(usr_cx);
            return -1;
        }
        index = ctx->src->nkernels++;
        mb_cuda_kernel *k = &st->kernels[index];
        memset(k, 0, sizeof(*k));
        k->name = intern_cx(ctx, clang_getCursorSpelling(fn));
        k->is_template = clang_getCursorKind(fn) == CXCursor_FunctionTemplate;
        k->is_extern_c = !k->is_template && is_extern_c(fn, k->name, frame->extern_c);
        k->ptx_name = k->is_template ? NULL : ptx_name_of(ctx, fn, k->name, k->is_extern_c);
        k->loc = location_of(ctx, clang_getCursorLocation(fn));
        read_params(ctx, fn, k);
        read_launch_bounds(ctx, fn, k);
        k->is_definition = is_def;
        if (usr && usr[0] && mb_strmap_put(ctx->kernel_by_usr, usr, strlen(usr), index) != MB_OK)
            ctx->nomem = 1;
    } else if (is_def) {
        /* The definition's names and place are the ones a reader looks for. */
        mb_cuda_kernel *k = &st->kernels[index];
        k->is_definition = 1;
        k->loc = location_of(ctx, clang_getCursorLocation(fn));
        read_params(ctx, fn, k);
        const char *bounds = k->launch_bounds;
        long long max_threads = k->max_threads, min_blocks = k->min_blocks;
        read_launch_bounds(ctx, fn, k);
        if (!k->launch_bounds) {
            k->launch_bounds = bounds;
            k->max_threads = max_threads;
            k->min_blocks = min_blocks;
        }
    }
    clang_disposeString(usr_cx);
    return index;
}

/* The kernel a cursor refers to (a template specialization counts as its template). */
static int kernel_index_of(inspect_ctx *ctx, CXCursor ref)
{
    if (clang_Cursor_isNull(ref))
        return -1;
    CXCursor tmpl = clang_getSpecializedCursorTemplate(ref);
    if (!clang_Cursor_isNull(tmpl))
        ref = tmpl;
    CXString usr_cx = clang_getCursorUSR(clang_getCanonicalCursor(ref));
    const char *usr = clang_getCString(usr_cx);
    int index = usr && usr[0] ? mb_strmap_get(ctx->kernel_by_usr, usr, strlen(usr)) : -1;
    clang_disposeString(usr_cx);
    return index;
}

/* ---------------------------------------------------------------- variables */

static void record_var(inspect_ctx *ctx, CXCursor var, mb_cuda_space space, const visit_frame *frame)
{
    struct mb_cuda_source_store *st = ctx->store;
    if (!grow(ctx, MB_GROW(st->vars, st->vars_cap, (size_t)ctx->src->nvars + 1)))
        return;
    mb_cuda_var *v = &st->vars[ctx->src->nvars++];
    memset(v, 0, sizeof(*v));
    CXType type = clang_getCursorType(var);
    v->name = intern_cx(ctx, clang_getCursorSpelling(var));
    v->type = intern_cx(ctx, clang_getTypeSpelling(type));
    v->space = space;
    v->is_extern = clang_Cursor_getStorageClass(var) == CX_SC_Extern;
    v->function = frame->function;
    v->kernel = frame->kernel;
    v->loc = location_of(ctx, clang_getCursorLocation(var));
    long long bytes = clang_Type_getSizeOf(type);
    v->bytes = bytes >= 0 ? bytes : -1;

    /* Dimensions from the type (values), texts from the brackets after the name. */
    long long values[MAX_DIMS];
    int ndims = 0, incomplete_outer = 0;
    CXType t = type;
    for (;;) {
        CXType canon = clang_getCanonicalType(t);
        enum CXTypeKind kind = t.kind == CXType_Typedef || t.kind == CXType_Elaborated ? canon.kind : t.kind;
        if (kind != CXType_ConstantArray && kind != CXType_IncompleteArray &&
            kind != CXType_DependentSizedArray && kind != CXType_VariableArray)
            break;
        if (t.kind == CXType_Typedef || t.kind == CXType_Elaborated)
            t = canon;
        if (ndims == MAX_DIMS)
            break;
        if (kind == CXType_IncompleteArray && ndims == 0)
            incomplete_outer = 1;
        values[ndims++] = kind == CXType_ConstantArray ? clang_getArraySize(t) : -1;
        t = clang_getArrayElementType(t);
    }
    v->element_type = ndims ? intern_cx(ctx, clang_getTypeSpelling(t)) : v->type;
    v->is_dynamic = space == MB_CUDA_SPACE_SHARED && v->is_extern && incomplete_outer;
    v->ndims = ndims;
    if (ndims == 0)
        return;
    mb_cuda_dim *dims = mb_arena_alloc(st->arena, (size_t)ndims * sizeof(*dims));
    if (!dims) {
        ctx->nomem = 1;
        v->ndims = 0;
        return;
    }
    cuda_span spans[MAX_DIMS];
    int nspans = 0;
    size_t name_at = 0, size = 0;
    const char *text = cuda_tu_file_text(ctx->ctu, clang_getCursorLocation(var), &name_at, &size, NULL);
    if (text) {
        size_t after = name_at + strlen(v->name);
        if (after <= size && strncmp(text + name_at, v->name, strlen(v->name)) == 0)
            nspans = cuda_text_brackets(text, size, after, spans, MAX_DIMS);
    }
    for (int d = 0; d < ndims; d++) {
        dims[d].value = values[d];
        if (nspans == ndims) {
            dims[d].text = copy_span(ctx, text, spans[d]);
        } else {
            char num[32];
            snprintf(num, sizeof(num), "%lld", values[d]);
            dims[d].text = intern(ctx, values[d] >= 0 ? num : "");
        }
    }
    v->dims = dims;
}

/* ----------------------------------------------------------------- launches */

/* Copies `n` pieces of text into an arena array of strings. */
static const char *const *copy_pieces(inspect_ctx *ctx, const char *text, const cuda_span *pieces, int n)
{
    if (n <= 0)
        return NULL;
    const char **out = mb_arena_alloc(ctx->store->arena, (size_t)n * sizeof(*out));
    if (!out) {
        ctx->nomem = 1;
        return NULL;
    }
    for (int i = 0; i < n; i++)
        out[i] = copy_span(ctx, text, pieces[i]);
    return out;
}

static mb_cuda_launch *new_launch(inspect_ctx *ctx, CXCursor call, const visit_frame *frame)
{
    struct mb_cuda_source_store *st = ctx->store;
    if (!grow(ctx, MB_GROW(st->launches, st->launches_cap, (size_t)ctx->src->nlaunches + 1)))
        return NULL;
    mb_cuda_launch *l = &st->launches[ctx->src->nlaunches++];
    memset(l, 0, sizeof(*l));
    l->function = frame->function;
    l->kernel_index = -1;
    l->loc = location_of(ctx, clang_getCursorLocation(call));
    return l;
}

/* "name<args>" of a function template instance from its template arguments; the callee
 * as written when an argument is of a kind that cannot be spelled from here; NULL when
 * `ref` is not an instance. */
static const char *instance_name(inspect_ctx *ctx, CXCursor ref, const char *name, const char *callee)
{
    int n = clang_Cursor_getNumTemplateArguments(ref);
    if (n <= 0)
        return strchr(callee, '<') ? callee : NULL;
    mb_buf b = MB_BUF_INIT;
    mb_buf_printf(&b, "%s<", name);
    for (int i = 0; i < n; i++) {
        if (i)
            mb_buf_puts(&b, ", ");
        switch (clang_Cursor_getTemplateArgumentKind(ref, (unsigned)i)) {
        case CXTemplateArgumentKind_Type: {
            CXString t = clang_getTypeSpelling(clang_Cursor_getTemplateArgumentType(ref, (unsigned)i));
            mb_buf_puts(&b, clang_getCString(t));
            clang_disposeString(t);
            break;
        }
        case CXTemplateArgumentKind_Integral: {
            CXType t = clang_getCanonicalType(clang_Cursor_getTemplateArgumentType(ref, (unsigned)i));
            int is_unsigned = t.kind == CXType_UInt || t.kind == CXType_ULong || t.kind == CXType_ULongLong ||
                              t.kind == CXType_UShort || t.kind == CXType_UChar || t.kind == CXType_Bool;
            if (is_unsigned)
                mb_buf_printf(&b, "%llu", clang_Cursor_getTemplateArgumentUnsignedValue(ref, (unsigned)i));
            else
                mb_buf_printf(&b, "%lld", clang_Cursor_getTemplateArgumentValue(ref, (unsigned)i));
            break;
        }
        default:
            mb_buf_free(&b);
            return strchr(callee, '<') ? callee : NULL;
        }
    }
    mb_buf_putc(&b, '>');
    const char *result = b.failed ? NULL : intern(ctx, b.data);
    if (b.failed)
        ctx->nomem = 1;
    mb_buf_free(&b);
    return result;
}

static void add_instantiation(inspect_ctx *ctx, mb_cuda_kernel *k, const char *instance)
{
    if (!instance)
        return;
    for (int i = 0; i < k->ninstantiations; i++)
        if (strcmp(k->instantiations[i], instance) == 0)
            return;
    const char **list = mb_arena_alloc(ctx->store->arena, (size_t)(k->ninstantiations + 1) * sizeof(*list));
    if (!list) {
        ctx->nomem = 1;
        return;
    }
    if (k->ninstantiations)
        memcpy(list, k->instantiations, (size_t)k->ninstantiations * sizeof(*list));
    list[k->ninstantiations++] = instance;
    k->instantiations = list;
}

static void name_kernel(inspect_ctx *ctx, mb_cuda_launch *l, CXCursor callee_expr)
{
    CXCursor ref = clang_getCursorReferenced(callee_expr);
    l->kernel_index = kernel_index_of(ctx, ref);
    if (l->kernel_index >= 0) {
        mb_cuda_kernel *k = &ctx->store->kernels[l->kernel_index];
        l->kernel = k->name;
        /* The referenced declaration is the instance launched, so its mangling is the entry's. */
        l->ptx_name = k->is_extern_c ? k->name : ptx_name_of(ctx, ref, k->name, 0);
        if (k->is_template)
            add_instantiation(ctx, k, instance_name(ctx, ref, k->name, l->callee));
    } else if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_FunctionDecl) {
        l->kernel = intern_cx(ctx, clang_getCursorSpelling(ref));
    } else {
        l->kernel = l->callee;
    }
}

/* A part of a launch written in a macro: its own text, or "" when that is the whole macro use. */
static const char *part_text(inspect_ctx *ctx, CXCursor part, const char *whole_text)
{
    const char *t = cursor_text(ctx, part);
    return strcmp(t, whole_text) == 0 ? "" : t;
}

/* A default argument clang filled in: it has no place in the source. */
static int is_default_argument(CXCursor c)
{
    CXFile file = NULL;
    unsigned line = 0;
    clang_getFileLocation(clang_getCursorLocation(c), &file, &line, NULL, NULL);
    return !file || line == 0;
}

/* kernel<<<config>>>(args): `ch` holds the call's children (callee, configuration call, args...). */
static void record_chevron(inspect_ctx *ctx, CXCursor call, const children *ch, const visit_frame *frame)
{
    mb_cuda_launch *l = new_launch(ctx, call, frame);
    if (!l)
        return;
    l->kind = MB_CUDA_LAUNCH_CHEVRON;
    cuda_span whole, callee, config, args;
    cuda_span cfg[MB_CUDA_CFG_COUNT], arg_pieces[MAX_CALL_ARGS];
    const char *text = cursor_source(ctx, call, &whole);
    int ncfg = -1, nargs = -1;
    if (text && cuda_text_chevron(text + whole.start, whole.len, &callee, &config, &args) == 0) {
        callee.start += whole.start;
        config.start += whole.start;
        args.start += whole.start;
        ncfg = cuda_text_split(text, config, cfg, MB_CUDA_CFG_COUNT);
        nargs = cuda_text_split(text, args, arg_pieces, MAX_CALL_ARGS);
    }
    if (ncfg >= 2 && nargs >= 0) {
        l->callee = copy_span(ctx, text, callee);
        l->nconfig = ncfg;
        for (int i = 0; i < ncfg; i++)
            l->config[i] = copy_span(ctx, text, cfg[i]);
        l->nargs = nargs;
        l->args = copy_pieces(ctx, text, arg_pieces, nargs);
    } else {
        /* Written inside a macro's body: only the parts passed as macro arguments have
         * their own text; the others map onto the whole macro use. */
        l->in_macro = 1;
        const char *whole_text = cursor_text(ctx, call);
        l->callee = part_text(ctx, ch->at[0], whole_text);
        children cfg_children;
        children_of(ch->at[1], &cfg_children);
        for (int i = 1; i < cfg_children.n && l->nconfig < MB_CUDA_CFG_COUNT; i++) {
            if (is_default_argument(cfg_children.at[i]))
                break;
            l->config[l->nconfig++] = part_text(ctx, cfg_children.at[i], whole_text);
        }
        int n = ch->total - 2;
        const char **list = n > 0 ? mb_arena_alloc(ctx->store->arena, (size_t)n * sizeof(*list)) : NULL;
        if (n > 0 && !list) {
            ctx->nomem = 1;
            n = 0;
        }
        for (int i = 0; i < n; i++)
            list[i] = i + 2 < ch->n ? part_text(ctx, ch->at[i + 2], whole_text) : "";
        l->nargs = n > 0 ? n : 0;
        l->args = list;
    }
    name_kernel(ctx, l, ch->at[0]);
}

/* Finds the first reference to a function below a cursor (the kernel in cudaLaunchKernel's
 * first argument, behind casts). */
static enum CXChildVisitResult find_function_ref(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    CXCursor *found = data;
    if (clang_getCursorKind(c) == CXCursor_DeclRefExpr) {
        CXCursor ref = clang_getCursorReferenced(c);
        enum CXCursorKind kind = clang_getCursorKind(ref);
        if (kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate) {
            *found = c;
            return CXChildVisit_Break;
        }
    }
    return CXChildVisit_Recurse;
}

/* cudaLaunchKernel(func, grid, block, args, shmem, stream) */
static void record_api_launch(inspect_ctx *ctx, CXCursor call, const children *ch, const visit_frame *frame)
{
    cuda_span whole, callee, args, pieces[8];
    const char *text = cursor_source(ctx, call, &whole);
    if (!text || cuda_text_call(text + whole.start, whole.len, &callee, &args) != 0)
        return;
    args.start += whole.start;
    int n = cuda_text_split(text, args, pieces, 8);
    if (n < 4)
        return;
    mb_cuda_launch *l = new_launch(ctx, call, frame);
    if (!l)
        return;
    l->kind = MB_CUDA_LAUNCH_API;
    l->callee = copy_span(ctx, text, pieces[0]);
    l->config[MB_CUDA_CFG_GRID] = copy_span(ctx, text, pieces[1]);
    l->config[MB_CUDA_CFG_BLOCK] = copy_span(ctx, text, pieces[2]);
    l->nconfig = 2;
    if (n >= 5) {
        l->config[MB_CUDA_CFG_SHMEM] = copy_span(ctx, text, pieces[4]);
        l->nconfig = 3;
    }
    if (n >= 6) {
        l->config[MB_CUDA_CFG_STREAM] = copy_span(ctx, text, pieces[5]);
        l->nconfig = 4;
    }
    l->nargs = 1;
    l->args = copy_pieces(ctx, text, &pieces[3], 1);
    CXCursor found = clang_getNullCursor();
    if (ch->n >= 2)
        clang_visitChildren(ch->at[1], find_function_ref, &found);
    if (!clang_Cursor_isNull(found)) {
        name_kernel(ctx, l, found);
    } else {
        l->kernel = l->callee;
    }
}

static int is_config_call(CXCursor c)
{
    if (clang_getCursorKind(c) != CXCursor_CallExpr)
        return 0;
    CXString s = clang_getCursorSpelling(c);
    const char *name = clang_getCString(s);
    int yes = name && (strcmp(name, "__cudaPushCallConfiguration") == 0 || strcmp(name, "cudaConfigureCall") == 0);
    clang_disposeString(s);
    return yes;
}

static void inspect_call(inspect_ctx *ctx, CXCursor call, const visit_frame *frame)
{
    children ch;
    children_of(call, &ch);
    if (ch.n >= 2 && is_config_call(ch.at[1])) {
        record_chevron(ctx, call, &ch, frame);
        return;
    }
    CXString s = clang_getCursorSpelling(call);
    const char *name = clang_getCString(s);
    int api = name && strcmp(name, "cudaLaunchKernel") == 0;
    clang_disposeString(s);
    if (api)
        record_api_launch(ctx, call, &ch, frame);
}

/* -------------------------------------------------------------------- walk */

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data);

static void visit_below(CXCursor c, const visit_frame *frame)
{
    visit_frame copy = *frame;
    clang_visitChildren(c, visit, &copy);
}

static int is_function_kind(enum CXCursorKind kind)
{
    return kind == CXCursor_FunctionDecl || kind == CXCursor_FunctionTemplate || kind == CXCursor_CXXMethod ||
           kind == CXCursor_Constructor || kind == CXCursor_Destructor || kind == CXCursor_ConversionFunction;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    visit_frame *frame = data;
    inspect_ctx *ctx = frame->ctx;
    if (ctx->nomem)
        return CXChildVisit_Break;
    if (clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
        return CXChildVisit_Continue;
    enum CXCursorKind kind = clang_getCursorKind(c);
    if (is_function_kind(kind)) {
        visit_frame inner = *frame;
        inner.function = intern_cx(ctx, clang_getCursorSpelling(c));
        inner.kernel = -1;
        if (attributes_of(c).global)
            inner.kernel = record_kernel(ctx, c, frame);
        visit_below(c, &inner);
        return CXChildVisit_Continue;
    }
    if (kind == CXCursor_LinkageSpec) {
        visit_frame inner = *frame;
        inner.extern_c = 1;
        visit_below(c, &inner);
        return CXChildVisit_Continue;
    }
    if (kind == CXCursor_VarDecl) {
        attr_scan a = attributes_of(c);
        if (a.shared)
            record_var(ctx, c, MB_CUDA_SPACE_SHARED, frame);
        else if (a.constant)
            record_var(ctx, c, MB_CUDA_SPACE_CONSTANT, frame);
        else if (a.device)
            record_var(ctx, c, MB_CUDA_SPACE_DEVICE, frame);
    } else if (kind == CXCursor_CallExpr) {
        inspect_call(ctx, c, frame);
    }
    return CXChildVisit_Recurse;
}

/* Gives each kernel the list of shared variables declared in it. */
static void link_shared(inspect_ctx *ctx)
{
    mb_cuda_source *src = ctx->src;
    for (int k = 0; k < src->nkernels; k++) {
        int n = 0;
        for (int v = 0; v < src->nvars; v++)
            n += ctx->store->vars[v].kernel == k && ctx->store->vars[v].space == MB_CUDA_SPACE_SHARED;
        if (!n)
            continue;
        int *list = mb_arena_alloc(ctx->store->arena, (size_t)n * sizeof(*list));
        if (!list) {
            ctx->nomem = 1;
            return;
        }
        n = 0;
        for (int v = 0; v < src->nvars; v++)
            if (ctx->store->vars[v].kernel == k && ctx->store->vars[v].space == MB_CUDA_SPACE_SHARED)
                list[n++] = v;
        ctx->store->kernels[k].nshared = n;
        ctx->store->kernels[k].shared = list;
    }
}

/* ---------------------------------------------------------------- public */

void mb_cuda_source_free(mb_cuda_source *src)
{
    if (!src)
        return;
    if (src->store) {
        free(src->store->kernels);
        free(src->store->vars);
        free(src->store->launches);
        mb_arena_free(src->store->arena);
        free(src->store);
    }
    free(src);
}

mb_status mb_cuda_inspect_text(const char *name, const char *text, size_t len,
                               const char *const *clang_args, int nargs, mb_cuda_source **out,
                               mb_error *err)
{
    *out = NULL;
    cuda_tu ctu;
    mb_status st = cuda_tu_parse(&ctu, name, text, len, clang_args, nargs, err);
    if (st != MB_OK)
        return st;
    st = cuda_tu_first_error(&ctu, err);
    if (st != MB_OK) {
        cuda_tu_dispose(&ctu);
        return st;
    }
    mb_cuda_source *src = calloc(1, sizeof(*src));
    struct mb_cuda_source_store *store = calloc(1, sizeof(*store));
    mb_strmap *by_usr = mb_strmap_new();
    if (src)
        src->store = store;
    if (!src || !store || !by_usr || !(store->arena = mb_arena_new())) {
        if (!src)
            free(store);
        mb_cuda_source_free(src);
        mb_strmap_free(by_usr);
        cuda_tu_dispose(&ctu);
        return mb_error_set(err, MB_ERR_NOMEM, ctu.name, 0, 0, "out of memory inspecting the source");
    }
    inspect_ctx ctx = {&ctu, src, store, by_usr, 0};
    src->name = intern(&ctx, ctu.name);
    visit_frame top = {&ctx, NULL, -1, 0};
    clang_visitChildren(clang_getTranslationUnitCursor(ctu.tu), visit, &top);
    link_shared(&ctx);
    src->kernels = store->kernels;
    src->vars = store->vars;
    src->launches = store->launches;
    mb_strmap_free(by_usr);
    if (ctx.nomem) {
        mb_error_set(err, MB_ERR_NOMEM, ctu.name, 0, 0, "out of memory inspecting the source");
        cuda_tu_dispose(&ctu);
        mb_cuda_source_free(src);
        return MB_ERR_NOMEM;
    }
    cuda_tu_dispose(&ctu);
    *out = src;
    return MB_OK;
}

mb_status mb_cuda_inspect_file(const char *path, const char *const *clang_args, int nargs,
                               mb_cuda_source **out, mb_error *err)
{
    *out = NULL;
    char *text = NULL;
    size_t len = 0;
    mb_status st = mb_read_file(path, MB_CUDA_MAX_SOURCE_BYTES, &text, &len, err);
    if (st != MB_OK)
        return st;
    st = mb_cuda_inspect_text(path, text, len, clang_args, nargs, out, err);
    free(text);
    return st;
}

const mb_cuda_kernel *mb_cuda_find_kernel(const mb_cuda_source *src, const char *name)
{
    if (!src || !name)
        return NULL;
    for (int i = 0; i < src->nkernels; i++)
        if (strcmp(src->kernels[i].name, name) == 0)
            return &src->kernels[i];
    for (int i = 0; i < src->nkernels; i++)
        if (src->kernels[i].ptx_name && strcmp(src->kernels[i].ptx_name, name) == 0)
            return &src->kernels[i];
    return NULL;
}
