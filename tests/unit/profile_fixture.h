/* Profiling a PTX text under a launch manifest, for the profiler's unit
 * tests: the profile, its JSON and the launch's executor statistics. Include
 * after cmocka.h. */
#ifndef MB_TEST_PROFILE_FIXTURE_H
#define MB_TEST_PROFILE_FIXTURE_H

#include <minibench/profiler.h>

#include <jansson.h>
#include <string.h>

typedef struct profiled {
    mb_module *m;
    mb_memory *mem;
    mb_program *prog;
    mb_manifest *man;
    mb_manifest_run *run;
    mb_profile *p;
    json_t *json;
    mb_exec_stats stats;
} profiled;

/* Profiles launch `which` of manifest `manifest_json` on PTX text; fails the test on error. */
static void profile_text(profiled *r, const char *ptx, const char *name, const char *manifest_json,
                         uint32_t which)
{
    memset(r, 0, sizeof(*r));
    mb_error err;
    mb_error_clear(&err);
    mb_status st = mb_ptx_parse(ptx, strlen(ptx), name, &r->m, &err);
    if (st == MB_OK)
        st = mb_memory_new(&r->mem, &err);
    if (st == MB_OK)
        st = mb_program_new(r->m, r->mem, &r->prog, &err);
    if (st == MB_OK)
        st = mb_manifest_parse(manifest_json, strlen(manifest_json), "m.json", &r->man, &err);
    if (st == MB_OK)
        st = mb_manifest_bind(r->man, r->prog, r->mem, &r->run, &err);
    for (uint32_t i = 0; st == MB_OK && i <= which; i++) {
        const mb_launch_config *cfg = mb_manifest_launch(r->run, i);
        mb_exec_options opt = {1, 0, 0, NULL};
        mb_exec_stats stats;
        memset(&stats, 0, sizeof(stats));
        if (i == which) {
            st = mb_profile_new(r->prog, r->mem, cfg, NULL, &r->p, &err);
            if (st == MB_OK)
                opt.observer = mb_profile_observer(r->p);
        }
        if (st == MB_OK)
            st = mb_launch(r->prog, r->mem, cfg, &opt, &stats, &err);
        if (st == MB_OK && i == which) {
            r->stats = stats;
            st = mb_profile_finish(r->p, &stats, &err);
        }
    }
    mb_buf json = MB_BUF_INIT;
    if (st == MB_OK)
        st = mb_profile_write_json(r->p, &json, &err);
    if (st != MB_OK) {
        char msg[2048];
        mb_error_format(&err, msg, sizeof(msg));
        mb_buf_free(&json);
        fail_msg("profiling %s failed: %s", name, msg);
    }
    json_error_t jerr;
    r->json = json_loads(json.data, 0, &jerr);
    mb_buf_free(&json);
    assert_non_null(r->json);
}

static void profiled_free(profiled *r)
{
    json_decref(r->json);
    mb_profile_free(r->p);
    mb_manifest_run_free(r->run);
    mb_manifest_free(r->man);
    mb_program_free(r->prog);
    mb_memory_free(r->mem);
    mb_module_free(r->m);
}

#endif
