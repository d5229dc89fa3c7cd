/* Condition models of branches (profile JSON condition_model): the guard's
 * tree within its block and exact affine models of the integer operands,
 * on hand-made kernels with hand-computed expectations. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/profiler.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER ".version 8.8\n.target sm_75\n.address_size 64\n"

#include "profile_fixture.h"
#include "../../profiler/src/prof_cond.h"

/* The kernel's JSON profile of the manifest's only launch. */
static json_t *profile(const char *ptx, const char *manifest_json)
{
    profiled r;
    profile_text(&r, ptx, "cond.ptx", manifest_json, 0);
    json_t *root = json_incref(r.json);
    profiled_free(&r);
    return root;
}

/* The line of the first occurrence of `text` in `ptx`. */
static int line_of(const char *ptx, const char *text)
{
    const char *at = strstr(ptx, text);
    if (!at)
        fail_msg("no '%s' in the kernel", text);
    int line = 1;
    for (const char *c = ptx; c < at; c++)
        line += *c == '\n';
    return line;
}

/* The condition model of the kernel's branch at PTX line `line` (NULL when
 * it has none). */
static json_t *model_at(json_t *root, int line)
{
    json_t *branches = json_object_get(json_array_get(json_object_get(root, "functions"), 0), "branches");
    for (size_t i = 0; i < json_array_size(branches); i++) {
        json_t *b = json_array_get(branches, i);
        if (json_integer_value(json_object_get(b, "line")) == line)
            return json_object_get(b, "condition_model");
    }
    fail_msg("no branch at line %d", line);
    return NULL;
}

static int is_true(json_t *o, const char *key)
{
    return json_is_true(json_object_get(o, key));
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s)
        fail_msg("missing string '%s'", key);
    return s;
}

static json_t *arg(json_t *node, size_t i)
{
    return json_array_get(json_object_get(node, "args"), i);
}

/* An exact operand with this constant and these terms (name, coefficient
 * pairs, NULL-terminated) and no others. */
static void check_operand(json_t *o, long long constant, ...)
{
    assert_true(is_true(o, "exact"));
    assert_int_equal(json_integer_value(json_object_get(o, "constant")), constant);
    json_t *terms = json_object_get(o, "terms");
    va_list ap;
    va_start(ap, constant);
    size_t n = 0;
    for (const char *name; (name = va_arg(ap, const char *)) != NULL; n++) {
        long long coef = va_arg(ap, long long);
        json_t *t = json_object_get(terms, name);
        if (!t)
            fail_msg("no term %s", name);
        assert_int_equal(json_integer_value(t), coef);
    }
    va_end(ap);
    assert_int_equal(json_object_size(terms), n);
}

static void check_keys(json_t *o, const char *const *keys)
{
    size_t n = 0;
    for (; keys[n]; n++)
        if (!json_object_get(o, keys[n]))
            fail_msg("no key %s", keys[n]);
    assert_int_equal(json_object_size(o), n);
}

/* (a) a 2-D bounds check: row = 16 ctaid.y + tid.y + 3 against parameter
 * m, or'ed with col = 16 ctaid.x + tid.x against parameter n. */
static const char *bounds_ptx =
    HEADER ".visible .entry k(.param .u64 out, .param .u32 m, .param .u32 n)\n{\n"
    "\t.reg .pred %p<4>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r1, [m];\n\tld.param.u32 %r2, [n];\n"
    "\tmov.u32 %r3, %ctaid.y;\n\tmov.u32 %r4, %tid.y;\n\tmad.lo.s32 %r5, %r3, 16, %r4;\n"
    "\tadd.s32 %r5, %r5, 3;\n"
    "\tmov.u32 %r6, %ctaid.x;\n\tmov.u32 %r7, %tid.x;\n\tmad.lo.s32 %r8, %r6, 16, %r7;\n"
    "\tsetp.ge.s32 %p1, %r5, %r1;\n"
    "\tsetp.ge.s32 %p2, %r8, %r2;\n"
    "\tor.pred %p3, %p1, %p2;\n"
    "\t@%p3 bra $L_end;\n"
    "\tmad.lo.s32 %r9, %r5, %r2, %r8;\n\tmul.wide.s32 %rd2, %r9, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
    "\tst.global.u32 [%rd3], %r9;\n"
    "$L_end:\n\tret;\n}\n";

static void test_bounds_check(void **state)
{
    (void)state;
    json_t *root = profile(bounds_ptx,
                           "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 4096}},"
                           " \"launches\": [{\"kernel\": \"k\", \"grid\": [3, 3], \"block\": [16, 16],"
                           " \"args\": [\"o\", 37, 45]}]}");
    json_t *cm = model_at(root, line_of(bounds_ptx, "@%p3 bra"));
    assert_non_null(cm);
    static const char *const model_keys[] = {"exact", "negate", "expr", NULL};
    check_keys(cm, model_keys);
    assert_true(is_true(cm, "exact"));
    assert_false(is_true(cm, "negate"));
    json_t *expr = json_object_get(cm, "expr");
    static const char *const node_keys[] = {"op", "args", NULL};
    check_keys(expr, node_keys);
    assert_string_equal(str(expr, "op"), "or");
    assert_int_equal(json_array_size(json_object_get(expr, "args")), 2);
    json_t *row = arg(expr, 0), *col = arg(expr, 1);
    static const char *const leaf_keys[] = {"op", "insn", "line", "cmp", "type", "a", "b", NULL};
    check_keys(row, leaf_keys);
    assert_string_equal(str(row, "op"), "cmp");
    assert_string_equal(str(row, "cmp"), "ge");
    assert_string_equal(str(row, "type"), "s32");
    assert_int_equal(json_integer_value(json_object_get(row, "line")), line_of(bounds_ptx, "setp.ge.s32 %p1"));
    assert_int_equal(json_integer_value(json_object_get(row, "insn")), 10);
    assert_int_equal(json_integer_value(json_object_get(col, "line")), line_of(bounds_ptx, "setp.ge.s32 %p2"));
    static const char *const operand_keys[] = {"exact", "constant", "terms", NULL};
    check_keys(json_object_get(row, "a"), operand_keys);
    check_operand(json_object_get(row, "a"), 3, "tid.y", 1LL, "ctaid.y", 16LL, NULL);
    check_operand(json_object_get(row, "b"), 37, NULL);
    check_operand(json_object_get(col, "a"), 0, "tid.x", 1LL, "ctaid.x", 16LL, NULL);
    check_operand(json_object_get(col, "b"), 45, NULL);
    /* the writer's text reads back to the same object */
    char *text = json_dumps(cm, JSON_PRESERVE_ORDER);
    json_t *again = json_loads(text, 0, NULL);
    assert_true(json_equal(cm, again));
    json_decref(again);
    free(text);
    json_decref(root);
}

/* (b) a loop whose body has if (16 i + tid.x < n), and its latch i < 4. */
static const char *loop_ptx =
    HEADER ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
    "\t.reg .pred %p<4>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r2, [n];\n"
    "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r3, 0;\n\tmov.u32 %r6, 0;\n"
    "$L_loop:\n"
    "\tmad.lo.s32 %r4, %r3, 16, %r1;\n"
    "\tsetp.ge.s32 %p1, %r4, %r2;\n"
    "\t@%p1 bra $L_skip;\n"
    "\tadd.s32 %r6, %r6, %r4;\n"
    "$L_skip:\n"
    "\tadd.s32 %r3, %r3, 1;\n"
    "\tsetp.lt.s32 %p2, %r3, 4;\n"
    "\t@%p2 bra $L_loop;\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r6;\n"
    "\tret;\n}\n";

static void test_loop_iteration(void **state)
{
    (void)state;
    json_t *root = profile(loop_ptx, "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 64}},"
                                     " \"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 64,"
                                     " \"args\": [\"o\", 50]}]}");
    json_t *cm = model_at(root, line_of(loop_ptx, "@%p1 bra"));
    assert_true(is_true(cm, "exact"));
    json_t *leaf = json_object_get(cm, "expr");
    assert_string_equal(str(leaf, "cmp"), "ge");
    check_operand(json_object_get(leaf, "a"), 0, "tid.x", 1LL, "iter.loop0", 16LL, NULL);
    check_operand(json_object_get(leaf, "b"), 50, NULL);
    json_t *latch = json_object_get(model_at(root, line_of(loop_ptx, "@%p2 bra")), "expr");
    assert_string_equal(str(latch, "cmp"), "lt");
    check_operand(json_object_get(latch, "a"), 1, "iter.loop0", 1LL, NULL);
    check_operand(json_object_get(latch, "b"), 4, NULL);
    json_decref(root);
}

/* (b') a wavefront's `0 <= k - t < 32` folded into one unsigned
 * comparison, `k - t > 31` as u32: k - t goes below zero for the lanes the
 * step has not reached, which an unsigned fit cannot follow. The model is
 * exact modulo 2^32 (the constant -5, not 2^32 - 5), as the clone's 32-bit
 * registers evaluate it. */
static const char *unsigned_wrap_ptx =
    HEADER ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .pred %p<4>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r3, 0;\n\tmov.u32 %r6, 0;\n"
    "$L_loop:\n"
    "\tsub.s32 %r4, %r3, %r1;\n"
    "\tadd.s32 %r5, %r4, -5;\n"
    "\tsetp.gt.u32 %p1, %r5, 31;\n"
    "\t@%p1 bra $L_skip;\n"
    "\tadd.s32 %r6, %r6, %r4;\n"
    "$L_skip:\n"
    "\tadd.s32 %r3, %r3, 1;\n"
    "\tsetp.lt.s32 %p2, %r3, 40;\n"
    "\t@%p2 bra $L_loop;\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r6;\n"
    "\tret;\n}\n";

static void test_unsigned_wrap(void **state)
{
    (void)state;
    json_t *root = profile(unsigned_wrap_ptx, "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 32}},"
                                              " \"launches\": [{\"kernel\": \"k\", \"grid\": 1,"
                                              " \"block\": 32, \"args\": [\"o\"]}]}");
    json_t *cm = model_at(root, line_of(unsigned_wrap_ptx, "@%p1 bra"));
    assert_non_null(cm);
    assert_true(is_true(cm, "exact"));
    json_t *leaf = json_object_get(cm, "expr");
    assert_string_equal(str(leaf, "cmp"), "gt");
    assert_string_equal(str(leaf, "type"), "u32");
    check_operand(json_object_get(leaf, "a"), -5, "tid.x", -1LL, "iter.loop0", 1LL, NULL);
    check_operand(json_object_get(leaf, "b"), 31, NULL);
    json_decref(root);
}

/* (c) data against a constant, (d) a float comparison, (f) @!p. */
static const char *data_ptx =
    HEADER ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
    "\t.reg .pred %p<4>;\n\t.reg .b32 %r<12>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<8>;\n"
    "\tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd4, [in];\n"
    "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd5, %rd4, %rd2;\n"
    "\tld.global.u32 %r2, [%rd5];\n\tmov.u32 %r6, 0;\n"
    "\tsetp.gt.s32 %p1, %r2, 50;\n"
    "\t@%p1 bra $L_a;\n"
    "\tadd.s32 %r6, %r6, 1;\n"
    "$L_a:\n"
    "\tcvt.rn.f32.u32 %f1, %r1;\n\tcvt.rn.f32.u32 %f2, %r2;\n"
    "\tsetp.lt.f32 %p2, %f1, %f2;\n"
    "\t@%p2 bra $L_b;\n"
    "\tadd.s32 %r6, %r6, 2;\n"
    "$L_b:\n"
    "\tsetp.lt.u32 %p3, %r1, 20;\n"
    "\t@!%p3 bra $L_c;\n"
    "\tadd.s32 %r6, %r6, 4;\n"
    "$L_c:\n"
    "\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r6;\n"
    "\tret;\n}\n";

static void test_data_float_negate(void **state)
{
    (void)state;
    json_t *root = profile(data_ptx,
                           "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 64},"
                           " \"i\": {\"type\": \"u32\", \"count\": 64,"
                           " \"init\": {\"kind\": \"random\", \"seed\": 3, \"min\": 0, \"max\": 100}}},"
                           " \"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 64,"
                           " \"args\": [\"o\", \"i\"]}]}");
    json_t *data = model_at(root, line_of(data_ptx, "@%p1 bra"));
    assert_false(is_true(data, "exact"));
    json_t *leaf = json_object_get(data, "expr");
    assert_string_equal(str(leaf, "op"), "cmp");
    json_t *a = json_object_get(leaf, "a");
    assert_false(is_true(a, "exact"));
    assert_int_equal(json_object_size(a), 1); /* {"exact": false} */
    check_operand(json_object_get(leaf, "b"), 50, NULL);

    json_t *flt = model_at(root, line_of(data_ptx, "@%p2 bra"));
    assert_non_null(flt);
    assert_false(is_true(flt, "exact"));
    leaf = json_object_get(flt, "expr");
    assert_string_equal(str(leaf, "type"), "f32");
    assert_string_equal(str(leaf, "cmp"), "lt");
    assert_false(is_true(json_object_get(leaf, "a"), "exact"));
    assert_false(is_true(json_object_get(leaf, "b"), "exact"));

    json_t *neg = model_at(root, line_of(data_ptx, "@!%p3 bra"));
    assert_true(is_true(neg, "negate"));
    assert_true(is_true(neg, "exact"));
    leaf = json_object_get(neg, "expr");
    assert_string_equal(str(leaf, "cmp"), "lt");
    assert_string_equal(str(leaf, "type"), "u32");
    check_operand(json_object_get(leaf, "a"), 0, "tid.x", 1LL, NULL);
    check_operand(json_object_get(leaf, "b"), 20, NULL);
    json_decref(root);
}

/* (e) a guard from a dominating block: a model; no model for a guarded
 * setp; (g) a setp's .and combine and the q of a p|q destination. */
static const char *forms_ptx =
    HEADER ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .pred %p<8>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r6, 0;\n"
    "\tsetp.lt.u32 %p1, %r1, 8;\n"
    "\tsetp.gt.u32 %p5, %r1, 3;\n"
    "\t@%p5 bra $L_a;\n"
    "\tadd.s32 %r6, %r6, 1;\n"
    "$L_a:\n"
    "\t@%p1 bra $L_b;\n"
    "\tadd.s32 %r6, %r6, 2;\n"
    "$L_b:\n"
    "\tsetp.lt.u32 %p2, %r1, 16;\n"
    "\t@%p2 setp.gt.u32 %p2, %r1, 2;\n"
    "\t@%p2 bra $L_c;\n"
    "\tadd.s32 %r6, %r6, 4;\n"
    "$L_c:\n"
    "\tsetp.lt.u32 %p3, %r1, 24;\n"
    "\tsetp.ge.and.u32 %p4, %r1, 5, %p3;\n"
    "\t@%p4 bra $L_d;\n"
    "\tadd.s32 %r6, %r6, 8;\n"
    "$L_d:\n"
    "\tsetp.lt.u32 %p6|%p7, %r1, 12;\n"
    "\t@%p7 bra $L_e;\n"
    "\tadd.s32 %r6, %r6, 16;\n"
    "$L_e:\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r6;\n"
    "\tret;\n}\n";

static void test_forms(void **state)
{
    (void)state;
    json_t *root = profile(forms_ptx, "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 32}},"
                                      " \"launches\": [{\"kernel\": \"k\", \"grid\": 1, \"block\": 32,"
                                      " \"args\": [\"o\"]}]}");
    assert_non_null(model_at(root, line_of(forms_ptx, "@%p5 bra")));
    json_t *reused = model_at(root, line_of(forms_ptx, "@%p1 bra"));
    assert_true(is_true(reused, "exact"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(reused, "expr"), "line")),
                     line_of(forms_ptx, "setp.lt.u32 %p1"));
    assert_null(model_at(root, line_of(forms_ptx, "@%p2 bra")));

    json_t *cm = model_at(root, line_of(forms_ptx, "@%p4 bra"));
    assert_true(is_true(cm, "exact"));
    json_t *expr = json_object_get(cm, "expr");
    assert_string_equal(str(expr, "op"), "and");
    assert_string_equal(str(arg(expr, 0), "cmp"), "ge");
    check_operand(json_object_get(arg(expr, 0), "b"), 5, NULL);
    assert_string_equal(str(arg(expr, 1), "cmp"), "lt");
    check_operand(json_object_get(arg(expr, 1), "b"), 24, NULL);

    cm = model_at(root, line_of(forms_ptx, "@%p7 bra"));
    assert_true(is_true(cm, "exact"));
    expr = json_object_get(cm, "expr");
    assert_string_equal(str(expr, "op"), "not");
    assert_int_equal(json_array_size(json_object_get(expr, "args")), 1);
    assert_string_equal(str(arg(expr, 0), "cmp"), "lt");
    check_operand(json_object_get(arg(expr, 0), "a"), 0, "tid.x", 1LL, NULL);
    json_decref(root);
}

/* Values that repeat what earlier iterations of the same warp showed but
 * for one lane once (16 i + tid.x, plus 1 in lane 7 of iteration 5), or
 * that move with the iteration other than linearly (i * i): no exact model,
 * however many executions agreed before. */
static const char *repeat_ptx =
    HEADER ".visible .entry k(.param .u64 out)\n{\n"
    "\t.reg .pred %p<8>;\n\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r3, 0;\n\tmov.u32 %r6, 0;\n"
    "$L_loop:\n"
    "\tsetp.eq.u32 %p1, %r3, 5;\n\tsetp.eq.u32 %p2, %r1, 7;\n\tand.pred %p3, %p1, %p2;\n"
    "\tselp.u32 %r7, 1, 0, %p3;\n"
    "\tmad.lo.s32 %r4, %r3, 16, %r1;\n\tadd.s32 %r5, %r4, %r7;\n\tmul.lo.s32 %r8, %r3, %r3;\n"
    "\tadd.s32 %r8, %r8, %r1;\n"
    "\tsetp.ge.s32 %p4, %r4, 100;\n\t@%p4 bra $L_a;\n"
    "\tadd.s32 %r6, %r6, 1;\n"
    "$L_a:\n"
    "\tsetp.ge.s32 %p5, %r5, 100;\n\t@%p5 bra $L_b;\n"
    "\tadd.s32 %r6, %r6, 2;\n"
    "$L_b:\n"
    "\tsetp.ge.s32 %p6, %r8, 100;\n\t@%p6 bra $L_c;\n"
    "\tadd.s32 %r6, %r6, 4;\n"
    "$L_c:\n"
    "\tadd.s32 %r3, %r3, 1;\n\tsetp.lt.u32 %p7, %r3, 12;\n\t@%p7 bra $L_loop;\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r6;\n"
    "\tret;\n}\n";

static void test_repeats_checked(void **state)
{
    (void)state;
    json_t *root = profile(repeat_ptx, "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 64}},"
                                       " \"launches\": [{\"kernel\": \"k\", \"grid\": 2, \"block\": 64,"
                                       " \"args\": [\"o\"]}]}");
    json_t *clean = json_object_get(model_at(root, line_of(repeat_ptx, "@%p4 bra")), "expr");
    check_operand(json_object_get(clean, "a"), 0, "tid.x", 1LL, "iter.loop0", 16LL, NULL);
    json_t *one_lane = json_object_get(model_at(root, line_of(repeat_ptx, "@%p5 bra")), "expr");
    assert_false(is_true(json_object_get(one_lane, "a"), "exact"));
    json_t *square = json_object_get(model_at(root, line_of(repeat_ptx, "@%p6 bra")), "expr");
    assert_false(is_true(json_object_get(square, "a"), "exact"));
    json_decref(root);
}

/* Guards defined in other blocks: from the entry block (alone, and in an
 * or.pred), from a loop's header in a later block of the same loop and
 * after the loop, from before the loop inside it; a register defined in
 * both arms of an if, one defined before an if and again in one arm, and
 * one defined in one arm only, all read after the if. */
static const char *dom_ptx =
    HEADER ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
    "\t.reg .pred %p<12>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n"
    "\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r2, [n];\n"
    "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r3, 0;\n\tmov.u32 %r6, 0;\n"
    "\tsetp.lt.u32 %p1, %r1, 40;\n"
    "\tsetp.gt.u32 %p2, %r1, 3;\n"
    "\t@%p2 bra $L_a;\n"
    "\tadd.s32 %r6, %r6, 1;\n"
    "$L_a:\n"
    "\tsetp.ge.u32 %p3, %r1, %r2;\n"
    "\tor.pred %p4, %p1, %p3;\n"
    "\t@%p4 bra $L_b;\n"
    "\tadd.s32 %r6, %r6, 2;\n"
    "$L_b:\n"
    "\t@%p1 bra $L_loop;\n"
    "\tadd.s32 %r6, %r6, 4;\n"
    "$L_loop:\n"
    "\tmad.lo.s32 %r4, %r3, 16, %r1;\n"
    "\tsetp.ge.s32 %p5, %r4, 20;\n"
    "\t@%p5 bra $L_c;\n"
    "\tadd.s32 %r6, %r6, 8;\n"
    "$L_c:\n"
    "\t@%p5 bra $L_d;\n"
    "\tadd.s32 %r6, %r6, 16;\n"
    "$L_d:\n"
    "\t@!%p1 bra $L_e;\n"
    "\tadd.s32 %r6, %r6, 32;\n"
    "$L_e:\n"
    "\tadd.s32 %r3, %r3, 1;\n"
    "\tsetp.lt.s32 %p6, %r3, 4;\n"
    "\t@%p6 bra $L_loop;\n"
    "\t@%p5 bra $L_f;\n"
    "\tadd.s32 %r6, %r6, 64;\n"
    "$L_f:\n"
    "\tsetp.gt.u32 %p10, %r1, 2;\n"
    "\tsetp.lt.u32 %p7, %r1, 10;\n"
    "\t@%p7 bra $L_else;\n"
    "\tsetp.gt.u32 %p8, %r1, 20;\n"
    "\tsetp.gt.u32 %p9, %r1, 5;\n"
    "\tsetp.gt.u32 %p10, %r1, 30;\n"
    "\tbra.uni $L_join;\n"
    "$L_else:\n"
    "\tsetp.gt.u32 %p8, %r1, 2;\n"
    "$L_join:\n"
    "\t@%p8 bra $L_g;\n"
    "\tadd.s32 %r6, %r6, 128;\n"
    "$L_g:\n"
    "\t@%p9 bra $L_h;\n"
    "\tadd.s32 %r6, %r6, 256;\n"
    "$L_h:\n"
    "\t@%p10 bra $L_i;\n"
    "\tadd.s32 %r6, %r6, 512;\n"
    "$L_i:\n"
    "\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r6;\n"
    "\tret;\n}\n";

static void test_dominating(void **state)
{
    (void)state;
    json_t *root = profile(dom_ptx, "{\"buffers\": {\"o\": {\"type\": \"u32\", \"count\": 64}},"
                                    " \"launches\": [{\"kernel\": \"k\", \"grid\": 2, \"block\": 64,"
                                    " \"args\": [\"o\", 50]}]}");
    const int p1 = line_of(dom_ptx, "setp.lt.u32 %p1");
    /* or.pred of the entry block's %p1 and this block's %p3 */
    json_t *cm = model_at(root, line_of(dom_ptx, "@%p4 bra"));
    assert_true(is_true(cm, "exact"));
    json_t *expr = json_object_get(cm, "expr");
    assert_string_equal(str(expr, "op"), "or");
    assert_int_equal(json_integer_value(json_object_get(arg(expr, 0), "line")), p1);
    assert_string_equal(str(arg(expr, 0), "cmp"), "lt");
    check_operand(json_object_get(arg(expr, 0), "a"), 0, "tid.x", 1LL, NULL);
    check_operand(json_object_get(arg(expr, 0), "b"), 40, NULL);
    assert_int_equal(json_integer_value(json_object_get(arg(expr, 1), "line")),
                     line_of(dom_ptx, "setp.ge.u32 %p3"));
    check_operand(json_object_get(arg(expr, 1), "b"), 50, NULL);
    /* %p1 alone, after a join, and inside the loop (negated) */
    cm = model_at(root, line_of(dom_ptx, "@%p1 bra"));
    assert_true(is_true(cm, "exact"));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(cm, "expr"), "line")), p1);
    cm = model_at(root, line_of(dom_ptx, "@!%p1 bra"));
    assert_true(is_true(cm, "exact"));
    assert_true(is_true(cm, "negate"));
    /* the loop header's %p5 in a later block of the same iteration */
    cm = model_at(root, line_of(dom_ptx, "@%p5 bra $L_d"));
    assert_true(is_true(cm, "exact"));
    expr = json_object_get(cm, "expr");
    assert_int_equal(json_integer_value(json_object_get(expr, "line")), line_of(dom_ptx, "setp.ge.s32 %p5"));
    check_operand(json_object_get(expr, "a"), 0, "tid.x", 1LL, "iter.loop0", 16LL, NULL);
    check_operand(json_object_get(expr, "b"), 20, NULL);
    /* ... but after the loop it holds the last iteration's value */
    assert_null(model_at(root, line_of(dom_ptx, "@%p5 bra $L_f")));
    /* both arms, one arm over a dominating definition, one arm only */
    assert_null(model_at(root, line_of(dom_ptx, "@%p8 bra")));
    assert_null(model_at(root, line_of(dom_ptx, "@%p10 bra")));
    assert_null(model_at(root, line_of(dom_ptx, "@%p9 bra")));
    json_decref(root);
}

/* The fit of a comparison fed by hand: executions of two warps whose
 * features from 3 on are uniform, given with their warp tags (so that a
 * repeated shape is accepted on one lane) or without (every lane through
 * the fitter). Operand a is tid.x + 100 iter, plus 5 from execution
 * `jump` on; ctaid.x changes from 0 to 1 at execution 20 while a does not
 * move, so a jump at 30 contradicts what was seen at 20 (no exact model),
 * and a jump at 20 is explained by ctaid.x. Both ways must agree. */
static const char *fit_ptx = HEADER ".visible .entry k()\n{\n"
                             "  .reg .b32 %r<3>;\n  .reg .pred %p<2>;\n"
                             "  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, 7;\n"
                             "  setp.lt.s32 %p1, %r1, %r2;\n  ret;\n}\n";

static int fit_operand_a(const mb_function *fn, const mb_insn *setp, int tagged, int jump,
                         int64_t coef[PM_MAXCOL], uint32_t *ncoef)
{
    enum { NF = 7 };
    prof_cond_fit *cf = prof_cond_fit_new(fn, setp, NF, 0);
    assert_non_null(cf);
    int64_t tid[2][32], uniform[NF] = {0};
    const int64_t *columns[2][NF] = {{NULL}};
    for (int w = 0; w < 2; w++) {
        for (int l = 0; l < 32; l++)
            tid[w][l] = 32 * w + l;
        columns[w][0] = tid[w];
    }
    for (int e = 0; e < 40; e++) {
        for (int w = 0; w < 2; w++) {
            uint32_t a[32], b[32];
            uniform[3] = e < 20 ? 0 : 1;
            uniform[6] = e / 2;
            for (int l = 0; l < 32; l++) {
                a[l] = (uint32_t)(tid[w][l] + 100 * uniform[6] + (e >= jump ? 5 : 0));
                b[l] = 7;
            }
            const prof_cond_exec ex = {.executed = UINT32_MAX,
                                       .values = {a, b},
                                       .feature_lanes = columns[w],
                                       .feature_uniform = uniform,
                                       .warp_tag = tagged ? (uint32_t)w + 1 : 0,
                                       .uniform = 1};
            if (prof_cond_fit_open(cf))
                prof_cond_fit_add(cf, &ex);
        }
    }
    const int exact = prof_cond_operand(cf, fn, setp, 0, coef, ncoef);
    prof_cond_fit_free(cf);
    return exact;
}

static void test_fit_tagged_matches_untagged(void **state)
{
    (void)state;
    mb_module *m = NULL;
    mb_error err;
    assert_int_equal(mb_ptx_parse(fit_ptx, strlen(fit_ptx), "fit.ptx", &m, &err), MB_OK);
    const mb_function *fn = &m->funcs[0];
    const mb_insn *setp = NULL;
    for (uint32_t i = 0; i < fn->ninsns; i++)
        if (fn->insns[i].opcode == MB_OP_SETP)
            setp = &fn->insns[i];
    assert_non_null(setp);
    const int jumps[] = {30, 20, 100};
    for (unsigned j = 0; j < sizeof(jumps) / sizeof(jumps[0]); j++) {
        int64_t with[PM_MAXCOL], without[PM_MAXCOL];
        uint32_t nwith = 0, nwithout = 0;
        const int exact = fit_operand_a(fn, setp, 1, jumps[j], with, &nwith);
        assert_int_equal(exact, fit_operand_a(fn, setp, 0, jumps[j], without, &nwithout));
        assert_int_equal(exact, jumps[j] != 30);
        if (exact) {
            assert_int_equal(nwith, nwithout);
            for (uint32_t k = 0; k < nwith; k++)
                assert_int_equal(with[k], without[k]);
            assert_int_equal(with[1], 1);   /* tid.x */
            assert_int_equal(with[7], 100); /* the iteration */
            assert_int_equal(with[4], jumps[j] == 20 ? 5 : 0); /* ctaid.x */
        }
    }
    mb_module_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds_check),
        cmocka_unit_test(test_loop_iteration),
        cmocka_unit_test(test_unsigned_wrap),
        cmocka_unit_test(test_data_float_negate),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_repeats_checked),
        cmocka_unit_test(test_dominating),
        cmocka_unit_test(test_fit_tagged_matches_untagged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
