/* A validation report as a text table, CSV, JSON, SVG plots and clone directories. */
#define _POSIX_C_SOURCE 200809L
#include "svg_plot.h"
#include "validate_internal.h"

#include <minibench/emit.h>

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

double vharmonic_mean(const double *v, size_t n)
{
    double inv = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i]) && v[i] > 0) {
            inv += 1.0 / v[i];
            k++;
        }
    }
    return k ? (double)k / inv : NAN;
}

/* A reduction factor's figures over the configurations. */
typedef struct at_reduction {
    double mean_abs, max_abs, hmean_speedup;
    int worst_config, within_aim; /* within_aim: every configuration within the IPC aim */
} at_reduction;

static void figures_at(const mb_validate_report *rep, size_t r, at_reduction *a)
{
    double speedups[64];
    size_t n = 0;
    memset(a, 0, sizeof(*a));
    a->worst_config = -1;
    a->within_aim = rep->nconfigs > 0;
    for (size_t c = 0; c < rep->nconfigs; c++) {
        const mb_validate_row *row = mb_validate_row_at(rep, c, r);
        double e = fabs(row->rel_error[MB_VM_IPC]);
        a->mean_abs += e / (double)rep->nconfigs;
        if (a->worst_config < 0 || e > a->max_abs) {
            a->max_abs = e;
            a->worst_config = (int)c;
        }
        if (!(e <= vipc_aim() + 1e-12))
            a->within_aim = 0;
        if (n < sizeof(speedups) / sizeof(speedups[0]))
            speedups[n++] = row->speedup;
    }
    a->hmean_speedup = vharmonic_mean(speedups, n);
}

/* Whether factor a reduces more than factor b (0 is max, the most). */
static int reduces_more(double a, double b)
{
    return b > 0 && (a <= 0 || a > b);
}

void vheadline_of(const mb_validate_report *rep, vheadline *h)
{
    memset(h, 0, sizeof(*h));
    int r1 = -1;
    for (size_t r = 0; r < rep->nreductions; r++) {
        if (reduces_more(rep->reductions[r], rep->reductions[h->reduction]))
            h->reduction = r;
        if (rep->reductions[r] == 1)
            r1 = (int)r;
    }
    at_reduction a;
    figures_at(rep, h->reduction, &a);
    h->mean_abs_ipc_error = a.mean_abs;
    h->max_abs_ipc_error = a.max_abs;
    h->worst_config = a.worst_config;
    h->hmean_speedup = a.hmean_speedup;
    h->inst_ratio = rep->nconfigs ? mb_validate_row_at(rep, 0, h->reduction)->inst_ratio : NAN;
    h->trend_kept = rep->trend_kept[h->reduction];

    h->r1_mean_abs_ipc_error = h->reduction_drift = NAN;
    if (r1 >= 0 && rep->nconfigs) {
        at_reduction one;
        figures_at(rep, (size_t)r1, &one);
        h->r1_mean_abs_ipc_error = one.mean_abs;
        h->reduction_drift = 0;
        for (size_t c = 0; c < rep->nconfigs; c++) {
            double base = mb_validate_row_at(rep, c, (size_t)r1)->clone.value[MB_VM_IPC];
            double at = mb_validate_row_at(rep, c, h->reduction)->clone.value[MB_VM_IPC];
            h->reduction_drift += base > 0 ? fabs(at / base - 1) / (double)rep->nconfigs : NAN;
        }
    }

    h->best = -1;
    h->best_mean_abs_ipc_error = h->best_hmean_speedup = h->best_inst_ratio = NAN;
    for (size_t r = 0; r < rep->nreductions; r++) {
        at_reduction b;
        figures_at(rep, r, &b);
        if (b.within_aim && (h->best < 0 || reduces_more(rep->reductions[r], rep->reductions[h->best]))) {
            h->best = (int)r;
            h->best_mean_abs_ipc_error = b.mean_abs;
            h->best_hmean_speedup = b.hmean_speedup;
            h->best_inst_ratio = mb_validate_row_at(rep, 0, r)->inst_ratio;
        }
    }
}

/* ------------------------------------------------------------------ text */

static void percent(mb_buf *out, double fraction)
{
    if (isnan(fraction))
        mb_buf_printf(out, "%8s", "n/a");
    else
        mb_buf_printf(out, "%+7.1f%%", 100 * fraction);
}

void mb_validate_text(const mb_validate_report *rep, mb_buf *out)
{
    mb_buf_printf(out, "kernel %s (profile %s): %s\n", rep->kernel, rep->profile,
                  rep->has_loops ? "has loops" : "no loops");
    mb_buf_printf(out, "\n%-10s %4s %10s %10s %8s %10s %9s %10s %6s  %s\n", "config", "R", "orig IPC",
                  "clone IPC", "IPC err", "orig insts", "speedup", "inst ratio", "trend",
                  "first divergence");
    for (size_t c = 0; c < rep->nconfigs; c++) {
        for (size_t r = 0; r < rep->nreductions; r++) {
            const mb_validate_row *row = mb_validate_row_at(rep, c, r);
            char label[32];
            vreduction_label(rep->reductions[r], label, sizeof(label));
            mb_buf_printf(out, "%-10s %4s %10.3f %10.3f ", rep->configs[c], label,
                          rep->original[c].value[MB_VM_IPC], row->clone.value[MB_VM_IPC]);
            percent(out, row->rel_error[MB_VM_IPC]);
            char cause[160];
            vcause_detail(&rep->original[c], row, cause, sizeof(cause));
            mb_buf_printf(out, " %10llu %8.2fx %10.2f %6s  %s\n",
                          (unsigned long long)rep->original[c].thread_insts, row->speedup,
                          row->inst_ratio, rep->trend_kept[r] ? "kept" : "LOST", cause);
        }
    }
    mb_buf_printf(out, "\nstatistics, original -> clone (relative error):\n%-10s %4s", "config", "R");
    for (int m = 1; m < MB_VM_COUNT; m++)
        mb_buf_printf(out, " %28s", mb_validate_metric_label((mb_validate_metric)m));
    mb_buf_putc(out, '\n');
    for (size_t c = 0; c < rep->nconfigs; c++) {
        for (size_t r = 0; r < rep->nreductions; r++) {
            const mb_validate_row *row = mb_validate_row_at(rep, c, r);
            char label[32];
            vreduction_label(rep->reductions[r], label, sizeof(label));
            mb_buf_printf(out, "%-10s %4s", rep->configs[c], label);
            for (int m = 1; m < MB_VM_COUNT; m++) {
                mb_buf_printf(out, " %8.3f -> %8.3f ", rep->original[c].value[m], row->clone.value[m]);
                percent(out, row->rel_error[m]);
            }
            mb_buf_putc(out, '\n');
        }
    }
    vheadline h;
    vheadline_of(rep, &h);
    char label[32];
    vreduction_label(rep->reductions[h.reduction], label, sizeof(label));
    mb_buf_printf(out,
                  "\nat reduction %s: mean |IPC error| %.2f%% (worst %.2f%% on %s), harmonic-mean "
                  "speedup %.2fx, instruction ratio %.2f, config ranking %s\n",
                  label, 100 * h.mean_abs_ipc_error, 100 * h.max_abs_ipc_error,
                  h.worst_config >= 0 ? rep->configs[h.worst_config] : "-", h.hmean_speedup,
                  h.inst_ratio, h.trend_kept ? "kept" : "not kept");
    if (isfinite(h.r1_mean_abs_ipc_error) && rep->reductions[h.reduction] != 1)
        mb_buf_printf(out,
                      "of that: the clone at R = 1 is off by %.2f%% (its own error); from R = 1 to %s "
                      "the clone's IPC moves by %.2f%% (what shortening the loops does)\n",
                      100 * h.r1_mean_abs_ipc_error, label, 100 * h.reduction_drift);
    if (h.best >= 0) {
        char best[32];
        vreduction_label(rep->reductions[h.best], best, sizeof(best));
        mb_buf_printf(out,
                      "largest reduction within the %.0f%% IPC aim on every config: %s (mean |IPC "
                      "error| %.2f%%, harmonic-mean speedup %.2fx, instruction ratio %.2f)\n",
                      100 * vipc_aim(), best, 100 * h.best_mean_abs_ipc_error,
                      h.best_hmean_speedup, h.best_inst_ratio);
    } else {
        mb_buf_printf(out, "no reduction validated is within the %.0f%% IPC aim on every config\n",
                      100 * vipc_aim());
    }
}

/* ------------------------------------------------------------------- CSV */

void vcsv_number(mb_buf *out, double v)
{
    if (isfinite(v))
        mb_buf_printf(out, ",%.6g", v);
    else
        mb_buf_puts(out, ",");
}

static void write_csv(const mb_validate_report *rep, mb_buf *out)
{
    mb_buf_puts(out, "kernel,config,reduction,orig_cycles,clone_cycles,orig_thread_insts,"
                     "clone_thread_insts,orig_seconds,clone_seconds,speedup,inst_ratio");
    for (int m = 0; m < MB_VM_COUNT; m++) {
        const char *n = mb_validate_metric_name((mb_validate_metric)m);
        mb_buf_printf(out, ",orig_%s,clone_%s,rel_error_%s", n, n, n);
    }
    mb_buf_puts(out, ",trend_kept,first_divergence\n");
    for (size_t c = 0; c < rep->nconfigs; c++) {
        for (size_t r = 0; r < rep->nreductions; r++) {
            const mb_validate_row *row = mb_validate_row_at(rep, c, r);
            const mb_validate_sample *o = &rep->original[c];
            char label[32];
            vreduction_label(rep->reductions[r], label, sizeof(label));
            /* configs may be file paths: quote them */
            mb_buf_printf(out, "%s,\"%s\",%s,%llu,%llu,%llu,%llu", rep->kernel, rep->configs[c], label,
                          (unsigned long long)o->cycles, (unsigned long long)row->clone.cycles,
                          (unsigned long long)o->thread_insts,
                          (unsigned long long)row->clone.thread_insts);
            vcsv_number(out, o->seconds);
            vcsv_number(out, row->clone.seconds);
            vcsv_number(out, row->speedup);
            vcsv_number(out, row->inst_ratio);
            for (int m = 0; m < MB_VM_COUNT; m++) {
                vcsv_number(out, o->value[m]);
                vcsv_number(out, row->clone.value[m]);
                vcsv_number(out, row->rel_error[m]);
            }
            mb_buf_printf(out, ",%d,%s\n", rep->trend_kept[r], vcause_name(row->first_diverged));
        }
    }
}

/* ------------------------------------------------------------------ JSON */

json_t *vjson_number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *sample_json(const mb_validate_sample *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "cycles", json_integer((json_int_t)s->cycles));
    json_object_set_new(o, "thread_insts", json_integer((json_int_t)s->thread_insts));
    json_object_set_new(o, "seconds", vjson_number(s->seconds));
    for (int m = 0; m < MB_VM_COUNT; m++)
        json_object_set_new(o, mb_validate_metric_name((mb_validate_metric)m), vjson_number(s->value[m]));
    return o;
}

json_t *vreport_json(const mb_validate_report *rep)
{
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string("minibench-validate-1"));
    json_object_set_new(root, "kernel", json_string(rep->kernel));
    json_object_set_new(root, "profile", json_string(rep->profile));
    json_object_set_new(root, "has_loops", json_boolean(rep->has_loops));
    json_t *configs = json_array(), *reductions = json_array(), *orig = json_object(),
           *rows = json_array(), *trend = json_object();
    for (size_t c = 0; c < rep->nconfigs; c++) {
        json_array_append_new(configs, json_string(rep->configs[c]));
        json_object_set_new(orig, rep->configs[c], sample_json(&rep->original[c]));
    }
    for (size_t r = 0; r < rep->nreductions; r++) {
        char label[32];
        vreduction_label(rep->reductions[r], label, sizeof(label));
        json_array_append_new(reductions, json_string(label));
        json_object_set_new(trend, label, json_boolean(rep->trend_kept[r]));
        for (size_t c = 0; c < rep->nconfigs; c++) {
            const mb_validate_row *row = mb_validate_row_at(rep, c, r);
            json_t *o = json_object(), *re = json_object();
            json_object_set_new(o, "config", json_string(rep->configs[c]));
            json_object_set_new(o, "reduction", json_string(label));
            json_object_set_new(o, "clone", sample_json(&row->clone));
            for (int m = 0; m < MB_VM_COUNT; m++)
                json_object_set_new(re, mb_validate_metric_name((mb_validate_metric)m),
                                    vjson_number(row->rel_error[m]));
            json_object_set_new(o, "rel_error", re);
            json_object_set_new(o, "speedup", vjson_number(row->speedup));
            json_object_set_new(o, "inst_ratio", vjson_number(row->inst_ratio));
            json_object_set_new(o, "first_divergence", json_string(vcause_name(row->first_diverged)));
            const int m = row->first_diverged;
            json_object_set_new(o, "first_divergence_statistic",
                                m >= 0 && m < MB_VM_COUNT
                                    ? json_string(mb_validate_metric_name((mb_validate_metric)m))
                                : m == MB_VALIDATE_INSTS_DIVERGED ? json_string("thread_insts")
                                                                  : json_null());
            json_array_append_new(rows, o);
        }
    }
    json_object_set_new(root, "configs", configs);
    json_object_set_new(root, "reductions", reductions);
    json_object_set_new(root, "original", orig);
    json_object_set_new(root, "rows", rows);
    json_object_set_new(root, "trend_kept", trend);
    vheadline h;
    vheadline_of(rep, &h);
    char label[32];
    vreduction_label(rep->reductions[h.reduction], label, sizeof(label));
    json_t *s = json_object();
    json_object_set_new(s, "reduction", json_string(label));
    json_object_set_new(s, "mean_abs_ipc_error", vjson_number(h.mean_abs_ipc_error));
    json_object_set_new(s, "max_abs_ipc_error", vjson_number(h.max_abs_ipc_error));
    json_object_set_new(s, "hmean_speedup", vjson_number(h.hmean_speedup));
    json_object_set_new(s, "inst_ratio", vjson_number(h.inst_ratio));
    json_object_set_new(s, "trend_kept", json_boolean(h.trend_kept));
    json_object_set_new(s, "r1_mean_abs_ipc_error", vjson_number(h.r1_mean_abs_ipc_error));
    json_object_set_new(s, "reduction_drift", vjson_number(h.reduction_drift));
    json_t *best = json_object();
    if (h.best >= 0) {
        char best_label[32];
        vreduction_label(rep->reductions[h.best], best_label, sizeof(best_label));
        json_object_set_new(best, "reduction", json_string(best_label));
    } else {
        json_object_set_new(best, "reduction", json_null());
    }
    json_object_set_new(best, "ipc_aim", json_real(vipc_aim()));
    json_object_set_new(best, "mean_abs_ipc_error", vjson_number(h.best_mean_abs_ipc_error));
    json_object_set_new(best, "hmean_speedup", vjson_number(h.best_hmean_speedup));
    json_object_set_new(best, "inst_ratio", vjson_number(h.best_inst_ratio));
    json_object_set_new(s, "within_aim", best);
    json_object_set_new(root, "summary", s);
    return root;
}

mb_status vjson_dump(json_t *root, mb_buf *out, mb_error *err)
{
    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(8));
    if (!text)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    mb_buf_puts(out, text);
    mb_buf_putc(out, '\n');
    free(text);
    return out->failed ? mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory") : MB_OK;
}

/* ----------------------------------------------------------------- plots */

enum { MAX_SERIES = 64 };

/* One series per configuration over the reduction factors (Figs. 16, 17). */
static mb_status plot_over_reductions(const mb_validate_report *rep, int ipc_error, mb_buf *out,
                                      mb_error *err)
{
    size_t nc = rep->nconfigs < MAX_SERIES ? rep->nconfigs : MAX_SERIES;
    size_t nr = rep->nreductions;
    double *y = calloc(nc * nr, sizeof(double));
    char (*labels)[32] = calloc(nr, sizeof(*labels));
    const char **cats = calloc(nr, sizeof(*cats));
    mb_plot_series series[MAX_SERIES];
    if (!y || !labels || !cats) {
        free(y);
        free(labels);
        free(cats);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    for (size_t r = 0; r < nr; r++) {
        vreduction_label(rep->reductions[r], labels[r], sizeof(labels[r]));
        cats[r] = labels[r];
    }
    for (size_t c = 0; c < nc; c++) {
        for (size_t r = 0; r < nr; r++) {
            const mb_validate_row *row = mb_validate_row_at(rep, c, r);
            y[c * nr + r] = ipc_error ? 100 * row->rel_error[MB_VM_IPC] : row->speedup;
        }
        series[c] = (mb_plot_series){rep->configs[c], y + c * nr};
    }
    char title[600];
    snprintf(title, sizeof(title), "%s: %s", rep->kernel,
             ipc_error ? "IPC error against reduction factor" : "simulation speedup against reduction factor");
    mb_plot p = {title, "reduction factor", ipc_error ? "IPC error (%)" : "speedup (x)", cats, nr,
                 series, nc, !ipc_error};
    mb_status st = mb_plot_lines_svg(&p, out, err);
    free(y);
    free(labels);
    free(cats);
    return st;
}

/* Original and clone IPC per configuration (Fig. 20). */
static mb_status plot_configs(const mb_validate_report *rep, mb_buf *out, mb_error *err)
{
    size_t nc = rep->nconfigs, nr = rep->nreductions < MAX_SERIES - 1 ? rep->nreductions : MAX_SERIES - 1;
    double *y = calloc(nc * (nr + 1), sizeof(double));
    char (*names)[48] = calloc(nr + 1, sizeof(*names));
    if (!y || !names) {
        free(y);
        free(names);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    mb_plot_series series[MAX_SERIES];
    snprintf(names[0], sizeof(names[0]), "original");
    for (size_t c = 0; c < nc; c++)
        y[c] = rep->original[c].value[MB_VM_IPC];
    series[0] = (mb_plot_series){names[0], y};
    for (size_t r = 0; r < nr; r++) {
        char label[32];
        vreduction_label(rep->reductions[r], label, sizeof(label));
        snprintf(names[r + 1], sizeof(names[r + 1]), "clone R=%s", label);
        for (size_t c = 0; c < nc; c++)
            y[(r + 1) * nc + c] = mb_validate_row_at(rep, c, r)->clone.value[MB_VM_IPC];
        series[r + 1] = (mb_plot_series){names[r + 1], y + (r + 1) * nc};
    }
    char title[600];
    snprintf(title, sizeof(title), "%s: IPC of original and clones per configuration", rep->kernel);
    mb_plot p = {title, "configuration", "IPC (thread instructions per cycle)",
                 (const char *const *)rep->configs, nc, series, nr + 1, 0};
    mb_status st = mb_plot_bars_svg(&p, out, err);
    free(y);
    free(names);
    return st;
}

/* ---------------------------------------------------------------- files */

mb_status vmake_dir(const char *dir, mb_error *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return mb_error_set(err, MB_ERR_IO, dir, 0, 0, "cannot create directory: %s", strerror(errno));
    return MB_OK;
}

mb_status vwrite_in(const char *dir, const char *name, const mb_buf *b, mb_error *err)
{
    mb_buf path = MB_BUF_INIT;
    mb_buf_printf(&path, "%s/%s", dir, name);
    mb_status st = path.failed || b->failed
                       ? mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory")
                       : mb_write_file_atomic(path.data, b->data ? b->data : "", b->len, err);
    mb_buf_free(&path);
    return st;
}

mb_status mb_validate_write(const mb_validate_report *rep, const char *dir, mb_error *err)
{
    enum { CSV, JSON, SPEEDUP, ERROR, CONFIGS, NFILES };
    static const char *const names[NFILES] = {"validate.csv", "validate.json", "speedup.svg",
                                              "ipc_error.svg", "ipc_configs.svg"};
    mb_buf files[NFILES] = {MB_BUF_INIT, MB_BUF_INIT, MB_BUF_INIT, MB_BUF_INIT, MB_BUF_INIT};
    /* everything is rendered before anything is written */
    write_csv(rep, &files[CSV]);
    json_t *root = vreport_json(rep);
    mb_status st = vjson_dump(root, &files[JSON], err);
    json_decref(root);
    if (st == MB_OK)
        st = plot_over_reductions(rep, 0, &files[SPEEDUP], err);
    if (st == MB_OK)
        st = plot_over_reductions(rep, 1, &files[ERROR], err);
    if (st == MB_OK)
        st = plot_configs(rep, &files[CONFIGS], err);
    mb_buf clones = MB_BUF_INIT;
    mb_buf_printf(&clones, "%s/clones", dir);
    if (st == MB_OK)
        st = vmake_dir(dir, err);
    if (st == MB_OK)
        st = vmake_dir(clones.data, err);
    for (size_t r = 0; st == MB_OK && r < rep->nreductions; r++) {
        char label[32];
        vreduction_label(rep->reductions[r], label, sizeof(label));
        mb_buf sub = MB_BUF_INIT;
        mb_buf_printf(&sub, "%s/r%s", clones.data, label);
        st = sub.failed ? mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory")
                        : mb_emit_clone_dir(rep->clones[r], sub.data, err);
        mb_buf_free(&sub);
    }
    for (int i = 0; st == MB_OK && i < NFILES; i++)
        st = vwrite_in(dir, names[i], &files[i], err);
    for (int i = 0; i < NFILES; i++)
        mb_buf_free(&files[i]);
    mb_buf_free(&clones);
    return st;
}
