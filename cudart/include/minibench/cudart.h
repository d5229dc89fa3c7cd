/*
 * minibench cudart: a replacement for the CUDA runtime library (libcudart.so.13)
 * that runs unmodified programs built with `nvcc -cudart shared` on the
 * functional SIMT executor, optionally profiling every launch.
 *
 * The library's product is libcudart.so.13, exporting the CUDA runtime API
 * (docs/cudart.md). This header is the part's interface for the rest of
 * minibench and for tests: fat binary decoding, the environment variables
 * that configure the library, and the runtime instance behind the API.
 */
#ifndef MINIBENCH_CUDART_H
#define MINIBENCH_CUDART_H

#include <minibench/profiler.h>
#include <minibench/util.h>

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================ fat binaries */

/** Magic numbers of nvcc's fat binary wrapper and of the fat binary itself. */
#define MB_FATBIN_WRAPPER_MAGIC 0x466243b1u
#define MB_FATBIN_MAGIC 0xba55ed50u

/** Kinds of fat binary entries. */
enum { MB_FATBIN_KIND_PTX = 1, MB_FATBIN_KIND_ELF = 2 };
/** Entry flags: how the payload is compressed. */
enum { MB_FATBIN_FLAG_LZ4 = 0x2000, MB_FATBIN_FLAG_ZSTD = 0x8000 };

/**
 * Extracts the PTX text from a fat binary. `data` points at either the
 * wrapper nvcc registers (magic MB_FATBIN_WRAPPER_MAGIC) or the fat binary
 * (magic MB_FATBIN_MAGIC); `avail` bounds how many bytes may be read
 * (SIZE_MAX when unknown, as for a registered program). When the fat binary
 * holds PTX for several architectures the lowest is chosen. The payload is
 * decompressed when nvcc compressed it (LZ4 or zstd).
 *
 * On success `*ptx` is a malloc'd NUL-terminated string (free() it), `*len`
 * its length and `*sm` the architecture (75 for sm_75). Errors:
 * MB_ERR_PARSE for a malformed or truncated fat binary or a payload that does
 * not decompress, MB_ERR_UNSUPPORTED when it holds no PTX (only SASS) or uses
 * an unknown compression; messages name the offset of the offending entry.
 */
mb_status mb_fatbin_extract_ptx(const void *data, size_t avail, char **ptx, size_t *len,
                                unsigned *sm, mb_error *err);

/* ================================================================ options */

/**
 * Environment variables that configure the library (docs/cudart.md), defined
 * once: MB_CUDART_ENV(field, variable name, meaning).
 */
#define MB_CUDART_ENV_LIST(X)                                                                      \
    X(mode, "MINIBENCH_CUDART_MODE", "run (default), profile or sim")                              \
    X(ptx, "MINIBENCH_CUDART_PTX", "PTX file to use instead of the fat binaries' PTX")            \
    X(output, "MINIBENCH_CUDART_OUTPUT", "profile directory (profile mode)")                       \
    X(kernel, "MINIBENCH_CUDART_KERNEL", "regex: only launches of matching kernels are selected")  \
    X(launch_index, "MINIBENCH_CUDART_LAUNCH_INDEX", "only this launch (0-based) is selected")     \
    X(max_profiles, "MINIBENCH_CUDART_MAX_PROFILES", "select at most this many launches")         \
    X(aggregate, "MINIBENCH_CUDART_AGGREGATE", "1: one profile per kernel for all its launches")   \
    X(threads, "MINIBENCH_CUDART_THREADS", "host threads running CTAs (run mode)")                 \
    X(max_insts, "MINIBENCH_CUDART_MAX_INSTS", "warp instruction budget per launch")               \
    X(verbose, "MINIBENCH_CUDART_VERBOSE", "1: one line per launch on standard error")           \
    X(config, "MINIBENCH_CUDART_CONFIG", "simulator preset or config file (sim mode)")            \
    X(stats, "MINIBENCH_CUDART_STATS", "file for the statistics (sim mode; default stderr)")       \
    X(fast_forward, "MINIBENCH_CUDART_FAST_FORWARD", "1: unselected launches run untimed (sim)")  \
    X(stats_json, "MINIBENCH_CUDART_STATS_JSON", "file for every statistic as JSON, at exit (sim)")

typedef enum mb_cudart_mode { MB_CUDART_RUN, MB_CUDART_PROFILE, MB_CUDART_SIM } mb_cudart_mode;

typedef struct mb_cudart_options {
    mb_cudart_mode mode;
    const char *ptx;          /**< NULL: the fat binaries' PTX */
    const char *output;       /**< profile directory */
    const char *kernel;       /**< NULL: every kernel */
    uint64_t launch_index;    /**< UINT64_MAX: every launch */
    uint64_t max_profiles;    /**< UINT64_MAX: no cap */
    int aggregate;
    unsigned threads;         /**< 0 or 1: one host thread */
    uint64_t max_insts;       /**< 0: no budget */
    int verbose;
    const char *config;       /**< sim: preset name or config file (NULL: conf3) */
    const char *stats;        /**< sim: statistics file (NULL: standard error) */
    int fast_forward;         /**< sim: unselected launches run functionally only */
    const char *stats_json;   /**< sim: JSON statistics file written at exit (NULL: none) */
} mb_cudart_options;

/**
 * Reads the options from the environment through `get` (getenv, or a test's
 * lookup). Strings point into the environment. Fails with MB_ERR_INVALID
 * naming the variable when a value is malformed.
 */
mb_status mb_cudart_options_read(const char *(*get)(void *ctx, const char *name), void *ctx,
                                 mb_cudart_options *opt, mb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_CUDART_H */
