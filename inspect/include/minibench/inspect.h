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

/* ------------------------------------------------------------- inspection */

/** A place in a source file; `file` is the caller's name for the main file. */
typedef struct mb_cuda_loc {
    const char *file;
    int line; /**< 1-based */
    int col;  /**< 1-based byte column */
} mb_cuda_loc;

/** One kernel parameter, in declaration order. */
typedef struct mb_cuda_param {
    const char *name;    /**< "" when the parameter is unnamed */
    const char *type;    /**< clang's spelling: "const float *__restrict" */
    int is_pointer;      /**< the type is a pointer (through typedefs too) */
    const char *pointee; /**< "const float" for a pointer, NULL otherwise */
} mb_cuda_param;

/** The memory space a variable is declared in. */
typedef enum mb_cuda_space {
    MB_CUDA_SPACE_SHARED,   /**< __shared__ */
    MB_CUDA_SPACE_CONSTANT, /**< __constant__ */
    MB_CUDA_SPACE_DEVICE    /**< __device__ (global memory) */
} mb_cuda_space;

/** Short name of a space: "shared", "constant", "device". */
const char *mb_cuda_space_name(mb_cuda_space space);

/** One array dimension, outermost first. */
typedef struct mb_cuda_dim {
    const char *text; /**< the bound as written ("TILE + 1"); "" for `[]` */
    long long value;  /**< the bound's value, or -1 when not a constant (template parameter, `[]`) */
} mb_cuda_dim;

/** A __shared__, __constant__ or __device__ variable. */
typedef struct mb_cuda_var {
    const char *name;
    const char *type;         /**< full type: "float[16][17]" */
    const char *element_type; /**< innermost element type: "float" (the type itself for scalars) */
    mb_cuda_space space;
    int ndims;                /**< 0 for a scalar */
    const mb_cuda_dim *dims;
    long long bytes;          /**< total size, -1 when unknown (dynamic or dependent) */
    int is_extern;            /**< declared `extern` */
    int is_dynamic;           /**< `extern __shared__ T x[]`: sized by the launch */
    const char *function;     /**< enclosing function, NULL at file scope */
    int kernel;               /**< index of the enclosing kernel in `kernels`, -1 otherwise */
    mb_cuda_loc loc;          /**< the variable's name */
} mb_cuda_var;

/** A __global__ function (a plain function or a function template). */
typedef struct mb_cuda_kernel {
    const char *name;
    const char *ptx_name;       /**< the .entry name nvcc gives it ("vecadd" for extern "C",
                                     else the Itanium mangling); NULL for templates */
    mb_cuda_loc loc;            /**< the name in the first declaration */
    int is_definition;          /**< a body was seen */
    int is_template;
    int is_extern_c;
    int nparams;
    const mb_cuda_param *params;
    const char *launch_bounds;  /**< text inside __launch_bounds__(...), NULL without */
    long long max_threads;      /**< its first value, -1 when absent or not a literal */
    long long min_blocks;       /**< its second value, -1 when absent or not a literal */
    int nshared;                /**< __shared__ variables declared in the body */
    const int *shared;          /**< their indices in `vars` */
    int ninstantiations;        /**< template instances launched in this file, first launch first */
    const char *const *instantiations; /**< with their template arguments: "reduce_seq<128>" */
} mb_cuda_kernel;

/** How a kernel is launched. */
typedef enum mb_cuda_launch_kind {
    MB_CUDA_LAUNCH_CHEVRON,    /**< kernel<<<grid, block[, shmem[, stream]]>>>(args) */
    MB_CUDA_LAUNCH_API         /**< cudaLaunchKernel(func, grid, block, args, shmem, stream) */
} mb_cuda_launch_kind;

/** Configuration slots of a launch. */
enum { MB_CUDA_CFG_GRID, MB_CUDA_CFG_BLOCK, MB_CUDA_CFG_SHMEM, MB_CUDA_CFG_STREAM, MB_CUDA_CFG_COUNT };

/** A launch site. All texts are the source as written, comments dropped and blank runs collapsed
 *  to one space. */
typedef struct mb_cuda_launch {
    mb_cuda_launch_kind kind;
    const char *kernel;       /**< the launched kernel's name ("reduce_seq"); the callee text when
                                   it is not a named function */
    const char *callee;       /**< the callee as written ("reduce_seq<128>") */
    const char *ptx_name;     /**< the .entry it launches (template instances included), NULL when unknown */
    int kernel_index;         /**< index in `kernels`, -1 when not one of them */
    const char *function;     /**< enclosing function, NULL outside any */
    mb_cuda_loc loc;          /**< start of the callee */
    int nconfig;              /**< configuration expressions written: 2 to 4 (4 for the API form) */
    const char *config[MB_CUDA_CFG_COUNT]; /**< grid, block, shmem, stream; NULL when absent */
    int nargs;
    const char *const *args;  /**< kernel arguments; for the API form, the one `args` array */
    int in_macro;             /**< the launch is written inside a macro's body: `loc` is where the
                                   macro is used, and parts written in the body have "" as text
                                   (parts passed as macro arguments keep theirs) */
} mb_cuda_launch;

/** Everything inspect found in one file (and its non-system headers). Free with mb_cuda_source_free(). */
typedef struct mb_cuda_source {
    const char *name;         /**< the main file's name */
    int nkernels;
    const mb_cuda_kernel *kernels; /**< in source order */
    int nvars;
    const mb_cuda_var *vars;  /**< in source order */
    int nlaunches;
    const mb_cuda_launch *launches; /**< in source order */
    struct mb_cuda_source_store *store; /**< private: owns all of the above */
} mb_cuda_source;

/**
 * Parses CUDA source `text` (named `name`, see mb_cuda_check_syntax() for how the name is used)
 * and lists its kernels, __shared__/__constant__/__device__ variables and launch sites.
 * Declarations in system headers (and the built-in prelude) are left out; those in the
 * program's own headers are listed with their file. `clang_args` (`nargs` of them, at most
 * MB_CUDA_MAX_CLANG_ARGS) go to clang after minibench's own: -I, -D, -std=...
 * Fails like mb_cuda_check_syntax() when the source has an error (MB_ERR_PARSE with the first
 * error's place); MB_ERR_NOMEM when memory runs out. On success `*out` must be freed.
 */
mb_status mb_cuda_inspect_text(const char *name, const char *text, size_t len,
                               const char *const *clang_args, int nargs, mb_cuda_source **out,
                               mb_error *err);

/** Reads `path` (MB_ERR_IO when it cannot, MB_ERR_LIMIT past MB_CUDA_MAX_SOURCE_BYTES) and
 *  inspects it with mb_cuda_inspect_text(). */
mb_status mb_cuda_inspect_file(const char *path, const char *const *clang_args, int nargs,
                               mb_cuda_source **out, mb_error *err);

/** Frees an inspection result. NULL is allowed. */
void mb_cuda_source_free(mb_cuda_source *src);

/** The kernel called `name` (or whose ptx_name is `name`), NULL when none. */
const mb_cuda_kernel *mb_cuda_find_kernel(const mb_cuda_source *src, const char *name);

/**
 * Appends the inspection result as one JSON object (deterministic: keys and arrays in a
 * fixed order, two-space indentation, a final newline) to `out`. The format is documented
 * in docs/cli.md under `minibench inspect`. Returns MB_ERR_NOMEM when memory runs out.
 */
mb_status mb_cuda_source_json(const mb_cuda_source *src, mb_buf *out, mb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_INSPECT_H */
