/*
 * The inspector: one walk over the libclang cursor tree collecting kernels,
 * CUDA variables and launch sites. Places come from libclang; the texts of
 * configurations, arguments and bounds are cut from the source as written
 * (cuda_text.c), so macros appear unexpanded.
 */
#include "cuda_inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *mb_cuda_space_name(mb_cuda_space space)
{
    switch (space) {
    case MB_CUDA_SPACE_SHARED: return "shared";
    case MB_CUDA_SPACE_CONSTANT: return "constant";
    case MB_CUDA_SPACE_DEVICE: return "device";
    }
    return "unknown";
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
        inner.function = insp_intern_cx(ctx, clang_getCursorSpelling(c));
        inner.kernel = -1;
        if (insp_attributes_of(c).global)
            inner.kernel = insp_record_kernel(ctx, c, frame);
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
        attr_scan a = insp_attributes_of(c);
        if (a.shared)
            insp_record_var(ctx, c, MB_CUDA_SPACE_SHARED, frame);
        else if (a.constant)
            insp_record_var(ctx, c, MB_CUDA_SPACE_CONSTANT, frame);
        else if (a.device)
            insp_record_var(ctx, c, MB_CUDA_SPACE_DEVICE, frame);
    } else if (kind == CXCursor_CallExpr) {
        insp_inspect_call(ctx, c, frame);
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
    src->name = insp_intern(&ctx, ctu.name);
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
