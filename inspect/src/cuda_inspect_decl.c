/* Kernels and CUDA variables: what the inspector records for declarations. */
#include "cuda_inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    p->name = insp_intern_cx(pf->ctx, clang_getCursorSpelling(c));
    p->type = insp_intern_cx(pf->ctx, clang_getTypeSpelling(type));
    CXType pointer = type;
    if (pointer.kind != CXType_Pointer)
        pointer = clang_getCanonicalType(type);
    if (pointer.kind == CXType_Pointer) {
        p->is_pointer = 1;
        p->pointee = insp_intern_cx(pf->ctx, clang_getTypeSpelling(clang_getPointeeType(pointer)));
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
    k->launch_bounds = insp_copy_span(ctx, text, inside);
    int nvalues = cuda_text_split(text, inside, values, 3);
    if (nvalues >= 1)
        k->max_threads = cuda_text_integer(text + values[0].start, values[0].len);
    if (nvalues >= 2)
        k->min_blocks = cuda_text_integer(text + values[1].start, values[1].len);
}

/* The name nvcc gives the kernel's .entry: host-side mangling names the launch stub
 * ("<len+15>__device_stub__<name>"), the device side the kernel itself. */
const char *insp_ptx_name_of(inspect_ctx *ctx, CXCursor fn, const char *name, int extern_c)
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
            result = b.failed ? NULL : insp_intern(ctx, b.data);
            if (b.failed)
                ctx->nomem = 1;
            mb_buf_free(&b);
        } else if (strcmp(m, name) == 0) {
            result = insp_intern(ctx, m);
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
int insp_record_kernel(inspect_ctx *ctx, CXCursor fn, const visit_frame *frame)
{
    CXString usr_cx = clang_getCursorUSR(clang_getCanonicalCursor(fn));
    const char *usr = clang_getCString(usr_cx);
    int index = usr && usr[0] ? mb_strmap_get(ctx->kernel_by_usr, usr, strlen(usr)) : -1;
    int is_def = clang_isCursorDefinition(fn) != 0;
    struct mb_cuda_source_store *st = ctx->store;
    if (index < 0) {
        if (!insp_grow(ctx, MB_GROW(st->kernels, st->kernels_cap, (size_t)ctx->src->nkernels + 1))) {
            clang_disposeString(usr_cx);
            return -1;
        }
        index = ctx->src->nkernels++;
        mb_cuda_kernel *k = &st->kernels[index];
        memset(k, 0, sizeof(*k));
        k->name = insp_intern_cx(ctx, clang_getCursorSpelling(fn));
        k->is_template = clang_getCursorKind(fn) == CXCursor_FunctionTemplate;
        k->is_extern_c = !k->is_template && is_extern_c(fn, k->name, frame->extern_c);
        k->ptx_name = k->is_template ? NULL : insp_ptx_name_of(ctx, fn, k->name, k->is_extern_c);
        k->loc = insp_location_of(ctx, clang_getCursorLocation(fn));
        read_params(ctx, fn, k);
        read_launch_bounds(ctx, fn, k);
        k->is_definition = is_def;
        if (usr && usr[0] && mb_strmap_put(ctx->kernel_by_usr, usr, strlen(usr), index) != MB_OK)
            ctx->nomem = 1;
    } else if (is_def) {
        /* The definition's names and place are the ones a reader looks for. */
        mb_cuda_kernel *k = &st->kernels[index];
        k->is_definition = 1;
        k->loc = insp_location_of(ctx, clang_getCursorLocation(fn));
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
int insp_kernel_index_of(inspect_ctx *ctx, CXCursor ref)
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

void insp_record_var(inspect_ctx *ctx, CXCursor var, mb_cuda_space space, const visit_frame *frame)
{
    struct mb_cuda_source_store *st = ctx->store;
    if (!insp_grow(ctx, MB_GROW(st->vars, st->vars_cap, (size_t)ctx->src->nvars + 1)))
        return;
    mb_cuda_var *v = &st->vars[ctx->src->nvars++];
    memset(v, 0, sizeof(*v));
    CXType type = clang_getCursorType(var);
    v->name = insp_intern_cx(ctx, clang_getCursorSpelling(var));
    v->type = insp_intern_cx(ctx, clang_getTypeSpelling(type));
    v->space = space;
    v->is_extern = clang_Cursor_getStorageClass(var) == CX_SC_Extern;
    v->function = frame->function;
    v->kernel = frame->kernel;
    v->loc = insp_location_of(ctx, clang_getCursorLocation(var));
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
    v->element_type = ndims ? insp_intern_cx(ctx, clang_getTypeSpelling(t)) : v->type;
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
            dims[d].text = insp_copy_span(ctx, text, spans[d]);
        } else {
            char num[32];
            snprintf(num, sizeof(num), "%lld", values[d]);
            dims[d].text = insp_intern(ctx, values[d] >= 0 ? num : "");
        }
    }
    v->dims = dims;
}
