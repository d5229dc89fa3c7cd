/* The clone model: branch cases, reduced trip counts, expected counts,
 * determinism, the PTX it makes (parsed and run by the executor), per-request
 * bank-conflict degrees, and the kernels it refuses. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/emit.h>
#include <minibench/profiler.h>
#include <minibench/synth.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth_fixture.h"

/* The fixture plus the self-loop's branch record (96 back, 32 out). */
static char *loop_profile(void)
{
    return replace(PROFILE_JSON("0.0", "128", "{\"4\": 4}"), "\"condition\": \"thread/cta id\"}],",
                   "\"condition\": \"thread/cta id\"},\n"
                   "    {\"insn\": 4, \"line\": 13, \"block\": 1, \"warp_execs\": 4,\n"
                   "     \"taken_threads\": 96, \"not_taken_threads\": 32, \"diverged_warp_execs\": 0,\n"
                   "     \"divergence_fraction\": 0.0, \"condition\": \"uniform\"}],");
}

static mb_sprof *parse(const char *text)
{
    mb_error err;
    mb_error_clear(&err);
    mb_sprof *p = NULL;
    if (mb_sprof_parse_json(text, strlen(text), "fixture.json", &p, &err) != MB_OK)
        fail_msg("%s", err.msg);
    return p;
}

static mb_clone_model *build(const mb_sprof *p, double r, uint64_t seed)
{
    mb_error err;
    mb_error_clear(&err);
    mb_clone_model *m = NULL;
    if (mb_clone_build(p, r, seed, &m, &err) != MB_OK)
        fail_msg("%s", err.msg);
    return m;
}

static void test_cases_and_counts(void **state)
{
    (void)state;
    char *text = loop_profile();
    mb_sprof *p = parse(text);
    mb_clone_model *m = build(p, 1, 1);
    assert_int_equal(m->nblocks, 3);
    assert_int_equal(m->nbranches, 2);
    assert_int_equal(m->branches[0].block, 0);
    assert_int_equal(m->branches[0].kind, MB_CASE_OUTSIDE_FIRST_N);
    assert_int_equal(m->branches[0].rule, MB_RULE_KEY);
    assert_int_equal(m->branches[1].kind, MB_CASE_SELF_LOOP);
    assert_int_equal(m->branches[1].rule, MB_RULE_LOOP_BACK);
    assert_string_equal(mb_clone_case_name(MB_CASE_SELF_LOOP), "self-loop");
    /* the model's own run predicts the original's counts at R = 1 */
    assert_true(fabs(m->expected_ecount[0] - 64) < 1e-9);
    assert_true(fabs(m->expected_ecount[1] - 128) < 1e-9);
    assert_true(fabs(m->expected_ecount[2] - 64) < 1e-9);
    assert_int_equal(m->loops[0].ntrips, 1);
    assert_int_equal(m->loops[0].trip[0], 4);
    assert_int_equal(m->loops[0].iter_stride, 1);
    mb_clone_free(m);
    /* R = 2 halves the loop, R = 3 rounds down, 8 and max keep one iteration */
    const double rs[] = {2, 3, 8, 0};
    const uint32_t trips[] = {2, 1, 1, 1};
    /* a clone iteration stands for R of the original's, at most the trip count */
    const uint32_t strides[] = {2, 3, 4, 4};
    for (int i = 0; i < 4; i++) {
        m = build(p, rs[i], 1);
        assert_int_equal(m->loops[0].trip[0], trips[i]);
        assert_int_equal(m->loops[0].iter_stride, strides[i]);
        assert_int_equal(m->loops[0].iter_div, 1); /* no halving branch to spread for */
        assert_true(fabs(m->expected_ecount[1] - 32.0 * trips[i]) < 1e-9);
        assert_true(fabs(m->expected_ecount[1] - mb_sprof_expected_ecount(p, 1, rs[i])) < 1e-9);
        assert_true(fabs(m->expected_ecount[0] - 64) < 1e-9);
        mb_clone_free(m);
    }
    mb_sprof_free(p);
    free(text);
}

/* loop_profile() with `model` on BB0's branch (32 of 64 threads take it). */
static mb_sprof *parse_with_model(const char *model)
{
    char *to = malloc(strlen(model) + 64);
    sprintf(to, "\"condition\": \"thread/cta id\"%s},", model);
    char *base = loop_profile();
    char *text = replace(base, "\"condition\": \"thread/cta id\"},", to);
    mb_sprof *p = parse(text);
    free(base);
    free(text);
    free(to);
    return p;
}

static char *emit_ptx(const mb_clone_model *m);
static mb_module *parse_ptx(const char *ptx);

/* A profiled comparison is made as the original made it: the same threads
 * take the branch, whatever form the model was written in. */
static void test_compare_rule(void **state)
{
    (void)state;
    static const struct {
        const char *model, *setp;
        double l1; /* the loop block's ECount: 4 per thread that falls through */
    } cases[] = {
        {COND_MODEL("false", "ge", "u32", AFFINE_TID_X, AFFINE_16), "setp.ge.u32", 128},
        {COND_MODEL("true", "lt", "u32", AFFINE_TID_X, AFFINE_16), "setp.lt.u32", 128},
        /* an immediate first: swapped into setp's register operand */
        {COND_MODEL("false", "le", "u32", AFFINE_16, AFFINE_TID_X), "setp.ge.u32", 128},
        /* 64 bits over the global index: threads 16 and up take it */
        {COND_MODEL("false", "ge", "s64",
                    "{\"exact\": true, \"constant\": 0, \"terms\": {\"tid.x\": 1, \"ctaid.x\": 32}}",
                    AFFINE_16),
         "setp.ge.s64", 64},
        /* the global index the clone makes anyway, plus the constant: one add */
        {COND_MODEL("false", "ge", "u32",
                    "{\"exact\": true, \"constant\": -16, \"terms\": {\"tid.x\": 1, \"ctaid.x\": 32}}",
                    AFFINE_16),
         ", -16;", 64},
        {", \"condition_model\": {\"exact\": true, \"negate\": false, \"expr\": {\"op\": \"not\", "
         "\"args\": [{\"op\": \"cmp\", \"insn\": 0, \"line\": 9, \"cmp\": \"lt\", \"type\": \"s16\", "
         "\"a\": " AFFINE_TID_X ", \"b\": " AFFINE_16 "}]}}",
         "setp.lt.s32", 128},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mb_sprof *p = parse_with_model(cases[i].model);
        mb_clone_model *m = build(p, 1, 1);
        /* the model outlives its profile: the README names the comparison */
        mb_sprof_free(p);
        assert_int_equal(m->branches[0].rule, MB_RULE_COMPARE);
        assert_int_equal(m->branches[0].kind, MB_CASE_OUTSIDE_FIRST_N);
        assert_true(fabs(m->expected_ecount[1] - cases[i].l1) < 1e-9);
        mb_buf readme = MB_BUF_INIT;
        mb_error err;
        assert_int_equal(mb_emit_readme(m, &readme, &err), MB_OK);
        assert_non_null(strstr(readme.data, "the original's comparison: `"));
        mb_buf_free(&readme);
        char *ptx = emit_ptx(m);
        if (!strstr(ptx, cases[i].setp))
            fail_msg("case %zu: no %s in\n%s", i, cases[i].setp, ptx);
        mb_module_free(parse_ptx(ptx));
        free(ptx);
        mb_clone_free(m);
    }
    /* models the clone cannot make keep the calibrated rules: an inexact
     * operand, a float comparison, a loop counter outside its loop */
    static const char *const unusable[] = {
        COND_MODEL("false", "ge", "u32", AFFINE_TID_X, "{\"exact\": false}"),
        COND_MODEL("false", "ge", "f32", AFFINE_TID_X, AFFINE_16),
        COND_MODEL("false", "ge", "u32", "{\"exact\": true, \"constant\": 0, \"terms\": {\"iter.loop0\": 1}}",
                   AFFINE_16),
    };
    for (size_t i = 0; i < sizeof unusable / sizeof unusable[0]; i++) {
        mb_sprof *p = parse_with_model(unusable[i]);
        mb_clone_model *m = build(p, 1, 1);
        assert_int_equal(m->branches[0].rule, MB_RULE_KEY);
        mb_clone_free(m);
        mb_sprof_free(p);
    }
}

static char *emit_ptx(const mb_clone_model *m)
{
    mb_buf b = MB_BUF_INIT;
    mb_error err;
    if (mb_emit_ptx(m, &b, &err) != MB_OK)
        fail_msg("%s", err.msg);
    return b.data;
}

static void test_deterministic(void **state)
{
    (void)state;
    char *text = loop_profile();
    mb_sprof *p = parse(text);
    mb_clone_model *a = build(p, 2, 7), *b = build(p, 2, 7);
    char *ta = emit_ptx(a), *tb = emit_ptx(b);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    mb_clone_free(a);
    mb_clone_free(b);
    mb_sprof_free(p);
    free(text);
}

/* The front end's module of a clone's PTX; fails the test if it does not parse. */
static mb_module *parse_ptx(const char *ptx)
{
    mb_error err;
    mb_error_clear(&err);
    mb_module *mod = NULL;
    if (mb_ptx_parse(ptx, strlen(ptx), "clone.ptx", &mod, &err) != MB_OK)
        fail_msg("clone.ptx: %d:%d: %s", err.line, err.col, err.msg);
    return mod;
}

/* The clone PTX parses with the front end (running it is the e2e tests' job). */
static void test_ptx_parses(void **state)
{
    (void)state;
    char *text = loop_profile();
    mb_sprof *p = parse(text);
    mb_clone_model *m = build(p, 1, 1);
    char *ptx = emit_ptx(m);
    mb_module *mod = parse_ptx(ptx);
    /* the clone keeps the kernel's name, its parameters and its blocks */
    assert_non_null(strstr(ptx, ".visible .entry k("));
    assert_non_null(strstr(ptx, ".param .u64 p0"));
    assert_non_null(strstr(ptx, "$Lc1:"));
    /* one load in the loop, addressed inside the 256-byte buffer */
    assert_non_null(strstr(ptx, "ld.global.f32"));
    mb_module_free(mod);
    free(ptx);
    mb_clone_free(m);
    mb_sprof_free(p);
    free(text);
}

static void expect_build_error(const char *text, double r, mb_status want, const char *fragment)
{
    mb_sprof *p = parse(text);
    mb_error err;
    mb_error_clear(&err);
    mb_clone_model *m = NULL;
    assert_int_equal(mb_clone_build(p, r, 1, &m, &err), want);
    assert_null(m);
    if (!strstr(err.msg, fragment))
        fail_msg("message '%s' lacks '%s'", err.msg, fragment);
    mb_sprof_free(p);
}

static void test_refusals(void **state)
{
    (void)state;
    char *text = loop_profile();
    expect_build_error(text, 0.5, MB_ERR_INVALID, "reduction factor 0.5: must be at least 1");
    char *s = replace(text, "\"chain\": \"add.s32 ld.f32 bra\"", "\"chain\": \"tex.f32 ld.f32 bra\"");
    expect_build_error(s, 1, MB_ERR_UNSUPPORTED,
                       "kernel k, block 1 (L1): instruction 0 'tex.f32' has no clone form");
    free(s);
    s = replace(text, "\"chain\": \"add.s32 bra\"", "\"chain\": \"add.s32 add.s32\"");
    expect_build_error(s, 1, MB_ERR_UNSUPPORTED, "block 0 (BB0)");
    free(s);
    free(text);
}

/* The fixture's exit block calls f (no arguments, no result) 64 times;
 * `fchain` is f's one block, `more` further functions. */
static char *call_profile(const char *fchain, const char *more)
{
    char *text = loop_profile();
    char *s = replace(text, "\"chain\": \"ret\"}", "\"chain\": \"call ret\"}");
    free(text);
    char func[1024];
    snprintf(func, sizeof func,
             "\"footprint_lines\": 1}]},\n"
             " {\"name\": \"f\", \"kind\": \"function\", \"calls\": 64,\n"
             "  \"instruction_mix\": {\"classes\": {\"int\": 64, \"ctrl\": 64},\n"
             "                      \"opcodes\": {\"add.s32\": 64, \"ret\": 64}},\n"
             "  \"blocks\": [{\"id\": 0, \"name\": \"F0\", \"ecount\": 64, \"lcount\": 0,\n"
             "    \"scount\": 0, \"threads\": 64, \"warp_execs\": 2, \"entries\": 64, \"exits\": 64,\n"
             "    \"loop\": null, \"instruction_mix\": {\"classes\": {\"int\": 64, \"ctrl\": 64},\n"
             "    \"opcodes\": {\"add.s32\": 64, \"ret\": 64}}, \"chain\": \"%s\"}],\n"
             "  \"edges\": [], \"loops\": [], \"branches\": [], \"memory\": []}%s]}",
             fchain, more);
    text = replace(s, "\"footprint_lines\": 1}]}]}", func);
    free(s);
    return text;
}

/* A called function is cloned as a .func the kernel calls; what the model
 * cannot attribute or reproduce is refused with the kernel and function. */
static void test_calls(void **state)
{
    (void)state;
    char *text = call_profile("add.s32 ret", "");
    mb_sprof *p = parse(text);
    mb_clone_model *m = build(p, 2, 1);
    assert_int_equal(m->nfuncs, 1);
    assert_string_equal(m->funcs[0].kernel, "f");
    assert_null(m->funcs[0].ret_type);
    assert_int_equal(m->funcs[0].nblocks, 1);
    assert_true(fabs(m->funcs[0].expected_ecount[0] - 64) < 1e-9);
    char *ptx = emit_ptx(m);
    mb_module *mod = parse_ptx(ptx);
    assert_non_null(strstr(ptx, ".func f(\n)"));
    assert_non_null(strstr(ptx, "call.uni f, ();"));
    assert_true(strstr(ptx, ".func f(") < strstr(ptx, ".visible .entry k("));
    mb_module_free(mod);
    free(ptx);
    mb_clone_free(m);
    mb_sprof_free(p);
    free(text);

    text = call_profile("call ret", "");
    expect_build_error(text, 1, MB_ERR_UNSUPPORTED, "kernel k: function f calls itself (recursion)");
    free(text);
    char g[700];
    snprintf(g, sizeof g,
             ",\n {\"name\": \"g\", \"kind\": \"function\", \"calls\": 0,\n"
             "  \"instruction_mix\": {\"classes\": {}, \"opcodes\": {}},\n"
             "  \"blocks\": [{\"id\": 0, \"name\": \"G0\", \"ecount\": 0, \"lcount\": 0,\n"
             "    \"scount\": 0, \"threads\": 0, \"warp_execs\": 0, \"entries\": 0, \"exits\": 0,\n"
             "    \"loop\": null, \"instruction_mix\": {\"classes\": {}, \"opcodes\": {}},\n"
             "    \"chain\": \"ret\"}],\n"
             "  \"edges\": [], \"loops\": [], \"branches\": [], \"memory\": []}");
    text = call_profile("add.s32 ret", g);
    expect_build_error(text, 1, MB_ERR_UNSUPPORTED, "calls to 2 functions (f, g)");
    free(text);
    text = loop_profile();
    char *s = replace(text, "\"chain\": \"ret\"}", "\"chain\": \"call ret\"}");
    expect_build_error(s, 1, MB_ERR_UNSUPPORTED, "kernel k: it calls a function the profile holds nothing of");
    free(s);
    free(text);
}

/* The fixture's load turned into a non-affine shared load of a 512-byte
 * array with the bank-conflict degrees `degrees`. */
static char *bank_profile(const char *degrees)
{
    char sectors[160];
    snprintf(sectors, sizeof sectors, "\"sectors_per_request\": {}, \"bank_conflict_degree\": %s", degrees);
    char *loop = loop_profile();
    char *text = replace(loop, "\"sectors_per_request\": {\"4\": 4}", sectors);
    free(loop);
    static const char *const edits[][2] = {
        {"\"space\": \"global\"", "\"space\": \"shared\""},
        {"{\"kind\": \"parameter\", \"index\": 0,\n     \"name\": \"p0\"}", "{\"kind\": \"shared\", \"name\": \"s\"}"},
        {"{\"exact\": true, \"constant\": 0,\n     \"terms\": {\"tid.x\": 4, \"iter.loop0\": 0}}", "{\"exact\": false}"},
        {"\"module_variables\": []",
         "\"module_variables\": [{\"name\": \"s\", \"space\": \"shared\", \"type\": \"b8\", \"bytes\": 512, "
         "\"elements\": 512}]"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
        char *next = replace(text, edits[i][0], edits[i][1]);
        free(text);
        text = next;
    }
    return text;
}

/* A non-affine shared access with mixed degrees gets per-request lane
 * thresholds (a loop no loop encloses: compared with its counter); one
 * power-of-two degree keeps the constant pattern. */
static void test_bank_quotas(void **state)
{
    (void)state;
    char *text = bank_profile("{\"1\": 1, \"2\": 1, \"4\": 2}");
    mb_sprof *p = parse(text);
    for (int r = 1; r <= 2; r++) {
        mb_clone_model *m = build(p, r, 1);
        char *ptx = emit_ptx(m);
        mb_module *mod = parse_ptx(ptx);
        assert_non_null(strstr(ptx, "ld.shared.f32"));
        assert_non_null(strstr(ptx, "%laneid"));
        assert_non_null(strstr(ptx, "bfe.u"));
        assert_non_null(strstr(ptx, "setp.lt.s32"));
        assert_non_null(strstr(ptx, "selp.b32"));
        mb_module_free(mod);
        free(ptx);
        mb_clone_free(m);
    }
    mb_sprof_free(p);
    free(text);

    text = bank_profile("{\"4\": 4}");
    p = parse(text);
    mb_clone_model *m = build(p, 1, 1);
    char *ptx = emit_ptx(m);
    assert_non_null(strstr(ptx, "ld.shared.f32"));
    assert_null(strstr(ptx, "%laneid"));
    free(ptx);
    mb_clone_free(m);
    mb_sprof_free(p);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases_and_counts),
        cmocka_unit_test(test_compare_rule),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_ptx_parses),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_calls),
        cmocka_unit_test(test_bank_quotas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
