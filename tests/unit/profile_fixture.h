/* Profiling a PTX text under a launch manifest, for the profiler's unit
 * tests: the profile, its JSON and the launch's executor statistics. Include
 * after cmocka.h. */
#ifndef MB_TEST_PROFILE_FIXTURE_H
#define MB_TEST_PROFILE_FIXTURE_H

#include <minibench/profiler.h>

#include <jansson.h>
#include <string.h>

/* One module, one memory and one program for every launch of a manifest. */
typedef struct session {
    mb_module *m;
    mb_memory *mem;
    mb_program *prog;
    mb_manifest *man;
    mb_manifest_run *run;
} session;

static void fail_with(const char *what, const mb_error *err)
{
    char msg[2048];
    mb_error_format(err, msg, sizeof(msg));
    fail_msg("%s failed: %s", what, msg);
}

/* Parses the PTX text and binds the manifest; fails the test on error. */
static void session_open(session *s, const char *ptx, const char *name, const char *manifest_json)
{
    memset(s, 0, sizeof(*s));
    mb_error err;
    mb_error_clear(&err);
    mb_status st = mb_ptx_parse(ptx, strlen(ptx), name, &s->m, &err);
    if (st == MB_OK)
        st = mb_memory_new(&s->mem, &err);
    if (st == MB_OK)
        st = mb_program_new(s->m, s->mem, &s->prog, &err);
    if (st == MB_OK)
        st = mb_manifest_parse(manifest_json, strlen(manifest_json), "m.json", &s->man, &err);
    if (st == MB_OK)
        st = mb_manifest_bind(s->man, s->prog, s->mem, &s->run, &err);
    if (st != MB_OK)
        fail_with(name, &err);
}

static void session_close(session *s)
{
    mb_manifest_run_free(s->run);
    mb_manifest_free(s->man);
    mb_program_free(s->prog);
    mb_memory_free(s->mem);
    mb_module_free(s->m);
}

/* Runs launch i of the session (profiled: *p gets its finished profile,
 * counted with `threads` as mb_profile_options.threads). */
static mb_status session_launch_threads(session *s, uint32_t i, mb_profile **p, uint32_t threads,
                                        mb_exec_stats *stats, mb_error *err)
{
    const mb_launch_config *cfg = mb_manifest_launch(s->run, i);
    mb_exec_options opt = {1, 0, 0, NULL};
    memset(stats, 0, sizeof(*stats));
    mb_status st = MB_OK;
    if (p) {
        const mb_profile_options popt = {.threads = threads};
        st = mb_profile_new(s->prog, s->mem, cfg, &popt, p, err);
        if (st == MB_OK)
            opt.observer = mb_profile_observer(*p);
    }
    if (st == MB_OK)
        st = mb_launch(s->prog, s->mem, cfg, &opt, stats, err);
    if (st == MB_OK && p)
        st = mb_profile_finish(*p, stats, err);
    return st;
}

static inline mb_status session_launch(session *s, uint32_t i, mb_profile **p, mb_exec_stats *stats, mb_error *err)
{
    return session_launch_threads(s, i, p, 0, stats, err);
}

typedef struct profiled {
    session s;
    mb_profile *p;
    json_t *json;
    mb_exec_stats stats;
} profiled;

/* Profiles launch `which` of manifest `manifest_json` on PTX text, after
 * running the launches before it, counting memory requests with `threads`
 * (mb_profile_options.threads); fails the test on error. */
static void profile_text_threads(profiled *r, const char *ptx, const char *name,
                                 const char *manifest_json, uint32_t which, uint32_t threads)
{
    memset(r, 0, sizeof(*r));
    session_open(&r->s, ptx, name, manifest_json);
    mb_error err;
    mb_error_clear(&err);
    mb_status st = MB_OK;
    for (uint32_t i = 0; st == MB_OK && i <= which; i++)
        st = session_launch_threads(&r->s, i, i == which ? &r->p : NULL, threads, &r->stats, &err);
    mb_buf json = MB_BUF_INIT;
    if (st == MB_OK)
        st = mb_profile_write_json(r->p, &json, &err);
    if (st != MB_OK) {
        mb_buf_free(&json);
        fail_with(name, &err);
    }
    json_error_t jerr;
    r->json = json_loads(json.data, 0, &jerr);
    mb_buf_free(&json);
    assert_non_null(r->json);
}

static inline void profile_text(profiled *r, const char *ptx, const char *name, const char *manifest_json,
                         uint32_t which)
{
    profile_text_threads(r, ptx, name, manifest_json, which, 0);
}

static void profiled_free(profiled *r)
{
    json_decref(r->json);
    mb_profile_free(r->p);
    session_close(&r->s);
}

#endif
