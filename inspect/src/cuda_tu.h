/*
 * One CUDA translation unit parsed by libclang: the arguments and virtual
 * headers every parse uses, and the mapping of clang's diagnostics and
 * locations onto mb_error. Shared by the syntax check and the inspector.
 */
#ifndef MB_CUDA_TU_H
#define MB_CUDA_TU_H

#include <minibench/inspect.h>

#include <clang-c/Index.h>

typedef struct cuda_tu {
    CXIndex index;
    CXTranslationUnit tu;
    const char *name; /* the main file's name, as the caller gave it */
    CXFile main_file;
} cuda_tu;

/*
 * Parses `text` as the CUDA file `name` with the prelude and any `extra_args`
 * (passed to clang after minibench's own). Fails only when the text is
 * unacceptable before parsing (too large, a NUL byte) or libclang itself
 * fails; clang's diagnostics are left for cuda_tu_first_error(). On failure
 * nothing needs disposing.
 */
mb_status cuda_tu_parse(cuda_tu *ctu, const char *name, const char *text, size_t len,
                        const char *const *extra_args, int nextra, mb_error *err);

/* MB_OK when the unit has no error or fatal diagnostic; otherwise fills err
 * with the first one (MB_ERR_PARSE) and returns that status. */
mb_status cuda_tu_first_error(const cuda_tu *ctu, mb_error *err);

/* Where `loc` is in a file: inside a macro argument, where the argument was
 * written; inside a macro body, where the macro was used. Gives the file name
 * (the caller's `name` for the main file, "" when there is no file), line and
 * column (1-based, 0 when unknown). Returns 1 when the place is in the main file. */
int cuda_tu_location(const cuda_tu *ctu, CXSourceLocation loc, char *file, size_t file_size,
                     int *line, int *col);

/* The text of the file `loc` lies in (through macros as cuda_tu_location does), the
 * byte offset of `loc` in it and its length; NULL when there is none. */
const char *cuda_tu_file_text(const cuda_tu *ctu, CXSourceLocation loc, size_t *offset, size_t *size,
                              CXFile *file);

/* Releases the unit. Safe on a zeroed or already disposed cuda_tu. */
void cuda_tu_dispose(cuda_tu *ctu);

#endif
