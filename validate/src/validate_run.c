/* mb_validate_profile: clones per reduction, simulations per configuration, rows. */
#define _POSIX_C_SOURCE 200809L
#include "validate_internal.h"

#include <minibench/emit.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TOL_ABS, TOL_REL };
#define ABS TOL_ABS
#define REL TOL_REL
static const struct {
    const char *column, *label, *cause;
    int kind;
    double tolerance;
} metrics[] = {
#define MB_VALIDATE_METRIC_ROW(id, col, label, stat, kind, tol, cause) {col, label, cause, kind, tol},
    MB_VALIDATE_METRICS(MB_VALIDATE_METRIC_ROW)
#undef MB_VALIDATE_METRIC_ROW
};
#undef ABS
#undef REL

/* A reduction-1 clone should run the original's instruction count (issue 5's 2%). */
static const double insts_tolerance = 0.02;
/* Configurations whose original IPCs are closer than this are a tie for ranking. */
static const double rank_tie = 0.01;

const char *mb_validate_metric_name(mb_validate_metric m)
{
    return (unsigned)m < MB_VM_COUNT ? metrics[m].column : "?";
}

const char *mb_validate_metric_label(mb_validate_metric m)
{
    return (unsigned)m < MB_VM_COUNT ? metrics[m].label : "?";
}

const char *vcause_name(int first_diverged)
{
    if (first_diverged == MB_VALIDATE_INSTS_DIVERGED)
        return "instruction count";
    if (first_diverged < 0 || first_diverged >= MB_VM_COUNT || !metrics[first_diverged].cause)
        return "none";
    return metrics[first_diverged].cause;
}

void vcause_detail(const mb_validate_sample *original, const mb_validate_row *row, char *buf,
                   size_t size)
{
    const int m = row->first_diverged;
    if (m == MB_VALIDATE_INSTS_DIVERGED)
        snprintf(buf, size, "%s: %llu -> %llu thread instructions", vcause_name(m),
                 (unsigned long long)original->thread_insts,
                 (unsigned long long)row->clone.thread_insts);
    else if (m >= 0 && m < MB_VM_COUNT && metrics[m].cause)
        snprintf(buf, size, "%s: %s %.3f -> %.3f", metrics[m].cause, metrics[m].label,
                 original->value[m], row->clone.value[m]);
    else
        snprintf(buf, size, "%s", vcause_name(m));
}

int vmetric_diverged(mb_validate_metric m, double original, double clone)
{
    double allowed = metrics[m].kind == TOL_REL ? metrics[m].tolerance * fabs(original)
                                                : metrics[m].tolerance;
    return fabs(clone - original) > allowed + 1e-12;
}

double vipc_aim(void)
{
    return metrics[MB_VM_IPC].tolerance;
}

void vreduction_label(double r, char *buf, size_t size)
{
    if (r <= 0)
        snprintf(buf, size, "max");
    else
        snprintf(buf, size, "%.0f", r);
}

const mb_validate_row *mb_validate_row_at(const mb_validate_report *rep, size_t c, size_t r)
{
    return &rep->rows[c * rep->nreductions + r];
}

void mb_validate_report_free(mb_validate_report *rep)
{
    if (!rep)
        return;
    for (size_t i = 0; rep->configs && i < rep->nconfigs; i++)
        free(rep->configs[i]);
    for (size_t i = 0; rep->clones && i < rep->nreductions; i++)
        mb_clone_free(rep->clones[i]);
    free(rep->clones);
    free(rep->configs);
    free(rep->reductions);
    free(rep->original);
    free(rep->rows);
    free(rep->trend_kept);
    free(rep->kernel);
    free(rep->profile);
    free(rep);
}

/* The launch index n of a PROFDIR/<kernel>.<n> prefix. */
static mb_status launch_of_prefix(const char *prefix, uint32_t *out, mb_error *err)
{
    const char *dot = strrchr(prefix, '.');
    const char *slash = strrchr(prefix, '/');
    char *end = NULL;
    unsigned long v = dot && (!slash || dot > slash) ? strtoul(dot + 1, &end, 10) : 0;
    if (!dot || (slash && dot < slash) || end == dot + 1 || *end || v > UINT32_MAX)
        return mb_error_set(err, MB_ERR_INVALID, prefix, 0, 0,
                            "a profile is named PROFDIR/<kernel>.<n> (n: the launch index)");
    *out = (uint32_t)v;
    return MB_OK;
}

/*
 * The original's PTX and manifest as the profile's index.json records them
 * (paths as given to `minibench profile`, so relative to where it ran).
 */
static mb_status original_files(const char *prefix, const mb_validate_options *opt, char **ptx,
                                char **manifest, mb_error *err)
{
    if (opt->ptx && opt->manifest) {
        *ptx = strdup(opt->ptx);
        *manifest = strdup(opt->manifest);
        return *ptx && *manifest ? MB_OK : mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    const char *slash = strrchr(prefix, '/');
    mb_buf path = MB_BUF_INIT;
    if (slash)
        mb_buf_append(&path, prefix, (size_t)(slash - prefix) + 1);
    mb_buf_puts(&path, "index.json");
    char *text = NULL;
    size_t len = 0;
    mb_status st = path.failed ? mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory")
                               : mb_read_file(path.data, 1u << 26, &text, &len, err);
    json_t *root = NULL;
    if (st == MB_OK) {
        json_error_t je;
        root = json_loadb(text, len, 0, &je);
        if (!root)
            st = mb_error_set(err, MB_ERR_PARSE, path.data, je.line, je.column, "%s", je.text);
    }
    if (st == MB_OK) {
        const char *p = json_string_value(json_object_get(root, "ptx"));
        const char *m = json_string_value(json_object_get(root, "manifest"));
        if (json_object_get(root, "program") && !(p && m))
            st = mb_error_set(err, MB_ERR_UNSUPPORTED, path.data, 0, 0,
                              "this is a profile of the program %s; its launch is simulated by "
                              "running the program (minibench validate does that) or from --ptx "
                              "and --launch",
                              json_string_value(json_object_get(root, "program")));
        else if (!p || !m)
            st = mb_error_set(err, MB_ERR_INVALID, path.data, 0, 0,
                              "index.json lacks the strings \"ptx\" and \"manifest\"");
        else {
            *ptx = strdup(opt->ptx ? opt->ptx : p);
            *manifest = strdup(opt->manifest ? opt->manifest : m);
            if (!*ptx || !*manifest)
                st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        }
    }
    json_decref(root);
    free(text);
    mb_buf_free(&path);
    return st;
}

/* Everything validation holds while it runs, freed together. */
typedef struct vrun {
    const mb_validate_options *opt;
    mb_validate_report *rep;
    mb_sprof *prof;
    mb_sim_config **cfgs;
    mb_module *original;
    mb_manifest *original_manifest;
    mb_module **clone_modules;
    mb_manifest **clone_manifests;
} vrun;

static void progress(const vrun *v, const char *fmt, ...) MB_PRINTF(2, 3);
static void progress(const vrun *v, const char *fmt, ...)
{
    if (!v->opt->progress)
        return;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    v->opt->progress(v->opt->progress_ctx, what);
}

static void vrun_free(vrun *v)
{
    for (size_t i = 0; v->cfgs && i < v->rep->nconfigs; i++)
        mb_sim_config_free(v->cfgs[i]);
    for (size_t i = 0; v->clone_modules && i < v->rep->nreductions; i++) {
        mb_module_free(v->clone_modules[i]);
        mb_manifest_free(v->clone_manifests[i]);
    }
    free(v->cfgs);
    free(v->clone_modules);
    free(v->clone_manifests);
    mb_module_free(v->original);
    mb_manifest_free(v->original_manifest);
    mb_sprof_free(v->prof);
}

static mb_status alloc_report(vrun *v, const char *prefix, mb_error *err)
{
    const mb_validate_options *o = v->opt;
    mb_validate_report *rep = calloc(1, sizeof(*rep));
    v->rep = rep;
    if (!rep)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    rep->nconfigs = o->nconfigs;
    rep->nreductions = o->nreductions;
    rep->profile = strdup(prefix);
    rep->configs = calloc(o->nconfigs, sizeof(*rep->configs));
    rep->reductions = calloc(o->nreductions, sizeof(*rep->reductions));
    rep->original = calloc(o->nconfigs, sizeof(*rep->original));
    rep->rows = calloc(o->nconfigs * o->nreductions, sizeof(*rep->rows));
    rep->trend_kept = calloc(o->nreductions, sizeof(*rep->trend_kept));
    rep->clones = calloc(o->nreductions, sizeof(*rep->clones));
    v->cfgs = calloc(o->nconfigs, sizeof(*v->cfgs));
    v->clone_modules = calloc(o->nreductions, sizeof(*v->clone_modules));
    v->clone_manifests = calloc(o->nreductions, sizeof(*v->clone_manifests));
    if (!rep->profile || !rep->configs || !rep->reductions || !rep->original || !rep->rows ||
        !rep->trend_kept || !rep->clones || !v->cfgs || !v->clone_modules || !v->clone_manifests)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    for (size_t i = 0; i < o->nconfigs; i++)
        if (!(rep->configs[i] = strdup(o->configs[i])))
            return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    memcpy(rep->reductions, o->reductions, o->nreductions * sizeof(double));
    return MB_OK;
}

static mb_status load_configs(vrun *v, mb_error *err)
{
    for (size_t i = 0; i < v->rep->nconfigs; i++) {
        mb_buf warnings = MB_BUF_INIT;
        mb_status st = mb_sim_config_new(&v->cfgs[i], err);
        if (st == MB_OK)
            st = mb_sim_config_load(v->cfgs[i], v->rep->configs[i], &warnings, err);
        if (warnings.len)
            progress(v, "%s", warnings.data);
        mb_buf_free(&warnings);
        if (st != MB_OK)
            return st;
    }
    return MB_OK;
}

/* The clone of reduction i, as a module and a manifest in memory. */
static mb_status build_clone(vrun *v, size_t i, mb_error *err)
{
    char label[32], name[64];
    vreduction_label(v->rep->reductions[i], label, sizeof(label));
    progress(v, "synthesising the clone at reduction %s", label);
    mb_status st = mb_clone_build(v->prof, v->rep->reductions[i], v->opt->seed, &v->rep->clones[i], err);
    mb_buf ptx = MB_BUF_INIT, launch = MB_BUF_INIT;
    if (st == MB_OK)
        st = mb_emit_ptx(v->rep->clones[i], &ptx, err);
    if (st == MB_OK)
        st = mb_emit_launch(v->rep->clones[i], MB_INPUTS_AT_PROFILE, &launch, err);
    snprintf(name, sizeof(name), "clones/r%s/clone.ptx", label);
    if (st == MB_OK)
        st = mb_ptx_parse(ptx.data, ptx.len, name, &v->clone_modules[i], err);
    snprintf(name, sizeof(name), "clones/r%s/launch.json", label);
    if (st == MB_OK)
        st = mb_manifest_parse(launch.data, launch.len, name, &v->clone_manifests[i], err);
    mb_buf_free(&ptx);
    mb_buf_free(&launch);
    return st;
}

static double rel_error(double original, double clone)
{
    if (original == 0)
        return clone == 0 ? 0.0 : NAN;
    return (clone - original) / original;
}

static int first_diverged(const mb_validate_sample *o, const mb_validate_sample *c, double reduction)
{
    for (int m = 0; m < MB_VM_COUNT; m++) {
        if (!metrics[m].cause)
            continue;
        if (vmetric_diverged((mb_validate_metric)m, o->value[m], c->value[m]))
            return m;
        /* after divergence, which changes instruction counts itself */
        if (m == MB_VM_SIMD && reduction == 1 && o->thread_insts &&
            fabs((double)c->thread_insts / (double)o->thread_insts - 1) > insts_tolerance)
            return MB_VALIDATE_INSTS_DIVERGED;
    }
    return MB_VALIDATE_NO_DIVERGENCE;
}

static void fill_row(mb_validate_report *rep, size_t c, size_t r)
{
    mb_validate_row *row = &rep->rows[c * rep->nreductions + r];
    const mb_validate_sample *o = &rep->original[c];
    row->config = c;
    row->reduction = r;
    for (int m = 0; m < MB_VM_COUNT; m++)
        row->rel_error[m] = rel_error(o->value[m], row->clone.value[m]);
    row->speedup = row->clone.seconds > 0 ? o->seconds / row->clone.seconds : NAN;
    row->inst_ratio = row->clone.thread_insts ? (double)o->thread_insts / (double)row->clone.thread_insts
                                              : NAN;
    row->first_diverged = first_diverged(o, &row->clone, rep->reductions[r]);
}

/* Whether every pair of configurations the original tells apart keeps its order. */
static int trend_kept(const mb_validate_report *rep, size_t r)
{
    for (size_t a = 0; a < rep->nconfigs; a++) {
        for (size_t b = a + 1; b < rep->nconfigs; b++) {
            double oa = rep->original[a].value[MB_VM_IPC], ob = rep->original[b].value[MB_VM_IPC];
            if (fabs(oa - ob) <= rank_tie * fmax(oa, ob))
                continue;
            double ca = mb_validate_row_at(rep, a, r)->clone.value[MB_VM_IPC];
            double cb = mb_validate_row_at(rep, b, r)->clone.value[MB_VM_IPC];
            if ((oa > ob) != (ca > cb))
                return 0;
        }
    }
    return 1;
}

static mb_status simulate_original(vrun *v, size_t c, uint32_t launch, mb_error *err)
{
    const mb_validate_options *o = v->opt;
    mb_validate_report *rep = v->rep;
    progress(v, "simulating the original on %s", rep->configs[c]);
    vsim_target t = {v->original, v->original_manifest, launch, rep->kernel, "the original"};
    mb_status st = v->original ? vsim_measure(&t, v->cfgs[c], rep->configs[c], o->repeat,
                                              o->max_warp_insts, &rep->original[c], err)
                               : o->original(o->original_ctx, rep->kernel, launch, rep->configs[c],
                                             &rep->original[c], err);
    if (st == MB_OK && rep->original[c].thread_insts != v->prof->thread_insts)
        st = mb_error_set(err, MB_ERR_INVALID, rep->profile, 0, 0,
                          "the original ran %llu thread instructions on %s but %llu when profiled: "
                          "its PTX or manifest changed since",
                          (unsigned long long)rep->original[c].thread_insts, rep->configs[c],
                          (unsigned long long)v->prof->thread_insts);
    return st;
}

static mb_status validate(vrun *v, const char *prefix, mb_error *err)
{
    const mb_validate_options *o = v->opt;
    if (o->nconfigs == 0 || o->nreductions == 0)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "no configuration or no reduction factor");
    uint32_t launch = 0;
    char *ptx = NULL, *manifest = NULL;
    mb_status st = alloc_report(v, prefix, err);
    if (st == MB_OK)
        st = launch_of_prefix(prefix, &launch, err);
    if (st == MB_OK)
        st = mb_sprof_load(prefix, &v->prof, err);
    if (st == MB_OK && !(v->rep->kernel = strdup(v->prof->kernel)))
        st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    if (st == MB_OK)
        v->rep->has_loops = mb_sprof_kernel(v->prof)->nloops > 0;
    if (st == MB_OK && !o->original)
        st = original_files(prefix, o, &ptx, &manifest, err);
    if (st == MB_OK && ptx)
        st = mb_ptx_parse_file(ptx, &v->original, err);
    if (st == MB_OK && manifest)
        st = mb_manifest_load(manifest, &v->original_manifest, err);
    free(ptx);
    free(manifest);
    if (st == MB_OK)
        st = load_configs(v, err);
    for (size_t r = 0; st == MB_OK && r < v->rep->nreductions; r++)
        st = build_clone(v, r, err);
    for (size_t c = 0; st == MB_OK && c < v->rep->nconfigs; c++) {
        st = simulate_original(v, c, launch, err);
        for (size_t r = 0; st == MB_OK && r < v->rep->nreductions; r++) {
            char label[32], what[64];
            vreduction_label(v->rep->reductions[r], label, sizeof(label));
            snprintf(what, sizeof(what), "the clone at reduction %s", label);
            progress(v, "simulating %s on %s", what, v->rep->configs[c]);
            vsim_target t = {v->clone_modules[r], v->clone_manifests[r], 0, NULL, what};
            mb_validate_row *row = &v->rep->rows[c * v->rep->nreductions + r];
            st = vsim_measure(&t, v->cfgs[c], v->rep->configs[c], o->repeat, o->max_warp_insts,
                              &row->clone, err);
            if (st == MB_OK)
                fill_row(v->rep, c, r);
        }
    }
    for (size_t r = 0; st == MB_OK && r < v->rep->nreductions; r++)
        v->rep->trend_kept[r] = trend_kept(v->rep, r);
    return st;
}

mb_status mb_validate_profile(const char *prefix, const mb_validate_options *opt,
                              mb_validate_report **out, mb_error *err)
{
    vrun v;
    memset(&v, 0, sizeof(v));
    v.opt = opt;
    *out = NULL;
    mb_status st = validate(&v, prefix, err);
    vrun_free(&v);
    if (st == MB_OK)
        *out = v.rep;
    else
        mb_validate_report_free(v.rep);
    return st;
}
