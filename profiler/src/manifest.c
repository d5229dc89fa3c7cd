/* Launch manifests: JSON descriptions of buffers and kernel launches, and
 * their binding to a program and device memory. */
#define _POSIX_C_SOURCE 200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include <minibench/profiler.h>

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef enum init_kind { INIT_ZERO, INIT_CONSTANT, INIT_SEQUENCE, INIT_RANDOM, INIT_FILE, INIT_VALUES } init_kind;

typedef struct buffer_spec {
    char *name;
    mb_ptx_type type;
    uint64_t count;
    uint64_t bytes;
    int output;
    init_kind init;
    double a, b;     /* constant value / sequence start, step / random min, max */
    int a_int, b_int; /* a and b were written as integers */
    long long ia, ib;
    uint64_t seed;
    char *path;
    json_t *values; /* INIT_VALUES: a JSON array (owned) */
} buffer_spec;

typedef enum arg_kind { ARG_BUFFER, ARG_NUMBER, ARG_BYTES } arg_kind;

typedef struct arg_spec {
    arg_kind kind;
    uint32_t buffer;
    uint64_t offset;
    int is_int;
    long long ival;
    double fval;
    json_t *bytes; /* ARG_BYTES: array of byte values (owned) */
} arg_spec;

typedef struct launch_spec {
    char *kernel;
    int is_regex;
    mb_dim3 grid, block;
    uint32_t dynamic_shared;
    arg_spec *args;
    uint32_t nargs;
} launch_spec;

struct mb_manifest {
    char *name;
    char *dir;
    buffer_spec *bufs;
    uint32_t nbufs;
    launch_spec *launches;
    uint32_t nlaunches;
};

/* ------------------------------------------------------------ parsing */

static mb_status bad(mb_error *err, const char *file, const char *path, const char *fmt, ...)
    MB_PRINTF(4, 5);

static mb_status bad(mb_error *err, const char *file, const char *path, const char *fmt, ...)
{
    char what[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return mb_error_set(err, MB_ERR_INVALID, file, 0, 0, "%s: %s", path, what);
}

static const char *const buffer_keys[] = {"type", "count", "bytes", "init", "output", NULL};
static const char *const launch_keys[] = {"kernel", "grid", "block", "dynamic_shared", "args", NULL};
static const char *const init_keys[] = {"kind", "value", "start", "step", "min", "max", "seed", "path", "values", NULL};

/* Rejects keys the format does not define (typos would be silently ignored otherwise). */
static mb_status check_keys(json_t *obj, const char *const *allowed, const char *file,
                            const char *path, mb_error *err)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        int ok = 0;
        for (int i = 0; allowed[i]; i++)
            ok |= strcmp(key, allowed[i]) == 0;
        if (!ok) {
            char list[200] = "";
            for (int i = 0; allowed[i]; i++)
                snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                         allowed[i]);
            return bad(err, file, path, "unknown field '%s' (expected %s)", key, list);
        }
    }
    return MB_OK;
}

static mb_status get_uint(json_t *v, uint64_t max, uint64_t *out, const char *file,
                          const char *path, mb_error *err)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return bad(err, file, path, "expected a non-negative integer");
    if ((uint64_t)json_integer_value(v) > max)
        return mb_error_set(err, MB_ERR_LIMIT, file, 0, 0, "%s: %lld is larger than the limit %" PRIu64,
                            path, json_integer_value(v), max);
    *out = (uint64_t)json_integer_value(v);
    return MB_OK;
}

static mb_status get_dim3(json_t *v, mb_dim3 *out, const char *file, const char *path,
                          mb_error *err)
{
    uint32_t d[3] = {1, 1, 1};
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 1 || json_integer_value(v) > 0x7FFFFFFF)
            return bad(err, file, path, "expected a positive integer below 2^31");
        d[0] = (uint32_t)json_integer_value(v);
    } else if (json_is_array(v) && json_array_size(v) >= 1 && json_array_size(v) <= 3) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            json_t *e = json_array_get(v, i);
            if (!json_is_integer(e) || json_integer_value(e) < 1 || json_integer_value(e) > 0x7FFFFFFF)
                return bad(err, file, path, "element %zu: expected a positive integer below 2^31", i);
            d[i] = (uint32_t)json_integer_value(e);
        }
    } else {
        return bad(err, file, path, "expected a positive integer or an array of 1 to 3 of them");
    }
    out->x = d[0];
    out->y = d[1];
    out->z = d[2];
    return MB_OK;
}

static int number_value(json_t *v, double *d, long long *i)
{
    if (json_is_integer(v)) {
        *i = json_integer_value(v);
        *d = (double)*i;
        return 2;
    }
    if (json_is_real(v)) {
        *d = json_real_value(v);
        *i = 0;
        return 1;
    }
    return 0;
}

static mb_status parse_init(buffer_spec *b, json_t *init, const char *file, const char *path,
                            mb_error *err)
{
    char sub[400];
    if (!init || json_is_null(init) || (json_is_string(init) && strcmp(json_string_value(init), "zero") == 0)) {
        b->init = INIT_ZERO;
        return MB_OK;
    }
    if (json_is_array(init)) {
        b->init = INIT_VALUES;
        b->values = json_incref(init);
        return MB_OK;
    }
    if (!json_is_object(init))
        return bad(err, file, path, "expected \"zero\", an array of values or an object with a \"kind\"");
    mb_status st = check_keys(init, init_keys, file, path, err);
    if (st != MB_OK)
        return st;
    json_t *kind = json_object_get(init, "kind");
    const char *k = json_string_value(kind);
    if (!k)
        return bad(err, file, path, "missing \"kind\" (zero, constant, sequence, random, file, values)");
    b->seed = 1;
    if (strcmp(k, "zero") == 0) {
        b->init = INIT_ZERO;
    } else if (strcmp(k, "constant") == 0) {
        b->init = INIT_CONSTANT;
        snprintf(sub, sizeof(sub), "%s.value", path);
        int n = number_value(json_object_get(init, "value"), &b->a, &b->ia);
        if (!n)
            return bad(err, file, sub, "expected a number");
        b->a_int = n == 2;
    } else if (strcmp(k, "sequence") == 0) {
        b->init = INIT_SEQUENCE;
        json_t *start = json_object_get(init, "start"), *step = json_object_get(init, "step");
        b->a_int = b->b_int = 1;
        b->ia = 0;
        b->ib = 1;
        b->a = 0;
        b->b = 1;
        snprintf(sub, sizeof(sub), "%s.start", path);
        if (start && !(b->a_int = number_value(start, &b->a, &b->ia) == 2) && !json_is_real(start))
            return bad(err, file, sub, "expected a number");
        snprintf(sub, sizeof(sub), "%s.step", path);
        if (step && !(b->b_int = number_value(step, &b->b, &b->ib) == 2) && !json_is_real(step))
            return bad(err, file, sub, "expected a number");
    } else if (strcmp(k, "random") == 0) {
        b->init = INIT_RANDOM;
        json_t *min = json_object_get(init, "min"), *max = json_object_get(init, "max");
        json_t *seed = json_object_get(init, "seed");
        b->a = 0;
        b->b = 1;
        b->a_int = b->b_int = 0;
        snprintf(sub, sizeof(sub), "%s.min", path);
        if (min && !number_value(min, &b->a, &b->ia))
            return bad(err, file, sub, "expected a number");
        b->a_int = min && json_is_integer(min);
        snprintf(sub, sizeof(sub), "%s.max", path);
        if (max && !number_value(max, &b->b, &b->ib))
            return bad(err, file, sub, "expected a number");
        b->b_int = max && json_is_integer(max);
        if (b->a > b->b)
            return bad(err, file, path, "min %g is larger than max %g", b->a, b->b);
        snprintf(sub, sizeof(sub), "%s.seed", path);
        if (seed && get_uint(seed, UINT64_MAX, &b->seed, file, sub, err) != MB_OK)
            return err->status;
    } else if (strcmp(k, "file") == 0) {
        b->init = INIT_FILE;
        const char *p = json_string_value(json_object_get(init, "path"));
        if (!p)
            return bad(err, file, path, "a file initialiser needs a \"path\"");
        b->path = strdup(p);
        if (!b->path)
            return mb_error_set(err, MB_ERR_NOMEM, file, 0, 0, "out of memory");
    } else if (strcmp(k, "values") == 0) {
        json_t *values = json_object_get(init, "values");
        if (!json_is_array(values))
            return bad(err, file, path, "a values initialiser needs a \"values\" array");
        b->init = INIT_VALUES;
        b->values = json_incref(values);
    } else {
        return bad(err, file, path, "unknown kind '%s' (expected zero, constant, sequence, random, file, values)", k);
    }
    return MB_OK;
}

static mb_status parse_buffer(buffer_spec *b, const char *name, json_t *v, const char *file,
                              mb_error *err)
{
    char path[256], sub[320];
    snprintf(path, sizeof(path), "buffers.%s", name);
    if (!json_is_object(v))
        return bad(err, file, path, "expected an object with a type and a count or bytes");
    mb_status st = check_keys(v, buffer_keys, file, path, err);
    if (st != MB_OK)
        return st;
    b->name = strdup(name);
    if (!b->name)
        return mb_error_set(err, MB_ERR_NOMEM, file, 0, 0, "out of memory");
    b->type = MB_TYPE_B8;
    json_t *type = json_object_get(v, "type");
    if (type) {
        const char *t = json_string_value(type);
        b->type = t ? mb_type_lookup(t, strlen(t)) : MB_TYPE_NONE;
        snprintf(sub, sizeof(sub), "%s.type", path);
        if (b->type == MB_TYPE_NONE || mb_type_size(b->type) == 0)
            return bad(err, file, sub, "expected a PTX data type such as f32, u32, s8, f64");
    }
    unsigned size = mb_type_size(b->type);
    json_t *count = json_object_get(v, "count"), *bytes = json_object_get(v, "bytes");
    const uint64_t limit = UINT64_C(1) << 40;
    if (count) {
        snprintf(sub, sizeof(sub), "%s.count", path);
        if ((st = get_uint(count, limit / size, &b->count, file, sub, err)) != MB_OK)
            return st;
        b->bytes = b->count * size;
    }
    if (bytes) {
        uint64_t n;
        snprintf(sub, sizeof(sub), "%s.bytes", path);
        if ((st = get_uint(bytes, limit, &n, file, sub, err)) != MB_OK)
            return st;
        if (count && n != b->bytes)
            return bad(err, file, path, "bytes (%" PRIu64 ") disagrees with count x %u (%" PRIu64 ")",
                       n, size, b->bytes);
        if (n % size)
            return bad(err, file, sub, "%" PRIu64 " is not a multiple of the %u-byte element", n, size);
        b->bytes = n;
        b->count = n / size;
    }
    json_t *init = json_object_get(v, "init");
    if (!count && !bytes) {
        if (!json_is_array(init))
            return bad(err, file, path, "missing \"count\" or \"bytes\"");
        b->count = json_array_size(init);
        b->bytes = b->count * size;
    }
    json_t *output = json_object_get(v, "output");
    if (output && !json_is_boolean(output))
        return bad(err, file, path, "\"output\" must be true or false");
    b->output = json_is_true(output);
    snprintf(sub, sizeof(sub), "%s.init", path);
    if ((st = parse_init(b, init, file, sub, err)) != MB_OK)
        return st;
    if (b->init == INIT_VALUES && json_array_size(b->values) > b->count)
        return bad(err, file, sub, "%zu values for %" PRIu64 " elements", json_array_size(b->values),
                   b->count);
    if ((b->type == MB_TYPE_F16 || b->type == MB_TYPE_BF16 || b->type == MB_TYPE_F16X2 ||
         b->type == MB_TYPE_BF16X2 || size > 8) &&
        b->init != INIT_ZERO && b->init != INIT_FILE)
        return bad(err, file, sub, "buffers of .%s support only zero and file initialisers",
                   mb_type_name(b->type));
    return MB_OK;
}

static mb_status parse_arg(mb_manifest *m, arg_spec *a, json_t *v, const char *file,
                           const char *path, mb_error *err)
{
    memset(a, 0, sizeof(*a));
    const char *bufname = NULL;
    json_t *offset = NULL;
    if (json_is_string(v)) {
        bufname = json_string_value(v);
    } else if (json_is_object(v)) {
        json_t *b = json_object_get(v, "buffer");
        json_t *value = json_object_get(v, "value");
        json_t *bytes = json_object_get(v, "bytes");
        if (b) {
            bufname = json_string_value(b);
            if (!bufname)
                return bad(err, file, path, "\"buffer\" must be a buffer name");
            offset = json_object_get(v, "offset");
        } else if (value) {
            v = value;
        } else if (json_is_array(bytes)) {
            a->kind = ARG_BYTES;
            a->bytes = json_incref(bytes);
            return MB_OK;
        } else {
            return bad(err, file, path, "expected {\"buffer\": NAME}, {\"value\": NUMBER} or {\"bytes\": [...]}");
        }
    }
    if (bufname) {
        a->kind = ARG_BUFFER;
        for (uint32_t i = 0; i < m->nbufs; i++)
            if (strcmp(m->bufs[i].name, bufname) == 0) {
                a->buffer = i;
                if (offset) {
                    char sub[400];
                    snprintf(sub, sizeof(sub), "%s.offset", path);
                    mb_status st = get_uint(offset, m->bufs[i].bytes, &a->offset, file, sub, err);
                    if (st != MB_OK)
                        return st;
                }
                return MB_OK;
            }
        return bad(err, file, path, "no buffer named '%s'", bufname);
    }
    int n = number_value(v, &a->fval, &a->ival);
    if (!n)
        return bad(err, file, path, "expected a buffer name, a number or an object");
    a->kind = ARG_NUMBER;
    a->is_int = n == 2;
    return MB_OK;
}

static mb_status parse_launch(mb_manifest *m, launch_spec *l, uint32_t index, json_t *v,
                              const char *file, mb_error *err)
{
    char path[64], sub[320];
    snprintf(path, sizeof(path), "launches[%u]", index);
    if (!json_is_object(v))
        return bad(err, file, path, "expected an object");
    mb_status st = check_keys(v, launch_keys, file, path, err);
    if (st != MB_OK)
        return st;
    const char *kernel = json_string_value(json_object_get(v, "kernel"));
    if (!kernel || !kernel[0])
        return bad(err, file, path, "missing \"kernel\" (a name, or /regex/)");
    size_t klen = strlen(kernel);
    l->is_regex = klen >= 2 && kernel[0] == '/' && kernel[klen - 1] == '/';
    l->kernel = l->is_regex ? strndup(kernel + 1, klen - 2) : strdup(kernel);
    if (!l->kernel)
        return mb_error_set(err, MB_ERR_NOMEM, file, 0, 0, "out of memory");
    json_t *grid = json_object_get(v, "grid"), *block = json_object_get(v, "block");
    snprintf(sub, sizeof(sub), "%s.grid", path);
    if (!grid)
        return bad(err, file, sub, "missing");
    if ((st = get_dim3(grid, &l->grid, file, sub, err)) != MB_OK)
        return st;
    snprintf(sub, sizeof(sub), "%s.block", path);
    if (!block)
        return bad(err, file, sub, "missing");
    if ((st = get_dim3(block, &l->block, file, sub, err)) != MB_OK)
        return st;
    json_t *dyn = json_object_get(v, "dynamic_shared");
    if (dyn) {
        uint64_t d;
        snprintf(sub, sizeof(sub), "%s.dynamic_shared", path);
        if ((st = get_uint(dyn, UINT32_MAX, &d, file, sub, err)) != MB_OK)
            return st;
        l->dynamic_shared = (uint32_t)d;
    }
    json_t *args = json_object_get(v, "args");
    if (args && !json_is_array(args))
        return bad(err, file, path, "\"args\" must be an array");
    l->nargs = args ? (uint32_t)json_array_size(args) : 0;
    l->args = calloc((size_t)l->nargs + 1, sizeof(arg_spec));
    if (!l->args)
        return mb_error_set(err, MB_ERR_NOMEM, file, 0, 0, "out of memory");
    for (uint32_t i = 0; i < l->nargs; i++) {
        snprintf(sub, sizeof(sub), "%s.args[%u]", path, i);
        if ((st = parse_arg(m, &l->args[i], json_array_get(args, i), file, sub, err)) != MB_OK)
            return st;
    }
    return MB_OK;
}

void mb_manifest_free(mb_manifest *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nbufs; i++) {
        free(m->bufs[i].name);
        free(m->bufs[i].path);
        json_decref(m->bufs[i].values);
    }
    for (uint32_t i = 0; i < m->nlaunches; i++) {
        for (uint32_t k = 0; k < m->launches[i].nargs; k++)
            json_decref(m->launches[i].args[k].bytes);
        free(m->launches[i].args);
        free(m->launches[i].kernel);
    }
    free(m->bufs);
    free(m->launches);
    free(m->name);
    free(m->dir);
    free(m);
}

uint32_t mb_manifest_nlaunches(const mb_manifest *m)
{
    return m->nlaunches;
}

mb_status mb_manifest_parse(const char *text, size_t len, const char *name, mb_manifest **out,
                            mb_error *err)
{
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return mb_error_set(err, MB_ERR_PARSE, name, jerr.line, jerr.column, "%s", jerr.text);
    mb_manifest *m = calloc(1, sizeof(*m));
    mb_status st = MB_OK;
    if (!m) {
        json_decref(root);
        return mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    }
    m->name = strdup(name);
    const char *slash = strrchr(name, '/');
    m->dir = slash ? strndup(name, (size_t)(slash - name)) : strdup(".");
    if (!m->name || !m->dir)
        st = mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    static const char *const top_keys[] = {"buffers", "launches", "description", NULL};
    if (st == MB_OK && !json_is_object(root))
        st = bad(err, name, "(top level)", "expected an object with \"buffers\" and \"launches\"");
    if (st == MB_OK)
        st = check_keys(root, top_keys, name, "(top level)", err);
    json_t *bufs = st == MB_OK ? json_object_get(root, "buffers") : NULL;
    if (st == MB_OK && bufs && !json_is_object(bufs))
        st = bad(err, name, "buffers", "expected an object mapping names to buffers");
    if (st == MB_OK && bufs) {
        m->bufs = calloc(json_object_size(bufs) + 1, sizeof(buffer_spec));
        if (!m->bufs)
            st = mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
        const char *key;
        json_t *v;
        json_object_foreach(bufs, key, v)
        {
            if (st != MB_OK)
                break;
            st = parse_buffer(&m->bufs[m->nbufs], key, v, name, err);
            m->nbufs++;
        }
    }
    json_t *launches = st == MB_OK ? json_object_get(root, "launches") : NULL;
    if (st == MB_OK && (!json_is_array(launches) || json_array_size(launches) == 0))
        st = bad(err, name, "launches", "expected a non-empty array of launches");
    if (st == MB_OK) {
        m->launches = calloc(json_array_size(launches) + 1, sizeof(launch_spec));
        if (!m->launches)
            st = mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
        for (size_t i = 0; st == MB_OK && i < json_array_size(launches); i++) {
            st = parse_launch(m, &m->launches[i], (uint32_t)i, json_array_get(launches, i), name, err);
            m->nlaunches++;
        }
    }
    json_decref(root);
    if (st != MB_OK) {
        mb_manifest_free(m);
        return st;
    }
    *out = m;
    return MB_OK;
}

mb_status mb_manifest_load(const char *path, mb_manifest **out, mb_error *err)
{
    char *text;
    size_t len;
    *out = NULL;
    mb_status st = mb_read_file(path, 64u << 20, &text, &len, err);
    if (st != MB_OK)
        return st;
    st = mb_manifest_parse(text, len, path, out, err);
    free(text);
    return st;
}

/* ------------------------------------------------------------ binding */

struct mb_manifest_run {
    const mb_manifest *manifest;
    mb_memory *mem;
    uint64_t *addr; /* per buffer */
    mb_launch_config *configs;
    uint8_t **params;
};

void mb_manifest_run_free(mb_manifest_run *run)
{
    if (!run)
        return;
    if (run->params)
        for (uint32_t i = 0; i < run->manifest->nlaunches; i++)
            free(run->params[i]);
    free(run->params);
    free(run->configs);
    free(run->addr);
    free(run);
}

const mb_launch_config *mb_manifest_launch(const mb_manifest_run *run, uint32_t i)
{
    return i < run->manifest->nlaunches ? &run->configs[i] : NULL;
}

uint64_t mb_manifest_buffer(const mb_manifest_run *run, const char *name, uint64_t *bytes)
{
    for (uint32_t i = 0; i < run->manifest->nbufs; i++)
        if (strcmp(run->manifest->bufs[i].name, name) == 0) {
            if (bytes)
                *bytes = run->manifest->bufs[i].bytes;
            return run->addr[i];
        }
    return 0;
}

/* splitmix64: a small, well-mixed generator; the manifest format fixes it. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Stores a number as element type `t`; fails when an integer does not fit. */
static int store_number(uint8_t *p, mb_ptx_type t, double d, long long i, int is_int)
{
    unsigned size = mb_type_size(t);
    mb_type_kind kind = mb_type_kind_of(t);
    if (kind == MB_TYPE_KIND_F) {
        if (t == MB_TYPE_F32) {
            float f = (float)(is_int ? (double)i : d);
            memcpy(p, &f, 4);
        } else {
            double v = is_int ? (double)i : d;
            memcpy(p, &v, 8);
        }
        return 1;
    }
    long long v = i;
    if (!is_int) {
        if (d != floor(d) || !isfinite(d) || fabs(d) > 9.2e18)
            return 0;
        v = (long long)d;
    }
    uint64_t u = (uint64_t)v;
    if (size < 8) {
        long long lo = kind == MB_TYPE_KIND_S ? -(1LL << (size * 8 - 1)) : 0;
        long long hi = kind == MB_TYPE_KIND_S ? (1LL << (size * 8 - 1)) - 1 : (1LL << (size * 8)) - 1;
        if (kind == MB_TYPE_KIND_B)
            lo = -(1LL << (size * 8 - 1));
        if (v < lo || v > hi)
            return 0;
    } else if (kind == MB_TYPE_KIND_U && v < 0) {
        return 0;
    }
    for (unsigned k = 0; k < size; k++)
        p[k] = (uint8_t)(u >> (8 * k));
    return 1;
}

static mb_status init_buffer(const mb_manifest *m, const buffer_spec *b, uint8_t *host,
                             mb_error *err)
{
    unsigned size = mb_type_size(b->type);
    char path[300];
    snprintf(path, sizeof(path), "buffers.%s.init", b->name);
    switch (b->init) {
    case INIT_ZERO: return MB_OK;
    case INIT_CONSTANT:
        for (uint64_t k = 0; k < b->count; k++)
            if (!store_number(host + k * size, b->type, b->a, b->ia, b->a_int))
                return bad(err, m->name, path, "value does not fit in .%s", mb_type_name(b->type));
        return MB_OK;
    case INIT_SEQUENCE: {
        int ints = b->a_int && b->b_int && mb_type_kind_of(b->type) != MB_TYPE_KIND_F;
        for (uint64_t k = 0; k < b->count; k++) {
            long long iv = b->ia + (long long)k * b->ib;
            double dv = b->a + (double)k * b->b;
            if (!store_number(host + k * size, b->type, dv, iv, ints))
                return bad(err, m->name, path, "element %" PRIu64 " does not fit in .%s", k,
                           mb_type_name(b->type));
        }
        return MB_OK;
    }
    case INIT_RANDOM: {
        uint64_t state = b->seed;
        int ints = mb_type_kind_of(b->type) != MB_TYPE_KIND_F;
        double lo = b->a, hi = b->b;
        if (ints && !b->a_int && !b->b_int && lo == 0 && hi == 1)
            hi = size >= 4 ? 2147483647.0 : (double)((1u << (size * 8 - 1)) - 1);
        for (uint64_t k = 0; k < b->count; k++) {
            uint64_t r = next_random(&state);
            if (ints) {
                long long l = (long long)ceil(lo), h = (long long)floor(hi);
                uint64_t span = (uint64_t)(h - l) + 1;
                long long v = l + (long long)(span ? r % span : r);
                if (!store_number(host + k * size, b->type, 0, v, 1))
                    return bad(err, m->name, path, "range [%g, %g] does not fit in .%s", lo, hi,
                               mb_type_name(b->type));
            } else {
                double u = (double)(r >> 11) * 0x1.0p-53;
                store_number(host + k * size, b->type, lo + u * (hi - lo), 0, 0);
            }
        }
        return MB_OK;
    }
    case INIT_VALUES:
        for (size_t k = 0; k < json_array_size(b->values); k++) {
            double d;
            long long i;
            int n = number_value(json_array_get(b->values, k), &d, &i);
            if (!n || !store_number(host + k * size, b->type, d, i, n == 2))
                return bad(err, m->name, path, "element %zu is not a number that fits in .%s", k,
                           mb_type_name(b->type));
        }
        return MB_OK;
    case INIT_FILE: {
        char full[1024];
        if (b->path[0] == '/')
            snprintf(full, sizeof(full), "%s", b->path);
        else
            snprintf(full, sizeof(full), "%s/%s", m->dir, b->path);
        char *data;
        size_t len;
        mb_status st = mb_read_file(full, b->bytes, &data, &len, err);
        if (st == MB_ERR_LIMIT)
            return bad(err, m->name, path, "file '%s' is larger than the buffer (%" PRIu64 " bytes)",
                       full, b->bytes);
        if (st != MB_OK) {
            char why[sizeof(err->msg)];
            snprintf(why, sizeof(why), "%s", err->msg);
            return mb_error_set(err, st, m->name, 0, 0, "%s: file '%s': %s", path, full, why);
        }
        memcpy(host, data, len);
        free(data);
        return MB_OK;
    }
    }
    return MB_OK;
}

static mb_status find_kernel(const launch_spec *l, uint32_t index, const mb_module *mod,
                             const char *file, const mb_function **out, mb_error *err)
{
    char path[64];
    snprintf(path, sizeof(path), "launches[%u].kernel", index);
    if (!l->is_regex) {
        const mb_function *fn = mb_module_find_function(mod, l->kernel);
        if (!fn || !fn->is_entry || !fn->has_body) {
            mb_buf names = MB_BUF_INIT;
            for (uint32_t i = 0; i < mod->nfuncs; i++)
                if (mod->funcs[i].is_entry && mod->funcs[i].has_body)
                    mb_buf_printf(&names, " %s", mod->funcs[i].name);
            mb_status st = bad(err, file, path, "no kernel named '%s' in %s; kernels:%s", l->kernel,
                               mod->filename, names.data ? names.data : " none");
            mb_buf_free(&names);
            return st;
        }
        *out = fn;
        return MB_OK;
    }
    int code;
    PCRE2_SIZE offset;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)l->kernel, PCRE2_ZERO_TERMINATED, 0, &code, &offset, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof(msg));
        return bad(err, file, path, "bad regular expression at offset %zu: %s", (size_t)offset,
                   (const char *)msg);
    }
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    const mb_function *found = NULL;
    int matches = 0;
    mb_buf names = MB_BUF_INIT;
    for (uint32_t i = 0; md && i < mod->nfuncs; i++) {
        const mb_function *fn = &mod->funcs[i];
        if (!fn->is_entry || !fn->has_body)
            continue;
        if (pcre2_match(re, (PCRE2_SPTR)fn->name, strlen(fn->name), 0, 0, md, NULL) >= 0) {
            found = fn;
            matches++;
            mb_buf_printf(&names, " %s", fn->name);
        }
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    mb_status st = MB_OK;
    if (matches != 1)
        st = bad(err, file, path, "/%s/ matches %d kernels%s%s", l->kernel, matches,
                 matches ? ":" : "", names.data ? names.data : "");
    mb_buf_free(&names);
    *out = found;
    return st;
}

static mb_status build_params(const mb_manifest_run *run, const launch_spec *l, uint32_t index,
                              const mb_function *k, uint8_t **out, uint32_t *total, mb_error *err)
{
    const mb_manifest *m = run->manifest;
    char path[64];
    snprintf(path, sizeof(path), "launches[%u].args", index);
    if (l->nargs != k->nparams)
        return bad(err, m->name, path, "kernel %s takes %u argument%s, the manifest gives %u",
                   k->name, k->nparams, k->nparams == 1 ? "" : "s", l->nargs);
    mb_param_slot *slots = calloc((size_t)k->nparams + 1, sizeof(mb_param_slot));
    if (!slots)
        return mb_error_set(err, MB_ERR_NOMEM, m->name, 0, 0, "out of memory");
    mb_status st = mb_kernel_param_layout(k, slots, total, err);
    uint8_t *buf = st == MB_OK ? calloc((size_t)*total + 1, 1) : NULL;
    if (st == MB_OK && !buf)
        st = mb_error_set(err, MB_ERR_NOMEM, m->name, 0, 0, "out of memory");
    for (uint32_t i = 0; st == MB_OK && i < k->nparams; i++) {
        const arg_spec *a = &l->args[i];
        const mb_param *p = &k->params[i];
        uint8_t *dst = buf + slots[i].offset;
        char sub[96];
        snprintf(sub, sizeof(sub), "%s[%u]", path, i);
        if (a->kind == ARG_BUFFER) {
            /* device addresses are 64-bit (MB_GLOBAL_BASE) */
            if (p->ndims || slots[i].size != 8)
                st = bad(err, m->name, sub, "buffer '%s' passed to parameter %s of type .%s%s, which "
                         "cannot hold a 64-bit address", m->bufs[a->buffer].name, p->name,
                         mb_type_name(p->type), p->ndims ? " (an array)" : "");
            else {
                uint64_t addr = run->addr[a->buffer] + a->offset;
                memcpy(dst, &addr, 8);
            }
        } else if (a->kind == ARG_BYTES) {
            if (json_array_size(a->bytes) != slots[i].size)
                st = bad(err, m->name, sub, "parameter %s takes %u bytes, the manifest gives %zu",
                         p->name, slots[i].size, json_array_size(a->bytes));
            for (size_t b = 0; st == MB_OK && b < json_array_size(a->bytes); b++) {
                json_t *e = json_array_get(a->bytes, b);
                if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) > 255)
                    st = bad(err, m->name, sub, "byte %zu is not an integer from 0 to 255", b);
                else
                    dst[b] = (uint8_t)json_integer_value(e);
            }
        } else if (p->ndims || mb_type_size(p->type) == 0) {
            st = bad(err, m->name, sub, "parameter %s is an array or opaque; pass {\"bytes\": [...]}",
                     p->name);
        } else if (!store_number(dst, p->type, a->fval, a->ival, a->is_int)) {
            st = bad(err, m->name, sub, "%s does not fit parameter %s of type .%s",
                     a->is_int ? "the integer" : "the number", p->name, mb_type_name(p->type));
        }
    }
    free(slots);
    if (st != MB_OK) {
        free(buf);
        return st;
    }
    *out = buf;
    return MB_OK;
}

mb_status mb_manifest_bind(const mb_manifest *m, mb_program *prog, mb_memory *mem,
                           mb_manifest_run **out, mb_error *err)
{
    *out = NULL;
    const mb_module *mod = mb_program_module(prog);
    mb_manifest_run *run = calloc(1, sizeof(*run));
    if (!run)
        return mb_error_set(err, MB_ERR_NOMEM, m->name, 0, 0, "out of memory");
    run->manifest = m;
    run->mem = mem;
    run->addr = calloc((size_t)m->nbufs + 1, sizeof(uint64_t));
    run->configs = calloc((size_t)m->nlaunches + 1, sizeof(mb_launch_config));
    run->params = calloc((size_t)m->nlaunches + 1, sizeof(uint8_t *));
    mb_status st = MB_OK;
    if (!run->addr || !run->configs || !run->params)
        st = mb_error_set(err, MB_ERR_NOMEM, m->name, 0, 0, "out of memory");
    for (uint32_t i = 0; st == MB_OK && i < m->nbufs; i++) {
        const buffer_spec *b = &m->bufs[i];
        st = mb_memory_alloc(mem, b->bytes, b->name, &run->addr[i], err);
        if (st != MB_OK) {
            char msg[sizeof(err->msg) + 300];
            snprintf(msg, sizeof(msg), "buffers.%s: %s", b->name, err->msg);
            st = mb_error_set(err, st, m->name, 0, 0, "%s", msg);
            break;
        }
        st = init_buffer(m, b, mb_memory_host(mem, run->addr[i], b->bytes), err);
    }
    for (uint32_t i = 0; st == MB_OK && i < m->nlaunches; i++) {
        const launch_spec *l = &m->launches[i];
        const mb_function *k = NULL;
        uint32_t total = 0;
        st = find_kernel(l, i, mod, m->name, &k, err);
        if (st == MB_OK)
            st = build_params(run, l, i, k, &run->params[i], &total, err);
        if (st == MB_OK) {
            mb_launch_config *c = &run->configs[i];
            c->kernel = k;
            c->grid = l->grid;
            c->block = l->block;
            c->dynamic_shared = l->dynamic_shared;
            c->params = run->params[i];
            c->param_bytes = total;
        }
    }
    if (st != MB_OK) {
        mb_manifest_run_free(run);
        return st;
    }
    *out = run;
    return MB_OK;
}

mb_status mb_manifest_write_outputs(const mb_manifest_run *run, const char *dir, mb_error *err)
{
    const mb_manifest *m = run->manifest;
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return mb_error_set(err, MB_ERR_IO, dir, 0, 0, "cannot create directory: %s", strerror(errno));
    json_t *index = json_object();
    json_t *list = json_array();
    json_object_set_new(index, "buffers", list);
    mb_status st = MB_OK;
    for (uint32_t i = 0; st == MB_OK && i < m->nbufs; i++) {
        const buffer_spec *b = &m->bufs[i];
        if (!b->output)
            continue;
        char file[600], name[300];
        snprintf(name, sizeof(name), "%s.bin", b->name);
        snprintf(file, sizeof(file), "%s/%s", dir, name);
        const uint8_t *host = mb_memory_host(run->mem, run->addr[i], b->bytes);
        st = mb_write_file_atomic(file, host, b->bytes, err);
        char sum[32];
        snprintf(sum, sizeof(sum), "0x%016" PRIx64, host ? mb_fnv1a64(MB_FNV1A64_INIT, host, b->bytes) : 0);
        json_t *e = json_object();
        json_object_set_new(e, "name", json_string(b->name));
        json_object_set_new(e, "type", json_string(mb_type_name(b->type)));
        json_object_set_new(e, "count", json_integer((json_int_t)b->count));
        json_object_set_new(e, "bytes", json_integer((json_int_t)b->bytes));
        json_object_set_new(e, "file", json_string(name));
        json_object_set_new(e, "fnv1a64", json_string(sum));
        json_array_append_new(list, e);
    }
    if (st == MB_OK) {
        char *text = json_dumps(index, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        char file[600];
        snprintf(file, sizeof(file), "%s/index.json", dir);
        if (!text)
            st = mb_error_set(err, MB_ERR_NOMEM, file, 0, 0, "out of memory");
        else {
            size_t len = strlen(text);
            text[len] = '\n';
            st = mb_write_file_atomic(file, text, len + 1, err);
        }
        free(text);
    }
    json_decref(index);
    return st;
}
