/* A whole suite: every example with a manifest profiled, validated and summarised. */
#define _POSIX_C_SOURCE 200809L
#include "svg_plot.h"
#include "validate_internal.h"

#include <minibench/dfsg.h>

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Errors of one example are kept as text and the suite goes on. */
static char *error_text(const mb_error *err)
{
    char msg[2048];
    mb_error_format(err, msg, sizeof(msg));
    return strdup(msg);
}

/* out = a/b, failing rather than truncating. */
static mb_status path_join(char *out, size_t size, const char *a, const char *b, mb_error *err)
{
    int n = snprintf(out, size, "%s/%s", a, b);
    if (n < 0 || (size_t)n >= size)
        return mb_error_set(err, MB_ERR_LIMIT, a, 0, 0, "path too long: %s/%s", a, b);
    return MB_OK;
}

static const char *manifest_name(const mb_validate_options *opt)
{
    return opt->suite_manifest ? opt->suite_manifest : "launch.json";
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The subdirectories of `dir` that hold the manifest `manifest`, sorted. */
static mb_status list_examples(const char *dir, const char *manifest, char ***out, size_t *n,
                               mb_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return mb_error_set(err, MB_ERR_IO, dir, 0, 0, "cannot open directory: %s", strerror(errno));
    char **names = NULL;
    size_t count = 0, cap = 0;
    mb_status st = MB_OK;
    for (struct dirent *e; st == MB_OK && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s/%s", dir, e->d_name, manifest);
        if (!is_file(path))
            continue;
        st = MB_GROW(names, cap, count + 1);
        if (st != MB_OK)
            st = mb_error_set(err, st, "", 0, 0, "out of memory");
        if (st == MB_OK && !(names[count++] = strdup(e->d_name)))
            st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    closedir(d);
    if (st == MB_OK && count == 0)
        st = mb_error_set(err, MB_ERR_INVALID, dir, 0, 0,
                          "no example here: no subdirectory holds a %s", manifest);
    if (st != MB_OK) {
        for (size_t i = 0; i < count; i++)
            free(names[i]);
        free(names);
        return st;
    }
    qsort(names, count, sizeof(*names), cmp_names);
    *out = names;
    *n = count;
    return MB_OK;
}

/* The one .ptx file of an example directory. */
static mb_status find_ptx(const char *exdir, char *out, size_t size, mb_error *err)
{
    DIR *d = opendir(exdir);
    if (!d)
        return mb_error_set(err, MB_ERR_IO, exdir, 0, 0, "cannot open directory: %s", strerror(errno));
    int found = 0;
    mb_status st = MB_OK;
    for (struct dirent *e; st == MB_OK && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".ptx") == 0) {
            found++;
            st = path_join(out, size, exdir, e->d_name, err);
        }
    }
    closedir(d);
    if (st != MB_OK)
        return st;
    if (found != 1)
        return mb_error_set(err, MB_ERR_INVALID, exdir, 0, 0,
                            "an example directory holds exactly one .ptx file (found %d)", found);
    return MB_OK;
}

/* The loaded original of one example. */
typedef struct example {
    mb_module *module;
    mb_manifest *manifest;
    mb_memory *mem;
    mb_program *prog;
    mb_manifest_run *run;
} example;

static void example_unbind(example *ex)
{
    mb_manifest_run_free(ex->run);
    mb_program_free(ex->prog);
    mb_memory_free(ex->mem);
    ex->run = NULL;
    ex->prog = NULL;
    ex->mem = NULL;
}

static mb_status example_bind(example *ex, mb_error *err)
{
    example_unbind(ex);
    mb_status st = mb_memory_new(&ex->mem, err);
    if (st == MB_OK)
        st = mb_program_new(ex->module, ex->mem, &ex->prog, err);
    if (st == MB_OK)
        st = mb_manifest_bind(ex->manifest, ex->prog, ex->mem, &ex->run, err);
    return st;
}

/* The launch with the most thread instructions (the first of equals). */
static mb_status hottest_launch(example *ex, uint64_t max_insts, uint32_t *hot, mb_error *err)
{
    mb_status st = example_bind(ex, err);
    uint64_t best = 0;
    *hot = 0;
    for (uint32_t i = 0; st == MB_OK && i < mb_manifest_nlaunches(ex->manifest); i++) {
        mb_exec_options opt = {1, max_insts, 0, NULL};
        mb_exec_stats s;
        memset(&s, 0, sizeof(s));
        st = mb_launch(ex->prog, ex->mem, mb_manifest_launch(ex->run, i), &opt, &s, err);
        if (st == MB_OK && s.thread_insts > best) {
            best = s.thread_insts;
            *hot = i;
        }
    }
    return st;
}

/* Profiles launch `hot` into profdir as `minibench profile --launch-index` would. */
static mb_status profile_launch(example *ex, uint32_t hot, const char *ptx, const char *manifest,
                                const char *profdir, uint64_t max_insts, char *prefix, size_t size,
                                mb_error *err)
{
    mb_status st = example_bind(ex, err);
    mb_exec_options opt = {1, max_insts, 0, NULL};
    for (uint32_t i = 0; st == MB_OK && i < hot; i++) {
        mb_exec_stats s;
        st = mb_launch(ex->prog, ex->mem, mb_manifest_launch(ex->run, i), &opt, &s, err);
    }
    const mb_launch_config *cfg = st == MB_OK ? mb_manifest_launch(ex->run, hot) : NULL;
    mb_profile *p = NULL;
    mb_exec_stats stats;
    memset(&stats, 0, sizeof(stats));
    if (st == MB_OK)
        st = mb_profile_new(ex->prog, ex->mem, cfg, NULL, &p, err);
    if (st == MB_OK) {
        opt.observer = mb_profile_observer(p);
        st = mb_launch(ex->prog, ex->mem, cfg, &opt, &stats, err);
    }
    if (st == MB_OK)
        st = mb_profile_finish(p, &stats, err);
    mb_buf json = MB_BUF_INIT, dot = MB_BUF_INIT, index = MB_BUF_INIT;
    if (st == MB_OK)
        st = mb_profile_write_json(p, &json, err);
    if (st == MB_OK)
        st = mb_dfsg_write_dot(ex->module, p, &dot, err);
    if (st == MB_OK) {
        json_t *root = json_object(), *list = json_array(), *e = json_object();
        char name[600];
        json_object_set_new(root, "ptx", json_string(ptx));
        json_object_set_new(root, "manifest", json_string(manifest));
        json_object_set_new(e, "index", json_integer(hot));
        json_object_set_new(e, "kernel", json_string(cfg->kernel->name));
        snprintf(name, sizeof(name), "%s.%u.profile.json", cfg->kernel->name, hot);
        json_object_set_new(e, "profile", json_string(name));
        snprintf(name, sizeof(name), "%s.%u.dfsg.dot", cfg->kernel->name, hot);
        json_object_set_new(e, "dfsg", json_string(name));
        json_t *inputs = json_array();
        for (uint32_t k = 0; k < mb_profile_ninputs(p); k++) {
            mb_profile_input_file(cfg->kernel->name, hot, k, name, sizeof(name));
            json_array_append_new(inputs, json_string(name));
        }
        json_object_set_new(e, "inputs", inputs);
        json_object_set_new(e, "threads", json_integer((json_int_t)stats.threads));
        json_object_set_new(e, "thread_insts", json_integer((json_int_t)stats.thread_insts));
        json_array_append_new(list, e);
        json_object_set_new(root, "launches", list);
        st = vjson_dump(root, &index, err);
        json_decref(root);
    }
    char base[600];
    if (st == MB_OK) {
        snprintf(base, sizeof(base), "%s.%u.profile.json", cfg->kernel->name, hot);
        st = vwrite_in(profdir, base, &json, err);
    }
    if (st == MB_OK) {
        snprintf(base, sizeof(base), "%s.%u.dfsg.dot", cfg->kernel->name, hot);
        st = vwrite_in(profdir, base, &dot, err);
    }
    if (st == MB_OK)
        st = mb_profile_write_inputs(p, profdir, cfg->kernel->name, hot, err);
    if (st == MB_OK)
        st = vwrite_in(profdir, "index.json", &index, err);
    if (st == MB_OK) {
        snprintf(base, sizeof(base), "%s.%u", cfg->kernel->name, hot);
        st = path_join(prefix, size, profdir, base, err);
    }
    mb_buf_free(&json);
    mb_buf_free(&dot);
    mb_buf_free(&index);
    mb_profile_free(p);
    return st;
}

/* Profiles, validates and writes one example; its failure is the entry's. */
static mb_status run_example(const char *dir, const char *name, const mb_validate_options *opt,
                             const char *outdir, mb_validate_entry *entry, mb_error *err)
{
    char exdir[PATH_MAX], ptx[PATH_MAX], manifest[PATH_MAX], exout[PATH_MAX], profdir[PATH_MAX],
        prefix[PATH_MAX];
    example ex;
    memset(&ex, 0, sizeof(ex));
    uint32_t hot = 0;
    mb_status st = path_join(exdir, sizeof(exdir), dir, name, err);
    if (st == MB_OK)
        st = path_join(manifest, sizeof(manifest), exdir, manifest_name(opt), err);
    if (st == MB_OK)
        st = path_join(exout, sizeof(exout), outdir, name, err);
    if (st == MB_OK)
        st = path_join(profdir, sizeof(profdir), exout, "profile", err);
    if (st == MB_OK)
        st = find_ptx(exdir, ptx, sizeof(ptx), err);
    if (st == MB_OK)
        st = mb_ptx_parse_file(ptx, &ex.module, err);
    if (st == MB_OK)
        st = mb_manifest_load(manifest, &ex.manifest, err);
    if (st == MB_OK)
        st = hottest_launch(&ex, opt->max_warp_insts, &hot, err);
    if (st == MB_OK)
        st = vmake_dir(exout, err);
    if (st == MB_OK)
        st = vmake_dir(profdir, err);
    if (st == MB_OK)
        st = profile_launch(&ex, hot, ptx, manifest, profdir, opt->max_warp_insts, prefix,
                            sizeof(prefix), err);
    example_unbind(&ex);
    mb_manifest_free(ex.manifest);
    mb_module_free(ex.module);
    mb_validate_options o = *opt;
    o.ptx = ptx;
    o.manifest = manifest;
    o.original = NULL;
    if (st == MB_OK)
        st = mb_validate_profile(prefix, &o, &entry->report, err);
    if (st == MB_OK)
        st = mb_validate_write(entry->report, exout, err);
    return st;
}

void mb_validate_suite_free(mb_validate_suite *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nentries; i++) {
        free(s->entries[i].name);
        free(s->entries[i].failure);
        mb_validate_report_free(s->entries[i].report);
    }
    free(s->entries);
    free(s);
}

mb_status mb_validate_suite_run(const char *dir, const mb_validate_options *opt,
                                const char *outdir, mb_validate_suite **out, mb_error *err)
{
    char **names = NULL;
    size_t n = 0;
    *out = NULL;
    mb_status st = list_examples(dir, manifest_name(opt), &names, &n, err);
    if (st != MB_OK)
        return st;
    mb_validate_suite *s = calloc(1, sizeof(*s));
    if (s)
        s->entries = calloc(n, sizeof(*s->entries));
    if (!s || !s->entries)
        st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    if (st == MB_OK)
        st = vmake_dir(outdir, err);
    for (size_t i = 0; st == MB_OK && i < n; i++) {
        mb_validate_entry *e = &s->entries[s->nentries++];
        e->name = names[i];
        names[i] = NULL;
        if (opt->progress) {
            char what[600];
            snprintf(what, sizeof(what), "example %s (%zu of %zu)", e->name, i + 1, n);
            opt->progress(opt->progress_ctx, what);
        }
        mb_error one;
        mb_error_clear(&one);
        if (run_example(dir, e->name, opt, outdir, e, &one) != MB_OK) {
            mb_validate_report_free(e->report);
            e->report = NULL;
            if (!(e->failure = error_text(&one)))
                st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        }
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (st != MB_OK) {
        mb_validate_suite_free(s);
        return st;
    }
    *out = s;
    return MB_OK;
}
