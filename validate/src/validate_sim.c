/* One simulated launch of a module and manifest, with its statistics and cost. */
#define _POSIX_C_SOURCE 200809L
#include "validate_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const metric_stats[] = {
#define MB_VALIDATE_METRIC_STAT(id, col, label, stat, kind, tol, cause) stat,
    MB_VALIDATE_METRICS(MB_VALIDATE_METRIC_STAT)
#undef MB_VALIDATE_METRIC_STAT
};

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Prefixes the error with what was being simulated, keeping its location. */
static mb_status name_failure(const vsim_target *t, const char *config, mb_error *err)
{
    mb_error first = *err;
    return mb_error_set(err, first.status, first.file, first.line, first.col, "%s on %s: %s", t->what,
                        config, first.msg);
}

static mb_status run_once(const vsim_target *t, const mb_sim_config *cfg, uint64_t max_warp_insts,
                          mb_validate_sample *out, mb_error *err)
{
    mb_memory *mem = NULL;
    mb_program *prog = NULL;
    mb_manifest_run *run = NULL;
    mb_sim *sim = NULL;
    mb_status st = mb_memory_new(&mem, err);
    if (st == MB_OK)
        st = mb_program_new(t->module, mem, &prog, err);
    if (st == MB_OK)
        st = mb_manifest_bind(t->manifest, prog, mem, &run, err);
    if (st == MB_OK && t->launch >= mb_manifest_nlaunches(t->manifest))
        st = mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "the manifest has no launch %u", t->launch);
    if (st == MB_OK && t->kernel &&
        strcmp(mb_manifest_launch(run, t->launch)->kernel->name, t->kernel) != 0)
        st = mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "launch %u runs %s, not the profiled %s",
                          t->launch, mb_manifest_launch(run, t->launch)->kernel->name, t->kernel);
    mb_exec_options opt = {1, max_warp_insts, 0, NULL};
    for (uint32_t i = 0; st == MB_OK && i < t->launch; i++) {
        mb_exec_stats ignored;
        st = mb_launch(prog, mem, mb_manifest_launch(run, i), &opt, &ignored, err);
    }
    if (st == MB_OK)
        st = mb_sim_new(cfg, &sim, err);
    double start = cpu_seconds();
    if (st == MB_OK)
        st = mb_sim_launch(sim, prog, mem, mb_manifest_launch(run, t->launch), &opt, err);
    out->seconds = cpu_seconds() - start;
    for (int m = 0; st == MB_OK && m < MB_VM_COUNT; m++)
        st = mb_sim_stat_value(sim, metric_stats[m], &out->value[m], err);
    if (st == MB_OK) {
        const mb_sim_stats *s = mb_sim_get_stats(sim);
        out->cycles = s->cycles;
        out->thread_insts = s->thread_insts;
    }
    mb_sim_free(sim);
    mb_manifest_run_free(run);
    mb_program_free(prog);
    mb_memory_free(mem);
    return st;
}

mb_status vsim_measure(const vsim_target *t, const mb_sim_config *cfg, const char *config_name,
                       unsigned repeat, uint64_t max_warp_insts, mb_validate_sample *out,
                       mb_error *err)
{
    enum { MAX_REPEAT = 99 };
    double times[MAX_REPEAT];
    unsigned n = repeat == 0 ? 1 : repeat > MAX_REPEAT ? MAX_REPEAT : repeat;
    memset(out, 0, sizeof(*out));
    for (unsigned i = 0; i < n; i++) {
        if (run_once(t, cfg, max_warp_insts, out, err) != MB_OK)
            return name_failure(t, config_name, err);
        times[i] = out->seconds;
    }
    qsort(times, n, sizeof(times[0]), cmp_double);
    out->seconds = n % 2 ? times[n / 2] : 0.5 * (times[n / 2 - 1] + times[n / 2]);
    return MB_OK;
}

mb_status mb_validate_sample_from_json(const char *text, size_t len, const char *name,
                                       const char *kernel, mb_validate_sample *out, mb_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root)
        return mb_error_set(err, MB_ERR_PARSE, name, je.line, je.column, "%s", je.text);
    memset(out, 0, sizeof(*out));
    json_t *stats = json_object_get(json_object_get(root, "simulator"), "stats");
    json_t *seconds = json_object_get(root, "launch_seconds");
    mb_status st = MB_OK;
    if (!json_is_object(stats) || !json_is_number(seconds))
        st = mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                          "expected \"launch_seconds\" and \"simulator\": {\"stats\": {...}}");
    static const char *const counts[] = {"gpu_sim_cycle", "gpu_sim_insn"};
    uint64_t *count_fields[] = {&out->cycles, &out->thread_insts};
    for (int i = 0; st == MB_OK && i < 2; i++) {
        json_t *v = json_object_get(stats, counts[i]);
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            st = mb_error_set(err, MB_ERR_INVALID, name, 0, 0, "stats.%s: expected a count", counts[i]);
        else
            *count_fields[i] = (uint64_t)json_integer_value(v);
    }
    for (int m = 0; st == MB_OK && m < MB_VM_COUNT; m++) {
        json_t *v = json_object_get(stats, metric_stats[m]);
        if (!json_is_number(v))
            st = mb_error_set(err, MB_ERR_INVALID, name, 0, 0, "stats.%s: expected a number",
                              metric_stats[m]);
        else
            out->value[m] = json_number_value(v);
    }
    json_t *kernels = json_object_get(root, "selected_kernels");
    const char *ran = json_string_value(json_array_get(kernels, 0));
    if (st == MB_OK && kernel && (json_array_size(kernels) != 1 || !ran || strcmp(ran, kernel) != 0))
        st = mb_error_set(err, MB_ERR_INVALID, name, 0, 0,
                          "the simulated launch ran %s, not %s: the program or its input changed "
                          "since profiling",
                          ran ? ran : "no kernel", kernel);
    if (st == MB_OK)
        out->seconds = json_number_value(seconds);
    json_decref(root);
    return st;
}
