/* A suite's summary: per kernel at its largest reduction, and the targets' means. */
#define _POSIX_C_SOURCE 200809L
#include "svg_plot.h"
#include "validate_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The issue's per-kernel bound on the mean absolute IPC error. */
static const double kernel_error_bound = 0.10;

typedef struct suite_means {
    size_t validated, failed, loop_kernels, over_bound, trend_kept;
    double mean_abs_ipc_error;   /* mean over kernels of their mean over configurations */
    double hmean_speedup_loops;  /* over every configuration of the kernels with loops */
    double hmean_speedup_flat;   /* the same for loop-free kernels */
    /* at each kernel's largest factor within the IPC aim on every configuration */
    size_t within_aim, within_aim_loops;
    double within_aim_mean_abs_ipc_error; /* mean over the kernels that have such a factor */
    double within_aim_hmean_speedup_loops;
} suite_means;

static int trend_kept_everywhere(const mb_validate_report *rep)
{
    for (size_t r = 0; r < rep->nreductions; r++)
        if (!rep->trend_kept[r])
            return 0;
    return 1;
}

static mb_status means_of(const mb_validate_suite *s, suite_means *m, mb_error *err)
{
    memset(m, 0, sizeof(*m));
    size_t cap = 0;
    for (size_t i = 0; i < s->nentries; i++)
        if (s->entries[i].report)
            cap += s->entries[i].report->nconfigs;
    double *loops = calloc(cap + 1, sizeof(double)), *flat = calloc(cap + 1, sizeof(double)),
           *aimed = calloc(cap + 1, sizeof(double));
    if (!loops || !flat || !aimed) {
        free(loops);
        free(flat);
        free(aimed);
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    size_t nl = 0, nf = 0, na = 0;
    for (size_t i = 0; i < s->nentries; i++) {
        const mb_validate_report *rep = s->entries[i].report;
        if (!rep) {
            m->failed++;
            continue;
        }
        vheadline h;
        vheadline_of(rep, &h);
        m->validated++;
        m->loop_kernels += rep->has_loops != 0;
        m->mean_abs_ipc_error += h.mean_abs_ipc_error;
        m->over_bound += h.mean_abs_ipc_error > kernel_error_bound;
        m->trend_kept += trend_kept_everywhere(rep);
        for (size_t c = 0; c < rep->nconfigs; c++) {
            double sp = mb_validate_row_at(rep, c, h.reduction)->speedup;
            if (rep->has_loops)
                loops[nl++] = sp;
            else
                flat[nf++] = sp;
        }
        if (h.best < 0)
            continue;
        m->within_aim++;
        m->within_aim_mean_abs_ipc_error += h.best_mean_abs_ipc_error;
        if (!rep->has_loops)
            continue;
        m->within_aim_loops++;
        for (size_t c = 0; c < rep->nconfigs; c++)
            aimed[na++] = mb_validate_row_at(rep, c, (size_t)h.best)->speedup;
    }
    if (m->validated)
        m->mean_abs_ipc_error /= (double)m->validated;
    m->within_aim_mean_abs_ipc_error =
        m->within_aim ? m->within_aim_mean_abs_ipc_error / (double)m->within_aim : NAN;
    m->hmean_speedup_loops = vharmonic_mean(loops, nl);
    m->hmean_speedup_flat = vharmonic_mean(flat, nf);
    m->within_aim_hmean_speedup_loops = vharmonic_mean(aimed, na);
    free(loops);
    free(flat);
    free(aimed);
    return MB_OK;
}

/* `v` printed with `fmt` (one conversion) into buf, or "-" when undefined. */
static void figure(char *buf, size_t size, const char *fmt, double v)
{
    if (isfinite(v))
        snprintf(buf, size, fmt, v);
    else
        snprintf(buf, size, "-");
}

void mb_validate_suite_text(const mb_validate_suite *s, mb_buf *out)
{
    char aim_head[32];
    snprintf(aim_head, sizeof(aim_head), "within %.0f%%", 100 * vipc_aim());
    mb_buf_printf(out, "%-18s %-5s %4s %9s %9s %-8s %9s %10s %6s %9s %-15s  %s\n", "example", "loops",
                  "R", "mean err", "worst", "on", "speedup", "inst ratio", "trend", "R=1 err",
                  aim_head, "first divergence (worst)");
    for (size_t i = 0; i < s->nentries; i++) {
        const mb_validate_entry *e = &s->entries[i];
        if (!e->report) {
            mb_buf_printf(out, "%-18s not validated: %s\n", e->name, e->failure ? e->failure : "?");
            continue;
        }
        vheadline h;
        vheadline_of(e->report, &h);
        char label[32];
        vreduction_label(e->report->reductions[h.reduction], label, sizeof(label));
        const mb_validate_row *worst = mb_validate_row_at(e->report, (size_t)h.worst_config, h.reduction);
        char cause[160];
        vcause_detail(&e->report->original[h.worst_config], worst, cause, sizeof(cause));
        char r1[32], aim[48] = "none";
        figure(r1, sizeof(r1), "%.2f%%", 100 * h.r1_mean_abs_ipc_error);
        if (h.best >= 0) {
            char best[32];
            vreduction_label(e->report->reductions[h.best], best, sizeof(best));
            snprintf(aim, sizeof(aim), "R=%s %.2fx", best, h.best_hmean_speedup);
        }
        mb_buf_printf(out, "%-18s %-5s %4s %8.2f%% %8.2f%% %-8s %8.2fx %10.2f %6s %9s %-15s  %s\n",
                      e->name, e->report->has_loops ? "yes" : "no", label,
                      100 * h.mean_abs_ipc_error, 100 * h.max_abs_ipc_error,
                      e->report->configs[h.worst_config], h.hmean_speedup, h.inst_ratio,
                      trend_kept_everywhere(e->report) ? "kept" : "LOST", r1, aim, cause);
    }
    suite_means m;
    mb_error ignored;
    if (means_of(s, &m, &ignored) != MB_OK)
        return;
    char loops[32], flat[32], aim_err[32], aim_speedup[32];
    figure(loops, sizeof(loops), "%.2fx", m.hmean_speedup_loops);
    figure(flat, sizeof(flat), "%.2fx", m.hmean_speedup_flat);
    figure(aim_err, sizeof(aim_err), "%.2f%%", 100 * m.within_aim_mean_abs_ipc_error);
    figure(aim_speedup, sizeof(aim_speedup), "%.2fx", m.within_aim_hmean_speedup_loops);
    mb_buf_printf(out,
                  "\n%zu kernels validated, %zu not. Mean |IPC error| at the largest reduction: %.2f%% "
                  "(%zu kernels above %.0f%%). Harmonic-mean speedup: %s over %zu kernels with "
                  "loops, %s over %zu loop-free ones. Config ranking kept by %zu of %zu.\n",
                  m.validated, m.failed, 100 * m.mean_abs_ipc_error, m.over_bound,
                  100 * kernel_error_bound, loops, m.loop_kernels, flat, m.validated - m.loop_kernels,
                  m.trend_kept, m.validated);
    mb_buf_printf(out,
                  "Within the %.0f%% IPC aim on every config at some reduction: %zu of %zu kernels; at "
                  "each one's largest such reduction, mean |IPC error| %s and harmonic-mean speedup "
                  "%s over the %zu with loops.\n",
                  100 * vipc_aim(), m.within_aim, m.validated, aim_err, aim_speedup,
                  m.within_aim_loops);
}


static mb_status summary_json(const mb_validate_suite *s, mb_buf *out, mb_error *err)
{
    suite_means m;
    mb_status st = means_of(s, &m, err);
    if (st != MB_OK)
        return st;
    json_t *root = json_object(), *kernels = json_array(), *means = json_object();
    json_object_set_new(root, "format", json_string("minibench-validate-suite-1"));
    for (size_t i = 0; i < s->nentries; i++) {
        const mb_validate_entry *e = &s->entries[i];
        json_t *k = e->report ? vreport_json(e->report) : json_object();
        json_object_set_new(k, "example", json_string(e->name));
        if (!e->report)
            json_object_set_new(k, "failure", json_string(e->failure ? e->failure : "?"));
        json_array_append_new(kernels, k);
    }
    json_object_set_new(means, "validated", json_integer((json_int_t)m.validated));
    json_object_set_new(means, "failed", json_integer((json_int_t)m.failed));
    json_object_set_new(means, "mean_abs_ipc_error", vjson_number(m.mean_abs_ipc_error));
    json_object_set_new(means, "kernels_above_10_percent", json_integer((json_int_t)m.over_bound));
    json_object_set_new(means, "hmean_speedup_loop_kernels", vjson_number(m.hmean_speedup_loops));
    json_object_set_new(means, "hmean_speedup_loop_free_kernels", vjson_number(m.hmean_speedup_flat));
    json_object_set_new(means, "trend_kept", json_integer((json_int_t)m.trend_kept));
    json_t *aim = json_object();
    json_object_set_new(aim, "ipc_aim", json_real(vipc_aim()));
    json_object_set_new(aim, "kernels", json_integer((json_int_t)m.within_aim));
    json_object_set_new(aim, "loop_kernels", json_integer((json_int_t)m.within_aim_loops));
    json_object_set_new(aim, "mean_abs_ipc_error", vjson_number(m.within_aim_mean_abs_ipc_error));
    json_object_set_new(aim, "hmean_speedup_loop_kernels",
                        vjson_number(m.within_aim_hmean_speedup_loops));
    json_object_set_new(means, "within_aim", aim);
    json_object_set_new(root, "means", means);
    json_object_set_new(root, "kernels", kernels);
    st = vjson_dump(root, out, err);
    json_decref(root);
    return st;
}

static void summary_csv(const mb_validate_suite *s, mb_buf *out)
{
    static const char header[] =
        "example,kernel,has_loops,reduction,mean_abs_ipc_error,max_abs_ipc_error,"
        "worst_config,hmean_speedup,inst_ratio,trend_kept,first_divergence,"
        "r1_mean_abs_ipc_error,reduction_drift,within_aim_reduction,"
        "within_aim_mean_abs_ipc_error,within_aim_hmean_speedup,failure\n";
    mb_buf_puts(out, header);
    for (size_t i = 0; i < s->nentries; i++) {
        const mb_validate_entry *e = &s->entries[i];
        if (!e->report) {
            /* the message may hold commas and quotes: CSV-quote it */
            /* the name, every other column empty, the failure last */
            mb_buf_puts(out, e->name);
            for (const char *h = strchr(header, ','); h; h = strchr(h + 1, ','))
                mb_buf_putc(out, ',');
            mb_buf_putc(out, '"');
            for (const char *c = e->failure ? e->failure : "?"; *c; c++) {
                if (*c == '"')
                    mb_buf_putc(out, '"');
                mb_buf_putc(out, *c == '\n' ? ' ' : *c);
            }
            mb_buf_puts(out, "\"\n");
            continue;
        }
        vheadline h;
        vheadline_of(e->report, &h);
        char label[32];
        vreduction_label(e->report->reductions[h.reduction], label, sizeof(label));
        mb_buf_printf(out, "%s,%s,%d,%s,%.6g,%.6g,\"%s\",%.6g,%.6g,%d,%s", e->name,
                      e->report->kernel, e->report->has_loops, label, h.mean_abs_ipc_error,
                      h.max_abs_ipc_error, e->report->configs[h.worst_config], h.hmean_speedup,
                      h.inst_ratio, trend_kept_everywhere(e->report),
                      vcause_name(mb_validate_row_at(e->report, (size_t)h.worst_config, h.reduction)
                                      ->first_diverged));
        vcsv_number(out, h.r1_mean_abs_ipc_error);
        vcsv_number(out, h.reduction_drift);
        char best[32] = "";
        if (h.best >= 0)
            vreduction_label(e->report->reductions[h.best], best, sizeof(best));
        mb_buf_printf(out, ",%s", best);
        vcsv_number(out, h.best_mean_abs_ipc_error);
        vcsv_number(out, h.best_hmean_speedup);
        mb_buf_puts(out, ",\n");
    }
}

enum { PLOT_ERROR, PLOT_SPEEDUP, PLOT_IPC };

/*
 * Per kernel at its largest reduction: IPC error or speedup per configuration
 * (one series per configuration), or original and clone IPC per kernel and
 * configuration (Fig. 20 for the whole suite).
 */
static mb_status summary_plot(const mb_validate_suite *s, int kind, mb_buf *out, mb_error *err)
{
    size_t nk = 0, nc = 0;
    for (size_t i = 0; i < s->nentries; i++) {
        if (s->entries[i].report) {
            nk++;
            if (s->entries[i].report->nconfigs > nc)
                nc = s->entries[i].report->nconfigs;
        }
    }
    if (nk == 0)
        return MB_OK; /* nothing validated: no plot */
    if (nc > 64)
        nc = 64;
    size_t ncat = kind == PLOT_IPC ? nk * nc : nk, nser = kind == PLOT_IPC ? 2 : nc;
    double *y = malloc((ncat * nser + 1) * sizeof(double));
    char **cats = calloc(ncat + 1, sizeof(char *));
    mb_plot_series *series = calloc(nser + 1, sizeof(*series));
    mb_status st = y && cats && series ? MB_OK : mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    const mb_validate_report *first = NULL;
    for (size_t i = 0, k = 0; st == MB_OK && i < s->nentries; i++) {
        const mb_validate_report *rep = s->entries[i].report;
        if (!rep)
            continue;
        first = first ? first : rep;
        vheadline h;
        vheadline_of(rep, &h);
        for (size_t c = 0; c < nc; c++) {
            const mb_validate_row *row = c < rep->nconfigs ? mb_validate_row_at(rep, c, h.reduction) : NULL;
            if (kind == PLOT_IPC) {
                size_t cat = k * nc + c;
                y[cat] = row ? rep->original[c].value[MB_VM_IPC] : NAN;
                y[ncat + cat] = row ? row->clone.value[MB_VM_IPC] : NAN;
                mb_buf b = MB_BUF_INIT;
                mb_buf_printf(&b, "%s/%s", s->entries[i].name, row ? rep->configs[c] : "-");
                cats[cat] = b.data;
            } else {
                y[c * ncat + k] = !row ? NAN : kind == PLOT_ERROR ? 100 * row->rel_error[MB_VM_IPC]
                                                                  : row->speedup;
            }
        }
        if (kind != PLOT_IPC)
            cats[k] = strdup(s->entries[i].name);
        k++;
    }
    for (size_t i = 0; st == MB_OK && i < ncat; i++)
        if (!cats[i])
            st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    if (st == MB_OK && kind == PLOT_IPC) {
        series[0] = (mb_plot_series){"original", y};
        series[1] = (mb_plot_series){"clone", y + ncat};
    } else if (st == MB_OK) {
        for (size_t c = 0; c < nser; c++)
            series[c] = (mb_plot_series){first ? first->configs[c] : "?", y + c * ncat};
    }
    static const char *const titles[] = {"IPC error at the largest reduction factor",
                                         "simulation speedup at the largest reduction factor",
                                         "IPC of originals and clones at the largest reduction factor"};
    static const char *const ylabels[] = {"IPC error (%)", "speedup (x)", "IPC"};
    mb_plot p = {titles[kind], kind == PLOT_IPC ? "example/configuration" : "example", ylabels[kind],
                 (const char *const *)cats, ncat, series, nser, kind == PLOT_SPEEDUP};
    if (st == MB_OK)
        st = kind == PLOT_ERROR ? mb_plot_bars_svg(&p, out, err)
             : kind == PLOT_SPEEDUP ? mb_plot_lines_svg(&p, out, err)
                                    : mb_plot_bars_svg(&p, out, err);
    for (size_t i = 0; cats && i < ncat; i++)
        free(cats[i]);
    free(cats);
    free(series);
    free(y);
    return st;
}

mb_status mb_validate_suite_write(const mb_validate_suite *s, const char *dir, mb_error *err)
{
    enum { TXT, CSV, JSON, ERRORS, SPEEDUPS, IPCS, NFILES };
    static const char *const names[NFILES] = {"summary.txt", "summary.csv", "summary.json",
                                              "summary_ipc_error.svg", "summary_speedup.svg",
                                              "summary_ipc.svg"};
    mb_buf files[NFILES];
    for (int i = 0; i < NFILES; i++)
        files[i] = (mb_buf)MB_BUF_INIT;
    mb_validate_suite_text(s, &files[TXT]);
    summary_csv(s, &files[CSV]);
    mb_status st = summary_json(s, &files[JSON], err);
    if (st == MB_OK)
        st = summary_plot(s, PLOT_ERROR, &files[ERRORS], err);
    if (st == MB_OK)
        st = summary_plot(s, PLOT_SPEEDUP, &files[SPEEDUPS], err);
    if (st == MB_OK)
        st = summary_plot(s, PLOT_IPC, &files[IPCS], err);
    if (st == MB_OK)
        st = vmake_dir(dir, err);
    for (int i = 0; st == MB_OK && i < NFILES; i++)
        if (files[i].len)
            st = vwrite_in(dir, names[i], &files[i], err);
    for (int i = 0; i < NFILES; i++)
        mb_buf_free(&files[i]);
    return st;
}
