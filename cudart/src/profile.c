/*
 * Profile mode: the selected launches run with a profile attached and are
 * written as <kernel>.<n>.profile.json and <kernel>.<n>.dfsg.dot, n being
 * the launch's index in the program, plus index.json (rewritten after every
 * profile so that it is complete whenever the program stops). With
 * aggregation, all selected launches of a kernel with the same block shape
 * feed one profile named after the first, written when the program exits.
 */
#define _POSIX_C_SOURCE 200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include "rt.h"

#include <minibench/dfsg.h>

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct aggregate {
    mb_profile *profile;
    const mb_module *module;
    mb_launch_config cfg; /* the first launch's, with its own parameter copy */
    uint64_t first;       /* launch index of the first launch */
    uint64_t launches;
    mb_exec_stats stats;
    json_t *indices;
} aggregate;

typedef struct profile_state {
    pcre2_code *re;
    int re_failed;
    json_t *index; /* the index.json document */
    aggregate **aggregates;
    size_t naggregates, cap;
} profile_state;

/* argv[1..] of this process, from /proc/self/cmdline (NUL-separated). */
static json_t *program_arguments(void)
{
    json_t *args = json_array();
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return args;
    mb_buf text = MB_BUF_INIT;
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        mb_buf_append(&text, chunk, n);
    fclose(f);
    size_t start = strlen(text.data ? text.data : "") + 1; /* past argv[0] */
    while (args && text.data && start < text.len) {
        json_t *a = json_string(text.data + start);
        if (!a) { /* not UTF-8: the arguments cannot be recorded faithfully */
            json_decref(args);
            args = json_null();
            break;
        }
        json_array_append_new(args, a);
        start += strlen(text.data + start) + 1;
    }
    mb_buf_free(&text);
    return args;
}

static profile_state *state_of(mb_rt *rt)
{
    if (rt->profile_state)
        return rt->profile_state;
    profile_state *ps = calloc(1, sizeof(*ps));
    if (!ps)
        return NULL;
    ps->index = json_object();
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = '\0';
    json_object_set_new(ps->index, "program", json_string(exe));
    /* what `minibench validate` needs to run the program again */
    json_object_set_new(ps->index, "arguments", program_arguments());
    char cwd[4096];
    if (getcwd(cwd, sizeof(cwd)))
        json_object_set_new(ps->index, "directory", json_string(cwd));
    json_object_set_new(ps->index, "aggregate", json_boolean(rt->opt.aggregate));
    json_object_set_new(ps->index, "launches", json_array());
    if (rt->opt.kernel) {
        int code;
        PCRE2_SIZE off;
        ps->re = pcre2_compile((PCRE2_SPTR)rt->opt.kernel, PCRE2_ZERO_TERMINATED, 0, &code, &off,
                               NULL);
        if (!ps->re) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(code, msg, sizeof(msg));
            rt_warn("MINIBENCH_CUDART_KERNEL: bad regular expression at offset %zu: %s",
                    (size_t)off, (const char *)msg);
            ps->re_failed = 1;
        }
    }
    rt->profile_state = ps;
    return ps;
}

int rt_profile_selected(mb_rt *rt, const rt_kernel *k, uint64_t index)
{
    profile_state *ps = state_of(rt);
    if (!ps || ps->re_failed)
        return 0;
    if (rt->opt.launch_index != UINT64_MAX && rt->opt.launch_index != index)
        return 0;
    if (rt->profiled >= rt->opt.max_profiles)
        return 0;
    if (ps->re) {
        pcre2_match_data *md = pcre2_match_data_create_from_pattern(ps->re, NULL);
        int rc = md ? pcre2_match(ps->re, (PCRE2_SPTR)k->name, strlen(k->name), 0, 0, md, NULL) : -1;
        pcre2_match_data_free(md);
        if (rc < 0)
            return 0;
    }
    return 1;
}

static mb_status ensure_dir(const char *dir, mb_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return mb_error_set(err, MB_ERR_IO, dir, 0, 0, "cannot create directory: %s", strerror(errno));
    return MB_OK;
}

static mb_status write_in_dir(const char *dir, const char *name, const char *data, size_t len,
                              mb_error *err)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    snprintf(path, n, "%s/%s", dir, name);
    mb_status st = mb_write_file_atomic(path, data, len, err);
    free(path);
    return st;
}

static mb_status write_index(mb_rt *rt, profile_state *ps, mb_error *err)
{
    char *text = json_dumps(ps->index, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!text)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    mb_buf b = MB_BUF_INIT;
    mb_buf_puts(&b, text);
    mb_buf_putc(&b, '\n');
    free(text);
    mb_status st = write_in_dir(rt->opt.output, "index.json", b.data, b.len, err);
    mb_buf_free(&b);
    return st;
}

/* Writes one profile's JSON and DOT and its index entry. */
static mb_status write_profile(mb_rt *rt, profile_state *ps, const mb_module *m, mb_profile *p,
                               const char *kernel, uint64_t n, const mb_exec_stats *stats,
                               json_t *indices, mb_error *err)
{
    mb_buf json = MB_BUF_INIT, dot = MB_BUF_INIT;
    mb_status st = mb_profile_write_json(p, &json, err);
    if (st == MB_OK)
        st = mb_dfsg_write_dot(m, p, &dot, err);
    char profile_name[1200], dfsg_name[1200];
    snprintf(profile_name, sizeof(profile_name), "%s.%" PRIu64 ".profile.json", kernel, n);
    snprintf(dfsg_name, sizeof(dfsg_name), "%s.%" PRIu64 ".dfsg.dot", kernel, n);
    if (st == MB_OK)
        st = ensure_dir(rt->opt.output, err);
    if (st == MB_OK)
        st = write_in_dir(rt->opt.output, profile_name, json.data, json.len, err);
    if (st == MB_OK)
        st = write_in_dir(rt->opt.output, dfsg_name, dot.data, dot.len, err);
    mb_buf_free(&json);
    mb_buf_free(&dot);
    if (st == MB_OK)
        st = mb_profile_write_inputs(p, rt->opt.output, kernel, n, err);
    json_t *inputs = json_array();
    for (uint32_t k = 0; st == MB_OK && k < mb_profile_ninputs(p); k++) {
        char name[1200];
        mb_profile_input_file(kernel, n, k, name, sizeof(name));
        json_array_append_new(inputs, json_string(name));
    }
    char warning[1400];
    if (st == MB_OK && mb_profile_inputs_warning(p, kernel, n, warning, sizeof(warning)))
        rt_warn("%s", warning);
    if (st != MB_OK) {
        json_decref(inputs);
        return st;
    }
    json_t *e = json_object();
    json_object_set_new(e, "inputs", inputs);
    json_object_set_new(e, "index", json_integer((json_int_t)n));
    json_object_set_new(e, "kernel", json_string(kernel));
    json_object_set_new(e, "profile", json_string(profile_name));
    json_object_set_new(e, "dfsg", json_string(dfsg_name));
    if (indices)
        json_object_set(e, "launches", indices);
    json_object_set_new(e, "threads", json_integer((json_int_t)stats->threads));
    json_object_set_new(e, "thread_insts", json_integer((json_int_t)stats->thread_insts));
    json_array_append_new(json_object_get(ps->index, "launches"), e);
    return write_index(rt, ps, err);
}

static aggregate *find_aggregate(profile_state *ps, const rt_kernel *k, const mb_launch_config *cfg)
{
    for (size_t i = 0; i < ps->naggregates; i++) {
        aggregate *a = ps->aggregates[i];
        if (a->cfg.kernel == k->fn && a->cfg.block.x == cfg->block.x &&
            a->cfg.block.y == cfg->block.y && a->cfg.block.z == cfg->block.z)
            return a;
    }
    return NULL;
}

static void add_stats(mb_exec_stats *sum, const mb_exec_stats *s)
{
    sum->ctas += s->ctas;
    sum->warps += s->warps;
    sum->threads += s->threads;
    sum->warp_insts += s->warp_insts;
    sum->thread_insts += s->thread_insts;
}

mb_status rt_profile_launch(mb_rt *rt, rt_kernel *k, const mb_launch_config *cfg,
                            const mb_exec_options *opt, uint64_t index, mb_exec_stats *stats,
                            mb_error *err)
{
    profile_state *ps = state_of(rt);
    if (!ps)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    mb_exec_options o = *opt;
    mb_program *prog = k->mod->program;
    if (rt->opt.aggregate) {
        aggregate *a = find_aggregate(ps, k, cfg);
        if (!a) {
            a = calloc(1, sizeof(*a));
            void *params = malloc(cfg->param_bytes ? cfg->param_bytes : 1);
            if (!a || !params || MB_GROW(ps->aggregates, ps->cap, ps->naggregates + 1) != MB_OK) {
                free(a);
                free(params);
                return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
            }
            memcpy(params, cfg->params, cfg->param_bytes);
            a->cfg = *cfg;
            a->cfg.params = params;
            a->first = index;
            a->module = k->mod->module;
            a->indices = json_array();
            mb_status st = mb_profile_new(prog, rt->mem, &a->cfg, NULL, &a->profile, err);
            if (st != MB_OK) {
                free(params);
                json_decref(a->indices);
                free(a);
                return st;
            }
            ps->aggregates[ps->naggregates++] = a;
            rt->profiled++;
        }
        o.observer = mb_profile_observer(a->profile);
        mb_status st = mb_launch(prog, rt->mem, cfg, &o, stats, err);
        if (st == MB_OK) {
            add_stats(&a->stats, stats);
            a->launches++;
            json_array_append_new(a->indices, json_integer((json_int_t)index));
        }
        return st;
    }
    mb_profile *p = NULL;
    mb_status st = mb_profile_new(prog, rt->mem, cfg, NULL, &p, err);
    if (st == MB_OK) {
        o.observer = mb_profile_observer(p);
        st = mb_launch(prog, rt->mem, cfg, &o, stats, err);
    }
    if (st == MB_OK)
        st = mb_profile_finish(p, stats, err);
    if (st == MB_OK) {
        rt->profiled++;
        mb_error werr;
        mb_error_clear(&werr);
        if (write_profile(rt, ps, k->mod->module, p, k->name, index, stats, NULL, &werr) != MB_OK) {
            char msg[1700];
            mb_error_format(&werr, msg, sizeof(msg));
            rt_warn("cannot write the profile of launch %" PRIu64 ": %s", index, msg);
        }
    }
    mb_profile_free(p);
    return st;
}

void rt_profile_finish(mb_rt *rt)
{
    profile_state *ps = rt->profile_state;
    if (!ps)
        return;
    for (size_t i = 0; i < ps->naggregates; i++) {
        aggregate *a = ps->aggregates[i];
        mb_error err;
        mb_error_clear(&err);
        mb_status st = MB_OK;
        if (a->launches) {
            st = mb_profile_finish(a->profile, &a->stats, &err);
            if (st == MB_OK)
                st = write_profile(rt, ps, a->module, a->profile, a->cfg.kernel->name, a->first, &a->stats,
                                   a->indices, &err);
        }
        if (st != MB_OK) {
            char msg[1700];
            mb_error_format(&err, msg, sizeof(msg));
            rt_warn("cannot write the aggregated profile of %s: %s", a->cfg.kernel->name, msg);
        }
        mb_profile_free(a->profile);
        free((void *)a->cfg.params);
        json_decref(a->indices);
        free(a);
    }
    ps->naggregates = 0;
    free(ps->aggregates);
    ps->aggregates = NULL;
    ps->cap = 0;
}
