/* libminibench_validate: a suite of one example end to end, the report's
 * numbers and files, statistics read from JSON, and every way a validation
 * can be refused. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/validate.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const double reductions[] = {1, 0};
static const char *const configs[] = {"conf1", "conf3"};

static mb_validate_options options(void)
{
    mb_validate_options o;
    memset(&o, 0, sizeof(o));
    o.reductions = reductions;
    o.nreductions = 2;
    o.configs = configs;
    o.nconfigs = 2;
    o.seed = 1;
    return o;
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *read_text(const char *path)
{
    char *data = NULL;
    size_t len = 0;
    mb_error err;
    assert_int_equal(mb_read_file(path, 1u << 24, &data, &len, &err), MB_OK);
    return data;
}

/* A copy of the file at `from` with the first `old` replaced by `new`, written to `to`. */
static void write_edited(const char *from, const char *to, const char *old, const char *new)
{
    char *text = read_text(from);
    const char *at = strstr(text, old);
    assert_non_null(at);
    size_t head = (size_t)(at - text);
    mb_buf b = MB_BUF_INIT;
    mb_buf_append(&b, text, head);
    mb_buf_puts(&b, new);
    mb_buf_puts(&b, text + head + strlen(old));
    write_text(to, b.data);
    mb_buf_free(&b);
    free(text);
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* A suite directory holding examples given by name (links to examples/). */
static void make_suite(const char *root, const char *const *names, size_t n)
{
    assert_int_equal(mkdir(root, 0777), 0);
    for (size_t i = 0; i < n; i++) {
        char dir[512], from[1024], to[1024];
        snprintf(dir, sizeof(dir), "%s/%s", root, names[i]);
        assert_int_equal(mkdir(dir, 0777), 0);
        snprintf(from, sizeof(from), "%s/%s/%s.ptx", MB_EXAMPLES_DIR, names[i], names[i]);
        snprintf(to, sizeof(to), "%s/%s.ptx", dir, names[i]);
        assert_int_equal(symlink(from, to), 0);
        snprintf(from, sizeof(from), "%s/%s/launch.json", MB_EXAMPLES_DIR, names[i]);
        snprintf(to, sizeof(to), "%s/launch.json", dir);
        assert_int_equal(symlink(from, to), 0);
    }
}

/* A fresh directory from `tmpl` (returned) holding a suite of the named
 * examples in suite (root/examples); out is root/report, for the reports.
 * suite and out hold 300 bytes. */
static char *make_root(char *tmpl, const char *const *names, size_t n, char *suite, char *out)
{
    char *root = mkdtemp(tmpl);
    assert_non_null(root);
    snprintf(suite, 300, "%s/examples", root);
    snprintf(out, 300, "%s/report", root);
    make_suite(suite, names, n);
    return root;
}

static void remove_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* vecadd is loop-free and regular: its clone must match it closely. */
static void test_suite_vecadd(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/mb_validate_XXXXXX";
    char suite[300], out[300], path[700];
    const char *const names[] = {"vecadd", "devfunc"};
    char *root = make_root(tmpl, names, 2, suite, out);
    mb_validate_options o = options();
    mb_validate_suite *s = NULL;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_validate_suite_run(suite, &o, out, &s, &err), MB_OK);
    assert_int_equal(s->nentries, 2);
    /* sorted by name: devfunc, whose kernel calls a device function, is
     * cloned with the call and validated like the others */
    assert_string_equal(s->entries[0].name, "devfunc");
    assert_non_null(s->entries[0].report);
    assert_string_equal(s->entries[0].report->kernel, "digit_sums");
    assert_true(s->entries[0].report->has_loops);
    const mb_validate_report *rep = s->entries[1].report;
    assert_non_null(rep);
    assert_string_equal(rep->kernel, "vecadd");
    assert_false(rep->has_loops);
    assert_int_equal(rep->nconfigs, 2);
    assert_int_equal(rep->nreductions, 2);
    for (size_t c = 0; c < 2; c++) {
        const mb_validate_sample *orig = &rep->original[c];
        assert_true(orig->cycles > 0 && orig->thread_insts > 0);
        assert_true(orig->value[MB_VM_IPC] > 0);
        assert_true(fabs(orig->value[MB_VM_IPC] - (double)orig->thread_insts / (double)orig->cycles) < 1e-3);
        for (size_t r = 0; r < 2; r++) {
            const mb_validate_row *row = mb_validate_row_at(rep, c, r);
            assert_true(fabs(row->rel_error[MB_VM_IPC]) < 0.05);
            assert_true(fabs(row->inst_ratio - 1) < 0.02);
            assert_true(row->speedup > 0);
            assert_true(row->rel_error[MB_VM_IPC] ==
                        (row->clone.value[MB_VM_IPC] - orig->value[MB_VM_IPC]) / orig->value[MB_VM_IPC]);
        }
    }
    assert_true(rep->trend_kept[0] && rep->trend_kept[1]);

    mb_buf text = MB_BUF_INIT;
    mb_validate_text(rep, &text);
    assert_non_null(strstr(text.data, "kernel vecadd"));
    assert_non_null(strstr(text.data, "conf3       max"));
    mb_buf_free(&text);
    mb_validate_suite_text(s, &text);
    assert_null(strstr(text.data, "not validated"));
    assert_non_null(strstr(text.data, "2 kernels validated, 0 not"));
    mb_buf_free(&text);
    assert_int_equal(mb_validate_suite_write(s, out, &err), MB_OK);

    /* files: CSV rows, JSON rows, plots, clones, profile, summary */
    snprintf(path, sizeof(path), "%s/vecadd/validate.csv", out);
    char *csv = read_text(path);
    assert_int_equal(count_lines(csv), 1 + 4);
    assert_non_null(strstr(csv, "vecadd,\"conf3\",max,"));
    free(csv);
    snprintf(path, sizeof(path), "%s/vecadd/validate.json", out);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "format")), "minibench-validate-1");
    assert_int_equal(json_array_size(json_object_get(doc, "rows")), 4);
    assert_true(json_is_true(json_object_get(json_object_get(doc, "trend_kept"), "max")));
    json_decref(doc);
    static const char *const files[] = {"vecadd/speedup.svg", "vecadd/ipc_error.svg",
                                        "vecadd/ipc_configs.svg", "summary_ipc.svg",
                                        "summary_speedup.svg", "summary_ipc_error.svg"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", out, files[i]);
        char *svg = read_text(path);
        assert_true(strncmp(svg, "<svg", 4) == 0);
        free(svg);
    }
    struct stat sb;
    snprintf(path, sizeof(path), "%s/vecadd/clones/rmax/clone.cu", out);
    assert_int_equal(stat(path, &sb), 0);
    snprintf(path, sizeof(path), "%s/vecadd/profile/vecadd.0.profile.json", out);
    assert_int_equal(stat(path, &sb), 0);
    snprintf(path, sizeof(path), "%s/summary.json", out);
    doc = json_load_file(path, 0, &je);
    assert_non_null(doc);
    json_t *means = json_object_get(doc, "means");
    assert_int_equal(json_integer_value(json_object_get(means, "validated")), 2);
    assert_int_equal(json_integer_value(json_object_get(means, "failed")), 0);
    /* devfunc has loops: the mean speedup over loop kernels is its own */
    assert_true(json_is_number(json_object_get(means, "hmean_speedup_loop_kernels")));
    json_t *aim = json_object_get(means, "within_aim");
    assert_true(json_number_value(json_object_get(aim, "ipc_aim")) == 0.03);
    assert_true(json_integer_value(json_object_get(aim, "kernels")) >= 1); /* vecadd's clone is */
    assert_true(json_integer_value(json_object_get(aim, "kernels")) <= 2);
    json_decref(doc);
    snprintf(path, sizeof(path), "%s/summary.csv", out);
    csv = read_text(path);
    assert_non_null(strstr(csv, ",r1_mean_abs_ipc_error,reduction_drift,within_aim_reduction,"));
    assert_int_equal(count_lines(csv), 1 + 2);
    free(csv);

    /* the profile the suite wrote validates on its own, with the same figures */
    mb_validate_report *again = NULL;
    snprintf(path, sizeof(path), "%s/vecadd/profile/vecadd.0", out);
    assert_int_equal(mb_validate_profile(path, &o, &again, &err), MB_OK);
    assert_int_equal(again->original[0].cycles, rep->original[0].cycles);
    assert_int_equal(mb_validate_row_at(again, 1, 1)->clone.cycles,
                     mb_validate_row_at(rep, 1, 1)->clone.cycles);
    mb_validate_report_free(again);
    mb_validate_suite_free(s);
    remove_tree(root);
}

/* nbody_f64's loop is two thirds DP instructions; at max it runs once and the
 * clone's integer set-up outweighs it: the diagnosis names the mix, which the
 * R = 1 clone keeps. */
static void test_diagnosis_names_mix(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/mb_validate_XXXXXX";
    char suite[300], out[300];
    const char *const names[] = {"nbody_f64"};
    char *root = make_root(tmpl, names, 1, suite, out);
    mb_validate_options o = options();
    o.nconfigs = 1;
    mb_validate_suite *s = NULL;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_validate_suite_run(suite, &o, out, &s, &err), MB_OK);
    const mb_validate_report *rep = s->entries[0].report;
    assert_non_null(rep);
    const double dp = rep->original[0].value[MB_VM_MIX_DP];
    assert_true(dp > 0.6 && dp < 0.75);
    const mb_validate_row *one = mb_validate_row_at(rep, 0, 0), *max = mb_validate_row_at(rep, 0, 1);
    assert_true(fabs(one->clone.value[MB_VM_MIX_DP] - dp) < 0.03);
    assert_true(one->first_diverged != MB_VM_MIX_DP);
    assert_true(max->clone.value[MB_VM_MIX_DP] < dp - 0.2);
    assert_int_equal(max->first_diverged, MB_VM_MIX_DP);
    double shares = 0;
    for (int m = MB_VM_MIX_SP; m <= MB_VM_MIX_MEM; m++)
        shares += max->clone.value[m];
    assert_true(fabs(shares - 1) < 1e-6);
    mb_buf text = MB_BUF_INIT;
    mb_validate_text(rep, &text);
    assert_non_null(strstr(text.data, "instruction mix: DP instruction share 0.6"));
    /* the error at max is the reduction's, not the clone's: R = 1 is the one within the aim */
    assert_non_null(strstr(text.data, "of that: the clone at R = 1 is off by 0."));
    assert_non_null(strstr(text.data, "largest reduction within the 3% IPC aim on every config: 1 ("));
    mb_buf_free(&text);
    mb_validate_suite_text(s, &text);
    assert_non_null(strstr(text.data, "instruction mix: DP instruction share 0.6"));
    mb_buf_free(&text);
    /* validate.json names the statistic beside the cause */
    assert_int_equal(mb_validate_suite_write(s, out, &err), MB_OK);
    char path[700];
    snprintf(path, sizeof(path), "%s/nbody_f64/validate.json", out);
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    assert_non_null(doc);
    json_t *rows = json_object_get(doc, "rows");
    assert_int_equal(json_array_size(rows), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 1),
                                                          "first_divergence_statistic")),
                        "dp_share");
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 1), "first_divergence")),
                        "instruction mix");
    json_t *summary = json_object_get(doc, "summary");
    const double r1 = json_number_value(json_object_get(summary, "r1_mean_abs_ipc_error"));
    const double drift = json_number_value(json_object_get(summary, "reduction_drift"));
    assert_true(r1 < 0.03);
    assert_true(drift > 0.5);
    /* the clone's own IPC moves by as much as the headline error: the split accounts for it */
    assert_true(fabs(drift - json_number_value(json_object_get(summary, "mean_abs_ipc_error"))) < 0.05);
    json_t *aim = json_object_get(summary, "within_aim");
    assert_string_equal(json_string_value(json_object_get(aim, "reduction")), "1");
    assert_true(json_number_value(json_object_get(aim, "mean_abs_ipc_error")) == r1);
    json_decref(doc);
    mb_validate_suite_free(s);
    remove_tree(root);
}

/* A report made by hand: one kernel, two configs, clone IPCs given per
 * reduction (config-major), the original's IPC 10 on both. */
typedef struct fake_report {
    mb_validate_report rep;
    char *configs[2];
    double reductions[3];
    mb_validate_sample original[2];
    mb_validate_row rows[6];
    int trend[3];
} fake_report;

static void fake_fill(fake_report *f, const double *reductions, size_t nr, const double *clone_ipc)
{
    memset(f, 0, sizeof(*f));
    static char kernel[] = "k", profile[] = "prof/k.0", c1[] = "conf1", c2[] = "conf2";
    f->configs[0] = c1;
    f->configs[1] = c2;
    f->rep.kernel = kernel;
    f->rep.profile = profile;
    f->rep.has_loops = 1;
    f->rep.nconfigs = 2;
    f->rep.nreductions = nr;
    f->rep.configs = f->configs;
    f->rep.reductions = f->reductions;
    f->rep.original = f->original;
    f->rep.rows = f->rows;
    f->rep.trend_kept = f->trend;
    for (size_t c = 0; c < 2; c++) {
        f->original[c].value[MB_VM_IPC] = 10;
        f->original[c].thread_insts = 1000;
    }
    for (size_t r = 0; r < nr; r++) {
        f->reductions[r] = reductions[r];
        f->trend[r] = 1;
        for (size_t c = 0; c < 2; c++) {
            mb_validate_row *row = &f->rows[c * nr + r];
            row->config = c;
            row->reduction = r;
            row->clone.value[MB_VM_IPC] = clone_ipc[c * nr + r];
            row->rel_error[MB_VM_IPC] = (clone_ipc[c * nr + r] - 10) / 10;
            row->speedup = 2.0 * (double)(r + 1);
            row->inst_ratio = (double)(r + 1);
            row->first_diverged = MB_VALIDATE_NO_DIVERGENCE;
        }
    }
}

/* The headline's split and the largest factor within the IPC aim: errors
 * need not grow with R, one config out of the aim rules a factor out, and
 * without R = 1 there is no split. */
static void test_split_and_factor_within_aim(void **state)
{
    (void)state;
    fake_report f;
    mb_buf text = MB_BUF_INIT;
    /* R = 1: 1% and 2%; R = 8: 2% and 5% (conf2 out); max: 2.5% and 1% */
    static const double r3[] = {1, 8, 0};
    static const double ipc_a[] = {10.1, 10.2, 10.25, 10.2, 10.5, 9.9};
    fake_fill(&f, r3, 3, ipc_a);
    mb_validate_text(&f.rep, &text);
    assert_non_null(strstr(text.data, "at reduction max: mean |IPC error| 1.75%"));
    assert_non_null(strstr(text.data, "the clone at R = 1 is off by 1.50%"));
    /* |10.25/10.1 - 1| = 1.485% and |9.9/10.2 - 1| = 2.941%: mean 2.21% */
    assert_non_null(strstr(text.data, "from R = 1 to max the clone's IPC moves by 2.21%"));
    assert_non_null(strstr(text.data, "on every config: max (mean |IPC error| 1.75%, "
                                      "harmonic-mean speedup 6.00x, instruction ratio 3.00)"));
    mb_buf_free(&text);

    /* max now 4% on conf1: R = 8 is still out, so R = 1 is the answer */
    static const double ipc_b[] = {10.1, 10.2, 10.4, 10.2, 10.5, 9.9};
    fake_fill(&f, r3, 3, ipc_b);
    mb_validate_text(&f.rep, &text);
    assert_non_null(strstr(text.data, "on every config: 1 (mean |IPC error| 1.50%"));
    mb_buf_free(&text);

    /* nothing within the aim, and no R = 1 to split against */
    static const double r2[] = {2, 8};
    static const double ipc_c[] = {11, 12, 9, 8};
    fake_fill(&f, r2, 2, ipc_c);
    mb_validate_text(&f.rep, &text);
    assert_non_null(strstr(text.data, "at reduction 8: mean |IPC error| 20.00%"));
    assert_null(strstr(text.data, "of that"));
    assert_non_null(strstr(text.data, "no reduction validated is within the 3% IPC aim on every config"));
    mb_buf_free(&text);
}

/* A copy of vecadd's profile in `dir` with index.json `index` (NULL: none). */
static void make_profile(const char *dir, const char *from, const char *index)
{
    assert_int_equal(mkdir(dir, 0777), 0);
    char path[1400];
    snprintf(path, sizeof(path), "cp '%s'/vecadd.0.* '%s'", from, dir);
    assert_int_equal(system(path), 0);
    if (index) {
        snprintf(path, sizeof(path), "%s/index.json", dir);
        write_text(path, index);
    }
}

static void expect_failure(const char *prefix, const mb_validate_options *o, mb_status want,
                           const char *message)
{
    mb_validate_report *rep = NULL;
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_validate_profile(prefix, o, &rep, &err), want);
    assert_null(rep);
    char text[2048];
    mb_error_format(&err, text, sizeof(text));
    if (!strstr(text, message))
        fail_msg("expected '%s' in '%s'", message, text);
}

static void test_profile_errors(void **state)
{
    (void)state;
    char tmpl[] = "/tmp/mb_validate_XXXXXX";
    char suite[300], out[300], prefix[700], dir[600], path[700], ptx[600], manifest[600], from[600];
    const char *const names[] = {"vecadd"};
    char *root = make_root(tmpl, names, 1, suite, out);
    mb_validate_options o = options();
    o.nreductions = 1;
    o.nconfigs = 1;
    mb_validate_suite *s = NULL;
    mb_error err;
    assert_int_equal(mb_validate_suite_run(suite, &o, out, &s, &err), MB_OK);
    mb_validate_suite_free(s);
    snprintf(from, sizeof(from), "%s/vecadd/profile", out);
    snprintf(prefix, sizeof(prefix), "%s/vecadd.0", from);
    snprintf(ptx, sizeof(ptx), "%s/vecadd/vecadd.ptx", suite);
    snprintf(manifest, sizeof(manifest), "%s/vecadd/launch.json", suite);

    /* names */
    expect_failure("prof/vecadd", &o, MB_ERR_INVALID, "PROFDIR/<kernel>.<n>");
    expect_failure("prof/vecadd.x", &o, MB_ERR_INVALID, "PROFDIR/<kernel>.<n>");
    /* no configuration, an unknown one */
    mb_validate_options none = o;
    none.nconfigs = 0;
    expect_failure(prefix, &none, MB_ERR_INVALID, "no configuration");
    static const char *const bad_config[] = {"no-such-config"};
    mb_validate_options bad = o;
    bad.configs = bad_config;
    expect_failure(prefix, &bad, MB_ERR_INVALID, "no preset or config file named 'no-such-config'");

    /* index.json: missing, not JSON, without the files, of a program */
    snprintf(dir, sizeof(dir), "%s/p1", root);
    make_profile(dir, from, NULL);
    snprintf(path, sizeof(path), "%s/vecadd.0", dir);
    expect_failure(path, &o, MB_ERR_IO, "index.json");
    snprintf(dir, sizeof(dir), "%s/p2", root);
    make_profile(dir, from, "{\"ptx\": ");
    snprintf(path, sizeof(path), "%s/vecadd.0", dir);
    expect_failure(path, &o, MB_ERR_PARSE, "");
    snprintf(dir, sizeof(dir), "%s/p3", root);
    make_profile(dir, from, "{\"launches\": []}");
    snprintf(path, sizeof(path), "%s/vecadd.0", dir);
    expect_failure(path, &o, MB_ERR_INVALID, "lacks the strings \"ptx\" and \"manifest\"");
    snprintf(dir, sizeof(dir), "%s/p4", root);
    make_profile(dir, from, "{\"program\": \"/bin/app\", \"arguments\": []}");
    snprintf(path, sizeof(path), "%s/vecadd.0", dir);
    expect_failure(path, &o, MB_ERR_UNSUPPORTED, "profile of the program /bin/app");

    /* an original that is not the one profiled: other PTX, other sizes */
    mb_validate_options other = o;
    snprintf(path, sizeof(path), "%s/matmul/matmul.ptx", MB_EXAMPLES_DIR);
    other.ptx = path;
    other.manifest = manifest;
    expect_failure(prefix, &other, MB_ERR_INVALID, "");
    char small[700];
    snprintf(small, sizeof(small), "%s/small.json", root);
    write_edited(manifest, small, "1000]", "500]");
    other.ptx = ptx;
    other.manifest = small;
    expect_failure(prefix, &other, MB_ERR_INVALID, "changed since");

    /* a fault in the simulated original names it, the config and the thread */
    char tiny[700];
    snprintf(tiny, sizeof(tiny), "%s/tiny.json", root);
    write_edited(manifest, tiny, "\"count\": 1000", "\"count\": 10");
    other.manifest = tiny;
    expect_failure(prefix, &other, MB_ERR_FAULT, "the original on conf1");
    remove_tree(root);
}

static void test_sample_from_json(void **state)
{
    (void)state;
    mb_validate_sample s;
    mb_error err;
    /* every statistic the metrics read, as the runtime library writes them */
    mb_buf doc = MB_BUF_INIT;
    mb_buf_puts(&doc, "{\"selected_kernels\": [\"k\"], \"launch_seconds\": 0.25, \"simulator\": "
                      "{\"stats\": {\"gpu_sim_cycle\": 100, \"gpu_sim_insn\": 3200, \"gpu_ipc\": 32.0, "
                      "\"simd_efficiency\": 1.0, \"gmem_transactions_per_request\": 4.0, "
                      "\"shmem_bank_conflicts_per_request\": 0.5, \"L1D_total_cache_miss_rate\": 0.25, "
                      "\"L2_total_cache_miss_rate\": 0.125, \"sp_warp_insn_share\": 0.5, "
                      "\"sfu_warp_insn_share\": 0, \"dp_warp_insn_share\": 0, "
                      "\"int_warp_insn_share\": 0.375, \"mem_warp_insn_share\": 0.125");
    size_t keep = doc.len;
    mb_buf_puts(&doc, ", \"dram_bandwidth_utilization\": 0.1, \"stall_fraction_compute_dep\": 0.2}}}");
    assert_int_equal(mb_validate_sample_from_json(doc.data, doc.len, "s.json", "k", &s, &err), MB_OK);
    assert_int_equal(s.cycles, 100);
    assert_int_equal(s.thread_insts, 3200);
    assert_true(s.value[MB_VM_IPC] == 32.0 && s.value[MB_VM_L2_MISS] == 0.125);
    assert_true(s.value[MB_VM_DEP] == 0.2 && s.seconds == 0.25);
    assert_true(s.value[MB_VM_MIX_SP] == 0.5 && s.value[MB_VM_MIX_INT] == 0.375);
    /* another kernel ran */
    assert_int_equal(mb_validate_sample_from_json(doc.data, doc.len, "s.json", "other", &s, &err),
                     MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "ran k, not other"));
    /* a statistic missing */
    doc.len = keep;
    mb_buf_puts(&doc, "}}}");
    assert_int_equal(mb_validate_sample_from_json(doc.data, doc.len, "s.json", NULL, &s, &err),
                     MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "stats.dram_bandwidth_utilization"));
    mb_buf_free(&doc);
    /* not JSON, not the shape */
    assert_int_equal(mb_validate_sample_from_json("{\n\"a\": ", 7, "s.json", NULL, &s, &err), MB_ERR_PARSE);
    assert_string_equal(err.file, "s.json");
    assert_int_equal(mb_validate_sample_from_json("{\"simulator\": 1}", 16, "s.json", NULL, &s, &err),
                     MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "launch_seconds"));
}

static void test_metric_table(void **state)
{
    (void)state;
    assert_string_equal(mb_validate_metric_name(MB_VM_IPC), "ipc");
    assert_string_equal(mb_validate_metric_label(MB_VM_L1_MISS), "L1 miss rate");
    assert_string_equal(mb_validate_metric_name(MB_VM_COUNT), "?");
    for (int m = 0; m < MB_VM_COUNT; m++)
        for (int k = m + 1; k < MB_VM_COUNT; k++)
            assert_string_not_equal(mb_validate_metric_name((mb_validate_metric)m),
                                    mb_validate_metric_name((mb_validate_metric)k));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metric_table),
        cmocka_unit_test(test_sample_from_json),
        cmocka_unit_test(test_profile_errors),
        cmocka_unit_test(test_suite_vecadd),
        cmocka_unit_test(test_diagnosis_names_mix),
        cmocka_unit_test(test_split_and_factor_within_aim),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
