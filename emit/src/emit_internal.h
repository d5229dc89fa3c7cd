/* Shared pieces of the emit sources. */
#ifndef MB_EMIT_INTERNAL_H
#define MB_EMIT_INTERNAL_H

#include <minibench/emit.h>

/* Up to this many placeholders per template. */
#define EMIT_MAX_KEYS 32

typedef struct emit_vars {
    const char *keys[EMIT_MAX_KEYS];
    const char *values[EMIT_MAX_KEYS];
    mb_buf owned[EMIT_MAX_KEYS];
    size_t n;
} emit_vars;

/* A value built in a buffer the vars own (freed by emit_vars_free). */
mb_buf *emit_var_buf(emit_vars *v, const char *key);
void emit_var(emit_vars *v, const char *key, const char *value);
void emit_vars_free(emit_vars *v);
/* Fills template `name` with the common keys (KERNEL, SOURCE, REDUCTION, SEED, GRID, BLOCK,
 * DYNAMIC_SHARED) plus `v`. */
mb_status emit_fill(const mb_clone_model *m, const char *name, emit_vars *v, mb_buf *out,
                    mb_error *err);
/* "8" or "max" */
void emit_reduction(const mb_clone_model *m, char *buf, size_t size);
/* The PTX register declarations and the kernel body, shared by PTX and CUDA. */
void emit_ptx_registers(const mb_clone_model *m, mb_buf *out, const char *indent);
void emit_ptx_body(const mb_clone_model *m, mb_buf *out, int for_asm);
/* The .param variables of the kernel's call sites, one declaration a line. */
void emit_call_params(const mb_clone_model *m, mb_buf *out, const char *indent);
/* PTX type of an array's elements for declarations. */
const char *emit_array_align(const mb_clone_array *a);

#endif
