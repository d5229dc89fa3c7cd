/*
 * minibench inspect: CUDA source inspection through libclang.
 *
 * Parses .cu files in clang's CUDA mode (host side only) with a built-in
 * prelude that declares the CUDA attributes, built-in variables, device
 * functions and runtime API, so no CUDA toolkit is needed. Lists kernels,
 * shared arrays, device globals and launch sites, and checks that generated
 * CUDA is syntactically valid.
 */
#ifndef MINIBENCH_INSPECT_H
#define MINIBENCH_INSPECT_H

#include <minibench/util.h>

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ syntax check */

/* Parses `text` (len bytes; named `name` in messages) as CUDA with libclang and returns MB_OK when it
 * has no errors. Otherwise returns an error status and fills err with the first error as
 * "name:line:col: message" (err's file/line/col fields set too). Works without a CUDA installation. */
mb_status mb_cuda_check_syntax(const char *name, const char *text, size_t len, mb_error *err);
/*
 * Details: `err->msg` holds clang's message and `err->file`/`line`/`col` the
 * place (the expansion point when the error sits inside a macro), so
 * mb_error_format() prints "name:line:col: error: message". An error inside
 * a header the text includes names that header. Warnings never fail.
 * A NUL byte in `text` is an error at its position (MB_ERR_PARSE), as is
 * any clang error; texts over MB_CUDA_MAX_SOURCE_BYTES fail with
 * MB_ERR_LIMIT. `text` may be NULL when len is 0; an empty text is valid.
 * Relative #include "..." paths resolve against the directory of `name`.
 */

/** Largest source text the parser accepts (64 MiB). */
#define MB_CUDA_MAX_SOURCE_BYTES ((size_t)64 << 20)
/** Most extra clang arguments a caller may pass. */
#define MB_CUDA_MAX_CLANG_ARGS 256

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_INSPECT_H */
