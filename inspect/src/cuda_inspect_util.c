/* Small helpers of the inspector: interned strings, places, source text, children. */
#include "cuda_inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *insp_intern(inspect_ctx *ctx, const char *s)
{
    char *copy = mb_arena_strdup(ctx->store->arena, s ? s : "");
    if (!copy)
        ctx->nomem = 1;
    return copy ? copy : "";
}

/* Interns a CXString and disposes it. */
const char *insp_intern_cx(inspect_ctx *ctx, CXString s)
{
    const char *copy = insp_intern(ctx, clang_getCString(s));
    clang_disposeString(s);
    return copy;
}

mb_cuda_loc insp_location_of(inspect_ctx *ctx, CXSourceLocation loc)
{
    char file[1024];
    mb_cuda_loc out = {NULL, 0, 0};
    cuda_tu_location(ctx->ctu, loc, file, sizeof(file), &out.line, &out.col);
    out.file = insp_intern(ctx, file);
    return out;
}

const char *insp_copy_span(inspect_ctx *ctx, const char *text, cuda_span span)
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
const char *insp_cursor_source(inspect_ctx *ctx, CXCursor c, cuda_span *span)
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
const char *insp_cursor_text(inspect_ctx *ctx, CXCursor c)
{
    cuda_span span;
    const char *text = insp_cursor_source(ctx, c, &span);
    return text ? insp_copy_span(ctx, text, span) : "";
}

static enum CXChildVisitResult collect_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    children *ch = data;
    if (ch->n < MAX_CHILDREN)
        ch->at[ch->n++] = c;
    ch->total++;
    return CXChildVisit_Continue;
}

void insp_children_of(CXCursor c, children *ch)
{
    ch->n = ch->total = 0;
    clang_visitChildren(c, collect_child, ch);
}

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

attr_scan insp_attributes_of(CXCursor c)
{
    attr_scan a = {0, 0, 0, 0};
    clang_visitChildren(c, scan_attr, &a);
    return a;
}

int insp_grow(inspect_ctx *ctx, mb_status st)
{
    if (st != MB_OK)
        ctx->nomem = 1;
    return st == MB_OK;
}
