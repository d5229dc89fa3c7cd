/* The synth profile loader (JSON and DFSG DOT) and the profile comparison,
 * on a small hand-written profile with hand-computed expectations. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/synth.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "synth_fixture.h"

static const char base_json[] = PROFILE_JSON("0.0", "128", "{\"4\": 4}");

static mb_sprof *parse(const char *text)
{
    mb_error err;
    mb_error_clear(&err);
    mb_sprof *p = NULL;
    mb_status st = mb_sprof_parse_json(text, strlen(text), "k.profile.json", &p, &err);
    if (st != MB_OK)
        fail_msg("%s", err.msg);
    return p;
}

static void test_parse_fields(void **state)
{
    (void)state;
    mb_sprof *p = parse(base_json);
    const mb_sprof_func *f = mb_sprof_kernel(p);
    assert_string_equal(p->kernel, "k");
    assert_int_equal(p->grid[0], 2);
    assert_int_equal(p->threads, 64);
    assert_int_equal(p->nparams, 1);
    assert_true(p->params[0].is_pointer);
    assert_int_equal(p->params[0].buffer_bytes, 256);
    assert_int_equal(f->nblocks, 3);
    assert_int_equal(f->blocks[1].nchain, 3);
    assert_string_equal(f->blocks[1].chain[1], "ld.f32");
    assert_int_equal(f->blocks[1].first_insn, 2);
    assert_int_equal(f->blocks[1].loop, 0);
    assert_int_equal(f->blocks[0].loop, -1);
    assert_non_null(f->blocks[0].dep_start); /* "- 1" */
    assert_int_equal(f->blocks[0].dep_start[0], 0);
    assert_int_equal(f->blocks[0].dep_start[1], 0);
    assert_int_equal(f->blocks[0].dep_start[2], 1);
    assert_int_equal(f->blocks[0].dep[0], 1);
    assert_null(f->blocks[1].dep_start); /* absent: the histogram alone */
    assert_null(f->blocks[0].in_start);
    mb_sprof_free(p);
    /* producers outside the block: the add reads 1.0 or 2.0, and 1.2 */
    char *text = replace(base_json, "\"dependences\": \"- 1\"",
                         "\"dependences\": \"- 1\", \"dependences_in\": \"1.0|2.0,1.2 -\"");
    p = parse(text);
    free(text);
    f = mb_sprof_kernel(p);
    const mb_sprof_block *b0 = &f->blocks[0];
    assert_non_null(b0->in_start);
    assert_int_equal(b0->in_start[0], 0);
    assert_int_equal(b0->in_start[1], 2);
    assert_int_equal(b0->in_start[2], 2);
    assert_int_equal(b0->in_reg[0], 0);
    assert_int_equal(b0->in_reg[1], 2);
    assert_int_equal(b0->in_reg[2], 3);
    assert_int_equal(b0->in_def[1].block, 2);
    assert_int_equal(b0->in_def[1].index, 0);
    assert_int_equal(b0->in_def[2].block, 1);
    assert_int_equal(b0->in_def[2].index, 2);
    assert_int_equal(f->nloops, 1);
    assert_int_equal(f->loops[0].trips.n, 1);
    assert_int_equal(f->loops[0].trips.key[0], 4);
    assert_true(fabs(f->loops[0].mean_trip_count - 4.0) < 1e-9);
    assert_int_equal(f->nmem, 1);
    assert_true(f->mem[0].affine.exact);
    assert_int_equal(f->mem[0].affine.nterms, 2);
    assert_int_equal(f->mem[0].base_index, 0);
    assert_int_equal(f->mem[0].index.load, -1); /* no "index": none */
    assert_int_equal(f->branches[0].taken, 32);
    mb_sprof_free(p);
    /* an indexed address */
    text = replace(base_json, "\"footprint_lines\": 1",
                   "\"footprint_lines\": 1, \"index\": {\"load\": 2, \"load_line\": 11, \"ops\": "
                   "[{\"op\": \"mul.wide.u16\", \"imm\": 4}, {\"op\": \"cvt.u64.u32\"}], "
                   "\"variable\": \"tab\", \"offset\": 8}");
    p = parse(text);
    free(text);
    f = mb_sprof_kernel(p);
    assert_int_equal(f->mem[0].index.load, 2);
    assert_int_equal(f->mem[0].index.nops, 2);
    assert_string_equal(f->mem[0].index.ops[0].op, "mul.wide.u16");
    assert_true(f->mem[0].index.ops[0].has_imm);
    assert_int_equal(f->mem[0].index.ops[0].imm, 4);
    assert_false(f->mem[0].index.ops[1].has_imm);
    assert_string_equal(f->mem[0].index.variable, "tab");
    assert_int_equal(f->mem[0].index.offset, 8);
    mb_sprof_free(p);
}

static void expect_parse_error(const char *text, mb_status want, const char *fragment)
{
    mb_error err;
    mb_error_clear(&err);
    mb_sprof *p = NULL;
    mb_status st = mb_sprof_parse_json(text, strlen(text), "bad.json", &p, &err);
    assert_int_equal(st, want);
    assert_null(p);
    assert_string_equal(err.file, "bad.json");
    if (!strstr(err.msg, fragment))
        fail_msg("message '%s' lacks '%s'", err.msg, fragment);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_parse_error("{\"format\": 1", MB_ERR_PARSE, "");
    expect_parse_error("[]", MB_ERR_INVALID, "must be a JSON object");
    expect_parse_error("{\"format\": \"other\"}", MB_ERR_INVALID, "'format'");
    /* base_json with one text replaced: the error names the place */
    static const struct {
        const char *from, *to, *message;
    } bad[] = {
        {"\"threads\": 64, \"warp_insts\"", "\"threads\": 65, \"warp_insts\"",
         "launch: 'threads' disagrees with grid and block"},
        {"\"ecount\": 128", "\"ecount\": -1", "functions[0].blocks[1]: 'ecount' must be a non-negative"},
        {"\"from\": 1, \"to\": 2", "\"from\": 1, \"to\": 7", "functions[0].edges[3]: 'to' is not a block"},
        {"\"trip_counts\": {\"4\": 32}", "\"trip_counts\": {\"x\": 32}",
         "functions[0].loops[0]: 'trip_counts': entry \"x\""},
        {"\"dependences\": \"- 1\"", "\"dependences\": \"- 1 1\"",
         "functions[0].blocks[0]: 'dependences' has 3 words for 2 chain instructions"},
        {"\"dependences\": \"- 1\"", "\"dependences\": \"- 2\"",
         "'dependences' word 1 ('2') must be '-' or distances 1..1"},
        {"\"dependences\": \"- 1\"", "\"dependences\": \"- 1,\"", "'dependences' word 1 ('1,')"},
        {"\"dependences\": \"- 1\"", "\"dependences\": 7",
         "functions[0].blocks[0]: 'dependences' must be a string"},
        {"\"id\": 1,", "\"id\": 5,", "block ids must be 0, 1, 2"},
        {"\"instruction_mix\": {\"classes\": {\"ctrl\": 64}, \"opcodes\": {\"bra\": 64}}",
         "\"instruction_mix\": 7",
         "functions[0].blocks[2].instruction_mix: must be an object"},
        {"{\"classes\": {\"int\": 236}, ", "{",
         "functions[0].blocks[1].instruction_mix: 'classes' must be an object of counts"},
        {"\"dependences\": \"- 1\"", "\"dependences\": \"- 1\", \"dependences_in\": \"-\"",
         "'dependences_in' has 1 words for 2 chain instructions"},
        {"\"dependences\": \"- 1\"", "\"dependences\": \"- 1\", \"dependences_in\": \"1 -\"",
         "'dependences_in' word 0 ('1') must be '-' or block.index"},
        {"\"dependences\": \"- 1\"", "\"dependences\": \"- 1\", \"dependences_in\": \"1.0| -\"",
         "'dependences_in' word 0 ('1.0|')"},
        {"\"dependences\": \"- 1\"", "\"dependences\": \"- 1\", \"dependences_in\": \"1.3 -\"",
         "'dependences_in' names instruction 1.3, which does not exist"},
        /* an indexed address: each member checked, the place named */
        {"\"footprint_lines\": 1", "\"footprint_lines\": 1, \"index\": 3",
         "functions[0].memory[0]: 'index' must be an object"},
        {"\"footprint_lines\": 1", "\"footprint_lines\": 1, \"index\": {\"ops\": []}",
         "functions[0].memory[0].index: 'load' must be a non-negative integer"},
        {"\"footprint_lines\": 1",
         "\"footprint_lines\": 1, \"index\": {\"load\": 2, \"variable\": \"t\", \"ops\": []}",
         "functions[0].memory[0].index: 'offset' must be an integer"},
        {"\"footprint_lines\": 1",
         "\"footprint_lines\": 1, \"index\": {\"load\": 2, \"variable\": \"t\", \"offset\": 0, "
         "\"ops\": []}",
         "functions[0].memory[0].index: 'ops' must have 1 to 6 steps"},
        {"\"footprint_lines\": 1",
         "\"footprint_lines\": 1, \"index\": {\"load\": 2, \"variable\": \"t\", \"offset\": 0, "
         "\"ops\": [7]}",
         "'ops' steps must be objects"},
        {"\"footprint_lines\": 1",
         "\"footprint_lines\": 1, \"index\": {\"load\": 2, \"variable\": \"t\", \"offset\": 0, "
         "\"ops\": [{\"op\": \"shl.b32\", \"imm\": -2}]}",
         "'ops' immediates must be non-negative integers"},
        {"\"footprint_lines\": 1",
         "\"footprint_lines\": 1, \"index\": {\"load\": 2, \"offset\": 0, "
         "\"ops\": [{\"op\": \"shl.b32\", \"imm\": 2}]}",
         "functions[0].memory[0].index: 'variable'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *s = replace(base_json, bad[i].from, bad[i].to);
        expect_parse_error(s, MB_ERR_INVALID, bad[i].message);
        free(s);
    }
}

/* "inputs" and a pointer's "input": optional, each member checked */
static void test_parse_inputs(void **state)
{
    (void)state;
    /* the end of the pointer parameter and the next key, where both go */
    static const char at[] = "\"offset\": 0}}],\n \"module_variables\"";
    char *s = replace(base_json, at,
                      "\"offset\": 0, \"input\": 0}}],\n \"inputs\": [{\"buffer\": \"a\", "
                      "\"bytes\": 256, \"fnv1a64\": \"0x00ff\"}], \"module_variables\"");
    mb_sprof *p = parse(s);
    free(s);
    assert_int_equal(p->ninputs, 1);
    assert_string_equal(p->inputs[0].buffer, "a");
    assert_int_equal(p->inputs[0].bytes, 256);
    assert_int_equal(p->inputs[0].fnv1a64, 0xff);
    assert_null(p->inputs[0].path); /* from text: no files beside it */
    assert_ptr_equal(p->params[0].input, &p->inputs[0]);
    mb_sprof_free(p);
    p = parse(base_json);
    assert_int_equal(p->ninputs, 0);
    assert_null(p->params[0].input);
    mb_sprof_free(p);

    static const struct {
        const char *ptr, *inputs, *message;
    } bad[] = {
        {"", " \"inputs\": 3,", "inputs: must be an array"},
        {"", " \"inputs\": [{\"buffer\": \"a\", \"fnv1a64\": \"0x1\"}],", "inputs[0]: 'bytes'"},
        {"", " \"inputs\": [{\"bytes\": 1, \"fnv1a64\": \"0x1\"}],", "inputs[0]: 'buffer'"},
        {"", " \"inputs\": [{\"buffer\": \"a\", \"bytes\": 1, \"fnv1a64\": \"12\"}],",
         "inputs[0]: 'fnv1a64' must be a hexadecimal"},
        {"", " \"inputs\": [{\"buffer\": \"a\", \"bytes\": 1, \"fnv1a64\": \"0x1z\"}],",
         "inputs[0]: 'fnv1a64' must be a hexadecimal"},
        {", \"input\": 0", "", "parameters[0]: 'pointer.input' must index 'inputs' (0 entries)"},
        {", \"input\": \"0\"", " \"inputs\": [{\"buffer\": \"a\", \"bytes\": 256, \"fnv1a64\": \"0x1\"}],",
         "'pointer.input' must index 'inputs' (1 entries)"},
        {", \"input\": 0", " \"inputs\": [{\"buffer\": \"b\", \"bytes\": 256, \"fnv1a64\": \"0x1\"}],",
         "'pointer.input' is input 0 (buffer 'b', 256 bytes), not this buffer ('a', 256 bytes)"},
        {", \"input\": 0", " \"inputs\": [{\"buffer\": \"a\", \"bytes\": 255, \"fnv1a64\": \"0x1\"}],",
         "'pointer.input' is input 0 (buffer 'a', 255 bytes)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char to[512];
        snprintf(to, sizeof to, "\"offset\": 0%s}}],\n%s \"module_variables\"", bad[i].ptr, bad[i].inputs);
        s = replace(base_json, at, to);
        expect_parse_error(s, MB_ERR_INVALID, bad[i].message);
        free(s);
    }
}

/* base_json with `model` after the first branch's condition */
static char *with_model(const char *model)
{
    char *to = malloc(strlen(model) + 64);
    sprintf(to, "\"condition\": \"thread/cta id\"%s}],", model);
    char *s = replace(base_json, "\"condition\": \"thread/cta id\"}],", to);
    free(to);
    return s;
}

static void test_parse_condition_model(void **state)
{
    (void)state;
    char *s = with_model(COND_MODEL("false", "ge", "u32", AFFINE_TID_X, AFFINE_16));
    mb_sprof *p = parse(s);
    const mb_cond_model *m = mb_sprof_kernel(p)->branches[0].model;
    assert_non_null(m);
    assert_true(m->exact);
    assert_false(m->negate);
    assert_int_equal(m->expr->op, MB_COND_CMP);
    assert_string_equal(m->expr->cmp, "ge");
    assert_string_equal(m->expr->type, "u32");
    assert_int_equal(m->expr->line, 9);
    assert_int_equal(m->expr->a.nterms, 1);
    assert_string_equal(m->expr->a.var[0], "tid.x");
    assert_int_equal(m->expr->b.constant, 16);
    mb_buf text = MB_BUF_INIT;
    mb_cond_format(m, &text);
    assert_string_equal(text.data, "ge.u32(tid.x, 16)");
    mb_buf_free(&text);
    mb_sprof_free(p);
    free(s);
    /* absent: no model */
    p = parse(base_json);
    assert_null(mb_sprof_kernel(p)->branches[0].model);
    mb_sprof_free(p);

    static const struct {
        const char *model, *message;
    } bad[] = {
        {", \"condition_model\": 3", "functions[0].branches[0]: 'condition_model' must be an object"},
        {", \"condition_model\": {\"exact\": true, \"expr\": {\"op\": \"nand\"}}",
         "'op' must be cmp, and, or, xor or not"},
        {", \"condition_model\": {\"exact\": true, \"expr\": {\"op\": \"and\", \"args\": [{}]}}",
         "and/or/xor take two arguments"},
        {", \"condition_model\": {\"exact\": true}", "every node must be an object"},
        {COND_MODEL("false", "ge", "u32", AFFINE_TID_X, "7"), "'b' must be an object"},
        {COND_MODEL("false", "ge", "u32", AFFINE_TID_X, "{\"exact\": true, \"constant\": 1.5}"),
         "'b.constant' must be an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s = with_model(bad[i].model);
        expect_parse_error(s, MB_ERR_INVALID, bad[i].message);
        free(s);
    }
    /* a hostile depth is refused, not recursed into */
    char deep[4096] = ", \"condition_model\": {\"exact\": true, \"expr\": ";
    for (int i = 0; i < 70; i++)
        strcat(deep, "{\"op\": \"not\", \"args\": [");
    strcat(deep, "{}");
    for (int i = 0; i < 70; i++)
        strcat(deep, "]}");
    strcat(deep, "}");
    s = with_model(deep);
    expect_parse_error(s, MB_ERR_INVALID, "more than 64 nodes");
    free(s);
}

static void test_dfsg_check(void **state)
{
    (void)state;
    mb_sprof *p = parse(base_json);
    mb_error err;
    mb_error_clear(&err);
    mb_dfsg_graph *g = NULL;
    assert_int_equal(mb_dfsg_read_dot(profile_dot, strlen(profile_dot), "k.dot", &g, &err), MB_OK);
    assert_int_equal(g->nnodes, 3);
    assert_int_equal(g->nedges, 4);
    assert_int_equal(mb_sprof_check_dfsg(p, g, "k.dot", &err), MB_OK);
    mb_dfsg_graph_free(g);

    /* a DFSG whose counts disagree with the JSON is refused, naming the node */
    char *dot = replace(profile_dot, "ecount=128", "ecount=127");
    assert_int_equal(mb_dfsg_read_dot(dot, strlen(dot), "k.dot", &g, &err), MB_OK);
    assert_int_equal(mb_sprof_check_dfsg(p, g, "k.dot", &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "node 'L1' (block 1) disagrees"));
    mb_dfsg_graph_free(g);
    free(dot);

    dot = replace(profile_dot, "L1 -> BB2 [oecount=32", "L1 -> BB2 [oecount=31");
    assert_int_equal(mb_dfsg_read_dot(dot, strlen(dot), "k.dot", &g, &err), MB_OK);
    assert_int_equal(mb_sprof_check_dfsg(p, g, "k.dot", &err), MB_ERR_INVALID);
    assert_non_null(strstr(err.msg, "edge 1 -> 2: counts 31/32 in the DFSG, 32/32"));
    mb_dfsg_graph_free(g);
    free(dot);

    dot = replace(profile_dot, "ecount=64, lcount=0, scount=0, threads=64, warp_execs=2, chain=ret",
                  "ecount=x");
    assert_int_equal(mb_dfsg_read_dot(dot, strlen(dot), "k.dot", &g, &err), MB_ERR_PARSE);
    assert_non_null(strstr(err.msg, "node 'BB2'"));
    free(dot);
    assert_int_equal(mb_dfsg_read_dot("not dot", 7, "k.dot", &g, &err), MB_ERR_PARSE);
    assert_int_equal(mb_dfsg_read_dot("digraph g { a -> b }", 20, "k.dot", &g, &err),
                     MB_ERR_INVALID);
    mb_sprof_free(p);
}

static void test_load_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/mb_synth_prof_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char json_path[200], dot_path[200], prefix[64];
    snprintf(prefix, sizeof prefix, "%s/k.0", dir);
    snprintf(json_path, sizeof json_path, "%s.profile.json", prefix);
    snprintf(dot_path, sizeof dot_path, "%s.dfsg.dot", prefix);
    mb_error err;
    mb_error_clear(&err);
    mb_sprof *p = NULL;
    assert_int_equal(mb_sprof_load(prefix, &p, &err), MB_ERR_IO);
    assert_non_null(strstr(err.file, "k.0.profile.json"));
    assert_int_equal(mb_write_file_atomic(json_path, base_json, strlen(base_json), &err), MB_OK);
    assert_int_equal(mb_sprof_load(prefix, &p, &err), MB_ERR_IO);
    assert_non_null(strstr(err.file, "k.0.dfsg.dot"));
    assert_int_equal(mb_write_file_atomic(dot_path, profile_dot, strlen(profile_dot), &err), MB_OK);
    assert_int_equal(mb_sprof_load(json_path, &p, &err), MB_OK);
    assert_string_equal(p->path, prefix);
    mb_sprof_free(p);
    unlink(json_path);
    unlink(dot_path);
    rmdir(dir);
}

static void test_compare_self_is_zero(void **state)
{
    (void)state;
    mb_sprof *a = parse(base_json), *b = parse(base_json);
    mb_compare_tolerance tol = mb_compare_default_tolerance(1);
    mb_buf text = MB_BUF_INIT, json = MB_BUF_INIT;
    char viol[256];
    mb_error err;
    assert_int_equal(mb_sprof_compare(a, b, &tol, &text, &json, viol, sizeof viol, &err), MB_OK);
    assert_string_equal(viol, "");
    assert_non_null(strstr(text.data, "CFG                    same"));
    assert_non_null(strstr(text.data, "all statistics within tolerance"));
    assert_non_null(strstr(json.data, "\"cfg_equal\": true"));
    assert_non_null(strstr(json.data, "\"violations\": []"));
    assert_non_null(strstr(json.data, "\"at_resolution\": []"));
    mb_buf_free(&text);
    mb_buf_free(&json);
    mb_sprof_free(a);
    mb_sprof_free(b);
}

static void expect_violation(const char *clone_json, double r, const char *fragment)
{
    mb_sprof *a = parse(base_json), *b = parse(clone_json);
    mb_compare_tolerance tol = mb_compare_default_tolerance(r);
    char viol[512];
    mb_error err;
    assert_int_equal(mb_sprof_compare(a, b, &tol, NULL, NULL, viol, sizeof viol, &err), MB_OK);
    if (!strstr(viol, fragment))
        fail_msg("violation '%s' lacks '%s'", viol, fragment);
    mb_sprof_free(a);
    mb_sprof_free(b);
}

/* Compares clone_json with original_json at R = 1; returns the text report
 * and fills viol with the first violation. */
static char *compare_text(const char *original_json, const char *clone_json, char *viol, size_t n)
{
    mb_sprof *a = parse(original_json), *b = parse(clone_json);
    mb_compare_tolerance tol = mb_compare_default_tolerance(1);
    mb_buf text = MB_BUF_INIT;
    mb_error err;
    assert_int_equal(mb_sprof_compare(a, b, &tol, &text, NULL, viol, n, &err), MB_OK);
    mb_sprof_free(a);
    mb_sprof_free(b);
    return text.data;
}

/* A statistic over fewer events than its tolerance resolves passes when it
 * is as near as that many events can be, and the check says so. */
static void test_compare_resolution(void **state)
{
    (void)state;
    char viol[512];
    /* 0.25 of 2 warp executions: 0 or 0.5 are the nearest (25 points off) */
    const char *orig = PROFILE_JSON("0.25", "128", "{\"4\": 4}");
    char *text = compare_text(orig, base_json, viol, sizeof viol);
    assert_string_equal(viol, "");
    assert_non_null(strstr(text, "within tolerance only as near as their counts allow:\n"
                                 "  branch in block 0 (line 10): divergence fraction 0.2500 vs "
                                 "0.0000 (-25.0 points: as near as 2 warp executions can be)"));
    free(text);
    text = compare_text(orig, PROFILE_JSON("0.75", "128", "{\"4\": 4}"), viol, sizeof viol);
    assert_non_null(strstr(viol, "divergence fraction 0.2500 vs 0.7500 (+50.0 points, tolerance 2.0)"));
    free(text);
    /* one request in 16 at 8 sectors: 8 requests come within 1/16 at best */
    orig = PROFILE_JSON("0.0", "128", "{\"4\": 15, \"8\": 1}");
    const char *near[] = {PROFILE_JSON("0.0", "128", "{\"4\": 8}"),
                          PROFILE_JSON("0.0", "128", "{\"4\": 7, \"8\": 1}")};
    for (int k = 0; k < 2; k++) {
        text = compare_text(orig, near[k], viol, sizeof viol);
        assert_string_equal(viol, "");
        assert_non_null(strstr(text, "sectors-per-request distributions differ by 6.2% (mean 4.250 vs "));
        assert_non_null(strstr(text, ": as near as 8 requests can be)"));
        free(text);
    }
    text = compare_text(orig, PROFILE_JSON("0.0", "128", "{\"4\": 6, \"8\": 2}"), viol, sizeof viol);
    assert_non_null(strstr(viol, "sectors-per-request distributions differ by 18.8% (mean 4.250 vs "
                                 "5.000, tolerance 5%)"));
    free(text);
    /* 32 requests can match the shares exactly: 1/16 off is a violation */
    text = compare_text(orig, PROFILE_JSON("0.0", "128", "{\"4\": 28, \"8\": 4}"), viol, sizeof viol);
    assert_non_null(strstr(viol, "differ by 6.2% (mean 4.250 vs 4.500, tolerance 5%)"));
    free(text);
}

static void test_compare_reports_differences(void **state)
{
    (void)state;
    /* 3 points more divergence: over the 2-point tolerance */
    expect_violation(PROFILE_JSON("0.03", "128", "{\"4\": 4}"), 1,
                     "branch in block 0 (line 10): divergence fraction 0.0000 vs 0.0300 (+3.0 "
                     "points, tolerance 2.0)");
    /* within tolerance: 1 point */
    expect_violation(PROFILE_JSON("0.01", "128", "{\"4\": 4}"), 1, "");
    /* loop block at R = 2: expected 32 threads x 2 trips = 64; 80 is +25% */
    expect_violation(PROFILE_JSON("0.0", "80", "{\"4\": 4}"), 2,
                     "block 1 (L1): ECount 80 vs expected 64 (+25.0%, tolerance 10%)");
    expect_violation(PROFILE_JSON("0.0", "66", "{\"4\": 4}"), 2, "");
    /* sectors: half the requests at 8 sectors instead of 4: TV distance 50% */
    expect_violation(PROFILE_JSON("0.0", "128", "{\"4\": 2, \"8\": 2}"), 1,
                     "sectors-per-request distributions differ by 50.0% (mean 4.000 vs 6.000");
    char *s = replace(base_json, "\"int\": 300, \"ctrl\": 100", "\"int\": 280, \"ctrl\": 120");
    expect_violation(s, 1, "instruction mix: int 75.00% vs 70.00% (-5.00 points, tolerance 2)");
    free(s);
    s = replace(base_json, "\"thread_insts\": 400", "\"thread_insts\": 420");
    expect_violation(s, 1, "thread instructions 400 vs 420 (+5.00%, tolerance 2% at R = 1)");
    free(s);
    s = replace(base_json, "{\"from\": 0, \"to\": 2, \"count\": 32", "{\"from\": 0, \"to\": 0, \"count\": 32");
    expect_violation(s, 1, "CFG differs: edge 0 -> 2 missing in B");
    free(s);
}

/* At R = 2 the loop block weighs half: A's mix as its clone should run it
 * is int 64 + 236 / 2 = 182 and ctrl 36 + 64 = 100 (64.54%, 35.46%), which
 * B is held to; A's own 75% is only shown. */
static void test_compare_mix_at_reduction(void **state)
{
    (void)state;
    mb_sprof *a = parse(base_json);
    char *s = replace(PROFILE_JSON("0.0", "64", "{\"4\": 4}"), "\"int\": 300, \"ctrl\": 100",
                      "\"int\": 182, \"ctrl\": 100");
    mb_sprof *b = parse(s);
    mb_compare_tolerance tol = mb_compare_default_tolerance(2);
    mb_buf text = MB_BUF_INIT, json = MB_BUF_INIT;
    char viol[512];
    mb_error err;
    assert_int_equal(mb_sprof_compare(a, b, &tol, &text, &json, viol, sizeof viol, &err), MB_OK);
    assert_string_equal(viol, "");
    assert_non_null(strstr(text.data, "name                   A    A at R         B     diff"));
    assert_non_null(strstr(text.data, "int               75.000    64.539    64.539   +0.000"));
    assert_non_null(strstr(json.data, "\"percent_a_at_r\": 64.539"));
    mb_buf_free(&text);
    mb_buf_free(&json);
    mb_sprof_free(b);
    free(s);
    /* the clone running A's own proportions has too many int instructions */
    expect_violation(PROFILE_JSON("0.0", "64", "{\"4\": 4}"), 2,
                     "instruction mix: int 64.54% vs 75.00% (+10.46 points, tolerance 2) at the "
                     "reduction");
    /* at R = 1 there is no such column: A's own mix is the expectation */
    b = parse(base_json);
    tol = mb_compare_default_tolerance(1);
    text = (mb_buf)MB_BUF_INIT;
    assert_int_equal(mb_sprof_compare(a, b, &tol, &text, NULL, viol, sizeof viol, &err), MB_OK);
    assert_null(strstr(text.data, "A at R"));
    mb_buf_free(&text);
    mb_sprof_free(b);
    mb_sprof_free(a);
}

static void test_expected_ecount(void **state)
{
    (void)state;
    mb_sprof *a = parse(base_json);
    assert_true(fabs(mb_sprof_expected_ecount(a, 1, 1) - 128) < 1e-9);
    assert_true(fabs(mb_sprof_expected_ecount(a, 1, 2) - 64) < 1e-9);
    assert_true(fabs(mb_sprof_expected_ecount(a, 1, 3) - 32) < 1e-9); /* floor(4/3) = 1 */
    assert_true(fabs(mb_sprof_expected_ecount(a, 1, 8) - 32) < 1e-9); /* at least 1 */
    assert_true(fabs(mb_sprof_expected_ecount(a, 1, 0) - 32) < 1e-9); /* max */
    assert_true(fabs(mb_sprof_expected_ecount(a, 0, 8) - 64) < 1e-9); /* outside loops */
    mb_sprof_free(a);
    /* trips 1, 2, 3 and 6 in every warp (SIMD efficiency 3/6): at R = 2 each
     * is halved (1, 1, 1, 3), but the loop never goes below 2 iterations,
     * the fewest that keep its efficiency: beyond R = 3, trips 1, 1, 1, 2 */
    char *t1 = replace(base_json, "\"trip_counts\": {\"4\": 32}",
                       "\"trip_counts\": {\"1\": 8, \"2\": 8, \"3\": 8, \"6\": 8}");
    char *t2 = replace(t1, "\"warp_activations_with_differing_trips\": 0",
                       "\"warp_activations_with_differing_trips\": 1");
    a = parse(t2);
    assert_true(fabs(mb_sprof_expected_ecount(a, 1, 2) - 128.0 * 48 / 96) < 1e-9);
    assert_true(fabs(mb_sprof_expected_ecount(a, 1, 8) - 128.0 * 40 / 96) < 1e-9);
    assert_true(fabs(mb_sprof_expected_ecount(a, 1, 0) - 128.0 * 40 / 96) < 1e-9);
    mb_sprof_free(a);
    /* the same trips in warps that do not mix them: every trip 1 at max */
    a = parse(t1);
    assert_true(fabs(mb_sprof_expected_ecount(a, 1, 0) - 128.0 * 32 / 96) < 1e-9);
    mb_sprof_free(a);
    free(t1);
    free(t2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_fields),      cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_condition_model), cmocka_unit_test(test_parse_inputs),
        cmocka_unit_test(test_dfsg_check),        cmocka_unit_test(test_load_files),
        cmocka_unit_test(test_compare_self_is_zero),
        cmocka_unit_test(test_compare_reports_differences),
        cmocka_unit_test(test_compare_resolution),
        cmocka_unit_test(test_compare_mix_at_reduction),
        cmocka_unit_test(test_expected_ecount),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
