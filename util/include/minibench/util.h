/*
 * minibench util: the small pieces every part shares.
 *
 * Error records, an arena allocator, a growable byte buffer, a streaming
 * JSON writer, a string hash map and atomic file output. Nothing here knows about PTX or GPUs.
 */
#ifndef MINIBENCH_UTIL_H
#define MINIBENCH_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MB_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define MB_PRINTF(fmt_index, first_arg)
#endif

/* ---------------------------------------------------------------- status */

/** Status codes returned by every fallible minibench function. */
typedef enum mb_status {
    MB_OK = 0,
    MB_ERR_IO,          /**< a file could not be read or written */
    MB_ERR_PARSE,       /**< malformed input text */
    MB_ERR_INVALID,     /**< well-formed input that is semantically wrong */
    MB_ERR_UNSUPPORTED, /**< a valid construct minibench does not handle yet */
    MB_ERR_NOMEM,       /**< an allocation failed */
    MB_ERR_LIMIT,       /**< an input exceeds a documented size limit */
    MB_ERR_FAULT        /**< the simulated program faulted */
} mb_status;

/** Short fixed name of a status ("parse error", "I/O error", ...). */
const char *mb_status_name(mb_status status);

/**
 * An error record. Functions that fail fill it and return the same status.
 * `file` is empty and `line`/`col` are 0 when no source location applies.
 */
typedef struct mb_error {
    mb_status status;
    int line;
    int col;
    char file[512];
    char msg[1024];
} mb_error;

/** Clears the record (status MB_OK, empty message). */
void mb_error_clear(mb_error *err);

/**
 * Fills `err` (when not NULL) and returns `status`, so callers can write
 * `return mb_error_set(err, MB_ERR_PARSE, file, line, col, "...")`.
 */
mb_status mb_error_set(mb_error *err, mb_status status, const char *file, int line, int col,
                       const char *fmt, ...) MB_PRINTF(6, 7);

/** Like mb_error_set() with a va_list. */
mb_status mb_error_vset(mb_error *err, mb_status status, const char *file, int line, int col,
                        const char *fmt, va_list ap);

/**
 * Writes "file:line:col: error: message" (omitting absent location parts)
 * into `buf`; returns the length it would have written, like snprintf.
 */
int mb_error_format(const mb_error *err, char *buf, size_t size);

/* ----------------------------------------------------------------- arena */

/**
 * A bump allocator: many small allocations freed together. Allocation is
 * zero-filled and aligned to 16 bytes.
 */
typedef struct mb_arena mb_arena;

/** Creates an empty arena; NULL when out of memory. */
mb_arena *mb_arena_new(void);
/** Frees the arena and everything allocated from it. NULL is allowed. */
void mb_arena_free(mb_arena *arena);
/** Zero-filled memory valid until the arena is freed; NULL when out of memory. */
void *mb_arena_alloc(mb_arena *arena, size_t size);
/** Copies `len` bytes of `s` plus a terminating NUL into the arena. */
char *mb_arena_strndup(mb_arena *arena, const char *s, size_t len);
/** Copies a NUL-terminated string into the arena. */
char *mb_arena_strdup(mb_arena *arena, const char *s);
/** Bytes handed out so far (for statistics and tests). */
size_t mb_arena_used(const mb_arena *arena);

/* ---------------------------------------------------------------- buffer */

/** A growable byte buffer, always NUL-terminated once anything is written. */
typedef struct mb_buf {
    char *data;
    size_t len;
    size_t cap;
    int failed; /**< set once an allocation failed; later appends are ignored */
} mb_buf;

/** Initial state: `mb_buf b = MB_BUF_INIT;` */
#define MB_BUF_INIT {NULL, 0, 0, 0}

void mb_buf_free(mb_buf *buf);
void mb_buf_reset(mb_buf *buf);
void mb_buf_append(mb_buf *buf, const char *data, size_t len);
void mb_buf_puts(mb_buf *buf, const char *s);
void mb_buf_putc(mb_buf *buf, char c);
void mb_buf_printf(mb_buf *buf, const char *fmt, ...) MB_PRINTF(2, 3);
void mb_buf_vprintf(mb_buf *buf, const char *fmt, va_list ap);

/* ----------------------------------------------------------- json writer */

/**
 * Streams JSON text into a buffer, one value at a time, so a large document
 * needs no tree in memory. The layout is jansson's for JSON_INDENT(indent)
 * (members on their own lines, `"key": value`, empty containers as `{}` and
 * `[]`), so a document reads the same whichever wrote it; indent 0 writes it
 * compact. Misuse (a member without a key, a close without an open, nesting
 * deeper than MB_JSON_MAX_DEPTH) and allocation failure set `failed`;
 * callers check once at the end.
 */
#define MB_JSON_MAX_DEPTH 128

typedef struct mb_json_writer {
    mb_buf *out;
    unsigned indent;
    unsigned depth;                           /**< open containers */
    unsigned char is_object[MB_JSON_MAX_DEPTH];
    unsigned char has_members[MB_JSON_MAX_DEPTH];
    int after_key; /**< a key was written and waits for its value */
    int failed;
} mb_json_writer;

void mb_json_init(mb_json_writer *w, mb_buf *out, unsigned indent);
void mb_json_object_begin(mb_json_writer *w);
void mb_json_object_end(mb_json_writer *w);
void mb_json_array_begin(mb_json_writer *w);
void mb_json_array_end(mb_json_writer *w);
/** The key of the next object member; its value follows. */
void mb_json_key(mb_json_writer *w, const char *key);
/** A UTF-8 string; NULL writes null. */
void mb_json_string(mb_json_writer *w, const char *s);
void mb_json_int(mb_json_writer *w, int64_t v);
/** `%.<precision>g` with jansson's touches (always a dot or exponent, no `+`
 * or leading zeros in it); NaN and infinities, which JSON lacks, write null. */
void mb_json_real(mb_json_writer *w, double v, int precision);
void mb_json_bool(mb_json_writer *w, int v);
void mb_json_null(mb_json_writer *w);
/** True when everything was written: every container closed, nothing failed. */
int mb_json_ok(const mb_json_writer *w);

/* --------------------------------------------------------------- strmap */

/** A map from strings to non-negative ints (open addressing). Keys are copied. */
typedef struct mb_strmap mb_strmap;

mb_strmap *mb_strmap_new(void);
void mb_strmap_free(mb_strmap *map);
/** Inserts or replaces; returns MB_OK or MB_ERR_NOMEM. */
mb_status mb_strmap_put(mb_strmap *map, const char *key, size_t keylen, int value);
/** Returns the value, or -1 when absent. */
int mb_strmap_get(const mb_strmap *map, const char *key, size_t keylen);
/** Number of keys. */
size_t mb_strmap_count(const mb_strmap *map);

/* ------------------------------------------------------------------ files */

/**
 * Reads a whole file into a NUL-terminated malloc'd buffer. `*len` gets the
 * byte count without the NUL. Files larger than `max_bytes` fail with
 * MB_ERR_LIMIT.
 */
mb_status mb_read_file(const char *path, size_t max_bytes, char **data, size_t *len, mb_error *err);

/**
 * Output that appears at `path` only when committed: written to a temporary
 * file in the same directory and renamed over `path` on success, removed on
 * abort. A failed run never leaves a half-written file.
 */
typedef struct mb_atomic_file {
    FILE *fp;
    char *path;
    char *tmp_path;
} mb_atomic_file;

mb_status mb_atomic_open(mb_atomic_file *af, const char *path, mb_error *err);
/** Flushes, closes and renames into place; on any failure removes the temp file. */
mb_status mb_atomic_commit(mb_atomic_file *af, mb_error *err);
/** Closes and removes the temporary file. Safe to call after a commit. */
void mb_atomic_abort(mb_atomic_file *af);
/** Writes `len` bytes to `path` atomically. */
mb_status mb_write_file_atomic(const char *path, const void *data, size_t len, mb_error *err);

/* --------------------------------------------------------- dynamic arrays */

/**
 * Grows `*ptr` (an array of `elem` byte elements with capacity `*cap`) so it
 * holds at least `need` elements. Returns MB_OK or MB_ERR_NOMEM.
 */
mb_status mb_grow(void **ptr, size_t *cap, size_t need, size_t elem);

/** Typed wrapper: `MB_GROW(arr, cap, need)` on `T *arr; size_t cap;`. */
#define MB_GROW(arr, cap, need) mb_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* ------------------------------------------------------------- bit counts */

/* Bits set in a word. Written out because the baseline x86-64 target has no
 * popcnt instruction and __builtin_popcount becomes a libgcc call; lane masks
 * are counted on the executor's, profiler's and simulator's hot paths. */
static inline uint32_t mb_popcount32(uint32_t v)
{
    v = v - ((v >> 1) & 0x55555555u);
    v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
    v = (v + (v >> 4)) & 0x0F0F0F0Fu;
    return (v * 0x01010101u) >> 24;
}

static inline uint32_t mb_popcount64(uint64_t v)
{
    v = v - ((v >> 1) & UINT64_C(0x5555555555555555));
    v = (v & UINT64_C(0x3333333333333333)) + ((v >> 2) & UINT64_C(0x3333333333333333));
    v = (v + (v >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (uint32_t)((v * UINT64_C(0x0101010101010101)) >> 56);
}

/* ---------------------------------------------------------------- hash */

/** Continues a 64-bit FNV-1a hash `h` over `n` bytes; start with MB_FNV1A64_INIT. */
#define MB_FNV1A64_INIT UINT64_C(0xcbf29ce484222325)
static inline uint64_t mb_fnv1a64(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

/* ---------------------------------------------------------------- gcd */

/* Greatest common divisor (binary: shifts instead of divisions); gcd(0, y) = y. */
static inline uint64_t mb_gcd_u64(uint64_t x, uint64_t y)
{
    if (x == 0)
        return y;
    if (y == 0)
        return x;
    const int shift = __builtin_ctzll(x | y);
    x >>= __builtin_ctzll(x);
    do {
        y >>= __builtin_ctzll(y);
        if (x > y) {
            const uint64_t t = x;
            x = y;
            y = t;
        }
        y -= x;
    } while (y != 0);
    return x << shift;
}

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_UTIL_H */
