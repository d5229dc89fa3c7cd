/* Parsing CUDA with libclang: host-side CUDA mode, no CUDA toolkit, the
 * built-in prelude standing in for the runtime headers. */
#include "cuda_tu.h"

#include "cuda_prelude.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* A directory that exists only inside the parse: the prelude and the
 * runtime header names programs include are unsaved files in it. */
#define PRELUDE_DIR "/minibench-cuda-prelude"

/* Header names CUDA programs include; each one just includes the prelude. */
static const char *const runtime_header_names[] = {
    "cuda.h", "cuda_runtime_api.h", "device_launch_parameters.h", "vector_types.h",
    "device_functions.h", "math_functions.h", "sm_20_atomic_functions.h", "cuda_device_runtime_api.h",
};
enum { NRUNTIME_HEADERS = sizeof(runtime_header_names) / sizeof(runtime_header_names[0]) };

static const char include_prelude[] = "#include \"cuda_runtime.h\"\n";

/*
 * CUDA mode on the host side only (one compilation job, no device-side
 * libraries), without CUDA's include directory: clang 14 may not understand
 * the installed toolkit, and none is needed. sm_75 matches the committed PTX.
 */
static const char *const base_args[] = {
    "-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "--cuda-gpu-arch=sm_75",
    "-fsyntax-only", "-Wno-unknown-cuda-version", "-isystem", PRELUDE_DIR,
    "-include", PRELUDE_DIR "/cuda_runtime.h",
};
enum { NBASE_ARGS = sizeof(base_args) / sizeof(base_args[0]), MAX_EXTRA_ARGS = MB_CUDA_MAX_CLANG_ARGS };

/* 1-based line and byte column of offset `at` in `text`. */
static void line_col_of(const char *text, size_t at, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < at; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static const char *parse_error_name(enum CXErrorCode code)
{
    switch (code) {
    case CXError_Success: return "success";
    case CXError_Failure: return "libclang failed";
    case CXError_Crashed: return "libclang crashed";
    case CXError_InvalidArguments: return "libclang rejected its arguments";
    case CXError_ASTReadError: return "libclang could not read its AST";
    }
    return "libclang failed";
}

mb_status cuda_tu_parse(cuda_tu *ctu, const char *name, const char *text, size_t len,
                        const char *const *extra_args, int nextra, mb_error *err)
{
    memset(ctu, 0, sizeof(*ctu));
    if (!name || !name[0])
        name = "input.cu";
    ctu->name = name;
    if (!text) {
        if (len)
            return mb_error_set(err, MB_ERR_INVALID, name, 0, 0, "no text but a length of %zu bytes", len);
        text = "";
    }
    if (len > MB_CUDA_MAX_SOURCE_BYTES)
        return mb_error_set(err, MB_ERR_LIMIT, name, 0, 0,
                            "source is %zu bytes, more than the %zu-byte limit", len,
                            MB_CUDA_MAX_SOURCE_BYTES);
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        int line, col;
        line_col_of(text, (size_t)(nul - text), &line, &col);
        return mb_error_set(err, MB_ERR_PARSE, name, line, col, "NUL byte in CUDA source");
    }
    if (nextra < 0 || nextra > MAX_EXTRA_ARGS || (nextra > 0 && !extra_args))
        return mb_error_set(err, MB_ERR_INVALID, name, 0, 0, "bad clang argument list (%d arguments)",
                            nextra);

    const char *args[NBASE_ARGS + MAX_EXTRA_ARGS];
    int nargs = 0;
    for (int i = 0; i < NBASE_ARGS; i++)
        args[nargs++] = base_args[i];
    for (int i = 0; i < nextra; i++)
        args[nargs++] = extra_args[i];

    char header_paths[NRUNTIME_HEADERS][64];
    struct CXUnsavedFile files[NRUNTIME_HEADERS + 2];
    unsigned nfiles = 0;
    files[nfiles++] = (struct CXUnsavedFile){PRELUDE_DIR "/cuda_runtime.h", mb_cuda_prelude_text,
                                             (unsigned long)mb_cuda_prelude_text_len};
    for (int i = 0; i < NRUNTIME_HEADERS; i++) {
        snprintf(header_paths[i], sizeof(header_paths[i]), PRELUDE_DIR "/%s", runtime_header_names[i]);
        files[nfiles++] = (struct CXUnsavedFile){header_paths[i], include_prelude,
                                                 (unsigned long)(sizeof(include_prelude) - 1)};
    }
    files[nfiles++] = (struct CXUnsavedFile){name, text, (unsigned long)len};

    /* exclude declarations from PCH = 0, print diagnostics = 0: nothing goes to stderr */
    ctu->index = clang_createIndex(0, 0);
    if (!ctu->index)
        return mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "libclang could not create an index");
    enum CXErrorCode code = clang_parseTranslationUnit2(ctu->index, name, args, nargs, files, nfiles,
                                                        CXTranslationUnit_None, &ctu->tu);
    if (code != CXError_Success || !ctu->tu) {
        cuda_tu_dispose(ctu);
        return mb_error_set(err, MB_ERR_PARSE, name, 0, 0, "%s while parsing (code %d)",
                            parse_error_name(code), (int)code);
    }
    ctu->main_file = clang_getFile(ctu->tu, name);
    return MB_OK;
}

int cuda_tu_location(const cuda_tu *ctu, CXSourceLocation loc, char *file, size_t file_size,
                     int *line, int *col)
{
    CXFile cxfile = NULL;
    unsigned l = 0, c = 0;
    clang_getFileLocation(loc, &cxfile, &l, &c, NULL);
    *line = l > INT_MAX ? 0 : (int)l;
    *col = c > INT_MAX ? 0 : (int)c;
    if (file_size)
        file[0] = '\0';
    if (!cxfile)
        return 0;
    int in_main = ctu->main_file ? clang_File_isEqual(cxfile, ctu->main_file) != 0
                                 : clang_Location_isFromMainFile(loc) != 0;
    if (in_main) {
        snprintf(file, file_size, "%s", ctu->name);
    } else {
        CXString s = clang_getFileName(cxfile);
        const char *cs = clang_getCString(s);
        snprintf(file, file_size, "%s", cs ? cs : "");
        clang_disposeString(s);
    }
    return in_main;
}

const char *cuda_tu_file_text(const cuda_tu *ctu, CXSourceLocation loc, size_t *offset, size_t *size,
                              CXFile *file)
{
    CXFile cxfile = NULL;
    unsigned off = 0;
    clang_getFileLocation(loc, &cxfile, NULL, NULL, &off);
    if (!cxfile)
        return NULL;
    size_t len = 0;
    const char *text = clang_getFileContents(ctu->tu, cxfile, &len);
    if (!text || off > len)
        return NULL;
    *offset = off;
    *size = len;
    if (file)
        *file = cxfile;
    return text;
}

mb_status cuda_tu_first_error(const cuda_tu *ctu, mb_error *err)
{
    unsigned n = clang_getNumDiagnostics(ctu->tu);
    for (unsigned i = 0; i < n; i++) {
        CXDiagnostic diag = clang_getDiagnostic(ctu->tu, i);
        if (!diag)
            continue;
        enum CXDiagnosticSeverity severity = clang_getDiagnosticSeverity(diag);
        if (severity < CXDiagnostic_Error) {
            clang_disposeDiagnostic(diag);
            continue;
        }
        char file[sizeof(err->file)];
        int line = 0, col = 0;
        cuda_tu_location(ctu, clang_getDiagnosticLocation(diag), file, sizeof(file), &line, &col);
        CXString spelling = clang_getDiagnosticSpelling(diag);
        const char *msg = clang_getCString(spelling);
        /* A diagnostic without a place (a driver complaint about arguments) is about the unit. */
        mb_status st = mb_error_set(err, MB_ERR_PARSE, file[0] ? file : ctu->name, line, col, "%s",
                                    msg && msg[0] ? msg : "clang reported an error without a message");
        clang_disposeString(spelling);
        clang_disposeDiagnostic(diag);
        return st;
    }
    return MB_OK;
}

void cuda_tu_dispose(cuda_tu *ctu)
{
    if (ctu->tu)
        clang_disposeTranslationUnit(ctu->tu);
    if (ctu->index)
        clang_disposeIndex(ctu->index);
    ctu->tu = NULL;
    ctu->index = NULL;
}
