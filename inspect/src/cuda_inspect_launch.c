/* Launch sites: kernel<<<...>>>(...) and cudaLaunchKernel calls. */
#include "cuda_inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        out[i] = insp_copy_span(ctx, text, pieces[i]);
    return out;
}

static mb_cuda_launch *new_launch(inspect_ctx *ctx, CXCursor call, const visit_frame *frame)
{
    struct mb_cuda_source_store *st = ctx->store;
    if (!insp_grow(ctx, MB_GROW(st->launches, st->launches_cap, (size_t)ctx->src->nlaunches + 1)))
        return NULL;
    mb_cuda_launch *l = &st->launches[ctx->src->nlaunches++];
    memset(l, 0, sizeof(*l));
    l->function = frame->function;
    l->kernel_index = -1;
    l->loc = insp_location_of(ctx, clang_getCursorLocation(call));
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
    const char *result = b.failed ? NULL : insp_intern(ctx, b.data);
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
    l->kernel_index = insp_kernel_index_of(ctx, ref);
    if (l->kernel_index >= 0) {
        mb_cuda_kernel *k = &ctx->store->kernels[l->kernel_index];
        l->kernel = k->name;
        /* The referenced declaration is the instance launched, so its mangling is the entry's. */
        l->ptx_name = k->is_extern_c ? k->name : insp_ptx_name_of(ctx, ref, k->name, 0);
        if (k->is_template)
            add_instantiation(ctx, k, instance_name(ctx, ref, k->name, l->callee));
    } else if (!clang_Cursor_isNull(ref) && clang_getCursorKind(ref) == CXCursor_FunctionDecl) {
        l->kernel = insp_intern_cx(ctx, clang_getCursorSpelling(ref));
    } else {
        l->kernel = l->callee;
    }
}

/* A part of a launch written in a macro: its own text, or "" when that is the whole macro use. */
static const char *part_text(inspect_ctx *ctx, CXCursor part, const char *whole_text)
{
    const char *t = insp_cursor_text(ctx, part);
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
    const char *text = insp_cursor_source(ctx, call, &whole);
    int ncfg = -1, nargs = -1;
    if (text && cuda_text_chevron(text + whole.start, whole.len, &callee, &config, &args) == 0) {
        callee.start += whole.start;
        config.start += whole.start;
        args.start += whole.start;
        ncfg = cuda_text_split(text, config, cfg, MB_CUDA_CFG_COUNT);
        nargs = cuda_text_split(text, args, arg_pieces, MAX_CALL_ARGS);
    }
    if (ncfg >= 2 && nargs >= 0) {
        l->callee = insp_copy_span(ctx, text, callee);
        l->nconfig = ncfg;
        for (int i = 0; i < ncfg; i++)
            l->config[i] = insp_copy_span(ctx, text, cfg[i]);
        l->nargs = nargs;
        l->args = copy_pieces(ctx, text, arg_pieces, nargs);
    } else {
        /* Written inside a macro's body: only the parts passed as macro arguments have
         * their own text; the others map onto the whole macro use. */
        l->in_macro = 1;
        const char *whole_text = insp_cursor_text(ctx, call);
        l->callee = part_text(ctx, ch->at[0], whole_text);
        children cfg_children;
        insp_children_of(ch->at[1], &cfg_children);
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
    const char *text = insp_cursor_source(ctx, call, &whole);
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
    l->callee = insp_copy_span(ctx, text, pieces[0]);
    l->config[MB_CUDA_CFG_GRID] = insp_copy_span(ctx, text, pieces[1]);
    l->config[MB_CUDA_CFG_BLOCK] = insp_copy_span(ctx, text, pieces[2]);
    l->nconfig = 2;
    if (n >= 5) {
        l->config[MB_CUDA_CFG_SHMEM] = insp_copy_span(ctx, text, pieces[4]);
        l->nconfig = 3;
    }
    if (n >= 6) {
        l->config[MB_CUDA_CFG_STREAM] = insp_copy_span(ctx, text, pieces[5]);
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

void insp_inspect_call(inspect_ctx *ctx, CXCursor call, const visit_frame *frame)
{
    children ch;
    insp_children_of(call, &ch);
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
