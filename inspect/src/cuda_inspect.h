/* The inspector's private parts: the storage behind mb_cuda_source and the walk's context. */
#ifndef MB_CUDA_INSPECT_H
#define MB_CUDA_INSPECT_H

#include <minibench/inspect.h>

#include "cuda_text.h"
#include "cuda_tu.h"

struct mb_cuda_source_store {
    mb_arena *arena;            /* every string and small array */
    mb_cuda_kernel *kernels;    /* growable arrays (malloc) behind the public pointers */
    size_t kernels_cap;
    mb_cuda_var *vars;
    size_t vars_cap;
    mb_cuda_launch *launches;
    size_t launches_cap;
};

enum { MAX_DIMS = 8, MAX_CALL_ARGS = 256, MAX_CHILDREN = 8 };

/* One inspection in progress. */
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

typedef struct children {
    CXCursor at[MAX_CHILDREN];
    int n;     /* stored, at most MAX_CHILDREN */
    int total; /* all direct children */
} children;

typedef struct attr_scan {
    int global, shared, constant, device;
} attr_scan;

/* Helpers (cuda_inspect_util.c). Strings live in the store's arena; on allocation
 * failure they set ctx->nomem and return "" (or 0), so the walk can stop cleanly. */
const char *insp_intern(inspect_ctx *ctx, const char *s);
const char *insp_intern_cx(inspect_ctx *ctx, CXString s); /* also disposes s */
mb_cuda_loc insp_location_of(inspect_ctx *ctx, CXSourceLocation loc);
const char *insp_copy_span(inspect_ctx *ctx, const char *text, cuda_span span);
/* The text a cursor covers (both ends as file locations, one file, in order), NULL otherwise. */
const char *insp_cursor_source(inspect_ctx *ctx, CXCursor c, cuda_span *span);
/* A cursor's text with blanks collapsed; "" when it has none. */
const char *insp_cursor_text(inspect_ctx *ctx, CXCursor c);
void insp_children_of(CXCursor c, children *ch);
attr_scan insp_attributes_of(CXCursor c);
/* 1 when an MB_GROW succeeded; otherwise marks the context out of memory. */
int insp_grow(inspect_ctx *ctx, mb_status st);

/* Declarations (cuda_inspect_decl.c). */
int insp_record_kernel(inspect_ctx *ctx, CXCursor fn, const visit_frame *frame);
int insp_kernel_index_of(inspect_ctx *ctx, CXCursor ref);
const char *insp_ptx_name_of(inspect_ctx *ctx, CXCursor fn, const char *name, int extern_c);
void insp_record_var(inspect_ctx *ctx, CXCursor var, mb_cuda_space space, const visit_frame *frame);

/* Launch sites (cuda_inspect_launch.c): records `call` when it is one. */
void insp_inspect_call(inspect_ctx *ctx, CXCursor call, const visit_frame *frame);

#endif
