/* Loading a profile: K.n.profile.json through jansson, cross-checked with the DFSG. */
#include "synth_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Context of one JSON load: errors name the file and the JSON path. */
typedef struct loader {
    const char *name;
    mb_arena *arena;
    mb_error *err;
    char path[256];
} loader;

static mb_status fail(loader *ld, const char *what)
{
    return mb_error_set(ld->err, MB_ERR_INVALID, ld->name, 0, 0, "%s: %s", ld->path, what);
}

static mb_status nomem(loader *ld)
{
    return mb_error_set(ld->err, MB_ERR_NOMEM, ld->name, 0, 0, "out of memory");
}

static void at(loader *ld, const char *fmt, ...) MB_PRINTF(2, 3);
static void at(loader *ld, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ld->path, sizeof ld->path, fmt, ap);
    va_end(ap);
}

static void *alloc_array(loader *ld, size_t n, size_t elem)
{
    if (n > SIZE_MAX / elem)
        return NULL;
    return mb_arena_alloc(ld->arena, n ? n * elem : 1);
}

static mb_status get_u64(loader *ld, json_t *obj, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%s' must be a non-negative integer", key);
        return fail(ld, msg);
    }
    *out = (uint64_t)json_integer_value(v);
    return MB_OK;
}

static mb_status get_int_or_null(loader *ld, json_t *obj, const char *key, int *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v)) {
        *out = -1;
        return MB_OK;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1 << 30) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%s' must be null or a non-negative integer", key);
        return fail(ld, msg);
    }
    *out = (int)json_integer_value(v);
    return MB_OK;
}

static mb_status get_str(loader *ld, json_t *obj, const char *key, int optional, const char **out)
{
    json_t *v = json_object_get(obj, key);
    if (!v && optional) {
        *out = "";
        return MB_OK;
    }
    if (!json_is_string(v)) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%s' must be a string", key);
        return fail(ld, msg);
    }
    if (!(*out = mb_arena_strdup(ld->arena, json_string_value(v))))
        return nomem(ld);
    return MB_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
    return (x > y) - (x < y);
}

/* {"key": count, ...} with integer-looking keys; absent means empty. */
static mb_status get_hist(loader *ld, json_t *obj, const char *key, mb_hist *h)
{
    memset(h, 0, sizeof(*h));
    json_t *v = json_object_get(obj, key);
    if (!v)
        return MB_OK;
    if (!json_is_object(v)) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%s' must be an object of counts", key);
        return fail(ld, msg);
    }
    size_t n = json_object_size(v);
    int64_t *pairs = alloc_array(ld, n, 2 * sizeof(int64_t));
    h->key = alloc_array(ld, n, sizeof(int64_t));
    h->count = alloc_array(ld, n, sizeof(uint64_t));
    if (!pairs || !h->key || !h->count)
        return nomem(ld);
    const char *k;
    json_t *c;
    size_t i = 0;
    json_object_foreach(v, k, c)
    {
        char *end;
        long long x = strtoll(k, &end, 10);
        if (*k == '\0' || *end || !json_is_integer(c) || json_integer_value(c) < 0) {
            char msg[200];
            snprintf(msg, sizeof msg, "'%s': entry \"%.40s\" must map an integer to a count", key, k);
            return fail(ld, msg);
        }
        pairs[2 * i] = x;
        pairs[2 * i + 1] = (int64_t)json_integer_value(c);
        i++;
    }
    qsort(pairs, n, 2 * sizeof(int64_t), cmp_i64);
    for (i = 0; i < n; i++) {
        h->key[i] = pairs[2 * i];
        h->count[i] = (uint64_t)pairs[2 * i + 1];
    }
    h->n = n;
    return MB_OK;
}

static mb_status get_mix(loader *ld, json_t *obj, const char *key, mb_sprof_mix *mix)
{
    memset(mix, 0, sizeof(*mix));
    json_t *v = json_object_get(obj, key);
    if (!json_is_object(v)) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%s' must be an object of counts", key);
        return fail(ld, msg);
    }
    size_t n = json_object_size(v);
    mix->name = alloc_array(ld, n, sizeof(char *));
    mix->count = alloc_array(ld, n, sizeof(uint64_t));
    if (!mix->name || !mix->count)
        return nomem(ld);
    const char *k;
    json_t *c;
    json_object_foreach(v, k, c)
    {
        if (!json_is_integer(c) || json_integer_value(c) < 0)
            return fail(ld, "instruction counts must be non-negative integers");
        if (!(mix->name[mix->n] = mb_arena_strdup(ld->arena, k)))
            return nomem(ld);
        mix->count[mix->n++] = (uint64_t)json_integer_value(c);
    }
    return MB_OK;
}

static mb_status get_array(loader *ld, json_t *obj, const char *key, json_t **out, size_t *n)
{
    *out = json_object_get(obj, key);
    if (!json_is_array(*out)) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%s' must be an array", key);
        return fail(ld, msg);
    }
    *n = json_array_size(*out);
    return MB_OK;
}

static mb_status get_dim3(loader *ld, json_t *obj, const char *key, uint32_t d[3])
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_array(v) || json_array_size(v) != 3) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%s' must be an array of 3 integers", key);
        return fail(ld, msg);
    }
    for (int i = 0; i < 3; i++) {
        json_t *x = json_array_get(v, (size_t)i);
        if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > 0x7fffffff) {
            char msg[160];
            snprintf(msg, sizeof msg, "'%s'[%d] must be a positive integer", key, i);
            return fail(ld, msg);
        }
        d[i] = (uint32_t)json_integer_value(x);
    }
    return MB_OK;
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        mb_status st_ = (expr);                                                                    \
        if (st_ != MB_OK)                                                                          \
            return st_;                                                                            \
    } while (0)

/* The space-separated words of `text`. */
static mb_status split_words(loader *ld, const char *text, const char ***words, size_t *nwords)
{
    size_t n = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        n++;
        while (*p && *p != ' ')
            p++;
    }
    *words = alloc_array(ld, n, sizeof(char *));
    if (!*words)
        return nomem(ld);
    *nwords = 0;
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *q = p;
        while (*q && *q != ' ')
            q++;
        if (!((*words)[(*nwords)++] = mb_arena_strndup(ld->arena, p, (size_t)(q - p))))
            return nomem(ld);
        p = q;
    }
    return MB_OK;
}

/* "dependences": one word per chain instruction, "-" or distances 1..i
 * (instruction i's producers earlier in the block) separated by commas;
 * parsed into dep_start / dep. */
static mb_status load_deps(loader *ld, json_t *jb, mb_sprof_block *b)
{
    const char *text;
    const char **words;
    size_t n;
    b->dep_start = b->dep = NULL;
    if (!json_object_get(jb, "dependences"))
        return MB_OK; /* profiles before the field: the histogram alone */
    TRY(get_str(ld, jb, "dependences", 0, &text));
    TRY(split_words(ld, text, &words, &n));
    char msg[160];
    if (n != b->nchain) {
        snprintf(msg, sizeof msg, "'dependences' has %zu words for %zu chain instructions", n, b->nchain);
        return fail(ld, msg);
    }
    uint32_t *start = alloc_array(ld, n + 1, sizeof(uint32_t));
    uint32_t *dep = alloc_array(ld, strlen(text) / 2 + 1, sizeof(uint32_t)); /* "d," per distance */
    if (!start || !dep)
        return nomem(ld);
    uint32_t nd = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = words[i];
        start[i] = nd;
        if (!strcmp(p, "-"))
            continue;
        for (;;) {
            char *end;
            unsigned long d = strtoul(p, &end, 10);
            if (end == p || *p < '0' || *p > '9' || d < 1 || d > i || (*end && *end != ',')) {
                snprintf(msg, sizeof msg,
                         "'dependences' word %zu ('%.40s') must be '-' or distances 1..%zu joined by commas",
                         i, words[i], i);
                return fail(ld, msg);
            }
            dep[nd++] = (uint32_t)d;
            if (!*end)
                break;
            p = end + 1;
        }
    }
    start[n] = nd;
    b->dep_start = start;
    b->dep = dep;
    return MB_OK;
}

/* "dependences_in": one word per chain instruction, "-" or, per register read
 * from outside the block, its reaching definitions "block.index" joined by
 * "|", registers joined by ","; parsed into in_start / in_reg / in_def. The
 * definitions' blocks and indices are checked once every block is loaded. */
static mb_status load_deps_in(loader *ld, json_t *jb, mb_sprof_block *b)
{
    const char *text;
    const char **words;
    size_t n;
    b->in_start = b->in_reg = NULL;
    b->in_def = NULL;
    if (!json_object_get(jb, "dependences_in"))
        return MB_OK;
    TRY(get_str(ld, jb, "dependences_in", 0, &text));
    TRY(split_words(ld, text, &words, &n));
    char msg[160];
    if (n != b->nchain) {
        snprintf(msg, sizeof msg, "'dependences_in' has %zu words for %zu chain instructions", n,
                 b->nchain);
        return fail(ld, msg);
    }
    size_t most = strlen(text) / 2 + 2; /* every register and definition takes at least 2 characters */
    uint32_t *start = alloc_array(ld, n + 1, sizeof(uint32_t));
    uint32_t *reg = alloc_array(ld, most + 1, sizeof(uint32_t));
    struct mb_sprof_def *def = alloc_array(ld, most, sizeof(*def));
    if (!start || !reg || !def)
        return nomem(ld);
    uint32_t nr = 0, nd = 0;
    for (size_t i = 0; i < n; i++) {
        const char *p = words[i];
        start[i] = nr;
        if (!strcmp(p, "-"))
            continue;
        reg[nr++] = nd;
        for (;;) {
            char *end, *end2;
            unsigned long blk = strtoul(p, &end, 10), idx = 0;
            int ok = end != p && *p >= '0' && *p <= '9' && *end == '.' && end[1] >= '0' && end[1] <= '9';
            if (ok) {
                idx = strtoul(end + 1, &end2, 10);
                end = end2;
                ok = blk < (1ul << 30) && idx < (1ul << 30) && (!*end || *end == ',' || *end == '|') &&
                     nd < most && nr <= most;
            }
            if (!ok) {
                snprintf(msg, sizeof msg,
                         "'dependences_in' word %zu ('%.40s') must be '-' or block.index "
                         "definitions joined by '|' and ','",
                         i, words[i]);
                return fail(ld, msg);
            }
            def[nd].block = (uint32_t)blk;
            def[nd].index = (uint32_t)idx;
            nd++;
            if (!*end)
                break;
            if (*end == ',')
                reg[nr++] = nd;
            p = end + 1;
        }
    }
    start[n] = nr;
    reg[nr] = nd;
    b->in_start = start;
    b->in_reg = reg;
    b->in_def = def;
    return MB_OK;
}

static mb_status check_deps_in(loader *ld, int fi, const mb_sprof_func *f)
{
    for (size_t i = 0; i < f->nblocks; i++) {
        const mb_sprof_block *b = &f->blocks[i];
        if (!b->in_start)
            continue;
        for (uint32_t k = 0; k < b->in_reg[b->in_start[b->nchain]]; k++)
            if (b->in_def[k].block >= f->nblocks ||
                b->in_def[k].index >= f->blocks[b->in_def[k].block].nchain) {
                at(ld, "functions[%d].blocks[%zu]", fi, i);
                char msg[160];
                snprintf(msg, sizeof msg, "'dependences_in' names instruction %u.%u, which does not exist",
                         b->in_def[k].block, b->in_def[k].index);
                return fail(ld, msg);
            }
    }
    return MB_OK;
}

static mb_status load_blocks(loader *ld, json_t *jf, int fi, mb_sprof_func *f)
{
    json_t *arr;
    TRY(get_array(ld, jf, "blocks", &arr, &f->nblocks));
    f->blocks = alloc_array(ld, f->nblocks, sizeof(*f->blocks));
    if (!f->blocks)
        return nomem(ld);
    uint32_t insn = 0;
    for (size_t i = 0; i < f->nblocks; i++) {
        json_t *jb = json_array_get(arr, i);
        mb_sprof_block *b = &f->blocks[i];
        at(ld, "functions[%d].blocks[%zu]", fi, i);
        if (!json_is_object(jb))
            return fail(ld, "must be an object");
        uint64_t id;
        const char *chain;
        TRY(get_u64(ld, jb, "id", &id));
        if (id != i)
            return fail(ld, "block ids must be 0, 1, 2, ... in order");
        b->id = (int)id;
        TRY(get_str(ld, jb, "name", 0, &b->name));
        TRY(get_u64(ld, jb, "ecount", &b->ecount));
        TRY(get_u64(ld, jb, "lcount", &b->lcount));
        TRY(get_u64(ld, jb, "scount", &b->scount));
        TRY(get_u64(ld, jb, "threads", &b->threads));
        TRY(get_u64(ld, jb, "warp_execs", &b->warp_execs));
        TRY(get_u64(ld, jb, "entries", &b->entries));
        TRY(get_u64(ld, jb, "exits", &b->exits));
        TRY(get_int_or_null(ld, jb, "loop", &b->loop));
        TRY(get_str(ld, jb, "chain", 0, &chain));
        TRY(split_words(ld, chain, &b->chain, &b->nchain));
        json_t *mix = json_object_get(jb, "instruction_mix");
        at(ld, "functions[%d].blocks[%zu].instruction_mix", fi, i);
        if (!json_is_object(mix))
            return fail(ld, "must be an object");
        TRY(get_mix(ld, mix, "classes", &b->classes));
        TRY(get_mix(ld, mix, "opcodes", &b->opcodes));
        at(ld, "functions[%d].blocks[%zu]", fi, i);
        TRY(get_hist(ld, jb, "dependence_distance", &b->dep_distance));
        TRY(load_deps(ld, jb, b));
        TRY(load_deps_in(ld, jb, b));
        b->first_insn = insn;
        insn += (uint32_t)b->nchain;
    }
    return check_deps_in(ld, fi, f);
}

static mb_status check_block(loader *ld, const mb_sprof_func *f, int b, const char *what)
{
    if (b < 0 || (size_t)b >= f->nblocks) {
        char msg[160];
        snprintf(msg, sizeof msg, "'%s' is not a block of the function", what);
        return fail(ld, msg);
    }
    return MB_OK;
}

static mb_status load_edges(loader *ld, json_t *jf, int fi, mb_sprof_func *f)
{
    json_t *arr;
    at(ld, "functions[%d]", fi);
    TRY(get_array(ld, jf, "edges", &arr, &f->nedges));
    f->edges = alloc_array(ld, f->nedges, sizeof(*f->edges));
    if (!f->edges)
        return nomem(ld);
    for (size_t i = 0; i < f->nedges; i++) {
        json_t *je = json_array_get(arr, i);
        mb_sprof_edge *e = &f->edges[i];
        at(ld, "functions[%d].edges[%zu]", fi, i);
        uint64_t from, to;
        TRY(get_u64(ld, je, "from", &from));
        TRY(get_u64(ld, je, "to", &to));
        e->from = from > 1u << 30 ? -1 : (int)from;
        e->to = to > 1u << 30 ? -1 : (int)to;
        TRY(check_block(ld, f, e->from, "from"));
        TRY(check_block(ld, f, e->to, "to"));
        TRY(get_u64(ld, je, "count", &e->count));
        TRY(get_u64(ld, je, "threads", &e->threads));
        e->back = json_is_true(json_object_get(je, "back"));
    }
    return MB_OK;
}

static mb_status load_loops(loader *ld, json_t *jf, int fi, mb_sprof_func *f)
{
    json_t *arr;
    at(ld, "functions[%d]", fi);
    TRY(get_array(ld, jf, "loops", &arr, &f->nloops));
    f->loops = alloc_array(ld, f->nloops, sizeof(*f->loops));
    if (!f->loops)
        return nomem(ld);
    for (size_t i = 0; i < f->nloops; i++) {
        json_t *jl = json_array_get(arr, i), *blocks, *dep;
        mb_sprof_loop *l = &f->loops[i];
        at(ld, "functions[%d].loops[%zu]", fi, i);
        uint64_t index, header, depth;
        TRY(get_u64(ld, jl, "index", &index));
        if (index != i)
            return fail(ld, "loop indices must be 0, 1, 2, ... in order");
        l->index = (int)index;
        TRY(get_str(ld, jl, "kind", 0, &l->kind));
        TRY(get_u64(ld, jl, "header", &header));
        l->header = header > 1u << 30 ? -1 : (int)header;
        TRY(check_block(ld, f, l->header, "header"));
        TRY(get_u64(ld, jl, "depth", &depth));
        l->depth = (int)(depth > 64 ? 64 : depth);
        TRY(get_int_or_null(ld, jl, "parent", &l->parent));
        if (l->parent >= (int)i)
            return fail(ld, "'parent' must name an earlier loop");
        TRY(get_array(ld, jl, "blocks", &blocks, &l->nblocks));
        l->blocks = alloc_array(ld, l->nblocks, sizeof(int));
        if (!l->blocks)
            return nomem(ld);
        for (size_t k = 0; k < l->nblocks; k++) {
            json_t *x = json_array_get(blocks, k);
            if (!json_is_integer(x))
                return fail(ld, "'blocks' must hold block indices");
            l->blocks[k] = (int)json_integer_value(x);
            TRY(check_block(ld, f, l->blocks[k], "blocks"));
        }
        TRY(get_u64(ld, jl, "activations", &l->activations));
        TRY(get_u64(ld, jl, "warp_activations", &l->warp_activations));
        TRY(get_u64(ld, jl, "warp_activations_with_differing_trips", &l->warp_activations_differing));
        TRY(get_hist(ld, jl, "trip_counts", &l->trips));
        l->mean_trip_count = mb_hist_mean(&l->trips);
        dep = json_object_get(jl, "trip_count_depends_on");
        size_t k;
        json_t *x;
        json_array_foreach(dep, k, x) if (json_is_string(x)) {
            l->thread_dependent |= strcmp(json_string_value(x), "thread id") == 0;
            l->cta_dependent |= strcmp(json_string_value(x), "cta id") == 0;
        }
    }
    return MB_OK;
}

static mb_status load_cond_model(loader *ld, json_t *jb, const mb_cond_model **out);

static mb_status load_branches(loader *ld, json_t *jf, int fi, mb_sprof_func *f)
{
    json_t *arr;
    at(ld, "functions[%d]", fi);
    TRY(get_array(ld, jf, "branches", &arr, &f->nbranches));
    f->branches = alloc_array(ld, f->nbranches, sizeof(*f->branches));
    if (!f->branches)
        return nomem(ld);
    for (size_t i = 0; i < f->nbranches; i++) {
        json_t *jb = json_array_get(arr, i);
        mb_sprof_branch *b = &f->branches[i];
        at(ld, "functions[%d].branches[%zu]", fi, i);
        uint64_t insn, line, block;
        TRY(get_u64(ld, jb, "insn", &insn));
        TRY(get_u64(ld, jb, "line", &line));
        TRY(get_u64(ld, jb, "block", &block));
        b->insn = (uint32_t)insn;
        b->line = (int)(line > 1u << 30 ? 0 : line);
        b->block = block > 1u << 30 ? -1 : (int)block;
        TRY(check_block(ld, f, b->block, "block"));
        TRY(get_u64(ld, jb, "warp_execs", &b->warp_execs));
        TRY(get_u64(ld, jb, "taken_threads", &b->taken));
        TRY(get_u64(ld, jb, "not_taken_threads", &b->not_taken));
        TRY(get_u64(ld, jb, "diverged_warp_execs", &b->diverged));
        json_t *df = json_object_get(jb, "divergence_fraction");
        if (!json_is_number(df))
            return fail(ld, "'divergence_fraction' must be a number");
        b->divergence_fraction = json_number_value(df);
        TRY(get_str(ld, jb, "condition", 0, &b->condition));
        json_t *srcs = json_object_get(jb, "condition_sources"), *x;
        size_t k;
        int tid = 0, cta = 0, counter = 0;
        json_array_foreach(srcs, k, x) if (json_is_string(x))
        {
            tid |= strcmp(json_string_value(x), "thread id") == 0;
            cta |= strcmp(json_string_value(x), "cta id") == 0;
            counter |= strcmp(json_string_value(x), "loop counter") == 0;
        }
        b->cta_relative = tid && !cta;
        b->reads_loop_counter = counter;
        TRY(load_cond_model(ld, jb, &b->model));
    }
    return MB_OK;
}

/* An affine object ({"exact", "constant", "terms"}); `what` names it in messages. */
static mb_status load_affine_obj(loader *ld, json_t *ja, const char *what, mb_affine *a)
{
    char msg[160];
    memset(a, 0, sizeof(*a));
    if (!json_is_object(ja)) {
        snprintf(msg, sizeof msg, "'%s' must be an object", what);
        return fail(ld, msg);
    }
    a->exact = json_is_true(json_object_get(ja, "exact"));
    json_t *c = json_object_get(ja, "constant");
    if (a->exact && !json_is_integer(c)) {
        snprintf(msg, sizeof msg, "'%s.constant' must be an integer", what);
        return fail(ld, msg);
    }
    a->constant = json_is_integer(c) ? (int64_t)json_integer_value(c) : 0;
    json_t *terms = json_object_get(ja, "terms");
    size_t n = json_is_object(terms) ? json_object_size(terms) : 0;
    a->var = alloc_array(ld, n, sizeof(char *));
    a->coef = alloc_array(ld, n, sizeof(int64_t));
    if (!a->var || !a->coef)
        return nomem(ld);
    const char *k;
    json_t *v;
    if (n)
        json_object_foreach(terms, k, v)
        {
            if (!json_is_integer(v)) {
                snprintf(msg, sizeof msg, "'%s.terms' values must be integers", what);
                return fail(ld, msg);
            }
            if (!(a->var[a->nterms] = mb_arena_strdup(ld->arena, k)))
                return nomem(ld);
            a->coef[a->nterms++] = (int64_t)json_integer_value(v);
        }
    return MB_OK;
}

static mb_status load_affine(loader *ld, json_t *jm, mb_affine *a)
{
    json_t *ja = json_object_get(jm, "affine");
    if (!ja || json_is_null(ja)) {
        memset(a, 0, sizeof(*a));
        return MB_OK;
    }
    return load_affine_obj(ld, ja, "affine", a);
}

/* Nodes of a condition expression: few, as the profiler resolves a guard
 * within its block; the bound keeps a hostile file from recursing deep. */
enum { COND_MAX_NODES = 64 };

static mb_status load_cond_node(loader *ld, json_t *jn, size_t *budget, mb_cond_node **out)
{
    static const char *const ops[] = {"cmp", "and", "or", "xor", "not"};
    if (!json_is_object(jn))
        return fail(ld, "condition_model: every node must be an object");
    if ((*budget)-- == 0)
        return fail(ld, "condition_model: more than 64 nodes");
    mb_cond_node *n = mb_arena_alloc(ld->arena, sizeof(*n));
    if (!n)
        return nomem(ld);
    memset(n, 0, sizeof(*n));
    const char *op;
    TRY(get_str(ld, jn, "op", 0, &op));
    size_t k = 0;
    while (k < sizeof ops / sizeof ops[0] && strcmp(op, ops[k]) != 0)
        k++;
    if (k == sizeof ops / sizeof ops[0])
        return fail(ld, "condition_model: 'op' must be cmp, and, or, xor or not");
    n->op = (mb_cond_op)k;
    if (n->op == MB_COND_CMP) {
        uint64_t insn, line;
        TRY(get_u64(ld, jn, "insn", &insn));
        TRY(get_u64(ld, jn, "line", &line));
        n->insn = (uint32_t)insn;
        n->line = (int)(line > 1u << 30 ? 0 : line);
        TRY(get_str(ld, jn, "cmp", 0, &n->cmp));
        TRY(get_str(ld, jn, "type", 0, &n->type));
        TRY(load_affine_obj(ld, json_object_get(jn, "a"), "a", &n->a));
        TRY(load_affine_obj(ld, json_object_get(jn, "b"), "b", &n->b));
    } else {
        json_t *args = json_object_get(jn, "args");
        size_t want = n->op == MB_COND_NOT ? 1 : 2;
        if (!json_is_array(args) || json_array_size(args) != want)
            return fail(ld, want == 1 ? "condition_model: 'not' takes one argument in 'args'"
                                      : "condition_model: and/or/xor take two arguments in 'args'");
        for (size_t i = 0; i < want; i++)
            TRY(load_cond_node(ld, json_array_get(args, i), budget, &n->args[i]));
    }
    *out = n;
    return MB_OK;
}

static mb_status load_cond_model(loader *ld, json_t *jb, const mb_cond_model **out)
{
    *out = NULL;
    json_t *jc = json_object_get(jb, "condition_model");
    if (!jc || json_is_null(jc))
        return MB_OK;
    if (!json_is_object(jc))
        return fail(ld, "'condition_model' must be an object");
    mb_cond_model *m = mb_arena_alloc(ld->arena, sizeof(*m));
    if (!m)
        return nomem(ld);
    m->exact = json_is_true(json_object_get(jc, "exact"));
    m->negate = json_is_true(json_object_get(jc, "negate"));
    size_t budget = COND_MAX_NODES;
    mb_cond_node *expr;
    TRY(load_cond_node(ld, json_object_get(jc, "expr"), &budget, &expr));
    m->expr = expr;
    *out = m;
    return MB_OK;
}

/* "index" of a memory record: absent or an object (docs/formats.md). */
static mb_status load_index(loader *ld, json_t *jm, int fi, size_t i, mb_sprof_index *ix)
{
    memset(ix, 0, sizeof *ix);
    ix->load = -1;
    json_t *ji = json_object_get(jm, "index"), *ops;
    if (!ji || json_is_null(ji))
        return MB_OK;
    if (!json_is_object(ji))
        return fail(ld, "'index' must be an object");
    at(ld, "functions[%d].memory[%zu].index", fi, i);
    uint64_t load;
    json_t *off = json_object_get(ji, "offset");
    TRY(get_u64(ld, ji, "load", &load));
    TRY(get_str(ld, ji, "variable", 0, &ix->variable));
    if (!json_is_integer(off))
        return fail(ld, "'offset' must be an integer");
    TRY(get_array(ld, ji, "ops", &ops, &ix->nops));
    if (ix->nops == 0 || ix->nops > 6)
        return fail(ld, "'ops' must have 1 to 6 steps");
    ix->ops = alloc_array(ld, ix->nops, sizeof(*ix->ops));
    if (!ix->ops)
        return nomem(ld);
    for (size_t k = 0; k < ix->nops; k++) {
        json_t *jo = json_array_get(ops, k), *imm;
        if (!json_is_object(jo))
            return fail(ld, "'ops' steps must be objects");
        TRY(get_str(ld, jo, "op", 0, &ix->ops[k].op));
        imm = json_object_get(jo, "imm");
        if (imm && (!json_is_integer(imm) || json_integer_value(imm) < 0))
            return fail(ld, "'ops' immediates must be non-negative integers");
        ix->ops[k].has_imm = imm != NULL;
        ix->ops[k].imm = imm ? (int64_t)json_integer_value(imm) : 0;
    }
    ix->load = load > UINT32_MAX ? -1 : (int64_t)load;
    ix->offset = (int64_t)json_integer_value(off);
    return MB_OK;
}

static mb_status load_memory(loader *ld, json_t *jf, int fi, mb_sprof_func *f)
{
    json_t *arr;
    at(ld, "functions[%d]", fi);
    TRY(get_array(ld, jf, "memory", &arr, &f->nmem));
    f->mem = alloc_array(ld, f->nmem, sizeof(*f->mem));
    if (!f->mem)
        return nomem(ld);
    for (size_t i = 0; i < f->nmem; i++) {
        json_t *jm = json_array_get(arr, i), *base;
        mb_sprof_mem *m = &f->mem[i];
        at(ld, "functions[%d].memory[%zu]", fi, i);
        uint64_t insn, line, width, vector;
        TRY(get_u64(ld, jm, "insn", &insn));
        TRY(get_u64(ld, jm, "line", &line));
        m->insn = (uint32_t)insn;
        m->line = (int)(line > 1u << 30 ? 0 : line);
        TRY(get_str(ld, jm, "op", 0, &m->op));
        TRY(get_str(ld, jm, "space", 0, &m->space));
        TRY(get_u64(ld, jm, "width", &width));
        TRY(get_u64(ld, jm, "vector", &vector));
        if (width == 0 || width > 64 || vector == 0 || vector > 8)
            return fail(ld, "'width' or 'vector' out of range");
        m->width = (uint32_t)width;
        m->vector = (uint32_t)vector;
        TRY(get_u64(ld, jm, "requests", &m->requests));
        TRY(get_u64(ld, jm, "thread_accesses", &m->thread_accesses));
        TRY(get_hist(ld, jm, "sectors_per_request", &m->sectors));
        TRY(get_hist(ld, jm, "lines_per_request", &m->lines));
        TRY(get_hist(ld, jm, "bank_conflict_degree", &m->bank_conflicts));
        TRY(get_hist(ld, jm, "bank_cycles_cc1x", &m->bank_cycles_cc1x));
        TRY(get_hist(ld, jm, "addresses_per_request", &m->addresses));
        TRY(get_hist(ld, jm, "lane_stride", &m->lane_stride));
        TRY(get_hist(ld, jm, "reuse_distance_log2", &m->reuse_log2));
        json_t *fp = json_object_get(jm, "footprint_lines");
        m->footprint_lines = json_is_integer(fp) && json_integer_value(fp) > 0
                                 ? (uint64_t)json_integer_value(fp)
                                 : 0;
        base = json_object_get(jm, "base");
        m->base_index = -1;
        m->base_kind = "unknown";
        m->base_name = "";
        if (json_is_object(base)) {
            TRY(get_str(ld, base, "kind", 0, &m->base_kind));
            TRY(get_str(ld, base, "name", 1, &m->base_name));
            json_t *ix = json_object_get(base, "index");
            if (json_is_integer(ix))
                m->base_index = (int)json_integer_value(ix);
        }
        TRY(load_affine(ld, jm, &m->affine));
        TRY(load_index(ld, jm, fi, i, &m->index));
    }
    return MB_OK;
}

static mb_status load_function(loader *ld, json_t *jf, int fi, mb_sprof_func *f)
{
    at(ld, "functions[%d]", fi);
    if (!json_is_object(jf))
        return fail(ld, "must be an object");
    const char *kind;
    TRY(get_str(ld, jf, "name", 0, &f->name));
    TRY(get_str(ld, jf, "kind", 0, &kind));
    f->is_kernel = strcmp(kind, "kernel") == 0;
    json_t *mix = json_object_get(jf, "instruction_mix");
    at(ld, "functions[%d].instruction_mix", fi);
    if (!json_is_object(mix))
        return fail(ld, "must be an object");
    TRY(get_mix(ld, mix, "classes", &f->classes));
    TRY(get_mix(ld, mix, "opcodes", &f->opcodes));
    TRY(load_blocks(ld, jf, fi, f));
    TRY(load_edges(ld, jf, fi, f));
    TRY(load_loops(ld, jf, fi, f));
    TRY(load_branches(ld, jf, fi, f));
    TRY(load_memory(ld, jf, fi, f));
    for (size_t i = 0; i < f->nblocks; i++)
        if (f->blocks[i].loop >= (int)f->nloops) {
            at(ld, "functions[%d].blocks[%zu]", fi, i);
            return fail(ld, "'loop' names no loop of the function");
        }
    return MB_OK;
}

/* "inputs": optional (profiles before it, or hand-written ones, have none). */
static mb_status load_inputs(loader *ld, json_t *root, mb_sprof *p)
{
    json_t *arr = json_object_get(root, "inputs");
    at(ld, "inputs");
    if (!arr)
        return MB_OK;
    if (!json_is_array(arr))
        return fail(ld, "must be an array");
    p->ninputs = json_array_size(arr);
    p->inputs = alloc_array(ld, p->ninputs, sizeof(*p->inputs));
    if (!p->inputs)
        return nomem(ld);
    for (size_t k = 0; k < p->ninputs; k++) {
        json_t *ji = json_array_get(arr, k);
        mb_sprof_input *in = &p->inputs[k];
        const char *sum;
        char *end;
        at(ld, "inputs[%zu]", k);
        TRY(get_str(ld, ji, "buffer", 0, &in->buffer));
        TRY(get_u64(ld, ji, "bytes", &in->bytes));
        TRY(get_str(ld, ji, "fnv1a64", 0, &sum));
        errno = 0;
        in->fnv1a64 = strtoull(sum, &end, 16);
        if (strncmp(sum, "0x", 2) != 0 || *end || errno)
            return fail(ld, "'fnv1a64' must be a hexadecimal \"0x...\" checksum");
    }
    return MB_OK;
}

static mb_status load_params(loader *ld, json_t *root, mb_sprof *p)
{
    json_t *arr;
    at(ld, "(top level)");
    TRY(get_array(ld, root, "parameters", &arr, &p->nparams));
    p->params = alloc_array(ld, p->nparams, sizeof(*p->params));
    if (!p->params)
        return nomem(ld);
    for (size_t i = 0; i < p->nparams; i++) {
        json_t *jp = json_array_get(arr, i), *ptr, *val;
        mb_sprof_param *q = &p->params[i];
        at(ld, "parameters[%zu]", i);
        uint64_t bytes;
        TRY(get_str(ld, jp, "name", 0, &q->name));
        TRY(get_str(ld, jp, "type", 0, &q->type));
        TRY(get_u64(ld, jp, "bytes", &bytes));
        q->bytes = (uint32_t)(bytes > 1u << 20 ? 1u << 20 : bytes);
        ptr = json_object_get(jp, "pointer");
        val = json_object_get(jp, "value");
        if (json_is_object(ptr)) {
            q->is_pointer = 1;
            TRY(get_str(ld, ptr, "buffer", 0, &q->buffer));
            TRY(get_u64(ld, ptr, "buffer_bytes", &q->buffer_bytes));
            TRY(get_u64(ld, ptr, "offset", &q->offset));
            json_t *input = json_object_get(ptr, "input");
            if (input) {
                json_int_t k = json_integer_value(input);
                char what[400];
                snprintf(what, sizeof what, "'pointer.input' must index 'inputs' (%zu entries)",
                         p->ninputs);
                if (!json_is_integer(input) || k < 0 || (uint64_t)k >= p->ninputs)
                    return fail(ld, what);
                q->input = &p->inputs[k];
                snprintf(what, sizeof what,
                         "'pointer.input' is input %lld (buffer '%.80s', %" PRIu64
                         " bytes), not this buffer ('%.80s', %" PRIu64 " bytes)",
                         (long long)k, q->input->buffer, q->input->bytes, q->buffer, q->buffer_bytes);
                if (strcmp(q->input->buffer, q->buffer) != 0 || q->input->bytes != q->buffer_bytes)
                    return fail(ld, what);
            }
        } else if (val) {
            char *text = json_dumps(val, JSON_ENCODE_ANY | JSON_COMPACT);
            if (!text)
                return nomem(ld);
            q->value = mb_arena_strdup(ld->arena, text);
            free(text);
            if (!q->value)
                return nomem(ld);
        } else {
            return fail(ld, "needs 'pointer' or 'value'");
        }
    }
    return MB_OK;
}

static mb_status load_vars(loader *ld, json_t *root, mb_sprof *p)
{
    json_t *arr;
    at(ld, "(top level)");
    TRY(get_array(ld, root, "module_variables", &arr, &p->nvars));
    p->vars = alloc_array(ld, p->nvars, sizeof(*p->vars));
    if (!p->vars)
        return nomem(ld);
    for (size_t i = 0; i < p->nvars; i++) {
        json_t *jv = json_array_get(arr, i);
        mb_sprof_var *v = &p->vars[i];
        at(ld, "module_variables[%zu]", i);
        TRY(get_str(ld, jv, "name", 0, &v->name));
        TRY(get_str(ld, jv, "space", 0, &v->space));
        TRY(get_str(ld, jv, "type", 0, &v->type));
        TRY(get_u64(ld, jv, "bytes", &v->bytes));
        TRY(get_u64(ld, jv, "elements", &v->elements));
    }
    return MB_OK;
}

static mb_status load_root(loader *ld, json_t *root, mb_sprof *p)
{
    at(ld, "(top level)");
    if (!json_is_object(root))
        return fail(ld, "the profile must be a JSON object");
    json_t *fmt = json_object_get(root, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "minibench-profile-1") != 0)
        return fail(ld, "'format' must be \"minibench-profile-1\"");
    TRY(get_str(ld, root, "kernel", 0, &p->kernel));
    TRY(get_str(ld, root, "ptx", 1, &p->ptx));
    json_t *launch = json_object_get(root, "launch"), *res = json_object_get(root, "resources");
    at(ld, "launch");
    if (!json_is_object(launch))
        return fail(ld, "must be an object");
    TRY(get_dim3(ld, launch, "grid", p->grid));
    TRY(get_dim3(ld, launch, "block", p->block));
    TRY(get_u64(ld, launch, "dynamic_shared", &p->dynamic_shared));
    TRY(get_u64(ld, launch, "ctas", &p->ctas));
    TRY(get_u64(ld, launch, "warps", &p->warps));
    TRY(get_u64(ld, launch, "threads", &p->threads));
    TRY(get_u64(ld, launch, "warp_insts", &p->warp_insts));
    TRY(get_u64(ld, launch, "thread_insts", &p->thread_insts));
    uint64_t want = (uint64_t)p->grid[0] * p->grid[1] * p->grid[2] * p->block[0] * p->block[1] *
                    p->block[2];
    if (p->threads != want)
        return fail(ld, "'threads' disagrees with grid and block");
    at(ld, "resources");
    if (!json_is_object(res))
        return fail(ld, "must be an object");
    TRY(get_u64(ld, res, "shared_bytes_static", &p->shared_static));
    TRY(get_u64(ld, res, "local_bytes_per_thread", &p->local_per_thread));
    TRY(load_inputs(ld, root, p));
    TRY(load_params(ld, root, p));
    TRY(load_vars(ld, root, p));
    json_t *funcs;
    at(ld, "(top level)");
    TRY(get_array(ld, root, "functions", &funcs, &p->nfuncs));
    if (p->nfuncs == 0)
        return fail(ld, "'functions' is empty");
    p->funcs = alloc_array(ld, p->nfuncs, sizeof(*p->funcs));
    if (!p->funcs)
        return nomem(ld);
    for (size_t i = 0; i < p->nfuncs; i++)
        TRY(load_function(ld, json_array_get(funcs, i), (int)i, &p->funcs[i]));
    if (!p->funcs[0].is_kernel) {
        at(ld, "functions[0]");
        return fail(ld, "the first function must be the kernel");
    }
    return MB_OK;
}

mb_status mb_sprof_parse_json(const char *text, size_t len, const char *name, mb_sprof **out,
                              mb_error *err)
{
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return mb_error_set(err, MB_ERR_PARSE, name, jerr.line, jerr.column, "%s", jerr.text);
    mb_sprof *p = calloc(1, sizeof(*p));
    mb_status st = MB_OK;
    if (!p || !(p->arena = mb_arena_new()))
        st = mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    if (st == MB_OK) {
        loader ld = {name, p->arena, err, ""};
        st = load_root(&ld, root, p);
        p->path = st == MB_OK ? mb_arena_strdup(p->arena, name) : NULL;
    }
    json_decref(root);
    if (st != MB_OK) {
        mb_sprof_free(p);
        return st;
    }
    *out = p;
    return MB_OK;
}

void mb_sprof_free(mb_sprof *p)
{
    if (!p)
        return;
    mb_arena_free(p->arena);
    free(p);
}

const mb_sprof_func *mb_sprof_kernel(const mb_sprof *p)
{
    return &p->funcs[0];
}

uint64_t mb_hist_total(const mb_hist *h)
{
    uint64_t t = 0;
    for (size_t i = 0; i < h->n; i++)
        t += h->count[i];
    return t;
}

double mb_hist_mean(const mb_hist *h)
{
    double s = 0, t = 0;
    for (size_t i = 0; i < h->n; i++) {
        s += (double)h->key[i] * (double)h->count[i];
        t += (double)h->count[i];
    }
    return t > 0 ? s / t : 0;
}
